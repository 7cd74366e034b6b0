#!/usr/bin/env python3
"""The simulator against the real Linux stack on random scenarios (issue 17,
item 5): N scenarios drawn from validation/lab_space.py's space with SEED,
each run on both planes, compared flow by flow.

How a flow is compared:
    bulk flow                  goodput (bytes delivered over its start to the run's end)
    sized, complete on both    completion time (fct_s)
    sized, complete on neither goodput
    sized, complete on one     reported as such; counted outside both tolerances
Δ = (sim − lab) / lab. Target: ≥ 90 % of flows within 15 %, none beyond 40 %.

Every scenario is written to results/lab-crossval-random/scenarios/NAME.toml
(rerun one with `sudo .venv/bin/pathpool run FILE --plane lab --out DIR`);
each plane's figures are cached under results/lab-crossval-random/cache/
(by scenario text, plane and pathpool version; the simulator's also by its
build, validation/cache.py's build_id), so an interrupted run resumes and a
rebuilt simulator is rerun against the kernel's cached figures. --rerun I
measures scenario I's lab plane again (a run that looked load-driven),
keeping the earlier figures beside it. --sim-kernel-like runs
the simulator plane with the options that imitate Linux (`cwnd_growth =
"cwnd_limited"`, the `linger` scheduler and its send buffers, CUBIC's
`reno_alpha = "linux"`; written as
NAME.kernel-like.toml) against the same lab figures, into
table-kernel-like.md and results-kernel-like.json.

Usage:  sudo python validation/lab_crossval_random.py --n 30 --seed 1 [--markdown FILE] [--json FILE] [--rerun I ...]
                                                      [--sim-kernel-like]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
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
from cache import build_id  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "results" / "lab-crossval-random"
WITHIN = 0.15
NEVER_BEYOND = 0.40
SHARE_TARGET = 0.90
#: A lab run longer than the scenario plus this (set-up under load included) is stopped and reported.
LAB_GRACE_S = 90.0


def cache_file(path: Path, plane: str) -> Path:
    """Where one plane's figures of a scenario are cached: by its text, the plane and pathpool's version,
    and the simulator plane also by the simulator's build (``cache.build_id``), so that a changed simulator
    is measured again while the kernel's figures stay reusable."""
    build = f"\n{build_id()}" if plane == "sim" else ""
    key = hashlib.sha256(f"{plane}\n{path.read_text()}\n{pathpool.__version__}{build}".encode()).hexdigest()[:16]
    return OUT / "cache" / f"{path.stem}.{plane}.{key}.json"


def measure(path: Path, plane: str, fresh: bool) -> dict:
    """Per-flow figures of one scenario on one plane, cached. A lab run goes to a child process, stopped
    (SIGTERM: the lab removes its namespaces) if it outlives the scenario by LAB_GRACE_S."""
    cached = cache_file(path, plane)
    if cached.exists() and not fresh:
        return json.loads(cached.read_text())
    if plane == "sim":
        return run_and_cache(path, plane, cached)
    child = subprocess.Popen([sys.executable, __file__, "--measure", str(path)], stderr=subprocess.PIPE, text=True)
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


def compare_flow(fs: dict, fl: dict) -> dict:
    """How one flow compares: the metric, Δ, and whether it counts within 15 % / beyond 40 %."""
    if fs["size"] is None:
        metric, a, b = "goodput", fs["goodput_bps"], fl["goodput_bps"]
    elif fs["completed"] and fl["completed"]:
        metric, a, b = "fct", fs["fct_s"], fl["fct_s"]
    elif not fs["completed"] and not fl["completed"]:
        metric, a, b = "goodput (incomplete on both)", fs["goodput_bps"], fl["goodput_bps"]
    else:
        where = "lab" if fs["completed"] else "sim"
        return {"metric": f"incomplete on {where} only", "delta": None, "within": False, "beyond": True}
    delta = (a - b) / b if b else math.inf
    return {"metric": metric, "delta": delta, "within": abs(delta) <= WITHIN, "beyond": abs(delta) > NEVER_BEYOND}


def describe(d: lab_space.Draw) -> str:
    """The paths, as rate/one-way delay[/loss]."""
    return " + ".join(f"{p.rate_mbps:g}M/{p.delay_ms:g}ms" + (f"/{100 * p.loss:g}%" if p.loss else "") for p in d.paths)


def fmt(value: float | None, digits: int = 2) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=30, help="Number of scenarios (default 30).")
    parser.add_argument("--seed", type=int, default=1, help="The suite's seed (default 1).")
    parser.add_argument("--markdown", type=Path, help="The Markdown table's file (default table.md, table-kernel-like.md).")
    parser.add_argument("--json", type=Path, help="The JSON results' file (default results.json, results-kernel-like.json).")
    parser.add_argument("--sim-kernel-like", action="store_true",
                        help="Run the simulator plane with its kernel-like options (cwnd_limited growth, linger scheduler, CUBIC reno_alpha linux).")
    parser.add_argument("--rerun", type=int, action="append", default=[], help="Measure scenario I's lab plane again.")
    parser.add_argument("--fresh", action="store_true", help="Ignore every cached result.")
    parser.add_argument("--worst", type=int, default=5, help="How many worst cases to print (default 5).")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the child process of one lab run
    args = parser.parse_args()
    if args.measure:
        run_and_cache(args.measure, "lab", cache_file(args.measure, "lab"))
        return 0
    if args.n < 1:
        parser.error("--n: must be at least 1")
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
    pathpool.validate(str(files[0]))

    console = Console()
    if not console.is_terminal:
        console.width = 200
    measured, failed = [], []
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console) as bar:
        task = bar.add_task("scenarios", total=args.n)
        for d, path, sim_path in zip(draws, files, sim_files):
            bar.update(task, description=f"{d.name} sim")
            sim = measure(sim_path, "sim", args.fresh)
            bar.update(task, description=f"{d.name} lab")
            try:
                lab = measure(path, "lab", args.fresh or d.index in args.rerun)
            except RuntimeError as e:  # LabError: reported, not cached, so the next run tries again
                console.print(f"{d.name}: the lab run failed: {e}")
                failed.append((d, path, str(e)))
                bar.advance(task)
                continue
            measured.append((d, path, sim, lab))
            bar.advance(task)

    table = Table(title=f"pathpool simulator vs the Linux kernel: {args.n} random scenarios, seed {args.seed}")
    headers = ("scenario", "paths (rate/delay one way/loss)", "flow", "kind", "metric", "sim · lab", "Δ",
               "srtt ms sim · lab", "cwnd kB sim · lab", "retx sim · lab")
    for h in headers:
        table.add_column(h)
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    rows = []
    for d, path, sim, lab in measured:
        for k, (fs, fl) in enumerate(zip(sim["flows"], lab["flows"])):
            c = compare_flow(fs, fl)
            if k == 0:
                kind = f"{'MPTCP' if d.mptcp else 'TCP'} {d.cc} " + (f"{d.size / 1e6:g} MB" if d.size else "bulk")
            else:
                x = d.cross[k - 1]
                kind = f"{x.cc} path {x.path} from {x.start_s:g} s"
            if c["metric"] == "fct":
                values = f"{fmt(fs['fct_s'], 3)} · {fmt(fl['fct_s'], 3)} s"
            elif c["delta"] is None:
                values = (f"{fmt(fs['fct_s'], 3) if fs['completed'] else 'incomplete'} · "
                          f"{fmt(fl['fct_s'], 3) if fl['completed'] else 'incomplete'} s")
            else:
                values = f"{fmt(fs['goodput_bps'] / 1e6)} · {fmt(fl['goodput_bps'] / 1e6)} Mb/s"
            delta = "—" if c["delta"] is None else f"{100 * c['delta']:+.1f} %"
            cells = [d.name if k == 0 else "", describe(d) if k == 0 else "", fs["name"], kind, c["metric"], values, delta,
                     f"{fmt(fs['srtt_ms'], 1)} · {fmt(fl['srtt_ms'], 1)}", f"{fmt(fs['cwnd_kb'], 0)} · {fmt(fl['cwnd_kb'], 0)}",
                     f"{fs['retransmits']} · {fl['retransmits']}"]
            style = None if c["within"] else ("bold red" if c["beyond"] else "yellow")
            table.add_row(*cells, style=style)
            lines.append("| " + " | ".join(cells) + " |")
            rows.append({"scenario": d.name, "file": str(path), "flow": fs["name"], "kind": kind, **c,
                         "sim": fs, "lab": fl, "lab_load": lab.get("load_before"),
                         "lab_emulator": lab.get("emulator")})
    console.print(table)

    for d, path, error in failed:
        cells = [d.name, describe(d), "—", "—", "lab run failed", error.replace("\n", " "), "—", "", "", ""]
        table.add_row(*cells, style="bold red")
        lines.append("| " + " | ".join(cells) + " |")
    if not rows:
        console.print(table)
        console.print("no scenario ran on both planes")
        return 1
    within = sum(r["within"] for r in rows)
    beyond = [r for r in rows if r["beyond"]]
    share = within / len(rows)
    met = share >= SHARE_TARGET and not beyond and not failed
    verdict = ((f"{len(failed)} scenarios failed on the lab and are not counted; " if failed else "") +
               f"{within} of {len(rows)} flows within {WITHIN:.0%} ({100 * share:.1f} %), {len(beyond)} beyond "
               f"{NEVER_BEYOND:.0%}: target (≥ {SHARE_TARGET:.0%} within {WITHIN:.0%}, none beyond {NEVER_BEYOND:.0%}) "
               + ("MET" if met else "NOT MET"))
    console.print(verdict)
    worst = sorted(rows, key=lambda r: -(math.inf if r["delta"] is None else abs(r["delta"])))[:args.worst]
    console.print("worst cases:")
    for r in worst:
        delta = r["metric"] if r["delta"] is None else f"{r['metric']} {100 * r['delta']:+.1f} %"
        console.print(f"  {r['scenario']} {r['flow']} ({r['kind']}): {delta}  —  {r['file']}")
    loads = [m[3]["load_before"][0] for m in measured if m[3].get("load_before")]
    if loads:
        console.print(f"one-minute load average before each lab run: {min(loads):.2f}–{max(loads):.2f}, "
                      f"mean {sum(loads) / len(loads):.2f}")

    args.markdown.parent.mkdir(parents=True, exist_ok=True)
    args.markdown.write_text("\n".join(lines) + "\n\n" + verdict + "\n")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"seed": args.seed, "n": args.n, "within": within, "flows": len(rows),
                                     "beyond": len(beyond), "met": met, "rows": rows,
                                     "lab_failed": [{"scenario": d.name, "error": e} for d, _, e in failed]}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
