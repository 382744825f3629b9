//! A per-transfer set-up from a second 1973 host: MIT's ITS FTP (RFC 573), used as an analogue
//! for the set-up RFC 392 does not give.
//!
//! RFC 392's Utah tables show that short transfers cost more per bit (127–180 µs/bit under 900
//! bytes against 75–85 above), but nothing in RFC 392 says what a transfer's fixed cost is, and
//! every short row is in one table (table 2): a set-up fitted on the other table has nothing to
//! see it by. TENEX's per-call costs are not published (`../shared/spec/SOURCES.md`). RFC 573
//! (Bhushan, MIT, Sept 1973) Table III prints, for 27 files moved by the FTP-user program of
//! MIT's CALICO subsystem, the bits moved and the CPU microseconds per bit the program used
//! (transcribed in `data/rfc573-table3.csv`). A fixed CPU cost per transfer shows there the same
//! way it does in RFC 392: the 320-bit file cost 369 µs/bit, the 286,720-bit one 29.
//!
//! **The rule, chosen before it was applied to RFC 392** (the RFC 573 rows were read first;
//! what the set-up would do to RFC 392's rows was not known):
//! - The per-bit cost of an ASCII-8 transfer, `b`: the M/B of the largest ASCII-8 transfer in
//!   Table III (286,720 bits, 29 µs/bit), whose CPU a set-up of order 0.1 s changes by under
//!   2 % ([`PerBit::LargestAscii`]).
//! - The set-up: the mean over Table III's five MLFL rows (short mail files of 5,600 bits to
//!   BBN-TENEXA and USC-ISI, all moved at 1,400–2,800 bit/s, so not dominated by waiting) of
//!   (M/B − `b`) × bits.
//! - Shown, not used: the same difference for every other row (`setup_by_row`), among them the
//!   320-bit RETR, which is nearly all set-up. Not used for the estimate: image-mode rows
//!   (36-bit bytes, another per-bit path) and the slow ASCII RETRs from SRI-ARC (166–454 bit/s:
//!   RFC 573 §III says SRI-ARC converted those NLS files "on the fly", so the user program's
//!   cost is mostly its waiting).
//! - The variant [`PerBit::TableTwo`] takes `b` instead from Table II's ASCII-8 line (81 files,
//!   4.0 Mbit, 19 CPU-s per Mbit), solving that line and the MLFL mean together for `b` and the
//!   set-up: a second reading of the same source, shown beside the first.
//!
//! **Hypothesis (no source states it):** the ITS FTP-user program's CPU per transfer (the
//! command exchange, opening and closing the data connection and the file) stands for the Utah
//! RJS program's set-up on TENEX. Both ran on PDP-10 KA10 processors, a year apart; the
//! programs and the operating systems differ. [`crate::fit::Variant::SourcedSetup`] uses it.

use serde::Serialize;

/// The transcription, compiled in.
pub const TABLE3_CSV: &str = include_str!("../data/rfc573-table3.csv");

/// RFC 573 Table II, the ASCII-8 line: 81 files, 4.0 Mbit in all, 19 CPU-s per Mbit.
pub const TABLE2_ASCII8_FILES: f64 = 81.0;
/// RFC 573 Table II, the ASCII-8 line: Mbit moved.
pub const TABLE2_ASCII8_MBIT: f64 = 4.0;
/// RFC 573 Table II, the ASCII-8 line: CPU seconds per Mbit (µs per bit).
pub const TABLE2_ASCII8_US_PER_BIT: f64 = 19.0;

/// One row of RFC 573 Table III.
#[derive(Clone, Debug, Serialize)]
pub struct FtpRow {
    /// The foreign host, as printed (`sri-arc`).
    pub host: String,
    /// STOR, RETR or MLFL.
    pub comm: String,
    /// The date, as printed (`73/08/23`).
    pub date: String,
    /// The time of day, as printed.
    pub time: String,
    /// Bits moved.
    pub bits: u64,
    /// Column BPS: bits per second, real time.
    pub bps: u64,
    /// Column M/B: CPU µs per bit, printed as a whole number.
    pub us_per_bit: f64,
    /// FTP TYPE as printed (`A`, `I`, once `1`).
    pub ftp_type: String,
    /// FTP byte size, bits (8 for ASCII, 36 for image mode).
    pub byte: u32,
}

impl FtpRow {
    /// ASCII with 8-bit bytes (the RJS connection's byte size, RFC 392 §III).
    pub fn ascii8(&self) -> bool {
        self.ftp_type == "A" && self.byte == 8
    }
    /// `RETR 320 bits (sri-arc, 73/08/23)`: how the report names a row.
    pub fn label(&self) -> String {
        format!(
            "{} {} bits ({}, {})",
            self.comm, self.bits, self.host, self.date
        )
    }
}

/// A row of the transcription that cannot be read.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("rfc573-table3.csv: line {line}: {what}")]
pub struct TableError {
    /// The line, 1-based (0: the file as a whole).
    pub line: usize,
    /// What is wrong with it.
    pub what: String,
}

const HEADER: &str = "n,host,comm,date,time,bits,bps,us_per_bit,type,byte,prg";

/// Reads the transcription: `#` comments, the header, one row per file, eleven fields each.
pub fn parse(text: &str) -> Result<Vec<FtpRow>, TableError> {
    let mut out = Vec::new();
    let mut header = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |what: String| TableError { line: i + 1, what };
        if !header {
            if line != HEADER {
                return Err(err(format!("expected the header `{HEADER}`")));
            }
            header = true;
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 11 {
            return Err(err(format!("{} fields, expected 11", f.len())));
        }
        let num = |k: usize, name: &str| -> Result<u64, TableError> {
            f[k].parse::<u64>()
                .map_err(|_| err(format!("{name} `{}` is not a whole number", f[k])))
        };
        out.push(FtpRow {
            host: f[1].into(),
            comm: f[2].into(),
            date: f[3].into(),
            time: f[4].into(),
            bits: num(5, "bits")?,
            bps: num(6, "bps")?,
            us_per_bit: num(7, "M/B")? as f64,
            ftp_type: f[8].into(),
            byte: num(9, "byte")? as u32,
        });
    }
    if out.is_empty() {
        return Err(TableError {
            line: 0,
            what: "no rows".into(),
        });
    }
    Ok(out)
}

/// Table III, as printed.
pub fn table3() -> Vec<FtpRow> {
    parse(TABLE3_CSV).expect("the compiled-in transcription parses (tested)")
}

/// Where the per-bit cost of an ASCII-8 transfer comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum PerBit {
    /// The M/B of Table III's largest ASCII-8 transfer (the rule).
    LargestAscii,
    /// Table II's ASCII-8 line solved together with the MLFL mean (the variant).
    TableTwo,
}

impl PerBit {
    /// How the report describes the source of `b`.
    pub fn name(self) -> &'static str {
        match self {
            PerBit::LargestAscii => "largest ASCII-8 transfer of Table III",
            PerBit::TableTwo => "Table II's ASCII-8 line with the MLFL mean",
        }
    }
}

/// One row's implied set-up: (M/B − b) × bits.
#[derive(Clone, Debug, Serialize)]
pub struct RowSetup {
    /// The row, as the report names it ([`FtpRow::label`]).
    pub row: String,
    /// Whether the row is ASCII with 8-bit bytes (always, for the rows listed).
    pub ascii8: bool,
    /// Used for the estimate (an MLFL row).
    pub used: bool,
    /// Bits moved.
    pub bits: u64,
    /// Bits per second, real time.
    pub bps: u64,
    /// Column M/B: CPU µs per bit.
    pub us_per_bit: f64,
    /// The implied set-up, (M/B − b) × bits, ms.
    pub setup_ms: f64,
}

/// The estimate and what it rests on.
#[derive(Clone, Debug, Serialize)]
pub struct SetupEstimate {
    /// Where `b` comes from.
    pub per_bit: PerBit,
    /// `b`, µs per bit.
    pub per_bit_us: f64,
    /// Mean set-up over the MLFL rows, µs.
    pub setup_us: f64,
    /// Least and greatest set-up among the MLFL rows, µs.
    pub setup_lo_us: f64,
    /// Greatest set-up among the MLFL rows, µs.
    pub setup_hi_us: f64,
    /// Every ASCII-8 row's implied set-up with this `b`.
    pub setup_by_row: Vec<RowSetup>,
}

/// The set-up per transfer by the rule of the module doc.
pub fn estimate(rows: &[FtpRow], per_bit: PerBit) -> SetupEstimate {
    let mlfl: Vec<&FtpRow> = rows
        .iter()
        .filter(|r| r.comm == "MLFL" && r.ascii8())
        .collect();
    let n = mlfl.len().max(1) as f64;
    // Mean CPU and bits of an MLFL transfer.
    let cpu = mlfl
        .iter()
        .map(|r| r.us_per_bit * r.bits as f64)
        .sum::<f64>()
        / n;
    let bits = mlfl.iter().map(|r| r.bits as f64).sum::<f64>() / n;
    let b = match per_bit {
        PerBit::LargestAscii => rows
            .iter()
            .filter(|r| r.ascii8())
            .max_by_key(|r| r.bits)
            .map_or(f64::NAN, |r| r.us_per_bit),
        PerBit::TableTwo => {
            // files × a + Mbit × 1e6 × b = total CPU, and a + bits × b = cpu:
            // b = (total − files × cpu) / (Mbit × 1e6 − files × bits).
            let total = TABLE2_ASCII8_US_PER_BIT * TABLE2_ASCII8_MBIT * 1e6;
            (total - TABLE2_ASCII8_FILES * cpu)
                / (TABLE2_ASCII8_MBIT * 1e6 - TABLE2_ASCII8_FILES * bits)
        }
    };
    let setup_by_row: Vec<RowSetup> = rows
        .iter()
        .filter(|r| r.ascii8())
        .map(|r| RowSetup {
            row: r.label(),
            ascii8: true,
            used: r.comm == "MLFL",
            bits: r.bits,
            bps: r.bps,
            us_per_bit: r.us_per_bit,
            setup_ms: (r.us_per_bit - b) * r.bits as f64 / 1e3,
        })
        .collect();
    let used: Vec<f64> = setup_by_row
        .iter()
        .filter(|r| r.used)
        .map(|r| r.setup_ms * 1e3)
        .collect();
    SetupEstimate {
        per_bit,
        per_bit_us: b,
        setup_us: used.iter().sum::<f64>() / used.len().max(1) as f64,
        setup_lo_us: used.iter().copied().fold(f64::INFINITY, f64::min),
        setup_hi_us: used.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        setup_by_row,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transcription_has_table_three_rows() {
        let rows = table3();
        assert_eq!(rows.len(), 27);
        assert_eq!(rows.iter().filter(|r| r.comm == "MLFL").count(), 5);
        assert_eq!(rows.iter().filter(|r| r.ascii8()).count(), 11);
    }

    #[test]
    fn a_bad_row_is_named() {
        let text = format!("{HEADER}\n2,sri-arc,STOR,73/08/09,18:19:49,many,1395,21,I,36,U\n");
        let e = parse(&text).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.what.contains("bits `many`"), "{e}");
    }

    #[test]
    fn the_rule_recovers_a_set_up_it_generated() {
        // Rows made by a known program (set-up 0.1 s, 20 µs/bit) must give it back.
        let mut rows = table3();
        for r in &mut rows {
            r.us_per_bit = 20.0 + 100_000.0 / r.bits as f64;
        }
        // The largest ASCII row carries 0.35 µs/bit of set-up: the rule's bias, stated.
        let e = estimate(&rows, PerBit::LargestAscii);
        let bias = 100_000.0 / 286_720.0 * 5600.0;
        assert!((e.setup_us - (100_000.0 - bias)).abs() < 1e-6, "{e:?}");
    }
}
