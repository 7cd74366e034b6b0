"""Shared fixtures for pathpool's Python tests.

These tests exercise the compiled extension ``pathpool._core``; they are meant
to fail, not skip, when it is missing (``make test`` builds it first).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

#: Two bulk flows and a 200 kB flow, each from its own host, across a small
#: dumbbell; 3 simulated seconds.
SMALL_SCENARIO = """\
[sim]
duration = "3s"

[tcp]
cc = "newreno"

[topology]
kind = "dumbbell"
pairs = 3
access = { rate = "1Gbps", delay = "1ms" }
bottleneck = { rate = "20Mbps", delay = "10ms", queue = 100 }

[[flows]]
count = 2
name = "bulk{i}"
src = "src{i}"
dst = "dst{i}"
start_step = "100ms"

[[flows]]
name = "sized"
src = "src2"
dst = "dst2"
size = "200KB"
start = "0.5s"
"""

#: One bulk flow over a link with bursty (Gilbert-Elliott) loss, 3 simulated seconds.
LOSSY_SCENARIO = """\
[sim]
duration = "3s"

[[nodes]]
name = "server"

[[nodes]]
name = "router"
kind = "router"

[[nodes]]
name = "client"

[[links]]
a = "server"
b = "router"
rate = "100Mbps"
delay = "1ms"

[[links]]
a = "router"
b = "client"
rate = "20Mbps"
delay = "10ms"
a_to_b = { loss = { model = "gilbert_elliott", p_good_to_bad = 0.02, p_bad_to_good = 0.3, loss_bad = 0.5 } }

[[flows]]
name = "lossy"
src = "server"
dst = "client"
"""


@pytest.fixture
def write_scenario(tmp_path: Path) -> Callable[[str, str], Path]:
    """Writes scenario text to a file in the test's temporary directory and returns its path."""

    def write(text: str, name: str = "scenario.toml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture
def small_scenario(write_scenario) -> Path:
    return write_scenario(SMALL_SCENARIO, "small.toml")


@pytest.fixture
def lossy_scenario(write_scenario) -> Path:
    return write_scenario(LOSSY_SCENARIO, "lossy.toml")


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def dir_bytes() -> Callable[[Path], dict[str, bytes]]:
    """Returns a function reading every file of a results directory, except the
    non-deterministic run_info.json, as {file name: bytes}."""

    def read(directory: Path) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.name != "run_info.json"}

    return read


@pytest.fixture
def leftovers() -> Callable[[Path], list[str]]:
    """Returns a function listing the hidden staging directories that an
    interrupted write would leave in a directory (there should be none)."""

    def find(directory: Path) -> list[str]:
        return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))

    return find
