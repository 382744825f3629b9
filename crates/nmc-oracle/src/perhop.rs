//! Where a packet's time goes hop by hop (issue 71: the 316's longer round trip), from every
//! IMP's trace of an emulator replay (`nmc oracle emulate --trace-all`) or from the model's
//! frames (`nmc run … --set trace=true`, [`from_model_jsonl`]).
//!
//! For one experiment (its span from `spans.csv`) and the flow from the source IMP to the
//! destination IMP, every frame is matched across IMPs by its header (the four words after
//! ACKH: HEAD, HEAD1, HEAD2, HEAD3, the same at every hop; a reply, five words long, by HEAD,
//! HEAD1 and HEAD2, its fifth word changing from hop to hop). At each **intermediate** IMP, for
//! each data packet (source → destination) and each reply (RFNM, ALLOCATE: destination →
//! source) that arrived there and left again:
//!
//! * **store-and-forward delay**: from the frame's last bit arriving on its input line to the
//!   same frame's first bit on the output line;
//! * of it, **line busy**: the part of that interval in which the output line was sending
//!   another frame (split by what that frame was: a data packet, a reply, a routing message,
//!   a null packet carrying acknowledgements);
//! * the **rest**: the output line idle while the packet was in the IMP — the program's own
//!   time (interrupts, the task, queueing behind other work of the CPU).
//!
//! At the destination, from the last packet of a message arriving to that message's RFNM
//! starting on the line back; at the source, from the RFNM arriving to its first word to the
//! host. A frame sent on by an IMP is matched to the first arrival there of the same header on
//! another line since that IMP last sent it (a packet received twice is measured from its
//! first arrival; a packet the IMP sends again is measured once; arrivals never sent on are
//! counted, not measured).
//!
//! With `--profile` ([`crate::emulate::Options::profile`]), the IMPs' time per instruction
//! address is summed by the listing's labels (each address belongs to the last label at or
//! before it), read from the user's copy of the listing at run time (never committed).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use crate::trace::{Frame, parse};

/// One experiment's place in a replay (`spans.csv`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Span {
    /// Experiment name.
    pub experiment: String,
    /// Hops from source to destination.
    pub hops: usize,
    /// Source IMP number.
    pub source_imp: u8,
    /// Destination IMP number.
    pub dest_imp: u8,
    /// When its pump started (ns).
    pub start_ns: u64,
    /// When it finished (ns).
    pub end_ns: u64,
}

/// Writes each experiment's profile (nonzero addresses only) as CSV: experiment, IMP number,
/// octal address, ns.
pub fn write_profiles(
    path: &Path,
    imps: &[u8],
    profiles: &[(String, Vec<Vec<u64>>)],
) -> Result<()> {
    let mut s = String::from("experiment,imp,addr,ns\n");
    for (name, per_imp) in profiles {
        for (k, p) in per_imp.iter().enumerate() {
            for (a, &ns) in p.iter().enumerate() {
                if ns > 0 {
                    let _ = writeln!(s, "{name},{},{a:05o},{ns}", imps[k]);
                }
            }
        }
    }
    std::fs::write(path, s).with_context(|| format!("cannot write {}", path.display()))
}

/// What a frame is, for this analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Class {
    /// A packet of a message of the flow measured.
    Data,
    /// A reply of the flow (RFNM, ALLOCATE, …).
    Reply,
    /// A routing message.
    Routing,
    /// A null packet (acknowledgements).
    Null,
    /// Anything else (another flow's packets).
    Other,
}

/// A frame sent: by IMP `imp` on `line`, first bit at `start`, last bit at `done`.
#[derive(Clone, Debug)]
pub struct Tx {
    /// IMP number.
    pub imp: u8,
    /// Modem line.
    pub line: u8,
    /// First bit.
    pub start: u64,
    /// Last bit.
    pub done: u64,
    /// What it is.
    pub class: Class,
    /// Header (match key across hops); `None` for routing and null frames.
    pub key: Option<[u16; 4]>,
    /// Message number, a RFNM (for replies), the last packet (for data).
    pub message: u8,
    /// A RFNM (replies) or the message's last packet (data).
    pub flag: bool,
}

/// A frame received by IMP `imp` on `line`, its last bit in at `at`.
#[derive(Clone, Debug)]
pub struct Rx {
    /// IMP number.
    pub imp: u8,
    /// Modem line.
    pub line: u8,
    /// Last bit in.
    pub at: u64,
    /// What it is.
    pub class: Class,
    /// Header.
    pub key: Option<[u16; 4]>,
    /// Message number.
    pub message: u8,
    /// As [`Tx::flag`].
    pub flag: bool,
}

/// Everything the analysis reads: frames sent and received at every IMP, and the source's
/// replies to its host (times of a RFNM's first word to the host).
#[derive(Clone, Debug, Default)]
pub struct Frames {
    /// Sent.
    pub tx: Vec<Tx>,
    /// Received.
    pub rx: Vec<Rx>,
    /// Replies to the source's host: first word's time.
    pub to_host: Vec<u64>,
}

fn classify(head: &[u16], src: u8, dst: u8) -> (Class, Option<[u16; 4]>, u8, bool) {
    let key = (head.len() >= 5).then(|| [head[1], head[2], head[3], head[4]]);
    // A reply is five words, the fifth not HEAD3 but changed at every hop: matched on three.
    let reply_key = (head.len() >= 5).then(|| [head[1], head[2], head[3], 0]);
    match Frame::decode(head) {
        Frame::Routing { .. } => (Class::Routing, None, 0, false),
        Frame::Null { .. } => (Class::Null, None, 0, false),
        Frame::Short => (Class::Other, None, 0, false),
        Frame::Packet(h) if h.source_imp == src && h.dest_imp == dst => {
            (Class::Data, key, h.message, h.last)
        }
        Frame::Reply(h)
            if (h.source_imp == src && h.dest_imp == dst)
                || (h.source_imp == dst && h.dest_imp == src) =>
        {
            (Class::Reply, reply_key, h.message, h.reqall_or_rfnm)
        }
        Frame::Packet(_) => (Class::Other, key, 0, false),
        Frame::Reply(_) => (Class::Other, reply_key, 0, false),
    }
}

/// The frames of one experiment from a replay's directory (`imp<N>.trace` of every IMP,
/// `--trace-all`).
pub fn from_traces(dir: &Path, imps: &[u8], span: &Span) -> Result<Frames> {
    let mut f = Frames::default();
    let (src, dst) = (span.source_imp, span.dest_imp);
    for &imp in imps {
        let p = dir.join(format!("imp{imp}.trace"));
        let text = std::fs::read_to_string(&p).with_context(|| {
            format!(
                "cannot read {} (replay with `nmc oracle emulate --trace-all`)",
                p.display()
            )
        })?;
        for e in parse(&text).events {
            if e.t_ns < span.start_ns || e.t_ns > span.end_ns {
                continue;
            }
            match e.what.as_str() {
                "MITX" => {
                    let (class, key, message, flag) = classify(&e.head, src, dst);
                    f.tx.push(Tx {
                        imp,
                        line: e.line,
                        start: e.t_ns,
                        done: e.extra_u64("done").unwrap_or(e.t_ns),
                        class,
                        key,
                        message,
                        flag,
                    });
                }
                "MIRX" => {
                    let (class, key, message, flag) = classify(&e.head, src, dst);
                    f.rx.push(Rx {
                        imp,
                        line: e.line,
                        at: e.t_ns,
                        class,
                        key,
                        message,
                        flag,
                    });
                }
                "HITX" if imp == src && e.head.len() >= 2 => {
                    let l = crate::leader::Leader::decode([e.head[0], e.head[1]]);
                    if l.kind == crate::leader::Kind::Rfnm {
                        f.to_host.push(e.t_ns);
                    }
                }
                _ => {}
            }
        }
    }
    Ok(f)
}

/// One measured interval.
#[derive(Clone, Debug, Serialize)]
pub struct Hop {
    /// `data`, `data-last` (a message's last packet: also in `data`), `reply`, `rfnm`
    /// (replies that are RFNMs: also in `reply`), `dest` (last packet in → RFNM out),
    /// `source` (RFNM in → to the host).
    pub what: String,
    /// The IMP.
    pub imp: u8,
    /// Input time (last bit in), ns.
    pub in_ns: u64,
    /// Whole interval, ns.
    pub delay_ns: u64,
    /// Of it, the output line sending a data packet of the flow.
    pub busy_data_ns: u64,
    /// … a reply of the flow.
    pub busy_reply_ns: u64,
    /// … a routing message.
    pub busy_routing_ns: u64,
    /// … a null packet.
    pub busy_null_ns: u64,
    /// … anything else.
    pub busy_other_ns: u64,
}

impl Hop {
    /// Line busy, all causes.
    pub fn busy_ns(&self) -> u64 {
        self.busy_data_ns
            + self.busy_reply_ns
            + self.busy_routing_ns
            + self.busy_null_ns
            + self.busy_other_ns
    }

    /// The rest: the output line idle.
    pub fn rest_ns(&self) -> u64 {
        self.delay_ns - self.busy_ns()
    }
}

fn hop(what: &str, imp: u8, from: u64, to: u64, line: &[&Tx]) -> Hop {
    let mut h = Hop {
        what: what.into(),
        imp,
        in_ns: from,
        delay_ns: to.saturating_sub(from),
        busy_data_ns: 0,
        busy_reply_ns: 0,
        busy_routing_ns: 0,
        busy_null_ns: 0,
        busy_other_ns: 0,
    };
    for t in line {
        let (a, b) = (t.start.max(from), t.done.min(to));
        if b > a {
            let d = b - a;
            match t.class {
                Class::Data => h.busy_data_ns += d,
                Class::Reply => h.busy_reply_ns += d,
                Class::Routing => h.busy_routing_ns += d,
                Class::Null => h.busy_null_ns += d,
                Class::Other => h.busy_other_ns += d,
            }
        }
    }
    h
}

/// What [`measure`] found, and what it could not match.
#[derive(Clone, Debug, Default)]
pub struct Measured {
    /// Every interval.
    pub hops: Vec<Hop>,
    /// Frames of the flow received at an intermediate IMP and not sent on (duplicates).
    pub unmatched: usize,
    /// Per IMP that forwarded data packets, its output line towards the destination: time
    /// sending data packets of the flow, replies, routing messages, null packets, other.
    pub line_busy: BTreeMap<u8, [u64; 5]>,
    /// From the first frame's start to the last frame's end, ns.
    pub span_ns: u64,
}

/// Measures `f` for the flow from `src` to `dst`.
pub fn measure(f: &Frames, src: u8, dst: u8) -> Measured {
    let mut m = Measured::default();
    // Frames sent, per (IMP, line), in time order.
    let mut by_line: BTreeMap<(u8, u8), Vec<&Tx>> = BTreeMap::new();
    for t in &f.tx {
        by_line.entry((t.imp, t.line)).or_default().push(t);
    }
    for v in by_line.values_mut() {
        v.sort_by_key(|t| t.start);
    }
    let mut rx: Vec<&Rx> = f.rx.iter().collect();
    rx.sort_by_key(|r| (r.imp, r.at));
    let mut tx: Vec<&Tx> = f.tx.iter().collect();
    tx.sort_by_key(|t| (t.imp, t.start));
    let mut used = vec![false; rx.len()];
    for (k, out) in tx.iter().enumerate() {
        let Some(key) = out.key else { continue };
        let forwarded =
            matches!(out.class, Class::Data | Class::Reply) && out.imp != src && out.imp != dst;
        if !forwarded {
            continue;
        }
        // Since this IMP last sent the same header (a packet sent again is not measured twice).
        let prev = tx[..k]
            .iter()
            .rev()
            .take_while(|t| t.imp == out.imp)
            .find(|t| t.key == Some(key))
            .map(|t| t.start);
        let arrival = rx.iter().enumerate().find(|(_, r)| {
            r.imp == out.imp
                && r.key == Some(key)
                && r.line != out.line
                && r.at <= out.start
                && prev.is_none_or(|p| r.at > p)
        });
        let Some((j, r)) = arrival else {
            continue;
        };
        used[j] = true;
        let line: Vec<&Tx> = by_line[&(out.imp, out.line)]
            .iter()
            .copied()
            .filter(|t| !std::ptr::eq(*t, *out) && t.done > r.at && t.start < out.start)
            .collect();
        let (what, flagged) = match r.class {
            Class::Data => ("data", "data-last"),
            _ => ("reply", "rfnm"),
        };
        let h = hop(what, r.imp, r.at, out.start, &line);
        if r.flag {
            let mut g = h.clone();
            g.what = flagged.into();
            m.hops.push(g);
        }
        m.hops.push(h);
    }
    let mut out_line: BTreeMap<u8, u8> = BTreeMap::new();
    for t in &tx {
        if t.class == Class::Data && t.imp != src && t.imp != dst {
            out_line.entry(t.imp).or_insert(t.line);
        }
    }
    for (&imp, &line) in &out_line {
        let mut b = [0u64; 5];
        for t in &by_line[&(imp, line)] {
            b[t.class as usize] += t.done - t.start;
        }
        m.line_busy.insert(imp, b);
    }
    m.span_ns = f.tx.iter().map(|t| t.done).max().unwrap_or(0)
        - f.tx.iter().map(|t| t.start).min().unwrap_or(0);
    m.unmatched = rx
        .iter()
        .zip(&used)
        .filter(|(r, u)| {
            !**u && matches!(r.class, Class::Data | Class::Reply) && r.imp != src && r.imp != dst
        })
        .count();
    // Destination: a RFNM out, from the last packet of its message in.
    for t in tx
        .iter()
        .filter(|t| t.imp == dst && t.class == Class::Reply && t.flag)
    {
        let last_in = rx
            .iter()
            .filter(|r| {
                r.imp == dst
                    && r.class == Class::Data
                    && r.message == t.message
                    && r.at <= t.start
                    && t.start - r.at < 2_000_000_000
            })
            .map(|r| r.at)
            .max();
        // Only the packets since the previous RFNM of this message number.
        let prev = tx
            .iter()
            .filter(|u| {
                u.imp == dst
                    && u.class == Class::Reply
                    && u.flag
                    && u.message == t.message
                    && u.start < t.start
            })
            .map(|u| u.start)
            .max()
            .unwrap_or(0);
        if let Some(a) = last_in.filter(|&a| a > prev) {
            let line: Vec<&Tx> = by_line[&(t.imp, t.line)]
                .iter()
                .copied()
                .filter(|u| !std::ptr::eq(*u, *t) && u.done > a && u.start < t.start)
                .collect();
            m.hops.push(hop("dest", dst, a, t.start, &line));
        }
    }
    // Source: a RFNM in, to its first word to the host.
    let mut host = f.to_host.clone();
    host.sort_unstable();
    for r in rx
        .iter()
        .filter(|r| r.imp == src && r.class == Class::Reply && r.flag)
    {
        if let Some(&h) = host.iter().find(|&&h| h >= r.at) {
            m.hops.push(hop("source", src, r.at, h, &[]));
        }
    }
    m
}

/// Median, 90th percentile, mean of `v` (ms), and its count.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Dist {
    /// Count.
    pub n: usize,
    /// Median, ms.
    pub median: f64,
    /// 90th percentile (nearest rank), ms.
    pub p90: f64,
    /// Mean, ms.
    pub mean: f64,
}

/// The distribution of `ns` values, in ms.
pub fn dist(ns: &[u64]) -> Dist {
    if ns.is_empty() {
        return Dist::default();
    }
    let mut v = ns.to_vec();
    v.sort_unstable();
    let rank = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    Dist {
        n: v.len(),
        median: rank(0.5) as f64 / 1e6,
        p90: rank(0.9) as f64 / 1e6,
        mean: v.iter().sum::<u64>() as f64 / v.len() as f64 / 1e6,
    }
}

/// A summary table (Markdown) of `m`: per kind of interval, pooled over the intermediate IMPs,
/// then per intermediate IMP for data packets.
pub fn table(m: &Measured, label: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| {label} | n | delay median / p90 / mean ms | line busy mean ms (data, reply, routing, null) | rest median / p90 / mean ms |\n| --- | ---: | --- | --- | --- |"
    );
    for what in ["data", "data-last", "reply", "rfnm", "dest", "source"] {
        let hs: Vec<&Hop> = m.hops.iter().filter(|h| h.what == what).collect();
        if hs.is_empty() {
            continue;
        }
        let d = dist(&hs.iter().map(|h| h.delay_ns).collect::<Vec<_>>());
        let r = dist(&hs.iter().map(|h| h.rest_ns()).collect::<Vec<_>>());
        let mean = |f: fn(&Hop) -> u64| {
            hs.iter().map(|h| f(h)).sum::<u64>() as f64 / hs.len() as f64 / 1e6
        };
        let _ = writeln!(
            s,
            "| {what} | {} | {:.2} / {:.2} / {:.2} | {:.2} ({:.2}, {:.2}, {:.2}, {:.2}) | {:.2} / {:.2} / {:.2} |",
            d.n,
            d.median,
            d.p90,
            d.mean,
            mean(Hop::busy_ns),
            mean(|h| h.busy_data_ns),
            mean(|h| h.busy_reply_ns),
            mean(|h| h.busy_routing_ns),
            mean(|h| h.busy_null_ns),
            r.median,
            r.p90,
            r.mean
        );
    }
    s
}

/// Per intermediate IMP: data packets' and replies' delay and rest (median, ms).
pub fn table_per_imp(m: &Measured) -> String {
    let mut s = String::from(
        "| IMP | data n | data delay median / p90 | data rest median / p90 | reply n | reply delay median / p90 | reply rest median / p90 | output line busy %: all (data, routing) |\n| ---: | ---: | --- | --- | ---: | --- | --- | --- |\n",
    );
    let imps: std::collections::BTreeSet<u8> = m
        .hops
        .iter()
        .filter(|h| h.what == "data")
        .map(|h| h.imp)
        .collect();
    for imp in imps {
        let pick = |w: &str, f: fn(&Hop) -> u64| {
            dist(
                &m.hops
                    .iter()
                    .filter(|h| h.imp == imp && h.what == w)
                    .map(f)
                    .collect::<Vec<_>>(),
            )
        };
        let (dd, dr) = (pick("data", |h| h.delay_ns), pick("data", Hop::rest_ns));
        let (rd, rr) = (pick("reply", |h| h.delay_ns), pick("reply", Hop::rest_ns));
        let b = m.line_busy.get(&imp).copied().unwrap_or_default();
        let pct = |x: u64| 100.0 * x as f64 / m.span_ns.max(1) as f64;
        let _ = writeln!(
            s,
            "| {imp} | {} | {:.2} / {:.2} | {:.2} / {:.2} | {} | {:.2} / {:.2} | {:.2} / {:.2} | {:.1} ({:.1}, {:.1}) |",
            dd.n,
            dd.median,
            dd.p90,
            dr.median,
            dr.p90,
            rd.n,
            rd.median,
            rd.p90,
            rr.median,
            rr.p90,
            pct(b.iter().sum()),
            pct(b[Class::Data as usize]),
            pct(b[Class::Routing as usize])
        );
    }
    s
}

/// The listing's labels: address → (label, page), from the assembler's listing text (lines
/// `AAAAA WWWWWW … LABEL: …`; pages from `PAGE n` lines). The first definition of an address
/// wins.
pub fn listing_labels(text: &str) -> BTreeMap<u16, (String, u32)> {
    let mut out = BTreeMap::new();
    let mut page = 0u32;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("PAGE") {
            if let Some(n) = rest.split_whitespace().next().and_then(|n| n.parse().ok()) {
                page = n;
            }
            continue;
        }
        let b = line.as_bytes();
        if b.len() < 13 || !b[..5].iter().all(|c| (b'0'..=b'7').contains(c)) || b[5] != b' ' {
            continue;
        }
        if !b[6..12].iter().all(|c| (b'0'..=b'7').contains(c)) {
            continue;
        }
        let Ok(addr) = u16::from_str_radix(&line[..5], 8) else {
            continue;
        };
        // The label field: the first token ending in ':' after the flag columns.
        let Some(label) = line[12..]
            .split_whitespace()
            .take(3)
            .find_map(|t| t.strip_suffix(':'))
        else {
            continue;
        };
        if !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '$') {
            out.entry(addr).or_insert((label.to_string(), page));
        }
    }
    out
}

/// The program level each listed address's code was declared at: the listing's column after
/// the word (3050 listing p. 11, "THE STANDARD IMP INTERRUPT LEVELS": 0 modem-to-IMP and other
/// uninterruptible code, 1 VDH input, 2 IMP-to-modem, 3 IMP-to-host, 4 host-to-IMP, 5 timeout,
/// 6 task, 7 background; `C` constants, `V` variables).
pub fn listing_levels(text: &str) -> BTreeMap<u16, char> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let b = line.as_bytes();
        if b.len() < 14
            || !b[..5].iter().all(|c| (b'0'..=b'7').contains(c))
            || b[5] != b' '
            || b[12] != b' '
        {
            continue;
        }
        let Ok(addr) = u16::from_str_radix(&line[..5], 8) else {
            continue;
        };
        let c = b[13] as char;
        if c.is_ascii_digit() || c == 'C' || c == 'V' {
            out.entry(addr).or_insert(c);
        }
    }
    out
}

/// The name of a level of [`listing_levels`].
pub fn level_name(c: char) -> &'static str {
    match c {
        '0' => "0 M2I: modem input and other level-0 code",
        '1' => "1 VDI",
        '2' => "2 I2M: modem output",
        '3' => "3 I2H: IMP to host",
        '4' => "4 H2I: host to IMP",
        '5' => "5 T.O: timeout (clock)",
        '6' => "6 TSK: task",
        '7' => "7 BCK: background",
        'C' => "constants",
        'V' => "variables",
        _ => "not in the listing",
    }
}

/// A profile summed by level ([`listing_levels`]): (level, ns), in level order.
pub fn by_level(profile: &BTreeMap<u16, u64>, levels: &BTreeMap<u16, char>) -> Vec<(char, u64)> {
    let mut sums: BTreeMap<char, u64> = BTreeMap::new();
    for (&a, &ns) in profile {
        *sums
            .entry(levels.get(&a).copied().unwrap_or('?'))
            .or_default() += ns;
    }
    sums.into_iter().collect()
}

/// A profile (ns per address) summed by label: (label, page, first address, ns), largest
/// first.
pub fn by_label(
    profile: &BTreeMap<u16, u64>,
    labels: &BTreeMap<u16, (String, u32)>,
) -> Vec<(String, u32, u16, u64)> {
    let mut sums: BTreeMap<u16, u64> = BTreeMap::new();
    for (&a, &ns) in profile {
        let at = labels.range(..=a).next_back().map_or(0, |(&l, _)| l);
        *sums.entry(at).or_default() += ns;
    }
    let mut v: Vec<(String, u32, u16, u64)> = sums
        .into_iter()
        .map(|(a, ns)| {
            let (l, p) = labels.get(&a).cloned().unwrap_or(("(none)".into(), 0));
            (l, p, a, ns)
        })
        .collect();
    v.sort_by(|a, b| b.3.cmp(&a.3).then(a.2.cmp(&b.2)));
    v
}

/// Reads `profile.csv` (from `--profile`) for one experiment: IMP number → address → ns.
pub fn read_profile(path: &Path, experiment: &str) -> Result<BTreeMap<u8, BTreeMap<u16, u64>>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read {} (replay with --profile)", path.display()))?;
    let mut out: BTreeMap<u8, BTreeMap<u16, u64>> = BTreeMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 4 || f[0] != experiment {
            continue;
        }
        let (Ok(imp), Ok(a), Ok(ns)) = (
            f[1].parse::<u8>(),
            u16::from_str_radix(f[2], 8),
            f[3].parse::<u64>(),
        ) else {
            bail!("{}: a row that does not read: {line}", path.display());
        };
        out.entry(imp).or_default().insert(a, ns);
    }
    Ok(out)
}

/// The number k of a model IMP named `IMPk` in a trace field.
fn imp_no(v: &serde_json::Value) -> Option<u8> {
    v.as_str()?.strip_prefix("IMP")?.parse().ok()
}

/// The destination IMP of the model's `trace.jsonl`: the IMP (its number k of `IMPk`) where its
/// first message is reassembled (`reassembled`) or its first single packet comes in
/// (`single-in`). An error names the flag to give when the trace has neither.
pub fn model_destination(text: &str) -> Result<u8> {
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).context("a trace.jsonl line")?;
        if (v["event"] == "reassembled" || v["event"] == "single-in")
            && let Some(k) = imp_no(&v["imp"])
        {
            return Ok(k);
        }
    }
    bail!("the trace has no message reassembled at an IMP named IMPk: give --model-dest")
}

/// The model's frames from its `trace.jsonl` (`nmc run scenarios/oracle-chain.toml --set
/// trace=true …`): each `send` event is a frame's first bit on the line from IMP `from` to
/// IMP `to`, lasting its bits at `line_bps` (a data packet 1176 bits, the last of a message
/// `last_packet_bits`, a control message — RFNM, ALL, REQALL, GVB — 152: the profile's sizes,
/// `crates/nmc-imp/src/params.rs`), arriving at its last bit (no propagation). IMP `IMPk` is
/// numbered `k`, its line to IMP `j` numbered `j + 1`. Data packets are matched by message and
/// packet; replies, which the trace does not name, by their order on each line. Routing
/// messages and null packets are in the model's trace since December 2026, each frame with its
/// length (`bits`); an older trace has neither, and the time its lines spent on them falls in
/// the rest. Only messages numbered `first_msg` or more, and frames from the first of their
/// packets' sending on, are read.
pub fn from_model_jsonl(
    text: &str,
    line_bps: u64,
    last_packet_bits: u64,
    first_msg: u64,
    dst: u8,
) -> Result<Frames> {
    let mut f = Frames::default();
    let mut from_ns = None;
    let mut reply_seq: BTreeMap<(u8, u8, String), u16> = BTreeMap::new();
    // The destination's RFNMs name no message; its `rfnm` events, in the same order, do.
    let mut rfnm_msgs = std::collections::VecDeque::new();
    // A single-packet message's one packet is its last; the trace says so only where it comes
    // in (`single-in`), after its sends.
    let events = text
        .lines()
        .map(|l| serde_json::from_str(l).context("a trace.jsonl line"))
        .collect::<Result<Vec<serde_json::Value>>>()?;
    let single: std::collections::BTreeSet<u64> = events
        .iter()
        .filter(|v| v["event"] == "single-in")
        .filter_map(|v| v["msg"].as_u64())
        .collect();
    for v in &events {
        if v["event"] == "rfnm" {
            rfnm_msgs.push_back(v["msg"].as_u64().unwrap_or(0));
        }
        if v["event"] != "send" {
            continue;
        }
        let rfnm_msg = (v["kind"].as_str().is_some_and(|k| k.starts_with("rfnm"))
            && imp_no(&v["from"]) == Some(dst))
        .then(|| rfnm_msgs.pop_front())
        .flatten();
        let t = v["t_ns"].as_u64().unwrap_or(0);
        let kind = v["kind"].as_str().unwrap_or("").to_string();
        let msg = v["msg"].as_u64();
        if from_ns.is_none() {
            if kind == "data" && msg.is_some_and(|m| m >= first_msg) {
                from_ns = Some(t);
            } else {
                continue;
            }
        }
        let (Some(a), Some(b)) = (imp_no(&v["from"]), imp_no(&v["to"])) else {
            bail!("a send without IMPs: {v}");
        };
        let packet = v["packet"].as_u64().unwrap_or(0);
        let (class, bits, key, message, flag) = match kind.as_str() {
            "data" => {
                let m = msg.unwrap_or(0);
                let last = packet == 7 || single.contains(&m);
                (
                    Class::Data,
                    if last { last_packet_bits } else { 1176 },
                    Some([m as u16, (m >> 16) as u16, packet as u16, 0]),
                    m as u8,
                    last,
                )
            }
            "rfnm+all" | "rfnm" | "rfnm(single)" | "all" => {
                let n = reply_seq.entry((a, b, kind.clone())).or_default();
                *n += 1;
                let code = u16::from(kind.starts_with("rfnm"));
                let m = rfnm_msg.unwrap_or(0) as u8;
                (
                    Class::Reply,
                    152,
                    Some([0o177777, code, *n, 0]),
                    m,
                    code == 1,
                )
            }
            "routing" | "null" => {
                // Only traces that carry every frame's length name these.
                let class = if kind == "routing" {
                    Class::Routing
                } else {
                    Class::Null
                };
                (class, 0, None, 0, false)
            }
            _ => (Class::Other, 152, None, 0, false),
        };
        // The frame's own length, where the trace gives it.
        let bits = v["bits"].as_u64().unwrap_or(bits);
        let done = t + bits * 1_000_000_000 / line_bps;
        f.tx.push(Tx {
            imp: a,
            line: b + 1,
            start: t,
            done,
            class,
            key,
            message,
            flag,
        });
        f.rx.push(Rx {
            imp: b,
            line: a + 1,
            at: done,
            class,
            key,
            message,
            flag,
        });
    }
    // A reply's order number counts per line; at an IMP it arrives as the n-th on the line in
    // and leaves as the n-th on the line out, so both ends carry n.
    // The flow's span ends with its last frame: the routing messages of the idle network after
    // it (the scenario runs on) are not the experiment's.
    let end =
        f.tx.iter()
            .filter(|t| matches!(t.class, Class::Data | Class::Reply))
            .map(|t| t.done)
            .max()
            .unwrap_or(u64::MAX);
    f.tx.retain(|t| t.start <= end);
    f.rx.retain(|r| r.at <= end);
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tx(imp: u8, line: u8, start: u64, done: u64, class: Class, key: u16) -> Tx {
        Tx {
            imp,
            line,
            start,
            done,
            class,
            key: (class == Class::Data || class == Class::Reply).then_some([key, 0, 0, 0]),
            message: 1,
            flag: class == Class::Reply,
        }
    }

    fn rx(imp: u8, line: u8, at: u64, class: Class, key: u16) -> Rx {
        Rx {
            imp,
            line,
            at,
            class,
            key: Some([key, 0, 0, 0]),
            message: 1,
            flag: class == Class::Reply,
        }
    }

    #[test]
    fn a_forwarded_packet_splits_into_line_busy_by_cause_and_the_rest() {
        // IMP 12 gets packet 7 at 100 on line 1; line 2 is busy with a routing message
        // 90–130 and a null packet 135–140; the packet leaves at 150 on line 2.
        let f = Frames {
            tx: vec![
                tx(12, 2, 90, 130, Class::Routing, 0),
                tx(12, 2, 135, 140, Class::Null, 0),
                tx(12, 2, 150, 300, Class::Data, 7),
                tx(13, 2, 400, 401, Class::Reply, 9),
            ],
            rx: vec![
                rx(12, 1, 100, Class::Data, 7),
                rx(12, 1, 120, Class::Data, 7), // again: not forwarded, counted
                rx(13, 1, 300, Class::Data, 7),
            ],
            to_host: vec![],
        };
        let m = measure(&f, 11, 13);
        let d: Vec<&Hop> = m.hops.iter().filter(|h| h.what == "data").collect();
        assert_eq!(d.len(), 1);
        assert_eq!((d[0].imp, d[0].delay_ns), (12, 50));
        assert_eq!((d[0].busy_routing_ns, d[0].busy_null_ns), (30, 5));
        assert_eq!(d[0].rest_ns(), 15);
        assert_eq!(m.unmatched, 1);
        let dest: Vec<&Hop> = m.hops.iter().filter(|h| h.what == "dest").collect();
        assert_eq!((dest[0].imp, dest[0].delay_ns), (13, 100));
    }

    #[test]
    fn the_distribution_uses_nearest_rank() {
        let d = dist(&(1..=10).map(|i| i * 1_000_000).collect::<Vec<_>>());
        assert_eq!((d.n, d.median, d.p90, d.mean), (10, 5.0, 9.0, 5.5));
        assert_eq!(dist(&[]).n, 0);
    }

    #[test]
    fn labels_are_read_from_listing_lines_and_addresses_fall_to_the_last_label() {
        let text = "PAGE  3   X\n01000 000000 6   FOO:   LDA X\n01001 000000 6          STA Y\n\
                    PAGE  4   X\n01002 000000 6 0 BAR:    JMP FOO  /A COMMENT: HERE\n";
        let l = listing_labels(text);
        assert_eq!(l[&0o1000], ("FOO".into(), 3));
        assert_eq!(l[&0o1002], ("BAR".into(), 4));
        assert_eq!(l.len(), 2);
        let p: BTreeMap<u16, u64> = [(0o1000, 5), (0o1001, 6), (0o1002, 1)].into();
        let lv = listing_levels(text);
        assert_eq!((lv[&0o1000], lv[&0o1002]), ('6', '6'));
        assert_eq!(by_level(&p, &lv), vec![('6', 12)]);
        let v = by_label(&p, &l);
        assert_eq!(v[0], ("FOO".into(), 3, 0o1000, 11));
        assert_eq!(v[1], ("BAR".into(), 4, 0o1002, 1));
    }

    /// The destination read from the trace: where the first message is reassembled (or the
    /// first single packet comes in); without either, an error that names the flag.
    #[test]
    fn the_models_destination_is_where_its_messages_are_reassembled() {
        let multi = r#"{"t_ns":0,"event":"send","kind":"data","msg":0,"packet":0,"from":"IMP0","to":"IMP1"}
{"t_ns":9,"event":"reassembled","msg":0,"imp":"IMP2"}
{"t_ns":10,"event":"reassembled","msg":1,"imp":"IMP7"}
"#;
        assert_eq!(model_destination(multi).unwrap(), 2);
        let single = r#"{"t_ns":9,"event":"single-in","msg":0,"num":0,"imp":"IMP5","disposition":"HOST output"}"#;
        assert_eq!(model_destination(single).unwrap(), 5);
        let none = r#"{"t_ns":0,"event":"send","kind":"data","msg":0,"packet":0,"from":"IMP0","to":"IMP1"}"#;
        let e = model_destination(none).unwrap_err().to_string();
        assert!(e.contains("--model-dest"), "{e}");
    }

    #[test]
    fn the_models_sends_become_frames_with_arrivals_at_their_last_bit() {
        let text = r#"{"t_ns":0,"event":"send","kind":"data","msg":19,"packet":7,"from":"IMP0","to":"IMP1"}
{"t_ns":1000000000,"event":"send","kind":"data","msg":20,"packet":0,"from":"IMP0","to":"IMP1"}
{"t_ns":1030000000,"event":"send","kind":"data","msg":20,"packet":0,"from":"IMP1","to":"IMP2"}
{"t_ns":1100000000,"event":"rfnm","msg":20}
{"t_ns":1100000000,"event":"send","kind":"rfnm+all","msg":null,"packet":null,"from":"IMP2","to":"IMP1"}
{"t_ns":1104000000,"event":"send","kind":"rfnm+all","msg":null,"packet":null,"from":"IMP1","to":"IMP0"}
"#;
        let f = from_model_jsonl(text, 50_000, 1160, 20, 2).unwrap();
        assert_eq!(
            f.tx.len(),
            4,
            "the warm-up's send before msg 20 is left out"
        );
        assert_eq!(
            f.rx[0].at,
            1_000_000_000 + 23_520_000,
            "1176 bits at 50 kbit/s"
        );
        let m = measure(&f, 0, 2);
        let d: Vec<&Hop> = m.hops.iter().filter(|h| h.what == "data").collect();
        assert_eq!((d[0].imp, d[0].delay_ns), (1, 6_480_000));
        let r: Vec<&Hop> = m.hops.iter().filter(|h| h.what == "reply").collect();
        assert_eq!((r[0].imp, r[0].delay_ns), (1, 4_000_000 - 3_040_000));
        let dest: Vec<&Hop> = m.hops.iter().filter(|h| h.what == "dest").collect();
        assert_eq!(dest[0].delay_ns, 1_100_000_000 - 1_053_520_000);
    }

    /// A single-packet message: its one packet is its last (so the destination's row reads it),
    /// and its `rfnm(single)` frames are replies, the destination's named by its `rfnm` event.
    #[test]
    fn the_models_single_packets_have_replies_and_a_destination() {
        let text = r#"{"t_ns":1000000000,"event":"send","kind":"data","msg":20,"packet":0,"bits":1176,"from":"IMP0","to":"IMP1"}
{"t_ns":1030000000,"event":"send","kind":"data","msg":20,"packet":0,"bits":1176,"from":"IMP1","to":"IMP2"}
{"t_ns":1053520000,"event":"single-in","msg":20,"num":0,"imp":"IMP2"}
{"t_ns":1060000000,"event":"rfnm","msg":20}
{"t_ns":1060000000,"event":"send","kind":"rfnm(single)","msg":null,"packet":null,"bits":152,"from":"IMP2","to":"IMP1"}
{"t_ns":1063610000,"event":"send","kind":"rfnm(single)","msg":null,"packet":null,"bits":152,"from":"IMP1","to":"IMP0"}
"#;
        let f = from_model_jsonl(text, 50_000, 1160, 20, 2).unwrap();
        let m = measure(&f, 0, 2);
        let r: Vec<&Hop> = m.hops.iter().filter(|h| h.what == "rfnm").collect();
        assert_eq!((r.len(), r[0].imp, r[0].delay_ns), (1, 1, 570_000));
        let dest: Vec<&Hop> = m.hops.iter().filter(|h| h.what == "dest").collect();
        assert_eq!(dest[0].delay_ns, 1_060_000_000 - 1_053_520_000);
        assert_eq!(m.hops.iter().filter(|h| h.what == "data-last").count(), 1);
    }

    /// Since December 2026 the model's trace has its routing messages and null packets, each
    /// frame with its length: a data packet that waits behind a routing message at IMP 1 has
    /// the line busy with routing; the idle network's routing after the flow's last frame is
    /// not counted in its span.
    #[test]
    fn the_models_routing_and_null_frames_are_timed_by_their_length() {
        let text = r#"{"t_ns":1000000000,"event":"send","kind":"data","msg":20,"packet":0,"bits":1176,"from":"IMP0","to":"IMP1"}
{"t_ns":1020000000,"event":"send","kind":"routing","msg":null,"packet":null,"bits":1160,"from":"IMP1","to":"IMP2"}
{"t_ns":1043200000,"event":"send","kind":"data","msg":20,"packet":0,"bits":1176,"from":"IMP1","to":"IMP2"}
{"t_ns":1050000000,"event":"send","kind":"null","msg":null,"packet":null,"bits":152,"from":"IMP2","to":"IMP1"}
{"t_ns":9000000000,"event":"send","kind":"routing","msg":null,"packet":null,"bits":1160,"from":"IMP1","to":"IMP2"}
"#;
        let f = from_model_jsonl(text, 50_000, 1160, 20, 2).unwrap();
        assert_eq!(f.tx.len(), 4, "the routing after the flow is left out");
        assert_eq!(f.tx[1].class, Class::Routing);
        assert_eq!(f.tx[1].done, 1_020_000_000 + 23_200_000, "1160 bits");
        assert_eq!(f.tx[3].class, Class::Null);
        let m = measure(&f, 0, 2);
        let d: Vec<&Hop> = m.hops.iter().filter(|h| h.what == "data").collect();
        assert_eq!((d[0].imp, d[0].delay_ns), (1, 19_680_000));
        assert_eq!(d[0].busy_routing_ns, 19_680_000, "{:?}", d[0]);
    }
}
