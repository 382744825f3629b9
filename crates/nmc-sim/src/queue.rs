//! The pending-event set.
//!
//! A binary heap keyed by `(time, seq)`: `seq` is a counter taken when an event is pushed, so
//! events due at the same time come out in the order they were scheduled (FIFO), whatever the
//! heap's internal layout. Events are stored inline (no boxing), and the heap keeps its
//! capacity, so a model whose events are plain values allocates nothing per event once warm.

use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    at: SimTime,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed, so that the max-heap pops the earliest `(time, seq)` first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// Pending events, delivered in `(time, insertion sequence)` order.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: SimTime,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            next_seq: 0,
            now: SimTime::ZERO,
        }
    }

    /// The time of the event being handled (or of the last one handled).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `event` at `at`. Scheduling in the past is a model bug: it panics in debug
    /// builds and is clamped to `now` in release builds so that time never runs backwards.
    pub fn schedule(&mut self, at: SimTime, event: E) {
        debug_assert!(
            at >= self.now,
            "event scheduled in the past: {at} < {}",
            self.now
        );
        let at = at.max(self.now);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { at, seq, event });
    }

    /// Schedules `event` after `delay` from now.
    pub fn schedule_in(&mut self, delay: crate::SimDuration, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// Time of the next pending event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.at)
    }

    /// Removes the next event and advances `now` to its time.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let e = self.heap.pop()?;
        self.now = e.at;
        Some((e.at, e.event))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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
    }
}
