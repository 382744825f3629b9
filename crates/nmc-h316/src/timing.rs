//! Time: the machine model, the memory cycle, and what each instruction costs.
//!
//! The CPU's clock counts **half cycles** (the 516's and 316's instruction times are whole or
//! half memory cycles: TCA takes 1.5, a shift 1 + ½ per position). Simulated time in
//! nanoseconds is `half_cycles × half_cycle_ns`, exact in integers for both models.
//!
//! ## Sources
//!
//! * Honeywell, *DDP-516 Programmers Reference Manual* (January 1968), the instruction tables'
//!   "No. of Cycles" and "Time (µsec)" columns, as transcribed by Adrian Wise
//!   (series16.adrianwise.co.uk/programming/instructions.html): CRA, IAB, INK, ACA, AOA, CSA,
//!   CHS, CMA 1 cycle; LDA, STA, STX, ADD, SUB, ANA, ERA, OTK 2; IMA, LDX 3; TCA 1.5; a cycle is
//!   0.96 µs.
//! * The rows the part of the table we read does not give (JMP, JST, CAS, IRS, the skips, the
//!   shifts, I/O, indirection, the interrupt, the DMC) follow Adrian Wise's cycle-level H316
//!   emulator (github.com/apwise/h316_emul, `cpu.cpp`), which times the machine in half cycles
//!   from Honeywell's documentation and schematics: JMP 1 cycle; JST, CAS, IRS 3; skips and
//!   generics 1; shifts 1 + ½ per position; OCP, SKS, INA, OTA (and SMK, OTK) 2; each level of
//!   indirection +1; an interrupt is a JST* without the fetch; a DMC word 4 cycles. This is the
//!   table nmc's SIMH cycle clock uses (`crates/nmc-oracle/simh/h316_nmc.c`, branch `oracle`),
//!   so the emulator and the oracle charge the same cycles.
//! * The 316's memory cycle is 1.6 µs; it is taken to need the same cycles per instruction as
//!   the 516 (Honeywell gives the 316's register add as 3.2 µs, two cycles, as on the 516).

/// Which machine: the same instruction set, different memory cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// Honeywell DDP-516: 0.96 µs memory cycle (the 1969–71 IMPs).
    H516,
    /// Honeywell 316: 1.6 µs memory cycle (the later IMPs and every TIP).
    H316,
}

impl Model {
    /// One memory cycle in nanoseconds (DDP-516 manual: 0.96 µs; H316: 1.6 µs).
    pub const fn cycle_ns(self) -> u64 {
        match self {
            Model::H516 => 960,
            Model::H316 => 1600,
        }
    }

    /// Half a memory cycle in nanoseconds: the clock's unit.
    pub const fn half_cycle_ns(self) -> u64 {
        self.cycle_ns() / 2
    }
}

/// Half cycles a DMC transfer steals per word (4 cycles: read the channel's address word,
/// compare with its end word, move the data word, write the address back; Wise, `cpu.cpp`).
pub const DMC_HALF_CYCLES_PER_WORD: u64 = 8;

/// Half cycles added per level of indirection (one memory cycle to read the indirect word).
pub const INDIRECT_HALF_CYCLES: u32 = 2;

/// Half cycles of an interrupt: a JST* through the level's vector with no fetch (2 cycles of
/// JST; the indirection through the vector is charged as any other, +1 cycle).
pub const INTERRUPT_HALF_CYCLES: u32 = 4;

/// Half cycles of one instruction word, fetch included, before indirection: the table above.
///
/// Shifts add half a cycle per position. Opcodes the IMP cannot execute (MPY, DIV: no
/// high-speed arithmetic on an IMP) are still given a time; the CPU refuses them first.
pub const fn instruction_half_cycles(word: u16) -> u32 {
    let op6 = (word >> 10) & 0o77;
    match op6 & 0o17 {
        // JMP: 1 cycle (fetch; the address is formed in the same cycle).
        0o01 => 2,
        // LDA ANA STA ERA ADD SUB: 2 cycles.
        0o02..=0o07 => 4,
        // JST CAS IRS IMA: 3 cycles.
        0o10..=0o13 => 6,
        // OCP SKS INA OTA (SMK, OTK): 2 cycles.
        0o14 => 4,
        // STX 2 cycles (tag 0); LDX 3 (tag 1).
        0o15 => {
            if op6 & 0o20 != 0 {
                6
            } else {
                4
            }
        }
        // MPY, DIV.
        0o16 | 0o17 => 4,
        _ => match op6 {
            // Shift: 1 cycle + ½ per position (count is the two's complement of bits 11–16).
            0o20 => 2 + ((word.wrapping_neg() & 0o77) as u32),
            // Skip: 1 cycle.
            0o40 => 2,
            // Generic A: 1 cycle; 1.5 when the adder runs twice (bits 8 and 15 both set: TCA).
            0o60 if word & 0o402 == 0o402 => 3,
            0o60 => 2,
            // Generic B: 1 cycle.
            _ => 2,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manuals_rows() {
        // DDP-516 PRM (Jan 1968) instruction tables, via Wise's transcription.
        assert_eq!(instruction_half_cycles(0o140040), 2, "CRA 1 cycle");
        assert_eq!(instruction_half_cycles(0o004000), 4, "LDA 2 cycles");
        assert_eq!(instruction_half_cycles(0o026000), 6, "IMA 3 cycles");
        assert_eq!(instruction_half_cycles(0o072000), 6, "LDX 3 cycles");
        assert_eq!(instruction_half_cycles(0o032000), 4, "STX 2 cycles");
        assert_eq!(instruction_half_cycles(0o140407), 3, "TCA 1.5 cycles");
        assert_eq!(instruction_half_cycles(0o141206), 2, "AOA 1 cycle");
        assert_eq!(instruction_half_cycles(0o171020), 4, "OTK 2 cycles");
        assert_eq!(instruction_half_cycles(0o000043), 2, "INK 1 cycle");
    }

    #[test]
    fn shifts_pay_half_a_cycle_a_position() {
        // LGL 1 = 041477, LGR 8 = 040470.
        assert_eq!(instruction_half_cycles(0o041477), 3);
        assert_eq!(instruction_half_cycles(0o040470), 10);
    }

    #[test]
    fn cycles_in_ns() {
        assert_eq!(
            Model::H516.half_cycle_ns() * 4,
            1920,
            "LDA on a 516: 1.92 µs"
        );
        assert_eq!(
            Model::H316.half_cycle_ns() * 4,
            3200,
            "LDA on a 316: 3.2 µs"
        );
    }
}
