//! Lines to IMPs outside the model (issue 73 §3: modelled IMPs in one network with IMPs that
//! run BBN's 1973 program on the emulator, `nmc_oracle::program`). The driver outside holds the
//! far end of each such line — for the program, `nmc_oracle::neighbour`, which speaks program
//! 3050's line protocol and times the line — and hands frames across through
//! [`crate::Stepper`]:
//!
//! * **Out** (`Subnet::boundary_take`): the modelled IMP's interface to the line gives its next
//!   frame as it would to a line of its own ([`crate::imp::Imp::poll_transmit`]); a new packet
//!   crosses, with the logical channel it holds until the far end acknowledges it
//!   (`Subnet::boundary_frame_in`). The line's own frames (routing messages, acknowledgements
//!   alone) and the modelled IMP's retransmissions do not cross: the far end sends its own
//!   routing, nulls and acknowledgements, and sends its copy of a packet again itself.
//! * **In** (`Subnet::boundary_frame_in`): each frame from the far end reaches the modelled IMP
//!   whole, as a frame of its own lines does ([`crate::imp::Imp::handle_frame`]): the
//!   acknowledgements it carries, then a null, a routing message (the processor's cost of each,
//!   `hop/processing.rs`) or a packet, taken or refused by K&O §III's rules; the far end
//!   acknowledges only what was taken.
//! * **What crosses** is a packet of the outside IMPs ([`PktKind::Foreign`]): its words stay
//!   as they came, in a side table here, while the model routes it by its destination IMP
//!   (static routes) and queues and processes it as any packet in transit. The model's own
//!   end-to-end packets of version 2 (a host on a modelled IMP talking to one on an outside
//!   IMP, or to one on another modelled IMP by a path through outside IMPs) cross as
//!   [`Native`]: the driver translates them into the outside IMPs' protocol, and a packet of
//!   the outside IMPs for a modelled IMP's host back into one ([`Incoming::native`]), which the
//!   modelled IMP then handles by its own end-to-end rules. Version 3's block messages do not
//!   cross: one that reaches a boundary is counted and taken off its channel.
//!
//! An IMP outside the model is still in its topology (for routes) but does nothing: its lines
//! send nothing, nothing is delivered to it.

use super::line::Took;
use super::{Ev, Subnet};
use crate::link::{Frame, FrameKind, Hold, NextFrame};
use crate::packet::{MsgId, Packet, PktKind, stream};
use crate::routing::NO_BODY;
use nmc_sim::{Bits, EventQueue, SimDuration, SimTime};
use std::collections::{BTreeMap, BTreeSet};

/// The subnet's lines to outside IMPs: which IMPs are outside, the words of the outside
/// packets inside the model, the lines with something to send.
#[derive(Default)]
pub(crate) struct Boundary {
    /// Per IMP: outside the model. Empty when every IMP is modelled (every run but a mixed
    /// network's).
    pub(crate) outside: Vec<bool>,
    /// The words of each outside packet in the model (HEAD to the last text word), by body.
    bodies: BTreeMap<u32, Vec<u16>>,
    next_body: u32,
    /// Links to an outside IMP with a frame to give since the driver last asked.
    pub(crate) ready: BTreeSet<u32>,
    /// Outside packets that reached their destination, a modelled IMP, not yet asked for.
    pub(crate) arrived: Vec<Arrived>,
    pub(crate) counts: BoundaryCounts,
}

/// What crossed the boundary lines, and what did not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct BoundaryCounts {
    /// Packets handed out (first tries).
    pub out: u64,
    /// Of those, acknowledged by the far end.
    pub acknowledged: u64,
    /// Packets from outside taken in by the modelled IMP.
    pub taken: u64,
    /// Packets from outside refused (K&O §III): the far end sends them again.
    pub refused: u64,
    /// Packets from outside already taken (their channel's bit the last accepted).
    pub duplicates: u64,
    /// The modelled IMP's retransmissions not handed out (the far end sends its own copy).
    pub retransmissions: u64,
    /// The model's own packets that reached a boundary and could not cross (version 3's).
    pub dropped: u64,
    /// The model's own packets handed out ([`Native`], first tries).
    pub native_out: u64,
    /// Packets from outside taken in as the model's own ([`Incoming::native`]).
    pub native_in: u64,
}

/// A packet of the model's own end-to-end protocol (version 2, K&O §II; RFC 632's single-packet
/// replies) as it crosses a boundary line: the driver outside translates it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Native {
    /// Packet `index` (from 0) of a message of `of` packets, number `num`, for host `host`
    /// (the model's host index). Coming in, a packet that is not its message's last may give
    /// `of` as 8: the message ends with the packet whose `of` is its `index + 1`.
    Data {
        /// The message.
        msg: MsgId,
        /// Its number in its stream (source IMP → destination IMP).
        num: u64,
        /// Its place in the message.
        index: u8,
        /// Packets in the message.
        of: u8,
        /// The destination host.
        host: u32,
    },
    /// A request for an allocation; it holds number `num`.
    ReqAll {
        /// The message it was sent for.
        msg: MsgId,
        /// The number it holds.
        num: u64,
        /// That message's destination host (the program's REQ8 carries the leader, p. 129;
        /// the model's REQALL names only the message). Coming in, not read.
        host: u32,
    },
    /// The allocation answering the REQALL that held `num`.
    All {
        /// That number.
        num: u64,
    },
    /// An allocation given back.
    Gvb,
    /// The RFNM of multipacket message `msg`, number `num`, with a piggy-backed ALL if `all`.
    Rfnm {
        /// The message.
        msg: MsgId,
        /// Its number.
        num: u64,
        /// It carries an ALL.
        all: bool,
    },
    /// The RFNM of single-packet message `msg`, number `num`.
    SingleRfnm {
        /// The message.
        msg: MsgId,
        /// Its number.
        num: u64,
    },
    /// The ALLOCATE of one buffer for single-packet message `msg` (number `num`), refused.
    SingleAll {
        /// The message.
        msg: MsgId,
        /// Its number.
        num: u64,
    },
}

impl Native {
    /// The model's own kind as it crosses; `None` for the kinds that do not.
    fn of(k: PktKind) -> Option<Native> {
        Some(match k {
            PktKind::Data {
                msg,
                num,
                index,
                of,
                host,
            } => Native::Data {
                msg,
                num,
                index,
                of,
                host,
            },
            PktKind::ReqAll { msg, num } => Native::ReqAll { msg, num, host: 0 },
            PktKind::All { num } => Native::All { num },
            PktKind::Gvb => Native::Gvb,
            PktKind::Rfnm { msg, num, all } => Native::Rfnm { msg, num, all },
            PktKind::SingleRfnm { msg, num } => Native::SingleRfnm { msg, num },
            PktKind::SingleAll { msg, num } => Native::SingleAll { msg, num },
            _ => return None,
        })
    }

    /// The kind in the model.
    fn kind(self) -> PktKind {
        match self {
            Native::Data {
                msg,
                num,
                index,
                of,
                host,
            } => PktKind::Data {
                msg,
                num,
                index,
                of,
                host,
            },
            Native::ReqAll { msg, num, .. } => PktKind::ReqAll { msg, num },
            Native::All { num } => PktKind::All { num },
            Native::Gvb => PktKind::Gvb,
            Native::Rfnm { msg, num, all } => PktKind::Rfnm { msg, num, all },
            Native::SingleRfnm { msg, num } => PktKind::SingleRfnm { msg, num },
            Native::SingleAll { msg, num } => PktKind::SingleAll { msg, num },
        }
    }

    /// A reply (destination IMP → the message's source IMP).
    pub fn is_reply(self) -> bool {
        !matches!(
            self,
            Native::Data { .. } | Native::ReqAll { .. } | Native::Gvb
        )
    }
}

/// One of the model's own packets leaving it over a boundary line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NativePacket {
    /// What it is.
    pub kind: Native,
    /// Its source IMP (the model's index).
    pub src: u32,
    /// Its destination IMP.
    pub dst: u32,
    /// Its data bits (0 for a control message).
    pub bits: u64,
}

/// A packet leaving the model over a boundary line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// The logical channel it holds on the modelled IMP's side until acknowledged.
    pub lch: u8,
    /// The channel's sequence bit for it: the acknowledgement names it.
    pub bit: bool,
    /// Its words as they came into the model (HEAD to the last text word); empty for one of
    /// the model's own.
    pub words: Vec<u16>,
    /// A reply: the far end queues it first.
    pub control: bool,
    /// One of the model's own packets, for the driver to translate.
    pub native: Option<NativePacket>,
}

/// A packet coming into the model over a boundary line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incoming {
    /// Its source IMP (the model's index).
    pub src: u32,
    /// Its destination IMP (the model's index): an outside IMP.
    pub dst: u32,
    /// Its words (HEAD to the last text word), kept as they are.
    pub words: Vec<u16>,
    /// A reply (held and queued as a control message).
    pub control: bool,
    /// Its length on a line less the model's overhead for its kind
    /// ([`crate::params::ImpParams`]'s `packet_overhead`, `control_overhead`).
    pub bits: u64,
    /// The driver translated it into one of the model's own packets (for a modelled IMP's
    /// host, or its answer): the model carries and handles that, not the words.
    pub native: Option<Native>,
}

/// What a frame from outside carried, besides its acknowledgements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Carried {
    /// Nothing the model reads (a null; a frame the far end dropped as a duplicate).
    Null,
    /// A routing message; `fresh` when its serial number is new on the line.
    Routing {
        /// A new serial number.
        fresh: bool,
    },
    /// A packet new on its channel.
    Packet {
        /// The far end's logical channel.
        lch: u8,
        /// Its sequence (odd/even) bit.
        bit: bool,
        /// The packet.
        packet: Incoming,
    },
}

/// An outside IMP's packet that reached its destination, a modelled IMP (a report the program
/// sends to an IMP's fake host): the driver answers it ([`crate::Stepper::boundary_send`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrived {
    /// When its processing there was done.
    pub at: SimTime,
    /// The modelled IMP.
    pub imp: u32,
    /// Its source IMP.
    pub src: u32,
    /// Its words, as they came into the model.
    pub words: Vec<u16>,
}

/// A line between a modelled IMP and an outside one, both directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundaryLine {
    /// The direction out of the model (modelled IMP → outside IMP).
    pub out: u32,
    /// The direction into it.
    pub back: u32,
    /// The modelled IMP.
    pub imp: u32,
    /// The outside IMP.
    pub far: u32,
}

impl Subnet {
    /// Makes the IMPs of `outside` (indices) outside the model.
    pub(crate) fn set_outside(&mut self, outside: &[u32]) {
        let mut v = vec![false; self.imps.len()];
        for &i in outside {
            v[i as usize] = true;
        }
        self.boundary.outside = v;
    }

    /// Is IMP `imp` outside the model?
    #[inline]
    pub(crate) fn is_outside(&self, imp: u32) -> bool {
        self.boundary
            .outside
            .get(imp as usize)
            .copied()
            .unwrap_or(false)
    }

    /// The lines between a modelled IMP and an outside one, in topology order.
    pub(crate) fn boundary_lines(&self) -> Vec<BoundaryLine> {
        let mut v = Vec::new();
        for (l, d) in self.topo.links.iter().enumerate() {
            if !self.is_outside(d.from) && self.is_outside(d.to) {
                v.push(BoundaryLine {
                    out: l as u32,
                    back: self.link(l as u32).reverse,
                    imp: d.from,
                    far: d.to,
                });
            }
        }
        v
    }

    /// `try_send` on link `l` of a mixed network: `true` if the link is not the model's to
    /// time (it leaves an outside IMP, which sends nothing; or it goes to one, and is marked
    /// ready for the driver when it has something to give).
    #[inline(never)]
    pub(super) fn boundary_try_send(&mut self, l: u32) -> bool {
        let (from, to) = {
            let d = &self.link(l).def;
            (d.from, d.to)
        };
        if self.is_outside(from) {
            return true;
        }
        if !self.is_outside(to) {
            return false;
        }
        let link = self.link(l);
        if link.free() && link.has_work() {
            self.boundary.ready.insert(l);
        }
        true
    }

    /// The next packet to cross boundary link `l`, if the modelled IMP has one now: its
    /// frames that do not cross (routing messages, acknowledgements alone, retransmissions)
    /// are "sent" on the way, as they would be on a line of its own, taking no line time.
    pub(crate) fn boundary_take(
        &mut self,
        now: SimTime,
        l: u32,
        q: &mut EventQueue<Ev>,
    ) -> Option<Outgoing> {
        let (from, line) = self.link_at[l as usize];
        loop {
            let tx = self.imps[from as usize].poll_transmit(line as usize)?;
            let (kind, packet) = match tx.what {
                NextFrame::Packet {
                    pkt,
                    lch,
                    bit,
                    retransmission,
                } => (
                    FrameKind::Packet { pkt, lch, bit },
                    Some((pkt, lch, bit, retransmission)),
                ),
                NextFrame::Routing => (
                    FrameKind::Routing {
                        body: NO_BODY,
                        fresh: tx.fresh,
                    },
                    None,
                ),
                NextFrame::AckOnly => (FrameKind::AckOnly, None),
            };
            let frame = Frame {
                kind,
                ack_mask: tx.ack_mask,
                ack_bits: tx.ack_bits,
                corrupted: false,
            };
            self.imps[from as usize].frame_started(
                line as usize,
                SimDuration::ZERO,
                packet.is_some(),
                0.0,
            );
            self.step(now, from, q, |i, out| {
                i.frame_sent(line as usize, &frame, now, out)
            });
            let Some((pkt, lch, bit, again)) = packet else {
                continue;
            };
            if again {
                self.boundary.counts.retransmissions += 1;
                continue;
            }
            let p = *self.slab.get(pkt);
            if let PktKind::Foreign { body, control } = p.kind
                && let Some(words) = self.boundary.bodies.remove(&body)
            {
                self.boundary.counts.out += 1;
                return Some(Outgoing {
                    lch,
                    bit,
                    words,
                    control,
                    native: None,
                });
            }
            if let Some(mut kind) = Native::of(p.kind) {
                self.boundary.counts.native_out += 1;
                if let Native::ReqAll { msg, host, .. } = &mut kind
                    && let Some(m) = self.imps[p.src as usize].messages.get(msg)
                {
                    *host = m.dst_host;
                }
                return Some(Outgoing {
                    lch,
                    bit,
                    words: Vec::new(),
                    control: p.kind.is_control(),
                    native: Some(NativePacket {
                        kind,
                        src: p.src,
                        dst: p.dst,
                        bits: p.bits.get(),
                    }),
                });
            }
            // Version 3's block messages cannot cross: off the channel, as if acknowledged.
            self.boundary.counts.dropped += 1;
            let back = self.link(l).reverse;
            let ack = Frame {
                kind: FrameKind::AckOnly,
                ack_mask: 1 << lch,
                ack_bits: u8::from(bit) << lch,
                corrupted: false,
            };
            self.arrive_intact(now, back, ack, q);
        }
    }

    /// A frame from the outside IMP over boundary link `back` (into the model), its last bit
    /// in at `now`: the acknowledgements it carries (channel, bit) and what it `carried`.
    /// `true` if it carried a packet and the modelled IMP took it.
    pub(crate) fn boundary_frame_in(
        &mut self,
        now: SimTime,
        back: u32,
        acks: &[(u8, bool)],
        carried: Carried,
        q: &mut EventQueue<Ev>,
    ) -> bool {
        let (mut ack_mask, mut ack_bits) = (0u8, 0u8);
        for &(lch, bit) in acks {
            ack_mask |= 1 << lch;
            ack_bits |= u8::from(bit) << lch;
        }
        self.boundary.counts.acknowledged += acks.len() as u64;
        let (kind, temp) = match carried {
            Carried::Null => (FrameKind::AckOnly, None),
            Carried::Routing { fresh } => (
                FrameKind::Routing {
                    body: NO_BODY,
                    fresh,
                },
                None,
            ),
            Carried::Packet { lch, bit, packet } => {
                let (p, body) = self.foreign_packet(packet.src, packet);
                let id = self.slab.insert(p);
                (FrameKind::Packet { pkt: id, lch, bit }, Some((id, body)))
            }
        };
        let frame = Frame {
            kind,
            ack_mask,
            ack_bits,
            corrupted: false,
        };
        // The modelled IMP handles it as a frame of its own lines (`Subnet::arrive_intact`).
        let took = self.arrive_intact(now, back, frame, q);
        let (taken, duplicate) = (took == Took::Taken, took == Took::Duplicate);
        if let Some((id, body)) = temp {
            // The model took its own copy (or none): the slot handed in goes.
            self.slab.remove(id);
            let c = &mut self.boundary.counts;
            if taken {
                c.taken += 1;
                if body.is_none() {
                    c.native_in += 1;
                }
            } else {
                if duplicate {
                    c.duplicates += 1;
                } else {
                    c.refused += 1;
                }
                if let Some(body) = body {
                    self.boundary.bodies.remove(&body);
                }
            }
        }
        taken
    }

    /// An outside packet `body` from IMP `src` reached its destination, modelled IMP `imp`.
    pub(super) fn foreign_arrived(&mut self, now: SimTime, imp: u32, src: u32, body: u32) {
        if let Some(words) = self.boundary.bodies.remove(&body) {
            self.boundary.arrived.push(Arrived {
                at: now,
                imp,
                src,
                words,
            });
        }
    }

    /// Modelled IMP `imp` sends outside packet `p` (its source `imp`, a reply the driver
    /// built): routed and queued as a control message of its own, or parked without a route.
    pub(crate) fn boundary_send(
        &mut self,
        now: SimTime,
        imp: u32,
        p: Incoming,
        q: &mut EventQueue<Ev>,
    ) {
        let (dst, control) = (p.dst, p.control);
        let (packet, _) = self.foreign_packet(imp, p);
        let id = self.slab.insert(packet);
        self.note_visit(now, imp, id);
        let hold = if control {
            Hold::Control
        } else {
            // Held as a packet in transit: a buffer and a store-and-forward place until the
            // next IMP acknowledges it (`Imp::release`), as one taken from a line
            // (`Imp::admit_transit`, here without its refusal: the driver's packet must go).
            let i = &mut self.imps[imp as usize];
            i.buf_used += 1;
            i.sf_used += 1;
            Hold::Transit
        };
        self.queue_at(now, imp, id, hold, dst, q);
    }

    /// Outside packet `p` from IMP `src` as the model carries it, and the body its words are
    /// kept under (none for one translated into the model's own, [`Incoming::native`]: its
    /// stream is its message's, source IMP → destination IMP, as the model's replies carry it;
    /// a GVB's none).
    fn foreign_packet(&mut self, src: u32, p: Incoming) -> (Packet, Option<u32>) {
        let (kind, body, stream) = match p.native {
            Some(n) => {
                let s = match n {
                    Native::Gvb => 0,
                    n if n.is_reply() => stream(p.dst, src),
                    _ => stream(src, p.dst),
                };
                (n.kind(), None, s)
            }
            None => {
                let body = self.boundary.next_body;
                self.boundary.next_body = body.wrapping_add(1);
                self.boundary.bodies.insert(body, p.words);
                let kind = PktKind::Foreign {
                    body,
                    control: p.control,
                };
                (kind, Some(body), stream(src, p.dst))
            }
        };
        let packet = Packet {
            kind,
            src,
            dst: p.dst,
            stream,
            bits: Bits::new(p.bits),
            hops: 0,
        };
        (packet, body)
    }

    /// Number `num` of the stream from IMP `src` to modelled IMP `imp` will carry no message
    /// there (the driver answered it itself: a report to a fake host the model does not have,
    /// a GVB): the messages after it go on to their hosts.
    pub(crate) fn boundary_skip(
        &mut self,
        now: SimTime,
        imp: u32,
        src: u32,
        num: u64,
        q: &mut EventQueue<Ev>,
    ) {
        let s = stream(src, imp);
        self.step(now, imp, q, |i, out| {
            i.number_answered_outside(now, (s, num), out)
        });
    }

    /// The outside end reset the line (`back`, into the model): the modelled IMP forgets the
    /// sequence bits it last accepted, as the far end starts its channels afresh.
    pub(crate) fn boundary_reset(&mut self, back: u32) {
        let out = self.link(back).reverse;
        let (imp, line) = self.link_at[out as usize];
        self.imps[imp as usize].lines[line as usize].in_last = [None; 8];
    }
}
