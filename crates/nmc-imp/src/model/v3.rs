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

use super::{Counted, Ev, MsgState, Subnet, Tr};
use crate::imp::{PltClaim, TxBlock};
use crate::packet::{MsgId, Packet, PktKind, Stream};
use nmc_sim::{EventQueue, SimTime};

impl Subnet {
    /// Moves a version 3 message through its block, number, allocation and PLT entry as far as
    /// it can go.
    pub(super) fn advance_v3(&mut self, now: SimTime, mid: MsgId, q: &mut EventQueue<Ev>) {
        loop {
            let Some(m) = self.msgs.get(&mid) else { return };
            let (src, dst, stream, state) = (m.src, m.dst, m.stream, m.state);
            let cap = self.params.control_blocks as usize;
            let imp = &mut self.imps[src as usize];
            let room = imp.tx_blocks.len() < cap;
            match state {
                MsgState::NeedBlock => match imp.tx_blocks.get_mut(&stream) {
                    Some(b) if b.open => self.set_state(now, mid, MsgState::NeedNumber),
                    Some(b) => {
                        if !b.waiters.contains(&mid) {
                            b.waiters.push(mid);
                        }
                        return;
                    }
                    None if room => {
                        // K&O §VI: "source IMP S creates a transmit block and sends a subnet
                        // control message to destination IMP D to request the creation of a
                        // receive block".
                        imp.tx_blocks.insert(
                            stream,
                            TxBlock {
                                waiters: vec![mid],
                                ..Default::default()
                            },
                        );
                        imp.block_wait.retain(|&w| w != mid);
                        self.count(Counted::CreateBlock);
                        self.send_control(now, src, dst, stream, PktKind::CreateBlock, q);
                        return;
                    }
                    None => {
                        // All transmit blocks in use: "a shortage of transmit and/or receive
                        // blocks will normally cause only an initial setup delay".
                        if !imp.block_wait.contains(&mid) {
                            imp.block_wait.push_back(mid);
                            self.count(Counted::TransmitBlockWait);
                        }
                        return;
                    }
                },
                MsgState::NeedNumber => {
                    // K&O §VI: "8 message sequence numbers ... on a sending HOST-receiving HOST
                    // pair basis".
                    let Some(num) = imp
                        .numbers
                        .request(stream, mid, self.params.message_numbers)
                    else {
                        return; // in line for a number of the host pair
                    };
                    if let Some(b) = imp.tx_blocks.get_mut(&stream) {
                        b.uses += 1;
                    }
                    let m = self.msgs.get_mut(&mid).expect("message");
                    m.num = Some(num);
                    m.rec.numbered_ns = Some(now.as_nanos());
                    super::change(&mut self.trace, now, mid, m, MsgState::NeedAll);
                    self.trace.emit(now, &Tr::Number { msg: mid, num });
                    if self.msgs[&mid].packets == 1 {
                        // RFC 632: no allocation, no PLT entry for a single-packet message.
                        self.launch_single(now, mid, q);
                        return;
                    }
                }
                MsgState::NeedAll => {
                    // K&O §VI: "a multipacket message tries to obtain the reassembly buffers
                    // before it asks for the PLT entry".
                    if imp.allocs.take(dst) {
                        self.set_state(now, mid, MsgState::NeedPlt);
                        continue;
                    }
                    imp.allocs.await_all(dst, mid);
                    let out = imp.reqalls_out.entry(dst).or_default();
                    let superfluous = *out > 0;
                    if superfluous && !self.params.superfluous_reqalls {
                        // K&O §VII's first remedy: wait for the ALL already asked for.
                        self.set_state(now, mid, MsgState::AwaitAll);
                        self.count(Counted::ReqallWithheld);
                        return;
                    }
                    *out += 1;
                    imp.plt_queue.push_back(PltClaim::Reqall {
                        stream,
                        dst,
                        msg: mid,
                    });
                    if superfluous {
                        // K&O §VII: "A REQALL is called superfluous if it is sent while a
                        // previous REQALL is still outstanding."
                        self.count(Counted::SuperfluousReqall);
                    }
                    let m = self.msgs.get_mut(&mid).expect("message");
                    super::change(&mut self.trace, now, mid, m, MsgState::AwaitAll);
                    m.reqalls += 1;
                    m.rec.reqalls += 1;
                    self.serve_plt(now, src, q);
                    return;
                }
                MsgState::NeedPlt => {
                    if !imp.plt_queue.contains(&PltClaim::Message(mid)) {
                        imp.plt_queue.push_back(PltClaim::Message(mid));
                    }
                    self.serve_plt(now, src, q);
                    return;
                }
                _ => return,
            }
        }
    }

    fn set_state(&mut self, now: SimTime, mid: MsgId, s: MsgState) {
        let m = self.msgs.get_mut(&mid).expect("message");
        super::change(&mut self.trace, now, mid, m, s);
    }

    /// Gives free PLT entries of `imp` to the claims at the head of its queue: a message
    /// leaves (point e of K&O Fig. 1); a REQALL takes a message number of its stream too and
    /// goes to the destination IMP.
    pub(super) fn serve_plt(&mut self, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        loop {
            let i = &mut self.imps[imp as usize];
            if !i.plt.free(self.params.plt_entries) {
                return;
            }
            let Some(&claim) = i.plt_queue.front() else {
                return;
            };
            match claim {
                PltClaim::Message(mid) => {
                    i.plt_queue.pop_front();
                    i.plt.take();
                    let plt_used = i.plt.used();
                    self.trace.emit(now, &Tr::Plt { msg: mid, plt_used });
                    self.launch(now, mid, q);
                }
                PltClaim::Reqall { stream, dst, msg } => {
                    let Some(num) = i.numbers.take(stream, self.params.message_numbers) else {
                        return; // the REQALL waits for a number of its stream
                    };
                    if let Some(b) = i.tx_blocks.get_mut(&stream) {
                        b.uses += 1;
                    }
                    i.plt_queue.pop_front();
                    i.plt.take();
                    i.plt_reqalls += 1;
                    self.trace.emit(now, &Tr::Reqall { msg, num });
                    self.count(Counted::Reqall);
                    let kind = PktKind::ReqAll { msg, num };
                    self.send_control(now, imp, dst, stream, kind, q);
                }
            }
        }
    }

    /// The ALL answering one of `imp`'s REQALLs to `dst` has come back: the REQALL's PLT entry
    /// and number are free again (done by the caller) and it is no longer outstanding.
    pub(super) fn reqall_answered(&mut self, imp: u32, dst: u32) {
        let i = &mut self.imps[imp as usize];
        i.plt_reqalls -= 1;
        if let Some(n) = i.reqalls_out.get_mut(&dst) {
            *n -= 1;
        }
    }

    /// With REQALLs withheld (`superfluous_reqalls = false`), messages wait for the ALL of a
    /// REQALL another message sent; when no REQALL to `dst` is outstanding any more and none
    /// of those waiting has an allocation, the oldest asks again, so that none waits for an
    /// ALL nobody asked for.
    pub(super) fn rekindle(&mut self, now: SimTime, imp: u32, dst: u32, q: &mut EventQueue<Ev>) {
        let i = &mut self.imps[imp as usize];
        let nothing_asked =
            i.reqalls_out.get(&dst).copied().unwrap_or(0) == 0 && i.allocs.held(dst) == 0;
        if !nothing_asked {
            return;
        }
        let Some(w) = i.allocs.next_awaiting(dst) else {
            return;
        };
        if self.msgs.contains_key(&w) {
            self.set_state(now, w, MsgState::NeedAll);
            self.advance_v3(now, w, q);
        }
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
        let i = &self.imps[imp as usize];
        if i.numbers.in_use(stream) == 0
            && let Some(b) = i.tx_blocks.get(&stream)
        {
            q.schedule(
                now + self.params.control_block_idle,
                Ev::BlockIdle {
                    imp,
                    stream,
                    uses: b.uses,
                },
            );
        }
    }

    /// The disuse timer of `stream`'s transmit block at `imp`: released if nothing used it
    /// since.
    pub(super) fn block_idle(
        &mut self,
        now: SimTime,
        imp: u32,
        stream: Stream,
        uses: u64,
        q: &mut EventQueue<Ev>,
    ) {
        let i = &mut self.imps[imp as usize];
        let idle = i
            .tx_blocks
            .get(&stream)
            .is_some_and(|b| b.open && b.uses == uses && b.waiters.is_empty())
            && i.numbers.unused(stream);
        if !idle {
            return;
        }
        i.tx_blocks.remove(&stream);
        i.numbers.forget(stream);
        let dst = self.hosts[crate::packet::stream_ends(stream).1 as usize].imp;
        self.count(Counted::ReleaseBlock);
        self.send_control(now, imp, dst, stream, PktKind::ReleaseBlock, q);
        // A message waiting for a free transmit block may have one now.
        while let Some(&w) = self.imps[imp as usize].block_wait.front() {
            self.advance_v3(now, w, q);
            if self.imps[imp as usize].block_wait.front() == Some(&w) {
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
                let i = &mut self.imps[imp as usize];
                if i.rx_blocks.contains(&stream)
                    || i.rx_blocks.len() < self.params.control_blocks as usize
                {
                    self.open_receive_block(now, imp, stream, q);
                } else {
                    i.rx_wait.push_back(stream);
                    self.count(Counted::ReceiveBlockWait);
                }
            }
            PktKind::BlockCreated => {
                // "When IMP S receives this control message, the message control block pair is
                // established."
                let Some(b) = self.imps[imp as usize].tx_blocks.get_mut(&stream) else {
                    return;
                };
                b.open = true;
                let waiters = std::mem::take(&mut b.waiters);
                for w in waiters {
                    self.advance_v3(now, w, q);
                }
                self.wake_hosts(now, imp, q);
            }
            PktKind::ReleaseBlock => {
                let i = &mut self.imps[imp as usize];
                i.rx_blocks.remove(&stream);
                i.delivery.forget(stream);
                while self.imps[imp as usize].rx_blocks.len() < self.params.control_blocks as usize
                {
                    let Some(s) = self.imps[imp as usize].rx_wait.pop_front() else {
                        break;
                    };
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
        if i.rx_blocks.insert(stream) {
            i.delivery.forget(stream);
        }
        let src = self.stream_src(stream);
        self.send_control(now, imp, src, stream, PktKind::BlockCreated, q);
    }
}
