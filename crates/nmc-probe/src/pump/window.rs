//! The measured window of a run: what falls in the warm-up (`--omit`, iperf3's `-O`) and what
//! in the run after it. One rule for every figure that splits the two: the sender's analysis,
//! the receiver's figures, the interval lines' marks and `messages.csv`.

use crate::time::Nanos;

/// Whether a RFNM at `t` (from the run's start) came within a warm-up of `omit` (`--omit`):
/// the one rule the figures, the interval lines' marks and `messages.csv` share.
pub fn in_warm_up(t: Nanos, omit: Nanos) -> bool {
    omit > Nanos::ZERO && t <= omit
}

/// Whether a RFNM at `t` came within the measured run: after the warm-up, at most `duration`
/// after it.
pub fn in_run(t: Nanos, omit: Nanos, duration: Nanos) -> bool {
    !in_warm_up(t, omit) && t <= omit.saturating_add(duration)
}
