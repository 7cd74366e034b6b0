#!/usr/bin/env python3
"""The simulator against the real Linux stack: each scenario of validation/lab/
run on both planes, side by side.

Scenarios (issue 6's and issue 4's cross-checks):
    one-cubic          one CUBIC flow over a 50 Mb/s, 20 ms path
    two-paths          MPTCP over 20 Mb/s 10 ms + 30 Mb/s 40 ms, uncoupled CUBIC, minRTT
    shared-bottleneck  MPTCP (two subflows) + one TCP flow through one 20 Mb/s bottleneck

Both planes run the same algorithms: what upstream Linux has (CUBIC, uncoupled
MPTCP subflows, its default scheduler as `minrtt`). The kernel lab (root, real
time) replays the scenario's links with the simulator's own link model in its
user-space emulator; pathpool's traffic client and server and its userspace
path-manager controller stand in for the simulator's applications and path
manager (docs/lab.md).

Printed per flow: goodput, mean srtt (the mean of `flow_ts.srtt_s` samples;
for MPTCP the lowest subflow srtt at each sample), and, for MPTCP, each
subflow's share of the bytes acknowledged. Per scenario: the aggregate
goodput and its difference, against issue 4's target (aggregate throughput
within 10 % of the kernel's).

Each plane's result is cached under results/lab-crossval/ (by scenario text,
pathpool's version and the plane's build: validation/cache.py's build_id for
the simulator, lab_id for the kernel lab), so an interrupted run resumes and
a rebuilt plane is measured again; --fresh reruns everything.

Usage:  sudo python validation/lab_crossval.py [--scenario NAME ...] [--markdown FILE] [--fresh]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from pathlib import Path

import pathpool
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cache import build_id, lab_id  # noqa: E402

HERE = Path(__file__).resolve().parent
SCENARIOS = ("one-cubic", "two-paths", "shared-bottleneck")
CACHE = HERE.parent / "results" / "lab-crossval"
#: Issue 4: aggregate throughput within 10 % of the kernel's.
AGGREGATE_TOLERANCE = 0.10


def measure(name: str, plane: str, fresh: bool) -> dict:
    """Per-flow and per-subflow figures of one scenario on one plane (cached)."""
    path = HERE / "lab" / f"{name}.toml"
    text = path.read_text()
    build = build_id() if plane == "sim" else lab_id()
    key = hashlib.sha256(f"{plane}\n{text}\n{pathpool.__version__}\n{build}".encode()).hexdigest()[:16]
    cached = CACHE / f"{name}.{plane}.{key}.json"
    if cached.exists() and not fresh:
        return json.loads(cached.read_text())
    results = pathpool.run(str(path), plane=plane, progress=True)
    flows = results.flows.sort_values("flow_id")
    ts = results.flow_ts
    subflows = results.frame("subflows")
    out = {"flows": []}
    for f in flows.itertuples():
        srtt = ts[ts.flow_id == f.flow_id].srtt_s.dropna()
        row = {"name": f.name, "goodput_bps": f.goodput_bps, "srtt_s": float(srtt.mean()) if len(srtt) else None,
               "retransmits": int(f.retransmits), "paths": []}
        mine = subflows[subflows.flow_id == f.flow_id] if not subflows.empty else subflows
        if len(mine):
            total = float(mine.bytes_acked.sum()) or 1.0
            row["paths"] = [{"path": f"{s.local_interface} → {s.remote_interface}", "share": s.bytes_acked / total}
                            for s in mine.sort_values("subflow_id").itertuples()]
        out["flows"].append(row)
    out["aggregate_bps"] = float(flows.goodput_bps.sum())
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(".tmp")
    tmp.write_text(json.dumps(out, indent=2))
    tmp.replace(cached)
    return out


def pct(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0 or (isinstance(a, float) and math.isnan(a)):
        return "—"
    return f"{100 * (a - b) / b:+.1f} %"


def fmt(value: float | None, scale: float, digits: int) -> str:
    return "—" if value is None or math.isnan(value) else f"{value * scale:.{digits}f}"


def compare(names: list[str], fresh: bool) -> tuple[Table, list[str], bool]:
    table = Table(title="pathpool simulator vs the Linux kernel (kernel lab)", show_lines=True)
    for header in ("scenario", "flow / path", "goodput Mb/s\nsim · lab", "Δ", "mean srtt ms\nsim · lab", "Δ",
                   "bytes share\nsim · lab"):
        table.add_column(header, justify="right" if "Mb/s" in header or "ms" in header or header == "Δ" else "left")
    lines = ["| scenario | flow / path | goodput sim · lab (Mb/s) | Δ | mean srtt sim · lab (ms) | Δ | bytes share sim · lab |",
             "|---|---|---|---|---|---|---|"]
    ok = True
    for name in names:
        sim, lab = measure(name, "sim", fresh), measure(name, "lab", fresh)
        for fs, fl in zip(sim["flows"], lab["flows"]):
            cells = [name, fs["name"], f"{fmt(fs['goodput_bps'], 1e-6, 2)} · {fmt(fl['goodput_bps'], 1e-6, 2)}",
                     pct(fs["goodput_bps"], fl["goodput_bps"]),
                     f"{fmt(fs['srtt_s'], 1e3, 1)} · {fmt(fl['srtt_s'], 1e3, 1)}", pct(fs["srtt_s"], fl["srtt_s"]), ""]
            table.add_row(*cells)
            lines.append("| " + " | ".join(cells) + " |")
            for ps, pl in zip(fs["paths"], fl["paths"]):
                cells = ["", f"  {ps['path']}", "", "", "", "", f"{100 * ps['share']:.1f} % · {100 * pl['share']:.1f} %"]
                table.add_row(*cells)
                lines.append("| " + " | ".join(cells) + " |")
        diff = (sim["aggregate_bps"] - lab["aggregate_bps"]) / lab["aggregate_bps"]
        verdict = "PASS" if abs(diff) <= AGGREGATE_TOLERANCE else "DIFF"
        ok &= verdict == "PASS"
        cells = [name, "aggregate", f"{sim['aggregate_bps'] / 1e6:.2f} · {lab['aggregate_bps'] / 1e6:.2f}",
                 f"{100 * diff:+.1f} % {verdict}", "", "", ""]
        table.add_row(*cells, style="bold")
        lines.append("| " + " | ".join(f"**{c}**" if c else "" for c in cells) + " |")
    return table, lines, ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", action="append", choices=SCENARIOS, help="Only this scenario (repeatable).")
    parser.add_argument("--markdown", type=Path, help="Also write the table as Markdown to this file.")
    parser.add_argument("--fresh", action="store_true", help="Ignore cached results.")
    args = parser.parse_args()
    table, lines, ok = compare(args.scenario or list(SCENARIOS), args.fresh)
    console = Console()
    if not console.is_terminal:
        console.width = 150
    console.print(table)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text("\n".join(lines) + "\n")
    print(f"aggregate goodput within {AGGREGATE_TOLERANCE:.0%} of the kernel's: {'every scenario' if ok else 'NOT every scenario'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
