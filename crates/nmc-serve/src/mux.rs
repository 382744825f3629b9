//! Several instruments on one port: `nmc serve` answers the echo probe, the pump, the stream
//! and the cost sink on one UDP and one TCP port. Each instrument's protocol opens with its own
//! four bytes, so a server tells them apart by looking, not by asking:
//!
//! | first bytes | instrument | crate |
//! | --- | --- | --- |
//! | `NMCe` | `nmc echo probe` (UDP) | nmc-probe |
//! | `NMCp` | `nmc pump` (UDP and TCP) | nmc-probe |
//! | `N508`, `R508`, `H508`, `A508` | `nmc stream` (UDP and TCP) | nmc-realtime |
//! | anything else | `nmc cost` (its data; UDP only without a secret) | nmc-cost |
//!
//! The echo server (nmc-probe) owns the socket loop and serves the first two itself; the
//! others are [`Service`]s it is handed, asked in order. A TCP connection is dispatched on its
//! first four bytes, read with [`Conn::peek_first`] after the secret's handshake, so the
//! service that takes it reads them again as if nothing had looked. A datagram is offered to
//! each service in turn; one no service takes goes to the echo server, which counts it as
//! malformed.
//!
//! This trait lives here, below the three instrument crates, so that each can offer its server
//! side without depending on the others; the binary puts them together.

use crate::gate::Conn;
use std::fmt;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;

/// How many first bytes of a TCP connection a dispatcher looks at.
pub const TAG_BYTES: usize = 4;

/// One instrument's server side, served on a port another server owns.
pub trait Service: Send + Sync {
    /// Short name for log lines, e.g. "stream sink".
    fn name(&self) -> &'static str;
    /// Whether a TCP connection that opened with `first` (four bytes, or fewer if the client
    /// sent fewer and closed) is this service's.
    fn claims(&self, first: &[u8]) -> bool;
    /// Serves a claimed connection, its first bytes still unread.
    fn connection(&self, c: &mut Conn) -> io::Result<()>;
    /// Takes the datagram `pkt` from `src` if it is this service's (true), answering through
    /// `sock` if it must; false leaves it for the next.
    fn datagram(&self, sock: &UdpSocket, src: SocketAddr, pkt: &[u8]) -> bool;
    /// What it has counted so far, in one line.
    fn summary(&self) -> String;
}

/// The services a server is handed, asked in this order.
#[derive(Clone, Default)]
pub struct Services(pub Vec<Arc<dyn Service>>);

impl Services {
    /// Whether there are no services.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The first service that claims a connection opening with `first`.
    pub fn for_connection(&self, first: &[u8]) -> Option<&Arc<dyn Service>> {
        self.0.iter().find(|s| s.claims(first))
    }

    /// Offers a datagram to each service in turn: true once one has taken it.
    pub fn datagram(&self, sock: &UdpSocket, src: SocketAddr, pkt: &[u8]) -> bool {
        self.0.iter().any(|s| s.datagram(sock, src, pkt))
    }

    /// One log line per service: "name: summary".
    pub fn summaries(&self) -> Vec<String> {
        self.0
            .iter()
            .map(|s| format!("{}: {}", s.name(), s.summary()))
            .collect()
    }
}

impl fmt::Debug for Services {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|s| s.name()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    struct Prefix(&'static [u8], AtomicU64);

    impl Service for Prefix {
        fn name(&self) -> &'static str {
            "prefix"
        }
        fn claims(&self, first: &[u8]) -> bool {
            first.starts_with(self.0)
        }
        fn connection(&self, _: &mut Conn) -> io::Result<()> {
            Ok(())
        }
        fn datagram(&self, _: &UdpSocket, _: SocketAddr, pkt: &[u8]) -> bool {
            let mine = pkt.starts_with(self.0);
            if mine {
                self.1.fetch_add(1, Ordering::Relaxed);
            }
            mine
        }
        fn summary(&self) -> String {
            format!("{} datagrams", self.1.load(Ordering::Relaxed))
        }
    }

    #[test]
    fn services_are_asked_in_order_and_the_first_that_claims_takes_it() {
        let a = Arc::new(Prefix(b"AB", AtomicU64::new(0)));
        let any = Arc::new(Prefix(b"", AtomicU64::new(0)));
        let s = Services(vec![a.clone(), any.clone()]);
        let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
        let src = sock.local_addr().unwrap();
        assert!(s.datagram(&sock, src, b"ABCD"));
        assert!(s.datagram(&sock, src, b"XYZ"));
        assert_eq!(a.1.load(Ordering::Relaxed), 1);
        assert_eq!(any.1.load(Ordering::Relaxed), 1);
        assert!(Arc::ptr_eq(
            s.for_connection(b"ABxx").unwrap(),
            &(a as Arc<dyn Service>)
        ));
        assert_eq!(
            s.summaries(),
            ["prefix: 1 datagrams", "prefix: 1 datagrams"]
        );
        assert_eq!(format!("{s:?}"), "[\"prefix\", \"prefix\"]");
        assert!(Services::default().for_connection(b"AB").is_none());
    }
}
