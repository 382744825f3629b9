//! ICMP Echo driver, RFC 889's own instrument: any host that answers ping can be probed, no echo
//! server needed. IPv4 only.
//!
//! Two ways to send ICMP Echo without a setuid helper, tried in this order:
//! 1. An unprivileged *ping socket* (`socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)`), allowed when
//!    the caller's group is inside `net.ipv4.ping_group_range`. The kernel fills in the identifier
//!    and checksum and hands back only our own replies, without the IP header.
//! 2. A *raw socket* (`SOCK_RAW`, `IPPROTO_ICMP`), allowed to root or with `CAP_NET_RAW`. We
//!    write the checksum and identifier, and pick our replies out of every ICMP packet the host
//!    receives (IP header included).
//!
//! If neither is allowed, [`probe`] fails with [`crate::Error::IcmpNotPermitted`], whose message
//! says which sysctl or privilege would help.
//!
//! Echo data are the short payload of [`crate::wire`] (32-bit sequence and send time), so the
//! smallest datagram is 20 + 8 + 12 = 40 bytes, Mills' minimum. There is no tag: the remote host
//! only echoes, so a tag could not prove who answered.

use crate::Error;
use crate::driver::{self, EchoSocket, ProbeRun, Received, Transport, Watch};
use crate::probe::{MILLS_MIN_LENGTH, ProbeConfig, Transmit};
use crate::time::{Clock, Nanos};
use crate::wire;
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use std::io::{self, Read};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::os::fd::AsFd;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// IPv4 header (20) + ICMP header (8).
pub const HEADER_BYTES: u32 = 28;
const ECHO_REQUEST: u8 = 8;
const ECHO_REPLY: u8 = 0;
const DEST_UNREACHABLE: u8 = 3;

/// The Internet checksum (RFC 1071) of `data`.
pub fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [b] = chunks.remainder() {
        sum += u32::from(*b) << 8;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Opens an ICMP socket to `target`: a ping socket if allowed, else a raw one.
pub fn open(target: Ipv4Addr) -> Result<(Socket, Transport), Error> {
    let addr = SockAddr::from(SocketAddr::new(IpAddr::V4(target), 0));
    let attempt = |ty: Type| -> io::Result<Socket> {
        let s = Socket::new(Domain::IPV4, ty, Some(Protocol::ICMPV4))?;
        s.connect(&addr)?;
        s.set_nonblocking(true)?;
        Ok(s)
    };
    let ping_err = match attempt(Type::DGRAM) {
        Ok(s) => return Ok((s, Transport::IcmpPing)),
        Err(e) => e,
    };
    let raw_err = match attempt(Type::RAW) {
        Ok(s) => return Ok((s, Transport::IcmpRaw)),
        Err(e) => e,
    };
    let denied = |e: &io::Error| {
        matches!(
            e.raw_os_error(),
            Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EPROTONOSUPPORT)
        )
    };
    if denied(&ping_err) && denied(&raw_err) {
        let range = std::fs::read_to_string("/proc/sys/net/ipv4/ping_group_range")
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|_| "unknown".into());
        // SAFETY: getgid has no preconditions.
        let gid = unsafe { libc::getgid() };
        Err(Error::IcmpNotPermitted { gid, range })
    } else {
        Err(Error::Io("open ICMP socket", raw_err))
    }
}

struct IcmpSocket {
    sock: Socket,
    raw: bool,
    ident: u16,
    target: Ipv4Addr,
    clock: Clock,
    buf: Vec<u8>,
}

impl EchoSocket for IcmpSocket {
    fn overhead(&self) -> u32 {
        HEADER_BYTES
    }

    fn local(&self) -> Option<std::net::SocketAddr> {
        self.sock.local_addr().ok()?.as_socket()
    }

    fn send(&mut self, tx: &Transmit) -> io::Result<()> {
        let data_len = (tx.length - HEADER_BYTES) as usize;
        let total = 8 + data_len;
        let pkt = &mut self.buf[..total];
        pkt[0] = ECHO_REQUEST;
        pkt[1] = 0;
        pkt[2..4].fill(0);
        pkt[4..6].copy_from_slice(&self.ident.to_be_bytes());
        pkt[6..8].copy_from_slice(&(tx.seq as u16).to_be_bytes());
        wire::encode_icmp_payload(&mut pkt[8..], data_len, tx.seq, tx.stamp.0);
        // The kernel recomputes it for a ping socket; a raw socket sends what we write.
        let c = checksum(pkt);
        pkt[2..4].copy_from_slice(&c.to_be_bytes());
        self.sock.send(pkt)?;
        Ok(())
    }

    fn recv(&mut self, timeout: Duration) -> io::Result<Option<Received>> {
        let Some(n) = driver::recv_within(self.sock.as_fd(), timeout, || {
            (&self.sock).read(&mut self.buf)
        })?
        else {
            return Ok(None);
        };
        let at = self.clock.now();
        let mut icmp = &self.buf[..n];
        if self.raw {
            // Raw IPv4 sockets deliver the IP header too.
            if n < 20 || icmp[0] >> 4 != 4 || icmp[9] != 1 {
                return Ok(Some(Received::Other));
            }
            let src = Ipv4Addr::new(icmp[12], icmp[13], icmp[14], icmp[15]);
            let ihl = usize::from(icmp[0] & 0x0f) * 4;
            if ihl < 20 || n < ihl + 8 || src != self.target {
                return Ok(Some(Received::Other));
            }
            icmp = &icmp[ihl..];
            if icmp[0] == ECHO_REPLY && u16::from_be_bytes([icmp[4], icmp[5]]) != self.ident {
                return Ok(Some(Received::Other));
            }
        }
        if icmp.len() < 8 {
            return Ok(Some(Received::Other));
        }
        match icmp[0] {
            ECHO_REPLY => match wire::decode_icmp_payload(&icmp[8..]) {
                Some((seq, stamp)) => Ok(Some(Received::Reply {
                    at,
                    seq,
                    stamp: Nanos(stamp),
                    turnaround: None,
                    // The ICMP message (header and data) under a 20-byte IPv4 header.
                    length: icmp.len() as u32 + HEADER_BYTES - 8,
                })),
                None => Ok(Some(Received::Other)),
            },
            DEST_UNREACHABLE => Ok(Some(Received::IcmpError)),
            _ => Ok(Some(Received::Other)),
        }
    }
}

/// Smallest and largest datagram (IP length, bytes) an ICMP probe can send: 40 (IPv4 + ICMP
/// headers + 12 bytes of data, Mills' minimum) and 65535.
pub fn length_limits() -> (u32, u32) {
    (
        MILLS_MIN_LENGTH.max(HEADER_BYTES + wire::ICMP_PAYLOAD_MIN as u32),
        65_535,
    )
}

/// Runs a probe of ICMP Echo to `target`. The driver sets `cfg.floor` to 40 (IPv4 + ICMP headers
/// + 12 bytes of data) and `cfg.max_length` to 65535.
pub fn probe(
    target: IpAddr,
    mut cfg: ProbeConfig,
    stop: &AtomicBool,
    watch: Watch<'_>,
) -> Result<ProbeRun, Error> {
    let IpAddr::V4(v4) = target else {
        return Err(Error::IcmpV6Unsupported);
    };
    let (sock, transport) = open(v4)?;
    (cfg.floor, cfg.max_length) = length_limits();
    let clock = Clock::new();
    // SAFETY: getpid has no preconditions. The identifier only matters for raw sockets.
    let ident = (unsafe { libc::getpid() } as u32 ^ (cfg.seed as u32).rotate_left(16)) as u16;
    let mut s = IcmpSocket {
        sock,
        raw: transport == Transport::IcmpRaw,
        ident,
        target: v4,
        clock,
        buf: vec![0u8; 65_536],
    };
    driver::run(
        &mut s,
        target.to_string(),
        transport,
        cfg,
        clock,
        stop,
        watch,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_matches_rfc1071_example() {
        // RFC 1071 §3: bytes 00 01 f2 03 f4 f5 f6 f7 sum to ddf2 (before complement).
        assert_eq!(
            checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]),
            !0xddf2
        );
        // A packet with its checksum in place sums to zero.
        let mut p = [8u8, 0, 0, 0, 0x12, 0x34, 0, 1, 0xaa, 0xbb, 0xcc];
        let c = checksum(&p);
        p[2..4].copy_from_slice(&c.to_be_bytes());
        assert_eq!(checksum(&p), 0);
    }
}
