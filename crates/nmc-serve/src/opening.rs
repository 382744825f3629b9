//! How a UDP run opens (issue 58 §1): with an exchange the server answers, before anything is
//! measured, as iperf3's control connection and irtt's handshake open theirs.
//!
//! UDP sends into the void without a word: a run to a dead host, a firewalled port or a server
//! that wants a secret the client did not give used to measure nothing and report it as a
//! result. So a UDP client first sends one small request its server already answers (the
//! stream sink's tally request, the echo server's echo request: each instrument uses an
//! exchange of its own protocol, so no server changes its wire), again every [`RESEND`], until
//! an answer comes or its deadline passes. The answer is never longer than the request, so the
//! exchange amplifies nothing.
//!
//! When nothing answers, one look at the server's TCP port on the same number tells the cases
//! apart for the one-line error ([`Silence`]): a challenge there means the server wants a
//! secret (every nmc server with a secret opens TCP with it, [`crate::auth`]), a refusal that
//! nothing listens, silence that the host does not answer at all.

use std::io::{self, Read};
use std::net::{SocketAddr, TcpStream, UdpSocket};
use std::time::{Duration, Instant};

/// How often the opening request is sent again while no answer has come. **Choice**: 250 ms,
/// a few tries within a second on a path that loses one, few enough to be no load.
pub const RESEND: Duration = Duration::from_millis(250);

/// The longest the TCP look after a silent opening may take, connecting and then reading the
/// challenge each. **Choice**: 2 s, far above a round trip on any path a run could measure.
pub const TCP_LOOK: Duration = Duration::from_secs(2);

/// Why a UDP run could not open.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The server's host answered with an ICMP unreachable: nothing listens there.
    #[error("{0}")]
    Refused(io::Error),
    /// Nothing answered within the deadline; the message says what the TCP look found.
    #[error(transparent)]
    Silent(#[from] Silence),
    /// A socket call failed.
    #[error("{0}")]
    Io(io::Error),
}

/// What one look at the server's TCP port found, after its UDP port did not answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpLook {
    /// The server opened the connection with the secret's challenge.
    WantsSecret,
    /// It accepted the connection and sent no challenge.
    Open,
    /// The connection was refused.
    Refused,
    /// The connection attempt was not answered (or failed otherwise).
    Silent,
}

/// A UDP opening nobody answered, in one line.
#[derive(Debug, thiserror::Error)]
#[error("no answer over UDP from {addr} within {within:?}: {}", self.why())]
pub struct Silence {
    /// The server's address.
    pub addr: SocketAddr,
    /// How long the client waited.
    pub within: Duration,
    /// Whether the client holds a secret (its requests were tagged).
    pub keyed: bool,
    /// What the TCP port on the same number said.
    pub tcp: TcpLook,
}

impl Silence {
    /// The likely cause, from what the TCP look found.
    pub fn why(&self) -> &'static str {
        match (self.tcp, self.keyed) {
            (TcpLook::WantsSecret, false) => {
                "the server wants a secret (its TCP port sends the challenge): give it with --secret-file"
            }
            (TcpLook::WantsSecret, true) => {
                "the server has a secret (its TCP port sends the challenge) that does not match this one"
            }
            (TcpLook::Open, false) => {
                "its TCP port is open, so a firewall drops UDP there, or it is not an nmc server"
            }
            (TcpLook::Open, true) => {
                "its TCP port is open, so a firewall drops UDP there, it is not an nmc server, or it has no secret"
            }
            (TcpLook::Refused, _) => "nothing listens there (its TCP port refuses too)",
            (TcpLook::Silent, _) => {
                "the host does not answer (down, or a firewall drops what is sent to it)"
            }
        }
    }
}

/// Opens a UDP run on `sock`, connected to the server: sends `request`, again every
/// [`RESEND`], until a datagram for which `answered` holds comes back, or `within` has passed.
/// Returns the time from the first request to the answer. Datagrams that are not the answer
/// are read and ignored. Leaves `sock`'s read timeout changed: the caller sets its own.
///
/// An ICMP unreachable ([`OpenError::Refused`]) ends it at once; silence ends it at the
/// deadline with the TCP look of [`look_at_tcp`] ([`OpenError::Silent`]).
pub fn open_udp(
    sock: &UdpSocket,
    request: &[u8],
    answered: &dyn Fn(&[u8]) -> bool,
    within: Duration,
    keyed: bool,
) -> Result<Duration, OpenError> {
    let addr = sock.peer_addr().map_err(OpenError::Io)?;
    let start = Instant::now();
    let deadline = start + within;
    let mut next_send = start;
    let mut buf = [0u8; 2048];
    loop {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        if now >= next_send {
            match sock.send(request) {
                Ok(_) => {}
                Err(e) if unreachable(&e) => return Err(OpenError::Refused(e)),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(OpenError::Io(e)),
            }
            next_send = now + RESEND;
        }
        let wait = next_send
            .min(deadline)
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(1));
        sock.set_read_timeout(Some(wait)).map_err(OpenError::Io)?;
        match sock.recv(&mut buf) {
            Ok(n) if answered(&buf[..n]) => return Ok(start.elapsed()),
            Ok(_) => {}
            Err(e) if unreachable(&e) => return Err(OpenError::Refused(e)),
            Err(e) if crate::auth::waiting(&e) => {}
            Err(e) => return Err(OpenError::Io(e)),
        }
    }
    Err(OpenError::Silent(Silence {
        addr,
        within,
        keyed,
        tcp: look_at_tcp(addr, TCP_LOOK),
    }))
}

/// Whether a UDP socket error is the ICMP answer that no one listens there (port or host
/// unreachable).
pub fn unreachable(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::HostUnreachable
            | io::ErrorKind::NetworkUnreachable
    )
}

/// One look at the TCP port `addr`: connects within `within` and reads, for as long again,
/// whether the server opens with the secret's challenge. The connection is then closed (a
/// server logs it as a client that left).
pub fn look_at_tcp(addr: SocketAddr, within: Duration) -> TcpLook {
    let mut s = match TcpStream::connect_timeout(&addr, within) {
        Ok(s) => s,
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => return TcpLook::Refused,
        Err(_) => return TcpLook::Silent,
    };
    let mut first = [0u8; crate::auth::CHALLENGE_MAGIC.len()];
    if s.set_read_timeout(Some(within)).is_ok()
        && s.read_exact(&mut first).is_ok()
        && first == crate::auth::CHALLENGE_MAGIC
    {
        return TcpLook::WantsSecret;
    }
    TcpLook::Open
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connected(to: SocketAddr) -> UdpSocket {
        let s = UdpSocket::bind("127.0.0.1:0").unwrap();
        s.connect(to).unwrap();
        s
    }

    /// A server that answers the third request only: the client sends again until it does.
    #[test]
    fn an_answer_opens_the_run_and_lost_requests_are_sent_again() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        let to = server.local_addr().unwrap();
        let t = std::thread::spawn(move || {
            let mut b = [0u8; 64];
            for i in 0..3 {
                let (n, from) = server.recv_from(&mut b).unwrap();
                assert_eq!(&b[..n], b"hello?");
                if i == 2 {
                    server.send_to(b"other", from).unwrap();
                    server.send_to(b"yes", from).unwrap();
                }
            }
        });
        let s = connected(to);
        let took = open_udp(
            &s,
            b"hello?",
            &|a| a == b"yes",
            Duration::from_secs(20),
            false,
        )
        .expect("answered");
        t.join().unwrap();
        assert!(took >= 2 * RESEND, "{took:?}");
    }

    /// A bound socket that never answers: silence at the deadline, and the TCP look finds
    /// nothing listening on that number.
    #[test]
    fn silence_ends_at_the_deadline_and_says_what_tcp_found() {
        let server = UdpSocket::bind("127.0.0.1:0").unwrap();
        let s = connected(server.local_addr().unwrap());
        let e = open_udp(&s, b"hello?", &|_| true, Duration::from_millis(600), false)
            .expect_err("nothing answers");
        let OpenError::Silent(silence) = e else {
            panic!("{e}")
        };
        assert_eq!(silence.tcp, TcpLook::Refused);
        let line = silence.to_string();
        assert!(
            line.starts_with("no answer over UDP from 127.0.0.1:"),
            "{line}"
        );
        assert!(line.contains("nothing listens there"), "{line}");
        let mut b = [0u8; 16];
        server.set_nonblocking(true).unwrap();
        assert!(server.recv(&mut b).is_ok(), "the request was sent");
    }

    /// A port nobody listens on: the ICMP refusal ends the opening at once.
    #[test]
    fn a_closed_port_is_refused() {
        let port = UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let s = connected(port);
        let t = Instant::now();
        let e = open_udp(&s, b"hello?", &|_| true, Duration::from_secs(20), false)
            .expect_err("refused");
        assert!(matches!(e, OpenError::Refused(_)), "{e}");
        assert!(t.elapsed() < Duration::from_secs(15));
    }

    /// A TCP listener that opens with the challenge is a server that wants a secret.
    #[test]
    fn a_challenge_on_tcp_means_a_secret() {
        use std::io::Write;
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let t = std::thread::spawn(move || {
            let (mut c, _) = l.accept().unwrap();
            let _ = c.write_all(&crate::auth::CHALLENGE_MAGIC);
        });
        assert_eq!(
            look_at_tcp(addr, Duration::from_secs(10)),
            TcpLook::WantsSecret
        );
        t.join().unwrap();
        let s = Silence {
            addr,
            within: Duration::from_secs(10),
            keyed: false,
            tcp: TcpLook::WantsSecret,
        };
        assert!(s.to_string().contains("give it with --secret-file"), "{s}");
    }
}
