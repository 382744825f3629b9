//! Simulated time: integer nanoseconds.
//!
//! [`SimTime`] is an instant since the start of a run, [`SimDuration`] a span. Both are `u64`
//! nanoseconds (about 584 years of range), so arithmetic is exact and runs reproduce bit for bit.
//! They print in the largest unit that keeps the value exact (`81.04ms`, `10min`) and parse
//! the same forms (see [`crate::units`]).

use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, Sub};

const NS_PER_US: u64 = 1_000;
const NS_PER_MS: u64 = 1_000_000;
const NS_PER_S: u64 = 1_000_000_000;
const NS_PER_MIN: u64 = 60 * NS_PER_S;
const NS_PER_H: u64 = 60 * NS_PER_MIN;

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(u64);

impl SimTime {
    /// The start of the run.
    pub const ZERO: SimTime = SimTime(0);
    /// The latest instant, `u64::MAX` ns (about 584 years); adding a span saturates here.
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// The instant `ns` nanoseconds after the start of the run.
    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    /// Nanoseconds since the start of the run.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds as a float, for reports only (never for scheduling).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    /// Milliseconds as a float, for reports only.
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / NS_PER_MS as f64
    }
    /// Time elapsed since `earlier`; zero if `earlier` is later.
    pub fn since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
}

impl SimDuration {
    /// No time.
    pub const ZERO: SimDuration = SimDuration(0);
    /// The longest span, `u64::MAX` ns (about 584 years).
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    /// A span of `ns` nanoseconds.
    pub const fn from_nanos(ns: u64) -> Self {
        SimDuration(ns)
    }
    /// A span of `us` microseconds.
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * NS_PER_US)
    }
    /// A span of `ms` milliseconds.
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * NS_PER_MS)
    }
    /// A span of `s` seconds.
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * NS_PER_S)
    }
    /// A span of `m` minutes.
    pub const fn from_mins(m: u64) -> Self {
        SimDuration(m * NS_PER_MIN)
    }
    /// The span in nanoseconds.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds as a float, for reports only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    /// Milliseconds as a float, for reports only.
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / NS_PER_MS as f64
    }
    /// Whether the span is zero.
    pub fn is_zero(self) -> bool {
        self.0 == 0
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<SimTime> for SimTime {
    type Output = SimDuration;
    fn sub(self, earlier: SimTime) -> SimDuration {
        self.since(earlier)
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, o: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(o.0))
    }
}
impl AddAssign for SimDuration {
    fn add_assign(&mut self, o: SimDuration) {
        self.0 = self.0.saturating_add(o.0);
    }
}
impl Sub for SimDuration {
    type Output = SimDuration;
    fn sub(self, o: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(o.0))
    }
}
impl Mul<u64> for SimDuration {
    type Output = SimDuration;
    fn mul(self, k: u64) -> SimDuration {
        SimDuration(self.0.saturating_mul(k))
    }
}
impl Div<u64> for SimDuration {
    type Output = SimDuration;
    fn div(self, k: u64) -> SimDuration {
        SimDuration(self.0 / k)
    }
}

/// Writes `value` (a count of `scale` units) as a trimmed decimal: 81040000/1000000 -> "81.04".
pub(crate) fn write_decimal(f: &mut fmt::Formatter<'_>, value: u64, scale: u64) -> fmt::Result {
    let whole = value / scale;
    let mut frac = value % scale;
    if frac == 0 {
        return write!(f, "{whole}");
    }
    let mut width = scale.ilog10() as usize;
    while frac.is_multiple_of(10) {
        frac /= 10;
        width -= 1;
    }
    write!(f, "{whole}.{frac:0width$}")
}

impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        let (scale, unit) = if ns == 0 {
            (1, "s")
        } else if ns.is_multiple_of(NS_PER_H) {
            (NS_PER_H, "h")
        } else if ns.is_multiple_of(NS_PER_MIN) {
            (NS_PER_MIN, "min")
        } else if ns >= NS_PER_S {
            (NS_PER_S, "s")
        } else if ns >= NS_PER_MS {
            (NS_PER_MS, "ms")
        } else if ns >= NS_PER_US {
            (NS_PER_US, "us")
        } else {
            (1, "ns")
        };
        write_decimal(f, ns, scale)?;
        f.write_str(unit)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t={}", SimDuration(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_picks_exact_unit() {
        assert_eq!(SimDuration::from_nanos(81_040_000).to_string(), "81.04ms");
        assert_eq!(SimDuration::from_mins(10).to_string(), "10min");
        assert_eq!(SimDuration::from_millis(640).to_string(), "640ms");
        assert_eq!(SimDuration::from_millis(1500).to_string(), "1.5s");
        assert_eq!(SimDuration::from_nanos(100_000).to_string(), "100us");
        assert_eq!(SimDuration::from_nanos(7).to_string(), "7ns");
        assert_eq!(SimDuration::ZERO.to_string(), "0s");
        assert_eq!(SimTime::from_nanos(2_000_000_000).to_string(), "t=2s");
    }

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        assert_eq!(SimTime::MAX + SimDuration::from_secs(1), SimTime::MAX);
        assert_eq!(SimTime::ZERO - SimTime::from_nanos(5), SimDuration::ZERO);
    }
}
