//! `nmc path`: a shaped path to try the instruments on where the kernel has no `netem`
//! (issue 58): two network namespaces joined by `nmc_probe::path`'s user-space line, run in the
//! foreground until Ctrl-C or `--duration`, then removed.

use crate::Outcome;
use crate::cmd::parse_unit;
use anyhow::{Result, bail};
use clap::Args;
use nmc_sim::{BitRate, SimDuration};

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    nmc path --delay 20ms --rate 10Mbit/s                 # until Ctrl-C\n  \
    nmc path --delay 100ms --rate 9600bit/s --loss 1% -t 10min --name ford1\n  \
    nmc path --delay 15ms --jitter 2ms --rate 20Mbit/s,2Mbit/s    # 20 Mbit/s a→b, 2 Mbit/s b→a\n\n\
Makes network namespaces NAME-a and NAME-b (default nmc-a, nmc-b), each with a TUN device \
`tun0`: 198.18.0.1 and 2001:2::1 in a, 198.18.0.2 and 2001:2::2 in b (benchmarking ranges that \
exist only inside them: nothing on the path leaves this machine). One thread carries every packet \
between them, each direction on its own, as netem's `delay D J rate R loss P limit N` on a veth: a \
packet that finds --limit packets (or --limit-bytes) held is dropped, then one of each --loss is, \
then it waits for the line, takes (length + --overhead) bytes at --rate, and arrives --delay \
(± --jitter, never before the packet ahead) later. --delay, --jitter, --rate and --loss take one \
value for both directions or `A,B` for a→b and b→a. Run a server in \
one and a client in the other, e.g. `ip netns exec nmc-b nmc serve` and `ip netns exec nmc-a nmc \
echo probe 198.18.0.2`. Prints each direction's counts every --interval and at the end, then \
deletes both namespaces. Needs root and iproute2 (Linux). Exit 0 when stopped (Ctrl-C, SIGTERM \
or --duration), 2 when the path cannot be made (not root, the names taken, no /dev/net/tun).")]
pub struct PathArgs {
    /// One-way delay, after the line: one for both directions, or `A,B` for a→b and b→a. With
    /// its unit (20ms): a bare number is refused, as tc would read it as microseconds.
    #[arg(long, default_value = "0s", value_parser = |s: &str| both(s, parse_unit::<SimDuration>))]
    pub delay: Both<SimDuration>,
    /// Each packet's delay varies uniformly on ±this (netem's `delay D J`), the order of packets
    /// kept; `A,B` for a→b and b→a.
    #[arg(long, default_value = "0s", value_parser = |s: &str| both(s, parse_unit::<SimDuration>))]
    pub jitter: Both<SimDuration>,
    /// Line rate, e.g. 10Mbit/s or iperf3's 10M (bits, ×1000), or `A,B` for a→b and b→a, as
    /// on an access line (default: no serialisation time).
    #[arg(long, value_parser = |s: &str| both(s, crate::cmd::units::rate))]
    pub rate: Option<Both<BitRate>>,
    /// Share of packets dropped at random, in percent (as netem's `loss`); `A,B` for a→b and
    /// b→a.
    #[arg(long, default_value = "0%", value_parser = |s: &str| both(s, parse_percent))]
    pub loss: Both<f64>,
    /// Packets held at most on each direction, waiting for the line or on it (netem's `limit`;
    /// up to 1,000,000).
    #[arg(long, default_value_t = nmc_probe_limit())]
    pub limit: usize,
    /// Bytes held at most on each direction, whatever --limit: the line's memory bound, each
    /// packet counted with its bookkeeping (128KiB to 4GiB; iperf3's 256M = 256MiB).
    #[arg(long, default_value = "256MiB", value_parser = parse_limit_bytes)]
    pub limit_bytes: usize,
    /// Bytes the line charges per packet besides the IP datagram (14: an Ethernet header, as
    /// netem on a veth).
    #[arg(long, default_value_t = 14)]
    pub overhead: u32,
    /// Seed of the loss and jitter draws (ChaCha8): the same seed drops and delays the same
    /// packets of the same stream alike.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The namespaces are NAME-a and NAME-b.
    #[arg(long, default_value = "nmc")]
    pub name: String,
    /// No IPv6 in the namespaces (the kernel's own IPv6 packets then stay off a slow line).
    #[arg(long)]
    pub ipv4_only: bool,
    /// Stop by itself after this long: 10min, or a bare number of seconds.
    #[arg(short = 't', long, value_parser = crate::cmd::units::duration)]
    pub duration: Option<SimDuration>,
    /// Print each direction's counts this often: 10s, or a bare number of seconds (`0`: only at
    /// the end).
    #[arg(short = 'i', long, default_value = "10s", value_parser = crate::cmd::units::duration)]
    pub interval: SimDuration,
}

/// The shortest `-i` (issue 74 §4: `-i 1ns` printed a line every 20 ms). **Choice**: 100 ms,
/// iperf3's shortest interval too, five turns of the line's loop.
#[cfg(target_os = "linux")]
const MIN_INTERVAL: SimDuration = SimDuration::from_millis(100);

#[cfg(target_os = "linux")]
const fn nmc_probe_limit() -> usize {
    nmc_probe::path::NETEM_LIMIT
}

#[cfg(not(target_os = "linux"))]
const fn nmc_probe_limit() -> usize {
    1000
}

/// `--limit-bytes`: a size with its unit, from 128KiB (a largest datagram as it is held,
/// [`nmc_probe::path::link::held_cost`], with room for others) to 4GiB.
fn parse_limit_bytes(s: &str) -> Result<usize, String> {
    let v = crate::cmd::units::size(s)?;
    usize::try_from(v)
        .ok()
        .filter(|&v| (128 << 10..=4 << 30).contains(&v))
        .ok_or_else(|| format!("`{s}`: give a size from 128KiB to 4GiB, e.g. 256MiB"))
}

/// One value for both directions, or one for each (`a→b`, `b→a`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Both<T> {
    /// a → b.
    pub ab: T,
    /// b → a.
    pub ba: T,
}

#[cfg(target_os = "linux")]
impl<T: Copy> Both<T> {
    /// a → b's value when `ab`, else b → a's.
    pub fn side(&self, ab: bool) -> T {
        if ab { self.ab } else { self.ba }
    }
}

impl<T: std::fmt::Display + PartialEq> std::fmt::Display for Both<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.ab == self.ba {
            write!(f, "{}", self.ab)
        } else {
            write!(f, "{} a→b and {} b→a", self.ab, self.ba)
        }
    }
}

/// `X` (both directions) or `A,B` (a→b, b→a), each read by `one`.
fn both<T: Clone>(s: &str, one: impl Fn(&str) -> Result<T, String>) -> Result<Both<T>, String> {
    match s.split(',').collect::<Vec<_>>()[..] {
        [x] => {
            let v = one(x)?;
            Ok(Both {
                ab: v.clone(),
                ba: v,
            })
        }
        [a, b] => Ok(Both {
            ab: one(a)?,
            ba: one(b)?,
        }),
        _ => Err(format!(
            "`{s}`: give one value for both directions, or two, a→b and b→a, as `A,B`"
        )),
    }
}

/// `--loss`: a percentage, `1%` or `1`, from 0 to 100; the percentage.
fn parse_percent(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let n = t.strip_suffix('%').unwrap_or(t).trim();
    match n.parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(format!("`{s}`: give a percentage from 0% to 100%, e.g. 1%")),
    }
}

#[cfg(not(target_os = "linux"))]
pub fn run(_a: PathArgs) -> Result<Outcome> {
    bail!("nmc path needs Linux (network namespaces and TUN devices)")
}

#[cfg(target_os = "linux")]
pub fn run(a: PathArgs) -> Result<Outcome> {
    use nmc_probe::path::{DirStats, Path};
    use std::sync::atomic::Ordering;
    use std::time::{Duration, Instant};

    let (ab, ba) = links(&a)?;
    if !a.interval.is_zero() && a.interval < MIN_INTERVAL {
        bail!(
            "-i {}: at least {MIN_INTERVAL} (the line's counts are read every 20 ms at most), or 0s for none",
            a.interval
        );
    }
    // The handlers first: a stop that comes while the path is being made still removes it.
    let stop = nmc_probe::signal::stop_on_signals()?;
    let path = match Path::create(&a.name, ab, ba, !a.ipv4_only) {
        Ok(p) => p,
        // Issue 74 §5: Ctrl-C reaches the `ip` commands of the set-up too (one process group),
        // and one killed by it failed with an empty reason, exit 2. It is a stop; the
        // namespaces made so far are removed by the failed set-up, as before.
        Err(_) if stop.load(Ordering::Relaxed) => {
            return Err(super::exit::stopped(format!(
                "stopped by the user while the path was being set up: nothing was kept ({}-a and {}-b removed)",
                a.name, a.name
            )));
        }
        Err(e) => return Err(e.into()),
    };
    print_plan(&a, &path);
    let start = Instant::now();
    let end = a
        .duration
        .map(|d| start + Duration::from_nanos(d.as_nanos()));
    let every = (!a.interval.is_zero()).then(|| Duration::from_nanos(a.interval.as_nanos()));
    let mut next_line = every.map(|e| start + e);
    let mut last = [DirStats::default(); 2];
    let mut last_at = start;
    loop {
        let now = Instant::now();
        if stop.load(Ordering::Relaxed) || end.is_some_and(|e| now >= e) {
            break;
        }
        if let (Some(at), Some(e)) = (next_line, every)
            && now >= at
        {
            let stats = path.stats();
            outln!("{}", interval_line(start, now, last_at, &stats, &last));
            (last, last_at) = (stats, now);
            next_line = Some(at + e);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let stopped_at = Instant::now();
    let stats = path.stop();
    if every.is_some() && stopped_at > last_at {
        outln!(
            "{}",
            interval_line(start, stopped_at, last_at, &stats, &last)
        );
    }
    print_totals(stopped_at.duration_since(start), &stats);
    Ok(Outcome::Ok)
}

/// Each direction's line (a→b, b→a), from `--limit` and the values given for both or each;
/// refused when out of bounds.
#[cfg(target_os = "linux")]
fn links(a: &PathArgs) -> Result<(nmc_probe::path::LinkParams, nmc_probe::path::LinkParams)> {
    use std::time::Duration;
    if !(1..=1_000_000).contains(&a.limit) {
        bail!(
            "--limit {}: give the queue 1 to 1000000 packets (netem's default is 1000)",
            a.limit
        );
    }
    let direction = |ab: bool| nmc_probe::path::LinkParams {
        delay: Duration::from_nanos(a.delay.side(ab).as_nanos()),
        jitter: Duration::from_nanos(a.jitter.side(ab).as_nanos()),
        rate_bps: a.rate.map(|r| r.side(ab).bps() as f64),
        overhead: a.overhead,
        loss: a.loss.side(ab) / 100.0,
        limit: a.limit,
        limit_bytes: a.limit_bytes,
        seed: a.seed,
    };
    let (ab, ba) = (direction(true), direction(false));
    ab.check().and(ba.check()).map_err(anyhow::Error::msg)?;
    Ok((ab, ba))
}

/// The path made: its namespaces and addresses, its line, how to try it and how it ends.
#[cfg(target_os = "linux")]
fn print_plan(a: &PathArgs, path: &nmc_probe::path::Path) {
    use nmc_probe::path::{ADDR_A, ADDR_B, ADDR6_A, ADDR6_B};
    let rate = a.rate.map_or("no rate limit".into(), |r| r.to_string());
    let jitter = if a.jitter.ab.is_zero() && a.jitter.ba.is_zero() {
        String::new()
    } else {
        format!(" ± {}", a.jitter)
    };
    let loss = Both {
        ab: format!("{}%", a.loss.ab),
        ba: format!("{}%", a.loss.ba),
    };
    outln!(
        "nmc path: {} ({ADDR_A}{}) and {} ({ADDR_B}{}) joined by a line of {}{jitter} one way, {}, \
         {} loss, {} packets of queue, {} bytes charged per packet; seed {}",
        path.a,
        if a.ipv4_only {
            String::new()
        } else {
            format!(", {ADDR6_A}")
        },
        path.b,
        if a.ipv4_only {
            String::new()
        } else {
            format!(", {ADDR6_B}")
        },
        a.delay,
        rate,
        loss,
        a.limit,
        a.overhead,
        a.seed,
    );
    outln!("  try:  ip netns exec {} nmc serve &", path.b);
    outln!("        ip netns exec {} nmc echo probe {ADDR_B}", path.a);
    outln!(
        "  {}; the namespaces are removed then",
        match a.duration {
            Some(d) => format!("stops after {d}, or at Ctrl-C"),
            None => "stop with Ctrl-C".into(),
        }
    );
}

/// One interval's line, `from` to `at` (seconds from the path's `start`): each direction's
/// counts between `before` and `now`, and its rate.
#[cfg(target_os = "linux")]
fn interval_line(
    start: std::time::Instant,
    at: std::time::Instant,
    from: std::time::Instant,
    now: &[nmc_probe::path::DirStats; 2],
    before: &[nmc_probe::path::DirStats; 2],
) -> String {
    use nmc_probe::path::DirStats;
    let secs = at.duration_since(from).as_secs_f64().max(1e-9);
    let side = |n: &DirStats, b: &DirStats| {
        format!(
            "carried {:>7} ({:>9.3} Mbit/s)  lost {:>5}  queue full {:>5}  held {:>4}",
            n.carried - b.carried,
            (n.carried_bytes - b.carried_bytes) as f64 * 8.0 / secs / 1e6,
            n.dropped - b.dropped,
            n.overflowed - b.overflowed,
            n.queued,
        )
    };
    format!(
        "[{:7.1}-{:7.1} s] a→b {}  │  b→a {}",
        from.duration_since(start).as_secs_f64(),
        at.duration_since(start).as_secs_f64(),
        side(&now[0], &before[0]),
        side(&now[1], &before[1]),
    )
}

/// The end: how long the path ran (`ran`), and each direction's totals.
#[cfg(target_os = "linux")]
fn print_totals(ran: std::time::Duration, stats: &[nmc_probe::path::DirStats; 2]) {
    let total = |d: &nmc_probe::path::DirStats| {
        format!(
            "{} packets ({} bytes) carried, {} lost at random, {} to a full queue; latest delivery {} behind its time",
            d.carried,
            d.carried_bytes,
            d.dropped,
            d.overflowed,
            SimDuration::from_nanos(d.max_late_ns),
        )
    };
    outln!(
        "nmc path: stopped after {:.1} s; namespaces removed",
        ran.as_secs_f64()
    );
    outln!("  a→b: {}", total(&stats[0]));
    outln!("  b→a: {}", total(&stats[1]));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_limit_is_a_size_within_bounds() {
        assert_eq!(parse_limit_bytes("256MiB"), Ok(256 << 20));
        assert_eq!(parse_limit_bytes("128KiB"), Ok(131_072));
        assert!(parse_limit_bytes("64KiB").is_err());
        assert!(parse_limit_bytes("1KiB").is_err());
        assert!(parse_limit_bytes("5GiB").is_err());
        // iperf3's binary suffix (issue 75 §4).
        assert_eq!(parse_limit_bytes("256M"), Ok(256 << 20));
        let r = both("20M,2M", crate::cmd::units::rate).unwrap();
        assert_eq!((r.ab.bps(), r.ba.bps()), (20_000_000, 2_000_000));
    }

    #[test]
    fn a_value_is_for_both_directions_or_one_each() {
        let d = |s: &str| both(s, parse_unit::<SimDuration>);
        let ms = SimDuration::from_millis;
        assert_eq!(
            d("20ms"),
            Ok(Both {
                ab: ms(20),
                ba: ms(20)
            })
        );
        assert_eq!(
            d("20ms,5ms"),
            Ok(Both {
                ab: ms(20),
                ba: ms(5)
            })
        );
        assert!(d("1ms,2ms,3ms").unwrap_err().contains("as `A,B`"));
        assert!(d("20ms,x").is_err());
        assert_eq!(d("20ms,5ms").unwrap().to_string(), "20ms a→b and 5ms b→a");
        assert_eq!(d("20ms").unwrap().to_string(), "20ms");
        assert_eq!(both("1%,0", parse_percent), Ok(Both { ab: 1.0, ba: 0.0 }));
    }

    #[test]
    fn loss_is_a_percentage() {
        assert_eq!(parse_percent("1%"), Ok(1.0));
        assert_eq!(parse_percent("2.5"), Ok(2.5));
        assert_eq!(parse_percent("0%"), Ok(0.0));
        assert!(parse_percent("101%").is_err());
        assert!(parse_percent("-1").is_err());
        assert!(parse_percent("lots").is_err());
    }
}
