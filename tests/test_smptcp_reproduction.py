"""The S-MPTCP reproduction (validation/smptcp_paper.py, `make smptcp`): every
scenario of the quick subset is generated and validates, the S-MPTCP variants
differ from legacy only where they should, and their status is either valid
or "pending" (the controller is not merged). No simulation runs here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import pathpool

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "validation"))
import smptcp_paper as sp  # noqa: E402


def quick_combos():
    combos = sp.agg_combos()
    return [c for c in combos if (c["fig"], c["wifi"], c["cell_rate"]) in {("fig4", 54, 70), ("fig5", 1300, 900)}] + [c for c in combos if c["fig"] == "gap"][:1]


def test_the_rows_are_the_papers():
    combos = sp.agg_combos()
    fig4 = {(c["wifi"], c["cell_rate"]) for c in combos if c["fig"] == "fig4"}
    fig5 = {(c["wifi"], c["cell_rate"]) for c in combos if c["fig"] == "fig5"}
    assert fig4 == {(w, l) for w in (54, 289, 600, 1300) for l in (70, 200)}
    assert fig5 == {(w, n) for w in (54, 289, 600, 1300) for n in (400, 900)}
    # The bound: 12 MB over the larger of the Wi-Fi and NR RTTs covers 1300 + 900 Mb/s.
    assert 12e6 * 8 / max(sp.RTT_MS["wifi"], sp.RTT_MS["nr"]) * 1e3 >= 2.2e9
    # At least one large RTT gap.
    assert any(c["cell_rtt"] / c["wifi_rtt"] >= 10 for c in combos if c["fig"] == "gap")


@pytest.mark.parametrize("c", quick_combos(), ids=sp.combo_id)
def test_aggregation_scenarios_validate(c):
    for iface in ("wlan0", sp.cell_iface(c["cell"])):
        doc = sp.agg_scenario(c, "single", iface)
        pathpool.validate(doc)
        assert [l["name"] for l in doc["links"] if l["b"].startswith("phone:")] == [iface]
    legacy = sp.agg_scenario(c, "legacy")
    pathpool.validate(legacy)
    f = legacy["flows"][0]
    assert f["tcp"]["rcv_buffer"] == 6291456
    assert f["mptcp"] == {"coupling": "olia", "scheduler": "minrtt", "path_manager": "fullmesh", "initial": "phone:wlan0"}
    smptcp = sp.agg_scenario(c, "smptcp")
    assert smptcp["flows"][0]["mptcp"]["path_manager"] == "single_path"
    assert smptcp["flows"][0]["mptcp"]["coupling"] == "olia"  # the server is the same
    assert smptcp["controllers"] == [{"host": "phone", "kind": "smptcp", "params": {}, "sample_interval": "100ms"}]
    cell = sp.cell_iface(c["cell"])
    assert smptcp["devices"][0]["bandwidth"] == {"wlan0": [[0, f"{c['wifi']}Mbps"]], cell: [[0, f"{c['cell_rate']}Mbps"]]}
    assert smptcp["devices"][0]["rat"] == {"wlan0": [[0, "wifi"]], cell: [[0, c["cell"]]]}
    assert sp.smptcp_status(smptcp) in (None, sp.PENDING)
    pathpool.validate(sp.without_smptcp(smptcp))


@pytest.mark.parametrize("fig", list(sp.VIDEO_CELL))
def test_video_scenarios_validate(fig):
    doc = sp.video_scenario(fig, 5.0, "legacy", 300.0)
    pathpool.validate(doc)
    app = doc["flows"][0]["app"]
    assert (app["bitrate"], app["max_buffer"], app["low_watermark"]) == ("8Mbps", "110s", "80s")
    # One hour of 8 Mb/s is 3600 MB.
    assert sp.VIDEO_BITRATE * sp.VIDEO_HOUR / 8 == 3600e6
    s = sp.video_scenario(fig, 5.0, "smptcp", 300.0)
    assert sp.smptcp_status(s) in (None, sp.PENDING)
    pathpool.validate(sp.without_smptcp(s))


@pytest.mark.parametrize("workload", ["screen_off", "continuous"])
def test_power_scenarios_validate(workload):
    doc = sp.power_scenario(workload, "legacy", 1)
    pathpool.validate(doc)
    assert set(doc["devices"][0]["radios"]) == {"wlan0", "lte0"}
    s = sp.power_scenario(workload, "smptcp", 1)
    assert s["devices"][0]["screen"] == [[0, workload == "continuous"]]
    assert sp.smptcp_status(s) in (None, sp.PENDING)
    pathpool.validate(sp.without_smptcp(s))


def test_video_wifi_rates_come_from_smptcps_paper_bytes():
    # With C = WB/VB < 1 Wi-Fi is busy the whole hour: its payload rate is S-MPTCP's share of VB.
    for (fig, cond), share in {("fig8", "good"): 2520 / 3600, ("fig8", "poor"): 2160 / 3600, ("fig9", "good"): 0.73}.items():
        rate = sp.video_wifi_rate(fig, cond)
        assert abs(rate * 1e6 * sp.PAYLOAD_PER_WIRE / sp.VIDEO_BITRATE - share) < 0.005
        assert rate * 1e6 < sp.VIDEO_BITRATE  # Algorithm 1's C < 1
    # Poor Wi-Fi beside NR: below 0.4 VB of payload (S-MPTCP's 5G share > 60 %).
    assert sp.video_wifi_rate("fig9", "poor") * 1e6 * sp.PAYLOAD_PER_WIRE < 0.4 * sp.VIDEO_BITRATE
    s = sp.video_scenario("fig8", sp.video_wifi_rate("fig8", "good"), "smptcp", 300.0, cell_rate=8.4)
    assert s["devices"][0]["bandwidth"] == {"wlan0": [[0, "5.8Mbps"]], "lte0": [[0, "8.4Mbps"]]}


@pytest.mark.parametrize("c", sp.LAB_AGG_ROWS, ids=sp.combo_id)
def test_lab_scenarios_are_the_uncoupled_baseline(c):
    for scheme in ("legacy", "smptcp"):
        doc = sp.agg_scenario(c, scheme, uncoupled=True, core=sp.LAB_CORE)
        f = doc["flows"][0]
        assert f["tcp"] == {"cc": "cubic"}  # no fixed receive buffer: the lab refuses one
        assert f["mptcp"]["coupling"] == "uncoupled"
        assert f["mptcp"]["path_manager"] == ("fullmesh" if scheme == "legacy" else "single_path")
        assert all(l["rate"] == sp.LAB_CORE for l in doc["links"] if not l["b"].startswith("phone:"))
        if scheme == "legacy":
            pathpool.validate(doc)
    v = sp.video_scenario("fig8", 5.8, "legacy", sp.LAB_VIDEO_S, 8.0, uncoupled=True, core=sp.LAB_CORE, tail_s=sp.LAB_VIDEO_TAIL)
    pathpool.validate(v)
    assert v["sim"]["duration"] == "620s"


def test_the_bbr_rows_change_only_the_servers_congestion_control():
    c = next(c for c in sp.agg_combos() if (c["fig"], c["wifi"], c["cell_rate"]) == ("fig5", 1300, 900))
    for iface in ("wlan0", sp.cell_iface(c["cell"])):
        doc = sp.agg_scenario(c, "single", iface, bbr=True)
        pathpool.validate(doc)
        assert doc["flows"][0]["tcp"] == {"cc": "bbr", "rcv_buffer": 6291456}
    bbr, olia = sp.agg_scenario(c, "smptcp", bbr=True), sp.agg_scenario(c, "smptcp")
    pathpool.validate(bbr)
    assert bbr["flows"][0]["mptcp"] == dict(olia["flows"][0]["mptcp"], coupling="uncoupled")
    assert bbr["flows"][0]["tcp"] == {"cc": "bbr", "rcv_buffer": 6291456}
    assert {k: v for k, v in bbr.items() if k != "flows"} == {k: v for k, v in olia.items() if k != "flows"}
    # Legacy stays the paper's baseline.
    assert sp.agg_scenario(c, "legacy")["flows"][0]["mptcp"]["coupling"] == "olia"


def test_a_partial_run_replaces_only_its_sections(tmp_path, monkeypatch):
    doc = tmp_path / "smptcp.md"
    doc.write_text(f"intro\n{sp.BEGIN}\n\n### A\n\nold a\n\n### B\n\nold b\n\nPlots: a.png, b.png\n\n{sp.END}\nafter\n")
    monkeypatch.setattr(sp, "DOC", doc)
    sp.render_doc("# title\n\nSimulator build x\n\n## B\n\nnew b\n\n## C\n\nnew c\n\nPlots: b.png\n", partial=True)
    text = doc.read_text()
    assert text.index("old a") < text.index("new b") < text.index("new c") < text.index("Plots: a.png, b.png")
    assert "old b" not in text and "Plots: b.png\n" not in text and text.endswith(f"{sp.END}\nafter\n")
