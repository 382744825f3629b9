//! Issue 17: the published-vs-ours table of `nmc reproduce --all --quick`, snapshotted, so that
//! any change to a row (its kind, its value at the tolerance's precision, its verdict) is a
//! reviewed change. The snapshot is also the one place that lists the known misses.
//!
//! To accept a reviewed change: `INSTA_UPDATE=always cargo test --test cli reproduce_table`
//! (or `cargo insta review`), then commit `tests/cli/snapshots/*.snap`. CI runs with
//! `INSTA_UPDATE=no`: a changed row fails the test and nothing is written.

use super::{nmc, stderr, tmp};
use nmc_report::{Check, Kind, Tally};
use std::path::Path;

/// The committed snapshot, for the tests that run a few experiments.
const SNAPSHOT: &str = include_str!("snapshots/cli__reproduce_table__reproduce_all_quick.snap");

/// The rows of `reproduce.json` in `dir`.
pub fn rows(dir: &Path) -> Vec<Check> {
    let json = std::fs::read(dir.join("reproduce.json")).expect("reproduce.json written");
    serde_json::from_slice(&json).expect("reproduce.json reads back as rows")
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

#[test]
fn reproduce_all_quick() {
    let dir = tmp("reproduce-all-quick");
    let o = nmc(&[
        "reproduce",
        "--all",
        "--quick",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let checks = rows(&dir);
    // The terminal table fits 120 columns; the headline counts emergent rows only.
    let stdout = String::from_utf8_lossy(&o.stdout);
    // (The two closing lines name paths, whose length is the user's.)
    for l in stdout
        .lines()
        .filter(|l| !l.starts_with("Report: ") && !l.starts_with("Table:  "))
    {
        assert!(l.chars().count() <= 120, "wider than 120: {l}");
    }
    let tally = Tally::of(&checks);
    assert!(
        stdout.contains(&tally.headline()),
        "headline missing:\n{stdout}"
    );
    assert_eq!(
        tally.emergent + tally.restated_input + tally.sanity_bound,
        checks.len()
    );
    assert!(
        checks
            .iter()
            .all(|c| c.kind == Kind::Emergent || !c.why.is_empty())
    );
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains(&tally.headline()), "the report's headline");
    insta::assert_snapshot!("reproduce_all_quick", table(&checks));
}
