//! `nmc pump --reverse` against the echo server on loopback: the server pumps, the client
//! receives every message once and in order, and gets back the server's figures, whose
//! throughput stays within the window limit; over TCP and UDP. Hostile requests get one ERROR
//! line and the server goes on serving. Loopback only, bounded (about 3 s).

use crate::common::{RunningServer, open_server_config};
use nmc_probe::pump::receiver::Received;
use nmc_probe::pump::reverse::MAX_DURATION;
use nmc_probe::pump::reverse_client::pump_reverse;
use nmc_probe::pump::wire::{self, Header, Kind, Request};
use nmc_probe::pump::{PumpConfig, PumpTransport};
use nmc_probe::time::Nanos;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

fn cfg(transport: PumpTransport, packet: u32, ms: u64) -> PumpConfig {
    PumpConfig {
        transport,
        size: 1008,
        outstanding: 4,
        duration: Nanos(ms * 1_000_000),
        packet,
        timeout: Nanos(5_000_000_000),
        session: 0x1975,
        count: None,
        omit: Nanos::ZERO,
    }
}

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

fn reverse_run(t: PumpTransport, packet: u32) {
    let server = RunningServer::start(loopback(), open_server_config(), None, None);
    let mut rows: Vec<(Received, bool)> = Vec::new();
    let s = pump_reverse(
        server.addr,
        cfg(t, packet, 500),
        None,
        &AtomicBool::new(false),
        None,
        Some(&mut |m, in_run| {
            rows.push((*m, in_run));
            Ok(())
        }),
    )
    .unwrap_or_else(|e| panic!("{t}: {e}"));
    let c = server.stop();
    assert!(s.reverse);
    let n = s.messages_sent as u64;
    assert!(n > 20, "{t}: only {n} messages in 0.5 s on loopback");
    assert_eq!(s.messages_answered as u64, n, "{t}: every message answered");
    // The sender's figures: a throughput within its window limit (Little's law; 2 % for the
    // rounding of the run's edges), from round trips the server timed.
    let (thr, lim) = (s.throughput_bps, s.window_limit_bps.expect("round trips"));
    assert!(thr > 0.0 && thr <= lim * 1.02, "{t}: {thr} over {lim}");
    assert!(s.rtt.is_some() && !s.histogram.is_empty());
    assert!(!s.rtt_series().is_empty(), "{t}: the plot came back");
    // The receiver's: every message once, in order; what the server sent is what arrived.
    let v = s.receiver.expect("receiver figures");
    assert_eq!(
        (v.messages, v.in_order, v.duplicates, v.dropped),
        (n, n, 0, 0),
        "{t}"
    );
    assert_eq!(v.bytes, n * 1008);
    assert!(v.throughput_bps > 0.0 && v.throughput_bps <= lim * 1.05);
    assert_eq!(rows.len() as u64, n);
    for (i, (m, _)) in rows.iter().enumerate() {
        assert_eq!(m.seq, i as u64, "{t}");
        assert!(m.whole >= m.first);
    }
    // The server's sink saw none of it (the messages went the other way).
    assert_eq!(c.pump.rfnms, 0);
    let text = s.text();
    assert!(text.contains("--reverse: sent and timed by"), "{text}");
    assert!(text.contains("received here:"), "{text}");
    // Issue 58 §4: this host's end of the connection, and over TCP the sending (server's)
    // socket's own statistics, sent back with its run (Linux).
    assert!(
        s.run
            .local
            .as_deref()
            .is_some_and(|l| l.starts_with("127.0.0.1:")),
        "{t}: {:?}",
        s.run.local
    );
    match (t, cfg!(target_os = "linux")) {
        (PumpTransport::Tcp, true) => {
            let tcp = s.run.tcp.expect("the server's TCP_INFO");
            assert!(tcp.rtt_us > 0 && tcp.cwnd_segments > 0, "{tcp:?}");
            assert!(text.contains("TCP at the end (the server's"), "{text}");
        }
        _ => assert_eq!(s.run.tcp, None, "{t}"),
    }
}

#[test]
fn reverse_over_tcp_receives_every_message_and_the_senders_figures() {
    reverse_run(PumpTransport::Tcp, 0);
}

#[test]
fn reverse_over_udp_receives_every_message_and_the_senders_figures() {
    reverse_run(PumpTransport::Udp, 126);
}

/// Sends `bytes` as a client and returns what the server answered before it closed.
fn answer(addr: SocketAddr, bytes: &[u8]) -> Vec<u8> {
    let mut t = TcpStream::connect(addr).unwrap();
    t.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    t.write_all(bytes).unwrap();
    let mut got = Vec::new();
    let _ = t.read_to_end(&mut got);
    got
}

/// The text of the ERROR frame in `b`.
fn error_text(b: &[u8]) -> String {
    let h = Header::decode(b).unwrap_or_else(|e| panic!("{e}: {b:?}"));
    assert_eq!(h.kind, Kind::Error);
    assert!(h.length <= wire::MAX_ERROR);
    let text = String::from_utf8(b[wire::HEADER_LEN..].to_vec()).unwrap();
    assert_eq!(text.len(), h.length as usize);
    assert!(!text.contains('\n'));
    text
}

#[test]
fn hostile_requests_get_one_error_line_and_the_server_goes_on() {
    let server = RunningServer::start(loopback(), open_server_config(), None, None);
    let req = Request {
        udp: false,
        size: 1008,
        outstanding: 4,
        packet: 126,
        duration_ns: 100_000_000,
        timeout_ns: 1_000_000_000,
        count: None,
        omit_ns: 0,
    };
    let cases: Vec<(Request, &str)> = vec![
        // Issue 75 §3: the bounded REQUEST's numbers are checked too.
        (
            Request {
                count: Some(3),
                omit_ns: 1,
                ..req
            },
            "-O (a warm-up) goes with a time",
        ),
        (
            Request {
                omit_ns: MAX_DURATION.0,
                ..req
            },
            "longer together than this server's limit",
        ),
        (
            Request {
                omit_ns: u64::MAX,
                ..req
            },
            "-O",
        ),
        (
            Request {
                duration_ns: MAX_DURATION.0 + 1,
                ..req
            },
            "--duration",
        ),
        (
            Request {
                duration_ns: u64::MAX,
                ..req
            },
            "--duration",
        ),
        (
            Request {
                timeout_ns: 3_600_000_000_000,
                ..req
            },
            "--timeout",
        ),
        (
            Request {
                size: u32::MAX,
                ..req
            },
            "--size",
        ),
        (Request { size: 0, ..req }, "--size"),
        (
            Request {
                outstanding: u32::MAX,
                ..req
            },
            "--outstanding",
        ),
        (
            Request {
                outstanding: 4096,
                size: 1 << 20,
                ..req
            },
            "outstanding, above",
        ),
        (
            Request {
                udp: true,
                size: 60_000,
                packet: 1,
                ..req
            },
            "UDP packets",
        ),
    ];
    for (r, needle) in cases {
        let text = error_text(&answer(server.addr, &r.encode(3)));
        assert!(
            text.contains("request refused") && text.contains(needle),
            "{text}"
        );
    }
    // A request whose body is the wrong length, or not a request's.
    let mut short = wire::control(Kind::Request, 3, 4).to_vec();
    short.extend([1, 0, 0, 0]);
    assert!(error_text(&answer(server.addr, &short)).contains("malformed"));
    let mut junk = wire::control(Kind::Request, 3, wire::REQUEST_LEN as u32).to_vec();
    junk.extend([0xff; wire::REQUEST_LEN]);
    assert!(error_text(&answer(server.addr, &junk)).contains("malformed"));
    // A client that sends something else than RFNMs during the run: one line, the run ends.
    let mut bad = req.encode(3).to_vec();
    bad.extend(b"GET / HTTP/1.0\r\n\r\n0123456789");
    let got = answer(server.addr, &bad);
    let tail = got
        .windows(4)
        .rposition(|w| w == wire::MAGIC)
        .expect("frames came back");
    let text = error_text(&got[tail..]);
    assert!(text.contains("not a RFNM"), "{text}");
    // And the server still serves a good reverse run.
    let s = pump_reverse(
        server.addr,
        cfg(PumpTransport::Tcp, 0, 100),
        None,
        &AtomicBool::new(false),
        None,
        None,
    )
    .expect("a good reverse run is still served");
    assert!(s.messages_answered > 0);
}

#[test]
fn a_refused_request_is_one_line_for_the_client() {
    let server = RunningServer::start(loopback(), open_server_config(), None, None);
    let mut c = cfg(PumpTransport::Tcp, 0, 100);
    c.timeout = Nanos(120_000_000_000);
    let e = pump_reverse(server.addr, c, None, &AtomicBool::new(false), None, None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("request refused: --timeout 120.000s is longer than this server's limit"),
        "{e}"
    );
    assert!(!e.contains('\n'));
}
