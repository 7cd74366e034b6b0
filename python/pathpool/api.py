"""Running and validating scenarios from Python: :func:`run` and :func:`validate`."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import shlex
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from . import _core, schema
from .progress import RunProgress
from .results import FORMATS, Results, check_destination, write
from .scenarios import resolve_scenario

try:
    __version__ = metadata.version("pathpool")
except metadata.PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "unknown"

#: Where a scenario runs: the simulator, or the kernel lab (network namespaces, real Linux MPTCP).
PLANES = ("sim", "lab")

#: Environment variable naming the data directory that ``data:`` paths resolve against.
DATA_ENV = "PATHPOOL_DATA"

ProgressCallback = Callable[[float, float], None]


@dataclass(frozen=True)
class ScenarioText:
    """A scenario as the simulator takes it."""

    text: str
    #: File the text came from, or "<dict>"; error messages name it, and
    #: relative paths in the scenario resolve against its directory.
    source: str
    #: "toml" or "json".
    fmt: str


#: A scenario: a file path, a built-in scenario name, the scenario itself as a
#: dict, or a ScenarioText (text with the file it came from).
Scenario = str | os.PathLike | Mapping[str, Any] | ScenarioText


def read_scenario(scenario: Scenario) -> ScenarioText:
    """Reads a scenario given as a file path, a built-in name or a dict.

    A dict becomes JSON text with source "<dict>", so relative paths inside it
    resolve against the current directory. A file is JSON if its name ends in
    ``.json`` and TOML otherwise. A ScenarioText is returned as it is.
    """
    if isinstance(scenario, ScenarioText):
        return scenario
    if isinstance(scenario, Mapping):
        return ScenarioText(json.dumps(scenario, indent=2), "<dict>", "json")
    path = resolve_scenario(scenario)
    fmt = "json" if path.suffix.lower() == ".json" else "toml"
    return ScenarioText(_read_scenario_file(path), str(path), fmt)


#: A scenario file's size limit in bytes, as the simulator's (crates/sim/src/files.rs);
#: PATHPOOL_MAX_FILE_MB overrides it.
SCENARIO_FILE_LIMIT = 16 << 20


def _read_scenario_file(path: Path) -> str:
    """The text of a scenario file within the size limit, UTF-8 (ScenarioError otherwise)."""
    override = os.environ.get("PATHPOOL_MAX_FILE_MB", "").strip()
    try:
        limit = int(float(override) * 1e6) if override and float(override) > 0 else SCENARIO_FILE_LIMIT
    except ValueError:
        limit = SCENARIO_FILE_LIMIT
    with path.open("rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise _core.ScenarioError(f"{path}: is over the {limit}-byte limit for a scenario file (set PATHPOOL_MAX_FILE_MB to raise it)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _core.ScenarioError(f"{path}: is not UTF-8 text (invalid byte at offset {e.start})") from None


def _repo_data_dir() -> Path | None:
    """``../shared/data`` beside the repository root, when pathpool runs from
    its repository (an editable install) and that directory exists."""
    root = Path(__file__).resolve().parents[2]
    data = root.parent / "shared" / "data"
    return data if (root / "pyproject.toml").is_file() and data.is_dir() else None


def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> Path | None:
    """The directory that ``data:`` paths in scenarios resolve against.

    In order: ``data_dir``, the environment variable ``PATHPOOL_DATA``, then
    ``../shared/data`` beside the repository root if pathpool runs from its
    repository and that exists; None if none applies. Raises FileNotFoundError
    if ``data_dir`` or ``PATHPOOL_DATA`` names no directory.
    """
    if data_dir is not None:
        chosen, origin = Path(data_dir), "data directory"
    elif os.environ.get(DATA_ENV):
        chosen, origin = Path(os.environ[DATA_ENV]), f"data directory {DATA_ENV}"
    else:
        return _repo_data_dir()
    if not chosen.is_dir():
        raise FileNotFoundError(f"{origin} {chosen} does not exist or is not a directory")
    return chosen


def _optional_str(path: Path | None) -> str | None:
    return None if path is None else str(path)


def validate(scenario: Scenario, data_dir: str | os.PathLike | None = None) -> str:
    """Parses and checks a scenario without running it; returns its name.

    Raises ScenarioError (a ValueError) listing every problem as
    "SOURCE: FIELD.PATH: what is wrong", and FileNotFoundError if the scenario
    or the data directory does not exist.
    """
    source = read_scenario(scenario)
    return _core.validate(source.text, source.source, source.fmt,
                          data_dir=_optional_str(resolve_data_dir(data_dir)))


@contextlib.contextmanager
def _progress_callback(progress: bool | ProgressCallback, label: str) -> Iterator[ProgressCallback | None]:
    if progress is True:
        with RunProgress(label) as bar:
            yield bar
    elif callable(progress):
        yield progress
    else:
        yield None


def run(
    scenario: Scenario,
    seed: int | None = None,
    out: str | os.PathLike | None = None,
    fmt: str = "parquet",
    data_dir: str | os.PathLike | None = None,
    progress: bool | ProgressCallback = False,
    force: bool = False,
    plane: str = "sim",
    pcap: str | Sequence[str] | None = None,
) -> Results:
    """Runs a scenario in the simulator (or, with ``plane="lab"``, on the
    kernel lab) and returns its results.

    ``scenario`` is a file path, a built-in name (see ``pathpool scenarios``) or
    a dict with the structure of a scenario file. ``seed`` overrides the
    scenario's ``sim.seed``. With ``out``, the results are also written there
    as a results directory (see :func:`pathpool.write`; ``fmt`` "parquet" or
    "csv", ``force`` to replace an earlier one); this is checked before the
    run starts. ``data_dir`` is where ``data:`` paths point (see
    :func:`resolve_data_dir`). ``progress=True`` shows a progress bar on a
    terminal once the run has lasted a second; a callable instead gets
    ``(sim_time_s, duration_s)`` a few times a second.

    ``plane="lab"`` runs the scenario on the real Linux stack in network
    namespaces with emulated links (root and a kernel with MPTCP;
    docs/lab.md): the same tables, with nulls where the kernel has no
    counterpart. Features the lab cannot run are refused before anything
    starts (LabError, naming each).

    ``pcap`` names scenario links (a list, or one string "LINK[,LINK]"):
    the packets crossing each are written to ``out/LINK.pcap`` as they
    start transmission, with synthesized Ethernet/IPv4/TCP headers
    (docs/results.md, "pcap export"). It needs ``out`` and the simulator;
    an unknown link is refused before the run (ScenarioError, listing the
    scenario's links).

    Raises ScenarioError (a ValueError) for an invalid scenario,
    FileNotFoundError for a missing scenario or data directory,
    FileExistsError if ``out`` exists and may not be replaced,
    RuntimeError if the run broke packet conservation (a simulator bug; no
    results are written), and LabError (a RuntimeError) when the lab refuses
    the scenario, cannot start, or its run fails.
    """
    if plane not in PLANES:
        raise ValueError(f"unknown plane {plane!r}; use one of {', '.join(PLANES)}")
    if fmt not in FORMATS:
        raise ValueError(f"unknown results format {fmt!r}; use one of {', '.join(FORMATS)}")
    links = _pcap_links(pcap)
    if links and out is None:
        raise ValueError("pcap= needs out=: the pcap files are written into the results directory")
    if links and plane != "sim":
        raise ValueError("pcap= is for the simulator: on the kernel lab, capture on the namespaces' interfaces instead")
    if out is not None:
        check_destination(out, force)
    source = read_scenario(scenario)
    data = resolve_data_dir(data_dir)
    started_at = datetime.now(timezone.utc)
    with contextlib.ExitStack() as stack:
        pcap_dir = "."
        if links:
            # The pcap files are written beside the results directory, then moved into it with the tables.
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            pcap_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix=f".{Path(out).name}.pcap-",
                                                                       dir=Path(out).parent))
        with _progress_callback(progress, Path(source.source).stem) as callback:
            if plane == "sim":
                raw = _core.run(source.text, source.source, source.fmt, seed=seed, data_dir=_optional_str(data),
                                progress=callback, pcap=links, pcap_dir=pcap_dir)
            else:
                raw = _core.run_lab(source.text, source.source, source.fmt, seed=seed,
                                    data_dir=_optional_str(data), progress=callback)
        packets = raw["summary"]["packets"]
        if plane == "sim" and not packets["conserved"]:
            # sent = delivered + dropped + in flight holds in every correct run.
            raise RuntimeError(f"simulator bug: packet conservation violated in {source.source}: {packets}")
        results = Results(
            summary=raw["summary"],
            tables=schema.build_tables(raw["tables"]),
            scenario=source.text,
            scenario_format=source.fmt,
            run_info=_run_info(raw["stats"], source, data, started_at, plane),
        )
        if out is not None:
            write(results, out, fmt=fmt, force=force, extra_files=[Path(path) for _, path, _ in raw.get("pcap", [])])
    return results


def _pcap_links(pcap: str | Sequence[str] | None) -> list[str]:
    """The link names of ``pcap``: a list, or one comma-separated string."""
    if pcap is None:
        return []
    names = pcap.split(",") if isinstance(pcap, str) else list(pcap)
    return [n.strip() for n in names if n.strip()]


def _run_info(stats: Mapping[str, Any], source: ScenarioText, data: Path | None,
              started_at: datetime, plane: str) -> dict[str, Any]:
    """What differs between two runs of the same scenario and seed."""
    wall_s = stats["wall_s"]
    return {
        "started_at": started_at.isoformat(timespec="seconds"),
        "wall_s": wall_s,
        "events": stats["events"],
        "events_per_s": stats["events"] / wall_s if stats["events"] is not None and wall_s > 0 else None,
        "packets_delivered": stats["packets_delivered"],
        "scenario_source": source.source,
        "data_dir": _optional_str(data),
        "pathpool_version": __version__,
        "lab_build": _core.lab_build() if plane == "lab" else None,
        "kernel": platform.release() if plane == "lab" else None,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "host": platform.node(),
        "command_line": shlex.join(sys.argv),
    }
