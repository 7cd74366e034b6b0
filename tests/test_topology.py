"""Table I of the INRPP paper (one-hop detours in Rocketfuel maps):
pathpool.detour_census and `pathpool topology census`."""

import pathpool
import pytest
from pathpool.cli import main

DATA = pathpool.resolve_data_dir()
MAPS = DATA / "rocketfuel" / "maps_cch" if DATA else None
needs_maps = pytest.mark.skipif(MAPS is None or not MAPS.is_dir(), reason="../shared/data/rocketfuel not found")


@needs_maps
def test_tiscali_r0_is_table_i_row():
    c = pathpool.detour_census(MAPS / "3257.r0.cch")
    assert (c.routers, c.links, c.with_detour, c.by_count, c.max) == (248, 405, 99, (60, 19, 12, 5, 3), 8)
    assert f"{c.with_detour_pct:.2f}" == "24.44"
    assert [f"{p:.2f}" for p in c.by_count_pct] == ["60.61", "19.19", "12.12", "5.05", "3.03"]


@needs_maps
def test_prune_and_largest_component_filter_the_map_first():
    whole = pathpool.detour_census(MAPS / "3257.cch")
    ndnsim = pathpool.detour_census(MAPS / "3257.cch", prune="ndnsim")
    chains = pathpool.detour_census(MAPS / "3257.cch", prune="edge_chains", largest_component=True)
    assert (whole.routers, whole.links) == (506, 750)
    assert (ndnsim.routers, ndnsim.links) == (440, 681)
    assert (chains.routers, chains.links) == (442, 683)
    # The links with a detour lie among routers every filter keeps; the share
    # in the paper's simulated topology is 20.85 %, not Table I's 24.44 %.
    assert whole.with_detour == chains.with_detour == ndnsim.with_detour == 142
    assert f"{ndnsim.with_detour_pct:.2f}" == "20.85"


@needs_maps
def test_cli_prints_a_row_per_map(runner):
    result = runner.invoke(main, ["topology", "census", "--markdown", str(MAPS / "3257.r0.cch"), str(MAPS / "3967.r0.cch")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("| map | routers | links |")
    assert lines[2].endswith("| 248 | 405 | 24.44 | 60.61 | 19.19 | 12.12 | 5.05 | 3.03 | 8 |")
    assert "3967.r0.cch" in lines[3]


def test_cli_errors_name_the_file(runner, tmp_path):
    result = runner.invoke(main, ["topology", "census", str(tmp_path / "nope.cch")])
    assert result.exit_code == 2 and "nope.cch" in result.output
    bad = tmp_path / "bad.cch"
    bad.write_text("1 @A (1) -> <2> =a r0\nx @B (1) -> <1> =b r0\n")
    result = runner.invoke(main, ["topology", "census", str(bad)])
    assert result.exit_code == 2 and "bad.cch" in result.output and "line 2" in result.output
    with pytest.raises(ValueError, match="unknown prune 'some'"):
        pathpool.detour_census(bad, prune="some")
