//! What a pump run leaves behind. `--out DIR` gets:
//! - `messages.csv`: one row per message (`seq,bytes,sent_ns,rfnm_ns,rtt_ns,transmissions,in_run`;
//!   times from the first offer, an empty cell for a message never answered), in sequence (send)
//!   order, written as the run goes by [`MessagesCsv`] (issue 34: the run keeps no rows);
//!   With `--reverse` it is the receiver's record instead, written by [`ReceivedCsv`]
//!   (`seq,bytes,first_ns,whole_ns,packets,in_run`; see [`super::reverse`] for why);
//! - `summary.json`: a [`PumpSummary`] (parameters, counters, throughput, window limit,
//!   round-trip statistics, histogram, autocorrelation);
//! - `rtt.svg`: round trip per message (K&O Fig. 4's quantity, message by message; past 10,000
//!   messages the least and greatest of each group of consecutive messages, see
//!   [`super::running::RttPlot`]);
//! - `rtt-histogram.svg`: the round-trip histogram (K&O Fig. 5);
//! - `autocorrelation.svg`: the autocorrelation of successive round trips with its 95 % band
//!   (K&O Fig. 6).

use super::analysis::PumpSummary;
use super::sender::MessageRecord;
use crate::Error;
use crate::time::Nanos;
use nmc_report::plot::{Axis, Chart, Series, SeriesStyle};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// One row of `messages.csv`.
#[derive(Debug, Serialize)]
pub struct MessageRow {
    /// The message's sequence number.
    pub seq: u64,
    /// Data bytes in the message.
    pub bytes: u32,
    /// Send of its first byte, ns from the first offer.
    pub sent_ns: u64,
    /// Arrival of its RFNM, ns from the first offer; `None` (an empty cell) if never answered.
    pub rfnm_ns: Option<u64>,
    /// Round trip, send of the first byte to the RFNM, ns; `None` (an empty cell) if never
    /// answered.
    pub rtt_ns: Option<u64>,
    /// Times sent (1 unless retransmitted over UDP).
    pub transmissions: u32,
    /// The RFNM came back within the offering time (counted in the throughput).
    pub in_run: bool,
}

/// `messages.csv`'s header line.
const HEADER: &str = "seq,bytes,sent_ns,rfnm_ns,rtt_ns,transmissions,in_run\n";

impl MessageRow {
    /// The row as the `csv` crate writes it (numbers as they are, `None` an empty cell, no
    /// quoting needed), formatted by hand: the writing thread's main cost.
    pub fn line(&self, out: &mut Vec<u8>) {
        let _ = write!(out, "{},{},{},", self.seq, self.bytes, self.sent_ns);
        for v in [self.rfnm_ns, self.rtt_ns] {
            if let Some(v) = v {
                let _ = write!(out, "{v}");
            }
            out.push(b',');
        }
        let _ = writeln!(out, "{},{}", self.transmissions, self.in_run);
    }

    /// The row of a finished message of a run offering messages for `duration`.
    pub fn of(m: &MessageRecord, duration: Nanos) -> MessageRow {
        MessageRow::after_warm_up(m, Nanos::ZERO, duration)
    }

    /// The same after a warm-up of `omit` (`--omit`): a message answered within it is not in
    /// the run.
    pub fn after_warm_up(m: &MessageRecord, omit: Nanos, duration: Nanos) -> MessageRow {
        MessageRow {
            seq: m.seq,
            bytes: m.bytes,
            sent_ns: m.sent.0,
            rfnm_ns: m.rfnm.map(|t| t.0),
            rtt_ns: m.rtt().map(|t| t.0),
            transmissions: m.transmissions,
            // RFNMs are stamped before the run ends: within the offering time is within the run.
            in_run: m
                .rfnm
                .is_some_and(|t| super::analysis::in_run(t, omit, duration)),
        }
    }
}

/// `messages.csv`, written as messages finish, a row at a time through a 64 KB buffer (the same
/// bytes as writing every row at the end with the `csv` crate; the rows are formatted by hand,
/// [`MessageRow::line`], which costs the pump's thread about a tenth of a microsecond a message).
pub struct MessagesCsv {
    path: PathBuf,
    duration: Nanos,
    omit: Nanos,
    file: Option<std::io::BufWriter<std::fs::File>>,
    line: Vec<u8>,
    /// A row has been written (and so the header).
    rows: bool,
}

impl MessagesCsv {
    /// Creates `path` (its folder too) for a run offering messages for `duration`. It stays
    /// empty, as before, if no message is written.
    pub fn create(path: &Path, duration: Nanos) -> Result<MessagesCsv, Error> {
        let write_error = |e: std::io::Error| Error::Write(path.display().to_string(), e);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(write_error)?;
        }
        let file = nmc_report::files::create(path).map_err(|e| write_error(e.into_io()))?;
        Ok(MessagesCsv {
            path: path.to_path_buf(),
            duration,
            omit: Nanos::ZERO,
            file: Some(std::io::BufWriter::with_capacity(1 << 16, file)),
            line: Vec::with_capacity(128),
            rows: false,
        })
    }

    /// The same, for a run whose first `omit` is a warm-up left out (`--omit`).
    pub fn omitting(self, omit: Nanos) -> MessagesCsv {
        MessagesCsv { omit, ..self }
    }

    fn error(&self, e: std::io::Error) -> Error {
        Error::Write(self.path.display().to_string(), e)
    }

    /// The next message's row (messages in sequence order).
    pub fn write(&mut self, m: &MessageRecord) -> Result<(), Error> {
        let Some(f) = self.file.as_mut() else {
            return Ok(());
        };
        self.line.clear();
        if !self.rows {
            // The header comes with the first row, as the `csv` crate writes it.
            self.line.extend_from_slice(HEADER.as_bytes());
            self.rows = true;
        }
        MessageRow::after_warm_up(m, self.omit, self.duration).line(&mut self.line);
        let r = f.write_all(&self.line);
        r.map_err(|e| self.error(e))
    }

    /// Flushes what is buffered; returns the file's path.
    pub fn finish(mut self) -> Result<PathBuf, Error> {
        if let Some(mut f) = self.file.take() {
            f.flush().map_err(|e| self.error(e))?;
        }
        Ok(self.path.clone())
    }
}

/// `messages.csv` of `nmc pump --reverse`: the receiver's record of each message, as it becomes
/// whole (times on the client's clock from its request, ns; `packets` the datagrams of it that
/// arrived, 1 over TCP; `in_run` whole within the offering time of the first arrival).
pub struct ReceivedCsv {
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    line: Vec<u8>,
}

/// The reverse `messages.csv`'s header line.
pub const RECEIVED_HEADER: &str = "seq,bytes,first_ns,whole_ns,packets,in_run\n";

impl ReceivedCsv {
    /// Creates `path` (its folder too) with its header.
    pub fn create(path: &Path) -> Result<ReceivedCsv, Error> {
        let write_error = |e: std::io::Error| Error::Write(path.display().to_string(), e);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(write_error)?;
        }
        let mut file = std::io::BufWriter::with_capacity(
            1 << 16,
            nmc_report::files::create(path).map_err(|e| write_error(e.into_io()))?,
        );
        file.write_all(RECEIVED_HEADER.as_bytes())
            .map_err(write_error)?;
        Ok(ReceivedCsv {
            path: path.to_path_buf(),
            file,
            line: Vec::with_capacity(96),
        })
    }

    /// The next message whole.
    pub fn write(&mut self, m: &super::receiver::Received, in_run: bool) -> Result<(), Error> {
        self.line.clear();
        let _ = writeln!(
            self.line,
            "{},{},{},{},{},{in_run}",
            m.seq, m.bytes, m.first.0, m.whole.0, m.packets
        );
        self.file
            .write_all(&self.line)
            .map_err(|e| Error::Write(self.path.display().to_string(), e))
    }

    /// Flushes what is buffered; returns the file's path.
    pub fn finish(mut self) -> Result<PathBuf, Error> {
        self.file
            .flush()
            .map_err(|e| Error::Write(self.path.display().to_string(), e))?;
        Ok(self.path)
    }
}

/// Significant lags listed in the text report; summary.json has them all.
const SHOWN_LAGS: usize = 6;

impl PumpSummary {
    /// The text report, throughputs scaled to their size (`328 kbit/s`, `17.2 Gbit/s`).
    pub fn text(&self) -> String {
        self.text_in(nmc_sim::RateFormat::Auto)
    }

    /// The text report with throughputs in `rate`'s format (`nmc pump --format`).
    pub fn text_in(&self, rate: nmc_sim::RateFormat) -> String {
        let mut s = String::new();
        self.heading(&mut s);
        self.counts(&mut s, rate);
        self.throughput_lines(&mut s, rate);
        self.window_lines(&mut s, rate);
        self.tcp_line(&mut s);
        let _ = writeln!(
            s,
            "  autocorrelation of successive round trips: significant (|r| > {:.3}) at lags {}",
            self.autocorrelation_band,
            self.lags_shown()
        );
        self.receiver_line(&mut s, rate);
        s
    }

    /// The report's first line: the tool, the target, the messages and how long they were
    /// offered.
    fn heading(&self, s: &mut String) {
        let r = &self.run;
        let c = &r.config;
        let _ = writeln!(
            s,
            "{}{} {} over {}: {} messages of {} bytes, at most {} outstanding, {}{}",
            self.tool,
            if self.reverse {
                " --reverse: sent and timed by"
            } else {
                " to"
            },
            r.target,
            c.transport,
            self.messages_sent,
            c.size,
            c.outstanding,
            match c.count {
                Some(n) => format!("{n} asked for (-k/-n), answered in {}", r.elapsed.human()),
                None if c.omit > Nanos::ZERO => format!(
                    "offered for {} after a warm-up of {}",
                    c.duration.human(),
                    c.omit.human()
                ),
                None => format!("offered for {}", c.duration.human()),
            },
            if r.interrupted {
                " (stopped early)"
            } else {
                ""
            }
        );
    }

    /// The timer, the messages answered and the protocol's counters, and the warm-up said
    /// apart.
    fn counts(&self, s: &mut String, rate: nmc_sim::RateFormat) {
        let r = &self.run;
        let k = &r.counters;
        let _ = writeln!(s, "  {}", r.timer);
        let _ = writeln!(
            s,
            "  answered {} ({} within the run)  retransmissions {}  duplicate RFNMs {}  RFNMs out of order {}  other {}",
            self.messages_answered,
            self.answered_in_run,
            k.retransmissions,
            k.duplicate_rfnms,
            k.rfnms_out_of_order,
            k.unknown_rfnms + k.junk
        );
        if let Some(o) = &self.omitted {
            // iperf3 -O: the warm-up said apart, left out of every figure below.
            let _ = writeln!(
                s,
                "  warm-up (--omit {:.3}s, left out of the figures below): {} messages answered, {}",
                o.seconds,
                o.answered,
                rate.show(o.throughput_bps)
            );
        }
    }

    /// The throughput over the run and at its best, and the round trip's figures.
    fn throughput_lines(&self, s: &mut String, rate: nmc_sim::RateFormat) {
        let show = |bps: f64| rate.show(bps);
        let _ = writeln!(
            s,
            "  throughput over the run {}; best 150 consecutive messages {}",
            show(self.throughput_bps),
            self.best_150_bps
                .map_or("n/a (150 messages or fewer)".into(), show)
        );
        if let Some(rtt) = &self.rtt {
            let _ = writeln!(
                s,
                "  round trip (first byte sent to RFNM) ms: mean {:.2}  sd {:.2}  min {:.2}  median {:.2}  95% {:.2}  max {:.2}",
                rtt.mean_ms, rtt.sd_ms, rtt.min_ms, rtt.median_ms, rtt.p95_ms, rtt.max_ms
            );
        }
    }

    /// The window's limit on throughput, and (issue 75 §7) when it limits the run, the flags
    /// that widen it.
    fn window_lines(&self, s: &mut String, rate: nmc_sim::RateFormat) {
        let c = &self.run.config;
        if let (Some(w), Some(wr), Some(b), Some(br)) = (
            self.window_limit_bps,
            self.throughput_over_window_limit,
            self.base_window_limit_bps,
            self.throughput_over_base_window_limit,
        ) {
            let _ = writeln!(
                s,
                "  window limit {} × {} bytes / mean round trip = {} (throughput {:.1} % of it); \
                 with the least round trip {} ({:.1} %)",
                c.outstanding,
                c.size,
                rate.show(w),
                100.0 * wr,
                rate.show(b),
                100.0 * br
            );
        }
        if self.window_limited == Some(true) {
            // Issue 75 §7: say so, and name the flags that widen the window.
            let _ = writeln!(
                s,
                "  the window limits this run: {} × {} bytes outstanding were kept full and the round trip \
                 stayed near its least, so the path had room; widen the window to fill it \
                 (--outstanding {} or --size, e.g. --size 64KiB --outstanding 64 as iperf3 keeps its \
                 socket full) until throughput stops growing",
                c.outstanding,
                c.size,
                c.outstanding.saturating_mul(4)
            );
        }
    }

    /// Issue 58 §4: the sending socket's own view at the end, as iperf3 prints it (TCP only).
    fn tcp_line(&self, s: &mut String) {
        if let Some(t) = &self.run.tcp {
            let _ = writeln!(
                s,
                "  TCP at the end ({}, the kernel's): retransmitted segments {}  smoothed round trip {:.3} ms ± {:.3}  least {:.3} ms  congestion window {} × {} bytes",
                if self.reverse {
                    "the server's"
                } else {
                    "this host's"
                },
                t.retransmits,
                t.rtt_us as f64 / 1e3,
                t.rttvar_us as f64 / 1e3,
                t.min_rtt_us as f64 / 1e3,
                t.cwnd_segments,
                t.mss_bytes
            );
        }
    }

    /// The significant lags of the round trips' autocorrelation, the first few with their r.
    fn lags_shown(&self) -> String {
        if self.significant_lags.is_empty() {
            return "none".to_string();
        }
        let shown: Vec<String> = self
            .significant_lags
            .iter()
            .take(SHOWN_LAGS)
            .map(|l| {
                let r = self.autocorrelation[l - 1].1;
                format!("{l} ({r:+.2})")
            })
            .collect();
        let more = self.significant_lags.len().saturating_sub(SHOWN_LAGS);
        if more > 0 {
            format!("{} and {more} more (summary.json)", shown.join(", "))
        } else {
            shown.join(", ")
        }
    }

    /// `--reverse`: what this host received.
    fn receiver_line(&self, s: &mut String, rate: nmc_sim::RateFormat) {
        if let Some(v) = &self.receiver {
            let _ = writeln!(
                s,
                "  received here: {} messages whole ({} within the run), {} at the receiver; in order {}, out of order {}, again {}, dropped {}",
                v.messages,
                v.messages_in_run,
                rate.show(v.throughput_bps),
                v.in_order,
                v.out_of_order,
                v.duplicates,
                v.dropped
            );
        }
    }
}

/// The files a run wrote.
#[derive(Debug, Clone)]
pub struct Outputs {
    /// `messages.csv`: one row per message.
    pub messages: PathBuf,
    /// `summary.json`: the [`PumpSummary`].
    pub summary: PathBuf,
    /// `rtt.svg`: round trip per message.
    pub rtt: PathBuf,
    /// `rtt-histogram.svg`: the round-trip histogram (K&O Fig. 5).
    pub histogram: PathBuf,
    /// `autocorrelation.svg`: the autocorrelation of successive round trips with its 95 % band (K&O
    /// Fig. 6).
    pub autocorrelation: PathBuf,
}

fn svg(path: &Path, chart: &Chart) -> Result<(), Error> {
    let text = chart
        .to_svg()
        .map_err(|e| Error::Plot(path.display().to_string(), e))?;
    nmc_report::files::write(path, text).map_err(|e| Error::Write(path.display().to_string(), e))
}

/// Writes `summary.json` and the three plots into `dir` (made if missing); `messages.csv` is
/// written there during the run ([`MessagesCsv`]) and only named here.
pub fn write_outputs(dir: &Path, summary: &PumpSummary) -> Result<Outputs, Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Write(dir.display().to_string(), e))?;
    let out = Outputs {
        messages: dir.join("messages.csv"),
        summary: dir.join("summary.json"),
        rtt: dir.join("rtt.svg"),
        histogram: dir.join("rtt-histogram.svg"),
        autocorrelation: dir.join("autocorrelation.svg"),
    };
    let json = serde_json::to_string_pretty(summary).expect("summary serialises");
    nmc_report::files::write(&out.summary, json + "\n")
        .map_err(|e| Error::Write(out.summary.display().to_string(), e))?;
    let c = &summary.run.config;
    let title = format!(
        "{} × {} B outstanding over {} {} {}",
        c.outstanding,
        c.size,
        c.transport,
        if summary.reverse { "from" } else { "to" },
        summary.run.target
    );
    let series = summary.rtt_series();
    let mut rtt = Chart::new(
        format!("Round trip per message: {title}"),
        "message (sequence number)",
        "round trip (ms)",
    )
    .with(Series::new("round trip", SeriesStyle::Points, series));
    if let (Some(r), Some((first, last))) = (&summary.rtt, summary.run.figures.rtt_extent()) {
        rtt = rtt.with(Series::new(
            format!("mean {:.1} ms", r.mean_ms),
            SeriesStyle::Dashed,
            vec![(first, r.mean_ms), (last, r.mean_ms)],
        ));
    }
    svg(&out.rtt, &rtt)?;
    svg(
        &out.histogram,
        &Chart::new(
            format!("Round-trip histogram: {title}"),
            "round trip (ms)",
            "messages (count per bin)",
        )
        .with(Series::new(
            format!("{} ms bins", summary.histogram_bin_ms),
            SeriesStyle::Bars {
                width: summary.histogram_bin_ms,
            },
            summary.histogram.clone(),
        )),
    )?;
    let band = summary.autocorrelation_band;
    let lags = summary.autocorrelation.len().max(1) as f64;
    svg(
        &out.autocorrelation,
        &Chart::new(
            format!("Autocorrelation of successive round trips: {title}"),
            "lag (messages)",
            "autocorrelation r(k) (dimensionless)",
        )
        .with(Series::new(
            "r(k)",
            SeriesStyle::Bars { width: 0.6 },
            summary
                .autocorrelation
                .iter()
                .map(|&(k, r)| (k as f64, r))
                .collect(),
        ))
        .with(Series::new(
            "95 % band",
            SeriesStyle::Dashed,
            vec![
                (0.5, band),
                (lags + 0.5, band),
                (f64::NAN, f64::NAN),
                (0.5, -band),
                (lags + 0.5, -band),
            ],
        ))
        .x_axis(Axis::Integer),
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows written one at a time (more than the buffer holds) are the bytes of every row
    /// written at once by the `csv` crate.
    #[test]
    fn streamed_messages_csv_is_the_whole_file() {
        let dir = std::env::temp_dir().join(format!("nmc-pump-csv-{}", std::process::id()));
        let duration = Nanos(5_000);
        let records: Vec<MessageRecord> = (0..2_055u64)
            .map(|seq| MessageRecord {
                seq,
                bytes: 1008,
                sent: Nanos(seq * 2),
                rfnm: (seq % 5 != 3).then(|| Nanos(seq * 2 + 40)),
                transmissions: 1 + (seq % 3) as u32,
            })
            .collect();
        let mut csv = MessagesCsv::create(&dir.join("messages.csv"), duration).unwrap();
        for m in &records {
            csv.write(m).unwrap();
        }
        let path = csv.finish().unwrap();
        let rows: Vec<MessageRow> = records
            .iter()
            .map(|m| MessageRow::of(m, duration))
            .collect();
        nmc_report::records::write_csv(&dir.join("whole.csv"), &rows).unwrap();
        let (a, b) = (
            std::fs::read(path).unwrap(),
            std::fs::read(dir.join("whole.csv")).unwrap(),
        );
        assert!(a.starts_with(b"seq,bytes,sent_ns,rfnm_ns,rtt_ns,transmissions,in_run\n"));
        assert_eq!(a, b);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
