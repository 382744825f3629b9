//! # nmc-h316 — a Honeywell 316/516 emulator with the ARPANET IMP's devices
//!
//! The IMP was a Honeywell DDP-516 (later a 316) with BBN's own interfaces. This crate runs
//! its machine code — in particular BBN's IMP program 3050 of September 1973, the version SIMH
//! carries — instruction by instruction, with time counted in memory cycles, so an nmc scenario
//! can put the original program where its modelled IMP stands and get the same bytes from the
//! same inputs. It is sans-I/O: nothing here reads a clock, opens a socket or spawns a thread;
//! a driver gives inputs with their times, runs the machine to a time, and takes its outputs.
//!
//! ## Start here
//!
//! | module | what |
//! | --- | --- |
//! | [`cpu`] | [`Cpu`]: registers, addressing (sectors, indexing, indirection, extend mode), the instruction set an IMP uses, [`Cpu::step`] on any [`Bus`]; a [`Fault`] (with P and the word) for anything else |
//! | [`timing`] | [`Model`] (516: 0.96 µs cycle; 316: 1.6 µs) and the cycles of each instruction, from the DDP-516 manual's table |
//! | [`interrupt`] | ENB/INH, the standard interrupt, the 16 priority levels (vector 63 + level), the watchdog's break |
//! | [`io`] | the [`Bus`] trait devices implement (OCP, SKS, INA, OTA), with the [`IoCx`] they see |
//! | [`memory`] | core, up to 32K words; X lives in it; locations 1–17 not written |
//! | [`dmc`] | the DMC channels' address words, how transfers use them and what they cost |
//! | [`imp`] | [`Imp`]: the CPU and BBN's devices on one clock — [`imp::modem`], [`imp::host`] (1822), [`imp::clock`] (real-time clock, watchdog, lights, task), [`imp::console`]; the wiring in [`imp::levels`]; inputs, [`Imp::run_until`], [`Output`]s |
//! | [`loader`] | [`Image`]: core images from SIMH deposit commands (`impcode.cmd`) |
//! | [`subnet`] | a small lockstep harness: IMPs joined by lines, a byte-stable trace |
//!
//! ## Time
//! The CPU's clock counts half memory cycles; simulated time is that times the model's half
//! cycle, in integer nanoseconds (`u64`, named `*_ns`). Instructions cost what the DDP-516
//! manual's table says ([`timing`]); DMC words steal 4 cycles each. Devices schedule their
//! events (a frame's last bit, a clock carry) in ns; they fire at the first instruction
//! boundary at or after their time, in `(time, sequence)` order.
//!
//! ## Example
//!
//! ```
//! use nmc_h316::{Cpu, CpuConfig, Step, io::NoDevices};
//!
//! // LDA 100; ADD 101; HLT — on a 516.
//! let mut cpu = Cpu::new(CpuConfig::default());
//! for (a, w) in [(0o10, 0o004100), (0o11, 0o014101), (0o12, 0), (0o100, 2), (0o101, 3)] {
//!     cpu.mem.deposit(a, w);
//! }
//! cpu.set_p(0o10);
//! while cpu.step(&mut NoDevices)? != Step::Halted {}
//! assert_eq!(cpu.a, 5);
//! assert_eq!(cpu.now_ns(), 2 * 1920 + 960, "two 2-cycle instructions and a HLT");
//! # Ok::<(), nmc_h316::Fault>(())
//! ```
//!
//! ## Sources
//! Honeywell's *DDP-516 Programmers Reference Manual* (Jan 1968) for the instruction set and
//! its cycles (transcribed by Adrian Wise); Wise's cycle-level emulator for the rows the table
//! lacks; Honeywell's *316 Interfacing* manual (ch. 4) for the priority interrupts; BBN's IMP
//! listing 3050 for the devices' codes, levels, channels and the clock's unit; BBN Report 1822
//! for the host interface; RFC 568 and RFC 635 for the modem framing. SIMH's H316 sources were
//! read to understand behaviour where no manual was at hand (each such rule says so); no code
//! is taken from them.
//!
//! ## What is not here
//! The high-speed arithmetic option, memory lockout, the paper tape and other peripherals an
//! IMP lacked, the TIP's multi-line controller, satellite and VDH interfaces; line errors are
//! the driver's (a frame delivered with `ok = false`).

#![warn(missing_docs)]

pub mod cpu;
pub mod dmc;
pub mod imp;
pub mod interrupt;
pub mod io;
pub mod loader;
pub mod memory;
pub mod subnet;
pub mod timing;

pub use cpu::{Cpu, CpuConfig, Fault, Step};
pub use imp::{Imp, ImpConfig, Output, RunStop};
pub use io::{Bus, IoCx, IoError};
pub use loader::Image;
pub use timing::Model;
