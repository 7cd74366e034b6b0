#!/usr/bin/env python3
"""eMPTCP (Nuha, Yulianto & Hendrawan 2024, emptcp-westwood-fair-multipath.txt)
on the simulator, beside the paper (docs/reproductions/emptcp.md).

Sections, each a table in the report:

- closed form: a wired shared bottleneck with random loss, K single-path
  Westwood+ flows and one N-path host under the weight manager; the measured
  multipath/single-path ratio beside the fixed point of
  N*C*x^2 - bw_max*N*x - bw_max*K = 0 (ratio N*x), for two bw_max values,
  with the paths as independent connections (the paper's "multipath host")
  and as MPTCP subflows; and the same without random loss (drop-tail losses);
- Tables II/III: UEs uploading through the UMTS chain of Table I (cell
  model for the air, 0.1 Mb/s bottleneck hops), UE1 with a static increment
  D_n^2, the others 1; Th1:Th2 (and Th1:Th3) per D_n;
- Figs. 12-17: Table IV's network (0.23 Mb/s), UE1 with three paths on three
  operators' cells, UE2-4 single path; static and moving at 20 m/s, unweighted
  and with eMPTCP at bw_max 50 000 and 110 000 bit/s.

Every parameter the paper leaves out is a constant below, stated in the doc.
Writes results/emptcp/report.md. Runs take about a second each; --seeds N
sets the seeds per configuration (default 3). Finished runs are cached in
results/emptcp/cache.jsonl (validation/cache.py: an interrupted run resumes,
a rebuilt simulator runs again); --fresh starts over.

Usage:  python validation/emptcp_paper.py [--seeds 3] [--jobs 2] [--fresh]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from pathlib import Path

from cache import RunCache

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = REPO / "results" / "emptcp"

# ns-2's defaults where the paper is silent: 1000-byte packets (packetSize_),
# a 50-packet drop-tail queue (limit_), an initial window of one segment
# (windowInit_); pathpool's 52 header bytes leave 948 bytes of payload.
MSS = 948
QUEUE = 50
INITIAL_WINDOW = 1
# The weight manager's period t (the paper gives none): Westwood+'s BWE filter
# settles within about eight RTT windows, about a second here.
INTERVAL = "1s"
# Throughput: mean of 5 s samples (the paper's), slow start excluded by
# skipping the first WARMUP seconds.
SAMPLE = 5.0
WARMUP = 10.0
# The mobile links' residual loss after HARQ ("lossy", with "blackout
# periods"; no figure given) and the cells' block error rate (the CQI target).
RESIDUAL_LOSS = 0.01
BLER = 0.1
# The moving UE's first path (operator A) crosses the A1/A2 border at 125 s;
# its uplink fades out from about 2.4 km (120 s) to 2.6 km (130 s) from both
# cells: the handover window, against the minute before it.
HANDOVER = (120.0, 135.0)
BEFORE = (60.0, 115.0)


# ---------------------------------------------------------------- scenarios

def tcp_settings() -> dict:
    return {"cc": "westwood", "mss": MSS, "initial_window": INITIAL_WINDOW, "rcv_buffer": "16MiB"}


def wired(n: int, k: int, bw_max: float | None, loss: float, mptcp: bool, seed: int,
          capacity: str = "10Mbps", duration: float = 120.0) -> dict:
    """K single-path hosts and one N-interface host behind one bottleneck."""
    nodes = [{"name": "mp"}, {"name": "left", "kind": "router"}, {"name": "right", "kind": "router"}, {"name": "dst"}]
    links = [{"name": f"mp{i}", "a": f"mp:eth{i}", "b": "left", "rate": "1Gbps", "delay": "2ms"} for i in range(n)]
    for j in range(k):
        nodes.append({"name": f"sp{j}"})
        links.append({"a": f"sp{j}", "b": "left", "rate": "1Gbps", "delay": "2ms"})
    bottleneck = {"name": "bottleneck", "a": "left", "b": "right", "rate": capacity, "delay": "20ms", "queue": 100}
    if loss > 0:
        bottleneck["loss"] = {"model": "bernoulli", "p": loss}
    links += [bottleneck, {"a": "right", "b": "dst", "rate": "1Gbps", "delay": "2ms"}]
    tcp = {"cc": "westwood", "rcv_buffer": "16MiB"}
    if mptcp:
        flows = [{"name": "mp", "src": "mp", "dst": "dst", "transport": "mptcp", "tcp": tcp, "mptcp": {"coupling": "uncoupled"}}]
    else:
        # The paper's multipath host: one TCP connection per interface.
        flows = [{"name": f"mp/{i}", "src": "mp", "dst": "dst", "interface": f"eth{i}", "tcp": tcp} for i in range(n)]
    flows += [{"name": f"sp{j}", "src": f"sp{j}", "dst": "dst", "tcp": tcp} for j in range(k)]
    sc = {"sim": {"duration": f"{duration}s", "seed": seed, "sample_interval": "1s"}, "nodes": nodes, "links": links, "flows": flows}
    if bw_max is not None:
        sc["controllers"] = [{"host": "mp", "kind": "emptcp", "sample_interval": "0s",
                              "params": {"bw_max": bw_max, "interval": INTERVAL}}]
    return sc


def umts(bottleneck: str, ues: list[dict], seed: int, duration: float, residual_loss: float,
         controller: dict | None = None) -> dict:
    """The chain of Tables I/IV: UE -air- Node B -Iub 15 ms- RNC -6 ms- SGSN
    -6 ms- GGSN -8 ms- D, the RNC-SGSN and SGSN-GGSN hops the bottleneck.
    `ues`: name, position, speed, paths (a list of cell lists, one interface
    each), mptcp (one MPTCP flow over the paths, else one TCP flow per path),
    increments (static a per path)."""
    operators = sorted({c for u in ues for p in u["paths"] for c in p})
    cells = []
    for name in operators:
        # Operator X's cells X1, X2, ... along the x axis, 5 km apart; operator
        # b's and c's shifted 300 and 600 m so three paths hand over apart.
        shift = {"A": 0, "B": 300, "C": 600}[name[0]]
        index = int(name[1:]) - 1
        cells.append({"name": name, "position": [shift + 5000 * index, 0], "radius": 2500, "tti": "10ms",
                      "bler": BLER, "residual_loss": residual_loss, "handover_interruption": "100ms"})
    nodes = [{"name": n, "kind": "router"} for n in ("rnc", "sgsn", "ggsn")] + [{"name": "dst"}]
    links = [
        {"name": "rnc-sgsn", "a": "rnc", "b": "sgsn", "rate": bottleneck, "delay": "6ms", "queue": QUEUE},
        {"name": "sgsn-ggsn", "a": "sgsn", "b": "ggsn", "rate": bottleneck, "delay": "6ms", "queue": QUEUE},
        {"a": "ggsn", "b": "dst", "rate": "100Mbps", "delay": "8ms", "queue": QUEUE},
    ]
    flows, mobility = [], []
    for u in ues:
        nodes.append({"name": u["name"]})
        mobility.append({"host": u["name"], "position": u["position"], "speed": u.get("speed", 0.0)})
        for i, path in enumerate(u["paths"]):
            # The air interface, then the Iub (15 ms) to the RNC: the cell
            # link's delay is everything between the air and the RNC.
            links.append({"name": f"{u['name']}-air{i}", "a": f"{u['name']}:umts{i}", "b": "rnc", "delay": "15ms",
                          "queue": QUEUE, "capacity": {"cell": path}})
        tcp = tcp_settings()
        if u.get("mptcp"):
            flows.append({"name": u["name"], "src": u["name"], "dst": "dst", "transport": "mptcp", "tcp": tcp,
                          "mptcp": {"coupling": "uncoupled"}})
        else:
            for i, _ in enumerate(u["paths"]):
                t = dict(tcp)
                a = u.get("increments", [1.0] * len(u["paths"]))[i]
                if a != 1.0:
                    t["cc_params"] = {"increment": a}
                flow = {"name": f"{u['name']}/{i}", "src": u["name"], "dst": "dst", "tcp": t}
                if len(u["paths"]) > 1:
                    flow["interface"] = f"umts{i}"
                flows.append(flow)
    sc = {"sim": {"duration": f"{duration}s", "seed": seed, "sample_interval": "1s"},
          "cells": cells, "mobility": mobility, "nodes": nodes, "links": links, "flows": flows}
    if controller is not None:
        sc["controllers"] = [controller]
    return sc


# ---------------------------------------------------------------- running

def run(sc: dict) -> dict:
    """Per flow: goodput over the measured window (mean of 5 s samples), and
    per host; plus the 1 s series per host and the controller's last x."""
    import pandas as pd
    import pathpool
    r = pathpool.run(sc)
    names = dict(zip(r.flows["flow_id"], r.flows["name"]))
    # Throughput as the paper's ns-2 flow monitor counts it, per path: a TCP
    # flow's goodput, an MPTCP subflow's delivered bytes (so a path in a
    # handover blackout does not stall its siblings' count through the
    # connection's head-of-line blocking; the connection's in-order goodput
    # is `goodput` below).
    mptcp = set(r.frame("subflow_ts")["flow_id"]) if len(r.frame("subflow_ts")) else set()
    single = r.flow_ts[~r.flow_ts["flow_id"].isin(mptcp)][["time_s", "flow_id", "goodput_bps"]]
    sub = r.frame("subflow_ts")
    multi = sub.groupby(["time_s", "flow_id"])["delivered_bps"].sum().reset_index().rename(columns={"delivered_bps": "goodput_bps"})
    ts = pd.concat([single, multi])
    ts = ts.assign(host=[names[i].split("/")[0] for i in ts["flow_id"]])
    per_host = ts.groupby(["host", "time_s"])["goodput_bps"].sum().reset_index()
    series = {h: g.set_index("time_s")["goodput_bps"].to_dict() for h, g in per_host.groupby("host")}
    good = r.flow_ts.assign(host=[names[i].split("/")[0] for i in r.flow_ts["flow_id"]])
    good = good.groupby(["host", "time_s"])["goodput_bps"].sum().reset_index()
    out = {"goodput": {h: five_second_mean(g.set_index("time_s")["goodput_bps"].to_dict()) for h, g in good.groupby("host")}}
    out["mean"] = {h: five_second_mean(s) for h, s in series.items()}
    # As [time, goodput] pairs: JSON (the run cache) keeps no float keys.
    out["series"] = {h: [[float(t), float(g)] for t, g in s.items()] for h, s in series.items()}
    log = r.frame("controller_log") if "controller_log" in r.tables else None
    xs = [] if log is None else [float(d.split()[2]) for d in log[log["action"] == "log"]["detail"]]
    out["x_mean"] = statistics.mean(xs[len(xs) // 2:]) if xs else None
    return out


def five_second_mean(series: dict) -> float:
    """The mean of 5 s throughput samples after the warm-up (the paper's measure)."""
    t_end = max(series)
    samples = []
    t = WARMUP
    while t + SAMPLE <= t_end + 1e-9:
        window = [v for s, v in series.items() if t < s <= t + SAMPLE + 1e-9]
        samples.append(sum(window) / len(window))
        t += SAMPLE
    return statistics.mean(samples)


def window_mean(series: list[list[float]], start: float, end: float) -> float:
    v = [g for t, g in series if start < t <= end + 1e-9]
    return sum(v) / len(v)


def run_all(cache: RunCache, section: str, jobs: list[tuple]) -> dict:
    """``jobs``: (key tuple, scenario); runs them through the run cache
    (validation/cache.py, keyed by the scenario) and returns key -> result."""
    names = {key: "/".join(map(str, (section,) + key)) for key, _ in jobs}
    res = cache.map(run, {names[key]: (sc,) for key, sc in jobs})
    return {key: res[names[key]] for key, _ in jobs}


def mean_over(results: dict, key_prefix: tuple, seeds: list[int], host: str) -> float:
    return statistics.mean(results[key_prefix + (s,)]["mean"][host] for s in seeds)


# ---------------------------------------------------------------- sections

def fixed_point(n: int, k: int, c: float, bw_max: float) -> float:
    """x solving N*C*x^2 - bw_max*N*x - bw_max*K = 0 (positive root)."""
    a, b, cc = n * c, -bw_max * n, -bw_max * k
    return (-b + math.sqrt(b * b - 4 * a * cc)) / (2 * a)


def closed_form(seeds: list[int], cache: RunCache) -> list[str]:
    n, k = 2, 2
    configs = [(bw, loss, mptcp) for bw in (None, 2e6, 4e6) for loss in (0.01, 0.0) for mptcp in (False, True)]
    jobs = [((bw, loss, mptcp, s), wired(n, k, bw, loss, mptcp, s)) for bw, loss, mptcp in configs for s in seeds]
    res = run_all(cache, "closed", jobs)
    lines = [
        f"Wired: N = {n} paths, K = {k} single-path Westwood+ flows, 10 Mb/s / 20 ms bottleneck, "
        f"100-packet queue; means over seeds {seeds}; C = the measured total goodput.",
        "",
        "| paths | bottleneck loss | bw_max (bit/s) | x measured | x fixed point | ratio measured | ratio N·x | difference |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for bw, loss, mptcp in configs:
        runs = [res[(bw, loss, mptcp, s)] for s in seeds]
        mp = statistics.mean(r["mean"]["mp"] for r in runs)
        sp = statistics.mean(statistics.mean(r["mean"][f"sp{j}"] for j in range(k)) for r in runs)
        total = statistics.mean(sum(r["mean"].values()) for r in runs)
        ratio = mp / sp
        kind = "MPTCP subflows" if mptcp else "independent TCP"
        loss_s = f"{loss:.0%} random" if loss else "drop-tail only"
        if bw is None:
            lines.append(f"| {kind} | {loss_s} | unweighted | — | — | {ratio:.2f} | {n} (no weighting) | — |")
            continue
        x_fp = min(fixed_point(n, k, total, bw), 1.0)
        x_meas = statistics.mean(r["x_mean"] for r in runs)
        pred = n * x_fp
        lines.append(f"| {kind} | {loss_s} | {bw:.0f} | {x_meas:.3f} | {x_fp:.3f} | {ratio:.2f} | {pred:.2f} | {ratio / pred - 1:+.1%} |")
    return lines


def tables_2_3(seeds: list[int], cache: RunCache, ues: int, residual: float) -> tuple[list[str], list[dict]]:
    dn = [round(0.1 * i, 1) for i in range(1, 11)]
    # UEs 2 km from the Node B (Table I), static; UE1's increment D_n^2.
    positions = [[2000, 0], [0, 2000], [-2000, 0]]
    jobs = []
    for d in dn:
        for s in seeds:
            u = [{"name": f"ue{i + 1}", "position": positions[i], "speed": 0.1, "paths": [["A1"]],
                  "increments": [d * d if i == 0 else 1.0]} for i in range(ues)]
            jobs.append(((d, s), umts("100kbps", u, s, 120.0, residual)))
    res = run_all(cache, f"table/{ues}ues/residual{residual:g}", jobs)
    rows = []
    for d in dn:
        th = [mean_over(res, (d,), seeds, f"ue{i + 1}") for i in range(ues)]
        rows.append({"dn": d, "th": th})
    return rows, res


def figs_12_17(seeds: list[int], cache: RunCache, residual: float) -> dict:
    # Static UEs 2 km from A1 (Table IV), 0.1 m/s; UE1 at A1's centre, moving
    # +x at 20 m/s for 200 s (4 km) across the A1/A2 border at 125 s, B1/B2
    # at 140 s and C1/C2 at 155 s, or static at 2 km.
    static_ues = [{"name": f"ue{i}", "position": p, "speed": 0.1, "paths": [["A1", "A2"]]}
                  for i, p in zip((2, 3, 4), ([0, 2000], [-2000, 0], [0, -2000]))]
    three = [["A1", "A2"], ["B1", "B2"], ["C1", "C2"]]
    cases = {
        "fig12 static single": dict(paths=[["A1", "A2"]], speed=0.0, pos=[2000, 0], mptcp=False, bw=None),
        "fig14 moving single": dict(paths=[["A1", "A2"]], speed=20.0, pos=[0, 0], mptcp=False, bw=None),
    }
    # The three-path host twice: the paper's (three TCP connections, one per
    # interface) and one MPTCP connection with three subflows.
    for mptcp, label in ((False, "3 TCP"), (True, "MPTCP")):
        cases[f"fig13 static multipath, unweighted ({label})"] = dict(paths=three, speed=0.0, pos=[2000, 0], mptcp=mptcp, bw=None)
        cases[f"fig15 moving multipath, unweighted ({label})"] = dict(paths=three, speed=20.0, pos=[0, 0], mptcp=mptcp, bw=None)
        cases[f"fig16 moving eMPTCP, bw_max 50000 ({label})"] = dict(paths=three, speed=20.0, pos=[0, 0], mptcp=mptcp, bw=50000)
        cases[f"fig17 moving eMPTCP, bw_max 110000 ({label})"] = dict(paths=three, speed=20.0, pos=[0, 0], mptcp=mptcp, bw=110000)
        cases[f"static eMPTCP, bw_max 50000 ({label})"] = dict(paths=three, speed=0.0, pos=[2000, 0], mptcp=mptcp, bw=50000)
        cases[f"static eMPTCP, bw_max 110000 ({label})"] = dict(paths=three, speed=0.0, pos=[2000, 0], mptcp=mptcp, bw=110000)
    jobs = []
    for name, c in cases.items():
        for s in seeds:
            ue1 = {"name": "ue1", "position": c["pos"], "speed": c["speed"], "paths": c["paths"], "mptcp": c["mptcp"]}
            ctl = None if c["bw"] is None else {"host": "ue1", "kind": "emptcp", "sample_interval": "0s",
                                                "params": {"bw_max": c["bw"], "interval": INTERVAL}}
            jobs.append(((name, s), umts("230kbps", [ue1] + static_ues, s, 200.0, residual, ctl)))
    res = run_all(cache, "figs", jobs)
    return {"cases": cases, "res": res}


def jain(xs: list[float]) -> float:
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def report(seeds: list[int], cache: RunCache) -> str:
    out = ["# eMPTCP reproduction (generated by validation/emptcp_paper.py)", ""]
    out += ["## Closed form (wired, random loss)", ""] + closed_form(seeds, cache) + [""]
    paper2 = [0.61384386, 0.6467224, 0.69879415, 0.73235464, 0.82162393, 0.96774261, 1.06313947, 1.11746308, 1.13332622, 1.14938081]
    paper3 = [(0.20877087, 0.20277012), (0.24963862, 0.22806143), (0.34196811, 0.30339432), (0.45935114, 0.40321189),
              (0.59241198, 0.5175024), (0.75206813, 0.63060902), (0.93846595, 0.76938588), (1.20738791, 0.90055946),
              (1.31722694, 0.99045725), (1.28741504, 1.087749)]
    for residual in (RESIDUAL_LOSS, 0.0):
        rows, _ = tables_2_3(seeds, cache, 2, residual)
        out += [f"## Table II (2 UEs, 0.1 Mb/s bottleneck, residual loss {residual:.0%})", "",
                "| D_n | UE1 (kbit/s) | UE2 (kbit/s) | sum / 100 kbit/s | Th1:Th2 | paper Th1:Th2 |", "|---|---|---|---|---|---|"]
        for r, p in zip(rows, paper2):
            t1, t2 = r["th"]
            out.append(f"| {r['dn']:.1f} | {t1 / 1e3:.1f} | {t2 / 1e3:.1f} | {(t1 + t2) / 1e5:.0%} | {t1 / t2:.3f} | {p:.3f} |")
        out += [gate_line([r["th"][0] / r["th"][1] for r in rows], [sum(r["th"]) for r in rows], 1e5), ""]
        rows, _ = tables_2_3(seeds, cache, 3, residual)
        out += [f"## Table III (3 UEs, residual loss {residual:.0%})", "",
                "| D_n | UE1 | UE2 | UE3 (kbit/s) | sum / 100 kbit/s | Th1:Th2 | Th1:Th3 | paper Th1:Th2 | paper Th1:Th3 |",
                "|---|---|---|---|---|---|---|---|---|"]
        for r, (p2, p3) in zip(rows, paper3):
            t1, t2, t3 = r["th"]
            out.append(f"| {r['dn']:.1f} | {t1 / 1e3:.1f} | {t2 / 1e3:.1f} | {t3 / 1e3:.1f} | {(t1 + t2 + t3) / 1e5:.0%} | "
                       f"{t1 / t2:.3f} | {t1 / t3:.3f} | {p2:.3f} | {p3:.3f} |")
        out += [gate_line([r["th"][0] / statistics.mean(r["th"][1:]) for r in rows], [sum(r["th"]) for r in rows], 1e5), ""]
    figs = figs_12_17(seeds, cache, RESIDUAL_LOSS)
    out += figures_section(figs, seeds)
    out[2:2] = [cache.summary(), ""]
    return "\n".join(out) + "\n"


def gate_line(ratios: list[float], sums: list[float], capacity: float) -> str:
    inversions = sum(1 for a, b in zip(ratios, ratios[1:]) if b < a)
    low = min(sums) / capacity
    ok = low >= 0.9 and inversions <= 1
    return (f"Gates: every row sums to ≥ 90 % of the bottleneck (lowest {low:.0%}); the ratio does not decrease with "
            f"D_n, at most one inversion ({inversions}): **{'met' if ok else 'not met'}**.")


def ratio_class(r: float) -> str:
    """The paper's four classes of |T1/T2,3|, with 0.9-1.1 counted as 1."""
    if r < 0.9:
        return "< 1"
    if r <= 1.1:
        return "= 1"
    return "1–3" if r < 3 else "≥ 3"


def figures_section(figs: dict, seeds: list[int]) -> list[str]:
    res, cases = figs["res"], figs["cases"]
    out = ["## Figs. 12–17 (Table IV: 0.23 Mb/s bottleneck, UE1 with 3 paths on 3 operators' cells, UE2–4 single path)", "",
           f"| run | UE1 (kbit/s) | UE1 goodput (kbit/s) | UE2–4 mean (kbit/s) | T1/T2,3 | class | Jain (4 hosts) | UE1 {HANDOVER[0]:.0f}–{HANDOVER[1]:.0f} s / {BEFORE[0]:.0f}–{BEFORE[1]:.0f} s | x (second half) |",
           "|---|---|---|---|---|---|---|---|---|"]
    summary = {}
    for name in cases:
        runs = [res[(name, s)] for s in seeds]
        t1 = statistics.mean(r["mean"]["ue1"] for r in runs)
        others = statistics.mean(statistics.mean(r["mean"][f"ue{i}"] for i in (2, 3, 4)) for r in runs)
        j = statistics.mean(jain([r["mean"][f"ue{i}"] for i in (1, 2, 3, 4)]) for r in runs)
        keep = statistics.mean(window_mean(r["series"]["ue1"], *HANDOVER) / window_mean(r["series"]["ue1"], *BEFORE) for r in runs)
        good = statistics.mean(r["goodput"]["ue1"] for r in runs)
        xs = [r["x_mean"] for r in runs if r["x_mean"] is not None]
        x = f"{statistics.mean(xs):.3f}" if xs else "—"
        summary[name] = dict(t1=t1, others=others, ratio=t1 / others, jain=j, keep=keep)
        out.append(f"| {name} | {t1 / 1e3:.1f} | {good / 1e3:.1f} | {others / 1e3:.1f} | {t1 / others:.2f} | {ratio_class(t1 / others)} | {j:.3f} | {keep:.2f} | {x} |")
    out.append("")
    total = statistics.mean(summary[n]["t1"] + 3 * summary[n]["others"] for n in cases)
    weighted = [(bw, n) for n in cases for bw in (50000, 110000) if f"bw_max {bw} " in n]
    for bw, name in weighted:
        x = min(fixed_point(3, 3, total, bw), 1.0)
        out.append(f"- {name}: ratio {summary[name]['ratio']:.2f}, fixed point N·x = {3 * x:.2f} "
                   f"(x = {x:.3f}, C = {total / 1e3:.0f} kbit/s measured): {summary[name]['ratio'] / (3 * x) - 1:+.0%}.")
    return out + [""]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--fresh", action="store_true", help="forget cached runs")
    args = ap.parse_args()
    seeds = list(range(1, args.seeds + 1))
    cache = RunCache(OUT / "cache.jsonl", args.fresh, args.jobs)
    text = report(seeds, cache)
    tmp = OUT / "report.md.tmp"
    tmp.write_text(text)
    tmp.replace(OUT / "report.md")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
