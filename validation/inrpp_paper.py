#!/usr/bin/env python3
"""INRPP's dumbbell with a detour (Reñé et al., ToN 2022, Fig. 8, §IV-A): the
paper's Table V, Fig. 9 and the timeline of Figs. 10-12 beside pathpool's.

Runs the built-in scenario ``inrpp-dumbbell`` (three 10 MB flows one second
apart, 10 Mb/s bottleneck 0-2 with the one-hop detour 0-1-2, 40 Mb/s hosts,
5 ms links, 50 ms drop-tail buffers) with

- INRPP and the cache sizes §IV-A prints (1.25 MB, S_high 1 MB, S_low 500 kB),
- INRPP with caches ten times those (12.5 MB, 10 MB, 5 MB), which the paper's
  own timeline implies (docs/reproductions/inrpp.md),
- RCP (routers with the paper's alpha = 0.1, beta = 1.0) and TCP (NewReno),

each with equal access latencies and with 50/100/200 ms ones, and prints,
paper against pathpool: the AFCT and Jain's index of Table V, the goodput
shares of Fig. 9, and when node 0 and node 4 start caching and pushing back.
Jain's index is given two ways: over the three flows' whole-flow goodputs
(the summary's `jain_index`), and as the authors' published ns-3 scripts
measure it, every 10 ms over the active flows' receiver throughput
estimates, averaged (`inrpp_multihomed.authors_jain`, which has the
details; the same scenario is run again with flow_ts sampled every 10 ms).

Usage:  python validation/inrpp_paper.py [--pathpool-bin PATH]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "bench"))
from ns3_dumbbell import build_pathpool  # noqa: E402
from inrpp_multihomed import AUTHORS_TICK_S, RCP_ROUTERS, authors_jain  # noqa: E402

SCENARIO = REPO / "python" / "pathpool" / "scenarios" / "inrpp-dumbbell.toml"
PAYLOAD = 1448 / 1500

# Table V: AFCT (s), Jain with equal access latencies, Jain with 50/100/200 ms.
PAPER = {"INRPP": (10.50, 0.9945, 0.9972), "RCP": (25.96, 0.9934, 0.9994), "TCP": (23.31, 0.8902, 0.8321)}


def scaled(text: str, scale: int) -> str:
    return (text.replace('cache = "1.25MB"', f"cache = {1_250_000 * scale}")
                .replace('s_high = "1MB"', f"s_high = {1_000_000 * scale}")
                .replace('s_low = "500kB"', f"s_low = {500_000 * scale}"))


def other_transport(text: str, transport: str, routers: str) -> str:
    head = text[:text.index("[routers]")]
    return head.replace('transport = "inrpp"', f'transport = "{transport}"') + routers


def authors_jain_of(binary: Path, text: str, tmp: Path, name: str) -> float:
    """The authors' Jain's index of one scenario text, from a run with
    flow_ts sampled at their 10 ms tick."""
    if 'sample_interval = "100ms"' not in text:
        raise SystemExit(f"{SCENARIO}: expected `sample_interval = \"100ms\"`")
    tick = text.replace('sample_interval = "100ms"', f'sample_interval = "{AUTHORS_TICK_S * 1000:g}ms"')
    run = Run(binary, tick, tmp, name, ("flows", "flow_ts"), summary=False)
    return authors_jain(run.tables["flows"], run.tables["flow_ts"])


def access_delays(text: str, ms: tuple[int, int, int]) -> str:
    for i, d in enumerate(ms):
        link = f'a = "s{i}"\nb = "n4"\nrate = "40Mbps"\ndelay = "5ms"'
        if link not in text:
            raise SystemExit(f"{SCENARIO}: no access link for s{i} as expected")
        text = text.replace(link, link.replace("5ms", f"{d}ms"))
    return text


class Run:
    """One pathpool-sim run: its summary and the tables asked for."""

    def __init__(self, binary: Path, text: str, tmp: Path, name: str, tables: tuple[str, ...] = (), summary: bool = True):
        path = tmp / f"{name}.toml"
        path.write_text(text)
        self.summary = json.loads(self._run(binary, path, ["--json"])) if summary else None
        self.tables = {t: list(csv.DictReader(io.StringIO(self._run(binary, path, ["--table", t])), delimiter="\t"))
                       for t in tables}

    @staticmethod
    def _run(binary: Path, path: Path, extra: list[str]) -> str:
        p = subprocess.run([str(binary), "run", str(path), *extra], capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"pathpool-sim failed on {path}:\n{p.stderr[-2000:]}")
        return p.stdout

    def afct(self) -> float:
        return self.summary["afct_s"]

    def jain(self) -> float:
        return self.summary["jain_index"]

    def goodput(self, flow: int, start: float, end: float) -> float:
        v = [float(r["goodput_bps"]) for r in self.tables["flow_ts"]
             if int(r["flow_id"]) == flow and start < float(r["time_s"]) <= end]
        return sum(v) / len(v)

    def first_entry(self, direction: str, state: str) -> float | None:
        link = next(i for i, r in enumerate(self.tables["links"]) if r["name"] == direction)
        return next((float(r["time_s"]) for r in self.tables["inrpp_states"]
                     if int(r["link_id"]) == link and r["to"] == state), None)

    def cache_drops(self, node: str | None = None) -> int:
        """Packets dropped by full INRPP caches, at `node` or everywhere."""
        return sum(int(r["drops_cache"]) for r in self.tables["inrpp_interfaces"] if node is None or r["node"] == node)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pathpool-bin", type=Path, metavar="PATH", help="use this pathpool-sim instead of building one with cargo")
    args = ap.parse_args()
    binary = args.pathpool_bin.resolve() if args.pathpool_bin else build_pathpool(SystemExit)
    text = SCENARIO.read_text()
    variants = {
        "INRPP, caches as printed": text,
        "INRPP, caches x10": scaled(text, 10),
        "RCP": other_transport(text, "rcp", RCP_ROUTERS),
        "TCP": other_transport(text, "tcp", ""),
    }
    tables = ("flow_ts", "links", "inrpp_states", "inrpp_interfaces")
    with tempfile.TemporaryDirectory(prefix="pathpool-inrpp-") as tmp:
        runs = {name: (Run(binary, t, Path(tmp), f"v{i}", tables),
                       Run(binary, access_delays(t, (50, 100, 200)), Path(tmp), f"v{i}-rtts"))
                for i, (name, t) in enumerate(variants.items())}
        authors = {name: (authors_jain_of(binary, t, Path(tmp), f"a{i}"),
                          authors_jain_of(binary, access_delays(t, (50, 100, 200)), Path(tmp), f"a{i}-rtts"))
                   for i, (name, t) in enumerate(variants.items())}

    print("Table V: dumbbell with a detour (Fig. 8), three 10 MB flows 1 s apart")
    print("         Jain: over the flows' whole-flow goodputs; 'authors': the authors' scripts' measure, every")
    print("         10 ms over the active flows' throughput estimates, averaged (the paper does not say which)")
    print(f"{'':28} {'AFCT s':>8} {'paper':>7}   {'Jain':>7} {'authors':>7} {'paper':>7}"
          f"   {'50/100/200 ms':>13} {'authors':>7} {'paper':>7}   cache drops")
    for name, (run, rtts) in runs.items():
        afct_p, jain_p, jain_rtts_p = PAPER[name.split(",")[0]]
        drops = run.cache_drops() if name.startswith("INRPP") else "-"
        equal, unequal = authors[name]
        print(f"{name:28} {run.afct():8.2f} {afct_p:7.2f}   {run.jain():7.4f} {equal:7.4f} {jain_p:7.4f}"
              f"   {rtts.jain():13.4f} {unequal:7.4f} {jain_rtts_p:7.4f}   {drops}")
    inrpp = runs["INRPP, caches x10"][0]
    for other in ("TCP", "RCP"):
        ratio, paper = inrpp.afct() / runs[other][0].afct(), PAPER["INRPP"][0] / PAPER[other][0]
        print(f"AFCT INRPP (caches x10) / {other}: {ratio:.3f} (paper {paper:.3f}: {100 * (1 - paper):.0f} % below)")

    print("\nFig. 9: INRPP goodput per flow, Mb/s (paper: 20 for one flow, 10 each for two, 6.66 each for three;")
    print("        x 1448/1500 for payload: 19.31, 9.65, 6.44)")
    for name in ("INRPP, caches as printed", "INRPP, caches x10"):
        run = runs[name][0]
        cells = []
        for start, end, n in ((1.3, 2.0, 1), (2.3, 3.0, 2), (3.3, 9.0, 3)):
            shares = ", ".join(f"{run.goodput(f, start, end) / 1e6:.2f}" for f in range(n))
            cells.append(f"({start}, {end}] s: {shares}")
        print(f"  {name:26} " + "; ".join(cells))

    print("\nFigs. 10-12: backpressure timeline, s (paper: node 0 in Backpressure and node 4 caching at 3.04;")
    print("             node 4 pushing back on the senders around 5)")
    for name in ("INRPP, caches as printed", "INRPP, caches x10"):
        run = runs[name][0]
        n0 = run.first_entry("n0-n2:n0>n2", "backpressure")
        n4c = run.first_entry("n4-n0:n4>n0", "store_and_detour")
        n4b = run.first_entry("n4-n0:n4>n0", "backpressure")
        fmt = lambda t: "never" if t is None else f"{t:.3f}"  # noqa: E731
        print(f"  {name:26} node 0 Backpressure {fmt(n0)}, node 4 caching {fmt(n4c)}, node 4 Backpressure {fmt(n4b)}")


if __name__ == "__main__":
    main()
