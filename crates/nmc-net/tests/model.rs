//! The store-and-forward model against cases whose answer is known exactly or by theory.

use nmc_net::{StoreForwardScenario, run};
use nmc_scenario::{Override, load};
use nmc_sim::Trace;

const GOLDEN: &str = include_str!("../../../scenarios/golden-chain.toml");

fn scenario(text: &str, sets: &[&str]) -> StoreForwardScenario {
    let sets: Vec<Override> = sets.iter().map(|s| s.parse().unwrap()).collect();
    load("test.toml", text, &sets).unwrap()
}

/// Issue 2's golden scenario: every packet delivered, mean delay exactly 81.040 ms.
#[test]
fn golden_chain_delivers_everything_in_81_040_ms() {
    let s = scenario(GOLDEN, &[]);
    let out = run(&s, 1, Trace::off(), &mut |_| {}).unwrap();
    let m = &out.metrics;
    // 10 min / 20.16 ms = 29761.9: offers at 0, 20.16, ..., 29761 x 20.16 ms.
    assert_eq!(m.packets.offered, 29_762);
    assert_eq!(m.packets.dropped, 0);
    // Packets offered in the last 81.04 ms are still on their way when the run stops.
    assert_eq!(m.packets.delivered + m.packets.in_flight, 29_762);
    assert!(m.packets.in_flight <= 5);
    assert_eq!(m.delay.min_ms, 81.04);
    assert_eq!(m.delay.max_ms, 81.04);
    assert!((m.delay.mean_ms - 81.04).abs() < 1e-9);
}

/// A single line fed by Poisson arrivals of fixed-length packets is an M/D/1 queue: the
/// Pollaczek–Khinchine mean wait is rho * S / (2 (1 - rho)). Tolerance: 2 % (issue 2).
#[test]
fn single_line_matches_md1() {
    let s = scenario(include_str!("../../../scenarios/md1.toml"), &[]);
    let out = run(&s, 11, Trace::off(), &mut |_| {}).unwrap();
    let service_ms = 20.16;
    let rho = service_ms / 40.32;
    let wq = rho * service_ms / (2.0 * (1.0 - rho));
    let measured = out.metrics.delay.mean_ms - service_ms;
    let err = (measured - wq).abs() / wq;
    assert!(
        err < 0.02,
        "M/D/1 mean wait: ours {measured:.4} ms, Pollaczek-Khinchine {wq:.4} ms ({:.2} % off, n = {})",
        err * 100.0,
        out.metrics.packets.delivered
    );
}

#[test]
fn seeds_change_random_runs_and_only_them() {
    let text = GOLDEN.replace(
        r#"arrivals = { kind = "constant", interval = "20.16ms" }"#,
        r#"arrivals = { kind = "poisson", mean_interval = "30ms" }"#,
    );
    let s = scenario(&text, &["duration=1min"]);
    let a = run(&s, 1, Trace::off(), &mut |_| {}).unwrap();
    let b = run(&s, 1, Trace::off(), &mut |_| {}).unwrap();
    let c = run(&s, 2, Trace::off(), &mut |_| {}).unwrap();
    assert_eq!(a.metrics, b.metrics);
    assert_ne!(a.metrics.delay.mean_ms, c.metrics.delay.mean_ms);
    // The golden chain has no randomness: the seed must not matter.
    let g = scenario(GOLDEN, &["duration=1min"]);
    let x = run(&g, 1, Trace::off(), &mut |_| {}).unwrap();
    let y = run(&g, 99, Trace::off(), &mut |_| {}).unwrap();
    assert_eq!(x.metrics, y.metrics);
}

#[test]
fn saturating_source_fills_the_first_line() {
    let text = GOLDEN.replace(
        r#"arrivals = { kind = "constant", interval = "20.16ms" }"#,
        r#"arrivals = { kind = "saturate" }"#,
    );
    let s = scenario(&text, &["duration=1min"]);
    let out = run(&s, 1, Trace::off(), &mut |_| {}).unwrap();
    assert_eq!(out.metrics.packets.dropped, 0);
    assert!(out.metrics.line_max_utilisation > 0.99);
    // 1 min at 50 kbit/s is 2976.19 packet times: delivered throughput just below 50 kbit/s.
    assert!((out.metrics.throughput_kbps - 50.0).abs() < 0.2);
}

#[test]
fn overload_drops_at_the_queue_limit() {
    let s = scenario(
        GOLDEN,
        &[
            "traffic.0.arrivals.interval=10ms",
            "network.line.queue_limit=8",
            "duration=1min",
        ],
    );
    let out = run(&s, 1, Trace::off(), &mut |_| {}).unwrap();
    assert!(out.metrics.packets.dropped > 2000);
    assert!(out.lines.iter().all(|l| l.max_queue <= 8));
}

#[test]
fn bad_networks_and_traffic_are_named() {
    let cases: &[(&[&str], &str)] = &[
        (&["traffic.0.to=9"], "traffic[0].to = 9: no such node"),
        (&["network.nodes=1"], "at least 2 nodes"),
        (
            &["network.topology=lines"],
            "needs at least one [[network.lines]]",
        ),
        (
            &["traffic.0.arrivals.interval=0s"],
            "traffic[0].arrivals.interval must be above zero",
        ),
        (&["record=[\"bogus\"]"], "unknown record `bogus`"),
    ];
    for (sets, want) in cases {
        let s = scenario(GOLDEN, sets);
        let e = run(&s, 1, Trace::off(), &mut |_| {})
            .err()
            .expect("must fail")
            .to_string();
        assert!(e.contains(want), "{sets:?}: {e}");
        assert!(!e.contains('\n'));
    }
    // Two separate islands: 0-1 and 2-3.
    let text = GOLDEN.replace(
        "topology = \"chain\"",
        "topology = \"lines\"\nlines = [{a = 0, b = 1}, {a = 2, b = 3}]",
    );
    let s = scenario(&text, &["traffic.0.to=3"]);
    let e = run(&s, 1, Trace::off(), &mut |_| {})
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("unreachable"), "{e}");
}
