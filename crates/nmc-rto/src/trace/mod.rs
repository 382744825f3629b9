//! Delay traces: what the estimators are replayed over.
//!
//! A trace is one run of echo volleys, one in flight at a time, in send order: for each, the
//! send time, the packet length if known, and the measured round-trip delay, or nothing if no
//! reply came. Three sources:
//!
//! - the nmc CSV format ([`csv`]; nmc's echo probe and `nmc rto synth` write it);
//! - irtt JSON output ([`irtt`], `irtt client -o FILE.json[.gz]`);
//! - flent data files ([`flent`], `*.flent.gz`).
//!
//! [`load`] picks the reader from the content (gzip magic, a leading `{`, the JSON keys) so that
//! a file's name does not matter. Every reader fails with a one-line [`TraceError`] that names
//! the file and the line (CSV) or JSON element (irtt, flent); none panics on bad input.

pub mod csv;
pub mod flent;
pub mod irtt;

use std::path::Path;

use crate::time::Nanos;

/// One echo volley.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// When the request was sent (origin is the trace's own: run start or Unix epoch).
    pub send: Nanos,
    /// Packet length in octets, if recorded.
    pub length: Option<u32>,
    /// Measured round-trip delay; `None` if no reply was received.
    pub delay: Option<Nanos>,
    /// Sequence number, if recorded.
    pub seq: Option<u64>,
    /// Path or host identifier, if recorded.
    pub path: Option<String>,
}

impl Probe {
    /// A probe with only a send time and a delay.
    pub fn new(send: Nanos, delay: Option<Nanos>) -> Probe {
        Probe {
            send,
            length: None,
            delay,
            seq: None,
            path: None,
        }
    }
}

/// A run of probes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Trace {
    /// A label for tables and plots (file stem, preset name, ...).
    pub name: String,
    /// The probes in send order.
    pub probes: Vec<Probe>,
}

impl Trace {
    /// Number of probes.
    pub fn len(&self) -> usize {
        self.probes.len()
    }
    /// True if there are no probes.
    pub fn is_empty(&self) -> bool {
        self.probes.is_empty()
    }
}

/// A trace could not be read. Displays as one line: `FILE:LINE: message` (or `FILE: message`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}{}: {msg}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct TraceError {
    /// The file (or label) being read.
    pub file: String,
    /// 1-based line, where one applies.
    pub line: Option<u64>,
    /// What was wrong, and what was expected.
    pub msg: String,
}

impl TraceError {
    pub(crate) fn new(file: &str, line: Option<u64>, msg: impl Into<String>) -> TraceError {
        TraceError {
            file: file.to_string(),
            line,
            msg: msg.into(),
        }
    }
}

/// Issue 57 §3: the most probes (volleys) a trace may hold, counted as it is read, before the
/// list grows. Evaluating costs about 390 bytes a probe (measured: 1,000,000 rows of
/// `nmc rto evaluate` peak at 386 MB), so a 1.4 MB gzip of 19 million short rows, well under
/// the 256 MiB file cap, asked for 7 GB and aborted. Two million is twice the most
/// `nmc echo probe --count` records (10⁶), a day of irtt at one request each 50 ms, and
/// thousands of times RFC 889's 512-volley runs, for under 1 GB when evaluated.
pub const MAX_PROBES: usize = 2_000_000;

/// The refusal of a trace with more than `max` probes.
pub(crate) fn too_many_probes(file: &str, max: usize) -> TraceError {
    TraceError::new(
        file,
        None,
        format!("more than {max} probes (volleys): a trace holds at most {max}"),
    )
}

/// The formats [`load`] recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// nmc CSV.
    Csv,
    /// irtt JSON.
    Irtt,
    /// flent data file.
    Flent,
}

/// Reads a trace file of any supported format, gzip-compressed or not. The trace is named after
/// the file stem (`foe.csv` → `foe`, `x.flent.gz` → `x`).
pub fn load(path: &Path) -> Result<Trace, TraceError> {
    load_series(path, None)
}

/// [`load`], with `flent_series` choosing a flent data series (`None`: the first ping series).
/// The file is read through a cap (issue 33), never whole without one.
pub fn load_series(path: &Path, flent_series: Option<&str>) -> Result<Trace, TraceError> {
    let file = path.display().to_string();
    let raw = nmc_sim::limits::read_file(path, nmc_sim::limits::MAX_FILE_BYTES)
        .map_err(|e| TraceError::new(&file, None, without_name(&file, &e.to_string())))?;
    let mut trace = parse_bytes(&file, &raw, flent_series)?;
    trace.name = stem(path);
    Ok(trace)
}

/// Parses the bytes of a trace file (any format; gzip allowed). `flent_series` selects a flent
/// data series; `None` takes the first ping series.
pub fn parse_bytes(
    file: &str,
    raw: &[u8],
    flent_series: Option<&str>,
) -> Result<Trace, TraceError> {
    let bytes = gunzip_if_needed(file, raw)?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| TraceError::new(file, None, format!("not UTF-8 text: {e}")))?;
    let trace = match sniff(text) {
        Format::Csv => csv::parse(file, text),
        Format::Irtt => irtt::parse(file, text),
        Format::Flent => flent::parse(file, text, flent_series),
    }?;
    in_send_order(file, &trace)?;
    Ok(trace)
}

/// Issue 33: a trace's probes are in send order (the estimators replay them as time goes on);
/// one whose send time goes backwards is refused, naming it, instead of replayed out of order.
fn in_send_order(file: &str, trace: &Trace) -> Result<(), TraceError> {
    for (i, w) in trace.probes.windows(2).enumerate() {
        if w[1].send < w[0].send {
            return Err(TraceError::new(
                file,
                None,
                format!(
                    "probe {} is sent at {:.3} ms, before probe {} at {:.3} ms: a trace's probes \
                     are in send order",
                    i + 2,
                    w[1].send.0 as f64 / 1e6,
                    i + 1,
                    w[0].send.0 as f64 / 1e6
                ),
            ));
        }
    }
    Ok(())
}

/// Decides the format from the content.
pub fn sniff(text: &str) -> Format {
    let t = text.trim_start();
    if !t.starts_with('{') {
        return Format::Csv;
    }
    // Both are JSON objects: irtt has "round_trips", flent "x_values"/"raw_values".
    if t.contains("\"round_trips\"") {
        Format::Irtt
    } else {
        Format::Flent
    }
}

/// Issue 33: what a gzip member decompresses to is capped like a file, so that a small
/// "zip bomb" is refused instead of filling memory.
pub(crate) fn gunzip_if_needed(file: &str, raw: &[u8]) -> Result<Vec<u8>, TraceError> {
    use nmc_sim::limits::{MAX_FILE_BYTES, ReadError, read_capped};
    if raw.starts_with(&[0x1f, 0x8b]) {
        read_capped(
            flate2::read::MultiGzDecoder::new(raw),
            file,
            MAX_FILE_BYTES,
            " once decompressed",
        )
        .map_err(|e| match e {
            ReadError::Io { cause, .. } => {
                TraceError::new(file, None, format!("bad gzip data: {cause}"))
            }
            e @ (ReadError::TooLarge { .. }
            | ReadError::NotAFile { .. }
            | ReadError::NotInput { .. }) => {
                TraceError::new(file, None, without_name(file, &e.to_string()))
            }
        })
    } else {
        Ok(raw.to_vec())
    }
}

/// A limits error's text without the file name it starts with (the trace error adds it).
fn without_name(file: &str, text: &str) -> String {
    text.strip_prefix(file)
        .and_then(|t| t.strip_prefix(": "))
        .unwrap_or(text)
        .to_string()
}

fn stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for ext in [
        ".flent.gz",
        ".json.gz",
        ".csv.gz",
        ".flent",
        ".json",
        ".csv",
        ".gz",
    ] {
        if let Some(s) = name.strip_suffix(ext) {
            return s.to_string();
        }
    }
    name
}

#[cfg(test)]
mod order_tests {
    #[test]
    fn send_times_that_go_backwards_are_refused() {
        let ok = super::parse_bytes("t.csv", b"send_ms,rtt_ms\n0,10\n5,10\n5,11\n", None);
        assert!(ok.is_ok(), "{ok:?}");
        let e = super::parse_bytes("t.csv", b"send_ms,rtt_ms\n0,10\n9,10\n4,11\n", None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("probe 3 is sent at 4.000 ms, before probe 2"),
            "{e}"
        );
    }
}
