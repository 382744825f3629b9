//! The IMP-to-IMP lines as the driver sees them: a packet or control message queued for its
//! next line, frames started, sent, corrupted by a line error and received, a packet rejected
//! by the next IMP (K&O §III: no buffer, 20 store-and-forward packets, or its output queue
//! full), acknowledgements, and the retransmission after the 125 ms timeout. A line's logical
//! channels and its own queues are in [`crate::link`].

use super::{Counted, Ev, Subnet, Tr, Work};
use crate::link::{Frame, FrameKind, Hold, NextFrame};
use crate::packet::{MsgId, Packet, PktId, PktKind, Stream};
use crate::timer::Deadline;
use nmc_sim::{Bits, EventQueue, SimTime};

impl Subnet {
    pub(super) fn frame_bits(&self, p: &Packet) -> Bits {
        Bits::new(p.bits.get() + self.params.packet_overhead.get())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn send_data(
        &mut self,
        now: SimTime,
        src: u32,
        dst: u32,
        msg: MsgId,
        num: u64,
        index: u8,
        of: u8,
        bits: u64,
        q: &mut EventQueue<Ev>,
    ) {
        let p = Packet {
            kind: PktKind::Data {
                msg,
                num,
                index,
                of,
            },
            src,
            dst,
            stream: self.msgs.get(&msg).map_or(0, |m| m.stream),
            bits: Bits::new(bits),
            hops: 0,
        };
        debug_assert_ne!(
            src, dst,
            "hosts on one IMP are refused when the model is built"
        );
        let id = self.slab.insert(p);
        self.note_visit(now, src, id);
        let Some(l) = self.routing.next_link(&self.topo, src, dst) else {
            self.routing.park(src, id, Hold::Source);
            return;
        };
        self.links[l as usize].data.push_back((id, Hold::Source));
        self.note_queue(l);
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
        let Some(l) = self.routing.next_link(&self.topo, from, to) else {
            self.routing.park(from, id, Hold::Control);
            return;
        };
        self.enqueue(l, id, Hold::Control);
        self.try_send(now, l, q);
    }

    pub(super) fn enqueue(&mut self, l: u32, id: PktId, hold: Hold) {
        let link = &mut self.links[l as usize];
        if hold == Hold::Control && self.params.control_priority {
            link.ctrl.push_back((id, hold));
        } else {
            link.data.push_back((id, hold));
        }
        self.note_queue(l);
    }

    pub(super) fn note_queue(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        link.max_queue = link.max_queue.max(link.data.len() as u32);
    }

    /// Starts the next frame on an idle link.
    pub(super) fn try_send(&mut self, now: SimTime, l: u32, q: &mut EventQueue<Ev>) {
        let link = &mut self.links[l as usize];
        if link.busy || !self.routing.line_up(l) {
            return;
        }
        let Some(next) = link.next_frame() else {
            return;
        };
        let (kind, bits, retransmission) = match next {
            NextFrame::Routing => {
                let from = link.def.from;
                let generation =
                    self.imps[from as usize].cpu.ticks / self.params.slow_tick_every as u64;
                let fresh = link.routing_sent != Some(generation);
                link.routing_sent = Some(generation);
                let body = self.routing.body_for(now, l, from);
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
                Bits::new(self.slab.get(pkt).bits.get() + self.params.packet_overhead.get()),
                retransmission,
            ),
            NextFrame::AckOnly => (FrameKind::AckOnly, self.params.packet_overhead, false),
        };
        let link = &mut self.links[l as usize];
        let (ack_mask, ack_bits) = link.take_acks();
        let p_err = 1.0 - (1.0 - self.params.bit_error_rate).powf(bits.get() as f64);
        let corrupted = link.errors.bernoulli(p_err)
            || matches!(kind, FrameKind::Packet { .. }) && self.corrupt_next.remove(&l);
        let tx = link.def.capacity.transmission_time(bits);
        link.busy = true;
        link.busy_time += tx;
        link.frames += 1;
        if let FrameKind::Packet { pkt, .. } = kind {
            link.data_frames += 1;
            if self.trace.is_on() {
                let p = *self.slab.get(pkt);
                let (msg, packet) = match p.kind {
                    PktKind::Data { msg, index, .. } => (Some(msg), Some(index)),
                    _ => (None, None),
                };
                let (from, to) = (link.def.from, link.def.to);
                self.trace.emit(
                    now,
                    &Tr::Send {
                        kind: p.kind.name(),
                        msg,
                        packet,
                        from: &self.imps[from as usize].name,
                        to: &self.imps[to as usize].name,
                        retransmission,
                    },
                );
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
        let link = &mut self.links[l as usize];
        link.busy = false;
        q.schedule(now + link.def.propagation, Ev::Arrive { link: l, frame });
        if let FrameKind::Packet { lch, .. } = frame.kind {
            let d = link.arm_retransmission(lch, now, self.params.retransmit_timeout);
            q.schedule(
                d.at,
                Ev::AckTimeout {
                    link: l,
                    lch,
                    epoch: d.generation,
                },
            );
        }
        let from = link.def.from;
        self.try_send(now, l, q);
        self.wake_hosts(now, from, q);
    }

    pub(super) fn arrive(&mut self, now: SimTime, l: u32, frame: Frame, q: &mut EventQueue<Ev>) {
        if self.lost_on_line(l, frame) {
            return;
        }
        let (at, from, rev) = {
            let link = &self.links[l as usize];
            (link.def.to, link.def.from, link.reverse)
        };
        if frame.corrupted {
            // The CRC check fails: the frame, its acknowledgements included, is lost.
            self.links[l as usize].corrupted += 1;
            self.drop_routing_body(frame);
            self.count(Counted::LineError);
            self.trace.emit(
                now,
                &Tr::LineError {
                    from: &self.imps[from as usize].name,
                    to: &self.imps[at as usize].name,
                },
            );
            return;
        }
        // Piggy-backed acknowledgements, for frames `at` sent over the reverse link.
        for lch in 0..8u8 {
            if frame.ack_mask & (1 << lch) != 0 {
                self.acknowledged(now, rev, lch, frame.ack_bits & (1 << lch) != 0, q);
            }
        }
        let FrameKind::Packet { pkt, lch, bit } = frame.kind else {
            self.frame_without_packet(now, l, frame, q);
            return;
        };
        if self.links[l as usize].is_duplicate(lch, bit) {
            // A retransmission of a packet already accepted: acknowledge it again, drop it.
            self.links[l as usize].duplicates += 1;
            self.links[rev as usize].add_ack(lch, bit);
            self.try_send(now, rev, q);
            return;
        }
        let p = *self.slab.get(pkt);
        // Control messages use space set aside for them (a choice: the sources are silent);
        // data for this IMP fills buffers its allocation reserved. Only a packet passing
        // through is asked about (K&O §III).
        let transit = !p.kind.is_control() && at != p.dst;
        let next = if transit {
            self.routing.next_link(&self.topo, at, p.dst)
        } else {
            None
        };
        if transit {
            let next_queue = next.map(|n| self.links[n as usize].queue_len());
            let admitted = self.imps[at as usize].admit_transit(
                self.params.store_and_forward_max,
                self.params.output_queue_max,
                next_queue,
            );
            if let Err(refusal) = admitted {
                // K&O §III: rejected by the neighbour; no acknowledgement, the sender
                // retransmits.
                self.links[l as usize].rejected += 1;
                self.count(Counted::Rejection);
                self.trace.emit(
                    now,
                    &Tr::Reject {
                        kind: p.kind.name(),
                        at: &self.imps[at as usize].name,
                        reason: refusal.reason(),
                    },
                );
                return;
            }
        }
        // Acknowledged once the task level has taken it (`model/processor.rs`).
        self.links[l as usize].rx_last[lch as usize] = Some(bit);
        let mut copy = p;
        copy.hops += 1;
        let id = self.slab.insert(copy);
        if let Some(next) = next {
            // Its place on the next line's queue, kept while the processor handles it.
            self.links[next as usize].incoming += 1;
            self.routing.plan(id, next);
        }
        self.note_visit(now, at, id);
        self.process(
            now,
            at,
            Work::Packet {
                pkt: id,
                link: l,
                lch,
                bit,
            },
            q,
        );
    }

    pub(super) fn acknowledged(
        &mut self,
        now: SimTime,
        l: u32,
        lch: u8,
        bit: bool,
        q: &mut EventQueue<Ev>,
    ) {
        let link = &mut self.links[l as usize];
        let Some((pkt, hold)) = link.acknowledge(lch, bit) else {
            return; // an old acknowledgement
        };
        let from = link.def.from;
        self.slab.remove(pkt);
        self.imps[from as usize].release(hold);
        self.try_send(now, l, q);
        self.wake_hosts(now, from, q);
    }

    pub(super) fn ack_timeout(
        &mut self,
        now: SimTime,
        l: u32,
        lch: u8,
        epoch: u32,
        q: &mut EventQueue<Ev>,
    ) {
        let link = &mut self.links[l as usize];
        debug_assert!(
            Deadline::on_time(link.lch[lch as usize].retransmit_deadline(), epoch, now),
            "a retransmission timer wakes at its deadline"
        );
        if link.ack_timeout(lch, epoch, now) {
            self.count(Counted::Retransmission);
            self.try_send(now, l, q);
        }
    }
}
