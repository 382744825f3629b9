//! [`Nanos`]: a measured time or span in whole nanoseconds, for the tools that work on real
//! clocks and recorded traces (`nmc-probe`, `nmc-rto`) rather than on simulated time.
//!
//! Where [`SimTime`](crate::SimTime) and [`SimDuration`] keep the
//! simulator's instants and spans apart, a `Nanos` is both: a send time counted from some origin
//! (a probe's monotonic clock, a trace's start, the Unix epoch), or a delay, a timeout. Integer
//! nanoseconds hold a kernel or irtt timestamp exactly and round-trip through the CSV traces
//! without loss.
//!
//! It prints two ways:
//!
//! * [`Display`](fmt::Display): exact milliseconds, trailing zeros trimmed (`312.5ms`,
//!   `0.000001ms`); what `nmc-rto` writes, and it parses back to the same value;
//! * [`Nanos::human`]: the largest unit that keeps the number readable, rounded (`850ns`,
//!   `12.5us`, `104.2ms`, `3.000s`); what the probe's logs and reports print.
//!
//! It parses with its unit, like every duration of nmc (see [`crate::units`]): `200ms`, `1.5s`;
//! a bare number is an error. Serde writes and reads it as a plain integer of nanoseconds.

use crate::time::{SimDuration, write_decimal};
use crate::units::UnitError;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A time or a span of time in whole nanoseconds.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Nanos(pub u64);

impl Nanos {
    /// Zero.
    pub const ZERO: Nanos = Nanos(0);
    /// The largest representable value (about 584 years); used as "no limit".
    pub const MAX: Nanos = Nanos(u64::MAX);

    /// From whole milliseconds.
    pub const fn from_millis(ms: u64) -> Nanos {
        Nanos(ms * 1_000_000)
    }

    /// From whole seconds.
    pub const fn from_secs(s: u64) -> Nanos {
        Nanos(s * 1_000_000_000)
    }

    /// From seconds as a float, rounded to the nearest nanosecond; negative and NaN give zero,
    /// values beyond the range saturate.
    pub fn from_secs_f64(s: f64) -> Nanos {
        if s.is_nan() || s <= 0.0 {
            Nanos(0)
        } else {
            let ns = (s * 1e9).round();
            if ns >= u64::MAX as f64 {
                Nanos::MAX
            } else {
                Nanos(ns as u64)
            }
        }
    }

    /// From a [`Duration`], saturating at [`Nanos::MAX`].
    pub fn from_duration(d: Duration) -> Nanos {
        Nanos(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
    }

    /// As a [`Duration`].
    pub fn to_duration(self) -> Duration {
        Duration::from_nanos(self.0)
    }

    /// As seconds (correctly rounded: `n / 1e9`).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// As milliseconds (correctly rounded: `n / 1e6`).
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }

    /// Saturating subtraction.
    pub fn saturating_sub(self, other: Nanos) -> Nanos {
        Nanos(self.0.saturating_sub(other.0))
    }

    /// Saturating addition.
    pub fn saturating_add(self, other: Nanos) -> Nanos {
        Nanos(self.0.saturating_add(other.0))
    }

    /// Prints with the largest unit that keeps the number readable, rounded: `850ns`, `12.5us`,
    /// `104.2ms`, `3.000s`. For logs and reports; [`Display`](fmt::Display) is the exact form.
    pub fn human(self) -> Human {
        Human(self)
    }
}

/// [`Nanos::human`]'s display.
#[derive(Clone, Copy, Debug)]
pub struct Human(Nanos);

impl fmt::Display for Human {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.0;
        if n < 1_000 {
            write!(f, "{n}ns")
        } else if n < 1_000_000 {
            write!(f, "{:.1}us", n as f64 / 1e3)
        } else if n < 1_000_000_000 {
            write!(f, "{:.1}ms", n as f64 / 1e6)
        } else {
            write!(f, "{:.3}s", n as f64 / 1e9)
        }
    }
}

/// Exact milliseconds with up to six decimals, trailing zeros trimmed: `312.5ms`.
impl fmt::Display for Nanos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_decimal(f, self.0, 1_000_000)?;
        f.write_str("ms")
    }
}

/// A duration with its unit (`200ms`, `1.5s`, `250us`, `100ns`, `2min`): the parser of
/// [`crate::units`], so a bare number is an error that suggests the unit.
impl FromStr for Nanos {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Nanos, UnitError> {
        s.parse::<SimDuration>().map(Nanos::from)
    }
}

impl From<SimDuration> for Nanos {
    fn from(d: SimDuration) -> Nanos {
        Nanos(d.as_nanos())
    }
}

impl From<Nanos> for SimDuration {
    fn from(n: Nanos) -> SimDuration {
        SimDuration::from_nanos(n.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_exact_and_human() {
        assert_eq!(Nanos(312_500_000).to_string(), "312.5ms");
        assert_eq!(Nanos(1).to_string(), "0.000001ms");
        assert_eq!(Nanos::from_secs(2).to_string(), "2000ms");
        assert_eq!(Nanos(850).human().to_string(), "850ns");
        assert_eq!(Nanos(12_500).human().to_string(), "12.5us");
        assert_eq!(Nanos(104_200_000).human().to_string(), "104.2ms");
        assert_eq!(Nanos(3_000_000_000).human().to_string(), "3.000s");
    }

    #[test]
    fn parses_with_a_unit_only() {
        assert_eq!("200ms".parse::<Nanos>(), Ok(Nanos::from_millis(200)));
        assert_eq!("1.5s".parse::<Nanos>(), Ok(Nanos(1_500_000_000)));
        assert_eq!("25us".parse::<Nanos>(), Ok(Nanos(25_000)));
        assert_eq!("7ns".parse::<Nanos>(), Ok(Nanos(7)));
        assert_eq!(
            Nanos(312_500_000).to_string().parse(),
            Ok(Nanos(312_500_000))
        );
        let e = "30".parse::<Nanos>().unwrap_err().to_string();
        assert!(e.contains("`30` needs a unit: 30s, 30ms"), "{e}");
        assert!("fast".parse::<Nanos>().is_err());
    }

    #[test]
    fn float_conversion_saturates() {
        assert_eq!(Nanos::from_secs_f64(-1.0), Nanos::ZERO);
        assert_eq!(Nanos::from_secs_f64(f64::NAN), Nanos::ZERO);
        assert_eq!(Nanos::from_secs_f64(1e30), Nanos::MAX);
        assert_eq!(Nanos::from_secs_f64(0.25), Nanos(250_000_000));
        assert_eq!(Nanos::from_duration(Duration::MAX), Nanos::MAX);
    }

    #[test]
    fn serde_is_an_integer() {
        assert_eq!(serde_json::to_string(&Nanos(42)).unwrap(), "42");
        assert_eq!(serde_json::from_str::<Nanos>("42").unwrap(), Nanos(42));
    }
}
