//! Ctrl-C (SIGINT) and SIGTERM as a stop flag, so that a server prints its final summary and a
//! probe writes what it has measured. A second signal ends the process at once (exit 130).
//!
//! The handlers are [`signal_hook`]'s (issue 34 item 8): installed with `sigaction` and
//! `SA_RESTART`, chained with any handler already there, and available wherever the crate
//! builds (on Windows, SIGINT and SIGTERM as the C runtime delivers them). Nothing here relies
//! on a signal interrupting a socket call: every instrument's wait is bounded (at most 100 ms)
//! and reads the flag between waits.

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;
use std::io;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

/// The exit status after a second signal: 128 + SIGINT, as a shell reports an interrupted
/// command.
pub const EXIT_ON_SECOND_SIGNAL: i32 = 130;

static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Installs the handlers (once per process) and returns the flag they set. Fails only if the
/// platform refuses a handler for SIGINT or SIGTERM.
pub fn stop_on_signals() -> io::Result<&'static AtomicBool> {
    if let Some(stop) = STOP.get() {
        return Ok(stop);
    }
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag as the previous signal left it: set means this
        // is the second signal, and the process ends at once.
        flag::register_conditional_shutdown(signal, EXIT_ON_SECOND_SIGNAL, stop.clone())?;
        flag::register(signal, stop.clone())?;
    }
    // Two threads racing here would both install handlers; the loser's flag is set too but
    // never read. The instruments call this once, from the main thread.
    Ok(STOP.get_or_init(|| stop))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;
    use std::time::{Duration, Instant};

    /// The first SIGTERM sets the flag and the process goes on (a second would end it, which a
    /// test in this process cannot watch; `tests/cli` does, on a server).
    #[test]
    fn a_signal_sets_the_flag() {
        let stop = stop_on_signals().unwrap();
        assert!(
            std::ptr::eq(stop, stop_on_signals().unwrap()),
            "installed once"
        );
        assert!(!stop.load(Ordering::SeqCst));
        signal_hook::low_level::raise(SIGTERM).unwrap();
        let until = Instant::now() + Duration::from_secs(2);
        while !stop.load(Ordering::SeqCst) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(stop.load(Ordering::SeqCst));
    }
}
