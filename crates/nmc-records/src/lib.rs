//! # nmc-records — records and their statistics, for the models and the instruments
//!
//! | module | what |
//! | --- | --- |
//! | [`files`] | every file nmc writes, created so that none is written through a link or over another user's file (issue 57 §1) |
//! | [`records`] | CSV files of per-item records: written at once or row by row as a run makes them, and read back |
//! | [`stats`] | best block of 150, autocorrelation and its significant lags, histogram (K&O §IV); the one percentile and its rules |
//!
//! Split from `nmc-report` (issue 32) so that a model (`nmc-imp`) writes its records and
//! computes K&O's statistics without depending on the crate that draws plots and pages;
//! `nmc-report` re-exports both modules and [`ReportError`] under their old paths.

#![warn(missing_docs)]

pub mod files;
pub mod records;
pub mod stats;

pub use files::write_whole;

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
    /// What is at the path is not a file nmc may write: a link, another user's file, not a
    /// regular file, or one with other names ([`files`]).
    #[error("{path}: {why}")]
    Refused {
        /// The path, as displayed.
        path: String,
        /// What nmc found there, and what to do.
        why: &'static str,
    },
}

impl WriteError {
    /// What went wrong without the path, for a message that names the path already.
    pub fn cause(&self) -> String {
        match self {
            WriteError::Unnamed(_) => "a file needs a name (not `.`, `..` or `/`)".into(),
            WriteError::Io { what, source, .. } => format!("{what}: {source}"),
            WriteError::Refused { why, .. } => (*why).into(),
        }
    }

    /// As an I/O error, for writers whose errors are `std::io::Error` and name the path
    /// themselves: the operating system's error as it was, or a refusal's reason.
    pub fn into_io(self) -> std::io::Error {
        match self {
            WriteError::Io { source, .. } => source,
            WriteError::Refused { why, .. } => {
                std::io::Error::new(std::io::ErrorKind::PermissionDenied, why)
            }
            e @ WriteError::Unnamed(_) => {
                std::io::Error::new(std::io::ErrorKind::InvalidInput, e.cause())
            }
        }
    }
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
