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

use super::params::{Factor, Gain, duration, flag, opt_duration};
use super::{Estimator, SpecError, backoff_factor, params_via_serde, to_timeout};
use crate::time::Nanos;
use serde::{Deserialize, Serialize};

/// RSRE's parameters: gain `F`, threshold `G`, and the choices the sources leave open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RsreParams {
    /// The gain F (RFC 793's ALPHA): `E ← F·E + (1 − F)·R` (7/8).
    #[serde(rename = "F")]
    pub f: Gain,
    /// The threshold G (RFC 793's BETA): timeout `G·E` (2).
    #[serde(rename = "G")]
    pub g: Factor,
    /// RFC 793's LBOUND, if any (none).
    #[serde(with = "opt_duration")]
    pub lbound: Option<Nanos>,
    /// RFC 793's UBOUND, if any (none).
    #[serde(with = "opt_duration")]
    pub ubound: Option<Nanos>,
    /// The timeout before the first sample (3 s).
    #[serde(with = "duration")]
    pub init: Nanos,
    /// Karn's rule: no samples from retransmitted segments (off).
    #[serde(with = "flag")]
    pub karn: bool,
    /// Double the timeout per expiry (off).
    #[serde(with = "flag")]
    pub backoff: bool,
}

/// Mills' parameters: `F1` when R < E, `F2` when R ≥ E, and the rest as RSRE's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MillsParams {
    /// The gain when the sample is below the estimate (15/16).
    #[serde(rename = "F1")]
    pub f1: Gain,
    /// The gain when the sample is at or above the estimate (3/4).
    #[serde(rename = "F2")]
    pub f2: Gain,
    /// The threshold G: timeout `G·E` (2).
    #[serde(rename = "G")]
    pub g: Factor,
    /// RFC 793's LBOUND, if any (none).
    #[serde(with = "opt_duration")]
    pub lbound: Option<Nanos>,
    /// RFC 793's UBOUND, if any (none).
    #[serde(with = "opt_duration")]
    pub ubound: Option<Nanos>,
    /// The timeout before the first sample (3 s).
    #[serde(with = "duration")]
    pub init: Nanos,
    /// Karn's rule (off).
    #[serde(with = "flag")]
    pub karn: bool,
    /// Double the timeout per expiry (off).
    #[serde(with = "flag")]
    pub backoff: bool,
}

/// What the shared filter needs, from either parameter struct, in seconds.
struct Shape {
    f_down: f64,
    f_up: f64,
    g: f64,
    lbound: Option<f64>,
    ubound: Option<f64>,
    init: f64,
    karn: bool,
    backoff: bool,
}

impl RsreParams {
    fn shape(&self) -> Shape {
        Shape {
            f_down: self.f.0,
            f_up: self.f.0,
            g: self.g.0,
            lbound: self.lbound.map(Nanos::as_secs_f64),
            ubound: self.ubound.map(Nanos::as_secs_f64),
            init: self.init.as_secs_f64(),
            karn: self.karn,
            backoff: self.backoff,
        }
    }
}

impl MillsParams {
    fn shape(&self) -> Shape {
        Shape {
            f_down: self.f1.0,
            f_up: self.f2.0,
            g: self.g.0,
            lbound: self.lbound.map(Nanos::as_secs_f64),
            ubound: self.ubound.map(Nanos::as_secs_f64),
            init: self.init.as_secs_f64(),
            karn: self.karn,
            backoff: self.backoff,
        }
    }
}

/// The shared first-order filter's state: `E ← F·E + (1 − F)·R` with `F = f_down` when
/// `R < E`, else `f_up`; timeout `G·E`, clamped to the optional bounds, doubled per backoff step.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct FirstOrder {
    /// The smoothed estimate E in seconds; `None` before the first sample.
    e: Option<f64>,
    /// Consecutive timeouts since the last accepted sample.
    backoffs: u32,
}

impl FirstOrder {
    fn rto(&self, p: &Shape) -> Nanos {
        let mut t = match self.e {
            Some(e) => p.g * e,
            None => p.init,
        };
        if let Some(lb) = p.lbound {
            t = t.max(lb);
        }
        if let Some(ub) = p.ubound {
            t = t.min(ub);
        }
        if p.backoff {
            t *= backoff_factor(self.backoffs);
            if let Some(ub) = p.ubound {
                t = t.min(ub);
            }
        }
        to_timeout(t)
    }

    fn on_ack(&mut self, p: &Shape, rtt: Nanos, retransmitted: bool) {
        if retransmitted && p.karn {
            return;
        }
        let r = rtt.as_secs_f64();
        self.e = Some(match self.e {
            None => r,
            Some(e) => {
                let f = if r < e { p.f_down } else { p.f_up };
                f * e + (1.0 - f) * r
            }
        });
        self.backoffs = 0;
    }

    fn on_timeout(&mut self) {
        self.backoffs = self.backoffs.saturating_add(1);
    }
}

/// RSRE / RFC 793 estimator: one gain F, threshold G.
///
/// Defaults F = 7/8, G = 2: RFC 889 §3.3, "the values now used in typical implementations".
#[derive(Debug, Clone, PartialEq)]
pub struct Rsre {
    /// The parameters.
    pub params: RsreParams,
    state: FirstOrder,
}

impl Default for Rsre {
    fn default() -> Self {
        Rsre::new(7.0 / 8.0, 2.0)
    }
}

impl Rsre {
    /// With explicit F and G and the other parameters at their defaults.
    pub fn new(f: f64, g: f64) -> Self {
        Rsre {
            params: RsreParams {
                f: Gain(f),
                g: Factor(g),
                lbound: None,
                ubound: None,
                init: Nanos::from_secs(3),
                karn: false,
                backoff: false,
            },
            state: FirstOrder::default(),
        }
    }
    /// The current smoothed estimate E, if any sample has been taken.
    pub fn estimate(&self) -> Option<Nanos> {
        self.state.e.map(Nanos::from_secs_f64)
    }
}

impl Estimator for Rsre {
    params_via_serde!("rsre", RsreParams);
    fn rto(&self) -> Nanos {
        self.state.rto(&self.params.shape())
    }
    fn on_ack(&mut self, rtt: Nanos, retransmitted: bool) {
        self.state.on_ack(&self.params.shape(), rtt, retransmitted);
    }
    fn on_timeout(&mut self) {
        self.state.on_timeout();
    }
    fn fresh(&self) -> Box<dyn Estimator> {
        Box::new(Rsre {
            params: self.params.clone(),
            state: FirstOrder::default(),
        })
    }
}

/// Mills' estimator (RFC 889 §3.3): F1 when R < E, F2 when R ≥ E, threshold G.
///
/// Defaults F1 = 15/16, F2 = 3/4, G = 2: "gave the best all-around performance" (RFC 889 §3.3).
#[derive(Debug, Clone, PartialEq)]
pub struct Mills {
    /// The parameters.
    pub params: MillsParams,
    state: FirstOrder,
}

impl Default for Mills {
    fn default() -> Self {
        Mills::new(15.0 / 16.0, 3.0 / 4.0, 2.0)
    }
}

impl Mills {
    /// With explicit F1, F2 and G and the other parameters at their defaults.
    pub fn new(f1: f64, f2: f64, g: f64) -> Self {
        Mills {
            params: MillsParams {
                f1: Gain(f1),
                f2: Gain(f2),
                g: Factor(g),
                lbound: None,
                ubound: None,
                init: Nanos::from_secs(3),
                karn: false,
                backoff: false,
            },
            state: FirstOrder::default(),
        }
    }
    /// The current smoothed estimate E, if any sample has been taken.
    pub fn estimate(&self) -> Option<Nanos> {
        self.state.e.map(Nanos::from_secs_f64)
    }
}

impl Estimator for Mills {
    params_via_serde!("mills", MillsParams);
    fn rto(&self) -> Nanos {
        self.state.rto(&self.params.shape())
    }
    fn on_ack(&mut self, rtt: Nanos, retransmitted: bool) {
        self.state.on_ack(&self.params.shape(), rtt, retransmitted);
    }
    fn on_timeout(&mut self) {
        self.state.on_timeout();
    }
    fn fresh(&self) -> Box<dyn Estimator> {
        Box::new(Mills {
            params: self.params.clone(),
            state: FirstOrder::default(),
        })
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
