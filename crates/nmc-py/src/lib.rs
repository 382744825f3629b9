//! # nmc-py — nmc from Python
//!
//! The extension module `nmc._nmc`. The Python package in `python/nmc/` is the interface
//! people use (`nmc.run`, `nmc.sweep`, `nmc.reproduce`); this module is its engine room and
//! passes structured data as JSON text, which the package turns into dicts and pandas
//! DataFrames. Every function that simulates releases the interpreter, runs on a thread of its
//! own, and stops when Ctrl-C reaches the interpreter (see `detached`).
//!
//! | function | what | Rust behind it |
//! | --- | --- | --- |
//! | `builtin`, `builtin_names` | built-in scenarios | `nmc_run::builtin` |
//! | `resolve` | a scenario checked, its seed and config hash | `scenario::resolve_text` |
//! | `run` | one run, outputs in a folder (as `nmc run`) | `scenario::run_text` |
//! | `plan` | a sweep file's every run, resolved; bad runs listed | `Sweep::plan_keeping_errors` |
//! | `run_configs` | some runs of a plan, each its metrics or its error | `nmc_sweep::run_config` |
//! | `tables` | the results and summary tables (CSV) of finished runs | `nmc_sweep::table` |
//! | `sweep_open`, `sweep_store`, `sweep_tables` | a sweep folder as `nmc sweep --out` keeps it: resumable | `nmc_sweep::{prepare, store, write_tables}` |
//! | `experiments`, `reproduce` | the published experiments and their rows | `nmc_experiments` |
//!
//! Errors reach Python as `nmc.ScenarioError` (bad input: the scenario, an override, a sweep
//! file; with `file`, `line`, `column` and `key` where known) or `nmc.NmcError` (a run that
//! failed), each with the one-line message the CLI prints.

#![warn(missing_docs)]

use anyhow::{Context as _, Result};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use nmc_run::{RunOptions, resolve_text, run_text};
use nmc_scenario::{Override, ScenarioError};
use nmc_sweep::{Plan, RunError, RunResult, Sweep};

/// The unwinding payload that stops a run when the interpreter has a signal pending.
struct Interrupted;

/// Bad input (a scenario, override or sweep file that does not resolve): raised in Python as
/// `ScenarioError`, not `NmcError`.
#[derive(Debug)]
struct BadInput(anyhow::Error);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for BadInput {}

fn bad_input(e: impl Into<anyhow::Error>) -> anyhow::Error {
    anyhow::Error::new(BadInput(e.into()))
}

/// Stops the calling run (by unwinding to [`detached`]) once `stop` is set: called from the
/// runs' progress callbacks, which the models call between chunks of simulated time.
fn check_stop(stop: &AtomicBool) {
    if stop.load(Ordering::Relaxed) {
        std::panic::resume_unwind(Box::new(Interrupted));
    }
}

/// How often the waiting interpreter thread looks for signals (Ctrl-C).
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `work` on a thread of its own with the interpreter released, while the calling thread
/// (the one that can see signals) polls for them. A signal's exception (KeyboardInterrupt for
/// Ctrl-C) sets `stop`, which `work` passes to [`check_stop`] from its progress callbacks; the
/// run unwinds, its state is dropped, and the exception is raised. A panic (a bug) becomes a
/// `RuntimeError` rather than taking the interpreter down.
fn detached<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&AtomicBool) -> Result<T> + Send,
) -> PyResult<T> {
    let stop = AtomicBool::new(false);
    let (outcome, signal) = py.detach(|| {
        std::thread::scope(|s| {
            let (tx, rx) = mpsc::channel();
            let stop = &stop;
            s.spawn(move || {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(stop)));
                let _ = tx.send(r);
            });
            let mut signal: Option<PyErr> = None;
            loop {
                match rx.recv_timeout(SIGNAL_POLL) {
                    Ok(r) => return (Some(r), signal),
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if signal.is_none()
                            && let Err(e) = Python::attach(|py| py.check_signals())
                        {
                            stop.store(true, Ordering::Relaxed);
                            signal = Some(e);
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => return (None, signal),
                }
            }
        })
    });
    if let Some(e) = signal {
        return Err(e);
    }
    match outcome {
        Some(Ok(Ok(v))) => Ok(v),
        Some(Ok(Err(e))) => Err(py_error(py, &e)),
        Some(Err(payload)) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Err(PyRuntimeError::new_err(format!(
                "nmc stopped on an internal error (a bug; please report it): {what}"
            )))
        }
        None => Err(PyRuntimeError::new_err("nmc's worker thread ended early")),
    }
}

/// The key an error message names, if it names one: the field of serde's "unknown field
/// `x`" or "missing field `x`", the path of "at `a.b`", the key path a located check starts
/// with (`traffic[0].to = 9: ...`) when `located`, else the first name between backticks.
fn key_in(message: &str, located: bool) -> Option<String> {
    let quoted = |from: usize| -> Option<String> {
        let start = from + message[from..].find('`')? + 1;
        let len = message[start..].find('`')?;
        Some(message[start..start + len].to_string())
    };
    [
        "unknown field `",
        "missing field `",
        "duplicate key `",
        "at `",
    ]
    .iter()
    .find_map(|p| message.find(p).and_then(|i| quoted(i + p.len() - 1)))
    .or_else(|| {
        located
            .then(|| nmc_scenario::leading_key(message))
            .flatten()
            .map(str::to_string)
    })
    .or_else(|| quoted(0))
}

/// `e` as the Python exception the package defines (`nmc._errors`), with the CLI's message.
fn py_error(py: Python<'_>, e: &anyhow::Error) -> PyErr {
    // Issue 33: escaped and shortened as the CLI prints it.
    let message = nmc_sim::limits::printable(&format!("{e:#}"), nmc_sim::limits::MAX_ERROR_CHARS);
    let inner = e.chain().find_map(|c| c.downcast_ref::<BadInput>());
    let typed = e
        .chain()
        .chain(inner.into_iter().flat_map(|b| b.0.chain()))
        .find_map(|c| c.downcast_ref::<ScenarioError>());
    let (class, file, line, column, key): (_, Option<String>, Option<usize>, Option<usize>, _) =
        match typed {
            Some(ScenarioError::File {
                origin,
                line,
                column,
                message,
            }) => (
                "ScenarioError",
                Some(origin.clone()),
                Some(*line),
                Some(*column),
                key_in(message, true),
            ),
            Some(ScenarioError::Whole { origin, message }) => (
                "ScenarioError",
                Some(origin.clone()),
                None,
                None,
                key_in(message, false),
            ),
            Some(ScenarioError::Override { text, .. }) => (
                "ScenarioError",
                None,
                None,
                None,
                text.split_once('=').map(|(k, _)| k.trim().to_string()),
            ),
            None if inner.is_some() => ("ScenarioError", None, None, None, key_in(&message, false)),
            None => ("NmcError", None, None, None, None),
        };
    let made = py
        .import("nmc._errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((message.clone(), file, line, column, key)));
    match made {
        Ok(v) => PyErr::from_value(v),
        Err(_) => PyRuntimeError::new_err(message),
    }
}

fn parse_sets(sets: &[String]) -> Result<Vec<Override>> {
    nmc_sweep::parse_sets(sets).map_err(bad_input)
}

fn pool(jobs: Option<usize>) -> Result<rayon::ThreadPool> {
    let n = nmc_sim::limits::jobs("jobs", jobs).map_err(bad_input)?;
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .context("starting the worker threads")
}

fn json<T: Serialize>(v: &T) -> PyResult<String> {
    serde_json::to_string(v).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

fn from_json<'a, T: Deserialize<'a>>(what: &str, text: &'a str) -> PyResult<T> {
    serde_json::from_str(text).map_err(|e| PyRuntimeError::new_err(format!("{what}: {e}")))
}

/// nmc's version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The text of the built-in scenario `name`, or None.
#[pyfunction]
fn builtin(name: &str) -> Option<&'static str> {
    nmc_run::builtin::find(name)
}

/// The built-in scenarios: (name, one-line description).
#[pyfunction]
fn builtin_names() -> Vec<(&'static str, String)> {
    nmc_run::builtin::SCENARIOS
        .iter()
        .map(|(name, text)| (*name, nmc_run::builtin::description(text)))
        .collect()
}

#[derive(Serialize)]
struct Resolved {
    name: String,
    model: String,
    seed: u64,
    config_hash: String,
}

/// Checks scenario `text` with its seed and overrides as `nmc run` does before running (the
/// model is built once); runs nothing. JSON: name, model, seed, config_hash.
#[pyfunction]
#[pyo3(signature = (origin, text, seed=None, sets=Vec::new()))]
fn resolve(
    py: Python<'_>,
    origin: String,
    text: String,
    seed: Option<u64>,
    sets: Vec<String>,
) -> PyResult<String> {
    let r = detached(py, |_| {
        let opts = RunOptions {
            seed,
            sets: parse_sets(&sets)?,
            out: None,
            trace_limit: None,
        };
        resolve_text(&origin, &text, &opts).map_err(bad_input)
    })?;
    json(&Resolved {
        name: r.name,
        model: r.model,
        seed: r.seed,
        config_hash: r.config_hash,
    })
}

#[derive(Serialize)]
struct RunDone {
    out: PathBuf,
    files: Vec<PathBuf>,
    notes: Vec<String>,
    scenario: String,
    seed: u64,
    config_hash: String,
    /// Exact values as text (`"0.1"`, `"NaN"`, `"inf"`), which JSON numbers cannot all hold.
    metrics: BTreeMap<String, String>,
    config: serde_json::Value,
}

/// Runs scenario `text` as `nmc run` does, writing its outputs (`summary.json`, the records it
/// asks for as CSV, plots) into `out`. JSON: out, files, notes, scenario, seed, config_hash,
/// metrics (values as exact text), config.
#[pyfunction]
#[pyo3(signature = (origin, text, out, seed=None, sets=Vec::new()))]
fn run(
    py: Python<'_>,
    origin: String,
    text: String,
    out: PathBuf,
    seed: Option<u64>,
    sets: Vec<String>,
) -> PyResult<String> {
    let done = detached(py, |stop| {
        let opts = RunOptions {
            seed,
            sets: parse_sets(&sets)?,
            out: Some(out),
            trace_limit: None,
        };
        // Bad input is told apart from a failed run: resolving builds the model once.
        resolve_text(&origin, &text, &opts).map_err(bad_input)?;
        let r = run_text(&origin, &text, &opts, &|_| check_stop(stop))?;
        Ok(RunDone {
            out: r.out,
            files: r.files,
            notes: r.notes,
            scenario: r.summary.scenario,
            seed: r.summary.seed,
            config_hash: r.summary.config_hash,
            metrics: r
                .summary
                .metrics
                .iter()
                .map(|(k, v)| (k.clone(), format!("{v:?}")))
                .collect(),
            config: r.summary.config,
        })
    })?;
    json(&done)
}

#[derive(Serialize)]
struct Planned {
    plan: Plan,
    errors: Vec<RunError>,
    base_origin: String,
    base_text: String,
}

/// Reads sweep file `text` (`origin` names it), whose `base` is the scenario given as
/// `base_origin` and `base_text`, and resolves every run. A run that does not resolve is kept
/// in the plan with an empty config hash and listed in `errors`. JSON: plan, errors,
/// base_origin, base_text.
#[pyfunction]
#[pyo3(signature = (origin, text, base_origin, base_text, jobs=None))]
fn plan(
    py: Python<'_>,
    origin: String,
    text: String,
    base_origin: String,
    base_text: String,
    jobs: Option<usize>,
) -> PyResult<String> {
    let planned = detached(py, |_| {
        let sweep =
            Sweep::parse(&origin, &text, |_| Ok((base_origin, base_text))).map_err(bad_input)?;
        let (plan, errors) = pool(jobs)?
            .install(|| sweep.plan_keeping_errors())
            .map_err(bad_input)?;
        let (o, t) = sweep.base_scenario();
        Ok(Planned {
            plan,
            errors,
            base_origin: o.to_string(),
            base_text: t.to_string(),
        })
    })?;
    json(&planned)
}

/// One run to do, as the package sends it (to a thread here or to a Dask worker).
#[derive(Deserialize)]
struct ToRun {
    index: usize,
    config_hash: String,
    seed: u64,
    sets: Vec<String>,
}

#[derive(Serialize)]
struct Ran {
    index: usize,
    result: Option<RunResult>,
    error: Option<String>,
}

/// Runs `runs` (JSON list of {index, config_hash, seed, sets}) of the base scenario on `jobs`
/// threads; each run's metrics or its one-line error, in the order given. JSON list of
/// {index, result: {config_hash, seed, metrics (exact text)} | null, error: text | null}.
#[pyfunction]
#[pyo3(signature = (base_origin, base_text, runs, jobs=None))]
fn run_configs(
    py: Python<'_>,
    base_origin: String,
    base_text: String,
    runs: String,
    jobs: Option<usize>,
) -> PyResult<String> {
    let runs: Vec<ToRun> = from_json("runs", &runs)?;
    let ran = detached(py, |stop| {
        use rayon::prelude::*;
        Ok(pool(jobs)?.install(|| {
            runs.par_iter()
                .map(|r| {
                    check_stop(stop);
                    let res = nmc_sweep::run_config(
                        &base_origin,
                        &base_text,
                        &r.sets,
                        r.seed,
                        &r.config_hash,
                        &|_| check_stop(stop),
                    );
                    match res {
                        Ok(result) => Ran {
                            index: r.index,
                            result: Some(result),
                            error: None,
                        },
                        Err(e) => Ran {
                            index: r.index,
                            result: None,
                            error: Some(format!("{e:#}")),
                        },
                    }
                })
                .collect::<Vec<_>>()
        }))
    })?;
    json(&ran)
}

/// The `results` and `summary` tables (CSV text, as `nmc sweep` writes them) of `plan` (JSON)
/// from `results` (JSON list of {config_hash, seed, metrics}): every run of the plan whose
/// config hash has a result, in plan order.
#[pyfunction]
fn tables(plan: String, results: String) -> PyResult<(String, String)> {
    let plan: Plan = from_json("plan", &plan)?;
    let results: Vec<RunResult> = from_json("results", &results)?;
    let done = by_index(&plan, &results);
    let text = |t: nmc_sweep::table::Table| -> PyResult<String> {
        let bytes = t
            .to_csv()
            .map_err(|e| PyRuntimeError::new_err(format!("{e:#}")))?;
        String::from_utf8(bytes).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    };
    let err = |e: anyhow::Error| PyRuntimeError::new_err(format!("{e:#}"));
    let r = nmc_sweep::table::results(&plan, &done).map_err(err)?;
    let s = nmc_sweep::table::summary(&plan, &done).map_err(err)?;
    Ok((text(r)?, text(s)?))
}

/// Starts or resumes the sweep folder `out` for `plan` (JSON), as `nmc sweep --out` does:
/// writes `sweep.json` and returns the results already in `runs/` for the plan's config hashes
/// (JSON list of {config_hash, seed, metrics}).
#[pyfunction]
fn sweep_open(py: Python<'_>, out: PathBuf, plan: String) -> PyResult<String> {
    let plan: Plan = from_json("plan", &plan)?;
    let found = detached(py, |_| {
        nmc_report::outdir::check_sweep_folder(&out)?;
        nmc_sweep::prepare(&out, &plan)?;
        let hashes: std::collections::BTreeSet<&str> = plan
            .runs
            .iter()
            .map(|r| r.config_hash.as_str())
            .filter(|h| !h.is_empty())
            .collect();
        let mut found = Vec::new();
        for h in hashes {
            found.extend(nmc_sweep::store::read(&out, h)?);
        }
        Ok(found)
    })?;
    json(&found)
}

/// Stores finished runs (JSON list of {config_hash, seed, metrics}) in the sweep folder
/// `out`, one file each, written whole or not at all.
#[pyfunction]
fn sweep_store(py: Python<'_>, out: PathBuf, results: String) -> PyResult<()> {
    let results: Vec<RunResult> = from_json("results", &results)?;
    detached(py, |_| {
        for r in &results {
            nmc_sweep::store::write(&out, r)?;
        }
        Ok(())
    })
}

/// Writes the `results` and `summary` tables (CSV and Parquet) of `plan` from `results` into
/// the sweep folder `out`, as `nmc sweep` does; returns the files written.
#[pyfunction]
fn sweep_tables(
    py: Python<'_>,
    out: PathBuf,
    plan: String,
    results: String,
) -> PyResult<Vec<PathBuf>> {
    let plan: Plan = from_json("plan", &plan)?;
    let results: Vec<RunResult> = from_json("results", &results)?;
    let done = by_index(&plan, &results);
    detached(py, |_| Ok(nmc_sweep::write_tables(&out, &plan, &done)?.1))
}

/// Every run of `plan` whose config hash has a result, by plan index.
fn by_index(plan: &Plan, results: &[RunResult]) -> BTreeMap<usize, RunResult> {
    let by_hash: BTreeMap<&str, &RunResult> = results
        .iter()
        .map(|r| (r.config_hash.as_str(), r))
        .collect();
    plan.runs
        .iter()
        .filter_map(|r| {
            by_hash
                .get(r.config_hash.as_str())
                .map(|res| (r.index, (*res).clone()))
        })
        .collect()
}

/// The published experiments: (id, title, source).
#[pyfunction]
fn experiments() -> Vec<(&'static str, &'static str, &'static str)> {
    nmc_experiments::all()
        .iter()
        .map(|e| (e.id(), e.title(), e.source()))
        .collect()
}

/// Runs the experiments `ids` (every one when None) as `nmc reproduce` does, writing
/// `reproduce.json`, `index.html` and each experiment's files into `out`. JSON: `rows` (published
/// beside ours, in the registry's order) and `scoreboard` (one verdict per published quantity).
#[pyfunction]
#[pyo3(signature = (out, ids=None, seed=1, quick=false, jobs=None))]
fn reproduce(
    py: Python<'_>,
    out: PathBuf,
    ids: Option<Vec<String>>,
    seed: u64,
    quick: bool,
    jobs: Option<usize>,
) -> PyResult<String> {
    let registry = nmc_experiments::all();
    let chosen: Vec<&dyn nmc_experiments::Experiment> = match &ids {
        None => registry.clone(),
        Some(ids) => {
            let mut v = Vec::new();
            for id in ids {
                match nmc_experiments::find(id) {
                    Some(e) => v.push(e),
                    None => {
                        let known: Vec<&str> = registry.iter().map(|e| e.id()).collect();
                        let e = bad_input(anyhow::anyhow!(
                            "unknown experiment `{id}` (known: {})",
                            known.join(", ")
                        ));
                        return Err(py_error(py, &e));
                    }
                }
            }
            v
        }
    };
    let checks = detached(py, |stop| {
        use rayon::prelude::*;
        // Written beside `out` and put in place whole when every experiment is done.
        let dir = nmc_report::OutDir::begin(&out)?;
        let staging = dir.path().to_path_buf();
        let sections = pool(jobs)?.install(|| {
            chosen
                .par_iter()
                .map(|e| {
                    nmc_experiments::run_experiment(*e, seed, quick, staging.clone(), &|_| {
                        check_stop(stop)
                    })
                })
                .collect::<Result<Vec<_>>>()
        })?;
        let mut report = nmc_report::Report {
            title: "nmc reproduce".into(),
            seed,
            nmc_version: env!("CARGO_PKG_VERSION").into(),
            command: format!(
                "nmc.reproduce(ids={ids:?}, seed={seed}, quick={})",
                if quick { "True" } else { "False" }
            ),
            sections,
            scoreboard: None,
        };
        let (rows, scoreboard) = nmc_experiments::reproduce::write(&staging, &mut report)?;
        dir.commit()?;
        Ok(serde_json::json!({ "rows": rows, "scoreboard": scoreboard }))
    })?;
    json(&checks)
}

/// The module `nmc._nmc`.
#[pymodule]
fn _nmc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(builtin, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_names, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(run_configs, m)?)?;
    m.add_function(wrap_pyfunction!(tables, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_open, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_store, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_tables, m)?)?;
    m.add_function(wrap_pyfunction!(experiments, m)?)?;
    m.add_function(wrap_pyfunction!(reproduce, m)?)?;
    Ok(())
}
