#!/usr/bin/env python3
"""INRPP's Rocketfuel experiment (Reñé et al., ToN 2022, §IV-D): Fig. 17(a)
(AFCT by flow size), Fig. 17(b) (link-utilisation histogram) and Table VII
(average link utilisation) for TCP, RCP, MPTCP and INRPP, beside the paper,
and the mean utilisation's sensitivity to the offered load ρ.

Runs the built-in ``inrpp-rocketfuel`` (Tiscali, AS 3257, ndnSIM's filter:
440 routers, 681 links; 50 hosts per edge router; per-edge-router Poisson
arrivals at ρ of the 100 Mb/s edge link; PPBP sizes, E[L] = 125 packets;
ECMP on) with

- TCP (NewReno, plain drop-tail routers), as the file is;
- RCP: ``transport = "rcp"`` and RCP routers with α = 0.1, β = 1.0 (§IV-A);
- MPTCP: ``transport = "mptcp"`` (full mesh, LIA), every sender host given a
  second access link to another edge router drawn uniformly (the paper:
  "MPTCP users are multihomed with two of the edge routers uniformly
  randomly distributed"; receivers stay single-homed, as in §IV-B), so two
  subflows per flow;
- INRPP: ``transport = "inrpp"`` and INRPP routers with the defaults
  (caches of 10 s of traffic, §IV-B's rule).

Measures, per run: the AFCT of the completed flows by flow size (log-scale
bins in packets of 1448 B of payload) and overall; each router-router link
direction's utilisation over the measurement window (``link_ts``'s rate
samples from ``WARMUP_S`` to the end of the arrivals, over the link's rate;
the 1362 directions of the 681 links; host access links are not counted),
its mean (Table VII) and its histogram in 20 % bins (Fig. 17(b)). The
offered load, arrival window and drain are stated at the top of the report.

Each finished run is a line of ``OUT/cache.jsonl`` (validation/cache.py,
keyed by the scenario text and a digest of the pathpool-sim binary): an
interrupted run resumes, ``--fresh`` starts over. Writes ``report.md``,
``fig17.png`` and ``sensitivity.png`` in OUT (default results/inrpp-rocketfuel).

Usage:  python validation/inrpp_rocketfuel.py [--rho 0.8] [--sensitivity 0.2,0.4,0.8,1.2]
        [--arrive 1] [--drain 2] [--seed 1] [--out DIR] [--fresh] [--pathpool-bin PATH]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import math
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "bench"))
sys.path.insert(0, str(HERE))
from cache import RunCache  # noqa: E402
from ns3_dumbbell import build_pathpool  # noqa: E402

SCENARIO = REPO / "python" / "pathpool" / "scenarios" / "inrpp-rocketfuel.toml"
DATA = REPO.parent / "shared" / "data"
TRANSPORTS = ("TCP", "RCP", "MPTCP", "INRPP")
# Table VII (average link utilisation, %), from the paper's text.
PAPER_UTIL = {"TCP": 25.02, "RCP": 24.41, "MPTCP": 33.18, "INRPP": 40.15}
RCP_ROUTERS = '\n[routers]\nmodule = "rcp"\n[routers.params]\nalpha = 0.1\nbeta = 1.0\n'
INRPP_ROUTERS = '\n[routers]\nmodule = "inrpp"\n'
ACCESS = 'rate = "1Gbps", delay = "5ms", queue_bytes = 6250000'
# The workload as the built-in states it: rho relative to each edge router's
# 100 Mb/s edge link, E[L] = 125 packets of 1500 B on the wire.
EDGE_LINK_BPS = 100e6
PACKET_BITS = 1500 * 8
MEAN_SIZE = 125
MSS = 1448
# Utilisation is measured from WARMUP_S to the end of the arrivals.
WARMUP_S = 0.3
SAMPLE_S = 0.1
# Flow-size bins, packets: [edge_k, edge_k+1) (log scale, 1-3-10 steps).
EDGES = (1, 3, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000)
UTIL_BINS = (0, 20, 40, 60, 80, 100)


def edge_routers(text: str) -> int:
    """The number of edge routers the built-in's workload assumes: its capacity over 100 Mb/s."""
    m = re.search(r'^capacity = "([0-9.]+)Gbps"$', text, re.M)
    if not m:
        raise SystemExit(f"{SCENARIO}: no `capacity = \"...Gbps\"` line in the workload")
    return round(float(m.group(1)) * 1e9 / EDGE_LINK_BPS)


def arrival_rate(rho: float) -> float:
    """λ_e, flows per second per edge router, at offered load ρ of its edge link."""
    return rho * EDGE_LINK_BPS / (MEAN_SIZE * PACKET_BITS)


def replace(text: str, old: str, new: str) -> str:
    if old not in text:
        raise SystemExit(f"{SCENARIO} no longer has `{old}`")
    return text.replace(old, new)


def variant(base: str, transport: str, rho: float, arrive_s: float, drain_s: float, second_homes: dict[str, str]) -> str:
    """The scenario text for one transport and load; `second_homes` maps each
    sender host to the edge router of its second access link (MPTCP only)."""
    n_edge = edge_routers(base)
    flows = round(n_edge * arrival_rate(rho) * arrive_s)
    text = replace(base, "load = 0.8\n", f"load = {rho:g}\n")
    text = re.sub(r"^flows = \d+$", f"flows = {flows}", text, flags=re.M)
    text = replace(text, 'duration = "3s"', f'duration = "{arrive_s + drain_s:g}s"')
    if transport != "TCP":
        text = text.rstrip("\n") + f'\ntransport = "{transport.lower()}"\n'
    if transport == "RCP":
        text += RCP_ROUTERS
    if transport == "INRPP":
        text += INRPP_ROUTERS
    if transport == "MPTCP":
        text += "".join(f'\n[[links]]\na = "{h}"\nb = "{r}"\n{ACCESS.replace(", ", chr(10))}\n' for h, r in sorted(second_homes.items()))
    return text


def hosts_and_edges(binary: Path, base: str, tmp: Path) -> tuple[list[str], list[str]]:
    """Sender hosts and edge routers of the built-in, from a run of 1 ms
    (the host links' names, `h{uid}_{k}-r{uid}`)."""
    probe = tmp / "probe.toml"
    probe.write_text(replace(base, 'duration = "3s"', 'duration = "1ms"'))
    links = tables(binary, probe, 1, ["links"])["links"]
    senders, edges = set(), set()
    for row in links:
        m = re.fullmatch(r"(h(\d+)_(\d+))-(r\2)", row["link"])
        if m:
            edges.add(m.group(4))
            if int(m.group(3)) % 2 == 0:
                senders.add(m.group(1))
    return sorted(senders), sorted(edges)


def second_homes(senders: list[str], edges: list[str], seed: int) -> dict[str, str]:
    """Each sender's second edge router: uniform among the others (a fixed draw per seed)."""
    rng = random.Random(f"inrpp-rocketfuel-mptcp-{seed}")
    out = {}
    for h in senders:
        home = "r" + h[1:].split("_")[0]
        out[h] = rng.choice([e for e in edges if e != home])
    return out


def tables(binary: Path, path: Path, seed: int, names: list[str]) -> dict[str, list[dict]]:
    env_data = ["--data-dir", str(DATA)]
    p = subprocess.run([str(binary), "run", str(path), "--seed", str(seed), *env_data, "--table", ",".join(names)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"pathpool-sim failed on {path}:\n{p.stderr[-2000:]}")
    if len(names) == 1:
        return {names[0]: list(csv.DictReader(io.StringIO(p.stdout), delimiter="\t"))}
    out, name, lines = {}, None, []
    for line in p.stdout.splitlines(keepends=True) + ["# end\n"]:
        if line.startswith("# "):
            if name:
                out[name] = list(csv.DictReader(io.StringIO("".join(lines)), delimiter="\t"))
            name, lines = line[2:].strip(), []
        else:
            lines.append(line)
    return out


def bin_of(size_bytes: int) -> int:
    packets = -(-size_bytes // MSS)
    return max(k for k, e in enumerate(EDGES) if packets >= e)


def label(k: int) -> str:
    return f"{EDGES[k]}-{EDGES[k + 1] - 1}" if k + 1 < len(EDGES) else f"{EDGES[k]}+"


def measure(binary: str, text: str, seed: int, arrive_s: float) -> dict:
    """One run: AFCT by size bin, utilisation of every router-router link direction, cost."""
    with tempfile.TemporaryDirectory(prefix="pathpool-inrpp-rf-") as tmp:
        path = Path(tmp) / "rocketfuel.toml"
        path.write_text(text)
        t0 = time.monotonic()
        got = tables(Path(binary), path, seed, ["flows", "links", "link_ts"])
        wall = time.monotonic() - t0
    flows, links, ts = got["flows"], got["links"], got["link_ts"]
    router = re.compile(r"r\d+")
    core = {int(r["link_id"]): float(r["rate_bps"]) for r in links if router.fullmatch(r["src"]) and router.fullmatch(r["dst"])}
    sums = dict.fromkeys(core, 0.0)
    samples = 0
    for r in ts:
        t, lid = float(r["time_s"]), int(r["link_id"])
        if WARMUP_S < t <= arrive_s + 1e-9 and lid in sums:
            sums[lid] += float(r["rate_bps"])
            if lid == next(iter(sums)):
                samples += 1
    util = [100 * sums[lid] / samples / core[lid] for lid in core]
    bins: dict[int, list[float]] = {}
    started = [f for f in flows if f["start_s"]]
    done = [f for f in started if f["completed"] == "true"]
    for f in done:
        bins.setdefault(bin_of(int(f["size_bytes"])), []).append(float(f["fct_s"]))
    count: dict[int, int] = {}
    for f in started:
        count[bin_of(int(f["size_bytes"]))] = count.get(bin_of(int(f["size_bytes"])), 0) + 1
    return {
        "flows": len(flows), "started": len(started), "completed": len(done),
        "afct_s": sum(float(f["fct_s"]) for f in done) / len(done) if done else None,
        "bins": {str(k): [sum(v) / len(v), len(v), count[k]] for k, v in sorted(bins.items())},
        "util": util, "util_mean": sum(util) / len(util), "window_samples": samples,
        "retransmits": sum(int(f["retransmits"]) for f in flows), "timeouts": sum(int(f["timeouts"]) for f in flows),
        "drops": sum(int(r["drops_queue"]) for r in links),
        "wall_s": round(wall, 1),
    }


def histogram(util: list[float]) -> list[float]:
    """Share of link directions (%) in each 20 % utilisation bin (100 % in the last)."""
    counts = [0] * (len(UTIL_BINS) - 1)
    for u in util:
        counts[min(int(u // 20), len(counts) - 1)] += 1
    return [100 * c / len(util) for c in counts]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rho", type=float, default=0.8, help="the load of Fig. 17 and Table VII (default 0.8, the paper's)")
    ap.add_argument("--sensitivity", default="0.2,0.4,0.8,1.2", help="loads run with TCP and INRPP for the sensitivity table")
    ap.add_argument("--arrive", type=float, default=1.0, help="seconds of arrivals (default 1)")
    ap.add_argument("--drain", type=float, default=2.0, help="seconds after the arrivals (default 2)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=REPO / "results" / "inrpp-rocketfuel")
    ap.add_argument("--fresh", action="store_true", help="forget the cached runs")
    ap.add_argument("--pathpool-bin", type=Path, metavar="PATH", help="use this pathpool-sim instead of building one with cargo")
    args = ap.parse_args()
    if not DATA.is_dir():
        raise SystemExit(f"{DATA}: the shared data directory (Rocketfuel maps) is missing")
    binary = args.pathpool_bin.resolve() if args.pathpool_bin else build_pathpool(SystemExit)
    build = hashlib.sha256(binary.read_bytes()).hexdigest()[:16]
    cache = RunCache(args.out / "cache.jsonl", fresh=args.fresh, build=build)
    base = SCENARIO.read_text()
    n_edge = edge_routers(base)
    rhos = sorted({args.rho, *(float(x) for x in args.sensitivity.split(","))})
    with tempfile.TemporaryDirectory(prefix="pathpool-inrpp-rf-") as tmp:
        senders, edges = hosts_and_edges(binary, base, Path(tmp))
    if len(edges) != n_edge:
        raise SystemExit(f"{SCENARIO}: {len(edges)} edge routers with hosts, but the workload's capacity assumes {n_edge}")
    homes = second_homes(senders, edges, args.seed)

    def run(transport: str, rho: float) -> dict:
        text = variant(base, transport, rho, args.arrive, args.drain, homes)
        return cache.get(f"{transport}/rho={rho:g}/seed={args.seed}", measure, str(binary), text, args.seed, args.arrive, params=[text, args.seed])

    main_runs = {t: run(t, args.rho) for t in TRANSPORTS}
    sens = {(t, rho): (main_runs[t] if rho == args.rho else run(t, rho)) for t in ("TCP", "INRPP") for rho in rhos}
    report = render(args, n_edge, len(senders), main_runs, sens, rhos, cache)
    print(report)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.md").write_text(report)
    plots(args.out, args.rho, main_runs, sens, rhos)


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a and b else "-"


def render(args, n_edge: int, n_senders: int, runs: dict, sens: dict, rhos: list[float], cache: RunCache) -> str:
    lam = arrival_rate(args.rho)
    out = [
        "# INRPP Rocketfuel (§IV-D): Fig. 17 and Table VII",
        "",
        f"Tiscali (AS 3257, ndnSIM filter), {n_edge} edge routers, {n_senders} senders (25 per edge router) and as many",
        f"receivers; ECMP on. Offered load ρ = {args.rho:g} of each edge router's 100 Mb/s edge link: Poisson arrivals of",
        f"λ_e = {lam:.2f} flows/s per edge router ({n_edge * lam:.0f} flows/s in all), Pareto sizes (shape 1.2, E[L] = 125",
        f"packets); arrivals for {args.arrive:g} s ({round(n_edge * lam * args.arrive)} flows), then {args.drain:g} s more;",
        f"utilisation over ({WARMUP_S:g} s, {args.arrive:g} s] of the {2 * 681} router-router link directions. Seed {args.seed}.",
        f"pathpool-sim build {cache.build} (sha256 of the binary); runs this time: {cache.ran}, taken from the cache: {cache.hits}.",
        "",
        "## Table VII: average link utilisation (%)",
        "",
        "| | " + " | ".join(TRANSPORTS) + " | INRPP/TCP |",
        "|---|" + "---|" * (len(TRANSPORTS) + 1),
        "| paper | " + " | ".join(f"{PAPER_UTIL[t]:.2f}" for t in TRANSPORTS) + f" | {PAPER_UTIL['INRPP'] / PAPER_UTIL['TCP']:.2f} |",
        "| pathpool | " + " | ".join(f"{runs[t]['util_mean']:.2f}" for t in TRANSPORTS) + f" | {ratio(runs['INRPP']['util_mean'], runs['TCP']['util_mean'])} |",
        "",
        "## Fig. 17(b): share of link directions (%) by utilisation",
        "",
        "| utilisation | " + " | ".join(TRANSPORTS) + " |",
        "|---|" + "---|" * len(TRANSPORTS),
    ]
    hist = {t: histogram(runs[t]["util"]) for t in TRANSPORTS}
    for i in range(len(UTIL_BINS) - 1):
        out.append(f"| {UTIL_BINS[i]}-{UTIL_BINS[i + 1]} % | " + " | ".join(f"{hist[t][i]:.1f}" for t in TRANSPORTS) + " |")
    out += [
        "",
        "## Fig. 17(a): AFCT (s) of the completed flows by size (packets), completed/started in brackets",
        "",
        "| packets | " + " | ".join(TRANSPORTS) + " | TCP/INRPP | RCP/INRPP | MPTCP/INRPP |",
        "|---|" + "---|" * (len(TRANSPORTS) + 3),
    ]
    keys = sorted({int(k) for t in TRANSPORTS for k in runs[t]["bins"]})
    for k in keys:
        cell = {t: runs[t]["bins"].get(str(k)) for t in TRANSPORTS}
        row = " | ".join(f"{c[0]:.3f} ({c[1]}/{c[2]})" if c else "-" for c in cell.values())
        inrpp = cell["INRPP"][0] if cell["INRPP"] else None
        rs = " | ".join(ratio(cell[o][0] if cell[o] else None, inrpp) for o in ("TCP", "RCP", "MPTCP"))
        out.append(f"| {label(k)} | {row} | {rs} |")
    a = {t: runs[t]["afct_s"] for t in TRANSPORTS}
    out.append("| all | " + " | ".join(f"{a[t]:.3f} ({runs[t]['completed']}/{runs[t]['started']})" for t in TRANSPORTS) +
               " | " + " | ".join(ratio(a[o], a["INRPP"]) for o in ("TCP", "RCP", "MPTCP")) + " |")
    out += [
        "",
        "## Targets (§IV-D's text)",
        "",
        "| target | measured | met |",
        "|---|---|---|",
    ]
    u = {t: runs[t]["util_mean"] for t in TRANSPORTS}
    checks = [
        ("TCP's mean utilisation in 20-50 %", f"{u['TCP']:.2f} %", 20 <= u["TCP"] <= 50),
        ("INRPP's AFCT ≥ 50 % better than TCP's (TCP/INRPP ≥ 1.5)", ratio(a["TCP"], a["INRPP"]), bool(a["INRPP"]) and a["TCP"] / a["INRPP"] >= 1.5),
        ("INRPP's AFCT ≥ 50 % better than RCP's (RCP/INRPP ≥ 1.5)", ratio(a["RCP"], a["INRPP"]), bool(a["INRPP"]) and a["RCP"] / a["INRPP"] >= 1.5),
        ("INRPP's AFCT ≥ 20 % better than MPTCP's (MPTCP/INRPP ≥ 1.2)", ratio(a["MPTCP"], a["INRPP"]),
         bool(a["INRPP"]) and a["MPTCP"] / a["INRPP"] >= 1.2),
        ("INRPP's 80-100 % bin about twice TCP's (1.5-2.5 ×)", f"{hist['INRPP'][4]:.1f} % vs {hist['TCP'][4]:.1f} %",
         hist["TCP"][4] > 0 and 1.5 <= hist["INRPP"][4] / hist["TCP"][4] <= 2.5),
        ("Table VII: TCP ≈ RCP (within 10 %) < MPTCP < INRPP", " < ".join(f"{t} {u[t]:.2f}" for t in sorted(TRANSPORTS, key=u.get)),
         abs(u["RCP"] - u["TCP"]) <= 0.1 * u["TCP"] and max(u["TCP"], u["RCP"]) < u["MPTCP"] < u["INRPP"]),
        ("INRPP/TCP utilisation 1.60 ± 0.25", ratio(u["INRPP"], u["TCP"]), 1.35 <= u["INRPP"] / u["TCP"] <= 1.85),
    ]
    out += [f"| {c} | {m} | {'yes' if ok else '**no**'} |" for c, m, ok in checks]
    out += [
        "",
        "## Sensitivity of the mean utilisation (%) to ρ",
        "",
        "| ρ | λ_e (flows/s) | TCP | INRPP | INRPP/TCP | TCP AFCT (s) | INRPP AFCT (s) | TCP done | INRPP done |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for rho in rhos:
        t, i = sens[("TCP", rho)], sens[("INRPP", rho)]
        out.append(f"| {rho:g} | {arrival_rate(rho):.2f} | {t['util_mean']:.2f} | {i['util_mean']:.2f} | {ratio(i['util_mean'], t['util_mean'])} | "
                   f"{t['afct_s']:.3f} | {i['afct_s']:.3f} | {t['completed']}/{t['started']} | {i['completed']}/{i['started']} |")
    out += [
        "",
        "## Cost of each run (pathpool-sim, wall seconds on this machine, the three tables printed)",
        "",
        "| run | wall s | flows | queue drops | retransmits | timeouts |",
        "|---|---|---|---|---|---|",
    ]
    for (t, rho), r in sorted(sens.items()) + [((t, args.rho), runs[t]) for t in ("RCP", "MPTCP")]:
        out.append(f"| {t} ρ = {rho:g} | {r['wall_s']} | {r['flows']} | {r['drops']} | {r['retransmits']} | {r['timeouts']} |")
    return "\n".join(out) + "\n"


def plots(out: Path, rho: float, runs: dict, sens: dict, rhos: list[float]) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not found: no plots (run under `make inrpp-rocketfuel`, which uses the project's .venv)", file=sys.stderr)
        return
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.5))
    for t in TRANSPORTS:
        ks = sorted(int(k) for k in runs[t]["bins"])
        xs = [math.sqrt(EDGES[k] * (EDGES[k + 1] - 1)) if k + 1 < len(EDGES) else EDGES[k] for k in ks]
        ax.plot(xs, [runs[t]["bins"][str(k)][0] for k in ks], marker="o", label=t)
    ax.set(xscale="log", yscale="log", xlabel="flow size (packets, bin centre)", ylabel="AFCT (s)", title=f"Fig. 17(a): AFCT by flow size, ρ = {rho:g}")
    ax.legend()
    width = 0.2
    for j, t in enumerate(TRANSPORTS):
        bx.bar([i + (j - 1.5) * width for i in range(len(UTIL_BINS) - 1)], histogram(runs[t]["util"]), width, label=t)
    bx.set_xticks(range(len(UTIL_BINS) - 1), [f"{UTIL_BINS[i]}-{UTIL_BINS[i + 1]} %" for i in range(len(UTIL_BINS) - 1)])
    bx.set(ylabel="link directions (%)", title="Fig. 17(b): link utilisation")
    bx.legend()
    fig.tight_layout()
    fig.savefig(out / "fig17.png", dpi=120)
    fig, ax = plt.subplots(figsize=(6, 4))
    for t in ("TCP", "INRPP"):
        ax.plot(rhos, [sens[(t, r)]["util_mean"] for r in rhos], marker="o", label=t)
    ax.axhspan(20, 50, color="grey", alpha=0.15, label="20-50 % (issue 19)")
    ax.set(xlabel="ρ (of the 100 Mb/s edge link)", ylabel="mean link utilisation (%)", title="Table VII's mean against ρ")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "sensitivity.png", dpi=120)


if __name__ == "__main__":
    main()
