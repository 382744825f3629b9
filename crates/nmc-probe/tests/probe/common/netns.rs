//! Network namespaces joined by a shaped link (veth with `tc netem`, or `nmc path`'s two TUN
//! devices and user-space line, `nmc_probe::path`): Linux only, like the tests that use them.

use super::*;
use std::process::Command;

use nmc_probe::path::netns::run;
// Not every test binary that includes these helpers uses these two.
#[allow(unused_imports)]
pub use nmc_probe::path::netns::{in_netns, sysctl};
use nmc_probe::path::{DirStats, LinkParams, Path};

const PREFIX: &str = "nmcprobe";

/// Two namespaces, `a` (the probe's) and `b` (the server's), joined by a veth pair, with
/// addresses from 198.18.0.0/15 (RFC 2544's benchmarking range) that exist only inside them:
/// the link has no end in the host's namespace, so nothing sent on it can leave this machine.
/// Dropping the pair deletes both namespaces (which deletes the veth and its qdiscs), also when
/// the test panics.
pub struct NetnsPair {
    pub a: String,
    pub b: String,
    pub addr_a: &'static str,
    pub addr_b: &'static str,
    pub kind: LinkKind,
    path: Option<Path>,
}

/// How the two namespaces are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    /// A veth pair: a kernel Ethernet link, shaped with `tc netem`.
    Veth,
    /// Two TUN devices joined by `nmc path`'s user-space line ([`Path`]).
    Tun,
}

/// How a shaped path was made, for the test's log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shaper {
    Netem,
    TunEmulator,
}

impl NetnsPair {
    /// Makes the pair, or says why it cannot (not root, no `ip`/`tc`, no netns support).
    pub fn create(tag: &str, kind: LinkKind) -> Result<NetnsPair, String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err(
                "not running as root (network namespaces and tc need CAP_NET_ADMIN)".into(),
            );
        }
        for tool in ["ip", "tc"] {
            if Command::new(tool).arg("-V").output().is_err() {
                return Err(format!("`{tool}` (iproute2) is not installed"));
            }
        }
        remove_stale();
        let pid = std::process::id();
        let mut pair = NetnsPair {
            a: format!("{PREFIX}-{pid}-{tag}-a"),
            b: format!("{PREFIX}-{pid}-{tag}-b"),
            addr_a: "198.18.0.1",
            addr_b: "198.18.0.2",
            kind,
            path: None,
        };
        if kind == LinkKind::Veth {
            pair.setup()
                .map_err(|e| format!("cannot set up namespaces: {e}"))?;
        }
        Ok(pair)
    }

    fn setup(&mut self) -> Result<(), String> {
        let (a, b) = (self.a.clone(), self.b.clone());
        let (a, b) = (a.as_str(), b.as_str());
        run(&["ip", "netns", "add", a])?;
        run(&["ip", "netns", "add", b])?;
        for ns in [a, b] {
            // No IPv6 on the link: its router solicitations and MLD reports would queue on the
            // 9600 bit/s link ahead of the volleys.
            sysctl(ns, "net/ipv6/conf/all/disable_ipv6", "1")?;
            sysctl(ns, "net/ipv6/conf/default/disable_ipv6", "1")?;
            run(&["ip", "-n", ns, "link", "set", "lo", "up"])?;
        }
        run(&[
            "ip", "link", "add", "va", "netns", a, "type", "veth", "peer", "name", "vb", "netns", b,
        ])?;
        run(&[
            "ip",
            "-n",
            a,
            "link",
            "set",
            "va",
            "address",
            "02:00:00:00:00:0a",
        ])?;
        run(&[
            "ip",
            "-n",
            b,
            "link",
            "set",
            "vb",
            "address",
            "02:00:00:00:00:0b",
        ])?;
        run(&[
            "ip",
            "-n",
            a,
            "addr",
            "add",
            &format!("{}/30", self.addr_a),
            "dev",
            "va",
        ])?;
        run(&[
            "ip",
            "-n",
            b,
            "addr",
            "add",
            &format!("{}/30", self.addr_b),
            "dev",
            "vb",
        ])?;
        run(&["ip", "-n", a, "link", "set", "va", "up"])?;
        run(&["ip", "-n", b, "link", "set", "vb", "up"])?;
        // Static neighbours: no ARP exchange delays the first volley or shares the slow link.
        run(&[
            "ip",
            "-n",
            a,
            "neigh",
            "replace",
            self.addr_b,
            "lladdr",
            "02:00:00:00:00:0b",
            "dev",
            "va",
            "nud",
            "permanent",
        ])?;
        run(&[
            "ip",
            "-n",
            b,
            "neigh",
            "replace",
            self.addr_a,
            "lladdr",
            "02:00:00:00:00:0a",
            "dev",
            "vb",
            "nud",
            "permanent",
        ])?;
        Ok(())
    }

    /// Turns IPv6 on for the veth alone (it stays off elsewhere) and gives its ends addresses
    /// from 2001:2::/48 (RFC 5180's IPv6 benchmarking range), with no duplicate-address wait and
    /// static neighbours, so nothing but the test's own packets crosses the link. Returns the
    /// two addresses (a's, b's).
    pub fn with_ipv6(&self) -> Result<(&'static str, &'static str), String> {
        if self.kind != LinkKind::Veth {
            return Err("IPv6 is set up on a veth pair only".into());
        }
        let (v6a, v6b) = ("2001:2::a", "2001:2::b");
        for (ns, dev, me, peer, peer_mac) in [
            (self.a.as_str(), "va", v6a, v6b, "02:00:00:00:00:0b"),
            (self.b.as_str(), "vb", v6b, v6a, "02:00:00:00:00:0a"),
        ] {
            sysctl(ns, &format!("net/ipv6/conf/{dev}/disable_ipv6"), "0")?;
            run(&[
                "ip",
                "-n",
                ns,
                "addr",
                "add",
                &format!("{me}/64"),
                "dev",
                dev,
                "nodad",
            ])?;
            run(&[
                "ip",
                "-n",
                ns,
                "neigh",
                "replace",
                peer,
                "lladdr",
                peer_mac,
                "dev",
                dev,
                "nud",
                "permanent",
            ])?;
        }
        Ok((v6a, v6b))
    }

    /// Makes a [`LinkKind::Tun`] pair's namespaces, devices and line: `nmc path`'s own
    /// [`Path`], with IPv6 off (its router solicitations and MLD reports would queue on a
    /// 9600 bit/s line ahead of the volleys).
    pub fn emulate(&mut self, p: LinkParams) -> Result<(), String> {
        if self.kind != LinkKind::Tun || self.path.is_some() {
            return Err("not a TUN pair, or already started".into());
        }
        let name = self.a.strip_suffix("-a").expect("named NAME-a");
        self.path = Some(Path::create(name, p, p, false).map_err(|e| e.to_string())?);
        Ok(())
    }

    /// The line's per-direction counts so far (a→b, b→a), on a [`LinkKind::Tun`] pair.
    pub fn emulator_stats(&self) -> Option<[DirStats; 2]> {
        self.path.as_ref().map(Path::stats)
    }

    /// Puts `netem ARGS` as the root qdisc on both ends of the link (so both directions).
    pub fn netem(&self, args: &[&str]) -> Result<(), String> {
        for (ns, dev) in [(self.a.as_str(), "va"), (self.b.as_str(), "vb")] {
            let mut cmd = vec![
                "tc", "-n", ns, "qdisc", "replace", "dev", dev, "root", "netem",
            ];
            cmd.extend_from_slice(args);
            run(&cmd)?;
        }
        Ok(())
    }

    /// The root qdisc of one end, as `tc qdisc show` prints it (for the test's log).
    pub fn qdisc(&self, a_side: bool) -> String {
        let (ns, dev) = if a_side {
            (&self.a, "va")
        } else {
            (&self.b, "vb")
        };
        Command::new("tc")
            .args(["-n", ns, "qdisc", "show", "dev", dev])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    }
}

impl Drop for NetnsPair {
    fn drop(&mut self) {
        // The line stops, and its namespaces go, with the path.
        drop(self.path.take());
        for ns in [&self.a, &self.b] {
            let _ = run(&["ip", "netns", "del", ns]);
        }
    }
}

/// Deletes namespaces this test suite left behind in an earlier run that was killed (its process
/// no longer exists). Namespaces of a live run are left alone.
fn remove_stale() {
    let Ok(dir) = std::fs::read_dir("/var/run/netns") else {
        return;
    };
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let Some(rest) = name.strip_prefix(&format!("{PREFIX}-")) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = run(&["ip", "netns", "del", &name]);
        }
    }
}

/// A pair of namespaces joined by a path with this one-way delay, line rate and loss on each
/// direction: `tc netem` on a veth where the kernel has netem, else the user-space TUN
/// emulator with the same figures and netem's accounting (14 bytes of link header per packet).
pub fn shaped_pair(
    tag: &str,
    delay_ms: u64,
    rate_bps: Option<u32>,
    loss_pct: f64,
) -> Result<(NetnsPair, Shaper), String> {
    let pair = NetnsPair::create(tag, LinkKind::Veth)?;
    let mut args: Vec<String> = Vec::new();
    if delay_ms > 0 {
        args.extend(["delay".into(), format!("{delay_ms}ms")]);
    }
    if let Some(r) = rate_bps {
        args.extend(["rate".into(), format!("{r}bit")]);
    }
    if loss_pct > 0.0 {
        args.extend(["loss".into(), format!("{loss_pct}%")]);
    }
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    match pair.netem(&argv) {
        Ok(()) => return Ok((pair, Shaper::Netem)),
        Err(e) if e.contains("qdisc kind is unknown") => {
            say(&format!(
                "    note: this kernel has no sch_netem ({e}); using the user-space TUN link emulator instead"
            ));
        }
        Err(e) => return Err(e),
    }
    drop(pair);
    let mut pair = NetnsPair::create(tag, LinkKind::Tun)?;
    pair.emulate(LinkParams {
        delay: Duration::from_millis(delay_ms),
        jitter: Duration::ZERO,
        rate_bps: rate_bps.map(f64::from),
        overhead: 14,
        loss: loss_pct / 100.0,
        limit: nmc_probe::path::NETEM_LIMIT,
        limit_bytes: nmc_probe::path::link::DEFAULT_LIMIT_BYTES,
        seed: 0x0889_1983,
    })?;
    Ok((pair, Shaper::TunEmulator))
}
