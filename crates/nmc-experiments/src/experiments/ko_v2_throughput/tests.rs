use super::*;

/// The browser page (issue 60) draws K&O's points from `web/ko-targets.json`, a copy of the
/// targets scored here: the copy must say what these functions say.
#[test]
fn the_pages_copy_of_the_targets_is_these() {
    let text = include_str!("../../../../../web/ko-targets.json");
    let j: serde_json::Value = serde_json::from_str(text).unwrap();
    let Target::Range { lo, hi, rel } = ko1_target() else {
        panic!("KO-1 is a range")
    };
    let ko1 = &j["throughput_kbps"][0];
    assert_eq!(
        (ko1["row"].as_str(), ko1["lo"].as_f64()),
        (Some("KO-1"), Some(lo))
    );
    assert_eq!(
        (ko1["hi"].as_f64(), ko1["tolerance_rel"].as_f64()),
        (Some(hi), Some(rel))
    );
    let Target::Rel { value, rel } = ko2_target() else {
        panic!("KO-2 is a value")
    };
    let ko2 = &j["throughput_kbps"][1];
    assert_eq!(
        (ko2["row"].as_str(), ko2["lo"].as_f64()),
        (Some("KO-2"), Some(value))
    );
    assert_eq!(ko2["tolerance_rel"].as_f64(), Some(rel));
    let Target::Rel { rel, .. } = ko3_target(1) else {
        panic!("KO-3 is a value")
    };
    let rtt = &j["rtt_ms"];
    assert_eq!(rtt["base"].as_f64(), Some(published_rtt(1)));
    assert_eq!(
        rtt["per_hop"].as_f64(),
        Some(published_rtt(2) - published_rtt(1))
    );
    assert_eq!(rtt["tolerance_rel"].as_f64(), Some(rel));
}

/// The line-rate what-if's frame length does what its doc says: the unloaded one-hop pump
/// carries RFC 573's 37.5 kbit/s (±0.25).
#[test]
fn rfc573_frames_carry_its_one_hop_rate() {
    let text = include_str!("../../../../../scenarios/ko-v2-chain.toml");
    let overhead = format!("network.params.packet_overhead={RFC573_PACKET_OVERHEAD_BITS}bit");
    let sets: Vec<nmc_scenario::Override> = [
        "network.topology.hops=1",
        "network.hosts.1.imp=IMP1",
        "duration=2min",
        overhead.as_str(),
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect();
    let s: ImpScenario = nmc_scenario::load("ko-v2-chain.toml", text, &sets).unwrap();
    let o = nmc_imp::scenario::run(&s, 1, nmc_sim::Trace::off(), &mut |_| {}).unwrap();
    let kbps = o.metrics.pair.throughput_kbps;
    assert!((kbps - 37.5).abs() < 0.25, "{kbps:.2} kbit/s");
}

/// K&O §III's criterion by Little's law: a pump holding all 4 numbers over an 880 ms cycle
/// carries 36 kbit/s; 140 ms more round trip takes it to 36 × 880 / 1020 ≈ 31 kbit/s, and
/// with 2 numbers held (the line binds) the same 4 numbers could carry twice as much.
#[test]
fn window_bound_follows_the_cycle() {
    assert!((window_bound(36.0, 880.0, 4.0, 0.0, 4.0) - 36.0).abs() < 1e-9);
    let longer = window_bound(36.0, 880.0, 4.0, 140.0, 4.0);
    assert!((longer - 36.0 * 880.0 / 1020.0).abs() < 1e-9, "{longer}");
    assert!((window_bound(36.0, 880.0, 2.0, 0.0, 4.0) - 72.0).abs() < 1e-9);
    assert!(window_bound(36.0, 880.0, 0.0, 0.0, 4.0).is_nan());
}

/// Issue 54: a published row's note names what binds its path in the model and whether
/// K&O's round trip would make the window bind; no note for a distance not diagnosed.
#[test]
fn a_rows_note_says_what_binds_and_what_ko_needs() {
    let row = |hops: u32, binding: &str, bound: f64| BindingRow {
        hops,
        destination: "BBN".into(),
        throughput_kbps: 36.0,
        window8_throughput_kbps: 36.0,
        window8_ratio: 1.0,
        message_numbers_mean: 3.97,
        number_wait_fraction: 0.5,
        busiest_line: "MIT-MAC>CCA".into(),
        busiest_utilisation: 0.99,
        busiest_other_share: 0.33,
        pump_wait_by_hop_ms: "150/10".into(),
        pump_wait_total_ms: 160.0,
        rtt_ms: 777.0,
        cycle_ms: 880.0,
        ko_rtt_ms: 920.0,
        window_bound_at_ko_rtt_kbps: bound,
        binding: binding.into(),
    };
    let rows = [row(9, "line MIT-MAC>CCA", 31.1), row(1, "window", 80.0)];
    let nine = binding_row_note(&rows, 9).expect("9 hops diagnosed");
    assert!(
        nine.contains("binds: its busiest line, MIT-MAC>CCA (99 % busy, 33 %"),
        "{nine}"
    );
    assert!(nine.contains("920 ms against the model's 777"), "{nine}");
    assert!(nine.contains("so the window would bind"), "{nine}");
    assert!(nine.contains("ablation_9hops.csv"), "{nine}");
    let one = binding_row_note(&rows, 1).expect("1 hop diagnosed");
    assert!(one.contains("binds: the window."), "{one}");
    assert!(one.contains("would still not bind"), "{one}");
    assert!(!one.contains("ablation"), "{one}");
    assert!(binding_row_note(&rows, 5).is_none());
}

/// The closing note lists only rows that miss as configured, and for each the cases within
/// the row's own target, with their inputs.
#[test]
fn closing_note_names_cases_within_the_rows_target() {
    let rows = [
        Closing {
            id: "KO-2 9 hops".into(),
            target: ko2_target(),
            ours: 34.7,
            cases: vec![
                ("load × 1.5".into(), INPUT_LOAD, 30.7),
                ("no other traffic".into(), INPUT_LOAD, 41.2),
            ],
        },
        Closing {
            id: "KO-1 1 hop".into(),
            target: ko1_target(),
            ours: 39.3,
            cases: vec![("to UCSB".into(), INPUT_SITE, 30.0)],
        },
        Closing {
            id: "KO-5 1 hop".into(),
            target: ko5_target(),
            ours: 0.0,
            cases: vec![("to UCSD".into(), INPUT_SITE, 0.0)],
        },
    ];
    let note = closing_note(&rows);
    assert!(note.contains("KO-2 9 hops (ours 34.7): load × 1.5 (30.7); the input: the network's"));
    assert!(!note.contains("no other traffic"));
    assert!(!note.contains("KO-1 1 hop"));
    assert!(note.contains("KO-5 1 hop (ours 0.0): none of these (they give 0.0–0.0)"));
}

/// The 9-hop plan: every load factor and December 1973's average as sensitivity cases, every
/// ablation once; the run as configured twice (load × 1 and "as configured") with no
/// settings of its own; K&O's counterfactual window makes room for 4 more full allocations
/// and nothing else.
#[test]
fn the_nine_hop_plan_reads_like_its_tables() {
    let p = nmc_imp::ImpParams::v2_1974_10();
    let cases = nine_hop_cases(&p, 10.0);
    let sens: Vec<&Case> = cases.iter().filter(|c| c.0 == "sensitivity").collect();
    let abl: Vec<&Case> = cases.iter().filter(|c| c.0 == "ablation").collect();
    assert_eq!(sens.len(), LOAD_FACTORS.len() + 1);
    assert_eq!(abl.len(), ABLATION_CASES);
    let unset: Vec<&str> = cases
        .iter()
        .filter(|c| c.4.is_empty())
        .map(|c| c.1.as_str())
        .collect();
    assert_eq!(unset, ["load × 1", "as configured"]);
    let window = &abl
        .iter()
        .find(|c| c.1.ends_with("(6 PLT entries)"))
        .expect("the counterfactual")
        .4;
    let extra = 4 * p.allocation_buffers;
    assert_eq!(
        window,
        &vec![
            "network.params.message_numbers=8".to_string(),
            format!("network.params.plt_entries={}", p.plt_entries),
            format!(
                "network.params.reassembly_buffers={}",
                p.reassembly_buffers + extra
            ),
            format!("network.params.buffers={}", p.buffers + extra),
        ]
    );
    assert!(sens.iter().any(|c| c.2 == DEC_1973_MESSAGES_PER_SECOND));
}
