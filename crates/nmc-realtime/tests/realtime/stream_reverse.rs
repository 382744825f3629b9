//! `nmc stream --reverse` against the sink on loopback: the sink sends the stream, the client
//! receives every buffer and gets back the sink's gaps and per-buffer records; a stop from the
//! client ends the run early with what ran; hostile requests get one error line and the sink
//! goes on serving. Each run lasts a second or two; nothing here checks speed.

use nmc_realtime::stream::Transport;
use nmc_realtime::stream::reverse::{MAX_BUFFERS, stream_reverse};
use nmc_realtime::stream::sender::{STOPPED, StreamConfig};
use nmc_realtime::stream::sink::Sink;
use nmc_realtime::stream::wire;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

struct Running {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn sink() -> Running {
    let s = Sink::bind("127.0.0.1:0".parse().unwrap(), None).unwrap();
    let addr = s.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    std::thread::spawn(move || s.run(&s2).unwrap());
    Running { addr, stop }
}

fn config(addr: SocketAddr, ack: bool, ms: u64) -> StreamConfig {
    config_over(addr, Transport::Tcp, ack, ms)
}

fn config_over(addr: SocketAddr, transport: Transport, ack: bool, ms: u64) -> StreamConfig {
    StreamConfig {
        target: addr,
        rate_bps: 30_000,
        buffer_bits: 2016,
        duration: Duration::from_millis(ms),
        transport,
        ack,
        ack_timeout: Duration::from_secs(1),
        io_timeout: Duration::from_secs(5),
        key: None,
        records: true,
        dial: Default::default(),
        bulk: false,
        omit: Duration::ZERO,
    }
}

#[test]
fn the_sink_sends_and_the_client_gets_every_buffer_and_the_gaps() {
    let s = sink();
    for (t, ack) in [
        (Transport::Tcp, false),
        (Transport::Tcp, true),
        (Transport::Udp, false),
        (Transport::Udp, true),
    ] {
        let mut lines = Vec::new();
        let r = stream_reverse(
            &config_over(s.addr, t, ack, 2000),
            &AtomicBool::new(false),
            Some(Duration::from_millis(500)),
            &mut |iv| lines.push(iv),
        )
        .unwrap_or_else(|e| panic!("{t:?} ack {ack}: {e}"));
        assert!(r.partial.is_none(), "{:?}", r.partial);
        // 2 s at 30000 bit/s in 2016-bit buffers: 29 deadlines (as the forward test).
        assert_eq!(r.buffers_sent, 29, "{t:?} ack {ack}");
        assert_eq!(r.acks_lost, 0);
        if t == Transport::Udp && !ack {
            assert_eq!(r.sink_received, Some(29), "the tally is what arrived here");
        }
        // Issue 58 §5: this host is the receiver, and says what it saw (UDP only).
        match t {
            Transport::Tcp => assert_eq!(r.arrivals, None),
            Transport::Udp => {
                let a = r.arrivals.expect("arrivals here");
                assert_eq!(a.out_of_order, 0, "{a:?}");
                assert!(a.jitter_ns.expect("timed buffers") < 20_000_000, "{a:?}");
            }
        }
        assert_eq!(r.gaps.count(), 0, "gaps on loopback: {:?}", r.gaps);
        assert_eq!(r.records.len(), 29);
        assert_eq!(r.config.target, s.addr);
        let got = r.received.expect("received");
        assert_eq!((got.buffers, got.bytes), (29, 29 * 252));
        let n: u64 = lines.iter().map(|l| l.buffers_received).sum();
        assert_eq!(n, 29, "{lines:?}");
    }
}

/// Issue 75 §1 (iperf3 `-u -R -b`): the sink runs a bulk UDP source at the rate, and a run
/// without records is not held to the cap on buffers a run that ships them is.
#[test]
fn the_sink_sends_a_bulk_udp_stream_past_the_record_cap_without_records() {
    let s = sink();
    // 6 s at 8.4 Mbit/s in 800-bit buffers: 63,000 buffers, more than MAX_BUFFERS, at a
    // packet rate (10,500 a second) that leaves the other tests their share of two cores.
    let mut c = config_over(s.addr, Transport::Udp, false, 6000);
    c.rate_bps = 8_400_000;
    c.buffer_bits = 800;
    c.bulk = true;
    c.records = false;
    assert!(c.buffers() > MAX_BUFFERS as f64);
    let r = stream_reverse(&c, &AtomicBool::new(false), None, &mut |_| {})
        .unwrap_or_else(|e| panic!("bulk -R --no-records: {e}"));
    assert!(r.partial.is_none(), "{:?}", r.partial);
    assert!(r.config.bulk && !r.config.records);
    assert!(r.records.is_empty());
    // A bulk source counts no gap; it sends what it can of its schedule in the time.
    assert_eq!(r.gaps.count(), 0);
    assert!(r.buffers_sent > 10_000, "{}", r.buffers_sent);
    let got = r.received.expect("received");
    // Loopback may drop a few under load, never invent any.
    assert!(
        got.buffers <= r.buffers_sent && got.buffers * 10 >= r.buffers_sent * 9,
        "{got:?} of {}",
        r.buffers_sent
    );
    assert_eq!(
        r.sink_received,
        Some(got.buffers),
        "the tally is what arrived here"
    );
    // With records, the same run is refused by the sink's cap, in one line.
    c.records = true;
    let e = stream_reverse(&c, &AtomicBool::new(false), None, &mut |_| {}).unwrap_err();
    assert!(
        e.to_string().contains(&format!("limit of {MAX_BUFFERS}")),
        "{e}"
    );
}

#[test]
fn a_stop_from_the_client_ends_the_run_with_what_ran() {
    let s = sink();
    for ack in [false, true] {
        let stop = Arc::new(AtomicBool::new(false));
        let st = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(700));
            st.store(true, Ordering::Relaxed);
        });
        let r = stream_reverse(&config(s.addr, ack, 10_000), &stop, None, &mut |_| {})
            .unwrap_or_else(|e| panic!("ack {ack}: {e}"));
        assert_eq!(r.partial.as_deref(), Some(STOPPED), "ack {ack}");
        assert!(
            (5..40).contains(&r.buffers_sent),
            "ack {ack}: {}",
            r.buffers_sent
        );
        assert_eq!(r.received.unwrap().buffers, r.buffers_sent, "ack {ack}");
    }
}

/// A sink that is stopped (SIGTERM on `nmc serve`) during a reverse run ends it early and
/// still sends the client what ran, over TCP and UDP; it used to go on sending until its gate
/// gave up and closed the connection without a result.
#[test]
fn a_sink_that_stops_sends_what_ran() {
    for t in [Transport::Tcp, Transport::Udp] {
        let s = sink();
        let sink_stop = s.stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(700));
            sink_stop.store(true, Ordering::Relaxed);
        });
        let started = std::time::Instant::now();
        let never = AtomicBool::new(false);
        let r = stream_reverse(
            &config_over(s.addr, t, false, 10_000),
            &never,
            None,
            &mut |_| {},
        )
        .unwrap_or_else(|e| panic!("{t:?}: {e}"));
        assert!(r.partial.is_some(), "{t:?}: a whole run");
        assert!(
            (5..40).contains(&r.buffers_sent),
            "{t:?}: {}",
            r.buffers_sent
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{t:?}: {:?}",
            started.elapsed()
        );
    }
}

/// What the sink answered `bytes` (and the end of what the client sends) with, until it closed.
fn answer(addr: SocketAddr, bytes: &[u8]) -> Vec<u8> {
    let mut t = TcpStream::connect(addr).unwrap();
    t.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    t.write_all(bytes).unwrap();
    t.shutdown(std::net::Shutdown::Write).unwrap();
    let mut got = Vec::new();
    let _ = t.read_to_end(&mut got);
    got
}

fn error_text(b: &[u8]) -> String {
    assert_eq!(b[..4], wire::ERROR_MAGIC, "{b:?}");
    let len = u32::from_be_bytes([b[4], b[5], b[6], b[7]]) as usize;
    assert!(len <= wire::MAX_ERROR as usize && b.len() == 8 + len);
    let text = String::from_utf8(b[8..].to_vec()).unwrap();
    assert!(!text.contains('\n'));
    text
}

#[test]
fn hostile_requests_get_one_error_line_and_the_sink_goes_on() {
    let s = sink();
    let good = wire::Request {
        rate_bps: 30_000,
        buffer_bits: 2016,
        duration_ns: 500_000_000,
        ack_timeout_ns: 1_000_000_000,
        io_timeout_ns: 1_000_000_000,
        ack: false,
        udp: false,
        bulk: false,
        no_records: false,
        token: 1,
        omit_ns: 0,
    };
    let cases = [
        (wire::Request { bulk: true, ..good }, "--bulk"),
        (
            wire::Request {
                rate_bps: 0,
                ..good
            },
            "--rate",
        ),
        (
            wire::Request {
                buffer_bits: 0,
                ..good
            },
            "--buffer",
        ),
        (
            wire::Request {
                buffer_bits: u64::MAX,
                ..good
            },
            "--buffer",
        ),
        (
            wire::Request {
                duration_ns: u64::MAX,
                ..good
            },
            "--duration",
        ),
        (
            wire::Request {
                rate_bps: u64::MAX,
                buffer_bits: 8,
                ..good
            },
            &format!("limit of {MAX_BUFFERS}"),
        ),
        (
            wire::Request {
                io_timeout_ns: 0,
                ..good
            },
            "--io-timeout",
        ),
        (
            wire::Request {
                ack_timeout_ns: u64::MAX,
                ..good
            },
            "--ack-timeout",
        ),
        (
            wire::Request {
                udp: true,
                buffer_bits: 8 * 70_000,
                rate_bps: 8 * 700_000,
                ..good
            },
            "one UDP datagram",
        ),
        // Issue 74 §1: the attack, a byte every 8 s, pays under the gate's 100 B/s.
        (
            wire::Request {
                rate_bps: 1,
                buffer_bits: 8,
                duration_ns: 3_600_000_000_000,
                ..good
            },
            "below this sink's minimum of 100 B/s (its --min-rate)",
        ),
    ];
    for (r, needle) in cases {
        let text = error_text(&answer(s.addr, &r.encode()));
        assert!(
            text.contains("request refused") && text.contains(needle),
            "{needle}: {text}"
        );
    }
    // Over UDP with no HELLO: one line after the request's I/O timeout (1 s).
    let udp = wire::Request { udp: true, ..good };
    let text = error_text(&answer(s.addr, &udp.encode()));
    assert!(text.contains("no HELLO datagram"), "{text}");
    let mut junk = good.encode();
    junk[44] = 32;
    assert!(error_text(&answer(s.addr, &junk)).contains("malformed"));
    // Issue 75 §2: a warm-up past the sink's limit is refused in one line; a request that says
    // a warm-up follows and does not send it is cut short.
    let warm = wire::Request {
        omit_ns: 3_600_000_000_000,
        ..good
    };
    let text = error_text(&answer(s.addr, &warm.encode()));
    assert!(
        text.contains("request refused") && text.contains("-O 3600 s"),
        "{text}"
    );
    assert!(answer(s.addr, &warm.encode()[..wire::REQUEST]).is_empty());
    // A request cut short: closed without a word.
    assert!(answer(s.addr, &good.encode()[..30]).is_empty());
    // And the sink still serves.
    let r = stream_reverse(
        &config(s.addr, true, 500),
        &AtomicBool::new(false),
        None,
        &mut |_| {},
    )
    .expect("a good reverse run is still served");
    assert!(r.buffers_sent > 0);
}
