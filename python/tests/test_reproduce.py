"""nmc.reproduce: the published-vs-ours table as a DataFrame, as `nmc reproduce` makes it."""

from __future__ import annotations

import pytest

import nmc


def test_experiments_are_listed():
    e = nmc.experiments()
    assert list(e.columns) == ["id", "title", "source"]
    assert "golden-chain" in set(e["id"])


def test_one_experiment_gives_its_rows_and_report(tmp_path):
    df = nmc.reproduce(["golden-chain"], quick=True, out=tmp_path)
    assert set(df["experiment"]) == {"golden-chain"}
    assert {"id", "published", "ours", "tolerance", "within", "kind"} <= set(df.columns)
    assert df["within"].dtype == bool
    assert (tmp_path / "index.html").is_file() and (tmp_path / "reproduce.json").is_file()
    assert df.attrs["report"] == str(tmp_path / "index.html")
    assert set(df["figure"]) == {"CHAIN"}
    board = df.attrs["scoreboard"]
    assert list(board["id"]) == ["CHAIN"] and list(board["verdict"]) == ["reproduced"]
    # The same seed gives the same rows.
    again = nmc.reproduce("golden-chain", quick=True)
    assert again.drop(columns=[]).equals(df)


def test_unknown_experiment():
    with pytest.raises(nmc.ScenarioError, match="unknown experiment `nope`"):
        nmc.reproduce(["nope"])
