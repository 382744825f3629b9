//! The echo server's protocol core: given a datagram and the time, decide whether to answer, and
//! count why not. No I/O, no clock: [`crate::udp::EchoServer`] is the socket driver.
//!
//! # How to drive it
//!
//! For each datagram received at time `rx` (monotonic) and `rx_unix` (wall clock):
//! 1. [`ServerCore::handle_datagram`] → [`Verdict`]. On [`Verdict::Drop`] do nothing more; the
//!    reason has been counted.
//! 2. On [`Verdict::Reply`], call [`ServerCore::seal_reply`] with the same buffer and the time
//!    just before sending, then send the buffer, unchanged in length, back to the source.
//! 3. Read [`ServerCore::counters`] whenever a summary is wanted.
//!
//! # Rules, in the order they are applied
//!
//! 1. Source port 0 cannot be answered: malformed.
//! 2. Longer than `max_payload`: oversized (the driver reads into a buffer larger than any UDP
//!    payload, so a long datagram is seen whole and never silently truncated).
//! 3. Structure ([`crate::wire::decode`]): truncated, bad magic / flags (malformed), bad version.
//! 4. REPLY flag set: malformed. The server never answers a reply, so two servers (or a server and
//!    a classic port-7 echo service) cannot be set ping-ponging against each other.
//! 5. With a secret required: untagged → unauthenticated; tag fails → bad tag. Checked before the
//!    rate limit so that forged packets carrying a victim's address cannot spend its tokens.
//!    Then freshness ([`crate::wire`]'s, issue 57 §2): a send time further than
//!    [`wire::FRESHNESS`] from the server's clock, or older than what it has had to forget, →
//!    stale; a request it has already answered → replayed. A captured request, replayed from
//!    any address, is answered nowhere.
//! 6. Rate: a token bucket per source address (not per port: a flood from many ports of one host is
//!    one source), then a global bucket over all sources. Either empty: rate-limited.
//! 7. Otherwise reply, with exactly the request's length: the server is never an amplifier.
//!
//! The requests answered with a secret are remembered until their send time is more than
//! [`wire::FRESHNESS`] behind the server's clock, at most [`MAX_REMEMBERED`] of them: past that
//! the oldest is forgotten and nothing sent at or before its time is answered any more, so a
//! forgotten request cannot be replayed either.
//!
//! The per-source table holds at most `max_sources` entries; when full it first forgets sources
//! whose bucket has refilled (idle ones), and if none has, new sources share one overflow bucket.

use crate::time::Nanos;
use crate::wire::{self, Key, WireError};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::net::{IpAddr, SocketAddr};

/// Most answered requests remembered against replay. **Choice**: 131,072 (some 6 MB), above
/// the default global rate's worst case (2000/s for the 60 s a request stays fresh, and the
/// 4000 of the burst: 124,000); beyond it freshness tightens rather than memory growing.
pub const MAX_REMEMBERED: usize = 131_072;

/// A requester unanswered this long starts its count again ([`wire::reply_count`]): a later
/// run from the same port is a new one. **Choice**: 60 s, far above any probe's spacing.
pub const COUNT_FORGET: Nanos = Nanos(60_000_000_000);

/// Limits of the server. Every number is a parameter; the defaults are judgements, stated here.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Largest UDP payload answered, bytes. Default 1472: one Ethernet MTU (1500) less IPv4 and UDP headers.
    pub max_payload: usize,
    /// Replies per second allowed to one source address. Default 100: the default probe sends at
    /// most one volley per 10 ms (its `--gap`), so it is never refused; a flood is.
    pub rate_per_source: f64,
    /// Bucket depth per source (replies that may go out back to back). Default 200.
    pub burst_per_source: f64,
    /// Replies per second over all sources together. Default 2000.
    pub global_rate: f64,
    /// Depth of the global bucket. Default 4000.
    pub global_burst: f64,
    /// Most sources tracked individually. Default 4096.
    pub max_sources: usize,
    /// Drop requests that carry no valid tag. True when a secret is given to the CLI.
    pub require_tag: bool,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_payload: 1472,
            rate_per_source: 100.0,
            burst_per_source: 200.0,
            global_rate: 2000.0,
            global_burst: 4000.0,
            max_sources: 4096,
            require_tag: false,
        }
    }
}

/// What the server did with each datagram, by reason. Every datagram lands in exactly one of
/// `replied`, `send_errors` or a drop counter, so `received` is their sum.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ServerCounters {
    /// Datagrams handed to the core.
    pub received: u64,
    /// Datagrams answered, less those the socket then failed to send.
    pub replied: u64,
    /// Dropped as shorter than the packet header.
    pub truncated: u64,
    /// Dropped as longer than `max_payload`.
    pub oversized: u64,
    /// Dropped as malformed: source port 0, bad magic or flags, or a reply.
    pub malformed: u64,
    /// Dropped for an unsupported packet version.
    pub bad_version: u64,
    /// Dropped for carrying no tag when a secret is required.
    pub unauthenticated: u64,
    /// Dropped for a tag that does not verify.
    pub bad_tag: u64,
    /// Dropped, with a secret, for a send time too far from the server's clock.
    pub stale: u64,
    /// Dropped, with a secret, as a copy of a request already answered.
    pub replayed: u64,
    /// Dropped because the source's or the global token bucket was empty.
    pub rate_limited: u64,
    /// Replies the socket refused to send (counted by the driver, included in `replied`'s complement).
    pub send_errors: u64,
    /// What the pump sink did (with `--pump`; zeros otherwise). Not part of `received`.
    pub pump: crate::pump::sink::SinkCounters,
}

impl ServerCounters {
    /// Datagrams dropped, every reason together (send errors not included).
    pub fn dropped(&self) -> u64 {
        self.truncated
            + self.oversized
            + self.malformed
            + self.bad_version
            + self.unauthenticated
            + self.bad_tag
            + self.stale
            + self.replayed
            + self.rate_limited
    }
}

impl fmt::Display for ServerCounters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "received {} replied {} dropped {} (truncated {}, oversized {}, malformed {}, bad-version {}, unauthenticated {}, bad-tag {}, stale {}, replayed {}, rate-limited {}) send-errors {}",
            self.received,
            self.replied,
            self.dropped(),
            self.truncated,
            self.oversized,
            self.malformed,
            self.bad_version,
            self.unauthenticated,
            self.bad_tag,
            self.stale,
            self.replayed,
            self.rate_limited,
            self.send_errors
        )
    }
}

/// Why a datagram was not answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// Shorter than the packet header.
    Truncated,
    /// Longer than `max_payload`.
    Oversized,
    /// Source port 0, bad magic, unknown flags or a non-zero reserved field, or the REPLY flag set.
    Malformed,
    /// A packet version this server does not speak.
    BadVersion,
    /// No tag, and a secret is required.
    Unauthenticated,
    /// A tag that does not verify with the server's secret.
    BadTag,
    /// With a secret: a send time further than [`wire::FRESHNESS`] from the server's clock, or
    /// at or before the last one it had to forget.
    Stale,
    /// With a secret: a request the server has already answered (a replay).
    Replayed,
    /// The source's token bucket, or the global one, is empty.
    RateLimited,
}

/// The core's decision about one datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Answer: seal the reply with [`ServerCore::seal_reply`] and send it.
    Reply,
    /// Do not answer, for this reason (already counted).
    Drop(DropReason),
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    last: Nanos,
}

impl Bucket {
    fn full(depth: f64, now: Nanos) -> Bucket {
        Bucket {
            tokens: depth,
            last: now,
        }
    }
    fn refill(&mut self, now: Nanos, rate: f64, depth: f64) {
        let dt = now.saturating_sub(self.last).as_secs_f64();
        self.tokens = (self.tokens + dt * rate).min(depth);
        self.last = self.last.max(now);
    }
    fn try_take(&mut self, now: Nanos, rate: f64, depth: f64) -> bool {
        self.refill(now, rate, depth);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// The echo server's state: configuration, secret, buckets and counters.
#[derive(Debug)]
pub struct ServerCore {
    cfg: ServerConfig,
    key: Option<Key>,
    sources: BTreeMap<IpAddr, Bucket>,
    overflow: Option<Bucket>,
    global: Option<Bucket>,
    counters: ServerCounters,
    /// Requests answered with a secret, by send time and tag, until they are stale.
    answered: BTreeSet<(u64, [u8; wire::TAG_LEN])>,
    /// Send time of the latest request forgotten for want of room: none at or before it is
    /// answered.
    forgotten: u64,
    /// `rx` of the request being answered, for the turnaround stamp.
    pending_rx: Nanos,
    pending_rx_unix: u64,
    /// Requests answered from each address and port, and when it was last answered (at most
    /// `max_sources` of them; a new one past that takes the place of the one answered longest
    /// ago): each reply carries its requester's count ([`wire::reply_count`]).
    answered_from: BTreeMap<SocketAddr, (u64, Nanos)>,
    /// The count the reply being made carries.
    pending_count: u64,
}

impl ServerCore {
    /// A server with `cfg` and, if given, the secret it re-tags replies with (and requires, if
    /// `cfg.require_tag`).
    pub fn new(cfg: ServerConfig, key: Option<Key>) -> ServerCore {
        ServerCore {
            cfg,
            key,
            sources: BTreeMap::new(),
            overflow: None,
            global: None,
            counters: ServerCounters::default(),
            answered: BTreeSet::new(),
            forgotten: 0,
            pending_rx: Nanos::ZERO,
            pending_rx_unix: 0,
            answered_from: BTreeMap::new(),
            pending_count: 0,
        }
    }

    /// The server's limits.
    pub fn config(&self) -> &ServerConfig {
        &self.cfg
    }
    /// The counts so far.
    pub fn counters(&self) -> ServerCounters {
        self.counters
    }
    /// Sources currently tracked individually.
    pub fn tracked_sources(&self) -> usize {
        self.sources.len()
    }
    /// The driver could not send a reply the core had approved.
    pub fn note_send_error(&mut self) {
        self.counters.replied = self.counters.replied.saturating_sub(1);
        self.counters.send_errors += 1;
    }

    /// Decides about `pkt`, received from `src` at monotonic time `rx` and wall-clock `rx_unix_ns`.
    pub fn handle_datagram(
        &mut self,
        rx: Nanos,
        rx_unix_ns: u64,
        src: SocketAddr,
        pkt: &[u8],
    ) -> Verdict {
        self.counters.received += 1;
        let verdict = self.decide(rx, rx_unix_ns, src, pkt);
        match verdict {
            Verdict::Reply => {
                self.counters.replied += 1;
                self.pending_rx = rx;
                self.pending_rx_unix = rx_unix_ns;
                self.pending_count = self.count_answered(src, rx);
            }
            Verdict::Drop(reason) => {
                let c = &mut self.counters;
                match reason {
                    DropReason::Truncated => c.truncated += 1,
                    DropReason::Oversized => c.oversized += 1,
                    DropReason::Malformed => c.malformed += 1,
                    DropReason::BadVersion => c.bad_version += 1,
                    DropReason::Unauthenticated => c.unauthenticated += 1,
                    DropReason::BadTag => c.bad_tag += 1,
                    DropReason::Stale => c.stale += 1,
                    DropReason::Replayed => c.replayed += 1,
                    DropReason::RateLimited => c.rate_limited += 1,
                }
            }
        }
        verdict
    }

    fn decide(&mut self, rx: Nanos, rx_unix_ns: u64, src: SocketAddr, pkt: &[u8]) -> Verdict {
        use DropReason::*;
        if src.port() == 0 {
            return Verdict::Drop(Malformed);
        }
        if pkt.len() > self.cfg.max_payload {
            return Verdict::Drop(Oversized);
        }
        let header = match wire::decode(pkt) {
            Ok(h) => h,
            Err(WireError::Truncated { .. }) => return Verdict::Drop(Truncated),
            Err(WireError::BadVersion(_)) => return Verdict::Drop(BadVersion),
            Err(_) => return Verdict::Drop(Malformed),
        };
        if header.is_reply() {
            return Verdict::Drop(Malformed);
        }
        let mut fresh = None;
        if self.cfg.require_tag {
            match &self.key {
                Some(key) => match wire::verify(pkt, &header, key) {
                    Ok(()) => {}
                    Err(WireError::Untagged) => return Verdict::Drop(Unauthenticated),
                    Err(_) => return Verdict::Drop(BadTag),
                },
                None => return Verdict::Drop(Unauthenticated),
            }
            let id = (header.server_rx_unix_ns, tag_of(pkt));
            if let Some(why) = self.unfresh(rx_unix_ns, id) {
                return Verdict::Drop(why);
            }
            fresh = Some(id);
        }
        if !self.take_token(rx, src.ip()) {
            return Verdict::Drop(RateLimited);
        }
        if let Some(id) = fresh {
            self.remember(id);
        }
        Verdict::Reply
    }

    /// Why a tagged request `id` (its send time and tag) received at `now_unix` is not fresh, if
    /// it is not; forgets what has gone stale.
    fn unfresh(&mut self, now_unix: u64, id: (u64, [u8; wire::TAG_LEN])) -> Option<DropReason> {
        let w = u64::try_from(wire::FRESHNESS.as_nanos()).unwrap_or(u64::MAX);
        while let Some(first) = self.answered.first()
            && first.0.saturating_add(w) < now_unix
        {
            self.answered.pop_first();
        }
        let sent = id.0;
        if sent.abs_diff(now_unix) > w || sent <= self.forgotten {
            return Some(DropReason::Stale);
        }
        if self.answered.contains(&id) {
            return Some(DropReason::Replayed);
        }
        None
    }

    /// Remembers an answered request; past [`MAX_REMEMBERED`], forgets the oldest and answers
    /// nothing sent at or before it any more.
    fn remember(&mut self, id: (u64, [u8; wire::TAG_LEN])) {
        self.answered.insert(id);
        while self.answered.len() > MAX_REMEMBERED {
            if let Some((sent, _)) = self.answered.pop_first() {
                self.forgotten = self.forgotten.max(sent);
            }
        }
    }

    fn take_token(&mut self, now: Nanos, ip: IpAddr) -> bool {
        let (rate, depth) = (self.cfg.rate_per_source, self.cfg.burst_per_source);
        if !self.sources.contains_key(&ip) && self.sources.len() >= self.cfg.max_sources {
            // Forget sources whose bucket would be full again: they have been idle long enough.
            self.sources.retain(|_, b| {
                let mut b2 = *b;
                b2.refill(now, rate, depth);
                b2.tokens < depth
            });
        }
        let per_source_ok =
            if self.sources.len() < self.cfg.max_sources || self.sources.contains_key(&ip) {
                self.sources
                    .entry(ip)
                    .or_insert_with(|| Bucket::full(depth, now))
                    .try_take(now, rate, depth)
            } else {
                self.overflow
                    .get_or_insert_with(|| Bucket::full(depth, now))
                    .try_take(now, rate, depth)
            };
        if !per_source_ok {
            return false;
        }
        let (grate, gdepth) = (self.cfg.global_rate, self.cfg.global_burst);
        self.global
            .get_or_insert_with(|| Bucket::full(gdepth, now))
            .try_take(now, grate, gdepth)
    }

    /// One more request answered from `src` at `now`; its count so far. The table is bounded:
    /// a new requester when it is full takes the place of the one answered longest ago.
    fn count_answered(&mut self, src: SocketAddr, now: Nanos) -> u64 {
        if !self.answered_from.contains_key(&src)
            && self.answered_from.len() >= self.cfg.max_sources.max(1)
            && let Some(oldest) = self
                .answered_from
                .iter()
                .min_by_key(|(a, (_, t))| (*t, **a))
                .map(|(a, _)| *a)
        {
            self.answered_from.remove(&oldest);
        }
        let e = self.answered_from.entry(src).or_insert((0, now));
        // A requester silent this long is a new one (a port used again by another run).
        if now.saturating_sub(e.1) > COUNT_FORGET {
            e.0 = 0;
        }
        e.0 += 1;
        e.1 = now;
        e.0
    }

    /// Requests remembered against replay now.
    pub fn remembered(&self) -> usize {
        self.answered.len()
    }

    /// Turns the approved request in `pkt` into its reply, in place and of the same length,
    /// stamping the turnaround from the request's receive time to `tx` (monotonic, just before the
    /// send) and re-tagging with the server's secret.
    pub fn seal_reply(&self, pkt: &mut [u8], tx: Nanos) {
        let turnaround = u32::try_from(tx.saturating_sub(self.pending_rx).0).unwrap_or(u32::MAX);
        wire::seal_reply(
            pkt,
            self.pending_rx_unix,
            turnaround,
            self.pending_count,
            self.key.as_ref(),
        );
    }
}

/// The last [`wire::TAG_LEN`] bytes of a tagged packet (decoded, so at least that long).
fn tag_of(pkt: &[u8]) -> [u8; wire::TAG_LEN] {
    let mut t = [0u8; wire::TAG_LEN];
    t.copy_from_slice(&pkt[pkt.len() - wire::TAG_LEN..]);
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{FLAG_REPLY, encode_request};
    use proptest::prelude::*;

    fn src(last: u8) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, last], 40000))
    }

    fn request(len: usize, key: Option<&Key>) -> Vec<u8> {
        let mut b = vec![0u8; len];
        encode_request(&mut b, len, 3, 77, key).unwrap();
        b
    }

    fn key() -> Key {
        Key::new(b"a-secret-of-sixteen-or-more").unwrap()
    }

    #[test]
    fn answers_a_good_request_with_the_same_length() {
        let mut s = ServerCore::new(ServerConfig::default(), None);
        let mut pkt = request(100, None);
        assert_eq!(
            s.handle_datagram(Nanos(1000), 5, src(1), &pkt),
            Verdict::Reply
        );
        s.seal_reply(&mut pkt, Nanos(1500));
        let h = wire::decode(&pkt).unwrap();
        assert!(h.is_reply());
        assert_eq!(h.server_turnaround_ns, 500);
        assert_eq!(h.server_rx_unix_ns, 5);
        assert_eq!(pkt.len(), 100);
    }

    #[test]
    fn each_bad_packet_lands_in_its_own_counter() {
        let k = key();
        let cfg = ServerConfig {
            max_payload: 200,
            require_tag: true,
            ..ServerConfig::default()
        };
        let mut s = ServerCore::new(cfg, Some(k.clone()));
        let good = request(64, Some(&k));
        let now = Nanos(0);
        let wall = crate::time::unix_now_ns();
        let d = |s: &mut ServerCore, p: &[u8]| s.handle_datagram(now, wall, src(1), p);
        assert_eq!(d(&mut s, &good[..20]), Verdict::Drop(DropReason::Truncated));
        assert_eq!(d(&mut s, &[0u8; 300]), Verdict::Drop(DropReason::Oversized));
        assert_eq!(d(&mut s, &[0u8; 64]), Verdict::Drop(DropReason::Malformed));
        let mut v2 = good.clone();
        v2[4] = 9;
        assert_eq!(d(&mut s, &v2), Verdict::Drop(DropReason::BadVersion));
        let mut reply = good.clone();
        reply[5] |= FLAG_REPLY;
        assert_eq!(d(&mut s, &reply), Verdict::Drop(DropReason::Malformed));
        assert_eq!(
            d(&mut s, &request(64, None)),
            Verdict::Drop(DropReason::Unauthenticated)
        );
        let mut forged = good.clone();
        forged[50] ^= 0x55;
        assert_eq!(d(&mut s, &forged), Verdict::Drop(DropReason::BadTag));
        assert_eq!(d(&mut s, &good), Verdict::Reply);
        assert_eq!(
            s.handle_datagram(now, 0, SocketAddr::from(([127, 0, 0, 1], 0)), &good),
            Verdict::Drop(DropReason::Malformed)
        );
        let c = s.counters();
        assert_eq!(c.received, 9);
        assert_eq!(c.replied, 1);
        assert_eq!(
            (
                c.truncated,
                c.oversized,
                c.malformed,
                c.bad_version,
                c.unauthenticated,
                c.bad_tag
            ),
            (1, 1, 3, 1, 1, 1)
        );
        assert_eq!(c.received, c.replied + c.dropped());
    }

    /// Issue 57 §2: a tagged request is answered once, near its send time: a copy of it, from
    /// any address, is dropped as replayed, and one sent too long ago (or ahead) as stale.
    #[test]
    fn a_tagged_request_is_answered_once_and_only_while_fresh() {
        let k = key();
        let cfg = ServerConfig {
            require_tag: true,
            ..ServerConfig::default()
        };
        let mut s = ServerCore::new(cfg, Some(k.clone()));
        let t = 1_700_000_000_000_000_000u64;
        let w = wire::FRESHNESS.as_nanos() as u64;
        let at = |seq: u32, sent: u64| {
            let mut b = vec![0u8; 64];
            wire::encode_request_at(&mut b, 64, seq, 77, sent, Some(&k)).unwrap();
            b
        };
        let good = at(1, t);
        assert_eq!(
            s.handle_datagram(Nanos(1), t + 5, src(1), &good),
            Verdict::Reply
        );
        for from in [src(2), src(1)] {
            assert_eq!(
                s.handle_datagram(Nanos(2), t + 10, from, &good),
                Verdict::Drop(DropReason::Replayed)
            );
        }
        assert_eq!(
            s.handle_datagram(Nanos(3), t + w + 1_000, src(3), &at(2, t)),
            Verdict::Drop(DropReason::Stale)
        );
        assert_eq!(
            s.handle_datagram(Nanos(3), t, src(3), &at(3, t + w + 1_000)),
            Verdict::Drop(DropReason::Stale)
        );
        // Within the window either way: answered.
        assert_eq!(
            s.handle_datagram(Nanos(4), t + w, src(3), &at(4, t + 1)),
            Verdict::Reply
        );
        // What went stale is forgotten; a copy of it is still refused, by its time.
        assert_eq!(s.remembered(), 1);
        assert_eq!(
            s.handle_datagram(Nanos(5), t + 3 * w, src(2), &good),
            Verdict::Drop(DropReason::Stale)
        );
        assert_eq!(s.remembered(), 0);
        let c = s.counters();
        assert_eq!((c.replied, c.replayed, c.stale), (2, 2, 3));
        assert_eq!(c.received, c.replied + c.dropped());
        assert!(c.to_string().contains("stale 3, replayed 2"), "{c}");
    }

    /// Past [`MAX_REMEMBERED`] the oldest answered request is forgotten, and nothing sent at or
    /// before it is answered any more: a forgotten request cannot be replayed either.
    #[test]
    fn forgetting_for_room_tightens_freshness() {
        let k = key();
        let cfg = ServerConfig {
            require_tag: true,
            global_rate: f64::MAX,
            global_burst: f64::MAX,
            rate_per_source: f64::MAX,
            burst_per_source: f64::MAX,
            ..ServerConfig::default()
        };
        let mut s = ServerCore::new(cfg, Some(k.clone()));
        let t = 1_700_000_000_000_000_000u64;
        let mut b = vec![0u8; 48];
        let mut first = Vec::new();
        for i in 0..=MAX_REMEMBERED as u64 {
            wire::encode_request_at(&mut b, 48, i as u32, 0, t + i, Some(&k)).unwrap();
            if i == 0 {
                first = b.clone();
            }
            assert_eq!(s.handle_datagram(Nanos(1), t, src(1), &b), Verdict::Reply);
        }
        assert_eq!(s.remembered(), MAX_REMEMBERED);
        assert_eq!(
            s.handle_datagram(Nanos(1), t, src(2), &first),
            Verdict::Drop(DropReason::Stale)
        );
    }

    #[test]
    fn token_bucket_limits_one_source_not_another() {
        let cfg = ServerConfig {
            rate_per_source: 10.0,
            burst_per_source: 5.0,
            ..ServerConfig::default()
        };
        let mut s = ServerCore::new(cfg, None);
        let pkt = request(64, None);
        let t0 = Nanos(1_000_000_000);
        let replies = (0..20)
            .filter(|_| s.handle_datagram(t0, 0, src(1), &pkt) == Verdict::Reply)
            .count();
        assert_eq!(replies, 5, "burst");
        assert_eq!(s.handle_datagram(t0, 0, src(2), &pkt), Verdict::Reply);
        // 10/s refills one token per 100 ms.
        assert_eq!(
            s.handle_datagram(Nanos(t0.0 + 100_000_000), 0, src(1), &pkt),
            Verdict::Reply
        );
        assert_eq!(
            s.handle_datagram(Nanos(t0.0 + 100_000_000), 0, src(1), &pkt),
            Verdict::Drop(DropReason::RateLimited)
        );
        assert_eq!(s.counters().rate_limited, 16);
    }

    #[test]
    fn global_bucket_caps_many_sources() {
        let cfg = ServerConfig {
            global_rate: 1.0,
            global_burst: 3.0,
            ..ServerConfig::default()
        };
        let mut s = ServerCore::new(cfg, None);
        let pkt = request(64, None);
        let replies = (1..=10u8)
            .filter(|&i| s.handle_datagram(Nanos(0), 0, src(i), &pkt) == Verdict::Reply)
            .count();
        assert_eq!(replies, 3);
    }

    #[test]
    fn source_table_is_bounded() {
        let cfg = ServerConfig {
            max_sources: 4,
            rate_per_source: 1.0,
            burst_per_source: 1.0,
            ..ServerConfig::default()
        };
        let mut s = ServerCore::new(cfg, None);
        let pkt = request(64, None);
        for i in 1..=10u8 {
            s.handle_datagram(Nanos(0), 0, src(i), &pkt);
        }
        assert_eq!(s.tracked_sources(), 4);
        // Sources 5..10 shared one overflow bucket of depth 1.
        assert_eq!(s.counters().replied, 5);
        // Two seconds later every bucket is full again, so a new source evicts idle ones.
        assert_eq!(
            s.handle_datagram(Nanos(2_000_000_000), 0, src(11), &pkt),
            Verdict::Reply
        );
        assert_eq!(s.tracked_sources(), 1);
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic_and_never_amplify(
            bytes in proptest::collection::vec(any::<u8>(), 0..400),
            magic in any::<bool>(),
        ) {
            let mut bytes = bytes;
            if magic && bytes.len() >= 8 {
                bytes[0..4].copy_from_slice(&wire::MAGIC);
                bytes[4] = wire::VERSION;
                bytes[5] &= 0x03;
                bytes[6] = 0;
                bytes[7] = 0;
            }
            let mut s = ServerCore::new(ServerConfig::default(), Some(key()));
            let len = bytes.len();
            if s.handle_datagram(Nanos(1), 1, src(1), &bytes) == Verdict::Reply {
                s.seal_reply(&mut bytes, Nanos(2));
                prop_assert_eq!(bytes.len(), len);
                let h = wire::decode(&bytes).unwrap();
                prop_assert!(h.is_reply());
            }
            let c = s.counters();
            prop_assert_eq!(c.received, c.replied + c.dropped());
        }
    }

    /// Issue 75 §5: each reply carries how many requests the server has answered from that
    /// address and port, this one included; another port of the same host counts apart, and a
    /// reply too short to hold the count carries none.
    #[test]
    fn replies_carry_the_count_answered_from_their_requester() {
        let mut s = ServerCore::new(ServerConfig::default(), None);
        let other_port = SocketAddr::from(([127, 0, 0, 1], 40001));
        let count = |s: &mut ServerCore, from: SocketAddr, len: usize| {
            let mut p = request(len, None);
            assert_eq!(s.handle_datagram(Nanos(5), 9, from, &p), Verdict::Reply);
            s.seal_reply(&mut p, Nanos(6));
            wire::reply_count(&p, &wire::decode(&p).unwrap())
        };
        assert_eq!(count(&mut s, src(1), 64), Some(1));
        assert_eq!(count(&mut s, src(1), 64), Some(2));
        assert_eq!(count(&mut s, other_port, 64), Some(1));
        assert_eq!(count(&mut s, src(1), 32), None, "no room: a 32-byte reply");
        assert_eq!(count(&mut s, src(1), 40), Some(4));
    }
}
