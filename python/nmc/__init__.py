"""nmc from Python: the ARPANET Network Measurement Center experiments, rebuilt.

The simulator and instruments are nmc's Rust crates (through PyO3); this package hands their
results back as dicts and pandas DataFrames. The loaders (``load`` and the three below it) are
pure Python and work without the compiled extension, on any folder or document nmc wrote.

>>> import nmc
>>> r = nmc.run("md1", seed=1, set={"duration": "2min"})   # a built-in scenario
>>> r.metrics["delay.mean_ms"]                               # doctest: +SKIP
>>> df = nmc.sweep("md1", grid={"duration": ["1min", "2min"]}, seeds=range(1, 4))
>>> rows = nmc.reproduce(["golden-chain"], quick=True)
>>> m = nmc.load(stdout_of_nmc_pump_J)      # doctest: +SKIP  (an instrument's -J document)
>>> m.tables["intervals"]["rtt_mean_s"]    # doctest: +SKIP  (timedelta64[ns])

=================  ==========================================================================
``run``            one run of a scenario (a path, a TOML string or a built-in name)
``sweep``          a grid of overrides x seeds, on local threads or a Dask cluster; swept
                   durations come back as timedeltas, numbers as numbers
``reproduce``      the published experiments: the paper's value beside ours, one row each
``scenarios``      the built-in scenarios
``experiments``    the published experiments ``reproduce`` knows
``load``           whatever nmc wrote, typed: a ``-J`` document, a CSV record, an ``--out``
                   folder (dispatches to the three below)
``load_document``  an instrument's ``-J`` document (``nmc-instrument/2``) -> ``Measurement``
``load_csv``       ``trace.csv``, ``messages.csv``, ``buffers.csv``, ``nmc cost --out``, a
                   run's records -> DataFrame, columns typed by their unit suffix
``load_folder``    an ``--out`` folder (instrument, run or sweep) -> ``OutputFolder``
``typed``          any DataFrame's columns typed by their unit suffix (``nmc.run``'s tables)
``Measurement``    a ``-J`` document: parameters, ``end``, ``error``, ``tables`` of DataFrames
``OutputFolder``   a folder: ``summary`` (its summary.json), ``tables`` (its CSVs), ``parts``
``ScenarioError``  bad input (with ``file``, ``line``, ``column``, ``key``); a ``ValueError``
``NmcError``       anything else that failed
=================  ==========================================================================

Every run is deterministic: the same scenario, overrides and seed give the same numbers on
any machine, any number of threads and any executor. Simulating releases the GIL, and Ctrl-C
stops a run, a local sweep or ``reproduce``.

What the loaders return is typed by one rule, on names: a key or column ending in ``_unix_s``
is a UTC ``Timestamp``; one ending in ``_s``, ``_ms``, ``_us`` or ``_ns`` a ``Timedelta``
(``_per_s`` is a rate and stays a number); every other value stays as it is. The module
``nmc._load`` (``help(nmc._load)``) states the rule in full, and the rule for swept values.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import pandas as pd

from ._errors import NmcError, ScenarioError
from ._load import (
    Measurement,
    OutputFolder,
    load,
    load_csv,
    load_document,
    load_folder,
    typed,
)
from ._load import _sweep_table


class _NoExtension:
    """Stands for the compiled extension when it is not there (the source tree on
    ``PYTHONPATH``, a copy without the built module): the loaders are pure Python and work; what
    runs the simulator says, in one line, what is missing."""

    def __init__(self, why: str) -> None:
        self._why = why

    def __getattr__(self, name: str) -> Any:
        raise NmcError(
            f"nmc's compiled extension is not installed ({self._why}): nmc.load, load_folder, "
            "load_document and load_csv work without it; running the simulator needs it "
            "(pip install the nmc wheel, or `maturin develop` in python/)"
        )


try:
    from . import _nmc
except ImportError:
    _nmc = _NoExtension("no module nmc._nmc beside nmc/__init__.py")  # type: ignore[assignment]


def _version() -> str:
    try:
        return str(_nmc.version())
    except NmcError:
        from importlib import metadata

        try:
            return metadata.version("nmc")
        except metadata.PackageNotFoundError:
            return "unknown (no compiled extension)"


__version__: str = _version()

__all__ = [
    "Measurement",
    "NmcError",
    "OutputFolder",
    "Result",
    "ScenarioError",
    "experiments",
    "load",
    "load_csv",
    "load_document",
    "load_folder",
    "reproduce",
    "run",
    "scenarios",
    "sweep",
    "typed",
]

#: What names a scenario: a path to a TOML file, a TOML text, or a built-in scenario's name.
ScenarioLike = Union[str, "os.PathLike[str]"]


# --- scenarios -----------------------------------------------------------------------------


def scenarios() -> pd.DataFrame:
    """The built-in scenarios (what ``nmc scenarios`` lists): columns ``name``, ``description``."""
    return pd.DataFrame(_nmc.builtin_names(), columns=["name", "description"])


def _scenario(scenario: ScenarioLike) -> tuple[str, str]:
    """(label for messages, TOML text) of a path, a TOML text or a built-in scenario's name.

    As ``nmc run`` does, a file that exists wins over a built-in scenario of the same name.
    """
    if isinstance(scenario, os.PathLike):
        path = Path(scenario)
        return str(path), _read(path)
    if not isinstance(scenario, str):
        raise TypeError(
            f"scenario: expected a path, a TOML text or a built-in name, not {type(scenario).__name__}"
        )
    if "\n" in scenario or "=" in scenario:
        return "<string>", scenario
    path = Path(scenario)
    if path.is_file():
        return str(path), _read(path)
    text = _nmc.builtin(scenario)
    if text is not None:
        return f"{scenario} (built-in)", text
    raise ScenarioError(
        f"{scenario}: no such file and no built-in scenario of that name (nmc.scenarios() lists them)",
        file=scenario,
    )


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise ScenarioError(f"reading {path}: {e.strerror or e}", file=str(path)) from None
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{path}: not UTF-8 text ({e.reason})", file=str(path)) from None


def _toml(value: Any, key: str) -> str:
    """A Python value as a TOML value, as ``--set key=value`` reads it."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()  # numpy scalars
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        inner = ", ".join(f"{json.dumps(str(k))} = {_toml(v, key)}" for k, v in value.items())
        return "{ " + inner + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v, key) for v in value) + "]"
    raise ScenarioError(
        f"set: `{key}`: a {type(value).__name__} has no TOML form (use a number, string, bool, list or dict)",
        key=key,
    )


def _sets(overrides: Mapping[str, Any] | None) -> list[str]:
    """``{"network.hops": 4}`` as ``["network.hops=4"]``: the CLI's ``--set``, in order."""
    if overrides is None:
        return []
    if not isinstance(overrides, Mapping):
        raise TypeError("set: expected a dict of key -> value, e.g. {'network.hops': 4}")
    return [f"{k}={_toml(v, str(k))}" for k, v in overrides.items()]


# --- one run -------------------------------------------------------------------------------


@dataclass
class Result:
    """What one run gives: its metrics, its records as DataFrames, and its configuration."""

    #: The scenario's ``name``.
    scenario: str
    seed: int
    #: SHA-256 of the resolved configuration with its seed (as ``summary.json`` has it).
    config_hash: str
    #: Every metric of the run (those ``summary.json`` holds), exact.
    metrics: dict[str, float]
    #: The resolved configuration (after overrides), as ``summary.json`` has it.
    config: dict[str, Any]
    #: The records the scenario asked for (its ``record`` list), one DataFrame each, by name
    #: (``messages``, ``lines``, ``occupancy``, ...), as pandas reads them (``offered_ns`` a
    #: number; ``nmc.typed(table)`` makes the unit-suffixed columns timedeltas); a record with
    #: no rows is an empty DataFrame.
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: The output folder, when ``out=`` was given (else the files were in a temporary folder
    #: and are gone).
    out: Path | None = None
    #: Files written in ``out`` (empty without ``out=``).
    files: list[Path] = field(default_factory=list)
    #: What the run wants said, e.g. why it stopped early.
    notes: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return (
            f"<nmc.Result {self.scenario!r} seed={self.seed} metrics={len(self.metrics)} "
            f"tables={sorted(self.tables)}>"
        )


def run(
    scenario: ScenarioLike,
    seed: int | None = None,
    set: Mapping[str, Any] | None = None,  # noqa: A002 - the CLI's word
    *,
    record: Sequence[str] | None = None,
    out: str | os.PathLike[str] | None = None,
) -> Result:
    """Runs one scenario, as ``nmc run`` does.

    ``scenario`` is a path, a TOML text or a built-in scenario's name (``nmc.scenarios()``).
    ``seed`` overrides the scenario's (a scenario without one needs it). ``set`` overrides any
    key, as ``--set`` does: ``{"network.hops": 4, "duration": "10min"}``. ``record`` replaces
    the scenario's ``record`` list (e.g. ``["messages", "lines"]``); each record comes back as a
    DataFrame in ``.tables``. ``out`` keeps the outputs (``summary.json``, CSV, SVG plots) in
    that folder; without it they are read and removed.

    Raises ``ScenarioError`` for bad input (nothing runs) and ``NmcError`` for a failed run.
    """
    origin, text = _scenario(scenario)
    sets = _sets(set)
    if record is not None:
        if isinstance(record, str):
            raise TypeError("record: a list of names, e.g. ['messages']")
        sets.append(f"record={_toml(list(record), 'record')}")
    if seed is not None:
        seed = _seed(seed, "seed")
    keep = out is not None
    folder = Path(out) if keep else Path(tempfile.mkdtemp(prefix="nmc-run-"))
    try:
        done = json.loads(_nmc.run(origin, text, str(folder), seed, sets))
        tables = {
            Path(f).stem: _read_record(f)
            for f in sorted(done["files"])
            if f.endswith(".csv") and Path(f).parent == folder
        }
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
    return Result(
        scenario=done["scenario"],
        seed=done["seed"],
        config_hash=done["config_hash"],
        metrics={k: float(v) for k, v in done["metrics"].items()},
        config=done["config"],
        tables=tables,
        out=folder if keep else None,
        files=[Path(f) for f in done["files"]] if keep else [],
        notes=done["notes"],
    )


def _read_record(path: str) -> pd.DataFrame:
    """A record's CSV as pandas reads it; a record with no rows (an empty file) is an empty
    DataFrame, not an error."""
    try:
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:
        return pd.DataFrame()


def _seed(seed: Any, what: str) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int):
        if hasattr(seed, "item"):
            seed = seed.item()
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ScenarioError(f"{what}: expected an integer, not {seed!r}", key="seed")
    if not 0 <= seed <= 2**63 - 1:
        raise ScenarioError(f"{what} {seed}: a seed is in 0..=2^63-1", key="seed")
    return seed


# --- sweeps --------------------------------------------------------------------------------


def _sweep_text(
    grid: Mapping[str, Sequence[Any]] | None,
    seeds: range,
    fixed: Mapping[str, Any] | None,
    cases: Sequence[Mapping[str, Any]] | None,
    metrics: Sequence[str] | None,
) -> str:
    """The sweep file ``nmc sweep`` would read for these arguments."""
    lines = ['base = "<python>"', f"seeds = {{ from = {seeds.start}, count = {len(seeds)} }}"]
    if metrics is not None:
        if isinstance(metrics, str):
            raise TypeError("metrics: a list of names, e.g. ['delay.mean_ms']")
        lines.append(f"metrics = {_toml(list(metrics), 'metrics')}")
    if fixed:
        lines.append("[set]")
        lines += [f"{json.dumps(str(k))} = {_toml(v, str(k))}" for k, v in fixed.items()]
    if grid:
        lines.append("[grid]")
        for k, values in grid.items():
            if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
                raise ScenarioError(
                    f"grid: `{k}`: a list of values, e.g. [4, 8] (got {values!r})", key=str(k)
                )
            lines.append(f"{json.dumps(str(k))} = {_toml(list(values), str(k))}")
    for case in cases or []:
        if not isinstance(case, Mapping):
            raise TypeError("cases: a list of dicts of key -> value")
        lines.append("[[cases]]")
        lines += [f"{json.dumps(str(k))} = {_toml(v, str(k))}" for k, v in case.items()]
    return "\n".join(lines) + "\n"


def _seed_range(seeds: int | range | Iterable[int]) -> range:
    if isinstance(seeds, int) and not isinstance(seeds, bool):
        if seeds < 1:
            raise ScenarioError(f"seeds={seeds}: at least one seed", key="seeds")
        return range(1, seeds + 1)
    if isinstance(seeds, range):
        r = seeds
    else:
        xs = [_seed(s, "seeds") for s in seeds]
        if not xs or xs != list(range(xs[0], xs[0] + len(xs))):
            raise ScenarioError(
                f"seeds: consecutive integers, e.g. range(1, 21) (got {xs[:5]}{'...' if len(xs) > 5 else ''})",
                key="seeds",
            )
        r = range(xs[0], xs[0] + len(xs))
    if r.step != 1 or len(r) == 0:
        raise ScenarioError(f"seeds={r}: a non-empty range with step 1", key="seeds")
    _seed(r.start, "seeds")
    _seed(r[-1], "seeds")
    return r


def sweep(
    base: ScenarioLike,
    grid: Mapping[str, Sequence[Any]] | None = None,
    seeds: int | range | Iterable[int] = range(1, 4),
    *,
    set: Mapping[str, Any] | None = None,  # noqa: A002 - the CLI's word
    cases: Sequence[Mapping[str, Any]] | None = None,
    metrics: Sequence[str] | None = None,
    executor: Any = "local",
    jobs: int | None = None,
    chunk_size: int | None = None,
    retries: int = 2,
    progress: Callable[[int, int], None] | None = None,
    out: str | os.PathLike[str] | None = None,
) -> pd.DataFrame:
    """Runs every configuration (cases x grid points) with every seed; one tidy DataFrame.

    The columns are those of ``nmc sweep``'s ``results`` table: every swept key, ``seed``,
    ``config_hash``, ``metric``, ``value`` — one row per run x metric, in plan order (cases as
    listed, then grid points with the grid's keys in alphabetical order, the last varying
    fastest; seeds ascending). The values are the same whatever the executor.

    A swept key's column is typed as a whole: durations (``"80.64ms"``, ``"1min"``) as
    ``timedelta64[ns]``, whole numbers as ``int64``, numbers as ``float64``, ``true``/``false``
    as ``bool`` (nullable ``Int64``/``boolean`` where a case leaves the key out); rates, sizes
    and anything else stay the text the sweep was given (``"30kbit/s"``), since the column is
    named by the key ``set=`` takes and a number would need its unit in the name.
    ``nmc.load_folder`` reads a sweep's folder back with the same types.

    ``base``: a path, TOML text or built-in name. ``grid``: key -> list of values, every
    combination runs. ``seeds``: a range (step 1), a count n (seeds 1..n) or consecutive
    integers. ``set``: overrides for every run. ``cases``: explicit override sets, each
    combined with every grid point. ``metrics``: keep only these (default: all).

    ``executor``: ``"local"`` runs on this machine's cores (``jobs`` threads, default all); a
    ``dask.distributed.Client`` (or any ``concurrent.futures.Executor``) runs chunks of
    ``chunk_size`` runs as tasks on its workers — a LocalCluster, SSH, Kubernetes, or
    Slurm/PBS/SGE through dask-jobqueue. Dask re-runs the tasks of a lost worker, and failed
    tasks up to ``retries`` times; results are kept by config hash, so none is lost or doubled.

    Every run is resolved before any runs. A run that does not resolve or fails is not a failed
    sweep: it has no rows, and is listed in ``df.attrs["errors"]`` (dicts with ``index``,
    ``config``, ``seed``, ``sets``, ``message``) with a warning. ``progress(done, total)`` is
    called as runs finish (for Dask, as tasks finish).

    ``out`` keeps the sweep in a folder as ``nmc sweep --out`` does: ``sweep.json``, one file
    per finished run in ``runs/`` (written as each chunk of runs comes back), and the
    ``results`` and ``summary`` tables (CSV and Parquet; the summary has mean, sd and the 95 %
    Student-t interval across seeds). Runs already in the folder are not run again: an
    interrupted sweep resumes where it stopped, and the table is the same as a straight run's.
    The folder must be new, empty or a sweep's own (it holds ``sweep.json``): a folder of other
    files is refused, never mixed into.
    """
    origin, text = _scenario(base)
    seed_range = _seed_range(seeds)
    sweep_text = _sweep_text(grid, seed_range, set, cases, metrics)
    planned = json.loads(_nmc.plan("<nmc.sweep>", sweep_text, origin, text, jobs))
    plan = planned["plan"]
    runs, configs = plan["runs"], plan["configs"]

    def error(index: int, message: str) -> dict[str, Any]:
        run_ = runs[index]
        sets = configs[run_["config"]]["sets"]
        return {"index": index, "config": run_["config"], "seed": run_["seed"], "sets": sets, "message": message}

    # By plan index: runs that did not resolve (empty config hash), then runs that failed.
    errors = {e["index"]: error(e["index"], e["message"]) for e in planned["errors"]}
    if errors and len(errors) == len(runs):
        # No run resolves: a mistake in the sweep itself (a misspelt key), not runs that failed.
        first = planned["errors"][0]["message"]
        m = re.search(r"--set ([^=\s]+)=", first)
        raise ScenarioError(first, file="<nmc.sweep>", key=m.group(1) if m else None)
    # Each distinct configuration runs once (runs sharing a config hash are one run).
    by_hash: dict[str, dict[str, Any]] = {}
    for r in runs:
        if r["config_hash"]:
            by_hash.setdefault(
                r["config_hash"],
                {"index": r["index"], "config_hash": r["config_hash"], "seed": r["seed"], "sets": configs[r["config"]]["sets"]},
            )
    todo = list(by_hash.values())
    results: dict[str, dict[str, Any]] = {}
    store: Callable[[list[dict[str, Any]]], None] | None = None
    if out is not None:
        folder = str(Path(out))
        for r in json.loads(_nmc.sweep_open(folder, json.dumps(plan))):
            results[r["config_hash"]] = r
        todo = [t for t in todo if t["config_hash"] not in results]

        def store(chunk: list[dict[str, Any]]) -> None:
            good = [r["result"] for r in chunk if r["result"] is not None]
            if good:
                _nmc.sweep_store(folder, json.dumps(good))

        if chunk_size is None and isinstance(executor, str):
            # Stored chunk by chunk, so that an interrupted sweep keeps what it did.
            chunk_size = max(1, math.ceil(len(todo) / 20))
    ran = _execute(
        executor, planned["base_origin"], planned["base_text"], todo, jobs, chunk_size, retries, progress, store
    )
    for r in ran:
        if r["result"] is not None:
            results.setdefault(r["result"]["config_hash"], r["result"])
        else:
            errors[r["index"]] = error(r["index"], r["error"])
    missing = [t for t in todo if t["config_hash"] not in results and t["index"] not in errors]
    if missing:
        raise NmcError(
            f"sweep: {len(missing)} of {len(todo)} runs came back with no result (first: seed "
            f"{missing[0]['seed']}, {missing[0]['sets']}); the executor lost them"
        )
    results_json = json.dumps(list(results.values()))
    results_csv, _summary_csv = _nmc.tables(json.dumps(plan), results_json)
    df = _sweep_table("<results>", io.StringIO(results_csv), plan["keys"])
    df.attrs["errors"] = [errors[i] for i in sorted(errors)]
    if out is not None:
        _nmc.sweep_tables(str(Path(out)), json.dumps(plan), results_json)
        df.attrs["out"] = str(Path(out))
    if errors:
        warnings.warn(
            f"nmc.sweep: {len(errors)} of {len(runs)} runs failed and have no rows; "
            f"first: {errors[min(errors)]['message']} (all in df.attrs['errors'])",
            stacklevel=2,
        )
    return df


def _execute(
    executor: Any,
    base_origin: str,
    base_text: str,
    todo: list[dict[str, Any]],
    jobs: int | None,
    chunk_size: int | None,
    retries: int,
    progress: Callable[[int, int], None] | None,
    store: Callable[[list[dict[str, Any]]], None] | None = None,
) -> list[dict[str, Any]]:
    if not todo:
        return []
    if isinstance(executor, str):
        if executor != "local":
            raise ValueError(
                f"executor={executor!r}: 'local', a dask.distributed.Client or a concurrent.futures.Executor"
            )
        if chunk_size is None:
            # Chunks only so that progress is reported; each runs on every thread.
            chunk_size = max(1, math.ceil(len(todo) / 20)) if progress else len(todo)
        out: list[dict[str, Any]] = []
        for chunk in _chunks(todo, chunk_size):
            part = json.loads(_nmc.run_configs(base_origin, base_text, json.dumps(chunk), jobs))
            out += part
            if store:
                store(part)
            if progress:
                progress(len(out), len(todo))
        return out
    from ._executor import run_chunk, submit_all

    if chunk_size is None:
        chunk_size = _default_chunk(executor, len(todo))
    return submit_all(
        executor,
        run_chunk,
        base_origin,
        base_text,
        list(_chunks(todo, chunk_size)),
        retries,
        progress,
        len(todo),
        store,
    )


def _chunks(xs: list[Any], n: int) -> Iterable[list[Any]]:
    if n < 1:
        raise ValueError(f"chunk_size={n}: at least 1")
    for i in range(0, len(xs), n):
        yield xs[i : i + n]


def _default_chunk(executor: Any, n: int) -> int:
    """About four tasks per worker thread: few enough that per-task overhead is small, enough
    that the load balances and a lost worker costs little."""
    threads = 1
    nthreads = getattr(executor, "nthreads", None)
    if callable(nthreads):
        try:
            threads = max(1, sum(nthreads().values()))
        except Exception:  # noqa: BLE001 - any client that cannot say: assume one thread
            threads = 1
    else:
        threads = getattr(executor, "_max_workers", 1) or 1
    return max(1, math.ceil(n / (4 * threads)))


# --- the published experiments -------------------------------------------------------------


def experiments() -> pd.DataFrame:
    """The published experiments ``reproduce`` runs: columns ``id``, ``title``, ``source``."""
    return pd.DataFrame(_nmc.experiments(), columns=["id", "title", "source"])


def reproduce(
    ids: str | Sequence[str] | None = None,
    *,
    quick: bool = False,
    seed: int = 1,
    out: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
) -> pd.DataFrame:
    """Runs published experiments (all when ``ids`` is None) as ``nmc reproduce`` does.

    One row per comparison: ``experiment``, ``id``, ``figure`` (the published quantity the row
    belongs to), ``quantity``, ``published``, ``ours``, ``unit``, ``tolerance``, ``within``,
    ``kind`` (emergent, restated input, sanity bound, variant, in-sample, calibrated, expectation: only
    emergent rows count; calibrated rows give a quantity's calibrated verdict), ``why``, ``note``, ``source``. ``df.attrs["scoreboard"]`` is a DataFrame with one
    verdict per published quantity (reproduced, partly, missed, by construction). ``quick`` runs the shorter versions with the
    looser tolerances each experiment states. ``out`` keeps ``index.html`` (the report with
    every plot), ``reproduce.json`` and each experiment's files there; its path is also in
    ``df.attrs["report"]``.
    """
    if isinstance(ids, str):
        ids = [ids]
    keep = out is not None
    folder = Path(out) if keep else Path(tempfile.mkdtemp(prefix="nmc-reproduce-"))
    try:
        result = json.loads(
            _nmc.reproduce(str(folder), list(ids) if ids is not None else None, _seed(seed, "seed"), bool(quick), jobs)
        )
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
    df = pd.DataFrame(result["rows"])
    # The JSON leaves `why` and `note` out of rows that have none; columns whatever the rows.
    for col in ("why", "note"):
        if col not in df.columns:
            df[col] = ""
        df[col] = df[col].fillna("")
    df.attrs["scoreboard"] = pd.DataFrame(result["scoreboard"]["quantities"])
    if keep:
        df.attrs["report"] = str(folder / "index.html")
    return df
