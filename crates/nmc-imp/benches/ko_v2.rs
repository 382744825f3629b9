//! The 10-minute, 9-hop K&O run (issue 3: "well under a second"), under criterion.

use criterion::{Criterion, criterion_group, criterion_main};
use nmc_imp::scenario::{ImpScenario, run};
use nmc_sim::Trace;

fn bench(c: &mut Criterion) {
    let text = include_str!("../../../scenarios/ko-v2-chain.toml");
    let sets = [
        "network.topology.hops=9".parse().unwrap(),
        "network.hosts.1.imp=IMP9".parse().unwrap(),
    ];
    let s: ImpScenario = nmc_scenario::load("ko-v2-chain.toml", text, &sets).unwrap();
    let mut g = c.benchmark_group("ko-v2");
    g.sample_size(10);
    g.bench_function("chain 9 hops, 10 min simulated", |b| {
        b.iter(|| run(&s, 1, Trace::off(), &mut |_| {}).unwrap())
    });
    let map = include_str!("../../../scenarios/ko-v2-map.toml");
    let loaded: ImpScenario =
        nmc_scenario::load("ko-v2-map.toml", map, &["record=[]".parse().unwrap()]).unwrap();
    g.bench_function("loaded June 1974 map, 9 hops, 10 min simulated", |b| {
        b.iter(|| run(&loaded, 1, Trace::off(), &mut |_| {}).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
