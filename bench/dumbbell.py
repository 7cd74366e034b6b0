#!/usr/bin/env python3
"""Speed benchmark: the anchor dumbbell, run in pathpool, ns-3 and htsim side by side.

The workload is the one of ``shared/anchors/ns3/dumbbell.cc``: N long-lived TCP flows,
1 Gb/s 1 ms access links, a bottleneck of rate R with 10 ms delay and a Q-packet
drop-tail FIFO, 10 simulated seconds, flows started 10 ms apart. Two sizes:

    small   N = 10,  R = 100 Mb/s, Q = 200
    large   N = 100, R = 1 Gb/s,   Q = 2000

Two comparisons run on each workload, each with pathpool in the other simulator's model:

    ns-3   against pathpool with ns-3 3.44's defaults written out (SACK, PRR, delayed ACKs,
           1 s minimum RTO, 54-byte headers): ``docs/ns3-anchor-notes.md``
    htsim  (``shared/anchors/htsim/main_dumbbell_anchor.cpp``, ``-ssthresh 100``) against
           pathpool with htsim's TCP model (no SACK, no delayed ACKs, 1500-byte packets and
           40-byte ACKs, initial ssthresh 100 packets, 250 ms minimum RTO, 3 s initial RTO):
           ``bench/htsim_dumbbell.py``, ``docs/performance.md``

For each workload and each simulator it reports wall seconds (the simulation loop, as
each simulator times it; the whole process is in ``--json``), events, events/s, data
packets delivered per wall second, peak memory (max RSS of that process alone, from
GNU time's ``%M`` around it, or ``os.wait4`` without GNU time), total goodput (bytes
delivered to the receiving applications x 8 / simulated time), Jain's index over the
flows' goodputs, and pathpool's speed and memory against each.

Usage:  python bench/dumbbell.py [--workload small|large|all] [--repeat K]
                                 [--sim all|ns3|htsim|pathpool ...] [--tcp newreno]
                                 [--json FILE] [--ns3-cache DIR] [--htsim-cache DIR]

Only the standard library and the project's dependencies (rich) are used.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

try:  # rich is a project dependency; keep a plain fallback so a bare python still works.
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.table import Table

    HAVE_RICH = True
except ImportError:  # pragma: no cover - exercised only without rich
    HAVE_RICH = False

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ns3_dumbbell import (  # noqa: E402  (the shared scenario module beside this file)
    MSS,
    NS3_CC_PARAMS,
    REPO,
    TCP_VARIANTS,
)
from ns3_dumbbell import build_pathpool as _build_pathpool  # noqa: E402
from ns3_dumbbell import pathpool_scenario as _dumbbell_scenario  # noqa: E402
from ns3_dumbbell import tail  # noqa: E402
import htsim_dumbbell  # noqa: E402  (htsim's anchor: build, run, and its model as a pathpool scenario)

SIM_TIME_S = 10.0
FLOW_START_STEP = "10ms"


@dataclass(frozen=True)
class Workload:
    name: str
    flows: int
    rate: str  # as written for both ns-3 and pathpool
    queue: int  # packets, as the anchor's --queue

    def describe(self) -> str:
        return f"N={self.flows}, R={self.rate}, Q={self.queue}p"


WORKLOADS = {
    "small": Workload("small", 10, "100Mbps", 200),
    "large": Workload("large", 100, "1Gbps", 2000),
}

# Each comparison: (the other simulator, pathpool in that simulator's model).
COMPARISONS = {"ns3": ("ns3", "pathpool"), "htsim": ("htsim", "pathpool-htsim")}
SIMULATORS = ("pathpool", "ns3", "pathpool-htsim", "htsim")
LABEL = {"pathpool": "pathpool (ns-3 model)", "ns3": "ns-3", "pathpool-htsim": "pathpool (htsim model)", "htsim": "htsim"}
PATHPOOL_REQUIRED = (
    "events",
    "wall_s",
    "packets_delivered",
    "bytes_delivered",
    "flow_bytes_delivered",
    "duration_s",
    "total_goodput_bps",
    "jain_index",
)
# Issue 20's targets: delivered data packets per wall second at least these multiples of the
# other simulator's, and peak RSS at most htsim's + 10 MiB.
SPEED_TARGET = {"ns3": 100.0, "htsim": 1.5}
RSS_MARGIN_MIB = {"htsim": 10.0}


class BenchError(RuntimeError):
    pass


# --------------------------------------------------------------------------- scenario


def htsim_scenario(w: Workload, seed: int, sim_time: float) -> str:
    """The pathpool scenario doing the htsim anchor's work with htsim's TCP model."""
    return htsim_dumbbell.pathpool_scenario(name=f"bench-dumbbell-{w.name}-htsim", flows=w.flows, rate=w.rate,
                                            queue=w.queue, seed=seed, sim_time=sim_time, start_step=FLOW_START_STEP,
                                            generator="bench/dumbbell.py")


def rate_mbps(rate: str) -> float:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([MG])bps", rate)
    if not m:
        raise BenchError(f"rate {rate!r}: expected NMbps or NGbps")
    return float(m.group(1)) * (1000 if m.group(2) == "G" else 1)


def pathpool_scenario(w: Workload, cc: str, seed: int, sim_time: float) -> str:
    """The pathpool scenario TOML for a workload, with ns-3 3.44's defaults made explicit
    (bench/ns3_dumbbell.py, shared with the cross-validation)."""
    return _dumbbell_scenario(
        name=f"bench-dumbbell-{w.name}",
        description=f"ns-3 anchor dumbbell: {w.flows} bulk flows, {w.rate} bottleneck, {w.queue}-packet FIFO",
        flows=w.flows,
        rate=w.rate,
        queue=w.queue,
        cc=cc,
        seed=seed,
        sim_time=sim_time,
        bottleneck_delay="10ms",
        start_step=FLOW_START_STEP,
        sample_interval="0s",  # no time series: the ns-3 anchor records none
        cc_params=NS3_CC_PARAMS.get(cc),
        generator="bench/dumbbell.py",
    )


# --------------------------------------------------------------------------- processes


@dataclass
class Proc:
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    max_rss_kb: int
    rss_source: str = "os.wait4"


def run_measured(argv: list[str], cwd: Path | None = None, timeout: float | None = None) -> Proc:
    """Run argv (no shell) and return its output, wall time and its own peak RSS.

    The child's resource usage comes from os.wait4 on that child, so the peak RSS is
    the child's alone (not this Python process's, nor that of other children)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        timer = None
        timed_out = threading.Event()
        if timeout:

            def kill():
                timed_out.set()
                p.kill()

            timer = threading.Timer(timeout, kill)
            timer.start()
        try:
            while True:
                try:
                    _, status, ru = os.wait4(p.pid, 0)
                    break
                except InterruptedError:
                    continue
        except BaseException:
            p.kill()
            p.wait()
            raise
        finally:
            if timer:
                timer.cancel()
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    if timed_out.is_set():
        raise BenchError(f"{argv[0]} killed after the {timeout:g} s timeout")
    return Proc(p.returncode, stdout, stderr, wall, ru.ru_maxrss)  # ru_maxrss: KiB on Linux


GNU_TIME = Path("/usr/bin/time")


def run_peak_rss(argv: list[str], cwd: Path | None = None, timeout: float | None = None) -> Proc:
    """run_measured with the peak RSS taken by GNU time around the program when it is installed.

    A child's ru_maxrss from os.wait4 starts at its parent's resident size when it execs (Linux
    keeps the larger high-water mark across exec), so a program forked from this Python process
    (~20 MiB with rich loaded) never reads below Python's size: the floor hid the simulators'
    own figures (e.g. pathpool's "20.6 MiB" for 10 and 100 flows). GNU time forks the program
    from its own small process and reports that child's ru_maxrss. Without it, os.wait4's
    figure is kept and `rss_source` says so."""
    if not GNU_TIME.is_file():
        p = run_measured(argv, cwd=cwd, timeout=timeout)
        p.rss_source = "os.wait4 (includes the Python parent's size at exec)"
        return p
    with tempfile.NamedTemporaryFile(suffix=".rss") as f:
        p = run_measured([str(GNU_TIME), "-f", "%M", "-o", f.name] + argv, cwd=cwd, timeout=timeout)
        words = Path(f.name).read_text().split()
    if p.returncode == 0:
        if not words or not words[-1].isdigit():
            raise BenchError(f"GNU time wrote no peak RSS for {argv[0]}")
        p.max_rss_kb = int(words[-1])
    p.rss_source = "GNU time %M"
    return p


# --------------------------------------------------------------------------- builds


def shared_dir() -> Path:
    env = os.environ.get("PATHPOOL_SHARED")
    return Path(env).resolve() if env else (REPO.parent / "shared").resolve()


def build_ns3(cache: Path | None) -> Path:
    script = shared_dir() / "anchors" / "ns3" / "build.sh"
    if not script.is_file():
        raise BenchError(
            f"no ns-3 anchor build script at {script} (set PATHPOOL_SHARED to the shared/ folder)"
        )
    argv = ["bash", str(script)] + ([str(cache)] if cache else [])
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        raise BenchError(f"ns-3 anchor build failed ({' '.join(argv)}):\n{tail(r.stderr + r.stdout)}")
    lines = [ln.strip() for ln in r.stdout.splitlines() if ln.strip()]
    binary = Path(lines[-1]) if lines else None
    if binary is None or not os.access(binary, os.X_OK):
        raise BenchError(f"ns-3 anchor build printed no executable path:\n{tail(r.stdout)}")
    return binary


def build_pathpool() -> Path:
    return _build_pathpool(BenchError)


# --------------------------------------------------------------------------- runs


@dataclass
class Run:
    simulator: str
    workload: str
    wall_s: float  # simulation loop, as timed by the simulator itself
    process_wall_s: float  # spawn to exit, as timed here
    events: int
    packets_delivered: float
    packets_estimated: bool  # True: sink bytes / MSS, not a count
    bytes_delivered: int
    goodput_mbps: float
    jain: float
    max_rss_kb: int
    rss_source: str
    flow_bytes_delivered: list[int] | None = None
    raw: dict = field(default_factory=dict)


def jain_index(xs: list[float]) -> float:
    s, sq = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * sq) if sq > 0 else 0.0


def run_ns3(binary: Path, w: Workload, tcp_type: str, sim_time: float, timeout: float | None) -> Run:
    argv = [
        str(binary),
        f"--flows={w.flows}",
        f"--time={sim_time:g}",
        f"--tcp={tcp_type}",
        f"--rate={w.rate}",
        "--delay=10ms",
        f"--queue={w.queue}",
    ]
    p = run_peak_rss(argv, timeout=timeout)
    if p.returncode != 0:
        raise BenchError(f"ns-3 exited with {p.returncode}: {' '.join(argv)}\n{tail(p.stderr + p.stdout)}")
    kv = {}
    for line in p.stdout.splitlines():
        pairs = dict(re.findall(r"(\w+)=(\S+)", line))
        if {"goodput_total_mbps", "events", "wall_s"} <= pairs.keys():
            kv = pairs
    if not kv:
        raise BenchError(f"no result line in ns-3's output:\n{tail(p.stdout)}")
    goodput = float(kv["goodput_total_mbps"])
    sim_s = float(kv.get("sim_s", sim_time))
    # The anchor prints only the total goodput (6 significant digits): recover the sink
    # byte count from it, and estimate delivered data packets as bytes / MSS.
    bytes_delivered = round(goodput * 1e6 * sim_s / 8)
    return Run(
        simulator="ns3",
        workload=w.name,
        wall_s=float(kv["wall_s"]),
        process_wall_s=p.wall_s,
        events=int(kv["events"]),
        packets_delivered=bytes_delivered / MSS,
        packets_estimated=True,
        bytes_delivered=bytes_delivered,
        goodput_mbps=goodput,
        jain=float(kv["jain"]),
        max_rss_kb=p.max_rss_kb,
        rss_source=p.rss_source,
        raw={"argv": argv, "stdout": p.stdout.strip()},
    )


def parse_pathpool_json(stdout: str) -> dict:
    for line in reversed(stdout.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                continue
    raise BenchError(f"no JSON object on pathpool-sim's stdout:\n{tail(stdout)}")


def run_htsim(binary: Path, w: Workload, sim_time: float, timeout: float | None) -> Run:
    argv = htsim_dumbbell.argv(binary, w.flows, rate_mbps(w.rate), w.queue, sim_time)
    p = run_peak_rss(argv, timeout=timeout)
    if p.returncode != 0:
        raise BenchError(f"htsim exited with {p.returncode}: {' '.join(argv)}\n{tail(p.stderr + p.stdout)}")
    d = htsim_dumbbell.parse_output(p.stdout, BenchError)
    # htsim's sinks count 1500-byte packets cumulatively ACKed (the SYN takes sequence
    # number 1); pathpool's goodput counts 1460-byte payloads: compare in payload bytes.
    per_flow_wire = [float(g) for g in d["per_flow_goodput_bps_wire"]]
    payload = htsim_dumbbell.HTSIM_MSS / htsim_dumbbell.HTSIM_PACKET
    bytes_delivered = round(sum(per_flow_wire) * sim_time / 8 * payload)
    return Run(
        simulator="htsim",
        workload=w.name,
        wall_s=float(d["loop_wall_s"]),
        process_wall_s=p.wall_s,
        events=int(d["events"]),
        packets_delivered=int(d["data_pkts_acked"]),
        packets_estimated=False,
        bytes_delivered=bytes_delivered,
        goodput_mbps=bytes_delivered * 8 / sim_time / 1e6,
        jain=float(d["jain_index"]),
        max_rss_kb=p.max_rss_kb,
        rss_source=p.rss_source,
        raw={"argv": argv, "json": d},
    )


def run_pathpool(binary: Path, scenario: Path, seed: int, w: Workload, timeout: float | None,
                 simulator: str = "pathpool") -> Run:
    argv = [str(binary), "run", str(scenario), "--seed", str(seed), "--json"]
    p = run_peak_rss(argv, cwd=REPO, timeout=timeout)
    if p.returncode != 0:
        raise BenchError(f"pathpool-sim exited with {p.returncode}: {' '.join(argv)}\n{tail(p.stderr + p.stdout)}")
    d = parse_pathpool_json(p.stdout)
    missing = [k for k in PATHPOOL_REQUIRED if k not in d]
    if missing:
        raise BenchError(f"pathpool-sim's JSON lacks {', '.join(missing)}: {json.dumps(d)[:500]}")
    flows = [int(b) for b in d["flow_bytes_delivered"]]
    duration = float(d["duration_s"])
    bytes_delivered = int(d["bytes_delivered"])
    return Run(
        simulator=simulator,
        workload=w.name,
        wall_s=float(d["wall_s"]),
        process_wall_s=p.wall_s,
        events=int(d["events"]),
        packets_delivered=int(d["packets_delivered"]),
        packets_estimated=False,
        bytes_delivered=bytes_delivered,
        goodput_mbps=bytes_delivered * 8 / duration / 1e6,
        # Same definition as the anchor: Jain's index over per-flow goodputs.
        jain=jain_index([float(b) for b in flows]) if flows else float(d["jain_index"]),
        max_rss_kb=p.max_rss_kb,
        rss_source=p.rss_source,
        flow_bytes_delivered=flows,
        raw={"argv": argv, "json": d},
    )


# --------------------------------------------------------------------------- summary


def summarize(runs: list[Run]) -> dict:
    """The fastest repeat's wall time (the machine is shared: the least disturbed run is the
    one to compare; the median is kept too); the other numbers from the repeats (they are
    deterministic in every simulator, which is checked), peak RSS the largest seen."""
    first = runs[0]
    wall = min(r.wall_s for r in runs)
    deterministic = all(
        (r.events, r.bytes_delivered) == (first.events, first.bytes_delivered) for r in runs
    )
    return {
        "simulator": first.simulator,
        "repeats": len(runs),
        "wall_s": wall,
        "wall_s_median": statistics.median(r.wall_s for r in runs),
        "wall_s_all": [r.wall_s for r in runs],
        "process_wall_s": min(r.process_wall_s for r in runs),
        "events": first.events,
        "events_per_s": first.events / wall if wall > 0 else float("inf"),
        "packets_delivered": first.packets_delivered,
        "packets_estimated": first.packets_estimated,
        "delivered_packets_per_s": first.packets_delivered / wall if wall > 0 else float("inf"),
        "max_rss_kb": max(r.max_rss_kb for r in runs),
        "rss_source": first.rss_source,
        "bytes_delivered": first.bytes_delivered,
        "goodput_mbps": first.goodput_mbps,
        "jain": first.jain,
        "deterministic": deterministic,
    }


def ratios(s: dict[str, dict]) -> dict:
    """pathpool against each other simulator, each in that simulator's model."""
    out = {}
    for other, (osim, psim) in COMPARISONS.items():
        if osim not in s or psim not in s:
            continue
        o, pp = s[osim], s[psim]
        speed = pp["delivered_packets_per_s"] / o["delivered_packets_per_s"] if o["delivered_packets_per_s"] else float("inf")
        rss_diff = (pp["max_rss_kb"] - o["max_rss_kb"]) / 1024
        r = {
            "delivered_pkt_per_s_pathpool_over_other": speed,
            "wall_other_over_pathpool": o["wall_s"] / pp["wall_s"] if pp["wall_s"] > 0 else float("inf"),
            "process_wall_other_over_pathpool": o["process_wall_s"] / pp["process_wall_s"],
            "memory_other_over_pathpool": o["max_rss_kb"] / pp["max_rss_kb"] if pp["max_rss_kb"] else None,
            "rss_pathpool_minus_other_mib": rss_diff,
            "goodput_pathpool_minus_other_pct": 100 * (pp["goodput_mbps"] - o["goodput_mbps"]) / o["goodput_mbps"]
            if o["goodput_mbps"]
            else None,
            "speed_target": SPEED_TARGET[other],
            "speed_target_met": speed >= SPEED_TARGET[other],
        }
        if other in RSS_MARGIN_MIB:
            r["rss_margin_mib"] = RSS_MARGIN_MIB[other]
            r["rss_target_met"] = rss_diff <= RSS_MARGIN_MIB[other]
        out[other] = r
    return out


def fmt_si(x: float) -> str:
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.2f}{suffix}"
    return f"{x:.0f}"


METRICS = (  # (label, summary key, format)
    ("wall s (loop, best)", "wall_s", "{:.3f}"),
    ("process wall s", "process_wall_s", "{:.3f}"),
    ("events", "events", "si"),
    ("events/s", "events_per_s", "si"),
    ("delivered pkt/s", "delivered_packets_per_s", "si"),
    ("peak RSS MiB", "max_rss_mib", "{:.1f}"),
    ("goodput Mb/s", "goodput_mbps", "{:.2f}"),
    ("Jain's index", "jain", "{:.4f}"),
)


def ratio_cell(key: str, pp: float, other: float) -> str:
    """pathpool against the other simulator, read as "pathpool is N x better" where it has a sense."""
    if key in ("delivered_packets_per_s", "events_per_s"):
        return f"{pp / other:.2f}x" if other else "-"
    if key in ("wall_s", "process_wall_s"):
        return f"{other / pp:.2f}x" if pp else "-"
    if key == "max_rss_mib":
        return f"{pp - other:+.1f} MiB"
    if key == "goodput_mbps":
        return f"{100 * (pp - other) / other:+.2f}%" if other else "-"
    return ""


def workload_table(wname: str, wres: dict) -> tuple[str, list[str], list[list[str]], list[str]]:
    """Rows are metrics; for each comparison, pathpool in that simulator's model, the simulator,
    and the ratio (speed: pathpool / other for rates, other / pathpool for wall times; RSS and
    goodput: pathpool minus other)."""
    summ = wres["summary"]
    cols = [s for s in SIMULATORS if s in summ]
    pairs = [(o, (osim, psim)) for o, (osim, psim) in COMPARISONS.items() if osim in summ and psim in summ]
    head = ["metric"]
    for s in cols:
        head.append(LABEL[s])
        for o, (osim, psim) in pairs:
            if s == osim:
                head.append(f"pathpool vs {LABEL[osim]}")
    rows = []
    for label, key, fmt in METRICS:
        row = [label]
        for s in cols:
            v = summ[s]["max_rss_kb"] / 1024 if key == "max_rss_mib" else summ[s][key]
            txt = fmt_si(v) if fmt == "si" else fmt.format(v)
            if key == "delivered_packets_per_s" and summ[s]["packets_estimated"]:
                txt += "*"
            row.append(txt)
            for o, (osim, psim) in pairs:
                if s == osim:
                    pv = summ[psim]["max_rss_kb"] / 1024 if key == "max_rss_mib" else summ[psim][key]
                    row.append(ratio_cell(key, pv, v))
        rows.append(row)
    notes = []
    for s in cols:
        if not summ[s]["deterministic"]:
            notes.append(f"{LABEL[s]}: events or bytes differ between repeats (not deterministic)")
    for o, r in (wres.get("ratios") or {}).items():
        verdict = "met" if r["speed_target_met"] else "NOT met"
        gp = r["goodput_pathpool_minus_other_pct"]
        note = (f"vs {LABEL[o]}: pathpool delivers {r['delivered_pkt_per_s_pathpool_over_other']:.2f}x its data packets "
                f"per wall second (target >= {r['speed_target']:g}x: {verdict}); goodput "
                f"{f'{gp:+.2f}%' if gp is not None else '-'}; peak RSS {r['rss_pathpool_minus_other_mib']:+.1f} MiB")
        if "rss_target_met" in r:
            note += f" (target <= +{r['rss_margin_mib']:g} MiB: {'met' if r['rss_target_met'] else 'NOT met'})"
        notes.append(note)
    title = f"{wname}: {WORKLOADS[wname].describe()}, {wres['params']['tcp']}, {wres['params']['sim_time_s']:g} s simulated"
    return title, head, rows, notes


NOTES = (
    "wall s (loop, best): the simulation loop as each simulator times it (ns-3: Simulator::Run; "
    "htsim: its doNextEvent loop, with its RTO log lines; pathpool: its event loop), the fastest of "
    "the repeats; process wall s: spawn to exit, fastest. Peak RSS: ru_maxrss of that process alone "
    "(GNU time %M). Goodput: bytes delivered to the receiving applications x 8 / simulated time "
    "(htsim: its 1500-byte packets counted as 1460-byte payloads, as pathpool's htsim model sends). "
    "* ns-3's delivered packets are estimated as sink bytes / 1448 (the anchor counts no packets). "
    "Events are each simulator's own unit: delivered pkt/s is the like-for-like rate. "
    "Each comparison runs pathpool in that simulator's TCP model (docs/performance.md)."
)


def print_results(results: dict, console) -> None:
    for wname, wres in results.items():
        title, head, rows, notes = workload_table(wname, wres)
        if HAVE_RICH:
            console.print(title, style="bold", highlight=False)
            t = Table()
            for i, h in enumerate(head):
                t.add_column(h, justify="left" if i == 0 else "right", no_wrap=True)
            for row in rows:
                t.add_row(*row)
            console.print(t)
            for n in notes:
                bad = "NOT met" in n or "not deterministic" in n
                console.print(n, style="bold red" if bad else "bold", highlight=False)
            console.print()
        else:
            print(title)
            widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
            print("  ".join(x.ljust(wd) for x, wd in zip(head, widths)))
            for r in rows:
                print("  ".join(x.ljust(wd) for x, wd in zip(r, widths)))
            for n in notes:
                print(n)
            print()
    if HAVE_RICH:
        console.print(NOTES, style="dim", highlight=False)
    else:
        print(NOTES)


# --------------------------------------------------------------------------- progress


class PlainProgress:
    """Stand-in for rich's Progress when rich is missing: one line per step on stderr."""

    def __init__(self):
        self.tasks = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def add_task(self, description, total=None, **_):
        tid = len(self.tasks)
        self.tasks[tid] = description
        print(f"... {description}", file=sys.stderr, flush=True)
        return tid

    def update(self, tid, description=None, **_):
        if description:
            print(f"... {description}", file=sys.stderr, flush=True)

    def advance(self, tid, n=1):
        pass

    def remove_task(self, tid):
        pass

    def log(self, *args):
        print(*args, file=sys.stderr, flush=True)


def make_progress(console):
    if not HAVE_RICH:
        return PlainProgress()
    return Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


# --------------------------------------------------------------------------- main


def host_info() -> dict:
    cpu = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "hostname": platform.node(),
        "platform": platform.platform(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
    }


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description="Run the anchor dumbbell in pathpool, ns-3 and htsim and compare speed.",
    )
    ap.add_argument("--workload", choices=["small", "large", "all"], default="all")
    ap.add_argument("--repeat", type=int, default=1, metavar="K", 
                    help="runs per simulator and workload; the fastest wall time is reported (the median in --json)")
    ap.add_argument("--tcp", choices=sorted(TCP_VARIANTS), default="newreno",
                    help="congestion control of the ns-3 comparison (the htsim comparison is always its NewReno)")
    ap.add_argument("--json", type=Path, metavar="FILE", help="save the raw numbers here")
    ap.add_argument("--ns3-cache", type=Path, metavar="DIR", help="ns-3 wheel/virtualenv and binary cache for the anchor's build.sh (default: its own, ~/.cache/pathpool-anchors)")
    ap.add_argument("--htsim-cache", type=Path, metavar="DIR",
                    help="htsim anchor build directory for its build.sh (default: its own, ~/.cache/pathpool-anchors/htsim)")
    ap.add_argument("--sim", nargs="+", choices=["all", "both", "pathpool", "ns3", "htsim"], default=["all"],
                    help="what to run: ns3 (ns-3 and pathpool in its model), htsim (htsim and pathpool in its model), "
                         "pathpool (pathpool in both models only), all (default; `both` is the same)")
    ap.add_argument("--pathpool-bin", type=Path, metavar="PATH", help="use this pathpool-sim binary instead of building one with cargo")
    ap.add_argument("--seed", type=int, default=1, help="pathpool seed (ns-3's anchor is deterministic)")
    ap.add_argument("--sim-time", type=float, default=SIM_TIME_S, metavar="S", help=argparse.SUPPRESS)
    ap.add_argument("--scenario-dir", type=Path, metavar="DIR", help="write the pathpool scenarios here instead of a temporary folder")
    ap.add_argument("--timeout", type=float, metavar="S", help="kill a run that takes longer than this")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    console = Console(stderr=True) if HAVE_RICH else None
    out_console = Console() if HAVE_RICH else None
    chosen = set(args.sim)
    if chosen & {"all", "both"}:
        chosen = {"ns3", "htsim"}
    sims = []
    for other, (osim, psim) in COMPARISONS.items():
        if other in chosen or "pathpool" in chosen:
            sims.append(psim)
        if other in chosen:
            sims.append(osim)
    sims = [s for s in SIMULATORS if s in sims]
    names = ["small", "large"] if args.workload == "all" else [args.workload]
    ns3_type, pp_cc = TCP_VARIANTS[args.tcp]

    results: dict = {}
    binaries: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="pathpool-bench-") as tmp:
        scen_dir = args.scenario_dir or Path(tmp)
        scen_dir.mkdir(parents=True, exist_ok=True)
        total = len(names) * len(sims) * args.repeat
        try:
            with make_progress(console) as progress:
                overall = progress.add_task("building", total=total)
                bins: dict[str, Path] = {}
                if "ns3" in sims:
                    progress.update(overall, description="building the ns-3 anchor (first time: installs the ns3 wheel)")
                    bins["ns3"] = build_ns3(args.ns3_cache)
                if "htsim" in sims:
                    progress.update(overall, description="building the htsim anchor (first time: ~30 s)")
                    bins["htsim"] = htsim_dumbbell.build(shared_dir(), args.htsim_cache, BenchError)
                if "pathpool" in sims or "pathpool-htsim" in sims:
                    if args.pathpool_bin:
                        bins["pathpool"] = args.pathpool_bin.resolve()
                    else:
                        progress.update(overall, description="cargo build --release -p pathpool-sim")
                        bins["pathpool"] = build_pathpool()
                binaries = {k: str(v) for k, v in bins.items()}
                for name in names:
                    w = WORKLOADS[name]
                    toml_text = pathpool_scenario(w, pp_cc, args.seed, args.sim_time)
                    scenario = scen_dir / f"dumbbell-{name}.toml"
                    scenario.write_text(toml_text)
                    htsim_toml = htsim_scenario(w, args.seed, args.sim_time)
                    htsim_scen = scen_dir / f"dumbbell-{name}-htsim.toml"
                    htsim_scen.write_text(htsim_toml)
                    runs: dict[str, list[Run]] = {s: [] for s in sims}
                    for k in range(args.repeat):
                        for sim in sims:
                            rep = f" (run {k + 1}/{args.repeat})" if args.repeat > 1 else ""
                            progress.update(overall, description=f"{name} [{w.describe()}]: {LABEL[sim]}{rep}")
                            if sim == "ns3":
                                r = run_ns3(bins["ns3"], w, ns3_type, args.sim_time, args.timeout)
                            elif sim == "htsim":
                                r = run_htsim(bins["htsim"], w, args.sim_time, args.timeout)
                            elif sim == "pathpool-htsim":
                                r = run_pathpool(bins["pathpool"], htsim_scen, args.seed, w, args.timeout, sim)
                            else:
                                r = run_pathpool(bins["pathpool"], scenario, args.seed, w, args.timeout)
                            runs[sim].append(r)
                            progress.advance(overall)
                    summary = {sim: summarize(rs) for sim, rs in runs.items()}
                    results[name] = {
                        "params": {**asdict(w), "access": "1Gbps/1ms", "bottleneck_delay": "10ms",
                                   "sim_time_s": args.sim_time, "start_step": FLOW_START_STEP,
                                   "tcp": args.tcp, "ns3_tcp": ns3_type, "pathpool_cc": pp_cc},
                        "pathpool_scenario": toml_text,
                        "pathpool_htsim_scenario": htsim_toml,
                        "runs": {sim: [asdict(r) for r in rs] for sim, rs in runs.items()},
                        "summary": summary,
                        "ratios": ratios(summary),
                    }
                progress.update(overall, description="done")
        except BenchError as e:
            msg = f"bench/dumbbell.py: {e}"
            (console.print(msg, style="red", markup=False, highlight=False) if console else print(msg, file=sys.stderr))
            return 1

    if args.json:
        doc = {
            "benchmark": "dumbbell",
            "format": 2,
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "host": host_info(),
            "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
            "binaries": binaries,
            "workloads": results,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    print_results(results, out_console)
    if args.json:
        print(f"raw numbers: {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
