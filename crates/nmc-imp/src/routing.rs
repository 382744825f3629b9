//! How IMPs choose the next line, lines going down and up, and loops as packets meet them.
//!
//! `network.routing` picks one of three procedures:
//!
//! * **static** (the default): shortest-hop routes fixed when the model is built
//!   ([`crate::topology`]). Routing frames are still sent so that they take their share of each
//!   line, but carry nothing. A line that goes down holds its packets until it comes back.
//! * **adaptive**: one [`DistanceVector`] per IMP (`nmc-routing`, the 1974 procedure of K&O §III
//!   and §V with the loop-prevention variant of `[network.routing_params]`). Each routing frame
//!   carries its IMP's delay table, built when the frame starts on the line; the neighbour's
//!   router takes it when it arrives intact. Each packet is forwarded by `next_hop` at each IMP.
//! * **spf**: one [`LinkState`] per IMP (`nmc-routing`, shortest-path-first over measured
//!   delay, the ARPANET's routing from May 1979; constants `spf_*` of the profile). Each
//!   routing frame carries its IMP's link-state database; each packet that leaves on a line
//!   for the first time gives that line's router a delay sample, from its arrival at the IMP
//!   to its arrival at the neighbour (`handle_packet_delay`).
//!
//! ## Driving the routers (see `nmc_routing`'s crate doc)
//!
//! Each IMP holds its own router (`Imp::router`, made and converged here by
//! `Routing::configure`, handed to the IMP when it is made); its inputs are the IMP's steps
//! (`hop/routing.rs`). What stays here is the subnet's: the procedure in force, the lines'
//! state and routing periods, the routing frames' bodies on the wire, and the records.
//!
//! | router input | when the IMP model gives it |
//! | --- | --- |
//! | `routing_message(now, line)` | a routing frame starts on `line` (every line's own period, `Routing::period`): `Imp::routing_message` |
//! | `handle_routing_message` | a routing frame arrives without a line error; `set_queue_len` for every line of the IMP just before: `Imp::routing_message_in` |
//! | `handle_line_down` / `handle_line_up` | a `[[network.line_events]]` entry, at both ends of the line: `Imp::line_down_reset`, `Imp::line_up` |
//! | `next_hop` | a packet is put on an output queue (source, store-and-forward, rerouting): `Imp::route` |
//!
//! Queue lengths are given to the router just before it handles a message, which is the only
//! time it reads them (K&O §III: the estimate is formed when a routing message comes in); the
//! count is the packets in the output queue and on their way into it, the count the 8-packet
//! limit applies to. The line's routing-message schedule stays with the model (the
//! `crate::model::Ev::RoutingTick` of every line, phases staggered over one period), so both
//! procedures charge the lines the same routing traffic; the routers' own `poll_transmit`
//! schedule is not used.
//!
//! Before the run the routers exchange tables until nothing changes (with every queue empty),
//! so a run starts from the converged state of a network that has been up for a while.
//!
//! ## Lines going down and coming up (our choices; K&O describe none of this)
//!
//! * Frames on the line when it goes down (being sent or propagating) are lost.
//! * The IMP at each end takes back the packets it had sent on the line and not had
//!   acknowledged, and those waiting on its output queue, and routes them again (static routes
//!   put them back on the same line, to wait for it). A packet the far IMP had already accepted
//!   (`crate::link::accepted_at_line_down`, from both ends' sides of the line) counts as
//!   acknowledged: the line's logical channels are reset at both ends, as the line
//!   protocol resynchronises, so no packet is delivered twice. The 1974 IMP could create
//!   duplicates here, which the destination discarded; we leave that out.
//! * A packet for which its IMP has no route waits in the IMP (it keeps its buffer) and is
//!   routed again whenever that IMP's routing table changes; a neighbour does not accept a
//!   store-and-forward packet it has no route for (it is sent again after 125 ms).
//!
//! ## What is measured
//!
//! * Per packet of a host message (and per RFNM), the IMPs it visited and how often
//!   ([`crate::observe::JourneyRecord`], kept by the observer): the most visits to one IMP, and the *loop time* from its first visit
//!   to an IMP it came back to until its last visit to such an IMP. K&O §V: packets "exchanged
//!   between neighbors up to 50 times".
//! * Per destination, every forwarding loop in the routing tables ([`LoopRecord`]), found with
//!   [`nmc_routing::loops::forwarding_loops`] after every change of a best neighbour, from
//!   the change that closed it to the one that opened it.
//! * Every change of a best neighbour and every hold-down ([`RouteChange`]); for the pumping
//!   host's IMP, the line each of its data packets left on ([`SourceSend`]) and its output
//!   queues at each sample ([`LineSample`]).

use crate::metric::{Loops, MeanMax, RoutingMetrics, Visits};
use crate::observe::JourneyStats;
use crate::packet::{MsgId, PktId};
use crate::params::ImpParams;
use crate::spec::{LineState, Network, RoutingMode};
use crate::topology::Topology;
use nmc_routing::{
    DistanceVector, Hop, LineConfig, LineId, LinkState, NodeId, RouteEvent, RouteEventKind, Router,
    RoutingMessage, RoutingParams, Units,
};
use nmc_sim::{SimDuration, SimTime};
use serde::Serialize;
use std::collections::BTreeMap;

/// The body id of a routing frame that carries nothing (static routing).
pub(crate) const NO_BODY: u32 = u32::MAX;

/// The state of one direction of a line, as far as going down and up is concerned.
#[derive(Clone, Debug)]
pub(crate) struct LinkStatus {
    /// The direction is up.
    pub(crate) up: bool,
    /// A frame was being sent when the line went down: its end of transmission is lost.
    pub(crate) doomed_tx: bool,
    /// Frames propagating now, and how many of the oldest of them were on the line when it
    /// went down (frames arrive in the order sent).
    pub(crate) on_wire: u32,
    pub(crate) doomed_wire: u32,
    /// Times it went down.
    pub(crate) downs: u32,
    pub(crate) down_since: Option<SimTime>,
    /// Time it spent down, summed over the periods that have ended (one still open is not counted).
    pub(crate) down_time: SimDuration,
    /// Frames lost on it because it went down while they were being sent or propagating.
    pub(crate) frames_lost: u64,
}

impl LinkStatus {
    fn new() -> Self {
        LinkStatus {
            up: true,
            doomed_tx: false,
            on_wire: 0,
            doomed_wire: 0,
            downs: 0,
            down_since: None,
            down_time: SimDuration::ZERO,
            frames_lost: 0,
        }
    }
}

/// A line event, resolved: topology line `line` (links `2·line` and `2·line + 1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LineEvent {
    /// When, from the start of the run.
    pub(crate) at: SimDuration,
    /// The line (its index in the topology).
    pub(crate) line: u32,
    /// It comes up (`false`: it goes down).
    pub(crate) up: bool,
}

/// A change in one IMP's routing table (`record = ["routing"]`).
#[derive(Clone, Debug, Serialize)]
pub struct RouteChange {
    /// When, ns since the start.
    pub t_ns: u64,
    /// The IMP whose table changed.
    pub imp: String,
    /// The destination IMP the change is for.
    pub dst: String,
    /// `best-neighbour`, `hold-down` or `held-against`.
    pub kind: &'static str,
    /// The best neighbour before and after (`""`: none); for a hold-down, the held neighbour.
    pub from: String,
    /// The best neighbour after the change (`""`: none); for a hold-down, the held neighbour;
    /// for `held-against`, the neighbour whose smaller estimate was ignored.
    pub to: String,
    /// The estimate after the change (units); for a hold-down, when it ends (ns).
    pub value: u64,
}

/// One forwarding loop towards `dst` in the routing tables (`record = ["routing"]`).
#[derive(Clone, Debug, Serialize)]
pub struct LoopRecord {
    /// The destination IMP the loop forwards toward.
    pub dst: String,
    /// The IMPs of the loop, starting at the lowest-numbered, joined by `>`.
    pub imps: String,
    /// When it opened, ns since the start.
    pub from_ns: u64,
    /// `None`: still open when the run ended.
    pub until_ns: Option<u64>,
}

impl LoopRecord {
    /// How long the loop lasted (until the end of the run if it was still open).
    pub fn duration_ns(&self, end_ns: u64) -> u64 {
        self.until_ns.unwrap_or(end_ns).saturating_sub(self.from_ns)
    }
}

/// A data packet the pumping host's IMP put on an output queue (`record = ["routing"]`).
#[derive(Clone, Debug, Serialize)]
pub struct SourceSend {
    /// When, ns since the start.
    pub t_ns: u64,
    /// The message.
    pub(crate) msg: MsgId,
    /// The packet's place in the message, from 0.
    pub(crate) index: u8,
    /// The neighbour at the far end of the line chosen.
    pub to: String,
    /// Packets on that line's output queue after this one joined it.
    pub(crate) queue: u32,
}

/// The output queues of the pumping host's IMP, sampled (`record = ["routing"]`).
#[derive(Clone, Debug, Serialize)]
pub struct LineSample {
    /// When, ns since the start.
    pub t_ns: u64,
    /// The neighbour at the far end of the line.
    pub to: String,
    /// Packets on the line's output queue and on their way into it.
    pub queue: u32,
    /// The line is up.
    pub(crate) up: bool,
}

/// Counters of the routing and line machinery.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub(crate) struct RoutingCounts {
    /// Routing messages sent.
    pub(crate) routing_messages: u64,
    /// Best-neighbour changes.
    pub(crate) route_changes: u64,
    /// Hold-downs started.
    pub(crate) hold_downs: u64,
    /// Smaller estimates refused because a hold-down was in force (see
    /// [`RouteEventKind::HeldAgainst`]).
    pub(crate) held_against: u64,
    /// Packets taken back from a line that went down and routed again (with static routes
    /// they go back on the same line, to wait for it).
    pub(crate) taken_back: u64,
    /// Packets that found no route and waited in their IMP.
    pub(crate) parked: u64,
    /// Unacknowledged packets the far IMP had accepted when the line went down.
    pub(crate) accepted_at_line_down: u64,
    /// Line events applied (a line going down or coming up).
    pub(crate) line_events: u64,
}

/// Routing state of the whole subnet: the procedure, the lines' up/down state, the routing
/// message bodies in flight, packets waiting for a route, and the loop records.
pub(crate) struct Routing {
    /// The procedure in force: static, adaptive or SPF (each IMP's router, if any, is its
    /// own: [`crate::imp::Imp::route`]).
    pub(crate) mode: RoutingMode,
    /// The adaptive procedure's parameters (`None` with static routes or SPF).
    pub(crate) params: Option<RoutingParams>,
    /// Per link: the routing-message period.
    periods: Vec<SimDuration>,
    /// Each link's state as a line going down and up sees it.
    pub(crate) links: Vec<LinkStatus>,
    /// Per IMP: its outgoing links.
    out_links: Vec<Vec<u32>>,
    /// The scenario's line events, in time order.
    pub(crate) events: Vec<LineEvent>,
    bodies: Vec<Option<RoutingMessage>>,
    free_bodies: Vec<u32>,
    /// Per packet copy: when it reached the IMP it is at (SPF's delay samples).
    arrived: Vec<SimTime>,
    /// Open forwarding loops per destination, with when each opened.
    open_loops: BTreeMap<u32, Vec<(Vec<NodeId>, SimTime)>>,
    /// Counters of the routing and line machinery.
    pub(crate) counts: RoutingCounts,
    /// Every change of a best neighbour, every hold-down and every smaller estimate a hold-down
    /// refused, in order (`record = ["routing"]`).
    pub(crate) route_changes: Vec<RouteChange>,
    /// Every forwarding loop found in the tables (`record = ["routing"]`).
    pub(crate) loops: Vec<LoopRecord>,
    /// The data packets the pumping host's IMP put on an output queue (`record = ["routing"]`).
    pub(crate) source_sends: Vec<SourceSend>,
    /// The pumping host's IMP's output queues at each sample (`record = ["routing"]`).
    pub(crate) line_samples: Vec<LineSample>,
}

impl Routing {
    /// Static routes on `links` links between `imps` IMPs, every line up, every period the
    /// profile's (what [`crate::model::Subnet::new`] starts from).
    pub(crate) fn new_static(params: &ImpParams, topo: &Topology) -> Self {
        let n = topo.names.len();
        let mut out_links = vec![Vec::new(); n];
        for (i, l) in topo.links.iter().enumerate() {
            out_links[l.from as usize].push(i as u32);
        }
        Routing {
            mode: RoutingMode::Static,
            params: None,
            periods: vec![params.routing_period; topo.links.len()],
            links: vec![LinkStatus::new(); topo.links.len()],
            out_links,
            events: Vec::new(),
            bodies: Vec::new(),
            free_bodies: Vec::new(),
            arrived: Vec::new(),
            open_loops: BTreeMap::new(),
            counts: RoutingCounts::default(),
            route_changes: Vec::new(),
            loops: Vec::new(),
            source_sends: Vec::new(),
            line_samples: Vec::new(),
        }
    }

    /// Applies the scenario's routing sections: the procedure, per-line periods, line events.
    /// Returns the router of every IMP, in IMP order, converged (none with static routes), for
    /// each IMP to hold as its own ([`crate::imp::ImpSettings::router`]). Errors are one line
    /// naming the key at fault.
    pub(crate) fn configure(
        &mut self,
        net: &Network,
        params: &ImpParams,
        topo: &Topology,
    ) -> Result<Vec<AnyRouter>, String> {
        // The default period of every line: the routing parameters' in adaptive mode (which
        // default to the profile's), the profile's otherwise; then the lines set one by one.
        let rp = match net.routing {
            RoutingMode::Static | RoutingMode::Spf => {
                if net.routing_params.is_some() {
                    return Err(
                        "network.routing_params: only with network.routing = \"adaptive\"".into(),
                    );
                }
                None
            }
            RoutingMode::Adaptive => {
                let rp = net.routing_params.unwrap_or(RoutingParams {
                    period: params.routing_period,
                    ..RoutingParams::default()
                });
                check_routing_params(&rp)?;
                Some(rp)
            }
        };
        let default = rp.map_or(params.routing_period, |rp| rp.period);
        self.periods.fill(default);
        for (i, p) in net.routing_periods.iter().enumerate() {
            let at = format!("network.routing_periods[{i}]");
            if p.period.is_zero() {
                return Err(format!("{at}.period must be above zero"));
            }
            let links = links_between(topo, &p.line, &format!("{at}.line"))?;
            let from = match &p.from {
                None => None,
                Some(f) if f == &p.line[0] || f == &p.line[1] => topo.index(f),
                Some(f) => {
                    return Err(format!(
                        "{at}.from: `{f}` is not an end of the line {}–{}",
                        p.line[0], p.line[1]
                    ));
                }
            };
            for l in links {
                if from.is_none_or(|f| topo.links[l as usize].from == f) {
                    self.periods[l as usize] = p.period;
                }
            }
        }
        let mut events = Vec::new();
        for (i, e) in net.line_events.iter().enumerate() {
            let links = links_between(topo, &e.line, &format!("network.line_events[{i}].line"))?;
            let mut lines: Vec<u32> = links.iter().map(|l| l / 2).collect();
            lines.dedup();
            for line in lines {
                events.push(LineEvent {
                    at: e.at,
                    line,
                    up: e.state == LineState::Up,
                });
            }
        }
        // Same-time events keep the file's order.
        events.sort_by_key(|e| e.at);
        self.events = events;
        if let Some(rp) = rp {
            self.mode = RoutingMode::Adaptive;
            self.params = Some(rp);
            return Ok(self.build_routers(topo));
        } else if net.routing == RoutingMode::Spf {
            let longest = self
                .periods
                .iter()
                .copied()
                .max()
                .unwrap_or(SimDuration::ZERO);
            let window = params.spf_flood_window;
            if !window.is_zero() && window <= longest {
                return Err(format!(
                    "network.params.spf_flood_window ({window}) must be 0 or longer than every \
                     line's routing period (the longest is {longest}), or updates are lost"
                ));
            }
            self.mode = RoutingMode::Spf;
            return Ok(self.build_spf_routers(params, topo));
        }
        Ok(Vec::new())
    }

    fn build_routers(&self, topo: &Topology) -> Vec<AnyRouter> {
        let rp = self.params.expect("adaptive");
        let n = topo.names.len() as u32;
        let routers = (0..n)
            .map(|i| {
                let mut r = DistanceVector::new(NodeId(i), n, rp);
                for &l in &self.out_links[i as usize] {
                    let cfg = LineConfig::to(NodeId(topo.links[l as usize].to))
                        .period(self.periods[l as usize]);
                    r.add_line(LineId(l), cfg);
                }
                AnyRouter::Dv(r)
            })
            .collect();
        self.start_routers(routers, topo)
    }

    /// SPF routers: an idle line reports the delay of the only frames it then carries, a
    /// routing frame's transmission and the line's propagation (a choice, `nmc_routing::spf`).
    fn build_spf_routers(&self, params: &ImpParams, topo: &Topology) -> Vec<AnyRouter> {
        let n = topo.names.len() as u32;
        let routers = (0..n)
            .map(|i| {
                let mut r = LinkState::new(NodeId(i), n, params.spf());
                for &l in &self.out_links[i as usize] {
                    let def = &topo.links[l as usize];
                    let idle =
                        def.capacity.transmission_time(params.routing_message) + def.propagation;
                    r.add_line(LineId(l), NodeId(def.to), idle);
                }
                r.start(SimTime::ZERO);
                AnyRouter::Spf(r)
            })
            .collect();
        self.start_routers(routers, topo)
    }

    fn start_routers(&self, mut routers: Vec<AnyRouter>, topo: &Topology) -> Vec<AnyRouter> {
        self.converge(&mut routers, topo);
        for r in &mut routers {
            match r {
                AnyRouter::Dv(r) => r.record_events(true),
                AnyRouter::Spf(r) => r.record_events(true),
            }
        }
        routers
    }

    /// Exchanges routing tables with every queue empty until no estimate changes: the state
    /// of a network that has been up for a while.
    fn converge(&self, routers: &mut [AnyRouter], topo: &Topology) {
        let n = routers.len();
        for _round in 0..=n {
            let mut changed = false;
            for x in 0..n {
                for &l in &self.out_links[x] {
                    let Some(msg) = routers[x].routing_message(SimTime::ZERO, LineId(l)) else {
                        continue;
                    };
                    let y = topo.links[l as usize].to as usize;
                    let before: Vec<_> = (0..n as u32)
                        .map(|d| routers[y].estimate(NodeId(d)))
                        .collect();
                    routers[y].handle_routing_message(SimTime::ZERO, LineId(l ^ 1), &msg);
                    changed |=
                        (0..n as u32).any(|d| routers[y].estimate(NodeId(d)) != before[d as usize]);
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Whether each IMP runs a router (`adaptive` or `spf`), rather than static routes.
    pub(crate) fn is_adaptive(&self) -> bool {
        self.mode != RoutingMode::Static
    }

    /// Whether anything beyond static routes on lines that stay up is in play (then the run
    /// reports routing metrics).
    pub(crate) fn in_play(&self) -> bool {
        self.is_adaptive() || !self.events.is_empty()
    }

    /// The routing-message period of `link`.
    pub(crate) fn period(&self, link: u32) -> SimDuration {
        self.periods[link as usize]
    }

    /// Whether `link` is up.
    pub(crate) fn line_up(&self, link: u32) -> bool {
        self.links[link as usize].up
    }

    /// The links leaving `imp`.
    pub(crate) fn out_links(&self, imp: u32) -> &[u32] {
        &self.out_links[imp as usize]
    }

    /// Packet copy `id` reached its present IMP at `now` (SPF only).
    pub(crate) fn arrived(&mut self, id: PktId, now: SimTime) {
        if self.mode != RoutingMode::Spf {
            return;
        }
        let i = id as usize;
        if self.arrived.len() <= i {
            self.arrived.resize(i + 1, SimTime::ZERO);
        }
        self.arrived[i] = now;
    }

    /// Packet copy `id` leaves its IMP on a line now, for the first time, and reaches the
    /// neighbour `after` from now (transmission and propagation): its delay on the line, from
    /// its arrival at the IMP, for the IMP's router (SPF only; `None` otherwise).
    pub(crate) fn line_delay(
        &self,
        now: SimTime,
        id: PktId,
        after: SimDuration,
    ) -> Option<SimDuration> {
        if self.mode != RoutingMode::Spf {
            return None;
        }
        let &at = self.arrived.get(id as usize)?;
        Some((now - at) + after)
    }

    // ------------------------------------------------------ routing messages

    /// The body of a routing frame starting now, the message its IMP's router made for the
    /// line (`None`: static routes, or a router with nothing to say), kept in the side table
    /// until the frame arrives or is lost.
    pub(crate) fn body_for(&mut self, msg: Option<RoutingMessage>) -> u32 {
        let Some(msg) = msg else {
            return NO_BODY;
        };
        match self.free_bodies.pop() {
            Some(id) => {
                self.bodies[id as usize] = Some(msg);
                id
            }
            None => {
                self.bodies.push(Some(msg));
                (self.bodies.len() - 1) as u32
            }
        }
    }

    /// Takes a routing frame's body out of the side table (the frame arrived or was lost).
    pub(crate) fn take_body(&mut self, body: u32) -> Option<RoutingMessage> {
        let m = self.bodies.get_mut(body as usize)?.take()?;
        self.free_bodies.push(body);
        Some(m)
    }

    #[cfg(test)]
    /// Routing-message bodies not yet delivered or lost (0 once every frame is accounted for).
    pub(crate) fn bodies_in_flight(&self) -> usize {
        self.bodies.iter().filter(|b| b.is_some()).count()
    }

    /// Records event `e` of IMP `imp`'s router; returns the destination if its best neighbour
    /// changed (its loop records are then brought up to date, [`Self::check_loops`]). `names`
    /// are the IMP names.
    pub(crate) fn record_route_event(
        &mut self,
        imp: u32,
        e: RouteEvent,
        names: &[String],
    ) -> Option<u32> {
        let RouteEvent { at, dst, kind } = e;
        let mut changed = None;
        let name = |n: Option<NodeId>| n.map_or(String::new(), |n| names[n.0 as usize].clone());
        let (kind, from, to, value) = match kind {
            RouteEventKind::BestNeighbour { from, to, estimate } => {
                self.counts.route_changes += 1;
                changed = Some(dst.0);
                ("best-neighbour", name(from), name(to), estimate.0 as u64)
            }
            RouteEventKind::HoldDown { neighbour, until } => {
                self.counts.hold_downs += 1;
                (
                    "hold-down",
                    name(Some(neighbour)),
                    name(Some(neighbour)),
                    until.as_nanos(),
                )
            }
            RouteEventKind::HeldAgainst { held, by, offered } => {
                self.counts.held_against += 1;
                (
                    "held-against",
                    name(Some(held)),
                    name(Some(by)),
                    offered.0 as u64,
                )
            }
        };
        self.route_changes.push(RouteChange {
            t_ns: at.as_nanos(),
            imp: names[imp as usize].clone(),
            dst: names[dst.0 as usize].clone(),
            kind,
            from,
            to,
            value,
        });
        changed
    }

    /// Finds the forwarding loops towards `dst` now, from every IMP's best neighbour towards
    /// it (`next`, read off the IMPs' tables), and opens or closes loop records.
    pub(crate) fn check_loops(
        &mut self,
        now: SimTime,
        dst: u32,
        next: &BTreeMap<NodeId, Option<NodeId>>,
        names: &[String],
    ) {
        let found = nmc_routing::loops::forwarding_loops(next, NodeId(dst));
        let open = self.open_loops.entry(dst).or_default();
        let mut still = Vec::new();
        for (members, since) in open.drain(..) {
            if found.contains(&members) {
                still.push((members, since));
            } else {
                self.loops.push(LoopRecord {
                    dst: names[dst as usize].clone(),
                    imps: members
                        .iter()
                        .map(|m| names[m.0 as usize].as_str())
                        .collect::<Vec<_>>()
                        .join(">"),
                    from_ns: since.as_nanos(),
                    until_ns: Some(now.as_nanos()),
                });
            }
        }
        for f in found {
            if !still.iter().any(|(m, _)| *m == f) {
                still.push((f, now));
            }
        }
        *open = still;
    }

    /// Closes the record of every loop still open at the end of the run.
    pub(crate) fn close_open_loops(&mut self, names: &[String]) {
        for (dst, open) in std::mem::take(&mut self.open_loops) {
            for (members, since) in open {
                self.loops.push(LoopRecord {
                    dst: names[dst as usize].clone(),
                    imps: members
                        .iter()
                        .map(|m| names[m.0 as usize].as_str())
                        .collect::<Vec<_>>()
                        .join(">"),
                    from_ns: since.as_nanos(),
                    until_ns: None,
                });
            }
        }
        self.loops
            .sort_by(|a, b| (a.from_ns, &a.dst).cmp(&(b.from_ns, &b.dst)));
    }

    /// Metrics of the routing and line machinery (only when [`Self::in_play`]).
    pub(crate) fn metrics(&self, end_ns: u64, j: &JourneyStats) -> RoutingMetrics {
        let c = &self.counts;
        let adaptive = self.is_adaptive();
        RoutingMetrics {
            messages: c.routing_messages,
            route_changes: c.route_changes,
            hold_downs: c.hold_downs,
            held_against: c.held_against,
            line_events: c.line_events,
            frames_lost: self.links.iter().map(|l| l.frames_lost).sum::<u64>(),
            taken_back: c.taken_back,
            parked: c.parked,
            accepted_at_line_down: c.accepted_at_line_down,
            visits: (adaptive && j.packets > 0).then(|| Visits {
                max: u64::from(j.max_visits),
                looped_packets: j.looped,
                looped_fraction: j.looped as f64 / j.packets as f64,
                loop_hops_max: u64::from(j.loop_hops_max),
                loop_max_ms: j.loop_ns_max as f64 / 1e6,
            }),
            loops: adaptive.then(|| Loops {
                count: self.loops.len() as u64,
                duration_ms: (!self.loops.is_empty()).then(|| {
                    let d: Vec<f64> = self
                        .loops
                        .iter()
                        .map(|l| l.duration_ns(end_ns) as f64 / 1e6)
                        .collect();
                    MeanMax {
                        mean: d.iter().sum::<f64>() / d.len() as f64,
                        max: d.iter().cloned().fold(0.0, f64::max),
                    }
                }),
            }),
        }
    }
}

/// The links (both directions, every parallel line) joining the two named IMPs.
fn links_between(topo: &Topology, ends: &[String; 2], at: &str) -> Result<Vec<u32>, String> {
    let idx = |n: &str| {
        topo.index(n)
            .ok_or_else(|| format!("{at}: `{n}` is not an IMP of this network"))
    };
    let (a, b) = (idx(&ends[0])?, idx(&ends[1])?);
    let links: Vec<u32> = topo
        .links
        .iter()
        .enumerate()
        .filter(|(_, l)| (l.from == a && l.to == b) || (l.from == b && l.to == a))
        .map(|(i, _)| i as u32)
        .collect();
    if links.is_empty() {
        return Err(format!(
            "{at}: no line joins `{}` and `{}`",
            ends[0], ends[1]
        ));
    }
    Ok(links)
}

/// The adaptive procedure's parameters are usable: a period and units above zero.
pub fn check_routing_params(rp: &RoutingParams) -> Result<(), String> {
    if rp.period.is_zero() {
        return Err("network.routing_params.period must be above zero".into());
    }
    if rp.infinity.0 == 0 || rp.hop_units.0 == 0 {
        return Err("network.routing_params: hop_units and infinity must be above zero".into());
    }
    Ok(())
}

/// The router an IMP runs: the 1974 distance-vector procedure or SPF.
#[derive(Clone, Debug)]
pub(crate) enum AnyRouter {
    /// The 1974 distance-vector procedure (K&O §III, §V).
    Dv(DistanceVector),
    /// Shortest path first over measured delay (from May 1979).
    Spf(LinkState),
}

impl AnyRouter {
    fn inner(&self) -> &dyn Router {
        match self {
            AnyRouter::Dv(r) => r,
            AnyRouter::Spf(r) => r,
        }
    }
    fn inner_mut(&mut self) -> &mut dyn Router {
        match self {
            AnyRouter::Dv(r) => r,
            AnyRouter::Spf(r) => r,
        }
    }
}

impl Router for AnyRouter {
    fn node(&self) -> NodeId {
        self.inner().node()
    }
    fn next_hop(&self, dst: NodeId) -> Option<Hop> {
        self.inner().next_hop(dst)
    }
    fn estimate(&self, dst: NodeId) -> Option<Units> {
        self.inner().estimate(dst)
    }
    fn handle_routing_message(&mut self, now: SimTime, line: LineId, msg: &RoutingMessage) {
        self.inner_mut().handle_routing_message(now, line, msg)
    }
    fn handle_line_down(&mut self, now: SimTime, line: LineId) {
        self.inner_mut().handle_line_down(now, line)
    }
    fn handle_line_up(&mut self, now: SimTime, line: LineId) {
        self.inner_mut().handle_line_up(now, line)
    }
    fn set_queue_len(&mut self, line: LineId, packets: u32) {
        self.inner_mut().set_queue_len(line, packets)
    }
    fn handle_packet_delay(&mut self, now: SimTime, line: LineId, delay: SimDuration) {
        self.inner_mut().handle_packet_delay(now, line, delay)
    }
    fn routing_message(&self, now: SimTime, line: LineId) -> Option<RoutingMessage> {
        self.inner().routing_message(now, line)
    }
    fn poll_at(&self) -> Option<SimTime> {
        self.inner().poll_at()
    }
    fn poll_transmit(&mut self, now: SimTime) -> Option<(LineId, RoutingMessage)> {
        self.inner_mut().poll_transmit(now)
    }
    fn poll_event(&mut self) -> Option<RouteEvent> {
        self.inner_mut().poll_event()
    }
}
