//! Single-packet messages (RFC 632, Opderbeck, May 1974): the driver's side.
//!
//! A message that fits one packet does not go through points c–e of K&O Fig. 1: at the
//! **source** it takes a message number (the same 4 per IMP pair as every message) but no PLT
//! entry and no REQALL, and leaves at once. The source IMP keeps its buffer as a copy "for which
//! a RFNM has not yet been received" (RFC 632 p. 6) and sends the copy again when an ALLOCATE
//! for it comes back. At the **destination**, what becomes of it and when its ALLOCATE goes are
//! the rules of [`crate::e2e::single`]; here they are carried out (records in RFC 632's table
//! form, traces, counts, the hand-over to the host, the RFNM at once and without an allocation).

use super::{Counted, E2eEvent, Ev, Happened, MsgState, Note, Side, Subnet, Tr, What, msg_in};
use crate::e2e::single::{self, Disposition, Single};
use crate::imp::HostOut;
use crate::link::Hold;
use crate::packet::{MsgId, Packet, PktKind};
use nmc_sim::{Bits, EventQueue, SimTime};

impl Subnet {
    #[allow(clippy::too_many_arguments)]
    fn log_e2e(
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

    // ------------------------------------------------------------ destination

    /// A single-packet message reaches its destination IMP: [`single::arrive`] decides, the
    /// driver records and hands an accepted in-order message to the host.
    pub(super) fn single_arrives(
        &mut self,
        now: SimTime,
        imp: u32,
        p: Packet,
        s: Single,
        q: &mut EventQueue<Ev>,
    ) {
        let (src, stream) = (p.src, p.stream);
        let Single { msg, num, .. } = s;
        let mut deleted = Vec::new();
        let i = &mut self.imps[imp as usize];
        let disposition = single::arrive(i, stream, s, p.bits.get(), &mut deleted);
        for d in deleted {
            self.count(Counted::SingleDeleted);
            let src = self.stream_src(d.key.0);
            let (s, m) = (Side::Destination, What::Msg);
            self.log_e2e(now, src, imp, s, m, d.key.1, Happened::Deleted, Note::None);
            self.trace.emit(
                now,
                &Tr::SingleDeleted {
                    msg: d.msg,
                    num: d.key.1,
                    imp: &self.imps[imp as usize].name,
                },
            );
        }
        let note = Note::from(disposition);
        let (d, m, a) = (Side::Destination, What::Msg, Happened::Arr);
        self.log_e2e(now, src, imp, d, m, num, a, note);
        self.trace.emit(
            now,
            &Tr::SingleIn {
                msg,
                num,
                imp: &self.imps[imp as usize].name,
                disposition: note.as_str(),
            },
        );
        match disposition {
            Disposition::Duplicate => self.count(Counted::SingleDuplicate),
            Disposition::HostOutput | Disposition::Stored => {
                self.hand_over_in_order(now, imp, stream, q)
            }
            Disposition::Rejected => self.count(Counted::SingleRejected),
        }
        self.serve_replies(now, imp, q);
    }

    /// Sends the ALLOCATEs whose turn has come and for which a buffer is (or can be) reserved
    /// ([`single::ready_requests`], [`single::grant`]).
    pub(super) fn serve_single_requests(&mut self, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        for (key, msg) in single::ready_requests(&self.imps[imp as usize]) {
            if !single::grant(&mut self.imps[imp as usize], key) {
                continue;
            }
            let (stream, num) = key;
            let src = self.stream_src(stream);
            let (d, a) = (Side::Destination, What::All);
            self.log_e2e(now, src, imp, d, a, num, Happened::Sent, Note::None);
            self.trace.emit(
                now,
                &Tr::SingleAllSent {
                    msg,
                    num,
                    to: &self.imps[src as usize].name,
                },
            );
            self.count(Counted::SingleAll);
            let kind = PktKind::SingleAll { msg, num };
            self.send_control(now, imp, src, stream, kind, q);
        }
    }

    /// The host has taken single-packet message `o`: its RFNM goes at once, without an ALL.
    pub(super) fn single_rfnm(
        &mut self,
        now: SimTime,
        imp: u32,
        o: HostOut,
        q: &mut EventQueue<Ev>,
    ) {
        let src = self.stream_src(o.stream);
        let (d, r) = (Side::Destination, What::Rfnm);
        self.log_e2e(now, src, imp, d, r, o.num, Happened::Sent, Note::None);
        self.trace.emit(
            now,
            &Tr::Rfnm {
                msg: o.msg,
                all: false,
                waited_ns: 0,
            },
        );
        self.count(Counted::SingleRfnm);
        self.send_control(
            now,
            imp,
            src,
            o.stream,
            PktKind::SingleRfnm {
                msg: o.msg,
                num: o.num,
            },
            q,
        );
    }
}
