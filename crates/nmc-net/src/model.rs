//! The store-and-forward event model.
//!
//! Events, in the order the source of a packet meets them:
//! * [`Event::Offer`] — a source offers a packet at its node; the packet is routed onto the
//!   next channel ([`Channel::offer`]), or delivered if it is already at its destination;
//! * [`Event::TxDone`] — a channel finished clocking a packet out; the packet now propagates
//!   (it joins the channel's `in_flight` queue), and the channel starts the next waiting packet;
//! * [`Event::Arrive`] — the oldest packet in flight reaches the channel's far node after the
//!   propagation delay. A channel's transmissions end in order and its propagation delay is
//!   fixed, so its packets arrive in the order they left.
//!
//! A `saturate` source offers its next packet the moment its previous one starts transmission
//! on the first channel, so exactly one of its packets is always waiting there.

use crate::line::{Channel, Offer, Packet};
use crate::metric::{DelaySummary, NetMetrics, PacketTally, SourceMetrics};
use crate::source::{self, Source};
use crate::spec::{NetRecord, StoreForwardScenario};
use crate::topology::{Topology, TopologyError};
use nmc_sim::{
    EventQueue, Model, RecordSink, Records, RngStreams, SimDuration, SimTime, Simulation, Trace,
};
use serde::Serialize;

/// The model's events (see the module doc).
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A source offers a packet at its node.
    Offer {
        /// The source: its index in `traffic`.
        source: u32,
    },
    /// A channel finished clocking a packet out.
    TxDone {
        /// The channel's index.
        channel: u32,
    },
    /// The oldest packet crossing the channel (`Channel::in_flight`) reaches its far end.
    Arrive {
        /// The channel's index.
        channel: u32,
    },
}

/// What the trace records (one JSON line each when `trace = true`).
#[derive(Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
enum TraceRecord {
    Offered {
        packet: u64,
        source: u32,
        node: u32,
        bits: u32,
    },
    TxStart {
        packet: u64,
        channel: u32,
        from: u32,
        to: u32,
    },
    Dropped {
        packet: u64,
        channel: u32,
    },
    Arrived {
        packet: u64,
        node: u32,
    },
    Delivered {
        packet: u64,
        node: u32,
        delay_ns: u64,
    },
}

/// One delivered or dropped packet (`record = ["packets"]`).
#[derive(Clone, Debug, Serialize)]
pub struct PacketRecord {
    /// The packet's number, in the order packets were offered.
    pub id: u64,
    /// The source that offered it: its index in `traffic`.
    pub source: u32,
    /// The node it was offered at.
    pub from: u32,
    /// Its destination node.
    pub to: u32,
    /// Its length, bits.
    pub bits: u32,
    /// When it was offered, ns of simulated time.
    pub created_ns: u64,
    /// When it reached its destination, ns (empty if dropped).
    pub delivered_ns: Option<u64>,
    /// Offer to delivery, ns (empty if dropped).
    pub delay_ns: Option<u64>,
    /// The channels it was offered to, the one that dropped it included.
    pub hops: u32,
}

/// One channel's totals (`record = ["lines"]`).
#[derive(Clone, Debug, Serialize)]
pub struct LineRecord {
    /// The channel's index (line `k` gives channels `2k` and `2k+1`).
    pub channel: u32,
    /// The node it sends from.
    pub from: u32,
    /// The node at its far end.
    pub to: u32,
    /// Its capacity, bit/s.
    pub capacity_bps: u64,
    /// Packets clocked out in full.
    pub sent: u64,
    /// Packets dropped because its queue was full.
    pub dropped: u64,
    /// Total transmission time, s (a transmission counts in full when it starts).
    pub busy_s: f64,
    /// `busy_s` over the run's duration, capped at 1.
    pub utilisation: f64,
    /// The longest its queue was, packets.
    pub max_queue: u32,
}

#[derive(Default, Clone, Copy)]
struct DelayStats {
    n: u64,
    sum: u128,
    sum_sq: f64,
    min: u64,
    max: u64,
}

impl DelayStats {
    fn add(&mut self, ns: u64) {
        if self.n == 0 || ns < self.min {
            self.min = ns;
        }
        self.max = self.max.max(ns);
        self.n += 1;
        self.sum += ns as u128;
        self.sum_sq += (ns as f64) * (ns as f64);
    }
    fn mean_ns(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.sum as f64 / self.n as f64
        }
    }
}

/// The model: channels, routes, sources, counters.
pub struct StoreForward {
    topo: Topology,
    sources: Vec<Source>,
    next_id: u64,
    delays: DelayStats,
    per_source: Vec<DelayStats>,
    delivered_bits: u64,
    packet_hops: u64,
    /// One row per delivered or dropped packet (`record = ["packets"]`): kept, or written as
    /// each packet is done.
    records: Records<PacketRecord>,
    trace: Trace,
}

impl StoreForward {
    fn route(&mut self, now: SimTime, node: u32, mut p: Packet, q: &mut EventQueue<Event>) {
        if node == p.dst {
            let delay = now.since(p.created).as_nanos();
            self.delays.add(delay);
            self.per_source[p.source as usize].add(delay);
            self.delivered_bits += p.bits as u64;
            self.trace.emit(
                now,
                &TraceRecord::Delivered {
                    packet: p.id,
                    node,
                    delay_ns: delay,
                },
            );
            if self.records.is_on() {
                let from = self.sources[p.source as usize].spec.from;
                self.records.record(record(&p, from, Some(now)));
            }
            return;
        }
        let ci = self
            .topo
            .next_channel(node, p.dst)
            .expect("routes were checked when the sources were built");
        let ch = &mut self.topo.channels[ci as usize];
        p.hops += 1;
        match ch.offer(now, p) {
            Offer::Started(done) => {
                q.schedule(done, Event::TxDone { channel: ci });
                self.started(now, ci, p, q);
            }
            Offer::Queued => {}
            Offer::Dropped => {
                self.trace.emit(
                    now,
                    &TraceRecord::Dropped {
                        packet: p.id,
                        channel: ci,
                    },
                );
                if self.records.is_on() {
                    let from = self.sources[p.source as usize].spec.from;
                    self.records.record(record(&p, from, None));
                }
            }
        }
    }

    /// A packet began transmission on channel `ci`.
    fn started(&mut self, now: SimTime, ci: u32, p: Packet, q: &mut EventQueue<Event>) {
        if self.trace.is_on() {
            let ch = &self.topo.channels[ci as usize];
            let (from, to) = (ch.from, ch.to);
            self.trace.emit(
                now,
                &TraceRecord::TxStart {
                    packet: p.id,
                    channel: ci,
                    from,
                    to,
                },
            );
        }
        if p.hops == 1 && self.sources[p.source as usize].saturating() {
            q.schedule(now, Event::Offer { source: p.source });
        }
    }

    fn offer(&mut self, now: SimTime, si: u32, q: &mut EventQueue<Event>) {
        let s = &mut self.sources[si as usize];
        if s.exhausted() {
            return;
        }
        s.offered += 1;
        let from = s.spec.from;
        let p = Packet {
            id: self.next_id,
            source: si,
            dst: s.spec.to,
            bits: s.next_length(),
            hops: 0,
            created: now,
        };
        self.next_id += 1;
        if let Some(gap) = s.next_gap() {
            q.schedule(now + gap, Event::Offer { source: si });
        }
        self.trace.emit(
            now,
            &TraceRecord::Offered {
                packet: p.id,
                source: si,
                node: from,
                bits: p.bits,
            },
        );
        self.route(now, from, p, q);
    }
}

fn record(p: &Packet, from: u32, delivered: Option<SimTime>) -> PacketRecord {
    PacketRecord {
        id: p.id,
        source: p.source,
        from,
        to: p.dst,
        bits: p.bits,
        created_ns: p.created.as_nanos(),
        delivered_ns: delivered.map(|t| t.as_nanos()),
        delay_ns: delivered.map(|t| t.since(p.created).as_nanos()),
        hops: p.hops,
    }
}

impl Model for StoreForward {
    type Event = Event;
    fn handle(&mut self, now: SimTime, ev: Event, q: &mut EventQueue<Event>) {
        match ev {
            Event::Offer { source } => self.offer(now, source, q),
            Event::TxDone { channel } => {
                self.packet_hops += 1;
                let ch: &mut Channel = &mut self.topo.channels[channel as usize];
                let (sent, next) = ch.finish(now);
                ch.in_flight.push_back(sent);
                q.schedule(now + ch.propagation, Event::Arrive { channel });
                if let Some(done) = next {
                    let p = ch.sending.expect("a transmission just started");
                    q.schedule(done, Event::TxDone { channel });
                    self.started(now, channel, p, q);
                }
            }
            Event::Arrive { channel } => {
                let ch = &mut self.topo.channels[channel as usize];
                let packet = ch
                    .in_flight
                    .pop_front()
                    .expect("an arrival for a packet crossing the line");
                let node = ch.to;
                self.trace.emit(
                    now,
                    &TraceRecord::Arrived {
                        packet: packet.id,
                        node,
                    },
                );
                self.route(now, node, packet, q);
            }
        }
    }
}

/// Why a scenario could not be run.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The network could not be built.
    #[error(transparent)]
    Topology(#[from] TopologyError),
    /// A traffic source is invalid (bad parameters, no such node, no path); the message names
    /// the entry.
    #[error("{0}")]
    Traffic(String),
    /// The scenario's `record` list names a record this model does not write, or one twice.
    #[error(transparent)]
    Scenario(#[from] nmc_scenario::ScenarioError),
    /// Writing the trace or the records failed.
    #[error("{0}")]
    Output(String),
}

/// Everything a run produced.
pub struct Outcome {
    /// The seed the run was made with.
    pub seed: u64,
    /// Every figure the run measured ([`crate::metric`]; `summary.json` holds
    /// [`NetMetrics::to_map`]).
    pub metrics: NetMetrics,
    /// The packet records when kept in memory (empty when not recorded, or written to a sink).
    pub packets: Vec<PacketRecord>,
    /// Each channel's totals, in channel order.
    pub lines: Vec<LineRecord>,
    /// Events the simulation handled.
    pub events: u64,
    /// Transmissions completed, over all channels.
    pub packet_hops: u64,
    /// When the trace's size limit stopped it, if it did.
    pub trace_stopped_at: Option<SimTime>,
}

impl StoreForward {
    /// Builds the model from a scenario; checks nodes, routes and source parameters.
    pub fn build(s: &StoreForwardScenario, seed: u64, trace: Trace) -> Result<Self, BuildError> {
        s.check_records::<NetRecord>()?;
        let topo = Topology::build(&s.network)?;
        let streams = RngStreams::new(seed);
        let mut sources = Vec::with_capacity(s.traffic.len());
        for (i, t) in s.traffic.iter().enumerate() {
            source::validate(i, t).map_err(BuildError::Traffic)?;
            for (key, node) in [("from", t.from), ("to", t.to)] {
                if node >= topo.nodes {
                    return Err(BuildError::Traffic(format!(
                        "traffic[{i}].{key} = {node}: no such node (nodes are 0..{})",
                        topo.nodes - 1
                    )));
                }
            }
            if t.from != t.to && topo.next_channel(t.from, t.to).is_none() {
                return Err(BuildError::Traffic(format!(
                    "traffic[{i}]: node {} is unreachable from node {}: no path between them",
                    t.to, t.from
                )));
            }
            sources.push(Source::new(t.clone(), &streams, i as u64));
        }
        Ok(StoreForward {
            per_source: vec![DelayStats::default(); sources.len()],
            topo,
            sources,
            next_id: 0,
            delays: DelayStats::default(),
            delivered_bits: 0,
            packet_hops: 0,
            records: Records::kept_if(s.wants(NetRecord::Packets)),
            trace,
        })
    }
}

/// Runs a scenario to its duration, keeping the packet records in memory if it records them.
/// `progress` is called with the simulated time reached, about a hundred times over the run.
pub fn run(
    s: &StoreForwardScenario,
    seed: u64,
    trace: Trace,
    progress: &mut dyn FnMut(SimTime),
) -> Result<Outcome, BuildError> {
    run_to(s, seed, trace, None, progress)
}

/// Runs a scenario to its duration as [`run`] does, but if it records packets and `packets` is
/// given, each packet's row goes there when the packet is delivered or dropped instead of being
/// kept ([`Outcome::packets`] is then empty): memory stays flat however long the run. A write
/// error ends the run with an error once the simulation is done.
pub fn run_to(
    s: &StoreForwardScenario,
    seed: u64,
    trace: Trace,
    packets: Option<Box<dyn RecordSink<PacketRecord>>>,
    progress: &mut dyn FnMut(SimTime),
) -> Result<Outcome, BuildError> {
    let mut model = StoreForward::build(s, seed, trace)?;
    if let Some(sink) = packets
        && model.records.is_on()
    {
        model.records = Records::Sink { sink, error: None };
    }
    let mut sim = Simulation::new(model);
    for (i, src) in s.traffic.iter().enumerate() {
        sim.schedule(SimTime::ZERO + src.start, Event::Offer { source: i as u32 });
    }
    let end = SimTime::ZERO + s.duration;
    let slices = 100u64;
    for k in 1..=slices {
        let t = SimTime::from_nanos(((end.as_nanos() as u128 * k as u128) / slices as u128) as u64);
        sim.run_until(t);
        progress(t);
    }
    let events = sim.events_handled();
    let mut m = sim.model;
    m.trace
        .finish()
        .map_err(|e| BuildError::Output(format!("writing the trace: {e}")))?;
    m.records
        .finish()
        .map_err(|e| BuildError::Output(format!("writing the packet records: {e}")))?;
    Ok(m.finish(seed, s.duration, events))
}

impl StoreForward {
    fn finish(mut self, seed: u64, duration: SimDuration, events: u64) -> Outcome {
        let secs = duration.as_secs_f64();
        let lines: Vec<LineRecord> = self
            .topo
            .channels
            .iter()
            .enumerate()
            .map(|(i, c)| LineRecord {
                channel: i as u32,
                from: c.from,
                to: c.to,
                capacity_bps: c.capacity.bps(),
                sent: c.sent,
                dropped: c.dropped,
                busy_s: c.busy.as_secs_f64(),
                // Busy time counts a transmission in full when it starts; cap at 1 for the last.
                utilisation: if secs > 0.0 {
                    (c.busy.as_secs_f64() / secs).min(1.0)
                } else {
                    0.0
                },
                max_queue: c.max_queue,
            })
            .collect();
        let offered: u64 = self.sources.iter().map(|s| s.offered).sum();
        let dropped: u64 = lines.iter().map(|l| l.dropped).sum();
        let d = &self.delays;
        let ms = |ns: f64| ns / 1e6;
        let var = if d.n > 1 {
            (d.sum_sq / d.n as f64 - d.mean_ns().powi(2)).max(0.0)
        } else {
            0.0
        };
        let metrics = NetMetrics {
            packets: PacketTally {
                offered,
                delivered: d.n,
                dropped,
                in_flight: offered - d.n - dropped,
            },
            delay: DelaySummary {
                mean_ms: ms(d.mean_ns()),
                min_ms: if d.n > 0 { ms(d.min as f64) } else { f64::NAN },
                max_ms: if d.n > 0 { ms(d.max as f64) } else { f64::NAN },
                std_ms: ms(var.sqrt()),
            },
            throughput_kbps: self.delivered_bits as f64 / secs / 1e3,
            events,
            packet_hops: self.packet_hops,
            line_max_utilisation: lines.iter().map(|l| l.utilisation).fold(0.0, f64::max),
            sources: self
                .per_source
                .iter()
                .map(|s| SourceMetrics {
                    delivered: s.n,
                    delay_mean_ms: ms(s.mean_ns()),
                })
                .collect(),
        };
        Outcome {
            seed,
            metrics,
            packets: self.records.take_kept(),
            lines,
            events,
            packet_hops: self.packet_hops,
            trace_stopped_at: self.trace.stopped_at(),
        }
    }
}
