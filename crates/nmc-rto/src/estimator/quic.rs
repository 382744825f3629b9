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

use super::{
    Estimator, SpecError, backoff_factor, canonical, duration, factor, fmt_secs, fraction,
    to_timeout,
};
use crate::time::Nanos;

/// RFC 9002 probe timeout.
#[derive(Debug, Clone, PartialEq)]
pub struct QuicPto {
    /// kInitialRtt, seconds (333 ms).
    pub initial_rtt: f64,
    /// kGranularity, seconds (1 ms).
    pub granularity: f64,
    /// max_ack_delay, seconds (25 ms).
    pub max_ack_delay: f64,
    /// The ack delay each acknowledgement reports, seconds (0).
    pub ack_delay: f64,
    /// smoothed_rtt gain (1/8).
    pub alpha: f64,
    /// rttvar gain (1/4).
    pub beta: f64,
    /// rttvar multiplier (4).
    pub k: f64,
    smoothed: Option<f64>,
    rttvar: f64,
    min_rtt: f64,
    pto_count: u32,
}

impl Default for QuicPto {
    fn default() -> Self {
        QuicPto {
            initial_rtt: 0.333,
            granularity: 0.001,
            max_ack_delay: 0.025,
            ack_delay: 0.0,
            alpha: 1.0 / 8.0,
            beta: 1.0 / 4.0,
            k: 4.0,
            smoothed: None,
            rttvar: 0.0,
            min_rtt: 0.0,
            pto_count: 0,
        }
    }
}

const KEYS: &[&str] = &[
    "initial_rtt",
    "granularity",
    "max_ack_delay",
    "ack_delay",
    "alpha",
    "beta",
    "k",
];

impl Estimator for QuicPto {
    fn name(&self) -> &'static str {
        "quic"
    }
    fn keys(&self) -> &'static [&'static str] {
        KEYS
    }
    fn get(&self, key: &str) -> Option<String> {
        Some(match canonical("quic", KEYS, key).ok()? {
            "initial_rtt" => fmt_secs(self.initial_rtt),
            "granularity" => fmt_secs(self.granularity),
            "max_ack_delay" => fmt_secs(self.max_ack_delay),
            "ack_delay" => fmt_secs(self.ack_delay),
            "alpha" => self.alpha.to_string(),
            "beta" => self.beta.to_string(),
            "k" => self.k.to_string(),
            _ => return None,
        })
    }
    fn set(&mut self, key: &str, v: &str) -> Result<(), SpecError> {
        const E: &str = "quic";
        match canonical(E, KEYS, key)? {
            k @ "initial_rtt" => self.initial_rtt = duration(E, k, v)?,
            k @ "granularity" => self.granularity = duration(E, k, v)?,
            k @ "max_ack_delay" => self.max_ack_delay = duration(E, k, v)?,
            k @ "ack_delay" => self.ack_delay = duration(E, k, v)?,
            k @ "alpha" => self.alpha = fraction(E, k, v)?,
            k @ "beta" => self.beta = fraction(E, k, v)?,
            k @ "k" => self.k = factor(E, k, v)?,
            _ => unreachable!(),
        }
        Ok(())
    }
    fn rto(&self) -> Nanos {
        let (srtt, var) = match self.smoothed {
            Some(s) => (s, self.rttvar),
            None => (self.initial_rtt, self.initial_rtt / 2.0),
        };
        let pto = srtt + (self.k * var).max(self.granularity) + self.max_ack_delay;
        to_timeout(pto * backoff_factor(self.pto_count))
    }
    fn on_ack(&mut self, rtt: Nanos, _retransmitted: bool) {
        let latest = rtt.as_secs_f64();
        match self.smoothed {
            None => {
                self.min_rtt = latest;
                self.smoothed = Some(latest);
                self.rttvar = latest / 2.0;
            }
            Some(s) => {
                self.min_rtt = self.min_rtt.min(latest);
                let adjusted = if latest >= self.min_rtt + self.ack_delay {
                    latest - self.ack_delay
                } else {
                    latest
                };
                self.rttvar = (1.0 - self.beta) * self.rttvar + self.beta * (s - adjusted).abs();
                self.smoothed = Some((1.0 - self.alpha) * s + self.alpha * adjusted);
            }
        }
        self.pto_count = 0;
    }
    fn on_timeout(&mut self) {
        self.pto_count = self.pto_count.saturating_add(1);
    }
    fn fresh(&self) -> Box<dyn Estimator> {
        Box::new(QuicPto {
            smoothed: None,
            rttvar: 0.0,
            min_rtt: 0.0,
            pto_count: 0,
            ..self.clone()
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
