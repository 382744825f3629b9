//! nmc-cost's integration tests: one test binary (issue 72: one link per crate, not one per
//! file), one module per subject.

mod live_loopback;
mod utah_tables;
