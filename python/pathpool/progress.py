"""A progress bar for long simulation runs, driven by the simulator's progress callback."""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


class RunProgress:
    """A callable ``(sim_time_s, duration_s)`` for ``_core.run(progress=...)``
    that shows a rich progress bar on ``console`` (stderr by default).

    The bar appears only once the run has taken ``delay`` seconds of wall
    time, so short runs print nothing, and never when the console is not a
    terminal. Use it as a context manager, so that the bar is removed when the
    run ends. The bar is redrawn from the callback itself, not from a thread:
    the simulator holds the interpreter while it runs and calls back a few
    times a second.
    """

    def __init__(self, label: str, delay: float = 1.0, console: Console | None = None):
        self._label = label
        self._delay = delay
        self._console = console or Console(stderr=True)
        self._started = time.monotonic()
        self._bar: Progress | None = None

    def __call__(self, sim_time_s: float, duration_s: float) -> None:
        if self._bar is None:
            if time.monotonic() - self._started < self._delay or not self._console.is_terminal:
                return
            self._bar = Progress(
                TextColumn("simulating [bold]{task.description}"),
                BarColumn(),
                TextColumn("{task.completed:.1f} / {task.total:.1f} s simulated"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=self._console,
                auto_refresh=False,
                transient=True,
            )
            self._bar.add_task(escape(self._label), total=duration_s)
            self._bar.start()
        self._bar.update(self._bar.task_ids[0], completed=sim_time_s, total=duration_s, refresh=True)

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.stop()
