//! The pending-event set.
//!
//! Keyed by `(time, seq)`: `seq` is a counter taken when an event is pushed, so events due at
//! the same time come out in the order they were scheduled (FIFO), whatever the set's internal
//! layout.
//!
//! The set moves only 16-byte keys; the events themselves wait in a slab beside it. Measured
//! on the golden chain (issue 15), a heap of whole entries (time, seq and a 40-byte event: 56
//! bytes) spent over a third of the run copying entries up and down in `pop`; a key is one
//! `u128`, `time << 64 | seq << 32 | slot`, which orders exactly as `(time, seq)` does because
//! no two pending events share a `seq`. `seq` has 32 bits: when it runs out (every 2^32
//! events) the pending keys are renumbered in their order, which keeps every comparison the
//! same. The slab and the key set keep their capacity, so a model whose events are plain
//! values allocates nothing per event once warm.
//!
//! The keys wait in a calendar (`queue/calendar.rs`): one short sorted list while few events
//! are pending (the golden chain's 1–6), buckets of 16.4 µs once more are (a loaded IMP
//! network's 400–550, issue 36), so that a push is a list insert and a pop takes the last key
//! of the bucket being served, sorted when it was moved out of the buckets.

mod calendar;

use crate::time::SimTime;
use calendar::Calendar;

/// Bits of a key below the time: `seq` above, slot below.
const SLOT_BITS: u32 = 32;
const SLOT_MASK: u128 = (1 << SLOT_BITS) - 1;

/// A pending event and, beside it, what the calendar keeps of it while it waits in a bucket:
/// its key and the next slot in the same bucket (`NIL`-ended). Kept together so that pushing
/// an event into a bucket, and serving the bucket, touch one place per event, not three.
/// `key` and `next` are written when the key goes into a bucket and read only from a bucket's
/// list; for an event whose key went to `near` or the far heap they are stale, and nothing
/// reads them.
struct Slot<E> {
    key: u128,
    next: u32,
    /// The event; `None` once taken.
    event: Option<E>,
}

/// Pending events, delivered in `(time, insertion sequence)` order.
pub struct EventQueue<E> {
    /// `time << 64 | seq << 32 | slot`, smallest first.
    keys: Calendar,
    /// The events, at the slots their keys name.
    slots: Vec<Slot<E>>,
    /// Free slots, reused last-freed first (the warmest memory).
    free: Vec<u32>,
    next_seq: u64,
    /// `next_seq` reaching this renumbers the pending keys (2^32; smaller in tests).
    seq_limit: u64,
    now: SimTime,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        Self::with_seq_limit(1 << (64 - SLOT_BITS))
    }

    fn with_seq_limit(seq_limit: u64) -> Self {
        Self::with_calendar(Calendar::new(), seq_limit)
    }

    fn with_calendar(keys: Calendar, seq_limit: u64) -> Self {
        EventQueue {
            keys,
            slots: Vec::with_capacity(1024),
            free: Vec::with_capacity(1024),
            next_seq: 0,
            seq_limit,
            now: SimTime::ZERO,
        }
    }

    /// The time of the event being handled (or of the last one handled).
    #[inline]
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `event` at `at`. Scheduling in the past is a model bug: it panics in debug
    /// builds and is clamped to `now` in release builds so that time never runs backwards.
    // Always inlined: measured on the golden chain, a call here copied each event through the
    // stack into the slab and stalled on it (a quarter of the run); inlined, the model's event
    // is written into its slot directly.
    #[inline(always)]
    pub fn schedule(&mut self, at: SimTime, event: E) {
        debug_assert!(
            at >= self.now,
            "event scheduled in the past: {at} < {}",
            self.now
        );
        let at = at.max(self.now);
        if self.next_seq >= self.seq_limit {
            self.renumber();
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize].event = Some(event);
                slot
            }
            None => self.new_slot(event),
        };
        let key = (at.as_nanos() as u128) << 64 | (seq as u128) << SLOT_BITS | slot as u128;
        self.keys.push(key, &mut self.slots);
    }

    /// A slot past the last, for a queue holding more events than ever before.
    #[cold]
    #[inline(never)]
    fn new_slot(&mut self, event: E) -> u32 {
        let slot = u32::try_from(self.slots.len()).expect("fewer than 2^32 pending events");
        self.slots.push(Slot {
            key: 0,
            next: calendar::NIL,
            event: Some(event),
        });
        slot
    }

    /// Gives the pending keys the sequence numbers `0..len` in their present order, so that
    /// `seq` never wraps: called when it would.
    #[cold]
    #[inline(never)]
    fn renumber(&mut self) {
        let mut keys = self.keys.take_all(&self.slots);
        keys.sort_unstable();
        for (seq, k) in keys.iter_mut().enumerate() {
            *k = (*k >> 64) << 64 | (seq as u128) << SLOT_BITS | (*k & SLOT_MASK);
        }
        self.next_seq = keys.len() as u64;
        for k in keys {
            self.keys.push(k, &mut self.slots);
        }
    }

    /// Schedules `event` after `delay` from now.
    #[inline]
    pub fn schedule_in(&mut self, delay: crate::SimDuration, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// Time of the next pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.keys
            .peek()
            .map(|k| SimTime::from_nanos((k >> 64) as u64))
    }

    /// Removes the next event and advances `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.pop_until(SimTime::MAX)
    }

    /// Removes the next event if it is due at or before `end`, and advances `now` to its time;
    /// `None`, with nothing removed, if no event is due by then: [`Self::peek_time`] and
    /// [`Self::pop`] in one look.
    #[inline(always)]
    pub fn pop_until(&mut self, end: SimTime) -> Option<(SimTime, E)> {
        // The largest key at `end`: every `seq` and slot.
        let limit = (end.as_nanos() as u128) << 64 | u64::MAX as u128;
        let key = self.keys.pop_at_most(limit, &self.slots)?;
        let at = SimTime::from_nanos((key >> 64) as u64);
        let slot = (key & SLOT_MASK) as u32;
        let event = self.slots[slot as usize]
            .event
            .take()
            .expect("a pending key names a full slot");
        self.free.push(slot);
        self.now = at;
        Some((at, event))
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Moves `now` forward to `t` without an event (end of a run window).
    pub(crate) fn advance_to(&mut self, t: SimTime) {
        self.now = self.now.max(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SimDuration;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// `pop_until` at the end of time takes every event, and at an instant takes the events
    /// due then, whatever their `seq` and slot.
    #[test]
    fn pop_until_takes_what_is_due() {
        let mut q = EventQueue::new();
        let t = SimTime::from_nanos(10);
        for i in 0..3u32 {
            q.schedule(t, i);
        }
        q.schedule(SimTime::from_nanos(11), 9);
        assert_eq!(q.pop_until(SimTime::from_nanos(9)), None);
        assert_eq!(q.now(), SimTime::ZERO, "nothing taken, the clock unmoved");
        for i in 0..3u32 {
            assert_eq!(q.pop_until(t), Some((t, i)));
        }
        assert_eq!(q.pop_until(t), None);
        assert_eq!(
            q.pop_until(SimTime::MAX),
            Some((SimTime::from_nanos(11), 9))
        );
        assert_eq!(q.pop_until(SimTime::MAX), None);
    }

    /// `pop_until` compares a key beyond the calendar's window (held in the far heap) with its
    /// end as it does a near one.
    #[test]
    fn pop_until_sees_far_keys() {
        // Buckets 4 ns wide over 32 ns: 16 events at 0 fill the short list (`near`), so the
        // event at 1000 ns, beyond the window, waits in the far heap.
        let mut q = EventQueue::with_calendar(Calendar::with(2, 3), 1 << 32);
        for i in 0..16u32 {
            q.schedule(SimTime::ZERO, i);
        }
        q.schedule(SimTime::from_nanos(1000), 99);
        for i in 0..16u32 {
            assert_eq!(q.pop_until(SimTime::ZERO), Some((SimTime::ZERO, i)));
        }
        assert_eq!(q.pop_until(SimTime::from_nanos(999)), None);
        assert_eq!(q.now(), SimTime::ZERO);
        assert_eq!(
            q.pop_until(SimTime::from_nanos(1000)),
            Some((SimTime::from_nanos(1000), 99))
        );
    }

    /// A crowd due at one instant while the buckets hold keys: the first of them (the calendar's
    /// `NEAR_MAX`) join the served bucket's sorted list, the rest wait in the far heap, and all
    /// come out in scheduling order, before the later keys.
    #[test]
    fn a_crowd_at_one_instant_keeps_its_order() {
        let mut q = EventQueue::new();
        let t = SimTime::from_nanos(1_000_000);
        q.schedule(t, 0u32);
        for i in 1..=50u32 {
            q.schedule(
                SimTime::from_nanos(2_000_000 + 100_000 * i as u64),
                10_000 + i,
            );
        }
        assert_eq!(q.pop(), Some((t, 0)));
        for i in 1..=1000u32 {
            q.schedule(t, i);
        }
        for i in 1..=1000u32 {
            assert_eq!(q.pop(), Some((t, i)));
        }
        for i in 1..=50u32 {
            let at = SimTime::from_nanos(2_000_000 + 100_000 * i as u64);
            assert_eq!(q.pop(), Some((at, 10_000 + i)));
        }
        assert!(q.pop().is_none());
    }

    #[test]
    fn same_time_events_come_out_in_scheduling_order() {
        let mut q = EventQueue::new();
        let t = SimTime::from_nanos(10);
        for i in 0..100u32 {
            q.schedule(t, i);
        }
        q.schedule(SimTime::from_nanos(5), 1000);
        assert_eq!(q.pop(), Some((SimTime::from_nanos(5), 1000)));
        for i in 0..100u32 {
            assert_eq!(q.pop(), Some((t, i)));
        }
        assert!(q.pop().is_none());
    }

    proptest::proptest! {
        #[test]
        fn pops_in_time_then_seq_order(times in proptest::collection::vec(0u64..50, 0..200)) {
            let mut q = EventQueue::new();
            for (i, t) in times.iter().enumerate() {
                q.schedule(SimTime::ZERO + SimDuration::from_nanos(*t), i);
            }
            let mut expected: Vec<(u64, usize)> = times.iter().copied().zip(0..).collect();
            expected.sort();
            let got: Vec<(u64, usize)> =
                std::iter::from_fn(|| q.pop()).map(|(t, i)| (t.as_nanos(), i)).collect();
            proptest::prop_assert_eq!(got, expected);
        }

        /// A calendar of a few narrow buckets (4 ns wide, a 32 ns window), pushed and popped
        /// in any interleaving with delays from 0 to well past the window, delivers exactly
        /// `(time, seq)` order: the order a plain heap gives. `pop_until(end)` takes the next
        /// event only when it is due by `end`, as a peek then a pop would.
        /// With `near` capped low, keys due in the served bucket spill into the far heap, and
        /// the order is the same.
        #[test]
        fn the_calendar_keeps_time_then_seq_order(
            ops in proptest::collection::vec((0u64..100, 0u8..4), 0..600),
            renumber_every in 3u64..1000,
            near_max in 1usize..40,
        ) {
            let calendar = Calendar::with(2, 3).with_near_max(near_max);
            let mut q = EventQueue::with_calendar(calendar, renumber_every);
            let mut reference: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
            let (mut got, mut want) = (Vec::new(), Vec::new());
            for (i, (dt, op)) in ops.iter().enumerate() {
                if *op == 0 {
                    got.push(q.pop().map(|(t, e)| (t.as_nanos(), e)));
                    want.push(reference.pop().map(|Reverse(x)| x));
                } else if *op == 3 {
                    let end = q.now() + SimDuration::from_nanos(*dt / 4);
                    got.push(q.pop_until(end).map(|(t, e)| (t.as_nanos(), e)));
                    let due = reference.peek().is_some_and(|Reverse((t, _))| *t <= end.as_nanos());
                    want.push(if due { reference.pop().map(|Reverse(x)| x) } else { None });
                } else {
                    let at = q.now() + SimDuration::from_nanos(*dt);
                    q.schedule(at, i);
                    reference.push(Reverse((at.as_nanos(), i)));
                }
                proptest::prop_assert_eq!(q.len(), reference.len());
                proptest::prop_assert_eq!(
                    q.peek_time().map(|t| t.as_nanos()),
                    reference.peek().map(|Reverse((t, _))| *t)
                );
            }
            got.extend(std::iter::from_fn(|| q.pop()).map(|(t, e)| Some((t.as_nanos(), e))));
            want.extend(std::iter::from_fn(|| reference.pop()).map(|Reverse(x)| Some(x)));
            proptest::prop_assert_eq!(got, want);
        }

        /// Renumbering `seq` when it runs out keeps the order: a queue that renumbers every
        /// few events delivers exactly what one that never does delivers.
        #[test]
        fn renumbering_keeps_the_order(
            ops in proptest::collection::vec((0u64..20, proptest::bool::ANY), 0..300),
            limit in 1u64..8,
        ) {
            let mut small = EventQueue::with_seq_limit(limit);
            let mut big = EventQueue::new();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for (i, (dt, pop)) in ops.iter().enumerate() {
                if *pop {
                    a.push(small.pop());
                    b.push(big.pop());
                } else {
                    let at = small.now() + SimDuration::from_nanos(*dt);
                    small.schedule(at, i);
                    big.schedule(at, i);
                }
            }
            a.extend(std::iter::from_fn(|| small.pop()).map(Some));
            b.extend(std::iter::from_fn(|| big.pop()).map(Some));
            proptest::prop_assert_eq!(a, b);
        }
    }
}
