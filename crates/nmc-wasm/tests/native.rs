//! The page's run is `nmc run`'s run: the summary `nmc_wasm::summary` returns (the function the
//! wasm build wraps) has the bytes of the `summary.json` that `nmc run` writes for the same
//! scenario, overrides and seed; bad input is an error of one line.

use nmc_run::{RunOptions, builtin};
use nmc_scenario::Override;

/// `nmc run NAME --seed SEED --set ...` into a fresh folder: the text of its file `file`.
fn nmc_run_file(name: &str, seed: u64, sets: &[impl AsRef<str>], file: &str) -> String {
    let out = std::env::temp_dir().join(format!(
        "nmc-wasm-native-{name}-{seed}-{file}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&out);
    let opts = RunOptions {
        seed: Some(seed),
        sets: sets
            .iter()
            .map(|s| s.as_ref().parse::<Override>().unwrap())
            .collect(),
        out: Some(out.clone()),
        trace_limit: None,
    };
    nmc_run::run_text(name, builtin::find(name).unwrap(), &opts, &|_| {}).unwrap();
    let text = std::fs::read_to_string(out.join(file)).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
    text
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
        let native = nmc_run_file(name, 7, sets, "summary.json");
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

#[test]
fn the_slices_are_nmc_runs_slices_json() {
    for (name, sets, window) in [
        (
            "ko-v2-map",
            &["duration=3s", "network.params.message_numbers=8"][..],
            (1000, 40, 40),
        ),
        (
            "ko-v2-chain",
            &[
                "duration=2s",
                "network.topology.hops=3",
                "network.hosts.1.imp=IMP3",
            ][..],
            (500, 25, 30),
        ),
    ] {
        let run = nmc_wasm::slices(
            name,
            builtin::find(name).unwrap(),
            Some(7),
            &sets.join("\n"),
            window,
            &|_| {},
        )
        .unwrap();
        let mut native_sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        native_sets.push(run.set.clone());
        let native: serde_json::Value =
            serde_json::from_str(&nmc_run_file(name, 7, &native_sets, "slices.json")).unwrap();
        let got = serde_json::to_value(&run.slices).unwrap();
        assert_eq!(got, native, "{name} {sets:?}");
        assert!(!run.slices.is_empty(), "{name}: no slice taken");
        // The path runs from the pair's source IMP to its destination, one IMP a hop.
        let first = &run.slices[0];
        assert_eq!(run.path.len(), first.hops as usize + 1, "{name}");
        assert_eq!(run.path[0].name, first.from);
        assert_eq!(run.path.last().unwrap().name, first.to);
        assert!(
            run.lines
                .iter()
                .all(|l| (0.0..=1.0).contains(&l.utilisation))
        );
    }
}

#[test]
fn the_map_run_has_the_nine_hop_path_with_coordinates() {
    let name = "ko-v2-map";
    let run = nmc_wasm::slices(
        name,
        builtin::find(name).unwrap(),
        None,
        "duration=2s",
        (1000, 100, 5),
        &|_| {},
    )
    .unwrap();
    assert_eq!(run.map.as_deref(), Some("1974-06"));
    let names: Vec<&str> = run.path.iter().map(|s| s.name.as_str()).collect();
    assert_eq!((names[0], names[9], names.len()), ("UCLA", "BBN", 10));
    assert!(run.sites.iter().all(|s| s.lat.is_some() && s.lon.is_some()));
    // The instants asked for are the --set line nmc run would take.
    assert_eq!(
        run.set,
        r#"network.slices=["1000ms", "1100ms", "1200ms", "1300ms", "1400ms"]"#
    );
}

#[test]
fn bad_slice_requests_are_one_line_not_a_panic() {
    let map = builtin::find("ko-v2-map").unwrap();
    let req = |text: &str, sets: &str, window: (u64, u64, u64)| {
        serde_json::json!({
            "call": "slices", "origin": "page", "text": text, "overrides": sets,
            "start_ms": window.0, "step_ms": window.1, "count": window.2,
        })
        .to_string()
    };
    for request in [
        // past the cap, nothing run
        req(map, "duration=2s", (0, 1, nmc_wasm::MAX_INSTANTS + 1)),
        req(map, "duration=2s", (0, 1, u64::MAX)),
        req(map, "duration=2s", (0, 0, 10)),
        req(map, "duration=2s", (u64::MAX, 1, 2)),
        // an instant past the run's end
        req(map, "duration=2s", (1000, 500, 5)),
        // not a scenario; not the IMP model
        req("this is not toml =", "", (0, 10, 10)),
        req(builtin::find("golden-chain").unwrap(), "", (0, 10, 10)),
        req(map, "model=\"store-forward\"", (0, 10, 10)),
        // a request without its window
        r#"{"call": "slices", "origin": "page", "text": ""}"#.to_string(),
    ] {
        match nmc_wasm::call(&request, &|_| {}) {
            nmc_wasm::Reply::Error(line) => {
                assert!(!line.contains('\n') && !line.is_empty(), "{line}")
            }
            nmc_wasm::Reply::Ok(_) => panic!("{request}: no error"),
        }
    }
    let over = nmc_wasm::call(&req(map, "", (0, 1, nmc_wasm::MAX_INSTANTS + 1)), &|_| {});
    assert_eq!(
        over,
        nmc_wasm::Reply::Error(format!(
            "time slices: {} instants asked for; from 1 to {}",
            nmc_wasm::MAX_INSTANTS + 1,
            nmc_wasm::MAX_INSTANTS
        ))
    );
}
