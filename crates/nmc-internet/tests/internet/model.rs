//! The path model against its arithmetic, determinism, and bad input.

use nmc_internet::{InternetScenario, Path, fit_host_pass, fits, metrics, run};

const ONE_LINE: &str = r#"
name = "one-line"
seed = 7
duration = "10min"
model = "internet-1983"
[network.host]
per_packet = "4ms"
per_octet = "7us"
[[network.hops]]
kind = "line"
name = "a-b"
rate = "9600bit/s"
frame_overhead = "112bit"
propagation = "3.5ms"
[[traffic]]
volleys = 64
lengths = "0..256"
floor = "40B"
gap = "0ms"
timeout = "30s"
clock = "1ns"
"#;

fn load(text: &str, sets: &[&str]) -> Result<InternetScenario, String> {
    let sets: Vec<_> = sets
        .iter()
        .map(|s| {
            s.parse()
                .map_err(|e: nmc_scenario::ScenarioError| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    nmc_scenario::load("test.toml", text, &sets).map_err(|e| e.to_string())
}

/// One frame on one line: every volley's round trip is exactly 4 host passes plus 2 crossings of
/// ceil((8·L + 112) · 1e9 / 9600) ns + 3.5 ms, read on a 1 ns clock.
#[test]
fn single_line_round_trip_is_the_arithmetic() {
    let s = load(ONE_LINE, &[]).unwrap();
    let out = run(&s, 7).unwrap();
    assert_eq!(out.records.len(), 64);
    for r in &out.records {
        let l = r.length as u64;
        let host = 4_000_000 + 7_000 * l;
        let tx = ((8 * l + 112) * 1_000_000_000).div_ceil(9600);
        let want = 4 * host + 2 * (tx + 3_500_000);
        assert_eq!(r.rtt_ns, Some(want), "length {l}");
        assert_eq!(r.true_rtt_ns, Some(want));
        assert_eq!(r.one_way_ns, Some(want / 2));
    }
    let path = Path::build(&s).unwrap();
    assert_eq!(path.stages.len(), 6);
    assert_eq!(
        path.idle_round_trip(40).as_nanos(),
        4 * (4_000_000 + 280_000) + 2 * (45_000_000 + 3_500_000)
    );
    // The fitted rate: slope = 2·7 µs + 8/9600 s per octet one way.
    let f = fits(&out, None).one_line.unwrap();
    let want_rate = 8e9 / (14_000.0 + 8e9 / 9600.0);
    assert!((f.rate_bps.unwrap() / want_rate - 1.0).abs() < 1e-6);
}

/// Start-stop characters and Ethernet padding enter the frame as the spec says.
#[test]
fn octet_bits_and_min_payload() {
    let s = load(
        ONE_LINE,
        &[
            "network.hops.0.octet_bits=10",
            "network.hops.0.min_payload=\"46B\"",
            "network.host.per_packet=\"0ms\"",
            "network.host.per_octet=\"0us\"",
            "network.hops.0.propagation=\"0ms\"",
        ],
    )
    .unwrap();
    let path = Path::build(&s).unwrap();
    let tx = |bits: u64| (bits * 1_000_000_000).div_ceil(9600);
    assert_eq!(path.idle_round_trip(40).as_nanos(), 2 * tx(46 * 10 + 112));
    assert_eq!(path.idle_round_trip(200).as_nanos(), 2 * tx(200 * 10 + 112));
}

#[test]
fn same_seed_same_bytes_other_seed_other_lengths() {
    let s = load(ONE_LINE, &["traffic.0.clock=\"1ms\""]).unwrap();
    let a = run(&s, 3).unwrap();
    let b = run(&s, 3).unwrap();
    assert_eq!(a.records, b.records);
    assert_eq!(
        format!("{:?}", metrics(&s, &a)),
        format!("{:?}", metrics(&s, &b))
    );
    let c = run(&s, 4).unwrap();
    assert_ne!(a.records, c.records);
}

#[test]
fn shipped_scenarios_load_and_answer_every_volley() {
    for name in [
        "dcn5", "dcn8", "imp17", "ford1", "umd1", "dcn6", "facc", "foe",
    ] {
        let path = format!(
            "{}/../../scenarios/rfc889/{name}.toml",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let s: InternetScenario = load(&text, &[]).unwrap();
        let out = run(&s, s.seed.unwrap()).unwrap();
        assert_eq!(
            out.records.iter().filter(|r| r.rtt_ns.is_some()).count(),
            512,
            "{name}"
        );
    }
}

#[test]
fn bad_input_is_one_line() {
    let cases: &[(&[&str], &str)] = &[
        (&["network.hops=[]"], "at least one hop"),
        (&["network.hops.0.octet_bits=3"], "octet_bits"),
        (&["traffic.0.lengths=\"300..200\""], "lengths"),
        (&["traffic.0.floor=\"3bit\""], "whole octets"),
        (&["traffic.0.clock=\"0ms\""], "clock"),
    ];
    for (sets, want) in cases {
        let s = load(ONE_LINE, sets).unwrap();
        let e = run(&s, 1).err().expect("an error").to_string();
        assert!(e.contains(want), "{sets:?}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
    // Unknown keys and missing units fail at load, in one line.
    for sets in [
        &["network.hops.0.speed=\"9600bit/s\""][..],
        &["network.hops.0.rate=9600"],
        &["network.hops.0.rate=\"0bit/s\""],
    ] {
        let e = load(ONE_LINE, sets).unwrap_err();
        assert!(!e.contains('\n'), "{e}");
    }
}

/// The fit inverts the path's arithmetic: a path whose hosts cost 22.1 ms + 3 µs per octet
/// gives a delay at 40 octets and a slope from which the fit returns those costs; a path whose
/// other parts already exceed the published delay is refused in one line, and so is a relay.
#[test]
fn a_host_pass_fit_recovers_the_costs_that_made_the_figures() {
    let s = load(
        ONE_LINE,
        &[
            "network.host.per_packet=\"22.1ms\"",
            "network.host.per_octet=\"3us\"",
        ],
    )
    .unwrap();
    let p = Path::build(&s).unwrap();
    let one_way = |len: u64| p.idle_round_trip(len).as_nanos() as f64 / 2.0;
    let d40_ms = one_way(40) / 1e6;
    let rate = 8e9 / ((one_way(256) - one_way(40)) / 216.0);
    let fit = fit_host_pass(&s, d40_ms, rate).unwrap();
    assert_eq!(fit.per_packet.as_nanos(), 22_100_000);
    assert_eq!(fit.per_octet.as_nanos(), 3_000);
    let e = fit_host_pass(&s, 1.0, rate).unwrap_err().to_string();
    assert!(e.contains("negative cost") && !e.contains('\n'), "{e}");
    let relay = load(
        ONE_LINE,
        &["network.hops=[{ kind = \"relay\", name = \"r\", per_packet = \"1ms\" }, { kind = \"line\", name = \"a-b\", rate = \"9600bit/s\", frame_overhead = \"112bit\" }]"],
    )
    .unwrap();
    let e = fit_host_pass(&relay, d40_ms, rate).unwrap_err().to_string();
    assert!(e.contains("only lines") && e.contains("relay"), "{e}");
}
