//! Frames: each buffer goes as a 17-byte header and its payload; the sink answers a header
//! that asks for it with a 12-byte acknowledgement. Big-endian.
//!
//! ```text
//! buffer: "N508" | seq u64 | payload length u32 | flags u8 (bit 0: acknowledge) | payload
//! ack:    "A508" | seq u64
//! tally?: "N508" | buffers sent u64 | 0 u32 | flags u8 (bit 1: tally) — UDP, at the end
//! tally:  "T508" | buffers this source's address delivered u64
//! arrivals?: "Q508" | buffers sent u64 | 21 zero bytes — UDP, at the end
//! arrivals:  "U508" | delivered u64 | out of order u64 | jitter ns u64 (u64::MAX: none)
//! mark:      "I508" | mark u64 | 40 zero bytes — UDP, at the end of each -i interval
//! marked:    "J508" | mark u64 | delivered u64 | expected u64 | out of order u64
//!            | jitter ns u64 (u64::MAX: none)
//! ```
//!
//! Over TCP (issue 75 §1) a forward stream with `-i` opens with [`pace`], a header of no
//! payload with flag bit 3 whose number is the interval in ns; the sink then counts what it
//! reads per interval of its own clock and writes back [`binned`] ("K508" | interval u32 |
//! buffers u32) when a buffer is read in a later interval that follows one with buffers, and
//! [`last_bin`] ("L508" | interval u32 | buffers u32 | length µs u32) at the stream's end.
//!
//! Marks (issue 75 §1): a forward UDP stream with `-i` sends a mark after the last buffer of
//! each interval, on the buffers' socket, so it reaches the sink in line with them (twice,
//! back to back, so that one lost costs nothing; the sink answers each); the sink
//! answers at once with what has arrived from that address so far (the figures of
//! [`super::arrivals::Arrivals`], and the buffers the highest sequence number says were sent).
//! The sender takes two answers' difference as the receiver's side of the interval: buffers
//! received and their rate, lost by sequence numbers, out of order, and the jitter at its end,
//! as a reverse run's lines give. The sink keeps nothing per mark (its running figures per
//! address it keeps already), and the answer (44 bytes) is shorter than the mark (52). A sink
//! from before marks counts one as a bad frame and does not answer; the sender then gives its
//! own side only, as before.
//!
//! The tally (issue 33): over UDP without acknowledgements the sender cannot see a lost
//! buffer; at the end it asks the sink how many of its buffers arrived. The answer is shorter
//! than the question, so the sink amplifies nothing.
//!
//! Arrivals (issue 58 §5): over UDP each buffer of 8 payload bytes or more carries its send
//! time, ns on the sender's clock, in its first 8 payload bytes, and says so by flag bit 2
//! ([`stamp`]); the receiver keeps RFC 3550's jitter and the out-of-order count
//! ([`super::arrivals`]). The sender asks for them with the longer request above (33 bytes, so
//! the 28-byte answer amplifies nothing either); a sink that does not know it gives no answer,
//! and the sender then asks for the plain tally.
//!
//! `nmc stream --reverse` (the sink sends, as iperf3 `-R`): the client opens the TCP connection
//! and asks; the sink then sends buffer frames as above and the client acknowledges them when
//! they ask. Over UDP the buffers and acknowledgements go by datagram between the sink's port
//! and the socket the client's HELLO came from (only from the TCP connection's IP address), and
//! the rest stays on the TCP connection.
//!
//! ```text
//! request: "R508" | rate bit/s u64 | buffer bits u64 | duration ns u64 | ack timeout ns u64
//!          | io timeout ns u64 | flags u8 (bit 0: acknowledge, bit 1: UDP, bit 2: bulk source,
//!          bit 3: no per-buffer records, bit 4: a warm-up follows) | token u64
//!          [| warm-up ns u64, with bit 4]
//!          — client → sink, first frame on the TCP connection
//! hello:   "H508" | token u64 — client → sink over UDP, until the first buffer comes
//! error:   "E508" | length u32 | one line of UTF-8 (at most MAX_ERROR) — sink → client, then closes
//! result:  "S508" | length u32 | JSON (at most MAX_RESULT): the sender's run and its buffers
//! stop:    "X508" | 0 u64 — client → sink: stop now (the client's Ctrl-C); the result follows
//! ```
//!
//! With a shared secret, a UDP buffer carries [`TAG`] more bytes at its end: the first 16 bytes
//! of HMAC-SHA256(secret, header | payload), as the echo server's datagrams do
//! (`nmc_probe::wire`); the sink drops and counts a datagram without a valid one. Over TCP the
//! secret is proved once, by the gate's handshake (`nmc_serve::auth`), before the first frame.

/// First bytes of a buffer's header (and of a tally request).
pub const MAGIC: [u8; 4] = *b"N508";
/// First bytes of an acknowledgement.
pub const ACK_MAGIC: [u8; 4] = *b"A508";
/// First bytes of the sink's tally.
pub const TALLY_MAGIC: [u8; 4] = *b"T508";
/// Bytes of a buffer's header.
pub const HEADER: usize = 17;
/// Flag bit of a tally request.
const TALLY_FLAG: u8 = 2;
/// Bytes of an acknowledgement (and of a tally, a HELLO and a stop frame).
pub const ACK: usize = 12;
/// Largest UDP payload (65535 − 8 UDP − 20 IPv4).
pub const UDP_MAX: usize = 65_507;
/// Bytes of a UDP buffer's tag, with a secret.
pub const TAG: usize = 16;
/// Largest buffer over TCP, bytes. **Choice**: 16 MiB, far above any real-time buffer.
pub const TCP_MAX: usize = 16 << 20;

/// The header of buffer `seq` with `len` payload bytes.
pub fn header(seq: u64, len: u32, ack: bool) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[..4].copy_from_slice(&MAGIC);
    h[4..12].copy_from_slice(&seq.to_be_bytes());
    h[12..16].copy_from_slice(&len.to_be_bytes());
    h[16] = ack as u8;
    h
}

/// (seq, payload length, acknowledge) of a header, or None if it is not one.
pub fn parse_header(h: &[u8]) -> Option<(u64, u32, bool)> {
    if h.len() < HEADER || h[..4] != MAGIC {
        return None;
    }
    let seq = u64::from_be_bytes(h[4..12].try_into().ok()?);
    let len = u32::from_be_bytes(h[12..16].try_into().ok()?);
    Some((seq, len, h[16] & 1 == 1))
}

/// Flag bit of a buffer whose first 8 payload bytes are its send time ([`stamp`]).
const TIMED_FLAG: u8 = 4;

/// Marks the frame `f` (a header and at least 8 payload bytes) as sent at `sent_ns` on the
/// sender's clock; a shorter frame is left as it is.
pub fn stamp(f: &mut [u8], sent_ns: u64) {
    if f.len() >= HEADER + 8 {
        f[16] |= TIMED_FLAG;
        f[HEADER..HEADER + 8].copy_from_slice(&sent_ns.to_be_bytes());
    }
}

/// The send time of a stamped buffer's frame `f`, ns on the sender's clock.
pub fn sent_ns(f: &[u8]) -> Option<u64> {
    (f.len() >= HEADER + 8 && f[..4] == MAGIC && f[16] & TIMED_FLAG != 0)
        .then(|| u64::from_be_bytes(f[HEADER..HEADER + 8].try_into().unwrap()))
}

/// First bytes of the request for arrivals, and of the answer.
pub const ARRIVALS_MAGIC: [u8; 4] = *b"Q508";
/// First bytes of the sink's arrivals.
pub const ARRIVALS_ANSWER_MAGIC: [u8; 4] = *b"U508";
/// Bytes of a request for arrivals.
pub const ARRIVALS_REQUEST: usize = 33;
/// Bytes of the answer.
pub const ARRIVALS_ANSWER: usize = 28;
// The answer amplifies nothing: it is never longer than the question.
const _: () = assert!(ARRIVALS_ANSWER <= ARRIVALS_REQUEST);

/// The request for the arrivals of `sent` buffers.
pub fn arrivals_request(sent: u64) -> [u8; ARRIVALS_REQUEST] {
    let mut r = [0u8; ARRIVALS_REQUEST];
    r[..4].copy_from_slice(&ARRIVALS_MAGIC);
    r[4..12].copy_from_slice(&sent.to_be_bytes());
    r
}

/// Whether `d` is a request for arrivals.
pub fn is_arrivals_request(d: &[u8]) -> bool {
    d.len() == ARRIVALS_REQUEST && d[..4] == ARRIVALS_MAGIC
}

/// The sink's answer: what arrived from the asker's address.
pub fn arrivals_answer(a: &super::arrivals::Arrivals) -> [u8; ARRIVALS_ANSWER] {
    let mut r = [0u8; ARRIVALS_ANSWER];
    r[..4].copy_from_slice(&ARRIVALS_ANSWER_MAGIC);
    r[4..12].copy_from_slice(&a.received.to_be_bytes());
    r[12..20].copy_from_slice(&a.out_of_order.to_be_bytes());
    r[20..28].copy_from_slice(&a.jitter_ns().unwrap_or(u64::MAX).to_be_bytes());
    r
}

/// (delivered, out of order, jitter ns) of an answer, or None if the bytes are not one.
pub fn parse_arrivals(a: &[u8]) -> Option<(u64, u64, Option<u64>)> {
    if a.len() < ARRIVALS_ANSWER || a[..4] != ARRIVALS_ANSWER_MAGIC {
        return None;
    }
    let at = |i: usize| u64::from_be_bytes(a[i..i + 8].try_into().unwrap());
    let j = at(20);
    Some((at(4), at(12), (j != u64::MAX).then_some(j)))
}

/// First bytes of an interval's mark, and of the sink's answer.
pub const MARK_MAGIC: [u8; 4] = *b"I508";
/// First bytes of the sink's answer to a mark.
pub const MARKED_MAGIC: [u8; 4] = *b"J508";
/// Bytes of a mark.
pub const MARK: usize = 52;
/// Bytes of the answer.
pub const MARKED: usize = 44;
// The answer amplifies nothing.
const _: () = assert!(MARKED <= MARK);

/// The mark that ends interval `mark` (from 0).
pub fn mark(mark: u64) -> [u8; MARK] {
    let mut r = [0u8; MARK];
    r[..4].copy_from_slice(&MARK_MAGIC);
    r[4..12].copy_from_slice(&mark.to_be_bytes());
    r
}

/// The number of a mark, or None if `d` is not one.
pub fn parse_mark(d: &[u8]) -> Option<u64> {
    (d.len() == MARK && d[..4] == MARK_MAGIC)
        .then(|| u64::from_be_bytes(d[4..12].try_into().unwrap()))
}

/// What the receiver had seen when a mark came: buffers delivered, the buffers the highest
/// sequence number says were sent, out of order, RFC 3550's jitter (ns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marked {
    /// The mark answered.
    pub mark: u64,
    /// Buffers received so far.
    pub received: u64,
    /// The highest sequence number so far, plus one.
    pub expected: u64,
    /// Buffers so far that arrived after a later one.
    pub out_of_order: u64,
    /// RFC 3550's running jitter, ns; `None` before two timed buffers.
    pub jitter_ns: Option<u64>,
}

/// The sink's answer to mark `mark`: `a`, what arrived from the marker's address so far.
pub fn marked(mark: u64, a: &super::arrivals::Arrivals) -> [u8; MARKED] {
    let mut r = [0u8; MARKED];
    r[..4].copy_from_slice(&MARKED_MAGIC);
    for (i, v) in [
        mark,
        a.received,
        a.expected(),
        a.out_of_order,
        a.jitter_ns().unwrap_or(u64::MAX),
    ]
    .into_iter()
    .enumerate()
    {
        r[4 + 8 * i..12 + 8 * i].copy_from_slice(&v.to_be_bytes());
    }
    r
}

/// An answer to a mark, or None if the bytes are not one.
pub fn parse_marked(d: &[u8]) -> Option<Marked> {
    if d.len() != MARKED || d[..4] != MARKED_MAGIC {
        return None;
    }
    let at = |i: usize| u64::from_be_bytes(d[4 + 8 * i..12 + 8 * i].try_into().unwrap());
    Some(Marked {
        mark: at(0),
        received: at(1),
        expected: at(2),
        out_of_order: at(3),
        jitter_ns: Some(at(4)).filter(|&j| j != u64::MAX),
    })
}

/// Flag bit of a forward TCP stream's first frame asking for the sink's lines by its clock
/// (issue 75 §1): a buffer header of no payload whose number is the interval, ns ([`pace`]).
const PACE_FLAG: u8 = 8;
/// First bytes of the sink's line for a whole interval over TCP.
pub const BINNED_MAGIC: [u8; 4] = *b"K508";
/// First bytes of the sink's line for the last, shorter interval over TCP.
pub const LAST_BIN_MAGIC: [u8; 4] = *b"L508";
/// Bytes of the sink's last line.
pub const LAST_BIN: usize = 16;

/// A forward TCP stream's first frame with `-i`: the sink is asked for its lines every
/// `every_ns` by its clock, from this frame's arrival. An older sink takes it for a buffer of
/// no bytes (its count grows by one) and answers nothing.
pub fn pace(every_ns: u64) -> [u8; HEADER] {
    let mut h = header(every_ns, 0, false);
    h[16] = PACE_FLAG;
    h
}

/// The interval of a [`pace`] frame, ns, or None if `h` is not one.
pub fn parse_pace(h: &[u8]) -> Option<u64> {
    match parse_header(h) {
        Some((every, 0, false)) if h[16] == PACE_FLAG => Some(every),
        _ => None,
    }
}

/// What the sink read in a forward TCP stream's interval, by its clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binned {
    /// Interval `index` (from 0) whole: `buffers` read in it (sent only when some were).
    Whole {
        /// The interval, from 0.
        index: u32,
        /// Buffers read in it.
        buffers: u32,
    },
    /// The last interval, `index`, `len_us` long when the stream ended: `buffers` read in it.
    Last {
        /// The interval, from 0.
        index: u32,
        /// Buffers read in it.
        buffers: u32,
        /// Its length up to the stream's end, µs.
        len_us: u32,
    },
}

/// The sink's line for a whole interval: 12 bytes, the size of an acknowledgement, so a
/// sender reading acknowledgements reads it whole.
pub fn binned(index: u32, buffers: u32) -> [u8; ACK] {
    let mut a = [0u8; ACK];
    a[..4].copy_from_slice(&BINNED_MAGIC);
    a[4..8].copy_from_slice(&index.to_be_bytes());
    a[8..12].copy_from_slice(&buffers.to_be_bytes());
    a
}

/// The sink's line for the last interval ([`LAST_BIN`] bytes), at the stream's end.
pub fn last_bin(index: u32, buffers: u32, len_us: u32) -> [u8; LAST_BIN] {
    let mut a = [0u8; LAST_BIN];
    a[..4].copy_from_slice(&LAST_BIN_MAGIC);
    a[4..8].copy_from_slice(&index.to_be_bytes());
    a[8..12].copy_from_slice(&buffers.to_be_bytes());
    a[12..16].copy_from_slice(&len_us.to_be_bytes());
    a
}

/// A sink's line ([`binned`], or [`last_bin`] whole), or None.
pub fn parse_binned(a: &[u8]) -> Option<Binned> {
    let at = |i: usize| u32::from_be_bytes(a[i..i + 4].try_into().unwrap());
    if a.len() >= ACK && a[..4] == BINNED_MAGIC {
        return Some(Binned::Whole {
            index: at(4),
            buffers: at(8),
        });
    }
    (a.len() >= LAST_BIN && a[..4] == LAST_BIN_MAGIC).then(|| Binned::Last {
        index: at(4),
        buffers: at(8),
        len_us: at(12),
    })
}

/// The request for a tally, after `sent` buffers.
pub fn tally_request(sent: u64) -> [u8; HEADER] {
    let mut h = header(sent, 0, false);
    h[16] = TALLY_FLAG;
    h
}

/// Whether a frame is a tally request.
pub fn is_tally_request(h: &[u8]) -> bool {
    h.len() == HEADER && h[..4] == MAGIC && h[16] & TALLY_FLAG != 0
}

/// The sink's answer: `received` buffers from the asker's address.
pub fn tally(received: u64) -> [u8; ACK] {
    let mut a = [0u8; ACK];
    a[..4].copy_from_slice(&TALLY_MAGIC);
    a[4..].copy_from_slice(&received.to_be_bytes());
    a
}

/// The buffer count of a tally, or None if the bytes are not one.
pub fn parse_tally(a: &[u8]) -> Option<u64> {
    (a.len() >= ACK && a[..4] == TALLY_MAGIC)
        .then(|| u64::from_be_bytes(a[4..12].try_into().unwrap()))
}

/// First bytes of `nmc stream --reverse`'s frames (above).
pub const REQUEST_MAGIC: [u8; 4] = *b"R508";
/// First bytes of the sink's error frame.
pub const ERROR_MAGIC: [u8; 4] = *b"E508";
/// First bytes of the sink's result frame.
pub const RESULT_MAGIC: [u8; 4] = *b"S508";
/// First bytes of the client's stop frame.
pub const STOP_MAGIC: [u8; 4] = *b"X508";
/// Bytes of a reverse request.
pub const REQUEST: usize = 53;
/// Bytes of a reverse request with a warm-up (`-O`, issue 75 §2): flag bit 4 says the warm-up
/// follows the token, ns. A client sends it only with `-O`; a sink from before it refuses the
/// flag ("malformed reverse request") and runs nothing, and the client says so in one line.
pub const REQUEST_WITH_WARM_UP: usize = REQUEST + 8;
/// Flag bit of a request with a warm-up.
pub const WARM_UP_FLAG: u8 = 16;
/// First bytes of the client's HELLO datagram.
pub const HELLO_MAGIC: [u8; 4] = *b"H508";
/// Longest error line, bytes.
pub const MAX_ERROR: u32 = 512;
/// Longest result, bytes. **Choice**: 16 MiB, above the JSON of the most buffers a sink sends
/// in one run (`stream::reverse::MAX_BUFFERS`, about 80 bytes each).
pub const MAX_RESULT: u32 = 16 << 20;

/// What a client asks the sink to send (`nmc stream --reverse`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// The process bit rate, bit/s.
    pub rate_bps: u64,
    /// The size of each buffer, bits.
    pub buffer_bits: u64,
    /// How long the sink fills buffers, ns.
    pub duration_ns: u64,
    /// With `ack` over UDP: how long an acknowledgement may take before its buffer counts as
    /// complete and lost, ns.
    pub ack_timeout_ns: u64,
    /// How long a connection, write or acknowledgement may take before the run ends as
    /// partial, ns.
    pub io_timeout_ns: u64,
    /// Write complete = the client's acknowledgement, not the socket's accept.
    pub ack: bool,
    /// Over UDP (the buffers by datagram).
    pub udp: bool,
    /// A bulk source at the rate (`--bulk`, iperf3 `-u -b`), not RFC 508's double buffer.
    pub bulk: bool,
    /// Keep no record per buffer (`--no-records`): the sink ships its running figures only,
    /// and its cap on buffers a run does not apply.
    pub no_records: bool,
    /// Names the run in the client's HELLO datagrams (UDP).
    pub token: u64,
    /// A warm-up before `duration_ns` (`-O`), ns; 0: none (and the shorter request).
    pub omit_ns: u64,
}

impl Request {
    /// The request's bytes, as the client sends them first on the TCP connection: the 53
    /// bytes every sink since `--reverse` takes, or with a warm-up 8 more.
    pub fn encode(&self) -> Vec<u8> {
        let warm = self.omit_ns > 0;
        let mut b = vec![0u8; if warm { REQUEST_WITH_WARM_UP } else { REQUEST }];
        b[..4].copy_from_slice(&REQUEST_MAGIC);
        for (i, v) in [
            self.rate_bps,
            self.buffer_bits,
            self.duration_ns,
            self.ack_timeout_ns,
            self.io_timeout_ns,
        ]
        .into_iter()
        .enumerate()
        {
            b[4 + 8 * i..12 + 8 * i].copy_from_slice(&v.to_be_bytes());
        }
        b[44] = self.ack as u8
            | (self.udp as u8) << 1
            | (self.bulk as u8) << 2
            | (self.no_records as u8) << 3
            | if warm { WARM_UP_FLAG } else { 0 };
        b[45..53].copy_from_slice(&self.token.to_be_bytes());
        if warm {
            b[53..].copy_from_slice(&self.omit_ns.to_be_bytes());
        }
        b
    }

    /// How long the whole request is, from its first [`REQUEST`] bytes: a sink reads those,
    /// then the rest.
    pub fn length(first: &[u8]) -> usize {
        match first.get(44) {
            Some(f) if f & WARM_UP_FLAG != 0 => REQUEST_WITH_WARM_UP,
            _ => REQUEST,
        }
    }

    /// A request's bytes, or None if they are not one (wrong length, magic or flags).
    pub fn decode(b: &[u8]) -> Option<Request> {
        if b.len() < REQUEST || b[..4] != REQUEST_MAGIC || b[44] > 31 {
            return None;
        }
        if b.len() != Request::length(b) {
            return None;
        }
        let at = |i: usize| {
            let mut v = [0u8; 8];
            v.copy_from_slice(&b[4 + 8 * i..12 + 8 * i]);
            u64::from_be_bytes(v)
        };
        Some(Request {
            rate_bps: at(0),
            buffer_bits: at(1),
            duration_ns: at(2),
            ack_timeout_ns: at(3),
            io_timeout_ns: at(4),
            ack: b[44] & 1 == 1,
            udp: b[44] & 2 == 2,
            bulk: b[44] & 4 == 4,
            no_records: b[44] & 8 == 8,
            token: {
                let mut v = [0u8; 8];
                v.copy_from_slice(&b[45..53]);
                u64::from_be_bytes(v)
            },
            omit_ns: match b.get(53..61) {
                Some(w) => u64::from_be_bytes(w.try_into().ok()?),
                None => 0,
            },
        })
    }
}

/// The client's HELLO datagram of a reverse run over UDP.
pub fn hello(token: u64) -> [u8; ACK] {
    let mut a = [0u8; ACK];
    a[..4].copy_from_slice(&HELLO_MAGIC);
    a[4..].copy_from_slice(&token.to_be_bytes());
    a
}

/// The token of a HELLO datagram.
pub fn parse_hello(a: &[u8]) -> Option<u64> {
    (a.len() == ACK && a[..4] == HELLO_MAGIC).then(|| {
        let mut v = [0u8; 8];
        v.copy_from_slice(&a[4..]);
        u64::from_be_bytes(v)
    })
}

/// An error or result frame's first 8 bytes: its magic and the length that follows.
pub fn control(magic: [u8; 4], length: u32) -> [u8; 8] {
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&magic);
    b[4..].copy_from_slice(&length.to_be_bytes());
    b
}

/// The client's stop frame: the size of an acknowledgement, so that a sender waiting for one
/// reads it whole.
pub fn stop() -> [u8; ACK] {
    let mut a = [0u8; ACK];
    a[..4].copy_from_slice(&STOP_MAGIC);
    a
}

/// Whether a frame is the client's stop.
pub fn is_stop(a: &[u8]) -> bool {
    a.len() >= ACK && a[..4] == STOP_MAGIC
}

/// The acknowledgement of buffer `seq`.
pub fn ack(seq: u64) -> [u8; ACK] {
    let mut a = [0u8; ACK];
    a[..4].copy_from_slice(&ACK_MAGIC);
    a[4..].copy_from_slice(&seq.to_be_bytes());
    a
}

/// The buffer number an acknowledgement names, or None if the bytes are not one.
pub fn parse_ack(a: &[u8]) -> Option<u64> {
    (a.len() >= ACK && a[..4] == ACK_MAGIC)
        .then(|| u64::from_be_bytes(a[4..12].try_into().unwrap()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_ack_round_trip() {
        assert_eq!(parse_header(&header(7, 252, true)), Some((7, 252, true)));
        assert_eq!(parse_header(b"garbage garbage garbage"), None);
        assert_eq!(parse_ack(&ack(9)), Some(9));
        assert_eq!(parse_ack(&header(9, 0, false)), None);
    }

    #[test]
    fn a_reverse_request_round_trips_and_junk_is_none() {
        let r = Request {
            rate_bps: 30_000,
            buffer_bits: 2016,
            duration_ns: 5,
            ack_timeout_ns: u64::MAX,
            io_timeout_ns: 7,
            ack: true,
            udp: true,
            bulk: false,
            no_records: true,
            token: 1 << 60,
            omit_ns: 0,
        };
        assert_eq!(r.encode().len(), REQUEST, "no warm-up: the older request");
        assert_eq!(Request::decode(&r.encode()), Some(r));
        // Issue 75 §2: with a warm-up, 8 bytes more and flag bit 4.
        let warm = Request {
            omit_ns: 2_000_000_000,
            ..r
        };
        assert_eq!(warm.encode().len(), REQUEST_WITH_WARM_UP);
        assert_eq!(
            Request::length(&warm.encode()[..REQUEST]),
            REQUEST_WITH_WARM_UP
        );
        assert_eq!(Request::decode(&warm.encode()), Some(warm));
        assert_eq!(
            Request::decode(&warm.encode()[..REQUEST]),
            None,
            "cut short"
        );
        let bulk = Request {
            ack: false,
            bulk: true,
            ..r
        };
        assert_eq!(Request::decode(&bulk.encode()), Some(bulk));
        // A flag this version does not know is not a request.
        let mut unknown = r.encode();
        unknown[44] |= 32;
        assert_eq!(Request::decode(&unknown), None);
        assert_eq!(Request::decode(&r.encode()[..44]), None);
        assert_eq!(parse_hello(&hello(77)), Some(77));
        assert_eq!(parse_hello(&ack(77)), None);
        assert!(is_stop(&stop()) && !is_stop(&ack(1)));
    }

    #[test]
    fn a_stamped_buffer_says_when_it_was_sent_and_arrivals_round_trip() {
        let mut f = vec![0x55u8; HEADER + 10];
        f[..HEADER].copy_from_slice(&header(3, 10, true));
        assert_eq!(sent_ns(&f), None);
        stamp(&mut f, 123_456_789);
        assert_eq!(sent_ns(&f), Some(123_456_789));
        assert_eq!(
            parse_header(&f),
            Some((3, 10, true)),
            "the stamp keeps the header"
        );
        let mut short = header(4, 2, false).to_vec();
        short.extend([0, 0]);
        stamp(&mut short, 9);
        assert_eq!(sent_ns(&short), None, "too short to carry a time");
        assert!(!is_tally_request(&f));

        let mut a = super::super::arrivals::Arrivals::default();
        a.arrive(0, Some(0), 5);
        a.arrive(2, Some(10), 25);
        a.arrive(1, Some(5), 14);
        assert_eq!(
            parse_arrivals(&arrivals_answer(&a)),
            Some((3, 1, a.jitter_ns()))
        );
        assert!(is_arrivals_request(&arrivals_request(7)));
        assert_eq!(parse_arrivals(&tally(3)), None);
    }

    /// Issue 75 §1: the TCP pace frame and the sink's lines round-trip; a pace is not a
    /// buffer that asks for an acknowledgement, nor a tally request.
    #[test]
    fn a_pace_and_the_sinks_lines_round_trip() {
        assert_eq!(parse_pace(&pace(1_000_000_000)), Some(1_000_000_000));
        assert_eq!(parse_header(&pace(5)), Some((5, 0, false)));
        assert!(!is_tally_request(&pace(5)));
        assert_eq!(parse_pace(&header(5, 0, false)), None);
        assert_eq!(parse_pace(&tally_request(5)), None);
        assert_eq!(
            parse_binned(&binned(3, 40)),
            Some(Binned::Whole {
                index: 3,
                buffers: 40
            })
        );
        assert_eq!(
            parse_binned(&last_bin(4, 7, 250_000)),
            Some(Binned::Last {
                index: 4,
                buffers: 7,
                len_us: 250_000
            })
        );
        assert_eq!(parse_binned(&last_bin(4, 7, 1)[..ACK]), None);
        assert_eq!(parse_binned(&ack(3)), None);
    }

    /// Issue 75 §1: a mark and its answer round-trip; the answer is never longer.
    #[test]
    fn a_mark_and_its_answer_round_trip() {
        assert_eq!(parse_mark(&mark(5)), Some(5));
        assert_eq!(parse_mark(&mark(5)[..40]), None);
        assert_eq!(parse_mark(&arrivals_request(5)), None);
        let mut a = super::super::arrivals::Arrivals::default();
        a.arrive(0, Some(0), 5);
        a.arrive(3, Some(30), 41);
        a.arrive(1, None, 50);
        let m = parse_marked(&marked(9, &a)).unwrap();
        assert_eq!(
            m,
            Marked {
                mark: 9,
                received: 3,
                expected: 4,
                out_of_order: 1,
                jitter_ns: a.jitter_ns(),
            }
        );
        let none = parse_marked(&marked(0, &Default::default())).unwrap();
        assert_eq!((none.received, none.jitter_ns), (0, None));
        assert_eq!(parse_marked(&mark(1)[..MARKED]), None);
    }
}
