//! # nmc-serve: what every nmc server does before it does its own work
//!
//! nmc has three servers a stranger can reach: `nmc echo serve` (UDP echo, and with `--pump` a
//! TCP side for `nmc pump`), `nmc sink` (RFC 508's discard sink, TCP and UDP) and `nmc cost
//! --serve` (RFC 392's discard sink). Each used to carry its own accept loop, and each got a
//! different subset of the defences wrong (issue 33: no cap, an idle timer every byte restarted,
//! death at the descriptor limit, a secret on one server only). This crate is the one place
//! those defences live, so that a fix is made once:
//!
//! | module | what |
//! | --- | --- |
//! | [`auth`] | the shared secret ([`Key`], HMAC-SHA256) and the TCP challenge-response |
//! | [`mux`] | several instruments on one port (`nmc serve`): the [`mux::Service`] an instrument offers, told apart by its first four bytes |
//! | [`dial`] | a client's sockets: `--bind`, `--dscp`, `--congestion`, `--window` set before connecting |
//! | [`bind`] | one port for UDP and TCP ([`bind::udp_and_tcp`]), port 0 picked again when the kernel's UDP pick is taken for TCP |
//! | [`opening`] | how a UDP run opens: an exchange the server answers, and a one-line [`opening::Silence`] when none does |
//! | [`gate`] | the accept loop: total and per-source caps, a minimum rate per window that a slow sender cannot extend, a handshake deadline, descriptor exhaustion survived; [`gate::Conn`] is the guarded stream a server's handler reads and writes |
//!
//! **Why a crate of its own**: `nmc-cost` depends on no other nmc crate and `nmc-realtime` sits
//! above `nmc-probe`; the gate and the key have to be below all three, and they have nothing to
//! do with the simulator (`nmc-sim`). The key moved here from `nmc-probe::wire`, which re-exports
//! it, so the echo server's datagram tags and the TCP handshake use one HMAC code path.

#![warn(missing_docs)]

pub mod auth;
pub mod bind;
pub mod dial;
pub mod gate;
pub mod mux;
pub mod opening;

pub use auth::{Key, KeyError};

/// Whether a UDP send's error says this host dropped the datagram: a firewall rule on its way
/// out (`EPERM`: nftables' or iptables' drop in the output hook) or no buffer for it
/// (`ENOBUFS`). It is a datagram lost, as one lost on the path is, and a run goes on (issue 58
/// §5: the pump ended at the first one with "Operation not permitted").
pub fn dropped_here(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::PermissionDenied || e.raw_os_error() == Some(libc::ENOBUFS)
}

pub use gate::{Conn, Gate, GateCounters, Limits, Tab};
pub use mux::{Service, Services};

#[cfg(test)]
mod tests {
    #[test]
    fn a_firewalls_drop_and_no_buffer_are_losses_here() {
        use std::io::Error;
        assert!(super::dropped_here(&Error::from_raw_os_error(libc::EPERM)));
        assert!(super::dropped_here(&Error::from_raw_os_error(
            libc::ENOBUFS
        )));
        assert!(!super::dropped_here(&Error::from_raw_os_error(
            libc::ECONNREFUSED
        )));
    }
}
