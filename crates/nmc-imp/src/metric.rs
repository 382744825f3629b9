//! What a run measured, as typed values ([`ImpMetrics`], [`crate::run::Outcome::metrics`]),
//! and their names in `summary.json` (issue 32: a figure is read as a field, so a renamed or
//! missing metric is a compile error, not a table row that silently reads NaN).
//!
//! [`ImpMetrics::to_map`] gives every figure under its `summary.json` name, in name order; a
//! figure the run did not measure (a mean of no messages, background figures without
//! background traffic) is `None` here and absent there. The names are today's, byte for byte:
//! each is written once, in [`ImpMetrics::to_map`].

use crate::observe::Counted;
use crate::params::ImpModel;
use serde::Serialize;
use std::collections::BTreeMap;

/// A resource the measured pair holds, as the occupancy samples count it, in
/// `OCCUPANCY_RESOURCES`' order ([`ImpMetrics::occupancy_mean`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    /// Message numbers in use on the pair's stream.
    MessageNumbers,
    /// PLT entries in use at the source IMP.
    PltEntries,
    /// Reassembly buffers reserved or filled at the destination IMP.
    ReassemblyBuffers,
    /// The source IMP's PLT entries held by REQALLs (K&O Fig. 7).
    PltReqalls,
    /// The pair's RFNMs waiting at the destination IMP for buffers to carry an ALL.
    PltRfnmsWaiting,
    /// The rest of the PLT: messages in flight and RFNMs on their way back.
    PltMessages,
}

#[cfg(test)]
impl Resource {
    /// Its name in `occupancy.csv` and the metrics.
    fn name(self) -> &'static str {
        OCCUPANCY_RESOURCES[self as usize]
    }
}

/// The resources of the measured pair whose means the metrics give
/// (`occupancy.<name>.mean`; `occupancy.csv`'s columns), in the order of
/// [`ImpMetrics::occupancy_means`] and [`crate::observe::Occupancy::counts`].
pub(crate) const OCCUPANCY_RESOURCES: [&str; 6] = [
    "message_numbers",
    "plt_entries",
    "reassembly_buffers",
    "plt_reqalls",
    "plt_rfnms_waiting",
    "plt_messages",
];

/// Everything one IMP run measured. Field by field, the `summary.json` names are given in each
/// field's doc.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImpMetrics {
    /// The measured pair's messages over the measured period (K&O §IV).
    pub pair: PairMetrics,
    /// The means of the resources the measured pair holds, in [`OCCUPANCY_RESOURCES`]' order
    /// (`occupancy.<resource>.mean`); `None` without occupancy samples.
    pub(crate) occupancy_means: Option<[f64; 6]>,
    /// A RFNM's wait for reassembly buffers at the destination, ms
    /// (`rfnm.wait_at_destination.{mean,max}_ms`); `None` when no RFNM waited.
    pub rfnm_wait_at_destination: Option<MeanMax>,
    /// The run's counters by [`crate::observe::Counted`]'s names (`count.<name>`).
    pub(crate) counts: BTreeMap<&'static str, u64>,
    /// Events the simulation handled (`events`).
    pub(crate) events: u64,
    /// Every message of the run accounted for (`messages.*`).
    pub(crate) messages: MessageTally,
    /// Other hosts' messages (`background.*`); `None` when none were offered.
    pub background: Option<BackgroundMetrics>,
    /// The IMPs' processors by model name (`316`, `516`), for models with at least one task
    /// (`processing.<model>.*`).
    pub(crate) processing: BTreeMap<&'static str, ProcessingMetrics>,
    /// Line utilisation (either direction) over the lines, mean and busiest
    /// (`lines.utilisation.{mean,max}`); `None` without lines.
    pub lines_utilisation: Option<MeanMax>,
    /// Messages delivered to a host after one with the same or a later number of their stream,
    /// since the stream's numbers last started (a version 3 block made again starts them
    /// afresh) (`order_violations`).
    pub(crate) order_violations: u64,
    /// When the lockup watch stopped the run, s (`lockup.at_s`).
    pub(crate) lockup_at_s: Option<f64>,
    /// Hops between the measured pair (`hops`).
    pub(crate) hops: Option<u32>,
    /// The routing and line machinery's figures; `None` with static routes and no line events.
    pub routing: Option<RoutingMetrics>,
}

/// The measured pair's message figures (K&O §IV; `crate::analysis::add_metrics`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairMetrics {
    /// Messages whose RFNM came back (`messages.completed`).
    pub completed: u64,
    /// Data bits delivered per second of the measured period, kbit/s (`throughput_kbps`).
    pub throughput_kbps: f64,
    /// The best 150 consecutive messages' throughput, kbit/s (`best150_kbps`).
    pub best150_kbps: Option<f64>,
    /// Round trips from the message's last packet in the source IMP to its RFNM
    /// (`rtt.{mean,p50,p95,max,min}_ms`).
    pub(crate) rtt: Option<RttSummary>,
    /// The round trips' autocorrelation by lag, 1 to 10 (`rtt.autocorrelation.lagNN`).
    pub(crate) rtt_autocorrelation: BTreeMap<u32, f64>,
    /// Mean time a message holds its message number, from taking it (K&O point b) to its RFNM
    /// (point h), ms: one cycle of a number (`cycle.mean_ms`).
    pub cycle_mean_ms: Option<f64>,
    /// Mean round trip from the message's offer to the IMP, ms (`rtt_from_offer.mean_ms`).
    pub rtt_from_offer_mean_ms: Option<f64>,
    /// The fraction of RFNMs that carried an ALL (`rfnm.with_all_fraction`).
    pub rfnm_with_all_fraction: Option<f64>,
}

impl PairMetrics {
    /// The mean round trip, ms (`rtt.mean_ms`); `None` without a completed message.
    pub fn rtt_mean_ms(&self) -> Option<f64> {
        self.rtt.map(|r| r.mean_ms)
    }
}

/// A round-trip distribution, ms.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RttSummary {
    /// Mean (`rtt.mean_ms`).
    pub(crate) mean_ms: f64,
    /// Median (`rtt.p50_ms`).
    pub(crate) p50_ms: f64,
    /// 95th percentile (`rtt.p95_ms`).
    pub(crate) p95_ms: f64,
    /// Longest (`rtt.max_ms`).
    pub(crate) max_ms: f64,
    /// Shortest (`rtt.min_ms`).
    pub(crate) min_ms: f64,
}

/// A mean and a maximum.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MeanMax {
    /// The mean.
    pub mean: f64,
    /// The largest.
    pub max: f64,
}

/// Every message of the run accounted for: offered = delivered + in flight + lost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct MessageTally {
    /// Offered by a host (`messages.offered`).
    pub(crate) offered: u64,
    /// Delivered to the destination host (`messages.delivered`).
    pub(crate) delivered: u64,
    /// Answered by a RFNM at the source host (`messages.answered`).
    pub(crate) answered: u64,
    /// Still in the subnet at the end (`messages.in_flight`).
    pub(crate) in_flight: u64,
    /// What is missing: offered − delivered − in flight (`messages.lost`).
    pub(crate) lost: f64,
    /// Single-packet messages' copies sent again on an ALLOCATE (RFC 632), summed over the
    /// messages (`messages.retransmissions`); the IMP-to-IMP retransmissions are
    /// `count.retransmissions`.
    pub(crate) retransmissions: f64,
}

/// Other hosts' messages (the background traffic).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BackgroundMetrics {
    /// Offered (`background.offered`).
    pub(crate) offered: u64,
    /// Delivered (`background.delivered`).
    pub(crate) delivered: u64,
    /// Refused at the source (`background.refused`).
    pub(crate) refused: u64,
    /// Mean packets per message (`background.packets_per_message`).
    pub packets_per_message: f64,
    /// Offered per second (`background.offered_per_s`).
    pub offered_per_s: f64,
    /// Round trips between IMPs `hops` apart, by hops (RFC 619 Table 1's definition;
    /// `background.rtt_by_hops.NN.{messages,mean_ms}`).
    pub(crate) rtt_by_hops: BTreeMap<u32, HopsRtt>,
    /// Mean round trip of the answered messages, ms (`background.rtt_mean_ms`).
    pub(crate) rtt_mean_ms: Option<f64>,
}

/// The round trips of other hosts' messages between IMPs some hops apart.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HopsRtt {
    /// How many went that far (`…messages`).
    pub messages: u64,
    /// Their mean round trip, ms (`…mean_ms`).
    pub mean_ms: f64,
}

/// The processors of one IMP model.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ProcessingMetrics {
    /// IMPs of this model (`processing.<model>.imps`).
    pub(crate) imps: u64,
    /// Mean wait in the task queues, ms (`processing.<model>.wait_mean_ms`).
    pub(crate) wait_mean_ms: f64,
    /// Longest wait, ms (`processing.<model>.wait_max_ms`).
    pub(crate) wait_max_ms: f64,
    /// Mean busy fraction per IMP (`processing.<model>.utilisation_mean`).
    pub(crate) utilisation_mean: f64,
}

/// The routing and line machinery's figures (`crate::routing::Routing::metrics`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoutingMetrics {
    /// Routing messages sent (`routing.messages`).
    pub(crate) messages: u64,
    /// Best-neighbour changes (`routing.route_changes`).
    pub route_changes: u64,
    /// Hold-downs started (`routing.hold_downs`).
    pub hold_downs: u64,
    /// Smaller estimates a hold-down refused (`routing.held_against`).
    pub(crate) held_against: u64,
    /// Line events (`lines.events`).
    pub(crate) line_events: u64,
    /// Frames lost with a line (`lines.frames_lost`).
    pub(crate) frames_lost: u64,
    /// Packets taken back from a line that went down (`packets.taken_back`).
    pub(crate) taken_back: u64,
    /// Packets parked for want of a route (`packets.parked`).
    pub(crate) parked: u64,
    /// Packets accepted as their line went down (`packets.accepted_at_line_down`).
    pub(crate) accepted_at_line_down: u64,
    /// Data packets' visits (adaptive routing, with journeys); `None` otherwise.
    pub visits: Option<Visits>,
    /// Forwarding loops (adaptive routing); `None` otherwise.
    pub(crate) loops: Option<Loops>,
}

/// Data packets' visits to IMPs (adaptive routing).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Visits {
    /// The most visits to one IMP by any packet (`visits.max`).
    pub(crate) max: u64,
    /// Packets that were at some IMP more than once (`visits.looped_packets`).
    pub(crate) looped_packets: u64,
    /// Their fraction of the data packets (`visits.looped_fraction`).
    pub(crate) looped_fraction: f64,
    /// The longest loop of any packet, hops (`visits.loop_hops_max`).
    pub(crate) loop_hops_max: u64,
    /// The longest loop of any packet, ms (`visits.loop_max_ms`).
    pub(crate) loop_max_ms: f64,
}

/// Forwarding loops found in the routing tables (adaptive routing).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Loops {
    /// How many (`loops.count`).
    pub(crate) count: u64,
    /// Their durations, ms (`loops.{max,mean}_ms`); `None` without loops.
    pub(crate) duration_ms: Option<MeanMax>,
}

impl ImpMetrics {
    /// How often `what` happened (`count.<name>`), 0 when it never did.
    pub fn count(&self, what: Counted) -> u64 {
        self.counts.get(what.name()).copied().unwrap_or(0)
    }

    /// The mean of one resource the measured pair holds (`occupancy.<name>.mean`); `None`
    /// without samples.
    pub fn occupancy_mean(&self, resource: Resource) -> Option<f64> {
        self.occupancy_means.map(|m| m[resource as usize])
    }

    /// The mean wait in the task queues of one IMP model's IMPs, ms; `None` when the run had
    /// none of them.
    pub fn processing_wait_mean_ms(&self, model: ImpModel) -> Option<f64> {
        self.processing.get(model.name()).map(|p| p.wait_mean_ms)
    }

    /// The round trips of other hosts' messages between IMPs `hops` apart (RFC 619 Table 1's
    /// definition); `None` when none went that far or there was no background traffic.
    pub fn background_rtt_by_hops(&self, hops: u32) -> Option<HopsRtt> {
        self.background.as_ref()?.rtt_by_hops.get(&hops).copied()
    }

    /// Every figure under its `summary.json` name, in name order.
    pub fn to_map(&self) -> BTreeMap<String, f64> {
        let mut m = BTreeMap::new();
        let mut put = |k: &str, v: f64| {
            m.insert(k.to_string(), v);
        };
        let p = &self.pair;
        put("messages.completed", p.completed as f64);
        put("throughput_kbps", p.throughput_kbps);
        if let Some(b) = p.best150_kbps {
            put("best150_kbps", b);
        }
        if let Some(r) = p.rtt {
            put("rtt.mean_ms", r.mean_ms);
            put("rtt.p50_ms", r.p50_ms);
            put("rtt.p95_ms", r.p95_ms);
            put("rtt.max_ms", r.max_ms);
            put("rtt.min_ms", r.min_ms);
        }
        for (k, r) in &p.rtt_autocorrelation {
            put(&format!("rtt.autocorrelation.lag{k:02}"), *r);
        }
        if let Some(c) = p.cycle_mean_ms {
            put("cycle.mean_ms", c);
        }
        if let Some(f) = p.rtt_from_offer_mean_ms {
            put("rtt_from_offer.mean_ms", f);
        }
        if let Some(f) = p.rfnm_with_all_fraction {
            put("rfnm.with_all_fraction", f);
        }
        if let Some(means) = self.occupancy_means {
            for (name, v) in OCCUPANCY_RESOURCES.iter().zip(means) {
                put(&format!("occupancy.{name}.mean"), v);
            }
        }
        if let Some(w) = self.rfnm_wait_at_destination {
            put("rfnm.wait_at_destination.mean_ms", w.mean);
            put("rfnm.wait_at_destination.max_ms", w.max);
        }
        for (k, v) in &self.counts {
            put(&format!("count.{k}"), *v as f64);
        }
        put("events", self.events as f64);
        let t = &self.messages;
        put("messages.offered", t.offered as f64);
        put("messages.delivered", t.delivered as f64);
        put("messages.answered", t.answered as f64);
        put("messages.in_flight", t.in_flight as f64);
        put("messages.lost", t.lost);
        put("messages.retransmissions", t.retransmissions);
        if let Some(b) = &self.background {
            put("background.offered", b.offered as f64);
            put("background.delivered", b.delivered as f64);
            put("background.refused", b.refused as f64);
            put("background.packets_per_message", b.packets_per_message);
            put("background.offered_per_s", b.offered_per_s);
            for (h, r) in &b.rtt_by_hops {
                put(
                    &format!("background.rtt_by_hops.{h:02}.messages"),
                    r.messages as f64,
                );
                put(&format!("background.rtt_by_hops.{h:02}.mean_ms"), r.mean_ms);
            }
            if let Some(r) = b.rtt_mean_ms {
                put("background.rtt_mean_ms", r);
            }
        }
        for (name, p) in &self.processing {
            put(&format!("processing.{name}.imps"), p.imps as f64);
            put(&format!("processing.{name}.wait_mean_ms"), p.wait_mean_ms);
            put(&format!("processing.{name}.wait_max_ms"), p.wait_max_ms);
            put(
                &format!("processing.{name}.utilisation_mean"),
                p.utilisation_mean,
            );
        }
        if let Some(u) = self.lines_utilisation {
            put("lines.utilisation.mean", u.mean);
            put("lines.utilisation.max", u.max);
        }
        put("order_violations", self.order_violations as f64);
        if let Some(l) = self.lockup_at_s {
            put("lockup.at_s", l);
        }
        if let Some(h) = self.hops {
            put("hops", h as f64);
        }
        if let Some(r) = &self.routing {
            put("routing.messages", r.messages as f64);
            put("routing.route_changes", r.route_changes as f64);
            put("routing.hold_downs", r.hold_downs as f64);
            put("routing.held_against", r.held_against as f64);
            put("lines.events", r.line_events as f64);
            put("lines.frames_lost", r.frames_lost as f64);
            put("packets.taken_back", r.taken_back as f64);
            put("packets.parked", r.parked as f64);
            put(
                "packets.accepted_at_line_down",
                r.accepted_at_line_down as f64,
            );
            if let Some(v) = r.visits {
                put("visits.max", v.max as f64);
                put("visits.looped_packets", v.looped_packets as f64);
                put("visits.looped_fraction", v.looped_fraction);
                put("visits.loop_hops_max", v.loop_hops_max as f64);
                put("visits.loop_max_ms", v.loop_max_ms);
            }
            if let Some(l) = r.loops {
                put("loops.count", l.count as f64);
                if let Some(d) = l.duration_ms {
                    put("loops.max_ms", d.max);
                    put("loops.mean_ms", d.mean);
                }
            }
        }
        m
    }
}

/// Serialised as [`ImpMetrics::to_map`]: the `summary.json` names, in name order.
impl Serialize for ImpMetrics {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_map().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every figure, when measured, appears under exactly one `summary.json` name: the names
    /// sweeps, the Python package and earlier outputs read.
    #[test]
    fn every_figure_has_its_summary_name() {
        let mm = Some(MeanMax {
            mean: 1.0,
            max: 2.0,
        });
        let m = ImpMetrics {
            pair: PairMetrics {
                best150_kbps: Some(1.0),
                rtt: Some(RttSummary::default()),
                rtt_autocorrelation: [(1, 0.5), (10, 0.1)].into(),
                cycle_mean_ms: Some(1.0),
                rtt_from_offer_mean_ms: Some(1.0),
                rfnm_with_all_fraction: Some(1.0),
                ..PairMetrics::default()
            },
            occupancy_means: Some([0.0; 6]),
            rfnm_wait_at_destination: mm,
            counts: [("reqall", 3)].into(),
            background: Some(BackgroundMetrics {
                rtt_by_hops: [(4, HopsRtt::default())].into(),
                rtt_mean_ms: Some(1.0),
                ..BackgroundMetrics::default()
            }),
            processing: [("316", ProcessingMetrics::default())].into(),
            lines_utilisation: mm,
            lockup_at_s: Some(1.0),
            hops: Some(4),
            routing: Some(RoutingMetrics {
                visits: Some(Visits::default()),
                loops: Some(Loops {
                    count: 1,
                    duration_ms: mm,
                }),
                ..RoutingMetrics::default()
            }),
            ..ImpMetrics::default()
        };
        let names: Vec<String> = m.to_map().into_keys().collect();
        let want = "background.delivered background.offered background.offered_per_s \
            background.packets_per_message background.refused background.rtt_by_hops.04.mean_ms \
            background.rtt_by_hops.04.messages background.rtt_mean_ms best150_kbps count.reqall \
            cycle.mean_ms events hops lines.events lines.frames_lost lines.utilisation.max \
            lines.utilisation.mean lockup.at_s loops.count loops.max_ms loops.mean_ms \
            messages.answered messages.completed messages.delivered messages.in_flight \
            messages.lost messages.offered messages.retransmissions \
            occupancy.message_numbers.mean occupancy.plt_entries.mean \
            occupancy.plt_messages.mean occupancy.plt_reqalls.mean \
            occupancy.plt_rfnms_waiting.mean occupancy.reassembly_buffers.mean order_violations \
            packets.accepted_at_line_down packets.parked packets.taken_back \
            processing.316.imps processing.316.utilisation_mean processing.316.wait_max_ms \
            processing.316.wait_mean_ms rfnm.wait_at_destination.max_ms \
            rfnm.wait_at_destination.mean_ms rfnm.with_all_fraction routing.held_against \
            routing.hold_downs routing.messages routing.route_changes rtt.autocorrelation.lag01 \
            rtt.autocorrelation.lag10 rtt.max_ms rtt.mean_ms rtt.min_ms rtt.p50_ms rtt.p95_ms \
            rtt_from_offer.mean_ms throughput_kbps visits.loop_hops_max visits.loop_max_ms \
            visits.looped_fraction visits.looped_packets visits.max";
        assert_eq!(names, want.split_whitespace().collect::<Vec<_>>());
        // Not measured: absent, not NaN.
        let none: Vec<String> = ImpMetrics::default().to_map().into_keys().collect();
        assert_eq!(
            none,
            "events messages.answered messages.completed messages.delivered messages.in_flight \
             messages.lost messages.offered messages.retransmissions order_violations \
             throughput_kbps"
                .split_whitespace()
                .collect::<Vec<_>>()
        );
        assert_eq!(m.occupancy_mean(Resource::PltEntries), Some(0.0));
        assert_eq!(m.count(Counted::Reqall), 3);
        assert_eq!(m.count(Counted::RfnmWithoutAll), 0);
        assert_eq!(
            [
                Resource::MessageNumbers,
                Resource::PltEntries,
                Resource::ReassemblyBuffers,
                Resource::PltReqalls,
                Resource::PltRfnmsWaiting,
                Resource::PltMessages
            ]
            .map(Resource::name),
            OCCUPANCY_RESOURCES
        );
    }
}
