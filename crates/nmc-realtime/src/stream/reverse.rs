//! `nmc stream --reverse`: the sink sends the stream and the client receives it, as iperf3
//! `-R`. Over TCP or UDP.
//!
//! The client opens the TCP connection to `nmc sink` (so it works from behind NAT and firewalls)
//! and sends a request with its options ([`wire::Request`]). The sink checks them against its
//! limits ([`check_request`]: the stream's own checks, at most [`MAX_DURATION`], at most
//! [`MAX_BUFFERS`] buffers and [`MAX_BUFFER_BYTES`] a buffer, timeouts at most [`MAX_TIMEOUT`]);
//! one it will not serve gets one error line and the sink goes on serving. Otherwise the sink
//! runs RFC 508's double-buffered source ([`super::sender`], the same code as the forward
//! direction) on that connection, and the client discards what arrives, acknowledging each
//! buffer when asked (`--ack`).
//!
//! ## Where the gaps are measured, and why there
//!
//! A gap is the *source's* stop: its next buffer is full and the other is not yet written
//! (RFC 508 §IV). It happens at the sender and is timed on the sender's clock; the receiver sees
//! only when buffers arrive, which spreads and bunches with the path, so it cannot tell a gap
//! from a slow path. So the sink times the gaps and keeps the run's records as the forward
//! sender does, and at the end ships them back on the same connection in one result frame (the
//! run and its per-buffer records, JSON). The client prints the KEY box and writes
//! `buffers.csv` and `summary.json` from them as in the forward direction, with `"reverse":
//! true` and what the client itself received (`received`: buffers and bytes). Shipping the
//! records is bounded because the sink caps a reverse run at [`MAX_BUFFERS`] buffers (R508-3's
//! longest test, 18 min at 30,000 bit/s in 2016-bit buffers, is 16,071). `-i` interval lines
//! are the client's: buffers received in each interval and their rate (gaps are the sender's
//! and come with the result).
//!
//! The sink's run is bounded by its duration and timeouts, and paid for like any connection
//! (issue 74 §1): what the sink sends for the client is credited to the client's slot at the
//! gate ([`nmc_serve::Tab`]), a request slower than the gate's minimum rate is refused at once
//! ([`pays_its_slot`]), and a run whose client stops taking it (a TCP write held, an
//! acknowledgement or HELLO not coming) falls into arrears and loses its slot to the next
//! newcomer when every slot is taken. A sink stopped meanwhile (Ctrl-C, `--duration`) ends the
//! run, ships the partial result and closes; the client says so.
//!
//! Over UDP the request and the result stay on the TCP connection; the client's HELLO datagram
//! (with a token from its request) opens its NAT and names the address the buffers go to, only
//! from the TCP connection's IP address; the sink sends from its own port and its UDP loop hands
//! the run the client's acknowledgements ([`Routes`]). Without acknowledgements the client's
//! count of what arrived is the sink's tally (`sink_received`), so loss is seen.
//!
//! Both directions at once (`--bidir`, iperf3's; issue 75 §2) is [`stream_bidir`]: a forward
//! run and a reverse run on their own connections, each measured as it is alone. RFC 508
//! measures one process's stream, and each direction's stream is load on the other's path: say
//! so when reading its gaps.
//!
//! A warm-up (`-O`) travels in the request ([`wire::REQUEST_WITH_WARM_UP`]): the sink leaves
//! its first ⌊omit ÷ fill⌋ buffers out of its figures, and the client leaves the same buffers,
//! told by their numbers, out of what it counts.

use super::arrivals::Arrivals;
pub use super::arrivals::ReceivedInterval;
use super::sender::{
    ArrivalStats, BufferRecord, Received, Routed, StreamConfig, StreamRun, run_on_tcp, run_routed,
};
use super::{StreamError, Transport, wire};
use nmc_serve::Conn;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

struct Route {
    ip: IpAddr,
    addr: Option<SocketAddr>,
    hello: mpsc::Sender<SocketAddr>,
    acks: mpsc::Sender<u64>,
}

/// The sink's reverse runs over UDP: its socket (to send from its port) and the runs waiting
/// for datagrams. The sink's UDP loop offers each datagram to [`Routes::route`] first.
pub struct Routes {
    sock: UdpSocket,
    /// The sink's secret: a reverse run over UDP tags each buffer with it.
    key: Option<nmc_serve::Key>,
    routes: Mutex<HashMap<u64, Route>>,
    /// token of each client address whose HELLO came, for its acknowledgements.
    by_addr: Mutex<HashMap<SocketAddr, u64>>,
    active: AtomicUsize,
}

impl Routes {
    /// Sends from `sock` (a handle on the sink's UDP socket).
    pub fn new(sock: UdpSocket, key: Option<nmc_serve::Key>) -> Arc<Routes> {
        Arc::new(Routes {
            key,
            sock,
            routes: Mutex::new(HashMap::new()),
            by_addr: Mutex::new(HashMap::new()),
            active: AtomicUsize::new(0),
        })
    }

    /// A datagram from `src`: true if it was a reverse run's HELLO or acknowledgement (taken).
    pub fn route(&self, src: SocketAddr, d: &[u8]) -> bool {
        let hello = wire::parse_hello(d);
        if self.active.load(Ordering::Relaxed) == 0 {
            return hello.is_some();
        }
        let mut routes = self.routes.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(token) = hello {
            if let Some(r) = routes.get_mut(&token)
                && r.ip == src.ip().to_canonical()
                && r.addr.is_none()
            {
                r.addr = Some(src);
                let _ = r.hello.send(src);
                self.by_addr
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(src, token);
            }
            return true;
        }
        let Some(seq) = wire::parse_ack(d).filter(|_| d.len() == wire::ACK) else {
            return false;
        };
        let by_addr = self.by_addr.lock().unwrap_or_else(|p| p.into_inner());
        match by_addr.get(&src).and_then(|t| routes.get(t)) {
            Some(r) => {
                let _ = r.acks.send(seq);
                true
            }
            None => false,
        }
    }

    fn open(
        self: &Arc<Self>,
        token: u64,
        ip: IpAddr,
    ) -> Result<(RouteGuard, mpsc::Receiver<SocketAddr>, mpsc::Receiver<u64>), String> {
        let (hello, hello_rx) = mpsc::channel();
        let (acks, acks_rx) = mpsc::channel();
        let mut routes = self.routes.lock().unwrap_or_else(|p| p.into_inner());
        if routes.contains_key(&token) {
            return Err("that token is already in use here; try again".into());
        }
        routes.insert(
            token,
            Route {
                ip,
                addr: None,
                hello,
                acks,
            },
        );
        self.active.fetch_add(1, Ordering::Relaxed);
        Ok((
            RouteGuard {
                routes: self.clone(),
                token,
            },
            hello_rx,
            acks_rx,
        ))
    }
}

/// Removes a run's route when it ends, however it ends.
struct RouteGuard {
    routes: Arc<Routes>,
    token: u64,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        let mut routes = self.routes.routes.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(r) = routes.remove(&self.token) {
            self.routes.active.fetch_sub(1, Ordering::Relaxed);
            if let Some(a) = r.addr {
                self.routes
                    .by_addr
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&a);
            }
        }
    }
}

/// Longest reverse run a sink sends. **Choice**: 1 h, above RFC 508's longest test (18 min).
pub const MAX_DURATION: Duration = Duration::from_secs(3600);
/// Most buffers in one reverse run that keeps a record of each (rate × duration / buffer).
/// **Choice**: 50,000, three times R508-3's 16,071; the sink keeps a record of each (about 40
/// bytes) to ship back. A run without records (`--no-records`) has no such cap.
pub const MAX_BUFFERS: u64 = 50_000;
/// Largest buffer a sink sends. **Choice**: 1 MiB; RFC 508's largest is 8048 bits (about 1 KB).
pub const MAX_BUFFER_BYTES: u64 = 1 << 20;
/// Longest acknowledgement or I/O timeout a sink takes. **Choice**: 60 s.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(60);

/// What a sink will send for `r` to `peer`, or why not (one line).
pub fn check_request(r: &wire::Request, peer: SocketAddr) -> Result<StreamConfig, String> {
    let ns = Duration::from_nanos;
    let c = StreamConfig {
        target: peer,
        rate_bps: r.rate_bps,
        buffer_bits: r.buffer_bits,
        duration: ns(r.duration_ns),
        transport: if r.udp {
            Transport::Udp
        } else {
            Transport::Tcp
        },
        ack: r.ack,
        ack_timeout: ns(r.ack_timeout_ns),
        io_timeout: ns(r.io_timeout_ns),
        key: None,
        records: !r.no_records,
        dial: Default::default(),
        bulk: r.bulk,
        omit: ns(r.omit_ns),
    };
    c.validate().map_err(|e| e.to_string())?;
    if c.duration > MAX_DURATION {
        return Err(format!(
            "--duration {} s is longer than this sink's limit of {} s",
            c.duration.as_secs_f64(),
            MAX_DURATION.as_secs()
        ));
    }
    if c.omit > MAX_DURATION.saturating_sub(c.duration) {
        return Err(format!(
            "-O {} s and --duration {} s are longer together than this sink's limit of {} s",
            c.omit.as_secs_f64(),
            c.duration.as_secs_f64(),
            MAX_DURATION.as_secs()
        ));
    }
    if c.payload_bytes() as u64 > MAX_BUFFER_BYTES {
        return Err(format!(
            "--buffer {} bit is larger than this sink's limit of {MAX_BUFFER_BYTES} bytes",
            c.buffer_bits
        ));
    }
    let buffers = c.buffers();
    // Without records (`--no-records`) the run keeps running figures only, a few hundred
    // bytes whatever its length: its duration bounds it.
    if c.records && buffers > MAX_BUFFERS as f64 {
        return Err(format!(
            "{buffers:.0} buffers ({} bit/s for {} s in {}-bit buffers) is more than this sink's limit of {MAX_BUFFERS} a run that keeps a record of each: give --no-records",
            c.rate_bps,
            c.duration.as_secs_f64(),
            c.buffer_bits
        ));
    }
    for (name, t) in [
        ("--ack-timeout", c.ack_timeout),
        ("--io-timeout", c.io_timeout),
    ] {
        if t.is_zero() || t > MAX_TIMEOUT {
            return Err(format!(
                "{name} {} s is outside this sink's limits (above 0, at most {} s)",
                t.as_secs_f64(),
                MAX_TIMEOUT.as_secs()
            ));
        }
    }
    Ok(c)
}

/// Whether a run of `c` pays for the client's slot at the gate's minimum rate of `min_rate`
/// bytes a second (issue 74 §1): what the sink sends for the client is credited to it as if
/// the client had sent it (frames, headers included), so a run slower than the rate would be in
/// arrears from its start and lose its slot to the next newcomer. Refused at once instead, with
/// what would pass, as a forward stream that slow is closed by the same rate.
pub fn pays_its_slot(c: &StreamConfig, min_rate: u64) -> Result<(), String> {
    let frame_bits = (wire::HEADER as u128 * 8 + c.buffer_bits as u128) as f64;
    let bytes_per_s = c.rate_bps as f64 * frame_bits / c.buffer_bits as f64 / 8.0;
    if bytes_per_s >= min_rate as f64 {
        return Ok(());
    }
    let least = (min_rate as f64 * 8.0 * c.buffer_bits as f64 / frame_bits).ceil();
    Err(format!(
        "{} bit/s in {}-bit buffers sends {bytes_per_s:.1} B/s, below this sink's minimum of \
         {min_rate} B/s (its --min-rate) that pays for a connection's slot: ask for at least \
         {least:.0} bit/s at that buffer size",
        c.rate_bps, c.buffer_bits
    ))
}

/// What the sink ships back.
#[derive(Serialize, Deserialize)]
struct Shipped {
    run: StreamRun,
    records: Vec<BufferRecord>,
}

fn send_error(s: &mut Conn, why: &str) -> std::io::Result<()> {
    let mut why = why.replace('\n', " ");
    if why.len() > wire::MAX_ERROR as usize {
        let mut cut = wire::MAX_ERROR as usize;
        while !why.is_char_boundary(cut) {
            cut -= 1;
        }
        why.truncate(cut);
    }
    s.write_all(&wire::control(wire::ERROR_MAGIC, why.len() as u32))?;
    s.write_all(why.as_bytes())
}

/// Serves a reverse request whose first [`wire::HEADER`] bytes the sink has read: the rest of
/// it, the checks, the run, the result. A refusal or a failure the client can be told of goes
/// back as an error frame; `Err` is only a connection that went away.
pub(crate) fn serve_request(
    s: &mut Conn,
    head: &[u8; wire::HEADER],
    udp: Option<&Arc<Routes>>,
) -> std::io::Result<()> {
    // A refusal is told to the client and logged (rate-limited: anyone may ask).
    let refuse = |s: &mut Conn, why: &str| {
        s.note_refused(&format!("nmc stream -R: {why}"));
        send_error(s, why)
    };
    let mut b = vec![0u8; wire::REQUEST];
    b[..wire::HEADER].copy_from_slice(head);
    s.read_exact(&mut b[wire::HEADER..])?;
    // Issue 75 §2: a request with a warm-up has 8 bytes more.
    let len = wire::Request::length(&b);
    if len > b.len() {
        b.resize(len, 0);
        s.read_exact(&mut b[wire::REQUEST..])?;
    }
    let Some(req) = wire::Request::decode(&b) else {
        return refuse(s, "malformed reverse request");
    };
    let c = match check_request(&req, s.peer()) {
        Ok(c) => c,
        Err(why) => return refuse(s, &format!("request refused: {why}")),
    };
    if c.transport == Transport::Udp && udp.is_none() {
        return refuse(s, "request refused: this sink does not send over UDP");
    }
    if let Err(why) = pays_its_slot(&c, s.min_rate()) {
        return refuse(s, &format!("request refused: {why}"));
    }
    // The run writes on its own handle: what it sends is credited to the client's slot as if
    // the client had sent it, and the run stops if the slot goes to another (issue 74 §1).
    let tab = s.tab();
    let stream = s.stream().try_clone()?;
    let poll = (s.stream().read_timeout()?, s.stream().write_timeout()?);
    let run = match (c.transport, udp) {
        (Transport::Tcp, _) => run_on_tcp(stream, &c, &tab, None, &mut |_| {}),
        (Transport::Udp, Some(routes)) => {
            let (_guard, hello, acks) = match routes.open(req.token, s.peer().ip()) {
                Ok(x) => x,
                Err(why) => return refuse(s, &format!("request refused: {why}")),
            };
            // The client's HELLO, within its timeout; the gate's rules apply meanwhile (nothing
            // is sent for the client yet, so it is paying nothing).
            let asked = Instant::now();
            let to = loop {
                s.guard()?;
                match hello.recv_timeout(nmc_serve::gate::POLL) {
                    Ok(to) => break to,
                    Err(_) if asked.elapsed() < c.io_timeout => {}
                    Err(_) => {
                        return send_error(
                            s,
                            &format!(
                                "no HELLO datagram came from {} within {} s: is UDP to this sink's port blocked?",
                                s.peer().ip(),
                                c.io_timeout.as_secs_f64()
                            ),
                        );
                    }
                }
            };
            let routed = Routed {
                sock: routes.sock.try_clone()?,
                to,
                acks,
            };
            let c = StreamConfig {
                key: routes.key.clone(),
                dial: Default::default(),
                ..c
            };
            run_routed(routed, stream, &c, &tab, None, &mut |_| {})
        }
        (Transport::Udp, None) => {
            return send_error(s, "request refused: this sink does not send over UDP");
        }
    };
    s.stream().set_read_timeout(poll.0)?;
    s.stream().set_write_timeout(poll.1)?;
    // The run's bytes went to the tab; the window of the gate's rule 6 starts afresh, and an
    // evicted client's connection ends at its next write (rule 4).
    s.resume();
    let mut run = match run {
        Ok(r) => r,
        Err(e) => return send_error(s, &e.to_string()),
    };
    let records = std::mem::take(&mut run.records);
    let json = serde_json::to_vec(&Shipped { run, records }).map_err(std::io::Error::other)?;
    if json.len() > wire::MAX_RESULT as usize {
        return send_error(s, "the result is too large to send");
    }
    // The client asked for the result and reads it: it pays as the run's bytes did.
    tab.credit(json.len() as u64);
    if s.stopping().load(std::sync::atomic::Ordering::Relaxed) {
        // The sink is shutting down, so the run stopped early: its (partial) result is the
        // connection's last words, and the sink reads nothing more.
        s.write_last(&wire::control(wire::RESULT_MAGIC, json.len() as u32))?;
        return s.write_last(&json);
    }
    s.write_all(&wire::control(wire::RESULT_MAGIC, json.len() as u32))?;
    s.write_all(&json)?;
    // Until the client has read it and closed (bounded by the gate's rules).
    let mut rest = [0u8; 256];
    while s.read(&mut rest)? > 0 {}
    Ok(())
}

/// What the UDP side of a reverse run has seen so far, for the interval lines: buffers out of
/// order, the buffers the highest sequence number says were sent, and RFC 3550's jitter in ns
/// plus one (0: none yet).
#[derive(Debug, Default)]
struct Seen {
    out_of_order: AtomicU64,
    expected: AtomicU64,
    jitter_plus_one: AtomicU64,
}

impl Seen {
    fn note(&self, a: &Arrivals) {
        self.out_of_order.store(a.out_of_order, Ordering::Relaxed);
        self.expected.store(a.expected(), Ordering::Relaxed);
        self.jitter_plus_one
            .store(a.jitter_ns().map_or(0, |j| j + 1), Ordering::Relaxed);
    }
}

/// Reads whole frames from the sink with short waits, so that a stop and the deadline are seen.
struct Framer<'a> {
    s: TcpStream,
    buf: Vec<u8>,
    stop: &'a AtomicBool,
    stop_sent: bool,
    /// When the run started; the sink's result is due [`result_deadline`] after it.
    start: Instant,
    wait: Duration,
    target: SocketAddr,
    /// Something came from the sink.
    any: bool,
}

impl Framer<'_> {
    /// Until `n` bytes are buffered; `tick` runs at every wait.
    fn need(&mut self, n: usize, tick: &mut dyn FnMut(Instant)) -> Result<(), StreamError> {
        let mut chunk = [0u8; 64 * 1024];
        while self.buf.len() < n {
            tick(Instant::now());
            if !self.stop_sent && self.stop.load(Ordering::Relaxed) {
                // Ctrl-C: ask the sink to stop; its result follows.
                self.stop_sent = true;
                self.s
                    .write_all(&wire::stop())
                    .map_err(|err| StreamError::Io {
                        what: "sending the stop",
                        err,
                    })?;
            }
            if self.start.elapsed() >= self.wait {
                return Err(StreamError::Input(format!(
                    "the sink at {} sent no result within {:.1} s (the run's --duration, twice \
                     --io-timeout, --ack-timeout and {} s for the sink's result)",
                    self.target,
                    self.wait.as_secs_f64(),
                    RESULT_SLACK.as_secs()
                )));
            }
            match self.s.read(&mut chunk) {
                Ok(0) if self.any => {
                    return Err(StreamError::Input(format!(
                        "the sink at {} closed the connection before its result (was it stopped?)",
                        self.target
                    )));
                }
                Ok(0) => {
                    return Err(StreamError::Refused(format!(
                        "the sink at {} closed the connection without a result: does it serve --reverse (an nmc from before it closes on a request)?",
                        self.target
                    )));
                }
                Ok(k) => {
                    if !self.any && chunk[..k].starts_with(&nmc_serve::auth::CHALLENGE_MAGIC) {
                        return Err(StreamError::Refused(format!(
                            "the sink at {} wants a secret: give it with --secret-file",
                            self.target
                        )));
                    }
                    self.any = true;
                    self.buf.extend_from_slice(&chunk[..k]);
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock
                            | std::io::ErrorKind::TimedOut
                            | std::io::ErrorKind::Interrupted
                    ) => {}
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset && !self.any => {
                    return Err(StreamError::Refused(format!(
                        "the sink at {} closed the connection without answering the reverse request: does it want a secret (--secret-file)?",
                        self.target
                    )));
                }
                Err(err) => {
                    return Err(StreamError::Io {
                        what: "receiving the stream",
                        err,
                    });
                }
            }
        }
        Ok(())
    }
}

/// `nmc stream --reverse`: asks the sink at `c.target` to send `c`'s stream here, receives it
/// (acknowledging buffers when `c.ack`), and returns the sink's run (its gaps and records) with
/// what arrived here in `received`. `stop` (Ctrl-C) asks the sink to stop early; its run then
/// says so. `report` gets the client's `every` interval lines.
pub fn stream_reverse(
    c: &StreamConfig,
    stop: &AtomicBool,
    every: Option<Duration>,
    report: &mut dyn FnMut(ReceivedInterval),
) -> Result<StreamRun, StreamError> {
    c.validate()?;
    let connect_err = |err| StreamError::Connect {
        addr: c.target.to_string(),
        err,
    };
    let mut s = super::sender::dialed(c.dial.tcp(c.target, c.io_timeout), c.target)?;
    s.set_nodelay(true).map_err(connect_err)?;
    s.set_write_timeout(Some(c.io_timeout))
        .map_err(connect_err)?;
    s.set_read_timeout(Some(c.io_timeout))
        .map_err(connect_err)?;
    if let Some(key) = &c.key {
        let mut r = &s;
        nmc_serve::auth::answer(&mut r, key).map_err(|e| StreamError::Connect {
            addr: c.target.to_string(),
            err: std::io::Error::other(e.to_string()),
        })?;
    }
    let req = wire::Request {
        rate_bps: c.rate_bps,
        buffer_bits: c.buffer_bits,
        duration_ns: c.duration.as_nanos() as u64,
        ack_timeout_ns: c.ack_timeout.as_nanos() as u64,
        io_timeout_ns: c.io_timeout.as_nanos() as u64,
        ack: c.ack,
        udp: c.transport == Transport::Udp,
        bulk: c.bulk,
        no_records: !c.records,
        token: token(),
        omit_ns: c.omit.as_nanos() as u64,
    };
    s.write_all(&req.encode()).map_err(connect_err)?;
    let local = s.local_addr().ok().map(|a| a.to_string());
    // Buffers and bytes received, counted here or by the UDP thread.
    let counts = Arc::new(Tally {
        warm: c.warm_up_buffers(),
        ..Tally::default()
    });
    let seen = Arc::new(Seen::default());
    let done = Arc::new(AtomicBool::new(false));
    let udp = c.transport == Transport::Udp;
    let mut udp_thread = if udp {
        let u = super::sender::dialed(c.dial.udp(c.target), c.target)?;
        let (counts, seen, done, token) = (counts.clone(), seen.clone(), done.clone(), req.token);
        let key = c.key.clone();
        Some(std::thread::spawn(move || {
            receive_udp(u, token, key.as_ref(), &counts, &seen, &done)
        }))
    } else {
        None
    };
    // The UDP side ends when the result has come, with what the socket holds by then, before
    // the last interval line is drawn: the sink sent every buffer before its result, and a
    // buffer counted after the last line would be missing from the lines' sum.
    let mut arrivals = None;
    let mut settle = || {
        done.store(true, Ordering::Relaxed);
        if let Some(t) = udp_thread.take() {
            arrivals = t.join().ok();
        }
    };
    let r = receive(
        s,
        c,
        stop,
        every,
        report,
        Counters {
            counts: &counts,
            seen: udp.then_some(&*seen),
            settle: &mut settle,
        },
    );
    settle();
    let mut run = r.map_err(|e| match e {
        // Issue 75 §2: a sink from before the warm-up's flag refuses the request as malformed.
        StreamError::Refused(why)
            if !c.omit.is_zero() && why.contains("malformed reverse request") =>
        {
            StreamError::Refused(format!(
                "the sink at {} is an older nmc that cannot leave a warm-up out of a run it sends: it refused -O (\"{why}\"); upgrade it, or drop -O",
                c.target
            ))
        }
        e => e,
    })?;
    // Issue 58 §5: the receiver's jitter and order are this host's.
    run.arrivals = arrivals.as_ref().map(ArrivalStats::from);
    // The sink's run names its own end; this host's is the connection's here.
    run.local = local;
    // The warm-up's buffers (-O) are counted apart, as the sink leaves them out of its own.
    let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
    let warm = load(&counts.warm_buffers);
    let got = Received {
        buffers: load(&counts.buffers) - warm,
        bytes: load(&counts.bytes) - load(&counts.warm_bytes),
    };
    if let Some(o) = run.omitted.as_mut() {
        o.received = Some(warm);
    }
    if c.transport == Transport::Udp && !c.ack {
        // What arrived here is the tally a forward run asks the sink for.
        run.sink_received = Some(got.buffers);
    }
    run.received = Some(got);
    Ok(run)
}

/// What a reverse run's client counted: buffers and bytes, and of them the warm-up's (`-O`,
/// issue 75 §2: the buffers numbered below `warm`, [`StreamConfig::warm_up_buffers`]).
#[derive(Debug, Default)]
struct Tally {
    buffers: AtomicU64,
    bytes: AtomicU64,
    warm_buffers: AtomicU64,
    warm_bytes: AtomicU64,
    warm: u64,
}

impl Tally {
    fn add(&self, seq: u64, len: u32) {
        if seq < self.warm {
            self.warm_bytes.fetch_add(u64::from(len), Ordering::Relaxed);
            self.warm_buffers.fetch_add(1, Ordering::Relaxed);
        }
        self.bytes.fetch_add(u64::from(len), Ordering::Relaxed);
        self.buffers.fetch_add(1, Ordering::Relaxed);
    }
}

/// A token for a run's HELLO: it only has to differ between runs at once on one sink.
fn token() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos() as u64;
    t ^ (u64::from(std::process::id()) << 32) ^ (&t as *const u64 as u64).rotate_left(17)
}

/// The UDP side of a reverse run: HELLO until the first buffer, then each buffer counted and
/// acknowledged when it asks, until `done`; what arrived, in order and timing. With `key`, a
/// buffer counts only with the sink's tag after it.
fn receive_udp(
    u: UdpSocket,
    token: u64,
    key: Option<&nmc_serve::Key>,
    counts: &Tally,
    seen: &Seen,
    done: &AtomicBool,
) -> Arrivals {
    let mut arrivals = Arrivals::default();
    let epoch = Instant::now();
    let hello = wire::hello(token);
    let mut gap = Duration::from_millis(5);
    let mut next = Instant::now();
    let mut buf = vec![0u8; 65_536];
    let take = |buf: &[u8], mut n: usize, arrivals: &mut Arrivals| {
        if let Some(key) = key {
            let tag = wire::TAG;
            if n < wire::HEADER + tag || !key.verify(&buf[..n - tag], &buf[n - tag..n]) {
                return;
            }
            n -= tag;
        }
        if let Some((seq, len, ack)) = wire::parse_header(&buf[..n])
            && len as usize + wire::HEADER == n
        {
            let at = epoch.elapsed().as_nanos() as u64;
            arrivals.arrive(seq, wire::sent_ns(&buf[..n]), at);
            seen.note(arrivals);
            counts.add(seq, len);
            if ack {
                let _ = u.send(&wire::ack(seq));
            }
        }
    };
    while !done.load(Ordering::Relaxed) {
        let first = counts.buffers.load(Ordering::Relaxed) == 0;
        if first && Instant::now() >= next {
            let _ = u.send(&hello);
            next = Instant::now() + gap;
            gap = (gap * 2).min(Duration::from_millis(200));
        }
        let wait = if first {
            gap.min(Duration::from_millis(50))
        } else {
            Duration::from_millis(50)
        };
        let _ = u.set_read_timeout(Some(wait));
        if let Ok(n) = u.recv(&mut buf) {
            take(&buf, n, &mut arrivals);
        }
    }
    // What came before the result and waits in the socket still counts.
    if u.set_nonblocking(true).is_ok() {
        while let Ok(n) = u.recv(&mut buf) {
            take(&buf, n, &mut arrivals);
        }
    }
    arrivals
}

/// The time the sink has, after the run and its own waits, to send its result: the summary of
/// a long run is a few kB, sent at once, so 5 s is slack for a slow path, not a wait anyone
/// sees on a working one.
pub const RESULT_SLACK: Duration = Duration::from_secs(5);

/// How long after its start a reverse run waits for the sink's result (issue 57 §4: a wait a
/// user can predict from the flags, and the error says it): the sink streams for `duration`, may spend an `--io-timeout` on
/// each of its two exchanges and an `--ack-timeout` on its last buffer, then sends the result.
pub fn result_deadline(c: &StreamConfig) -> Duration {
    c.omit + c.duration + 2 * c.io_timeout + c.ack_timeout + RESULT_SLACK
}

/// Where a reverse run's buffers are counted: the tally (here over TCP, or by the UDP side),
/// what the UDP side has seen, and how it is ended once the result has come.
struct Counters<'a> {
    counts: &'a Tally,
    seen: Option<&'a Seen>,
    settle: &'a mut dyn FnMut(),
}

/// The TCP side of a reverse run: the buffers (over TCP), the error or the result.
fn receive(
    s: TcpStream,
    c: &StreamConfig,
    stop: &AtomicBool,
    every: Option<Duration>,
    report: &mut dyn FnMut(ReceivedInterval),
    Counters {
        counts,
        seen,
        settle,
    }: Counters,
) -> Result<StreamRun, StreamError> {
    let connect_err = |err| StreamError::Connect {
        addr: c.target.to_string(),
        err,
    };
    s.set_read_timeout(Some(Duration::from_millis(50)))
        .map_err(connect_err)?;
    let t0 = Instant::now();
    let mut f = Framer {
        s,
        buf: Vec::new(),
        stop,
        stop_sent: false,
        // The sink's run, and its own timeouts besides.
        start: t0,
        wait: result_deadline(c),
        target: c.target,
        any: false,
    };
    // The open interval: its start, and the buffers received, expected and out of order when
    // it opened.
    let (mut iv_start, mut iv_from) = (t0, (0u64, 0u64, 0u64));
    let bits = c.buffer_bits;
    let mut tick = |now: Instant, last: bool| {
        let Some(every) = every else { return };
        let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let total = (
            load(&counts.buffers),
            seen.map_or(0, |s| load(&s.expected)),
            seen.map_or(0, |s| load(&s.out_of_order)),
        );
        let jitter_s = seen
            .and_then(|s| load(&s.jitter_plus_one).checked_sub(1))
            .map(|j| j as f64 / 1e9);
        let mut emit = |from: Instant, to: Instant, (n, expected, ooo): (u64, u64, u64)| {
            let secs = to.saturating_duration_since(from).as_secs_f64();
            report(ReceivedInterval {
                start_s: from.duration_since(t0).as_secs_f64(),
                end_s: to.duration_since(t0).as_secs_f64(),
                buffers_received: n,
                rate_bit_per_s: if secs > 0.0 {
                    (n * bits) as f64 / secs
                } else {
                    0.0
                },
                lost: seen.map(|_| expected.saturating_sub(n)),
                out_of_order: seen.map(|_| ooo),
                jitter_s: seen.and(jitter_s),
                omitted: !c.omit.is_zero() && to.duration_since(t0) <= c.omit,
            });
        };
        let since = |a: (u64, u64, u64), b: (u64, u64, u64)| (a.0 - b.0, a.1 - b.1, a.2 - b.2);
        // Buffers counted since the last line fall in the interval that is closing.
        while now >= iv_start + every {
            emit(iv_start, iv_start + every, since(total, iv_from));
            (iv_start, iv_from) = (iv_start + every, total);
        }
        if last && now > iv_start {
            emit(iv_start, now, since(total, iv_from));
        }
    };
    let body = loop {
        f.need(4, &mut |now| tick(now, false))?;
        let magic: [u8; 4] = [f.buf[0], f.buf[1], f.buf[2], f.buf[3]];
        if magic == wire::MAGIC {
            f.need(wire::HEADER, &mut |now| tick(now, false))?;
            let Some((seq, len, ack)) = wire::parse_header(&f.buf[..wire::HEADER]) else {
                return Err(StreamError::Input(format!(
                    "the sink at {} sent a malformed buffer header",
                    c.target
                )));
            };
            if len as usize > wire::TCP_MAX {
                return Err(StreamError::Input(format!(
                    "the sink at {} sent a buffer of {len} bytes, more than {}",
                    c.target,
                    wire::TCP_MAX
                )));
            }
            f.buf.drain(..wire::HEADER);
            let mut left = len as usize;
            while left > 0 {
                // Whatever has come of it (reads take up to 64 KB at a time), never the whole.
                f.need(1, &mut |now| tick(now, false))?;
                let took = left.min(f.buf.len());
                f.buf.drain(..took);
                left -= took;
            }
            counts.add(seq, len);
            tick(Instant::now(), false);
            if ack {
                f.s.write_all(&wire::ack(seq))
                    .map_err(|err| StreamError::Io {
                        what: "acknowledging a buffer",
                        err,
                    })?;
            }
        } else if magic == wire::ERROR_MAGIC || magic == wire::RESULT_MAGIC {
            f.need(8, &mut |now| tick(now, false))?;
            let len = u32::from_be_bytes([f.buf[4], f.buf[5], f.buf[6], f.buf[7]]);
            let max = if magic == wire::ERROR_MAGIC {
                wire::MAX_ERROR
            } else {
                wire::MAX_RESULT
            };
            if len > max {
                return Err(StreamError::Input(format!(
                    "the sink at {} announced {len} bytes, more than the {max} allowed",
                    c.target
                )));
            }
            f.need(8 + len as usize, &mut |now| tick(now, false))?;
            let body = f.buf[8..8 + len as usize].to_vec();
            if magic == wire::ERROR_MAGIC {
                return Err(StreamError::Refused(format!(
                    "{}: {}",
                    c.target,
                    String::from_utf8_lossy(&body).trim()
                )));
            }
            break body;
        } else {
            return Err(StreamError::Input(format!(
                "the sink at {} sent something that is not part of a reverse stream",
                c.target
            )));
        }
    };
    settle();
    tick(Instant::now(), true);
    let shipped: Shipped = serde_json::from_slice(&body).map_err(|e| {
        StreamError::Input(format!(
            "the sink at {} sent a result that cannot be read: {e}",
            c.target
        ))
    })?;
    let mut run = shipped.run;
    run.records = shipped.records;
    run.config.target = c.target;
    Ok(run)
}

/// `nmc stream --bidir` (iperf3's, issue 75 §2): the stream `c` both ways at once, this host
/// to the sink ([`super::sender::run_reporting`]) and the sink to this host
/// ([`stream_reverse`]), each on its own connection and socket, each measured as it is alone.
/// `stop` (Ctrl-C) stops both; either direction's failure stops the other. Returns the forward
/// run and the reverse run; `sent` and `received` get each direction's interval lines, from
/// the two threads.
pub fn stream_bidir(
    c: &StreamConfig,
    stop: &AtomicBool,
    every: Option<Duration>,
    sent: &mut (dyn FnMut(super::sender::StreamInterval) + Send),
    received: &mut (dyn FnMut(ReceivedInterval) + Send),
) -> (
    Result<StreamRun, StreamError>,
    Result<StreamRun, StreamError>,
) {
    let halt = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // The user's stop reaches both directions through `halt`, which a failure sets too.
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if stop.load(Ordering::Relaxed) {
                    halt.store(true, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let back = scope.spawn(|| {
            let r = stream_reverse(c, &halt, every, received);
            if r.is_err() {
                halt.store(true, Ordering::Relaxed);
            }
            r
        });
        let there = super::sender::run_reporting(c, &halt, every, sent);
        if there.is_err() {
            halt.store(true, Ordering::Relaxed);
        }
        let back = back.join().unwrap_or_else(|_| {
            Err(StreamError::Input(
                "the reverse direction's thread panicked".into(),
            ))
        });
        done.store(true, Ordering::Relaxed);
        (there, back)
    })
}
