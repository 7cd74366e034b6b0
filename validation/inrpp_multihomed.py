#!/usr/bin/env python3
"""INRPP's multihomed experiment (Reñé et al., ToN 2022, Fig. 13, §IV-B):
the paper's Fig. 14 (AFCT by flow size) and Table VI (Jain's index) beside
pathpool's, for TCP, RCP, MPTCP and INRPP, with E[L] = 30 and 500 packets.

Runs the built-in scenarios

- ``inrpp-multihomed`` (senders behind node 0, receivers behind node 1, 1000
  Poisson-arriving Pareto-sized flows at load 0.9 of link 0-1) with INRPP as
  shipped, with TCP (NewReno, plain routers) and with RCP (routers with the
  §IV-A alpha = 0.1, beta = 1.0): the paper's single-path setup;
- ``inrpp-multihomed-mptcp`` (the same flows from senders multihomed on nodes
  0 and 2, two subflows each) with MPTCP;

each with E[L] = 30 (60 s) and E[L] = 500 packets (720 s: every flow
completes), and prints, per E[L], the AFCT of each flow-size bin and of all
flows, the mean goodput of each bin (what the whole-flow Jain's index is
taken over), Jain's index beside Table VI by two measures (the authors'
ns-3 scripts' and pathpool's whole-flow one), and the paper's claims about
Fig. 14 and Table VI with pathpool's verdict on each.

Fig. 14 is a plot the paper's text does not reproduce: no AFCT value can be
read from it here, only the text's statements about it. Table VI's values
are printed in the text. The bins are pathpool's (1-3-10 steps in packets of
1500 bytes); the paper's x-axis is not in the text either.

Usage:  python validation/inrpp_multihomed.py [--pathpool-bin PATH] [--seeds 1,2,3]
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

SCENARIOS = REPO / "python" / "pathpool" / "scenarios"
SINGLE = SCENARIOS / "inrpp-multihomed.toml"
MPTCP = SCENARIOS / "inrpp-multihomed-mptcp.toml"
RCP_ROUTERS = '[routers]\nmodule = "rcp"\n[routers.params]\nalpha = 0.1\nbeta = 1.0\n'
MSS = 1448
TRANSPORTS = ("TCP", "RCP", "MPTCP", "INRPP")
# E[L] (packets) -> simulated time: the last of the 1000 arrivals comes at
# about 1000 / lambda (40 s and 667 s), and every flow completes by then plus
# a few seconds with every transport.
DURATIONS = {30: "60s", 500: "720s"}
# Table VI: Jain's index, read from the paper's text.
PAPER_JAIN = {
    30: {"TCP": 0.8205, "RCP": 0.9301, "MPTCP": 0.6103, "INRPP": 0.9298},
    500: {"TCP": 0.8575, "RCP": 0.9589, "MPTCP": 0.8947, "INRPP": 0.9895},
}
# The authors' fairness log: its period, and their receiver's estimator window.
AUTHORS_TICK_S = 0.01
AUTHORS_WINDOW_S = 0.1
# Flow-size bins, packets: [edge_k, edge_k+1).
EDGES = (1, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000)


def variant(transport: str, mean_size: int) -> str:
    """The scenario text for one transport and E[L]."""
    text = (MPTCP if transport == "MPTCP" else SINGLE).read_text()
    for old, new in (("mean_size = 30", f"mean_size = {mean_size}"), ('duration = "60s"', f'duration = "{DURATIONS[mean_size]}"')):
        if old not in text:
            raise SystemExit(f"the built-in scenario no longer has `{old}`")
        text = text.replace(old, new)
    if transport in ("TCP", "RCP"):
        head = text[: text.index("[routers]")]
        text = head.replace('transport = "inrpp"', f'transport = "{transport.lower()}"') + (RCP_ROUTERS if transport == "RCP" else "")
    return text


def run(binary: Path, text: str, path: Path, seed: int) -> tuple[dict, list[dict]]:
    """pathpool-sim's summary and flows table for one scenario text, and the
    authors' Jain's index (`authors_jain`) from its flow_ts, sampled every
    10 ms, in the summary as `authors_jain`."""
    if 'sample_interval = "1s"' not in text:
        raise SystemExit("the built-in scenario no longer has `sample_interval = \"1s\"`")
    path.write_text(text.replace('sample_interval = "1s"', f'sample_interval = "{AUTHORS_TICK_S * 1000:g}ms"'))

    def sim(*extra: str) -> str:
        p = subprocess.run([str(binary), "run", str(path), "--seed", str(seed), *extra], capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"pathpool-sim failed on {path}:\n{p.stderr[-2000:]}")
        return p.stdout

    def table(name: str) -> list[dict]:
        return list(csv.DictReader(io.StringIO(sim("--table", name)), delimiter="\t"))

    summary, flows = json.loads(sim("--json")), table("flows")
    summary["authors_jain"] = authors_jain(flows, table("flow_ts"))
    return summary, flows


def authors_jain(flows: list[dict], flow_ts: list[dict]) -> float:
    """Jain's index as the paper's authors' published ns-3 scripts compute it
    (srene/ns-3-inrpp, the multihomed script's fairness log): every 10 ms,
    over the flows then active whose receiver's throughput estimate exceeds
    100 b/s, Jain's index of those estimates; Table VI is taken here as the
    mean of that series (the averaging was done outside their code).

    The estimate is their packet sink's: on receipt, once more than 0.1 s has
    passed since the last update at t1 (0 before the first), the sample is
    the bits received since t1 over the time since t1, and the estimate
    becomes 0.4 * previous + 0.6 * (sample + previous sample) / 2. Here it
    is driven by flow_ts's 10 ms goodput instead of per packet, so updates
    fall on the 10 ms grid. A flow is active from start_s to finish_s."""
    span = {int(f["flow_id"]): (float(f["start_s"]), float(f["finish_s"]) if f["finish_s"] else float("inf")) for f in flows if f["start_s"]}
    est: dict[int, list[float]] = {}  # flow -> [t1, bits since t1, last sample, estimate]
    by_tick: dict[int, list[float]] = {}
    for row in flow_ts:
        flow, t = int(row["flow_id"]), float(row["time_s"])
        e = est.setdefault(flow, [0.0, 0.0, 0.0, 0.0])
        bits = float(row["goodput_bps"]) * AUTHORS_TICK_S
        if bits > 0:
            e[1] += bits
            if t - e[0] > AUTHORS_WINDOW_S + 1e-9:
                sample = e[1] / (t - e[0])
                e[3] = 0.4 * e[3] + 0.6 * (sample + e[2]) / 2
                e[0], e[1], e[2] = t, 0.0, sample
        start, finish = span[flow]
        if start <= t <= finish and e[3] > 100:
            by_tick.setdefault(round(t / AUTHORS_TICK_S), []).append(e[3])
    series = [sum(x) ** 2 / (len(x) * sum(v * v for v in x)) for x in by_tick.values()]
    return sum(series) / len(series)


def bin_of(size_bytes: int) -> int:
    packets = -(-size_bytes // MSS)
    return max(k for k, e in enumerate(EDGES) if packets >= e)


def by_bin(flows: list[dict], column: str) -> dict[int, tuple[float, int]]:
    """Mean of `column` over the completed flows of each size bin, and their count."""
    values: dict[int, list[float]] = {}
    for f in flows:
        if f["completed"] == "true":
            values.setdefault(bin_of(int(f["size_bytes"])), []).append(float(f[column]))
    return {k: (sum(v) / len(v), len(v)) for k, v in values.items()}


def label(k: int) -> str:
    return f"{EDGES[k]}-{EDGES[k + 1] - 1}" if k + 1 < len(EDGES) else f"{EDGES[k]}+"


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pathpool-bin", type=Path, metavar="PATH", help="use this pathpool-sim instead of building one with cargo")
    ap.add_argument("--seeds", default="1", help="comma-separated seeds; figures are means over them (default: 1)")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    binary = args.pathpool_bin.resolve() if args.pathpool_bin else build_pathpool(SystemExit)

    print("INRPP multihomed topology (Fig. 13, §IV-B): 1000 Poisson-arriving flows, Pareto sizes (shape 1.2), load 0.9 of link 0-1")
    print(f"seeds {', '.join(map(str, seeds))}; Fig. 14's values are a plot not in the paper's text: only its claims are compared")
    with tempfile.TemporaryDirectory(prefix="pathpool-inrpp-mh-") as tmp:
        for mean_size in (30, 500):
            # results[transport] = [(summary, flows) per seed]
            results = {t: [run(binary, variant(t, mean_size), Path(tmp) / f"{t}-{mean_size}.toml", s) for s in seeds] for t in TRANSPORTS}
            bins = sorted({k for runs in results.values() for _, flows in runs for k in by_bin(flows, "fct_s")})

            def bin_mean(t: str, k: int, column: str = "fct_s") -> float | None:
                v = [by_bin(flows, column).get(k) for _, flows in results[t]]
                return mean([x[0] for x in v]) if all(v) else None

            afct = {t: mean([s["afct_s"] for s, _ in results[t]]) for t in TRANSPORTS}
            jain = {t: mean([s["jain_index"] for s, _ in results[t]]) for t in TRANSPORTS}
            authors = {t: mean([s["authors_jain"] for s, _ in results[t]]) for t in TRANSPORTS}
            print(f"\nE[L] = {mean_size} packets: flows completed " +
                  ", ".join(f"{t} {mean([s['flows_completed'] for s, _ in results[t]]):.0f}" for t in TRANSPORTS) +
                  f"; {mean([sum(int(f['size_bytes']) for f in fl) for _, fl in results['TCP']]) / 1e6:.1f} MB offered")
            print(f"  Fig. 14{'ab'[mean_size == 500]}: AFCT (s) by flow size, pathpool (paper: plot only)")
            print(f"  {'packets':>12} {'flows':>6} " + " ".join(f"{t:>8}" for t in TRANSPORTS) + "   INRPP/MPTCP  INRPP/TCP")
            for k in bins:
                cells = {t: bin_mean(t, k) for t in TRANSPORTS}
                n = mean([by_bin(flows, "fct_s").get(k, (0, 0))[1] for _, flows in results["TCP"]])
                row = " ".join(f"{cells[t]:8.3f}" if cells[t] is not None else f"{'-':>8}" for t in TRANSPORTS)
                ratios = "".join(f"{cells['INRPP'] / cells[o]:13.2f}" if cells["INRPP"] and cells[o] else f"{'-':>13}" for o in ("MPTCP", "TCP"))
                print(f"  {label(k):>12} {n:6.0f} {row} {ratios}")
            print(f"  {'all':>12} {'':6} " + " ".join(f"{afct[t]:8.3f}" for t in TRANSPORTS) +
                  f"{afct['INRPP'] / afct['MPTCP']:13.2f}{afct['INRPP'] / afct['TCP']:13.2f}")
            print("  goodput (Mb/s) by flow size, pathpool: what the whole-flow Jain's index below is taken over")
            for k in bins:
                cells = [bin_mean(t, k, "goodput_bps") for t in TRANSPORTS]
                print(f"  {label(k):>12} {'':6} " + " ".join(f"{c / 1e6:8.2f}" if c is not None else f"{'-':>8}" for c in cells))
            print("  Table VI: Jain's index. 'whole-flow': over every flow's whole-flow goodput (the summary's jain_index);")
            print("  'authors': the measure of the authors' ns-3 scripts, over the active flows every 10 ms, averaged")
            print(f"  {'':>20} " + " ".join(f"{t:>8}" for t in TRANSPORTS))
            print(f"  {'paper':>20} " + " ".join(f"{PAPER_JAIN[mean_size][t]:8.4f}" for t in TRANSPORTS))
            for name, values in (("pathpool, authors", authors), ("difference", None), ("pathpool, whole-flow", jain), ("difference", None)):
                if values is None:
                    print(f"  {name:>20} " + " ".join(f"{100 * (last[t] / PAPER_JAIN[mean_size][t] - 1):+7.0f}%" for t in TRANSPORTS))
                else:
                    print(f"  {name:>20} " + " ".join(f"{values[t]:8.4f}" for t in TRANSPORTS))
                    last = values
            largest = max(bins)
            gain = max(1 - bin_mean("INRPP", k) / bin_mean("MPTCP", k) for k in bins if bin_mean("INRPP", k) and bin_mean("MPTCP", k))
            claims = (
                ("AFCT of MPTCP and INRPP much shorter than TCP's and RCP's", max(afct["MPTCP"], afct["INRPP"]) < min(afct["TCP"], afct["RCP"])),
                ("RCP does not outperform TCP", afct["RCP"] >= afct["TCP"]),
                ("INRPP outperforms MPTCP", afct["INRPP"] < afct["MPTCP"]),
                (f"INRPP up to around 50 % shorter than MPTCP in some bins (pathpool: up to {100 * gain:.0f} %)", gain >= 0.4),
                (f"INRPP below TCP for the largest flows ({label(largest)} packets)", bin_mean("INRPP", largest) < bin_mean("TCP", largest)),
                ("Jain, authors' measure: MPTCP the least fair (Table VI)", authors["MPTCP"] == min(authors.values())),
                ("Jain, authors' measure: INRPP fairer than TCP and MPTCP (Table VI)", authors["INRPP"] > max(authors["TCP"], authors["MPTCP"])),
                (f"Jain, authors' measure: every transport within 20 % of Table VI (pathpool: up to "
                 f"{100 * max(abs(authors[t] / PAPER_JAIN[mean_size][t] - 1) for t in TRANSPORTS):.0f} %)",
                 all(abs(authors[t] / PAPER_JAIN[mean_size][t] - 1) <= 0.2 for t in TRANSPORTS)),
            )
            print("  the paper's claims (§IV-B.2):")
            for text, holds in claims:
                print(f"    {'yes' if holds else 'NO ':3}  {text}")


if __name__ == "__main__":
    main()
