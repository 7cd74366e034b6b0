"""How the random simulator-vs-kernel suite (validation/lab_crossval_random.py;
docs/validation.md, "Random scenarios") compares a flow: against one kernel
run, against the median of K kernel runs, and each kernel run against the
median of the others (the kernel's own spread on the same metric). Pure
functions of the per-flow figures a run caches (the dicts of its "flows"
list): nothing is run here.

A flow's figure x is compared against its reference runs refs:

    bulk flow                                  goodput (bytes delivered over its start to the run's end)
    sized, complete on x and on every ref      completion time (fct_s)
    sized, complete on neither x nor any ref   goodput ("incomplete on both")
    sized, complete on x only / every ref only "incomplete on <side> only": no Δ, outside both tolerances
    sized, complete on some refs only          "complete on j of n kernel runs": no Δ, outside both tolerances

The reference figure is the median of the refs' figures on that metric (of
one run: that run's, today's comparison). Δ = (x − reference) / reference.
Target (issue 17): ≥ 90 % of flows within 15 %, none beyond 40 %.
"""

from __future__ import annotations

import math
import statistics

WITHIN = 0.15
NEVER_BEYOND = 0.40
SHARE_TARGET = 0.90


def _outside(metric: str) -> dict:
    """A flow whose planes or runs disagree on whether it completes: no common metric, counted outside both tolerances."""
    return {"metric": metric, "delta": None, "within": False, "beyond": True}


def metric_key(metric: str) -> str | None:
    """The per-flow field a metric compares (None when there is no common metric)."""
    return {"fct": "fct_s", "goodput": "goodput_bps", "goodput (incomplete on both)": "goodput_bps"}.get(metric)


def compare(x: dict, refs: list[dict], x_side: str = "sim", ref_side: str = "lab") -> dict:
    """How flow figure `x` compares with the median of its reference runs `refs` (the same flow, other runs):
    the metric, Δ, and whether it counts within 15 % / beyond 40 %. `x_side` and `ref_side` name the two
    sides in the metric of a flow that completes on one only."""
    if not refs:
        raise ValueError("compare: no reference run")
    if x["size"] is None:
        metric = "goodput"
    else:
        done = sum(bool(r["completed"]) for r in refs)
        if 0 < done < len(refs):
            return _outside(f"complete on {done} of {len(refs)} kernel runs")
        if x["completed"] and done:
            metric = "fct"
        elif not x["completed"] and not done:
            metric = "goodput (incomplete on both)"
        else:
            return _outside(f"incomplete on {ref_side if x['completed'] else x_side} only")
    key = metric_key(metric)
    reference = statistics.median(r[key] for r in refs)
    delta = (x[key] - reference) / reference if reference else math.inf
    return {"metric": metric, "delta": delta, "within": abs(delta) <= WITHIN, "beyond": abs(delta) > NEVER_BEYOND}


def reference(refs: list[dict], metric: str) -> float | None:
    """The median of the reference runs' figures on `metric` (None when there is no common metric)."""
    key = metric_key(metric)
    return None if key is None else statistics.median(r[key] for r in refs)


def leave_one_out(runs: list[dict]) -> list[dict]:
    """Each kernel run of one flow against the median of its OTHER runs (K ≥ 2), so that no run is compared
    with itself: the kernel's own spread, one comparison per (flow, run) pair."""
    if len(runs) < 2:
        raise ValueError(f"leave_one_out: needs at least 2 runs, got {len(runs)}")
    return [compare(run, runs[:r] + runs[r + 1:], "this kernel run", "the other kernel runs") for r, run in enumerate(runs)]


def magnitude(c: dict) -> float:
    """|Δ| of a comparison, infinite for one without a common metric (it ranks worst)."""
    return math.inf if c["delta"] is None else abs(c["delta"])


def worst(comparisons: list[dict]) -> dict:
    """The comparison of largest |Δ| (one without a common metric first)."""
    return max(comparisons, key=magnitude)


def tally(comparisons: list[dict]) -> dict:
    """How many comparisons are within 15 % and beyond 40 %, of how many; the share within."""
    within = sum(c["within"] for c in comparisons)
    beyond = sum(c["beyond"] for c in comparisons)
    return {"within": within, "of": len(comparisons), "beyond": beyond,
            "share": within / len(comparisons) if comparisons else math.nan}
