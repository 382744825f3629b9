//! [`DistanceVector`]: the 1974 IMP routing procedure and its variants.
//!
//! State per destination (K&O §V's notation `d+5/4/X!`): the delay estimate (`d+5`), the local
//! delay over the line to the best delay neighbour (`4`), the best delay neighbour (`X`), and
//! whether that line is held down (`!`). Per line: the neighbour at its far end, whether it is
//! up, the packets waiting on its output queue, and its routing-message schedule.
//!
//! ## The 1974 update rule (variants `none`, `hold-down-1974`, `hold-down-window`)
//!
//! When a routing message arrives on a line, for each destination the estimate *via that
//! line* is the neighbour's estimate + 4 + 1 per packet waiting on the line (K&O §III). Then:
//!
//! | message from | condition | action | K&O §V |
//! | --- | --- | --- | --- |
//! | the best neighbour | — | take the estimate, better or worse; if it rose by more than 8, start a hold-down | Table I rows 2, 7; Table II rows 1, 2 |
//! | another neighbour | line held down | ignore it | Table II rows 3, 7 |
//! | another neighbour | offers a strictly smaller estimate | switch to it | Table I rows 3, 10 |
//! | another neighbour | otherwise | ignore it | Table I row 6 |
//!
//! The IMP keeps no table of what each neighbour said last: Table I row 7 shows B taking C's
//! worse `d+17` although A had offered `d+9` one message earlier (a Bellman–Ford minimum over
//! stored reports would give `d+9/0/A` there). The feasible-successor variant does keep them
//! ([`crate::feasible`]).
//!
//! ## Lines
//!
//! A line going down loses every route over it at once (estimate unreachable, no best
//! neighbour, hold-down ended), so the next message from any neighbour wins. A line coming up
//! sends a routing message at once and then every period. Unknown lines are ignored.

use crate::feasible::{self, Candidate, Feasibility};
use crate::holddown::HoldDown;
use crate::router::{Entry, Hop, RouteEvent, RouteEventKind, Router, RoutingMessage};
use crate::{LineId, LoopPrevention, NodeId, RoutingParams, Units};
use nmc_sim::{SimDuration, SimTime};
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

/// How a line is set up on a router.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineConfig {
    /// The IMP at the far end.
    pub neighbour: NodeId,
    /// This line's routing-message period (`None`: [`RoutingParams::period`]).
    pub period: Option<SimDuration>,
    /// When the first routing message on this line is due.
    pub first_message: SimTime,
    /// Whether the line starts up.
    pub up: bool,
}

impl LineConfig {
    /// An up line to `neighbour` with the default period, first message due at time zero.
    pub fn to(neighbour: NodeId) -> Self {
        LineConfig {
            neighbour,
            period: None,
            first_message: SimTime::ZERO,
            up: true,
        }
    }
    /// The same line with its own routing-message period instead of the default.
    pub fn period(mut self, period: SimDuration) -> Self {
        self.period = Some(period);
        self
    }
    /// The same line with its first routing message due at `at`.
    pub fn first_message_at(mut self, at: SimTime) -> Self {
        self.first_message = at;
        self
    }
    /// The same line, starting down.
    pub fn down(mut self) -> Self {
        self.up = false;
        self
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Line {
    pub neighbour: NodeId,
    pub up: bool,
    pub queued: u32,
    pub period: SimDuration,
    pub next_due: SimTime,
    /// The last routing message's entries (kept by the feasible-successor variant only).
    pub reports: Vec<Entry>,
}

/// One destination's routing-table entry.
#[derive(Clone, Debug)]
pub(crate) struct Route {
    pub estimate: Units,
    pub local: Units,
    pub via: Option<LineId>,
    pub seqno: u32,
    pub hold: HoldDown,
    pub fd: Feasibility,
}

/// A destination's entry as the paper prints it: `d+5/4/X!`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RouteView {
    /// The delay estimate (at or above `infinity` when unreachable).
    pub estimate: Units,
    /// Whether the estimate is below `infinity`.
    pub reachable: bool,
    /// The local delay over the line to the best neighbour when the estimate was last set.
    pub local: Units,
    /// The line to the best delay neighbour, and that neighbour (`None`: no route).
    pub best: Option<Hop>,
    /// Whether a line hold-down is in force for the destination (the paper's `!`).
    pub held_down: bool,
    /// The destination's sequence number the estimate belongs to (this IMP's current one for
    /// itself); used by [`LoopPrevention::FeasibleSuccessor`] only.
    pub seqno: u32,
}

/// Counters a run may report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RouterStats {
    /// Routing messages handled (arriving on a known, up line).
    pub messages_handled: u64,
    /// Messages or line events naming a line this router does not know, or a down line.
    pub unknown_or_down_line: u64,
    /// Times a destination's best delay line changed.
    pub best_neighbour_changes: u64,
    /// Line hold-downs started, over all destinations.
    pub hold_downs_started: u64,
    /// Per destination, offers from non-best neighbours ignored because the line was held.
    pub ignored_while_held: u64,
}

/// The adaptive distance-vector router of one IMP.
#[derive(Clone, Debug)]
pub struct DistanceVector {
    node: NodeId,
    params: RoutingParams,
    pub(crate) lines: BTreeMap<LineId, Line>,
    pub(crate) routes: Vec<Route>,
    events: Option<VecDeque<RouteEvent>>,
    pub(crate) stats: RouterStats,
}

impl DistanceVector {
    /// A router for `node` in a subnet of `nodes` IMPs (numbered `0..nodes`), with no lines and
    /// every other destination unreachable.
    pub fn new(node: NodeId, nodes: u32, params: RoutingParams) -> Self {
        let inf = params.infinity;
        let routes = (0..nodes)
            .map(|d| Route {
                estimate: if d == node.0 { Units(0) } else { inf },
                local: Units(0),
                via: None,
                seqno: 0,
                hold: HoldDown::default(),
                fd: Feasibility::NONE,
            })
            .collect();
        DistanceVector {
            node,
            params,
            lines: BTreeMap::new(),
            routes,
            events: None,
            stats: RouterStats::default(),
        }
    }

    /// Adds (or replaces) a line.
    pub fn add_line(&mut self, line: LineId, cfg: LineConfig) -> &mut Self {
        self.lines.insert(
            line,
            Line {
                neighbour: cfg.neighbour,
                up: cfg.up,
                queued: 0,
                period: cfg.period.unwrap_or(self.params.period),
                next_due: cfg.first_message,
                reports: Vec::new(),
            },
        );
        self
    }

    /// Changes a line's routing-message period (K&O §V: the frequency "is a function of line
    /// speed and line utilization"); takes effect after the message already scheduled.
    pub fn set_period(&mut self, line: LineId, period: SimDuration) {
        if let Some(l) = self.lines.get_mut(&line) {
            l.period = period;
        }
    }

    /// Starts (or stops) recording [`RouteEvent`]s for [`Router::poll_event`].
    pub fn record_events(&mut self, on: bool) {
        self.events = on.then(VecDeque::new);
    }

    /// The constants the router runs with.
    pub fn params(&self) -> &RoutingParams {
        &self.params
    }

    /// The counters so far.
    pub fn stats(&self) -> RouterStats {
        self.stats
    }

    /// The neighbour at the far end of `line`.
    pub fn neighbour(&self, line: LineId) -> Option<NodeId> {
        self.lines.get(&line).map(|l| l.neighbour)
    }

    /// The lines, in order, with their neighbour and whether they are up.
    pub fn lines(&self) -> impl Iterator<Item = (LineId, NodeId, bool)> + '_ {
        self.lines.iter().map(|(&id, l)| (id, l.neighbour, l.up))
    }

    /// The table entry for `dst` at `now` (`None` for an unknown destination).
    pub fn route(&self, now: SimTime, dst: NodeId) -> Option<RouteView> {
        let r = self.routes.get(dst.0 as usize)?;
        Some(RouteView {
            estimate: r.estimate,
            reachable: r.estimate < self.params.infinity,
            local: r.local,
            best: r.via.and_then(|line| self.hop(line)),
            held_down: r.hold.held(now),
            seqno: if dst == self.node {
                self.own_seqno(now)
            } else {
                r.seqno
            },
        })
    }

    fn hop(&self, line: LineId) -> Option<Hop> {
        self.lines.get(&line).map(|l| Hop {
            line,
            neighbour: l.neighbour,
        })
    }

    /// This IMP's sequence number as a destination: a new one every `seqno_interval`
    /// (used by the feasible-successor variant; see [`crate::feasible`]).
    pub fn own_seqno(&self, now: SimTime) -> u32 {
        let k = now.as_nanos() / self.params.seqno_interval.as_nanos().max(1);
        1 + k.min(u32::MAX as u64 - 1) as u32
    }

    /// The local delay over `line` now: 1 unit per waiting packet, up to 8 (K&O §III).
    pub(crate) fn local_delay(&self, line: LineId) -> Units {
        let q = self.lines.get(&line).map_or(0, |l| l.queued);
        self.params.local_delay(q)
    }

    /// The estimate via `line` for a neighbour's report `reported`: reported + 4 + local delay
    /// (K&O §III), unreachable stays unreachable.
    pub(crate) fn via(&self, line: LineId, reported: Units) -> Units {
        let inf = self.params.infinity;
        if reported >= inf {
            return inf;
        }
        let q = self.lines.get(&line).map_or(0, |l| l.queued);
        reported.plus(self.params.hop_cost(q), inf)
    }

    /// Sets `dst`'s entry, recording history and events; the only place an entry changes.
    pub(crate) fn set_route(
        &mut self,
        now: SimTime,
        dst: usize,
        estimate: Units,
        via: Option<LineId>,
        seqno: u32,
    ) {
        let inf = self.params.infinity;
        let estimate = estimate.min(inf);
        let local = match via {
            Some(line) if estimate < inf => self.local_delay(line),
            _ => Units(0),
        };
        let variant = self.params.loop_prevention;
        let hd = self.params.hold_down;
        let old_via = self.routes[dst].via;
        let old_neighbour = old_via.and_then(|l| self.neighbour(l));
        let new_neighbour = via.and_then(|l| self.neighbour(l));
        let r = &mut self.routes[dst];
        r.estimate = estimate;
        r.local = local;
        r.via = via;
        r.seqno = seqno;
        r.hold.record(variant, &hd, now, estimate);
        if old_via != via {
            self.stats.best_neighbour_changes += 1;
            self.push_event(
                now,
                dst,
                RouteEventKind::BestNeighbour {
                    from: old_neighbour,
                    to: new_neighbour,
                    estimate,
                },
            );
        }
    }

    fn push_event(&mut self, at: SimTime, dst: usize, kind: RouteEventKind) {
        if let Some(ev) = &mut self.events {
            ev.push_back(RouteEvent {
                at,
                dst: NodeId(dst as u32),
                kind,
            });
        }
    }

    /// The 1974 update rule for one routing message (see the module doc's table).
    /// Handles a routing message under the feasible-successor variant ([`feasible`]): keeps
    /// the neighbour's report and re-selects every destination.
    fn update_feasible(&mut self, now: SimTime, line: LineId, msg: &RoutingMessage) {
        let n = self.routes.len();
        let inf = self.params.infinity;
        let entries = (0..n).map(|d| msg.entry(NodeId(d as u32), inf)).collect();
        if let Some(l) = self.lines.get_mut(&line) {
            l.reports = entries;
        }
        for dst in 0..n {
            self.reselect_feasible(now, dst);
        }
    }

    /// Chooses `dst`'s successor among the current one and the feasible neighbours
    /// ([`feasible::choose`]), and lowers the feasible distance when the new route beats it.
    fn reselect_feasible(&mut self, now: SimTime, dst: usize) {
        if dst == self.node.0 as usize {
            return;
        }
        let inf = self.params.infinity;
        let route = &self.routes[dst];
        let candidates = self
            .lines
            .iter()
            .filter(|(_, l)| l.up)
            .filter_map(|(&id, l)| {
                let report = l.reports.get(dst).copied()?;
                Some(Candidate {
                    line: id,
                    report,
                    through: self.via(id, report.estimate),
                })
            });
        match feasible::choose(route.via, route.fd, candidates, inf) {
            Some(c) => {
                let (est, seqno) = (c.through, c.report.seqno);
                self.set_route(now, dst, est, Some(c.line), seqno);
                let r = &mut self.routes[dst];
                if r.fd.is_beaten_by(seqno, est) {
                    r.fd = Feasibility {
                        seqno,
                        estimate: est,
                    };
                }
            }
            None => {
                let seqno = self.routes[dst].seqno;
                self.set_route(now, dst, inf, None, seqno);
            }
        }
    }

    fn update_1974(&mut self, now: SimTime, line: LineId, msg: &RoutingMessage) {
        let inf = self.params.infinity;
        let hd = self.params.hold_down;
        let variant = self.params.loop_prevention;
        for dst in 0..self.routes.len() {
            if dst == self.node.0 as usize {
                continue;
            }
            let reported = msg.entry(NodeId(dst as u32), inf);
            // K&O §III: the estimate over a hop is the neighbour's + 4 + 1 per queued packet.
            let via = self.via(line, reported.estimate);
            let r = &self.routes[dst];
            let before = r.estimate;
            if r.via == Some(line) {
                // K&O §V, Table I rows 2 and 7: the best delay neighbour's estimate is taken
                // as it comes, better or worse.
                // A hold-down in force is not extended (see `holddown`).
                let starts = !r.hold.held(now)
                    && r.hold.rise_starts_hold_down(variant, &hd, now, before, via);
                self.set_route(now, dst, via, Some(line), reported.seqno);
                if starts {
                    // K&O §V: "continue using the best delay path for up to 2 s … whenever
                    // the delay estimate on this path increased by more than 8 delay units".
                    let until = self.routes[dst].hold.start(now, &hd);
                    self.stats.hold_downs_started += 1;
                    let neighbour = self.neighbour(line).unwrap_or(NodeId(u32::MAX));
                    self.push_event(now, dst, RouteEventKind::HoldDown { neighbour, until });
                }
            } else if r.hold.held(now) {
                // K&O §V: while held down, "ignoring the estimated delay from nonbest delay
                // neighbors" (Table II rows 3 and 7).
                self.stats.ignored_while_held += 1;
                if via < before {
                    // Without the hold-down this offer would have won (below): the hold-down
                    // is what keeps the route, and any loop through it.
                    let held = r.via.and_then(|l| self.neighbour(l));
                    let by = self.neighbour(line);
                    if let (Some(held), Some(by)) = (held, by) {
                        self.push_event(
                            now,
                            dst,
                            RouteEventKind::HeldAgainst {
                                held,
                                by,
                                offered: via,
                            },
                        );
                    }
                }
            } else if via < before {
                // K&O §III: "Packets are always sent over the path with the smallest current
                // delay estimate": a strictly smaller offer wins (Table I rows 3 and 10).
                self.set_route(now, dst, via, Some(line), reported.seqno);
            }
            // Otherwise an equal or larger offer from a non-best neighbour changes nothing
            // (Table I row 6).
        }
    }

    fn line_is_up(&self, line: LineId) -> bool {
        self.lines.get(&line).is_some_and(|l| l.up)
    }
}

impl Router for DistanceVector {
    fn node(&self) -> NodeId {
        self.node
    }

    fn next_hop(&self, dst: NodeId) -> Option<Hop> {
        let r = self.routes.get(dst.0 as usize)?;
        if dst == self.node || r.estimate >= self.params.infinity {
            return None;
        }
        r.via
            .filter(|&l| self.line_is_up(l))
            .and_then(|l| self.hop(l))
    }

    fn estimate(&self, dst: NodeId) -> Option<Units> {
        let r = self.routes.get(dst.0 as usize)?;
        (r.estimate < self.params.infinity).then_some(r.estimate)
    }

    fn handle_routing_message(&mut self, now: SimTime, line: LineId, msg: &RoutingMessage) {
        if !self.line_is_up(line) {
            self.stats.unknown_or_down_line += 1;
            return;
        }
        self.stats.messages_handled += 1;
        match self.params.loop_prevention {
            LoopPrevention::FeasibleSuccessor => self.update_feasible(now, line, msg),
            _ => self.update_1974(now, line, msg),
        }
    }

    fn handle_line_down(&mut self, now: SimTime, line: LineId) {
        match self.lines.get_mut(&line) {
            Some(l) if l.up => {
                l.up = false;
                l.reports.clear();
            }
            _ => {
                self.stats.unknown_or_down_line += 1;
                return;
            }
        }
        for dst in 0..self.routes.len() {
            if self.routes[dst].via != Some(line) {
                continue;
            }
            // The held line is gone: nothing is left to hold (our choice, see holddown).
            self.routes[dst].hold.clear();
            match self.params.loop_prevention {
                LoopPrevention::FeasibleSuccessor => self.reselect_feasible(now, dst),
                _ => {
                    let inf = self.params.infinity;
                    self.set_route(now, dst, inf, None, self.routes[dst].seqno);
                }
            }
        }
    }

    fn handle_line_up(&mut self, now: SimTime, line: LineId) {
        match self.lines.get_mut(&line) {
            Some(l) if !l.up => {
                l.up = true;
                l.reports.clear();
                l.next_due = now;
            }
            _ => self.stats.unknown_or_down_line += 1,
        }
    }

    fn set_queue_len(&mut self, line: LineId, packets: u32) {
        if let Some(l) = self.lines.get_mut(&line) {
            l.queued = packets;
        }
    }

    fn routing_message(&self, now: SimTime, line: LineId) -> Option<RoutingMessage> {
        if !self.line_is_up(line) {
            return None;
        }
        let inf = self.params.infinity;
        let entries = self
            .routes
            .iter()
            .enumerate()
            .map(|(d, r)| {
                if d == self.node.0 as usize {
                    Entry {
                        estimate: Units(0),
                        seqno: self.own_seqno(now),
                    }
                } else {
                    Entry {
                        estimate: r.estimate.min(inf),
                        seqno: r.seqno,
                    }
                }
            })
            .collect();
        Some(RoutingMessage {
            from: self.node,
            entries,
            link_state: Vec::new(),
            serial: 0,
        })
    }

    fn poll_at(&self) -> Option<SimTime> {
        self.lines
            .values()
            .filter(|l| l.up)
            .map(|l| l.next_due)
            .min()
    }

    fn poll_transmit(&mut self, now: SimTime) -> Option<(LineId, RoutingMessage)> {
        let (&line, _) = self
            .lines
            .iter()
            .filter(|(_, l)| l.up && l.next_due <= now)
            .min_by_key(|&(&id, l)| (l.next_due, id))?;
        let msg = self.routing_message(now, line)?;
        let l = self.lines.get_mut(&line)?;
        let period = if l.period.is_zero() {
            self.params.period
        } else {
            l.period
        };
        l.next_due += period;
        if l.next_due <= now {
            // A late poll does not send a burst of stale messages.
            l.next_due = now + period;
        }
        Some((line, msg))
    }

    fn poll_event(&mut self) -> Option<RouteEvent> {
        self.events.as_mut()?.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const D: NodeId = NodeId(0);
    const X: NodeId = NodeId(1);
    const B: NodeId = NodeId(3);
    const LX: LineId = LineId(0);
    const LB: LineId = LineId(1);

    fn ms(m: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(m)
    }

    /// IMP A (node 2) with lines to X and B, as in K&O §V.
    fn imp_a(v: LoopPrevention) -> DistanceVector {
        let mut a = DistanceVector::new(NodeId(2), 5, RoutingParams::with(v));
        a.add_line(LX, LineConfig::to(X))
            .add_line(LB, LineConfig::to(B));
        a
    }

    fn msg(from: NodeId, d_estimate: u32) -> RoutingMessage {
        let mut entries = vec![
            Entry {
                estimate: Units(600),
                seqno: 0
            };
            5
        ];
        entries[0] = Entry {
            estimate: Units(d_estimate),
            seqno: 1,
        };
        entries[from.0 as usize] = Entry {
            estimate: Units(0),
            seqno: 1,
        };
        RoutingMessage {
            from,
            entries,
            link_state: Vec::new(),
            serial: 0,
        }
    }

    mod best_neighbour {
        use super::*;

        #[test]
        fn its_estimate_is_taken_better_or_worse() {
            let mut a = imp_a(LoopPrevention::None);
            a.handle_routing_message(ms(0), LX, &msg(X, 8));
            assert_eq!(a.estimate(D), Some(Units(12)));
            a.set_queue_len(LX, 4);
            a.handle_routing_message(ms(640), LX, &msg(X, 13));
            let r = a.route(ms(640), D).unwrap();
            assert_eq!((r.estimate, r.local), (Units(21), Units(4)));
            a.handle_routing_message(ms(1280), LX, &msg(X, 0));
            assert_eq!(a.estimate(D), Some(Units(8)));
        }

        #[test]
        fn a_rise_of_more_than_8_starts_a_hold_down() {
            let mut a = imp_a(LoopPrevention::HoldDown1974);
            a.handle_routing_message(ms(0), LX, &msg(X, 8));
            a.set_queue_len(LX, 4);
            a.handle_routing_message(ms(640), LX, &msg(X, 13));
            assert!(a.route(ms(640), D).unwrap().held_down);
            assert!(a.route(ms(2639), D).unwrap().held_down);
            assert!(!a.route(ms(2640), D).unwrap().held_down);
            assert_eq!(a.stats().hold_downs_started, 1);
        }
    }

    mod other_neighbour {
        use super::*;

        #[test]
        fn wins_only_with_a_strictly_smaller_estimate() {
            let mut a = imp_a(LoopPrevention::None);
            a.handle_routing_message(ms(0), LX, &msg(X, 8)); // 12 via X
            a.handle_routing_message(ms(10), LB, &msg(B, 8)); // 12 via B: a tie
            assert_eq!(a.next_hop(D).unwrap().neighbour, X);
            a.handle_routing_message(ms(20), LB, &msg(B, 7)); // 11 via B
            assert_eq!(a.next_hop(D).unwrap().neighbour, B);
        }

        #[test]
        fn is_ignored_while_held_down() {
            let mut a = imp_a(LoopPrevention::HoldDown1974);
            a.handle_routing_message(ms(0), LX, &msg(X, 8));
            a.handle_routing_message(ms(640), LX, &msg(X, 20)); // +12: held
            a.handle_routing_message(ms(650), LB, &msg(B, 0)); // 4 via B, ignored
            assert_eq!(a.next_hop(D).unwrap().neighbour, X);
            assert_eq!(a.stats().ignored_while_held, 1);
            a.handle_routing_message(ms(2650), LB, &msg(B, 0)); // hold-down over
            assert_eq!(a.next_hop(D).unwrap().neighbour, B);
        }

        /// K&O §V: a loop trap is "a loop whose existence is extended because of line
        /// hold-down": what extends it is an offer the hold-down refused, which is recorded.
        #[test]
        fn a_smaller_offer_refused_while_held_is_recorded_a_larger_one_is_not() {
            let mut a = imp_a(LoopPrevention::HoldDown1974);
            a.record_events(true);
            a.handle_routing_message(ms(0), LX, &msg(X, 8));
            a.handle_routing_message(ms(640), LX, &msg(X, 20)); // 24 via X, +12: held
            a.handle_routing_message(ms(650), LB, &msg(B, 30)); // 34 via B: would not win
            a.handle_routing_message(ms(660), LB, &msg(B, 0)); // 4 via B: would have won
            let refused: Vec<_> = std::iter::from_fn(|| a.poll_event())
                .filter(|e| e.dst == D)
                .filter_map(|e| match e.kind {
                    RouteEventKind::HeldAgainst { held, by, offered } => {
                        Some((e.at, held, by, offered))
                    }
                    _ => None,
                })
                .collect();
            assert_eq!(refused, vec![(ms(660), X, B, Units(4))]);
            assert_eq!(a.stats().ignored_while_held, 2);
        }
    }

    mod lines {
        use super::*;

        #[test]
        fn a_line_going_down_loses_its_routes_and_ends_the_hold_down() {
            let mut a = imp_a(LoopPrevention::HoldDown1974);
            a.record_events(true);
            a.handle_routing_message(ms(0), LX, &msg(X, 8));
            a.handle_routing_message(ms(640), LX, &msg(X, 20));
            a.handle_line_down(ms(700), LX);
            assert_eq!(a.next_hop(D), None);
            assert_eq!(a.estimate(D), None);
            assert!(!a.route(ms(700), D).unwrap().held_down);
            a.handle_routing_message(ms(710), LB, &msg(B, 30));
            assert_eq!(a.next_hop(D).unwrap().neighbour, B);
            let kinds: Vec<_> = std::iter::from_fn(|| a.poll_event())
                .filter(|e| e.dst == D)
                .map(|e| e.kind)
                .collect();
            assert_eq!(kinds.len(), 4, "{kinds:?}"); // to X, hold-down, lost, to B
            assert!(a.routing_message(ms(710), LX).is_none());
            a.handle_routing_message(ms(720), LX, &msg(X, 0)); // down: ignored
            assert_eq!(a.next_hop(D).unwrap().neighbour, B);
        }

        #[test]
        fn unknown_lines_are_ignored() {
            for v in LoopPrevention::ALL {
                let mut a = imp_a(v);
                let ghost = LineId(99);
                a.handle_line_down(ms(0), ghost);
                a.handle_line_up(ms(0), ghost);
                a.set_queue_len(ghost, 3);
                a.set_period(ghost, SimDuration::from_millis(1));
                a.handle_routing_message(ms(0), ghost, &msg(X, 0));
                assert!(a.routing_message(ms(0), ghost).is_none());
                assert_eq!(a.next_hop(NodeId(40)), None);
                assert_eq!(a.estimate(NodeId(40)), None);
                assert!(a.route(ms(0), NodeId(40)).is_none());
                // Twice down, twice up: no panic either.
                a.handle_line_down(ms(1), LX);
                a.handle_line_down(ms(2), LX);
                a.handle_line_up(ms(3), LX);
                a.handle_line_up(ms(4), LX);
                assert_eq!(a.stats().unknown_or_down_line, 5);
            }
        }

        #[test]
        fn short_messages_mean_unreachable() {
            let mut a = imp_a(LoopPrevention::None);
            let m = RoutingMessage {
                from: X,
                entries: vec![],
                link_state: Vec::new(),
                serial: 0,
            };
            a.handle_routing_message(ms(0), LX, &m);
            assert_eq!(a.next_hop(D), None);
        }
    }

    mod schedule {
        use super::*;

        #[test]
        fn each_line_sends_at_its_own_period() {
            let mut a = DistanceVector::new(NodeId(2), 5, RoutingParams::default());
            a.add_line(LX, LineConfig::to(X))
                .add_line(LB, LineConfig::to(B).period(SimDuration::from_millis(320)));
            let mut sent = Vec::new();
            let mut now = SimTime::ZERO;
            while now < ms(1280) {
                while let Some((line, m)) = a.poll_transmit(now) {
                    assert_eq!(m.from, NodeId(2));
                    sent.push((now, line));
                }
                now = a.poll_at().unwrap();
            }
            let times = |l| {
                sent.iter()
                    .filter(|s| s.1 == l)
                    .map(|s| s.0)
                    .collect::<Vec<_>>()
            };
            assert_eq!(times(LX), vec![ms(0), ms(640)]);
            assert_eq!(times(LB), vec![ms(0), ms(320), ms(640), ms(960)]);
        }

        #[test]
        fn a_late_poll_sends_once_and_a_line_coming_up_sends_at_once() {
            let mut a = imp_a(LoopPrevention::None);
            assert!(a.poll_transmit(ms(5000)).is_some());
            assert!(a.poll_transmit(ms(5000)).is_some());
            assert!(a.poll_transmit(ms(5000)).is_none());
            assert_eq!(a.poll_at(), Some(ms(5640)));
            a.handle_line_down(ms(5100), LX);
            a.handle_line_up(ms(5200), LX);
            assert_eq!(a.poll_at(), Some(ms(5200)));
            a.handle_line_down(ms(5300), LX);
            a.handle_line_down(ms(5300), LB);
            assert_eq!(a.poll_at(), None);
        }
    }

    // The feasible-successor variant, driven through the router ([`feasible`] has the rule).

    fn fs_msg(from: u32, d: (u32, u32)) -> RoutingMessage {
        let mut entries = vec![
            Entry {
                estimate: Units(600),
                seqno: 0
            };
            4
        ];
        entries[0] = Entry {
            seqno: d.0,
            estimate: Units(d.1),
        };
        RoutingMessage {
            from: NodeId(from),
            entries,
            link_state: Vec::new(),
            serial: 0,
        }
    }

    /// Node 1 with lines to nodes 2 (line 2) and 3 (line 3); destination 0.
    fn fs_router() -> DistanceVector {
        let mut r = DistanceVector::new(
            NodeId(1),
            4,
            RoutingParams::with(LoopPrevention::FeasibleSuccessor),
        );
        r.add_line(LineId(2), LineConfig::to(NodeId(2)))
            .add_line(LineId(3), LineConfig::to(NodeId(3)));
        r
    }

    #[test]
    fn an_unfeasible_neighbour_is_not_taken_even_when_shorter() {
        let mut r = fs_router();
        r.handle_routing_message(ms(0), LineId(2), &fs_msg(2, (1, 8))); // 12 via 2, FD 12
        r.handle_routing_message(ms(10), LineId(2), &fs_msg(2, (1, 20))); // 24 via 2 (kept)
        r.handle_routing_message(ms(20), LineId(3), &fs_msg(3, (1, 12))); // 16 via 3: 12 ≥ FD
        assert_eq!(r.next_hop(NodeId(0)).unwrap().neighbour, NodeId(2));
        assert_eq!(r.estimate(NodeId(0)), Some(Units(24)));
        r.handle_routing_message(ms(30), LineId(3), &fs_msg(3, (1, 11))); // 11 < FD: feasible
        assert_eq!(r.next_hop(NodeId(0)).unwrap().neighbour, NodeId(3));
    }

    #[test]
    fn a_newer_sequence_number_is_always_feasible() {
        let mut r = fs_router();
        r.handle_routing_message(ms(0), LineId(2), &fs_msg(2, (1, 8)));
        r.handle_line_down(ms(5), LineId(2));
        r.handle_routing_message(ms(10), LineId(3), &fs_msg(3, (1, 30)));
        assert_eq!(r.next_hop(NodeId(0)), None, "no feasible successor");
        r.handle_routing_message(ms(20), LineId(3), &fs_msg(3, (2, 30)));
        assert_eq!(r.next_hop(NodeId(0)).unwrap().neighbour, NodeId(3));
        assert_eq!(r.estimate(NodeId(0)), Some(Units(34)));
    }
}
