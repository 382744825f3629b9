//! How a client's sockets are made (issue 58 §7): the knobs path and AQM studies reach for,
//! set before the socket connects. The local address and port (`--bind`), the DSCP
//! (`--dscp`, as the IP TOS byte or the IPv6 traffic class), TCP's congestion control
//! (`--congestion`, Linux) and the socket buffers (`-w`/`--window`, as iperf3's). With none
//! given, a socket is made as before: bound by the kernel, the system's defaults.

pub use socket2::Protocol;
use socket2::{Domain, Socket, Type};
use std::io;
use std::net::{SocketAddr, TcpStream, UdpSocket};
use std::time::Duration;

/// A client socket's options; `Dial::default()` sets none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dial {
    /// Bind here before connecting (port 0: any port).
    pub bind: Option<SocketAddr>,
    /// The DSCP (0 to 63), sent as `dscp << 2` in the IP TOS byte or IPv6 traffic class.
    pub dscp: Option<u8>,
    /// TCP's congestion control algorithm (Linux: one of
    /// `/proc/sys/net/ipv4/tcp_available_congestion_control`).
    pub congestion: Option<String>,
    /// The send and receive buffers, bytes (the kernel may double it, and caps it).
    pub window: Option<usize>,
}

/// Why a socket could not be made as asked: one line that names the option.
#[derive(Debug, thiserror::Error)]
pub enum DialError {
    /// An option the system refused (bad input: exit 2 at the command line).
    #[error("{0}")]
    Option(String),
    /// Connecting failed (the target's part).
    #[error(transparent)]
    Connect(io::Error),
}

/// Linux's `TCP_CA_NAME_MAX`, the terminating zero included (`include/net/tcp.h`): a name
/// this long or longer is no algorithm's, and is refused before it is echoed whole (issue 74
/// §3).
const CONGESTION_NAME_MAX: usize = 16;

impl Dial {
    /// Whether no option is set (sockets are made the plain way).
    pub fn is_plain(&self) -> bool {
        *self == Dial::default()
    }

    /// Checks what can be checked before a socket is made: the DSCP's range, a bind address of
    /// the target's family, and a congestion control only for a socket carrying `proto` TCP.
    pub fn check(&self, to: SocketAddr, proto: Protocol) -> Result<(), DialError> {
        if let Some(d) = self.dscp
            && d > 63
        {
            return Err(DialError::Option(format!(
                "--dscp {d}: a DSCP is 0 to 63 (46 is EF, 0 best effort)"
            )));
        }
        if let Some(b) = self.bind
            && b.is_ipv4() != to.is_ipv4()
        {
            return Err(DialError::Option(format!(
                "--bind {b}: the target {to} is of the other address family"
            )));
        }
        if self.window == Some(0) {
            return Err(DialError::Option(
                "--window 0: give a size, e.g. 4MiB".into(),
            ));
        }
        if let Some(cc) = &self.congestion
            && cc.len() >= CONGESTION_NAME_MAX
        {
            let start: String = cc.chars().take(CONGESTION_NAME_MAX).collect();
            return Err(DialError::Option(format!(
                "--congestion {start}…: no such algorithm (a name is {} bytes at most)",
                CONGESTION_NAME_MAX - 1
            )));
        }
        if let Some(cc) = &self.congestion
            && proto != Protocol::TCP
        {
            return Err(DialError::Option(format!(
                "--congestion {cc}: TCP only (this run is not over TCP)"
            )));
        }
        Ok(())
    }

    fn socket(&self, to: SocketAddr, ty: Type, proto: Protocol) -> Result<Socket, DialError> {
        let s =
            Socket::new(Domain::for_address(to), ty, Some(proto)).map_err(DialError::Connect)?;
        self.apply(&s, to, proto)?;
        Ok(s)
    }

    /// Sets these options on a socket made elsewhere (an ICMP one, whose kind the prober chose),
    /// before it connects to `to`; `proto` says which protocol it carries.
    pub fn apply(&self, s: &Socket, to: SocketAddr, proto: Protocol) -> Result<(), DialError> {
        self.check(to, proto)?;
        let refused = |what: String, e: io::Error| DialError::Option(format!("{what}: {e}"));
        if let Some(d) = self.dscp {
            let tos = u32::from(d) << 2;
            if to.is_ipv4() {
                s.set_tos_v4(tos)
            } else {
                s.set_tclass_v6(tos)
            }
            .map_err(|e| refused(format!("--dscp {d}"), e))?;
        }
        if let Some(w) = self.window {
            s.set_send_buffer_size(w)
                .and_then(|()| s.set_recv_buffer_size(w))
                .map_err(|e| refused(format!("--window {w}"), e))?;
        }
        if let Some(cc) = &self.congestion {
            set_congestion(s, cc)?;
        }
        if let Some(b) = self.bind {
            s.bind(&b.into()).map_err(|e| match e.kind() {
                io::ErrorKind::AddrNotAvailable => {
                    DialError::Option(format!("--bind {b}: not an address of this host"))
                }
                _ => refused(format!("--bind {b}"), e),
            })?;
        }
        Ok(())
    }

    /// A TCP connection to `to` within `timeout`, with these options.
    pub fn tcp(&self, to: SocketAddr, timeout: Duration) -> Result<TcpStream, DialError> {
        if self.is_plain() {
            return TcpStream::connect_timeout(&to, timeout).map_err(DialError::Connect);
        }
        let s = self.socket(to, Type::STREAM, Protocol::TCP)?;
        s.connect_timeout(&to.into(), timeout)
            .map_err(DialError::Connect)?;
        Ok(s.into())
    }

    /// A UDP socket connected to `to`, with these options.
    pub fn udp(&self, to: SocketAddr) -> Result<UdpSocket, DialError> {
        let s = if self.is_plain() {
            let any: SocketAddr = if to.is_ipv4() {
                ([0, 0, 0, 0], 0).into()
            } else {
                ([0u16; 8], 0).into()
            };
            UdpSocket::bind(any).map_err(DialError::Connect)?
        } else {
            self.socket(to, Type::DGRAM, Protocol::UDP)?.into()
        };
        s.connect(to).map_err(DialError::Connect)?;
        Ok(s)
    }
}

#[cfg(target_os = "linux")]
fn set_congestion(s: &Socket, cc: &str) -> Result<(), DialError> {
    s.set_tcp_congestion(cc.as_bytes()).map_err(|e| {
        DialError::Option(match e.raw_os_error() {
            Some(libc::ENOENT) => format!(
                "--congestion {cc}: this kernel has no such algorithm (see /proc/sys/net/ipv4/tcp_available_congestion_control)"
            ),
            Some(libc::EPERM) => format!(
                "--congestion {cc}: not allowed to this user (net.ipv4.tcp_allowed_congestion_control)"
            ),
            _ => format!("--congestion {cc}: {e}"),
        })
    })
}

#[cfg(not(target_os = "linux"))]
fn set_congestion(_s: &Socket, cc: &str) -> Result<(), DialError> {
    Err(DialError::Option(format!(
        "--congestion {cc}: only on Linux"
    )))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// Each option reaches the socket: the DSCP in the TOS byte, the buffers, the algorithm,
    /// the local address; and a refused option is one line that names it.
    #[test]
    fn the_options_reach_the_socket() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let to = l.local_addr().unwrap();
        let d = Dial {
            bind: Some("127.0.0.1:0".parse().unwrap()),
            dscp: Some(46),
            congestion: Some("cubic".into()),
            window: Some(1 << 20),
        };
        let s = d.tcp(to, Duration::from_secs(2)).expect("connects");
        let r = socket2::SockRef::from(&s);
        assert_eq!(r.tos_v4().unwrap(), 46 << 2);
        assert!(r.send_buffer_size().unwrap() >= 1 << 20);
        let cc = r.tcp_congestion().unwrap();
        assert_eq!(cc.split(|&b| b == 0).next(), Some(&b"cubic"[..]));
        assert_eq!(s.local_addr().unwrap().ip(), to.ip());
        let u = Dial {
            dscp: Some(10),
            ..Dial::default()
        }
        .udp(to)
        .unwrap();
        assert_eq!(socket2::SockRef::from(&u).tos_v4().unwrap(), 10 << 2);

        let bad = |d: Dial, said: &str| {
            let e = d.tcp(to, Duration::from_secs(2)).unwrap_err();
            assert!(matches!(e, DialError::Option(_)), "{e}");
            assert!(e.to_string().contains(said), "{e}");
        };
        bad(
            Dial {
                dscp: Some(64),
                ..Dial::default()
            },
            "a DSCP is 0 to 63",
        );
        bad(
            Dial {
                congestion: Some("no-such-cc".into()),
                ..Dial::default()
            },
            "no such algorithm",
        );
        bad(
            Dial {
                bind: Some("192.0.2.1:0".parse().unwrap()),
                ..Dial::default()
            },
            "not an address of this host",
        );
        bad(
            Dial {
                bind: Some("[::1]:0".parse().unwrap()),
                ..Dial::default()
            },
            "other address family",
        );
    }
}
