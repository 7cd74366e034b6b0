"""The short form of the scenario fuzzer (tests/fuzz_scenarios.py): a few
hundred mutants of every built-in and validation scenario, each refused
cleanly or run for 1 s without a panic, a memory blow-up or a hang. The
long form (5 000 mutants) is `python tests/fuzz_scenarios.py`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BINARY = REPO / "target" / "release" / "pathpool-sim"


@pytest.mark.skipif(not BINARY.exists(), reason="needs target/release/pathpool-sim (make test builds it first)")
def test_mutated_scenarios_never_crash():
    p = subprocess.run([sys.executable, str(REPO / "tests" / "fuzz_scenarios.py"), "--mutants", "400", "--seed", "7"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    assert "'crash': 0, 'timeout': 0" in p.stdout, p.stdout
