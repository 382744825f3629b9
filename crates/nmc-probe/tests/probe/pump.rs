//! `nmc pump` against the echo server on loopback: every message delivered exactly once and in
//! order, each with its RFNM, over TCP and UDP; hostile frames counted and survived; a host that
//! does not answer ends the run with one line within the timeout. Loopback only, bounded.

use crate::common::{RunningServer, open_server_config};
use nmc_probe::pump::net::{pump, pump_with_key};
use nmc_probe::pump::sender::MessageRecord;
use nmc_probe::pump::sink::SinkCounters;
use nmc_probe::pump::wire::{Header, Kind};
use nmc_probe::pump::{PumpConfig, PumpSummary, PumpTransport};
use nmc_probe::time::Nanos;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, UdpSocket};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

fn cfg(transport: PumpTransport, size: u32, packet: u32, ms: u64) -> PumpConfig {
    PumpConfig {
        transport,
        size,
        outstanding: 4,
        duration: Nanos(ms * 1_000_000),
        packet,
        timeout: Nanos(5_000_000_000),
        session: 0x1974,
        count: None,
        omit: Nanos::ZERO,
    }
}

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// Checks one loopback run: all answered once, in order, no retransmissions, and the server saw
/// exactly the messages sent, each once and in order.
fn exactly_once_in_order(t: PumpTransport, size: u32, packet: u32) {
    let server = RunningServer::start(loopback(), open_server_config(), None, None);
    // Every message as the run hands it out (it keeps none itself).
    let mut records: Vec<MessageRecord> = Vec::new();
    let run = pump_with_key(
        server.addr,
        cfg(t, size, packet, 400),
        None,
        &AtomicBool::new(false),
        None,
        Some(&mut |m| {
            records.push(*m);
            Ok(())
        }),
    )
    .expect("pump");
    let c = server.stop();
    let s = PumpSummary::of(run);
    let n = s.messages_sent as u64;
    assert!(n > 20, "{t}: only {n} messages in 0.4 s on loopback");
    assert_eq!(s.messages_answered as u64, n, "{t}: every message answered");
    let k = s.run.counters;
    assert_eq!(
        (
            k.rfnms,
            k.duplicate_rfnms,
            k.rfnms_out_of_order,
            k.retransmissions
        ),
        (n, 0, 0, 0),
        "{t}: {k:?}"
    );
    assert_eq!(records.len() as u64, n);
    for (i, m) in records.iter().enumerate() {
        assert_eq!(m.seq, i as u64);
        assert_eq!(m.transmissions, 1);
        assert!(m.rfnm.unwrap() >= m.sent);
    }
    let p: SinkCounters = c.pump;
    assert_eq!(
        (
            p.rfnms,
            p.in_order,
            p.out_of_order,
            p.duplicates,
            p.dropped()
        ),
        (n, n, 0, 0, 0),
        "{t}: server {p}"
    );
    assert_eq!(p.bytes, n * u64::from(size));
    // The echo side saw none of it.
    assert_eq!(c.received, 0);
    let text = s.text();
    assert!(text.contains("window limit 4 × "), "{text}");
}

#[test]
fn tcp_delivers_every_message_once_in_order() {
    exactly_once_in_order(PumpTransport::Tcp, 1024, 0);
}

#[test]
fn udp_one_datagram_messages_deliver_once_in_order() {
    exactly_once_in_order(PumpTransport::Udp, 1024, 1200);
}

#[test]
fn udp_eight_packet_messages_deliver_once_in_order() {
    // K&O's message: 1008 bytes in eight 126-byte (1008-bit) packets.
    exactly_once_in_order(PumpTransport::Udp, 1008, 126);
}

#[test]
fn hostile_frames_are_counted_and_the_server_goes_on() {
    let server = RunningServer::start(loopback(), open_server_config(), None, None);
    let u = UdpSocket::bind(loopback()).unwrap();
    u.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let good = |seq: u64, length: u32, index: u16, count: u16| Header {
        kind: Kind::Data,
        session: 9,
        seq,
        length,
        index,
        count,
    };
    let mut bad: Vec<Vec<u8>> = vec![
        b"NMCp".to_vec(), // truncated
        {
            let mut b = good(0, 10, 0, 1).encode().to_vec();
            b[4] = 7; // version
            b.extend([0; 10]);
            b
        },
        {
            let mut b = good(0, 10, 0, 1).encode().to_vec();
            b[5] = 2; // a RFNM sent to the server
            b
        },
        good(0, 10, 0, 1).encode().to_vec(), // no data
        {
            let mut b = good(0, 10, 0, 1).encode().to_vec();
            b.extend([0; 11]); // more than the message
            b
        },
        {
            let mut b = good(0, 10, 5, 3).encode().to_vec(); // index ≥ count
            b.extend([0; 3]);
            b
        },
    ];
    // Two packets of one message that disagree on its length.
    let mut p0 = good(1, 20, 0, 2).encode().to_vec();
    p0.extend([0; 10]);
    let mut p1 = good(1, 30, 1, 2).encode().to_vec();
    p1.extend([0; 10]);
    bad.push(p0);
    bad.push(p1);
    for b in &bad {
        u.send_to(b, server.addr).unwrap();
    }
    let mut buf = [0u8; 64];
    assert!(u.recv_from(&mut buf).is_err(), "nothing is answered");
    // Over TCP a bad header closes the connection; the listener keeps serving.
    let mut t = TcpStream::connect(server.addr).unwrap();
    t.write_all(b"GET / HTTP/1.0\r\n\r\n012345678901").unwrap();
    t.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    assert_eq!(t.read(&mut buf).unwrap_or(0), 0, "closed without an answer");
    let run = pump(
        server.addr,
        cfg(PumpTransport::Tcp, 100, 0, 100),
        &AtomicBool::new(false),
        None,
    )
    .expect("a good pump is still served");
    let c = server.stop().pump;
    assert_eq!(run.counters.rfnms, run.figures.messages() as u64);
    assert_eq!(c.rfnms, run.figures.messages() as u64, "{c}");
    // Malformed: the RFNM, the empty and the overlong datagram, index ≥ count, and the HTTP
    // request over TCP.
    assert_eq!(
        (c.truncated, c.bad_version, c.malformed, c.inconsistent),
        (1, 1, 5, 1),
        "{c}"
    );
    assert_eq!(c.connections, 2);
}

#[test]
fn a_silent_host_ends_the_run_within_the_timeout() {
    // A UDP socket that reads nothing: no RFNM, no ICMP error.
    let silent = UdpSocket::bind(loopback()).unwrap();
    let mut c = cfg(PumpTransport::Udp, 1000, 1200, 5000);
    c.timeout = Nanos(1_000_000_000);
    let t0 = Instant::now();
    let e = pump(
        silent.local_addr().unwrap(),
        c,
        &AtomicBool::new(false),
        None,
    )
    .unwrap_err();
    let took = t0.elapsed();
    let msg = e.to_string();
    assert!(msg.contains("no RFNM for message 0 within 1.000s"), "{msg}");
    assert!(!msg.contains('\n'), "{msg}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    // A port with nothing on it: refused at once, TCP and UDP.
    let free = {
        let s = UdpSocket::bind(loopback()).unwrap();
        s.local_addr().unwrap()
    };
    for t in [PumpTransport::Tcp, PumpTransport::Udp] {
        let e = pump(
            free,
            cfg(t, 1000, 1200, 5000),
            &AtomicBool::new(false),
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("refused"), "{t}: {e}");
    }
}

/// iperf3 `-k`: a run with a count sends exactly that many messages, each answered, and ends
/// when the last RFNM is in, long before its time bound; its throughput is over that time.
#[test]
fn a_run_with_a_count_sends_that_many_and_ends_when_they_are_answered() {
    for t in [PumpTransport::Tcp, PumpTransport::Udp] {
        let server = RunningServer::start(loopback(), open_server_config(), None, None);
        let mut c = cfg(t, 1000, 1200, 60_000);
        c.count = Some(37);
        let began = Instant::now();
        let run = pump(server.addr, c, &AtomicBool::new(false), None).expect("pump");
        let wall = began.elapsed();
        let sink = server.stop();
        let s = PumpSummary::of(run);
        assert_eq!(
            (s.messages_sent, s.messages_answered, s.answered_in_run),
            (37, 37, 37),
            "{t}"
        );
        assert_eq!(sink.pump.rfnms, 37, "{t}: {:?}", sink.pump);
        // The 60 s bound was not waited for (loopback answers in well under a second).
        assert!(wall < Duration::from_secs(30), "{t}: {wall:?}");
        assert!(s.run_seconds < 30.0, "{t}: {}", s.run_seconds);
        let bits = 37.0 * 8000.0;
        assert!(
            (s.throughput_bps * s.run_seconds - bits).abs() < 1.0,
            "{t}: {} bit/s over {} s",
            s.throughput_bps,
            s.run_seconds
        );
    }
}
