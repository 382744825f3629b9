//! Quantities with units: parse and print.
//!
//! Scenario files and the command line write quantities with their unit, the way the sources do:
//! `50kbit/s`, `230.4kb/s`, `640ms`, `10min`, `1008bit`, `126B`. A lower-case `b` is a bit, an
//! upper-case `B` an 8-bit byte (octet). Prefixes are decimal (`k` = 1000), as in line speeds;
//! a size may also be written in binary units, spelled as such (`KiB` = 1024 bytes, `MiB`,
//! `GiB`). Sizes on the instruments' command lines go through [`parse_bytes`], the same units
//! (issue 32: `nmc cost --sizes 64K` and `nmc pump --size 1K` meant 1024 where a scenario's
//! `kB` means 1000; a bare `K`, `M` or `G` is now refused, naming both readings).
//! Parsing is exact decimal arithmetic (no floating point), so `20.16ms` is exactly 20 160 000 ns
//! and `230.4kbit/s` exactly 230 400 bit/s; a value that is not a whole number of the base unit
//! (`0.5bit`, `0.1ns`) is an error rather than silently rounded.
//!
//! A bare number without a unit is an error too, everywhere (scenario files, command-line options,
//! `nmc-rto`'s estimator parameters): the one-line message suggests the unit, "`30` needs a unit:
//! 30s, 30ms, …".

use crate::limits::quoted;
use crate::time::{SimDuration, write_decimal};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// A quantity that could not be read: the text, and what was expected. One line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    /// A bare number: `30` where `30s` was meant. The message suggests units for it.
    #[error("`{}` needs a unit: {}", quoted(text), suggest(&quoted(text), units))]
    NoUnit {
        /// The number as written (trimmed).
        text: String,
        /// What was expected: `duration`, `length in bits`, `rate`, `size`.
        kind: &'static str,
        /// The units suggested, most likely first.
        units: &'static [&'static str],
    },
    /// Anything else: not a number, an unknown unit, out of range.
    #[error("`{}` is not a {kind}: {reason}", quoted(text))]
    Invalid {
        /// The text as given.
        text: String,
        /// What was expected: `duration`, `length in bits`, `rate`, `size`, `rate format`.
        kind: &'static str,
        /// Why it is not one, in a few words.
        reason: String,
    },
}

/// `30s, 30ms, …` for `30` and units `["s", "ms"]`.
fn suggest(text: &str, units: &[&str]) -> String {
    let num = text.trim();
    let mut s: Vec<String> = units.iter().map(|u| format!("{num}{u}")).collect();
    s.push("…".into());
    s.join(", ")
}

/// A line or interface speed in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BitRate(u64);

/// A length in bits (packets, messages, headers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bits(u64);

impl BitRate {
    /// A rate of `bps` bit/s.
    pub const fn from_bps(bps: u64) -> Self {
        BitRate(bps)
    }
    /// A rate of `kbps` kbit/s (1000 bit/s each).
    pub const fn from_kbps(kbps: u64) -> Self {
        BitRate(kbps * 1000)
    }
    /// The rate in bit/s.
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Time to clock `bits` onto a line of this speed, rounded up to the next nanosecond.
    #[inline]
    pub fn transmission_time(self, bits: Bits) -> SimDuration {
        assert!(
            self.0 > 0,
            "a line of zero speed never finishes a transmission"
        );
        // The same quotient in u64 when the product fits (any packet under 2 GB): a u128
        // division is a library call, and this runs once per packet per hop.
        if let Some(scaled) = bits.0.checked_mul(1_000_000_000) {
            return SimDuration::from_nanos(scaled.div_ceil(self.0));
        }
        let ns = (bits.0 as u128 * 1_000_000_000).div_ceil(self.0 as u128);
        SimDuration::from_nanos(ns.min(u64::MAX as u128) as u64)
    }
}

impl Bits {
    /// A length of `bits` bits.
    pub const fn new(bits: u64) -> Self {
        Bits(bits)
    }
    /// A length of `bytes` 8-bit bytes (octets).
    pub const fn from_bytes(bytes: u64) -> Self {
        Bits(bytes * 8)
    }
    /// The length in bits.
    pub const fn get(self) -> u64 {
        self.0
    }
}

const DURATION_UNITS: &[(&str, u128)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("sec", 1_000_000_000),
    ("min", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

const BIT_UNITS: &[(&str, u128)] = &[
    ("bit", 1),
    ("bits", 1),
    ("b", 1),
    ("kbit", 1_000),
    ("kb", 1_000),
    ("Mbit", 1_000_000),
    ("Mb", 1_000_000),
    ("Gbit", 1_000_000_000),
    ("Gb", 1_000_000_000),
    ("B", 8),
    ("byte", 8),
    ("bytes", 8),
    ("octet", 8),
    ("octets", 8),
    ("kB", 8_000),
    ("MB", 8_000_000),
    ("GB", 8_000_000_000),
    ("KiB", 8 << 10),
    ("MiB", 8 << 20),
    ("GiB", 8 << 30),
];

/// Splits `12.5ms` into the decimal number and the unit, and scales it exactly. `suggested`
/// are the units a bare number's message proposes.
fn parse_scaled(
    text: &str,
    kind: &'static str,
    units: &[(&str, u128)],
    suggested: &'static [&'static str],
) -> Result<u64, UnitError> {
    let err = |reason: String| UnitError::Invalid {
        text: text.to_string(),
        kind,
        reason,
    };
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = (&t[..split], t[split..].trim());
    let expected = || units.iter().map(|(u, _)| *u).collect::<Vec<_>>().join(", ");
    if t.starts_with('-') {
        return Err(err("a negative value has no meaning here".into()));
    }
    // `1e400kbit/s`: an exponent, not a unit `e400kbit/s`.
    if !num.is_empty()
        && let Some(after) = unit.strip_prefix(['e', 'E'])
        && after.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+')
    {
        return Err(err(format!(
            "write the number in full, without an exponent (`{}e…` is not accepted)",
            quoted(num)
        )));
    }
    if num.is_empty() {
        return Err(err("it does not start with a number".into()));
    }
    if unit.is_empty() {
        return Err(UnitError::NoUnit {
            text: t.to_string(),
            kind,
            units: suggested,
        });
    }
    let scale = lookup(units, unit).ok_or_else(|| {
        err(format!(
            "unknown unit `{unit}` (expected one of {})",
            expected()
        ))
    })?;
    let (whole, frac) = num.split_once('.').unwrap_or((num, ""));
    if whole.is_empty() && frac.is_empty() || frac.contains('.') {
        return Err(err(format!("`{}` is not a decimal number", quoted(num))));
    }
    let digits: String = format!("{whole}{frac}");
    let mantissa: u128 = digits
        .parse()
        .map_err(|_| err(format!("`{}` is too large or not a number", quoted(num))))?;
    let denom = 10u128
        .checked_pow(frac.len() as u32)
        .ok_or_else(|| err("too many decimal places".into()))?;
    let scaled = mantissa
        .checked_mul(scale)
        .ok_or_else(|| err("value too large".into()))?;
    if scaled % denom != 0 {
        return Err(err(format!(
            "not a whole number of the base unit ({} per {unit})",
            scale
        )));
    }
    u64::try_from(scaled / denom).map_err(|_| err("value too large".into()))
}

fn lookup(units: &[(&str, u128)], unit: &str) -> Option<u128> {
    units.iter().find(|(u, _)| *u == unit).map(|(_, s)| *s)
}

impl FromStr for SimDuration {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        parse_scaled(s, "duration", DURATION_UNITS, &["s", "ms", "us", "min"])
            .map(SimDuration::from_nanos)
    }
}

impl FromStr for Bits {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        parse_scaled(s, "length in bits", BIT_UNITS, &["bit", "B"]).map(Bits)
    }
}

/// A size in bytes, as the instruments' options take it (`nmc cost --sizes`, `nmc pump
/// --size`): a bare whole number is bytes (`56280`); otherwise a length in any unit a scenario
/// takes (`200MB` and `1.5kB` decimal, `64KiB` and `10MiB` binary, `8064bit`), which must come
/// to whole bytes. `K`, `M` and `G` alone are refused: they meant 1024 in some tools and 1000 in
/// others, so the message names both.
pub fn parse_bytes(text: &str) -> Result<u64, UnitError> {
    let t = text.trim();
    let err = |reason: String| UnitError::Invalid {
        text: text.to_string(),
        kind: "size",
        reason,
    };
    if !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()) {
        return t
            .parse()
            .map_err(|_| err("too large a number of bytes".into()));
    }
    for (bare, binary, decimal, factor) in [
        ('K', "KiB", "kB", 1u64 << 10),
        ('k', "KiB", "kB", 1 << 10),
        ('M', "MiB", "MB", 1 << 20),
        ('G', "GiB", "GB", 1 << 30),
    ] {
        if let Some(num) = t.strip_suffix(bare)
            && let Ok(n) = num.parse::<u64>()
        {
            let (b, d) = (
                n.saturating_mul(factor),
                n.saturating_mul(factor_decimal(factor)),
            );
            return Err(err(format!(
                "write {num}{binary} ({b} bytes) or {num}{decimal} ({d} bytes)"
            )));
        }
    }
    let bits: Bits = parse_scaled(t, "size", BIT_UNITS, &["B", "kB", "KiB"])
        .map(Bits)
        .map_err(|e| match e {
            UnitError::Invalid { reason, .. } => err(reason),
            other => other,
        })?;
    if !bits.get().is_multiple_of(8) {
        return Err(err(format!(
            "{} bits is not a whole number of bytes",
            bits.get()
        )));
    }
    Ok(bits.get() / 8)
}

/// A count per unit of time, in per second (the servers' `--rate 100/s`): `50/s`, `3000/min`,
/// `360000/h`, or a bare number of per second (`2.5`); positive and finite. The one reader of
/// such rates (issue 32).
pub fn parse_per_second(text: &str) -> Result<f64, UnitError> {
    let t = text.trim();
    let err = |reason: &str| UnitError::Invalid {
        text: text.to_string(),
        kind: "rate",
        reason: reason.to_string(),
    };
    let (num, per) = match t.split_once('/') {
        Some((n, u)) => match u.trim() {
            "s" => (n, 1.0),
            "min" => (n, 60.0),
            "h" => (n, 3600.0),
            _ => return Err(err("expected a count per second, e.g. 50/s (or /min, /h)")),
        },
        None => (t, 1.0),
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v / per),
        Ok(_) => Err(err("it must be positive")),
        Err(_) => Err(err("expected a count per second, e.g. 50/s (or /min, /h)")),
    }
}

/// Why [`parse_range`] refused a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeError<T> {
    /// Neither `N` nor `LO..HI` with numbers.
    NotARange,
    /// `LO..HI` with `HI < LO`.
    Empty {
        /// The low end as read.
        lo: T,
        /// The high end as read, below `lo`.
        hi: T,
    },
}

/// A range of numbers, both ends included: `3..4` (or `3..=4`), or one number `3` for `3..3`
/// (the probe's lengths, a mesh's degrees). The one reader of ranges (issue 32); each caller
/// words its own error from the [`RangeError`].
pub fn parse_range<T>(text: &str) -> Result<(T, T), RangeError<T>>
where
    T: FromStr + PartialOrd + Copy,
{
    let num = |x: &str| x.trim().parse::<T>().map_err(|_| RangeError::NotARange);
    let t = text.trim();
    let (lo, hi) = match t.split_once("..") {
        Some((a, b)) => (num(a)?, num(b.strip_prefix('=').unwrap_or(b))?),
        None => {
            let n = num(t)?;
            (n, n)
        }
    };
    if hi < lo {
        return Err(RangeError::Empty { lo, hi });
    }
    Ok((lo, hi))
}

/// A plain number or a fraction, `0.875` or `7/8` (the estimators' gains, `nmc rto sweep`'s
/// axes): finite, and a fraction's denominator not zero; `None` otherwise. The one reader of
/// fractions (issue 32: two copies disagreed on `a/0`).
pub fn parse_fraction(text: &str) -> Option<f64> {
    let t = text.trim();
    if let Some((a, b)) = t.split_once('/') {
        let (a, b): (f64, f64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
        (b != 0.0).then_some(a / b).filter(|x| x.is_finite())
    } else {
        t.parse().ok().filter(|x: &f64| x.is_finite())
    }
}

/// How an instrument prints a throughput (issue 34): scaled to the value (`17.2 Gbit/s`, three
/// significant figures, as iperf3 prints) or in one fixed unit (`--format kbit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RateFormat {
    /// Scaled to the value, in bit/s, kbit/s, Mbit/s or Gbit/s, three significant figures.
    #[default]
    Auto,
    /// Always in bit/s, one decimal.
    Bit,
    /// Always in kbit/s (1000 bit/s), one decimal.
    Kbit,
    /// Always in Mbit/s (10⁶ bit/s), one decimal.
    Mbit,
    /// Always in Gbit/s (10⁹ bit/s), one decimal.
    Gbit,
}

impl FromStr for RateFormat {
    type Err = UnitError;
    /// `auto`, `bit`, `kbit`, `Mbit`, `Gbit`, or iperf3's letters `b`, `k`, `m`, `g`.
    fn from_str(s: &str) -> Result<Self, UnitError> {
        Ok(match s.trim() {
            "auto" | "a" => RateFormat::Auto,
            "bit" | "b" => RateFormat::Bit,
            "kbit" | "k" => RateFormat::Kbit,
            "Mbit" | "mbit" | "m" => RateFormat::Mbit,
            "Gbit" | "gbit" | "g" => RateFormat::Gbit,
            _ => {
                return Err(UnitError::Invalid {
                    text: s.to_string(),
                    kind: "rate format",
                    reason: "expected auto, bit, kbit, Mbit or Gbit (or k, m, g)".into(),
                });
            }
        })
    }
}

impl RateFormat {
    /// `bps` in this format: `17.2 Gbit/s`, `943 Mbit/s`, `1.05 kbit/s` (auto), or `1234.5
    /// kbit/s` (fixed: one decimal).
    pub fn show(self, bps: f64) -> String {
        let (scale, unit) = match self {
            RateFormat::Bit => (1.0, "bit/s"),
            RateFormat::Kbit => (1e3, "kbit/s"),
            RateFormat::Mbit => (1e6, "Mbit/s"),
            RateFormat::Gbit => (1e9, "Gbit/s"),
            RateFormat::Auto => {
                let a = bps.abs();
                let (scale, unit) = if a >= 1e9 {
                    (1e9, "Gbit/s")
                } else if a >= 1e6 {
                    (1e6, "Mbit/s")
                } else if a >= 1e3 {
                    (1e3, "kbit/s")
                } else {
                    (1.0, "bit/s")
                };
                let v = bps / scale;
                let decimals = if !v.is_finite() || v.abs() >= 99.95 {
                    0
                } else if v.abs() >= 9.995 {
                    1
                } else {
                    2
                };
                return format!("{v:.decimals$} {unit}");
            }
        };
        format!("{:.1} {unit}", bps / scale)
    }
}

/// 1000ⁿ for 1024ⁿ.
fn factor_decimal(binary: u64) -> u64 {
    match binary {
        1024 => 1_000,
        1_048_576 => 1_000_000,
        _ => 1_000_000_000,
    }
}

const RATE_UNITS: &[(&str, u128)] = &[
    ("bit/s", 1),
    ("b/s", 1),
    ("bps", 1),
    ("kbit/s", 1_000),
    ("kb/s", 1_000),
    ("kbps", 1_000),
    ("Mbit/s", 1_000_000),
    ("Mb/s", 1_000_000),
    ("Mbps", 1_000_000),
    ("Gbit/s", 1_000_000_000),
    ("Gb/s", 1_000_000_000),
    ("B/s", 8),
    ("kB/s", 8_000),
    ("MB/s", 8_000_000),
];

impl FromStr for BitRate {
    type Err = UnitError;
    fn from_str(s: &str) -> Result<Self, UnitError> {
        let bps = parse_scaled(s, "rate", RATE_UNITS, &["kbit/s", "bit/s", "Mbit/s"])?;
        if bps == 0 {
            return Err(UnitError::Invalid {
                text: s.to_string(),
                kind: "rate",
                reason: "a rate must be above zero".into(),
            });
        }
        Ok(BitRate(bps))
    }
}

impl fmt::Display for BitRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (scale, unit) = match self.0 {
            b if b >= 1_000_000_000 => (1_000_000_000, "Gbit/s"),
            b if b >= 1_000_000 => (1_000_000, "Mbit/s"),
            b if b >= 1_000 => (1_000, "kbit/s"),
            _ => (1, "bit/s"),
        };
        write_decimal(f, self.0, scale)?;
        f.write_str(unit)
    }
}

impl fmt::Display for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}bit", self.0)
    }
}

macro_rules! serde_via_text {
    ($t:ty) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = $t;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        write!(
                            f,
                            "a quantity with its unit as a string, e.g. \"{}\"",
                            <$t>::EXAMPLE
                        )
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$t, E> {
                        v.parse().map_err(E::custom)
                    }
                }
                d.deserialize_str(V)
            }
        }
    };
}

trait Example {
    const EXAMPLE: &'static str;
}
impl Example for SimDuration {
    const EXAMPLE: &'static str = "640ms";
}
impl Example for BitRate {
    const EXAMPLE: &'static str = "50kbit/s";
}
impl Example for Bits {
    const EXAMPLE: &'static str = "1008bit";
}

serde_via_text!(SimDuration);
serde_via_text!(BitRate);
serde_via_text!(Bits);

#[cfg(test)]
mod tests {
    #[test]
    fn rates_scale_as_iperf3_prints_them() {
        use super::RateFormat;
        let a = RateFormat::Auto;
        assert_eq!(a.show(17_232_717_400.0), "17.2 Gbit/s");
        assert_eq!(a.show(943_000_000.0), "943 Mbit/s");
        assert_eq!(a.show(1_049_000.0), "1.05 Mbit/s");
        assert_eq!(a.show(327_680.0), "328 kbit/s");
        assert_eq!(a.show(999.0), "999 bit/s");
        assert_eq!(a.show(0.0), "0.00 bit/s");
        assert_eq!(RateFormat::Kbit.show(17_232_717_400.0), "17232717.4 kbit/s");
        assert_eq!("k".parse::<RateFormat>(), Ok(RateFormat::Kbit));
        assert_eq!("Mbit".parse::<RateFormat>(), Ok(RateFormat::Mbit));
        assert!(
            "KB".parse::<RateFormat>()
                .unwrap_err()
                .to_string()
                .contains("expected auto")
        );
    }

    #[test]
    fn fractions() {
        use super::parse_fraction;
        assert_eq!(parse_fraction("7/8"), Some(0.875));
        assert_eq!(parse_fraction(" 0.25 "), Some(0.25));
        assert_eq!(parse_fraction("3 / 2"), Some(1.5));
        for bad in ["1/0", "x", "1/2/3", "inf", "NaN", ""] {
            assert_eq!(parse_fraction(bad), None, "{bad}");
        }
    }

    /// Issue 32: one reading of a size everywhere; the ambiguous `K` is refused, naming both.
    #[test]
    fn sizes_read_one_way() {
        use super::parse_bytes;
        assert_eq!(parse_bytes("56280"), Ok(56_280));
        assert_eq!(parse_bytes("64KiB"), Ok(65_536));
        assert_eq!(parse_bytes("64kB"), Ok(64_000));
        assert_eq!(parse_bytes("10MiB"), Ok(10 << 20));
        assert_eq!(parse_bytes("200MB"), Ok(200_000_000));
        assert_eq!(parse_bytes("1.5kB"), Ok(1_500));
        assert_eq!(parse_bytes("8064bit"), Ok(1_008));
        assert_eq!(parse_bytes(" 126B "), Ok(126));
        let e = parse_bytes("64K").unwrap_err().to_string();
        assert_eq!(
            e,
            "`64K` is not a size: write 64KiB (65536 bytes) or 64kB (64000 bytes)"
        );
        assert!(
            parse_bytes("1M")
                .unwrap_err()
                .to_string()
                .contains("1MiB (1048576 bytes)")
        );
        for bad in ["12x", "", "4bit", "-3", "1kg", "99999999999999999999999"] {
            let e = parse_bytes(bad).unwrap_err().to_string();
            assert!(e.contains("is not a size"), "{bad}: {e}");
        }
    }

    use super::*;

    #[test]
    fn rates_per_second_and_ranges() {
        assert_eq!(parse_per_second("50/s").unwrap(), 50.0);
        assert_eq!(parse_per_second(" 2.5 ").unwrap(), 2.5);
        assert_eq!(parse_per_second("3000/min").unwrap(), 50.0);
        assert_eq!(parse_per_second("360000/h").unwrap(), 100.0);
        for bad in ["fast", "0/s", "-1/s", "50/day", "inf/s", ""] {
            let e = parse_per_second(bad).unwrap_err().to_string();
            assert!(e.contains("is not a rate"), "{bad}: {e}");
        }
        assert_eq!(parse_range::<u32>("3..4"), Ok((3, 4)));
        assert_eq!(parse_range::<u32>(" 3 ..= 4 "), Ok((3, 4)));
        assert_eq!(parse_range::<u32>("7"), Ok((7, 7)));
        assert_eq!(
            parse_range::<u32>("4..3"),
            Err(RangeError::Empty { lo: 4, hi: 3 })
        );
        for bad in ["a..4", "3..", "..", "-1..2", "3...4", "big"] {
            assert_eq!(parse_range::<u32>(bad), Err(RangeError::NotARange), "{bad}");
        }
    }

    #[test]
    fn parses_the_sources_forms() {
        assert_eq!("50kbit/s".parse::<BitRate>().unwrap().bps(), 50_000);
        assert_eq!("230.4kb/s".parse::<BitRate>().unwrap().bps(), 230_400);
        assert_eq!("9600bps".parse::<BitRate>().unwrap().bps(), 9_600);
        assert_eq!(
            "640ms".parse::<SimDuration>().unwrap(),
            SimDuration::from_millis(640)
        );
        assert_eq!(
            "10min".parse::<SimDuration>().unwrap(),
            SimDuration::from_mins(10)
        );
        assert_eq!(
            "20.16ms".parse::<SimDuration>().unwrap().as_nanos(),
            20_160_000
        );
        assert_eq!("1008bit".parse::<Bits>().unwrap().get(), 1008);
        assert_eq!("126B".parse::<Bits>().unwrap().get(), 1008);
    }

    #[test]
    fn prints_what_it_parses() {
        for s in [
            "50kbit/s",
            "230.4kbit/s",
            "9.6kbit/s",
            "1.544Mbit/s",
            "300bit/s",
        ] {
            assert_eq!(s.parse::<BitRate>().unwrap().to_string(), s);
        }
        for s in ["640ms", "10min", "0.1ms", "81.04ms", "2s", "125ms"] {
            let d: SimDuration = s.parse().unwrap();
            assert_eq!(d.to_string().parse::<SimDuration>().unwrap(), d);
        }
    }

    #[test]
    fn rejects_with_reasons() {
        let e = "50".parse::<BitRate>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "`50` needs a unit: 50kbit/s, 50bit/s, 50Mbit/s, …"
        );
        let e = " 30 ".parse::<SimDuration>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "`30` needs a unit: 30s, 30ms, 30us, 30min, …"
        );
        let e = "50kbits/s".parse::<BitRate>().unwrap_err();
        assert!(e.to_string().contains("unknown unit `kbits/s`"), "{e}");
        assert!("0.5bit".parse::<Bits>().is_err());
        assert!("ms".parse::<SimDuration>().is_err());
        assert!("1.2.3ms".parse::<SimDuration>().is_err());
        assert!("0bit/s".parse::<BitRate>().is_err());
        let e = "1e400kbit/s".parse::<BitRate>().unwrap_err().to_string();
        assert!(e.contains("without an exponent"), "{e}");
        let e = "-5kbit/s".parse::<BitRate>().unwrap_err().to_string();
        assert!(e.contains("negative"), "{e}");
        let e = "-5ms".parse::<SimDuration>().unwrap_err().to_string();
        assert!(e.contains("negative"), "{e}");
        assert!("99999999999999999999999h".parse::<SimDuration>().is_err());
    }

    #[test]
    fn transmission_time_is_exact_for_arpanet_lines() {
        let pkt = Bits::new(1008);
        assert_eq!(
            BitRate::from_kbps(50).transmission_time(pkt).as_nanos(),
            20_160_000
        );
        assert_eq!(
            "230.4kbit/s"
                .parse::<BitRate>()
                .unwrap()
                .transmission_time(pkt)
                .as_nanos(),
            4_375_000
        );
    }

    proptest::proptest! {
        /// The u64 shortcut gives the u128 quotient wherever it is taken.
        #[test]
        fn transmission_time_shortcut_is_exact(bits in 0u64..u64::MAX, bps in 1u64..u64::MAX) {
            let wide = (bits as u128 * 1_000_000_000).div_ceil(bps as u128).min(u64::MAX as u128);
            proptest::prop_assert_eq!(
                BitRate(bps).transmission_time(Bits(bits)).as_nanos() as u128,
                wide
            );
        }

        #[test]
        fn duration_display_roundtrips(ns in 0u64..u64::MAX / 2) {
            let d = SimDuration::from_nanos(ns);
            proptest::prop_assert_eq!(d.to_string().parse::<SimDuration>().unwrap(), d);
        }
        #[test]
        fn rate_display_roundtrips(bps in 1u64..u64::MAX / 16) {
            let r = BitRate::from_bps(bps);
            proptest::prop_assert_eq!(r.to_string().parse::<BitRate>().unwrap(), r);
        }
        #[test]
        fn parser_never_panics(s in "\\PC{0,20}") {
            let _ = s.parse::<SimDuration>();
            let _ = s.parse::<BitRate>();
            let _ = s.parse::<Bits>();
        }
    }
}
