"""The validation harnesses' run cache (validation/cache.py): keyed by the
run's parameters, the measuring function and the simulator build; resumable;
a torn last line is skipped."""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "validation"))
from cache import RunCache  # noqa: E402

calls: list[int] = []


def square(x: int) -> dict:
    calls.append(x)
    return {"x": x, "y": x * x, "by": {1: "one"}}


def test_a_run_is_cached_by_its_parameters_and_build(tmp_path):
    path = tmp_path / "cache.jsonl"
    calls.clear()
    c = RunCache(path, build="b1")
    first = c.get("sq", square, 3)
    # A value comes back as JSON would give it, fresh or cached (string keys).
    assert first == {"x": 3, "y": 9, "by": {"1": "one"}}
    assert c.get("sq", square, 3) == first and calls == [3]
    c.get("sq", square, 4)
    assert calls == [3, 4]
    # Resumed from the file: nothing runs again.
    c = RunCache(path, build="b1")
    assert c.get("sq", square, 3) == first and calls == [3, 4] and c.ran == 0
    # Another build runs again, and the report line says the old runs were not used.
    c = RunCache(path, build="b2")
    c.get("sq", square, 3)
    assert calls == [3, 4, 3]
    assert "2 cached runs of other builds not used" in c.summary()


def test_map_runs_only_what_is_missing_and_a_torn_line_is_skipped(tmp_path):
    path = tmp_path / "cache.jsonl"
    c = RunCache(path, jobs=1, build="b1")
    out = c.map(square, {"a": (2,), "b": (5,)})
    assert out["a"]["y"] == 4 and out["b"]["y"] == 25 and c.ran == 2
    with path.open("a") as fh:
        fh.write('{"key": "cut sh')  # an interrupted append
    c = RunCache(path, jobs=1, build="b1")
    assert c.torn == 1 and len(c.done) == 2
    out = c.map(square, {"a": (2,), "c": (6,)})
    assert c.ran == 1 and out["c"]["y"] == 36
    # The file still has every finished run, one JSON object per line after the torn one.
    lines = path.read_text().splitlines()
    assert sum(1 for l in lines if l.startswith("{") and l.endswith("}")) == 3
    assert all(json.loads(l)["build"] == "b1" for l in lines if l.endswith("}"))
    # --fresh starts over.
    assert not RunCache(path, fresh=True, build="b1").done


def test_a_whole_float_and_its_int_are_one_run(tmp_path):
    calls.clear()
    c = RunCache(tmp_path / "cache.jsonl", build="b1")
    c.get("sq", square, 12)
    c.get("sq", square, 12.0)
    assert calls == [12] and c.hits == 1
