//! A source IMP's end-to-end tables as sans-I/O cores (K&O §II points b, c, h, i; §VI for
//! version 3): its messages and where each is in the procedure ([`SourceMsg`], [`MsgState`]),
//! message numbers per stream ([`Numbers`]), entries of the pending leader table
//! ([`Plt`]), and allocations of reassembly space per destination IMP ([`Allocations`]).
//!
//! Each table says who gets what next and who waits, first come first served; none reads a
//! clock, sends anything or traces. [`Allocations`] holds the deadline of each give-back timer
//! (it takes `now`; [`Allocations::poll_at`]). The IMP's steps (`e2e/messages.rs`, after the
//! rules of `e2e/v2.rs` and `e2e/v3.rs`) move the messages and are the only callers; the driver
//! wakes the timers at their deadlines and sends the packets they push.

use crate::packet::{MsgId, Stream};
use crate::params::NumberOrder;
use crate::timer::Deadline;
use nmc_sim::{SimDuration, SimTime};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Bound;

/// Where a message is in the source IMP's procedure. Every change goes through `Imp::set_state`,
/// which traces it (`trace = true`: `{"event": "state", "from": ..., "to": ...}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum MsgState {
    /// Packet 1 is to go into the source IMP (point a): the message has taken nothing yet but,
    /// with `number_wait = "leader-mesget-1973"`, the number its leader took
    /// ([`SourceMsg::leader_num`]).
    InputFirst,
    /// Version 3: waiting for its transmit block (`e2e/v3.rs`).
    NeedBlock,
    /// Waiting for a message number (point b).
    NeedNumber,
    /// Version 3: holds its number, looks for an allocation.
    NeedAll,
    /// Holding its number (and, in version 3, its allocation): waiting for a PLT entry (point c).
    NeedPlt,
    /// A REQALL is out or decided for it (version 2: the REQALL took its number and PLT entry),
    /// or, in version 3, withheld behind one outstanding: it waits for the ALL.
    AwaitAll,
    /// Packet 1 has left with all it needs held (point e); the host puts the rest in.
    Launched,
}

/// A host message at its source IMP (K&O Fig. 1 points a–h), held in the IMP's table
/// (`Imp::messages`) from the moment its host offers it until its RFNM comes
/// back: its ends, its length and where it is in the procedure. What a run records of it
/// (its timeline) is the observer's, not the IMP's ([`crate::observe::Tracked`]).
#[derive(Clone, Debug)]
pub(crate) struct SourceMsg {
    /// The source host.
    pub(crate) host: u32,
    /// The destination host.
    pub(crate) dst_host: u32,
    #[allow(dead_code, reason = "written with the message; nothing reads it yet")]
    /// The source IMP (this one).
    pub(crate) src: u32,
    /// The destination IMP.
    pub(crate) dst: u32,
    /// Its sequence of message numbers: the IMP pair (version 2) or the host pair (version 3).
    pub(crate) stream: Stream,
    /// Its length, data bits.
    pub(crate) bits: u64,
    /// Packets it is cut into.
    pub(crate) packets: u8,
    /// Where it is in the source IMP's procedure.
    pub(crate) state: MsgState,
    /// The message number it holds, if any.
    pub(crate) num: Option<u64>,
    /// The number its leader took (`number_wait = "leader-mesget-1973"`, [`Imp::number_at_leader`]),
    /// until its packet 1 uses it.
    ///
    /// [`Imp::number_at_leader`]: crate::imp::Imp::number_at_leader
    pub(crate) leader_num: Option<u64>,
    /// Packets the host has put into the source IMP so far.
    pub(crate) input: u8,
    /// REQALLs sent for it.
    pub(crate) reqalls: u32,
    /// Its REQALL went the 1973 way and the next IMP has not acknowledged it yet: no ALL moves
    /// the message on until it has (`reqall_path = "host-packet-1973"`; BBN 3050 p. 130
    /// `HIPLT8`).
    pub(crate) reqall_unacked: bool,
    /// Its REQALL went the 1973 way and its host's input coroutine sleeps on it, looked at
    /// again only at the IMP's fast ticks (`reqall_wake = "fast-tick-1973"`; BBN 3050 p. 130
    /// `HIPLT6`, `HIPLT7`, p. 117 `HIWM`).
    pub(crate) reqall_asleep: bool,
    /// It took an ALL from the TALLY table while its request waited for the next IMP's
    /// acknowledgement (`reqall_claim = "at-all-1973"`): its allocation is in hand.
    pub(crate) holds_all: bool,
    /// Its packet 1 found no ALL when its input ended (`reqall_check = "at-input-1973"`): it
    /// asks (REQALL) when the task takes it, whatever the table holds by then.
    pub(crate) reqall_decided: bool,
    /// It took an unassigned ALL out of the TALLY table as it was numbered (point c), for the
    /// trace's `all-taken` ([`crate::imp::Traced::AllTaken`]).
    pub(crate) took_all: bool,
    /// Its last packet is in and the host has been told: it may offer the next message.
    pub(crate) accepted: bool,
}

/// A claim on a PLT entry in version 3 (K&O §VI: "message number, reassembly buffers, and PLT
/// entry", in that order; "the message number and the PLT entry are used to send a REQALL").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PltClaim {
    /// A message that holds its number and its allocation.
    Message(MsgId),
    /// A REQALL for the stream, to the destination IMP `dst`, decided for message `msg`.
    Reqall {
        /// The stream the REQALL is for.
        stream: Stream,
        /// The destination IMP it goes to.
        dst: u32,
        /// The message it was decided for.
        msg: MsgId,
    },
}

/// Message numbers (K&O §II point b): at most `limit` in use on each stream — 4 per
/// source-IMP/destination-IMP pair in version 2 (§III), 8 per host pair in version 3 (§VI) —
/// given out in order, one stream's waiting messages served in the order they asked.
#[derive(Clone, Debug, Default)]
pub(crate) struct Numbers {
    /// Give number n only once n − limit is answered (`message_number_order =
    /// "window-1973"`), rather than while fewer than `limit` are unanswered (`"pool"`).
    window: bool,
    /// The numbers given and not yet answered, per stream (those in use).
    unanswered: BTreeMap<Stream, BTreeSet<u64>>,
    next: BTreeMap<Stream, u64>,
    waiting: BTreeMap<Stream, Line>,
    /// The streams whose line is not empty: what serving the lines walks
    /// ([`Numbers::next_waiting`]), instead of every stream the IMP has used (issue 36).
    nonempty: BTreeSet<Stream>,
    /// Lines made so far: the next line's [`Line::made`].
    lines_made: u64,
}

/// One stream's messages waiting for a number, oldest first, and when the line was made.
#[derive(Clone, Debug)]
struct Line {
    /// Its place among the lines made ([`Numbers::lines_made`] when it was made).
    made: u64,
    msgs: VecDeque<MsgId>,
}

impl Numbers {
    /// Numbers given out as `order` says ([`NumberOrder`]).
    pub(crate) fn new(order: NumberOrder) -> Numbers {
        Numbers {
            window: order == NumberOrder::Window1973,
            ..Numbers::default()
        }
    }

    /// Whether `stream`'s next number may be given now: fewer than `limit` unanswered
    /// (`pool`), or the number `limit` before it answered (`window-1973`).
    pub(crate) fn next_free(&self, stream: Stream, limit: u32) -> bool {
        if self.window {
            let n = self.next.get(&stream).copied().unwrap_or(0);
            n.checked_sub(u64::from(limit)).is_none_or(|back| {
                !self
                    .unanswered
                    .get(&stream)
                    .is_some_and(|u| u.contains(&back))
            })
        } else {
            self.in_use(stream) < limit
        }
    }

    /// Message `mid` asks for a number on `stream`: it gets the next one if the stream may
    /// give it ([`Numbers::next_free`]) and no message asked before it; otherwise it waits in
    /// line (once).
    pub(crate) fn request(&mut self, stream: Stream, mid: MsgId, limit: u32) -> Option<u64> {
        let free = self.next_free(stream, limit);
        self.unanswered.entry(stream).or_default();
        let made = &mut self.lines_made;
        let waiters = &mut self
            .waiting
            .entry(stream)
            .or_insert_with(|| {
                *made += 1;
                Line {
                    made: *made - 1,
                    msgs: VecDeque::new(),
                }
            })
            .msgs;
        let first_in_line = waiters.front().is_none_or(|&w| w == mid);
        if free && first_in_line {
            if waiters.front() == Some(&mid) {
                waiters.pop_front();
                if waiters.is_empty() {
                    self.nonempty.remove(&stream);
                }
            }
            Some(self.next_number(stream))
        } else {
            if !waiters.contains(&mid) {
                waiters.push_back(mid);
                self.nonempty.insert(stream);
            }
            None
        }
    }

    /// A number for a version 3 REQALL (K&O §VI: "the message number and the PLT entry are used
    /// to send a REQALL") or a 1973 GVB (`gvb_number = "mesget-1973"`): the next one if the
    /// stream may give it ([`Numbers::next_free`]), past the line.
    pub(crate) fn take(&mut self, stream: Stream, limit: u32) -> Option<u64> {
        self.unanswered.entry(stream).or_default();
        if !self.next_free(stream, limit) {
            return None;
        }
        Some(self.next_number(stream))
    }

    /// The next number of `stream`, in order from 0, now unanswered.
    fn next_number(&mut self, stream: Stream) -> u64 {
        let next = self.next.entry(stream).or_default();
        let num = *next;
        *next += 1;
        self.unanswered.entry(stream).or_default().insert(num);
        num
    }

    /// Point h: the RFNM (or the ALL answering a REQALL, or a GVB's answer) gives number `num`
    /// of `stream` back.
    pub(crate) fn release(&mut self, stream: Stream, num: u64) {
        let in_use = self
            .unanswered
            .get_mut(&stream)
            .is_some_and(|u| u.remove(&num));
        assert!(in_use, "number {num} of stream {stream} was not in use");
    }

    /// Numbers of `stream` in use.
    pub(crate) fn in_use(&self, stream: Stream) -> u32 {
        self.unanswered.get(&stream).map_or(0, |u| u.len() as u32)
    }

    #[cfg(test)]
    /// The streams that have (or had) messages waiting, in order.
    pub(crate) fn waiting_streams(&self) -> Vec<Stream> {
        self.waiting.keys().copied().collect()
    }

    /// A mark for [`Numbers::next_waiting`]: the lines made before now.
    pub(crate) fn lines_mark(&self) -> u64 {
        self.lines_made
    }

    /// The first stream after `after` (from the first when `None`), in order, whose line was
    /// made before `mark` and holds a message now. Walking the lines this way, from a mark
    /// taken at the start, serves exactly the streams a walk of [`Numbers::waiting_streams`]
    /// taken then would find waiting at their turn (lines are made as the walk goes, by new
    /// messages, and not unmade: [`Numbers::forget`] runs on a timer, never within a walk).
    pub(crate) fn next_waiting(&self, after: Option<Stream>, mark: u64) -> Option<Stream> {
        let from = after.map_or(Bound::Unbounded, Bound::Excluded);
        self.nonempty
            .range((from, Bound::Unbounded))
            .find(|s| self.waiting.get(s).is_some_and(|l| l.made < mark))
            .copied()
    }

    /// The first message waiting for a number of `stream`.
    pub(crate) fn first_waiting(&self, stream: Stream) -> Option<MsgId> {
        self.waiting
            .get(&stream)
            .and_then(|v| v.msgs.front())
            .copied()
    }

    /// Nothing in use and nobody waiting on `stream`.
    pub(crate) fn unused(&self, stream: Stream) -> bool {
        self.in_use(stream) == 0 && self.waiting.get(&stream).is_none_or(|w| w.msgs.is_empty())
    }

    /// Forgets `stream` (its version 3 transmit block is released): numbering starts again.
    pub(crate) fn forget(&mut self, stream: Stream) {
        self.unanswered.remove(&stream);
        self.next.remove(&stream);
        self.waiting.remove(&stream);
        self.nonempty.remove(&stream);
    }

    /// No number in use on any stream.
    pub(crate) fn idle(&self) -> bool {
        self.unanswered.values().all(BTreeSet::is_empty)
    }

    /// Numbers in use per stream (for the lockup report).
    pub(crate) fn used(&self) -> BTreeMap<Stream, u32> {
        self.unanswered
            .iter()
            .map(|(&s, u)| (s, u.len() as u32))
            .collect()
    }
}

/// Entries of the pending leader table (K&O §II point c: 6 per source IMP), held from a
/// multi-packet message's launch (or a REQALL's sending) until its RFNM (or ALL) comes back.
/// In version 2 the messages that find none wait here in order; version 3 keeps its own queue
/// of claims (`imp::PltClaim`) and asks [`Plt::free`] first.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plt {
    used: u32,
    waiting: VecDeque<MsgId>,
}

impl Plt {
    /// Version 2: message `mid` asks for an entry; it gets one if fewer than `entries` are in
    /// use and no message asked before it; otherwise it waits in line (once).
    pub(crate) fn request(&mut self, mid: MsgId, entries: u32) -> bool {
        let first_in_line = self.waiting.front().is_none_or(|&w| w == mid);
        if self.used < entries && first_in_line {
            self.used += 1;
            if self.waiting.front() == Some(&mid) {
                self.waiting.pop_front();
            }
            true
        } else {
            if !self.waiting.contains(&mid) {
                self.waiting.push_back(mid);
            }
            false
        }
    }

    /// Whether an entry is free.
    pub(crate) fn free(&self, entries: u32) -> bool {
        self.used < entries
    }

    /// Takes an entry (version 3, after [`Plt::free`]).
    pub(crate) fn take(&mut self) {
        self.used += 1;
    }

    /// Point h: an entry comes back.
    pub(crate) fn release(&mut self) {
        self.used -= 1;
    }

    /// Entries in use.
    pub(crate) fn used(&self) -> u32 {
        self.used
    }

    /// The first message waiting for an entry (version 2).
    pub(crate) fn first_waiting(&self) -> Option<MsgId> {
        self.waiting.front().copied()
    }
}

/// Allocations of 8 reassembly buffers at each destination IMP (K&O §II): the ALLs the source
/// IMP holds unused, oldest first, each with the deadline of its give-back (GVB) timer and the
/// generation that names it, and the messages whose REQALL is out, oldest first.
#[derive(Clone, Debug, Default)]
pub(crate) struct Allocations {
    held: BTreeMap<u32, VecDeque<Deadline>>,
    next_generation: u32,
    awaiting: BTreeMap<u32, VecDeque<MsgId>>,
    /// The 1973 program's TALLY clock (`giveback = "tally-1973"`). Its table, every
    /// allocation held in the order it came, is `held` in generation order.
    tally_clock: u32,
}

impl Allocations {
    /// Uses an unassigned allocation for `dst` if one is at hand (its GVB timer will find it
    /// gone). Taking the oldest allocation of all sets the TALLY clock back to 0 (BBN 3050
    /// p. 136 `TALLYG`: "DID WE JUST GRAB THE OLDEST ALLOCA[TE]" → reset tally clock).
    pub(crate) fn take(&mut self, dst: u32) -> bool {
        let oldest = self.oldest();
        let Some(d) = self.held.entry(dst).or_default().pop_front() else {
            return false;
        };
        if oldest == Some((dst, d.generation)) {
            self.tally_clock = 0;
        }
        true
    }

    /// The allocation held longest, of all destinations (generations are given in order of
    /// arrival): the TALLY table's top entry.
    fn oldest(&self) -> Option<(u32, u32)> {
        self.held
            .iter()
            .filter_map(|(&dst, a)| a.front().map(|d| (dst, d.generation)))
            .min_by_key(|&(_, g)| g)
    }

    /// The 1973 program's give-back clock, at a fast tick (BBN 3050 p. 163 `TALLYB`, "BUMP
    /// TALLY CLOCK EVERY 25 MS", held at 1 while no allocation is held; p. 55 `BACK2`: when
    /// it reaches `ticks` the oldest allocation held goes back, "ALLOCATES TIME OUT IN 125 MS",
    /// and taking it sets the clock to 0). Returns the destination of the allocation to give
    /// back, if one is due.
    pub(crate) fn tally_tick(&mut self, ticks: u32) -> Option<u32> {
        let Some((dst, _)) = self.oldest() else {
            self.tally_clock = 1;
            return None;
        };
        self.tally_clock += 1;
        if self.tally_clock < ticks {
            return None;
        }
        self.tally_clock = 0;
        self.held.entry(dst).or_default().pop_front();
        Some(dst)
    }

    /// Message `mid` has asked `dst` for an allocation (its REQALL is out, or, version 3, it
    /// waits for one asked for by another).
    pub(crate) fn await_all(&mut self, dst: u32, mid: MsgId) {
        self.awaiting.entry(dst).or_default().push_back(mid);
    }

    /// An ALL from `dst` arrives at `now`, alone or on a RFNM (point h): the allocate counter
    /// goes up, and the allocation goes back if still unused `unused_for` later (point i: it is
    /// "returned to the destination IMP if some HOST attached to the source IMP does not make use
    /// of it within the next 250 ms"). Returns the deadline of its
    /// GVB timer, with the generation that names it ([`Allocations::give_back`]).
    pub(crate) fn add(&mut self, dst: u32, now: SimTime, unused_for: SimDuration) -> Deadline {
        let d = Deadline {
            at: now + unused_for,
            generation: self.next_generation,
        };
        self.next_generation += 1;
        self.held.entry(dst).or_default().push_back(d);
        d
    }

    /// The earliest deadline among the GVB timers of the allocations held unused.
    pub(crate) fn poll_at(&self) -> Option<SimTime> {
        self.held.values().flatten().map(|d| d.at).min()
    }

    /// The deadline of the GVB timer named `generation`, if that allocation for `dst` is
    /// still unused.
    pub(crate) fn deadline(&self, dst: u32, generation: u32) -> Option<Deadline> {
        self.held
            .get(&dst)?
            .iter()
            .find(|d| d.generation == generation)
            .copied()
    }

    /// The oldest message waiting for an allocation from `dst`, left in line.
    pub(crate) fn first_awaiting(&self, dst: u32) -> Option<MsgId> {
        self.awaiting.get(&dst).and_then(|v| v.front().copied())
    }

    /// The oldest message waiting for an allocation from `dst`, taken off the line.
    pub(crate) fn next_awaiting(&mut self, dst: u32) -> Option<MsgId> {
        self.awaiting.get_mut(&dst).and_then(|v| v.pop_front())
    }

    /// A wake-up at `now` of the GVB timer named `generation`: if that allocation is still
    /// unused and its timer has run out, it is given back (`true`). One used in the meantime,
    /// or a wake-up before the deadline, gives nothing back.
    pub(crate) fn give_back(&mut self, dst: u32, generation: u32, now: SimTime) -> bool {
        let held = self.held.entry(dst).or_default();
        match held.iter().position(|d| d.expired(generation, now)) {
            Some(pos) => {
                held.remove(pos);
                true
            }
            None => false,
        }
    }

    /// Unused allocations held, of every destination: the TALLY table's length.
    pub(crate) fn total_held(&self) -> u32 {
        self.held.values().map(|a| a.len() as u32).sum()
    }

    /// Unused allocations held for `dst`.
    pub(crate) fn held(&self, dst: u32) -> u32 {
        self.held.get(&dst).map_or(0, |a| a.len() as u32)
    }

    /// No unused allocation for any destination.
    pub(crate) fn idle(&self) -> bool {
        self.held.values().all(|a| a.is_empty())
    }

    /// Unused allocations per destination, each named by the generation of its GVB timer (for
    /// the lockup report).
    pub(crate) fn held_all(&self) -> BTreeMap<u32, VecDeque<u32>> {
        self.held
            .iter()
            .map(|(&dst, a)| (dst, a.iter().map(|d| d.generation).collect()))
            .collect()
    }
}

/// Version 3's claims on PLT entries, served first come first served (K&O §VI: "message
/// number, reassembly buffers, and PLT entry", in that order; "the message number and the PLT
/// entry are used to send a REQALL"), and the REQALLs outstanding to each destination IMP (K&O
/// §VII: "a REQALL is called superfluous if it is sent while a previous REQALL is still
/// outstanding").
#[derive(Clone, Debug, Default)]
pub(crate) struct PltClaims {
    queue: VecDeque<PltClaim>,
    /// REQALLs to each destination IMP decided and not yet answered by their ALL.
    out: BTreeMap<u32, u32>,
    /// PLT entries held by REQALLs sent and not yet answered.
    held_by_reqalls: u32,
}

impl PltClaims {
    /// Would a REQALL to `dst` now be superfluous (one decided earlier still unanswered)?
    pub(crate) fn superfluous(&mut self, dst: u32) -> bool {
        *self.out.entry(dst).or_default() > 0
    }

    /// A REQALL of `stream` to `dst` is decided for message `msg`: it waits for a PLT entry.
    pub(crate) fn reqall(&mut self, stream: Stream, dst: u32, msg: MsgId) {
        *self.out.entry(dst).or_default() += 1;
        self.queue.push_back(PltClaim::Reqall { stream, dst, msg });
    }

    /// Message `mid`, holding its number and allocation, waits for a PLT entry.
    pub(crate) fn message(&mut self, mid: MsgId) {
        if !self.queue.contains(&PltClaim::Message(mid)) {
            self.queue.push_back(PltClaim::Message(mid));
        }
    }

    /// The claim first in line.
    pub(crate) fn first(&self) -> Option<PltClaim> {
        self.queue.front().copied()
    }

    /// The claim first in line takes its PLT entry and leaves the line.
    pub(crate) fn take_first(&mut self) -> Option<PltClaim> {
        let c = self.queue.pop_front()?;
        if matches!(c, PltClaim::Reqall { .. }) {
            self.held_by_reqalls += 1;
        }
        Some(c)
    }

    /// The ALL answering a REQALL to `dst` is back: its PLT entry is free, it is answered.
    pub(crate) fn answered(&mut self, dst: u32) {
        self.held_by_reqalls -= 1;
        if let Some(n) = self.out.get_mut(&dst) {
            *n -= 1;
        }
    }

    /// REQALLs to `dst` decided and not yet answered.
    pub(crate) fn outstanding(&self, dst: u32) -> u32 {
        self.out.get(&dst).copied().unwrap_or(0)
    }

    /// REQALLs outstanding, by destination IMP (as last touched; for the no-leak report).
    pub(crate) fn outstanding_all(&self) -> &BTreeMap<u32, u32> {
        &self.out
    }

    /// Is message `msg`'s REQALL waiting for a PLT entry?
    pub(crate) fn reqall_waiting(&self, msg: MsgId) -> bool {
        self.queue
            .iter()
            .any(|c| matches!(c, PltClaim::Reqall { msg: m, .. } if *m == msg))
    }

    /// PLT entries held by REQALLs (the occupancy samples' `plt_reqalls`).
    pub(crate) fn held_by_reqalls(&self) -> u32 {
        self.held_by_reqalls
    }

    /// Claims in line.
    pub(crate) fn len(&self) -> usize {
        self.queue.len()
    }

    /// Nothing in line and no REQALL outstanding (for the no-leak check).
    pub(crate) fn idle(&self) -> bool {
        self.queue.is_empty() && self.out.values().all(|&n| n == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAIR: Stream = 7;

    fn t(ms: u64) -> SimTime {
        SimTime::from_nanos(ms * 1_000_000)
    }

    /// K&O §II point i: 250 ms (`giveback_after`).
    const GVB: SimDuration = SimDuration::from_millis(250);

    /// K&O §II–III: "there cannot be more than four messages in transmission between any pair
    /// of HOSTs due to the message number limitation"; the fifth waits for the RFNM of the first.
    #[test]
    fn a_fifth_message_waits_for_a_number_until_a_rfnm() {
        let mut n = Numbers::default();
        let got: Vec<_> = (1..=5).map(|m| n.request(PAIR, m, 4)).collect();
        assert_eq!(got, [Some(0), Some(1), Some(2), Some(3), None]);
        assert_eq!(n.first_waiting(PAIR), Some(5));
        n.release(PAIR, 0); // the RFNM of message 1
        assert_eq!(n.request(PAIR, 5, 4), Some(4));
        assert_eq!(n.first_waiting(PAIR), None);
        assert_eq!(n.in_use(PAIR), 4);
    }

    /// The 1973 program's window (BBN 3050 p. 137 `MESGET`): number n only once n − 4 is
    /// answered. A REQALL's number answered early by its ALL frees nothing while the number
    /// before it is out; the pool gives the next at once.
    #[test]
    fn in_the_1973_window_a_number_answered_early_frees_nothing_until_the_older_ones_are() {
        let four = |order| {
            let mut n = Numbers::new(order);
            // Message 1 has number 0; message 2's REQALL took 1; 3 and 4 have 2 and 3.
            let got: Vec<_> = (1..=4).map(|m| n.request(PAIR, m, 4)).collect();
            assert_eq!(got, [Some(0), Some(1), Some(2), Some(3)]);
            n.release(PAIR, 1); // the ALL answers the REQALL
            n
        };
        let mut pool = four(NumberOrder::Pool);
        assert_eq!(
            pool.request(PAIR, 2, 4),
            Some(4),
            "three out of four in use"
        );
        let mut w = four(NumberOrder::Window1973);
        assert_eq!(w.request(PAIR, 2, 4), None, "number 0 is still out");
        w.release(PAIR, 0); // the RFNM of message 1
        assert_eq!(w.request(PAIR, 2, 4), Some(4));
        // Number 5 needs 1, answered; number 6 needs 2, still out.
        assert_eq!(w.request(PAIR, 5, 4), Some(5));
        assert_eq!(w.request(PAIR, 6, 4), None);
        w.release(PAIR, 2);
        assert_eq!(w.request(PAIR, 6, 4), Some(6));
        assert_eq!(w.in_use(PAIR), 4);
    }

    /// Serving the lines walks the streams with a message waiting, in order, among those
    /// known when the walk began: a line made during the walk waits for the next one, and an
    /// empty line is passed by (it would have nothing to serve).
    #[test]
    fn the_walk_of_the_lines_finds_the_waiting_streams_known_at_its_start() {
        let mut n = Numbers::default();
        for s in [3, 1, 2] {
            n.request(s, 10 * s, 1); // takes the one number
            n.request(s, 10 * s + 1, 1); // waits
        }
        n.request(4, 40, 1); // a line made, nobody waiting on it
        let mark = n.lines_mark();
        n.request(0, 1, 0); // made after the mark: a line of its own, waiting
        assert_eq!(n.next_waiting(None, mark), Some(1));
        assert_eq!(n.next_waiting(Some(1), mark), Some(2));
        n.release(3, 0);
        assert_eq!(n.request(3, 31, 1), Some(1)); // stream 3's line empties before its turn
        assert_eq!(n.next_waiting(Some(2), mark), None);
        assert_eq!(n.next_waiting(None, n.lines_mark()), Some(0));
        assert_eq!(n.waiting_streams(), [0, 1, 2, 3, 4]);
    }

    /// Waiting messages are served in the order they asked, even when a later one asks first
    /// after a number comes back; other streams are not held up.
    #[test]
    fn numbers_go_first_come_first_served_per_stream() {
        let mut n = Numbers::default();
        for m in 1..=4 {
            n.request(PAIR, m, 4);
        }
        assert_eq!(n.request(PAIR, 5, 4), None);
        assert_eq!(n.request(PAIR, 6, 4), None);
        assert_eq!(
            n.request(PAIR, 6, 4),
            None,
            "asking again does not queue twice"
        );
        n.release(PAIR, 0);
        assert_eq!(n.request(PAIR, 6, 4), None, "6 asked after 5");
        assert_eq!(n.request(PAIR, 5, 4), Some(4));
        assert_eq!(
            n.request(PAIR + 1, 9, 4),
            Some(0),
            "another pair numbers on its own"
        );
        assert_eq!(n.waiting_streams(), [PAIR, PAIR + 1]);
    }

    /// Version 3's REQALL takes a number past the line, and a released block starts over.
    #[test]
    fn a_reqall_takes_a_number_past_the_line_and_a_released_block_starts_over() {
        let mut n = Numbers::default();
        for m in 1..=7 {
            n.request(PAIR, m, 8);
        }
        assert_eq!(n.take(PAIR, 8), Some(7));
        assert_eq!(n.take(PAIR, 8), None);
        for k in 0..8 {
            n.release(PAIR, k);
        }
        assert!(n.unused(PAIR) && n.idle());
        n.forget(PAIR);
        assert_eq!(n.request(PAIR, 20, 8), Some(0));
    }

    /// K&O §II point c: 6 PLT entries per source IMP; the seventh multi-packet message waits.
    #[test]
    fn a_seventh_message_waits_for_a_plt_entry() {
        let mut p = Plt::default();
        let got: Vec<_> = (1..=7).map(|m| p.request(m, 6)).collect();
        assert_eq!(got, [true, true, true, true, true, true, false]);
        assert!(!p.free(6));
        p.release();
        assert!(!p.request(8, 6), "8 asked after 7");
        assert!(p.request(7, 6));
        assert_eq!((p.used(), p.first_waiting()), (6, Some(8)));
    }

    /// K&O §II: an ALL goes to the oldest message waiting for one, whichever REQALL it answers;
    /// one nobody uses goes back when its GVB timer runs out, one that was used does not.
    #[test]
    fn an_all_goes_to_the_oldest_waiter_and_an_unused_one_is_given_back() {
        let mut a = Allocations::default();
        assert!(!a.take(3), "no allocation at hand: send a REQALL");
        a.await_all(3, 10);
        a.await_all(3, 11);
        let g = a.add(3, t(0), GVB);
        assert_eq!(a.next_awaiting(3), Some(10));
        assert!(a.take(3), "message 10 uses the ALL");
        assert!(
            !a.give_back(3, g.generation, g.at),
            "used: nothing to give back"
        );
        let g2 = a.add(3, t(10), GVB);
        let g3 = a.add(3, t(20), GVB);
        assert_eq!(a.held(3), 2);
        assert!(a.give_back(3, g3.generation, g3.at));
        assert!(a.give_back(3, g2.generation, g2.at));
        assert!(a.idle());
        assert_eq!(a.next_awaiting(3), Some(11));
    }

    /// K&O §II point i: the reservation "is returned to the destination IMP if some HOST attached
    /// to the source IMP does not make use of it within the next 250 ms", by a GVB: its timer runs
    /// out 250 ms after the ALL arrived and not before; using the allocation disarms it; the
    /// earliest deadline held is the one to wake for, whatever the destination.
    /// BBN 3050's TALLY (pp. 55, 136, 163): one clock for the table, held at 1 while it is
    /// empty and bumped each fast tick; at 6 the oldest allocation goes back and the clock
    /// starts again from 0; taking the oldest sets it to 0, taking a younger one does not.
    #[test]
    fn the_1973_tally_gives_back_the_oldest_allocation_at_its_sixth_tick() {
        let mut a = Allocations::default();
        assert_eq!(a.tally_tick(6), None, "empty: the clock is held at 1");
        a.add(3, t(0), GVB);
        // Ticks take the clock 1 → 2, 3, 4, 5: nothing yet; the fifth tick reaches 6.
        for _ in 0..4 {
            assert_eq!(a.tally_tick(6), None);
        }
        assert_eq!(
            a.tally_tick(6),
            Some(3),
            "the fifth tick after it came to an empty table"
        );
        assert!(a.idle());
        // Two held: using the oldest restarts the clock from 0; the other then waits 6 ticks.
        a.tally_tick(6);
        a.add(5, t(0), GVB);
        a.add(3, t(0), GVB);
        a.tally_tick(6);
        a.tally_tick(6);
        assert!(a.take(5), "the oldest, used");
        for _ in 0..5 {
            assert_eq!(a.tally_tick(6), None);
        }
        assert_eq!(a.tally_tick(6), Some(3));
        // Using a younger allocation leaves the clock running for the oldest.
        a.tally_tick(6);
        a.add(5, t(0), GVB);
        a.add(3, t(0), GVB);
        a.tally_tick(6);
        assert!(a.take(3), "the younger, used");
        for _ in 0..3 {
            assert_eq!(a.tally_tick(6), None);
        }
        assert_eq!(a.tally_tick(6), Some(5));
        assert!(a.idle());
    }

    #[test]
    fn an_allocation_unused_for_250_ms_goes_back() {
        let mut a = Allocations::default();
        assert_eq!(a.poll_at(), None, "nothing held, nothing to time");
        let d = a.add(3, t(100), GVB);
        assert_eq!(d.at, t(350));
        assert_eq!(a.poll_at(), Some(t(350)));
        let e = a.add(5, t(120), GVB);
        let f = a.add(3, t(200), GVB);
        assert_eq!(a.poll_at(), Some(t(350)));
        assert_eq!(a.deadline(5, e.generation), Some(e));
        assert_eq!(a.deadline(3, e.generation), None, "another destination's");
        // A wake-up before the 250 ms are up gives nothing back.
        assert!(!a.give_back(3, d.generation, t(349)));
        assert_eq!(a.held(3), 2);
        // At 250 ms unused, it goes back.
        assert!(a.give_back(3, d.generation, t(350)));
        assert_eq!((a.held(3), a.poll_at()), (1, Some(t(370))));
        // A message to 5 uses its allocation: the timer is disarmed, its wake-up finds nothing.
        assert!(a.take(5));
        assert_eq!(a.poll_at(), Some(t(450)));
        assert!(!a.give_back(5, e.generation, e.at));
        assert!(a.give_back(3, f.generation, t(450)));
        assert_eq!(a.poll_at(), None);
        assert!(a.idle());
        assert_eq!(
            a.held_all(),
            BTreeMap::from([(3, VecDeque::new()), (5, VecDeque::new())])
        );
    }

    /// K&O §VI–VII: claims on PLT entries are served in order, messages and REQALLs alike; a
    /// second REQALL to a destination before the first is answered is superfluous; the ALL
    /// frees the REQALL's entry.
    #[test]
    fn plt_claims_in_order_and_superfluous_reqalls() {
        let mut c = PltClaims::default();
        assert!(!c.superfluous(9));
        c.reqall(70, 9, 1);
        c.message(2);
        c.message(2);
        assert!(c.superfluous(9), "the first REQALL to IMP 9 is unanswered");
        assert_eq!(c.len(), 2, "a message claims once");
        assert!(c.reqall_waiting(1));
        assert_eq!(
            c.take_first(),
            Some(PltClaim::Reqall {
                stream: 70,
                dst: 9,
                msg: 1
            })
        );
        assert_eq!(c.held_by_reqalls(), 1);
        assert_eq!(c.take_first(), Some(PltClaim::Message(2)));
        assert_eq!(c.outstanding(9), 1);
        c.answered(9);
        assert_eq!((c.outstanding(9), c.held_by_reqalls()), (0, 0));
        assert!(c.idle());
    }
}
