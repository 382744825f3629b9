//! UDP socket drivers: the echo server ([`EchoServer`]) and the UDP probe ([`probe`]).
//!
//! Both are thin: the decisions are in [`crate::server::ServerCore`] and [`crate::probe::Probe`].
//! Blocking `std::net::UdpSocket`s with read timeouts, one thread each (see [`crate::driver`] for
//! why not async).

use crate::Error;
use crate::driver::{self, EchoSocket, ProbeRun, Received, Transport, Watch};
use crate::probe::{MILLS_MIN_LENGTH, ProbeConfig, Transmit};
use crate::pump::{
    self,
    sink::{SinkConfig, SinkCore, SinkCounters, SinkVerdict},
};
use crate::server::{DropReason, ServerConfig, ServerCore, ServerCounters};
use crate::time::{Clock, Nanos, unix_now_ns};
use crate::wire::{self, Key, MAX_UDP_PAYLOAD};
use std::io;
use std::net::{SocketAddr, TcpListener, UdpSocket};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Default UDP port of the echo server. 8890: RFC 889's number, one up; unprivileged.
pub const DEFAULT_PORT: u16 = 8890;

/// Bytes of IP and UDP header in front of the payload: 20 + 8 over IPv4, 40 + 8 over IPv6.
pub fn header_bytes(target: &SocketAddr) -> u32 {
    if target.is_ipv4() { 28 } else { 48 }
}

/// Smallest and largest datagram (IP length, bytes) a UDP probe to `target` can send: the floor
/// is the larger of Mills' 40 and IP + UDP + the echo header (+ tag with a secret).
pub fn length_limits(target: &SocketAddr, tagged: bool) -> (u32, u32) {
    let overhead = header_bytes(target);
    (
        MILLS_MIN_LENGTH.max(overhead + wire::min_udp_payload(tagged) as u32),
        overhead + MAX_UDP_PAYLOAD as u32,
    )
}

/// How the server runs, besides its protocol limits.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The server's protocol limits: payload size, rate limits, sources tracked, tag required.
    pub config: ServerConfig,
    /// The shared secret: replies are tagged with it (and requests must be, when
    /// `config.require_tag`).
    pub key: Option<Key>,
    /// Log a one-line summary this often (None: only at the end).
    pub log_interval: Option<Duration>,
    /// Stop by itself after this long (None: run until stopped).
    pub duration: Option<Duration>,
    /// Also serve `nmc pump` (K&O's message pump): its UDP datagrams on this socket, and TCP on
    /// the same port number. See [`crate::pump`].
    pub pump: bool,
    /// The TCP side's gate (caps, per-source limit, minimum rate; the secret is `key`).
    pub limits: nmc_serve::Limits,
    /// Other instruments served on this port (`nmc serve`: the stream and cost sinks), asked in
    /// order for each datagram that is neither an echo request nor a pump datagram, and for
    /// each TCP connection that does not open with the pump's magic ([`nmc_serve::mux`]).
    /// Needs `pump` (the TCP side).
    pub services: nmc_serve::Services,
}

/// A bound echo server, ready to [`EchoServer::run`].
#[derive(Debug)]
pub struct EchoServer {
    sock: UdpSocket,
    core: ServerCore,
    opts: ServeOptions,
    /// The pump's TCP listener and UDP sink, with `--pump`.
    pump: Option<(TcpListener, SinkCore)>,
    /// The first word of its log lines and its gate's ("echo serve", "nmc serve").
    name: &'static str,
    /// Where the gate's lines go (default: stderr).
    gate_log: GateLog,
}

/// The gate's log line writer, if not stderr.
#[derive(Clone, Default)]
struct GateLog(Option<nmc_serve::gate::Log>);

impl std::fmt::Debug for GateLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "GateLog(custom)"
        } else {
            "GateLog(stderr)"
        })
    }
}

impl EchoServer {
    /// Binds the listening socket. Port 0 picks a free port: see [`EchoServer::local_addr`].
    pub fn bind(listen: SocketAddr, opts: ServeOptions) -> Result<EchoServer, Error> {
        let (sock, tcp) = if opts.pump {
            // The same port number for TCP as for UDP (port 0: one both can have).
            let (sock, tcp) = nmc_serve::bind::udp_and_tcp(listen).map_err(|e| match e {
                nmc_serve::bind::BindError::Udp(a, e) => Error::Bind(a, e),
                nmc_serve::bind::BindError::Tcp(a, e) => Error::BindTcp(a, e),
            })?;
            (sock, Some(tcp))
        } else {
            (
                nmc_serve::bind::udp(listen).map_err(|e| Error::Bind(listen, e))?,
                None,
            )
        };
        sock.set_read_timeout(Some(driver::MAX_WAIT))
            .map_err(|e| Error::Io("set timeout", e))?;
        let core = ServerCore::new(opts.config.clone(), opts.key.clone());
        let pump = tcp.map(|tcp| (tcp, SinkCore::new(SinkConfig::default())));
        Ok(EchoServer {
            sock,
            core,
            opts,
            pump,
            name: "echo serve",
            gate_log: GateLog::default(),
        })
    }

    /// The address the server's UDP socket is bound to (the port picked, if 0 was asked for).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.sock.local_addr()
    }

    /// A handle on the serving UDP socket, for a service that sends from it (a reverse stream).
    pub fn socket(&self) -> io::Result<UdpSocket> {
        self.sock.try_clone()
    }

    /// Names the server in its log lines (default "echo serve"), and sends the gate's lines,
    /// which are logged from connection threads, to `gate_log` rather than stderr.
    pub fn with_log(mut self, name: &'static str, gate_log: nmc_serve::gate::Log) -> EchoServer {
        self.name = name;
        self.gate_log = GateLog(Some(gate_log));
        self
    }

    /// Adds instruments served on this port ([`ServeOptions::services`]).
    pub fn with_services(mut self, services: nmc_serve::Services) -> EchoServer {
        self.opts.services = services;
        self
    }

    /// Serves until `stop` is set or the duration has passed, writing a summary line to `log`
    /// every log interval and once at the end. Returns the final counters.
    pub fn run(
        mut self,
        stop: &AtomicBool,
        log: &mut dyn FnMut(&str),
    ) -> Result<ServerCounters, Error> {
        let name = self.name;
        let clock = Clock::new();
        // Larger than any UDP datagram, so an oversized one is seen whole, never truncated.
        let mut buf = vec![0u8; 65_536];
        let deadline = self.opts.duration.map(Nanos::from_duration);
        let interval = self.opts.log_interval.map(Nanos::from_duration);
        let mut next_log = interval;
        let addr = self
            .local_addr()
            .map_err(|e| Error::Io("local address", e))?;
        self.announce(addr, log);
        let (tcp, mut sink) = match self.pump.take() {
            Some((l, s)) => (Some(l), Some(s)),
            None => (None, None),
        };
        let tcp_counters = Arc::new(Mutex::new(SinkCounters::default()));
        let tcp_stop = Arc::new(AtomicBool::new(false));
        let gate = nmc_serve::Gate::new(
            name,
            self.opts.limits,
            self.opts.key.clone(),
            self.gate_log
                .0
                .clone()
                .unwrap_or_else(|| Arc::new(|l: &str| eprintln!("{l}"))),
        );
        // `nmc pump --reverse` over UDP sends from this socket's port (a clone of it).
        let reverse = match &tcp {
            Some(_) => Some(crate::pump::reverse::UdpSide::new(
                self.sock
                    .try_clone()
                    .map_err(|e| Error::Io("clone the UDP socket", e))?,
                self.opts.key.clone(),
            )),
            None => None,
        };
        let tcp_thread = tcp.map(|l| {
            let (stop, counters, gate) = (tcp_stop.clone(), tcp_counters.clone(), gate.clone());
            let udp = reverse.clone();
            let services = self.opts.services.clone();
            std::thread::spawn(move || {
                crate::pump::net::serve_tcp(l, &gate, &stop, counters, udp, services)
            })
        });
        let pump_counters = |sink: &Option<SinkCore>| {
            sink.as_ref().map(|s| {
                let mut c = s.counters();
                c.add(&tcp_counters.lock().unwrap_or_else(|p| p.into_inner()));
                let g = gate.counters().snapshot();
                c.connections = g.accepted;
                c.connections_refused = g.refused();
                c
            })
        };
        let mut recv_errors = 0u64;
        loop {
            let now = clock.now();
            if stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| now >= d) {
                break;
            }
            if let (Some(at), Some(step)) = (next_log, interval)
                && now >= at
            {
                log(&format!(
                    "{name}: up {} {} sources {}",
                    now.human(),
                    self.core.counters(),
                    self.core.tracked_sources()
                ));
                if let Some(c) = pump_counters(&sink) {
                    log(&format!("{name}: {c}"));
                    log(&format!("{name}: {}", gate.counters().snapshot()));
                }
                for line in self.opts.services.summaries() {
                    log(&format!("{name}: {line}"));
                }
                next_log = Some(at.saturating_add(step).max(now));
            }
            let (n, src) = match driver::recv_within(self.sock.as_fd(), driver::MAX_WAIT, || {
                self.sock.recv_from(&mut buf)
            }) {
                Ok(Some(x)) => x,
                Ok(None) => continue,
                // An ICMP error about an earlier reply, reported on this socket.
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::ConnectionRefused | io::ErrorKind::ConnectionReset
                    ) =>
                {
                    continue;
                }
                Err(e) => {
                    // Never die of a receive error; but do not spin on a persistent one.
                    recv_errors += 1;
                    if recv_errors % 1000 == 1 {
                        log(&format!(
                            "{name}: receive error ({recv_errors} so far): {e}"
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(10));
                    continue;
                }
            };
            let rx = clock.now();
            let pkt = &mut buf[..n];
            if let Some(sink) = sink.as_mut()
                && pump::wire::is_pump(pkt)
            {
                self.pump_datagram(sink, reverse.as_deref(), rx, src, pkt);
                continue;
            }
            if !self.opts.services.is_empty()
                && pkt.get(..4) != Some(&wire::MAGIC[..])
                && self.opts.services.datagram(&self.sock, src, pkt)
            {
                continue;
            }
            self.answer_echo(&clock, rx, src, pkt, log);
        }
        tcp_stop.store(true, Ordering::Relaxed);
        if let Some(t) = tcp_thread {
            let _ = t.join();
        }
        let mut c = self.core.counters();
        log(&format!(
            "{name}: stopped after {} {} sources {}",
            clock.now().human(),
            c,
            self.core.tracked_sources()
        ));
        if let Some(p) = pump_counters(&sink) {
            log(&format!("{name}: {p}"));
            log(&format!("{name}: {}", gate.counters().snapshot()));
            c.pump = p;
        }
        for line in self.opts.services.summaries() {
            log(&format!("{name}: {line}"));
        }
        Ok(c)
    }

    /// The server's opening lines: where it listens, its secret and rate limits, and the pump
    /// it also serves.
    fn announce(&self, addr: SocketAddr, log: &mut dyn FnMut(&str)) {
        let name = self.name;
        log(&format!(
            "{name}: listening on udp {addr}; secret {}; per-source {}/s burst {}; global {}/s; max payload {} bytes",
            if self.core.config().require_tag {
                "required"
            } else if self.opts.key.is_some() {
                "used for replies only"
            } else {
                "none"
            },
            self.core.config().rate_per_source,
            self.core.config().burst_per_source,
            self.core.config().global_rate,
            self.core.config().max_payload,
        ));
        if self.pump.is_some() {
            log(&format!(
                "{name}: also serving nmc pump on {} {addr} (a RFNM for each message); tcp: {}",
                if self.opts.key.is_some() {
                    "udp (each datagram tagged with the secret) and tcp"
                } else {
                    "udp and tcp"
                },
                self.opts.limits.describe(self.opts.key.as_ref())
            ));
        }
    }

    /// A pump datagram from `src`, received at `rx`: refused and counted without its tag when
    /// the server has a secret; a reverse run's, routed to it; a message's packet, given to the
    /// sink, whose RFNM goes back.
    fn pump_datagram(
        &self,
        sink: &mut SinkCore,
        reverse: Option<&crate::pump::reverse::UdpSide>,
        rx: Nanos,
        src: SocketAddr,
        pkt: &[u8],
    ) {
        // With a secret, a pump datagram carries its tag; one without is counted.
        let key = self.opts.key.as_ref();
        let Some(d) = pump::wire::open(pkt, key) else {
            sink.note_unauthenticated();
            return;
        };
        if let Some(r) = reverse
            && r.route(std::time::Instant::now(), src, d)
        {
            return;
        }
        if let SinkVerdict::Rfnm(rfnm) = sink.handle_datagram(rx, src, d) {
            let (b, n) = pump::wire::sealed_header(&rfnm, key);
            let _ = self.sock.send_to(&b[..n], src);
        }
    }

    /// An echo request from `src`, received at `rx`: answered (the reply sealed with the
    /// server's times), or dropped by the server's rules; a replayed or stale tagged request is
    /// logged the first time and then at powers of two, so a flood of them cannot fill the log.
    fn answer_echo(
        &mut self,
        clock: &Clock,
        rx: Nanos,
        src: SocketAddr,
        pkt: &mut [u8],
        log: &mut dyn FnMut(&str),
    ) {
        let name = self.name;
        match self.core.handle_datagram(rx, unix_now_ns(), src, pkt) {
            crate::server::Verdict::Reply => {
                self.core.seal_reply(pkt, clock.now());
                if self.sock.send_to(pkt, src).is_err() {
                    self.core.note_send_error();
                }
            }
            // A replayed or stale tagged request is someone else's: logged the first time
            // and then at powers of two, so a flood of them cannot fill the log.
            crate::server::Verdict::Drop(why @ (DropReason::Replayed | DropReason::Stale)) => {
                let c = self.core.counters();
                let (n, what) = if why == DropReason::Replayed {
                    (
                        c.replayed,
                        "a copy of a request already answered (a replay)".to_string(),
                    )
                } else {
                    (
                        c.stale,
                        format!(
                            "stale: sent more than {} s from this server's clock (a replay, or a client whose clock is off)",
                            wire::FRESHNESS.as_secs()
                        ),
                    )
                };
                if n.is_power_of_two() {
                    log(&format!(
                        "{name}: {src}: tagged request not answered: {what} ({n} so far)"
                    ));
                }
            }
            crate::server::Verdict::Drop(_) => {}
        }
    }
}

struct UdpProbeSocket {
    sock: UdpSocket,
    clock: Clock,
    key: Option<Key>,
    overhead: u32,
    buf: Vec<u8>,
}

impl EchoSocket for UdpProbeSocket {
    fn overhead(&self) -> u32 {
        self.overhead
    }

    fn local(&self) -> Option<std::net::SocketAddr> {
        self.sock.local_addr().ok()
    }

    fn send(&mut self, tx: &Transmit) -> io::Result<()> {
        let payload = (tx.length - self.overhead) as usize;
        let n = wire::encode_request(
            &mut self.buf,
            payload,
            tx.seq,
            tx.stamp.0,
            self.key.as_ref(),
        )
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        self.sock.send(&self.buf[..n])?;
        Ok(())
    }

    fn recv(&mut self, timeout: Duration) -> io::Result<Option<Received>> {
        let Some(n) =
            driver::recv_within(self.sock.as_fd(), timeout, || self.sock.recv(&mut self.buf))?
        else {
            return Ok(None);
        };
        let at = self.clock.now();
        let pkt = &self.buf[..n];
        let Ok(h) = wire::decode(pkt) else {
            return Ok(Some(Received::Other));
        };
        if !h.is_reply() {
            return Ok(Some(Received::Other));
        }
        if let Some(key) = &self.key
            && wire::verify(pkt, &h, key).is_err()
        {
            return Ok(Some(Received::Unauthenticated));
        }
        Ok(Some(Received::Reply {
            at,
            seq: h.seq,
            stamp: Nanos(h.client_tx_ns),
            turnaround: Some(Nanos(u64::from(h.server_turnaround_ns))),
            length: n as u32 + self.overhead,
            // 0: a server whose wall clock could not be read (`time::unix_now_ns`).
            server_rx_unix_ns: (h.server_rx_unix_ns != 0).then_some(h.server_rx_unix_ns),
            server_count: wire::reply_count(pkt, &h),
        }))
    }
}

/// Runs a probe against the UDP echo server at `target`. The driver sets `cfg.floor` to the
/// larger of Mills' 40 and the smallest packet this format allows (60 bytes over IPv4, 76 with a
/// secret), and `cfg.max_length` to the largest UDP datagram.
pub fn probe(
    target: SocketAddr,
    cfg: ProbeConfig,
    key: Option<Key>,
    stop: &AtomicBool,
    watch: Watch<'_>,
) -> Result<ProbeRun, Error> {
    let local: SocketAddr = if target.is_ipv4() {
        SocketAddr::from(([0, 0, 0, 0], 0))
    } else {
        SocketAddr::from(([0u16; 8], 0))
    };
    let sock = UdpSocket::bind(local).map_err(|e| Error::Bind(local, e))?;
    sock.connect(target).map_err(|e| Error::Io("connect", e))?;
    probe_on(sock, cfg, key, stop, watch)
}

/// Like [`probe`], on an already bound and connected socket (tests use this to create the
/// socket inside a network namespace).
pub fn probe_on(
    sock: UdpSocket,
    mut cfg: ProbeConfig,
    key: Option<Key>,
    stop: &AtomicBool,
    watch: Watch<'_>,
) -> Result<ProbeRun, Error> {
    let target = sock.peer_addr().map_err(|e| Error::Io("peer address", e))?;
    sock.set_nonblocking(true)
        .map_err(|e| Error::Io("set non-blocking", e))?;
    let overhead = header_bytes(&target);
    (cfg.floor, cfg.max_length) = length_limits(&target, key.is_some());
    let clock = Clock::new();
    let mut s = UdpProbeSocket {
        sock,
        clock,
        key,
        overhead,
        buf: vec![0u8; 65_536],
    };
    driver::run(
        &mut s,
        target.to_string(),
        Transport::Udp,
        cfg,
        clock,
        stop,
        watch,
    )
}
