//! A line server on the gate; the clients that connect to it from chosen loopback addresses
//! are in [`sources`].
#![allow(dead_code)]

mod sources;
pub use sources::*;

use nmc_serve::{Gate, Key, Limits};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Starts a gate whose handler answers each line with "ok\n". Returns its address, the gate
/// (for its counters) and the stop flag.
pub fn line_server(limits: Limits, key: Option<Key>) -> (SocketAddr, Gate, Arc<AtomicBool>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let gate = Gate::new("test", limits, key, Arc::new(|_: &str| {}));
    let stop = Arc::new(AtomicBool::new(false));
    let (g, s) = (gate.clone(), stop.clone());
    std::thread::spawn(move || {
        g.serve(l, &s, |c| {
            let mut b = [0u8; 256];
            loop {
                let n = c.read(&mut b)?;
                if n == 0 {
                    return Ok(());
                }
                if b[..n].contains(&b'\n') {
                    c.write_all(b"ok\n")?;
                }
            }
        })
    });
    (addr, gate, stop)
}

/// One request on `s`: true when it was answered.
pub fn served(s: &mut TcpStream) -> bool {
    if s.write_all(b"hello\n").is_err() {
        return false;
    }
    let mut b = [0u8; 3];
    s.read_exact(&mut b).is_ok() && &b == b"ok\n"
}

/// A fresh client from `from` is served within `within`, trying every 100 ms.
pub fn served_within(from: &str, to: SocketAddr, within: Duration) -> bool {
    let until = Instant::now() + within;
    while Instant::now() < until {
        let mut s = connect_from(from, to);
        if served(&mut s) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}
