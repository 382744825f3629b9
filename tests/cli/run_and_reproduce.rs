//! The `nmc` binary as a user meets it: exit codes, one-line errors, reproducible outputs.

use super::reproduce_table::{all_quick_ok, assert_rows_match_snapshot, rows};
use super::{command, nmc, stderr, tmp};
use nmc_report::Kind;

/// Same seed, same bytes: summary.json and the event trace (issue 2, determinism).
#[test]
fn same_seed_gives_identical_bytes() {
    let dir = tmp("determinism");
    let scenario = dir.join("poisson.toml");
    let text = std::fs::read_to_string("scenarios/golden-chain.toml")
        .unwrap()
        .replace(
            r#"arrivals = { kind = "constant", interval = "20.16ms" }"#,
            r#"arrivals = { kind = "poisson", mean_interval = "25ms" }"#,
        );
    std::fs::write(&scenario, text).unwrap();
    let mut outs = Vec::new();
    for (run, seed) in [("a", "5"), ("b", "5"), ("c", "6")] {
        let out = dir.join(run);
        let o = nmc(&[
            "run",
            scenario.to_str().unwrap(),
            "--seed",
            seed,
            "--set",
            "duration=20s",
            "--set",
            "trace=true",
            "--set",
            "record=[\"packets\", \"lines\"]",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let read = |f: &str| std::fs::read(out.join(f)).unwrap();
        outs.push((
            read("summary.json"),
            read("trace.jsonl"),
            read("packets.csv"),
        ));
    }
    assert_eq!(
        outs[0], outs[1],
        "same seed must give byte-identical outputs"
    );
    assert_ne!(
        outs[0].0, outs[2].0,
        "another seed must change a random run"
    );
    assert_ne!(outs[0].1, outs[2].1);
    let summary: serde_json::Value = serde_json::from_slice(&outs[0].0).unwrap();
    assert_eq!(summary["seed"], 5);
    assert_eq!(summary["scenario"], "golden-chain");
    assert_eq!(summary["config_hash"].as_str().unwrap().len(), 64);
    assert!(summary["metrics"]["packets.delivered"].as_f64().unwrap() > 500.0);
}

/// Every kind of bad input: exit 2 and one line naming what is wrong, never a panic.
#[test]
fn bad_input_is_one_line_and_exit_2() {
    let dir = tmp("bad-input");
    let good = std::fs::read_to_string("scenarios/golden-chain.toml").unwrap();
    let cases: Vec<(&str, String, Vec<&str>, &str)> = vec![
        (
            "unknown-key",
            good.replace("nodes = 5", "nodes = 5\nnodez = 5"),
            vec![],
            "unknown field `nodez`",
        ),
        (
            "wrong-type",
            good.replace("nodes = 5", "nodes = \"five\""),
            vec![],
            ":14:",
        ),
        (
            "bad-unit",
            good.replace("50kbit/s", "50kbits/s"),
            vec![],
            "unknown unit `kbits/s`",
        ),
        (
            "no-unit",
            good.replace("\"0.1ms\"", "0.1"),
            vec![],
            "propagation",
        ),
        (
            "syntax",
            good.replace("[network]", "[network"),
            vec![],
            "syntax.toml:12:",
        ),
        ("no-seed", good.replace("seed = 1\n", ""), vec![], "no seed"),
        (
            "unknown-model",
            good.replace("store-forward", "teleport"),
            vec![],
            "unknown model `teleport`",
        ),
        (
            "unreachable",
            good.clone(),
            vec!["--set", "traffic.0.to=12"],
            "--set traffic.0.to=12: traffic[0].to = 12: no such node",
        ),
        // Checks made after reading (the model's own) name the file, line and column too.
        (
            "zero-nodes",
            good.replace("nodes = 5", "nodes = 0"),
            vec![],
            "zero-nodes.toml:14:1: network.nodes",
        ),
        (
            "zero-queue",
            good.replace("queue_limit = 64", "queue_limit = 0"),
            vec![],
            "zero-queue.toml:19:1: network.line.queue_limit",
        ),
        (
            "to-itself",
            good.replace("to = 4", "to = 0"),
            vec![],
            "to-itself.toml:21:1: traffic[0]: from and to are both node 0",
        ),
        (
            "zero-interval",
            good.replace("\"20.16ms\"", "\"0ms\""),
            vec![],
            "zero-interval.toml:24:33: traffic[0].arrivals.interval must be above zero",
        ),
        (
            "bad-set",
            good.clone(),
            vec!["--set", "network.line.capacity=fast"],
            "--set network.line.capacity=fast",
        ),
        (
            "set-without-value",
            good.clone(),
            vec!["--set", "seed"],
            "expected path.to.key=value",
        ),
    ];
    for (name, text, extra, want) in cases {
        let f = dir.join(format!("{name}.toml"));
        std::fs::write(&f, text).unwrap();
        let mut args = vec!["run", f.to_str().unwrap(), "--out", dir.to_str().unwrap()];
        args.extend(extra);
        let o = nmc(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(want), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: not one line: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    let o = nmc(&["run", "does/not/exist.toml"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("does/not/exist.toml"));
    let o = nmc(&["reproduce", "no-such-experiment"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown experiment `no-such-experiment`"));
    let o = nmc(&["reproduce"]);
    assert_eq!(o.status.code(), Some(2));
    // Usage errors (clap's) are one line too, and name the subcommand's --help.
    for (args, want) in [
        (
            &["run"][..],
            "<SCENARIO> (usage: nmc run <SCENARIO>; see 'nmc run --help')",
        ),
        (
            &["run", "x", "--frob"],
            "unexpected argument '--frob' found; tip:",
        ),
        (&["reproduce", "--jobs", "x"], "see 'nmc reproduce --help'"),
        (
            &["rto", "synth", "--volleys", "x"],
            "see 'nmc rto synth --help'",
        ),
        (&["frob"], "unrecognized subcommand 'frob'"),
    ] {
        let o = nmc(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err}");
        assert!(
            err.starts_with("nmc: ") && err.contains(want),
            "{args:?}: {err}"
        );
    }
}

/// `[network.program]` (issue 73 §3) checked before anything is written: a scenario whose
/// IMPs run the IMP program, without the program, or with a record the program's IMPs cannot
/// make, is one line and exit 2, and no output folder appears.
#[test]
fn a_program_scenario_is_checked_before_anything_is_written() {
    let dir = tmp("program-checks");
    let out = dir.join("out");
    let keep = "record=[\"messages\",\"lines\"]";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "--set",
                "network.program.path=/nowhere/impcode.cmd",
                "--set",
                keep,
            ],
            "cannot read the IMP program /nowhere/impcode.cmd",
        ),
        (
            vec!["--set", "network.program.settle=5s", "--set", keep],
            "no IMP program: set network.program.path or NMC_IMP_PROGRAM",
        ),
        (
            vec!["--set", "network.program.path=/nowhere/impcode.cmd"],
            "record = [\"occupancy\"]: not made on IMPs that run the program",
        ),
        (
            vec!["--set", "network.program.imps=[\"NOWHERE\"]", "--set", keep],
            "NOWHERE is not an IMP",
        ),
    ];
    for (sets, want) in cases {
        let mut args = vec!["run", "ko-v2-map", "--out", out.to_str().unwrap()];
        args.extend(sets.iter().copied());
        let o = command()
            .args(&args)
            .env_remove("NMC_IMP_PROGRAM")
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{sets:?}: {err}");
        assert!(err.contains(want), "{sets:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{sets:?}: not one line: {err}");
        assert!(!out.exists(), "{sets:?}: an output folder was made");
    }
}

/// A reproduction that ran exits 0 and says which rows missed; `--strict` exits 1 exactly when
/// a row in reproduce.json is outside its tolerance. (rfc889-delay: a fraction of a second,
/// with rows that miss and rows within.)
#[test]
fn reproduce_exits_0_when_it_ran_and_strict_fails_on_a_miss() {
    let dir = tmp("strict");
    let out = dir.to_str().unwrap();
    let o = nmc(&["reproduce", "rfc889-delay", "--quick", "--out", out]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("reproduce.json")).unwrap()).unwrap();
    let missed = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["within"] == false)
        .count();
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("emergent rows within tolerance"), "{table}");
    assert_eq!(table.contains("Outside tolerance"), missed > 0, "{table}");
    // Both ways are exercised: rfc889-delay has rows that miss (the snapshot's known misses),
    // and a run with none (golden-chain) exits 0 under --strict.
    assert!(missed > 0, "rfc889-delay has known misses");
    let strict = nmc(&[
        "reproduce",
        "rfc889-delay",
        "--quick",
        "--strict",
        "--out",
        out,
    ]);
    assert_eq!(strict.status.code(), Some(1), "{missed} rows missed");
    let clean = nmc(&[
        "reproduce",
        "golden-chain",
        "--quick",
        "--strict",
        "--out",
        out,
    ]);
    assert_eq!(clean.status.code(), Some(0), "{}", stderr(&clean));
}

#[test]
fn reproduce_writes_table_json_and_page() {
    let dir = tmp("reproduce");
    let o = nmc(&[
        "reproduce",
        "golden-chain",
        "--quick",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("CHAIN delay"), "{table}");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("reproduce.json")).unwrap()).unwrap();
    assert_eq!(doc["seed"], 1);
    let board = &doc["scoreboard"]["quantities"][0];
    assert_eq!(board["id"], "CHAIN");
    assert_eq!(board["verdict"], "reproduced");
    let row = &doc["rows"][0];
    for key in [
        "experiment",
        "id",
        "quantity",
        "published",
        "ours",
        "unit",
        "tolerance",
        "within",
        "kind",
        "figure",
    ] {
        assert!(row.get(key).is_some(), "reproduce.json rows need `{key}`");
    }
    assert_eq!(row["within"], true);
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("CHAIN delay"));
}

/// `nmc reproduce --list` says, under each experiment, what its runs repeat over and what
/// `--quick` shortens: the plan the registry carries out.
#[test]
fn reproduce_list_shows_each_plan() {
    let o = nmc(&["reproduce", "--list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let plan_of = |id: &str| {
        let mut lines = text.lines().skip_while(|l| !l.starts_with(id));
        lines.next().unwrap_or_else(|| panic!("{id} is listed"));
        lines.next().unwrap().trim().to_string()
    };
    assert_eq!(
        plan_of("ko-v2-throughput"),
        "3 seeds (one with --quick); --quick: duration=2min"
    );
    assert_eq!(plan_of("rfc626-lockup"), "one seed; --quick: duration=20s");
    assert_eq!(
        plan_of("ko-routing-tables"),
        "one seed; --quick: the same runs"
    );
    assert!(plan_of("r889-estimators").contains("5 runs of 512 volleys per path instead of 20"));
}

/// Runs `nmc ARGS` with its stdout a pipe whose reader has already gone.
fn with_stdout_closed(args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    super::command()
        .args(args)
        .stdout(writer)
        .output()
        .expect("nmc runs")
}

/// A reader that has gone (`nmc reproduce --list | head -1` once `head` exits): the listing
/// stops quietly with success, not a panic about a broken pipe.
#[test]
fn a_closed_pipe_ends_a_listing_quietly() {
    for args in [
        &["reproduce", "--list"][..],
        &["scenarios"][..],
        &["scenarios", "show", "golden-chain"][..],
    ] {
        let o = with_stdout_closed(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}");
    }
}

/// A closed stdout loses nothing else: the run still writes its files and its exit status
/// still says how it went — success for a run that worked, failure (not a panic's 101) for a
/// probe that nobody answered, whose files are written all the same.
#[test]
fn a_closed_pipe_keeps_the_files_and_the_exit_status() {
    let dir = tmp("closed-pipe");
    let run_out = dir.join("run");
    let probe_out = dir.join("probe");
    // A loopback UDP port with nothing on it: bound, then let go.
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let target = format!("127.0.0.1:{port}");
    let run: &[&str] = &[
        "run",
        "scenarios/golden-chain.toml",
        "--set",
        "duration=2s",
        "--out",
        run_out.to_str().unwrap(),
    ];
    let probe: &[&str] = &[
        "echo",
        "probe",
        &target,
        "--count",
        "3",
        "--timeout",
        "100ms",
        "--gap",
        "1ms",
        "--report-interval",
        "10ms",
        "--out",
        probe_out.to_str().unwrap(),
    ];
    for (args, ok, out, files) in [
        (run, true, &run_out, &["summary.json"][..]),
        (
            probe,
            false,
            &probe_out,
            &["trace.csv", "summary.json", "delay-vs-length.svg"][..],
        ),
    ] {
        let o = with_stdout_closed(args);
        assert_eq!(o.status.success(), ok, "{args:?}: {}", stderr(&o));
        assert_ne!(
            o.status.code(),
            Some(101),
            "{args:?} panicked: {}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
        for f in files {
            assert!(out.join(f).is_file(), "{args:?}: {f} not written");
        }
    }
}

#[test]
fn every_subcommand_has_help() {
    for sub in [
        &["--help"][..],
        &["run", "--help"],
        &["reproduce", "--help"],
        &["bench", "--help"],
        &["stream", "--help"],
        &["sink", "--help"],
    ] {
        let o = nmc(sub);
        assert!(o.status.success(), "{sub:?}");
        assert!(String::from_utf8_lossy(&o.stdout).contains("Usage"));
    }
}

/// Issue 36: `nmc bench --json` gives events per delivered packet-hop for the chain and every
/// IMP case (counts, not timings: the IMP model handles several events per packet-hop).
#[test]
fn bench_reports_events_per_packet_hop() {
    let o = nmc(&["bench", "--json", "--duration", "1min", "--repeat", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let chain = j["events_per_packet_hop"].as_f64().unwrap();
    assert!(chain > 1.0 && chain < 4.0, "chain: {chain}");
    for case in [
        "imp_ko_v2_9hops_10min",
        "imp_loaded_map_9hops_10min",
        "imp_map_1982_64_pairs_1min",
    ] {
        let c = &j[case];
        let (events, hops) = (
            c["events"].as_u64().unwrap(),
            c["packet_hops"].as_u64().unwrap(),
        );
        assert!(
            hops > 0 && events > hops,
            "{case}: {events} events, {hops} hops"
        );
        let per = c["events_per_packet_hop"].as_f64().unwrap();
        assert!((per - events as f64 / hops as f64).abs() < 1e-9, "{case}");
    }
}

/// Issue 11: `nmc reproduce ko-v3-throughput` prints KO-7..KO-9 beside the published values,
/// with the mechanism plots and the time slices.
#[test]
fn ko_v3_throughput_rows_plots_and_slices() {
    let (table, dir) = all_quick_ok();
    for id in [
        "KO-7 ",
        "KO-FIG7 316 queue",
        "KO-FIG7 phasing",
        "KO-FIG7 time slice",
        "KO-8",
        "KO-9 ",
        "KO-9 below Oct 1974",
        "KO-9 above Feb 1975",
    ] {
        assert!(table.contains(id), "{id} missing:\n{table}");
    }
    let d = dir.join("ko-v3-throughput");
    for f in [
        "curve.csv",
        "fig9-throughput.svg",
        "plt-holders.svg",
        "rfnm-wait.svg",
        "plt-feb1975-9hops.svg",
        "slice-feb1975-9hops.svg",
        "slice-may1975-9hops.svg",
        "slice-vdh-feb1975-9hops.svg",
        "what_if_9hops.csv",
    ] {
        assert!(d.join(f).exists(), "{f}");
    }
    // The slice draws K&O's shapes: RFNMs (ovals) waiting before the fix.
    let slice = std::fs::read_to_string(d.join("slice-feb1975-9hops.svg")).unwrap();
    assert!(slice.contains("<ellipse") && slice.contains("waiting for an ALL"));
    let curve = std::fs::read_to_string(d.join("curve.csv")).unwrap();
    assert!(curve.lines().count() > 33, "one row per run");
}

/// `network.slices` in a user's own run: every slice as data and each drawn, the pair's ends
/// named (they used to be taken and then dropped by `nmc run`).
#[test]
fn a_run_writes_the_time_slices_it_takes() {
    let out = tmp("run-slices").join("o");
    let o = nmc(&[
        "run",
        "ko-v3-map",
        "--set",
        "duration=40s",
        "--set",
        "network.slices=[\"20s\", \"30s\"]",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let slices: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("slices.json")).unwrap()).unwrap();
    let slices = slices.as_array().unwrap();
    assert_eq!(slices.len(), 2);
    assert_eq!(slices[0]["t_ns"], 20_000_000_000u64);
    assert_eq!(slices[1]["t_ns"], 30_000_000_000u64);
    assert_eq!(
        (&slices[0]["from"], &slices[0]["to"]),
        (&"UCLA".into(), &"ARPA".into())
    );
    assert_eq!(slices[0]["hops"], 9);
    assert!(!slices[0]["items"].as_array().unwrap().is_empty());
    for f in ["slice-1.svg", "slice-2.svg"] {
        let svg = std::fs::read_to_string(out.join(f)).unwrap();
        assert!(svg.contains(">UCLA<") && svg.contains(">ARPA<"), "{f}");
        assert!(svg.contains("<rect x=") && svg.contains("MSG i"), "{f}");
    }
    // Without slices asked for, no slice files.
    let plain = tmp("run-slices").join("plain");
    let o = nmc(&[
        "run",
        "ko-v3-map",
        "--set",
        "duration=10s",
        "--out",
        plain.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!plain.join("slices.json").exists() && !plain.join("slice-1.svg").exists());
}

/// Issue 3: `nmc reproduce ko-v2-throughput` prints KO-1..KO-5 with published value, ours and
/// tolerance (a row that misses is reported, not hidden); every row is the reviewed one of the
/// snapshot (issue 17).
#[test]
fn ko_v2_throughput_rows_and_plots() {
    let (table, dir) = all_quick_ok();
    assert_rows_match_snapshot(dir);
    for id in [
        "KO-1 1 hop",
        "KO-2",
        "KO-3 9",
        "KO-4 5",
        "KO-5 9",
        "RFC619-T1 5",
    ] {
        assert!(table.contains(id), "{id} missing:\n{table}");
    }
    for f in [
        "curve.csv",
        "fig3-throughput.svg",
        "fig4-round-trip.svg",
        "fig5-histogram.svg",
        "fig6-autocorrelation.svg",
        "time-slices.svg",
        "sensitivity_9hops.csv",
        "ablation_9hops.csv",
        "adaptive_routing.csv",
        "what_if_line_delay.csv",
        "destinations.csv",
        "sensitivity-load.svg",
        "rfc619_table1.csv",
    ] {
        assert!(dir.join("ko-v2-throughput").join(f).exists(), "{f}");
    }
    let run_dir = tmp("ko-v2-run");
    let run = nmc(&[
        "run",
        "scenarios/ko-v2-chain.toml",
        "--set",
        "duration=20s",
        "--out",
        run_dir.join("run").to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(
        run_dir.join("run/messages.csv").exists() && run_dir.join("run/occupancy.svg").exists()
    );
}

/// Issue 5: the RFC 632 experiments print their rows and write the tables; a scenario that locks
/// up stops and says what is held. Every row is the reviewed one of the snapshot (issue 17).
#[test]
fn rfc632_experiments_and_a_lockup_run() {
    let dir = tmp("rfc632");
    let o = nmc(&[
        "reproduce",
        "rfc632-single-packet",
        "rfc632-trace",
        "rfc626-lockup",
        "--quick",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_rows_match_snapshot(&dir);
    let rows = rows(&dir);
    // Accept-all may lock up (emergent: whether it does within the run depends on the seed,
    // which draws the 1974 IMPs' clocks; the snapshot holds seed 1's); the three RFC 632 rules
    // cannot (sanity bounds).
    let lockups: Vec<(&str, Kind, bool)> = rows
        .iter()
        .filter(|c| c.id.starts_with("RFC626 lockup"))
        .map(|c| (c.quantity.as_str(), c.kind, c.within))
        .collect();
    let accept_all_locked = lockups[0].2;
    assert_eq!(
        lockups,
        [
            (
                "reassembly at the destination, rfc626-accept-all",
                Kind::Emergent,
                accept_all_locked
            ),
            (
                "reassembly at the destination, rfc632-fix-b",
                Kind::SanityBound,
                true
            ),
            (
                "reassembly at the destination, rfc632-fix-a",
                Kind::SanityBound,
                true
            ),
            (
                "reassembly at the destination, rfc632-current",
                Kind::SanityBound,
                true
            ),
        ]
    );
    let table = String::from_utf8_lossy(&o.stdout);
    for id in [
        "R632-1 current",
        "R632-1 fix B",
        "R632-2 Table 1",
        "R632-2 Table 2",
        "RFC626 lockup",
    ] {
        assert!(table.contains(id), "{id} missing:\n{table}");
    }
    let t1 = std::fs::read_to_string(dir.join("rfc632-trace/table1.txt")).unwrap();
    assert!(t1.contains("SOURCE IMP") && t1.contains("ALL(i+1) arr"));
    assert_eq!(
        dir.join("rfc626-lockup/lockup-rfc626-accept-all.json")
            .exists(),
        accept_all_locked
    );
    // Seed 6 locks up within the minute (6.25 s).
    let run = nmc(&[
        "run",
        "scenarios/rfc626-lockup.toml",
        "--set",
        "network.profile=rfc626-accept-all",
        "--seed",
        "6",
        "--out",
        dir.join("run").to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(String::from_utf8_lossy(&run.stdout).contains("lockup at"));
    assert!(dir.join("run/lockup.json").exists());
}

/// Issue 4: `nmc reproduce ko-alternate-path ko-looping` prints the KO-10 and loop rows with
/// their plots and records; `nmc run` writes the routing records of an adaptive scenario.
/// Every row, loops included, is the reviewed one of the snapshot (issue 17); the rows that
/// cannot fail are marked as such.
#[test]
fn adaptive_routing_experiments_rows_and_records() {
    let (table, dir) = all_quick_ok();
    assert_rows_match_snapshot(dir);
    let kind = |id: &str| {
        rows(dir)
            .into_iter()
            .find(|c| c.id == id)
            .map(|c| c.kind)
            .unwrap_or_else(|| panic!("no row {id}"))
    };
    assert_eq!(kind("KO-10 backlog"), Kind::RestatedInput);
    assert_eq!(kind("KO-10 gain hold-down-1974"), Kind::SanityBound);
    assert_eq!(kind("KO-10 switching"), Kind::Emergent);
    assert_eq!(kind("KO-10 gain none"), Kind::Variant);
    assert_eq!(kind("KO-10 3× 1/4"), Kind::SanityBound);
    assert_eq!(kind("KO-10 3× 2/7"), Kind::SanityBound);
    assert_eq!(kind("KO-LOOP loop-free"), Kind::SanityBound);
    assert_eq!(kind("KO-LOOP traps, 1974"), Kind::Emergent);
    for id in [
        "KO-10 gain",
        "KO-10 switching",
        "KO-10 3× 1/4",
        // Ids longer than the id column (20) wrap in the terminal; every row is in the
        // snapshot comparison above.
        "KO-LOOP exchanges,",
        "KO-LOOP traps, fix",
        "KO-LOOP loop-free",
    ] {
        assert!(table.contains(id), "{id} missing:\n{table}");
    }
    for f in [
        "ko-alternate-path/gain.csv",
        "ko-alternate-path/switching.svg",
        "ko-alternate-path/alternates.csv",
        "ko-looping/summary.csv",
        "ko-looping/visits.svg",
        "ko-looping/round-trip-tail.svg",
        "ko-looping/loops.csv",
    ] {
        assert!(dir.join(f).exists(), "{f}");
    }
    let work = tmp("adaptive");
    let run = nmc(&[
        "run",
        "scenarios/ko-looping.toml",
        "--set",
        "duration=45s",
        "--out",
        work.join("run").to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    for f in [
        "routing.csv",
        "loops.csv",
        "journeys.csv",
        "source-sends.csv",
        "summary.json",
    ] {
        assert!(work.join("run").join(f).exists(), "{f}");
    }
    let summary = std::fs::read_to_string(work.join("run/summary.json")).unwrap();
    assert!(summary.contains("\"lines.events\""), "{summary}");
    let bad = nmc(&[
        "run",
        "scenarios/ko-alternate-path.toml",
        "--set",
        "network.line_events=[{ at = \"1s\", line = [\"SRC\", \"MARS\"], state = \"down\" }]",
        "--out",
        work.join("bad").to_str().unwrap(),
    ]);
    let err = stderr(&bad);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert!(
        err.contains("network.line_events[0].line: `MARS` is not an IMP of this network"),
        "{err}"
    );
    assert_eq!(err.lines().filter(|l| !l.is_empty()).count(), 1, "{err}");
}

/// An installed `nmc` runs the shipped scenarios from any folder: `nmc scenarios` lists them,
/// `nmc scenarios show NAME` prints one, `nmc run NAME` runs it; a name that is neither a file
/// nor built in is one line and exit 2.
#[test]
fn built_in_scenarios_run_from_any_folder() {
    let dir = tmp("builtin");
    let at = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_nmc"))
            .current_dir(&dir)
            .args(args)
            .output()
            .expect("nmc runs")
    };
    let list = at(&["scenarios"]);
    assert!(list.status.success());
    let listed = String::from_utf8_lossy(&list.stdout);
    for name in ["golden-chain", "ko-v2-map", "rfc632-moffett-sri"] {
        assert!(listed.contains(name), "{name} missing:\n{listed}");
    }
    let shown = at(&["scenarios", "show", "golden-chain"]);
    assert_eq!(
        String::from_utf8_lossy(&shown.stdout),
        include_str!("../../scenarios/golden-chain.toml")
    );
    let run = at(&["run", "golden-chain", "--set", "duration=5s", "--out", "gc"]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(dir.join("gc/summary.json").exists());
    let bad = at(&["run", "no-such-scenario"]);
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(stderr(&bad).lines().count(), 1, "{}", stderr(&bad));
    // A checkout's path, typed outside one: the error names the built-in of that file.
    for (path, builtin) in [
        ("scenarios/ko-v2-map.toml", "ko-v2-map"),
        ("scenarios/rfc889/ford1.toml", "rfc889-ford1"),
    ] {
        let bad = at(&["run", path]);
        assert_eq!(bad.status.code(), Some(2));
        let e = stderr(&bad);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(&format!("`nmc run {builtin}`")), "{e}");
    }
}

/// Inputs that used to be accepted wrongly or to hang: each is one line and exit 2, and nothing
/// is written outside `--out`.
#[test]
fn unsafe_names_devices_huge_seeds_and_model_overrides_are_errors() {
    let dir = tmp("unsafe");
    let cases: &[&[&str]] = &[
        &["run", "golden-chain", "--set", "name=../../escaped"],
        &["run", "golden-chain", "--set", "name=/tmp/abs"],
        &["run", "golden-chain", "--set", "name="],
        &["run", "/dev/zero"],
        &["run", "golden-chain", "--seed", "18446744073709551615"],
        &["run", "golden-chain", "--set", "model=no-such-model"],
        &["run", "golden-chain", "--set", "traffic.0.to=0"],
        &[
            "rto",
            "synth",
            "--preset",
            "FOE",
            "--volleys",
            "99999999999999",
        ],
    ];
    for args in cases {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_nmc"))
            .current_dir(&dir)
            .args(*args)
            .output()
            .expect("nmc runs");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{args:?}: {}", stderr(&o));
    }
    assert!(!dir.join("out").exists(), "nothing written");
    assert!(!dir.parent().unwrap().join("escaped").exists());
}

/// `--jobs` changes how many threads run, never what comes out: reproduce.json and every
/// experiment's files are the same bytes with one thread and with two.
#[test]
fn reproduce_output_is_the_same_for_any_number_of_jobs() {
    let dir = tmp("jobs");
    let ids = [
        "golden-chain",
        "md1-queue",
        "rfc632-trace",
        "ko-routing-tables",
    ];
    for j in ["1", "2"] {
        let out = dir.join(j);
        let mut args = vec![
            "reproduce",
            "--quick",
            "--jobs",
            j,
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(ids);
        let o = nmc(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let files = |root: &std::path::Path| {
        let mut v: Vec<(String, Vec<u8>)> = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.file_name().unwrap() != "index.html" {
                    let rel = p.strip_prefix(root).unwrap().display().to_string();
                    v.push((rel, std::fs::read(&p).unwrap()));
                }
            }
        }
        v.sort();
        v
    };
    let (one, two) = (files(&dir.join("1")), files(&dir.join("2")));
    assert!(one.len() > 10, "{} files", one.len());
    assert_eq!(one, two);
}

/// `--timings` (issue 36): each experiment's wall and CPU time, printed and in timings.json,
/// in the report's order; CPU per experiment only with one thread. Without the flag no
/// timings.json is written, so the other files stay comparable byte for byte.
#[test]
fn reproduce_timings_are_asked_for_and_add_up() {
    let dir = tmp("timings");
    let ids = ["md1-queue", "golden-chain"];
    for (j, timed) in [("1", true), ("2", true), ("2", false)] {
        let out = dir.join(format!("{j}-{timed}"));
        let mut args = vec![
            "reproduce",
            "--quick",
            "--jobs",
            j,
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(ids);
        if timed {
            args.push("--timings");
        }
        let o = nmc(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let path = out.join("timings.json");
        if !timed {
            assert!(!path.exists(), "timings.json written without --timings");
            continue;
        }
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(stdout.contains("whole run"), "{stdout}");
        let t: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(t["schema"], "nmc-timings/1");
        assert_eq!(t["jobs"], j.parse::<u64>().unwrap());
        let each = t["experiments"].as_array().unwrap();
        let got: Vec<&str> = each.iter().map(|e| e["id"].as_str().unwrap()).collect();
        assert_eq!(got, ids, "the report's order");
        let wall = t["wall_s"].as_f64().unwrap();
        let sum: f64 = each.iter().map(|e| e["wall_s"].as_f64().unwrap()).sum();
        if j == "1" {
            // One thread: experiments one after another, inside the whole run.
            assert!(sum <= wall, "experiments {sum} s, run {wall} s");
            for e in each {
                let (c, w) = (e["cpu_s"].as_f64().unwrap(), e["wall_s"].as_f64().unwrap());
                assert!(c > 0.0 && c <= w * 1.05 + 0.01, "{e}");
            }
        } else {
            assert!(each.iter().all(|e| e["cpu_s"].is_null()), "{t}");
        }
        assert!(t["cpu_s"].as_f64().unwrap() > 0.0, "{t}");
    }
}

/// A trace whose growth projects past its limit is warned of early, once, on stderr: with the
/// projected size, the limit it will stop at and how to raise it, well before it stops.
#[test]
fn a_trace_bound_for_its_limit_is_warned_of_early_and_once() {
    let dir = tmp("trace-early");
    let good = std::fs::read_to_string("scenarios/golden-chain.toml").unwrap();
    let f = dir.join("traced.toml");
    std::fs::write(
        &f,
        good.replace("record = [\"lines\"]", "record = []\ntrace = true"),
    )
    .unwrap();
    let run = |limit: &str| {
        let out = dir.join(limit);
        let o = nmc(&[
            "run",
            f.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--trace-limit",
            limit,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stderr(&o)
    };
    let err = run("5MB");
    let lines: Vec<&str> = err.lines().collect();
    let early: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("on course for about"))
        .collect();
    assert_eq!(early.len(), 1, "{err}");
    let warning = lines[early[0]];
    assert!(
        warning.starts_with("nmc: warning: trace.jsonl is on course for about "),
        "{warning}"
    );
    assert!(
        warning.contains("it will stop at its limit of 5.0 MB"),
        "{warning}"
    );
    assert!(warning.contains("--trace-limit SIZE"), "{warning}");
    let stopped = lines
        .iter()
        .position(|l| l.contains("stopped at its limit of 5000000 bytes"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(early[0] < stopped, "{err}");
    // Simulated seconds: the warning's "in the first T s" comes before the stop's "at simulated T s".
    let num = |l: &str, after: &str| -> f64 {
        l.split(after)
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let (warned_at, stopped_at) = (
        num(warning, "in the first "),
        num(lines[stopped], "at simulated "),
    );
    assert!(
        warned_at * 4.0 < stopped_at,
        "warned at {warned_at} s, stopped at {stopped_at} s"
    );
    // Its projection: beyond the limit, and a suggested limit above it.
    let projected = warning.split("on course for about ").nth(1).unwrap();
    assert!(
        projected.contains(" MB") || projected.contains(" GB"),
        "{warning}"
    );
    // A limit the trace stays under: no warning at all.
    let err = run("1GB");
    assert!(!err.contains("trace.jsonl"), "{err}");
}

/// A trace stops at its size limit with a last `TraceLimit` line, and the run warns on stderr.
#[test]
fn a_trace_stops_at_its_size_limit() {
    let dir = tmp("trace-limit");
    let good = std::fs::read_to_string("scenarios/golden-chain.toml").unwrap();
    let f = dir.join("traced.toml");
    std::fs::write(
        &f,
        good.replace("record = [\"lines\"]", "record = []\ntrace = true"),
    )
    .unwrap();
    let out = dir.join("out");
    let o = nmc(&[
        "run",
        f.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--trace-limit",
        "100kB",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("trace.jsonl stopped at its limit of 100000 bytes"),
        "{}",
        stderr(&o)
    );
    let trace = std::fs::read_to_string(out.join("trace.jsonl")).unwrap();
    let last = trace.lines().last().unwrap();
    assert!(last.contains("\"event\":\"TraceLimit\""), "{last}");
    assert!(trace.len() - last.len() - 1 <= 100_000, "{}", trace.len());
    // The metrics are those of the whole run, trace or not.
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(
        summary.contains("\"packets.delivered\": 29758.0"),
        "{summary}"
    );
}

/// Issue 57 §6: `reproduce --seed` refuses what `run --seed` refuses (above 2^63 − 1, which no
/// scenario can hold), with the same line, before anything is written.
#[test]
fn reproduce_and_run_refuse_the_same_seeds() {
    let dir = tmp("seed-limit");
    let out = dir.join("out");
    let too_big = "9223372036854775808";
    let r = nmc(&[
        "reproduce",
        "golden-chain",
        "--quick",
        "--seed",
        too_big,
        "--out",
        out.to_str().unwrap(),
    ]);
    let s = nmc(&[
        "run",
        "md1",
        "--seed",
        too_big,
        "--out",
        out.to_str().unwrap(),
    ]);
    for o in [&r, &s] {
        assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
        assert_eq!(stderr(o).trim().lines().count(), 1, "{}", stderr(o));
    }
    assert_eq!(stderr(&r), stderr(&s));
    assert!(stderr(&r).contains("at most 2^63 - 1"), "{}", stderr(&r));
    assert!(!out.exists());
}
