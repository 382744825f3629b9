//! Each packet's journey across IMPs that run the program, seen from outside on the lines
//! (`record = ["journeys"]` with `[network.program]`): the IMPs a data packet or a RFNM
//! visited from its source IMP to its destination IMP, and how often, under the program's own
//! adaptive routing. The columns are the model's `journeys.csv`
//! (`nmc_imp::observe::JourneyRecord`), with the program's message number for `msg` and the
//! frames sent again on a line beside them.
//!
//! A packet is known by what its header says (BBN 3050's `HEAD`, `HEAD1`, `HEAD2`, read by
//! [`crate::trace::Frame`]): data or RFNM, source IMP, destination IMP, message number, packet
//! number. Its journey opens when its source IMP puts it on a line, and each frame that reaches
//! another IMP whole is a visit there, at the frame's last bit plus the line's propagation; it
//! ends at the destination IMP. A frame sent again on the line the packet last crossed, with no
//! frame of it from the far IMP between (the far IMP refused it or its acknowledgement was
//! lost: the program sends it again after 125 ms), is counted in `sent_again`, not as a hop.
//! Nothing here reads the emulator: the driver hands each frame over as it leaves.

use std::collections::BTreeMap;

use nmc_imp::observe::Path;
use nmc_sim::SimTime;

use crate::trace::Frame;

/// A journey not added to for this long is forgotten when its key comes again (the program's
/// message numbers are 8 bits and come round; a packet that arrived twice leaves a journey
/// that never ends). **Choice**: 10 s, far beyond any packet's life in the recorded runs
/// (the longest round trip seen on the loaded 1974 map is under 3 s).
pub const STALE_NS: u64 = 10_000_000_000;

/// One packet's journey (`journeys.csv`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ProgramJourney {
    /// `data` or `rfnm`.
    pub kind: &'static str,
    /// The program's message number (`MESSNO`, 0–255, per IMP pair; it comes round).
    pub msg: u8,
    /// Packet number in the message (`PKTNO`; 0 for a RFNM).
    pub index: u8,
    /// Its source IMP (site name).
    pub src: String,
    /// Its destination IMP.
    pub dst: String,
    /// When its source IMP started its first frame, ns from time 0.
    pub sent_ns: u64,
    /// When it reached its destination IMP whole, ns from time 0.
    pub arrived_ns: u64,
    /// Lines it crossed.
    pub hops: u32,
    /// The most times it was at any one IMP (1 on a loop-free path).
    pub max_visits: u32,
    /// Visits beyond the first, summed over IMPs.
    pub revisits: u32,
    /// Hops from the first visit to an IMP it came back to until the last visit to such an
    /// IMP (0 on a loop-free path), as the model's.
    pub loop_hops: u32,
    /// The time those hops took.
    pub loop_ns: u64,
    /// Frames of it sent again on the line it had just crossed.
    pub sent_again: u32,
    /// The IMPs it was at, in order, by site name.
    pub path: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    rfnm: bool,
    src: u8,
    dst: u8,
    msg: u8,
    index: u8,
}

#[derive(Clone, Debug)]
struct Open {
    /// Where it has been (the model's tracker: the hops and loops are counted as the model's).
    at: Path,
    /// The latest frame: its time, and the IMPs (indices) it left and reached.
    last: (u64, usize, usize),
    sent_again: u32,
}

/// The journeys under way and those ended.
#[derive(Clone, Debug, Default)]
pub struct Journeys {
    /// Each network index's IMP number and site name.
    imps: Vec<(u8, String)>,
    open: BTreeMap<Key, Open>,
    /// Every journey that ended, in the order they ended.
    pub records: Vec<ProgramJourney>,
}

impl Journeys {
    /// Journeys on a network whose index *i* is IMP number `imps[i]` at site `names[i]`.
    pub fn new(imps: &[u8], names: &[String]) -> Journeys {
        Journeys {
            imps: imps.iter().copied().zip(names.iter().cloned()).collect(),
            ..Journeys::default()
        }
    }

    /// A frame of `words` left IMP index `from` (its first bit at `start`) and reaches IMP
    /// index `to` at `arrive` (`ok`: whole). Times are ns from time 0.
    pub fn frame(
        &mut self,
        words: &[u16],
        from: usize,
        to: usize,
        start: u64,
        arrive: u64,
        ok: bool,
    ) {
        let (rfnm, h) = match Frame::decode(words) {
            // A frame with text: a data packet (a REQALL or GVB alone is a header only).
            Frame::Packet(h) if words.len() > 5 => (false, h),
            Frame::Reply(h) if h.reqall_or_rfnm => (true, h),
            _ => return,
        };
        let key = Key {
            rfnm,
            src: h.source_imp,
            dst: h.dest_imp,
            msg: h.message,
            index: if rfnm { 0 } else { h.packet },
        };
        let number = |i: usize| self.imps.get(i).map(|x| x.0);
        let (at_source, at_dest) = (
            number(from) == Some(h.source_imp),
            number(to) == Some(h.dest_imp),
        );
        if self
            .open
            .get(&key)
            .is_some_and(|o| start.saturating_sub(o.last.0) > STALE_NS)
        {
            self.open.remove(&key);
        }
        let o = match self.open.get_mut(&key) {
            Some(o) => o,
            // Only a packet seen leaving its source IMP is followed.
            None if at_source => self.open.entry(key).or_insert_with(|| {
                let mut at = Path::new(SimTime::from_nanos(start));
                at.visit(SimTime::from_nanos(start), from as u32);
                Open {
                    at,
                    last: (start, from, from),
                    sent_again: 0,
                }
            }),
            None => return,
        };
        if !ok || (o.at.route().len() > 1 && (o.last.1, o.last.2) == (from, to)) {
            // Lost on the line (it comes again on it), or a copy of the one that crossed.
            o.sent_again += 1;
            return;
        }
        o.at.visit(SimTime::from_nanos(arrive), to as u32);
        o.last = (arrive, from, to);
        if !at_dest {
            return;
        }
        let o = self.open.remove(&key).expect("just touched");
        let f = o.at.figures();
        let name = |imp: u8| {
            self.imps
                .iter()
                .find(|x| x.0 == imp)
                .map_or_else(|| format!("IMP {imp}"), |x| x.1.clone())
        };
        self.records.push(ProgramJourney {
            kind: if rfnm { "rfnm" } else { "data" },
            msg: key.msg,
            index: key.index,
            src: name(key.src),
            dst: name(key.dst),
            sent_ns: o.at.sent().as_nanos(),
            arrived_ns: arrive,
            hops: f.hops,
            max_visits: f.max_visits,
            revisits: f.revisits,
            loop_hops: f.loop_hops,
            loop_ns: f.loop_ns,
            sent_again: o.sent_again,
            path: o.at.route_names(|i| &self.imps[i as usize].1),
        });
    }

    /// The model's `visits.*` figures of the data packets' journeys.
    pub fn metrics(&self) -> BTreeMap<String, f64> {
        let data: Vec<&ProgramJourney> = self.records.iter().filter(|j| j.kind == "data").collect();
        let looped = data.iter().filter(|j| j.max_visits > 1).count();
        let mut m = BTreeMap::new();
        m.insert("visits.packets".into(), data.len() as f64);
        m.insert("visits.looped_packets".into(), looped as f64);
        m.insert(
            "visits.looped_fraction".into(),
            if data.is_empty() {
                0.0
            } else {
                looped as f64 / data.len() as f64
            },
        );
        let max = |f: &dyn Fn(&ProgramJourney) -> u64| data.iter().map(|j| f(j)).max().unwrap_or(0);
        m.insert(
            "visits.max".into(),
            max(&|j| u64::from(j.max_visits)) as f64,
        );
        m.insert(
            "visits.loop_hops_max".into(),
            max(&|j| u64::from(j.loop_hops)) as f64,
        );
        m.insert(
            "visits.loop_max_ms".into(),
            max(&|j| j.loop_ns) as f64 / 1e6,
        );
        m.insert(
            "visits.hops_mean".into(),
            if data.is_empty() {
                0.0
            } else {
                data.iter().map(|j| f64::from(j.hops)).sum::<f64>() / data.len() as f64
            },
        );
        m.insert(
            "visits.sent_again".into(),
            data.iter().map(|j| f64::from(j.sent_again)).sum(),
        );
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A data packet's header words as BBN 3050 lays them out (the inverse of
    /// [`Frame::decode`]), with `text` words after.
    fn packet(src: u8, dst: u8, msg: u8, index: u8, text: usize) -> Vec<u16> {
        let mut w = vec![
            0,
            (u16::from(msg) << 8) | 0o4,
            (u16::from(index) << 8) | u16::from(dst),
            u16::from(src),
            0,
        ];
        w.extend(std::iter::repeat_n(0, text));
        w
    }

    fn rfnm(src: u8, dst: u8, msg: u8) -> Vec<u16> {
        vec![
            0,
            (u16::from(msg) << 8) | 0o100,
            u16::from(dst),
            u16::from(src),
            0,
        ]
    }

    /// IMPs A, B, C, D numbered 11–14. A packet from A to D goes A→B, is sent again on A→B,
    /// goes B→C, C→B (a loop), B→C again and C→D: five hops, B and C each visited twice; its
    /// RFNM comes straight back D→C→B→A.
    #[test]
    fn a_packet_sent_again_and_looping_then_its_rfnm() {
        let imps = [11, 12, 13, 14];
        let names: Vec<String> = ["A", "B", "C", "D"].map(String::from).to_vec();
        let mut j = Journeys::new(&imps, &names);
        let p = packet(11, 14, 7, 2, 60);
        let mut t = 0;
        for (from, to) in [(0, 1), (0, 1), (1, 2), (2, 1), (1, 2), (2, 3)] {
            j.frame(&p, from, to, t, t + 25, true);
            t += 30;
        }
        let r = rfnm(14, 11, 7);
        for (from, to) in [(3, 2), (2, 1), (1, 0)] {
            j.frame(&r, from, to, t, t + 2, true);
            t += 10;
        }
        assert_eq!(j.records.len(), 2);
        let d = &j.records[0];
        assert_eq!(
            (d.kind, d.msg, d.index, d.src.as_str(), d.dst.as_str()),
            ("data", 7, 2, "A", "D")
        );
        assert_eq!((d.sent_ns, d.arrived_ns), (0, 175));
        assert_eq!((d.hops, d.sent_again), (5, 1));
        assert_eq!((d.max_visits, d.revisits), (2, 2));
        // From its first visit to B (hop 1, at 25) to its last visit to C (hop 4, at 145).
        assert_eq!((d.loop_hops, d.loop_ns), (3, 120));
        assert_eq!(d.path, "A B C B C D");
        let back = &j.records[1];
        assert_eq!(
            (back.kind, back.src.as_str(), back.dst.as_str()),
            ("rfnm", "D", "A")
        );
        assert_eq!((back.hops, back.max_visits, back.loop_hops), (3, 1, 0));
        let m = j.metrics();
        assert_eq!(m["visits.looped_packets"], 1.0);
        assert_eq!(m["visits.sent_again"], 1.0);
    }

    /// A frame that leaves an IMP other than the packet's source, of a packet not followed
    /// (it left its source before time 0), opens nothing.
    #[test]
    fn a_packet_first_seen_in_transit_is_not_followed() {
        let imps = [11, 12, 13];
        let names: Vec<String> = ["A", "B", "C"].map(String::from).to_vec();
        let mut j = Journeys::new(&imps, &names);
        j.frame(&packet(11, 13, 1, 0, 60), 1, 2, 0, 25, true);
        assert!(j.records.is_empty() && j.open.is_empty());
    }
}
