//! The two payload formats on the wire: the UDP echo packet, and the short payload carried in an
//! ICMP Echo message. Pure functions over byte slices; no I/O.
//!
//! # UDP echo packet (version 1)
//!
//! All integers are big-endian. A request and its reply have the same layout and the same length.
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 4 | magic, the ASCII bytes `NMCe` |
//! | 4 | 1 | version, 1 |
//! | 5 | 1 | flags: `0x01` REPLY (set only by the server), `0x02` TAGGED (the last 16 bytes are a tag); other bits must be zero |
//! | 6 | 2 | reserved, must be zero |
//! | 8 | 4 | sequence number of the volley |
//! | 12 | 8 | client transmit time: ns on the client's monotonic clock; opaque to the server, echoed |
//! | 20 | 8 | in a reply: server receive time, ns since the Unix epoch on the server's wall clock; in a request: 0, or if TAGGED the client's send time, ns since the Unix epoch on its wall clock (the freshness the tag covers) |
//! | 28 | 4 | server turnaround: ns from receiving the request to sending the reply, saturating (0 in a request) |
//! | 32 | n | padding to the requested length (zeros from the probe; the server echoes whatever is there, but for bytes 32..40 below) |
//! | 32 | 8 | in a reply with room for it (40 bytes or more before the tag): the number of requests the server has answered from the request's address and port, this one included ([`reply_count`]; issue 75 §5, as irtt's server counts, to split loss up and down). 0 in a request, and in a reply of a server that does not count (older ones echo the probe's zeros) |
//! | len−16 | 16 | tag, only if TAGGED: the first 16 bytes of HMAC-SHA256(secret, bytes 0 .. len−16) |
//!
//! So the smallest packet is [`HEADER_LEN`] = 32 bytes of UDP payload, or 48 tagged; as an IPv4
//! datagram (20 bytes IP + 8 bytes UDP + payload) that is 60 or 76 bytes. The tag is HMAC-SHA256
//! truncated to 128 bits as RFC 4868 does for IPsec (RFC 2104 §5 allows truncation to half the
//! hash); it covers every byte before it, header and padding. The server re-tags its reply with the
//! same secret, so a probe holding the secret can tell a genuine reply from an injected one.
//!
//! **Freshness** (issue 57 §2: a captured tagged request, replayed from another address, was
//! answered there). A tagged request carries its client's wall-clock send time in bytes 20..28,
//! under the tag; a server with a secret answers it only if that time is within
//! [`FRESHNESS`] of its own clock, and only once: it remembers the requests it answered until
//! they are stale ([`crate::server`]). So a replay, from any address, is not answered, and a
//! client and server with a secret need wall clocks that agree within [`FRESHNESS`] (NTP does).
//! Untagged requests are unchanged (the field is 0). The format's version stays 1: client and
//! server are one binary.
//!
//! # ICMP Echo payload
//!
//! An ICMP Echo message already has an identifier and a 16-bit sequence, so its data carry only
//! the 32-bit sequence and the client transmit time, 12 bytes ([`ICMP_PAYLOAD_MIN`]), then zero
//! padding. With 20 bytes of IP header and 8 of ICMP header the smallest datagram is 40 bytes:
//! exactly the minimum Mills used (RFC 889 §2.1: "the minimum datagram size for an ICMP message
//! containing timestamps").

use thiserror::Error;

/// First four bytes of every UDP echo packet: the ASCII `NMCe`.
pub const MAGIC: [u8; 4] = *b"NMCe";
/// The packet format's version, byte 4.
pub const VERSION: u8 = 1;
/// Bytes of the UDP echo header, before padding and tag.
pub const HEADER_LEN: usize = 32;
/// Bytes of the truncated HMAC-SHA256 tag.
pub const TAG_LEN: usize = 16;
/// Flag bit set only by the server: the packet is a reply.
pub const FLAG_REPLY: u8 = 0x01;
/// Flag bit: the last [`TAG_LEN`] bytes are an HMAC-SHA256 tag.
pub const FLAG_TAGGED: u8 = 0x02;
const KNOWN_FLAGS: u8 = FLAG_REPLY | FLAG_TAGGED;
/// Largest UDP payload over IPv4 (65535 − 20 − 8).
pub const MAX_UDP_PAYLOAD: usize = 65_507;
/// Bytes of the ICMP Echo data this crate writes before padding: sequence (4) and client time (8).
pub const ICMP_PAYLOAD_MIN: usize = 12;
/// Shortest secret accepted, in bytes.
pub const MIN_SECRET_LEN: usize = nmc_serve::auth::MIN_SECRET_LEN;
/// How far a tagged request's send time may be from the server's clock, either way, for it to
/// be answered. **Choice**: 30 s: hosts kept by NTP agree within milliseconds, and one whose
/// clock is off by more has a problem the probe's one-way figures would show anyway; a replay
/// older than this is refused by its time alone, and the server remembers what it answered for
/// no longer than twice this (at its default global rate, at most some 124,000 requests).
pub const FRESHNESS: std::time::Duration = std::time::Duration::from_secs(30);

/// Why bytes are not an acceptable UDP echo packet, or a request cannot be made.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum WireError {
    /// Shorter than the header (or, when TAGGED, than header and tag).
    #[error("packet of {len} bytes is shorter than the {need}-byte header")]
    Truncated {
        /// The packet's length, bytes.
        len: usize,
        /// The least it needed, bytes.
        need: usize,
    },
    /// The first four bytes are not [`MAGIC`].
    #[error("bad magic (not an nmc echo packet)")]
    BadMagic,
    /// A version other than [`VERSION`]; holds the one found.
    #[error("unsupported version {0}")]
    BadVersion(u8),
    /// Unknown flag bits or a non-zero reserved field; holds the flags byte.
    #[error("unknown flags {0:#04x} or non-zero reserved field")]
    BadFlags(u8),
    /// No tag, and the check asked for one.
    #[error("packet carries no tag but a secret is required")]
    Untagged,
    /// A tag that does not verify with the secret.
    #[error("tag does not verify")]
    BadTag,
    /// A request length outside what the packet format and the buffer allow.
    #[error("requested length {len} is outside {min}..={max}")]
    BadLength {
        /// The length asked for, bytes of UDP payload.
        len: usize,
        /// The smallest packet: the header, and the tag if there is a secret, bytes.
        min: usize,
        /// The largest: [`MAX_UDP_PAYLOAD`] or the buffer's size if smaller, bytes.
        max: usize,
    },
    /// The secret was refused (too short, or its file unreadable).
    #[error(transparent)]
    Key(#[from] nmc_serve::KeyError),
}

/// The shared secret: HMAC-SHA256, the same key the TCP servers' handshake uses
/// ([`nmc_serve::auth`]).
pub use nmc_serve::Key;

/// The fixed fields of a UDP echo packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Flag bits: [`FLAG_REPLY`], [`FLAG_TAGGED`].
    pub flags: u8,
    /// Sequence number of the volley.
    pub seq: u32,
    /// Client transmit time: ns on the client's monotonic clock, echoed unread by the server.
    pub client_tx_ns: u64,
    /// Server receive time: ns since the Unix epoch on the server's wall clock. In a request: 0,
    /// or in a tagged one the client's send time on its wall clock (see the module's freshness).
    pub server_rx_unix_ns: u64,
    /// Server turnaround: ns from receiving the request to sending the reply, saturating (0 in a
    /// request).
    pub server_turnaround_ns: u32,
}

impl Header {
    /// True when the REPLY flag is set.
    pub fn is_reply(&self) -> bool {
        self.flags & FLAG_REPLY != 0
    }
    /// True when the TAGGED flag is set.
    pub fn is_tagged(&self) -> bool {
        self.flags & FLAG_TAGGED != 0
    }
}

/// Smallest UDP echo payload, with or without a tag.
pub fn min_udp_payload(tagged: bool) -> usize {
    HEADER_LEN + if tagged { TAG_LEN } else { 0 }
}

/// Writes a request of exactly `len` bytes into `buf[..len]`: header, zero padding, and a tag if
/// `key` is given, with the wall clock's time now as its send time (the one thing here that is
/// not pure: see [`encode_request_at`]). Returns `len`.
pub fn encode_request(
    buf: &mut [u8],
    len: usize,
    seq: u32,
    client_tx_ns: u64,
    key: Option<&Key>,
) -> Result<usize, WireError> {
    let sent = if key.is_some() {
        crate::time::unix_now_ns()
    } else {
        0
    };
    encode_request_at(buf, len, seq, client_tx_ns, sent, key)
}

/// [`encode_request`] with the send time given: `sent_unix_ns`, ns since the Unix epoch, written
/// in bytes 20..28 of a tagged request (ignored without a key: the field stays 0).
pub fn encode_request_at(
    buf: &mut [u8],
    len: usize,
    seq: u32,
    client_tx_ns: u64,
    sent_unix_ns: u64,
    key: Option<&Key>,
) -> Result<usize, WireError> {
    let min = min_udp_payload(key.is_some());
    let max = MAX_UDP_PAYLOAD.min(buf.len());
    if len < min || len > max {
        return Err(WireError::BadLength { len, min, max });
    }
    let pkt = &mut buf[..len];
    pkt.fill(0);
    pkt[0..4].copy_from_slice(&MAGIC);
    pkt[4] = VERSION;
    pkt[5] = if key.is_some() { FLAG_TAGGED } else { 0 };
    pkt[8..12].copy_from_slice(&seq.to_be_bytes());
    pkt[12..20].copy_from_slice(&client_tx_ns.to_be_bytes());
    if let Some(key) = key {
        pkt[20..28].copy_from_slice(&sent_unix_ns.to_be_bytes());
        let tag = key.tag::<TAG_LEN>(&pkt[..len - TAG_LEN]);
        pkt[len - TAG_LEN..].copy_from_slice(&tag);
    }
    Ok(len)
}

/// Checks the structure of a packet (length, magic, version, flags) and reads its header. Does not
/// check the tag: see [`verify`].
pub fn decode(pkt: &[u8]) -> Result<Header, WireError> {
    if pkt.len() < HEADER_LEN {
        return Err(WireError::Truncated {
            len: pkt.len(),
            need: HEADER_LEN,
        });
    }
    if pkt[0..4] != MAGIC {
        return Err(WireError::BadMagic);
    }
    if pkt[4] != VERSION {
        return Err(WireError::BadVersion(pkt[4]));
    }
    let flags = pkt[5];
    if flags & !KNOWN_FLAGS != 0 || pkt[6] != 0 || pkt[7] != 0 {
        return Err(WireError::BadFlags(flags));
    }
    if flags & FLAG_TAGGED != 0 && pkt.len() < HEADER_LEN + TAG_LEN {
        return Err(WireError::Truncated {
            len: pkt.len(),
            need: HEADER_LEN + TAG_LEN,
        });
    }
    let be32 = |o: usize| u32::from_be_bytes(pkt[o..o + 4].try_into().expect("4 bytes"));
    let be64 = |o: usize| u64::from_be_bytes(pkt[o..o + 8].try_into().expect("8 bytes"));
    Ok(Header {
        flags,
        seq: be32(8),
        client_tx_ns: be64(12),
        server_rx_unix_ns: be64(20),
        server_turnaround_ns: be32(28),
    })
}

/// Checks a decoded packet's tag against `key`. An untagged packet fails with
/// [`WireError::Untagged`].
pub fn verify(pkt: &[u8], header: &Header, key: &Key) -> Result<(), WireError> {
    if !header.is_tagged() {
        return Err(WireError::Untagged);
    }
    let split = pkt.len() - TAG_LEN;
    if key.verify(&pkt[..split], &pkt[split..]) {
        Ok(())
    } else {
        Err(WireError::BadTag)
    }
}

/// Where a reply carries the server's count of the requests it answered from the requester
/// (bytes 32..40): a reply with room for it ([`has_count_room`]).
pub const COUNT_AT: std::ops::Range<usize> = HEADER_LEN..HEADER_LEN + 8;

/// Whether a packet of `len` bytes, tagged or not, has room for the count before its tag.
pub fn has_count_room(len: usize, tagged: bool) -> bool {
    len >= COUNT_AT.end + if tagged { TAG_LEN } else { 0 }
}

/// The server's count of the requests it answered from this client's address and port, this
/// one included, from a decoded reply; `None` when the reply has no room for it or its server
/// did not count (0).
pub fn reply_count(pkt: &[u8], header: &Header) -> Option<u64> {
    if !header.is_reply() || !has_count_room(pkt.len(), header.is_tagged()) {
        return None;
    }
    let n = u64::from_be_bytes(pkt[COUNT_AT].try_into().expect("8 bytes"));
    (n > 0).then_some(n)
}

/// Turns a decoded request, in place, into its reply: sets REPLY, writes the server receive time,
/// turnaround and, where there is room, `answered` (the requests answered from this requester,
/// [`reply_count`]), and re-tags with `key` (or, with no key, clears TAGGED and zeroes the stale tag so
/// that a probe holding a secret sees an unauthenticated reply rather than a forged one). The
/// length never changes: the reply is exactly as long as the request.
pub fn seal_reply(
    pkt: &mut [u8],
    server_rx_unix_ns: u64,
    turnaround_ns: u32,
    answered: u64,
    key: Option<&Key>,
) {
    debug_assert!(pkt.len() >= HEADER_LEN);
    let was_tagged = pkt[5] & FLAG_TAGGED != 0;
    pkt[5] = FLAG_REPLY | if key.is_some() { FLAG_TAGGED } else { 0 };
    pkt[20..28].copy_from_slice(&server_rx_unix_ns.to_be_bytes());
    pkt[28..32].copy_from_slice(&turnaround_ns.to_be_bytes());
    let len = pkt.len();
    // The count goes before the tag the reply will carry (a stale request tag is zeroed below).
    if answered > 0 && has_count_room(len, key.is_some() || was_tagged) {
        pkt[COUNT_AT].copy_from_slice(&answered.to_be_bytes());
    }
    match key {
        Some(key) if len >= HEADER_LEN + TAG_LEN => {
            let tag = key.tag::<TAG_LEN>(&pkt[..len - TAG_LEN]);
            pkt[len - TAG_LEN..].copy_from_slice(&tag);
        }
        Some(_) => pkt[5] &= !FLAG_TAGGED, // too short to carry a tag: cannot happen after decode of a tagged request
        None if was_tagged => pkt[len - TAG_LEN..].fill(0),
        None => {}
    }
}

/// Writes the ICMP Echo data: sequence, client time, zero padding to `len` bytes.
pub fn encode_icmp_payload(buf: &mut [u8], len: usize, seq: u32, client_tx_ns: u64) -> usize {
    let len = len.max(ICMP_PAYLOAD_MIN).min(buf.len());
    buf[..len].fill(0);
    buf[0..4].copy_from_slice(&seq.to_be_bytes());
    buf[4..12].copy_from_slice(&client_tx_ns.to_be_bytes());
    len
}

/// Reads sequence and client time back from ICMP Echo Reply data.
pub fn decode_icmp_payload(data: &[u8]) -> Option<(u32, u64)> {
    if data.len() < ICMP_PAYLOAD_MIN {
        return None;
    }
    let seq = u32::from_be_bytes(data[0..4].try_into().ok()?);
    let t = u64::from_be_bytes(data[4..12].try_into().ok()?);
    Some((seq, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Key {
        Key::new(b"0123456789abcdef-test-secret").unwrap()
    }

    #[test]
    fn request_round_trips_untagged() {
        let mut buf = [0u8; 256];
        let n = encode_request(&mut buf, 100, 7, 123_456_789, None).unwrap();
        assert_eq!(n, 100);
        let h = decode(&buf[..n]).unwrap();
        assert_eq!(h.seq, 7);
        assert_eq!(h.client_tx_ns, 123_456_789);
        assert!(!h.is_reply() && !h.is_tagged());
    }

    #[test]
    fn tagged_request_verifies_and_tamper_fails() {
        let k = key();
        let mut buf = [0u8; 256];
        let n = encode_request(&mut buf, 64, 9, 42, Some(&k)).unwrap();
        let h = decode(&buf[..n]).unwrap();
        verify(&buf[..n], &h, &k).unwrap();
        buf[40] ^= 1; // padding is covered too
        assert_eq!(verify(&buf[..n], &h, &k), Err(WireError::BadTag));
        let other = Key::new(b"another-secret-of-enough-length").unwrap();
        buf[40] ^= 1;
        assert_eq!(verify(&buf[..n], &h, &other), Err(WireError::BadTag));
    }

    #[test]
    fn a_tagged_request_carries_its_send_time_under_the_tag() {
        let k = key();
        let mut buf = [0u8; 64];
        let n =
            encode_request_at(&mut buf, 64, 9, 42, 1_700_000_000_123_456_789, Some(&k)).unwrap();
        let h = decode(&buf[..n]).unwrap();
        assert_eq!(h.server_rx_unix_ns, 1_700_000_000_123_456_789);
        verify(&buf[..n], &h, &k).unwrap();
        buf[27] ^= 1; // an altered time fails the tag
        assert_eq!(verify(&buf[..n], &h, &k), Err(WireError::BadTag));
        // Untagged: the field stays 0.
        let n = encode_request_at(&mut buf, 64, 9, 42, 5, None).unwrap();
        assert_eq!(decode(&buf[..n]).unwrap().server_rx_unix_ns, 0);
    }

    #[test]
    fn reply_keeps_length_and_retags() {
        let k = key();
        let mut buf = [0u8; 128];
        let n = encode_request(&mut buf, 80, 1, 5, Some(&k)).unwrap();
        seal_reply(&mut buf[..n], 1_700_000_000_000_000_000, 1234, 0, Some(&k));
        let h = decode(&buf[..n]).unwrap();
        assert!(h.is_reply() && h.is_tagged());
        assert_eq!(h.server_turnaround_ns, 1234);
        assert_eq!(h.client_tx_ns, 5);
        verify(&buf[..n], &h, &k).unwrap();
    }

    #[test]
    fn keyless_server_strips_stale_tag() {
        let k = key();
        let mut buf = [0u8; 128];
        let n = encode_request(&mut buf, 80, 1, 5, Some(&k)).unwrap();
        seal_reply(&mut buf[..n], 1, 2, 0, None);
        let h = decode(&buf[..n]).unwrap();
        assert!(!h.is_tagged());
        assert_eq!(verify(&buf[..n], &h, &k), Err(WireError::Untagged));
    }

    #[test]
    fn structure_errors() {
        let mut buf = [0u8; 64];
        encode_request(&mut buf, 64, 1, 1, None).unwrap();
        assert!(matches!(
            decode(&buf[..10]),
            Err(WireError::Truncated { .. })
        ));
        let mut bad = buf;
        bad[0] = b'X';
        assert_eq!(decode(&bad), Err(WireError::BadMagic));
        let mut bad = buf;
        bad[4] = 2;
        assert_eq!(decode(&bad), Err(WireError::BadVersion(2)));
        let mut bad = buf;
        bad[5] = 0x80;
        assert_eq!(decode(&bad), Err(WireError::BadFlags(0x80)));
        let mut bad = buf;
        bad[5] = FLAG_TAGGED;
        assert!(matches!(
            decode(&bad[..40]),
            Err(WireError::Truncated { need: 48, .. })
        ));
        assert!(matches!(
            encode_request(&mut buf, 20, 1, 1, None),
            Err(WireError::BadLength { .. })
        ));
    }

    #[test]
    fn short_secrets_are_refused() {
        assert_eq!(
            Key::new(b"short").unwrap_err(),
            nmc_serve::KeyError::ShortSecret(5)
        );
    }

    #[test]
    fn icmp_payload_round_trips() {
        let mut buf = [0xffu8; 64];
        let n = encode_icmp_payload(&mut buf, 20, 0xdead_beef, 99);
        assert_eq!(n, 20);
        assert_eq!(decode_icmp_payload(&buf[..n]), Some((0xdead_beef, 99)));
        assert!(buf[12..20].iter().all(|&b| b == 0));
        assert_eq!(decode_icmp_payload(&buf[..11]), None);
    }
}
