//! [`LinkState`]: shortest-path-first routing over measured delay, the ARPANET's procedure from
//! May 1979 to July 1987, behind the [`Router`] trait.
//!
//! What the sources give (McQuillan, Richer & Rosen, "The New Routing Algorithm for the
//! ARPANET", IEEE Trans. Commun. COM-28(5), May 1980, abstract; Khanna & Zinky, "The Revised
//! ARPANET Routing Metric", SIGCOMM CCR 19(4), 1989, abstract; A. Malis, BBN, TCP-IP list,
//! 4 Apr 1987):
//! * each node measures, per line, the delay of the packets it sends on it — queueing,
//!   processing, transmission and propagation — and **averages it over 10 s** (Khanna & Zinky);
//! * it floods an **update** carrying its lines' averages to every node; every node holds the
//!   whole network's lines and computes **shortest paths** from itself over them (McQuillan et
//!   al.);
//! * a node sends an update **at most every 10 s and at least every 50 s** (Malis): only when a
//!   line's average has moved by more than a threshold, and the threshold falls with the time
//!   since the last update, reaching zero at 50 s.
//!
//! What is ours ([`SpfParams`] says which value is a choice):
//! * **The threshold's size.** McQuillan et al. give a decaying threshold; its starting value
//!   is not in any text reached here. It falls linearly from [`SpfParams::threshold`] at the
//!   last update to zero at [`SpfParams::max_interval`].
//! * **Flooding.** A routing frame on a line carries every update the sender learned (or
//!   made) in the last [`SpfParams::flood_window`], and its whole database while the line has
//!   been up for less than that (at the start, and after the line comes back); a receiver keeps
//!   each origin's update with the highest sequence number. An update thus spreads one line's
//!   routing period per hop, not at once as the 1979 flooding protocol sent it; with the 1983
//!   profile's 500 ms period that is a few seconds across the network, against the 10 s
//!   averaging. While the window is longer than every line's routing period, each update rides
//!   on the first frame of every line after it is learned, exactly as if every frame carried
//!   the whole database (`flood_window` 0), which a test checks; the window only saves work.
//! * **An idle line's delay**: the delay of the only frames it carries when nothing else does
//!   (the caller's `idle` figure for the line, [`LinkState::add_line`]).
//! * **Phase**: every node's averaging periods end at the same instants (multiples of the
//!   period from the start of the run), so updates come in waves; the IMPs' clocks were not
//!   synchronised. A choice, kept simple; a staggered phase would be a parameter.
//! * **Resolution**: delays in microseconds ([`Units`]); ties go to the path found first from
//!   the lowest-numbered line, so routes depend only on the inputs.
//!
//! A line going down or coming up is reported at once by an update of its own.

use crate::router::{Hop, LinkStateUpdate, RouteEvent, RouteEventKind, Router, RoutingMessage};
use crate::{LineId, NodeId, Units};
use nmc_sim::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

/// The constants of SPF routing over delay (see the module doc for their sources).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpfParams {
    /// The period over which a line's packet delays are averaged. Khanna & Zinky 1989: "packet
    /// delay averaged over a ten second interval".
    pub averaging: SimDuration,
    /// An update goes at least this often. Malis 1987: at least every 50 s.
    pub max_interval: SimDuration,
    /// A line's average must move by more than this, just after an update, for a new one to
    /// go; the threshold falls linearly to zero at `max_interval`. McQuillan et al. 1980
    /// describe a decaying threshold; its size is not in any text reached: **choice**, 64 ms.
    pub threshold: SimDuration,
    /// How long after learning an update a node keeps putting it in its routing frames (0:
    /// its whole database in every frame). The model's way of flooding, not a 1979 constant:
    /// it must be longer than every line's routing period (see the module doc).
    pub flood_window: SimDuration,
}

impl Default for SpfParams {
    fn default() -> Self {
        SpfParams {
            averaging: SimDuration::from_secs(10),
            max_interval: SimDuration::from_secs(50),
            threshold: SimDuration::from_millis(64),
            flood_window: SimDuration::from_secs(2),
        }
    }
}

#[derive(Clone, Debug)]
struct Line {
    neighbour: NodeId,
    up: bool,
    /// The delay an idle line is reported with.
    idle: Units,
    /// The delay last reported in an update.
    reported: Units,
    /// When the line last came up (the start of the run for a line up from the start).
    up_since: SimTime,
    /// Packet delays measured in the current averaging period.
    sum_ns: u128,
    count: u64,
}

impl Line {
    fn average(&self) -> Units {
        if self.count == 0 {
            self.idle
        } else {
            to_units(SimDuration::from_nanos(
                (self.sum_ns / u128::from(self.count)) as u64,
            ))
        }
    }
}

fn to_units(d: SimDuration) -> Units {
    Units(u32::try_from(d.as_nanos() / 1_000).unwrap_or(u32::MAX))
}

/// SPF routing for one node.
#[derive(Clone, Debug)]
pub struct LinkState {
    node: NodeId,
    params: SpfParams,
    lines: BTreeMap<LineId, Line>,
    /// Per origin: its latest update, and when this node learned it.
    db: Vec<Option<LinkStateUpdate>>,
    learned: Vec<SimTime>,
    own_seqno: u32,
    last_update: SimTime,
    /// The end of the current averaging period.
    period_end: SimTime,
    /// Per destination: the first hop and the path's delay.
    routes: Vec<Option<(Hop, Units)>>,
    events: Option<VecDeque<RouteEvent>>,
    updates_sent: u64,
}

impl LinkState {
    /// A node of a network of `nodes` nodes, with no lines yet.
    pub fn new(node: NodeId, nodes: u32, params: SpfParams) -> Self {
        LinkState {
            node,
            params,
            lines: BTreeMap::new(),
            db: vec![None; nodes as usize],
            learned: vec![SimTime::ZERO; nodes as usize],
            own_seqno: 0,
            last_update: SimTime::ZERO,
            period_end: SimTime::ZERO + params.averaging,
            routes: vec![None; nodes as usize],
            events: None,
            updates_sent: 0,
        }
    }

    /// Adds `line` to `neighbour`, up; an idle line reports the delay `idle`. Call
    /// [`LinkState::start`] once every line is added.
    pub fn add_line(&mut self, line: LineId, neighbour: NodeId, idle: SimDuration) {
        let idle = to_units(idle);
        self.lines.insert(
            line,
            Line {
                neighbour,
                up: true,
                idle,
                reported: idle,
                up_since: SimTime::ZERO,
                sum_ns: 0,
                count: 0,
            },
        );
    }

    /// The node's first update, at `now`: what a network that has been up a while knows of it.
    pub fn start(&mut self, now: SimTime) {
        self.originate(now);
    }

    /// Keep [`RouteEvent`]s for [`Router::poll_event`].
    pub fn record_events(&mut self, on: bool) {
        self.events = on.then(VecDeque::new);
    }

    /// Updates this node has sent.
    pub fn updates_sent(&self) -> u64 {
        self.updates_sent
    }

    /// The delay this node last reported for `line`.
    pub fn reported(&self, line: LineId) -> Option<Units> {
        self.lines.get(&line).map(|l| l.reported)
    }

    /// Closes every averaging period that ended by `now`.
    fn tick(&mut self, now: SimTime) {
        while now >= self.period_end {
            let end = self.period_end;
            self.close_period(end);
            self.period_end = end + self.params.averaging;
        }
    }

    fn close_period(&mut self, at: SimTime) {
        let since = at - self.last_update;
        let max = self.params.max_interval;
        let threshold = if since >= max {
            0
        } else {
            let left = (max - since).as_nanos() as u128;
            (u128::from(self.params.threshold.as_nanos()) * left / u128::from(max.as_nanos()))
                as u64
                / 1_000
        };
        let moved = self
            .lines
            .values()
            .any(|l| l.up && u64::from(l.average().0.abs_diff(l.reported.0)) > threshold);
        if since >= max || moved {
            for l in self.lines.values_mut().filter(|l| l.up) {
                l.reported = l.average();
            }
            self.originate(at);
        }
        for l in self.lines.values_mut() {
            l.sum_ns = 0;
            l.count = 0;
        }
    }

    /// A new update of this node's lines, into its own database, and routes again.
    fn originate(&mut self, now: SimTime) {
        self.own_seqno += 1;
        self.updates_sent += 1;
        self.last_update = now;
        let links = self
            .lines
            .values()
            .filter(|l| l.up)
            .map(|l| (l.neighbour, l.reported))
            .collect();
        self.learned[self.node.0 as usize] = now;
        self.db[self.node.0 as usize] = Some(LinkStateUpdate {
            origin: self.node,
            seqno: self.own_seqno,
            links,
        });
        self.compute(now);
    }

    /// Dijkstra from this node over the database; this node's own lines by line number (so a
    /// doubled line is two candidates), the others' by their updates.
    fn compute(&mut self, now: SimTime) {
        let n = self.db.len();
        let mut dist: Vec<Option<(u64, Hop)>> = vec![None; n];
        let mut done = vec![false; n];
        let mut heap = BinaryHeap::new();
        for (&line, l) in &self.lines {
            if !l.up {
                continue;
            }
            let v = l.neighbour.0 as usize;
            let d = u64::from(l.reported.0);
            if v < n && dist[v].is_none_or(|(old, _)| d < old) {
                dist[v] = Some((
                    d,
                    Hop {
                        line,
                        neighbour: l.neighbour,
                    },
                ));
                heap.push(Reverse((d, v)));
            }
        }
        done[self.node.0 as usize] = true;
        while let Some(Reverse((d, u))) = heap.pop() {
            if done[u] || dist[u].is_some_and(|(best, _)| best < d) {
                continue;
            }
            done[u] = true;
            let first = dist[u].expect("pushed with a distance").1;
            let Some(update) = &self.db[u] else { continue };
            for &(v, metric) in &update.links {
                let v = v.0 as usize;
                if v >= n || done[v] {
                    continue;
                }
                let nd = d + u64::from(metric.0);
                if dist[v].is_none_or(|(old, _)| nd < old) {
                    dist[v] = Some((nd, first));
                    heap.push(Reverse((nd, v)));
                }
            }
        }
        for (dst, r) in dist.into_iter().enumerate() {
            let new = r.map(|(d, hop)| (hop, Units(u32::try_from(d).unwrap_or(u32::MAX))));
            let old = std::mem::replace(&mut self.routes[dst], new);
            if dst == self.node.0 as usize {
                continue;
            }
            let (from, to) = (old.map(|r| r.0.neighbour), new.map(|r| r.0.neighbour));
            if from != to
                && let Some(events) = &mut self.events
            {
                events.push_back(RouteEvent {
                    at: now,
                    dst: NodeId(dst as u32),
                    kind: RouteEventKind::BestNeighbour {
                        from,
                        to,
                        estimate: new.map_or(Units(u32::MAX), |r| r.1),
                    },
                });
            }
        }
    }
}

impl Router for LinkState {
    fn node(&self) -> NodeId {
        self.node
    }

    fn next_hop(&self, dst: NodeId) -> Option<Hop> {
        let (hop, _) = self.routes.get(dst.0 as usize).copied().flatten()?;
        self.lines
            .get(&hop.line)
            .is_some_and(|l| l.up)
            .then_some(hop)
    }

    fn estimate(&self, dst: NodeId) -> Option<Units> {
        self.next_hop(dst)?;
        self.routes[dst.0 as usize].map(|r| r.1)
    }

    fn handle_routing_message(&mut self, now: SimTime, line: LineId, msg: &RoutingMessage) {
        if !self.lines.contains_key(&line) {
            return;
        }
        self.tick(now);
        let mut changed = false;
        for u in &msg.link_state {
            let o = u.origin.0 as usize;
            if u.origin == self.node || o >= self.db.len() {
                continue;
            }
            if self.db[o].as_ref().is_none_or(|have| u.seqno > have.seqno) {
                self.db[o] = Some(u.clone());
                self.learned[o] = now;
                changed = true;
            }
        }
        if changed {
            self.compute(now);
        }
    }

    fn handle_line_down(&mut self, now: SimTime, line: LineId) {
        self.tick(now);
        if let Some(l) = self.lines.get_mut(&line)
            && l.up
        {
            l.up = false;
            self.originate(now);
        }
    }

    fn handle_line_up(&mut self, now: SimTime, line: LineId) {
        self.tick(now);
        if let Some(l) = self.lines.get_mut(&line)
            && !l.up
        {
            l.up = true;
            l.up_since = now;
            l.reported = l.idle;
            l.sum_ns = 0;
            l.count = 0;
            self.originate(now);
        }
    }

    fn set_queue_len(&mut self, _: LineId, _: u32) {}

    fn handle_packet_delay(&mut self, now: SimTime, line: LineId, delay: SimDuration) {
        self.tick(now);
        if let Some(l) = self.lines.get_mut(&line) {
            l.sum_ns += u128::from(delay.as_nanos());
            l.count += 1;
        }
    }

    fn routing_message(&self, now: SimTime, line: LineId) -> Option<RoutingMessage> {
        let l = self.lines.get(&line).filter(|l| l.up)?;
        let window = self.params.flood_window;
        let whole = window.is_zero() || now < l.up_since + window;
        let link_state = self
            .db
            .iter()
            .zip(&self.learned)
            .filter_map(|(u, &at)| u.as_ref().filter(|_| whole || now < at + window))
            .cloned()
            .collect();
        Some(RoutingMessage {
            from: self.node,
            entries: Vec::new(),
            link_state,
            serial: 0,
        })
    }

    fn poll_at(&self) -> Option<SimTime> {
        None
    }

    fn poll_transmit(&mut self, _: SimTime) -> Option<(LineId, RoutingMessage)> {
        None
    }

    fn poll_event(&mut self) -> Option<RouteEvent> {
        self.events.as_mut()?.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// A square A–B–C–D–A whose line A–B is slow: A reaches B the long way round when that is
    /// quicker, and straight once the databases say the line got fast.
    fn square(ab_ms: u64) -> Vec<LinkState> {
        let lines = [(0, 1, ab_ms), (1, 2, 10), (2, 3, 10), (3, 0, 10)];
        let mut r: Vec<_> = (0..4)
            .map(|i| LinkState::new(NodeId(i), 4, SpfParams::default()))
            .collect();
        for (k, &(a, b, ms)) in lines.iter().enumerate() {
            let d = SimDuration::from_nanos(ms * MS);
            r[a].add_line(LineId(2 * k as u32), NodeId(b as u32), d);
            r[b].add_line(LineId(2 * k as u32 + 1), NodeId(a as u32), d);
        }
        for x in &mut r {
            x.start(SimTime::ZERO);
        }
        flood(&mut r, SimTime::ZERO);
        r
    }

    /// Every node hands its database to every other, enough times to spread everything.
    fn flood(r: &mut [LinkState], now: SimTime) {
        for _ in 0..r.len() {
            for x in 0..r.len() {
                let Some((&line, _)) = r[x].lines.iter().find(|(_, l)| l.up) else {
                    continue;
                };
                let msg = r[x].routing_message(now, line).expect("up");
                for (y, node) in r.iter_mut().enumerate() {
                    if y != x {
                        let any = *node.lines.keys().next().expect("a line");
                        node.handle_routing_message(now, any, &msg);
                    }
                }
            }
        }
    }

    #[test]
    fn shortest_path_over_delay_not_hops() {
        let r = square(100);
        // A to B: 100 ms straight, 30 ms round by D and C.
        let hop = r[0].next_hop(NodeId(1)).expect("a route");
        assert_eq!(hop.neighbour, NodeId(3));
        assert_eq!(r[0].estimate(NodeId(1)), Some(Units(30_000)));
        let r = square(20);
        assert_eq!(
            r[0].next_hop(NodeId(1)).expect("a route").neighbour,
            NodeId(1)
        );
    }

    #[test]
    fn measured_delay_moves_the_route_after_an_update() {
        let mut r = square(20);
        // A's line to B gets 200 ms of queueing: after A's averaging period its update says so.
        for t in 1..10 {
            r[0].handle_packet_delay(
                SimTime::ZERO + SimDuration::from_secs(t),
                LineId(0),
                SimDuration::from_millis(200),
            );
        }
        assert_eq!(
            r[0].next_hop(NodeId(1)).expect("a route").neighbour,
            NodeId(1)
        );
        let later = SimTime::ZERO + SimDuration::from_secs(10);
        r[0].handle_packet_delay(later, LineId(0), SimDuration::from_millis(200));
        assert_eq!(r[0].reported(LineId(0)), Some(Units(200_000)));
        assert_eq!(
            r[0].next_hop(NodeId(1)).expect("a route").neighbour,
            NodeId(3)
        );
    }

    #[test]
    fn small_changes_wait_for_the_threshold_to_decay() {
        let mut r = square(20);
        let sent = r[0].updates_sent();
        // 30 ms against a reported 20: 10 ms, under the 64 ms threshold at 10 s (51.2 ms) …
        for s in [5u64, 15, 25, 35] {
            r[0].handle_packet_delay(
                SimTime::ZERO + SimDuration::from_secs(s),
                LineId(0),
                SimDuration::from_millis(30),
            );
        }
        assert_eq!(r[0].updates_sent(), sent);
        // … and above it when the threshold has fallen under 10 ms (past 42.2 s): the period
        // ending at 50 s sends, as the 50 s rule would anyway.
        r[0].handle_packet_delay(
            SimTime::ZERO + SimDuration::from_secs(45),
            LineId(0),
            SimDuration::from_millis(30),
        );
        r[0].handle_packet_delay(
            SimTime::ZERO + SimDuration::from_secs(50),
            LineId(0),
            SimDuration::from_millis(30),
        );
        assert_eq!(r[0].updates_sent(), sent + 1);
        assert_eq!(r[0].reported(LineId(0)), Some(Units(30_000)));
    }

    #[test]
    fn a_line_down_is_reported_at_once_and_routed_around() {
        let mut r = square(20);
        let now = SimTime::ZERO + SimDuration::from_secs(1);
        r[0].handle_line_down(now, LineId(0));
        r[1].handle_line_down(now, LineId(1));
        assert_eq!(
            r[0].next_hop(NodeId(1)).expect("a route").neighbour,
            NodeId(3)
        );
        flood(&mut r, now);
        assert_eq!(
            r[2].next_hop(NodeId(0)).expect("a route").neighbour,
            NodeId(3)
        );
        assert_eq!(
            r[1].next_hop(NodeId(0)).expect("a route").neighbour,
            NodeId(2)
        );
    }

    #[test]
    fn an_old_update_never_replaces_a_newer_one() {
        let mut r = square(20);
        let old = r[1].routing_message(SimTime::ZERO, LineId(1)).expect("up");
        let now = SimTime::ZERO + SimDuration::from_secs(1);
        r[1].handle_line_down(now, LineId(3));
        r[2].handle_line_down(now, LineId(2));
        flood(&mut r, now);
        let before = r[0].next_hop(NodeId(2));
        r[0].handle_routing_message(now, LineId(0), &old);
        assert_eq!(r[0].next_hop(NodeId(2)), before);
    }
}
