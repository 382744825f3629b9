"""Runs/s of nmc.sweep on the local executor and on a Dask LocalCluster, and Dask's overhead
per task. A benchmark, not a test: run it on a quiet machine and read the figures.

    pip install "./python[dask]"
    python bench/python_sweep.py [--runs 200] [--workers 2] [--repeat 3]

Three cases, each the median of --repeat sweeps:
  * work:     --runs runs of md1 for 100 simulated minutes each (~10 ms of CPU per run),
              local (all cores) against Dask (one task per ~4 runs per worker thread);
  * overhead: --runs runs of md1 for 1 simulated second (~no work), one run per task on Dask:
              wall time per task is Dask's overhead per task (scheduling, pickling, the
              result's trip back), to compare with the local executor's per-run cost.
"""

from __future__ import annotations

import argparse
import statistics
import time

import pandas as pd

import nmc


def timed(f, repeat: int) -> tuple[float, pd.DataFrame]:
    walls, df = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        df = f()
        walls.append(time.perf_counter() - t)
    return statistics.median(walls), df


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    from dask.distributed import Client, LocalCluster

    def kw(duration: str) -> dict:
        return dict(
            grid={"traffic.0.arrivals.mean_interval": ["80.64ms", "40.32ms"]},
            seeds=range(1, a.runs // 2 + 1),
            set={"duration": duration},
        )

    rows = []
    with LocalCluster(
        n_workers=a.workers, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as cluster, Client(cluster) as client:
        for case, duration, chunk in [("work", "100min", None), ("overhead", "1s", 1)]:
            local_s, local = timed(lambda: nmc.sweep("md1", **kw(duration)), a.repeat)
            dask_s, dask = timed(
                lambda: nmc.sweep("md1", executor=client, chunk_size=chunk, **kw(duration)),
                a.repeat,
            )
            pd.testing.assert_frame_equal(local, dask)
            runs = local["config_hash"].nunique()
            tasks = runs if chunk == 1 else -(-runs // max(1, -(-runs // (4 * a.workers))))
            rows.append(
                dict(
                    case=case,
                    runs=runs,
                    tasks=tasks,
                    local_runs_per_s=runs / local_s,
                    dask_runs_per_s=runs / dask_s,
                    local_ms_per_run=1e3 * local_s / runs,
                    dask_ms_per_task=1e3 * dask_s / tasks,
                )
            )
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda x: f"{x:.2f}"))
    print(f"({a.workers} Dask workers x 1 thread; local: every core; median of {a.repeat}; same rows from both)")


if __name__ == "__main__":
    main()
