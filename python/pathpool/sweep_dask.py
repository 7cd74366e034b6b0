"""A Dask cluster as the executor of a sweep's runs (``pathpool sweep --cluster``).

:func:`dask_executor` yields a ``concurrent.futures.Executor`` whose tasks run
on Dask workers: those of an existing scheduler (``tcp://HOST:8786``) or of a
``LocalCluster`` started here (``local``). The sweep (:mod:`pathpool.sweep`)
drives it exactly as it drives its local process pool; each task is one run,
and its :class:`~pathpool.Results` come back to this process, which writes
them, so the workers need pathpool and the scenario's files but no share of
the sweep directory.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
from collections.abc import Iterator

#: How long to wait for an existing scheduler to answer before giving up.
CONNECT_TIMEOUT_S = 15


@contextlib.contextmanager
def dask_executor(cluster: str, workers: int) -> Iterator[cf.Executor]:
    """An executor on the Dask cluster ``cluster``: "local" for a LocalCluster of
    ``workers`` processes, or the address of a running scheduler (then
    ``workers`` is unused: the cluster's own workers run the tasks).

    Raises ConnectionError if the scheduler cannot be reached.
    """
    # Imported here: dask takes about a second to import, which a local sweep need not pay.
    from distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if cluster == "local":
            # One thread per worker process: the simulator holds the interpreter while it
            # runs, so threads in one process would take turns. No dashboard: it would
            # claim a fixed port (8787) and needs bokeh.
            address = stack.enter_context(LocalCluster(n_workers=workers, threads_per_worker=1,
                                                       processes=True, dashboard_address=None))
        else:
            address = cluster
        try:
            client = stack.enter_context(Client(address, timeout=CONNECT_TIMEOUT_S))
        except (OSError, TimeoutError) as error:
            raise ConnectionError(f"cannot reach the Dask scheduler at {cluster}: {error}") from None
        # pure=False: a retried run must be a new task, not the failed one's cached outcome.
        yield client.get_executor(pure=False)
