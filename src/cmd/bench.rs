//! `nmc bench`: the engine's speed on the golden chain.
//!
//! Runs `scenarios/golden-chain.toml` (built in) for the given simulated time, several times,
//! and reports the median run's packet-hops and events per wall-clock second on one core, with
//! the fastest and slowest run beside it (a median moves less with the machine's load than a
//! best-of). Target (issue 2): at least 5 million packet-hops per second.
//! Then the IMP subnet: K&O's 10-minute pump over 9 hops on an empty chain (issue 3: well
//! under a second), and the same pump on the loaded June 1974 map (issue 10); the February
//! 1982 map with 64 host pairs pumping, and the 100,000-node chain (issue 15: routes per
//! destination, set-up in well under a second). Each case runs `--repeat` times; the median
//! is reported with the fastest and slowest; each IMP case also prints its events per delivered
//! packet-hop (issue 36), so a change that removes events shows as such, not only as time.
//! Speed targets live here, never in tests.
//! `bench/compare.sh` runs this beside a bare `BinaryHeap` loop (`bench/bare_heap.rs`, issue
//! 15's floor: aim ≥ 0.60 of its rate; measured 1.0–1.5, median 1.22, after the engine's keys
//! shrank to 16 bytes) and SimPy, alternately, and prints the ratios round by round; the
//! book's performance page (docs/src/performance.md) has the figures and where the time went.

use crate::Outcome;
use anyhow::{Result, bail};
use clap::Args;
use nmc_experiments::experiments::golden_chain::SCENARIO;
use nmc_net::{StoreForwardScenario, run as run_model};
use nmc_report::stats::{Rule, percentile};
use nmc_sim::{SimDuration, Trace};
use std::time::Instant;

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    nmc bench                                   # 5 runs of each benchmark; median and range\n  \
    nmc bench --duration 60min --repeat 3 --json")]
pub struct BenchArgs {
    /// Simulated time per run.
    #[arg(long, default_value = "600min")]
    pub duration: SimDuration,
    /// Number of timed runs (the median is reported, with the fastest and slowest).
    #[arg(long, default_value_t = 5)]
    pub repeat: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Wall-clock seconds of `n` runs: median, fastest, slowest.
struct Timing {
    median: f64,
    min: f64,
    max: f64,
}

fn time_runs(n: u32, mut f: impl FnMut() -> Result<u64>) -> Result<(Timing, u64)> {
    let mut t = Vec::new();
    let mut events = 0;
    for _ in 0..n.max(1) {
        let t0 = Instant::now();
        events = f()?;
        t.push(t0.elapsed().as_secs_f64());
    }
    t.sort_by(f64::total_cmp);
    let median = percentile(&t, 0.5, Rule::Linear).expect("at least one run");
    Ok((
        Timing {
            median,
            min: t[0],
            max: t[t.len() - 1],
        },
        events,
    ))
}

/// One timed case: its wall times, the events of a run, and its delivered packet-hops.
struct Timed {
    t: Timing,
    events: u64,
    hops: u64,
}

/// Every case `nmc bench` times.
struct Benches {
    /// The golden chain (`scenarios/golden-chain.toml`) for `--duration`.
    chain: Timed,
    /// K&O's pump over 9 hops of an empty chain, 10 min.
    imp: Timed,
    /// The same pump on the June 1974 map with the network's load, 10 min.
    loaded: Timed,
    /// The February 1982 map with 64 host pairs, 1 min.
    map82: Timed,
    /// The 100,000-node chain, 1 min, set-up included.
    c100k: Timed,
    /// The 100,000-node chain's set-up alone.
    setup: Timing,
}

pub fn run(a: BenchArgs) -> Result<Outcome> {
    // Issue 57 §5: both were taken (`--repeat 0` ran once, `--duration 0s` timed an empty run)
    // and printed rates as if measured.
    if a.repeat == 0 {
        bail!("--repeat 0: at least one timed run (the median of none is no figure)");
    }
    if a.duration.as_nanos() == 0 {
        bail!("--duration 0s: must be positive (a run of no simulated time measures no speed)");
    }
    let b = measure(&a)?;
    if a.json {
        outln!("{}", json(&a, &b));
    } else {
        print_text(&a, &b);
    }
    Ok(Outcome::Ok)
}

/// Times every case `a.repeat` times.
fn measure(a: &BenchArgs) -> Result<Benches> {
    let mut s: StoreForwardScenario = nmc_scenario::load("golden-chain.toml", SCENARIO, &[])?;
    s.duration = a.duration;
    s.record.clear();
    let mut last = None;
    let (chain, _) = time_runs(a.repeat, || {
        let out = run_model(&s, 1, Trace::off(), &mut |_| {})?;
        let e = out.events;
        last = Some(out);
        Ok(e)
    })?;
    let out = last.expect("at least one run");
    let imp: nmc_imp::scenario::ImpScenario = nmc_scenario::load(
        "ko-v2-chain.toml",
        nmc_experiments::experiments::ko_v2_throughput::CHAIN,
        &[
            "network.topology.hops=9".parse()?,
            "network.hosts.1.imp=IMP9".parse()?,
        ],
    )?;
    let mut imp_hops = 0;
    let (imp_t, imp_events) = time_runs(a.repeat, || {
        let o = nmc_imp::scenario::run(&imp, 1, Trace::off(), &mut |_| {})?;
        imp_hops = o.packet_hops;
        Ok(o.events)
    })?;
    // The same pump to BBN (9 hops) on the June 1974 map with the network's own load.
    let loaded: nmc_imp::scenario::ImpScenario = nmc_scenario::load(
        "ko-v2-map.toml",
        nmc_experiments::experiments::ko_v2_throughput::MAP,
        &["record=[]".parse()?],
    )?;
    let mut loaded_hops = 0;
    let (loaded_t, loaded_events) = time_runs(a.repeat, || {
        let keep = nmc_imp::run::Keep::Recorded;
        let o = nmc_imp::run::run_keeping(
            &nmc_imp::scenario::resolve(&loaded)?,
            1,
            Trace::off(),
            &mut |_| {},
            keep,
        )?;
        loaded_hops = o.packet_hops;
        Ok(o.events)
    })?;
    // The February 1982 map with 64 host pairs (`scenarios/map-1982-pairs.toml`, 1 min).
    let map82: nmc_imp::scenario::ImpScenario = nmc_scenario::load(
        "map-1982-pairs.toml",
        nmc_run::builtin::find("map-1982-pairs").expect("built in"),
        &[],
    )?;
    let mut map82_hops = 0;
    let (map82_t, map82_events) = time_runs(a.repeat, || {
        let keep = nmc_imp::run::Keep::Recorded;
        let o = nmc_imp::run::run_keeping(
            &nmc_imp::scenario::resolve(&map82)?,
            1,
            Trace::off(),
            &mut |_| {},
            keep,
        )?;
        map82_hops = o.packet_hops;
        Ok(o.events)
    })?;
    // The 100,000-node chain (`scenarios/chain-100k.toml`, 1 min), set-up included.
    let c100k: StoreForwardScenario = nmc_scenario::load(
        "chain-100k.toml",
        nmc_run::builtin::find("chain-100k").expect("built in"),
        &[],
    )?;
    let mut c100k_hops = 0;
    let (c100k_t, c100k_events) = time_runs(a.repeat, || {
        let o = run_model(&c100k, 1, Trace::off(), &mut |_| {})?;
        c100k_hops = o.packet_hops;
        Ok(o.events)
    })?;
    let (setup_t, _) = time_runs(a.repeat, || {
        nmc_net::StoreForward::build(&c100k, 1, Trace::off())?;
        Ok(0)
    })?;
    Ok(Benches {
        chain: Timed {
            t: chain,
            events: out.events,
            hops: out.packet_hops,
        },
        imp: Timed {
            t: imp_t,
            events: imp_events,
            hops: imp_hops,
        },
        loaded: Timed {
            t: loaded_t,
            events: loaded_events,
            hops: loaded_hops,
        },
        map82: Timed {
            t: map82_t,
            events: map82_events,
            hops: map82_hops,
        },
        c100k: Timed {
            t: c100k_t,
            events: c100k_events,
            hops: c100k_hops,
        },
        setup: setup_t,
    })
}

/// The cases as one JSON document (`--json`).
fn json(a: &BenchArgs, b: &Benches) -> serde_json::Value {
    let (chain, out_hops, out_events) = (&b.chain.t, b.chain.hops, b.chain.events);
    let hops_per_s = out_hops as f64 / chain.median;
    let events_per_s = out_events as f64 / chain.median;
    let timing = |t: &Timing, events: u64| {
        serde_json::json!({
            "wall_s": t.median, "wall_min_s": t.min, "wall_max_s": t.max, "events": events,
            "events_per_s": events as f64 / t.median,
        })
    };
    // Issue 36: events per delivered packet-hop, so a change that removes events shows as such.
    let imp_timing = |t: &Timing, events: u64, hops: u64| {
        let mut j = timing(t, events);
        j["packet_hops"] = hops.into();
        j["events_per_packet_hop"] = (events as f64 / hops as f64).into();
        j
    };
    let c100k_json = {
        let mut j = timing(&b.c100k.t, b.c100k.events);
        j["packet_hops"] = b.c100k.hops.into();
        j["packet_hops_per_s"] = (b.c100k.hops as f64 / b.c100k.t.median).into();
        j["setup_s"] = b.setup.median.into();
        j
    };
    serde_json::json!({
        "engine": "nmc", "scenario": "golden-chain", "simulated_s": a.duration.as_secs_f64(),
        "runs": a.repeat.max(1), "statistic": "median",
        "packet_hops": out_hops, "events": out_events, "wall_s": chain.median,
        "wall_min_s": chain.min, "wall_max_s": chain.max,
        "packet_hops_per_s": hops_per_s, "events_per_s": events_per_s,
        "events_per_packet_hop": out_events as f64 / out_hops as f64,
        "imp_ko_v2_9hops_10min": imp_timing(&b.imp.t, b.imp.events, b.imp.hops),
        "imp_loaded_map_9hops_10min": imp_timing(&b.loaded.t, b.loaded.events, b.loaded.hops),
        "imp_map_1982_64_pairs_1min": imp_timing(&b.map82.t, b.map82.events, b.map82.hops),
        "chain_100k_1min": c100k_json,
    })
}

/// The cases as the terminal shows them.
fn print_text(a: &BenchArgs, b: &Benches) {
    let (chain, out_hops, out_events) = (&b.chain.t, b.chain.hops, b.chain.events);
    let hops_per_s = out_hops as f64 / chain.median;
    let events_per_s = out_events as f64 / chain.median;
    let (imp_t, imp_events, imp_hops) = (&b.imp.t, b.imp.events, b.imp.hops);
    let (loaded_t, loaded_events, loaded_hops) = (&b.loaded.t, b.loaded.events, b.loaded.hops);
    let (map82_t, map82_events, map82_hops) = (&b.map82.t, b.map82.events, b.map82.hops);
    let (c100k_t, c100k_events, c100k_hops) = (&b.c100k.t, b.c100k.events, b.c100k.hops);
    let setup_t = &b.setup;
    let wall = |t: &Timing| {
        format!(
            "{:>12.4} s   (median of {}; {:.4}–{:.4})",
            t.median,
            a.repeat.max(1),
            t.min,
            t.max
        )
    };
    outln!("golden chain, {} simulated", a.duration);
    outln!("  packet-hops      {:>12}", out_hops);
    outln!("  events           {:>12}", out_events);
    outln!("  wall time        {}", wall(chain));
    outln!(
        "  packet-hops/s    {:>12.0}   (target >= 5 000 000)",
        hops_per_s
    );
    outln!("  events/s         {:>12.0}", events_per_s);
    let per_hop = |events: u64, hops: u64| {
        outln!("  packet-hops      {:>12}", hops);
        outln!(
            "  events/hop       {:>12.2}",
            events as f64 / hops.max(1) as f64
        )
    };
    per_hop(out_events, out_hops);
    outln!("IMP subnet, K&O pump over 9 hops of an empty chain, 10 min simulated");
    outln!("  events           {:>12}", imp_events);
    per_hop(imp_events, imp_hops);
    outln!(
        "  wall time        {}   (target: well under 1 s)",
        wall(imp_t)
    );
    outln!(
        "  events/s         {:>12.0}",
        imp_events as f64 / imp_t.median
    );
    outln!(
        "IMP subnet, the same pump on the June 1974 map with the network's working-hours load, 10 min simulated"
    );
    outln!("  events           {:>12}", loaded_events);
    per_hop(loaded_events, loaded_hops);
    outln!("  wall time        {}", wall(loaded_t));
    outln!(
        "  events/s         {:>12.0}",
        loaded_events as f64 / loaded_t.median
    );
    outln!("IMP subnet, February 1982 map, 64 host pairs pumping, 1 min simulated");
    outln!("  events           {:>12}", map82_events);
    per_hop(map82_events, map82_hops);
    outln!("  wall time        {}", wall(map82_t));
    outln!(
        "  events/s         {:>12.0}",
        map82_events as f64 / map82_t.median
    );
    outln!("100,000-node chain, a packet every 20.16 ms end to end, 1 min simulated");
    outln!("  packet-hops      {:>12}", c100k_hops);
    outln!("  events           {:>12}", c100k_events);
    outln!("  set-up           {}", wall(setup_t));
    outln!("  wall time        {}   (set-up included)", wall(c100k_t));
    outln!(
        "  packet-hops/s    {:>12.0}",
        c100k_hops as f64 / c100k_t.median
    );
    outln!(
        "  events/s         {:>12.0}",
        c100k_events as f64 / c100k_t.median
    );
}
