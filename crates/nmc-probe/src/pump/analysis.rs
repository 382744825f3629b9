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
//!   offering time, divided by the offering time (`--duration`); for a run with a count
//!   (`-k`, `-n`), the bits of all its messages over the time to the last RFNM; a warm-up
//!   (`--omit`, iperf3 `-O`) is offered first and left out: its RFNMs count apart, and the
//!   offering time is the `--duration` after it;
//! * **best 150**: the highest rate over any 150 consecutive RFNMs, each block timed from the RFNM
//!   before it to its last;
//! * **window limit**: `outstanding × size / mean round trip`, the rate at which a sender that
//!   always has N messages outstanding moves data (Little's law: N = rate × round trip). A ratio
//!   of throughput to it below 1 says the pump did not keep its window full. The **base window
//!   limit** uses the least round trip instead, the path's own: what the window alone would allow
//!   if nothing queued; throughput well below it means the path, not the window, is the limit
//!   (K&O §III: the limit bites "in the event that the line bandwidth times the round trip time
//!   is larger than four times the maximum message length").
//!
//! Issue 34, item 5: the figures are kept as the messages finish ([`PumpFigures`], from the
//! accumulators in [`super::running`]), not from every record at the end, so a run's memory does
//! not grow with its length. Mean, min, max, counts, throughput, best 150, window limits and the
//! histogram are what the whole-record computation gave; the standard deviation and the
//! autocorrelation are the same to rounding (≈1e-12); the median and the 95th percentile come
//! from an HDR histogram of 3 significant digits (within 0.05 %). The test
//! `streaming_figures_are_the_whole_record_figures` holds the whole-record computation as it was.

use super::receiver::ReceiverFigures;
use super::running::Sequencer;
use super::running::{RttMoments, RttPlot, RunningAutocorrelation, RunningHistogram};
use super::sender::{MessageRecord, Pump, PumpConfig, PumpCounters};
pub use super::window::{in_run, in_warm_up};
use crate::time::{Nanos, TimerResolution};
use nmc_report::stats::{self, BestBlock};
#[cfg(test)]
use nmc_report::stats::{Rule, percentile};
use serde::{Deserialize, Serialize};

/// Lags of the autocorrelation reported. **Choice**: 20 (K&O Fig. 6 does not survive in our copy).
pub const MAX_LAG: usize = 20;
/// Histogram bins aimed at. **Choice**: about 40 between 0 and the largest round trip.
pub const HISTOGRAM_BINS: usize = 40;

/// A finished (or stopped) run: everything the reports need.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PumpRun {
    /// The target as resolved.
    pub target: String,
    /// The run's parameters, as used.
    pub config: PumpConfig,
    /// What was measured of the monotonic clock before the run.
    pub timer: TimerResolution,
    /// Wall-clock start, ns since the Unix epoch (for the record only).
    pub started_unix_ns: u64,
    /// From the first message offered to the end of the run.
    pub elapsed: Nanos,
    /// Stopped (Ctrl-C) before the offering time was over.
    pub interrupted: bool,
    /// Why the run ended before its offering time was over after it had measured something
    /// (a message unanswered for `--timeout`, the connection cut): what was measured is kept
    /// (issue 58 §3: exit 4, a partial run). Absent from a run that ended as planned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<String>,
    /// Counts of messages sent, RFNMs (first, duplicate, unknown, out of order), retransmissions
    /// and junk received.
    pub counters: PumpCounters,
    /// This host's end of the run (issue 58 §4: both endpoints' addresses), as bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<String>,
    /// The sending socket's TCP statistics at the end of a TCP run (Linux; with `--reverse`
    /// the server's, sent back with its run); `None` over UDP or elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<crate::tcp_info::TcpStats>,
    /// The running figures of every message finished (times from the first offer). Not written;
    /// with `--reverse` the client rebuilds the round-trip plot's part ([`PumpFigures::shipped`]).
    #[serde(skip)]
    pub figures: PumpFigures,
}

/// Everything [`PumpSummary`] needs from the messages, kept as they finish: state of a size
/// independent of the number of messages (see [`super::running`]).
///
/// Feed each finished message twice: [`PumpFigures::completed`] in the order the messages finish
/// (RFNM times increasing, for the best block), and [`PumpFigures::add`] in sequence order (for
/// the series statistics; [`super::running::Sequencer`] restores it).
#[derive(Debug, Clone)]
pub struct PumpFigures {
    duration: Nanos,
    /// The warm-up before `duration` (`--omit`): RFNMs within it are counted apart.
    omit: Nanos,
    /// Messages answered within the warm-up, and their data bits.
    omitted_answered: usize,
    omitted_bits: u64,
    sent: usize,
    answered: usize,
    answered_in_run: usize,
    bits_in_run: u64,
    best: BestBlock,
    rtt: RttMoments,
    acf: RunningAutocorrelation,
    histogram: RunningHistogram,
    plot: RttPlot,
}

impl Default for PumpFigures {
    fn default() -> Self {
        PumpFigures::new(Nanos::ZERO)
    }
}

impl PumpFigures {
    /// Figures that hold only a round-trip plot made elsewhere: what `nmc pump --reverse` gets
    /// back from the server that sent (the rest of the figures come as the [`PumpSummary`]).
    pub fn shipped(duration: Nanos, plot: RttPlot) -> Self {
        PumpFigures {
            plot,
            ..PumpFigures::new(duration)
        }
    }

    /// The round-trip plot's state (shipped back by a reverse server).
    pub fn plot(&self) -> &RttPlot {
        &self.plot
    }

    /// Empty figures for a run offering messages for `duration`.
    pub fn new(duration: Nanos) -> Self {
        PumpFigures {
            duration,
            omit: Nanos::ZERO,
            omitted_answered: 0,
            omitted_bits: 0,
            sent: 0,
            answered: 0,
            answered_in_run: 0,
            bits_in_run: 0,
            best: BestBlock::new(stats::BEST_BLOCK),
            rtt: RttMoments::default(),
            acf: RunningAutocorrelation::new(MAX_LAG),
            histogram: RunningHistogram::new(HISTOGRAM_BINS),
            plot: RttPlot::default(),
        }
    }

    /// The same, after a warm-up of `omit` left out of them (`--omit`).
    pub fn omitting(self, omit: Nanos) -> Self {
        PumpFigures { omit, ..self }
    }

    /// A message finished, in the order they finish (RFNM times not decreasing).
    pub fn completed(&mut self, r: &MessageRecord) {
        if let Some(t) = r.rfnm
            && !in_warm_up(t, self.omit)
        {
            self.best.add(t.0, 8 * u64::from(r.bytes));
        }
    }

    /// A message finished, in sequence order. One answered within the warm-up is counted
    /// apart: not in the run's throughput, round trips, histogram or autocorrelation.
    pub fn add(&mut self, r: &MessageRecord) {
        self.sent += 1;
        let (Some(t), Some(rtt)) = (r.rfnm, r.rtt()) else {
            return;
        };
        self.answered += 1;
        if in_warm_up(t, self.omit) {
            self.omitted_answered += 1;
            self.omitted_bits += 8 * u64::from(r.bytes);
            return;
        }
        if in_run(t, self.omit, self.duration) {
            self.answered_in_run += 1;
            self.bits_in_run += 8 * u64::from(r.bytes);
        }
        let ms = rtt.as_millis_f64();
        self.rtt.add(rtt.0);
        self.acf.add(ms);
        self.histogram.add(ms);
        self.plot.add(r.seq, ms);
    }

    /// What the warm-up carried: messages answered within it, and its throughput (bit/s);
    /// `None` without a warm-up.
    pub fn omitted(&self) -> Option<Omitted> {
        (self.omit > Nanos::ZERO).then(|| Omitted {
            seconds: self.omit.as_secs_f64(),
            answered: self.omitted_answered,
            throughput_bps: self.omitted_bits as f64 / self.omit.as_secs_f64(),
        })
    }

    /// Messages added (sent).
    pub fn messages(&self) -> usize {
        self.sent
    }

    /// The points of `rtt.svg` (see [`RttPlot`]).
    pub fn rtt_points(&self) -> Vec<(f64, f64)> {
        self.plot.points()
    }

    /// The first and last answered sequence numbers.
    pub fn rtt_extent(&self) -> Option<(f64, f64)> {
        self.plot.extent()
    }
}

/// Statistics of the answered messages' round trips, ms.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RttStats {
    /// Round trips counted.
    pub count: usize,
    /// Mean round trip, ms.
    pub mean_ms: f64,
    /// Population standard deviation of the round trips, ms.
    pub sd_ms: f64,
    /// Least round trip, ms.
    pub min_ms: f64,
    /// Median round trip, ms (to the HDR histogram's precision).
    pub median_ms: f64,
    /// 95th percentile round trip, ms (to the HDR histogram's precision).
    pub p95_ms: f64,
    /// Greatest round trip, ms.
    pub max_ms: f64,
}

impl RttStats {
    /// From running figures: exact but for the median and 95 % (HDR, see [`RttMoments`]).
    pub fn running(m: &RttMoments) -> Option<RttStats> {
        let ms = |ns: u64| Nanos(ns).as_millis_f64();
        Some(RttStats {
            count: m.count() as usize,
            mean_ms: m.mean_ms()?,
            sd_ms: m.sd_ms()?,
            min_ms: ms(m.min_ns()?),
            median_ms: ms(m.percentile_ns(0.5)?),
            p95_ms: ms(m.percentile_ns(0.95)?),
            max_ms: ms(m.max_ns()?),
        })
    }

    /// From every round trip, ms: the whole-record figures (kept for the tests' comparison).
    #[cfg(test)]
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

/// Takes a pump's finished messages each turn: folds them into [`PumpFigures`] and hands them,
/// in sequence order, to a sink (`messages.csv`). What it holds is the [`Sequencer`]'s.
#[derive(Debug, Clone)]
pub struct Collector {
    sequencer: Sequencer,
    /// The figures so far.
    pub figures: PumpFigures,
    most_held: usize,
}

impl Collector {
    /// For a run of `cfg`: its offering time, and its warm-up left out (`--omit`).
    pub fn for_run(cfg: &super::PumpConfig) -> Self {
        let mut c = Collector::new(cfg.duration);
        c.figures = c.figures.omitting(cfg.omit);
        c
    }

    /// For a run offering messages for `duration`.
    pub fn new(duration: Nanos) -> Self {
        Collector {
            sequencer: Sequencer::default(),
            figures: PumpFigures::new(duration),
            most_held: 0,
        }
    }

    /// Takes every message `pump` has finished: each goes into `finished` (cleared first) in the
    /// order they finished, and to `sink` once every earlier message has gone there too.
    pub fn take<E>(
        &mut self,
        pump: &mut Pump,
        finished: &mut Vec<MessageRecord>,
        sink: &mut dyn FnMut(&MessageRecord) -> Result<(), E>,
    ) -> Result<(), E> {
        finished.clear();
        while let Some(r) = pump.pop_finished() {
            self.figures.completed(&r);
            finished.push(r);
            let mut ready = self.sequencer.offer(r);
            while let Some(r) = ready {
                self.figures.add(&r);
                sink(&r)?;
                ready = self.sequencer.pop();
            }
        }
        self.most_held = self.most_held.max(self.sequencer.held());
        Ok(())
    }

    /// Messages held back now, waiting for an earlier one.
    pub fn held(&self) -> usize {
        self.sequencer.held()
    }

    /// The most messages held back at once so far, between turns.
    pub fn most_held(&self) -> usize {
        self.most_held
    }
}

/// What a run's warm-up (`--omit`, iperf3 `-O`) carried, left out of its figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Omitted {
    /// The warm-up, s.
    pub seconds: f64,
    /// Messages whose RFNM came back within it.
    pub answered: usize,
    /// Their data bits over the warm-up, bit/s.
    pub throughput_bps: f64,
}

/// Everything a run measured, reduced. Serialised as `summary.json`; with `--reverse` the server
/// sends it to the client (which reads it back: its own `tool` and `version` are written).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PumpSummary {
    /// Name of the program that wrote the summary, `nmc pump`.
    #[serde(skip_deserializing, default = "tool_name")]
    pub tool: &'static str,
    /// Version of the program that wrote the summary (the crate's).
    #[serde(skip_deserializing, default = "tool_version")]
    pub version: &'static str,
    /// The run itself: target, settings, clock, counters.
    #[serde(flatten)]
    pub run: PumpRun,
    /// No part of the pump is random: nothing to seed. Written so a reader need not wonder.
    pub seed: Option<u64>,
    /// Messages offered.
    pub messages_sent: usize,
    /// Messages whose RFNM came back, within the offering time or after.
    pub messages_answered: usize,
    /// RFNMs back within the offering time.
    pub answered_in_run: usize,
    /// The offering time the throughput is divided by, s.
    pub run_seconds: f64,
    /// Data bits of the messages answered within the offering time over the offering time, bit/s
    /// (K&O Fig. 3, curve A).
    pub throughput_bps: f64,
    /// Highest rate over any 150 consecutive RFNMs, bit/s (K&O Fig. 3, curve B); `None` with 150
    /// RFNMs or fewer.
    pub best_150_bps: Option<f64>,
    /// Round-trip statistics of the answered messages; `None` with none answered.
    pub rtt: Option<RttStats>,
    /// Window limit: `outstanding × size / mean round trip`, bit/s.
    pub window_limit_bps: Option<f64>,
    /// `throughput_bps` over `window_limit_bps`: below 1 when the pump did not keep its window
    /// full.
    pub throughput_over_window_limit: Option<f64>,
    /// Base window limit: `outstanding × size / least round trip`, bit/s, what the window alone
    /// would allow on an empty path.
    pub base_window_limit_bps: Option<f64>,
    /// `throughput_bps` over `base_window_limit_bps`: well below 1 when the path, not the window,
    /// is the limit.
    pub throughput_over_base_window_limit: Option<f64>,
    /// Whether the pump's own window is what held this run back ([`window_limits`]): it was
    /// kept full and the round trip stayed near its least, so the path had room. `None` with
    /// no round trip.
    #[serde(default)]
    pub window_limited: Option<bool>,
    /// The warm-up left out (`--omit`); absent without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omitted: Option<Omitted>,
    /// (lag, coefficient) of successive round trips, lags 1..=20.
    pub autocorrelation: Vec<(usize, f64)>,
    /// ±1.96/√n: coefficients outside it are significant at about 5 %.
    pub autocorrelation_band: f64,
    /// Lags whose coefficient lies outside `autocorrelation_band`.
    pub significant_lags: Vec<usize>,
    /// Width of a histogram bin, ms.
    pub histogram_bin_ms: f64,
    /// (bin centre ms, messages).
    pub histogram: Vec<(f64, f64)>,
    /// `nmc pump --reverse`: the server sent and timed the messages (every figure above is its),
    /// the client received them. Absent from a forward run's summary.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reverse: bool,
    /// `--reverse`: what the client saw arrive ([`ReceiverFigures`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver: Option<ReceiverFigures>,
}

/// The window counts as full when throughput is at least this share of
/// `outstanding × size / mean round trip` (issue 75 §7).
pub const WINDOW_FULL: f64 = 0.9;

/// The path counts as having room when throughput is at least this share of the window over
/// the *least* round trip: the mean round trip is then at most 1.25 times the least, so no
/// standing queue has built on the path. A path that limits a full window queues it (its round
/// trip grows until window ÷ round trip is the path's rate), which takes this share down.
pub const NO_STANDING_QUEUE: f64 = 0.8;

/// Whether a run whose throughput was `over_window` of its window limit and `over_base` of its
/// base window limit was held back by the pump's window rather than by the path: the window
/// full ([`WINDOW_FULL`]) and no standing queue ([`NO_STANDING_QUEUE`]). A larger window would
/// then have carried more.
pub fn window_limits(over_window: f64, over_base: f64) -> bool {
    over_window >= WINDOW_FULL && over_base >= NO_STANDING_QUEUE
}

fn tool_name() -> &'static str {
    "nmc pump"
}

fn tool_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

impl PumpSummary {
    /// The summary of a run, from its running figures.
    pub fn of(run: PumpRun) -> PumpSummary {
        let cfg = &run.config;
        let f = &run.figures;
        let run_ns = if run.interrupted || cfg.count.is_some() {
            run.elapsed.saturating_sub(cfg.omit).min(cfg.duration)
        } else {
            cfg.duration
        };
        // RFNMs are stamped before the run's end, so "within min(elapsed, duration)" is "within
        // the duration", which is what the figures counted (after the warm-up, if any).
        let run_seconds = run_ns.as_secs_f64();
        let throughput_bps = if run_seconds > 0.0 {
            f.bits_in_run as f64 / run_seconds
        } else {
            0.0
        };
        let rtt = RttStats::running(&f.rtt);
        let window_bits = f64::from(cfg.outstanding) * 8.0 * f64::from(cfg.size);
        let limit = |ms: f64| (ms > 0.0).then(|| window_bits / (ms / 1e3));
        let window_limit_bps = rtt.and_then(|r| limit(r.mean_ms));
        let base_window_limit_bps = rtt.and_then(|r| limit(r.min_ms));
        let n = f.acf.count();
        let autocorrelation = f.acf.coefficients();
        let significant_lags = stats::significant_lags(&autocorrelation, n);
        PumpSummary {
            tool: tool_name(),
            version: tool_version(),
            reverse: false,
            receiver: None,
            seed: None,
            messages_sent: f.sent,
            messages_answered: f.answered,
            answered_in_run: f.answered_in_run,
            run_seconds,
            throughput_bps,
            best_150_bps: f.best.bps(),
            rtt,
            window_limit_bps,
            throughput_over_window_limit: window_limit_bps.map(|w| throughput_bps / w),
            base_window_limit_bps,
            throughput_over_base_window_limit: base_window_limit_bps.map(|w| throughput_bps / w),
            window_limited: window_limit_bps
                .zip(base_window_limit_bps)
                .map(|(w, b)| window_limits(throughput_bps / w, throughput_bps / b)),
            omitted: f.omitted(),
            autocorrelation_band: stats::autocorrelation_band(n),
            autocorrelation,
            significant_lags,
            histogram: f.histogram.bins(),
            histogram_bin_ms: f.histogram.width(),
            run,
        }
    }

    /// Round trips in ms, in message order, of the answered messages: (seq, ms); past
    /// [`RttPlot::BUCKETS`] messages, each bucket's least and greatest (see [`RttPlot`]).
    pub fn rtt_series(&self) -> Vec<(f64, f64)> {
        self.run.figures.rtt_points()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// iperf3 `-O`: what is answered within the warm-up is counted apart and left out of the
    /// run's throughput, round trips and best block; the run's throughput is over its duration.
    #[test]
    fn a_warm_up_is_counted_apart_and_left_out_of_the_figures() {
        let ms = |x: u64| Nanos(x * 1_000_000);
        let mut f = PumpFigures::new(ms(1_000)).omitting(ms(500));
        // One message every 10 ms over 1.5 s, each answered after 5 ms; the warm-up's twice as
        // slow (10 ms round trips).
        for i in 0..150u64 {
            let sent = ms(10 * i);
            let rtt = if i < 50 { 10 } else { 5 };
            let r = MessageRecord {
                seq: i,
                bytes: 1000,
                sent,
                rfnm: Some(sent.saturating_add(ms(rtt))),
                transmissions: 1,
            };
            f.completed(&r);
            f.add(&r);
        }
        // RFNMs at 10, 20, …, 500 ms (50) are the warm-up's; 505 … 1495 ms are the run's (100).
        let o = f.omitted().unwrap();
        assert_eq!((o.answered, o.seconds), (50, 0.5));
        assert_eq!(o.throughput_bps, 50.0 * 8000.0 / 0.5);
        assert_eq!((f.answered, f.answered_in_run), (150, 100));
        assert_eq!(f.bits_in_run, 100 * 8000);
        let rtt = RttStats::running(&f.rtt).unwrap();
        assert_eq!((rtt.count, rtt.max_ms), (100, 5.0));
        assert!(PumpFigures::new(ms(1_000)).omitted().is_none());
    }

    #[test]
    fn a_full_window_without_a_standing_queue_is_what_limits() {
        // 4 × 1008 B at 50 ms on a path with room: throughput is the window over a round trip
        // near its least.
        assert!(window_limits(0.98, 0.95));
        // The same window on a path that queues it: the round trip grew 1.4 times.
        assert!(!window_limits(0.98, 0.70));
        // A window not kept full (a slow sender): the pump, not its window, held it back.
        assert!(!window_limits(0.60, 0.58));
        assert!(window_limits(WINDOW_FULL, NO_STANDING_QUEUE));
    }

    /// The whole-record computation as it was before issue 34 item 5, kept as the reference.
    pub(crate) fn reference(run: PumpRun, records: &[MessageRecord]) -> PumpSummary {
        let cfg = &run.config;
        let run_ns = if run.interrupted || cfg.count.is_some() {
            run.elapsed.min(cfg.duration)
        } else {
            cfg.duration
        };
        let answered: Vec<&MessageRecord> = records.iter().filter(|r| r.rfnm.is_some()).collect();
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
            messages_sent: records.len(),
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
            window_limited: window_limit_bps
                .zip(base_window_limit_bps)
                .map(|(w, b)| window_limits(throughput_bps / w, throughput_bps / b)),
            omitted: None,
            autocorrelation_band: stats::autocorrelation_band(rtt_ms.len()),
            autocorrelation,
            significant_lags,
            histogram: stats::histogram(&rtt_ms, histogram_bin_ms),
            histogram_bin_ms,
            run,
            reverse: false,
            receiver: None,
        }
    }

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
            count: None,
            omit: Nanos::ZERO,
        };
        let (run, records) = drive(cfg, None, |_, _| Some(rtt_ms * 1_000_000));
        let s = PumpSummary::of(run.clone());
        same(&s, &reference(run, &records));
        s
    }

    /// Drives a pump on a fake clock against a path that answers message `seq`'s `n`th sending
    /// after `path(seq, n)` ns, or loses it (`None`), until it is done or `stop_at`; returns the run
    /// with its running figures and every record (in the order written, sequence order).
    pub(crate) fn drive(
        cfg: PumpConfig,
        stop_at: Option<u64>,
        mut path: impl FnMut(u64, u32) -> Option<u64>,
    ) -> (PumpRun, Vec<MessageRecord>) {
        let mut p = Pump::new(cfg.clone()).unwrap();
        let mut c = Collector::new(cfg.duration);
        let mut due: std::collections::BTreeSet<(u64, u64)> = Default::default();
        let mut sends: std::collections::HashMap<u64, u32> = Default::default();
        let (mut records, mut finished) = (Vec::new(), Vec::new());
        let mut now = 0u64;
        let mut interrupted = false;
        loop {
            p.handle_timeout(Nanos(now));
            assert!(p.failure().is_none(), "{:?}", p.failure());
            while let Some(t) = p.poll_transmit(Nanos(now)) {
                let n = sends.entry(t.seq).or_default();
                *n += 1;
                if let Some(d) = path(t.seq, *n) {
                    due.insert((now + d, t.seq));
                }
            }
            c.take(&mut p, &mut finished, &mut |r| {
                records.push(*r);
                Ok::<(), ()>(())
            })
            .unwrap();
            if p.is_done(Nanos(now)) {
                break;
            }
            let next = [due.first().map(|d| d.0), p.poll_at().map(|t| t.0)]
                .into_iter()
                .flatten()
                .min()
                .expect("something is due");
            if stop_at.is_some_and(|s| next > s) {
                now = stop_at.unwrap();
                interrupted = true;
                break;
            }
            now = now.max(next);
            while due.first().is_some_and(|d| d.0 <= now) {
                let (_, seq) = due.pop_first().unwrap();
                p.handle_rfnm(Nanos(now), seq);
            }
        }
        p.give_up();
        c.take(&mut p, &mut finished, &mut |r| {
            records.push(*r);
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(c.held(), 0);
        let run = PumpRun {
            target: "model".into(),
            config: cfg,
            timer: crate::time::measure_timer_resolution(10),
            started_unix_ns: 0,
            elapsed: Nanos(now),
            interrupted,
            partial: None,
            counters: p.counters(),
            local: None,
            tcp: None,
            figures: c.figures,
        };
        (run, records)
    }

    /// Every summary field of the running figures against the whole-record computation's: exact
    /// fields equal, sd and autocorrelation to rounding, median and 95 % within HDR's precision.
    pub(crate) fn same(s: &PumpSummary, r: &PumpSummary) {
        let close = |a: f64, b: f64, rel: f64, what: &str| {
            assert!(
                (a - b).abs() <= rel * b.abs().max(1e-300),
                "{what}: {a} vs {b}"
            )
        };
        assert_eq!(s.messages_sent, r.messages_sent);
        assert_eq!(s.messages_answered, r.messages_answered);
        assert_eq!(s.answered_in_run, r.answered_in_run);
        assert_eq!(s.run_seconds.to_bits(), r.run_seconds.to_bits());
        assert_eq!(s.throughput_bps.to_bits(), r.throughput_bps.to_bits());
        assert_eq!(
            s.best_150_bps.map(f64::to_bits),
            r.best_150_bps.map(f64::to_bits)
        );
        match (s.rtt, r.rtt) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                assert_eq!(a.count, b.count);
                assert_eq!(a.mean_ms.to_bits(), b.mean_ms.to_bits());
                assert_eq!(a.min_ms.to_bits(), b.min_ms.to_bits());
                assert_eq!(a.max_ms.to_bits(), b.max_ms.to_bits());
                close(a.sd_ms, b.sd_ms, 1e-9, "sd");
                close(a.median_ms, b.median_ms, 5e-4, "median");
                close(a.p95_ms, b.p95_ms, 5e-4, "p95");
            }
            (a, b) => panic!("{a:?} vs {b:?}"),
        }
        let bits = |x: Option<f64>| x.map(f64::to_bits);
        assert_eq!(bits(s.window_limit_bps), bits(r.window_limit_bps));
        assert_eq!(
            bits(s.throughput_over_window_limit),
            bits(r.throughput_over_window_limit)
        );
        assert_eq!(bits(s.base_window_limit_bps), bits(r.base_window_limit_bps));
        assert_eq!(
            bits(s.throughput_over_base_window_limit),
            bits(r.throughput_over_base_window_limit)
        );
        assert_eq!(s.autocorrelation.len(), r.autocorrelation.len());
        for (a, b) in s.autocorrelation.iter().zip(&r.autocorrelation) {
            assert_eq!(a.0, b.0);
            assert!((a.1 - b.1).abs() < 1e-9, "lag {}: {} vs {}", a.0, a.1, b.1);
        }
        assert_eq!(
            s.autocorrelation_band.to_bits(),
            r.autocorrelation_band.to_bits()
        );
        assert_eq!(s.significant_lags, r.significant_lags);
        assert_eq!(s.histogram_bin_ms.to_bits(), r.histogram_bin_ms.to_bits());
        assert_eq!(s.histogram, r.histogram);
    }

    fn udp(n: u32, secs: u64) -> PumpConfig {
        PumpConfig {
            transport: PumpTransport::Udp,
            size: 1000,
            outstanding: n,
            duration: Nanos(secs * 1_000_000_000),
            packet: 500,
            timeout: Nanos(10_000_000_000),
            session: 1,
            count: None,
            omit: Nanos::ZERO,
        }
    }

    /// Issue 34 item 5: the running figures against the whole-record analysis on the same
    /// messages: a UDP path whose round trip wanders and jumps, that reorders and loses
    /// (retransmissions, RFNMs out of order), run to its end and stopped with messages outstanding.
    #[test]
    fn streaming_figures_are_the_whole_record_figures() {
        let mut x = 0x1977u64;
        let mut path = move |seq: u64, n: u32| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = x >> 33;
            if n == 1 && r.is_multiple_of(53) {
                return None;
            }
            let base = 40_000_000 + (seq % 300) * 50_000 + r % 3_000_000;
            Some(if r.is_multiple_of(41) { base * 5 } else { base })
        };
        for (n, secs, stop) in [
            (4, 20, None),
            (8, 30, Some(17_123_456_789)),
            (1, 3, None),
            (4, 1, Some(20_000_000)),
        ] {
            let (run, records) = drive(udp(n, secs), stop, &mut path);
            assert!(records.windows(2).all(|w| w[0].seq + 1 == w[1].seq));
            assert!(records.windows(2).all(|w| w[0].sent <= w[1].sent));
            let s = PumpSummary::of(run.clone());
            let r = reference(run, &records);
            same(&s, &r);
            if stop.is_none() && secs > 10 {
                assert!(s.run.counters.retransmissions > 10);
                assert!(s.run.counters.rfnms_out_of_order > 10);
                assert!(s.best_150_bps.is_some() && !s.histogram.is_empty());
            }
            if n == 8 {
                assert!(
                    s.messages_answered < s.messages_sent,
                    "stopped with some outstanding"
                );
            }
        }
    }

    /// Issue 34 item 5: 200,000 messages through the core and the collector; the core holds at
    /// most the window, the collector nothing over an in-order (TCP-like) path and, over a lossy
    /// one, at most the messages answered while a lost one waits.
    #[test]
    fn live_state_is_bounded_over_200000_messages() {
        let mut cfg = udp(4, 1);
        cfg.transport = PumpTransport::Tcp;
        cfg.duration = Nanos(200_000 * 10_000_000 / 4);
        let (run, records) = drive(cfg.clone(), None, |_, _| Some(10_000_000));
        assert_eq!(run.figures.messages(), 200_000);
        assert_eq!(records.len(), 200_000);
        // The core's bound is asserted message by message in sender.rs; here, the collector's.
        let mut p = Pump::new(cfg.clone()).unwrap();
        let mut c = Collector::new(cfg.duration);
        let (mut now, mut most_core, mut taken) = (0u64, 0usize, 0u64);
        let mut due = std::collections::VecDeque::new();
        let mut finished = Vec::new();
        while taken < 200_000 {
            while let Some(t) = p.poll_transmit(Nanos(now)) {
                due.push_back((now + 10_000_000, t.seq));
            }
            most_core = most_core.max(p.held());
            let (t, seq) = due.pop_front().unwrap();
            now = t;
            p.handle_rfnm(Nanos(now), seq);
            most_core = most_core.max(p.held());
            c.take(&mut p, &mut finished, &mut |_| {
                taken += 1;
                Ok::<(), ()>(())
            })
            .unwrap();
        }
        assert!(most_core <= 4, "{most_core}");
        assert_eq!(c.most_held(), 0);
        // Lossy: 1 in 97 first sendings lost; what waits behind one is bounded by what is
        // answered in a retransmission timeout (≤ 1 s here: 3 slots × 1 s / 10 ms = 300).
        let mut cfg = udp(4, 1);
        cfg.duration = Nanos(200_000 * 10_000_000 / 3);
        let mut p = Pump::new(cfg.clone()).unwrap();
        let mut c = Collector::new(cfg.duration);
        let (mut now, mut most_core, mut taken) = (0u64, 0usize, 0u64);
        let mut due: std::collections::BTreeSet<(u64, u64)> = Default::default();
        while taken < 200_000 {
            p.handle_timeout(Nanos(now));
            while let Some(t) = p.poll_transmit(Nanos(now)) {
                if t.retransmission || !t.seq.is_multiple_of(97) {
                    due.insert((now + 10_000_000, t.seq));
                }
            }
            most_core = most_core.max(p.held());
            let at = [due.first().map(|d| d.0), p.poll_at().map(|t| t.0)]
                .into_iter()
                .flatten()
                .min()
                .unwrap();
            now = now.max(at);
            while due.first().is_some_and(|d| d.0 <= now) {
                let (_, seq) = due.pop_first().unwrap();
                p.handle_rfnm(Nanos(now), seq);
            }
            most_core = most_core.max(p.held());
            c.take(&mut p, &mut finished, &mut |_| {
                taken += 1;
                Ok::<(), ()>(())
            })
            .unwrap();
        }
        assert!(p.counters().retransmissions > 2_000);
        assert!(most_core <= 4, "{most_core}");
        assert!(c.most_held() <= 300, "{}", c.most_held());
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
