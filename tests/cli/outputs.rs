//! Issue 33, class 4: an output folder never mixes runs. A run writes beside `--out`
//! (`<out>.incomplete`) and renames into place when complete; a second writer is refused in one
//! line; an interrupted run leaves the previous complete output; nmc never replaces a folder
//! it did not write.

use super::{command, nmc, stderr, tmp};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A sweep file in `base`: md1 for 1 s, two seeds.
fn md1_sweep(base: &Path) -> std::path::PathBuf {
    let file = base.join("s.toml");
    std::fs::write(
        &file,
        "base = \"md1\"\nseeds = { from = 1, count = 2 }\n[set]\nduration = \"1s\"\n",
    )
    .unwrap();
    file
}

#[test]
fn a_rerun_keeps_nothing_of_the_run_before() {
    let base = tmp("outputs-rerun");
    let out = base.join("chain");
    let first = nmc(&[
        "run",
        "ko-v2-chain",
        "--set",
        "duration=2s",
        "--set",
        "trace=true",
        "--out",
        s(&out),
    ]);
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(out.join("trace.jsonl").exists());
    let second = nmc(&[
        "run",
        "ko-v2-chain",
        "--set",
        "duration=2s",
        "--out",
        s(&out),
    ]);
    assert!(second.status.success(), "{}", stderr(&second));
    // The first run's trace was not the second's: it is gone, not left beside its summary.
    assert!(!out.join("trace.jsonl").exists(), "{:?}", names(&out));
    assert!(out.join("summary.json").exists());
    // Nothing beside the folder: no staging copy, no lock.
    assert_eq!(names(&base), ["chain"]);
}

#[test]
fn a_folder_nmc_did_not_write_is_refused_and_kept() {
    let base = tmp("outputs-foreign");
    std::fs::write(base.join("thesis.tex"), "years of work").unwrap();
    for args in [
        vec!["run", "md1", "--set", "duration=1s", "--out", s(&base)],
        vec!["reproduce", "golden-chain", "--quick", "--out", s(&base)],
    ] {
        let o = nmc(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains("holds files nmc did not write"), "{e}");
        assert_eq!(names(&base), ["thesis.tex"]);
    }
}

#[test]
fn a_second_writer_is_refused_and_a_killed_run_leaves_the_previous_output() {
    let base = tmp("outputs-lock");
    let out = base.join("run");
    let first = nmc(&["run", "md1", "--set", "duration=1s", "--out", s(&out)]);
    assert!(first.status.success(), "{}", stderr(&first));
    let before = std::fs::read(out.join("summary.json")).unwrap();
    // A long run into the same folder (far longer than this test waits for it).
    let mut long = command()
        .args(["run", "md1", "--set", "duration=100000s", "--out", s(&out)])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let staging = base.join("run.incomplete");
    let t = Instant::now();
    while !staging.exists() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "the long run never began"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = nmc(&["run", "md1", "--set", "duration=1s", "--out", s(&out)]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("another nmc run is writing there"), "{e}");
    // Killed, the long run leaves the previous output whole and its own clearly named.
    long.kill().unwrap();
    long.wait().unwrap();
    assert_eq!(std::fs::read(out.join("summary.json")).unwrap(), before);
    assert!(staging.exists());
    // The kernel let go of the lock with the process: the next run goes ahead and clears it.
    let again = nmc(&["run", "md1", "--set", "duration=1s", "--out", s(&out)]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(names(&base), ["run"]);
}

#[test]
fn a_sweep_is_refused_while_another_writer_holds_its_folder() {
    let base = tmp("outputs-sweep");
    let file = md1_sweep(&base);
    let out = base.join("sweep");
    // Another writer (here, this test) holds the folder.
    let held = nmc_report::OutLock::acquire(&out).unwrap();
    let o = nmc(&["sweep", s(&file), "--out", s(&out)]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("another nmc run is writing there"), "{e}");
    assert!(!out.join("sweep.json").exists());
    drop(held);
    let o = nmc(&["sweep", s(&file), "--out", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("sweep.json").exists());
}

/// A sweep's folder holds runs that took hours and that it resumes from: no other command
/// replaces it, and a sweep writes only into a new or empty folder or its own, never among a
/// user's files or another command's output.
#[test]
fn a_sweep_folder_is_kept_and_a_sweep_keeps_to_its_own() {
    let base = tmp("outputs-sweep-folder");
    let file = md1_sweep(&base);
    let out = base.join("sweep");
    let o = nmc(&["sweep", s(&file), "--out", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = names(&out);
    // `nmc run` into the sweep's folder: refused in one line, the sweep untouched.
    let o = nmc(&["run", "md1", "--set", "duration=1s", "--out", s(&out)]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("holds a sweep's runs"), "{e}");
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    assert_eq!(names(&out), before);
    assert!(!base.join("sweep.incomplete").exists());
    // The same sweep again resumes there.
    let o = nmc(&["sweep", s(&file), "--out", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A sweep into a folder of other files, or into a run's output: refused, nothing written.
    let mine = base.join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("keep.txt"), "mine").unwrap();
    let run = base.join("run");
    let o = nmc(&["run", "md1", "--set", "duration=1s", "--out", s(&run)]);
    assert!(o.status.success(), "{}", stderr(&o));
    for dir in [&mine, &run] {
        let before = names(dir);
        let o = nmc(&["sweep", s(&file), "--out", s(dir)]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(e.contains("not a sweep's"), "{e}");
        assert_eq!(names(dir), before);
    }
}

/// Issue 57 §6: an `--out` path with an escape byte was echoed raw in the "wrote …" line,
/// where it could drive the terminal. Control characters are escaped there now; the folder
/// itself has the name asked for.
#[test]
fn a_path_with_control_characters_is_escaped_where_it_is_echoed() {
    let base = tmp("out-escape");
    let out = base.join("out\u{1b}[31m");
    let o = nmc(&["run", "md1", "--set", "duration=1s", "--out", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out.join("summary.json").is_file());
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!stdout.contains('\u{1b}'), "a raw escape in: {stdout:?}");
    let wrote = stdout
        .lines()
        .find(|l| l.starts_with("wrote "))
        .unwrap_or_else(|| panic!("no wrote line in {stdout}"));
    assert!(wrote.ends_with("out\\u{1b}[31m"), "{wrote}");
}
