//! Integer time for the protocol cores, and the one place that reads the operating system's clocks.
//!
//! The time type is `nmc_sim`'s [`Nanos`] (re-exported here), shared with `nmc-rto`; logs and
//! reports print it with [`Nanos::human`] (`104.2ms`). The cores ([`crate::server::ServerCore`], [`crate::probe::Probe`]) never read a clock: every
//! input carries a [`Nanos`] that the driver took from a [`Clock`]. A [`Clock`] is the monotonic
//! clock (`std::time::Instant`, i.e. `CLOCK_MONOTONIC` on Linux) counted in nanoseconds from the
//! moment the clock was made, so a probe's first volley is sent at about 0.
//! (Durations typed by a user are parsed by the CLI with `nmc_sim`'s units, like every other
//! quantity of the `nmc` command line.)

use nmc_report::stats::{Rule, percentile_position};
use serde::Serialize;
use std::fmt;
use std::time::Instant;

pub use nmc_sim::Nanos;

/// The monotonic clock, in nanoseconds since the clock was made.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    origin: Instant,
}

impl Default for Clock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock {
    /// A clock whose zero is now.
    pub fn new() -> Clock {
        Clock {
            origin: Instant::now(),
        }
    }
    /// Nanoseconds elapsed since the clock was made.
    pub fn now(&self) -> Nanos {
        Nanos::from_duration(self.origin.elapsed())
    }
    /// The time of `t`, an instant read elsewhere (another thread stamped an arrival), on this
    /// clock; 0 if it was before the clock started.
    pub fn at(&self, t: Instant) -> Nanos {
        Nanos::from_duration(t.saturating_duration_since(self.origin))
    }
}

/// Nanoseconds since the Unix epoch on the wall clock (`CLOCK_REALTIME`); 0 if the clock is
/// before 1970. Used for the server's receive stamp, which a client with a synchronised clock
/// may compare with its own, and for when a run started; never for a round trip.
pub fn unix_now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// What the probe learned about its own clock before it started.
#[derive(Debug, Clone, Copy, Serialize, serde::Deserialize)]
pub struct TimerResolution {
    /// Resolution the kernel claims for `CLOCK_MONOTONIC` (`clock_getres`), in ns.
    pub claimed_ns: u64,
    /// Smallest non-zero step seen between two successive readings of the clock, in ns.
    pub observed_step_ns: u64,
    /// Median cost of one clock reading, in ns (what a timestamp costs the probe).
    pub read_cost_ns: u64,
}

impl fmt::Display for TimerResolution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "monotonic clock: claimed resolution {}, smallest observed step {}, one reading costs {}",
            Nanos(self.claimed_ns).human(),
            Nanos(self.observed_step_ns).human(),
            Nanos(self.read_cost_ns).human()
        )
    }
}

/// Measures the monotonic clock: reads it back to back until it has seen `samples` non-zero steps
/// (or 200 000 readings), and asks the kernel what it claims.
pub fn measure_timer_resolution(samples: usize) -> TimerResolution {
    let mut claimed_ns = 0;
    // SAFETY: clock_getres writes one timespec into the struct we own.
    unsafe {
        let mut ts: libc::timespec = std::mem::zeroed();
        if libc::clock_getres(libc::CLOCK_MONOTONIC, &mut ts) == 0 {
            claimed_ns = (ts.tv_sec as u64) * 1_000_000_000 + ts.tv_nsec as u64;
        }
    }
    let clock = Clock::new();
    let mut steps = Vec::with_capacity(samples);
    let mut costs = Vec::with_capacity(samples);
    let mut prev = clock.now();
    let mut readings = 0usize;
    while steps.len() < samples && readings < 200_000 {
        let t = clock.now();
        readings += 1;
        let d = t.0 - prev.0;
        costs.push(d);
        if d > 0 {
            steps.push(d);
        }
        prev = t;
    }
    costs.sort_unstable();
    TimerResolution {
        claimed_ns,
        observed_step_ns: steps.iter().copied().min().unwrap_or(0),
        read_cost_ns: percentile_position(costs.len(), 0.5, Rule::Round)
            .map_or(0, |(i, _)| costs[i]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nanos_print_readably() {
        assert_eq!(Nanos(850).human().to_string(), "850ns");
        assert_eq!(Nanos(12_500).human().to_string(), "12.5us");
        assert_eq!(Nanos(104_200_000).human().to_string(), "104.2ms");
        assert_eq!(Nanos(3_000_000_000).human().to_string(), "3.000s");
    }

    #[test]
    fn timer_resolution_is_measured() {
        let r = measure_timer_resolution(100);
        assert!(r.observed_step_ns > 0);
        assert!(r.observed_step_ns < 10_000_000, "{r}");
    }
}
