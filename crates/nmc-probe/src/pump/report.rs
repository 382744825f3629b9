//! What a pump run leaves behind. `--out DIR` gets:
//! - `messages.csv`: one row per message (`seq,bytes,sent_ns,rfnm_ns,rtt_ns,transmissions,in_run`;
//!   times from the first offer, an empty cell for a message never answered);
//! - `summary.json`: a [`PumpSummary`] (parameters, counters, throughput, window limit,
//!   round-trip statistics, histogram, autocorrelation);
//! - `rtt.svg`: round trip per message (K&O Fig. 4's quantity, message by message);
//! - `rtt-histogram.svg`: the round-trip histogram (K&O Fig. 5);
//! - `autocorrelation.svg`: the autocorrelation of successive round trips with its 95 % band
//!   (K&O Fig. 6).

use super::analysis::PumpSummary;
use crate::Error;
use crate::time::Nanos;
use nmc_report::plot::{Axis, Chart, Series, SeriesStyle};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One row of `messages.csv`.
#[derive(Debug, Serialize)]
pub struct MessageRow {
    pub seq: u64,
    pub bytes: u32,
    pub sent_ns: u64,
    pub rfnm_ns: Option<u64>,
    pub rtt_ns: Option<u64>,
    pub transmissions: u32,
    /// The RFNM came back within the offering time (counted in the throughput).
    pub in_run: bool,
}

/// Significant lags listed in the text report; summary.json has them all.
const SHOWN_LAGS: usize = 6;

fn kbps(bps: f64) -> String {
    format!("{:.1} kbit/s", bps / 1e3)
}

impl PumpSummary {
    pub fn text(&self) -> String {
        let mut s = String::new();
        let r = &self.run;
        let c = &r.config;
        let k = &r.counters;
        let _ = writeln!(
            s,
            "{} to {} over {}: {} messages of {} bytes, at most {} outstanding, offered for {}{}",
            self.tool,
            r.target,
            c.transport,
            self.messages_sent,
            c.size,
            c.outstanding,
            c.duration.human(),
            if r.interrupted {
                " (stopped early)"
            } else {
                ""
            }
        );
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
        let _ = writeln!(
            s,
            "  throughput over the run {}; best 150 consecutive messages {}",
            kbps(self.throughput_bps),
            self.best_150_bps
                .map_or("n/a (150 messages or fewer)".into(), kbps)
        );
        if let Some(rtt) = &self.rtt {
            let _ = writeln!(
                s,
                "  round trip (first byte sent to RFNM) ms: mean {:.2}  sd {:.2}  min {:.2}  median {:.2}  95% {:.2}  max {:.2}",
                rtt.mean_ms, rtt.sd_ms, rtt.min_ms, rtt.median_ms, rtt.p95_ms, rtt.max_ms
            );
        }
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
                kbps(w),
                100.0 * wr,
                kbps(b),
                100.0 * br
            );
        }
        let _ = writeln!(
            s,
            "  autocorrelation of successive round trips: significant (|r| > {:.3}) at lags {}",
            self.autocorrelation_band,
            if self.significant_lags.is_empty() {
                "none".to_string()
            } else {
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
        );
        s
    }

    pub fn rows(&self) -> Vec<MessageRow> {
        let run_ns = Nanos((self.run_seconds * 1e9).round() as u64);
        self.run
            .records
            .iter()
            .map(|m| MessageRow {
                seq: m.seq,
                bytes: m.bytes,
                sent_ns: m.sent.0,
                rfnm_ns: m.rfnm.map(|t| t.0),
                rtt_ns: m.rtt().map(|t| t.0),
                transmissions: m.transmissions,
                in_run: m.rfnm.is_some_and(|t| t <= run_ns),
            })
            .collect()
    }
}

/// The files a run wrote.
#[derive(Debug, Clone)]
pub struct Outputs {
    pub messages: PathBuf,
    pub summary: PathBuf,
    pub rtt: PathBuf,
    pub histogram: PathBuf,
    pub autocorrelation: PathBuf,
}

fn svg(path: &Path, chart: &Chart) -> Result<(), Error> {
    let text = chart
        .to_svg()
        .map_err(|e| Error::Plot(path.display().to_string(), e))?;
    std::fs::write(path, text).map_err(|e| Error::Write(path.display().to_string(), e))
}

/// Writes the five files into `dir` (made if missing).
pub fn write_outputs(dir: &Path, summary: &PumpSummary) -> Result<Outputs, Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Write(dir.display().to_string(), e))?;
    let out = Outputs {
        messages: dir.join("messages.csv"),
        summary: dir.join("summary.json"),
        rtt: dir.join("rtt.svg"),
        histogram: dir.join("rtt-histogram.svg"),
        autocorrelation: dir.join("autocorrelation.svg"),
    };
    nmc_report::records::write_csv(&out.messages, &summary.rows()).map_err(|e| {
        Error::Write(
            out.messages.display().to_string(),
            std::io::Error::other(e.to_string()),
        )
    })?;
    let json = serde_json::to_string_pretty(summary).expect("summary serialises");
    std::fs::write(&out.summary, json + "\n")
        .map_err(|e| Error::Write(out.summary.display().to_string(), e))?;
    let c = &summary.run.config;
    let title = format!(
        "{} × {} B outstanding over {} to {}",
        c.outstanding, c.size, c.transport, summary.run.target
    );
    let series = summary.rtt_series();
    let mut rtt = Chart::new(
        format!("Round trip per message: {title}"),
        "message (sequence number)",
        "round trip (ms)",
    )
    .with(Series::new(
        "round trip",
        SeriesStyle::Points,
        series.clone(),
    ));
    if let (Some(r), Some(first), Some(last)) = (&summary.rtt, series.first(), series.last()) {
        rtt = rtt.with(Series::new(
            format!("mean {:.1} ms", r.mean_ms),
            SeriesStyle::Dashed,
            vec![(first.0, r.mean_ms), (last.0, r.mean_ms)],
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
