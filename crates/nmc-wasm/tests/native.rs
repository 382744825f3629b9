//! The page's run is `nmc run`'s run: the summary `nmc_wasm::summary` returns (the function the
//! wasm build wraps) has the bytes of the `summary.json` that `nmc run` writes for the same
//! scenario, overrides and seed; bad input is an error of one line.

use nmc_run::{RunOptions, builtin};
use nmc_scenario::Override;

/// `nmc run NAME --seed SEED --set ...` into a fresh folder: its summary.json's text.
fn nmc_run_summary(name: &str, seed: u64, sets: &[&str]) -> String {
    let out = std::env::temp_dir().join(format!(
        "nmc-wasm-native-{name}-{seed}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&out);
    let opts = RunOptions {
        seed: Some(seed),
        sets: sets
            .iter()
            .map(|s| s.parse::<Override>().unwrap())
            .collect(),
        out: Some(out.clone()),
        trace_limit: None,
    };
    let text = builtin::find(name).unwrap();
    nmc_run::run_text(name, text, &opts, &|_| {}).unwrap();
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
    summary
}

#[test]
fn the_summary_is_nmc_runs_byte_for_byte() {
    for (name, sets) in [
        ("ko-v2-chain", &["duration=20s"][..]),
        (
            "ko-v2-chain",
            &[
                "duration=20s",
                "network.topology.hops=3",
                "network.hosts.1.imp=IMP3",
                "network.params.message_numbers=8",
            ][..],
        ),
        ("golden-chain", &[][..]),
    ] {
        let native = nmc_run_summary(name, 7, sets);
        let calls = std::cell::Cell::new(0u32);
        let got = nmc_wasm::summary(
            name,
            builtin::find(name).unwrap(),
            Some(7),
            &sets.join("\n"),
            &|_| calls.set(calls.get() + 1),
        )
        .unwrap();
        assert_eq!(got, native, "{name} {sets:?}");
        assert!(calls.get() > 0, "{name}: no progress reported");
    }
}

#[test]
fn bad_input_is_one_line_not_a_panic() {
    let chain = builtin::find("ko-v2-chain").unwrap();
    for (text, sets) in [
        ("this is not toml =", ""),
        (chain, "network.params.message_numbers=-3"),
        (chain, "no equals sign"),
        (chain, "model=\"internet-1983\""),
    ] {
        let e = nmc_wasm::summary("page", text, None, sets, &|_| {}).unwrap_err();
        let line = format!("{e:#}");
        assert!(!line.contains('\n'), "{line}");
        assert!(!line.is_empty());
    }
}
