//! nmc-serve's integration tests: one test binary (issue 72: one link per crate, not one per
//! file), one module per subject. `descriptors` is the exception, a binary of its own
//! (tests/descriptors.rs): it lowers the process's descriptor limit, which no other test should
//! share. The helpers both use are in tests/common.

#[path = "../common/mod.rs"]
mod common;

mod attacks;
mod peek;
