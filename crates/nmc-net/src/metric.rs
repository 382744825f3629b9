//! What a store-and-forward run measured, as typed values ([`NetMetrics`],
//! [`crate::Outcome::metrics`]), and their `summary.json` names, written once in
//! [`NetMetrics::to_map`] (issue 32: a figure is read as a field, not by a string key).

use serde::Serialize;
use std::collections::BTreeMap;

/// Everything one store-and-forward run measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NetMetrics {
    /// Every packet accounted for (`packets.*`).
    pub packets: PacketTally,
    /// End-to-end delay of the delivered packets, ms (`delay.{mean,min,max,std}_ms`); NaN
    /// without a delivered packet (the standard deviation is then 0).
    pub delay: DelaySummary,
    /// Data bits delivered per second of the run, kbit/s (`throughput_kbps`).
    pub throughput_kbps: f64,
    /// Events the simulation handled (`events`).
    pub events: u64,
    /// Transmissions completed, over all channels (`packet_hops`).
    pub packet_hops: u64,
    /// The busiest channel's utilisation (`line.max_utilisation`).
    pub line_max_utilisation: f64,
    /// Each traffic source's packets, in the scenario's order (`source.<i>.*`).
    pub sources: Vec<SourceMetrics>,
}

/// offered = delivered + dropped + in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PacketTally {
    /// Offered by the sources (`packets.offered`).
    pub offered: u64,
    /// Delivered to their destination (`packets.delivered`).
    pub delivered: u64,
    /// Dropped at a full output queue (`packets.dropped`).
    pub dropped: u64,
    /// Still on their way at the end (`packets.in_flight`).
    pub in_flight: u64,
}

/// A delay distribution, ms.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DelaySummary {
    /// Mean (`delay.mean_ms`).
    pub mean_ms: f64,
    /// Shortest (`delay.min_ms`).
    pub min_ms: f64,
    /// Longest (`delay.max_ms`).
    pub max_ms: f64,
    /// Standard deviation (`delay.std_ms`).
    pub std_ms: f64,
}

/// One traffic source's delivered packets.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SourceMetrics {
    /// Delivered (`source.<i>.delivered`).
    pub delivered: u64,
    /// Their mean delay, ms; NaN without one (`source.<i>.delay.mean_ms`).
    pub delay_mean_ms: f64,
}

impl NetMetrics {
    /// Every figure under its `summary.json` name, in name order.
    pub fn to_map(&self) -> BTreeMap<String, f64> {
        let mut m = BTreeMap::new();
        let mut put = |k: String, v: f64| {
            m.insert(k, v);
        };
        let p = &self.packets;
        put("packets.offered".into(), p.offered as f64);
        put("packets.delivered".into(), p.delivered as f64);
        put("packets.dropped".into(), p.dropped as f64);
        put("packets.in_flight".into(), p.in_flight as f64);
        put("delay.mean_ms".into(), self.delay.mean_ms);
        put("delay.min_ms".into(), self.delay.min_ms);
        put("delay.max_ms".into(), self.delay.max_ms);
        put("delay.std_ms".into(), self.delay.std_ms);
        put("throughput_kbps".into(), self.throughput_kbps);
        put("events".into(), self.events as f64);
        put("packet_hops".into(), self.packet_hops as f64);
        put("line.max_utilisation".into(), self.line_max_utilisation);
        for (i, s) in self.sources.iter().enumerate() {
            put(format!("source.{i}.delivered"), s.delivered as f64);
            put(format!("source.{i}.delay.mean_ms"), s.delay_mean_ms);
        }
        m
    }
}

/// Serialised as [`NetMetrics::to_map`]: the `summary.json` names, in name order.
impl Serialize for NetMetrics {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_map().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_figure_has_its_summary_name() {
        let m = NetMetrics {
            sources: vec![SourceMetrics::default(); 2],
            ..NetMetrics::default()
        };
        let names: Vec<String> = m.to_map().into_keys().collect();
        assert_eq!(
            names,
            "delay.max_ms delay.mean_ms delay.min_ms delay.std_ms events line.max_utilisation \
             packet_hops packets.delivered packets.dropped packets.in_flight packets.offered \
             source.0.delay.mean_ms source.0.delivered source.1.delay.mean_ms \
             source.1.delivered throughput_kbps"
                .split_whitespace()
                .collect::<Vec<_>>()
        );
    }
}
