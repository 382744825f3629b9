//! Time as an integer count of nanoseconds, and the exact decimals of the trace files.
//!
//! The time type is `nmc_sim`'s [`Nanos`] (re-exported here, shared with `nmc-probe`); it prints
//! as exact milliseconds (`312.5ms`). Durations typed by a user (estimator parameters, command-line
//! options) are parsed by `nmc_sim`'s one duration parser, which wants a unit: `200ms`, `30s`.
//!
//! Every instant and duration that crosses a module boundary in this crate is a [`Nanos`]:
//! send times in a trace, measured delays, and the timeout an estimator returns. Integer
//! nanoseconds hold an irtt timestamp exactly and round-trip through the CSV trace format
//! without loss. Estimators do their smoothing arithmetic in `f64` seconds (the gains are
//! fractions such as 15/16) and round the timeout they return to the nearest nanosecond; the
//! rounding is the only place a value is ever approximated.

pub use nmc_sim::Nanos;

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
}
