//! A destination IMP's end-to-end table as a sans-I/O core (K&O §II points d, f; RFC 632):
//! messages in reassembly, and their hand-over to the host in message-number order per stream.
//!
//! [`Delivery`] says which message is next; [`Replies`] holds the replies the IMP owes (RFNMs,
//! and ALLs answering REQALLs; in number order, GVB answers) until 8 buffers can be reserved
//! for them (none for a GVB answer), each RFNM with the deadline of its wait
//! ([`Replies::poll_at`]); [`Turns`] keeps each stream's turn to be replied to when replies go
//! in number order (`reply_order = "number-1973"`). None reads a clock (they take `now`), sends
//! or traces anything. Buffers and the host interfaces are the driver's (`model.rs`,
//! `model/single.rs`, `model/host.rs`); version 3's block steps (`e2e/control_blocks.rs`) make a
//! stream's sequence start afresh.

use crate::packet::{MsgId, Stream};
use crate::timer::Deadline;
use nmc_sim::{SimDuration, SimTime};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A reply the destination IMP owes: a RFNM (which waits at most 1 s for 8 reassembly buffers
/// to carry an ALL, then goes without), the ALL answering a REQALL (which waits for its 8), or,
/// in number order only, a numbered GVB's answer (which wants none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reply {
    /// The RFNM of a multipacket message (point g).
    Rfnm {
        /// The message's stream.
        stream: Stream,
        /// The message it answers.
        msg: MsgId,
        /// That message's number.
        num: u64,
        /// The source IMP, as the message's packets named it: where the RFNM goes.
        src: u32,
        /// The end of its wait for buffers, and the generation that names it.
        wait: Deadline,
        /// When it was made (K&O point g), in ns.
        made_ns: u64,
    },
    /// The ALL answering a REQALL (point d).
    All {
        /// The stream of the REQALL.
        stream: Stream,
        /// The message number the REQALL held.
        num: u64,
        /// The source IMP that sent the REQALL: where the ALL goes.
        src: u32,
    },
    /// The answer to a numbered GVB (BBN 3050 p. 74 `GUDGVB`), in line with the others under
    /// `reply_order = "number-1973"` only (p. 52 `BACK0` makes one reply at a time); it wants
    /// no buffers.
    GvbAnswer {
        /// The GVB's stream.
        stream: Stream,
        /// The number it held.
        num: u64,
        /// The source IMP that sent it: where the answer goes.
        src: u32,
    },
}

impl Reply {
    /// The stream and number it answers.
    pub(crate) fn key(&self) -> Key {
        match *self {
            Reply::Rfnm { stream, num, .. }
            | Reply::All { stream, num, .. }
            | Reply::GvbAnswer { stream, num, .. } => (stream, num),
        }
    }
}

/// A message being reassembled at its destination IMP.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reassembly {
    /// The message.
    pub(crate) msg: MsgId,
    /// The source IMP its packets' header names.
    pub(crate) src: u32,
    /// The destination host its leader names.
    pub(crate) host: u32,
    /// Packets in the message.
    pub(crate) of: u8,
    /// Packets received so far.
    pub(crate) received: u8,
    /// Data bits received so far.
    pub(crate) bits: u64,
}

/// A message number of a stream.
pub(crate) type Key = (Stream, u64);

/// Messages in reassembly or complete, and the next number each stream hands to its host.
/// A number a REQALL took is *skipped*: no message carries it (K&O §II).
#[derive(Clone, Debug, Default)]
pub(crate) struct Delivery {
    reassembly: BTreeMap<Key, Reassembly>,
    expected: BTreeMap<Stream, u64>,
    skipped: BTreeSet<Key>,
    complete: BTreeSet<Key>,
}

impl Delivery {
    /// A packet of message `msg` (number `key.1`, `of` packets, from source IMP `src` for
    /// `host`) arrives (point d). Returns whether it is the message's first packet and whether
    /// the message is now whole (point f). A packet may give more than the message's packets
    /// as `of` when it is not the last (the IMP program's packets name only the last,
    /// `LSTPKT`: so do those translated from it, `model/boundary.rs`): the message has the
    /// fewest any of its packets gave ([`Delivery::packets_of`]).
    pub(crate) fn packet(
        &mut self,
        key: Key,
        (msg, src, host): (MsgId, u32, u32),
        of: u8,
        bits: u64,
    ) -> (bool, bool) {
        let r = self.reassembly.entry(key).or_insert(Reassembly {
            msg,
            src,
            host,
            of,
            received: 0,
            bits: 0,
        });
        r.of = r.of.min(of);
        r.received += 1;
        r.bits += bits;
        let (first, last) = (r.received == 1, r.received == r.of);
        if last {
            self.complete.insert(key);
        }
        (first, last)
    }

    /// The packets of message `key`, as far as its packets have told.
    pub(crate) fn packets_of(&self, key: Key) -> Option<u8> {
        self.reassembly.get(&key).map(|r| r.of)
    }

    /// A single-packet message from source IMP `src` for `host` is accepted whole (RFC 632),
    /// in turn or to wait for its turn.
    pub(crate) fn single(&mut self, key: Key, (msg, src, host): (MsgId, u32, u32), bits: u64) {
        self.reassembly.insert(
            key,
            Reassembly {
                msg,
                src,
                host,
                of: 1,
                received: 1,
                bits,
            },
        );
        self.complete.insert(key);
    }

    /// A REQALL took number `key.1`: the sequence skips it.
    pub(crate) fn skip(&mut self, key: Key) {
        self.skipped.insert(key);
    }

    /// The next message of `stream` to hand to the host, if it is complete, taken out with its
    /// number; skipped numbers are passed over.
    pub(crate) fn next_in_order(&mut self, stream: Stream) -> Option<(u64, Reassembly)> {
        loop {
            let next = self.expected.entry(stream).or_default();
            let n = *next;
            if self.skipped.remove(&(stream, n)) {
                *next += 1;
                continue;
            }
            if !self.complete.remove(&(stream, n)) {
                return None;
            }
            *next += 1;
            let r = self
                .reassembly
                .remove(&(stream, n))
                .expect("a complete message is stored");
            return Some((n, r));
        }
    }

    /// The number `stream` hands to its host next.
    pub(crate) fn expected(&self, stream: Stream) -> u64 {
        self.expected.get(&stream).copied().unwrap_or(0)
    }

    /// Whether message `key` is complete and waits for its turn (or is being handed over).
    pub(crate) fn is_complete(&self, key: Key) -> bool {
        self.complete.contains(&key)
    }

    /// Whether anything is known here of number `key`: complete, in reassembly or skipped.
    pub(crate) fn knows(&self, key: Key) -> bool {
        self.complete.contains(&key)
            || self.reassembly.contains_key(&key)
            || self.skipped.contains(&key)
    }

    /// Complete messages stored ahead of their turn, in (stream, number) order.
    pub(crate) fn out_of_order(&self) -> impl Iterator<Item = Key> + '_ {
        self.complete
            .iter()
            .copied()
            .filter(|&(s, n)| n > self.expected(s))
    }

    /// RFC 632 fix B's victim: the stored single-packet message furthest from its turn.
    pub(crate) fn furthest_single(&self) -> Option<Key> {
        self.out_of_order()
            .filter(|k| self.reassembly.get(k).is_some_and(|r| r.of == 1))
            .max_by_key(|&(s, n)| (n - self.expected(s), s))
    }

    /// Deletes complete message `key` (fix B), returning what was stored.
    pub(crate) fn delete(&mut self, key: Key) -> Reassembly {
        self.complete.remove(&key);
        self.reassembly.remove(&key).expect("stored")
    }

    /// Whether message `msg` is in reassembly here.
    pub(crate) fn holds(&self, msg: MsgId) -> bool {
        self.reassembly.values().any(|r| r.msg == msg)
    }

    /// Forgets where `stream` was (its version 3 receive block is made or released).
    pub(crate) fn forget(&mut self, stream: Stream) {
        self.expected.remove(&stream);
    }

    /// Nothing in reassembly.
    pub(crate) fn idle(&self) -> bool {
        self.reassembly.is_empty()
    }
}

/// The replies a destination IMP owes, in the order they were made (K&O §II points d, g): a
/// RFNM waits for 8 free reassembly buffers so that it can carry a piggy-backed ALL, at most
/// `rfnm_all_wait` (1 s), then goes without; an ALL answering a REQALL waits for its 8 buffers
/// as long as it takes (a GVB's answer, in number order, wants none). Replies leave in order:
/// one that cannot have its buffers holds up those behind it. Each RFNM holds the deadline of its wait ([`Replies::poll_at`]); the driver
/// queues one wake-up for each, named by its generation ([`Replies::wait_over`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Replies {
    queue: VecDeque<Reply>,
    next_epoch: u32,
}

/// What [`Replies::next`] offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Nothing is owed.
    Nothing,
    /// The reply at the head, if 8 buffers can be reserved for it now (then
    /// [`Replies::take_head`]).
    Head(Reply),
    /// BBN's fix (K&O §VII): these RFNMs go at once without an ALL, because other replies
    /// were waiting; they have left the queue.
    WithoutAll(Vec<Reply>),
}

impl Replies {
    /// Point g: the RFNM of message `msg` (number `num` of `stream`, from source IMP `src`) is
    /// made at `now`; it waits for 8 buffers until `now + wait` (K&O §II: "the RFNM will wait
    /// for at most 1 s for this buffer space"). Returns the deadline of that wait, with the
    /// generation that names it ([`Replies::wait_over`]).
    pub(crate) fn make_rfnm(
        &mut self,
        stream: Stream,
        msg: MsgId,
        num: u64,
        src: u32,
        now: SimTime,
        wait: SimDuration,
    ) -> Deadline {
        self.make_rfnm_late((stream, msg, num, src), now.as_nanos(), now, wait)
    }

    /// Point g, a RFNM whose turn came late (`reply_order = "number-1973"`, [`Turns`]): made
    /// at `made_ns`, it joins the queue at `now` and waits for 8 buffers until `now + wait`
    /// (BBN 3050 p. 52 `B0`: `BALLTO`, the start of the 1 s, is set when the reply is taken).
    pub(crate) fn make_rfnm_late(
        &mut self,
        (stream, msg, num, src): (Stream, MsgId, u64, u32),
        made_ns: u64,
        now: SimTime,
        wait: SimDuration,
    ) -> Deadline {
        let d = Deadline {
            at: now + wait,
            generation: self.next_epoch,
        };
        self.next_epoch += 1;
        self.queue.push_back(Reply::Rfnm {
            stream,
            msg,
            num,
            src,
            wait: d,
            made_ns,
        });
        d
    }

    /// The earliest end of a RFNM's wait for buffers, among the RFNMs still owed.
    pub(crate) fn poll_at(&self) -> Option<SimTime> {
        self.queue
            .iter()
            .filter_map(|r| match r {
                Reply::Rfnm { wait, .. } => Some(wait.at),
                Reply::All { .. } | Reply::GvbAnswer { .. } => None,
            })
            .min()
    }

    /// The deadline of the wait named `generation`, if that RFNM is still owed.
    pub(crate) fn deadline(&self, generation: u32) -> Option<Deadline> {
        self.queue.iter().find_map(|r| match r {
            Reply::Rfnm { wait, .. } if wait.generation == generation => Some(*wait),
            _ => None,
        })
    }

    /// Point d: a REQALL of `stream` (its number `num`) from source IMP `src` is to be answered
    /// by an ALL.
    pub(crate) fn owe_all(&mut self, stream: Stream, num: u64, src: u32) {
        self.queue.push_back(Reply::All { stream, num, src });
    }

    /// A numbered GVB's answer whose turn has come (`reply_order = "number-1973"`).
    pub(crate) fn owe_gvb_answer(&mut self, stream: Stream, num: u64, src: u32) {
        self.queue.push_back(Reply::GvbAnswer { stream, num, src });
    }

    /// What may go now. With `fix` (BBN's fix, `rfnm_piggyback = "not-while-replies-wait"`),
    /// "avoid the piggy-backing of allocates on RFNM's as long as there are other replies to
    /// be sent" (K&O §VII): while more than one reply waits, every RFNM leaves without an ALL.
    pub(crate) fn next(&mut self, fix: bool) -> Next {
        let Some(&head) = self.queue.front() else {
            return Next::Nothing;
        };
        if fix && self.queue.len() > 1 {
            let mut gone = Vec::new();
            let mut k = 0;
            while k < self.queue.len() && self.queue.len() > 1 {
                if matches!(self.queue[k], Reply::Rfnm { .. }) {
                    gone.extend(self.queue.remove(k));
                } else {
                    k += 1;
                }
            }
            if !gone.is_empty() {
                return Next::WithoutAll(gone);
            }
        }
        Next::Head(head)
    }

    /// The head reply has its 8 buffers: it leaves the queue.
    pub(crate) fn take_head(&mut self) -> Option<Reply> {
        self.queue.pop_front()
    }

    /// A wake-up at `now` for the RFNM whose wait is named `generation`: if its wait has run
    /// out, "the RFNM is then sent without a piggy-backed ALL" (K&O §II) and leaves the queue.
    /// `None` if it has already gone, or (a wake-up before its deadline) still waits.
    pub(crate) fn wait_over(&mut self, generation: u32, now: SimTime) -> Option<Reply> {
        let pos = self
            .queue
            .iter()
            .position(|r| matches!(r, Reply::Rfnm { wait, .. } if wait.expired(generation, now)))?;
        self.queue.remove(pos)
    }

    /// The replies owed, oldest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Reply> {
        self.queue.iter()
    }

    /// Replies owed.
    pub(crate) fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no reply is owed.
    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

/// The destination's turn to reply, per stream (`reply_order = "number-1973"`): BBN 3050
/// p. 139, the `RALLY` table "runs in parallel with `AMESS`, the next message number for which a
/// reply should be returned", one slot for each of the four numbers; p. 59 `RALLYG` takes only
/// the slot of `AMESS`'s number and moves `AMESS` on, except for a 1-packet ALLOCATE (the
/// message's RFNM will fill that slot later). So every reply to a source IMP goes in its
/// message-number order: one made ahead of its turn is held here, `T` the IMP's record of it.
/// Off (`reply_order = "made"`), every number is in turn at once and nothing is held. The
/// program moves `AMESS` on when `RALLYG` takes a reply, the model when the reply is sent: the
/// same while replies leave one at a time, as `BACK0` makes them (p. 52). A reply for a number
/// already replied to, passed over, or with one held already (a duplicate: a REQALL or GVB
/// sent twice) is in turn at once, as under `made`. A held RFNM has no 1 s escape while it
/// waits for its turn: if an earlier number's ALL waits for 8 buffers, the RFNMs behind it
/// wait too, as `BACK0`, blocked on that ALL, held every reply in the program.
#[derive(Clone, Debug)]
pub(crate) struct Turns<T> {
    on: bool,
    next: BTreeMap<Stream, u64>,
    /// Numbers past the turn already replied to (by the driver outside, in a mixed network).
    done_ahead: BTreeSet<Key>,
    held: BTreeMap<Key, T>,
}

impl<T> Turns<T> {
    /// Replies in number order when `on`.
    pub(crate) fn new(on: bool) -> Self {
        Turns {
            on,
            next: BTreeMap::new(),
            done_ahead: BTreeSet::new(),
            held: BTreeMap::new(),
        }
    }

    /// Whether replies keep number order.
    pub(crate) fn on(&self) -> bool {
        self.on
    }

    /// Whether number `key` may have its reply sent now: every earlier number of its stream
    /// has had its reply (or `key` is a duplicate: see [`Turns`]).
    pub(crate) fn due(&self, key: Key) -> bool {
        !self.on
            || key.1 <= self.next.get(&key.0).copied().unwrap_or(0)
            || self.done_ahead.contains(&key)
            || self.held.contains_key(&key)
    }

    /// Holds reply `r` of number `key` until its turn ([`Turns::replied`]); one per number
    /// (a second is [`Turns::due`] at once).
    pub(crate) fn hold(&mut self, key: Key, r: T) {
        let before = self.held.insert(key, r);
        debug_assert!(before.is_none(), "a reply for {key:?} is held already");
    }

    /// The reply of number `key` has gone (or, a number this IMP will not answer, counts as
    /// gone): the turn moves on past it and every number already answered; the reply held for
    /// the next number, if any, is given back to be sent (its own [`Turns::replied`] moves the
    /// turn on again).
    pub(crate) fn replied(&mut self, key: Key) -> Option<(Key, T)> {
        if !self.on {
            return None;
        }
        let (stream, num) = key;
        let next = self.next.entry(stream).or_default();
        if num > *next {
            self.done_ahead.insert(key);
            return None;
        }
        if num < *next {
            return None;
        }
        *next += 1;
        while self.done_ahead.remove(&(stream, *next)) {
            *next += 1;
        }
        let k = (stream, *next);
        self.held.remove(&k).map(|r| (k, r))
    }

    /// The replies held, by stream and number.
    pub(crate) fn held(&self) -> impl Iterator<Item = (&Key, &T)> {
        self.held.iter()
    }

    /// Nothing held.
    pub(crate) fn idle(&self) -> bool {
        self.held.is_empty()
    }
}

/// A single-packet message not accepted, owed an ALLOCATE (RFC 632: "treated as a request for
/// the allocation of one reassembly buffer"): the message, and the source IMP its header named,
/// where the ALLOCATE goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Request {
    /// The message.
    pub(crate) msg: MsgId,
    /// Its source IMP.
    pub(crate) src: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAIR: Stream = 3;

    fn t(ms: u64) -> SimTime {
        SimTime::from_nanos(ms * 1_000_000)
    }

    /// K&O §II point g: "at most 1 s" (`rfnm_all_wait`).
    const WAIT: SimDuration = SimDuration::from_secs(1);

    /// K&O §II: messages reach the destination host in the order of their numbers, whatever
    /// order they are reassembled in.
    #[test]
    fn a_message_reassembled_early_waits_for_its_predecessor() {
        let mut d = Delivery::default();
        assert_eq!(d.packet((PAIR, 1), (11, 9, 0), 2, 1008), (true, false));
        assert_eq!(d.packet((PAIR, 1), (11, 9, 0), 2, 500), (false, true));
        assert!(d.next_in_order(PAIR).is_none(), "message 0 is not in yet");
        assert_eq!(d.out_of_order().collect::<Vec<_>>(), [(PAIR, 1)]);
        d.packet((PAIR, 0), (10, 9, 0), 1, 200);
        let (n, r) = d.next_in_order(PAIR).unwrap();
        assert_eq!((n, r.msg, r.bits), (0, 10, 200));
        let (n, r) = d.next_in_order(PAIR).unwrap();
        assert_eq!((n, r.msg, r.bits), (1, 11, 1508));
        assert!(d.next_in_order(PAIR).is_none() && d.idle());
        assert_eq!(d.expected(PAIR), 2);
    }

    /// K&O §II: "this REQALL steals the acquired message number": no message will carry it,
    /// and the sequence passes over it.
    #[test]
    fn a_number_a_reqall_took_is_passed_over() {
        let mut d = Delivery::default();
        d.skip((PAIR, 0));
        d.single((PAIR, 1), (21, 9, 0), 96);
        assert!(d.knows((PAIR, 0)) && d.knows((PAIR, 1)) && !d.knows((PAIR, 2)));
        assert_eq!(
            d.next_in_order(PAIR).map(|(n, r)| (n, r.msg)),
            Some((1, 21))
        );
    }

    /// RFC 632 fix B deletes the stored single-packet message furthest from its turn.
    #[test]
    fn fix_b_deletes_the_message_furthest_from_its_turn() {
        let mut d = Delivery::default();
        d.single((PAIR, 2), (32, 9, 0), 96);
        d.single((PAIR, 5), (35, 9, 0), 96);
        d.single((PAIR + 1, 1), (41, 9, 0), 96);
        assert_eq!(d.furthest_single(), Some((PAIR, 5)));
        assert_eq!(d.delete((PAIR, 5)).msg, 35);
        assert_eq!(d.furthest_single(), Some((PAIR, 2)));
        assert!(d.holds(32) && !d.holds(35));
    }

    fn rfnm(r: &Reply) -> MsgId {
        match r {
            Reply::Rfnm { msg, .. } => *msg,
            Reply::All { .. } | Reply::GvbAnswer { .. } => panic!("not a RFNM"),
        }
    }

    /// K&O §II point g: a RFNM "waits up to 1 s for 8 free buffers to carry a piggy-backed
    /// ALL, then goes without"; one that found its buffers is not sent again.
    #[test]
    fn a_rfnm_waits_for_buffers_then_goes_without() {
        let mut r = Replies::default();
        let e1 = r.make_rfnm(7, 100, 0, 9, t(0), WAIT);
        let e2 = r.make_rfnm(7, 101, 1, 9, t(5), WAIT);
        assert!(matches!(
            r.next(false),
            Next::Head(Reply::Rfnm { msg: 100, .. })
        ));
        // No 8 buffers for 1 s: the first RFNM goes without an ALL.
        assert_eq!(
            r.wait_over(e1.generation, e1.at).as_ref().map(rfnm),
            Some(100)
        );
        // The second finds its buffers: it leaves, and its timer later finds nothing.
        assert_eq!(r.take_head().as_ref().map(rfnm), Some(101));
        assert_eq!(r.wait_over(e2.generation, e2.at), None);
        assert!(r.is_empty());
    }

    /// K&O §II point g: "the RFNM will wait for at most 1 s for this buffer space. In case the
    /// necessary 8 reassembly buffers do not become available within this second, the RFNM is
    /// then sent without a piggy-backed ALL": made at t, its wait ends at t + 1 s and not before; the earliest
    /// wait owed is the one to wake for.
    #[test]
    fn the_rfnm_waits_up_to_1_s_for_8_free_buffers() {
        let mut r = Replies::default();
        assert_eq!(r.poll_at(), None, "nothing owed, nothing to wait for");
        let d = r.make_rfnm(7, 100, 0, 9, t(40), WAIT);
        assert_eq!(d.at, t(1_040));
        assert_eq!(r.poll_at(), Some(t(1_040)));
        r.owe_all(3, 4, 9);
        let d2 = r.make_rfnm(7, 101, 1, 9, t(300), WAIT);
        assert_eq!(
            r.poll_at(),
            Some(t(1_040)),
            "an ALL waits without a deadline"
        );
        assert_eq!(r.deadline(d2.generation), Some(d2));
        // Before its second is up the RFNM still waits for its buffers.
        assert_eq!(r.wait_over(d.generation, t(1_039)), None);
        assert_eq!(r.len(), 3);
        // At the deadline it goes without an ALL; the next deadline is the later RFNM's.
        assert_eq!(
            r.wait_over(d.generation, t(1_040)).as_ref().map(rfnm),
            Some(100)
        );
        assert_eq!(r.poll_at(), Some(t(1_300)));
        // One that leaves with its buffers (BBN's fix sends it at once) takes its deadline
        // with it: a later wake-up finds nothing.
        let Next::WithoutAll(gone) = r.next(true) else {
            panic!("the RFNM goes without an ALL while the ALL waits");
        };
        assert_eq!(gone.iter().map(rfnm).collect::<Vec<_>>(), [101]);
        assert_eq!(r.poll_at(), None);
        assert_eq!(r.wait_over(d2.generation, d2.at), None);
        assert_eq!(r.deadline(d2.generation), None);
    }

    /// Replies leave in order: an ALL owed for a REQALL that cannot have its 8 buffers holds up
    /// the RFNM made after it (the driver offers only the head).
    #[test]
    fn replies_leave_in_the_order_they_were_made() {
        let mut r = Replies::default();
        r.owe_all(3, 4, 9);
        r.make_rfnm(7, 100, 0, 9, t(0), WAIT);
        assert_eq!(
            r.next(false),
            Next::Head(Reply::All {
                stream: 3,
                num: 4,
                src: 9
            })
        );
        assert_eq!(r.len(), 2, "nothing leaves until the driver takes the head");
    }

    /// BBN 3050 p. 59 `RALLYG`: replies to a source IMP go in its number order. Number 1's
    /// reply made first waits for number 0's; number 0's going gives number 1's back, and a
    /// number answered outside ahead of the turn is passed over when the turn reaches it.
    #[test]
    fn a_reply_waits_for_the_reply_of_every_earlier_number() {
        let mut t = Turns::new(true);
        assert!(t.due((PAIR, 0)) && !t.due((PAIR, 1)));
        t.hold((PAIR, 1), "rfnm 1");
        assert_eq!(t.replied((PAIR, 3)), None, "3 is ahead");
        assert!(!t.idle());
        assert_eq!(t.replied((PAIR, 0)), Some(((PAIR, 1), "rfnm 1")));
        assert!(t.due((PAIR, 1)) && t.idle());
        // Number 1's reply goes; 2 is next, nothing held for it; 3 was answered already.
        assert_eq!(t.replied((PAIR, 1)), None);
        assert!(t.due((PAIR, 2)) && !t.due((PAIR, 4)));
        assert_eq!(t.replied((PAIR, 2)), None);
        assert!(t.due((PAIR, 4)), "3 passed over");
        // Another stream has its own turn; a stale number changes nothing.
        assert!(t.due((PAIR + 1, 0)));
        assert_eq!(t.replied((PAIR, 1)), None);
        assert!(t.due((PAIR, 4)) && !t.due((PAIR, 5)));
        // A duplicate (a number replied to already, or one with a reply held) is in turn.
        assert!(t.due((PAIR, 1)));
        t.hold((PAIR, 6), "all 6");
        assert!(t.due((PAIR, 6)) && !t.due((PAIR, 5)));
    }

    /// A RFNM whose turn came late (number order) waits its 1 s for buffers from then, and
    /// keeps when it was made (its wait at the destination is counted from there).
    #[test]
    fn a_rfnm_whose_turn_came_late_waits_1_s_from_then() {
        let mut r = Replies::default();
        let d = r.make_rfnm_late((7, 100, 2, 9), t(10).as_nanos(), t(300), WAIT);
        assert_eq!(d.at, t(1_300));
        assert_eq!(r.poll_at(), Some(t(1_300)));
        let made = t(10).as_nanos();
        assert!(
            matches!(r.take_head(), Some(Reply::Rfnm { made_ns, num: 2, .. }) if made_ns == made)
        );
    }

    /// `reply_order = "made"`: every number is in turn, and nothing is held.
    #[test]
    fn made_order_holds_nothing() {
        let mut t: Turns<()> = Turns::new(false);
        assert!(t.due((PAIR, 3)) && t.due((PAIR, 0)));
        assert_eq!(t.replied((PAIR, 3)), None);
        assert!(t.idle());
    }

    /// K&O §VII, BBN's fix: "avoid the piggy-backing of allocates on RFNM's as long as there
    /// are other replies to be sent": with the ALL and two RFNMs waiting, both RFNMs go at once
    /// without an ALL, and the ALL is left at the head.
    #[test]
    fn bbns_fix_sends_rfnms_without_alls_while_others_wait() {
        let mut r = Replies::default();
        r.make_rfnm(7, 100, 0, 9, t(0), WAIT);
        r.owe_all(3, 4, 9);
        r.make_rfnm(7, 101, 1, 9, t(0), WAIT);
        let Next::WithoutAll(gone) = r.next(true) else {
            panic!("RFNMs should go without ALLs");
        };
        assert_eq!(gone.iter().map(rfnm).collect::<Vec<_>>(), [100, 101]);
        assert_eq!(
            r.next(true),
            Next::Head(Reply::All {
                stream: 3,
                num: 4,
                src: 9
            })
        );
        // Alone, a RFNM waits for its ALL as before the fix.
        let mut alone = Replies::default();
        alone.make_rfnm(7, 102, 2, 9, t(0), WAIT);
        assert!(matches!(
            alone.next(true),
            Next::Head(Reply::Rfnm { msg: 102, .. })
        ));
    }
}
