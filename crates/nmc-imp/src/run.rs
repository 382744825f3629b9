//! Building a subnet from a scenario, running it, and what comes out.

use crate::model::{
    Action, E2eEvent, Ev, Generator, Host, LockupReport, MessageRecord, Occupancy, Pump, Subnet,
};
use crate::params::ImpParams;
use crate::routing::{
    JourneyRecord, LineSample, LoopRecord, RouteChange, RoutingCounts, SourceSend,
};
use crate::spec::{EventSpec, ImpScenario, RECORDS, TrafficSpec};
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

/// The profile named by the scenario with its `[network.params]` overrides applied.
pub fn resolve_params(s: &ImpScenario) -> Result<ImpParams, BuildError> {
    let base = ImpParams::profile(&s.network.profile).ok_or_else(|| {
        BuildError(format!(
            "network.profile: unknown profile `{}` (known: {})",
            s.network.profile,
            ImpParams::PROFILES.join(", ")
        ))
    })?;
    if s.network.params.is_empty() {
        return Ok(base);
    }
    let mut table =
        toml::Table::try_from(&base).map_err(|e| BuildError(format!("network.params: {e}")))?;
    for (k, v) in &s.network.params {
        if !table.contains_key(k) {
            return Err(BuildError(format!(
                "network.params.{k}: unknown parameter (known: {})",
                table.keys().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
        table.insert(k.clone(), v.clone());
    }
    let params: ImpParams = serde_path_to_error_like(table)?;
    params.validate().map_err(BuildError)?;
    Ok(params)
}

fn serde_path_to_error_like(table: toml::Table) -> Result<ImpParams, BuildError> {
    toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| BuildError(format!("network.params: {}", e.message().trim())))
}

/// Everything a run produced.
pub struct Outcome {
    pub seed: u64,
    pub params: ImpParams,
    /// Simulated time run (shorter than the scenario's when a lockup stopped it).
    pub duration: SimDuration,
    /// Metrics count from here (`network.measure_from`, if the run got that far).
    pub measure_from: SimDuration,
    pub messages: Vec<MessageRecord>,
    pub occupancy: Vec<Occupancy>,
    pub lines: Vec<LineRecord>,
    pub metrics: BTreeMap<String, f64>,
    pub events: u64,
    /// Hops between the measured pair.
    pub hops: Option<u32>,
    pub order_violations: u64,
    pub idle_at_end: bool,
    /// End-to-end events of single-packet messages (`record = ["e2e"]`).
    pub e2e: Vec<E2eEvent>,
    /// Set when the run stopped on a lockup (`network.lockup_window`).
    pub lockup: Option<LockupReport>,
    /// Routing and line records (empty with static routes and no line events).
    pub routing: RoutingRecords,
}

/// What the routing and line machinery recorded (see [`crate::routing`]).
#[derive(Clone, Debug, Default)]
pub struct RoutingRecords {
    pub counts: RoutingCounts,
    pub route_changes: Vec<RouteChange>,
    pub loops: Vec<LoopRecord>,
    pub journeys: Vec<JourneyRecord>,
    pub source_sends: Vec<SourceSend>,
    pub line_samples: Vec<LineSample>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LineRecord {
    pub from: String,
    pub to: String,
    pub capacity_bps: u64,
    pub propagation_ns: u64,
    pub frames: u64,
    pub packet_frames: u64,
    pub retransmissions: u64,
    pub corrupted: u64,
    pub rejected: u64,
    pub duplicates: u64,
    pub utilisation: f64,
    pub max_queue: u32,
}

/// Builds the subnet a scenario describes.
pub fn build(
    s: &ImpScenario,
    seed: u64,
    trace: Trace,
) -> Result<(Subnet, Vec<(u16, SimDuration)>), BuildError> {
    s.check_records(RECORDS)?;
    let params = resolve_params(s)?;
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
        hosts.push(Host {
            name: h.name.clone(),
            imp,
            pump: None,
            input_busy: false,
            current: None,
            started: false,
            generator: None,
        });
    }
    let host = |name: &str, at: String| {
        hosts
            .iter()
            .position(|h| h.name == name)
            .map(|i| i as u16)
            .ok_or_else(|| BuildError(format!("{at}: no host named `{name}` in network.hosts")))
    };
    let mut starts = Vec::new();
    let mut pumps = Vec::new();
    let mut actions = Vec::new();
    let mut generators = Vec::new();
    for (i, t) in s.traffic.iter().enumerate() {
        match t {
            TrafficSpec::Pump {
                from,
                to,
                message,
                start,
                count,
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
                let h = (hosts.len() + generators.len()) as u16;
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
                    name,
                    imp: src,
                    pump: None,
                    input_busy: false,
                    current: None,
                    started: false,
                    generator: Some(Generator {
                        dst_host: b,
                        bits: message.get(),
                        outstanding: *outstanding,
                        in_flight: 0,
                        count: *count,
                        offered: 0,
                        paused: false,
                    }),
                });
                starts.push((h, *start));
            }
        }
    }
    for (a, p) in pumps {
        hosts[a as usize].pump = Some(p);
    }
    hosts.extend(generators);
    for (k, e) in s.network.events.iter().enumerate() {
        let at = format!("network.events[{k}]");
        let imp = |n: &str, key: &str| {
            topo.index(n).ok_or_else(|| {
                BuildError(format!("{at}.{key}: `{n}` is not an IMP of this network"))
            })
        };
        let line = |a: u16, b: u16| {
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
    for (i, h) in s.network.hosts.iter().enumerate().filter(|(_, h)| h.fake) {
        let imp = subnet.hosts[i].imp;
        let on_imp = |x: &&Host| x.imp == imp && x.generator.is_none();
        if subnet.hosts.iter().filter(on_imp).count() > 1 {
            return Err(BuildError(format!(
                "network.hosts[{i}]: fake host `{}` must be the only host on IMP `{}`",
                h.name, h.imp
            )));
        }
        subnet.imps[imp as usize].fake_host = true;
    }
    // Stable by time: actions at one instant keep the scenario's order.
    actions.sort_by_key(|(t, _)| *t);
    subnet.actions = actions;
    subnet.lockup_window = s.network.lockup_window;
    subnet.measure_from = s.network.measure_from;
    if s.record.iter().any(|r| r == "e2e") {
        subnet.e2e = Some(Vec::new());
    }
    subnet
        .routing
        .configure(&s.network, &subnet.params, &subnet.topo)
        .map_err(BuildError)?;
    Ok((subnet, starts))
}

/// Runs a scenario for its duration. `progress` gets the fraction of simulated time done.
pub fn run(
    s: &ImpScenario,
    seed: u64,
    trace: Trace,
    progress: &mut dyn FnMut(f64),
) -> Result<Outcome, BuildError> {
    let (subnet, starts) = build(s, seed, trace)?;
    let mut sim = Simulation::new(subnet);
    {
        let mut q = nmc_sim::EventQueue::new();
        sim.model.initial_events(&mut q, &starts);
        while let Some((t, e)) = q.pop() {
            sim.schedule(t, e);
        }
    }
    let end = SimTime::ZERO + s.duration;
    for k in 1..=50u64 {
        sim.run_while(
            SimTime::from_nanos((end.as_nanos() as u128 * k as u128 / 50) as u64),
            |m, _| m.lockup.is_none(),
        );
        progress(k as f64 / 50.0);
        if sim.model.lockup.is_some() {
            break;
        }
    }
    let events = sim.events_handled();
    let ran = sim.now().since(SimTime::ZERO);
    let mut m = sim.model;
    m.trace
        .finish()
        .map_err(|e| BuildError(format!("writing the trace: {e}")))?;
    Ok(finish(m, seed, ran, events))
}

/// Runs until `end`, then stops every pump and keeps going until `drain` more has passed;
/// for checks that every resource comes back.
pub fn run_and_drain(
    s: &ImpScenario,
    seed: u64,
    drain: SimDuration,
) -> Result<Outcome, BuildError> {
    let (subnet, starts) = build(s, seed, Trace::off())?;
    let mut sim = Simulation::new(subnet);
    let mut q = nmc_sim::EventQueue::<Ev>::new();
    sim.model.initial_events(&mut q, &starts);
    while let Some((t, e)) = q.pop() {
        sim.schedule(t, e);
    }
    let going = |m: &Subnet, _: SimTime| m.lockup.is_none();
    sim.run_while(SimTime::ZERO + s.duration, going);
    for h in &mut sim.model.hosts {
        if let Some(p) = h.pump.as_mut() {
            p.count = Some(p.offered);
        }
        if let Some(g) = h.generator.as_mut() {
            g.count = Some(g.offered);
        }
    }
    sim.run_while(SimTime::ZERO + s.duration + drain, going);
    let events = sim.events_handled();
    let ran = sim.now().since(SimTime::ZERO);
    Ok(finish(sim.model, seed, ran, events))
}

fn finish(mut m: Subnet, seed: u64, duration: SimDuration, events: u64) -> Outcome {
    // The measured window: from `measure_from` (if the run got that far) to the end.
    let from = if m.busy_at_measure.is_empty() || m.measure_from >= duration {
        SimDuration::ZERO
    } else {
        m.measure_from
    };
    let secs = (duration - from).as_secs_f64();
    let busy_before = |k: usize| {
        if from.is_zero() {
            SimDuration::ZERO
        } else {
            m.busy_at_measure[k]
        }
    };
    let names = |i: u16| m.imps[i as usize].name.clone();
    let lines: Vec<LineRecord> = m
        .links
        .iter()
        .enumerate()
        .map(|(k, l)| LineRecord {
            from: names(l.def.from),
            to: names(l.def.to),
            capacity_bps: l.def.capacity.bps(),
            propagation_ns: l.def.propagation.as_nanos(),
            frames: l.frames,
            packet_frames: l.data_frames,
            retransmissions: l.retransmissions,
            corrupted: l.corrupted,
            rejected: l.rejected,
            duplicates: l.duplicates,
            utilisation: ((l.busy_time - busy_before(k)).as_secs_f64() / secs).min(1.0),
            max_queue: l.max_queue,
        })
        .collect();
    let hops = m.watch.and_then(|(s, d)| m.topo.hops(s, d));
    let idle_at_end = m.all_idle();
    let mut metrics = BTreeMap::new();
    for (k, v) in &m.counts {
        metrics.insert(format!("count.{k}"), *v as f64);
    }
    let mut messages = m.done;
    for r in &mut messages {
        r.delivered_ns = m.delivered_at.get(&r.id).map(|t| t.as_nanos());
    }
    messages.sort_by_key(|r| r.id);
    let from_ns = from.as_nanos();
    let measured: Vec<MessageRecord> = messages
        .iter()
        .filter(|r| r.rfnm_ns.is_some_and(|t| t >= from_ns))
        .cloned()
        .collect();
    let occupancy: Vec<Occupancy> = m
        .occupancy
        .iter()
        .filter(|o| o.t_ns >= from_ns)
        .cloned()
        .collect();
    crate::analysis::add_metrics(&mut metrics, &measured, &occupancy, duration - from);
    metrics.insert("events".into(), events as f64);
    metrics.insert("order_violations".into(), m.order_violations as f64);
    metrics.insert(
        "messages.retransmissions".into(),
        messages.iter().map(|r| r.retransmissions as f64).sum(),
    );
    if let Some(l) = &m.lockup {
        metrics.insert("lockup.at_s".into(), l.detected_ns as f64 / 1e9);
    }
    if let Some(h) = hops {
        metrics.insert("hops".into(), h as f64);
    }
    let routing = if m.routing.in_play() {
        m.routing.close_open_loops(&m.topo.names);
        m.routing.add_metrics(&mut metrics, duration.as_nanos());
        let r = &mut m.routing;
        RoutingRecords {
            counts: r.counts,
            route_changes: std::mem::take(&mut r.route_changes),
            loops: std::mem::take(&mut r.loops),
            journeys: std::mem::take(&mut r.journey_records),
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
        occupancy: m.occupancy,
        lines,
        metrics,
        events,
        hops,
        order_violations: m.order_violations,
        idle_at_end,
        e2e: m.e2e.unwrap_or_default(),
        lockup: m.lockup,
        routing,
    }
}
