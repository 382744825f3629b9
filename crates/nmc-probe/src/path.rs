//! `nmc path`: a shaped path to try the instruments on, where the kernel has no `netem`.
//!
//! Two network namespaces, `NAME-a` and `NAME-b`, each with a TUN device `tun0`, joined by the
//! user-space line of [`link`]: the one-way delay, line rate, loss and queue limit asked for,
//! the same on each direction. Their addresses exist only inside them, 198.18.0.1 and
//! 198.18.0.2 (RFC 2544's benchmarking range) and 2001:2::1 and 2001:2::2 (RFC 5180's): the
//! link has no end in the host's namespace, so nothing sent on it can leave this machine.
//! A server runs in one (`ip netns exec NAME-b nmc serve`), a client in the other. Dropping the
//! [`Path`] stops the line and deletes both namespaces (which deletes the devices).
//!
//! The probe's own tests shape their paths with it where the kernel has no netem.

pub mod link;
pub mod netns;

pub use link::{DirStats, Line, LinkParams, NETEM_LIMIT, TunLink};

use std::net::{Ipv4Addr, Ipv6Addr};

/// Side a's IPv4 address (RFC 2544's benchmarking range, 198.18.0.0/15).
pub const ADDR_A: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 1);
/// Side b's IPv4 address.
pub const ADDR_B: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 2);
/// Side a's IPv6 address (RFC 5180's benchmarking range, 2001:2::/48).
pub const ADDR6_A: Ipv6Addr = Ipv6Addr::new(0x2001, 2, 0, 0, 0, 0, 0, 1);
/// Side b's IPv6 address.
pub const ADDR6_B: Ipv6Addr = Ipv6Addr::new(0x2001, 2, 0, 0, 0, 0, 0, 2);
/// The TUN device's name in each namespace.
pub const DEVICE: &str = "tun0";

/// Why a path could not be made, in one line.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    /// Not root: namespaces and TUN devices need `CAP_NET_ADMIN` (and `CAP_SYS_ADMIN`).
    #[error(
        "a path needs root (network namespaces and TUN devices need CAP_NET_ADMIN): run it with sudo"
    )]
    NotRoot,
    /// iproute2's `ip` is missing.
    #[error("`ip` (iproute2) is not installed: apt-get install iproute2")]
    NoIp,
    /// A namespace of that name is there already.
    #[error(
        "network namespace {0} exists already: another `nmc path` uses this --name, or one was killed; choose another --name or remove it (ip netns del {0})"
    )]
    Exists(String),
    /// The name would not make valid namespace names.
    #[error("--name `{0}`: 1 to 40 letters, digits, `-` or `_`")]
    BadName(String),
    /// `/dev/net/tun` could not be opened.
    #[error("cannot open /dev/net/tun in {0}: {1} (modprobe tun?)")]
    Tun(String, std::io::Error),
    /// Another step of the setup failed (the `ip` command and its message).
    #[error("cannot set up the path: {0}")]
    Setup(String),
}

/// A running path: two namespaces and the line between them.
pub struct Path {
    /// Side a's namespace (`NAME-a`).
    pub a: String,
    /// Side b's namespace (`NAME-b`).
    pub b: String,
    made: Vec<String>,
    line: Option<TunLink>,
}

impl Path {
    /// Makes namespaces `NAME-a` and `NAME-b`, their devices and addresses, and starts the line:
    /// a → b as `ab` says, b → a as `ba` says. `ipv6`: give the devices IPv6 addresses too (else
    /// IPv6 is off in both namespaces, so the kernel's own IPv6 traffic stays off a slow line).
    pub fn create(
        name: &str,
        ab: LinkParams,
        ba: LinkParams,
        ipv6: bool,
    ) -> Result<Path, PathError> {
        if name.is_empty()
            || name.len() > 40
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(PathError::BadName(name.into()));
        }
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err(PathError::NotRoot);
        }
        if std::process::Command::new("ip").arg("-V").output().is_err() {
            return Err(PathError::NoIp);
        }
        let mut path = Path {
            a: format!("{name}-a"),
            b: format!("{name}-b"),
            made: Vec::new(),
            line: None,
        };
        for ns in [&path.a, &path.b] {
            if netns::exists(ns) {
                return Err(PathError::Exists(ns.clone()));
            }
        }
        let (a, b) = (path.a.clone(), path.b.clone());
        for ns in [&a, &b] {
            netns::run(&["ip", "netns", "add", ns]).map_err(PathError::Setup)?;
            path.made.push(ns.clone());
            if !ipv6 {
                for conf in ["all", "default"] {
                    netns::sysctl(ns, &format!("net/ipv6/conf/{conf}/disable_ipv6"), "1")
                        .map_err(PathError::Setup)?;
                }
            }
            netns::run(&["ip", "-n", ns, "link", "set", "lo", "up"]).map_err(PathError::Setup)?;
        }
        let open = |ns: &str| {
            netns::in_netns(ns, || link::open_tun(DEVICE))
                .map_err(|e| PathError::Tun(ns.to_string(), e))
        };
        let (ta, tb) = (open(&a)?, open(&b)?);
        for (ns, me, peer, me6) in [(&a, ADDR_A, ADDR_B, ADDR6_A), (&b, ADDR_B, ADDR_A, ADDR6_B)] {
            let (me, peer) = (me.to_string(), peer.to_string());
            netns::run(&[
                "ip", "-n", ns, "addr", "add", &me, "peer", &peer, "dev", DEVICE,
            ])
            .map_err(PathError::Setup)?;
            if ipv6 {
                netns::run(&[
                    "ip",
                    "-n",
                    ns,
                    "addr",
                    "add",
                    &format!("{me6}/64"),
                    "dev",
                    DEVICE,
                    "nodad",
                ])
                .map_err(PathError::Setup)?;
            }
            netns::run(&["ip", "-n", ns, "link", "set", DEVICE, "up"]).map_err(PathError::Setup)?;
        }
        path.line = Some(
            TunLink::start(ta, tb, ab, ba)
                .map_err(|e| PathError::Setup(format!("cannot start the line: {e}")))?,
        );
        Ok(path)
    }

    /// The counts so far (a→b, b→a).
    pub fn stats(&self) -> [DirStats; 2] {
        self.line.as_ref().map(TunLink::stats).unwrap_or_default()
    }

    /// Stops the line, deletes the namespaces, and returns the last counts (a→b, b→a).
    pub fn stop(mut self) -> [DirStats; 2] {
        let last = self.line.take().map(TunLink::stop).unwrap_or_default();
        self.remove();
        last
    }

    fn remove(&mut self) {
        drop(self.line.take());
        for ns in self.made.drain(..) {
            let _ = netns::run(&["ip", "netns", "del", &ns]);
        }
    }
}

impl Drop for Path {
    fn drop(&mut self) {
        self.remove();
    }
}
