//! Issue 33, class 1: input that sizes an allocation or a pool is checked against a stated
//! limit before anything is allocated or started, and refused in one line naming the key or
//! option and the limit (exit 2). Each case here once aborted, filled memory or started
//! threads without bound. Class 3 (in part): settings that would measure nothing are refused.
//! Class 5: what an error echoes from the input is escaped and short.

use super::{nmc, stderr, tmp};
use std::path::Path;
use std::time::{Duration, Instant};

/// Runs `nmc ARGS` and asserts a one-line refusal within a few seconds that contains every
/// piece of `names`.
fn refused(args: &[&str], names: &[&str]) {
    let t = Instant::now();
    let o = nmc(args);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
    assert_eq!(e.lines().count(), 1, "{args:?}: one line, got:\n{e}");
    for n in names {
        assert!(e.contains(n), "{args:?}: `{n}` missing in: {e}");
    }
    // Refused before the work: not after allocating gigabytes (a bound on a refusal, not a
    // timed test of speed).
    assert!(
        t.elapsed() < Duration::from_secs(30),
        "{args:?} took {:?}",
        t.elapsed()
    );
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn thread_pools_are_bounded() {
    let dir = tmp("limits-jobs");
    refused(
        &[
            "reproduce",
            "golden-chain",
            "--jobs",
            "100000",
            "--out",
            s(&dir),
        ],
        &["--jobs = 100000", "at most 1024 threads"],
    );
    refused(
        &["reproduce", "golden-chain", "--jobs", "0", "--out", s(&dir)],
        &["--jobs 0"],
    );
    let file = dir.join("s.toml");
    std::fs::write(
        &file,
        "base = \"md1\"\nseeds = { from = 1, count = 2 }\n[set]\nduration = \"1s\"\n",
    )
    .unwrap();
    refused(
        &[
            "sweep",
            s(&file),
            "--out",
            s(&dir.join("o")),
            "--jobs",
            "100000",
        ],
        &["--jobs = 100000", "at most 1024 threads"],
    );
    assert!(!dir.join("o").exists());
}

#[test]
fn a_sweep_grid_that_overflows_is_refused_not_wrapped() {
    let dir = tmp("limits-grid");
    // 64 keys of two values: 2^64 combinations wrapped to 0 and passed the cap.
    let mut text = String::from("base = \"md1\"\nseeds = { from = 1, count = 1 }\n[grid]\n");
    for k in 0..64 {
        text.push_str(&format!("\"traffic.0.k{k}\" = [1, 2]\n"));
    }
    let file = dir.join("grid.toml");
    std::fs::write(&file, text).unwrap();
    refused(
        &["sweep", s(&file), "--out", s(&dir.join("o"))],
        &["runs (cases × grid values × seeds)", "at most 1000000 runs"],
    );
    assert!(!dir.join("o").exists());
}

#[test]
fn volley_counts_are_bounded_before_they_are_allocated() {
    let dir = tmp("limits-volleys");
    refused(
        &[
            "run",
            "scenarios/rfc889/ford1.toml",
            "--set",
            "traffic.0.volleys=100000000",
            "--out",
            s(&dir),
        ],
        &[
            "traffic.0.volleys",
            "count 100000000",
            "at most 1000000 volleys",
        ],
    );
    refused(
        &["echo", "probe", "127.0.0.1:9", "--count", "4294967295"],
        &["--count: count 4294967295", "at most 1000000 volleys"],
    );
}

#[test]
fn host_pairs_and_duplicate_records_are_refused() {
    let dir = tmp("limits-pairs");
    refused(
        &[
            "run",
            "mesh-1000",
            "--set",
            "traffic.0.pairs=4000000000",
            "--out",
            s(&dir),
        ],
        &["traffic[0].pairs = 4000000000", "at most 10000 host pairs"],
    );
    refused(
        &[
            "run",
            "scenarios/rfc889/ford1.toml",
            "--set",
            "record=[\"volleys\", \"volleys\"]",
            "--out",
            s(&dir),
        ],
        &["record: `volleys` is named twice"],
    );
}

#[test]
fn trace_files_are_read_with_a_cap_and_so_is_their_gzip() {
    let dir = tmp("limits-trace");
    // 300 MiB of zeros gzipped to about 300 KB: it used to be decompressed whole.
    let bomb = dir.join("bomb.csv.gz");
    {
        use std::io::Write;
        let f = std::fs::File::create(&bomb).unwrap();
        let mut gz = std::process::Command::new("gzip")
            .arg("-c")
            .stdin(std::process::Stdio::piped())
            .stdout(f)
            .spawn()
            .expect("gzip is on the machine");
        let zeros = vec![b'0'; 1 << 20];
        let mut stdin = gz.stdin.take().unwrap();
        for _ in 0..300 {
            stdin.write_all(&zeros).unwrap();
        }
        drop(stdin);
        assert!(gz.wait().unwrap().success());
    }
    assert!(std::fs::metadata(&bomb).unwrap().len() < 2 << 20);
    refused(
        &["rto", "evaluate", s(&bomb), "--out", s(&dir.join("o"))],
        &["bomb.csv.gz", "more than 268435456 bytes once decompressed"],
    );
}

#[test]
fn errors_escape_and_shorten_what_they_echo() {
    let dir = tmp("limits-echo");
    // A 200 KB name, and a terminal escape in a value: both used to be echoed raw.
    let long = dir.join("long.toml");
    std::fs::write(
        &long,
        format!(
            "name = \"{}\"\nmodel = \"store-forward\"\n",
            "z".repeat(200_000)
        ),
    )
    .unwrap();
    let esc = dir.join("esc.toml");
    std::fs::write(&esc, "name = \"a\"\nseed = \"\u{1b}[31mred\\u001b\"\n").unwrap();
    for (file, what) in [(&long, "name"), (&esc, "seed")] {
        let o = nmc(&["run", s(file), "--out", s(&dir.join("o"))]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(what), "{e}");
        assert!(
            e.chars().count() <= 5 + 400 + 1,
            "{} chars",
            e.chars().count()
        );
        assert!(!e.contains('\u{1b}'), "a raw escape in: {e:?}");
    }
    // A usage error echoes the argument the same way.
    let o = nmc(&["run", "--\u{1b}[2Jwipe"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(!e.contains('\u{1b}'), "{e:?}");
}

/// Class 3: settings that would leave a run measuring nothing, looping at one instant, or
/// reading less than was written are refused in one line.
#[test]
fn settings_that_would_measure_nothing_are_refused() {
    let dir = tmp("limits-settings");
    let out = dir.join("o");
    let run = |sets: &[&str]| {
        let mut args = vec!["run", "rfc626-lockup", "--out", s(&out)];
        for x in sets {
            args.extend(["--set", x]);
        }
        args.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let a = run(&["network.lockup_window=2ns"]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    refused(&a, &["network.lockup_window = 2ns", "at least 1ms"]);
    // Issue 74 §4: a routing period of 1 ns crawled, silent, where the observers' have a floor.
    for key in ["routing_period", "retransmit_timeout", "fast_tick"] {
        let set = format!("network.params.{key}=1ns");
        let a = run(&[&set]);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        refused(
            &a,
            &[&format!("network.params.{key} = 1ns"), "at least 1ms"],
        );
    }
    let a = run(&["network.measure_from=2min"]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    refused(
        &a,
        &["network.measure_from = 2min", "not before the run's end"],
    );
    // A time slice that would never be taken, and a run of no time at all.
    let a = run(&["network.slices=[\"30s\", \"2min\"]"]);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    refused(&a, &["network.slices: 2min", "past the run's end"]);
    // More slices than files one run may draw (in a file: a --set this long is cut in the
    // one-line error).
    let many = dir.join("many-slices.toml");
    let text = std::fs::read_to_string("scenarios/rfc626-lockup.toml").unwrap();
    let slices = format!("[network]\nslices = [{}]", vec!["\"1s\""; 1001].join(","));
    std::fs::write(&many, text.replacen("[network]", &slices, 1)).unwrap();
    refused(
        &["run", s(&many), "--out", s(&out)],
        &["network.slices: 1001 instants; at most 1000"],
    );
    for model in ["md1", "rfc626-lockup", "rfc889-ford1"] {
        refused(
            &["run", model, "--set", "duration=0s", "--out", s(&out)],
            &["--set duration=0s", "above zero"],
        );
    }
    // A line break in a --set value used to end the value there, silently.
    refused(
        &[
            "run",
            "md1",
            "--set",
            "duration=1s\nseed=7",
            "--out",
            s(&out),
        ],
        &["line break"],
    );
    refused(
        &["run", "md1", "--trace-limit", "4bit", "--out", s(&out)],
        &["less than one byte"],
    );
    // A trace whose send times go backwards is refused, naming the probe.
    let t = dir.join("back.csv");
    std::fs::write(&t, "send_ms,rtt_ms\n0,10\n9,10\n4,11\n").unwrap();
    refused(
        &["rto", "evaluate", s(&t), "--out", s(&out)],
        &["back.csv", "probe 3 is sent at 4.000 ms, before probe 2"],
    );
    assert!(!out.exists());
}

/// Class 3: a probe with no valid sample exits non-zero with the reason, and a port nobody
/// listens on ends the run at the first ICMP error instead of 30 s a volley.
#[test]
fn a_probe_that_measured_nothing_fails_fast() {
    let dir = tmp("limits-probe");
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let target = port.to_string();
    let t = Instant::now();
    let o = nmc(&["echo", "probe", &target, "--count", "3", "--out", s(&dir)]);
    let e = stderr(&o);
    // Issue 58 §3: nothing answered is a host that cannot be reached, exit 3.
    assert_eq!(o.status.code(), Some(3), "{e}");
    let last = e.lines().last().unwrap_or("");
    assert!(
        last.contains("no volley was answered") && last.contains("port unreachable"),
        "{e}"
    );
    // Well under one volley's 30 s timeout (a bound on a refusal, not a timing of speed).
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    // What it had is still written.
    assert!(dir.join("summary.json").is_file());
}

#[test]
fn a_run_that_would_measure_something_else_than_asked_says_so() {
    let dir = tmp("limits-measure-else");
    // A 1983 subnet hop whose two ends share an IMP never crosses the subnet (it was 100 %
    // loss, exit 0).
    refused(
        &[
            "run",
            "rfc889-milarp",
            "--set",
            "network.hops.0.network.hosts.1.imp=MITRE",
            "--out",
            s(&dir.join("a")),
        ],
        &["network.hops.0", "same IMP"],
    );
    // A longer chain that leaves the far host where it was measures the old length: said.
    let o = super::nmc(&[
        "run",
        "ko-v2-chain",
        "--set",
        "network.topology.hops=9",
        "--set",
        "duration=2s",
        "--out",
        s(&dir.join("b")),
    ]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    assert!(
        e.contains("chain of 9 hops") && e.contains("network.hosts.1.imp=IMP9"),
        "{e}"
    );
    // Moving the host as it says silences it.
    let o = super::nmc(&[
        "run",
        "ko-v2-chain",
        "--set",
        "network.topology.hops=9",
        "--set",
        "network.hosts.1.imp=IMP9",
        "--set",
        "duration=2s",
        "--out",
        s(&dir.join("b")),
    ]);
    assert!(
        o.status.success() && !stderr(&o).contains("warning"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_sweep_error_names_the_set_at_fault() {
    // Issue 33, class 5: with two keys of one table in the grid, the error was laid at the
    // last --set of that table (here plt_entries), not the one at fault.
    let dir = tmp("limits-sweep-names");
    let file = dir.join("s.toml");
    std::fs::write(
        &file,
        "base = \"ko-v2-chain\"\nseeds = { from = 1, count = 1 }\n[set]\nduration = \"1s\"\n\
         [grid]\n\"network.params.message_numbers\" = [4, 0]\n\"network.params.plt_entries\" = [6, 8]\n",
    )
    .unwrap();
    refused(
        &["sweep", s(&file), "--out", s(&dir.join("out"))],
        &[
            "--set network.params.message_numbers=0: network.params.message_numbers must be at least 1",
        ],
    );
}

/// Issue 57 §3: a sweep of 10⁶ runs (six keys of ten values) with an unknown key resolved and
/// built every configuration, for a minute and 4 GB, before reporting the key; the first run
/// is now checked before the plan is expanded.
#[test]
fn a_million_run_sweep_with_an_unknown_key_is_refused_at_once() {
    let dir = tmp("limits-sweep-unknown-key");
    let file = dir.join("s.toml");
    let ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
    let grid: String = [
        "network.params.message_numbers",
        "network.params.plt_entries",
        "traffic.0.volleys",
        "network.params.b",
        "network.params.c",
        "network.params.d",
    ]
    .iter()
    .map(|k| format!("\"{k}\" = {ten}\n"))
    .collect();
    std::fs::write(
        &file,
        format!(
            "base = \"ko-v2-chain\"\nseeds = {{ from = 1, count = 1 }}\n[set]\nduration = \"1s\"\n\
             \"network.no_such_key\" = 3\n[grid]\n{grid}"
        ),
    )
    .unwrap();
    refused(
        &["sweep", s(&file), "--out", s(&dir.join("out"))],
        &["configuration 1", "unknown field `no_such_key`"],
    );
}

/// Issue 57 §3: a small gzip of many short valid rows, under the 256 MiB cap once
/// decompressed, is refused at its 2,000,001st probe, not evaluated into gigabytes (19 million
/// rows asked for 7 GB and aborted).
#[test]
fn a_trace_with_more_probes_than_the_cap_is_refused_as_it_is_read() {
    use std::io::Write;
    let dir = tmp("limits-trace-rows");
    let big = dir.join("rows.csv.gz");
    let f = std::fs::File::create(&big).unwrap();
    let mut gz = std::process::Command::new("gzip")
        .arg("-1c")
        .stdin(std::process::Stdio::piped())
        .stdout(f)
        .spawn()
        .expect("gzip is on the machine");
    let mut text = String::from("send_ms,rtt_ms\n");
    for i in 0..=2_000_000u32 {
        text.push_str(&i.to_string());
        text.push_str(",1\n");
    }
    let mut stdin = gz.stdin.take().unwrap();
    stdin.write_all(text.as_bytes()).unwrap();
    drop(stdin);
    assert!(gz.wait().unwrap().success());
    refused(
        &["rto", "evaluate", s(&big), "--out", s(&dir.join("o"))],
        &["rows.csv.gz", "more than 2000000 probes"],
    );
}

#[test]
fn a_network_too_large_for_memory_is_refused_before_it_is_built() {
    // Issue 33, class 1 (found hunting the class): a chain of 4e9 hops asked for 96 GB at
    // once and aborted; adaptive routing keeps a table entry per IMP pair.
    let dir = tmp("limits-network-size");
    let out = dir.join("out");
    refused(
        &[
            "run",
            "ko-v2-chain",
            "--set",
            "network.topology.hops=4000000000",
            "--out",
            s(&out),
        ],
        &["network.topology.hops", "GB of model state", "GB here ("],
    );
    refused(
        &[
            "run",
            "ko-v2-chain",
            "--set",
            "network.routing=adaptive",
            "--set",
            "network.topology.hops=20000",
            "--out",
            s(&out),
        ],
        &["20001 IMPs and adaptive routing", "or static routing"],
    );
    refused(
        &[
            "run",
            "mesh-1000",
            "--set",
            "network.topology.imps=16000000",
            "--out",
            s(&out),
        ],
        &["network.topology.imps"],
    );
}

/// Issue 57 §6: limits a server cannot mean are refused in one line before it listens: an echo
/// payload cap of 0 (every request then unanswered) and a connection count no process can hold.
#[test]
fn server_limits_that_cannot_hold_are_refused() {
    for (args, says) in [
        (
            &[
                "echo",
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--max-payload",
                "0",
            ][..],
            "--max-payload 0: must be 32 to 65507 bytes",
        ),
        (
            &["serve", "--listen", "127.0.0.1:0", "--max-payload", "70000"][..],
            "--max-payload 70000: must be 32 to 65507 bytes",
        ),
        (
            &[
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--max-connections",
                "18446744073709551615",
            ][..],
            "--max-connections 18446744073709551615: must be 1 to 65536",
        ),
        (
            &["sink", "--listen", "127.0.0.1:0", "--max-per-source", "0"][..],
            "--max-per-source 0: must be 1 to 65536",
        ),
    ] {
        let o = nmc(args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(says), "{args:?}: {e}");
        assert_eq!(e.trim().lines().count(), 1, "{args:?}: {e}");
    }
}

/// Issue 57 §5: `nmc bench` settings that measure nothing are refused in one line: `--repeat
/// 0` ran once and `--duration 0s` timed an empty run, and both printed rates (exit 0).
#[test]
fn bench_settings_that_measure_nothing_are_refused() {
    refused(
        &["bench", "--repeat", "0", "--duration", "1s"],
        &["--repeat 0: at least one timed run"],
    );
    refused(
        &["bench", "--repeat", "1", "--duration", "0s"],
        &["--duration 0s: must be positive"],
    );
}

/// Issue 57 §3: `nmc cost --repeat 4294967295` aborted allocating its list of 3 GB; the
/// transfers a plan makes are bounded before the list is made (and before any sink starts).
#[test]
fn cost_transfers_are_bounded_before_they_are_listed() {
    refused(
        &["cost", "--repeat", "4294967295"],
        &[
            "--repeat 4294967295 × 42 (transport, size, write size) combinations = 180388626390",
            "at most 100000 transfers",
        ],
    );
}

/// Issue 57 §3: a network's memory is estimated from its counts, lines included, before it is
/// built. 2^24 store-and-forward nodes passed the node limit and asked for 5.9 GB at once; a
/// mesh of high degree passed an estimate that counted IMPs only.
#[test]
fn a_network_is_sized_by_its_lines_too_before_it_is_built() {
    let dir = tmp("limits-network-lines");
    let out = dir.join("out");
    refused(
        &[
            "run",
            "md1",
            "--set",
            "network.nodes=16777216",
            "--out",
            s(&out),
        ],
        &[
            "network.nodes: 16777216 nodes and 16777215 lines",
            "GB of model state",
            "GB here (",
        ],
    );
    refused(
        &[
            "run",
            "mesh-1000",
            "--set",
            "network.topology.imps=100000",
            "--set",
            "network.topology.degree=999..999",
            "--out",
            s(&out),
        ],
        &[
            "100000 IMPs with up to 49950000 lines (degree up to 999)",
            "GB here (",
            "): fewer IMPs or lines",
        ],
    );
    assert!(!out.exists());
}

/// Issue 57 §3: a chain of 700,000 IMPs is within nmc's own limit by its estimate (7 GB) and
/// aborted where the process may have less memory than that. Under `ulimit -v` of 2 GB the
/// budget is half of it, and the chain is refused in one line that says why, before anything
/// is built; a network within the budget still runs there.
#[cfg(target_os = "linux")]
#[test]
fn a_network_is_refused_past_the_memory_this_process_may_have() {
    let dir = tmp("limits-address-space");
    let nmc_bin = env!("CARGO_BIN_EXE_nmc");
    let under_2gb = |args: &str| {
        std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -v 2000000 && exec {nmc_bin} {args}"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("sh runs")
    };
    let out = dir.join("big");
    let o = under_2gb(&format!(
        "run ko-v2-chain --set network.topology.hops=700000 --set duration=50ms --out {}",
        s(&out)
    ));
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "one line, got:\n{e}");
    for n in [
        "network.topology.hops: 700001 IMPs",
        "at most 1.0 GB here (half the 2.0 GB address-space limit (ulimit -v))",
    ] {
        assert!(e.contains(n), "`{n}` missing in: {e}");
    }
    assert!(!out.exists());
    let small = dir.join("small");
    let o = under_2gb(&format!(
        "run ko-v2-chain --set network.topology.hops=9 --set duration=1s --out {}",
        s(&small)
    ));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Issue 57 §3: a secret file, a sweep's `sweep.json` and its `runs/*.json` were read whole
/// with no cap (`/dev/zero`, or a sparse file, read without end). Each is read only if it is a
/// regular file, and only up to its cap, refused in one line naming the file and the cap.
#[cfg(unix)]
#[test]
fn files_nmc_expects_are_read_with_a_cap_and_only_if_regular() {
    let dir = tmp("limits-capped-files");
    // A sparse file of 1 GiB as a secret: no disk used, and nothing read past 64 KiB.
    let sparse = dir.join("sparse-secret");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let cost = |secret: &str| {
        vec![
            "cost".to_string(),
            "127.0.0.1:1".into(),
            "--proto".into(),
            "tcp".into(),
            "--secret-file".into(),
            secret.into(),
        ]
    };
    let args = cost(s(&sparse));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refused(&args, &["sparse-secret", "more than 65536 bytes"]);
    for not_a_file in ["/dev/zero", s(&dir)] {
        let args = cost(not_a_file);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, &[not_a_file, "not a regular file"]);
    }
    refused(
        &["echo", "serve", "--secret-file", "/dev/zero"],
        &["/dev/zero", "not a regular file"],
    );

    // A sweep of one run, then its result file made 32 MiB (sparse): a resume and a merge
    // refuse it, naming it and the cap, and leave it as it is.
    let file = dir.join("s.toml");
    std::fs::write(
        &file,
        "base = \"md1\"\nseeds = { from = 1, count = 1 }\n[set]\nduration = \"1s\"\n",
    )
    .unwrap();
    let shard = dir.join("shard");
    let o = nmc(&["sweep", s(&file), "--out", s(&shard)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let result = std::fs::read_dir(shard.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .expect("one result");
    std::fs::File::options()
        .write(true)
        .open(&result)
        .unwrap()
        .set_len(32 << 20)
        .unwrap();
    let name = result.file_name().unwrap().to_str().unwrap();
    refused(
        &["sweep", s(&file), "--out", s(&shard)],
        &[name, "more than 16777216 bytes"],
    );
    refused(
        &["sweep", "merge", "--out", s(&dir.join("merged")), s(&shard)],
        &[name, "more than 16777216 bytes"],
    );
    assert_eq!(std::fs::metadata(&result).unwrap().len(), 32 << 20);
    // sweep.json as a link to an endless device.
    let plan = shard.join("sweep.json");
    std::fs::remove_file(&plan).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &plan).unwrap();
    refused(
        &["sweep", "merge", "--out", s(&dir.join("merged")), s(&shard)],
        &["sweep.json: not a regular file"],
    );
}

/// Issue 57 §4: a `--set` key of 20,000 segments took 21 s to refuse (each segment a table
/// nested in the last); the key is now measured before it is split, and refused at once.
#[test]
fn a_set_key_is_bounded_before_it_is_split() {
    let deep = format!("{}=1", vec!["a"; 20_000].join("."));
    let long = format!("{}=1", "k".repeat(300));
    let nested = format!("{}=1", vec!["a"; 40].join("."));
    for (set, why) in [
        (deep.as_str(), "the key is 39999 bytes long, more than 256"),
        (long.as_str(), "the key is 300 bytes long, more than 256"),
        (nested.as_str(), "the key has 40 segments, more than 32"),
    ] {
        let t = Instant::now();
        refused(&["run", "md1", "--set", set], &["--set ", why]);
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "took {:?}",
            t.elapsed()
        );
    }
}

/// Issue 74 §3: a named pipe with no writer as a scenario or a trace hung `nmc run ./fifo` and
/// `nmc rto evaluate ./fifo` for ever (the open waits for a writer). An input file is read if it
/// is a regular file or a stream the shell opened (`<(…)`, read to the cap); a named pipe or a
/// device is refused in one line, at once.
#[cfg(unix)]
#[test]
fn a_named_pipe_is_refused_and_a_shells_stream_is_read() {
    let dir = tmp("limits-fifo");
    let fifo = dir.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    for args in [
        vec!["run", s(&fifo), "--out", s(&dir.join("out"))],
        vec!["rto", "evaluate", s(&fifo)],
    ] {
        refused(&args, &["fifo: not a regular file", "<(cat FILE)"]);
    }
    refused(
        &["run", "/dev/zero", "--out", s(&dir.join("out"))],
        &["/dev/zero: not a regular file"],
    );
    // Process substitution: the shell's pipe, read to its end.
    let scenario = dir.join("md1.toml");
    let o = nmc(&["scenarios", "show", "md1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::write(&scenario, &o.stdout).unwrap();
    let o = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "exec \"$0\" run <(cat {}) --set duration=1s --out {}",
            s(&scenario),
            s(&dir.join("sub"))
        ))
        .arg(env!("CARGO_BIN_EXE_nmc"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("bash runs");
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Issue 74 §4: every interval a user sets has a floor (the pump's had one; `stream -i 1ns`
/// and the probe's `--report-interval 1ns` had none, `nmc path -i 1ns` printed a line every
/// 20 ms): each is refused in one line before anything runs.
#[test]
fn every_interval_has_a_floor() {
    for (args, said) in [
        (&["pump", "127.0.0.1:1", "-i", "1ns"][..], "at least 1ms"),
        (
            &["stream", "127.0.0.1:1", "-i", "1ns"],
            "--interval 1ns: at least 1ms",
        ),
        (
            &["echo", "probe", "127.0.0.1:1", "--report-interval", "1ns"],
            "--report-interval 1ns: at least 1ms",
        ),
    ] {
        refused(args, &[said]);
    }
}
