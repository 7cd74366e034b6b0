"""Parameter sweeps: one scenario run over a grid of overrides × seeds.

A sweep is a scenario (file, built-in name or dict), a grid — for each
overridden field, the values to try — and a list of seeds. Every combination
is a *point*, run like ``pathpool.run`` and written as its own results
directory ``OUT/points/<id>``; ``OUT/index.csv`` has one row per point: its
parameters, its seed and the summary's headline numbers.

Fields are named by their path in the scenario, dotted, with ``[k]`` for the
k-th entry of an array: ``tcp.cc``, ``sim.duration``, ``links[2].rate``,
``flows[0].mptcp.coupling``, ``topology.bottleneck.rate``. Missing tables on
the way are created; array entries must exist.

Every point is checked before anything runs, so a bad value stops the sweep
at once, naming the point. Points run in parallel: in ``jobs`` local
processes (one at a time on the kernel lab, whose runs are real-time
experiments), or as tasks on a Dask cluster (``cluster``, see
:mod:`pathpool.sweep_dask`). Either way a run's results come back to this
process, which writes them, so both give the same files. A run that fails is
tried once more; if it fails again, its error goes into the index. A results
directory is complete or absent (``pathpool.write`` is atomic), so an
interrupted or partly failed sweep, run again with the same arguments (and
any backend), runs only the points that have no results yet.
``OUT/sweep.json`` records what the sweep is; a different sweep is refused in
the same directory.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import copy
import hashlib
import itertools
import json
import os
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from . import _core, api
from .api import ScenarioText, read_scenario, resolve_data_dir
from .results import write

#: Why a sweep on the kernel lab cannot use a cluster.
LAB_ON_CLUSTER = "the kernel lab runs its points one at a time on this machine; a cluster is for the simulator plane"

#: Summary fields copied into the index, one column each.
SUMMARY_FIELDS = ("flows", "flows_completed", "afct_s", "jain_index", "total_goodput_bps", "bytes_delivered")


@dataclass(frozen=True)
class Point:
    """One run of a sweep."""

    #: Field path → value, in the grid's order.
    overrides: tuple[tuple[str, Any], ...]
    seed: int | None

    @property
    def id(self) -> str:
        """A short, stable name for the point (its directory under ``points/``)."""
        key = json.dumps([list(self.overrides), self.seed], sort_keys=True, default=str)
        return hashlib.sha256(key.encode()).hexdigest()[:12]

    def label(self) -> str:
        parts = [f"{path}={value}" for path, value in self.overrides]
        if self.seed is not None:
            parts.append(f"seed={self.seed}")
        return ", ".join(parts) or "(the scenario as it is)"


def parse_value(text: str) -> Any:
    """A value as TOML reads it (``5``, ``0.5``, ``true``, ``"x"``, ``[1, 2]``);
    anything else, such as ``10Mbps`` or ``cubic``, as a string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_assignment(text: str) -> tuple[str, list[Any]]:
    """``PATH=V1,V2,...`` → (PATH, [values])."""
    path, sep, values = text.partition("=")
    if not sep or not path.strip() or not values.strip():
        raise ValueError(f"--set {text!r}: expected PATH=VALUE[,VALUE...], for example tcp.cc=cubic,bbr")
    return path.strip(), [parse_value(v.strip()) for v in values.split(",")]


def _steps(path: str) -> list[str | int]:
    """``flows[0].tcp.cc`` → ["flows", 0, "tcp", "cc"]."""
    steps: list[str | int] = []
    for part in path.split("."):
        name, _, rest = part.partition("[")
        if not name:
            raise ValueError(f"{path}: empty field name")
        steps.append(name)
        while rest:
            index, sep, rest = rest.partition("]")
            if not sep or not index.isdigit() or (rest and not rest.startswith("[")):
                raise ValueError(f"{path}: bad index in {part!r}")
            steps.append(int(index))
            rest = rest[1:]
    return steps


def set_field(doc: dict[str, Any], path: str, value: Any) -> None:
    """Sets the field at ``path`` in the scenario ``doc`` (in place)."""
    steps = _steps(path)
    node: Any = doc
    for k, step in enumerate(steps):
        last = k == len(steps) - 1
        where = path if last else ".".join(str(s) for s in steps[: k + 1])
        if isinstance(step, int):
            if not isinstance(node, list) or step >= len(node):
                size = len(node) if isinstance(node, list) else 0
                raise ValueError(f"{path}: the scenario has {size} entries there, no [{step}]")
        elif not isinstance(node, dict):
            raise ValueError(f"{path}: {where!r} is not a table")
        if last:
            node[step] = value
        elif isinstance(step, int):
            node = node[step]
        else:
            node = node.setdefault(step, [] if isinstance(steps[k + 1], int) else {})


def grid_points(grid: Mapping[str, Sequence[Any]], seeds: Sequence[int | None]) -> list[Point]:
    """Every combination of the grid's values, for each seed."""
    paths = list(grid)
    return [
        Point(tuple(zip(paths, values)), seed)
        for values in itertools.product(*(grid[p] for p in paths))
        for seed in (seeds or [None])
    ]


def _load(source: ScenarioText) -> dict[str, Any]:
    return tomllib.loads(source.text) if source.fmt == "toml" else json.loads(source.text)


def _point_text(base: dict[str, Any], source: ScenarioText, point: Point) -> ScenarioText:
    doc = copy.deepcopy(base)
    for path, value in point.overrides:
        set_field(doc, path, value)
    # JSON with the original source, so relative paths still resolve beside the file.
    return ScenarioText(json.dumps(doc, indent=2), source.source, "json")


@dataclass
class SweepOutcome:
    #: One row per point: id, parameters, seed, summary fields (NaN where a point has no results).
    index: pd.DataFrame
    #: Points that ran now (the others had results already).
    ran: int
    #: Point label → error message, for points that failed (twice).
    failed: dict[str, str]


def run_sweep(
    scenario: api.Scenario,
    grid: Mapping[str, Sequence[Any]],
    seeds: Sequence[int | None],
    out: str | os.PathLike,
    jobs: int | None = None,
    plane: str = "sim",
    data_dir: str | os.PathLike | None = None,
    on_point_done: Callable[[Point, str | None], None] | None = None,
    cluster: str | None = None,
    on_point_retry: Callable[[Point, str], None] | None = None,
) -> SweepOutcome:
    """Runs every point of the sweep that has no results in ``out`` yet.

    ``cluster`` runs the points on Dask instead of local processes: "local"
    for a LocalCluster of ``jobs`` workers, or a scheduler's address such as
    "tcp://HOST:8786". Raises ValueError for a bad field path (or the kernel
    lab on a cluster), ScenarioError naming the point for a value the
    scenario refuses, and FileExistsError if ``out`` holds a different sweep
    — all before anything runs — and ConnectionError if the cluster cannot
    be reached. ``on_point_done(point, error)`` is called as each point
    finishes, ``on_point_retry(point, error)`` when a failed point is tried
    again.
    """
    if plane not in api.PLANES:
        raise ValueError(f"unknown plane {plane!r}; use one of {', '.join(api.PLANES)}")
    if plane == "lab" and cluster is not None:
        raise ValueError(LAB_ON_CLUSTER)
    source = read_scenario(scenario)
    base = _load(source)
    data = resolve_data_dir(data_dir)
    data_str = None if data is None else str(data)
    points = grid_points(grid, seeds)
    texts = {}
    for point in points:
        try:
            text = _point_text(base, source, point)
        except ValueError as error:
            raise ValueError(f"sweep point {point.label()}: {error}") from None
        try:
            _core.validate(text.text, text.source, "json", data_dir=data_str)
        except _core.ScenarioError as error:
            raise _core.ScenarioError(f"sweep point {point.label()}:\n{error}") from None
        texts[point.id] = text

    out = Path(out)
    description = {"scenario": source.source, "scenario_text": source.text, "plane": plane,
                   "grid": {k: list(v) for k, v in grid.items()}, "seeds": list(seeds)}
    marker = out / "sweep.json"
    if marker.exists():
        if json.loads(marker.read_text()) != json.loads(json.dumps(description, default=str)):
            raise FileExistsError(f"{out} holds a different sweep ({marker}); use another directory")
    elif out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not a sweep directory")
    out.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps(description, indent=2, default=str) + "\n")

    todo = [p for p in points if not (out / "points" / p.id / "summary.json").exists()]
    workers = 1 if plane == "lab" else max(1, jobs or os.cpu_count() or 1)
    with _executor(cluster, workers) as pool:
        failed = _run_points(pool, todo, texts, out, plane, data_str, on_point_done, on_point_retry)
    index = _index(points, out, failed)
    _write_index(index, out)
    return SweepOutcome(index=index, ran=len(todo), failed={p.label(): failed[p.id] for p in todo if p.id in failed})


@contextlib.contextmanager
def _executor(cluster: str | None, workers: int) -> Iterator[cf.Executor]:
    """Local worker processes, or the Dask cluster ``cluster``."""
    if cluster is None:
        with cf.ProcessPoolExecutor(max_workers=workers) as pool:
            yield pool
    else:
        from .sweep_dask import dask_executor

        with dask_executor(cluster, workers) as pool:
            yield pool


def _run_points(pool: cf.Executor, todo: Sequence[Point], texts: Mapping[str, ScenarioText], out: Path,
                plane: str, data_dir: str | None, on_done: Callable[[Point, str | None], None] | None,
                on_retry: Callable[[Point, str], None] | None) -> dict[str, str]:
    """Runs each point in ``pool`` and writes its results to ``out/points/<id>``,
    trying a failed point once more; returns the ids of the points that failed
    twice, with their last error."""

    def submit(point: Point) -> cf.Future:
        return pool.submit(api.run, texts[point.id], seed=point.seed, plane=plane, data_dir=data_dir)

    pending = {submit(p): p for p in todo}
    retried: set[str] = set()
    failed: dict[str, str] = {}
    try:
        while pending:
            finished, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for future in finished:
                point = pending.pop(future)
                try:
                    write(future.result(), out / "points" / point.id)
                    error = None
                except Exception as e:  # a failed point must not stop the others
                    error = f"{type(e).__name__}: {e}"
                if error is not None and point.id not in retried:
                    retried.add(point.id)
                    if on_retry:
                        on_retry(point, error)
                    pending[submit(point)] = point
                    continue
                if error is not None:
                    failed[point.id] = error
                if on_done:
                    on_done(point, error)
    except BaseException:
        for future in pending:
            future.cancel()
        pool.shutdown(wait=False)
        raise
    return failed


def _index(points: Sequence[Point], out: Path, errors: Mapping[str, str]) -> pd.DataFrame:
    rows = []
    for p in points:
        row: dict[str, Any] = {"point": p.id}
        row.update({path: value for path, value in p.overrides})
        row["seed"] = p.seed
        summary_path = out / "points" / p.id / "summary.json"
        summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
        row["done"] = bool(summary)
        row.update({name: summary.get(name) for name in SUMMARY_FIELDS})
        row["error"] = errors.get(p.id)
        if p.seed is None and summary:
            row["seed"] = summary.get("seed")
        rows.append(row)
    return pd.DataFrame(rows)


def _write_index(index: pd.DataFrame, out: Path) -> None:
    tmp = out / ".index.csv.tmp"
    index.to_csv(tmp, index=False)
    tmp.replace(out / "index.csv")


def summarize(index: pd.DataFrame, params: Sequence[str]) -> pd.DataFrame:
    """Mean and standard deviation over seeds of each parameter combination."""
    done = index[index["done"]]
    metrics = ["total_goodput_bps", "jain_index", "afct_s"]
    if not params:
        grouped = done.assign(_all=0).groupby("_all")
    else:
        grouped = done.groupby(list(params), dropna=False, sort=False)
    table = grouped[metrics].agg(["mean", "std", "count"])
    return table
