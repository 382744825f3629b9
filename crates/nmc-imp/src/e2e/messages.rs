//! The source IMP's steps of a message (K&O §II, Fig. 1 points a–e, h, i): the host's packets
//! taken in (point a), the message moved through its version's procedure as far as the rules
//! let it ([`super::procedure::Procedure::step`]: its number, point b; its PLT entry, point c;
//! its allocation or a REQALL), packet 1 launched (point e) and the rest sent as the host puts
//! them in, the RFNM or ALL received (point h) with the allocation it brings (point i), and the
//! messages and claims that waited for what it freed served in turn. The tables are
//! [`crate::source`]'s; where the versions differ is the [`super::procedure::Procedure`] the IMP
//! holds (`e2e/v2.rs`, `e2e/v3.rs`). Each step changes the IMP's tables and pushes what the
//! driver is to do ([`Output`]): the trace and the observer's milestones, the counts, the
//! packets and control messages to send, the wake-ups, and the hosts that may go on.
//!
//! A step whose rest depends on what the driver does first (a packet launched lets its host put
//! in the next one, which may be a message of this IMP's own generator moved on at once) ends
//! with an [`Output::Resume`]: the serving of the PLT's claims ([`Resume::Plt`]), of the
//! messages waiting for a number ([`Resume::Waiters`]), and of a message the version asks again
//! for ([`Resume::AskAgain`]).

use super::procedure::{Grant, Step, Want};
use crate::imp::{Effects, Imp, Output, Resume, TimerId, Traced};
use crate::link::Hold;
use crate::observe::{Counted, Milestone};
use crate::packet::{Input, MsgId, Packet, PktId, PktKind, Stream};
use crate::params::{ControlQueue, Giveback, ReqallClaim, ReqallPath, ReqallWake};
use crate::source::{MsgState, SourceMsg};
use nmc_sim::{Bits, SimTime};

/// A message a host offers its source IMP, as the host and the subnet name it
/// ([`Imp::message_offered`], [`Imp::message_generated`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Offer {
    /// The source host.
    pub(crate) host: u32,
    /// The destination host.
    pub(crate) dst_host: u32,
    /// The destination IMP.
    pub(crate) dst: u32,
    /// The stream its numbers count in (IMP pair in version 2, host pair in version 3).
    pub(crate) stream: Stream,
    /// Its length, data bits.
    pub(crate) bits: u64,
}

impl Imp {
    /// The packets a message of `bits` is cut into (full packets of the profile's
    /// `max_packet`, the rest in the last).
    pub(crate) fn packets_of(&self, bits: u64) -> u8 {
        bits.div_ceil(self.limits.destination.max_packet) as u8
    }

    /// Host `o.host` offers message `id` to this IMP, its source (K&O §II point a): the IMP's
    /// table has it from now until its RFNM comes back. Its packet 1 is to go in.
    pub(crate) fn message_offered(&mut self, id: MsgId, o: Offer) {
        self.insert(id, o, MsgState::InputFirst, 0);
    }

    /// The IMP's own message generator (RFC 632's "IMP message generator") makes message `id`
    /// inside this IMP, with the buffer [`Imp::admit_own_packet`] gave it: packet 1 is in, and
    /// the message goes to point b at once.
    pub(crate) fn message_generated(&mut self, id: MsgId, o: Offer, out: &mut impl Effects) {
        self.insert(id, o, self.procedure().first_state(), 1);
        out.push(Output::Milestone {
            msg: id,
            milestone: Milestone::FirstIn,
        });
        self.advance(id, out);
    }

    /// Message `id` into the table, in `state` with `input` packets in.
    fn insert(&mut self, id: MsgId, o: Offer, state: MsgState, input: u8) {
        let m = SourceMsg {
            host: o.host,
            dst_host: o.dst_host,
            src: self.id,
            dst: o.dst,
            stream: o.stream,
            bits: o.bits,
            packets: self.packets_of(o.bits),
            state,
            num: None,
            leader_num: None,
            input,
            reqalls: 0,
            reqall_unacked: false,
            reqall_asleep: false,
            holds_all: false,
            reqall_decided: false,
            took_all: false,
            accepted: false,
        };
        self.messages.insert(id, m);
    }

    /// The host of message `msg`, while this IMP has it.
    pub(crate) fn message_host(&self, msg: MsgId) -> Option<u32> {
        self.messages.get(&msg).map(|m| m.host)
    }

    /// Message `msg` for `dst` uses an allocation: the one it took while its request waited
    /// (`reqall_claim = "at-all-1973"`), or an unassigned one at hand ([`crate::source::Allocations::take`]).
    pub(crate) fn use_allocation(&mut self, msg: MsgId, dst: u32) -> bool {
        if let Some(m) = self.messages.get_mut(&msg) {
            if std::mem::take(&mut m.holds_all) {
                return true;
            }
            // Decided at its input's end (`reqall_check = "at-input-1973"`): it asks.
            if std::mem::take(&mut m.reqall_decided) {
                return false;
            }
        }
        let took = self.allocs.take(dst);
        if took && let Some(m) = self.messages.get_mut(&msg) {
            m.took_all = true;
        }
        took
    }

    /// `reqall_check = "at-input-1973"`: packet 1 of version 2 message `msg` is in its buffer
    /// and the task has not taken it yet. BBN 3050 p. 128 (`HIPKT1` → `HIPLT`, `JST (TALLYG) I
    /// /ANY ALLOC FROM OUR DEST?`): at the host interface's level it takes an ALL from its
    /// destination out of the TALLY table if one is there (p. 136 `TALLYG`), or is marked
    /// "REQUEST FOR 8" (`HIPLT2`) if none is; the task then takes it (`HIPLT3`), and
    /// [`Self::use_allocation`] reads what was decided here.
    pub(crate) fn tally_at_input(&mut self, msg: MsgId, out: &mut impl Effects) {
        if self.limits.source.reqall_check != crate::params::ReqallCheck::AtInput1973
            || self.limits.source.version != crate::params::MessageProcessing::V2
        {
            return;
        }
        let Some(m) = self.messages.get(&msg) else {
            return;
        };
        if m.input != 0 || m.packets == 1 || m.holds_all || m.reqall_decided {
            return;
        }
        let dst = m.dst;
        let took = self.allocs.take(dst);
        let m = self.messages.get_mut(&msg).expect("a message of this IMP");
        if took {
            m.holds_all = true;
            out.push(Output::Trace(Traced::AllTaken { msg }));
        } else {
            m.reqall_decided = true;
        }
    }

    /// The next packet of message `msg` its host may put in, or `None` while K&O §II point a
    /// halts input: packet 1 of a message just offered, and the others only once it is
    /// launched ("input of packets 2..8 halts until the resources are held"). Whether the IMP
    /// has room for it is [`Imp::admit_host_packet`]'s.
    pub(crate) fn next_input(&self, msg: MsgId) -> Option<Input> {
        let m = self.messages.get(&msg)?;
        let due = m.state == MsgState::InputFirst && m.input == 0
            || m.state == MsgState::Launched && m.input < m.packets;
        due.then(|| Input {
            index: m.input,
            bits: self.packet_bits(m, m.input),
            dst: m.dst,
        })
    }

    /// Whether a message number of `msg`'s stream is free for it now — the stream may give its
    /// next (`message_number_order`: fewer than the profile's out, or the number that many
    /// back answered) — and no other message is before it in line (`number_wait =
    /// "leader-tick-1973"`, the host's packet 1 waits for one).
    pub(crate) fn number_free_for(&self, msg: MsgId) -> bool {
        let Some(m) = self.messages.get(&msg) else {
            return false;
        };
        self.numbers
            .next_free(m.stream, self.limits.source.message_numbers)
            && self
                .numbers
                .first_waiting(m.stream)
                .is_none_or(|w| w == msg)
    }

    /// BBN 3050 p. 128 `HI23` (`number_wait = "leader-mesget-1973"`): message `msg`'s leader
    /// is in, and it takes its number now (`MESGET`), held while its packet 1 waits to be read
    /// and taken (its [`crate::source::SourceMsg::leader_num`], used at point b); whether it
    /// has one. None free: it is in line for one, and its host looks again at the next fast
    /// tick.
    pub(crate) fn number_at_leader(&mut self, msg: MsgId, out: &mut impl Effects) -> bool {
        let limit = self.limits.source.message_numbers;
        let Some(m) = self.messages.get(&msg) else {
            return false;
        };
        if m.leader_num.is_some() {
            return true;
        }
        let stream = m.stream;
        let Some(num) = self.numbers.request(stream, msg, limit) else {
            return false;
        };
        self.messages
            .get_mut(&msg)
            .expect("looked up above")
            .leader_num = Some(num);
        // It may have been first in the stream's line, which a freed number could not move
        // while its packet 1 was out: those behind it are looked at again.
        if self.numbers.first_waiting(stream).is_some() && self.numbers.next_free(stream, limit) {
            out.push(Output::Resume(Resume::ServeWaiters));
        }
        out.push(Output::Milestone {
            msg,
            milestone: Milestone::Numbered,
        });
        out.push(Output::Trace(Traced::Number { msg, num }));
        true
    }

    /// Whether the packet of message `msg` its host puts in next is its last.
    pub(crate) fn last_packet_due(&self, msg: MsgId) -> bool {
        self.messages
            .get(&msg)
            .is_some_and(|m| m.input + 1 == m.packets)
    }

    /// Data bits of packet `index` of message `m`: full packets of the profile's
    /// `max_packet`, the rest in the last.
    fn packet_bits(&self, m: &SourceMsg, index: u8) -> u64 {
        let max = self.limits.destination.max_packet;
        if index + 1 < m.packets {
            max
        } else {
            m.bits - max * (m.packets as u64 - 1)
        }
    }

    /// Packet `index` of message `msg`, as it leaves this IMP, its source ([`Output::Data`],
    /// [`Output::SingleCopy`]).
    ///
    /// # Panics
    /// If the IMP has no message `msg`, or it has no number yet (it is not launched).
    pub(crate) fn data_packet(&self, msg: MsgId, index: u8) -> Packet {
        let m = &self.messages[&msg];
        Packet {
            kind: PktKind::Data {
                msg,
                num: m.num.expect("a launched message is numbered"),
                index,
                of: m.packets,
                host: m.dst_host,
            },
            src: self.id,
            dst: m.dst,
            stream: m.stream,
            bits: Bits::new(self.packet_bits(m, index)),
            hops: 0,
        }
    }

    /// K&O §II point a: the next packet of message `msg` is in this IMP from its host. Packet 1
    /// starts the source procedure ([`super::procedure::Procedure::first_state`]) and the
    /// message goes as far as it can; a later packet, its message launched, is sent on. Once
    /// the last is in and the message launched, the host is told it was taken.
    pub(crate) fn host_packet_in(&mut self, msg: MsgId, out: &mut impl Effects) {
        let m = self.messages.get_mut(&msg).expect("a message of this IMP");
        let index = m.input;
        m.input += 1;
        if index == 0 {
            out.push(Output::Milestone {
                msg,
                milestone: Milestone::FirstIn,
            });
            self.set_state(msg, self.procedure().first_state(), out);
            out.push(Output::Trace(Traced::FirstIn { msg }));
            self.advance(msg, out);
        } else {
            out.push(Output::Data { msg, index });
        }
        if let Some(m) = self.messages.get(&msg)
            && m.input == m.packets
            && m.state == MsgState::Launched
            && !m.accepted
        {
            self.accept(msg, out);
        }
    }

    /// All of message `msg` is in and it is launched: its host is told it was taken, and may
    /// offer the next.
    pub(crate) fn accept(&mut self, msg: MsgId, out: &mut impl Effects) {
        let m = self.messages.get_mut(&msg).expect("a message of this IMP");
        m.accepted = true;
        let host = m.host;
        out.push(Output::Accepted { host, msg });
    }

    /// Moves message `msg` through the source procedure of its version as far as it can go:
    /// the version's rule takes each step on this IMP's tables ([`Step`]), and what the step
    /// asks for is pushed.
    pub(crate) fn advance(&mut self, msg: MsgId, out: &mut impl Effects) {
        let p = self.procedure();
        loop {
            let Some(m) = self.messages.get(&msg) else {
                return;
            };
            let (dst, stream) = (m.dst, m.stream);
            let want = Want {
                msg,
                state: m.state,
                stream,
                dst,
            };
            match p.step(self, want) {
                Step::Wait => return,
                Step::Moved(state) => self.set_state(msg, state, out),
                Step::Numbered { num, then } => {
                    let m = self.messages.get_mut(&msg).expect("a message of this IMP");
                    m.num = Some(num);
                    // A number its leader took was noted then (`Imp::number_at_leader`); point b
                    // takes no other while it holds one.
                    let held = m.leader_num.take();
                    debug_assert!(held.is_none_or(|h| h == num), "the leader's number");
                    let at_leader = held.is_some();
                    let single = m.packets == 1;
                    self.set_state(msg, then, out);
                    if !at_leader {
                        out.push(Output::Milestone {
                            msg,
                            milestone: Milestone::Numbered,
                        });
                        out.push(Output::Trace(Traced::Number { msg, num }));
                    }
                    if single {
                        // RFC 632: no PLT entry, no allocation, no REQALL (`e2e/single.rs`).
                        self.launch_single(msg, out);
                        return;
                    }
                }
                Step::PltLaunch => {
                    let plt_used = self.plt.used();
                    out.push(Output::Trace(Traced::Plt { msg, plt_used }));
                    if let Some(m) = self.messages.get_mut(&msg)
                        && std::mem::take(&mut m.took_all)
                    {
                        out.push(Output::Trace(Traced::AllTaken { msg }));
                    }
                    self.launch(msg, out);
                    return;
                }
                Step::PltReqall => {
                    // K&O §II: the REQALL "steals the acquired message number and the PLT
                    // entry"; the message awaits an ALL.
                    let plt_used = self.plt.used();
                    out.push(Output::Trace(Traced::Plt { msg, plt_used }));
                    let m = self.messages.get_mut(&msg).expect("a message of this IMP");
                    let num = m.num.take().expect("numbered");
                    self.set_state(msg, MsgState::AwaitAll, out);
                    self.reqall_sent(msg);
                    out.push(Output::Milestone {
                        msg,
                        milestone: Milestone::Reqall,
                    });
                    out.push(Output::Trace(Traced::Reqall { msg, num }));
                    out.push(Output::Count(Counted::Reqall));
                    if self.limits.source.reqall_path == ReqallPath::HostPacket1973 {
                        let asleep = self.limits.source.reqall_wake == ReqallWake::FastTick1973;
                        let m = self.messages.get_mut(&msg).expect("a message of this IMP");
                        m.reqall_unacked = true;
                        m.reqall_asleep = asleep;
                    }
                    let kind = PktKind::ReqAll { msg, num };
                    out.push(Output::Control {
                        to: dst,
                        stream,
                        kind,
                    });
                    return;
                }
                Step::CreateBlock => {
                    out.push(Output::Count(Counted::CreateBlock));
                    let kind = PktKind::CreateBlock;
                    out.push(Output::Control {
                        to: dst,
                        stream,
                        kind,
                    });
                    return;
                }
                Step::BlocksFull { first } => {
                    if first {
                        out.push(Output::Count(Counted::TransmitBlockWait));
                    }
                    return;
                }
                Step::Withheld => {
                    self.set_state(msg, MsgState::AwaitAll, out);
                    out.push(Output::Count(Counted::ReqallWithheld));
                    return;
                }
                Step::Asked { superfluous } => {
                    if superfluous {
                        out.push(Output::Count(Counted::SuperfluousReqall));
                    }
                    self.set_state(msg, MsgState::AwaitAll, out);
                    self.reqall_sent(msg);
                    out.push(Output::Milestone {
                        msg,
                        milestone: Milestone::Reqall,
                    });
                    self.serve_plt(None, out);
                    return;
                }
                Step::Claimed => {
                    self.serve_plt(None, out);
                    return;
                }
            }
        }
    }

    /// A REQALL went (or was queued) for message `msg`: counted on it. Its milestone is the
    /// caller's, in K&O's order.
    fn reqall_sent(&mut self, msg: MsgId) {
        let m = self.messages.get_mut(&msg).expect("a message of this IMP");
        m.reqalls += 1;
    }

    /// Gives free PLT entries to the claims the version's rule names, in turn
    /// ([`super::procedure::Procedure::grant`]), until none can take one. `moved` is the message
    /// moved on last for an entry: first in line again, it could not take one, and the serving
    /// stops.
    pub(crate) fn serve_plt(&mut self, moved: Option<MsgId>, out: &mut impl Effects) {
        let p = self.procedure();
        loop {
            match p.grant(self) {
                Grant::None => return,
                Grant::Advance(w) => {
                    if moved == Some(w) {
                        return;
                    }
                    self.advance(w, out);
                    out.push(Output::Resume(Resume::Plt { moved: Some(w) }));
                    return;
                }
                Grant::Launch { msg, plt_used } => {
                    out.push(Output::Trace(Traced::Plt { msg, plt_used }));
                    self.launch(msg, out);
                    out.push(Output::Resume(Resume::Plt { moved }));
                    return;
                }
                Grant::Reqall {
                    msg,
                    num,
                    stream,
                    dst,
                } => {
                    out.push(Output::Trace(Traced::Reqall { msg, num }));
                    out.push(Output::Count(Counted::Reqall));
                    let kind = PktKind::ReqAll { msg, num };
                    out.push(Output::Control {
                        to: dst,
                        stream,
                        kind,
                    });
                }
            }
        }
    }

    /// Point e: packet 1 of message `msg` leaves; input of the rest resumes (its host may put
    /// in the next packet), and a message all in is taken.
    fn launch(&mut self, msg: MsgId, out: &mut impl Effects) {
        self.set_state(msg, MsgState::Launched, out);
        out.push(Output::Milestone {
            msg,
            milestone: Milestone::Launched,
        });
        out.push(Output::Trace(Traced::Launched { msg }));
        out.push(Output::Data { msg, index: 0 });
        let m = &self.messages[&msg];
        let (host, all_in) = (m.host, m.input == m.packets);
        if all_in {
            self.accept(msg, out);
        }
        out.push(Output::HostInput { host });
    }

    /// Messages waiting for a message number go on, stream by stream (those known now, each as
    /// its turn comes if a message waits on it then: [`crate::source::Numbers::next_waiting`]),
    /// then the claims on the PLT.
    pub(crate) fn serve_waiters(&mut self, out: &mut impl Effects) {
        let mark = self.numbers.lines_mark();
        self.serve_waiters_after(mark, None, out);
    }

    /// [`Imp::serve_waiters`] from the stream after `after`.
    fn serve_waiters_after(
        &mut self,
        mark: u64,
        mut after: Option<Stream>,
        out: &mut impl Effects,
    ) {
        while let Some(stream) = self.numbers.next_waiting(after, mark) {
            after = Some(stream);
            if let Some(w) = self.numbers.first_waiting(stream) {
                self.advance(w, out);
                out.push(Output::Resume(Resume::Waiters {
                    mark,
                    stream,
                    moved: w,
                }));
                return;
            }
        }
        self.serve_plt(None, out);
    }

    /// [`Resume::Waiters`]: message `moved`, first waiting on `stream`, was moved on. Still first
    /// (it found no number), the next stream's turn comes; otherwise the next message waiting
    /// on `stream` goes on.
    pub(crate) fn waiters_resumed(
        &mut self,
        mark: u64,
        stream: Stream,
        moved: MsgId,
        out: &mut impl Effects,
    ) {
        match self.numbers.first_waiting(stream) {
            Some(w) if w != moved => {
                self.advance(w, out);
                out.push(Output::Resume(Resume::Waiters {
                    mark,
                    stream,
                    moved: w,
                }));
            }
            _ => self.serve_waiters_after(mark, Some(stream), out),
        }
    }

    /// A reply from destination IMP `dst` has been dealt with here and the waiters served: a
    /// message the version asks to move on again does
    /// ([`super::procedure::Procedure::ask_again`]).
    pub(crate) fn ask_again(&mut self, dst: u32, out: &mut impl Effects) {
        let p = self.procedure();
        if let Some((w, state)) = p.ask_again(self, dst)
            && self.messages.contains_key(&w)
        {
            self.set_state(w, state, out);
            self.advance(w, out);
        }
    }

    /// Point h: the RFNM of message `msg` (number of `stream`, carrying an ALL when `all`)
    /// comes back at `now` from destination IMP `from`. The number and the PLT entry are
    /// released, the ALL goes to the allocate counter, the message is answered and gone; then
    /// the messages waiting for a number or an entry go on, a message the version asks again
    /// for, and the hosts waiting for a buffer.
    pub(crate) fn rfnm_received(
        &mut self,
        now: SimTime,
        stream: Stream,
        (msg, all): (MsgId, bool),
        from: u32,
        out: &mut impl Effects,
    ) {
        // A RFNM for a message this IMP no longer holds is a second copy of one already
        // answered: it frees nothing (its number, PLT entry and ALL went with the first). The
        // 1973 program marks a number replied when its reply comes in (BBN 3050 p. 83
        // `GOTGVB`, `MESSOK`: "mark mess no to prevent duplicates") and discards any later
        // packet with that number before it reaches the reply code (p. 73: "is mess no a
        // duplicate? yes, discard pkt"). Without this the model gave the pair's number back a
        // second time, as a single-packet message's duplicate RFNM did
        // (`single_rfnm_received`). Counted, and dropped.
        if !self.messages.contains_key(&msg) {
            out.push(Output::Count(Counted::RfnmDuplicate));
            return;
        }
        let num = self.messages[&msg]
            .num
            .expect("an answered message was numbered");
        self.release_number_and_plt(stream, num);
        self.number_released(now, stream, out);
        if all {
            self.add_allocation(now, from, out);
        }
        let m = self.messages.remove(&msg).expect("held: looked up above");
        out.push(Output::Answered {
            msg,
            host: m.host,
            dst: m.dst,
            all,
        });
        self.served(from, out);
    }

    /// Point h: the ALL answering a REQALL to destination IMP `from` (for number `num` of
    /// `stream`) comes back at `now`. The REQALL's number and PLT entry are released and the
    /// ALL goes to the allocate counter; then the waiters as after a RFNM.
    pub(crate) fn all_received(
        &mut self,
        now: SimTime,
        (stream, num): (Stream, u64),
        from: u32,
        out: &mut impl Effects,
    ) {
        self.release_number_and_plt(stream, num);
        let p = self.procedure();
        if p.all_returned(self, from) {
            self.number_released(now, stream, out);
        }
        out.push(Output::Trace(Traced::AllIn { num: 0 }));
        self.add_allocation(now, from, out);
        self.served(from, out);
    }

    /// What follows a reply from `from`, once what it set going is done: the messages waiting
    /// for a number or a PLT entry go on, then a message the version asks again for, then the
    /// hosts waiting for a buffer.
    pub(super) fn served(&mut self, from: u32, out: &mut impl Effects) {
        // A GVB waiting for a number (`gvb_number = "mesget-1973"`) is the background's, which
        // runs as soon as the task is done (BBN 3050 p. 55 `B2C`); the host's coroutine waits
        // for its next wake-up.
        self.send_gvbs(out);
        out.push(Output::Resume(Resume::ServeWaiters));
        out.push(Output::Resume(Resume::AskAgain { dst: from }));
        out.push(Output::WakeHosts);
    }

    /// A reply gives back the number `num` of `stream` it answered and its PLT entry.
    fn release_number_and_plt(&mut self, stream: Stream, num: u64) {
        self.numbers.release(stream, num);
        self.plt.release();
    }

    /// An ALL from destination IMP `dst` reaches this IMP, alone or on a RFNM (K&O §II point
    /// h): the allocate counter goes up, and the oldest message waiting for an allocation to
    /// `dst` starts again, whichever ALL this is. If that message's own REQALL is answered
    /// later, that ALL is spare and goes back with a GVB unless used within its time (250 ms;
    /// the "superfluous REQALL" of K&O §VII).
    fn add_allocation(&mut self, now: SimTime, dst: u32, out: &mut impl Effects) {
        let d = self.allocation_arrived(dst, now);
        if self.limits.source.giveback == Giveback::PerAllocation {
            out.push(Output::Timer {
                at: d.at,
                timer: TimerId::GiveBack {
                    dst,
                    generation: d.generation,
                },
            });
        }
        out.push(Output::Trace(Traced::AllPut { from: dst }));
        if let Some(w) = self.allocs.first_awaiting(dst)
            && self
                .messages
                .get(&w)
                .is_some_and(|m| m.reqall_unacked || m.reqall_asleep)
        {
            // BBN 3050 p. 130 (`HIPLT8`): the message goes on only once the next IMP has
            // acknowledged its request ([`Imp::reqalls_acknowledged`]), and, its host's
            // coroutine asleep, only at a fast tick ([`Imp::reqall_wake_tick`]). Meanwhile the ALL
            // waits in the TALLY table (`reqall_claim = "at-ack"`), or the message takes it
            // out of the table now (`"at-all-1973"`: `HIPLT5`, `TALLYG`), out of reach of the
            // give-back clock, or at the next fast tick (`"tick-1973"`,
            // [`Imp::reqall_claim_tick`]).
            if self.limits.source.reqall_claim == ReqallClaim::AtAll1973 {
                self.claim_for_request(w, dst, out);
            }
            return;
        }
        if let Some(w) = self.allocs.next_awaiting(dst)
            && self.messages.contains_key(&w)
        {
            // Version 2: the REQALL stole the number, the message starts again at point b.
            // Version 3: it kept its number and now has its allocation.
            self.set_state(w, self.procedure().allocated_state(), out);
            self.advance(w, out);
        }
    }
}

impl Imp {
    /// Control message `kind`, packet `pkt`, leaves this IMP: what holds it on its line. A
    /// REQALL sent the 1973 way ([`ReqallPath::HostPacket1973`]) is a host packet's
    /// ([`Hold::Request`]), and its acknowledgement is its message's
    /// ([`Imp::reqalls_acknowledged`]); any other control message as [`Imp::control_hold`] says.
    pub(crate) fn control_sent(&mut self, pkt: PktId, kind: &PktKind) -> Hold {
        match *kind {
            PktKind::ReqAll { msg, .. }
                if self.limits.source.reqall_path == ReqallPath::HostPacket1973 =>
            {
                self.reqalls_on_line.push((pkt, msg));
                Hold::Request
            }
            _ => self.control_hold(kind),
        }
    }

    /// What holds control message `kind` on a line, at its source or in transit: a GVB with
    /// `gvb_queue = "regular-1973"` (BBN 3050 p. 55 "NOT PRI") and a REQALL with
    /// `reqall_queue = "regular-1973"` wait in the data queue ([`Hold::Regular`]: neither is
    /// a reply, p. 66), any other [`Hold::Control`].
    pub(crate) fn control_hold(&self, kind: &PktKind) -> Hold {
        let line = &self.limits.line;
        match kind {
            PktKind::Gvb | PktKind::GvbNumbered { .. }
                if line.gvb_queue == ControlQueue::Regular1973 =>
            {
                Hold::Regular
            }
            PktKind::ReqAll { .. } if line.reqall_queue == ControlQueue::Regular1973 => {
                Hold::Regular
            }
            _ => Hold::Control,
        }
    }

    /// Whether an acknowledgement has come for a REQALL sent the 1973 way since the last
    /// [`Imp::reqalls_acknowledged`] (the step to take then).
    #[inline]
    pub(crate) fn reqalls_newly_acknowledged(&self) -> bool {
        !self.reqalls_acked.is_empty()
    }

    /// The next IMP acknowledged the REQALLs of these messages (BBN 3050 p. 130 `HIPLT8`: "HAS
    /// THE ACK FOR THIS PKT BEEN PROCESSED"): each may go on, and does if it is first in line
    /// for an allocation and one is at hand (`HIPLT5` found it in the TALLY table): it takes a
    /// new number (`HIPLT0`) and goes on as [`Imp::add_allocation`] would have moved it.
    pub(crate) fn reqalls_acknowledged(&mut self, out: &mut impl Effects) {
        for msg in std::mem::take(&mut self.reqalls_acked) {
            let Some(m) = self.messages.get_mut(&msg) else {
                continue;
            };
            if !std::mem::replace(&mut m.reqall_unacked, false) {
                continue; // version 3's REQALL: its message never waited for this
            }
            if !m.reqall_asleep {
                self.reqall_answered(msg, out);
            }
        }
    }

    /// Message `w`, first in line for an allocation from `dst` while its 1973 request is out,
    /// takes one out of the TALLY table if one is there (p. 130 `HIPLT5`, p. 136 `TALLYG`): it
    /// holds it while it waits for the request's acknowledgement.
    fn claim_for_request(&mut self, w: MsgId, dst: u32, out: &mut impl Effects) {
        if self.allocs.take(dst) {
            self.allocs.next_awaiting(dst);
            let m = self.messages.get_mut(&w).expect("a message of this IMP");
            m.holds_all = true;
            out.push(Output::Trace(Traced::AllTaken { msg: w }));
        }
    }

    /// The IMP's fast tick wakes its hosts' input coroutines before the TALLY clock is bumped
    /// (BBN 3050 p. 163 `JOBF`: `HITC`, then `TALLYB`); with `reqall_claim = "tick-1973"` each
    /// message asleep on its 1973 request and first in line takes an ALL from the table if
    /// one came since (p. 130 `HIPLT5`).
    pub(crate) fn reqall_claim_tick(&mut self, out: &mut impl Effects) {
        if self.limits.source.reqall_claim != ReqallClaim::Tick1973 {
            return;
        }
        let waiting: Vec<(MsgId, u32)> = self
            .messages
            .iter()
            .filter(|(_, m)| {
                m.state == MsgState::AwaitAll
                    && (m.reqall_unacked || m.reqall_asleep)
                    && !m.holds_all
            })
            .map(|(&id, m)| (id, m.dst))
            .collect();
        for (w, dst) in waiting {
            if self.allocs.first_awaiting(dst) == Some(w) {
                self.claim_for_request(w, dst, out);
            }
        }
    }

    /// The IMP's fast tick wakes its hosts' input coroutines (BBN 3050 p. 165 `HITC`): each
    /// message asleep on its 1973 request (`reqall_wake = "fast-tick-1973"`) looks again for
    /// its ALL and the request's acknowledgement (p. 130 `HIPLT5`, `HIPLT8`), in message
    /// order, and goes on if both are in.
    pub(crate) fn reqall_wake_tick(&mut self, out: &mut impl Effects) {
        let asleep: Vec<MsgId> = self
            .messages
            .iter()
            .filter(|(_, m)| m.reqall_asleep && !m.reqall_unacked)
            .map(|(&id, _)| id)
            .collect();
        for msg in asleep {
            self.reqall_answered(msg, out);
        }
    }

    /// Message `msg`, whose 1973 request the next IMP has acknowledged, goes on if it is
    /// waiting for an allocation and has one: the one it took while the request waited
    /// (`reqall_claim = "at-all-1973"`), or one at hand while it is first in line (`HIPLT5`
    /// found it in the TALLY table); it takes a new number (`HIPLT0`) and goes on as
    /// [`Imp::add_allocation`] would have moved it.
    fn reqall_answered(&mut self, msg: MsgId, out: &mut impl Effects) {
        let Some(m) = self.messages.get_mut(&msg) else {
            return;
        };
        let dst = m.dst;
        let go = m.state == MsgState::AwaitAll
            && (m.holds_all
                || self.allocs.first_awaiting(dst) == Some(msg) && self.allocs.held(dst) > 0);
        if !go {
            return;
        }
        m.reqall_asleep = false;
        if !m.holds_all {
            self.allocs.next_awaiting(dst);
        }
        self.set_state(msg, self.procedure().allocated_state(), out);
        self.advance(msg, out);
    }
}

#[cfg(test)]
mod tests {
    //! The source IMP's steps on one IMP, in K&O §II's words, under the October 1974 profile
    //! (version 2: 4 message numbers per IMP pair, 6 PLT entries, 1008-bit packets;
    //! `params.rs`). IMP S (0) is the source; host 0 on it sends to host 1 on IMP D (1).
    use super::*;
    use crate::imp::Output::{Control, Count, Milestone as Mark, Resume as Then, Trace};
    use crate::packet::stream;
    use crate::params::ImpParams;
    use nmc_sim::SimDuration;

    const D: u32 = 1;

    fn s_to_d() -> Stream {
        stream(0, D)
    }

    /// A version 2 IMP whose allocations each have K&O's own 250 ms timer and whose REQALL is
    /// K&O's control message (the 1973 TALLY rule of the profile has its test in `source.rs`,
    /// the 1973 REQALL path its tests below).
    fn imp() -> Imp {
        let mut p = ImpParams::v2_1974_10();
        p.giveback = crate::params::Giveback::PerAllocation;
        p.reqall_path = ReqallPath::Control;
        super::super::testing::imp(&p, 10)
    }

    /// The October 1974 profile's REQALL path, the 1973 program's (`host-packet-1973`), with
    /// the profile's readings before issue 71's fourteenth candidate (`v2-1974-10-earlier`):
    /// an ALL claimed at the request's acknowledgement, the message looked at again at once.
    /// The program's own claim and wake-up have their tests below.
    fn imp_1973() -> Imp {
        let mut p = ImpParams::v2_1974_10_earlier();
        p.giveback = crate::params::Giveback::PerAllocation;
        assert_eq!(p.reqall_path, ReqallPath::HostPacket1973);
        super::super::testing::imp(&p, 10)
    }

    /// BBN 3050 pp. 129–130 (`HIPLT2`–`HIPLT8`): the request goes as a host packet (held
    /// in packet 1's buffer, [`Hold::Request`]); an ALL that comes before the next IMP has
    /// acknowledged it waits in the TALLY table, and the message goes on — new number, PLT
    /// entry, packet 1 — only at the acknowledgement.
    #[test]
    fn the_1973_request_waits_for_its_acknowledgement_before_an_all_moves_it() {
        let mut s = imp_1973();
        first_packet_in(&mut s, 0, 2016);
        let reqall = PktKind::ReqAll { msg: 0, num: 0 };
        assert_eq!(s.control_sent(77, &reqall), Hold::Request);
        assert_eq!(s.control_sent(78, &PktKind::Gvb), Hold::Control);
        let mut out = Vec::new();
        s.all_received(at(100), (s_to_d(), 0), D, &mut out);
        assert_eq!(s.messages[&0].state, MsgState::AwaitAll, "{out:?}");
        assert_eq!(s.allocs.held(D), 1, "the ALL waits in the table");
        assert!(!out.contains(&Output::Data { msg: 0, index: 0 }));
        let used = s.buf_used;
        s.release(77, Hold::Request);
        assert_eq!(s.buf_used, used, "packet 1's buffer: nothing freed");
        let mut out = Vec::new();
        s.reqalls_acknowledged(&mut out);
        assert!(out.contains(&Output::Data { msg: 0, index: 0 }), "{out:?}");
        assert_eq!(s.messages[&0].num, Some(1), "a new number (`HIPLT0`)");
        assert_eq!(s.allocs.held(D), 0);
    }

    /// BBN 3050 p. 130 (`HIPLT5`, `TALLYG`), `reqall_claim = "at-all-1973"`: an ALL that comes
    /// before the acknowledgement is taken out of the TALLY table at once (no give-back can
    /// return it); the message still goes on only at the acknowledgement, with that ALL.
    #[test]
    fn a_1973_request_takes_the_all_out_of_the_table_before_its_acknowledgement() {
        // Looked at again at once (`v2-1974-10-earlier`); the fast tick's wake-up is below.
        let mut p = ImpParams::v2_1974_10_earlier();
        p.giveback = crate::params::Giveback::PerAllocation;
        p.reqall_claim = crate::params::ReqallClaim::AtAll1973;
        let mut s = super::super::testing::imp(&p, 10);
        let out = all_while_requesting(&mut s);
        assert_eq!(s.messages[&0].state, MsgState::AwaitAll, "{out:?}");
        assert_eq!(s.allocs.held(D), 0, "taken out of the table");
        assert!(s.messages[&0].holds_all);
        s.release(77, Hold::Request);
        let mut out = Vec::new();
        s.reqalls_acknowledged(&mut out);
        assert!(out.contains(&Output::Data { msg: 0, index: 0 }), "{out:?}");
        assert!(!s.messages[&0].holds_all, "its ALL used");
        assert!(
            !out.iter().any(|o| matches!(
                o,
                Output::Control {
                    kind: PktKind::ReqAll { .. },
                    ..
                }
            )),
            "no second request: {out:?}"
        );
    }

    /// BBN 3050 p. 128 (`HIPKT1` → `HIPLT`, `TALLYG`), `reqall_check = "at-input-1973"`: packet
    /// 1 looks for an ALL when its input ends, before the task takes it. An ALL that comes into
    /// the table between the two (its RFNM processed by the task first) is not the message's:
    /// it asks, and the ALL stays in the table. Under `"at-task"` the same order finds it. And an
    /// ALL in the table at the input's end is taken out at once.
    #[test]
    fn packet_one_looks_for_its_all_when_its_input_ends_under_the_1973_check() {
        let reqall_sent = |out: &[Output]| {
            out.iter().any(|o| {
                matches!(
                    o,
                    Output::Control {
                        kind: PktKind::ReqAll { .. },
                        ..
                    }
                )
            })
        };
        let run = |check: crate::params::ReqallCheck, all_before_input: bool| {
            let mut p = ImpParams::v2_1974_10();
            p.giveback = crate::params::Giveback::PerAllocation;
            p.reqall_check = check;
            let mut s = super::super::testing::imp(&p, 10);
            s.message_offered(0, offer(2016));
            let add = |s: &mut Imp| {
                s.allocs.add(D, at(0), SimDuration::from_millis(250));
            };
            if all_before_input {
                add(&mut s);
            }
            s.tally_at_input(0, &mut Vec::new()); // the input's end
            if !all_before_input {
                add(&mut s); // a RFNM's ALL, processed by the task before packet 1
            }
            let mut out = Vec::new();
            s.host_packet_in(0, &mut out); // the task takes packet 1
            (reqall_sent(&out), s.allocs.held(D), out)
        };
        use crate::params::ReqallCheck::{AtInput1973, AtTask};
        let (asked, held, out) = run(AtInput1973, false);
        assert!(asked, "no ALL at the input's end: it asks {out:?}");
        assert_eq!(held, 1, "the later ALL stays in the table");
        let (asked, held, out) = run(AtTask, false);
        assert!(!asked && held == 0, "at the task it finds the ALL: {out:?}");
        assert!(out.contains(&Output::Data { msg: 0, index: 0 }), "{out:?}");
        let (asked, held, out) = run(AtInput1973, true);
        assert!(!asked && held == 0, "taken at the input's end: {out:?}");
        assert!(out.contains(&Output::Data { msg: 0, index: 0 }), "{out:?}");
    }

    /// The other order: acknowledged first, the message goes on when the ALL comes.
    #[test]
    fn a_1973_request_acknowledged_first_goes_on_at_the_all() {
        let mut s = imp_1973();
        first_packet_in(&mut s, 0, 2016);
        s.control_sent(77, &PktKind::ReqAll { msg: 0, num: 0 });
        s.release(77, Hold::Request);
        let mut out = Vec::new();
        s.reqalls_acknowledged(&mut out);
        assert_eq!(s.messages[&0].state, MsgState::AwaitAll, "no ALL yet");
        let mut out = Vec::new();
        s.all_received(at(100), (s_to_d(), 0), D, &mut out);
        assert!(out.contains(&Output::Data { msg: 0, index: 0 }), "{out:?}");
    }

    /// BBN 3050 p. 130 (`HIPLT6`, `HIPLT7`), p. 117 (`HIWM`: "WAKE UP 25MS LATER"),
    /// `reqall_wake = "fast-tick-1973"`: the host's coroutine sleeps on its request, so a
    /// message whose ALL is in and whose request is acknowledged goes on only at the IMP's
    /// next fast tick, whichever came last.
    #[test]
    fn a_1973_request_answered_goes_on_at_the_next_fast_tick() {
        let mut p = ImpParams::v2_1974_10();
        p.giveback = crate::params::Giveback::PerAllocation;
        p.reqall_wake = ReqallWake::FastTick1973;
        for all_first in [true, false] {
            let mut s = super::super::testing::imp(&p, 10);
            first_packet_in(&mut s, 0, 2016);
            s.control_sent(77, &PktKind::ReqAll { msg: 0, num: 0 });
            let mut out = Vec::new();
            s.reqall_wake_tick(&mut out);
            assert_eq!(out, [], "asleep, nothing in");
            if all_first {
                s.all_received(at(100), (s_to_d(), 0), D, &mut out);
                s.release(77, Hold::Request);
                s.reqalls_acknowledged(&mut out);
            } else {
                s.release(77, Hold::Request);
                s.reqalls_acknowledged(&mut out);
                s.all_received(at(100), (s_to_d(), 0), D, &mut out);
            }
            assert!(!out.contains(&Output::Data { msg: 0, index: 0 }), "{out:?}");
            assert_eq!(s.messages[&0].state, MsgState::AwaitAll);
            let mut out = Vec::new();
            s.reqall_wake_tick(&mut out);
            assert!(out.contains(&Output::Data { msg: 0, index: 0 }), "{out:?}");
            assert_eq!(s.messages[&0].num, Some(1), "a new number (`HIPLT0`)");
            let mut out = Vec::new();
            s.reqall_wake_tick(&mut out);
            assert_eq!(out, [], "once");
        }
    }

    /// BBN 3050 p. 130 (`HIPLT5`, `HIPLT6`), p. 163 (`JOBF`: `HITC` before `TALLYB`),
    /// `reqall_claim = "tick-1973"`: an ALL that comes while a message waits on its request
    /// stays in the TALLY table until the IMP's next fast tick wakes the host's coroutine, which
    /// takes it then, once.
    #[test]
    fn a_1973_request_takes_its_all_at_the_next_fast_tick() {
        let mut p = ImpParams::v2_1974_10();
        p.reqall_claim = crate::params::ReqallClaim::Tick1973;
        let mut s = super::super::testing::imp(&p, 10);
        all_while_requesting(&mut s);
        assert_eq!(s.allocs.held(D), 1, "in the table until the tick");
        assert!(!s.messages[&0].holds_all);
        let mut out = Vec::new();
        s.reqall_claim_tick(&mut out);
        assert_eq!(s.allocs.held(D), 0);
        assert!(s.messages[&0].holds_all);
        assert_eq!(out, [Trace(Traced::AllTaken { msg: 0 })]);
        let mut out = Vec::new();
        s.reqall_claim_tick(&mut out);
        assert_eq!(out, [], "once");
        // The request acknowledged, it goes on at the next wake-up with the ALL it holds.
        s.release(77, Hold::Request);
        s.reqalls_acknowledged(&mut out);
        s.reqall_wake_tick(&mut out);
        assert!(out.contains(&Output::Data { msg: 0, index: 0 }), "{out:?}");
    }

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    /// Host 0's message of `bits` on S for host 1 on D.
    fn offer(bits: u64) -> Offer {
        Offer {
            host: 0,
            dst_host: 1,
            dst: D,
            stream: s_to_d(),
            bits,
        }
    }

    /// Host 0 offers message `msg` of `bits` to S (the driver's host has made it), and puts
    /// packet 1 in: what S's step pushes.
    /// Message 0's packet 1 in, its REQALL sent (channel 77, unacknowledged), and an ALL from
    /// its destination in at 100 ms: what the ALL's arrival did.
    fn all_while_requesting(s: &mut Imp) -> Vec<Output> {
        first_packet_in(s, 0, 2016);
        s.control_sent(77, &PktKind::ReqAll { msg: 0, num: 0 });
        let mut out = Vec::new();
        s.all_received(at(100), (s_to_d(), 0), D, &mut out);
        out
    }

    fn first_packet_in(s: &mut Imp, msg: MsgId, bits: u64) -> Vec<Output> {
        s.message_offered(msg, offer(bits));
        assert_eq!(s.next_input(msg).map(|i| i.index), Some(0));
        let mut out = Vec::new();
        s.host_packet_in(msg, &mut out);
        out
    }

    /// The host's look before packet 1 (`number_wait = "leader-tick-1973"`) asks the stream's
    /// own rule (`message_number_order`): in the 1973 window a number answered early (a
    /// REQALL's, 1) frees nothing while the one before it (0) is out; in the pool it does.
    #[test]
    fn the_hosts_look_for_a_number_follows_the_streams_order() {
        use crate::params::NumberOrder;
        for (order, free) in [(NumberOrder::Pool, true), (NumberOrder::Window1973, false)] {
            let mut p = ImpParams::v2_1974_10();
            p.message_number_order = order;
            let mut s = super::super::testing::imp(&p, 10);
            for m in 100..104 {
                assert!(s.numbers.request(s_to_d(), m, 4).is_some());
            }
            s.numbers.release(s_to_d(), 1);
            s.message_offered(0, offer(2016));
            assert_eq!(s.number_free_for(0), free, "{order:?}");
            s.numbers.release(s_to_d(), 0);
            assert!(s.number_free_for(0), "{order:?}");
        }
    }

    /// BBN 3050 p. 128 `HI23` (`number_wait = "leader-mesget-1973"`): a message's leader takes
    /// its number at once, noted then, and holds it while packet 1 waits, so a give-back that
    /// wants one meanwhile finds none; packet 1 then goes on with that number and asks for no
    /// other. With none free the leader takes nothing and waits in line.
    #[test]
    fn the_leader_takes_its_number_and_packet_1_uses_it() {
        let mut s = imp();
        s.message_offered(0, offer(2016));
        let mut out = Vec::new();
        assert!(s.number_at_leader(0, &mut out));
        assert_eq!(
            out,
            [
                mark(0, Milestone::Numbered),
                Trace(Traced::Number { msg: 0, num: 0 })
            ]
        );
        for m in 100..103 {
            assert!(s.numbers.request(s_to_d(), m, 4).is_some());
        }
        assert_eq!(s.numbers.take(s_to_d(), 4), None, "the four are taken");
        out.clear();
        assert!(s.number_at_leader(0, &mut out), "it holds its number");
        assert_eq!(out, [], "taken once");
        s.host_packet_in(0, &mut out);
        // No allocation at hand: its REQALL takes the leader's number.
        assert!(
            out.contains(&Trace(Traced::Reqall { msg: 0, num: 0 })),
            "{out:?}"
        );
        assert!(
            !out.iter()
                .any(|o| matches!(o, Trace(Traced::Number { .. }))),
            "no second number: {out:?}"
        );
        assert_eq!(s.messages[&0].leader_num, None, "used");
        // The ALL answers the REQALL's number; the message starts again at point b and asks
        // for a new one, as without the rule.
        out.clear();
        s.all_received(at(100), (s_to_d(), 0), D, &mut out);
        assert!(
            out.contains(&Trace(Traced::Number { msg: 0, num: 4 })),
            "{out:?}"
        );
        s.message_offered(1, offer(2016));
        out.clear();
        assert!(!s.number_at_leader(1, &mut out), "none free");
        assert_eq!((out.len(), s.numbers.first_waiting(s_to_d())), (0, Some(1)));
    }

    fn mark(msg: MsgId, milestone: Milestone) -> Output {
        Mark { msg, milestone }
    }

    fn state(msg: MsgId, from: MsgState, to: MsgState) -> Output {
        Trace(Traced::State { msg, from, to })
    }

    /// K&O §II points a–c: packet 1 in → a message number and a PLT entry → no allocation at
    /// hand, so a REQALL "steals the acquired message number and the PLT entry" and the
    /// message awaits the ALL. Input of packet 2 halts meanwhile.
    #[test]
    fn without_an_allocation_a_reqall_steals_the_number_and_the_plt_entry() {
        let mut s = imp();
        let out = first_packet_in(&mut s, 0, 2016);
        let reqall = PktKind::ReqAll { msg: 0, num: 0 };
        let expected = [
            mark(0, Milestone::FirstIn),
            state(0, MsgState::InputFirst, MsgState::NeedNumber),
            Trace(Traced::FirstIn { msg: 0 }),
            state(0, MsgState::NeedNumber, MsgState::NeedPlt),
            mark(0, Milestone::Numbered),
            Trace(Traced::Number { msg: 0, num: 0 }),
            Trace(Traced::Plt {
                msg: 0,
                plt_used: 1,
            }),
            state(0, MsgState::NeedPlt, MsgState::AwaitAll),
            mark(0, Milestone::Reqall),
            Trace(Traced::Reqall { msg: 0, num: 0 }),
            Count(Counted::Reqall),
            Control {
                to: D,
                stream: s_to_d(),
                kind: reqall,
            },
        ];
        assert_eq!(out, expected);
        assert_eq!(s.messages[&0].num, None, "the REQALL took the number");
        assert_eq!(s.messages[&0].reqalls, 1);
        assert_eq!((s.numbers.in_use(s_to_d()), s.plt.used()), (1, 1));
        assert_eq!(s.next_input(0), None, "input of packet 2 halts");
    }

    /// K&O §II point h: the ALL in → the REQALL's number and PLT entry released, the
    /// allocation counted (its give-back timer set) → the message starts again at point b,
    /// takes a number and an entry, and packet 1 leaves (point e); its host may put in packet
    /// 2, which is sent on, and the host is told the message was taken.
    #[test]
    fn the_all_in_launches_packet_one_and_the_host_puts_in_the_rest() {
        let mut s = imp();
        first_packet_in(&mut s, 0, 2016);
        let mut out = Vec::new();
        s.all_received(at(100), (s_to_d(), 0), D, &mut out);
        let giveback = Output::Timer {
            at: at(350),
            timer: TimerId::GiveBack {
                dst: D,
                generation: 0,
            },
        };
        let launched = [
            Trace(Traced::AllIn { num: 0 }),
            giveback,
            Trace(Traced::AllPut { from: D }),
            state(0, MsgState::AwaitAll, MsgState::NeedNumber),
            state(0, MsgState::NeedNumber, MsgState::NeedPlt),
            mark(0, Milestone::Numbered),
            Trace(Traced::Number { msg: 0, num: 1 }),
            Trace(Traced::Plt {
                msg: 0,
                plt_used: 1,
            }),
            // The ALL just in is the one it takes out of the table.
            Trace(Traced::AllTaken { msg: 0 }),
            state(0, MsgState::NeedPlt, MsgState::Launched),
            mark(0, Milestone::Launched),
            Trace(Traced::Launched { msg: 0 }),
            Output::Data { msg: 0, index: 0 },
            Output::HostInput { host: 0 },
            Then(Resume::ServeWaiters),
            Then(Resume::AskAgain { dst: D }),
            Output::WakeHosts,
        ];
        assert_eq!(out, launched);
        let next = s.next_input(0).expect("input resumes");
        assert_eq!((next.index, next.bits), (1, 1008));

        out.clear();
        s.host_packet_in(0, &mut out);
        let rest = [
            Output::Data { msg: 0, index: 1 },
            Output::Accepted { host: 0, msg: 0 },
        ];
        assert_eq!(out, rest);
        assert!(s.messages[&0].accepted);
        assert_eq!(s.next_input(0), None, "all of it is in");
        let p = s.data_packet(0, 1);
        assert_eq!(
            (p.src, p.dst, p.stream, p.bits.get()),
            (0, D, s_to_d(), 1008)
        );
        assert!(matches!(
            p.kind,
            PktKind::Data {
                num: 1,
                index: 1,
                of: 2,
                host: 1,
                ..
            }
        ));
    }

    /// A message is cut into full packets of 1008 bits and the rest.
    #[test]
    fn the_last_packet_carries_the_rest() {
        let mut s = imp();
        s.allocs
            .add(D, SimTime::ZERO, SimDuration::from_millis(250));
        first_packet_in(&mut s, 0, 2500);
        let bits: Vec<u64> = (0..3).map(|k| s.data_packet(0, k).bits.get()).collect();
        assert_eq!(bits, [1008, 1008, 484]);
    }

    /// K&O §II point h: four messages hold the pair's 4 numbers and a fifth waits for one;
    /// the RFNM of the first comes back → its number and PLT entry released, the message
    /// answered and gone → the waiting message, served once that is recorded, takes the
    /// number (and, with no allocation, sends its REQALL).
    #[test]
    fn rfnm_in_releases_the_number_and_the_waiting_message_is_numbered() {
        let mut s = imp();
        for msg in 0..4 {
            s.allocs
                .add(D, SimTime::ZERO, SimDuration::from_millis(250));
            let out = first_packet_in(&mut s, msg, 2016);
            assert!(
                out.contains(&Output::Data { msg, index: 0 }),
                "{msg} leaves"
            );
        }
        let out = first_packet_in(&mut s, 4, 2016);
        assert_eq!(s.messages[&4].state, MsgState::NeedNumber, "{out:?}");
        assert_eq!(s.numbers.first_waiting(s_to_d()), Some(4));
        assert_eq!(s.plt.used(), 4);

        let mut out = Vec::new();
        s.rfnm_received(at(500), s_to_d(), (0, false), D, &mut out);
        let answered = [
            Output::Answered {
                msg: 0,
                host: 0,
                dst: D,
                all: false,
            },
            Then(Resume::ServeWaiters),
            Then(Resume::AskAgain { dst: D }),
            Output::WakeHosts,
        ];
        assert_eq!(out, answered);
        assert!(!s.messages.contains_key(&0));
        assert_eq!((s.numbers.in_use(s_to_d()), s.plt.used()), (3, 3));

        out.clear();
        s.resume(
            at(500),
            Resume::ServeWaiters,
            &crate::imp::Nowhere,
            &mut out,
        );
        assert_eq!(out[2], Trace(Traced::Number { msg: 4, num: 4 }), "{out:?}");
        let reqall = PktKind::ReqAll { msg: 4, num: 4 };
        assert!(out.contains(&Control {
            to: D,
            stream: s_to_d(),
            kind: reqall
        }));
        assert_eq!(
            out.last(),
            Some(&Then(Resume::Waiters {
                mark: s.numbers.lines_mark(),
                stream: s_to_d(),
                moved: 4
            })),
            "the stream's next waiting message, if any, once the REQALL is out"
        );
        out.clear();
        s.resume(
            at(500),
            Resume::Waiters {
                mark: s.numbers.lines_mark(),
                stream: s_to_d(),
                moved: 4,
            },
            &crate::imp::Nowhere,
            &mut out,
        );
        assert_eq!(out, [], "none waits");
    }

    /// Version 3 (K&O §VI–VII, the February 1975 profile): packet 1 in → the message asks for
    /// its block pair; the block made → it takes a number, finds no allocation, and a REQALL
    /// claims a number of its own and a PLT entry ("the message number and the PLT entry are
    /// used to send a REQALL"), both free, so it goes; the message keeps its number and awaits
    /// the ALL.
    #[test]
    fn version_3_asks_for_the_block_then_sends_its_reqall_on_a_plt_entry() {
        let mut s = super::super::testing::imp(&ImpParams::v3_1975_02(), 10);
        let stream = stream(0, 1); // version 3 counts numbers per host pair
        let o = Offer {
            host: 0,
            dst_host: 1,
            dst: D,
            stream,
            bits: 2016,
        };
        s.message_offered(0, o);
        let mut out = Vec::new();
        s.host_packet_in(0, &mut out);
        let ask = Control {
            to: D,
            stream,
            kind: PktKind::CreateBlock,
        };
        assert_eq!(out[out.len() - 2..], [Count(Counted::CreateBlock), ask]);
        assert_eq!(s.messages[&0].state, MsgState::NeedBlock);

        out.clear();
        s.block_created_received(stream, &mut out);
        assert_eq!(out, [Then(Resume::Advance(0)), Output::WakeHosts]);
        out.clear();
        s.resume(at(40), Resume::Advance(0), &crate::imp::Nowhere, &mut out);
        let reqall = Control {
            to: D,
            stream,
            kind: PktKind::ReqAll { msg: 0, num: 1 },
        };
        assert!(
            out.contains(&Trace(Traced::Number { msg: 0, num: 0 })),
            "{out:?}"
        );
        assert_eq!(out.last(), Some(&reqall), "{out:?}");
        let m = &s.messages[&0];
        assert_eq!(
            (m.state, m.num, m.reqalls),
            (MsgState::AwaitAll, Some(0), 1)
        );
        assert_eq!(s.plt.used(), 1, "the REQALL holds the entry");
        assert_eq!(
            s.numbers.in_use(stream),
            2,
            "the message's number and the REQALL's"
        );
    }

    /// A second copy of a RFNM, for a message already answered, frees nothing: the pair's
    /// number, the PLT entry and the allocate counter stay as the first left them (BBN 3050
    /// p. 73 discards a packet whose message number is already replied). It is counted.
    #[test]
    fn a_second_rfnm_for_an_answered_message_frees_nothing() {
        let mut s = imp();
        s.allocs
            .add(D, SimTime::ZERO, SimDuration::from_millis(250));
        first_packet_in(&mut s, 0, 2016);
        first_packet_in(&mut s, 1, 2016);
        let mut out = Vec::new();
        s.rfnm_received(at(100), s_to_d(), (0, true), D, &mut out);
        let (numbers, plt, held) = (s.numbers.in_use(s_to_d()), s.plt.used(), s.allocs.held(D));
        assert!(
            numbers > 0 && plt > 0,
            "message 1 still holds a number and an entry"
        );
        let mut again = Vec::new();
        s.rfnm_received(at(600), s_to_d(), (0, true), D, &mut again);
        assert_eq!(again, [Output::Count(Counted::RfnmDuplicate)]);
        assert_eq!(
            (s.numbers.in_use(s_to_d()), s.plt.used(), s.allocs.held(D)),
            (numbers, plt, held)
        );
    }

    /// K&O §II point h: a RFNM carrying an ALL adds to the allocate counter (its 250 ms
    /// give-back timer set) before the message is answered.
    #[test]
    fn rfnm_with_an_all_counts_the_allocation() {
        let mut s = imp();
        s.allocs
            .add(D, SimTime::ZERO, SimDuration::from_millis(250));
        first_packet_in(&mut s, 0, 2016);
        assert_eq!(s.allocs.held(D), 0, "packet 1 took it");
        let mut out = Vec::new();
        s.rfnm_received(at(100), s_to_d(), (0, true), D, &mut out);
        assert!(matches!(
            out[0],
            Output::Timer {
                at: t,
                timer: TimerId::GiveBack { dst: D, .. }
            } if t == at(350)
        ));
        assert_eq!(s.allocs.held(D), 1);
    }
}
