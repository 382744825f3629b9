//! BBN's IMP program on nmc's own H316 emulator against SIMH's recordings (issue 73 §4).
//!
//! The program is BBN's, with a proprietary notice: nmc never commits it. The tests that run
//! it read the user's copy (SIMH's `H316/tests/impcode.cmd`) from `NMC_IMP_PROGRAM`, so they
//! are marked `#[ignore]`: a plain `cargo test` lists them as ignored, i.e. **not run**. Run
//! them with `NMC_IMP_PROGRAM=/path/to/impcode.cmd cargo test -p nmc-oracle --test emulated
//! -- --include-ignored --nocapture`; asked to run without the variable, each prints NOT RUN
//! and returns.
//!
//! Tolerance, stated before the first run: a recorded row is reproduced if the emulator's
//! throughput and K&O round trip are each within 5 % of SIMH's recorded mean (the oracle
//! issue's tolerance, `nmc_oracle::model::THROUGHPUT_TOLERANCE` and `RTT_TOLERANCE`; SIMH's
//! repeats of one setting agree within 1–3 %). Emergent: the emulator knows neither value —
//! they come out of the program's own queues, timers and the lines' speeds.

use std::path::{Path, PathBuf};

mod common;

use nmc_h316::Image;
use nmc_oracle::emulate::{Options, compare, probe_of, recorded_run, replay, table, trace_text};
use nmc_oracle::model::recorded;
use nmc_oracle::run::{Experiment, Network, Settings};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/oracle")
}

/// Replays recorded run `run` up to its last accepted experiment; every accepted row must
/// agree within the stated tolerance, its messages all answered by RFNM.
fn replay_and_judge(image: &Image, run: &str) {
    let rec = recorded(&data()).unwrap();
    let (net, s, experiments) = recorded_run(&data().join("runs").join(run).join("run.json"))
        .expect("the recorded run's settings read back");
    let last = experiments
        .iter()
        .rposition(|e| rec.iter().any(|r| r.run == run && r.experiment == e.name))
        .expect("the run has an accepted row")
        + 1;
    let limits = Options {
        experiments: last,
        ..Options::default()
    };
    let r = replay(
        image,
        &net,
        &s,
        &experiments,
        probe_of(&experiments),
        limits,
    )
    .unwrap();
    let (results, _) = r.results(&s, false);
    let rows = compare(&rec, run, &results);
    eprintln!("{}", table(&rows));
    assert!(!rows.is_empty());
    for row in &rows {
        assert!(
            row.clean,
            "{}: every message answered by a RFNM",
            row.experiment
        );
        assert!(
            row.kbps_agrees && row.rtt_agrees,
            "{} {}: emulator {:.2} kbit/s, {:.1} ms against SIMH's {:.2} kbit/s, {:.1} ms (5 %)",
            run,
            row.experiment,
            row.emu_kbps,
            row.emu_rtt_ms,
            row.simh_kbps,
            row.simh_rtt_ms
        );
    }
}

#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn eight_packet_messages_over_seven_hops_as_simh_recorded() {
    let Some(image) = common::program() else {
        return;
    };
    // One experiment after start-up: 8 outstanding 8-packet messages to IMP 18 (516s).
    replay_and_judge(&image, "516-8-fill1");
}

#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn single_packets_over_nine_hops_as_simh_recorded() {
    let Some(image) = common::program() else {
        return;
    };
    // 316s: 8-packet messages over 9 hops, then single packets over 9 hops.
    replay_and_judge(&image, "316-4-fill2");
}

/// Replays `e` on `net` twice and asserts the two give the same trace bytes, results and
/// message times; returns the trace and the results.
fn replayed_twice(
    image: &Image,
    net: &Network,
    s: &Settings,
    e: &[Experiment],
    probe: usize,
) -> (String, Vec<nmc_oracle::analyze::ExperimentResult>) {
    let run = || {
        let r = replay(image, net, s, e, probe, Options::default()).unwrap();
        let (results, messages) = r.results(s, false);
        let traces: String = r.traces.iter().map(trace_text).collect();
        (
            traces,
            serde_json::to_string(&results).unwrap(),
            serde_json::to_string(&messages).unwrap(),
            results,
        )
    };
    let a = run();
    let b = run();
    assert!(a.0 == b.0, "trace bytes differ between two runs");
    assert_eq!(a.1, b.1, "results differ");
    assert_eq!(a.2, b.2, "message times differ");
    (a.0, a.3)
}

/// Two IMPs, a dozen single-packet messages: the same program and settings give the same
/// trace bytes and the same results twice.
#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn two_replays_give_the_same_bytes() {
    let Some(image) = common::program() else {
        return;
    };
    let net = Network::chain(2, 11);
    let s = Settings::default();
    let e = vec![Experiment {
        name: "516-single-1hop".into(),
        dest: 1,
        hops: 1,
        outstanding: 1,
        messages: 12,
        warmup: 2,
        text_words: 63,
    }];
    let (trace, _) = replayed_twice(&image, &net, &s, &e, 1);
    assert!(trace.lines().count() > 1000, "the trace has the run in it");
}

/// RFC 632's network (not a chain: two 3-hop paths, one with two 230.4 kbit/s circuits), its
/// recorded run replayed twice: the same bytes, every message answered by a RFNM, and the
/// destination sees RFC 632's trap (a message out of order, messages again) exactly when
/// SIMH's recording did. Its throughput and round trip miss SIMH's by about 20 % (the one
/// reordering comes at another message; `data/oracle/emulated/README.md`), which
/// `nmc oracle emulate --run rfc632-516-4` reports; not asserted here.
#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn rfc632_replays_the_same_bytes_and_shows_the_trap_as_simh_did() {
    let Some(image) = common::program() else {
        return;
    };
    let run_json = data().join("runs/rfc632-516-4/run.json");
    let (net, s, e) = recorded_run(&run_json).unwrap();
    let (_, results) = replayed_twice(&image, &net, &s, &e, probe_of(&e));
    let x = &results[0];
    assert_eq!(
        (x.answered, x.non_rfnm, x.matching.as_str()),
        (1000, 0, "ok")
    );
    let counts = nmc_oracle::emulate::counts(&run_json, "rfc632-516-4", &results).unwrap();
    let (simh, emu) = (&counts[0], &counts[1]);
    assert_eq!((simh.by.as_str(), emu.by.as_str()), ("simh", "emulator"));
    assert_eq!(
        (emu.dest_out_of_order > 0, emu.dest_again > 0),
        (simh.dest_out_of_order > 0, simh.dest_again > 0),
        "RFC 632's trap: SIMH {simh:?}, emulator {emu:?}"
    );
    // Both paths carry traffic: the source IMP sends on both of its lines.
    assert!(emu.line1 > 0 && emu.line2 > 0, "{emu:?}");
}

/// The June 1974 map (42 IMPs, each line its own speed and delay, 316s and 516s), a short
/// pump to the 1-hop site, twice: the same trace bytes and results.
#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn the_1974_map_replays_the_same_bytes() {
    use nmc_oracle::map::{KO_MAP, KO_SOURCE, MapArgs, from_scenario, ko_experiments};
    let Some(image) = common::program() else {
        return;
    };
    let m = from_scenario("ko-v2-map.toml", KO_MAP, KO_SOURCE).unwrap();
    let args = MapArgs {
        program: None,
        hops: vec![1],
        outstanding: 4,
        messages: 12,
        warmup: 2,
        text_words: 503,
        machine: None,
        no_propagation: false,
        load: 0.0,
        seed: None,
        power_on: nmc_imp::spec::PowerOn::Together,
        settle_ns: 0,
        data: data(),
        out: None,
    };
    let e = ko_experiments(&m, &args).unwrap();
    let s = Settings::default();
    let (_, results) = replayed_twice(&image, &m.net, &s, &e, e[0].dest);
    let x = &results[0];
    assert_eq!((x.answered, x.non_rfnm, x.matching.as_str()), (12, 0, "ok"));
}

/// Needs no program: RFC 632's recorded network reads back with its fast circuits, and the
/// emulator's IMPs get those speeds on the modems the run used.
#[test]
fn rfc632s_recorded_network_reads_back_with_its_fast_circuits() {
    let (net, s, e) = recorded_run(&data().join("runs/rfc632-516-4/run.json")).unwrap();
    assert_eq!(net.imps, vec![11, 12, 13, 14, 15, 16]);
    assert_eq!(e.len(), 1);
    assert_eq!((e[0].dest, e[0].hops, probe_of(&e)), (3, 3, 3));
    nmc_oracle::emulate::check_network(&net).unwrap();
    let source = nmc_oracle::emulate::imp_config(&net, &s, 0);
    assert_eq!(
        source.modems,
        [Some(50_000), Some(230_400), None, None, None]
    );
    let c = nmc_oracle::emulate::imp_config(&net, &s, 4);
    assert_eq!(c.modems, [Some(230_400), Some(230_400), None, None, None]);
    let dest = nmc_oracle::emulate::imp_config(&net, &s, 3);
    assert_eq!(dest.modems, [Some(50_000), Some(50_000), None, None, None]);
    let rows = nmc_oracle::emulate::recorded_rfc632(&data()).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].run, "rfc632-516-4");
}

/// Needs no program: every recorded run's settings read back, and the chain's IMPs get the
/// modems their command files enabled.
#[test]
fn every_recorded_run_reads_back_with_its_imps_modems() {
    let rec = recorded(&data()).unwrap();
    let mut runs: Vec<&str> = rec.iter().map(|r| r.run.as_str()).collect();
    runs.dedup();
    assert!(runs.len() >= 8, "{runs:?}");
    for run in runs {
        let (net, s, e) = recorded_run(&data().join("runs").join(run).join("run.json")).unwrap();
        assert_eq!(net.imps.len(), 10, "{run}: a chain of 10");
        assert_eq!((s.line_bps, s.prop_ns, s.rtc_us), (50_000, 0, 100), "{run}");
        assert!(!e.is_empty());
        let first = nmc_oracle::emulate::imp_config(&net, &s, 0);
        assert_eq!(first.modems, [None, Some(50_000), None, None, None]);
        let mid = nmc_oracle::emulate::imp_config(&net, &s, 4);
        assert_eq!(mid.modems, [Some(50_000), Some(50_000), None, None, None]);
        assert_eq!(first.number, 11);
        assert_eq!(first.clock_tick_ns, 100_000);
    }
}

/// The 1974 map with the scenario's background load (issue 73 §5), K&O's pump 1 hop to SDC:
/// the load's messages are delivered and answered by RFNM, the pump runs clean, and a second
/// run gives the same bytes.
#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn the_loaded_map_delivers_its_background_and_replays_byte_identical() {
    use nmc_oracle::emulate::replay_loaded;
    use nmc_oracle::map::{KO_MAP, KO_SOURCE, background_load, from_scenario};
    let Some(image) = common::program() else {
        return;
    };
    let m = from_scenario("ko-v2-map.toml", KO_MAP, KO_SOURCE).unwrap();
    let load = background_load("ko-v2-map.toml", KO_MAP, &m, 1.0, Some(1), 5_000_000_000)
        .unwrap()
        .expect("the scenario has a background");
    assert_eq!(load.sites.len(), 42, "a background host on every site");
    let dest = m.index("SDC").unwrap();
    let e = vec![Experiment {
        name: "map-4out-1hop-SDC".into(),
        dest,
        hops: 1,
        outstanding: 4,
        messages: 30,
        warmup: 5,
        text_words: 503,
    }];
    let s = Settings::default();
    let run = || {
        let r = replay_loaded(
            &image,
            &m.net,
            &s,
            &e,
            dest,
            Options::default(),
            Some(&load),
        )
        .unwrap();
        let (results, messages) = r.results(&s, true);
        let traces: String = r.traces.iter().map(trace_text).collect();
        (
            traces,
            serde_json::to_string(&results).unwrap(),
            serde_json::to_string(&messages).unwrap(),
            r.background,
            results,
        )
    };
    let a = run();
    let bg = *a.3.last().expect("counts at the experiment's end");
    eprintln!("{bg:?}");
    // 67.5 messages/s for 5 s of settling and the pump's ~7 s.
    assert!(bg.offered > 400, "{bg:?}");
    assert_eq!(bg.refused, 0);
    // Every message answered but those still in flight at the end: at most the last 2 s of
    // arrivals (135 at 67.5 a second; the mean round trip under this load is under 1 s). A
    // few are answered "destination dead" while the far sites (LONDON behind 9.6 kbit/s
    // lines) come up. Each RFNM follows a delivery.
    let in_flight = bg.sent - bg.answered - bg.failed;
    assert!(in_flight <= 135 && bg.failed < 30, "{bg:?}");
    assert!(bg.delivered >= bg.answered, "{bg:?}");
    assert!(a.4[0].matching == "ok" && !a.4[0].stalled, "{:?}", a.4[0]);
    let b = run();
    assert!(a.0 == b.0, "trace bytes differ between two runs");
    assert_eq!(a.1, b.1, "results differ");
    assert_eq!(a.2, b.2, "message times differ");
}

/// A scenario file with `[network.program]` (issue 73 §3): a 316 chain as SIMH's recorded
/// `316-4-fill1` run had it (no propagation, 503-word messages, 4 outstanding), run by
/// `nmc_oracle::program` through the scenario's own hosts, lines and pump
/// ([`common::pump_chain`]).
///
/// Tolerance, stated before the first run: at 1, 3 and 6 hops the scenario's throughput is
/// within 5 % of SIMH's recorded mean (every accepted `316-4out-<h>hop` row), and its round
/// trip (accepted → RFNM: K&O's) within 5 % of the emulator's own replay of that run
/// (`data/oracle/emulated/compare.csv`): the scenario path (its hosts, probes and lines) must
/// measure what the oracle's driver measured on the same machine. Two runs: the same bytes.
#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn a_scenario_on_the_program_carries_what_simh_recorded_and_repeats_itself() {
    let Some(image) = common::program() else {
        return;
    };
    let rec = recorded(&data()).unwrap();
    let replayed: Vec<csv::StringRecord> =
        csv::Reader::from_path(data().join("emulated/compare.csv"))
            .unwrap()
            .records()
            .map(Result::unwrap)
            .collect();
    let mut misses = Vec::new();
    for hops in [1u32, 3, 6] {
        let name = format!("316-4out-{hops}hop");
        let simh: Vec<f64> = rec
            .iter()
            .filter(|r| r.experiment == name)
            .map(|r| r.throughput_kbps)
            .collect();
        let simh = simh.iter().sum::<f64>() / simh.len() as f64;
        let emu_rtt: f64 = replayed
            .iter()
            .find(|r| &r[0] == "316-4-fill1" && r[1] == *name)
            .map(|r| r[13].parse().unwrap())
            .expect("the replay's row");
        let r = nmc_oracle::program::run_image(
            &common::pump_chain(hops, ", propagation = \"0s\"", ""),
            1,
            &image,
            &mut |_| {},
        )
        .unwrap();
        let kbps = r.metrics["throughput_kbps"];
        let rtt = r.metrics["rtt.mean_ms"];
        let dk = kbps / simh - 1.0;
        let dr = rtt / emu_rtt - 1.0;
        eprintln!(
            "{hops} hops: {kbps:.2} kbit/s (SIMH {simh:.2}, {:+.1} %), K&O round trip {rtt:.1} ms (replay {emu_rtt:.1}, {:+.1} %), {} messages",
            dk * 100.0,
            dr * 100.0,
            r.metrics["messages.completed"]
        );
        if dk.abs() > nmc_oracle::model::THROUGHPUT_TOLERANCE
            || dr.abs() > nmc_oracle::model::RTT_TOLERANCE
        {
            misses.push(hops);
        }
        if hops == 3 {
            let again = nmc_oracle::program::run_image(
                &common::pump_chain(hops, ", propagation = \"0s\"", ""),
                1,
                &image,
                &mut |_| {},
            )
            .unwrap();
            assert_eq!(
                serde_json::to_string(&r.messages).unwrap(),
                serde_json::to_string(&again.messages).unwrap()
            );
            assert_eq!(r.metrics, again.metrics);
        }
    }
    assert!(misses.is_empty(), "outside 5 % at {misses:?} hops");
}

/// `record = ["journeys"]` on the program (issue 71): on a 3-hop chain there is one path, so
/// every data packet of the pump and every RFNM crosses three lines and visits no IMP twice,
/// and the pump's packets are its messages' eight each (those that reached the far end); no
/// packet of any IMP's loops.
#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn a_chains_journeys_are_three_hops_without_a_loop() {
    let Some(image) = common::program() else {
        return;
    };
    let mut s = common::pump_chain(3, ", propagation = \"0s\"", "");
    s.record.push("journeys".into());
    let r = nmc_oracle::program::run_image(&s, 1, &image, &mut |_| {}).unwrap();
    let pump: Vec<_> = r
        .journeys
        .iter()
        .filter(|j| j.src == "IMP0" && j.dst == "IMP3" && j.kind == "data")
        .collect();
    let rfnms = r
        .journeys
        .iter()
        .filter(|j| j.src == "IMP3" && j.dst == "IMP0" && j.kind == "rfnm")
        .count();
    assert!(pump.len() > 8 * 100, "{} packets", pump.len());
    assert!(
        rfnms * 8 >= pump.len() - 8 * 4,
        "{rfnms} RFNMs for {} packets",
        pump.len()
    );
    // The pair's packets and RFNMs (the IMPs' own messages to each other go too).
    let pair = |j: &&nmc_oracle::journeys::ProgramJourney| {
        (j.src == "IMP0" && j.dst == "IMP3") || (j.src == "IMP3" && j.dst == "IMP0")
    };
    assert!(
        r.journeys
            .iter()
            .filter(pair)
            .all(|j| j.hops == 3 && j.max_visits == 1 && j.loop_hops == 0),
        "{:?}",
        r.journeys
            .iter()
            .filter(pair)
            .find(|j| j.hops != 3 || j.max_visits > 1)
    );
    assert!(pump.iter().all(|j| j.path == "IMP0 IMP1 IMP2 IMP3"));
    assert_eq!(r.metrics["visits.looped_packets"], 0.0);
    assert_eq!(r.metrics["visits.max"], 1.0);
}

/// `record = ["routing"]` on the program: on a chain of four IMPs every routing message goes
/// between neighbours, in each direction of each line, and says what a chain must: the sender
/// is 0 hops from itself and n hops from the IMP n along; each line's serial numbers never go
/// back (a new table adds 400 octal, p. 232 `CRMSN1`; a table sent again keeps its number).
#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn a_chains_routing_messages_count_the_hops_along_it() {
    let Some(image) = common::program() else {
        return;
    };
    let mut s = common::pump_chain(3, ", propagation = \"0s\"", "");
    s.record.push("routing".into());
    let r = nmc_oracle::program::run_image(&s, 1, &image, &mut |_| {}).unwrap();
    let rt = r.routing;
    assert!(rt.rows.len() > 100, "{} routing messages", rt.rows.len());
    let mut directions = std::collections::BTreeSet::new();
    for m in &rt.rows {
        assert_eq!(m.from.abs_diff(m.to), 1, "{m:?}");
        directions.insert((m.from, m.to));
        for (k, &(_, hops)) in m.entries.iter().enumerate() {
            assert_eq!(usize::from(hops), m.from.abs_diff(k), "{m:?}");
        }
    }
    assert_eq!(directions.len(), 6, "{directions:?}");
    for d in &directions {
        let serials: Vec<u16> = rt
            .rows
            .iter()
            .filter(|m| (m.from, m.to) == *d)
            .map(|m| m.serial)
            .collect();
        assert!(
            serials
                .windows(2)
                .all(|w| w[1].wrapping_sub(w[0]) % 0o400 == 0 && w[1].wrapping_sub(w[0]) < 0x8000),
            "{d:?}: {serials:?}"
        );
        assert!(
            serials.windows(2).any(|w| w[1] != w[0]),
            "{d:?}: new tables"
        );
    }
}

/// `network.program.watch` on the program: the source IMP passes `HI24` (BBN 3050 p. 128: the
/// message has its number, packet 1 is next) for each of the pump's messages, after the
/// message was offered and the one before it was in, and before its packet 1 is in; and the
/// run is the same with the watch as without it.
#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn a_watch_sees_each_message_take_its_number_and_changes_nothing() {
    let Some(image) = common::program() else {
        return;
    };
    let plain = common::pump_chain(1, "", "");
    let watched = common::pump_chain(1, "", "watch = { imp = \"IMP0\", at = [\"14341\"] }");
    let a = nmc_oracle::program::run_image(&plain, 1, &image, &mut |_| {}).unwrap();
    let b = nmc_oracle::program::run_image(&watched, 1, &image, &mut |_| {}).unwrap();
    assert_eq!(a.messages, b.messages, "the watch changed the run");
    assert_eq!(a.metrics, b.metrics);
    assert!(a.watch.is_empty());
    assert!(b.watch.iter().all(|w| w.imp == "IMP0" && w.p == "14341"));
    let passes: Vec<i64> = b.watch.iter().map(|w| w.t_ns).collect();
    assert!(passes.windows(2).all(|w| w[0] < w[1]), "in time order");
    let mut before_in = 0;
    for (k, m) in b.messages.iter().enumerate() {
        let Some(first_in) = m.first_in_ns else {
            continue;
        };
        let prev_in = k
            .checked_sub(1)
            .map_or(0, |j| b.messages[j].accepted_ns.unwrap());
        let free = m.offered_ns.max(prev_in) as i64;
        assert!(
            passes.iter().any(|&t| free <= t && t < first_in as i64),
            "message {k}: no pass between {free} and {first_in}"
        );
        before_in += 1;
    }
    assert!(before_in > 50, "{before_in} messages");
}
