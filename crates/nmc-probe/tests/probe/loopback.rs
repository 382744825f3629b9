//! End to end on loopback: server and probe over real UDP sockets, the outputs a person reads,
//! the shared secret, and the server under malformed packets and a flood. Bounded: a few thousand
//! packets to 127.0.0.1 / 127.0.0.2, a few seconds.

use crate::common::{RunningServer, open_server_config, probe_config, say};
use nmc_probe::report::{Summary, write_outputs};
use nmc_probe::server::ServerConfig;
use nmc_probe::time::Nanos;
use nmc_probe::trace::read_trace;
use nmc_probe::wire::{self, Key};
use nmc_probe::{LengthSpec, Pacing, udp};
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

fn localhost(last: u8) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, last], 0))
}

#[test]
fn mills_run_on_loopback_writes_trace_summary_and_plot() {
    let server = RunningServer::start(localhost(1), open_server_config(), None, None);
    let cfg = probe_config(
        512,
        LengthSpec::MILLS,
        Pacing::OneInFlight {
            gap_ns: Nanos::ZERO,
        },
        2_000,
    );
    let run = udp::probe(
        server.addr,
        cfg,
        None,
        &AtomicBool::new(false),
        nmc_probe::Watch::default(),
    )
    .unwrap();
    let counters = server.stop();
    let summary = Summary::of(run, Some(126));
    say(&summary.text());
    assert_eq!(summary.answered, 512);
    assert_eq!(summary.lost, 0);
    assert_eq!(counters.replied, 512);
    assert_eq!(summary.run.config.floor, 60, "IPv4 + UDP + 32-byte header");
    assert!(
        summary
            .run
            .volleys
            .iter()
            .all(|v| (60..=256).contains(&v.length))
    );
    let c = summary.run.counters;
    assert_eq!((c.duplicates, c.reordered, c.foreign), (0, 0, 0));
    assert!(summary.run.timer.observed_step_ns > 0);

    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("loopback-mills");
    let out = write_outputs(&dir, &summary).unwrap();
    let rows = read_trace(std::fs::File::open(&out.trace).unwrap()).unwrap();
    assert_eq!(rows.len(), 512);
    assert!(
        rows.windows(2)
            .all(|w| w[0].send_time_ns <= w[1].send_time_ns)
    );
    for r in &rows {
        let (d, rtt) = (r.delay_ns.unwrap(), r.rtt_ns.unwrap());
        assert_eq!(d, rtt / 2, "delay is the round trip normalised to one way");
        assert!(r.server_turnaround_ns.unwrap() < rtt);
    }
    let header = std::fs::read_to_string(&out.trace).unwrap();
    assert!(header.starts_with("send_time_ns,length_bytes,delay_ns,"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out.summary).unwrap()).unwrap();
    assert_eq!(json["answered"], 512);
    assert_eq!(json["config"]["seed"], 889);
    assert!(json["fits"]["one_line"]["slope_ns_per_byte"].is_number());
    assert!(json["timer"]["observed_step_ns"].as_u64().unwrap() > 0);
    let svg = std::fs::read_to_string(&out.plot).unwrap();
    assert!(svg.contains("<svg") && svg.contains("<circle"));
    assert!(
        svg.contains("IP datagram length (bytes)"),
        "axis label is drawn as text"
    );
    assert!(svg.contains("one line:"), "legend is drawn");
}

#[test]
fn paced_run_and_fixed_length() {
    let server = RunningServer::start(localhost(1), open_server_config(), None, None);
    let cfg = probe_config(
        200,
        LengthSpec::Fixed { length: 1500 },
        Pacing::Interval {
            interval_ns: nmc_probe::time::Nanos(500_000),
        },
        1_000,
    );
    let t0 = Instant::now();
    let run = udp::probe(
        server.addr,
        cfg,
        None,
        &AtomicBool::new(false),
        nmc_probe::Watch::default(),
    )
    .unwrap();
    let wall = t0.elapsed();
    server.stop();
    assert_eq!(run.counters.answered, 200);
    assert!(run.volleys.iter().all(|v| v.length == 1500));
    // 200 sends every 0.5 ms: about 0.1 s, not 200 round trips back to back.
    assert!(wall < Duration::from_secs(2), "{wall:?}");
    let sends: Vec<u64> = run.volleys.iter().map(|v| v.sent.unwrap().0).collect();
    let span = sends.last().unwrap() - sends.first().unwrap();
    assert!(span >= 199 * 500_000, "paced, not bunched: {span} ns");
}

#[test]
fn shared_secret_gates_the_server() {
    let key = Key::new(b"correct horse battery staple").unwrap();
    let wrong = Key::new(b"incorrect horse battery staple").unwrap();
    let cfg = ServerConfig {
        require_tag: true,
        ..open_server_config()
    };
    let server = RunningServer::start(localhost(1), cfg, Some(key.clone()), None);
    let quick = |n| {
        probe_config(
            n,
            LengthSpec::MILLS,
            Pacing::OneInFlight {
                gap_ns: Nanos::ZERO,
            },
            100,
        )
    };
    let stop = AtomicBool::new(false);

    let good = udp::probe(
        server.addr,
        quick(50),
        Some(key),
        &stop,
        nmc_probe::Watch::default(),
    )
    .unwrap();
    assert_eq!(good.counters.answered, 50);
    assert_eq!(good.config.floor, 76, "60 + 16-byte tag");
    let none = udp::probe(
        server.addr,
        quick(3),
        None,
        &stop,
        nmc_probe::Watch::default(),
    )
    .unwrap();
    assert_eq!(none.counters.lost, 3);
    let bad = udp::probe(
        server.addr,
        quick(3),
        Some(wrong),
        &stop,
        nmc_probe::Watch::default(),
    )
    .unwrap();
    assert_eq!(bad.counters.lost, 3);
    let c = server.stop();
    assert_eq!((c.replied, c.unauthenticated, c.bad_tag), (50, 3, 3));
}

#[test]
fn probe_with_secret_flags_a_server_without_one() {
    let server = RunningServer::start(localhost(1), open_server_config(), None, None);
    let key = Key::new(b"a secret the server does not have").unwrap();
    let cfg = probe_config(
        3,
        LengthSpec::MILLS,
        Pacing::OneInFlight {
            gap_ns: Nanos::ZERO,
        },
        100,
    );
    let run = udp::probe(
        server.addr,
        cfg,
        Some(key),
        &AtomicBool::new(false),
        nmc_probe::Watch::default(),
    )
    .unwrap();
    server.stop();
    assert_eq!(run.counters.unauthenticated, 3);
    assert_eq!(run.counters.lost, 3);
    let text = Summary::of(run, None).text();
    assert!(
        text.contains("does the server have the same secret?"),
        "{text}"
    );
}

#[test]
fn no_server_is_reported_not_hung() {
    // Bind and drop a socket to find a port nobody listens on.
    let port = UdpSocket::bind(localhost(1)).unwrap().local_addr().unwrap();
    let cfg = probe_config(
        3,
        LengthSpec::MILLS,
        Pacing::OneInFlight {
            gap_ns: Nanos::ZERO,
        },
        100,
    );
    let run = udp::probe(
        port,
        cfg,
        None,
        &AtomicBool::new(false),
        nmc_probe::Watch::default(),
    )
    .unwrap();
    // Issue 33: the first port unreachable before any reply ends the run (it used to wait out
    // every volley's timeout: 30 s each by default); nothing answered, nothing counted lost.
    assert!(run.interrupted);
    assert_eq!(run.counters.answered, 0);
    assert!(run.counters.sent < 3, "{:?}", run.counters);
    assert!(run.counters.icmp_errors >= 1);
    assert!(
        Summary::of(run, None)
            .text()
            .contains("is an echo server listening there?")
    );
}

/// Every kind of bad packet, each dropped into its own counter, never answered; the server
/// still answers a good client afterwards.
#[test]
fn server_survives_malformed_packets() {
    let key = Key::new(b"malformed-test-secret-bytes").unwrap();
    let cfg = ServerConfig {
        max_payload: 1472,
        require_tag: true,
        ..open_server_config()
    };
    let server = RunningServer::start(localhost(1), cfg, Some(key.clone()), None);
    let attacker = UdpSocket::bind(localhost(1)).unwrap();
    attacker.connect(server.addr).unwrap();
    let mut good = [0u8; 100];
    wire::encode_request(&mut good, 100, 1, 1, Some(&key)).unwrap();
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("one byte", vec![0x4e]),
        ("truncated header", good[..20].to_vec()),
        ("tagged but too short for the tag", {
            let mut p = good[..40].to_vec();
            p[5] = wire::FLAG_TAGGED;
            p
        }),
        ("oversized", vec![0u8; 9000]),
        ("largest datagram", vec![0u8; 65_507]),
        (
            "garbage",
            (0..200u32).map(|i| (i * 37 % 251) as u8).collect(),
        ),
        ("wrong magic", {
            let mut p = good.to_vec();
            p[0] = b'X';
            p
        }),
        ("future version", {
            let mut p = good.to_vec();
            p[4] = 2;
            p
        }),
        ("unknown flag", {
            let mut p = good.to_vec();
            p[5] |= 0x40;
            p
        }),
        ("a reply, reflected", {
            let mut p = good.to_vec();
            p[5] |= wire::FLAG_REPLY;
            p
        }),
        ("untagged", {
            let mut p = [0u8; 100];
            wire::encode_request(&mut p, 100, 1, 1, None).unwrap();
            p.to_vec()
        }),
        ("forged tag", {
            let mut p = good.to_vec();
            p[99] ^= 1;
            p
        }),
        ("tampered padding", {
            let mut p = good.to_vec();
            p[50] ^= 1;
            p
        }),
    ];
    // And a thousand random datagrams.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for i in 0..1000 {
        let len = (i * 7) % 300;
        let pkt = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        cases.push(("random", pkt));
    }
    // This test counts every datagram, so none may be lost in the server's receive buffer
    // before the server reads it. After every 25 bad packets the attacker sends one good request
    // and waits for its reply: datagrams on loopback to one socket arrive in order, so the reply
    // proves that the server has read every bad packet before it, and none of them was answered.
    attacker
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut buf = [0u8; 2048];
    let mut barriers = 0u64;
    for chunk in cases.chunks(25) {
        for (_, pkt) in chunk {
            attacker.send(pkt).unwrap();
        }
        let mut sync = [0u8; 64];
        wire::encode_request(&mut sync, 64, 1_000_000 + barriers as u32, 7, Some(&key)).unwrap();
        attacker.send(&sync).unwrap();
        let n = attacker
            .recv(&mut buf)
            .expect("the server answers between bad packets");
        let h = wire::decode(&buf[..n]).unwrap();
        assert_eq!(
            h.seq,
            1_000_000 + barriers as u32,
            "only the good request was answered"
        );
        barriers += 1;
    }
    attacker
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    assert!(
        attacker.recv(&mut buf).is_err(),
        "no bad packet was answered"
    );

    let probe_cfg = probe_config(
        20,
        LengthSpec::MILLS,
        Pacing::OneInFlight {
            gap_ns: Nanos::ZERO,
        },
        1_000,
    );
    let run = udp::probe(
        server.addr,
        probe_cfg,
        Some(key),
        &AtomicBool::new(false),
        nmc_probe::Watch::default(),
    )
    .unwrap();
    assert_eq!(run.counters.answered, 20, "a good client is still answered");
    let c = server.stop();
    say(&format!("    after malformed packets: {c}"));
    assert_eq!(c.received, cases.len() as u64 + barriers + 20);
    assert_eq!(c.replied, barriers + 20);
    assert_eq!(c.dropped(), cases.len() as u64);
    assert_eq!(c.oversized, 2);
    assert_eq!(c.bad_version, 1);
    assert_eq!(c.unauthenticated, 1);
    assert!(c.bad_tag >= 2);
}

/// A flood from one source is held to its token bucket; another source is answered as soon as
/// the flood has passed.
/// Bounded: 20 000 datagrams of 64 bytes to 127.0.0.1 as fast as one thread can send them.
#[test]
fn server_survives_a_flood_and_answers_another_client() {
    let (rate, burst) = (1000.0, 100.0);
    let cfg = ServerConfig {
        rate_per_source: rate,
        burst_per_source: burst,
        global_rate: 1e6,
        global_burst: 1e6,
        ..ServerConfig::default()
    };
    let server = RunningServer::start(localhost(1), cfg, None, None);
    let flooder = UdpSocket::bind(localhost(1)).unwrap();
    flooder.connect(server.addr).unwrap();
    let mut pkt = [0u8; 64];
    let n = 20_000u32;
    let t0 = Instant::now();
    for seq in 0..n {
        wire::encode_request(&mut pkt, 64, seq, 0, None).unwrap();
        let _ = flooder.send(&pkt);
    }
    // A flood faster than the server can read also overflows its socket's receive buffer, and
    // the kernel then drops datagrams from every source alike, before any rate limit in user
    // space sees them: no server can promise an answer *during* such a flood. What it must do is
    // survive it and answer at once afterwards, so let it read the backlog first.
    std::thread::sleep(Duration::from_millis(100));
    // A different source address on loopback: its own bucket, full.
    let good_sock = UdpSocket::bind(localhost(2)).unwrap();
    good_sock.connect(server.addr).unwrap();
    let cfg = probe_config(
        50,
        LengthSpec::MILLS,
        Pacing::OneInFlight {
            gap_ns: Nanos::ZERO,
        },
        1_000,
    );
    let run = nmc_probe::udp::probe_on(
        good_sock,
        cfg,
        None,
        &AtomicBool::new(false),
        nmc_probe::Watch::default(),
    )
    .unwrap();
    let elapsed = t0.elapsed().as_secs_f64();
    // Count what the flooder got back.
    flooder
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut replies = 0u64;
    let mut buf = [0u8; 128];
    while flooder.recv(&mut buf).is_ok() {
        replies += 1;
    }
    let c = server.stop();
    say(&format!(
        "    flood of {n} in {:.3} s: flooder got {replies} replies; good client {} of 50; server {c}",
        elapsed, run.counters.answered
    ));
    assert_eq!(run.counters.answered, 50, "the other client is answered");
    let allowed = (burst + rate * (elapsed + 0.2)).ceil() as u64;
    assert!(replies <= allowed, "flooder got {replies} > {allowed}");
    assert!(c.rate_limited > 0);
    assert_eq!(c.received, c.replied + c.dropped());
}
