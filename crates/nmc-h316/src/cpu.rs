//! The central processor: registers, addressing, and the instruction set an IMP uses.
//!
//! Section names are those of Honeywell's *DDP-516 Programmers Reference Manual* (Jan 1968;
//! the 316's manual describes the same instruction set): "Memory reference instructions",
//! "Addressing", "Generic instructions", "Shift instructions", "Skip instructions",
//! "Input/output instructions", "Extended addressing", "Program interrupt".
//!
//! ## Registers
//! A (accumulator), B (auxiliary), X (index: a memory word, see [`crate::memory`]), P (program
//! counter, 15 bits), C (the carry/overflow bit), the extend-mode flip-flop and its saved copy,
//! the shift count (visible only through INK), four sense switches.
//!
//! ## Instruction word
//! Memory reference: bit 1 flag (indirect), bit 2 tag (index), bits 3–6 opcode, bit 7 sector
//! (0: sector zero, 1: the instruction's own 512-word sector), bits 8–16 the address in the
//! sector. Opcode 0 splits on the flag and tag bits into generic B (00), shift (01), skip (10)
//! and generic A (11); opcode 14 is I/O ([`crate::io`]); opcode 15 is STX (tag 0) or LDX
//! (tag 1), which cannot be indexed.
//!
//! ## What is not here
//! The high-speed arithmetic option (MPY, DIV, NRM, SCA, double precision: the IMP had none),
//! memory lockout, the undefined generic-A and shift combinations. Each is a [`Fault`], with P
//! and the word, not a guess.

use crate::interrupt::Interrupts;
use crate::io::{Bus, IoCx, IoError};
use crate::memory::{Memory, NX_AMASK, X_AMASK};
use crate::timing::{self, Model};

const FLAG: u16 = 0o100000; // indirect
const TAG: u16 = 0o040000; // index
const SECTOR: u16 = 0o001000;
const DISP: u16 = 0o000777;
const SECTOR_BITS: u16 = 0o077000;
const SIGN: u16 = 0o100000;

/// A stop the program did not ask for: the instruction at `p` cannot be executed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    /// An opcode or combination this machine (an IMP's 516/316) does not have.
    #[error("unimplemented instruction {word:06o} at {p:05o}: {what}")]
    Unimplemented {
        /// Address of the instruction.
        p: u16,
        /// The instruction word.
        word: u16,
        /// What it would have been.
        what: &'static str,
    },
    /// An I/O instruction no device answers, or whose function the device lacks.
    #[error(
        "I/O instruction {word:06o} at {p:05o}: device {dev:02o} function {func:02o}: {error:?}"
    )]
    Io {
        /// Address of the instruction.
        p: u16,
        /// The instruction word.
        word: u16,
        /// Device code.
        dev: u8,
        /// Function code (INA's clear-A bit removed).
        func: u8,
        /// What the bus said.
        error: IoError,
    },
    /// Indirect words chained past the limit (the hardware would loop for ever).
    #[error("more than {limit} levels of indirection from {word:06o} at {p:05o}")]
    IndirectLoop {
        /// Address of the instruction.
        p: u16,
        /// The instruction word.
        word: u16,
        /// The limit.
        limit: u32,
    },
}

/// What one step did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// An instruction ran, costing these half cycles.
    Ran(u32),
    /// An interrupt was taken (JST* through `vector`), costing these half cycles.
    Interrupt {
        /// The vector location.
        vector: u16,
        /// Half cycles.
        half_cycles: u32,
    },
    /// The CPU is halted (HLT at `p - 1`); nothing ran.
    Halted,
}

/// CPU settings.
#[derive(Clone, Debug)]
pub struct CpuConfig {
    /// 516 or 316.
    pub model: Model,
    /// Words of core fitted (IMPs: 12K–16K; SIMH's IMP configuration: 16K).
    pub memory_words: usize,
    /// The extended-addressing option (SIMH's default; the IMP program uses EXA/DXA).
    pub extended_addressing: bool,
    /// Levels of indirection before a [`Fault::IndirectLoop`].
    pub indirect_limit: u32,
}

impl Default for CpuConfig {
    fn default() -> Self {
        CpuConfig {
            model: Model::H516,
            memory_words: 16 * 1024,
            extended_addressing: true,
            indirect_limit: 64,
        }
    }
}

/// The processor and its memory.
#[derive(Clone, Debug)]
pub struct Cpu {
    /// A register.
    pub a: u16,
    /// B register.
    pub b: u16,
    /// C bit.
    pub c: bool,
    /// Sense switches 1–4 (true: set).
    pub sense: [bool; 4],
    /// Core memory.
    pub mem: Memory,
    /// Interrupt system.
    pub irq: Interrupts,
    p: u16,
    ext: bool,
    ext_off_pending: bool,
    /// Extend mode when the last interrupt was taken (INK bit 3).
    pme: bool,
    sc: u16,
    halted: bool,
    half_cycles: u64,
    /// DMC cycles stolen but not yet charged (charged a word's worth an instruction).
    pending_steal: u64,
    instructions: u64,
    /// Address of the instruction being executed.
    ir_addr: u16,
    config: CpuConfig,
    half_ns: u64,
}

impl Cpu {
    /// A CPU with cleared memory and registers, P = 0, interrupts inhibited.
    pub fn new(config: CpuConfig) -> Cpu {
        Cpu {
            a: 0,
            b: 0,
            c: false,
            sense: [false; 4],
            mem: Memory::new(config.memory_words),
            irq: Interrupts::default(),
            p: 0,
            ext: false,
            ext_off_pending: false,
            pme: false,
            sc: 0,
            halted: false,
            half_cycles: 0,
            pending_steal: 0,
            instructions: 0,
            ir_addr: 0,
            half_ns: config.model.half_cycle_ns(),
            config,
        }
    }

    /// The settings.
    pub fn config(&self) -> &CpuConfig {
        &self.config
    }

    /// P.
    pub fn p(&self) -> u16 {
        self.p
    }

    /// Set P (console start address); clears a halt.
    pub fn set_p(&mut self, p: u16) {
        self.p = p & X_AMASK;
        self.halted = false;
    }

    /// X (the index word in memory).
    pub fn x(&self) -> u16 {
        self.mem.read(self.x_loc())
    }

    /// Set X.
    pub fn set_x(&mut self, x: u16) {
        let l = self.x_loc();
        self.mem.deposit(l, x);
    }

    /// Extend mode.
    pub fn extend_mode(&self) -> bool {
        self.ext
    }

    /// Halted by HLT.
    pub fn halted(&self) -> bool {
        self.halted
    }

    /// The clock, in half memory cycles.
    pub fn half_cycles(&self) -> u64 {
        self.half_cycles
    }

    /// Instructions executed (interrupts not counted).
    pub fn instructions(&self) -> u64 {
        self.instructions
    }

    /// Simulated time in ns: half cycles × half-cycle time.
    #[inline]
    pub fn now_ns(&self) -> u64 {
        self.half_cycles * self.half_ns
    }

    /// Charge cycles a DMC transfer stole. They are charged a word's worth
    /// ([`timing::DMC_HALF_CYCLES_PER_WORD`]) with each instruction that follows, as the DMC
    /// took them a word at a time while the frame passed; so the clock never jumps by more than
    /// one instruction and one DMC word.
    pub fn steal(&mut self, half_cycles: u64) {
        self.pending_steal += half_cycles;
    }

    /// Let time pass without instructions (a halted CPU): the clock moves to the first half
    /// cycle at or after `t_ns`.
    pub fn idle_until(&mut self, t_ns: u64) {
        let hc = t_ns.div_ceil(self.half_ns);
        if hc > self.half_cycles {
            self.half_cycles = hc;
        }
    }

    /// Where X lives: location 0 in extend mode or in the lower 16K, else 040000.
    #[inline]
    fn x_loc(&self) -> u16 {
        if self.ext { 0 } else { self.p & 0o40000 }
    }

    #[inline]
    fn x_reg(&self) -> u16 {
        self.mem.read(self.x_loc())
    }

    /// Form an address as P's mode does: 15 bits in extend mode; in normal mode 14 bits, the
    /// 16K bank kept from `cur` (PRM, "Extended addressing").
    #[inline]
    fn newa(&self, cur: u16, new: u16) -> u16 {
        if self.ext {
            new & X_AMASK
        } else {
            (cur & !NX_AMASK & X_AMASK) | (new & NX_AMASK)
        }
    }

    #[inline]
    fn skip(&mut self, n: u16) {
        self.p = self.newa(self.p, self.p.wrapping_add(n));
    }

    /// Write as the program does; writing X's word writes X (it is that word).
    #[inline]
    fn write(&mut self, addr: u16, value: u16) {
        self.mem.write(addr, value);
    }

    /// The effective address (PRM, "Addressing").
    ///
    /// * Sector bit 0: the address is in sector zero; 1: in the instruction's own sector.
    /// * Normal mode: index first (X added to the 9-bit address with its sector), then each
    ///   indirect word gives 14 address bits, its own flag (indirect again) and tag (index
    ///   again, X added).
    /// * Extend mode: indirect words give 15 address bits and their flag; X is added once, after
    ///   the last indirection, if the instruction's tag was set.
    ///
    /// Each indirect word read costs a cycle.
    #[inline]
    fn ea(&mut self, ir: u16, hc: &mut u32) -> Result<u16, Fault> {
        let mut y = ir & (FLAG | DISP);
        if ir & SECTOR != 0 {
            y |= self.ir_addr & SECTOR_BITS;
        }
        let limit = self.config.indirect_limit;
        let mut levels = 0;
        if self.ext {
            while y & FLAG != 0 {
                levels += 1;
                if levels > limit {
                    return Err(self.indirect_fault(ir));
                }
                y = self.mem.read(y & X_AMASK);
                *hc += timing::INDIRECT_HALF_CYCLES;
            }
            if ir & TAG != 0 {
                y = y.wrapping_add(self.x_reg());
            }
        } else {
            let x = if ir & TAG != 0 { self.x_reg() } else { 0 };
            y = self.newa(self.p, y.wrapping_add(x));
            let mut w = ir;
            while w & FLAG != 0 {
                levels += 1;
                if levels > limit {
                    return Err(self.indirect_fault(ir));
                }
                w = self.mem.read(y & X_AMASK);
                *hc += timing::INDIRECT_HALF_CYCLES;
                let x = if w & TAG != 0 { self.x_reg() } else { 0 };
                y = self.newa(y, w.wrapping_add(x));
            }
        }
        Ok(y & X_AMASK)
    }

    fn indirect_fault(&self, word: u16) -> Fault {
        Fault::IndirectLoop {
            p: self.ir_addr,
            word,
            limit: self.config.indirect_limit,
        }
    }

    fn unimplemented(&self, word: u16, what: &'static str) -> Fault {
        Fault::Unimplemented {
            p: self.ir_addr,
            word,
            what,
        }
    }

    /// Add with the C bit set on overflow (PRM: ADD, SUB, AOA, ACA: "overflow status → C").
    #[inline]
    fn add16(&mut self, a: u16, m: u16) -> u16 {
        let (r, _) = (a as i16).overflowing_add(m as i16);
        self.c = ((a ^ !m) & (a ^ r as u16) & SIGN) != 0;
        r as u16
    }

    /// Subtract, C set on overflow.
    #[inline]
    fn sub16(&mut self, a: u16, m: u16) -> u16 {
        let r = a.wrapping_sub(m);
        self.c = ((a ^ m) & (a ^ r) & SIGN) != 0;
        r
    }

    /// Run one instruction, or take one interrupt, on `bus`.
    ///
    /// Order at each instruction boundary (PRM, "Program interrupt"): a pending, enabled,
    /// unmasked interrupt is taken instead of the fetch: P is stored as by JST* through the
    /// vector, interrupts are inhibited, the extend mode is saved (INK shows it) and extend mode
    /// entered. Otherwise the word at P is fetched and P advanced.
    pub fn step<B: Bus + ?Sized>(&mut self, bus: &mut B) -> Result<Step, Fault> {
        if self.halted {
            return Ok(Step::Halted);
        }
        if let Some(vector) = self.irq.take() {
            // A DXA or OTK "extend off" still pending stays pending: the handler's first jump
            // carries it out (as both cycle-level emulators, SIMH's and Wise's, do).
            self.pme = self.ext;
            if self.config.extended_addressing {
                self.ext = true;
            }
            let mut hc = timing::INTERRUPT_HALF_CYCLES;
            self.ir_addr = self.p;
            let y = self.ea(FLAG | vector, &mut hc)?;
            self.jst(y);
            self.half_cycles += hc as u64;
            return Ok(Step::Interrupt {
                vector,
                half_cycles: hc,
            });
        }
        if self.pending_steal > 0 {
            let s = self.pending_steal.min(timing::DMC_HALF_CYCLES_PER_WORD);
            self.pending_steal -= s;
            self.half_cycles += s;
        }
        let word = self.mem.read(self.p);
        self.ir_addr = self.p;
        self.p = self.newa(self.p, self.p.wrapping_add(1));
        self.irq.fetched();
        let mut hc = timing::instruction_half_cycles(word);
        let r = self.execute(word, &mut hc, bus);
        self.half_cycles += hc as u64;
        self.instructions += 1;
        r?;
        Ok(if self.halted {
            Step::Halted
        } else {
            Step::Ran(hc)
        })
    }

    /// JST to `y`: P (with the mode's address bits) into `y`, the word's other bits kept; jump
    /// to `y + 1` (PRM: JST).
    #[inline]
    fn jst(&mut self, y: u16) {
        let old = self.mem.read(y);
        let v = if self.ext {
            (old & !X_AMASK) | (self.p & X_AMASK)
        } else {
            (old & !NX_AMASK) | (self.p & NX_AMASK)
        };
        self.write(y, v);
        self.p = self.newa(self.p, y.wrapping_add(1));
    }

    #[inline]
    fn execute<B: Bus + ?Sized>(
        &mut self,
        word: u16,
        hc: &mut u32,
        bus: &mut B,
    ) -> Result<(), Fault> {
        let op6 = (word >> 10) & 0o77;
        match op6 & 0o17 {
            0o01 => {
                // JMP. A pending "extend off" (DXA, OTK) takes effect here (PRM, "Extended
                // addressing": the mode changes at the next jump, so a return through a 15-bit
                // indirect word still reaches the upper bank).
                let y = self.ea(word, hc)?;
                self.p = self.newa(self.p, y);
                if self.ext_off_pending {
                    self.ext = false;
                    self.ext_off_pending = false;
                }
            }
            0o02 => {
                let y = self.ea(word, hc)?;
                self.a = self.mem.read(y);
            }
            0o03 => {
                let y = self.ea(word, hc)?;
                self.a &= self.mem.read(y);
            }
            0o04 => {
                let y = self.ea(word, hc)?;
                self.write(y, self.a);
            }
            0o05 => {
                let y = self.ea(word, hc)?;
                self.a ^= self.mem.read(y);
            }
            0o06 => {
                let y = self.ea(word, hc)?;
                let m = self.mem.read(y);
                self.a = self.add16(self.a, m);
            }
            0o07 => {
                let y = self.ea(word, hc)?;
                let m = self.mem.read(y);
                self.a = self.sub16(self.a, m);
            }
            0o10 => {
                let y = self.ea(word, hc)?;
                self.jst(y);
            }
            0o11 => {
                // CAS: skip one if A = M, two if A < M (signed), none if A > M.
                let y = self.ea(word, hc)?;
                let m = self.mem.read(y);
                if self.a == m {
                    self.skip(1);
                } else if (self.a as i16) < (m as i16) {
                    self.skip(2);
                }
            }
            0o12 => {
                // IRS: M + 1 → M; skip if the result is zero.
                let y = self.ea(word, hc)?;
                let m = self.mem.read(y).wrapping_add(1);
                self.write(y, m);
                if m == 0 {
                    self.skip(1);
                }
            }
            0o13 => {
                let y = self.ea(word, hc)?;
                let m = self.mem.read(y);
                self.write(y, self.a);
                self.a = m;
            }
            0o14 => self.io(word, bus)?,
            0o15 => {
                // STX (tag 0) / LDX (tag 1): the tag is part of the opcode, so these cannot
                // be indexed; an indirect word's own tag still indexes (PRM note to LDX, STX).
                let y = self.ea(word & !TAG, hc)?;
                if word & TAG != 0 {
                    let v = self.mem.read(y);
                    let l = self.x_loc();
                    self.mem.deposit(l, v);
                } else {
                    let x = self.x_reg();
                    self.write(y, x);
                }
            }
            0o16 => return Err(self.unimplemented(word, "MPY (high-speed arithmetic option)")),
            0o17 => return Err(self.unimplemented(word, "DIV (high-speed arithmetic option)")),
            _ => match op6 {
                0o00 => self.generic_b(word)?,
                0o20 => self.shift(word)?,
                0o40 => self.skip_group(word),
                0o60 => self.generic_a(word)?,
                _ => unreachable!("op6 & 017 == 0 leaves four groups"),
            },
        }
        Ok(())
    }

    /// I/O instructions and the CPU's own device 20 (PRM, "Input/output instructions"; SMK and
    /// OTK are OTA to device 20: function 0 the standard mask, 1 the priority levels 1–16,
    /// 10 the keys). SMK and OTK do not skip.
    fn io<B: Bus + ?Sized>(&mut self, word: u16, bus: &mut B) -> Result<(), Fault> {
        let kind = word >> 14;
        let dev = (word & 0o77) as u8;
        let mut func = ((word >> 6) & 0o17) as u8;
        if kind == 3 && dev == 0o20 {
            match func {
                0o00 => self.irq.set_standard_mask(self.a),
                0o01 => self.irq.set_priority_mask(self.a),
                0o10 => {
                    // OTK (PRM: A1 → C, A2 → double precision, A3 → extend mode, A12–16 →
                    // shift count). Extend off waits for the next jump, as DXA.
                    self.c = self.a & SIGN != 0;
                    if self.config.extended_addressing {
                        if self.a & 0o20000 != 0 {
                            self.ext = true;
                            self.ext_off_pending = false;
                        } else {
                            self.ext_off_pending = true;
                        }
                    }
                    self.sc = self.a & 0o37;
                }
                _ => {
                    return Err(Fault::Io {
                        p: self.ir_addr,
                        word,
                        dev,
                        func,
                        error: IoError::NoFunction,
                    });
                }
            }
            return Ok(());
        }
        if kind == 2 && func & 0o10 != 0 {
            // INA with bit 7: clear A, then input.
            self.a = 0;
            func &= 0o7;
        }
        let mut cx = IoCx {
            now_ns: self.now_ns() + timing::instruction_half_cycles(word) as u64 * self.half_ns,
            mem: &mut self.mem,
            irq: &mut self.irq,
            model: self.config.model,
            stolen_half_cycles: 0,
        };
        let r = match kind {
            0 => bus.ocp(&mut cx, dev, func).map(|()| false),
            1 => bus.sks(&mut cx, dev, func),
            2 => bus.ina(&mut cx, dev, func).map(|v| match v {
                Some(v) => {
                    self.a |= v;
                    true
                }
                None => false,
            }),
            _ => bus.ota(&mut cx, dev, func, self.a),
        };
        let stolen = cx.stolen_half_cycles;
        self.half_cycles += stolen;
        match r {
            Ok(true) => self.skip(1),
            Ok(false) => {}
            Err(error) => {
                return Err(Fault::Io {
                    p: self.ir_addr,
                    word,
                    dev,
                    func,
                    error,
                });
            }
        }
        Ok(())
    }

    /// Generic B (PRM, "Generic instructions"; the ones without the adder).
    fn generic_b(&mut self, word: u16) -> Result<(), Fault> {
        match word {
            0o000000 => self.halted = true,
            // DXA: extend mode off at the next jump.
            0o000011 => {
                if self.config.extended_addressing {
                    self.ext_off_pending = true;
                } else {
                    return Err(self.unimplemented(word, "DXA without extended addressing"));
                }
            }
            // EXA: extend mode on now.
            0o000013 => {
                if self.config.extended_addressing {
                    self.ext = true;
                    self.ext_off_pending = false;
                } else {
                    return Err(self.unimplemented(word, "EXA without extended addressing"));
                }
            }
            // RMP: reset memory parity error (none is ever set here).
            0o000021 => {}
            // INK: C → A1, double-precision mode → A2 (never set), saved extend mode → A3,
            // shift count → A11–16.
            0o000043 => {
                self.a = ((self.c as u16) << 15) | ((self.pme as u16) << 13) | (self.sc & 0o77);
            }
            // IAB: exchange A and B (the shift count is the adder's E register, left = B).
            0o000201 => {
                std::mem::swap(&mut self.a, &mut self.b);
                self.sc = self.a;
            }
            0o000401 => self.irq.enable(),
            0o001001 => self.irq.inhibit(),
            0o000005 | 0o000007 => {
                return Err(self.unimplemented(word, "SGL/DBL (high-speed arithmetic option)"));
            }
            0o000041 | 0o000101 => {
                return Err(self.unimplemented(word, "SCA/NRM (high-speed arithmetic option)"));
            }
            _ => return Err(self.unimplemented(word, "generic B combination")),
        }
        Ok(())
    }

    /// Generic A (PRM, "Generic instructions"; the adder group), the standard mnemonics only.
    fn generic_a(&mut self, word: u16) -> Result<(), Fault> {
        let a = self.a;
        match word {
            0o140024 => self.a = a ^ SIGN,  // CHS
            0o140040 => self.a = 0,         // CRA
            0o140100 => self.a = a & !SIGN, // SSP
            0o140200 => self.c = false,     // RCB
            0o140320 => {
                // CSA: sign → C, A made plus.
                self.c = a & SIGN != 0;
                self.a = a & !SIGN;
            }
            0o140401 => self.a = !a,               // CMA
            0o140407 => self.a = a.wrapping_neg(), // TCA
            0o140500 => self.a = a | SIGN,         // SSM
            0o140600 => self.c = true,             // SCB
            0o141044 => self.a = a & 0o177400,     // CAR: clear right half
            0o141050 => self.a = a & 0o377,        // CAL: clear left half
            0o141140 => self.a = a >> 8,           // ICL: left half to right, left cleared
            0o141206 => self.a = self.add16(a, 1), // AOA
            0o141216 => {
                let c = self.c as u16;
                self.a = self.add16(a, c); // ACA
            }
            0o141240 => self.a = a << 8, // ICR: right half to left, right cleared
            0o141340 => self.a = a.rotate_left(8), // ICA: exchange halves
            _ => return Err(self.unimplemented(word, "generic A combination")),
        }
        Ok(())
    }

    /// Skip group (PRM, "Skip instructions"): bits 8–16 select conditions (SMI 400, SPS 200,
    /// SLN 100, SNZ 40, SS1 20, SS2 10, SS3 4, SS4 2, SSC 1). With bit 7 (1000) set, skip if
    /// any selected condition holds; with it clear, skip if none does (so SKP, nothing
    /// selected, always skips and NOP never).
    fn skip_group(&mut self, word: u16) {
        let a = self.a;
        let any = (word & 0o001 != 0 && self.c)
            || (word & 0o002 != 0 && self.sense[3])
            || (word & 0o004 != 0 && self.sense[2])
            || (word & 0o010 != 0 && self.sense[1])
            || (word & 0o020 != 0 && self.sense[0])
            || (word & 0o040 != 0 && a != 0)
            || (word & 0o100 != 0 && a & 1 != 0)
            || (word & 0o400 != 0 && a & SIGN != 0);
        // SPS (200): memory parity error, never set here.
        let skip = if word & 0o1000 != 0 { any } else { !any };
        if skip {
            self.skip(1);
        }
    }

    /// Shifts (PRM, "Shift instructions"). Bits 7–10 the kind, bits 11–16 the two's complement
    /// of the count. C is cleared, then (logical and arithmetic right) holds the last bit
    /// shifted out, (rotates) the bit that crossed the end, (arithmetic left) records an
    /// overflow: a bit shifted out, or the new sign, differing from the sign.
    fn shift(&mut self, word: u16) -> Result<(), Fault> {
        let n = (word.wrapping_neg() & 0o77) as u32;
        let kind = (word >> 6) & 0o17;
        self.c = false;
        self.sc = 0;
        if n == 0 {
            // A zero count shifts nothing whatever the kind. The IMP program builds left
            // rotates by adding minus the count to a zero-count rotate word, 041700 (the count
            // field is the two's complement of the count): with a count of 0 the word keeps
            // kind 17, which must then do nothing.
            return Ok(());
        }
        let a = self.a;
        let b = self.b;
        let ab = ((a as u32) << 16) | b as u32;
        // The 31-bit long arithmetic value: A and B's low 15 bits (B's sign is skipped).
        let ab31 = ((a as i16 as i64) << 15) | (b & 0o77777) as i64;
        match kind {
            0o00 => {
                // LRL: long right logical (32 bits).
                let r = if n >= 32 { 0 } else { ab >> n };
                self.c = n <= 32 && (ab >> (n - 1)) & 1 != 0;
                self.put_ab(r);
            }
            0o01 => {
                // LRS: long right arithmetic (31 bits).
                let n = n.min(31);
                self.c = (ab31 >> (n - 1)) & 1 != 0;
                self.put_ab31(ab31 >> n);
            }
            0o02 => {
                // LRR: long right rotate.
                let r = ab.rotate_right(n % 32);
                self.c = r & 0x8000_0000 != 0;
                self.put_ab(r);
            }
            0o04 => {
                // LGR: A right logical.
                if n > 16 {
                    self.a = 0;
                } else {
                    self.c = (a >> (n - 1)) & 1 != 0;
                    self.a = ((a as u32) >> n) as u16;
                }
            }
            0o05 => {
                // ARS: A right arithmetic.
                let n = n.min(16);
                let s = a as i16 as i32;
                self.c = (s >> (n - 1)) & 1 != 0;
                self.a = (s >> n) as u16;
            }
            0o06 => {
                // ARR: A right rotate.
                self.a = a.rotate_right(n % 16);
                self.c = self.a & SIGN != 0;
            }
            0o10 => {
                // LLL: long left logical.
                let r = if n >= 32 { 0 } else { ab << n };
                self.c = n <= 32 && (ab >> (32 - n)) & 1 != 0;
                self.put_ab(r);
            }
            0o11 => {
                // LLS: long left arithmetic (31 bits).
                let n = n.min(31);
                let r = ab31 << n;
                self.put_ab31(r);
                let sign = if self.a & SIGN != 0 { -1 } else { 0 };
                self.c = (ab31 >> (31 - n)) != sign;
            }
            0o12 => {
                // LLR: long left rotate.
                let r = ab.rotate_left(n % 32);
                self.c = r & 1 != 0;
                self.put_ab(r);
            }
            0o14 => {
                // LGL: A left logical.
                if n > 16 {
                    self.a = 0;
                } else {
                    self.c = ((a as u32) >> (16 - n)) & 1 != 0;
                    self.a = ((a as u32) << n) as u16;
                }
            }
            0o15 => {
                // ALS: A left arithmetic.
                let n = n.min(16);
                let s = a as i16 as i32;
                self.a = ((a as u32) << n) as u16;
                let sign = if self.a & SIGN != 0 { -1 } else { 0 };
                self.c = (s >> (16 - n)) != sign;
            }
            0o16 => {
                // ALR: A left rotate.
                self.a = a.rotate_left(n % 16);
                self.c = self.a & 1 != 0;
            }
            _ => return Err(self.unimplemented(word, "undefined shift")),
        }
        Ok(())
    }

    #[inline]
    fn put_ab(&mut self, v: u32) {
        self.a = (v >> 16) as u16;
        self.b = v as u16;
    }

    #[inline]
    fn put_ab31(&mut self, v: i64) {
        self.a = (v >> 15) as u16;
        self.b = (self.b & SIGN) | (v as u16 & 0o77777);
    }
}
