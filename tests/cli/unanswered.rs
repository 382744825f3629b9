//! Issue 58 §1–2: a run that measured nothing does not succeed. A UDP run (`nmc stream --udp`,
//! `nmc cost --proto udp`) opens with an exchange the server answers and fails in one line
//! when it is not answered; the echo probe gives up on a silent host after its opening
//! deadline. "Silent host" here is a loopback UDP socket that is bound and never answers (a
//! dead host or a firewall that drops, as the client sees them). Bounds are generous: nothing
//! here checks a speed.

use super::{command, nmc, stderr, text, tmp};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// A bound UDP socket on loopback that reads nothing and answers nothing, and its address.
fn silent_host() -> (std::net::UdpSocket, String) {
    let s = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = s.local_addr().unwrap().to_string();
    (s, addr)
}

/// Starts `nmc ARGS --listen 127.0.0.1:0` (a server); returns it and the address it printed.
pub fn server(args: &[&str]) -> (Child, String) {
    let mut child = command()
        .args(args)
        .args(["--listen", "127.0.0.1:0", "--duration", "120s"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let (err, addr) = super::server_address(&mut child);
    super::drain(err);
    (child, addr)
}

fn secret_file(name: &str) -> String {
    let p = tmp(name).join("secret");
    std::fs::write(&p, "0123456789abcdef-issue-58-secret\n").unwrap();
    p.display().to_string()
}

/// Runs `nmc ARGS`; checks it failed in one line that holds `want`, printed no report on
/// stdout, and took less than 20 s.
fn fails_in_one_line(args: &[&str], want: &str) -> std::process::Output {
    let t = Instant::now();
    let o = nmc(args);
    let took = t.elapsed();
    let e = stderr(&o);
    assert!(
        !o.status.success(),
        "{args:?} succeeded: {e}\n{}",
        text(&o.stdout)
    );
    assert!(took < Duration::from_secs(20), "{args:?} took {took:?}");
    assert!(e.contains(want), "{args:?}: `{e}` lacks `{want}`");
    assert_eq!(e.lines().count(), 1, "{args:?}: not one line: `{e}`");
    assert!(!e.contains("panicked"), "{e}");
    o
}

/// `nmc stream --udp` to a host that never answers printed a full KEY box, its loss "not
/// seen", and exited 0 after the whole --duration; it now fails to open within --io-timeout.
#[test]
fn a_udp_stream_to_a_silent_host_fails_in_one_line() {
    let (_silent, addr) = silent_host();
    for ack in [None, Some("--ack")] {
        let args = [
            &["stream", &addr, "--udp", "-t", "30s", "--io-timeout", "3s"][..],
            ack.as_slice(),
        ]
        .concat();
        let o = fails_in_one_line(&args, "cannot reach the sink: no answer over UDP from");
        assert!(o.stdout.is_empty(), "{args:?}: {}", text(&o.stdout));
    }
}

/// A sink with a secret, and a UDP stream without it: the server used to log every buffer as
/// unauthenticated while the client reported a result; the client now says it wants a secret.
#[test]
fn a_udp_stream_without_the_sinks_secret_says_so() {
    let secret = secret_file("unanswered-stream-secret");
    let (mut sink, addr) = server(&["sink", "--secret-file", &secret]);
    fails_in_one_line(
        &["stream", &addr, "--udp", "-t", "5s", "--io-timeout", "2s"],
        "the server wants a secret (its TCP port sends the challenge): give it with --secret-file",
    );
    // With it, the same stream runs.
    let o = nmc(&[
        "stream",
        &addr,
        "--udp",
        "-t",
        "1s",
        "--secret-file",
        &secret,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let _ = sink.kill();
    let _ = sink.wait();
}

/// `nmc cost --proto udp` to nothing "measured" the sender alone and exited 0; it now opens
/// with the echo request a sink answers, and fails when none does.
#[test]
fn cost_over_udp_to_a_silent_host_fails_in_one_line() {
    let (_silent, addr) = silent_host();
    let o = fails_in_one_line(
        &[
            "cost",
            &addr,
            "--proto",
            "udp",
            "--sizes",
            "219",
            "--write-sizes",
            "1KiB",
        ],
        "cannot reach the sink: no answer over UDP from",
    );
    assert!(o.stdout.is_empty() || !text(&o.stdout).contains("Today"));
}

/// `nmc serve` with a secret takes no untagged datagram, and cost's UDP transfers carry none:
/// the run says so instead of reporting what it sent into the void. Without a secret the same
/// server answers the opening and the run is measured.
#[test]
fn cost_over_udp_to_a_server_with_a_secret_says_so() {
    let secret = secret_file("unanswered-cost-secret");
    let (mut keyed, addr) = server(&["serve", "--secret-file", &secret]);
    let args = [
        "cost",
        &addr,
        "--proto",
        "udp",
        "--sizes",
        "219",
        "--write-sizes",
        "1KiB",
    ];
    fails_in_one_line(&args, "it wants a secret");
    let _ = keyed.kill();
    let _ = keyed.wait();
    let (mut open, addr) = server(&["serve"]);
    let mut args = args;
    args[1] = &addr;
    let o = nmc(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let _ = open.kill();
    let _ = open.wait();
}

/// Runs `nmc echo probe ARGS` to a silent host; checks it failed within 20 s, its last stderr
/// line the error that holds `want` (the line before it is the probe's opening line).
fn probe_gives_up(name: &str, extra: &[&str], want: &str) {
    let (_silent, addr) = silent_host();
    let out = tmp(name).join("out");
    let args = [
        &["echo", "probe", &addr, "--out", out.to_str().unwrap()][..],
        extra,
    ]
    .concat();
    let t = Instant::now();
    let o = nmc(&args);
    let took = t.elapsed();
    let e = stderr(&o);
    // Nothing answered: a host that cannot be reached, exit 3 (issue 58 §3).
    assert_eq!(o.status.code(), Some(3), "{args:?}: {e}");
    assert!(took < Duration::from_secs(20), "{args:?} took {took:?}");
    let last = e.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("nmc: ") && last.contains(want),
        "{args:?}: `{e}` lacks `{want}`"
    );
    assert!(!e.contains("panicked"), "{e}");
}

/// Issue 58 §2: the echo probe waited 30 s for each of its 512 volleys (about 4.3 hours) to
/// report that nothing answered. It gives up at its opening deadline (--open-timeout, 10 s by
/// default) ...
#[test]
fn the_echo_probe_gives_up_on_a_silent_host_at_its_opening_deadline() {
    probe_gives_up(
        "unanswered-probe-open",
        &[],
        "nothing answered within 10.000s of the first volley (--open-timeout): gave up (1 sent, 0 lost",
    );
}

/// ... or, with a short --timeout, after 10 volleys lost and none answered, before it.
#[test]
fn the_echo_probe_gives_up_after_a_run_of_losses_with_no_answer() {
    probe_gives_up(
        "unanswered-probe-losses",
        &[
            "--timeout",
            "200ms",
            "--interval",
            "50ms",
            "--open-timeout",
            "10min",
        ],
        " volleys lost and none answered: gave up",
    );
}
