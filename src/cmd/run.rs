//! `nmc run SCENARIO`.

use crate::Outcome;
use crate::cmd::progress::Progress;
use anyhow::Result;
use clap::Args;
use nmc_experiments::scenario::{RunOptions, run_file};
use nmc_scenario::Override;
use std::path::PathBuf;

#[derive(Args)]
#[command(
    after_help = "Example:\n  nmc run scenarios/golden-chain.toml --set traffic.0.arrivals.interval=30ms --out out/chain"
)]
pub struct RunArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Seed for every random stream (overrides the scenario's `seed`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Override a scenario value: `path.to.key=value` (repeatable), e.g. `network.line.capacity=230.4kbit/s`.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_override)]
    pub sets: Vec<Override>,
    /// Output folder (default: out/<scenario name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

fn parse_override(s: &str) -> Result<Override, String> {
    s.parse()
        .map_err(|e: nmc_scenario::ScenarioError| e.to_string())
}

pub fn run(a: RunArgs) -> Result<Outcome> {
    let opts = RunOptions {
        seed: a.seed,
        sets: a.sets,
        out: a.out,
    };
    let progress = Progress::new(
        &a.scenario
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default(),
    );
    let r = run_file(&a.scenario, &opts, &|f| progress.set(f))?;
    progress.finish();
    println!(
        "scenario {}  seed {}  config {}",
        r.summary.scenario,
        r.summary.seed,
        &r.summary.config_hash[..12]
    );
    for (k, v) in &r.summary.metrics {
        println!("  {k:<28} {}", nmc_report::check::fmt_num(*v));
    }
    println!("wrote {} files to {}", r.files.len(), r.out.display());
    Ok(Outcome::Ok)
}
