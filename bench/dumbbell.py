#!/usr/bin/env python3
"""Speed benchmark: the ns-3 anchor dumbbell, run in pathpool and in ns-3 side by side.

The workload is the one of ``shared/anchors/ns3/dumbbell.cc``: N long-lived TCP flows,
1 Gb/s 1 ms access links, a bottleneck of rate R with 10 ms delay and a Q-packet
drop-tail FIFO, 10 simulated seconds, flows started 10 ms apart. Two sizes:

    small   N = 10,  R = 100 Mb/s, Q = 200
    large   N = 100, R = 1 Gb/s,   Q = 2000

For each workload and each simulator it reports wall seconds (the simulation loop, as
each simulator times it; the whole process is in ``--json``), events, events/s, data
packets delivered per wall second, peak memory (max RSS of that process alone, from
``os.wait4``), total goodput (bytes delivered to the receiving applications x 8 /
simulated time), Jain's index over the flows' goodputs, and the ns-3/pathpool wall-time
and memory ratios. The pathpool scenario makes every ns-3 default that matters explicit;
``docs/ns3-anchor-notes.md`` says what each one is and where it comes from.

Usage:  python bench/dumbbell.py [--workload small|large|all] [--repeat K]
                                 [--tcp newreno] [--json FILE] [--ns3-cache DIR]

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

SIMULATORS = ("pathpool", "ns3")
LABEL = {"pathpool": "pathpool", "ns3": "ns-3"}
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
SPEED_TARGET = 50.0  # pathpool must be at least this many times faster than ns-3


class BenchError(RuntimeError):
    pass


# --------------------------------------------------------------------------- scenario


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
    p = run_measured(argv, timeout=timeout)
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


def run_pathpool(binary: Path, scenario: Path, seed: int, w: Workload, timeout: float | None) -> Run:
    argv = [str(binary), "run", str(scenario), "--seed", str(seed), "--json"]
    p = run_measured(argv, cwd=REPO, timeout=timeout)
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
        simulator="pathpool",
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
        flow_bytes_delivered=flows,
        raw={"argv": argv, "json": d},
    )


# --------------------------------------------------------------------------- summary


def summarize(runs: list[Run]) -> dict:
    """Median wall time over the repeats; the other numbers from the repeats (they are
    deterministic in both simulators, which is checked), peak RSS the largest seen."""
    first = runs[0]
    wall = statistics.median(r.wall_s for r in runs)
    deterministic = all(
        (r.events, r.bytes_delivered) == (first.events, first.bytes_delivered) for r in runs
    )
    return {
        "simulator": first.simulator,
        "repeats": len(runs),
        "wall_s": wall,
        "wall_s_all": [r.wall_s for r in runs],
        "process_wall_s": statistics.median(r.process_wall_s for r in runs),
        "events": first.events,
        "events_per_s": first.events / wall if wall > 0 else float("inf"),
        "packets_delivered": first.packets_delivered,
        "packets_estimated": first.packets_estimated,
        "delivered_packets_per_s": first.packets_delivered / wall if wall > 0 else float("inf"),
        "max_rss_kb": max(r.max_rss_kb for r in runs),
        "bytes_delivered": first.bytes_delivered,
        "goodput_mbps": first.goodput_mbps,
        "jain": first.jain,
        "deterministic": deterministic,
    }


def ratios(s: dict[str, dict]) -> dict | None:
    if "ns3" not in s or "pathpool" not in s:
        return None
    ns3, pp = s["ns3"], s["pathpool"]
    wall = ns3["wall_s"] / pp["wall_s"] if pp["wall_s"] > 0 else float("inf")
    return {
        "wall_ns3_over_pathpool": wall,
        "process_wall_ns3_over_pathpool": ns3["process_wall_s"] / pp["process_wall_s"],
        "memory_ns3_over_pathpool": ns3["max_rss_kb"] / pp["max_rss_kb"] if pp["max_rss_kb"] else None,
        "goodput_pathpool_minus_ns3_pct": 100 * (pp["goodput_mbps"] - ns3["goodput_mbps"]) / ns3["goodput_mbps"]
        if ns3["goodput_mbps"]
        else None,
        "speed_target": SPEED_TARGET,
        "speed_target_met": wall >= SPEED_TARGET,
    }


def fmt_si(x: float) -> str:
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.2f}{suffix}"
    return f"{x:.0f}"


METRICS = (  # (label, summary key, format)
    ("wall s (loop)", "wall_s", "{:.3f}"),
    ("process wall s", "process_wall_s", "{:.3f}"),
    ("events", "events", "si"),
    ("events/s", "events_per_s", "si"),
    ("delivered pkt/s", "delivered_packets_per_s", "si"),
    ("peak RSS MiB", "max_rss_mib", "{:.1f}"),
    ("goodput Mb/s", "goodput_mbps", "{:.2f}"),
    ("Jain's index", "jain", "{:.4f}"),
)


def workload_table(wname: str, wres: dict) -> tuple[str, list[str], list[list[str]], list[str]]:
    """Rows are metrics; columns pathpool, ns-3 and their ratio (ns-3 / pathpool)."""
    summ = wres["summary"]
    sims = [s for s in SIMULATORS if s in summ]
    both = len(sims) == 2
    head = ["metric"] + [LABEL[s] for s in sims] + (["ns-3 / pathpool"] if both else [])
    rows = []
    for label, key, fmt in METRICS:
        vals = []
        for s in sims:
            v = summ[s]["max_rss_kb"] / 1024 if key == "max_rss_mib" else summ[s][key]
            txt = fmt_si(v) if fmt == "si" else fmt.format(v)
            if key == "delivered_packets_per_s" and summ[s]["packets_estimated"]:
                txt += "*"
            vals.append((v, txt))
        row = [label] + [t for _, t in vals]
        if both:
            pp, ns = vals[0][0], vals[1][0]
            # Rates are compared through the wall-time ratio; a rate ratio reads backwards.
            rate = key in ("events_per_s", "delivered_packets_per_s")
            row.append("" if rate else (f"{ns / pp:.2f}x" if pp else "-"))
        rows.append(row)
    notes = []
    for s in sims:
        if not summ[s]["deterministic"]:
            notes.append(f"{LABEL[s]}: events or bytes differ between repeats (not deterministic)")
    r = wres.get("ratios")
    if r:
        verdict = "met" if r["speed_target_met"] else "NOT met"
        mem = r["memory_ns3_over_pathpool"]
        gp = r["goodput_pathpool_minus_ns3_pct"]
        notes.insert(0, f"speed: pathpool is {r['wall_ns3_over_pathpool']:.1f}x faster than ns-3 "
                        f"(target >= {SPEED_TARGET:g}x: {verdict}); memory ns-3/pathpool "
                        f"{f'{mem:.2f}x' if mem else '-'}; pathpool goodput "
                        f"{f'{gp:+.2f}%' if gp is not None else '-'} vs ns-3")
    title = f"{wname}: {WORKLOADS[wname].describe()}, {wres['params']['tcp']}, {wres['params']['sim_time_s']:g} s simulated"
    return title, head, rows, notes


NOTES = (
    "wall s (loop): the simulation loop as each simulator times it (ns-3: Simulator::Run; "
    "pathpool: its event loop), median over repeats; process wall s: spawn to exit. "
    "Peak RSS: ru_maxrss of that process alone (os.wait4). Goodput: bytes delivered to the "
    "receiving applications x 8 / simulated time. * ns-3's delivered packets are estimated "
    "as sink bytes / 1448 (the anchor counts no packets; duplicates that reach the receiver "
    "are missed). Events are each simulator's own: ns-3 also counts cancelled timers it pops, "
    "so delivered pkt/s is the like-for-like rate."
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
        description="Run the ns-3 anchor dumbbell in pathpool and in ns-3 and compare speed.",
    )
    ap.add_argument("--workload", choices=["small", "large", "all"], default="all")
    ap.add_argument("--repeat", type=int, default=1, metavar="K", help="runs per simulator and workload; the median wall time is reported")
    ap.add_argument("--tcp", choices=sorted(TCP_VARIANTS), default="newreno", help="congestion control in both simulators")
    ap.add_argument("--json", type=Path, metavar="FILE", help="save the raw numbers here")
    ap.add_argument("--ns3-cache", type=Path, metavar="DIR", help="ns-3 wheel/virtualenv and binary cache for the anchor's build.sh (default: its own, ~/.cache/pathpool-anchors)")
    ap.add_argument("--sim", choices=["both", "pathpool", "ns3"], default="both", help="run only one side (default: both)")
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
    sims = list(SIMULATORS) if args.sim == "both" else [args.sim]
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
                if "pathpool" in sims:
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
                    runs: dict[str, list[Run]] = {s: [] for s in sims}
                    for k in range(args.repeat):
                        for sim in sims:
                            rep = f" (run {k + 1}/{args.repeat})" if args.repeat > 1 else ""
                            progress.update(overall, description=f"{name} [{w.describe()}]: {LABEL[sim]}{rep}")
                            if sim == "ns3":
                                r = run_ns3(bins["ns3"], w, ns3_type, args.sim_time, args.timeout)
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
            "format": 1,
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
