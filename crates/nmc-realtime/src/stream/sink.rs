//! The discard sink: TCP and UDP on one port. It reads each buffer, throws it away, and
//! acknowledges it when the frame asks. For tests (and to see what a host that stops taking
//! data does to a stream) it can stop reading once, after a given number of buffers, for a
//! given time.
//!
//! A TCP connection whose first frame is a reverse request (`nmc stream --reverse`) is served
//! by [`super::reverse`] instead: the sink sends.
//!
//! TCP connections pass the shared gate ([`nmc_serve::gate`]): a total and a per-source cap, a
//! minimum rate judged per window, descriptor exhaustion survived (the UDP side, on its own
//! thread, goes on regardless), and with a secret the handshake of [`nmc_serve::auth`]. With a
//! secret, a UDP buffer must carry its tag ([`wire::TAG`]); one without is dropped and counted.

use super::arrivals::Arrivals;
use super::wire;
use nmc_serve::gate::{GateCounters, Log};
use nmc_serve::{Conn, Gate, Key, Limits};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A scripted stall: after `after` buffers, stop reading for `length`.
#[derive(Clone, Copy, Debug)]
pub struct Stall {
    /// Buffers read before the stall (counted per TCP connection, and over UDP).
    pub after: u64,
    /// How long the sink stops reading.
    pub length: Duration,
}

/// What the sink counted.
#[derive(Debug, Default)]
pub struct Counts {
    /// Buffers received, TCP and UDP.
    pub buffers: AtomicU64,
    /// Payload bytes of those buffers.
    pub bytes: AtomicU64,
    /// Frames or datagrams that are not a buffer or a request the sink knows.
    pub bad: AtomicU64,
    /// UDP buffers without a valid tag while the sink has a secret.
    pub unauthenticated: AtomicU64,
    /// Reverse runs (`nmc stream -R`) asked for, served or refused.
    pub reverse_runs: AtomicU64,
}

impl Counts {
    /// One line for the server's log.
    pub fn summary(&self) -> String {
        format!(
            "{} buffers, {} bytes, {} bad frames, {} unauthenticated datagrams, {} reverse runs",
            self.buffers.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
            self.bad.load(Ordering::Relaxed),
            self.unauthenticated.load(Ordering::Relaxed),
            self.reverse_runs.load(Ordering::Relaxed)
        )
    }
}

/// The discard sink on its own port: TCP and UDP, reading buffers, acknowledging those that
/// ask, and serving reverse runs.
pub struct Sink {
    tcp: TcpListener,
    udp: UdpSocket,
    stall: Option<Stall>,
    gate: Gate,
    /// What the sink has counted, shared with the threads that serve.
    pub counts: Arc<Counts>,
}

impl Sink {
    /// Binds TCP and UDP on `addr` (port 0: a free port, the same for both), with the gate's
    /// default limits and no secret.
    pub fn bind(addr: SocketAddr, stall: Option<Stall>) -> std::io::Result<Sink> {
        let (udp, tcp) = nmc_serve::bind::udp_and_tcp(addr)?;
        Ok(Sink {
            tcp,
            udp,
            stall,
            gate: Gate::new("nmc sink", Limits::default(), None, Arc::new(|_: &str| {})),
            counts: Arc::new(Counts::default()),
        })
    }

    /// The gate's limits, secret and log (the CLI's `--max-connections`, `--secret-file`, ...).
    pub fn with_gate(mut self, limits: Limits, key: Option<Key>, log: Log) -> Sink {
        self.gate = Gate::new("nmc sink", limits, key, log);
        self
    }

    /// The address the sink is bound to (TCP and UDP share its port).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.tcp.local_addr()
    }

    /// What the gate has done (connections admitted, refused, closed).
    pub fn gate_counters(&self) -> Arc<GateCounters> {
        self.gate.counters()
    }

    /// Serves until `stop` is set. TCP through the gate; UDP on a thread of its own, so nothing
    /// that happens to the TCP side stops it.
    pub fn run(self, stop: &AtomicBool) -> std::io::Result<()> {
        self.udp.set_read_timeout(Some(Duration::from_millis(50)))?;
        let stall = self.stall;
        let counts = self.counts.clone();
        let udp = self.udp.try_clone()?;
        let udp_counts = counts.clone();
        let stop_udp = Arc::new(AtomicBool::new(false));
        let stop_udp2 = stop_udp.clone();
        let key = self.gate.key().cloned();
        // `nmc stream --reverse` over UDP sends from this port.
        let routes = super::reverse::Routes::new(self.udp.try_clone()?, key.clone());
        let udp_routes = routes.clone();
        let udp_thread = std::thread::spawn(move || {
            serve_udp(
                udp,
                stall,
                key.as_ref(),
                &udp_counts,
                &stop_udp2,
                &udp_routes,
            )
        });
        let r = self.gate.serve(self.tcp, stop, move |c| {
            serve_tcp(c, stall, &counts, &routes)
        });
        stop_udp.store(true, Ordering::Relaxed);
        let _ = udp_thread.join();
        r
    }
}

fn maybe_stall(stall: Option<Stall>, n: u64, done: &mut bool) -> bool {
    if let Some(s) = stall
        && !*done
        && n >= s.after
    {
        *done = true;
        std::thread::sleep(s.length);
        return true;
    }
    false
}

fn serve_tcp(
    s: &mut Conn,
    stall: Option<Stall>,
    counts: &Counts,
    routes: &Arc<super::reverse::Routes>,
) -> std::io::Result<()> {
    s.stream().set_nodelay(true)?;
    let mut h = [0u8; wire::HEADER];
    let mut buf = vec![0u8; 64 * 1024];
    let mut n = 0u64;
    let mut stalled = false;
    // Issue 75 §1: a forward stream with -i asks for the sink's lines by its clock.
    let mut bins: Option<(Instant, Bins)> = None;
    loop {
        if maybe_stall(stall, n, &mut stalled) {
            // The sink's own pause is not the client's slowness.
            s.forgive();
        }
        if s.read_exact(&mut h).is_err() {
            // The stream's end: its last, shorter interval (the sender reads it after its own
            // end; one frame, shorter than any buffer it sent).
            if let Some((t0, b)) = &bins {
                let _ = s.write_all(&b.end(ns_since(*t0)));
            }
            return Ok(());
        }
        if n == 0
            && bins.is_none()
            && let Some(every) = wire::parse_pace(&h)
        {
            match Bins::new(every) {
                Some(b) => bins = Some((Instant::now(), b)),
                None => {
                    counts.bad.fetch_add(1, Ordering::Relaxed);
                    return Ok(());
                }
            }
            continue;
        }
        if n == 0 && h[..4] == wire::REQUEST_MAGIC {
            // `nmc stream --reverse`: the client asks the sink to send.
            counts.reverse_runs.fetch_add(1, Ordering::Relaxed);
            return super::reverse::serve_request(s, &h, Some(routes));
        }
        // A buffer longer than any stream sends over TCP is refused at its header (issue 74
        // §4: a 4 GiB frame was read to its end).
        let Some((seq, len, ack)) =
            wire::parse_header(&h).filter(|&(_, len, _)| len as usize <= wire::TCP_MAX)
        else {
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
        if let Some((t0, b)) = &mut bins
            && let Some(line) = b.buffer(ns_since(*t0))
        {
            s.write_all(&line)?;
        }
        if ack {
            s.write_all(&wire::ack(seq))?;
        }
    }
}

fn ns_since(t0: Instant) -> u64 {
    u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// A forward TCP stream's intervals by the sink's clock (issue 75 §1), asked for by its first
/// frame ([`wire::pace`]): the buffers read in the interval being counted. A line goes back
/// when a buffer is read in a later interval, only for an interval that had buffers, so each
/// line follows a buffer read (12 bytes after at least 17: nothing amplified, however long
/// the gaps), and the last at the stream's end. Constant state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Bins {
    every: u64,
    index: u64,
    buffers: u32,
}

impl Bins {
    /// Shortest interval a sink counts: 1 ms, as `nmc stream -i` takes.
    const MIN: u64 = 1_000_000;

    fn new(every_ns: u64) -> Option<Bins> {
        (every_ns >= Self::MIN).then_some(Bins {
            every: every_ns,
            index: 0,
            buffers: 0,
        })
    }

    /// A buffer read at `at_ns` from the pace's arrival: the line of the interval it closes,
    /// if that one had buffers.
    fn buffer(&mut self, at_ns: u64) -> Option<[u8; wire::ACK]> {
        let k = at_ns / self.every;
        let mut line = None;
        if k > self.index {
            if self.buffers > 0 {
                line = Some(wire::binned(to_u32(self.index), self.buffers));
            }
            (self.index, self.buffers) = (k, 0);
        }
        self.buffers = self.buffers.saturating_add(1);
        line
    }

    /// The last line, at the stream's end `at_ns`: the interval then open, as long as it ran.
    fn end(&self, at_ns: u64) -> [u8; wire::LAST_BIN] {
        let k = (at_ns / self.every).max(self.index);
        let (index, buffers) = if k > self.index {
            // The open interval had no buffer (those counted went in the line not sent yet).
            (self.index, self.buffers)
        } else {
            (k, self.buffers)
        };
        let len_us = if k > self.index {
            self.every / 1000
        } else {
            (at_ns - k * self.every) / 1000
        };
        wire::last_bin(to_u32(index), buffers, to_u32(len_us))
    }
}

fn to_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// Most sources whose UDP buffers the sink counts for a tally at once.
const MAX_TALLIED: usize = 4096;

fn serve_udp(
    s: UdpSocket,
    stall: Option<Stall>,
    key: Option<&Key>,
    counts: &Counts,
    stop: &AtomicBool,
    routes: &super::reverse::Routes,
) {
    let mut buf = vec![0u8; 65_536];
    let mut side = UdpSide::new(stall, key.cloned());
    while !stop.load(Ordering::Relaxed) {
        side.maybe_stall();
        let Ok((len, from)) = s.recv_from(&mut buf) else {
            continue;
        };
        side.datagram(&s, from, &buf[..len], counts, routes);
    }
}

/// The UDP side's state between datagrams.
struct UdpSide {
    stall: Option<Stall>,
    stalled: bool,
    /// Buffers taken so far (for the scripted stall).
    n: u64,
    key: Option<Key>,
    /// What arrived per source address, for the tally or the arrivals a sender asks for at
    /// its end; at most [`MAX_TALLIED`] sources are kept (a flood of sources clears the table,
    /// not memory).
    delivered: std::collections::BTreeMap<SocketAddr, Arrivals>,
    /// What was last told each source that asked, kept until it sends a buffer again, so that
    /// a request asked again (its answer lost, or the plain tally after the arrivals) gets the
    /// same answer; as bounded as `delivered`.
    answered: std::collections::BTreeMap<SocketAddr, Arrivals>,
    /// The clock arrivals are timed on (RFC 3550's jitter needs only differences).
    epoch: Instant,
}

impl UdpSide {
    fn new(stall: Option<Stall>, key: Option<Key>) -> UdpSide {
        UdpSide {
            stall,
            stalled: false,
            n: 0,
            key,
            delivered: Default::default(),
            answered: Default::default(),
            epoch: Instant::now(),
        }
    }

    fn maybe_stall(&mut self) {
        maybe_stall(self.stall, self.n, &mut self.stalled);
    }

    /// What arrived from `from` since it last asked, moved to the answered table; or, when it
    /// sent nothing since, what it was told then.
    fn told(&mut self, from: SocketAddr) -> Arrivals {
        if let Some(got) = self.delivered.remove(&from) {
            if self.answered.len() >= MAX_TALLIED {
                self.answered.clear();
            }
            self.answered.insert(from, got.clone());
            return got;
        }
        self.answered.get(&from).cloned().unwrap_or_default()
    }

    /// One datagram `d` from `from`: a reverse run's HELLO or acknowledgement, a tally request,
    /// or a buffer (acknowledged when its frame asks); anything else is counted as bad.
    fn datagram(
        &mut self,
        s: &UdpSocket,
        from: SocketAddr,
        d: &[u8],
        counts: &Counts,
        routes: &super::reverse::Routes,
    ) {
        // A reverse run's HELLO or acknowledgement (untagged: its TCP connection passed the gate).
        if routes.route(from, d) {
            return;
        }
        let mut len = d.len();
        if let Some(key) = &self.key {
            let tag = wire::TAG;
            let ok = len >= wire::HEADER + tag && key.verify(&d[..len - tag], &d[len - tag..len]);
            if !ok {
                counts.unauthenticated.fetch_add(1, Ordering::Relaxed);
                return;
            }
            len -= tag;
        }
        let d = &d[..len];
        // Issue 75 §1: a forward stream's interval mark, answered at once with what arrived
        // from its address so far (the tally's figures, untouched).
        if let Some(m) = wire::parse_mark(d) {
            let got = self.delivered.get(&from).cloned().unwrap_or_default();
            let _ = s.send_to(&wire::marked(m, &got), from);
            return;
        }
        let tally = wire::is_tally_request(d);
        if tally || wire::is_arrivals_request(d) {
            let got = self.told(from);
            let _ = if tally {
                s.send_to(&wire::tally(got.received), from)
            } else {
                s.send_to(&wire::arrivals_answer(&got), from)
            };
            return;
        }
        match wire::parse_header(d) {
            Some((seq, plen, ack)) if plen as usize + wire::HEADER == len => {
                if self.delivered.len() >= MAX_TALLIED && !self.delivered.contains_key(&from) {
                    self.delivered.clear();
                }
                let at = self.epoch.elapsed().as_nanos() as u64;
                self.answered.remove(&from);
                self.delivered
                    .entry(from)
                    .or_default()
                    .arrive(seq, wire::sent_ns(d), at);
                self.n += 1;
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
}

/// The sink as one of `nmc serve`'s instruments ([`nmc_serve::mux`]): a TCP connection that
/// opens with a buffer's or a reverse request's magic, and a datagram that opens with a
/// buffer's, a HELLO's or an acknowledgement's, are the sink's. No scripted stall. The secret is
/// the serving gate's for TCP; for UDP it is `key` here (the same one).
pub struct SinkService {
    /// What the sink has counted.
    pub counts: Arc<Counts>,
    routes: Arc<super::reverse::Routes>,
    udp: std::sync::Mutex<UdpSide>,
}

impl SinkService {
    /// A reverse run over UDP sends from `sock`, a handle on the serving socket.
    pub fn new(sock: UdpSocket, key: Option<Key>) -> SinkService {
        SinkService {
            counts: Arc::new(Counts::default()),
            routes: super::reverse::Routes::new(sock, key.clone()),
            udp: std::sync::Mutex::new(UdpSide::new(None, key)),
        }
    }
}

impl nmc_serve::Service for SinkService {
    fn name(&self) -> &'static str {
        "stream sink"
    }

    fn claims(&self, first: &[u8]) -> bool {
        first == wire::MAGIC || first == wire::REQUEST_MAGIC
    }

    fn connection(&self, c: &mut Conn) -> std::io::Result<()> {
        serve_tcp(c, None, &self.counts, &self.routes)
    }

    fn datagram(&self, sock: &UdpSocket, src: SocketAddr, pkt: &[u8]) -> bool {
        let magic = pkt.get(..4);
        let mine = [
            wire::MAGIC,
            wire::HELLO_MAGIC,
            wire::ACK_MAGIC,
            wire::ARRIVALS_MAGIC,
            wire::MARK_MAGIC,
        ]
        .iter()
        .any(|m| magic == Some(&m[..]));
        if mine {
            let mut side = self.udp.lock().unwrap_or_else(|p| p.into_inner());
            side.datagram(sock, src, pkt, &self.counts, &self.routes);
        }
        mine
    }

    fn summary(&self) -> String {
        self.counts.summary()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 75 §1: the sink's lines by its clock: one per interval that had buffers, sent
    /// when a later buffer is read (never for an empty interval, so a long gap sends nothing),
    /// and the last at the end, as long as it ran.
    #[test]
    fn the_sinks_bins_follow_its_clock_and_send_nothing_for_a_gap() {
        const S: u64 = 1_000_000_000;
        assert_eq!(Bins::new(999_999), None, "under 1 ms");
        let mut b = Bins::new(S).unwrap();
        assert_eq!(b.buffer(S / 10), None);
        assert_eq!(b.buffer(S / 2), None);
        // The first buffer of the second second closes the first: 2 buffers.
        assert_eq!(b.buffer(S + 1), Some(wire::binned(0, 2)));
        // After an hour with nothing, one line for the second second, none for the gap.
        assert_eq!(b.buffer(3600 * S), Some(wire::binned(1, 1)));
        assert_eq!(b.buffer(3600 * S + S / 4), None);
        // The end, half-way through the interval then open: 2 buffers in 0.5 s.
        assert_eq!(b.end(3600 * S + S / 2), wire::last_bin(3600, 2, 500_000));
        // An end after the open interval has passed: that one whole.
        assert_eq!(b.end(3603 * S), wire::last_bin(3600, 2, 1_000_000));
    }
}
