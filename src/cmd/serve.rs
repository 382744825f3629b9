//! `nmc serve`: one server for every instrument, on one port (UDP and TCP). The echo server
//! (`nmc-probe`) owns the sockets and serves the echo probe and the pump; the stream sink
//! (`nmc-realtime`) and the cost sink (`nmc-cost`) are handed to it as services, told apart by
//! their first bytes (`nmc_serve::mux`). This file turns options into those types and logs.

use crate::Outcome;
use crate::cmd::echo::{EchoLimits, serve_times};
use crate::cmd::gate::key_from;
use crate::cmd::units;
use anyhow::{Context, Result};
use clap::Args;
use nmc_probe::udp::{DEFAULT_PORT, EchoServer, ServeOptions};
use nmc_serve::Services;
use nmc_serve::gate::Log;
use nmc_sim::SimDuration;
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    nmc serve                                          # every instrument on UDP and TCP port 8890\n  \
    nmc serve --secret-file /etc/nmc/secret --log-file /var/log/nmc-serve.log\n\n\
Answers, on one port: `nmc echo probe` (UDP), `nmc pump` and `nmc pump -R` (UDP and TCP), \
`nmc stream` and `nmc stream -R` (UDP and TCP) and `nmc cost HOST` (TCP; UDP without a secret). \
Every TCP connection passes the same gate (caps, minimum rate) and, with --secret-file, the same \
challenge; UDP datagrams then need the secret's tag (cost's UDP transfers carry none, so they \
are not served: a tag per datagram would be part of the CPU it measures). Needs no terminal: log lines go to stderr, or with --log-file to a file \
(appended, a UTC time on each line, the file reopened for each line so that log rotation needs \
no signal). SIGTERM or Ctrl-C stops it cleanly, with a last summary. A systemd unit is in the \
book (docs/src/how-to/serve.md). `nmc echo serve --pump`, `nmc sink` and `nmc cost --serve` remain, each serving its own.")]
pub struct ServeArgs {
    /// Address and port (UDP and TCP) to listen on.
    #[arg(long, default_value_t = nmc_serve::bind::any(DEFAULT_PORT))]
    pub listen: SocketAddr,
    /// Serve only clients that hold this shared secret (HMAC-SHA256; the file's bytes,
    /// surrounding whitespace removed; at least 16): the TCP challenge, and a tag on each UDP
    /// request.
    #[arg(long, value_name = "FILE")]
    pub secret_file: Option<PathBuf>,
    /// Append log lines to this file, each with its UTC time, instead of writing them to stderr.
    #[arg(long, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// Print a summary line this often: 60s, or a bare number of seconds (`0`: only at the end).
    #[arg(long, default_value = "60s", value_parser = units::duration)]
    pub log_every: SimDuration,
    /// Stop by itself after this long: 10min, or a bare number of seconds.
    #[arg(long, value_parser = units::duration)]
    pub duration: Option<SimDuration>,
    #[command(flatten)]
    pub limits: EchoLimits,
    #[command(flatten)]
    pub gate: crate::cmd::gate::GateArgs,
}

/// Where log lines go: stderr as they are, or appended to a file with the time in front.
fn log_writer(file: Option<&Path>) -> Result<Log> {
    let Some(path) = file else {
        return Ok(Arc::new(|l: &str| eprintln!("{l}")));
    };
    // Never through a link or into another user's file (issue 57 §1): the log is reopened for
    // each line, so a link planted later is refused then too.
    let open = |p: &Path| nmc_report::files::append(p);
    // Refused now, not at the first line: a path that cannot be written is a start-up error.
    open(path).with_context(|| format!("--log-file {}", path.display()))?;
    let path = path.to_path_buf();
    Ok(Arc::new(move |l: &str| {
        let stamp = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ");
        let line = format!("{stamp} {l}\n");
        // A log that cannot be written must not stop the server: say so on stderr instead.
        if open(&path)
            .map_err(nmc_report::files::WriteError::into_io)
            .and_then(|mut f| f.write_all(line.as_bytes()))
            .is_err()
        {
            eprint!("{line}");
        }
    }))
}

pub fn run(a: ServeArgs) -> Result<Outcome> {
    let key = key_from(&a.secret_file)?;
    let log = log_writer(a.log_file.as_deref())?;
    let (log_interval, duration) = serve_times(a.log_every, a.duration);
    let opts = ServeOptions {
        config: a.limits.config(key.is_some())?,
        key: key.clone(),
        log_interval,
        duration,
        pump: true,
        limits: a.gate.limits()?,
        services: Services::default(),
    };
    let server = EchoServer::bind(a.listen, opts)?;
    let stream = nmc_realtime::stream::sink::SinkService::new(
        server.socket().context("a handle on the UDP socket")?,
        key.clone(),
    );
    let cost_log = log.clone();
    let cost = nmc_cost::live::CostService::new(key.is_some(), Arc::new(move |l| cost_log(&l)));
    let server = server
        .with_services(Services(vec![Arc::new(stream), Arc::new(cost)]))
        .with_log("nmc serve", log.clone());
    log(&format!(
        "nmc serve: on {} (udp and tcp): echo probe (udp), pump (udp, tcp), stream (udp, tcp), cost (tcp{})",
        server.local_addr()?,
        if key.is_some() { "" } else { ", udp" }
    ));
    let stop = nmc_probe::signal::stop_on_signals()?;
    server.run(stop, &mut |line| log(line))?;
    Ok(Outcome::Ok)
}
