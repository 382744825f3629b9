//! Per-item records as CSV (a header row, then one row per item; `None` is an empty cell).

use crate::ReportError;
use serde::Serialize;
use std::path::Path;

pub fn write_csv<T: Serialize>(path: &Path, rows: &[T]) -> Result<(), ReportError> {
    let err = |message: String| ReportError::Format {
        path: path.display().to_string(),
        message,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| err(e.to_string()))?;
    }
    let mut w = csv::Writer::from_path(path).map_err(|e| err(e.to_string()))?;
    for r in rows {
        w.serialize(r).map_err(|e| err(e.to_string()))?;
    }
    w.flush().map_err(|e| err(e.to_string()))
}
