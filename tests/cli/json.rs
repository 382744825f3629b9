//! `--json` on every real-network instrument (issue 34): one JSON document alone on stdout, one
//! schema (`nmc-instrument/2`) and one unit convention — every number's key ends in its unit
//! (`_s`, `_bit_per_s`, `_bytes`, …) unless it is a count or a ratio. On loopback, about 5 s.

use super::{command, text, tmp};
use serde_json::Value;
use std::process::{Child, Stdio};

/// Starts `nmc ARGS` (a server) and returns it with the loopback address its first stderr
/// line names.
fn server(args: &[&str]) -> (Child, String) {
    let mut child = command()
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let (err, addr) = super::server_address(&mut child);
    super::drain(err);
    (child, addr)
}

/// Keys of numbers that are counts or ratios: no unit.
const UNITLESS: &[&str] = &[
    "n",
    "volleys",
    "sent",
    "answered",
    "lost",
    "loss_fraction",
    "cov",
    "r2",
    "f_statistic",
    "messages_sent",
    "messages_answered",
    "answered_in_run",
    "retransmits",
    "cwnd_segments",
    "out_of_order",
    "lag",
    "r",
    "significant_lags",
    "buffers_sent",
    "buffers_completed",
    "buffers_due",
    "gaps",
    "calls",
    "sink_received",
    // Parameters: counts and a seed or session number.
    "count",
    "seed",
    "silent_losses",
    "outstanding",
    "session",
    "repeat",
    "max_calls",
];
const UNITS: &[&str] = &[
    "_s",
    "_bit_per_s",
    "_bytes",
    "_s_per_byte",
    "_s_per_bit",
    "_per_megabit",
    "_per_cpu_hour",
];

/// Every number in `v` sits under a key that names its unit, or is a count or ratio.
fn units_named(v: &Value, key: &str, bad: &mut Vec<String>) {
    match v {
        Value::Number(_) if !UNITLESS.contains(&key) && !UNITS.iter().any(|u| key.ends_with(u)) => {
            bad.push(key.to_string());
        }
        Value::Array(a) => a.iter().for_each(|x| units_named(x, key, bad)),
        Value::Object(o) => o.iter().for_each(|(k, x)| units_named(x, k, bad)),
        _ => {}
    }
}

/// Issue 58 §4: the document names this host's end, on loopback.
fn on_loopback(d: &Value) {
    let local = d["local"].as_str().unwrap_or_default();
    assert!(local.starts_with("127.0.0.1:"), "local: {}", d["local"]);
}

fn document(args: &[&str], tool: &str) -> Value {
    let o = command().args(args).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: stdout is not one JSON document ({e}): {}",
            text(&o.stdout)
        )
    });
    assert_eq!(doc["schema"], "nmc-instrument/2");
    assert_eq!(doc["tool"], tool);
    assert_eq!(doc["units"]["time"], "s");
    assert_eq!(doc["units"]["rate"], "bit/s");
    // Issue 58 §4: every instrument says when its run started (pump and cost said null).
    let start = doc["start_unix_s"].as_f64().unwrap_or(0.0);
    assert!(
        start > 1.7e9,
        "{tool}: start_unix_s {}",
        doc["start_unix_s"]
    );
    let mut bad = Vec::new();
    units_named(&doc["end"], "end", &mut bad);
    units_named(&doc["parameters"], "parameters", &mut bad);
    assert!(
        bad.is_empty(),
        "{tool}: numbers without a unit in their key: {bad:?}"
    );
    doc
}

#[test]
fn every_instrument_prints_one_document_in_one_schema() {
    let (mut echo, echo_addr) = server(&[
        "echo",
        "serve",
        "--pump",
        "--listen",
        "127.0.0.1:0",
        "--duration",
        "60s",
    ]);
    let (mut sink, sink_addr) = server(&["sink", "--listen", "127.0.0.1:0", "--duration", "60s"]);
    let dir = tmp("cli-json");
    let out = |n: &str| dir.join(n).to_str().unwrap().to_string();

    let (p, pu, st) = (out("probe"), out("pump"), out("stream"));
    let d = document(
        &[
            "echo",
            "probe",
            &echo_addr,
            "--count",
            "40",
            "--report-interval",
            "10ms",
            "--json",
            "--out",
            &p,
        ],
        "nmc echo probe",
    );
    assert_eq!(d["end"]["answered"], 40);
    // --report-interval: its lines as end.intervals, their round trips in seconds (version 1
    // of the schema wrote milliseconds, which the unit check above now refuses).
    let iv = d["end"]["intervals"].as_array().unwrap();
    let sent: u64 = iv.iter().map(|i| i["sent"].as_u64().unwrap()).sum();
    assert_eq!(sent, 40, "{iv:?}");
    assert!(
        iv.iter()
            .any(|i| i["rtt_mean_s"].as_f64().is_some_and(|r| r < 1.0))
    );
    // Issue 58 §4: how the run was asked for, as summary.json's config names it.
    assert_eq!(d["parameters"]["count"], 40);
    assert_eq!(d["parameters"]["timeout_s"], 30.0);
    assert_eq!(d["parameters"]["lengths"]["kind"], "uniform");
    assert!(d["end"]["rtt"]["median_s"].as_f64().unwrap() < 1.0);
    on_loopback(&d);

    let d = document(
        &[
            "pump",
            &echo_addr,
            "--duration",
            "1s",
            "--interval",
            "250ms",
            "--json",
            "--out",
            &pu,
        ],
        "nmc pump",
    );
    // --interval (issue 34): whole intervals of the run, their RFNMs among the run's.
    let iv = d["end"]["intervals"].as_array().unwrap();
    assert!((3..=4).contains(&iv.len()), "{iv:?}");
    let in_intervals: u64 = iv.iter().map(|i| i["answered"].as_u64().unwrap()).sum();
    assert!(in_intervals > 0 && in_intervals <= d["end"]["answered_in_run"].as_u64().unwrap());
    assert_eq!(iv[1]["start_s"], 0.25);
    assert!(d["end"]["throughput_bit_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(d["end"]["messages_sent"], d["end"]["messages_answered"]);
    let want = serde_json::json!({"transport": "tcp", "size_bytes": 1008, "outstanding": 4,
        "duration_s": 1.0, "packet_bytes": 126, "timeout_s": 10.0});
    for (k, v) in want.as_object().unwrap() {
        assert_eq!(&d["parameters"][k], v, "pump parameters.{k}");
    }
    // Issue 58 §4: this host's end, and TCP's own statistics of the sending socket (Linux).
    on_loopback(&d);
    if cfg!(target_os = "linux") {
        let tcp = &d["end"]["tcp"];
        let rtt = tcp["rtt_s"].as_f64().expect("TCP's smoothed round trip");
        assert!(rtt > 0.0 && rtt < 1.0, "{tcp}");
        assert!(tcp["cwnd_bytes"].as_u64().unwrap() > 0, "{tcp}");
        assert_eq!(
            tcp["cwnd_bytes"].as_u64(),
            Some(tcp["cwnd_segments"].as_u64().unwrap() * tcp["mss_bytes"].as_u64().unwrap())
        );
    }

    let d = document(
        &[
            "stream",
            &sink_addr,
            "--duration",
            "2s",
            "--ack",
            "--json",
            "--out",
            &st,
        ],
        "nmc stream",
    );
    assert_eq!(d["end"]["tests"][0]["buffers_sent"], 29);
    assert_eq!(d["end"]["tests"][0]["buffer_bytes"], 252.0);
    assert_eq!(d["parameters"]["duration_s"], 2.0);
    assert_eq!(d["parameters"]["ack"], true);
    assert_eq!(d["parameters"]["transport"], "tcp");
    on_loopback(&d);
    // Over TCP no jitter nor order is reported (issue 58 §5: UDP only).
    assert!(d["end"]["tests"][0]["jitter_s"].is_null());

    let d = document(
        &[
            "cost",
            "--sizes",
            "219,18930",
            "--write-sizes",
            "1KiB",
            "--proto",
            "tcp",
            "--json",
        ],
        "nmc cost",
    );
    assert_eq!(d["end"]["transfers"].as_array().unwrap().len(), 2);
    assert_eq!(
        d["parameters"]["sizes_bytes"],
        serde_json::json!([219, 18930])
    );
    assert_eq!(
        d["parameters"]["write_sizes_bytes"],
        serde_json::json!([1024])
    );
    assert_eq!(d["parameters"]["protos"], serde_json::json!(["tcp"]));
    assert_eq!(
        d["local"], "127.0.0.1:0",
        "cost: the address its transfers leave from"
    );
    assert!(
        d["end"]["transfers"][0]["sender_cpu_s_per_bit"]
            .as_f64()
            .unwrap()
            > 0.0
    );

    for s in [&mut echo, &mut sink] {
        let _ = s.kill();
        let _ = s.wait();
    }
}
