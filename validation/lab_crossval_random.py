#!/usr/bin/env python3
"""The simulator against the real Linux stack on random scenarios (issue 17,
item 5): N scenarios drawn from validation/lab_space.py's space with SEED,
each run on both planes, compared flow by flow.

How a flow is compared (validation/crossval_compare.py):
    bulk flow                  goodput (bytes delivered over its start to the run's end)
    sized, complete on both    completion time (fct_s)
    sized, complete on neither goodput
    sized, complete on one     reported as such; counted outside both tolerances
Δ = (sim − lab) / lab. Target: ≥ 90 % of flows within 15 %, none beyond 40 %.

--lab-runs K (default 1) runs each scenario's lab plane K times. With K ≥ 2
the kernel's reference is the median of its K runs, and each kernel run is
also compared with the median of its K − 1 other runs (leave-one-out): the
share of (flow, run) pairs within 15 % is the ceiling the kernel itself
reaches on the same metric, printed beside the simulator's share. A sized
flow that completes on some kernel runs only has no common metric: it counts
outside both tolerances in both figures.

Every scenario is written to results/lab-crossval-random/scenarios/NAME.toml
(rerun one with `sudo .venv/bin/pathpool run FILE --plane lab --out DIR`);
each plane's figures are cached under results/lab-crossval-random/cache/
(by scenario text, plane and pathpool version; the simulator's also by its
build, validation/cache.py's build_id, the kernel's by the lab's, lab_id: the
lab crate's source and the kernel release), so an interrupted run resumes, a
rebuilt simulator is rerun against the kernel's cached figures and a changed
emulator runs the kernel again. --rerun I
measures scenario I's lab plane again (a run that looked load-driven),
keeping the earlier figures beside it (its run 0 only). Lab run r ≥ 1 of a
scenario is cached beside run 0 as NAME.lab.KEY.run<r>.json, so K can be
raised later and only the missing runs are made. --sim-kernel-like runs
the simulator plane with the options that imitate Linux (`cwnd_growth =
"cwnd_limited"`, `rto_formula = "linux"`, `send_buffer = "linux"`, `rack`,
`sack_compression`, `ssthresh_from = "cwnd"`, the `linger` scheduler and its subflows' send buffers, CUBIC's
`reno_alpha = "linux"`; written as
NAME.kernel-like.toml) against the same lab figures, into
table-kernel-like.md and results-kernel-like.json.

--cross-shift-us D adds one more kernel run of every scenario with cross
flows, with each cross flow's two access links D µs longer (NAME.cross+Dus.toml;
its round trip 4·D longer, the main flow's unchanged), compared flow by flow
with the median of the K unshifted kernel runs, beside the simulator on the
same flows: how much of the kernel's answer hangs on a fraction of a
millisecond, which drop-tail phase effects make it do (docs/validation.md,
"Phase effects"). The simulator and the lab differ by about that much: the
lab's hosts and forwarders add ~0.3 ms to a round trip.

Usage:  sudo python validation/lab_crossval_random.py --n 30 --seed 1 [--markdown FILE] [--json FILE] [--rerun I ...]
                                                      [--sim-kernel-like] [--lab-runs K] [--cross-shift-us D]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pathpool
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lab_space  # noqa: E402
from cache import build_id, lab_id  # noqa: E402
from crossval_compare import NEVER_BEYOND, SHARE_TARGET, WITHIN, compare, leave_one_out, magnitude, reference, tally, worst  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "results" / "lab-crossval-random"
#: A lab run longer than the scenario plus this (set-up under load included) is stopped and reported.
LAB_GRACE_S = 90.0


def cache_file(path: Path, plane: str, run: int = 0) -> Path:
    """Where one plane's figures of a scenario are cached: by its text, the plane and pathpool's version,
    the simulator plane also by the simulator's build (``cache.build_id``) and the lab plane by the lab's
    (``cache.lab_id``: its source and the kernel), so that a changed simulator is measured again against the
    kernel's cached figures, and a changed emulator measures the kernel again. Lab run 0 is NAME.lab.KEY.json
    (the one run of a suite without --lab-runs); lab run r ≥ 1 of the same scenario is NAME.lab.KEY.run<r>.json
    beside it."""
    build = f"\n{build_id()}" if plane == "sim" else f"\n{lab_id()}"
    key = hashlib.sha256(f"{plane}\n{path.read_text()}\n{pathpool.__version__}{build}".encode()).hexdigest()[:16]
    return OUT / "cache" / f"{path.stem}.{plane}.{key}{f'.run{run}' if run else ''}.json"


def measure(path: Path, plane: str, fresh: bool, run: int = 0) -> dict:
    """Per-flow figures of one scenario on one plane (lab: its run `run`), cached. A lab run goes to a child
    process, stopped (SIGTERM: the lab removes its namespaces) if it outlives the scenario by LAB_GRACE_S."""
    cached = cache_file(path, plane, run)
    if cached.exists() and not fresh:
        return json.loads(cached.read_text())
    if plane == "sim":
        return run_and_cache(path, plane, cached)
    child = subprocess.Popen([sys.executable, __file__, "--measure", str(path), "--measure-run", str(run)],
                             stderr=subprocess.PIPE, text=True)
    try:
        _, err = child.communicate(timeout=lab_space.DURATION_S + LAB_GRACE_S)
    except subprocess.TimeoutExpired:
        child.terminate()
        child.communicate(timeout=60)
        raise RuntimeError(f"hung: stopped after {lab_space.DURATION_S + LAB_GRACE_S:g} s") from None
    if child.returncode != 0:
        raise RuntimeError(" ".join(err.strip().splitlines()[-2:]))
    return json.loads(cached.read_text())


def run_and_cache(path: Path, plane: str, cached: Path) -> dict:
    """Runs one plane and writes its per-flow figures to `cached`."""
    load = os.getloadavg()
    results = pathpool.run(str(path), plane=plane)
    ts = results.flow_ts
    out = {"plane": plane, "load_before": load, "load_after": os.getloadavg(), "flows": []}
    if plane == "lab":
        out["emulator"] = results.summary.get("emulator")
    for f in results.flows.sort_values("flow_id").itertuples():
        mine = ts[ts.flow_id == f.flow_id]
        srtt = mine.srtt_s.dropna()
        out["flows"].append({
            "name": f.name, "size": None if pd.isna(f.size_bytes) else int(f.size_bytes),
            "start_s": f.start_s, "completed": bool(f.completed),
            "fct_s": None if not f.completed else float(f.fct_s), "goodput_bps": float(f.goodput_bps),
            "bytes_delivered": int(f.bytes_delivered),
            "srtt_ms": float(srtt.mean() * 1e3) if len(srtt) else None,
            "cwnd_kb": float(mine.cwnd_bytes.mean() / 1e3) if len(mine) else None,
            "retransmits": int(f.retransmits), "segments": int(f.segments_sent),
        })
    cached.parent.mkdir(parents=True, exist_ok=True)
    if cached.exists():
        cached.replace(cached.with_suffix(".earlier.json"))
    tmp = cached.with_suffix(".tmp")
    tmp.write_text(json.dumps(out, indent=2))
    tmp.replace(cached)
    return out


def shift_tallies(rows: list[dict]) -> tuple[list[dict], dict, dict]:
    """The rows of the scenarios with a shifted kernel run, that run's tally against the unshifted median, and
    the simulator's tally on the same flows."""
    mine = [r for r in rows if "cross_shift" in r]
    return mine, tally([r["cross_shift"] for r in mine]), tally(mine)


def shift_verdict(rows: list[dict], shift: float, failed: int) -> str:
    """The shifted kernel run against the median of the unshifted ones, on the flows of the scenarios that have
    one, beside the simulator and the kernel's own leave-one-out spread on the same flows."""
    mine, k, s = shift_tallies(rows)
    text = (f"kernel with the cross flows' access links {shift:g} µs longer (their RTT {4 * shift:g} µs longer) vs the median "
            f"of the unshifted kernel runs, on the {len({r['scenario'] for r in mine})} scenarios with cross flows"
            + (f" ({failed} shifted runs failed, left out)" if failed else "") + f": {k['within']} of {k['of']} flows within "
            f"{WITHIN:.0%} ({100 * k['share']:.1f} %), {k['beyond']} beyond {NEVER_BEYOND:.0%}; the simulator on the same flows: "
            f"{s['within']} of {s['of']} ({100 * s['share']:.1f} %), {s['beyond']} beyond")
    if mine and "kernel_loo" in mine[0]:
        own = tally([c for r in mine for c in r["kernel_loo"]])
        text += f"; the kernel vs itself on them: {own['within']} of {own['of']} (flow, run) pairs ({100 * own['share']:.1f} %)"
    return text


def describe(d: lab_space.Draw) -> str:
    """The paths, as rate/one-way delay[/loss]."""
    return " + ".join(f"{p.rate_mbps:g}M/{p.delay_ms:g}ms" + (f"/{100 * p.loss:g}%" if p.loss else "") for p in d.paths)


def fmt(value: float | None, digits: int = 2) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def kind_of(d: lab_space.Draw, k: int) -> str:
    """What flow k of a scenario is: the main flow's transport, cc and size, or a cross flow's cc, path and start."""
    if k == 0:
        return f"{'MPTCP' if d.mptcp else 'TCP'} {d.cc} " + (f"{d.size / 1e6:g} MB" if d.size else "bulk")
    x = d.cross[k - 1]
    return f"{x.cc} path {x.path} from {x.start_s:g} s"


def shown(f: dict, metric: str) -> str:
    """One run's figure of a flow on `metric`, without its unit: goodput in Mb/s; else (fct, or a sized flow
    without a common metric) its completion time in s or "incomplete"."""
    if metric.startswith("goodput"):
        return fmt(f["goodput_bps"] / 1e6)
    return fmt(f["fct_s"], 3) if f["completed"] else "incomplete"


def unit(metric: str) -> str:
    return "Mb/s" if metric.startswith("goodput") else "s"


def median_of(runs: list[dict], field: str) -> float | None:
    values = [r[field] for r in runs if r[field] is not None]
    return statistics.median(values) if values else None


HEADERS_ONE_RUN = ("scenario", "paths (rate/delay one way/loss)", "flow", "kind", "metric", "sim · lab", "Δ",
                   "srtt ms sim · lab", "cwnd kB sim · lab", "retx sim · lab")


def row_one_run(fs: dict, fl: dict, c: dict) -> list[str]:
    """The cells after scenario, paths, flow and kind of a flow compared with one kernel run (today's table)."""
    if c["metric"] == "fct":
        values = f"{fmt(fs['fct_s'], 3)} · {fmt(fl['fct_s'], 3)} s"
    elif c["delta"] is None:
        values = (f"{fmt(fs['fct_s'], 3) if fs['completed'] else 'incomplete'} · "
                  f"{fmt(fl['fct_s'], 3) if fl['completed'] else 'incomplete'} s")
    else:
        values = f"{fmt(fs['goodput_bps'] / 1e6)} · {fmt(fl['goodput_bps'] / 1e6)} Mb/s"
    delta = "—" if c["delta"] is None else f"{100 * c['delta']:+.1f} %"
    return [c["metric"], values, delta, f"{fmt(fs['srtt_ms'], 1)} · {fmt(fl['srtt_ms'], 1)}",
            f"{fmt(fs['cwnd_kb'], 0)} · {fmt(fl['cwnd_kb'], 0)}", f"{fs['retransmits']} · {fl['retransmits']}"]


def headers_runs(k: int) -> tuple[str, ...]:
    return ("scenario", "paths (rate/delay one way/loss)", "flow", "kind", "metric", "sim", f"lab, {k} runs",
            "lab median", "Δ sim vs median", "lab worst leave-one-out Δ", "srtt ms sim · lab median",
            "cwnd kB sim · lab median", "retx sim · lab median")


def row_runs(fs: dict, fls: list[dict], c: dict, loo: list[dict]) -> list[str]:
    """The cells after scenario, paths, flow and kind of a flow compared with the median of its K kernel runs."""
    metric = c["metric"]
    ref = reference(fls, metric)
    own = worst(loo)
    cells = [metric, f"{shown(fs, metric)} {unit(metric)}", " / ".join(shown(f, metric) for f in fls) + f" {unit(metric)}",
             "—" if ref is None else (fmt(ref, 3) if metric == "fct" else fmt(ref / 1e6)),
             "—" if c["delta"] is None else f"{100 * c['delta']:+.1f} %",
             own["metric"] if own["delta"] is None else f"{100 * own['delta']:+.1f} %"]
    srtt, cwnd, retx = (median_of(fls, field) for field in ("srtt_ms", "cwnd_kb", "retransmits"))
    return cells + [f"{fmt(fs['srtt_ms'], 1)} · {fmt(srtt, 1)}", f"{fmt(fs['cwnd_kb'], 0)} · {fmt(cwnd, 0)}",
                    f"{fs['retransmits']} · {fmt(float(retx), 0)}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=30, help="Number of scenarios (default 30).")
    parser.add_argument("--seed", type=int, default=1, help="The suite's seed (default 1).")
    parser.add_argument("--markdown", type=Path, help="The Markdown table's file (default table.md, table-kernel-like.md).")
    parser.add_argument("--json", type=Path, help="The JSON results' file (default results.json, results-kernel-like.json).")
    parser.add_argument("--sim-kernel-like", action="store_true",
                        help="Run the simulator plane with its kernel-like options (cwnd_limited growth, Linux's RTO and send buffer, "
                             "RACK, SACK compression, ssthresh from cwnd, linger scheduler, CUBIC reno_alpha linux).")
    parser.add_argument("--lab-runs", type=int, default=1,
                        help="Run each scenario's lab plane K times; with K >= 2 compare with the median of the K runs "
                             "and report the kernel's own leave-one-out spread (default 1).")
    parser.add_argument("--cross-shift-us", type=float, default=0.0,
                        help="One more kernel run of each scenario with cross flows, their access links D µs longer, "
                             "against the median of the unshifted kernel runs (default 0: none).")
    parser.add_argument("--rerun", type=int, action="append", default=[], help="Measure scenario I's lab plane (its run 0) again.")
    parser.add_argument("--fresh", action="store_true", help="Ignore every cached result.")
    parser.add_argument("--worst", type=int, default=5, help="How many worst cases to print (default 5).")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the child process of one lab run
    parser.add_argument("--measure-run", type=int, default=0, help=argparse.SUPPRESS)  # which lab run the child makes
    args = parser.parse_args(argv)
    if args.measure:
        run_and_cache(args.measure, "lab", cache_file(args.measure, "lab", args.measure_run))
        return 0
    if args.n < 1:
        parser.error("--n: must be at least 1")
    if args.lab_runs < 1:
        parser.error(f"--lab-runs: must be at least 1, got {args.lab_runs}")
    if args.cross_shift_us < 0:
        parser.error(f"--cross-shift-us: must not be negative, got {args.cross_shift_us:g}")
    bad = [i for i in args.rerun if not 0 <= i < args.n]
    if bad:
        parser.error(f"--rerun: scenario {bad[0]} is not one of 0..{args.n - 1}")
    runs = args.lab_runs
    suffix = "-kernel-like" if args.sim_kernel_like else ""
    args.markdown = args.markdown or OUT / f"table{suffix}.md"
    args.json = args.json or OUT / f"results{suffix}.json"
    scenarios = OUT / "scenarios"
    scenarios.mkdir(parents=True, exist_ok=True)
    draws = [lab_space.draw(args.seed, i) for i in range(args.n)]
    def write(name: str, text: str) -> Path:
        path = scenarios / f"{name}.toml"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        return path

    files = [write(d.name, lab_space.to_toml(d)) for d in draws]
    # The lab plane always runs the plain file; with --sim-kernel-like the simulator runs a copy with its kernel-like options.
    sim_files = [write(f"{d.name}.kernel-like", lab_space.to_toml(d, kernel_like=True)) for d in draws] if args.sim_kernel_like else files
    shift = args.cross_shift_us
    shift_files = [write(f"{d.name}.cross+{shift:g}us", lab_space.to_toml(d, cross_shift_us=shift)) if shift and d.cross else None
                   for d in draws]
    pathpool.validate(str(files[0]))

    console = Console()
    if not console.is_terminal:
        console.width = 200
    measured, failed, shift_failed = [], [], []
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console) as bar:
        task = bar.add_task("scenarios", total=args.n)
        for d, path, sim_path, shift_path in zip(draws, files, sim_files, shift_files):
            bar.update(task, description=f"{d.name} sim")
            sim = measure(sim_path, "sim", args.fresh)
            labs, errors = [], []
            for r in range(runs):
                bar.update(task, description=f"{d.name} lab" + (f" run {r}" if runs > 1 else ""))
                try:
                    labs.append(measure(path, "lab", args.fresh or (r == 0 and d.index in args.rerun), r))
                except RuntimeError as e:  # LabError: reported, not cached, so the next run tries again
                    errors.append(str(e) if runs == 1 else f"run {r}: {e}")
            shifted = None
            if shift_path and not errors:
                bar.update(task, description=f"{d.name} lab, cross flows +{shift:g} µs")
                try:
                    shifted = measure(shift_path, "lab", args.fresh)
                except RuntimeError as e:
                    console.print(f"{d.name}: the shifted lab run failed: {e}")
                    shift_failed.append(d.name)
            if errors:
                console.print(f"{d.name}: the lab run failed: {'; '.join(errors)}")
                failed.append((d, path, "; ".join(errors)))
            else:
                measured.append((d, path, sim, labs, shifted))
            bar.advance(task)

    title = f"pathpool simulator vs the Linux kernel: {args.n} random scenarios, seed {args.seed}"
    headers = HEADERS_ONE_RUN if runs == 1 else headers_runs(runs)
    table = Table(title=title + ("" if runs == 1 else f", {runs} kernel runs each"))
    for h in headers:
        table.add_column(h)
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    rows, pairs = [], []
    for d, path, sim, labs, shifted in measured:
        for k, fs in enumerate(sim["flows"]):
            fls = [lab["flows"][k] for lab in labs]
            c = compare(fs, fls)
            kind = kind_of(d, k)
            head = [d.name if k == 0 else "", describe(d) if k == 0 else "", fs["name"], kind]
            row = {"scenario": d.name, "file": str(path), "flow": fs["name"], "kind": kind, **c}
            if shifted:
                row["cross_shift"] = {**compare(shifted["flows"][k], fls, "the shifted kernel run", "the kernel runs"),
                                      "lab": shifted["flows"][k]}
            if runs == 1:
                cells = head + row_one_run(fs, fls[0], c)
                row.update(sim=fs, lab=fls[0], lab_load=labs[0].get("load_before"), lab_emulator=labs[0].get("emulator"))
            else:
                loo = leave_one_out(fls)
                pairs += loo
                cells = head + row_runs(fs, fls, c, loo)
                row.update(lab_median=reference(fls, c["metric"]), kernel_loo=loo, sim=fs, lab=fls,
                           lab_load=[lab.get("load_before") for lab in labs], lab_emulator=[lab.get("emulator") for lab in labs])
            style = None if c["within"] else ("bold red" if c["beyond"] else "yellow")
            table.add_row(*cells, style=style)
            lines.append("| " + " | ".join(cells) + " |")
            rows.append(row)
    console.print(table)

    for d, path, error in failed:
        cells = [d.name, describe(d), "—", "—", "lab run failed", error.replace("\n", " ")] + ["—", "", "", ""] + [""] * (len(headers) - 10)
        table.add_row(*cells, style="bold red")
        lines.append("| " + " | ".join(cells) + " |")
    if not rows:
        console.print(table)
        console.print("no scenario ran on both planes")
        return 1
    sim_vs = tally(rows)
    share, within, beyond = sim_vs["share"], sim_vs["within"], sim_vs["beyond"]
    met = share >= SHARE_TARGET and not beyond and not failed
    verdict = ((f"{len(failed)} scenarios failed on the lab and are not counted; " if failed else "") +
               ("" if runs == 1 else f"simulator vs the median of {runs} kernel runs: ") +
               f"{within} of {len(rows)} flows within {WITHIN:.0%} ({100 * share:.1f} %), {beyond} beyond "
               f"{NEVER_BEYOND:.0%}: target (≥ {SHARE_TARGET:.0%} within {WITHIN:.0%}, none beyond {NEVER_BEYOND:.0%}) "
               + ("MET" if met else "NOT MET"))
    if runs > 1:
        own = tally(pairs)
        mixed = sum(c["metric"].startswith("complete on") for c in rows)
        verdict += (f"\nkernel vs kernel (each run against the median of its {runs - 1} other"
                    f"{' runs' if runs > 2 else ' run'}, the same metric): {own['within']} of {own['of']} (flow, run) pairs "
                    f"within {WITHIN:.0%} ({100 * own['share']:.1f} %), {own['beyond']} beyond {NEVER_BEYOND:.0%}"
                    f"\n{mixed} flows complete on some kernel runs only: counted outside both tolerances in both figures")
    if shift:
        verdict += "\n" + shift_verdict(rows, shift, len(shift_failed))
    console.print(verdict)
    worst_rows = sorted(rows, key=lambda r: -magnitude(r))[:args.worst]
    console.print("worst cases:")
    for r in worst_rows:
        delta = r["metric"] if r["delta"] is None else f"{r['metric']} {100 * r['delta']:+.1f} %"
        if runs > 1:
            own_worst = worst(r["kernel_loo"])
            delta += " (kernel's own worst: " + (own_worst["metric"] if own_worst["delta"] is None
                                                 else f"{100 * own_worst['delta']:+.1f} %") + ")"
        console.print(f"  {r['scenario']} {r['flow']} ({r['kind']}): {delta}  —  {r['file']}")
    loads = [lab["load_before"][0] for m in measured for lab in m[3] if lab.get("load_before")]
    if loads:
        console.print(f"one-minute load average before each lab run: {min(loads):.2f}–{max(loads):.2f}, "
                      f"mean {sum(loads) / len(loads):.2f}")

    args.markdown.parent.mkdir(parents=True, exist_ok=True)
    args.markdown.write_text("\n".join(lines) + "\n\n" + verdict + "\n")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    summary = {"seed": args.seed, "n": args.n, "within": within, "flows": len(rows), "beyond": beyond, "met": met}
    if runs > 1:
        summary.update(lab_runs=runs, kernel_loo={k: v for k, v in tally(pairs).items() if k != "share"})
    if shift:
        _, kernel_shifted, sim_shifted = shift_tallies(rows)
        summary.update(cross_shift_us=shift, cross_shift={k: v for k, v in kernel_shifted.items() if k != "share"},
                       sim_on_shifted_flows={k: v for k, v in sim_shifted.items() if k != "share"})
    args.json.write_text(json.dumps({**summary, "rows": rows,
                                     "lab_failed": [{"scenario": d.name, "error": e} for d, _, e in failed]}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
