//! Issue 15: `nmc run` writes packets.csv, messages.csv (and e2e.csv, occupancy.csv,
//! journeys.csv) row by row as the run makes them
//! instead of keeping them. The files, the histograms drawn from them and the metrics must be
//! what the in-memory records give, byte for byte; a write error must be one line, not a panic.

use nmc_run::builtin::SCENARIOS;
use nmc_run::{RunOptions, run_text};
use nmc_scenario::Override;
use nmc_sim::{RecordSink, Trace};
use std::path::{Path, PathBuf};

fn shipped(name: &str) -> &'static str {
    SCENARIOS.iter().find(|(n, _)| *n == name).expect(name).1
}

fn sets(pairs: &[&str]) -> Vec<Override> {
    pairs.iter().map(|p| p.parse().expect(p)).collect()
}

fn out_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("nmc-written-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn opts(out: &Path, sets: Vec<Override>) -> RunOptions {
    RunOptions {
        seed: Some(3),
        sets,
        out: Some(out.to_path_buf()),
        trace_limit: None,
    }
}

/// Shipped IMP scenario `name` with `sets` and seed 3, run keeping in memory what it records
/// (what `nmc run` writes must equal it).
fn kept_run(name: &str, sets: &[Override]) -> nmc_imp::Outcome {
    let mut all = sets.to_vec();
    all.push(Override::top("seed", 3i64));
    let s: nmc_imp::scenario::ImpScenario = nmc_scenario::load(name, shipped(name), &all).unwrap();
    nmc_imp::run::run_keeping(
        &nmc_imp::scenario::resolve(&s).unwrap(),
        3,
        Trace::off(),
        &mut |_| {},
        nmc_imp::run::Keep::Recorded,
    )
    .unwrap()
}

fn metrics_bits(m: &std::collections::BTreeMap<String, f64>) -> Vec<(String, u64)> {
    m.iter().map(|(k, v)| (k.clone(), v.to_bits())).collect()
}

/// The M/D/1 line recording every packet (drops too: a short queue).
#[test]
fn packets_csv_is_what_the_kept_records_give() {
    let text = shipped("md1");
    let sets = sets(&[
        "duration=\"2min\"",
        "record=[\"packets\"]",
        "network.line.queue_limit=3",
    ]);
    let out = out_dir("packets");
    run_text("md1", text, &opts(&out, sets.clone()), &|_| {}).unwrap();

    let mut all = sets.clone();
    all.push(Override::top("seed", 3i64));
    let s: nmc_net::StoreForwardScenario = nmc_scenario::load("md1", text, &all).unwrap();
    let o = nmc_net::run(&s, 3, Trace::off(), &mut |_| {}).unwrap();
    assert!(o.packets.iter().any(|p| p.delay_ns.is_none()), "some drops");
    let kept = out.join("kept.csv");
    nmc_report::records::write_csv(&kept, &o.packets).unwrap();
    assert_eq!(
        std::fs::read(out.join("packets.csv")).unwrap(),
        std::fs::read(&kept).unwrap()
    );
    let delays: Vec<f64> = o
        .packets
        .iter()
        .filter_map(|p| p.delay_ns)
        .map(|d| d as f64 / 1e6)
        .collect();
    let svg = nmc_run::charts::histogram("End-to-end delay", "delay (ms)", &delays)
        .to_svg()
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(out.join("delay-histogram.svg")).unwrap(),
        svg
    );
    std::fs::remove_dir_all(&out).unwrap();
}

/// Every shipped IMP scenario that records messages, shortened: messages.csv, occupancy.csv,
/// their charts and every metric as the kept records give them. RFC 632's measures from 20 s on
/// (run well past it and just past it; a run that ends before it is refused, issue 33), and
/// the alternate-path ones have RFNMs of several sources.
#[test]
fn messages_csv_and_metrics_are_what_the_kept_records_give() {
    let name = "rfc632-moffett-sri";
    let short = match run_text(
        name,
        shipped(name),
        &opts(&out_dir("short"), sets(&["duration=\"10s\""])),
        &|_| {},
    ) {
        Ok(_) => panic!("a run that ends before measure_from was not refused"),
        Err(e) => e.to_string(),
    };
    assert!(short.contains("not before the run's end"), "{short}");
    for (name, duration) in [
        ("rfc632-moffett-sri", "30s"),
        ("rfc632-moffett-sri", "21s"),
        ("ko-alternate-3x", "20s"),
        ("ko-v2-chain", "20s"),
        ("rfc626-lockup", "60s"),
    ] {
        let text = shipped(name);
        let sets = sets(&[&format!("duration=\"{duration}\"")]);
        let out = out_dir(&format!("{name}-{duration}"));
        let r = run_text(name, text, &opts(&out, sets.clone()), &|_| {}).unwrap();

        let o = kept_run(name, &sets);
        assert!(o.messages.len() > 10, "{name}: {}", o.messages.len());
        let kept = out.join("kept.csv");
        nmc_report::records::write_csv(&kept, &o.messages).unwrap();
        assert_eq!(
            std::fs::read(out.join("messages.csv")).unwrap(),
            std::fs::read(&kept).unwrap(),
            "{name} {duration}"
        );
        assert_eq!(
            metrics_bits(&r.summary.metrics),
            metrics_bits(&o.metrics.to_map()),
            "{name} {duration}"
        );
        if !o.occupancy.is_empty() {
            nmc_report::records::write_csv(&kept, &o.occupancy).unwrap();
            assert_eq!(
                std::fs::read(out.join("occupancy.csv")).unwrap(),
                std::fs::read(&kept).unwrap(),
                "{name} {duration}"
            );
            let chart = nmc_run::charts::occupancy_chart(&o.occupancy, 30.0, &o.params);
            assert_eq!(
                std::fs::read_to_string(out.join("occupancy.svg")).unwrap(),
                chart.to_svg().unwrap(),
                "{name} {duration}"
            );
        }
        let rtt = nmc_imp::analysis::round_trips_ms(&o.messages);
        let svg =
            nmc_run::charts::histogram("Round trip (accepted → RFNM)", "round trip (ms)", &rtt)
                .to_svg()
                .unwrap();
        assert_eq!(
            std::fs::read_to_string(out.join("round-trip-histogram.svg")).unwrap(),
            svg,
            "{name} {duration}"
        );
        std::fs::remove_dir_all(&out).unwrap();
    }
}

/// RFC 632's pair with its end-to-end events: e2e.csv as the kept events give it.
#[test]
fn e2e_csv_is_what_the_kept_events_give() {
    let name = "rfc632-moffett-sri";
    let sets = sets(&["duration=\"30s\"", "record=[\"e2e\", \"messages\"]"]);
    let out = out_dir("e2e");
    run_text(name, shipped(name), &opts(&out, sets.clone()), &|_| {}).unwrap();
    let o = kept_run(name, &sets);
    assert!(o.e2e.len() > 10, "{}", o.e2e.len());
    let kept = out.join("kept.csv");
    nmc_report::records::write_csv(&kept, &o.e2e).unwrap();
    assert_eq!(
        std::fs::read(out.join("e2e.csv")).unwrap(),
        std::fs::read(&kept).unwrap()
    );
    std::fs::remove_dir_all(&out).unwrap();
}

/// The looping experiment's adaptive routing with each packet's journey: journeys.csv as the
/// kept journeys give it, and the `visits.*` metrics the same whether journeys are kept or not
/// (they are running figures; without `journeys` recorded nothing per packet is kept).
#[test]
fn journeys_csv_is_what_the_kept_journeys_give() {
    let name = "ko-looping";
    let sets = sets(&["duration=\"40s\"", "record=[\"journeys\"]"]);
    let out = out_dir("journeys");
    run_text(name, shipped(name), &opts(&out, sets.clone()), &|_| {}).unwrap();
    let o = kept_run(name, &sets);
    assert!(
        o.routing.journeys.len() > 100,
        "{}",
        o.routing.journeys.len()
    );
    let kept = out.join("kept.csv");
    nmc_report::records::write_csv(&kept, &o.routing.journeys).unwrap();
    assert_eq!(
        std::fs::read(out.join("journeys.csv")).unwrap(),
        std::fs::read(&kept).unwrap()
    );
    let mut none = sets.clone();
    none.push("record=[]".parse().unwrap());
    let o0 = kept_run(name, &none);
    assert!(o0.routing.journeys.is_empty(), "nothing per packet kept");
    let visits = |o: &nmc_imp::run::Outcome| o.metrics.routing.and_then(|r| r.visits);
    assert!(visits(&o).is_some());
    assert_eq!(visits(&o), visits(&o0));
    std::fs::remove_dir_all(&out).unwrap();
}

/// A sink that fails at once.
struct Broken;
impl<T> RecordSink<T> for Broken {
    fn record(&mut self, _: &T) -> std::io::Result<()> {
        Err(std::io::Error::other("no space left on device"))
    }
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_packet_sink_is_a_one_line_error() {
    let sets = sets(&["duration=\"10s\"", "record=[\"packets\"]", "seed=3"]);
    let s: nmc_net::StoreForwardScenario =
        nmc_scenario::load("md1", shipped("md1"), &sets).unwrap();
    let e = nmc_net::run_to(&s, 3, Trace::off(), Some(Box::new(Broken)), &mut |_| {})
        .err()
        .expect("an error")
        .to_string();
    assert_eq!(e, "writing the packet records: no space left on device");
}

/// `/dev/full` opens and fails every write: `nmc run`'s messages.csv there is one line naming
/// the file.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_under_messages_csv_is_a_one_line_error() {
    let name = "rfc632-moffett-sri";
    let sets = sets(&["duration=\"30s\"", "seed=3"]);
    let s: nmc_imp::scenario::ImpScenario = nmc_scenario::load(name, shipped(name), &sets).unwrap();
    let files = nmc_imp::run::Files {
        messages: Some(PathBuf::from("/dev/full")),
        ..Default::default()
    };
    let e = nmc_imp::run::run_writing(
        &nmc_imp::scenario::resolve(&s).unwrap(),
        3,
        Trace::off(),
        &mut |_| {},
        nmc_imp::run::Keep::Recorded,
        &files,
    )
    .err()
    .expect("an error")
    .to_string();
    assert!(
        e.starts_with("writing the message records: /dev/full: "),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");
}
