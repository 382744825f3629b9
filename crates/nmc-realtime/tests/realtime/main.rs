//! nmc-realtime's integration tests: one test binary (issue 72: one link per crate, not one per
//! file), one module per subject. `shaped_link` enters its network namespaces on threads of its
//! own (`nmc_probe::path::netns::in_netns`), so it shares the process with the loopback tests.

/// The probe tests' helpers: network namespaces joined by a shaped link.
#[cfg(target_os = "linux")]
#[path = "../../../nmc-probe/tests/probe/common/mod.rs"]
mod common;

mod shaped_link;
mod stream_loopback;
mod stream_reverse;
