//! The probe's protocol core: which volley to send when, and what each reply (or silence) means.
//! No I/O, no clock: [`crate::udp::probe`] and [`crate::icmp::probe`] are the socket drivers.
//!
//! A *volley* is one echo request and its reply (RFC 889 §2.1: "a cycle consisted of sending an
//! ICMP Echo message of specified length, waiting for the corresponding ICMP Reply message to come
//! back and recording the elapsed time"). A run is `count` volleys.
//!
//! # How to drive it
//!
//! Loop until [`Probe::is_done`]:
//! 1. While [`Probe::poll_transmit`]`(now)` returns a [`Transmit`], encode a packet of that
//!    length stamped with `now` and send it.
//! 2. Wait for a datagram until [`Probe::poll_at`]. On one, call [`Probe::handle_reply`] with
//!    the receive time and what the reply echoed. On the deadline, call [`Probe::handle_timeout`].
//!
//! # Pacing
//!
//! - [`Pacing::OneInFlight { gap_ns: Nanos::ZERO }`]: the Fuzzball's way (RFC 889 §3.1: "only a single packet was allowed
//!   in flight"). The next volley goes as soon as the previous one is answered or declared lost,
//!   but never sooner than `gap` after the previous send: on a path whose round trip is shorter
//!   than the gap the probe is paced by the gap (a courtesy to the path and to the server's rate
//!   limit), on a longer one by the path, as Mills' was.
//! - [`Pacing::Interval`]: one volley every interval whatever the replies; several may be in
//!   flight. Cheaper in wall time on a lossy path, but the volleys then queue behind each other on a
//!   slow link, which is not what RFC 889 measured.
//!
//! # What counts as what
//!
//! - *Lost*: no reply within `timeout` of sending (RFC 889 §3.1 used thirty seconds). A reply that
//!   comes later is *late*: counted, but the volley stays lost, as it would for the Fuzzball.
//! - *Duplicate*: a second reply for a volley already answered (in time or late).
//! - *Reordered*: a reply, in time, for a sequence number lower than one already answered.
//! - *Foreign*: a reply naming a sequence this run never sent, echoing a send time that does
//!   not match the one recorded (a stale or injected packet), or of another length than its
//!   request (issue 33: it was taken as a volley of the request's length, corrupting the
//!   delay-against-length fit). Ignored: the volley still waits for its own reply.

use crate::time::Nanos;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use thiserror::Error;

/// Mills' floor: "lengths less than 40 were rounded up to 40" (RFC 889 §2.1).
pub const MILLS_MIN_LENGTH: u32 = 40;

/// A probe configuration that cannot be run.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ProbeError {
    /// A fixed length, or the top of a uniform range, below the floor.
    #[error(
        "length {len} is below {min}, the smallest datagram this transport can carry (IP + transport header + payload header)"
    )]
    TooShort {
        /// The length asked for, bytes.
        len: u32,
        /// The floor: the larger of Mills' 40 and the transport's smallest packet, bytes.
        min: u32,
    },
    /// A fixed length, or the top of a uniform range, above the largest datagram the transport
    /// carries.
    #[error("length {len} is above {max}, the largest datagram this transport can carry")]
    TooLong {
        /// The length asked for, bytes.
        len: u32,
        /// The largest datagram the transport can carry, bytes.
        max: u32,
    },
    /// A length range `lo..hi` with `hi` below `lo`.
    #[error("empty length range {lo}..{hi}")]
    EmptyRange {
        /// The range's lower end as given, bytes.
        lo: u32,
        /// The range's upper end as given, bytes.
        hi: u32,
    },
    /// A run of zero volleys.
    #[error("count must be at least 1")]
    ZeroCount,
    /// Issue 33: every volley is allocated when the probe starts, so the count is bounded.
    #[error(
        "count {count}: at most {max} volleys (about 11.6 days at one a second; a limit of nmc's, so that input cannot exhaust the machine)"
    )]
    TooMany {
        /// The count asked for.
        count: u32,
        /// The most allowed, [`MAX_VOLLEYS`].
        max: u32,
    },
    /// Text that is neither a length nor a range of lengths.
    #[error("`{0}` is not a length: expected N (e.g. 256) or LO..HI (e.g. 0..256)")]
    BadLengthSpec(String),
}

/// The most volleys one run may ask for: each is kept (about 50 bytes) from the start, so this
/// bounds a probe's memory to tens of megabytes (issue 33).
pub const MAX_VOLLEYS: u32 = 1_000_000;

/// How packet lengths are chosen. A length is the whole IP datagram in bytes (IP header +
/// UDP or ICMP header + payload), as Mills counted it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LengthSpec {
    /// Every volley this long.
    Fixed {
        /// The length, bytes.
        length: u32,
    },
    /// Uniform integers on `lo..=hi`, those below the floor rounded up to it (Mills: `0..256`,
    /// floor 40).
    Uniform {
        /// Shortest length drawn, bytes (before the floor is applied).
        lo: u32,
        /// Longest length drawn, bytes.
        hi: u32,
    },
}

impl LengthSpec {
    /// Mills' distribution: uniform on 0..256, rounded up to 40 (the floor is applied later).
    pub const MILLS: LengthSpec = LengthSpec::Uniform { lo: 0, hi: 256 };

    /// Parses `256` or `0..256` (both ends included).
    pub fn parse(s: &str) -> Result<LengthSpec, ProbeError> {
        match nmc_sim::parse_range::<u32>(s) {
            Err(nmc_sim::RangeError::NotARange) => Err(ProbeError::BadLengthSpec(s.to_string())),
            Err(nmc_sim::RangeError::Empty { lo, hi }) => Err(ProbeError::EmptyRange { lo, hi }),
            Ok((lo, hi)) if s.contains("..") => Ok(LengthSpec::Uniform { lo, hi }),
            Ok((length, _)) => Ok(LengthSpec::Fixed { length }),
        }
    }
}

impl fmt::Display for LengthSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LengthSpec::Fixed { length } => write!(f, "{length}"),
            LengthSpec::Uniform { lo, hi } => write!(f, "{lo}..{hi}"),
        }
    }
}

/// When volleys are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Pacing {
    /// The Fuzzball's way (RFC 889 §3.1): one volley in flight; the next goes when it is answered
    /// or lost, but no sooner than `gap_ns` after the previous send.
    OneInFlight {
        /// Least time from one send to the next, ns.
        gap_ns: Nanos,
    },
    /// One volley every `interval_ns` whatever the replies; several may be in flight.
    Interval {
        /// Time from one send to the next, ns.
        interval_ns: Nanos,
    },
}

/// A run's parameters.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeConfig {
    /// Volleys in the run (RFC 889: 512).
    pub count: u32,
    /// How each volley's length is chosen.
    pub lengths: LengthSpec,
    /// When volleys are sent.
    pub pacing: Pacing,
    /// A volley unanswered this long after sending is lost (RFC 889: 30 s).
    pub timeout: Nanos,
    /// Seed of the length generator (ChaCha8). Recorded in every output.
    pub seed: u64,
    /// Lengths below this are rounded up to it: the larger of Mills' 40 and the transport's minimum.
    pub floor: u32,
    /// Largest datagram the transport can carry.
    pub max_length: u32,
    /// Issue 58 §2: a real run gives up when nothing has answered this long after its first
    /// send ([`Probe::gave_up`]); `None`: never (the simulator's probes run their model to the
    /// end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_timeout: Option<Nanos>,
    /// Issue 58 §2: a real run gives up when this many volleys have been lost and none was
    /// ever answered ([`Probe::gave_up`]; [`SILENT_LOSSES`] from the command line); `None`:
    /// never.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub silent_losses: Option<u32>,
}

/// Volleys lost, with none ever answered, after which a run gives up (issue 58 §2).
/// **Choice**: 10. On a path that answers at all, even at 50 % loss ten losses in a row before
/// the first answer happen once in a thousand runs, and a run that met them would be mostly
/// loss anyway; with a short `--timeout` this ends a run to a silent host before the opening
/// deadline does.
pub const SILENT_LOSSES: u32 = 10;

/// Why a run gave up on a host that never answered (issue 58 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GiveUp {
    /// Nothing answered within the opening deadline of the first send.
    OpenTimeout {
        /// The deadline, ns from the first send.
        after_ns: Nanos,
    },
    /// This many volleys were lost and none was ever answered.
    SilentLosses {
        /// Volleys lost.
        lost: u32,
    },
}

/// One volley's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Volley {
    /// Sequence number: the volley's index in the run, from 0.
    pub seq: u32,
    /// IP datagram length, bytes.
    pub length: u32,
    /// Send time on the probe's monotonic clock (ns since the run's clock origin).
    pub sent: Option<Nanos>,
    /// Round trip, if answered within the timeout.
    pub rtt: Option<Nanos>,
    /// What the server said it spent between receiving and replying, if it said.
    pub server_turnaround: Option<Nanos>,
    /// Set once the volley has been declared lost.
    pub lost: bool,
    /// Set when a reply came for the volley after it had been declared lost.
    pub late_reply: bool,
    /// The server's wall-clock receive time of the request (UDP replies from `nmc serve`), ns
    /// since the Unix epoch: with the probe's own wall clock it splits the round trip into one
    /// way up and down ([`crate::analysis::OneWaySplit`]).
    pub server_rx_unix_ns: Option<u64>,
    /// The server's count of the requests it had answered from this probe, this one included
    /// (UDP replies from `nmc serve` of 3 Dec 2026 on, long enough to carry it:
    /// [`crate::wire::reply_count`]).
    pub server_count: Option<u64>,
}

impl Volley {
    /// Delay normalised to one way, as RFC 889 reports it: round trip / 2.
    pub fn one_way(&self) -> Option<Nanos> {
        self.rtt.map(|r| Nanos(r.0 / 2))
    }
}

/// A packet the driver must send now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transmit {
    /// Sequence number of the volley, to be echoed back.
    pub seq: u32,
    /// IP datagram length; the driver subtracts its own header bytes to get the payload length.
    pub length: u32,
    /// The send time to embed in the packet.
    pub stamp: Nanos,
}

/// What a reply turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyKind {
    /// The first reply for a volley still waiting; its round trip is recorded.
    Fresh {
        /// Round trip: receive time minus the echoed send time, ns.
        rtt: Nanos,
        /// True when a higher sequence number had already been answered.
        reordered: bool,
    },
    /// Another reply for a volley already answered, or a second reply for one declared lost.
    Duplicate,
    /// The first reply for a volley already declared lost: counted, but the volley stays lost.
    Late,
    /// A reply that matches no volley of the run: unknown sequence, an echoed send time that is not
    /// the one recorded, or a length other than the request's. Ignored.
    Foreign,
}

/// Counts beyond answered and lost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ProbeCounters {
    /// Volleys sent.
    pub sent: u32,
    /// Volleys answered within the timeout (first replies).
    pub answered: u32,
    /// Volleys declared lost (no reply within the timeout).
    pub lost: u32,
    /// Replies beyond the first for a volley already answered, and second and later replies for a
    /// lost one.
    pub duplicates: u32,
    /// In-time replies whose sequence number is below one already answered.
    pub reordered: u32,
    /// First replies for volleys already declared lost.
    pub late: u32,
    /// Replies matching no volley of the run (see [`ReplyKind::Foreign`]).
    pub foreign: u32,
    /// Well-formed replies that failed or lacked authentication (driver-counted).
    pub unauthenticated: u32,
    /// ICMP errors (e.g. port unreachable) reported by the socket (driver-counted).
    pub icmp_errors: u32,
}

/// The probe's state for one run.
#[derive(Debug)]
pub struct Probe {
    cfg: ProbeConfig,
    volleys: Vec<Volley>,
    next: usize,
    /// Volleys waiting for a reply: seq → deadline.
    outstanding: BTreeMap<u32, Nanos>,
    last_send: Option<Nanos>,
    highest_answered: Option<u32>,
    counters: ProbeCounters,
}

impl Probe {
    /// Draws every length up front from the seeded generator, so a run's lengths depend only on
    /// the configuration.
    pub fn new(cfg: ProbeConfig) -> Result<Probe, ProbeError> {
        if cfg.count == 0 {
            return Err(ProbeError::ZeroCount);
        }
        if cfg.count > MAX_VOLLEYS {
            return Err(ProbeError::TooMany {
                count: cfg.count,
                max: MAX_VOLLEYS,
            });
        }
        let check_max = |len: u32| {
            if len > cfg.max_length {
                Err(ProbeError::TooLong {
                    len,
                    max: cfg.max_length,
                })
            } else {
                Ok(())
            }
        };
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let lengths: Vec<u32> = match cfg.lengths {
            LengthSpec::Fixed { length } => {
                if length < cfg.floor {
                    return Err(ProbeError::TooShort {
                        len: length,
                        min: cfg.floor,
                    });
                }
                check_max(length)?;
                vec![length; cfg.count as usize]
            }
            LengthSpec::Uniform { lo, hi } => {
                if hi < cfg.floor {
                    return Err(ProbeError::TooShort {
                        len: hi,
                        min: cfg.floor,
                    });
                }
                check_max(hi)?;
                (0..cfg.count)
                    .map(|_| rng.random_range(lo..=hi).max(cfg.floor))
                    .collect()
            }
        };
        let volleys = lengths
            .into_iter()
            .enumerate()
            .map(|(i, length)| Volley {
                seq: i as u32,
                length,
                sent: None,
                rtt: None,
                server_turnaround: None,
                lost: false,
                late_reply: false,
                server_rx_unix_ns: None,
                server_count: None,
            })
            .collect();
        Ok(Probe {
            cfg,
            volleys,
            next: 0,
            outstanding: BTreeMap::new(),
            last_send: None,
            highest_answered: None,
            counters: ProbeCounters::default(),
        })
    }

    /// The run's parameters.
    pub fn config(&self) -> &ProbeConfig {
        &self.cfg
    }
    /// Every volley of the run, in sequence order: sent or not, answered, lost.
    pub fn volleys(&self) -> &[Volley] {
        &self.volleys
    }
    /// The counts so far.
    pub fn counters(&self) -> ProbeCounters {
        self.counters
    }
    /// For the driver's own counts (authentication failures, ICMP errors).
    pub fn counters_mut(&mut self) -> &mut ProbeCounters {
        &mut self.counters
    }
    /// True when every volley has been sent and answered or declared lost.
    pub fn is_done(&self) -> bool {
        self.next >= self.volleys.len() && self.outstanding.is_empty()
    }
    /// Volleys sent so far.
    pub fn sent(&self) -> usize {
        self.next
    }

    fn due(&self) -> Option<Nanos> {
        if self.next >= self.volleys.len() {
            return None;
        }
        match self.cfg.pacing {
            Pacing::OneInFlight { gap_ns } => {
                if self.outstanding.is_empty() {
                    Some(
                        self.last_send
                            .map_or(Nanos::ZERO, |t| t.saturating_add(gap_ns)),
                    )
                } else {
                    None
                }
            }
            Pacing::Interval { interval_ns } => Some(match self.last_send {
                None => Nanos::ZERO,
                Some(t) => t.saturating_add(interval_ns),
            }),
        }
    }

    /// Whether a run should give up at `now` on a host that has never answered (issue 58 §2):
    /// no reply at all (in time or late) and either [`ProbeConfig::open_timeout`] has passed
    /// since the first send, or [`ProbeConfig::silent_losses`] volleys have been lost. `None`
    /// once anything has answered, and before the first send.
    pub fn gave_up(&self, now: Nanos) -> Option<GiveUp> {
        if self.counters.answered > 0 || self.counters.late > 0 {
            return None;
        }
        let first = self.volleys.first()?.sent?;
        if let Some(t) = self.cfg.open_timeout
            && now.saturating_sub(first) >= t
        {
            return Some(GiveUp::OpenTimeout { after_ns: t });
        }
        match self.cfg.silent_losses {
            Some(n) if self.counters.lost >= n => Some(GiveUp::SilentLosses {
                lost: self.counters.lost,
            }),
            _ => None,
        }
    }

    /// The next volley to send, if one is due at `now`. Marks it sent at `now`.
    pub fn poll_transmit(&mut self, now: Nanos) -> Option<Transmit> {
        let due = self.due()?;
        if now < due {
            return None;
        }
        let v = &mut self.volleys[self.next];
        v.sent = Some(now);
        self.outstanding
            .insert(v.seq, now.saturating_add(self.cfg.timeout));
        self.last_send = Some(now);
        self.next += 1;
        self.counters.sent += 1;
        Some(Transmit {
            seq: v.seq,
            length: v.length,
            stamp: now,
        })
    }

    /// The earliest time something will happen without a reply: a send falls due or a volley
    /// times out. `None` when done.
    pub fn poll_at(&self) -> Option<Nanos> {
        let deadline = self.outstanding.values().min().copied();
        match (self.due(), deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Declares lost every volley whose deadline is at or before `now`.
    pub fn handle_timeout(&mut self, now: Nanos) {
        let expired: Vec<u32> = self
            .outstanding
            .iter()
            .filter(|(_, d)| **d <= now)
            .map(|(s, _)| *s)
            .collect();
        for seq in expired {
            self.outstanding.remove(&seq);
            self.volleys[seq as usize].lost = true;
            self.counters.lost += 1;
        }
    }

    /// The server's wall-clock receive time of volley `seq`'s request and, if the reply carried
    /// it, the server's count of the requests it had answered from this probe, from the reply
    /// that gave its round trip (kept only for an answered volley).
    pub fn note_server_receive(&mut self, seq: u32, unix_ns: u64, count: Option<u64>) {
        if let Some(v) = self.volleys.get_mut(seq as usize)
            && v.rtt.is_some()
        {
            v.server_rx_unix_ns = Some(unix_ns);
            v.server_count = count;
        }
    }

    /// A reply received at `now` echoing sequence `seq` and send time `stamp`, with the server's
    /// turnaround if it reported one, that came off a real socket: `length` bytes as the
    /// request's length is counted;
    /// one of another length than its request is foreign, whatever else it matches.
    pub fn handle_reply_of_length(
        &mut self,
        now: Nanos,
        seq: u32,
        stamp: Nanos,
        server_turnaround: Option<Nanos>,
        length: u32,
    ) -> ReplyKind {
        if self
            .volleys
            .get(seq as usize)
            .is_some_and(|v| v.length != length)
        {
            self.counters.foreign += 1;
            return ReplyKind::Foreign;
        }
        self.handle_reply(now, seq, stamp, server_turnaround)
    }

    /// A reply received at `now` echoing sequence `seq` and send time `stamp`, with the server's
    /// turnaround if it reported one: records the round trip (`now` − `stamp`) if the volley is
    /// still waiting and says what the reply was.
    pub fn handle_reply(
        &mut self,
        now: Nanos,
        seq: u32,
        stamp: Nanos,
        server_turnaround: Option<Nanos>,
    ) -> ReplyKind {
        let Some(v) = self.volleys.get_mut(seq as usize) else {
            self.counters.foreign += 1;
            return ReplyKind::Foreign;
        };
        if v.sent != Some(stamp) {
            self.counters.foreign += 1;
            return ReplyKind::Foreign;
        }
        if v.rtt.is_some() {
            self.counters.duplicates += 1;
            return ReplyKind::Duplicate;
        }
        if v.lost {
            // Only the first late reply is late; later copies are duplicates.
            if v.late_reply {
                self.counters.duplicates += 1;
                return ReplyKind::Duplicate;
            }
            v.late_reply = true;
            self.counters.late += 1;
            return ReplyKind::Late;
        }
        // If the deadline has passed but the driver has not yet called handle_timeout, the
        // volley is still lost: the 30-second rule does not depend on when the driver looks.
        let deadline = self.outstanding.get(&seq).copied();
        if deadline.is_some_and(|d| now >= d) {
            self.handle_timeout(now);
            return self.handle_reply(now, seq, stamp, server_turnaround);
        }
        self.outstanding.remove(&seq);
        let rtt = now.saturating_sub(stamp);
        v.rtt = Some(rtt);
        v.server_turnaround = server_turnaround;
        self.counters.answered += 1;
        let reordered = self.highest_answered.is_some_and(|h| seq < h);
        if reordered {
            self.counters.reordered += 1;
        }
        self.highest_answered = Some(self.highest_answered.map_or(seq, |h| h.max(seq)));
        ReplyKind::Fresh { rtt, reordered }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(count: u32, pacing: Pacing) -> ProbeConfig {
        ProbeConfig {
            count,
            lengths: LengthSpec::MILLS,
            pacing,
            timeout: Nanos(30_000_000_000),
            seed: 889,
            floor: 40,
            max_length: 1500,
            open_timeout: None,
            silent_losses: None,
        }
    }

    const MS: u64 = 1_000_000;

    /// Issue 58 §2: a run gives up on a host that never answers at its opening deadline, or
    /// after its run of losses, whichever comes first; never once anything has answered, and
    /// never without the settings (the simulator's probes).
    #[test]
    fn a_run_gives_up_on_a_host_that_never_answers() {
        let pacing = Pacing::Interval {
            interval_ns: Nanos(100 * MS),
        };
        let mut c = cfg(512, pacing);
        c.timeout = Nanos(1_000 * MS);
        c.open_timeout = Some(Nanos(10_000 * MS));
        c.silent_losses = Some(SILENT_LOSSES);
        let silent = |c: &ProbeConfig| {
            let mut p = Probe::new(c.clone()).unwrap();
            let mut now = Nanos::ZERO;
            loop {
                p.handle_timeout(now);
                if let Some(g) = p.gave_up(now) {
                    return (g, now);
                }
                while p.poll_transmit(now).is_some() {}
                now = Nanos(now.0 + MS);
                assert!(now.0 < 600_000 * MS, "never gave up");
            }
        };
        // Sends at 0, 100 ms, ...: the tenth loss is the volley sent at 900 ms, at 1.9 s.
        assert_eq!(
            silent(&c),
            (GiveUp::SilentLosses { lost: 10 }, Nanos(1_900 * MS))
        );
        // With a 30 s timeout no volley is lost by 10 s: the opening deadline ends it.
        c.timeout = Nanos(30_000 * MS);
        assert_eq!(
            silent(&c),
            (
                GiveUp::OpenTimeout {
                    after_ns: Nanos(10_000 * MS)
                },
                Nanos(10_000 * MS)
            )
        );
        // One answer, and the run goes on whatever is lost after it.
        let mut p = Probe::new(c.clone()).unwrap();
        let tx = p.poll_transmit(Nanos::ZERO).unwrap();
        p.handle_reply(Nanos(5 * MS), tx.seq, tx.stamp, None);
        assert_eq!(p.gave_up(Nanos(100_000 * MS)), None);
        // Without the settings, never.
        let mut p = Probe::new(cfg(512, pacing)).unwrap();
        p.poll_transmit(Nanos::ZERO).unwrap();
        p.handle_timeout(Nanos(100_000 * MS));
        assert_eq!(p.gave_up(Nanos(100_000 * MS)), None);
    }

    #[test]
    fn mills_lengths_are_uniform_and_rounded_up_to_40() {
        let p = Probe::new(cfg(
            20_000,
            Pacing::OneInFlight {
                gap_ns: Nanos::ZERO,
            },
        ))
        .unwrap();
        let lens: Vec<u32> = p.volleys().iter().map(|v| v.length).collect();
        assert!(lens.iter().all(|&l| (40..=256).contains(&l)));
        let at_floor = lens.iter().filter(|&&l| l == 40).count() as f64 / lens.len() as f64;
        // P(draw <= 40) = 41/257 = 0.1595.
        assert!((at_floor - 41.0 / 257.0).abs() < 0.015, "{at_floor}");
        // Same seed, same lengths.
        let q = Probe::new(cfg(
            20_000,
            Pacing::OneInFlight {
                gap_ns: Nanos::ZERO,
            },
        ))
        .unwrap();
        assert_eq!(p.volleys(), q.volleys());
    }

    #[test]
    fn length_specs_parse_and_check() {
        assert_eq!(
            LengthSpec::parse("0..256").unwrap(),
            LengthSpec::Uniform { lo: 0, hi: 256 }
        );
        assert_eq!(
            LengthSpec::parse("128").unwrap(),
            LengthSpec::Fixed { length: 128 }
        );
        assert!(LengthSpec::parse("abc").is_err());
        assert!(matches!(
            LengthSpec::parse("300..200"),
            Err(ProbeError::EmptyRange { .. })
        ));
        let mut c = cfg(
            5,
            Pacing::OneInFlight {
                gap_ns: Nanos::ZERO,
            },
        );
        c.lengths = LengthSpec::Fixed { length: 30 };
        assert!(matches!(Probe::new(c), Err(ProbeError::TooShort { .. })));
        let mut c = cfg(
            5,
            Pacing::OneInFlight {
                gap_ns: Nanos::ZERO,
            },
        );
        c.lengths = LengthSpec::Uniform { lo: 100, hi: 9000 };
        assert!(matches!(Probe::new(c), Err(ProbeError::TooLong { .. })));
    }

    #[test]
    fn one_in_flight_keeps_the_gap_on_a_fast_path() {
        let gap = Pacing::OneInFlight {
            gap_ns: Nanos(10 * MS),
        };
        let mut p = Probe::new(cfg(2, gap)).unwrap();
        p.poll_transmit(Nanos(0)).unwrap();
        p.handle_reply(Nanos(MS), 0, Nanos(0), None);
        assert_eq!(p.poll_transmit(Nanos(MS)), None);
        assert_eq!(p.poll_at(), Some(Nanos(10 * MS)));
        assert_eq!(p.poll_transmit(Nanos(10 * MS)).unwrap().seq, 1);
    }

    #[test]
    fn one_in_flight_waits_for_the_reply() {
        let mut p = Probe::new(cfg(
            3,
            Pacing::OneInFlight {
                gap_ns: Nanos::ZERO,
            },
        ))
        .unwrap();
        let t = p.poll_transmit(Nanos(0)).unwrap();
        assert_eq!(t.seq, 0);
        assert_eq!(p.poll_transmit(Nanos(MS)), None, "one in flight");
        assert_eq!(p.poll_at(), Some(Nanos(30_000 * MS)), "only the timeout");
        assert_eq!(
            p.handle_reply(Nanos(10 * MS), 0, Nanos(0), Some(Nanos(500))),
            ReplyKind::Fresh {
                rtt: Nanos(10 * MS),
                reordered: false
            }
        );
        assert_eq!(p.poll_at(), Some(Nanos(0)), "next is due at once");
        let t = p.poll_transmit(Nanos(10 * MS)).unwrap();
        assert_eq!(t.seq, 1);
        // Silence for 30 s: lost; then the third goes.
        p.handle_timeout(Nanos(10 * MS + 30_000 * MS));
        assert!(p.volleys()[1].lost);
        let t = p.poll_transmit(Nanos(10 * MS + 30_000 * MS)).unwrap();
        assert_eq!(t.seq, 2);
        assert_eq!(
            p.handle_reply(Nanos(30_020 * MS), 1, Nanos(10 * MS), None),
            ReplyKind::Late
        );
        assert_eq!(
            p.handle_reply(Nanos(30_021 * MS), 1, Nanos(10 * MS), None),
            ReplyKind::Duplicate
        );
        assert!(matches!(
            p.handle_reply(Nanos(30_030 * MS), 2, Nanos(30_010 * MS), None),
            ReplyKind::Fresh { .. }
        ));
        assert_eq!(
            p.handle_reply(Nanos(30_031 * MS), 2, Nanos(30_010 * MS), None),
            ReplyKind::Duplicate
        );
        assert!(p.is_done());
        let c = p.counters();
        assert_eq!(
            (c.sent, c.answered, c.lost, c.late, c.duplicates),
            (3, 2, 1, 1, 2)
        );
        assert_eq!(p.volleys()[0].one_way(), Some(Nanos(5 * MS)));
    }

    #[test]
    fn a_reply_of_another_length_is_foreign_and_the_volley_still_waits() {
        let mut p = Probe::new(cfg(
            1,
            Pacing::Interval {
                interval_ns: Nanos(MS),
            },
        ))
        .unwrap();
        let t = p.poll_transmit(Nanos(0)).unwrap();
        assert_eq!(
            p.handle_reply_of_length(Nanos(MS), 0, Nanos(0), None, t.length + 1),
            ReplyKind::Foreign
        );
        assert!(!p.is_done());
        assert_eq!(p.counters().foreign, 1);
        assert!(matches!(
            p.handle_reply_of_length(Nanos(2 * MS), 0, Nanos(0), None, t.length),
            ReplyKind::Fresh { .. }
        ));
        assert!(p.is_done());
    }

    #[test]
    fn paced_volleys_overlap_and_reordering_is_seen() {
        let mut p = Probe::new(cfg(
            3,
            Pacing::Interval {
                interval_ns: Nanos(MS),
            },
        ))
        .unwrap();
        assert_eq!(p.poll_transmit(Nanos(0)).unwrap().seq, 0);
        assert_eq!(p.poll_transmit(Nanos(MS / 2)), None);
        assert_eq!(p.poll_at(), Some(Nanos(MS)));
        assert_eq!(p.poll_transmit(Nanos(MS)).unwrap().seq, 1);
        assert_eq!(p.poll_transmit(Nanos(2 * MS)).unwrap().seq, 2);
        assert!(matches!(
            p.handle_reply(Nanos(5 * MS), 1, Nanos(MS), None),
            ReplyKind::Fresh {
                reordered: false,
                ..
            }
        ));
        assert!(matches!(
            p.handle_reply(Nanos(6 * MS), 0, Nanos(0), None),
            ReplyKind::Fresh {
                reordered: true,
                ..
            }
        ));
        assert_eq!(
            p.handle_reply(Nanos(6 * MS), 2, Nanos(123), None),
            ReplyKind::Foreign,
            "wrong echoed stamp"
        );
        assert_eq!(
            p.handle_reply(Nanos(6 * MS), 99, Nanos(0), None),
            ReplyKind::Foreign
        );
        assert_eq!(p.counters().reordered, 1);
    }

    #[test]
    fn a_reply_after_the_deadline_is_late_even_before_the_timeout_is_handled() {
        let mut c = cfg(
            1,
            Pacing::OneInFlight {
                gap_ns: Nanos::ZERO,
            },
        );
        c.timeout = Nanos(100 * MS);
        let mut p = Probe::new(c).unwrap();
        p.poll_transmit(Nanos(0)).unwrap();
        assert_eq!(
            p.handle_reply(Nanos(100 * MS), 0, Nanos(0), None),
            ReplyKind::Late
        );
        assert!(p.volleys()[0].lost);
        assert!(p.is_done());
    }
}
