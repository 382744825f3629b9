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

use super::{
    Estimator, SpecError, backoff_factor, boolean, canonical, duration, factor, fmt_secs, fraction,
    to_timeout,
};
use crate::time::Nanos;

/// Jacobson/Karels 1988 estimator.
#[derive(Debug, Clone, PartialEq)]
pub struct Jacobson {
    /// Gain of the mean, g (1/8).
    pub g: f64,
    /// Gain of the mean deviation, h (1/4).
    pub h: f64,
    /// Deviation multiplier in `rto = A + k·D` (4).
    pub k: f64,
    /// Timeout before the first sample, seconds.
    pub init: f64,
    /// Floor of the timeout, seconds.
    pub min: f64,
    /// Ceiling of the timeout (also of the backed-off value), seconds.
    pub max: f64,
    /// Ignore samples of retransmitted segments.
    pub karn: bool,
    /// Double the timeout per expiry until a valid sample arrives.
    pub backoff: bool,
    a: Option<f64>,
    d: f64,
    backoffs: u32,
}

impl Default for Jacobson {
    fn default() -> Self {
        Jacobson {
            g: 1.0 / 8.0,
            h: 1.0 / 4.0,
            k: 4.0,
            init: 3.0,
            min: 0.0,
            max: 64.0,
            karn: true,
            backoff: true,
            a: None,
            d: 0.0,
            backoffs: 0,
        }
    }
}

const KEYS: &[&str] = &["g", "h", "k", "init", "min", "max", "karn", "backoff"];

impl Estimator for Jacobson {
    fn name(&self) -> &'static str {
        "jacobson"
    }
    fn keys(&self) -> &'static [&'static str] {
        KEYS
    }
    fn get(&self, key: &str) -> Option<String> {
        Some(match canonical("jacobson", KEYS, key).ok()? {
            "g" => self.g.to_string(),
            "h" => self.h.to_string(),
            "k" => self.k.to_string(),
            "init" => fmt_secs(self.init),
            "min" => fmt_secs(self.min),
            "max" => fmt_secs(self.max),
            "karn" => self.karn.to_string(),
            "backoff" => self.backoff.to_string(),
            _ => return None,
        })
    }
    fn set(&mut self, key: &str, v: &str) -> Result<(), SpecError> {
        const E: &str = "jacobson";
        match canonical(E, KEYS, key)? {
            k @ "g" => self.g = fraction(E, k, v)?,
            k @ "h" => self.h = fraction(E, k, v)?,
            k @ "k" => self.k = factor(E, k, v)?,
            k @ "init" => self.init = duration(E, k, v)?,
            k @ "min" => self.min = duration(E, k, v)?,
            k @ "max" => self.max = duration(E, k, v)?,
            k @ "karn" => self.karn = boolean(E, k, v)?,
            k @ "backoff" => self.backoff = boolean(E, k, v)?,
            _ => unreachable!(),
        }
        Ok(())
    }
    fn rto(&self) -> Nanos {
        let base = match self.a {
            Some(a) => a + self.k * self.d,
            None => self.init,
        };
        let mut t = base.max(self.min).min(self.max);
        if self.backoff {
            t = (t * backoff_factor(self.backoffs)).min(self.max);
        }
        to_timeout(t)
    }
    fn on_ack(&mut self, rtt: Nanos, retransmitted: bool) {
        if retransmitted && self.karn {
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
                self.a = Some(a + self.g * err);
                self.d += self.h * (err.abs() - self.d);
            }
        }
        self.backoffs = 0;
    }
    fn on_timeout(&mut self) {
        self.backoffs = self.backoffs.saturating_add(1);
    }
    fn fresh(&self) -> Box<dyn Estimator> {
        Box::new(Jacobson {
            a: None,
            d: 0.0,
            backoffs: 0,
            ..self.clone()
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
