"""Shared fixtures: a small IMP scenario as TOML text, and a Dask LocalCluster of 2 worker
processes (loopback only) for the executor tests."""

from __future__ import annotations

import pytest

# The version 2 chain, short: a deterministic IMP run of a fraction of a second of CPU.
SMALL_IMP = """
name = "small-imp"
seed = 7
duration = "30s"
model = "imp"
record = ["messages"]

[network]
profile = "v2-1974-10"
topology = { kind = "chain", hops = 3, capacity = "50kbit/s", propagation = "2ms" }
hosts = [{ name = "A", imp = "IMP0" }, { name = "B", imp = "IMP3" }]

[[traffic]]
kind = "pump"
from = "A"
to = "B"
message = "8063bit"
"""


@pytest.fixture
def small_imp() -> str:
    return SMALL_IMP


@pytest.fixture(scope="session")
def dask_client():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()
