//! `nmc rrul` (issue 75 §6, latency under load as flent's RRUL) as a user runs it on loopback:
//! the report, the files, the time series' phases, and one-line refusals. Bounded: two flows
//! for one second.

use super::{nmc, serve_loopback, stderr, text, tmp};

/// One flow each way for a second between 0.4 s of idle probing: the report names both phases
/// and what the flows carried; `timeseries.csv` has a row per step, the flows' bits only in the
/// loaded steps and the probe's volleys in every one; the plots and `summary.json` are there.
#[test]
fn rrul_on_loopback_gives_phases_a_series_and_plots() {
    let (mut server, addr) = serve_loopback(60);
    let dir = tmp("cli-rrul");
    let out = dir.join("r");
    let o = nmc(&[
        "rrul",
        &addr,
        "--up",
        "1",
        "--down",
        "1",
        "-t",
        "1s",
        "--before",
        "400ms",
        "--after",
        "400ms",
        "--step",
        "200ms",
        "--probe-interval",
        "20ms",
        "--out",
        out.to_str().unwrap(),
    ]);
    let report = text(&o.stdout);
    assert!(o.status.success(), "{}", stderr(&o));
    for needle in [
        "idle    rtt ms",
        "loaded  rtt ms",
        "latency under load",
        "carried: up",
    ] {
        assert!(report.contains(needle), "`{needle}` not in: {report}");
    }
    for f in [
        "timeseries.csv",
        "summary.json",
        "throughput.svg",
        "latency.svg",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let csv = std::fs::read_to_string(out.join("timeseries.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 9, "1.8 s in steps of 200 ms: {csv}");
    let bits = |r: &Vec<&str>| r[2].parse::<f64>().unwrap() + r[3].parse::<f64>().unwrap();
    for r in &rows {
        let loaded = r[1] == "true";
        let t: f64 = r[0].parse().unwrap();
        assert_eq!(loaded, (0.4..1.4).contains(&(t + 0.1)), "{r:?}");
        if !loaded && !(1.4..1.6).contains(&t) {
            assert_eq!(bits(r), 0.0, "bits outside the load: {r:?}");
        }
        assert!(
            r[4].parse::<u32>().unwrap() > 0,
            "no volley in a step: {r:?}"
        );
    }
    assert!(
        rows.iter()
            .filter(|r| r[1] == "true")
            .any(|r| bits(r) > 0.0)
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["config"]["up"], 1);
    assert!(summary["run"]["up_bit_per_s"].as_f64().unwrap() > 0.0);
    assert!(summary["run"]["down_bit_per_s"].as_f64().unwrap() > 0.0);
    let _ = server.kill();
    let _ = server.wait();
}

/// Settings that cannot run are refused in one line, exit 2, before anything is measured.
#[test]
fn rrul_refuses_settings_in_one_line() {
    for (args, needle) in [
        (&["--up", "0", "--down", "0"][..], "no flows"),
        (&["--step", "1ms"][..], "--step"),
        (&["--probe-interval", "100us"][..], "--probe-interval"),
        (&["--size", "0"][..], "size"),
    ] {
        let o = nmc(&[&["rrul", "127.0.0.1:9", "-t", "1s"][..], args].concat());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: `{needle}` not in {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}
