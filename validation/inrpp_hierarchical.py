#!/usr/bin/env python3
"""INRPP's hierarchical (transit-stub) experiment (Reñé et al., ToN 2022,
Fig. 15, §IV-C): Fig. 16, the AFCT by flow size for TCP, RCP, MPTCP and
INRPP with E[L] = 125 packets, and the paper's claims about it.

Runs the built-in scenarios

- ``inrpp-hierarchical`` (four core routers in a full mesh, eight edge
  routers in four branches, the servers in one branch on 100 Mb/s links,
  everything else 10 Mb/s; 6000 Poisson-arriving Pareto-sized flows at
  ρ = 0.8 of the receivers' access links) with INRPP as shipped, with TCP
  (NewReno, plain routers) and with RCP (routers with §IV-A's α = 0.1,
  β = 1.0);
- ``inrpp-hierarchical-mptcp`` (the same flows from servers multihomed on
  both edge routers of their branch, two subflows each) with MPTCP;

and prints, per flow-size class (1-3-10 steps in packets of 1448 bytes of
payload), the flows completed and the AFCT of each transport, the ratios
INRPP/TCP, INRPP/RCP and INRPP/MPTCP, and the acceptance check of issue 19:
INRPP's AFCT below every other transport's in every class where each
transport completed at least 30 flows. Fig. 16 is a plot the paper's text
does not reproduce: only its statements (INRPP ≈ 2× better than TCP and RCP,
up to ≈ 1.5× better than MPTCP) can be compared.

Runs one at a time, with ``pathpool-sim`` (built with cargo unless
``--pathpool-bin``); each finished run is a line of ``OUT/cache.jsonl``
(validation/cache.py, keyed by the scenario's text and a digest of the
pathpool-sim binary), so an interrupted run resumes; ``--fresh`` starts
over. Writes ``OUT/report.md`` and ``OUT/afct.png``.

Usage:  python validation/inrpp_hierarchical.py [--flows N] [--duration 240s] [--seeds 1,2] [--out DIR] [--fresh]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "bench"))
from cache import RunCache  # noqa: E402
from ns3_dumbbell import build_pathpool  # noqa: E402

SCENARIOS = REPO / "python" / "pathpool" / "scenarios"
SINGLE = SCENARIOS / "inrpp-hierarchical.toml"
MPTCP = SCENARIOS / "inrpp-hierarchical-mptcp.toml"
RCP_ROUTERS = '[routers]\nmodule = "rcp"\n[routers.params]\nalpha = 0.1\nbeta = 1.0\n'
MSS = 1448
TRANSPORTS = ("TCP", "RCP", "MPTCP", "INRPP")
# Flow-size classes, packets: [edge_k, edge_k+1).
EDGES = (1, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000)
# Issue 19's acceptance: only classes where every transport completed this many flows.
MIN_FLOWS = 30
# The paper's statements about Fig. 16 (§IV-C.2): AFCT ratios of the others to INRPP.
PAPER_OVER_TCP_RCP = 2.0
PAPER_OVER_MPTCP = 1.5


def replace_once(text: str, old: str, new: str) -> str:
    if text.count(old) != 1:
        raise SystemExit(f"the built-in scenario no longer has exactly one `{old}`")
    return text.replace(old, new)


def variant(transport: str, flows: int, duration: str) -> str:
    """The scenario text for one transport, `flows` flows, `duration` simulated."""
    text = (MPTCP if transport == "MPTCP" else SINGLE).read_text()
    text = replace_once(text, "flows = 6000", f"flows = {flows}")
    text = replace_once(text, 'duration = "240s"', f'duration = "{duration}"')
    if transport in ("TCP", "RCP"):
        head = text[: text.index("[routers]")]
        text = replace_once(head, 'transport = "inrpp"', f'transport = "{transport.lower()}"') + (RCP_ROUTERS if transport == "RCP" else "")
    return text


def measure(binary: str, text: str, seed: int) -> dict:
    """One run: every flow's (size, fct or None), how many completed, the run's wall time."""
    with tempfile.TemporaryDirectory(prefix="pathpool-inrpp-hier-") as tmp:
        path = Path(tmp) / "hierarchical.toml"
        path.write_text(text)

        def sim(*extra: str) -> str:
            p = subprocess.run([binary, "run", str(path), "--seed", str(seed), *extra], capture_output=True, text=True)
            if p.returncode != 0:
                raise SystemExit(f"pathpool-sim failed:\n{p.stderr[-2000:]}")
            return p.stdout

        t0 = time.monotonic()
        rows = list(csv.DictReader(io.StringIO(sim("--table", "flows")), delimiter="\t"))
        wall = time.monotonic() - t0
    flows = [[int(r["size_bytes"]), float(r["fct_s"]) if r["completed"] == "true" else None] for r in rows]
    return {"flows": flows, "completed": sum(f is not None for _, f in flows), "wall_s": round(wall, 1)}


def size_class(size_bytes: int) -> int:
    packets = -(-size_bytes // MSS)
    return max(k for k, e in enumerate(EDGES) if packets >= e)


def label(k: int) -> str:
    return f"{EDGES[k]}-{EDGES[k + 1] - 1}" if k + 1 < len(EDGES) else f"{EDGES[k]}+"


def by_class(runs: list[dict]) -> dict[int, tuple[float, int, int]]:
    """Over the seeds' runs: each class's AFCT of the completed flows, their count, and the flows offered."""
    fcts: dict[int, list[float]] = {}
    offered: dict[int, int] = {}
    for run in runs:
        for size, fct in run["flows"]:
            k = size_class(size)
            offered[k] = offered.get(k, 0) + 1
            if fct is not None:
                fcts.setdefault(k, []).append(fct)
    return {k: (sum(fcts[k]) / len(fcts[k]) if fcts.get(k) else float("nan"), len(fcts.get(k, [])), n) for k, n in offered.items()}


def report(results: dict[str, list[dict]], flows: int, duration: str, seeds: list[int]) -> tuple[str, bool]:
    cls = {t: by_class(results[t]) for t in TRANSPORTS}
    classes = sorted({k for t in TRANSPORTS for k in cls[t]})
    head = ["packets", "offered"] + [f"{t} AFCT s (done)" for t in TRANSPORTS] + ["TCP/INRPP", "RCP/INRPP", "MPTCP/INRPP", f"≥ {MIN_FLOWS} done by each"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    verdicts = []
    for k in classes:
        cells = {t: cls[t].get(k, (float("nan"), 0, 0)) for t in TRANSPORTS}
        offered = cells["TCP"][2]
        ratios = [cells[o][0] / cells["INRPP"][0] for o in ("TCP", "RCP", "MPTCP")]
        counted = min(cells[t][1] for t in TRANSPORTS) >= MIN_FLOWS
        if counted:
            verdicts.append(all(cells["INRPP"][0] < cells[o][0] for o in ("TCP", "RCP", "MPTCP")))
        lines.append(
            f"| {label(k)} | {offered} | " + " | ".join(f"{cells[t][0]:.3f} ({cells[t][1]})" for t in TRANSPORTS) + " | "
            + " | ".join(f"{r:.2f}" for r in ratios) + f" | {'yes' if counted else 'no'} |"
        )
    total = {t: [f for r in results[t] for _, f in r["flows"] if f is not None] for t in TRANSPORTS}
    afct = {t: sum(total[t]) / len(total[t]) for t in TRANSPORTS}
    lines.append(
        f"| all | {sum(len(r['flows']) for r in results['TCP'])} | "
        + " | ".join(f"{afct[t]:.3f} ({len(total[t])})" for t in TRANSPORTS) + " | "
        + " | ".join(f"{afct[o] / afct['INRPP']:.2f}" for o in ("TCP", "RCP", "MPTCP")) + " | |"
    )
    met = bool(verdicts) and all(verdicts)
    counted_classes = [label(k) for k in classes if min(cls[t].get(k, (0, 0, 0))[1] for t in TRANSPORTS) >= MIN_FLOWS]
    best_mptcp = max((cls["MPTCP"][k][0] / cls["INRPP"][k][0] for k in classes if k in cls["MPTCP"] and k in cls["INRPP"]
                      and min(cls[t].get(k, (0, 0, 0))[1] for t in TRANSPORTS) >= MIN_FLOWS), default=float("nan"))
    text = "\n".join([
        f"Fig. 16: hierarchical topology (Fig. 15), {flows} flows of E[L] = 125 packets at ρ = 0.8, {duration} simulated, "
        f"seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}",
        "Each cell: AFCT of the completed flows of the class, seconds (how many completed); ratios > 1: INRPP faster.",
        "",
        *lines,
        "",
        f"Paper (§IV-C.2): TCP/INRPP and RCP/INRPP ≈ {PAPER_OVER_TCP_RCP:g}; MPTCP/INRPP up to ≈ {PAPER_OVER_MPTCP:g}.",
        f"pathpool, all flows: TCP/INRPP {afct['TCP'] / afct['INRPP']:.2f}, RCP/INRPP {afct['RCP'] / afct['INRPP']:.2f}, "
        f"MPTCP/INRPP {afct['MPTCP'] / afct['INRPP']:.2f}; MPTCP/INRPP at most {best_mptcp:.2f} over the counted classes.",
        f"Acceptance (issue 19): INRPP's AFCT below every other transport's in every class where each completed ≥ {MIN_FLOWS} flows "
        f"({', '.join(counted_classes) or 'none'}): {'MET' if met else 'NOT MET'}.",
    ])
    return text, met


def plot(results: dict[str, list[dict]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.4))
    for t, marker in zip(TRANSPORTS, "osD^"):
        cls = by_class(results[t])
        ks = [k for k in sorted(cls) if cls[k][1] > 0]
        ax.plot([k for k in ks], [cls[k][0] for k in ks], marker=marker, label=t)
        ax.set_xticks(range(len(EDGES)), [label(k) for k in range(len(EDGES))], rotation=30, fontsize=8)
    ax.set(yscale="log", xlabel="flow size (packets of 1448 B)", ylabel="AFCT (s)", title="Fig. 16: AFCT by flow size, hierarchical topology")
    ax.grid(True, which="both", lw=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pathpool-bin", type=Path, metavar="PATH", help="use this pathpool-sim instead of building one with cargo")
    ap.add_argument("--flows", type=int, default=6000, help="flows per run (default: the built-in's 6000)")
    ap.add_argument("--duration", default="240s", help="simulated time (default: the built-in's 240s)")
    ap.add_argument("--seeds", default="1", help="comma-separated seeds; a class's AFCT is over the flows of every seed (default: 1)")
    ap.add_argument("--out", type=Path, default=REPO / "results" / "inrpp-hierarchical", help="cache.jsonl, report.md and afct.png")
    ap.add_argument("--fresh", action="store_true", help="forget cached runs")
    args = ap.parse_args()
    if args.flows < 1:
        raise SystemExit(f"--flows: must be at least 1, got {args.flows}")
    seeds = [int(s) for s in args.seeds.split(",")]
    binary = args.pathpool_bin.resolve() if args.pathpool_bin else build_pathpool(SystemExit)
    build = hashlib.sha256(binary.read_bytes()).hexdigest()[:12]
    cache = RunCache(args.out / "cache.jsonl", args.fresh, build=build)
    results: dict[str, list[dict]] = {}
    for t in TRANSPORTS:
        text = variant(t, args.flows, args.duration)
        results[t] = []
        for s in seeds:
            run = cache.get(f"{t}/seed{s}", measure, str(binary), text, s, params=[text, s])
            print(f"  {t} seed {s}: {run['completed']} flows completed, {run['wall_s']:.0f} s wall", file=sys.stderr, flush=True)
            results[t].append(run)
    text, _ = report(results, args.flows, args.duration, seeds)
    wall = sum(r["wall_s"] for rs in results.values() for r in rs)
    text += (f"\n({sum(len(rs) for rs in results.values())} runs, {wall / 60:.1f} minutes of wall time when they ran; "
             f"pathpool-sim build {build} (sha256 of the binary); runs this time {cache.ran}, from the cache {cache.hits}.)")
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.md").write_text(text + "\n")
    try:
        plot(results, args.out / "afct.png")
        print(f"wrote {args.out / 'report.md'} and {args.out / 'afct.png'}")
    except ImportError:
        print(f"wrote {args.out / 'report.md'}; no matplotlib, so no afct.png (make install's .venv has it)")


if __name__ == "__main__":
    main()
