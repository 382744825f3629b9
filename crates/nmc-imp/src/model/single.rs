//! Single-packet messages (RFC 632, Opderbeck, May 1974): the source's side, the driver's.
//!
//! A message that fits one packet does not go through points c–e of K&O Fig. 1: at the
//! **source** it takes a message number (the same 4 per IMP pair as every message) but no PLT
//! entry and no REQALL, and leaves at once. The source IMP keeps its buffer as a copy "for which
//! a RFNM has not yet been received" (RFC 632 p. 6) and sends the copy again when an ALLOCATE
//! for it comes back. At the **destination**, what becomes of it, when its ALLOCATE goes and its
//! RFNM (at once and without an allocation) are the IMP's own rules and steps
//! ([`crate::e2e::single`]); the driver writes the table lines they push ([`Subnet::log_e2e`]).

use super::{Counted, E2eEvent, Ev, Happened, MsgState, Note, Side, Subnet, Tr, What, msg_in};
use crate::link::Hold;
use crate::packet::{MsgId, Packet, PktKind};
use nmc_sim::{Bits, EventQueue, SimTime};

impl Subnet {
    /// Writes a line of RFC 632's table (`record = ["e2e"]`): `event` of `what`, number `num`,
    /// at the `side` of the pair `src` → `dst` where it happened.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn log_e2e(
        &mut self,
        now: SimTime,
        src: u32,
        dst: u32,
        side: Side,
        what: What,
        num: u64,
        event: Happened,
        note: Note,
    ) {
        if let Some(log) = self.obs.e2e.as_mut() {
            log.push(E2eEvent {
                t_ns: now.as_nanos(),
                src: self.imps[src as usize].name.clone(),
                dst: self.imps[dst as usize].name.clone(),
                side,
                what,
                num,
                event,
                note,
            });
        }
    }

    // ----------------------------------------------------------------- source

    /// The single-packet message has its number: it leaves now (RFC 632: no PLT, no REQALL).
    pub(super) fn launch_single(
        &mut self,
        now: SimTime,
        src: u32,
        mid: MsgId,
        q: &mut EventQueue<Ev>,
    ) {
        let m = msg_in(&mut self.imps, src, mid);
        super::change(&mut self.trace, now, mid, m, MsgState::Launched);
        let (host, done_input) = (m.host, m.input == m.packets && !m.accepted);
        self.obs.note(now, mid, super::Milestone::Launched);
        self.trace.emit(now, &Tr::Launched { msg: mid });
        self.send_single(now, src, mid, false, q);
        if done_input {
            self.accepted(now, host, mid);
        }
    }

    /// Sends the message's packet from the source IMP, the first time or again on an ALLOCATE.
    /// The buffer it occupies is the copy, kept until the RFNM ([`Hold::Copy`]).
    fn send_single(
        &mut self,
        now: SimTime,
        src: u32,
        mid: MsgId,
        again: bool,
        q: &mut EventQueue<Ev>,
    ) {
        let m = &self.imps[src as usize].messages[&mid];
        let (dst, stream, num, bits) = (m.dst, m.stream, m.num.expect("numbered"), m.bits);
        let host = m.dst_host;
        let id = self.slab.insert(Packet {
            kind: PktKind::Data {
                msg: mid,
                num,
                index: 0,
                of: 1,
                host,
            },
            src,
            dst,
            stream,
            bits: Bits::new(bits),
            hops: 0,
        });
        let l = match self.detours.remove(&src) {
            Some(l) => l,
            None => match self.routing.next_link(&self.topo, src, dst) {
                Some(l) => l,
                None => {
                    // No route now (a line is down): the copy waits with the IMP's other
                    // packets for one, as `send_data` does.
                    self.routing.park(src, id, Hold::Copy);
                    return;
                }
            },
        };
        self.note_visit(now, src, id);
        self.enqueue(l, id, Hold::Copy);
        let note = if again { Note::Again } else { Note::None };
        self.log_e2e(
            now,
            src,
            dst,
            Side::Source,
            What::Msg,
            num,
            Happened::Sent,
            note,
        );
        self.try_send(now, l, q);
    }

    /// The RFNM of single-packet message `msg` (number `num`) reaches its source IMP.
    pub(super) fn single_rfnm_received(
        &mut self,
        now: SimTime,
        imp: u32,
        p: Packet,
        msg: MsgId,
        num: u64,
        q: &mut EventQueue<Ev>,
    ) {
        let dst = p.src;
        self.log_e2e(
            now,
            imp,
            dst,
            Side::Source,
            What::Rfnm,
            num,
            Happened::Arr,
            Note::None,
        );
        let i = &mut self.imps[imp as usize];
        i.numbers.release(p.stream);
        i.release_copy();
        let stream = p.stream;
        self.step(now, imp, q, |i, out| i.number_released(now, stream, out));
        if let Some(m) = self.imps[imp as usize].messages.remove(&msg) {
            if let Some(g) = self.hosts[m.host as usize].generator.as_mut() {
                g.in_flight -= 1;
            }
            let t = self.obs.messages.remove(&msg).expect("a tracked message");
            let mut rec = t.rec;
            rec.rfnm_ns = Some(now.as_nanos());
            rec.rfnm_carried_all = Some(false);
            let rtt_ns = now.as_nanos() - rec.offered_ns;
            self.trace.emit(
                now,
                &Tr::RfnmIn {
                    msg,
                    all: false,
                    rtt_ns,
                },
            );
            let hops = self.topo.hops(m.src, m.dst).unwrap_or(0);
            self.answered(t.background, hops, rec);
        }
        self.serve_waiters(now, imp, q);
        self.wake_hosts(now, imp, q);
    }

    /// An ALLOCATE for single-packet message `msg` (number `num`), which the destination did
    /// not accept, reaches its source IMP: the source sends its copy again (RFC 632 events 6–9).
    pub(super) fn single_all_received(
        &mut self,
        now: SimTime,
        imp: u32,
        p: Packet,
        msg: MsgId,
        num: u64,
        q: &mut EventQueue<Ev>,
    ) {
        let dst = p.src;
        self.log_e2e(
            now,
            imp,
            dst,
            Side::Source,
            What::All,
            num,
            Happened::Arr,
            Note::None,
        );
        self.trace.emit(now, &Tr::AllIn { num });
        if self.imps[imp as usize].messages.contains_key(&msg) {
            self.obs.note(now, msg, super::Milestone::Retransmitted);
            self.count(Counted::SingleRetransmission);
            self.send_single(now, imp, msg, true, q);
        }
    }
}
