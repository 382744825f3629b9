//! The `nmc` binary as a user meets it: one test binary, one module per subcommand family.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod cost;
mod echo;
mod json;
mod limits;
mod outputs;
mod pump;
mod reproduce_table;
mod rto;
mod run_and_reproduce;
mod servers;
mod stream;
mod sweep;

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
