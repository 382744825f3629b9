//! `nmc sweep` (issue 15, item 1): the same table bytes whether a sweep runs straight, is
//! interrupted and resumed, runs on 1 or 2 threads, or runs in shards that are merged; bad
//! sweep files are one-line errors, exit 2, nothing written. Small sweeps of md1.

use super::{command, nmc, stderr, text, tmp};
use std::path::{Path, PathBuf};

/// The files whose bytes must not depend on how the sweep ran.
const TABLES: &[&str] = &[
    "sweep.json",
    "results.csv",
    "results.parquet",
    "summary.csv",
    "summary.parquet",
];

/// A sweep of md1 over 3 loads × `seeds` seeds, `minutes` of simulated time per run.
fn sweep_file(dir: &Path, seeds: u32, minutes: u32) -> PathBuf {
    let path = dir.join("s.toml");
    std::fs::write(
        &path,
        format!(
            "base = \"md1\"\nseeds = {{ from = 1, count = {seeds} }}\n\
             metrics = [\"delay.mean_ms\", \"throughput_kbps\"]\n\
             [set]\nduration = \"{minutes}min\"\n\
             [grid]\n\"traffic.0.arrivals.mean_interval\" = [\"80.64ms\", \"40.32ms\", \"26.88ms\"]\n"
        ),
    )
    .unwrap();
    path
}

fn sweep(args: &[&str]) -> std::process::Output {
    let o = nmc(args);
    assert!(o.status.success(), "nmc {args:?}: {}", stderr(&o));
    o
}

fn tables(out: &Path) -> Vec<Vec<u8>> {
    TABLES
        .iter()
        .map(|f| std::fs::read(out.join(f)).unwrap_or_else(|e| panic!("{f}: {e}")))
        .collect()
}

/// Asserts that `dir`'s tables are `want`'s bytes, naming the first file that differs.
fn assert_same(dir: &Path, want: &[Vec<u8>], what: &str) {
    for (f, (got, want)) in TABLES.iter().zip(tables(dir).iter().zip(want)) {
        assert!(got == want, "{what}: {f} differs");
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn result_files(out: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

#[test]
fn straight_resumed_jobs_and_shards_give_the_same_bytes() {
    let dir = tmp("sweep-same-bytes");
    let file = sweep_file(&dir, 4, 5);
    let straight = dir.join("straight");
    let o = sweep(&["sweep", s(&file), "--out", s(&straight), "--jobs", "1"]);
    let said = text(&o.stdout);
    assert!(
        said.contains("12 runs (3 configurations × 4 seeds)"),
        "{said}"
    );
    assert!(said.contains("ran 12, already done 0; 24 rows"), "{said}");
    let want = tables(&straight);
    let csv = String::from_utf8(want[1].clone()).unwrap();
    assert_eq!(csv.lines().count(), 1 + 12 * 2);
    assert!(
        csv.starts_with(
            "traffic.0.arrivals.mean_interval,seed,config_hash,metric,value\n80.64ms,1,"
        )
    );
    // Plan order: loads as listed, seeds ascending, metrics as listed.
    let firsts: Vec<String> = csv
        .lines()
        .skip(1)
        .step_by(2)
        .map(|l| l.split(',').take(2).collect::<Vec<_>>().join(","))
        .collect();
    assert_eq!(
        firsts[..5],
        [
            "80.64ms,1",
            "80.64ms,2",
            "80.64ms,3",
            "80.64ms,4",
            "40.32ms,1"
        ]
    );
    assert!(want[2].starts_with(b"PAR1") && want[4].starts_with(b"PAR1"));
    // The summary: one row per load × metric; the mean delay at rho = 0.5 near
    // Pollaczek-Khinchine's 30.24 ms, inside a 95 % interval that is not empty.
    let summary = String::from_utf8(want[3].clone()).unwrap();
    assert_eq!(summary.lines().count(), 1 + 3 * 2);
    let row: Vec<&str> = summary
        .lines()
        .find(|l| l.starts_with("40.32ms,delay.mean_ms,"))
        .unwrap()
        .split(',')
        .collect();
    assert_eq!(row[2..4], ["4", "4"]);
    let (mean, lo, hi): (f64, f64, f64) = (
        row[4].parse().unwrap(),
        row[6].parse().unwrap(),
        row[7].parse().unwrap(),
    );
    assert!(
        lo < mean && mean < hi && (mean - 30.24).abs() < 3.0,
        "{row:?}"
    );

    // Run again: everything is skipped and nothing changes.
    let o = sweep(&["sweep", s(&file), "--out", s(&straight)]);
    assert!(text(&o.stdout).contains("ran 0, already done 12"));
    assert_same(&straight, &want, "run again");

    // Two threads.
    let two = dir.join("two");
    sweep(&["sweep", s(&file), "--out", s(&two), "--jobs", "2"]);
    assert_same(&two, &want, "--jobs 2 beside --jobs 1");

    // An interrupted sweep: some results gone, the tables not yet written, a temporary file
    // torn mid-write, then the same command again.
    let resumed = dir.join("resumed");
    sweep(&["sweep", s(&file), "--out", s(&resumed), "--jobs", "2"]);
    let files = result_files(&resumed);
    assert_eq!(files.len(), 12);
    for f in files.iter().step_by(3) {
        std::fs::remove_file(f).unwrap();
    }
    for t in &TABLES[1..] {
        std::fs::remove_file(resumed.join(t)).unwrap();
    }
    let torn = resumed.join("runs").join(".0123.json.999.tmp");
    std::fs::write(&torn, "{\"config_hash\": \"01").unwrap();
    // A damaged result counts as not done and is run again.
    std::fs::write(&files[1], "{\"config_hash\": ").unwrap();
    let o = sweep(&["sweep", s(&file), "--out", s(&resumed), "--jobs", "2"]);
    assert!(
        text(&o.stdout).contains("ran 5, already done 7"),
        "{}",
        text(&o.stdout)
    );
    assert!(!torn.exists(), "the temporary file was left");
    assert_same(&resumed, &want, "resumed beside straight");

    // Shards: three folders, merged.
    let mut shards = Vec::new();
    for i in 0..3 {
        let d = dir.join(format!("shard{i}"));
        let o = sweep(&[
            "sweep",
            s(&file),
            "--out",
            s(&d),
            "--shard",
            &format!("{i}/3"),
        ]);
        assert!(text(&o.stdout).contains(&format!("shard {i}/3: 4 runs")));
        assert_eq!(result_files(&d).len(), 4);
        shards.push(d);
    }
    let merged = dir.join("merged");
    let mut args = vec!["sweep", "merge", "--out", s(&merged)];
    args.extend(shards.iter().map(|d| s(d)));
    sweep(&args);
    assert_same(&merged, &want, "merged shards beside unsharded");
    assert_eq!(result_files(&merged).len(), 12);

    // A shard missing: an error, nothing written.
    let partial = dir.join("partial");
    let o = nmc(&[
        "sweep",
        "merge",
        "--out",
        s(&partial),
        s(&shards[0]),
        s(&shards[2]),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("4 of 12 runs have no result") && e.lines().count() == 1,
        "{e}"
    );
    assert!(!partial.exists());
}

#[test]
fn killed_sweep_resumes_to_the_same_bytes() {
    let dir = tmp("sweep-kill");
    // 30 runs of 30 simulated minutes: long enough to be killed part way on one thread.
    let file = sweep_file(&dir, 10, 30);
    let straight = dir.join("straight");
    sweep(&["sweep", s(&file), "--out", s(&straight), "--jobs", "2"]);
    let want = tables(&straight);
    let killed = dir.join("killed");
    let mut child = command()
        .args(["sweep", s(&file), "--out", s(&killed), "--jobs", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let killed_part_way;
    loop {
        let n = std::fs::read_dir(killed.join("runs"))
            .map(|d| {
                d.flatten()
                    .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                    .count()
            })
            .unwrap_or(0);
        if n >= 3 {
            killed_part_way = child.try_wait().unwrap().is_none();
            let _ = child.kill();
            break;
        }
        assert!(
            started.elapsed().as_secs() < 120,
            "no results after 2 minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait().unwrap();
    assert!(
        killed_part_way,
        "the sweep finished before it could be killed: make it longer"
    );
    assert!(!killed.join("results.csv").exists());
    let o = sweep(&["sweep", s(&file), "--out", s(&killed), "--jobs", "2"]);
    let said = text(&o.stdout);
    assert!(said.contains("30 runs"), "{said}");
    assert_eq!(
        tables(&killed),
        want,
        "killed and resumed differs from straight"
    );
}

#[test]
fn keep_runs_writes_each_runs_folder_with_the_same_hash() {
    let dir = tmp("sweep-keep");
    let file = dir.join("k.toml");
    // An IMP-model scenario: its hash covers the resolved parameters too.
    std::fs::write(
        &file,
        "base = \"ko-v2-chain\"\nseeds = { from = 3, count = 2 }\n[set]\nduration = \"2s\"\n",
    )
    .unwrap();
    let out = dir.join("o");
    sweep(&["sweep", s(&file), "--out", s(&out), "--keep-runs"]);
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    // No swept key: the columns start at the seed.
    assert!(
        csv.starts_with("seed,config_hash,metric,value\n3,"),
        "{csv}"
    );
    let hashes: std::collections::BTreeSet<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(hashes.len(), 2);
    for h in hashes {
        let summary = std::fs::read_to_string(out.join("runs").join(h).join("summary.json"))
            .unwrap_or_else(|e| panic!("run folder {h}: {e}"));
        assert!(
            summary.contains(&format!("\"config_hash\": \"{h}\"")),
            "{summary}"
        );
    }
    // Without --keep-runs the same sweep writes the same tables and no run folders.
    let plain = dir.join("plain");
    sweep(&["sweep", s(&file), "--out", s(&plain)]);
    assert_same(&plain, &tables(&out), "without --keep-runs");
    assert!(
        std::fs::read_dir(plain.join("runs"))
            .unwrap()
            .all(|e| e.unwrap().path().is_file())
    );
    // With named metrics the first run is made (and, with --keep-runs, kept) before the plan
    // is written: the folder then holds only `runs/` for a moment, still the sweep's own.
    let named = dir.join("named.toml");
    let text = std::fs::read_to_string(&file).unwrap().replacen(
        "[set]",
        "metrics = [\"throughput_kbps\"]\n[set]",
        1,
    );
    std::fs::write(&named, text).unwrap();
    let kept = dir.join("named");
    sweep(&["sweep", s(&named), "--out", s(&kept), "--keep-runs"]);
    assert!(kept.join("sweep.json").is_file() && kept.join("results.csv").is_file());
}

#[test]
fn bad_sweep_files_are_one_line_errors_and_write_nothing() {
    let dir = tmp("sweep-bad");
    let head = "base = \"md1\"\nseeds = { from = 1, count = 2 }\n[set]\nduration = \"1min\"\n";
    for (name, body, want) in [
        (
            "unknown-key",
            format!("{head}[grdi]\nx = [1]\n"),
            "unknown field `grdi`",
        ),
        ("empty-grid", format!("{head}[grid]\n"), "[grid] is empty"),
        (
            "empty-values",
            format!("{head}[grid]\n\"network.line.queue_limit\" = []\n"),
            "at least one value",
        ),
        (
            "bad-value",
            format!("{head}[grid]\n\"network.line.capacity\" = [\"50kbit/s\", \"fast\"]\n"),
            "`fast` is not a rate",
        ),
        (
            "bad-key",
            format!("{head}[grid]\n\"network.line.bogus\" = [1]\n"),
            "unknown field `bogus`",
        ),
        (
            "missing-base",
            "base = \"no-such.toml\"\nseeds = { from = 1, count = 2 }\n".to_string(),
            "no such file",
        ),
        (
            "bad-metric",
            format!("metrics = [\"delay\"]\n{head}"),
            "no metric `delay`",
        ),
        ("not-toml", "base = \n".to_string(), "not-toml.toml:1:"),
    ] {
        let file = dir.join(format!("{name}.toml"));
        std::fs::write(&file, body).unwrap();
        let out = dir.join(format!("out-{name}"));
        let o = nmc(&["sweep", s(&file), "--out", s(&out)]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{name}: {e}");
        assert!(
            e.starts_with("nmc: ") && e.contains(&format!("{name}.toml")) && e.contains(want),
            "{name}: {e}"
        );
        assert!(!e.contains("panicked"), "{e}");
        assert!(!out.exists(), "{name}: wrote {}", out.display());
    }
    let o = nmc(&[
        "sweep",
        s(&dir.join("absent.toml")),
        "--out",
        s(&dir.join("o")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("absent.toml") && !dir.join("o").exists());
    let o = nmc(&["sweep", "merge", "--out", s(&dir.join("m")), s(&dir)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("sweep.json") && !dir.join("m").exists(),
        "{}",
        stderr(&o)
    );
    for bad in ["3/3", "1", "a/2", "0/0"] {
        let o = nmc(&["sweep", "x.toml", "--shard", bad]);
        assert_eq!(o.status.code(), Some(2), "--shard {bad}");
    }
}

#[test]
fn help_describes_the_file_and_resuming() {
    let o = sweep(&["sweep", "--help"]);
    let h = text(&o.stdout);
    for want in [
        "[grid]",
        "seeds = {",
        "--shard",
        "--jobs",
        "resume",
        "nmc sweep merge",
        "summary.csv",
    ] {
        assert!(h.contains(want), "no `{want}` in\n{h}");
    }
}
