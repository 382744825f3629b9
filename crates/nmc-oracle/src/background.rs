//! The network's own load on emulated IMPs (issue 73 §5): the background hosts of a scenario's
//! `kind = "background"` traffic, offered to the original program as messages through a second
//! host interface on every IMP.
//!
//! ## Rules
//! * **The same traffic as the model's.** Each IMP's background host is planned by nmc-imp
//!   ([`nmc_imp::run::background_sites`]: its rate, its destinations by the scenario's weights
//!   and `hop_decay`, its lengths) and draws from the same random stream in the same order
//!   ([`nmc_imp::model::LengthMix`]), so a seed offers the emulated network the bursts,
//!   destinations and lengths it offers the model (their times shifted by when the network
//!   came up: [`BackgroundHost::new`]'s `from_ns`).
//! * **Host 2.** A background host is host 2 of its IMP, at the interface's speed; program 3050
//!   serves two hosts beside five modems (listing p. 25, `HOST34`), so every site of the 1974
//!   map has room. Host 1 stays K&O's pump at the source and is unused elsewhere. A message
//!   goes to host 2 of its destination IMP (host 1 in the leader, which counts from 0), which takes every message the IMP gives it, as the
//!   model's background host sinks its own.
//! * **One link.** Every background message goes on link [`LINK`]: the program numbers and
//!   sequences messages per pair of IMPs, not per link (K&O's pump, too, keeps 4 messages out
//!   on one link), and host-host protocol is not modelled.
//! * **The host's queue.** The host hands each message to its interface when it arrives; the
//!   interface gives the IMP one at a time, as the program takes them. An arrival that finds
//!   `host_queue` messages not yet taken is refused and counted, as in the model (the count is
//!   read at the start of the driver's window, within a millisecond of the arrival).
//! * **A NOP first.** Program 3050 throws away the first thing a real host sends after it comes
//!   up (listing pp. 120–121, `HISTRH` "DISCARD FIRST INPUT OF REAL HOST", `HIFRST`), unanswered
//!   (nmc-h316's `a_real_hosts_first_input_is_discarded_unanswered`). A background host
//!   therefore opens with one NOP ([`BackgroundHost::opening`]), as K&O's pump host opens with
//!   its probes; without it, each host's first message was lost and every later reply from
//!   that destination was paired with the message after its own.
//! * **Words.** A message of *b* data bits is ⌈*b*/16⌉ text words after the 2-word leader.

use std::collections::{BTreeMap, VecDeque};

use nmc_imp::model::LengthMix;
use nmc_imp::run::BackgroundSite;
use nmc_sim::{RngStreams, Stream};

use crate::leader::{Address, Kind, Leader, LeaderError};

/// The host interface a background host is on, on every IMP.
pub const HOST: u8 = 2;

/// Its number in a leader's host field: the interfaces are numbered from 1, the leader's hosts
/// from 0 (interface 2 is host 1; a message to host 2 comes back "destination dead", subcode 1).
pub const LEADER_HOST: u8 = HOST - 1;

/// The link every background message goes on.
pub const LINK: u8 = 2;

/// One IMP's background host.
#[derive(Clone, Debug)]
pub struct BackgroundHost {
    rng: Stream,
    mean_interval_ns: f64,
    /// Destination network indices with cumulative probabilities.
    dests: Vec<(usize, f64)>,
    mix: LengthMix,
    /// Longest backlog of messages not yet taken by the IMP.
    pub host_queue: u32,
    /// The next burst's arrival.
    next_ns: u64,
    /// Sent and not yet answered, by destination: when each was handed over.
    in_flight: BTreeMap<usize, VecDeque<u64>>,
    /// Inputs handed over before the first message (the opening NOP).
    opened: u64,
    /// Counts.
    pub counts: Counts,
}

/// What the background hosts did, all together or one.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Counts {
    /// Messages that arrived at the hosts.
    pub offered: u64,
    /// Arrivals refused: the host's queue was full.
    pub refused: u64,
    /// Messages handed to the IMP's interface.
    pub sent: u64,
    /// Background messages the IMPs delivered to their destination hosts.
    pub delivered: u64,
    /// RFNMs back at the sources.
    pub answered: u64,
    /// Other replies (incomplete transmission, destination dead) back at the sources.
    pub failed: u64,
    /// Sum of round trips from handing over to the reply, ns (answered and failed).
    pub rtt_ns: u128,
}

impl Counts {
    /// Adds another host's counts.
    pub fn add(&mut self, o: &Counts) {
        self.offered += o.offered;
        self.refused += o.refused;
        self.sent += o.sent;
        self.delivered += o.delivered;
        self.answered += o.answered;
        self.failed += o.failed;
        self.rtt_ns += o.rtt_ns;
    }

    /// Mean round trip of the replies, ms (NaN: none).
    pub fn mean_rtt_ms(&self) -> f64 {
        let n = self.answered + self.failed;
        if n == 0 {
            f64::NAN
        } else {
            self.rtt_ns as f64 / n as f64 / 1e6
        }
    }
}

/// A burst's message, due at `at_ns`: destination (network index) and data bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// When it arrived at the host.
    pub at_ns: u64,
    /// Destination IMP (network index).
    pub dest: usize,
    /// Data bits.
    pub bits: u64,
}

impl BackgroundHost {
    /// The host `site` plans, its destinations as network indices (`index` of a topology
    /// index; a destination without one is left out and the rest renormalised), drawing from
    /// stream `site.stream` of `streams`; its first burst `site.start` plus an exponential gap
    /// after `from_ns`. `None` if it has no destination.
    pub fn new(
        site: &BackgroundSite,
        index: &dyn Fn(u32) -> Option<usize>,
        streams: &RngStreams,
        from_ns: u64,
    ) -> Option<BackgroundHost> {
        let mut dests = Vec::with_capacity(site.dests.len());
        let mut prev = 0.0;
        for &(y, c) in &site.dests {
            if let Some(j) = index(y) {
                dests.push((j, c - prev));
            }
            prev = c;
        }
        let total: f64 = dests.iter().map(|d| d.1).sum();
        if dests.is_empty() || total <= 0.0 {
            return None;
        }
        let mut c = 0.0;
        for d in &mut dests {
            c += d.1 / total;
            d.1 = c;
        }
        if let Some(last) = dests.last_mut() {
            last.1 = 1.0;
        }
        let mut rng = streams.stream(site.stream);
        let gap = rng.exponential(site.mean_interval_ns);
        Some(BackgroundHost {
            rng,
            mean_interval_ns: site.mean_interval_ns,
            dests,
            mix: site.mix,
            host_queue: site.host_queue,
            next_ns: from_ns + site.start.as_nanos() + gap as u64,
            in_flight: BTreeMap::new(),
            opened: 0,
            counts: Counts::default(),
        })
    }

    /// The messages of every burst arriving before `until_ns`, in order, drawn as the model's
    /// background host draws them (burst size, destination, lengths, then the next gap).
    pub fn arrivals(&mut self, until_ns: u64) -> Vec<Arrival> {
        let mut v = Vec::new();
        while self.next_ns < until_ns {
            let n = self.mix.burst(&mut self.rng);
            let u = self.rng.unit();
            let dest = self
                .dests
                .iter()
                .find(|(_, c)| u <= *c)
                .or(self.dests.last())
                .map(|d| d.0)
                .expect("a background host has a destination");
            for _ in 0..n {
                let bits = self.mix.draw(&mut self.rng);
                v.push(Arrival {
                    at_ns: self.next_ns,
                    dest,
                    bits,
                });
            }
            let gap = self.rng.exponential(self.mean_interval_ns);
            self.next_ns += gap as u64;
        }
        self.counts.offered += v.len() as u64;
        v
    }

    /// The host's first input once its IMP is up: a NOP (type 4), which the program throws
    /// away (see the module's rules).
    pub fn opening(&mut self) -> Vec<u16> {
        self.opened += 1;
        vec![u16::from(Kind::Nop.code()) << 8, 0]
    }

    /// Inputs handed over and not yet taken by the IMP, which has taken `taken` (the opening
    /// included).
    pub fn queued(&self, taken: u64) -> u64 {
        (self.counts.sent + self.opened).saturating_sub(taken)
    }

    /// The words of arrival `a` to IMP number `imp`, handed over at `at_ns`; counted as sent.
    pub fn message(&mut self, a: &Arrival, imp: u8, at_ns: u64) -> Result<Vec<u16>, LeaderError> {
        let to = Address {
            imp,
            host: LEADER_HOST,
            for_imp: false,
        };
        let mut words = Leader::new(Kind::Regular, to, LINK)?.encode().to_vec();
        words.resize(2 + a.bits.div_ceil(16) as usize, 0o052525);
        self.in_flight.entry(a.dest).or_default().push_back(at_ns);
        self.counts.sent += 1;
        Ok(words)
    }

    /// A reply from destination `dest` (network index) reached the host at `at_ns`: the
    /// oldest message outstanding to it is answered. `false` if none was.
    pub fn reply(&mut self, dest: usize, kind: Kind, at_ns: u64) -> bool {
        let Some(sent) = self.in_flight.get_mut(&dest).and_then(VecDeque::pop_front) else {
            return false;
        };
        self.counts.rtt_ns += u128::from(at_ns.saturating_sub(sent));
        if kind == Kind::Rfnm {
            self.counts.answered += 1;
        } else {
            self.counts.failed += 1;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site() -> BackgroundSite {
        BackgroundSite {
            imp: 0,
            stream: 2000,
            mean_interval_ns: 1e8,
            dests: vec![(1, 0.5), (2, 0.75), (3, 1.0)],
            mix: LengthMix {
                single_packet_fraction: 0.9,
                single_mean: 200.0,
                multi_mean: 4000.0,
                burst_mean: 1.0,
                max_packet: 1008,
                max_message: 8063,
            },
            host_queue: 5,
            start: nmc_sim::SimDuration::ZERO,
        }
    }

    #[test]
    fn destinations_without_an_index_are_left_out_and_the_rest_renormalised() {
        let streams = RngStreams::new(1);
        let h =
            BackgroundHost::new(&site(), &|y| (y != 1).then_some(y as usize), &streams, 0).unwrap();
        assert_eq!(h.dests.len(), 2);
        assert!((h.dests[0].1 - 0.5).abs() < 1e-12 && h.dests[1].1 == 1.0);
        assert!(BackgroundHost::new(&site(), &|_| None, &streams, 0).is_none());
    }

    #[test]
    fn arrivals_are_the_seeds_own_and_about_the_planned_rate() {
        let streams = RngStreams::new(7);
        let mut a = BackgroundHost::new(&site(), &|y| Some(y as usize), &streams, 0).unwrap();
        let mut b = BackgroundHost::new(&site(), &|y| Some(y as usize), &streams, 0).unwrap();
        let (x, y) = (a.arrivals(100_000_000_000), b.arrivals(100_000_000_000));
        assert_eq!(x, y);
        // 100 s at a burst every 100 ms: 1000 expected (sd ~32).
        assert!((850..1150).contains(&x.len()), "{}", x.len());
        assert!(x.windows(2).all(|w| w[0].at_ns <= w[1].at_ns));
        assert!(x.iter().all(|m| (1..=8063).contains(&m.bits)));
        assert_eq!(a.counts.offered, x.len() as u64);
    }

    #[test]
    fn replies_answer_the_oldest_message_to_their_destination() {
        let streams = RngStreams::new(1);
        let mut h = BackgroundHost::new(&site(), &|y| Some(y as usize), &streams, 0).unwrap();
        let a = Arrival {
            at_ns: 0,
            dest: 3,
            bits: 17,
        };
        let w = h.message(&a, 9, 1_000).unwrap();
        assert_eq!(w.len(), 2 + 2);
        let l = Leader::decode([w[0], w[1]]);
        assert_eq!((l.imp, l.host, l.link), (9, LEADER_HOST, LINK));
        h.message(&a, 9, 2_000).unwrap();
        assert!(!h.reply(1, Kind::Rfnm, 5_000));
        assert!(h.reply(3, Kind::Rfnm, 5_000));
        assert!(h.reply(3, Kind::IncompleteTransmission, 6_000));
        assert!(!h.reply(3, Kind::Rfnm, 7_000));
        assert_eq!((h.counts.answered, h.counts.failed), (1, 1));
        assert_eq!(h.counts.rtt_ns, 4_000 + 4_000);
    }

    #[test]
    fn the_host_opens_with_a_nop_that_its_queue_counts_until_taken() {
        let streams = RngStreams::new(1);
        let mut h = BackgroundHost::new(&site(), &|y| Some(y as usize), &streams, 0).unwrap();
        let w = h.opening();
        assert_eq!(Leader::decode([w[0], w[1]]).kind, Kind::Nop);
        let a = Arrival {
            at_ns: 0,
            dest: 3,
            bits: 17,
        };
        h.message(&a, 9, 1_000).unwrap();
        // The NOP and one message handed over: two queued until the IMP takes them.
        assert_eq!(
            (h.queued(0), h.queued(1), h.queued(2), h.queued(5)),
            (2, 1, 0, 0)
        );
        // The NOP is no message: nothing awaits a reply from it.
        assert_eq!(h.counts.sent, 1);
    }
}
