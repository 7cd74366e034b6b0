"""The PAT reproduction (validation/pat_paper.py, `make pat`): every scenario
of the quick subset is generated and validates, and the synthetic population
holds the paper's Figs. 7-9 as drawn. No simulation runs here.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import pytest

import pathpool

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "validation"))
import pat_paper as pp  # noqa: E402


@pytest.mark.parametrize("size", pp.FIG11_SIZES)
def test_fig11_scenarios_validate(size):
    for scheme in ("pat", "default", "mptcp"):
        doc = pp.fig11_scenario(size, scheme, 1)
        pathpool.validate(doc)
        delays = [l["delay"] for l in doc["links"] if l["a"] in pp.MIRRORS]
        assert len(delays) == 5 and all("schedule" in d for d in delays)
        if scheme == "mptcp":
            f = doc["flows"][0]
            assert (f["src"], f["transport"], f["mptcp"]["path_manager"]) == ("m3", "mptcp", "fullmesh")
            assert f["app"]["size"] * f["app"]["count"] == size * pp.MB
        else:
            assert doc["contents"][0]["bytes"] == size * pp.MB
            assert doc["fetches"][0]["policy"] == ("controller" if scheme == "pat" else "default")
    # The default's mirror is the first of the Wi-Fi answer, MPTCP's too.
    assert pp.ANSWER_WIFI[0] == "m3"


def test_the_delays_change_within_each_range():
    for m, (_, (lo, hi)) in pp.MIRRORS.items():
        sched = pp.delay_schedule(1, m, lo, hi, 60.0)
        values = [float(d[:-2]) for _, d in sched]
        assert all(lo <= v <= hi for v in values) and len(set(values)) > 1
        assert [t for t, _ in sched][:2] == ["0s", f"{pp.STEP:g}s"]
    # Another seed, another schedule.
    assert pp.delay_schedule(1, "m1", 1, 20, 10) != pp.delay_schedule(2, "m1", 1, 20, 10)


def test_population_scenarios_validate_and_give_the_drawn_rtts():
    pop, keys = pp.pop_keys(quick=True)
    for i, j in keys:
        for scheme in ("pat", "default"):
            doc = pp.population_scenario(pop[i], j, scheme)
            pathpool.validate(doc)
        t = pop[i]["trials"][j]
        for l in doc["links"]:
            if l["a"] in pop[i]["mirrors"]:
                iface, air = ("wlan0", pp.POP_WIFI_AIR) if l["b"] == "ap" else ("lte0", pp.POP_LTE_AIR)
                assert abs(2 * (float(l["delay"][:-2]) + air) - t["rtt"][f"{l['a']}/{iface}"]) < 0.01


def test_the_population_holds_figs_7_to_9_by_construction():
    pop = pp.population(pp.POP_DOMAINS, pp.POP_TRIALS)
    assert len(pop) >= 50
    # Fig. 7: the drawn Z targets.
    z = [d["z"] for d in pop]
    assert statistics.mean(x < 0.35 for x in z) > 0.7 and max(z) <= 0.48
    # Fig. 8: gamma's upper quartile about 0.7 in the trials where another path is best.
    uq = [pp.GAMMA_LO + 0.75 * (d["gamma_hi"] - pp.GAMMA_LO) for d in pop]
    assert 0.6 <= statistics.median(uq) <= 0.8
    # Every trial: the best path is the lowest RTT, the default is the first mirror over Wi-Fi.
    for d in pop:
        for t in d["trials"]:
            assert t["rtt"][t["best"]] == min(t["rtt"].values())
            assert len(t["rtt"]) == 2 * len(d["mirrors"])


def test_overhead_scenarios_validate():
    for p, c, sd in pp.overhead_grid(quick=True):
        doc = pp.fig11_scenario(pp.OVERHEAD_SIZE_MB, "pat", sd, {"period": p, "max_connections": c})
        pathpool.validate(doc)
        assert doc["controllers"][0]["params"] == {"resolvers": "local", "period": p, "max_connections": c}


def test_the_walk_validates():
    doc = pp.walk_scenario()
    pathpool.validate(doc)
    assert {m["host"] for m in doc["mobility"]} == {"ue1", "ue2", "ue3"}
    assert all(m["speed"] == 1.5 for m in doc["mobility"])
    # UE1 on both radios, UE2 on 5G only, UE3 on Wi-Fi only; 5G blocked behind the building.
    ue_links = {l["a"]: l for l in doc["links"] if l["a"].startswith("ue")}
    assert set(ue_links) == {"ue1:nr0", "ue1:wlan0", "ue2:nr0", "ue3:wlan0"}
    assert all(("events" in l) == l["a"].endswith("nr0") for l in ue_links.values())
    assert [f["content"] for f in doc["fetches"]] == ["both", "mirror1", "mirror2"]
    assert doc["controllers"][0]["host"] == "ue1" and doc["controllers"][0]["kind"] == "pat"


def test_fig14_pages_validate():
    pop, keys = pp.fig14_keys(quick=True)
    # HTTP Archive's median page (Web Almanac 2019): 74 requests, about 1900 KB.
    n = sum(c for _, c, *_ in pp.PAGE_OBJECTS)
    assert n == 74 and abs(sum(c * b for _, c, b, *_ in pp.PAGE_OBJECTS) - 1.9e6) < 0.05 * 1.9e6
    for a, j in keys:
        for scheme in pp.FIG14_SCHEMES:
            doc = pp.page_scenario(pop, a, j, scheme)
            pathpool.validate(doc)
            page = doc["pages"][0]
            assert len(page["objects"]) == n and page["prefer"] == "wlan0"
            assert page["policy"] == ("controller" if scheme.startswith("pat") else "default")
            # The origin's and the CDN's domains, each answering its mirrors in order.
            answers = doc["resolvers"][0]["domains"]
            assert list(answers) == [pop[2 * a]["domain"], pop[2 * a + 1]["domain"]]
            if scheme == "pat_one_path":
                # No choice: the default's mirror of each domain, Wi-Fi only.
                assert all(len(v["mirrors"]) == 1 for v in answers.values())
                assert all(l["a"] != "phone:lte0" for l in doc["links"])
            else:
                assert [v["mirrors"] for v in answers.values()] == [pop[2 * a]["mirrors"], pop[2 * a + 1]["mirrors"]]
