//! The options every server shares: the connection gate's limits (`nmc_serve::gate`) and the
//! shared secret. One struct, flattened into `nmc echo serve`, `nmc sink` and `nmc cost
//! --serve`, so the three accept the same flags with the same defaults.

use anyhow::{Context, Result, bail};
use clap::Args;
use nmc_serve::gate::{
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_PER_SOURCE, DEFAULT_MIN_RATE, DEFAULT_WINDOW,
};
use nmc_serve::{Key, Limits};
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
    /// Server: the window, seconds, over which a TCP connection must send --min-rate; one that
    /// sends less is closed (a byte now and then does not restart it).
    #[arg(long, default_value_t = DEFAULT_WINDOW.as_secs())]
    pub idle_timeout_s: u64,
    /// Server: bytes per second a TCP client must send, averaged over each window.
    #[arg(long, default_value_t = DEFAULT_MIN_RATE)]
    pub min_rate: u64,
}

impl GateArgs {
    pub fn limits(&self) -> Result<Limits> {
        let l = Limits {
            max_connections: self.max_connections,
            max_per_source: self.max_per_source,
            window: Duration::from_secs(self.idle_timeout_s),
            min_rate: self.min_rate,
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
