//! Building a subnet from a scenario, running it, and what comes out.
//!
//! | file | what |
//! | --- | --- |
//! | [`build`](build()) (`run/build.rs`) | the scenario's checks, its hosts, traffic and line events, each IMP's own settings, what is observed |
//! | `run/background.rs` | host pairs and the background load ([`background_sites`], [`background_hop_shares`]) |
//! | this file | [`run`], [`run_keeping`], [`run_writing`]; [`Outcome`] and the steps that make it from the finished subnet |

use crate::metric::{
    BackgroundMetrics, HopsRtt, ImpMetrics, MeanMax, MessageTally, ProcessingMetrics,
};
use crate::model::Subnet;
use crate::observe::{E2eEvent, JourneyRecord, LockupReport, MessageRecord, Occupancy};
use crate::params::ImpParams;
use crate::records::{MessageFile, Written};
use crate::routing::{LineSample, LoopRecord, RouteChange, RoutingCounts, SourceSend};
use crate::spec::{ImpConfig, ImpRecord};
use nmc_sim::{SimDuration, SimTime, Simulation, Trace};
use serde::Serialize;

mod background;
mod build;

pub use background::{BackgroundSite, background_hop_shares, background_sites};
pub use build::{MAX_SLICES, build, check_observed_times};

/// Why a scenario could not be run: one line.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BuildError(pub String);

impl From<nmc_scenario::ScenarioError> for BuildError {
    fn from(e: nmc_scenario::ScenarioError) -> Self {
        BuildError(e.to_string())
    }
}

/// Everything a run produced.
pub struct Outcome {
    /// The run's random seed.
    pub seed: u64,
    /// The profile's parameters, resolved, as the run used them.
    pub params: ImpParams,
    /// Simulated time run (shorter than the scenario's when a lockup stopped it).
    pub duration: SimDuration,
    /// Metrics count from here (`network.measure_from`, if the run got that far).
    pub measure_from: SimDuration,
    /// The recorded messages whose RFNM came back, in message order, each with when its last packet
    /// reached the host (empty when `messages` are written to a file as the run goes, or not kept).
    pub messages: Vec<MessageRecord>,
    /// The occupancy samples of the measured pair, in time order (empty when not kept, or when
    /// written to `occupancy.csv` as the run goes).
    pub occupancy: Vec<Occupancy>,
    /// Each link's figures (one direction of a line each), in topology order.
    pub lines: Vec<LineRecord>,
    /// Every figure the run measured ([`crate::metric`]; `summary.json` holds
    /// [`ImpMetrics::to_map`]).
    pub metrics: ImpMetrics,
    /// Events the simulation handled.
    pub events: u64,
    /// Packets accepted by the IMP at the far end of a line, over every line: delivered
    /// packet-hops, for `nmc bench`'s events per packet-hop (not written to any output).
    pub packet_hops: u64,
    /// Hops between the measured pair.
    pub hops: Option<u32>,
    /// Messages delivered to a host after one with the same or a later number of their stream (0
    /// when delivery is in order).
    pub order_violations: u64,
    #[cfg_attr(not(test), allow(dead_code, reason = "read by the tests only"))]
    /// No resource was held anywhere at the end (the no-leak check).
    pub(crate) idle_at_end: bool,
    #[cfg_attr(not(test), allow(dead_code, reason = "read by the tests only"))]
    /// What was still held at the end (empty when idle).
    pub(crate) held_at_end: Vec<String>,
    /// End-to-end events of single-packet messages (`record = ["e2e"]`).
    pub e2e: Vec<E2eEvent>,
    /// Set when the run stopped on a lockup (`network.lockup_window`).
    pub lockup: Option<LockupReport>,
    /// Routing and line records (empty with static routes and no line events).
    pub routing: RoutingRecords,
    /// Time slices of the measured pair (`network.slices`).
    pub slices: Vec<crate::observe::TimeSlice>,
    /// When the trace's size limit stopped it, if it did.
    pub trace_stopped_at: Option<SimTime>,
}

/// What the routing and line machinery recorded (see [`crate::routing`]).
#[derive(Clone, Debug, Default)]
pub struct RoutingRecords {
    #[allow(
        dead_code,
        reason = "no crate reads the routing counters from the outcome"
    )]
    /// Counters of the routing and line machinery.
    pub(crate) counts: RoutingCounts,
    /// Every change of a best neighbour, every hold-down and every smaller estimate a hold-down
    /// refused, in order.
    pub route_changes: Vec<RouteChange>,
    /// Every forwarding loop found in the routing tables.
    pub loops: Vec<LoopRecord>,
    /// Each packet's journey (`record = ["journeys"]`).
    pub journeys: Vec<JourneyRecord>,
    /// The data packets the pumping host's IMP put on an output queue.
    pub source_sends: Vec<SourceSend>,
    /// The pumping host's IMP's output queues at each sample.
    pub line_samples: Vec<LineSample>,
}

/// One link's figures over the run (one direction of a line; `lines.csv`, `record = ["lines"]`).
#[derive(Clone, Debug, Serialize)]
pub struct LineRecord {
    /// The IMP it leaves from.
    pub from: String,
    /// The IMP at its far end.
    pub to: String,
    /// Capacity, bit/s.
    pub capacity_bps: u64,
    /// Propagation delay, ns.
    pub propagation_ns: u64,
    /// Frames sent.
    pub(crate) frames: u64,
    /// Packet frames sent, retransmissions included.
    pub packet_frames: u64,
    /// Packets sent again after their retransmission timeout.
    pub retransmissions: u64,
    /// Frames hit by a line error.
    pub(crate) corrupted: u64,
    /// Packets the far IMP refused (K&O §III).
    pub rejected: u64,
    /// Packets the far IMP had already accepted, discarded there as duplicates.
    pub(crate) duplicates: u64,
    /// Fraction of the measured period the line was busy sending.
    pub utilisation: f64,
    /// The longest its data queue was, packets.
    pub max_queue: u32,
    /// Data packets of the watched pair's stream that left on it (first transmissions, from
    /// `measure_from` on). Not in `lines.csv`: the experiments read it (issue 54's diagnosis).
    #[serde(skip)]
    pub watched_packets: u64,
    /// Their mean wait in the IMP before that transmission began (queue, logical channel and
    /// the IMP's processing), ms; NaN when none left. Not in `lines.csv`.
    #[serde(skip)]
    pub watched_wait_ms: f64,
}

/// What a run keeps in memory of the pump's messages and the occupancy samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Everything, whatever the scenario's `record` (for callers that read the records).
    All,
    /// Only what the scenario's `record` asks for (`messages`, `occupancy`); the metrics come
    /// from running values otherwise, and memory stays flat in simulated time.
    Recorded,
}

/// Runs a scenario for its duration, keeping every record. `progress` gets the fraction of
/// simulated time done.
pub fn run(
    s: &ImpConfig,
    seed: u64,
    trace: Trace,
    progress: &mut dyn FnMut(f64),
) -> Result<Outcome, BuildError> {
    run_keeping(s, seed, trace, progress, Keep::All)
}

/// Runs a scenario for its duration, keeping what `keep` says.
pub fn run_keeping(
    s: &ImpConfig,
    seed: u64,
    trace: Trace,
    progress: &mut dyn FnMut(f64),
    keep: Keep,
) -> Result<Outcome, BuildError> {
    run_writing(s, seed, trace, progress, keep, &Files::default())
}

/// Where a run writes records as it makes them instead of keeping them (`nmc run`).
#[derive(Clone, Debug, Default)]
pub struct Files {
    /// `messages.csv`, if the scenario records messages: [`Outcome::messages`] is then empty,
    /// and the message metrics are read back from the file ([`crate::records`]).
    pub messages: Option<std::path::PathBuf>,
    /// `e2e.csv`, if the scenario records end-to-end events ([`Outcome::e2e`] is then empty).
    pub e2e: Option<std::path::PathBuf>,
    /// `occupancy.csv`, if the scenario records occupancy ([`Outcome::occupancy`] is then
    /// empty, and its means are read back from the file).
    pub occupancy: Option<std::path::PathBuf>,
    /// `journeys.csv`, if the scenario records journeys ([`RoutingRecords::journeys`] is then
    /// empty; the `visits.*` metrics come from running figures either way).
    pub journeys: Option<std::path::PathBuf>,
}

/// How much simulated time passes between two writes of the records made (with [`Files`]).
const WRITE_EVERY: SimDuration = SimDuration::from_secs(1);

/// Runs a scenario for its duration as [`run_keeping`] does, writing the records `files` names
/// as they are made.
pub fn run_writing(
    s: &ImpConfig,
    seed: u64,
    trace: Trace,
    progress: &mut dyn FnMut(f64),
    keep: Keep,
    files: &Files,
) -> Result<Outcome, BuildError> {
    let (mut subnet, starts) = build(s, seed, trace)?;
    let has = |r: ImpRecord| s.wants(r);
    if keep == Keep::Recorded {
        subnet.obs.retain_messages = has(ImpRecord::Messages);
        subnet.obs.retain_occupancy = has(ImpRecord::Occupancy);
        subnet.obs.journeys.keep = has(ImpRecord::Journeys);
    }
    let mut written = Written::default();
    if let Some(path) = files.messages.as_ref().filter(|_| has(ImpRecord::Messages)) {
        // The model keeps finishing records; they leave it at each write.
        subnet.obs.retain_messages = true;
        let f = MessageFile::create(path, s.network.measure_from).map_err(BuildError)?;
        written.messages = Some(f);
    }
    let csv = |path: &std::path::Path| {
        nmc_records::records::CsvSink::create(path).map_err(|e| BuildError(e.to_string()))
    };
    if let Some(path) = files.e2e.as_ref().filter(|_| has(ImpRecord::E2e)) {
        written.e2e = Some(nmc_sim::Records::to_sink(csv(path)?));
    }
    if let Some(path) = files.journeys.as_ref().filter(|_| has(ImpRecord::Journeys)) {
        subnet.obs.journeys.keep = true;
        written.journeys = Some(nmc_sim::Records::to_sink(csv(path)?));
    }
    if let Some(path) = files
        .occupancy
        .as_ref()
        .filter(|_| has(ImpRecord::Occupancy))
    {
        subnet.obs.retain_occupancy = true;
        written.occupancy = Some((nmc_sim::Records::to_sink(csv(path)?), path.clone()));
    }
    let mut sim = Simulation::new(subnet);
    {
        let mut q = nmc_sim::EventQueue::new();
        sim.model.initial_events(&mut q, &starts);
        while let Some((t, e)) = q.pop() {
            sim.schedule(t, e);
        }
    }
    let end = SimTime::ZERO + s.duration;
    let mut at = SimTime::ZERO;
    for k in 1..=50u64 {
        let until = SimTime::from_nanos((end.as_nanos() as u128 * k as u128 / 50) as u64);
        // Stopping on the way changes nothing: events run in the same order either way.
        loop {
            at = if written.is_on() {
                until.min(at + WRITE_EVERY)
            } else {
                until
            };
            sim.run_while(at, |m, _| m.obs.lockup.is_none());
            written.drain(&mut sim.model);
            if at >= until || sim.model.obs.lockup.is_some() {
                break;
            }
        }
        progress(k as f64 / 50.0);
        if sim.model.obs.lockup.is_some() {
            break;
        }
    }
    let events = sim.events_handled();
    let ran = sim.now().since(SimTime::ZERO);
    let mut m = sim.model;
    m.trace
        .finish()
        .map_err(|e| BuildError(format!("writing the trace: {e}")))?;
    written.close(&mut m).map_err(BuildError)?;
    let mut o = finish(m, seed, ran, events);
    written
        .add_metrics(&mut o.metrics, o.measure_from, o.duration - o.measure_from)
        .map_err(BuildError)?;
    Ok(o)
}

#[cfg(test)]
/// Runs until `end`, then stops every pump and keeps going until `drain` more has passed;
/// for checks that every resource comes back.
pub(crate) fn run_and_drain(
    s: &ImpConfig,
    seed: u64,
    drain: SimDuration,
) -> Result<Outcome, BuildError> {
    let (subnet, starts) = build(s, seed, Trace::off())?;
    let mut sim = Simulation::new(subnet);
    let mut q = nmc_sim::EventQueue::<crate::model::Ev>::new();
    sim.model.initial_events(&mut q, &starts);
    while let Some((t, e)) = q.pop() {
        sim.schedule(t, e);
    }
    let going = |m: &Subnet, _: SimTime| m.obs.lockup.is_none();
    sim.run_while(SimTime::ZERO + s.duration, going);
    for h in &mut sim.model.hosts {
        if let Some(p) = h.pump.as_mut() {
            p.count = Some(p.offered);
        }
        if let Some(g) = h.generator.as_mut() {
            g.count = Some(g.offered);
        }
        if let Some(b) = h.background.as_mut() {
            b.stopped = true;
        }
    }
    sim.run_while(SimTime::ZERO + s.duration + drain, going);
    let events = sim.events_handled();
    let ran = sim.now().since(SimTime::ZERO);
    Ok(finish(sim.model, seed, ran, events))
}

/// The [`Outcome`] of the finished subnet `m`, run for `duration` in `events` events: its
/// lines' figures ([`line_records`]), the pair's and the network's metrics (the messages'
/// [`crate::analysis`], the background's, the processors', the routing's) and the records kept.
fn finish(mut m: Subnet, seed: u64, duration: SimDuration, events: u64) -> Outcome {
    // The measured window: from `measure_from` (if the run got that far) to the end.
    let from = if m.obs.busy_at_measure.is_empty() || m.obs.measure_from >= duration {
        SimDuration::ZERO
    } else {
        m.obs.measure_from
    };
    let lines = line_records(&m, from, duration);
    let hops = m.obs.watch.and_then(|(s, d)| m.topo.hops(s, d));
    let packet_hops = m.links().map(|l| l.in_accepted).sum();
    let idle_at_end = m.all_idle();
    let held_at_end = m.held();
    let mut metrics = ImpMetrics {
        counts: m.obs.counts.clone(),
        ..ImpMetrics::default()
    };
    let (n, sum, max) = m.obs.rfnm_waits;
    if n > 0 {
        metrics.rfnm_wait_at_destination = Some(MeanMax {
            mean: sum as f64 / n as f64 / 1e6,
            max: max as f64 / 1e6,
        });
    }
    let in_flight = m.undelivered();
    let mut messages = std::mem::take(&mut m.obs.done);
    for r in &mut messages {
        r.delivered_ns = m.obs.delivered_at.get(&r.id).map(|t| t.as_nanos());
    }
    messages.sort_by_key(|r| r.id);
    let from_ns = from.as_nanos();
    let measured: Vec<MessageRecord> = messages
        .iter()
        .filter(|r| r.rfnm_ns.is_some_and(|t| t >= from_ns))
        .cloned()
        .collect();
    let occupancy: Vec<Occupancy> = m
        .obs
        .occupancy
        .iter()
        .filter(|o| o.t_ns >= from_ns)
        .cloned()
        .collect();
    crate::analysis::add_metrics(&mut metrics, &measured, &occupancy, duration - from);
    if !m.obs.retain_messages {
        m.obs
            .stream_stats
            .message_metrics(&mut metrics.pair, duration - from);
    }
    if !m.obs.retain_occupancy {
        m.obs.stream_stats.occupancy_metrics(&mut metrics);
    }
    metrics.events = events;
    // Every message accounted for: offered = delivered + in flight + lost, with "in flight"
    // counted where the messages are (see `Subnet::undelivered`), so `lost` is what is missing.
    let t = &m.obs.tally;
    metrics.messages = MessageTally {
        offered: t.offered,
        delivered: t.delivered,
        answered: t.answered,
        in_flight,
        lost: t.offered as f64 - t.delivered as f64 - in_flight as f64,
        retransmissions: messages.iter().map(|r| r.retransmissions as f64).sum(),
    };
    metrics.background = background_metrics(t, duration);
    processing_metrics(&m, duration, &mut metrics);
    if !lines.is_empty() {
        let u: Vec<f64> = lines.iter().map(|l| l.utilisation).collect();
        metrics.lines_utilisation = Some(MeanMax {
            mean: u.iter().sum::<f64>() / u.len() as f64,
            max: u.iter().copied().fold(0.0, f64::max),
        });
    }
    metrics.order_violations = m.obs.order_violations;
    metrics.lockup_at_s = m.obs.lockup.as_ref().map(|l| l.detected_ns as f64 / 1e9);
    metrics.hops = hops;
    let routing = routing_records(&mut m, duration, &mut metrics);
    Outcome {
        seed,
        params: m.params,
        duration,
        measure_from: from,
        messages,
        occupancy: m.obs.occupancy,
        lines,
        metrics,
        events,
        packet_hops,
        hops,
        order_violations: m.obs.order_violations,
        idle_at_end,
        held_at_end,
        e2e: m.obs.e2e.unwrap_or_default(),
        trace_stopped_at: m.trace.stopped_at(),
        lockup: m.obs.lockup,
        routing,
        slices: m.obs.slices,
    }
}

/// Each link's figures over the measured window (`from` to `duration`), in topology order.
fn line_records(m: &Subnet, from: SimDuration, duration: SimDuration) -> Vec<LineRecord> {
    let secs = (duration - from).as_secs_f64();
    let busy_before = |k: usize| {
        if from.is_zero() {
            SimDuration::ZERO
        } else {
            m.obs.busy_at_measure[k]
        }
    };
    let names = |i: u32| m.imps[i as usize].name.clone();
    m.links()
        .enumerate()
        .map(|(k, l)| LineRecord {
            from: names(l.def.from),
            to: names(l.def.to),
            capacity_bps: l.def.capacity.bps(),
            propagation_ns: l.def.propagation.as_nanos(),
            frames: l.frames,
            packet_frames: l.data_frames,
            retransmissions: l.retransmissions,
            corrupted: m.link(l.reverse).in_corrupted,
            rejected: m.link(l.reverse).in_rejected,
            duplicates: m.link(l.reverse).in_duplicates,
            utilisation: ((l.busy_time - busy_before(k)).as_secs_f64() / secs).min(1.0),
            max_queue: l.max_queue,
            watched_packets: m.obs.hop_waits.get(k).map_or(0, |w| w.0),
            watched_wait_ms: m
                .obs
                .hop_waits
                .get(k)
                .filter(|w| w.0 > 0)
                .map_or(f64::NAN, |w| w.1 as f64 / w.0 as f64 / 1e6),
        })
        .collect()
}

/// The background load's figures (`None` without one), over the whole run.
fn background_metrics(
    t: &crate::observe::BackgroundTally,
    duration: SimDuration,
) -> Option<BackgroundMetrics> {
    if t.background_offered == 0 {
        return None;
    }
    let secs = duration.as_secs_f64();
    Some(BackgroundMetrics {
        offered: t.background_offered,
        delivered: t.background_delivered,
        refused: t.background_refused,
        packets_per_message: t.background_packets as f64 / t.background_offered as f64,
        offered_per_s: t.background_offered as f64 / secs,
        rtt_by_hops: t
            .background_by_hops
            .iter()
            .map(|(h, (n, sum))| {
                let mean_ms = *sum as f64 / (*n).max(1) as f64 / 1e6;
                (
                    *h,
                    HopsRtt {
                        messages: *n,
                        mean_ms,
                    },
                )
            })
            .collect(),
        rtt_mean_ms: (t.background_answered > 0)
            .then(|| t.background_rtt_ns as f64 / t.background_answered as f64 / 1e6),
    })
}

/// Each machine's processor figures (K&O §III: 316 and 516), over the IMPs of that machine.
fn processing_metrics(m: &Subnet, duration: SimDuration, metrics: &mut ImpMetrics) {
    for model in [crate::params::ImpModel::H316, crate::params::ImpModel::H516] {
        let name = model.name();
        let imps: Vec<&crate::imp::Imp> = m.imps.iter().filter(|i| i.model == model).collect();
        let tasks: u64 = imps.iter().map(|i| i.cpu.tasks).sum();
        if tasks == 0 {
            continue;
        }
        let wait: u128 = imps.iter().map(|i| i.cpu.wait_ns).sum();
        let max = imps.iter().map(|i| i.cpu.wait_max_ns).max().unwrap_or(0);
        let busy: u128 = imps.iter().map(|i| i.cpu.busy_ns).sum();
        metrics.processing.insert(
            name,
            ProcessingMetrics {
                imps: imps.len() as u64,
                wait_mean_ms: wait as f64 / tasks as f64 / 1e6,
                wait_max_ms: max as f64 / 1e6,
                utilisation_mean: busy as f64
                    / imps.len() as f64
                    / duration.as_nanos().max(1) as f64,
            },
        );
    }
}

/// The routing's metrics into `metrics` and its records, when routing was in play (adaptive or
/// SPF routes, or line events); empty records otherwise.
fn routing_records(
    m: &mut Subnet,
    duration: SimDuration,
    metrics: &mut ImpMetrics,
) -> RoutingRecords {
    if m.routing.in_play() {
        m.routing.close_open_loops(&m.topo.names);
        metrics.routing = Some(
            m.routing
                .metrics(duration.as_nanos(), &m.obs.journeys.stats),
        );
        let r = &mut m.routing;
        RoutingRecords {
            counts: r.counts,
            route_changes: std::mem::take(&mut r.route_changes),
            loops: std::mem::take(&mut r.loops),
            journeys: std::mem::take(&mut m.obs.journeys.records),
            source_sends: std::mem::take(&mut r.source_sends),
            line_samples: std::mem::take(&mut r.line_samples),
        }
    } else {
        RoutingRecords::default()
    }
}
