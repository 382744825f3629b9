//! Issue 75 §4: the units iperf3 users type, on the instruments as they run them on loopback:
//! `-b 10M` is 10 Mbit/s, `-t 1` one second, `--size 64K` 64 KiB, `-i 0.5` half a second; a
//! value that is none of the forms is one line naming the flag and the forms, exit 2. The
//! parser's table of inputs is `src/cmd/units.rs`'s unit tests. About 3 s.

use super::{nmc, stderr, text};
use serde_json::Value;

fn document(o: &std::process::Output) -> Value {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o.stdout)))
}

#[test]
fn iperf3_units_on_loopback() {
    let (mut server, addr) = super::serve_loopback(60);
    let dir = super::tmp("cli-units");
    let out = |name: &str| dir.join(name).to_str().unwrap().to_string();

    // The stream at iperf3's -b 10M for -t 1, in 64K (= 64KiB) buffers, rates printed in Mbit/s.
    let o = nmc(&[
        "stream",
        &addr,
        "-b",
        "10M",
        "-t",
        "1",
        "--buffer",
        "64K",
        "-i",
        "0.5",
        "-f",
        "m",
        "-J",
        "--out",
        &out("stream"),
    ]);
    let doc = document(&o);
    let test = &doc["end"]["tests"][0];
    assert_eq!(test["rate_bit_per_s"], 10_000_000, "{doc}");
    assert_eq!(test["buffer_bytes"], 65536.0, "{doc}");
    assert_eq!(doc["parameters"]["duration_s"], 1.0, "{doc}");
    assert!(stderr(&o).contains("Mbit/s"), "-f m: {}", stderr(&o));

    // The pump for -t 1 with 64K messages and -i 0.5.
    let o = nmc(&[
        "pump",
        &addr,
        "-t",
        "1",
        "--size",
        "64K",
        "-i",
        "0.5",
        "-J",
        "--no-messages",
        "--out",
        &out("pump"),
    ]);
    let doc = document(&o);
    assert_eq!(doc["parameters"]["size_bytes"], 65536, "{doc}");
    assert_eq!(doc["parameters"]["duration_s"], 1.0, "{doc}");

    // The probe's times as bare seconds.
    let o = nmc(&[
        "echo",
        "probe",
        &addr,
        "-c",
        "3",
        "--interval",
        "0.01",
        "--timeout",
        "2",
        "-J",
        "--out",
        &out("probe"),
    ]);
    let doc = document(&o);
    assert_eq!(doc["parameters"]["timeout_s"], 2.0, "{doc}");
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn a_value_of_no_form_is_one_line_naming_the_flag_and_the_forms() {
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["pump", "127.0.0.1", "-t", "10x"],
            "--duration",
            "a bare number of seconds",
        ),
        (
            &["pump", "127.0.0.1", "--size", "64Q"],
            "--size",
            "64K, 1M (×1024)",
        ),
        (
            &["stream", "127.0.0.1", "-b", "fast"],
            "--rate",
            "10M, 500k (bits, ×1000)",
        ),
        (
            &["stream", "127.0.0.1", "-b", "10kbits/s"],
            "--rate",
            "bare number of bit/s",
        ),
        (
            &["stream", "127.0.0.1", "--buffer", "2016x"],
            "--buffer",
            "64K, 1M",
        ),
        (
            &["echo", "probe", "127.0.0.1", "--timeout=-1"],
            "--timeout",
            "negative",
        ),
        (
            &["path", "--delay", "20"],
            "--delay",
            "`20` needs a unit: 20s, 20ms",
        ),
    ];
    for (args, flag, forms) in cases {
        let o = nmc(args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{args:?}: not one line: {e}");
        assert!(e.contains(flag) && e.contains(forms), "{args:?}: {e}");
        assert!(!e.contains("panicked"), "{e}");
    }
    // Each flag's help says which forms it takes.
    for (cmd, needle) in [
        ("pump", "iperf3's 64K"),
        ("stream", "10M (bits"),
        ("pump", "iperf3 -t 10"),
    ] {
        let o = nmc(&[cmd, "--help"]);
        assert!(
            text(&o.stdout).contains(needle),
            "{cmd} --help lacks {needle}"
        );
    }
}

/// `nmc oracle emulate --watch` takes octal addresses, as the listing prints them: a word that
/// is not one is one line naming the flag and the word, exit 2, before any program is read.
#[test]
fn a_watched_address_that_is_not_octal_is_one_line() {
    let dir = super::tmp("cli-watch");
    let o = nmc(&[
        "oracle",
        "emulate",
        "--run",
        "516-4-pass1",
        "--out",
        dir.to_str().unwrap(),
        "--watch",
        "14400,9x9",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    assert!(
        e.contains("--watch") && e.contains("\"9x9\" is not an octal address"),
        "{e}"
    );
}
