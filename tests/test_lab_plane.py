"""``pathpool run --plane lab``: the kernel lab through the CLI and the API.

These need root and a kernel with MPTCP (``make test`` on this kind of
machine has both); elsewhere they skip, saying why.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import pathpool
from pathpool import schema
from pathpool.cli import main

LAB = Path(__file__).resolve().parent.parent / "validation" / "lab"

needs_lab = pytest.mark.skipif(os.geteuid() != 0 or not Path("/proc/sys/net/mptcp/enabled").exists(),
                               reason="the kernel lab needs root and a kernel with MPTCP")


@needs_lab
def test_lab_run_writes_the_simulators_tables(runner, tmp_path):
    scenario = tmp_path / "short.toml"
    scenario.write_text((LAB / "two-paths.toml").read_text().replace('duration = "20s"', 'duration = "4s"'))
    out = tmp_path / "out"
    result = runner.invoke(main, ["run", str(scenario), "--plane", "lab", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "on the kernel lab" in result.output
    assert "client:eth1 → server:eth1" in result.output
    sim = pathpool.run(scenario)
    lab = pathpool.load(out)
    assert lab.summary["plane"] == "lab"
    for name in ("flows", "links", "flow_ts", "link_ts", "subflows", "subflow_ts", "interfaces", "controller_log"):
        assert lab.tables[name].schema.names == sim.tables[name].schema.names, name
        assert pq.read_schema(out / f"{name}.parquet").names == schema.SCHEMAS[name].names, name
    flows = lab.flows
    assert flows.goodput_bps[0] > 0.5 * 50e6
    assert flows.timeouts.isna().all()
    assert len(lab.frame("subflows")) == 2
    # The flow's full-mesh path manager opened the second subflow, on both planes.
    for log in (lab.frame("controller_log"), sim.frame("controller_log")):
        opened = log[(log.controller == "path_manager") & (log.action == "open_subflow") & (log.outcome == "done")]
        assert list(opened.detail) == ["eth1 -> server:eth1"], log


@needs_lab
def test_lab_refuses_what_the_kernel_cannot_run(runner, tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(main, ["run", "default", "--plane", "lab", "--out", str(out)])
    assert result.exit_code == 2
    assert "mptcp.coupling 'lia'" in result.output
    assert not out.exists()
    with pytest.raises(pathpool.LabError, match="router module 'rcp'"):
        pathpool.run(_rcp_scenario(tmp_path), plane="lab")


def _rcp_scenario(tmp_path: Path) -> Path:
    path = tmp_path / "rcp.toml"
    path.write_text("""\
[sim]
duration = "2s"
[[nodes]]
name = "a"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "b"
[[links]]
a = "a"
b = "r"
rate = "10Mbps"
delay = "1ms"
[[links]]
a = "r"
b = "b"
rate = "10Mbps"
delay = "1ms"
[routers]
module = "rcp"
[[flows]]
src = "a"
dst = "b"
transport = "rcp"
""")
    return path


def test_a_late_emulator_is_flagged_next_to_the_numbers(small_scenario):
    from rich.console import Console

    from pathpool.cli import _warn_if_the_emulator_fell_behind

    results = pathpool.run(small_scenario)
    console = Console(record=True, width=200)
    results.summary["emulator"] = {"late_over_1ms_fraction": 0.001, "late_max_s": 0.002}
    _warn_if_the_emulator_fell_behind(console, results)
    assert console.export_text() == ""
    results.summary["emulator"] = {"late_over_1ms_fraction": 0.05, "late_max_s": 0.012}
    _warn_if_the_emulator_fell_behind(console, results)
    assert "5.0% of packets more than 1 ms late (worst 12.0 ms)" in console.export_text()
