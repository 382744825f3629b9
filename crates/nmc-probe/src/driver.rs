//! The probe's event loop, shared by the UDP and ICMP socket drivers: it feeds the
//! [`Probe`] core the time, the replies and the silences, and sends what it asks for.
//!
//! Plain sockets on one thread, waiting in `poll(2)` ([`rustix::event::poll`]: `ppoll` on Linux,
//! `poll` elsewhere): with one volley in flight there is never more than one thing to wait for,
//! and a paced run only adds "or the next send falls due", which the wait's timeout covers.
//! `ppoll` takes a nanosecond timeout served by a high-resolution timer, unlike `SO_RCVTIMEO`,
//! which the kernel rounds up to whole scheduler ticks (10 ms at 100 Hz): paced sends would slip
//! by a tick each. (Where only `poll` exists the timeout is in whole milliseconds.) An async runtime would add a dependency and
//! hide the timestamps behind a scheduler without making them better. Every wait is capped at
//! [`MAX_WAIT`] so that a stop request (Ctrl-C) is seen promptly.

use crate::probe::{Probe, ProbeConfig, ProbeCounters, Transmit, Volley};
use crate::time::{Clock, Nanos, TimerResolution, measure_timer_resolution, unix_now_ns};
use rustix::event::PollFd;
use serde::Serialize;
use std::io;
use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Longest single wait, so that a stop request is noticed within this.
pub const MAX_WAIT: Duration = Duration::from_millis(100);

/// The transport a run used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    /// UDP to an `nmc echo serve` server (the packet format of [`crate::wire`]).
    Udp,
    /// ICMP Echo through an unprivileged ping socket (`SOCK_DGRAM`, `IPPROTO_ICMP`).
    IcmpPing,
    /// ICMP Echo through a raw socket (needs root or `CAP_NET_RAW`).
    IcmpRaw,
}

impl std::fmt::Display for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Transport::Udp => "udp",
            Transport::IcmpPing => "icmp (ping socket)",
            Transport::IcmpRaw => "icmp (raw socket)",
        })
    }
}

/// What one received datagram was, as far as the socket driver can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Received {
    /// A well-formed (and, with a secret, authenticated) reply.
    Reply {
        at: Nanos,
        seq: u32,
        stamp: Nanos,
        turnaround: Option<Nanos>,
        /// The reply's length, counted as the request's is (the whole IP datagram).
        length: u32,
        /// The server's wall-clock receive time (UDP replies; ns since the Unix epoch).
        server_rx_unix_ns: Option<u64>,
        /// The server's count of the requests it answered from this probe
        /// ([`crate::wire::reply_count`]).
        server_count: Option<u64>,
    },
    /// A well-formed reply that lacked or failed authentication.
    Unauthenticated,
    /// An ICMP error report (e.g. port unreachable: no server listening).
    IcmpError,
    /// Anything else (not ours, malformed): ignored.
    Other,
}

/// A socket that can carry volleys.
pub(crate) trait EchoSocket {
    /// Bytes of IP and transport header in front of the payload; `Transmit::length` includes them.
    fn overhead(&self) -> u32;
    /// This host's end, as bound (issue 58 §4).
    fn local(&self) -> Option<std::net::SocketAddr>;
    fn send(&mut self, tx: &Transmit) -> io::Result<()>;
    /// Waits up to `timeout` for a datagram; `Ok(None)` when the wait ran out.
    fn recv(&mut self, timeout: Duration) -> io::Result<Option<Received>>;
}

/// The one receive-with-timeout of the socket drivers (the probe's UDP and ICMP sockets, the
/// echo server): waits up to `timeout` for `fd` to be readable ([`wait_readable`]), then reads
/// once with [`recv_ready`]. `Ok(None)` when the wait ran out, a signal cut it short, or nothing
/// was there after all.
pub(crate) fn recv_within<T>(
    fd: BorrowedFd<'_>,
    timeout: Duration,
    read: impl FnMut() -> io::Result<T>,
) -> io::Result<Option<T>> {
    if !wait_readable(fd, timeout)? {
        return Ok(None);
    }
    recv_ready(read)
}

/// One receive that does not wait: `read` on a non-blocking socket (or one whose readiness was
/// just seen). `Ok(None)` when nothing is waiting (`WouldBlock`, or `TimedOut` from a socket
/// with a receive timeout); an interrupted read is retried; other errors are the caller's.
/// The pump's drain loops call it until it gives `None`.
pub(crate) fn recv_ready<T>(mut read: impl FnMut() -> io::Result<T>) -> io::Result<Option<T>> {
    loop {
        match read() {
            Ok(x) => return Ok(Some(x)),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Ok(None);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// What a wait asks for and what it saw (`IN`, `OUT`, and `ERR`/`HUP` reported unasked).
pub(crate) use rustix::event::PollFlags as Events;

/// Waits until `fd` is readable or `timeout` has passed; `Ok(true)` if readable.
pub(crate) fn wait_readable(fd: BorrowedFd<'_>, timeout: Duration) -> io::Result<bool> {
    Ok(!wait_fd(fd, Events::IN, timeout)?.is_empty())
}

/// Waits until `fd` has one of `events` or `timeout` has passed; returns the events seen, none
/// also when a signal interrupted the wait.
pub(crate) fn wait_fd(fd: BorrowedFd<'_>, events: Events, timeout: Duration) -> io::Result<Events> {
    let mut p = [PollFd::from_borrowed_fd(fd, events)];
    Ok(if poll(&mut p, timeout)? {
        p[0].revents()
    } else {
        Events::empty()
    })
}

/// [`wait_fd`] on several descriptors at once: (fd, events) each; returns the events seen on
/// each, in the same order (all empty when the wait ran out or a signal cut it short).
pub(crate) fn wait_fds(
    fds: &[(BorrowedFd<'_>, Events)],
    timeout: Duration,
) -> io::Result<Vec<Events>> {
    let mut p: Vec<PollFd<'_>> = fds
        .iter()
        .map(|&(fd, events)| PollFd::from_borrowed_fd(fd, events))
        .collect();
    Ok(if poll(&mut p, timeout)? {
        p.iter().map(|p| p.revents()).collect()
    } else {
        vec![Events::empty(); fds.len()]
    })
}

/// One `poll(2)`: false when the timeout ran out or a signal cut it short.
fn poll(p: &mut [PollFd<'_>], timeout: Duration) -> io::Result<bool> {
    let ts = rustix::event::Timespec {
        tv_sec: timeout.as_secs().try_into().unwrap_or(i64::MAX),
        tv_nsec: timeout.subsec_nanos().into(),
    };
    match rustix::event::poll(p, Some(&ts)) {
        Ok(n) => Ok(n > 0),
        Err(rustix::io::Errno::INTR) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// A finished (or stopped) run: everything the reports need.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeRun {
    /// The target as given and as resolved.
    pub target: String,
    /// This host's end, address:port as bound (issue 58 §4; ICMP: the address, port 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local: Option<String>,
    /// The transport the volleys went by.
    pub transport: Transport,
    /// The run's parameters, as used.
    pub config: ProbeConfig,
    /// Bytes of IP + UDP/ICMP header counted in every length.
    pub header_bytes: u32,
    /// What the probe measured of the monotonic clock before the run.
    pub timer: TimerResolution,
    /// Wall-clock time the run started, ns since the Unix epoch (for the record only).
    pub started_unix_ns: u64,
    /// The wall-clock time, ns since the Unix epoch, of the monotonic clock's 0 (the volleys'
    /// send times): read together with `started_unix_ns`, so a volley's wall-clock send time is
    /// this plus its monotonic one (the one-way split, [`crate::analysis::OneWaySplit`]).
    #[serde(skip)]
    pub origin_unix_ns: i128,
    /// Monotonic time the run took.
    pub elapsed: Nanos,
    /// True when the run was stopped before every volley was resolved.
    pub interrupted: bool,
    /// Issue 58 §2: the run gave up on a host that never answered, and why (then `interrupted`
    /// is set too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gave_up: Option<crate::probe::GiveUp>,
    /// Volleys sent, answered and lost; replies duplicate, reordered, late, foreign or
    /// unauthenticated; ICMP errors.
    pub counters: ProbeCounters,
    /// Every volley that was answered or declared lost, in send order (not serialised: the trace
    /// CSV carries them).
    #[serde(skip)]
    pub volleys: Vec<Volley>,
}

/// Reports progress: volleys sent, volleys in the run.
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize);

/// Receives each interval line as the interval ends.
pub type OnLine<'a> = &'a mut dyn FnMut(&IntervalLine);

/// Receives each volley as its first reply in time comes (`--per-reply`), with the wall-clock
/// time of the monotonic clock's 0 ([`ProbeRun::origin_unix_ns`]).
pub type OnReply<'a> = &'a mut dyn FnMut(&Volley, i128);

/// What the caller watches while a probe runs (`Watch::default()`: nothing).
#[derive(Default)]
pub struct Watch<'a> {
    /// Called after every send.
    pub progress: Option<Progress<'a>>,
    /// Interval lines (issue 34, as ping and iperf3 print them): every `.0` of the run's
    /// monotonic time, what happened in that interval.
    pub intervals: Option<(Duration, OnLine<'a>)>,
    /// A line per reply (irtt's per-packet lines, ping's per-reply lines).
    pub replies: Option<OnReply<'a>>,
}

/// One interval of a running probe: volleys sent in it, replies received in it (with their
/// round trips) and volleys declared lost in it (their timeout ran out in it).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IntervalLine {
    /// Seconds from the run's start.
    pub start_s: f64,
    /// Seconds from the run's start to the interval's end (the run's end for the last, partial
    /// one).
    pub end_s: f64,
    /// Volleys sent in the interval.
    pub sent: u32,
    /// Volleys answered in time in the interval (first replies only).
    pub answered: u32,
    /// Volleys declared lost in the interval: their timeout ran out in it.
    pub lost: u32,
    /// Round trips of the replies received in the interval, ms; `None` with no reply.
    pub rtt_min_ms: Option<f64>,
    /// Mean round trip of the replies received in the interval, ms; `None` with no reply.
    pub rtt_mean_ms: Option<f64>,
    /// Longest round trip of the replies received in the interval, ms; `None` with no reply.
    pub rtt_max_ms: Option<f64>,
}

/// The interval being counted.
struct Ticker {
    every: Nanos,
    /// The interval's start, from the run's start.
    start: Nanos,
    /// Counters at the interval's start.
    base: ProbeCounters,
    rtts: u32,
    rtt_sum: u128,
    rtt_min: u64,
    rtt_max: u64,
}

impl Ticker {
    fn new(every: Nanos) -> Ticker {
        Ticker {
            every,
            start: Nanos(0),
            base: ProbeCounters::default(),
            rtts: 0,
            rtt_sum: 0,
            rtt_min: u64::MAX,
            rtt_max: 0,
        }
    }

    fn reply(&mut self, rtt: Nanos) {
        self.rtts += 1;
        self.rtt_sum += u128::from(rtt.0);
        self.rtt_min = self.rtt_min.min(rtt.0);
        self.rtt_max = self.rtt_max.max(rtt.0);
    }

    fn next_at(&self) -> Nanos {
        Nanos(self.start.0.saturating_add(self.every.0))
    }

    /// Reports to `f` every whole interval that has ended by `since` (from the run's start).
    fn close_until(&mut self, since: Nanos, now: ProbeCounters, f: &mut dyn FnMut(&IntervalLine)) {
        while since >= self.next_at() {
            let end = self.next_at();
            f(&self.close(end, now));
        }
    }

    /// The line for `[start, end)`; the next interval starts at `end`.
    fn close(&mut self, end: Nanos, now: ProbeCounters) -> IntervalLine {
        let ms = |ns: f64| ns / 1e6;
        let some = self.rtts > 0;
        let line = IntervalLine {
            start_s: self.start.0 as f64 / 1e9,
            end_s: end.0 as f64 / 1e9,
            sent: now.sent - self.base.sent,
            answered: now.answered - self.base.answered,
            lost: now.lost - self.base.lost,
            rtt_min_ms: some.then(|| ms(self.rtt_min as f64)),
            rtt_mean_ms: some.then(|| ms(self.rtt_sum as f64 / f64::from(self.rtts))),
            rtt_max_ms: some.then(|| ms(self.rtt_max as f64)),
        };
        *self = Ticker {
            start: end,
            base: now,
            ..Ticker::new(self.every)
        };
        line
    }
}

pub(crate) fn run<S: EchoSocket>(
    sock: &mut S,
    target: String,
    transport: Transport,
    cfg: ProbeConfig,
    clock: Clock,
    stop: &AtomicBool,
    watch: Watch<'_>,
) -> Result<ProbeRun, crate::Error> {
    let timer = measure_timer_resolution(1000);
    let mut probe = Probe::new(cfg)?;
    let started_unix_ns = unix_now_ns();
    let start = clock.now();
    let origin_unix_ns = i128::from(started_unix_ns) - i128::from(start.0);
    let Watch {
        mut progress,
        intervals,
        mut replies,
    } = watch;
    let (mut ticker, mut on_line) = match intervals {
        Some((every, f)) => (
            Some(Ticker::new(Nanos::from_duration(every).max(Nanos(1)))),
            Some(f),
        ),
        None => (None, None),
    };
    let mut interrupted = false;
    let mut gave_up = None;
    while !probe.is_done() {
        if let (Some(t), Some(f)) = (ticker.as_mut(), on_line.as_mut()) {
            t.close_until(clock.now().saturating_sub(start), probe.counters(), *f);
        }
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        // Issue 33: an ICMP error (port unreachable: nothing listening) before any reply ends
        // the run at once, instead of waiting out every volley's timeout.
        let c = probe.counters();
        if c.icmp_errors > 0 && c.answered == 0 {
            interrupted = true;
            break;
        }
        probe.handle_timeout(clock.now());
        // Issue 58 §2: a host that has never answered is given up on at the opening deadline
        // or after a run of losses (each wait is at most MAX_WAIT, so this is seen in time).
        if let Some(g) = probe.gave_up(clock.now()) {
            gave_up = Some(g);
            interrupted = true;
            break;
        }
        send_due(sock, &mut probe, clock, &mut progress)?;
        if probe.is_done() {
            break;
        }
        let Some(at) = probe.poll_at() else { break };
        // With interval lines, wake for the next one too.
        let at = match &ticker {
            Some(t) => at.min(Nanos(start.0.saturating_add(t.next_at().0))),
            None => at,
        };
        let wait = at.saturating_sub(clock.now()).to_duration().min(MAX_WAIT);
        if wait.is_zero() {
            continue;
        }
        let got = sock.recv(wait);
        take_received(
            &mut probe,
            got,
            ticker.as_mut(),
            &mut replies,
            origin_unix_ns,
        )?;
    }
    let elapsed = clock.now().saturating_sub(start);
    // The last, partial interval.
    if let (Some(t), Some(f)) = (ticker.as_mut(), on_line.as_mut()) {
        t.close_until(elapsed, probe.counters(), *f);
        if elapsed > t.start {
            f(&t.close(elapsed, probe.counters()));
        }
    }
    // A stopped run keeps only the volleys it resolved: one still waiting is neither answered nor lost.
    let volleys = probe
        .volleys()
        .iter()
        .filter(|v| v.sent.is_some() && (v.lost || v.rtt.is_some()))
        .copied()
        .collect();
    Ok(ProbeRun {
        target,
        local: sock.local().map(|a| a.to_string()),
        transport,
        config: probe.config().clone(),
        header_bytes: sock.overhead(),
        timer,
        started_unix_ns,
        origin_unix_ns,
        elapsed,
        interrupted,
        gave_up,
        counters: probe.counters(),
        volleys,
    })
}

/// Sends every volley the probe asks for now, calling `progress` after each.
fn send_due<S: EchoSocket>(
    sock: &mut S,
    probe: &mut Probe,
    clock: Clock,
    progress: &mut Option<Progress<'_>>,
) -> Result<(), crate::Error> {
    let total = probe.volleys().len();
    while let Some(tx) = probe.poll_transmit(clock.now()) {
        match sock.send(&tx) {
            Ok(()) => {}
            // A connected UDP socket reports an earlier ICMP error on the next call.
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                probe.counters_mut().icmp_errors += 1;
            }
            // Dropped on this host (a firewall, no buffer): the volley is lost (issue 58 §5).
            Err(e) if nmc_serve::dropped_here(&e) => {}
            Err(e) => return Err(crate::Error::Io("send", e)),
        }
        if let Some(p) = progress.as_mut() {
            p(probe.sent(), total);
        }
    }
    Ok(())
}

/// Takes what one wait on the socket brought: a reply (a fresh one counted in the interval
/// and passed to `replies`, with the clock's origin `origin_unix_ns`), an error report, or
/// nothing.
fn take_received(
    probe: &mut Probe,
    got: io::Result<Option<Received>>,
    ticker: Option<&mut Ticker>,
    replies: &mut Option<OnReply<'_>>,
    origin_unix_ns: i128,
) -> Result<(), crate::Error> {
    match got {
        Ok(None) => {}
        Ok(Some(Received::Reply {
            at,
            seq,
            stamp,
            turnaround,
            length,
            server_rx_unix_ns,
            server_count,
        })) => {
            let kind = probe.handle_reply_of_length(at, seq, stamp, turnaround, length);
            if let crate::probe::ReplyKind::Fresh { rtt, .. } = kind {
                if let Some(rx) = server_rx_unix_ns {
                    probe.note_server_receive(seq, rx, server_count);
                }
                if let Some(t) = ticker {
                    t.reply(rtt);
                }
                if let (Some(f), Some(v)) = (replies.as_mut(), probe.volleys().get(seq as usize)) {
                    f(v, origin_unix_ns);
                }
            }
        }
        Ok(Some(Received::Unauthenticated)) => probe.counters_mut().unauthenticated += 1,
        Ok(Some(Received::IcmpError)) => probe.counters_mut().icmp_errors += 1,
        Ok(Some(Received::Other)) => {}
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
            probe.counters_mut().icmp_errors += 1;
        }
        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
        Err(e) => return Err(crate::Error::Io("receive", e)),
    }
    Ok(())
}
