//! [`ShortestHop`]: fixed shortest-hop routes behind the [`Router`] trait.
//!
//! The baseline the adaptive router is compared with, and the router for runs that want routing
//! out of the picture (K&O §IV's throughput runs barely depend on it). Routes are computed once
//! from the whole [`Graph`] by breadth-first search from this IMP, ties going to the
//! lowest-numbered line, so they depend only on the graph. They never change: a line going down
//! makes the destinations behind it unreachable from here (`next_hop` is `None`) until it comes
//! back. No routing messages are sent.

use crate::router::{Hop, Router, RoutingMessage};
use crate::{LineId, NodeId, Units};
use nmc_sim::SimTime;
use nmc_sim::graph::breadth_first;
use std::collections::BTreeSet;

/// A subnet's lines: `(line, a, b)`, each full-duplex.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Graph {
    /// The number of IMPs, numbered `0..nodes`.
    pub nodes: u32,
    /// The lines: each line's id and the IMPs at its two ends.
    pub lines: Vec<(LineId, NodeId, NodeId)>,
}

impl Graph {
    /// `nodes` IMPs in a row joined by lines `0..nodes-1` (line `k` joins `k` and `k+1`).
    pub fn chain(nodes: u32) -> Graph {
        Graph {
            nodes,
            lines: (1..nodes)
                .map(|k| (LineId(k - 1), NodeId(k - 1), NodeId(k)))
                .collect(),
        }
    }

    /// The lines at `node`, in line order: `(line, neighbour)`.
    pub fn lines_at(&self, node: NodeId) -> Vec<(LineId, NodeId)> {
        let mut v: Vec<_> = self
            .lines
            .iter()
            .filter_map(|&(l, a, b)| {
                if a == node {
                    Some((l, b))
                } else if b == node {
                    Some((l, a))
                } else {
                    None
                }
            })
            .collect();
        v.sort();
        v
    }
}

/// Static shortest-hop routes for one IMP.
#[derive(Clone, Debug)]
pub struct ShortestHop {
    node: NodeId,
    /// Per destination: the first hop and the number of hops.
    routes: Vec<Option<(Hop, u32)>>,
    down: BTreeSet<LineId>,
    known: BTreeSet<LineId>,
    hop_units: Units,
}

impl ShortestHop {
    /// Routes from `node` over `graph`; estimates are reported as `hop_units` per hop.
    pub fn new(node: NodeId, graph: &Graph, hop_units: Units) -> Self {
        let n = graph.nodes as usize;
        let mut routes: Vec<Option<(Hop, u32)>> = vec![None; n];
        // The workspace's one breadth-first search, from this IMP over its lines in line order;
        // a node's first hop is its parent's, or the line itself next to this IMP.
        breadth_first(
            n,
            node.0 as usize,
            |v| {
                graph
                    .lines_at(NodeId(v as u32))
                    .into_iter()
                    .map(|(line, next)| (line, next.0 as usize))
            },
            |u, line, from| {
                let (first, hops) = match routes[from] {
                    Some((first, hops)) => (first, hops),
                    None => (
                        Hop {
                            line,
                            neighbour: NodeId(u as u32),
                        },
                        0,
                    ),
                };
                routes[u] = Some((first, hops + 1));
            },
        );
        ShortestHop {
            node,
            routes,
            down: BTreeSet::new(),
            known: graph.lines_at(node).into_iter().map(|(l, _)| l).collect(),
            hop_units,
        }
    }

    /// The number of hops to `dst` on the static route.
    pub fn hops(&self, dst: NodeId) -> Option<u32> {
        self.routes
            .get(dst.0 as usize)
            .copied()
            .flatten()
            .map(|r| r.1)
    }
}

impl Router for ShortestHop {
    fn node(&self) -> NodeId {
        self.node
    }
    fn next_hop(&self, dst: NodeId) -> Option<Hop> {
        let (hop, _) = self.routes.get(dst.0 as usize).copied().flatten()?;
        (!self.down.contains(&hop.line)).then_some(hop)
    }
    fn estimate(&self, dst: NodeId) -> Option<Units> {
        self.next_hop(dst)?;
        Some(Units(self.hop_units.0 * self.hops(dst)?))
    }
    fn handle_routing_message(&mut self, _: SimTime, _: LineId, _: &RoutingMessage) {}
    fn handle_line_down(&mut self, _: SimTime, line: LineId) {
        if self.known.contains(&line) {
            self.down.insert(line);
        }
    }
    fn handle_line_up(&mut self, _: SimTime, line: LineId) {
        self.down.remove(&line);
    }
    fn set_queue_len(&mut self, _: LineId, _: u32) {}
    fn routing_message(&self, _: SimTime, _: LineId) -> Option<RoutingMessage> {
        None
    }
    fn poll_at(&self) -> Option<SimTime> {
        None
    }
    fn poll_transmit(&mut self, _: SimTime) -> Option<(LineId, RoutingMessage)> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_are_shortest_in_hops_with_ties_to_the_lowest_line() {
        // A square 0-1-2-3-0 plus nothing else: from 0, node 2 is 2 hops either way.
        let g = Graph {
            nodes: 4,
            lines: vec![
                (LineId(0), NodeId(0), NodeId(1)),
                (LineId(1), NodeId(1), NodeId(2)),
                (LineId(2), NodeId(2), NodeId(3)),
                (LineId(3), NodeId(3), NodeId(0)),
            ],
        };
        let r = ShortestHop::new(NodeId(0), &g, Units(4));
        assert_eq!(r.next_hop(NodeId(2)).unwrap().line, LineId(0));
        assert_eq!(r.next_hop(NodeId(3)).unwrap().line, LineId(3));
        assert_eq!(r.estimate(NodeId(2)), Some(Units(8)));
        assert_eq!(r.next_hop(NodeId(0)), None);
        assert_eq!(r.next_hop(NodeId(9)), None);
    }

    /// The search this module did with its own queue before it used `nmc_sim::graph`: the
    /// oracle the shared search must agree with, first hop and hop count, on any graph.
    fn own_bfs(node: NodeId, graph: &Graph) -> Vec<Option<(Hop, u32)>> {
        let n = graph.nodes as usize;
        let mut routes: Vec<Option<(Hop, u32)>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut queue = std::collections::VecDeque::new();
        if (node.0 as usize) < n {
            seen[node.0 as usize] = true;
            queue.push_back((node, None::<Hop>, 0u32));
        }
        while let Some((at, first, hops)) = queue.pop_front() {
            for (line, next) in graph.lines_at(at) {
                let i = next.0 as usize;
                if i >= n || seen[i] {
                    continue;
                }
                seen[i] = true;
                let first = first.unwrap_or(Hop {
                    line,
                    neighbour: next,
                });
                routes[i] = Some((first, hops + 1));
                queue.push_back((next, Some(first), hops + 1));
            }
        }
        routes
    }

    proptest::proptest! {
        #[test]
        fn routes_equal_the_queue_search(
            nodes in 1u32..14,
            pairs in proptest::collection::vec((0u32..16, 0u32..16), 0..40),
        ) {
            let g = Graph {
                nodes,
                lines: pairs
                    .iter()
                    .enumerate()
                    .filter(|(_, (a, b))| a != b)
                    .map(|(k, &(a, b))| (LineId(k as u32), NodeId(a), NodeId(b)))
                    .collect(),
            };
            for from in 0..nodes + 1 {
                let r = ShortestHop::new(NodeId(from), &g, Units(1));
                proptest::prop_assert_eq!(&r.routes, &own_bfs(NodeId(from), &g));
            }
        }
    }

    #[test]
    fn static_routes_do_not_adapt_to_a_line_going_down() {
        let g = Graph::chain(3);
        let mut r = ShortestHop::new(NodeId(0), &g, Units(4));
        r.handle_line_down(SimTime::ZERO, LineId(0));
        r.handle_line_down(SimTime::ZERO, LineId(77));
        assert_eq!(r.next_hop(NodeId(2)), None);
        r.handle_line_up(SimTime::ZERO, LineId(0));
        r.handle_line_up(SimTime::ZERO, LineId(77));
        assert_eq!(r.next_hop(NodeId(2)).unwrap().neighbour, NodeId(1));
        assert_eq!(r.poll_at(), None);
    }
}
