//! Helpers shared by the integration tests: a server on a thread, and a pair of network
//! namespaces joined by a veth link that the test makes and always removes.
#![allow(dead_code)]

#[cfg(target_os = "linux")]
mod netns;
#[cfg(target_os = "linux")]
#[allow(unused_imports)]
pub use netns::*;

use nmc_probe::server::{ServerConfig, ServerCounters};
use nmc_probe::udp::{EchoServer, ServeOptions};
use nmc_probe::{Key, LengthSpec, Pacing, ProbeConfig};
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// Prints a line that `cargo test` does not capture (the print macros are captured; a direct
/// write to the stderr handle is not), so a skip is visible in CI logs.
pub fn say(msg: &str) {
    let _ = writeln!(std::io::stderr(), "{msg}");
}

/// A server running on its own thread until [`RunningServer::stop`].
pub struct RunningServer {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<ServerCounters>>,
}

impl RunningServer {
    /// Binds (in the calling thread's network namespace, or in `netns` if given) and serves.
    pub fn start(
        listen: SocketAddr,
        config: ServerConfig,
        key: Option<Key>,
        netns: Option<&str>,
    ) -> RunningServer {
        let opts = ServeOptions {
            config,
            key,
            log_interval: None,
            // A server left behind by a failed test still stops by itself.
            duration: Some(Duration::from_secs(180)),
            pump: true,
            limits: nmc_serve::Limits::default(),
            services: Default::default(),
        };
        let server = match netns {
            #[cfg(not(target_os = "linux"))]
            Some(_) => panic!("network namespaces are Linux only"),
            #[cfg(target_os = "linux")]
            Some(ns) => {
                let ns = ns.to_string();
                std::thread::spawn(move || {
                    nmc_probe::path::netns::enter_netns(&ns).expect("enter netns");
                    EchoServer::bind(listen, opts).expect("bind server")
                })
                .join()
                .expect("bind thread")
            }
            None => EchoServer::bind(listen, opts).expect("bind server"),
        };
        let addr = server.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let handle = std::thread::spawn(move || {
            server
                .run(&s2, &mut |line| say(&format!("    [server] {line}")))
                .expect("server run")
        });
        RunningServer {
            addr,
            stop,
            handle: Some(handle),
        }
    }

    /// Stops the server and returns its counters; panics if the server thread panicked.
    pub fn stop(mut self) -> ServerCounters {
        self.stop.store(true, Ordering::Relaxed);
        self.handle
            .take()
            .unwrap()
            .join()
            .expect("server thread survived")
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// A probe configuration for tests; drivers fill in floor and maximum.
pub fn probe_config(
    count: u32,
    lengths: LengthSpec,
    pacing: Pacing,
    timeout_ms: u64,
) -> ProbeConfig {
    ProbeConfig {
        count,
        lengths,
        pacing,
        timeout: nmc_probe::time::Nanos(timeout_ms * 1_000_000),
        seed: 889,
        floor: 40,
        max_length: 65_535,
        open_timeout: None,
        silent_losses: None,
    }
}

/// Generous server limits for tests that are not about rate limiting.
pub fn open_server_config() -> ServerConfig {
    ServerConfig {
        rate_per_source: 1e6,
        burst_per_source: 1e6,
        global_rate: 1e6,
        global_burst: 1e6,
        ..ServerConfig::default()
    }
}
