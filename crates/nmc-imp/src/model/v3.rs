//! Version 3 message processing (1975; K&O §VI–VII, Figs. 7–9).
//!
//! What changes from version 2 (the rest of the subnet is the same):
//! * **message control blocks** (K&O §VI): before a host's first message to another host, the
//!   source IMP makes a *transmit block* and sends a subnet control message asking the
//!   destination IMP for the matching *receive block*; the message waits until the reply comes
//!   back. 64 of each per IMP (`control_blocks`); a block unused for `control_block_idle` is
//!   released, the receive block with it ([`PktKind::ReleaseBlock`]).
//! * **sequencing per host pair**: 8 message numbers per source-host/destination-host pair
//!   (`message_numbers`), and the destination hands messages over in order per host pair.
//! * **order of acquisition**: "message number, reassembly buffers, and PLT entry". A message
//!   that finds an allocation at its source IMP keeps it and queues for a PLT entry; one that
//!   finds none decides on a REQALL, which takes "the message number and the PLT entry" (here:
//!   a number of its own on the stream and a PLT entry, queued behind earlier claims), and
//!   waits for an ALL, whichever arrives first: a piggy-backed one on a RFNM or its REQALL's.
//! * **superfluous REQALLs** (K&O §VII): a REQALL decided while an earlier one to the same
//!   destination IMP is still unanswered. The 1975 IMPs sent them (`superfluous_reqalls =
//!   true`); K&O's first remedy withholds them (`false`): the message waits for the ALL already
//!   asked for.
//! * **BBN's fix** (`rfnm_piggyback = "not-while-replies-wait"`, profile `v3-1975-05`): "avoid
//!   the piggy-backing of allocates on RFNM's as long as there are other replies to be sent" —
//!   applied in `serve_replies`.
//!
//! Choices the sources leave open: the REQALL's message number is a new one on the stream (the
//! message keeps its own, so that when it takes an ALL that came first it needs only a PLT
//! entry, as K&O's Fig. 8 narrative has it); claims on PLT entries are served first come,
//! first served, REQALLs and messages alike; a released stream starts its numbers again at 0.

use super::procedure::Procedure;
use super::{Counted, Ev, Host, MsgState, Subnet, Tr};
use crate::blocks::Need;
use crate::imp::{Expired, Imp, TimerId};
use crate::packet::{MsgId, Packet, PktKind, Stream, stream, stream_ends};
use crate::source::PltClaim;
use nmc_sim::{EventQueue, SimTime};

/// The 1975 procedure.
pub struct V3;

impl Procedure for V3 {
    /// K&O §VI: "message sequencing is now done on the basis of HOST-to-HOST pairs".
    fn stream(&self, _hosts: &[Host], h: u32, dst_host: u32) -> Stream {
        stream(h, dst_host)
    }

    fn stream_src(&self, hosts: &[Host], s: Stream) -> u32 {
        hosts[stream_ends(s).0 as usize].imp
    }

    /// A message first needs its transmit block.
    fn first_state(&self) -> MsgState {
        MsgState::NeedBlock
    }

    /// The message kept its number and now has its allocation.
    fn allocated_state(&self) -> MsgState {
        MsgState::NeedAll
    }

    /// K&O §VI: "message number, reassembly buffers, and PLT entry", in that order.
    fn allocation_before_plt(&self) -> bool {
        true
    }

    /// Moves a version 3 message through its block, number, allocation and PLT entry as far as
    /// it can go.
    fn advance(&self, sub: &mut Subnet, now: SimTime, mid: MsgId, q: &mut EventQueue<Ev>) {
        loop {
            let Some(m) = sub.msgs.get(&mid) else { return };
            let (src, dst, stream, state) = (m.src, m.dst, m.stream, m.state);
            let cap = sub.params.control_blocks as usize;
            let imp = &mut sub.imps[src as usize];
            match state {
                MsgState::NeedBlock => match imp.tx_blocks.need(stream, mid, cap) {
                    Need::Open => sub.set_state(now, mid, MsgState::NeedNumber),
                    Need::Opening => return,
                    Need::Created => {
                        // K&O §VI: "source IMP S creates a transmit block and sends a subnet
                        // control message to destination IMP D to request the creation of a
                        // receive block".
                        sub.count(Counted::CreateBlock);
                        sub.send_control(now, src, dst, stream, PktKind::CreateBlock, q);
                        return;
                    }
                    Need::Full { first } => {
                        // All transmit blocks in use: "a shortage of transmit and/or receive
                        // blocks will normally cause only an initial setup delay".
                        if first {
                            sub.count(Counted::TransmitBlockWait);
                        }
                        return;
                    }
                },
                MsgState::NeedNumber => {
                    // K&O §VI: "8 message sequence numbers ... on a sending HOST-receiving HOST
                    // pair basis".
                    let Some(num) = imp.numbers.request(stream, mid, sub.params.message_numbers)
                    else {
                        return; // in line for a number of the host pair
                    };
                    imp.tx_blocks.used(stream);
                    let m = sub.msgs.get_mut(&mid).expect("message");
                    m.num = Some(num);
                    m.rec.numbered_ns = Some(now.as_nanos());
                    super::change(&mut sub.trace, now, mid, m, MsgState::NeedAll);
                    sub.trace.emit(now, &Tr::Number { msg: mid, num });
                    if sub.msgs[&mid].packets == 1 {
                        // RFC 632: no allocation, no PLT entry for a single-packet message.
                        sub.launch_single(now, mid, q);
                        return;
                    }
                }
                MsgState::NeedAll => {
                    // K&O §VI: "a multipacket message tries to obtain the reassembly buffers
                    // before it asks for the PLT entry".
                    if imp.allocs.take(dst) {
                        sub.set_state(now, mid, MsgState::NeedPlt);
                        continue;
                    }
                    imp.allocs.await_all(dst, mid);
                    let superfluous = imp.plt_claims.superfluous(dst);
                    if superfluous && !sub.params.superfluous_reqalls {
                        // K&O §VII's first remedy: wait for the ALL already asked for.
                        sub.set_state(now, mid, MsgState::AwaitAll);
                        sub.count(Counted::ReqallWithheld);
                        return;
                    }
                    imp.plt_claims.reqall(stream, dst, mid);
                    if superfluous {
                        // K&O §VII: "A REQALL is called superfluous if it is sent while a
                        // previous REQALL is still outstanding."
                        sub.count(Counted::SuperfluousReqall);
                    }
                    let m = sub.msgs.get_mut(&mid).expect("message");
                    super::change(&mut sub.trace, now, mid, m, MsgState::AwaitAll);
                    m.reqalls += 1;
                    m.rec.reqalls += 1;
                    self.serve_plt(sub, now, src, q);
                    return;
                }
                MsgState::NeedPlt => {
                    imp.plt_claims.message(mid);
                    self.serve_plt(sub, now, src, q);
                    return;
                }
                _ => return,
            }
        }
    }

    /// Gives free PLT entries of `imp` to the claims at the head of its queue: a message
    /// leaves (point e of K&O Fig. 1); a REQALL takes a message number of its stream too and
    /// goes to the destination IMP.
    fn serve_plt(&self, sub: &mut Subnet, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        loop {
            let i = &mut sub.imps[imp as usize];
            if !i.plt.free(sub.params.plt_entries) {
                return;
            }
            let Some(claim) = i.plt_claims.first() else {
                return;
            };
            match claim {
                PltClaim::Message(mid) => {
                    i.plt_claims.take_first();
                    i.plt.take();
                    let plt_used = i.plt.used();
                    sub.trace.emit(now, &Tr::Plt { msg: mid, plt_used });
                    sub.launch(now, mid, q);
                }
                PltClaim::Reqall { stream, dst, msg } => {
                    let Some(num) = i.numbers.take(stream, sub.params.message_numbers) else {
                        return; // the REQALL waits for a number of its stream
                    };
                    i.tx_blocks.used(stream);
                    i.plt_claims.take_first();
                    i.plt.take();
                    sub.trace.emit(now, &Tr::Reqall { msg, num });
                    sub.count(Counted::Reqall);
                    let kind = PktKind::ReqAll { msg, num };
                    sub.send_control(now, imp, dst, stream, kind, q);
                }
            }
        }
    }

    /// The ALL answering one of `imp`'s REQALLs to `dst` has come back: the REQALL's PLT entry
    /// and number are free again (done by the caller) and it is no longer outstanding; with no
    /// number of the stream left in use, the block's disuse timer starts.
    fn all_returned(
        &self,
        sub: &mut Subnet,
        now: SimTime,
        imp: u32,
        dst: u32,
        stream: Stream,
        q: &mut EventQueue<Ev>,
    ) {
        let i = &mut sub.imps[imp as usize];
        i.plt_claims.answered(dst);
        sub.number_released(now, imp, stream, q);
    }

    /// With REQALLs withheld (`superfluous_reqalls = false`), messages wait for the ALL of a
    /// REQALL another message sent; when no REQALL to `dst` is outstanding any more and none
    /// of those waiting has an allocation, the oldest asks again, so that none waits for an
    /// ALL nobody asked for.
    fn reply_served(
        &self,
        sub: &mut Subnet,
        now: SimTime,
        imp: u32,
        dst: u32,
        q: &mut EventQueue<Ev>,
    ) {
        let i = &mut sub.imps[imp as usize];
        let nothing_asked = i.plt_claims.outstanding(dst) == 0 && i.allocs.held(dst) == 0;
        if !nothing_asked {
            return;
        }
        let Some(w) = i.allocs.next_awaiting(dst) else {
            return;
        };
        if sub.msgs.contains_key(&w) {
            sub.set_state(now, w, MsgState::NeedAll);
            self.advance(sub, now, w, q);
        }
    }

    fn plt_reqalls(&self, sub: &Subnet, src: u32) -> u32 {
        sub.imps[src as usize].plt_claims.held_by_reqalls()
    }

    fn held(&self, i: &Imp) -> Option<String> {
        Some(format!(
            "{}: version 3: blocks waited for {}, PLT claims {}, REQALLs out {:?}, receive blocks waited for {}",
            i.name,
            i.tx_blocks.waiting(),
            i.plt_claims.len(),
            i.plt_claims.outstanding_all(),
            i.rx_blocks.waiting()
        ))
    }
}

impl Subnet {
    fn set_state(&mut self, now: SimTime, mid: MsgId, s: MsgState) {
        let m = self.msgs.get_mut(&mid).expect("message");
        super::change(&mut self.trace, now, mid, m, s);
    }

    /// A number of `stream` came back to `imp`: with none left in use, the block's disuse
    /// timer starts.
    pub(super) fn number_released(
        &mut self,
        now: SimTime,
        imp: u32,
        stream: Stream,
        q: &mut EventQueue<Ev>,
    ) {
        let i = &mut self.imps[imp as usize];
        if i.numbers.in_use(stream) == 0
            && let Some(at) = i
                .tx_blocks
                .arm_idle(stream, now + self.params.control_block_idle)
        {
            q.schedule(at, Ev::BlockIdle { imp, stream });
        }
    }

    /// A wake-up for the disuse timer of `stream`'s transmit block at `imp`: if the timer ran
    /// out (no number given out since the last came back), the block is released.
    pub(super) fn block_idle(
        &mut self,
        now: SimTime,
        imp: u32,
        stream: Stream,
        q: &mut EventQueue<Ev>,
    ) {
        match self.imps[imp as usize].handle_timeout(now, TimerId::BlockIdle { stream }) {
            Some(Expired::NotYet { at }) => return q.schedule(at, Ev::BlockIdle { imp, stream }),
            Some(Expired::BlockReleased { .. }) => {}
            _ => return,
        }
        let dst = self.hosts[crate::packet::stream_ends(stream).1 as usize].imp;
        self.count(Counted::ReleaseBlock);
        self.send_control(now, imp, dst, stream, PktKind::ReleaseBlock, q);
        // A message waiting for a free transmit block may have one now.
        while let Some(w) = self.imps[imp as usize].tx_blocks.first_waiting() {
            self.advance(now, w, q);
            if self.imps[imp as usize].tx_blocks.first_waiting() == Some(w) {
                break;
            }
        }
    }

    /// A message-control-block message reaches the IMP it is for.
    pub(super) fn block_control(
        &mut self,
        now: SimTime,
        imp: u32,
        p: Packet,
        q: &mut EventQueue<Ev>,
    ) {
        let stream = p.stream;
        match p.kind {
            PktKind::CreateBlock => {
                let cap = self.params.control_blocks as usize;
                if self.imps[imp as usize].rx_blocks.request(stream, cap) {
                    self.open_receive_block(now, imp, stream, q);
                } else {
                    self.count(Counted::ReceiveBlockWait);
                }
            }
            PktKind::BlockCreated => {
                // "When IMP S receives this control message, the message control block pair is
                // established."
                let Some(waiters) = self.imps[imp as usize].tx_blocks.opened(stream) else {
                    return;
                };
                for w in waiters {
                    self.advance(now, w, q);
                }
                self.wake_hosts(now, imp, q);
            }
            PktKind::ReleaseBlock => {
                let i = &mut self.imps[imp as usize];
                i.rx_blocks.release(stream);
                i.delivery.forget(stream);
                let cap = self.params.control_blocks as usize;
                while let Some(s) = self.imps[imp as usize].rx_blocks.next_waiting(cap) {
                    self.open_receive_block(now, imp, s, q);
                }
            }
            _ => unreachable!("only message-control-block messages come here"),
        }
    }

    /// Makes the receive block of `stream` at `imp` and reports it to the source IMP.
    fn open_receive_block(
        &mut self,
        now: SimTime,
        imp: u32,
        stream: Stream,
        q: &mut EventQueue<Ev>,
    ) {
        let i = &mut self.imps[imp as usize];
        if i.rx_blocks.open(stream) {
            i.delivery.forget(stream);
        }
        let src = self.stream_src(stream);
        self.send_control(now, imp, src, stream, PktKind::BlockCreated, q);
    }
}
