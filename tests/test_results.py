"""Results directories: round trips, determinism, and atomic, refusing writes."""

import json

import numpy as np
import pandas as pd
import pathpool
import pyarrow as pa
import pytest
from pathpool import results as results_module
from pathpool import schema


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_results_round_trip(small_scenario, tmp_path, fmt):
    out = tmp_path / "out"
    ran = pathpool.run(small_scenario, out=out, fmt=fmt)
    assert ran.path == out
    loaded = pathpool.load(out)

    assert loaded.summary == ran.summary
    assert loaded.scenario == small_scenario.read_text()
    assert loaded.run_info == ran.run_info
    assert list(loaded.tables) == list(ran.tables)
    for name, table in ran.tables.items():
        assert loaded.tables[name].schema.equals(table.schema, check_metadata=True), name
        pd.testing.assert_frame_equal(loaded.frame(name), ran.frame(name), check_exact=fmt == "parquet")


def test_run_gives_tables_typed_as_the_schema(small_scenario):
    ran = pathpool.run(small_scenario)
    for name, expected in schema.SCHEMAS.items():
        table = ran.tables[name]
        for field in expected:
            assert table.schema.field(field.name).equals(field, check_metadata=True), f"{name}.{field.name}"
    flows = ran.flows.set_index("name")
    assert set(flows.index) == {"bulk0", "bulk1", "sized"}
    assert flows.loc["sized", "size_bytes"] == 200_000
    assert pd.isna(flows.loc["bulk0", "size_bytes"])
    assert flows.loc["sized", "completed"]
    assert ran.summary["plane"] == "sim"
    assert ran.summary["flows"] == 3


def test_results_directory_contents(small_scenario, tmp_path):
    out = tmp_path / "out"
    ran = pathpool.run(small_scenario, out=out)
    assert {"flows", "links", "flow_ts", "link_ts"} <= set(ran.tables)
    names = {p.name for p in out.iterdir()}
    assert names == {f"{table}.parquet" for table in ran.tables} | {"summary.json", "scenario.toml", "run_info.json"}
    summary_text = (out / "summary.json").read_text()
    assert summary_text == json.dumps(json.loads(summary_text), sort_keys=True, indent=2) + "\n"
    run_info = json.loads((out / "run_info.json").read_text())
    assert {"wall_s", "events_per_s", "host", "pathpool_version", "command_line"} <= set(run_info)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_same_scenario_and_seed_give_byte_identical_directories(lossy_scenario, tmp_path, dir_bytes, fmt):
    first = dir_bytes(pathpool.run(lossy_scenario, seed=5, out=tmp_path / "a", fmt=fmt).path)
    second = dir_bytes(pathpool.run(lossy_scenario, seed=5, out=tmp_path / "b", fmt=fmt).path)
    assert first.keys() == second.keys()
    for name in first:
        assert first[name] == second[name], f"{name} differs between two identical runs"


def test_different_seeds_give_different_results_with_random_loss(lossy_scenario):
    one = pathpool.run(lossy_scenario, seed=1)
    two = pathpool.run(lossy_scenario, seed=2)
    assert one.summary["seed"] == 1 and two.summary["seed"] == 2
    assert not one.flows[["bytes_delivered", "retransmits"]].equals(two.flows[["bytes_delivered", "retransmits"]])


def test_an_existing_directory_is_refused_without_force(small_scenario, tmp_path):
    out = tmp_path / "out"
    pathpool.run(small_scenario, seed=1, out=out)
    with pytest.raises(FileExistsError, match="already exists"):
        pathpool.run(small_scenario, seed=2, out=out)
    assert pathpool.load(out).summary["seed"] == 1

    pathpool.run(small_scenario, seed=2, out=out, force=True)
    assert pathpool.load(out).summary["seed"] == 2


def test_force_never_replaces_a_directory_that_holds_no_results(small_scenario, tmp_path):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match="not a pathpool results directory"):
        pathpool.run(small_scenario, out=out, force=True)
    assert (out / "notes.txt").read_text() == "keep me"


def _fail_on_second_table(monkeypatch):
    """Makes writing the second table of a results directory fail."""
    real_write_table = results_module._write_table
    written = []

    def write_table(table, path, fmt):
        if written:
            raise OSError("disk full (simulated)")
        written.append(path)
        real_write_table(table, path, fmt)

    monkeypatch.setattr(results_module, "_write_table", write_table)


def test_a_failed_write_leaves_no_results_directory(small_scenario, tmp_path, monkeypatch, leftovers):
    ran = pathpool.run(small_scenario)
    _fail_on_second_table(monkeypatch)
    out = tmp_path / "out"
    with pytest.raises(OSError, match="disk full"):
        pathpool.write(ran, out)
    assert not out.exists()
    assert leftovers(tmp_path) == []
    assert ran.path is None


def test_a_failed_forced_write_keeps_the_old_results(small_scenario, tmp_path, monkeypatch, leftovers, dir_bytes):
    out = tmp_path / "out"
    ran = pathpool.run(small_scenario, out=out)
    before = dir_bytes(out)
    _fail_on_second_table(monkeypatch)
    with pytest.raises(OSError, match="disk full"):
        pathpool.write(ran, out, force=True)
    assert dir_bytes(out) == before
    assert leftovers(tmp_path) == []


def test_an_unknown_format_is_refused_before_running(small_scenario, tmp_path):
    with pytest.raises(ValueError, match="xlsx"):
        pathpool.run(small_scenario, out=tmp_path / "out", fmt="xlsx")
    assert not (tmp_path / "out").exists()


def test_load_refuses_a_directory_without_results(tmp_path):
    with pytest.raises(FileNotFoundError, match="summary.json"):
        pathpool.load(tmp_path)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_extra_tables_and_columns_are_written_and_read_back(small_scenario, tmp_path, fmt):
    ran = pathpool.run(small_scenario)
    tables = dict(ran.tables)
    tables["flows"] = tables["flows"].append_column("paths_used", pa.array(np.ones(3, dtype=np.uint8)))
    tables["events"] = pa.table({"flow_id": pa.array([0, 0], pa.uint32()), "iface": ["wlan0", "rmnet0"]})
    extended = pathpool.Results(summary=ran.summary, tables=tables, scenario=ran.scenario)

    loaded = pathpool.load(pathpool.write(extended, tmp_path / "out", fmt=fmt))
    assert loaded.flows["paths_used"].tolist() == [1, 1, 1]
    assert loaded.frame("events")["iface"].tolist() == ["wlan0", "rmnet0"]
    assert loaded.tables["flows"].schema.field("goodput_bps").equals(schema.FLOWS.field("goodput_bps"),
                                                                    check_metadata=True)
