//! The model's end-to-end protocol (version 2, K&O §II; RFC 632's single-packet replies) and
//! program 3050's (`neighbour/PROTOCOL.md` §1.2–1.4, §5), translated at the lines between
//! modelled and emulated IMPs, so that a host on a modelled IMP exchanges messages with a host
//! on an emulated one, and two modelled IMPs' messages may cross emulated IMPs. Sans-I/O: it
//! reads and writes words and the model's [`Native`] packets, nothing else.
//!
//! * **Message numbers out of the model** are the program's: per (source IMP, destination
//!   IMP), 8 bits from 0 (p. 16; `MESINI` p. 40: the first number is 0), given in the order
//!   the model's transmissions first cross. The model's own numbers already follow the
//!   program's rules in the large — a REQALL takes a number of its own, skipped by the
//!   message (K&O §II; p. 129 "a REQ8 uses up a message number") — but its GVB takes none and
//!   the program's does (p. 55), so the two are kept apart by a table per pair.
//! * **The program's window** (p. 137 `MESGET`: no new number until the number three back is
//!   answered; the receiver discards a number outside its four, p. 73): a transmission for
//!   an emulated IMP that would need a number beyond the four waits ([`Out::Wait`]) until a
//!   reply answers the oldest.
//! * **Into the model**, the program's numbers become the model's by unwrapping (the nearest
//!   number to the pair's highest with the same low 8 bits), so the model's replies carry the
//!   program's number back unchanged (`num mod 256`); its messages get message ids of their
//!   own ([`FOREIGN_MSG`] on).
//!
//! | model | program | p. |
//! |---|---|---|
//! | single-packet message, first try | REQ1, `HEAD` 304 | 128, 133 |
//! | the same after an ALLOCATE-1 | 204, same number | 56 |
//! | packet `i` of a multipacket message | 004, `PKTNO` i, `LSTPKT` on the last | 129–133 |
//! | REQALL | REQ8, 104, 3 words | 129 |
//! | GVB | 206, a new number, 3 words | 55 |
//! | RFNM of a single packet / ALLOCATE-1 | 300 / 202 | 52–53, 74 |
//! | ALL / RFNM / RFNM with ALL | 002 / 100 / 102 | 52 |
//!
//! The program's answer to a GVB (310) answers its number and goes no further; the model has
//! no answer to a GVB, so the program's GVBs to a modelled IMP are answered here (310) as its
//! destination does, their numbers skipped in the model.

use nmc_imp::model::{Native, NativePacket};
use std::collections::BTreeMap;

use crate::neighbour::frame::{head, head1, head2};

/// The first message id given to a message of the program's hosts inside the model: far above
/// any the model gives its own.
pub const FOREIGN_MSG: u64 = 1 << 62;

/// The order number every transmission of a sender that sends no priority messages carries
/// (`TMESS` = 177477 after `MESINI`, p. 40: `ORDNO` 3).
pub const ORDNO_AT_START: u16 = head::ORDNO;

/// What a host of the model's is, as the program addresses it (HEAD1's host field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A scenario's real host: leader host 0 (`program.rs`: host interface 1).
    Real,
    /// The IMP's discard fake host: `FORIMP`, host 3 (p. 15).
    Fake,
    /// A background host (`kind = "background"`): leader host 1 (`crate::background`:
    /// host interface 2).
    Background,
}

impl Role {
    /// HEAD1's `FORIMP` and `DESTH` for it.
    fn bits(self) -> u16 {
        match self {
            Role::Real => 0,
            Role::Fake => head1::FORIMP | 0o300,
            Role::Background => u16::from(crate::background::LEADER_HOST) << 6,
        }
    }

    /// The role HEAD1's host field names, if a model host can have it.
    fn of(h1: u16) -> Option<Role> {
        let fake = h1 & head1::FORIMP != 0;
        match (fake, (h1 & head1::DESTH) >> 6) {
            (true, 3) => Some(Role::Fake),
            (false, 0) => Some(Role::Real),
            (false, h) if h == u16::from(crate::background::LEADER_HOST) => Some(Role::Background),
            _ => None,
        }
    }
}

/// What to do with one of the model's packets at a boundary line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Out {
    /// Send these words (HEAD to the last text word); `reply` as the program queues replies.
    Send {
        /// The words.
        words: Vec<u16>,
        /// A reply (TRNREP = 0).
        reply: bool,
    },
    /// It needs a message number the program's window does not yet give: try again later.
    Wait,
    /// It cannot be said in the program's protocol (a reply to a message never seen).
    Drop,
}

/// What a packet of the program becomes inside the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum In {
    /// One of the model's own.
    Native(Native),
    /// Its words, carried through (for an emulated IMP, or nothing the model reads).
    Words,
}

/// A number given out by the model's side, and what it was for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Given {
    /// The model's number (none for a GVB).
    num: Option<u64>,
    msg: u64,
    what: What,
    /// Its final answer came.
    answered: bool,
    /// An ALLOCATE-1 came for it: the next copy goes as 204.
    allocated: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    Single,
    /// A multipacket message of `of` packets.
    Multi(u8),
    ReqAll,
    Gvb,
    /// A probe to the destination IMP's discard host (the program's hosts come up a while
    /// after its lines: the model's pumps wait for a probe's RFNM, as the program's do).
    Probe,
}

impl What {
    /// HEAD's low byte for a transmission of this kind (`allocated`: an ALLOCATE-1 came).
    fn code(self, allocated: bool) -> u16 {
        match self {
            What::Single if allocated => 0o204,
            What::Single | What::Probe => 0o304,
            What::Multi(_) => 0o004,
            What::ReqAll => 0o104,
            What::Gvb => 0o206,
        }
    }
}

/// One pair's numbers given by the model's side.
#[derive(Clone, Debug, Default)]
struct Outbound {
    /// The next number.
    next: u8,
    /// The numbers given, in order of giving (the newest 256).
    given: BTreeMap<u8, Given>,
    order: std::collections::VecDeque<u8>,
    /// The model's number → the program's.
    by_num: BTreeMap<u64, u8>,
}

impl Outbound {
    /// The next number for `g`, if the program's window gives one (p. 137 `MESGET`: the
    /// numbers not yet answered and this one within four; `window` false for a pair the
    /// program only carries through).
    fn give(&mut self, g: Given, window: bool) -> Option<u8> {
        let m = self.next;
        let oldest = self
            .order
            .iter()
            .find(|k| self.given.get(k).is_some_and(|g| !g.answered))
            .copied();
        if window && oldest.is_some_and(|o| m.wrapping_sub(o) > 3) {
            return None;
        }
        self.next = m.wrapping_add(1);
        if let Some(old) = self.given.insert(m, g)
            && let Some(n) = old.num
        {
            self.by_num.remove(&n);
        }
        self.order.retain(|&k| k != m);
        self.order.push_back(m);
        if let Some(n) = g.num {
            self.by_num.insert(n, m);
        }
        Some(m)
    }
}

/// One pair's numbers from the program's side.
#[derive(Clone, Debug, Default)]
struct Inbound {
    /// The highest number seen, unwrapped.
    high: Option<u64>,
    /// Message ids given, by unwrapped number.
    msgs: BTreeMap<u64, u64>,
}

/// What the translation did, for the run's notes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TranslateCounts {
    /// The model's transmissions sent as the program's.
    pub out: u64,
    /// Of them, held a while for a number.
    pub waited: u64,
    /// The model's packets that could not be said.
    pub dropped: u64,
    /// The program's packets taken into the model as its own.
    pub native_in: u64,
    /// The program's GVBs answered here.
    pub gvbs_answered: u64,
    /// Replies "destination dead" to the model's messages (the model's source is not told).
    pub dead: u64,
}

/// The two protocols' tables.
#[derive(Clone, Debug)]
pub struct Translator {
    /// IMP number of each network index.
    numbers: Vec<u8>,
    /// Modelled, by network index.
    modelled: Vec<bool>,
    /// Model host index → (IMP, what it is).
    hosts: BTreeMap<u32, (u32, Role)>,
    out: BTreeMap<(u32, u32), Outbound>,
    inb: BTreeMap<(u32, u32), Inbound>,
    next_msg: u64,
    /// Pairs whose probe a RFNM answered.
    probed: std::collections::BTreeSet<(u32, u32)>,
    /// What it did.
    pub counts: TranslateCounts,
}

impl Translator {
    /// Tables for a network of `numbers` (IMP numbers by index), `modelled` by index, whose
    /// model hosts are `hosts` (model host index → IMP index, role).
    pub fn new(
        numbers: Vec<u8>,
        modelled: Vec<bool>,
        hosts: BTreeMap<u32, (u32, Role)>,
    ) -> Translator {
        Translator {
            numbers,
            modelled,
            hosts,
            out: BTreeMap::new(),
            inb: BTreeMap::new(),
            next_msg: FOREIGN_MSG,
            probed: Default::default(),
            counts: TranslateCounts::default(),
        }
    }

    fn modelled(&self, i: u32) -> bool {
        self.modelled.get(i as usize).copied().unwrap_or(false)
    }

    fn number(&self, i: u32) -> u16 {
        u16::from(self.numbers[i as usize])
    }

    /// The model's packet `p` in the program's words, or why not now.
    pub fn out(&mut self, p: &NativePacket) -> Out {
        let r = if p.kind.is_reply() {
            self.reply_out(p)
        } else {
            self.transmission_out(p)
        };
        match &r {
            Out::Send { reply: false, .. } => self.counts.out += 1,
            Out::Drop => self.counts.dropped += 1,
            _ => {}
        }
        r
    }

    fn transmission_out(&mut self, p: &NativePacket) -> Out {
        let (src, dst) = (p.src, p.dst);
        if !self.modelled(src) {
            // A message of the program's hosts leaving the model again on its way: its own
            // number (the model's carries it in its low 8 bits).
            return self.relay_out(p);
        }
        let window = !self.modelled(dst);
        let ob = self.out.entry((src, dst)).or_default();
        let (what, num, msg) = match p.kind {
            Native::Data { msg, num, of, .. } => (
                if of == 1 {
                    What::Single
                } else {
                    What::Multi(of)
                },
                Some(num),
                msg,
            ),
            Native::ReqAll { msg, num, .. } => (What::ReqAll, Some(num), msg),
            _ => (What::Gvb, None, 0),
        };
        let known = num.and_then(|n| ob.by_num.get(&n).copied());
        let (m, code) = match known {
            Some(m) => {
                let g = ob.given[&m];
                (m, g.what.code(g.allocated))
            }
            None => {
                let g = Given {
                    num,
                    msg,
                    what,
                    answered: false,
                    allocated: false,
                };
                match ob.give(g, window) {
                    Some(m) => (m, what.code(false)),
                    None => return Out::Wait,
                }
            }
        };
        self.transmission_words(p, m, code)
    }

    /// The words of a transmission from `p.src` to `p.dst` with number `m` and HEAD's `code`.
    fn transmission_words(&self, p: &NativePacket, m: u8, code: u16) -> Out {
        // ORDNO: the program's sender starts it at 3 (`TMESS` = 177477 after `MESINI`, p. 40)
        // and bumps it only for priority messages (p. 140 `UPORD`); the model sends none.
        let headw = (u16::from(m) << 8) | code | ORDNO_AT_START;
        let (d, s) = (self.number(p.dst), self.number(p.src));
        let bits = |host: u32| self.hosts.get(&host).map_or(0, |h| h.1.bits());
        let words = match p.kind {
            Native::Data {
                index, of, host, ..
            } => {
                let last = of == 1 || index + 1 == of;
                let text = (p.bits.div_ceil(16) as usize).clamp(1, 63);
                let mut w = vec![
                    headw,
                    (u16::from(index & 7) << 8) | bits(host) | d,
                    if last { head2::LSTPKT } else { 0 } | s,
                    0,
                ];
                w.resize(4 + text, 0);
                w
            }
            // REQ8 (p. 129): the leader's fields, 5 words on the line.
            Native::ReqAll { host, .. } => vec![headw, bits(host) | d, s],
            // GVB (p. 55): the two IMPs only.
            _ => vec![headw, d, s],
        };
        Out::Send {
            words,
            reply: false,
        }
    }

    /// A probe from modelled IMP `src` to emulated IMP `dst`'s discard host (a one-word REQ1,
    /// as `program.rs`'s hosts send until answered), if the program's window gives a number.
    pub fn probe(&mut self, src: u32, dst: u32) -> Option<Vec<u16>> {
        let g = Given {
            num: None,
            msg: 0,
            what: What::Probe,
            answered: false,
            allocated: false,
        };
        let m = self.out.entry((src, dst)).or_default().give(g, true)?;
        Some(vec![
            (u16::from(m) << 8) | 0o304 | ORDNO_AT_START,
            Role::Fake.bits() | self.number(dst),
            head2::LSTPKT | self.number(src),
            0,
            0,
        ])
    }

    /// A probe of pair `src` → `dst` has been answered by a RFNM.
    pub fn probed(&self, src: u32, dst: u32) -> bool {
        self.probed.contains(&(src, dst))
    }

    /// A message of an emulated IMP's host, translated into the model, leaving it again.
    fn relay_out(&mut self, p: &NativePacket) -> Out {
        let (m, code) = match p.kind {
            Native::Data { num, of: 1, .. } => (num as u8, 0o304),
            Native::Data { num, .. } => (num as u8, 0o004),
            Native::ReqAll { num, .. } => (num as u8, 0o104),
            _ => return Out::Drop,
        };
        self.transmission_words(p, m, code)
    }

    /// A reply of the model (from `p.src`, a message's destination, to `p.dst`, its source).
    fn reply_out(&mut self, p: &NativePacket) -> Out {
        let (num, code) = match p.kind {
            Native::SingleRfnm { num, .. } => (num, 0o300),
            Native::SingleAll { num, .. } => (num, 0o202),
            Native::All { num } => (num, 0o002),
            Native::Rfnm { num, all: true, .. } => (num, 0o102),
            Native::Rfnm { num, .. } => (num, 0o100),
            _ => return Out::Drop,
        };
        let m = if self.modelled(p.dst) {
            // The message came from the model's side: the number it was given.
            match self
                .out
                .get(&(p.dst, p.src))
                .and_then(|o| o.by_num.get(&num))
            {
                Some(&m) => m,
                None => return Out::Drop,
            }
        } else {
            if matches!(p.kind, Native::SingleRfnm { .. } | Native::Rfnm { .. })
                && let Some(ib) = self.inb.get_mut(&(p.dst, p.src))
            {
                // Its last answer: the message's id is not needed again.
                ib.msgs.remove(&num);
            }
            num as u8
        };
        // Background-built replies (p. 139): HEAD, the source IMP, the answering IMP.
        Out::Send {
            words: vec![
                (u16::from(m) << 8) | code,
                self.number(p.dst),
                self.number(p.src),
            ],
            reply: true,
        }
    }

    /// Model host of IMP `imp` that HEAD1's host field names ([`Role`]).
    fn host_at(&self, imp: u32, h1: u16) -> Option<u32> {
        let role = Role::of(h1)?;
        self.hosts
            .iter()
            .find(|(_, v)| **v == (imp, role))
            .map(|(&k, _)| k)
    }

    /// The program's number `m` of pair `src` → `dst` as the model's.
    pub fn unwrap(&mut self, src: u32, dst: u32, m: u8) -> u64 {
        let ib = self.inb.entry((src, dst)).or_default();
        let n = match ib.high {
            None => u64::from(m),
            Some(h) => {
                let c = (h & !0xff) | u64::from(m);
                if c + 128 < h {
                    c + 256
                } else if c > h + 128 && c >= 256 {
                    c - 256
                } else {
                    c
                }
            }
        };
        ib.high = Some(ib.high.map_or(n, |h| h.max(n)));
        n
    }

    /// What the packet `words` (HEAD to the last text word) of the program, from IMP `src`
    /// to IMP `dst`, becomes in the model.
    pub fn into_model(&mut self, src: u32, dst: u32, words: &[u16]) -> In {
        if words.len() < 3 || !self.modelled(dst) {
            return In::Words;
        }
        let (h, h1, h2) = (words[0], words[1], words[2]);
        let m = (h >> 8) as u8;
        let code = h & 0o377;
        let r = if h & head::TRNREP == 0 {
            self.reply_in(src, dst, m, code, h1 & head1::REPDED != 0)
        } else if self.modelled(src) {
            self.returning_in(src, dst, m, h1)
        } else {
            self.message_in(src, dst, m, code, h1, h2)
        };
        if matches!(r, In::Native(_)) {
            self.counts.native_in += 1;
        }
        r
    }

    /// A reply from `src` to `dst` (a modelled IMP whose message it answers).
    fn reply_in(&mut self, src: u32, dst: u32, m: u8, code: u16, dead: bool) -> In {
        let Some(ob) = self.out.get_mut(&(dst, src)) else {
            return In::Words;
        };
        let Some(g) = ob.given.get_mut(&m) else {
            return In::Words;
        };
        if dead {
            // Destination dead (p. 75 `TRNDED`): the number is answered; the model has no
            // such reply, and a message of its own so answered is not (counted).
            g.answered = true;
            self.counts.dead += u64::from(g.what != What::Probe);
            return In::Words;
        }
        if g.what == What::Probe {
            g.answered = true;
            if code & !head::ORDNO == 0o300 {
                self.probed.insert((dst, src));
            }
            return In::Words;
        }
        let kind = match (code & !head::ORDNO, g.what, g.num) {
            (0o300, What::Single, Some(num)) => Native::SingleRfnm { msg: g.msg, num },
            (0o202, What::Single, Some(num)) => {
                g.allocated = true;
                return In::Native(Native::SingleAll { msg: g.msg, num });
            }
            (0o002, What::ReqAll, Some(num)) => Native::All { num },
            (0o102 | 0o100, What::Multi(_), Some(num)) => Native::Rfnm {
                msg: g.msg,
                num,
                all: code & head::GVB_OR_ALLOC != 0,
            },
            (0o310, What::Gvb, _) => {
                g.answered = true;
                return In::Words;
            }
            _ => return In::Words,
        };
        g.answered = true;
        In::Native(kind)
    }

    /// A transmission of the model's own from `src` to `dst`, both modelled, back from a path
    /// through emulated IMPs.
    fn returning_in(&mut self, src: u32, dst: u32, m: u8, h1: u16) -> In {
        let Some(g) = self.out.get(&(src, dst)).and_then(|o| o.given.get(&m)) else {
            return In::Words;
        };
        let host = |t: &Translator| t.host_at(dst, h1);
        In::Native(match (g.what, g.num) {
            (What::Single, Some(num)) => match host(self) {
                Some(host) => Native::Data {
                    msg: g.msg,
                    num,
                    index: 0,
                    of: 1,
                    host,
                },
                None => return In::Words,
            },
            (What::Multi(of), Some(num)) => match host(self) {
                Some(host) => Native::Data {
                    msg: g.msg,
                    num,
                    index: ((h1 & head1::PKTNO) >> 8) as u8,
                    of,
                    host,
                },
                None => return In::Words,
            },
            (What::ReqAll, Some(num)) => Native::ReqAll {
                msg: g.msg,
                num,
                host: host(self).unwrap_or(0),
            },
            (What::Gvb, _) => Native::Gvb,
            _ => return In::Words,
        })
    }

    /// A transmission of an emulated IMP's host for a modelled IMP.
    fn message_in(&mut self, src: u32, dst: u32, m: u8, code: u16, h1: u16, h2: u16) -> In {
        let code = code & !head::ORDNO;
        if code & head::INCTRN != 0 {
            return In::Words;
        }
        if code == 0o206 {
            // A GVB: the model gives the allocation back; the number is answered here.
            return In::Native(Native::Gvb);
        }
        let Some(host) = self.host_at(dst, h1) else {
            return In::Words;
        };
        let num = self.unwrap(src, dst, m);
        let next = &mut self.next_msg;
        let msg = *self
            .inb
            .entry((src, dst))
            .or_default()
            .msgs
            .entry(num)
            .or_insert_with(|| {
                *next += 1;
                *next
            });
        In::Native(match code {
            0o304 | 0o204 => Native::Data {
                msg,
                num,
                index: 0,
                of: 1,
                host,
            },
            0o104 => Native::ReqAll { msg, num, host },
            0o004 => {
                let index = ((h1 & head1::PKTNO) >> 8) as u8;
                let last = h2 & head2::LSTPKT != 0;
                Native::Data {
                    msg,
                    num,
                    index,
                    of: if last { index + 1 } else { 8 },
                    host,
                }
            }
            _ => return In::Words,
        })
    }

    /// The program's GVB (`words`) from `src` to modelled IMP `dst`, taken: its answer (310,
    /// p. 52–53), and its number as the model's, to skip.
    pub fn gvb_answer(&mut self, src: u32, dst: u32, words: &[u16]) -> (Vec<u16>, u64) {
        let m = (words[0] >> 8) as u8;
        self.counts.gvbs_answered += 1;
        let num = self.unwrap(src, dst, m);
        let reply = vec![
            (u16::from(m) << 8) | head::ONEOR8 | head::REQALL_OR_RFNM | head::INCTRN,
            self.number(src),
            self.number(dst),
        ];
        (reply, num)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// IMP0 (emulated, number 10) – IMP1 (modelled, 11) – IMP2 (emulated, 12); model hosts: a
    /// real host on IMP1, the discard fake host of IMP2.
    fn t() -> Translator {
        Translator::new(
            vec![10, 11, 12],
            vec![false, true, false],
            [(0, (1, Role::Real)), (1, (2, Role::Fake))].into(),
        )
    }

    fn data(num: u64, index: u8, of: u8) -> NativePacket {
        NativePacket {
            kind: Native::Data {
                msg: 5,
                num,
                index,
                of,
                host: 1,
            },
            src: 1,
            dst: 2,
            bits: 1008,
        }
    }

    fn words(o: Out) -> Vec<u16> {
        match o {
            Out::Send { words, .. } => words,
            o => panic!("{o:?}"),
        }
    }

    /// A single-packet message goes as a REQ1 numbered from 0; the program's ALLOCATE-1
    /// becomes the model's, and the copy sent again is a 204 with the same number; its RFNM
    /// answers it.
    #[test]
    fn a_single_packet_message_and_its_allocate_and_rfnm() {
        let mut t = t();
        let w = words(t.out(&data(0, 0, 1)));
        assert_eq!(w[0], 0o304 | ORDNO_AT_START, "REQ1, number 0");
        assert_eq!(w[1], head1::FORIMP | 0o300 | 12, "IMP 12's discard host");
        assert_eq!(w[2], head2::LSTPKT | 11);
        assert_eq!(w.len(), 4 + 63);
        let all = t.into_model(2, 1, &[0o202, 11, 12]);
        assert_eq!(all, In::Native(Native::SingleAll { msg: 5, num: 0 }));
        assert_eq!(
            words(t.out(&data(0, 0, 1)))[0],
            0o204 | ORDNO_AT_START,
            "same number, no REQALL"
        );
        let rfnm = t.into_model(2, 1, &[0o300, 11, 12]);
        assert_eq!(rfnm, In::Native(Native::SingleRfnm { msg: 5, num: 0 }));
    }

    /// A REQALL takes a number and its message the next (p. 129); the model's own numbers
    /// need not be the program's: a GVB takes one in the program only.
    #[test]
    fn reqall_message_and_gvb_take_numbers_in_the_order_they_cross() {
        let mut t = t();
        let req = NativePacket {
            kind: Native::ReqAll {
                msg: 5,
                num: 0,
                host: 1,
            },
            ..data(0, 0, 8)
        };
        assert_eq!(
            words(t.out(&req)),
            vec![0o104 | ORDNO_AT_START, head1::FORIMP | 0o300 | 12, 11]
        );
        let gvb = NativePacket {
            kind: Native::Gvb,
            ..data(0, 0, 8)
        };
        assert_eq!(
            words(t.out(&gvb)),
            vec![(1 << 8) | 0o206 | ORDNO_AT_START, 12, 11]
        );
        let w = words(t.out(&data(1, 0, 2)));
        assert_eq!(w[0], (2 << 8) | 0o004 | ORDNO_AT_START);
        assert_eq!(w[2] & head2::LSTPKT, 0);
        let w = words(t.out(&data(1, 1, 2)));
        assert_eq!(
            (w[0], w[1] & head1::PKTNO),
            ((2 << 8) | 0o004 | ORDNO_AT_START, 1 << 8)
        );
        assert_ne!(w[2] & head2::LSTPKT, 0);
        assert_eq!(
            t.into_model(2, 1, &[0o002, 11, 12]),
            In::Native(Native::All { num: 0 })
        );
        assert_eq!(t.into_model(2, 1, &[(1 << 8) | 0o310, 11, 12]), In::Words);
        assert_eq!(
            t.into_model(2, 1, &[(2 << 8) | 0o102, 11, 12]),
            In::Native(Native::Rfnm {
                msg: 5,
                num: 1,
                all: true
            })
        );
    }

    /// No number beyond the program's four unanswered (p. 137): the fifth waits for a reply.
    #[test]
    fn a_fifth_number_waits_for_the_oldest_answer() {
        let mut t = t();
        for n in 0..4 {
            words(t.out(&data(n, 0, 1)));
        }
        assert_eq!(t.out(&data(4, 0, 1)), Out::Wait);
        t.into_model(2, 1, &[0o300, 11, 12]);
        assert_eq!(
            words(t.out(&data(4, 0, 1)))[0],
            (4 << 8) | 0o304 | ORDNO_AT_START
        );
    }

    /// The program's host's message for the model's host: its numbers unwrapped across 256,
    /// packets that are not the last giving 8, and the model's replies back with the
    /// program's number.
    #[test]
    fn a_message_from_the_program_becomes_the_models_and_its_rfnm_the_programs() {
        let mut t = t();
        let req1 = |m: u16| [(m << 8) | 0o304, 11, head2::LSTPKT | 10, 0, 0];
        for k in 0..300u64 {
            match t.into_model(0, 1, &req1((k % 256) as u16)) {
                In::Native(Native::Data { num, of: 1, .. }) => assert_eq!(num, k),
                x => panic!("{x:?}"),
            }
        }
        let p = [(7 << 8) | 0o004, (2 << 8) | 11, 10, 0, 1];
        match t.into_model(0, 1, &p) {
            In::Native(Native::Data {
                index: 2, of: 8, ..
            }) => {}
            x => panic!("{x:?}"),
        }
        // Number 263 (7 + 256): the model answers it; the program reads 7.
        let rfnm = NativePacket {
            kind: Native::Rfnm {
                msg: FOREIGN_MSG + 1,
                num: 263,
                all: false,
            },
            src: 1,
            dst: 0,
            bits: 0,
        };
        assert_eq!(words(t.out(&rfnm)), vec![(7 << 8) | 0o100, 10, 11]);
        // A host the model does not have (fake host 1): carried as words.
        assert_eq!(
            t.into_model(0, 1, &[0o304, head1::FORIMP | 0o100 | 11, 10]),
            In::Words
        );
    }

    /// A background host is leader host 1 of its IMP (`crate::background`): the program's
    /// background message to a modelled IMP's reaches the model's, and the model's leaves
    /// addressed to it.
    #[test]
    fn background_hosts_are_leader_host_one() {
        let mut t = Translator::new(
            vec![10, 11, 12],
            vec![false, true, false],
            [(4, (1, Role::Background)), (5, (2, Role::Background))].into(),
        );
        match t.into_model(0, 1, &[0o364, 0o100 | 11, head2::LSTPKT | 10]) {
            In::Native(Native::Data { host: 4, .. }) => {}
            x => panic!("{x:?}"),
        }
        let p = NativePacket {
            kind: Native::Data {
                msg: 1,
                num: 0,
                index: 0,
                of: 1,
                host: 5,
            },
            src: 1,
            dst: 2,
            bits: 250,
        };
        assert_eq!(words(t.out(&p))[1], 0o100 | 12);
    }
}
