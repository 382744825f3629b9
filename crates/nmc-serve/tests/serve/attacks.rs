//! The gate under the attacks, on loopback, bounded in count and time. Windows are
//! shortened (1 s) so each test takes a few seconds; the rules are the defaults' rules.

use crate::common::*;
use nmc_serve::{Key, Limits};
use std::io::{Read, Write};
use std::time::{Duration, Instant};

fn limits(max: usize, per_source: usize) -> Limits {
    Limits {
        max_connections: max,
        max_per_source: per_source,
        window: Duration::from_secs(1),
        // 200 bytes a window: a real request is 6 bytes, but it is answered at once and the
        // client closes well inside its first window, so the rule never judges it.
        min_rate: 200,
        handshake: Duration::from_millis(500),
        grace: nmc_serve::gate::DEFAULT_GRACE,
    }
}

/// Issue 33: connections sending one byte now and then held every slot, because each byte
/// restarted the idle timer. Under the gate they are closed at the end of their first window,
/// and a real client is served.
#[test]
fn trickle_cannot_hold_the_slots() {
    let (addr, gate, _stop) = line_server(limits(4, 4), None);
    let mut trickle: Vec<_> = (0..4).map(|_| connect_from("127.0.0.2", addr)).collect();
    assert!(eventually(Duration::from_secs(2), || gate
        .counters()
        .snapshot()
        .active
        == 4));
    // Every slot is held: a real client is refused (read sees the close, not "ok").
    let mut real = connect_from("127.0.0.3", addr);
    assert!(!served(&mut real), "the cap let a fifth connection in");
    let started = Instant::now();
    let mut open = trickle.len();
    // One byte each every 100 ms: 10 bytes/s against the 200 required. Bounded: 4 s at most.
    while open > 0 && started.elapsed() < Duration::from_secs(4) {
        open = 0;
        for t in &mut trickle {
            if t.write_all(b"x").is_ok() {
                open += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    for t in &mut trickle {
        assert!(
            closed_within(t, Duration::from_secs(1)),
            "a trickler kept its slot"
        );
    }
    assert_eq!(gate.counters().snapshot().closed_slow, 4);
    assert!(served_within("127.0.0.3", addr, Duration::from_secs(2)));
}

/// More idle connections than the cap. From one source: it gets its share and no more, and a
/// real client from elsewhere is served at once. From many sources: the slots fill, the excess
/// is refused and counted, and the idle ones are dropped after one window so a real client is
/// served.
#[test]
fn idle_flood_is_capped_and_dropped() {
    let (addr, gate, _stop) = line_server(limits(6, 2), None);
    let _one: Vec<_> = (0..10).map(|_| connect_from("127.0.0.2", addr)).collect();
    assert!(eventually(Duration::from_secs(2), || {
        gate.counters().snapshot().refused_source == 8
    }));
    let mut real = connect_from("127.0.0.9", addr);
    assert!(
        served(&mut real),
        "one source's flood kept out a real client"
    );
    drop(real);
    assert!(eventually(Duration::from_secs(2), || gate
        .counters()
        .snapshot()
        .active
        == 2));
    let _many: Vec<_> = (3..=6)
        .flat_map(|i| (0..2).map(move |_| format!("127.0.0.{i}")))
        .map(|from| connect_from(&from, addr))
        .collect();
    assert!(eventually(Duration::from_secs(2), || {
        let c = gate.counters().snapshot();
        c.active == 6 && c.refused_full >= 2
    }));
    // Full now; the idle ones go at the end of their window (1 s), then the real one is in.
    assert!(served_within("127.0.0.9", addr, Duration::from_secs(4)));
    assert!(eventually(Duration::from_secs(3), || {
        gate.counters().snapshot().closed_slow == 6
    }));
}

/// A client that stops reading the server's replies is closed too: only received bytes count,
/// so the server's blocked write does not hold a slot.
#[test]
fn a_client_that_never_reads_is_closed() {
    let (addr, gate, _stop) = line_server(limits(2, 2), None);
    let mut s = connect_from("127.0.0.2", addr);
    // Ask for answers and never read them, until the socket buffers are full: then stop.
    s.set_nonblocking(true).unwrap();
    let many = vec![b'\n'; 4096];
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(4) {
        if s.write(&many).is_err() {
            break;
        }
    }
    s.set_nonblocking(false).unwrap();
    assert!(eventually(Duration::from_secs(4), || {
        gate.counters().snapshot().closed_slow == 1
    }));
    assert!(served_within("127.0.0.3", addr, Duration::from_secs(2)));
}

#[test]
fn secret_right_served_wrong_and_none_refused() {
    let key = Key::new(b"0123456789abcdef-gate-test").unwrap();
    let (addr, gate, _stop) = line_server(limits(4, 4), Some(key.clone()));
    // Right secret: the handshake passes and the request is answered.
    let mut s = connect_from("127.0.0.1", addr);
    nmc_serve::auth::answer(&mut s, &key).unwrap();
    assert!(served(&mut s));
    // Wrong secret: refused.
    let wrong = Key::new(b"another-secret-of-16-bytes").unwrap();
    let mut s = connect_from("127.0.0.1", addr);
    let e = nmc_serve::auth::answer(&mut s, &wrong).unwrap_err();
    assert!(matches!(e, nmc_serve::auth::AuthError::Refused), "{e}");
    // No secret: its request is taken as a (wrong) answer... after the challenge it did not
    // expect; it is never answered "ok".
    let mut s = connect_from("127.0.0.1", addr);
    s.write_all(&[b'\n'; 32]).unwrap();
    let mut all = Vec::new();
    let _ = s.read_to_end(&mut all);
    assert!(!all.windows(3).any(|w| w == b"ok\n"));
    assert!(eventually(Duration::from_secs(1), || gate
        .counters()
        .snapshot()
        .bad_secret
        == 2));
    // Silent: closed at the handshake deadline (500 ms), long before the window.
    let mut s = connect_from("127.0.0.1", addr);
    assert!(closed_within(&mut s, Duration::from_secs(2)));
    assert!(eventually(Duration::from_secs(1), || {
        gate.counters().snapshot().closed_handshake == 1
    }));
}

/// A client with a secret facing a server without one is told so, not left waiting.
#[test]
fn secret_client_against_open_server_says_so() {
    let (addr, _gate, _stop) = line_server(limits(4, 4), None);
    let key = Key::new(b"0123456789abcdef-gate-test").unwrap();
    let mut s = connect_from("127.0.0.1", addr);
    s.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let e = nmc_serve::auth::answer(&mut s, &key).unwrap_err();
    assert!(matches!(e, nmc_serve::auth::AuthError::NoChallenge), "{e}");
}

/// Issue 57 §6: a client with the secret turned away by a full server is told it was turned
/// away, not that the server asked for no secret.
#[test]
fn a_secret_client_turned_away_by_a_full_server_is_told_so() {
    let key = Key::new(b"0123456789abcdef-gate-test").unwrap();
    let (addr, _gate, _stop) = line_server(limits(4, 1), Some(key.clone()));
    // The one slot this address may hold, taken (inside its grace, so not evicted).
    let _held = connect_from("127.0.0.1", addr);
    std::thread::sleep(Duration::from_millis(100));
    let mut s = connect_from("127.0.0.1", addr);
    s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let e = nmc_serve::auth::answer(&mut s, &key).unwrap_err();
    assert!(matches!(e, nmc_serve::auth::AuthError::Closed), "{e}");
    assert!(e.to_string().contains("turned this connection away"), "{e}");
}

/// The handshake's deadline is absolute: an answer trickled a byte at a time cannot stretch it.
#[test]
fn a_trickled_answer_cannot_stretch_the_handshake() {
    let key = Key::new(b"0123456789abcdef-gate-test").unwrap();
    let mut l = limits(4, 4);
    // A window far longer than the deadline, so only the deadline can close it.
    l.window = Duration::from_secs(30);
    l.min_rate = 1;
    let (addr, gate, _stop) = line_server(l, Some(key));
    let mut s = connect_from("127.0.0.2", addr);
    let mut challenge = [0u8; nmc_serve::auth::CHALLENGE_LEN];
    s.read_exact(&mut challenge).unwrap();
    let started = Instant::now();
    // 31 of the 32 answer bytes, one every 100 ms: 3.1 s if nothing stopped it.
    for _ in 0..31 {
        if s.write_all(b"a").is_err() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        if gate.counters().snapshot().closed_handshake == 1 {
            break;
        }
    }
    assert!(closed_within(&mut s, Duration::from_secs(1)));
    assert_eq!(gate.counters().snapshot().closed_handshake, 1);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "the trickle stretched the deadline"
    );
}

/// Issue 57 §2: idle connections that fill every slot and are reopened the moment the gate
/// closes them kept every real client out (they were judged only at the end of each window, and
/// reopened). Now an unpaid slot goes to a newcomer once its grace is over, so a real client is
/// served while the attack goes on; with a secret, the same against connections that never
/// answer the challenge. No timing is asserted: the attack runs past the grace and the real
/// client must then be served, each time.
#[test]
fn a_reconnecting_idle_attacker_cannot_keep_a_client_out() {
    let sources = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"];
    let key = Key::new(b"0123456789abcdef-gate-test").unwrap();
    for key in [None, Some(key)] {
        let l = Limits {
            max_connections: 8,
            max_per_source: 2,
            // Long windows: only the new rule can free a slot during the test.
            window: Duration::from_secs(30),
            min_rate: 100,
            ..Limits::default()
        };
        let (addr, gate, _stop) = line_server(l, key.clone());
        let attack = Reconnecting::start(&sources, 2, addr);
        assert!(eventually(Duration::from_secs(5), || attack.open() == 8
            && gate.counters().snapshot().active == 8));
        // Past the grace a new connection has to pay for its slot (2 s by default).
        std::thread::sleep(Duration::from_millis(2500));
        for i in 0..3 {
            let mut s = connect_from("127.0.0.9", addr);
            if let Some(k) = &key {
                nmc_serve::auth::answer(&mut s, k)
                    .unwrap_or_else(|e| panic!("secret {}: run {i}: {e}", key.is_some()));
            }
            assert!(
                served(&mut s),
                "secret {}: run {i}: the attackers kept the client out",
                key.is_some()
            );
        }
        // The first client's slot (at least) was an attacker's: every slot was taken.
        assert!(gate.counters().snapshot().evicted >= 1);
        drop(attack);
    }
}
