//! Nodes, channels and static shortest-hop routes.
//!
//! Each full-duplex line becomes two [`Channel`]s, numbered in the order
//! the lines are listed (line `k` gives channels `2k` (a→b) and `2k+1` (b→a)). Routes are
//! shortest in hops, found by breadth-first search from every destination; ties go to the
//! lowest-numbered channel, so routes depend only on the scenario text.

use crate::line::Channel;
use crate::spec::{LineEntry, NetworkSpec, TopologyKind};
use std::collections::VecDeque;

/// Why a network could not be built.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    #[error("network.nodes: a network needs at least 2 nodes, got {0}")]
    TooFewNodes(u16),
    #[error("network.lines[{index}]: node {node} does not exist (nodes are 0..{max})")]
    NoSuchNode { index: usize, node: u16, max: u16 },
    #[error("network.lines[{index}]: a line joins two different nodes, not {node} to itself")]
    SelfLoop { index: usize, node: u16 },
    #[error("network.lines: topology = \"lines\" needs at least one [[network.lines]] entry")]
    NoLines,
    #[error("network.line.queue_limit must be at least 1 (for line {0})")]
    ZeroQueue(usize),
}

/// Channels plus the next-hop table.
pub struct Topology {
    pub nodes: u16,
    pub channels: Vec<Channel>,
    /// `next[node * nodes + dst]` = channel to take from `node` towards `dst`, or `NO_ROUTE`.
    next: Vec<u32>,
}

pub const NO_ROUTE: u32 = u32::MAX;

impl Topology {
    pub fn build(spec: &NetworkSpec) -> Result<Topology, TopologyError> {
        let n = spec.nodes;
        if n < 2 {
            return Err(TopologyError::TooFewNodes(n));
        }
        let entries: Vec<LineEntry> = match spec.topology {
            TopologyKind::Chain => (0..n - 1)
                .map(|i| LineEntry {
                    a: i,
                    b: i + 1,
                    capacity: None,
                    propagation: None,
                    queue_limit: None,
                })
                .collect(),
            TopologyKind::Lines if spec.lines.is_empty() => return Err(TopologyError::NoLines),
            TopologyKind::Lines => spec.lines.clone(),
        };
        let mut channels = Vec::with_capacity(entries.len() * 2);
        for (index, e) in entries.iter().enumerate() {
            for node in [e.a, e.b] {
                if node >= n {
                    return Err(TopologyError::NoSuchNode {
                        index,
                        node,
                        max: n - 1,
                    });
                }
            }
            if e.a == e.b {
                return Err(TopologyError::SelfLoop { index, node: e.a });
            }
            let capacity = e.capacity.unwrap_or(spec.line.capacity);
            let propagation = e.propagation.unwrap_or(spec.line.propagation);
            let limit = e.queue_limit.unwrap_or(spec.line.queue_limit);
            if limit == 0 {
                return Err(TopologyError::ZeroQueue(index));
            }
            channels.push(Channel::new(e.a, e.b, capacity, propagation, limit));
            channels.push(Channel::new(e.b, e.a, capacity, propagation, limit));
        }
        let next = shortest_hop_routes(n, &channels);
        Ok(Topology {
            nodes: n,
            channels,
            next,
        })
    }

    /// The channel to take from `node` towards `dst`, if `dst` is reachable.
    pub fn next_channel(&self, node: u16, dst: u16) -> Option<u32> {
        let c = self.next[node as usize * self.nodes as usize + dst as usize];
        (c != NO_ROUTE).then_some(c)
    }

    /// Hops from `src` to `dst` along the routes.
    pub fn hops(&self, src: u16, dst: u16) -> Option<u32> {
        let mut node = src;
        let mut hops = 0;
        while node != dst {
            node = self.channels[self.next_channel(node, dst)? as usize].to;
            hops += 1;
        }
        Some(hops)
    }
}

/// BFS from each destination over reversed channels.
fn shortest_hop_routes(n: u16, channels: &[Channel]) -> Vec<u32> {
    let n = n as usize;
    let mut into: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (i, c) in channels.iter().enumerate() {
        into[c.to as usize].push(i as u32);
    }
    let mut next = vec![NO_ROUTE; n * n];
    let mut dist = vec![u32::MAX; n];
    let mut frontier = VecDeque::new();
    for dst in 0..n {
        dist.fill(u32::MAX);
        dist[dst] = 0;
        frontier.push_back(dst);
        while let Some(v) = frontier.pop_front() {
            // Channels are visited in increasing index, so the first to claim a node wins ties.
            for &ci in &into[v] {
                let u = channels[ci as usize].from as usize;
                if dist[u] == u32::MAX {
                    dist[u] = dist[v] + 1;
                    next[u * n + dst] = ci;
                    frontier.push_back(u);
                }
            }
        }
    }
    next
}
