//! nmc-probe's integration tests: one test binary (issue 72: one link per crate, not one per
//! file), one module per subject, and their shared helpers (`common`). The network-namespace
//! tests (`netem`, `netem_pump`) enter their namespaces on threads of their own
//! (`nmc_probe::path::netns::in_netns`), so they share the process with the loopback tests.

mod common;

mod loopback;
mod netem;
mod netem_pump;
mod pump;
mod pump_reverse;
