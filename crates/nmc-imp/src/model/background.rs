//! Other hosts' traffic: the load the live network carried while the NMC measured it.
//!
//! K&O measured a live network (§III: "the interference due to other store-and-forward packets
//! which can significantly decrease the HOST-to-HOST throughput"). Its load is modelled here as
//! one *background host* on each IMP that both sends and sinks messages:
//!
//! * message arrivals at each background host are Poisson, or come in bursts of a geometric
//!   number of messages to one destination (`burst_mean` > 1: a file moving, a screenful);
//! * IMP `i`'s background host originates a share `o_i / Σ o` of the messages and sends each
//!   to IMP `j ≠ i` with probability `d_j / Σ_{k≠i} d_k`, from origination and destination
//!   weights (equal weights: uniform); with a `hop_decay` δ below 1, with probability
//!   ∝ `B_j d_j δ^h(i,j)`, the factors `B_j` balancing the pairs so that each IMP still
//!   receives its share `d_j / Σ d` (`run::Pairing`, issue 54);
//! * a message is single-packet with probability `single_packet_fraction`, its length
//!   exponential with mean `single_mean` (at least 1 bit, at most one packet); otherwise its
//!   length is one packet plus an exponential part of mean `multi_mean − max_packet`, capped at
//!   the largest message;
//! * a background host offers its messages one at a time through its own 100 kbit/s interface,
//!   through the same message numbers, PLT entries, allocations, buffers, lines and IMP
//!   processors as every other message; arrivals wait at the host (at most `host_queue`, the
//!   rest are refused and counted).
//!
//! Its level and mix are a scenario's to state, with their source; `scenarios/ko-v2-map.toml`
//! takes them from BBN's traffic statistics and the NMC's 1973–74 measurements (see there).
//! Background messages are counted ([`BackgroundTally`]), not recorded one by one, so memory
//! does not grow with simulated time.

use super::{Ev, Subnet};
use crate::observe::MessageRecord;
use nmc_sim::{EventQueue, SimDuration, SimTime, Stream};
use std::collections::VecDeque;

/// The message-length mix of background traffic.
///
/// A background host draws from its stream, per burst: the burst's size ([`LengthMix::burst`]),
/// its destination (one `unit`), each message's length ([`LengthMix::draw`]), then the gap to
/// the next burst (`exponential`); `nmc oracle emulate-map` draws in the same order.
#[derive(Clone, Copy, Debug)]
pub struct LengthMix {
    /// Fraction of messages that fit one packet.
    pub single_packet_fraction: f64,
    /// Mean data bits of a single-packet message (before capping at one packet).
    pub single_mean: f64,
    /// Mean data bits of a multipacket message (before capping at the largest message).
    pub multi_mean: f64,
    /// Mean messages per burst (1: Poisson arrivals of single messages).
    pub burst_mean: f64,
    /// The largest packet, data bits.
    pub max_packet: u64,
    /// The largest message, data bits.
    pub max_message: u64,
}

impl LengthMix {
    /// One message length in data bits.
    pub fn draw(&self, rng: &mut Stream) -> u64 {
        let p = self.max_packet;
        if rng.unit() <= self.single_packet_fraction {
            (rng.exponential(self.single_mean).ceil() as u64).clamp(1, p)
        } else {
            let extra = rng
                .exponential((self.multi_mean - p as f64).max(1.0))
                .ceil() as u64;
            (p + extra.max(1)).min(self.max_message)
        }
    }

    /// Messages in one burst: 1 + a geometric number with mean `burst_mean − 1`.
    pub fn burst(&self, rng: &mut Stream) -> u32 {
        if self.burst_mean <= 1.0 {
            return 1;
        }
        // Geometric on {0, 1, ...} with mean m: P(k) = (1 − q) q^k, q = m / (1 + m).
        let m = self.burst_mean - 1.0;
        let q = m / (1.0 + m);
        let k = (rng.unit().ln() / q.ln()).floor();
        1 + k.min(10_000.0) as u32
    }
}

/// A background host's source: its arrival process, destinations, and messages waiting.
#[derive(Clone, Debug)]
pub(crate) struct Background {
    /// The random stream of its arrivals, destinations, lengths and bursts. Boxed: a ChaCha
    /// stream is most of a host's size, and is drawn from only when a burst comes.
    pub(crate) rng: Box<Stream>,
    /// Mean time between bursts at this host.
    pub(crate) mean_interval_ns: f64,
    /// Destination hosts with cumulative probabilities (the last is 1).
    pub(crate) dests: Vec<(u32, f64)>,
    /// The lengths of its messages and the size of its bursts.
    pub(crate) mix: LengthMix,
    /// Messages arrived and not yet offered to the IMP: (destination host, data bits).
    pub(crate) backlog: VecDeque<(u32, u64)>,
    /// Longest backlog; arrivals beyond it are refused.
    pub(crate) host_queue: u32,
    /// No more arrivals (set when a run drains).
    pub(crate) stopped: bool,
}

impl Background {
    fn destination(&mut self) -> u32 {
        let u = self.rng.unit();
        self.dests
            .iter()
            .find(|(_, c)| u <= *c)
            .or(self.dests.last())
            .map(|(h, _)| *h)
            .expect("a background host has at least one destination")
    }
}

impl Subnet {
    /// The first arrival at each background host (called by `initial_events`).
    pub(super) fn schedule_background(&mut self, q: &mut EventQueue<Ev>, start: SimDuration) {
        for h in 0..self.hosts.len() as u32 {
            if let Some(b) = self.hosts[h as usize].background.as_mut() {
                let gap = b.rng.exponential(b.mean_interval_ns);
                q.schedule(
                    SimTime::ZERO + start + SimDuration::from_nanos(gap as u64),
                    Ev::Arrival { host: h },
                );
            }
        }
    }

    /// A burst of background messages arrives at host `h`.
    pub(super) fn background_arrival(&mut self, now: SimTime, h: u32, q: &mut EventQueue<Ev>) {
        let b = self.hosts[h as usize]
            .background
            .as_mut()
            .expect("arrivals only at background hosts");
        if b.stopped {
            return;
        }
        let n = b.mix.burst(&mut b.rng);
        let dst = b.destination();
        for _ in 0..n {
            let bits = b.mix.draw(&mut b.rng);
            if b.backlog.len() < b.host_queue as usize {
                b.backlog.push_back((dst, bits));
            } else {
                self.obs.tally.background_refused += 1;
            }
        }
        let gap = b.rng.exponential(b.mean_interval_ns);
        q.schedule(
            now + SimDuration::from_nanos(gap as u64),
            Ev::Arrival { host: h },
        );
        self.host_try(now, h, q);
    }

    /// The last packet of message `msg` reached host `host`.
    pub(super) fn delivered(&mut self, now: SimTime, host: u32, msg: crate::packet::MsgId) {
        self.obs.tally.delivered += 1;
        if let Some(tag) = self.obs.outside_tags.remove(&msg) {
            self.obs.outside_delivered.push_back((tag, now));
        }
        if let Some(m) = self.obs.messages.get_mut(&msg) {
            m.delivered = true;
        }
        if self.hosts[host as usize].background.is_some() {
            self.obs.tally.background_delivered += 1;
        } else if self.obs.retain_messages {
            self.obs.delivered_at.insert(msg, now);
        }
    }

    /// A message's RFNM reached its source: recorded, or counted if it is background traffic.
    pub(super) fn answered(&mut self, background: bool, hops: u32, rec: MessageRecord) {
        self.obs.tally.answered += 1;
        if background {
            self.obs.tally.background_answered += 1;
            if let Some(r) = rec.rfnm_ns {
                self.obs.tally.background_rtt_ns += (r - rec.offered_ns) as u128;
                if let Some(a) = rec.first_in_ns {
                    let e = self.obs.tally.background_by_hops.entry(hops).or_default();
                    e.0 += 1;
                    e.1 += (r - a) as u128;
                }
            }
        } else {
            if rec
                .rfnm_ns
                .is_some_and(|t| t >= self.obs.measure_from.as_nanos())
            {
                self.obs.stream_stats.add(&rec);
            }
            if self.obs.retain_messages {
                self.obs.done.push(rec);
            }
        }
    }
}
