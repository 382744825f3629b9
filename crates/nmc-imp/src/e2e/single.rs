//! Single-packet messages (RFC 632, Opderbeck, May 1974): what becomes of an arriving
//! single-packet message at its destination IMP, and when the ALLOCATE for one not accepted
//! may go; and the source IMP's side, which sends it, keeps its copy and sends that again.
//! Sans-I/O rules over the destination IMP's tables (`Imp::delivery`, `Imp::requests`,
//! `Imp::set_aside`, its reassembly buffers), and the IMP's steps that apply them: at the
//! destination [`Imp::single_received`], the ALLOCATEs served with the replies, the RFNM once
//! the host has the message; at the source [`Imp::launch_single`], [`Imp::single_rfnm_received`]
//! and [`Imp::single_all_received`]. Each pushes what the driver is to do ([`Output`]: RFC 632's
//! table lines, the trace, the counts, the control messages, the copy to send).
//!
//! * **At the source** a message that fits one packet takes a message number (the same 4 per
//!   IMP pair as every message) but no PLT entry and no REQALL, and leaves at once. Its buffer
//!   is kept as a copy "for which a RFNM has not yet been received" (p. 6); the copy goes again
//!   when an ALLOCATE calls it back (Table 1), and the RFNM frees it and the number.
//! * **In order** (its predecessor by number from the same source has been handed to the host):
//!   accepted into one reassembly buffer and queued for the host.
//! * **Out of order**, by [`SinglePacketRule`]:
//!   - `current` (events 1–11, Table 1): not accepted; "treated as a request for the allocation
//!     of one reassembly buffer and then discarded";
//!   - `fix-a` (Table 2): rejected like that only while a predecessor's buffer needs are unknown
//!     (nothing of it has arrived yet); otherwise the predecessors' buffers are set aside and the
//!     message is stored;
//!   - `fix-b` ("deferred rejection") and `accept-all`: stored while there is space. When an
//!     in-order message finds no space, `fix-b` deletes stored out-of-order messages to make room
//!     ("can be deleted later without the message being lost"); `accept-all` does not, and can
//!     lock up (RFC 626).
//! * **The ALLOCATE** for a message not accepted (under every rule) goes back "only after the
//!   RFNM for the previous message has been processed" (RFC 632 event 6) and when one reassembly
//!   buffer can be reserved for it ("when reassembly buffer space is available", p. 6). The
//!   buffer stays reserved until the copy arrives, which is then accepted.
//!
//! Choices the sources leave open: an in-order message that finds no reassembly buffer is
//! treated as a request too, under every rule; `fix-b`'s ALLOCATEs follow the same release rule
//! as `current`'s (after the predecessor's RFNM), so the copy it calls back arrives in order and
//! cannot be deleted again; `fix-b` deletes the stored message furthest from its turn first.

use crate::destination::{Key, Reply, Request};
use crate::imp::{Effects, HostOut, Imp, Output, Resume, TimerId, Traced};
use crate::observe::{Counted, Happened, Milestone, Note, Side, What};
use crate::packet::{MsgId, PktKind, Single, Stream};
use crate::params::{BackgroundLevel, SinglePacketRule};
use crate::source::MsgState;
use nmc_sim::{SimDuration, SimTime};

/// A reply waiting for the background ([`Imp::background_replies_due`]): when it is next
/// looked at, when it was due, the processor's busy time then
/// ([`crate::processor::Processor::busy_by`]), the background's time for it, and the reply.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingReply {
    pub(crate) at: SimTime,
    pub(crate) due: SimTime,
    pub(crate) busy: u128,
    pub(crate) wait: SimDuration,
    pub(crate) reply: BackgroundReply,
}

/// A single-packet message's reply that the destination's background is to make (the profile's
/// `single_rfnm_316`/`_516`): the 1973 program builds every reply at background level, in
/// message-number order (BBN 3050 pp. 52–53 `BACK0`, p. 59 `AMESS`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum BackgroundReply {
    /// The RFNM of the message gone to its host.
    Rfnm(HostOut),
    /// The ALLOCATE of one buffer for message `msg` (number `num`) from source IMP `src`.
    All {
        /// The message.
        msg: MsgId,
        /// Its number.
        num: u64,
        /// Its source IMP.
        src: u32,
        /// Its stream.
        stream: Stream,
    },
}

/// What the destination made of an arriving single-packet message (RFC 632 Table 2's notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Disposition {
    /// A second copy of a message already accepted, discarded.
    Duplicate,
    /// Not accepted: now a request for one reassembly buffer (an ALLOCATE to come).
    Rejected,
    /// Accepted in order: queued for the destination host.
    HostOutput,
    /// Accepted out of order: stored until its turn.
    Stored,
}

/// A stored out-of-order message that fix B deleted to make room; it is now a request for an
/// ALLOCATE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Deleted {
    /// Its stream and number.
    pub(crate) key: Key,
    /// The message.
    pub(crate) msg: MsgId,
    /// Its source IMP.
    pub(crate) src: u32,
}

/// Single-packet message `s` (`bits` long) of `stream` reaches destination `imp`: accepts it (reserving its buffer and storing it with [`crate::destination`]'s
/// delivery table), or turns it into a request for an ALLOCATE, under the IMP's rule
/// ([`crate::imp::DestinationLimits::single_packet_rule`]). Under fix B an
/// in-order message first deletes stored out-of-order ones until a buffer is free; those are
/// pushed onto `deleted`, in the order deleted.
pub(crate) fn arrive(
    imp: &mut Imp,
    stream: Stream,
    s: Single,
    bits: u64,
    deleted: &mut Vec<Deleted>,
) -> Disposition {
    let Single {
        msg,
        num,
        src,
        host,
    } = s;
    let rule = imp.limits.destination.single_packet_rule;
    let key = (stream, num);
    let expected = imp.delivery.expected(stream);
    let accept = if num < expected || imp.delivery.is_complete(key) {
        None // a second copy: cannot happen, copies go again only on an ALLOCATE
    } else if imp.set_aside.contains(&key) {
        Some(true) // its ALLOCATE reserved the buffer
    } else if num == expected {
        if rule == SinglePacketRule::FixB {
            make_room(imp, deleted);
        }
        Some(reserve_one(imp))
    } else {
        Some(match rule {
            SinglePacketRule::Current => false,
            SinglePacketRule::FixA => set_aside_for_predecessors(imp, stream, expected, num),
            SinglePacketRule::FixB | SinglePacketRule::AcceptAll => reserve_one(imp),
        })
    };
    match accept {
        None => Disposition::Duplicate,
        Some(true) => {
            imp.set_aside.remove(&key);
            imp.requests.remove(&key);
            imp.delivery.single(key, (msg, src, host), bits);
            if num == expected {
                Disposition::HostOutput
            } else {
                Disposition::Stored
            }
        }
        Some(false) => {
            // "treated as a request for the allocation of one reassembly buffer".
            imp.requests.insert(key, Request { msg, src });
            Disposition::Rejected
        }
    }
}

/// Reserves one reassembly buffer if there is one.
fn reserve_one(imp: &mut Imp) -> bool {
    let ok = imp.can_reserve(1);
    if ok {
        imp.reserve(1);
    }
    ok
}

/// Fix A: message `num` of `stream` is out of order (`expected` is next). If every
/// predecessor's buffer need is known, sets aside a buffer for each predecessor that was
/// refused and has none yet, reserves one for `num`, and says yes.
fn set_aside_for_predecessors(imp: &mut Imp, stream: Stream, expected: u64, num: u64) -> bool {
    let mut need = Vec::new();
    for k in expected..num {
        let key = (stream, k);
        let known = imp.delivery.knows(key)
            || imp.set_aside.contains(&key)
            || imp.requests.contains_key(&key);
        if !known {
            return false;
        }
        if imp.requests.contains_key(&key) && !imp.set_aside.contains(&key) {
            need.push(key);
        }
    }
    if !imp.can_reserve(need.len() as u32 + 1) {
        return false;
    }
    imp.reserve(need.len() as u32 + 1);
    imp.set_aside.extend(need);
    true
}

/// Fix B: until one reassembly buffer is free, deletes the stored out-of-order single-packet
/// message furthest from its turn; each becomes a request for an ALLOCATE.
fn make_room(imp: &mut Imp, deleted: &mut Vec<Deleted>) {
    while !imp.can_reserve(1) {
        let Some(key) = imp.delivery.furthest_single() else {
            return;
        };
        let r = imp.delivery.delete(key);
        imp.release_reassembly(1);
        let (msg, src) = (r.msg, r.src);
        imp.requests.insert(key, Request { msg, src });
        deleted.push(Deleted { key, msg, src });
    }
}

/// Has the destination finished with every message of `stream` before `num`: handed to the
/// host, and its RFNM processed (RFC 632 event 6)?
fn predecessors_done(imp: &Imp, stream: Stream, num: u64) -> bool {
    imp.turns.due((stream, num))
        && imp.delivery.expected(stream) >= num
        && !imp.output_pending_before(stream, num)
        && !imp
            .replies
            .iter()
            .any(|r| matches!(*r, Reply::Rfnm { stream: s, num: n, .. } if s == stream && n < num))
}

/// The requests whose ALLOCATE's turn has come (RFC 632 event 6), in stream and number order;
/// each may still wait for a buffer ([`grant`]).
pub(crate) fn ready_requests(imp: &Imp) -> Vec<(Key, Request)> {
    imp.requests
        .iter()
        .filter(|((s, n), _)| predecessors_done(imp, *s, *n))
        .map(|(k, r)| (*k, *r))
        .collect()
}

/// The ALLOCATE for request `key` may go: a buffer was set aside for it, or one is reserved
/// now (then set aside). The request is then served (removed); without a buffer it waits.
pub(crate) fn grant(imp: &mut Imp, key: Key) -> bool {
    if !imp.set_aside.contains(&key) {
        if !imp.can_reserve(1) {
            return false;
        }
        imp.reserve(1);
        imp.set_aside.insert(key);
    }
    imp.requests.remove(&key);
    true
}

impl Imp {
    /// RFC 632: single-packet message `s` (`bits` long) of `stream` reaches this, its
    /// destination IMP, at `now`. The rule in force decides ([`arrive`]): a duplicate is
    /// discarded, an in-order message accepted (and handed over with those stored behind it,
    /// [`Imp::hand_over_in_order`]), an out-of-order one stored or "treated as a request for the
    /// allocation of one reassembly buffer"; under fix B the messages deleted to make room are
    /// requests too. Each is recorded in RFC 632's table and traced, and the replies owed are
    /// served ([`Imp::serve_replies`]).
    pub(crate) fn single_received(
        &mut self,
        now: SimTime,
        stream: Stream,
        s: Single,
        bits: u64,
        out: &mut impl Effects,
    ) {
        let Single { msg, num, src, .. } = s;
        let mut deleted = Vec::new();
        let disposition = arrive(self, stream, s, bits, &mut deleted);
        let (side, what) = (Side::Destination, What::Msg);
        for d in deleted {
            out.push(Output::Count(Counted::SingleDeleted));
            out.push(Output::E2e {
                peer: d.src,
                side,
                what,
                num: d.key.1,
                event: Happened::Deleted,
                note: Note::None,
            });
            let (msg, num) = (d.msg, d.key.1);
            out.push(Output::Trace(Traced::SingleDeleted { msg, num }));
        }
        let note = Note::from(disposition);
        out.push(Output::E2e {
            peer: src,
            side,
            what,
            num,
            event: Happened::Arr,
            note,
        });
        out.push(Output::Trace(Traced::SingleIn {
            msg,
            num,
            disposition: note,
        }));
        match disposition {
            Disposition::Duplicate => out.push(Output::Count(Counted::SingleDuplicate)),
            Disposition::HostOutput | Disposition::Stored => self.hand_over_in_order(stream, out),
            Disposition::Rejected => out.push(Output::Count(Counted::SingleRejected)),
        }
        self.serve_replies(now, out);
    }

    /// RFC 632 event 6: the ALLOCATEs of `ready` ([`ready_requests`]), in turn, each once a
    /// buffer is set aside for it ([`grant`]), to the source IMP the message came from; one goes
    /// per call, the rest follow through [`Resume::SingleRequests`] once it has gone (it may come
    /// back into this IMP), and then K&O §II's replies ([`Imp::serve_reply_queue`]).
    pub(crate) fn serve_single_requests(
        &mut self,
        now: SimTime,
        ready: Vec<(Key, Request)>,
        out: &mut impl Effects,
    ) {
        let mut ready = ready.into_iter();
        while let Some((key, Request { msg, src })) = ready.next() {
            if !grant(self, key) {
                continue;
            }
            let (stream, num) = key;
            let all = BackgroundReply::All {
                msg,
                num,
                src,
                stream,
            };
            // Made by the background too, in turn behind the RFNMs before it (p. 59 `AMESS`:
            // replies go in message-number order); the next is served at once then.
            if self.single_reply(now, all, out) {
                out.push(Output::Resume(Resume::SingleRequests(ready.collect())));
                return;
            }
        }
        self.serve_reply_queue(now, out);
    }

    /// A single-packet message's `reply` is made now (`true`) or, with `single_rfnm_316`/`_516`,
    /// queued for the background, which makes it that much later ([`Imp::background_replies_due`]).
    pub(crate) fn single_reply(
        &mut self,
        now: SimTime,
        reply: BackgroundReply,
        out: &mut impl Effects,
    ) -> bool {
        let c = self.costs();
        // A real host's RFNM comes later than the discard host's (`single_rfnm_host_*`).
        let wait = match reply {
            BackgroundReply::Rfnm(o) if !self.is_fake_host(o.host) => c.single_rfnm_host,
            _ => c.single_rfnm,
        };
        if wait.is_zero() {
            self.single_reply_made(now, reply, out);
            return true;
        }
        let at = now + wait;
        self.background_replies.push_back(PendingReply {
            at,
            due: now,
            busy: self.cpu.busy_by(now),
            wait,
            reply,
        });
        out.push(Output::Timer {
            at,
            timer: TimerId::BackgroundReply,
        });
        false
    }

    /// A single-packet message's reply is made and sent: its RFNM (RFC 632: no ALLOCATE) or
    /// the ALLOCATE of one buffer (event 6).
    fn single_reply_made(&mut self, now: SimTime, reply: BackgroundReply, out: &mut impl Effects) {
        match reply {
            BackgroundReply::Rfnm(o) => self.single_rfnm_made(now, &o, out),
            BackgroundReply::All {
                msg,
                num,
                src,
                stream,
            } => {
                out.push(Output::E2e {
                    peer: src,
                    side: Side::Destination,
                    what: What::All,
                    num,
                    event: Happened::Sent,
                    note: Note::None,
                });
                out.push(Output::Trace(Traced::SingleAllSent { msg, num, to: src }));
                out.push(Output::Count(Counted::SingleAll));
                let kind = PktKind::SingleAll { msg, num };
                out.push(Output::Control {
                    to: src,
                    stream,
                    kind,
                });
            }
        }
    }

    /// RFC 632: the host has taken single-packet message `o` at `now`: its RFNM goes, without
    /// an ALLOCATE, to the source IMP the message came from — at once, or as the 1973 program
    /// made it, by its background loop `single_rfnm_316`/`_516` later (listing pp. 52–53
    /// `BACK0`, p. 155 `IH63`; a wake-up asked for, [`TimerId::BackgroundReply`]). (A
    /// multipacket message's RFNM is made after its first packet, [`Imp::handed_to_host`].)
    pub(crate) fn single_handed_to_host(
        &mut self,
        now: SimTime,
        o: &HostOut,
        out: &mut impl Effects,
    ) {
        if o.of != 1 {
            return;
        }
        if self.turns.due((o.stream, o.num)) {
            self.single_reply(now, BackgroundReply::Rfnm(*o), out);
        } else {
            let held = crate::e2e::replies::HeldReply::Single(*o);
            self.turns.hold((o.stream, o.num), held);
        }
    }

    /// The background's single-packet replies due by `now` are made, oldest first.
    pub(crate) fn background_replies_due(&mut self, now: SimTime, out: &mut impl Effects) {
        while let Some(&p) = self.background_replies.front()
            && p.at <= now
        {
            let wait = p.wait;
            if self.limits.background_level == BackgroundLevel::Idle1973 {
                // The background has had the processor only while the clock and the tasks
                // left it free: what they took since the reply was due puts it off.
                let busy = self.cpu.busy_by(now).saturating_sub(p.busy);
                let free = now.since(p.due).as_nanos().saturating_sub(busy as u64);
                if free < wait.as_nanos() {
                    // Its turn comes when the committed work is done, and then the rest.
                    let rest = SimDuration::from_nanos(wait.as_nanos() - free);
                    let at = self.cpu.free_at(now) + rest;
                    if let Some(front) = self.background_replies.front_mut() {
                        front.at = at;
                    }
                    out.push(Output::Timer {
                        at,
                        timer: TimerId::BackgroundReply,
                    });
                    return;
                }
            }
            self.background_replies.pop_front();
            self.single_reply_made(now, p.reply, out);
        }
    }

    /// Single-packet message `o`'s RFNM is made and sent.
    fn single_rfnm_made(&mut self, now: SimTime, o: &HostOut, out: &mut impl Effects) {
        out.push(Output::E2e {
            peer: o.src,
            side: Side::Destination,
            what: What::Rfnm,
            num: o.num,
            event: Happened::Sent,
            note: Note::None,
        });
        out.push(Output::Trace(Traced::Rfnm {
            msg: o.msg,
            all: false,
            waited_ns: 0,
        }));
        out.push(Output::Count(Counted::SingleRfnm));
        let kind = PktKind::SingleRfnm {
            msg: o.msg,
            num: o.num,
        };
        out.push(Output::Control {
            to: o.src,
            stream: o.stream,
            kind,
        });
        self.reply_sent(now, (o.stream, o.num), out);
    }
}

/// The source IMP's side of a single-packet message.
impl Imp {
    /// RFC 632: single-packet message `msg` has its number (K&O point b) and leaves now, with
    /// no PLT entry and no REQALL: it is launched (point e) and its packet sent, the buffer it
    /// holds kept as the copy "for which a RFNM has not yet been received" (p. 6). If the host
    /// has put it all in, the host is told it was taken.
    pub(crate) fn launch_single(&mut self, msg: MsgId, out: &mut impl Effects) {
        self.set_state(msg, MsgState::Launched, out);
        let m = &self.messages[&msg];
        let done_input = m.input == m.packets && !m.accepted;
        out.push(Output::Milestone {
            msg,
            milestone: Milestone::Launched,
        });
        out.push(Output::Trace(Traced::Launched { msg }));
        out.push(Output::SingleCopy { msg, again: false });
        if done_input {
            self.accept(msg, out);
        }
    }

    /// RFC 632 (Table 1, the RFNM at the source): the RFNM of single-packet message `msg`
    /// (number `num`, `stream`) comes back at `now` from destination IMP `from`. Its number
    /// and its copy's buffer (p. 6) are released, so the stream's next waiting message can
    /// have the number; the message is answered, and messages waiting for a number or a PLT
    /// entry and hosts waiting for a buffer go on.
    pub(crate) fn single_rfnm_received(
        &mut self,
        now: SimTime,
        stream: Stream,
        (msg, num): (MsgId, u64),
        from: u32,
        out: &mut impl Effects,
    ) {
        out.push(Output::E2e {
            peer: from,
            side: Side::Source,
            what: What::Rfnm,
            num,
            event: Happened::Arr,
            note: Note::None,
        });
        // A RFNM for a message already answered frees nothing: the number and the copy went
        // with the first. Seen once (ko-v3-throughput's quick run, seed 1, 5 Dec 2026): one
        // RFNM, made once at its destination, came in twice at its source 507 ms apart (how
        // the subnet carried it twice is not traced); it had released the pair's number a
        // second time. Counted, and dropped.
        if !self.messages.contains_key(&msg) {
            out.push(Output::Count(Counted::SingleRfnmDuplicate));
            return;
        }
        self.numbers.release(stream, num);
        self.release_copy();
        self.number_released(now, stream, out);
        let m = self.messages.remove(&msg).expect("held: looked up above");
        out.push(Output::SingleAnswered {
            msg,
            host: m.host,
            dst: m.dst,
        });
        out.push(Output::Resume(Resume::ServeWaiters));
        out.push(Output::WakeHosts);
    }

    /// RFC 632 events 6–9 (Table 1): the ALLOCATE for single-packet message `msg` (number
    /// `num`), which destination IMP `from` did not accept, reaches this IMP, its source: one
    /// reassembly buffer is reserved for it there, and the copy is sent again. (An ALLOCATE
    /// for a message already answered finds nothing to send.)
    pub(crate) fn single_all_received(
        &mut self,
        (msg, num): (MsgId, u64),
        from: u32,
        out: &mut impl Effects,
    ) {
        out.push(Output::E2e {
            peer: from,
            side: Side::Source,
            what: What::All,
            num,
            event: Happened::Arr,
            note: Note::None,
        });
        out.push(Output::Trace(Traced::AllIn { num }));
        if self.messages.contains_key(&msg) {
            out.push(Output::Milestone {
                msg,
                milestone: Milestone::Retransmitted,
            });
            out.push(Output::Count(Counted::SingleRetransmission));
            out.push(Output::SingleCopy { msg, again: true });
        }
    }
}

/// The note RFC 632's tables write beside a destination's `MSG arr`.
impl From<Disposition> for Note {
    fn from(d: Disposition) -> Self {
        match d {
            Disposition::Duplicate => Note::Duplicate,
            Disposition::Rejected => Note::Rejected,
            Disposition::HostOutput => Note::HostOutput,
            Disposition::Stored => Note::Stored,
        }
    }
}

#[cfg(test)]
mod tests {
    //! The rules on one destination IMP, in RFC 632's words. Messages of one stream; the
    //! destination holds `REASSEMBLY` reassembly buffers.
    use super::*;
    use crate::params::ImpParams;
    use SinglePacketRule::{AcceptAll, Current, FixA, FixB};
    use nmc_sim::SimDuration;

    const REASSEMBLY: u32 = 3;
    const STREAM: Stream = 7;

    fn dest() -> Imp {
        super::super::testing::imp(&ImpParams::v2_1974_10(), REASSEMBLY)
    }

    /// Single-packet message `num` from IMP 1's host 0 (its message id is its number).
    fn single(num: u64) -> Single {
        Single {
            msg: num,
            num,
            src: 1,
            host: 0,
        }
    }

    /// Message number `num` arrives; its message id is its number.
    fn arr(d: &mut Imp, rule: SinglePacketRule, num: u64) -> (Disposition, Vec<Deleted>) {
        let mut deleted = Vec::new();
        let s = Single {
            msg: num,
            num,
            src: 1,
            host: 0,
        };
        d.limits.destination.single_packet_rule = rule;
        let got = arrive(d, STREAM, s, 1000, &mut deleted);
        (got, deleted)
    }

    #[test]
    fn in_order_it_is_accepted_for_the_host_under_every_rule() {
        for rule in [Current, FixA, FixB, AcceptAll] {
            let mut d = dest();
            assert_eq!(arr(&mut d, rule, 0).0, Disposition::HostOutput, "{rule:?}");
            assert!(d.delivery.is_complete((STREAM, 0)));
        }
    }

    #[test]
    fn current_out_of_order_is_treated_as_a_request_and_discarded() {
        // RFC 632 Table 1: "treated as a request for the allocation of one reassembly buffer
        // and then discarded".
        let mut d = dest();
        assert_eq!(arr(&mut d, Current, 1).0, Disposition::Rejected);
        assert_eq!(
            d.requests.get(&(STREAM, 1)),
            Some(&Request { msg: 1, src: 1 })
        );
        assert!(!d.delivery.knows((STREAM, 1)));
        // Its ALLOCATE waits until message 0 has been handed to the host (event 6).
        assert!(ready_requests(&d).is_empty());
    }

    #[test]
    fn fix_a_rejects_while_a_predecessor_is_unknown_then_sets_aside_for_it() {
        let mut d = dest();
        // Nothing of 0 has arrived: 1's need for 0 is unknown, so 1 is refused.
        assert_eq!(arr(&mut d, FixA, 1).0, Disposition::Rejected);
        // 0 had been refused before (no buffer was free then): it is a request too.
        d.requests.insert((STREAM, 0), Request { msg: 0, src: 1 });
        // Now every predecessor of 2 is known: a buffer is set aside for 0 and for 1 (both
        // requests), and 2 is stored: three buffers.
        assert_eq!(arr(&mut d, FixA, 2).0, Disposition::Stored);
        assert!(d.set_aside.contains(&(STREAM, 0)) && d.set_aside.contains(&(STREAM, 1)));
        assert!(!d.can_reserve(1), "all three reassembly buffers are taken");
        // 0's ALLOCATE is due (nothing before it) and its buffer is already set aside.
        assert_eq!(
            ready_requests(&d),
            vec![((STREAM, 0), Request { msg: 0, src: 1 })]
        );
        assert!(grant(&mut d, (STREAM, 0)));
        assert!(!d.requests.contains_key(&(STREAM, 0)));
    }

    #[test]
    fn fix_b_deletes_the_stored_message_furthest_from_its_turn_for_an_in_order_one() {
        // "deferred rejection": out-of-order messages are stored while there is space ...
        let mut d = dest();
        for n in 1..=REASSEMBLY as u64 {
            assert_eq!(arr(&mut d, FixB, n).0, Disposition::Stored);
        }
        // ... and "can be deleted later without the message being lost".
        let (got, deleted) = arr(&mut d, FixB, 0);
        assert_eq!(got, Disposition::HostOutput);
        assert_eq!(
            deleted,
            vec![Deleted {
                key: (STREAM, REASSEMBLY as u64),
                msg: REASSEMBLY as u64,
                src: 1
            }]
        );
        assert!(d.requests.contains_key(&(STREAM, REASSEMBLY as u64)));
    }

    #[test]
    fn accept_all_refuses_the_in_order_message_when_out_of_order_ones_fill_reassembly() {
        // RFC 626's lockup: every buffer holds a message waiting for its predecessor, and the
        // predecessor finds none.
        let mut d = dest();
        for n in 1..=REASSEMBLY as u64 {
            assert_eq!(arr(&mut d, AcceptAll, n).0, Disposition::Stored);
        }
        let (got, deleted) = arr(&mut d, AcceptAll, 0);
        assert_eq!(got, Disposition::Rejected);
        assert!(deleted.is_empty());
        // Its ALLOCATE is due but no buffer can be reserved: it waits.
        assert_eq!(
            ready_requests(&d),
            vec![((STREAM, 0), Request { msg: 0, src: 1 })]
        );
        assert!(!grant(&mut d, (STREAM, 0)));
        assert!(d.requests.contains_key(&(STREAM, 0)));
    }

    /// The step at the destination IMP, as RFC 632 Table 1 writes it (rule `current`): message
    /// 1 arrives before 0 and is "treated as a request for the allocation of one reassembly
    /// buffer and then discarded"; 0 arrives and goes to the host; its RFNM goes without an
    /// allocation once the host has it (made by the background, `single_rfnm_516`), and only
    /// then ("after the RFNM for the previous message has been processed", event 6) the
    /// ALLOCATE for 1 goes to source IMP 1.
    #[test]
    fn out_of_order_is_a_request_whose_allocate_goes_after_the_predecessors_rfnm() {
        use crate::imp::Output::{Count, E2e, HostOutput, Trace};
        let mut d = dest();
        let t = SimTime::ZERO;
        let table = |what, num, event, note| E2e {
            peer: 1,
            side: Side::Destination,
            what,
            num,
            event,
            note,
        };
        let mut out = Vec::new();
        d.single_received(t, STREAM, single(1), 96, &mut out);
        let rejected = [
            table(What::Msg, 1, Happened::Arr, Note::Rejected),
            Trace(Traced::SingleIn {
                msg: 1,
                num: 1,
                disposition: Note::Rejected,
            }),
            Count(Counted::SingleRejected),
        ];
        assert_eq!(out, rejected);
        out.clear();
        d.single_received(t, STREAM, single(0), 96, &mut out);
        assert_eq!(out[0], table(What::Msg, 0, Happened::Arr, Note::HostOutput));
        assert_eq!(out[2..], [HostOutput { host: 0 }], "no ALLOCATE yet");
        // The host takes message 0: its RFNM goes, then the ALLOCATE for 1. On a 516 of the
        // 1974 profile the background makes the RFNM to a real host 2.34 ms later
        // (`single_rfnm_host_516`) and the ALLOCATE behind it (due 1.84 ms after its grant,
        // `single_rfnm_516`, but made in order).
        let o = d.port(0).queue.pop_front().expect("message 0 for the host");
        d.release_reassembly(1);
        out.clear();
        d.single_handed_to_host(t, &o, &mut out);
        let made = t + SimDuration::from_micros(2_340);
        let wake = |at| Output::Timer {
            at,
            timer: TimerId::BackgroundReply,
        };
        assert_eq!(out, [wake(made)], "the RFNM waits for the background");
        out.clear();
        d.serve_replies(t, &mut out);
        let all_due = t + SimDuration::from_micros(1_840);
        assert_eq!(out, [wake(all_due)], "so does the ALLOCATE");
        out.clear();
        d.background_replies_due(all_due, &mut out);
        assert!(out.is_empty(), "behind the RFNM, not before it");
        assert!(
            d.set_aside.contains(&(STREAM, 1)),
            "its buffer is set aside"
        );
        out.clear();
        d.background_replies_due(made, &mut out);
        let rfnm = PktKind::SingleRfnm { msg: 0, num: 0 };
        assert_eq!(out[0], table(What::Rfnm, 0, Happened::Sent, Note::None));
        assert_eq!(out[2..4], [Count(Counted::SingleRfnm), control(rfnm)]);
        let allocate = [
            table(What::All, 1, Happened::Sent, Note::None),
            Trace(Traced::SingleAllSent {
                msg: 1,
                num: 1,
                to: 1,
            }),
            Count(Counted::SingleAll),
            control(PktKind::SingleAll { msg: 1, num: 1 }),
        ];
        assert_eq!(out[4..], allocate);
        assert!(d.background_replies.is_empty());
    }

    /// The background runs below the clock and the tasks (`background_level = "idle-1973"`,
    /// the 1974 profile; BBN 3050 p. 11): a slow tick while a RFNM waits for the background
    /// puts the RFNM off by the tick's time; as a timer (`"timer"`) it is made on time.
    #[test]
    fn the_clock_puts_off_the_backgrounds_rfnm_by_its_own_time() {
        for (level, late) in [
            (BackgroundLevel::Idle1973, true),
            (BackgroundLevel::Timer, false),
        ] {
            let mut d = dest();
            d.limits.background_level = level;
            let t = SimTime::ZERO;
            let mut out = Vec::new();
            d.single_received(t, STREAM, single(0), 96, &mut out);
            let o = d.port(0).queue.pop_front().expect("message 0 for the host");
            out.clear();
            d.single_handed_to_host(t, &o, &mut out);
            // A real host's RFNM on a 516: `single_rfnm_host_516`.
            let made = t + SimDuration::from_micros(2_340);
            // The slow tick takes the processor 14.14 ms, 0.5 ms after the RFNM was due.
            let tick = SimDuration::from_micros(14_140);
            d.cpu.preempt(t + SimDuration::from_micros(500), tick);
            out.clear();
            d.background_replies_due(made, &mut out);
            let rfnm = control(PktKind::SingleRfnm { msg: 0, num: 0 });
            if !late {
                assert!(out.contains(&rfnm), "{level:?}: made on time");
                continue;
            }
            let later = made + tick;
            assert_eq!(
                out,
                [Output::Timer {
                    at: later,
                    timer: TimerId::BackgroundReply,
                }],
                "put off by the tick's time"
            );
            out.clear();
            d.background_replies_due(later, &mut out);
            assert!(
                out.contains(&rfnm),
                "made once the background has had its time"
            );
            assert!(d.background_replies.is_empty());
        }
    }

    /// With the replies made at once (`single_rfnm_* = 0`, the 1975 profiles) the RFNM goes
    /// when the host has the message, and the ALLOCATE it freed after it.
    #[test]
    fn at_once_the_rfnm_goes_with_the_host_and_the_allocate_after_it() {
        use crate::imp::Output::{Count, E2e, Resume as Then, Trace};
        let mut d = at_once(crate::params::ReplyOrder::Made);
        let t = SimTime::ZERO;
        let mut out = Vec::new();
        one_then_zero_to_the_host(&mut d, &mut out);
        let rfnm = PktKind::SingleRfnm { msg: 0, num: 0 };
        assert!(matches!(
            out[0],
            E2e {
                what: What::Rfnm,
                num: 0,
                ..
            }
        ));
        assert_eq!(out[2..], [Count(Counted::SingleRfnm), control(rfnm)]);
        out.clear();
        d.serve_replies(t, &mut out);
        assert!(matches!(
            out[0],
            E2e {
                what: What::All,
                num: 1,
                ..
            }
        ));
        assert!(matches!(out[1], Trace(Traced::SingleAllSent { .. })));
        assert_eq!(
            out[2..],
            [
                Count(Counted::SingleAll),
                control(PktKind::SingleAll { msg: 1, num: 1 }),
                Then(Resume::SingleRequests(Vec::new())),
            ]
        );
    }

    /// Fix B's deletion at the destination IMP: the stored message furthest from its turn is
    /// deleted for the in-order one, recorded in RFC 632's table form (a deletion) and
    /// counted; it is now a request, its ALLOCATE to go to the source IMP it came from.
    #[test]
    fn fix_b_records_the_message_it_deletes() {
        use crate::imp::Output::{Count, E2e};
        let mut d = dest();
        d.limits.destination.single_packet_rule = FixB;
        let mut out = Vec::new();
        for num in (1..=REASSEMBLY as u64).chain([0]) {
            out.clear();
            let s = Single {
                msg: num,
                num,
                src: 1,
                host: 0,
            };
            d.single_received(SimTime::ZERO, STREAM, s, 96, &mut out);
        }
        let deleted = [
            Count(Counted::SingleDeleted),
            E2e {
                peer: 1,
                side: Side::Destination,
                what: What::Msg,
                num: 3,
                event: Happened::Deleted,
                note: Note::None,
            },
            Output::Trace(Traced::SingleDeleted { msg: 3, num: 3 }),
        ];
        assert_eq!(out[..3], deleted);
        assert_eq!(d.requests[&(STREAM, 3)], Request { msg: 3, src: 1 });
    }

    /// BBN 3050 p. 59 `RALLYG` (`reply_order = "number-1973"`): a 1-packet ALLOCATE takes its
    /// number's turn but does not pass it on ("do not bump message no"): the RFNM of the copy it
    /// calls back is that number's reply, and only it lets number 2's go.
    #[test]
    fn under_number_order_a_1_packet_allocate_keeps_the_turn_for_its_messages_rfnm() {
        let mut d = at_once(crate::params::ReplyOrder::Number1973);
        let t = SimTime::ZERO;
        let mut out = Vec::new();
        one_then_zero_to_the_host(&mut d, &mut out);
        d.resume(t, crate::imp::Resume::Turn, &crate::imp::Nowhere, &mut out);
        let sent: Vec<_> = out
            .iter()
            .filter(|o| matches!(o, Output::Control { .. }))
            .cloned()
            .collect();
        let rfnm = PktKind::SingleRfnm { msg: 0, num: 0 };
        let allocate = PktKind::SingleAll { msg: 1, num: 1 };
        assert_eq!(sent, [control(rfnm), control(allocate)]);
        assert!(
            d.turns.due((STREAM, 1)),
            "the ALLOCATE keeps number 1's turn"
        );
        // The copy comes back, is taken, and its RFNM passes the turn on.
        d.single_received(t, STREAM, single(1), 96, &mut out);
        let o = d.port(0).queue.pop_front().expect("message 1 for the host");
        d.release_reassembly(1);
        out.clear();
        d.single_handed_to_host(t, &o, &mut out);
        assert!(out.contains(&control(PktKind::SingleRfnm { msg: 1, num: 1 })));
        assert!(d.turns.due((STREAM, 2)) && d.turns.idle());
    }

    /// In number order an ALLOCATE waits for the replies to every earlier number, not only
    /// for its predecessors' RFNMs (RFC 632 event 6): with the ALL answering REQALL 0 waiting
    /// for 8 buffers the destination cannot have, message 1's RFNM and message 2's ALLOCATE
    /// wait too; under `made` both go.
    #[test]
    fn under_number_order_an_allocate_waits_for_an_earlier_numbers_all() {
        let sent = |order| {
            let mut d = at_once(order);
            let t = SimTime::ZERO;
            let mut out = Vec::new();
            d.reqall_received(t, (1, STREAM, 0), &mut out);
            d.single_received(t, STREAM, single(2), 96, &mut out);
            d.single_received(t, STREAM, single(1), 96, &mut out);
            let o = d.port(0).queue.pop_front().expect("message 1 for the host");
            d.release_reassembly(1);
            d.single_handed_to_host(t, &o, &mut out);
            d.serve_replies(t, &mut out);
            let kinds: Vec<PktKind> = out
                .iter()
                .filter_map(|o| match o {
                    Output::Control { kind, .. } => Some(*kind),
                    _ => None,
                })
                .collect();
            kinds
        };
        use crate::params::ReplyOrder::{Made, Number1973};
        let rfnm = PktKind::SingleRfnm { msg: 1, num: 1 };
        let allocate = PktKind::SingleAll { msg: 2, num: 2 };
        assert_eq!(sent(Made), [rfnm, allocate]);
        assert_eq!(sent(Number1973), [], "behind the ALL of number 0");
    }

    /// A destination whose background makes single-packet replies at once (so that the steps
    /// show alone), its replies in `order`.
    fn at_once(order: crate::params::ReplyOrder) -> Imp {
        let mut p = ImpParams::v2_1974_10();
        p.reply_order = order;
        (p.single_rfnm_516, p.single_rfnm_host_516) = (SimDuration::ZERO, SimDuration::ZERO);
        super::super::testing::imp(&p, REASSEMBLY)
    }

    /// Message 1 arrives before 0 (a request), 0 is accepted and the host takes it (its buffer
    /// back): `out` holds what the host's taking it pushed.
    fn one_then_zero_to_the_host(d: &mut Imp, out: &mut Vec<Output>) {
        let t = SimTime::ZERO;
        d.single_received(t, STREAM, single(1), 96, out);
        d.single_received(t, STREAM, single(0), 96, out);
        let o = d.port(0).queue.pop_front().expect("message 0 for the host");
        d.release_reassembly(1);
        out.clear();
        d.single_handed_to_host(t, &o, out);
    }

    /// A control message of `kind` on the test stream to source IMP 1.
    fn control(kind: PktKind) -> Output {
        Output::Control {
            to: 1,
            stream: STREAM,
            kind,
        }
    }
}

#[cfg(test)]
mod source_tests {
    //! The source IMP's side of RFC 632 on one IMP. IMP S (this one, 0) sends single-packet
    //! messages from host 0 to host 1 on IMP D (1), stream S→D, under the October 1974
    //! profile's 4 message numbers per IMP pair; each message's id is its number.
    use super::super::procedure::{Procedure, Step};
    use super::super::testing::want;
    use super::super::v2::V2;
    use super::*;
    use crate::imp::Output::{Count, E2e, SingleAnswered, SingleCopy, Trace};
    use crate::packet::stream;
    use crate::params::ImpParams;
    use crate::source::SourceMsg;

    const D: u32 = 1;

    fn s_to_d() -> Stream {
        stream(0, D)
    }

    fn imp() -> Imp {
        super::super::testing::imp(&ImpParams::v2_1974_10(), 10)
    }

    /// Host 0 has put single-packet message `msg` (96 bits) into S, which took a buffer for
    /// it, and it asks for a number (K&O point b): the number, if one is free.
    fn offered(s: &mut Imp, msg: MsgId) -> Option<u64> {
        s.take_source_buffer();
        let m = SourceMsg {
            host: 0,
            dst_host: 1,
            src: 0,
            dst: D,
            stream: s_to_d(),
            bits: 96,
            packets: 1,
            state: MsgState::NeedNumber,
            num: None,
            leader_num: None,
            input: 1,
            reqalls: 0,
            reqall_unacked: false,
            reqall_asleep: false,
            holds_all: false,
            reqall_decided: false,
            took_all: false,
            accepted: false,
        };
        s.messages.insert(msg, m);
        numbered(s, msg)
    }

    /// Message `msg` takes its step at point b; numbered, it goes on as the driver moves it.
    fn numbered(s: &mut Imp, msg: MsgId) -> Option<u64> {
        let state = s.messages[&msg].state;
        match V2.step(s, want(msg, state)) {
            Step::Numbered { num, then } => {
                let m = s.messages.get_mut(&msg).unwrap();
                (m.num, m.state) = (Some(num), then);
                Some(num)
            }
            Step::Wait => None,
            other => panic!("{other:?}"),
        }
    }

    /// Message `msg` leaving S, the first time or `again`.
    fn copy(msg: MsgId, again: bool) -> Output {
        SingleCopy { msg, again }
    }

    fn e2e(what: What, num: u64) -> Output {
        E2e {
            peer: D,
            side: Side::Source,
            what,
            num,
            event: Happened::Arr,
            note: Note::None,
        }
    }

    /// RFC 632: a single-packet message, numbered, leaves at once, with no PLT entry and no
    /// REQALL; its buffer stays held as the copy "for which a RFNM has not yet been received"
    /// (p. 6), and the host, which has put it all in, is told it was taken.
    #[test]
    fn numbered_it_leaves_at_once_with_no_plt_entry_and_no_reqall() {
        let mut s = imp();
        assert_eq!(offered(&mut s, 0), Some(0));
        let mut out = Vec::new();
        s.launch_single(0, &mut out);
        let launched = [
            Trace(Traced::State {
                msg: 0,
                from: MsgState::NeedPlt,
                to: MsgState::Launched,
            }),
            Output::Milestone {
                msg: 0,
                milestone: Milestone::Launched,
            },
            Trace(Traced::Launched { msg: 0 }),
            copy(0, false),
            Output::Accepted { host: 0, msg: 0 },
        ];
        assert_eq!(out, launched);
        assert_eq!(s.plt.used(), 0);
        assert_eq!(s.messages[&0].state, MsgState::Launched);
        assert_eq!(s.buf_used, 1, "the copy, kept until the RFNM");
    }

    /// RFNM in for a single-packet message → its number and its copy's buffer released → the
    /// message answered, and the message waiting for a number of the pair goes on: numbered,
    /// it is launched.
    #[test]
    fn rfnm_in_releases_the_number_and_the_copy_and_the_next_waiting_message_is_launched() {
        let mut s = imp();
        let mut out = Vec::new();
        for msg in 0..4 {
            assert_eq!(offered(&mut s, msg), Some(msg));
            s.launch_single(msg, &mut out);
        }
        // The pair's 4 numbers are in use: message 4 waits for one.
        assert_eq!(offered(&mut s, 4), None);
        assert_eq!(s.numbers.first_waiting(s_to_d()), Some(4));
        assert_eq!(s.buf_used, 5);

        out.clear();
        s.single_rfnm_received(SimTime::ZERO, s_to_d(), (0, 0), D, &mut out);
        let answered = [
            e2e(What::Rfnm, 0),
            SingleAnswered {
                msg: 0,
                host: 0,
                dst: D,
            },
            Output::Resume(Resume::ServeWaiters),
            Output::WakeHosts,
        ];
        assert_eq!(out, answered);
        assert_eq!(s.numbers.in_use(s_to_d()), 3);
        assert_eq!(s.buf_used, 4, "the copy's buffer is free");
        assert!(!s.messages.contains_key(&0));

        // The waiters served, once the answer is recorded: message 4 takes the number, and
        // leaves.
        out.clear();
        s.resume(
            SimTime::ZERO,
            Resume::ServeWaiters,
            &crate::imp::Nowhere,
            &mut out,
        );
        assert_eq!(s.messages[&4].num, Some(4));
        assert_eq!(s.messages[&4].state, MsgState::Launched);
        assert!(out.contains(&copy(4, false)));
    }

    /// RFC 632 events 6–9: an ALLOCATE in for a message the destination did not accept → its
    /// copy is sent again (counted, and the message's timeline marks it). After its RFNM, an
    /// ALLOCATE finds nothing to send.
    #[test]
    fn allocate_in_sends_the_copy_again_unless_the_message_is_answered() {
        let mut s = imp();
        let mut out = Vec::new();
        for msg in 0..2 {
            offered(&mut s, msg);
            s.launch_single(msg, &mut out);
        }
        out.clear();
        s.single_all_received((1, 1), D, &mut out);
        let again = [
            e2e(What::All, 1),
            Trace(Traced::AllIn { num: 1 }),
            Output::Milestone {
                msg: 1,
                milestone: Milestone::Retransmitted,
            },
            Count(Counted::SingleRetransmission),
            copy(1, true),
        ];
        assert_eq!(out, again);

        s.single_rfnm_received(SimTime::ZERO, s_to_d(), (1, 1), D, &mut out);
        out.clear();
        s.single_all_received((1, 1), D, &mut out);
        assert_eq!(out, [e2e(What::All, 1), Trace(Traced::AllIn { num: 1 })]);
    }
}
