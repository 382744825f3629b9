//! Network namespaces through iproute2's `ip netns` (named, under `/var/run/netns`): make and
//! remove one, run code inside one, set a sysctl inside one. Linux only, and root (or
//! `CAP_NET_ADMIN` and `CAP_SYS_ADMIN`) only.

use std::os::fd::AsRawFd;
use std::process::Command;

/// Where `ip netns` keeps its named namespaces.
pub const NETNS_DIR: &str = "/var/run/netns";

/// Moves the calling thread into the named network namespace. Sockets and devices it makes
/// afterwards live there, whichever thread later uses them.
pub fn enter_netns(name: &str) -> std::io::Result<()> {
    let f = std::fs::File::open(format!("{NETNS_DIR}/{name}"))?;
    // SAFETY: setns on an fd we own; it affects only this thread.
    let rc = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Runs `f` on a fresh thread inside network namespace `ns` and returns its result; the thread
/// that calls stays where it is.
///
/// # Panics
/// If the namespace cannot be entered (it does not exist, or no privilege), or `f` panics.
pub fn in_netns<T: Send + 'static>(ns: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let ns = ns.to_string();
    std::thread::spawn(move || {
        enter_netns(&ns).unwrap_or_else(|e| panic!("cannot enter network namespace {ns}: {e}"));
        f()
    })
    .join()
    .expect("thread in netns")
}

/// Runs a command to its end; its stderr, trimmed, is the error when it fails.
pub fn run(args: &[&str]) -> Result<(), String> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| format!("{}: {e}", args.join(" ")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Writes a sysctl inside namespace `ns` (through /proc/sys, so no `sysctl` binary is needed).
pub fn sysctl(ns: &str, key: &str, value: &str) -> Result<(), String> {
    run(&[
        "ip",
        "netns",
        "exec",
        ns,
        "sh",
        "-c",
        &format!("echo '{value}' > /proc/sys/{key}"),
    ])
}

/// Whether a namespace of this name exists.
pub fn exists(name: &str) -> bool {
    std::path::Path::new(NETNS_DIR).join(name).exists()
}
