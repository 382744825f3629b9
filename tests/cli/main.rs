//! The `nmc` binary as a user meets it: one test binary, one module per subcommand family.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod book;
mod contract;
mod cost;
mod echo;
mod files;
mod json;
mod limits;
mod outputs;
#[cfg(target_os = "linux")]
mod path;
mod pump;
mod reproduce_table;
mod rrul;
mod rto;
mod run_and_reproduce;
mod serve;
mod servers;
mod shell;
mod stream;
mod sweep;
mod unanswered;
mod units;

/// `nmc` with its working directory at the repository root.
pub fn command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_nmc"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// Runs `nmc ARGS` to completion.
pub fn nmc(args: &[&str]) -> Output {
    command().args(args).output().expect("nmc runs")
}

/// A fresh, empty folder for one test.
pub fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub fn stderr(o: &Output) -> String {
    text(&o.stderr)
}

/// The loopback address a server just started (stderr piped) names in its first stderr line,
/// and the rest of its stderr. Keep the reader, or drain it, while the server runs: a server
/// whose stderr pipe is closed fails on its next log line.
pub fn server_address(
    child: &mut std::process::Child,
) -> (std::io::BufReader<std::process::ChildStderr>, String) {
    use std::io::BufRead as _;
    let mut err = std::io::BufReader::new(child.stderr.take().expect("stderr piped"));
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    let addr = first
        .split_whitespace()
        .find(|w| w.starts_with("127.0.0.1:"))
        .unwrap_or_else(|| panic!("no address in `{first}`"))
        .trim_end_matches([';', ','])
        .to_string();
    (err, addr)
}

/// `nmc serve` on a free loopback port for `secs` seconds, its stderr drained: the child (kill
/// it at the end) and its address.
pub fn serve_loopback(secs: u32) -> (std::process::Child, String) {
    let mut server = command()
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--duration",
            &format!("{secs}s"),
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("nmc serve starts");
    let (err, addr) = server_address(&mut server);
    drain(err);
    (server, addr)
}

/// Reads a server's stderr to its end on a thread of its own, for a test that does not need
/// it: the server then never blocks on a full pipe nor fails on a closed one.
pub fn drain(err: std::io::BufReader<std::process::ChildStderr>) {
    use std::io::BufRead as _;
    std::thread::spawn(move || for _ in err.lines() {});
}
