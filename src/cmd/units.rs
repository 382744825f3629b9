//! The one place the command line reads rates, sizes and durations (issue 75 §4): nmc's own
//! units, as scenario files write them (`10Mbit/s`, `64KiB`, `64kB`, `2016bit`, `10s`,
//! `200ms`), and the forms iperf3 users type:
//!
//! | kind | nmc's units | iperf3's forms, as iperf3 reads them |
//! | --- | --- | --- |
//! | rate (`-b`, `--rate`) | `bit/s`, `kbit/s`, `Mbit/s`, `Gbit/s` (`b/s`, `bps`, `kb/s`, `kbps`, …), `B/s`, `kB/s`, `MB/s` | `10M` = 10 Mbit/s: bits, `K`/`M`/`G`/`T` × 1000 (either case); a bare number is bit/s |
//! | size (`--size`, `-w`, `--sizes`, …) | `B`, `kB`, `MB`, `GB` (× 1000), `KiB`, `MiB`, `GiB` (× 1024), `bit` | `64K` = 64 KiB: bytes, `K`/`M`/`G`/`T` × 1024 (either case); a bare number is bytes |
//! | duration (`-t`, `-i`, `--timeout`, …) | `ns`, `us`, `ms`, `s`, `min`, `h` | a bare number is seconds: `-t 10`, `-i 0.5` |
//!
//! `docs/src/reference/cli.md#units-on-the-command-line` states the same rules for users. Every form is exact
//! decimal arithmetic (nmc_sim's parser does the scaling), and a refused text is one line that
//! names the forms accepted.

use nmc_sim::{BitRate, Bits, SimDuration, UnitError};

/// What the forms of each kind are, for the end of an error.
const RATE_FORMS: &str = "give a rate such as 10Mbit/s, 500kbit/s, 1Gbit/s, or as iperf3 -b: 10M, 500k (bits, ×1000), or a bare number of bit/s";
const SIZE_FORMS: &str =
    "give a size such as 1008 (bytes), 64KiB, 64kB, or as iperf3 -l: 64K, 1M (×1024)";
const DURATION_FORMS: &str =
    "give a duration such as 10s, 200ms, 2min, or as iperf3 -t: a bare number of seconds";

/// iperf3's suffix letters and their power (K = 1, M = 2, G = 3, T = 4), either case.
fn iperf3_suffix(t: &str) -> Option<(&str, u32)> {
    let last = t.chars().last()?;
    let power = match last.to_ascii_uppercase() {
        'K' => 1,
        'M' => 2,
        'G' => 3,
        'T' => 4,
        _ => return None,
    };
    let num = &t[..t.len() - 1];
    is_number(num).then_some((num, power))
}

/// A plain decimal number: digits with at most one point, and at least one digit.
fn is_number(t: &str) -> bool {
    t.bytes().any(|c| c.is_ascii_digit())
        && t.bytes().all(|c| c.is_ascii_digit() || c == b'.')
        && t.bytes().filter(|&c| c == b'.').count() <= 1
}

/// The error nmc_sim gave for a rewritten text, with the text as the user wrote it, and the
/// forms accepted when the text was not one of them at all.
fn refused(e: UnitError, text: &str, forms: &str) -> String {
    let q = nmc_sim::limits::quoted(text);
    match e {
        UnitError::Invalid { kind, reason, .. } => {
            if let Some(unit) = reason.strip_prefix("unknown unit ") {
                // `unknown unit `x` (expected one of …)`: the unit, then the forms in short.
                let unit = unit.split(" (expected").next().unwrap_or(unit);
                format!("`{q}` is not a {kind}: unknown unit {unit}; {forms}")
            } else if reason.starts_with("it does not start") {
                format!("`{q}` is not a {kind}: {forms}")
            } else {
                format!("`{q}` is not a {kind}: {reason}")
            }
        }
        UnitError::NoUnit { kind, .. } => format!("`{q}` is not a {kind}: {forms}"),
    }
}

fn too_large(s: &str, kind: &str) -> String {
    format!(
        "`{}` is not a {kind}: value too large",
        nmc_sim::limits::quoted(s)
    )
}

/// A rate in bit/s: nmc's units (`10Mbit/s`), iperf3's (`10M` = 10,000,000 bit/s: rates are in
/// bits and `K`, `M`, `G`, `T` are powers of 1000), or a bare number of bit/s; above zero.
pub fn rate(s: &str) -> Result<BitRate, String> {
    let t = s.trim();
    // nmc_sim has no Tbit/s: `1T` is read as 1Gbit/s and scaled by 1000.
    let (rewritten, times) = match iperf3_suffix(t) {
        Some((num, power)) => (
            format!(
                "{num}{}",
                ["", "kbit/s", "Mbit/s", "Gbit/s", "Gbit/s"][power as usize]
            ),
            if power == 4 { 1000 } else { 1 },
        ),
        None if is_number(t) => (format!("{t}bit/s"), 1),
        None => (t.to_string(), 1),
    };
    let r = rewritten
        .parse::<BitRate>()
        .map_err(|e| refused(e, s, RATE_FORMS))?;
    r.bps()
        .checked_mul(times)
        .map(BitRate::from_bps)
        .ok_or_else(|| too_large(s, "rate"))
}

/// A size in bytes: a bare number of bytes, nmc's units (`64KiB` = 65,536, `64kB` = 64,000,
/// `8064bit`), or iperf3's `64K` (= 64KiB: `K`, `M`, `G`, `T` are powers of 1024, as iperf3
/// reads `-l` and `-w`). It must come to whole bytes.
pub fn size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    // nmc_sim has no TiB: `1T` is read as 1GiB and scaled by 1024.
    let (rewritten, times) = match iperf3_suffix(t) {
        Some((num, power)) => (
            format!("{num}{}", ["", "KiB", "MiB", "GiB", "GiB"][power as usize]),
            if power == 4 { 1024 } else { 1 },
        ),
        None => (t.to_string(), 1),
    };
    nmc_sim::parse_bytes(&rewritten)
        .map_err(|e| refused(e, s, SIZE_FORMS))?
        .checked_mul(times)
        .ok_or_else(|| too_large(s, "size"))
}

/// A length in bits, for the options that count bits as RFC 508 did (`nmc stream --buffer
/// 2016bit`): a size as [`size`] reads it (a bare number is bytes, `64K` is 64KiB, `252B`), or
/// nmc's bit units (`2016bit`, `2kbit`).
pub fn length(s: &str) -> Result<Bits, String> {
    let t = s.trim();
    if is_number(t) || iperf3_suffix(t).is_some() {
        let bytes = size(s)?;
        return bytes
            .checked_mul(8)
            .map(Bits::new)
            .ok_or_else(|| too_large(s, "size"));
    }
    t.parse::<Bits>().map_err(|e| refused(e, s, SIZE_FORMS))
}

/// A duration: nmc's units (`10s`, `200ms`, `2min`) or, as iperf3 reads `-t` and `-i`, a bare
/// number of seconds (`10`, `0.5`).
pub fn duration(s: &str) -> Result<SimDuration, String> {
    let t = s.trim();
    let rewritten = if is_number(t) {
        format!("{t}s")
    } else {
        t.to_string()
    };
    rewritten
        .parse::<SimDuration>()
        .map_err(|e| refused(e, s, DURATION_FORMS))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NS: u64 = 1_000_000_000;

    #[test]
    fn rates() {
        let ok: &[(&str, u64)] = &[
            // iperf3's forms: bits, ×1000, either case; a bare number is bit/s.
            ("10M", 10_000_000),
            ("10m", 10_000_000),
            ("1.5M", 1_500_000),
            ("500k", 500_000),
            ("500K", 500_000),
            ("1G", 1_000_000_000),
            ("2g", 2_000_000_000),
            ("1T", 1_000_000_000_000),
            ("1000000", 1_000_000),
            // nmc's units, as before.
            ("10Mbit/s", 10_000_000),
            ("30kbit/s", 30_000),
            ("230.4kbit/s", 230_400),
            ("10Mbps", 10_000_000),
            ("1MB/s", 8_000_000),
            ("100B/s", 800),
            (" 10M ", 10_000_000),
        ];
        for &(text, bps) in ok {
            assert_eq!(rate(text).map(|r| r.bps()), Ok(bps), "{text}");
        }
        let refused: &[(&str, &str)] = &[
            ("2400.5", "whole number"),
            ("0", "above zero"),
            ("0M", "above zero"),
            ("10x", "10M, 500k"),
            ("fast", "10M, 500k"),
            ("-10M", "negative"),
            ("10kbits/s", "bare number of bit/s"),
            ("M", "10M, 500k"),
            ("1.2.3M", "10M, 500k"),
            ("", "10M, 500k"),
            ("99999999999999999999M", "large"),
            ("99999999999T", "large"),
        ];
        for &(text, why) in refused {
            let e = rate(text).expect_err(text);
            assert!(e.contains(why), "{text}: `{e}` lacks `{why}`");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn sizes() {
        let ok: &[(&str, u64)] = &[
            // iperf3's forms: bytes, ×1024, either case; a bare number is bytes.
            ("64K", 64 << 10),
            ("64k", 64 << 10),
            ("1M", 1 << 20),
            ("1m", 1 << 20),
            ("0.5K", 512),
            ("2G", 2 << 30),
            ("1T", 1 << 40),
            ("1008", 1008),
            // nmc's units, as before: kB decimal, KiB binary.
            ("64KiB", 64 << 10),
            ("64kB", 64_000),
            ("10MB", 10_000_000),
            ("10MiB", 10 << 20),
            ("126B", 126),
            ("8064bit", 1008),
            ("1.5kB", 1500),
        ];
        for &(text, bytes) in ok {
            assert_eq!(size(text), Ok(bytes), "{text}");
        }
        let refused: &[(&str, &str)] = &[
            ("0.3K", "whole number"),
            ("12bit", "whole number of bytes"),
            ("big", "64K, 1M"),
            ("64Q", "64K, 1M"),
            ("-1K", "negative"),
            ("64KB", "64K, 1M"),
            ("", "64K, 1M"),
            ("99999999999999999999", "large"),
            ("99999999999T", "large"),
            ("9999999999T", "large"),
        ];
        for &(text, why) in refused {
            let e = size(text).expect_err(text);
            assert!(e.contains(why), "{text}: `{e}` lacks `{why}`");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn lengths() {
        let ok: &[(&str, u64)] = &[
            ("2016bit", 2016),
            ("252B", 2016),
            ("252", 2016),
            ("1K", 8192),
            ("1KiB", 8192),
            ("1kbit", 1000),
            ("0bit", 0),
        ];
        for &(text, bits) in ok {
            assert_eq!(length(text).map(|b| b.get()), Ok(bits), "{text}");
        }
        for text in ["2016x", "bits"] {
            let e = length(text).expect_err(text);
            assert!(e.contains("64K, 1M"), "{text}: {e}");
        }
    }

    #[test]
    fn durations() {
        let ok: &[(&str, u64)] = &[
            // iperf3's -t and -i: a bare number is seconds.
            ("10", 10 * NS),
            ("0.5", NS / 2),
            ("0", 0),
            // nmc's units, as before.
            ("10s", 10 * NS),
            ("200ms", 200_000_000),
            ("2min", 120 * NS),
            ("1h", 3600 * NS),
            ("20.16ms", 20_160_000),
            ("5us", 5_000),
        ];
        for &(text, ns) in ok {
            assert_eq!(duration(text).map(|d| d.as_nanos()), Ok(ns), "{text}");
        }
        let refused: &[(&str, &str)] = &[
            ("10x", "bare number of seconds"),
            ("ten", "bare number of seconds"),
            ("-1", "negative"),
            ("1e3", "exponent"),
            ("0.0000000001", "whole number"),
            ("", "bare number of seconds"),
        ];
        for &(text, why) in refused {
            let e = duration(text).expect_err(text);
            assert!(e.contains(why), "{text}: `{e}` lacks `{why}`");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
