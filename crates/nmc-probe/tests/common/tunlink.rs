//! A point-to-point link emulator in user space, for kernels built without `sch_netem` (such as
//! this project's CI machines: `CONFIG_NET_SCH_NETEM is not set`).
//!
//! Each namespace of the pair gets a TUN device (`tun0`, IP only, no link header); a thread holds
//! both devices' file descriptors and carries every IP packet from one to the other the way
//! netem would on each direction independently:
//!
//! 1. loss: drop with probability `loss`, from a seeded generator (so a run is repeatable);
//! 2. rate: the packet waits for the line to be free, then takes `(len + overhead)·8 / rate`
//!    seconds on it, where `len` is the IP datagram length and `overhead` the per-packet link
//!    bytes the line charges (set to 14, Ethernet's header, to match netem on a veth);
//! 3. delay: then a fixed `delay` more, and it is written into the other namespace's stack.
//!
//! So a volley of length L sees, one way, `delay + (L + overhead)·8/rate`, exactly netem's
//! `delay D rate R` on a veth (netem also adds the serialisation time after the delay, and
//! charges the 14-byte Ethernet header). Wake-ups use `ppoll` with nanosecond timeouts and a 1 ns
//! timer slack; lateness of the emulator's own wake-ups is measured and reported.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What the emulated line does to each direction.
#[derive(Debug, Clone, Copy)]
pub struct LinkParams {
    pub delay: Duration,
    /// Line rate, bit/s; `None` for no serialisation time.
    pub rate_bps: Option<f64>,
    /// Bytes charged per packet besides the IP datagram.
    pub overhead: u32,
    /// Probability of dropping each packet.
    pub loss: f64,
    pub seed: u64,
}

/// Opens `/dev/net/tun` as device `name` (IFF_TUN | IFF_NO_PI) in the calling thread's namespace.
pub fn open_tun(name: &str) -> std::io::Result<File> {
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
#[derive(Debug, Default, Clone, Copy)]
pub struct DirStats {
    pub carried: u64,
    pub dropped: u64,
    /// Largest lateness of a delivery behind its scheduled time, ns.
    pub max_late_ns: u64,
}

struct Direction {
    from: File,
    to: File,
    queue: VecDeque<(u64, Vec<u8>)>,
    busy_until: u64,
    rng: u64,
    stats: DirStats,
}

impl Direction {
    fn uniform(&mut self) -> f64 {
        // xorshift64*: ample for Bernoulli draws in a test.
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        (self.rng.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The running emulator; stops (and closes both devices) when dropped.
pub struct TunLink {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<[DirStats; 2]>>,
}

impl TunLink {
    /// Starts carrying packets between the two devices (`a` → `b` and `b` → `a`).
    pub fn start(a: File, b: File, p: LinkParams) -> std::io::Result<TunLink> {
        let dirs = [
            Direction {
                from: a.try_clone()?,
                to: b.try_clone()?,
                queue: VecDeque::new(),
                busy_until: 0,
                rng: p.seed | 1,
                stats: DirStats::default(),
            },
            Direction {
                from: b,
                to: a,
                queue: VecDeque::new(),
                busy_until: 0,
                rng: p.seed.rotate_left(32) | 1,
                stats: DirStats::default(),
            },
        ];
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let handle = std::thread::spawn(move || run(dirs, p, &s2));
        Ok(TunLink {
            stop,
            handle: Some(handle),
        })
    }

    /// Stops the emulator and returns the counts of both directions (a→b, b→a).
    pub fn stop(mut self) -> [DirStats; 2] {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.take().unwrap().join().expect("link thread")
    }
}

impl Drop for TunLink {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn run(mut dirs: [Direction; 2], p: LinkParams, stop: &AtomicBool) -> [DirStats; 2] {
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
                let (due, pkt) = d.queue.pop_front().unwrap();
                let _ = d.to.write(&pkt);
                d.stats.max_late_ns = d.stats.max_late_ns.max(now().saturating_sub(due));
            }
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
                if d.uniform() < p.loss {
                    d.stats.dropped += 1;
                    continue;
                }
                let start = arrived.max(d.busy_until);
                let tx = p.rate_bps.map_or(0, |r| {
                    ((n as f64 + f64::from(p.overhead)) * 8.0 / r * 1e9).round() as u64
                });
                d.busy_until = start + tx;
                d.queue.push_back((start + tx + delay, buf[..n].to_vec()));
                d.stats.carried += 1;
            }
        }
    }
    [dirs[0].stats, dirs[1].stats]
}
