//! ICMP Echo driver, RFC 889's own instrument: any host that answers ping can be probed, no echo
//! server needed. IPv4 (ICMP, RFC 792) and IPv6 (ICMPv6, RFC 4443 §4.1–4.2: Echo Request 128,
//! Echo Reply 129).
//!
//! Two ways to send ICMP Echo without a setuid helper, tried in this order:
//! 1. An unprivileged *ping socket* (`socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)`, or `AF_INET6`
//!    with `IPPROTO_ICMPV6`), allowed when the caller's group is inside
//!    `net.ipv4.ping_group_range` (Linux reads that one range for both families). The kernel
//!    fills in the identifier and checksum and hands back only our own replies, without the IP
//!    header.
//! 2. A *raw socket* (`SOCK_RAW`), allowed to root or with `CAP_NET_RAW`. We write the
//!    identifier, and pick our replies out of every ICMP packet the host receives from the
//!    target. Over IPv4 we write the checksum and the kernel hands us the IP header too; over
//!    IPv6 the kernel always computes the checksum, since it covers a pseudo-header of addresses
//!    we do not choose (RFC 3542 §3.1), and hands us the ICMPv6 message alone.
//!
//! If neither is allowed, [`probe`] fails with [`crate::Error::IcmpNotPermitted`], whose message
//! says which sysctl or privilege would help.
//!
//! Echo data are the short payload of [`crate::wire`] (32-bit sequence and send time), so the
//! smallest datagram is 20 + 8 + 12 = 40 bytes over IPv4, Mills' minimum, and 40 + 8 + 12 = 60
//! over IPv6 (shorter lengths asked for are rounded up to it). There is no tag: the remote host
//! only echoes, so a tag could not prove who answered.

use crate::Error;
use crate::driver::{self, EchoSocket, ProbeRun, Received, Transport, Watch};
use crate::probe::{MILLS_MIN_LENGTH, ProbeConfig, Transmit};
use crate::time::{Clock, Nanos};
use crate::wire;
use nmc_serve::dial::{Dial, DialError};
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use std::io::{self, Read};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::os::fd::AsFd;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// IPv4 header (20) + ICMP header (8).
pub const HEADER_BYTES: u32 = 28;
/// IPv6 header (40) + ICMPv6 header (8).
pub const HEADER_BYTES_V6: u32 = 48;

/// The message types one family's Echo uses (RFC 792; RFC 4443 §3.1, §4.1, §4.2).
#[derive(Clone, Copy, Debug)]
struct Types {
    request: u8,
    reply: u8,
    unreachable: u8,
}

const ICMP: Types = Types {
    request: 8,
    reply: 0,
    unreachable: 3,
};
const ICMPV6: Types = Types {
    request: 128,
    reply: 129,
    unreachable: 1,
};

/// IP header plus ICMP header, in bytes, for a target of this family.
pub fn header_bytes(target: IpAddr) -> u32 {
    match target {
        IpAddr::V4(_) => HEADER_BYTES,
        IpAddr::V6(_) => HEADER_BYTES_V6,
    }
}

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

/// Opens an ICMP socket to `target` (ICMPv6 for an IPv6 one): a ping socket if allowed, else a
/// raw one, with the client's socket options set before it connects (`--bind` takes an
/// address; its port means nothing to ICMP).
pub fn open(target: IpAddr, dial: &Dial) -> Result<(Socket, Transport), Error> {
    let addr = SockAddr::from(SocketAddr::new(target, 0));
    let (domain, protocol) = match target {
        IpAddr::V4(_) => (Domain::IPV4, Protocol::ICMPV4),
        IpAddr::V6(_) => (Domain::IPV6, Protocol::ICMPV6),
    };
    // What can be refused before any socket is made is refused first, so it is refused with
    // or without the privilege to make one.
    dial.check(SocketAddr::new(target, 0), protocol)
        .map_err(|e| match e {
            DialError::Option(m) => Error::SocketOption(m),
            DialError::Connect(e) => Error::Io("open ICMP socket", e),
        })?;
    let attempt = |ty: Type| -> Result<Socket, DialError> {
        let s = Socket::new(domain, ty, Some(protocol)).map_err(DialError::Connect)?;
        dial.apply(&s, SocketAddr::new(target, 0), protocol)?;
        s.connect(&addr)
            .and_then(|()| s.set_nonblocking(true))
            .map_err(DialError::Connect)?;
        Ok(s)
    };
    let ping_err = match attempt(Type::DGRAM) {
        Ok(s) => return Ok((s, Transport::IcmpPing)),
        Err(DialError::Option(m)) => return Err(Error::SocketOption(m)),
        Err(DialError::Connect(e)) => e,
    };
    let raw_err = match attempt(Type::RAW) {
        Ok(s) => return Ok((s, Transport::IcmpRaw)),
        Err(DialError::Option(m)) => return Err(Error::SocketOption(m)),
        Err(DialError::Connect(e)) => e,
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
    target: IpAddr,
    types: Types,
    clock: Clock,
    buf: Vec<u8>,
}

/// An error a ping socket returns for an ICMP error the kernel matched to it (no route, host
/// unreachable): counted as an ICMP error, as a raw socket's Destination Unreachable is.
fn unreachable_error(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::ConnectionRefused
        || matches!(
            e.raw_os_error(),
            Some(libc::EHOSTUNREACH) | Some(libc::ENETUNREACH) | Some(libc::EHOSTDOWN)
        )
}

impl EchoSocket for IcmpSocket {
    fn overhead(&self) -> u32 {
        header_bytes(self.target)
    }

    fn local(&self) -> Option<std::net::SocketAddr> {
        self.sock.local_addr().ok()?.as_socket()
    }

    fn send(&mut self, tx: &Transmit) -> io::Result<()> {
        let data_len = (tx.length - self.overhead()) as usize;
        let total = 8 + data_len;
        let pkt = &mut self.buf[..total];
        pkt[0] = self.types.request;
        pkt[1] = 0;
        pkt[2..4].fill(0);
        pkt[4..6].copy_from_slice(&self.ident.to_be_bytes());
        pkt[6..8].copy_from_slice(&(tx.seq as u16).to_be_bytes());
        wire::encode_icmp_payload(&mut pkt[8..], data_len, tx.seq, tx.stamp.0);
        // The kernel recomputes it for a ping socket and for any ICMPv6 socket; a raw IPv4
        // socket sends what we write.
        let c = checksum(pkt);
        pkt[2..4].copy_from_slice(&c.to_be_bytes());
        match self.sock.send(pkt) {
            Ok(_) => Ok(()),
            // An earlier error report on a ping socket: the driver counts it.
            Err(e) if unreachable_error(&e) => Err(io::ErrorKind::ConnectionRefused.into()),
            Err(e) => Err(e),
        }
    }

    fn recv(&mut self, timeout: Duration) -> io::Result<Option<Received>> {
        let got = driver::recv_within(self.sock.as_fd(), timeout, || {
            (&self.sock).read(&mut self.buf)
        });
        let n = match got {
            Ok(Some(n)) => n,
            Ok(None) => return Ok(None),
            Err(e) if unreachable_error(&e) => return Ok(Some(Received::IcmpError)),
            Err(e) => return Err(e),
        };
        let at = self.clock.now();
        let overhead = self.overhead();
        Ok(Some(parse(
            &self.buf[..n],
            self.raw,
            self.target,
            self.ident,
            self.types,
            overhead,
            at,
        )))
    }
}

/// What one datagram read from an ICMP socket is: our Echo Reply, an error, or something else.
/// `raw` says the socket is raw (an IPv4 one then gives the IP header too, and every host's
/// replies reach it, so the source and identifier are checked); `overhead` is the IP and ICMP
/// headers' length, to give the reply's IP length.
fn parse(
    datagram: &[u8],
    raw: bool,
    target: IpAddr,
    ident: u16,
    types: Types,
    overhead: u32,
    at: Nanos,
) -> Received {
    let mut icmp = datagram;
    if raw {
        if let IpAddr::V4(target) = target {
            // Raw IPv4 sockets deliver the IP header too.
            let n = icmp.len();
            if n < 20 || icmp[0] >> 4 != 4 || icmp[9] != 1 {
                return Received::Other;
            }
            let src = Ipv4Addr::new(icmp[12], icmp[13], icmp[14], icmp[15]);
            let ihl = usize::from(icmp[0] & 0x0f) * 4;
            if ihl < 20 || n < ihl + 8 || src != target {
                return Received::Other;
            }
            icmp = &icmp[ihl..];
        }
        // A raw ICMPv6 socket connected to the target gets only its packets, with no IP header
        // (RFC 3542 §3), but every ICMPv6 message from it: neighbour discovery too.
        if icmp.len() >= 8
            && icmp[0] == types.reply
            && u16::from_be_bytes([icmp[4], icmp[5]]) != ident
        {
            return Received::Other;
        }
    }
    if icmp.len() < 8 {
        return Received::Other;
    }
    if icmp[0] == types.reply {
        match wire::decode_icmp_payload(&icmp[8..]) {
            Some((seq, stamp)) => Received::Reply {
                at,
                seq,
                stamp: Nanos(stamp),
                turnaround: None,
                // The ICMP message (header and data) under its IP header.
                length: icmp.len() as u32 + overhead - 8,
                server_rx_unix_ns: None,
                server_count: None,
            },
            None => Received::Other,
        }
    } else if icmp[0] == types.unreachable {
        Received::IcmpError
    } else {
        Received::Other
    }
}

/// Smallest and largest datagram (IP length, bytes) an ICMP probe to `target` can send: over
/// IPv4 40 (IPv4 + ICMP headers + 12 bytes of data, Mills' minimum), over IPv6 60 (IPv6 + ICMPv6
/// headers + the same 12 bytes); 65535 either way.
pub fn length_limits(target: IpAddr) -> (u32, u32) {
    (
        MILLS_MIN_LENGTH.max(header_bytes(target) + wire::ICMP_PAYLOAD_MIN as u32),
        65_535,
    )
}

/// Runs a probe of ICMP Echo (ICMPv6 Echo for an IPv6 target) to `target`. The driver sets
/// `cfg.floor` and `cfg.max_length` from [`length_limits`].
pub fn probe(
    target: IpAddr,
    cfg: ProbeConfig,
    stop: &AtomicBool,
    watch: Watch<'_>,
) -> Result<ProbeRun, Error> {
    probe_dialed(target, &Dial::default(), cfg, stop, watch)
}

/// [`probe`] with the client's socket options (`--bind`, `--dscp`, `--window`; `--congestion`
/// is refused, ICMP not being TCP).
pub fn probe_dialed(
    target: IpAddr,
    dial: &Dial,
    mut cfg: ProbeConfig,
    stop: &AtomicBool,
    watch: Watch<'_>,
) -> Result<ProbeRun, Error> {
    let (sock, transport) = open(target, dial)?;
    (cfg.floor, cfg.max_length) = length_limits(target);
    let clock = Clock::new();
    // SAFETY: getpid has no preconditions. The identifier only matters for raw sockets.
    let ident = (unsafe { libc::getpid() } as u32 ^ (cfg.seed as u32).rotate_left(16)) as u16;
    let mut s = IcmpSocket {
        sock,
        raw: transport == Transport::IcmpRaw,
        ident,
        target,
        types: match target {
            IpAddr::V4(_) => ICMP,
            IpAddr::V6(_) => ICMPV6,
        },
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

    fn echo_reply(types: Types, ident: u16, seq: u32, data: usize) -> Vec<u8> {
        let mut p = vec![0u8; 8 + data];
        p[0] = types.reply;
        p[4..6].copy_from_slice(&ident.to_be_bytes());
        wire::encode_icmp_payload(&mut p[8..], data, seq, 77);
        p
    }

    #[test]
    fn an_icmpv6_echo_reply_is_type_129_and_counts_a_40_byte_header() {
        let target: IpAddr = "::1".parse().unwrap();
        let reply = echo_reply(ICMPV6, 9, 5, 12);
        // A ping socket's reply: sequence and stamp back, IP length 40 + 8 + 12.
        match parse(&reply, false, target, 9, ICMPV6, 48, Nanos(3)) {
            Received::Reply {
                seq, stamp, length, ..
            } => assert_eq!((seq, stamp, length), (5, Nanos(77), 60)),
            other => panic!("{other:?}"),
        }
        // On a raw socket another process's identifier is not ours.
        assert!(matches!(
            parse(&reply, true, target, 10, ICMPV6, 48, Nanos(3)),
            Received::Other
        ));
        // An IPv4 Echo Reply's type (0) is not ICMPv6's; a Neighbour Solicitation (135) neither.
        let mut v4 = reply.clone();
        v4[0] = ICMP.reply;
        assert!(matches!(
            parse(&v4, false, target, 9, ICMPV6, 48, Nanos(3)),
            Received::Other
        ));
        v4[0] = 135;
        assert!(matches!(
            parse(&v4, true, target, 9, ICMPV6, 48, Nanos(3)),
            Received::Other
        ));
        // Destination Unreachable is type 1 (RFC 4443 §3.1).
        v4[0] = 1;
        assert!(matches!(
            parse(&v4, false, target, 9, ICMPV6, 48, Nanos(3)),
            Received::IcmpError
        ));
    }

    #[test]
    fn the_shortest_datagram_is_40_bytes_over_ipv4_and_60_over_ipv6() {
        assert_eq!(length_limits("192.0.2.1".parse().unwrap()), (40, 65_535));
        assert_eq!(length_limits("2001:db8::1".parse().unwrap()), (60, 65_535));
    }
}
