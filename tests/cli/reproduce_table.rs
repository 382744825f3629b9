//! Issue 17: the published-vs-ours table of `nmc reproduce --all --quick`, snapshotted, so that
//! any change to a row (its kind, its value at the tolerance's precision, its verdict) is a
//! reviewed change. The snapshot is also the one place that lists the known misses.
//!
//! To accept a reviewed change: `INSTA_UPDATE=always cargo test --test cli reproduce_table`
//! (or `cargo insta review`), then commit `tests/cli/snapshots/*.snap`. CI runs with
//! `INSTA_UPDATE=no`: a changed row fails the test and nothing is written.

use super::{nmc, stderr, tmp};
use nmc_report::{Check, Kind, Tally};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

/// The committed snapshot, for the tests that run a few experiments.
const SNAPSHOT: &str = include_str!("snapshots/cli__reproduce_table__reproduce_all_quick.snap");

/// The rows of `reproduce.json` in `dir`.
pub fn rows(dir: &Path) -> Vec<Check> {
    let json = std::fs::read(dir.join("reproduce.json")).expect("reproduce.json written");
    let doc: serde_json::Value = serde_json::from_slice(&json).expect("reproduce.json is JSON");
    assert_eq!(doc["schema"], "nmc-reproduce/2");
    serde_json::from_value(doc["rows"].clone()).expect("reproduce.json's rows read back")
}

/// One row of the snapshot: experiment, id, kind, published, ours rounded to the tolerance's
/// precision, within.
fn line(c: &Check) -> String {
    format!(
        "{} | {} | {} | {} | {} | {}",
        c.experiment,
        c.id,
        c.kind,
        c.published,
        c.ours_rounded(),
        if c.within { "yes" } else { "NO" }
    )
}

/// The snapshot's text: the rows, the headline, and the misses by experiment.
fn table(checks: &[Check]) -> String {
    let mut out = String::from("experiment | id | kind | published | ours | within\n");
    for c in checks {
        out.push_str(&line(c));
        out.push('\n');
    }
    out.push_str(&format!("\n{}\n", Tally::of(checks).headline()));
    for (title, emergent) in [
        ("Known misses (emergent rows outside tolerance)", true),
        ("Not counted, outside tolerance", false),
    ] {
        out.push_str(&format!("\n{title}:\n"));
        let mut by: Vec<(&str, Vec<&str>)> = Vec::new();
        for c in checks
            .iter()
            .filter(|c| !c.within && c.counts() == emergent)
        {
            match by.iter_mut().find(|(e, _)| *e == c.experiment) {
                Some((_, ids)) => ids.push(&c.id),
                None => by.push((&c.experiment, vec![&c.id])),
            }
        }
        if by.is_empty() {
            out.push_str("  none\n");
        }
        for (e, ids) in by {
            out.push_str(&format!("  {e}: {}\n", ids.join("; ")));
        }
    }
    out
}

/// Asserts that the rows in `dir`'s reproduce.json (a run of some experiments with `--quick`
/// and seed 1) are exactly the snapshot's rows for those experiments.
pub fn assert_rows_match_snapshot(dir: &Path) {
    let ours = rows(dir);
    assert!(!ours.is_empty(), "no rows in {}", dir.display());
    let mut experiments: Vec<&str> = ours.iter().map(|c| c.experiment.as_str()).collect();
    experiments.dedup();
    for e in experiments {
        let got: Vec<String> = ours
            .iter()
            .filter(|c| c.experiment == e)
            .map(line)
            .collect();
        let want: Vec<&str> = SNAPSHOT
            .lines()
            .filter(|l| l.starts_with(&format!("{e} | ")))
            .collect();
        assert_eq!(got, want, "{e}: rows differ from the reviewed snapshot");
    }
}

/// The one `nmc reproduce --all --quick` (seed 1) of this test binary, run by the first test
/// that asks for it: its output and its folder (`target/tmp/reproduce-all-quick`, which
/// `scripts/test.sh` then hands to the browser test). The tests that check an experiment's rows,
/// tables and plots read them here instead of running the experiment again: in a debug build
/// the quick run takes minutes, and every experiment's files are the same whether it runs
/// alone or with the others (each has its own seeds).
fn all_quick() -> &'static (Output, PathBuf) {
    static RUN: OnceLock<(Output, PathBuf)> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tmp("reproduce-all-quick");
        let o = nmc(&[
            "reproduce",
            "--all",
            "--quick",
            "--out",
            dir.to_str().unwrap(),
        ]);
        (o, dir)
    })
}

/// [`all_quick`]'s terminal table and folder, once the run is known to have exited 0.
pub fn all_quick_ok() -> (String, &'static Path) {
    let (o, dir) = all_quick();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    (String::from_utf8_lossy(&o.stdout).into_owned(), dir)
}

#[test]
fn reproduce_all_quick() {
    let (stdout, dir) = all_quick_ok();
    let checks = rows(dir);
    // The terminal table fits 120 columns; the headline counts emergent rows only.
    // (The two closing lines name paths, whose length is the user's.)
    for l in stdout
        .lines()
        .filter(|l| !l.starts_with("Report: ") && !l.starts_with("Table:  "))
    {
        assert!(l.chars().count() <= 120, "wider than 120: {l}");
    }
    let tally = Tally::of(&checks);
    // Both headlines are wrapped at 120 columns like the rest.
    let flat = stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&tally.headline()),
        "headline missing:\n{stdout}"
    );
    assert_eq!(tally.rows(), checks.len());
    assert!(
        checks
            .iter()
            .all(|c| c.kind == Kind::Emergent || !c.why.is_empty())
    );
    // Issue 31: every id is unique and starts with its published quantity, which is on the
    // scoreboard; the scoreboard is printed before the rows and heads the report.
    let mut ids: Vec<&str> = checks.iter().map(|c| c.id.as_str()).collect();
    ids.sort();
    let n = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), n, "row ids are not unique");
    let board = scoreboard(dir);
    for c in &checks {
        assert!(c.id.starts_with(&c.figure), "{}", c.id);
        assert!(
            board.iter().any(|q| q["id"] == c.figure.as_str()),
            "{}'s quantity is not on the scoreboard",
            c.id
        );
    }
    let spec = board
        .iter()
        .filter(|q| q["group"] == "published (SPEC §3)")
        .count();
    assert_eq!(spec, 21, "every quantity of SPEC §3 has rows");
    let headline = stdout.lines().next().unwrap_or("");
    assert!(
        headline.starts_with("Of the 21 published quantities run (SPEC §3): "),
        "the scoreboard comes first:\n{stdout}"
    );
    assert!(stdout.find("KO-1      ").unwrap() < stdout.find("golden-chain:").unwrap());
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains(&tally.headline()), "the report's headline");
    let top = html
        .find("<section id=\"scoreboard\">")
        .expect("scoreboard on the page");
    assert!(top < html.find("<section id=\"rows\">").unwrap());
    let mut text = quantities(&board);
    text.push_str(&table(&checks));
    insta::assert_snapshot!("reproduce_all_quick", text);
}

/// The scoreboard of `reproduce.json` in `dir`: one entry per published quantity.
fn scoreboard(dir: &Path) -> Vec<serde_json::Value> {
    let json = std::fs::read(dir.join("reproduce.json")).expect("reproduce.json written");
    let doc: serde_json::Value = serde_json::from_slice(&json).expect("reproduce.json is JSON");
    doc["scoreboard"]["quantities"]
        .as_array()
        .expect("a scoreboard")
        .clone()
}

/// The snapshot's first part: each quantity's verdict and its counted rows within.
fn quantities(board: &[serde_json::Value]) -> String {
    let mut out = String::from("quantity | group | verdict | counted rows within\n");
    for q in board {
        out.push_str(&format!(
            "{} | {} | {} | {} of {} ({} rows)\n",
            q["id"].as_str().unwrap_or(""),
            q["group"].as_str().unwrap_or(""),
            q["verdict"].as_str().unwrap_or(""),
            q["within"],
            q["counted"],
            q["rows"]
        ));
        // Issue 56: a calibrated verdict, beside the sourced one it never changes.
        if let Some(v) = q["calibrated"].as_str() {
            out.push_str(&format!(
                "{} | calibrated: {v}\n",
                q["id"].as_str().unwrap_or("")
            ));
        }
    }
    out.push('\n');
    out
}
