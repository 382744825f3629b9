//! Running figures: the pump's statistics kept as its messages finish, in state that does not
//! grow with the length of the run (issue 34, item 5). [`super::analysis::PumpFigures`] puts
//! them together; each here is one statistic that `analysis.rs` used to compute from every
//! message record at the end of the run.
//!
//! | accumulator | what it gives | held | against the whole-record figure |
//! | --- | --- | --- | --- |
//! | [`Sequencer`] | finished messages back in sequence (send) order | the messages answered while an earlier one is still outstanding | the same order |
//! | [`RttMoments`] | count, mean, sd, min, max; median and 95 % from an HDR histogram | sums and a histogram of 3 significant digits | mean, min, max the same bits; sd to rounding (~1e-15); percentiles within 0.1 % |
//! | [`RunningAutocorrelation`] | r(k), k = 1..=max lag | the first and last `max lag` values and `max lag` lagged sums | the same to rounding (~1e-12) |
//! | [`RunningHistogram`] | the histogram at [`stats::round_bin_width`]'s width | a few dozen counts for each of the widths that can still be chosen | the same |
//! | [`RttPlot`] | the points of `rtt.svg` | at most [`RttPlot::BUCKETS`] buckets | every point up to that many messages; past it the least and greatest round trip of each bucket |

use super::sender::MessageRecord;
use nmc_report::stats::{self, Rule};
use std::collections::{BTreeMap, VecDeque};

/// Hands finished messages back in sequence order, which is also send order (the pump stamps
/// sends as it numbers them): `messages.csv` is in send order, as `nmc rto evaluate` needs, and
/// the round-trip series is in message order, as K&O's autocorrelation of successive messages.
///
/// It holds a message only while an earlier one has not finished. Over TCP the RFNMs come back
/// in order on one connection and it holds none; over UDP, a lost message holds back those
/// answered while it waits for its retransmission, at most the messages answered in `--timeout`
/// (after which the run fails), whatever the length of the run.
#[derive(Debug, Clone, Default)]
pub struct Sequencer {
    next: u64,
    waiting: BTreeMap<u64, MessageRecord>,
}

impl Sequencer {
    /// A message finished (answered or given up); each sequence number once.
    pub fn push(&mut self, r: MessageRecord) {
        self.waiting.insert(r.seq, r);
    }

    /// [`Sequencer::push`], and the message straight back if it is the next in order and none
    /// waits (the usual case, without touching the map).
    pub fn offer(&mut self, r: MessageRecord) -> Option<MessageRecord> {
        if self.waiting.is_empty() && r.seq == self.next {
            self.next += 1;
            return Some(r);
        }
        self.push(r);
        self.pop()
    }

    /// The next message in sequence order, once it and every one before it have finished.
    pub fn pop(&mut self) -> Option<MessageRecord> {
        let e = self.waiting.first_entry()?;
        if *e.key() != self.next {
            return None;
        }
        self.next += 1;
        Some(e.remove())
    }

    /// Messages held back, waiting for an earlier one.
    pub fn held(&self) -> usize {
        self.waiting.len()
    }
}

/// Count, mean, standard deviation, extremes and percentiles of round trips (ns), fed one at a
/// time. The mean is summed in ms in the order fed, as the whole-record figure did (the same
/// bits when fed in the same order); the standard deviation comes from exact integer sums of ns
/// and ns²; min and max are exact. The median and the 95th percentile are read from an HDR
/// histogram with 3 significant digits: the value reported is the middle of the histogram's
/// bucket holding the value [`Rule::Round`] picks, within 0.05 % of it (a bucket spans at most
/// 1/1024 of its values; below 2048 ns every ns has its own).
#[derive(Debug, Clone)]
pub struct RttMoments {
    n: u64,
    sum_ms: f64,
    sum_ns: u128,
    sum_sq_ns: u128,
    min: u64,
    max: u64,
    hdr: hdrhistogram::Histogram<u64>,
}

/// Significant digits of the round-trip histogram behind the percentiles.
pub const HDR_SIGNIFICANT_DIGITS: u8 = 3;

impl Default for RttMoments {
    fn default() -> Self {
        RttMoments {
            n: 0,
            sum_ms: 0.0,
            sum_ns: 0,
            sum_sq_ns: 0,
            min: u64::MAX,
            max: 0,
            hdr: hdrhistogram::Histogram::new(HDR_SIGNIFICANT_DIGITS)
                .expect("3 significant digits is a valid HDR histogram"),
        }
    }
}

impl RttMoments {
    /// One round trip, ns.
    pub fn add(&mut self, ns: u64) {
        self.n += 1;
        self.sum_ms += ns as f64 / 1e6;
        self.sum_ns += u128::from(ns);
        self.sum_sq_ns += u128::from(ns) * u128::from(ns);
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
        // Auto-resizing: a value above the range grows it instead of failing.
        let _ = self.hdr.record(ns);
    }

    /// Round trips added.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Mean, ms (the sum of the ms values in the order fed, over the count).
    pub fn mean_ms(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_ms / self.n as f64)
    }

    /// Population standard deviation, ms.
    pub fn sd_ms(&self) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let n = self.n as f64;
        // n·Σx² − (Σx)² exactly when it fits (ns up to ~10^10 and ~10^9 messages), else in f64.
        let spread = u128::from(self.n)
            .checked_mul(self.sum_sq_ns)
            .and_then(|a| {
                self.sum_ns
                    .checked_mul(self.sum_ns)
                    .map(|b| a.saturating_sub(b) as f64)
            })
            .unwrap_or_else(|| (n * self.sum_sq_ns as f64 - (self.sum_ns as f64).powi(2)).max(0.0));
        Some((spread / (n * n)).sqrt() / 1e6)
    }

    /// Least round trip, ns.
    pub fn min_ns(&self) -> Option<u64> {
        (self.n > 0).then_some(self.min)
    }

    /// Greatest round trip, ns.
    pub fn max_ns(&self) -> Option<u64> {
        (self.n > 0).then_some(self.max)
    }

    /// The `p` percentile (`p` in `[0, 1]`) under [`Rule::Round`], ns, to the histogram's
    /// precision (see the type's documentation).
    pub fn percentile_ns(&self, p: f64) -> Option<u64> {
        let (k, _) = stats::percentile_position(self.n as usize, p, Rule::Round)?;
        let mut below = 0u64;
        for v in self.hdr.iter_recorded() {
            below += v.count_since_last_iteration();
            if below > k as u64 {
                let at = self.hdr.median_equivalent(v.value_iterated_to());
                return Some(at.clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }
}

/// [`stats::autocorrelation`] of a series fed one value at a time, in order. It keeps the first
/// and the last `max_lag` values, the sums of the values and of their squares, and for each lag
/// k the sum of products of values k apart; r(k) is rebuilt from these by expanding
/// Σ(x_i − x̄)(x_{i+k} − x̄). Values are taken relative to the first one (r(k) does not change
/// when a constant is taken off), which keeps the sums small and the cancellation mild.
#[derive(Debug, Clone)]
pub struct RunningAutocorrelation {
    max_lag: usize,
    n: usize,
    origin: f64,
    sum: f64,
    sum_sq: f64,
    /// `lagged[k − 1]`: Σ y_i · y_{i+k}.
    lagged: Vec<f64>,
    first: Vec<f64>,
    last: VecDeque<f64>,
}

impl RunningAutocorrelation {
    /// For lags 1..=`max_lag`.
    pub fn new(max_lag: usize) -> Self {
        RunningAutocorrelation {
            max_lag,
            n: 0,
            origin: 0.0,
            sum: 0.0,
            sum_sq: 0.0,
            lagged: vec![0.0; max_lag],
            first: Vec::with_capacity(max_lag),
            last: VecDeque::with_capacity(max_lag + 1),
        }
    }

    /// The next value of the series.
    pub fn add(&mut self, x: f64) {
        if self.n == 0 {
            self.origin = x;
        }
        let y = x - self.origin;
        self.n += 1;
        self.sum += y;
        self.sum_sq += y * y;
        for (k, prev) in self.last.iter().rev().enumerate() {
            self.lagged[k] += prev * y;
        }
        if self.first.len() < self.max_lag {
            self.first.push(y);
        }
        self.last.push_back(y);
        if self.last.len() > self.max_lag {
            self.last.pop_front();
        }
    }

    /// Values added.
    pub fn count(&self) -> usize {
        self.n
    }

    /// What [`stats::autocorrelation`]`(series, max_lag)` gives, to rounding: (lag, r) for lags
    /// 1..=min(max_lag, n − 1); empty for fewer than 3 values.
    pub fn coefficients(&self) -> Vec<(usize, f64)> {
        let n = self.n;
        if n < 3 {
            return Vec::new();
        }
        let nf = n as f64;
        let mean = self.sum / nf;
        let var = (self.sum_sq - self.sum * mean).max(0.0);
        let mut head = 0.0;
        let mut tail = 0.0;
        (1..=self.max_lag.min(n - 1))
            .map(|k| {
                head += self.first[k - 1];
                tail += self.last[self.last.len() - k];
                // Σ_{i<n−k} y_i = S − (last k); Σ_{i≥k} y_i = S − (first k).
                let c = self.lagged[k - 1] - mean * ((self.sum - tail) + (self.sum - head))
                    + (n - k) as f64 * mean * mean;
                (k, if var > 0.0 { c / var } else { 0.0 })
            })
            .collect()
    }
}

/// [`stats::histogram`] of a series at [`stats::round_bin_width`]`(series, bins)`, kept as the
/// values come although the width depends on the largest value, not known until the end.
///
/// The width chosen is `m · 10^e` with m one of 1, 2, 5, 10, and at least a `bins`-th of the
/// largest value. So the histogram is kept at every such width still possible: a width below a
/// `bins`-th of the largest value so far can no longer be chosen and is dropped; one more than
/// twice the largest value so far has every value in its first bin and needs only the count.
/// About eight widths are counted at a time, each in at most `bins` + 1 bins, and each bin is
/// the same floating-point division as [`stats::histogram`]'s: the same counts, exactly.
#[derive(Debug, Clone)]
pub struct RunningHistogram {
    bins: usize,
    /// Finite values added.
    n: u64,
    /// The largest finite value so far, from 0 (as [`stats::round_bin_width`] folds it).
    max: f64,
    levels: Vec<Level>,
    /// The levels counted now (what `add` visits), updated when the largest value grows.
    counted: Vec<usize>,
}

#[derive(Debug, Clone)]
struct Level {
    width: f64,
    state: LevelState,
}

#[derive(Debug, Clone)]
enum LevelState {
    /// Every value so far is below half the width: all in bin 0.
    Lazy,
    Counted(Vec<u64>),
    /// Narrower than a `bins`-th of the largest value: never chosen.
    Dropped,
}

/// Decimal exponents of the widths kept, in the unit of the values (ms for the pump: 10⁻¹² ms to
/// 10¹² ms).
const EXPONENTS: std::ops::RangeInclusive<i32> = -12..=12;

impl RunningHistogram {
    /// About `bins` bins between 0 and the largest value (the pump's [`super::analysis::HISTOGRAM_BINS`]).
    pub fn new(bins: usize) -> Self {
        let mut levels = Vec::new();
        for e in EXPONENTS {
            // As `round_bin_width` computes it: m × 10^e.
            let p = 10f64.powf(e as f64);
            for m in [1.0, 2.0, 5.0, 10.0] {
                levels.push(Level {
                    width: m * p,
                    state: LevelState::Lazy,
                });
            }
        }
        RunningHistogram {
            bins,
            n: 0,
            max: 0.0,
            levels,
            counted: Vec::new(),
        }
    }

    /// The next value (non-finite values are left out, as [`stats::histogram`] leaves them).
    pub fn add(&mut self, v: f64) {
        if !v.is_finite() {
            return;
        }
        if v > self.max {
            self.max = v;
            let floor = v / self.bins.max(1) as f64;
            for l in &mut self.levels {
                match l.state {
                    LevelState::Dropped => {}
                    _ if l.width < floor => l.state = LevelState::Dropped,
                    LevelState::Lazy if l.width <= 2.0 * v => {
                        // Every earlier value was at most the old largest, below half the width.
                        l.state =
                            LevelState::Counted(if self.n > 0 { vec![self.n] } else { vec![] })
                    }
                    _ => {}
                }
            }
            self.counted = (0..self.levels.len())
                .filter(|&i| matches!(self.levels[i].state, LevelState::Counted(_)))
                .collect();
        }
        self.n += 1;
        for &i in &self.counted {
            let l = &mut self.levels[i];
            if let LevelState::Counted(counts) = &mut l.state {
                let k = (v / l.width).floor().max(0.0) as usize;
                if counts.len() <= k {
                    counts.resize(k + 1, 0);
                }
                counts[k] += 1;
            }
        }
    }

    /// The width [`stats::round_bin_width`] gives for the values added.
    pub fn width(&self) -> f64 {
        stats::round_bin_width(&[self.max], self.bins)
    }

    /// (bin centre, count), empty bins left out: [`stats::histogram`] at [`Self::width`].
    pub fn bins(&self) -> Vec<(f64, f64)> {
        let width = self.width();
        let Some(level) = self
            .levels
            .iter()
            .find(|l| l.width.to_bits() == width.to_bits())
        else {
            // A largest value beyond 10^12 units: not a round trip a run can measure.
            return Vec::new();
        };
        match &level.state {
            LevelState::Lazy if self.n > 0 => vec![(0.5 * width, self.n as f64)],
            LevelState::Counted(counts) => counts
                .iter()
                .enumerate()
                .filter(|(_, c)| **c > 0)
                .map(|(k, c)| ((k as f64 + 0.5) * width, *c as f64))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The points of the round-trip-per-message plot, (sequence number, round trip), fed in
/// sequence order. Up to [`Self::BUCKETS`] answered messages every one is kept; past that the
/// messages are grouped in buckets of consecutive sequence numbers, twice as wide each time
/// they would exceed it, and each bucket keeps its least and greatest round trip, so the plot's
/// envelope is the same and its size bounded.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RttPlot {
    /// Sequence numbers a bucket spans.
    span: u64,
    buckets: Vec<Bucket>,
    first: Option<f64>,
    last: Option<f64>,
}

#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Bucket {
    index: u64,
    low: (f64, f64),
    high: (f64, f64),
}

impl Default for RttPlot {
    fn default() -> Self {
        RttPlot {
            span: 1,
            buckets: Vec::new(),
            first: None,
            last: None,
        }
    }
}

impl RttPlot {
    /// Buckets kept at most. **Choice**: 10,000 (at most 20,000 points in `rtt.svg`).
    pub const BUCKETS: usize = 10_000;

    /// The next answered message's round trip, ms (sequence numbers increasing).
    pub fn add(&mut self, seq: u64, ms: f64) {
        let p = (seq as f64, ms);
        self.first.get_or_insert(p.0);
        self.last = Some(p.0);
        let index = seq / self.span;
        match self.buckets.last_mut() {
            Some(b) if b.index == index => {
                if ms < b.low.1 {
                    b.low = p;
                }
                if ms > b.high.1 {
                    b.high = p;
                }
            }
            _ => {
                self.buckets.push(Bucket {
                    index,
                    low: p,
                    high: p,
                });
                if self.buckets.len() > Self::BUCKETS {
                    self.widen();
                }
            }
        }
    }

    fn widen(&mut self) {
        self.span *= 2;
        let mut merged: Vec<Bucket> = Vec::with_capacity(Self::BUCKETS / 2 + 1);
        for mut b in self.buckets.drain(..) {
            b.index /= 2;
            match merged.last_mut() {
                Some(m) if m.index == b.index => {
                    if b.low.1 < m.low.1 {
                        m.low = b.low;
                    }
                    if b.high.1 > m.high.1 {
                        m.high = b.high;
                    }
                }
                _ => merged.push(b),
            }
        }
        self.buckets = merged;
    }

    /// The sequence numbers of the first and last answered messages.
    pub fn extent(&self) -> Option<(f64, f64)> {
        Some((self.first?, self.last?))
    }

    /// The points, in sequence order: every answered message's while one bucket is one message,
    /// else each bucket's least and greatest round trip.
    pub fn points(&self) -> Vec<(f64, f64)> {
        let mut out = Vec::with_capacity(2 * self.buckets.len());
        for b in &self.buckets {
            let (a, c) = if b.low.0 <= b.high.0 {
                (b.low, b.high)
            } else {
                (b.high, b.low)
            };
            out.push(a);
            if c.0 != a.0 {
                out.push(c);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A round-trip-like series: a base with drifts, bursts and exact bin edges.
    fn series(n: usize, seed: u64) -> Vec<u64> {
        let mut x = seed;
        (0..n)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let r = x >> 33;
                let base = 20_000 + (i as u64 % 50) * 300 + r % 5_000;
                match r % 13 {
                    0 => base * 40,
                    1 => (base / 10_000) * 10_000, // on a bin edge
                    _ => base,
                }
            })
            .collect()
    }

    #[test]
    fn histogram_is_the_whole_series_histogram() {
        for (n, seed) in [(0, 1), (1, 2), (2, 3), (57, 4), (5_000, 5), (40_000, 6)] {
            let ns = series(n, seed);
            let ms: Vec<f64> = ns.iter().map(|&v| v as f64 / 1e6).collect();
            let mut h = RunningHistogram::new(40);
            for &v in &ms {
                h.add(v);
            }
            let w = stats::round_bin_width(&ms, 40);
            assert_eq!(h.width().to_bits(), w.to_bits(), "{n}");
            assert_eq!(h.bins(), stats::histogram(&ms, w), "{n}");
        }
        // All zero: width 1, one bin.
        let mut h = RunningHistogram::new(40);
        h.add(0.0);
        h.add(0.0);
        assert_eq!(h.bins(), stats::histogram(&[0.0, 0.0], 1.0));
        // Growing by decades: widths dropped and taken up on the way.
        let grow: Vec<f64> = (0..60).map(|i| 1e-4 * 1.5f64.powi(i)).collect();
        let mut h = RunningHistogram::new(40);
        grow.iter().for_each(|&v| h.add(v));
        let w = stats::round_bin_width(&grow, 40);
        assert_eq!(h.bins(), stats::histogram(&grow, w));
    }

    #[test]
    fn autocorrelation_is_the_whole_series_autocorrelation() {
        for n in [0, 1, 2, 3, 5, 21, 22, 1_000] {
            let x: Vec<f64> = series(n, n as u64)
                .iter()
                .map(|&v| v as f64 / 1e6)
                .collect();
            let mut a = RunningAutocorrelation::new(20);
            x.iter().for_each(|&v| a.add(v));
            let want = stats::autocorrelation(&x, 20);
            let got = a.coefficients();
            assert_eq!(got.len(), want.len(), "{n}");
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g.0, w.0);
                assert!((g.1 - w.1).abs() < 1e-9, "{n}: lag {} {} {}", g.0, g.1, w.1);
            }
        }
        let mut a = RunningAutocorrelation::new(3);
        (0..10).for_each(|_| a.add(2.0));
        assert!(a.coefficients().iter().all(|(_, r)| *r == 0.0));
    }

    #[test]
    fn moments_and_percentiles() {
        let ns = series(20_001, 9);
        let mut m = RttMoments::default();
        ns.iter().for_each(|&v| m.add(v));
        let ms: Vec<f64> = ns.iter().map(|&v| v as f64 / 1e6).collect();
        let mut sorted = ms.clone();
        sorted.sort_by(f64::total_cmp);
        let mean = ms.iter().sum::<f64>() / ms.len() as f64;
        assert_eq!(m.mean_ms().unwrap().to_bits(), mean.to_bits());
        let sd = (ms.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / ms.len() as f64).sqrt();
        assert!((m.sd_ms().unwrap() - sd).abs() <= 1e-12 * sd);
        for p in [0.0, 0.5, 0.95, 1.0] {
            let want = stats::percentile(&sorted, p, Rule::Round).unwrap();
            let got = m.percentile_ns(p).unwrap() as f64 / 1e6;
            assert!((got - want).abs() <= 5e-4 * want, "{p}: {got} {want}");
        }
        assert_eq!(m.min_ns(), ns.iter().copied().min());
        assert_eq!(m.max_ns(), ns.iter().copied().max());
        assert_eq!(RttMoments::default().percentile_ns(0.5), None);
    }

    #[test]
    fn plot_keeps_every_point_then_the_envelope() {
        let mut p = RttPlot::default();
        for s in 0..100u64 {
            p.add(s, s as f64 % 7.0);
        }
        let want: Vec<(f64, f64)> = (0..100).map(|s| (s as f64, s as f64 % 7.0)).collect();
        assert_eq!(p.points(), want);
        let mut p = RttPlot::default();
        for s in 0..1_000_000u64 {
            p.add(s, if s == 777_777 { 1e3 } else { (s % 10) as f64 });
        }
        let pts = p.points();
        assert!(pts.len() <= 2 * RttPlot::BUCKETS, "{}", pts.len());
        assert!(pts.contains(&(777_777.0, 1e3)));
        assert!(pts.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(p.extent(), Some((0.0, 999_999.0)));
    }

    #[test]
    fn sequencer_puts_messages_back_in_order() {
        let rec = |seq| MessageRecord {
            seq,
            bytes: 1,
            sent: crate::time::Nanos(seq),
            rfnm: None,
            transmissions: 1,
        };
        let mut s = Sequencer::default();
        assert_eq!(s.offer(rec(1)), None);
        s.push(rec(2));
        assert_eq!((s.pop(), s.held()), (None, 2));
        assert_eq!(s.offer(rec(0)).map(|r| r.seq), Some(0));
        let got: Vec<u64> = std::iter::from_fn(|| s.pop()).map(|r| r.seq).collect();
        assert_eq!(got, vec![1, 2]);
        assert_eq!(s.offer(rec(3)).map(|r| r.seq), Some(3));
        assert_eq!(s.held(), 0);
    }
}
