//! What the NMC computed from the pump's records (Kleinrock & Opderbeck 1977 §IV), from a real
//! run: throughput over the run and over the best block of 150 consecutive messages (Fig. 3,
//! curves A and B), round-trip statistics and histogram (Figs. 4–5), and the autocorrelation of
//! successive round trips (Fig. 6). The statistics themselves are `nmc_report::stats`, shared
//! with the simulated pump's definitions in `nmc-imp/src/analysis.rs`.
//!
//! Definitions:
//! * **round trip**: from the send of the message's first byte (the write call that starts it) to
//!   the arrival of its RFNM, as the 1974 host timed it from its own side ("delay (as seen by the
//!   UCLA HOST)", K&O §IV). A message retransmitted over UDP keeps its first send;
//! * **throughput over the run**: data bits of the messages whose RFNM came back within the
//!   offering time, divided by the offering time (`--duration`);
//! * **best 150**: the highest rate over any 150 consecutive RFNMs, each block timed from the RFNM
//!   before it to its last;
//! * **window limit**: `outstanding × size / mean round trip`, the rate at which a sender that
//!   always has N messages outstanding moves data (Little's law: N = rate × round trip). A ratio
//!   of throughput to it below 1 says the pump did not keep its window full. The **base window
//!   limit** uses the least round trip instead, the path's own: what the window alone would allow
//!   if nothing queued; throughput well below it means the path, not the window, is the limit
//!   (K&O §III: the limit bites "in the event that the line bandwidth times the round trip time
//!   is larger than four times the maximum message length").

use super::sender::{MessageRecord, PumpConfig, PumpCounters};
use crate::time::{Nanos, TimerResolution};
use nmc_report::stats::{self, Rule, percentile};
use serde::Serialize;

/// Lags of the autocorrelation reported. **Choice**: 20 (K&O Fig. 6 does not survive in our copy).
pub const MAX_LAG: usize = 20;
/// Histogram bins aimed at. **Choice**: about 40 between 0 and the largest round trip.
pub const HISTOGRAM_BINS: usize = 40;

/// A finished (or stopped) run: everything the reports need.
#[derive(Debug, Clone, Serialize)]
pub struct PumpRun {
    /// The target as resolved.
    pub target: String,
    pub config: PumpConfig,
    pub timer: TimerResolution,
    /// Wall-clock start, ns since the Unix epoch (for the record only).
    pub started_unix_ns: u64,
    /// From the first message offered to the end of the run.
    pub elapsed: Nanos,
    /// Stopped (Ctrl-C) before the offering time was over.
    pub interrupted: bool,
    pub counters: PumpCounters,
    /// Messages, times from the first offer.
    #[serde(skip)]
    pub records: Vec<MessageRecord>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RttStats {
    pub count: usize,
    pub mean_ms: f64,
    pub sd_ms: f64,
    pub min_ms: f64,
    pub median_ms: f64,
    pub p95_ms: f64,
    pub max_ms: f64,
}

impl RttStats {
    pub fn of(ms: &[f64]) -> Option<RttStats> {
        if ms.is_empty() {
            return None;
        }
        let n = ms.len() as f64;
        let mean = ms.iter().sum::<f64>() / n;
        let sd = (ms.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        let mut s = ms.to_vec();
        s.sort_by(f64::total_cmp);
        let q = |p: f64| percentile(&s, p, Rule::Round).expect("non-empty");
        Some(RttStats {
            count: s.len(),
            mean_ms: mean,
            sd_ms: sd,
            min_ms: s[0],
            median_ms: q(0.5),
            p95_ms: q(0.95),
            max_ms: s[s.len() - 1],
        })
    }
}

/// Everything a run measured, reduced. Serialised as `summary.json`.
#[derive(Debug, Clone, Serialize)]
pub struct PumpSummary {
    pub tool: &'static str,
    pub version: &'static str,
    #[serde(flatten)]
    pub run: PumpRun,
    /// No part of the pump is random: nothing to seed. Written so a reader need not wonder.
    pub seed: Option<u64>,
    pub messages_sent: usize,
    pub messages_answered: usize,
    /// RFNMs back within the offering time.
    pub answered_in_run: usize,
    /// The offering time the throughput is divided by, s.
    pub run_seconds: f64,
    pub throughput_bps: f64,
    pub best_150_bps: Option<f64>,
    pub rtt: Option<RttStats>,
    pub window_limit_bps: Option<f64>,
    pub throughput_over_window_limit: Option<f64>,
    pub base_window_limit_bps: Option<f64>,
    pub throughput_over_base_window_limit: Option<f64>,
    /// (lag, coefficient) of successive round trips, lags 1..=20.
    pub autocorrelation: Vec<(usize, f64)>,
    /// ±1.96/√n: coefficients outside it are significant at about 5 %.
    pub autocorrelation_band: f64,
    pub significant_lags: Vec<usize>,
    pub histogram_bin_ms: f64,
    /// (bin centre ms, messages).
    pub histogram: Vec<(f64, f64)>,
}

impl PumpSummary {
    pub fn of(run: PumpRun) -> PumpSummary {
        let cfg = &run.config;
        let run_ns = if run.interrupted {
            run.elapsed.min(cfg.duration)
        } else {
            cfg.duration
        };
        let answered: Vec<&MessageRecord> =
            run.records.iter().filter(|r| r.rfnm.is_some()).collect();
        let in_run: Vec<&&MessageRecord> = answered
            .iter()
            .filter(|r| r.rfnm.is_some_and(|t| t <= run_ns))
            .collect();
        let bits_in_run: u64 = in_run.iter().map(|r| 8 * u64::from(r.bytes)).sum();
        let run_seconds = run_ns.as_secs_f64();
        let throughput_bps = if run_seconds > 0.0 {
            bits_in_run as f64 / run_seconds
        } else {
            0.0
        };
        let done: Vec<(u64, u64)> = answered
            .iter()
            .filter_map(|r| Some((r.rfnm?.0, 8 * u64::from(r.bytes))))
            .collect();
        let best_150_bps = stats::best_block_bps(&done, stats::BEST_BLOCK);
        let rtt_ms: Vec<f64> = answered
            .iter()
            .filter_map(|r| r.rtt())
            .map(Nanos::as_millis_f64)
            .collect();
        let rtt = RttStats::of(&rtt_ms);
        let window_bits = f64::from(cfg.outstanding) * 8.0 * f64::from(cfg.size);
        let limit = |ms: f64| (ms > 0.0).then(|| window_bits / (ms / 1e3));
        let window_limit_bps = rtt.and_then(|r| limit(r.mean_ms));
        let base_window_limit_bps = rtt.and_then(|r| limit(r.min_ms));
        let autocorrelation = stats::autocorrelation(&rtt_ms, MAX_LAG);
        let significant_lags = stats::significant_lags(&autocorrelation, rtt_ms.len());
        let histogram_bin_ms = stats::round_bin_width(&rtt_ms, HISTOGRAM_BINS);
        PumpSummary {
            tool: "nmc pump",
            version: env!("CARGO_PKG_VERSION"),
            seed: None,
            messages_sent: run.records.len(),
            messages_answered: answered.len(),
            answered_in_run: in_run.len(),
            run_seconds,
            throughput_bps,
            best_150_bps,
            rtt,
            window_limit_bps,
            throughput_over_window_limit: window_limit_bps.map(|w| throughput_bps / w),
            base_window_limit_bps,
            throughput_over_base_window_limit: base_window_limit_bps.map(|w| throughput_bps / w),
            autocorrelation_band: stats::autocorrelation_band(rtt_ms.len()),
            autocorrelation,
            significant_lags,
            histogram: stats::histogram(&rtt_ms, histogram_bin_ms),
            histogram_bin_ms,
            run,
        }
    }

    /// Round trips in ms, in message order, of the answered messages: (seq, ms).
    pub fn rtt_series(&self) -> Vec<(f64, f64)> {
        self.run
            .records
            .iter()
            .filter_map(|r| Some((r.seq as f64, r.rtt()?.as_millis_f64())))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pump::sender::{Pump, PumpTransport};

    /// A pump driven against a path of fixed round trip R with N outstanding: throughput is
    /// N·size/R, the window limit exactly.
    fn simulated(n: u32, rtt_ms: u64, secs: u64) -> PumpSummary {
        let cfg = PumpConfig {
            transport: PumpTransport::Tcp,
            size: 1000,
            outstanding: n,
            duration: Nanos(secs * 1_000_000_000),
            packet: 1200,
            timeout: Nanos(10_000_000_000),
            session: 1,
        };
        let mut p = Pump::new(cfg.clone()).unwrap();
        let mut due: std::collections::BTreeSet<(u64, u64)> = Default::default();
        let mut now = Nanos(0);
        while !p.is_done(now) {
            while let Some(t) = p.poll_transmit(now) {
                due.insert((now.0 + rtt_ms * 1_000_000, t.seq));
            }
            let Some((t, seq)) = due.pop_first() else {
                break;
            };
            now = Nanos(t);
            p.handle_rfnm(now, seq);
        }
        PumpSummary::of(PumpRun {
            target: "model".into(),
            config: cfg,
            timer: crate::time::measure_timer_resolution(10),
            started_unix_ns: 0,
            elapsed: now,
            interrupted: false,
            counters: p.counters(),
            records: p.records().to_vec(),
        })
    }

    #[test]
    fn throughput_meets_the_window_limit_on_a_fixed_path() {
        let s = simulated(4, 100, 30);
        // 4 × 8000 bits per 100 ms.
        assert!((s.window_limit_bps.unwrap() - 320_000.0).abs() < 1e-6);
        let ratio = s.throughput_over_window_limit.unwrap();
        assert!((ratio - 1.0).abs() < 0.01, "{ratio}");
        // RFNMs come back four at a time, so a block that starts inside a group of four is a
        // little faster than the average: 150 messages in 37 round trips at best.
        let best = s.best_150_bps.unwrap();
        assert!((best - 150.0 * 8000.0 / 3.7).abs() < 1.0, "{best}");
        assert_eq!(s.messages_answered, s.messages_sent);
        // A constant round trip has no correlation and one histogram bin.
        assert!(s.significant_lags.is_empty());
        assert_eq!(s.histogram.len(), 1);
        let half = simulated(2, 100, 30);
        assert!((half.throughput_bps / s.throughput_bps - 0.5).abs() < 0.01);
    }

    #[test]
    fn rtt_stats() {
        let s = RttStats::of(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!(
            (s.min_ms, s.median_ms, s.max_ms, s.mean_ms),
            (1.0, 2.0, 3.0, 2.0)
        );
        assert_eq!(RttStats::of(&[]), None);
    }
}
