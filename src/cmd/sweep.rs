//! `nmc sweep SWEEP.toml` and `nmc sweep merge`: the work is in the nmc-sweep crate.

use crate::Outcome;
use crate::cmd::progress::Progress;
use anyhow::{Context as _, Result};
use clap::{Args, Subcommand};
use nmc_sweep::{Options, Shard, Sweep};
use std::path::PathBuf;
use std::sync::Mutex;

#[derive(Args)]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    after_help = "SWEEP.toml names a base scenario (a file relative to the sweep file, or a built-in \
name), the seeds, and what to vary:\n\n  \
base = \"md1\"\n  \
seeds = { from = 1, count = 20 }\n  \
metrics = [\"delay.mean_ms\"]   # optional; default: every metric of the run\n  \
[set]                         # optional: applied to every run\n  \
duration = \"100min\"\n  \
[grid]                        # every combination runs\n  \
\"traffic.0.arrivals.mean_interval\" = [\"80.64ms\", \"40.32ms\"]\n  \
[[cases]]                     # optional: explicit override sets, each × the grid\n  \
\"network.line.queue_limit\" = 8\n\n\
Every run (configuration × seed) is resolved and its model built once to check it before any \
runs; a bad key or value is a one-line error and nothing is written. Results go one file per run \
to OUT/runs/, so an interrupted sweep (Ctrl-C, kill) resumes where it stopped when run again with \
the same --out. The tables are written in plan order (cases as listed, then grid points with the \
grid's keys in alphabetical order, the last varying fastest; seeds ascending): the same bytes \
whether the sweep ran straight, resumed, on any --jobs, or in merged shards. Runs are skipped by \
config hash (the resolved scenario with its seed, as `nmc run` writes it), not by nmc's version: \
sweep into a fresh folder after changing nmc itself.\n\n\
Output: sweep.json (the plan), results.csv/.parquet (swept keys, seed, config_hash, metric, \
value), summary.csv/.parquet (per configuration and metric across seeds: runs, n with a finite \
value, mean, sd, ci95_low, ci95_high from Student's t).\n\n\
Examples:\n  nmc sweep sweeps/md1-load.toml --out out/md1-load\n  \
nmc sweep sweeps/md1-load.toml --out out/s0 --shard 0/2   # and --shard 1/2 elsewhere\n  \
nmc sweep merge --out out/md1-load out/s0 out/s1"
)]
pub struct SweepArgs {
    #[command(subcommand)]
    pub merge: Option<SweepCommand>,
    /// The sweep file (TOML).
    #[arg(required = true, value_name = "SWEEP.toml")]
    pub sweep: Option<PathBuf>,
    /// Output folder (default: `out/sweep-<sweep file name>`); runs already there are skipped.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Runs side by side on this many threads (default: every core); the output is the same
    /// byte for byte whatever the number.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Do only the runs whose index is I modulo N (0 <= I < N); `nmc sweep merge` joins the
    /// shards' folders.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Also keep each run's `nmc run` outputs (summary.json, records) in `OUT/runs/<config hash>/`.
    #[arg(long)]
    pub keep_runs: bool,
}

#[derive(Subcommand)]
pub enum SweepCommand {
    /// Join the output folders of a sharded sweep into one (the tables an unsharded run writes).
    Merge(MergeArgs),
}

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    nmc sweep merge --out out/md1-load out/s0 out/s1   # the shards of `--shard 0/2` and `1/2`")]
pub struct MergeArgs {
    /// The shards' output folders.
    #[arg(required = true, value_name = "SHARD_DIR")]
    pub dirs: Vec<PathBuf>,
    /// The merged folder.
    #[arg(long, required = true)]
    pub out: PathBuf,
}

pub fn run(a: SweepArgs) -> Result<Outcome> {
    if let Some(SweepCommand::Merge(m)) = a.merge {
        let o = nmc_sweep::merge(&m.dirs, &m.out)?;
        outln!(
            "merged {} folders: {} runs, {} rows",
            m.dirs.len(),
            o.runs,
            o.rows
        );
        print_files(&o.files);
        return Ok(Outcome::Ok);
    }
    let path = a
        .sweep
        .expect("clap requires SWEEP.toml without a subcommand");
    let jobs = nmc_sim::limits::jobs("--jobs", a.jobs)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("starting the worker threads")?;
    let sweep = Sweep::load(&path)?;
    let out = a.out.unwrap_or_else(|| {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "sweep".into());
        PathBuf::from("out").join(format!("sweep-{stem}"))
    });
    let plan = pool.install(|| sweep.plan())?;
    let configs = plan.configs.len();
    let seeds = plan.runs.len() / configs.max(1);
    let progress = Mutex::new(Progress::new("sweep"));
    let opts = Options {
        out: out.clone(),
        shard: a.shard,
        keep_runs: a.keep_runs,
    };
    let o = pool.install(|| {
        nmc_sweep::run(&sweep, &plan, &opts, &|done, total| {
            if let Ok(p) = progress.lock() {
                p.set(done as f64 / total.max(1) as f64);
            }
        })
    })?;
    if let Ok(p) = progress.into_inner() {
        p.finish();
    }
    let shard = match a.shard {
        Some(s) => format!(", shard {}/{}: {} runs", s.index, s.count, o.runs),
        None => String::new(),
    };
    outln!(
        "sweep {}: {} runs ({configs} configurations × {seeds} seeds){shard}",
        super::shown(&path),
        plan.runs.len(),
    );
    outln!(
        "  ran {}, already done {}; {} rows",
        o.ran,
        o.skipped,
        o.rows
    );
    print_files(&o.files);
    Ok(Outcome::Ok)
}

fn print_files(files: &[PathBuf]) {
    for f in files {
        outln!("  wrote {}", super::shown(f));
    }
}
