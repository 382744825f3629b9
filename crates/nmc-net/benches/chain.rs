//! Engine speed on the golden chain: packet-hops per wall second.
//!
//! The scenario is `scenarios/golden-chain.toml` run for one simulated hour (about 714 000
//! packet-hops). Criterion reports the time per run and, from the throughput setting, the
//! packet-hops per second; `nmc bench` prints the same figure together with events per second.
//! Target (issue 2): at least 5 million packet-hops per second on one core.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nmc_net::{StoreForwardScenario, run};
use nmc_sim::{SimDuration, Trace};

fn golden(duration: SimDuration) -> StoreForwardScenario {
    let text = include_str!("../../../scenarios/golden-chain.toml");
    let mut s: StoreForwardScenario = nmc_scenario::load("golden-chain.toml", text, &[]).unwrap();
    s.duration = duration;
    s.record.clear();
    s
}

fn bench(c: &mut Criterion) {
    let s = golden(SimDuration::from_mins(60));
    let hops = run(&s, 1, Trace::off(), &mut |_| {}).unwrap().packet_hops;
    let mut g = c.benchmark_group("golden-chain");
    g.sample_size(10);
    g.throughput(Throughput::Elements(hops));
    g.bench_function("1h simulated (elements = packet-hops)", |b| {
        b.iter(|| run(&s, 1, Trace::off(), &mut |_| {}).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
