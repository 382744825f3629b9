//! # nmc-h316 — a Honeywell 316/516 emulator with the ARPANET IMP's devices
//!
//! (map written below once the modules exist)

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
