//! Modelled IMPs in a network of IMPs that run BBN's program 3050 on nmc's emulator (issue 73
//! §3, `network.program.imps` naming fewer than all; `nmc_oracle::mixed`): the program's
//! messages cross the modelled IMPs, and the network carries what it carries with every IMP
//! on the program.
//!
//! The program is BBN's, with a proprietary notice: nmc never commits it. This test reads the
//! user's copy (SIMH's `H316/tests/impcode.cmd`) from `NMC_IMP_PROGRAM`, so it is marked
//! `#[ignore]`: a plain `cargo test` lists it as ignored, i.e. **not run**. Run it with
//! `NMC_IMP_PROGRAM=/path/to/impcode.cmd cargo test --release -p nmc-oracle --test mixed --
//! --include-ignored --nocapture`; asked to run without the variable, it prints NOT RUN.
//!
//! What must hold, written before the first run of these chains (the 2-hop chain seen while
//! building it is not among them): on a 4-hop chain with three modelled IMPs in a row (A), and
//! with two modelled IMPs between emulated ones (B), the network comes up and the pump's
//! messages are answered, no line between the two kinds is killed, no packet the modelled side
//! refused is lost; throughput within 5 % and K&O's round trip within 10 % of the same chain
//! all on the program (C) — the model's per-hop time differs from the program's by up to about
//! 10 % at short distances (issue 71); and two runs of A give the same bytes.

mod common;

/// The 4-hop chain with `imps` emulated (all when empty), 2 ms a line.
fn chain(imps: &[&str]) -> nmc_imp::spec::ImpConfig {
    let list = imps
        .iter()
        .map(|x| format!("\"{x}\""))
        .collect::<Vec<_>>()
        .join(", ");
    common::pump_chain(4, "", &format!("imps = [{list}]"))
}

#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn modelled_imps_carry_the_programs_traffic_as_emulated_ones_do() {
    let Some(image) = common::program() else {
        return;
    };
    let run = |imps: &[&str]| {
        nmc_oracle::program::run_image(&chain(imps), 1, &image, &mut |_| {}).unwrap()
    };
    let c = run(&[]);
    let (kc, rc) = (c.metrics["throughput_kbps"], c.metrics["rtt.mean_ms"]);
    eprintln!("C, all on the program: {kc:.2} kbit/s, K&O round trip {rc:.1} ms");
    let mut misses = Vec::new();
    for (name, imps) in [
        ("A", &["IMP0", "IMP4"][..]),
        ("B", &["IMP0", "IMP2", "IMP4"][..]),
    ] {
        let r = run(imps);
        let m = &r.metrics;
        let (k, rt) = (m["throughput_kbps"], m["rtt.mean_ms"]);
        let (dk, dr) = (k / kc - 1.0, rt / rc - 1.0);
        eprintln!(
            "{name}: {k:.2} kbit/s ({:+.1} %), K&O round trip {rt:.1} ms ({:+.1} %), {} messages; {}",
            dk * 100.0,
            dr * 100.0,
            m["messages.completed"],
            r.notes[1]
        );
        assert!(m["messages.completed"] > 100.0, "{name}: messages answered");
        assert_eq!(
            m["program.boundary.line_kills"], 0.0,
            "{name}: no line killed"
        );
        // Nothing lost at the boundary: every packet into the model came out of it (or is on
        // its way at the end: a few).
        assert!(
            m["program.boundary.packets_in"] - m["program.boundary.packets_out"] <= 16.0,
            "{name}: {} in, {} out",
            m["program.boundary.packets_in"],
            m["program.boundary.packets_out"]
        );
        if dk.abs() > 0.05 || dr.abs() > 0.10 {
            misses.push(name);
        }
        if name == "A" {
            let again = run(imps);
            assert_eq!(
                serde_json::to_string(&r.messages).unwrap(),
                serde_json::to_string(&again.messages).unwrap()
            );
            assert_eq!(r.metrics, again.metrics);
        }
    }
    assert!(misses.is_empty(), "outside the tolerances: {misses:?}");
}

/// Hosts on modelled IMPs (the model's hosts and pumps, their messages translated between the
/// two end-to-end protocols, `nmc_oracle::mixed::translate`), on the same 4-hop chain: the pump
/// on a modelled IMP0 to the program's discard host on IMP4 (D); the program's pump on IMP0 to
/// the model's discard host on a modelled IMP4 (E); both ends modelled, the three IMPs between
/// on the program (F). What must hold is the test above's, with its tolerances (throughput
/// within 5 %, K&O's round trip within 10 % of the chain all on the program), no line killed,
/// no message of the model's answered "destination dead", and two runs of D the same bytes.
/// Disclosed: D, E and F were each run once while the translation was built, before this test
/// was written (38.63 kbit/s / 398.2 ms, 39.17 / 399.9, 38.63 / 404.1; the chain all on the
/// program 39.44 / 406.9); the tolerances were not chosen on them.
#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn hosts_on_modelled_imps_exchange_messages_with_the_programs_hosts() {
    let Some(image) = common::program() else {
        return;
    };
    let run = |imps: &[&str]| {
        nmc_oracle::program::run_image(&chain(imps), 1, &image, &mut |_| {}).unwrap()
    };
    let c = run(&[]);
    let (kc, rc) = (c.metrics["throughput_kbps"], c.metrics["rtt.mean_ms"]);
    eprintln!("C, all on the program: {kc:.2} kbit/s, K&O round trip {rc:.1} ms");
    let mut misses = Vec::new();
    for (name, imps) in [
        ("D", &["IMP1", "IMP2", "IMP3", "IMP4"][..]),
        ("E", &["IMP0", "IMP1", "IMP2", "IMP3"][..]),
        ("F", &["IMP1", "IMP2", "IMP3"][..]),
    ] {
        let r = run(imps);
        let m = &r.metrics;
        let (k, rt) = (m["throughput_kbps"], m["rtt.mean_ms"]);
        let (dk, dr) = (k / kc - 1.0, rt / rc - 1.0);
        eprintln!(
            "{name}: {k:.2} kbit/s ({:+.1} %), K&O round trip {rt:.1} ms ({:+.1} %), {} messages; {}",
            dk * 100.0,
            dr * 100.0,
            m["messages.completed"],
            r.notes[2..].join("; ")
        );
        assert!(m["messages.completed"] > 100.0, "{name}: messages answered");
        assert_eq!(
            m["program.boundary.line_kills"], 0.0,
            "{name}: no line killed"
        );
        assert!(
            m["program.boundary.native_out"] > 0.0 && m["program.boundary.native_in"] > 0.0,
            "{name}: the model's own packets crossed both ways"
        );
        assert_eq!(
            m["program.boundary.native_dead"], 0.0,
            "{name}: no message of the model's answered destination dead"
        );
        if dk.abs() > 0.05 || dr.abs() > 0.10 {
            misses.push(name);
        }
        if name == "D" {
            let again = run(imps);
            assert_eq!(
                serde_json::to_string(&r.messages).unwrap(),
                serde_json::to_string(&again.messages).unwrap()
            );
            assert_eq!(r.metrics, again.metrics);
        }
    }
    assert!(misses.is_empty(), "outside the tolerances: {misses:?}");
}

/// The background load with a site on a modelled IMP (the model's background host there, its
/// messages and the program's to it translated), on the 4-hop chain with IMP2 modelled, K&O's
/// pump beside a background of 10 messages a second: against the same chain all on the
/// program, the same load offered (the sites draw from their own streams, so the two runs
/// offer the same messages), and the pump within the tolerances above (5 % throughput, 10 %
/// K&O round trip), no line killed. Disclosed: this pair was run once while the background
/// was built, before this test was written (31.12 kbit/s / 424.2 ms against 32.19 / 395.7;
/// 432 background messages offered in both).
#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn a_background_site_on_a_modelled_imp_offers_the_same_load() {
    let Some(image) = common::program() else {
        return;
    };
    let with_load = |imps: &[&str]| {
        let list = imps
            .iter()
            .map(|x| format!("\"{x}\""))
            .collect::<Vec<_>>()
            .join(", ");
        // The load's table goes after `[network.program]`'s keys, before the pump's.
        let s = common::pump_chain(
            4,
            "",
            &format!(
                "imps = [{list}]\n[[traffic]]\nkind = \"background\"\nmessages_per_second = 10.0\nsingle_packet_fraction = 0.9\nsingle_mean = \"250bit\"\nmulti_mean = \"3000bit\""
            ),
        );
        nmc_oracle::program::run_image(&s, 1, &image, &mut |_| {}).unwrap()
    };
    let h = with_load(&[]);
    let g = with_load(&["IMP0", "IMP1", "IMP3", "IMP4"]);
    let (kh, rh) = (h.metrics["throughput_kbps"], h.metrics["rtt.mean_ms"]);
    let (kg, rg) = (g.metrics["throughput_kbps"], g.metrics["rtt.mean_ms"]);
    eprintln!(
        "all on the program {kh:.2} kbit/s / {rh:.1} ms; IMP2 modelled {kg:.2} ({:+.1} %) / {rg:.1} ({:+.1} %); background offered {} and {}",
        (kg / kh - 1.0) * 100.0,
        (rg / rh - 1.0) * 100.0,
        h.metrics["background.offered"],
        g.metrics["background.offered"]
    );
    assert_eq!(
        h.metrics["background.offered"],
        g.metrics["background.offered"]
    );
    assert_eq!(g.metrics["program.boundary.line_kills"], 0.0);
    assert!((kg / kh - 1.0).abs() <= 0.05 && (rg / rh - 1.0).abs() <= 0.10);
}
