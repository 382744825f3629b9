//! What the NMC computed from the pump's records (K&O §IV): throughput over the run and over
//! the best block of 150 consecutive messages, round-trip statistics and histogram, and the
//! autocorrelation of successive round trips.
//!
//! Definitions used here (the paper does not spell them out):
//! * a message's **round trip** is from the moment the host has handed the whole message to the
//!   source IMP (its output completes) until the RFNM is back: "delay (as seen by the UCLA
//!   HOST)" (K&O §I), timed as a host times an I/O operation. The time from when the host
//!   *starts* the message (which includes waiting behind the previous message in the source
//!   IMP and for a message number) is kept too, as `rtt_from_offer`;
//! * **throughput** is the data bits of messages whose RFNM came back during the run, divided by
//!   the run's length;
//! * the **best 150** is the highest rate over any 150 consecutive messages, measured between
//!   the RFNM before the block and the RFNM of its last message.

use crate::metric::{ImpMetrics, PairMetrics, RttSummary};
use crate::observe::{MessageRecord, Occupancy};
use nmc_sim::SimDuration;
use std::collections::BTreeMap;

pub(crate) use nmc_records::stats::BEST_BLOCK;

/// Round trips in ms (accepted → RFNM), in message order, of the messages whose RFNM came back.
pub fn round_trips_ms(msgs: &[MessageRecord]) -> Vec<f64> {
    msgs.iter()
        .filter_map(|m| Some((m.rfnm_ns? - m.accepted_ns?) as f64 / 1e6))
        .collect()
}

/// Times in ms from the host starting a message to its RFNM.
pub(crate) fn offer_to_rfnm_ms(msgs: &[MessageRecord]) -> Vec<f64> {
    msgs.iter()
        .filter_map(|m| m.rfnm_ns.map(|r| (r - m.offered_ns) as f64 / 1e6))
        .collect()
}

/// Throughput (kbit/s) of the best block of `block` consecutive messages, if there are enough.
/// Consecutive in the order their RFNMs came back (with several sources, message ids are not).
pub(crate) fn best_block_kbps(msgs: &[MessageRecord], block: usize) -> Option<f64> {
    let done: Vec<(u64, u64)> = msgs
        .iter()
        .filter_map(|m| m.rfnm_ns.map(|r| (r, m.bits)))
        .collect();
    nmc_records::stats::best_block_bps(&done, block).map(|b| b / 1e3)
}

/// Throughput (kbit/s) in bins of `bin` seconds by the time the RFNMs came back, from 0 to
/// `until` seconds: (bin centre in s, kbit/s).
pub fn throughput_series(msgs: &[MessageRecord], bin: f64, until: f64) -> Vec<(f64, f64)> {
    let n = (until / bin).ceil().max(0.0) as usize;
    let mut bits = vec![0u64; n];
    for m in msgs {
        if let Some(k) = m.rfnm_ns.map(|t| (t as f64 / 1e9 / bin) as usize)
            && k < n
        {
            bits[k] += m.bits;
        }
    }
    bits.iter()
        .enumerate()
        .map(|(k, &b)| ((k as f64 + 0.5) * bin, b as f64 / bin / 1e3))
        .collect()
}

// K&O §IV's statistics, shared with the real pump (`nmc pump`).
use nmc_records::stats::{Rule, percentile, percentile_position};
pub use nmc_records::stats::{autocorrelation, autocorrelation_band, histogram};

/// Adds the message and occupancy metrics of a run of length `duration` to `m`: completed messages,
/// throughput, the best 150, round-trip mean and percentiles, the mean time a message holds its
/// number, round trips from the offer, the round trips' autocorrelation to lag 10, occupancy means
/// and the fraction of RFNMs that carried an ALL. `msgs` and `occ` are the measured period's.
pub(crate) fn add_metrics(
    m: &mut ImpMetrics,
    msgs: &[MessageRecord],
    occ: &[Occupancy],
    duration: SimDuration,
) {
    let secs = duration.as_secs_f64();
    let done: Vec<&MessageRecord> = msgs.iter().filter(|r| r.rfnm_ns.is_some()).collect();
    let bits: u64 = done.iter().map(|r| r.bits).sum();
    m.pair.completed = done.len() as u64;
    m.pair.throughput_kbps = bits as f64 / secs / 1e3;
    if let Some(b) = best_block_kbps(msgs, BEST_BLOCK) {
        m.pair.best150_kbps = Some(b);
    }
    let rtt = round_trips_ms(msgs);
    if !rtt.is_empty() {
        let mut sorted = rtt.clone();
        sorted.sort_by(f64::total_cmp);
        let pct = |p: f64| percentile(&sorted, p, Rule::Round).expect("non-empty");
        m.pair.rtt = Some(RttSummary {
            mean_ms: rtt.iter().sum::<f64>() / rtt.len() as f64,
            p50_ms: pct(0.5),
            p95_ms: pct(0.95),
            max_ms: *sorted.last().expect("non-empty"),
            min_ms: sorted[0],
        });
    }
    // How long a message holds its message number: taken (point b) until the RFNM frees it.
    let cycle: Vec<f64> = msgs
        .iter()
        .filter_map(|m| Some((m.rfnm_ns? - m.numbered_ns?) as f64 / 1e6))
        .collect();
    if !cycle.is_empty() {
        m.pair.cycle_mean_ms = Some(cycle.iter().sum::<f64>() / cycle.len() as f64);
    }
    let from_offer = offer_to_rfnm_ms(msgs);
    if !from_offer.is_empty() {
        m.pair.rtt_from_offer_mean_ms =
            Some(from_offer.iter().sum::<f64>() / from_offer.len() as f64);
    }
    for (k, r) in autocorrelation(&rtt, 10) {
        m.pair.rtt_autocorrelation.insert(k as u32, r);
    }
    if !occ.is_empty() {
        let n = occ.len() as f64;
        m.occupancy_means = Some(std::array::from_fn(|k| {
            occ.iter().map(|o| o.counts()[k] as f64).sum::<f64>() / n
        }));
    }
    let with_all = done
        .iter()
        .filter(|r| r.rfnm_carried_all == Some(true))
        .count();
    if !done.is_empty() {
        m.pair.rfnm_with_all_fraction = Some(with_all as f64 / done.len() as f64);
    }
}

/// What hosts saw of a run made outside the model (the emulated IMPs of `[network.program]`,
/// issue 73 §3): the measured pair's records and every message's count.
#[derive(Clone, Copy, Debug, Default)]
pub struct ObservedTally {
    /// Messages the hosts offered.
    pub offered: u64,
    /// Messages that reached their destination host (a fake host's are not seen: counted at
    /// their RFNM).
    pub delivered: u64,
    /// Messages answered by a RFNM.
    pub answered: u64,
    /// Messages still in the subnet at the end: not yet delivered, and not given up.
    pub in_flight: u64,
}

/// The figures the model gives a run ([`ImpMetrics`], `summary.json`'s names), from records
/// made outside it: the measured pair's message records `msgs` (those whose RFNM came back at
/// or after `from` count, over `duration`, as the model's `finish` takes them) and `tally`.
/// The same code as the model's (`add_metrics`): a figure the records cannot give (a
/// message's number, its RFNM's ALL) is left out, not guessed.
pub fn observed_metrics(
    msgs: &[MessageRecord],
    from: SimDuration,
    duration: SimDuration,
    tally: ObservedTally,
    hops: Option<u32>,
) -> ImpMetrics {
    let from_ns = from.as_nanos();
    let measured: Vec<MessageRecord> = msgs
        .iter()
        .filter(|r| r.rfnm_ns.is_some_and(|t| t >= from_ns))
        .cloned()
        .collect();
    let mut m = ImpMetrics::default();
    let span = SimDuration::from_nanos(duration.as_nanos().saturating_sub(from_ns));
    add_metrics(&mut m, &measured, &[], span);
    // Whether a RFNM carried an ALL is inside the IMPs: not seen, so not a fraction of 0.
    m.pair.rfnm_with_all_fraction = None;
    m.messages = crate::metric::MessageTally {
        offered: tally.offered,
        delivered: tally.delivered,
        answered: tally.answered,
        in_flight: tally.in_flight,
        lost: tally.offered as f64 - tally.delivered as f64 - tally.in_flight as f64,
        retransmissions: 0.0,
    };
    m.hops = hops;
    m
}

/// The columns of a message record (`messages.csv`) that `add_metrics` reads.
#[derive(Clone, Copy, Debug, serde::Deserialize)]
pub struct MetricRow {
    /// Its length, data bits.
    pub(crate) bits: u64,
    /// The host starts putting packet 1 into the source IMP, ns.
    pub(crate) offered_ns: u64,
    /// The message took the number it travels with (point b), ns.
    pub(crate) numbered_ns: Option<u64>,
    /// The last packet is in the source IMP, ns.
    pub accepted_ns: Option<u64>,
    /// The RFNM reached the source host (point h), ns.
    pub rfnm_ns: Option<u64>,
    /// Whether the RFNM carried a piggy-backed ALL.
    pub(crate) rfnm_carried_all: Option<bool>,
}

impl From<&MessageRecord> for MetricRow {
    fn from(r: &MessageRecord) -> Self {
        MetricRow {
            bits: r.bits,
            offered_ns: r.offered_ns,
            numbered_ns: r.numbered_ns,
            accepted_ns: r.accepted_ns,
            rfnm_ns: r.rfnm_ns,
            rfnm_carried_all: r.rfnm_carried_all,
        }
    }
}

/// The message metrics of [`add_metrics`], to the bit, from rows that are not held: `rows()`
/// yields the messages afresh, in message order (as `messages.csv` holds them), and is read
/// three times; only those whose RFNM came back at or after `from_ns` count. Sums are taken
/// in the same order as `add_metrics` takes them; the median and 95th percentile are found by
/// counting into bins and then reading only the values of the bins that hold them. The best
/// block needs the messages in RFNM order, which a file in message order does not give: `best`
/// is [`nmc_records::stats::BestBlock`]'s value, kept as the RFNMs came back.
pub(crate) fn add_message_metrics_in_passes<I, E>(
    m: &mut PairMetrics,
    mut rows: impl FnMut() -> Result<I, E>,
    from_ns: u64,
    duration: SimDuration,
    best: Option<f64>,
) -> Result<(), E>
where
    I: Iterator<Item = Result<MetricRow, E>>,
{
    let rtt_of = |r: &MetricRow| Some((r.rfnm_ns? - r.accepted_ns?) as f64 / 1e6);
    // Pass 1: counts, sums, and the range of the round trips.
    let (mut done, mut bits, mut with_all) = (0u64, 0u64, 0u64);
    // Sums start where `Iterator::sum` of f64 starts, at -0.0, so that even a zero keeps its sign.
    let (mut rtt_n, mut rtt_sum, mut lo, mut hi) = (0usize, -0.0f64, f64::MAX, f64::MIN);
    let (mut cycle_n, mut cycle_sum) = (0usize, -0.0f64);
    let (mut offer_n, mut offer_sum) = (0usize, -0.0f64);
    for r in rows()? {
        let r = r?;
        let Some(rfnm) = r.rfnm_ns.filter(|&t| t >= from_ns) else {
            continue;
        };
        done += 1;
        bits += r.bits;
        with_all += u64::from(r.rfnm_carried_all == Some(true));
        if let Some(x) = rtt_of(&r) {
            rtt_n += 1;
            rtt_sum += x;
            (lo, hi) = (lo.min(x), hi.max(x));
        }
        if let Some(b) = r.numbered_ns {
            cycle_n += 1;
            cycle_sum += (rfnm - b) as f64 / 1e6;
        }
        offer_n += 1;
        offer_sum += (rfnm - r.offered_ns) as f64 / 1e6;
    }
    let secs = duration.as_secs_f64();
    m.completed = done;
    m.throughput_kbps = bits as f64 / secs / 1e3;
    if let Some(b) = best {
        m.best150_kbps = Some(b / 1e3);
    }
    if rtt_n > 0 {
        let mean = rtt_sum / rtt_n as f64;
        // Pass 2: spread and lagged products about the mean, and the round trips counted into
        // equal bins over their range (monotone in the value, so ranks fall in bin order).
        const BINS: usize = 4096;
        let width = (hi - lo) / BINS as f64;
        let bin = |x: f64| {
            if width > 0.0 {
                (((x - lo) / width) as usize).min(BINS - 1)
            } else {
                0
            }
        };
        let mut counts = vec![0u64; BINS];
        let mut var = -0.0f64;
        let mut lagged = [-0.0f64; 10];
        let mut last: std::collections::VecDeque<f64> = Default::default();
        for r in rows()? {
            let r = r?;
            let Some(x) = rtt_of(&r).filter(|_| r.rfnm_ns.is_some_and(|t| t >= from_ns)) else {
                continue;
            };
            counts[bin(x)] += 1;
            var += (x - mean).powi(2);
            for (k, &y) in last.iter().rev().enumerate() {
                lagged[k] += (y - mean) * (x - mean);
            }
            last.push_back(x);
            if last.len() > lagged.len() {
                last.pop_front();
            }
        }
        // Pass 3: the values of the bins that hold the two ranks, each value with its count.
        let ranks = [0.5, 0.95].map(|p| {
            percentile_position(rtt_n, p, Rule::Round)
                .expect("non-empty")
                .0
        });
        let place = |rank: usize| {
            let mut below = 0;
            for (b, &n) in counts.iter().enumerate() {
                if below + n as usize > rank {
                    return (b, rank - below);
                }
                below += n as usize;
            }
            unreachable!("rank {rank} of {rtt_n} values")
        };
        let places = ranks.map(place);
        let mut values: [BTreeMap<u64, usize>; 2] = Default::default();
        for r in rows()? {
            let r = r?;
            let Some(x) = rtt_of(&r).filter(|_| r.rfnm_ns.is_some_and(|t| t >= from_ns)) else {
                continue;
            };
            for (v, (b, _)) in values.iter_mut().zip(places) {
                if bin(x) == b {
                    // Round trips are never negative: the bits of the value order it.
                    *v.entry(x.to_bits()).or_default() += 1;
                }
            }
        }
        let at = |v: &BTreeMap<u64, usize>, mut k: usize| {
            for (&x, &n) in v {
                if k < n {
                    return f64::from_bits(x);
                }
                k -= n;
            }
            unreachable!("a rank within its bin")
        };
        m.rtt = Some(RttSummary {
            mean_ms: mean,
            p50_ms: at(&values[0], places[0].1),
            p95_ms: at(&values[1], places[1].1),
            max_ms: hi,
            min_ms: lo,
        });
        if rtt_n >= 3 {
            for k in 1..=lagged.len().min(rtt_n - 1) {
                let r = if var > 0.0 { lagged[k - 1] / var } else { 0.0 };
                m.rtt_autocorrelation.insert(k as u32, r);
            }
        }
    }
    if cycle_n > 0 {
        m.cycle_mean_ms = Some(cycle_sum / cycle_n as f64);
    }
    if offer_n > 0 {
        m.rtt_from_offer_mean_ms = Some(offer_sum / offer_n as f64);
    }
    if done > 0 {
        m.rfnm_with_all_fraction = Some(with_all as f64 / done as f64);
    }
    Ok(())
}

/// The pump's message metrics and the occupancy means, kept as the run goes instead of from
/// stored records, for runs that keep no per-message or per-sample records (memory flat in
/// simulated time). The same keys as [`add_metrics`]: counts, sums, extremes and the best block
/// exactly (a window of the last `BEST_BLOCK` + 1 completions); the autocorrelation from
/// running sums of lagged products (the series in the order the RFNMs came back, which for one
/// pump is message order); the median and 95th percentile from a logarithmic histogram, to
/// within ±0.05 % (bins of 0.1 %).
#[derive(Clone, Debug, Default)]
pub(crate) struct StreamStats {
    completed: u64,
    bits: u64,
    with_all: u64,
    window: std::collections::VecDeque<(u64, u64)>,
    window_bits: u64,
    best_bps: Option<f64>,
    rtt: Moments,
    cycle: Moments,
    from_offer: Moments,
    rtt_bins: BTreeMap<i64, u64>,
    /// The first and the last `MAX_LAG` round trips, and Σ x_i x_{i+k} for k = 1..=MAX_LAG.
    first: Vec<f64>,
    last: std::collections::VecDeque<f64>,
    lagged: [f64; MAX_LAG],
    occupancy: [u64; 6],
    samples: u64,
}

const MAX_LAG: usize = 10;
/// Ratio between successive percentile bins.
const BIN_RATIO: f64 = 1.001;

#[derive(Clone, Copy, Debug, Default)]
struct Moments {
    n: u64,
    sum: f64,
    sum_sq: f64,
    min: f64,
    max: f64,
}

impl Moments {
    fn add(&mut self, x: f64) {
        if self.n == 0 || x < self.min {
            self.min = x;
        }
        if self.n == 0 || x > self.max {
            self.max = x;
        }
        self.n += 1;
        self.sum += x;
        self.sum_sq += x * x;
    }
    fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }
}

impl StreamStats {
    /// A message's RFNM came back (within the measured window).
    pub(crate) fn add(&mut self, r: &MessageRecord) {
        let Some(rfnm) = r.rfnm_ns else { return };
        self.completed += 1;
        self.bits += r.bits;
        if r.rfnm_carried_all == Some(true) {
            self.with_all += 1;
        }
        // The best block: the window holds the completion before the block and the block.
        self.window.push_back((rfnm, r.bits));
        self.window_bits += r.bits;
        if self.window.len() > BEST_BLOCK + 1 {
            let (_, b) = self.window.pop_front().expect("non-empty");
            self.window_bits -= b;
        }
        if self.window.len() == BEST_BLOCK + 1 {
            let (t0, b0) = self.window[0];
            let span = (rfnm - t0) as f64 / 1e9;
            if span > 0.0 {
                let bps = (self.window_bits - b0) as f64 / span;
                self.best_bps = Some(self.best_bps.map_or(bps, |b| b.max(bps)));
            }
        }
        if let Some(a) = r.accepted_ns {
            let x = (rfnm - a) as f64 / 1e6;
            self.rtt.add(x);
            let bin = if x > 0.0 {
                (x.ln() / BIN_RATIO.ln()).floor() as i64
            } else {
                i64::MIN
            };
            *self.rtt_bins.entry(bin).or_default() += 1;
            for (k, &y) in self.last.iter().rev().enumerate() {
                self.lagged[k] += x * y;
            }
            if self.first.len() < MAX_LAG {
                self.first.push(x);
            }
            self.last.push_back(x);
            if self.last.len() > MAX_LAG {
                self.last.pop_front();
            }
        }
        if let Some(b) = r.numbered_ns {
            self.cycle.add((rfnm - b) as f64 / 1e6);
        }
        self.from_offer.add((rfnm - r.offered_ns) as f64 / 1e6);
    }

    /// An occupancy sample (within the measured window).
    pub(crate) fn add_occupancy(&mut self, o: &Occupancy) {
        self.samples += 1;
        for (s, x) in self.occupancy.iter_mut().zip(o.counts()) {
            *s += x as u64;
        }
    }

    /// The value at fraction `p` of the round trips (the percentile bin's geometric middle): the
    /// round trip of rank [`Rule::Round`], as [`add_metrics`] reads it from the sorted values.
    fn rtt_percentile(&self, p: f64) -> f64 {
        let Some((target, _)) = percentile_position(self.rtt.n as usize, p, Rule::Round) else {
            return self.rtt.max;
        };
        let target = target as u64;
        let mut seen = 0;
        for (&bin, &n) in &self.rtt_bins {
            seen += n;
            if seen > target {
                return if bin == i64::MIN {
                    0.0
                } else {
                    BIN_RATIO.powf(bin as f64 + 0.5)
                };
            }
        }
        self.rtt.max
    }

    /// The message metrics of [`add_metrics`], from the running values.
    pub(crate) fn message_metrics(&self, m: &mut PairMetrics, duration: SimDuration) {
        let secs = duration.as_secs_f64();
        m.completed = self.completed;
        m.throughput_kbps = self.bits as f64 / secs / 1e3;
        if let Some(b) = self.best_bps {
            m.best150_kbps = Some(b / 1e3);
        }
        if let Some(mean) = self.rtt.mean() {
            m.rtt = Some(RttSummary {
                mean_ms: mean,
                p50_ms: self.rtt_percentile(0.5),
                p95_ms: self.rtt_percentile(0.95),
                max_ms: self.rtt.max,
                min_ms: self.rtt.min,
            });
        }
        if let Some(c) = self.cycle.mean() {
            m.cycle_mean_ms = Some(c);
        }
        if let Some(f) = self.from_offer.mean() {
            m.rtt_from_offer_mean_ms = Some(f);
        }
        // r(k) = Σ_{i<n-k} (x_i - x̄)(x_{i+k} - x̄) / Σ (x_i - x̄)², expanded into running sums:
        // Σ x_i x_{i+k} - x̄ (Σ_{i<n-k} x_i + Σ_{i≥k} x_i) + (n - k) x̄².
        let n = self.rtt.n as usize;
        if n >= 3 {
            let mean = self.rtt.sum / n as f64;
            let var = self.rtt.sum_sq - n as f64 * mean * mean;
            for k in 1..=MAX_LAG.min(n - 1) {
                let head: f64 = self.rtt.sum - self.last.iter().rev().take(k).sum::<f64>();
                let tail: f64 = self.rtt.sum - self.first.iter().take(k).sum::<f64>();
                let c = self.lagged[k - 1] - mean * (head + tail) + (n - k) as f64 * mean * mean;
                let r = if var > 0.0 { c / var } else { 0.0 };
                m.rtt_autocorrelation.insert(k as u32, r);
            }
        }
        if self.completed > 0 {
            m.rfnm_with_all_fraction = Some(self.with_all as f64 / self.completed as f64);
        }
    }

    /// The occupancy means of [`add_metrics`].
    pub(crate) fn occupancy_metrics(&self, m: &mut ImpMetrics) {
        if self.samples == 0 {
            return;
        }
        m.occupancy_means = Some(self.occupancy.map(|sum| sum as f64 / self.samples as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: u64, offered: u64, rfnm: u64) -> MessageRecord {
        MessageRecord {
            id,
            bits: 8000,
            offered_ns: offered,
            rfnm_ns: Some(rfnm),
            ..Default::default()
        }
    }

    #[test]
    fn best_block_is_the_fastest_window() {
        // 301 messages 200 ms apart, then a fast stretch 100 ms apart.
        let mut msgs: Vec<MessageRecord> = (0..301).map(|i| rec(i, 0, i * 200_000_000)).collect();
        let t0 = 300 * 200_000_000;
        msgs.extend((1..=150).map(|i| rec(300 + i, 0, t0 + i * 100_000_000)));
        let best = best_block_kbps(&msgs, 150).unwrap();
        assert!((best - 80.0).abs() < 1e-9, "{best}"); // 8000 bit per 100 ms
    }

    #[test]
    fn autocorrelation_of_alternating_series() {
        let x: Vec<f64> = (0..1000)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let a = autocorrelation(&x, 2);
        assert!((a[0].1 + 1.0).abs() < 0.01 && (a[1].1 - 1.0).abs() < 0.01);
    }
}
