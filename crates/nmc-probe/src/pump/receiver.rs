//! The client's side of `nmc pump --reverse`: the receiving core. The server sends the messages
//! (it runs [`super::sender::Pump`]); this takes them, answers each with its RFNM once it is
//! whole (as the server's [`super::sink`] does in the forward direction) and records, for each
//! message, when its first byte and its last arrived here. No I/O and no clock reads: the
//! drivers in [`super::reverse`] hand it the bytes and the time.
//!
//! - [`TcpReceiver`]: a byte stream in, frame by frame: DATA (answered with a RFNM), and the
//!   server's ERROR or RESULT at the end. A message's data is counted and dropped as it comes,
//!   never held; only a RESULT (at most [`wire::MAX_RESULT`] bytes) is kept whole.
//! - [`UdpReceiver`]: datagrams in, reassembled by [`SinkCore`] (a mask of the packets seen,
//!   no data), plus each unfinished message's first arrival, bounded like the sink's state.
//!
//! Either hands out a [`Received`] for each message the first time it is whole, in the order
//! they became whole; repeats (a retransmission over UDP) are answered again and counted.

use super::sink::{SinkConfig, SinkCore, SinkCounters, SinkVerdict, TcpSink};
use super::wire::{self, Header, Kind};
use crate::time::Nanos;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use thiserror::Error;

/// Why a reverse run cannot go on: the server sent something that is not part of it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReceiveError {
    /// A frame the client does not expect: not a pump frame, another session's, a malformed DATA
    /// frame, or a kind only a client sends; the string says which.
    #[error("the server sent a frame that is not part of a reverse pump ({0})")]
    Unexpected(&'static str),
    /// An ERROR or RESULT announcing a body longer than allowed.
    #[error("the server's {what} of {length} bytes is longer than the {max} allowed")]
    TooLong {
        /// Which frame: `error` or `result`.
        what: &'static str,
        /// The body length announced, bytes.
        length: u32,
        /// The most allowed, bytes: [`wire::MAX_ERROR`] or [`wire::MAX_RESULT`].
        max: u32,
    },
}

/// One message as the receiver saw it (times on the receiver's clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Received {
    /// The message's sequence number.
    pub seq: u64,
    /// Data bytes in the message.
    pub bytes: u32,
    /// Arrival of its first byte (TCP) or first datagram (UDP).
    pub first: Nanos,
    /// When it was whole and its RFNM was handed to the driver.
    pub whole: Nanos,
    /// Datagrams of it that arrived (repeats included) until it was whole; 1 over TCP.
    pub packets: u32,
}

/// What the server said besides its messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Control {
    /// Its request refused, or its run failed: one line.
    Error(String),
    /// The sender's figures (JSON, [`super::reverse`]).
    Result(Vec<u8>),
}

/// What the client counted on its side, for `summary.json`'s `receiver` and the report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ReceiverFigures {
    /// Messages whole (each counted once).
    pub messages: u64,
    /// Their data bytes.
    pub bytes: u64,
    /// Of them, whole within the offering time of the first arrival.
    pub messages_in_run: u64,
    /// Their data bits over the offering time: the throughput the receiver saw.
    pub throughput_bps: f64,
    /// First arrivals in the sender's order, after a later message, and repeats.
    pub in_order: u64,
    /// First arrivals ahead of an earlier message still missing.
    pub out_of_order: u64,
    /// Messages that arrived whole again (repeats).
    pub duplicates: u64,
    /// Datagrams (UDP) or frames (TCP) taken, and those dropped as malformed.
    pub datagrams: u64,
    /// TCP frames taken.
    pub frames: u64,
    /// Datagrams or frames dropped: truncated, malformed, another version or session, inconsistent,
    /// unauthenticated.
    pub dropped: u64,
}

/// Running counts of what arrived, for [`ReceiverFigures`]: constant state.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReceiverTally {
    start: Option<Nanos>,
    messages: u64,
    bytes: u64,
    in_run: u64,
    bits_in_run: u64,
}

impl ReceiverTally {
    /// A message whole, in the order they became whole.
    pub fn add(&mut self, r: &Received, duration: Nanos) {
        self.add_after(r, Nanos::ZERO, duration);
    }

    /// [`ReceiverTally::add`] for a run whose first `omit` (`-O`) is a warm-up: a message whole
    /// within it, from the first arrival, is counted but not in the run.
    pub fn add_after(&mut self, r: &Received, omit: Nanos, duration: Nanos) {
        let start = *self.start.get_or_insert(r.first);
        self.messages += 1;
        self.bytes += u64::from(r.bytes);
        if super::window::in_run(r.whole.saturating_sub(start), omit, duration) {
            self.in_run += 1;
            self.bits_in_run += 8 * u64::from(r.bytes);
        }
    }

    /// Messages whole so far.
    pub fn messages(&self) -> u64 {
        self.messages
    }

    /// The first arrival of the run (the receiver's time 0).
    pub fn start(&self) -> Option<Nanos> {
        self.start
    }

    /// The figures, with the sink's counts.
    pub fn figures(&self, duration: Nanos, c: &SinkCounters) -> ReceiverFigures {
        let secs = duration.as_secs_f64();
        ReceiverFigures {
            messages: self.messages,
            bytes: self.bytes,
            messages_in_run: self.in_run,
            throughput_bps: if secs > 0.0 {
                self.bits_in_run as f64 / secs
            } else {
                0.0
            },
            in_order: c.in_order,
            out_of_order: c.out_of_order,
            duplicates: c.duplicates,
            datagrams: c.datagrams,
            frames: c.frames,
            dropped: c.dropped(),
        }
    }
}

#[derive(Debug)]
enum State {
    /// Reading a header: the bytes so far.
    Header {
        buf: [u8; wire::HEADER_LEN],
        got: usize,
    },
    /// Reading a DATA frame's message: bytes still to come.
    Data { h: Header, left: u32, first: Nanos },
    /// Reading an ERROR or RESULT's body.
    Control {
        kind: Kind,
        body: Vec<u8>,
        left: u32,
    },
}

/// The TCP receiver: one connection's byte stream, frame by frame.
#[derive(Debug)]
pub struct TcpReceiver {
    session: u32,
    sink: TcpSink,
    state: State,
    finished: VecDeque<Received>,
    /// RFNMs to write, in order; the driver writes them and drains what was taken.
    pub out: Vec<u8>,
}

impl TcpReceiver {
    /// A receiver for the server's frames of `session`.
    pub fn new(session: u32) -> Self {
        TcpReceiver {
            session,
            sink: TcpSink::default(),
            state: State::Header {
                buf: [0; wire::HEADER_LEN],
                got: 0,
            },
            finished: VecDeque::new(),
            out: Vec::new(),
        }
    }

    /// The counts of frames, RFNMs, order, repeats and drops so far.
    pub fn counters(&self) -> SinkCounters {
        self.sink.counters
    }

    /// The next message whole since the last call.
    pub fn pop(&mut self) -> Option<Received> {
        self.finished.pop_front()
    }

    /// Takes bytes that arrived at `now`. Returns the server's ERROR or RESULT when one is whole
    /// (the bytes after it, if any, are not read: it is the server's last frame).
    pub fn handle(&mut self, now: Nanos, mut b: &[u8]) -> Result<Option<Control>, ReceiveError> {
        while !b.is_empty() {
            match &mut self.state {
                State::Header { buf, got } => {
                    let k = (wire::HEADER_LEN - *got).min(b.len());
                    buf[*got..*got + k].copy_from_slice(&b[..k]);
                    *got += k;
                    b = &b[k..];
                    if *got < wire::HEADER_LEN {
                        continue;
                    }
                    let buf = *buf;
                    let h = Header::decode(&buf)
                        .map_err(|_| ReceiveError::Unexpected("not an nmc pump frame"))?;
                    if h.session != self.session {
                        return Err(ReceiveError::Unexpected("another session's"));
                    }
                    self.state = match h.kind {
                        Kind::Data => {
                            self.sink
                                .header(&buf)
                                .map_err(|_| ReceiveError::Unexpected("a malformed DATA frame"))?;
                            State::Data {
                                h,
                                left: h.length,
                                first: now,
                            }
                        }
                        Kind::Error | Kind::Result => {
                            let (what, max) = if h.kind == Kind::Error {
                                ("error", wire::MAX_ERROR)
                            } else {
                                ("result", wire::MAX_RESULT)
                            };
                            if h.length > max {
                                return Err(ReceiveError::TooLong {
                                    what,
                                    length: h.length,
                                    max,
                                });
                            }
                            State::Control {
                                kind: h.kind,
                                body: Vec::with_capacity(h.length.min(1 << 16) as usize),
                                left: h.length,
                            }
                        }
                        _ => return Err(ReceiveError::Unexpected("a frame a client sends")),
                    };
                }
                State::Data { left, .. } => {
                    let k = (*left as usize).min(b.len());
                    *left -= k as u32;
                    b = &b[k..];
                }
                State::Control { body, left, .. } => {
                    let k = (*left as usize).min(b.len());
                    body.extend_from_slice(&b[..k]);
                    *left -= k as u32;
                    b = &b[k..];
                }
            }
            // A frame just finished?
            match &mut self.state {
                State::Data { h, left: 0, first } => {
                    let (h, first) = (*h, *first);
                    let before = self.sink.counters.duplicates;
                    self.out.extend_from_slice(&self.sink.complete(&h));
                    if self.sink.counters.duplicates == before {
                        self.finished.push_back(Received {
                            seq: h.seq,
                            bytes: h.length,
                            first,
                            whole: now,
                            packets: 1,
                        });
                    }
                    self.next_header();
                }
                State::Control {
                    kind,
                    body,
                    left: 0,
                } => {
                    let (kind, body) = (*kind, std::mem::take(body));
                    self.next_header();
                    return Ok(Some(if kind == Kind::Error {
                        Control::Error(String::from_utf8_lossy(&body).trim().to_string())
                    } else {
                        Control::Result(body)
                    }));
                }
                _ => {}
            }
        }
        Ok(None)
    }

    fn next_header(&mut self) {
        self.state = State::Header {
            buf: [0; wire::HEADER_LEN],
            got: 0,
        };
    }
}

/// Most unfinished UDP messages whose first arrival is kept. **Choice**: the largest window
/// ([`super::sender::MAX_OUTSTANDING`]) and the sink's partial messages besides; past it the
/// oldest is forgotten (its row then starts at a later packet).
const MAX_FIRSTS: usize = super::sender::MAX_OUTSTANDING as usize + 64;

/// The UDP receiver: the datagrams of one session from one server.
#[derive(Debug)]
pub struct UdpReceiver {
    session: u32,
    from: SocketAddr,
    sink: SinkCore,
    /// seq → (first arrival, datagrams so far) of messages not yet whole.
    firsts: BTreeMap<u64, (Nanos, u32)>,
    finished: VecDeque<Received>,
}

impl UdpReceiver {
    /// For `session`'s datagrams from `from` (the server's address).
    pub fn new(session: u32, from: SocketAddr) -> Self {
        UdpReceiver {
            session,
            from,
            sink: SinkCore::new(SinkConfig {
                max_sources: 1,
                max_partial: SinkConfig::default().max_partial,
            }),
            firsts: BTreeMap::new(),
            finished: VecDeque::new(),
        }
    }

    /// The counts of datagrams, RFNMs, order, repeats and drops so far.
    pub fn counters(&self) -> SinkCounters {
        self.sink.counters()
    }

    /// The next message whole since the last call.
    pub fn pop(&mut self) -> Option<Received> {
        self.finished.pop_front()
    }

    /// Takes one datagram that arrived at `now`; returns the RFNM to send, if it made a
    /// message whole. Another session's datagrams and anything not DATA are dropped and
    /// counted.
    pub fn handle_datagram(&mut self, now: Nanos, pkt: &[u8]) -> Option<[u8; wire::HEADER_LEN]> {
        let seq = match Header::decode(pkt) {
            Ok(h) if h.kind == Kind::Data && h.session == self.session => h.seq,
            _ => {
                // Counted as the sink counts junk.
                let _ = self.sink.handle_datagram(now, self.from, &[]);
                return None;
            }
        };
        let before = self.sink.counters().duplicates;
        let v = self.sink.handle_datagram(now, self.from, pkt);
        if matches!(v, SinkVerdict::Drop(_)) {
            return None;
        }
        if !self.firsts.contains_key(&seq) && self.firsts.len() >= MAX_FIRSTS {
            self.firsts.pop_first();
        }
        let e = self.firsts.entry(seq).or_insert((now, 0));
        e.1 += 1;
        let SinkVerdict::Rfnm(rfnm) = v else {
            return None;
        };
        let (first, packets) = self.firsts.remove(&seq).unwrap_or((now, 1));
        if self.sink.counters().duplicates == before {
            self.finished.push_back(Received {
                seq,
                bytes: Header::decode(pkt).map_or(0, |h| h.length),
                first,
                whole: now,
                packets,
            });
        }
        Some(rfnm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(session: u32, seq: u64, length: u32, index: u16, count: u16, n: usize) -> Vec<u8> {
        let mut b = Header {
            kind: Kind::Data,
            session,
            seq,
            length,
            index,
            count,
        }
        .encode()
        .to_vec();
        b.resize(b.len() + n, 0);
        b
    }

    #[test]
    fn tcp_frames_in_any_cut_give_rfnms_records_and_the_result() {
        let mut stream = Vec::new();
        for seq in 0..3 {
            stream.extend(data(9, seq, 100, 0, 1, 100));
        }
        stream.extend_from_slice(&wire::control(Kind::Result, 9, 2));
        stream.extend_from_slice(b"{}");
        for cut in [1, 7, 28, 29, 1000] {
            let mut r = TcpReceiver::new(9);
            let mut got = None;
            for (i, c) in stream.chunks(cut).enumerate() {
                if let Some(x) = r.handle(Nanos(i as u64), c).unwrap() {
                    got = Some(x);
                }
            }
            assert_eq!(got, Some(Control::Result(b"{}".to_vec())), "cut {cut}");
            assert_eq!(r.out.len(), 3 * wire::HEADER_LEN);
            let seqs: Vec<u64> = std::iter::from_fn(|| r.pop()).map(|m| m.seq).collect();
            assert_eq!(seqs, vec![0, 1, 2]);
            assert_eq!(r.counters().in_order, 3);
        }
    }

    #[test]
    fn tcp_junk_and_oversized_bodies_are_errors() {
        let mut r = TcpReceiver::new(9);
        assert!(r.handle(Nanos(0), &[0u8; 40]).is_err());
        let mut r = TcpReceiver::new(9);
        assert!(r.handle(Nanos(0), &data(8, 0, 10, 0, 1, 10)).is_err());
        let mut r = TcpReceiver::new(9);
        let e = r
            .handle(
                Nanos(0),
                &wire::control(Kind::Error, 9, wire::MAX_ERROR + 1),
            )
            .unwrap_err();
        assert!(e.to_string().contains("longer than"));
        let mut r = TcpReceiver::new(9);
        let mut b = wire::control(Kind::Error, 9, 4).to_vec();
        b.extend_from_slice(b"no\n ");
        assert_eq!(
            r.handle(Nanos(0), &b).unwrap(),
            Some(Control::Error("no".into()))
        );
    }

    #[test]
    fn udp_messages_are_reassembled_timed_from_their_first_datagram_and_counted_once() {
        let from = SocketAddr::from(([127, 0, 0, 1], 8890));
        let mut r = UdpReceiver::new(5, from);
        assert!(
            r.handle_datagram(Nanos(1), &data(5, 0, 20, 1, 2, 10))
                .is_none()
        );
        assert!(
            r.handle_datagram(Nanos(2), &data(6, 0, 20, 0, 2, 10))
                .is_none()
        );
        assert!(
            r.handle_datagram(Nanos(3), &data(5, 0, 20, 0, 2, 10))
                .is_some()
        );
        // A repeat is answered again, not recorded again.
        r.handle_datagram(Nanos(4), &data(5, 0, 20, 0, 2, 10));
        assert!(
            r.handle_datagram(Nanos(5), &data(5, 0, 20, 1, 2, 10))
                .is_some()
        );
        let m = r.pop().unwrap();
        assert_eq!(
            (m.seq, m.bytes, m.first, m.whole, m.packets),
            (0, 20, Nanos(1), Nanos(3), 2)
        );
        assert_eq!(r.pop(), None);
        let c = r.counters();
        assert_eq!((c.in_order, c.duplicates), (1, 1));
        assert!(c.dropped() >= 1);
    }

    #[test]
    fn the_tally_counts_the_run_from_the_first_arrival() {
        let mut t = ReceiverTally::default();
        let m = |first, whole| Received {
            seq: 0,
            bytes: 100,
            first: Nanos(first),
            whole: Nanos(whole),
            packets: 1,
        };
        for (f, w) in [(10, 20), (20, 110), (30, 111)] {
            t.add(&m(f, w), Nanos(100));
        }
        let f = t.figures(Nanos(100), &SinkCounters::default());
        assert_eq!((f.messages, f.messages_in_run, f.bytes), (3, 2, 300));
        assert_eq!(f.throughput_bps, 1600.0 / 100e-9);
    }
}
