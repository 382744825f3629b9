//! The connection gate: one accept loop for every nmc TCP server.
//!
//! # Rules, in the order they are applied
//!
//! 1. **Descriptors.** An accept that fails for want of descriptors or memory (`EMFILE`,
//!    `ENFILE`, `ENOBUFS`, `ENOMEM`) does not end the server: the gate gives back a spare
//!    descriptor it holds for this moment, accepts the waiting connection and closes it at once
//!    (so the client is refused rather than left hanging in the backlog), takes its spare again,
//!    logs, waits [`ACCEPT_BACKOFF`] and goes on. Connections already admitted keep being served,
//!    and so does whatever else the process serves (the UDP sides).
//! 2. **Total cap.** At most [`Limits::max_connections`] connections are served at once; one
//!    more is closed at once and counted.
//! 3. **Per-source cap.** At most [`Limits::max_per_source`] of them from one IP address (not
//!    per port: many ports of one host are one source), so one host cannot take every slot.
//! 4. **A slot is paid for, or given up.** A connection pays for its slot by answering the
//!    secret's challenge, or by sending at least [`Limits::min_rate`] times its age (bytes the
//!    server credits as work done for it, [`Conn::credit`], count too), after a grace of
//!    [`Limits::grace`] to get going. When every slot is taken, a new connection takes the slot
//!    of the one most in arrears ([`GateSnapshot::evicted`]); only when none is does rule 2
//!    refuse it. A source whose connection ended, or was evicted, without paying for its time
//!    is on [`BACKOFF`] for a while: its new connections have no grace (they are evictable at
//!    once) and cannot evict anyone, so they only take a slot that is free.
//! 5. **Handshake deadline.** With a secret, the client must answer the challenge
//!    ([`crate::auth`]) within [`Limits::handshake`]; a wrong answer is closed at once.
//! 6. **Minimum rate, judged per window.** The connection's life is cut into windows of
//!    [`Limits::window`] from its accept; a window in which the client sent fewer than
//!    [`Limits::min_bytes_per_window`] bytes closes it. This is the idle timeout, and a slow
//!    sender cannot extend it: a byte now and then does not restart anything, only the rate
//!    counts. Only bytes *received* count, so a client that stops reading the server's replies
//!    (the server's write waits) is closed the same way.
//!
//! **Why a minimum rate and not a deadline for the whole exchange**: a pump run or a cost
//! transfer may legitimately last minutes, and no single deadline fits both a 10-second
//! measurement and an hour-long one. A minimum rate bounds what holding a slot costs the holder
//! instead: to keep all of the default 64 slots an attacker must send at least
//! 64 × [`DEFAULT_MIN_RATE`] bytes/s from at least 64 / [`DEFAULT_MAX_PER_SOURCE`] addresses, and
//! every byte it sends is served work, not a stalled thread.
//!
//! **Why rule 4** (issue 57 §2): rule 6 alone judges a connection at the end of each window, so a
//! connection that sends nothing still holds its slot for a whole window, and one reopened the
//! moment it is closed holds it again: 64 idle connections from 8 addresses, about 3 new ones a
//! second, kept every slot and every real client out (with a secret, the same with connections
//! that never answer, closed at the handshake deadline and reopened). Under rule 4 an unpaid slot
//! is only lent until someone needs it, so holding slots costs the rate at every moment, not once
//! a window; and reopening at once buys nothing, since the new connection starts on back-off,
//! evictable. A client that pays (every nmc client sends far more than 100 B/s while it works,
//! or has answered the challenge) is never evicted.
//!
//! Each admitted connection runs on its own thread (at most `max_connections` of them, and
//! briefly those just evicted, which see it within [`POLL`]), reading and writing through a
//! [`Conn`], which applies rules 4 to 6 on every call: its socket waits at most [`POLL`] at a
//! time, so the rules are checked at least that often and a stop is seen.

use crate::auth::{self, Key};
use std::collections::HashMap;
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Connections served at once. **Choice**: 64, plenty for the few measurers one server has,
/// few enough that 64 threads and their buffers cost little.
pub const DEFAULT_MAX_CONNECTIONS: usize = 64;

/// The most connections a server may be told to hold at once (issue 57 §6: 18446744073709551615
/// was taken). **Choice**: 65,536, a common ceiling of one process's file descriptors; a value
/// above it is a typo, not a plan, and the server would run out of descriptors first.
pub const MAX_CONNECTIONS_CAP: usize = 65_536;
/// Connections from one IP address at once. **Choice**: 8, room for a few measurers behind one
/// NAT and for a client's next connection while its last one closes; one host holds at most an
/// eighth of the default slots.
pub const DEFAULT_MAX_PER_SOURCE: usize = 8;
/// The window the minimum rate is judged over. **Choice**: 20 s, above TCP's retransmission
/// back-off after three losses in a row (1 + 2 + 4 s from the 1 s initial RTO, RFC 6298), so a
/// lossy but live path is not cut; short enough that an idle flood frees its slots quickly.
pub const DEFAULT_WINDOW: Duration = Duration::from_secs(20);
/// Bytes per second a client must send, averaged over each window. **Choice**: 100 B/s (2000
/// bytes a window), below anything nmc's clients send while working (RFC 508's slowest stream,
/// 5,300 bit/s, is 662 B/s; a pump or cost transfer sends kilobytes a round trip), far above the
/// issue's trickle of one byte every 20 s.
pub const DEFAULT_MIN_RATE: u64 = 100;
/// Time to answer the secret's challenge. **Choice**: 5 s, many round trips of any real path
/// and a few SYN/data retransmissions.
pub const DEFAULT_HANDSHAKE: Duration = Duration::from_secs(5);
/// Time a new connection has to get going before it must pay for its slot (rule 4): until
/// then it is not evicted for sending nothing. **Choice**: 2 s, a few round trips of a
/// satellite path and one lost segment's retransmission (RFC 6298's 1 s initial RTO): every nmc
/// client answers the challenge or sends its first request well within it.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(2);
/// How long a source whose connection ended, or was evicted, without paying for its time loses
/// its standing (rule 4): its new connections get no grace and cannot evict. **Choice**: 60 s,
/// three of the default 20 s windows, so a source whose idle connections are closed at each
/// window's end stays on it; a real client's connections pay, and never put it there.
pub const BACKOFF: Duration = Duration::from_secs(60);
/// Most sources remembered on [`BACKOFF`] at once. **Choice**: 4096 entries, some 200 kB; when
/// it is full, entries whose time is up are dropped, and if none is, a new source is not put on
/// back-off (its connections are still evicted when they do not pay).
pub const MAX_BACKOFF_SOURCES: usize = 4096;
/// Longest a connection's socket call waits before the rules are checked again. **Choice**:
/// 100 ms, the same as the probe's drivers: a stop is seen promptly, and a rule's deadline is
/// kept to within that.
pub const POLL: Duration = Duration::from_millis(100);
/// Longest a write of a stopping server's last words ([`Conn::write_last`]) waits. **Choice**:
/// 1 s, well inside the 2 s the gate waits for its connections at a stop.
pub const LAST_WORDS: Duration = Duration::from_secs(1);
/// Wait after an accept that failed for want of resources. **Choice**: 100 ms: the loop does
/// not spin while descriptors are short, and a freed one is used within that.
pub const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);
/// Wait when no connection is pending (the listener is non-blocking so that a stop is seen).
const ACCEPT_IDLE: Duration = Duration::from_millis(20);
/// At the end, how long to wait for connection threads to see the stop and finish.
const DRAIN: Duration = Duration::from_secs(2);

/// Whether the `n`th of a kind of event (counted from 1) is logged: the first, then at each
/// power of two, so that a flood of them (refusals, closes, a stranger's connections) cannot
/// fill the log while the count still shows how many there were. Every server's repeated log
/// lines go through it.
pub fn worth_logging(n: u64) -> bool {
    n.is_power_of_two()
}

/// The gate's limits: every number a parameter, the defaults stated above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once, at most (rule 2); [`DEFAULT_MAX_CONNECTIONS`] by default.
    pub max_connections: usize,
    /// Connections from one IP address served at once, at most (rule 3);
    /// [`DEFAULT_MAX_PER_SOURCE`] by default.
    pub max_per_source: usize,
    /// The window the minimum rate is judged over, from the accept (rule 6); [`DEFAULT_WINDOW`]
    /// by default.
    pub window: Duration,
    /// Bytes per second, averaged over each window (at least 1 byte a window is required), and
    /// what a connection pays for its slot (rule 4).
    pub min_rate: u64,
    /// Time a client has to answer the secret's challenge, from when it is sent (rule 5);
    /// [`DEFAULT_HANDSHAKE`] by default.
    pub handshake: Duration,
    /// Time a new connection has before it must pay for its slot (rule 4); [`DEFAULT_GRACE`] by
    /// default.
    pub grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_per_source: DEFAULT_MAX_PER_SOURCE,
            window: DEFAULT_WINDOW,
            min_rate: DEFAULT_MIN_RATE,
            handshake: DEFAULT_HANDSHAKE,
            grace: DEFAULT_GRACE,
        }
    }
}

impl Limits {
    /// Bytes a client must send in each window (at least one).
    pub fn min_bytes_per_window(&self) -> u64 {
        ((self.min_rate as f64 * self.window.as_secs_f64()).ceil() as u64).max(1)
    }

    /// Refuses limits that would serve nothing or never close anything, in one line.
    pub fn check(&self) -> Result<(), String> {
        if !(1..=MAX_CONNECTIONS_CAP).contains(&self.max_connections) {
            return Err(format!(
                "--max-connections {}: must be 1 to {MAX_CONNECTIONS_CAP}",
                self.max_connections
            ));
        }
        if !(1..=MAX_CONNECTIONS_CAP).contains(&self.max_per_source) {
            return Err(format!(
                "--max-per-source {}: must be 1 to {MAX_CONNECTIONS_CAP}",
                self.max_per_source
            ));
        }
        if self.window.is_zero() {
            return Err("--idle-window must be above zero".into());
        }
        if self.min_rate == 0 {
            return Err(
                "--min-rate must be at least 1 byte/s, 8bit/s (0 would let a connection idle forever)"
                    .into(),
            );
        }
        if self.handshake.is_zero() {
            return Err("the handshake deadline must be above zero".into());
        }
        Ok(())
    }

    /// One line for a server's start-up log.
    pub fn describe(&self, key: Option<&Key>) -> String {
        format!(
            "at most {} connections, {} per source; closed below {} bytes/s over each {} s window; when all are taken, one below that rate since its accept (after {} s) gives its slot up; secret {}",
            self.max_connections,
            self.max_per_source,
            self.min_rate,
            self.window.as_secs_f64(),
            self.grace.as_secs_f64(),
            if key.is_some() { "required" } else { "none" }
        )
    }
}

/// What the gate did, by reason. Read with [`GateCounters::snapshot`].
#[derive(Debug, Default)]
pub struct GateCounters {
    accepted: AtomicU64,
    refused_full: AtomicU64,
    refused_source: AtomicU64,
    refused_descriptors: AtomicU64,
    accept_errors: AtomicU64,
    closed_slow: AtomicU64,
    closed_handshake: AtomicU64,
    bad_secret: AtomicU64,
    unanswered: AtomicU64,
    evicted: AtomicU64,
    refused_requests: AtomicU64,
    errors: AtomicU64,
    active: AtomicUsize,
}

/// A copy of the counters at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GateSnapshot {
    /// Connections admitted (past the caps).
    pub accepted: u64,
    /// Closed at once: every slot taken.
    pub refused_full: u64,
    /// Closed at once: the source had its share.
    pub refused_source: u64,
    /// Closed at once with the spare descriptor while the process was out of them.
    pub refused_descriptors: u64,
    /// Accepts that failed (out of descriptors and the like).
    pub accept_errors: u64,
    /// Closed for sending below the minimum rate over a window.
    pub closed_slow: u64,
    /// Closed for not answering the challenge in time.
    pub closed_handshake: u64,
    /// Closed for a wrong answer to the challenge.
    pub bad_secret: u64,
    /// Closed (or reset) by the client before it answered the challenge.
    pub unanswered: u64,
    /// Closed to give their slot to a new connection: every slot was taken and they had not
    /// paid for theirs (rule 4).
    pub evicted: u64,
    /// Requests a handler refused ([`Conn::note_refused`]), e.g. reverse runs asked for with
    /// values out of bounds.
    pub refused_requests: u64,
    /// Ended by an error of the connection's own (closed or reset in the middle of a request,
    /// and the like).
    pub errors: u64,
    /// Being served now.
    pub active: usize,
}

impl GateSnapshot {
    /// Connections closed at once, for all reasons: full, per-source and out of descriptors.
    pub fn refused(&self) -> u64 {
        self.refused_full + self.refused_source + self.refused_descriptors
    }
}

impl fmt::Display for GateSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tcp connections: accepted {} active {} refused {} (full {}, per-source {}, out of descriptors {}) closed slow {} handshake timeout {} closed unanswered {} bad secret {} evicted {} refused requests {} errors {} accept errors {}",
            self.accepted,
            self.active,
            self.refused(),
            self.refused_full,
            self.refused_source,
            self.refused_descriptors,
            self.closed_slow,
            self.closed_handshake,
            self.unanswered,
            self.bad_secret,
            self.evicted,
            self.refused_requests,
            self.errors,
            self.accept_errors
        )
    }
}

impl GateCounters {
    /// The counters now; each is read on its own, so the copy is not one atomic instant.
    pub fn snapshot(&self) -> GateSnapshot {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        GateSnapshot {
            accepted: g(&self.accepted),
            refused_full: g(&self.refused_full),
            refused_source: g(&self.refused_source),
            refused_descriptors: g(&self.refused_descriptors),
            accept_errors: g(&self.accept_errors),
            closed_slow: g(&self.closed_slow),
            closed_handshake: g(&self.closed_handshake),
            bad_secret: g(&self.bad_secret),
            unanswered: g(&self.unanswered),
            evicted: g(&self.evicted),
            refused_requests: g(&self.refused_requests),
            errors: g(&self.errors),
            active: self.active.load(Ordering::Relaxed),
        }
    }
}

/// Why a [`Conn`] refused to go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closed {
    /// Fewer than the minimum bytes in a window: (bytes received in it, bytes required).
    Slow(u64, u64),
    /// The handshake's deadline passed.
    Handshake,
    /// Its slot went to a new connection: every slot was taken and it had not paid for its
    /// own (rule 4).
    Evicted,
    /// The server is stopping.
    Stopping,
}

/// What the gate knows of one admitted connection, shared between its thread (which counts
/// what it pays) and the accept loop (which judges it when a slot is wanted, rule 4).
#[derive(Debug)]
struct Entry {
    ip: IpAddr,
    peer: SocketAddr,
    /// The accept.
    start: Instant,
    /// Nanoseconds from `start` from which its time is counted ([`Conn::forgive`] moves it).
    since_ns: AtomicU64,
    /// Bytes it has paid: received, and credited ([`Conn::credit`]).
    paid: AtomicU64,
    /// Whether the grace applies: not when its source was on back-off at the accept.
    graced: bool,
    /// Answered the secret's challenge: paid for good.
    proven: AtomicBool,
    /// Set (under the slots' lock) when its slot went to another connection.
    evicted: AtomicBool,
}

impl Entry {
    fn new(peer: SocketAddr, graced: bool) -> Entry {
        Entry {
            ip: peer.ip(),
            peer,
            start: Instant::now(),
            since_ns: AtomicU64::new(0),
            paid: AtomicU64::new(0),
            graced,
            proven: AtomicBool::new(false),
            evicted: AtomicBool::new(false),
        }
    }

    /// Starts counting its time afresh from now (what it has paid stays paid).
    fn rebase(&self) {
        let ns = u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.since_ns.store(ns, Ordering::Relaxed);
    }

    /// Bytes it owes at `now` with `slack` of free time (rule 4), if it owes any: `min_rate`
    /// times its counted time less the slack, less what it has paid. None when it has answered
    /// the challenge.
    fn owes(&self, now: Instant, min_rate: u64, slack: Duration) -> Option<u128> {
        if self.proven.load(Ordering::Relaxed) {
            return None;
        }
        let counted = now
            .saturating_duration_since(self.start)
            .as_nanos()
            .saturating_sub(u128::from(self.since_ns.load(Ordering::Relaxed)));
        let due_ns = counted.checked_sub(slack.as_nanos())?;
        let due = u128::from(min_rate) * due_ns / 1_000_000_000;
        let paid = u128::from(self.paid.load(Ordering::Relaxed));
        (due > paid).then(|| due - paid)
    }

    /// What it owes now, its grace counted (the judgement when a slot is wanted).
    fn arrears(&self, now: Instant, limits: &Limits) -> Option<u128> {
        let slack = if self.graced {
            limits.grace
        } else {
            Duration::ZERO
        };
        self.owes(now, limits.min_rate, slack)
    }
}

/// One admitted connection, guarded: every read and write checks the handshake deadline, the
/// minimum rate and the stop, and waits at most [`POLL`] at a time. A server's handler reads and
/// writes through it (it is [`Read`] and [`Write`]) and never touches the socket's timeouts.
pub struct Conn {
    stream: TcpStream,
    peer: SocketAddr,
    window: Duration,
    min_bytes: u64,
    min_rate: u64,
    window_start: Instant,
    window_bytes: u64,
    deadline: Option<Instant>,
    stop: Arc<AtomicBool>,
    received: u64,
    closed: Option<Closed>,
    entry: Arc<Entry>,
    /// The gate's, for [`Conn::note_refused`].
    gate: Option<Gate>,
}

impl Conn {
    fn new(
        stream: TcpStream,
        peer: SocketAddr,
        limits: &Limits,
        stop: Arc<AtomicBool>,
        entry: Arc<Entry>,
    ) -> io::Result<Conn> {
        stream.set_nonblocking(false)?;
        stream.set_read_timeout(Some(POLL))?;
        stream.set_write_timeout(Some(POLL))?;
        Ok(Conn {
            stream,
            peer,
            window: limits.window,
            min_bytes: limits.min_bytes_per_window(),
            min_rate: limits.min_rate,
            window_start: Instant::now(),
            window_bytes: 0,
            deadline: None,
            stop,
            received: 0,
            closed: None,
            entry,
            gate: None,
        })
    }

    /// Counts a request this connection made that its handler refused (e.g. a reverse run
    /// asked for with values out of bounds, or malformed), and logs it with `why` the first
    /// time and then at powers of two ([`worth_logging`]), so that a stranger's stream of bad
    /// requests cannot fill the log.
    pub fn note_refused(&self, why: &str) {
        if let Some(g) = &self.gate {
            let n = g.counters.refused_requests.fetch_add(1, Ordering::Relaxed) + 1;
            if worth_logging(n) {
                g.log(&format!("{}: {why} ({n} so far)", self.peer));
            }
        }
    }

    /// The client's address and port.
    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// The flag the server sets when it stops: for a handler that runs on a handle of its own
    /// (a reverse run writing on a clone of the socket) and must end when the server does.
    pub fn stopping(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Writes `buf` even while the server is stopping, each write bounded by [`LAST_WORDS`]:
    /// for a handler that ended its work because the server is stopping and still owes the
    /// client what it has (a reverse run's partial result). The other rules do not apply.
    pub fn write_last(&mut self, buf: &[u8]) -> io::Result<()> {
        self.stream.set_write_timeout(Some(LAST_WORDS))?;
        let r = (&self.stream).write_all(buf);
        self.stream.set_write_timeout(Some(POLL))?;
        r
    }

    /// Bytes received so far (handshake included).
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Why the guard closed the connection, if it did.
    pub fn closed(&self) -> Option<Closed> {
        self.closed
    }

    /// The socket, for options such as `TCP_NODELAY` (its timeouts are the guard's).
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    /// Shuts down the socket's reading, writing or both sides ([`TcpStream::shutdown`]).
    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.stream.shutdown(how)
    }

    /// Starts a fresh window now: for a server that stopped reading on purpose (the sink's
    /// scripted stall), so that its own pause is not held against the client. The time until
    /// now is not counted against what the client pays for its slot either (what it has paid
    /// stays paid).
    pub fn forgive(&mut self) {
        self.resume();
        self.entry.rebase();
    }

    /// Starts a fresh window of rule 6 now, the time counted for rule 4 unchanged: for a
    /// handler whose work on a handle of its own ([`Conn::tab`]) is over, where the window's
    /// bytes went to the tab, not through this `Conn`.
    pub fn resume(&mut self) {
        self.window_start = Instant::now();
        self.window_bytes = 0;
    }

    /// The connection's account, for work the server does at the client's request on a handle
    /// of its own (a reverse run sending on a clone of the socket, or from the server's UDP
    /// port), which this `Conn` does not see. Issue 74 §1: such a run used to be excused from
    /// paying for its slot while it ran, so 64 clients asking for a byte every 8 s for an
    /// hour held every slot. Now what the server sends for the client is credited as if the
    /// client had sent it ([`Tab::credit`]): asking the server to send costs the client
    /// receiving it, as sending costs a forward client, and a run that pays less than the
    /// minimum rate is in arrears like any connection, its slot given to a newcomer when every
    /// slot is taken (rule 4); the run sees that in [`Tab::ended`] and stops.
    pub fn tab(&self) -> Tab {
        Tab {
            entry: self.entry.clone(),
            stop: self.stop.clone(),
        }
    }

    /// The minimum rate in bytes a second (rule 4 and 6): what a client must pay, or ask the
    /// server to send, to keep its slot.
    pub fn min_rate(&self) -> u64 {
        self.min_rate
    }

    /// Applies the rules now, for a handler that waits on the socket itself (`ppoll` on
    /// [`Conn::stream`]) rather than in [`Read::read`]: an error means the connection is to be
    /// closed (too slow, handshake late, or the server stopping), with the reason.
    pub fn guard(&mut self) -> io::Result<()> {
        self.check()
    }

    /// Waits for the connection's first `n` bytes (at most 16) without taking them: what a
    /// server answering several instruments on one port tells them apart by
    /// ([`crate::mux`]). Returns fewer only when the client ended its side first (none: it sent
    /// nothing). The rules apply while it waits; bytes arriving one by one are polled every
    /// millisecond.
    pub fn peek_first(&mut self, n: usize) -> io::Result<Vec<u8>> {
        let mut buf = [0u8; 16];
        let n = n.min(buf.len());
        loop {
            self.check()?;
            match self.stream.peek(&mut buf[..n]) {
                Ok(k) if k == n => return Ok(buf[..k].to_vec()),
                Ok(0) => return Ok(Vec::new()),
                Ok(k) => {
                    // Part of it: the rest may follow, or the client may have closed.
                    if self.peer_closed()? {
                        return Ok(buf[..k].to_vec());
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) if auth::waiting(&e) => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Whether the client has shut down its sending side (`POLLRDHUP` on Linux; elsewhere
    /// only a connection closed both ways, `POLLHUP`, is seen, and a half-closed client with
    /// fewer than the bytes asked waits for the rules to close it).
    fn peer_closed(&self) -> io::Result<bool> {
        use std::os::fd::AsRawFd;
        #[cfg(any(target_os = "linux", target_os = "android"))]
        const HANGUP: libc::c_short = libc::POLLRDHUP | libc::POLLHUP;
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        const HANGUP: libc::c_short = libc::POLLHUP;
        let mut p = libc::pollfd {
            fd: self.stream.as_raw_fd(),
            events: HANGUP,
            revents: 0,
        };
        // SAFETY: one valid pollfd for the duration of the call; zero timeout.
        let r = unsafe { libc::poll(&mut p, 1, 0) };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(p.revents & HANGUP != 0)
    }

    /// Counts `bytes` toward the minimum rate as if received: for a server that sends on the
    /// client's request (`nmc pump --reverse`), where what the client has acknowledged taking is
    /// its work, and the few bytes of acknowledgement alone would fall below the rate.
    pub fn credit(&mut self, bytes: u64) {
        self.window_bytes = self.window_bytes.saturating_add(bytes);
        self.entry.paid.fetch_add(bytes, Ordering::Relaxed);
    }

    fn refuse(&mut self, why: Closed) -> io::Error {
        self.closed = Some(why);
        let msg = match why {
            Closed::Slow(got, need) => format!(
                "closed: sent {got} bytes in {} s, below the minimum of {need} (--min-rate)",
                self.window.as_secs_f64()
            ),
            Closed::Handshake => "closed: no answer to the secret's challenge in time".into(),
            Closed::Evicted => {
                "closed: its slot went to a new connection (all taken, and it had not paid for its own)"
                    .into()
            }
            Closed::Stopping => "closed: the server is stopping".into(),
        };
        io::Error::new(io::ErrorKind::TimedOut, msg)
    }

    /// Applies the rules now.
    fn check(&mut self) -> io::Result<()> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(self.refuse(Closed::Stopping));
        }
        if self.entry.evicted.load(Ordering::Relaxed) {
            return Err(self.refuse(Closed::Evicted));
        }
        let now = Instant::now();
        if self.deadline.is_some_and(|d| now >= d) {
            return Err(self.refuse(Closed::Handshake));
        }
        if now.duration_since(self.window_start) >= self.window {
            if self.window_bytes < self.min_bytes {
                return Err(self.refuse(Closed::Slow(self.window_bytes, self.min_bytes)));
            }
            self.window_start = now;
            self.window_bytes = 0;
        }
        Ok(())
    }
}

/// A connection's account for work the server does for it on a handle of its own
/// ([`Conn::tab`]): cheap to clone, shared with the thread doing the work.
#[derive(Clone)]
pub struct Tab {
    entry: Arc<Entry>,
    stop: Arc<AtomicBool>,
}

impl Tab {
    /// Counts `bytes` the server sent at the client's request as paid for its slot (rule 4).
    pub fn credit(&self, bytes: u64) {
        self.entry.paid.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Why the work must end now, if it must: the server is stopping, or the connection's slot
    /// went to a newcomer (it had not paid for it, rule 4).
    pub fn ended(&self) -> Option<Closed> {
        if self.stop.load(Ordering::Relaxed) {
            Some(Closed::Stopping)
        } else if self.entry.evicted.load(Ordering::Relaxed) {
            Some(Closed::Evicted)
        } else {
            None
        }
    }
}

/// Whether `e` means the client has gone: the connection ended or was reset under a read or a
/// write.
fn gone(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::UnexpectedEof
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
    )
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            self.check()?;
            match self.stream.read(buf) {
                Ok(n) => {
                    self.window_bytes += n as u64;
                    self.received += n as u64;
                    self.entry.paid.fetch_add(n as u64, Ordering::Relaxed);
                    return Ok(n);
                }
                Err(e) if auth::waiting(&e) => {}
                Err(e) => return Err(e),
            }
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            self.check()?;
            match self.stream.write(buf) {
                Ok(n) => return Ok(n),
                Err(e) if auth::waiting(&e) => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A line for the server's log.
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

#[derive(Default)]
struct Slots {
    total: usize,
    by_source: HashMap<IpAddr, usize>,
    /// The connections holding the `total` slots.
    live: Vec<Arc<Entry>>,
    /// Sources on [`BACKOFF`], until when.
    backoff: HashMap<IpAddr, Instant>,
}

impl Slots {
    /// Gives `e`'s slot back (once: an evicted connection's was given back when it was).
    fn release(&mut self, e: &Arc<Entry>) -> bool {
        let Some(i) = self.live.iter().position(|x| Arc::ptr_eq(x, e)) else {
            return false;
        };
        self.live.swap_remove(i);
        self.total = self.total.saturating_sub(1);
        if let Some(n) = self.by_source.get_mut(&e.ip) {
            *n -= 1;
            if *n == 0 {
                self.by_source.remove(&e.ip);
            }
        }
        true
    }

    fn on_backoff(&self, ip: IpAddr, now: Instant) -> bool {
        self.backoff.get(&ip).is_some_and(|&until| now < until)
    }

    fn put_on_backoff(&mut self, ip: IpAddr, now: Instant) {
        if self.backoff.len() >= MAX_BACKOFF_SOURCES && !self.backoff.contains_key(&ip) {
            self.backoff.retain(|_, until| now < *until);
            if self.backoff.len() >= MAX_BACKOFF_SOURCES {
                return;
            }
        }
        self.backoff.insert(ip, now + BACKOFF);
    }

    /// The connection most in arrears (rule 4), if any owes anything.
    fn most_in_arrears(&self, now: Instant, limits: &Limits) -> Option<Arc<Entry>> {
        self.live
            .iter()
            .filter_map(|e| e.arrears(now, limits).map(|d| (d, e)))
            .max_by_key(|(d, _)| *d)
            .map(|(_, e)| e.clone())
    }
}

/// Gives a slot back when the connection's thread ends, however it ends, and puts its source on
/// back-off if it ended without paying for its time.
struct Slot {
    slots: Arc<Mutex<Slots>>,
    entry: Arc<Entry>,
    min_rate: u64,
    counters: Arc<GateCounters>,
    threads: Arc<AtomicUsize>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut s = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        if s.release(&self.entry) {
            self.counters.active.fetch_sub(1, Ordering::Relaxed);
            let now = Instant::now();
            if self
                .entry
                .owes(now, self.min_rate, Duration::ZERO)
                .is_some()
            {
                s.put_on_backoff(self.entry.ip, now);
            }
        }
        drop(s);
        self.threads.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The accept loop with its limits, its optional secret and its counters.
#[derive(Clone)]
pub struct Gate {
    limits: Limits,
    key: Option<Key>,
    counters: Arc<GateCounters>,
    log: Log,
    /// Short name for log lines, e.g. "nmc sink".
    name: &'static str,
}

/// Whether an accept error means the process is out of a resource (and will be again).
fn exhausted(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

impl Gate {
    /// A gate with fresh counters; `name` starts its log lines (e.g. "nmc sink"), `key` is the
    /// secret clients must prove (none: no handshake), `log` takes the lines. `limits` is not
    /// checked here; a caller refuses bad ones first with [`Limits::check`].
    pub fn new(name: &'static str, limits: Limits, key: Option<Key>, log: Log) -> Gate {
        Gate {
            limits,
            key,
            counters: Arc::new(GateCounters::default()),
            log,
            name,
        }
    }

    /// The limits it applies.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The secret it asks of clients, if any.
    pub fn key(&self) -> Option<&Key> {
        self.key.as_ref()
    }

    /// Its counters, shared: they keep counting while the gate runs.
    pub fn counters(&self) -> Arc<GateCounters> {
        self.counters.clone()
    }

    fn log(&self, line: &str) {
        (self.log)(&format!("{}: {line}", self.name));
    }

    /// Logs a refusal the first time and then at each power of two, so a flood cannot fill the
    /// log.
    fn note_refusal(&self, n: u64, what: &str) {
        if worth_logging(n) {
            self.log(&format!("refused {n} connection(s) so far: {what}"));
        }
    }

    /// Accepts on `listener` until `stop`, running `handler` on its own thread for each
    /// admitted connection (after the secret's handshake, when there is a secret). Returns once
    /// stopped and the connections have finished (or 2 s have passed). Only a listener that
    /// cannot be made non-blocking is an error: nothing an accept says ends the loop.
    pub fn serve<H>(&self, listener: TcpListener, stop: &AtomicBool, handler: H) -> io::Result<()>
    where
        H: Fn(&mut Conn) -> io::Result<()> + Send + Sync + 'static,
    {
        listener.set_nonblocking(true)?;
        let handler = Arc::new(handler);
        let slots = Arc::new(Mutex::new(Slots::default()));
        let threads = Arc::new(AtomicUsize::new(0));
        let done = Arc::new(AtomicBool::new(false));
        // Held for the moment descriptors run out: given back to accept and close one client.
        let mut spare = std::fs::File::open("/dev/null").ok();
        while !stop.load(Ordering::Relaxed) {
            // A spare that could not be taken back (another thread took the freed number first)
            // is taken as soon as a descriptor is free again, so the next shortage still
            // refuses rather than leaving clients in the backlog.
            if spare.is_none() {
                spare = std::fs::File::open("/dev/null").ok();
            }
            match listener.accept() {
                // An IPv4 client of a dual-stack listener as IPv4 (issue 58 §7): in the logs
                // and the per-source count, as on an IPv4 listener.
                Ok((s, peer)) => {
                    let peer = SocketAddr::new(peer.ip().to_canonical(), peer.port());
                    self.admit(s, peer, &slots, &threads, &done, &handler)
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::sleep(ACCEPT_IDLE),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::Interrupted | io::ErrorKind::ConnectionAborted
                    ) => {}
                Err(e) => {
                    let n = self.counters.accept_errors.fetch_add(1, Ordering::Relaxed) + 1;
                    if worth_logging(n) {
                        self.log(&format!(
                            "accept failed ({n} so far): {e}; refusing new connections, serving the {} admitted",
                            self.counters.active.load(Ordering::Relaxed)
                        ));
                    }
                    if exhausted(&e)
                        && let Some(f) = spare.take()
                    {
                        drop(f);
                        if let Ok((s, _)) = listener.accept() {
                            drop(s);
                            let n = self
                                .counters
                                .refused_descriptors
                                .fetch_add(1, Ordering::Relaxed)
                                + 1;
                            self.note_refusal(n, "out of descriptors");
                        }
                        spare = std::fs::File::open("/dev/null").ok();
                    }
                    std::thread::sleep(ACCEPT_BACKOFF);
                }
            }
        }
        done.store(true, Ordering::Relaxed);
        let until = Instant::now() + DRAIN;
        while threads.load(Ordering::Relaxed) > 0 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    }

    fn admit<H>(
        &self,
        s: TcpStream,
        peer: SocketAddr,
        slots: &Arc<Mutex<Slots>>,
        threads: &Arc<AtomicUsize>,
        done: &Arc<AtomicBool>,
        handler: &Arc<H>,
    ) where
        H: Fn(&mut Conn) -> io::Result<()> + Send + Sync + 'static,
    {
        let ip = peer.ip();
        let now = Instant::now();
        let entry;
        let mut evicted = None;
        {
            let mut sl = slots.lock().unwrap_or_else(|p| p.into_inner());
            let mine = sl.by_source.get(&ip).copied().unwrap_or(0);
            let on_backoff = sl.on_backoff(ip, now);
            if sl.total >= self.limits.max_connections {
                // Rule 4: the slot of one that has not paid for it, unless this source is on
                // back-off itself.
                let victim = if on_backoff || mine >= self.limits.max_per_source {
                    None
                } else {
                    sl.most_in_arrears(now, &self.limits)
                };
                let Some(victim) = victim else {
                    drop(sl);
                    drop(s);
                    let n = self.counters.refused_full.fetch_add(1, Ordering::Relaxed) + 1;
                    self.note_refusal(
                        n,
                        &format!("all {} slots busy", self.limits.max_connections),
                    );
                    return;
                };
                victim.evicted.store(true, Ordering::Relaxed);
                sl.release(&victim);
                sl.put_on_backoff(victim.ip, now);
                self.counters.active.fetch_sub(1, Ordering::Relaxed);
                evicted = Some(victim.peer);
            }
            if mine >= self.limits.max_per_source {
                drop(sl);
                drop(s);
                let n = self.counters.refused_source.fetch_add(1, Ordering::Relaxed) + 1;
                self.note_refusal(
                    n,
                    &format!(
                        "{ip} already has {} connections",
                        self.limits.max_per_source
                    ),
                );
                return;
            }
            entry = Arc::new(Entry::new(peer, !on_backoff));
            sl.total += 1;
            *sl.by_source.entry(ip).or_insert(0) += 1;
            sl.live.push(entry.clone());
        }
        if let Some(victim) = evicted {
            let n = self.counters.evicted.fetch_add(1, Ordering::Relaxed) + 1;
            if worth_logging(n) {
                self.log(&format!(
                    "{victim}: evicted, its slot given to {peer}: all {} taken, and it had sent below {} bytes/s since its accept ({n} so far)",
                    self.limits.max_connections, self.limits.min_rate
                ));
            }
        }
        self.counters.active.fetch_add(1, Ordering::Relaxed);
        threads.fetch_add(1, Ordering::Relaxed);
        let slot = Slot {
            slots: slots.clone(),
            entry: entry.clone(),
            min_rate: self.limits.min_rate,
            counters: self.counters.clone(),
            threads: threads.clone(),
        };
        self.counters.accepted.fetch_add(1, Ordering::Relaxed);
        let (gate, done, handler) = (self.clone(), done.clone(), handler.clone());
        let spawned = std::thread::Builder::new()
            .name("nmc-serve-conn".into())
            .spawn(move || {
                let _slot = slot;
                gate.run_conn(s, peer, done, entry, &*handler);
            });
        if let Err(e) = spawned {
            // The closure (and with it the slot and the socket) is dropped: both given back.
            self.log(&format!("{peer}: no thread for the connection: {e}"));
        }
    }

    fn run_conn<H>(
        &self,
        s: TcpStream,
        peer: SocketAddr,
        done: Arc<AtomicBool>,
        entry: Arc<Entry>,
        handler: &H,
    ) where
        H: Fn(&mut Conn) -> io::Result<()>,
    {
        let mut c = match Conn::new(s, peer, &self.limits, done, entry) {
            Ok(c) => c,
            Err(e) => {
                self.log(&format!("{peer}: {e}"));
                return;
            }
        };
        c.gate = Some(self.clone());
        if let Some(key) = &self.key {
            c.deadline = Some(Instant::now() + self.limits.handshake);
            match auth::challenge(&mut c, key) {
                Ok(true) => {
                    c.deadline = None;
                    c.entry.proven.store(true, Ordering::Relaxed);
                }
                Ok(false) => {
                    let n = self.counters.bad_secret.fetch_add(1, Ordering::Relaxed) + 1;
                    self.note_close(n, peer, "wrong answer to the secret's challenge");
                    return;
                }
                Err(e) if c.closed.is_none() && gone(&e) => {
                    // The client left without a word: counted, and logged as that, not as the
                    // read that found it gone ("failed to fill whole buffer").
                    let n = self.counters.unanswered.fetch_add(1, Ordering::Relaxed) + 1;
                    self.note_close(n, peer, "closed before answering the secret's challenge");
                    return;
                }
                Err(e) if c.closed.is_some() => {
                    self.count_close(&c, peer, &e);
                    return;
                }
                Err(e) => {
                    let e = io::Error::new(e.kind(), format!("during the secret's challenge: {e}"));
                    self.count_close(&c, peer, &e);
                    return;
                }
            }
        }
        if let Err(e) = handler(&mut c) {
            self.count_close(&c, peer, &e);
        }
    }

    /// Counts why `c` ended in error, by the guard's reason or as the connection's own error,
    /// and logs the first of each kind and then at powers of two ([`worth_logging`]): a flood of
    /// slow, silent or broken connections cannot fill the log.
    fn count_close(&self, c: &Conn, peer: SocketAddr, e: &io::Error) {
        let (counter, why) = match c.closed {
            Some(Closed::Slow(..)) => (&self.counters.closed_slow, e.to_string()),
            Some(Closed::Handshake) => (&self.counters.closed_handshake, e.to_string()),
            // Counted and logged when it was evicted.
            Some(Closed::Stopping | Closed::Evicted) => return,
            None if e.kind() == io::ErrorKind::UnexpectedEof => (
                &self.counters.errors,
                "closed by the client in the middle of a request".to_string(),
            ),
            None => (&self.counters.errors, e.to_string()),
        };
        let n = counter.fetch_add(1, Ordering::Relaxed) + 1;
        self.note_close(n, peer, &why);
    }

    fn note_close(&self, n: u64, peer: SocketAddr, why: &str) {
        if worth_logging(n) {
            self.log(&format!("{peer}: {why} ({n} so far)"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rule 4's judgement: the rate times the time past the slack, less what was paid; nothing
    /// owed once the challenge is answered.
    #[test]
    fn a_connection_owes_the_rate_for_its_time_past_the_slack() {
        let e = Entry::new("127.0.0.1:1".parse().unwrap(), true);
        let (rate, slack) = (100, Duration::from_secs(2));
        let at = |s: u64| e.start + Duration::from_secs(s);
        assert_eq!(e.owes(at(1), rate, slack), None);
        assert_eq!(e.owes(at(3), rate, slack), Some(100));
        assert_eq!(e.owes(at(3), rate, Duration::ZERO), Some(300));
        e.paid.store(60, Ordering::Relaxed);
        assert_eq!(e.owes(at(3), rate, slack), Some(40));
        e.paid.store(100, Ordering::Relaxed);
        assert_eq!(e.owes(at(3), rate, slack), None);
        e.proven.store(true, Ordering::Relaxed);
        assert_eq!(e.owes(at(100), rate, slack), None);
        // Without its grace (its source on back-off), a connection that sent nothing owes at
        // once.
        let l = Limits::default();
        let e = Entry::new("127.0.0.1:2".parse().unwrap(), false);
        assert!(
            e.arrears(e.start + Duration::from_millis(100), &l)
                .is_some()
        );
        let e = Entry::new("127.0.0.1:3".parse().unwrap(), true);
        assert!(
            e.arrears(e.start + Duration::from_millis(100), &l)
                .is_none()
        );
    }

    /// Issue 74 §1: what the server sends for a client on a handle of its own pays for the
    /// client's slot as bytes received do; the run learns when the slot went to another or the
    /// server is stopping.
    #[test]
    fn a_tab_pays_for_the_slot_and_says_when_the_work_must_end() {
        let e = Arc::new(Entry::new("127.0.0.1:1".parse().unwrap(), false));
        let stop = Arc::new(AtomicBool::new(false));
        let tab = Tab {
            entry: e.clone(),
            stop: stop.clone(),
        };
        let at = e.start + Duration::from_secs(10);
        assert_eq!(e.owes(at, 100, Duration::ZERO), Some(1000));
        tab.clone().credit(400);
        assert_eq!(e.owes(at, 100, Duration::ZERO), Some(600));
        tab.credit(600);
        assert_eq!(e.owes(at, 100, Duration::ZERO), None);
        assert_eq!(tab.ended(), None);
        e.evicted.store(true, Ordering::Relaxed);
        assert_eq!(tab.ended(), Some(Closed::Evicted));
        stop.store(true, Ordering::Relaxed);
        assert_eq!(tab.ended(), Some(Closed::Stopping));
    }

    #[test]
    fn defaults_pass_and_degenerate_limits_are_refused() {
        let d = Limits::default();
        assert!(d.check().is_ok());
        assert_eq!(d.min_bytes_per_window(), 2000);
        for (l, word) in [
            (
                Limits {
                    max_connections: 0,
                    ..d
                },
                "--max-connections",
            ),
            (
                Limits {
                    max_per_source: 0,
                    ..d
                },
                "--max-per-source",
            ),
            (
                Limits {
                    window: Duration::ZERO,
                    ..d
                },
                "--idle-window",
            ),
            (Limits { min_rate: 0, ..d }, "--min-rate"),
        ] {
            let e = l.check().unwrap_err();
            assert!(e.contains(word) && !e.contains('\n'), "{e}");
        }
        // A tiny rate over a short window still asks for a byte.
        let l = Limits {
            min_rate: 1,
            window: Duration::from_millis(100),
            ..d
        };
        assert_eq!(l.min_bytes_per_window(), 1);
    }
}
