#!/usr/bin/env python3
"""PAT (Gantha, Jaiswal, Manja Ppallan and Arunachalam, "Path Aware Transport
Layer Solution for Mobile Networks", IEEE Access; ../shared/papers/pat-path-aware-transport.txt):
the paper's simulator experiments beside pathpool's (docs/reproductions/pat.md, issue 16).

PAT is the controller ``kind = "pat"`` driving a fetch session (docs/pat.md);
the baseline is the fetch session's ``policy = "default"`` (an Android phone:
the first address of its resolver's answer over Wi-Fi). Experiments:

- ``fig10``: three UEs walking from a 5G base station to a Wi-Fi AP past a
  building that blocks mmWave, UE1 with PAT over both, UE2 and UE3 on one
  radio and one mirror each, through the cell model (§VIII-A, Fig. 10);
- ``fig11``: five mirrors whose RTTs change over time, downloads of 4, 16, 64
  and 128 MB in 1 MB range requests, with PAT, with the default policy, and
  as one MPTCP connection (full mesh over Wi-Fi and 5G) to the default's
  mirror (§VIII-A, Fig. 11);
- ``population``: a synthetic population of domains whose mirror RTTs are
  drawn so that the paper's Figs. 7-9 (Z, gamma, cellular edge mirrors) hold
  by construction: those are inputs. Results: the direct RTT reduction
  (Fig. 12) and the throughput gain, measured and by eq. 10 (Fig. 13);
- ``fig14``: HTTP Archive's median page loaded from two of the population's
  domains (an origin and a CDN) with PAT and as a browser does (6
  connections per server), page load time (§VIII-B, Fig. 14);
- ``overhead``: the phone's packets and bytes with and without PAT for the
  same downloads, against PAT's probe period and connection count (Fig. 15).

Every parameter the paper leaves out is a constant below, stated in the doc.
Every finished run is cached in results/pat/cache.jsonl (validation/cache.py:
an interrupted run resumes, a rebuilt simulator runs again; --fresh starts over). Writes results/pat/report.md and plots;
--quick runs a fast subset (report-quick.md).

Usage:  python validation/pat_paper.py [--quick] [--fresh] [--only fig10,fig11,population,fig14,overhead] [--jobs 2]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

from cache import RunCache

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
    "fig14": "page load time reduced \"consistently up-to 29 %\" (live air, e-commerce, weather and news apps)",
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


def fig11_scenario(size_mb: int, scheme: str, seed: int, pat: dict | None = None, tcp: dict = TCP) -> dict:
    """``scheme``: ``pat``, ``default`` or ``mptcp``; ``pat`` overrides PAT's parameters, ``tcp`` the servers' TCP."""
    duration = fig11_duration(size_mb)
    doc = {"sim": {"duration": f"{duration:g}s", "seed": seed, "sample_interval": "1s"}, **fig11_network(seed, duration)}
    return with_download(doc, size_mb, scheme, pat, "cdn.example", list(MIRRORS), mptcp_mirror=ANSWER_WIFI[0], tcp=tcp)


def with_download(doc: dict, size_mb: float, scheme: str, pat: dict | None, domain: str, mirrors: list[str], mptcp_mirror: str,
                  tcp: dict = TCP) -> dict:
    """Adds the download of ``size_mb`` MB by ``scheme`` to a network."""
    size = int(size_mb * MB)
    chunk = int(size_bytes(CHUNK))
    if scheme == "mptcp":
        # One MPTCP connection to the default's mirror, the same 1 MB requests one after another.
        doc["flows"] = [{"name": "dl", "src": mptcp_mirror, "dst": "phone", "client": "dst", "transport": "mptcp", "tcp": tcp,
                         "mptcp": MPTCP, "app": {"kind": "download", "size": chunk, "count": size // chunk}}]
        return doc
    doc["contents"] = [{"name": "object", "bytes": size, "mirrors": mirrors, "domain": domain}]
    doc["fetches"] = [{"name": "dl", "client": "phone", "content": "object", "chunk": CHUNK, "prefer": "wlan0", "tcp": tcp,
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
                   probes=int(f["probes"]), probe_bytes=int(f["probe_bytes"]), discarded=int(f["discarded_bytes"]), error=f["error"] or "")
        q = r.frame("fetch_requests")
        ranges = q[q["kind"] == "range"]
        mix: dict[str, int] = {}
        for m, i, b in zip(ranges["mirror"], ranges["interface"], ranges["bytes"]):
            mix[f"{m}/{i}"] = mix.get(f"{m}/{i}", 0) + int(b)
        out["mix"] = mix
        ttfb = (ranges["first_byte_s"] - ranges["sent_s"]).dropna()
        out["ttfb_mean_s"] = float(ttfb.mean()) if len(ttfb) else None
    else:
        a = r.frame("apps").iloc[0]
        out.update(completion_s=none_if_nan(a["completion_s"]), error="")
    return out


def none_if_nan(x) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


# ---- running ------------------------------------------------------------------------------------

def run_all(cache: RunCache, jobs: dict[str, dict], how=measure) -> dict[str, dict]:
    """``jobs``: name -> scenario, measured by ``how``, through the run cache (validation/cache.py)."""
    return cache.map(how, {name: (doc,) for name, doc in jobs.items()})


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


# Variants for the large downloads, where a remap matters: the printed rule
# with a hysteresis (docs/pat.md), and every scheme with NewReno servers
# (no HyStart: a connection PAT moves to leaves slow start only at a loss).
FIG11_VARIANTS = {"hysteresis 0.1": ({"hysteresis": 0.1}, TCP), "NewReno servers": (None, {"cc": "newreno"})}
FIG11_VARIANT_SIZES = (64, 128)
# Ours, not the paper's (docs/pat.md): a remap also moves the rest of the range
# under way (remap_at = "resume"); every size and schedule.
RESUME = "resume"


def fig11_key(scheme: str, size: int, seed: int, variant: str | None = None) -> str:
    return f"fig11/{scheme}/{size}MB/seed{seed}" + (f"/{variant}" if variant else "")


def run_fig11(cache: RunCache, quick: bool) -> dict:
    schemes = ("pat", "default", "mptcp")
    jobs = {fig11_key(sch, s, sd): fig11_scenario(s, sch, sd) for s, sd in fig11_keys(quick) for sch in schemes}
    if not quick:
        for v, (pat, tcp) in FIG11_VARIANTS.items():
            for s, sd in fig11_keys(quick):
                if s in FIG11_VARIANT_SIZES:
                    # Hysteresis changes PAT only; NewReno changes every scheme.
                    for sch in (("pat",) if tcp is TCP else schemes):
                        jobs[fig11_key(sch, s, sd, v)] = fig11_scenario(s, sch, sd, pat, tcp)
        for s, sd in fig11_keys(quick):
            jobs[fig11_key("pat", s, sd, RESUME)] = fig11_scenario(s, "pat", sd, {"remap_at": "resume"})
    return run_all(cache, jobs)


def fig11_times(res: dict, size: int, seeds: list[int], variant: str | None = None) -> dict[str, list[float]]:
    """Download times per scheme; MPTCP's flow starts at 0 without a lookup, so
    the default's lookup time is added to it, for like with like."""
    get = lambda sch, sd, v: res[fig11_key(sch, size, sd, v)]
    tcp_variant = variant if variant and FIG11_VARIANTS[variant][1] is not TCP else None
    t = {"pat": [get("pat", sd, variant)["completion_s"] for sd in seeds],
         "default": [get("default", sd, tcp_variant)["completion_s"] for sd in seeds],
         "mptcp": [get("mptcp", sd, tcp_variant)["completion_s"] + get("default", sd, tcp_variant)["lookup_s"] for sd in seeds]}
    return t


def fig11_report(res: dict, quick: bool) -> list[str]:
    keys = fig11_keys(quick)
    sizes = sorted({s for s, _ in keys})
    seeds = sorted({sd for _, sd in keys})
    rows = []
    for s in sizes:
        t = fig11_times(res, s, seeds)
        gain = [1 - p / d for p, d in zip(t["pat"], t["default"])]
        vs_mptcp = [1 - p / m for p, m in zip(t["pat"], t["mptcp"])]
        pats = [res[fig11_key("pat", s, sd)] for sd in seeds]
        nr_share = [a["by_interface"].get("nr0", 0) / sum(a["by_interface"].values()) for a in pats]
        rows.append([f"{s} MB", f"{statistics.mean(t['default']):.2f}", f"{statistics.mean(t['pat']):.2f}", f"{statistics.mean(t['mptcp']):.2f}",
                     f"{100 * statistics.mean(gain):.1f} % ({100 * min(gain):.0f} to {100 * max(gain):.0f})",
                     f"{sum(g > 0.005 for g in gain)} / {sum(g < -0.005 for g in gain)}",
                     f"{100 * statistics.mean(vs_mptcp):+.1f} % ({100 * min(vs_mptcp):+.0f} to {100 * max(vs_mptcp):+.0f})",
                     f"{statistics.mean(a['remaps'] for a in pats):.1f}", f"{100 * statistics.mean(nr_share):.0f} %"])
    out = [f"Five mirrors whose access delays are redrawn every {STEP:g} s; {CHUNK} range requests; means over {len(seeds)} delay schedules "
           f"(seeds {seeds[0]}–{seeds[-1]}); download time in seconds from the session's start (DNS lookup included). "
           "PAT's gain: 1 − PAT / default, mean (lowest to highest schedule). PAT vs MPTCP: 1 − PAT / MPTCP (positive: PAT faster).", ""]
    out += md_table(["size", "default (s)", "PAT (s)", "MPTCP full mesh to m3 (s)", "PAT's gain over default", "schedules PAT faster / slower",
                     "PAT vs MPTCP", "PAT remaps", "PAT bytes over 5G"], rows)
    if not quick:
        vrows = []
        for v in FIG11_VARIANTS:
            for s in FIG11_VARIANT_SIZES:
                t = fig11_times(res, s, seeds, v)
                gain = [1 - p / d for p, d in zip(t["pat"], t["default"])]
                vs_mptcp = [1 - p / m for p, m in zip(t["pat"], t["mptcp"])]
                remaps = statistics.mean(res[fig11_key("pat", s, sd, v)]["remaps"] for sd in seeds)
                vrows.append([v, f"{s} MB", f"{statistics.mean(t['default']):.2f}", f"{statistics.mean(t['pat']):.2f}", f"{statistics.mean(t['mptcp']):.2f}",
                              f"{100 * statistics.mean(gain):.1f} % ({100 * min(gain):.0f} to {100 * max(gain):.0f})",
                              f"{100 * statistics.mean(vs_mptcp):+.1f} %", f"{remaps:.1f}"])
        out += ["", "Variants (the same schedules): PAT with a 10 % hysteresis; every scheme with NewReno servers instead of CUBIC.", ""]
        out += md_table(["variant", "size", "default (s)", "PAT (s)", "MPTCP (s)", "PAT's gain over default", "PAT vs MPTCP", "PAT remaps"], vrows)
        out += ["", "PAT with `remap_at = \"resume\"` (ours, not the paper's: a remap also moves the rest of the range under way, "
                "the old connection drains it and the client discards it) beside PAT as printed (`request`), the same schedules.", ""]
        out += md_table(["size", "default (s)", "PAT request (s)", "PAT resume (s)", "resume's gain over default", "resume vs request",
                         "schedules resume faster / slower than request", "remaps (request, resume)", "discarded per download (MB)"],
                        [fig11_resume_row(res, s, seeds) for s in sizes])
    return out + ["", f"Paper: {PAPER['fig11']}.", ""]


def fig11_resume_row(res: dict, size: int, seeds: list[int]) -> list[str]:
    """One size of the resume table: PAT with remap_at = resume beside PAT as printed."""
    t = fig11_times(res, size, seeds)
    resumed = [res[fig11_key("pat", size, sd, RESUME)] for sd in seeds]
    r = [a["completion_s"] for a in resumed]
    gain = [1 - x / d for x, d in zip(r, t["default"])]
    vs = [1 - x / p for x, p in zip(r, t["pat"])]
    remaps = statistics.mean(res[fig11_key("pat", size, sd)]["remaps"] for sd in seeds), statistics.mean(a["remaps"] for a in resumed)
    return [f"{size} MB", f"{statistics.mean(t['default']):.2f}", f"{statistics.mean(t['pat']):.2f}", f"{statistics.mean(r):.2f}",
            f"{100 * statistics.mean(gain):.1f} % ({100 * min(gain):.0f} to {100 * max(gain):.0f})",
            f"{100 * statistics.mean(vs):+.1f} % ({100 * min(vs):+.0f} to {100 * max(vs):+.0f})",
            f"{sum(v > 0.005 for v in vs)} / {sum(v < -0.005 for v in vs)}", f"{remaps[0]:.1f}, {remaps[1]:.1f}",
            f"{statistics.mean(a['discarded'] for a in resumed) / MB:.2f}"]


# ---- Figs. 12-13: a synthetic population of domains -------------------------------------------

# Inputs, drawn per domain and trial so that the paper's live-air Figs. 7-9 hold
# (they are not results here). Fig. 7: Z_i, the share of trials in which the
# default server (first address of the Wi-Fi answer) is the best, N(mu, sigma)'s
# quantiles at (i + 1/2)/D for D domains, shuffled, clipped to [Z_MIN, Z_MAX]
# (78 % of the 50 domains below 0.35, the largest 0.48);
# exactly round(Z_i N) of a domain's N trials, chosen at random, have the
# default best, so the measured Z is the drawn one to 1/N.
Z_MU, Z_SIGMA, Z_MIN, Z_MAX = 0.27, 0.10, 0.02, 0.48
# Fig. 8: in a trial where another path is best, gamma = RTT_best / RTT_default
# ~ U(GAMMA_LO, b_i), b_i ~ U(GAMMA_HI) per domain: the upper quartile
# GAMMA_LO + 0.75 (b_i - GAMMA_LO) lies in 0.64-0.79, about 0.7.
GAMMA_LO, GAMMA_HI = 0.30, (0.75, 0.95)
# Fig. 9: the best path is a cellular edge mirror (over lte0) in CELL_BEST of
# those trials, another Wi-Fi mirror otherwise; and the paths that are neither
# the default nor the best are drawn between the best and SPREAD x the
# default, SPREAD smaller over LTE, so that a mirror is usually nearer over
# LTE than over Wi-Fi.
CELL_BEST = 0.6
SPREAD = {"wlan0": 2.5, "lte0": 1.6}
# The default path's RTT: a per-domain median ~ log-normal (median 45 ms, sigma
# 0.4), varying by a factor ~ log-normal(0, 0.2) from trial to trial, at least 20 ms.
RTT_MEDIAN_MS, RTT_SIGMA, RTT_TRIAL_SIGMA, RTT_FLOOR_MS = 45.0, 0.4, 0.2, 20.0
MIRRORS_PER_DOMAIN = (3, 5)
# Access: Wi-Fi and LTE rates drawn per trial (uniform, Mb/s), one-way air delays (ms).
POP_WIFI_MBPS, POP_LTE_MBPS = (30.0, 90.0), (20.0, 60.0)
POP_WIFI_AIR, POP_LTE_AIR = 1.5, 4.0
# Each trial: a 4 MB download in 1 MB requests (four 4 s video segments at 2 Mb/s).
POP_SIZE_MB = 4
# 50 domains, 50 trials each (Fig. 13's 50 trials); the quick subset: 8 x 10.
POP_DOMAINS, POP_TRIALS = 50, 50
POP_QUICK = (8, 10)


def population(domains: int, trials: int, seed: int = 1) -> list[dict]:
    """The synthetic population: per domain its mirrors, Z and trials, each
    trial the RTT (ms) of every (mirror, interface) path and the rates."""
    rng = random.Random(f"population/{seed}")
    zs = [min(max(statistics.NormalDist(Z_MU, Z_SIGMA).inv_cdf((i + 0.5) / domains), Z_MIN), Z_MAX) for i in range(domains)]
    rng.shuffle(zs)
    floor = {"wlan0": 2 * POP_WIFI_AIR + 1, "lte0": 2 * POP_LTE_AIR + 1}
    out = []
    for i in range(domains):
        k = rng.randint(*MIRRORS_PER_DOMAIN)
        mirrors = [f"d{i}m{j}" for j in range(k)]
        z = zs[i]
        default_best = [j < round(z * trials) for j in range(trials)]
        rng.shuffle(default_best)
        b = rng.uniform(*GAMMA_HI)
        median = RTT_MEDIAN_MS * math.exp(rng.gauss(0, RTT_SIGMA))
        ts = []
        for j in range(trials):
            paths = [(m, f) for m in mirrors for f in ("wlan0", "lte0")]
            default = (mirrors[0], "wlan0")
            rd = max(median * math.exp(rng.gauss(0, RTT_TRIAL_SIGMA)), RTT_FLOOR_MS)
            rtt = {default: rd}
            if default_best[j]:
                best, lo = default, rd
            else:
                iface = "lte0" if rng.random() < CELL_BEST else "wlan0"
                best = rng.choice([p for p in paths if p[1] == iface and p != default])
                lo = max(rng.uniform(GAMMA_LO, b) * rd, floor[iface])
                rtt[best] = lo
            for p in paths:
                if p not in rtt:
                    rtt[p] = max(rng.uniform(lo * 1.05, max(SPREAD[p[1]] * rd, lo * 1.1)), floor[p[1]] * 1.05)
            ts.append({"rtt": {f"{m}/{f}": v for (m, f), v in rtt.items()}, "best": f"{best[0]}/{best[1]}",
                       "wifi_mbps": rng.uniform(*POP_WIFI_MBPS), "lte_mbps": rng.uniform(*POP_LTE_MBPS)})
        out.append({"domain": f"d{i}.example", "mirrors": mirrors, "z": z, "gamma_hi": b, "trials": ts})
    return out


def population_network(domains: list[dict], trial: int) -> dict:
    """The phone's Wi-Fi and LTE (the first domain's rates in ``trial``), and
    each domain's mirrors linked to the AP and to the eNB with the delays
    that give that trial's RTTs; a resolver answering every domain."""
    rates = domains[0]["trials"][trial]
    nodes = [{"name": "phone"}, {"name": "ap", "kind": "router"}, {"name": "enb", "kind": "router"}, {"name": "dns"}]
    nodes += [{"name": m} for d in domains for m in d["mirrors"]]
    links = []
    for iface, gw, air, rate in (("wlan0", "ap", POP_WIFI_AIR, rates["wifi_mbps"]), ("lte0", "enb", POP_LTE_AIR, rates["lte_mbps"])):
        links.append({"name": iface, "a": f"phone:{iface}", "b": gw, "rate": f"{rate:.1f}Mbps", "delay": f"{air:g}ms",
                      "queue_bytes": int(max(rate * 1e6 / 8 * 0.05, 150_000))})
        links.append({"name": f"dns-{gw}", "a": "dns", "b": gw, "rate": "1Gbps", "delay": "5ms"})
        for d in domains:
            for m in d["mirrors"]:
                one_way = d["trials"][trial]["rtt"][f"{m}/{iface}"] / 2 - air
                links.append({"name": f"{m}-{gw}", "a": m, "b": gw, "rate": "1Gbps", "delay": f"{one_way:.3f}ms", "queue": 2000})
    resolver = {"name": "local", "node": "dns", "domains": {d["domain"]: {"mirrors": d["mirrors"], "ttl": DNS_TTL} for d in domains}}
    return {"sim": {"duration": "30s", "seed": 1, "sample_interval": "1s"}, "nodes": nodes, "links": links, "resolvers": [resolver]}


def population_scenario(d: dict, trial: int, scheme: str) -> dict:
    """One trial of one domain: a download from its mirrors."""
    return with_download(population_network([d], trial), POP_SIZE_MB, scheme, None, d["domain"], d["mirrors"], mptcp_mirror=d["mirrors"][0])


def pop_keys(quick: bool) -> tuple[list[dict], list[tuple[int, int]]]:
    domains, trials = POP_QUICK if quick else (POP_DOMAINS, POP_TRIALS)
    pop = population(POP_DOMAINS, POP_TRIALS)[:domains]
    return pop, [(i, j) for i in range(domains) for j in range(trials)]


def run_population(cache: RunCache, quick: bool) -> dict:
    pop, keys = pop_keys(quick)
    jobs = {f"pop/{scheme}/{i}/{j}": population_scenario(pop[i], j, scheme) for i, j in keys for scheme in ("pat", "default")}
    res = run_all(cache, jobs)
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
    # Fig. 9's comparison: each mirror's RTT over LTE against over Wi-Fi, per domain averaged over its trials.
    lte_lower = statistics.mean(
        statistics.mean(t["rtt"][f"{m}/lte0"] for t in pop[i]["trials"]) < statistics.mean(t["rtt"][f"{m}/wlan0"] for t in pop[i]["trials"])
        for i in domains for m in pop[i]["mirrors"])
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
        per.append({"i": i, "rtt_cut": 1 - a["ttfb_mean_s"] / b["ttfb_mean_s"], "tau": tp_ratio, "gamma_in": g_in,
                    "gamma_meas": a["ttfb_mean_s"] / b["ttfb_mean_s"],
                    "on_best": max(a["mix"], key=a["mix"].get) == t["best"], "pat_iface": max(a["by_interface"], key=a["by_interface"].get),
                    "packets": a["packets"] / b["packets"] - 1})
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
        ["Fig. 9: a mirror's mean RTT lower over LTE than over Wi-Fi", "most cases", f"{100 * lte_lower:.0f} % of mirrors", ""],
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
    moved_to = {k: [x for x in per if x["gamma_in"] < 1 and x["pat_iface"] == k] for k in ("wlan0", "lte0")}
    out += ["", f"PAT carried most of its bytes on the best path in {100 * s['on_best']:.0f} % of trials. "
            f"Eq. 8's check, trial by trial, measured τ · γ (1 if throughput ∝ 1/RTT): median {statistics.median(ratio):.2f}, "
            f"quartiles {quartile(ratio, 0.25):.2f}–{quartile(ratio, 0.75):.2f}. In the trials where another path is best, the measured "
            + "; ".join(f"τ − 1 when PAT's path is over {k}: mean {100 * statistics.mean(x['tau'] - 1 for x in v):.1f} % "
                        f"(eq. 9's 1/γ − 1: {100 * statistics.mean(1 / x['gamma_in'] - 1 for x in v):.1f} %, {len(v)} trials)" for k, v in moved_to.items() if v)
            + f". The phone's packets, PAT against the default: {pct(statistics.mean(x['packets'] for x in per))} (Fig. 15's measure on these 4 MB downloads)."]
    out += [""] + rows + ([""] if rows else [])
    return out, s


# ---- Fig. 14: page load time ------------------------------------------------------------------

# The paper's live-air Fig. 14 (§VIII-B): the page loading time of "popular
# e-commerce, weather, and news applications" on a phone with Wi-Fi and LTE,
# with and without PAT, "reduced consistently up-to 29 %". It names neither
# the pages nor the networks. Here:
# - the networks are the population's (Figs. 7-9 as inputs, above): an app is
#   two of its domains, the page's origin and its CDN (FIG14_APPS pairs, the
#   paper's three apps), each page load one trial of both (their mirrors'
#   RTTs over Wi-Fi and LTE in that trial, the origin's rates);
# - the page is HTTP Archive's median page of the paper's time (Web Almanac
#   2019, ch. 18 Page Weight: "around 1900 KB in size and contains 74
#   requests"); its split by type and its dependency graph are ours: the
#   document (HTML) reveals the style sheets and scripts, the first style
#   sheet the fonts, the first script the images (WProf's dependencies, as
#   docs/apps.md models them); the document and style sheets on the origin,
#   the rest on the CDN;
# - without PAT, the phone is a browser (the simulator's default page policy):
#   the first address of the Wi-Fi answer, at most 6 persistent connections
#   per server (Chromium's and Firefox's limit), one request per connection
#   at a time; with PAT, its defaults (docs/pat.md#pages).
# (kind, count, bytes each, domain, the object that reveals them)
PAGE_OBJECTS = (
    ("html", 1, 30_000, "origin", None),
    ("css", 6, 10_000, "origin", "html0"),
    ("js", 19, 20_000, "cdn", "html0"),
    ("font", 3, 35_000, "cdn", "css0"),
    ("img", 45, 29_000, "cdn", "js0"),
)
CONNECTIONS_PER_SERVER = 6
# The schemes and their connections per server. Beside PAT and the default:
# - ``unlimited``, a second baseline: the default policy with no connection
#   limit (every object requested as soon as it is revealed, each on its own
#   connection), which has the concurrency of PAT's pipelined requests
#   (docs/pat.md#pages: PAT queues a page's objects on its best connection)
#   or of HTTP/2's streams, without PAT's choice of path;
# - ``pat_one_path``, PAT with no choice to make: each domain answers only the
#   default's mirror and the phone has only Wi-Fi, so PAT's page runs on the
#   default's paths; against the default it measures what PAT's handling of
#   a page's requests gains, against PAT what its choice of path gains.
FIG14_SCHEMES = {"pat": CONNECTIONS_PER_SERVER, "default": CONNECTIONS_PER_SERVER, "unlimited": sum(c for _, c, *_ in PAGE_OBJECTS),
                 "pat_one_path": CONNECTIONS_PER_SERVER}
FIG14_APPS, FIG14_TRIALS = 3, 50
FIG14_QUICK = (3, 3)


def page_objects(domains: dict[str, dict]) -> tuple[list[dict], list[dict]]:
    """The page's contents (each on its domain's mirrors) and its objects."""
    contents, objects = [], []
    for kind, count, size, where, after in PAGE_OBJECTS:
        d = domains[where]
        for k in range(count):
            contents.append({"name": f"{kind}{k}", "bytes": size, "mirrors": d["mirrors"], "domain": d["domain"]})
            objects.append({"content": f"{kind}{k}"} | ({"after": after} if after else {}))
    return contents, objects


def page_scenario(pop: list[dict], app: int, trial: int, scheme: str) -> dict:
    """App ``app``'s page loaded once (``trial``), by ``scheme`` (``FIG14_SCHEMES``)."""
    domains = {"origin": pop[2 * app], "cdn": pop[2 * app + 1]}
    if scheme == "pat_one_path":
        domains = {k: d | {"mirrors": d["mirrors"][:1]} for k, d in domains.items()}
    doc = population_network(list(domains.values()), trial)
    if scheme == "pat_one_path":
        doc["links"] = [l for l in doc["links"] if l["a"] != "phone:lte0"]
    doc["contents"], objects = page_objects(domains)
    doc["pages"] = [{"name": "page", "client": "phone", "objects": objects, "prefer": "wlan0", "tcp": TCP,
                     "connections_per_server": FIG14_SCHEMES[scheme], "policy": "controller" if scheme.startswith("pat") else "default"}]
    if scheme.startswith("pat"):
        doc["controllers"] = [{"host": "phone", "kind": "pat", "sample_interval": "0s", "params": dict(PAT_PARAMS)}]
    return doc


def measure_page(doc: dict) -> dict:
    """The page load time, its connections, where its bytes came from, and
    the objects' times from ready to request and to last byte."""
    import pathpool
    t0 = time.monotonic()
    r = pathpool.run(doc)
    page = r.frame("pages").iloc[0]
    objs = r.frame("page_objects")
    mix: dict[str, int] = {}
    for m, i, b in zip(objs["mirror"], objs["interface"], objs["bytes"]):
        mix[f"{m}/{i}"] = mix.get(f"{m}/{i}", 0) + int(b)
    # Pipelining: the most requests under way at once on one connection
    # (a request is under way from its sending to its object's last byte).
    spans = list(zip(objs["flow_id"], objs["sent_s"], objs["done_s"]))
    depth = max(sum(g == f and s <= t < d for g, s, d in spans) for f, t, _ in spans)
    ifs = r.frame("interfaces")
    phone = ifs[ifs["node"] == "phone"]
    return {"wall_s": time.monotonic() - t0, "load_s": none_if_nan(page["load_s"]), "connections": int(page["connections"]),
            "packets": int(phone["packets_sent"].sum() + phone["packets_received"].sum()),
            "error": page["error"] or "", "mix": mix, "depth": int(depth),
            "wait_s": float((objs["sent_s"] - objs["ready_s"]).mean()), "object_s": float((objs["done_s"] - objs["sent_s"]).mean())}


def default_is_best(d: dict, trial: int) -> bool:
    """Whether the default's path (the first mirror over Wi-Fi) is the trial's best."""
    return d["trials"][trial]["best"] == f"{d['mirrors'][0]}/wlan0"


def fig14_keys(quick: bool) -> tuple[list[dict], list[tuple[int, int]]]:
    apps, trials = FIG14_QUICK if quick else (FIG14_APPS, FIG14_TRIALS)
    return population(POP_DOMAINS, POP_TRIALS), [(a, j) for a in range(apps) for j in range(trials)]


def run_fig14(cache: RunCache, quick: bool) -> dict:
    pop, keys = fig14_keys(quick)
    jobs = {f"fig14/{sch}/app{a}/{j}": page_scenario(pop, a, j, sch) for a, j in keys for sch in FIG14_SCHEMES}
    res = run_all(cache, jobs, measure_page)
    return {"pop": pop, "keys": keys, "res": {(sch, a, j): res[f"fig14/{sch}/app{a}/{j}"] for a, j in keys for sch in FIG14_SCHEMES}}


FIG14_BASELINES = {"default": f"default ({CONNECTIONS_PER_SERVER} per server)", "unlimited": "default, no connection limit"}


def fig14_report(f: dict) -> tuple[list[str], dict]:
    pop, keys, res = f["pop"], f["keys"], f["res"]
    apps = sorted({a for a, _ in keys})
    ok = [(a, j) for a, j in keys if all(res[(sch, a, j)]["load_s"] for sch in FIG14_SCHEMES)]
    errors = [f"app {a + 1} load {j}: " + ", ".join(f"{sch} '{res[(sch, a, j)]['error']}'" for sch in FIG14_SCHEMES) for a, j in keys if (a, j) not in ok]
    mean = lambda xs, fmt="{:.3f}", scale=1: fmt.format(scale * statistics.mean(xs))
    # Where the default's servers over Wi-Fi are the trial's best paths for both domains, PAT's choice of path can gain nothing.
    best = {(a, j): default_is_best(pop[2 * a], j) and default_is_best(pop[2 * a + 1], j) for a, j in ok}
    rows, s = [], {}
    for base, label in FIG14_BASELINES.items():
        cut = {(a, j): 1 - res[("pat", a, j)]["load_s"] / res[(base, a, j)]["load_s"] for a, j in ok}
        for a in apps:
            loads = [(aa, j) for aa, j in ok if aa == a]
            c = [cut[k] for k in loads]
            b, x = [res[(base, *k)] for k in loads], [res[("pat", *k)] for k in loads]
            rows.append([f"app {a + 1} ({pop[2 * a]['domain']} + {pop[2 * a + 1]['domain']})", label, len(loads), mean(y["load_s"] for y in b),
                         mean(y["load_s"] for y in x), f"{100 * statistics.mean(c):+.1f} % ({100 * min(c):+.0f} to {100 * max(c):+.0f})",
                         f"{sum(v > 0.005 for v in c)} / {sum(v < -0.005 for v in c)}", mean((y["connections"] for y in b), "{:.1f}"),
                         mean((y["wait_s"] for y in b), "{:.0f}", 1e3), mean((y["object_s"] for y in b), "{:.0f}", 1e3)])
        by_app = [statistics.mean(cut[k] for k in ok if k[0] == a) for a in apps]
        s[base] = {"mean": statistics.mean(cut.values()), "best_app": max(by_app), "max": max(cut.values()),
                   "faster": statistics.mean(v > 0.005 for v in cut.values()),
                   "both_best": [cut[k] for k in ok if best[k]], "elsewhere": [cut[k] for k in ok if not best[k]], "cut": list(cut.values())}
    x = [res[("pat", *k)] for k in ok]
    lte = statistics.mean(sum(b for p, b in y["mix"].items() if p.endswith("/lte0")) / sum(y["mix"].values()) for y in x)
    n_obj = sum(c for _, c, *_ in PAGE_OBJECTS)
    n_bytes = sum(c * b for _, c, b, *_ in PAGE_OBJECTS)
    out = [f"A page of {n_obj} objects, {n_bytes / 1e3:.0f} kB (HTTP Archive's median page, Web Almanac 2019), from an origin and a CDN domain of "
           f"the population; {len(keys) // len(apps)} loads per app, each a trial of the population (its RTTs and rates), every scheme from the same "
           "empty DNS cache. Page load time (PLT): from the start to the last object's last byte (`pages.load_s`). PLT reduction: 1 − PAT / "
           "baseline per load, mean (lowest to highest). The baselines: the default policy as a browser (the first Wi-Fi answer, "
           f"{CONNECTIONS_PER_SERVER} connections per server, the paper's \"without PAT\"), and the same with no connection limit.", ""]
    out += md_table(["app (origin + CDN)", "baseline", "loads", "baseline PLT (s)", "PAT PLT (s)", "PLT reduction", "loads PAT faster / slower",
                     "baseline connections", "baseline object wait for a connection (ms)", "baseline object request to last byte (ms)"], rows)
    out += ["", f"PAT (all loads): {mean((y['connections'] for y in x), '{:.1f}')} connections, objects wait {mean((y['wait_s'] for y in x), '{:.0f}', 1e3)} ms "
            f"for a connection and take {mean((y['object_s'] for y in x), '{:.0f}', 1e3)} ms from request to last byte; at most "
            f"{mean((y['depth'] for y in x), '{:.1f}')} requests under way at once on one connection (mean over loads; pipelined); {100 * lte:.0f} % of "
            f"the bytes over LTE; the phone's packets (both interfaces, sent + received, DNS included; Fig. 15's measure) "
            f"{pct(statistics.mean(res[('pat', *k)]['packets'] / res[('default', *k)]['packets'] - 1 for k in ok))} against the default. "
            f"Loads where both default servers are the best paths: {sum(best.values())} of {len(ok)}.", ""]
    for base, label in FIG14_BASELINES.items():
        v = s[base]
        out += [f"Against the {label}: PLT reduction mean {pct(v['mean'])}, the best app's mean {pct(v['best_app'])}, the largest in one load "
                f"{pct(v['max'])}, PAT faster in {100 * v['faster']:.0f} % of loads; where both default servers are the best paths "
                f"{pct(statistics.mean(v['both_best'])) if v['both_best'] else '–'}, elsewhere {pct(statistics.mean(v['elsewhere']))}.", ""]
    # Where PAT's gain comes from: its handling of the page's requests on the default's paths, then its choice of paths.
    one = {k: res[("pat_one_path", *k)]["load_s"] for k in ok}
    handling = [1 - one[k] / res[("default", *k)]["load_s"] for k in ok]
    choice = [1 - res[("pat", *k)]["load_s"] / one[k] for k in ok]
    s["handling"], s["choice"] = statistics.mean(handling), statistics.mean(choice)
    s["choice_best_app"] = max(statistics.mean(c for k, c in zip(ok, choice) if k[0] == a) for a in apps)
    s["cdf"] = {"PAT vs default": s["default"]["cut"], "PAT vs no connection limit": s["unlimited"]["cut"],
                "PAT on the default's paths vs default (request handling)": handling, "PAT vs PAT on the default's paths (path choice)": choice}
    out += [f"Where the gain comes from: PAT confined to the default's paths (each domain's first mirror, Wi-Fi only) against the default: "
            f"{pct(s['handling'])} (lowest to highest {pct(min(handling))} to {pct(max(handling))}; at most "
            f"{mean((res[('pat_one_path', *k)]['depth'] for k in ok), '{:.1f}')} requests under way on one connection); PAT against PAT so "
            f"confined: {pct(s['choice'])} ({pct(min(choice))} to {pct(max(choice))}; the best app's mean {pct(s['choice_best_app'])}).", ""]
    out += [f"Paper: {PAPER['fig14']}.", ""]
    return out + errors + ([""] if errors else []), s


# ---- Fig. 15: overhead --------------------------------------------------------------------------

OVERHEAD_SIZE_MB = 128
OVERHEAD_PERIODS = ("250ms", "500ms", "1s", "2s")
OVERHEAD_CONNECTIONS = (2, 4, 10)


def overhead_grid(quick: bool) -> list[tuple[str, int, int]]:
    seeds = FIG11_SEEDS[:1] if quick else FIG11_SEEDS[:3]
    periods = ("500ms", "1s") if quick else OVERHEAD_PERIODS
    conns = (2, 10) if quick else OVERHEAD_CONNECTIONS
    return [(p, c, sd) for p in periods for c in conns for sd in seeds]


def run_overhead(cache: RunCache, quick: bool) -> dict:
    grid = overhead_grid(quick)
    seeds = sorted({g[2] for g in grid})
    jobs = {fig11_key("default", OVERHEAD_SIZE_MB, sd): fig11_scenario(OVERHEAD_SIZE_MB, "default", sd) for sd in seeds}
    jobs.update({f"overhead/{p}/{c}/{OVERHEAD_SIZE_MB}MB/seed{sd}": fig11_scenario(OVERHEAD_SIZE_MB, "pat", sd, {"period": p, "max_connections": c})
                 for p, c, sd in grid})
    res = run_all(cache, jobs)
    return {"grid": grid, "res": res}


def overhead_report(o: dict) -> tuple[list[str], dict]:
    grid, res = o["grid"], o["res"]
    rows, by = [], {}
    for p, c in dict.fromkeys((g[0], g[1]) for g in grid):
        seeds = [g[2] for g in grid if g[:2] == (p, c)]
        pat = [res[f"overhead/{p}/{c}/{OVERHEAD_SIZE_MB}MB/seed{sd}"] for sd in seeds]
        dflt = [res[fig11_key("default", OVERHEAD_SIZE_MB, sd)] for sd in seeds]
        dp = statistics.mean(a["packets"] / b["packets"] - 1 for a, b in zip(pat, dflt))
        db = statistics.mean(a["bytes"] / b["bytes"] - 1 for a, b in zip(pat, dflt))
        probe_share = statistics.mean(a["probe_bytes"] / (OVERHEAD_SIZE_MB * MB) for a in pat)
        by[(p, c)] = dp
        rows.append([p, c, f"{statistics.mean(a['connections'] for a in pat):.1f}", f"{statistics.mean(a['probes'] for a in pat):.0f}",
                     f"{statistics.mean(a['packets'] for a in pat):.0f} / {statistics.mean(b['packets'] for b in dflt):.0f}", pct(dp),
                     pct(db), f"{100 * probe_share:.3f} %",
                     f"{statistics.mean(a['completion_s'] for a in pat):.2f} / {statistics.mean(b['completion_s'] for b in dflt):.2f}"])
    out = [f"The phone's packets and wire bytes (both interfaces, sent + received, DNS included) for Fig. 11's {OVERHEAD_SIZE_MB} MB download, "
           f"PAT against the default on the same delay schedules (seeds {', '.join(map(str, sorted({g[2] for g in grid})))}); "
           "PAT's decision period is also its probe period. Probe bytes: request + response payload over the content's bytes.", ""]
    out += md_table(["period", "max_connections", "connections opened", "probes", "packets PAT / default", "packets", "bytes", "probe bytes",
                     "download time PAT / default (s)"], rows)
    return out + ["", f"Paper: {PAPER['fig15']}.", ""], by


# ---- Fig. 10: the walk --------------------------------------------------------------------------

# Three UEs walk together from A = (0, 0) to B = (150, 0) m at 1.5 m/s (100 s):
# UE1 with PAT over 5G and Wi-Fi, UE2 on 5G only to Mirror1 (behind the gNB),
# UE3 on Wi-Fi only to Mirror2 (behind the AP). Both radios go through the cell
# model (cell.md): LTE's chain (100 PRBs, 1 ms TTI, round robin, BLER 0.1 with
# HARQ), so at most about 75 Mb/s, a scaled stand-in for both technologies;
# UE1 shares the 5G cell with UE2 and the Wi-Fi "cell" with UE3, as it would.
# Path loss: 3GPP TR 38.901 UMi street canyon, line of sight,
# PL = 32.4 + 21 log10(d m) + 20 log10(f GHz): 28 GHz for 5G mmWave
# (124.3 + 21 log10(R km)), 5 GHz for Wi-Fi (109.4 + 21 log10(R km)). The gNB is
# 30 m beside A, the AP 10 m beside B; transmit powers (with antenna gains 15 and
# 0 dBi) chosen so that each radio's SINR spans its range over the walk: 5G
# 25 dB at A to 10 dB at B, Wi-Fi 5 dB at A to 30 dB at B. The links' delays
# beyond the air are Fig. 11's (Wi-Fi 2 ms, 5G 1 ms one way), the mirrors 2 ms
# behind the gNB and the AP, and the two networks 10 ms from the internet router.
WALK_SPEED, WALK_LENGTH = 1.5, 150.0
WALK_CELLS = {
    "gnb": {"position": [0, 30], "tx_power": 10, "antenna_gain": 15, "path_loss_1km": 124.3, "path_loss_slope": 21},
    "ap": {"position": [WALK_LENGTH, 10], "tx_power": 5, "antenna_gain": 0, "path_loss_1km": 109.4, "path_loss_slope": 21},
}
# The building, 30 m beside the path, shadows the gNB from x = 60 to 90 m
# (40-60 s): behind it 28 GHz loses 30-40 dB or more (TR 38.901 §7.4.3's
# building penetration), below CQI 1, so the 5G links are down for that time.
BLOCKED = (40.0, 60.0)
WALK_CHUNK = "1MB"
# Seeds (HARQ draws): the first is shown bin by bin, all in a summary.
WALK_SEEDS = (1, 2, 3, 4, 5)


def walk_scenario(seed: int = 1, remap_at: str = "request") -> dict:
    duration = WALK_LENGTH / WALK_SPEED
    cells = [{"name": n, "radius": 1000, "tti": "1ms", "prbs": 100, **c} for n, c in WALK_CELLS.items()]
    nodes = [{"name": n} for n in ("ue1", "ue2", "ue3", "m1", "m2")]
    nodes += [{"name": n, "kind": "router"} for n in ("gnb", "ap", "internet")]
    q = int(75e6 / 8 * 0.05)
    blocked = [{"at": f"{BLOCKED[0]:g}s", "state": "down"}, {"at": f"{BLOCKED[1]:g}s", "state": "up"}]
    links = [
        {"name": "ue1-nr", "a": "ue1:nr0", "b": "gnb", "delay": f"{NR_AIR:g}ms", "queue_bytes": q, "capacity": {"cell": "gnb"}, "events": blocked},
        {"name": "ue1-wifi", "a": "ue1:wlan0", "b": "ap", "delay": f"{WIFI_AIR:g}ms", "queue_bytes": q, "capacity": {"cell": "ap"}},
        {"name": "ue2-nr", "a": "ue2:nr0", "b": "gnb", "delay": f"{NR_AIR:g}ms", "queue_bytes": q, "capacity": {"cell": "gnb"}, "events": blocked},
        {"name": "ue3-wifi", "a": "ue3:wlan0", "b": "ap", "delay": f"{WIFI_AIR:g}ms", "queue_bytes": q, "capacity": {"cell": "ap"}},
        {"name": "m1-gnb", "a": "m1", "b": "gnb", "rate": "1Gbps", "delay": "2ms", "queue": 2000},
        {"name": "m2-ap", "a": "m2", "b": "ap", "rate": "1Gbps", "delay": "2ms", "queue": 2000},
        {"name": "gnb-internet", "a": "gnb", "b": "internet", "rate": "1Gbps", "delay": "10ms", "queue": 2000},
        {"name": "ap-internet", "a": "ap", "b": "internet", "rate": "1Gbps", "delay": "10ms", "queue": 2000},
    ]
    mobility = [{"host": u, "position": [0, 0], "speed": WALK_SPEED, "heading": 0} for u in ("ue1", "ue2", "ue3")]
    big = 4 * 10**9
    contents = [{"name": "both", "bytes": big, "mirrors": ["m1", "m2"]}, {"name": "mirror1", "bytes": big, "mirrors": ["m1"]},
                {"name": "mirror2", "bytes": big, "mirrors": ["m2"]}]
    fetches = [{"name": "ue1", "client": "ue1", "content": "both", "chunk": WALK_CHUNK, "policy": "controller", "tcp": TCP},
               {"name": "ue2", "client": "ue2", "content": "mirror1", "chunk": WALK_CHUNK, "tcp": TCP},
               {"name": "ue3", "client": "ue3", "content": "mirror2", "chunk": WALK_CHUNK, "tcp": TCP}]
    return {"sim": {"duration": f"{duration:g}s", "seed": seed, "sample_interval": "1s"}, "cells": cells, "mobility": mobility,
            "nodes": nodes, "links": links, "contents": contents, "fetches": fetches,
            "controllers": [{"host": "ue1", "kind": "pat", "sample_interval": "0s", "params": {} if remap_at == "request" else {"remap_at": remap_at}}]}


def measure_walk(doc: dict) -> dict:
    """Per UE its goodput in 1 s bins; UE1's bytes per interface per bin; PAT's
    remaps; when and over which interface UE1 sent each range; the RTT
    samples (time to first byte of a range or a probe) of each of UE1's
    (mirror, interface) paths."""
    import pathpool
    t0 = time.monotonic()
    r = pathpool.run(doc)
    names = dict(zip(r.flows["flow_id"], r.flows["name"]))
    ts = r.flow_ts
    bins = sorted(ts["time_s"].unique())
    ue = {u: [0.0] * len(bins) for u in ("ue1", "ue2", "ue3")}
    ue1_if = {i: [0.0] * len(bins) for i in ("nr0", "wlan0")}
    index = {t: k for k, t in enumerate(bins)}
    for f, t, g in zip(ts["flow_id"], ts["time_s"], ts["goodput_bps"]):
        fetch, _, iface = names[f].split("/")
        ue[fetch][index[t]] += g
        if fetch == "ue1":
            ue1_if[iface][index[t]] += g
    log = r.frame("controller_log")
    remaps = [float(t) for t, d in zip(log["time_s"], log["detail"]) if str(d).startswith("remap")]
    q = r.frame("fetch_requests")
    q = q[q["session_id"] == 0]
    ranges = [(float(t), i) for k, t, i in zip(q["kind"], q["sent_s"], q["interface"]) if k == "range"]
    q = q[q["first_byte_s"].notna()]
    rtt = {}
    for m, i, sent, fb in sorted(zip(q["mirror"], q["interface"], q["sent_s"], q["first_byte_s"]), key=lambda x: x[3]):
        rtt.setdefault(f"{m}/{i}", []).append((float(fb), float(fb - sent)))
    discarded = int(r.frame("fetches")["discarded_bytes"].iloc[0])
    return {"wall_s": time.monotonic() - t0, "bins": [float(b) for b in bins], "ue": ue, "ue1_if": ue1_if, "remaps": remaps, "rtt": rtt, "sent": ranges,
            "discarded": discarded}


def walk_report(w: dict) -> tuple[list[str], dict]:
    bins, ue, ue1_if = w["bins"], w["ue"], w["ue1_if"]
    mean = {u: statistics.mean(v) for u, v in ue.items()}
    period, rtt_margin = 1.0, 0.05
    single = {"nr0": "ue2", "wlan0": "ue3"}
    rows, misses, mismatch, judged = [], [], [], 0
    for k, t in enumerate(bins):
        # The path PAT chose: the interface of UE1's last range sent by the bin's end.
        on = max((x for x in w["sent"] if x[0] <= t), default=(0.0, "wlan0"))[1]
        near_remap = any(r < t and r + period + rtt_margin > t - 1 for r in w["remaps"])
        ref = ue[single[on]][k]
        last = {p: max((x for x in v if x[0] <= t), default=None) for p, v in w["rtt"].items()}
        known = {p: x[1] for p, x in last.items() if x}
        rtt_best = min(known, key=known.get).split("/")[1] if known else None
        tp_best = max(single, key=lambda i: ue[single[i]][k])
        if rtt_best and rtt_best != tp_best:
            mismatch.append(f"{t:g}")
        judged += not near_remap
        if not near_remap and ue["ue1"][k] < 0.9 * ref:
            misses.append(f"{t:g} s ({ue['ue1'][k] / 1e6:.1f} vs {ref / 1e6:.1f} Mb/s on {on})")
        if k % 10 == 9:
            rows.append([f"{t - 10:g}–{t:g}", *(f"{statistics.mean(ue[u][k - 9:k + 1]) / 1e6:.1f}" for u in ("ue1", "ue2", "ue3")),
                         f"{100 * sum(ue1_if['nr0'][k - 9:k + 1]) / max(1.0, sum(ue['ue1'][k - 9:k + 1])):.0f} %"])
    out = [f"Goodput per UE (Mb/s), 10 s means of 1 s bins; the 5G links are down over {BLOCKED[0]:g}–{BLOCKED[1]:g} s (the building).", ""]
    out += md_table(["time (s)", "UE1 (PAT)", "UE2 (5G → Mirror1)", "UE3 (Wi-Fi → Mirror2)", "UE1 over 5G"], rows)
    ok_mean = mean["ue1"] >= max(mean["ue2"], mean["ue3"])
    out += ["", f"Means over the walk: UE1 {mean['ue1'] / 1e6:.1f}, UE2 {mean['ue2'] / 1e6:.1f}, UE3 {mean['ue3'] / 1e6:.1f} Mb/s: "
            f"UE1 ≥ the larger of UE2 and UE3: **{'met' if ok_mean else 'not met'}**. PAT's remaps at: {', '.join(f'{r:.1f}' for r in w['remaps']) or 'none'} s.",
            f"1 s bins (outside [remap, remap + period + {rtt_margin * 1e3:g} ms]) where UE1 < 0.9 × the single-path UE on the path PAT chose: "
            f"{len(misses)} of {judged}" + (f": {', '.join(misses[:12])}{' …' if len(misses) > 12 else ''}" if misses else "") + ".",
            f"Bins where the RTT-best path (UE1's last sample per path) is not the throughput-best (UE2's against UE3's rate): "
            f"{len(mismatch)}: {', '.join(mismatch) or 'none'}.", ""]
    return out, {"mean": mean, "misses": len(misses), "judged": judged, "mismatch": len(mismatch)}


def walk_summary(walks: dict[str, dict], title: str = "Every seed (HARQ draws differ):") -> list[str]:
    """The issue's targets per seed."""
    rows = []
    for name, w in walks.items():
        _, r = walk_report(w)
        m = r["mean"]
        rows.append([name.rsplit("seed", 1)[1].split("/")[0], *(f"{m[u] / 1e6:.1f}" for u in ("ue1", "ue2", "ue3")),
                     "met" if m["ue1"] >= max(m["ue2"], m["ue3"]) else "not met", len(w["remaps"]), f"{r['judged'] - r['misses']} of {r['judged']}",
                     r["mismatch"], f"{w['discarded'] / MB:.2f}"])
    return [title, ""] + md_table(
        ["seed", "UE1 mean (Mb/s)", "UE2", "UE3", "UE1 ≥ max(UE2, UE3)", "PAT remaps", "bins outside remaps with UE1 ≥ 0.9 × its path's UE",
         "bins RTT-best ≠ throughput-best", "UE1 bytes discarded (MB)"], rows) + [""]


# ---- plots --------------------------------------------------------------------------------------

def plots(walk: dict | None, fig11: dict | None, pop: dict | None, pages: dict | None, overhead: dict | None, quick: bool) -> list[str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    suffix, made = ("-quick" if quick else ""), []

    def save(fig, name):
        fig.tight_layout()
        path = OUT / f"{name}{suffix}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        made.append(str(path.relative_to(REPO)))

    if walk:
        fig, ax = plt.subplots(figsize=(8, 3.6))
        for u, label in (("ue1", "UE1 (PAT, 5G + Wi-Fi)"), ("ue2", "UE2 (5G → Mirror1)"), ("ue3", "UE3 (Wi-Fi → Mirror2)")):
            ax.plot(walk["bins"], [g / 1e6 for g in walk["ue"][u]], label=label, lw=1.5 if u == "ue1" else 1)
        ax.axvspan(*BLOCKED, color="grey", alpha=0.2, label="5G behind the building")
        for k, r in enumerate(walk["remaps"]):
            ax.axvline(r, color="k", ls=":", lw=0.8, label="PAT's remaps" if k == 0 else None)
        ax.set_xlabel("time (s); A at 0, B at 100")
        ax.set_ylabel("goodput, 1 s bins (Mb/s)")
        ax.legend(fontsize=7)
        save(fig, "fig10")
    if fig11:
        keys = fig11_keys(quick)
        sizes, seeds = sorted({s for s, _ in keys}), sorted({sd for _, sd in keys})
        fig, ax = plt.subplots(figsize=(7, 3.6))
        for k, (sch, label) in enumerate((("default", "default (first Wi-Fi answer)"), ("pat", "PAT"), ("mptcp", "MPTCP full mesh to m3"))):
            t = [fig11_times(fig11, s, seeds)[sch] for s in sizes]
            mean = [statistics.mean(x) for x in t]
            err = [[m - min(x) for m, x in zip(mean, t)], [max(x) - m for m, x in zip(mean, t)]]
            ax.bar([i + (k - 1) * 0.27 for i in range(len(sizes))], mean, 0.27, yerr=err, capsize=3, label=label)
        ax.set_xticks(range(len(sizes)), [f"{s} MB" for s in sizes])
        ax.set_ylabel("download time (s)")
        ax.set_yscale("log")
        ax.set_title(f"Fig. 11: mean over {len(seeds)} delay schedules (bars: lowest to highest)")
        ax.legend(fontsize=8)
        save(fig, "fig11")
    if pop:
        per = pop["per"]
        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.8))
        for field, label in (("rtt_cut", "RTT reduction (Fig. 12)"), ("tau", "throughput gain τ − 1 (Fig. 13)")):
            xs = sorted((x[field] - 1 if field == "tau" else x[field]) * 100 for x in per)
            a.plot(xs, [(i + 1) / len(xs) for i in range(len(xs))], label=label)
        a.set_xlabel("per trial, PAT against the default (%)")
        a.set_ylabel("CDF of trials")
        a.legend(fontsize=8)
        for iface, colour in (("wlan0", "tab:blue"), ("lte0", "tab:orange")):
            v = [x for x in per if x["pat_iface"] == iface]
            b.scatter([1 / x["gamma_in"] for x in v], [x["tau"] for x in v], s=4, alpha=0.4, color=colour, label=f"PAT over {iface}")
        top = max(1 / x["gamma_in"] for x in per)
        b.plot([1, top], [1, top], "k--", lw=1, label="eq. 8-9: τ = 1/γ")
        b.set_xlabel("1/γ (drawn RTTs: default / best)")
        b.set_ylabel("τ measured (default time / PAT time)")
        b.legend(fontsize=8)
        save(fig, "fig12_13")
    if pages:
        fig, ax = plt.subplots(figsize=(7, 3.8))
        for label, cuts in pages["cdf"].items():
            xs = sorted(100 * c for c in cuts)
            ax.plot(xs, [(i + 1) / len(xs) for i in range(len(xs))], label=label)
        ax.axvline(29, color="k", ls="--", lw=1, label="paper: up to 29 %")
        ax.set_xlabel("page load time reduction per load (%)")
        ax.set_ylabel("CDF of page loads")
        ax.legend(fontsize=7)
        save(fig, "fig14")
    if overhead:
        fig, ax = plt.subplots(figsize=(6, 3.6))
        periods = list(dict.fromkeys(p for p, _ in overhead))
        for c in sorted({c for _, c in overhead}):
            ax.plot(range(len(periods)), [100 * overhead[(p, c)] for p in periods], marker="o", label=f"max_connections {c}")
        ax.set_xticks(range(len(periods)), periods)
        ax.set_xlabel("decision (probe) period")
        ax.set_ylabel("extra packets, PAT vs default (%)")
        ax.axhline(0.88, color="k", ls="--", lw=1, label="paper: +0.88 %")
        ax.legend(fontsize=8)
        save(fig, "fig15")
    return made


# ---- main ---------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a fast subset (about a minute): report-quick.md")
    ap.add_argument("--fresh", action="store_true", help="forget cached runs")
    ap.add_argument("--only", default="fig10,fig11,population,fig14,overhead", help="comma-separated experiments")
    ap.add_argument("--jobs", type=int, default=2, help="runs at once")
    args = ap.parse_args(argv)
    cache = RunCache(OUT / "cache.jsonl", args.fresh, args.jobs)
    want = set(args.only.split(","))
    t0 = time.monotonic()
    parts = ["# PAT: pathpool beside the paper (generated by `make pat`)", ""]
    body: list[str] = []
    fig11 = pop = pages = overhead = walk = None
    if "fig10" in want:
        seeds = WALK_SEEDS[:1] if args.quick else WALK_SEEDS
        walks = run_all(cache, {f"fig10/walk/seed{sd}": walk_scenario(sd) for sd in seeds}, measure_walk)
        walk = walks[f"fig10/walk/seed{seeds[0]}"]
        text, _ = walk_report(walk)
        body += ["## Fig. 10: the walk from A to B", "", f"Seed {seeds[0]}:", ""] + text + walk_summary(walks)
        if not args.quick:
            resumed = run_all(cache, {f"fig10/walk/seed{sd}/resume": walk_scenario(sd, "resume") for sd in seeds}, measure_walk)
            body += walk_summary(resumed, "UE1's PAT with `remap_at = \"resume\"` (ours: a remap also moves the rest of the range under way), every seed:")
    if "fig11" in want:
        fig11 = run_fig11(cache, args.quick)
        body += ["## Fig. 11: download time, five mirrors with changing RTTs", ""] + fig11_report(fig11, args.quick)
    if "population" in want:
        text, pop = population_report(run_population(cache, args.quick))
        body += ["## Figs. 12–13: a synthetic population of domains", ""] + text
    if "fig14" in want:
        text, pages = fig14_report(run_fig14(cache, args.quick))
        body += ["## Fig. 14: page load time", ""] + text
    if "overhead" in want:
        text, overhead = overhead_report(run_overhead(cache, args.quick))
        body += ["## Fig. 15: overhead against probe period and connections", ""] + text
    body += ["Plots: " + ", ".join(plots(walk, fig11, pop, pages, overhead, args.quick)), ""]
    parts += [f"{'Quick subset. ' if args.quick else ''}{cache.summary()} Wall time {time.monotonic() - t0:.0f} s.", ""]
    report = "\n".join(parts + body)
    (OUT / ("report-quick.md" if args.quick else "report.md")).write_text(report)
    print(report)


if __name__ == "__main__":
    main()
