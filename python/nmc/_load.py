"""Reading what nmc writes, typed: the instruments' ``-J`` documents, their ``--out`` folders and
CSV records, a run's folder and a sweep's folder.

The unit rule
-------------

nmc's outputs name every quantity's unit in its name (docs/src/reference/outputs.md): a JSON key
or a CSV column ends in its unit. The loaders convert by that ending and by nothing else:

=====================================  ===================================================
name ends in                           becomes
=====================================  ===================================================
``_unix_s``                            a time: seconds since 1970-01-01 UTC, as a tz-aware
                                       UTC ``pd.Timestamp`` (``datetime64[ns, UTC]``)
``_s``, ``_ms``, ``_us``, ``_ns``      a duration (or a time since the run's start) in
                                       seconds, milli-, micro- or nanoseconds, as a
                                       ``pd.Timedelta`` (``timedelta64[ns]``)
``_per_s`` (``_per_ms`` ...)           a rate (``throughput_bit_per_s``, ``bits_per_s``):
                                       left a number
anything else                          left as it is: rates in bit/s, sizes in bytes or
                                       bits, counts and ratios stay numbers
=====================================  ===================================================

A null (JSON) or empty cell (CSV) of a duration or time is ``NaT`` in a table and ``None`` in a
dict; a value that is not a number (a string) is left as it is. Values are rounded to the
nearest nanosecond; a Unix time read from a JSON float is as precise as the float (about a
quarter of a microsecond today). Names are kept as nmc writes them (``rtt_ns`` holds a
``Timedelta``), so the schemas and the outputs page still describe every key and column; only
the type changes. Columns of whole numbers with empty cells are pandas' nullable ``Int64``.

Swept values (``nmc.sweep``, a sweep's ``results.csv`` and ``summary.csv``) are the values
as the sweep file wrote them (``"1min"``, ``4``, ``"30kbit/s"``); a column of them is typed as
a whole: every value a duration as scenario files write it (``80.64ms``, ``1min``, ``2h``) ->
``timedelta64[ns]``; every value a whole number -> ``int64``; every value a number ->
``float64``; every value ``true`` or ``false`` -> ``bool``; anything else (rates and sizes
with their units, names, lists) stays text. Rates and sizes stay as written because the swept
column is named by the scenario key (``network.topology.capacity``), the same key ``set=``
takes: a number in bit/s would need the unit in the column's name, and the name would no
longer be the key; pandas has no type that carries a rate or a size with its unit.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Union

import numpy as np
import pandas as pd

#: The schema of the instruments' ``-J`` documents this package reads.
SCHEMA = "nmc-instrument/2"

#: Each instrument's tables: the arrays of records its ``end`` holds (``--bidir``'s, the pump's
#: and the stream's, are under ``forward.`` and ``reverse.``). Every one is in ``Measurement.tables``, empty when
#: the document has none.
_TABLES: dict[str, tuple[str, ...]] = {
    "nmc echo probe": ("intervals",),
    "nmc pump": ("intervals", "autocorrelation"),
    "nmc stream": ("tests", "intervals"),
    "nmc cost": ("transfers",),
}

_UNITS = {"time": "s", "rate": "bit/s", "size": "byte"}
_ENVELOPE = ("schema", "tool", "version", "units", "target", "start_unix_s", "stopped_early", "end")

_SCALE = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
_RATE = re.compile(r"_per_(?:s|ms|us|ns)$")
_UNIT = re.compile(r"_(?P<unix>unix_)?(?P<unit>s|ms|us|ns)$")
_NAT = np.iinfo(np.int64).min

#: What can be loaded: a path, a JSON or CSV text, or an already parsed document.
Source = Union[str, bytes, "os.PathLike[str]", Mapping[str, Any]]


# --- the unit rule --------------------------------------------------------------------------


def _unit(name: str) -> tuple[bool, int] | None:
    """(is a time, nanoseconds per unit) for a name that ends in a unit of time; None otherwise."""
    if _RATE.search(name):
        return None
    m = _UNIT.search(name)
    if m is None:
        return None
    return m.group("unix") is not None, _SCALE[m.group("unit")]


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _scalar(name: str, v: Any) -> Any:
    """One value under ``name``, by the unit rule."""
    u = _unit(name)
    if u is None or not _is_number(v) or (isinstance(v, float) and not math.isfinite(v)):
        return v
    is_time, scale = u
    if isinstance(v, int):
        ns = v * scale
    else:
        whole = math.floor(v)  # apart, so that a Unix time keeps its nanoseconds
        ns = int(whole) * scale + round((v - whole) * scale)
    return pd.Timestamp(ns, unit="ns", tz="UTC") if is_time else pd.Timedelta(ns, unit="ns")


def _typed_value(name: str, v: Any) -> Any:
    """A JSON value under ``name``, converted by the rule all the way down (a dict's values by
    their own keys; a list's items by the list's name)."""
    if isinstance(v, dict):
        return {k: _typed_value(k, x) for k, x in v.items()}
    if isinstance(v, list):
        return [_typed_value(name, x) for x in v]
    return _scalar(name, v)


def _convert(name: str, s: pd.Series) -> pd.Series:
    """A column by the unit rule (a column that is not numbers is returned as it is)."""
    u = _unit(name)
    if u is None:
        return s
    if s.dtype == object and s.isna().all():
        s = s.astype("float64")  # a column of nothing but empty cells: NaT
    if not (pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype)):
        return s
    is_time, scale = u
    missing = s.isna().to_numpy().copy()
    if pd.api.types.is_integer_dtype(s.dtype):
        ns = s.to_numpy(dtype="int64", na_value=0) * np.int64(scale)
    else:
        x = s.to_numpy(dtype="float64", na_value=np.nan)
        missing |= ~np.isfinite(x)
        x = np.where(missing, 0.0, x)
        whole = np.floor(x)  # apart, so that a Unix time keeps its nanoseconds
        ns = whole.astype("int64") * np.int64(scale) + np.rint((x - whole) * scale).astype("int64")
    ns[missing] = _NAT
    if is_time:
        out = pd.Series(ns.view("datetime64[ns]"), index=s.index, name=s.name).dt.tz_localize("UTC")
    else:
        out = pd.Series(ns.view("timedelta64[ns]"), index=s.index, name=s.name)
    return out


def typed(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` with its columns converted by the unit rule (module ``nmc._load``):
    ``_unix_s`` -> UTC timestamps; ``_s``, ``_ms``, ``_us``, ``_ns`` -> timedeltas (but
    ``_per_s`` is a rate); every other column as it is. Names are kept.

    >>> r = nmc.run("md1", seed=1, record=["messages"])      # doctest: +SKIP
    >>> nmc.typed(r.tables["messages"])["rfnm_ns"]           # doctest: +SKIP
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"typed: expected a pandas DataFrame, not {type(df).__name__}")
    out = df.copy()
    for c in out.columns:
        if isinstance(c, str):
            out[c] = _convert(c, out[c])
    return out


def _column(name: str, values: list[Any]) -> pd.Series:
    """A table's column from JSON values: by the unit rule; whole numbers with nulls as
    ``Int64``, true/false with nulls as ``boolean``; else as pandas reads the values."""
    present = [v for v in values if v is not None]
    if _unit(name) is not None and all(_is_number(v) for v in present):
        whole = all(isinstance(v, int) for v in present)  # exact, as Int64
        return _convert(name, pd.Series(values, dtype="Int64") if whole and present else
                        pd.Series([np.nan if v is None else v for v in values], dtype="float64"))
    if present and all(isinstance(v, bool) for v in present):
        return pd.Series(values, dtype="bool" if len(present) == len(values) else "boolean")
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pd.Series(values, dtype="int64" if len(present) == len(values) else "Int64")
    if present and all(_is_number(v) for v in present):
        return pd.Series([np.nan if v is None else v for v in values], dtype="float64")
    return pd.Series([_typed_value(name, v) for v in values], dtype=object)


def _flatten(row: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"received": {"buffers": 3}}`` as ``{"received.buffers": 3}`` (lists stay values)."""
    out: dict[str, Any] = {}
    for k, v in row.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, f"{key}."))
        else:
            out[key] = v
    return out


def _frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """A DataFrame of JSON records: nested objects flattened to ``a.b`` columns, every column
    typed (``_column``); columns in first-seen order, a missing key a null."""
    flat = [_flatten(r) for r in rows]
    names: dict[str, None] = {}
    for r in flat:
        names.update(dict.fromkeys(r))
    return pd.DataFrame(
        {n: _column(n, [r.get(n) for r in flat]) for n in names}, index=pd.RangeIndex(len(flat))
    )


def _is_records(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def _split(obj: Mapping[str, Any], known: Sequence[str], prefix: str = "") -> tuple[dict[str, Any], dict[str, pd.DataFrame]]:
    """``obj`` typed by the rule, with every array of records (and every ``known`` path, even
    when empty) taken out as a table named by its dotted path."""
    rest: dict[str, Any] = {}
    tables: dict[str, pd.DataFrame] = {}
    for k, v in obj.items():
        path = f"{prefix}{k}"
        if _is_records(v) or (isinstance(v, list) and not v and path in known):
            tables[path] = _frame(v)
        elif isinstance(v, dict):
            rest[k], inner = _split(v, known, f"{path}.")
            tables.update(inner)
        else:
            rest[k] = _typed_value(k, v)
    return rest, tables


# --- -J documents ---------------------------------------------------------------------------


@dataclass
class Measurement:
    """One ``-J`` document of ``nmc echo probe``, ``nmc pump``, ``nmc stream`` or ``nmc cost``
    (schema ``nmc-instrument/2``), typed by the unit rule (``nmc._load``).

    Every array of records under the document's ``end`` is a DataFrame in ``tables``, by its
    path (``intervals``; the pump's ``autocorrelation``, with ``--bidir`` under ``forward.`` and
    ``reverse.``; the stream's ``tests``, one row per test, RFC 508's gap table; the cost's
    ``transfers``); the rest of ``end`` is a dict. A document of a failed run loads too:
    ``error`` holds its one line, and ``end`` is None when nothing was measured.
    """

    #: ``"nmc echo probe"``, ``"nmc pump"``, ``"nmc stream"`` or ``"nmc cost"``.
    tool: str
    #: nmc's version that wrote the document.
    version: str
    #: The server's address as given; None when the command line itself was refused.
    target: str | None
    #: When the run started (``start_unix_s``), UTC; None when nothing started.
    start: pd.Timestamp | None
    #: The user (a signal) or the path ended the run before its end; what was measured is kept.
    stopped_early: bool
    #: The failure's one line; None for a run that did not fail.
    error: str | None
    #: How the run was asked for (``duration_s`` as a Timedelta, ...); empty when the command
    #: line was refused.
    parameters: dict[str, Any]
    #: The tool's measures without its tables (``end["rtt"]["mean_s"]`` a Timedelta); None
    #: when nothing was measured.
    end: dict[str, Any] | None
    #: The arrays of records of ``end``, one DataFrame each, by path; each of the tool's
    #: tables is there, empty when the document has none.
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: The document as read (JSON types, seconds as numbers).
    document: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        """The run did not fail (no ``error``)."""
        return self.error is None

    def __repr__(self) -> str:
        tables = {k: len(v) for k, v in self.tables.items()}
        state = f"error={self.error!r}" if self.error else "ok"
        return f"<nmc.Measurement {self.tool!r} target={self.target!r} {state} tables={tables}>"


def _refuse(label: str, why: str) -> ValueError:
    return ValueError(f"{label}: {why}")


def _document_of(source: Source) -> tuple[str, Any]:
    """(label for messages, parsed JSON) of a path, a JSON text, bytes or a parsed dict."""
    if isinstance(source, Mapping):
        return "<document>", dict(source)
    if isinstance(source, bytes):
        label, text = "<document>", source.decode("utf-8", errors="replace")
    elif isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        label, text = "<document>", source
    elif isinstance(source, (str, os.PathLike)):
        path = Path(source)
        label, text = str(path), _read_text(path)
    else:
        raise TypeError(
            f"expected a path, a JSON text or a dict, not {type(source).__name__}"
        )
    try:
        return label, json.loads(text)
    except json.JSONDecodeError as e:
        raise _refuse(label, f"not JSON ({e.msg} at line {e.lineno}, column {e.colno})") from None


def _read_text(path: Path) -> str:
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or folder")
    if path.is_dir():
        raise IsADirectoryError(f"{path}: a folder (nmc.load_folder reads an output folder)")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise _refuse(str(path), f"not UTF-8 text ({e.reason})") from None


def load_document(source: Source) -> Measurement:
    """An instrument's ``-J`` document (schema ``nmc-instrument/2``), typed.

    ``source`` is a path to a file holding the document, the JSON text itself (stdout of
    ``nmc pump ... -J``), its bytes, or the parsed dict. Durations (``_s`` keys) become
    ``pd.Timedelta``, ``start_unix_s`` a UTC ``pd.Timestamp`` (``.start``), and every array of
    records under ``end`` a DataFrame in ``.tables``, by the unit rule (module ``nmc._load``).

    Raises ``ValueError`` in one line for what is not such a document: not JSON, another
    schema (``nmc-instrument/1``, written by an older nmc), an unknown tool, a missing key.

    >>> m = nmc.load_document(subprocess.run(["nmc", "echo", "probe", "127.0.0.1", "-J"],
    ...                                      capture_output=True, text=True).stdout)  # doctest: +SKIP
    >>> m.end["rtt"]["mean_s"], m.start                                             # doctest: +SKIP
    """
    label, doc = _document_of(source)
    if not isinstance(doc, dict):
        raise _refuse(label, f"not an nmc instrument document (a JSON {type(doc).__name__}, not an object)")
    schema = doc.get("schema")
    if schema is None:
        hint = " (a summary.json? nmc.load_folder reads its folder)" if "tool" in doc or "config_hash" in doc else ""
        raise _refuse(label, f'not an nmc instrument document: no "schema" key{hint}')
    if schema != SCHEMA:
        older = " (written by an older nmc: run it again with this one)" if str(schema).startswith("nmc-instrument/") else ""
        raise _refuse(label, f"schema {schema!r}: this package reads {SCHEMA!r} documents{older}")
    missing = [k for k in _ENVELOPE if k not in doc]
    if missing:
        raise _refuse(label, f"not a whole {SCHEMA} document: no {', '.join(repr(k) for k in missing)}")
    tool = doc["tool"]
    if tool not in _TABLES:
        raise _refuse(label, f"unknown tool {tool!r} (expected one of {', '.join(_TABLES)})")
    if doc["units"] != _UNITS:
        raise _refuse(label, f"units {doc['units']!r}, not {_UNITS!r}")
    end, params = doc["end"], doc.get("parameters", {})
    if end is not None and not isinstance(end, dict):
        raise _refuse(label, f'"end" is a {type(end).__name__}, not an object or null')
    if not isinstance(params, dict):
        raise _refuse(label, f'"parameters" is a {type(params).__name__}, not an object')
    known = list(_TABLES[tool])
    if isinstance(end, dict) and end.get("bidir") is True:
        known = [f"{d}.{t}" for d in ("forward", "reverse") for t in known]
    tables: dict[str, pd.DataFrame] = {}
    typed_end: dict[str, Any] | None = None
    if end is not None:
        typed_end, tables = _split(end, known)
    for t in known:
        tables.setdefault(t, pd.DataFrame(index=pd.RangeIndex(0)))
    start = _scalar("start_unix_s", doc["start_unix_s"])
    error = doc.get("error")
    return Measurement(
        tool=tool,
        version=str(doc["version"]),
        target=doc["target"],
        start=start if isinstance(start, pd.Timestamp) else None,
        stopped_early=bool(doc["stopped_early"]),
        error=str(error) if error is not None else None,
        parameters=_typed_value("parameters", params),
        end=typed_end,
        tables=tables,
        document=doc,
    )


# --- CSV records ----------------------------------------------------------------------------


def _csv_source(source: str | bytes | os.PathLike[str]) -> tuple[str, Any]:
    """(label, what pd.read_csv reads) of a path or a CSV text."""
    if isinstance(source, bytes):
        return "<csv>", io.StringIO(source.decode("utf-8", errors="replace"))
    if isinstance(source, str) and "\n" in source:
        return "<csv>", io.StringIO(source)
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            raise FileNotFoundError(f"{path}: no such file or folder")
        if path.is_dir():
            raise IsADirectoryError(f"{path}: a folder (nmc.load_folder reads an output folder)")
        return str(path), path
    raise TypeError(f"expected a path or a CSV text, not {type(source).__name__}")


#: pandas 2 reads floats to within an ulp unless asked; pandas 3 reads them exactly and
#: deprecates the argument.
_ROUND_TRIP: dict[str, Any] = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}


def _read_csv(label: str, src: Any, dtype: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """``pd.read_csv``, numbers read back exactly as nmc wrote them (round trip, as pandas 3
    does by default and pandas 2 does not)."""
    try:
        return pd.read_csv(src, dtype=dtype, **_ROUND_TRIP)
    except pd.errors.EmptyDataError:
        return pd.DataFrame(index=pd.RangeIndex(0))  # a record with no rows is an empty file
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        raise _refuse(label, f"not CSV ({str(e).strip().splitlines()[0]})") from None


def load_csv(source: str | bytes | os.PathLike[str]) -> pd.DataFrame:
    """A CSV record nmc writes, typed by its columns' unit suffixes (module ``nmc._load``).

    The echo probe's ``trace.csv`` (``send_time_ns``, ``delay_ns``, ``rtt_ns``,
    ``server_turnaround_ns``: timedeltas since the run's start or durations; an empty cell, a
    lost volley, is NaT), the pump's ``messages.csv`` (``sent_ns``, ``rfnm_ns``, ``rtt_ns``; with
    ``-R`` ``first_ns``, ``whole_ns``), the stream's ``buffers.csv`` (``filled_s``,
    ``completed_s``, ``gap_ms``), the file of ``nmc cost --out`` (``clock_s``, the CPU seconds;
    ``bits_per_s`` is a rate and stays a number) and the records of ``nmc run``
    (``messages.csv``'s ``offered_ns`` ... ``rfnm_ns``, and the others). ``source`` is a path or
    the CSV text. Whole nanoseconds (``_ns``) are read exactly, empty cells and all. An empty
    file (a record with no rows: nmc writes no header then) is an empty DataFrame.
    """
    label, src = _csv_source(source)
    # `_ns` columns as whole numbers with room for empty cells: exact past 2^53 ns.
    first = src.readline() if isinstance(src, io.StringIO) else _first_line(src)
    if isinstance(src, io.StringIO):
        src.seek(0)
    header = next(csv.reader([first]), [])
    ns = {c: "Int64" for c in header if _unit(c) == (False, 1)}
    try:
        df = pd.read_csv(src, dtype=ns or None, **_ROUND_TRIP)
    except (ValueError, TypeError):
        # Not CSV (the one-line error below), or an `_ns` column that is not whole numbers.
        if isinstance(src, io.StringIO):
            src.seek(0)
        df = _read_csv(label, src)
    return typed(df)


def _first_line(path: Path) -> str:
    try:
        with path.open(encoding="utf-8", newline="") as f:
            return f.readline()
    except UnicodeDecodeError as e:
        raise _refuse(str(path), f"not UTF-8 text ({e.reason})") from None


# --- swept values ---------------------------------------------------------------------------

_DURATION = re.compile(r"^\s*(?P<num>\d+(?:\.\d*)?|\.\d+)\s*(?P<unit>ns|us|µs|ms|s|sec|min|h)\s*$")
_DURATION_NS = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000,
                "sec": 1_000_000_000, "min": 60_000_000_000, "h": 3_600_000_000_000}
_INT = re.compile(r"^[+-]?\d+$")


def _duration_ns(text: str) -> int | None:
    """Nanoseconds of a duration as scenario files write it (``80.64ms``, ``1min``); None for
    anything else. The same units as nmc's parser (``nmc_sim::units``), exact decimals."""
    m = _DURATION.match(text)
    if m is None:
        return None
    return int((Decimal(m.group("num")) * _DURATION_NS[m.group("unit")]).to_integral_value())


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _swept(s: pd.Series) -> pd.Series:
    """A swept key's column (text, absent values NaN) typed as a whole (module ``nmc._load``).
    Each distinct value is parsed once: a sweep's table repeats few values over many rows."""
    present = s.notna()
    distinct = list(pd.unique(s[present]))
    if not distinct:
        return s
    nullable = {"int64": "Int64", "bool": "boolean"}

    def mapped(parsed: list[Any], dtype: str) -> pd.Series:
        out = s.map(dict(zip(distinct, parsed, strict=True)))  # text in, as read
        return out.astype(dtype if present.all() else nullable.get(dtype, dtype))

    durations = [_duration_ns(v) for v in distinct]
    if all(d is not None for d in durations):
        ns = mapped(durations, "int64").to_numpy(dtype="int64", na_value=_NAT)
        return pd.Series(ns.view("timedelta64[ns]"), index=s.index, name=s.name)
    if all(v in ("true", "false") for v in distinct):
        return mapped([v == "true" for v in distinct], "bool")
    if all(_INT.match(v) for v in distinct):
        return mapped([int(v) for v in distinct], "int64")
    floats = [_float(v) for v in distinct]
    if all(f is not None for f in floats):
        return mapped(floats, "float64")
    return s


def _sweep_table(label: str, src: Any, keys: Sequence[str]) -> pd.DataFrame:
    """A sweep's ``results`` or ``summary`` CSV (a path or a text stream): the swept keys'
    columns typed as wholes (module ``nmc._load``), ``config_hash`` and ``metric`` text, the
    rest as pandas reads it."""
    df = _read_csv(label, src, {**{k: str for k in keys}, "config_hash": str, "metric": str})
    for k in keys:
        if k in df.columns:
            df[k] = _swept(df[k])
    return df


# --- output folders -------------------------------------------------------------------------


@dataclass
class OutputFolder:
    """An output folder of nmc, typed: an instrument's ``--out`` (``nmc echo probe``, ``nmc
    pump``, ``nmc stream``), a run's (``nmc run --out``, ``nmc.run(out=...)``) or a sweep's
    (``nmc sweep --out``, ``nmc.sweep(out=...)``)."""

    #: The folder.
    path: Path
    #: What wrote it: the ``tool`` of its ``summary.json`` (``"nmc echo probe"``, ``"nmc
    #: pump"``, ``"nmc stream"``), ``"nmc run"`` or ``"nmc sweep"``; ``"nmc pump --bidir"``
    #: (``"nmc stream --bidir"``) for a folder of ``forward/`` and ``reverse/``.
    kind: str
    #: ``"nmc pump -P"`` for a folder of ``p1/``, ``p2/``, ...
    #: ``summary.json`` (a sweep's ``sweep.json``), typed by the unit rule (a run's
    #: ``metrics["delay.mean_ms"]`` is a Timedelta); an instrument's arrays of records are in
    #: ``tables`` instead.
    summary: dict[str, Any]
    #: Every CSV of the folder by name (``trace``, ``messages``, ``buffers``; a sweep's
    #: ``results`` and ``summary``, as ``nmc.sweep`` returns them), and an instrument's
    #: ``summary.json`` arrays of records (the stream's ``runs``), typed.
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: Sub-folders that are outputs themselves: ``nmc pump --bidir``'s ``forward`` and
    #: ``reverse``, ``nmc pump -P``'s ``p1``, ``p2``, ...
    parts: dict[str, OutputFolder] = field(default_factory=dict)

    def __repr__(self) -> str:
        tables = {k: len(v) for k, v in self.tables.items()}
        parts = f" parts={sorted(self.parts)}" if self.parts else ""
        return f"<nmc.OutputFolder {self.kind!r} {str(self.path)!r} tables={tables}{parts}>"


def _json_file(path: Path) -> dict[str, Any]:
    _, doc = _document_of(path)
    if not isinstance(doc, dict):
        raise _refuse(str(path), f"a JSON {type(doc).__name__}, not an object")
    return doc


#: A connection's folder of ``nmc pump -P``: ``p1``, ``p2``, ...
_CONNECTION = re.compile(r"p[1-9][0-9]*")


def load_folder(path: str | os.PathLike[str]) -> OutputFolder:
    """An output folder written with ``--out``, typed (the unit rule, module ``nmc._load``).

    ``summary.json`` with a ``tool`` (the echo probe's, the pump's, the stream's) or a
    ``config_hash`` (a run's), or ``sweep.json`` (a sweep's), names what wrote the folder; every
    ``*.csv`` in it is a table (``load_csv``; a sweep's ``results`` and ``summary`` with their
    swept values typed as ``nmc.sweep`` returns them). ``nmc pump --bidir``'s folder holds
    ``forward/`` and ``reverse/``, ``nmc pump -P N``'s ``p1/`` ... ``pN/``, each loaded into
    ``parts``, and ``nmc echo probe A B --out DIR``'s one folder per target (kind ``nmc echo probe
    (several targets)``, parts named as the folders). ``nmc rrul``'s folder loads as any tool's:
    its ``timeseries`` table and its summary. Pure Python: it needs no compiled extension.

    Raises ``ValueError`` in one line for a folder nmc did not write.
    """
    folder = Path(path)
    if not folder.exists():
        raise FileNotFoundError(f"{folder}: no such file or folder")
    if not folder.is_dir():
        raise NotADirectoryError(f"{folder}: not a folder (nmc.load reads a file)")
    sweep_json, summary_json = folder / "sweep.json", folder / "summary.json"
    if sweep_json.is_file():
        plan = _json_file(sweep_json)
        keys = plan.get("keys")
        if not isinstance(keys, list):
            raise _refuse(str(sweep_json), 'not a sweep\'s plan (no "keys" list)')
        sweep_tables = {
            name: _sweep_table(str(folder / f"{name}.csv"), folder / f"{name}.csv", keys)
            for name in ("results", "summary")
            if (folder / f"{name}.csv").is_file()
        }
        return OutputFolder(path=folder, kind="nmc sweep", summary=_typed_value("sweep", plan), tables=sweep_tables)
    parts = {
        d: load_folder(folder / d)
        for d in ("forward", "reverse")
        if (folder / d / "summary.json").is_file()
    }
    # nmc pump -P N: one folder per connection, p1/ ... pN/, in their order.
    connections = sorted(
        (d for d in folder.iterdir() if _CONNECTION.fullmatch(d.name) and (d / "summary.json").is_file()),
        key=lambda d: int(d.name[1:]),
    )
    if not summary_json.is_file():
        if parts:
            # The tool of its parts: "nmc pump --bidir" or "nmc stream --bidir".
            tool = next(iter(parts.values())).kind
            return OutputFolder(path=folder, kind=f"{tool} --bidir", summary={}, tables={}, parts=parts)
        if connections:
            parts = {d.name: load_folder(d) for d in connections}
            return OutputFolder(path=folder, kind="nmc pump -P", summary={}, tables={}, parts=parts)
        # nmc echo probe A B ... --out DIR: one folder per target, named after it.
        targets = sorted(d for d in folder.iterdir() if d.is_dir() and (d / "summary.json").is_file())
        if targets:
            parts = {d.name: load_folder(d) for d in targets}
            if all(p.kind == "nmc echo probe" for p in parts.values()):
                return OutputFolder(path=folder, kind="nmc echo probe (several targets)", summary={}, tables={}, parts=parts)
        raise _refuse(str(folder), "not an nmc output folder (no summary.json or sweep.json)")
    summary = _json_file(summary_json)
    tables: dict[str, pd.DataFrame] = {}
    if "tool" in summary:
        kind = str(summary["tool"])
        typed_summary, tables = _split(summary, ())
    elif "config_hash" in summary:
        kind = "nmc run"
        typed_summary = _typed_value("summary", summary)
    else:
        raise _refuse(str(summary_json), 'not an nmc summary (no "tool" or "config_hash")')
    for f in sorted(folder.glob("*.csv")):
        tables[f.stem] = load_csv(f)
    return OutputFolder(path=folder, kind=kind, summary=typed_summary, tables=tables, parts=parts)


# --- one entry ------------------------------------------------------------------------------


def load(source: Source) -> Measurement | OutputFolder | pd.DataFrame:
    """Whatever nmc wrote, typed by the unit rule (module ``nmc._load``): an output folder ->
    ``OutputFolder`` (``load_folder``); a ``.csv`` file or CSV text -> DataFrame
    (``load_csv``); a ``-J`` document (a path to it, its JSON text, or the parsed dict) ->
    ``Measurement`` (``load_document``).

    >>> m = nmc.load(stdout_of_nmc_pump_J)        # doctest: +SKIP
    >>> m.tables["intervals"]["rtt_mean_s"]       # doctest: +SKIP
    >>> out = nmc.load("out/pump/127.0.0.1")      # doctest: +SKIP
    >>> out.tables["messages"]["rtt_ns"].mean()   # doctest: +SKIP
    """
    if isinstance(source, (Mapping, bytes)):
        return load_document(source)
    if isinstance(source, str):
        text = source.lstrip()
        if text.startswith(("{", "[")):
            return load_document(source)
        if "\n" in source:
            return load_csv(source)
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"load: expected a path, a JSON or CSV text or a dict, not {type(source).__name__}")
    path = Path(source)
    if path.is_dir():
        return load_folder(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or folder")
    if path.suffix.lower() == ".csv":
        return load_csv(path)
    return load_document(path)
