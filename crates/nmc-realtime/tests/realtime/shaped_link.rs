//! `nmc stream` across a pair of network namespaces joined by a shaped link: 128 kbit/s each
//! way, 5 ms one-way delay (`tc netem` where the kernel has it, else the probe tests' user-space
//! TUN link emulator with the same figures). A process rate below the link's capacity must run
//! without gaps; one above it must gap. Needs root and iproute2; ignored unless run as root (scripts/test.sh does, or NMC_NETNS=1).
//!
//! The figures, fixed before running: a 2016-bit buffer is 252 bytes + 17 of frame + 40 of
//! TCP/IP + 14 of link header = 323 bytes, 20.2 ms on the line; with 2 × 5 ms of delay and the
//! 66-byte acknowledgement (4.1 ms) a buffer's write completes ~35 ms after it starts. At
//! 30 kbit/s a buffer fills in 67.2 ms, so every write completes before the next buffer is
//! full: no gap. At 200 kbit/s a buffer fills in 10.1 ms while the link carries at most one
//! buffer per 20.2 ms: the process must gap, and in 4 s lose at least a third of its time.
// Network namespaces, TUN devices and /proc/self/fd: Linux only.
#![cfg(target_os = "linux")]

use crate::common::{in_netns, say, shaped_pair};
use nmc_realtime::stream::Transport;
use nmc_realtime::stream::sender::{StreamConfig, StreamRun, run};
use nmc_realtime::stream::sink::Sink;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

fn stream_over_shaped_link(tag: &str, test: &str, rate_bps: u64) -> Option<StreamRun> {
    let (pair, shaper) = match shaped_pair(tag, 5, Some(128_000), 0.0) {
        Ok(p) => p,
        Err(why) => panic!(
            "{test}: the network namespaces or the shaped link it needs could not be made: {why}"
        ),
    };
    say(&format!("    {test}: link shaped by {shaper:?}"));
    let listen: SocketAddr = format!("{}:0", pair.addr_b).parse().unwrap();
    let sink = in_netns(&pair.b, move || {
        Sink::bind(listen, None).expect("bind sink")
    });
    let port = sink.local_addr().unwrap().port();
    let stop = Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    std::thread::spawn(move || sink.run(&s2));
    let cfg = StreamConfig {
        target: format!("{}:{port}", pair.addr_b).parse().unwrap(),
        rate_bps,
        buffer_bits: 2016,
        duration: Duration::from_secs(4),
        transport: Transport::Tcp,
        ack: true,
        ack_timeout: Duration::from_secs(1),
        io_timeout: Duration::from_secs(5),
        key: None,
        records: true,
        dial: Default::default(),
        bulk: false,
        omit: Duration::ZERO,
    };
    let r = in_netns(&pair.a, move || run(&cfg)).expect("stream runs");
    stop.store(true, Ordering::Relaxed);
    say(&format!(
        "    {test}: {} bit/s: {} buffers sent, {} gaps, max {:?} ms",
        rate_bps,
        r.buffers_sent,
        r.gaps.count(),
        r.gaps.max_ms()
    ));
    drop(pair);
    Some(r)
}

#[test]
#[ignore = "needs root and network namespaces: scripts/test.sh runs it as root, or with NMC_NETNS=1 (cargo test -- --ignored)"]
fn below_the_links_capacity_no_gaps() {
    let test = "below_the_links_capacity_no_gaps";
    let Some(r) = stream_over_shaped_link("below", test, 30_000) else {
        return;
    };
    assert!(r.partial.is_none(), "{:?}", r.partial);
    assert_eq!(r.gaps.count(), 0, "{:?}", r.gaps);
    // 4 s / 67.2 ms = 59.5: 59 deadlines in the test.
    assert_eq!(r.buffers_sent, 59);
}

#[test]
#[ignore = "needs root and network namespaces: scripts/test.sh runs it as root, or with NMC_NETNS=1 (cargo test -- --ignored)"]
fn above_the_links_capacity_gaps() {
    let test = "above_the_links_capacity_gaps";
    let Some(r) = stream_over_shaped_link("above", test, 200_000) else {
        return;
    };
    assert!(r.partial.is_none(), "{:?}", r.partial);
    assert!(r.gaps.count() > 10, "{:?}", r.gaps.count());
    let lost = r.gaps.total_ns() as f64 / 4e9;
    assert!(
        lost > 1.0 / 3.0,
        "gaps take {:.0} % of the test",
        lost * 100.0
    );
    // What the link carries bounds what is sent: at most one buffer per 20.2 ms on the line
    // (plus the two buffers in hand).
    assert!(r.buffers_sent <= 4000 / 20 + 2, "{}", r.buffers_sent);
}
