#!/usr/bin/env python3
"""Green MPTCP (Morawski & Ignaciuk, green-mptcp-iiot-energy.txt): Scenario 1,
Scenario 2 (Table 1) and Fig. 3 beside the paper, on the simulator, and the
lab's Rules 1 + 3 beside the simulator's same configuration
(docs/reproductions/green.md).

Every run is the built-in ``green-iiot`` scenario (an agent with two wireless
interfaces uploading to a server over two unrelated, crowded ISP paths) with
per-seed path parameters drawn from the paper's §4 ranges:

- primary (wlan0, the initial subflow): 8.7-8.9 Mb/s, base RTT 30-60 ms,
  a drop-tail queue of one bandwidth-delay product (at least 20 packets);
- secondary (wlan1): 6.0-12.5 Mb/s, base RTT drawn below the primary's
  (20 ms to the primary's less 5 ms), behind a deep queue of 150-250 ms at
  its rate, which a loss-based sender fills within seconds (Fig. 3's bait);
- each ISP path carries Poisson arrivals of Pareto-sized CUBIC flows
  (E[L] = 30 packets, shape 1.2) at 30 % of its rate.

Configurations (``CONFIGS``): the paper's default (full mesh, minRTT, the
simulator's default coupling LIA, RFC 6356), the like-for-like uncoupled
CUBIC baseline, the green framework with ``green`` or ``green_literal``
scheduler over uncoupled BBR (Rule 3) or Westwood+, and Rules 1 + 3 alone
(what the kernel lab runs). Profiles a/b/c are the paper's w1:w2:wD.

Finished runs are cached in results/green/cache.jsonl (validation/cache.py:
an interrupted run resumes, a rebuilt simulator runs again); --fresh starts over. Writes results/green/report.md and fig3.png.

Usage:  python validation/green_paper.py [--seeds 30] [--jobs 2] [--fresh] [--lab]
"""

from __future__ import annotations

import argparse
import copy
import math
import random
import statistics
import tomllib
from pathlib import Path

from cache import RunCache

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SCENARIO = REPO / "python" / "pathpool" / "scenarios" / "green-iiot.toml"
OUT = REPO / "results" / "green"

PROFILES = {"a": (1.0, 2.0, 0.0), "b": (1.0, 3.0, 10.0), "c": (1.0, 1.0, 1.0)}
CONFIGS = {
    "default": dict(path_manager="fullmesh", scheduler="minrtt", coupling="lia", cc="cubic"),
    "cubic": dict(path_manager="fullmesh", scheduler="minrtt", coupling="uncoupled", cc="cubic"),
    "green": dict(path_manager="green", scheduler="green", coupling="uncoupled", cc="bbr"),
    "green_literal": dict(path_manager="green", scheduler="green_literal", coupling="uncoupled", cc="bbr"),
    "green_westwood": dict(path_manager="green", scheduler="green", coupling="uncoupled", cc="westwood"),
    "rules13": dict(path_manager="green", scheduler="minrtt", coupling="uncoupled", cc="bbr"),
}
BULK_S = 10.0          # Scenario 2: iperf3's 10 s
FIXED_BYTES = 12_000_000  # energy for a fixed volume
MESSAGE_BYTES = 10_000    # Scenario 1
MB = 1e6

# Table 1 of the paper: (min, max) per row and case, green and default.
PAPER = {
    "throughput_mbps": {"a": ((15.8, 16.3), (11.7, 14.0)), "b": ((13.6, 14.8), (10.3, 10.9)), "c": ((16.1, 18.0), (7.28, 9.05))},
    "vol1_mb": {"a": ((10.29, 10.30), (8.19, 10.59)), "b": ((10.06, 10.25), (3.37, 7.51)), "c": ((10.11, 10.17), (5.52, 9.52))},
    "vol2_mb": {"a": ((11.16, 12.02), (6.44, 11.00)), "b": ((8.38, 10.11), (7.88, 11.34)), "c": ((11.83, 14.44), (2.44, 9.54))},
    "drops1": {"a": ((4, 13), (7, 70)), "b": ((5, 14), (7, 424)), "c": ((21, 41), (40, 151))},
    "drops2": {"a": ((4, 9), (108, 119)), "b": ((5, 11), (7, 218)), "c": ((16, 37), (106, 366))},
    "energy_j": {"a": ((4.55, 4.67), (5.22, 6.27)), "b": ((6.79, 7.11), (8.47, 8.60)), "c": ((4.23, 4.55), (8.42, 10.10))},
}
PAPER_GAIN = {"a": (11, 18), "b": (14, 20), "c": (49, 55)}


def network(seed: int) -> dict[str, float]:
    """The seed's path parameters, drawn from the paper's §4 ranges."""
    r = random.Random(f"green-{seed}")
    rtt1 = r.uniform(30, 60)
    return {
        "rate1": r.uniform(8.7, 8.9),
        "rtt1": rtt1,
        "rate2": r.uniform(6.0, 12.5),
        "rtt2": r.uniform(20, rtt1 - 5),
        "deep_ms": r.uniform(150, 250),
    }


# One-way delay outside the ISP link: wifi 1 ms + ap-isp 2 ms + dc 1 ms + server 1 ms.
ACCESS_ONE_WAY_MS = 5.0
# How an ISP path is crowded: "cross" (Poisson arrivals of Pareto-sized
# CUBIC flows at 30 % of its rate, the built-in's) or "varying" (no cross
# traffic; its capacity changes every 500 ms, uniformly within ±25 % of its
# mean rate).
NETWORKS = ("cross", "varying")


def scenario(seed: int, config: str, case: str, *, kind: str, reading: str = "time", net: str = "cross", qbdp: float = 1.0) -> dict:
    """The scenario dict of one run: ``kind`` is "bulk" (10 s), "fixed" (FIXED_BYTES)
    or "message" (one 10 kB message, Scenario 1); ``qbdp`` is the primary's
    queue in bandwidth-delay products."""
    doc = tomllib.loads(SCENARIO.read_text())
    n = network(seed)
    c = CONFIGS[config]
    doc["sim"]["seed"] = seed
    vary = random.Random(f"green-vary-{seed}")
    for k, link in ((1, l) if l.get("name") == "isp1-path" else (2, l) for l in doc["links"] if l.get("name") in ("isp1-path", "isp2-path")):
        rate, rtt = n[f"rate{k}"], n[f"rtt{k}"]
        link["delay"] = f"{rtt / 2 - ACCESS_ONE_WAY_MS:.3f}ms"
        if k == 1:
            link["queue"] = max(20, round(qbdp * rate * 1e6 * rtt / 1e3 / 12000))
        else:
            link["queue"] = round(rate * 1e6 * n["deep_ms"] / 1e3 / 12000)
        if net == "varying":
            del link["rate"]
            steps = [[f"{0.5 * j:g}s", f"{rate * vary.uniform(0.75, 1.25):.4f}Mbps"] for j in range(80)]
            link["a_to_b"] = {"capacity": {"schedule": steps}}
            link["b_to_a"] = {"rate": f"{rate:.4f}Mbps"}
        else:
            link["rate"] = f"{rate:.4f}Mbps"
    if net == "varying":
        del doc["workloads"]
    else:
        for w, rate in zip(doc["workloads"], (n["rate1"], n["rate2"])):
            w["capacity"] = f"{rate:.4f}Mbps"
    flow = doc["flows"][0]
    flow["tcp"] = {"cc": c["cc"]}
    flow["mptcp"] = {"initial": "wlan0", "path_manager": c["path_manager"], "scheduler": c["scheduler"], "coupling": c["coupling"]}
    if kind == "bulk":
        doc["sim"]["duration"] = f"{BULK_S}s"
    else:
        del flow["stop"]
        flow["size"] = FIXED_BYTES if kind == "fixed" else MESSAGE_BYTES
        doc["sim"]["duration"] = "25s" if kind == "fixed" else "5s"
        for w in doc.get("workloads", []):
            w["flows"] = 400
    w1, w2, wd = PROFILES[case]
    doc["devices"][0]["linear"] = {"reading": reading, "w_device": wd, "w": {"wlan0": w1, "wlan1": w2}}
    return doc


def measure(seed: int, config: str, case: str, kind: str, reading: str = "time", plane: str = "sim", net: str = "cross", qbdp: float = 1.0) -> dict:
    """Runs one point and returns its numbers. Lab comparisons (``net`` =
    "varying" there) sample every 10 ms on both planes: the lab's energy
    readings are as fine as its samples."""
    import pathpool

    doc = scenario(seed, config, case, kind=kind, reading=reading, net=net, qbdp=qbdp)
    if net == "varying":
        doc["sim"]["sample_interval"] = "10ms"
    if plane == "lab" and CONFIGS[config]["path_manager"] == "fullmesh":
        # Linux's own default: the in-kernel path manager (full mesh by
        # endpoints); the green path manager needs the userspace one.
        doc["lab"] = {"path_manager": "kernel"}
    res = pathpool.run(doc, plane=plane)
    flows = res.flows
    f = flows[flows["name"] == "iperf"].iloc[0]
    sub = res.frame("subflows")
    sub = sub[sub["flow_id"] == f["flow_id"]]
    links = res.links
    energy = res.frame("energy")
    per_if = {r["interface"]: r["energy_j"] for _, r in energy.iterrows()}
    w1, w2, wd = PROFILES[case]
    out = {
        "seed": seed, "config": config, "case": case, "kind": kind, "reading": reading, "plane": plane, "net": net, "qbdp": qbdp,
        "delivered": int(f["bytes_delivered"]),
        "fct_s": None if f["fct_s"] is None or (isinstance(f["fct_s"], float) and math.isnan(f["fct_s"])) else float(f["fct_s"]),
        "subflows": int(len(sub)),
        "joins": int((sub["local_interface"] != "agent:wlan0").sum()),
        "energy_j": float(sum(per_if.values())),
        "e_if": [float(per_if.get("wlan0", 0.0)), float(per_if.get("wlan1", 0.0)), float(per_if.get("device", 0.0))],
    }
    for k, iface in ((1, "agent:wlan0"), (2, "agent:wlan1")):
        s = sub[sub["local_interface"] == iface]
        out[f"vol{k}"] = int(s["bytes_sent"].sum())
        out[f"retx{k}"] = int(s["retransmits"].sum())
        fwd = links[links["name"] == f"isp{k}-path:isp{k}>dc{k}"]
        out[f"qdrops{k}"] = int(fwd["drops_queue"].sum()) if len(fwd) else None
        if reading == "time":
            # τ_i = E_i / w_i: interface i's time in use (from the session's start).
            w = (w1, w2)[k - 1]
            out[f"tau{k}"] = per_if.get(iface.split(":")[1], 0.0) / w if w > 0 else None
    if kind == "bulk" and plane == "sim":
        ts = res.flow_ts
        ts = ts[ts["flow_id"] == f["flow_id"]]
        out["imbalance_mean"] = float(ts["imbalance_bytes"].abs().mean())
    return out


def key(p: dict) -> str:
    return f"{p['plane']}/{p['net']}/{p['qbdp']:g}/{p['kind']}/{p['reading']}/{p['config']}/{p['case']}/{p['seed']}"


def k(kind: str, config: str, case: str, seed: int, *, reading: str = "time", plane: str = "sim", net: str = "cross", qbdp: float = 1.0) -> str:
    return key(dict(plane=plane, net=net, qbdp=qbdp, kind=kind, reading=reading, config=config, case=case, seed=seed))


def point(kind: str, config: str, case: str, seed: int, *, reading: str = "time", plane: str = "sim", net: str = "cross", qbdp: float = 1.0) -> dict:
    return dict(plane=plane, net=net, qbdp=qbdp, kind=kind, reading=reading, config=config, case=case, seed=seed)


def _work(p: dict) -> dict:
    return measure(p["seed"], p["config"], p["case"], p["kind"], p["reading"], p["plane"], p["net"], p["qbdp"])


def run_points(points: list[dict], cache: RunCache) -> dict[str, dict]:
    """Runs the points not yet in ``cache`` (validation/cache.py), the
    simulator's ``jobs`` at a time, the lab's one at a time (real time); returns key -> result."""
    done = cache.map(_work, {key(p): (p,) for p in points if p["plane"] == "sim"})
    for p in points:
        if p["plane"] == "lab":
            done[key(p)] = cache.get(key(p), _work, p)
    return done


# ---- tables ---------------------------------------------------------------------------------

def rng(values: list[float], fmt: str = "{:.2f}") -> str:
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    return f"{fmt.format(min(values))}–{fmt.format(max(values))}"


def paper_rng(pair: tuple[float, float], fmt: str = "{:.2f}") -> str:
    return f"{fmt.format(pair[0])}–{fmt.format(pair[1])}"


def md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def gain(x: dict, y: dict) -> float:
    """Paired energy gain for the same volume, percent: 1 − (E/byte) / (E_base/byte).
    A bulk run's sessions all last 10 s, so per delivered byte is the fair unit."""
    return 100 * (1 - (x["energy_j"] / x["delivered"]) / (y["energy_j"] / y["delivered"]))


def table1(done: dict, seeds: list[int], green: str, default: str, net: str) -> str:
    """Table 1's rows, green vs default, min–max over seeds, beside the paper's."""
    rows = []
    get = lambda cfg, case: [done[k("bulk", cfg, case, s, net=net)] for s in seeds]
    spec = [
        ("Throughput [Mb/s]", "throughput_mbps", lambda r: r["delivered"] * 8 / BULK_S / 1e6, "{:.2f}"),
        ("Primary path data volume [MB]", "vol1_mb", lambda r: r["vol1"] / MB, "{:.2f}"),
        ("Secondary path data volume [MB]", "vol2_mb", lambda r: r["vol2"] / MB, "{:.2f}"),
        ("Primary path drop count (our retransmissions)", "drops1", lambda r: r["retx1"], "{:.0f}"),
        ("Secondary path drop count (our retransmissions)", "drops2", lambda r: r["retx2"], "{:.0f}"),
        ("Primary bottleneck queue drops (all traffic)", None, lambda r: r["qdrops1"], "{:.0f}"),
        ("Secondary bottleneck queue drops (all traffic)", None, lambda r: r["qdrops2"], "{:.0f}"),
        ("Energy per delivered MB [J/MB, time reading]", None, lambda r: r["energy_j"] / (r["delivered"] / MB), "{:.2f}"),
    ]
    for label, pk, f, fmt in spec:
        cases = "abc" if label.startswith("Energy") else "a"
        for case in cases:
            g, d = get(green, case), get(default, case)
            paper = PAPER.get(pk, {}) if pk else {}
            pfmt = "{:.0f}" if pk and pk.startswith("drops") else "{:.2f}"
            # Only energy depends on the case here (the profile changes w, not the network).
            shown = "abc" if len(cases) == 1 else case
            prow = lambda i: " / ".join(paper_rng(paper[c][i], pfmt) for c in shown) if paper else "–"
            rows.append([label if case == cases[0] else "", shown if len(cases) == 1 else case,
                         prow(0), rng([f(r) for r in g], fmt), prow(1), rng([f(r) for r in d], fmt)])
    for case in "abc":
        v = [gain(x, y) for x, y in zip(get(green, case), get(default, case))]
        rows.append(["Energy gain, green vs default [%]" if case == "a" else "", case,
                     paper_rng(PAPER_GAIN[case], "{:.0f}"), f"{min(v):.0f} to {max(v):.0f} (mean {statistics.mean(v):.1f})", "", ""])
    header = ["Parameter", "Case", "paper green", f"pathpool {green}", "paper default", f"pathpool {default}"]
    return md_table(header, rows)


def gains_table(done: dict, seeds: list[int], baselines: list[str], configs: list[str], net: str, qbdp: float = 1.0) -> str:
    """Every configuration: mean throughput, retransmissions, share on the
    secondary, imbalance, and the paired energy gain per case."""
    rows = []
    for cfg in configs:
        rs = {case: [done[k("bulk", cfg, case, s, net=net, qbdp=qbdp)] for s in seeds] for case in "abc"}
        b = rs["b"]
        row = [cfg, f"{statistics.mean(r['delivered'] * 8 / BULK_S / 1e6 for r in b):.2f}",
               f"{statistics.mean(r['retx1'] for r in b):.0f} / {statistics.mean(r['retx2'] for r in b):.0f}",
               f"{statistics.mean(r['vol2'] / (r['vol1'] + r['vol2']) for r in b) * 100:.0f} %"]
        if "imbalance_mean" in b[0]:
            row.append(f"{statistics.mean(r['imbalance_mean'] for r in b) / 1e3:.0f}")
        for case in "abc":
            cells = []
            for base in baselines:
                bs = [done[k("bulk", base, case, s, net=net, qbdp=qbdp)] for s in seeds]
                cells.append(f"{statistics.mean(gain(x, y) for x, y in zip(rs[case], bs)):+.1f}")
            row.append(" / ".join(cells))
        rows.append(row)
    header = ["config", "Mb/s", "retransmissions wlan0 / wlan1", "share on wlan1", "imbalance [kB]"][: len(rows[0]) - 3]
    header += [f"gain {c} vs " + " / ".join(baselines) + " [%]" for c in "abc"]
    return md_table(header, rows)


def fixed_table(done: dict, seeds: list[int], configs: list[str], base: str) -> str:
    """Energy for a fixed volume: joules, paired gain, completion time, Theorem 1's gap."""
    rows = []
    for cfg in configs:
        for case in "abc":
            rs = [done[k("fixed", cfg, case, s)] for s in seeds]
            b = [done[k("fixed", base, case, s)] for s in seeds]
            g = [100 * (1 - x["energy_j"] / y["energy_j"]) for x, y in zip(rs, b)]
            # Theorem 1: every interface in use until t_D (τ_D = max τ_i).
            gap = [abs((r["tau1"] or 0) - (r["tau2"] or 0)) for r in rs]
            rows.append([cfg, case, f"{statistics.mean(r['energy_j'] for r in rs):.2f}", f"{statistics.mean(g):+.1f} ({min(g):+.0f} to {max(g):+.0f})",
                         f"{statistics.mean(r['fct_s'] for r in rs if r['fct_s']):.2f}", f"{statistics.mean(gap):.3f}"])
    return md_table(["config", "case", "energy [J]", f"gain vs {base} [%] (min to max)", "completion [s]", "|τ_1 − τ_2| [s]"], rows)


def scenario1_table(done: dict, seeds: list[int]) -> str:
    rows = []
    for reading in ("data", "time"):
        for case in "abc":
            g = [done[k("message", "green", case, s, reading=reading)] for s in seeds]
            d = [done[k("message", "default", case, s, reading=reading)] for s in seeds]
            v = [100 * (1 - x["energy_j"] / y["energy_j"]) for x, y in zip(g, d)]
            rows.append([reading, case, "3–10 (mean ≈ 5)", f"{min(v):.1f}–{max(v):.1f} (mean {statistics.mean(v):.1f})",
                         f"{sum(r['joins'] for r in g)}", f"{sum(r['joins'] for r in d)}"])
    return md_table(["reading", "case", "paper saving [%]", "pathpool saving [%]", "joins, green (all seeds)", "joins, default"], rows)


def buffer_table(done: dict, seeds: list[int], configs: list[str], depths: list[float]) -> str:
    """Case b at each depth of the primary's queue: throughput, drops, and the paired gain vs default."""
    rows = []
    for q in depths:
        base = [done[k("bulk", "default", "b", s, qbdp=q)] for s in seeds]
        for cfg in configs:
            rs = [done[k("bulk", cfg, "b", s, qbdp=q)] for s in seeds]
            g = [gain(x, y) for x, y in zip(rs, base)]
            rows.append([f"{q:g}", cfg, f"{statistics.mean(r['delivered'] * 8 / BULK_S / 1e6 for r in rs):.2f}",
                         f"{statistics.mean(r['retx1'] for r in rs):.0f}", f"{statistics.mean(r['retx2'] for r in rs):.0f}",
                         f"{statistics.mean(g):+.1f} ({min(g):+.0f} to {max(g):+.0f})"])
    return md_table(["primary queue [BDP]", "config", "Mb/s", "retransmissions wlan0", "retransmissions wlan1", "gain vs default [%] (min to max)"], rows)


def fig3(out: Path, seed: int) -> str:
    """Fig. 3 (case b): srtt and inflight per path over time, default vs green, and the imbalance."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pathpool

    fig, ax = plt.subplots(3, 2, figsize=(11, 9), sharex=True)
    for col, cfg in enumerate(("default", "green")):
        res = pathpool.run(scenario(seed, cfg, "b", kind="bulk"))
        sub = res.frame("subflows")
        names = dict(zip(sub["subflow_id"], sub["local_interface"]))
        ts = res.frame("subflow_ts")
        ts = ts[ts["flow_id"] == 0]
        for sid, g in ts.groupby("subflow_id"):
            label = {"agent:wlan0": "primary (wlan0)", "agent:wlan1": "secondary (wlan1)"}[names[sid]]
            ax[0][col].plot(g["time_s"], g["srtt_s"] * 1e3, label=label)
            ax[1][col].plot(g["time_s"], g["bytes_in_flight"] / 1e3, label=label)
        fts = res.flow_ts
        fts = fts[fts["flow_id"] == 0]
        ax[2][col].plot(fts["time_s"], fts["imbalance_bytes"] / 1e3, color="k")
        c = CONFIGS[cfg]
        cc = c["coupling"] if c["coupling"] != "uncoupled" else f"uncoupled {c['cc']}"
        ax[0][col].set_title(f"{cfg} ({c['path_manager']}, {c['scheduler']}, {cc})")
        ax[0][col].set_ylabel("srtt [ms]")
        ax[1][col].set_ylabel("inflight [kB]")
        ax[2][col].set_ylabel("imbalance [kB]")
        ax[2][col].set_xlabel("time [s]")
        ax[0][col].legend(fontsize=8)
    fig.suptitle(f"Green MPTCP Fig. 3 (Scenario 2, case b, seed {seed}): pathpool")
    fig.tight_layout()
    path = out / "fig3.png"
    fig.savefig(path, dpi=110)
    return str(path)


LAB_CONFIGS = ("cubic", "rules13")
BUFFER_DEPTHS = (1.0, 2.0, 4.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=30, help="seeds per cell (the paper's 30 runs)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--fresh", action="store_true", help="forget cached runs")
    ap.add_argument("--lab", action="store_true", help="also run Rules 1 + 3 and the CUBIC baseline on the kernel lab (root)")
    ap.add_argument("--lab-seeds", type=int, default=3)
    args = ap.parse_args()
    seeds = list(range(1, args.seeds + 1))
    OUT.mkdir(parents=True, exist_ok=True)
    cache = RunCache(OUT / "cache.jsonl", args.fresh, args.jobs)
    points = []
    for s in seeds:
        for case in "abc":
            for cfg in CONFIGS:
                for net in NETWORKS:
                    points.append(point("bulk", cfg, case, s, net=net))
                points.append(point("fixed", cfg, case, s))
            for cfg in ("default", "green"):
                for reading in ("data", "time"):
                    points.append(point("message", cfg, case, s, reading=reading))
    for s in seeds:
        for q in BUFFER_DEPTHS[1:]:
            for cfg in ("default", "cubic", "green", "green_westwood"):
                points.append(point("bulk", cfg, "b", s, qbdp=q))
    lab_seeds = list(range(1, args.lab_seeds + 1))
    if args.lab:
        for s in lab_seeds:
            for cfg in LAB_CONFIGS:
                for plane in ("sim", "lab"):
                    points.append(point("bulk", cfg, "b", s, plane=plane, net="varying"))
                    points.append(point("message", cfg, "b", s, reading="data", plane=plane, net="varying"))
    done = run_points(points, cache)

    parts = ["# Green MPTCP: pathpool beside the paper (generated by `make green`)", ""]
    parts += [cache.summary(), ""]
    parts += [f"Seeds per cell: {len(seeds)}. Per-seed networks: `network()` and `scenario()` in validation/green_paper.py.", ""]
    parts += ["## Scenario 1: one 10 kB message per connection, green vs default (paired by seed)", ""]
    parts += [scenario1_table(done, seeds), ""]
    for net in NETWORKS:
        for green in ("green", "green_literal"):
            parts += [f"## Table 1 ({net} network), {green} vs default (LIA)", "", table1(done, seeds, green, "default", net), ""]
        parts += [f"## Every configuration ({net} network, bulk 10 s; throughput, retransmissions, share and imbalance for case b)", ""]
        parts += [gains_table(done, seeds, ["default", "cubic"], list(CONFIGS), net), ""]
    parts += [f"## Energy for a fixed volume ({FIXED_BYTES / MB:.0f} MB, cross network, time reading)", ""]
    parts += [fixed_table(done, seeds, list(CONFIGS), "default"), ""]
    parts += ["## The primary's queue depth (cross network, case b)", ""]
    parts += [buffer_table(done, seeds, ["default", "cubic", "green", "green_westwood"], list(BUFFER_DEPTHS)), ""]
    parts += [f"Fig. 3 plot (case b, seed {seeds[0]}): {fig3(OUT, seeds[0])}", ""]
    if args.lab:
        rows = []
        for cfg in LAB_CONFIGS:
            for plane in ("sim", "lab"):
                rs = [done[k("bulk", cfg, "b", s, plane=plane, net="varying")] for s in lab_seeds]
                ms = [done[k("message", cfg, "b", s, reading="data", plane=plane, net="varying")] for s in lab_seeds]
                rows.append([cfg, plane, rng([r["delivered"] * 8 / BULK_S / 1e6 for r in rs]), rng([r["vol1"] / MB for r in rs]), rng([r["vol2"] / MB for r in rs]),
                             rng([r["retx1"] for r in rs], "{:.0f}"), rng([r["retx2"] for r in rs], "{:.0f}"),
                             rng([r["energy_j"] / (r["delivered"] / MB) for r in rs]), rng([m["energy_j"] for m in ms], "{:.0f}"),
                             f"{sum(m['joins'] for m in ms)}"])
        parts += [f"## Kernel lab beside the simulator (varying network, case b, seeds {lab_seeds[0]}–{lab_seeds[-1]})", ""]
        parts += [md_table(["config", "plane", "Mb/s", "wlan0 [MB]", "wlan1 [MB]", "retx wlan0", "retx wlan1", "J/MB (time)", "10 kB message [J, data]", "joins (messages)"], rows), ""]
    report = "\n".join(parts)
    (OUT / "report.md").write_text(report)
    print(report)


if __name__ == "__main__":
    main()
