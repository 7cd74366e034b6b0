"""Random scenarios for the simulator-vs-kernel suite (issue 17, item 5):
the stated space, drawn deterministically from (SEED, index), written as
scenario TOML that both planes run (docs/validation.md, "Random scenarios").

The space (every draw independent unless said):

    paths          1, 2 or 3 disjoint paths, uniform
    path rate      5–200 Mb/s, log-uniform, 0.1 Mb/s steps
    path delay     one-way propagation 2–100 ms (RTT 4–200 ms), log-uniform, 0.1 ms steps:
                   0.5 ms access link + (delay − 1 ms) bottleneck + 0.5 ms egress link
    path loss      none with probability 1/2, else Bernoulli p uniform in 0.01–1 %
                   (on the bottleneck, both directions)
    queue          drop-tail, 1 BDP of the bottleneck at its RTT (rate · 2·delay / 1500 B),
                   at least 16 packets
    main flow      client → server from t = 0; MPTCP (uncoupled subflows, `minrtt`, full mesh:
                   one subflow per path) or TCP (over the lowest-delay path, the one routing would
                   pick; the client and server are then single-homed on it, which keeps the
                   testbed small), 1/2 each; cc CUBIC 1/2, BBR 1/4, Reno 1/4; bulk or sized, 1/2 each
    sized          bytes = f · expected rate · (duration − 1 s) / 8, f uniform in 0.2–0.6,
                   expected rate = Σ over the flow's paths of min(rate / (1 + cross flows there),
                   Mathis' 1.22·MSS/(RTT·√p)); at least 100 kB
    cross flows    0, 1 or 2, uniform; each bulk TCP with cc CUBIC, BBR or Reno (uniform),
                   on any path (uniform), starting uniform in 0.5–6 s,
                   from its own host through that path's bottleneck to its own host
    duration       12 s
    hosts          behind a qdisc (`[sim] host_egress = "qdisc"`, docs/scenario.md), on both planes:
                   on the lab a TBF qdisc at the access link's rate and queue on every host interface,
                   a real host's NIC and qdisc, where TCP Small Queues hold a sender back instead of
                   the emulator's access queue dropping its bursts; in the simulator the hosts' own
                   links never drop

Every feature is one the kernel lab runs (docs/lab.md): Linux's own
algorithms, uncoupled MPTCP with the default scheduler, default TCP
parameters; at most 3 × 200 Mb/s, well under the emulator's ~2 Gb/s.
A path no flow crosses (a TCP main flow's other paths without a cross flow)
is left out of the file.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

DURATION_S = 12.0
RATE_MBPS = (5.0, 200.0)
DELAY_MS = (2.0, 100.0)
LOSS = (0.0001, 0.01)
MIN_QUEUE = 16
CROSS_START_S = (0.5, 6.0)
SIZED_FRACTION = (0.2, 0.6)
MIN_SIZE = 100_000
CCS = ("cubic", "bbr", "newreno")
ACCESS_MS = 0.5
PACKET_BYTES = 1500
MSS = 1448


@dataclass
class Path:
    rate_mbps: float
    delay_ms: float
    loss: float

    @property
    def queue(self) -> int:
        """Drop-tail limit: one BDP at the path's propagation RTT, at least MIN_QUEUE packets."""
        bdp = self.rate_mbps * 1e6 * 2 * self.delay_ms / 1e3 / (8 * PACKET_BYTES)
        return max(MIN_QUEUE, math.ceil(bdp))


@dataclass
class Cross:
    cc: str
    path: int
    start_s: float


@dataclass
class Draw:
    """One scenario of the space."""
    seed: int
    index: int
    paths: list[Path]
    mptcp: bool
    cc: str
    size: int | None
    cross: list[Cross] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"random-{self.seed}-{self.index:03d}"

    def used_paths(self) -> list[int]:
        """The paths some flow crosses: only these are in the scenario file."""
        return sorted(set(self.main_paths()) | {c.path for c in self.cross})

    def main_paths(self) -> list[int]:
        """The paths the main flow uses: all (MPTCP full mesh) or the lowest-delay one (routing)."""
        if self.mptcp:
            return list(range(len(self.paths)))
        return [min(range(len(self.paths)), key=lambda i: (self.paths[i].delay_ms, i))]


def _log_uniform(rng: random.Random, low: float, high: float) -> float:
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def _mathis_bps(path: Path) -> float:
    """Mathis et al. (1997): 1.22 · MSS / (RTT · √p), the loss-limited rate; infinite without loss."""
    if path.loss == 0:
        return math.inf
    return 1.22 * MSS * 8 / (2 * path.delay_ms / 1e3 * math.sqrt(path.loss))


def draw(seed: int, index: int) -> Draw:
    """Scenario `index` of the suite seeded by `seed` (the same pair always gives the same scenario)."""
    rng = random.Random(f"pathpool-lab-random:{seed}:{index}")
    paths: list[Path] = []
    for _ in range(rng.randint(1, 3)):
        while True:
            delay = round(_log_uniform(rng, *DELAY_MS), 1)
            if all(delay != p.delay_ms for p in paths):  # distinct delays: the TCP route is unambiguous
                break
        loss = 0.0 if rng.random() < 0.5 else round(rng.uniform(*LOSS), 4)
        paths.append(Path(round(_log_uniform(rng, *RATE_MBPS), 1), delay, loss))
    mptcp = rng.random() < 0.5
    cc = rng.choices(CCS, weights=(2, 1, 1))[0]
    sized = rng.random() < 0.5
    d = Draw(seed, index, paths, mptcp, cc, None)
    used = d.main_paths()
    d.cross = [Cross(rng.choice(CCS), rng.randrange(len(paths)), round(rng.uniform(*CROSS_START_S), 2))
               for _ in range(rng.randint(0, 2))]
    fraction = rng.uniform(*SIZED_FRACTION)
    if sized:
        expected = 0.0
        for i in used:
            sharing = 1 + sum(1 for c in d.cross if c.path == i)
            expected += min(paths[i].rate_mbps * 1e6 / sharing, _mathis_bps(paths[i]))
        d.size = max(MIN_SIZE, int(fraction * expected * (DURATION_S - 1) / 8 / 1000) * 1000)
    return d


def _ms(value: float) -> str:
    return f"{value:g}ms"


def to_toml(d: Draw, kernel_like: bool = False, cross_shift_us: float = 0.0) -> str:
    """The scenario file of a draw (both planes run it: `pathpool run FILE --plane lab`); with `cross_shift_us`,
    every cross flow's two access links that much longer (its round trip 4 × that longer)."""
    kind = "MPTCP" if d.mptcp else "TCP"
    size = f"{d.size} bytes" if d.size else "bulk"
    out = [f"# {d.name}: drawn by validation/lab_space.py (seed {d.seed}, index {d.index}); "
           "rerun with: sudo .venv/bin/pathpool run THIS_FILE --plane lab --out DIR",
           f"# main flow: {kind} {d.cc}, {size}; cross flows: "
           + (", ".join(f"{c.cc} on path {c.path} from {c.start_s:g} s" for c in d.cross) or "none")]
    if cross_shift_us:
        out.append(f"# the cross flows' access links {cross_shift_us:g} µs longer than the draw's (a phase check)")
    for i, p in enumerate(d.paths):
        out.append(f"# path {i}: {p.rate_mbps:g} Mb/s, {p.delay_ms:g} ms one way, loss {100 * p.loss:g} %, "
                   f"queue {p.queue} packets (1 BDP)" + ("" if i in d.used_paths() else "; no flow crosses it, left out"))
    out += ["", f'name = "{d.name}"', "", "[sim]", f'duration = "{DURATION_S:g}s"', f"seed = {d.seed * 1000 + d.index}",
            'host_egress = "qdisc"', ""]

    def node(name: str, kind: str = "host") -> None:
        out.extend(["[[nodes]]", f'name = "{name}"'] + ([f'kind = "{kind}"'] if kind != "host" else []) + [""])

    def link(a: str, b: str, rate: str, delay_ms: float, name: str | None = None, queue: int | None = None,
             loss: float = 0.0) -> None:
        out.append("[[links]]")
        if name:
            out.append(f'name = "{name}"')
        out.extend([f'a = "{a}"', f'b = "{b}"', f'rate = "{rate}"', f'delay = "{_ms(delay_ms)}"'])
        if queue:
            out.append(f"queue = {queue}")
        if loss:
            out.append(f'loss = {{ model = "bernoulli", p = {loss:g} }}')
        out.append("")

    node("client")
    node("server")
    for i in d.used_paths():
        node(f"l{i}", "router")
        node(f"r{i}", "router")
    for j in range(len(d.cross)):
        node(f"xc{j}")
        node(f"xs{j}")
    main = d.main_paths()
    for i in d.used_paths():
        p = d.paths[i]
        if i in main:
            link(f"client:eth{i}", f"l{i}", "1Gbps", ACCESS_MS)
        link(f"l{i}", f"r{i}", f"{p.rate_mbps:g}Mbps", round(p.delay_ms - 2 * ACCESS_MS, 1), name=f"path{i}",
             queue=p.queue, loss=p.loss)
        if i in main:
            link(f"r{i}", f"server:eth{i}", "1Gbps", ACCESS_MS)
    for j, c in enumerate(d.cross):
        link(f"xc{j}", f"l{c.path}", "1Gbps", ACCESS_MS + cross_shift_us / 1000)
        link(f"r{c.path}", f"xs{j}", "1Gbps", ACCESS_MS + cross_shift_us / 1000)

    out += ["[[flows]]", 'name = "main"', 'src = "client"', 'dst = "server"']
    if d.size:
        out.append(f"size = {d.size}")
    # kernel_like: every simulator option that imitates Linux (docs/scenario.md: `cwnd_growth`, `rto_formula`,
    # `send_buffer`, `rack`, `sack_compression`, `ssthresh_from`, the `linger` scheduler with its subflows' send buffers, CUBIC's
    # constant Reno-friendly α); the lab runs the kernel either way. docs/validation.md has each option's effect.
    linux = ('cwnd_growth = "cwnd_limited", rto_formula = "linux", send_buffer = "linux", rack = true, sack_compression = true, '
             'ssthresh_from = "cwnd"')
    growth = f", {linux}" if kernel_like else ""
    scheduler = "linger" if kernel_like else "minrtt"

    def tcp(cc: str) -> str:
        params = ', cc_params = { reno_alpha = "linux" }' if kernel_like and cc == "cubic" else ""
        return f'tcp = {{ cc = "{cc}"{growth}{params} }}'

    out.append(tcp(d.cc))
    if d.mptcp:
        out += ['transport = "mptcp"', f'mptcp = {{ coupling = "uncoupled", scheduler = "{scheduler}", path_manager = "fullmesh" }}']
    out.append("")
    for j, c in enumerate(d.cross):
        out += ["[[flows]]", f'name = "cross{j}"', f'src = "xc{j}"', f'dst = "xs{j}"', f'start = "{c.start_s:g}s"',
                tcp(c.cc), ""]
    return "\n".join(out)
