//! The trace the patched SIMH writes (`NMC_ORACLE_TRACE`), and the IMP-to-IMP frames in it.
//!
//! One line per event, times on the instance's cycle clock in ns:
//! `t_ns EVENT line words extra : w0 w1 …` (first words in octal). Events: `MITX` (a modem
//! frame starts; `extra` gives `done=` its last bit's time and `arrive=` when the next IMP
//! gets it), `MITXDONE`, `MIRX` (a frame received, at its arrival), `MIRXDROP` (a frame with
//! no input pending), `HIRX` (host words taken; `extra` `eom` if they end the message),
//! `HIRXDONE`, `HITX` (words to the host start; `extra` `final` on a message's last piece),
//! `LAG` (largest lag in the last second), `SUMMARY` (JSON, at exit).

use crate::leader::Leader;

/// One trace line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// Cycle-clock time, ns.
    pub t_ns: u64,
    /// Event name.
    pub what: String,
    /// Interface line (modem 1–5, host 1–4).
    pub line: u8,
    /// Words moved.
    pub words: u32,
    /// Extra text (`-` if none).
    pub extra: String,
    /// First words of the frame or message piece.
    pub head: Vec<u16>,
}

impl Event {
    /// A `key=value` number from `extra`.
    pub fn extra_u64(&self, key: &str) -> Option<u64> {
        self.extra.split_whitespace().find_map(|kv| {
            kv.strip_prefix(key)
                .and_then(|r| r.strip_prefix('='))
                .and_then(|v| v.parse().ok())
        })
    }
}

/// A parsed trace.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Events in file order (which is time order).
    pub events: Vec<Event>,
    /// The end-of-run summary, if the instance exited cleanly.
    pub summary: Option<serde_json::Value>,
    /// Lines that could not be read.
    pub unreadable: usize,
}

/// Reads a trace file's text.
pub fn parse(text: &str) -> Trace {
    let mut t = Trace::default();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut it = line.splitn(5, ' ');
        let (Some(ts), Some(what), Some(l), Some(n), Some(rest)) =
            (it.next(), it.next(), it.next(), it.next(), it.next())
        else {
            t.unreadable += 1;
            continue;
        };
        if what == "SUMMARY" {
            t.summary = serde_json::from_str(rest).ok();
            continue;
        }
        let (extra, words) = rest.split_once(" :").unwrap_or((rest, ""));
        let (Ok(t_ns), Ok(line_no), Ok(count)) = (ts.parse(), l.parse(), n.parse()) else {
            t.unreadable += 1;
            continue;
        };
        let head: Result<Vec<u16>, _> = words
            .split_whitespace()
            .map(|w| u16::from_str_radix(w, 8))
            .collect();
        let Ok(head) = head else {
            t.unreadable += 1;
            continue;
        };
        t.events.push(Event {
            t_ns,
            what: what.to_string(),
            line: line_no,
            words: count,
            extra: extra.trim().to_string(),
            head,
        });
    }
    t
}

/// What an IMP-to-IMP frame is, read from its five header words (3050 listing p. 14, "WORDS
/// IN BUFFER": the line carries ACKH, HEAD, HEAD1, HEAD2, HEAD3 then text; p. 15, the bits of
/// each).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Frame {
    /// A routing message (HEAD's LINETS bit), from IMP `from`.
    Routing {
        /// Sending IMP (RUTIMP).
        from: u8,
    },
    /// A null packet: acknowledgements only (LINETS and NULPKT).
    Null {
        /// Sending IMP.
        from: u8,
    },
    /// A packet of a message, source to destination (TRNREP set).
    Packet(PacketHeader),
    /// A reply, destination to source: RFNM, ALLOCATE, incomplete, dead (TRNREP clear).
    Reply(PacketHeader),
    /// Fewer than five words.
    Short,
}

/// The fields of a message packet's or reply's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PacketHeader {
    /// ACKH: acknowledgement bits (ACKBTS, low 8).
    pub acks: u8,
    /// ACKH: the logical channel this frame goes on (CHANUM, bits 8–12).
    pub channel: u8,
    /// ACKH: odd/even bit (ODEVEN).
    pub odd_even: bool,
    /// HEAD: message number (MESSNO, high byte).
    pub message: u8,
    /// HEAD: single-packet message (ONEOR8).
    pub single: bool,
    /// HEAD: REQALL on a packet, RFNM on a reply (bit 0o100).
    pub reqall_or_rfnm: bool,
    /// HEAD: incomplete (INCTRN; on a RFNM, a give-back).
    pub incomplete: bool,
    /// HEAD: GVB on a packet, ALLOCATE on a reply (bit 0o2).
    pub gvb_or_alloc: bool,
    /// HEAD1: packet number (PKTNO; packets only).
    pub packet: u8,
    /// HEAD1: destination IMP (DESTI).
    pub dest_imp: u8,
    /// HEAD1: destination host (DESTH).
    pub dest_host: u8,
    /// HEAD1: for a fake host (FORIMP).
    pub for_imp: bool,
    /// HEAD1: destination dead (REPDED; replies only).
    pub dead: bool,
    /// HEAD2: last packet (LSTPKT).
    pub last: bool,
    /// HEAD2: source IMP (SRCEI).
    pub source_imp: u8,
    /// HEAD2: source host (SRCEH).
    pub source_host: u8,
    /// HEAD3 (the leader's second word: link).
    pub head3: u16,
}

impl Frame {
    /// Reads a frame's first words.
    pub fn decode(w: &[u16]) -> Frame {
        if w.len() < 5 {
            return Frame::Short;
        }
        let (ackh, head, head1, head2, head3) = (w[0], w[1], w[2], w[3], w[4]);
        if head & 1 != 0 {
            // The whole upper byte is the sender's number (pp. 67, 94): `RUTIMP`'s mask, 37400,
            // would lose IMPs 32–63.
            let from = (head >> 8) as u8;
            return if head & 2 != 0 {
                Frame::Null { from }
            } else {
                Frame::Routing { from }
            };
        }
        let h = PacketHeader {
            acks: (ackh & 0o377) as u8,
            channel: ((ackh >> 8) & 0o37) as u8,
            odd_even: ackh & 0o100000 != 0,
            message: (head >> 8) as u8,
            single: head & 0o200 != 0,
            reqall_or_rfnm: head & 0o100 != 0,
            incomplete: head & 0o10 != 0,
            gvb_or_alloc: head & 0o2 != 0,
            packet: ((head1 >> 8) & 0o7) as u8,
            dest_imp: (head1 & 0o77) as u8,
            dest_host: ((head1 >> 6) & 3) as u8,
            for_imp: head1 & 0o40000 != 0,
            dead: head1 & 0o400 != 0,
            last: head2 & 0o100000 != 0,
            source_imp: (head2 & 0o77) as u8,
            source_host: ((head2 >> 6) & 3) as u8,
            head3,
        };
        if head & 0o4 != 0 {
            Frame::Packet(h)
        } else {
            Frame::Reply(h)
        }
    }

    /// A short name: `data m5 p3/8`, `REQALL`, `RFNM+ALL`, `ALL`, `null`, `routing`.
    pub fn label(&self) -> String {
        match self {
            Frame::Routing { .. } => "routing".into(),
            Frame::Null { .. } => "null (acks)".into(),
            Frame::Short => "short".into(),
            Frame::Packet(h) => {
                let mut s = format!("packet m{} p{}", h.message, h.packet);
                if h.single {
                    s.push_str(" single");
                }
                if h.last {
                    s.push_str(" last");
                }
                if h.reqall_or_rfnm {
                    s.push_str(" REQALL");
                }
                if h.gvb_or_alloc {
                    s.push_str(" GVB");
                }
                s
            }
            Frame::Reply(h) => {
                let mut parts = Vec::new();
                if h.reqall_or_rfnm {
                    parts.push("RFNM");
                }
                if h.gvb_or_alloc {
                    parts.push("ALL");
                }
                if h.incomplete {
                    parts.push("INC");
                }
                if h.dead {
                    parts.push("DEAD");
                }
                if parts.is_empty() {
                    parts.push("reply");
                }
                format!("{} m{}", parts.join("+"), h.message)
            }
        }
    }
}

/// A host-interface message the IMP took in, from its `HIRX` pieces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostInput {
    /// First piece started.
    pub start_ns: u64,
    /// The last word taken (the `HIRXDONE` after the `eom` piece).
    pub eom_ns: u64,
    /// Its leader.
    pub leader: Leader,
    /// Words, leader included.
    pub words: u32,
}

/// A message the IMP gave the host, from its `HITX` pieces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostOutput {
    /// The final piece started.
    pub start_ns: u64,
    /// Its leader.
    pub leader: Leader,
}

/// The host interface's messages on `line`: in and out.
pub fn host_messages(t: &Trace, line: u8) -> (Vec<HostInput>, Vec<HostOutput>) {
    let mut ins = Vec::new();
    let mut outs = Vec::new();
    let mut cur: Option<HostInput> = None;
    let mut awaiting_done = false;
    let mut out_first = true;
    let mut out_leader: Option<(u64, Leader)> = None;
    for e in t.events.iter().filter(|e| e.line == line) {
        match e.what.as_str() {
            "HIRX" => {
                if cur.is_none() && e.head.len() >= 2 {
                    cur = Some(HostInput {
                        start_ns: e.t_ns,
                        eom_ns: 0,
                        leader: Leader::decode([e.head[0], e.head[1]]),
                        words: 0,
                    });
                }
                if let Some(c) = cur.as_mut() {
                    c.words += e.words;
                }
                awaiting_done = e.extra == "eom";
            }
            "HIRXDONE" if awaiting_done => {
                if let Some(mut c) = cur.take() {
                    c.eom_ns = e.t_ns;
                    ins.push(c);
                }
                awaiting_done = false;
            }
            "HITX" => {
                if out_first && e.head.len() >= 2 {
                    out_leader = Some((e.t_ns, Leader::decode([e.head[0], e.head[1]])));
                }
                out_first = e.extra == "final";
                if out_first && let Some((_, l)) = out_leader.take() {
                    outs.push(HostOutput {
                        start_ns: e.t_ns,
                        leader: l,
                    });
                }
            }
            _ => {}
        }
    }
    (ins, outs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leader::Kind;

    const SAMPLE: &str = "# nmc oracle trace\n\
1923233280 MITX 1 5 done=1926273280 arrive=1926273280 : 000377 001003 000342 000000 176040\n\
1926281280 MIRX 1 68 - : 000000 001401 005000 177777 177777\n\
2000 HIRX 1 65 - : 040314 001000 000000 125252\n\
3000 HIRXDONE 1 0 - :\n\
4000 HIRX 1 3 eom : 125252 125252 125252\n\
5000 HIRXDONE 1 0 eom :\n\
9000 HITX 1 2 final : 042714 001000\n\
bad line\n\
9999 SUMMARY 0 0 {\"max_lag_ns\":5}\n";

    #[test]
    fn trace_lines_read_back() {
        let t = parse(SAMPLE);
        assert_eq!(t.events.len(), 7);
        assert_eq!(t.unreadable, 1);
        assert_eq!(t.events[0].extra_u64("done"), Some(1926273280));
        assert_eq!(t.events[0].head[1], 0o1003);
        assert_eq!(t.summary.unwrap()["max_lag_ns"], 5);
    }

    #[test]
    fn frames_read_as_the_listing_lays_them_out() {
        assert_eq!(
            Frame::decode(&[0o377, 0o1003, 0o342, 0, 0o176040]),
            Frame::Null { from: 2 }
        );
        assert_eq!(
            Frame::decode(&[0, 0o1401, 0o5000, 0o177777, 0o177777]),
            Frame::Routing { from: 3 }
        );
        // message 3, packet 2 of a multi-packet message from IMP 11 to the discard host on 12
        let f = Frame::decode(&[
            0o1400,
            (3 << 8) | 0o4,
            0o40000 | (2 << 8) | 0o300 | 12,
            11,
            0o1000,
        ]);
        let Frame::Packet(h) = f else { panic!() };
        assert_eq!(
            (h.message, h.packet, h.dest_imp, h.source_imp),
            (3, 2, 12, 11)
        );
        assert_eq!((h.channel, h.single, h.last), (3, false, false));
        let r = Frame::decode(&[0, (3 << 8) | 0o102, 11, 12, 0o1000]);
        assert_eq!(r.label(), "RFNM+ALL m3");
    }

    #[test]
    fn host_messages_pair_pieces_with_their_end() {
        let t = parse(SAMPLE);
        let (ins, outs) = host_messages(&t, 1);
        assert_eq!(ins.len(), 1);
        assert_eq!(
            (ins[0].start_ns, ins[0].eom_ns, ins[0].words),
            (2000, 5000, 68)
        );
        assert_eq!(outs.len(), 1);
        assert_eq!(outs[0].leader.kind, Kind::Rfnm);
        assert_eq!(outs[0].start_ns, 9000);
    }
}
