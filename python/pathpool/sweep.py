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
at once, naming the point. Points run in parallel (``jobs`` processes; one at
a time on the kernel lab, whose runs are real-time experiments). A results
directory is complete or absent (``pathpool.write`` is atomic), so an
interrupted or partly failed sweep, run again with the same arguments, runs
only the points that have no results yet. ``OUT/sweep.json`` records what the
sweep is; a different sweep is refused in the same directory.
"""

from __future__ import annotations

import concurrent.futures as cf
import copy
import hashlib
import itertools
import json
import os
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from . import _core, api
from .api import ScenarioText, read_scenario, resolve_data_dir

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


def _run_point(text: ScenarioText, seed: int | None, out: str, plane: str, data_dir: str | None) -> None:
    api.run(text, seed=seed, out=out, plane=plane, data_dir=data_dir)


@dataclass
class SweepOutcome:
    #: One row per point: id, parameters, seed, summary fields (NaN where a point has no results).
    index: pd.DataFrame
    #: Points that ran now (the others had results already).
    ran: int
    #: Point label → error message, for points that failed.
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
) -> SweepOutcome:
    """Runs every point of the sweep that has no results in ``out`` yet.

    Raises ValueError for a bad field path, ScenarioError naming the point for
    a value the scenario refuses, and FileExistsError if ``out`` holds a
    different sweep — all before anything runs. ``on_point_done(point,
    error)`` is called as each point finishes.
    """
    if plane not in api.PLANES:
        raise ValueError(f"unknown plane {plane!r}; use one of {', '.join(api.PLANES)}")
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
    failed: dict[str, str] = {}
    workers = 1 if plane == "lab" else max(1, jobs or os.cpu_count() or 1)
    with cf.ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(_run_point, texts[p.id], p.seed, str(out / "points" / p.id), plane, data_str): p
                   for p in todo}
        try:
            for future in cf.as_completed(futures):
                point = futures[future]
                error = None
                try:
                    future.result()
                except Exception as e:  # a failed point must not stop the others
                    error = f"{type(e).__name__}: {e}"
                    failed[point.label()] = error
                if on_point_done:
                    on_point_done(point, error)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    index = _index(points, out)
    _write_index(index, out)
    return SweepOutcome(index=index, ran=len(todo), failed=failed)


def _index(points: Sequence[Point], out: Path) -> pd.DataFrame:
    rows = []
    for p in points:
        row: dict[str, Any] = {"point": p.id}
        row.update({path: value for path, value in p.overrides})
        row["seed"] = p.seed
        summary_path = out / "points" / p.id / "summary.json"
        summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
        row["done"] = bool(summary)
        row.update({name: summary.get(name) for name in SUMMARY_FIELDS})
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
