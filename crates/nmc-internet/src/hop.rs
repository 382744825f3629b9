//! Hops with state: queues, other traffic, a shared satellite channel — and the interface a
//! hop whose delay comes from another model (a stepped subnet) plugs into.
//!
//! A [`HopModel`] is offered a datagram at a time and answers when it comes out
//! ([`Offer::At`]), that it was lost ([`Offer::Dropped`]), or that it holds it and will say
//! later ([`Offer::Held`], then [`HopModel::poll_at`], [`HopModel::advance`] and
//! [`HopModel::poll_delivered`]: the shape of a steppable subnet such as an IMP network driven
//! message by message). The event loop in [`crate::model`] offers datagrams in time order, so a
//! model may compute a departure the moment it is offered whenever later arrivals cannot change
//! it (FIFO service).
//!
//! Kinds built from the scenario:
//! - [`Gateway`]: per direction a single FIFO server whose service is `per_packet + per_octet·L`
//!   plus, if the gateway drives a line, the frame's transmission at `rate`; a finite buffer of
//!   `queue` datagrams (the one in service included) — a datagram that finds it full is dropped;
//!   optional other traffic through it ([`CrossSpec`]: Poisson, or on/off bursts), which is the
//!   mechanism offered here for Mills's "netspurts" (delay bursts, and loss on overflow).
//! - [`Satnet`]: a shared broadcast channel with reservation access (PODA/CPODA style): a
//!   datagram waits for its station's next reservation opportunity (once per `frame`), the
//!   reservation crosses the satellite (`hop`), possibly lost in contention and retried, and
//!   once every station has heard it the datagram joins the global queue, shares the channel
//!   (at `rate`) with the other stations' reserved traffic, and crosses the satellite again.
//!   Delay floor: `2·per_packet + 2·hop + transmission`.
//!
//! Randomness comes only from the run's seed through [`nmc_sim::RngStreams`], one stream per
//! hop and purpose ([`stream_id`]), so adding a hop or a draw does not shift the others.

use crate::spec::CrossSpec;
use nmc_sim::rng::Stream;
use nmc_sim::{BitRate, Bits, RngStreams, SimDuration, SimTime};
use std::collections::VecDeque;

/// Which way a datagram crosses a hop: the echo outwards, or the reply back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// The echo, from the measuring host to the echoing host.
    Out,
    /// The reply, from the echoing host back.
    Back,
}

impl Dir {
    fn index(self) -> usize {
        match self {
            Dir::Out => 0,
            Dir::Back => 1,
        }
    }
}

/// What a hop does with an offered datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// It leaves the hop at this time.
    At(SimTime),
    /// It is lost inside the hop.
    Dropped,
    /// The hop holds it and reports its delivery through [`HopModel::poll_delivered`] after
    /// [`HopModel::advance`] (a stepped model).
    Held,
}

/// Counters a hop reports into `summary.json` (`hop.<index>.<key>`).
pub type HopStats = Vec<(&'static str, f64)>;

/// A hop with state. See the module documentation.
pub trait HopModel {
    /// A datagram `id` of `len` octets enters in direction `dir` at `now`.
    fn offer(&mut self, now: SimTime, id: u64, len: u64, dir: Dir) -> Offer;
    /// When a stepped model next needs [`HopModel::advance`]; `None` if it holds nothing.
    fn poll_at(&self) -> Option<SimTime> {
        None
    }
    /// Runs a stepped model up to `until`.
    fn advance(&mut self, _until: SimTime) {}
    /// A held datagram that has come out, and when.
    fn poll_delivered(&mut self) -> Option<(u64, SimTime)> {
        None
    }
    /// The least time a datagram of `len` octets can spend in the hop (nothing else in it).
    fn floor(&self, len: u64) -> SimDuration;
    /// Counters for the summary.
    fn stats(&self) -> HopStats {
        Vec::new()
    }
}

/// The stream number of hop `hop`'s random draws for `purpose` (0..8): hops draw from streams
/// `0x889_0000 + 8·hop + purpose`, far from any other component's.
pub fn stream_id(hop: usize, purpose: u64) -> u64 {
    0x889_0000 + 8 * hop as u64 + purpose
}

/// Limits that keep a run finite whatever the scenario says: the shortest mean gap of other
/// traffic (1 µs) and the longest on/off period mean (one day).
pub const MIN_MEAN_GAP: SimDuration = SimDuration::from_micros(1);
const MAX_PERIOD: SimDuration = SimDuration::from_secs(86_400);

/// Checks other traffic's parameters; the reason in one line.
pub fn check_cross(c: &CrossSpec) -> Result<(), String> {
    let (gap, length) = match c {
        CrossSpec::Poisson { mean_gap, length } => (mean_gap, length),
        CrossSpec::OnOff {
            mean_gap,
            length,
            on,
            off,
        } => {
            for (k, d) in [("on", on), ("off", off)] {
                if d.is_zero() || *d > MAX_PERIOD {
                    return Err(format!("cross.{k} must be above 0 and at most 24h"));
                }
            }
            (mean_gap, length)
        }
    };
    if *gap < MIN_MEAN_GAP {
        return Err("cross.mean_gap must be at least 1us".into());
    }
    if length.get() == 0 || length.get() % 8 != 0 || length.get() > 65535 * 8 {
        return Err("cross.length must be whole octets, 1..=65535 (e.g. \"256B\")".into());
    }
    Ok(())
}

/// Checks a probability parameter.
pub fn check_probability(key: &str, p: f64) -> Result<(), String> {
    if p.is_finite() && (0.0..1.0).contains(&p) {
        Ok(())
    } else {
        Err(format!(
            "{key} must be a probability in 0..1 (1 excluded), got {p}"
        ))
    }
}

/// Other traffic as a sequence of arrival times, drawn lazily from its own stream.
#[derive(Clone, Debug)]
pub struct CrossGen {
    mean_gap_ns: f64,
    /// `(mean on, mean off)` for bursts; `None` for plain Poisson.
    on_off: Option<(f64, f64)>,
    /// Octets of each packet.
    pub length: u64,
    stream: Stream,
    next: SimTime,
    /// End of the current on period (bursts only).
    on_until: SimTime,
}

fn draw(stream: &mut Stream, mean_ns: f64) -> SimDuration {
    // At least 1 ns so time always moves; at most a day so a sum cannot overflow.
    let ns = stream.exponential(mean_ns).clamp(1.0, 8.64e13);
    SimDuration::from_nanos(ns as u64)
}

impl CrossGen {
    /// A checked spec ([`check_cross`]) and its stream.
    pub fn new(spec: &CrossSpec, stream: Stream) -> CrossGen {
        let (mean_gap, length, on_off) = match spec {
            CrossSpec::Poisson { mean_gap, length } => (mean_gap, length, None),
            CrossSpec::OnOff {
                mean_gap,
                length,
                on,
                off,
            } => (
                mean_gap,
                length,
                Some((on.as_nanos() as f64, off.as_nanos() as f64)),
            ),
        };
        let mut g = CrossGen {
            mean_gap_ns: mean_gap.as_nanos() as f64,
            on_off,
            length: length.get() / 8,
            stream,
            next: SimTime::ZERO,
            on_until: SimTime::ZERO,
        };
        g.next = g.after(SimTime::ZERO);
        g
    }

    /// The first arrival after `t`. Bursts start in an off period (a choice: the run begins at
    /// a random point of the other traffic's life only in distribution, not in phase).
    fn after(&mut self, t: SimTime) -> SimTime {
        let gap = draw(&mut self.stream, self.mean_gap_ns);
        match self.on_off {
            None => t + gap,
            Some((on, off)) => {
                let mut at = t + gap;
                while at > self.on_until {
                    let start = self.on_until.max(t) + draw(&mut self.stream, off);
                    self.on_until = start + draw(&mut self.stream, on);
                    at = start + draw(&mut self.stream, self.mean_gap_ns);
                }
                at
            }
        }
    }

    /// The next arrival time, without taking it.
    pub fn peek(&self) -> SimTime {
        self.next
    }

    /// Takes the next arrival and draws the one after.
    pub fn take(&mut self) -> SimTime {
        let t = self.next;
        self.next = self.after(t);
        t
    }
}

/// One direction of a gateway: a FIFO server with a finite buffer.
#[derive(Clone, Debug)]
struct Fifo {
    /// Departure times of the datagrams in the buffer (the one in service first).
    in_system: VecDeque<SimTime>,
    last_departure: SimTime,
    cross: Option<CrossGen>,
    dropped: u64,
    cross_offered: u64,
    cross_dropped: u64,
}

impl Fifo {
    /// Admits a datagram arriving at `at` needing `service`; its departure, or `None` if the
    /// buffer is full.
    fn admit(&mut self, at: SimTime, service: SimDuration, queue: usize) -> Option<SimTime> {
        while self.in_system.front().is_some_and(|d| *d <= at) {
            self.in_system.pop_front();
        }
        if self.in_system.len() >= queue {
            return None;
        }
        let dep = self.last_departure.max(at) + service;
        self.in_system.push_back(dep);
        self.last_departure = dep;
        Some(dep)
    }
}

/// A gateway (see the module documentation).
#[derive(Clone, Debug)]
pub struct Gateway {
    /// The fixed processing cost of one datagram.
    pub per_packet: SimDuration,
    /// The processing cost per octet of the datagram.
    pub per_octet: SimDuration,
    /// The line the gateway drives, if any: its rate and framing bits per frame.
    pub line: Option<(BitRate, Bits)>,
    /// The propagation delay after service, one way.
    pub propagation: SimDuration,
    /// Datagrams held per direction, the one in service included; one more is dropped.
    pub queue: usize,
    dirs: [Fifo; 2],
}

impl Gateway {
    /// A gateway; `cross` is the other traffic (checked), drawn per direction from streams
    /// [`stream_id`]`(hop, 0)` (out) and `(hop, 1)` (back).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        per_packet: SimDuration,
        per_octet: SimDuration,
        line: Option<(BitRate, Bits)>,
        propagation: SimDuration,
        queue: usize,
        cross: Option<&CrossSpec>,
        rng: RngStreams,
        hop: usize,
    ) -> Gateway {
        let fifo = |purpose: u64| Fifo {
            in_system: VecDeque::new(),
            last_departure: SimTime::ZERO,
            cross: cross.map(|c| CrossGen::new(c, rng.stream(stream_id(hop, purpose)))),
            dropped: 0,
            cross_offered: 0,
            cross_dropped: 0,
        };
        Gateway {
            per_packet,
            per_octet,
            line,
            propagation,
            queue,
            dirs: [fifo(0), fifo(1)],
        }
    }

    /// Service time of a datagram of `len` octets: processing, then the frame on the line.
    pub fn service(&self, len: u64) -> SimDuration {
        let process = SimDuration::from_nanos(
            self.per_packet
                .as_nanos()
                .saturating_add(self.per_octet.as_nanos().saturating_mul(len)),
        );
        match self.line {
            Some((rate, overhead)) => {
                process
                    + rate.transmission_time(Bits::new(
                        len.saturating_mul(8).saturating_add(overhead.get()),
                    ))
            }
            None => process,
        }
    }
}

impl HopModel for Gateway {
    fn offer(&mut self, now: SimTime, _id: u64, len: u64, dir: Dir) -> Offer {
        let queue = self.queue;
        let cross_service = self.dirs[dir.index()]
            .cross
            .as_ref()
            .map(|c| self.service(c.length));
        let service = self.service(len);
        let f = &mut self.dirs[dir.index()];
        // The other traffic that arrived up to now goes first (FIFO; a tie goes to it).
        if let Some(cs) = cross_service {
            while f.cross.as_ref().is_some_and(|c| c.peek() <= now) {
                let at = f.cross.as_mut().expect("checked").take();
                f.cross_offered += 1;
                if f.admit(at, cs, queue).is_none() {
                    f.cross_dropped += 1;
                }
            }
        }
        match f.admit(now, service, queue) {
            Some(dep) => Offer::At(dep + self.propagation),
            None => {
                f.dropped += 1;
                Offer::Dropped
            }
        }
    }

    fn floor(&self, len: u64) -> SimDuration {
        self.service(len) + self.propagation
    }

    fn stats(&self) -> HopStats {
        let sum = |g: fn(&Fifo) -> u64| self.dirs.iter().map(g).sum::<u64>() as f64;
        vec![
            ("dropped", sum(|f| f.dropped)),
            ("cross_offered", sum(|f| f.cross_offered)),
            ("cross_dropped", sum(|f| f.cross_dropped)),
        ]
    }
}

/// Most reservation attempts for one datagram before it is given up as lost.
pub const MAX_RESERVATION_TRIES: u32 = 1000;

/// SATNET (see the module documentation).
#[derive(Clone, Debug)]
pub struct Satnet {
    /// The channel's rate.
    pub rate: BitRate,
    /// Channel bits added to every packet (preamble, SATNET header, checksum).
    pub frame_overhead: Bits,
    /// Earth station to earth station through the satellite, one way.
    pub hop: SimDuration,
    /// The interval between a station's reservation opportunities.
    pub frame: SimDuration,
    /// Each SIMP's processing of a datagram (in at one end, out at the other).
    pub per_packet: SimDuration,
    /// Probability that a reservation is lost in contention and must be retried.
    pub reservation_miss: f64,
    /// Probability that a datagram is lost on the channel.
    pub loss: f64,
    /// The channel is free from this time on (the global queue's tail).
    channel_free: SimTime,
    cross: Option<CrossGen>,
    reservations: Stream,
    losses: Stream,
    dropped: u64,
    retries: u64,
    cross_offered: u64,
}

impl Satnet {
    /// The channel; streams [`stream_id`]`(hop, 0)` for the other stations' traffic, `2` for
    /// reservation contention, `3` for channel loss.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        rate: BitRate,
        frame_overhead: Bits,
        hop_delay: SimDuration,
        frame: SimDuration,
        per_packet: SimDuration,
        reservation_miss: f64,
        loss: f64,
        cross: Option<&CrossSpec>,
        rng: RngStreams,
        hop: usize,
    ) -> Satnet {
        Satnet {
            rate,
            frame_overhead,
            hop: hop_delay,
            frame,
            per_packet,
            reservation_miss,
            loss,
            channel_free: SimTime::ZERO,
            cross: cross.map(|c| CrossGen::new(c, rng.stream(stream_id(hop, 0)))),
            reservations: rng.stream(stream_id(hop, 2)),
            losses: rng.stream(stream_id(hop, 3)),
            dropped: 0,
            retries: 0,
            cross_offered: 0,
        }
    }

    fn transmission(&self, len: u64) -> SimDuration {
        self.rate.transmission_time(Bits::new(
            len.saturating_mul(8)
                .saturating_add(self.frame_overhead.get()),
        ))
    }

    /// The first reservation opportunity at or after `t` (frame boundaries from time 0).
    fn next_slot(&self, t: SimTime) -> SimTime {
        let f = self.frame.as_nanos();
        SimTime::from_nanos(t.as_nanos().div_ceil(f).saturating_mul(f))
    }
}

impl HopModel for Satnet {
    fn offer(&mut self, now: SimTime, _id: u64, len: u64, _dir: Dir) -> Offer {
        // The sending SIMP takes the datagram, and reserves at its next opportunity.
        let mut slot = self.next_slot(now + self.per_packet);
        let mut tries = 1;
        while self.reservations.bernoulli(self.reservation_miss) {
            // Lost in contention: the station hears it one hop later and tries again.
            self.retries += 1;
            tries += 1;
            if tries > MAX_RESERVATION_TRIES {
                self.dropped += 1;
                return Offer::Dropped;
            }
            slot = self.next_slot(slot + self.hop + SimDuration::from_nanos(1));
        }
        let heard = slot + self.hop;
        // The other stations' reserved packets heard before ours go first.
        if let Some(c) = &self.cross {
            let cs = self.transmission(c.length);
            while self.cross.as_ref().is_some_and(|c| c.peek() <= heard) {
                let at = self.cross.as_mut().expect("checked").take();
                self.cross_offered += 1;
                self.channel_free = self.channel_free.max(at) + cs;
            }
        }
        let start = self.channel_free.max(heard);
        let tx = self.transmission(len);
        self.channel_free = start + tx;
        if self.losses.bernoulli(self.loss) {
            self.dropped += 1;
            return Offer::Dropped;
        }
        Offer::At(start + tx + self.hop + self.per_packet)
    }

    fn floor(&self, len: u64) -> SimDuration {
        self.per_packet + self.per_packet + self.hop + self.hop + self.transmission(len)
    }

    fn stats(&self) -> HopStats {
        vec![
            ("dropped", self.dropped as f64),
            ("reservation_retries", self.retries as f64),
            ("cross_offered", self.cross_offered as f64),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_nanos(x * 1_000_000)
    }

    #[test]
    fn gateway_drops_when_its_buffer_is_full() {
        // 10 ms per datagram, room for 2: the third arrival at once is dropped, and once the
        // first has left there is room again.
        let mut g = Gateway::new(
            SimDuration::from_millis(10),
            SimDuration::ZERO,
            None,
            SimDuration::ZERO,
            2,
            None,
            RngStreams::new(1),
            0,
        );
        assert_eq!(g.offer(ms(0), 0, 40, Dir::Out), Offer::At(ms(10)));
        assert_eq!(g.offer(ms(0), 1, 40, Dir::Out), Offer::At(ms(20)));
        assert_eq!(g.offer(ms(0), 2, 40, Dir::Out), Offer::Dropped);
        // The other direction has its own buffer.
        assert_eq!(g.offer(ms(0), 3, 40, Dir::Back), Offer::At(ms(10)));
        assert_eq!(g.offer(ms(10), 4, 40, Dir::Out), Offer::At(ms(30)));
        assert_eq!(g.stats()[0], ("dropped", 1.0));
    }

    #[test]
    fn gateway_cross_traffic_delays_and_drops() {
        // Bursts far above the service rate: the buffer fills, ours wait behind it or are lost.
        let cross = CrossSpec::Poisson {
            mean_gap: SimDuration::from_millis(1),
            length: Bits::new(256 * 8),
        };
        let mut g = Gateway::new(
            SimDuration::from_millis(5),
            SimDuration::ZERO,
            None,
            SimDuration::ZERO,
            4,
            Some(&cross),
            RngStreams::new(7),
            3,
        );
        let (mut late, mut lost) = (0, 0);
        for i in 0..100u64 {
            let now = ms(1000 + 100 * i);
            match g.offer(now, i, 40, Dir::Out) {
                Offer::At(t) if t - now > SimDuration::from_millis(5) => late += 1,
                Offer::Dropped => lost += 1,
                _ => {}
            }
        }
        assert!(lost > 50, "lost {lost}");
        assert!(late + lost == 100, "late {late}, lost {lost}");
        let s = g.stats();
        assert!(s[1].1 > 1000.0 && s[2].1 > 0.0, "{s:?}");
    }

    #[test]
    fn satnet_never_beats_its_floor() {
        let cross = CrossSpec::Poisson {
            mean_gap: SimDuration::from_millis(50),
            length: Bits::new(128 * 8),
        };
        let mut s = Satnet::new(
            BitRate::from_kbps(64),
            Bits::new(224),
            SimDuration::from_millis(270),
            SimDuration::from_millis(100),
            SimDuration::from_millis(1),
            0.1,
            0.0,
            Some(&cross),
            RngStreams::new(3),
            1,
        );
        let mut above = 0;
        for i in 0..500u64 {
            let now = SimTime::from_nanos(i * 1_234_567_891);
            let len = 40 + (i % 217);
            let Offer::At(t) = s.offer(now, i, len, Dir::Out) else {
                panic!("no loss configured")
            };
            let floor = s.floor(len);
            assert!(t - now >= floor, "{:?} < {:?}", t - now, floor);
            if t - now > floor + SimDuration::from_millis(100) {
                above += 1;
            }
        }
        // The floor is 2 hops, and contention and the frame add to it.
        assert!(s.floor(40) >= SimDuration::from_millis(540));
        assert!(above > 0);
    }
}
