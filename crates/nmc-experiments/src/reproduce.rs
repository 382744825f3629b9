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

/// What `nmc reproduce` prints at the end: the scoreboard, the table of rows and its key, the
/// tally and the headline with the run's `seed`, then the rows outside their tolerance by
/// published quantity (at most eight ids a quantity; every row is in the table).
pub fn summary_text(checks: &[Check], board: &Scoreboard, seed: u64) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    // The scoreboard first (issue 31): which published quantities are reproduced, then the rows.
    t.push_str(&board.text());
    t.push('\n');
    t.push_str(&nmc_report::check::table_text(checks));
    let _ = writeln!(
        t,
        "kind: emergent rows count; input = restated input, bound = sanity bound, variant = the same figure"
    );
    let _ = writeln!(
        t,
        "by another method, in-sample = scored on the data its model was fitted on (shown, not counted),"
    );
    let _ = writeln!(
        t,
        "calibrated = scored out of sample under a calibrated profile (the quantity's calibrated verdict only),"
    );
    let _ = writeln!(
        t,
        "expected = compared with what the paper's author expected, not with a measurement (not counted)"
    );
    t.push('\n');
    let tally = format!("{}.", Tally::of(checks).headline());
    for l in nmc_report::check::wrap(&tally, nmc_report::check::TABLE_WIDTH) {
        let _ = writeln!(t, "{l}");
    }
    let _ = writeln!(
        t,
        "Seed {} (written into reproduce.json and the report).",
        seed
    );
    if let Some(h) = board.headline() {
        for l in nmc_report::check::wrap(&format!("{h}."), nmc_report::check::TABLE_WIDTH) {
            let _ = writeln!(t, "{l}");
        }
    }
    // Rows outside their tolerance, by published quantity, in the report's order: the counted
    // ones (findings), then any other (an input or a bound that misses is a defect to look at).
    // At most eight ids a quantity; every row is in the table above and in the report.
    const LIST: usize = 8;
    for (title, counted) in [
        (
            "Outside tolerance, by quantity (findings, explained in the report):",
            true,
        ),
        (
            "Not counted, and outside tolerance (inputs, bounds, variants, in-sample and calibrated rows):",
            false,
        ),
    ] {
        let mut by: Vec<(&str, Vec<&str>)> = Vec::new();
        for c in checks.iter().filter(|c| !c.within && c.counts() == counted) {
            let short =
                c.id.strip_prefix(&c.figure)
                    .map_or(c.id.as_str(), str::trim);
            let short = if short.is_empty() {
                c.id.as_str()
            } else {
                short
            };
            match by.iter_mut().find(|(f, _)| *f == c.figure) {
                Some((_, ids)) => ids.push(short),
                None => by.push((&c.figure, vec![short])),
            }
        }
        if !by.is_empty() {
            let _ = writeln!(t, "{title}");
            for (f, ids) in &by {
                let mut text = ids[..ids.len().min(LIST)].join("; ");
                if ids.len() > LIST {
                    text.push_str(&format!("; and {} more", ids.len() - LIST));
                }
                // Within the table's width, continued lines indented under the first.
                let first = format!("  {f} ({}): ", ids.len());
                let indent = " ".repeat(first.chars().count());
                let width = nmc_report::check::TABLE_WIDTH - indent.len();
                for (k, l) in nmc_report::check::wrap(&text, width).iter().enumerate() {
                    let _ = writeln!(t, "{}{l}", if k == 0 { &first } else { &indent });
                }
            }
        }
    }
    t
}
