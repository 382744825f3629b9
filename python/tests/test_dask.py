"""nmc.sweep on a Dask LocalCluster of 2 worker processes (loopback): the same DataFrame as
the local executor, row for row; a worker killed mid-sweep loses nothing and doubles nothing."""

from __future__ import annotations

import os
import signal

import pandas as pd
import pytest

import nmc

pytest.importorskip("distributed")

# 2 configurations x 25 seeds = 50 runs.
KW = dict(
    grid={"traffic.0.arrivals.mean_interval": ["80.64ms", "40.32ms"]},
    seeds=range(1, 26),
    set={"duration": "100min"},
)


def test_fifty_runs_on_dask_equal_the_local_executor(dask_client):
    local = nmc.sweep("md1", **KW)
    assert local["config_hash"].nunique() == 50
    dask = nmc.sweep("md1", executor=dask_client, **KW)
    pd.testing.assert_frame_equal(local, dask)
    # One run per task, too.
    pd.testing.assert_frame_equal(local, nmc.sweep("md1", executor=dask_client, chunk_size=1, **KW))


def test_a_worker_killed_mid_sweep_loses_nothing(dask_client):
    local = nmc.sweep("md1", **KW)
    pids = sorted(dask_client.run(os.getpid).values())
    killed = []

    def kill_one(done: int, total: int) -> None:
        # At the first finished task, with most of the sweep still to run.
        if not killed:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(done)

    dask = nmc.sweep("md1", executor=dask_client, chunk_size=2, progress=kill_one, **KW)
    assert killed and killed[0] < 50
    pd.testing.assert_frame_equal(local, dask)
    assert dask.attrs["errors"] == []
    dask_client.wait_for_workers(2, timeout=60)


def test_a_concurrent_futures_executor_works_too():
    from concurrent.futures import ThreadPoolExecutor

    local = nmc.sweep("md1", **KW)
    with ThreadPoolExecutor(2) as ex:
        pd.testing.assert_frame_equal(local, nmc.sweep("md1", executor=ex, **KW))
