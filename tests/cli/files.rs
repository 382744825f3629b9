//! Issue 57 §1: nmc creates every file it writes without following a link. In a shared parent
//! such as `/tmp` a local user can plant a link where nmc will write — the lock file beside
//! `--out`, a man page, a server's log — and on the main of 2026-11-28 nmc truncated and wrote
//! the link's target, a file the victim owns. Each case must refuse in one line, exit 2, and
//! leave the target as it was.

use super::{command, nmc, stderr, tmp};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// A file the attacker wants destroyed, and a link to it planted at `at`.
fn plant(base: &Path, at: &Path) -> PathBuf {
    let victim = base.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, at).unwrap();
    victim
}

fn refused_in_one_line(o: &std::process::Output, planted: &Path) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(err.contains("is a symbolic link"), "{err}");
    assert!(
        err.contains(planted.file_name().unwrap().to_str().unwrap()),
        "{err}"
    );
}

#[test]
fn a_link_planted_as_the_lock_file_is_refused() {
    let base = tmp("files-lock");
    let out = base.join("out");
    let lock = base.join(".out.nmc-lock");
    let victim = plant(&base, &lock);
    let o = nmc(&[
        "run",
        "md1",
        "--set",
        "duration=1s",
        "--out",
        out.to_str().unwrap(),
    ]);
    refused_in_one_line(&o, &lock);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(!out.exists());
}

#[test]
fn a_link_planted_as_a_man_page_refuses_every_page() {
    let base = tmp("files-man");
    let out = base.join("man1");
    std::fs::create_dir_all(&out).unwrap();
    let page = out.join("nmc-run.1");
    let victim = plant(&base, &page);
    let o = nmc(&["man", "--out", out.to_str().unwrap()]);
    refused_in_one_line(&o, &page);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    // Checked before any page was written: nothing else is there.
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
}

#[test]
fn a_link_planted_as_the_log_file_is_refused() {
    let base = tmp("files-log");
    let log = base.join("serve.log");
    let victim = plant(&base, &log);
    let o = command()
        .args(["serve", "--listen", "127.0.0.1:0", "--duration", "1s"])
        .args(["--log-file", log.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("is a symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}

#[test]
fn a_link_in_the_folder_before_a_run_is_never_written_through() {
    // An empty --out folder the user made, with a link planted inside it by another user
    // before the run (the folder is then not empty and not nmc's: refused whole).
    let base = tmp("files-inside");
    let out = base.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let victim = plant(&base, &out.join("summary.json"));
    let o = nmc(&[
        "run",
        "md1",
        "--set",
        "duration=1s",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}
