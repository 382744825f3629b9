//! The first-order estimators of 1983: RSRE (RFC 793) and Mills' two-gain variant (RFC 889).
//!
//! RFC 793 §3.7, "Retransmission Timeout":
//! `SRTT = ALPHA·SRTT + (1 − ALPHA)·RTT`, `RTO = min[UBOUND, max[LBOUND, BETA·SRTT]]`,
//! ALPHA 0.8–0.9, BETA 1.3–2.0. RFC 889 §3.3 names them F and G ("E = F·E + (1 − F)·R",
//! retransmit after G·E), quotes F 0.8–0.9 and G 1.5–2.0, and takes F = 7/8, G = 2 as "the values
//! now used in typical implementations".
//!
//! Mills (RFC 889 §3.3): "using two values of F, one (F1) when R < E ... and the other (F2) when
//! R >= E, with F1 > F2", recommended F1 = 15/16, F2 = 3/4, G = 2 — a peak detector: fast charge,
//! slow discharge.
//!
//! Left open by the sources, chosen here (each a parameter):
//! - the first sample seeds the estimate (`E = R`), as later TCPs do; before any sample the
//!   timeout is `init` (default 3 s, the initial RTO of RFC 1122 §4.2.3.1 — RFC 793 gives none);
//! - no LBOUND/UBOUND by default: RFC 889 reports none and its calibration paths (11 ms mean)
//!   would be meaningless under RFC 793's example LBOUND of 1 s; set `lbound=1s,ubound=60s` for
//!   the RFC 793 example;
//! - no backoff and no Karn rule by default: the Fuzzball's ICMP echoes carried timestamps, so
//!   every delay was unambiguous, and 1983 TCPs did not back off (`backoff`, `karn` switch them on).

use super::{
    Estimator, SpecError, backoff_factor, boolean, canonical, duration, factor, fmt_opt_secs,
    fmt_secs, fraction, opt_duration, to_timeout,
};
use crate::time::Nanos;

/// The shared first-order filter: `E ← F·E + (1 − F)·R` with `F = f_down` when `R < E`, else
/// `f_up`; timeout `G·E`, clamped to the optional bounds, doubled per backoff step.
#[derive(Debug, Clone, PartialEq)]
struct FirstOrder {
    f_down: f64,
    f_up: f64,
    g: f64,
    lbound: Option<f64>,
    ubound: Option<f64>,
    init: f64,
    karn: bool,
    backoff: bool,
    /// The smoothed estimate E in seconds; `None` before the first sample.
    e: Option<f64>,
    /// Consecutive timeouts since the last accepted sample.
    backoffs: u32,
}

impl FirstOrder {
    fn new(f_down: f64, f_up: f64, g: f64) -> Self {
        FirstOrder {
            f_down,
            f_up,
            g,
            lbound: None,
            ubound: None,
            init: 3.0,
            karn: false,
            backoff: false,
            e: None,
            backoffs: 0,
        }
    }

    fn rto(&self) -> Nanos {
        let mut t = match self.e {
            Some(e) => self.g * e,
            None => self.init,
        };
        if let Some(lb) = self.lbound {
            t = t.max(lb);
        }
        if let Some(ub) = self.ubound {
            t = t.min(ub);
        }
        if self.backoff {
            t *= backoff_factor(self.backoffs);
            if let Some(ub) = self.ubound {
                t = t.min(ub);
            }
        }
        to_timeout(t)
    }

    fn on_ack(&mut self, rtt: Nanos, retransmitted: bool) {
        if retransmitted && self.karn {
            return;
        }
        let r = rtt.as_secs_f64();
        self.e = Some(match self.e {
            None => r,
            Some(e) => {
                let f = if r < e { self.f_down } else { self.f_up };
                f * e + (1.0 - f) * r
            }
        });
        self.backoffs = 0;
    }

    fn on_timeout(&mut self) {
        self.backoffs = self.backoffs.saturating_add(1);
    }

    fn reset(&self) -> Self {
        FirstOrder {
            e: None,
            backoffs: 0,
            ..self.clone()
        }
    }

    /// Common keys (besides the gains).
    fn get_common(&self, key: &str) -> Option<String> {
        Some(match key {
            "G" => self.g.to_string(),
            "lbound" => fmt_opt_secs(self.lbound),
            "ubound" => fmt_opt_secs(self.ubound),
            "init" => fmt_secs(self.init),
            "karn" => self.karn.to_string(),
            "backoff" => self.backoff.to_string(),
            _ => return None,
        })
    }

    fn set_common(
        &mut self,
        est: &'static str,
        key: &'static str,
        v: &str,
    ) -> Result<(), SpecError> {
        match key {
            "G" => self.g = factor(est, key, v)?,
            "lbound" => self.lbound = opt_duration(est, key, v)?,
            "ubound" => self.ubound = opt_duration(est, key, v)?,
            "init" => self.init = duration(est, key, v)?,
            "karn" => self.karn = boolean(est, key, v)?,
            "backoff" => self.backoff = boolean(est, key, v)?,
            _ => unreachable!("key {key} listed but not handled"),
        }
        Ok(())
    }
}

/// RSRE / RFC 793 estimator: one gain F, threshold G.
///
/// Defaults F = 7/8, G = 2: RFC 889 §3.3, "the values now used in typical implementations".
#[derive(Debug, Clone, PartialEq)]
pub struct Rsre(FirstOrder);

impl Default for Rsre {
    fn default() -> Self {
        Rsre(FirstOrder::new(7.0 / 8.0, 7.0 / 8.0, 2.0))
    }
}

impl Rsre {
    /// With explicit F and G and the other parameters at their defaults.
    pub fn new(f: f64, g: f64) -> Self {
        Rsre(FirstOrder::new(f, f, g))
    }
    /// The current smoothed estimate E, if any sample has been taken.
    pub fn estimate(&self) -> Option<Nanos> {
        self.0.e.map(Nanos::from_secs_f64)
    }
}

const RSRE_KEYS: &[&str] = &["F", "G", "lbound", "ubound", "init", "karn", "backoff"];

impl Estimator for Rsre {
    fn name(&self) -> &'static str {
        "rsre"
    }
    fn keys(&self) -> &'static [&'static str] {
        RSRE_KEYS
    }
    fn get(&self, key: &str) -> Option<String> {
        let key = canonical("rsre", RSRE_KEYS, key).ok()?;
        match key {
            "F" => Some(self.0.f_down.to_string()),
            k => self.0.get_common(k),
        }
    }
    fn set(&mut self, key: &str, value: &str) -> Result<(), SpecError> {
        let key = canonical("rsre", RSRE_KEYS, key)?;
        match key {
            "F" => {
                let f = fraction("rsre", key, value)?;
                self.0.f_down = f;
                self.0.f_up = f;
                Ok(())
            }
            k => self.0.set_common("rsre", k, value),
        }
    }
    fn rto(&self) -> Nanos {
        self.0.rto()
    }
    fn on_ack(&mut self, rtt: Nanos, retransmitted: bool) {
        self.0.on_ack(rtt, retransmitted);
    }
    fn on_timeout(&mut self) {
        self.0.on_timeout();
    }
    fn fresh(&self) -> Box<dyn Estimator> {
        Box::new(Rsre(self.0.reset()))
    }
}

/// Mills' estimator (RFC 889 §3.3): F1 when R < E, F2 when R ≥ E, threshold G.
///
/// Defaults F1 = 15/16, F2 = 3/4, G = 2: "gave the best all-around performance" (RFC 889 §3.3).
#[derive(Debug, Clone, PartialEq)]
pub struct Mills(FirstOrder);

impl Default for Mills {
    fn default() -> Self {
        Mills(FirstOrder::new(15.0 / 16.0, 3.0 / 4.0, 2.0))
    }
}

impl Mills {
    /// With explicit F1, F2 and G and the other parameters at their defaults.
    pub fn new(f1: f64, f2: f64, g: f64) -> Self {
        Mills(FirstOrder::new(f1, f2, g))
    }
    /// The current smoothed estimate E, if any sample has been taken.
    pub fn estimate(&self) -> Option<Nanos> {
        self.0.e.map(Nanos::from_secs_f64)
    }
}

const MILLS_KEYS: &[&str] = &[
    "F1", "F2", "G", "lbound", "ubound", "init", "karn", "backoff",
];

impl Estimator for Mills {
    fn name(&self) -> &'static str {
        "mills"
    }
    fn keys(&self) -> &'static [&'static str] {
        MILLS_KEYS
    }
    fn get(&self, key: &str) -> Option<String> {
        let key = canonical("mills", MILLS_KEYS, key).ok()?;
        match key {
            "F1" => Some(self.0.f_down.to_string()),
            "F2" => Some(self.0.f_up.to_string()),
            k => self.0.get_common(k),
        }
    }
    fn set(&mut self, key: &str, value: &str) -> Result<(), SpecError> {
        let key = canonical("mills", MILLS_KEYS, key)?;
        match key {
            "F1" => self.0.f_down = fraction("mills", key, value)?,
            "F2" => self.0.f_up = fraction("mills", key, value)?,
            k => return self.0.set_common("mills", k, value),
        }
        Ok(())
    }
    fn rto(&self) -> Nanos {
        self.0.rto()
    }
    fn on_ack(&mut self, rtt: Nanos, retransmitted: bool) {
        self.0.on_ack(rtt, retransmitted);
    }
    fn on_timeout(&mut self) {
        self.0.on_timeout();
    }
    fn fresh(&self) -> Box<dyn Estimator> {
        Box::new(Mills(self.0.reset()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Nanos {
        Nanos::from_millis(x)
    }

    /// Hand computation, RSRE F = 7/8, G = 2, samples 100, 200, 100 ms:
    /// E = 100 → 112.5 → 110.9375 ms; timeouts 3 s (init), 200, 225, 221.875 ms.
    #[test]
    fn rsre_by_hand() {
        let mut e = Rsre::default();
        assert_eq!(e.rto(), Nanos::from_secs(3));
        e.on_ack(ms(100), false);
        assert_eq!(e.rto(), ms(200));
        e.on_ack(ms(200), false);
        assert_eq!(e.rto(), ms(225));
        e.on_ack(ms(100), false);
        assert_eq!(e.rto(), Nanos(221_875_000));
    }

    /// Hand computation, Mills F1 = 15/16, F2 = 3/4, G = 2, samples 100, 200, 100 ms:
    /// E = 100; R ≥ E so F2: 0.75·100 + 0.25·200 = 125; R < E so F1: 0.9375·125 + 0.0625·100 =
    /// 123.4375; timeouts 200, 250, 246.875 ms.
    #[test]
    fn mills_by_hand() {
        let mut e = Mills::default();
        e.on_ack(ms(100), false);
        assert_eq!(e.rto(), ms(200));
        e.on_ack(ms(200), false);
        assert_eq!(e.rto(), ms(250));
        e.on_ack(ms(100), false);
        assert_eq!(e.rto(), Nanos(246_875_000));
        assert_eq!(e.estimate(), Some(Nanos(123_437_500)));
    }

    #[test]
    fn bounds_backoff_and_karn() {
        let mut e = Rsre::default();
        e.set("lbound", "1s").unwrap();
        e.set("ubound", "60s").unwrap();
        e.on_ack(ms(100), false);
        assert_eq!(e.rto(), Nanos::from_secs(1));
        e.set("backoff", "true").unwrap();
        e.on_timeout();
        assert_eq!(e.rto(), Nanos::from_secs(2));
        e.set("karn", "true").unwrap();
        e.on_ack(ms(5000), true); // ambiguous: ignored, backoff kept
        assert_eq!(e.rto(), Nanos::from_secs(2));
        e.on_ack(ms(100), false);
        assert_eq!(e.rto(), Nanos::from_secs(1));
    }
}
