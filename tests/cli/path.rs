//! `nmc path` (issue 58): a shaped path a user without netem can try the instruments on.
//! Making one needs root; the figures are fixed before running: 40 ms one way and 1 Mbit/s
//! each direction, so a 40-byte ICMP Echo's round trip is 2 × (40 ms + (40 + 14)·8 / 1 Mbit/s)
//! = 80.864 ms, and a 256-byte one's 2 × (40 ms + 270·8 µs) = 84.32 ms.

use crate::{command, nmc, stderr, text};
use std::path::Path;
use std::time::{Duration, Instant};

fn wait_for(what: &str, until: Duration, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < until, "{what}: not within {until:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Bad input is one line and exit 2, before anything is made (no root needed for these).
#[test]
fn bad_settings_are_refused_in_one_line() {
    for (args, said) in [
        (&["path", "--loss", "120%"][..], "give a percentage"),
        (&["path", "--rate", "0bit/s"], "above zero"),
        (&["path", "--delay", "20"], "--delay"),
        (&["path", "--limit", "0"], "--limit 0"),
        (&["path", "--limit", "2000000"], "1 to 1000000 packets"),
        (&["path", "--limit-bytes", "8GiB"], "128KiB to 4GiB"),
        (
            &["path", "--rate", "1bit/s", "--overhead", "4294967295"],
            "years, more than nmc represents",
        ),
        (
            &["path", "--delay", "2000000h"],
            "years, more than nmc represents",
        ),
        (&["path", "-i", "1ns"], "-i 1ns: at least 100ms"),
        (&["path", "--name", "a/b"], "--name `a/b`"),
    ] {
        let o = nmc(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(said), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
    }
}

/// The path carries ICMP Echo with the delay and rate asked for, over IPv4 and IPv6; a second
/// path of the same name is refused while the first runs; Ctrl-C stops it with exit 0 and
/// removes both namespaces.
#[test]
#[ignore = "needs root and network namespaces: scripts/test.sh runs it as root, or with NMC_NETNS=1 (cargo test -- --ignored)"]
fn a_path_delays_and_paces_what_crosses_it_and_is_removed_at_ctrl_c() {
    let name = format!("nmcclipath{}", std::process::id());
    let (a, b) = (format!("{name}-a"), format!("{name}-b"));
    let path = command()
        .args([
            "path", "--delay", "40ms", "--rate", "1Mbit/s", "-i", "1s", "-t", "60s", "--name",
        ])
        .arg(&name)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let ns_dir = Path::new("/var/run/netns");
    wait_for("the namespaces", Duration::from_secs(10), || {
        ns_dir.join(&b).exists()
            && std::process::Command::new("ip")
                .args(["-n", &b, "addr", "show", "tun0"])
                .output()
                .is_ok_and(|o| text(&o.stdout).contains("UP"))
    });
    // Give the line's thread its start.
    std::thread::sleep(Duration::from_millis(300));

    let again = nmc(&["path", "--name", &name, "-t", "1s"]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("exists already"),
        "{}",
        stderr(&again)
    );

    let probe = |target: &str, length: &str| {
        let o = std::process::Command::new("ip")
            .args(["netns", "exec", &a])
            .arg(env!("CARGO_BIN_EXE_nmc"))
            .args([
                "echo", "probe", target, "--icmp", "-c", "10", "--length", length, "-J", "--out",
            ])
            .arg(crate::tmp(&format!("path-{target}-{length}")))
            .output()
            .unwrap();
        assert!(o.status.success(), "{target}: {}", stderr(&o));
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(doc["end"]["answered"], 10, "{doc}");
        doc["end"]["rtt"]["median_s"].as_f64().unwrap() * 1e3
    };
    // The round trip the line's settings give (module doc), each within 3 %: both ways, the
    // delay plus (length + 14)·8 bits at 1 Mbit/s. Over IPv6 the shortest ICMP Echo is 60 bytes.
    let expected_ms = |length: f64| 2.0 * (40.0 + (length + 14.0) * 8.0 / 1e6 * 1e3);
    for (target, length) in [("198.18.0.2", 40), ("198.18.0.2", 256), ("2001:2::2", 60)] {
        let expected_ms = expected_ms(f64::from(length));
        let rtt = probe(target, &length.to_string());
        assert!(
            (rtt / expected_ms - 1.0).abs() < 0.03,
            "{target} {length} bytes: median round trip {rtt:.3} ms, expected {expected_ms} ms"
        );
    }

    let sent = std::process::Command::new("kill")
        .args(["-INT", &path.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = path.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(said.contains("namespaces removed"), "{said}");
    assert!(said.contains("a→b: "), "{said}");
    assert!(!ns_dir.join(&a).exists() && !ns_dir.join(&b).exists());
}

/// Each direction its own rate, as on an access line: 1 Mbit/s a→b and 10 Mbit/s b→a, 10 ms
/// each way. `nmc pump` from a, with a window well past the path's (64 messages of 16 KiB),
/// carries at most 1448 of each 1514 bytes the line charges as TCP payload, 95.6 % of the rate:
/// forward between 85 % and 100 % of 1 Mbit/s, and with -R of 10 Mbit/s (figures fixed before
/// running).
#[test]
#[ignore = "needs root and network namespaces: scripts/test.sh runs it as root, or with NMC_NETNS=1 (cargo test -- --ignored)"]
fn each_direction_has_its_own_rate() {
    let name = format!("nmcclirate{}", std::process::id());
    let (a, b) = (format!("{name}-a"), format!("{name}-b"));
    let mut path = command()
        .args([
            "path",
            "--delay",
            "10ms",
            "--rate",
            "1Mbit/s,10Mbit/s",
            "-i",
            "0s",
            "-t",
            "60s",
            "--ipv4-only",
            "--name",
        ])
        .arg(&name)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the namespaces", Duration::from_secs(10), || {
        std::process::Command::new("ip")
            .args(["-n", &b, "addr", "show", "tun0"])
            .output()
            .is_ok_and(|o| text(&o.stdout).contains("UP"))
    });
    let in_ns = |ns: &str| {
        let mut c = std::process::Command::new("ip");
        c.args(["netns", "exec", ns]).arg(env!("CARGO_BIN_EXE_nmc"));
        c
    };
    let mut server = in_ns(&b)
        .args(["serve", "--duration", "40s", "--listen", "198.18.0.2:8890"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    for (reverse, rate) in [(false, 1e6), (true, 1e7)] {
        let mut c = in_ns(&a);
        c.args([
            "pump",
            "198.18.0.2",
            "-t",
            "4s",
            "--size",
            "16KiB",
            "--outstanding",
            "64",
            "--no-messages",
            "-J",
            "--out",
        ])
        .arg(crate::tmp(&format!("path-rate-{reverse}")));
        if reverse {
            c.arg("-R");
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "-R {reverse}: {}", stderr(&o));
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let got = doc["end"]["throughput_bit_per_s"].as_f64().unwrap();
        eprintln!("    -R {reverse}: {got:.0} bit/s over a {rate} bit/s line");
        assert!(
            (0.85..=1.0).contains(&(got / rate)),
            "-R {reverse}: {got} bit/s over a {rate} bit/s line"
        );
    }
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::process::Command::new("kill")
        .args(["-INT", &path.id().to_string()])
        .status();
    assert_eq!(path.wait().unwrap().code(), Some(0));
    assert!(!Path::new("/var/run/netns").join(&a).exists());
}
