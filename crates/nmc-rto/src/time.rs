//! Time as an integer count of nanoseconds.
//!
//! Every instant and duration that crosses a module boundary in this crate is a [`Nanos`]:
//! send times in a trace, measured delays, and the timeout an estimator returns. Integer
//! nanoseconds hold an irtt timestamp exactly and round-trip through the CSV trace format
//! without loss. Estimators do their smoothing arithmetic in `f64` seconds (the gains are
//! fractions such as 15/16) and round the timeout they return to the nearest nanosecond; the
//! rounding is the only place a value is ever approximated.

use std::fmt;

/// A time or duration in integer nanoseconds.
///
/// Send times are measured from an arbitrary origin (trace start, or the Unix epoch for
/// imported wall-clock traces); delays and timeouts are durations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
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

    /// As seconds.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// As milliseconds.
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
}

/// Prints milliseconds with up to six decimals, trailing zeros trimmed: `312.5ms`.
impl fmt::Display for Nanos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ms", decimal(self.0, 6))
    }
}

/// `value / 10^scale` as an exact decimal string with trailing zeros trimmed.
pub(crate) fn decimal(value: u64, scale: u32) -> String {
    let div = 10u64.pow(scale);
    let (int, frac) = (value / div, value % div);
    if frac == 0 {
        return int.to_string();
    }
    let s = format!("{int}.{frac:0width$}", width = scale as usize);
    s.trim_end_matches('0').to_string()
}

/// Parses a non-negative decimal number (`12`, `0.5`, `.25`, `1e-3` is *not* accepted) exactly,
/// as an integer count of `10^-scale` units. Digits beyond `scale` decimals are rounded half up.
pub(crate) fn parse_decimal(s: &str, scale: u32) -> Option<u64> {
    let s = s.trim();
    let s = s.strip_prefix('+').unwrap_or(s);
    if s.is_empty() {
        return None;
    }
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut v: u64 = 0;
    for b in int.bytes() {
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    let fb = frac.as_bytes();
    for i in 0..scale as usize {
        let d = fb.get(i).map_or(0, |b| u64::from(b - b'0'));
        v = v.checked_mul(10)?.checked_add(d)?;
    }
    if fb.get(scale as usize).is_some_and(|&b| b >= b'5') {
        v = v.checked_add(1)?;
    }
    Some(v)
}

/// Parses a duration with an optional unit: `200ms`, `1.5s`, `250us`, `100ns`; a bare number is
/// seconds. Used for estimator parameters and command-line options.
pub fn parse_duration(s: &str) -> Option<Nanos> {
    let s = s.trim();
    let (num, scale_to_ns): (&str, u32) = if let Some(n) = s.strip_suffix("ns") {
        (n, 0)
    } else if let Some(n) = s.strip_suffix("us").or_else(|| s.strip_suffix("µs")) {
        (n, 3)
    } else if let Some(n) = s.strip_suffix("ms") {
        (n, 6)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 9)
    } else {
        (s, 9)
    };
    parse_decimal(num, scale_to_ns).map(Nanos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_round_trip() {
        assert_eq!(decimal(312_500_000, 6), "312.5");
        assert_eq!(decimal(1_000_000, 6), "1");
        assert_eq!(decimal(1, 9), "0.000000001");
        assert_eq!(parse_decimal("312.5", 6), Some(312_500_000));
        assert_eq!(parse_decimal(".25", 3), Some(250));
        assert_eq!(parse_decimal("1.0005", 3), Some(1001));
        assert_eq!(parse_decimal("-1", 3), None);
        assert_eq!(parse_decimal("1e3", 3), None);
        assert_eq!(parse_decimal(".", 3), None);
    }

    #[test]
    fn durations_with_units() {
        assert_eq!(parse_duration("200ms"), Some(Nanos::from_millis(200)));
        assert_eq!(parse_duration("1"), Some(Nanos::from_secs(1)));
        assert_eq!(parse_duration("1.5s"), Some(Nanos(1_500_000_000)));
        assert_eq!(parse_duration("25us"), Some(Nanos(25_000)));
        assert_eq!(parse_duration("7ns"), Some(Nanos(7)));
        assert_eq!(parse_duration("fast"), None);
    }

    #[test]
    fn float_conversion_saturates() {
        assert_eq!(Nanos::from_secs_f64(-1.0), Nanos::ZERO);
        assert_eq!(Nanos::from_secs_f64(f64::NAN), Nanos::ZERO);
        assert_eq!(Nanos::from_secs_f64(1e30), Nanos::MAX);
        assert_eq!(Nanos::from_secs_f64(0.25), Nanos(250_000_000));
    }
}
