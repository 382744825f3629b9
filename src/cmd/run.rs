//! `nmc run SCENARIO`.

use crate::Outcome;
use crate::cmd::progress::Progress;
use anyhow::Result;
use clap::Args;
use nmc_run::{RunOptions, run_file, run_text};
use nmc_scenario::Override;
use std::path::PathBuf;

#[derive(Args)]
#[command(
    after_help = "SCENARIO is a file, or the name of a built-in scenario (`nmc scenarios` lists them).\n\nExamples:\n  nmc run golden-chain --set traffic.0.arrivals.interval=30ms --out out/chain\n  nmc run ko-v2-map --set traffic.0.count=0\n  nmc scenarios show golden-chain > mine.toml && nmc run mine.toml --seed 2"
)]
pub struct RunArgs {
    /// The scenario: a TOML file, or a built-in scenario's name (see `nmc scenarios`).
    pub scenario: PathBuf,
    /// Seed for every random stream (overrides the scenario's `seed`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Override a scenario value: `path.to.key=value` (repeatable), e.g. `network.line.capacity=230.4kbit/s`.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_override)]
    pub sets: Vec<Override>,
    /// Output folder (default: `out/<scenario name>`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Largest `trace.jsonl` to write, e.g. `5GB`, `200MB` or `1GiB` (iperf3's `1G` is 1GiB)
    /// (default 1GB); at the limit the
    /// trace stops with a last `TraceLimit` line and the run says so.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub trace_limit: Option<u64>,
}

/// A size in bytes, written with its unit as in scenario files (`200MB`, `5GB`).
fn parse_size(s: &str) -> Result<u64, String> {
    // Issue 33: a size below one byte used to become 0 (no trace at all) without a word.
    let less = || format!("`{s}` is less than one byte: give a size such as 200MB");
    if s.parse::<nmc_sim::Bits>().is_ok_and(|b| b.get() < 8) {
        return Err(less());
    }
    // Issue 75 §4: the command line's one size reader (`200MB`, `1GiB`, iperf3's `1G`).
    match crate::cmd::units::size(s)? {
        0 => Err(less()),
        bytes => Ok(bytes),
    }
}

fn parse_override(s: &str) -> Result<Override, String> {
    s.parse()
        .map_err(|e: nmc_scenario::ScenarioError| e.to_string())
}

/// The built-in scenario a missing path names, as the checkout's `scenarios/` folder holds it:
/// `scenarios/ko-v2-map.toml` is `ko-v2-map`, `scenarios/rfc889/ford1.toml` is `rfc889-ford1`.
fn builtin_named_like(path: &std::path::Path) -> Option<String> {
    let stem = path.file_stem()?.to_string_lossy().into_owned();
    let parent = path
        .parent()
        .and_then(|p| p.file_name())
        .map(|p| format!("{}-{stem}", p.to_string_lossy()));
    [Some(stem), parent]
        .into_iter()
        .flatten()
        .find(|n| nmc_run::builtin::find(n).is_some())
}

pub fn run(a: RunArgs) -> Result<Outcome> {
    say_what_a_stop_keeps(a.out.as_deref())?;
    let opts = RunOptions {
        seed: a.seed,
        sets: a.sets,
        out: a.out,
        trace_limit: a.trace_limit,
    };
    let progress = Progress::new(
        &a.scenario
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default(),
    );
    let name = a.scenario.to_string_lossy();
    let builtin = nmc_run::builtin::find(&name).filter(|_| !a.scenario.exists());
    let r = match builtin {
        Some(text) => run_text(&format!("{name} (built-in)"), text, &opts, &|f| {
            progress.set(f)
        })?,
        None if !a.scenario.exists() && a.scenario.extension().is_none() => {
            anyhow::bail!(
                "{name}: no such file and no built-in scenario of that name (`nmc scenarios` lists them)"
            )
        }
        None if !a.scenario.exists()
            && let Some(b) = builtin_named_like(&a.scenario) =>
        {
            anyhow::bail!(
                "{name}: no such file (outside a checkout of nmc?); the built-in scenario `{b}` is the same file: `nmc run {b}`"
            )
        }
        None => run_file(&a.scenario, &opts, &|f| progress.set(f))?,
    };
    progress.finish();
    outln!(
        "scenario {}  seed {}  config {}",
        r.summary.scenario,
        r.summary.seed,
        &r.summary.config_hash[..12]
    );
    for (k, v) in &r.summary.metrics {
        outln!("  {k:<28} {}", nmc_report::check::fmt_num(*v));
    }
    for n in &r.notes {
        if n.starts_with("warning:") {
            eprintln!("nmc: {n}");
        } else {
            outln!("{n}");
        }
    }
    let n = r.files.len();
    let files = if n == 1 { "file" } else { "files" };
    outln!("wrote {n} {files} to {}", super::shown(&r.out));
    Ok(Outcome::Ok)
}

/// Issue 74 §5: Ctrl-C (or SIGTERM) on `nmc run` ended it with exit 130 and no word. A run
/// writes its records into `OUT.incomplete` as it goes and puts the folder in place only when
/// it ends (`nmc_report::OutDir`), so a stop leaves the previous `OUT` as it was and the
/// records so far, without a summary, in `OUT.incomplete`: one line says which, then the
/// process ends as a shell expects of an interrupted command (130).
fn say_what_a_stop_keeps(out: Option<&std::path::Path>) -> Result<()> {
    let stop = nmc_probe::signal::stop_on_signals()?;
    let out = out.map(std::path::Path::to_path_buf);
    std::thread::spawn(move || {
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let kept = match &out {
            Some(out) => {
                let mut staging = out.clone().into_os_string();
                staging.push(".incomplete");
                let staging = std::path::PathBuf::from(staging);
                let written = std::fs::read_dir(&staging)
                    .map(|d| d.flatten().filter(|e| !e.file_name().to_string_lossy().starts_with('.')).count())
                    .unwrap_or(0);
                if written > 0 {
                    format!(
                        "{} is as it was; the {written} record files written so far, without a summary, are in {} (partial)",
                        super::shown(out),
                        super::shown(&staging)
                    )
                } else {
                    format!("nothing was kept; {} is as it was", super::shown(out))
                }
            }
            None => "out/<scenario> is as it was; any records written so far, without a summary, are in out/<scenario>.incomplete (partial)".into(),
        };
        eprintln!("\nnmc: stopped by the user: {kept}");
        std::process::exit(nmc_probe::signal::EXIT_ON_SECOND_SIGNAL);
    });
    Ok(())
}
