//! Jacobson & Karels, "Congestion Avoidance and Control", SIGCOMM '88, Appendix A.
//!
//! Mean and mean deviation, with gains g and h:
//! `Err = M − A; A ← A + g·Err; D ← D + h·(|Err| − D); rto = A + 4·D`, g = 1/8, h = 1/4.
//!
//! Left open by the paper, chosen here (each a parameter):
//! - the first sample sets `A = M`, `D = M/2` (4.3BSD `tcp_xmit_timer`);
//! - before any sample the timeout is `init` = 3 s (RFC 1122 §4.2.3.1);
//! - Karn's rule and exponential backoff on by default (the paper's §2 backs off; BSD times only
//!   segments that were not retransmitted); `max` = 64 s caps the backed-off value (4.3BSD
//!   `TCPTV_REXMTMAX`); `min` = 0 (no floor).

use super::params::{Factor, Gain, duration, flag};
use super::{Estimator, SpecError, backoff_factor, params_via_serde, to_timeout};
use crate::time::Nanos;
use serde::{Deserialize, Serialize};

/// Jacobson/Karels' parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JacobsonParams {
    /// Gain of the mean, g (1/8).
    pub g: Gain,
    /// Gain of the mean deviation, h (1/4).
    pub h: Gain,
    /// Deviation multiplier in `rto = A + k·D` (4).
    pub k: Factor,
    /// Timeout before the first sample (3 s).
    #[serde(with = "duration")]
    pub init: Nanos,
    /// Floor of the timeout (0).
    #[serde(with = "duration")]
    pub min: Nanos,
    /// Ceiling of the timeout, also of the backed-off value (64 s).
    #[serde(with = "duration")]
    pub max: Nanos,
    /// Ignore samples of retransmitted segments (on).
    #[serde(with = "flag")]
    pub karn: bool,
    /// Double the timeout per expiry until a valid sample arrives (on).
    #[serde(with = "flag")]
    pub backoff: bool,
}

impl Default for JacobsonParams {
    fn default() -> Self {
        JacobsonParams {
            g: Gain(1.0 / 8.0),
            h: Gain(1.0 / 4.0),
            k: Factor(4.0),
            init: Nanos::from_secs(3),
            min: Nanos::ZERO,
            max: Nanos::from_secs(64),
            karn: true,
            backoff: true,
        }
    }
}

/// Jacobson/Karels 1988 estimator.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Jacobson {
    /// The parameters.
    pub params: JacobsonParams,
    a: Option<f64>,
    d: f64,
    backoffs: u32,
}

impl Estimator for Jacobson {
    params_via_serde!("jacobson", JacobsonParams);
    fn rto(&self) -> Nanos {
        let p = &self.params;
        let base = match self.a {
            Some(a) => a + p.k.0 * self.d,
            None => p.init.as_secs_f64(),
        };
        let max = p.max.as_secs_f64();
        let mut t = base.max(p.min.as_secs_f64()).min(max);
        if p.backoff {
            t = (t * backoff_factor(self.backoffs)).min(max);
        }
        to_timeout(t)
    }
    fn on_ack(&mut self, rtt: Nanos, retransmitted: bool) {
        if retransmitted && self.params.karn {
            return;
        }
        let m = rtt.as_secs_f64();
        match self.a {
            None => {
                self.a = Some(m);
                self.d = m / 2.0;
            }
            Some(a) => {
                let err = m - a;
                self.a = Some(a + self.params.g.0 * err);
                self.d += self.params.h.0 * (err.abs() - self.d);
            }
        }
        self.backoffs = 0;
    }
    fn on_timeout(&mut self) {
        self.backoffs = self.backoffs.saturating_add(1);
    }
    fn fresh(&self) -> Box<dyn Estimator> {
        Box::new(Jacobson {
            params: self.params.clone(),
            ..Jacobson::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples 100, 200 ms: A = 100, D = 50 → rto 300 ms; Err = 100, A = 112.5,
    /// D = 50 + (100 − 50)/4 = 62.5 → rto 112.5 + 250 = 362.5 ms. Then a timeout doubles it,
    /// a retransmitted sample is ignored (Karn), and a fresh one clears the backoff.
    #[test]
    fn by_hand() {
        let mut e = Jacobson::default();
        assert_eq!(e.rto(), Nanos::from_secs(3));
        e.on_ack(Nanos::from_millis(100), false);
        assert_eq!(e.rto(), Nanos::from_millis(300));
        e.on_ack(Nanos::from_millis(200), false);
        assert_eq!(e.rto(), Nanos(362_500_000));
        e.on_timeout();
        assert_eq!(e.rto(), Nanos(725_000_000));
        e.on_ack(Nanos::from_millis(900), true);
        assert_eq!(e.rto(), Nanos(725_000_000));
    }
}
