//! Core memory: up to 32K 16-bit words; the index register lives in it; the DMC's address
//! pairs live in it.
//!
//! Rules (each as the two cycle-level emulators of the machine both implement it, SIMH's
//! `h316_cpu.c` and Wise's `cpu.cpp`; the manual's page for the protection of locations 1–17 was
//! not found, so it is named here as their behaviour):
//!
//! * Reads of words beyond the fitted memory return 0; writes there are lost.
//! * Locations 1–17 (octal) are not written by the program (the key-in loader's place).
//! * The index register X *is* a memory word: location 0 (in extend mode, or while running in
//!   the lower 16K), 040000 in the upper 16K when not in extend mode. Writing that word writes X.

/// Largest memory the 516 and 316 address (15-bit addresses).
pub const MAX_WORDS: usize = 32 * 1024;

/// Address mask in extend mode (15 bits).
pub const X_AMASK: u16 = 0o77777;
/// Address mask in normal (non-extend) mode (14 bits).
pub const NX_AMASK: u16 = 0o37777;

/// Core memory.
#[derive(Clone)]
pub struct Memory {
    words: Vec<u16>,
    size: usize,
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Memory({} words)", self.size)
    }
}

impl Memory {
    /// Memory with `size` words fitted (4K steps up to 32K on the real machine; any size up to
    /// 32K here). Larger sizes are clamped to 32K.
    pub fn new(size: usize) -> Memory {
        Memory {
            words: vec![0; MAX_WORDS],
            size: size.min(MAX_WORDS),
        }
    }

    /// Words fitted.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Read a word (15-bit address; beyond the fitted memory: 0).
    #[inline]
    pub fn read(&self, addr: u16) -> u16 {
        let a = (addr & X_AMASK) as usize;
        if a < self.size { self.words[a] } else { 0 }
    }

    /// Write a word as the program does: locations 1–17 and words beyond the fitted memory are
    /// not written.
    #[inline]
    pub fn write(&mut self, addr: u16, value: u16) {
        let a = (addr & X_AMASK) as usize;
        if (a == 0 || a >= 0o20) && a < self.size {
            self.words[a] = value;
        }
    }

    /// Write any fitted word (loader, console deposit, DMC pointer words).
    #[inline]
    pub fn deposit(&mut self, addr: u16, value: u16) {
        let a = (addr & X_AMASK) as usize;
        if a < self.size {
            self.words[a] = value;
        }
    }

    /// The words `first..=last` (wrapping in the 15-bit space), as a DMC transfer reads them.
    pub fn block(&self, first: u16, count: usize) -> Vec<u16> {
        (0..count)
            .map(|i| self.read(first.wrapping_add(i as u16) & X_AMASK))
            .collect()
    }
}
