//! The end-to-end message procedure, the driver's side (K&O §II, Fig. 1 points b–i): at the
//! source IMP, a message moved as far as its version's [`super::Procedure`] lets it, launched
//! (point e), and its RFNM or ALL received (point h), allocations counted (point i); at the
//! destination IMP, each packet and control message handed to the IMP's step for it. The
//! destination's steps (reassembly, in-order hand-over, the replies) and the GVB are the IMP's
//! own (`e2e/replies.rs`), and so are both ends of a single-packet message (`e2e/single.rs`); the tables are sans-I/O cores in [`crate::source`] and
//! [`crate::destination`].

use super::{Counted, Ev, Grant, Milestone, MsgState, Step, Subnet, Tr, Want, change, msg_in};
use crate::e2e::replies::DataPacket;
use crate::e2e::single::Single;
use crate::packet::{MsgId, Packet, PktKind, Stream};
use nmc_sim::{EventQueue, SimTime};

impl Subnet {
    /// Moves a message through the source procedure of its version as far as it can go: the
    /// version's rule takes each step on the source IMP's tables ([`Procedure::step`]), and
    /// what the step asks for is done here.
    ///
    /// [`Procedure::step`]: super::Procedure::step
    pub(super) fn advance(&mut self, now: SimTime, src: u32, mid: MsgId, q: &mut EventQueue<Ev>) {
        let p = self.procedure;
        loop {
            let Some(m) = self.imps[src as usize].messages.get(&mid) else {
                return;
            };
            let (dst, stream) = (m.dst, m.stream);
            let want = Want {
                msg: mid,
                state: m.state,
                stream,
                dst,
            };
            match p.step(&mut self.imps[src as usize], want) {
                Step::Wait => return,
                Step::Moved(state) => self.set_state(now, src, mid, state),
                Step::Numbered { num, then } => {
                    let m = msg_in(&mut self.imps, src, mid);
                    m.num = Some(num);
                    let single = m.packets == 1;
                    change(&mut self.trace, now, mid, m, then);
                    self.obs.note(now, mid, Milestone::Numbered);
                    self.trace.emit(now, &Tr::Number { msg: mid, num });
                    if single {
                        // RFC 632: no PLT entry, no allocation, no REQALL (`e2e/single.rs`).
                        self.step(now, src, q, |i, out| i.launch_single(mid, out));
                        return;
                    }
                }
                Step::PltLaunch => {
                    let plt_used = self.imps[src as usize].plt.used();
                    self.trace.emit(now, &Tr::Plt { msg: mid, plt_used });
                    self.launch(now, src, mid, q);
                    return;
                }
                Step::PltReqall => {
                    let plt_used = self.imps[src as usize].plt.used();
                    self.trace.emit(now, &Tr::Plt { msg: mid, plt_used });
                    let m = msg_in(&mut self.imps, src, mid);
                    let num = m.num.take().expect("numbered");
                    change(&mut self.trace, now, mid, m, MsgState::AwaitAll);
                    m.reqalls += 1;
                    self.obs.note(now, mid, Milestone::Reqall);
                    self.trace.emit(now, &Tr::Reqall { msg: mid, num });
                    self.count(Counted::Reqall);
                    let kind = PktKind::ReqAll { msg: mid, num };
                    self.send_control(now, src, dst, stream, kind, q);
                    return;
                }
                Step::CreateBlock => {
                    self.count(Counted::CreateBlock);
                    self.send_control(now, src, dst, stream, PktKind::CreateBlock, q);
                    return;
                }
                Step::BlocksFull { first } => {
                    if first {
                        self.count(Counted::TransmitBlockWait);
                    }
                    return;
                }
                Step::Withheld => {
                    self.set_state(now, src, mid, MsgState::AwaitAll);
                    self.count(Counted::ReqallWithheld);
                    return;
                }
                Step::Asked { superfluous } => {
                    if superfluous {
                        self.count(Counted::SuperfluousReqall);
                    }
                    let m = msg_in(&mut self.imps, src, mid);
                    change(&mut self.trace, now, mid, m, MsgState::AwaitAll);
                    m.reqalls += 1;
                    self.obs.note(now, mid, Milestone::Reqall);
                    self.serve_plt(now, src, q);
                    return;
                }
                Step::Claimed => {
                    self.serve_plt(now, src, q);
                    return;
                }
            }
        }
    }

    /// Gives free PLT entries of `imp` to the claims its version's rule names, in turn
    /// ([`Procedure::grant`]), until none can take one.
    ///
    /// [`Procedure::grant`]: super::Procedure::grant
    pub(super) fn serve_plt(&mut self, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        let p = self.procedure;
        let mut moved = None;
        loop {
            match p.grant(&mut self.imps[imp as usize]) {
                Grant::None => return,
                Grant::Advance(w) => {
                    // The same message first in line again: it could not take the entry.
                    if moved == Some(w) {
                        return;
                    }
                    self.advance(now, imp, w, q);
                    moved = Some(w);
                }
                Grant::Launch { msg, plt_used } => {
                    self.trace.emit(now, &Tr::Plt { msg, plt_used });
                    self.launch(now, imp, msg, q);
                }
                Grant::Reqall {
                    msg,
                    num,
                    stream,
                    dst,
                } => {
                    self.trace.emit(now, &Tr::Reqall { msg, num });
                    self.count(Counted::Reqall);
                    let kind = PktKind::ReqAll { msg, num };
                    self.send_control(now, imp, dst, stream, kind, q);
                }
            }
        }
    }

    /// A reply from `dst` has been dealt with at `imp`: a message the version asks to move on
    /// again does ([`Procedure::ask_again`]).
    ///
    /// [`Procedure::ask_again`]: super::Procedure::ask_again
    fn reply_served(&mut self, now: SimTime, imp: u32, dst: u32, q: &mut EventQueue<Ev>) {
        let p = self.procedure;
        if let Some((w, state)) = p.ask_again(&mut self.imps[imp as usize], dst)
            && self.imps[imp as usize].messages.contains_key(&w)
        {
            self.set_state(now, imp, w, state);
            self.advance(now, imp, w, q);
        }
    }

    /// Message `mid` moves to state `s` (traced).
    pub(super) fn set_state(&mut self, now: SimTime, src: u32, mid: MsgId, s: MsgState) {
        change(
            &mut self.trace,
            now,
            mid,
            msg_in(&mut self.imps, src, mid),
            s,
        );
    }

    /// Point e: packet 1 leaves; input of the rest resumes.
    pub(super) fn launch(&mut self, now: SimTime, src: u32, mid: MsgId, q: &mut EventQueue<Ev>) {
        let m = msg_in(&mut self.imps, src, mid);
        change(&mut self.trace, now, mid, m, MsgState::Launched);
        let (dst, num, of, bits, host, input) = (
            m.dst,
            m.num.expect("numbered"),
            m.packets,
            m.bits,
            m.host,
            m.input,
        );
        self.obs.note(now, mid, Milestone::Launched);
        self.trace.emit(now, &Tr::Launched { msg: mid });
        let pb = self.packet_bits(bits, 0, of);
        self.send_data(now, src, dst, mid, num, 0, of, pb, q);
        if input == of {
            self.accepted(now, host, mid);
        }
        self.host_try(now, host, q);
    }

    /// Wakes messages waiting for numbers or PLT entries at `imp`.
    pub(super) fn serve_waiters(&mut self, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        // The streams in order, those known now, each as its turn comes if a message waits on
        // it then (`Numbers::next_waiting`).
        let mark = self.imps[imp as usize].numbers.lines_mark();
        let mut after = None;
        while let Some(d) = self.imps[imp as usize].numbers.next_waiting(after, mark) {
            after = Some(d);
            while let Some(w) = self.imps[imp as usize].numbers.first_waiting(d) {
                self.advance(now, imp, w, q);
                if self.imps[imp as usize].numbers.first_waiting(d) == Some(w) {
                    break;
                }
            }
        }
        self.serve_plt(now, imp, q);
    }

    /// Point h: the RFNM of message `msg` (carrying an ALL when `all`) reaches the source IMP.
    pub(super) fn rfnm_received(
        &mut self,
        now: SimTime,
        imp: u32,
        p: Packet,
        msg: MsgId,
        all: bool,
        q: &mut EventQueue<Ev>,
    ) {
        let dst = p.src; // the destination IMP sent it
        self.release_number_and_plt(imp, p.stream);
        let stream = p.stream;
        self.step(now, imp, q, |i, out| i.number_released(now, stream, out));
        if all {
            self.add_allocation(now, imp, dst, q);
        }
        if let Some(m) = self.imps[imp as usize].messages.remove(&msg) {
            let t = self.obs.messages.remove(&msg).expect("a tracked message");
            let mut rec = t.rec;
            rec.rfnm_ns = Some(now.as_nanos());
            rec.rfnm_carried_all = Some(all);
            let rtt = now.as_nanos() - rec.offered_ns;
            self.trace.emit(
                now,
                &Tr::RfnmIn {
                    msg,
                    all,
                    rtt_ns: rtt,
                },
            );
            let hops = self.topo.hops(m.src, m.dst).unwrap_or(0);
            self.answered(t.background, hops, rec);
        }
        self.serve_waiters(now, imp, q);
        self.reply_served(now, imp, dst, q);
        self.wake_hosts(now, imp, q);
    }

    /// Point h: the ALL answering a REQALL reaches the source IMP.
    pub(super) fn all_received(
        &mut self,
        now: SimTime,
        imp: u32,
        p: Packet,
        q: &mut EventQueue<Ev>,
    ) {
        let dst = p.src; // the destination IMP sent it
        // The REQALL's number and PLT entry come back and the ALL goes to the counter.
        self.release_number_and_plt(imp, p.stream);
        let procedure = self.procedure;
        if procedure.all_returned(&mut self.imps[imp as usize], dst) {
            let stream = p.stream;
            self.step(now, imp, q, |i, out| i.number_released(now, stream, out));
        }
        self.trace.emit(now, &Tr::AllIn { num: 0 });
        self.add_allocation(now, imp, dst, q);
        self.serve_waiters(now, imp, q);
        self.reply_served(now, imp, dst, q);
        self.wake_hosts(now, imp, q);
    }

    pub(super) fn release_number_and_plt(&mut self, imp: u32, stream: Stream) {
        let i = &mut self.imps[imp as usize];
        i.numbers.release(stream);
        i.plt.release();
    }

    /// An ALL reaches the source IMP, alone or on a RFNM (K&O §II point h): the allocate
    /// counter goes up, and the oldest message waiting for an allocation to this destination
    /// starts again at point b, whichever ALL this is. If that message's own REQALL is answered
    /// later, that ALL is spare and goes back with a GVB unless used within 250 ms (the
    /// "superfluous REQALL" of K&O §VII).
    pub(super) fn add_allocation(
        &mut self,
        now: SimTime,
        imp: u32,
        dst: u32,
        q: &mut EventQueue<Ev>,
    ) {
        let d = self.imps[imp as usize].allocation_arrived(dst, now);
        q.schedule(
            d.at,
            Ev::GiveBack {
                imp,
                dst,
                epoch: d.generation,
            },
        );
        if let Some(w) = self.imps[imp as usize].allocs.next_awaiting(dst)
            && let Some(m) = self.imps[imp as usize].messages.get_mut(&w)
        {
            // Version 2: the REQALL stole the number, the message starts again at point b.
            // Version 3: it kept its number and now has its allocation.
            change(&mut self.trace, now, w, m, self.procedure.allocated_state());
            self.advance(now, imp, w, q);
        }
    }

    pub(super) fn destination_receives(
        &mut self,
        now: SimTime,
        imp: u32,
        p: Packet,
        q: &mut EventQueue<Ev>,
    ) {
        match p.kind {
            PktKind::Data {
                msg,
                num,
                of: 1,
                host,
                ..
            } => {
                let (stream, bits) = (p.stream, p.bits.get());
                let s = Single {
                    msg,
                    num,
                    src: p.src,
                    host,
                };
                self.step(now, imp, q, |i, out| {
                    i.single_received(now, stream, s, bits, out)
                });
            }
            // The destination's steps (K&O §II points d, f, i; RFC 632): the IMP's own
            // (`e2e/replies.rs`, `e2e/single.rs`).
            PktKind::Data {
                msg,
                num,
                index: _,
                of,
                host,
            } => {
                let d = DataPacket {
                    stream: p.stream,
                    msg,
                    num,
                    of,
                    src: p.src,
                    host,
                    bits: p.bits.get(),
                };
                self.step(now, imp, q, |i, out| i.message_packet_received(now, d, out));
            }
            PktKind::ReqAll { msg: _, num } => {
                let reqall = (p.src, p.stream, num);
                self.step(now, imp, q, |i, out| i.reqall_received(now, reqall, out));
            }
            PktKind::Gvb => self.step(now, imp, q, |i, out| i.gvb_received(now, out)),
            PktKind::Rfnm { msg, num: _, all } => self.rfnm_received(now, imp, p, msg, all, q),
            PktKind::All { num: _ } => self.all_received(now, imp, p, q),
            // RFC 632's RFNM and ALLOCATE at the source: the IMP's own steps (`e2e/single.rs`).
            PktKind::SingleRfnm { msg, num } => self.step(now, imp, q, |i, out| {
                i.single_rfnm_received(now, p.stream, (msg, num), p.src, out)
            }),
            PktKind::SingleAll { msg, num } => self.step(now, imp, q, |i, out| {
                i.single_all_received((msg, num), p.src, out)
            }),
            // Version 3's message control blocks: the IMP's own steps (`e2e/control_blocks.rs`).
            PktKind::CreateBlock => self.step(now, imp, q, |i, out| {
                i.create_block_received(p.src, p.stream, out)
            }),
            PktKind::BlockCreated => self.step(now, imp, q, |i, out| {
                i.block_created_received(p.stream, out)
            }),
            PktKind::ReleaseBlock => self.step(now, imp, q, |i, out| {
                i.release_block_received(p.stream, out)
            }),
        }
    }
}
