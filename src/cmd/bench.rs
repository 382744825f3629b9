//! `nmc bench`: the engine's speed on the golden chain.
//!
//! Runs `scenarios/golden-chain.toml` (built in) for the given simulated time, several times,
//! and reports the best run's packet-hops and events per wall-clock second on this one core.
//! Target (issue 2): at least 5 million packet-hops per second.
//! Then the IMP subnet: K&O's 10-minute pump over 9 hops (issue 3: well under a second).

use crate::Outcome;
use anyhow::Result;
use clap::Args;
use nmc_experiments::experiments::golden_chain::SCENARIO;
use nmc_net::{StoreForwardScenario, run as run_model};
use nmc_sim::{SimDuration, Trace};
use std::time::Instant;

#[derive(Args)]
pub struct BenchArgs {
    /// Simulated time per run.
    #[arg(long, default_value = "600min")]
    pub duration: SimDuration,
    /// Number of timed runs (the best is reported).
    #[arg(long, default_value_t = 5)]
    pub repeat: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: BenchArgs) -> Result<Outcome> {
    let mut s: StoreForwardScenario = nmc_scenario::load("golden-chain.toml", SCENARIO, &[])?;
    s.duration = a.duration;
    s.record.clear();
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..a.repeat.max(1) {
        let t0 = Instant::now();
        let out = run_model(&s, 1, Trace::off(), &mut |_| {})?;
        best = best.min(t0.elapsed().as_secs_f64());
        last = Some(out);
    }
    let out = last.expect("at least one run");
    let imp_sets = [
        "network.topology.hops=9".parse()?,
        "network.hosts.1.imp=IMP9".parse()?,
    ];
    let imp: nmc_imp::ImpScenario = nmc_scenario::load(
        "ko-v2-chain.toml",
        nmc_experiments::experiments::ko_v2_throughput::CHAIN,
        &imp_sets,
    )?;
    let mut imp_best = f64::MAX;
    let mut imp_events = 0;
    for _ in 0..a.repeat.max(1) {
        let t0 = Instant::now();
        imp_events = nmc_imp::run(&imp, 1, Trace::off(), &mut |_| {})?.events;
        imp_best = imp_best.min(t0.elapsed().as_secs_f64());
    }
    // The same pump to BBN (9 hops) on the June 1974 map with the network's own load.
    let loaded: nmc_imp::ImpScenario = nmc_scenario::load(
        "ko-v2-map.toml",
        nmc_experiments::experiments::ko_v2_throughput::MAP,
        &["record=[]".parse()?],
    )?;
    let mut loaded_best = f64::MAX;
    let mut loaded_events = 0;
    for _ in 0..a.repeat.max(1) {
        let t0 = Instant::now();
        loaded_events = nmc_imp::run(&loaded, 1, Trace::off(), &mut |_| {})?.events;
        loaded_best = loaded_best.min(t0.elapsed().as_secs_f64());
    }
    let hops_per_s = out.packet_hops as f64 / best;
    let events_per_s = out.events as f64 / best;
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "engine": "nmc", "scenario": "golden-chain", "simulated_s": a.duration.as_secs_f64(),
                "packet_hops": out.packet_hops, "events": out.events, "wall_s": best,
                "packet_hops_per_s": hops_per_s, "events_per_s": events_per_s,
                "imp_ko_v2_9hops_10min": { "wall_s": imp_best, "events": imp_events, "events_per_s": imp_events as f64 / imp_best },
                "imp_loaded_map_9hops_10min": { "wall_s": loaded_best, "events": loaded_events, "events_per_s": loaded_events as f64 / loaded_best },
            })
        );
    } else {
        println!(
            "golden chain, {} simulated, best of {} runs",
            a.duration,
            a.repeat.max(1)
        );
        println!("  packet-hops      {:>12}", out.packet_hops);
        println!("  events           {:>12}", out.events);
        println!("  wall time        {:>12.4} s", best);
        println!(
            "  packet-hops/s    {:>12.0}   (target >= 5 000 000)",
            hops_per_s
        );
        println!("  events/s         {:>12.0}", events_per_s);
        println!(
            "IMP subnet, K&O pump over 9 hops, 10 min simulated, best of {} runs",
            a.repeat.max(1)
        );
        println!("  events           {:>12}", imp_events);
        println!(
            "  wall time        {:>12.4} s   (target: well under 1 s)",
            imp_best
        );
        println!("  events/s         {:>12.0}", imp_events as f64 / imp_best);
        println!(
            "IMP subnet, the same pump on the June 1974 map with the network's load (Dec 1973), best of {} runs",
            a.repeat.max(1)
        );
        println!("  events           {:>12}", loaded_events);
        println!("  wall time        {:>12.4} s", loaded_best);
        println!(
            "  events/s         {:>12.0}",
            loaded_events as f64 / loaded_best
        );
    }
    Ok(Outcome::Ok)
}
