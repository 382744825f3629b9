//! `nmc pump --reverse`: the server sends, the client receives, as iperf3 `-R`. This module is
//! the protocol and the server's side; the client's is [`super::reverse_client`].
//!
//! The client opens the TCP connection to `nmc echo serve --pump` (so it works from behind NAT
//! and firewalls that let only outgoing connections through) and sends a REQUEST with the
//! parameters it was given ([`wire::Request`]). The server checks them against its limits
//! ([`check_request`]); a request it will not serve gets one ERROR frame with the reason, and
//! the server goes on serving others. Otherwise the server runs the pump's sending core,
//! [`super::sender::Pump`], exactly as the client does in the forward direction, and the
//! client runs the receiving core ([`super::receiver`]), answering each whole message with its
//! RFNM. Over UDP the REQUEST still goes over TCP, which then carries only the end of the run;
//! the client's HELLO datagram, from the socket the data is to reach, opens the way through its
//! NAT and tells the server where to send (only from the TCP connection's IP address, so a
//! request cannot aim the data at a third party).
//!
//! ## Where the figures are measured, and why there
//!
//! K&O's round trip is the sender's: from its first byte sent to the RFNM's arrival, both on
//! the sender's clock. In reverse both ends of that interval are on the server, and the client
//! cannot time it (it sees neither event; clocks on two hosts are not one clock). So the server
//! times the round trips as the forward pump does and, at the end, ships its figures back over
//! the same TCP connection in one RESULT frame: the [`PumpSummary`] it computed from its running
//! figures (throughput, best 150, round-trip statistics and histogram, autocorrelation, window
//! limits, counters, timer) and the round-trip plot's bounded state ([`RttPlot`], at most
//! 10,000 buckets). The client prints and writes exactly these, so a reverse report reads as a
//! forward one, with `"reverse": true`, plus what only the receiver sees: `receiver` in
//! `summary.json` ([`ReceiverFigures`]: messages whole, bytes, the throughput at the receiver,
//! order and repeats) and the per-message file.
//!
//! **Why not ship every message's record.** The server would have to keep them until the end
//! (a 10-minute loopback run is 77 M messages: the unbounded memory issue 34 removed), or send
//! them during the run over the path being measured, in the measured direction, adding 2–5 % to
//! the bytes of 1 KB messages and competing with them. The summary costs nothing during the run
//! and is the size of the figures, not of the run. So the client's `messages.csv` in reverse is
//! the receiver's record of each message, on the client's clock from the request:
//! `seq,bytes,first_ns,whole_ns,packets,in_run` (first byte or datagram in, whole and its RFNM
//! sent, datagrams of it seen, whole within the offering time of the first arrival), in the
//! order the messages became whole. It has no round-trip column, so `nmc rto evaluate` does not
//! take it; the round trips are in the summary. `-i` interval lines are the receiver's too:
//! messages whole and their throughput in each interval (the round trip is the sender's, `-`).
//!
//! **Bidirectional** (`--bidir`, iperf3's) is a forward run and a reverse run at once, each on
//! its own connection and session: the server side is this module's, unchanged.
//!
//! **Bounds** (issue 75 §3): a REQUEST with a count (`-k`, `-n`) or a warm-up (`-O`) carries
//! them ([`wire::BOUNDED_REQUEST_LEN`]); the server's pump then offers that many messages, or
//! leaves the warm-up out of the figures it ships, exactly as the forward pump does. A counted
//! run is still held to [`MAX_DURATION`]. An older server refuses the longer body, and the
//! client says so in one line; it never runs without the bound.
//!
//! The server's state stays bounded whatever the client asks: the pump core holds the window,
//! the running figures are constant-size, a message is written from a fixed 64 KB buffer of
//! zeros (never allocated whole), and the request's numbers are capped ([`MAX_DURATION`],
//! [`MAX_TIMEOUT`], [`MAX_WINDOW_BYTES`], and the pump's own [`PumpConfig::check`]).

use super::analysis::{Collector, PumpRun, PumpSummary};
use super::running::RttPlot;
use super::sender::{MessageRecord, Pump, PumpConfig, PumpTransport};
use super::wire::{self, Header, Kind, Request};
use crate::driver::{Events, MAX_WAIT, recv_ready, wait_fd};
use crate::time::{Clock, Nanos, measure_timer_resolution, unix_now_ns};
use nmc_serve::Conn;
use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

pub use super::receiver::ReceiverFigures;

/// Longest run a server sends for. **Choice**: 1 h, six times K&O's 10 minutes; a reverse run
/// holds one of the server's connection slots and its upstream for that long.
pub const MAX_DURATION: Nanos = Nanos(3_600 * 1_000_000_000);
/// Longest `--timeout` a server accepts. **Choice**: 60 s, RFC 6298's ceiling on a
/// retransmission timeout; a silent client frees its slot within it.
pub const MAX_TIMEOUT: Nanos = Nanos(60 * 1_000_000_000);
/// Most bytes a server keeps outstanding (`--outstanding` × `--size`). **Choice**: 64 MiB, the
/// largest message the pump takes; K&O's window was 4 × 1008 bytes.
pub const MAX_WINDOW_BYTES: u64 = 64 << 20;

/// What a server will send: the request's numbers as a pump configuration, or why not (one
/// line, sent back in the ERROR frame).
pub fn check_request(r: &Request, session: u32) -> Result<PumpConfig, String> {
    let cfg = PumpConfig {
        transport: if r.udp {
            PumpTransport::Udp
        } else {
            PumpTransport::Tcp
        },
        size: r.size,
        outstanding: r.outstanding,
        duration: Nanos(r.duration_ns),
        packet: r.packet,
        timeout: Nanos(r.timeout_ns),
        session,
        count: r.count,
        omit: Nanos(r.omit_ns),
    };
    cfg.check().map_err(|e| e.to_string())?;
    // A counted run (iperf3 -k/-n) ends when its messages are answered; the time the client
    // gives it is only a bound (`COUNTED_RUN_BOUND`, a day), which this server holds to its own.
    let cfg = match cfg.count {
        Some(_) => PumpConfig {
            duration: cfg.duration.min(MAX_DURATION),
            ..cfg
        },
        None => cfg,
    };
    if cfg.count.is_some() && cfg.omit > Nanos::ZERO {
        return Err("-O (a warm-up) goes with a time, not with -k/-n".into());
    }
    if cfg.omit > MAX_DURATION.saturating_sub(cfg.duration) {
        return Err(format!(
            "-O {} and --duration {} are longer together than this server's limit of {}",
            cfg.omit.human(),
            cfg.duration.human(),
            MAX_DURATION.human()
        ));
    }
    if cfg.duration > MAX_DURATION {
        return Err(format!(
            "--duration {} is longer than this server's limit of {}",
            cfg.duration.human(),
            MAX_DURATION.human()
        ));
    }
    if cfg.timeout > MAX_TIMEOUT {
        return Err(format!(
            "--timeout {} is longer than this server's limit of {}",
            cfg.timeout.human(),
            MAX_TIMEOUT.human()
        ));
    }
    let window = u64::from(cfg.outstanding) * u64::from(cfg.size);
    if window > MAX_WINDOW_BYTES {
        return Err(format!(
            "--outstanding {} × --size {} is {window} bytes outstanding, above this server's limit of {MAX_WINDOW_BYTES}",
            cfg.outstanding, cfg.size
        ));
    }
    Ok(cfg)
}

/// What the server ships in its RESULT frame.
#[derive(serde::Serialize)]
struct Shipped<'a> {
    summary: &'a PumpSummary,
    plot: &'a RttPlot,
}

#[derive(serde::Deserialize)]
pub(crate) struct ShippedBack {
    pub(crate) summary: PumpSummary,
    pub(crate) plot: RttPlot,
}

// ---------------------------------------------------------------------------------------------
// The server's side.

/// An arrival the echo server's UDP loop hands to a reverse run's thread.
enum UdpEvent {
    Hello(SocketAddr),
    Rfnm(Instant, u64),
}

struct Route {
    ip: IpAddr,
    addr: Option<SocketAddr>,
    tx: mpsc::Sender<UdpEvent>,
}

/// The UDP half of the server's reverse runs: the echo server's socket (to send from its port,
/// which the client's HELLO opened) and the sessions waiting for datagrams. The echo server's
/// loop offers it every pump datagram first ([`UdpSide::route`]).
pub struct UdpSide {
    sock: UdpSocket,
    routes: Mutex<HashMap<u32, Route>>,
    active: AtomicUsize,
    /// The server's secret: its DATA datagrams carry the tag (the client's HELLO and RFNMs are
    /// checked and stripped by the echo server's loop before [`UdpSide::route`]).
    key: Option<nmc_serve::Key>,
}

impl UdpSide {
    /// Sends from `sock` (a clone of the echo server's socket).
    pub fn new(sock: UdpSocket, key: Option<nmc_serve::Key>) -> Arc<UdpSide> {
        Arc::new(UdpSide {
            sock,
            routes: Mutex::new(HashMap::new()),
            active: AtomicUsize::new(0),
            key,
        })
    }

    /// A pump datagram from `src` that arrived at `at`: true if it was a reverse run's HELLO
    /// or RFNM (taken), false if it is the sink's.
    pub fn route(&self, at: Instant, src: SocketAddr, pkt: &[u8]) -> bool {
        // A HELLO is never the sink's, even one that came before its run was set up (or after).
        let hello = pkt.len() == wire::HEADER_LEN && pkt[5] == 7;
        if self.active.load(Ordering::Relaxed) == 0 {
            return hello;
        }
        let Ok(h) = Header::decode(pkt) else {
            return false;
        };
        if !matches!(h.kind, Kind::Hello | Kind::Rfnm) || pkt.len() != wire::HEADER_LEN {
            return false;
        }
        let mut routes = self.routes.lock().unwrap_or_else(|p| p.into_inner());
        let Some(r) = routes.get_mut(&h.session) else {
            return hello;
        };
        if src.ip().to_canonical() != r.ip {
            return hello;
        }
        match h.kind {
            Kind::Hello if r.addr.is_none() => {
                r.addr = Some(src);
                let _ = r.tx.send(UdpEvent::Hello(src));
            }
            Kind::Rfnm if r.addr == Some(src) => {
                let _ = r.tx.send(UdpEvent::Rfnm(at, h.seq));
            }
            _ => {}
        }
        true
    }

    fn open(
        self: &Arc<Self>,
        session: u32,
        ip: IpAddr,
    ) -> Result<(RouteGuard, mpsc::Receiver<UdpEvent>), String> {
        let (tx, rx) = mpsc::channel();
        let mut routes = self.routes.lock().unwrap_or_else(|p| p.into_inner());
        if routes.contains_key(&session) {
            return Err(format!(
                "session {session} is already running here; try again"
            ));
        }
        routes.insert(session, Route { ip, addr: None, tx });
        self.active.fetch_add(1, Ordering::Relaxed);
        Ok((
            RouteGuard {
                side: self.clone(),
                session,
            },
            rx,
        ))
    }
}

/// Removes a session's route when its run ends, however it ends.
struct RouteGuard {
    side: Arc<UdpSide>,
    session: u32,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        let mut routes = self.side.routes.lock().unwrap_or_else(|p| p.into_inner());
        if routes.remove(&self.session).is_some() {
            self.side.active.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// How a server's reverse run ended without a result to ship.
enum Ended {
    /// Tell the client why (an ERROR frame), then close.
    Failed(String),
    /// The connection is gone or closed by the gate: nothing to tell.
    Gone(io::Error),
}

impl From<io::Error> for Ended {
    fn from(e: io::Error) -> Self {
        Ended::Gone(e)
    }
}

/// The gate's rules, now: a server that is stopping ends the run with a word to the client
/// ([`Ended::Failed`]); a client too slow or too late is closed without one.
fn guard(s: &mut Conn) -> Result<(), Ended> {
    s.guard().map_err(|e| match s.closed() {
        Some(nmc_serve::gate::Closed::Stopping) => {
            Ended::Failed("the server is stopping: the run ended early".into())
        }
        _ => Ended::Gone(e),
    })
}

/// Writes `b` whole: through the gate's guard, or, once the guard has closed the connection
/// because the server is stopping, straight to the socket (its 100 ms send timeout bounds it).
fn write_out(s: &mut Conn, b: &[u8]) -> io::Result<()> {
    if s.closed().is_some() {
        s.stream().write_all(b)
    } else {
        s.write_all(b)
    }
}

fn send_error(s: &mut Conn, session: u32, why: &str) -> io::Result<()> {
    let mut why = why.replace('\n', " ");
    if why.len() > wire::MAX_ERROR as usize {
        let mut cut = wire::MAX_ERROR as usize;
        while !why.is_char_boundary(cut) {
            cut -= 1;
        }
        why.truncate(cut);
    }
    s.stream().set_nonblocking(false)?;
    write_out(s, &wire::control(Kind::Error, session, why.len() as u32))?;
    write_out(s, why.as_bytes())
}

/// Serves one REQUEST whose header `h` the connection's handler has read (the first frame of
/// the connection): reads its body, checks it, runs the sender, ships the result. Every refusal
/// and failure the client can be told of goes back as an ERROR frame; `Err` is only a
/// connection that went away.
pub(crate) fn serve_request(
    s: &mut Conn,
    h: &Header,
    udp: Option<&Arc<UdpSide>>,
) -> io::Result<()> {
    let session = h.session;
    // A refusal is told to the client and logged (rate-limited: anyone may ask).
    let refuse = |s: &mut Conn, why: &str| {
        s.note_refused(&format!("nmc pump -R: {why}"));
        send_error(s, session, why)
    };
    // The 32-byte body, or the bounded one with a count and a warm-up (issue 75 §3).
    let len = h.length as usize;
    if len != wire::REQUEST_LEN && len != wire::BOUNDED_REQUEST_LEN {
        return refuse(
            s,
            &format!(
                "malformed reverse request: a body of {} bytes, not {} or {}",
                h.length,
                wire::REQUEST_LEN,
                wire::BOUNDED_REQUEST_LEN
            ),
        );
    }
    let mut body = [0u8; wire::BOUNDED_REQUEST_LEN];
    let body = &mut body[..len];
    s.read_exact(body)?;
    let Ok(req) = Request::decode(body) else {
        return refuse(s, "malformed reverse request");
    };
    let cfg = match check_request(&req, session) {
        Ok(c) => c,
        Err(why) => return refuse(s, &format!("request refused: {why}")),
    };
    if cfg.transport == PumpTransport::Udp && udp.is_none() {
        return refuse(
            s,
            "request refused: this server does not serve the pump over UDP",
        );
    }
    let run = match cfg.transport {
        PumpTransport::Tcp => send_tcp(s, cfg),
        PumpTransport::Udp => match udp {
            Some(side) => send_udp(s, cfg, side),
            None => Err(Ended::Failed(
                "request refused: this server does not serve the pump over UDP".into(),
            )),
        },
    };
    let run = match run {
        Ok(r) => r,
        Err(Ended::Failed(why)) => return send_error(s, session, &why),
        Err(Ended::Gone(e)) => return Err(e),
    };
    let summary = PumpSummary::of(run);
    let json = serde_json::to_vec(&Shipped {
        summary: &summary,
        plot: summary.run.figures.plot(),
    })
    .map_err(io::Error::other)?;
    if json.len() > wire::MAX_RESULT as usize {
        return send_error(s, session, "the result is too large to send");
    }
    s.stream().set_nonblocking(false)?;
    s.write_all(&wire::control(Kind::Result, session, json.len() as u32))?;
    s.write_all(&json)?;
    // Until the client has read it and closed (bounded by the gate's rules).
    let mut sink = [0u8; 256];
    while s.read(&mut sink)? > 0 {}
    Ok(())
}

/// The RFNMs (and a STOP) in `inbox`, whole frames only: `Ok(true)` on a STOP.
fn take_rfnms(
    inbox: &mut Vec<u8>,
    pump: &mut Pump,
    at: Nanos,
    s: &mut Conn,
) -> Result<bool, Ended> {
    let session = pump.config().session;
    let credit = u64::from(pump.config().size);
    let whole = inbox.len() / wire::HEADER_LEN * wire::HEADER_LEN;
    let mut stop = false;
    for f in inbox[..whole].chunks_exact(wire::HEADER_LEN) {
        match Header::decode(f) {
            Ok(h) if h.kind == Kind::Rfnm && h.session == session => {
                pump.handle_rfnm(at, h.seq);
                s.credit(credit);
            }
            Ok(h) if h.kind == Kind::Stop && h.session == session => stop = true,
            _ => {
                return Err(Ended::Failed(
                    "the client sent something that is not a RFNM of its run".into(),
                ));
            }
        }
    }
    inbox.drain(..whole);
    Ok(stop)
}

/// Reads what the client sent without waiting; `Err` if it closed.
fn read_ready(s: &mut Conn, inbox: &mut Vec<u8>) -> Result<(), Ended> {
    let mut chunk = [0u8; 4096];
    let mut stream = s.stream();
    let mut got = 0u64;
    let r = loop {
        match recv_ready(|| stream.read(&mut chunk)) {
            Ok(Some(0)) => break Err(Ended::Gone(io::ErrorKind::UnexpectedEof.into())),
            Ok(Some(n)) => {
                inbox.extend_from_slice(&chunk[..n]);
                got += n as u64;
                if inbox.len() > 1 << 20 {
                    break Err(Ended::Failed(
                        "the client sent more than its RFNMs could be".into(),
                    ));
                }
            }
            Ok(None) => break Ok(()),
            Err(e) => break Err(Ended::Gone(e)),
        }
    };
    s.credit(got);
    r
}

/// Bytes of zeros a message is written from, a piece at a time.
const PIECE: usize = 64 * 1024;

fn wait_for(pump: &Pump, now: Nanos) -> Duration {
    pump.poll_at()
        .map_or(MAX_WAIT, |at| at.saturating_sub(now).to_duration())
        .min(MAX_WAIT)
}

/// How a server's run ended, and what it measured of its clock.
struct End {
    elapsed: Nanos,
    timer: crate::time::TimerResolution,
    started_unix_ns: u64,
    interrupted: bool,
}

impl End {
    /// The run's figures once the pump gives up what is still outstanding.
    fn run(
        self,
        target: SocketAddr,
        mut pump: Pump,
        mut collector: Collector,
        just: &mut Vec<MessageRecord>,
    ) -> PumpRun {
        pump.give_up();
        take_finished(&mut collector, &mut pump, just);
        PumpRun {
            target: target.to_string(),
            config: pump.config().clone(),
            timer: self.timer,
            started_unix_ns: self.started_unix_ns,
            elapsed: self.elapsed,
            interrupted: self.interrupted,
            partial: None,
            counters: pump.counters(),
            local: None,
            tcp: None,
            figures: collector.figures,
        }
    }
}

fn take_finished(c: &mut Collector, pump: &mut Pump, just: &mut Vec<MessageRecord>) {
    let _ = c.take(pump, just, &mut |_| Ok::<(), ()>(()));
}

/// The server's pump over the client's TCP connection: as the forward pump's driver, but a
/// message is written from [`PIECE`] bytes of zeros, so its size costs no memory.
fn send_tcp(s: &mut Conn, cfg: PumpConfig) -> Result<PumpRun, Ended> {
    let mut out = vec![0u8; wire::HEADER_LEN + PIECE];
    // out[off..end] is due; `rest` bytes of the message are still to be put there.
    let mut due = (0usize, 0usize, 0u32);
    let r = pump_tcp(s, cfg, &mut out, &mut due);
    if matches!(r, Ok(_) | Err(Ended::Failed(_))) {
        // A STOP or a failure can come with a message half written: the rest of it first, so
        // that the RESULT or ERROR after it is read as a frame.
        let (off, end, mut rest) = due;
        s.stream().set_nonblocking(false)?;
        write_out(s, &out[off..end])?;
        while rest > 0 {
            let k = rest.min(PIECE as u32);
            write_out(s, &out[wire::HEADER_LEN..wire::HEADER_LEN + k as usize])?;
            rest -= k;
        }
    }
    r
}

fn pump_tcp(
    s: &mut Conn,
    cfg: PumpConfig,
    out: &mut [u8],
    due: &mut (usize, usize, u32),
) -> Result<PumpRun, Ended> {
    let peer = s.peer();
    let mut pump = Pump::new(cfg).map_err(|e| Ended::Failed(e.to_string()))?;
    let mut collector = Collector::for_run(pump.config());
    let mut just = Vec::new();
    let (session, size) = (pump.config().session, pump.config().size);
    s.stream().set_nonblocking(true)?;
    let timer = measure_timer_resolution(1000);
    let started_unix_ns = unix_now_ns();
    let clock = Clock::new();
    let mut inbox = Vec::new();
    let mut interrupted = false;
    let (off, end, rest) = (&mut due.0, &mut due.1, &mut due.2);
    loop {
        guard(s)?;
        pump.handle_timeout(clock.now());
        if let Some(e) = pump.failure() {
            return Err(Ended::Failed(e.to_string()));
        }
        loop {
            if *off == *end {
                if *rest > 0 {
                    let k = (*rest).min(PIECE as u32);
                    (*off, *end, *rest) =
                        (wire::HEADER_LEN, wire::HEADER_LEN + k as usize, *rest - k);
                } else {
                    let Some(tx) = pump.poll_transmit(clock.now()) else {
                        break;
                    };
                    let h = Header {
                        kind: Kind::Data,
                        session,
                        seq: tx.seq,
                        length: size,
                        index: 0,
                        count: 1,
                    };
                    out[..wire::HEADER_LEN].copy_from_slice(&h.encode());
                    let k = size.min(PIECE as u32);
                    (*off, *end, *rest) = (0, wire::HEADER_LEN + k as usize, size - k);
                }
            }
            match s.stream().write(&out[*off..*end]) {
                Ok(0) => return Err(Ended::Gone(io::ErrorKind::WriteZero.into())),
                Ok(n) => {
                    *off += n;
                    if *off > wire::HEADER_LEN && *off == *end {
                        // The header goes with the first piece only.
                        out[..wire::HEADER_LEN].fill(0);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Ended::Gone(e)),
            }
        }
        take_finished(&mut collector, &mut pump, &mut just);
        let now = clock.now();
        if pump.is_done(now) {
            break;
        }
        let mut events = Events::IN;
        if *off < *end || *rest > 0 {
            events |= Events::OUT;
        }
        let seen = wait_fd(s.stream().as_fd(), events, wait_for(&pump, now))?;
        if !seen.intersects(Events::IN | Events::ERR | Events::HUP) {
            continue;
        }
        read_ready(s, &mut inbox)?;
        if take_rfnms(&mut inbox, &mut pump, clock.now(), s)? {
            interrupted = true;
            break;
        }
    }
    let end = End {
        elapsed: clock.now(),
        timer,
        started_unix_ns,
        interrupted,
    };
    let mut run = end.run(peer, pump, collector, &mut just);
    // Issue 58 §4: the sending socket's TCP statistics, which the client cannot read; they
    // travel back in the run.
    run.tcp = crate::tcp_info::stats(s.stream());
    Ok(run)
}

/// The server's pump over UDP: datagrams from the echo server's port to the address the
/// client's HELLO came from; its RFNMs come from the echo server's loop through `side`. The TCP
/// connection is watched for a STOP or the client going away.
fn send_udp(s: &mut Conn, cfg: PumpConfig, side: &Arc<UdpSide>) -> Result<PumpRun, Ended> {
    let peer = s.peer();
    let (count, per) = cfg.check().map_err(|e| Ended::Failed(e.to_string()))?;
    let (_route, rx) = side.open(cfg.session, peer.ip()).map_err(Ended::Failed)?;
    s.stream().set_nonblocking(true)?;
    let mut inbox = Vec::new();
    // The client's HELLO, within the timeout.
    let asked = Instant::now();
    let to = loop {
        guard(s)?;
        read_ready(s, &mut inbox)?;
        match rx.recv_timeout(MAX_WAIT) {
            Ok(UdpEvent::Hello(a)) => break a,
            Ok(UdpEvent::Rfnm(..)) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Ended::Failed("the server is stopping".into()));
            }
        }
        if asked.elapsed() >= cfg.timeout.to_duration() {
            return Err(Ended::Failed(format!(
                "no HELLO datagram came from {} within {}: is UDP to this server's port blocked?",
                peer.ip(),
                cfg.timeout.human()
            )));
        }
    };
    let mut pump = Pump::new(cfg).map_err(|e| Ended::Failed(e.to_string()))?;
    let mut collector = Collector::for_run(pump.config());
    let mut just = Vec::new();
    let (session, size) = (pump.config().session, pump.config().size);
    let timer = measure_timer_resolution(1000);
    let started_unix_ns = unix_now_ns();
    let clock = Clock::new();
    let mut buf = vec![0u8; wire::HEADER_LEN + per as usize + wire::TAG_LEN];
    let mut interrupted = false;
    let credit = u64::from(size);
    loop {
        guard(s)?;
        pump.handle_timeout(clock.now());
        if let Some(e) = pump.failure() {
            return Err(Ended::Failed(e.to_string()));
        }
        while let Some(tx) = pump.poll_transmit(clock.now()) {
            for index in 0..count {
                let n = wire::data_datagram(&mut buf, session, tx.seq, (size, count, per), index);
                let n = wire::seal(&mut buf, n, side.key.as_ref());
                // A datagram the kernel will not take is lost, as on the path.
                let _ = side.sock.send_to(&buf[..n], to);
            }
        }
        take_finished(&mut collector, &mut pump, &mut just);
        let now = clock.now();
        if pump.is_done(now) {
            break;
        }
        let mut next = match rx.recv_timeout(wait_for(&pump, now)) {
            Ok(e) => Some(e),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Ended::Failed("the server is stopping".into()));
            }
        };
        while let Some(e) = next {
            if let UdpEvent::Rfnm(at, seq) = e {
                pump.handle_rfnm(clock.at(at), seq);
                s.credit(credit);
            }
            next = rx.try_recv().ok();
        }
        read_ready(s, &mut inbox)?;
        if take_rfnms(&mut inbox, &mut pump, clock.now(), s)? {
            interrupted = true;
            break;
        }
    }
    let end = End {
        elapsed: clock.now(),
        timer,
        started_unix_ns,
        interrupted,
    };
    Ok(end.run(to, pump, collector, &mut just))
}

// ---------------------------------------------------------------------------------------------
// The client's side.
