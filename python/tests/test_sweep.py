"""nmc.sweep with the local executor: the tidy table `nmc sweep` writes, errors kept per run,
seeds as ranges."""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings

import pandas as pd
import pytest

import nmc

GRID = {"traffic.0.arrivals.mean_interval": ["80.64ms", "40.32ms"]}


def test_columns_and_order():
    df = nmc.sweep("md1", grid=GRID, seeds=range(1, 4), set={"duration": "5min"})
    assert list(df.columns) == [
        "traffic.0.arrivals.mean_interval",
        "seed",
        "config_hash",
        "metric",
        "value",
    ]
    metrics = df["metric"].nunique()
    assert len(df) == 2 * 3 * metrics
    # Plan order: grid points outer, seeds inner, metrics sorted within a run.
    assert list(df["seed"].iloc[:: metrics][:3]) == [1, 2, 3]
    assert df.attrs["errors"] == []


def test_same_values_as_single_runs():
    df = nmc.sweep("md1", grid=GRID, seeds=[4, 5], set={"duration": "5min"}, metrics=["delay.mean_ms"])
    one = nmc.run("md1", seed=5, set={"duration": "5min", "traffic.0.arrivals.mean_interval": "40.32ms"})
    row = df[(df["seed"] == 5) & (df["traffic.0.arrivals.mean_interval"] == pd.Timedelta("40.32ms"))]
    assert row["value"].item() == one.metrics["delay.mean_ms"]
    assert row["config_hash"].item() == one.config_hash


def test_swept_values_come_back_typed():
    df = nmc.sweep(
        "md1",
        grid={
            "traffic.0.arrivals.mean_interval": ["80.64ms", "1min"],  # durations
            "network.line.queue_limit": [4, 1000],                    # whole numbers
            "network.line.capacity": ["50kbit/s"],                    # a rate: as written
        },
        seeds=1,
        set={"duration": "2min"},
        metrics=["delay.mean_ms"],
    )
    assert list(df.columns) == [
        "network.line.capacity", "network.line.queue_limit", "traffic.0.arrivals.mean_interval",
        "seed", "config_hash", "metric", "value",
    ]
    assert str(df["traffic.0.arrivals.mean_interval"].dtype) == "timedelta64[ns]"
    assert str(df["network.line.queue_limit"].dtype) == "int64"
    # Keys sorted, the last varying fastest.
    assert list(df["traffic.0.arrivals.mean_interval"]) == [pd.Timedelta("80.64ms"), pd.Timedelta(minutes=1)] * 2
    assert list(df["network.line.queue_limit"]) == [4, 4, 1000, 1000]
    # A rate stays the text the sweep was given; the other columns are as before.
    assert pd.api.types.is_string_dtype(df["network.line.capacity"])
    assert set(df["network.line.capacity"]) == {"50kbit/s"}
    assert [str(df[c].dtype) for c in ("seed", "value")] == ["int64", "float64"]
    assert pd.api.types.is_string_dtype(df["config_hash"]) and pd.api.types.is_string_dtype(df["metric"])
    # A key some cases leave out: a nullable integer column, absent where not set.
    df = nmc.sweep(
        "md1",
        cases=[{"network.line.queue_limit": 8}, {"traffic.0.arrivals.mean_interval": "80.64ms"}],
        seeds=1,
        set={"duration": "2min"},
        metrics=["delay.mean_ms"],
    )
    assert str(df["network.line.queue_limit"].dtype) == "Int64"
    assert df["network.line.queue_limit"].isna().tolist() == [False, True]
    column = df["traffic.0.arrivals.mean_interval"]
    assert str(column.dtype) == "timedelta64[ns]" and pd.isna(column.iloc[0])
    assert column.iloc[1] == pd.Timedelta("80.64ms")


def test_threads_do_not_change_the_table():
    a = nmc.sweep("md1", grid=GRID, seeds=5, set={"duration": "5min"}, jobs=1)
    b = nmc.sweep("md1", grid=GRID, seeds=5, set={"duration": "5min"}, jobs=2)
    pd.testing.assert_frame_equal(a, b)


def test_a_bad_configuration_is_an_error_row_not_a_crashed_sweep():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        df = nmc.sweep(
            "md1",
            grid={"traffic.0.arrivals.mean_interval": ["80.64ms", "-3ms"]},
            seeds=range(1, 3),
            set={"duration": "2min"},
        )
    errors = df.attrs["errors"]
    assert [e["seed"] for e in errors] == [1, 2]
    assert all(e["config"] == 1 for e in errors)
    assert all("-3ms" in " ".join(e["sets"]) for e in errors)
    assert set(df["traffic.0.arrivals.mean_interval"]) == {pd.Timedelta("80.64ms")}
    assert any("2 of 4 runs failed" in str(x.message) for x in w)


def test_bad_sweep_arguments_are_scenario_errors():
    with pytest.raises(nmc.ScenarioError, match="consecutive"):
        nmc.sweep("md1", seeds=[1, 3])
    with pytest.raises(nmc.ScenarioError, match="list of values"):
        nmc.sweep("md1", grid={"duration": "5min"})
    # A key that no run accepts is a mistake in the sweep, not a run that failed.
    with pytest.raises(nmc.ScenarioError, match="unknown field `no`") as e:
        nmc.sweep("md1", grid={"no.such.key": [1, 2]}, seeds=1)
    assert e.value.key == "no.such.key"


def test_sizes_from_input_are_bounded_and_raise():
    # Issue 33: 64 keys of two values once overflowed the run count to 0 and killed the
    # interpreter; a pool of 100,000 threads once started.
    grid = {f"traffic.0.k{k}": [1, 2] for k in range(64)}
    with pytest.raises(nmc.ScenarioError, match="at most 1000000 runs"):
        nmc.sweep("md1", grid=grid, seeds=1)
    with pytest.raises(nmc.ScenarioError, match="at most 1024 threads"):
        nmc.sweep("md1", grid=GRID, seeds=1, jobs=100_000)


def test_progress_is_reported():
    seen = []
    nmc.sweep("md1", grid=GRID, seeds=10, set={"duration": "1min"}, progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1] == (20, 20)


# The CLI: $NMC_CLI (scripts/test.sh points it at the binary it built), else `nmc` on PATH.
CLI = os.environ.get("NMC_CLI") or shutil.which("nmc")


@pytest.mark.skipif(CLI is None, reason="no nmc CLI: set NMC_CLI or put nmc on PATH")
def test_the_cli_writes_the_same_table(tmp_path):
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(
        'base = "md1"\nseeds = { from = 1, count = 3 }\n[set]\nduration = "5min"\n'
        '[grid]\n"traffic.0.arrivals.mean_interval" = ["80.64ms", "40.32ms"]\n'
    )
    subprocess.run([CLI, "sweep", str(sweep_file), "--out", str(tmp_path / "o")], check=True, capture_output=True)
    py = nmc.sweep("md1", grid=GRID, seeds=3, set={"duration": "5min"}, out=tmp_path / "p")
    # The CLI's folder, loaded, is the same typed table.
    cli = nmc.load(tmp_path / "o")
    assert cli.kind == "nmc sweep"
    pd.testing.assert_frame_equal(cli.tables["results"], py, check_like=False)
    assert str(cli.tables["summary"]["traffic.0.arrivals.mean_interval"].dtype) == "timedelta64[ns]"
    # The file keeps the values as the sweep wrote them.
    raw = pd.read_csv(tmp_path / "o" / "results.csv", dtype=str)
    assert set(raw["traffic.0.arrivals.mean_interval"]) == {"80.64ms", "40.32ms"}
    # The folders hold the same tables, byte for byte.
    for f in ["results.csv", "summary.csv"]:
        assert (tmp_path / "o" / f).read_bytes() == (tmp_path / "p" / f).read_bytes(), f


def test_out_folder_resumes_and_gives_the_same_table(tmp_path):
    out = tmp_path / "sweep"
    kw = dict(grid=GRID, set={"duration": "5min"})
    # A first sweep of seeds 1..2 leaves its runs in the folder ...
    nmc.sweep("md1", seeds=range(1, 3), out=out, **kw)
    assert len(list((out / "runs").glob("*.json"))) == 4
    # ... and a sweep of seeds 1..4 into it runs only the 4 new ones.
    totals = []
    resumed = nmc.sweep("md1", seeds=range(1, 5), out=out, progress=lambda d, t: totals.append(t), **kw)
    assert set(totals) == {4}
    straight = nmc.sweep("md1", seeds=range(1, 5), **kw)
    pd.testing.assert_frame_equal(resumed, straight)
    for f in ["sweep.json", "results.csv", "results.parquet", "summary.csv", "summary.parquet"]:
        assert (out / f).is_file(), f
    summary = pd.read_csv(out / "summary.csv")
    assert {"mean", "sd", "ci95_low", "ci95_high"} <= set(summary.columns)
    assert resumed.attrs["out"] == str(out)
