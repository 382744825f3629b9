//! `nmc pump --reverse`, the client's side: it connects, asks, receives and answers each whole
//! message with its RFNM (the receiving core, [`super::receiver`]), then reads the server's
//! figures back. The protocol, and why the figures are the server's, are in [`super::reverse`].

use super::analysis::PumpSummary;
use super::net::{Progress, Tick};
use super::receiver::{Control, Received, ReceiverTally, TcpReceiver, UdpReceiver};
use super::reverse::ShippedBack;
use super::sender::{MessageRecord, PumpConfig, PumpTransport};
use super::wire::{self, Kind, Request};
use crate::Error;
use crate::driver::{Events, MAX_WAIT, recv_ready, wait_fd, wait_fds};
use crate::time::{Clock, Nanos};
use nmc_serve::Key;
use nmc_serve::dial::Dial;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};

/// Takes each message whole, as the run goes, with whether it was whole within the offering
/// time: `nmc pump --reverse` writes it to `messages.csv`.
pub type ReceivedRows<'a> = &'a mut dyn FnMut(&Received, bool) -> Result<(), Error>;

const HINT: &str = "is `nmc serve` (or `nmc echo serve --pump`) running there?";

/// How many `--timeout`s past `--duration` the client waits for the server's result before it
/// gives up (issue 57 §4: a server that kept sending and never sent its result held the client
/// for ever). **Choice**: 3, the most an honest server takes: up to one `--timeout` for the
/// HELLO over UDP before its run starts, the run's `--duration`, up to one `--timeout` for the
/// last message's RFNM, and one more for the result to come back. Ctrl-C does not extend it.
pub const RESULT_TIMEOUTS: u64 = 3;

/// Most reads (of up to 64 KiB, or one datagram each) in one turn of the receiving loop, so
/// that a server that never pauses cannot keep the loop from its clock, its RFNMs and its
/// deadline. **Choice**: 64, 4 MiB over TCP: a turn stays well under a millisecond.
const MAX_READS_PER_TURN: usize = 64;

/// When the client gives up on a reverse run, from its request: `--duration` +
/// [`RESULT_TIMEOUTS`] × `--timeout`.
pub fn result_deadline(cfg: &PumpConfig) -> Nanos {
    cfg.duration
        .saturating_add(Nanos(cfg.timeout.0.saturating_mul(RESULT_TIMEOUTS)))
}

fn connect(
    target: SocketAddr,
    cfg: &PumpConfig,
    key: Option<&Key>,
    dial: &Dial,
) -> Result<TcpStream, Error> {
    let s = super::net::connect_tcp(target, cfg, key, dial)?;
    s.set_nodelay(true)
        .map_err(|e| Error::Io("set TCP_NODELAY", e))?;
    Ok(s)
}

/// What the client does with each message whole and with the time passing.
struct Client<'a> {
    target: SocketAddr,
    /// What was asked (to tell an older server's refusal of its bounds).
    request: Request,
    cfg: PumpConfig,
    clock: Clock,
    tally: ReceiverTally,
    start: Option<Nanos>,
    just: Vec<MessageRecord>,
    rows: Option<ReceivedRows<'a>>,
    progress: Option<Progress<'a>>,
    /// Time the last byte or datagram came from the server.
    heard: Nanos,
    /// How its sockets are made (issue 58 §7).
    dial: Dial,
}

impl Client<'_> {
    /// Messages whole since the last turn: to the tally, the rows and the progress callback
    /// (as records whose `sent` is the first arrival and `rfnm` the moment it was whole).
    fn take(&mut self, mut pop: impl FnMut() -> Option<Received>) -> Result<(), Error> {
        self.just.clear();
        while let Some(r) = pop() {
            let start = *self.start.get_or_insert(r.first);
            let (omit, duration) = (self.cfg.omit, self.cfg.duration);
            self.tally.add_after(&r, omit, duration);
            let in_run = super::analysis::in_run(r.whole.saturating_sub(start), omit, duration);
            if let Some(rows) = self.rows.as_mut() {
                rows(&r, in_run)?;
            }
            self.just.push(MessageRecord {
                seq: r.seq,
                bytes: r.bytes,
                sent: r.first,
                rfnm: Some(r.whole),
                transmissions: r.packets,
            });
        }
        let now = self.clock.now();
        if let Some(p) = self.progress.as_mut() {
            p(Tick {
                now,
                fraction: match self.cfg.count {
                    // A counted run (-k/-n): the share of its messages here.
                    Some(k) => self.tally.messages() as f64 / k as f64,
                    None => {
                        now.as_secs_f64()
                            / self
                                .cfg
                                .duration
                                .saturating_add(self.cfg.omit)
                                .as_secs_f64()
                    }
                }
                .min(1.0),
                finished: &self.just,
                tcp: None,
            });
        }
        Ok(())
    }

    /// An error if the server has been silent for the timeout, or its result is overdue.
    fn check_silence(&self) -> Result<(), Error> {
        let now = self.clock.now();
        let deadline = result_deadline(&self.cfg);
        if now >= deadline {
            return Err(Error::Pump(format!(
                "{} sent no result within {} of the request (--duration + {RESULT_TIMEOUTS} × --timeout); giving up",
                self.target,
                deadline.human()
            )));
        }
        let quiet = now.saturating_sub(self.heard);
        if quiet >= self.cfg.timeout {
            return Err(Error::Pump(format!(
                "no data from {} within {} ({HINT})",
                self.target,
                self.cfg.timeout.human()
            )));
        }
        Ok(())
    }

    fn result(
        self,
        control: Control,
        counters: super::sink::SinkCounters,
    ) -> Result<PumpSummary, Error> {
        let target = self.target;
        let body = match control {
            Control::Error(why) if self.request.older_server(&why) => {
                return Err(Error::Unreachable(format!(
                    "{target} is an older nmc that cannot bound a run it sends: it refused {} (\"{why}\"); upgrade it, or run -R/--bidir without them",
                    bounds_asked(&self.cfg)
                )));
            }
            Control::Error(why) => return Err(Error::Unreachable(format!("{target}: {why}"))),
            Control::Result(b) => b,
        };
        let got: ShippedBack = serde_json::from_slice(&body)
            .map_err(|e| Error::Pump(format!("{target} sent a result that cannot be read: {e}")))?;
        let mut summary = got.summary;
        summary.run.figures =
            super::analysis::PumpFigures::shipped(summary.run.config.duration, got.plot);
        summary.run.target = target.to_string();
        summary.reverse = true;
        // Over the sender's offering time: the duration, or less when stopped early.
        let run = Nanos((summary.run_seconds * 1e9).round() as u64);
        summary.receiver = Some(self.tally.figures(run, &counters));
        Ok(summary)
    }
}

/// The bounds a run asked for, as the flags that give them: `-k/-n` (a count), `-O` (a warm-up).
fn bounds_asked(cfg: &PumpConfig) -> &'static str {
    match (cfg.count.is_some(), cfg.omit > Nanos::ZERO) {
        (true, true) => "-k/-n and -O",
        (true, false) => "-k/-n (a count of messages)",
        _ => "-O (a warm-up)",
    }
}

/// The server closed the connection. A server that wants a secret opens with its challenge,
/// which is told apart before this ([`wants_secret`]); one that closes without a word on a
/// new connection is most often refusing it at its connection limits (issue 57 §6: `--bidir`
/// refused by `--max-per-source` was told to give a secret), or an nmc from before `--reverse`.
fn closed(target: SocketAddr, received: u64) -> Error {
    if received == 0 {
        Error::Unreachable(format!(
            "{target} closed the connection without answering the reverse request: is it at its connection limits (--max-connections, --max-per-source: --bidir holds two from this host), or an nmc that does not serve --reverse?"
        ))
    } else {
        Error::Pump(format!(
            "{target} closed the connection after {received} messages, before its result"
        ))
    }
}

/// `nmc pump --reverse`: connects to `target`, asks it to pump `cfg` to us, receives, and
/// returns the sender's summary with the receiver's figures (`reverse`, `receiver`). `rows`
/// gets each message whole as it comes; `stop` (Ctrl-C) asks the server to stop early, and its
/// result then says so.
pub fn pump_reverse<'a>(
    target: SocketAddr,
    cfg: PumpConfig,
    key: Option<&Key>,
    stop: &AtomicBool,
    progress: Option<Progress<'a>>,
    rows: Option<ReceivedRows<'a>>,
) -> Result<PumpSummary, Error> {
    pump_reverse_dialed(target, cfg, key, &Dial::default(), stop, progress, rows)
}

/// [`pump_reverse`] on sockets made with `dial`'s options (issue 58 §7).
pub fn pump_reverse_dialed<'a>(
    target: SocketAddr,
    cfg: PumpConfig,
    key: Option<&Key>,
    dial: &Dial,
    stop: &AtomicBool,
    progress: Option<Progress<'a>>,
    rows: Option<ReceivedRows<'a>>,
) -> Result<PumpSummary, Error> {
    cfg.check()?;
    let mut s = connect(target, &cfg, key, dial)?;
    let req = Request {
        udp: cfg.transport == PumpTransport::Udp,
        size: cfg.size,
        outstanding: cfg.outstanding,
        packet: cfg.packet,
        duration_ns: cfg.duration.0,
        timeout_ns: cfg.timeout.0,
        // Issue 75 §3: a count and a warm-up travel in the bounded REQUEST (only when asked
        // for, so a run without them still works with any server).
        count: cfg.count,
        omit_ns: cfg.omit.0,
    };
    let t = Some(cfg.timeout.to_duration());
    s.set_write_timeout(t)
        .map_err(|e| Error::Io("set timeout", e))?;
    s.write_all(&req.encode(cfg.session))
        .map_err(|e| Error::Pump(format!("sending the request to {target}: {e}")))?;
    s.set_nonblocking(true)
        .map_err(|e| Error::Io("set non-blocking", e))?;
    let client = Client {
        target,
        request: req,
        cfg: cfg.clone(),
        clock: Clock::new(),
        tally: ReceiverTally::default(),
        start: None,
        just: Vec::new(),
        rows,
        progress,
        heard: Nanos::ZERO,
        dial: dial.clone(),
    };
    let local = s.local_addr().ok().map(|a| a.to_string());
    let mut sum = match cfg.transport {
        PumpTransport::Tcp => receive_tcp(s, client, stop),
        PumpTransport::Udp => receive_udp(s, client, key, stop),
    }?;
    // Issue 58 §4: this host's end; over UDP the datagrams' socket is another, on the same
    // address.
    sum.run.local = local;
    Ok(sum)
}

/// Writes what is due on the TCP connection without waiting: the RFNMs and a STOP.
fn flush(s: &mut TcpStream, out: &mut Vec<u8>, target: SocketAddr) -> Result<(), Error> {
    let mut off = 0;
    while off < out.len() {
        match s.write(&out[off..]) {
            Ok(0) => return Err(closed(target, 1)),
            Ok(n) => off += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::Pump(format!("sending to {target}: {e}"))),
        }
    }
    out.drain(..off);
    Ok(())
}

/// Reads what the server sent without waiting, into `rx`; a control frame ends the run.
fn read_tcp(
    s: &mut TcpStream,
    rx: &mut TcpReceiver,
    c: &mut Client<'_>,
) -> Result<Option<Control>, Error> {
    let mut chunk = [0u8; 64 * 1024];
    let target = c.target;
    let frames = rx.counters().frames;
    for _ in 0..MAX_READS_PER_TURN {
        let Some(n) = recv_ready(|| s.read(&mut chunk)).map_err(|e| match e.kind() {
            io::ErrorKind::ConnectionReset
                if frames == 0 && nmc_serve::auth::challenged(s, &[]) =>
            {
                wants_secret(target)
            }
            io::ErrorKind::ConnectionReset if frames == 0 => closed(target, 0),
            _ => Error::Pump(format!("receiving from {target}: {e}")),
        })?
        else {
            break;
        };
        if n == 0 {
            return Err(closed(target, rx.counters().frames));
        }
        if rx.counters().frames == 0 && chunk[..n].starts_with(&nmc_serve::auth::CHALLENGE_MAGIC) {
            return Err(wants_secret(target));
        }
        let now = c.clock.now();
        c.heard = now;
        let r = rx
            .handle(now, &chunk[..n])
            .map_err(|e| Error::Pump(format!("{target}: {e}")))?;
        if r.is_some() {
            return Ok(r);
        }
    }
    Ok(None)
}

fn wants_secret(target: SocketAddr) -> Error {
    Error::Unreachable(format!(
        "{target} wants a secret: give it with --secret-file"
    ))
}

fn stop_frame(session: u32) -> [u8; wire::HEADER_LEN] {
    wire::control(Kind::Stop, session, 0)
}

fn receive_tcp(
    mut s: TcpStream,
    mut c: Client<'_>,
    stop: &AtomicBool,
) -> Result<PumpSummary, Error> {
    let mut rx = TcpReceiver::new(c.cfg.session);
    let mut stopping = false;
    loop {
        if !stopping && stop.load(Ordering::Relaxed) {
            stopping = true;
            rx.out.extend_from_slice(&stop_frame(c.cfg.session));
        }
        flush(&mut s, &mut rx.out, c.target)?;
        let mut events = Events::IN;
        if !rx.out.is_empty() {
            events |= Events::OUT;
        }
        let seen = wait_fd(s.as_fd(), events, MAX_WAIT).map_err(|e| Error::Io("wait", e))?;
        if seen.intersects(Events::IN | Events::ERR | Events::HUP)
            && let Some(end) = read_tcp(&mut s, &mut rx, &mut c)?
        {
            c.take(|| rx.pop())?;
            let counters = rx.counters();
            return c.result(end, counters);
        }
        c.take(|| rx.pop())?;
        flush(&mut s, &mut rx.out, c.target)?;
        c.check_silence()?;
    }
}

/// Receives over UDP: with `key`, the HELLO and every RFNM carry its tag, and a DATA datagram
/// without a right one is counted as junk.
fn receive_udp(
    mut s: TcpStream,
    mut c: Client<'_>,
    key: Option<&Key>,
    stop: &AtomicBool,
) -> Result<PumpSummary, Error> {
    let target = c.target;
    let sock = super::net::dial_udp(target, &c.dial)?;
    sock.set_nonblocking(true)
        .map_err(|e| Error::Io("set non-blocking", e))?;
    let session = c.cfg.session;
    let mut ctl = TcpReceiver::new(session);
    let mut rx = UdpReceiver::new(session, target);
    let (hello, hello_len) = wire::sealed_header(&wire::control(Kind::Hello, session, 0), key);
    let hello = &hello[..hello_len];
    // The first HELLO may come before the server has read the request: the next ones follow
    // 5 ms later, then twice as long each time, up to 200 ms apart.
    let (mut next_hello, mut hello_gap) = (Nanos::ZERO, Nanos(5_000_000));
    let mut stopping = false;
    let mut rbuf = vec![0u8; 65_536];
    loop {
        let now = c.clock.now();
        // HELLO until the first datagram comes (a HELLO can be lost too).
        if rx.counters().datagrams == 0 && now >= next_hello {
            let _ = sock.send(hello);
            next_hello = now.saturating_add(hello_gap);
            hello_gap = Nanos((hello_gap.0 * 2).min(200_000_000));
        }
        if !stopping && stop.load(Ordering::Relaxed) {
            stopping = true;
            ctl.out.extend_from_slice(&stop_frame(session));
        }
        flush(&mut s, &mut ctl.out, target)?;
        let wait = if rx.counters().datagrams == 0 {
            next_hello.saturating_sub(now).to_duration().min(MAX_WAIT)
        } else {
            MAX_WAIT
        };
        let fds = [(s.as_fd(), Events::IN), (sock.as_fd(), Events::IN)];
        let seen = wait_fds(&fds, wait).map_err(|e| Error::Io("wait", e))?;
        if !seen[1].is_empty() {
            for _ in 0..MAX_READS_PER_TURN {
                let Some(n) = recv_ready(|| sock.recv(&mut rbuf))
                    .map_err(|e| Error::Pump(format!("receiving from {target}: {e}")))?
                else {
                    break;
                };
                let at = c.clock.now();
                c.heard = at;
                let d = wire::open(&rbuf[..n], key).unwrap_or(&[]);
                if let Some(rfnm) = rx.handle_datagram(at, d) {
                    // A RFNM the kernel will not take is lost, as on the path.
                    let (b, len) = wire::sealed_header(&rfnm, key);
                    let _ = sock.send(&b[..len]);
                }
            }
        }
        if !seen[0].is_empty()
            && let Some(end) = read_tcp(&mut s, &mut ctl, &mut c)?
        {
            c.take(|| rx.pop())?;
            let counters = rx.counters();
            return c.result(end, counters);
        }
        c.take(|| rx.pop())?;
        c.check_silence()?;
    }
}
