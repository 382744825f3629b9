//! From a scenario to a subnet: the checks on what the scenario asks, the hosts, the traffic,
//! the line events, each IMP's own settings, and what is observed.

use super::BuildError;
use super::background::{add_background, add_pairs};
use crate::imp::ImpSettings;
use crate::model::{Action, Generator, Host, Pump, Subnet, Window};
use crate::params::ImpParams;
use crate::routing::Routing;
use crate::spec::{EventSpec, ImpConfig, ImpRecord, RoutingMode, TopologySpec, TrafficSpec};
use crate::topology::{Routes, Topology};
use nmc_sim::{SimDuration, Trace};
use std::collections::BTreeMap;

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

/// Builds the subnet a scenario describes, in named steps: the scenario's checks, its
/// hosts (`attach_hosts`), its traffic (`add_traffic`), its line events (`line_events`),
/// each IMP's own settings (`imp_settings`), then the subnet with what it observes and how it
/// routes. Returns the subnet and when each traffic source starts.
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
    let mut hosts = attach_hosts(s, &topo)?;
    let mut traffic = add_traffic(s, &topo, &params, &mut hosts, seed)?;
    line_events(s, &topo, &mut traffic.actions)?;
    let sample = s.network.sample_period;
    if sample.is_zero() {
        return Err(BuildError(
            "network.sample_period must be above zero".into(),
        ));
    }
    let mut settings = imp_settings(s, &topo, &params, &hosts)?;
    let mut routing = Routing::new_static(&params, &topo);
    let routers = routing
        .configure(&s.network, &params, &topo)
        .map_err(BuildError)?;
    for (own, router) in settings.iter_mut().zip(routers) {
        own.router = Some(router);
    }
    let mut subnet = Subnet::new(params, topo, hosts, settings, seed, sample, trace);
    subnet.routing = routing;
    subnet.background_start = traffic.background_start;
    // Stable by time: actions at one instant keep the scenario's order.
    traffic.actions.sort_by_key(|(t, _)| *t);
    subnet.actions = traffic.actions;
    subnet.obs.lockup_window = s.network.lockup_window;
    subnet.obs.measure_from = s.network.measure_from;
    subnet.obs.slice_at = s.network.slices.clone();
    if s.wants(ImpRecord::E2e) {
        subnet.obs.e2e = Some(Vec::new());
    }
    Ok((subnet, traffic.starts))
}

/// The scenario's hosts (`network.hosts`), in its order, each on its IMP; a host on no IMP of
/// the network, or a name given twice, is refused.
fn attach_hosts(s: &ImpConfig, topo: &Topology) -> Result<Vec<Host>, BuildError> {
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
    Ok(hosts)
}

/// The host named `name` among `hosts`; `at` says where the scenario named it.
fn host_index(hosts: &[Host], name: &str, at: String) -> Result<u32, BuildError> {
    hosts
        .iter()
        .position(|h| h.name == name)
        .map(|i| i as u32)
        .ok_or_else(|| BuildError(format!("{at}: no host named `{name}` in network.hosts")))
}

/// What the scenario's traffic puts into the subnet besides its hosts.
struct Traffic {
    /// Each traffic source (a host) and when it starts.
    starts: Vec<(u32, SimDuration)>,
    /// Scheduled actions (a generator's pauses; the line events are added by [`line_events`]).
    actions: Vec<(SimDuration, Action)>,
    /// When the background load starts (zero without one).
    background_start: SimDuration,
}

/// The scenario's `traffic`, in its order: pumps on the named hosts ([`pump_of`]), message
/// generators as hosts of their own inside their IMPs ([`generator_of`]), then host pairs and
/// the background load ([`super::background`]), each added to `hosts`.
fn add_traffic(
    s: &ImpConfig,
    topo: &Topology,
    params: &ImpParams,
    hosts: &mut Vec<Host>,
    seed: u64,
) -> Result<Traffic, BuildError> {
    let mut starts = Vec::new();
    let mut pumps = Vec::new();
    let mut actions = Vec::new();
    let mut generators: Vec<Host> = Vec::new();
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
            TrafficSpec::Pump { from, start, .. } => {
                let (a, pump) = pump_of(s, topo, params, hosts, i, t)?;
                if pumps.iter().any(|(x, _)| *x == a) {
                    return Err(BuildError(format!(
                        "traffic[{i}]: host `{from}` already runs a pump"
                    )));
                }
                pumps.push((a, pump));
                starts.push((a, *start));
            }
            TrafficSpec::Generator { start, .. } => {
                let h = (hosts.len() + generators.len()) as u32;
                let (generator, pauses) = generator_of(topo, params, hosts, i, t, h)?;
                actions.extend(pauses);
                generators.push(generator);
                starts.push((h, *start));
            }
        }
    }
    for (a, p) in pumps {
        hosts[a as usize].pump = Some(p);
    }
    hosts.extend(generators);
    for (i, pairs, bits, start, count) in pair_sets {
        add_pairs(hosts, topo, i, pairs, bits, count, seed)?
            .into_iter()
            .for_each(|h| starts.push((h, start)));
    }
    let mut background_start = SimDuration::ZERO;
    if let Some((i, b)) = background {
        background_start = b.start;
        add_background(hosts, topo, params, i, b, seed)?;
    }
    Ok(Traffic {
        starts,
        actions,
        background_start,
    })
}

/// `traffic[i]`, a `kind = "pump"` entry: the pumping host and its pump. Refused: a host not
/// in `network.hosts`, both ends on one IMP, no path, a message the profile cannot carry, a
/// fake host pumping, and a window of 0.
fn pump_of(
    s: &ImpConfig,
    topo: &Topology,
    params: &ImpParams,
    hosts: &[Host],
    i: usize,
    t: &TrafficSpec,
) -> Result<(u32, Pump), BuildError> {
    let TrafficSpec::Pump {
        from,
        to,
        message,
        outstanding,
        count,
        ..
    } = t
    else {
        unreachable!("pump_of takes a pump")
    };
    let (a, b) = (
        host_index(hosts, from, format!("traffic[{i}].from"))?,
        host_index(hosts, to, format!("traffic[{i}].to"))?,
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
    let window = match outstanding {
        Some(0) => {
            return Err(BuildError(format!(
                "traffic[{i}].outstanding: 0 would never send; give 1 or more, or leave it out for K&O's pump"
            )));
        }
        Some(n) => Some(Window::new(*n)),
        None => None,
    };
    Ok((
        a,
        Pump {
            dst_host: b,
            bits: message.get(),
            count: *count,
            offered: 0,
            window,
        },
    ))
}

/// `traffic[i]`, a `kind = "generator"` entry, as host `h` inside its IMP (RFC 632's message
/// generator), with its pauses as actions. Refused: an IMP or host not in the network, a
/// destination on the generator's own IMP or out of reach, a message over one packet, no
/// message outstanding, a pause of no length.
fn generator_of(
    topo: &Topology,
    params: &ImpParams,
    hosts: &[Host],
    i: usize,
    t: &TrafficSpec,
    h: u32,
) -> Result<(Host, Vec<(SimDuration, Action)>), BuildError> {
    let TrafficSpec::Generator {
        imp,
        to,
        message,
        outstanding,
        count,
        pauses,
        ..
    } = t
    else {
        unreachable!("generator_of takes a generator")
    };
    let at = format!("traffic[{i}]");
    let src = topo
        .index(imp)
        .ok_or_else(|| BuildError(format!("{at}.imp: `{imp}` is not an IMP of this network")))?;
    let b = host_index(hosts, to, format!("{at}.to"))?;
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
    let mut actions = Vec::new();
    for (k, p) in pauses.iter().enumerate() {
        if p.length.is_zero() {
            return Err(BuildError(format!(
                "{at}.pauses[{k}].length must be above zero"
            )));
        }
        actions.push((p.at, Action::Pause { host: h }));
        actions.push((p.at + p.length, Action::Resume { host: h }));
    }
    let generator = Host {
        generator: Some(Generator {
            dst_host: b,
            bits: message.get(),
            outstanding: *outstanding,
            in_flight: 0,
            count: *count,
            offered: 0,
            paused: false,
        }),
        ..Host::new(format!("{imp} message generator {i}"), src)
    };
    Ok((generator, actions))
}

/// The scenario's line events (`network.events`: a line error, a detour) as actions.
fn line_events(
    s: &ImpConfig,
    topo: &Topology,
    actions: &mut Vec<(SimDuration, Action)>,
) -> Result<(), BuildError> {
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
            EventSpec::Detour {
                at: t,
                imp: i,
                via,
                within,
            } => {
                let (a, b) = (imp(i, "imp")?, imp(via, "via")?);
                let link = line(a, b)
                    .ok_or_else(|| BuildError(format!("{at}: `{i}` has no line to `{via}`")))?;
                actions.push((
                    *t,
                    Action::Detour {
                        imp: a,
                        link,
                        within: *within,
                    },
                ));
            }
        }
    }
    Ok(())
}

/// Each IMP's own settings ([`ImpSettings`]), in the topology's order: the profile's, then
/// its machine if `network.imp_models` names it, its buffers if `network.vdh` does, and the
/// fake hosts on it.
fn imp_settings(
    s: &ImpConfig,
    topo: &Topology,
    p: &ImpParams,
    hosts: &[Host],
) -> Result<Vec<ImpSettings>, BuildError> {
    let mut settings = vec![ImpSettings::of(p); topo.names.len()];
    let mut named: BTreeMap<u32, crate::params::ImpModel> = BTreeMap::new();
    for (model, sites) in &s.network.imp_models {
        for (k, n) in sites.iter().enumerate() {
            let model_name = model.name();
            let at = format!("network.imp_models.{model_name}[{k}]");
            let x = topo
                .index(n)
                .ok_or_else(|| BuildError(format!("{at}: `{n}` is not an IMP of this network")))?;
            if named.insert(x, *model).is_some() {
                return Err(BuildError(format!("{at}: `{n}` is named twice")));
            }
            settings[x as usize].model = *model;
        }
    }
    for (k, n) in s.network.vdh.iter().enumerate() {
        let at = format!("network.vdh[{k}]");
        let x = topo
            .index(n)
            .ok_or_else(|| BuildError(format!("{at}: `{n}` is not an IMP of this network")))?;
        if p.reassembly_buffers_vdh < p.allocation_buffers
            || p.reassembly_buffers_vdh > p.buffers_vdh
        {
            return Err(BuildError(format!(
                "{at}: reassembly_buffers_vdh ({}) must hold one allocation ({}) and fit in buffers_vdh ({})",
                p.reassembly_buffers_vdh, p.allocation_buffers, p.buffers_vdh
            )));
        }
        let own = &mut settings[x as usize];
        own.buffers = p.buffers_vdh;
        own.reasm_max = p.reassembly_buffers_vdh;
    }
    // A fake host is the IMP's own (BBN 3050 p. 243: the discard host beside the real hosts
    // of the same IMP); hosts are taken in order, so each IMP's list is sorted.
    for (i, _) in s.network.hosts.iter().enumerate().filter(|(_, h)| h.fake) {
        settings[hosts[i].imp as usize].fake_hosts.push(i as u32);
    }
    Ok(settings)
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
        TopologySpec::Lines { imps, lines, .. } => (
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
