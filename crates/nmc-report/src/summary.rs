//! `summary.json`: the one file every run writes.

use crate::{ReportError, write_file};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The summary of one run. Metrics are a flat, ordered map of name → number.
#[derive(Debug, Serialize)]
pub struct Summary {
    /// The scenario's name.
    pub scenario: String,
    /// The seed the run was made with.
    pub seed: u64,
    /// The nmc version that made the run.
    pub nmc_version: String,
    /// SHA-256 of the resolved configuration (after `--set` overrides).
    pub config_hash: String,
    /// The run's metrics by name (`rtt.p50_ms`); a metric's unit, where it has one, ends its
    /// name.
    pub metrics: BTreeMap<String, f64>,
    /// The resolved configuration itself.
    pub config: serde_json::Value,
}

impl Summary {
    /// Writes the summary to `path` as pretty-printed JSON with a final newline.
    pub fn write(&self, path: &Path) -> Result<(), ReportError> {
        let text = self.text().map_err(|e| ReportError::Format {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        write_file(path, text.as_bytes())
    }

    /// The bytes [`Summary::write`] writes: pretty-printed JSON with a final newline.
    pub fn text(&self) -> Result<String, serde_json::Error> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        Ok(text)
    }
}
