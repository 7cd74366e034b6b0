"""The run cache of the validation harnesses (pat_paper.py, smptcp_paper.py,
green_paper.py, emptcp_paper.py, inrpp_fig18_frontier.py): finished runs,
one JSON object per line.

- **Keyed by the run's parameters and the simulator build.** A run's key is
  its name, a digest of its parameters (the scenario, or the arguments of
  the measuring function) and of the measuring function's source (a changed
  measure runs again; the helpers it calls are not included), and the
  build: a digest of the compiled extension
  ``pathpool._core`` that ran it (the simulator, the controllers and the
  kernel lab's driver are all in it). After a rebuild that changes the
  binary, every run is done again; runs of other builds stay in the file,
  unused, and are counted in ``summary()`` (the line each report prints), so
  a report never mixes builds silently. ``--fresh`` deletes the file.
- **Resumable.** Each run is appended as soon as it finishes, so an
  interrupted harness loses only the runs under way.
- **Atomic appends.** One ``write`` of the whole line on a file opened with
  ``O_APPEND``; a line cut short by a crash (the last one) is ended, skipped
  when the file is read, and counted.
- **Like with like.** A value is stored and returned as JSON, so a run read
  back from the file and a run just made look the same to the harness
  (a dict's keys are strings either way).
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import hashlib
import inspect
import json
import os
import sys
from pathlib import Path


@functools.cache
def build_id() -> str:
    """A digest of the compiled simulator: the ``pathpool._core`` extension file (read once per process:
    the suites ask for it per cached run)."""
    import pathpool._core as core

    h = hashlib.sha256()
    with open(core.__file__, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:12]


@functools.cache
def lab_id() -> str:
    """What a cached kernel-lab result depends on besides its scenario: the lab's build (a digest of the
    lab crate's source, ``pathpool._core.lab_build()``) and the kernel release. pathpool's version alone
    does not move when the emulator changes, and a kernel run of an earlier emulator is not this lab's."""
    import platform

    import pathpool._core as core

    return f"{core.lab_build()}-{platform.release()}"


def canonical(x):
    """``x`` with a whole float as the int it equals and tuples as lists, so
    that 12 and 12.0 (a rate from a grid or from a search) are one run."""
    if isinstance(x, float) and x.is_integer():
        return int(x)
    if isinstance(x, dict):
        return {str(k): canonical(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [canonical(v) for v in x]
    return x


def digest(params) -> str:
    """A digest of a run's parameters (anything JSON can write; keys sorted)."""
    return hashlib.sha1(json.dumps(canonical(params), sort_keys=True, default=str).encode()).hexdigest()[:12]


class RunCache:
    """``get`` runs one measurement unless it is cached; ``map`` runs many,
    ``jobs`` at a time in worker processes, and returns name -> value."""

    def __init__(self, path: Path, fresh: bool = False, jobs: int = 1, build: str | None = None):
        self.path, self.jobs, self.build = path, jobs, build or build_id()
        self.done: dict[str, object] = {}
        self.ran = self.hits = self.other_builds = self.torn = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        if fresh and path.exists():
            path.unlink()
        if path.exists():
            text = path.read_text()
            if text and not text.endswith("\n"):
                # A line cut short: end it, so that the next run is a line of its own.
                with path.open("a") as fh:
                    fh.write("\n")
            for line in text.splitlines():
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    self.torn += 1
                    continue
                if rec.get("build") == self.build:
                    self.done[rec["key"]] = rec["value"]
                else:
                    self.other_builds += 1

    def key(self, name: str, fn, params) -> str:
        return f"{name}#{digest([params, inspect.getsource(fn)])}"

    def _store(self, key: str, value) -> object:
        line = json.dumps({"key": key, "build": self.build, "value": value}) + "\n"
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            data = line.encode()
            while data:
                data = data[os.write(fd, data):]
        finally:
            os.close(fd)
        self.ran += 1
        self.done[key] = json.loads(line)["value"]
        return self.done[key]

    def get(self, name: str, fn, *args, params=None):
        """The cached value of ``name`` run as ``fn(*args)``, else that run
        (stored); its parameters are ``args`` unless ``params`` is given."""
        key = self.key(name, fn, args if params is None else params)
        if key in self.done:
            self.hits += 1
            return self.done[key]
        print(f"  run {name} ...", end="", file=sys.stderr, flush=True)
        value = self._store(key, fn(*args))
        print(f" {value.get('wall_s', 0) if isinstance(value, dict) else 0:.1f} s wall", file=sys.stderr, flush=True)
        return value

    def map(self, fn, runs: dict[str, tuple]) -> dict[str, object]:
        """``runs``: name -> the arguments of ``fn`` (a module-level function),
        which are the run's parameters. The runs not cached go ``jobs`` at a
        time, in worker processes; returns name -> value."""
        keys = {name: self.key(name, fn, args) for name, args in runs.items()}
        todo = {name: args for name, args in runs.items() if keys[name] not in self.done}
        self.hits += len(runs) - len(todo)
        if todo:
            print(f"  {len(todo)} runs to do ({len(runs) - len(todo)} cached)", file=sys.stderr, flush=True)
            with cf.ProcessPoolExecutor(max_workers=self.jobs) as pool:
                futures = {pool.submit(fn, *args): name for name, args in todo.items()}
                for k, f in enumerate(cf.as_completed(futures), 1):
                    name = futures[f]
                    value = self._store(keys[name], f.result())
                    wall = value.get("wall_s") if isinstance(value, dict) else None
                    print(f"  [{k}/{len(todo)}] {name}" + (f": {wall:.1f} s wall" if wall is not None else ""), file=sys.stderr, flush=True)
        return {name: self.done[keys[name]] for name in runs}

    def summary(self) -> str:
        """One line for a report: the build, what ran and what was cached."""
        text = f"Simulator build {self.build} (sha256 of pathpool._core); runs this time: {self.ran}; taken from the cache: {self.hits}"
        if self.other_builds:
            text += f"; {self.other_builds} cached runs of other builds not used"
        if self.torn:
            text += f"; {self.torn} unreadable lines skipped"
        return text + "."
