//! # nmc-records — records and their statistics, for the models and the instruments
//!
//! | module | what |
//! | --- | --- |
//! | [`records`] | CSV files of per-item records: written at once or row by row as a run makes them, and read back |
//! | [`stats`] | best block of 150, autocorrelation and its significant lags, histogram (K&O §IV); the one percentile and its rules |
//!
//! Split from `nmc-report` (issue 32) so that a model (`nmc-imp`) writes its records and
//! computes K&O's statistics without depending on the crate that draws plots and pages;
//! `nmc-report` re-exports both modules and [`ReportError`] under their old paths.

#![warn(missing_docs)]

pub mod records;
pub mod stats;

use std::fs::{self, File};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Why [`write_whole`] could not write a file; its text is `nmc_report::OutDirError`'s for the
/// same failure.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The path (as displayed) has no last component to name the file (`.`, `..`, `/`).
    #[error("{0}: an output folder needs a name (not `.`, `..` or `/`)")]
    Unnamed(String),
    /// An I/O failure on the way: creating the parent folder, or writing, syncing and renaming
    /// the temporary file.
    #[error("{what} {path}: {source}")]
    Io {
        /// The step that failed, as a verb: `creating` (the folder) or `writing` (the file).
        what: &'static str,
        /// The folder being created, or the file being written (not its temporary), as displayed.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
}

/// `path`'s parent (`.` for a bare name) and its last component; `None` when it has no name
/// (`.`, `..`, `/`).
pub fn parent_and_name(path: &Path) -> Option<(PathBuf, String)> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| !n.is_empty())?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Some((parent, name.to_string()))
}

/// Writes one file whole: into a temporary file beside it (`.<name>.<pid>.tmp`), synced, then
/// renamed over it, so a full disk or a killed process leaves the previous file (or none), never
/// a cut one. Output folders' files, CSV records written at once and sweeps' result files go
/// through it (`nmc_report::outdir::write_whole`, `nmc_sweep::store::write_atomic`).
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let io = |what: &'static str, p: &Path| {
        let path = p.display().to_string();
        move |source| WriteError::Io { what, path, source }
    };
    let (parent, name) =
        parent_and_name(path).ok_or_else(|| WriteError::Unnamed(path.display().to_string()))?;
    fs::create_dir_all(&parent).map_err(io("creating", &parent))?;
    let tmp = parent.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written.map_err(io("writing", path))
}

/// A failure writing an output file, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// Creating a folder or writing a file failed in the operating system.
    #[error("writing {path}: {source}")]
    Io {
        /// The folder or file, as displayed.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Writing a file failed with an error that is not a bare I/O error: encoding it (CSV,
    /// JSON), or creating or writing it whole, the cause given as text.
    #[error("writing {path}: {message}")]
    Format {
        /// The file being written, as displayed.
        path: String,
        /// What went wrong, as the encoder or the writer said it.
        message: String,
    },
    /// Reading a file back failed: opening it, or a row that does not parse.
    #[error("reading {path}: {message}")]
    Read {
        /// The file being read, as displayed.
        path: String,
        /// What went wrong, as the CSV reader said it.
        message: String,
    },
}
