//! Issue 34 item 4: `nmc serve` answers every instrument on one port, logs to a file when asked,
//! and stops cleanly on SIGTERM with a last summary of each.

use super::{command, nmc, stderr, tmp};
use std::io::{Read, Write};
use std::process::Stdio;

/// Starts `nmc serve` on a free loopback port with `extra` options, logging to `log`; returns
/// it and its address (from the log's first line).
fn start(log: &std::path::Path, extra: &[&str]) -> (std::process::Child, String) {
    let child = command()
        .args(["serve", "--listen", "127.0.0.1:0", "--log-every", "0s"])
        .args(["--duration", "120s", "--log-file", log.to_str().unwrap()])
        .args(extra)
        .stderr(Stdio::null())
        .spawn()
        .expect("nmc serve starts");
    let mut addr = None;
    for _ in 0..200 {
        let text = std::fs::read_to_string(log).unwrap_or_default();
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
    (child, addr.expect("nmc serve logs its address"))
}

/// Stops `child` with SIGTERM, as a service manager does; it must exit 0.
fn stop(mut child: std::process::Child) {
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert!(status.success(), "nmc serve on SIGTERM: {status:?}");
}

/// The last log line that contains `what`.
fn last(text: &str, what: &str) -> String {
    text.lines()
        .rev()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no `{what}` line in\n{text}"))
        .to_string()
}

#[test]
fn one_server_answers_every_instrument_on_one_port() {
    let dir = tmp("serve-one-port");
    let log = dir.join("serve.log");
    let (child, addr) = start(&log, &[]);
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
    stop(child);
    let text = std::fs::read_to_string(&log).unwrap();
    let last = |what: &str| last(&text, what);
    // Every line is stamped with its UTC time.
    assert!(
        text.lines()
            .all(|l| l.len() > 25 && &l[10..11] == "T" && &l[23..25] == "Z "),
        "{text}"
    );
    // The probe's 20 volleys, and the opening of cost's UDP run (issue 58 §1: the echo
    // server's request, sent again only if its answer has not come within 250 ms).
    let replied: u64 = last("nmc serve: stopped after")
        .split("replied ")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no `replied N` in\n{text}"));
    assert!((21..=40).contains(&replied), "{text}");
    let stream = last("stream sink: ");
    assert!(
        stream.contains(" 0 bad frames") && stream.ends_with(" 1 reverse runs"),
        "{stream}"
    );
    assert!(
        last("nmc serve: pump:").ends_with(" reverse runs 1"),
        "{text}"
    );
    let cost = last("cost sink: tcp:");
    assert!(cost.contains("tcp: 3 transfers, 20237 bytes"), "{cost}");
    // UDP: 1 + 20 datagrams of data, and after each transfer the client's 5 end markers.
    let end = nmc_cost::live::UDP_END.len();
    let udp = format!("udp: {} datagrams, {} bytes", 21 + 10, 20219 + 10 * end);
    assert!(cost.contains(&udp), "{cost}");
}

/// With a secret, every instrument that can carry its tag does, over UDP too: the echo probe,
/// the pump (forward and -R) and the stream (forward and -R) are served, and the server counts
/// nothing of theirs as unauthenticated.
#[test]
fn one_secret_covers_every_instrument_over_udp() {
    let dir = tmp("serve-secret-udp");
    let secret = dir.join("secret");
    std::fs::write(&secret, "0123456789abcdef-one-secret").unwrap();
    let secret = secret.to_str().unwrap();
    let log = dir.join("serve.log");
    let (child, addr) = start(&log, &["--secret-file", secret]);
    let with = |args: &[&str]| {
        let o = command()
            .args(args)
            .args(["--secret-file", secret])
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        super::text(&o.stdout)
    };
    with(&[
        "echo",
        "probe",
        &addr,
        "--count",
        "10",
        "--out",
        &dir.join("p").display().to_string(),
    ]);
    for r in [None, Some("-R")] {
        with(
            &[
                &["pump", &addr, "--transport", "udp", "-t", "300ms"][..],
                r.as_slice(),
            ]
            .concat(),
        );
        let out = with(
            &[
                &["stream", &addr, "--udp", "--ack", "-t", "1s"][..],
                r.as_slice(),
            ]
            .concat(),
        );
        assert!(out.contains("|    0     | # lost"), "{r:?}: {out}");
        if r.is_some() {
            // The sink's buffers came with its tag, or none would have counted here.
            assert!(
                out.contains("received here ") && !out.contains("received here 0 "),
                "{out}"
            );
        }
    }
    stop(child);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        last(&text, "nmc serve: stopped after").contains("replied 10"),
        "{text}"
    );
    assert!(
        last(&text, "unauthenticated 0)").contains("pump:"),
        "{text}"
    );
    assert!(
        last(&text, "stream sink: ").contains(" 0 unauthenticated"),
        "{text}"
    );
}

/// Issue 58 §8: the shipped systemd unit (`dist/systemd/nmc-serve.service`) is the one the book
/// shows, its command line starts `nmc serve` (with a secret where `%d` puts it), and
/// `systemd-analyze verify` passes it, its `Documentation=man:` page found among the pages
/// `nmc man` writes. A misspelt key fails the same check, so the check can fail.
#[test]
fn the_shipped_systemd_unit_verifies_and_starts_the_server() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let unit = std::fs::read_to_string(root.join("dist/systemd/nmc-serve.service")).unwrap();
    let body = &unit[unit.find("[Unit]").expect("a [Unit] section")..];
    let book = std::fs::read_to_string(root.join("docs/src/how-to/serve.md")).unwrap();
    assert!(
        book.contains(&format!("```ini\n{body}```")),
        "docs/src/how-to/serve.md does not show dist/systemd/nmc-serve.service from [Unit] on"
    );

    let dir = tmp("systemd-unit");
    std::fs::write(dir.join("secret"), "a secret of thirty-two bytes....").unwrap();
    let exec = body
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("an ExecStart line");
    let mut words = exec.split_whitespace();
    assert_eq!(words.next(), Some("/usr/local/bin/nmc"));
    let args: Vec<String> = words
        .map(|w| w.replace("%d", dir.to_str().unwrap()))
        .collect();
    let o = command()
        .args(&args)
        .args(["--listen", "127.0.0.1:0", "--duration", "300ms"])
        .output()
        .unwrap();
    assert!(o.status.success(), "`{exec}`: {}", stderr(&o));

    if std::process::Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("not checked: systemd-analyze is not installed here");
        return;
    }
    let man = dir.join("man");
    let o = nmc(&["man", "--out", man.join("man1").to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let has_man = std::process::Command::new("man")
        .arg("--version")
        .output()
        .is_ok();
    let verify = |text: &str| {
        let path = dir.join("nmc-serve.service");
        std::fs::write(
            &path,
            text.replace("/usr/local/bin/nmc", env!("CARGO_BIN_EXE_nmc")),
        )
        .unwrap();
        let mut c = std::process::Command::new("systemd-analyze");
        c.arg("verify").env("MANPATH", &man);
        if !has_man {
            eprintln!("Documentation= not checked: man is not installed here");
            c.arg("--man=no");
        }
        let o = c.arg(&path).output().unwrap();
        let err = stderr(&o);
        let ours: Vec<String> = about_nmcs_unit(&err).map(str::to_string).collect();
        // A failure with nothing said of nmc's unit is another unit's.
        let others = err.lines().any(|l| !l.trim().is_empty());
        (ours, o.status.success() || others, err)
    };
    let (ours, ok, err) = verify(&unit);
    assert!(ok && ours.is_empty(), "systemd-analyze verify: {err}");
    let (ours, _, err) = verify(&unit.replace("ExecStart=", "ExecStrat="));
    assert!(!ours.is_empty(), "a misspelt key passed: {err}");
}

/// Issue 74 §6: `systemd-analyze verify` also speaks of other units installed on the host
/// (Debian's irtt: "Special user nobody configured"), and the README's test command failed on
/// such a host though nmc's unit was fine: only the lines about nmc's unit are judged.
fn about_nmcs_unit(err: &str) -> impl Iterator<Item = &str> {
    err.lines().filter(|l| l.contains("nmc-serve.service"))
}

#[test]
fn another_units_warning_is_not_held_against_nmcs() {
    let err = "/lib/systemd/system/irtt.service:9: Special user nobody configured, this is not safe!\n\
               /tmp/x/nmc-serve.service:12: Unknown key name 'ExecStrat' in section 'Service', ignoring.\n";
    let ours: Vec<&str> = about_nmcs_unit(err).collect();
    assert_eq!(ours.len(), 1);
    assert!(ours[0].contains("ExecStrat"), "{ours:?}");
}
