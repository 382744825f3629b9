//! Nodes, channels and static shortest-hop routes.
//!
//! Each full-duplex line becomes two [`Channel`]s, numbered in the order
//! the lines are listed (line `k` gives channels `2k` (a→b) and `2k+1` (b→a)). Routes are
//! shortest in hops, found by breadth-first search from the destination over reversed
//! channels; ties go to the lowest-numbered channel, so routes depend only on the scenario
//! text.
//!
//! Routing state is O(N + E) when the network is built: the channels into each node, in one
//! flat array ([`Adjacency`]). A destination's routes (one channel per node, a BFS tree) are
//! computed the first time a packet or a check asks for them, and kept: memory grows with the
//! number of destinations traffic actually uses, never with N² for its own sake.

use crate::line::Channel;
use crate::spec::{LineEntry, NetworkSpec, TopologyKind};
use nmc_sim::graph::breadth_first;
use std::cell::OnceCell;

/// The most nodes a network may have (ids are `u32`; this bound keeps a mistyped size from
/// asking for more memory than any machine has).
pub const MAX_NODES: u32 = 1 << 24;

/// State per node of the store-and-forward model, lines apart: 64 B, a choice rounded up from
/// the 25 B measured (peak RSS of 2,000,000 nodes joined by one line: 58 MB).
pub const STATE_BYTES_PER_NODE: u64 = 64;

/// State per line (two channels, each with its queue, and their places in the routing
/// arrays): 512 B, a choice rounded up from the 465 B measured on a 2,000,000-node chain
/// (docs/src/performance.md, "How far one process goes": 490 B a node with its line).
pub const STATE_BYTES_PER_LINE: u64 = 512;

/// Why a network could not be built.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    /// `network.nodes` is below 2: the number given.
    #[error("network.nodes: a network needs at least 2 nodes, got {0}")]
    TooFewNodes(u32),
    /// `network.nodes` is above [`MAX_NODES`]: the number given.
    #[error("network.nodes: at most {MAX_NODES} nodes, got {0}")]
    TooManyNodes(u32),
    /// The network's state would pass this machine's budget
    /// ([`nmc_sim::limits::StateBudget`]; issue 57 §3: 2^24 nodes passed [`MAX_NODES`] and
    /// asked for 5.9 GB in one allocation).
    #[error(
        "network.nodes: {nodes} nodes and {lines} lines need about {:.1} GB of model state \
         ({STATE_BYTES_PER_NODE} B a node, {STATE_BYTES_PER_LINE} B a line); at most {:.1} GB \
         here ({}): fewer nodes or lines",
        *.bytes as f64 / 1e9,
        budget.bytes as f64 / 1e9,
        budget.why
    )]
    TooLarge {
        /// `network.nodes`.
        nodes: u32,
        /// The lines: a chain's `nodes - 1`, or the `[[network.lines]]` entries.
        lines: u64,
        /// The estimate, bytes.
        bytes: u64,
        /// What this machine allows.
        budget: nmc_sim::limits::StateBudget,
    },
    /// A line names a node the network does not have.
    #[error("network.lines[{index}]: node {node} does not exist (nodes are 0..{max})")]
    NoSuchNode {
        /// The line's index in `network.lines`.
        index: usize,
        /// The node it names.
        node: u32,
        /// The highest node number there is (`nodes - 1`).
        max: u32,
    },
    /// A line joins a node to itself.
    #[error("network.lines[{index}]: a line joins two different nodes, not {node} to itself")]
    SelfLoop {
        /// The line's index in `network.lines`.
        index: usize,
        /// The node at both ends.
        node: u32,
    },
    /// `topology = "lines"` with no `[[network.lines]]` entry.
    #[error("network.lines: topology = \"lines\" needs at least one [[network.lines]] entry")]
    NoLines,
    /// A line's queue limit is 0: the line's index.
    #[error("network.line.queue_limit must be at least 1 (for line {0})")]
    ZeroQueue(usize),
}

/// Channels plus the routes, computed per destination when first needed.
pub struct Topology {
    /// The number of nodes, numbered `0..nodes`.
    pub nodes: u32,
    /// The channels: line `k` gives channel `2k` (a→b) and `2k+1` (b→a).
    pub channels: Vec<Channel>,
    into: Adjacency,
    /// Per destination: the channel each node takes towards it (`NO_ROUTE` if none), once asked.
    routes: Vec<OnceCell<Box<[u32]>>>,
}

/// The route entry of a node with no path to the destination, and of the destination itself.
pub const NO_ROUTE: u32 = u32::MAX;

/// The directed edges into each node, in one flat array (compressed sparse rows): the edges
/// into node `v` are `edges[start[v]..start[v + 1]]`, in increasing edge index.
pub struct Adjacency {
    start: Vec<u32>,
    edges: Vec<u32>,
}

impl Adjacency {
    /// `ends[i]` = (from, to) of directed edge `i`; nodes are `0..n`.
    pub fn into_nodes(n: usize, ends: impl Iterator<Item = (u32, u32)> + Clone) -> Adjacency {
        let mut start = vec![0u32; n + 1];
        for (_, to) in ends.clone() {
            start[to as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut edges = vec![0u32; start[n] as usize];
        for (i, (_, to)) in ends.enumerate() {
            edges[fill[to as usize] as usize] = i as u32;
            fill[to as usize] += 1;
        }
        Adjacency { start, edges }
    }

    /// The edges into `v`, lowest index first.
    pub fn of(&self, v: usize) -> &[u32] {
        &self.edges[self.start[v] as usize..self.start[v + 1] as usize]
    }

    /// Shortest-hop routes towards `dst`: for every node the edge it takes (`NO_ROUTE` for
    /// `dst` itself and for nodes with no path). `from(e)` is edge `e`'s tail. The workspace's
    /// one breadth-first search ([`nmc_sim::graph::breadth_first`]) over reversed edges; the
    /// first edge (lowest index) to reach a node wins.
    pub fn routes_to(&self, dst: usize, from: impl Fn(u32) -> u32) -> Box<[u32]> {
        let n = self.start.len() - 1;
        let mut next = vec![NO_ROUTE; n].into_boxed_slice();
        breadth_first(
            n,
            dst,
            |v| self.of(v).iter().map(|&e| (e, from(e) as usize)),
            |u, e, _| next[u] = e,
        );
        next
    }
}

impl Topology {
    /// Builds the nodes and channels from the spec (a chain's lines are `k`–`k+1`); checks
    /// node numbers, self-loops and queue limits. Routes are computed later, when first asked.
    pub fn build(spec: &NetworkSpec) -> Result<Topology, TopologyError> {
        let n = spec.nodes;
        if n < 2 {
            return Err(TopologyError::TooFewNodes(n));
        }
        if n > MAX_NODES {
            return Err(TopologyError::TooManyNodes(n));
        }
        // Issue 57 §3: the memory the network will need, from its counts, before any of it is
        // allocated.
        let lines = match spec.topology {
            TopologyKind::Chain => u64::from(n - 1),
            TopologyKind::Lines => spec.lines.len() as u64,
        };
        let bytes = u64::from(n)
            .saturating_mul(STATE_BYTES_PER_NODE)
            .saturating_add(lines.saturating_mul(STATE_BYTES_PER_LINE));
        let budget = nmc_sim::limits::StateBudget::here();
        if bytes > budget.bytes {
            return Err(TopologyError::TooLarge {
                nodes: n,
                lines,
                bytes,
                budget: budget.clone(),
            });
        }
        let chain;
        let entries: &[LineEntry] = match spec.topology {
            TopologyKind::Chain => {
                chain = (0..n - 1)
                    .map(|i| LineEntry {
                        a: i,
                        b: i + 1,
                        capacity: None,
                        propagation: None,
                        queue_limit: None,
                    })
                    .collect::<Vec<_>>();
                &chain
            }
            TopologyKind::Lines if spec.lines.is_empty() => return Err(TopologyError::NoLines),
            TopologyKind::Lines => &spec.lines,
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
        let into = Adjacency::into_nodes(n as usize, channels.iter().map(|c| (c.from, c.to)));
        Ok(Topology {
            nodes: n,
            channels,
            into,
            routes: (0..n).map(|_| OnceCell::new()).collect(),
        })
    }

    /// The channel to take from `node` towards `dst`, if `dst` is reachable.
    pub fn next_channel(&self, node: u32, dst: u32) -> Option<u32> {
        let c = self.routes_to(dst)[node as usize];
        (c != NO_ROUTE).then_some(c)
    }

    /// Every node's channel towards `dst` (`NO_ROUTE`: none), computed on first use.
    pub fn routes_to(&self, dst: u32) -> &[u32] {
        self.routes[dst as usize].get_or_init(|| {
            self.into
                .routes_to(dst as usize, |c| self.channels[c as usize].from)
        })
    }

    /// Destinations whose routes have been computed so far.
    pub fn destinations_routed(&self) -> usize {
        self.routes.iter().filter(|r| r.get().is_some()).count()
    }

    /// Hops from `src` to `dst` along the routes.
    pub fn hops(&self, src: u32, dst: u32) -> Option<u32> {
        let mut node = src;
        let mut hops = 0;
        while node != dst {
            node = self.channels[self.next_channel(node, dst)? as usize].to;
            hops += 1;
        }
        Some(hops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nmc_sim::{BitRate, SimDuration};
    use std::collections::VecDeque;

    /// The all-pairs table the model used before routes were computed per destination: BFS
    /// from every destination over `Vec<Vec<_>>` in-lists, N × N entries.
    fn all_pairs(n: usize, channels: &[Channel]) -> Vec<u32> {
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

    fn spec(nodes: u32, lines: Vec<(u32, u32)>) -> NetworkSpec {
        NetworkSpec {
            topology: if lines.is_empty() {
                TopologyKind::Chain
            } else {
                TopologyKind::Lines
            },
            nodes,
            line: crate::spec::LineSpec {
                capacity: BitRate::from_kbps(50),
                propagation: SimDuration::from_micros(100),
                queue_limit: 8,
            },
            lines: lines
                .into_iter()
                .map(|(a, b)| LineEntry {
                    a,
                    b,
                    capacity: None,
                    propagation: None,
                    queue_limit: None,
                })
                .collect(),
        }
    }

    /// Small pseudo-random graphs (parallel lines, islands, rings with chords): the routes
    /// per destination equal the old all-pairs table entry for entry.
    #[test]
    fn routes_equal_the_all_pairs_table() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut rnd = |m: u32| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m as u64) as u32
        };
        for case in 0..200 {
            let n = 2 + rnd(30);
            let m = 1 + rnd(3 * n);
            let lines: Vec<(u32, u32)> = (0..m)
                .map(|_| {
                    let a = rnd(n);
                    (a, (a + 1 + rnd(n - 1)) % n)
                })
                .collect();
            let t = Topology::build(&spec(n, lines)).unwrap();
            let old = all_pairs(n as usize, &t.channels);
            for dst in 0..n {
                for node in 0..n {
                    let want = old[(node * n + dst) as usize];
                    let got = t.next_channel(node, dst).unwrap_or(NO_ROUTE);
                    assert_eq!(got, want, "case {case}: {node} -> {dst}");
                }
            }
        }
    }

    /// A 100,000-node chain builds without an N × N table and routes end to end.
    #[test]
    fn a_100k_chain_builds_and_routes() {
        let t = Topology::build(&spec(100_000, vec![])).unwrap();
        assert_eq!(t.channels.len(), 2 * 99_999);
        assert_eq!(t.destinations_routed(), 0);
        assert_eq!(t.hops(0, 99_999), Some(99_999));
        assert_eq!(t.hops(99_999, 0), Some(99_999));
        assert_eq!(t.hops(12_345, 54_321), Some(54_321 - 12_345));
        assert_eq!(t.next_channel(500, 99_999), Some(2 * 500));
        assert_eq!(t.next_channel(500, 0), Some(2 * 499 + 1));
        assert_eq!(t.destinations_routed(), 3);
    }

    #[test]
    fn sizes_out_of_range_are_refused() {
        let e = Topology::build(&spec(MAX_NODES + 1, vec![])).err().unwrap();
        assert!(e.to_string().contains("at most"), "{e}");
        // Issue 57 §3: within the node limit, a chain of 2^24 nodes is refused by its memory
        // (it asked for 5.9 GB in one allocation), and nothing was allocated to say so.
        let e = Topology::build(&spec(MAX_NODES, vec![])).err().unwrap();
        assert!(
            matches!(e, TopologyError::TooLarge { lines, .. } if lines == u64::from(MAX_NODES - 1)),
            "{e}"
        );
        assert!(e.to_string().contains("GB of model state"), "{e}");
        // A node without lines costs little: a million of them pass.
        assert!(Topology::build(&spec(1 << 20, vec![(0, 1)])).is_ok());
    }
}
