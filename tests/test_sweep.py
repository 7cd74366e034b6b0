"""pathpool sweep: grids of field values × seeds, checked first, resumable."""

from __future__ import annotations

import pandas as pd
import pytest

from pathpool import sweep
from pathpool.cli import main


def test_set_field_follows_paths_into_tables_and_arrays():
    doc = {"links": [{"rate": "1Mbps"}, {"rate": "2Mbps"}], "sim": {"duration": "1s"}}
    sweep.set_field(doc, "links[1].rate", "5Mbps")
    sweep.set_field(doc, "tcp.cc", "cubic")
    sweep.set_field(doc, "sim.seed", 4)
    assert doc == {"links": [{"rate": "1Mbps"}, {"rate": "5Mbps"}], "sim": {"duration": "1s", "seed": 4},
                   "tcp": {"cc": "cubic"}}
    with pytest.raises(ValueError, match=r"links\[2\]\.rate: the scenario has 2 entries there, no \[2\]"):
        sweep.set_field(doc, "links[2].rate", "1Mbps")
    with pytest.raises(ValueError, match="bad index"):
        sweep.set_field(doc, "links[x].rate", "1Mbps")


def test_values_are_read_as_toml_else_as_text():
    assert sweep.parse_assignment("tcp.cc=cubic, bbr") == ("tcp.cc", ["cubic", "bbr"])
    assert sweep.parse_assignment("sim.seed=1,2") == ("sim.seed", [1, 2])
    assert sweep.parse_assignment("x=0.5,true,10Mbps") == ("x", [0.5, True, "10Mbps"])
    with pytest.raises(ValueError, match="PATH=VALUE"):
        sweep.parse_assignment("tcp.cc")


def test_a_sweep_runs_every_point_and_resumes_where_it_stopped(runner, small_scenario, tmp_path):
    out = tmp_path / "sweep"
    args = ["sweep", str(small_scenario), "--set", "tcp.cc=newreno,cubic",
            "--set", "topology.bottleneck.rate=10Mbps,20Mbps", "--seeds", "1-2", "--out", str(out), "-j", "2"]
    first = runner.invoke(main, args)
    assert first.exit_code == 0, first.output
    assert "8 point(s) run now, 0 already done" in first.output
    index = pd.read_csv(out / "index.csv")
    assert len(index) == 8 and index["done"].all()
    assert set(index["tcp.cc"]) == {"newreno", "cubic"} and set(index["seed"]) == {1, 2}
    by_rate = index.groupby("topology.bottleneck.rate")["total_goodput_bps"].mean()
    assert by_rate["20Mbps"] > 1.5 * by_rate["10Mbps"]
    # Lose one point's results, as an interruption would: only it runs again.
    victim = index["point"][3]
    for f in (out / "points" / victim).iterdir():
        f.unlink()
    (out / "points" / victim).rmdir()
    second = runner.invoke(main, args)
    assert second.exit_code == 0, second.output
    assert "1 point(s) run now, 7 already done" in second.output
    assert pd.read_csv(out / "index.csv").equals(index)


def test_every_point_is_checked_before_anything_runs(runner, small_scenario, tmp_path):
    out = tmp_path / "sweep"
    bad_value = runner.invoke(main, ["sweep", str(small_scenario), "--set", "topology.bottleneck.rate=10Mbps,-5Mbps",
                                     "--out", str(out)])
    assert bad_value.exit_code == 2
    assert "sweep point topology.bottleneck.rate=-5Mbps" in bad_value.output
    assert "topology.bottleneck.rate" in bad_value.output
    bad_path = runner.invoke(main, ["sweep", str(small_scenario), "--set", "flows[9].size=1MB", "--out", str(out)])
    assert bad_path.exit_code == 2
    assert "flows[9].size: the scenario has 2 entries there" in bad_path.output
    assert not out.exists()


def test_a_different_sweep_is_refused_in_the_same_directory(runner, small_scenario, tmp_path):
    out = tmp_path / "sweep"
    assert runner.invoke(main, ["sweep", str(small_scenario), "--set", "tcp.cc=cubic", "--out", str(out)]).exit_code == 0
    other = runner.invoke(main, ["sweep", str(small_scenario), "--set", "tcp.cc=bbr", "--out", str(out)])
    assert other.exit_code == 2
    assert "holds a different sweep" in other.output
