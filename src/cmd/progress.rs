//! A progress bar that appears only when a task has run for more than a second and stderr is
//! a terminal (indicatif hides itself otherwise). When stderr is not a terminal (a batch job, a
//! log file), a plain line says how far the task is every 10 s instead.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::Cell;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    shown: Cell<bool>,
    /// Set when the bar is one of several drawn together.
    multi: std::cell::RefCell<Option<MultiProgress>>,
    label: String,
    /// When the last plain progress line was printed (stderr not a terminal).
    last_line: Cell<Instant>,
}

/// Between plain progress lines when stderr is not a terminal.
const LINE_EVERY: Duration = Duration::from_secs(10);

impl Progress {
    pub fn new(label: &str) -> Self {
        Self::with_bar(
            ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::hidden()),
            label,
        )
    }

    /// A bar among others drawn together (experiments running side by side).
    pub fn new_in(multi: &MultiProgress, label: &str) -> Self {
        let bar = multi.add(ProgressBar::hidden());
        bar.set_length(1000);
        let p = Self::with_bar(bar, label);
        p.multi.replace(Some(multi.clone()));
        p
    }

    fn with_bar(bar: ProgressBar, label: &str) -> Self {
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
            multi: std::cell::RefCell::new(None),
            label: label.to_string(),
            last_line: Cell::new(Instant::now()),
        }
    }

    /// Sets the fraction done (0..=1).
    pub fn set(&self, fraction: f64) {
        if !self.shown.get() && self.started.elapsed() > Duration::from_secs(1) {
            if self.multi.borrow().is_none() {
                self.bar.set_draw_target(ProgressDrawTarget::stderr());
            }
            self.shown.set(true);
        }
        self.bar
            .set_position((fraction.clamp(0.0, 1.0) * 1000.0) as u64);
        if self.last_line.get().elapsed() >= LINE_EVERY && !std::io::stderr().is_terminal() {
            self.last_line.set(Instant::now());
            eprintln!(
                "nmc: {} {:.0} % after {:.0} s",
                self.label,
                fraction.clamp(0.0, 1.0) * 100.0,
                self.started.elapsed().as_secs_f64()
            );
        }
    }

    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}
