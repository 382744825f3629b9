//! `nmc echo serve` and `nmc echo probe` as a user runs them: a server on loopback, a probe
//! against it, the files it writes, Ctrl-C, and one-line errors with exit 2. Loopback only,
//! bounded (a few hundred datagrams, a few seconds).

use super::{command as nmc, tmp};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};

/// Starts `nmc echo serve` on a free loopback port and returns it with the port it printed.
fn serve(extra: &[&str]) -> (Child, BufReader<std::process::ChildStderr>, String) {
    let mut child = nmc()
        .args([
            "echo",
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--duration",
            "60s",
        ])
        .args(extra)
        .stderr(Stdio::piped())
        .spawn()
        .expect("nmc echo serve starts");
    let (err, addr) = super::server_address(&mut child);
    (child, err, addr)
}

fn interrupt(child: &Child) {
    let ok = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

#[test]
fn serve_and_probe_on_loopback() {
    let (mut server, mut err, addr) = serve(&[]);
    let dir = tmp("cli-echo");
    let o: Output = nmc()
        .args([
            "echo", "probe", &addr, "--count", "100", "--gap", "1ms", "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains("answered 100  lost 0"), "{stdout}");
    assert!(stdout.contains("one line"), "{stdout}");
    assert!(stdout.contains("monotonic clock"), "{stdout}");
    for f in ["trace.csv", "summary.json", "delay-vs-length.svg"] {
        assert!(dir.join(f).exists(), "{f}");
    }
    let trace = std::fs::read_to_string(dir.join("trace.csv")).unwrap();
    assert!(trace.starts_with("send_time_ns,length_bytes,delay_ns,seq,rtt_ns,"));
    assert_eq!(trace.lines().count(), 101);

    // The probe's run feeds the timeout-estimator evaluation.
    let rto_out = dir.join("rto");
    let o = nmc()
        .args(["rto", "evaluate"])
        .arg(dir.join("trace.csv"))
        .arg("--out")
        .arg(&rto_out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "nmc rto evaluate: {}",
        String::from_utf8_lossy(&o.stderr)
    );

    // Ctrl-C: the server stops cleanly with a final summary and exit 0.
    interrupt(&server);
    let mut rest = String::new();
    for line in (&mut err).lines() {
        rest.push_str(&line.unwrap());
        rest.push('\n');
    }
    let status = server.wait().unwrap();
    assert!(status.success(), "{status:?}\n{rest}");
    assert!(rest.contains("stopped after"), "{rest}");
    assert!(rest.contains("replied 100"), "{rest}");
}

#[test]
fn secret_is_required_once_given() {
    let dir = tmp("cli-echo-secret");
    let secret = dir.join("secret");
    std::fs::write(&secret, "correct horse battery staple\n").unwrap();
    let (mut server, _err, addr) = serve(&["--secret-file", secret.to_str().unwrap()]);
    let with = nmc()
        .args([
            "echo",
            "probe",
            &addr,
            "--count",
            "20",
            "--gap",
            "1ms",
            "--secret-file",
        ])
        .arg(&secret)
        .arg("--out")
        .arg(dir.join("with"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&with.stdout).contains("answered 20  lost 0"));
    let without = nmc()
        .args([
            "echo",
            "probe",
            &addr,
            "--count",
            "2",
            "--timeout",
            "200ms",
            "--out",
        ])
        .arg(dir.join("without"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&without.stdout).contains("answered 0  lost 2"));
    interrupt(&server);
    assert!(server.wait().unwrap().success());
}

/// Bad input: exit 2 and one line naming what is wrong.
#[test]
fn bad_echo_input_is_one_line_and_exit_2() {
    let dir = tmp("cli-echo-bad");
    let short = dir.join("short-secret");
    std::fs::write(&short, "tiny").unwrap();
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "empty range",
            &["echo", "probe", "127.0.0.1", "--lengths", "300..200"],
            "empty length range",
        ),
        (
            "bad lengths",
            &["echo", "probe", "127.0.0.1", "--lengths", "big"],
            "is not a length",
        ),
        (
            "too short",
            &[
                "echo",
                "probe",
                "127.0.0.1",
                "--length",
                "20",
                "--count",
                "1",
            ],
            "below 60",
        ),
        (
            // Issue 75 §4: a bare number is seconds (as iperf3 -t); an unknown unit is refused.
            "no such unit",
            &["echo", "probe", "127.0.0.1", "--timeout", "30x"],
            "`30x` is not a duration: unknown unit `x`; give a duration such as 10s",
        ),
        (
            "bad port",
            &["echo", "probe", "127.0.0.1:http"],
            "not a port number",
        ),
        (
            "zero count",
            &["echo", "probe", "127.0.0.1", "--count", "0"],
            "at least 1",
        ),
        (
            "missing secret",
            &["echo", "serve", "--secret-file", "/nonexistent/secret"],
            "cannot read secret file",
        ),
        (
            "short secret",
            &["echo", "serve", "--secret-file", short.to_str().unwrap()],
            "at least 16",
        ),
        (
            "bad rate",
            &["echo", "serve", "--rate", "fast"],
            "not a rate",
        ),
        (
            "icmp and secret",
            &["echo", "probe", "127.0.0.1", "--icmp", "--secret-file", "x"],
            "cannot be used with",
        ),
    ];
    for (name, args, needle) in cases {
        let o = nmc().args(*args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(needle), "{name}: `{needle}` not in: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: not one line: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
}

/// `--report-interval` (issue 34): a line per interval while the probe runs, and the same
/// intervals in the JSON document; their counts add up to the run's.
#[test]
fn probe_report_interval_lines_add_up() {
    let (mut server, _err, addr) = serve(&[]);
    let dir = tmp("cli-echo-intervals");
    let o: Output = nmc()
        .args([
            "echo",
            "probe",
            &addr,
            "--count",
            "60",
            "--interval",
            "5ms",
            "--report-interval",
            "100ms",
            "-J",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("rtt min/mean/max"), "{stderr}");
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let lines = doc["end"]["intervals"].as_array().expect("end.intervals");
    assert!(lines.len() >= 2, "{lines:?}");
    let sum = |k: &str| lines.iter().map(|l| l[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum("sent"), 60);
    assert_eq!(sum("answered") + sum("lost"), 60);
    let (mut prev_end, mut with_rtt) = (0.0, 0);
    for l in lines {
        assert_eq!(l["start_s"].as_f64().unwrap(), prev_end, "{l}");
        prev_end = l["end_s"].as_f64().unwrap();
        if l["answered"].as_u64().unwrap() > 0 {
            with_rtt += 1;
            assert!(l["rtt_min_s"].as_f64().unwrap() <= l["rtt_max_s"].as_f64().unwrap());
        }
    }
    assert!(with_rtt > 0);
    let o = nmc()
        .args(["echo", "probe", &addr, "--report-interval", "0s"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    interrupt(&server);
    let _ = server.wait();
}

/// Issue 75 §5, as irtt measures: `--per-reply` prints a line per reply (with -J on stderr),
/// and the document carries the round trip's IPDV and RFC 3550 jitter and, over UDP to `nmc
/// serve`, each way's delay and IPDV. On one host the two clocks are one: neither way is
/// negative, each is within the round trip, and the clocks are not said to disagree.
#[test]
fn probe_per_reply_lines_and_irtt_figures() {
    let (mut server, _err, addr) = serve(&[]);
    let dir = tmp("cli-echo-per-reply");
    let o: Output = nmc()
        .args([
            "echo",
            "probe",
            &addr,
            "--count",
            "30",
            "--length",
            "200",
            "--interval",
            "5ms",
            "--per-reply",
            "-J",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let end = &doc["end"];
    let answered = end["answered"].as_u64().unwrap();
    let replies: Vec<&str> = stderr.lines().filter(|l| l.starts_with("seq=")).collect();
    assert_eq!(replies.len() as u64, answered, "{stderr}");
    assert!(
        replies
            .iter()
            .all(|l| l.contains(" len=200 ") && l.contains(" up="))
    );
    assert!(
        replies.iter().skip(1).any(|l| l.contains(" ipdv=")),
        "{stderr}"
    );
    let n = |v: &serde_json::Value| v["n"].as_u64().unwrap();
    assert!(n(&end["ipdv"]) >= 1 && n(&end["ipdv"]) < answered);
    assert!(end["jitter_s"].as_f64().unwrap() >= 0.0);
    assert_eq!(n(&end["delay_up"]), answered);
    assert_eq!(end["clocks_disagree"], false);
    let rtt_max = end["rtt"]["max_s"].as_f64().unwrap();
    for way in ["delay_up", "delay_down"] {
        let (lo, hi) = (
            end[way]["min_s"].as_f64().unwrap(),
            end[way]["max_s"].as_f64().unwrap(),
        );
        assert!(
            lo >= 0.0 && hi <= rtt_max,
            "{way}: {lo} .. {hi}, rtt max {rtt_max}"
        );
    }
    assert_eq!(n(&end["ipdv_up"]), n(&end["ipdv"]));
    // Nothing lost on loopback: the server's count is every volley, and none is lost either way.
    assert_eq!(end["server_answered"], end["volleys"]);
    assert_eq!(
        (end["lost_up"].as_u64(), end["lost_down"].as_u64()),
        (Some(0), Some(0))
    );
    interrupt(&server);
    let _ = server.wait();
}

/// Issue 75 §5: loss split up and down by the server's count in its replies, as irtt's server
/// counts. A server whose rate limit refuses some volleys: those are lost on the way up (the
/// server did not answer them), none on the way down.
#[test]
fn probe_splits_loss_up_and_down_by_the_servers_count() {
    let (mut server, _err, addr) = serve(&["--rate", "50/s", "--burst", "20"]);
    let o: Output = nmc()
        .args([
            "echo",
            "probe",
            &addr,
            "--count",
            "80",
            "--length",
            "100",
            "--interval",
            "2ms",
            "--timeout",
            "500ms",
            "-J",
            "--out",
        ])
        .arg(tmp("cli-echo-loss-split"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let end = &doc["end"];
    let (answered, lost) = (
        end["answered"].as_u64().unwrap(),
        end["lost"].as_u64().unwrap(),
    );
    assert!(lost > 20, "the limit refused some: {end}");
    assert_eq!(end["server_answered"].as_u64(), Some(answered), "{end}");
    assert_eq!(end["lost_down"].as_u64(), Some(0));
    assert_eq!(end["lost_up"].as_u64(), Some(lost));
    interrupt(&server);
    let _ = server.wait();
}

/// Issue 75 §5: several targets in one run, as fping takes them: each probed at once into its
/// own folder, then a line each in a table; a target that does not answer fails the run (exit 3,
/// named) without losing the others' files; -J takes one target and says so.
#[test]
fn probe_several_targets_at_once() {
    let (mut one, _e1, a1) = serve(&[]);
    let (mut two, _e2, a2) = serve(&[]);
    let dir = tmp("cli-echo-several");
    let o: Output = nmc()
        .args([
            "echo",
            "probe",
            &a1,
            &a2,
            "--count",
            "10",
            "--interval",
            "5ms",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for a in [&a1, &a2] {
        let folder = dir.join(a.replace(':', "_"));
        assert!(folder.join("trace.csv").is_file(), "{folder:?}");
        let row = out
            .lines()
            .find(|l| l.starts_with(a.as_str()))
            .unwrap_or_else(|| panic!("no row for {a}: {out}"));
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!((cols[1], cols[2]), ("10", "10"), "{row}");
    }
    let dead = "127.0.0.1:9";
    let o: Output = nmc()
        .args([
            "echo",
            "probe",
            &a1,
            dead,
            "--count",
            "3",
            "--open-timeout",
            "1s",
            "--out",
        ])
        .arg(dir.join("with-dead"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.lines().last().unwrap().contains(dead), "{err}");
    assert!(
        dir.join("with-dead")
            .join(a1.replace(':', "_"))
            .join("trace.csv")
            .is_file()
    );
    let o: Output = nmc()
        .args(["echo", "probe", &a1, &a2, "-J"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("-J takes one target"));
    let o: Output = nmc().args(["echo", "probe", &a1, &a1]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("given twice"));
    for s in [&mut one, &mut two] {
        interrupt(s);
        let _ = s.wait();
    }
}

/// Issue 57 §2: a captured tagged request, replayed from another address, was answered there
/// (the tag had no freshness). Now a tagged request carries its send time under the tag and is
/// answered once: its copy, from another address or the same, gets no answer, nor does one
/// sent ten minutes ago; each is counted and logged, and a fresh request is still answered. On
/// `nmc echo serve` and on `nmc serve` (one server loop).
#[test]
fn a_replayed_tagged_request_is_not_answered() {
    use nmc_probe::wire;
    use std::net::UdpSocket;
    use std::time::{Duration, SystemTime, UNIX_EPOCH};
    let dir = tmp("cli-echo-replay");
    let secret = dir.join("secret");
    std::fs::write(&secret, "correct horse battery staple\n").unwrap();
    let key = nmc_serve::Key::from_file(&secret).unwrap();
    let secret = secret.to_str().unwrap();
    let socket = |from: &str| {
        let s = UdpSocket::bind(format!("{from}:0")).unwrap();
        s.set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        s
    };
    let answered = |s: &UdpSocket, pkt: &[u8], to: &str| {
        s.send_to(pkt, to).unwrap();
        let mut b = [0u8; 256];
        s.recv(&mut b).is_ok()
    };
    for command in [&["echo", "serve"][..], &["serve", "--log-every", "0s"][..]] {
        let mut server = nmc()
            .args(command)
            .args(["--listen", "127.0.0.1:0", "--duration", "60s"])
            .args(["--secret-file", secret])
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let (mut err, addr) = super::server_address(&mut server);
        let mut pkt = [0u8; 64];
        let n = wire::encode_request(&mut pkt, 64, 1, 7, Some(&key)).unwrap();
        let captured = pkt[..n].to_vec();
        let (a, b) = (socket("127.0.0.1"), socket("127.0.0.2"));
        assert!(answered(&a, &captured, &addr), "{command:?}: the original");
        assert!(
            !answered(&b, &captured, &addr),
            "{command:?}: the replay from another address was answered"
        );
        assert!(
            !answered(&a, &captured, &addr),
            "{command:?}: the replay from the same address was answered"
        );
        // Sent (so it says) ten minutes ago, tagged with the secret: too old.
        let mut old = captured.clone();
        let then = SystemTime::now().duration_since(UNIX_EPOCH).unwrap() - Duration::from_secs(600);
        old[8..12].copy_from_slice(&2u32.to_be_bytes());
        old[20..28].copy_from_slice(&(then.as_nanos() as u64).to_be_bytes());
        let tag: [u8; wire::TAG_LEN] = key.tag(&old[..n - wire::TAG_LEN]);
        old[n - wire::TAG_LEN..].copy_from_slice(&tag);
        assert!(
            !answered(&socket("127.0.0.3"), &old, &addr),
            "{command:?}: a request ten minutes old was answered"
        );
        // A fresh request is answered as ever.
        let n = wire::encode_request(&mut pkt, 64, 3, 8, Some(&key)).unwrap();
        assert!(answered(&b, &pkt[..n], &addr), "{command:?}: a fresh one");
        interrupt(&server);
        let log: Vec<String> = (&mut err).lines().map_while(Result::ok).collect();
        assert!(server.wait().unwrap().success());
        let log = log.join("\n");
        assert!(log.contains("127.0.0.2"), "{command:?}: {log}");
        assert!(log.contains("(a replay)"), "{command:?}: {log}");
        assert!(log.contains("stale 1, replayed 2"), "{command:?}: {log}");
    }
}
