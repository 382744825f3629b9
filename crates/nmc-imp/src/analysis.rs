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

use crate::model::{MessageRecord, Occupancy};
use nmc_sim::SimDuration;
use std::collections::BTreeMap;

pub use nmc_report::stats::BEST_BLOCK;

/// Round trips in ms (accepted → RFNM), in message order, of the messages whose RFNM came back.
pub fn round_trips_ms(msgs: &[MessageRecord]) -> Vec<f64> {
    msgs.iter()
        .filter_map(|m| Some((m.rfnm_ns? - m.accepted_ns?) as f64 / 1e6))
        .collect()
}

/// Times in ms from the host starting a message to its RFNM.
pub fn offer_to_rfnm_ms(msgs: &[MessageRecord]) -> Vec<f64> {
    msgs.iter()
        .filter_map(|m| m.rfnm_ns.map(|r| (r - m.offered_ns) as f64 / 1e6))
        .collect()
}

/// Throughput (kbit/s) of the best block of `block` consecutive messages, if there are enough.
/// Consecutive in the order their RFNMs came back (with several sources, message ids are not).
pub fn best_block_kbps(msgs: &[MessageRecord], block: usize) -> Option<f64> {
    let done: Vec<(u64, u64)> = msgs
        .iter()
        .filter_map(|m| m.rfnm_ns.map(|r| (r, m.bits)))
        .collect();
    nmc_report::stats::best_block_bps(&done, block).map(|b| b / 1e3)
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
pub use nmc_report::stats::{autocorrelation, autocorrelation_band, histogram};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

pub fn add_metrics(
    m: &mut BTreeMap<String, f64>,
    msgs: &[MessageRecord],
    occ: &[Occupancy],
    duration: SimDuration,
) {
    let secs = duration.as_secs_f64();
    let done: Vec<&MessageRecord> = msgs.iter().filter(|r| r.rfnm_ns.is_some()).collect();
    let bits: u64 = done.iter().map(|r| r.bits).sum();
    m.insert("messages.completed".into(), done.len() as f64);
    m.insert("throughput_kbps".into(), bits as f64 / secs / 1e3);
    if let Some(b) = best_block_kbps(msgs, BEST_BLOCK) {
        m.insert("best150_kbps".into(), b);
    }
    let rtt = round_trips_ms(msgs);
    if !rtt.is_empty() {
        let mut sorted = rtt.clone();
        sorted.sort_by(f64::total_cmp);
        m.insert(
            "rtt.mean_ms".into(),
            rtt.iter().sum::<f64>() / rtt.len() as f64,
        );
        m.insert("rtt.p50_ms".into(), percentile(&sorted, 0.5));
        m.insert("rtt.p95_ms".into(), percentile(&sorted, 0.95));
        m.insert("rtt.max_ms".into(), *sorted.last().expect("non-empty"));
        m.insert("rtt.min_ms".into(), sorted[0]);
    }
    // How long a message holds its message number: taken (point b) until the RFNM frees it.
    let cycle: Vec<f64> = msgs
        .iter()
        .filter_map(|m| Some((m.rfnm_ns? - m.numbered_ns?) as f64 / 1e6))
        .collect();
    if !cycle.is_empty() {
        m.insert(
            "cycle.mean_ms".into(),
            cycle.iter().sum::<f64>() / cycle.len() as f64,
        );
    }
    let from_offer = offer_to_rfnm_ms(msgs);
    if !from_offer.is_empty() {
        m.insert(
            "rtt_from_offer.mean_ms".into(),
            from_offer.iter().sum::<f64>() / from_offer.len() as f64,
        );
    }
    for (k, r) in autocorrelation(&rtt, 10) {
        m.insert(format!("rtt.autocorrelation.lag{k:02}"), r);
    }
    let n = occ.len().max(1) as f64;
    let mean = |f: fn(&Occupancy) -> u32| occ.iter().map(|o| f(o) as f64).sum::<f64>() / n;
    if !occ.is_empty() {
        m.insert(
            "occupancy.message_numbers.mean".into(),
            mean(|o| o.message_numbers),
        );
        m.insert("occupancy.plt_entries.mean".into(), mean(|o| o.plt_entries));
        m.insert(
            "occupancy.reassembly_buffers.mean".into(),
            mean(|o| o.reassembly_buffers),
        );
        m.insert("occupancy.plt_reqalls.mean".into(), mean(|o| o.plt_reqalls));
        m.insert(
            "occupancy.plt_rfnms_waiting.mean".into(),
            mean(|o| o.plt_rfnms_waiting),
        );
        m.insert(
            "occupancy.plt_messages.mean".into(),
            mean(|o| o.plt_messages),
        );
    }
    let with_all = done
        .iter()
        .filter(|r| r.rfnm_carried_all == Some(true))
        .count();
    if !done.is_empty() {
        m.insert(
            "rfnm.with_all_fraction".into(),
            with_all as f64 / done.len() as f64,
        );
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
