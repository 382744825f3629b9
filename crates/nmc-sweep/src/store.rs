//! One small file per finished run, `runs/<config hash>.json`, written whole or not at all
//! (a temporary file, synced, then renamed over), so an interrupted sweep loses at most the
//! runs in flight and a resumed one skips every run already there.

use anyhow::{Context as _, Result};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What one run left: its identity and its metrics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunResult {
    /// The run's config hash ([`crate::Run::config_hash`], SHA-256 in hex); the file is
    /// `runs/<config hash>.json`.
    pub config_hash: String,
    /// The seed it ran with.
    pub seed: u64,
    /// Every metric of the run (the sweep's `metrics` selects from these when the tables are
    /// made, so a changed selection needs no rerun).
    #[serde(serialize_with = "ser_metrics", deserialize_with = "de_metrics")]
    pub metrics: BTreeMap<String, f64>,
}

/// Metric values are written as text, the shortest that reads back as the same number
/// (`"0.1"`, `"1e-7"`, `"NaN"`, `"inf"`): exact, unlike JSON numbers read back by serde_json,
/// and able to hold what JSON numbers cannot.
fn ser_metrics<S: Serializer>(m: &BTreeMap<String, f64>, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(m.len()))?;
    for (k, v) in m {
        map.serialize_entry(k, &format!("{v:?}"))?;
    }
    map.end()
}

fn de_metrics<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, f64>, D::Error> {
    let raw: BTreeMap<String, String> = BTreeMap::deserialize(d)?;
    raw.into_iter()
        .map(|(k, v)| match v.parse::<f64>() {
            Ok(x) => Ok((k, x)),
            Err(_) => Err(serde::de::Error::custom(format!(
                "metric `{k}`: `{v}` is not a number"
            ))),
        })
        .collect()
}

/// The folder of a sweep's per-run files.
pub fn runs_dir(out: &Path) -> PathBuf {
    out.join(nmc_report::outdir::SWEEP_RUNS)
}

fn result_path(out: &Path, hash: &str) -> PathBuf {
    runs_dir(out).join(format!("{hash}.json"))
}

/// The most bytes one `runs/<hash>.json` may hold, read or written:
/// [`nmc_sim::limits::MAX_TEXT_BYTES`] (16 MiB). A choice: a run's result is its metrics, a
/// few dozen bytes each, so this is some 300,000 metrics; a file past it is no result nmc wrote
/// (issue 57 §3: such files were read whole, `/dev/zero` or a sparse file without end).
pub const MAX_RESULT_BYTES: u64 = nmc_sim::limits::MAX_TEXT_BYTES;

/// The result stored for `hash`, if a whole and matching one is there (`Ok(None)`: none). A
/// file that cannot be parsed as a result (which the write-then-rename never leaves) counts as
/// absent: the run is done again and the file replaced. One that is not a regular file or
/// holds more than [`MAX_RESULT_BYTES`] is refused in one line naming it (issue 57 §3): it
/// cannot be a result, and is not nmc's to replace.
pub fn read(out: &Path, hash: &str) -> Result<Option<RunResult>> {
    let bytes = match nmc_sim::limits::read_regular(&result_path(out, hash), MAX_RESULT_BYTES) {
        Ok(b) => b,
        Err(nmc_sim::limits::ReadError::Io { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let Ok(r) = serde_json::from_slice::<RunResult>(&bytes) else {
        return Ok(None);
    };
    Ok((r.config_hash == hash).then_some(r))
}

/// Writes `r` as `runs/<hash>.json`: to a temporary file, synced, then renamed into place.
/// One past [`MAX_RESULT_BYTES`] is refused, so that every result written can be read back.
pub fn write(out: &Path, r: &RunResult) -> Result<()> {
    let text = serde_json::to_string_pretty(r)? + "\n";
    let path = result_path(out, &r.config_hash);
    if text.len() as u64 > MAX_RESULT_BYTES {
        anyhow::bail!(
            "{}: {} bytes of metrics, more than {MAX_RESULT_BYTES} bytes (a limit of nmc's, so that input cannot exhaust the machine)",
            path.display(),
            text.len()
        );
    }
    write_atomic(&path, text.as_bytes())
}

/// Writes `bytes` to `path` whole or not at all ([`nmc_report::outdir::write_whole`]: a
/// temporary file `.<name>.<pid>.tmp` beside it, synced, then renamed over `path`).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    Ok(nmc_report::outdir::write_whole(path, bytes)?)
}

/// Removes temporary files an interrupted sweep left in `dir` (`.<name>.<pid>.tmp`).
pub fn clean_temporaries(dir: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for e in entries.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if n.starts_with('.') && n.ends_with(".tmp") && e.path().is_file() {
            std::fs::remove_file(e.path())
                .with_context(|| format!("removing {}", e.path().display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_metrics_round_trip() {
        let r = RunResult {
            config_hash: "ab".into(),
            seed: 3,
            metrics: [
                ("a".to_string(), 0.1),
                ("b".to_string(), f64::NAN),
                ("c".to_string(), f64::INFINITY),
                ("d".to_string(), f64::NEG_INFINITY),
                ("e".to_string(), 1e300),
            ]
            .into(),
        };
        let text = serde_json::to_string(&r).unwrap();
        assert!(
            text.contains("\"NaN\"") && text.contains("\"-inf\""),
            "{text}"
        );
        let back: RunResult = serde_json::from_str(&text).unwrap();
        assert_eq!(back.metrics["a"], 0.1);
        assert!(back.metrics["b"].is_nan());
        assert_eq!(back.metrics["c"], f64::INFINITY);
        assert_eq!(back.metrics["d"], f64::NEG_INFINITY);
        assert_eq!(back.metrics["e"], 1e300);
        assert!(serde_json::from_str::<RunResult>(&text.replace("\"NaN\"", "\"x\"")).is_err());
    }

    #[test]
    fn every_value_reads_back_exactly() {
        // serde_json's own numbers can come back one unit in the last place off; the text
        // form must not, or a resumed sweep's table would differ from a straight one's.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = if i % 2 == 0 {
                f64::from_bits(x)
            } else {
                (x >> 11) as f64 / (1u64 << 53) as f64 * 100.0
            };
            let r = RunResult {
                config_hash: "h".into(),
                seed: 1,
                metrics: [("m".to_string(), v)].into(),
            };
            let back: RunResult =
                serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
            let w = back.metrics["m"];
            assert!(
                w.to_bits() == v.to_bits() || (v.is_nan() && w.is_nan()),
                "{v:?} came back as {w:?}"
            );
        }
    }
}
