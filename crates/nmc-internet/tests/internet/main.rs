//! nmc-internet's integration tests: one test binary (issue 72: one link per crate, not one per
//! file), one module per subject.

mod hops;
mod model;
mod subnet;
