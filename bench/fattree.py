#!/usr/bin/env python3
"""FatTree permutations: pathpool against htsim's own data-centre program, side by side.

htsim's ``datacenter/main_tcp.cpp`` (the MPTCP authors' simulator, ``shared/anchors/htsim``)
runs a permutation of long flows on its FatTree: every host sends to one other host, with TCP
(``-sub 1 UNCOUPLED``) or MPTCP with n subflows on randomly chosen paths (``-sub n COUPLED_INC``,
RFC 6356's linked increases). pathpool runs the same workload from its ``fattree`` topology and
``traffic_matrix`` workload, MPTCP subflows spread by ECMP over ndiffports' source ports.

htsim's program fixes three things in its source that a short run on a shared machine must set:
the run's end (4 s), the host link speed (``HOST_NIC``, 100 Gb/s) and the random seed
(``srand(time(NULL))``). This script builds it from a copy of the anchor's source in a cache
directory with exactly those three lines read from environment variables instead
(``HTSIM_END_S``, ``HTSIM_HOST_NIC_MBPS``, ``HTSIM_SEED``) and its rate sampler's period
(``HTSIM_SAMPLE_MS``); nothing else changes. The binaries stay in the cache, never in the repo.

Same work on both sides: 1500-byte data packets (pathpool: 1460 payload + 40 header, htsim:
1500), 40-byte ACKs, no SACK, no delayed ACKs, a 250 ms minimum RTO, initial window 10 and
initial ssthresh 100 packets (htsim's TcpSrc), switch queues of 12 000 bytes (htsim's
``memFromPkt(8)``, bytes, so its 1-byte SYNs and 40-byte ACKs take almost no room;
``--queue-packets`` gives pathpool's default of 8 packets instead), 1000-packet host queues,
1 µs per link, and SYN-ACKs and ACKs that skip every queue (pathpool's
``ack_path = "instant"``): htsim's main_tcp gives each sink a return route holding only its
source, so they arrive at once, never queued or lost (``--ack-path network`` queues pathpool's
like data instead). Per-host throughput counts data packets delivered in order × 1500 bytes
over the run (htsim: its connections' goodput samples, which count its 1500-byte packets;
pathpool: bytes delivered / 1460 × 1500; for MPTCP also each subflow's in-order bytes, the
`pp-subfl` rows, as htsim counts them). Differences that remain: htsim's switch queues drop at
random (10 %) over their last 3 packets (RandomQueue), pathpool's are drop-tail; htsim's
subflows pick paths at random from all (k/2)² (repeats allowed) and all start at time 0,
pathpool's are hashed per switch and open once the first is established; htsim's MPTCP has no
connection-level sequence space; htsim's main_tcp samples every queue each millisecond into
its log file.

Usage: bench/fattree.py [--k 4 8] [--transports tcp mptcp] [--subflows 8] [--rate-mbps 1000]
                        [--duration 0.2] [--seed 1] [--ack-path instant|network]
                        [--queue-packets] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from dumbbell import BenchError, run_measured, shared_dir  # noqa: E402  (helpers beside this file)

PACKET = 1500  # bytes on the wire per data packet, both simulators
HEADER = 40  # pathpool's header bytes: htsim's ACKs are 40 bytes
MSS = PACKET - HEADER

# The lines of main_tcp.cpp made settable, and what they become.
PATCHES = [
    ("eventlist.setEndtime(timeFromSec(4));", 'eventlist.setEndtime(timeFromSec(env_or("HTSIM_END_S", 4)));'),
    ("speedFromMbps((double)HOST_NIC);", 'speedFromMbps((uint64_t)env_or("HTSIM_HOST_NIC_MBPS", HOST_NIC));'),
    ("srand(time(NULL));", 'srand((unsigned)env_or("HTSIM_SEED", (double)time(NULL)));'),
    ("TcpSinkLoggerSampling(timeFromMs(1000), eventlist);", 'TcpSinkLoggerSampling(timeFromMs(env_or("HTSIM_SAMPLE_MS", 1000)), eventlist);'),
    ("EventList eventlist;", 'EventList eventlist;\nstatic double env_or(const char* k, double d) { const char* v = getenv(k); return v ? atof(v) : d; }'),
]


def build_htsim(cache: Path) -> tuple[Path, Path]:
    """htsim_tcp (patched as above) and parse_output, built in `cache` if missing or stale."""
    anchor = shared_dir() / "anchors" / "htsim" / "sim"
    if not (anchor / "datacenter" / "main_tcp.cpp").is_file():
        raise BenchError(f"no htsim source at {anchor} (set PATHPOOL_SHARED to the shared/ folder)")
    src = cache / "src"
    stamp = src / ".anchor-mtime"
    mtime = str(max(p.stat().st_mtime for p in anchor.rglob("*") if p.is_file()))
    if not stamp.is_file() or stamp.read_text() != mtime:
        shutil.rmtree(src, ignore_errors=True)
        shutil.copytree(anchor, src)
        main = src / "datacenter" / "main_tcp.cpp"
        text = main.read_text()
        for old, new in PATCHES:
            if text.count(old) != 1:
                raise BenchError(f"{main}: expected the line '{old}' once; htsim's source changed")
            text = text.replace(old, new)
        main.write_text(text)
        stamp.write_text(mtime)
    binary, parser = src / "datacenter" / "htsim_tcp", src / "parse_output"
    jobs = f"-j{os.cpu_count() or 1}"
    for cwd, target, out in [(src, "libhtsim.a", src / "libhtsim.a"), (src, "parse_output", parser), (src / "datacenter", "htsim_tcp", binary)]:
        if not out.exists():
            print(f"building htsim {target} in {cwd} ...", file=sys.stderr)
            r = subprocess.run(["make", "-s", jobs, target], cwd=cwd, capture_output=True, text=True)
            if r.returncode != 0:
                raise BenchError(f"htsim build of {target} failed:\n{r.stderr[-2000:]}")
    return binary, parser


def run_rss(argv: list[str], cwd: Path | None = None):
    """run_measured, with the peak RSS taken by GNU time around the program: a child forked from
    this Python process starts with Python's pages counted in its own ru_maxrss, which hides a
    program smaller than Python (both simulators here, at k = 4 and 8)."""
    with tempfile.NamedTemporaryFile(suffix=".rss") as f:
        p = run_measured(["/usr/bin/time", "-f", "%M", "-o", f.name] + argv, cwd=cwd)
        p.max_rss_kb = int(Path(f.name).read_text().split()[-1])
    return p


def percentiles(xs: list[float]) -> dict:
    s = sorted(xs)

    def pct(q: float) -> float:
        return s[min(len(s) - 1, int(q / 100 * len(s)))]

    return {"mean": statistics.fmean(s), "p10": pct(10), "p50": pct(50), "p90": pct(90), "min": s[0], "max": s[-1]}


def run_htsim(binary: Path, parser: Path, k: int, transport: str, subflows: int, rate_mbps: int, duration: float, seed: int) -> dict:
    hosts = k**3 // 4
    # Four rate samples, the last at `duration`: the run ends just after it.
    env = {"HTSIM_END_S": str(duration * 1.0001), "HTSIM_HOST_NIC_MBPS": str(rate_mbps), "HTSIM_SEED": str(seed),
           "HTSIM_SAMPLE_MS": str(duration * 1000 / 4)}
    algo = ["-sub", "1", "UNCOUPLED"] if transport == "tcp" else ["-sub", str(subflows), "COUPLED_INC"]
    with tempfile.TemporaryDirectory(prefix="htsim-fattree-") as tmp:
        log = Path(tmp) / "logout.dat"
        argv = ["env"] + [f"{a}={b}" for a, b in env.items()]
        argv += [str(binary), "-nodes", str(hosts), "-conns", str(hosts), "-o", str(log)] + algo
        p = run_rss(argv, cwd=Path(tmp))
        if p.returncode != 0:
            raise BenchError(f"htsim_tcp failed ({p.returncode}): {p.stderr[-1000:]}")
        parsed = subprocess.run([str(parser), str(log), "-ascii"], capture_output=True, text=True, cwd=tmp)
    # Every connection (TCP is MPTCP with one subflow in main_tcp) logs its goodput over each
    # sample period: "<time> Type MTCP ID <id> Ev RATE A <a> Gput <bytes/s> Tput <bytes/s>".
    # Their mean over the four equal periods is the connection's goodput over the run.
    gput: dict[int, list[float]] = {}
    for m in re.finditer(r"^([\d.]+) Type MTCP ID (\d+) Ev RATE A \S+ Gput (\d+)", parsed.stdout, re.M):
        if 0 < float(m.group(1)) <= duration * 1.00005:
            gput.setdefault(int(m.group(2)), []).append(float(m.group(3)))
    if len(gput) != hosts or any(len(v) != 4 for v in gput.values()):
        counts = sorted({len(v) for v in gput.values()})
        raise BenchError(f"htsim's log has {len(gput)} connections (want {hosts}) with {counts} rate samples (want 4): {parsed.stderr[-300:]!r}")
    per_host = [statistics.fmean(v) * 8 for v in gput.values()]
    return {"wall_s": p.wall_s, "rss_mb": p.max_rss_kb / 1024, "per_host_bps": per_host}


def scenario(k: int, transport: str, subflows: int, coupling: str, rate_mbps: int, duration: float, seed: int, ack_path: str, queue: str) -> str:
    mptcp = ""
    if transport == "mptcp":
        mptcp = f'mptcp = {{ coupling = "{coupling}", path_manager = "ndiffports", path_manager_params = {{ subflows = {subflows} }} }}'
    return f"""
[sim]
duration = "{duration}s"
ecmp = true
seed = {seed}
sample_interval = "0s"
header_bytes = {HEADER}
ack_path = "{ack_path}"

[tcp]
cc = "newreno"
mss = {MSS}
sack = false
delayed_ack = false
min_rto = "250ms"
initial_ssthresh = 100
rcv_buffer = "1GiB"

[topology]
kind = "fattree"
k = {k}
rate = "{rate_mbps}Mbps"
{queue}

[[workloads]]
kind = "traffic_matrix"
name = "perm"
matrix = "permutation"
transport = "{transport}"
{mptcp}
"""


def tsv(text: str) -> list[dict[str, str]]:
    lines = text.strip().split("\n")
    head = lines[0].split("\t")
    return [dict(zip(head, line.split("\t"))) for line in lines[1:]]


def run_pathpool(k: int, transport: str, subflows: int, coupling: str, rate_mbps: int, duration: float, seed: int, ack_path: str, queue: str) -> dict:
    """Per-host throughput as the application gets it (the connection's bytes delivered in
    order); for MPTCP also as htsim counts it (each subflow's in-order bytes, summed), from a
    second run of the same scenario."""
    binary = REPO / "target" / "release" / "pathpool-sim"
    if not binary.is_file():
        raise BenchError(f"no {binary}: run cargo build --release -p pathpool-sim")
    to_bps = PACKET * 8 / MSS / duration
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(scenario(k, transport, subflows, coupling, rate_mbps, duration, seed, ack_path, queue))
        path = f.name
    try:
        p = run_rss([str(binary), "run", path, "--table", "flows"])
        if p.returncode != 0:
            raise BenchError(f"pathpool-sim failed: {p.stderr[-1000:]}")
        out = {"wall_s": p.wall_s, "rss_mb": p.max_rss_kb / 1024,
               "per_host_bps": [int(r["bytes_delivered"]) * to_bps for r in tsv(p.stdout)]}
        if transport == "mptcp":
            q = subprocess.run([str(binary), "run", path, "--table", "subflows"], capture_output=True, text=True)
            if q.returncode != 0:
                raise BenchError(f"pathpool-sim failed: {q.stderr[-1000:]}")
            per_flow = [0.0] * len(out["per_host_bps"])
            for r in tsv(q.stdout):
                per_flow[int(r["flow_id"])] += int(r["bytes_delivered"]) * to_bps
            out["per_host_subflow_bps"] = per_flow
    finally:
        os.unlink(path)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, nargs="+", default=[4, 8])
    ap.add_argument("--transports", nargs="+", default=["tcp", "mptcp"], choices=["tcp", "mptcp"])
    ap.add_argument("--subflows", type=int, default=8, help="MPTCP subflows per connection (default 8)")
    ap.add_argument("--coupling", default="lia", choices=["lia", "olia"], help="pathpool's coupling (htsim has LIA only)")
    ap.add_argument("--rate-mbps", type=int, default=1000, help="every link's rate (htsim's HOST_NIC is 100000)")
    ap.add_argument("--duration", type=float, default=0.2, help="simulated seconds (htsim's main_tcp: 4)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ack-path", default="instant", choices=["instant", "network"],
                    help="pathpool's [sim] ack_path: instant (default) as htsim's main_tcp returns ACKs; network queues them like data")
    ap.add_argument("--queue-packets", action="store_true",
                    help="pathpool's switch queues count 8 packets (the topology's default) instead of htsim's 12 000 bytes")
    ap.add_argument("--skip-htsim", action="store_true", help="pathpool only")
    ap.add_argument("--htsim-cache", type=Path, default=Path.home() / ".cache" / "pathpool-anchors" / "htsim-fattree")
    ap.add_argument("--json", type=Path, help="write every figure here")
    a = ap.parse_args()
    for k in a.k:
        if k < 2 or k % 2:
            raise BenchError(f"--k {k}: a FatTree needs an even k of at least 2")
    binary, parser = (None, None) if a.skip_htsim else build_htsim(a.htsim_cache)
    rows = []
    print(f"FatTree permutation, {a.rate_mbps} Mb/s links, {a.duration} s simulated, seed {a.seed}, pathpool ack_path {a.ack_path}, "
          f"switch queues {'8 packets' if a.queue_packets else f'{8 * PACKET} bytes'}; "
          f"throughput per host in Mb/s (mean, p10, p50, p90), wall s, peak RSS MB")
    head = f"{'k':>3} {'transport':<10} {'sim':<9} {'mean':>8} {'p10':>8} {'p50':>8} {'p90':>8} {'wall_s':>8} {'rss_MB':>8}"
    print(head)
    for k in a.k:
        for t in a.transports:
            label = "tcp" if t == "tcp" else f"mptcp×{a.subflows}"
            queue = 'queue = 8' if a.queue_packets else f'queue_bytes = {8 * PACKET}'
            pp = run_pathpool(k, t, a.subflows, a.coupling, a.rate_mbps, a.duration, a.seed, a.ack_path, queue)
            res = {"pathpool": pp}
            if "per_host_subflow_bps" in pp:
                res["pp-subfl"] = {**pp, "per_host_bps": pp.pop("per_host_subflow_bps")}
            if binary:
                res["htsim"] = run_htsim(binary, parser, k, t, a.subflows, a.rate_mbps, a.duration, a.seed)
            for sim, r in res.items():
                r["throughput"] = percentiles([x / 1e6 for x in r["per_host_bps"]])
                q = r["throughput"]
                print(f"{k:>3} {label:<10} {sim:<9} {q['mean']:>8.1f} {q['p10']:>8.1f} {q['p50']:>8.1f} {q['p90']:>8.1f} "
                      f"{r['wall_s']:>8.2f} {r['rss_mb']:>8.1f}")
            if "htsim" in res:
                hs = res["htsim"]
                for name in [x for x in ("pathpool", "pp-subfl") if x in res]:
                    r = res[name]
                    print(f"{k:>3} {label:<10} {'ratio' if name == 'pathpool' else 'ratio-sub':<9} "
                          f"{r['throughput']['mean'] / hs['throughput']['mean']:>8.3f} {'':>8} {'':>8} {'':>8} "
                          f"{r['wall_s'] / hs['wall_s']:>8.2f} {r['rss_mb'] / hs['rss_mb']:>8.2f}")
            rows.append({"k": k, "transport": t, "subflows": a.subflows if t == "mptcp" else 1, **{s: {x: v for x, v in r.items()} for s, r in res.items()}})
            sys.stdout.flush()
    print("ratio = pathpool / htsim (throughput: mean per host; wall time and RSS: lower is better for pathpool)")
    print("pp-subfl = pathpool's MPTCP counted as htsim counts it: each subflow's in-order bytes, summed per host "
          "(htsim has no connection-level sequence space); its wall time and RSS are the pathpool run's")
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps({"rate_mbps": a.rate_mbps, "duration_s": a.duration, "seed": a.seed, "ack_path": a.ack_path, "queue_packets": a.queue_packets, "runs": rows}, indent=1))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
