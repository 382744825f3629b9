//! The golden chain on a bare `BinaryHeap` event loop: the floor nmc's engine is measured
//! against (`bench/compare.sh`). No scenario, no records, no trace, no per-component random
//! streams: the least an event loop can do for the same work.
//!
//! Same scenario as scenarios/golden-chain.toml: 5 nodes in a row, 50 kbit/s lines, 0.1 ms
//! propagation, one 1008-bit packet every 20.16 ms from node 0 to node 4. Events: a packet
//! offered at node 0, a transmission ending, a packet arriving at the next node. Each line
//! direction is a FIFO queue with one transmitter. Integer nanoseconds; same-time events in
//! the order scheduled. Checks its own result (mean delay 81.040 ms) and prints one JSON object.
//!
//! Build and run (no Cargo needed): rustc -O bench/bare_heap.rs -o target/bare_heap &&
//! target/bare_heap 600

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;

const HOPS: usize = 4;
const BITS: u64 = 1008;
const CAPACITY_BPS: u64 = 50_000;
const PROPAGATION_NS: u64 = 100_000;
const INTERVAL_NS: u64 = 20_160_000;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Offer,
    TxDone,
    Arrive,
}

/// (time, sequence, kind, node, packet's birth time)
type Event = Reverse<(u64, u64, Kind, usize, u64)>;

fn main() {
    let minutes: u64 = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("simulated minutes, an integer"))
        .unwrap_or(600);
    let end = minutes * 60 * 1_000_000_000;
    let tx_ns = BITS * 1_000_000_000 / CAPACITY_BPS;
    let t0 = Instant::now();

    let mut heap: BinaryHeap<Event> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut push = |heap: &mut BinaryHeap<Event>, t: u64, k: Kind, node: usize, born: u64| {
        seq += 1;
        heap.push(Reverse((t, seq, k, node, born)));
    };
    // Line `i` goes from node i to node i+1: its queue of packets (birth times), busy or not.
    let mut queues: Vec<VecDeque<u64>> = vec![VecDeque::new(); HOPS];
    let mut busy = [false; HOPS];
    let (mut events, mut packet_hops, mut delivered, mut delay_sum) = (0u64, 0u64, 0u64, 0u64);
    push(&mut heap, 0, Kind::Offer, 0, 0);

    while let Some(Reverse((now, _, kind, node, born))) = heap.pop() {
        if now > end {
            break;
        }
        events += 1;
        match kind {
            Kind::Offer => {
                push(&mut heap, now + INTERVAL_NS, Kind::Offer, 0, now + INTERVAL_NS);
                queues[0].push_back(born);
                if !busy[0] {
                    busy[0] = true;
                    push(&mut heap, now + tx_ns, Kind::TxDone, 0, 0);
                }
            }
            Kind::TxDone => {
                let b = queues[node].pop_front().expect("a packet was being sent");
                packet_hops += 1;
                push(&mut heap, now + PROPAGATION_NS, Kind::Arrive, node + 1, b);
                if queues[node].is_empty() {
                    busy[node] = false;
                } else {
                    push(&mut heap, now + tx_ns, Kind::TxDone, node, 0);
                }
            }
            Kind::Arrive if node == HOPS => {
                delivered += 1;
                delay_sum += now - born;
            }
            Kind::Arrive => {
                queues[node].push_back(born);
                if !busy[node] {
                    busy[node] = true;
                    push(&mut heap, now + tx_ns, Kind::TxDone, node, 0);
                }
            }
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    let mean_ms = delay_sum as f64 / delivered.max(1) as f64 / 1e6;
    assert!((mean_ms - 81.04).abs() < 1e-6, "mean delay {mean_ms} ms, expected 81.040");
    println!(
        "{{\"engine\": \"bare BinaryHeap\", \"minutes\": {minutes}, \"events\": {events}, \"packet_hops\": {packet_hops}, \"delivered\": {delivered}, \"mean_delay_ms\": {mean_ms:.3}, \"wall_s\": {wall:.6}, \"events_per_s\": {:.0}, \"packet_hops_per_s\": {:.0}}}",
        events as f64 / wall,
        packet_hops as f64 / wall
    );
}
