#!/usr/bin/env python3
"""INRPP's Table I (Reñé et al., ToN 2022, §I): the availability of one-hop
detours in nine Rocketfuel ISPs, the paper's figures beside pathpool's
census (``pathpool.detour_census``, ``pathpool topology census``).

For each ISP the census runs over every router and link of its ``.r0.cch``
map (the ISP's backbone and gateway routers, README.cch), the variant that
gives the paper's rows for Tiscali, Exodus, VSNL and AT&T exactly; every
cell more than 1 point (the maximum: more than one detour) from the paper's
is marked, and for those ISPs the other variants of the map are counted
too: ``.r0.cch``'s largest component, ``.r1.cch`` (a fringe of radius 1),
``.cch`` (everything, = ``.pop.cch`` in the columns counted), and
``.cch`` with the ``rocketfuel`` generator's ``edge_chains`` and ``ndnsim``
filters.

Usage:  python validation/inrpp_table1.py [--data-dir DIR]   (a second or two)
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pathpool

# Table I as printed: 1-hop detours %, then 1, 2, 3, 4, 5+ (% of those), max.
PAPER = {
    "1221": ("Telstra", 68.75, (27.45, 30.09, 11.5, 7.9, 23.06), 38),
    "1239": ("Sprintlink", 57.3, (44.9, 20.7, 14.9, 6.8, 57.6), 27),
    "1755": ("Ebone", 51.8, (55.5, 28.78, 10.6, 3.53, 1.5), 10),
    "2914": ("Verio", 71.75, (23.56, 18.01, 13.45, 12.56, 32.52), 25),
    "3257": ("Tiscali", 24.44, (60.60, 19.19, 12.12, 5.05, 3.03), 8),
    "3356": ("Level3", 92.30, (13.40, 14.10, 12.42, 13.02, 47.06), 95),
    "3967": ("Exodus", 50.33, (50.67, 17.93, 16.59, 8.96, 5.82), 6),
    "4755": ("VSNL", 25.0, (100.0, 0.0, 0.0, 0.0, 0.0), 1),
    "7018": ("AT&T", 34.84, (56.07, 17.68, 11.88, 4.7, 9.67), 24),
}
# (label, file suffix, prune, largest component)
VARIANTS = (
    (".r0.cch, largest component", ".r0.cch", "none", True),
    (".r1.cch", ".r1.cch", "none", False),
    (".cch", ".cch", "none", False),
    (".cch, edge_chains", ".cch", "edge_chains", True),
    (".cch, ndnsim", ".cch", "ndnsim", True),
)


def cells(c: pathpool.DetourCensus) -> list[float]:
    return [c.with_detour_pct, *c.by_count_pct, float(c.max)]


def row(name: str, values: list[float], paper: list[float] | None) -> str:
    """A Markdown row; cells more than 1 from the paper's in bold."""
    out = []
    for i, v in enumerate(values):
        text = f"{v:.0f}" if i == len(values) - 1 else f"{v:.2f}"
        out.append(f"**{text}**" if paper is not None and abs(v - paper[i]) > 1 else text)
    return f"| {name} | " + " | ".join(out) + " |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, help="the data directory (default: as pathpool resolves data: paths)")
    args = ap.parse_args()
    data = pathpool.resolve_data_dir(args.data_dir)
    if data is None:
        raise SystemExit("no data directory: pass --data-dir or set PATHPOOL_DATA")
    maps = data / "rocketfuel" / "maps_cch"
    head = "| ISP | ≥ 1 detour % | 1 | 2 | 3 | 4 | 5+ | max |\n|---|---|---|---|---|---|---|---|"
    print("Table I: one-hop detours per router-level link; pathpool's census of each ISP's .r0.cch map.")
    print("Bold: more than 1 point (max: more than 1) from the paper.\n")
    print(head)
    off = []
    for asn, (name, pct, split, most) in PAPER.items():
        paper = [pct, *split, float(most)]
        got = cells(pathpool.detour_census(maps / f"{asn}.r0.cch"))
        print(row(f"{name} ({asn}), paper", paper, None))
        print(row(f"{name} ({asn}), pathpool", got, paper))
        if any(abs(g - p) > 1 for g, p in zip(got, paper)):
            off.append((asn, name, paper))
    for asn, name, paper in off:
        print(f"\n{name} ({asn}): the other variants of the map\n")
        print(head.replace("| ISP |", "| map |"))
        print(row("paper", paper, None))
        for label, suffix, prune, largest in VARIANTS:
            path = maps / f"{asn}{suffix}"
            c = pathpool.detour_census(path, prune, largest)
            if c.links == 0:
                print(f"| {label} | (no links) |")
                continue
            print(row(f"{label} ({c.routers} routers, {c.links} links)", cells(c), paper))


if __name__ == "__main__":
    main()
