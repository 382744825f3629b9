//! nmc-rto's integration tests: one test binary (issue 72: one link per crate, not one per
//! file), one module per subject.

mod estimators;
mod formats;
mod properties;

/// Where proptest keeps the seeds of failing cases: beside the test's own file
/// (`<module>.proptest-regressions`), where they were when each file was a test binary of its
/// own. Proptest's default looks for the directory holding `main.rs` and would keep them in
/// `tests/proptest-regressions/` instead.
fn regressions() -> Option<Box<dyn proptest::test_runner::FailurePersistence>> {
    Some(Box::new(
        proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
    ))
}
