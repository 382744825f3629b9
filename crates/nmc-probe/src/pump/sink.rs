//! The server's side of the pump: take each message, throw its data away, and answer it with a
//! RFNM once the whole of it has arrived (K&O §II: the destination IMP returns the RFNM when the
//! message is reassembled and handed to the host). No I/O and no clock reads: the socket drivers
//! in [`super::net`] give it datagrams, frames and the time.
//!
//! Over UDP a message may be several datagrams; the sink keeps, per source address and session,
//! which packets of each unfinished message have arrived (a 64-bit mask, no data), and answers
//! when the mask is full. A retransmitted message is reassembled and answered again: the RFNM may
//! be what was lost. Everything it keeps is bounded: [`SinkConfig::max_sources`] sources (the
//! least recently heard is forgotten first) and [`SinkConfig::max_partial`] unfinished messages
//! each (the oldest is forgotten first).
//!
//! Every message answered is also placed in its sender's sequence by a [`Delivery`] window, so
//! the counters say how many arrived in order, out of order, or again.

use super::wire::{self, FrameError, Header, Kind};
use crate::time::Nanos;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;

/// Bounds on what the UDP sink keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SinkConfig {
    /// Sources (address and session) tracked at once. Default 4096.
    pub max_sources: usize,
    /// Unfinished UDP messages kept per source. Default 64.
    pub max_partial: usize,
}

impl Default for SinkConfig {
    fn default() -> Self {
        SinkConfig {
            max_sources: 4096,
            max_partial: 64,
        }
    }
}

/// What the sink did, by kind. `datagrams` counts UDP datagrams and `frames` TCP frames; each
/// either joined a message or landed in one drop counter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SinkCounters {
    /// UDP datagrams taken, dropped ones included.
    pub datagrams: u64,
    /// TCP frame headers read, dropped ones included.
    pub frames: u64,
    /// Messages answered with a RFNM (including repeats of a message answered before).
    pub rfnms: u64,
    /// First arrivals of a message in its sender's sequence order.
    pub in_order: u64,
    /// First arrivals of a message after a later one.
    pub out_of_order: u64,
    /// Messages that arrived whole again (retransmissions).
    pub duplicates: u64,
    /// Data bytes of first arrivals.
    pub bytes: u64,
    /// Dropped as shorter than the 28-byte header.
    pub truncated: u64,
    /// Dropped as not pump DATA: bad magic, a malformed header, another kind, or a size the header
    /// rules out.
    pub malformed: u64,
    /// Dropped for a version other than [`wire::VERSION`].
    pub bad_version: u64,
    /// A packet whose message length or packet count disagrees with earlier packets of its message.
    pub inconsistent: u64,
    /// UDP pump datagrams dropped because the server has a secret and their tag was missing or
    /// wrong ([`super::wire::open`]).
    pub unauthenticated: u64,
    /// TCP connections accepted, and refused (the gate's caps, or out of descriptors).
    pub connections: u64,
    /// TCP connections refused.
    pub connections_refused: u64,
    /// Reverse runs (`nmc pump -R`) this server was asked for, served or refused.
    pub reverse_runs: u64,
}

impl SinkCounters {
    /// Everything dropped: truncated, malformed, bad version, inconsistent and unauthenticated.
    pub fn dropped(&self) -> u64 {
        self.truncated
            + self.malformed
            + self.bad_version
            + self.inconsistent
            + self.unauthenticated
    }
    /// Adds `o`'s counts to these, field by field.
    pub fn add(&mut self, o: &SinkCounters) {
        self.datagrams += o.datagrams;
        self.frames += o.frames;
        self.rfnms += o.rfnms;
        self.in_order += o.in_order;
        self.out_of_order += o.out_of_order;
        self.duplicates += o.duplicates;
        self.bytes += o.bytes;
        self.truncated += o.truncated;
        self.malformed += o.malformed;
        self.bad_version += o.bad_version;
        self.inconsistent += o.inconsistent;
        self.unauthenticated += o.unauthenticated;
        self.connections += o.connections;
        self.connections_refused += o.connections_refused;
        self.reverse_runs += o.reverse_runs;
    }
    fn note_drop(&mut self, r: PumpDrop) {
        match r {
            PumpDrop::Truncated => self.truncated += 1,
            PumpDrop::Malformed => self.malformed += 1,
            PumpDrop::BadVersion => self.bad_version += 1,
            PumpDrop::Inconsistent => self.inconsistent += 1,
        }
    }
    fn note_delivery(&mut self, d: Delivered, bytes: u32) {
        self.rfnms += 1;
        match d {
            Delivered::InOrder => self.in_order += 1,
            Delivered::OutOfOrder => self.out_of_order += 1,
            Delivered::Duplicate => self.duplicates += 1,
        }
        if d != Delivered::Duplicate {
            self.bytes += u64::from(bytes);
        }
    }
}

impl fmt::Display for SinkCounters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "pump: datagrams {} frames {} rfnms {} (in order {}, out of order {}, again {}) bytes {} dropped {} (truncated {}, malformed {}, bad-version {}, inconsistent {}, unauthenticated {}) tcp connections {} refused {} reverse runs {}",
            self.datagrams,
            self.frames,
            self.rfnms,
            self.in_order,
            self.out_of_order,
            self.duplicates,
            self.bytes,
            self.dropped(),
            self.truncated,
            self.malformed,
            self.bad_version,
            self.inconsistent,
            self.unauthenticated,
            self.connections,
            self.connections_refused,
            self.reverse_runs,
        )
    }
}

/// Why a pump frame was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PumpDrop {
    /// Shorter than the 28-byte header.
    Truncated,
    /// Not well-formed DATA: bad magic, a malformed header, another kind, or a size the header
    /// rules out.
    Malformed,
    /// A version other than [`wire::VERSION`].
    BadVersion,
    /// A message length or packet count that disagrees with earlier packets of the same message.
    Inconsistent,
}

impl From<FrameError> for PumpDrop {
    fn from(e: FrameError) -> Self {
        match e {
            FrameError::Truncated(_) => PumpDrop::Truncated,
            FrameError::BadVersion(_) => PumpDrop::BadVersion,
            FrameError::BadMagic | FrameError::Malformed => PumpDrop::Malformed,
        }
    }
}

/// The sink's answer to one datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SinkVerdict {
    /// The message is whole: send this RFNM back to the source.
    Rfnm([u8; wire::HEADER_LEN]),
    /// A packet of a message still incomplete.
    Pending,
    /// Not taken, and why.
    Drop(PumpDrop),
}

/// Where a message fell in its sender's sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivered {
    /// The lowest sequence number not yet delivered.
    InOrder,
    /// A first arrival ahead of a lower number still missing.
    OutOfOrder,
    /// A number delivered before (or skipped when the window slid past it).
    Duplicate,
}

/// Which sequence numbers have arrived: all below `next`, and those marked in a 64-wide window
/// above it (the sliding window of IPsec's anti-replay check, RFC 4303 §3.4.3, turned to count
/// order rather than to refuse). A number more than 64 ahead slides the window up to it; numbers
/// skipped that way count as duplicates if they come later (64 messages reordered past one
/// another is far outside what the pump's window allows).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Delivery {
    next: u64,
    /// Bit i: `next + 1 + i` has arrived.
    above: u64,
}

impl Delivery {
    /// Places `seq` in the sequence and says where it fell.
    pub fn deliver(&mut self, seq: u64) -> Delivered {
        if seq < self.next {
            return Delivered::Duplicate;
        }
        if seq == self.next {
            self.next += 1;
            while self.above & 1 == 1 {
                self.above >>= 1;
                self.next += 1;
            }
            self.above >>= 1;
            return Delivered::InOrder;
        }
        let mut off = seq - self.next - 1;
        if off >= 64 {
            let shift = off - 63;
            self.next += shift;
            self.above = if shift >= 64 { 0 } else { self.above >> shift };
            off = 63;
        }
        if self.above & (1 << off) != 0 {
            return Delivered::Duplicate;
        }
        self.above |= 1 << off;
        Delivered::OutOfOrder
    }
    /// The lowest sequence number not yet delivered.
    pub fn next(&self) -> u64 {
        self.next
    }
}

#[derive(Debug, Clone, Copy)]
struct Partial {
    seq: u64,
    length: u32,
    count: u16,
    mask: u64,
}

#[derive(Debug)]
struct Source {
    delivery: Delivery,
    partial: Vec<Partial>,
    last_heard: Nanos,
}

/// The UDP sink: reassembly state and counters.
#[derive(Debug)]
pub struct SinkCore {
    cfg: SinkConfig,
    sources: BTreeMap<(SocketAddr, u32), Source>,
    counters: SinkCounters,
}

impl SinkCore {
    /// An empty sink bounded by `cfg`.
    pub fn new(cfg: SinkConfig) -> SinkCore {
        SinkCore {
            cfg,
            sources: BTreeMap::new(),
            counters: SinkCounters::default(),
        }
    }
    /// The counts so far.
    pub fn counters(&self) -> SinkCounters {
        self.counters
    }
    /// Sources (address and session) tracked now.
    pub fn tracked_sources(&self) -> usize {
        self.sources.len()
    }
    /// Counts a datagram dropped unread because the server requires a secret.
    pub fn note_unauthenticated(&mut self) {
        self.counters.datagrams += 1;
        self.counters.unauthenticated += 1;
    }

    /// Takes one UDP datagram that starts with the pump's magic, from `src` at `now`.
    pub fn handle_datagram(&mut self, now: Nanos, src: SocketAddr, pkt: &[u8]) -> SinkVerdict {
        self.counters.datagrams += 1;
        let v = self.decide(now, src, pkt);
        if let SinkVerdict::Drop(r) = v {
            self.counters.note_drop(r);
        }
        v
    }

    fn decide(&mut self, now: Nanos, src: SocketAddr, pkt: &[u8]) -> SinkVerdict {
        let h = match Header::decode(pkt) {
            Ok(h) => h,
            Err(e) => return SinkVerdict::Drop(e.into()),
        };
        if h.kind != Kind::Data
            || src.port() == 0
            || !wire::plausible_data(&h, pkt.len() - wire::HEADER_LEN)
        {
            return SinkVerdict::Drop(PumpDrop::Malformed);
        }
        let key = (src, h.session);
        if !self.sources.contains_key(&key) && self.sources.len() >= self.cfg.max_sources {
            // Forget the source heard from longest ago.
            if let Some(old) = self
                .sources
                .iter()
                .min_by_key(|(_, s)| s.last_heard)
                .map(|(k, _)| *k)
            {
                self.sources.remove(&old);
            }
        }
        let max_partial = self.cfg.max_partial.max(1);
        let s = self.sources.entry(key).or_insert(Source {
            delivery: Delivery::default(),
            partial: Vec::new(),
            last_heard: now,
        });
        s.last_heard = now;
        if h.count > 1 {
            let at = match s.partial.iter().position(|p| p.seq == h.seq) {
                Some(i) => i,
                None => {
                    if s.partial.len() >= max_partial {
                        s.partial.remove(0);
                    }
                    s.partial.push(Partial {
                        seq: h.seq,
                        length: h.length,
                        count: h.count,
                        mask: 0,
                    });
                    s.partial.len() - 1
                }
            };
            let p = &mut s.partial[at];
            if p.length != h.length || p.count != h.count {
                return SinkVerdict::Drop(PumpDrop::Inconsistent);
            }
            p.mask |= 1 << h.index;
            let full = if p.count == 64 {
                u64::MAX
            } else {
                (1u64 << p.count) - 1
            };
            if p.mask != full {
                return SinkVerdict::Pending;
            }
            s.partial.remove(at);
        }
        let d = s.delivery.deliver(h.seq);
        self.counters.note_delivery(d, h.length);
        SinkVerdict::Rfnm(h.rfnm().encode())
    }
}

/// One TCP connection's sink: checks each frame's header and places its message in sequence.
/// The driver reads the header, asks [`TcpSink::header`] whether to go on, reads and discards
/// `length` bytes, then calls [`TcpSink::complete`] and sends the RFNM it returns.
#[derive(Debug, Default)]
pub struct TcpSink {
    delivery: Delivery,
    /// What this connection's frames were, so far.
    pub counters: SinkCounters,
}

impl TcpSink {
    /// Checks a frame header; on `Err` the driver closes the connection (a byte stream cannot be
    /// resynchronised after a bad frame). A message longer than any pump sends
    /// ([`super::sender::MAX_SIZE`]) is refused here, at its header (issue 74 §4: a length of
    /// 0xFFFFFFFF was read to its end, 4 GiB of a slot's time).
    pub fn header(&mut self, b: &[u8]) -> Result<Header, PumpDrop> {
        self.counters.frames += 1;
        let r = match Header::decode(b) {
            Ok(h)
                if h.kind == Kind::Data
                    && h.count == 1
                    && h.length > 0
                    && h.length <= super::sender::MAX_SIZE =>
            {
                Ok(h)
            }
            Ok(_) => Err(PumpDrop::Malformed),
            Err(e) => Err(e.into()),
        };
        if let Err(d) = r {
            self.counters.note_drop(d);
        }
        r
    }
    /// The message of `h` has been read whole: the RFNM to send.
    pub fn complete(&mut self, h: &Header) -> [u8; wire::HEADER_LEN] {
        let d = self.delivery.deliver(h.seq);
        self.counters.note_delivery(d, h.length);
        h.rfnm().encode()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn src(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    fn datagram(seq: u64, length: u32, count: u16, index: u16, data: usize) -> Vec<u8> {
        let mut b = Header {
            kind: Kind::Data,
            session: 7,
            seq,
            length,
            index,
            count,
        }
        .encode()
        .to_vec();
        b.resize(b.len() + data, 0xa5);
        b
    }

    #[test]
    fn delivery_window_counts_order_and_repeats() {
        let mut d = Delivery::default();
        use Delivered::*;
        assert_eq!(d.deliver(0), InOrder);
        assert_eq!(d.deliver(2), OutOfOrder);
        assert_eq!(d.deliver(2), Duplicate);
        assert_eq!(d.deliver(1), InOrder);
        assert_eq!(d.next(), 3);
        assert_eq!(d.deliver(0), Duplicate);
        assert_eq!(d.deliver(200), OutOfOrder);
        assert_eq!(d.next(), 200 - 64);
        assert_eq!(d.deliver(200), Duplicate);
    }

    #[test]
    fn a_multipacket_message_is_answered_once_whole() {
        let mut s = SinkCore::new(SinkConfig::default());
        let now = Nanos(1);
        // 300 bytes in 3 packets of 126, 126, 48; packets arrive 2, 0, 0 (again), 1.
        assert_eq!(
            s.handle_datagram(now, src(9), &datagram(0, 300, 3, 2, 48)),
            SinkVerdict::Pending
        );
        assert_eq!(
            s.handle_datagram(now, src(9), &datagram(0, 300, 3, 0, 126)),
            SinkVerdict::Pending
        );
        assert_eq!(
            s.handle_datagram(now, src(9), &datagram(0, 300, 3, 0, 126)),
            SinkVerdict::Pending
        );
        let SinkVerdict::Rfnm(r) = s.handle_datagram(now, src(9), &datagram(0, 300, 3, 1, 126))
        else {
            panic!("no RFNM")
        };
        let h = Header::decode(&r).unwrap();
        assert_eq!(
            (h.kind, h.seq, h.length, h.session),
            (Kind::Rfnm, 0, 300, 7)
        );
        // A packet that disagrees about its message is dropped.
        s.handle_datagram(now, src(9), &datagram(1, 300, 3, 0, 126));
        assert_eq!(
            s.handle_datagram(now, src(9), &datagram(1, 400, 4, 1, 126)),
            SinkVerdict::Drop(PumpDrop::Inconsistent)
        );
        // A retransmitted one-packet message is answered again and counted as a repeat.
        for _ in 0..2 {
            assert!(matches!(
                s.handle_datagram(now, src(9), &datagram(5, 10, 1, 0, 10)),
                SinkVerdict::Rfnm(_)
            ));
        }
        let c = s.counters();
        assert_eq!(
            (c.rfnms, c.in_order, c.out_of_order, c.duplicates),
            (3, 1, 1, 1)
        );
        assert_eq!(c.inconsistent, 1);
        assert_eq!(c.bytes, 310);
    }

    #[test]
    fn state_is_bounded() {
        let cfg = SinkConfig {
            max_sources: 3,
            max_partial: 2,
        };
        let mut s = SinkCore::new(cfg);
        for p in 1..=10 {
            for seq in 0..5 {
                s.handle_datagram(Nanos(p as u64), src(p), &datagram(seq, 20, 2, 0, 10));
            }
        }
        assert_eq!(s.tracked_sources(), 3);
        assert!(s.sources.values().all(|x| x.partial.len() <= 2));
    }

    #[test]
    fn tcp_frames_are_checked() {
        let mut t = TcpSink::default();
        assert!(t.header(&datagram(0, 10, 1, 0, 0)).is_ok());
        assert_eq!(
            t.header(&datagram(0, 10, 2, 0, 0)),
            Err(PumpDrop::Malformed)
        );
        assert_eq!(t.header(b"NMCe...."), Err(PumpDrop::Truncated));
        // Issue 74 §4: a length past the largest message is refused at the header.
        let most = super::super::sender::MAX_SIZE;
        assert!(t.header(&datagram(0, most, 1, 0, 0)).is_ok());
        for too_long in [most + 1, u32::MAX] {
            assert_eq!(
                t.header(&datagram(0, too_long, 1, 0, 0)),
                Err(PumpDrop::Malformed)
            );
        }
        let h = t.header(&datagram(0, 10, 1, 0, 0)).unwrap();
        t.complete(&h);
        assert_eq!(t.counters.in_order, 1);
    }

    proptest! {
        #[test]
        fn arbitrary_datagrams_never_panic_or_amplify(
            bytes in proptest::collection::vec(any::<u8>(), 0..200),
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
            let mut s = SinkCore::new(SinkConfig::default());
            if let SinkVerdict::Rfnm(r) = s.handle_datagram(Nanos(1), src(5), &bytes) {
                prop_assert!(r.len() < bytes.len());
            }
            let c = s.counters();
            prop_assert!(c.rfnms + c.dropped() <= c.datagrams);
        }
    }
}
