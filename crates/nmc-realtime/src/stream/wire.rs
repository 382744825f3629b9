//! Frames: each buffer goes as a 17-byte header and its payload; the sink answers a header
//! that asks for it with a 12-byte acknowledgement. Big-endian.
//!
//! ```text
//! buffer: "N508" | seq u64 | payload length u32 | flags u8 (bit 0: acknowledge) | payload
//! ack:    "A508" | seq u64
//! tally?: "N508" | buffers sent u64 | 0 u32 | flags u8 (bit 1: tally) — UDP, at the end
//! tally:  "T508" | buffers this source's address delivered u64
//! ```
//!
//! The tally (issue 33): over UDP without acknowledgements the sender cannot see a lost
//! buffer; at the end it asks the sink how many of its buffers arrived. The answer is shorter
//! than the question, so the sink amplifies nothing.
//!
//! With a shared secret, a UDP buffer carries [`TAG`] more bytes at its end: the first 16 bytes
//! of HMAC-SHA256(secret, header | payload), as the echo server's datagrams do
//! (`nmc_probe::wire`); the sink drops and counts a datagram without a valid one. Over TCP the
//! secret is proved once, by the gate's handshake (`nmc_serve::auth`), before the first frame.

pub const MAGIC: [u8; 4] = *b"N508";
pub const ACK_MAGIC: [u8; 4] = *b"A508";
pub const TALLY_MAGIC: [u8; 4] = *b"T508";
pub const HEADER: usize = 17;
/// Flag bit of a tally request.
const TALLY_FLAG: u8 = 2;
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

pub fn parse_tally(a: &[u8]) -> Option<u64> {
    (a.len() >= ACK && a[..4] == TALLY_MAGIC)
        .then(|| u64::from_be_bytes(a[4..12].try_into().unwrap()))
}

pub fn ack(seq: u64) -> [u8; ACK] {
    let mut a = [0u8; ACK];
    a[..4].copy_from_slice(&ACK_MAGIC);
    a[4..].copy_from_slice(&seq.to_be_bytes());
    a
}

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
}
