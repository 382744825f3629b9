//! `Conn::peek_first`, what `nmc serve` dispatches each TCP connection on: it sees the first
//! bytes however they arrive, takes none of them, and returns what there is when the client
//! closes early.

use crate::common::*;
use nmc_serve::{Gate, Limits};
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A gate whose handler peeks four bytes, then reads the whole connection, and answers
/// "<peeked>|<everything read>".
fn peek_server() -> (SocketAddr, Arc<AtomicBool>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let gate = Gate::new("test", Limits::default(), None, Arc::new(|_: &str| {}));
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    std::thread::spawn(move || {
        gate.serve(l, &s, |c| {
            let first = c.peek_first(4)?;
            let mut all = Vec::new();
            c.read_to_end(&mut all)?;
            c.write_all(&first)?;
            c.write_all(b"|")?;
            c.write_all(&all)
        })
    });
    (addr, stop)
}

fn exchange(addr: SocketAddr, parts: &[&[u8]]) -> String {
    let mut s: TcpStream = connect_from("127.0.0.1", addr);
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(Duration::from_millis(30));
        }
        s.write_all(p).unwrap();
    }
    s.shutdown(Shutdown::Write).unwrap();
    let mut back = String::new();
    s.read_to_string(&mut back).unwrap();
    back
}

#[test]
fn the_first_bytes_are_seen_and_left_for_the_reader() {
    let (addr, _stop) = peek_server();
    assert_eq!(exchange(addr, &[b"N508rest"]), "N508|N508rest");
    // In pieces: the peek waits for the fourth byte.
    assert_eq!(exchange(addr, &[b"N", b"50", b"8", b"xyz"]), "N508|N508xyz");
    // Fewer than four, then the client's end: what there is.
    assert_eq!(exchange(addr, &[b"Z"]), "Z|Z");
    assert_eq!(exchange(addr, &[]), "|");
}
