#!/usr/bin/env python3
"""INRPP's cache sensitivity (Reñé et al., ToN 2022, §IV-E, Fig. 18) as a
frontier over the flows' spacing and the cache size.

Fig. 18 is "the same scenario used in Section IV-A ... but with 100 INRPP
flows" (the built-in ``inrpp-cache-sensitivity``: the Fig. 8 dumbbell with a
detour, 100 flows of 10 MB, one host pair each), with the caches' S_high =
size / 2 and S_low = size / 4; "1MB is the minimum cache size that avoids
any packet drop in the cache". The paper does not say how far apart the
flows start. The bottleneck and the detour carry 2 × 10 Mb/s, 19.31 Mb/s of
payload, so a 10 MB flow every Δ seconds offers ρ = 80 Mb / (Δ · 19.31 Mb/s):
ρ ≈ 4.1 at the built-in's 1 s, 1 at Δ ≈ 4.14 s. This sweeps Δ × cache size
(``validation/inrpp_sensitivity.py``'s scenario edits), records each run's
cache drops (every INRPP interface's ``drops_cache``), AFCT and timeouts,
and prints the drop-free frontier: for each Δ the smallest cache from which
every larger size tried drops nothing, beside the paper's 1 MB. It writes
``report.md`` and ``frontier.png`` (the frontier against Δ; drops and AFCT
against the cache size, one line per Δ) in the output directory.

Runs are one at a time (one core). Each finished run is a line of
``OUT/cache.jsonl`` (validation/cache.py: an interrupted sweep resumes where
it stopped, a rebuilt simulator runs again); ``--fresh`` starts over.

Usage:  python validation/inrpp_fig18_frontier.py [--spacings 1,2,...] [--caches 0.1,0.5,...]
        [--hold nonce|interface] [--out DIR] [--fresh]

The default grid (12 spacings, finer around ρ = 1, × 9 sizes, 108 runs)
takes about 10 minutes of CPU (one core; the report prints the total);
``--dense`` runs 25 spacings (1 to 6 s in steps of 0.25 s, and 4.1 to 4.4)
× 14 sizes, 350 runs, about 35 minutes. Both share the cache.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from cache import RunCache  # noqa: E402
from inrpp_sensitivity import FIG18, fig18_text  # noqa: E402

import pathpool  # noqa: E402

SPACINGS_S = (1, 2, 3, 3.5, 4, 4.1, 4.2, 4.3, 4.4, 4.5, 5, 6)
CACHES_MB = (0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50)
DENSE_SPACINGS_S = tuple(sorted({1 + 0.25 * i for i in range(21)} | {4.1, 4.2, 4.3, 4.4}))
DENSE_CACHES_MB = (0.1, 0.175, 0.25, 0.375, 0.5, 0.75, 1, 1.5, 2, 3.5, 5, 10, 20, 50)
# Payload capacity of the bottleneck 0-2 plus the detour 0-1-2 (§IV-A: 10 Mb/s
# each), 1448 bytes of payload per 1500 on the wire.
PAYLOAD_BPS = 2 * 10e6 * 1448 / 1500
FLOW_BITS = 10e6 * 8
PAPER_SMALLEST_MB = 1.0


def offered_load(spacing_s: float) -> float:
    """ρ of one 10 MB flow every `spacing_s` seconds on bottleneck + detour."""
    return FLOW_BITS / (spacing_s * PAYLOAD_BPS)


def key(spacing_s: float, cache_mb: float, hold: str) -> str:
    return f"{hold}/{spacing_s:g}s/{cache_mb:g}MB"


def measure(spacing_s: float, cache_mb: float, hold: str, tmp: Path) -> dict:
    """One run of the built-in with this spacing, cache and hold rule."""
    text = fig18_text(FIG18.read_text(), cache_mb, f"{spacing_s:g}s", hold)
    path = tmp / "fig18.toml"
    path.write_text(text)
    t0, c0 = time.monotonic(), time.process_time()
    r = pathpool.run(path)
    wall, cpu = time.monotonic() - t0, time.process_time() - c0
    ifs = r.frame("inrpp_interfaces")
    flows = r.flows
    done = flows[flows["completed"]]
    return {
        "key": key(spacing_s, cache_mb, hold), "spacing_s": spacing_s, "cache_mb": cache_mb, "hold": hold,
        "drops": int(ifs["drops_cache"].sum()),
        "drops_n4": int(ifs.loc[ifs["node"] == "n4", "drops_cache"].sum()),
        "drops_n0": int(ifs.loc[ifs["node"] == "n0", "drops_cache"].sum()),
        "done": len(done), "afct_s": float(done["fct_s"].mean()) if len(done) else None,
        "timeouts": int(flows["timeouts"].sum()), "retransmits": int(flows["retransmits"].sum()),
        "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
    }


def sweep(spacings: list[float], caches: list[float], hold: str, cache: RunCache) -> dict[str, dict]:
    """Runs the grid points not yet in ``cache`` (validation/cache.py, keyed by
    the scenario's text), one at a time; returns key -> row."""
    done: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="pathpool-fig18-") as tmp:
        for s in spacings:
            for c in caches:
                text = fig18_text(FIG18.read_text(), c, f"{s:g}s", hold)
                done[key(s, c, hold)] = cache.get(key(s, c, hold), measure, s, c, hold, Path(tmp), params=text)
    return done


def drop_free_from(rows: list[dict]) -> float | None:
    """The smallest cache from which every larger size tried drops nothing (rows by size)."""
    smallest = None
    for row in reversed(rows):
        if row["drops"] != 0:
            break
        smallest = row["cache_mb"]
    return smallest


def count(n: int) -> str:
    if n >= 1e6:
        return f"{n / 1e6:.2f} M"
    if n >= 1e3:
        return f"{n / 1e3:.1f} k"
    return str(n)


def report(done: dict, spacings: list[float], caches: list[float], hold: str) -> tuple[str, dict[float, float | None]]:
    head = ["spacing Δ", "ρ"] + [f"{c:g} MB" for c in caches] + ["drop-free from"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    frontier: dict[float, float | None] = {}
    for s in spacings:
        rows = [done[key(s, c, hold)] for c in caches]
        frontier[s] = drop_free_from(rows)
        cells = []
        for row in rows:
            afct = "—" if row["afct_s"] is None else f"{row['afct_s']:.3g} s"
            unfinished = "" if row["done"] == 100 else f", {row['done']} done"
            cells.append(f"{'**0**' if row['drops'] == 0 else count(row['drops'])}, {afct}{unfinished}")
        f = frontier[s]
        lines.append(f"| {s:g} s | {offered_load(s):.2f} | " + " | ".join(cells) + f" | {'none tried' if f is None else f'{f:g} MB'} |")
    return "\n".join(lines), frontier


def plot(done: dict, spacings: list[float], caches: list[float], hold: str, frontier: dict[float, float | None], out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_fr, ax_d, ax_f) = plt.subplots(1, 3, figsize=(16, 4.4))
    # The frontier: for each spacing, the smallest drop-free cache; spacings
    # with none drop-free up to the largest size tried are drawn above it.
    top = max(caches) * 2
    ok = [(s, f) for s, f in frontier.items() if f is not None]
    ax_fr.step([s for s, _ in ok], [f for _, f in ok], where="mid", color="tab:blue")
    ax_fr.plot([s for s, _ in ok], [f for _, f in ok], "o", color="tab:blue", label="drop-free from")
    none = [s for s, f in frontier.items() if f is None]
    ax_fr.plot(none, [top] * len(none), "x", color="tab:red", label=f"drops at every size up to {max(caches):g} MB")
    ax_fr.axhline(PAPER_SMALLEST_MB, color="grey", ls="--", lw=1, label="paper: 1 MB")
    ax_fr.axvline(FLOW_BITS / PAYLOAD_BPS, color="grey", ls=":", lw=1, label="ρ = 1")
    ax_fr.set(yscale="log", xlabel="seconds between flow starts Δ", ylabel="smallest drop-free cache (MB)",
              title=f"Fig. 18 drop-free frontier (hold = {hold})")
    ax_fr.legend(fontsize=7)
    cmap = plt.get_cmap("viridis")
    for i, s in enumerate(spacings):
        rows = [done[key(s, c, hold)] for c in caches]
        colour = cmap(i / max(1, len(spacings) - 1))
        label = f"Δ = {s:g} s (ρ = {offered_load(s):.2f})"
        # Drop-free points sit on the axis floor (log scale has no 0).
        ax_d.plot(caches, [max(r["drops"], 0.5) for r in rows], "o-", color=colour, label=label)
        ax_f.plot(caches, [math.nan if r["afct_s"] is None else r["afct_s"] for r in rows], "o-", color=colour, label=label)
    ax_d.axvline(PAPER_SMALLEST_MB, color="grey", ls="--", lw=1)
    ax_d.set(xscale="log", yscale="log", xlabel="cache size per interface (MB)", ylabel="cache drops (0 plotted at 0.5)",
             title="cache drops")
    ax_f.set(xscale="log", yscale="log", xlabel="cache size per interface (MB)", ylabel="AFCT (s)",
             title="AFCT of the 100 flows of 10 MB")
    ax_f.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def grid(text: str) -> list[float]:
    return [float(v) for v in text.split(",") if v.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spacings", type=grid, metavar="S,S,...", help="seconds between flow starts (default: 1,2,3,3.5,4,4.1,4.2,4.3,4.4,4.5,5,6)")
    ap.add_argument("--caches", type=grid, metavar="MB,MB,...", help="cache sizes in MB (default: 0.1,0.25,0.5,1,2,5,10,20,50)")
    ap.add_argument("--dense", action="store_true", help="25 spacings × 14 sizes (350 runs, about 35 minutes of CPU)")
    ap.add_argument("--hold", choices=("nonce", "interface"), default="nonce", help="the routers' hold rule (default: the paper's text)")
    ap.add_argument("--out", type=Path, default=REPO / "results" / "inrpp-fig18", help="cache, report.md and frontier.png")
    ap.add_argument("--fresh", action="store_true", help="forget cached runs")
    args = ap.parse_args()
    spacings = args.spacings or list(DENSE_SPACINGS_S if args.dense else SPACINGS_S)
    caches = sorted(args.caches or list(DENSE_CACHES_MB if args.dense else CACHES_MB))
    cache = RunCache(args.out / "cache.jsonl", args.fresh)
    done = sweep(spacings, caches, args.hold, cache)
    table, frontier = report(done, spacings, caches, args.hold)
    match = [s for s, f in frontier.items() if f == PAPER_SMALLEST_MB]
    below = [s for s, f in frontier.items() if f is not None and f < PAPER_SMALLEST_MB]
    text = "\n".join([
        f"Fig. 18 frontier (hold = \"{args.hold}\"): 100 INRPP flows of 10 MB, Δ seconds apart, on the Fig. 8 dumbbell;",
        "S_high = cache / 2, S_low = cache / 4. Each cell: cache drops over all routers (**0**: none), AFCT of the flows",
        "done in the built-in's 700 s (all 100 unless said). ρ = offered load on bottleneck + detour (19.31 Mb/s of payload).",
        "",
        table,
        "",
        f"Paper: drop-free from {PAPER_SMALLEST_MB:g} MB. Spacings whose frontier is exactly {PAPER_SMALLEST_MB:g} MB (reproduce the figure): "
        + (", ".join(f"{s:g} s" for s in match) if match else "none"),
        "Spacings drop-free below it: " + (", ".join(f"{s:g} s ({frontier[s]:g} MB)" for s in below) if below else "none"),
        "Spacings with no drop-free size tried: " + (", ".join(f"{s:g} s" for s, f in frontier.items() if f is None) or "none"),
        f"({len(spacings) * len(caches)} runs, {sum(done[key(s, c, args.hold)]['cpu_s'] for s in spacings for c in caches) / 60:.1f} "
        "minutes of CPU time in all)",
        cache.summary(),
    ])
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.md").write_text(text + "\n")
    plot(done, spacings, caches, args.hold, frontier, args.out / "frontier.png")
    print(f"wrote {args.out / 'report.md'} and {args.out / 'frontier.png'}")


if __name__ == "__main__":
    main()
