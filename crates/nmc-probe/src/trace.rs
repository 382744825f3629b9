//! The trace CSV: one row per volley, the interface between the probe and the estimator
//! evaluation (`nmc-rto`).
//!
//! ```text
//! send_time_ns,length_bytes,delay_ns,seq,rtt_ns,server_turnaround_ns
//! 0,148,104512345,0,209024690,8123
//! 209100000,40,,1,,
//! ```
//!
//! | column | meaning |
//! | --- | --- |
//! | `send_time_ns` | when the volley was sent: ns on the probe's monotonic clock since the start of the run |
//! | `length_bytes` | IP datagram length in bytes (IP header + UDP or ICMP header + payload), as RFC 889 counts it |
//! | `delay_ns` | one-way-normalised delay = round trip / 2 (RFC 889 §2.1, "normalized to one-way delay"); **empty when the volley was lost** |
//! | `seq` | volley sequence number, from 0 |
//! | `rtt_ns` | the round trip itself; empty when lost |
//! | `server_turnaround_ns` | what the echo server reported spending between receive and reply; empty when lost or not reported (ICMP) |
//!
//! The first three columns and their names are the contract with `nmc-rto`; readers should find
//! the others by name and ignore any they do not know. Rows are in send order. A volley lost by
//! the 30-second rule has an empty delay even if a late reply came afterwards. Volleys never sent
//! (a run stopped early) have no row.

use crate::probe::Volley;
use crate::time::Nanos;
use std::io::{Read, Write};
use thiserror::Error;

/// The trace's column names, in the order written; the first three are the contract with `nmc-rto`.
pub const COLUMNS: [&str; 6] = [
    "send_time_ns",
    "length_bytes",
    "delay_ns",
    "seq",
    "rtt_ns",
    "server_turnaround_ns",
];

/// Why a trace could not be written or read.
#[derive(Debug, Error)]
pub enum TraceError {
    /// The CSV itself could not be written, read or parsed.
    #[error("trace CSV: {0}")]
    Csv(#[from] csv::Error),
    /// A required column (one of the first three) is absent; holds its name.
    #[error("trace CSV has no `{0}` column")]
    MissingColumn(&'static str),
    /// A cell that is not a whole number of the column's type, or a required cell left empty.
    #[error("trace CSV line {line}: `{value}` in `{column}` is not a whole number")]
    BadNumber {
        /// Line of the file, the header being line 1.
        line: u64,
        /// The column's name.
        column: &'static str,
        /// The cell as read (empty for a missing required value).
        value: String,
    },
}

/// One row of a trace as read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceRow {
    /// When the volley was sent, ns on the probe's monotonic clock since the start of the run.
    pub send_time_ns: u64,
    /// IP datagram length, bytes.
    pub length_bytes: u32,
    /// One-way-normalised delay (round trip / 2), ns; `None` when the volley was lost.
    pub delay_ns: Option<u64>,
    /// Volley sequence number, if the trace has the column.
    pub seq: Option<u32>,
    /// Round trip, ns; `None` when lost or the column is absent.
    pub rtt_ns: Option<u64>,
    /// What the echo server reported spending between receive and reply, ns; `None` when lost, not
    /// reported, or the column is absent.
    pub server_turnaround_ns: Option<u64>,
}

/// Writes every sent volley, in send order.
pub fn write_trace<W: Write>(out: W, volleys: &[Volley]) -> Result<(), TraceError> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(COLUMNS)?;
    let opt = |x: Option<u64>| x.map(|v| v.to_string()).unwrap_or_default();
    let mut sent: Vec<&Volley> = volleys.iter().filter(|v| v.sent.is_some()).collect();
    sent.sort_by_key(|v| (v.sent, v.seq));
    for v in sent {
        let answered = !v.lost && v.rtt.is_some();
        let rtt = if answered { v.rtt } else { None };
        w.write_record([
            v.sent.unwrap_or(Nanos::ZERO).0.to_string(),
            v.length.to_string(),
            opt(rtt.map(|r| r.0 / 2)),
            v.seq.to_string(),
            opt(rtt.map(|r| r.0)),
            opt(if answered {
                v.server_turnaround.map(|t| t.0)
            } else {
                None
            }),
        ])?;
    }
    w.flush().map_err(csv::Error::from)?;
    Ok(())
}

/// Reads a trace back, finding columns by name. Only the first three are required.
pub fn read_trace<R: Read>(input: R) -> Result<Vec<TraceRow>, TraceError> {
    let mut r = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(input);
    let headers = r.headers()?.clone();
    let col = |name: &'static str| headers.iter().position(|h| h == name);
    let need = |name: &'static str| col(name).ok_or(TraceError::MissingColumn(name));
    let (c_send, c_len, c_delay) = (
        need("send_time_ns")?,
        need("length_bytes")?,
        need("delay_ns")?,
    );
    let (c_seq, c_rtt, c_srv) = (col("seq"), col("rtt_ns"), col("server_turnaround_ns"));
    let mut rows = Vec::new();
    for rec in r.records() {
        let rec = rec?;
        let line = rec.position().map_or(0, |p| p.line());
        let num = |c: Option<usize>, name: &'static str| -> Result<Option<u64>, TraceError> {
            match c.and_then(|c| rec.get(c)) {
                None | Some("") => Ok(None),
                Some(s) => s.parse().map(Some).map_err(|_| TraceError::BadNumber {
                    line,
                    column: name,
                    value: s.to_string(),
                }),
            }
        };
        let required = |c: usize, name: &'static str| -> Result<u64, TraceError> {
            num(Some(c), name)?.ok_or(TraceError::BadNumber {
                line,
                column: name,
                value: String::new(),
            })
        };
        rows.push(TraceRow {
            send_time_ns: required(c_send, "send_time_ns")?,
            length_bytes: u32::try_from(required(c_len, "length_bytes")?).map_err(|_| {
                TraceError::BadNumber {
                    line,
                    column: "length_bytes",
                    value: rec.get(c_len).unwrap_or("").to_string(),
                }
            })?,
            delay_ns: num(Some(c_delay), "delay_ns")?,
            seq: num(c_seq, "seq")?.map(|s| s as u32),
            rtt_ns: num(c_rtt, "rtt_ns")?,
            server_turnaround_ns: num(c_srv, "server_turnaround_ns")?,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn volley(seq: u32, sent: u64, len: u32, rtt: Option<u64>, lost: bool) -> Volley {
        Volley {
            seq,
            length: len,
            sent: Some(Nanos(sent)),
            rtt: rtt.map(Nanos),
            server_turnaround: rtt.map(|_| Nanos(700)),
            lost,
            late_reply: false,
            server_rx_unix_ns: None,
            server_count: None,
        }
    }

    #[test]
    fn writes_the_contract_columns_and_reads_them_back() {
        let vs = [
            volley(0, 0, 148, Some(209_024_690), false),
            volley(1, 209_100_000, 40, None, true),
            Volley {
                sent: None,
                ..volley(2, 0, 60, None, false)
            },
        ];
        let mut buf = Vec::new();
        write_trace(&mut buf, &vs).unwrap();
        let text = String::from_utf8(buf.clone()).unwrap();
        assert_eq!(
            text,
            "send_time_ns,length_bytes,delay_ns,seq,rtt_ns,server_turnaround_ns\n\
             0,148,104512345,0,209024690,700\n\
             209100000,40,,1,,\n"
        );
        let rows = read_trace(buf.as_slice()).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].delay_ns, Some(104_512_345));
        assert_eq!(rows[1].delay_ns, None);
        assert_eq!(rows[1].seq, Some(1));
    }

    #[test]
    fn reader_needs_only_the_first_three_columns_in_any_order() {
        let rows =
            read_trace("delay_ns,length_bytes,send_time_ns\n5,40,0\n,256,10\n".as_bytes()).unwrap();
        assert_eq!(rows[0].length_bytes, 40);
        assert_eq!(rows[1].delay_ns, None);
        assert!(matches!(
            read_trace("a,b\n1,2\n".as_bytes()),
            Err(TraceError::MissingColumn("send_time_ns"))
        ));
        assert!(matches!(
            read_trace("send_time_ns,length_bytes,delay_ns\nx,40,1\n".as_bytes()),
            Err(TraceError::BadNumber { line: 2, .. })
        ));
    }
}
