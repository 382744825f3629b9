//! `nmc pump` as a user runs it: `nmc echo serve --pump` and a pump against it on loopback, the
//! files it writes, and one-line errors with exit 2. Loopback only, bounded (about a second).

use super::{command as nmc, tmp};
use std::io::BufRead;
use std::process::{Command, Stdio};

#[test]
fn serve_and_pump_on_loopback() {
    let mut server = nmc()
        .args([
            "echo",
            "serve",
            "--pump",
            "--listen",
            "127.0.0.1:0",
            "--duration",
            "60s",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .expect("nmc echo serve starts");
    let (err, addr) = super::server_address(&mut server);
    for transport in ["tcp", "udp"] {
        let dir = tmp(&format!("cli-pump-{transport}"));
        let o = nmc()
            .args([
                "pump",
                &addr,
                "--transport",
                transport,
                "--duration",
                "500ms",
                "--out",
            ])
            .arg(&dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(
            o.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        for needle in [
            "at most 4 outstanding",
            "throughput over the run",
            "window limit 4 × 1008 bytes",
            "autocorrelation of successive round trips",
        ] {
            assert!(stdout.contains(needle), "{needle} not in {stdout}");
        }
        for f in [
            "messages.csv",
            "summary.json",
            "rtt.svg",
            "rtt-histogram.svg",
            "autocorrelation.svg",
        ] {
            assert!(dir.join(f).is_file(), "{f} missing");
        }
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap())
                .unwrap();
        assert_eq!(json["config"]["outstanding"], 4);
        assert_eq!(json["config"]["transport"], transport);
        assert_eq!(json["messages_sent"], json["messages_answered"]);
        let csv = std::fs::read_to_string(dir.join("messages.csv")).unwrap();
        assert!(csv.starts_with("seq,bytes,sent_ns,rfnm_ns,rtt_ns,transmissions,in_run\n"));
        assert_eq!(
            csv.lines().count() as u64 - 1,
            json["messages_sent"].as_u64().unwrap()
        );
        // Issue 34: the round trips replay through the timeout estimators as they are.
        let rto_out = dir.with_extension("rto");
        let o = Command::new(env!("CARGO_BIN_EXE_nmc"))
            .args(["rto", "evaluate"])
            .arg(dir.join("messages.csv"))
            .arg("--out")
            .arg(&rto_out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(rto_out.join("summary.csv").is_file());
    }
    let ok = Command::new("kill")
        .args(["-INT", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let rest: Vec<String> = err.lines().map_while(Result::ok).collect();
    assert!(server.wait().unwrap().success());
    let log = rest.join("\n");
    assert!(log.contains("pump: datagrams"), "{log}");
    assert!(log.contains("out of order 0, again 0"), "{log}");
}

/// Bad input: exit 2 and one line naming what is wrong.
#[test]
fn bad_pump_input_is_one_line_and_exit_2() {
    // A port nothing listens on.
    let free = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .to_string();
    // A host that takes datagrams and never answers.
    let silent = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let silent_addr = silent.local_addr().unwrap().to_string();
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "silent host",
            &[
                "pump",
                &silent_addr,
                "--transport",
                "udp",
                "--timeout",
                "1s",
            ],
            "no RFNM for message 0 within 1.000s",
        ),
        (
            "unknown transport",
            &["pump", "127.0.0.1", "--transport", "sctp"],
            "`sctp` is not a transport: expected tcp or udp",
        ),
        (
            "zero outstanding",
            &["pump", "127.0.0.1", "--outstanding", "0"],
            "--outstanding 0 is outside",
        ),
        (
            "zero size",
            &["pump", "127.0.0.1", "--size", "0"],
            "--size 0 is outside",
        ),
        (
            "bad size",
            &["pump", "127.0.0.1", "--size", "1kg"],
            "not a size",
        ),
        (
            "too many packets",
            &["pump", "127.0.0.1", "--transport", "udp", "--size", "1MiB"],
            "more than 64 UDP packets",
        ),
        ("bad port", &["pump", "127.0.0.1:http"], "not a port number"),
        (
            "unreachable over tcp",
            &["pump", &free, "--duration", "1s"],
            "refused the pump",
        ),
        (
            "unreachable over udp",
            &["pump", &free, "--transport", "udp", "--duration", "1s"],
            "refused the pump",
        ),
        (
            "a missing secret file",
            &[
                "pump",
                "127.0.0.1",
                "--transport",
                "udp",
                "--secret-file",
                "/nonexistent/nmc-secret",
            ],
            "--secret-file /nonexistent/nmc-secret",
        ),
        (
            "a server's minimum rate of zero",
            &["echo", "serve", "--pump", "--min-rate", "4bit/s"],
            "--min-rate must be at least 1 byte/s",
        ),
        (
            "a server's cap of zero",
            &["sink", "--max-per-source", "0"],
            "--max-per-source 0: must be 1 to 65536",
        ),
    ];
    for (name, args, needle) in cases {
        let t0 = std::time::Instant::now();
        let o = nmc().args(*args).output().unwrap();
        assert!(
            t0.elapsed().as_secs() < 10,
            "{name}: took {:?}",
            t0.elapsed()
        );
        let err = String::from_utf8_lossy(&o.stderr);
        // Issue 58 §3: a server that cannot be reached is exit 3, bad input 2.
        let code = if name.starts_with("unreachable") || *name == "silent host" {
            3
        } else {
            2
        };
        assert_eq!(o.status.code(), Some(code), "{name}: {err}");
        assert!(err.contains(needle), "{name}: `{needle}` not in: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: more than one line: {err}");
    }
    drop(silent);
}

#[test]
fn pump_has_help() {
    let o = nmc().args(["pump", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    for needle in [
        "--outstanding",
        "--transport",
        "--size",
        "4-message",
        "RFNM",
    ] {
        assert!(help.contains(needle), "{needle} not in help");
    }
    assert!(help.contains("-R, --reverse"), "{help}");
}

/// Issue 34 item 3: `nmc pump -R` against `nmc echo serve --pump`, over TCP and UDP: the same
/// report and files, the sender's figures from the server, `"reverse": true`, and the
/// receiver's messages.csv; with -J and -i the document and the lines too. A request the
/// server refuses is one line and exit 2, and the server goes on.
#[test]
fn reverse_pump_on_loopback() {
    let mut server = nmc()
        .args([
            "echo",
            "serve",
            "--pump",
            "--listen",
            "127.0.0.1:0",
            "--duration",
            "60s",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .expect("nmc echo serve starts");
    let (err, addr) = super::server_address(&mut server);
    super::drain(err);
    for transport in ["tcp", "udp"] {
        let dir = tmp(&format!("cli-pump-reverse-{transport}"));
        // The text report over TCP, the JSON document over UDP.
        let json_doc = transport == "udp";
        let o = nmc()
            .args(["pump", &addr, "-R", "--transport", transport, "-t", "500ms"])
            .args(["-i", "100ms", "--out"])
            .arg(&dir)
            .args(json_doc.then_some("-J"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        let out = String::from_utf8_lossy(&o.stdout);
        let lines = if json_doc { &err } else { &out };
        for needle in ["nmc pump --reverse: 1008 bytes a message", "rtt -"] {
            assert!(lines.contains(needle), "{needle} not in {lines}");
        }
        if json_doc {
            let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let end = &doc["end"];
            assert_eq!(end["reverse"], true);
            let (thr, lim) = (
                end["throughput_bit_per_s"].as_f64().unwrap(),
                end["window_limit_bit_per_s"].as_f64().unwrap(),
            );
            assert!(thr > 0.0 && thr <= lim * 1.02, "{transport}: {thr} > {lim}");
            assert_eq!(end["receiver"]["messages"], end["messages_answered"]);
            assert!(!end["intervals"].as_array().unwrap().is_empty());
        } else {
            for needle in [
                "sent and timed by",
                "window limit 4 × 1008 bytes",
                "received here:",
            ] {
                assert!(out.contains(needle), "{needle} not in {out}");
            }
        }
        for f in [
            "messages.csv",
            "summary.json",
            "rtt.svg",
            "rtt-histogram.svg",
            "autocorrelation.svg",
        ] {
            assert!(dir.join(f).is_file(), "{f} missing");
        }
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap())
                .unwrap();
        assert_eq!(json["reverse"], true);
        assert_eq!(json["tool"], "nmc pump");
        assert_eq!(json["config"]["transport"], transport);
        assert_eq!(json["messages_sent"], json["messages_answered"]);
        assert_eq!(json["receiver"]["messages"], json["messages_answered"]);
        let csv = std::fs::read_to_string(dir.join("messages.csv")).unwrap();
        assert!(csv.starts_with("seq,bytes,first_ns,whole_ns,packets,in_run\n"));
        assert_eq!(
            csv.lines().count() as u64 - 1,
            json["messages_answered"].as_u64().unwrap()
        );
    }
    let o = nmc()
        .args(["pump", &addr, "-R", "-t", "2h"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    // Issue 58 §3: refused by the server, exit 3.
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("request refused: --duration 7200.000s is longer than this server's limit"),
        "{err}"
    );
    let o = nmc()
        .args(["pump", &addr, "-R", "-t", "200ms"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let _ = server.kill();
    let _ = server.wait();
}

/// Issue 34 item 3: `nmc pump --bidir` against `nmc serve`, over TCP and UDP: both directions
/// at once, each under its own window limit, each with its files in its own folder and its
/// tagged interval lines; with -J one document holding both. A direction the server refuses
/// stops the other and is one line, exit 2; --bidir with -R is a usage error.
#[test]
fn bidir_pump_on_loopback() {
    let (mut server, addr) = super::serve_loopback(60);
    for transport in ["tcp", "udp"] {
        let dir = tmp(&format!("cli-pump-bidir-{transport}"));
        let o = nmc()
            .args(["pump", &addr, "--bidir", "--transport", transport])
            .args(["-t", "500ms", "-i", "100ms", "-J", "--out"])
            .arg(&dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        for needle in ["nmc pump --bidir:", "[forward] [", "[reverse] ["] {
            assert!(err.contains(needle), "{needle} not in {err}");
        }
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(doc["end"]["bidir"], true);
        for (way, reverse) in [("forward", false), ("reverse", true)] {
            let end = &doc["end"][way];
            assert_eq!(end["reverse"].as_bool().unwrap_or(false), reverse, "{way}");
            let (thr, lim) = (
                end["throughput_bit_per_s"].as_f64().unwrap(),
                end["window_limit_bit_per_s"].as_f64().unwrap(),
            );
            assert!(
                thr > 0.0 && thr <= lim * 1.02,
                "{transport} {way}: {thr} > {lim}"
            );
            assert!(!end["intervals"].as_array().unwrap().is_empty(), "{way}");
            let summary: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join(way).join("summary.json")).unwrap(),
            )
            .unwrap();
            assert_eq!(
                summary["messages_answered"], end["messages_answered"],
                "{way}"
            );
            let csv = std::fs::read_to_string(dir.join(way).join("messages.csv")).unwrap();
            assert!(
                csv.lines().count() > 1,
                "{way}: no messages in messages.csv"
            );
            assert!(dir.join(way).join("rtt.svg").is_file(), "{way}");
        }
    }
    let o = nmc()
        .args(["pump", &addr, "--bidir", "-t", "2h"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("reverse: ") && err.contains("request refused"),
        "{err}"
    );
    let o = nmc()
        .args(["pump", &addr, "--bidir", "-R"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let _ = server.kill();
    let _ = server.wait();
}

/// Issue 58 §5: `-P 3` pumps over three connections at once, as iperf3 -P: each its own
/// session, files and tagged lines, and a `[SUM]`; forward and with -R, TCP and UDP.
#[test]
fn parallel_pump_on_loopback() {
    let (mut server, addr) = super::serve_loopback(60);
    for (transport, reverse) in [("tcp", false), ("udp", false), ("tcp", true)] {
        let dir = tmp(&format!("cli-pump-parallel-{transport}-{reverse}"));
        let mut c = nmc();
        c.args(["pump", &addr, "-P", "3", "--transport", transport])
            .args(["-t", "500ms", "-i", "100ms", "-J", "--out"])
            .arg(&dir);
        if reverse {
            c.arg("-R");
        }
        let o = c.output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        for needle in ["[1] [", "[2] [", "[3] ["] {
            assert!(err.contains(needle), "{needle} not in {err}");
        }
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let end = &doc["end"];
        assert_eq!(end["parallel"], 3);
        let streams = end["streams"].as_array().unwrap();
        assert_eq!(streams.len(), 3);
        let (mut sent, mut thr) = (0, 0.0);
        for (i, st) in streams.iter().enumerate() {
            assert!(st["messages_answered"].as_u64().unwrap() > 0, "{i}: {st}");
            assert_eq!(st["reverse"].as_bool().unwrap_or(false), reverse);
            sent += st["messages_sent"].as_u64().unwrap();
            thr += st["throughput_bit_per_s"].as_f64().unwrap();
            let summary: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join(format!("p{}", i + 1)).join("summary.json"))
                    .unwrap(),
            )
            .unwrap();
            assert_eq!(summary["messages_answered"], st["messages_answered"]);
        }
        assert_eq!(end["sum"]["messages_sent"], sent);
        assert!((end["sum"]["throughput_bit_per_s"].as_f64().unwrap() - thr).abs() < 1.0);
    }
    let o = nmc()
        .args(["pump", &addr, "-P", "2", "-t", "300ms"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", super::stderr(&o));
    assert!(text.contains("[SUM] 2 connections:"), "{text}");
    for bad in [&["-P", "0"][..], &["-P", "65"], &["-P", "2", "--bidir"]] {
        let o = nmc().args(["pump", &addr]).args(bad).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
    }
    let _ = server.kill();
    let _ = server.wait();
}

/// Without --reverse the summary says nothing of it (forward output unchanged).
#[test]
fn forward_summary_has_no_reverse_keys() {
    let mut server = nmc()
        .args([
            "echo",
            "serve",
            "--pump",
            "--listen",
            "127.0.0.1:0",
            "--duration",
            "30s",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (err, addr) = super::server_address(&mut server);
    super::drain(err);
    let dir = tmp("cli-pump-forward-keys");
    let o = nmc()
        .args(["pump", &addr, "-t", "200ms", "-J", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success());
    let doc = String::from_utf8_lossy(&o.stdout);
    let summary = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    for text in [&*doc, &summary] {
        assert!(
            !text.contains("reverse") && !text.contains("receiver"),
            "{text}"
        );
    }
    assert!(dir.join("messages.csv").exists());
    // Issue 58 §6: --no-messages writes no messages.csv, and the same summary keys.
    let quiet = tmp("cli-pump-no-messages");
    let o = nmc()
        .args(["pump", &addr, "-t", "200ms", "--no-messages", "--out"])
        .arg(&quiet)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", super::stderr(&o));
    assert!(!quiet.join("messages.csv").exists());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("messages.csv"), "{text}");
    let keys = |p: &std::path::Path| -> Vec<String> {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p.join("summary.json")).unwrap())
                .unwrap();
        v.as_object().unwrap().keys().cloned().collect()
    };
    assert_eq!(keys(&quiet), keys(&dir));
    let _ = server.kill();
    let _ = server.wait();
}

/// Issue 34: the secret covers the pump over UDP too, both ways: every datagram carries its
/// tag, so a server with a secret serves `--transport udp` forward and with `-R`, and counts
/// nothing as unauthenticated.
#[test]
fn the_pump_over_udp_takes_the_secret_both_ways() {
    let dir = tmp("cli-pump-udp-secret");
    let secret = dir.join("secret");
    std::fs::write(&secret, "0123456789abcdef-udp-pump-secret").unwrap();
    let secret = secret.to_str().unwrap();
    let mut server = nmc()
        .args(["echo", "serve", "--pump", "--listen", "127.0.0.1:0"])
        .args([
            "--log-every",
            "0s",
            "--duration",
            "60s",
            "--secret-file",
            secret,
        ])
        .stderr(Stdio::piped())
        .spawn()
        .expect("nmc echo serve starts");
    let (err, addr) = super::server_address(&mut server);
    for reverse in [false, true] {
        let o = nmc()
            .args(["pump", &addr, "--transport", "udp", "-t", "500ms", "-J"])
            .args(["--secret-file", secret])
            .args(reverse.then_some("-R"))
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "reverse {reverse}: {e}");
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        // Answered: RFNMs whose tags the sender checked (the server's, with -R).
        let n = doc["end"]["messages_answered"].as_u64();
        assert!(
            n.is_some_and(|n| n > 0),
            "reverse {reverse}: {}",
            doc["end"]
        );
        if reverse {
            let got = doc["end"]["receiver"]["messages"].as_u64();
            assert!(got.is_some_and(|n| n > 0), "{}", doc["end"]);
        }
    }
    // Its summary at the end: no datagram was refused for its tag.
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status();
    let _ = server.wait();
    let log: Vec<String> = std::io::BufRead::lines(err).map_while(Result::ok).collect();
    let pump_line = log
        .iter()
        .rev()
        .find(|l| l.contains("unauthenticated"))
        .unwrap_or_else(|| panic!("{log:?}"));
    assert!(pump_line.contains("unauthenticated 0"), "{pump_line}");
}

/// Waits for `child` at most `limit`, killing it past that: how long it ran, and its output.
fn wait_at_most(
    mut child: std::process::Child,
    limit: std::time::Duration,
) -> (std::time::Duration, std::process::Output) {
    let t0 = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() && t0.elapsed() < limit {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let took = t0.elapsed();
    let _ = child.kill();
    (took, child.wait_with_output().unwrap())
}

/// Issue 57 §4: a reverse run against a server that takes the request, then sends DATA for
/// ever and never its result, held the client for ever (75 s and counting with `-t 1s
/// --timeout 3s`; SIGTERM only asked the server to stop). It now gives up at `--duration` +
/// 3 × `--timeout` after the request, in one line, exit 2.
#[test]
fn a_reverse_pump_gives_up_on_a_server_that_never_sends_its_result() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let Ok((mut s, _)) = listener.accept() else {
            return;
        };
        // The REQUEST: a 28-byte header (session at bytes 8..12) and a 32-byte body.
        let mut req = [0u8; 60];
        if s.read_exact(&mut req).is_err() {
            return;
        }
        let session = u32::from_be_bytes(req[8..12].try_into().unwrap());
        // Read and drop the client's RFNMs.
        let mut rfnms = s.try_clone().unwrap();
        std::thread::spawn(move || {
            let mut b = [0u8; 4096];
            while matches!(rfnms.read(&mut b), Ok(n) if n > 0) {}
        });
        // DATA frames of 1000 bytes, numbered, for ever (until the client goes).
        let size = 1000u32;
        for seq in 0u64.. {
            let mut f = b"NMCp\x01\x01\x00\x00".to_vec();
            f.extend_from_slice(&session.to_be_bytes());
            f.extend_from_slice(&seq.to_be_bytes());
            f.extend_from_slice(&size.to_be_bytes());
            f.extend_from_slice(&[0, 0, 0, 1]);
            f.resize(28 + size as usize, 0);
            if s.write_all(&f).is_err() {
                return;
            }
        }
    });
    let dir = tmp("cli-pump-reverse-no-result");
    let child = nmc()
        .args(["pump", "-R", &addr, "-t", "1s", "--timeout", "1s", "--out"])
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The deadline is 1 s + 3 × 1 s = 4 s; 6 s more for a loaded machine.
    let (took, o) = wait_at_most(child, std::time::Duration::from_secs(10));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        took < std::time::Duration::from_secs(10),
        "still running after {took:?}: {err}"
    );
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!(
            "{addr} sent no result within 4.000s of the request"
        )),
        "{err}"
    );
}

/// Issue 57 §6: a server that sends the secret's challenge and then nothing surfaced as
/// "Resource temporarily unavailable (os error 11)". A timed-out read or write in the
/// handshake now says who did not answer within what.
#[test]
fn a_server_silent_after_its_challenge_is_named_with_the_timeout() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let Ok((mut s, _)) = listener.accept() else {
            return;
        };
        // The challenge (magic and a nonce), then read the answer and say nothing.
        let mut c = b"NMCauth1".to_vec();
        c.extend_from_slice(&[7u8; 16]);
        let _ = s.write_all(&c);
        let mut b = [0u8; 4096];
        while matches!(s.read(&mut b), Ok(n) if n > 0) {}
    });
    let dir = tmp("cli-pump-silent-after-challenge");
    let secret = dir.join("secret");
    std::fs::write(&secret, "a secret of more than sixteen bytes\n").unwrap();
    let child = nmc()
        .args([
            "pump",
            &addr,
            "-t",
            "1s",
            "--timeout",
            "1s",
            "--secret-file",
        ])
        .arg(&secret)
        .arg("--out")
        .arg(dir.join("out"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (_, o) = wait_at_most(child, std::time::Duration::from_secs(20));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("os error"), "{err}");
    assert!(
        err.contains(&format!(
            "no answer from {addr} within 1.000s after its secret's challenge"
        )),
        "{err}"
    );
}

/// Issue 57 §6: `--bidir` against a server that admits one connection from an address
/// (`--max-per-source 1`) was told the server wants a secret. The direction refused now names
/// the connection limits, and no secret.
#[test]
fn bidir_refused_by_the_per_source_cap_names_the_limits_not_a_secret() {
    let mut server = nmc()
        .args([
            "echo",
            "serve",
            "--pump",
            "--listen",
            "127.0.0.1:0",
            "--max-per-source",
            "1",
            "--duration",
            "60s",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .expect("nmc echo serve starts");
    let (err, addr) = super::server_address(&mut server);
    super::drain(err);
    let dir = tmp("cli-pump-bidir-per-source");
    let child = nmc()
        .args([
            "pump",
            "--bidir",
            &addr,
            "-t",
            "1s",
            "--timeout",
            "1s",
            "--out",
        ])
        .arg(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (_, o) = wait_at_most(child, std::time::Duration::from_secs(20));
    let _ = server.kill();
    let _ = server.wait();
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(!e.contains("secret"), "{e}");
    assert!(e.contains("--max-per-source"), "{e}");
}

/// Issue 75 §3: `-k`, `-n` and `-O` with `-R` and `--bidir`, carried in the bounded REQUEST:
/// the server sends exactly the messages asked for (each direction with --bidir), or leaves
/// the warm-up out of the figures it sends back, over TCP and UDP.
#[test]
fn reverse_and_bidir_pumps_take_a_count_and_a_warm_up() {
    let mut server = nmc()
        .args(["serve", "--listen", "127.0.0.1:0", "--duration", "120s"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("nmc serve starts");
    let (err, addr) = super::server_address(&mut server);
    super::drain(err);
    let doc = |args: &[&str]| {
        let dir = tmp(&format!(
            "cli-pump-bounded-{}",
            args.join("").replace('-', "")
        ));
        let o = nmc()
            .args(["pump", &addr, "-J", "--out"])
            .arg(&dir)
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(o.status.success(), "{args:?}: {err}");
        let d: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        (d, err)
    };
    for transport in ["tcp", "udp"] {
        // -k 7 in reverse: the server sends 7 and the receiver has 7.
        let (d, err) = doc(&["-R", "-k", "7", "--size", "1000", "--transport", transport]);
        assert!(err.contains("7 messages"), "{err}");
        let end = &d["end"];
        assert_eq!(end["reverse"], true);
        assert_eq!(end["messages_sent"], 7, "{transport}: {end}");
        assert_eq!(end["messages_answered"], 7, "{transport}");
        assert_eq!(end["receiver"]["messages"], 7, "{transport}");
        assert_eq!(d["parameters"]["count"], 7);
    }
    // -n 5000 with --bidir: ⌈5000 / 1000⌉ = 5 messages each way.
    let (d, _) = doc(&["--bidir", "-n", "5000", "--size", "1000"]);
    for way in ["forward", "reverse"] {
        assert_eq!(d["end"][way]["messages_answered"], 5, "{way}: {d}");
    }
    assert_eq!(d["end"]["reverse"]["receiver"]["messages"], 5);
    // -O in reverse: the server's figures leave the warm-up out and say what it carried; the
    // receiver's lines within it are marked.
    let (d, _) = doc(&["-R", "-O", "300ms", "-t", "500ms", "-i", "100ms"]);
    let end = &d["end"];
    assert_eq!(d["parameters"]["omit_s"], 0.3, "{d}");
    assert_eq!(end["omitted"]["duration_s"], 0.3, "{end}");
    assert!(end["omitted"]["answered"].as_u64().unwrap() > 0, "{end}");
    let marks: Vec<bool> = end["intervals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["omitted"].as_bool().unwrap_or(false))
        .collect();
    assert_eq!(&marks[..4], [true, true, true, false], "{marks:?}");
    assert!(
        end["receiver"]["messages_in_run"].as_u64().unwrap()
            < end["receiver"]["messages"].as_u64().unwrap(),
        "the receiver leaves the warm-up out too: {end}"
    );
    let _ = server.kill();
    let _ = server.wait();
}

/// Issue 75 §3: a server from before the bounded REQUEST refuses its 48-byte body with its
/// ERROR ("a body of 48 bytes, not 32"), simulated here byte for byte; the client names the
/// flags the server cannot take, in one line, exit 3 — it never runs without the bound.
#[test]
fn an_older_server_refusing_a_bounded_reverse_run_is_one_line() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for s in listener.incoming().take(2) {
            let Ok(mut s) = s else { return };
            let mut h = [0u8; 28];
            if s.read_exact(&mut h).is_err() {
                return;
            }
            let len = u32::from_be_bytes(h[20..24].try_into().unwrap());
            let mut body = vec![0u8; len as usize];
            let _ = s.read_exact(&mut body);
            // The older server's check: a body of exactly 32 bytes.
            let why = format!("malformed reverse request: a body of {len} bytes, not 32");
            let mut f = h;
            f[5] = 4; // ERROR
            f[12..20].fill(0);
            f[20..24].copy_from_slice(&(why.len() as u32).to_be_bytes());
            let _ = s.write_all(&f);
            let _ = s.write_all(why.as_bytes());
        }
    });
    for (args, names) in [
        (&["-k", "5"][..], "-k/-n"),
        (&["-O", "1s", "-t", "1s"][..], "-O"),
    ] {
        let dir = tmp("cli-pump-older-server");
        let o = nmc()
            .args(["pump", "-R", &addr, "--out"])
            .arg(&dir)
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("an older nmc that cannot bound a run it sends") && err.contains(names),
            "{err}"
        );
    }
}
