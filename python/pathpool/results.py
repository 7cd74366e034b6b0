"""Results of a run in memory (:class:`Results`) and on disk (:func:`write`, :func:`load`).

A results directory holds:

``NAME.parquet`` (or ``NAME.csv``)
    one file per result table (see :mod:`pathpool.schema`);
``summary.json``
    the run's headline numbers;
``scenario.toml`` (or ``scenario.json``)
    the scenario text exactly as it was run;
``run_info.json``
    what differs between two runs of the same scenario and seed: wall time,
    events per second, host, pathpool version, command line.

Everything except ``run_info.json`` (and a ``plot.png`` added later) is
deterministic: the same scenario and seed give byte-identical files.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from . import schema

#: Table file formats that :func:`write` accepts.
FORMATS = ("parquet", "csv")

SUMMARY_FILE = "summary.json"
RUN_INFO_FILE = "run_info.json"


@dataclass(eq=False)
class Results:
    """The results of one run.

    The result tables are in ``tables`` as Arrow tables; the four tables every
    run has are also attributes as pandas DataFrames (``flows``, ``links``,
    ``flow_ts``, ``link_ts``; see :meth:`frame` for any table).
    """

    #: Headline numbers (deterministic, JSON-able): scenario, seed, duration_s,
    #: flows, flows_completed, afct_s, jain_index, total_goodput_bps, packets, ...
    summary: dict[str, Any]
    #: Every result table by name, typed as in :mod:`pathpool.schema`.
    tables: dict[str, pa.Table]
    #: The scenario text that was run, if known.
    scenario: str | None = None
    #: Language of ``scenario``: "toml" or "json".
    scenario_format: str = "toml"
    #: Facts about the run that are not deterministic (wall time, host, ...).
    run_info: dict[str, Any] = field(default_factory=dict)
    #: The results directory these results were written to or loaded from.
    path: Path | None = None
    _frames: dict[str, pd.DataFrame] = field(default_factory=dict, init=False, repr=False)

    def frame(self, name: str) -> pd.DataFrame:
        """The table ``name`` as a pandas DataFrame (converted once, then cached)."""
        if name not in self._frames:
            self._frames[name] = self.tables[name].to_pandas()
        return self._frames[name]

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow."""
        return self.frame("flows")

    @property
    def links(self) -> pd.DataFrame:
        """One row per link direction."""
        return self.frame("links")

    @property
    def flow_ts(self) -> pd.DataFrame:
        """Per-flow time series."""
        return self.frame("flow_ts")

    @property
    def link_ts(self) -> pd.DataFrame:
        """Per-link-direction time series."""
        return self.frame("link_ts")

    def __repr__(self) -> str:
        return (f"Results(scenario={self.summary.get('scenario')!r}, seed={self.summary.get('seed')!r}, "
                f"flows={self.tables['flows'].num_rows}, tables={list(self.tables)}, path={self.path})")


def check_destination(out_dir: str | os.PathLike, force: bool = False) -> None:
    """Raises FileExistsError unless :func:`write` may create ``out_dir``.

    ``out_dir`` may be written if it does not exist, or, with ``force``, if it
    is a directory that is empty or holds earlier results (a ``summary.json``).
    The last condition keeps ``force`` from deleting a directory that was
    named by mistake.
    """
    out = Path(out_dir)
    if not out.exists():
        return
    if not force:
        raise FileExistsError(f"{out} already exists; use --force (force=True) to replace it")
    if not out.is_dir():
        raise FileExistsError(f"{out} exists and is not a directory")
    if any(out.iterdir()) and not (out / SUMMARY_FILE).is_file():
        raise FileExistsError(f"refusing to replace {out}: it is not a pathpool results directory"
                              f" (it has no {SUMMARY_FILE})")


def write(results: Results, out_dir: str | os.PathLike, fmt: str = "parquet", force: bool = False,
          extra_files: Sequence[Path] = ()) -> Path:
    """Writes ``results`` to the directory ``out_dir`` and sets ``results.path``.

    ``fmt`` is the table file format, "parquet" or "csv". The directory is
    built next to ``out_dir`` under a temporary name and renamed into place
    once complete, so ``out_dir`` is either absent or complete, never half
    written. ``extra_files`` (a run's pcap files) are moved into it, under
    their own names, before it is renamed into place. An existing ``out_dir`` is refused unless ``force`` (see
    :func:`check_destination`); then it is replaced only after the new
    directory is complete. Returns the path written.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown results format {fmt!r}; use one of {', '.join(FORMATS)}")
    out = Path(out_dir)
    check_destination(out, force)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = _sibling(out, "tmp")
    staging.mkdir()
    try:
        _write_contents(results, staging, fmt)
        for extra in extra_files:
            shutil.move(extra, staging / Path(extra).name)
        _move_into_place(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    results.path = out
    return out


def _sibling(path: Path, purpose: str) -> Path:
    """A hidden, unused name next to ``path``, for a directory on its way in or out."""
    return path.with_name(f".{path.name}.{purpose}-{secrets.token_hex(4)}")


def _write_contents(results: Results, directory: Path, fmt: str) -> None:
    for name, table in results.tables.items():
        _write_table(table, directory / f"{name}.{fmt}", fmt)
    _write_json(directory / SUMMARY_FILE, results.summary)
    if results.scenario is not None:
        (directory / f"scenario.{results.scenario_format}").write_text(results.scenario, encoding="utf-8")
    _write_json(directory / RUN_INFO_FILE, results.run_info)


def _write_table(table: pa.Table, path: Path, fmt: str) -> None:
    if fmt == "parquet":
        # pyarrow writes no timestamps into Parquet, so equal tables give equal bytes.
        pq.write_table(table, path)
    else:
        pa_csv.write_csv(table, path)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, sort_keys=True, indent=2) + "\n", encoding="utf-8")


def _move_into_place(staging: Path, out: Path) -> None:
    """Renames the complete directory ``staging`` to ``out``, replacing an
    existing ``out`` (which :func:`check_destination` has allowed)."""
    if not out.exists():
        staging.rename(out)
        return
    old = _sibling(out, "old")
    out.rename(old)
    try:
        staging.rename(out)
    except BaseException:
        old.rename(out)
        raise
    shutil.rmtree(old)


def load(results_dir: str | os.PathLike) -> Results:
    """Reads a results directory written by :func:`write` (Parquet or CSV).

    Tables come back with the types of :mod:`pathpool.schema`. From CSV,
    a null and an empty string cannot be told apart in a string column the
    schema does not know; they come back as empty strings.
    """
    directory = Path(results_dir)
    summary_file = directory / SUMMARY_FILE
    if not summary_file.is_file():
        raise FileNotFoundError(f"{directory} is not a pathpool results directory (it has no {SUMMARY_FILE})")
    tables: dict[str, pa.Table] = {}
    for path in sorted(directory.iterdir()):
        if path.suffix not in (".parquet", ".csv"):
            continue
        if path.stem in tables:
            raise ValueError(f"{directory} holds table {path.stem!r} twice (as Parquet and as CSV)")
        tables[path.stem] = pq.read_table(path) if path.suffix == ".parquet" else _read_csv(path)
    run_info_file = directory / RUN_INFO_FILE
    scenario_files = [p for p in (directory / "scenario.toml", directory / "scenario.json") if p.is_file()]
    return Results(
        summary=json.loads(summary_file.read_text(encoding="utf-8")),
        tables=schema.build_tables(tables),
        scenario=scenario_files[0].read_text(encoding="utf-8") if scenario_files else None,
        scenario_format=scenario_files[0].suffix[1:] if scenario_files else "toml",
        run_info=json.loads(run_info_file.read_text(encoding="utf-8")) if run_info_file.is_file() else {},
        path=directory,
    )


def _read_csv(path: Path) -> pa.Table:
    known = schema.SCHEMAS.get(path.stem, pa.schema([]))
    options = pa_csv.ConvertOptions(
        column_types={f.name: f.type for f in known},
        # Only an empty field is null: "nan" must stay NaN (srtt_s before the first sample).
        null_values=[""],
        strings_can_be_null=False,
    )
    return pa_csv.read_csv(path, convert_options=options)
