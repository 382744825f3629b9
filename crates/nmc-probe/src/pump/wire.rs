//! The pump's frames: a message (over TCP one frame, over UDP one or more datagrams) and its
//! acknowledgement, the analogue of the IMP's RFNM ("ready for next message", Kleinrock &
//! Opderbeck 1977 §II: "the end-to-end acknowledgment"). Pure functions over byte slices.
//!
//! All integers big-endian; every frame starts with the same 28-byte header:
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 4 | magic, the ASCII bytes `NMCp` |
//! | 4 | 1 | version, 1 |
//! | 5 | 1 | kind: 1 DATA (sender → receiver), 2 RFNM (receiver → sender); with `--reverse`, 3 REQUEST, 4 ERROR, 5 RESULT, 6 STOP, 7 HELLO (below) |
//! | 6 | 2 | reserved, zero |
//! | 8 | 4 | session: a number the pump picks per run, so two runs from one port are told apart |
//! | 12 | 8 | message sequence number, from 0 |
//! | 20 | 4 | message length: data bytes in the whole message |
//! | 24 | 2 | packet index within the message (UDP), from 0; 0 over TCP |
//! | 26 | 2 | packets in the message, 1..=[`MAX_PACKETS`]; 1 over TCP |
//!
//! A DATA frame carries data after the header: over TCP the whole message (`length` bytes),
//! over UDP this packet's share (every packet but the last carries the same number of bytes, the
//! last the rest; at least one byte each). A RFNM is the header alone, with the message's
//! session, sequence number, length and packet count: 28 bytes, shorter than any DATA datagram
//! (at least 29), so a server that answers cannot be used to amplify traffic.
//!
//! ## `--reverse`: the server sends
//!
//! With `nmc pump --reverse` the roles turn: the client opens the TCP connection (so it works
//! from behind NAT and firewalls, as iperf3 `-R` does) and asks, and the server runs the pump's
//! sending core and the client its receiving core. DATA and RFNM frames are as above, with DATA
//! now from the server and RFNMs from the client. The control frames are all one header with
//! `index` 0 and `count` 1, `session` the client's, and `length` the bytes that follow:
//!
//! | kind | direction | body |
//! | --- | --- | --- |
//! | 3 REQUEST | client → server, the first frame on the TCP connection | [`REQUEST_LEN`] bytes: transport u8 (1 tcp, 2 udp), 3 zero bytes, size u32, outstanding u32, packet u32, duration ns u64, timeout ns u64; or [`BOUNDED_REQUEST_LEN`] bytes, the same followed by count u64 (0: none) and warm-up ns u64 (below) |
//! | 4 ERROR | server → client, instead of any DATA (the request refused) or of the RESULT (the run failed) | why, one line of UTF-8, at most [`MAX_ERROR`] bytes; the server then closes |
//! | 5 RESULT | server → client, after the last RFNM | the sender's figures, JSON, at most [`MAX_RESULT`] bytes (see `pump::reverse`) |
//! | 6 STOP | client → server | none: stop offering messages now (the client's Ctrl-C); a RESULT follows |
//! | 7 HELLO | client → server over UDP, from the socket the data is to reach | none: over UDP the DATA and RFNMs go by datagram, the rest stays on the TCP connection |
//!
//! A server that does not know REQUEST (an older nmc) closes the connection on it, which the
//! client reports as such.
//!
//! **A bounded REQUEST** (issue 75 §3: `-k`, `-n` or `-O` with `-R` or `--bidir`): the body is
//! [`BOUNDED_REQUEST_LEN`] bytes, the 32 above and then the count of messages to send (u64, 0 for
//! none: the time decides, as before) and the warm-up left out of the figures (ns, u64). A client
//! sends it only when a run has a count or a warm-up, so a run without them is the 32-byte
//! REQUEST every server since `--reverse` takes. A server from before this refuses a bounded
//! REQUEST with its ERROR "malformed reverse request: a body of 48 bytes, not 32" and runs
//! nothing; the client turns that into one line that names the flags ([`Request::older_server`]):
//! a bound is never dropped silently.

use thiserror::Error;

/// First four bytes of every frame: the ASCII `NMCp`.
pub const MAGIC: [u8; 4] = *b"NMCp";
/// The frame format's version, byte 4 of the header.
pub const VERSION: u8 = 1;
/// Bytes of the header every frame starts with.
pub const HEADER_LEN: usize = 28;
/// Most packets in one UDP message: the server keeps which have arrived in a 64-bit mask.
/// (An IMP message was at most 8 packets: K&O §II.)
pub const MAX_PACKETS: u16 = 64;
/// Largest DATA datagram over UDP/IPv4 (65535 − 20 − 8).
pub const MAX_DATAGRAM: usize = 65_507;

/// Bytes of a REQUEST's body.
pub const REQUEST_LEN: usize = 32;
/// Bytes of a bounded REQUEST's body: [`REQUEST_LEN`], a count u64 and a warm-up u64.
pub const BOUNDED_REQUEST_LEN: usize = REQUEST_LEN + 16;
/// Longest ERROR text, bytes.
pub const MAX_ERROR: u32 = 512;
/// Longest RESULT, bytes. **Choice**: 8 MiB; a result is a few hundred kB at most (the round-trip
/// plot's 10,000 buckets are most of it).
pub const MAX_RESULT: u32 = 8 << 20;

/// What a frame is: byte 5 of the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// 1, sender → receiver: a message, or over UDP one packet of it.
    Data,
    /// 2, receiver → sender: the message has arrived whole (the RFNM), the header alone.
    Rfnm,
    /// 3, client → server (`--reverse`): what to send, a body of [`REQUEST_LEN`] bytes.
    Request,
    /// 4, server → client (`--reverse`): the request refused or the run failed, one line of UTF-8.
    Error,
    /// 5, server → client (`--reverse`): the sender's figures as JSON, after the last RFNM.
    Result,
    /// 6, client → server (`--reverse`): stop offering messages now; a RESULT follows.
    Stop,
    /// 7, client → server over UDP (`--reverse`): the socket the DATA is to reach.
    Hello,
}

impl Kind {
    fn code(self) -> u8 {
        match self {
            Kind::Data => 1,
            Kind::Rfnm => 2,
            Kind::Request => 3,
            Kind::Error => 4,
            Kind::Result => 5,
            Kind::Stop => 6,
            Kind::Hello => 7,
        }
    }
}

/// The 28-byte header every frame starts with (magic, version and reserved bytes implied).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// What the frame is.
    pub kind: Kind,
    /// A number the pump picks per run, so that two runs from one port are told apart.
    pub session: u32,
    /// Message sequence number, from 0 (0 in control frames).
    pub seq: u64,
    /// Data bytes in the whole message; in a control frame, the bytes of body that follow.
    pub length: u32,
    /// This packet's index within the message, from 0 (0 over TCP and in control frames).
    pub index: u16,
    /// Packets in the message, 1..=[`MAX_PACKETS`] (1 over TCP and in control frames).
    pub count: u16,
}

/// Why bytes are not a well-formed frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum FrameError {
    /// Fewer bytes than a header; holds how many there were.
    #[error("frame of {0} bytes is shorter than the 28-byte header")]
    Truncated(usize),
    /// The first four bytes are not [`MAGIC`].
    #[error("bad magic (not an nmc pump frame)")]
    BadMagic,
    /// A version other than [`VERSION`]; holds the one found.
    #[error("unsupported version {0}")]
    BadVersion(u8),
    /// An unknown kind, non-zero reserved bytes, a packet count or index out of range, or a
    /// malformed REQUEST body.
    #[error("malformed header")]
    Malformed,
}

impl Header {
    /// The header's 28 bytes.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..4].copy_from_slice(&MAGIC);
        h[4] = VERSION;
        h[5] = self.kind.code();
        h[8..12].copy_from_slice(&self.session.to_be_bytes());
        h[12..20].copy_from_slice(&self.seq.to_be_bytes());
        h[20..24].copy_from_slice(&self.length.to_be_bytes());
        h[24..26].copy_from_slice(&self.index.to_be_bytes());
        h[26..28].copy_from_slice(&self.count.to_be_bytes());
        h
    }

    /// Reads and checks a header: magic, version, kind, reserved bytes, 1 ≤ count ≤
    /// [`MAX_PACKETS`], index < count.
    pub fn decode(b: &[u8]) -> Result<Header, FrameError> {
        if b.len() < HEADER_LEN {
            return Err(FrameError::Truncated(b.len()));
        }
        if b[0..4] != MAGIC {
            return Err(FrameError::BadMagic);
        }
        if b[4] != VERSION {
            return Err(FrameError::BadVersion(b[4]));
        }
        let kind = match b[5] {
            1 => Kind::Data,
            2 => Kind::Rfnm,
            3 => Kind::Request,
            4 => Kind::Error,
            5 => Kind::Result,
            6 => Kind::Stop,
            7 => Kind::Hello,
            _ => return Err(FrameError::Malformed),
        };
        if b[6] != 0 || b[7] != 0 {
            return Err(FrameError::Malformed);
        }
        let be = |o: usize, n: usize| b[o..o + n].iter().fold(0u64, |a, &x| a << 8 | u64::from(x));
        let h = Header {
            kind,
            session: be(8, 4) as u32,
            seq: be(12, 8),
            length: be(20, 4) as u32,
            index: be(24, 2) as u16,
            count: be(26, 2) as u16,
        };
        if h.count == 0 || h.count > MAX_PACKETS || h.index >= h.count {
            return Err(FrameError::Malformed);
        }
        Ok(h)
    }

    /// The RFNM for this DATA header.
    pub fn rfnm(&self) -> Header {
        Header {
            kind: Kind::Rfnm,
            index: 0,
            ..*self
        }
    }
}

/// A control frame's header (REQUEST, ERROR, RESULT, STOP, HELLO) with `length` bytes after it.
pub fn control(kind: Kind, session: u32, length: u32) -> [u8; HEADER_LEN] {
    Header {
        kind,
        session,
        seq: 0,
        length,
        index: 0,
        count: 1,
    }
    .encode()
}

/// What a client asks a server to send it (`nmc pump --reverse`): the REQUEST's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// True for UDP.
    pub udp: bool,
    /// Data bytes per message, the sender's `size`.
    pub size: u32,
    /// Messages outstanding at most.
    pub outstanding: u32,
    /// UDP: data bytes per datagram.
    pub packet: u32,
    /// How long new messages are offered, ns.
    pub duration_ns: u64,
    /// A message unanswered this long since its first send stops the run, ns.
    pub timeout_ns: u64,
    /// Messages to send, then stop once they are answered (iperf3 `-k`, `-n`); `None`: the
    /// time decides. Only a bounded REQUEST carries it.
    pub count: Option<u64>,
    /// A warm-up before the measured time, left out of the figures (iperf3 `-O`), ns; 0: none.
    /// Only a bounded REQUEST carries it.
    pub omit_ns: u64,
}

impl Request {
    /// Whether the request needs the bounded body (a count or a warm-up).
    pub fn bounded(&self) -> bool {
        self.count.is_some() || self.omit_ns > 0
    }

    /// The whole REQUEST frame, header and body: the 32-byte body when the run has neither a
    /// count nor a warm-up (every server since `--reverse` takes it), else the bounded one.
    pub fn encode(&self, session: u32) -> Vec<u8> {
        let len = if self.bounded() {
            BOUNDED_REQUEST_LEN
        } else {
            REQUEST_LEN
        };
        let mut b = vec![0u8; HEADER_LEN + len];
        b[..HEADER_LEN].copy_from_slice(&control(Kind::Request, session, len as u32));
        let r = &mut b[HEADER_LEN..];
        r[0] = if self.udp { 2 } else { 1 };
        r[4..8].copy_from_slice(&self.size.to_be_bytes());
        r[8..12].copy_from_slice(&self.outstanding.to_be_bytes());
        r[12..16].copy_from_slice(&self.packet.to_be_bytes());
        r[16..24].copy_from_slice(&self.duration_ns.to_be_bytes());
        r[24..32].copy_from_slice(&self.timeout_ns.to_be_bytes());
        if self.bounded() {
            r[32..40].copy_from_slice(&self.count.unwrap_or(0).to_be_bytes());
            r[40..48].copy_from_slice(&self.omit_ns.to_be_bytes());
        }
        b
    }

    /// Reads a REQUEST's body (the header already read says its `length`, [`REQUEST_LEN`] or
    /// [`BOUNDED_REQUEST_LEN`]).
    pub fn decode(r: &[u8]) -> Result<Request, FrameError> {
        if r.len() != REQUEST_LEN && r.len() != BOUNDED_REQUEST_LEN {
            return Err(FrameError::Malformed);
        }
        let udp = match r[0] {
            1 => false,
            2 => true,
            _ => return Err(FrameError::Malformed),
        };
        if r[1..4] != [0, 0, 0] {
            return Err(FrameError::Malformed);
        }
        let u32_at = |o: usize| u32::from_be_bytes([r[o], r[o + 1], r[o + 2], r[o + 3]]);
        let u64_at = |o: usize| (u64::from(u32_at(o)) << 32) | u64::from(u32_at(o + 4));
        let (count, omit_ns) = if r.len() == BOUNDED_REQUEST_LEN {
            (Some(u64_at(32)).filter(|&k| k > 0), u64_at(40))
        } else {
            (None, 0)
        };
        Ok(Request {
            udp,
            size: u32_at(4),
            outstanding: u32_at(8),
            packet: u32_at(12),
            duration_ns: u64_at(16),
            timeout_ns: u64_at(24),
            count,
            omit_ns,
        })
    }

    /// Whether `error`, a server's ERROR line to this request, is an older server's refusal of
    /// a bounded body it does not know ("malformed reverse request: a body of 48 bytes, not
    /// 32"): the client then says which flags it cannot take, in one line.
    pub fn older_server(&self, error: &str) -> bool {
        self.bounded()
            && error.contains(&format!(
                "a body of {BOUNDED_REQUEST_LEN} bytes, not {REQUEST_LEN}"
            ))
    }
}

/// True if `b` starts with the pump's magic (so the echo server hands it to the pump sink).
pub fn is_pump(b: &[u8]) -> bool {
    b.len() >= 4 && b[0..4] == MAGIC
}

/// How a message of `length` bytes is cut into UDP packets of at most `packet` data bytes:
/// (packets, data bytes of every packet but the last). `None` if it needs more than
/// [`MAX_PACKETS`] or `length` or `packet` is 0.
pub fn split(length: u32, packet: u32) -> Option<(u16, u32)> {
    if length == 0 || packet == 0 {
        return None;
    }
    let count = length.div_ceil(packet);
    (count <= u32::from(MAX_PACKETS)).then_some((count as u16, packet))
}

/// Data bytes packet `index` of a message carries, as [`split`] cut it.
pub fn packet_bytes(length: u32, count: u16, per: u32, index: u16) -> u32 {
    if index + 1 < count {
        per
    } else {
        length - per * u32::from(count - 1)
    }
}

/// Writes the header of DATA datagram `index` of message `seq` (`length` bytes cut into `count`
/// packets of `per`, [`split`]) into the front of `buf`, whose data bytes follow it, and returns
/// the datagram's length.
pub fn data_datagram(
    buf: &mut [u8],
    session: u32,
    seq: u64,
    (length, count, per): (u32, u16, u32),
    index: u16,
) -> usize {
    let h = Header {
        kind: Kind::Data,
        session,
        seq,
        length,
        index,
        count,
    };
    buf[..HEADER_LEN].copy_from_slice(&h.encode());
    HEADER_LEN + packet_bytes(length, count, per, index) as usize
}

/// Bytes of the tag every pump datagram carries when client and server share a secret: the
/// first 16 bytes of HMAC-SHA256 over the datagram before it, as the echo probe's and the
/// stream's. A RFNM with its tag (44 bytes) is still shorter than any tagged DATA datagram
/// (at least 45), so a server with a secret cannot amplify either.
pub const TAG_LEN: usize = 16;

/// With a key, appends its tag to the datagram in `buf[..n]` (`buf` has room for it) and
/// returns the tagged length; without, returns `n`.
pub fn seal(buf: &mut [u8], n: usize, key: Option<&nmc_serve::Key>) -> usize {
    match key {
        None => n,
        Some(k) => {
            let tag: [u8; TAG_LEN] = k.tag(&buf[..n]);
            buf[n..n + TAG_LEN].copy_from_slice(&tag);
            n + TAG_LEN
        }
    }
}

/// A received datagram without its tag, if the tag is `key`'s (or there is no key); `None`
/// for one that is too short to carry a tag or whose tag is wrong.
pub fn open<'a>(pkt: &'a [u8], key: Option<&nmc_serve::Key>) -> Option<&'a [u8]> {
    match key {
        None => Some(pkt),
        Some(_) if pkt.len() < HEADER_LEN + TAG_LEN => None,
        Some(k) => {
            let (d, tag) = pkt.split_at(pkt.len() - TAG_LEN);
            k.verify(d, tag).then_some(d)
        }
    }
}

/// A frame that is a header alone (a RFNM, a HELLO) as it goes on the wire, with `key`'s tag
/// after it when there is one.
pub fn sealed_header(
    header: &[u8; HEADER_LEN],
    key: Option<&nmc_serve::Key>,
) -> ([u8; HEADER_LEN + TAG_LEN], usize) {
    let mut b = [0u8; HEADER_LEN + TAG_LEN];
    b[..HEADER_LEN].copy_from_slice(header);
    let n = seal(&mut b, HEADER_LEN, key);
    (b, n)
}

/// Checks a UDP DATA datagram's size against its header, as far as a server that does not know
/// the pump's packet size can: every packet carries at least one byte and no more than the whole
/// message, the message has at least one byte per packet, and a one-packet message carries all
/// of it.
pub fn plausible_data(h: &Header, data_len: usize) -> bool {
    data_len >= 1
        && data_len as u64 <= u64::from(h.length)
        && u64::from(h.count) <= u64::from(h.length)
        && (h.count > 1 || data_len as u64 == u64::from(h.length))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_datagram_opens_with_its_key_only() {
        let k = nmc_serve::Key::new(b"0123456789abcdef-pump").unwrap();
        let other = nmc_serve::Key::new(b"0123456789abcdef-other").unwrap();
        let mut b = [0u8; 64];
        let n = data_datagram(&mut b, 7, 3, (10, 1, 10), 0);
        let sealed = seal(&mut b, n, Some(&k));
        assert_eq!(sealed, n + TAG_LEN);
        assert_eq!(open(&b[..sealed], Some(&k)), Some(&b[..n]));
        assert_eq!(open(&b[..sealed], Some(&other)), None);
        assert_eq!(open(&b[..n], Some(&k)), None, "untagged");
        assert_eq!(
            open(&b[..HEADER_LEN], Some(&k)),
            None,
            "too short for a tag"
        );
        // Without a key nothing changes on the wire.
        assert_eq!(seal(&mut b, n, None), n);
        assert_eq!(open(&b[..n], None), Some(&b[..n]));
        let (r, len) = sealed_header(&Header::decode(&b[..n]).unwrap().rfnm().encode(), Some(&k));
        assert_eq!(len, HEADER_LEN + TAG_LEN);
        assert!(open(&r[..len], Some(&k)).is_some());
        // Still no amplification: a tagged RFNM is shorter than any tagged DATA datagram.
        assert!(len < HEADER_LEN + 1 + TAG_LEN);
    }

    #[test]
    fn header_round_trips_and_rejects_junk() {
        let h = Header {
            kind: Kind::Data,
            session: 0xdead_beef,
            seq: 1 << 40,
            length: 8063,
            index: 7,
            count: 8,
        };
        assert_eq!(Header::decode(&h.encode()), Ok(h));
        assert_eq!(Header::decode(&h.rfnm().encode()).unwrap().kind, Kind::Rfnm);
        assert_eq!(Header::decode(&[0u8; 5]), Err(FrameError::Truncated(5)));
        assert_eq!(Header::decode(&[0u8; 40]), Err(FrameError::BadMagic));
        let mut b = h.encode();
        b[4] = 2;
        assert_eq!(Header::decode(&b), Err(FrameError::BadVersion(2)));
        for (at, v) in [(5, 9u8), (6, 1), (27, 0), (25, 9)] {
            let mut b = h.encode();
            b[at] = v;
            assert_eq!(Header::decode(&b), Err(FrameError::Malformed), "byte {at}");
        }
    }

    #[test]
    fn a_request_round_trips_and_junk_is_refused() {
        let r = Request {
            udp: true,
            size: 1008,
            outstanding: 4,
            packet: 126,
            duration_ns: 5_000_000_000,
            timeout_ns: u64::MAX - 1,
            count: None,
            omit_ns: 0,
        };
        let b = r.encode(77);
        assert_eq!(
            b.len(),
            HEADER_LEN + REQUEST_LEN,
            "no bound: the older body"
        );
        let h = Header::decode(&b).unwrap();
        assert_eq!(
            (h.kind, h.session, h.length),
            (Kind::Request, 77, REQUEST_LEN as u32)
        );
        assert_eq!(Request::decode(&b[HEADER_LEN..]), Ok(r));
        assert_eq!(
            Request::decode(&b[HEADER_LEN..HEADER_LEN + 5]),
            Err(FrameError::Malformed)
        );
        let mut bad = b.clone();
        bad[HEADER_LEN] = 9;
        assert_eq!(
            Request::decode(&bad[HEADER_LEN..]),
            Err(FrameError::Malformed)
        );
        for k in [Kind::Error, Kind::Result, Kind::Stop, Kind::Hello] {
            assert_eq!(Header::decode(&control(k, 1, 3)).unwrap().kind, k);
        }
    }

    /// Issue 75 §3: a count or a warm-up makes the body 48 bytes; each round-trips, and an
    /// older server's refusal of that body is recognised (only for a bounded request).
    #[test]
    fn a_bounded_request_round_trips_and_an_older_servers_refusal_is_known() {
        let plain = Request {
            udp: false,
            size: 1008,
            outstanding: 4,
            packet: 126,
            duration_ns: 1,
            timeout_ns: 2,
            count: None,
            omit_ns: 0,
        };
        for r in [
            Request {
                count: Some(500),
                ..plain
            },
            Request {
                omit_ns: 2_000_000_000,
                ..plain
            },
            Request {
                count: Some(u64::MAX),
                omit_ns: 7,
                ..plain
            },
        ] {
            let b = r.encode(9);
            let h = Header::decode(&b).unwrap();
            assert_eq!(h.length as usize, BOUNDED_REQUEST_LEN);
            assert_eq!(b.len(), HEADER_LEN + BOUNDED_REQUEST_LEN);
            assert_eq!(Request::decode(&b[HEADER_LEN..]), Ok(r));
        }
        // A count of 0 on the wire is no count.
        let mut zero = Request {
            omit_ns: 1,
            ..plain
        }
        .encode(9);
        zero[HEADER_LEN + 32..HEADER_LEN + 40].fill(0);
        assert_eq!(Request::decode(&zero[HEADER_LEN..]).unwrap().count, None);
        // Any other length is not a request.
        assert!(Request::decode(&[1u8; 40]).is_err());
        let older = "malformed reverse request: a body of 48 bytes, not 32";
        assert!(
            Request {
                count: Some(3),
                ..plain
            }
            .older_server(older)
        );
        assert!(!plain.older_server(older));
        assert!(
            !Request {
                count: Some(3),
                ..plain
            }
            .older_server("request refused: --size")
        );
    }

    #[test]
    fn messages_split_into_packets() {
        // K&O's message: 8063 bits ≈ 1008 bytes in 8 packets of 126 bytes (1008 bits).
        assert_eq!(split(1008, 126), Some((8, 126)));
        assert_eq!(split(1000, 126), Some((8, 126)));
        assert_eq!(packet_bytes(1000, 8, 126, 7), 1000 - 7 * 126);
        assert_eq!(split(1, 1200), Some((1, 1200)));
        assert_eq!(split(64 * 100 + 1, 100), None);
        assert_eq!(split(0, 100), None);
        let h = Header {
            kind: Kind::Data,
            session: 1,
            seq: 0,
            length: 10,
            index: 0,
            count: 1,
        };
        assert!(plausible_data(&h, 10));
        assert!(!plausible_data(&h, 9));
        assert!(!plausible_data(&h, 0));
    }
}
