//! The tables the commands write: one CSV file from serialisable rows, its header from the
//! rows' field names. Below both `cli` and `map`, which write them.

use anyhow::{Context, Result};
use std::path::Path;

/// Writes `rows` to `path` as CSV, a header line first.
pub(crate) fn write_csv<T: serde::Serialize>(path: &Path, rows: &[T]) -> Result<()> {
    let mut w =
        csv::Writer::from_path(path).with_context(|| format!("cannot write {}", path.display()))?;
    for r in rows {
        w.serialize(r)?;
    }
    w.flush()?;
    Ok(())
}
