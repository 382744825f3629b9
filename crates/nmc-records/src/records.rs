//! Per-item records as CSV (a header row, then one row per item; `None` is an empty cell):
//! written at once ([`write_csv`]), or row by row as a run makes them ([`CsvSink`]), and read
//! back ([`read_csv`]) for what is drawn from every row after the run, so that a run need not
//! keep the rows.

use crate::ReportError;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// Writes `rows` to `path` whole ([`crate::write_whole`]): a full disk or a killed
/// process never leaves a file cut mid-row.
pub fn write_csv<T: Serialize>(path: &Path, rows: &[T]) -> Result<(), ReportError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).map_err(|e| format_error(path, e))?;
    }
    let bytes = w.into_inner().map_err(|e| format_error(path, e))?;
    crate::write_whole(path, &bytes).map_err(|e| format_error(path, e.cause()))
}

fn format_error(path: &Path, e: impl ToString) -> ReportError {
    ReportError::Format {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// A CSV file written one row at a time, through a buffer: the same bytes as [`write_csv`] of
/// the same rows. As a [`nmc_sim::RecordSink`] its errors name the file.
pub struct CsvSink {
    path: PathBuf,
    w: csv::Writer<File>,
}

impl CsvSink {
    /// Creates (or empties) the file, and its folder if need be.
    pub fn create(path: &Path) -> Result<Self, ReportError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format_error(path, e))?;
        }
        let file = crate::files::create(path).map_err(|e| format_error(path, e.cause()))?;
        let w = csv::Writer::from_writer(file);
        Ok(CsvSink {
            path: path.to_path_buf(),
            w,
        })
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write<T: Serialize>(&mut self, row: &T) -> csv::Result<()> {
        self.w.serialize(row)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }

    fn io_error(&self, e: impl ToString) -> io::Error {
        io::Error::other(format!("{}: {}", self.path.display(), e.to_string()))
    }
}

impl<T: Serialize> nmc_sim::RecordSink<T> for CsvSink {
    fn record(&mut self, row: &T) -> io::Result<()> {
        self.write(row).map_err(|e| self.io_error(e))
    }
    fn finish(&mut self) -> io::Result<()> {
        self.flush().map_err(|e| self.io_error(e))
    }
}

/// The rows of a CSV file with a header row, as `T` (columns matched by name; columns `T` has
/// no field for are skipped), one at a time: a file of any length reads in constant memory.
pub fn read_csv<T: DeserializeOwned>(
    path: &Path,
) -> Result<impl Iterator<Item = Result<T, ReportError>>, ReportError> {
    let r = csv::Reader::from_path(path).map_err(|e| read_error(path, e))?;
    let path = path.to_path_buf();
    Ok(r.into_deserialize()
        .map(move |row| row.map_err(|e| read_error(&path, e))))
}

fn read_error(path: &Path, e: impl ToString) -> ReportError {
    ReportError::Read {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nmc_sim::RecordSink;

    #[derive(Clone, serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Row {
        id: u64,
        name: String,
        at: Option<u64>,
        x: f64,
    }

    fn rows() -> Vec<Row> {
        (0..5)
            .map(|i| Row {
                id: i,
                name: format!("r{i}"),
                at: (i % 2 == 0).then_some(i * 10),
                x: i as f64 / 3.0,
            })
            .collect()
    }

    #[test]
    fn a_sink_writes_what_write_csv_writes_and_reads_back() {
        let dir = std::env::temp_dir().join(format!("nmc-records-{}", std::process::id()));
        let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
        write_csv(&a, &rows()).unwrap();
        let mut s = CsvSink::create(&b).unwrap();
        for r in rows() {
            s.record(&r).unwrap();
        }
        RecordSink::<Row>::finish(&mut s).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        let back: Vec<Row> = read_csv(&b).unwrap().collect::<Result<_, _>>().unwrap();
        assert_eq!(back, rows());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `/dev/full` takes the open and fails every write: an error naming the file, not a panic.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_disk_is_an_error_naming_the_file() {
        let mut s = CsvSink::create(Path::new("/dev/full")).unwrap();
        let mut first = Ok(());
        for r in rows().iter().cycle().take(10_000) {
            first = first.and(s.record(r));
        }
        let e = first
            .and_then(|_| RecordSink::<Row>::finish(&mut s))
            .unwrap_err();
        assert!(e.to_string().starts_with("/dev/full: "), "{e}");
        assert!(!e.to_string().contains('\n'));
    }
}
