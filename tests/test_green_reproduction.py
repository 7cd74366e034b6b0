"""The Green MPTCP reproduction (validation/green_paper.py, `make green`):
every scenario it builds is valid, the per-seed networks stay in the
paper's §4 ranges, and one message and one short bulk run measure what the
report's tables read.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import pathpool

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "validation"))
import green_paper as gp  # noqa: E402


@pytest.mark.parametrize("seed", [1, 7, 30])
def test_networks_follow_the_papers_ranges(seed):
    n = gp.network(seed)
    assert 8.7 <= n["rate1"] <= 8.9 and 6.0 <= n["rate2"] <= 12.5
    assert 30 <= n["rtt1"] <= 60
    # Fig. 3's bait: the secondary starts below the primary.
    assert 20 <= n["rtt2"] < n["rtt1"]


@pytest.mark.parametrize("config", list(gp.CONFIGS))
@pytest.mark.parametrize("kind,net", [("bulk", "cross"), ("bulk", "varying"), ("fixed", "cross"), ("message", "cross")])
def test_every_scenario_validates(config, kind, net):
    for case in "abc":
        pathpool.validate(gp.scenario(3, config, case, kind=kind, net=net, qbdp=2.0))


def test_a_message_opens_no_join_with_the_green_path_manager():
    green = gp.measure(1, "green", "a", "message", "data")
    default = gp.measure(1, "default", "a", "message", "data")
    assert (green["subflows"], green["joins"]) == (1, 0)
    assert (default["subflows"], default["joins"]) == (2, 1)
    # The join's handshake costs the default wire bytes on the costlier interface.
    assert green["e_if"][1] == 0 and default["e_if"][1] > 0
    assert green["energy_j"] < default["energy_j"]
    assert green["delivered"] == default["delivered"] == gp.MESSAGE_BYTES


def test_a_bulk_run_reads_volumes_drops_and_energy():
    r = gp.measure(2, "cubic", "b", "bulk", net="varying")
    assert r["vol1"] > 1e6 and r["vol2"] > 1e6
    assert r["delivered"] <= r["vol1"] + r["vol2"]
    # Time reading, both interfaces busy to the end: E = (w1 + w2 + wD) · ~10 s.
    w1, w2, wd = gp.PROFILES["b"]
    assert r["energy_j"] == pytest.approx((w1 + w2 + wd) * gp.BULK_S, rel=0.01)
    assert r["tau1"] == pytest.approx(gp.BULK_S, rel=0.01) and r["tau2"] == pytest.approx(gp.BULK_S, rel=0.01)
