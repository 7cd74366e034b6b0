"""pathpool.run / pathpool.validate, scenario lookup and the data directory."""

import json
from pathlib import Path

import pathpool
import pytest
from pathpool import api
from pathpool.scenarios import BUILTIN_DIR


def test_validate_returns_the_scenario_name(small_scenario):
    assert pathpool.validate(small_scenario) == "small"


def test_run_a_dict_scenario(tmp_path):
    scenario = {
        "name": "from-dict",
        "sim": {"duration": "1s"},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"a": "a", "b": "b", "rate": "10Mbps", "delay": "5ms"}],
        "flows": [{"name": "only", "src": "a", "dst": "b"}],
    }
    ran = pathpool.run(scenario, out=tmp_path / "out")
    assert ran.summary["scenario"] == "from-dict"
    assert ran.flows["name"].tolist() == ["only"]
    assert ran.flows["bytes_delivered"].iloc[0] > 0
    assert json.loads((tmp_path / "out" / "scenario.json").read_text()) == scenario
    assert not (tmp_path / "out" / "scenario.toml").exists()


def test_seed_overrides_the_scenario_seed(small_scenario):
    assert pathpool.run(small_scenario).summary["seed"] == 1
    assert pathpool.run(small_scenario, seed=7).summary["seed"] == 7


def test_progress_callback_gets_simulated_time_and_duration(small_scenario):
    calls = []
    pathpool.run(small_scenario, progress=lambda now, duration: calls.append((now, duration)))
    for now, duration in calls:
        assert duration == pytest.approx(3.0)
        assert 0 <= now <= duration
    assert [now for now, _ in calls] == sorted(now for now, _ in calls)


def test_scenario_errors_are_value_errors(write_scenario):
    path = write_scenario('[sim]\nduration = "1s"\nflows = 3\n', "bad.toml")
    with pytest.raises(ValueError) as caught:
        pathpool.validate(path)
    assert isinstance(caught.value, pathpool.ScenarioError)
    assert str(path) in str(caught.value)


def test_the_required_builtin_scenarios_exist_and_describe_themselves():
    builtins = pathpool.builtin_scenarios()
    assert {"default", "dumbbell", "parking-lot", "lossy-link", "cellular-trace"} <= set(builtins)
    for name, (path, description) in builtins.items():
        assert path == BUILTIN_DIR / f"{name}.toml"
        assert len(description) > 40, name


@pytest.mark.parametrize("name", sorted(pathpool.builtin_scenarios()))
def test_every_builtin_scenario_is_valid(name):
    assert pathpool.validate(name) == name


def test_resolve_scenario_prefers_an_existing_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert pathpool.resolve_scenario("default") == BUILTIN_DIR / "default.toml"
    Path("default").write_text("")
    assert pathpool.resolve_scenario("default") == Path("default")


def test_resolve_scenario_lists_builtins_for_an_unknown_name():
    with pytest.raises(FileNotFoundError, match="no-such-scenario.*built-ins: .*default"):
        pathpool.resolve_scenario("no-such-scenario")


def test_data_dir_comes_from_argument_then_environment_then_repository(tmp_path, monkeypatch):
    explicit, from_env = tmp_path / "explicit", tmp_path / "env"
    explicit.mkdir()
    from_env.mkdir()
    monkeypatch.delenv(api.DATA_ENV, raising=False)
    repo_default = api.resolve_data_dir()
    assert repo_default is None or repo_default.name == "data"

    monkeypatch.setenv(api.DATA_ENV, str(from_env))
    assert api.resolve_data_dir() == from_env
    assert api.resolve_data_dir(explicit) == explicit


def test_a_missing_data_dir_is_an_error(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        api.resolve_data_dir(tmp_path / "nowhere")
    monkeypatch.setenv(api.DATA_ENV, str(tmp_path / "nowhere-either"))
    with pytest.raises(FileNotFoundError, match="PATHPOOL_DATA"):
        api.resolve_data_dir()


def test_trace_paths_resolve_against_the_data_dir(tmp_path):
    traces = tmp_path / "mydata" / "traces"
    traces.mkdir(parents=True)
    (traces / "flat.down").write_text("1\n")  # one 1500-byte packet per ms: 12 Mb/s
    scenario = {
        "sim": {"duration": "1s"},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"a": "a", "b": "b", "delay": "5ms",
                   "a_to_b": {"capacity": {"mahimahi": "data:traces/flat.down"}},
                   "b_to_a": {"rate": "100Mbps"}}],
        "flows": [{"src": "a", "dst": "b"}],
    }
    with pytest.raises(pathpool.ScenarioError):
        pathpool.validate(scenario, data_dir=tmp_path)
    assert pathpool.run(scenario, data_dir=tmp_path / "mydata").flows["goodput_bps"].iloc[0] < 12e6


def test_pacing_rate_and_bandwidth_estimate_are_nan_when_absent():
    """flow_ts.pacing_rate_bps / bw_estimate_bps: NaN (not null) for an algorithm
    that keeps none, numbers for BBR (paced, max-bandwidth filter) and Westwood+ (BWE)."""
    ccs = ["newreno", "cubic", "bbr", "westwood"]
    scenario = {
        "sim": {"duration": "2s", "sample_interval": "100ms"},
        "topology": {"kind": "dumbbell", "pairs": 4, "access": {"rate": "1Gbps", "delay": "1ms"},
                     "bottleneck": {"rate": "20Mbps", "delay": "10ms", "queue": 100}},
        "flows": [{"name": cc, "src": f"src{i}", "dst": f"dst{i}", "tcp": {"cc": cc}} for i, cc in enumerate(ccs)],
    }
    results = pathpool.run(scenario)
    table = results.tables["flow_ts"]
    for column in ("pacing_rate_bps", "bw_estimate_bps"):
        assert table.column(column).null_count == 0
        assert table.schema.field(column).metadata[b"unit"] == b"bit/s"
    names = dict(zip(results.flows["flow_id"], results.flows["name"]))
    late = results.flow_ts[results.flow_ts["time_s"] >= 1.0]
    for flow_id, rows in late.groupby("flow_id"):
        cc = names[flow_id]
        paced, estimate = rows["pacing_rate_bps"], rows["bw_estimate_bps"]
        assert paced.isna().all() == (cc != "bbr"), cc
        assert estimate.isna().all() == (cc in ("newreno", "cubic")), cc
        if cc in ("bbr", "westwood"):
            assert ((estimate > 1e6) & (estimate < 20e6)).all(), (cc, estimate.tolist())
        if cc == "bbr":
            assert ((paced > 1e6) & (paced < 3 * 20e6)).all(), paced.tolist()


def test_a_scenario_file_must_be_utf8_and_within_its_size_limit(tmp_path, monkeypatch):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"[sim]\nduration = \"1s\"\n\xff\n")
    with pytest.raises(pathpool.ScenarioError, match="is not UTF-8 text"):
        pathpool.validate(bad)
    monkeypatch.setenv("PATHPOOL_MAX_FILE_MB", "0.00001")
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * 100 + "\n")
    with pytest.raises(pathpool.ScenarioError, match="limit for a scenario file"):
        pathpool.validate(big)
