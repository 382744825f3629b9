//! Stateful hops in a run: determinism, bad parameters, the gateway's drops, SATNET's floor,
//! and a stepped (held) hop driven through the event loop.

use nmc_internet::{Dir, HopModel, InternetScenario, Offer, Path, metrics, run, run_with};
use nmc_sim::{SimDuration, SimTime};

const SAT: &str = r#"
name = "sat"
seed = 11
duration = "60min"
model = "internet-1983"
[network.host]
per_packet = "4ms"
per_octet = "7us"
[[network.hops]]
kind = "gateway"
name = "gw"
per_packet = "4ms"
per_octet = "7us"
rate = "9600bit/s"
frame_overhead = "168bit"
queue = 8
cross = { kind = "on-off", mean_gap = "200ms", length = "256B", on = "3s", off = "1min" }
[[network.hops]]
kind = "satnet"
name = "sat"
rate = "64kbit/s"
frame_overhead = "192bit"
hop = "270ms"
frame = "100ms"
per_packet = "1ms"
reservation_miss = 0.05
loss = 0.03
cross = { kind = "poisson", mean_gap = "100ms", length = "128B" }
[[traffic]]
volleys = 200
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

fn bytes(s: &InternetScenario, seed: u64) -> String {
    let out = run(s, seed).unwrap();
    let mut text = format!("{:?}", out.records);
    text.push_str(&format!("{:?}", metrics(s, &out)));
    text
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let s = load(SAT, &[]).unwrap();
    assert_eq!(bytes(&s, 11), bytes(&s, 11));
    assert_ne!(bytes(&s, 11), bytes(&s, 12));
}

/// Every answered volley took at least the idle round trip (SATNET's floor: two satellite hops
/// each way), and the channel's loss and the gateway's bursts show in the counters.
#[test]
fn satnet_round_trips_never_beat_the_floor() {
    let s = load(SAT, &[]).unwrap();
    let path = Path::build(&s).unwrap();
    let out = run(&s, 11).unwrap();
    let floor_40 = path.idle_round_trip(40);
    assert!(floor_40 >= SimDuration::from_millis(4 * 270));
    let mut answered = 0;
    for r in &out.records {
        if let Some(rtt) = r.true_rtt_ns {
            answered += 1;
            let floor = path.idle_round_trip(r.length as u64).as_nanos();
            assert!(rtt >= floor, "volley {}: {rtt} < {floor}", r.seq);
        }
    }
    assert!(answered > 150, "{answered}");
    let m = metrics(&s, &out);
    assert!(m.volleys_lost > 0, "{m:?}");
    assert!(m.hop(1, "dropped") > Some(0.0), "{m:?}");
    assert!(m.hop(0, "cross_offered") > Some(0.0), "{m:?}");
}

/// A gateway whose buffer holds one datagram and whose other traffic never stops drops
/// volleys, and the probe counts them lost after its timeout.
#[test]
fn a_full_gateway_drops_volleys() {
    let s = load(
        SAT,
        &[
            "network.hops.0.queue=1",
            "network.hops.0.cross={ kind = \"poisson\", mean_gap = \"50ms\", length = \"256B\" }",
            "network.hops.1.loss=0.0",
            "traffic.0.timeout=\"5s\"",
        ],
    )
    .unwrap();
    let out = run(&s, 11).unwrap();
    let m = metrics(&s, &out);
    assert!(m.hop(0, "dropped") > Some(20.0), "{m:?}");
    assert!(m.hop(0, "cross_dropped") > Some(0.0), "{m:?}");
    assert_eq!(Some(m.volleys_lost as f64), m.hop(0, "dropped"), "{m:?}");
}

#[test]
fn bad_hop_parameters_are_one_line() {
    let cases: &[(&[&str], &str)] = &[
        (&["network.hops.0.queue=0"], "queue"),
        (&["network.hops.0.cross.mean_gap=\"0ms\""], "mean_gap"),
        (&["network.hops.0.cross.length=\"3bit\""], "whole octets"),
        (&["network.hops.0.cross.on=\"0s\""], "cross.on"),
        (&["network.hops.1.loss=1.5"], "loss"),
        (
            &["network.hops.1.reservation_miss=-0.1"],
            "reservation_miss",
        ),
        (&["network.hops.1.frame=\"0ms\""], "frame"),
        (&["network.hops.1.hop=\"2h\""], "hop"),
    ];
    for (sets, want) in cases {
        let s = load(SAT, sets).unwrap();
        let e = run(&s, 1).err().expect("an error").to_string();
        assert!(e.contains(want), "{sets:?}: {e}");
        assert!(e.contains("network.hops."), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
    for sets in [
        &["network.hops.0.cross.kind=\"burst\""][..],
        &["network.hops.1.channel=\"64kbit/s\""],
        &["network.hops.1.loss=\"x\""],
        &["network.hops.0.rate=\"0bit/s\""],
    ] {
        let e = load(SAT, sets).unwrap_err();
        assert!(!e.contains('\n'), "{e}");
    }
}

/// A stand-in for a stepped subnet: holds every datagram and lets it out `delay` later, when
/// stepped.
struct Stepped {
    delay: SimDuration,
    held: Vec<(u64, SimTime)>,
    out: Vec<(u64, SimTime)>,
}

impl HopModel for Stepped {
    fn offer(&mut self, now: SimTime, id: u64, _len: u64, _dir: Dir) -> Offer {
        self.held.push((id, now + self.delay));
        Offer::Held
    }
    fn poll_at(&self) -> Option<SimTime> {
        self.held.iter().map(|h| h.1).min()
    }
    fn advance(&mut self, until: SimTime) {
        let (done, wait): (Vec<_>, Vec<_>) = self.held.iter().partition(|h| h.1 <= until);
        self.out.extend(done);
        self.held = wait;
    }
    fn poll_delivered(&mut self) -> Option<(u64, SimTime)> {
        self.out.pop()
    }
    fn floor(&self, _len: u64) -> SimDuration {
        self.delay
    }
}

/// The held-then-delivered path through the event loop: a gateway replaced by a stepped model
/// of fixed delay gives round trips of exactly the remaining stages plus twice that delay.
#[test]
fn a_stepped_hop_delivers_through_the_event_loop() {
    let s = load(SAT, &["network.hops.1.loss=0.0"]).unwrap();
    let path = Path::build(&s).unwrap();
    let mut models = path.models(11);
    let delay = SimDuration::from_millis(123);
    models[0] = Box::new(Stepped {
        delay,
        held: vec![],
        out: vec![],
    });
    let out = run_with(&s, 11, &path, models).unwrap();
    let answered = out.records.iter().filter(|r| r.rtt_ns.is_some()).count();
    assert_eq!(answered, 200);
    let with = run(&s, 11).unwrap();
    // Replacing a queueing gateway by a fixed delay changes the round trips, deterministically.
    assert_ne!(format!("{:?}", out.records), format!("{:?}", with.records));
}
