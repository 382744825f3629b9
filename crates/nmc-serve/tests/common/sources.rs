//! Clients of a server under test that connect from a chosen loopback address (all of
//! 127.0.0.0/8 is loopback on Linux, so one machine can be several sources), and issue 57 §2's
//! reconnecting attacker. Shared by nmc-serve's tests (`common/mod.rs`) and the command-line
//! tests of the servers (`tests/cli/servers.rs`, by `#[path]`): one copy of each.
#![allow(dead_code)]

use socket2::{Domain, Socket, Type};
use std::io::Read;
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// A connection from `from` (e.g. "127.0.0.2") to `to`.
pub fn connect_from(from: &str, to: SocketAddr) -> TcpStream {
    let s = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    let local: SocketAddr = format!("{from}:0").parse().unwrap();
    s.bind(&local.into()).unwrap();
    s.connect_timeout(&to.into(), Duration::from_secs(2))
        .unwrap();
    let s: TcpStream = s.into();
    s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(2))).unwrap();
    s
}

/// Whether the server has closed `s`: reads (whatever comes) until the end or a reset, for at
/// most `within`.
pub fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
    let until = Instant::now() + within;
    let mut b = [0u8; 4096];
    while Instant::now() < until {
        s.set_read_timeout(Some(
            until
                .saturating_duration_since(Instant::now())
                .max(Duration::from_millis(1)),
        ))
        .unwrap();
        match s.read(&mut b) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return true,
        }
    }
    false
}

/// Waits until `f` holds, for at most `within`.
pub fn eventually(within: Duration, mut f: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + within;
    while Instant::now() < until {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    f()
}

/// Issue 57 §2's attacker: `per_source` idle connections from each of `sources`, each reopened
/// (within 10 ms) as soon as the server closes it or refuses it, sending nothing and never
/// answering a challenge. Runs until dropped.
pub struct Reconnecting {
    stop: std::sync::Arc<AtomicBool>,
    open: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Reconnecting {
    pub fn start(sources: &[impl AsRef<str>], per_source: usize, to: SocketAddr) -> Reconnecting {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let stop = Arc::new(AtomicBool::new(false));
        let open = Arc::new(AtomicUsize::new(0));
        let threads = sources
            .iter()
            .map(|from| {
                let (from, stop, open) = (from.as_ref().to_string(), stop.clone(), open.clone());
                std::thread::spawn(move || {
                    let mut conns: Vec<Option<TcpStream>> = (0..per_source).map(|_| None).collect();
                    let mut b = [0u8; 256];
                    while !stop.load(Ordering::Relaxed) {
                        for c in &mut conns {
                            match c {
                                None => {
                                    let s = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
                                    let local: SocketAddr = format!("{from}:0").parse().unwrap();
                                    s.bind(&local.into()).unwrap();
                                    if s.connect_timeout(&to.into(), Duration::from_secs(1))
                                        .is_ok()
                                    {
                                        let s: TcpStream = s.into();
                                        s.set_nonblocking(true).unwrap();
                                        *c = Some(s);
                                        open.fetch_add(1, Ordering::Relaxed);
                                    }
                                }
                                Some(s) => match s.read(&mut b) {
                                    Ok(0) => {
                                        *c = None;
                                        open.fetch_sub(1, Ordering::Relaxed);
                                    }
                                    Ok(_) => {} // a challenge, never answered
                                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                                    Err(_) => {
                                        *c = None;
                                        open.fetch_sub(1, Ordering::Relaxed);
                                    }
                                },
                            }
                        }
                        std::thread::sleep(Duration::from_millis(10));
                    }
                })
            })
            .collect();
        Reconnecting {
            stop,
            open,
            threads,
        }
    }

    /// Connections open now (as far as the attacker knows).
    pub fn open(&self) -> usize {
        self.open.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Drop for Reconnecting {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
