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

use super::{
    Estimator, SpecError, boolean, canonical, duration, factor, fmt_secs, fraction, to_timeout,
};
use crate::time::Nanos;

/// RFC 6298 estimator.
#[derive(Debug, Clone, PartialEq)]
pub struct Rfc6298 {
    /// Gain of SRTT, α (1/8).
    pub alpha: f64,
    /// Gain of RTTVAR, β (1/4).
    pub beta: f64,
    /// Variance multiplier K (4).
    pub k: f64,
    /// Clock granularity G, seconds (1 ms, our choice).
    pub granularity: f64,
    /// RTO before the first sample, seconds (1 s, §2.1).
    pub init: f64,
    /// Floor, seconds (1 s, §2.4).
    pub min: f64,
    /// Ceiling, seconds (60 s, §2.5).
    pub max: f64,
    /// Karn's algorithm (§3).
    pub karn: bool,
    /// Exponential backoff (§5.5).
    pub backoff: bool,
    srtt: Option<f64>,
    rttvar: f64,
    /// The RTO currently in force, seconds (after clamping and any backoff).
    rto: f64,
}

impl Default for Rfc6298 {
    fn default() -> Self {
        Rfc6298 {
            alpha: 1.0 / 8.0,
            beta: 1.0 / 4.0,
            k: 4.0,
            granularity: 0.001,
            init: 1.0,
            min: 1.0,
            max: 60.0,
            karn: true,
            backoff: true,
            srtt: None,
            rttvar: 0.0,
            rto: 1.0,
        }
    }
}

const KEYS: &[&str] = &[
    "alpha", "beta", "K", "G", "init", "min", "max", "karn", "backoff",
];

impl Rfc6298 {
    fn recompute(&mut self) {
        if let Some(srtt) = self.srtt {
            let raw = srtt + (self.k * self.rttvar).max(self.granularity);
            self.rto = raw.max(self.min).min(self.max);
        }
    }
}

impl Estimator for Rfc6298 {
    fn name(&self) -> &'static str {
        "rfc6298"
    }
    fn keys(&self) -> &'static [&'static str] {
        KEYS
    }
    fn get(&self, key: &str) -> Option<String> {
        Some(match canonical("rfc6298", KEYS, key).ok()? {
            "alpha" => self.alpha.to_string(),
            "beta" => self.beta.to_string(),
            "K" => self.k.to_string(),
            "G" => fmt_secs(self.granularity),
            "init" => fmt_secs(self.init),
            "min" => fmt_secs(self.min),
            "max" => fmt_secs(self.max),
            "karn" => self.karn.to_string(),
            "backoff" => self.backoff.to_string(),
            _ => return None,
        })
    }
    fn set(&mut self, key: &str, v: &str) -> Result<(), SpecError> {
        const E: &str = "rfc6298";
        match canonical(E, KEYS, key)? {
            k @ "alpha" => self.alpha = fraction(E, k, v)?,
            k @ "beta" => self.beta = fraction(E, k, v)?,
            k @ "K" => self.k = factor(E, k, v)?,
            k @ "G" => self.granularity = duration(E, k, v)?,
            k @ "init" => {
                self.init = duration(E, k, v)?;
                self.rto = self.init;
            }
            k @ "min" => self.min = duration(E, k, v)?,
            k @ "max" => self.max = duration(E, k, v)?,
            k @ "karn" => self.karn = boolean(E, k, v)?,
            k @ "backoff" => self.backoff = boolean(E, k, v)?,
            _ => unreachable!(),
        }
        Ok(())
    }
    fn rto(&self) -> Nanos {
        to_timeout(self.rto)
    }
    fn on_ack(&mut self, rtt: Nanos, retransmitted: bool) {
        if retransmitted && self.karn {
            return;
        }
        let r = rtt.as_secs_f64();
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(srtt) => {
                self.rttvar = (1.0 - self.beta) * self.rttvar + self.beta * (srtt - r).abs();
                self.srtt = Some((1.0 - self.alpha) * srtt + self.alpha * r);
            }
        }
        self.recompute();
    }
    fn on_timeout(&mut self) {
        if self.backoff {
            self.rto = (self.rto * 2.0).min(self.max);
        }
    }
    fn fresh(&self) -> Box<dyn Estimator> {
        Box::new(Rfc6298 {
            srtt: None,
            rttvar: 0.0,
            rto: self.init,
            ..self.clone()
        })
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
