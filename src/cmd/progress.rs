//! A progress bar that appears only when a task has run for more than a second and stderr is
//! a terminal (indicatif hides itself otherwise).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::Cell;
use std::time::{Duration, Instant};

pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    shown: Cell<bool>,
}

impl Progress {
    pub fn new(label: &str) -> Self {
        let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(
                "{prefix:>20} [{bar:40}] {percent:>3}% {elapsed_precise} (eta {eta})",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        bar.set_prefix(label.to_string());
        Progress {
            bar,
            started: Instant::now(),
            shown: Cell::new(false),
        }
    }

    /// Sets the fraction done (0..=1).
    pub fn set(&self, fraction: f64) {
        if !self.shown.get() && self.started.elapsed() > Duration::from_secs(1) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown.set(true);
        }
        self.bar
            .set_position((fraction.clamp(0.0, 1.0) * 1000.0) as u64);
    }

    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}
