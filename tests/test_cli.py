"""The pathpool command: run, scenarios, plot, validate, and its error messages."""

import pathpool
import pytest
from pathpool.cli import main

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_run_writes_results_and_prints_a_summary(runner, small_scenario, tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(main, ["run", str(small_scenario), "--out", str(out), "--seed", "3", "--plot"])
    assert result.exit_code == 0, result.output
    for text in ("bulk0", "bulk1", "sized", "src0 → dst0", "newreno", "200 kB", "Jain's index",
                 "total goodput", "AFCT", "dropped", str(out)):
        assert text in result.output
    assert "simulating" not in result.output  # no progress bar off a terminal
    assert pathpool.load(out).summary["seed"] == 3
    assert (out / "plot.png").read_bytes().startswith(PNG_SIGNATURE)
    assert "MPTCP subflows" not in result.output  # single-path flows only


def test_the_summary_lists_mptcp_subflows(runner, tmp_path):
    out = tmp_path / "two-paths"
    result = runner.invoke(main, ["run", "two-paths", "--out", str(out)])
    assert result.exit_code == 0, result.output
    subflows = pathpool.load(out).frame("subflows")
    assert "MPTCP subflows" in result.output and len(subflows) >= 2
    for sub in subflows.itertuples():
        assert f"{sub.local_interface} → {sub.remote_interface}" in result.output


def test_run_a_builtin_scenario_as_csv(runner, tmp_path):
    out = tmp_path / "default"
    result = runner.invoke(main, ["run", "default", "--out", str(out), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert (out / "flows.csv").is_file() and (out / "scenario.toml").is_file()
    assert pathpool.load(out).summary["scenario"] == "default"


def test_run_refuses_an_existing_directory_unless_forced(runner, small_scenario, tmp_path):
    out = tmp_path / "out"
    assert runner.invoke(main, ["run", str(small_scenario), "--out", str(out)]).exit_code == 0
    refused = runner.invoke(main, ["run", str(small_scenario), "--out", str(out), "--seed", "9"])
    assert refused.exit_code == 2
    assert "already exists" in refused.output and "--force" in refused.output
    assert pathpool.load(out).summary["seed"] == 1

    forced = runner.invoke(main, ["run", str(small_scenario), "--out", str(out), "--seed", "9", "--force"])
    assert forced.exit_code == 0, forced.output
    assert pathpool.load(out).summary["seed"] == 9


def test_run_an_unknown_scenario_name(runner, tmp_path):
    result = runner.invoke(main, ["run", "no-such-scenario", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "no-such-scenario" in result.output and "default" in result.output
    assert not (tmp_path / "out").exists()


def test_scenarios_lists_the_builtins_with_descriptions(runner):
    result = runner.invoke(main, ["scenarios"])
    assert result.exit_code == 0, result.output
    for name in ("default", "dumbbell", "parking-lot", "lossy-link", "cellular-trace"):
        assert name in result.output
    assert "Gilbert-Elliott" in result.output


def test_plot_writes_plot_png_into_the_results_directory(runner, small_scenario, tmp_path):
    out = tmp_path / "out"
    pathpool.run(small_scenario, out=out)
    result = runner.invoke(main, ["plot", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "plot.png").read_bytes().startswith(PNG_SIGNATURE)

    elsewhere = tmp_path / "figure.png"
    result = runner.invoke(main, ["plot", str(out), "--output", str(elsewhere)])
    assert result.exit_code == 0, result.output
    assert elsewhere.read_bytes().startswith(PNG_SIGNATURE)


def test_plot_refuses_a_directory_without_results(runner, tmp_path):
    result = runner.invoke(main, ["plot", str(tmp_path)])
    assert result.exit_code == 2
    assert "summary.json" in result.output


def test_validate_a_good_scenario(runner, small_scenario):
    result = runner.invoke(main, ["validate", str(small_scenario)])
    assert result.exit_code == 0, result.output
    assert "'small' is valid" in result.output


#: A valid scenario that each bad-input case below breaks in one way.
GOOD = """\
[sim]
duration = "1s"

[[nodes]]
name = "a"

[[nodes]]
name = "b"

[[links]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "5ms"

[[flows]]
src = "a"
dst = "b"
"""

TWO_ISLANDS = """\
[sim]
duration = "1s"

[[nodes]]
name = "a"

[[nodes]]
name = "b"

[[nodes]]
name = "c"

[[nodes]]
name = "d"

[[links]]
a = "a"
b = "b"
rate = "10Mbps"
delay = "5ms"

[[links]]
a = "c"
b = "d"
rate = "10Mbps"
delay = "5ms"

[[flows]]
src = "a"
dst = "d"
"""

# (scenario text, field path the message must name, words it must contain, whatever their case)
BAD_INPUTS = {
    "unknown key": (GOOD.replace('rate = "10Mbps"', 'rat = "10Mbps"'), "links[0].rat", ["unknown field"]),
    "wrong type": (GOOD.replace('delay = "5ms"', 'delay = "5ms"\nqueue = "lots"'), "links[0].queue",
                   ["invalid type"]),
    "negative rate": (GOOD.replace('rate = "10Mbps"', "rate = -10"), "links[0].rate", ["negative"]),
    "zero rate": (GOOD.replace('rate = "10Mbps"', "rate = 0"), "links[0].rate", ["positive"]),
    "unknown node in a link": (GOOD.replace('b = "b"', 'b = "nowhere"'), "links[0].b", ["node", "nowhere"]),
    "unknown node in a flow": (GOOD.replace('dst = "b"', 'dst = "ghost"'), "flows[0].dst", ["node", "ghost"]),
    "duplicate node name": (GOOD.replace("[[links]]", '[[nodes]]\nname = "a"\n\n[[links]]'), "nodes[2].name",
                            ["duplicate"]),
    "destination without a route": (TWO_ISLANDS, "flows[0]", ["route"]),
}


def test_the_bad_input_base_scenario_is_valid(runner, write_scenario):
    assert runner.invoke(main, ["validate", str(write_scenario(GOOD))]).exit_code == 0


@pytest.mark.parametrize("case", BAD_INPUTS, ids=lambda case: case.replace(" ", "-"))
def test_bad_input_is_reported_with_file_field_and_problem(case, runner, write_scenario, tmp_path, leftovers):
    text, field_path, words = BAD_INPUTS[case]
    path = write_scenario(text, "bad.toml")
    out = tmp_path / "out"

    result = runner.invoke(main, ["run", str(path), "--out", str(out)])
    assert result.exit_code == 2, result.output
    message = result.output
    assert str(path) in message, f"message does not name the file:\n{message}"
    assert field_path in message, f"message does not name {field_path}:\n{message}"
    for word in words:
        assert word in message.lower(), f"message does not say {word!r}:\n{message}"
    assert not out.exists()
    assert leftovers(tmp_path) == []

    with pytest.raises(pathpool.ScenarioError):
        pathpool.validate(path)
    assert runner.invoke(main, ["validate", str(path)]).exit_code == 2
