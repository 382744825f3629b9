//! Statistics of a pumped series that more than one instrument reports: the best block of
//! consecutive messages, the autocorrelation of successive round trips and its significant lags,
//! and a histogram. Pure functions over numbers; no record types, so that the simulated pump
//! (`nmc-imp`) and the real one (`nmc-probe`'s `pump`) can share them.
//!
//! The definitions are Kleinrock & Opderbeck's (1977) §IV: "the throughput for the best block of
//! 150 successive messages" (Fig. 3, curve B), the "histogram for delay" (Fig. 5) and "the
//! autocorrelation coefficient of round-trip delay for successive messages" (Fig. 6).
//!
//! `nmc-imp`'s `analysis` uses these for the simulated pump.
//!
//! It also holds the workspace's one percentile ([`percentile`], [`percentile_position`]): every
//! median, p95 and p99 nmc reports is read from sorted values by one of the [`Rule`]s documented
//! there, and each caller names the rule it has always used, so no figure moved when the copies
//! were merged.

use std::collections::BTreeMap;

/// K&O's block: "the best block of 150 successive messages" (§IV, Fig. 3 curve B).
pub const BEST_BLOCK: usize = 150;

/// The highest rate, bit/s, over any `block` consecutive completions. `done` is (completion time
/// in ns, bits) in any order; it is sorted by time, and each block is timed from the completion
/// before it to its last completion (so a block of `block` messages spans `block` intervals).
/// `None` when there are not more than `block` completions or `block` is 0.
pub fn best_block_bps(done: &[(u64, u64)], block: usize) -> Option<f64> {
    if block == 0 || done.len() <= block {
        return None;
    }
    let mut done = done.to_vec();
    done.sort_by_key(|d| d.0);
    let mut bits: u64 = done[1..=block].iter().map(|d| d.1).sum();
    let mut best = 0.0f64;
    for k in 0..done.len() - block {
        if k > 0 {
            bits = bits - done[k].1 + done[k + block].1;
        }
        let span = (done[k + block].0 - done[k].0) as f64 / 1e9;
        if span > 0.0 {
            best = best.max(bits as f64 / span);
        }
    }
    Some(best)
}

/// [`best_block_bps`] kept as the completions come, in time order (ties in the order
/// `best_block_bps`' stable sort leaves them): the window of the last `block` + 1 completions, so
/// that a run need not keep them all. The same value, to the bit.
#[derive(Clone, Debug)]
pub struct BestBlock {
    block: usize,
    window: std::collections::VecDeque<(u64, u64)>,
    /// Bits of the window but its first completion.
    bits: u64,
    seen: usize,
    best: f64,
}

impl BestBlock {
    /// An empty tracker of the best run of `block` consecutive completions ([`BEST_BLOCK`] for
    /// K&O's 150).
    pub fn new(block: usize) -> Self {
        BestBlock {
            block,
            window: Default::default(),
            bits: 0,
            seen: 0,
            best: 0.0,
        }
    }

    /// The next completion: (time in ns, no earlier than the last one's; bits).
    pub fn add(&mut self, t: u64, bits: u64) {
        self.seen += 1;
        self.window.push_back((t, bits));
        if self.window.len() > 1 {
            self.bits += bits;
        }
        if self.window.len() > self.block + 1 {
            self.window.pop_front();
            self.bits -= self.window[0].1;
        }
        if self.window.len() == self.block + 1 {
            let span = (t - self.window[0].0) as f64 / 1e9;
            if span > 0.0 {
                self.best = self.best.max(self.bits as f64 / span);
            }
        }
    }

    /// What [`best_block_bps`] gives for the completions added.
    pub fn bps(&self) -> Option<f64> {
        (self.block > 0 && self.seen > self.block).then_some(self.best)
    }
}

/// Autocorrelation coefficient r(k) of a series at lags 1..=max_lag (the sample estimate
/// Σ(x_i − x̄)(x_{i+k} − x̄) / Σ(x_i − x̄)²). Empty for fewer than 3 values.
pub fn autocorrelation(x: &[f64], max_lag: usize) -> Vec<(usize, f64)> {
    let n = x.len();
    if n < 3 {
        return Vec::new();
    }
    let mean = x.iter().sum::<f64>() / n as f64;
    let var: f64 = x.iter().map(|v| (v - mean).powi(2)).sum();
    (1..=max_lag.min(n - 1))
        .map(|k| {
            let c: f64 = (0..n - k).map(|i| (x[i] - mean) * (x[i + k] - mean)).sum();
            (k, if var > 0.0 { c / var } else { 0.0 })
        })
        .collect()
}

/// The approximate 95 % band ±1.96/√n of an autocorrelation estimate for an uncorrelated series
/// of n values (Box & Jenkins, *Time Series Analysis*, 1970, §2.1.6).
pub fn autocorrelation_band(n: usize) -> f64 {
    1.96 / (n.max(1) as f64).sqrt()
}

/// The lags whose coefficient lies outside the 95 % band for a series of `n` values.
pub fn significant_lags(acf: &[(usize, f64)], n: usize) -> Vec<usize> {
    let band = autocorrelation_band(n);
    acf.iter()
        .filter(|(_, r)| r.abs() > band)
        .map(|(k, _)| *k)
        .collect()
}

/// Histogram of `x` in bins of `width` starting at 0: (bin centre, count), empty bins left out.
pub fn histogram(x: &[f64], width: f64) -> Vec<(f64, f64)> {
    let mut bins: BTreeMap<u64, u64> = BTreeMap::new();
    if width.is_nan() || width <= 0.0 {
        return Vec::new();
    }
    for &v in x.iter().filter(|v| v.is_finite()) {
        *bins.entry((v / width).floor().max(0.0) as u64).or_default() += 1;
    }
    bins.into_iter()
        .map(|(k, n)| ((k as f64 + 0.5) * width, n as f64))
        .collect()
}

/// How a percentile is read from `n` sorted values `x[0] ≤ … ≤ x[n−1]`, for a fraction `p` in
/// `[0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// No interpolation: the value at the rounded position, `x[round((n − 1)·p)]` (halves round
    /// away from zero, so p = 0.5 of an even count is the upper of the two middle values). The
    /// simulated pump's round-trip percentiles (`nmc-imp`), K&O looping statistics
    /// (`nmc-experiments`), `nmc pump`'s report and the probe's clock-reading cost use it.
    Round,
    /// Nearest rank: the smallest value with at least p·n values at or below it,
    /// `x[⌈p·n⌉ − 1]` (the rank clamped to `1..=n`). The echo probe's delay statistics use it.
    NearestRank,
    /// Linear interpolation between the two values around position `h = (n − 1)·p`:
    /// `x[⌊h⌋]·(1 − f) + x[⌊h⌋ + 1]·f` with `f = h − ⌊h⌋` (Hyndman & Fan's type 7, R's and
    /// NumPy's default). For p = 0.5 the textbook median, the mean of the two middle values of an
    /// even count. `nmc bench`'s median time uses it.
    Linear,
}

/// Where the `p` percentile of `n` sorted values lies under `rule`: the index of the lower value
/// and the fraction of the way to the next one (always 0 for [`Rule::Round`] and
/// [`Rule::NearestRank`]). `None` when `n` is 0. The index is at most `n − 1`.
pub fn percentile_position(n: usize, p: f64, rule: Rule) -> Option<(usize, f64)> {
    if n == 0 {
        return None;
    }
    Some(match rule {
        Rule::Round => ((((n - 1) as f64 * p).round() as usize).min(n - 1), 0.0),
        Rule::NearestRank => (((p * n as f64).ceil() as usize).clamp(1, n) - 1, 0.0),
        Rule::Linear => {
            let h = (n - 1) as f64 * p;
            let k = (h.floor().max(0.0) as usize).min(n - 1);
            (k, if k + 1 < n { h - k as f64 } else { 0.0 })
        }
    })
}

/// The `p` percentile (`p` in `[0, 1]`) of `sorted` (ascending) under `rule`; `None` when empty.
/// See [`Rule`] for the definitions.
pub fn percentile(sorted: &[f64], p: f64, rule: Rule) -> Option<f64> {
    let (k, f) = percentile_position(sorted.len(), p, rule)?;
    Some(if f == 0.0 {
        sorted[k]
    } else {
        sorted[k] * (1.0 - f) + sorted[k + 1] * f
    })
}

/// A bin width for a histogram of `x`: a round number (1, 2 or 5 × 10^k) giving about `bins`
/// bins between 0 and the largest value.
pub fn round_bin_width(x: &[f64], bins: usize) -> f64 {
    let max = x
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    if max <= 0.0 || bins == 0 {
        return 1.0;
    }
    let raw = max / bins as f64;
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|w| *w >= raw)
        .unwrap_or(10.0 * p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_block_kept_as_they_come_is_best_block_bps() {
        // Uneven gaps and sizes, with ties in time; fed in the order the sort leaves them.
        let mut done: Vec<(u64, u64)> = (0..400u64)
            .map(|i| ((i * 7_919 % 1_000) * 1_000_000 + i / 3, 1_000 + i % 17 * 64))
            .collect();
        for block in [0, 1, 5, 150, 399, 400] {
            let want = best_block_bps(&done, block);
            done.sort_by_key(|d| d.0);
            let mut b = BestBlock::new(block);
            for &(t, bits) in &done {
                b.add(t, bits);
            }
            assert_eq!(b.bps().map(f64::to_bits), want.map(f64::to_bits), "{block}");
        }
    }

    #[test]
    fn percentile_rules() {
        let x = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&x, 0.5, Rule::Round), Some(3.0));
        assert_eq!(percentile(&x, 0.5, Rule::NearestRank), Some(2.0));
        assert_eq!(percentile(&x, 0.5, Rule::Linear), Some(2.5));
        assert_eq!(percentile(&x, 0.95, Rule::Round), Some(4.0));
        assert_eq!(percentile(&x, 0.95, Rule::NearestRank), Some(4.0));
        assert_eq!(percentile(&x, 0.25, Rule::Linear), Some(1.75));
        for rule in [Rule::Round, Rule::NearestRank, Rule::Linear] {
            assert_eq!(percentile(&x, 0.0, rule), Some(1.0));
            assert_eq!(percentile(&x, 1.0, rule), Some(4.0));
            assert_eq!(percentile(&[7.0], 0.5, rule), Some(7.0));
            assert_eq!(percentile(&[], 0.5, rule), None);
        }
        // The mean of the two middle values, bit for bit.
        let (a, b) = (0.1, 0.7);
        assert_eq!(percentile(&[a, b], 0.5, Rule::Linear), Some((a + b) / 2.0));
        assert_eq!(percentile_position(10, 0.99, Rule::Round), Some((9, 0.0)));
        assert_eq!(
            percentile_position(100, 0.95, Rule::NearestRank),
            Some((94, 0.0))
        );
    }

    #[test]
    fn best_block_is_the_fastest_window() {
        // 1000 bits every 10 ms, then a burst of 3 completions 1 ms apart.
        let mut done: Vec<(u64, u64)> = (0..10).map(|i| (i * 10_000_000, 1000)).collect();
        done.extend([(91_000_000, 1000), (92_000_000, 1000), (93_000_000, 1000)]);
        // Block of 3 after t=90 ms: 3000 bits in 3 ms.
        let best = best_block_bps(&done, 3).unwrap();
        assert!((best - 1e6).abs() < 1.0, "{best}");
        assert_eq!(best_block_bps(&done[..3], 3), None);
        assert_eq!(best_block_bps(&done, 0), None);
    }

    #[test]
    fn autocorrelation_of_alternating_series_is_minus_one_at_lag_1() {
        let x: Vec<f64> = (0..200)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let r = autocorrelation(&x, 3);
        assert!((r[0].1 + 1.0).abs() < 0.01, "{r:?}");
        assert!((r[1].1 - 1.0).abs() < 0.02, "{r:?}");
        assert_eq!(significant_lags(&r, x.len()), vec![1, 2, 3]);
        // A constant series has no correlation to speak of.
        assert!(
            autocorrelation(&[2.0; 10], 2)
                .iter()
                .all(|(_, r)| *r == 0.0)
        );
    }

    #[test]
    fn histogram_and_bin_width() {
        let h = histogram(&[0.5, 1.5, 1.7, 9.0], 1.0);
        assert_eq!(h, vec![(0.5, 1.0), (1.5, 2.0), (9.5, 1.0)]);
        assert_eq!(round_bin_width(&[0.0, 100.0], 40), 5.0);
        assert_eq!(round_bin_width(&[0.0, 130.0], 40), 5.0);
        assert_eq!(round_bin_width(&[], 40), 1.0);
    }
}
