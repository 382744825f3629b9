//! nmc-experiments' integration tests: one test binary (issue 72: one link per crate, not one
//! per file), one module per subject.

mod parallel;
mod rfc632_tables;
