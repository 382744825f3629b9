"""A sweep's runs as tasks on a Dask cluster or a ``concurrent.futures`` executor.

Each task is a chunk of runs; it runs them one after the other in the worker's process
(``_nmc.run_configs`` with one thread: the worker's own threads are the parallelism) and
returns, for each, its metrics or its error. Nothing here schedules: Dask does (and re-runs the
tasks of a worker that dies); the caller keeps results by config hash.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def run_chunk(base_origin: str, base_text: str, chunk: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Runs one chunk of a sweep where the task lands (a Dask worker, a pool process)."""
    from . import _nmc

    return json.loads(_nmc.run_configs(base_origin, base_text, json.dumps(chunk), 1))


def _is_dask(executor: Any) -> bool:
    return type(executor).__module__.split(".")[0] == "distributed"


def submit_all(
    executor: Any,
    fn: Callable[..., list[dict[str, Any]]],
    base_origin: str,
    base_text: str,
    chunks: list[list[dict[str, Any]]],
    retries: int,
    progress: Callable[[int, int], None] | None,
    total: int,
    store: Callable[[list[dict[str, Any]]], None] | None = None,
) -> list[dict[str, Any]]:
    """Submits every chunk, gathers every result (in completion order); ``store`` gets each
    chunk's results as it comes back."""
    if _is_dask(executor):
        from distributed import as_completed

        # pure=False: a run is a computation to do, not a value to share with another sweep's
        # identical-looking task. retries: a task that raised is run again elsewhere; a task
        # whose worker died is re-run by the scheduler regardless (distributed's
        # `allowed-failures`).
        futures = [
            executor.submit(fn, base_origin, base_text, chunk, pure=False, retries=retries)
            for chunk in chunks
        ]
    elif hasattr(executor, "submit"):
        from concurrent.futures import as_completed

        futures = [executor.submit(fn, base_origin, base_text, chunk) for chunk in chunks]
    else:
        raise TypeError(
            f"executor: 'local', a dask.distributed.Client or a concurrent.futures.Executor, "
            f"not {type(executor).__name__}"
        )
    done: list[dict[str, Any]] = []
    for fut in as_completed(futures):
        part = fut.result()
        done += part
        if store:
            store(part)
        if progress:
            progress(len(done), total)
    return done
