//! The nmc delay-trace CSV format (version 1).
//!
//! ```text
//! # nmc rto trace v1: one echo volley per row, in send order; empty delay = no reply
//! send_s,length,delay_ms,seq,path
//! 0,40,312.5,0,ISID
//! 0.3125,256,,1,ISID
//! 30.3125,128,298.061,2,ISID
//! ```
//!
//! - Lines starting with `#` are comments; blank lines are skipped. The first other line is the
//!   header; columns are found by name, in any order; unknown columns are ignored (so a probe
//!   may add its own). A row with fewer fields than the header is an error naming its line.
//! - Required: a send-time column `send_s`, `send_ms`, `send_us` or `send_ns` (or `send_time_*`),
//!   and a round-trip column: `rtt_s`, `rtt_ms`, `rtt_us` or `rtt_ns` if there is one, otherwise
//!   `delay_s`, `delay_ms`, `delay_us` or `delay_ns`; the suffix is the unit.
//! - Optional: `length` or `length_bytes` (octets, integer), `seq` (integer), `path` (free text).
//! - `nmc echo probe`'s `trace.csv` is read as it is: its `rtt_ns` column (the round trip) is
//!   used, not its `delay_ns` (the one-way delay, half the round trip, as RFC 889 prints it).
//! - `nmc pump`'s `messages.csv` is read as it is too (issue 34): `sent_ns` is its send time,
//!   `rtt_ns` the message's round trip to its RFNM, `bytes` its length; a message whose RFNM
//!   never came has no round trip.
//! - Values are plain non-negative decimals (`312.5`; no exponent, no sign) and are read exactly
//!   to the nanosecond. The delay is the round trip from sending the request to receiving its
//!   reply; an empty field (or `lost`, `-`) means no reply was received.
//! - The writer emits `send_s` (9 decimals at most) and `delay_ms` (6 decimals at most), trailing
//!   zeros trimmed, so a written trace reads back identical.

use std::io::Write;

use super::{Probe, Trace, TraceError};
use crate::time::{Nanos, decimal, parse_decimal};

/// The header the writer emits.
pub const HEADER: &str = "send_s,length,delay_ms,seq,path";

/// Parses CSV text; `file` names the source in errors. At most [`super::MAX_PROBES`] rows.
pub fn parse(file: &str, text: &str) -> Result<Trace, TraceError> {
    parse_capped(file, text, super::MAX_PROBES)
}

/// [`parse`], refusing the text at its `max + 1`th probe, before the list grows past `max`.
pub fn parse_capped(file: &str, text: &str, max: usize) -> Result<Trace, TraceError> {
    let mut rdr = ::csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .trim(::csv::Trim::All)
        .flexible(true)
        .has_headers(true)
        .from_reader(text.as_bytes());
    let headers = rdr.headers().map_err(|e| csv_err(file, &e))?.clone();
    // The header is the first line that is neither blank nor a comment.
    let header_line = text
        .lines()
        .position(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map_or(1, |i| i as u64 + 1);
    let find = |names: &[&str]| -> Option<(usize, u32)> {
        headers.iter().enumerate().find_map(|(i, h)| {
            names
                .iter()
                .position(|n| h.eq_ignore_ascii_case(n))
                .map(|p| (i, [9u32, 6, 3, 0][p]))
        })
    };
    let send = find(&["send_s", "send_ms", "send_us", "send_ns"])
        .or_else(|| find(&["send_time_s", "send_time_ms", "send_time_us", "send_time_ns"]))
        .or_else(|| find(&["sent_s", "sent_ms", "sent_us", "sent_ns"]))
        .ok_or_else(|| {
        TraceError::new(
            file,
            Some(header_line),
            format!(
                "no send-time column in header `{}` (expected send_s, send_ms, send_us or send_ns, or sent_* as nmc pump writes)",
                headers.iter().collect::<Vec<_>>().join(",")
            ),
        )
    })?;
    let delay = find(&["rtt_s", "rtt_ms", "rtt_us", "rtt_ns"])
        .or_else(|| find(&["delay_s", "delay_ms", "delay_us", "delay_ns"]))
        .ok_or_else(|| {
        TraceError::new(
            file,
            Some(header_line),
            format!(
                "no delay column in header `{}` (expected delay_s, delay_ms, delay_us or delay_ns)",
                headers.iter().collect::<Vec<_>>().join(",")
            ),
        )
    })?;
    let col = |name: &str| headers.iter().position(|h| h.eq_ignore_ascii_case(name));
    let (length_col, seq_col, path_col) = (
        col("length")
            .or_else(|| col("length_bytes"))
            .or_else(|| col("bytes")),
        col("seq"),
        col("path"),
    );

    let mut probes = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| csv_err(file, &e))?;
        let line = rec.position().map(|p| p.line());
        if rec.iter().all(str::is_empty) {
            continue;
        }
        let field = |i: usize| rec.get(i).unwrap_or("");
        let err = |msg: String| TraceError::new(file, line, msg);
        // A short row is a truncated one (a run cut off mid-write, a damaged file): an error,
        // never a volley silently counted as lost.
        if rec.len() < headers.len() {
            return Err(err(format!(
                "{} fields where the header has {}: a truncated row",
                rec.len(),
                headers.len()
            )));
        }
        let s = field(send.0);
        let send_t = parse_decimal(s, send.1).map(Nanos).ok_or_else(|| {
            err(format!(
                "bad send time `{s}` in column {}: expected a non-negative decimal",
                &headers[send.0]
            ))
        })?;
        let d = field(delay.0);
        let delay_t = if d.is_empty() || d.eq_ignore_ascii_case("lost") || d == "-" {
            None
        } else {
            Some(parse_decimal(d, delay.1).map(Nanos).ok_or_else(|| {
                err(format!(
                    "bad delay `{d}` in column {}: expected a non-negative decimal, or empty for no reply",
                    &headers[delay.0]
                ))
            })?)
        };
        let length = match length_col.map(field).filter(|s| !s.is_empty()) {
            None => None,
            Some(l) => Some(l.parse::<u32>().map_err(|_| {
                err(format!(
                    "bad length `{l}`: expected an integer number of octets"
                ))
            })?),
        };
        let seq = match seq_col.map(field).filter(|s| !s.is_empty()) {
            None => None,
            Some(q) => Some(
                q.parse::<u64>()
                    .map_err(|_| err(format!("bad seq `{q}`: expected a non-negative integer")))?,
            ),
        };
        let path = path_col
            .map(field)
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        if probes.len() >= max {
            return Err(super::too_many_probes(file, max));
        }
        probes.push(Probe {
            send: send_t,
            length,
            delay: delay_t,
            seq,
            path,
        });
    }
    Ok(Trace {
        name: String::new(),
        probes,
    })
}

fn csv_err(file: &str, e: &::csv::Error) -> TraceError {
    let line = e.position().map(|p| p.line());
    let msg = match e.kind() {
        ::csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".to_string(),
        ::csv::ErrorKind::Io(io) => format!("cannot read: {io}"),
        _ => format!("malformed CSV: {e}"),
    };
    TraceError::new(file, line, msg.replace('\n', " "))
}

/// Writes a trace in the format above.
pub fn write<W: Write>(trace: &Trace, mut w: W) -> std::io::Result<()> {
    writeln!(
        w,
        "# nmc rto trace v1: one echo volley per row, in send order; empty delay = no reply"
    )?;
    if !trace.name.is_empty() {
        writeln!(w, "# name: {}", trace.name.replace('\n', " "))?;
    }
    let mut wtr = ::csv::WriterBuilder::new().from_writer(w);
    wtr.write_record(HEADER.split(','))?;
    for p in &trace.probes {
        wtr.write_record([
            decimal(p.send.0, 9),
            p.length.map(|l| l.to_string()).unwrap_or_default(),
            p.delay.map(|d| decimal(d.0, 6)).unwrap_or_default(),
            p.seq.map(|s| s.to_string()).unwrap_or_default(),
            p.path.clone().unwrap_or_default(),
        ])?;
    }
    wtr.flush()?;
    Ok(())
}

/// Writes a trace to a string.
pub fn to_string(trace: &Trace) -> String {
    let mut buf = Vec::new();
    write(trace, &mut buf).expect("writing to a Vec cannot fail");
    String::from_utf8(buf).expect("the writer emits UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_past_the_cap_are_refused_as_they_are_counted() {
        let text = "send_ms,rtt_ms\n0,1\n1,1\n2,\n";
        assert_eq!(parse_capped("t.csv", text, 3).unwrap().len(), 3);
        let e = parse_capped("t.csv", text, 2).unwrap_err().to_string();
        assert_eq!(
            e,
            "t.csv: more than 2 probes (volleys): a trace holds at most 2"
        );
    }

    #[test]
    fn reads_the_documented_example() {
        let text = "# comment\nsend_s,length,delay_ms,seq,path\n0,40,312.5,0,ISID\n0.3125,256,,1,ISID\n30.3125,128,298.061,2,ISID\n";
        let t = parse("ex.csv", text).unwrap();
        assert_eq!(t.len(), 3);
        assert_eq!(t.probes[0].delay, Some(Nanos(312_500_000)));
        assert_eq!(t.probes[1].delay, None);
        assert_eq!(t.probes[2].send, Nanos(30_312_500_000));
        assert_eq!(t.probes[2].path.as_deref(), Some("ISID"));
        let again = parse("again", &to_string(&t)).unwrap();
        assert_eq!(again.probes, t.probes);
    }

    /// A row cut short is an error naming its line, not a lost volley.
    #[test]
    fn a_truncated_row_is_an_error_not_a_loss() {
        let text = "send_s,length,delay_ms,seq,path\n0,40,312.5,0,ISID\n0.3125,256\n";
        let e = parse("cut.csv", text).unwrap_err().to_string();
        assert!(
            e.contains("cut.csv") && e.contains('3') && e.contains("truncated"),
            "{e}"
        );
    }

    #[test]
    fn reads_the_echo_probe_trace_using_its_round_trip() {
        let text = "send_time_ns,length_bytes,delay_ns,seq,rtt_ns,server_turnaround_ns\n0,40,50000000,0,100000000,1000\n10000000,256,,1,,\n";
        let t = parse("trace.csv", text).unwrap();
        assert_eq!(t.probes.len(), 2);
        assert_eq!(
            t.probes[0].delay,
            Some(Nanos(100_000_000)),
            "round trip, not the halved delay"
        );
        assert_eq!(t.probes[1].delay, None);
        assert_eq!(t.probes[1].length, Some(256));
    }

    #[test]
    fn reads_the_pumps_messages_as_round_trips_to_their_rfnms() {
        // `nmc pump`'s messages.csv as it writes it (issue 34: it was refused, "no send-time
        // column").
        let text = "seq,bytes,sent_ns,rfnm_ns,rtt_ns,transmissions,in_run\n\
                    0,1000,0,2500000,2500000,1,true\n\
                    1,1000,100000,,,1,false\n";
        let t = parse("messages.csv", text).unwrap();
        assert_eq!(t.probes.len(), 2);
        assert_eq!(t.probes[0].delay, Some(Nanos(2_500_000)));
        assert_eq!(t.probes[0].length, Some(1000));
        assert_eq!(t.probes[1].send, Nanos(100_000));
        assert_eq!(t.probes[1].delay, None);
    }

    #[test]
    fn units_from_header_and_any_column_order() {
        let t = parse("x", "delay_ns,extra,send_ms\n1500,zz,2.5\n").unwrap();
        assert_eq!(t.probes[0].delay, Some(Nanos(1500)));
        assert_eq!(t.probes[0].send, Nanos(2_500_000));
    }

    #[test]
    fn bad_input_names_file_and_line() {
        let e = parse("t.csv", "send_s,delay_ms\n0,1\n1,abc\n").unwrap_err();
        assert_eq!(e.line, Some(3));
        let s = e.to_string();
        assert!(s.starts_with("t.csv:3:") && s.contains("abc"), "{s}");
        let e = parse("t.csv", "time,rtt\n0,1\n").unwrap_err().to_string();
        assert!(e.contains("send_s"), "{e}");
        let e = parse("t.csv", "send_s,delay_ms\n0,-4\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`-4`"), "{e}");
        let e = parse("t.csv", "send_s,delay_ms,length\n0,1,4.5\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("length"), "{e}");
    }
}
