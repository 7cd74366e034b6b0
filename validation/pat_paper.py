#!/usr/bin/env python3
"""PAT (Gantha, Jaiswal, Manja Ppallan and Arunachalam, "Path Aware Transport
Layer Solution for Mobile Networks", IEEE Access; ../shared/papers/pat-path-aware-transport.txt):
the paper's simulator experiments beside pathpool's (docs/reproductions/pat.md, issue 16).

PAT is the controller ``kind = "pat"`` driving a fetch session (docs/pat.md);
the baseline is the fetch session's ``policy = "default"`` (an Android phone:
the first address of its resolver's answer over Wi-Fi). Experiments:

- ``fig11``: five mirrors whose RTTs change over time, downloads of 4, 16, 64
  and 128 MB in 1 MB range requests, with PAT, with the default policy, and
  as one MPTCP connection (full mesh over Wi-Fi and 5G) to the default's
  mirror (§VIII-A, Fig. 11);
- ``population``: a synthetic population of domains whose mirror RTTs are
  drawn so that the paper's Figs. 7-9 (Z, gamma, cellular edge mirrors) hold
  by construction: those are inputs. Results: the direct RTT reduction
  (Fig. 12) and the throughput gain, measured and by eq. 10 (Fig. 13);
- ``overhead``: the phone's packets and bytes with and without PAT for the
  same downloads, against PAT's probe period and connection count (Fig. 15).

Every parameter the paper leaves out is a constant below, stated in the doc.
Every finished run is cached in results/pat/cache.jsonl (an interrupted run
resumes; --fresh starts over). Writes results/pat/report.md and plots;
--quick runs a fast subset (report-quick.md).

Usage:  python validation/pat_paper.py [--quick] [--fresh] [--only fig11,population,overhead] [--jobs 2]
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = REPO / "results" / "pat"
MB = 1_000_000

# ---- settings chosen (the paper's Fig. 10 lists its ns-3 parameters in an image we do not have) ----

# Access: Wi-Fi (802.11ac, one 80 MHz stream's usable TCP rate) and 5G mmWave at
# the same rate, so that what PAT gains is its choice of mirror and path by RTT
# (the paper's claim), not a faster radio; the default policy uses Wi-Fi.
WIFI_RATE, NR_RATE = "200Mbps", "200Mbps"
WIFI_AIR, NR_AIR = 2.0, 1.0                  # one-way ms, phone to AP / gNB
BACKHAUL = 5.0                               # one-way ms, AP and gNB (UPF) to the internet router
# Drop-tail queues of one bandwidth-delay product at 50 ms on the radio links
# (Wi-Fi drivers and base stations buffer deeply; bufferbloat is the rule).
RADIO_QUEUE_BYTES = 200e6 / 8 * 0.050
# Fig. 11's five mirrors: where each sits and the range of its access link's
# one-way delay (ms). Every STEP seconds each draws a new delay uniformly from
# its range (seeded), so the RTT-best mirror and interface change over time.
MIRRORS = {
    "m1": ("gnb", (1.0, 20.0)),       # a 5G edge (MEC) server
    "m2": ("gnb", (5.0, 25.0)),       # in the operator's core
    "m3": ("ap", (1.0, 20.0)),        # the Wi-Fi ISP's cache
    "m4": ("ap", (5.0, 25.0)),        # the Wi-Fi ISP's network
    "m5": ("internet", (10.0, 30.0)),  # the origin, across the internet
}
STEP = 2.0
# The resolver answers by the network the query comes from (dns.md,
# by_interface): a CDN maps a Wi-Fi client to its ISP's servers first, a 5G
# client to the operator's edge first. The default policy connects to the
# first address of the Wi-Fi answer (m3 over wlan0).
ANSWER_WIFI = ["m3", "m4", "m5", "m1", "m2"]
ANSWER_NR = ["m1", "m2", "m5", "m3", "m4"]
DNS_TTL = "300s"
# Downloads: the paper's sizes, in 1 MB byte-range requests, one outstanding
# (HTTP/1.1 without pipelining, as browsers and Android's HTTP stacks do).
FIG11_SIZES = (4, 16, 64, 128)
CHUNK = "1MB"
FIG11_SEEDS = tuple(range(1, 11))   # ten delay schedules per size
# Servers: Linux's default congestion control; the phone ACKs every segment.
TCP = {"cc": "cubic"}
# MPTCP as mainline Linux runs it: uncoupled CUBIC subflows, minRTT scheduler,
# full mesh from the phone's Wi-Fi (the initial subflow) and 5G to one mirror.
MPTCP = {"coupling": "uncoupled", "scheduler": "minrtt", "path_manager": "fullmesh", "initial": "phone:wlan0"}
# PAT with its defaults (docs/pat.md): decision period 1 s, no hysteresis (the
# printed rule), activity-gated probes, at most 16 connections.
PAT_PARAMS = {"resolvers": "local"}

PAPER = {
    "fig11": "6-33 % less download time (§VIII-A); the abstract says up to 20 %, the conclusion 12-18 %",
    "fig12": "RTT up to 15 % lower (live air, a direct comparison)",
    "fig13": "throughput gain Δ_tp up to 20 % (eq. 10, 50 trials; the text: 5-20 %)",
    "fig14": "page load time up to 29 % lower",
    "fig15": "+0.88 % packets over 2 minutes of one app (Naver)",
}


# ---- Fig. 11's network --------------------------------------------------------------------------

def delay_schedule(seed: int, mirror: str, lo: float, hi: float, duration: float) -> list[list[str]]:
    """The mirror's one-way access delay, a new uniform draw every STEP seconds."""
    rng = random.Random(f"fig11/{seed}/{mirror}")
    steps = int(math.ceil(duration / STEP))
    return [[f"{i * STEP:g}s", f"{rng.uniform(lo, hi):.2f}ms"] for i in range(steps)]


def fig11_network(seed: int, duration: float) -> dict:
    """The phone (wlan0, nr0), a Wi-Fi AP and a gNB joined by an internet
    router, five mirrors with changing delays, and a resolver."""
    nodes = [{"name": "phone"}] + [{"name": n, "kind": "router"} for n in ("ap", "gnb", "internet")]
    nodes += [{"name": m} for m in MIRRORS] + [{"name": "dns"}]
    q = int(RADIO_QUEUE_BYTES)
    links = [
        {"name": "wifi", "a": "phone:wlan0", "b": "ap", "rate": WIFI_RATE, "delay": f"{WIFI_AIR:g}ms", "queue_bytes": q},
        {"name": "nr", "a": "phone:nr0", "b": "gnb", "rate": NR_RATE, "delay": f"{NR_AIR:g}ms", "queue_bytes": q},
        {"name": "ap-internet", "a": "ap", "b": "internet", "rate": "1Gbps", "delay": f"{BACKHAUL:g}ms", "queue": 2000},
        {"name": "gnb-internet", "a": "gnb", "b": "internet", "rate": "1Gbps", "delay": f"{BACKHAUL:g}ms", "queue": 2000},
        {"name": "dns-internet", "a": "dns", "b": "internet", "rate": "1Gbps", "delay": "1ms"},
    ]
    for m, (site, (lo, hi)) in MIRRORS.items():
        links.append({"name": f"{m}-{site}", "a": m, "b": site, "rate": "1Gbps", "queue": 2000,
                      "delay": {"schedule": delay_schedule(seed, m, lo, hi, duration)}})
    resolver = {"name": "local", "node": "dns",
                "domains": {"cdn.example": {"mirrors": ANSWER_WIFI, "ttl": DNS_TTL, "by_interface": {"nr0": ANSWER_NR}}}}
    return {"nodes": nodes, "links": links, "resolvers": [resolver]}


def fig11_duration(size_mb: int) -> float:
    """Long enough for the slowest scheme: 200 Mb/s plus a round trip of at most 0.1 s per 1 MB range, doubled."""
    return 2 * (size_mb * MB * 8 / 200e6 + size_mb * 0.1) + 5


def fig11_scenario(size_mb: int, scheme: str, seed: int, pat: dict | None = None) -> dict:
    """``scheme``: ``pat``, ``default`` or ``mptcp``; ``pat`` overrides PAT's parameters."""
    duration = fig11_duration(size_mb)
    doc = {"sim": {"duration": f"{duration:g}s", "seed": seed, "sample_interval": "1s"}, **fig11_network(seed, duration)}
    return with_download(doc, size_mb, scheme, pat, "cdn.example", list(MIRRORS), mptcp_mirror=ANSWER_WIFI[0])


def with_download(doc: dict, size_mb: float, scheme: str, pat: dict | None, domain: str, mirrors: list[str], mptcp_mirror: str) -> dict:
    """Adds the download of ``size_mb`` MB by ``scheme`` to a network."""
    size = int(size_mb * MB)
    chunk = int(size_bytes(CHUNK))
    if scheme == "mptcp":
        # One MPTCP connection to the default's mirror, the same 1 MB requests one after another.
        doc["flows"] = [{"name": "dl", "src": mptcp_mirror, "dst": "phone", "client": "dst", "transport": "mptcp", "tcp": TCP,
                         "mptcp": MPTCP, "app": {"kind": "download", "size": chunk, "count": size // chunk}}]
        return doc
    doc["contents"] = [{"name": "object", "bytes": size, "mirrors": mirrors, "domain": domain}]
    doc["fetches"] = [{"name": "dl", "client": "phone", "content": "object", "chunk": CHUNK, "prefer": "wlan0", "tcp": TCP,
                       "policy": "controller" if scheme == "pat" else "default"}]
    if scheme == "pat":
        doc["controllers"] = [{"host": "phone", "kind": "pat", "sample_interval": "0s", "params": {**PAT_PARAMS, **(pat or {})}}]
    return doc


def size_bytes(text: str) -> float:
    units = {"kB": 1e3, "MB": 1e6, "GB": 1e9, "B": 1}
    for u, f in units.items():
        if text.endswith(u):
            return float(text[: -len(u)]) * f
    return float(text)


# ---- measuring a run ----------------------------------------------------------------------------

def measure(doc: dict) -> dict:
    """Download time, the path mix and the phone's traffic of one run."""
    import pathpool
    t0 = time.monotonic()
    r = pathpool.run(doc)
    wall = time.monotonic() - t0
    ifs = r.frame("interfaces")
    phone = ifs[ifs["node"] == "phone"]
    out = {"wall_s": wall,
           "packets": int(phone["packets_sent"].sum() + phone["packets_received"].sum()),
           "bytes": int(phone["bytes_sent"].sum() + phone["bytes_received"].sum()),
           "by_interface": {i: int(b) for i, b in zip(phone["interface"], phone["bytes_received"])}}
    dns = r.frame("dns") if "dns" in r.tables else None
    out["lookup_s"] = float(dns["query_time_s"].min()) if dns is not None and len(dns) else 0.0
    if "fetches" in r.tables and len(r.frame("fetches")):
        f = r.frame("fetches").iloc[0]
        out.update(completion_s=none_if_nan(f["completion_s"]), remaps=int(f["remaps"]), connections=int(f["connections"]),
                   probes=int(f["probes"]), probe_bytes=int(f["probe_bytes"]), error=f["error"] or "")
        q = r.frame("fetch_requests")
        ranges = q[q["kind"] == "range"]
        mix: dict[str, int] = {}
        for m, i, b in zip(ranges["mirror"], ranges["interface"], ranges["bytes"]):
            mix[f"{m}/{i}"] = mix.get(f"{m}/{i}", 0) + int(b)
        out["mix"] = mix
        ttfb = (ranges["first_byte_s"] - ranges["sent_s"]).dropna()
        out["ttfb_mean_s"] = float(ttfb.mean()) if len(ttfb) else None
        out["ranges"] = int(len(ranges))
    else:
        a = r.frame("apps").iloc[0]
        out.update(completion_s=none_if_nan(a["completion_s"]), error="")
        fl = r.flows.iloc[0]
        out["rtt_mean_s"] = none_if_nan(fl["rtt_mean_s"])
    return out


def none_if_nan(x) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


# ---- the run cache ------------------------------------------------------------------------------

class Cache:
    """Finished runs, one JSON object per line, keyed by a string; runs not
    yet cached are run ``jobs`` at a time."""

    def __init__(self, path: Path, fresh: bool, jobs: int):
        self.path, self.jobs, self.ran, self.done = path, jobs, 0, {}
        path.parent.mkdir(parents=True, exist_ok=True)
        if fresh and path.exists():
            path.unlink()
        if path.exists():
            for line in path.read_text().splitlines():
                if line.strip():
                    rec = json.loads(line)
                    self.done[rec["key"]] = rec["value"]

    def run(self, jobs: dict[str, dict]) -> dict[str, dict]:
        """``jobs``: key -> scenario. Returns key -> measurement."""
        todo = {k: doc for k, doc in jobs.items() if k not in self.done}
        if todo:
            with cf.ProcessPoolExecutor(max_workers=self.jobs) as pool:
                futures = {pool.submit(measure, doc): k for k, doc in todo.items()}
                for f in cf.as_completed(futures):
                    k, v = futures[f], f.result()
                    self.done[k] = v
                    self.ran += 1
                    print(f"  ran {k}: {v['wall_s']:.1f} s wall", file=sys.stderr, flush=True)
                    with self.path.open("a") as fh:
                        fh.write(json.dumps({"key": k, "value": v}) + "\n")
        return {k: self.done[k] for k in jobs}


# ---- report helpers -----------------------------------------------------------------------------

def md_table(header: list[str], rows: list[list]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]


def pct(x: float) -> str:
    return f"{100 * x:+.1f} %"


# ---- Fig. 11 ------------------------------------------------------------------------------------

def fig11_keys(quick: bool) -> list[tuple[int, int]]:
    sizes = (4, 16) if quick else FIG11_SIZES
    seeds = FIG11_SEEDS[:2] if quick else FIG11_SEEDS
    return [(s, seed) for s in sizes for seed in seeds]


def run_fig11(cache: Cache, quick: bool) -> dict:
    jobs = {f"fig11/{scheme}/{s}MB/seed{seed}": fig11_scenario(s, scheme, seed)
            for s, seed in fig11_keys(quick) for scheme in ("pat", "default", "mptcp")}
    res = cache.run(jobs)
    return {(scheme, s, seed): res[f"fig11/{scheme}/{s}MB/seed{seed}"] for s, seed in fig11_keys(quick) for scheme in ("pat", "default", "mptcp")}


def fig11_report(res: dict, quick: bool) -> list[str]:
    rows, sizes = [], sorted({k[1] for k in res})
    for s in sizes:
        seeds = sorted(k[2] for k in res if k[0] == "pat" and k[1] == s)
        t = {sch: [res[(sch, s, sd)]["completion_s"] for sd in seeds] for sch in ("pat", "default", "mptcp")}
        # MPTCP's flow starts at 0 without a lookup: add the default's lookup time, for like with like.
        t["mptcp"] = [x + res[("default", s, sd)]["lookup_s"] for x, sd in zip(t["mptcp"], seeds)]
        gain = [1 - p / d for p, d in zip(t["pat"], t["default"])]
        vs_mptcp = [1 - p / m for p, m in zip(t["pat"], t["mptcp"])]
        remaps = [res[("pat", s, sd)]["remaps"] for sd in seeds]
        nr_share = [res[("pat", s, sd)]["by_interface"].get("nr0", 0) / sum(res[("pat", s, sd)]["by_interface"].values()) for sd in seeds]
        rows.append([f"{s} MB", f"{statistics.mean(t['default']):.2f}", f"{statistics.mean(t['pat']):.2f}", f"{statistics.mean(t['mptcp']):.2f}",
                     f"{100 * statistics.mean(gain):.1f} % ({100 * min(gain):.0f} to {100 * max(gain):.0f})",
                     f"{100 * statistics.mean(vs_mptcp):+.1f} % ({100 * min(vs_mptcp):+.0f} to {100 * max(vs_mptcp):+.0f})",
                     f"{statistics.mean(remaps):.1f}", f"{100 * statistics.mean(nr_share):.0f} %"])
    out = [f"Five mirrors whose access delays are redrawn every {STEP:g} s; 1 MB range requests; means over {len(seeds)} delay schedules "
           f"(seeds {', '.join(map(str, seeds))}); download time in seconds from the session's start (DNS lookup included). "
           "PAT's gain: 1 − PAT / default, mean (lowest to highest schedule). PAT vs MPTCP: 1 − PAT / MPTCP (positive: PAT faster).", ""]
    out += md_table(["size", "default (s)", "PAT (s)", "MPTCP full mesh to m3 (s)", "PAT's gain over default", "PAT vs MPTCP", "PAT remaps", "PAT bytes over 5G"], rows)
    return out + ["", f"Paper: {PAPER['fig11']}.", ""]


# ---- Figs. 12-13: a synthetic population of domains -------------------------------------------

# Inputs, drawn per domain and trial so that the paper's live-air Figs. 7-9 hold
# (they are not results here). Fig. 7: Z_i, the share of trials in which the
# default server (first address of the Wi-Fi answer) is the best, ~ N(mu, sigma)
# clipped to [Z_MIN, Z_MAX] (>70 % of domains below 0.35, the largest 0.48).
Z_MU, Z_SIGMA, Z_MIN, Z_MAX = 0.26, 0.09, 0.02, 0.48
# Fig. 8: in a trial where another path is best, gamma = RTT_best / RTT_default
# ~ U(GAMMA_LO, b_i), b_i ~ U(GAMMA_HI) per domain: the upper quartile
# GAMMA_LO + 0.75 (b_i - GAMMA_LO) lies in 0.6-0.79, about 0.7.
GAMMA_LO, GAMMA_HI = 0.30, (0.70, 0.95)
# Fig. 9: the best path is a cellular edge mirror (over lte0) in CELL_BEST of
# those trials, another Wi-Fi mirror otherwise.
CELL_BEST = 0.6
# The default path's RTT: a per-domain median ~ log-normal (median 45 ms, sigma
# 0.4), varying by a factor ~ log-normal(0, 0.2) from trial to trial, at least
# 20 ms; every other path between the best and 2.5 x the default.
RTT_MEDIAN_MS, RTT_SIGMA, RTT_TRIAL_SIGMA, RTT_FLOOR_MS, RTT_SPREAD = 45.0, 0.4, 0.2, 20.0, 2.5
MIRRORS_PER_DOMAIN = (3, 5)
# Access: Wi-Fi and LTE rates drawn per trial (uniform, Mb/s), one-way air delays (ms).
POP_WIFI_MBPS, POP_LTE_MBPS = (30.0, 90.0), (20.0, 60.0)
POP_WIFI_AIR, POP_LTE_AIR = 1.5, 4.0
# Each trial: a 4 MB download in 1 MB requests (four 4 s video segments at 2 Mb/s).
POP_SIZE_MB = 4
POP_DOMAINS, POP_TRIALS = 50, 5
POP_QUICK = (8, 2)


def population(domains: int, trials: int, seed: int = 1) -> list[dict]:
    """The synthetic population: per domain its mirrors, Z target and trials,
    each trial the RTT (ms) of every (mirror, interface) path and the rates."""
    rng = random.Random(f"population/{seed}")
    out = []
    for i in range(domains):
        k = rng.randint(*MIRRORS_PER_DOMAIN)
        mirrors = [f"d{i}m{j}" for j in range(k)]
        z = min(max(rng.gauss(Z_MU, Z_SIGMA), Z_MIN), Z_MAX)
        b = rng.uniform(*GAMMA_HI)
        median = RTT_MEDIAN_MS * math.exp(rng.gauss(0, RTT_SIGMA))
        ts = []
        for _ in range(trials):
            paths = [(m, i) for m in mirrors for i in ("wlan0", "lte0")]
            default = (mirrors[0], "wlan0")
            floor = {"wlan0": 2 * POP_WIFI_AIR + 1, "lte0": 2 * POP_LTE_AIR + 1}
            rd = max(median * math.exp(rng.gauss(0, RTT_TRIAL_SIGMA)), RTT_FLOOR_MS)
            rtt = {default: rd}
            if rng.random() < z:
                best, lo = default, rd
            else:
                iface = "lte0" if rng.random() < CELL_BEST else "wlan0"
                best = rng.choice([p for p in paths if p[1] == iface and p != default])
                lo = max(rng.uniform(GAMMA_LO, b) * rd, floor[iface])
                rtt[best] = lo
            for p in paths:
                if p not in rtt:
                    rtt[p] = max(rng.uniform(lo * 1.05, RTT_SPREAD * rd), floor[p[1]] * 1.05)
            ts.append({"rtt": {f"{m}/{i}": v for (m, i), v in rtt.items()}, "best": f"{best[0]}/{best[1]}",
                       "wifi_mbps": rng.uniform(*POP_WIFI_MBPS), "lte_mbps": rng.uniform(*POP_LTE_MBPS)})
        out.append({"domain": f"d{i}.example", "mirrors": mirrors, "z": z, "gamma_hi": b, "trials": ts})
    return out


def population_scenario(d: dict, trial: int, scheme: str) -> dict:
    """One trial of one domain: the phone's Wi-Fi and LTE, each mirror linked
    to the AP and to the eNB with the delay that gives the trial's RTTs."""
    t = d["trials"][trial]
    nodes = [{"name": "phone"}, {"name": "ap", "kind": "router"}, {"name": "enb", "kind": "router"}, {"name": "dns"}]
    nodes += [{"name": m} for m in d["mirrors"]]
    links = []
    for iface, gw, air, rate in (("wlan0", "ap", POP_WIFI_AIR, t["wifi_mbps"]), ("lte0", "enb", POP_LTE_AIR, t["lte_mbps"])):
        links.append({"name": iface, "a": f"phone:{iface}", "b": gw, "rate": f"{rate:.1f}Mbps", "delay": f"{air:g}ms",
                      "queue_bytes": int(max(rate * 1e6 / 8 * 0.05, 150_000))})
        links.append({"name": f"dns-{gw}", "a": "dns", "b": gw, "rate": "1Gbps", "delay": "5ms"})
        for m in d["mirrors"]:
            one_way = t["rtt"][f"{m}/{iface}"] / 2 - air
            links.append({"name": f"{m}-{gw}", "a": m, "b": gw, "rate": "1Gbps", "delay": f"{one_way:.3f}ms", "queue": 2000})
    resolver = {"name": "local", "node": "dns", "domains": {d["domain"]: {"mirrors": d["mirrors"], "ttl": DNS_TTL}}}
    doc = {"sim": {"duration": "30s", "seed": 1, "sample_interval": "1s"}, "nodes": nodes, "links": links, "resolvers": [resolver]}
    return with_download(doc, POP_SIZE_MB, scheme, None, d["domain"], d["mirrors"], mptcp_mirror=d["mirrors"][0])


def pop_keys(quick: bool) -> tuple[list[dict], list[tuple[int, int]]]:
    domains, trials = POP_QUICK if quick else (POP_DOMAINS, POP_TRIALS)
    pop = population(POP_DOMAINS, POP_TRIALS)[:domains]
    return pop, [(i, j) for i in range(domains) for j in range(trials)]


def run_population(cache: Cache, quick: bool) -> dict:
    pop, keys = pop_keys(quick)
    jobs = {f"pop/{scheme}/{i}/{j}": population_scenario(pop[i], j, scheme) for i, j in keys for scheme in ("pat", "default")}
    res = cache.run(jobs)
    return {"pop": pop, "keys": keys, "res": {(s, i, j): res[f"pop/{s}/{i}/{j}"] for i, j in keys for s in ("pat", "default")}}


def quartile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo = int(math.floor(pos))
    return xs[lo] + (xs[min(lo + 1, len(xs) - 1)] - xs[lo]) * (pos - lo)


def population_report(p: dict) -> tuple[list[str], dict]:
    pop, keys, res = p["pop"], p["keys"], p["res"]
    domains = sorted({i for i, _ in keys})
    trials = {i: [j for ii, j in keys if ii == i] for i in domains}
    # The inputs as drawn (what Figs. 7-9 show on the paper's phones).
    z = [statistics.mean(pop[i]["trials"][j]["best"] == f"{pop[i]['mirrors'][0]}/wlan0" for j in trials[i]) for i in domains]
    z_all = [statistics.mean(t["best"] == f"{d['mirrors'][0]}/wlan0" for t in d["trials"]) for d in pop]
    gammas = {i: [min(t["rtt"].values()) / t["rtt"][f"{pop[i]['mirrors'][0]}/wlan0"] for t in pop[i]["trials"]] for i in domains}
    uq_moved = [quartile([g for g in gammas[i] if g < 1], 0.75) for i in domains if any(g < 1 for g in gammas[i])]
    uq_all = [quartile(gammas[i], 0.75) for i in domains]
    moved = [(i, j) for i, j in keys if pop[i]["trials"][j]["best"] != f"{pop[i]['mirrors'][0]}/wlan0"]
    cell_best = statistics.mean(pop[i]["trials"][j]["best"].endswith("/lte0") for i, j in moved) if moved else float("nan")
    # Fig. 9's comparison per domain: the mean RTT of its mirrors over LTE against over Wi-Fi.
    lte_lower = statistics.mean(
        statistics.mean(v for k, v in t["rtt"].items() if k.endswith("/lte0")) < statistics.mean(v for k, v in t["rtt"].items() if k.endswith("/wlan0"))
        for i in domains for t in pop[i]["trials"])
    # Results: per trial, PAT against the default.
    rows, per = [], []
    for i, j in keys:
        a, b = res[("pat", i, j)], res[("default", i, j)]
        t = pop[i]["trials"][j]
        g_in = min(t["rtt"].values()) / t["rtt"][f"{pop[i]['mirrors'][0]}/wlan0"]
        ok = a["completion_s"] and b["completion_s"] and a["ttfb_mean_s"] and b["ttfb_mean_s"]
        if not ok:
            rows.append(f"domain {i} trial {j}: PAT error '{a['error']}', default error '{b['error']}'")
            continue
        tp_ratio = b["completion_s"] / a["completion_s"]           # same bytes: throughput ratio
        per.append({"i": i, "j": j, "rtt_cut": 1 - a["ttfb_mean_s"] / b["ttfb_mean_s"], "tau": tp_ratio, "gamma_in": g_in,
                    "gamma_meas": a["ttfb_mean_s"] / b["ttfb_mean_s"], "remaps": a["remaps"],
                    "on_best": max(a["mix"], key=a["mix"].get) == t["best"]})
    by_dom = {i: [x for x in per if x["i"] == i] for i in domains}
    by_dom = {i: v for i, v in by_dom.items() if v}

    def eq10(field: str, f) -> float:
        """eq. 10's double mean: over domains of the mean over trials."""
        return statistics.mean(statistics.mean(f(x[field]) for x in v) for v in by_dom.values())

    s = {"rtt_cut_mean": eq10("rtt_cut", lambda v: v), "rtt_cut_max_domain": max(statistics.mean(x["rtt_cut"] for x in v) for v in by_dom.values()),
         "tp_measured": eq10("tau", lambda v: v - 1), "tp_eq10_inputs": eq10("gamma_in", lambda g: 1 / g - 1),
         "tp_eq10_measured_rtt": eq10("gamma_meas", lambda g: 1 / g - 1),
         "tp_max_domain": max(statistics.mean(x["tau"] - 1 for x in v) for v in by_dom.values()),
         "on_best": statistics.mean(x["on_best"] for x in per), "per": per}
    # Eq. 8: throughput ratio against 1/gamma, trial by trial.
    ratio = [x["tau"] * x["gamma_in"] for x in per]
    out = [f"{len(domains)} domains × {len(trials[domains[0]])} trials, each a {POP_SIZE_MB} MB download in {CHUNK} requests, PAT and the default "
           "from the same empty DNS cache. **Inputs** (drawn so that the paper's live-air Figs. 7–9 hold; not results):", ""]
    out += md_table(["input", "paper", "drawn (this run's trials)", "drawn (all trials of the population)"], [
        ["Fig. 7: Z < 0.35", "> 70 % of domains", f"{100 * statistics.mean(x < 0.35 for x in z):.0f} %", f"{100 * statistics.mean(x < 0.35 for x in z_all):.0f} %"],
        ["Fig. 7: largest Z", "0.48", f"{max(z):.2f}", f"{max(z_all):.2f}"],
        ["Fig. 8: γ's upper quartile, trials where another path is best", "≈ 0.7 for many domains",
         f"median {statistics.median(uq_moved):.2f}, {100 * statistics.mean(0.6 <= u <= 0.8 for u in uq_moved):.0f} % of domains in 0.6–0.8", ""],
        ["Fig. 8: γ's upper quartile, all trials (γ = 1 when the default is best)", "", f"median {statistics.median(uq_all):.2f}", ""],
        ["Fig. 9: best path over LTE, trials where the default is not best", "most domains", f"{100 * cell_best:.0f} %", ""],
        ["Fig. 9: mirrors' mean RTT lower over LTE than over Wi-Fi", "most domains", f"{100 * lte_lower:.0f} % of trials", ""],
    ])
    out += ["", "**Results**:", ""]
    out += md_table(["figure", "paper", "measured", "how"], [
        ["Fig. 12: RTT reduction", "up to 15 %", f"{100 * s['rtt_cut_mean']:.1f} % mean (domains' means up to {100 * s['rtt_cut_max_domain']:.0f} %)",
         "1 − PAT's mean time to first byte of its ranges / the default's (request/response round trips, a direct comparison)"],
        ["Fig. 13: Δ_tp measured", "up to 20 % (5–20 %)", f"{100 * s['tp_measured']:.1f} % (domains' means up to {100 * s['tp_max_domain']:.0f} %)",
         "eq. 10's double mean of τ − 1 with τ = the measured throughput ratio (default time / PAT time, same bytes)"],
        ["Fig. 13: Δ_tp by eq. 10", "up to 20 %", f"{100 * s['tp_eq10_inputs']:.1f} % (drawn RTTs); {100 * s['tp_eq10_measured_rtt']:.1f} % (measured RTTs)",
         "τ = 1/γ (eq. 9), γ from the drawn path RTTs, or from the measured times to first byte"],
    ])
    out += ["", f"PAT carried most of its bytes on the best path in {100 * s['on_best']:.0f} % of trials; "
            f"eq. 8's check, measured τ · γ (1 if throughput ∝ 1/RTT): median {statistics.median(ratio):.2f}, "
            f"quartiles {quartile(ratio, 0.25):.2f}–{quartile(ratio, 0.75):.2f}."]
    out += [""] + rows + ([""] if rows else [])
    return out, s


# ---- Fig. 15: overhead --------------------------------------------------------------------------

OVERHEAD_SIZE_MB = 16
OVERHEAD_PERIODS = ("250ms", "500ms", "1s", "2s")
OVERHEAD_CONNECTIONS = (2, 4, 10)


def overhead_grid(quick: bool) -> list[tuple[str, int, int]]:
    seeds = FIG11_SEEDS[:1] if quick else FIG11_SEEDS[:3]
    periods = ("500ms", "1s") if quick else OVERHEAD_PERIODS
    conns = (2, 10) if quick else OVERHEAD_CONNECTIONS
    return [(p, c, sd) for p in periods for c in conns for sd in seeds]


def run_overhead(cache: Cache, quick: bool) -> dict:
    grid = overhead_grid(quick)
    seeds = sorted({g[2] for g in grid})
    jobs = {f"fig11/default/{OVERHEAD_SIZE_MB}MB/seed{sd}": fig11_scenario(OVERHEAD_SIZE_MB, "default", sd) for sd in seeds}
    jobs.update({f"overhead/{p}/{c}/{OVERHEAD_SIZE_MB}MB/seed{sd}": fig11_scenario(OVERHEAD_SIZE_MB, "pat", sd, {"period": p, "max_connections": c})
                 for p, c, sd in grid})
    res = cache.run(jobs)
    return {"grid": grid, "res": res}


def overhead_report(o: dict) -> list[str]:
    grid, res = o["grid"], o["res"]
    rows = []
    for p, c in dict.fromkeys((g[0], g[1]) for g in grid):
        seeds = [g[2] for g in grid if g[:2] == (p, c)]
        pat = [res[f"overhead/{p}/{c}/{OVERHEAD_SIZE_MB}MB/seed{sd}"] for sd in seeds]
        dflt = [res[f"fig11/default/{OVERHEAD_SIZE_MB}MB/seed{sd}"] for sd in seeds]
        dp = statistics.mean(a["packets"] / b["packets"] - 1 for a, b in zip(pat, dflt))
        db = statistics.mean(a["bytes"] / b["bytes"] - 1 for a, b in zip(pat, dflt))
        probe_share = statistics.mean(a["probe_bytes"] / (OVERHEAD_SIZE_MB * MB) for a in pat)
        rows.append([p, c, f"{statistics.mean(a['connections'] for a in pat):.1f}", f"{statistics.mean(a['probes'] for a in pat):.0f}",
                     f"{statistics.mean(a['packets'] for a in pat):.0f} / {statistics.mean(b['packets'] for b in dflt):.0f}", pct(dp),
                     pct(db), f"{100 * probe_share:.3f} %",
                     f"{statistics.mean(a['completion_s'] for a in pat):.2f} / {statistics.mean(b['completion_s'] for b in dflt):.2f}"])
    out = [f"The phone's packets and wire bytes (both interfaces, sent + received, DNS included) for Fig. 11's {OVERHEAD_SIZE_MB} MB download, "
           f"PAT against the default on the same delay schedules (seeds {', '.join(map(str, sorted({g[2] for g in grid})))}); "
           "PAT's decision period is also its probe period. Probe bytes: request + response payload over the content's bytes.", ""]
    out += md_table(["period", "max_connections", "connections opened", "probes", "packets PAT / default", "packets", "bytes", "probe bytes",
                     "download time PAT / default (s)"], rows)
    return out + ["", f"Paper: {PAPER['fig15']}.", ""]


# ---- main ---------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a fast subset (about a minute): report-quick.md")
    ap.add_argument("--fresh", action="store_true", help="forget cached runs")
    ap.add_argument("--only", default="fig11,population,overhead", help="comma-separated experiments")
    ap.add_argument("--jobs", type=int, default=2, help="runs at once")
    args = ap.parse_args(argv)
    cache = Cache(OUT / "cache.jsonl", args.fresh, args.jobs)
    want = set(args.only.split(","))
    t0 = time.monotonic()
    parts = ["# PAT: pathpool beside the paper (generated by `make pat`)", ""]
    body: list[str] = []
    if "fig11" in want:
        body += ["## Fig. 11: download time, five mirrors with changing RTTs", ""] + fig11_report(run_fig11(cache, args.quick), args.quick)
    if "population" in want:
        text, _ = population_report(run_population(cache, args.quick))
        body += ["## Figs. 12–13: a synthetic population of domains", ""] + text
    if "overhead" in want:
        body += ["## Fig. 15: overhead against probe period and connections", ""] + overhead_report(run_overhead(cache, args.quick))
    parts += [f"{'Quick subset. ' if args.quick else ''}Runs this time: {cache.ran} ({time.monotonic() - t0:.0f} s wall); cached: {len(cache.done)}.", ""]
    report = "\n".join(parts + body)
    (OUT / ("report-quick.md" if args.quick else "report.md")).write_text(report)
    print(report)


if __name__ == "__main__":
    main()
