//! One port for UDP and TCP: the echo server's pump side and the discard sink listen on both
//! at the same port number.

use socket2::{Domain, Socket, Type};
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, UdpSocket};

/// Tries, for port 0, before giving up on a port the kernel picked for UDP and found taken for
/// TCP (each try is a fresh pick).
const TRIES: u32 = 64;

/// Which of the two binds failed, and at what address.
#[derive(Debug, thiserror::Error)]
pub enum BindError {
    /// The UDP socket could not be bound.
    #[error("cannot bind UDP {0}: {1}")]
    Udp(SocketAddr, #[source] io::Error),
    /// The TCP listener could not be bound at the UDP socket's port.
    #[error("cannot listen on TCP {0}: {1}")]
    Tcp(SocketAddr, #[source] io::Error),
}

impl From<BindError> for io::Error {
    fn from(e: BindError) -> io::Error {
        let kind = match &e {
            BindError::Udp(_, e) | BindError::Tcp(_, e) => e.kind(),
        };
        io::Error::new(kind, e.to_string())
    }
}

/// The receive buffer a server's UDP socket asks for, bytes. **Choice**: 4 MiB, the largest
/// Linux's default `net.core.rmem_max` allows and 16 pump messages of 64 KiB.
pub const RECV_BUFFER: usize = 4 << 20;

/// Where every server listens unless told (issue 58 §7): all of the host's addresses, IPv6 and
/// IPv4 alike (`[::]`, dual-stack), port `port`.
pub fn any(port: u16) -> SocketAddr {
    SocketAddr::from((Ipv6Addr::UNSPECIFIED, port))
}

/// A socket of `ty` bound to `addr` (a TCP one listening). `[::]` is dual-stack whatever the
/// system's default (`IPV6_V6ONLY` off): IPv4 clients arrive as `::ffff:a.b.c.d`. On a host
/// without IPv6, `[::]` is bound as `0.0.0.0`, the same port.
fn socket(addr: SocketAddr, ty: Type) -> io::Result<Socket> {
    let open = |addr: SocketAddr| -> io::Result<Socket> {
        let s = Socket::new(Domain::for_address(addr), ty, None)?;
        if addr.is_ipv6() && addr.ip().is_unspecified() {
            s.set_only_v6(false)?;
        }
        if ty == Type::DGRAM {
            // A server's one UDP socket takes every client's bursts (a pump's message is up
            // to 64 datagrams, several outstanding): the kernel's default (about 208 KiB on
            // Linux) overflowed on a burst of 4 messages of 64 KiB, losing the same last
            // datagrams each time. Asked for, not required: the system's cap
            // (net.core.rmem_max) may give less.
            let _ = s.set_recv_buffer_size(RECV_BUFFER);
        }
        if ty == Type::STREAM {
            // As std's TcpListener::bind does on Unix: a restarted server gets its port back
            // while the last one's connections are in TIME_WAIT.
            #[cfg(unix)]
            s.set_reuse_address(true)?;
        }
        s.bind(&addr.into())?;
        if ty == Type::STREAM {
            s.listen(1024)?;
        }
        Ok(s)
    };
    match open(addr) {
        Err(e) if addr == any(addr.port()) && no_ipv6(&e) => {
            open(SocketAddr::from((Ipv4Addr::UNSPECIFIED, addr.port())))
        }
        r => r,
    }
}

/// Whether `e` says this host has no IPv6 (the family unsupported, or no address to bind).
fn no_ipv6(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::AddrNotAvailable
        || e.raw_os_error() == Some(libc::EAFNOSUPPORT)
        || e.raw_os_error() == Some(libc::EPROTONOSUPPORT)
}

/// A UDP socket bound to `addr`; `[::]` is dual-stack (IPv4 clients arrive as
/// `::ffff:a.b.c.d`), or `0.0.0.0` on a host without IPv6. It asks for [`RECV_BUFFER`].
pub fn udp(addr: SocketAddr) -> io::Result<UdpSocket> {
    socket(addr, Type::DGRAM).map(Into::into)
}

/// A TCP listener on `addr`; `[::]` is dual-stack, or `0.0.0.0` on a host without IPv6.
pub fn tcp(addr: SocketAddr) -> io::Result<TcpListener> {
    socket(addr, Type::STREAM).map(Into::into)
}

/// A UDP socket and a TCP listener on one port of `addr`'s address: its port, or for port 0 a
/// free port both can have. The kernel's pick for UDP may be in use for TCP (a listener, or
/// the local end of a connection): then the pair is picked again, up to 64 times. `[::]` is
/// dual-stack ([`udp`], [`tcp`]).
pub fn udp_and_tcp(addr: SocketAddr) -> Result<(UdpSocket, TcpListener), BindError> {
    udp_and_tcp_with(addr, udp, tcp)
}

fn udp_and_tcp_with<U, T>(
    addr: SocketAddr,
    mut bind_udp: impl FnMut(SocketAddr) -> io::Result<U>,
    mut bind_tcp: impl FnMut(SocketAddr) -> io::Result<T>,
) -> Result<(U, T), BindError>
where
    U: LocalAddr,
{
    let tries = if addr.port() == 0 { TRIES } else { 1 };
    let mut tried = 0;
    loop {
        tried += 1;
        let udp = bind_udp(addr).map_err(|e| BindError::Udp(addr, e))?;
        let at = udp.local_addr().map_err(|e| BindError::Udp(addr, e))?;
        match bind_tcp(at) {
            Ok(tcp) => return Ok((udp, tcp)),
            Err(e) if e.kind() == io::ErrorKind::AddrInUse && tried < tries => continue,
            Err(e) => return Err(BindError::Tcp(at, e)),
        }
    }
}

/// A socket's local address (a trait so that the retry can be tested without the kernel).
trait LocalAddr {
    fn local_addr(&self) -> io::Result<SocketAddr>;
}

impl LocalAddr for UdpSocket {
    fn local_addr(&self) -> io::Result<SocketAddr> {
        UdpSocket::local_addr(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in UDP socket at a given port.
    #[derive(Debug)]
    struct Fake(SocketAddr);
    impl LocalAddr for Fake {
        fn local_addr(&self) -> io::Result<SocketAddr> {
            Ok(self.0)
        }
    }

    fn at(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    /// Port 0: the kernel picks 40001, 40002, 40003 for UDP; the first two are taken for TCP,
    /// so the pair is picked again until both bind, at 40003.
    #[test]
    fn port_zero_picks_again_when_tcp_finds_the_port_taken() {
        let mut next = 40_000;
        let got = udp_and_tcp_with(
            at(0),
            |_| {
                next += 1;
                Ok(Fake(at(next)))
            },
            |a: SocketAddr| {
                if a.port() < 40_003 {
                    Err(io::Error::from(io::ErrorKind::AddrInUse))
                } else {
                    Ok(a)
                }
            },
        )
        .expect("a free pair");
        assert_eq!((got.0.0, got.1), (at(40_003), at(40_003)));
    }

    /// A port asked for is the port used: taken for TCP, it is an error that names it.
    #[test]
    fn a_port_asked_for_is_not_changed() {
        let err = udp_and_tcp_with(
            at(5000),
            |a| Ok(Fake(a)),
            |_: SocketAddr| Err::<SocketAddr, _>(io::Error::from(io::ErrorKind::AddrInUse)),
        )
        .unwrap_err();
        assert!(
            matches!(err, BindError::Tcp(a, _) if a == at(5000)),
            "{err}"
        );
    }

    /// Issue 58 §7: `[::]` takes IPv6 and IPv4 clients on one port, TCP and UDP, whatever the
    /// system's `bindv6only`; IPv4 ones arrive as `::ffff:127.0.0.1`.
    #[test]
    fn the_default_address_serves_ipv4_and_ipv6() {
        use std::io::{Read, Write};
        let (u, t) = udp_and_tcp(any(0)).expect("bind [::]:0");
        let port = u.local_addr().unwrap().port();
        let mut clients = vec![SocketAddr::from(([127, 0, 0, 1], port))];
        if UdpSocket::bind("[::1]:0").is_ok() {
            clients.push(SocketAddr::from((Ipv6Addr::LOCALHOST, port)));
        }
        for to in clients {
            let c = UdpSocket::bind(SocketAddr::new(to.ip(), 0)).unwrap();
            c.send_to(b"ping", to).unwrap();
            let mut b = [0u8; 8];
            let (n, from) = u.recv_from(&mut b).unwrap();
            assert_eq!(&b[..n], b"ping");
            assert_eq!(from.ip().to_canonical(), to.ip(), "{from}");
            u.send_to(b"pong", from).unwrap();
            c.recv(&mut b).unwrap();
            let mut s = std::net::TcpStream::connect(to).unwrap();
            let (mut a, _) = t.accept().unwrap();
            s.write_all(b"x").unwrap();
            a.read_exact(&mut b[..1]).unwrap();
        }
    }

    /// Issue 58 §5: a server's UDP socket asks for [`RECV_BUFFER`]; Linux gives twice what is
    /// asked, up to twice `net.core.rmem_max`.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_servers_udp_socket_asks_for_a_large_receive_buffer() {
        let u = udp(SocketAddr::from(([127, 0, 0, 1], 0))).unwrap();
        let got = socket2::SockRef::from(&u).recv_buffer_size().unwrap();
        let cap: usize = std::fs::read_to_string("/proc/sys/net/core/rmem_max")
            .map_or(usize::MAX, |s| s.trim().parse().unwrap_or(usize::MAX));
        assert!(got >= RECV_BUFFER.min(cap), "{got} bytes (cap {cap})");
    }

    /// Port 0 gives up after its tries rather than looping for ever.
    #[test]
    fn port_zero_gives_up_after_its_tries() {
        let mut tries = 0;
        let err = udp_and_tcp_with(
            at(0),
            |_| {
                tries += 1;
                Ok(Fake(at(40_000)))
            },
            |_: SocketAddr| Err::<SocketAddr, _>(io::Error::from(io::ErrorKind::AddrInUse)),
        )
        .unwrap_err();
        assert!(matches!(err, BindError::Tcp(..)));
        assert_eq!(tries, TRIES);
    }

    /// On the real kernel: a pair on port 0 shares one port number.
    #[test]
    fn a_real_pair_shares_its_port() {
        let (udp, tcp) = udp_and_tcp(at(0)).expect("loopback");
        assert_eq!(
            udp.local_addr().unwrap().port(),
            tcp.local_addr().unwrap().port()
        );
    }
}
