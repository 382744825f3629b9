//! RFC 392's measurement on a host of today: what CPU does it cost to send (and receive) a
//! given volume over the network?
//!
//! A **sender** moves `bytes` to a **discard sink** in writes of `write_size` bytes, over TCP (one
//! connection per transfer: the connection set-up and tear-down are this transfer's fixed cost,
//! as the RJS job's set-up was Utah's) or UDP (datagrams of `write_size` bytes). CPU time is the
//! OS's own accounting of exactly the thread that sends, before and after (the scheduler's
//! runtime, `CLOCK_THREAD_CPUTIME_ID`, split into user and system by `getrusage(RUSAGE_THREAD)`);
//! the sink measures its receiving thread the same way.
//!
//! ## The sink, and its one-line report (TCP)
//!
//! `nmc cost --serve` (or [`TcpSink`]/[`serve_udp`] in-process for loopback runs) accepts TCP
//! connections, each on its own thread: it reads and discards until the client shuts down its
//! sending side, then writes one line and closes:
//!
//! ```text
//! nmc-cost-sink v1 bytes=<received> cpu_ns=<c> user_ns=<u> sys_ns=<s>\n
//! ```
//!
//! where `c` is that thread's CPU from the first byte of data (after the secret's handshake, if
//! any) to the end of the data, and `u`, `s` its user/system split as `getrusage` gives it (see
//! [`CpuTime`]). The sender reads the line, so the receiver's CPU is known even when the sink is
//! another host. A client that sends anything at all gets the line; nothing it sends can make the
//! sink allocate more than its fixed 64 KiB buffer. Connections pass the shared gate
//! ([`nmc_serve::gate`]): a total and a per-source cap, a minimum rate judged per window (a
//! trickle does not keep a slot), descriptor exhaustion survived, and with a secret
//! ([`SinkConfig::key`]) the challenge-response of [`nmc_serve::auth`] before the first byte of
//! data.
//!
//! UDP data have no reply: a remote UDP sink only counts them. A remote UDP run opens with an
//! exchange the sink answers (issue 58 §1: the echo server's request, which `nmc serve` and
//! `nmc cost --serve` answer; see [`serve_udp`]), so that a run to nothing fails instead of
//! reporting what it sent. On loopback the sink runs on a thread of this
//! process for the one transfer, so its CPU is measured; it stops on an end marker datagram
//! (`nmc-cost-end`, sent a few times after the data) or after [`IDLE_TIMEOUT_UDP`] of silence.
//!
//! ## What is and is not counted
//!
//! - On loopback, Linux runs the receiving side's TCP/IP processing in the *sending* thread's
//!   softirq context: part of what a real receiver would pay is charged to the sender's system
//!   time. Over a real network it is charged to whatever the NIC's interrupt lands on, which no
//!   per-thread accounting sees. Both ends' totals are shown; neither is the whole host.
//! - The data come from memory, not from a disk, and carry no record formatting: today's
//!   figures are the "network as a device" part of RFC 392's cost, not its RJS program.

use nmc_serve::{Conn, Gate, GateCounters, Key, Limits};
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// CPU time from the OS's accounting, nanoseconds.
///
/// `total_ns` is the scheduler's exact runtime (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)` for a
/// thread, `CLOCK_PROCESS_CPUTIME_ID` for the process). The user/system split comes from
/// `getrusage`, which on most kernels samples it at the timer tick (4 ms at 250 Hz) and brings
/// a running thread's total up to date only at a tick or a context switch: below a few ms it is
/// a rough split, and `getrusage`'s own total can read 0 for a short transfer. Tables show the
/// exact total and the split as `getrusage` gives it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CpuTime {
    /// Total CPU time, ns (see above for which clock).
    pub total_ns: u64,
    /// User-mode CPU time as `getrusage` gives it, ns.
    pub user_ns: u64,
    /// System (kernel) CPU time as `getrusage` gives it, ns.
    pub sys_ns: u64,
}

impl CpuTime {
    /// Total CPU time, ns.
    pub fn total_ns(&self) -> u64 {
        self.total_ns
    }
    /// `self − earlier`, saturating.
    pub fn since(&self, earlier: CpuTime) -> CpuTime {
        CpuTime {
            total_ns: self.total_ns.saturating_sub(earlier.total_ns),
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            sys_ns: self.sys_ns.saturating_sub(earlier.sys_ns),
        }
    }
}

/// `getrusage(who)`: (user, system) ns.
fn rusage(who: libc::c_int) -> io::Result<(u64, u64)> {
    // SAFETY: getrusage writes a plain struct we own; zeroed is a valid rusage.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointer to ru; `who` is RUSAGE_SELF or RUSAGE_THREAD.
    let rc = unsafe { libc::getrusage(who, &mut ru) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1_000;
    Ok((ns(ru.ru_utime), ns(ru.ru_stime)))
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn cpu_clock(id: libc::clockid_t) -> io::Result<u64> {
    // SAFETY: zeroed timespec is valid; clock_gettime writes into it.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointer; the id is a CPU-time clock of this thread or process.
    let rc = unsafe { libc::clock_gettime(id, &mut ts) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// This thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`; split by `getrusage(RUSAGE_THREAD)`).
#[cfg(any(target_os = "linux", target_os = "android"))]
pub fn thread_cpu() -> io::Result<CpuTime> {
    let (user_ns, sys_ns) = rusage(libc::RUSAGE_THREAD)?;
    Ok(CpuTime {
        total_ns: cpu_clock(libc::CLOCK_THREAD_CPUTIME_ID)?,
        user_ns,
        sys_ns,
    })
}

/// Per-thread CPU accounting (`RUSAGE_THREAD`) is Linux's: elsewhere `nmc cost` says so in one
/// line instead of measuring something else.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub fn thread_cpu() -> io::Result<CpuTime> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "per-thread CPU time (getrusage RUSAGE_THREAD) is not available on this platform: nmc cost measures on Linux only",
    ))
}

/// The whole process's CPU time as `getrusage(RUSAGE_SELF)` gives it: `total_ns` is its user +
/// system (the process's own accounting, against which the per-thread figures are checked).
pub fn process_cpu() -> io::Result<CpuTime> {
    let (user_ns, sys_ns) = rusage(libc::RUSAGE_SELF)?;
    Ok(CpuTime {
        total_ns: user_ns + sys_ns,
        user_ns,
        sys_ns,
    })
}

/// The 5-minute load average (`/proc/loadavg`, second field): RFC 392's column 6.
pub fn load5() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    s.split_whitespace().nth(1)?.parse().ok()
}

/// The sender gives up on a sink that takes nothing (or sends no report) for this long
/// (judgement: far above any loopback or WAN stall).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// The sink's limits (`nmc cost --serve --max-connections N --max-per-source N --idle-window D
/// --min-rate R --secret-file F`): the shared gate's.
#[derive(Clone, Debug, Default)]
pub struct SinkConfig {
    /// The gate's connection limits.
    pub limits: Limits,
    /// The shared secret a client must prove, if any.
    pub key: Option<Key>,
}

/// A loopback UDP sink stops after this long without a datagram.
pub const IDLE_TIMEOUT_UDP: Duration = Duration::from_millis(500);
/// The sink's read buffer (and the largest write the sender needs).
pub const BUF_BYTES: usize = 64 * 1024;
/// The report line's prefix.
pub const REPORT_PREFIX: &str = "nmc-cost-sink v1";
/// The UDP end marker.
pub const UDP_END: &[u8] = b"nmc-cost-end";

/// The transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Proto {
    /// One TCP connection per transfer.
    Tcp,
    /// UDP datagrams of the write size.
    Udp,
}

impl Proto {
    /// Its name in tables and reports: `tcp` or `udp`.
    pub fn name(self) -> &'static str {
        match self {
            Proto::Tcp => "tcp",
            Proto::Udp => "udp",
        }
    }
}

/// One transfer's result.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Measured {
    /// TCP or UDP.
    pub proto: Proto,
    /// Bytes the sender was asked to move (and wrote).
    pub bytes: u64,
    /// Bytes per write (TCP) or per datagram (UDP).
    pub write_size: usize,
    /// Write (TCP) or send (UDP) calls.
    pub calls: u64,
    /// From the first call (connect for TCP) until the sink's report (TCP) or the end marker
    /// (UDP): RFC 392's column 1.
    pub clock_ns: u64,
    /// The sending thread's CPU for the transfer.
    pub sender: CpuTime,
    /// The receiving thread's CPU, when known (TCP: always, from the report; UDP: loopback only).
    pub receiver: Option<CpuTime>,
    /// Bytes the sink received, when known (UDP may lose some).
    pub received: Option<u64>,
    /// 5-minute load average at the end.
    pub load5: Option<f64>,
}

impl Measured {
    /// The bits moved: bytes × 8.
    pub fn bits(&self) -> f64 {
        self.bytes as f64 * 8.0
    }
    /// Bits over the clock time, bit/s: RFC 392's column 4.
    pub fn bits_per_s(&self) -> f64 {
        self.bits() / (self.clock_ns as f64 / 1e9)
    }
    /// Sender CPU µs per bit sent.
    pub fn sender_us_per_bit(&self) -> f64 {
        self.sender.total_ns() as f64 / 1e3 / self.bits()
    }
    /// Receiver CPU µs per bit received.
    pub fn receiver_us_per_bit(&self) -> Option<f64> {
        let r = self.receiver?;
        let got = self.received? as f64 * 8.0;
        (got > 0.0).then(|| r.total_ns() as f64 / 1e3 / got)
    }
}

/// Errors a transfer reports: one line each.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The sink could not be reached.
    #[error("cannot reach the sink at {addr}: {err}")]
    Connect {
        /// The sink's address.
        addr: SocketAddr,
        /// The error the connection attempt returned.
        err: io::Error,
    },
    /// The sink closed the connection before all bytes were written.
    #[error("the sink at {addr} closed the connection after {sent} of {bytes} bytes ({err})")]
    Closed {
        /// The sink's address.
        addr: SocketAddr,
        /// Bytes written before it closed.
        sent: u64,
        /// Bytes the transfer was to move.
        bytes: u64,
        /// The error the write returned.
        err: io::Error,
    },
    /// The sink sent no readable report line after the data.
    #[error("the sink at {addr} sent no report ({why}); is it `nmc serve` or `nmc cost --serve`?")]
    NoReport {
        /// The sink's address.
        addr: SocketAddr,
        /// What came instead (nothing, a timeout, other text).
        why: String,
    },
    /// The sink reports another byte count than was sent (it stopped reading or closed early).
    #[error(
        "the sink at {addr} received {received} of {bytes} bytes: it stopped reading or closed early"
    )]
    Short {
        /// The sink's address.
        addr: SocketAddr,
        /// Bytes the sink reports it received.
        received: u64,
        /// Bytes sent.
        bytes: u64,
    },
    /// The sink asks for a shared secret and none was given.
    #[error("the sink at {addr} wants a secret: give it with --secret-file")]
    WantsSecret {
        /// The sink's address.
        addr: SocketAddr,
    },
    /// The secret's handshake with the sink failed.
    #[error("the sink at {addr}: {err}")]
    Auth {
        /// The sink's address.
        addr: SocketAddr,
        /// Why the handshake failed.
        err: nmc_serve::auth::AuthError,
    },
    /// The stop flag was set (Ctrl-C) during the transfer: it is abandoned, not measured.
    #[error("stopped by the user during a transfer, after {sent} of {bytes} bytes")]
    Stopped {
        /// Bytes written before the stop.
        sent: u64,
        /// Bytes the transfer was to move.
        bytes: u64,
    },
    /// Another I/O error (binding, reading the CPU clocks, ...).
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// How often a transfer blocked on its socket looks at the stop flag (issue 58 §3: `nmc cost`
/// took Ctrl-C only between transfers, once 359 s after it). The socket's timeout is this; a
/// transfer still fails after [`IDLE_TIMEOUT`] without progress.
pub const STOP_CHECK: Duration = Duration::from_millis(100);

/// UDP sends between two looks at the stop flag (a send does not block for long).
const STOP_CHECK_SENDS: u64 = 256;

/// Whether a socket call that failed with `e` only ran out of its [`STOP_CHECK`] wait.
fn waited(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

/// Parses a report line.
pub fn parse_report(line: &str) -> Option<(u64, CpuTime)> {
    let rest = line.trim_end().strip_prefix(REPORT_PREFIX)?;
    let (mut bytes, mut total, mut user, mut sys) = (None, None, None, None);
    for kv in rest.split_whitespace() {
        let (k, v) = kv.split_once('=')?;
        let v: u64 = v.parse().ok()?;
        match k {
            "bytes" => bytes = Some(v),
            "cpu_ns" => total = Some(v),
            "user_ns" => user = Some(v),
            "sys_ns" => sys = Some(v),
            _ => {}
        }
    }
    Some((
        bytes?,
        CpuTime {
            total_ns: total?,
            user_ns: user?,
            sys_ns: sys?,
        },
    ))
}

/// Serves one TCP connection: discard until EOF, then the report. Never panics; errors end the
/// connection. The CPU counted is this thread's from the first byte of data (after the secret's
/// handshake, if any) to the end.
fn serve_tcp_conn(s: &mut Conn) -> io::Result<u64> {
    let start = thread_cpu()?;
    let mut buf = vec![0u8; BUF_BYTES];
    let mut total: u64 = 0;
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => total = total.saturating_add(n as u64),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    let cpu = thread_cpu()?.since(start);
    let line = format!(
        "{REPORT_PREFIX} bytes={total} cpu_ns={} user_ns={} sys_ns={}\n",
        cpu.total_ns, cpu.user_ns, cpu.sys_ns
    );
    s.write_all(line.as_bytes())?;
    let _ = s.shutdown(Shutdown::Both);
    Ok(total)
}

/// A TCP discard sink: the shared gate's accept loop on its own thread, one thread per admitted
/// connection.
pub struct TcpSink {
    /// The address the sink listens on.
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    counters: Arc<GateCounters>,
    /// Transfers finished and their bytes.
    done: Arc<(std::sync::atomic::AtomicU64, std::sync::atomic::AtomicU64)>,
    handle: Option<thread::JoinHandle<()>>,
}

/// The line for a finished transfer, if it is one to log ([`nmc_serve::gate::worth_logging`]):
/// anyone may connect, so one line per connection would let a stranger fill the log.
fn transfer_line(k: u64, peer: SocketAddr, n: u64) -> Option<String> {
    nmc_serve::gate::worth_logging(k).then(|| {
        format!(
            "{peer}: {n} bytes discarded (transfer {k}; the first and each power of two are logged)"
        )
    })
}

impl TcpSink {
    /// Binds `listen` and starts accepting. `log` gets a line for the first finished transfer
    /// and then at powers of two, and the gate's refusals (rate-limited the same way).
    pub fn start(
        listen: SocketAddr,
        config: SinkConfig,
        log: Option<Box<dyn Fn(String) + Send + Sync>>,
    ) -> io::Result<TcpSink> {
        config
            .limits
            .check()
            .map_err(|m| io::Error::new(io::ErrorKind::InvalidInput, m))?;
        let listener = nmc_serve::bind::tcp(listen)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let log: Arc<dyn Fn(String) + Send + Sync> = match log {
            Some(l) => Arc::from(l),
            None => Arc::new(|_| {}),
        };
        let log_gate = log.clone();
        let gate = Gate::new(
            "tcp",
            config.limits,
            config.key,
            Arc::new(move |l: &str| log_gate(l.to_string())),
        );
        let counters = gate.counters();
        let done: Arc<(std::sync::atomic::AtomicU64, std::sync::atomic::AtomicU64)> =
            Arc::default();
        let done2 = done.clone();
        let handle = thread::Builder::new()
            .name("nmc-cost-sink".into())
            .spawn(move || {
                let _ = gate.serve(listener, &stop2, move |c| {
                    let n = serve_tcp_conn(c)?;
                    let k = done2.0.fetch_add(1, Ordering::Relaxed) + 1;
                    done2.1.fetch_add(n, Ordering::Relaxed);
                    if let Some(line) = transfer_line(k, c.peer(), n) {
                        log(line);
                    }
                    Ok(())
                });
            })?;
        Ok(TcpSink {
            addr,
            stop,
            counters,
            done,
            handle: Some(handle),
        })
    }

    /// Transfers finished so far and their bytes, in one line: "tcp: N transfers, B bytes
    /// discarded".
    pub fn summary(&self) -> String {
        format!(
            "tcp: {} transfers, {} bytes discarded",
            self.done.0.load(Ordering::Relaxed),
            self.done.1.load(Ordering::Relaxed)
        )
    }

    /// What the gate has done so far.
    pub fn gate(&self) -> nmc_serve::gate::GateSnapshot {
        self.counters.snapshot()
    }
}

impl Drop for TcpSink {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// What the UDP sink answers: the reply to a datagram, if it is a request the sink answers
/// (`nmc cost --serve` answers the opening of a UDP run, the echo server's smallest request,
/// issue 58 §1; the binary knows its format). A reply is never longer than its request.
pub type Answer<'a> = &'a dyn Fn(&[u8]) -> Option<Vec<u8>>;

/// Most datagrams [`serve_udp`] answers in one second, over all sources. **Choice**: 100: a
/// run's opening sends a few; a reply the size of its request amplifies nothing, and the cap
/// keeps the sink from reflecting a flood of forged sources at their full rate.
pub const MAX_ANSWERS_PER_S: u32 = 100;

/// A UDP discard loop for `nmc cost --serve`: counts datagrams and bytes until `stop()`, and
/// sends back what `answer` makes of a request it answers (at most [`MAX_ANSWERS_PER_S`]),
/// which is not counted as data.
pub fn serve_udp(
    sock: &UdpSocket,
    stop: &dyn Fn() -> bool,
    log: &dyn Fn(String),
    log_every: Duration,
    answer: Answer<'_>,
) -> io::Result<()> {
    sock.set_read_timeout(Some(Duration::from_millis(200)))?;
    let mut buf = vec![0u8; BUF_BYTES];
    let (mut datagrams, mut bytes, mut answered) = (0u64, 0u64, 0u64);
    let mut last = Instant::now();
    let (mut second, mut in_second) = (Instant::now(), 0u32);
    while !stop() {
        match sock.recv_from(&mut buf) {
            Ok((n, from)) => match answer(&buf[..n]) {
                Some(reply) => {
                    if second.elapsed() >= Duration::from_secs(1) {
                        (second, in_second) = (Instant::now(), 0);
                    }
                    if in_second < MAX_ANSWERS_PER_S && reply.len() <= n {
                        in_second += 1;
                        answered += 1;
                        let _ = sock.send_to(&reply, from);
                    }
                }
                None => {
                    datagrams += 1;
                    bytes = bytes.saturating_add(n as u64);
                }
            },
            Err(e) if nmc_serve::auth::waiting(&e) => {}
            Err(_) => thread::sleep(Duration::from_millis(10)),
        }
        if !log_every.is_zero() && last.elapsed() >= log_every {
            log(format!(
                "udp: {datagrams} datagrams, {bytes} bytes discarded; {answered} openings answered"
            ));
            last = Instant::now();
        }
    }
    log(format!(
        "udp: {datagrams} datagrams, {bytes} bytes discarded; {answered} openings answered"
    ));
    Ok(())
}

/// The sink as one of `nmc serve`'s instruments ([`nmc_serve::mux`]), asked last: a TCP
/// connection no other instrument claims is a transfer (the client's data is `0x5a` bytes, no
/// header: an old client and a new server agree), discarded and reported as
/// `nmc cost --serve` does; a datagram no other instrument took is counted and discarded,
/// unless the server has a secret (UDP transfers carry no tag, so then the echo server counts
/// it as it counts any stranger's datagram).
pub struct CostService {
    /// A secret is in force: datagrams are not this service's.
    keyed: bool,
    log: Arc<dyn Fn(String) + Send + Sync>,
    transfers: std::sync::atomic::AtomicU64,
    tcp_bytes: std::sync::atomic::AtomicU64,
    datagrams: std::sync::atomic::AtomicU64,
    udp_bytes: std::sync::atomic::AtomicU64,
}

impl CostService {
    /// `log` gets a line for the first finished transfer and then at powers of two.
    pub fn new(keyed: bool, log: Arc<dyn Fn(String) + Send + Sync>) -> CostService {
        CostService {
            keyed,
            log,
            transfers: Default::default(),
            tcp_bytes: Default::default(),
            datagrams: Default::default(),
            udp_bytes: Default::default(),
        }
    }
}

impl nmc_serve::Service for CostService {
    fn name(&self) -> &'static str {
        "cost sink"
    }

    fn claims(&self, _first: &[u8]) -> bool {
        true
    }

    fn connection(&self, c: &mut Conn) -> io::Result<()> {
        let n = serve_tcp_conn(c)?;
        let k = self.transfers.fetch_add(1, Ordering::Relaxed) + 1;
        self.tcp_bytes.fetch_add(n, Ordering::Relaxed);
        if let Some(line) = transfer_line(k, c.peer(), n) {
            (self.log)(format!("cost sink: {line}"));
        }
        Ok(())
    }

    fn datagram(&self, _sock: &UdpSocket, _src: SocketAddr, pkt: &[u8]) -> bool {
        if self.keyed {
            return false;
        }
        self.datagrams.fetch_add(1, Ordering::Relaxed);
        self.udp_bytes
            .fetch_add(pkt.len() as u64, Ordering::Relaxed);
        true
    }

    fn summary(&self) -> String {
        format!(
            "tcp: {} transfers, {} bytes; udp: {} datagrams, {} bytes discarded",
            self.transfers.load(Ordering::Relaxed),
            self.tcp_bytes.load(Ordering::Relaxed),
            self.datagrams.load(Ordering::Relaxed),
            self.udp_bytes.load(Ordering::Relaxed),
        )
    }
}

/// Sends `bytes` over one TCP connection to the sink at `addr`, in writes of `write_size`.
pub fn send_tcp(addr: SocketAddr, bytes: u64, write_size: usize) -> Result<Measured, LiveError> {
    send_tcp_with_key(addr, bytes, write_size, None)
}

/// [`send_tcp`], answering the sink's challenge with `key` first (its round trip is part of the
/// clock time, as the connection's set-up is).
pub fn send_tcp_with_key(
    addr: SocketAddr,
    bytes: u64,
    write_size: usize,
    key: Option<&Key>,
) -> Result<Measured, LiveError> {
    send_tcp_until(addr, bytes, write_size, key, &AtomicBool::new(false))
}

/// [`send_tcp_with_key`], abandoned with [`LiveError::Stopped`] within [`STOP_CHECK`] of `stop`
/// being set, whether the transfer is writing, blocked on a full socket, or waiting for the
/// sink's report.
pub fn send_tcp_until(
    addr: SocketAddr,
    bytes: u64,
    write_size: usize,
    key: Option<&Key>,
    stop: &AtomicBool,
) -> Result<Measured, LiveError> {
    let write_size = write_size.clamp(1, BUF_BYTES);
    let buf = vec![0x5au8; write_size];
    let cpu0 = thread_cpu()?;
    let t0 = Instant::now();
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
        .map_err(|err| LiveError::Connect { addr, err })?;
    s.set_write_timeout(Some(IDLE_TIMEOUT))?;
    s.set_read_timeout(Some(IDLE_TIMEOUT))?;
    if let Some(key) = key {
        nmc_serve::auth::answer(&mut s, key).map_err(|err| LiveError::Auth { addr, err })?;
    }
    // Short waits from here on, so that a stop is seen; IDLE_TIMEOUT still bounds a stall.
    s.set_write_timeout(Some(STOP_CHECK))?;
    s.set_read_timeout(Some(STOP_CHECK))?;
    let (mut sent, mut calls) = (0u64, 0u64);
    let mut moved = Instant::now();
    let stalled = |moved: Instant, sent: u64, e: io::Error| -> Option<LiveError> {
        if stop.load(Ordering::Relaxed) {
            return Some(LiveError::Stopped { sent, bytes });
        }
        (moved.elapsed() >= IDLE_TIMEOUT).then_some(LiveError::Closed {
            addr,
            sent,
            bytes,
            err: e,
        })
    };
    while sent < bytes {
        if calls % STOP_CHECK_SENDS == 0 && stop.load(Ordering::Relaxed) {
            return Err(LiveError::Stopped { sent, bytes });
        }
        let n = (bytes - sent).min(write_size as u64) as usize;
        match s.write(&buf[..n]) {
            Ok(0) => {
                return Err(LiveError::Closed {
                    addr,
                    sent,
                    bytes,
                    err: io::ErrorKind::WriteZero.into(),
                });
            }
            Ok(w) => {
                sent += w as u64;
                calls += 1;
                moved = Instant::now();
            }
            Err(_) if key.is_none() && nmc_serve::auth::challenged(&s, &[]) => {
                return Err(LiveError::WantsSecret { addr });
            }
            Err(e) if waited(&e) => {
                if let Some(e) = stalled(moved, sent, e) {
                    return Err(e);
                }
            }
            Err(err) => {
                return Err(LiveError::Closed {
                    addr,
                    sent,
                    bytes,
                    err,
                });
            }
        }
    }
    s.shutdown(Shutdown::Write)
        .map_err(|err| LiveError::Closed {
            addr,
            sent,
            bytes,
            err,
        })?;
    let mut reply = Vec::new();
    let mut chunk = [0u8; 256];
    let waiting = Instant::now();
    loop {
        match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                reply.extend_from_slice(&chunk[..n]);
                if reply.contains(&b'\n') || reply.len() > 1024 {
                    break;
                }
            }
            Err(e) if waited(&e) && stop.load(Ordering::Relaxed) => {
                return Err(LiveError::Stopped { sent, bytes });
            }
            Err(e) if waited(&e) && waiting.elapsed() < IDLE_TIMEOUT => {}
            Err(_) if key.is_none() && nmc_serve::auth::challenged(&s, &reply) => {
                return Err(LiveError::WantsSecret { addr });
            }
            Err(e) => {
                return Err(LiveError::NoReport {
                    addr,
                    why: e.to_string(),
                });
            }
        }
    }
    if key.is_none() && nmc_serve::auth::challenged(&s, &reply) {
        return Err(LiveError::WantsSecret { addr });
    }
    let clock_ns = t0.elapsed().as_nanos() as u64;
    drop(s);
    let sender = thread_cpu()?.since(cpu0);
    let text = String::from_utf8_lossy(&reply);
    let (received, receiver) = parse_report(&text).ok_or_else(|| LiveError::NoReport {
        addr,
        why: if reply.is_empty() {
            "it closed without one".into()
        } else {
            format!(
                "it answered `{}`",
                text.trim().chars().take(60).collect::<String>()
            )
        },
    })?;
    if received != bytes {
        return Err(LiveError::Short {
            addr,
            received,
            bytes,
        });
    }
    Ok(Measured {
        proto: Proto::Tcp,
        bytes,
        write_size,
        calls,
        clock_ns,
        sender,
        receiver: Some(receiver),
        received: Some(received),
        load5: load5(),
    })
}

/// Sends `bytes` as UDP datagrams of `write_size` to `addr`. With `local_sink`, a sink thread
/// on a fresh loopback socket receives and measures itself; otherwise only the sender is known.
pub fn send_udp(
    addr: Option<SocketAddr>,
    bytes: u64,
    write_size: usize,
) -> Result<Measured, LiveError> {
    send_udp_until(addr, bytes, write_size, &AtomicBool::new(false))
}

/// [`send_udp`], abandoned with [`LiveError::Stopped`] once `stop` is set (looked at every 256
/// sends).
pub fn send_udp_until(
    addr: Option<SocketAddr>,
    bytes: u64,
    write_size: usize,
    stop: &AtomicBool,
) -> Result<Measured, LiveError> {
    // The largest UDP payload over IPv4 is 65507 bytes.
    let write_size = write_size.clamp(1, 65_507);
    let (target, sink) = match addr {
        Some(a) => (a, None),
        None => {
            let rx = UdpSocket::bind("127.0.0.1:0")?;
            let target = rx.local_addr()?;
            let h = thread::Builder::new()
                .name("nmc-cost-udp".into())
                .spawn(move || udp_local_sink(rx))?;
            (target, Some(h))
        }
    };
    let bind: SocketAddr = if target.is_ipv4() {
        "0.0.0.0:0".parse().expect("literal")
    } else {
        "[::]:0".parse().expect("literal")
    };
    let tx = UdpSocket::bind(bind)?;
    tx.connect(target)
        .map_err(|err| LiveError::Connect { addr: target, err })?;
    let buf = vec![0x5au8; write_size];
    let cpu0 = thread_cpu()?;
    let t0 = Instant::now();
    let (mut sent, mut calls) = (0u64, 0u64);
    while sent < bytes {
        if calls % STOP_CHECK_SENDS == 0 && stop.load(Ordering::Relaxed) {
            for _ in 0..5 {
                let _ = tx.send(UDP_END);
            }
            if let Some(h) = sink {
                let _ = h.join();
            }
            return Err(LiveError::Stopped { sent, bytes });
        }
        let n = (bytes - sent).min(write_size as u64) as usize;
        match tx.send(&buf[..n]) {
            Ok(w) => {
                sent += w as u64;
                calls += 1;
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                ) => {}
            Err(err) => {
                return Err(LiveError::Closed {
                    addr: target,
                    sent,
                    bytes,
                    err,
                });
            }
        }
    }
    let sender = thread_cpu()?.since(cpu0);
    for _ in 0..5 {
        let _ = tx.send(UDP_END);
        thread::sleep(Duration::from_millis(1));
    }
    let (receiver, received, clock_ns) = match sink {
        Some(h) => {
            let (cpu, got, end) = h
                .join()
                .map_err(|_| io::Error::other("the UDP sink thread failed"))??;
            let clock = end.saturating_duration_since(t0).as_nanos() as u64;
            (Some(cpu), Some(got), clock)
        }
        None => (None, None, t0.elapsed().as_nanos() as u64),
    };
    Ok(Measured {
        proto: Proto::Udp,
        bytes,
        write_size,
        calls,
        clock_ns,
        sender,
        receiver,
        received,
        load5: load5(),
    })
}

/// The loopback UDP sink: receive until the end marker or silence; its own CPU, the bytes, and
/// when the last data datagram arrived.
fn udp_local_sink(rx: UdpSocket) -> io::Result<(CpuTime, u64, Instant)> {
    let start = thread_cpu()?;
    rx.set_read_timeout(Some(IDLE_TIMEOUT_UDP))?;
    let mut buf = vec![0u8; 65_536];
    let mut got = 0u64;
    let mut last = Instant::now();
    loop {
        match rx.recv(&mut buf) {
            Ok(n) if &buf[..n] == UDP_END => break,
            Ok(n) => {
                got += n as u64;
                last = Instant::now();
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    Ok((thread_cpu()?.since(start), got, last))
}

/// What a plan's run measured ([`run_cells`]).
#[derive(Debug, Default)]
pub struct CellsRun {
    /// The transfers that ended, in the plan's order.
    pub measured: Vec<Measured>,
    /// A stop (Ctrl-C, SIGTERM) ended the run before every cell was measured.
    pub stopped: bool,
}

/// Runs `cells` in order: TCP to the sink at `tcp` (tagged with `key` if it has a secret), UDP
/// to `udp` (or this host's loopback discard when `None`), until each has ended or `stop` is
/// set. Issue 58 §3: a stop ends the run within 100 ms; the transfer under way is abandoned (a
/// part of a transfer is no RFC 392 row) and the finished ones are kept.
pub fn run_cells(
    cells: &[Cell],
    tcp: SocketAddr,
    udp: Option<SocketAddr>,
    key: Option<&Key>,
    stop: &AtomicBool,
) -> Result<CellsRun, LiveError> {
    let mut run = CellsRun::default();
    for c in cells {
        if stop.load(Ordering::Relaxed) {
            run.stopped = true;
            break;
        }
        let m = match c.proto {
            Proto::Tcp => send_tcp_until(tcp, c.bytes, c.write_size, key, stop),
            Proto::Udp => send_udp_until(udp, c.bytes, c.write_size, stop),
        };
        match m {
            Ok(m) => run.measured.push(m),
            Err(LiveError::Stopped { .. }) => {
                run.stopped = true;
                break;
            }
            Err(e) => return Err(e),
        }
    }
    run.stopped |= stop.load(Ordering::Relaxed);
    Ok(run)
}

/// What to measure: every (protocol, size, write size) combination, skipping those that need
/// more than `max_calls` calls.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The transports to measure.
    pub protos: Vec<Proto>,
    /// The transfer sizes, bytes.
    pub sizes: Vec<u64>,
    /// The write (or datagram) sizes, bytes.
    pub write_sizes: Vec<usize>,
    /// How many times each cell is measured (at least once).
    pub repeat: u32,
    /// A cell needing more write or send calls than this is skipped.
    pub max_calls: u64,
}

/// One cell of the plan.
#[derive(Clone, Copy, Debug)]
pub struct Cell {
    /// TCP or UDP.
    pub proto: Proto,
    /// Bytes to move.
    pub bytes: u64,
    /// Bytes per write or datagram.
    pub write_size: usize,
}

impl Plan {
    /// The cells to run, each `repeat` times, by protocol, then write size, then size; and
    /// the cells skipped for needing more than `max_calls` calls.
    pub fn cells(&self) -> (Vec<Cell>, Vec<Cell>) {
        let (mut run, mut skipped) = (Vec::new(), Vec::new());
        for &proto in &self.protos {
            for &write_size in &self.write_sizes {
                for &bytes in &self.sizes {
                    let c = Cell {
                        proto,
                        bytes,
                        write_size,
                    };
                    if bytes.div_ceil(write_size.max(1) as u64) > self.max_calls {
                        skipped.push(c);
                    } else {
                        for _ in 0..self.repeat.max(1) {
                            run.push(c);
                        }
                    }
                }
            }
        }
        (run, skipped)
    }
}
