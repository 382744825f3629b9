//! nmc-h316's integration tests: one test binary (issue 72: one link per crate, not one per
//! file), one module per subject.

mod cpu_programs;
mod imp_devices;
mod imp_program;
