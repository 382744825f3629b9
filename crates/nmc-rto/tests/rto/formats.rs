//! Trace import: the nmc CSV, irtt JSON and flent data files, and bad input of each kind.

use std::io::Write;
use std::path::{Path, PathBuf};

use nmc_rto::Nanos;
use nmc_rto::trace::{self, Format};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

#[test]
fn csv_fixture_reads_and_round_trips() {
    let t = trace::load(&fixture("trace_small.csv")).unwrap();
    assert_eq!(t.name, "trace_small");
    assert_eq!(t.len(), 4);
    assert_eq!(t.probes[1].delay, Some(Nanos::from_millis(300)));
    assert_eq!(t.probes[2].delay, None);
    assert_eq!(t.probes[3].length, Some(64));
    let text = trace::csv::to_string(&t);
    let back = trace::csv::parse("back", &text).unwrap();
    assert_eq!(back.probes, t.probes);
}

#[test]
fn irtt_fixture() {
    let t = trace::load(&fixture("irtt_small.json")).unwrap();
    assert_eq!(t.len(), 4);
    let p = &t.probes;
    assert_eq!(p[0].delay, Some(Nanos(134_460)));
    // One clock for the file: request 3 has no `wall`, so every send time is `monotonic`
    // (issue 33: mixing the two put request 3 47 years before request 2).
    assert_eq!(p[0].send, Nanos(2_776_704));
    assert_eq!(
        p[1].delay,
        Some(Nanos(99_455)),
        "lost as the string \"false\""
    );
    assert_eq!(p[2].delay, None);
    assert_eq!(p[3].delay, None, "true_down is lost");
    assert_eq!(
        p[3].send,
        Nanos(602_975_335),
        "monotonic for all when one request has no wall"
    );
    assert!(p.windows(2).all(|w| w[0].send <= w[1].send));
    assert_eq!(p[0].length, Some(48));
    assert_eq!(p[0].path.as_deref(), Some("198.51.100.7:2112"));
    assert_eq!(p[3].seq, Some(3));
}

#[test]
fn irtt_gzipped_is_read_too() {
    let raw = std::fs::read(fixture("irtt_small.json")).unwrap();
    let t = trace::parse_bytes("x.json.gz", &gzip(&raw), None).unwrap();
    assert_eq!(t.len(), 4);
}

#[test]
fn flent_fixture_gzipped_with_missing_sequence_numbers() {
    let raw = std::fs::read(fixture("flent_small.json")).unwrap();
    let dir = std::env::temp_dir().join(format!("nmc-rto-flent-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rrul-test.flent.gz");
    std::fs::write(&path, gzip(&raw)).unwrap();
    let t = trace::load(&path).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(t.name, "rrul-test");
    // seq 1, 2, (3, 4 missing), 5, 6
    assert_eq!(t.len(), 6);
    let delays: Vec<Option<u64>> = t
        .probes
        .iter()
        .map(|p| p.delay.map(|d| d.0 / 100_000))
        .collect();
    assert_eq!(
        delays,
        [Some(205), Some(210), None, None, Some(220), Some(200)]
    );
    let seqs: Vec<u64> = t.probes.iter().map(|p| p.seq.unwrap()).collect();
    assert_eq!(seqs, [1, 2, 3, 4, 5, 6]);
    // send = t − val: the first is exactly on the second; interpolated sends are in order.
    let s0 = t.probes[0].send.as_secs_f64();
    assert!((s0 - 1_704_067_200.0).abs() < 1e-5, "{s0}");
    assert!(t.probes.windows(2).all(|w| w[0].send <= w[1].send));
}

#[test]
fn flent_series_selection_and_results_fallback() {
    let raw = std::fs::read_to_string(fixture("flent_small.json")).unwrap();
    // "TCP upload" has no raw values: the aggregated results are used, nulls are losses.
    let t = trace::flent::parse("f", &raw, Some("TCP upload")).unwrap();
    assert_eq!(t.len(), 5);
    let e = trace::flent::parse("f", &raw, Some("Nope"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no series `Nope`") && e.contains("Ping (ms) ICMP"),
        "{e}"
    );
    let no_raw = raw.replace("\"raw_values\"", "\"raw_values_gone\"");
    let t = trace::flent::parse("f", &no_raw, None).unwrap();
    assert_eq!(t.len(), 5);
    assert_eq!(t.probes[2].delay, None);
    assert_eq!(t.probes[4].send, Nanos(800_000_000));
}

#[test]
fn sniffing() {
    assert_eq!(trace::sniff("send_s,delay_ms\n"), Format::Csv);
    assert_eq!(trace::sniff("{\"round_trips\": []}"), Format::Irtt);
    assert_eq!(trace::sniff("{\"x_values\": []}"), Format::Flent);
}

/// Bad input: one line naming the file (and line, where there is one); never a panic.
#[test]
fn bad_inputs_give_one_line_errors() {
    let cases: &[(&str, &[u8], &str)] = &[
        ("a.csv", b"send_s,delay_ms\n0,1\n0.5,1.2.3\n", "a.csv:3:"),
        ("b.csv", b"when,rtt\n", "b.csv:1:"),
        ("c.csv", b"send_s,delay_ms,seq\n0,1,-2\n", "c.csv:2:"),
        ("d.json", b"{\"round_trips\": [", "d.json:1:"),
        ("e.json", b"{\"round_trips\": [{\"seqno\": 0, \"lost\": false}]}", "round_trips[0]"),
        ("f.json", b"{\"round_trips\": [{\"seqno\": 0, \"lost\": \"maybe\"}]}", "maybe"),
        (
            "g.json",
            b"{\"round_trips\": [{\"seqno\": 0, \"lost\": false, \"timestamps\": {\"client\": {\"send\": {\"wall\": 5}}}, \"delay\": {\"rtt\": -3}}]}",
            "negative",
        ),
        ("h.flent", b"{\"metadata\": {}}", "not a flent data file"),
        ("i.flent", b"{\"raw_values\": {\"Ping (ms) x\": [{\"t\": \"soon\"}]}}", "`t`"),
        ("j.gz", &[0x1f, 0x8b, 0, 1, 2], "gzip"),
        ("k.csv", &[0xff, 0xfe, 0x00], "UTF-8"),
    ];
    for (file, bytes, want) in cases {
        let e = trace::parse_bytes(file, bytes, None)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(file), "{file}: {e}");
        assert!(e.contains(want), "{file}: expected `{want}` in: {e}");
        assert!(!e.contains('\n'), "{file}: not one line: {e}");
    }
    let e = trace::load(Path::new("/nonexistent/trace.csv"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("/nonexistent/trace.csv: cannot read"), "{e}");
}
