//! `nmc reproduce`: the published experiments, side by side with the papers.

use crate::Outcome;
use crate::cmd::progress::Progress;
use anyhow::{Context as _, Result, bail};
use clap::Args;
use nmc_experiments::Experiment;
use nmc_report::Report;
use std::path::PathBuf;

#[derive(Args)]
#[command(
    after_help = "A run that completes exits 0 whatever the rows show: a row outside its tolerance is a \
finding, listed in the closing summary and the report. With --strict, any such row makes the exit \
code 1 (for CI).\n\nExamples:\n  nmc reproduce --all\n  nmc reproduce golden-chain --quick --out out/quick\n  nmc reproduce --all --strict\n  nmc reproduce --list"
)]
pub struct ReproduceArgs {
    /// Experiments to run (see --list).
    pub ids: Vec<String>,
    /// Run every experiment.
    #[arg(long, conflicts_with = "ids")]
    pub all: bool,
    /// Shorter runs: a quick look, with the looser tolerances each experiment states for it.
    #[arg(long)]
    pub quick: bool,
    /// Seed for every run.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output folder for reproduce.json, index.html and each experiment's files.
    #[arg(long, default_value = "out/reproduce")]
    pub out: PathBuf,
    /// List the experiments and exit.
    #[arg(long)]
    pub list: bool,
    /// Exit 1 if any row is outside its tolerance (by default a completed run exits 0).
    #[arg(long)]
    pub strict: bool,
    /// Experiments (and the runs inside them) on this many threads; the output is the same
    /// byte for byte whatever the number (default: every core).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Print each experiment's wall-clock and CPU time at the end, and write them to
    /// timings.json in --out (only then: the other files stay the same bytes run to run). Each
    /// experiment's CPU is exact with --jobs 1; with more threads experiments share them, so
    /// only the total CPU is given.
    #[arg(long)]
    pub timings: bool,
}

pub fn run(a: ReproduceArgs) -> Result<Outcome> {
    let registry = nmc_experiments::all();
    if a.list {
        for e in &registry {
            outln!("{:<22} {}  [{}]", e.id(), e.title(), e.source());
            outln!("{:<22} {}", "", e.plan().describe());
        }
        return Ok(Outcome::Ok);
    }
    let chosen: Vec<&dyn Experiment> = if a.all {
        registry
    } else if a.ids.is_empty() {
        bail!("name the experiments to run, or pass --all (nmc reproduce --list shows them)");
    } else {
        a.ids
            .iter()
            .map(|id| {
                nmc_experiments::find(id).with_context(|| {
                    let known: Vec<&str> = registry.iter().map(|e| e.id()).collect();
                    format!("unknown experiment `{id}` (known: {})", known.join(", "))
                })
            })
            .collect::<Result<_>>()?
    };
    let mut report = Report {
        title: "nmc reproduce".into(),
        seed: a.seed,
        nmc_version: env!("CARGO_PKG_VERSION").into(),
        command: std::env::args().collect::<Vec<_>>().join(" "),
        sections: Vec::new(),
        scoreboard: None,
    };
    let jobs = nmc_sim::limits::jobs("--jobs", a.jobs)?;
    // Written beside --out and put in place whole when every experiment is done (issue 33).
    nmc_run::run::check_seed(a.seed)?;
    let dir = nmc_report::OutDir::begin(&a.out)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .context("starting the worker threads")?;
    let bars = indicatif::MultiProgress::new();
    let (seed, quick, out) = (a.seed, a.quick, dir.path().to_path_buf());
    let clock = Clock::start();
    // Experiments are independent and each is deterministic; results are taken in the
    // registry's order, so the report does not depend on `jobs`.
    let sections: Vec<Result<(nmc_report::Section, Spent)>> = pool.install(|| {
        use rayon::prelude::*;
        chosen
            .par_iter()
            .map(|e| {
                let progress = Progress::new_in(&bars, e.id());
                let set = |f: f64| progress.set(f);
                let started = Clock::start();
                let section = nmc_experiments::run_experiment(*e, seed, quick, out.clone(), &set)?;
                progress.finish();
                Ok((section, started.spent()))
            })
            .collect()
    });
    let mut spent = Vec::new();
    for (e, s) in chosen.iter().zip(sections) {
        let (section, t) = s?;
        report.sections.push(section);
        spent.push((e.id(), t));
    }
    let timings = a
        .timings
        .then(|| Timings::new(jobs, quick, clock.spent(), &spent));
    if let Some(t) = &timings {
        let path = dir.path().join("timings.json");
        nmc_report::files::write(&path, serde_json::to_string_pretty(t)? + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let (checks, board) = nmc_experiments::reproduce::write(dir.path(), &mut report)?;
    dir.commit()?;
    let html_path = a.out.join("index.html");
    let json_path = a.out.join("reproduce.json");
    out!(
        "{}",
        nmc_experiments::reproduce::summary_text(&checks, &board, a.seed)
    );
    let missed = checks.iter().filter(|c| !c.within).count();
    // One path per line: a long output folder should not make the line wider than the table.
    outln!("Report: {}", super::shown(&html_path));
    outln!("Table:  {}", super::shown(&json_path));
    if let Some(t) = &timings {
        out!("{}", t.text());
        outln!("Timings: {}", super::shown(&a.out.join("timings.json")));
    }
    Ok(if missed == 0 || !a.strict {
        Outcome::Ok
    } else {
        Outcome::OutsideTolerance
    })
}

/// Wall-clock and CPU time from a start.
struct Clock {
    wall: std::time::Instant,
    /// This thread's CPU (the experiment's own with `--jobs 1`), and the process's.
    thread: Option<nmc_cost::live::CpuTime>,
    process: Option<nmc_cost::live::CpuTime>,
}

/// What a [`Clock`] measured, in seconds.
#[derive(Clone, Copy)]
struct Spent {
    wall_s: f64,
    thread_cpu_s: Option<f64>,
    process_cpu_s: Option<f64>,
}

impl Clock {
    fn start() -> Clock {
        Clock {
            wall: std::time::Instant::now(),
            thread: nmc_cost::live::thread_cpu().ok(),
            process: nmc_cost::live::process_cpu().ok(),
        }
    }
    fn spent(&self) -> Spent {
        let s = |ns: u64| ns as f64 / 1e9;
        Spent {
            wall_s: self.wall.elapsed().as_secs_f64(),
            thread_cpu_s: self
                .thread
                .zip(nmc_cost::live::thread_cpu().ok())
                .map(|(a, b)| s(b.since(a).total_ns())),
            process_cpu_s: self
                .process
                .zip(nmc_cost::live::process_cpu().ok())
                .map(|(a, b)| s(b.since(a).total_ns())),
        }
    }
}

/// `timings.json` (`--timings`): where a reproduce run's time went.
#[derive(serde::Serialize)]
struct Timings {
    schema: &'static str,
    jobs: usize,
    quick: bool,
    wall_s: f64,
    /// The process's CPU (user + system) over the whole run; `null` where the platform does
    /// not give it.
    cpu_s: Option<f64>,
    /// In the order of the report. `cpu_s` only with one thread (`--jobs 1`): with more,
    /// an experiment's runs and its neighbours' share the threads.
    experiments: Vec<ExperimentTime>,
}

#[derive(serde::Serialize)]
struct ExperimentTime {
    id: String,
    wall_s: f64,
    cpu_s: Option<f64>,
}

impl Timings {
    fn new(jobs: usize, quick: bool, total: Spent, each: &[(&str, Spent)]) -> Timings {
        Timings {
            schema: "nmc-timings/1",
            jobs,
            quick,
            wall_s: total.wall_s,
            cpu_s: total.process_cpu_s,
            experiments: each
                .iter()
                .map(|(id, t)| ExperimentTime {
                    id: id.to_string(),
                    wall_s: t.wall_s,
                    cpu_s: if jobs == 1 { t.thread_cpu_s } else { None },
                })
                .collect(),
        }
    }

    fn text(&self) -> String {
        use std::fmt::Write as _;
        let secs = |x: Option<f64>| x.map_or("—".to_string(), |x| format!("{x:.2} s"));
        let mut t = format!(
            "\nTime ({} thread{}{}):\n{:<24} {:>10} {:>10}\n",
            self.jobs,
            if self.jobs == 1 { "" } else { "s" },
            if self.jobs == 1 {
                ""
            } else {
                "; CPU per experiment only with --jobs 1"
            },
            "experiment",
            "wall",
            "CPU"
        );
        for e in &self.experiments {
            let _ = writeln!(
                t,
                "{:<24} {:>10} {:>10}",
                e.id,
                secs(Some(e.wall_s)),
                secs(e.cpu_s)
            );
        }
        let _ = writeln!(
            t,
            "{:<24} {:>10} {:>10}",
            "whole run",
            secs(Some(self.wall_s)),
            secs(self.cpu_s)
        );
        t
    }
}
