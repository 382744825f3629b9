//! The discard sink: TCP and UDP on one port. It reads each buffer, throws it away, and
//! acknowledges it when the frame asks. For tests (and to see what a host that stops taking
//! data does to a stream) it can stop reading once, after a given number of buffers, for a
//! given time.

use super::wire;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A scripted stall: after `after` buffers, stop reading for `length`.
#[derive(Clone, Copy, Debug)]
pub struct Stall {
    pub after: u64,
    pub length: Duration,
}

/// What the sink counted.
#[derive(Debug, Default)]
pub struct Counts {
    pub buffers: AtomicU64,
    pub bytes: AtomicU64,
    pub bad: AtomicU64,
}

pub struct Sink {
    tcp: TcpListener,
    udp: UdpSocket,
    stall: Option<Stall>,
    pub counts: Arc<Counts>,
}

impl Sink {
    /// Binds TCP and UDP on `addr` (port 0: a free port, the same for both).
    pub fn bind(addr: SocketAddr, stall: Option<Stall>) -> std::io::Result<Sink> {
        let tcp = TcpListener::bind(addr)?;
        let port = tcp.local_addr()?.port();
        let udp = UdpSocket::bind(SocketAddr::new(addr.ip(), port))?;
        Ok(Sink {
            tcp,
            udp,
            stall,
            counts: Arc::new(Counts::default()),
        })
    }

    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.tcp.local_addr()
    }

    /// Serves until `stop` is set (checked every 50 ms).
    pub fn run(self, stop: &AtomicBool) -> std::io::Result<()> {
        self.tcp.set_nonblocking(true)?;
        self.udp.set_read_timeout(Some(Duration::from_millis(50)))?;
        let stall = self.stall;
        let counts = self.counts.clone();
        let udp = self.udp.try_clone()?;
        let udp_counts = counts.clone();
        let stop_udp = Arc::new(AtomicBool::new(false));
        let stop_udp2 = stop_udp.clone();
        let udp_thread = std::thread::spawn(move || serve_udp(udp, stall, &udp_counts, &stop_udp2));
        while !stop.load(Ordering::Relaxed) {
            match self.tcp.accept() {
                Ok((s, _)) => {
                    let c = counts.clone();
                    std::thread::spawn(move || {
                        let _ = serve_tcp(s, stall, &c);
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(50))
                }
                Err(e) => return Err(e),
            }
        }
        stop_udp.store(true, Ordering::Relaxed);
        let _ = udp_thread.join();
        Ok(())
    }
}

fn maybe_stall(stall: Option<Stall>, n: u64, done: &mut bool) {
    if let Some(s) = stall
        && !*done
        && n >= s.after
    {
        *done = true;
        std::thread::sleep(s.length);
    }
}

fn serve_tcp(mut s: TcpStream, stall: Option<Stall>, counts: &Counts) -> std::io::Result<()> {
    s.set_nodelay(true)?;
    s.set_nonblocking(false)?;
    let mut h = [0u8; wire::HEADER];
    let mut buf = vec![0u8; 64 * 1024];
    let mut n = 0u64;
    let mut stalled = false;
    loop {
        maybe_stall(stall, n, &mut stalled);
        if s.read_exact(&mut h).is_err() {
            return Ok(());
        }
        let Some((seq, len, ack)) = wire::parse_header(&h) else {
            counts.bad.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        };
        let mut left = len as usize;
        while left > 0 {
            let k = left.min(buf.len());
            s.read_exact(&mut buf[..k])?;
            left -= k;
        }
        n += 1;
        counts.buffers.fetch_add(1, Ordering::Relaxed);
        counts.bytes.fetch_add(len as u64, Ordering::Relaxed);
        if ack {
            s.write_all(&wire::ack(seq))?;
        }
    }
}

fn serve_udp(s: UdpSocket, stall: Option<Stall>, counts: &Counts, stop: &AtomicBool) {
    let mut buf = vec![0u8; 65_536];
    let mut n = 0u64;
    let mut stalled = false;
    let mut last = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        maybe_stall(stall, n, &mut stalled);
        let Ok((len, from)) = s.recv_from(&mut buf) else {
            continue;
        };
        last = Instant::now();
        match wire::parse_header(&buf[..len]) {
            Some((seq, plen, ack)) if plen as usize + wire::HEADER == len => {
                n += 1;
                counts.buffers.fetch_add(1, Ordering::Relaxed);
                counts.bytes.fetch_add(plen as u64, Ordering::Relaxed);
                if ack {
                    let _ = s.send_to(&wire::ack(seq), from);
                }
            }
            _ => {
                counts.bad.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    let _ = last;
}
