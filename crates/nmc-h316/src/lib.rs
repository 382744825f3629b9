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
//! | [`subnet`] | a lockstep harness: IMPs joined by lines of any topology (speeds on the modems, a propagation delay per line), a byte-stable trace that can be switched off |
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
//! ## Checked against SIMH (issue 73 §4)
//! `nmc oracle emulate` (crate `nmc-oracle`, module `emulate`) replays every recorded SIMH run
//! of `data/oracle/` on this emulator — the same chain of ten IMPs, settings, probe and K&O
//! pump, on this crate's clock — and measures it with the code that measured the recordings.
//! With the tolerance fixed before the first run (5 % on throughput and on K&O's round trip),
//! 56 of the 66 accepted rows agree on both, all 66 on throughput; the misses and their causes
//! are in `data/oracle/emulated/README.md`. RFC 632's two-path run (six IMPs, two 230.4 kbit/s
//! circuits) misses at the same 5 % (+20 % throughput, −22 % round trip): both fall into RFC
//! 632's trap once, at different messages. `nmc oracle emulate-map` runs K&O's pump on the
//! June 1974 map with all 42 IMPs emulated.
//!
//! ## Design notes: an emulated IMP inside nmc's engine (issue 73 §3; not built yet)
//! * **A kind per IMP.** The scenario's `network` gets `imp_kind = "modelled" | "emulated"`
//!   (default modelled, overridable per IMP) and `imp_program = "<path>"`, the user's copy of
//!   the deposit file, read when the run is built (never committed; its sha256 goes into
//!   every output beside the seed). A scenario that chooses nothing builds exactly what it
//!   builds today, so the modelled IMP's outputs stay byte-identical.
//! * **Time.** nmc-sim's `SimTime` is integer ns, as is this crate's clock, so no conversion.
//!   An [`Imp`] runs ahead of the engine only within a lookahead: every emulated IMP is run
//!   by one periodic engine event, `EmuWindow`, to the window's end, half the shortest frame
//!   (72 framing bits) on its lines plus their propagation — what
//!   [`subnet::Subnet::window_ns`] and `nmc-oracle`'s driver do. A window's outputs become
//!   engine events at their own times: a frame's arrival at the far IMP at last bit +
//!   propagation (never inside the window that sent it), a message at a host at its last bit.
//!   Same-time order: (time, IMP index, output order), then the engine's own sequence.
//! * **Lines.** nmc's topology numbers each IMP's links; link k of an IMP is its modem k (the
//!   program drives five; the 1974 map's IMPs have at most four lines). Speed per line is the
//!   modem's bit rate; a line error is [`Imp::deliver_frame`] with `ok = false` (the
//!   program's checksum test and retransmission do the rest); propagation is the driver's.
//!   Frames stay 3050's words end to end: a network is all emulated or all modelled at first.
//!   Mixing kinds needs a codec between nmc-imp's packets and 3050's frame words
//!   (`nmc_oracle::trace::Frame` already reads the header), and is left for later.
//! * **Hosts.** nmc's traffic stays nmc's: a message becomes a 32-bit 1822 leader and text
//!   words given with [`Imp::host_send`] at its time; replies (RFNM, incomplete, dead) are
//!   read back from [`Output::HostMessage`]'s leader. The leader codec lives in
//!   `nmc_oracle::leader`; the engine side would move it (and the pump) into a small crate
//!   both can use rather than make the engine depend on the oracle. A host reacting to an
//!   output acts at the emulated IMP's clock, at most one step later (the oracle driver's
//!   20 µs step; [`Imp::host_send`] refuses a time in the IMP's past).
//! * **Measured from outside the machine.** K&O's round trip and throughput come from the
//!   host interface's [`Output::HostInput`] (the IMP took the last word) and the RFNM's last
//!   bit, as `nmc-oracle` measures SIMH's trace; frames on lines from [`Output::Frame`] /
//!   [`Output::FrameIn`]; nmc's observers get those, not the machine's memory.
//! * **Start-up.** Program 3050 needs about 90 s of simulated time to bring its lines up and
//!   greet its hosts, and a host's first message after that is not answered. A run states its
//!   warm-up (default: until every IMP has greeted its hosts, plus a probe answered); as
//!   [`Imp`] is `Clone`, a warmed-up network can be kept and reused per (topology, program).
//! * **Speed.** Measured by `nmc oracle bench` (crate `nmc-oracle`, module `speed`; the
//!   book's performance page): about 100 M instructions a wall second on one core; an idle
//!   516 IMP runs about 0.53 M instructions a simulated second, so a 10-IMP chain runs about
//!   19 times faster than real time and the June 1974 map's 42 IMPs (22 of them 316s) 5.5–6
//!   times, before any traffic's cost. `benches/ips.rs` times the bare CPU and one or two IMPs.
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
pub use imp::{Imp, ImpConfig, Output, RunStop, Watched};
pub use io::{Bus, IoCx, IoError};
pub use loader::Image;
pub use timing::Model;
