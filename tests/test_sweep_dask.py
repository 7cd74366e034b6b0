"""pathpool sweep --cluster: the same sweep on Dask gives the same files as on local processes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from distributed import Client, LocalCluster, get_task_stream

from pathpool import sweep
from pathpool.cli import main

#: 2 congestion controls × 2 seeds: four points.
GRID = ["--set", "tcp.cc=newreno,cubic", "--seeds", "1-2"]


@pytest.fixture(scope="module")
def scheduler():
    """A running Dask scheduler with 2 single-threaded workers, as a user's cluster would be,
    and a client on it for the tests to watch its tasks."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        yield cluster.scheduler_address, client


def sweep_files(out: Path) -> dict[str, bytes]:
    """Every file a sweep wrote, by its path under ``out``, except the points' run_info.json
    (wall time, host, command line: what differs between two runs by design)."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.name != "run_info.json"}


def test_a_sweep_on_a_local_dask_cluster_writes_the_local_backends_files(runner, small_scenario, tmp_path):
    local, dask = tmp_path / "local", tmp_path / "dask"
    args = ["sweep", str(small_scenario), *GRID, "-j", "2"]
    assert runner.invoke(main, [*args, "--out", str(local)]).exit_code == 0
    on_dask = runner.invoke(main, [*args, "--out", str(dask), "--cluster", "local"])
    assert on_dask.exit_code == 0, on_dask.output
    assert "4 point(s) run now, 0 already done" in on_dask.output
    files = sweep_files(local)
    assert {"sweep.json", "index.csv"} <= set(files)
    assert sum(name.endswith("/summary.json") for name in files) == 4
    assert sum(name.endswith(".parquet") for name in files) >= 4 * 14
    assert sweep_files(dask) == files
    assert sorted(p.name for p in (dask / "points").iterdir()) == sorted(p.name for p in (local / "points").iterdir())


def test_a_sweep_runs_each_point_as_a_task_on_an_existing_scheduler_and_resumes(runner, small_scenario, tmp_path,
                                                                                 scheduler):
    address, client = scheduler
    out = tmp_path / "sweep"
    args = ["sweep", str(small_scenario), *GRID, "--out", str(out), "--cluster", address]
    with get_task_stream(client) as tasks:
        first = runner.invoke(main, args)
    assert first.exit_code == 0, first.output
    assert len(tasks.data) == 4
    assert len({task["worker"] for task in tasks.data}) == 2
    files = sweep_files(out)
    # An interruption loses the points that had not finished: the same command runs only those.
    victim = pd.read_csv(out / "index.csv")["point"][2]
    shutil.rmtree(out / "points" / victim)
    with get_task_stream(client) as tasks:
        second = runner.invoke(main, args)
    assert second.exit_code == 0, second.output
    assert "1 point(s) run now, 3 already done" in second.output
    assert len(tasks.data) == 1
    assert sweep_files(out) == files


@pytest.mark.parametrize("backend", ["processes", "dask"])
def test_a_failed_point_is_tried_once_more_and_its_error_lands_in_the_index(runner, small_scenario, tmp_path,
                                                                          scheduler, backend):
    out = tmp_path / "sweep"
    args = ["sweep", str(small_scenario), *GRID, "--out", str(out)]
    if backend == "dask":
        args += ["--cluster", scheduler[0]]
    assert runner.invoke(main, args).exit_code == 0
    # A point whose directory holds something else than results cannot be written.
    victim = pd.read_csv(out / "index.csv")["point"][1]
    (out / "points" / victim / "summary.json").unlink()
    again = runner.invoke(main, args)
    assert again.exit_code == 1
    assert again.output.count("failed, trying once more: tcp.cc=newreno, seed=2: FileExistsError") == 1
    index = pd.read_csv(out / "index.csv").set_index("point")
    assert not index.loc[victim, "done"]
    assert index.loc[victim, "error"].startswith("FileExistsError: ")
    assert index.drop(victim)["error"].isna().all()


def test_a_run_that_fails_once_succeeds_on_its_second_try(small_scenario, tmp_path, monkeypatch):
    # Threads instead of processes, so that the flaky run below is the one the sweep calls.
    monkeypatch.setattr(sweep.cf, "ProcessPoolExecutor", sweep.cf.ThreadPoolExecutor)
    real_run, tried = sweep.api.run, []

    def flaky_run(text, **kwargs):
        tried.append(kwargs["seed"])
        if tried.count(kwargs["seed"]) == 1:
            raise OSError("worker lost")
        return real_run(text, **kwargs)

    monkeypatch.setattr(sweep.api, "run", flaky_run)
    retried = []
    outcome = sweep.run_sweep(small_scenario, {}, [1, 2], tmp_path / "sweep", jobs=2,
                              on_point_retry=lambda point, error: retried.append((point.seed, error)))
    assert sorted(tried) == [1, 1, 2, 2]
    assert sorted(retried) == [(1, "OSError: worker lost"), (2, "OSError: worker lost")]
    assert outcome.failed == {}
    assert outcome.index["done"].all() and outcome.index["error"].isna().all()
