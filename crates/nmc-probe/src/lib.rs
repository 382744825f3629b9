//! # nmc-probe: RFC 889's delay-versus-length experiment on today's networks
//!
//! Mills (RFC 889 §2, 1983) sent 512 ICMP Echo volleys of random length (uniform on 0..256 octets,
//! rounded up to 40), one in flight at a time, recorded each round trip normalised to one way, and
//! fitted delay against length by least squares: one line, or two split at 126 octets on ARPANET
//! paths, each summarised by its delays at the ends and the rate Δbits / Δdelay. This crate does
//! the same against a UDP echo server of its own or any host that answers ping, and writes the
//! trace that the retransmission-timeout evaluation (`nmc-rto`) replays.
//!
//! ## Start here
//!
//! | module | what |
//! | --- | --- |
//! | [`wire`] | the packet formats (documented there, byte by byte) and the HMAC tag |
//! | [`server`] | the echo server's core: reply or drop, and why; rate limits; counters |
//! | [`probe`] | the probe's core: lengths, pacing, timeouts; loss, duplicates, reordering |
//! | [`pump`] | `nmc pump`: K&O's N-outstanding message pump and the server's RFNM sink |
//! | [`load`] | latency under load (flent's RRUL): pump flows both ways with the echo probe, one time series |
//! | [`analysis`] | delay statistics and the least-squares fits, with Mills' rate |
//! | [`trace`] | the trace CSV (`send_time_ns,length_bytes,delay_ns,…`), the contract with `nmc-rto` |
//! | [`report`] | `summary.json`, the text report, the SVG scatter plot |
//! | [`udp`], [`icmp`] | socket drivers: the server loop and the two probe transports |
//! | [`time`] | integer nanoseconds (`nmc_sim::Nanos`, re-exported), the monotonic clock, timer resolution |
//! | [`signal`] | Ctrl-C as a stop flag |
//! | `path` | `nmc path` (Linux): two network namespaces joined by a user-space line with the delay, rate, loss and queue asked for, for a shaped path where the kernel has no netem |
//!
//! The cores ([`server::ServerCore`], [`probe::Probe`]) do no I/O and read no clock: every input
//! carries the time, and they say what to send and when to wake up (`poll_transmit`, `poll_at`,
//! `handle_reply`, `handle_timeout`), in the manner of smoltcp and quinn-proto. The drivers are
//! the only code that touches sockets and clocks, and they are thin.
//!
//! ## Units and definitions, once
//!
//! - **Length** is the whole IP datagram in bytes: IPv4 header (20) + UDP (8) or ICMP (8) header +
//!   payload, as RFC 889 counts it ("the minimum datagram size for an ICMP message containing
//!   timestamps"). Over IPv6 the IP header is 40. Lengths below a floor are rounded up to it: 40 as
//!   Mills did, or the transport's smallest packet if larger (UDP: 60, 76 with a secret; ICMP: 40;
//!   ICMPv6: 60).
//! - **Delay** is one-way-normalised: round trip / 2, "normalized to one-way delay" (RFC 889 §2.1).
//!   The round trip is kept too, and includes the echo server's turnaround (which UDP replies
//!   report separately).
//! - **Lost**: unanswered for `timeout` (RFC 889 §3.1: thirty seconds).
//! - **Rate** of a fitted line: Δbits / Δdelay = 8 / slope, bit/s. On a path whose bottleneck is
//!   one link of R bit/s in each direction, this is R: each byte costs 8/R seconds each way, so
//!   8/R of one-way-normalised delay.
//! - **Time**: nanoseconds on the monotonic clock (`CLOCK_MONOTONIC`), from the start of the run.
//!   The probe measures and reports the clock's resolution before it starts.
//!
//! ## Left out, on purpose
//!
//! - Kernel receive timestamps (`SO_TIMESTAMPNS`): user-space stamps taken right after the
//!   blocking `recv` returns add a few microseconds of wake-up latency, far below what the
//!   experiment resolves (the 1983 Fuzzball's clock ticked in milliseconds).

#![warn(missing_docs)]

pub mod analysis;
pub mod driver;
pub mod icmp;
pub mod load;
#[cfg(target_os = "linux")]
pub mod path;
pub mod probe;
pub mod pump;
pub mod report;
pub mod server;
pub mod signal;
pub mod tcp_info;
pub mod time;
pub mod trace;
pub mod udp;
pub mod wire;

pub use driver::{IntervalLine, ProbeRun, Transport, Watch};
pub use probe::{LengthSpec, Pacing, ProbeConfig};
pub use report::Summary;
pub use server::{ServerConfig, ServerCounters};
pub use wire::Key;

use std::net::SocketAddr;
use thiserror::Error;

/// Everything that can stop a probe or a server.
#[derive(Debug, Error)]
pub enum Error {
    /// The probe's settings or a length specification were rejected.
    #[error(transparent)]
    Probe(#[from] probe::ProbeError),
    /// A UDP echo packet could not be encoded or checked, or the secret was refused.
    #[error(transparent)]
    Wire(#[from] wire::WireError),
    /// The trace CSV could not be written or read.
    #[error(transparent)]
    Trace(#[from] trace::TraceError),
    /// The UDP socket could not be bound to this local address.
    #[error("cannot bind UDP socket to {0}: {1}")]
    Bind(SocketAddr, #[source] std::io::Error),
    /// The server's TCP listener for `nmc pump` could not be bound to this address.
    #[error("cannot listen on TCP {0} for the pump: {1}")]
    BindTcp(SocketAddr, #[source] std::io::Error),
    /// A client socket option the system refused (`--bind`, `--dscp`, `--congestion`,
    /// `--window`): one line that names it.
    #[error("{0}")]
    SocketOption(String),
    /// A socket operation failed; the string names the operation ("send", "set timeout", ...).
    #[error("{0}: {1}")]
    Io(&'static str, #[source] std::io::Error),
    /// Neither an unprivileged ICMP socket nor a raw one could be opened, for want of permission.
    #[error(
        "ICMP echo is not allowed here: group {gid} is outside net.ipv4.ping_group_range ({range}) and raw sockets need root or CAP_NET_RAW; run as root, widen the range (sysctl -w net.ipv4.ping_group_range=\"0 2147483647\"), or probe an `nmc echo serve` over UDP instead (drop --icmp)"
    )]
    IcmpNotPermitted {
        /// The caller's real group id.
        gid: u32,
        /// The two bounds read from `/proc/sys/net/ipv4/ping_group_range`, space-separated, or
        /// "unknown" if that file could not be read.
        range: String,
    },
    /// An output file or directory (the path given) could not be written.
    #[error("cannot write {0}: {1}")]
    Write(String, #[source] std::io::Error),
    /// A chart (the path given) could not be drawn; the second string is the plotter's message.
    #[error("cannot draw {0}: {1}")]
    Plot(String, String),
    /// The pump's settings were rejected, or a message went unanswered too long.
    #[error(transparent)]
    PumpConfig(#[from] pump::PumpError),
    /// A pump run that could not start or go on, said in one line.
    #[error("{0}")]
    Pump(String),
    /// Issue 58 §3: a pump that could not reach its server, or that the server refused
    /// (nothing listens, no answer, a secret wanted or not matched, its limits, a reverse
    /// request refused), before anything was measured; said in one line.
    #[error("{0}")]
    Unreachable(String),
    /// Latency under load ([`load`]): settings refused, or a thread lost, said in one line.
    #[error("{0}")]
    Load(String),
}
