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
//! The keys wait in a calendar (`Calendar`): one small binary heap while few events are pending (the
//! golden chain's 1–6), buckets of 16.4 µs once more are (a loaded IMP network's 400–550, issue
//! 36), so that a push is a list insert and a pop walks a heap of one bucket's events.

use crate::time::SimTime;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Bits of a key below the time: `seq` above, slot below.
const SLOT_BITS: u32 = 32;
const SLOT_MASK: u128 = (1 << SLOT_BITS) - 1;

/// Pending events, delivered in `(time, insertion sequence)` order.
pub struct EventQueue<E> {
    /// `time << 64 | seq << 32 | slot`, smallest first.
    heap: Calendar,
    /// The events, at the slots their keys name; `None` once taken.
    slots: Vec<Option<E>>,
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

    fn with_calendar(heap: Calendar, seq_limit: u64) -> Self {
        EventQueue {
            heap,
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
                self.slots[slot as usize] = Some(event);
                slot
            }
            None => self.new_slot(event),
        };
        let key = (at.as_nanos() as u128) << 64 | (seq as u128) << SLOT_BITS | slot as u128;
        self.heap.push(key);
    }

    /// A slot past the last, for a queue holding more events than ever before.
    #[cold]
    #[inline(never)]
    fn new_slot(&mut self, event: E) -> u32 {
        let slot = u32::try_from(self.slots.len()).expect("fewer than 2^32 pending events");
        self.slots.push(Some(event));
        slot
    }

    /// Gives the pending keys the sequence numbers `0..len` in their present order, so that
    /// `seq` never wraps: called when it would.
    #[cold]
    #[inline(never)]
    fn renumber(&mut self) {
        let mut keys = self.heap.take_all();
        keys.sort_unstable();
        for (seq, k) in keys.iter_mut().enumerate() {
            *k = (*k >> 64) << 64 | (seq as u128) << SLOT_BITS | (*k & SLOT_MASK);
        }
        self.next_seq = keys.len() as u64;
        for k in keys {
            self.heap.push(k);
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
        self.heap
            .peek()
            .map(|k| SimTime::from_nanos((k >> 64) as u64))
    }

    /// Removes the next event and advances `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let key = self.heap.pop()?;
        let at = SimTime::from_nanos((key >> 64) as u64);
        let slot = (key & SLOT_MASK) as u32;
        let event = self.slots[slot as usize]
            .take()
            .expect("a pending key names a full slot");
        self.free.push(slot);
        self.now = at;
        Some((at, event))
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Moves `now` forward to `t` without an event (end of a run window).
    pub(crate) fn advance_to(&mut self, t: SimTime) {
        self.now = self.now.max(t);
    }
}

/// A bucket holding no key.
const NIL: u32 = u32::MAX;

/// Below this many keys `near` takes every key while the buckets are empty.
const SMALL: usize = 16;

/// The pending keys: a calendar of buckets `2^shift` ns wide over a window of `n` buckets, with
/// a small binary heap for the bucket being served and one for keys beyond the window.
///
/// Holds three sets, and keeps them so that the smallest pending key is always the smaller of
/// the two heaps' tops:
/// - `near`: keys whose bucket is at or before `cur` (the bucket being served);
/// - the buckets: keys whose bucket `b` has `cur < b < cur + n`, each bucket an unordered list
///   threaded through the keys' slots (`head`, `next`), with a bit per non-empty bucket;
/// - `far`: keys at or beyond the window when they came, in any order of time.
///
/// `near` is empty only when every bucket is: when it empties, the next non-empty bucket is
/// moved into it. A bucket's keys are then ordered by `near`, so the order out is exactly the
/// keys' order, `(time, seq)`, as a single heap's would be; what changes is the cost. A loaded
/// IMP network keeps 400–550 events pending (issue 36), through which a binary heap's walk
/// goes nine levels deep at every push and pop; here a push is a list insert and `near` holds
/// the few events of one bucket.
struct Calendar {
    /// Bucket width: `2^shift` ns.
    shift: u32,
    /// Buckets in the window, a power of two, less one.
    mask: u64,
    /// The bucket being served (`time >> shift`).
    cur: u64,
    near: BinaryHeap<Reverse<u128>>,
    far: BinaryHeap<Reverse<u128>>,
    /// First key's slot in each bucket (`NIL`: empty).
    head: Vec<u32>,
    /// A bit per non-empty bucket.
    bits: Vec<u64>,
    /// Per event slot: the next slot in the same bucket, and the key.
    next: Vec<u32>,
    key: Vec<u128>,
    /// Keys in the buckets.
    in_buckets: usize,
}

impl Calendar {
    /// Buckets of 16.384 µs (2^14 ns) over a window of 16,384 (268 ms): the best of 2^12 to
    /// 2^16 ns with the same window on 30 simulated minutes of `ko-v2-map` (about 1 % to 3 %
    /// apart) and on `nmc bench`'s IMP cases; a loaded map's bucket then holds under one event
    /// on average, and a retransmission timer (125 ms) falls inside the window.
    fn new() -> Self {
        Self::with(14, 14)
    }

    fn with(shift: u32, log2_buckets: u32) -> Self {
        let n = 1usize << log2_buckets;
        Calendar {
            shift,
            mask: n as u64 - 1,
            cur: 0,
            near: BinaryHeap::with_capacity(64),
            far: BinaryHeap::with_capacity(256),
            head: vec![NIL; n],
            bits: vec![0; n.div_ceil(64)],
            next: Vec::with_capacity(1024),
            key: Vec::with_capacity(1024),
            in_buckets: 0,
        }
    }

    #[inline(always)]
    fn bucket(&self, key: u128) -> u64 {
        ((key >> 64) as u64) >> self.shift
    }

    #[inline(always)]
    fn push(&mut self, key: u128) {
        let b = self.bucket(key);
        if (self.in_buckets == 0 && self.near.len() < SMALL) || b <= self.cur {
            // With every bucket empty, `near` may take any key, `cur` moving up to its bucket:
            // a queue of a few events (the golden chain's) stays one small heap.
            self.cur = self.cur.max(b);
            self.near.push(Reverse(key));
        } else if b - self.cur <= self.mask {
            let i = (b & self.mask) as usize;
            let slot = (key & SLOT_MASK) as usize;
            if slot >= self.next.len() {
                self.grow(slot);
            }
            self.key[slot] = key;
            self.next[slot] = self.head[i];
            self.head[i] = slot as u32;
            self.bits[i >> 6] |= 1 << (i & 63);
            self.in_buckets += 1;
        } else {
            self.far.push(Reverse(key));
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, slot: usize) {
        self.next.resize(slot + 1, NIL);
        self.key.resize(slot + 1, 0);
    }

    #[inline]
    fn peek(&self) -> Option<u128> {
        match (self.near.peek(), self.far.peek()) {
            (Some(Reverse(n)), Some(Reverse(f))) => Some((*n).min(*f)),
            (Some(Reverse(k)), None) | (None, Some(Reverse(k))) => Some(*k),
            (None, None) => None,
        }
    }

    #[inline]
    fn pop(&mut self) -> Option<u128> {
        if let Some(&Reverse(f)) = self.far.peek()
            && self.near.peek().is_none_or(|&Reverse(n)| f < n)
        {
            self.far.pop();
            return Some(f);
        }
        let Reverse(key) = self.near.pop()?;
        if self.in_buckets > 0 && self.near.is_empty() {
            self.serve_next_bucket();
        }
        Some(key)
    }

    /// Moves the first non-empty bucket after `cur` into `near` and serves it.
    fn serve_next_bucket(&mut self) {
        let start = ((self.cur + 1) & self.mask) as usize;
        // A power of two, as the buckets are (one word for fewer than 64 buckets).
        let word_mask = self.bits.len() - 1;
        let mut w = start >> 6;
        let mut word = self.bits[w] & (!0u64 << (start & 63));
        while word == 0 {
            w = (w + 1) & word_mask;
            word = self.bits[w];
        }
        let i = (w << 6) | word.trailing_zeros() as usize;
        self.bits[w] &= !(1 << (i & 63));
        // Buckets ahead of `cur`, counted round the window.
        let ahead = ((i as u64).wrapping_sub(start as u64) & self.mask) + 1;
        self.cur += ahead;
        // `near` is empty: fill its buffer, then order it at once.
        let mut keys = std::mem::take(&mut self.near).into_vec();
        let mut slot = std::mem::replace(&mut self.head[i], NIL);
        while slot != NIL {
            keys.push(Reverse(self.key[slot as usize]));
            slot = self.next[slot as usize];
        }
        self.in_buckets -= keys.len();
        self.near = BinaryHeap::from(keys);
    }

    fn len(&self) -> usize {
        self.near.len() + self.far.len() + self.in_buckets
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every pending key, in no order, leaving the calendar empty.
    fn take_all(&mut self) -> Vec<u128> {
        let mut keys: Vec<u128> = self
            .near
            .drain()
            .chain(self.far.drain())
            .map(|Reverse(k)| k)
            .collect();
        for i in 0..self.head.len() {
            let mut slot = std::mem::replace(&mut self.head[i], NIL);
            while slot != NIL {
                keys.push(self.key[slot as usize]);
                slot = self.next[slot as usize];
            }
        }
        self.bits.iter_mut().for_each(|w| *w = 0);
        self.in_buckets = 0;
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SimDuration;

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
        /// `(time, seq)` order: the order a plain heap gives.
        #[test]
        fn the_calendar_keeps_time_then_seq_order(
            ops in proptest::collection::vec((0u64..100, 0u8..3), 0..600),
            renumber_every in 3u64..1000,
        ) {
            let mut q = EventQueue::with_calendar(Calendar::with(2, 3), renumber_every);
            let mut reference: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
            let (mut got, mut want) = (Vec::new(), Vec::new());
            for (i, (dt, op)) in ops.iter().enumerate() {
                if *op == 0 {
                    got.push(q.pop().map(|(t, e)| (t.as_nanos(), e)));
                    want.push(reference.pop().map(|Reverse(x)| x));
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
