//! QUIC's probe timeout, RFC 9002 (Iyengar & Swett, 2021).
//!
//! - §5.3: before any sample, `smoothed_rtt = kInitialRtt` (333 ms), `rttvar = kInitialRtt/2`;
//!   first sample: `min_rtt = smoothed_rtt = latest_rtt`, `rttvar = latest_rtt/2`; later:
//!   `min_rtt = min(min_rtt, latest_rtt)`; `adjusted_rtt = latest_rtt − ack_delay` if
//!   `latest_rtt ≥ min_rtt + ack_delay`, else `latest_rtt`;
//!   `rttvar = ¾·rttvar + ¼·|smoothed_rtt − adjusted_rtt|`,
//!   `smoothed_rtt = ⅞·smoothed_rtt + ⅛·adjusted_rtt`.
//! - §6.2.1: `PTO = smoothed_rtt + max(4·rttvar, kGranularity) + max_ack_delay`, doubled for
//!   each consecutive expiry (`pto_count`), which an acknowledgement resets.
//! - QUIC packet numbers are never reused, so every acknowledgement gives an unambiguous sample:
//!   there is no Karn rule here and `retransmitted` is ignored.
//!
//! Defaults: kGranularity 1 ms (§6.1.2), max_ack_delay 25 ms (RFC 9000 §18.2 transport
//! parameter default; the model is the application-data space), reported ack delay 0 (an echo
//! responder does not delay its reply). No maximum PTO is specified by the RFC; none is applied.

use super::params::{Factor, Gain, duration};
use super::{Estimator, SpecError, backoff_factor, params_via_serde, to_timeout};
use crate::time::Nanos;
use serde::{Deserialize, Serialize};

/// RFC 9002's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuicParams {
    /// kInitialRtt (333 ms).
    #[serde(with = "duration")]
    pub initial_rtt: Nanos,
    /// kGranularity (1 ms).
    #[serde(with = "duration")]
    pub granularity: Nanos,
    /// max_ack_delay (25 ms).
    #[serde(with = "duration")]
    pub max_ack_delay: Nanos,
    /// The ack delay each acknowledgement reports (0).
    #[serde(with = "duration")]
    pub ack_delay: Nanos,
    /// smoothed_rtt gain (1/8).
    pub alpha: Gain,
    /// rttvar gain (1/4).
    pub beta: Gain,
    /// rttvar multiplier (4).
    pub k: Factor,
}

impl Default for QuicParams {
    fn default() -> Self {
        QuicParams {
            initial_rtt: Nanos::from_millis(333),
            granularity: Nanos::from_millis(1),
            max_ack_delay: Nanos::from_millis(25),
            ack_delay: Nanos::ZERO,
            alpha: Gain(1.0 / 8.0),
            beta: Gain(1.0 / 4.0),
            k: Factor(4.0),
        }
    }
}

/// RFC 9002 probe timeout.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QuicPto {
    /// The parameters.
    pub params: QuicParams,
    smoothed: Option<f64>,
    rttvar: f64,
    min_rtt: f64,
    pto_count: u32,
}

impl Estimator for QuicPto {
    params_via_serde!("quic", QuicParams);
    fn rto(&self) -> Nanos {
        let p = &self.params;
        let initial_rtt = p.initial_rtt.as_secs_f64();
        let (srtt, var) = match self.smoothed {
            Some(s) => (s, self.rttvar),
            None => (initial_rtt, initial_rtt / 2.0),
        };
        let pto =
            srtt + (p.k.0 * var).max(p.granularity.as_secs_f64()) + p.max_ack_delay.as_secs_f64();
        to_timeout(pto * backoff_factor(self.pto_count))
    }
    fn on_ack(&mut self, rtt: Nanos, _retransmitted: bool) {
        let (alpha, beta) = (self.params.alpha.0, self.params.beta.0);
        let ack_delay = self.params.ack_delay.as_secs_f64();
        let latest = rtt.as_secs_f64();
        match self.smoothed {
            None => {
                self.min_rtt = latest;
                self.smoothed = Some(latest);
                self.rttvar = latest / 2.0;
            }
            Some(s) => {
                self.min_rtt = self.min_rtt.min(latest);
                let adjusted = if latest >= self.min_rtt + ack_delay {
                    latest - ack_delay
                } else {
                    latest
                };
                self.rttvar = (1.0 - beta) * self.rttvar + beta * (s - adjusted).abs();
                self.smoothed = Some((1.0 - alpha) * s + alpha * adjusted);
            }
        }
        self.pto_count = 0;
    }
    fn on_timeout(&mut self) {
        self.pto_count = self.pto_count.saturating_add(1);
    }
    fn fresh(&self) -> Box<dyn Estimator> {
        Box::new(QuicPto {
            params: self.params.clone(),
            ..QuicPto::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Initial: 333 + 666 + 25 = 1024 ms. Sample 100 ms: 100 + 200 + 25 = 325 ms.
    /// Sample 200 ms: rttvar = 37.5 + 25 = 62.5, srtt = 112.5 → 112.5 + 250 + 25 = 387.5 ms.
    /// One expiry doubles it; an acknowledgement (even of a retransmitted packet) resets.
    #[test]
    fn by_hand() {
        let mut e = QuicPto::default();
        assert_eq!(e.rto(), Nanos::from_millis(1024));
        e.on_ack(Nanos::from_millis(100), false);
        assert_eq!(e.rto(), Nanos::from_millis(325));
        e.on_ack(Nanos::from_millis(200), false);
        assert_eq!(e.rto(), Nanos(387_500_000));
        e.on_timeout();
        assert_eq!(e.rto(), Nanos(775_000_000));
        e.on_ack(Nanos::from_millis(200), true);
        assert!(e.rto() < Nanos(775_000_000));
    }
}
