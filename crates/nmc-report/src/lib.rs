//! # nmc-report — what a run leaves behind
//!
//! | module | what |
//! | --- | --- |
//! | [`summary`] | `summary.json`: scenario, seed, nmc version, config hash, flat metrics |
//! | [`records`] | CSV files of per-item records: written at once or row by row as a run makes them, and read back |
//! | [`plot`] | SVG charts (lines, points, bars) drawn with plotters' SVG backend |
//! | [`style`] | the one chart style: fonts, colours, markers, ticks, legend placement |
//! | [`diagram`] | path diagrams: K&O's time slices (messages, RFNMs, REQALLs along a path) |
//! | [`stats`] | best block of 150, autocorrelation and its significant lags, histogram (K&O §IV); the one percentile and its rules |
//! | [`check`] | reproduce-table rows: published value, ours, tolerance, within or not |
//! | [`scoreboard`] | one verdict per published quantity, from its rows, by one stated rule |
//! | [`html`] | the one-page `index.html` report: the table and every plot inline |
//! | [`outdir`] | output folders written beside `--out` and renamed into place whole; one writer at a time |
//!
//! Every output that holds results also holds the seed that made them.

#![warn(missing_docs)]

pub mod check;
pub mod diagram;
pub mod html;
pub mod outdir;
pub mod plot;
pub mod scoreboard;
pub mod style;
pub mod summary;

pub use check::{Check, Kind, Tally, Target, Value};
pub use html::{Report, Section};
/// Records and K&O's statistics live in `nmc-records` (issue 32), re-exported here.
pub use nmc_records::{ReportError, files, records, stats};
pub use outdir::{OutDir, OutDirError, OutLock};
pub use plot::{Axis, Chart, Series, SeriesStyle};
pub use scoreboard::{Figure, Group, Scoreboard, Verdict};
pub use summary::Summary;

pub(crate) fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<(), ReportError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| ReportError::Io {
            path: dir.display().to_string(),
            source,
        })?;
    }
    nmc_records::write_whole(path, bytes).map_err(|e| ReportError::Io {
        path: path.display().to_string(),
        source: e.into_io(),
    })
}
