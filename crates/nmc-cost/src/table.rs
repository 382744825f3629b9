//! Today's transfers in RFC 392's columns, and 1972's beside them.
//!
//! RFC 392's six columns are clock time, CPU time, bytes with direction, bits per second, µs per
//! bit and load average. Each of today's transfers gives an `s` row (the sender's CPU) and, when
//! the receiver's CPU is known, an `r` row (the receiver's), as the Utah tables list sends and
//! receives; `ns/bit` and `$ per 10^6 bits` follow.

use crate::data::{Dir, Transfer};
use crate::fit::SHORT_BYTES;
use crate::live::{CpuTime, Measured};
use crate::tenex::dollars_per_megabit;
use std::fmt::Write as _;

/// The largest transfer in the Utah tables, bytes (table 2, row 30): the top of "RFC 392 sizes".
pub const LARGEST_1972: u64 = 473_489;

fn secs(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    if s >= 60.0 {
        format!("{:02}:{:06.3}", (s / 60.0).floor() as u64, s % 60.0)
    } else {
        format!("{s:.6}")
    }
}

/// One RFC 392 row for today.
pub struct Row {
    /// The transport: `tcp` or `udp`.
    pub proto: &'static str,
    /// Bytes per write or datagram.
    pub write_size: usize,
    /// Column 1: the transfer's clock time, ns.
    pub clock_ns: u64,
    /// Column 2: the sender's CPU (`s` row) or the receiver's (`r` row).
    pub cpu: CpuTime,
    /// Column 3: bytes sent (`s`) or received (`r`).
    pub bytes: u64,
    /// The transfer's size, the bytes the sender was asked to move: what its size class is
    /// read from, on both rows (a UDP receiver may get fewer).
    pub transfer_bytes: u64,
    /// Column 3's letter: `s` for the sender's row, `r` for the receiver's.
    pub dir: Dir,
    /// Column 4: bytes × 8 over the clock time, bit/s.
    pub bits_per_s: f64,
    /// Column 5: CPU µs per bit.
    pub us_per_bit: f64,
    /// Column 6: the 5-minute load average at the end, where known.
    pub load: Option<f64>,
}

/// The `s` and `r` rows of each transfer.
pub fn rows(measured: &[Measured]) -> Vec<Row> {
    let mut out = Vec::new();
    for m in measured {
        out.push(Row {
            proto: m.proto.name(),
            write_size: m.write_size,
            clock_ns: m.clock_ns,
            cpu: m.sender,
            bytes: m.bytes,
            transfer_bytes: m.bytes,
            dir: Dir::Send,
            bits_per_s: m.bits_per_s(),
            us_per_bit: m.sender_us_per_bit(),
            load: m.load5,
        });
        if let (Some(cpu), Some(got), Some(us)) = (m.receiver, m.received, m.receiver_us_per_bit())
        {
            out.push(Row {
                proto: m.proto.name(),
                write_size: m.write_size,
                clock_ns: m.clock_ns,
                cpu,
                bytes: got,
                transfer_bytes: m.bytes,
                dir: Dir::Receive,
                bits_per_s: got as f64 * 8.0 / (m.clock_ns as f64 / 1e9),
                us_per_bit: us,
                load: m.load5,
            });
        }
    }
    out
}

/// The table in RFC 392's columns, with today's extras to the right.
pub fn rfc392_table(measured: &[Measured], price_per_cpu_hour: f64) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>5} {:>6}  {:>12} {:>11}  {:>11}  {:>14} {:>10}  {:>5}  {:>9} {:>11}  {:>10} {:>10}",
        "proto",
        "write",
        "Clk Tim",
        "Cpu Tim",
        "# of Bytes",
        "Bits/sec",
        "us/bit",
        "Load",
        "ns/bit",
        "$/10^6 bit",
        "user s",
        "sys s"
    );
    for r in rows(measured) {
        let _ = writeln!(
            s,
            "{:>5} {:>6}  {:>12} {:>11.6}  {:>9} {}  {:>14.1} {:>10.5}  {:>5}  {:>9.3} {:>11.3e}  {:>10.6} {:>10.6}",
            r.proto,
            r.write_size,
            secs(r.clock_ns),
            r.cpu.total_ns() as f64 / 1e9,
            r.bytes,
            r.dir.letter(),
            r.bits_per_s,
            r.us_per_bit,
            r.load.map_or("-".into(), |l| format!("{l:.2}")),
            r.us_per_bit * 1e3,
            dollars_per_megabit(r.us_per_bit, price_per_cpu_hour),
            r.cpu.user_ns as f64 / 1e9,
            r.cpu.sys_ns as f64 / 1e9,
        );
    }
    s
}

/// A size class, as RFC 392's tables fall into them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Under 900 bytes: RFC 392's 127–180 µs/bit rows.
    Short,
    /// 900 B to the tables' largest transfer (473489 B).
    Rfc392Sizes,
    /// Larger than anything in the tables.
    Bulk,
}

impl Class {
    /// The class of a transfer of `bytes`.
    pub fn of(bytes: u64) -> Class {
        if bytes < SHORT_BYTES {
            Class::Short
        } else if bytes <= LARGEST_1972 {
            Class::Rfc392Sizes
        } else {
            Class::Bulk
        }
    }
    /// The class's name in tables (`short (< 900 B)`).
    pub fn name(self) -> &'static str {
        match self {
            Class::Short => "short (< 900 B)",
            Class::Rfc392Sizes => "900 B – 473489 B",
            Class::Bulk => "bulk (> 473489 B)",
        }
    }
}

/// min, mean, max of µs/bit.
fn stats(v: &[f64]) -> Option<(f64, f64, f64)> {
    if v.is_empty() {
        return None;
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some((lo, mean, hi))
}

/// The report's two tables as `nmc cost` prints them: today in RFC 392's columns at
/// `price_per_cpu_hour`, then 1972 (UTAH-10, TENEX's price) beside today, each after a blank
/// line and its heading.
pub fn today_and_1972(measured: &[Measured], price_per_cpu_hour: f64) -> Vec<String> {
    let tenex = crate::Tenex1972::default();
    vec![
        String::new(),
        "Today, in RFC 392's columns (s = the sender's CPU, r = the sink's):".into(),
        rfc392_table(measured, price_per_cpu_hour)
            .trim_end()
            .to_string(),
        String::new(),
        format!(
            "1972 beside today (1972 at ${} per CPU hour, today at ${}):",
            tenex.price_per_cpu_hour, price_per_cpu_hour
        ),
        side_by_side(
            &crate::data::utah10(),
            measured,
            tenex.price_per_cpu_hour,
            price_per_cpu_hour,
        )
        .trim_end()
        .to_string(),
    ]
}

/// 1972 beside today, by size class and direction: µs/bit (mean, range) and $ per 10^6 bits at
/// each era's price. Today's rows are split by write size (1-byte writes are BOUT's analogue).
pub fn side_by_side(
    utah: &[Transfer],
    today: &[Measured],
    price_1972: f64,
    price_today: f64,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<34} {:<18} {:>4}  {:>28}  {:>12}  {:>12}",
        "host", "transfer size", "dir", "µs/bit mean [min – max]", "$/10^6 bits", "1972 / today"
    );
    let today_rows = rows(today);
    let mut write_sizes: Vec<(&str, usize)> =
        today_rows.iter().map(|r| (r.proto, r.write_size)).collect();
    write_sizes.sort();
    write_sizes.dedup();
    for class in [Class::Short, Class::Rfc392Sizes, Class::Bulk] {
        for dir in [Dir::Send, Dir::Receive] {
            let old: Vec<f64> = utah
                .iter()
                .filter(|t| t.dir == dir && Class::of(t.bytes) == class)
                .map(|t| t.us_per_bit)
                .collect();
            let old_stats = stats(&old);
            if let Some((lo, mean, hi)) = old_stats {
                let _ = writeln!(
                    s,
                    "{:<34} {:<18} {:>4}  {:>28}  {:>12.2}  {:>12}",
                    "1972 Utah-10 TENEX, RJS (printed)",
                    class.name(),
                    dir.letter(),
                    format!("{mean:.2} [{lo:.2} – {hi:.2}]"),
                    dollars_per_megabit(mean, price_1972),
                    ""
                );
            }
            for &(proto, ws) in &write_sizes {
                let v: Vec<f64> = today_rows
                    .iter()
                    .filter(|r| {
                        r.proto == proto
                            && r.write_size == ws
                            && r.dir == dir
                            && Class::of(r.transfer_bytes) == class
                    })
                    .map(|r| r.us_per_bit)
                    .collect();
                if let Some((lo, mean, hi)) = stats(&v) {
                    let ratio = old_stats.map_or("-".into(), |o| format!("{:.0}×", o.1 / mean));
                    let _ = writeln!(
                        s,
                        "{:<34} {:<18} {:>4}  {:>28}  {:>12.3e}  {:>12}",
                        format!("today, {proto}, {ws}-byte writes"),
                        class.name(),
                        dir.letter(),
                        format!("{mean:.5} [{lo:.5} – {hi:.5}]"),
                        dollars_per_megabit(mean, price_today),
                        ratio
                    );
                }
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::Proto;

    /// A UDP transfer of `bytes` of which the sink got `received`.
    fn udp(bytes: u64, received: u64) -> Measured {
        let cpu = CpuTime {
            total_ns: 1_000_000,
            user_ns: 400_000,
            sys_ns: 600_000,
        };
        Measured {
            proto: Proto::Udp,
            bytes,
            write_size: 65507,
            calls: bytes.div_ceil(65507),
            clock_ns: 10_000_000,
            sender: cpu,
            receiver: Some(cpu),
            received: Some(received),
            load5: None,
        }
    }

    /// The receiver's row of a transfer that lost datagrams sits in the transfer's size class,
    /// not in the class of what arrived: a 10 MiB transfer of which 201,161 bytes came is a bulk
    /// transfer on both rows, and the class below it holds only the one transfer of its size.
    #[test]
    fn a_lossy_receive_keeps_its_transfers_class() {
        let table = side_by_side(
            &[],
            &[udp(10_485_760, 201_161), udp(56_280, 56_280)],
            474.6,
            0.04,
        );
        let row = |class: Class, dir: &str| {
            table
                .lines()
                .filter(|l| l.contains(class.name()) && l.split_whitespace().any(|w| w == dir))
                .count()
        };
        assert_eq!(row(Class::Bulk, "s"), 1, "{table}");
        assert_eq!(row(Class::Bulk, "r"), 1, "{table}");
        assert_eq!(row(Class::Rfc392Sizes, "r"), 1, "{table}");
        let mid_r = table
            .lines()
            .find(|l| l.contains(Class::Rfc392Sizes.name()) && l.contains(" r "))
            .unwrap();
        // One transfer in the class: its range is a single value.
        let us = 1_000_000.0 / 1e3 / (56_280.0 * 8.0);
        assert!(
            mid_r.contains(&format!("{us:.5} [{us:.5} – {us:.5}]")),
            "{mid_r}"
        );
    }
}
