"""The INRPP multihomed reproduction's fairness measure (validation/inrpp_multihomed.py).

Table VI of the INRPP paper is matched by the measure of the authors' own
ns-3 scripts (docs/reproductions/inrpp.md, "Table VI"): these tests pin the
estimator to hand-computed values and check, on the E[L] = 30 runs, the
ordering and the INRPP value that the reproduction reports.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "validation"))
import inrpp_multihomed as mh  # noqa: E402


def ts(flow: int, rates: list[tuple[float, float]]) -> list[dict]:
    return [{"flow_id": str(flow), "time_s": f"{t:.2f}", "goodput_bps": str(r)} for t, r in rates]


def flow(flow: int, start: float, finish: float | None) -> dict:
    return {"flow_id": str(flow), "start_s": str(start), "finish_s": "" if finish is None else str(finish)}


def test_two_equal_flows_are_perfectly_fair():
    grid = [round(0.01 * k, 2) for k in range(1, 101)]
    rows = ts(0, [(t, 1e6) for t in grid]) + ts(1, [(t, 1e6) for t in grid])
    assert mh.authors_jain([flow(0, 0.0, None), flow(1, 0.0, None)], rows) == pytest.approx(1.0)


def test_estimator_follows_the_authors_sink():
    # One flow at 1 Mb/s from 0.01 s: the first update at 0.11 s (first tick
    # more than 0.1 s after t1 = 0) gives sample 1.1e6 * 0.01 * 11 / 0.11 = 1e6
    # and estimate 0.6 * (1e6 + 0) / 2 = 3e5; the second at 0.22 s gives
    # 0.4 * 3e5 + 0.6 * (1e6 + 1e6) / 2 = 7.2e5. A second flow at 2 Mb/s over
    # the same ticks has twice each estimate, so Jain = 9 / (2 * 5) = 0.9 on
    # every tick from the first update until the window ends.
    grid = [round(0.01 * k, 2) for k in range(1, 23)]
    rows = ts(0, [(t, 1e6) for t in grid]) + ts(1, [(t, 2e6) for t in grid])
    assert mh.authors_jain([flow(0, 0.0, None), flow(1, 0.0, None)], rows) == pytest.approx(0.9)


def test_finished_and_slow_flows_are_left_out():
    grid = [round(0.01 * k, 2) for k in range(1, 51)]
    # Flow 1 finishes at 0.2 s; flow 2 never gets above 100 b/s. Only flow 0
    # counts after 0.2 s, and a lone flow is perfectly fair.
    rows = ts(0, [(t, 1e6) for t in grid]) + ts(1, [(t, 3e6) for t in grid if t <= 0.2]) + ts(2, [(t, 50.0) for t in grid])
    value = mh.authors_jain([flow(0, 0.0, None), flow(1, 0.0, 0.2), flow(2, 0.0, None)], rows)
    # Ticks 0.11-0.20 (10) have flows 0 and 1 at 1:3, Jain 16/20 = 0.8; ticks 0.21-0.50 (30) flow 0 alone.
    assert value == pytest.approx((10 * 0.8 + 30 * 1.0) / 40)


def test_table_vi_e_l_30_inrpp_is_the_fairest_by_the_authors_measure():
    from ns3_dumbbell import build_pathpool  # bench/, put on the path by inrpp_multihomed

    binary = build_pathpool()
    with tempfile.TemporaryDirectory() as tmp:
        jain = {t: mh.run(binary, mh.variant(t, 30), Path(tmp) / f"{t}.toml", 1)[0]["authors_jain"] for t in ("TCP", "MPTCP", "INRPP")}
    assert jain["INRPP"] > max(jain["TCP"], jain["MPTCP"]), jain
    paper = mh.PAPER_JAIN[30]["INRPP"]
    assert abs(jain["INRPP"] / paper - 1) < 0.2, (jain["INRPP"], paper)
