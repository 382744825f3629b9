//! A point-to-point line emulated in user space, for kernels built without `sch_netem` (such as
//! this project's CI machines: `CONFIG_NET_SCH_NETEM is not set`).
//!
//! Each end is a TUN device (IP only, no link header); one thread holds both devices' file
//! descriptors and carries every IP packet from one to the other the way netem would, on each
//! direction independently:
//!
//! 1. queue: a packet that finds [`LinkParams::limit`] packets already held (waiting for the
//!    line or in flight on it) is dropped, as netem's `limit` (1000 by default) drops it; so is
//!    one that would take the bytes held past [`LinkParams::limit_bytes`] (the line's memory is
//!    bounded whatever the limit in packets and the delay);
//! 2. loss: drop with probability `loss`, from a seeded generator (ChaCha8, so a run is
//!    repeatable from its seed);
//! 3. rate: the packet waits for the line to be free, then takes `(len + overhead)·8 / rate`
//!    seconds on it, where `len` is the IP datagram length and `overhead` the per-packet link
//!    bytes the line charges (14, Ethernet's header, matches netem on a veth);
//! 4. delay: then a fixed `delay` more, and it is written into the other end's stack.
//!
//! So a packet of length L alone on the line sees, one way, `delay + (L + overhead)·8/rate`,
//! exactly netem's `delay D rate R` on a veth (netem also adds the serialisation time after the
//! delay, and charges the 14-byte Ethernet header). Wake-ups use `ppoll` with nanosecond
//! timeouts and a 1 ns timer slack; how late the emulator's own deliveries were behind their
//! schedule is measured and reported ([`DirStats::max_late_ns`]).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// netem's default queue limit, packets (tc-netem(8), `limit`).
pub const NETEM_LIMIT: usize = 1000;
/// The bytes a direction holds at most by default: 256 MiB, past what any netem-like setting
/// of the instruments needs (1000 packets of 64 KiB are 64 MiB), so that no setting exhausts
/// memory.
pub const DEFAULT_LIMIT_BYTES: usize = 256 << 20;

/// What the emulated line does to each direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkParams {
    /// Fixed one-way delay, after the line.
    pub delay: Duration,
    /// Line rate, bit/s; `None` for no serialisation time.
    pub rate_bps: Option<f64>,
    /// Bytes charged per packet besides the IP datagram.
    pub overhead: u32,
    /// Probability of dropping each packet.
    pub loss: f64,
    /// Packets held at most per direction (waiting and in flight); one more is dropped.
    pub limit: usize,
    /// IP bytes held at most per direction; a packet that would pass it is dropped.
    pub limit_bytes: usize,
    /// Seed of the loss generator.
    pub seed: u64,
}

/// Opens `/dev/net/tun` as device `name` (IFF_TUN | IFF_NO_PI, non-blocking) in the calling
/// thread's network namespace.
pub fn open_tun(name: &str) -> std::io::Result<File> {
    if name.is_empty() || name.len() >= 16 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("device name `{name}`: 1 to 15 bytes"),
        ));
    }
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/net/tun")?;
    let mut ifr = [0u8; 40];
    ifr[..name.len()].copy_from_slice(name.as_bytes());
    let flags = (libc::IFF_TUN | libc::IFF_NO_PI) as i16;
    ifr[16..18].copy_from_slice(&flags.to_ne_bytes());
    // SAFETY: TUNSETIFF reads a struct ifreq (40 bytes) we own.
    let rc = unsafe { libc::ioctl(f.as_raw_fd(), libc::TUNSETIFF, ifr.as_mut_ptr()) };
    if rc < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fcntl on an fd we own.
    unsafe {
        let fl = libc::fcntl(f.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(f.as_raw_fd(), libc::F_SETFL, fl | libc::O_NONBLOCK);
    }
    Ok(f)
}

/// Counts of one direction.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DirStats {
    /// Packets taken onto the line (delivered, or still on their way).
    pub carried: u64,
    /// Their IP bytes.
    pub carried_bytes: u64,
    /// Packets dropped by the loss draw.
    pub dropped: u64,
    /// Packets dropped because the queue held `limit` packets or `limit_bytes` already.
    pub overflowed: u64,
    /// Packets held now (waiting for the line or on it).
    pub queued: u64,
    /// Largest lateness of a delivery behind its scheduled time, ns.
    pub max_late_ns: u64,
}

/// The live counters of one direction, read while the line runs.
#[derive(Default)]
struct Counters {
    carried: AtomicU64,
    carried_bytes: AtomicU64,
    dropped: AtomicU64,
    overflowed: AtomicU64,
    queued: AtomicU64,
    max_late_ns: AtomicU64,
}

impl Counters {
    fn read(&self) -> DirStats {
        let r = |a: &AtomicU64| a.load(Ordering::Relaxed);
        DirStats {
            carried: r(&self.carried),
            carried_bytes: r(&self.carried_bytes),
            dropped: r(&self.dropped),
            overflowed: r(&self.overflowed),
            queued: r(&self.queued),
            max_late_ns: r(&self.max_late_ns),
        }
    }
}

struct Direction {
    from: File,
    to: File,
    queue: VecDeque<(u64, Vec<u8>)>,
    held_bytes: usize,
    busy_until: u64,
    rng: ChaCha8Rng,
    counts: Arc<Counters>,
}

/// The running line; stops (and closes both devices) when dropped.
pub struct TunLink {
    stop: Arc<AtomicBool>,
    counts: [Arc<Counters>; 2],
    handle: Option<JoinHandle<()>>,
}

impl TunLink {
    /// Starts carrying packets between the two devices (`a` → `b` and `b` → `a`).
    pub fn start(a: File, b: File, p: LinkParams) -> std::io::Result<TunLink> {
        let counts = [Arc::new(Counters::default()), Arc::new(Counters::default())];
        let dirs = [
            Direction {
                from: a.try_clone()?,
                to: b.try_clone()?,
                queue: VecDeque::new(),
                held_bytes: 0,
                busy_until: 0,
                rng: ChaCha8Rng::seed_from_u64(p.seed),
                counts: counts[0].clone(),
            },
            Direction {
                from: b,
                to: a,
                queue: VecDeque::new(),
                held_bytes: 0,
                busy_until: 0,
                rng: ChaCha8Rng::seed_from_u64(p.seed.rotate_left(32) ^ 1),
                counts: counts[1].clone(),
            },
        ];
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let handle = std::thread::Builder::new()
            .name("nmc-path-line".into())
            .spawn(move || run(dirs, p, &s2))?;
        Ok(TunLink {
            stop,
            counts,
            handle: Some(handle),
        })
    }

    /// The counts so far of both directions (a→b, b→a).
    pub fn stats(&self) -> [DirStats; 2] {
        [self.counts[0].read(), self.counts[1].read()]
    }

    /// Stops the line and returns the counts of both directions (a→b, b→a).
    pub fn stop(mut self) -> [DirStats; 2] {
        self.halt();
        self.stats()
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for TunLink {
    fn drop(&mut self) {
        self.halt();
    }
}

fn run(mut dirs: [Direction; 2], p: LinkParams, stop: &AtomicBool) {
    // SAFETY: prctl on the calling thread only.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    let origin = Instant::now();
    let now = || origin.elapsed().as_nanos() as u64;
    let delay = p.delay.as_nanos() as u64;
    let mut buf = vec![0u8; 65_536];
    while !stop.load(Ordering::Relaxed) {
        let t = now();
        for d in dirs.iter_mut() {
            while let Some(&(due, _)) = d.queue.front() {
                if due > t {
                    break;
                }
                let (due, pkt) = d.queue.pop_front().expect("a packet at the front");
                d.held_bytes -= pkt.len();
                let _ = d.to.write(&pkt);
                d.counts
                    .max_late_ns
                    .fetch_max(now().saturating_sub(due), Ordering::Relaxed);
            }
            d.counts
                .queued
                .store(d.queue.len() as u64, Ordering::Relaxed);
        }
        let next = dirs
            .iter()
            .filter_map(|d| d.queue.front().map(|x| x.0))
            .min();
        let wait = next
            .map_or(20_000_000, |n| n.saturating_sub(now()))
            .min(20_000_000);
        let mut fds = [
            libc::pollfd {
                fd: dirs[0].from.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: dirs[1].from.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        let ts = libc::timespec {
            tv_sec: (wait / 1_000_000_000) as libc::time_t,
            tv_nsec: (wait % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: two pollfds we own, a timespec we own, no signal mask.
        unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &ts, std::ptr::null()) };
        for (i, d) in dirs.iter_mut().enumerate() {
            if fds[i].revents & libc::POLLIN == 0 {
                continue;
            }
            while let Ok(n) = d.from.read(&mut buf) {
                let arrived = now();
                if n == 0 {
                    break;
                }
                if d.queue.len() >= p.limit || d.held_bytes + n > p.limit_bytes {
                    d.counts.overflowed.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                if p.loss > 0.0 && d.rng.random::<f64>() < p.loss {
                    d.counts.dropped.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                let start = arrived.max(d.busy_until);
                let tx = p.rate_bps.map_or(0, |r| {
                    ((n as f64 + f64::from(p.overhead)) * 8.0 / r * 1e9).round() as u64
                });
                d.busy_until = start + tx;
                d.queue.push_back((start + tx + delay, buf[..n].to_vec()));
                d.held_bytes += n;
                d.counts.carried.fetch_add(1, Ordering::Relaxed);
                d.counts
                    .carried_bytes
                    .fetch_add(n as u64, Ordering::Relaxed);
            }
            d.counts
                .queued
                .store(d.queue.len() as u64, Ordering::Relaxed);
        }
    }
}
