//! nmc-cost's integration tests: one test binary (issue 72: one link per crate, not one per
//! file), one module per subject. `tests/live_loopback.rs` keeps its own binary: it reads the
//! CPU time its transfers cost, and tests of another module running beside it in the same
//! process (libtest runs them on parallel threads) pushed a ratio out of its bounds in CI.

mod utah_tables;
