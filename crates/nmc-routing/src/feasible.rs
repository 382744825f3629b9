//! The loop-free comparison: feasible successors with destination sequence numbers.
//!
//! Not an ARPANET mechanism. K&O §V end with "Naylor has studied the problem of eliminating
//! loops completely, and he presents a loop-free routing algorithm in \[10\]"; we take the
//! better-documented descendant of that line of work:
//!
//! * **Source-node condition** (Jaffe & Moss, "A responsive distributed routing algorithm for
//!   computer networks", IEEE Trans. Commun. 30(7), 1982; Garcia-Luna-Aceves, "Loop-free routing
//!   using diffusing computations", IEEE/ACM ToN 1(1), 1993): an IMP keeps its *feasible
//!   distance* FD, the smallest estimate it has had, and may switch to a neighbour only if that
//!   neighbour's reported estimate is below FD. It may always keep its current successor,
//!   whatever that successor reports. Then FD strictly decreases along every chain of
//!   successors at every instant, so no chain can close into a loop, even with stale reports.
//! * **Sequence numbers** (DSDV, Perkins & Bhagwat, SIGCOMM 1994; Babel, RFC 8966 §2.4–2.5 and
//!   §3.5.1): FD alone can only fall, so an IMP could be left with no feasible neighbour after
//!   a line fails. Each destination therefore numbers its own reports, starting a new number
//!   every [`RoutingParams::seqno_interval`]; FD is a pair (seqno, estimate), a newer seqno
//!   counts as smaller than any estimate under an older one, and a report under a newer seqno
//!   is always feasible. Babel also lets an IMP *ask* for a new seqno at once; we leave that
//!   out, so recovery after a loss of all feasible neighbours waits up to one seqno interval.
//!
//! Unlike the 1974 rule, this variant keeps each neighbour's last report and re-selects among
//! them: the successor if it still has a route, and every feasible neighbour, the smallest
//! estimate winning (ties: keep the successor, then the lowest line).
//!
//! [`RoutingParams::seqno_interval`]: crate::RoutingParams::seqno_interval

use crate::dv::DistanceVector;
use crate::router::{Router, RoutingMessage};
use crate::{LineId, NodeId, Units};
use nmc_sim::SimTime;

/// A feasible distance: (sequence number, estimate), ordered so that a newer sequence number
/// is smaller (better), and under one sequence number a smaller estimate is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feasibility {
    pub seqno: u32,
    pub estimate: Units,
}

impl Feasibility {
    /// Nothing known yet: every report is feasible.
    pub const NONE: Feasibility = Feasibility {
        seqno: 0,
        estimate: Units(u32::MAX),
    };

    /// Whether `(seqno, estimate)` is strictly better than `self` (RFC 8966 §3.5.1).
    pub fn is_beaten_by(self, seqno: u32, estimate: Units) -> bool {
        seqno > self.seqno || (seqno == self.seqno && estimate < self.estimate)
    }
}

/// Handles a routing message under the feasible-successor variant.
pub(crate) fn update(dv: &mut DistanceVector, now: SimTime, line: LineId, msg: &RoutingMessage) {
    let n = dv.routes.len();
    let inf = dv.params().infinity;
    let entries = (0..n).map(|d| msg.entry(NodeId(d as u32), inf)).collect();
    if let Some(l) = dv.lines.get_mut(&line) {
        l.reports = entries;
    }
    for dst in 0..n {
        reselect(dv, now, dst);
    }
}

/// Chooses `dst`'s successor among the current one and the feasible neighbours.
pub(crate) fn reselect(dv: &mut DistanceVector, now: SimTime, dst: usize) {
    if dst == dv.node().0 as usize {
        return;
    }
    let inf = dv.params().infinity;
    let route = &dv.routes[dst];
    let (current, fd) = (route.via, route.fd);
    // (estimate, is_current, line, seqno) of the best candidate so far.
    let mut best: Option<(Units, bool, LineId, u32)> = None;
    for (&id, l) in &dv.lines {
        let Some(rep) = l.reports.get(dst).copied() else {
            continue;
        };
        if !l.up || rep.estimate >= inf {
            continue;
        }
        let is_current = current == Some(id);
        // The source-node condition: a new successor must report less than our FD.
        if !is_current && !fd.is_beaten_by(rep.seqno, rep.estimate) {
            continue;
        }
        let est = dv.via(id, rep.estimate);
        if est >= inf {
            continue;
        }
        let better = match best {
            None => true,
            Some((b, b_current, _, _)) => est < b || (est == b && is_current && !b_current),
        };
        if better {
            best = Some((est, is_current, id, rep.seqno));
        }
    }
    match best {
        Some((est, _, line, seqno)) => {
            dv.set_route(now, dst, est, Some(line), seqno);
            let r = &mut dv.routes[dst];
            if r.fd.is_beaten_by(seqno, est) {
                r.fd = Feasibility {
                    seqno,
                    estimate: est,
                };
            }
        }
        None => {
            let seqno = dv.routes[dst].seqno;
            dv.set_route(now, dst, inf, None, seqno);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::router::Entry;
    use crate::{LineConfig, LoopPrevention, RoutingParams};
    use nmc_sim::SimDuration;

    fn ms(m: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(m)
    }

    fn msg(from: u32, d: (u32, u32)) -> RoutingMessage {
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
        }
    }

    /// Node 1 with lines to nodes 2 (line 2) and 3 (line 3); destination 0.
    fn router() -> DistanceVector {
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
        let mut r = router();
        r.handle_routing_message(ms(0), LineId(2), &msg(2, (1, 8))); // 12 via 2, FD 12
        r.handle_routing_message(ms(10), LineId(2), &msg(2, (1, 20))); // 24 via 2 (kept)
        r.handle_routing_message(ms(20), LineId(3), &msg(3, (1, 12))); // 16 via 3: 12 ≥ FD
        assert_eq!(r.next_hop(NodeId(0)).unwrap().neighbour, NodeId(2));
        assert_eq!(r.estimate(NodeId(0)), Some(Units(24)));
        r.handle_routing_message(ms(30), LineId(3), &msg(3, (1, 11))); // 11 < FD: feasible
        assert_eq!(r.next_hop(NodeId(0)).unwrap().neighbour, NodeId(3));
    }

    #[test]
    fn a_newer_sequence_number_is_always_feasible() {
        let mut r = router();
        r.handle_routing_message(ms(0), LineId(2), &msg(2, (1, 8)));
        r.handle_line_down(ms(5), LineId(2));
        r.handle_routing_message(ms(10), LineId(3), &msg(3, (1, 30)));
        assert_eq!(r.next_hop(NodeId(0)), None, "no feasible successor");
        r.handle_routing_message(ms(20), LineId(3), &msg(3, (2, 30)));
        assert_eq!(r.next_hop(NodeId(0)).unwrap().neighbour, NodeId(3));
        assert_eq!(r.estimate(NodeId(0)), Some(Units(34)));
    }
}
