//! RFC 6298, "Computing TCP's Retransmission Timer" (Paxson, Allman, Chu, Sargent, 2011).
//!
//! - §2.1: before any sample, RTO = 1 s (`init`).
//! - §2.2: first sample R: SRTT = R, RTTVAR = R/2, RTO = SRTT + max(G, K·RTTVAR).
//! - §2.3: later R': RTTVAR = (1 − β)·RTTVAR + β·|SRTT − R'| (with the old SRTT), then
//!   SRTT = (1 − α)·SRTT + α·R'; α = 1/8, β = 1/4, K = 4.
//! - §2.4: an RTO below 1 s is rounded up to 1 s (`min`); §2.5: a maximum of at least 60 s
//!   may be placed on it (`max` = 60 s).
//! - §3: Karn's algorithm — no samples from retransmitted segments (`karn`).
//! - §5.5: on expiry, RTO = RTO·2 ("back off the timer"), bounded by `max`; §5.7 and §3: the
//!   backed-off value is kept until a valid sample recomputes it (`backoff`).
//!
//! The clock granularity G is not given a value by the RFC; the default here is 1 ms, a modern
//! millisecond clock.

use super::params::{self, Factor, Gain, duration, flag};
use super::{Estimator, SpecError, to_timeout};
use crate::time::Nanos;
use serde::{Deserialize, Serialize};

/// RFC 6298's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rfc6298Params {
    /// Gain of SRTT, α (1/8).
    pub alpha: Gain,
    /// Gain of RTTVAR, β (1/4).
    pub beta: Gain,
    /// Variance multiplier K (4).
    #[serde(rename = "K")]
    pub k: Factor,
    /// Clock granularity G (1 ms, our choice).
    #[serde(rename = "G", with = "duration")]
    pub granularity: Nanos,
    /// RTO before the first sample (1 s, §2.1).
    #[serde(with = "duration")]
    pub init: Nanos,
    /// Floor (1 s, §2.4).
    #[serde(with = "duration")]
    pub min: Nanos,
    /// Ceiling (60 s, §2.5).
    #[serde(with = "duration")]
    pub max: Nanos,
    /// Karn's algorithm (§3).
    #[serde(with = "flag")]
    pub karn: bool,
    /// Exponential backoff (§5.5).
    #[serde(with = "flag")]
    pub backoff: bool,
}

impl Default for Rfc6298Params {
    fn default() -> Self {
        Rfc6298Params {
            alpha: Gain(1.0 / 8.0),
            beta: Gain(1.0 / 4.0),
            k: Factor(4.0),
            granularity: Nanos::from_millis(1),
            init: Nanos::from_secs(1),
            min: Nanos::from_secs(1),
            max: Nanos::from_secs(60),
            karn: true,
            backoff: true,
        }
    }
}

/// RFC 6298 estimator.
#[derive(Debug, Clone, PartialEq)]
pub struct Rfc6298 {
    /// The parameters.
    pub params: Rfc6298Params,
    srtt: Option<f64>,
    rttvar: f64,
    /// The RTO currently in force, seconds (after clamping and any backoff).
    rto: f64,
}

impl Default for Rfc6298 {
    fn default() -> Self {
        Rfc6298::with(Rfc6298Params::default())
    }
}

impl Rfc6298 {
    /// With these parameters and no history.
    pub fn with(params: Rfc6298Params) -> Self {
        Rfc6298 {
            rto: params.init.as_secs_f64(),
            params,
            srtt: None,
            rttvar: 0.0,
        }
    }

    fn recompute(&mut self) {
        if let Some(srtt) = self.srtt {
            let p = &self.params;
            let raw = srtt + (p.k.0 * self.rttvar).max(p.granularity.as_secs_f64());
            self.rto = raw.max(p.min.as_secs_f64()).min(p.max.as_secs_f64());
        }
    }
}

impl Estimator for Rfc6298 {
    fn name(&self) -> &'static str {
        "rfc6298"
    }
    fn keys(&self) -> &'static [&'static str] {
        params::keys::<Rfc6298Params>()
    }
    fn get(&self, key: &str) -> Option<String> {
        params::get(&self.params, key)
    }
    fn set(&mut self, key: &str, value: &str) -> Result<(), SpecError> {
        let (p, key) = params::set("rfc6298", &self.params, key, value)?;
        self.params = p;
        if key == "init" {
            // The RTO in force before the first sample is the initial one.
            self.rto = self.params.init.as_secs_f64();
        }
        Ok(())
    }
    fn rto(&self) -> Nanos {
        to_timeout(self.rto)
    }
    fn on_ack(&mut self, rtt: Nanos, retransmitted: bool) {
        if retransmitted && self.params.karn {
            return;
        }
        let (alpha, beta) = (self.params.alpha.0, self.params.beta.0);
        let r = rtt.as_secs_f64();
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(srtt) => {
                self.rttvar = (1.0 - beta) * self.rttvar + beta * (srtt - r).abs();
                self.srtt = Some((1.0 - alpha) * srtt + alpha * r);
            }
        }
        self.recompute();
    }
    fn on_timeout(&mut self) {
        if self.params.backoff {
            self.rto = (self.rto * 2.0).min(self.params.max.as_secs_f64());
        }
    }
    fn fresh(&self) -> Box<dyn Estimator> {
        Box::new(Rfc6298::with(self.params.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples 2 s, 3 s: SRTT = 2, RTTVAR = 1 → RTO 6 s; RTTVAR = 0.75 + 0.25 = 1,
    /// SRTT = 1.75 + 0.375 = 2.125 → RTO 6.125 s. A 100 ms path is floored at 1 s.
    #[test]
    fn by_hand() {
        let mut e = Rfc6298::default();
        assert_eq!(e.rto(), Nanos::from_secs(1));
        e.on_timeout();
        assert_eq!(e.rto(), Nanos::from_secs(2));
        e.on_ack(Nanos::from_secs(2), false);
        assert_eq!(e.rto(), Nanos::from_secs(6));
        e.on_ack(Nanos::from_secs(3), false);
        assert_eq!(e.rto(), Nanos(6_125_000_000));
        for _ in 0..5 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), Nanos::from_secs(60));
        let mut e = Rfc6298::default();
        e.on_ack(Nanos::from_millis(100), false);
        assert_eq!(e.rto(), Nanos::from_secs(1));
    }
}
