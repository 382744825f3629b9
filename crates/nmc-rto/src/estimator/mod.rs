//! Retransmission-timeout estimators: small pure state machines behind one trait.
//!
//! An estimator never reads a clock and does no I/O. The driver (the RFC 889 replay in
//! [`crate::eval`], or some day a real sender) tells it what happened and asks for the
//! timeout to arm:
//!
//! | call | meaning |
//! | --- | --- |
//! | [`Estimator::rto`] | the timeout to arm for the next transmission (getter, no side effect) |
//! | [`Estimator::on_ack`] | an acknowledgement arrived; `rtt` is the measured round trip of the segment's first transmission, `retransmitted` says whether it had been retransmitted meanwhile (Karn's ambiguity) |
//! | [`Estimator::on_timeout`] | the armed timeout expired and the segment was retransmitted |
//!
//! For one volley the driver calls `rto()`, then either `on_ack(..)`, or `on_timeout()` followed
//! by `on_ack(.., true)` (a superfluous retransmission), or `on_timeout()` alone (a loss whose
//! retransmission's delay is unknown).
//!
//! | name | source | module |
//! | --- | --- | --- |
//! | `rsre` | RFC 793 §3.7 (the "RSRE algorithm" of RFC 889 §3) | [`rsre`] |
//! | `mills` | RFC 889 §3.3 | [`rsre`] |
//! | `jacobson` (`jk88`) | Jacobson & Karels, SIGCOMM '88, App. A | [`jacobson`] |
//! | `rfc6298` | RFC 6298 §2–5 | [`rfc6298`] |
//! | `linux` | Linux `tcp_rtt_estimator()`/`tcp_set_rto()` | [`linux`] |
//! | `quic` | RFC 9002 §5–6.2 (probe timeout) | [`quic`] |
//!
//! Every parameter is a public field with the source's default and can be overridden from a
//! spec string `NAME[:key=value,...]` through [`parse`], e.g.
//! `mills:F1=0.9375,F2=0.75,G=2` or `rfc6298:min=200ms,G=10ms`. Keys are case-insensitive;
//! durations take a unit (`ns`, `us`, `ms`, `s`, `min`; a bare number is an error); booleans are
//! `true`/`false`/`1`/`0`.
//!
//! Smoothing is done in `f64` seconds; [`Estimator::rto`] rounds to the nearest nanosecond and is
//! never below one nanosecond (a zero timeout would be meaningless), so timeouts are always
//! finite and positive.

pub mod jacobson;
pub mod linux;
pub mod quic;
pub mod rfc6298;
pub mod rsre;

use std::fmt;

use crate::time::Nanos;

pub use jacobson::Jacobson;
pub use linux::Linux;
pub use quic::QuicPto;
pub use rfc6298::Rfc6298;
pub use rsre::{Mills, Rsre};

/// A retransmission-timeout estimator.
pub trait Estimator: fmt::Debug + Send {
    /// The estimator's spec name (`rsre`, `mills`, ...).
    fn name(&self) -> &'static str;
    /// The parameter keys [`Estimator::set`] accepts, in display order.
    fn keys(&self) -> &'static [&'static str];
    /// The current value of a parameter, formatted as [`Estimator::set`] accepts it.
    fn get(&self, key: &str) -> Option<String>;
    /// Sets a parameter from its text form. `key` is matched case-insensitively.
    fn set(&mut self, key: &str, value: &str) -> Result<(), SpecError>;
    /// The timeout to arm for the next transmission.
    fn rto(&self) -> Nanos;
    /// An acknowledgement with measured round trip `rtt` arrived; `retransmitted` is true if the
    /// segment had been retransmitted before it (its sample is ambiguous under Karn's rule).
    fn on_ack(&mut self, rtt: Nanos, retransmitted: bool);
    /// The armed timeout expired; the segment is retransmitted.
    fn on_timeout(&mut self);
    /// A new estimator with the same parameters and no history.
    fn fresh(&self) -> Box<dyn Estimator>;

    /// The spec string that rebuilds this estimator: `name:k=v,...` with every parameter.
    fn describe(&self) -> String {
        let params: Vec<String> = self
            .keys()
            .iter()
            .map(|k| format!("{k}={}", self.get(k).unwrap_or_default()))
            .collect();
        format!("{}:{}", self.name(), params.join(","))
    }
}

/// The estimator names [`parse`] knows, with their aliases.
pub const NAMES: &[&str] = &["rsre", "mills", "jacobson", "rfc6298", "linux", "quic"];

/// A bad estimator spec; the message is one line naming what was wrong and what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpecError {
    /// The name before `:` is not a known estimator.
    #[error("unknown estimator `{name}` (expected one of: {})", NAMES.join(", "))]
    UnknownEstimator {
        /// What was typed.
        name: String,
    },
    /// A key is not a parameter of this estimator.
    #[error("unknown key `{key}` for estimator `{estimator}` (expected one of: {})", known.join(", "))]
    UnknownKey {
        /// Estimator name.
        estimator: &'static str,
        /// What was typed.
        key: String,
        /// The keys it accepts.
        known: &'static [&'static str],
    },
    /// A value does not parse or is out of range.
    #[error("bad value `{value}` for {estimator} key {key}: {reason}")]
    BadValue {
        /// Estimator name.
        estimator: &'static str,
        /// The key.
        key: &'static str,
        /// What was typed.
        value: String,
        /// Why it was refused: what was expected.
        reason: String,
    },
    /// A `key=value` item without `=`.
    #[error("bad parameter `{item}` in estimator spec `{spec}`: expected key=value")]
    Syntax {
        /// The whole spec.
        spec: String,
        /// The offending item.
        item: String,
    },
}

/// Builds a fresh estimator from `NAME[:key=value,...]`.
pub fn parse(spec: &str) -> Result<Box<dyn Estimator>, SpecError> {
    let spec = spec.trim();
    let (name, params) = match spec.split_once(':') {
        Some((n, p)) => (n.trim(), p),
        None => (spec, ""),
    };
    let mut est: Box<dyn Estimator> = match name.to_ascii_lowercase().as_str() {
        "rsre" | "rfc793" => Box::new(Rsre::default()),
        "mills" | "rfc889" => Box::new(Mills::default()),
        "jacobson" | "jk88" | "jk" | "vj" => Box::new(Jacobson::default()),
        "rfc6298" | "6298" => Box::new(Rfc6298::default()),
        "linux" => Box::new(Linux::default()),
        "quic" | "rfc9002" | "pto" => Box::new(QuicPto::default()),
        _ => {
            return Err(SpecError::UnknownEstimator {
                name: name.to_string(),
            });
        }
    };
    for item in params.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((k, v)) = item.split_once('=') else {
            return Err(SpecError::Syntax {
                spec: spec.to_string(),
                item: item.to_string(),
            });
        };
        est.set(k.trim(), v.trim())?;
    }
    Ok(est)
}

// ---- parameter helpers shared by the estimators -------------------------------------------

/// Finds `key` among `keys` case-insensitively and returns the canonical spelling.
pub(crate) fn canonical(
    estimator: &'static str,
    keys: &'static [&'static str],
    key: &str,
) -> Result<&'static str, SpecError> {
    keys.iter()
        .copied()
        .find(|k| k.eq_ignore_ascii_case(key))
        .ok_or_else(|| SpecError::UnknownKey {
            estimator,
            key: key.to_string(),
            known: keys,
        })
}

fn bad(
    estimator: &'static str,
    key: &'static str,
    value: &str,
    expected: &'static str,
) -> SpecError {
    SpecError::BadValue {
        estimator,
        key,
        value: value.to_string(),
        reason: format!("expected {expected}"),
    }
}

/// A gain or weight in `[0, 1]`; accepts fractions like `15/16`.
pub(crate) fn fraction(est: &'static str, key: &'static str, v: &str) -> Result<f64, SpecError> {
    let x = number(v).ok_or_else(|| bad(est, key, v, "a number in [0, 1], e.g. 0.875 or 7/8"))?;
    if (0.0..=1.0).contains(&x) {
        Ok(x)
    } else {
        Err(bad(est, key, v, "a number in [0, 1], e.g. 0.875 or 7/8"))
    }
}

/// A positive finite factor; accepts fractions.
pub(crate) fn factor(est: &'static str, key: &'static str, v: &str) -> Result<f64, SpecError> {
    match number(v) {
        Some(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(bad(est, key, v, "a positive number")),
    }
}

/// A duration in seconds, written with its unit (`200ms`, `1s`).
pub(crate) fn duration(est: &'static str, key: &'static str, v: &str) -> Result<f64, SpecError> {
    v.parse::<Nanos>()
        .map(Nanos::as_secs_f64)
        .map_err(|e| SpecError::BadValue {
            estimator: est,
            key,
            value: v.to_string(),
            reason: e.to_string(),
        })
}

/// An optional duration: `none`/`off` clears it.
pub(crate) fn opt_duration(
    est: &'static str,
    key: &'static str,
    v: &str,
) -> Result<Option<f64>, SpecError> {
    if v.eq_ignore_ascii_case("none") || v.eq_ignore_ascii_case("off") {
        Ok(None)
    } else {
        v.parse::<Nanos>()
            .map(|d| Some(d.as_secs_f64()))
            .map_err(|e| SpecError::BadValue {
                estimator: est,
                key,
                value: v.to_string(),
                reason: format!("{e} (or none)"),
            })
    }
}

/// A boolean.
pub(crate) fn boolean(est: &'static str, key: &'static str, v: &str) -> Result<bool, SpecError> {
    match v.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(bad(est, key, v, "true or false")),
    }
}

/// `1.5`, `15/16`.
fn number(v: &str) -> Option<f64> {
    let v = v.trim();
    if let Some((a, b)) = v.split_once('/') {
        let (a, b): (f64, f64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
        (b != 0.0).then_some(a / b)
    } else {
        v.parse().ok().filter(|x: &f64| x.is_finite())
    }
}

/// Formats seconds as the shortest exact-ish duration text (`200ms`, `1s`).
pub(crate) fn fmt_secs(s: f64) -> String {
    let ns = Nanos::from_secs_f64(s);
    if ns.0.is_multiple_of(1_000_000_000) {
        format!("{}s", ns.0 / 1_000_000_000)
    } else if ns.0.is_multiple_of(1_000_000) {
        format!("{}ms", ns.0 / 1_000_000)
    } else if ns.0.is_multiple_of(1000) {
        format!("{}us", ns.0 / 1000)
    } else {
        format!("{}ns", ns.0)
    }
}

pub(crate) fn fmt_opt_secs(s: Option<f64>) -> String {
    s.map_or_else(|| "none".to_string(), fmt_secs)
}

/// Converts an estimate in seconds to the returned timeout: rounded, at least 1 ns.
pub(crate) fn to_timeout(s: f64) -> Nanos {
    Nanos::from_secs_f64(s).max(Nanos(1))
}

/// `2^n` for exponential backoff, with the exponent capped so the product stays finite.
pub(crate) fn backoff_factor(n: u32) -> f64 {
    2f64.powi(n.min(60) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_overrides() {
        let e = parse("mills:F1=0.9375,F2=3/4,G=2").unwrap();
        assert_eq!(e.name(), "mills");
        assert_eq!(e.get("F2").as_deref(), Some("0.75"));
        let e = parse("RFC6298:min=200ms").unwrap();
        assert_eq!(e.get("min").as_deref(), Some("200ms"));
        for n in NAMES {
            let e = parse(n).unwrap();
            // describe() round-trips through parse()
            let again = parse(&e.describe()).unwrap();
            assert_eq!(again.describe(), e.describe());
        }
    }

    #[test]
    fn errors_are_one_line_and_name_the_culprit() {
        let e = parse("milz:F1=1").unwrap_err().to_string();
        assert!(
            e.contains("unknown estimator `milz`") && e.contains("mills"),
            "{e}"
        );
        let e = parse("mills:F3=1").unwrap_err().to_string();
        assert!(e.contains("unknown key `F3`") && e.contains("F1"), "{e}");
        let e = parse("mills:F1=abc").unwrap_err().to_string();
        assert!(e.contains("`abc`") && e.contains("F1"), "{e}");
        let e = parse("mills:F1=1.5").unwrap_err().to_string();
        assert!(e.contains("[0, 1]"), "{e}");
        let e = parse("mills:F1").unwrap_err().to_string();
        assert!(e.contains("key=value"), "{e}");
        assert!(!e.contains('\n'));
    }
}
