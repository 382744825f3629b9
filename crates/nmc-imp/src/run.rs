//! Building a subnet from a scenario, running it, and what comes out.

use crate::metric::{
    BackgroundMetrics, HopsRtt, ImpMetrics, MeanMax, MessageTally, ProcessingMetrics,
};
use crate::model::{Action, Generator, Host, Pump, Subnet, Window};
use crate::observe::{E2eEvent, JourneyRecord, LockupReport, MessageRecord, Occupancy};
use crate::params::ImpParams;
use crate::records::{MessageFile, Written};
use crate::routing::{LineSample, LoopRecord, RouteChange, RoutingCounts, SourceSend};
use crate::spec::{EventSpec, ImpConfig, ImpRecord, RoutingMode, TopologySpec, TrafficSpec};
use crate::topology::{Routes, Topology};
use nmc_sim::{SimDuration, SimTime, Simulation, Trace};
use serde::Serialize;
use std::collections::BTreeMap;

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
    pub(crate) propagation_ns: u64,
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

/// The shortest lockup window: the watch looks every quarter window, so a window of a few
/// nanoseconds looped at one instant (issue 33); a millisecond is far below any lockup's scale.
pub(crate) const MIN_LOCKUP_WINDOW: SimDuration = SimDuration::from_millis(1);

/// The shortest occupancy sampling period: a sample every nanosecond (`sample_period =
/// "1ns"`) crawled through one simulated second in minutes (issue 33); the shipped scenarios
/// sample every 10 or 100 ms.
pub(crate) const MIN_SAMPLE_PERIOD: SimDuration = SimDuration::from_millis(1);

/// Issue 33: an observer that would crawl or loop at one instant is refused in one line.
fn check_observation(s: &ImpConfig) -> Result<(), BuildError> {
    let n = &s.network;
    if n.sample_period < MIN_SAMPLE_PERIOD {
        return Err(BuildError(format!(
            "network.sample_period = {}: at least {MIN_SAMPLE_PERIOD}",
            n.sample_period
        )));
    }
    if !n.lockup_window.is_zero() && n.lockup_window < MIN_LOCKUP_WINDOW {
        return Err(BuildError(format!(
            "network.lockup_window = {}: 0s (no watch) or at least {MIN_LOCKUP_WINDOW}",
            n.lockup_window
        )));
    }
    Ok(())
}

/// Time slices one run may take (`network.slices`): `nmc run` draws each as a file of its own.
pub const MAX_SLICES: usize = 1000;

/// Issue 33: a scenario whose metrics would start at or after its end measures nothing it was
/// set up to measure, and a time slice after the end is never taken. Refused where a
/// user's scenario is read (`nmc run`, Python); the model itself still runs such a
/// configuration (tests cut scenarios short to look at events), and then measures the whole
/// run.
pub fn check_observed_times(s: &ImpConfig) -> Result<(), BuildError> {
    let n = &s.network;
    if !n.measure_from.is_zero() && n.measure_from >= s.duration {
        return Err(BuildError(format!(
            "network.measure_from = {} is not before the run's end (duration = {}): nothing would be measured",
            n.measure_from, s.duration
        )));
    }
    if let Some(t) = n.slices.iter().find(|&&t| t > s.duration) {
        return Err(BuildError(format!(
            "network.slices: {t} is past the run's end (duration = {}): that slice would never be taken",
            s.duration
        )));
    }
    if n.slices.len() > MAX_SLICES {
        return Err(BuildError(format!(
            "network.slices: {} instants; at most {MAX_SLICES} (each is drawn as a file of its own)",
            n.slices.len()
        )));
    }
    Ok(())
}

/// Builds the subnet a scenario describes.
pub fn build(
    s: &ImpConfig,
    seed: u64,
    trace: Trace,
) -> Result<(Subnet, Vec<(u32, SimDuration)>), BuildError> {
    if s.network.program.is_some() {
        // Issue 73 §3: the program's IMPs run on the emulator (`nmc_oracle::program`), never
        // here; a caller that reaches the model with such a scenario is told, not misled.
        return Err(BuildError(
            "network.program: this scenario's IMPs run the IMP program on the emulator; run it with `nmc run` (this command runs the model only; remove [network.program] to run the model)".into(),
        ));
    }
    s.check_records::<ImpRecord>()?;
    check_observation(s)?;
    let params = s.network.params.clone();
    params.validate().map_err(BuildError)?;
    check_state_size(&s.network.topology, s.network.routing)?;
    let topo = Topology::build(&s.network.topology).map_err(BuildError)?;
    let mut hosts: Vec<Host> = Vec::new();
    for (i, h) in s.network.hosts.iter().enumerate() {
        let imp = topo.index(&h.imp).ok_or_else(|| {
            BuildError(format!(
                "network.hosts[{i}]: `{}` is attached to `{}`, which is not an IMP of this network",
                h.name, h.imp
            ))
        })?;
        if hosts.iter().any(|x| x.name == h.name) {
            return Err(BuildError(format!(
                "network.hosts[{i}]: a second host named `{}`",
                h.name
            )));
        }
        hosts.push(Host::new(h.name.clone(), imp));
    }
    let host = |name: &str, at: String| {
        hosts
            .iter()
            .position(|h| h.name == name)
            .map(|i| i as u32)
            .ok_or_else(|| BuildError(format!("{at}: no host named `{name}` in network.hosts")))
    };
    let mut starts = Vec::new();
    let mut pumps = Vec::new();
    let mut actions = Vec::new();
    let mut generators = Vec::new();
    let mut background: Option<(usize, &crate::spec::BackgroundSpec)> = None;
    let mut pair_sets = Vec::new();
    for (i, t) in s.traffic.iter().enumerate() {
        match t {
            TrafficSpec::Pairs {
                pairs,
                message,
                start,
                count,
            } => {
                if *pairs == 0 {
                    return Err(BuildError(format!("traffic[{i}].pairs must be at least 1")));
                }
                if message.get() == 0 || message.get() > params.max_message.get() {
                    return Err(BuildError(format!(
                        "traffic[{i}].message = {message}: a message holds 1 to {} data bits",
                        params.max_message
                    )));
                }
                pair_sets.push((i, *pairs, message.get(), *start, *count));
            }
            TrafficSpec::Background(b) => {
                if background.is_some() {
                    return Err(BuildError(format!(
                        "traffic[{i}]: a second background; one describes the whole network's load"
                    )));
                }
                background = Some((i, b));
            }
            TrafficSpec::Pump {
                from,
                to,
                message,
                start,
                count,
                outstanding,
            } => {
                let (a, b) = (
                    host(from, format!("traffic[{i}].from"))?,
                    host(to, format!("traffic[{i}].to"))?,
                );
                let (ia, ib) = (hosts[a as usize].imp, hosts[b as usize].imp);
                if ia == ib {
                    return Err(BuildError(format!(
                        "traffic[{i}]: `{from}` and `{to}` are on the same IMP; nmc models traffic through the subnet only"
                    )));
                }
                if topo.next_link(ia, ib).is_none() {
                    return Err(BuildError(format!(
                        "traffic[{i}]: host `{to}` is unreachable from `{from}`: no path between their IMPs"
                    )));
                }
                if message.get() == 0 || message.get() > params.max_message.get() {
                    return Err(BuildError(format!(
                        "traffic[{i}].message = {message}: a message holds 1 to {} data bits",
                        params.max_message
                    )));
                }
                if s.network.hosts[a as usize].fake {
                    return Err(BuildError(format!(
                        "traffic[{i}].from: `{from}` is a fake host inside its IMP; only a host on an interface runs a pump"
                    )));
                }
                if hosts[a as usize].pump.is_some() {
                    return Err(BuildError(format!(
                        "traffic[{i}]: host `{from}` already runs a pump"
                    )));
                }
                pumps.push((
                    a,
                    Pump {
                        dst_host: b,
                        bits: message.get(),
                        count: *count,
                        offered: 0,
                        window: match outstanding {
                            Some(0) => {
                                return Err(BuildError(format!(
                                    "traffic[{i}].outstanding: 0 would never send; give 1 or more, or leave it out for K&O's pump"
                                )))
                            }
                            Some(n) => Some(Window::new(*n)),
                            None => None,
                        },
                    },
                ));
                starts.push((a, *start));
            }
            TrafficSpec::Generator {
                imp,
                to,
                message,
                outstanding,
                start,
                count,
                pauses,
            } => {
                let at = format!("traffic[{i}]");
                let src = topo.index(imp).ok_or_else(|| {
                    BuildError(format!("{at}.imp: `{imp}` is not an IMP of this network"))
                })?;
                let b = host(to, format!("{at}.to"))?;
                let dst = hosts[b as usize].imp;
                if src == dst {
                    return Err(BuildError(format!(
                        "{at}: host `{to}` is on the generator's own IMP `{imp}`; nmc models traffic through the subnet only"
                    )));
                }
                if topo.next_link(src, dst).is_none() {
                    return Err(BuildError(format!(
                        "{at}: host `{to}` is unreachable from IMP `{imp}`"
                    )));
                }
                if message.get() == 0 || message.get() > params.max_packet.get() {
                    return Err(BuildError(format!(
                        "{at}.message = {message}: the IMP message generator sends single-packet messages of 1 to {} data bits",
                        params.max_packet
                    )));
                }
                if *outstanding == 0 {
                    return Err(BuildError(format!("{at}.outstanding must be at least 1")));
                }
                let h = (hosts.len() + generators.len()) as u32;
                let name = format!("{imp} message generator {i}");
                for (k, p) in pauses.iter().enumerate() {
                    if p.length.is_zero() {
                        return Err(BuildError(format!(
                            "{at}.pauses[{k}].length must be above zero"
                        )));
                    }
                    actions.push((p.at, Action::Pause { host: h }));
                    actions.push((p.at + p.length, Action::Resume { host: h }));
                }
                generators.push(Host {
                    generator: Some(Generator {
                        dst_host: b,
                        bits: message.get(),
                        outstanding: *outstanding,
                        in_flight: 0,
                        count: *count,
                        offered: 0,
                        paused: false,
                    }),
                    ..Host::new(name, src)
                });
                starts.push((h, *start));
            }
        }
    }
    for (a, p) in pumps {
        hosts[a as usize].pump = Some(p);
    }
    hosts.extend(generators);
    for (i, pairs, bits, start, count) in pair_sets {
        add_pairs(&mut hosts, &topo, i, pairs, bits, count, seed)?
            .into_iter()
            .for_each(|h| starts.push((h, start)));
    }
    let mut background_start = SimDuration::ZERO;
    if let Some((i, b)) = background {
        background_start = b.start;
        add_background(&mut hosts, &topo, &params, i, b, seed)?;
    }
    for (k, e) in s.network.events.iter().enumerate() {
        let at = format!("network.events[{k}]");
        let imp = |n: &str, key: &str| {
            topo.index(n).ok_or_else(|| {
                BuildError(format!("{at}.{key}: `{n}` is not an IMP of this network"))
            })
        };
        let line = |a: u32, b: u32| {
            topo.links
                .iter()
                .position(|l| l.from == a && l.to == b)
                .map(|l| l as u32)
        };
        match e {
            EventSpec::LineError { at: t, from, to } => {
                let (a, b) = (imp(from, "from")?, imp(to, "to")?);
                let link =
                    line(a, b).ok_or_else(|| BuildError(format!("{at}: no line {from}–{to}")))?;
                actions.push((*t, Action::LineError { link }));
            }
            EventSpec::Detour { at: t, imp: i, via } => {
                let (a, b) = (imp(i, "imp")?, imp(via, "via")?);
                let link = line(a, b)
                    .ok_or_else(|| BuildError(format!("{at}: `{i}` has no line to `{via}`")))?;
                actions.push((*t, Action::Detour { imp: a, link }));
            }
        }
    }
    let sample = s.network.sample_period;
    if sample.is_zero() {
        return Err(BuildError(
            "network.sample_period must be above zero".into(),
        ));
    }
    let mut subnet = Subnet::new(params, topo, hosts, seed, sample, trace);
    subnet.background_start = background_start;
    let mut named: BTreeMap<u32, crate::params::ImpModel> = BTreeMap::new();
    for (model, sites) in &s.network.imp_models {
        for (k, n) in sites.iter().enumerate() {
            let model_name = model.name();
            let at = format!("network.imp_models.{model_name}[{k}]");
            let x = subnet
                .topo
                .index(n)
                .ok_or_else(|| BuildError(format!("{at}: `{n}` is not an IMP of this network")))?;
            if named.insert(x, *model).is_some() {
                return Err(BuildError(format!("{at}: `{n}` is named twice")));
            }
            subnet.imps[x as usize].model = *model;
        }
    }
    for (k, n) in s.network.vdh.iter().enumerate() {
        let at = format!("network.vdh[{k}]");
        let x = subnet
            .topo
            .index(n)
            .ok_or_else(|| BuildError(format!("{at}: `{n}` is not an IMP of this network")))?;
        let p = &subnet.params;
        if p.reassembly_buffers_vdh < p.allocation_buffers
            || p.reassembly_buffers_vdh > p.buffers_vdh
        {
            return Err(BuildError(format!(
                "{at}: reassembly_buffers_vdh ({}) must hold one allocation ({}) and fit in buffers_vdh ({})",
                p.reassembly_buffers_vdh, p.allocation_buffers, p.buffers_vdh
            )));
        }
        let i = &mut subnet.imps[x as usize];
        i.buffers = p.buffers_vdh;
        i.reasm_max = p.reassembly_buffers_vdh;
    }
    // A fake host is the IMP's own (BBN 3050 p. 243: the discard host beside the real hosts
    // of the same IMP); hosts are taken in order, so each IMP's list is sorted.
    for (i, _) in s.network.hosts.iter().enumerate().filter(|(_, h)| h.fake) {
        let imp = subnet.hosts[i].imp;
        subnet.imps[imp as usize].fake_hosts.push(i as u32);
    }
    // Stable by time: actions at one instant keep the scenario's order.
    actions.sort_by_key(|(t, _)| *t);
    subnet.actions = actions;
    subnet.obs.lockup_window = s.network.lockup_window;
    subnet.obs.measure_from = s.network.measure_from;
    subnet.obs.slice_at = s.network.slices.clone();
    if s.wants(ImpRecord::E2e) {
        subnet.obs.e2e = Some(Vec::new());
    }
    subnet
        .routing
        .configure(&s.network, &subnet.params, &subnet.topo)
        .map_err(BuildError)?;
    Ok((subnet, starts))
}

#[allow(
    dead_code,
    reason = "the budget named here; the check reads it through StateBudget"
)]
/// The most memory a subnet's own state may need: [`nmc_sim::limits::MAX_STATE_BYTES`] (8 GiB),
/// the budget both models share. A network that needs more is refused before anything is
/// allocated (issue 33: a chain of 4e9 hops asked for 96 GB at once and aborted).
pub(crate) const MAX_STATE_BYTES: u64 = nmc_sim::limits::MAX_STATE_BYTES;
/// State per IMP with its lines, hosts' tables and queues: about 10 kB
/// (docs/src/performance.md, "How far one process goes": 5.5 kB measured on an empty chain,
/// 10 kB on the maps), one line per IMP included (a chain has one, a map a little more).
pub(crate) const STATE_BYTES_PER_IMP: u64 = 10_000;
/// State per line beyond one per IMP: 3 kB, a choice rounded up from 2.8–2.9 kB measured
/// (peak RSS of 1,000-IMP meshes at degree 200 and 999, 100,000 and 499,500 lines). Issue 57 §3:
/// the estimate counted IMPs only, so a mesh of high degree (`degree = "999..999"`, a complete
/// graph) passed it and was built whatever its size.
pub(crate) const STATE_BYTES_PER_LINE: u64 = 3_000;
/// Routing state per (IMP, destination) pair with adaptive or SPF routing: every IMP keeps an
/// entry for every IMP (83 B measured with `adaptive`, 73 with `spf`, on 2,000- and 4,000-IMP
/// chains); static routes keep one link per IMP and destination only where asked.
pub(crate) const ROUTING_BYTES_PER_PAIR: u64 = 100;

/// Refuses, in one line, a topology whose state would pass this machine's budget
/// ([`nmc_sim::limits::StateBudget`]: [`MAX_STATE_BYTES`], or half the memory the process may
/// have when that is less), from the counts the scenario states, before anything is built (a map is a few dozen sites and needs
/// no check). A mesh is counted at the most lines its degree allows (`imps` × `max` / 2): the
/// generator's own tables are sized by it too.
fn check_state_size(topology: &TopologySpec, routing: RoutingMode) -> Result<(), BuildError> {
    let (key, imps, lines) = match topology {
        TopologySpec::Chain { hops, .. } => (
            "network.topology.hops",
            u64::from(*hops) + 1,
            u64::from(*hops),
        ),
        TopologySpec::Mesh { imps, degree, .. } => (
            "network.topology.imps",
            u64::from(*imps),
            u64::from(*imps).saturating_mul(u64::from(degree.max)) / 2,
        ),
        TopologySpec::Lines { imps, lines } => (
            "network.topology.imps",
            imps.len() as u64,
            lines.len() as u64,
        ),
        TopologySpec::Map { .. } => return Ok(()),
    };
    let pairs = match routing {
        RoutingMode::Static => 0,
        _ => imps.saturating_mul(imps),
    };
    let more_lines = lines.saturating_sub(imps);
    let bytes = imps
        .saturating_mul(STATE_BYTES_PER_IMP)
        .saturating_add(more_lines.saturating_mul(STATE_BYTES_PER_LINE))
        .saturating_add(pairs.saturating_mul(ROUTING_BYTES_PER_PAIR));
    let budget = nmc_sim::limits::StateBudget::here();
    if bytes <= budget.bytes {
        return Ok(());
    }
    let routing = match routing {
        RoutingMode::Static => String::new(),
        r => format!(
            " and {} routing ({ROUTING_BYTES_PER_PAIR} B per IMP pair)",
            serde_json::to_value(r)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default()
        ),
    };
    let (key, lines_text) = match topology {
        TopologySpec::Mesh { degree, .. } if more_lines > 0 => (
            "network.topology.imps, degree",
            format!(" with up to {lines} lines (degree up to {})", degree.max),
        ),
        _ if more_lines > 0 => (key, format!(" with {lines} lines")),
        _ => (key, String::new()),
    };
    let per_line = if more_lines > 0 {
        format!(", {} kB a further line", STATE_BYTES_PER_LINE / 1000)
    } else {
        String::new()
    };
    Err(BuildError(format!(
        "{key}: {imps} IMPs{lines_text}{routing} need about {:.1} GB of model state ({} kB an IMP{per_line}); at most {:.1} GB here ({}): fewer IMPs{}{}",
        bytes as f64 / 1e9,
        STATE_BYTES_PER_IMP / 1000,
        budget.bytes as f64 / 1e9,
        budget.why,
        if more_lines > 0 { " or lines" } else { "" },
        if pairs > 0 { ", or static routing" } else { "" }
    )))
}

/// The most host pairs one `kind = "pairs"` entry may add: 50 times the largest shipped case
/// (`mesh-1000`'s 200).
pub(crate) const MAX_PAIRS: u64 = 10_000;

/// Adds `pairs` host pairs for `traffic[i]` (`kind = "pairs"`), each running a pump, on IMPs
/// drawn from the seed; returns the pumping hosts.
fn add_pairs(
    hosts: &mut Vec<Host>,
    topo: &Topology,
    i: usize,
    pairs: u32,
    bits: u64,
    count: Option<u64>,
    seed: u64,
) -> Result<Vec<u32>, BuildError> {
    let n = topo.names.len() as u64;
    if n < 2 {
        return Err(BuildError(format!(
            "traffic[{i}]: host pairs need a network of at least two IMPs"
        )));
    }
    // Issue 33: a stated limit before anything is allocated (each pair is two hosts with
    // their own state on every IMP's tables).
    nmc_sim::limits::at_most(
        &format!("traffic[{i}].pairs"),
        u64::from(pairs),
        MAX_PAIRS,
        " host pairs",
    )
    .map_err(|e| BuildError(e.to_string()))?;
    // A stream of its own, apart from every line's and background host's.
    let mut rng = nmc_sim::RngStreams::new(seed).stream(crate::model::pairs_stream(i));
    let mut sources = Vec::with_capacity(pairs as usize);
    for k in 0..pairs {
        let mut found = None;
        for _ in 0..1000 {
            let a = rng.uniform_inclusive(0, n - 1) as u32;
            let mut b = rng.uniform_inclusive(0, n - 2) as u32;
            if b >= a {
                b += 1;
            }
            if topo.next_link(a, b).is_some() {
                found = Some((a, b));
                break;
            }
        }
        let Some((a, b)) = found else {
            return Err(BuildError(format!(
                "traffic[{i}]: no two IMPs with a path between them found for pair {k}"
            )));
        };
        let names = [format!("PAIR{k}-SRC"), format!("PAIR{k}-DST")];
        for name in &names {
            if hosts.iter().any(|h| &h.name == name) {
                return Err(BuildError(format!(
                    "traffic[{i}]: a host is already named `{name}`, the name of a pair's host"
                )));
            }
        }
        let src = hosts.len() as u32;
        for (name, imp) in names.into_iter().zip([a, b]) {
            hosts.push(Host::new(name, imp));
        }
        hosts[src as usize].pump = Some(Pump {
            dst_host: src + 1,
            bits,
            count,
            offered: 0,
            window: None,
        });
        sources.push(src);
    }
    Ok(sources)
}

/// The smallest `hop_decay`: below it `decay^hops` underflows on a large network and a
/// source's weights can all be zero.
pub(crate) const MIN_HOP_DECAY: f64 = 0.01;

/// How a background source weighs each destination (`BackgroundSpec::hop_decay`).
pub(crate) struct Pairing<'a> {
    topo: &'a Topology,
    weights: Vec<f64>,
    decay: f64,
    balance: Vec<f64>,
}

impl<'a> Pairing<'a> {
    /// The pairing of `b` among `imps` (its background hosts' IMPs) on `topo`.
    pub(crate) fn new(topo: &'a Topology, imps: &[u32], b: &crate::spec::BackgroundSpec) -> Self {
        let weights: Vec<f64> = topo.names.iter().map(|n| b.destination_weight(n)).collect();
        let balance = balance_destinations(
            topo,
            imps,
            &|x| b.origin_weight(&topo.names[x as usize]),
            &|y| weights[y as usize],
            b.hop_decay,
        );
        Pairing {
            topo,
            weights,
            decay: b.hop_decay,
            balance,
        }
    }

    /// The relative weight with which a source at `x` picks destination `y`.
    pub(crate) fn weight(&self, x: u32, y: u32) -> f64 {
        if self.decay == 1.0 {
            self.weights[y as usize]
        } else {
            let h = self.topo.hops(x, y).unwrap_or(0) as i32;
            self.weights[y as usize] * self.balance[y as usize] * self.decay.powi(h)
        }
    }
}

/// The share of `b`'s messages between IMPs `h` minimum hops apart, for each `h` (issue 54: RFC
/// 619 Table 1 gives the real network's messages by minimum hops, December 1973). Expected
/// shares from the weights, not a count of a run's messages. `b.imps` empty: every IMP.
pub fn background_hop_shares(
    topo: &Topology,
    b: &crate::spec::BackgroundSpec,
) -> BTreeMap<u32, f64> {
    let imps: Vec<u32> = if b.imps.is_empty() {
        (0..topo.names.len() as u32).collect()
    } else {
        b.imps.iter().filter_map(|n| topo.index(n)).collect()
    };
    let origin = |x: u32| b.origin_weight(&topo.names[x as usize]);
    let pair = Pairing::new(topo, &imps, b);
    let total: f64 = imps.iter().map(|&x| origin(x)).sum();
    let mut shares = BTreeMap::new();
    for &x in &imps {
        let to: Vec<(u32, f64)> = imps
            .iter()
            .filter(|&&y| y != x)
            .filter_map(|&y| Some((topo.hops(x, y)?, pair.weight(x, y))))
            .collect();
        let sum: f64 = to.iter().map(|t| t.1).sum();
        for (h, wt) in to {
            *shares.entry(h).or_insert(0.0) += origin(x) / total * wt / sum;
        }
    }
    shares
}

/// Rounds of the balancing in [`balance_destinations`]: the column sums agree with their
/// targets to better than 1e-9 on the 1974 map well before this.
const BALANCING_ROUNDS: usize = 200;

/// The balancing factors B_j of a doubly constrained gravity model (`BackgroundSpec::hop_decay`),
/// indexed by IMP: with them, the origins' shares spread over destinations ∝ weight × B ×
/// decay^hops send each IMP its share of the destination weights (Furness's iteration, a fixed
/// number of rounds in a fixed order, so the same inputs give the same bits). All 1 when
/// `decay` is 1 (the pairs are then not balanced, as before the parameter).
fn balance_destinations(
    topo: &Topology,
    imps: &[u32],
    origin: &dyn Fn(u32) -> f64,
    weight: &dyn Fn(u32) -> f64,
    decay: f64,
) -> Vec<f64> {
    let mut b = vec![1.0; topo.names.len()];
    if decay == 1.0 {
        return b;
    }
    // Reachable pairs and their decay, once.
    let pairs: Vec<Vec<(u32, f64)>> = imps
        .iter()
        .map(|&x| {
            imps.iter()
                .filter(|&&y| y != x)
                .filter_map(|&y| Some((y, decay.powi(topo.hops(x, y)? as i32))))
                .collect()
        })
        .collect();
    let total_origin: f64 = imps.iter().map(|&x| origin(x)).sum();
    let total_weight: f64 = imps.iter().map(|&y| weight(y)).sum();
    let mut received = vec![0.0; topo.names.len()];
    for _ in 0..BALANCING_ROUNDS {
        received.iter_mut().for_each(|r| *r = 0.0);
        for (&x, to) in imps.iter().zip(&pairs) {
            let sum: f64 = to.iter().map(|&(y, f)| b[y as usize] * weight(y) * f).sum();
            if sum == 0.0 {
                continue;
            }
            let share = origin(x) / total_origin;
            for &(y, f) in to {
                received[y as usize] += share * b[y as usize] * weight(y) * f / sum;
            }
        }
        for &y in imps {
            if received[y as usize] > 0.0 {
                b[y as usize] *= weight(y) / total_weight / received[y as usize];
            }
        }
    }
    b
}

/// One background host's plan (`kind = "background"`, `model/background.rs`): where it is, how
/// often its bursts come, where its messages go and how long they are. The model's background
/// hosts are built from these, and so are the emulated IMPs' (`nmc oracle emulate-map`), so
/// both networks are offered the same traffic from the same seed.
#[derive(Clone, Debug)]
pub struct BackgroundSite {
    /// The IMP (topology index).
    pub imp: u32,
    /// Its random stream's number in the run's `nmc_sim::RngStreams` (its arrivals, bursts,
    /// destinations and lengths, drawn in that order: [`crate::model::LengthMix`]).
    pub stream: u64,
    /// Mean time between its bursts, ns.
    pub mean_interval_ns: f64,
    /// Destination IMPs with cumulative probabilities (the last is 1); empty if none is
    /// reachable.
    pub dests: Vec<(u32, f64)>,
    /// Its messages' lengths and bursts.
    pub mix: crate::model::LengthMix,
    /// Messages that may wait at the host; arrivals beyond are refused.
    pub host_queue: u32,
    /// When its arrivals start, from the start of the run.
    pub start: nmc_sim::SimDuration,
}

/// The background hosts traffic entry `i` (`b`) puts on `topo`: one on each IMP it names (all
/// when none), each with its share of the arrivals and its destinations by the gravity weights
/// (see `model/background.rs`). Errors name the entry's key at fault.
pub fn background_sites(
    topo: &Topology,
    params: &ImpParams,
    i: usize,
    b: &crate::spec::BackgroundSpec,
) -> Result<Vec<BackgroundSite>, BuildError> {
    let at = format!("traffic[{i}]");
    let bad = |k: &str, why: &str| BuildError(format!("{at}.{k}: {why}"));
    if !(b.messages_per_second.is_finite() && b.messages_per_second > 0.0) {
        return Err(bad("messages_per_second", "must be above zero"));
    }
    if !(0.0..=1.0).contains(&b.single_packet_fraction) {
        return Err(bad("single_packet_fraction", "must be in [0, 1]"));
    }
    let p = params.max_packet.get();
    if b.single_mean.get() == 0 || b.single_mean.get() > p {
        return Err(bad("single_mean", &format!("must be 1 to {p} bits")));
    }
    if b.multi_mean.get() <= p || b.multi_mean.get() > params.max_message.get() {
        return Err(bad(
            "multi_mean",
            &format!(
                "must be above one packet ({p} bits) and at most {}",
                params.max_message
            ),
        ));
    }
    if !(b.burst_mean.is_finite() && b.burst_mean >= 1.0) {
        return Err(bad("burst_mean", "must be at least 1"));
    }
    if b.host_queue == 0 {
        return Err(bad("host_queue", "must be at least 1"));
    }
    let imps: Vec<u32> = if b.imps.is_empty() {
        (0..topo.names.len() as u32).collect()
    } else {
        let mut v = Vec::new();
        for (k, n) in b.imps.iter().enumerate() {
            let x = topo.index(n).ok_or_else(|| {
                bad(
                    &format!("imps[{k}]"),
                    &format!("`{n}` is not an IMP of this network"),
                )
            })?;
            if v.contains(&x) {
                return Err(bad(&format!("imps[{k}]"), &format!("`{n}` named twice")));
            }
            v.push(x);
        }
        v
    };
    if imps.len() < 2 {
        return Err(bad("imps", "background traffic needs at least two IMPs"));
    }
    if !(b.default_weight.is_finite() && b.default_weight > 0.0) {
        return Err(bad("default_weight", "must be above zero"));
    }
    for (key, map) in [("origins", &b.origins), ("destinations", &b.destinations)] {
        for (n, w) in map {
            let x = topo
                .index(n)
                .ok_or_else(|| bad(&format!("{key}.{n}"), "not an IMP of this network"))?;
            if !imps.contains(&x) {
                return Err(bad(
                    &format!("{key}.{n}"),
                    "this IMP has no background host",
                ));
            }
            if !(w.is_finite() && *w > 0.0) {
                return Err(bad(&format!("{key}.{n}"), "must be above zero"));
            }
        }
    }
    if !(b.hop_decay.is_finite() && (MIN_HOP_DECAY..=1.0).contains(&b.hop_decay)) {
        return Err(bad(
            "hop_decay",
            &format!("must be {MIN_HOP_DECAY} to 1 (1: destinations independent of distance)"),
        ));
    }
    let origin = |x: u32| b.origin_weight(&topo.names[x as usize]);
    let pair = Pairing::new(topo, &imps, b);
    let total_origin: f64 = imps.iter().map(|&x| origin(x)).sum();
    let mut sites = Vec::with_capacity(imps.len());
    for (k, &x) in imps.iter().enumerate() {
        let reachable: Vec<u32> = imps
            .iter()
            .copied()
            .filter(|&y| y != x && topo.next_link(x, y).is_some())
            .collect();
        let mut dests = Vec::new();
        let wsum: f64 = reachable.iter().map(|&y| pair.weight(x, y)).sum();
        let mut c = 0.0;
        for &y in &reachable {
            c += pair.weight(x, y) / wsum;
            dests.push((y, c));
        }
        if let Some(last) = dests.last_mut() {
            last.1 = 1.0;
        }
        let rate = b.messages_per_second * origin(x) / total_origin / b.burst_mean;
        sites.push(BackgroundSite {
            imp: x,
            stream: crate::model::background_stream(k),
            mean_interval_ns: 1e9 / rate,
            dests,
            mix: crate::model::LengthMix {
                single_packet_fraction: b.single_packet_fraction,
                single_mean: b.single_mean.get() as f64,
                multi_mean: b.multi_mean.get() as f64,
                burst_mean: b.burst_mean,
                max_packet: p,
                max_message: params.max_message.get(),
            },
            host_queue: b.host_queue,
            start: b.start,
        });
    }
    Ok(sites)
}

/// Adds the background hosts of traffic entry `i` ([`background_sites`]), named `BG-` and
/// their IMP's name.
fn add_background(
    hosts: &mut Vec<Host>,
    topo: &Topology,
    params: &ImpParams,
    i: usize,
    b: &crate::spec::BackgroundSpec,
    seed: u64,
) -> Result<(), BuildError> {
    let sites = background_sites(topo, params, i, b)?;
    let first = hosts.len() as u32;
    for site in &sites {
        let name = format!("BG-{}", topo.names[site.imp as usize]);
        if hosts.iter().any(|h| h.name == name) {
            return Err(BuildError(format!(
                "traffic[{i}]: a host is already named `{name}`, the name of a background host"
            )));
        }
    }
    let streams = nmc_sim::RngStreams::new(seed);
    let host_of = |y: u32| first + sites.iter().position(|s| s.imp == y).expect("listed") as u32;
    for site in &sites {
        let dests: Vec<(u32, f64)> = site.dests.iter().map(|&(y, c)| (host_of(y), c)).collect();
        hosts.push(Host {
            started: true,
            background: (!dests.is_empty()).then(|| crate::model::Background {
                rng: Box::new(streams.stream(site.stream)),
                mean_interval_ns: site.mean_interval_ns,
                dests,
                mix: site.mix,
                backlog: Default::default(),
                host_queue: site.host_queue,
                stopped: false,
            }),
            ..Host::new(format!("BG-{}", topo.names[site.imp as usize]), site.imp)
        });
    }
    Ok(())
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

fn finish(mut m: Subnet, seed: u64, duration: SimDuration, events: u64) -> Outcome {
    // The measured window: from `measure_from` (if the run got that far) to the end.
    let from = if m.obs.busy_at_measure.is_empty() || m.obs.measure_from >= duration {
        SimDuration::ZERO
    } else {
        m.obs.measure_from
    };
    let secs = (duration - from).as_secs_f64();
    let busy_before = |k: usize| {
        if from.is_zero() {
            SimDuration::ZERO
        } else {
            m.obs.busy_at_measure[k]
        }
    };
    let names = |i: u32| m.imps[i as usize].name.clone();
    let lines: Vec<LineRecord> = m
        .links()
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
        .collect();
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
    if t.background_offered > 0 {
        let secs = duration.as_secs_f64();
        metrics.background = Some(BackgroundMetrics {
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
        });
    }
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
    let routing = if m.routing.in_play() {
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
    };
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
