"""pathpool: a multipath transport lab.

Run a scenario in the packet-level simulator and get its results as tables::

    import pathpool
    results = pathpool.run("default", seed=2, out="results/default")
    results.flows          # pandas DataFrame, one row per flow
    results.summary        # headline numbers
    pathpool.load("results/default")

A scenario is a TOML (or JSON) file, the name of a built-in scenario
(:func:`builtin_scenarios`) or a dict of the same structure. The command line
interface is ``pathpool`` (see :mod:`pathpool.cli`).
"""

from ._core import LabError, ScenarioError
from .api import __version__, resolve_data_dir, run, validate
from .results import Results, load, write
from .scenarios import builtin_scenarios, resolve_scenario
from .topology import DetourCensus, detour_census

__all__ = [
    "DetourCensus",
    "LabError",
    "Results",
    "ScenarioError",
    "__version__",
    "builtin_scenarios",
    "detour_census",
    "load",
    "resolve_data_dir",
    "resolve_scenario",
    "run",
    "validate",
    "write",
]
