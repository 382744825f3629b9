//! The IMP-to-IMP lines as the driver sees them: a packet or control message queued for its
//! next line, frames started, sent, corrupted by a line error and received, a packet rejected
//! by the next IMP (K&O §III: no buffer, 20 store-and-forward packets, or its output queue
//! full), acknowledgements, and the retransmission after the 125 ms timeout. A line's logical
//! channels and its own queues are in [`crate::link`].

use super::{Counted, Ev, NO_PLACE, Subnet, Tr, Work};
use crate::imp::{Arrival, Transmit};
use crate::link::{Frame, FrameKind, Hold, NextFrame, channels_in};
use crate::packet::{Packet, PktId, PktKind, Stream};
use crate::params::ModemInterrupts;
use crate::topology::Routes;
use nmc_sim::{Bits, EventQueue, SimDuration, SimTime};

impl Subnet {
    /// A packet's length on the line: its text and the overhead of its kind of frame (RFC 568
    /// item 2: a data packet 168 bits more, a RFNM 152 in all).
    pub(super) fn frame_bits(&self, p: &Packet) -> Bits {
        Bits::new(p.bits.get() + self.params.frame_overhead(&p.kind).get())
    }

    /// The length on the line of a frame that arrived: its packet's frame, a routing message,
    /// a null's control frame. The packet of a duplicate or of a frame a line error hit is not
    /// read (its sender may have dropped it): **choice**, a full data packet's frame, what a
    /// duplicate on the chains is.
    pub(super) fn arrival_bits(&self, frame: &Frame, arrival: &Arrival) -> Bits {
        match (arrival, frame.kind) {
            (Arrival::Accepted { packet, .. } | Arrival::Rejected { packet, .. }, _) => {
                self.frame_bits(packet)
            }
            (_, FrameKind::Routing { .. }) => self.params.routing_message,
            (_, FrameKind::AckOnly) => self.params.control_overhead,
            (_, FrameKind::Packet { .. }) => self.params.full_frame(),
        }
    }

    /// Sends data packet `p` from its source IMP ([`crate::imp::Output::Data`]): routed and
    /// queued on its first line, or held for a route while there is none.
    pub(super) fn send_data(&mut self, now: SimTime, p: Packet, q: &mut EventQueue<Ev>) {
        let src = p.src;
        debug_assert_ne!(
            src, p.dst,
            "hosts on one IMP are refused when the model is built"
        );
        let id = self.slab.insert(p);
        self.note_visit(now, src, id);
        let Some(l) = self.imps[src as usize].queue_or_park(id, Hold::Source, p.dst, &self.topo)
        else {
            self.routing.counts.parked += 1;
            return;
        };
        self.note_source_send(now, l, &p);
        self.try_send(now, l, q);
    }

    pub(super) fn send_control(
        &mut self,
        now: SimTime,
        from: u32,
        to: u32,
        stream: Stream,
        kind: PktKind,
        q: &mut EventQueue<Ev>,
    ) {
        let p = Packet {
            kind,
            src: from,
            dst: to,
            stream,
            bits: self.params.control_bits,
            hops: 0,
        };
        if from == to {
            self.destination_receives(now, to, p, q);
            return;
        }
        let id = self.slab.insert(p);
        self.note_visit(now, from, id);
        let hold = self.imps[from as usize].control_sent(id, &kind);
        self.queue_at(now, from, id, hold, to, q);
    }

    /// Packet `id`, held at IMP `from` as `hold`, joins the queue of its route toward `to`
    /// and the line may start it; or it waits in the IMP for a route.
    pub(super) fn queue_at(
        &mut self,
        now: SimTime,
        from: u32,
        id: PktId,
        hold: Hold,
        to: u32,
        q: &mut EventQueue<Ev>,
    ) {
        let Some(l) = self.imps[from as usize].queue_or_park(id, hold, to, &self.topo) else {
            self.routing.counts.parked += 1;
            return;
        };
        self.try_send(now, l, q);
    }

    /// Packet `id` joins the queue of link `l` ([`crate::imp::Imp::enqueue`]), whatever the
    /// routes say (a scripted detour, `model/instrument.rs`).
    pub(super) fn enqueue(&mut self, l: u32, id: PktId, hold: Hold) {
        let (imp, line) = self.link_at[l as usize];
        self.imps[imp as usize].enqueue(line as usize, id, hold);
    }

    /// Starts the next frame on an idle link. Most calls find the link busy (a frame going
    /// out) or with nothing to send, and end here, without the call to [`Self::send_next`].
    #[inline]
    pub(super) fn try_send(&mut self, now: SimTime, l: u32, q: &mut EventQueue<Ev>) {
        if !self.boundary.outside.is_empty() && self.boundary_try_send(l) {
            return;
        }
        let (from, line) = self.link_at[l as usize];
        let link = &self.imps[from as usize].lines[line as usize];
        if !link.free() || !link.has_work() || !self.routing.line_up(l) {
            return;
        }
        self.send_next(now, l, q);
    }

    /// Starts the next frame, if any, on link `l`, which is up and idle.
    #[inline(never)]
    fn send_next(&mut self, now: SimTime, l: u32, q: &mut EventQueue<Ev>) {
        let (from, line) = self.link_at[l as usize];
        let Some(Transmit {
            what,
            fresh,
            ack_mask,
            ack_bits,
        }) = self.imps[from as usize].poll_transmit(line as usize)
        else {
            return;
        };
        let (kind, bits, retransmission) = match what {
            NextFrame::Routing => {
                let msg = self.imps[from as usize].routing_message(now, l);
                let body = self.routing.body_for(msg);
                (
                    FrameKind::Routing { body, fresh },
                    self.params.routing_message,
                    false,
                )
            }
            NextFrame::Packet {
                pkt,
                lch,
                bit,
                retransmission,
            } => (
                FrameKind::Packet { pkt, lch, bit },
                self.frame_bits(self.slab.get(pkt)),
                retransmission,
            ),
            NextFrame::AckOnly => (FrameKind::AckOnly, self.params.control_overhead, false),
        };
        // Without line errors (most runs) the probability is exactly 0 (1^n = 1, IEEE 754), and
        // libm's `pow` was 2 % of a loaded map's run (issue 36's profile): skip it then. Same
        // probability, so the same draws (none at 0) and the same run.
        let ber = self.params.bit_error_rate;
        let p_err = if ber == 0.0 {
            0.0
        } else {
            1.0 - (1.0 - ber).powf(bits.get() as f64)
        };
        let def = &self.link(l).def;
        let (tx, propagation, to) = (
            def.capacity.transmission_time(bits),
            def.propagation,
            def.to,
        );
        let packet = matches!(kind, FrameKind::Packet { .. });
        let hit = self.imps[from as usize].frame_started(line as usize, tx, packet, p_err);
        let corrupted = hit || packet && self.corrupt_next.remove(&l);
        if self.trace.is_on() {
            // Every frame, with its length on the line: a packet by its kind, a routing
            // message, or acknowledgements alone ("null").
            let (kind, msg, packet) = match kind {
                FrameKind::Packet { pkt, .. } => {
                    let p = self.slab.get(pkt);
                    match p.kind {
                        PktKind::Data { msg, index, .. } => (p.kind.name(), Some(msg), Some(index)),
                        k => (k.name(), None, None),
                    }
                }
                FrameKind::Routing { .. } => ("routing", None, None),
                FrameKind::AckOnly => ("null", None, None),
            };
            self.trace.emit(
                now,
                &Tr::Send {
                    kind,
                    msg,
                    packet,
                    bits: bits.get(),
                    from: &self.imps[from as usize].name,
                    to: &self.imps[to as usize].name,
                    retransmission,
                },
            );
        }
        if let (FrameKind::Packet { pkt, .. }, false) = (kind, retransmission) {
            if let Some(delay) = self.routing.line_delay(now, pkt, tx + propagation) {
                self.imps[from as usize].line_delay(now, l, delay);
            }
            let p = self.slab.get(pkt);
            if self.obs.watches(p.stream) && matches!(p.kind, PktKind::Data { .. }) {
                self.obs
                    .watched_left(pkt as usize, l as usize, self.link_at.len(), now);
            }
        }
        q.schedule(
            now + tx,
            Ev::TxDone {
                link: l,
                frame: Frame {
                    kind,
                    ack_mask,
                    ack_bits,
                    corrupted,
                },
            },
        );
    }

    pub(super) fn tx_done(&mut self, now: SimTime, l: u32, frame: Frame, q: &mut EventQueue<Ev>) {
        if self.lost_in_transmission(now, l, frame, q) {
            return;
        }
        let (from, line) = self.link_at[l as usize];
        let mut propagation = self.link(l).def.propagation;
        if let Some(rng) = self.lateness.get_mut(l as usize) {
            let most = self.params.frame_lateness.as_nanos();
            propagation += SimDuration::from_nanos(rng.uniform_inclusive(0, most));
        }
        q.schedule(now + propagation, Ev::Arrive { link: l, frame });
        self.step(now, from, q, |i, out| {
            i.frame_sent(line as usize, &frame, now, out)
        });
        self.try_send(now, l, q);
        self.wake_hosts(now, from, q);
    }

    /// A frame reaches the far IMP over link `l`: the IMP handles it whole
    /// ([`crate::imp::Imp::handle_frame`]); then a routing message goes to the IMP's router, an accepted
    /// packet to its processor, and the line back (which acknowledgements freed, or which owes
    /// a duplicate its acknowledgement again) and the IMP's hosts (if acknowledgements freed
    /// buffers) start again.
    pub(super) fn arrive(&mut self, now: SimTime, l: u32, frame: Frame, q: &mut EventQueue<Ev>) {
        if self.lost_on_line(l, frame) {
            return;
        }
        self.arrive_intact(now, l, frame, q);
    }

    /// [`Self::arrive`] for a frame that was not lost on the line (also a frame from outside
    /// the model, `model/boundary.rs`): what became of its packet.
    pub(super) fn arrive_intact(
        &mut self,
        now: SimTime,
        l: u32,
        frame: Frame,
        q: &mut EventQueue<Ev>,
    ) -> Took {
        let (from, rev) = {
            let link = self.link(l);
            (link.def.from, link.reverse)
        };
        let (at, line) = self.link_at[rev as usize];
        let (slab, topo) = (&self.slab, &self.topo);
        let (acked, arrival) = self.imps[at as usize].handle_frame(
            line as usize,
            &frame,
            |pkt| *slab.get(pkt),
            |p| topo.next_link(at, p.dst),
        );
        // Only the channels the frame acknowledged can hold a freed packet.
        let mut freed = false;
        for lch in channels_in(frame.ack_mask) {
            if let Some(pkt) = acked[lch as usize] {
                self.slab.remove(pkt);
                freed = true;
            }
        }
        if freed && self.imps[at as usize].reqalls_newly_acknowledged() {
            self.step(now, at, q, |i, out| i.reqalls_acknowledged(out));
        }
        if self.params.modem_interrupts == ModemInterrupts::Cpu1973 {
            let bits = self.arrival_bits(&frame, &arrival);
            self.step(now, at, q, |i, out| i.modem_input(now, bits, out));
        }
        let took = match arrival {
            Arrival::Duplicate => Took::Duplicate,
            Arrival::Accepted { .. } => Took::Taken,
            _ => Took::Other,
        };
        match arrival {
            Arrival::Corrupted => {
                self.drop_routing_body(frame);
                self.count(Counted::LineError);
                self.trace.emit(
                    now,
                    &Tr::LineError {
                        from: &self.imps[from as usize].name,
                        to: &self.imps[at as usize].name,
                    },
                );
            }
            Arrival::NoPacket => self.frame_without_packet(now, l, frame, q),
            Arrival::Duplicate => {}
            Arrival::Rejected { packet, refusal } => {
                self.count(Counted::Rejection);
                self.trace.emit(
                    now,
                    &Tr::Reject {
                        kind: packet.kind.name(),
                        at: &self.imps[at as usize].name,
                        reason: refusal.reason(),
                    },
                );
            }
            Arrival::Accepted {
                packet,
                next,
                lch,
                bit,
            } => {
                let mut copy = packet;
                copy.hops += 1;
                let bits = self.frame_bits(&copy);
                let id = self.slab.insert(copy);
                self.note_visit(now, at, id);
                let work = Work::Packet {
                    pkt: id,
                    line,
                    lch,
                    bit,
                    planned: next.unwrap_or(NO_PLACE),
                };
                self.step(now, at, q, |i, out| {
                    i.packet_in(now, work, &copy, bits, out)
                });
            }
        }
        if freed || took == Took::Duplicate {
            self.try_send(now, rev, q);
        }
        if freed {
            self.wake_hosts(now, at, q);
        }
        took
    }
}

/// What became of the packet a frame carried ([`Subnet::arrive_intact`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Took {
    /// Taken by the IMP.
    Taken,
    /// Taken before: acknowledged again and dropped.
    Duplicate,
    /// Refused, corrupted, or no packet.
    Other,
}
