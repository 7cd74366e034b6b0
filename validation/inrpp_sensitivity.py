#!/usr/bin/env python3
"""INRPP's cache sensitivity (Reñé et al., ToN 2022, §IV-E, Fig. 18) and TCP
friendliness (§V-A, Fig. 19): the paper's figures beside pathpool's.

Fig. 18 runs the built-in scenario ``inrpp-cache-sensitivity`` (the Fig. 8
dumbbell with a detour, 100 INRPP flows of 10 MB, one host pair each) for
each cache size (S_high = size / 2, S_low = size / 4, as the paper sets
them), each arrival pattern (one second apart, §IV-A's rule and the
built-in's; 10 ms apart; all at once: the paper does not say, and the
authors' published ns-3 scripts do both) and each hold rule (``hold =
"nonce"``, the paper's text and pathpool's default; ``"interface"``, the
authors' earlier ns-3 router), and prints the AFCT, the cache drops, the
timeouts and retransmissions, and the smallest size without a drop beside
the paper's 1 MB. Both rules are also run with the INRPP flows' ``inrpp =
{ timeout_open_loop = false }`` (as the authors' ns-3 sender: a timeout
leaves a closed-loop sender closed, where §III-C reopens the loop after an
RTO without ACKs).

Fig. 19 runs the built-in scenario ``inrpp-tcp-friendliness`` (50 INRPP and
50 TCP flows, INRPP routers with a 50 ms TCP partition) with each hold rule,
and the same hosts with 100 TCP flows and plain routers (TCP alone), and
prints the per-flow goodputs and TCP's RTT beside the paper's, with where
INRPP's capacity goes: the detour's bytes, the cache drops, INRPP's
segments, retransmissions, timeouts and RTT. It runs the mixed scenario
again with the routers' ``fair_queue`` option (deficit round robin between
the INRPP cache and the TCP partition), with the 50 ms partition and with a
25 ms one (50 ms of traffic at TCP's half share), for Fig. 19(b) both ways.

Usage:  python validation/inrpp_sensitivity.py [--pathpool-bin PATH] [--full]

The default runs 30 Fig. 18 runs (caches 0.5, 1, 2, 5 and 20 MB; both hold
rules with flows one second apart and all at once, and with timeouts that
keep the loop closed, flows one second apart) and the Fig. 19 runs: about
five minutes on one core. --full adds the 0.25, 10 and 50 MB caches, flows
10 ms apart, every arrival pattern for every variant and a 200 s Fig. 19
(about 20 minutes).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "bench"))
from ns3_dumbbell import build_pathpool  # noqa: E402
from inrpp_paper import Run as PaperRun  # noqa: E402

SCENARIOS = REPO / "python" / "pathpool" / "scenarios"
FIG18 = SCENARIOS / "inrpp-cache-sensitivity.toml"
FIG19 = SCENARIOS / "inrpp-tcp-friendliness.toml"
HOLDS = ("nonce", "interface")
# (hold rule, whether a timeout puts the sender back in open loop): the
# paper's text first; `timeout_open_loop = false` is the authors' sender.
VARIANTS = (("nonce", True), ("interface", True), ("nonce", False), ("interface", False))
SIZES_MB = (0.5, 1, 2, 5, 20)
FULL_SIZES_MB = (0.25, 0.5, 1, 2, 5, 10, 20, 50)
# start_step of the 100 flows (the built-in's is 1 s).
ARRIVALS = {"1 s apart": "1s", "all at once": "0s"}
FULL_ARRIVALS = {"1 s apart": "1s", "10 ms apart": "10ms", "all at once": "0s"}


def replace_once(text: str, old: str, new: str) -> str:
    if text.count(old) != 1:
        raise SystemExit(f"expected one {old!r} in a built-in scenario")
    return text.replace(old, new)


def variant(text: str, hold: str, timeout_open_loop: bool) -> str:
    """`text` with routers' `hold` and, unless True, the INRPP flows' timeout rule."""
    if not timeout_open_loop:
        text = replace_once(text, 'transport = "inrpp"\n', 'transport = "inrpp"\ninrpp = { timeout_open_loop = false }\n')
    return text + f'hold = "{hold}"\n'


def label(hold: str, timeout_open_loop: bool) -> str:
    return hold + ("" if timeout_open_loop else "/closed")


def fig18_text(text: str, size_mb: float, step: str, hold: str, timeout_open_loop: bool = True) -> str:
    size = round(size_mb * 1e6)
    text = replace_once(text, 'cache = "1MB"', f"cache = {size}")
    text = replace_once(text, 's_high = "500kB"', f"s_high = {size // 2}")
    text = replace_once(text, 's_low = "250kB"', f"s_low = {size // 4}")
    text = replace_once(text, 'start_step = "1s"', f'start_step = "{step}"')
    return variant(text, hold, timeout_open_loop)


def tcp_alone(text: str) -> str:
    """The Fig. 19 hosts with 100 TCP flows and plain routers."""
    head = text[:text.index("[[flows]]")]
    return head + ('[[flows]]\ncount = 50\nname = "tcpa{i}"\nsrc = "s{i}"\ndst = "d{i}"\nstart_step = "10ms"\ntransport = "tcp"\n\n'
                   '[[flows]]\ncount = 50\nname = "tcp{i}"\nsrc = "t{i}"\ndst = "u{i}"\nstart_step = "10ms"\ntransport = "tcp"\n')


class Run(PaperRun):
    """One pathpool-sim run (inrpp_paper.Run) and the sums this script takes of its tables."""

    def total(self, table: str, column: str, where=lambda r: True) -> float:
        return sum(float(r[column]) for r in self.tables[table] if where(r))

    def flows(self, prefix: str) -> list[dict]:
        return [r for r in self.tables["flows"] if r["name"].startswith(prefix)]

    def mean(self, prefix: str, column: str) -> float:
        rows = self.flows(prefix)
        return sum(float(r[column]) for r in rows) / len(rows)

    def link_bytes(self, name: str) -> float:
        return next(float(r["bytes_sent"]) for r in self.tables["links"] if r["name"] == name)

    def window_goodput(self, prefix: str, start: float, end: float) -> float:
        """Mean per-flow goodput of the `prefix` flows over (start, end] s, from flow_ts."""
        ids = {r["flow_id"] for r in self.flows(prefix)}
        v = [float(r["goodput_bps"]) for r in self.tables["flow_ts"]
             if r["flow_id"] in ids and start < float(r["time_s"]) <= end]
        return sum(v) / len(v)


def fig18(binary: Path, tmp: Path, sizes: tuple[float, ...], arrivals: dict[str, str], full: bool) -> None:
    text = FIG18.read_text()
    print("Fig. 18: cache sensitivity, Fig. 8 dumbbell with 100 INRPP flows of 10 MB (one host pair each);")
    print("         S_high = cache / 2, S_low = cache / 4. Paper: 1 MB is the smallest cache without a drop;")
    print("         below it caches drop and the AFCT suffers (its AFCT values are a plot, not in the text).")
    print("         AFCT over the flows done within the built-in's 700 s; drops are INRPP cache drops.")
    print("         'timeouts keep the loop closed': the flows' inrpp = { timeout_open_loop = false } (the authors'")
    print("         ns-3 sender; the paper's §III-C reopens the loop after an RTO without ACKs).")
    for hold, reopen in VARIANTS:
        for arrival, step in arrivals.items():
            if not reopen and not full and step != "1s":
                continue
            rule = "" if reopen else ", timeouts keep the loop closed"
            print(f"\n  hold = \"{hold}\"{rule}, flows {arrival}")
            print(f"  {'cache MB':>8} {'AFCT s':>8} {'done':>5} {'drops':>9} {'at n4':>9} {'at n0':>9} {'timeouts':>9} {'retransmits':>12}")
            clean = None
            for size in sizes:
                run = Run(binary, fig18_text(text, size, step, hold, reopen), tmp, f"f18-{hold}-{reopen}-{step}-{size}",
                          ("flows", "inrpp_interfaces"), summary=False)
                drops = run.cache_drops()
                done = [float(r["fct_s"]) for r in run.tables["flows"] if r["completed"] == "true"]
                afct = f"{sum(done) / len(done):.2f}" if done else "-"
                print(f"  {size:8g} {afct:>8} {len(done):>5} {drops:>9} "
                      f"{run.cache_drops('n4'):>9} {run.cache_drops('n0'):>9} {int(run.total('flows', 'timeouts')):>9} "
                      f"{int(run.total('flows', 'retransmits')):>12}")
                if drops == 0 and clean is None:
                    clean = size
            print(f"  smallest cache without a drop: {'none tried' if clean is None else f'{clean:g} MB'} (paper: 1 MB)")


def fig19(binary: Path, tmp: Path, duration: str) -> None:
    text = FIG19.read_text()
    if duration != "40s":
        text = replace_once(text, 'duration = "40s"', f'duration = "{duration}"')
    secs = float(duration.rstrip("s"))
    tables = ("flows", "inrpp_interfaces", "links", "flow_ts")
    mixed = [Run(binary, variant(text, hold, reopen), tmp, f"f19-{hold}-{reopen}-{duration}", tables) for hold, reopen in VARIANTS]
    # The routers' fair_queue option (DRR between the INRPP cache and the TCP partition), with the
    # built-in's 50 ms partition, and with 25 ms: 50 ms of traffic at TCP's half share of the link.
    fair = {
        name: [Run(binary, variant(text, hold, reopen) + extra, tmp, f"f19-{tag}-{hold}-{reopen}-{duration}", tables) for hold, reopen in VARIANTS]
        for name, tag, extra in (
            ("FQ", "fq", "fair_queue = true\n"),
            ("FQ 25 ms", "fq25", 'fair_queue = true\ntcp_partition = "25ms"\n'),
        )
    }
    alone = Run(binary, tcp_alone(text), tmp, f"f19-alone-{duration}", tables)
    heads = [label(h, r) for h, r in VARIANTS]
    width = max(len(h) for h in heads) + 2

    def row(name: str, cells: list[str], paper: str = "") -> None:
        print(f"  {name:28} {paper:>7} " + "".join(f"{c:>{width}}" for c in cells))

    print(f"\nFig. 19: TCP friendliness, 50 INRPP + 50 TCP bulk flows vs 100 TCP alone, {duration}, per-flow goodput kb/s")
    print("         (columns: the hold rule; /closed: the INRPP flows' timeout_open_loop = false, the authors' sender)")
    row("", heads, "paper")
    row("TCP mixed", [f"{r.mean('tcp', 'goodput_bps') / 1e3:.1f}" for r in mixed], "~100")
    row("INRPP mixed", [f"{r.mean('inrpp', 'goodput_bps') / 1e3:.1f}" for r in mixed], "~300")
    row("INRPP mixed, 2nd half only", [f"{r.window_goodput('inrpp', secs / 2, secs) / 1e3:.1f}" for r in mixed])
    row("TCP alone", [f"{alone.mean('tcp', 'goodput_bps') / 1e3:.1f}"], "~100")
    row("TCP mean RTT mixed, ms", [f"{r.mean('tcp', 'rtt_mean_s') * 1e3:.0f}" for r in mixed], "a bit >")
    row("TCP mean RTT alone, ms", [f"{alone.mean('tcp', 'rtt_mean_s') * 1e3:.0f}"])
    print("  With the routers' fair_queue option (FQ; 25 ms: and tcp_partition = 25 ms, 50 ms at TCP's half share):")
    for name, runs in fair.items():
        row(f"TCP mixed, {name}", [f"{r.mean('tcp', 'goodput_bps') / 1e3:.1f}" for r in runs], "~100")
        row(f"INRPP mixed, {name}", [f"{r.mean('inrpp', 'goodput_bps') / 1e3:.1f}" for r in runs], "~300")
        row(f"TCP RTT mixed, {name}, ms", [f"{r.mean('tcp', 'rtt_mean_s') * 1e3:.0f}" for r in runs], "a bit >")
    print("  Where INRPP's capacity goes (mixed):")
    inrpp = lambda f: f["name"].startswith("inrpp")  # noqa: E731
    rows = [
        ("detour n0>n1, Mb/s", lambda r: r.link_bytes("n0-n1:n0>n1") * 8 / secs / 1e6, ".2f"),
        ("bottleneck n0>n2, Mb/s", lambda r: r.link_bytes("n0-n2:n0>n2") * 8 / secs / 1e6, ".2f"),
        ("INRPP goodput, all, Mb/s", lambda r: r.total("flows", "goodput_bps", inrpp) / 1e6, ".2f"),
        ("TCP goodput, all, Mb/s", lambda r: r.total("flows", "goodput_bps", lambda f: f["name"].startswith("tcp")) / 1e6, ".2f"),
        ("cache drops at n4", lambda r: r.cache_drops("n4"), "d"),
        ("cache drops at n0", lambda r: r.cache_drops("n0"), "d"),
        ("INRPP segments sent", lambda r: int(r.total("flows", "segments_sent", inrpp)), "d"),
        ("INRPP retransmissions", lambda r: int(r.total("flows", "retransmits", inrpp)), "d"),
        ("INRPP timeouts", lambda r: int(r.total("flows", "timeouts", inrpp)), "d"),
        ("INRPP segments delivered", lambda r: int(r.total("flows", "bytes_delivered", inrpp) / 1448), "d"),
        ("INRPP mean RTT, s", lambda r: r.mean("inrpp", "rtt_mean_s"), ".2f"),
        ("n4>n0 in Backpressure, s", lambda r: r.total("inrpp_interfaces", "backpressure_s", lambda f: f["node"] == "n4" and f["peer"] == "n0"), ".1f"),
        ("n0>n2 in Backpressure, s", lambda r: r.total("inrpp_interfaces", "backpressure_s", lambda f: f["node"] == "n0" and f["peer"] == "n2"), ".1f"),
    ]
    for name, f, fmt in rows:
        row(name, [format(f(r), fmt) for r in mixed])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pathpool-bin", type=Path, metavar="PATH", help="use this pathpool-sim instead of building one with cargo")
    ap.add_argument("--full", action="store_true", help="also the 0.25, 10 and 50 MB caches, flows 10 ms apart, every arrival for every variant, a 200 s Fig. 19")
    args = ap.parse_args()
    binary = args.pathpool_bin.resolve() if args.pathpool_bin else build_pathpool(SystemExit)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pathpool-inrpp-sens-") as tmp:
        if args.full:
            fig18(binary, Path(tmp), FULL_SIZES_MB, FULL_ARRIVALS, True)
        else:
            fig18(binary, Path(tmp), SIZES_MB, ARRIVALS, False)
        fig19(binary, Path(tmp), "40s")
        if args.full:
            fig19(binary, Path(tmp), "200s")
    print(f"\n({time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    main()
