//! Socket drivers: the pump over TCP and over UDP, and the server's TCP side. Thin: every
//! decision is the core's ([`Pump`], [`SinkCore`](super::sink::SinkCore), [`TcpSink`]); these
//! read the clock, move bytes and wait in `ppoll(2)` with nanosecond timeouts (see
//! [`crate::driver`] for why not async). Every wait is capped at [`MAX_WAIT`], so Ctrl-C is seen
//! promptly, and every run is bounded: a message unanswered for `--timeout` ends it.
//!
//! Over TCP the pump writes from a non-blocking socket and stamps a message's first byte when it
//! hands the message to the kernel; with N × size far below the socket's send buffer (4 × 1 KB
//! against the kernel's ≥ 16 KB) that write never waits, so the stamp is the send.

use super::analysis::{Collector, PumpRun};
use super::reverse::UdpSide;
use super::sender::{MessageRecord, Pump, PumpConfig, PumpError, PumpTransport};
use super::sink::TcpSink;
use super::wire::{self, Header, Kind};
use crate::Error;
use crate::driver::{Events, MAX_WAIT, recv_ready, wait_fd};
use crate::time::{Clock, Nanos, measure_timer_resolution, unix_now_ns};
use nmc_serve::dial::{Dial, DialError};
use nmc_serve::{Conn, Gate, Key};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the pump tells its caller as it runs (often: keep the callback cheap).
pub struct Tick<'a> {
    /// Time since the pump started.
    pub now: Nanos,
    /// The fraction of the offering time gone.
    pub fraction: f64,
    /// The messages finished since the previous tick, in the order their RFNMs came (for
    /// interval reports, `nmc pump --interval`). The run keeps none of them (issue 34).
    pub finished: &'a [MessageRecord],
    /// Over TCP: reads the sending socket's `TCP_INFO` now (issue 75 §2: an interval line's
    /// retransmits, congestion window and TCP's round trip, as iperf3 gives them). A system
    /// call, so called only when a line is due; `None` over UDP and in reverse.
    pub tcp: Option<&'a dyn Fn() -> Option<crate::tcp_info::TcpStats>>,
}

/// Reports progress ([`Tick`]).
pub type Progress<'a> = &'a mut dyn FnMut(Tick<'_>);

/// Takes each finished message, in sequence (send) order, as the run goes: `nmc pump` writes it
/// to `messages.csv`. An error stops the run with it.
pub type Messages<'a> = &'a mut dyn FnMut(&MessageRecord) -> Result<(), Error>;

/// The driver's side of the messages: the pump's finished ones go to the running figures and
/// the caller's [`Messages`], as they finish.
struct Finished<'a> {
    collector: Collector,
    just: Vec<MessageRecord>,
    messages: Option<Messages<'a>>,
}

impl<'a> Finished<'a> {
    fn new(pump: &Pump, messages: Option<Messages<'a>>) -> Self {
        Finished {
            collector: Collector::for_run(pump.config()),
            just: Vec::new(),
            messages,
        }
    }

    fn take(&mut self, pump: &mut Pump) -> Result<(), Error> {
        let sink = &mut self.messages;
        self.collector
            .take(pump, &mut self.just, &mut |r| match sink.as_mut() {
                Some(m) => m(r),
                None => Ok(()),
            })
    }
}

/// What to tell a user whose pump found nobody answering.
const HINT: &str = "is `nmc serve` (or `nmc echo serve --pump`) running there?";

/// A session number for one run: it only has to differ between runs from one address.
pub fn session_id() -> u32 {
    (unix_now_ns() as u32) ^ std::process::id().rotate_left(16)
}

fn refused(target: SocketAddr) -> Error {
    Error::Unreachable(format!(
        "{target} refused the pump: nothing listens there ({HINT})"
    ))
}

/// What a failed receive from `target` means: nobody listening, or the error as it is.
fn receive_error(target: SocketAddr) -> impl Fn(io::Error) -> Error {
    move |e| match e.kind() {
        io::ErrorKind::ConnectionRefused => refused(target),
        _ => Error::Pump(format!("receiving from {target}: {e}")),
    }
}

/// The server closed (or reset) the connection before its first RFNM, without the secret's
/// challenge: most often its connection limits refusing it (issue 57 §6).
fn cut_off(target: SocketAddr) -> Error {
    Error::Unreachable(format!(
        "{target} closed the connection before its first RFNM: is it at its connection limits (--max-connections, --max-per-source: --bidir holds two from this host)?"
    ))
}

/// Whether `e` is the connection closed under us.
fn gone(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionReset
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::ConnectionAborted
    )
}

/// A run that failed (`e`): unreachable when no RFNM ever came back (issue 58 §3: a UDP pump
/// to a silent host), else the run's failure.
fn failed(target: SocketAddr, e: &PumpError, pump: &Pump) -> Error {
    let line = format!("{target}: {e} ({HINT})");
    if pump.counters().rfnms == 0 {
        Error::Unreachable(line)
    } else {
        Error::Pump(line)
    }
}

/// Issue 58 §3: a message unanswered for `--timeout` ends the run. Before the first RFNM it is
/// an error (nothing was measured, [`failed`]); after it, the run is partial: the reason is
/// returned, and what was measured is kept.
fn partial_or_failed(target: SocketAddr, pump: &Pump) -> Result<Option<String>, Error> {
    match pump.failure().map(|e| failed(target, e, pump)) {
        None => Ok(None),
        Some(Error::Pump(why)) => Ok(Some(why)),
        Some(e) => Err(e),
    }
}

fn wait_for(pump: &Pump, now: Nanos) -> Duration {
    pump.poll_at()
        .map_or(MAX_WAIT, |at| at.saturating_sub(now).to_duration())
        .min(MAX_WAIT)
}

/// How a run ended, and what its socket says at the end.
struct Ending {
    /// Stopped by the user.
    interrupted: bool,
    /// Ended early by the path or the server: why.
    partial: Option<String>,
    /// This host's address.
    local: Option<SocketAddr>,
    /// The socket's TCP statistics (TCP, on Linux).
    tcp: Option<crate::tcp_info::TcpStats>,
}

fn finish(
    target: SocketAddr,
    mut pump: Pump,
    mut done: Finished<'_>,
    timer: crate::time::TimerResolution,
    started_unix_ns: u64,
    elapsed: Nanos,
    end: Ending,
) -> Result<PumpRun, Error> {
    let Ending {
        interrupted,
        partial,
        local,
        tcp,
    } = end;
    // Messages still outstanding (a stopped run) are written unanswered, in their place.
    pump.give_up();
    done.take(&mut pump)?;
    Ok(PumpRun {
        target: target.to_string(),
        config: pump.config().clone(),
        timer,
        started_unix_ns,
        elapsed,
        interrupted,
        partial,
        counters: pump.counters(),
        local: local.map(|a| a.to_string()),
        tcp,
        figures: done.collector.figures,
    })
}

/// Connects to `target` (within `cfg.timeout`) and pumps over `cfg.transport`.
pub fn pump(
    target: SocketAddr,
    cfg: PumpConfig,
    stop: &AtomicBool,
    progress: Option<Progress<'_>>,
) -> Result<PumpRun, Error> {
    pump_with_key(target, cfg, None, stop, progress, None)
}

/// [`pump`] with the server's secret, `key`: over TCP it answers the server's challenge first,
/// over UDP every datagram carries its tag ([`wire::seal`]) and a RFNM without a right one is
/// junk. Each finished message goes to `messages` as the run goes.
pub fn pump_with_key(
    target: SocketAddr,
    cfg: PumpConfig,
    key: Option<&Key>,
    stop: &AtomicBool,
    progress: Option<Progress<'_>>,
    messages: Option<Messages<'_>>,
) -> Result<PumpRun, Error> {
    pump_dialed(target, cfg, key, &Dial::default(), stop, progress, messages)
}

/// [`pump_with_key`] on sockets made with `dial`'s options (issue 58 §7: `--bind`, `--dscp`,
/// `--congestion`, `--window`).
pub fn pump_dialed(
    target: SocketAddr,
    cfg: PumpConfig,
    key: Option<&Key>,
    dial: &Dial,
    stop: &AtomicBool,
    progress: Option<Progress<'_>>,
    messages: Option<Messages<'_>>,
) -> Result<PumpRun, Error> {
    cfg.check()?;
    match cfg.transport {
        PumpTransport::Tcp => {
            let s = connect_tcp(target, &cfg, key, dial)?;
            run_tcp_on(s, cfg, stop, progress, messages)
        }
        PumpTransport::Udp => {
            let sock = dial_udp(target, dial)?;
            run_udp_on(sock, cfg, key, stop, progress, messages)
        }
    }
}

/// A UDP socket connected to `target`, made with `dial`'s options.
pub(crate) fn dial_udp(target: SocketAddr, dial: &Dial) -> Result<UdpSocket, Error> {
    dial.udp(target).map_err(|e| match e {
        DialError::Option(m) => Error::SocketOption(m),
        DialError::Connect(e) => Error::Unreachable(format!("cannot reach {target}: {e}")),
    })
}

/// Why a TCP connection to `target` failed, in one line.
fn connect_failed(target: SocketAddr, cfg: &PumpConfig, e: io::Error) -> Error {
    match e.kind() {
        io::ErrorKind::ConnectionRefused => refused(target),
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => Error::Unreachable(format!(
            "no answer from {target} within {} ({HINT})",
            cfg.timeout.human()
        )),
        _ => Error::Unreachable(format!("cannot connect to {target}: {e}")),
    }
}

/// Connects to `target` over TCP within `cfg.timeout`, and answers the server's challenge with
/// `key` if there is one.
pub(crate) fn connect_tcp(
    target: SocketAddr,
    cfg: &PumpConfig,
    key: Option<&Key>,
    dial: &Dial,
) -> Result<TcpStream, Error> {
    let s = dial
        .tcp(target, cfg.timeout.to_duration())
        .map_err(|e| match e {
            DialError::Option(m) => Error::SocketOption(m),
            DialError::Connect(e) => connect_failed(target, cfg, e),
        })?;
    if let Some(key) = key {
        let mut s = &s;
        let t = Some(cfg.timeout.to_duration());
        s.set_read_timeout(t)
            .and_then(|()| s.set_write_timeout(t))
            .map_err(|e| Error::Io("set timeout", e))?;
        nmc_serve::auth::answer(&mut s, key).map_err(|e| match e {
            nmc_serve::auth::AuthError::Silent => Error::Unreachable(format!(
                "no answer from {target} within {} after its secret's challenge ({HINT})",
                cfg.timeout.human()
            )),
            e => Error::Unreachable(format!("{target}: {e}")),
        })?;
    }
    Ok(s)
}

/// Whether a run cut off before its first RFNM met the secret's challenge: the server wants a
/// secret this client was not given ([`nmc_serve::auth::challenged`]).
fn unasked(pump: &Pump, s: &TcpStream, inbox: &[u8]) -> bool {
    pump.counters().rfnms == 0 && nmc_serve::auth::challenged(s, inbox)
}

fn wants_secret(target: SocketAddr) -> Error {
    Error::Unreachable(format!(
        "{target} wants a secret: give it with --secret-file"
    ))
}

/// Pumps over an already connected TCP stream (tests make it inside a network namespace).
pub fn run_tcp_on(
    mut s: TcpStream,
    cfg: PumpConfig,
    stop: &AtomicBool,
    mut progress: Option<Progress<'_>>,
    messages: Option<Messages<'_>>,
) -> Result<PumpRun, Error> {
    let target = s.peer_addr().map_err(|e| Error::Io("peer address", e))?;
    let mut pump = Pump::new(cfg)?;
    let mut done = Finished::new(&pump, messages);
    s.set_nodelay(true)
        .map_err(|e| Error::Io("set TCP_NODELAY", e))?;
    s.set_nonblocking(true)
        .map_err(|e| Error::Io("set non-blocking", e))?;
    let timer = measure_timer_resolution(1000);
    let started_unix_ns = unix_now_ns();
    let clock = Clock::new();
    let (session, size) = (pump.config().session, pump.config().size);
    let mut out: Vec<u8> = Vec::new();
    let mut off = 0usize;
    let mut inbox: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 4096];
    let (mut interrupted, mut partial) = (false, None);
    loop {
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        pump.handle_timeout(clock.now());
        partial = partial_or_failed(target, &pump)?;
        if partial.is_some() {
            break;
        }
        // Write while the window is open and the kernel takes the bytes.
        loop {
            if off == out.len() {
                out.clear();
                off = 0;
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
                out.extend_from_slice(&h.encode());
                out.resize(wire::HEADER_LEN + size as usize, 0);
            }
            match s.write(&out[off..]) {
                Ok(0) => return Err(Error::Pump(format!("{target} closed the connection"))),
                Ok(n) => off += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) if unasked(&pump, &s, &inbox) => return Err(wants_secret(target)),
                Err(e) if gone(&e) && pump.counters().rfnms == 0 => return Err(cut_off(target)),
                Err(e) => return Err(Error::Pump(format!("sending to {target}: {e}"))),
            }
        }
        done.take(&mut pump)?;
        let now = clock.now();
        if let Some(p) = progress.as_mut() {
            let info = || crate::tcp_info::stats(&s);
            p(Tick {
                now,
                fraction: pump.fraction_done(now),
                finished: &done.just,
                tcp: Some(&info),
            });
        }
        if pump.is_done(now) {
            break;
        }
        let mut events = Events::IN;
        if off < out.len() {
            events |= Events::OUT;
        }
        let seen =
            wait_fd(s.as_fd(), events, wait_for(&pump, now)).map_err(|e| Error::Io("wait", e))?;
        if !seen.intersects(Events::IN | Events::ERR | Events::HUP) {
            continue;
        }
        loop {
            let got = recv_ready(|| s.read(&mut chunk));
            if matches!(got, Err(_) | Ok(Some(0))) && unasked(&pump, &s, &inbox) {
                return Err(wants_secret(target));
            }
            if pump.counters().rfnms == 0
                && (matches!(&got, Ok(Some(0))) || matches!(&got, Err(e) if gone(e)))
            {
                return Err(cut_off(target));
            }
            let Some(n) = got.map_err(receive_error(target))? else {
                break;
            };
            if n == 0 {
                return Err(Error::Pump(format!(
                    "{target} closed the connection after {} RFNMs",
                    pump.counters().rfnms
                )));
            }
            inbox.extend_from_slice(&chunk[..n]);
        }
        let at = clock.now();
        let whole = inbox.len() / wire::HEADER_LEN * wire::HEADER_LEN;
        for f in inbox[..whole].chunks_exact(wire::HEADER_LEN) {
            match Header::decode(f) {
                Ok(h) if h.kind == Kind::Rfnm && h.session == session => {
                    pump.handle_rfnm(at, h.seq)
                }
                _ => {
                    // A byte stream cannot be resynchronised: stop with what it was.
                    return Err(Error::Pump(format!(
                        "{target} sent something that is not a RFNM of this run: is it an nmc echo server?"
                    )));
                }
            }
        }
        inbox.drain(..whole);
    }
    let elapsed = clock.now();
    let end = Ending {
        interrupted,
        partial,
        local: s.local_addr().ok(),
        tcp: crate::tcp_info::stats(&s),
    };
    let _ = s.shutdown(std::net::Shutdown::Write);
    finish(target, pump, done, timer, started_unix_ns, elapsed, end)
}

/// Pumps over an already connected UDP socket, tagging each datagram with `key` if given.
pub fn run_udp_on(
    sock: UdpSocket,
    cfg: PumpConfig,
    key: Option<&Key>,
    stop: &AtomicBool,
    mut progress: Option<Progress<'_>>,
    messages: Option<Messages<'_>>,
) -> Result<PumpRun, Error> {
    let target = sock.peer_addr().map_err(|e| Error::Io("peer address", e))?;
    let (count, per) = cfg.check()?;
    let mut pump = Pump::new(cfg)?;
    let mut done = Finished::new(&pump, messages);
    sock.set_nonblocking(true)
        .map_err(|e| Error::Io("set non-blocking", e))?;
    let timer = measure_timer_resolution(1000);
    let started_unix_ns = unix_now_ns();
    let clock = Clock::new();
    let (session, size) = (pump.config().session, pump.config().size);
    let mut buf = vec![0u8; wire::HEADER_LEN + per as usize + wire::TAG_LEN];
    let mut rbuf = vec![0u8; 65_536];
    let (mut interrupted, mut partial) = (false, None);
    let send = |b: &[u8]| -> Result<(), Error> {
        loop {
            match sock.send(b) {
                Ok(_) => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                    return Err(refused(target));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // Dropped on this host (a firewall, no buffer): lost, and sent again on time.
                Err(e) if nmc_serve::dropped_here(&e) => return Ok(()),
                // The socket's buffer is full: wait for room (bounded by the caller's timeouts).
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    wait_fd(sock.as_fd(), Events::OUT, MAX_WAIT)
                        .map_err(|e| Error::Io("wait", e))?;
                }
                Err(e) => return Err(Error::Pump(format!("sending to {target}: {e}"))),
            }
        }
    };
    loop {
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        pump.handle_timeout(clock.now());
        partial = partial_or_failed(target, &pump)?;
        if partial.is_some() {
            break;
        }
        while let Some(tx) = pump.poll_transmit(clock.now()) {
            for index in 0..count {
                let n = wire::data_datagram(&mut buf, session, tx.seq, (size, count, per), index);
                let n = wire::seal(&mut buf, n, key);
                send(&buf[..n])?;
            }
        }
        done.take(&mut pump)?;
        let now = clock.now();
        if let Some(p) = progress.as_mut() {
            p(Tick {
                now,
                fraction: pump.fraction_done(now),
                finished: &done.just,
                tcp: None,
            });
        }
        if pump.is_done(now) {
            break;
        }
        let seen = wait_fd(sock.as_fd(), Events::IN, wait_for(&pump, now))
            .map_err(|e| Error::Io("wait", e))?;
        if seen.is_empty() {
            continue;
        }
        while let Some(n) = recv_ready(|| sock.recv(&mut rbuf)).map_err(receive_error(target))? {
            let at = clock.now();
            let Some(d) = wire::open(&rbuf[..n], key) else {
                pump.counters_mut().junk += 1;
                continue;
            };
            match Header::decode(d) {
                Ok(h)
                    if h.kind == Kind::Rfnm
                        && h.session == session
                        && d.len() == wire::HEADER_LEN =>
                {
                    pump.handle_rfnm(at, h.seq)
                }
                _ => pump.counters_mut().junk += 1,
            }
        }
    }
    let elapsed = clock.now();
    let end = Ending {
        interrupted,
        partial,
        local: sock.local_addr().ok(),
        tcp: None,
    };
    finish(target, pump, done, timer, started_unix_ns, elapsed, end)
}

/// The server's TCP side: the shared gate ([`nmc_serve::Gate`]: caps, per-source limit, minimum
/// rate, descriptor exhaustion survived, the secret's handshake) accepts on `listener` until
/// `stop`; each admitted connection adds what its [`TcpSink`] counts into `counters`. A
/// connection whose first frame is a REQUEST is a reverse run ([`super::reverse`]): the server
/// sends, over TCP or, through `udp`, over UDP. With `services` (`nmc serve`), a connection
/// that does not open with the pump's magic goes to the first service that claims it.
pub fn serve_tcp(
    listener: TcpListener,
    gate: &Gate,
    stop: &AtomicBool,
    counters: Arc<Mutex<super::sink::SinkCounters>>,
    udp: Option<Arc<UdpSide>>,
    services: nmc_serve::Services,
) -> io::Result<()> {
    gate.serve(listener, stop, move |c| {
        if !services.is_empty() {
            let first = c.peek_first(nmc_serve::mux::TAG_BYTES)?;
            if first.is_empty() {
                return Ok(());
            }
            if !first.starts_with(&wire::MAGIC)
                && let Some(s) = services.for_connection(&first)
            {
                return s.connection(c);
            }
        }
        serve_connection(c, &counters, udp.as_ref())
    })
}

/// Fills `buf` from `s`, or returns `Ok(false)` at a clean end of stream before the first byte.
/// The gate's [`Conn`] bounds every wait.
fn read_full(s: &mut Conn, buf: &mut [u8]) -> io::Result<bool> {
    let mut got = 0;
    while got < buf.len() {
        match s.read(&mut buf[got..]) {
            Ok(0) if got == 0 => return Ok(false),
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

fn serve_connection(
    s: &mut Conn,
    counters: &Mutex<super::sink::SinkCounters>,
    udp: Option<&Arc<UdpSide>>,
) -> io::Result<()> {
    s.stream().set_nodelay(true)?;
    let mut sink = TcpSink::default();
    let mut h = [0u8; wire::HEADER_LEN];
    let mut discard = vec![0u8; 64 * 1024];
    let merge = |sink: &mut TcpSink| {
        counters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .add(&std::mem::take(&mut sink.counters));
    };
    let r = (|| -> io::Result<()> {
        let mut first = true;
        loop {
            if !read_full(s, &mut h)? {
                return Ok(());
            }
            if first
                && let Ok(req) = Header::decode(&h)
                && req.kind == Kind::Request
            {
                sink.counters.reverse_runs += 1;
                merge(&mut sink);
                return super::reverse::serve_request(s, &req, udp);
            }
            first = false;
            let Ok(header) = sink.header(&h) else {
                return Ok(()); // counted; a stream cannot be resynchronised
            };
            let mut left = header.length as usize;
            while left > 0 {
                let k = left.min(discard.len());
                if !read_full(s, &mut discard[..k])? {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
                left -= k;
            }
            let rfnm = sink.complete(&header);
            s.write_all(&rfnm)?;
            merge(&mut sink);
        }
    })();
    merge(&mut sink);
    r
}
