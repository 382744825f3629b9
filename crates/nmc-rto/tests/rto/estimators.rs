//! Every estimator on one short hand-computed trace, through the replay, read like RFC 889's
//! table; plus the plots and the synthetic generator's determinism.

use nmc_rto::Nanos;
use nmc_rto::estimator;
use nmc_rto::eval::{Charge, Outcome, replay};
use nmc_rto::plot;
use nmc_rto::synth::PathModel;
use nmc_rto::trace::{Probe, Trace};

/// 100 ms, 100 ms, 400 ms, lost, 100 ms.
fn hand_trace() -> Trace {
    let d = [Some(100), Some(100), Some(400), None, Some(100)];
    let mut now = 0;
    Trace {
        name: "HAND".into(),
        probes: d
            .iter()
            .map(|d: &Option<u64>| {
                let p = Probe::new(Nanos::from_millis(now), d.map(Nanos::from_millis));
                now += d.unwrap_or(30_000);
                p
            })
            .collect(),
    }
}

fn timeouts(spec: &str) -> (Vec<f64>, Vec<Outcome>) {
    let est = estimator::parse(spec).unwrap();
    let (_, steps) = replay(&hand_trace(), est.as_ref(), &Charge::default());
    (
        steps.iter().map(|s| s.timeout.as_millis_f64()).collect(),
        steps.iter().map(|s| s.outcome).collect(),
    )
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
}

use Outcome::{Good as G, Lost as L, Rtx as R};

/// RSRE F = 7/8, G = 2: E = 100, 100, then 400 → 137.5 (RTX: 200 < 400); lost: no change.
/// Timeouts 3000 (init), 200, 200, 275, 275.
#[test]
fn rsre() {
    let (t, o) = timeouts("rsre");
    assert!(close(&t, &[3000.0, 200.0, 200.0, 275.0, 275.0]), "{t:?}");
    assert_eq!(o, [G, G, R, L, G]);
}

/// Mills: 400 ≥ E so F2 = 3/4: E = 75 + 100 = 175 → timeouts 3000, 200, 200, 350, 350.
#[test]
fn mills() {
    let (t, o) = timeouts("mills");
    assert!(close(&t, &[3000.0, 200.0, 200.0, 350.0, 350.0]), "{t:?}");
    assert_eq!(o, [G, G, R, L, G]);
}

/// Jacobson/Karels: A = 100, D = 50 → 300; Err = 0: D = 37.5 → 250; 400 > 250: RTX, backoff
/// → Karn drops the sample; the lost volley sees 500 and backs off again → 1000.
#[test]
fn jacobson() {
    let (t, o) = timeouts("jacobson");
    assert!(close(&t, &[3000.0, 300.0, 250.0, 500.0, 1000.0]), "{t:?}");
    assert_eq!(o, [G, G, R, L, G]);
}

/// RFC 6298: 1 s floor throughout: 1000, 1000, 1000 (400 < 1000: good; SRTT = 137.5 ...), 1000,
/// then the loss doubles it to 2000.
#[test]
fn rfc6298() {
    let (t, o) = timeouts("rfc6298");
    assert!(
        close(&t, &[1000.0, 1000.0, 1000.0, 1000.0, 2000.0]),
        "{t:?}"
    );
    assert_eq!(o, [G, G, G, L, G]);
}

/// Linux: init 1000; first 100: srtt 100, rttvar 200 → 300; second 100: err 0, mdev 37.5, 4·mdev
/// = 150 < mdev_max 200, rttvar stays 200 → 300; 400 > 300 is an RTX (Karn: no sample), backoff
/// → 600; the loss backs off again → 1200.
#[test]
fn linux() {
    let (t, o) = timeouts("linux");
    assert!(close(&t, &[1000.0, 300.0, 300.0, 600.0, 1200.0]), "{t:?}");
    assert_eq!(o, [G, G, R, L, G]);
}

/// QUIC: 1024 (initial); 100 → 100 + 200 + 25 = 325; 100 → rttvar 37.5 → 100 + 150 + 25 = 275;
/// 400 > 275 is an RTX, but the sample counts: rttvar = 28.125 + 75 = 103.125, srtt = 137.5 →
/// 137.5 + 412.5 + 25 = 575; the loss doubles it to 1150.
#[test]
fn quic() {
    let (t, o) = timeouts("quic");
    assert!(close(&t, &[1024.0, 325.0, 275.0, 575.0, 1150.0]), "{t:?}");
    assert_eq!(o, [G, G, R, L, G]);
}

#[test]
fn fuzzball_plot_has_text_and_marks() {
    let est = estimator::parse("mills").unwrap();
    let trace = PathModel {
        loss: 0.02,
        ..PathModel::default()
    }
    .generate(5)
    .unwrap();
    let (s, steps) = replay(&trace, est.as_ref(), &Charge::default());
    let svg = plot::fuzzball_svg(&s, &steps).unwrap();
    assert!(svg.starts_with("<svg"));
    assert!(
        svg.contains("<text"),
        "text must render without system fonts"
    );
    assert!(svg.contains("computed timeout"));
    assert!(svg.contains("round-trip delay (ms)"));
    assert!(svg.contains("<circle"));
    assert!(svg.contains("<polyline") || svg.contains("<path"));
}

#[test]
fn synthetic_runs_are_reproducible() {
    let m = PathModel::default();
    let a = nmc_rto::trace::csv::to_string(&m.generate(11).unwrap());
    let b = nmc_rto::trace::csv::to_string(&m.generate(11).unwrap());
    assert_eq!(a, b);
}
