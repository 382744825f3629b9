//! The I/O bus: what a device implements so the CPU's OCP, SKS, INA and OTA reach it.
//!
//! The I/O instruction word (DDP-516 PRM, input/output instructions): bits 1–2 choose the
//! instruction (OCP 00, SKS 01, INA 10, OTA 11), bits 3–6 are 1100, bits 7–10 the function,
//! bits 11–16 the device. INA's function bit 7 (octal 1000 of the word) clears A first; the
//! device sees the function without it.
//!
//! * OCP (output control pulse): the device acts; no skip.
//! * SKS (skip if set): skip if the device's named condition holds.
//! * INA (input to A): if the device is ready its word is OR'ed into A and the next word is
//!   skipped; if not, nothing happens (programs loop on `INA; JMP *-1`).
//! * OTA (output from A): if the device takes the word, skip.
//!
//! Device 20 (SMK, OTK) is the CPU's own and never reaches the bus.

use crate::interrupt::Interrupts;
use crate::memory::Memory;
use crate::timing::Model;

/// What a device can reach while it handles an I/O instruction.
pub struct IoCx<'a> {
    /// The time the instruction's cycles end, in ns since the machine started.
    pub now_ns: u64,
    /// Core memory (for DMC transfers and their address words).
    pub mem: &'a mut Memory,
    /// Interrupt requests.
    pub irq: &'a mut Interrupts,
    /// The machine model (SKS 26 on an IMP asks "am I a 516?").
    pub model: Model,
    /// Half cycles the device stole from the CPU (DMC words moved now).
    pub stolen_half_cycles: u64,
}

/// Why a device refused an I/O instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoError {
    /// No device answers to this device code.
    NoDevice,
    /// The device has no such function for this instruction.
    NoFunction,
}

/// A device bus: everything on the machine's I/O lines.
pub trait Bus {
    /// OCP `dev` function `func`.
    fn ocp(&mut self, cx: &mut IoCx<'_>, dev: u8, func: u8) -> Result<(), IoError>;
    /// SKS: `Ok(true)` skips.
    fn sks(&mut self, cx: &mut IoCx<'_>, dev: u8, func: u8) -> Result<bool, IoError>;
    /// INA: `Ok(Some(word))` when ready (the word is OR'ed into A and the CPU skips).
    fn ina(&mut self, cx: &mut IoCx<'_>, dev: u8, func: u8) -> Result<Option<u16>, IoError>;
    /// OTA: `Ok(true)` when the device took the word (the CPU skips).
    fn ota(&mut self, cx: &mut IoCx<'_>, dev: u8, func: u8, a: u16) -> Result<bool, IoError>;
}

/// A bus with nothing on it: every I/O instruction is refused.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoDevices;

impl Bus for NoDevices {
    fn ocp(&mut self, _: &mut IoCx<'_>, _: u8, _: u8) -> Result<(), IoError> {
        Err(IoError::NoDevice)
    }
    fn sks(&mut self, _: &mut IoCx<'_>, _: u8, _: u8) -> Result<bool, IoError> {
        Err(IoError::NoDevice)
    }
    fn ina(&mut self, _: &mut IoCx<'_>, _: u8, _: u8) -> Result<Option<u16>, IoError> {
        Err(IoError::NoDevice)
    }
    fn ota(&mut self, _: &mut IoCx<'_>, _: u8, _: u8, _: u16) -> Result<bool, IoError> {
        Err(IoError::NoDevice)
    }
}
