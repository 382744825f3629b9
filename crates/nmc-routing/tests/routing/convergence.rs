//! After the lines stop changing, every variant's routes settle on shortest paths.
//!
//! A random connected subnet of up to 7 IMPs goes through a random history (lines down and up,
//! queues growing and draining, routing messages in any order, time passing), then stands
//! still: its lines keep their last state and queue lengths, and every IMP sends a routing
//! message on every up line once per 640 ms round, in an order that changes each round. Within
//! a bounded number of rounds each IMP's estimate to each destination must equal the
//! shortest-path distance with the final costs (4 + 1 per queued packet per hop, K&O §III) and
//! its next hop must lie on such a path; IMPs cut off from a destination must have no route.
//! It must then stay so.

use nmc_routing::{
    DistanceVector, LineConfig, LineId, LoopPrevention, NodeId, Router, RoutingParams, Units,
};
use nmc_sim::{SimDuration, SimTime};
use proptest::prelude::*;

const ROUND: SimDuration = SimDuration::from_millis(640);

#[derive(Clone, Debug)]
enum Change {
    Down(usize),
    Up(usize),
    Queue(usize, bool, u32),
    Message(usize, bool),
    Wait(u64),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        1 => any::<usize>().prop_map(Change::Down),
        1 => any::<usize>().prop_map(Change::Up),
        1 => (any::<usize>(), any::<bool>(), 0u32..12).prop_map(|(l, s, q)| Change::Queue(l, s, q)),
        4 => (any::<usize>(), any::<bool>()).prop_map(|(l, s)| Change::Message(l, s)),
        1 => (0u64..1500).prop_map(Change::Wait),
    ]
}

/// `(nodes, lines)`: a random spanning tree plus a few extra lines, no duplicates.
fn network() -> impl Strategy<Value = (u32, Vec<(u32, u32)>)> {
    (2u32..=7)
        .prop_flat_map(|n| {
            let tree = (1..n)
                .map(|i| (0..i).prop_map(move |p| (p, i)))
                .collect::<Vec<_>>();
            let extra = proptest::collection::vec((0..n, 0..n), 0..5);
            (Just(n), tree, extra)
        })
        .prop_map(|(n, tree, extra)| {
            let mut lines: Vec<(u32, u32)> = tree;
            for (a, b) in extra {
                let e = (a.min(b), a.max(b));
                if a != b && !lines.contains(&e) {
                    lines.push(e);
                }
            }
            (n, lines)
        })
}

struct Net {
    routers: Vec<DistanceVector>,
    lines: Vec<(u32, u32)>,
    up: Vec<bool>,
    /// Queue on line k at its `a` end and its `b` end.
    queue: Vec<[u32; 2]>,
    params: RoutingParams,
    now: SimTime,
}

impl Net {
    fn new(n: u32, lines: Vec<(u32, u32)>, params: RoutingParams) -> Net {
        let mut routers: Vec<DistanceVector> = (0..n)
            .map(|i| DistanceVector::new(NodeId(i), n, params))
            .collect();
        for (k, &(a, b)) in lines.iter().enumerate() {
            routers[a as usize].add_line(LineId(k as u32), LineConfig::to(NodeId(b)));
            routers[b as usize].add_line(LineId(k as u32), LineConfig::to(NodeId(a)));
        }
        let m = lines.len();
        Net {
            routers,
            lines,
            up: vec![true; m],
            queue: vec![[0, 0]; m],
            params,
            now: SimTime::ZERO,
        }
    }

    fn ends(&self, k: usize) -> [usize; 2] {
        [self.lines[k].0 as usize, self.lines[k].1 as usize]
    }

    fn send(&mut self, k: usize, from_a: bool) {
        let [a, b] = self.ends(k);
        let (from, to) = if from_a { (a, b) } else { (b, a) };
        let line = LineId(k as u32);
        if let Some(msg) = self.routers[from].routing_message(self.now, line) {
            self.routers[to].handle_routing_message(self.now, line, &msg);
        }
    }

    fn apply(&mut self, c: &Change) {
        let m = self.lines.len();
        match *c {
            Change::Down(k) | Change::Up(k) => {
                let k = k % m;
                let up = matches!(c, Change::Up(_));
                self.up[k] = up;
                for e in self.ends(k) {
                    let r = &mut self.routers[e];
                    if up {
                        r.handle_line_up(self.now, LineId(k as u32));
                    } else {
                        r.handle_line_down(self.now, LineId(k as u32));
                    }
                }
            }
            Change::Queue(k, side_a, q) => {
                let k = k % m;
                let e = self.ends(k)[usize::from(!side_a)];
                self.queue[k][usize::from(!side_a)] = q;
                self.routers[e].set_queue_len(LineId(k as u32), q);
            }
            Change::Message(k, from_a) => self.send(k % m, from_a),
            Change::Wait(ms) => self.now += SimDuration::from_millis(ms),
        }
    }

    /// One round: every IMP sends on every line, in an order drawn from `state`.
    fn round(&mut self, state: &mut u64) {
        self.now += ROUND;
        let mut sends: Vec<(usize, bool)> = (0..self.lines.len())
            .flat_map(|k| [(k, true), (k, false)])
            .collect();
        // Fisher–Yates with a 64-bit LCG: the order is part of the test case.
        for i in (1..sends.len()).rev() {
            *state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let j = (*state >> 33) as usize % (i + 1);
            sends.swap(i, j);
        }
        for (k, from_a) in sends {
            self.send(k, from_a);
        }
    }

    /// Shortest distances to `dst` over up lines, with the cost of leaving `u` on line k.
    fn distances(&self, dst: usize) -> Vec<Option<u32>> {
        let n = self.routers.len();
        let mut dist: Vec<Option<u32>> = vec![None; n];
        dist[dst] = Some(0);
        // Bellman–Ford (n ≤ 7).
        for _ in 0..n {
            for k in 0..self.lines.len() {
                if !self.up[k] {
                    continue;
                }
                let [a, b] = self.ends(k);
                for (u, v, side) in [(a, b, 0), (b, a, 1)] {
                    if let Some(dv) = dist[v] {
                        let c = dv + self.params.hop_cost(self.queue[k][side]).0;
                        if dist[u].is_none_or(|du| c < du) {
                            dist[u] = Some(c);
                        }
                    }
                }
            }
        }
        dist
    }

    /// Why the tables are not yet shortest paths (`None`: they are).
    fn not_converged(&self) -> Option<String> {
        let n = self.routers.len();
        for dst in 0..n {
            let dist = self.distances(dst);
            for u in 0..n {
                if u == dst {
                    continue;
                }
                let r = &self.routers[u];
                let d = NodeId(dst as u32);
                match dist[u] {
                    None => {
                        if r.next_hop(d).is_some() {
                            return Some(format!("{u}→{dst}: cut off, but routes"));
                        }
                    }
                    Some(want) => {
                        if r.estimate(d) != Some(Units(want)) {
                            return Some(format!("{u}→{dst}: {:?}, want {want}", r.estimate(d)));
                        }
                        let Some(h) = r.next_hop(d) else {
                            return Some(format!("{u}→{dst}: no next hop"));
                        };
                        let k = h.line.0 as usize;
                        let side = usize::from(self.lines[k].0 as usize != u);
                        let via = dist[h.neighbour.0 as usize]
                            .map(|dv| dv + self.params.hop_cost(self.queue[k][side]).0);
                        if !self.up[k] || via != Some(want) {
                            return Some(format!(
                                "{u}→{dst}: next hop {h:?} not on a shortest path"
                            ));
                        }
                    }
                }
            }
        }
        None
    }
}

fn variant() -> impl Strategy<Value = LoopPrevention> {
    prop_oneof![
        Just(LoopPrevention::None),
        Just(LoopPrevention::HoldDown1974),
        Just(LoopPrevention::HoldDownWindow),
        Just(LoopPrevention::FeasibleSuccessor),
    ]
}

/// Small enough that a count to infinity ends quickly; above any distance in these nets
/// (7 IMPs × 12 units).
const INFINITY: Units = Units(100);

/// The bound on rounds: a count to infinity rises by at least 4 units a round (INFINITY / 4),
/// a feasible successor may wait one sequence-number interval (16 rounds) and a hold-down
/// 2 s (4 rounds), plus the diameter.
const MAX_ROUNDS: usize = 25 + 16 + 4 + 7 + 8;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        failure_persistence: crate::regressions(),
        ..ProptestConfig::default()
    })]

    #[test]
    fn routes_converge_to_shortest_paths_once_lines_stop_changing(
        (n, lines) in network(),
        history in proptest::collection::vec(change(), 0..60),
        v in variant(),
        order in any::<u64>(),
    ) {
        let params = RoutingParams { infinity: INFINITY, ..RoutingParams::with(v) };
        let mut net = Net::new(n, lines, params);
        for c in &history {
            net.apply(c);
        }
        let mut state = order;
        let mut rounds = 0;
        while let Some(why) = net.not_converged() {
            prop_assert!(rounds < MAX_ROUNDS, "{} not converged after {rounds} rounds: {why}", v.name());
            net.round(&mut state);
            rounds += 1;
        }
        for _ in 0..20 {
            net.round(&mut state);
            let why = net.not_converged();
            prop_assert!(why.is_none(), "{} left shortest paths: {:?}", v.name(), why);
        }
    }

    /// Any inputs, on any line numbers, known or not: no panic, and next hops only over up lines.
    #[test]
    fn no_input_panics(
        v in variant(),
        ops in proptest::collection::vec((0u8..6, 0u32..6, 0u32..20, 0u32..9), 0..80),
    ) {
        let mut r = DistanceVector::new(NodeId(0), 4, RoutingParams::with(v));
        r.add_line(LineId(1), LineConfig::to(NodeId(1)))
            .add_line(LineId(2), LineConfig::to(NodeId(2)).down());
        let mut now = SimTime::ZERO;
        for (op, line, x, dst) in ops {
            now += SimDuration::from_millis(x as u64 * 37);
            let line = LineId(line);
            match op {
                0 => r.handle_line_down(now, line),
                1 => r.handle_line_up(now, line),
                2 => r.set_queue_len(line, x),
                3 => {
                    let msg = nmc_routing::RoutingMessage {
                        from: NodeId(dst),
                        entries: (0..dst).map(|k| nmc_routing::Entry {
                            estimate: Units(x * k),
                            seqno: x,
                        }).collect(),
                        link_state: Vec::new(),
                        serial: 0,
                    };
                    r.handle_routing_message(now, line, &msg);
                }
                4 => { while r.poll_transmit(now).is_some() {} }
                _ => { let _ = r.routing_message(now, line); }
            }
            for d in 0..9 {
                if let Some(h) = r.next_hop(NodeId(d)) {
                    prop_assert!(r.lines().any(|(l, _, up)| l == h.line && up));
                }
            }
        }
    }
}
