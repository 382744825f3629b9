//! Each packet's journey under adaptive routing, from its source IMP to its destination IMP:
//! the IMPs it visited and how often ([`JourneyRecord`], `record = ["journeys"]`), and the
//! running figures the `visits.*` metrics are made of ([`JourneyStats`]). K&O §V: packets
//! "exchanged between neighbors up to 50 times". The driver says where a packet is
//! ([`Journeys::visit`]); nothing here reads the subnet.

use crate::packet::{MsgId, Packet, PktKind};
use nmc_sim::SimTime;
use serde::Serialize;
use std::collections::BTreeMap;

/// One packet's journey from its source IMP to its destination IMP (`record = ["journeys"]`).
#[derive(Clone, Debug, Serialize)]
pub struct JourneyRecord {
    /// `data` or `rfnm`.
    pub kind: &'static str,
    /// The message it belongs to, or answers (a RFNM).
    pub msg: MsgId,
    /// Packet index in the message (0 for a RFNM).
    pub index: u8,
    /// Its source IMP.
    pub src: String,
    /// Its destination IMP.
    pub dst: String,
    /// When it was first at an IMP (its source IMP), ns since the start.
    pub sent_ns: u64,
    /// When it reached its destination IMP, ns since the start.
    pub(crate) arrived_ns: u64,
    /// Lines it crossed.
    pub hops: u32,
    /// The most times the packet was at any one IMP (1 on a loop-free path).
    pub max_visits: u32,
    /// Visits beyond the first, summed over IMPs.
    pub revisits: u32,
    /// Hops from the first visit to an IMP the packet came back to until the last visit to
    /// such an IMP: how often it was "exchanged between neighbors" in loops (K&O §V; 0 on a
    /// loop-free path).
    pub loop_hops: u32,
    /// The time those hops took (0 on a loop-free path).
    pub loop_ns: u64,
    /// The IMPs it was at, in order, by site name (as the program's `journeys.csv`).
    pub path: String,
}

/// Where one packet has been: per IMP, the visits, and the time and hop count of the first
/// and the last; what a [`JourneyRecord`]'s figures are made of. The model's journeys use it,
/// and so does `nmc_oracle::journeys`, which follows the 1973 program's packets on its lines.
#[derive(Clone, Debug)]
pub struct Path {
    sent: SimTime,
    hops: u32,
    visits: Vec<Visit>,
    /// Each IMP it was at, in order (a loop's IMPs more than once).
    route: Vec<u32>,
}

/// A finished [`Path`]'s figures, as [`JourneyRecord`] names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathFigures {
    /// Lines it crossed.
    pub hops: u32,
    /// The most times it was at any one IMP.
    pub max_visits: u32,
    /// Visits beyond the first, summed over IMPs.
    pub revisits: u32,
    /// Hops from the first visit to an IMP it came back to until the last visit to such an IMP.
    pub loop_hops: u32,
    /// The time those hops took, ns.
    pub loop_ns: u64,
}

impl Path {
    /// A packet first at an IMP at `sent` (its source IMP: [`Path::visit`] it there).
    pub fn new(sent: SimTime) -> Path {
        Path {
            sent,
            hops: 0,
            visits: Vec::with_capacity(4),
            route: Vec::with_capacity(8),
        }
    }

    /// When it was first at an IMP.
    pub fn sent(&self) -> SimTime {
        self.sent
    }

    /// The IMPs it was at, in order.
    pub fn route(&self) -> &[u32] {
        &self.route
    }

    /// The IMPs it was at, in order, each by `name(imp)`, space-separated (`journeys.csv`'s
    /// `path`).
    pub fn route_names<'a>(&self, name: impl Fn(u32) -> &'a str) -> String {
        let mut out = String::new();
        for (i, &imp) in self.route.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(name(imp));
        }
        out
    }

    /// It is at `imp` now: its first IMP, or one more hop.
    pub fn visit(&mut self, now: SimTime, imp: u32) {
        if !self.visits.is_empty() {
            self.hops += 1;
        }
        self.route.push(imp);
        let here = (now, self.hops);
        match self.visits.iter_mut().find(|v| v.imp == imp) {
            Some(v) => {
                v.count += 1;
                v.last = here;
            }
            None => self.visits.push(Visit {
                imp,
                count: 1,
                first: here,
                last: here,
            }),
        }
    }

    /// Its figures so far.
    pub fn figures(&self) -> PathFigures {
        let repeated = self.visits.iter().filter(|v| v.count > 1);
        let loop_from = repeated.clone().map(|v| v.first).min();
        let loop_until = repeated.map(|v| v.last).max();
        let (loop_hops, loop_ns) = match (loop_from, loop_until) {
            (Some(a), Some(b)) => (b.1 - a.1, (b.0 - a.0).as_nanos()),
            _ => (0, 0),
        };
        PathFigures {
            hops: self.hops,
            max_visits: self.visits.iter().map(|v| v.count).max().unwrap_or(1),
            revisits: self.visits.iter().map(|v| v.count - 1).sum(),
            loop_hops,
            loop_ns,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Visit {
    imp: u32,
    count: u32,
    first: (SimTime, u32),
    last: (SimTime, u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Journey {
    Data(MsgId, u8),
    Rfnm(MsgId),
}

fn journey_of(p: &Packet) -> Option<Journey> {
    match p.kind {
        PktKind::Data { msg, index, .. } => Some(Journey::Data(msg, index)),
        PktKind::Rfnm { msg, .. } => Some(Journey::Rfnm(msg)),
        _ => None,
    }
}

/// Running figures of the data packets' journeys (adaptive routing), whether or not each
/// journey is kept: what the `visits.*` metrics are made of, so that memory stays flat in
/// simulated time when `journeys` is not recorded.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct JourneyStats {
    /// Data packets that reached their destination IMP.
    pub(crate) packets: u64,
    /// Those that were at some IMP more than once.
    pub(crate) looped: u64,
    /// The most visits to one IMP by any packet.
    pub(crate) max_visits: u32,
    /// The longest loop of any packet, in hops ([`JourneyRecord::loop_hops`]).
    pub(crate) loop_hops_max: u32,
    /// The longest loop of any packet, in ns ([`JourneyRecord::loop_ns`]).
    pub(crate) loop_ns_max: u64,
}

impl JourneyStats {
    fn add(&mut self, j: &JourneyRecord) {
        self.packets += 1;
        self.looped += u64::from(j.max_visits > 1);
        self.max_visits = self.max_visits.max(j.max_visits);
        self.loop_hops_max = self.loop_hops_max.max(j.loop_hops);
        self.loop_ns_max = self.loop_ns_max.max(j.loop_ns);
    }
}

/// The journeys under way and those ended: kept one by one when `record = ["journeys"]`
/// ([`Journeys::keep`]), and counted into [`JourneyStats`] always.
#[derive(Clone, Debug)]
pub(crate) struct Journeys {
    open: BTreeMap<Journey, Path>,
    /// Each packet's journey, when kept (`record = ["journeys"]`).
    pub(crate) records: Vec<JourneyRecord>,
    /// Keep every journey (`true`, the default) or only [`Journeys::stats`].
    pub(crate) keep: bool,
    /// Running figures of the data packets' journeys, kept whether or not the journeys are.
    pub(crate) stats: JourneyStats,
}

impl Default for Journeys {
    fn default() -> Self {
        Journeys {
            open: BTreeMap::new(),
            records: Vec::new(),
            keep: true,
            stats: JourneyStats::default(),
        }
    }
}

impl Journeys {
    /// Packet `p` is at `imp` now (it left its source, or an IMP accepted it). At its
    /// destination IMP the journey ends and is recorded.
    pub(crate) fn visit(&mut self, now: SimTime, imp: u32, p: &Packet, names: &[String]) {
        let Some(key) = journey_of(p) else {
            return;
        };
        self.open
            .entry(key)
            .or_insert_with(|| Path::new(now))
            .visit(now, imp);
        if imp != p.dst {
            return;
        }
        let t = self.open.remove(&key).expect("just touched");
        let f = t.figures();
        let (kind, msg, index) = match key {
            Journey::Data(m, i) => ("data", m, i),
            Journey::Rfnm(m) => ("rfnm", m, 0),
        };
        let j = JourneyRecord {
            kind,
            msg,
            index,
            src: names[p.src as usize].clone(),
            dst: names[p.dst as usize].clone(),
            sent_ns: t.sent.as_nanos(),
            arrived_ns: now.as_nanos(),
            hops: f.hops,
            max_visits: f.max_visits,
            revisits: f.revisits,
            loop_hops: f.loop_hops,
            loop_ns: f.loop_ns,
            path: if self.keep {
                t.route_names(|i| &names[i as usize])
            } else {
                String::new()
            },
        };
        if j.kind == "data" {
            self.stats.add(&j);
        }
        if self.keep {
            self.records.push(j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nmc_sim::{Bits, SimDuration};

    /// A packet exchanged between neighbours (K&O §V): A, B, A, B, then C, its destination.
    /// It was at A and at B twice each; the loop ran from its first visit to A to its last
    /// visit to B, three hops.
    #[test]
    fn a_packet_exchanged_between_neighbours() {
        let names: Vec<String> = ["A", "B", "C"].map(String::from).to_vec();
        let p = Packet {
            kind: PktKind::Data {
                msg: 7,
                num: 0,
                index: 0,
                of: 1,
                host: 0,
            },
            src: 0,
            dst: 2,
            stream: 0,
            bits: Bits::new(1000),
            hops: 0,
        };
        let mut j = Journeys::default();
        let at = |ms| SimTime::ZERO + SimDuration::from_millis(ms);
        for (ms, imp) in [(0, 0), (10, 1), (20, 0), (30, 1), (40, 2)] {
            j.visit(at(ms), imp, &p, &names);
        }
        let r = &j.records[0];
        assert_eq!((r.hops, r.max_visits, r.revisits), (4, 2, 2));
        assert_eq!((r.loop_hops, r.loop_ns), (3, 30_000_000));
        assert_eq!(r.path, "A B A B C");
        assert_eq!(
            (j.stats.packets, j.stats.looped, j.stats.max_visits),
            (1, 1, 2)
        );
        assert!(j.open.is_empty(), "the journey ended at its destination");
    }
}
