//! Core images from SIMH deposit commands (the form BBN's IMP program is kept in:
//! `H316/tests/impcode.cmd` in SIMH's sources).
//!
//! Accepted, one command a line (octal numbers; `;` starts a comment line):
//!
//! * `de all N` / `d all N` — every word of core set to N;
//! * `de ADDR N` — one word;
//! * `de -m ADDR MNEMONIC` — one word given by a mnemonic without an operand (the IMP patches
//!   use `NOP`); the mnemonics of the generic and skip groups are known;
//! * `de p ADDR` — the start address.
//!
//! Anything else is an error naming the line: the image must load exactly as written.
//! The image is only ever read from the user's copy; nmc commits none of it.

use crate::memory::Memory;
use std::fmt;

/// A core image: deposits in order, and where to start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Image {
    /// `de all`: the value every word is set to first, if given.
    pub fill: Option<u16>,
    /// `(address, word)` in the order deposited (later deposits win).
    pub deposits: Vec<(u16, u16)>,
    /// `de p`: the start address.
    pub start: Option<u16>,
}

/// Why a deposit file could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {what}: {text:?}")]
pub struct LoadError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub what: &'static str,
    /// The line.
    pub text: String,
}

/// Mnemonics without operands (DDP-516 PRM; the IMP listing's definitions page).
const MNEMONICS: &[(&str, u16)] = &[
    ("HLT", 0o000000),
    ("DXA", 0o000011),
    ("EXA", 0o000013),
    ("INK", 0o000043),
    ("IAB", 0o000201),
    ("ENB", 0o000401),
    ("INH", 0o001001),
    ("NOP", 0o101000),
    ("SKP", 0o100000),
    ("SZE", 0o100040),
    ("SNZ", 0o101040),
    ("SPL", 0o100400),
    ("SMI", 0o101400),
    ("SLZ", 0o100100),
    ("SLN", 0o101100),
    ("SRC", 0o100001),
    ("SSC", 0o101001),
    ("CRA", 0o140040),
    ("CMA", 0o140401),
    ("TCA", 0o140407),
    ("AOA", 0o141206),
    ("ACA", 0o141216),
    ("RCB", 0o140200),
    ("SCB", 0o140600),
    ("SSP", 0o140100),
    ("SSM", 0o140500),
    ("CSA", 0o140320),
    ("CHS", 0o140024),
    ("CAR", 0o141044),
    ("CAL", 0o141050),
    ("ICL", 0o141140),
    ("ICR", 0o141240),
    ("ICA", 0o141340),
    ("OTK", 0o171020),
];

fn octal(s: &str) -> Option<u16> {
    u32::from_str_radix(s, 8)
        .ok()
        .and_then(|v| u16::try_from(v).ok())
}

impl Image {
    /// Parse deposit commands.
    pub fn parse(text: &str) -> Result<Image, LoadError> {
        let mut image = Image::default();
        for (i, raw) in text.lines().enumerate() {
            let err = |what| LoadError {
                line: i + 1,
                what,
                text: raw.to_string(),
            };
            let line = raw.trim();
            if line.is_empty() || line.starts_with(';') {
                continue;
            }
            let mut toks = line.split_whitespace();
            let cmd = toks.next().unwrap_or_default().to_ascii_lowercase();
            if !matches!(cmd.as_str(), "d" | "de" | "dep" | "deposit") {
                return Err(err("not a deposit command"));
            }
            let mut symbolic = false;
            let mut target = toks.next().ok_or_else(|| err("no address"))?;
            while target.starts_with('-') {
                match target.to_ascii_lowercase().as_str() {
                    "-m" => symbolic = true,
                    _ => return Err(err("unknown switch")),
                }
                target = toks.next().ok_or_else(|| err("no address"))?;
            }
            let value = toks.next().ok_or_else(|| err("no value"))?;
            if toks.next().is_some() {
                return Err(err("extra words after the value"));
            }
            let word = if symbolic {
                let v = value.to_ascii_uppercase();
                MNEMONICS
                    .iter()
                    .find(|(m, _)| *m == v)
                    .map(|&(_, w)| w)
                    .ok_or_else(|| err("mnemonic not known (only those without operands)"))?
            } else {
                octal(value).ok_or_else(|| err("value is not a 16-bit octal number"))?
            };
            match target.to_ascii_lowercase().as_str() {
                "all" => {
                    image.fill = Some(word);
                    image.deposits.clear();
                }
                "p" => image.start = Some(word & 0o77777),
                a => {
                    let addr = octal(a)
                        .filter(|&a| a <= 0o77777)
                        .ok_or_else(|| err("address is not a 15-bit octal number"))?;
                    image.deposits.push((addr, word));
                }
            }
        }
        Ok(image)
    }

    /// Highest address deposited.
    pub fn top(&self) -> Option<u16> {
        self.deposits.iter().map(|&(a, _)| a).max()
    }

    /// Put the image into core (as the console does: every word, locations 1–17 included).
    pub fn apply(&self, mem: &mut Memory) {
        if let Some(f) = self.fill {
            for a in 0..mem.size() {
                mem.deposit(a as u16, f);
            }
        }
        for &(a, w) in &self.deposits {
            mem.deposit(a, w);
        }
    }
}

impl fmt::Display for Image {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} deposits up to {:05o}, start {}",
            self.deposits.len(),
            self.top().unwrap_or(0),
            self.start
                .map(|p| format!("{p:05o}"))
                .unwrap_or_else(|| "not given".into())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deposits_patches_and_start() {
        let img = Image::parse(
            "de all 000000\n; a comment\nde 00100 012345\n\nde 00100 012346\nd -m 20000 NOP\nde p 01000\n",
        )
        .unwrap();
        assert_eq!(img.fill, Some(0));
        assert_eq!(
            img.deposits,
            [(0o100, 0o12345), (0o100, 0o12346), (0o20000, 0o101000)]
        );
        assert_eq!(img.start, Some(0o1000));
        let mut mem = Memory::new(16 * 1024);
        img.apply(&mut mem);
        assert_eq!(mem.read(0o100), 0o12346, "the later deposit wins");
    }

    #[test]
    fn anything_else_is_an_error_with_its_line() {
        let e = Image::parse("de 100 1\nattach mi1 1000::2000\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(Image::parse("de 100 9\n").is_err(), "9 is not octal");
        assert!(Image::parse("de 200000 1\n").is_err());
        assert!(Image::parse("de -m 100 LDA\n").is_err());
    }
}
