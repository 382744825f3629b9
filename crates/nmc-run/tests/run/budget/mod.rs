//! A wall-clock budget for the runs a robustness test makes (shared by `mutated_scenarios` and
//! `hostile_counts`).
//!
//! A mutation such as `20.16ms` → `20.16ns` asks for a million times the events, and a debug
//! build then runs one case for minutes: a crawl the scenario asked for, not a defect (the
//! sizes such a value can reach are bounded by `hostile_counts`, and every allocation happens
//! before the first progress call). The test's question is whether a run panics, hangs or is
//! refused in more than one line, so a run that is still making progress when its budget is
//! spent is stopped there and counted as running. A run that never reports progress is still
//! caught by the test's hang limit.

use std::any::Any;
use std::time::{Duration, Instant};

/// The panic payload that stops a run over its budget. Raised with `resume_unwind`, which
/// calls no panic hook, so a stopped run prints nothing.
pub struct OverBudget;

/// A progress callback that stops the run once `budget` has passed since it was made. The
/// simulators call it 50–100 times a run, so a run stops within one of those slices.
pub fn progress_within(budget: Duration) -> impl Fn(f64) {
    let start = Instant::now();
    move |_| {
        if start.elapsed() > budget {
            std::panic::resume_unwind(Box::new(OverBudget));
        }
    }
}

/// Whether a caught panic is a budget stop rather than a failure.
pub fn stopped(payload: &(dyn Any + Send)) -> bool {
    payload.is::<OverBudget>()
}
