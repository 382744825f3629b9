//! A Linux-style estimator: `tcp_rtt_estimator()` and `tcp_set_rto()` of
//! `net/ipv4/tcp_input.c` (the algorithm has been stable since Linux 2.6; the `_us` fields of
//! 3.x+ only changed the unit).
//!
//! What is modelled, in Linux's own variable names (unscaled here; Linux stores srtt ×8 and
//! mdev ×4):
//! - first sample m: `srtt = m`, `mdev = m/2` (4·mdev = 2m, "make sure rto = 3*rtt"),
//!   `rttvar = max(4·mdev, rto_min)`, `mdev_max = rttvar`;
//! - later: `err = m − srtt; srtt += err/8`; the deviation error `|err| − mdev` is added to
//!   `mdev` with gain 1/4 — except when the sample is *below* srtt and the deviation would grow,
//!   where the gain is a further ×1/8 (1/32 in all; the kernel comment calls it "similar to one
//!   of Eifel findings"): the asymmetric mdev gain;
//! - `mdev_max` tracks the largest 4·mdev within one RTT window; `rttvar` jumps up to it at once
//!   and decays toward it by 1/4 at each window's end, when `mdev_max` is reset to `rto_min`.
//!   With one segment in flight (the RFC 889 replay) every acknowledgement ends a window, so the
//!   decay runs on every sample;
//! - `RTO = srtt + rttvar`, at most `TCP_RTO_MAX` = 120 s. The 200 ms `TCP_RTO_MIN` is therefore a
//!   floor on the *variance term*, not on the RTO: Linux's RTO is at least srtt + 200 ms;
//! - initial RTO 1 s (`TCP_TIMEOUT_INIT`), doubling backoff bounded by 120 s, Karn's rule (no
//!   samples from retransmitted segments; the model assumes no TCP timestamps).
//!
//! Not modelled: the per-route `rto_min`, delayed-ACK interactions, `tcp_rtt_estimator`'s
//! handling of several segments per window, and jiffy rounding.

use super::params::{Factor, Gain, duration, flag};
use super::{Estimator, SpecError, backoff_factor, params_via_serde, to_timeout};
use crate::time::Nanos;
use serde::{Deserialize, Serialize};

/// The Linux-style estimator's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinuxParams {
    /// srtt gain (1/8).
    pub alpha: Gain,
    /// mdev gain (1/4).
    pub beta: Gain,
    /// Extra factor on the mdev gain when the sample is below srtt and the deviation grows (1/8).
    pub down: Gain,
    /// Deviation multiplier (4; Linux's ×4 scaling of mdev).
    pub k: Factor,
    /// `TCP_RTO_MIN`, the floor of the variance term (200 ms).
    #[serde(rename = "min", with = "duration")]
    pub rto_min: Nanos,
    /// `TCP_RTO_MAX` (120 s).
    #[serde(rename = "max", with = "duration")]
    pub rto_max: Nanos,
    /// `TCP_TIMEOUT_INIT` (1 s).
    #[serde(with = "duration")]
    pub init: Nanos,
    /// Karn's rule (no timestamps option).
    #[serde(with = "flag")]
    pub karn: bool,
    /// Exponential backoff.
    #[serde(with = "flag")]
    pub backoff: bool,
}

impl Default for LinuxParams {
    fn default() -> Self {
        LinuxParams {
            alpha: Gain(1.0 / 8.0),
            beta: Gain(1.0 / 4.0),
            down: Gain(1.0 / 8.0),
            k: Factor(4.0),
            rto_min: Nanos::from_millis(200),
            rto_max: Nanos::from_secs(120),
            init: Nanos::from_secs(1),
            karn: true,
            backoff: true,
        }
    }
}

/// Linux-style estimator.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Linux {
    /// The parameters.
    pub params: LinuxParams,
    srtt: Option<f64>,
    mdev: f64,
    mdev_max: f64,
    rttvar: f64,
    backoffs: u32,
}

impl Estimator for Linux {
    params_via_serde!("linux", LinuxParams);
    fn rto(&self) -> Nanos {
        let p = &self.params;
        let base = match self.srtt {
            Some(s) => s + self.rttvar,
            None => p.init.as_secs_f64(),
        };
        let rto_max = p.rto_max.as_secs_f64();
        let mut t = base.min(rto_max);
        if p.backoff {
            t = (t * backoff_factor(self.backoffs)).min(rto_max);
        }
        to_timeout(t)
    }
    fn on_ack(&mut self, rtt: Nanos, retransmitted: bool) {
        let p = &self.params;
        if retransmitted && p.karn {
            return;
        }
        let (k, rto_min) = (p.k.0, p.rto_min.as_secs_f64());
        let m = rtt.as_secs_f64();
        match self.srtt {
            None => {
                self.srtt = Some(m);
                self.mdev = m / 2.0;
                self.rttvar = (k * self.mdev).max(rto_min);
                self.mdev_max = self.rttvar;
            }
            Some(srtt) => {
                let err = m - srtt;
                self.srtt = Some(srtt + p.alpha.0 * err);
                let mut dev = err.abs() - self.mdev;
                if err < 0.0 && dev > 0.0 {
                    dev *= p.down.0;
                }
                self.mdev += p.beta.0 * dev;
                let scaled = k * self.mdev;
                if scaled > self.mdev_max {
                    self.mdev_max = scaled;
                    if self.mdev_max > self.rttvar {
                        self.rttvar = self.mdev_max;
                    }
                }
                // End of an RTT window: with one segment in flight, every ack.
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) / 4.0;
                }
                self.mdev_max = rto_min;
            }
        }
        self.backoffs = 0;
    }
    fn on_timeout(&mut self) {
        self.backoffs = self.backoffs.saturating_add(1);
    }
    fn fresh(&self) -> Box<dyn Estimator> {
        Box::new(Linux {
            params: self.params.clone(),
            ..Linux::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100 ms then 20 ms:
    /// first: srtt 100, mdev 50, rttvar = max(200, 200) = 200 → RTO 300 ms.
    /// second: err = −80, srtt = 90; |err| − mdev = 30 > 0 and the sample is low, so
    /// mdev += ¼·⅛·30 = 0.9375 → 50.9375; 4·mdev = 203.75 > mdev_max 200 → mdev_max = rttvar =
    /// 203.75; no decay (mdev_max = rttvar) → RTO 293.75 ms. A symmetric gain would give 57.5.
    #[test]
    fn by_hand_asymmetric_gain() {
        let mut e = Linux::default();
        assert_eq!(e.rto(), Nanos::from_secs(1));
        e.on_ack(Nanos::from_millis(100), false);
        assert_eq!(e.rto(), Nanos::from_millis(300));
        e.on_ack(Nanos::from_millis(20), false);
        assert_eq!(e.rto(), Nanos(293_750_000));
    }

    /// A steady 10 ms path: rttvar decays to the 200 ms floor, so RTO → srtt + 200 ms.
    #[test]
    fn floor_is_on_the_variance_term() {
        let mut e = Linux::default();
        for _ in 0..200 {
            e.on_ack(Nanos::from_millis(10), false);
        }
        let rto = e.rto().as_secs_f64();
        assert!((rto - 0.210).abs() < 1e-6, "{rto}");
    }
}
