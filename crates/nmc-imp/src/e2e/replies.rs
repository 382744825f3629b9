//! The destination IMP's steps of a multipacket message and the replies it owes (K&O §II
//! points d, f, g; §VII), and the source's give-back of an unused allocation (point i): a
//! message's packets reassembled, complete messages queued for their hosts in number order,
//! the RFNM made once packet 1 is at the host, RFNMs and ALLs sent as 8 buffers can be
//! reserved for them (or a RFNM without, after its 1 s or under BBN's fix), and the GVB. The
//! tables are [`crate::destination`]'s ([`crate::destination::Delivery`],
//! [`crate::destination::Replies`]) and [`crate::source::Allocations`]; single-packet messages
//! are `e2e/single.rs`'s. Each step changes the IMP's tables and pushes what the driver is to do
//! ([`Output`]): control messages to send, wake-ups, counts, the trace and the observer's
//! milestones, and the host interfaces to start.
//!
//! A reply goes to the source IMP the message's packets (or the REQALL) named in their header,
//! kept with it here ([`crate::destination::Reassembly::src`], [`HostOut::src`],
//! [`Reply`]): the destination reads no other table to address it.

use crate::destination::{Key, Next, Reply};
use crate::e2e::single::{self, BackgroundReply};
use crate::imp::{Effects, HostOut, Imp, Output, Resume, TimerId, Traced};
use crate::observe::{Counted, Milestone};
use crate::packet::{DataPacket, MsgId, PktKind, Stream, stream};
use crate::params::{FakeHostRfnm, Giveback, GvbNumber};
use nmc_sim::SimTime;

/// A reply made ahead of its turn (`reply_order = "number-1973"`): held in the IMP's
/// [`crate::destination::Turns`] until every earlier number of its stream has had its reply
/// (BBN 3050 p. 59 `RALLYG`), then made into the line of replies as it would have been
/// ([`Imp::reply_sent`]), a RFNM's 1 s wait for buffers starting then.
#[derive(Clone, Copy, Debug)]
pub(crate) enum HeldReply {
    /// A multipacket message's RFNM (point g), made at `made_ns`.
    Rfnm {
        /// The message.
        msg: MsgId,
        /// Its source IMP.
        src: u32,
        /// When it was made, in ns.
        made_ns: u64,
    },
    /// The ALL answering a REQALL from source IMP `src` (point d).
    All {
        /// The source IMP.
        src: u32,
    },
    /// The answer to a numbered GVB from source IMP `src` (p. 74 `GUDGVB`).
    GvbAnswer {
        /// The source IMP.
        src: u32,
    },
    /// A single-packet message's RFNM (RFC 632), the message as it went to its host.
    Single(HostOut),
}

impl Imp {
    /// K&O §II points d and f: a packet of a multipacket message reaches this, its destination
    /// IMP, into the 8 buffers its allocation reserved, and is reassembled with the others;
    /// once the last is in, the buffers the message did not fill (it had fewer than 8 packets)
    /// go back, complete messages go to their hosts in number order
    /// ([`Imp::hand_over_in_order`]), and the replies owed are served ([`Imp::serve_replies`]).
    pub(crate) fn message_packet_received(
        &mut self,
        now: SimTime,
        p: DataPacket,
        out: &mut impl Effects,
    ) {
        let DataPacket {
            stream,
            msg,
            num,
            of,
            src,
            host,
            bits,
        } = p;
        let (first, last) = self
            .delivery
            .packet((stream, num), (msg, src, host), of, bits);
        if first {
            let milestone = Milestone::FirstArrived;
            out.push(Output::Milestone { msg, milestone });
        }
        if last {
            let milestone = Milestone::Reassembled;
            out.push(Output::Milestone { msg, milestone });
            // Point f. Unfilled reserved buffers (a message of fewer than 8 packets) go back.
            let of = self.delivery.packets_of((stream, num)).unwrap_or(of);
            self.release_unfilled(of);
            out.push(Output::Trace(Traced::Reassembled { msg }));
            self.hand_over_in_order(stream, out);
            self.serve_replies(now, out);
        }
    }

    /// K&O §II point d: source IMP `src` sent a REQALL holding number `num` of `stream`. "This
    /// REQALL steals the acquired message number": no message carries it, so the sequence
    /// passes over it (messages waiting behind it go to their hosts), and an ALL is owed,
    /// served with the replies ([`Imp::serve_replies`]).
    pub(crate) fn reqall_received(
        &mut self,
        now: SimTime,
        (src, stream, num): (u32, Stream, u64),
        out: &mut impl Effects,
    ) {
        self.delivery.skip((stream, num));
        if self.turns.due((stream, num)) {
            self.replies.owe_all(stream, num, src);
        } else {
            self.turns.hold((stream, num), HeldReply::All { src });
        }
        self.hand_over_in_order(stream, out);
        self.serve_replies(now, out);
    }

    /// Number `num` of `stream` was answered by the driver outside (a mixed network,
    /// `model/boundary.rs`): it carries no message here ([`Imp::number_skipped`]), and this
    /// IMP's turn to reply passes over it.
    pub(crate) fn number_answered_outside(
        &mut self,
        now: SimTime,
        (stream, num): Key,
        out: &mut impl Effects,
    ) {
        self.number_skipped(stream, num, out);
        self.reply_sent(now, (stream, num), out);
    }

    /// Number `num` of `stream` will carry no message here (the IMP program's source used it
    /// for a message the driver outside answered, or a GVB, `model/boundary.rs`): skipped as
    /// a REQALL's, and the messages after it go on to their hosts.
    pub(crate) fn number_skipped(&mut self, stream: Stream, num: u64, out: &mut impl Effects) {
        self.delivery.skip((stream, num));
        self.hand_over_in_order(stream, out);
    }

    /// K&O §II point i, at the destination: a GVB gives back an allocation unused at its
    /// source; its 8 buffers are free, and the replies waiting for buffers are served.
    pub(crate) fn gvb_received(&mut self, now: SimTime, out: &mut impl Effects) {
        self.release_allocation();
        self.serve_replies(now, out);
    }

    /// K&O §II: messages of `stream` go to their hosts in the order of their numbers. Each
    /// complete message next in turn is queued, packet by packet ([`DestinationLimits::max_packet`]
    /// each, the last shorter), on the interface of the host its leader names; the driver
    /// starts each host's interface after ([`Output::HostOutput`]).
    ///
    /// [`DestinationLimits::max_packet`]: crate::imp::DestinationLimits::max_packet
    pub(crate) fn hand_over_in_order(&mut self, stream: Stream, out: &mut impl Effects) {
        let max = self.limits.destination.max_packet;
        while let Some((next, r)) = self.delivery.next_in_order(stream) {
            // The message's leader, carried in its packets, names the destination host.
            let host = r.host;
            let port = self.port(host);
            for index in 0..r.of {
                let bits = if index + 1 < r.of {
                    max
                } else {
                    r.bits - max * (r.of as u64 - 1)
                };
                port.queue.push_back(HostOut {
                    msg: r.msg,
                    src: r.src,
                    host,
                    stream,
                    num: next,
                    index,
                    of: r.of,
                    bits,
                });
            }
            out.push(Output::HostOutput { host });
        }
    }

    /// K&O §II point g: packet `o` has gone to its host at `now`. "After the transmission of
    /// the first packet to the HOST, the RFNM for this message is generated"; it waits for 8
    /// buffers to carry an ALL at most [`DestinationLimits::rfnm_all_wait`] (1 s), and a
    /// wake-up is asked for the end of that wait. (A single-packet message's RFNM is RFC 632's,
    /// [`Imp::single_handed_to_host`].)
    ///
    /// [`DestinationLimits::rfnm_all_wait`]: crate::imp::DestinationLimits::rfnm_all_wait
    ///
    /// To a fake host under [`FakeHostRfnm::AfterMessage`] (the 1973 program's background
    /// loop) the RFNM is made after the last packet instead.
    pub(crate) fn handed_to_host(&mut self, now: SimTime, o: &HostOut, out: &mut impl Effects) {
        let after = match self.limits.destination.fake_host_rfnm {
            FakeHostRfnm::AfterMessage if self.is_fake_host(o.host) => o.of - 1,
            _ => 0,
        };
        if o.index == after && o.of > 1 {
            let milestone = Milestone::RfnmMade;
            out.push(Output::Milestone {
                msg: o.msg,
                milestone,
            });
            if !self.turns.due((o.stream, o.num)) {
                let held = HeldReply::Rfnm {
                    msg: o.msg,
                    src: o.src,
                    made_ns: now.as_nanos(),
                };
                self.turns.hold((o.stream, o.num), held);
                return;
            }
            let d = self.make_rfnm(o.stream, o.msg, o.num, o.src, now);
            let timer = TimerId::RfnmWait {
                generation: d.generation,
            };
            out.push(Output::Timer { at: d.at, timer });
        }
    }

    /// `reply_order = "number-1973"`: the reply to number `key` has gone (or counts as gone),
    /// so the stream's turn moves on (BBN 3050 p. 59 `RALLYG` moves `AMESS`); the reply held
    /// for the next number joins the others as it would have when made: a RFNM's 1 s wait
    /// for buffers starts now (p. 52 `BALLTO`), a single-packet message's RFNM goes to the
    /// background. RFC 632's ALLOCATEs and the replies are served after ([`Resume::Turn`]).
    pub(crate) fn reply_sent(&mut self, now: SimTime, key: Key, out: &mut impl Effects) {
        if !self.turns.on() {
            return;
        }
        if let Some(((stream, num), held)) = self.turns.replied(key) {
            match held {
                HeldReply::Rfnm { msg, src, made_ns } => {
                    let wait = self.limits.destination.rfnm_all_wait;
                    let d =
                        self.replies
                            .make_rfnm_late((stream, msg, num, src), made_ns, now, wait);
                    let timer = TimerId::RfnmWait {
                        generation: d.generation,
                    };
                    out.push(Output::Timer { at: d.at, timer });
                }
                HeldReply::All { src } => self.replies.owe_all(stream, num, src),
                HeldReply::GvbAnswer { src } => self.replies.owe_gvb_answer(stream, num, src),
                HeldReply::Single(o) => {
                    self.single_reply(now, BackgroundReply::Rfnm(o), out);
                }
            }
        }
        out.push(Output::Resume(Resume::Turn));
    }

    /// Buffers came free here, or a reply is owed: RFC 632's ALLOCATEs whose turn has come go
    /// first (`e2e/single.rs`), then K&O §II's RFNMs and ALLs, each as buffers can be reserved
    /// for it.
    pub(crate) fn serve_replies(&mut self, now: SimTime, out: &mut impl Effects) {
        let ready = single::ready_requests(self);
        self.serve_single_requests(now, ready, out);
    }

    /// K&O §II points d and g, §VII: the replies owed go in order as 8 reassembly buffers can
    /// be reserved for each ("an allocation of these \[eight\] buffers"): the RFNM at the head with a
    /// piggy-backed ALL, an ALL answering a REQALL. Under BBN's fix ("avoid the piggy-backing of
    /// allocates on RFNM's as long as there are other replies to be sent",
    /// [`DestinationLimits::rfnm_piggyback`]) every RFNM with another reply queued goes at once
    /// without. One reply (or one batch of BBN's) goes per call; the rest follow through
    /// [`Resume::Replies`], once it has gone (it may come back into this IMP).
    ///
    /// [`DestinationLimits::rfnm_piggyback`]: crate::imp::DestinationLimits::rfnm_piggyback
    pub(crate) fn serve_reply_queue(&mut self, now: SimTime, out: &mut impl Effects) {
        if self.replies.is_empty() || !self.reply_gap_over(now, out) {
            return;
        }
        let r = match self.next_reply() {
            Next::Nothing => return,
            Next::WithoutAll(gone) => {
                // BBN's fix (K&O §VII): every RFNM with another reply queued goes now.
                for r in gone {
                    out.push(Output::Count(Counted::RfnmNotPiggybacked));
                    self.send_reply(now, r, false, out);
                }
                out.push(Output::Resume(Resume::Replies));
                return;
            }
            Next::Head(r) => r,
        };
        // A GVB's answer wants no buffers (p. 52: "no alloc necessary").
        if !matches!(r, Reply::GvbAnswer { .. }) && !self.reserve_allocation() {
            return;
        }
        self.replies.take_head();
        self.send_reply(now, r, true, out);
        out.push(Output::Resume(Resume::Replies));
    }

    /// `reply_gap_*`: whether the least time since the last reply left has passed; if not,
    /// a wake-up is asked for its end (once).
    fn reply_gap_over(&mut self, now: SimTime, out: &mut impl Effects) -> bool {
        let gap = self.costs().reply_gap;
        let Some(last) = self.last_reply_at.filter(|_| !gap.is_zero()) else {
            return true;
        };
        let at = last + gap;
        if now >= at {
            return true;
        }
        if self.reply_wake != Some(at) {
            self.reply_wake = Some(at);
            let timer = TimerId::ReplyGap;
            out.push(Output::Timer { at, timer });
        }
        false
    }

    /// K&O §II point g: the RFNM whose wait is named `generation` has waited its 1 s at `now`
    /// ([`TimerId::RfnmWait`]): "the RFNM is then sent without a piggy-backed ALL". Nothing if
    /// it has gone meanwhile.
    pub(crate) fn rfnm_wait_over(&mut self, now: SimTime, generation: u32, out: &mut impl Effects) {
        if let Some(r) = self.replies.wait_over(generation, now) {
            self.send_reply(now, r, false, out);
        }
    }

    /// K&O §II point i: the allocation from destination IMP `dst` whose give-back timer is
    /// named `generation` is still unused at `now` ([`TimerId::GiveBack`]): it "is returned to
    /// the destination IMP if some HOST attached to the source IMP does not make use of it
    /// within the next 250 ms" ([`SourceLimits::giveback_after`]), in a GVB, counted and traced.
    ///
    /// [`SourceLimits::giveback_after`]: crate::imp::SourceLimits::giveback_after
    pub(crate) fn allocation_unused(
        &mut self,
        now: SimTime,
        dst: u32,
        generation: u32,
        out: &mut impl Effects,
    ) {
        if self.allocs.give_back(dst, generation, now) {
            out.push(Output::Trace(Traced::AllPulled { to: dst }));
            Self::send_gvb(dst, 0, PktKind::Gvb, out);
        }
    }

    /// A fast tick of this IMP's clock, for the 1973 program's give-back rule
    /// (`giveback = "tally-1973"`, [`crate::source::Allocations::tally_tick`]): the oldest
    /// allocation held goes back with a GVB once the TALLY clock reaches its count. A numbered
    /// GVB asks for its number at once, or `gvb_mesget_*` after the tick's work (the
    /// background's `BACK2`, after the tick has restarted the hosts' input: BBN 3050 p. 163
    /// `JOBF`, p. 55 `B2B`–`B2C`).
    pub(crate) fn tally_tick(&mut self, now: SimTime, out: &mut impl Effects) {
        if self.limits.source.giveback != Giveback::Tally1973 {
            return;
        }
        let held = self.allocs.total_held();
        if held > 0 {
            out.push(Output::Trace(Traced::Tally { held }));
        }
        if let Some(dst) = self.allocs.tally_tick(self.limits.source.giveback_ticks) {
            out.push(Output::Trace(Traced::AllPulled { to: dst }));
            if self.limits.source.gvb_number != GvbNumber::Mesget1973 {
                Self::send_gvb(dst, 0, PktKind::Gvb, out);
                return;
            }
            let after = self.costs().gvb_mesget;
            if after.is_zero() {
                self.gvbs_waiting.push_back(dst);
                self.send_gvbs(out);
            } else {
                self.gvbs_pulled.push_back(dst);
                out.push(Output::Timer {
                    at: self.cpu.clock_done().max(now) + after,
                    timer: TimerId::GvbMesget,
                });
            }
        }
    }

    /// `gvb_mesget_*` after the tick that timed it out, the oldest give-back pulled asks for
    /// its message number, behind any still waiting for one (p. 55 `B2C`).
    pub(crate) fn gvb_asks_number(&mut self, out: &mut impl Effects) {
        if let Some(dst) = self.gvbs_pulled.pop_front() {
            self.gvbs_waiting.push_back(dst);
            self.send_gvbs(out);
        }
    }

    /// The GVBs waiting for a message number (`gvb_number = "mesget-1973"`) take one each, in
    /// turn, while their destination has one free (BBN 3050 p. 55 `B2C`: `MESGET`, and sleep
    /// while it fails), and go.
    pub(crate) fn send_gvbs(&mut self, out: &mut impl Effects) {
        let limit = self.limits.source.message_numbers;
        while let Some(&dst) = self.gvbs_waiting.front() {
            let s = stream(self.id, dst);
            let Some(num) = self.numbers.take(s, limit) else {
                return;
            };
            self.gvbs_waiting.pop_front();
            Self::send_gvb(dst, s, PktKind::GvbNumbered { num }, out);
        }
    }

    /// At the destination: source IMP `src`'s GVB holding number `num` of `stream` (BBN 3050
    /// p. 74 `GUDGVB`): its allocation's buffers are free, the sequence passes over its number
    /// as over a REQALL's, and a RFNM marked incomplete answers it.
    pub(crate) fn numbered_gvb_received(
        &mut self,
        now: SimTime,
        (src, stream, num): (u32, Stream, u64),
        out: &mut impl Effects,
    ) {
        if !self.turns.on() {
            out.push(Output::Control {
                to: src,
                stream,
                kind: PktKind::GvbRfnm { num },
            });
        } else if self.turns.due((stream, num)) {
            // In line with the other replies (p. 52 `BACK0`: one at a time).
            self.replies.owe_gvb_answer(stream, num, src);
        } else {
            self.turns.hold((stream, num), HeldReply::GvbAnswer { src });
        }
        self.number_skipped(stream, num, out);
        self.gvb_received(now, out);
    }

    /// At the source: the answer to a numbered GVB gives its number of `stream` back (BBN
    /// 3050 p. 85 `GOTGVB`); the GVBs and messages waiting for one go on.
    pub(crate) fn gvb_answered(
        &mut self,
        (stream, num): (Stream, u64),
        from: u32,
        out: &mut impl Effects,
    ) {
        self.numbers.release(stream, num);
        self.served(from, out);
    }

    /// Gives an allocation from `dst` back: a GVB (`kind`, on `stream`), counted and traced.
    fn send_gvb(dst: u32, stream: Stream, kind: PktKind, out: &mut impl Effects) {
        out.push(Output::Count(Counted::Gvb));
        out.push(Output::Trace(Traced::Giveback { to: dst }));
        out.push(Output::Control {
            to: dst,
            stream,
            kind,
        });
    }

    /// Sends reply `r` at `now` to the source IMP it names: a RFNM (K&O §II point g), with a
    /// piggy-backed ALL when `all` (its 8 buffers reserved), noted with how long it waited here;
    /// or an ALL (point d).
    fn send_reply(&mut self, now: SimTime, r: Reply, all: bool, out: &mut impl Effects) {
        self.last_reply_at = Some(now);
        let key = r.key();
        match r {
            Reply::Rfnm {
                stream,
                msg,
                num,
                src,
                made_ns,
                ..
            } => {
                // How long it waited at the destination IMP since it was made.
                let waited_ns = now.as_nanos() - made_ns;
                let milestone = Milestone::RfnmSent { waited_ns };
                out.push(Output::Milestone { msg, milestone });
                out.push(Output::Trace(Traced::Rfnm {
                    msg,
                    all,
                    waited_ns,
                }));
                out.push(Output::Count(if all {
                    Counted::RfnmWithAll
                } else {
                    Counted::RfnmWithoutAll
                }));
                let kind = PktKind::Rfnm { msg, num, all };
                out.push(Output::Control {
                    to: src,
                    stream,
                    kind,
                });
            }
            Reply::All { stream, num, src } => {
                out.push(Output::Trace(Traced::AllSent { num, to: src }));
                let kind = PktKind::All { num };
                out.push(Output::Control {
                    to: src,
                    stream,
                    kind,
                });
            }
            Reply::GvbAnswer { stream, num, src } => {
                out.push(Output::Control {
                    to: src,
                    stream,
                    kind: PktKind::GvbRfnm { num },
                });
            }
        }
        self.reply_sent(now, key, out);
    }
}

#[cfg(test)]
mod tests {
    //! The destination's steps and replies on one IMP, in K&O §II's words. IMP D (this one,
    //! 0) receives messages of stream S→D from source IMP 5 (host 1 on D); it holds 40 buffers,
    //! 24 of them for reassembly, with the October 1974 profile's limits (8 buffers an
    //! allocation, a RFNM's 1 s wait, 250 ms before a GVB).
    use super::*;
    use crate::imp::Output::{Control, Count, HostOutput, Resume as Then, Timer, Trace};
    use crate::packet::{MsgId, stream};
    use crate::params::{ImpParams, Piggyback};
    use nmc_sim::SimDuration;

    const S: u32 = 5;

    fn imp() -> Imp {
        super::super::testing::imp(&ImpParams::v2_1974_10(), 24)
    }

    fn ms(m: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(m)
    }

    fn d() -> Stream {
        stream(S, 0)
    }

    /// Packet `index` of message `msg` (number `num`, `of` packets of 1008 bits, the last 500).
    fn packet(msg: MsgId, num: u64, index: u8, of: u8) -> DataPacket {
        DataPacket {
            stream: d(),
            msg,
            num,
            of,
            src: S,
            host: 1,
            bits: if index + 1 == of { 500 } else { 1008 },
        }
    }

    fn milestone(msg: MsgId, milestone: Milestone) -> Output {
        Output::Milestone { msg, milestone }
    }

    fn rfnm(msg: MsgId, num: u64, all: bool) -> Output {
        Control {
            to: S,
            stream: d(),
            kind: PktKind::Rfnm { msg, num, all },
        }
    }

    /// Message `msg` (number `num`, `of` packets) arrives whole into an allocation of 8 buffers
    /// reserved for it; returns its packets as the host interface takes them.
    fn arrives(x: &mut Imp, msg: MsgId, num: u64, of: u8) -> Vec<HostOut> {
        x.reserve(8);
        let mut out = Vec::new();
        for i in 0..of {
            x.message_packet_received(ms(0), packet(msg, num, i, of), &mut out);
        }
        x.port(1).queue.drain(..).collect()
    }

    /// Point f: the destination IMP reassembles the message; the last packet in makes it whole,
    /// the buffers it did not fill go back, and it is queued for its host in packets of at most
    /// 1008 bits ("one 1008-bit packet").
    #[test]
    fn last_packet_in_reassembles_the_message_and_queues_it_for_the_host() {
        let mut x = imp();
        x.reserve(8);
        let mut out = Vec::new();
        x.message_packet_received(ms(0), packet(10, 0, 0, 3), &mut out);
        x.message_packet_received(ms(1), packet(10, 0, 1, 3), &mut out);
        assert_eq!(out, [milestone(10, Milestone::FirstArrived)]);
        assert_eq!(x.reasm_used, 8, "the allocation is still whole");
        out.clear();
        x.message_packet_received(ms(2), packet(10, 0, 2, 3), &mut out);
        let whole = [
            milestone(10, Milestone::Reassembled),
            Trace(Traced::Reassembled { msg: 10 }),
            HostOutput { host: 1 },
        ];
        assert_eq!(out, whole);
        assert_eq!(x.reasm_used, 3, "5 unfilled buffers went back");
        let bits: Vec<u64> = x.port(1).queue.iter().map(|o| o.bits).collect();
        assert_eq!(bits, [1008, 1008, 500]);
        assert!(x.port(1).queue.iter().all(|o| o.src == S && o.num == 0));
    }

    /// K&O §III: the host's interface takes one packet at a time; each, once across, gives
    /// its reassembly buffer back.
    #[test]
    fn the_host_interface_takes_one_packet_at_a_time_and_frees_its_buffer() {
        let mut x = imp();
        x.reserve(8);
        let mut out = Vec::new();
        for i in 0..2 {
            x.message_packet_received(ms(0), packet(10, 0, i, 2), &mut out);
        }
        assert_eq!(x.reasm_used, 2, "6 unfilled buffers went back");
        assert_eq!(x.host_output_start(1), Some(1008), "packet 1 starts");
        assert_eq!(x.host_output_start(1), None, "the interface is busy");
        let o = x.host_output_done(1);
        assert_eq!(
            (o.index, x.reasm_used),
            (0, 1),
            "packet 1 across, its buffer free"
        );
        assert_eq!(x.host_output_start(1), Some(500), "packet 2 starts");
        assert_eq!(x.host_output_done(1).index, 1);
        assert_eq!(
            (x.reasm_used, x.host_output_start(1)),
            (0, None),
            "nothing waits"
        );
    }

    /// Messages go to the destination host in the order of their numbers: a message whole
    /// before its predecessor waits; a REQALL's number ("this REQALL
    /// steals the acquired message number") is passed over, and its ALL goes back to the
    /// source IMP once 8 buffers are reserved for it.
    #[test]
    fn a_message_waits_for_its_predecessor_and_a_reqalls_number_is_passed_over() {
        let mut x = imp();
        assert!(
            arrives(&mut x, 11, 1, 2).is_empty(),
            "number 0 is not in yet"
        );
        let mut out = Vec::new();
        x.reqall_received(ms(50), (S, d(), 0), &mut out);
        let handed_then_all = [
            HostOutput { host: 1 },
            Trace(Traced::AllSent { num: 0, to: S }),
            Control {
                to: S,
                stream: d(),
                kind: PktKind::All { num: 0 },
            },
            Then(Resume::Replies),
        ];
        assert_eq!(out, handed_then_all);
        let nums: Vec<u64> = x.port(1).queue.iter().map(|o| o.num).collect();
        assert_eq!(nums, [1, 1], "number 1, both packets");
        assert_eq!(
            x.reasm_used,
            2 + 8,
            "message 1's packets and the ALL's buffers"
        );
    }

    /// The control messages among `out`, in order.
    fn controls(out: &[Output]) -> Vec<PktKind> {
        out.iter()
            .filter_map(|o| match o {
                Control { kind, .. } => Some(*kind),
                _ => None,
            })
            .collect()
    }

    /// BBN 3050 p. 59 `RALLYG` (`reply_order = "number-1973"`): replies to a source IMP go in
    /// its number order. A REQALL holding number 1 and a GVB holding number 2 arrive while
    /// message 0 is on its way: neither is answered until message 0's RFNM has gone; then the
    /// ALL, then the GVB's answer, each in its turn. Under `"made"` the ALL goes at once.
    #[test]
    fn under_number_order_replies_wait_for_the_reply_to_every_earlier_number() {
        let all_at_once = {
            let mut x = imp();
            let mut out = Vec::new();
            x.reqall_received(ms(0), (S, d(), 1), &mut out);
            controls(&out)
        };
        assert_eq!(all_at_once, [PktKind::All { num: 1 }], "made order");
        let mut p = ImpParams::v2_1974_10();
        p.reply_order = crate::params::ReplyOrder::Number1973;
        let mut x = super::super::testing::imp(&p, 24);
        // The allocation the GVB gives back.
        x.reserve(8);
        let mut out = Vec::new();
        x.reqall_received(ms(0), (S, d(), 1), &mut out);
        x.numbered_gvb_received(ms(1), (S, d(), 2), &mut out);
        assert_eq!(controls(&out), [], "numbers 1 and 2 wait for 0");
        assert!(!x.idle());
        let packets = arrives(&mut x, 10, 0, 2);
        out.clear();
        x.handed_to_host(ms(40), &packets[0], &mut out);
        x.serve_replies(ms(40), &mut out);
        let rfnm = PktKind::Rfnm {
            msg: 10,
            num: 0,
            all: true,
        };
        assert_eq!(controls(&out), [rfnm], "the RFNM first, alone");
        assert!(out.contains(&Then(Resume::Turn)));
        for _ in 0..2 {
            x.resume(ms(40), Resume::Turn, &crate::imp::Nowhere, &mut out);
        }
        let in_turn = [rfnm, PktKind::All { num: 1 }, PktKind::GvbRfnm { num: 2 }];
        assert_eq!(controls(&out), in_turn);
        assert!(x.turns.due((d(), 3)) && x.turns.idle());
    }

    /// BBN 3050 p. 52 `BACK0` makes one reply a background pass (`reply_gap_516`, here 4.5 ms):
    /// two ALLs owed at once leave 4.5 ms apart, the second at the wake-up asked for; with no
    /// gap (every profile) both go at once.
    #[test]
    fn a_reply_gap_spaces_the_replies_one_background_pass_apart() {
        let gap = SimDuration::from_micros(4_500);
        let sent = |p: &ImpParams| {
            let mut x = super::super::testing::imp(p, 24);
            let mut out = Vec::new();
            x.reqall_received(ms(0), (S, d(), 0), &mut out);
            x.reqall_received(ms(0), (S, d(), 1), &mut out);
            x.resume(ms(0), Resume::Replies, &crate::imp::Nowhere, &mut out);
            (x, out)
        };
        let (_, out) = sent(&ImpParams::v2_1974_10());
        assert_eq!(controls(&out).len(), 2, "no gap: both at once");
        let mut p = ImpParams::v2_1974_10();
        p.reply_gap_516 = gap;
        let (mut x, mut out) = sent(&p);
        assert_eq!(controls(&out), [PktKind::All { num: 0 }]);
        let wake = Timer {
            at: ms(0) + gap,
            timer: TimerId::ReplyGap,
        };
        assert_eq!(out.iter().filter(|o| **o == wake).count(), 1, "one wake-up");
        out.clear();
        x.handle_timeout(
            ms(0) + gap,
            TimerId::ReplyGap,
            &crate::imp::Nowhere,
            &mut out,
        );
        assert_eq!(controls(&out), [PktKind::All { num: 1 }]);
    }

    /// A number the driver outside answered (a mixed network, `model/boundary.rs`) passes the
    /// turn on: the ALL for the number after it goes.
    #[test]
    fn a_number_answered_outside_passes_the_turn_on() {
        let mut p = ImpParams::v2_1974_10();
        p.reply_order = crate::params::ReplyOrder::Number1973;
        let mut x = super::super::testing::imp(&p, 24);
        let mut out = Vec::new();
        x.reqall_received(ms(0), (S, d(), 1), &mut out);
        assert_eq!(controls(&out), []);
        x.number_answered_outside(ms(1), (d(), 0), &mut out);
        x.resume(ms(1), Resume::Turn, &crate::imp::Nowhere, &mut out);
        assert_eq!(controls(&out), [PktKind::All { num: 1 }]);
    }

    /// Point g: "after the transmission of the first packet to the HOST, the RFNM for this
    /// message is generated"; it waits for 8 buffers "for at most 1 s", a wake-up asked for
    /// then. Nothing for the packets after the first.
    #[test]
    fn first_packet_to_the_host_makes_the_rfnm_and_its_1_s_wait() {
        let mut x = imp();
        let packets = arrives(&mut x, 10, 0, 2);
        let mut out = Vec::new();
        x.handed_to_host(ms(40), &packets[0], &mut out);
        let timer = TimerId::RfnmWait { generation: 0 };
        let made = [
            milestone(10, Milestone::RfnmMade),
            Timer {
                at: ms(1040),
                timer,
            },
        ];
        assert_eq!(out, made);
        out.clear();
        x.handed_to_host(ms(60), &packets[1], &mut out);
        assert_eq!(out, []);
        assert_eq!(x.replies.len(), 1);
    }

    /// BBN 3050 (pp. 45, 52, 155, 158): a fake host runs in the background loop ahead of back
    /// host 0, which builds the RFNM, and gives the loop up only when no word waits for it; so
    /// to a fake host the RFNM is made after the message's last packet, not its first. A real
    /// host's is not (the test above), nor is any under K&O's rule read for every host.
    #[test]
    fn to_a_fake_host_the_rfnm_is_made_after_the_last_packet() {
        let mut x = imp();
        x.fake_hosts = vec![1];
        let packets = arrives(&mut x, 10, 0, 2);
        let mut out = Vec::new();
        x.handed_to_host(ms(40), &packets[0], &mut out);
        assert_eq!(out, [], "nothing after the first packet");
        x.handed_to_host(ms(60), &packets[1], &mut out);
        let timer = TimerId::RfnmWait { generation: 0 };
        let made = [
            milestone(10, Milestone::RfnmMade),
            Timer {
                at: ms(1060),
                timer,
            },
        ];
        assert_eq!(out, made);

        let mut k_and_o = imp();
        k_and_o.fake_hosts = vec![1];
        k_and_o.limits.destination.fake_host_rfnm = FakeHostRfnm::AfterFirstPacket;
        let packets = arrives(&mut k_and_o, 10, 0, 2);
        let mut out = Vec::new();
        k_and_o.handed_to_host(ms(40), &packets[0], &mut out);
        assert_eq!(
            out.len(),
            2,
            "K&O's point g read for every host: after the first"
        );
    }

    /// Last packet in → message to the host → RFNM made → with 8 buffers free it goes at once
    /// with a piggy-backed ALL, to the source IMP its packets named, and the 8 buffers are
    /// reserved for that allocation; when the allocation comes back unused in a GVB they are
    /// free again.
    #[test]
    fn last_packet_in_then_rfnm_sent_with_its_all_and_the_allocation_given_back_frees_it() {
        let mut x = imp();
        let packets = arrives(&mut x, 10, 0, 2);
        x.release_reassembly(2); // both packets have gone to the host
        x.handed_to_host(ms(40), &packets[0], &mut Vec::new());
        let mut out = Vec::new();
        x.serve_replies(ms(40), &mut out);
        let sent = [
            milestone(10, Milestone::RfnmSent { waited_ns: 0 }),
            Trace(Traced::Rfnm {
                msg: 10,
                all: true,
                waited_ns: 0,
            }),
            Count(Counted::RfnmWithAll),
            rfnm(10, 0, true),
            Then(Resume::Replies),
        ];
        assert_eq!(out, sent);
        assert_eq!(x.reasm_used, 8, "the ALL's 8 buffers");
        out.clear();
        x.resume(ms(40), Resume::Replies, &crate::imp::Nowhere, &mut out);
        assert_eq!(out, [], "nothing more owed");
        // The RFNM's wait, woken after it went, finds nothing.
        let timer = TimerId::RfnmWait { generation: 0 };
        x.handle_timeout(ms(1040), timer, &crate::imp::Nowhere, &mut out);
        assert_eq!(out, []);
        // The source gives the allocation back unused (point i): its 8 buffers are free.
        x.gvb_received(ms(290), &mut out);
        assert_eq!(out, [], "no reply waits");
        assert!(x.idle());
    }

    /// Point g: "the RFNM will wait for at most 1 s for this buffer space": with fewer than 8
    /// buffers free it waits, holding up the replies behind it, and after 1 s "the RFNM is
    /// then sent without a piggy-backed ALL".
    #[test]
    fn a_rfnm_without_buffers_waits_1_s_then_goes_without_an_all() {
        let mut x = imp();
        let packets = arrives(&mut x, 10, 0, 2);
        x.reserve(16); // 26 of 24 + 2: no 8 free for reassembly
        x.handed_to_host(ms(40), &packets[0], &mut Vec::new());
        let mut out = Vec::new();
        x.serve_replies(ms(40), &mut out);
        assert_eq!(out, [], "no 8 buffers: it waits");
        let timer = TimerId::RfnmWait { generation: 0 };
        x.handle_timeout(ms(1040), timer, &crate::imp::Nowhere, &mut out);
        let without = [
            milestone(
                10,
                Milestone::RfnmSent {
                    waited_ns: 1_000_000_000,
                },
            ),
            Trace(Traced::Rfnm {
                msg: 10,
                all: false,
                waited_ns: 1_000_000_000,
            }),
            Count(Counted::RfnmWithoutAll),
            rfnm(10, 0, false),
        ];
        assert_eq!(out, without);
        assert!(x.replies.is_empty());
    }

    /// K&O §VII, BBN's fix: "avoid the piggy-backing of allocates on RFNM's as long as there
    /// are other replies to be sent": with an ALL owed behind it, the RFNM goes at once,
    /// without, counted; then the ALL, once it has gone, as 8 buffers can be reserved.
    #[test]
    fn under_bbns_fix_a_rfnm_with_another_reply_queued_goes_without() {
        let mut x = imp();
        x.limits.destination.rfnm_piggyback = Piggyback::NotWhileRepliesWait;
        let packets = arrives(&mut x, 10, 0, 2);
        x.handed_to_host(ms(40), &packets[0], &mut Vec::new());
        let mut out = Vec::new();
        x.reqall_received(ms(40), (S, d(), 1), &mut out);
        assert_eq!(out[0], Count(Counted::RfnmNotPiggybacked));
        assert_eq!(out[4], rfnm(10, 0, false));
        assert_eq!(out[5], Then(Resume::Replies));
        out.clear();
        x.resume(ms(40), Resume::Replies, &crate::imp::Nowhere, &mut out);
        let all = [
            Trace(Traced::AllSent { num: 1, to: S }),
            Control {
                to: S,
                stream: d(),
                kind: PktKind::All { num: 1 },
            },
            Then(Resume::Replies),
        ];
        assert_eq!(out, all);
    }

    /// BBN 3050 p. 55 (`BACK2`, `B2C`), `gvb_number = "mesget-1973"`: the oldest allocation
    /// goes back at the TALLY clock's sixth tick in a GVB holding the pair's next message
    /// number; while the pair's four are in use it waits, out of the table, and goes when a
    /// reply frees one. The destination skips the number and answers (p. 74 `GUDGVB`); the
    /// answer frees the number at the source (p. 85 `GOTGVB`).
    #[test]
    fn a_1973_gvb_holds_a_message_number_until_it_is_answered() {
        let mut p = crate::params::ImpParams::v2_1974_10();
        p.gvb_number = GvbNumber::Mesget1973;
        let mut x = super::super::testing::imp(&p, 24);
        let s3 = stream(0, 3);
        x.allocation_arrived(3, ms(0));
        let mut out = Vec::new();
        for _ in 0..6 {
            x.tally_tick(ms(0), &mut out);
        }
        let gvb = Control {
            to: 3,
            stream: s3,
            kind: PktKind::GvbNumbered { num: 0 },
        };
        assert_eq!(out.last(), Some(&gvb), "{out:?}");
        assert_eq!(x.numbers.in_use(s3), 1);
        for _ in 0..3 {
            x.numbers.take(s3, 4);
        }
        assert_eq!(x.numbers.in_use(s3), 4, "the pair's four numbers in use");
        x.allocation_arrived(3, ms(200));
        let mut out = Vec::new();
        for _ in 0..6 {
            x.tally_tick(ms(0), &mut out);
        }
        assert_eq!(x.allocs.held(3), 0, "out of the table");
        assert!(
            !out.iter().any(|o| matches!(o, Control { .. })),
            "no number, no GVB: {out:?}"
        );
        let mut out = Vec::new();
        x.gvb_answered((s3, 0), 3, &mut out);
        let second = Control {
            to: 3,
            stream: s3,
            kind: PktKind::GvbNumbered { num: 4 },
        };
        assert!(out.contains(&second), "the freed number: {out:?}");
        assert_eq!(x.numbers.in_use(s3), 4);
        // At the destination.
        let mut d = super::super::testing::imp(&p, 24);
        d.reserve(8); // the allocation the GVB gives back
        let mut out = Vec::new();
        d.numbered_gvb_received(ms(300), (7, stream(7, 0), 2), &mut out);
        let answer = Control {
            to: 7,
            stream: stream(7, 0),
            kind: PktKind::GvbRfnm { num: 2 },
        };
        assert_eq!(out.first(), Some(&answer), "{out:?}");
        assert!(d.delivery.knows((stream(7, 0), 2)), "its number skipped");
    }

    /// BBN 3050 p. 163 (`JOBF`: `HITC` before `TALLYB`), p. 55 (`BACK2`, `B2B`, `B2C`), with
    /// `gvb_mesget_*`: the give-back the tick times out asks for its number only that long
    /// after the tick's work, so a message that asks in between takes the last free number and
    /// the give-back waits for the next reply; at `0` it takes the number at the tick.
    #[test]
    fn a_1973_give_back_asks_its_number_after_the_tick_and_a_host_asking_first_has_it() {
        let mut p = crate::params::ImpParams::v2_1974_10();
        p.gvb_number = GvbNumber::Mesget1973;
        p.gvb_mesget_316 = SimDuration::from_micros(3_320);
        p.gvb_mesget_516 = SimDuration::from_micros(1_900);
        let mut x = super::super::testing::imp(&p, 24);
        let after = x.costs().gvb_mesget;
        assert!(!after.is_zero());
        let s3 = stream(0, 3);
        for _ in 0..3 {
            x.numbers.take(s3, 4);
        }
        x.allocation_arrived(3, ms(0));
        let mut out = Vec::new();
        let tick = ms(154);
        for _ in 0..6 {
            x.tally_tick(tick, &mut out);
        }
        assert_eq!(x.allocs.held(3), 0, "out of the table at the tick");
        assert!(
            !out.iter().any(|o| matches!(o, Control { .. })),
            "no GVB at the tick: {out:?}"
        );
        let wake = Output::Timer {
            at: x.cpu.clock_done().max(tick) + after,
            timer: TimerId::GvbMesget,
        };
        assert_eq!(out.last(), Some(&wake), "{out:?}");
        // The host's message, restarted by the tick, asks first and takes the last number.
        assert!(x.numbers.take(s3, 4).is_some());
        let mut out = Vec::new();
        x.gvb_asks_number(&mut out);
        assert!(
            !out.iter().any(|o| matches!(o, Control { .. })),
            "none free, the GVB waits: {out:?}"
        );
        assert_eq!(x.gvbs_waiting.len(), 1);
        let mut out = Vec::new();
        x.gvb_answered((s3, 0), 3, &mut out);
        assert!(
            out.iter().any(|o| matches!(
                o,
                Control {
                    kind: PktKind::GvbNumbered { .. },
                    ..
                }
            )),
            "a reply frees a number, the GVB goes: {out:?}"
        );
        // With no number asked in between, it takes one at its wake-up.
        let mut y = super::super::testing::imp(&p, 24);
        y.allocation_arrived(3, ms(0));
        let mut out = Vec::new();
        for _ in 0..6 {
            y.tally_tick(tick, &mut out);
        }
        let mut out = Vec::new();
        y.gvb_asks_number(&mut out);
        let gvb = Control {
            to: 3,
            stream: s3,
            kind: PktKind::GvbNumbered { num: 0 },
        };
        assert_eq!(out.last(), Some(&gvb), "{out:?}");
    }

    /// Point i, at the source: the allocation "is returned to the destination IMP if some HOST
    /// attached to the source IMP does not make use of it within the next 250 ms", in a GVB;
    /// an allocation used meanwhile is not given back.
    #[test]
    fn an_allocation_unused_for_250_ms_goes_back_in_a_gvb() {
        let mut x = imp();
        let g = x.allocation_arrived(3, ms(100));
        assert_eq!(g.at, ms(350));
        let timer = TimerId::GiveBack {
            dst: 3,
            generation: g.generation,
        };
        let mut out = Vec::new();
        x.handle_timeout(ms(350), timer, &crate::imp::Nowhere, &mut out);
        let gvb = [
            Trace(Traced::AllPulled { to: 3 }),
            Count(Counted::Gvb),
            Trace(Traced::Giveback { to: 3 }),
            Control {
                to: 3,
                stream: 0,
                kind: PktKind::Gvb,
            },
        ];
        assert_eq!(out, gvb);
        let g = x.allocation_arrived(3, ms(400));
        assert!(x.allocs.take(3), "used by a message");
        out.clear();
        let timer = TimerId::GiveBack {
            dst: 3,
            generation: g.generation,
        };
        x.handle_timeout(ms(650), timer, &crate::imp::Nowhere, &mut out);
        assert_eq!(out, [], "used: nothing goes back");
    }
}
