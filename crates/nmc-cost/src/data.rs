//! The Utah-10 accounting tables of RFC 392 (pages 4–6), as data, and their own consistency.
//!
//! The file `data/rfc392-utah10.csv` is a transcription of both tables as printed (its header
//! names the source). [`parse`] reads it and rejects any malformed or truncated row with an error
//! naming the line and the table row; nothing is dropped silently. [`consistency`] checks each
//! row's columns against each other with the formulas of RFC 392 §II, at the printed precision.
//!
//! What the paper says and what it prints differ in three ways, all kept:
//! - Column 4's formula is printed upside down: "Bits per second = (real-time)/((number of
//!   bytes)*8)". The printed values are bytes × 8 / real time.
//! - Column 5's formula, "(chargeable runtime)*1000/((number of bytes)*8)", gives µs/bit only if
//!   the runtime is in milliseconds; column 2 is printed in seconds.
//! - The clock column is whole seconds, truncated (the bits/s column implies the fraction); one
//!   row's clock time disagrees with its bits/s, and a few rows' µs/bit disagree with their CPU
//!   time by more than the printed rounding allows ([`consistency`] names them).
//!
//! The issue that asked for this transcription counts 75 transfers; the tables print 77 rows
//! (30 in the first, 47 in the second).

use serde::Serialize;
use std::fmt;

/// The transcription, compiled in.
pub const UTAH10_CSV: &str = include_str!("../data/rfc392-utah10.csv");

/// The file name used in error messages.
pub const UTAH10_NAME: &str = "rfc392-utah10.csv";

/// Direction of a transfer (column 3's letter).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Dir {
    /// `s`: sent to UCLA (from disk to the network).
    Send,
    /// `r`: received from UCLA (from the network to disk).
    Receive,
}

impl Dir {
    /// Column 3's letter: `s` or `r`.
    pub fn letter(self) -> char {
        match self {
            Dir::Send => 's',
            Dir::Receive => 'r',
        }
    }
}

/// One row of a Utah-10 table, as printed.
#[derive(Clone, Debug, Serialize)]
pub struct Transfer {
    /// 1 = the 16–19 Sept table (printed first), 2 = the 13–16 Sept table.
    pub table: u8,
    /// Row number within its table, 1-based, in printed order.
    pub row: u32,
    /// Column 1 as printed (`mm:ss` or `ss`).
    pub clock_text: String,
    /// Column 1 in seconds.
    pub clock_s: u32,
    /// Column 2: chargeable CPU seconds.
    pub cpu_s: f64,
    /// Decimal places column 2 was printed with (2, once 3).
    pub cpu_decimals: u32,
    /// Column 3: 8-bit bytes.
    pub bytes: u64,
    /// Column 3's letter: sent or received.
    pub dir: Dir,
    /// Column 4 as printed.
    pub bits_per_s: f64,
    /// Column 5 as printed.
    pub us_per_bit: f64,
    /// Column 6: the 5-minute load average.
    pub load: f64,
}

impl Transfer {
    /// The bits moved: bytes × 8.
    pub fn bits(&self) -> f64 {
        self.bytes as f64 * 8.0
    }
    /// `T1 R5 (r)`: how the report names a row.
    pub fn label(&self) -> String {
        format!("T{} R{} ({})", self.table, self.row, self.dir.letter())
    }
}

/// A row that cannot be read.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{file}: line {line}{row}: {what}")]
pub struct DataError {
    /// The file's name.
    pub file: String,
    /// The line, 1-based.
    pub line: usize,
    /// ` (table T row R)` when those fields could be read.
    pub row: String,
    /// What is wrong with the line.
    pub what: String,
}

const HEADER: &str = "table,row,clk,cpu_s,bytes,dir,bits_per_s,us_per_bit,load";

/// Reads a transcription in the format of `data/rfc392-utah10.csv`: `#` comments, the header
/// line, then one row per transfer. Every row must have all nine fields, well formed; rows must
/// be numbered 1, 2, … within each table. The first bad row is an error naming it.
pub fn parse(file: &str, text: &str) -> Result<Vec<Transfer>, DataError> {
    let mut out: Vec<Transfer> = Vec::new();
    let mut header_seen = false;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |row: String, what: String| DataError {
            file: file.into(),
            line: line_no,
            row,
            what,
        };
        if !header_seen {
            if line != HEADER {
                return Err(err(
                    String::new(),
                    format!("expected the header `{HEADER}`, found `{line}`"),
                ));
            }
            header_seen = true;
            continue;
        }
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let ident = if f.len() >= 2 {
            format!(" (table {} row {})", f[0], f[1])
        } else {
            String::new()
        };
        if f.len() != 9 {
            return Err(err(
                ident,
                format!(
                    "{} fields, expected 9 ({HEADER}): the row is malformed or truncated",
                    f.len()
                ),
            ));
        }
        let t = parse_row(&f).map_err(|what| err(ident.clone(), what))?;
        let expected_row = out.iter().filter(|p| p.table == t.table).count() as u32 + 1;
        if t.row != expected_row {
            return Err(err(
                ident,
                format!(
                    "row number {} out of order: expected row {expected_row} of table {}",
                    t.row, t.table
                ),
            ));
        }
        if out.last().is_some_and(|p| p.table > t.table) {
            return Err(err(ident, "table 1 rows must come before table 2".into()));
        }
        out.push(t);
    }
    if !header_seen {
        return Err(DataError {
            file: file.into(),
            line: text.lines().count(),
            row: String::new(),
            what: format!("no header line `{HEADER}` and no rows"),
        });
    }
    if out.is_empty() {
        return Err(DataError {
            file: file.into(),
            line: text.lines().count(),
            row: String::new(),
            what: "no rows after the header".into(),
        });
    }
    Ok(out)
}

/// Both tables, from the compiled-in transcription.
pub fn utah10() -> Vec<Transfer> {
    parse(UTAH10_NAME, UTAH10_CSV).expect("the compiled-in transcription parses (tested)")
}

fn num(name: &str, s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("field `{name}` = `{s}`: not a non-negative number")),
    }
}

fn parse_row(f: &[&str]) -> Result<Transfer, String> {
    let table: u8 = match f[0] {
        "1" => 1,
        "2" => 2,
        s => return Err(format!("field `table` = `{s}`: expected 1 or 2")),
    };
    let row: u32 = f[1]
        .parse()
        .ok()
        .filter(|&r| r >= 1)
        .ok_or_else(|| format!("field `row` = `{}`: expected a row number from 1", f[1]))?;
    let clock_s = parse_clock(f[2])?;
    let cpu_s = num("cpu_s", f[3])?;
    let cpu_decimals = f[3].split_once('.').map_or(0, |(_, d)| d.len() as u32);
    let bytes: u64 = f[4]
        .parse()
        .ok()
        .filter(|&b| b >= 1)
        .ok_or_else(|| format!("field `bytes` = `{}`: expected a whole number ≥ 1", f[4]))?;
    let dir = match f[5] {
        "s" => Dir::Send,
        "r" => Dir::Receive,
        s => return Err(format!("field `dir` = `{s}`: expected `s` or `r`")),
    };
    Ok(Transfer {
        table,
        row,
        clock_text: f[2].to_string(),
        clock_s,
        cpu_s,
        cpu_decimals,
        bytes,
        dir,
        bits_per_s: num("bits_per_s", f[6])?,
        us_per_bit: num("us_per_bit", f[7])?,
        load: num("load", f[8])?,
    })
}

/// `ss` or `mm:ss`, as the tables print clock time.
fn parse_clock(s: &str) -> Result<u32, String> {
    let bad = || format!("field `clk` = `{s}`: expected `ss` or `mm:ss`");
    let two = |p: &str| -> Result<u32, String> {
        if p.is_empty() || p.len() > 2 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        p.parse().map_err(|_| bad())
    };
    match s.split_once(':') {
        Some((m, sec)) => {
            let sec = two(sec)?;
            if sec >= 60 {
                return Err(bad());
            }
            Ok(two(m)? * 60 + sec)
        }
        None => two(s),
    }
}

/// Which of a row's columns disagree with each other.
#[derive(Clone, Debug, Serialize)]
pub struct RowCheck {
    /// The row's table (1 or 2).
    pub table: u8,
    /// The row's number in its table.
    pub row: u32,
    /// Column 3's letter, `s` or `r`.
    pub dir: char,
    /// Column 3: 8-bit bytes.
    pub bytes: u64,
    /// Clock time implied by column 4: bytes × 8 / bits-per-second.
    pub clock_implied_s: f64,
    /// Column 1 as printed, seconds.
    pub clock_printed_s: u32,
    /// Column 1 is whole seconds, truncated: the implied time must lie in [printed, printed + 1).
    pub clock_agrees: bool,
    /// Column 5 recomputed from column 2: CPU × 10^6 / bits.
    pub us_per_bit_from_cpu: f64,
    /// Column 5 as printed, µs/bit.
    pub us_per_bit_printed: f64,
    /// CPU time implied by column 5: µs/bit × bits / 10^6.
    pub cpu_implied_s: f64,
    /// Column 2 as printed, chargeable CPU seconds.
    pub cpu_printed_s: f64,
    /// |implied − printed| CPU, seconds.
    pub cpu_gap_s: f64,
    /// What the printed rounding allows: half a unit of column 2's last digit plus half a unit
    /// of column 5's (0.005 µs/bit) times the bits.
    pub cpu_allowed_s: f64,
    /// Whether `cpu_gap_s` is within `cpu_allowed_s`.
    pub cpu_agrees: bool,
}

/// Checks each row's clock time against its bits/s and its CPU time against its µs/bit, at the
/// printed precision (see [`RowCheck`]).
pub fn consistency(rows: &[Transfer]) -> Vec<RowCheck> {
    rows.iter()
        .map(|t| {
            let bits = t.bits();
            let clock_implied_s = bits / t.bits_per_s;
            let cpu_implied_s = t.us_per_bit * bits / 1e6;
            let cpu_gap_s = (cpu_implied_s - t.cpu_s).abs();
            let cpu_allowed_s = 0.5 * 10f64.powi(-(t.cpu_decimals as i32)) + 0.005 * bits / 1e6;
            RowCheck {
                table: t.table,
                row: t.row,
                dir: t.dir.letter(),
                bytes: t.bytes,
                clock_implied_s,
                clock_printed_s: t.clock_s,
                clock_agrees: clock_implied_s >= f64::from(t.clock_s)
                    && clock_implied_s < f64::from(t.clock_s) + 1.0,
                us_per_bit_from_cpu: t.cpu_s * 1e6 / bits,
                us_per_bit_printed: t.us_per_bit,
                cpu_implied_s,
                cpu_printed_s: t.cpu_s,
                cpu_gap_s,
                cpu_allowed_s,
                cpu_agrees: cpu_gap_s <= cpu_allowed_s + 1e-9,
            }
        })
        .collect()
}

impl fmt::Display for RowCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "T{} R{} ({})", self.table, self.row, self.dir)?;
        if !self.clock_agrees {
            write!(
                f,
                ": clock printed {} s, bits/s implies {:.2} s ({:+.2} s)",
                self.clock_printed_s,
                self.clock_implied_s,
                self.clock_implied_s - f64::from(self.clock_printed_s)
            )?;
        }
        if !self.cpu_agrees {
            write!(
                f,
                ": CPU printed {} s, µs/bit implies {:.4} s ({:+.4} s, rounding allows ±{:.4}); \
                 µs/bit from the CPU column {:.2} against {:.2} printed",
                self.cpu_printed_s,
                self.cpu_implied_s,
                self.cpu_implied_s - self.cpu_printed_s,
                self.cpu_allowed_s,
                self.us_per_bit_from_cpu,
                self.us_per_bit_printed
            )?;
        }
        Ok(())
    }
}
