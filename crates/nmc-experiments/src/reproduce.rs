//! What `nmc reproduce` (and Python's `nmc.reproduce`) leave behind: `reproduce.json` and the
//! report page, with the scoreboard of [`crate::figures`] over the rows.

use anyhow::{Context as _, Result};
use nmc_report::{Check, Report, Scoreboard, Tally};
use serde::Serialize;
use std::path::Path;

/// The version of `reproduce.json`'s layout: 2 adds the scoreboard and each row's `figure`
/// (version 1 was the bare list of rows).
pub const SCHEMA: &str = "nmc-reproduce/2";

/// `reproduce.json`: the same bytes for the same seed and experiments, wherever it is written
/// (so no command line or output folder in it; the report page shows the command).
#[derive(Serialize)]
pub struct ReproduceJson<'a> {
    /// The layout's version, [`SCHEMA`].
    pub schema: &'static str,
    /// The nmc version that wrote it (the package version).
    pub nmc_version: &'a str,
    /// The reproduction's seed.
    pub seed: u64,
    /// One verdict per published quantity ([`nmc_report::scoreboard`]).
    pub scoreboard: &'a Scoreboard,
    /// The headline over rows: emergent rows within, and the rows not counted by kind.
    pub rows_headline: String,
    /// Every row of every experiment run, in report order.
    pub rows: &'a [Check],
}

/// Builds the scoreboard of `report`'s rows, puts it on the page, and writes `reproduce.json`
/// and `index.html` into `out`. Returns the rows and the scoreboard.
pub fn write(out: &Path, report: &mut Report) -> Result<(Vec<Check>, Scoreboard)> {
    let checks = report.rows();
    let board = Scoreboard::of(&crate::figures::all(), &checks)?;
    report.scoreboard = Some(board.clone());
    let doc = ReproduceJson {
        schema: SCHEMA,
        nmc_version: &report.nmc_version,
        seed: report.seed,
        scoreboard: &board,
        rows_headline: Tally::of(&checks).headline(),
        rows: &checks,
    };
    let json = serde_json::to_string_pretty(&doc)? + "\n";
    let path = out.join("reproduce.json");
    nmc_report::files::write(&path, json).with_context(|| format!("writing {}", path.display()))?;
    report.write(&out.join("index.html"))?;
    Ok((checks, board))
}
