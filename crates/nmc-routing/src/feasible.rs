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
//!
//! This module is the rule alone, over plain values: [`choose`] picks a successor from the
//! neighbours' reports. [`DistanceVector`](crate::DistanceVector) keeps the reports and the
//! feasible distances and calls it.

use crate::router::Entry;
use crate::{LineId, Units};

/// A feasible distance: (sequence number, estimate), ordered so that a newer sequence number
/// is smaller (better), and under one sequence number a smaller estimate is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feasibility {
    /// The destination's sequence number the feasible distance belongs to (newer is better).
    pub seqno: u32,
    /// The smallest estimate the IMP has had under that sequence number.
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

/// A neighbour on a line that is up, as the rule sees it for one destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The line to the neighbour.
    pub line: LineId,
    /// The neighbour's last report for the destination.
    pub report: Entry,
    /// The estimate through it: the report plus the hop's cost (K&O §III), or infinity.
    pub through: Units,
}

/// The successor for one destination, given the current successor `current`, the feasible
/// distance `fd` and the neighbours in line order: the current successor if it still has a
/// route, and every neighbour that meets the source-node condition; the smallest estimate
/// through it wins (ties: keep the current successor, then the first line). `None` when no
/// neighbour qualifies.
pub fn choose(
    current: Option<LineId>,
    fd: Feasibility,
    candidates: impl IntoIterator<Item = Candidate>,
    infinity: Units,
) -> Option<Candidate> {
    // The best candidate so far, and whether it is the current successor.
    let mut best: Option<(Candidate, bool)> = None;
    for c in candidates {
        if c.report.estimate >= infinity {
            continue;
        }
        let is_current = current == Some(c.line);
        // The source-node condition: a new successor must report less than our FD.
        if !is_current && !fd.is_beaten_by(c.report.seqno, c.report.estimate) {
            continue;
        }
        if c.through >= infinity {
            continue;
        }
        let better = match best {
            None => true,
            Some((b, b_current)) => {
                c.through < b.through || (c.through == b.through && is_current && !b_current)
            }
        };
        if better {
            best = Some((c, is_current));
        }
    }
    best.map(|(c, _)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    const INF: Units = Units(600);

    fn cand(line: u32, seqno: u32, reported: u32) -> Candidate {
        Candidate {
            line: LineId(line),
            report: Entry {
                seqno,
                estimate: Units(reported),
            },
            through: Units(reported + 4),
        }
    }

    #[test]
    fn a_shorter_neighbour_that_is_not_feasible_is_passed_over() {
        let fd = Feasibility {
            seqno: 1,
            estimate: Units(12),
        };
        // Line 3 reports 12, not below FD 12; the successor on line 2 is kept at 24.
        let c = choose(Some(LineId(2)), fd, [cand(2, 1, 20), cand(3, 1, 12)], INF);
        assert_eq!(c.unwrap().line, LineId(2));
        // 11 < FD: feasible, and shorter.
        let c = choose(Some(LineId(2)), fd, [cand(2, 1, 20), cand(3, 1, 11)], INF);
        assert_eq!(c.unwrap().line, LineId(3));
    }

    #[test]
    fn a_newer_sequence_number_is_feasible_whatever_its_estimate() {
        let fd = Feasibility {
            seqno: 1,
            estimate: Units(12),
        };
        assert_eq!(choose(None, fd, [cand(3, 1, 30)], INF), None);
        assert_eq!(
            choose(None, fd, [cand(3, 2, 30)], INF).unwrap().line,
            LineId(3)
        );
    }

    #[test]
    fn ties_keep_the_current_successor_then_the_first_line() {
        let c = choose(
            Some(LineId(3)),
            Feasibility::NONE,
            [cand(2, 0, 8), cand(3, 0, 8)],
            INF,
        );
        assert_eq!(c.unwrap().line, LineId(3));
        let c = choose(None, Feasibility::NONE, [cand(2, 0, 8), cand(3, 0, 8)], INF);
        assert_eq!(c.unwrap().line, LineId(2));
    }
}
