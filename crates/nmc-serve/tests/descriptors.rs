//! The gate at the descriptor limit. In a test binary of its own: it lowers this process's
//! RLIMIT_NOFILE, which no other test should share.
// /proc/self/fd and the descriptor numbering it relies on: Linux only.
#![cfg(target_os = "linux")]

mod common;
use common::*;
use nmc_serve::Limits;
use socket2::{Domain, Socket, Type};
use std::os::fd::AsRawFd;
use std::time::Duration;

/// Lowers the descriptor limit so that exactly `free` numbers remain for new descriptors: the
/// holes below the highest open descriptor (an inherited one may sit far up) are filled with
/// `/dev/null`, `free` of them given back, and the limit set just above the highest. Returns the
/// fillers, to be kept open.
fn leave_free(free: usize) -> Vec<std::fs::File> {
    let highest: i32 = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .max()
        .unwrap();
    let mut fillers = Vec::new();
    loop {
        let f = std::fs::File::open("/dev/null").unwrap();
        if f.as_raw_fd() > highest {
            break;
        }
        fillers.push(f);
    }
    fillers.truncate(fillers.len().saturating_sub(free));
    set_soft_nofile(highest as u64 + 1);
    fillers
}

fn set_soft_nofile(n: u64) {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit write and read a struct we own.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut r), 0);
        r.rlim_cur = n.min(r.rlim_max);
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &r), 0);
    }
}

/// Issue 33: ~1,020 idle connections exhausted the descriptors and the whole process exited.
/// Here the limit is lowered so 8 more descriptors remain, and 40 connections arrive: the gate
/// refuses what it cannot take, keeps serving the connection it had, and serves a new client
/// once the flood is gone.
#[test]
fn out_of_descriptors_refuses_new_and_serves_the_rest() {
    let limits = Limits {
        max_per_source: 1000,
        max_connections: 1000,
        ..Limits::default()
    };
    let (addr, gate, _stop) = line_server(limits, None);
    let mut first = connect_from("127.0.0.1", addr);
    assert!(served(&mut first));
    // The flood's own sockets are made before the limit is lowered (a connect takes no new
    // descriptor), so only the server runs short.
    let flood: Vec<Socket> = (0..40)
        .map(|_| Socket::new(Domain::IPV4, Type::STREAM, None).unwrap())
        .collect();
    let original = {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: as above.
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) };
        r.rlim_cur
    };
    let fillers = leave_free(8);
    for s in &flood {
        s.connect_timeout(&addr.into(), Duration::from_secs(2))
            .unwrap();
    }
    assert!(
        eventually(Duration::from_secs(5), || {
            let c = gate.counters().snapshot();
            c.accept_errors >= 1 && c.refused_descriptors >= 1
        }),
        "{}",
        gate.counters().snapshot()
    );
    // The connection admitted before the flood is still served.
    assert!(served(&mut first), "the admitted connection was dropped");
    drop(flood);
    drop(fillers);
    set_soft_nofile(original);
    assert!(served_within("127.0.0.1", addr, Duration::from_secs(5)));
    assert!(served(&mut first));
}
