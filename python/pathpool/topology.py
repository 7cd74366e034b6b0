"""Router maps: the availability of one-hop detours in a Rocketfuel ISP map.

The INRPP paper (Reñé et al., ToN 2022) motivates detours with Table I: over
each of nine Rocketfuel ISPs' router-level links, the share of links u–v
with at least one one-hop detour u–w–v (a router w linked to both), how
those links split into 1, 2, 3, 4 and 5 or more detours, and the most any
link has. :func:`detour_census` computes that row for one ``.cch`` file,
reading it as the ``rocketfuel`` topology generator does (internal routers
and router-router links only; docs/scenario.md), optionally filtered with
the generator's ``prune`` and largest component.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from . import _core

#: Values of ``prune`` (docs/scenario.md, the ``rocketfuel`` generator).
PRUNES = ("none", "edge_chains", "ndnsim")


@dataclass(frozen=True)
class DetourCensus:
    """One row of Table I."""

    #: The map file.
    path: Path
    #: Routers and links kept (internal ones, after the filter).
    routers: int
    links: int
    #: Links with at least one one-hop detour.
    with_detour: int
    #: Links with exactly 1, 2, 3, 4 detours, and with 5 or more.
    by_count: tuple[int, int, int, int, int]
    #: The most one-hop detours of any link.
    max: int

    @property
    def with_detour_pct(self) -> float:
        """Share of links with a one-hop detour, % (Table I, column 2)."""
        return 100.0 * self.with_detour / self.links if self.links else 0.0

    @property
    def by_count_pct(self) -> tuple[float, ...]:
        """Shares of the links with a detour that have 1, 2, 3, 4, 5+, % (columns 3-7)."""
        if not self.with_detour:
            return (0.0,) * 5
        return tuple(100.0 * n / self.with_detour for n in self.by_count)


def detour_census(path: str | os.PathLike, prune: str = "none", largest_component: bool = False) -> DetourCensus:
    """Table I's census of the ``.cch`` map at ``path``: for every internal
    link u–v, the number of routers linked to both u and v.

    ``prune`` and ``largest_component`` filter the map first, as the
    ``rocketfuel`` generator's fields of the same names (by default every
    internal router and link is counted). Raises FileNotFoundError for a
    missing file and ValueError for a malformed one or an unknown ``prune``.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such file")
    raw = _core.detour_census(str(p), prune, largest_component)
    return DetourCensus(path=p, routers=raw["routers"], links=raw["links"], with_detour=raw["with_detour"],
                        by_count=tuple(raw["by_count"]), max=raw["max"])
