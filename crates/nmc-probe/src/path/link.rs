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
//! 4. delay: then `delay` more, plus a draw uniform on ±`jitter` (netem's `delay D J`), but
//!    never before the packet ahead of it: the line stays first in, first out (netem lets a
//!    packet with a shorter draw overtake, which a real line does not); then it is written into
//!    the other end's stack.
//!
//! Each direction has its own [`LinkParams`], so a path can be asymmetric (an access line).
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

/// What the emulated line does to one direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkParams {
    /// One-way delay, after the line.
    pub delay: Duration,
    /// Each packet's delay varies uniformly on ±`jitter` about `delay` (floored at zero), the
    /// order of packets kept.
    pub jitter: Duration,
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
    /// Seed of the loss and jitter draws.
    pub seed: u64,
}

/// The largest IP datagram a line carries (IPv4's and IPv6's total length field).
pub const MAX_DATAGRAM: u32 = 65_535;

/// The longest time one packet may be held on a direction (its time on the line, the delay and
/// the jitter together). **Choice**: 2⁶² ns, about 146 years: far past any run, far enough
/// below the 584 years a u64 of nanoseconds holds that a line's clock never reaches its end.
pub const MAX_HELD_NS: u64 = 1 << 62;

impl LinkParams {
    /// A packet of `len` IP bytes' time on the line, ns: `(len + overhead)·8 / rate`, rounded;
    /// 0 without a rate. Saturates at `u64::MAX` ([`LinkParams::check`] refuses settings
    /// where it would matter).
    pub fn time_on_line(&self, len: usize) -> u64 {
        self.rate_bps.map_or(0, |r| {
            ((len as f64 + f64::from(self.overhead)) * 8.0 / r * 1e9).round() as u64
        })
    }

    /// Refuses settings whose times cannot be represented (issue 74 §4: `--rate 1bit/s
    /// --overhead 4294967295` put a packet's time on the line past 2⁶⁴ ns, so it wrapped and
    /// the packet was delivered at once; a `--delay` near 584 years wrapped once the line had
    /// run 0.7 s): the largest datagram's time on the line, the delay and the jitter together
    /// must stay under [`MAX_HELD_NS`]. One line naming the options.
    pub fn check(&self) -> Result<(), String> {
        let tx = self.rate_bps.map_or(0.0, |r| {
            (f64::from(MAX_DATAGRAM) + f64::from(self.overhead)) * 8.0 / r * 1e9
        });
        let held = tx + self.delay.as_nanos() as f64 + self.jitter.as_nanos() as f64;
        if held >= MAX_HELD_NS as f64 {
            return Err(format!(
                "--rate, --overhead, --delay and --jitter together hold a {MAX_DATAGRAM}-byte packet \
                 {:.0} years, more than nmc represents ({:.0} years)",
                held / 3.156e16,
                MAX_HELD_NS as f64 / 3.156e16
            ));
        }
        Ok(())
    }
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

/// The memory a held packet of `len` bytes takes, as `limit_bytes` counts it (issue 74 §4: a
/// 29-byte packet was counted as 29 bytes, where it takes about 85): its slot in the queue
/// (the due time and the `Vec`), the allocator's header, and the bytes rounded up to the
/// allocator's 16-byte granule. **Choice**: glibc's malloc on 64-bit Linux (a 16-byte
/// alignment and an 8-byte header, rounded to 16 here); other allocators differ by a few bytes.
pub fn held_cost(len: usize) -> usize {
    std::mem::size_of::<(u64, Vec<u8>)>() + 16 + len.next_multiple_of(16)
}

/// One direction of the line as a core: what it holds and when each packet is due; no I/O, no
/// clock (every input carries the time, in ns from the line's start).
pub struct Line {
    p: LinkParams,
    queue: VecDeque<(u64, Vec<u8>)>,
    held_bytes: usize,
    busy_until: u64,
    /// When the last packet taken is due: none after it is due earlier.
    last_due: u64,
    rng: ChaCha8Rng,
    counts: Arc<Counters>,
}

struct Direction {
    from: File,
    to: File,
    line: Line,
}

/// The running line; stops (and closes both devices) when dropped.
pub struct TunLink {
    stop: Arc<AtomicBool>,
    counts: [Arc<Counters>; 2],
    handle: Option<JoinHandle<()>>,
}

impl TunLink {
    /// Starts carrying packets between the two devices: `a` → `b` as `ab` says, `b` → `a` as
    /// `ba` says.
    pub fn start(a: File, b: File, ab: LinkParams, ba: LinkParams) -> std::io::Result<TunLink> {
        let counts = [Arc::new(Counters::default()), Arc::new(Counters::default())];
        let direction =
            |from: File, to: File, p: LinkParams, seed: u64, counts: &Arc<Counters>| Direction {
                from,
                to,
                line: Line::with_counts(p, seed, counts.clone()),
            };
        let dirs = [
            direction(a.try_clone()?, b.try_clone()?, ab, ab.seed, &counts[0]),
            direction(b, a, ba, ba.seed.rotate_left(32) ^ 1, &counts[1]),
        ];
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let handle = std::thread::Builder::new()
            .name("nmc-path-line".into())
            .spawn(move || run(dirs, &s2))?;
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

impl Line {
    /// A direction with these parameters, its draws seeded with `seed`.
    pub fn new(p: LinkParams, seed: u64) -> Line {
        Line::with_counts(p, seed, Arc::default())
    }

    fn with_counts(p: LinkParams, seed: u64, counts: Arc<Counters>) -> Line {
        Line {
            p,
            queue: VecDeque::new(),
            held_bytes: 0,
            busy_until: 0,
            last_due: 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
            counts,
        }
    }

    /// The counts so far.
    pub fn stats(&self) -> DirStats {
        self.counts.read()
    }

    /// When the first packet held is due, if any.
    pub fn poll_at(&self) -> Option<u64> {
        self.queue.front().map(|x| x.0)
    }

    /// The next packet due by `now`, with the time it was due.
    pub fn poll_due(&mut self, now: u64) -> Option<(u64, Vec<u8>)> {
        if self.poll_at()? > now {
            return None;
        }
        let (due, pkt) = self.queue.pop_front()?;
        self.held_bytes -= held_cost(pkt.len());
        self.counts
            .queued
            .store(self.queue.len() as u64, Ordering::Relaxed);
        Some((due, pkt))
    }

    /// Takes a packet that arrived at `arrived`, or drops it (a full queue, or the loss draw);
    /// true if taken.
    pub fn take(&mut self, packet: &[u8], arrived: u64) -> bool {
        let (p, n) = (self.p, packet.len());
        if self.queue.len() >= p.limit || self.held_bytes + held_cost(n) > p.limit_bytes {
            self.counts.overflowed.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        if p.loss > 0.0 && self.rng.random::<f64>() < p.loss {
            self.counts.dropped.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        let start = arrived.max(self.busy_until);
        let tx = p.time_on_line(n);
        // Issue 74 §4: saturating, so that a packet due past the clock's end is held (never
        // delivered) rather than wrapped to now; LinkParams::check refuses settings that get
        // near it.
        self.busy_until = start.saturating_add(tx);
        let delay = p.delay.as_nanos() as i128;
        let jitter = p.jitter.as_nanos() as i128;
        let drawn = if jitter > 0 {
            delay + self.rng.random_range(-jitter..=jitter)
        } else {
            delay
        };
        let due = (i128::from(self.busy_until) + drawn.max(0)).min(i128::from(u64::MAX)) as u64;
        self.last_due = due.max(self.last_due);
        self.queue.push_back((self.last_due, packet.to_vec()));
        self.held_bytes += held_cost(n);
        self.counts.carried.fetch_add(1, Ordering::Relaxed);
        self.counts
            .carried_bytes
            .fetch_add(n as u64, Ordering::Relaxed);
        self.counts
            .queued
            .store(self.queue.len() as u64, Ordering::Relaxed);
        true
    }
}

fn run(mut dirs: [Direction; 2], stop: &AtomicBool) {
    // SAFETY: prctl on the calling thread only.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    let origin = Instant::now();
    let now = || origin.elapsed().as_nanos() as u64;
    let mut buf = vec![0u8; 65_536];
    while !stop.load(Ordering::Relaxed) {
        let t = now();
        for d in dirs.iter_mut() {
            while let Some((due, pkt)) = d.line.poll_due(t) {
                let _ = d.to.write(&pkt);
                d.line
                    .counts
                    .max_late_ns
                    .fetch_max(now().saturating_sub(due), Ordering::Relaxed);
            }
        }
        let next = dirs.iter().filter_map(|d| d.line.poll_at()).min();
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
                if n == 0 {
                    break;
                }
                d.line.take(&buf[..n], now());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn params() -> LinkParams {
        LinkParams {
            delay: Duration::from_millis(20),
            jitter: Duration::ZERO,
            rate_bps: Some(1e6),
            overhead: 14,
            loss: 0.0,
            limit: NETEM_LIMIT,
            limit_bytes: DEFAULT_LIMIT_BYTES,
            seed: 1,
        }
    }

    /// Issue 74 §4: a packet's time on the line that passes 2⁶⁴ ns is held for ever, not
    /// wrapped to a delivery at once; settings that get near it are refused.
    #[test]
    fn times_past_the_clocks_end_are_refused_and_never_wrap() {
        let huge = LinkParams {
            rate_bps: Some(1.0),
            overhead: u32::MAX,
            ..params()
        };
        let e = huge.check().unwrap_err();
        assert!(e.contains("--overhead") && e.contains("years"), "{e}");
        let mut l = Line::new(huge, 1);
        assert!(l.take(&[0; 29], 5));
        assert_eq!(l.poll_at(), Some(u64::MAX));
        assert!(l.poll_due(u64::MAX - 1).is_none());
        let far = LinkParams {
            delay: Duration::from_nanos(u64::MAX - 700_000_000),
            ..params()
        };
        assert!(far.check().is_err());
        let mut l = Line::new(far, 1);
        assert!(l.take(&[0; 29], 700_000_000));
        assert_eq!(l.poll_at(), Some(u64::MAX));
        assert!(params().check().is_ok());
    }

    /// Issue 74 §4: `limit_bytes` counts what a held packet takes, not its length alone.
    #[test]
    fn the_byte_limit_counts_what_a_packet_holds() {
        assert_eq!(held_cost(29), 80);
        assert_eq!(held_cost(1400), 1456);
        let mut l = Line::new(
            LinkParams {
                rate_bps: Some(1.0),
                limit_bytes: 65_536,
                ..params()
            },
            1,
        );
        let taken = (0..5000).filter(|_| l.take(&[0; 29], 0)).count();
        assert_eq!(taken, 65_536 / 80);
    }

    /// A packet alone takes delay + (length + 14)·8 / rate; one behind it waits for the line.
    #[test]
    fn a_packet_takes_the_delay_and_its_time_on_the_line() {
        let mut l = Line::new(params(), 1);
        assert!(l.take(&[0; 111], 0));
        assert!(l.take(&[0; 111], 0));
        // (111 + 14)·8 bits at 1 Mbit/s = 1 ms on the line, then 20 ms.
        assert_eq!(l.poll_at(), Some(21 * MS));
        assert!(l.poll_due(21 * MS - 1).is_none());
        assert_eq!(l.poll_due(21 * MS).map(|x| x.0), Some(21 * MS));
        assert_eq!(l.poll_due(30 * MS).map(|x| x.0), Some(22 * MS));
        assert_eq!(l.stats().carried, 2);
        assert_eq!(l.stats().queued, 0);
    }

    /// Jitter spreads the delays uniformly on ±J, never below zero, and no packet overtakes
    /// the one ahead of it.
    #[test]
    fn jitter_spreads_the_delay_and_keeps_the_order() {
        let mut l = Line::new(
            LinkParams {
                jitter: Duration::from_millis(5),
                rate_bps: None,
                ..params()
            },
            7,
        );
        let mut dues = Vec::new();
        for i in 0..2000u64 {
            assert!(l.take(&i.to_be_bytes(), i * MS));
            let (due, pkt) = l.poll_due(u64::MAX).unwrap();
            assert_eq!(pkt, i.to_be_bytes());
            dues.push(due - i * MS);
        }
        let (lo, hi) = (dues.iter().min().unwrap(), dues.iter().max().unwrap());
        assert!(*lo >= 15 * MS && *hi <= 25 * MS, "{lo} {hi}");
        let mean = dues.iter().sum::<u64>() as f64 / dues.len() as f64 / MS as f64;
        // Packets 1 ms apart with a 10 ms spread: some wait for the one ahead, so the mean is
        // above 20 ms, but by less than the spread.
        assert!((20.0..22.5).contains(&mean), "{mean}");
        // Sent back to back, none may come out before the one ahead.
        let mut l = Line::new(
            LinkParams {
                jitter: Duration::from_millis(5),
                rate_bps: None,
                ..params()
            },
            7,
        );
        for i in 0..100u64 {
            l.take(&i.to_be_bytes(), 0);
        }
        let out: Vec<u64> = std::iter::from_fn(|| l.poll_due(u64::MAX))
            .map(|(_, p)| u64::from_be_bytes(p.try_into().unwrap()))
            .collect();
        assert_eq!(out, (0..100).collect::<Vec<_>>());
    }

    /// The loss draw drops about its share, the same packets for the same seed.
    #[test]
    fn loss_drops_its_share_repeatably() {
        let run = |seed| {
            let mut l = Line::new(
                LinkParams {
                    loss: 0.1,
                    rate_bps: None,
                    ..params()
                },
                seed,
            );
            (0..10_000u64)
                .map(|i| {
                    let took = l.take(&[0; 100], i * MS);
                    while l.poll_due(u64::MAX).is_some() {}
                    took
                })
                .collect::<Vec<_>>()
        };
        let a = run(3);
        let dropped = a.iter().filter(|t| !**t).count();
        // Binomial(10000, 0.1): mean 1000, sd 30; within 5 sd.
        assert!((850..=1150).contains(&dropped), "{dropped}");
        assert_eq!(a, run(3));
        assert_ne!(a, run(4));
    }

    /// The queue's packet and byte limits.
    #[test]
    fn a_full_queue_drops() {
        let mut l = Line::new(
            LinkParams {
                limit: 3,
                ..params()
            },
            1,
        );
        let took: Vec<bool> = (0..5).map(|_| l.take(&[0; 100], 0)).collect();
        assert_eq!(took, [true, true, true, false, false]);
        assert_eq!(l.stats().overflowed, 2);
        let mut l = Line::new(
            LinkParams {
                // Room for two 100-byte packets as held, not three.
                limit_bytes: 2 * held_cost(100) + 10,
                ..params()
            },
            1,
        );
        let took: Vec<bool> = (0..3).map(|_| l.take(&[0; 100], 0)).collect();
        assert_eq!(took, [true, true, false]);
        l.poll_due(u64::MAX);
        assert!(l.take(&[0; 100], 0), "room again once one is delivered");
    }
}
