//! Properties of every estimator over random traces, and of the replay's bookkeeping.

use nmc_rto::Nanos;
use nmc_rto::estimator::{self, NAMES};
use nmc_rto::eval::{Charge, Outcome, RtxCharge, replay};
use nmc_rto::trace::{Probe, Trace};
use proptest::prelude::*;

/// Delays from 0 to 40 s (beyond the 30 s loss limit), with runs of near-constant values and
/// losses.
fn arb_trace() -> impl Strategy<Value = Trace> {
    proptest::collection::vec(
        prop_oneof![
            6 => (0u64..2_000_000_000).prop_map(Some),
            2 => (0u64..40_000_000_000).prop_map(Some),
            1 => Just(0).prop_map(Some),
            1 => Just(None),
        ],
        0..300,
    )
    .prop_map(|delays| {
        let mut now = 0u64;
        let probes = delays
            .into_iter()
            .map(|d| {
                let p = Probe::new(Nanos(now), d.map(Nanos));
                now += d.unwrap_or(30_000_000_000);
                p
            })
            .collect();
        Trace {
            name: "prop".into(),
            probes,
        }
    })
}

fn arb_charge() -> impl Strategy<Value = Charge> {
    (
        prop_oneof![
            Just(RtxCharge::Delay),
            Just(RtxCharge::Timeout),
            Just(RtxCharge::Excess)
        ],
        1u64..60,
    )
        .prop_map(|(rtx, limit)| Charge {
            loss_limit: Nanos::from_secs(limit),
            rtx,
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: crate::regressions(),
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_estimator_behaves(trace in arb_trace(), charge in arb_charge(), which in 0..NAMES.len()) {
        let est = estimator::parse(NAMES[which]).unwrap();
        let (s, steps) = replay(&trace, est.as_ref(), &charge);
        // Timeouts finite and positive.
        for st in &steps {
            prop_assert!(st.timeout > Nanos::ZERO);
            prop_assert!(st.timeout < Nanos::MAX);
        }
        // Efficiency within [0, 1].
        prop_assert!((0.0..=1.0).contains(&s.efficiency), "eff {}", s.efficiency);
        // Counts add up.
        let good = steps.iter().filter(|x| x.outcome == Outcome::Good).count();
        prop_assert_eq!(good + s.lost + s.rtx, s.packets);
        prop_assert_eq!(s.packets, trace.len());
        prop_assert_eq!(steps.iter().filter(|x| x.outcome == Outcome::Lost).count(), s.lost);
        // Times add up.
        prop_assert_eq!(
            s.total_time,
            s.good_time.saturating_add(s.lost_time).saturating_add(s.rtx_time)
        );
        // Classification matches the RFC's definitions.
        for st in &steps {
            match (st.outcome, st.delay) {
                (Outcome::Lost, d) => prop_assert!(d.is_none_or(|d| d > charge.loss_limit)),
                (Outcome::Rtx, Some(d)) => prop_assert!(st.timeout < d),
                (Outcome::Good, Some(d)) => prop_assert!(d <= st.timeout),
                _ => prop_assert!(false, "delivered outcome without a delay"),
            }
        }
        // Deterministic.
        let (again, _) = replay(&trace, est.as_ref(), &charge);
        prop_assert_eq!(again, s);
    }

    /// Mean and CoV depend only on the trace, not on the estimator.
    #[test]
    fn mean_is_the_traces(trace in arb_trace()) {
        let a = replay(&trace, estimator::parse("mills").unwrap().as_ref(), &Charge::default()).0;
        let b = replay(&trace, estimator::parse("quic").unwrap().as_ref(), &Charge::default()).0;
        prop_assert_eq!(a.mean, b.mean);
        prop_assert_eq!(a.cov, b.cov);
        prop_assert_eq!(a.lost, b.lost);
    }

    /// Random parameter overrides still give finite, positive timeouts.
    #[test]
    fn overridden_parameters(trace in arb_trace(), f1 in 0.0f64..=1.0, f2 in 0.0f64..=1.0, g in 0.1f64..8.0) {
        let spec = format!("mills:F1={f1},F2={f2},G={g},backoff=true,karn=true");
        let est = estimator::parse(&spec).unwrap();
        let (s, steps) = replay(&trace, est.as_ref(), &Charge::default());
        prop_assert!(steps.iter().all(|st| st.timeout > Nanos::ZERO));
        prop_assert!((0.0..=1.0).contains(&s.efficiency));
    }
}
