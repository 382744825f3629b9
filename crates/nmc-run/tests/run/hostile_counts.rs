//! Issue 33, class 1: every count, size and pool a scenario states is checked against a stated
//! limit before anything is allocated. The mutation test beside this one (`mutated_scenarios`)
//! puts values that do not parse (`1e400`, `-1`) into whole lines; these are the values that
//! *do* parse — a chain of 4,000,000,000 hops, `u32::MAX` message numbers — set on the keys
//! that size something, the way `--set` does. Each is accepted and then runs its first 50 ms
//! to the end, or is refused in one line; an allocation the machine cannot make aborts the
//! test process, so a missing limit fails here.

use nmc_run::builtin::SCENARIOS;
use nmc_run::{RunOptions, metrics_text, resolve_text};
use proptest::prelude::*;
use std::sync::mpsc;
use std::time::Duration;

use crate::budget;

/// (shipped scenario, key, unit after the number) for every key whose value sizes a table, a
/// pool, a count of events or a loop.
const COUNTS: &[(&str, &str, &str)] = &[
    ("ko-v2-chain", "network.topology.hops", ""),
    ("ko-v2-chain", "network.params.buffers", ""),
    ("ko-v2-chain", "network.params.message_numbers", ""),
    ("ko-v2-chain", "network.params.plt_entries", ""),
    ("ko-v2-chain", "network.params.reassembly_buffers", ""),
    ("ko-v2-chain", "network.params.allocation_buffers", ""),
    ("ko-v2-chain", "network.params.output_queue_max", ""),
    ("ko-v2-chain", "network.params.logical_channels", ""),
    ("ko-v2-chain", "network.params.max_message", "bit"),
    ("ko-v2-chain", "network.params.max_packet", "bit"),
    ("ko-v2-chain", "network.sample_period", "ns"),
    ("ko-v2-chain", "network.lockup_window", "ns"),
    ("ko-v2-chain", "traffic.0.message", "bit"),
    ("ko-v3-map", "network.params.control_blocks", ""),
    ("mesh-1000", "network.topology.imps", ""),
    ("mesh-1000", "traffic.0.pairs", ""),
    ("golden-chain", "network.nodes", ""),
    ("golden-chain", "network.line.queue_limit", ""),
    ("golden-chain", "traffic.0.length.bits", "bit"),
    ("rfc889-ford1", "traffic.0.volleys", ""),
    ("rfc889-ford1", "network.hops.0.rate", "bit/s"),
    ("rfc889-ford1", "network.hops.0.frame_overhead", "bit"),
];

/// The edges of 32 and 64 bits and the powers of ten up to them: every key gets every one.
const EDGES: &[u64] = &[
    0,
    1,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
    u32::MAX as u64 / 2,
    u32::MAX as u64,
    u32::MAX as u64 + 1,
    i64::MAX as u64,
];

/// Simulated time an accepted case runs.
const RUN_FOR: &str = "duration=50ms";
/// A case that has not ended by then is taken for a hang or a crawl.
const HANG: Duration = Duration::from_secs(120);
/// An accepted case still making progress after this is stopped and counted as running: its
/// allocations are all made before the first progress call (see `budget`).
const BUDGET: Duration = Duration::from_secs(2);

/// Builds and runs `name` with `--set key=<v><unit>` on a thread of its own; `Err` says what
/// went wrong with the case (a panic, a hang, a refusal of more than one line).
fn case(name: &'static str, key: &str, v: u64, unit: &str) -> Result<(), String> {
    let text = SCENARIOS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .unwrap_or_else(|| panic!("no shipped scenario {name}"));
    let set = format!("{key}={v}{unit}");
    let (tx, rx) = mpsc::channel();
    let s = set.clone();
    std::thread::spawn(move || {
        let opts = RunOptions {
            seed: None,
            sets: vec![s.parse().unwrap(), RUN_FOR.parse().unwrap()],
            out: None,
            trace_limit: None,
        };
        let progress = budget::progress_within(BUDGET);
        let got = std::panic::catch_unwind(|| -> Result<(), String> {
            let origin = format!("{name}.toml");
            resolve_text(&origin, text, &opts).map_err(|e| format!("{e:#}"))?;
            metrics_text(&origin, text, &opts, &progress).map_err(|e| format!("{e:#}"))?;
            Ok(())
        });
        let _ = tx.send(got);
    });
    match rx.recv_timeout(HANG) {
        Err(_) => Err(format!("{name} --set {set}: no end within {HANG:?}")),
        Ok(Err(p)) if budget::stopped(&*p) => Ok(()),
        Ok(Err(_)) => Err(format!("{name} --set {set}: panic")),
        Ok(Ok(Ok(()))) => Ok(()),
        Ok(Ok(Err(e))) if e.contains('\n') || e.is_empty() || e.chars().count() > 1000 => {
            Err(format!("{name} --set {set}: not one short line: {e}"))
        }
        Ok(Ok(Err(_))) => Ok(()),
    }
}

#[test]
fn every_count_at_every_edge_is_bounded_or_refused_in_one_line() {
    let mut bad = Vec::new();
    for &(name, key, unit) in COUNTS {
        for &v in EDGES {
            if let Err(e) = case(name, key, v, unit) {
                bad.push(e);
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 32,
        failure_persistence: crate::regressions(),
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_count_between_the_edges_is_bounded_or_refused_in_one_line(
        which in 0..COUNTS.len(),
        v in 0u64..200_000,
    ) {
        let (name, key, unit) = COUNTS[which];
        if let Err(e) = case(name, key, v, unit) {
            prop_assert!(false, "{e}");
        }
    }
}
