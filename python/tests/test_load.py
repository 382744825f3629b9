"""Issue 58 §9: the instruments' outputs loaded from Python, typed. The instruments run for real
on loopback against one `nmc serve` (the CLI from $NMC_CLI, else `nmc` on PATH; those tests are
skipped without it): their -J documents, --out folders and CSV records load with durations as
timedelta64[ns] and times as UTC timestamps, agreeing with the seconds in the JSON; a failed
run's document loads with its error; another schema is refused in one line."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import nmc

CLI = os.environ.get("NMC_CLI") or shutil.which("nmc")
needs_cli = pytest.mark.skipif(CLI is None, reason="no nmc CLI: set NMC_CLI or put nmc on PATH")

TD = "timedelta64[ns]"
NS = pd.Timedelta(1, unit="ns")


@pytest.fixture(scope="module")
def server():
    """`nmc serve` on a free loopback port; its first stderr line names the address."""
    p = subprocess.Popen(
        [CLI, "serve", "--listen", "127.0.0.1:0", "--duration", "120s", "--log-every", "0s"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = p.stderr.readline()
        m = re.search(r"\bon (127\.0\.0\.1:\d+)", first)
        assert m, f"nmc serve's first line names no address: {first!r}"
        yield m.group(1)
    finally:
        p.terminate()
        p.wait(timeout=30)
        p.stderr.close()


def run_json(*args: str, codes: tuple[int, ...] = (0,)) -> tuple[str, dict]:
    """`nmc ARGS -J`: its stdout (the one document) and the document parsed."""
    o = subprocess.run([CLI, *args, "-J"], capture_output=True, text=True, timeout=120)
    assert o.returncode in codes, f"nmc {' '.join(args)}: exit {o.returncode}: {o.stderr}"
    return o.stdout, json.loads(o.stdout)


def same_td(td: pd.Timedelta, s: float) -> bool:
    """A loaded duration is the JSON's seconds, to the nanosecond."""
    return isinstance(td, pd.Timedelta) and abs(td - pd.Timedelta(round(s * 1e9), unit="ns")) <= NS


def dead_address() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


# --- the rule, without the CLI ------------------------------------------------------------


def test_the_unit_rule_on_a_csv_text():
    df = nmc.load_csv(
        "seq,sent_ns,gap_ms,clock_s,wait_us,bits_per_s,sender_us_per_bit,start_unix_s,in_run\n"
        "0,1000,1.5,0.25,3,8e6,0.01,1764403200.25,true\n"
        "1,,,,,,,,false\n"
    )
    assert df.dtypes.to_dict() == {
        "seq": np.dtype("int64"),
        "sent_ns": np.dtype(TD),
        "gap_ms": np.dtype(TD),
        "clock_s": np.dtype(TD),
        "wait_us": np.dtype(TD),
        "bits_per_s": np.dtype("float64"),  # a rate, though it ends in _s
        "sender_us_per_bit": np.dtype("float64"),
        "start_unix_s": pd.DatetimeTZDtype("ns", "UTC"),
        "in_run": np.dtype("bool"),
    }
    row = df.iloc[0]
    assert row["sent_ns"] == pd.Timedelta(1000, unit="ns")
    assert row["gap_ms"] == pd.Timedelta(1500, unit="us")
    assert row["clock_s"] == pd.Timedelta(250, unit="ms")
    assert row["wait_us"] == pd.Timedelta(3, unit="us")
    # A Unix time in a float keeps its quarter second exactly (not rounded to the float's 256 ns).
    assert row["start_unix_s"] == pd.Timestamp("2025-11-29 08:00:00.25", tz="UTC")
    assert df.iloc[1][["sent_ns", "gap_ms", "clock_s", "wait_us"]].isna().all()
    assert pd.isna(df.iloc[1]["start_unix_s"])


def test_whole_nanoseconds_are_exact_past_the_floats_precision():
    big = 2**60 + 1  # 36 years of nanoseconds: a float would drop the last ns
    df = nmc.load_csv(f"t_ns,x\n{big},1\n,2\n")
    assert df["t_ns"].iloc[0] == pd.Timedelta(big, unit="ns")
    assert df["t_ns"].isna().tolist() == [False, True]


def test_typed_is_idempotent_and_keeps_names():
    df = pd.DataFrame({"rtt_ns": [5, 7], "value": [1.0, 2.0], "throughput_bit_per_s": [1.0, 2.0]})
    once = nmc.typed(df)
    assert list(once.columns) == list(df.columns)
    assert str(once["rtt_ns"].dtype) == TD and str(once["throughput_bit_per_s"].dtype) == "float64"
    pd.testing.assert_frame_equal(nmc.typed(once), once)
    assert df["rtt_ns"].dtype == np.dtype("int64"), "typed() must not change its argument"
    with pytest.raises(TypeError, match="DataFrame"):
        nmc.typed({"rtt_ns": [1]})


def test_a_record_with_no_rows_is_an_empty_frame(tmp_path):
    (tmp_path / "e.csv").write_text("")
    assert nmc.load_csv(tmp_path / "e.csv").empty


def minimal(**change) -> dict:
    doc = {
        "schema": "nmc-instrument/2", "tool": "nmc cost", "version": "0.1.0",
        "units": {"time": "s", "rate": "bit/s", "size": "byte"}, "target": "127.0.0.1:1",
        "start_unix_s": 1764403200.5, "stopped_early": False, "end": None,
    }
    doc.update(change)
    return doc


@pytest.mark.parametrize(
    "doc, message",
    [
        (minimal(schema="nmc-instrument/1"), r"schema 'nmc-instrument/1': this package reads 'nmc-instrument/2'.*older nmc"),
        (minimal(schema="nmc-reproduce/2"), r"schema 'nmc-reproduce/2': this package reads 'nmc-instrument/2'"),
        ({"tool": "nmc echo probe", "volleys": 3}, r'no "schema" key \(a summary.json\? nmc.load_folder'),
        (minimal(tool="nmc ping"), r"unknown tool 'nmc ping'"),
        ({k: v for k, v in minimal().items() if k != "end"}, r"not a whole nmc-instrument/2 document: no 'end'"),
        (minimal(units={"time": "ms", "rate": "bit/s", "size": "byte"}), r"units"),
        (minimal(end=[1, 2]), r'"end" is a list'),
        ("[1, 2]", r"not an nmc instrument document \(a JSON list"),
        ('{"schema": ', r"<document>: not JSON \(Expecting value at line 1"),
    ],
)
def test_what_is_not_a_document_is_refused_in_one_line(doc, message):
    text = doc if isinstance(doc, str) else json.dumps(doc)
    with pytest.raises(ValueError, match=message) as e:
        nmc.load(text)
    assert "\n" not in str(e.value)
    assert not isinstance(e.value, KeyError)


def test_bad_paths_and_folders(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        nmc.load(tmp_path / "nothing.json")
    (tmp_path / "f").mkdir()
    (tmp_path / "f" / "x.txt").write_text("hello")
    with pytest.raises(ValueError, match="not an nmc output folder"):
        nmc.load(tmp_path / "f")
    (tmp_path / "doc.json").write_text(json.dumps(minimal()))
    assert nmc.load(tmp_path / "doc.json").tool == "nmc cost"


# --- the instruments, on loopback -----------------------------------------------------------


@needs_cli
def test_echo_probe_document_folder_and_trace(server, tmp_path):
    out = tmp_path / "probe"
    text, doc = run_json(
        "echo", "probe", server, "--count", "20", "--gap", "1ms", "--report-interval", "5ms",
        "--out", str(out),
    )
    m = nmc.load(text)
    assert isinstance(m, nmc.Measurement)
    assert (m.tool, m.target, m.error, m.ok, m.stopped_early) == ("nmc echo probe", server, None, True, False)
    # The start: a UTC timestamp, the JSON's Unix seconds, and now.
    assert m.start.tz is not None and str(m.start.tz) == "UTC"
    assert abs(m.start - pd.Timestamp(doc["start_unix_s"], unit="s", tz="UTC")) <= pd.Timedelta(1, unit="us")
    assert abs(pd.Timestamp.now(tz="UTC") - m.start) < pd.Timedelta(2, unit="min")
    # Parameters: durations as timedeltas, the rest as in the JSON.
    assert m.parameters["pacing"] == {"kind": "one_in_flight", "gap_s": pd.Timedelta(1, unit="ms")}
    assert m.parameters["timeout_s"] == pd.Timedelta(30, unit="s")
    assert m.parameters["count"] == 20
    # The statistics: each duration is the JSON's seconds; counts and ratios stay numbers.
    for name in ("rtt", "one_way"):
        for key, s in doc["end"][name].items():
            if key.endswith("_s"):
                assert same_td(m.end[name][key], s), (name, key)
            else:
                assert m.end[name][key] == s and not isinstance(m.end[name][key], pd.Timedelta)
    assert m.end["rtt"]["min_s"] <= m.end["rtt"]["mean_s"] <= m.end["rtt"]["max_s"]
    assert m.end["volleys"] == 20 and m.end["answered"] + m.end["lost"] == 20
    assert same_td(m.end["elapsed_s"], doc["end"]["elapsed_s"])
    # The interval lines are a table, not in `end`.
    assert "intervals" not in m.end
    iv = m.tables["intervals"]
    assert len(iv) == len(doc["end"]["intervals"]) >= 1
    for c in ("start_s", "end_s", "rtt_min_s", "rtt_mean_s", "rtt_max_s"):
        assert str(iv[c].dtype) == TD, c
    for got, row in zip(iv.itertuples(), doc["end"]["intervals"], strict=True):
        assert same_td(got.end_s, row["end_s"])
        assert pd.isna(got.rtt_mean_s) if row["rtt_mean_s"] is None else same_td(got.rtt_mean_s, row["rtt_mean_s"])
    assert iv["sent"].dtype == np.dtype("int64") and iv["sent"].sum() <= 20

    folder = nmc.load(out)
    assert isinstance(folder, nmc.OutputFolder) and folder.kind == "nmc echo probe"
    trace = folder.tables["trace"]
    assert len(trace) == doc["end"]["volleys"]
    for c in ("send_time_ns", "delay_ns", "rtt_ns", "server_turnaround_ns"):
        assert str(trace[c].dtype) == TD, c
    assert trace["send_time_ns"].is_monotonic_increasing and trace["send_time_ns"].iloc[0] >= pd.Timedelta(0)
    answered = trace.dropna(subset=["rtt_ns"])
    assert len(answered) == doc["end"]["answered"]
    # delay_ns is the round trip halved, to the nanosecond.
    assert ((answered["rtt_ns"] - 2 * answered["delay_ns"]).abs() <= NS).all()
    # The trace's round trips are those the document's statistics were drawn from.
    assert abs(answered["rtt_ns"].mean() - m.end["rtt"]["mean_s"]) <= pd.Timedelta(1, unit="us")
    assert answered["rtt_ns"].max() == m.end["rtt"]["max_s"]
    # summary.json, typed by the same rule (its statistics in ns).
    assert folder.summary["rtt"]["max_ns"] == m.end["rtt"]["max_s"]


@needs_cli
def test_pump_document_and_messages(server, tmp_path):
    out = tmp_path / "pump"
    text, doc = run_json("pump", server, "-t", "1s", "-i", "250ms", "--out", str(out))
    m = nmc.load_document(text)
    assert m.ok and m.tool == "nmc pump"
    assert m.parameters["duration_s"] == pd.Timedelta(1, unit="s")
    assert m.parameters["size_bytes"] == 1008 and m.parameters["transport"] == "tcp"
    end = m.end
    # Rates stay numbers in bit/s (they end in _per_s); durations are timedeltas.
    assert isinstance(end["throughput_bit_per_s"], float) and end["throughput_bit_per_s"] > 0
    assert same_td(end["run_s"], doc["end"]["run_s"])
    assert same_td(end["rtt"]["mean_s"], doc["end"]["rtt"]["mean_s"])
    assert end["significant_lags"] == doc["end"]["significant_lags"]
    iv = m.tables["intervals"]
    assert len(iv) == len(doc["end"]["intervals"]) >= 3
    assert [str(iv[c].dtype) for c in ("start_s", "end_s", "answered", "throughput_bit_per_s", "rtt_mean_s")] == [
        TD, TD, "int64", "float64", TD,
    ]
    assert (iv["end_s"] > iv["start_s"]).all()
    ac = m.tables["autocorrelation"]
    assert len(ac) == len(doc["end"]["autocorrelation"]) and ac["lag"].dtype == np.dtype("int64")

    messages = nmc.load(out).tables["messages"]
    assert len(messages) == end["messages_sent"]
    assert [str(messages[c].dtype) for c in ("sent_ns", "rfnm_ns", "rtt_ns", "in_run")] == [TD, TD, TD, "bool"]
    done = messages.dropna(subset=["rfnm_ns"])
    assert len(done) == end["messages_answered"]
    # The round trip is the RFNM's time less the send's, to the nanosecond.
    assert (done["rfnm_ns"] - done["sent_ns"] == done["rtt_ns"]).all()
    assert int(messages["in_run"].sum()) == end["answered_in_run"]
    assert messages["rtt_ns"].max() == end["rtt"]["max_s"]


@needs_cli
def test_pump_bidir_has_a_table_per_direction(server, tmp_path):
    out = tmp_path / "bidir"
    text, doc = run_json("pump", server, "-t", "1s", "--bidir", "--out", str(out))
    m = nmc.load(text)
    assert m.end["bidir"] is True
    assert sorted(m.tables) == [
        "forward.autocorrelation", "forward.intervals", "reverse.autocorrelation", "reverse.intervals",
    ]
    for d in ("forward", "reverse"):
        assert len(m.tables[f"{d}.autocorrelation"]) == len(doc["end"][d]["autocorrelation"]) > 0
        assert same_td(m.end[d]["run_s"], doc["end"][d]["run_s"])
    folder = nmc.load(out)
    assert folder.kind == "nmc pump --bidir" and sorted(folder.parts) == ["forward", "reverse"]
    assert len(folder.parts["forward"].tables["messages"]) == doc["end"]["forward"]["messages_sent"]
    # In reverse, messages.csv is this host's record of each arrival.
    rev = folder.parts["reverse"].tables["messages"]
    assert {"first_ns", "whole_ns"} <= set(rev.columns) and str(rev["whole_ns"].dtype) == TD
    assert (rev["whole_ns"] >= rev["first_ns"]).all()


@needs_cli
def test_stream_bidir_and_omit_load(server, tmp_path):
    """Issue 75 §2, §8: ``nmc stream --bidir -O --out`` loads: a table per direction in the
    document, a part per direction in the folder, the warm-up apart."""
    out = tmp_path / "sbidir"
    text, doc = run_json("stream", server, "-u", "-t", "1s", "-O", "500ms", "-i", "250ms",
                         "--bidir", "--out", str(out))
    m = nmc.load(text)
    assert m.end["bidir"] is True
    assert sorted(m.tables) == [
        "forward.intervals", "forward.tests", "reverse.intervals", "reverse.tests",
    ]
    for d in ("forward", "reverse"):
        tests = m.tables[f"{d}.tests"]
        assert len(tests) == 1 and tests["buffers_sent"][0] == doc["end"][d]["tests"][0]["buffers_sent"]
        assert doc["end"][d]["tests"][0]["omitted"]["buffers_sent"] > 0
    assert m.tables["forward.intervals"]["omitted"].fillna(False).astype(bool).any()
    folder = nmc.load(out)
    assert folder.kind == "nmc stream --bidir" and sorted(folder.parts) == ["forward", "reverse"]
    assert all(p.kind == "nmc stream" for p in folder.parts.values())


@needs_cli
def test_pump_parallel_folder_has_a_part_per_connection(server, tmp_path):
    """Issue 75 §8: ``nmc pump -P 2 --out`` was refused ("not an nmc output folder")."""
    out = tmp_path / "parallel"
    _, doc = run_json("pump", server, "-t", "1s", "-P", "2", "--out", str(out))
    folder = nmc.load(out)
    assert folder.kind == "nmc pump -P" and list(folder.parts) == ["p1", "p2"]
    for i, part in enumerate(folder.parts.values()):
        assert part.kind == "nmc pump"
        assert len(part.tables["messages"]) == doc["end"]["streams"][i]["messages_sent"]


@needs_cli
def test_several_targets_and_rrul_folders_load(server, tmp_path):
    """Issue 75 §5, §6: ``nmc echo probe A B --out`` writes a folder per target, and ``nmc rrul
    --out`` a time series; both load, typed by the unit rule."""
    second = subprocess.Popen(
        [CLI, "serve", "--listen", "127.0.0.1:0", "--duration", "60s", "--log-every", "0s"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        other = re.search(r"\bon (127\.0\.0\.1:\d+)", second.stderr.readline()).group(1)
        out = tmp_path / "several"
        o = subprocess.run(
            [CLI, "echo", "probe", server, other, "--count", "5", "--interval", "5ms", "--out", str(out)],
            capture_output=True, text=True, timeout=120,
        )
    finally:
        second.terminate()
        second.wait(timeout=30)
        second.stderr.close()
    assert o.returncode == 0, o.stderr
    folder = nmc.load(out)
    assert folder.kind == "nmc echo probe (several targets)" and len(folder.parts) == 2
    for part in folder.parts.values():
        assert part.kind == "nmc echo probe" and str(part.tables["trace"]["rtt_ns"].dtype) == TD
    out = tmp_path / "rrul"
    run_json("rrul", server, "--up", "1", "--down", "0", "-t", "500ms", "--before", "200ms",
             "--after", "200ms", "--step", "100ms", "--probe-interval", "20ms", "--out", str(out))
    r = nmc.load(out)
    assert r.kind == "nmc rrul"
    ts = r.tables["timeseries"]
    assert len(ts) == 9 and str(ts["start_s"].dtype) == TD and str(ts["rtt_mean_ms"].dtype) == TD
    assert ts["loaded"].dtype == bool and ts["loaded"].sum() == 5


@needs_cli
def test_stream_sweep_is_a_gap_table(server, tmp_path):
    out = tmp_path / "stream"
    text, doc = run_json(
        "stream", server, "--sweep", "--rates", "30kbit/s,60kbit/s", "--buffers", "252B",
        "-t", "1s", "--out", str(out),
    )
    m = nmc.load(text)
    assert m.parameters["duration_s"] == pd.Timedelta(1, unit="s") and m.parameters["ack"] is False
    tests = m.tables["tests"]
    assert tests["rate_bit_per_s"].tolist() == [30000.0, 60000.0]
    assert tests["buffer_bytes"].tolist() == [252, 252]
    for c in ("max_gap_s", "avg_gap_s", "min_gap_s"):
        assert str(tests[c].dtype) == TD, c
    assert tests["buffers_sent"].dtype == np.dtype("int64")
    for got, row in zip(tests.itertuples(), doc["end"]["tests"], strict=True):
        assert pd.isna(got.max_gap_s) if row["max_gap_s"] is None else same_td(got.max_gap_s, row["max_gap_s"])
    folder = nmc.load(out)
    assert folder.kind == "nmc stream"
    buffers = folder.tables["buffers"]
    assert [str(buffers[c].dtype) for c in ("filled_s", "completed_s", "gap_ms")] == [TD, TD, TD]
    # One row per buffer sent, per test; a buffer completes after it is filled.
    per_test = buffers.groupby("rate_bps").size()
    assert per_test.tolist() == tests["buffers_sent"].tolist()
    assert (buffers["completed_s"].dropna() >= buffers.loc[buffers["completed_s"].notna(), "filled_s"]).all()
    # summary.json's runs are a table too: their start is a UTC timestamp.
    runs = folder.tables["runs"]
    assert len(runs) == 2 and str(runs["started_unix_s"].dtype) == "datetime64[ns, UTC]"
    assert abs(runs["started_unix_s"].iloc[0] - m.start) < pd.Timedelta(1, unit="min")


@needs_cli
def test_cost_document_and_csv(server, tmp_path):
    csv = tmp_path / "costs.csv"
    text, doc = run_json(
        "cost", server, "--sizes", "100000", "--write-sizes", "1KiB", "--proto", "tcp", "--out", str(csv)
    )
    m = nmc.load(text)
    assert m.parameters["sizes_bytes"] == [100000] and m.parameters["protos"] == ["tcp"]
    t = m.tables["transfers"]
    assert len(t) == 1 == len(doc["end"]["transfers"])
    row, raw = t.iloc[0], doc["end"]["transfers"][0]
    assert same_td(row["clock_s"], raw["clock_s"]) and same_td(row["sender_cpu_s"], raw["sender_cpu_s"])
    assert same_td(row["receiver_cpu_s"], raw["receiver_cpu_s"])
    assert row["transfer_bytes"] == 100000 and row["throughput_bit_per_s"] == raw["throughput_bit_per_s"]
    assert t["sender_cpu_s_per_bit"].dtype == np.dtype("float64")  # a ratio, not a duration
    rows = nmc.load(csv)
    assert isinstance(rows, pd.DataFrame) and len(rows) == 1
    assert [str(rows[c].dtype) for c in ("clock_s", "sender_user_s", "bits_per_s")] == [TD, TD, "float64"]
    # The file and the document hold the same transfer.
    assert rows["clock_s"].iloc[0] == row["clock_s"]
    assert rows["bits_per_s"].iloc[0] == raw["throughput_bit_per_s"]


@needs_cli
def test_failed_runs_load_with_their_error(tmp_path):
    dead = dead_address()
    text, doc = run_json("pump", dead, "-t", "1s", "--out", str(tmp_path / "u"), codes=(3,))
    m = nmc.load(text)
    assert not m.ok and m.error == doc["error"] and m.error
    assert m.end is None and m.target == dead
    assert sorted(m.tables) == ["autocorrelation", "intervals"]
    assert all(t.empty for t in m.tables.values())
    assert m.start is None and m.parameters == {}  # nothing started

    text, doc = run_json(
        "echo", "probe", dead, "--count", "3", "--open-timeout", "1s", "--out", str(tmp_path / "p"), codes=(3,)
    )
    m = nmc.load(text)
    assert m.error == doc["error"] and m.tables["intervals"].empty

    # A refused command line: no target, no start, no parameters.
    text, doc = run_json("stream", "--no-such-flag", codes=(2,))
    m = nmc.load(text)
    assert (m.tool, m.target, m.start, m.parameters, m.end) == ("nmc stream", None, None, {}, None)
    assert "--no-such-flag" in m.error


@needs_cli
def test_an_older_schema_from_the_cli_is_refused(server, tmp_path):
    _, doc = run_json("echo", "probe", server, "--count", "3", "--gap", "1ms", "--out", str(tmp_path / "p"))
    assert nmc.load(doc).ok
    doc["schema"] = "nmc-instrument/1"
    with pytest.raises(ValueError, match=r"^<document>: schema 'nmc-instrument/1'") as e:
        nmc.load(doc)
    assert "\n" not in str(e.value)


# --- the simulator's folders ---------------------------------------------------------------


def test_a_run_folder_loads_typed(tmp_path, small_imp):
    r = nmc.run(small_imp, record=["messages", "occupancy", "e2e"], out=tmp_path / "run")
    folder = nmc.load(tmp_path / "run")
    assert folder.kind == "nmc run"
    assert folder.summary["config_hash"] == r.config_hash and folder.summary["seed"] == r.seed
    # summary.json by the rule: a metric in ms is a duration.
    assert same_td(folder.summary["metrics"]["rtt.mean_ms"], r.metrics["rtt.mean_ms"] / 1000)
    messages = folder.tables["messages"]
    pd.testing.assert_frame_equal(messages, nmc.typed(r.tables["messages"]))
    assert str(messages["offered_ns"].dtype) == TD and str(messages["rfnm_ns"].dtype) == TD
    assert (messages["rfnm_ns"] > messages["offered_ns"]).all()
    assert str(folder.tables["occupancy"]["t_ns"].dtype) == TD
    assert folder.tables["e2e"].empty and r.tables["e2e"].empty  # a record with no rows


def test_the_loaders_need_no_compiled_extension(tmp_path):
    """Issue 75 §8: with only the package's Python files (no ``_nmc`` module), ``import nmc``
    works, every loader works, and what needs the simulator says so in one line."""
    src = tmp_path / "src"
    shutil.copytree(
        Path(nmc.__file__).parent,
        src / "nmc",
        ignore=shutil.ignore_patterns("_nmc*.so", "_nmc*.pyd", "__pycache__"),
    )
    folder = tmp_path / "pump"
    (folder / "p1").mkdir(parents=True)
    (folder / "p2").mkdir()
    for i, d in enumerate(("p1", "p2")):
        (folder / d / "summary.json").write_text(json.dumps({"tool": "nmc pump", "run_seconds": 1.0 + i}))
        (folder / d / "messages.csv").write_text("seq,bytes,rtt_ns\n0,1008,1500000\n")
    script = f"""
import sys
sys.path.insert(0, {str(src)!r})
import nmc
assert isinstance(nmc._nmc, nmc._NoExtension), "the compiled module was found"
f = nmc.load_folder({str(folder)!r})
assert f.kind == "nmc pump -P" and list(f.parts) == ["p1", "p2"], f
assert str(f.parts["p2"].tables["messages"]["rtt_ns"].dtype) == "timedelta64[ns]"
try:
    nmc.run("md1", seed=1)
except nmc.NmcError as e:
    print("refused:", e)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("refused: nmc's compiled extension is not installed"), out.stdout
    assert len(out.stdout.strip().splitlines()) == 1
