//! The golden chain alone, for profiling the engine (`perf record`, callgrind) without the
//! rest of `nmc bench`, and built without the CLI's dependencies so that an engine change
//! rebuilds in seconds:
//! `cargo build --release -p nmc-net --example chain_speed && perf record -g
//! target/release/examples/chain_speed [simulated minutes, default 600] [runs, default 3]`.
use nmc_net::{StoreForwardScenario, run};
use nmc_sim::{SimDuration, Trace};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let minutes: u64 = args.next().map(|a| a.parse().unwrap()).unwrap_or(600);
    let repeat: u32 = args.next().map(|a| a.parse().unwrap()).unwrap_or(3);
    let text = include_str!("../../../scenarios/golden-chain.toml");
    let mut s: StoreForwardScenario = nmc_scenario::load("golden-chain.toml", text, &[]).unwrap();
    s.duration = SimDuration::from_mins(minutes);
    s.record.clear();
    for _ in 0..repeat {
        let t0 = Instant::now();
        let o = run(&s, 1, Trace::off(), &mut |_| {}).unwrap();
        let w = t0.elapsed().as_secs_f64();
        println!(
            "hops {} events {} wall {:.4} s  {:.2} M hops/s  {:.2} M events/s  mean {:.3}",
            o.packet_hops,
            o.events,
            w,
            o.packet_hops as f64 / w / 1e6,
            o.events as f64 / w / 1e6,
            o.metrics.delay.mean_ms
        );
    }
}
