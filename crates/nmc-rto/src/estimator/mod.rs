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
//! Every parameter is a field of the estimator's parameter struct (`params`, a
//! `#[derive(Serialize, Deserialize)] #[serde(deny_unknown_fields)]` struct; see [`params`])
//! with the source's default, and can be overridden from a spec string `NAME[:key=value,...]`
//! through [`parse`], e.g. `mills:F1=0.9375,F2=0.75,G=2` or `rfc6298:min=200ms,G=10ms`. Keys are
//! case-insensitive; gains read fractions (`15/16`); durations take a unit (`ns`, `us`, `ms`,
//! `s`, `min`; a bare number is an error that suggests one); booleans are `true`/`false`/`1`/`0`.
//! The same structs read from a scenario or JSON file.
//!
//! Smoothing is done in `f64` seconds; [`Estimator::rto`] rounds to the nearest nanosecond and is
//! never below one nanosecond (a zero timeout would be meaningless), so timeouts are always
//! finite and positive.

pub mod jacobson;
pub mod linux;
pub mod params;
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
///
/// Its parameters are a serde struct (`RsreParams`, `JacobsonParams`, ...; see [`params`]) in a
/// public `params` field; [`Estimator::keys`], [`Estimator::get`] and [`Estimator::set`] read
/// and write it through serde, by the spec keys.
pub trait Estimator: fmt::Debug + Send {
    /// The estimator's spec name (`rsre`, `mills`, ...).
    fn name(&self) -> &'static str;
    /// The parameter keys [`Estimator::set`] accepts, in display order (the parameter struct's
    /// fields, as serde names them).
    fn keys(&self) -> &'static [&'static str];
    /// The current value of a parameter, formatted as [`Estimator::set`] accepts it.
    fn get(&self, key: &str) -> Option<String>;
    /// Sets a parameter from its text form, through the parameter struct's `Deserialize`.
    /// `key` is matched case-insensitively; an unknown key or a bad value is a one-line
    /// [`SpecError`] naming the key and the estimator.
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

// ---- helpers shared by the estimators ---------------------------------------------------

/// The [`Estimator`] methods that go through the parameter struct in `self.params` (see
/// [`params`]): `name`, `keys`, `get`, `set`.
macro_rules! params_via_serde {
    ($name:literal, $params:ty) => {
        fn name(&self) -> &'static str {
            $name
        }
        fn keys(&self) -> &'static [&'static str] {
            super::params::keys::<$params>()
        }
        fn get(&self, key: &str) -> Option<String> {
            super::params::get(&self.params, key)
        }
        fn set(&mut self, key: &str, value: &str) -> Result<(), SpecError> {
            self.params = super::params::set($name, &self.params, key, value)?.0;
            Ok(())
        }
    };
}
pub(crate) use params_via_serde;

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
        assert_eq!(
            parse("linux").unwrap().describe(),
            "linux:alpha=0.125,beta=0.25,down=0.125,k=4,min=200ms,max=120s,init=1s,karn=true,backoff=true"
        );
        assert_eq!(
            parse("rsre").unwrap().describe(),
            "rsre:F=0.875,G=2,lbound=none,ubound=none,init=3s,karn=false,backoff=false"
        );
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
        let e = parse("jacobson:init=3").unwrap_err().to_string();
        assert!(
            e.contains("jacobson key init") && e.contains("`3` needs a unit: 3s, 3ms"),
            "{e}"
        );
        let e = parse("rsre:lbound=soon").unwrap_err().to_string();
        assert!(e.contains("rsre key lbound") && !e.contains('\n'), "{e}");
    }
}
