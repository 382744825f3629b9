//! # nmc-sweep — parameter sweeps (`nmc sweep`)
//!
//! A sweep file names a base scenario, a grid of `--set` keys each with a list of values
//! and/or explicit override sets (`cases`), and a range of seeds. Every configuration (case ×
//! grid point) runs with every seed; each run is one deterministic, single-threaded model run,
//! and runs go side by side on a rayon pool. Results land one file per run
//! (`runs/<config hash>.json`), so an interrupted sweep resumes where it stopped and the
//! tables are assembled at the end in plan order: the same bytes whether the sweep ran
//! straight, was resumed, ran on any number of threads, or ran in shards that were merged.
//!
//! | item | what |
//! | --- | --- |
//! | [`Sweep`] | the sweep file read and checked, its base scenario found |
//! | [`Plan`] | every run resolved and checked before any runs (`sweep.json`) |
//! | [`run`] | runs a plan (or one shard of it) into an output folder and writes the tables |
//! | [`merge`] | joins shard folders into one, with the tables an unsharded sweep writes |
//!
//! Output folder: `sweep.json` (the plan), `runs/` (one result per run; with `keep_runs` also
//! each run's `nmc run` folder), `results.csv` / `results.parquet` (columns: every swept key,
//! `seed`, `config_hash`, `metric`, `value`) and `summary.csv` / `summary.parquet` (per
//! configuration × metric: `runs`, `n`, `mean`, `sd`, `ci95_low`, `ci95_high`).

#![warn(missing_docs)]

pub mod plan;
pub mod store;
pub mod table;

pub use plan::{Config, Plan, Run, RunError, Sweep};
pub use store::RunResult;

use anyhow::{Context as _, Result, bail};
use nmc_run::{RunOptions, metrics_text, run_text};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Which runs of a plan this process does: those whose index ≡ `index` (mod `count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard's number, from 0 to `count - 1` (`--shard I/N`'s `I`).
    pub index: usize,
    /// How many shards the plan is split into, at least 1 (`--shard I/N`'s `N`).
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("`{s}`: expected I/N with 0 <= I < N, e.g. 0/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Whether the run at plan position `run_index` is this shard's.
    pub fn contains(&self, run_index: usize) -> bool {
        run_index % self.count == self.index
    }
}

/// How [`run`] runs a plan: where, which part, what it keeps.
pub struct Options {
    /// The sweep's output folder: `sweep.json`, `runs/` and the tables.
    pub out: PathBuf,
    /// The runs this process does (`--shard I/N`); `None`: all of them.
    pub shard: Option<Shard>,
    /// Keep each run's `nmc run` outputs in `runs/<config hash>/`.
    pub keep_runs: bool,
}

/// What a sweep did.
pub struct Outcome {
    /// Runs of the plan this shard covers.
    pub runs: usize,
    /// Model runs done now (runs sharing a configuration hash run once).
    pub ran: usize,
    /// Runs whose result was already in the output folder.
    pub skipped: usize,
    /// Rows of `results`.
    pub rows: usize,
    /// The tables written: `results` and `summary`, each as CSV and Parquet.
    pub files: Vec<PathBuf>,
}

/// Runs the runs of `plan` (those of `opts.shard`) whose results are not yet in `opts.out`,
/// on the current rayon pool, then writes the tables. `progress(done, to_do)` is called as
/// runs finish (from the worker threads).
///
/// When the plan names its metrics, the first run to do runs before anything is written and
/// must have them all, so a misspelt metric writes nothing.
pub fn run(
    sweep: &Sweep,
    plan: &Plan,
    opts: &Options,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Outcome> {
    use rayon::prelude::*;
    // Issue 33: one sweep writes into a folder at a time; a second is refused in one line.
    let _lock = nmc_report::OutLock::acquire(&opts.out)?;
    nmc_report::outdir::check_sweep_folder(&opts.out)?;
    let mine: Vec<&Run> = plan
        .runs
        .iter()
        .filter(|r| opts.shard.is_none_or(|s| s.contains(r.index)))
        .collect();
    // Distinct configurations to run, in plan order, leaving those already done.
    let mut seen = BTreeSet::new();
    let mut todo: Vec<&Run> = Vec::new();
    let mut done: BTreeMap<String, RunResult> = BTreeMap::new();
    for r in &mine {
        if !seen.insert(r.config_hash.as_str()) {
            continue;
        }
        match store::read(&opts.out, &r.config_hash)? {
            Some(res) => {
                done.insert(r.config_hash.clone(), res);
            }
            None => todo.push(r),
        }
    }
    let skipped = mine
        .iter()
        .filter(|r| done.contains_key(&r.config_hash))
        .count();
    let total = todo.len();
    let count = AtomicUsize::new(0);
    let one = |r: &Run| -> Result<RunResult> {
        let res = run_one(sweep, plan, r, opts)?;
        let n = count.fetch_add(1, Ordering::Relaxed) + 1;
        progress(n, total);
        Ok(res)
    };
    // A named metric is checked on a real run before anything is written.
    let mut first = None;
    if let Some(names) = &plan.metrics {
        let probe = match todo.first() {
            Some(r) => Some((*r, one(r)?)),
            None => mine.first().map(|r| (*r, done[&r.config_hash].clone())),
        };
        if let Some((r, res)) = probe {
            if let Some(m) = names.iter().find(|m| !res.metrics.contains_key(*m)) {
                bail!(
                    "{}: metrics: no metric `{m}` in the run's summary (it has: {})",
                    sweep.origin,
                    res.metrics.keys().cloned().collect::<Vec<_>>().join(", ")
                );
            }
            if todo.first().is_some_and(|t| t.index == r.index) {
                first = Some(res);
            }
        }
    }
    prepare(&opts.out, plan)?;
    let rest: &[&Run] = match first {
        Some(res) => {
            store::write(&opts.out, &res)?;
            done.insert(res.config_hash.clone(), res);
            &todo[1..]
        }
        None => &todo,
    };
    let out = &opts.out;
    let finished: Vec<RunResult> = rest
        .par_iter()
        .map(|r| {
            let res = one(r)?;
            store::write(out, &res)?;
            Ok(res)
        })
        .collect::<Result<_>>()?;
    for res in finished {
        done.insert(res.config_hash.clone(), res);
    }
    let by_index: BTreeMap<usize, RunResult> = mine
        .iter()
        .map(|r| (r.index, done[&r.config_hash].clone()))
        .collect();
    let (rows, files) = write_tables(&opts.out, plan, &by_index)?;
    Ok(Outcome {
        runs: mine.len(),
        ran: total,
        skipped,
        rows,
        files,
    })
}

/// One model run: its metrics (and with `keep_runs`, its `nmc run` folder).
fn run_one(sweep: &Sweep, plan: &Plan, r: &Run, opts: &Options) -> Result<RunResult> {
    let config = &plan.configs[r.config];
    let (origin, text) = sweep.base_scenario();
    let what = || {
        format!(
            "{}: run {} (configuration {}, seed {})",
            sweep.origin,
            r.index + 1,
            r.config + 1,
            r.seed
        )
    };
    if !opts.keep_runs {
        return run_config(origin, text, &config.sets, r.seed, &r.config_hash, &|_| {})
            .with_context(what);
    }
    let run_opts = RunOptions {
        seed: Some(r.seed),
        sets: parse_sets(&config.sets)?,
        out: Some(store::runs_dir(&opts.out).join(&r.config_hash)),
        trace_limit: None,
    };
    let res = run_text(origin, text, &run_opts, &|_| {}).with_context(what)?;
    if res.summary.config_hash != r.config_hash {
        bail!(
            "{}: the run's config hash {} is not the planned {} (the scenario changed while the sweep ran?)",
            what(),
            res.summary.config_hash,
            r.config_hash
        );
    }
    Ok(RunResult {
        config_hash: r.config_hash.clone(),
        seed: r.seed,
        metrics: res.summary.metrics,
    })
}

/// A configuration's overrides (`key=value`, as [`Config::sets`]) read back as `--set`s.
pub fn parse_sets(sets: &[String]) -> Result<Vec<nmc_scenario::Override>> {
    sets.iter()
        .map(|s| {
            s.parse::<nmc_scenario::Override>()
                .map_err(anyhow::Error::from)
        })
        .collect()
}

/// One run of a plan, from what a remote worker is sent: the base scenario's label and text,
/// the configuration's overrides (`key=value`, as [`Config::sets`]), the seed and the planned
/// config hash (carried into the result). Writes nothing. `progress` gets the fraction of
/// simulated time done.
pub fn run_config(
    base_origin: &str,
    base_text: &str,
    sets: &[String],
    seed: u64,
    config_hash: &str,
    progress: &dyn Fn(f64),
) -> Result<RunResult> {
    let run_opts = RunOptions {
        seed: Some(seed),
        sets: parse_sets(sets)?,
        out: None,
        trace_limit: None,
    };
    let metrics = metrics_text(base_origin, base_text, &run_opts, progress)?;
    Ok(RunResult {
        config_hash: config_hash.to_string(),
        seed,
        metrics,
    })
}

/// Makes the output folder and `runs/`, removes temporaries an interrupted sweep left, and
/// writes the plan as `sweep.json`: the start (or resumption) of a sweep folder. The caller
/// has checked the folder may be a sweep's ([`nmc_report::outdir::check_sweep_folder`]) before
/// anything ran.
pub fn prepare(out: &Path, plan: &Plan) -> Result<()> {
    let runs = store::runs_dir(out);
    std::fs::create_dir_all(&runs).with_context(|| format!("creating {}", runs.display()))?;
    store::clean_temporaries(&runs)?;
    store::clean_temporaries(out)?;
    let json = serde_json::to_string_pretty(plan)? + "\n";
    let path = out.join(nmc_report::outdir::SWEEP_PLAN);
    if json.len() as u64 > MAX_PLAN_BYTES {
        bail!(
            "{}: the plan is {} bytes, more than {MAX_PLAN_BYTES} bytes (a limit of nmc's, so that input cannot exhaust the machine): fewer runs, or shorter --set values",
            path.display(),
            json.len()
        );
    }
    store::write_atomic(&path, json.as_bytes())
}

/// The most bytes a `sweep.json` may hold, written or read: 1 GiB. A choice: a run takes
/// about 170 bytes of the plan and a configuration 150 or more, so a plan of
/// [`plan::MAX_RUNS`] runs, each its own configuration (a 1,000 × 1,000 grid, one seed), is
/// some 350 MB and fits three times over; a larger one is refused when it is written, so that
/// every plan nmc writes it can read back, and a file past it is no plan of nmc's (issue 57
/// §3: it was read whole, `/dev/zero` or a sparse file without end).
pub const MAX_PLAN_BYTES: u64 = 1 << 30;

/// Writes `results` and `summary` (CSV and Parquet) of the runs in `done` (by plan index).
pub fn write_tables(
    out: &Path,
    plan: &Plan,
    done: &BTreeMap<usize, RunResult>,
) -> Result<(usize, Vec<PathBuf>)> {
    let results = table::results(plan, done)?;
    let summary = table::summary(plan, done)?;
    let mut files = Vec::new();
    for (name, t) in [("results", &results), ("summary", &summary)] {
        let csv = out.join(format!("{name}.csv"));
        store::write_atomic(&csv, &t.to_csv()?)?;
        let pq = out.join(format!("{name}.parquet"));
        store::write_atomic(&pq, &t.to_parquet()?)?;
        files.extend([csv, pq]);
    }
    Ok((results.rows(), files))
}

/// Reads a sweep folder's `sweep.json`.
pub fn read_plan(dir: &Path) -> Result<Plan> {
    let path = dir.join(nmc_report::outdir::SWEEP_PLAN);
    let bytes = match nmc_sim::limits::read_regular(&path, MAX_PLAN_BYTES) {
        Ok(b) => b,
        Err(nmc_sim::limits::ReadError::Io { cause, .. }) => {
            return Err(anyhow::Error::new(cause).context(format!(
                "reading {} (is {} a sweep's output folder?)",
                path.display(),
                dir.display()
            )));
        }
        Err(e) => return Err(e.into()),
    };
    serde_json::from_slice(&bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// Joins the folders of a sharded sweep into `out`: checks they hold the same plan and,
/// together, a result for every run, before writing anything; then writes `sweep.json`, every
/// run's result and the tables, the same bytes an unsharded sweep writes.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Outcome> {
    let Some(first) = dirs.first() else {
        bail!("merge: name the shard folders to join");
    };
    let plan = read_plan(first)?;
    let _lock = nmc_report::OutLock::acquire(out)?;
    nmc_report::outdir::check_sweep_folder(out)?;
    for d in &dirs[1..] {
        if read_plan(d)? != plan {
            bail!(
                "merge: {} and {} are not shards of the same sweep (their sweep.json differ)",
                first.display(),
                d.display()
            );
        }
    }
    let mut found: BTreeMap<String, RunResult> = BTreeMap::new();
    let mut missing = Vec::new();
    for r in &plan.runs {
        if found.contains_key(&r.config_hash) {
            continue;
        }
        let mut stored = None;
        for d in dirs {
            stored = store::read(d, &r.config_hash)?;
            if stored.is_some() {
                break;
            }
        }
        match stored {
            Some(res) => {
                found.insert(r.config_hash.clone(), res);
            }
            None => missing.push(r),
        }
    }
    if let Some(r) = missing.first() {
        let n = plan
            .runs
            .iter()
            .filter(|x| missing.iter().any(|m| m.config_hash == x.config_hash))
            .count();
        bail!(
            "merge: {n} of {} runs have no result in these folders (first: run {}, configuration {}, seed {}); a shard missing or not finished? (resume it with the same --shard)",
            plan.runs.len(),
            r.index + 1,
            r.config + 1,
            r.seed
        );
    }
    prepare(out, &plan)?;
    for res in found.values() {
        if store::read(out, &res.config_hash)?.as_ref() != Some(res) {
            store::write(out, res)?;
        }
    }
    let by_index: BTreeMap<usize, RunResult> = plan
        .runs
        .iter()
        .map(|r| (r.index, found[&r.config_hash].clone()))
        .collect();
    let (rows, files) = write_tables(out, &plan, &by_index)?;
    Ok(Outcome {
        runs: plan.runs.len(),
        ran: 0,
        skipped: plan.runs.len(),
        rows,
        files,
    })
}
