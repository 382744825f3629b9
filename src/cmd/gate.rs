//! The options every server shares: the connection gate's limits (`nmc_serve::gate`) and the
//! shared secret. One struct, flattened into `nmc echo serve`, `nmc sink` and `nmc cost
//! --serve`, so the three accept the same flags with the same defaults.

use crate::cmd::units;
use anyhow::{Context, Result, bail};
use clap::Args;
use nmc_serve::gate::{DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_PER_SOURCE};
use nmc_serve::{Key, Limits};
use nmc_sim::{BitRate, SimDuration};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Clone, Debug)]
pub struct GateArgs {
    /// Server: TCP connections served at once; more are closed at once and counted.
    #[arg(long, default_value_t = DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
    /// Server: TCP connections from one IP address at once.
    #[arg(long, default_value_t = DEFAULT_MAX_PER_SOURCE)]
    pub max_per_source: usize,
    /// Server: the window over which a TCP connection must send --min-rate, e.g. 20s (a bare
    /// number is seconds); one that
    /// sends less is closed (a byte now and then does not restart it).
    #[arg(long, default_value = "20s", value_parser = units::duration)]
    pub idle_window: SimDuration,
    /// Server: the rate a TCP client must send, averaged over each window, e.g. 100B/s, 800bit/s,
    /// or iperf3's 800 (bit/s) or 1k (1000 bit/s).
    #[arg(long, default_value = "100B/s", value_parser = crate::cmd::units::rate)]
    pub min_rate: BitRate,
}

impl GateArgs {
    pub fn limits(&self) -> Result<Limits> {
        let l = Limits {
            max_connections: self.max_connections,
            max_per_source: self.max_per_source,
            window: Duration::from_nanos(self.idle_window.as_nanos()),
            // Bytes per second, rounded down: below 8 bit/s is 0 and refused by the check.
            min_rate: self.min_rate.bps() / 8,
            ..Limits::default()
        };
        if let Err(m) = l.check() {
            bail!("{m}");
        }
        Ok(l)
    }
}

/// The key in `--secret-file`, if given.
pub fn key_from(path: &Option<PathBuf>) -> Result<Option<Key>> {
    path.as_ref()
        .map(|p| Key::from_file(p).with_context(|| format!("--secret-file {}", p.display())))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        gate: GateArgs,
    }

    #[test]
    fn the_flags_defaults_are_the_gates() {
        let l = Cli::parse_from(["x"]).gate.limits().unwrap();
        let d = Limits::default();
        assert_eq!(l.window, nmc_serve::gate::DEFAULT_WINDOW);
        assert_eq!(l.min_rate, nmc_serve::gate::DEFAULT_MIN_RATE);
        assert_eq!(
            (l.max_connections, l.max_per_source),
            (d.max_connections, d.max_per_source)
        );
        let l = Cli::parse_from(["x", "--idle-window", "1min", "--min-rate", "1kbit/s"])
            .gate
            .limits()
            .unwrap();
        assert_eq!((l.window, l.min_rate), (Duration::from_secs(60), 125));
    }
}
