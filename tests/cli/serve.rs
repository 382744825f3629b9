//! Issue 34 item 4: `nmc serve` answers every instrument on one port, logs to a file when asked,
//! and stops cleanly on SIGTERM with a last summary of each.

use super::{command, nmc, stderr, tmp};
use std::io::{Read, Write};
use std::process::Stdio;

#[test]
fn one_server_answers_every_instrument_on_one_port() {
    let dir = tmp("serve-one-port");
    let log = dir.join("serve.log");
    let mut child = command()
        .args(["serve", "--listen", "127.0.0.1:0", "--log-every", "0s"])
        .args(["--duration", "120s", "--log-file", log.to_str().unwrap()])
        .stderr(Stdio::null())
        .spawn()
        .expect("nmc serve starts");
    // The address is in the log's first line.
    let mut addr = None;
    for _ in 0..200 {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if let Some(w) = text
            .split_whitespace()
            .find(|w| w.starts_with("127.0.0.1:"))
        {
            addr = Some(
                w.trim_end_matches(|c: char| !c.is_ascii_digit())
                    .to_string(),
            );
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let addr = addr.expect("nmc serve logs its address");
    let out = |name: &str| dir.join(name).display().to_string();
    let runs: [Vec<String>; 7] = [
        [
            "echo",
            "probe",
            &addr,
            "--count",
            "20",
            "--out",
            &out("probe"),
        ]
        .map(String::from)
        .into(),
        ["pump", &addr, "-t", "500ms", "--out", &out("pump")]
            .map(String::from)
            .into(),
        [
            "pump",
            &addr,
            "--transport",
            "udp",
            "-t",
            "500ms",
            "--out",
            &out("pump-udp"),
        ]
        .map(String::from)
        .into(),
        ["pump", &addr, "-R", "-t", "500ms", "--out", &out("pump-r")]
            .map(String::from)
            .into(),
        ["stream", &addr, "--udp", "--ack", "-t", "1s"]
            .map(String::from)
            .into(),
        ["stream", &addr, "-R", "-t", "1s"].map(String::from).into(),
        [
            "cost",
            &addr,
            "--sizes",
            "219,20000",
            "--write-sizes",
            "1KiB",
        ]
        .map(String::from)
        .into(),
    ];
    for args in &runs {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = nmc(&a);
        assert!(o.status.success(), "nmc {}: {}", a.join(" "), stderr(&o));
    }
    // Something that is no instrument's: the cost sink takes it over TCP, as its own server
    // does, and reports what it discarded.
    let mut junk = std::net::TcpStream::connect(&addr).unwrap();
    junk.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    junk.shutdown(std::net::Shutdown::Write).unwrap();
    let mut back = String::new();
    junk.read_to_string(&mut back).unwrap();
    assert!(back.starts_with("nmc-cost-sink v1 bytes=18 "), "{back}");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert!(status.success(), "nmc serve on SIGTERM: {status:?}");
    let text = std::fs::read_to_string(&log).unwrap();
    let last = |prefix: &str| {
        text.lines()
            .rev()
            .find(|l| l.contains(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` line in\n{text}"))
            .to_string()
    };
    // Every line is stamped with its UTC time.
    assert!(
        text.lines()
            .all(|l| l.len() > 25 && &l[10..11] == "T" && &l[23..25] == "Z "),
        "{text}"
    );
    assert!(
        last("nmc serve: stopped after").contains("replied 20"),
        "{text}"
    );
    assert!(last("stream sink: ").contains(" 0 bad frames"), "{text}");
    let cost = last("cost sink: tcp:");
    assert!(cost.contains("tcp: 3 transfers, 20237 bytes"), "{cost}");
    // UDP: 1 + 20 datagrams of data, and after each transfer the client's 5 end markers.
    let end = nmc_cost::live::UDP_END.len();
    let udp = format!("udp: {} datagrams, {} bytes", 21 + 10, 20219 + 10 * end);
    assert!(cost.contains(&udp), "{cost}");
}
