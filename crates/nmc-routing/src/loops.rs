//! Loops: in a set of routing tables, and in one packet's path.
//!
//! K&O §V: "packets were tossed back and forth between neighboring nodes many times", "up to
//! 50 times". Two views of the same thing:
//!
//! * [`forwarding_loops`]: at one instant, follow every IMP's next hop for a destination; a
//!   cycle is a routing loop (Table I rows 3–9: B → C → B).
//! * [`Visits`]: per packet, how often it has been at each IMP; the subnet model keeps one per
//!   packet in flight and reports [`Visits::max_visits`] on delivery.

use crate::{NodeId, Router};
use std::collections::BTreeMap;

/// Every forwarding loop towards `dst` in the next-hop map `next` (IMP → next IMP, `None` for
/// no route or a node outside the map). Each loop is listed once, starting at its lowest IMP.
pub fn forwarding_loops(next: &BTreeMap<NodeId, Option<NodeId>>, dst: NodeId) -> Vec<Vec<NodeId>> {
    let mut loops = Vec::new();
    for &start in next.keys() {
        let mut path = vec![start];
        let mut at = start;
        while let Some(Some(n)) = next.get(&at) {
            if *n == dst {
                break;
            }
            if let Some(i) = path.iter().position(|p| p == n) {
                let cycle = &path[i..];
                let lowest = cycle.iter().enumerate().min_by_key(|c| c.1).unwrap().0;
                let mut c = cycle[lowest..].to_vec();
                c.extend_from_slice(&cycle[..lowest]);
                if !loops.contains(&c) {
                    loops.push(c);
                }
                break;
            }
            path.push(*n);
            at = *n;
        }
    }
    loops.sort();
    loops
}

/// [`forwarding_loops`] over the next hops of a set of routers.
pub fn forwarding_loops_of(routers: &[&dyn Router], dst: NodeId) -> Vec<Vec<NodeId>> {
    let next = routers
        .iter()
        .map(|r| (r.node(), r.next_hop(dst).map(|h| h.neighbour)))
        .collect();
    forwarding_loops(&next, dst)
}

/// How often one packet has been at each IMP.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Visits {
    /// `(IMP, visits)`; paths are short, so a vector beats a map.
    counts: Vec<(NodeId, u32)>,
    max: u32,
}

impl Visits {
    /// Records a visit to `node`; returns how many times the packet has now been there.
    pub fn visit(&mut self, node: NodeId) -> u32 {
        let n = match self.counts.iter_mut().find(|c| c.0 == node) {
            Some(c) => {
                c.1 += 1;
                c.1
            }
            None => {
                self.counts.push((node, 1));
                1
            }
        };
        self.max = self.max.max(n);
        n
    }

    /// The most visits to any one IMP (1 on a loop-free path).
    pub fn max_visits(&self) -> u32 {
        self.max
    }

    /// Visits beyond the first, summed over IMPs (0 on a loop-free path).
    pub fn repeats(&self) -> u32 {
        self.counts.iter().map(|c| c.1 - 1).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(u32, Option<u32>)]) -> BTreeMap<NodeId, Option<NodeId>> {
        pairs
            .iter()
            .map(|&(a, b)| (NodeId(a), b.map(NodeId)))
            .collect()
    }

    #[test]
    fn finds_the_b_c_loop_of_table_i() {
        // D=0, X=1, A=2, B=3, C=4; B and C point at each other.
        let m = map(&[(1, Some(0)), (2, Some(1)), (3, Some(4)), (4, Some(3))]);
        assert_eq!(
            forwarding_loops(&m, NodeId(0)),
            vec![vec![NodeId(3), NodeId(4)]]
        );
        let ok = map(&[(1, Some(0)), (2, Some(1)), (3, Some(2)), (4, Some(3))]);
        assert!(forwarding_loops(&ok, NodeId(0)).is_empty());
        let broken = map(&[(2, None), (3, Some(2)), (4, Some(7))]);
        assert!(forwarding_loops(&broken, NodeId(0)).is_empty());
    }

    #[test]
    fn counts_visits() {
        let mut v = Visits::default();
        for n in [2, 3, 4, 3, 4, 3, 2] {
            v.visit(NodeId(n));
        }
        assert_eq!(v.max_visits(), 3);
        assert_eq!(v.repeats(), 4);
    }
}
