//! The probe against paths whose delay, rate and loss we set ourselves: two network namespaces
//! joined by a veth pair with `tc netem` on both ends, or, where the kernel has no netem (this
//! project's machines are built with `CONFIG_NET_SCH_NETEM` unset), by two TUN devices and the
//! user-space line of `nmc path` (`nmc_probe::path`), which applies the same delay, rate (with the same
//! 14 bytes of link header per packet) and loss. Each test makes its own pair and removes it
//! when done, also on failure; each skips, saying why, where namespaces cannot be made (not root,
//! no iproute2, no /dev/net/tun).
//!
//! Traffic stays inside the two namespaces (198.18.0.1 ↔ 198.18.0.2, RFC 2544's benchmarking
//! range, on a link with no end in the host's namespace). Every run is bounded in volleys and time.
// Network namespaces, TUN devices and /proc/self/fd: Linux only.
#![cfg(target_os = "linux")]

use crate::common::{
    LinkKind, NetnsPair, RunningServer, Shaper, in_netns, open_server_config, probe_config, say,
    shaped_pair, sysctl,
};
use nmc_probe::driver::Transport;
use nmc_probe::report::{Summary, write_outputs};
use nmc_probe::time::Nanos;
use nmc_probe::{LengthSpec, Pacing, udp};
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

fn shaped_or_skip(
    tag: &str,
    test: &str,
    delay_ms: u64,
    rate_bps: Option<u32>,
    loss_pct: f64,
) -> Option<(NetnsPair, Shaper)> {
    match shaped_pair(tag, delay_ms, rate_bps, loss_pct) {
        Ok(p) => Some(p),
        Err(why) => panic!(
            "{test}: the network namespaces or the shaped link it needs could not be made: {why}"
        ),
    }
}

/// RFC 889's calibration case, a 9600 bit/s line (FORD1, "9600 DDCMP base": 9540 bit/s
/// measured), with 100 ms of delay each way.
///
/// What "configured" means, fixed before measuring. netem's `rate` charges each packet for its
/// length as the qdisc sees it: on a veth (an Ethernet device) that is the IP datagram plus the
/// 14-byte Ethernet header (no preamble, no FCS). A datagram of L bytes therefore spends
/// (L + 14)·8 / 9600 s on the link in each direction, after the 100 ms delay, and the
/// one-way-normalised delay (round trip / 2) is
///
/// ```text
/// d(L) = 100 ms + (L + 14)·8/9600 s
/// ```
///
/// so the configured slope is 8/9600 s per byte (rate 9600 bit/s) and the configured intercept
/// at L = 0 is 100 ms + 14·8/9600 s = 111.667 ms. Both fitted values must be within 5 % of
/// these. (The 11.667 ms of header time is real link time, not an error: against a bare 100 ms
/// the intercept would be 11.7 % high.) Host and veth processing add some tens of microseconds,
/// which land in the intercept.
#[test]
#[ignore = "needs root and network namespaces: scripts/test.sh runs it as root, or with NMC_NETNS=1 (cargo test -- --ignored)"]
fn netem_9600_bps_100_ms_rate_and_intercept_within_5_percent() {
    let test = "netem_9600_bps_100_ms_rate_and_intercept_within_5_percent";
    let Some((pair, shaper)) = shaped_or_skip("rate", test, 100, Some(9600), 0.0) else {
        return;
    };
    say(&format!("    {test}: path shaped by {shaper:?}"));
    let listen: SocketAddr = format!("{}:0", pair.addr_b).parse().unwrap();
    let server = RunningServer::start(listen, open_server_config(), None, Some(&pair.b));
    let target = server.addr;
    // 48 volleys of 60..256 bytes: about 0.49 s each at this rate, ~24 s in all.
    let cfg = probe_config(
        48,
        LengthSpec::Uniform { lo: 60, hi: 256 },
        Pacing::OneInFlight {
            gap_ns: Nanos::ZERO,
        },
        5_000,
    );
    let t0 = Instant::now();
    let run = in_netns(&pair.a, move || {
        udp::probe(
            target,
            cfg,
            None,
            &AtomicBool::new(false),
            nmc_probe::Watch::default(),
        )
        .expect("probe")
    });
    let wall = t0.elapsed();
    let counters = server.stop();
    if let Some(st) = pair.emulator_stats() {
        say(&format!("    emulator a->b {:?} b->a {:?}", st[0], st[1]));
    }
    let summary = Summary::of(run, Some(126));
    say(&summary.text());
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("netem-9600");
    let out = write_outputs(&dir, &summary).unwrap();
    say(&format!(
        "    outputs in {} ({wall:.1?})",
        out.summary.parent().unwrap().display()
    ));

    assert_eq!(summary.lost, 0, "no loss configured");
    assert_eq!(summary.answered, 48);
    assert_eq!(counters.replied, 48);
    let line = summary.fits.one_line.expect("a line");
    let rate = line.rate_bps.expect("positive slope");
    let configured_rate = 9600.0;
    let configured_intercept_ms = 100.0 + 14.0 * 8.0 / 9600.0 * 1e3;
    let intercept_ms = line.intercept_ns / 1e6;
    say(&format!(
        "    fitted rate {rate:.1} bit/s vs configured {configured_rate} ({:+.2} %); \
         intercept {intercept_ms:.3} ms vs configured {configured_intercept_ms:.3} ms ({:+.2} %)",
        100.0 * (rate / configured_rate - 1.0),
        100.0 * (intercept_ms / configured_intercept_ms - 1.0)
    ));
    assert!(
        (rate / configured_rate - 1.0).abs() < 0.05,
        "rate {rate} not within 5 % of {configured_rate}"
    );
    assert!(
        (intercept_ms / configured_intercept_ms - 1.0).abs() < 0.05,
        "intercept {intercept_ms} ms not within 5 % of {configured_intercept_ms} ms"
    );
}

/// Loss: netem drops 10 % of packets on each end, independently, so a volley is lost when its
/// request or its reply is dropped: p = 1 − 0.9² = 0.19. Over n = 2000 volleys the count of lost
/// volleys is binomial, mean n·p = 380, σ = √(n·p·(1−p)) = 17.5. Bound, stated before running:
/// 380 ± 4σ, i.e. 310..=450 (a correct probe falls outside about once in 16 000 runs).
/// Paced at one volley per millisecond so the run takes about 2 s; 300 ms timeout.
#[test]
#[ignore = "needs root and network namespaces: scripts/test.sh runs it as root, or with NMC_NETNS=1 (cargo test -- --ignored)"]
fn netem_loss_count_within_binomial_bounds() {
    let test = "netem_loss_count_within_binomial_bounds";
    let Some((pair, shaper)) = shaped_or_skip("loss", test, 0, None, 10.0) else {
        return;
    };
    say(&format!("    {test}: path shaped by {shaper:?}"));
    let listen: SocketAddr = format!("{}:0", pair.addr_b).parse().unwrap();
    let server = RunningServer::start(listen, open_server_config(), None, Some(&pair.b));
    let target = server.addr;
    let n = 2000u32;
    let cfg = probe_config(
        n,
        LengthSpec::Fixed { length: 100 },
        Pacing::Interval {
            interval_ns: nmc_probe::time::Nanos(1_000_000),
        },
        300,
    );
    let run = in_netns(&pair.a, move || {
        udp::probe(
            target,
            cfg,
            None,
            &AtomicBool::new(false),
            nmc_probe::Watch::default(),
        )
        .expect("probe")
    });
    let counters = server.stop();
    let summary = Summary::of(run, None);
    let p = 1.0 - 0.9f64 * 0.9;
    let mean = f64::from(n) * p;
    let sd = (f64::from(n) * p * (1.0 - p)).sqrt();
    let (lo, hi) = (
        (mean - 4.0 * sd).floor() as usize,
        (mean + 4.0 * sd).ceil() as usize,
    );
    say(&format!(
        "    loss: {} of {} volleys lost ({:.2} %), expected {mean:.0} ± {sd:.1} (bound {lo}..={hi}); \
         server received {} replied {}; late {} duplicates {} reordered {}",
        summary.lost,
        summary.volleys,
        100.0 * summary.loss_fraction,
        counters.received,
        counters.replied,
        summary.run.counters.late,
        summary.run.counters.duplicates,
        summary.run.counters.reordered
    ));
    assert_eq!(summary.volleys, n as usize);
    assert!(
        (lo..=hi).contains(&summary.lost),
        "lost {} outside {lo}..={hi}",
        summary.lost
    );
    // The server's view agrees: it saw every request that survived the first drop.
    let req_lo = (f64::from(n) * 0.9 - 4.0 * (f64::from(n) * 0.09).sqrt()) as u64;
    assert!(
        counters.received >= req_lo,
        "server received {}",
        counters.received
    );
    assert_eq!(summary.run.counters.duplicates, 0);
}

/// `count` volleys of ICMP Echo of Mills' lengths from namespace `ns` to `target`.
fn icmp_probe(
    ns: &str,
    target: std::net::IpAddr,
    count: u32,
    timeout_ms: u64,
) -> Result<nmc_probe::driver::ProbeRun, nmc_probe::Error> {
    let cfg = probe_config(
        count,
        LengthSpec::MILLS,
        Pacing::OneInFlight {
            gap_ns: Nanos::ZERO,
        },
        timeout_ms,
    );
    in_netns(ns, move || {
        nmc_probe::icmp::probe(
            target,
            cfg,
            &AtomicBool::new(false),
            nmc_probe::Watch::default(),
        )
    })
}

/// 30 volleys across a veth, answered by the far namespace's kernel: first through a raw socket
/// (a new namespace's `ping_group_range` is empty, so the ping socket is refused and root falls
/// back to raw), then, with the range widened in that namespace only, through an unprivileged
/// ping socket. Over IPv6 (`v6`) the veth gets addresses of its own. The datagrams are never
/// shorter than `floor`, and some are exactly that. Returns the pair, with its target.
fn raw_then_ping_socket(test: &str, v6: bool, floor: u32) -> (NetnsPair, std::net::IpAddr) {
    let pair = match NetnsPair::create(if v6 { "icmp6" } else { "icmp" }, LinkKind::Veth) {
        Ok(p) => p,
        Err(why) => panic!("{test}: the network namespaces it needs could not be made: {why}"),
    };
    let far = if v6 {
        pair.with_ipv6().expect("IPv6 on the veth").1
    } else {
        pair.addr_b
    };
    let target: std::net::IpAddr = far.parse().unwrap();
    let raw = Summary::of(
        icmp_probe(&pair.a, target, 30, 2_000).expect("raw ICMP as root"),
        None,
    );
    say(&format!("    {}", raw.text().lines().next().unwrap()));
    assert_eq!(raw.run.transport, Transport::IcmpRaw);
    assert_eq!(raw.answered, 30);
    assert_eq!(raw.run.config.floor, floor);
    assert!(raw.run.volleys.iter().all(|v| v.length >= floor));
    assert!(raw.run.volleys.iter().any(|v| v.length == floor));

    sysctl(&pair.a, "net/ipv4/ping_group_range", "0 2147483647").unwrap();
    let ping = Summary::of(
        icmp_probe(&pair.a, target, 30, 2_000).expect("ping socket"),
        None,
    );
    say(&format!("    {}", ping.text().lines().next().unwrap()));
    assert_eq!(ping.run.transport, Transport::IcmpPing);
    assert_eq!(ping.answered, 30);
    (pair, target)
}

/// ICMP Echo inside a namespace, raw then ping socket; Mills' minimum, 40 bytes, is reachable.
#[test]
#[ignore = "needs root and network namespaces: scripts/test.sh runs it as root, or with NMC_NETNS=1 (cargo test -- --ignored)"]
fn icmp_echo_raw_then_ping_socket() {
    raw_then_ping_socket("icmp_echo_raw_then_ping_socket", false, 40);
}

/// Issue 58 §7: ICMPv6 Echo (RFC 4443 §4.1–4.2), raw then ping socket (Linux reads the one
/// `net.ipv4.ping_group_range` for both families). The shortest datagram is 60 bytes over IPv6
/// (40 + 8 + 12), so Mills' 40 is rounded up to it. An address on the link with nothing there
/// answers nothing, and the run still reports.
#[test]
#[ignore = "needs root and network namespaces: scripts/test.sh runs it as root, or with NMC_NETNS=1 (cargo test -- --ignored)"]
fn icmpv6_echo_raw_then_ping_socket() {
    let (pair, _) = raw_then_ping_socket("icmpv6_echo_raw_then_ping_socket", true, 60);
    let silent: std::net::IpAddr = "2001:2::c".parse().unwrap();
    let none = icmp_probe(&pair.a, silent, 3, 300).expect("a run with no answer still reports");
    assert_eq!(Summary::of(none, None).answered, 0);
}

/// RFC 889's own instrument on the same 9600 bit/s, 100 ms path: ICMP Echo answered by the far
/// namespace's kernel, Mills' lengths (uniform 0..256, rounded up to 40), as for his calibration
/// row FORD1 ("9600 DDCMP base", 9540 bit/s measured). Same configured figures and tolerance as
/// the UDP test above: rate 9600 bit/s, intercept 100 ms + 14·8/9600 s = 111.667 ms, each within 5 %.
#[test]
#[ignore = "needs root and network namespaces: scripts/test.sh runs it as root, or with NMC_NETNS=1 (cargo test -- --ignored)"]
fn icmp_calibration_on_9600_bps_path() {
    let test = "icmp_calibration_on_9600_bps_path";
    let Some((pair, shaper)) = shaped_or_skip("cal", test, 100, Some(9600), 0.0) else {
        return;
    };
    say(&format!("    {test}: path shaped by {shaper:?}"));
    let target: std::net::IpAddr = pair.addr_b.parse().unwrap();
    // 40 volleys of Mills' lengths: about 0.4 s each here, ~17 s in all.
    let cfg = probe_config(
        40,
        LengthSpec::MILLS,
        Pacing::OneInFlight {
            gap_ns: Nanos::ZERO,
        },
        5_000,
    );
    let run = in_netns(&pair.a, move || {
        nmc_probe::icmp::probe(
            target,
            cfg,
            &AtomicBool::new(false),
            nmc_probe::Watch::default(),
        )
        .expect("icmp probe")
    });
    let summary = Summary::of(run, None);
    say(&summary.text());
    assert_eq!(summary.answered, 40);
    let line = summary.fits.one_line.expect("a line");
    let rate = line.rate_bps.expect("positive slope");
    let intercept_ms = line.intercept_ns / 1e6;
    let configured_intercept_ms = 100.0 + 14.0 * 8.0 / 9600.0 * 1e3;
    say(&format!(
        "    icmp: fitted rate {rate:.1} bit/s ({:+.2} %), intercept {intercept_ms:.3} ms ({:+.2} %); \
         delay at 40 bytes {:.1} ms, at 256 bytes {:.1} ms (RFC 889 FORD1: 93 and 274 ms, 9540 bit/s)",
        100.0 * (rate / 9600.0 - 1.0),
        100.0 * (intercept_ms / configured_intercept_ms - 1.0),
        line.delay_at(40.0) / 1e6,
        line.delay_at(256.0) / 1e6,
    ));
    assert!((rate / 9600.0 - 1.0).abs() < 0.05, "rate {rate}");
    assert!(
        (intercept_ms / configured_intercept_ms - 1.0).abs() < 0.05,
        "intercept {intercept_ms} ms"
    );
}

/// `nmc path`'s line holds at most `limit` packets and `limit_bytes` bytes a direction: a burst
/// of 100 datagrams of 1372 bytes (1400 with the IP and UDP headers) into a 1 Mbit/s line is cut
/// at 10 packets by the one limit, and at 45 (64 KiB / 1456: each held with its queue slot and
/// the allocator's header, issue 74 §4) by the other. The figures are fixed
/// before running; the line takes 11.3 ms a packet, so a burst sent in well under 10 ms finds
/// at most one packet gone.
#[test]
#[ignore = "needs root and network namespaces: scripts/test.sh runs it as root, or with NMC_NETNS=1 (cargo test -- --ignored)"]
fn the_line_drops_past_its_packet_and_byte_limits() {
    use nmc_probe::path::{LinkParams, Path};
    for (tag, limit, limit_bytes, held) in
        [("lp", 10, 1 << 20, 10..=11), ("lb", 1000, 65_536, 45..=46)]
    {
        let name = format!("nmcprobe-{}-{tag}", std::process::id());
        let line = LinkParams {
            delay: std::time::Duration::ZERO,
            jitter: std::time::Duration::ZERO,
            rate_bps: Some(1e6),
            overhead: 14,
            loss: 0.0,
            limit,
            limit_bytes,
            seed: 1,
        };
        let path = Path::create(&name, line, line, false).expect("a path");
        in_netns(&path.a, || {
            let s = std::net::UdpSocket::bind("198.18.0.1:0").unwrap();
            for _ in 0..100 {
                s.send_to(&[0u8; 1372], "198.18.0.2:9").unwrap();
            }
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        let a_to_b = path.stop()[0];
        say(&format!("    {tag}: {a_to_b:?}"));
        assert!(held.contains(&a_to_b.carried), "{a_to_b:?}");
        assert_eq!(a_to_b.carried + a_to_b.overflowed, 100, "{a_to_b:?}");
    }
}
