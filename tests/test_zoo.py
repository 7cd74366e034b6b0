"""The `zoo` topology generator against networkx's GraphML reader, on the
made-up map in the Topology Zoo's layout (crates/sim/tests/data/zoo-example.graphml)."""

import math
import re
from pathlib import Path

import networkx as nx

import pathpool

MAP = Path(__file__).resolve().parents[1] / "crates/sim/tests/data/zoo-example.graphml"
DEFAULT_BPS = 1e9


def _name(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_")


def test_links_rates_and_delays_match_networkx(tmp_path):
    scenario = tmp_path / "zoo.toml"
    scenario.write_text(f"""
[sim]
duration = "10ms"

[topology]
kind = "zoo"
file = "{MAP}"
external = false
link = {{ rate = "{DEFAULT_BPS:.0f}bps", delay = "0s" }}
""")
    links = pathpool.run(scenario).frame("links")
    forward = links.drop_duplicates("link").set_index("link")  # both directions alike

    g = nx.read_graphml(MAP)  # a MultiGraph: the file has parallel edges
    g.remove_nodes_from([n for n, d in g.nodes(data=True) if d.get("Internal") == 0])
    names = {n: _name(d["label"]) for n, d in g.nodes(data=True)}
    pairs: dict[tuple[str, str], float] = {}
    for u, v, d in g.edges(data=True):
        key = tuple(sorted((u, v), key=int))
        pairs[key] = pairs.get(key, 0.0) + d.get("LinkSpeedRaw", DEFAULT_BPS)
    assert len(forward) == len(pairs)
    for (u, v), bps in pairs.items():
        row = forward.loc[f"{names[u]}-{names[v]}"]
        assert row["rate_bps"] == bps
        # Haversine distance at 2e8 m/s (the mean Earth radius, 6371.0088 km).
        p1, p2 = (math.radians(g.nodes[x]["Latitude"]) for x in (u, v))
        dl = math.radians(g.nodes[v]["Longitude"] - g.nodes[u]["Longitude"])
        h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
        metres = 2 * 6_371_008.8 * math.asin(math.sqrt(h))
        assert abs(row["delay_s"] - metres / 2e8) < 1e-9
