//! The pending keys' calendar: buckets over a window of time, a short sorted list for the
//! bucket being served, and a heap for keys beyond the window ([`Calendar`]).

use super::{SLOT_MASK, Slot};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A bucket holding no key.
pub(super) const NIL: u32 = u32::MAX;

/// Below this many keys `near` takes every key while the buckets are empty.
const SMALL: usize = 16;

/// At most this many keys join `near` one by one (each an insertion into a sorted list);
/// beyond it, a key due in the bucket being served waits in `far`.
const NEAR_MAX: usize = 32;

/// The pending keys: a calendar of buckets `2^shift` ns wide over a window of `n` buckets, with
/// a short sorted list for the bucket being served and a binary heap for keys beyond the
/// window.
///
/// Holds three sets, and keeps them so that the smallest pending key is always the smaller of
/// `near`'s last key and `far`'s top:
/// - `near`: keys whose bucket is at or before `cur` (the bucket being served), sorted, the
///   smallest last;
/// - the buckets: keys whose bucket `b` has `cur < b < cur + n`, each bucket an unordered list
///   threaded through the keys' slots (`head`, `next`), with a bit per non-empty bucket;
/// - `far`: keys at or beyond the window when they came, and keys due in the bucket being
///   served that found `near` full ([`NEAR_MAX`]), in any order of time.
///
/// `near` is empty only when every bucket is: when it empties, the next non-empty bucket is
/// moved into it and sorted. Every key in `near` is below every key in the buckets, so the
/// order out is exactly the keys' order, `(time, seq)`, as a single heap's would be; what
/// changes is the cost. A loaded IMP network keeps 400–550 events pending (issue 36), through
/// which a binary heap's walk goes nine levels deep at every push and pop; here a push is a
/// list insert, a bucket most often holds one key, and taking the next is `near`'s last.
pub(super) struct Calendar {
    /// Bucket width: `2^shift` ns.
    shift: u32,
    /// Buckets in the window, a power of two, less one.
    mask: u64,
    /// The bucket being served (`time >> shift`).
    cur: u64,
    /// Keys at or before `cur`, largest first: the next key is the last.
    near: Vec<u128>,
    /// Keys that join `near` one by one at most ([`NEAR_MAX`]; fewer in tests).
    near_max: usize,
    far: BinaryHeap<Reverse<u128>>,
    /// First key's slot in each bucket (`NIL`: empty).
    head: Vec<u32>,
    /// A bit per non-empty bucket.
    bits: Vec<u64>,
    /// Keys in the buckets.
    in_buckets: usize,
}

impl Calendar {
    /// Buckets of 16.384 µs (2^14 ns) over a window of 16,384 (268 ms): the best of 2^12 to
    /// 2^16 ns with the same window on 30 simulated minutes of `ko-v2-map` (about 1 % to 3 %
    /// apart) and on `nmc bench`'s IMP cases; a loaded map's bucket then holds under one event
    /// on average, and a retransmission timer (125 ms) falls inside the window.
    pub(super) fn new() -> Self {
        Self::with(14, 14)
    }

    pub(super) fn with(shift: u32, log2_buckets: u32) -> Self {
        let n = 1usize << log2_buckets;
        Calendar {
            shift,
            mask: n as u64 - 1,
            cur: 0,
            near: Vec::with_capacity(64),
            near_max: NEAR_MAX,
            far: BinaryHeap::with_capacity(256),
            head: vec![NIL; n],
            bits: vec![0; n.div_ceil(64)],
            in_buckets: 0,
        }
    }

    /// The same with at most `near_max` keys joining `near` one by one (tests: a crowd at
    /// one instant spills into `far` sooner).
    #[cfg(test)]
    pub(super) fn with_near_max(mut self, near_max: usize) -> Self {
        self.near_max = near_max;
        self
    }

    #[inline(always)]
    fn bucket(&self, key: u128) -> u64 {
        ((key >> 64) as u64) >> self.shift
    }

    #[inline(always)]
    pub(super) fn push<E>(&mut self, key: u128, slots: &mut [Slot<E>]) {
        let b = self.bucket(key);
        if (self.in_buckets == 0 && self.near.len() < SMALL) || b <= self.cur {
            // With every bucket empty, `near` may take any key, `cur` moving up to its bucket:
            // a queue of a few events (the golden chain's) stays one short sorted list.
            self.cur = self.cur.max(b);
            if self.near.len() < self.near_max {
                self.push_near(key);
            } else {
                // A crowd at one instant: the rest wait in `far`, which takes any key.
                self.far.push(Reverse(key));
            }
        } else if b - self.cur <= self.mask {
            let i = (b & self.mask) as usize;
            let s = (key & SLOT_MASK) as u32;
            let slot = &mut slots[s as usize];
            slot.key = key;
            slot.next = self.head[i];
            self.head[i] = s;
            self.bits[i >> 6] |= 1 << (i & 63);
            self.in_buckets += 1;
        } else {
            self.far.push(Reverse(key));
        }
    }

    /// `key` joins `near` in its place, the keys smaller than it moving up one.
    #[inline(always)]
    fn push_near(&mut self, key: u128) {
        self.near.push(key);
        let mut i = self.near.len() - 1;
        while i > 0 && self.near[i - 1] < key {
            self.near[i] = self.near[i - 1];
            i -= 1;
        }
        self.near[i] = key;
    }

    #[inline]
    pub(super) fn peek(&self) -> Option<u128> {
        match (self.near.last(), self.far.peek()) {
            (Some(n), Some(Reverse(f))) => Some((*n).min(*f)),
            (Some(k), None) | (None, Some(Reverse(k))) => Some(*k),
            (None, None) => None,
        }
    }

    /// The smallest key if it is at most `limit` (taken out), else `None` (nothing taken): a
    /// peek and a pop in one look at `near`'s last key and `far`'s top (`u128::MAX`: a plain
    /// pop).
    #[inline(always)]
    pub(super) fn pop_at_most<E>(&mut self, limit: u128, slots: &[Slot<E>]) -> Option<u128> {
        if let Some(&Reverse(f)) = self.far.peek()
            && self.near.last().is_none_or(|&n| f < n)
        {
            if f > limit {
                return None;
            }
            self.far.pop();
            return Some(f);
        }
        let &key = self.near.last()?;
        if key > limit {
            return None;
        }
        self.near.pop();
        if self.in_buckets > 0 && self.near.is_empty() {
            self.serve_next_bucket(slots);
        }
        Some(key)
    }

    /// Moves the first non-empty bucket after `cur` into `near` and serves it.
    #[inline(always)]
    fn serve_next_bucket<E>(&mut self, slots: &[Slot<E>]) {
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
        // `near` is empty: it takes the bucket's keys, sorted (most buckets hold one).
        let mut slot = std::mem::replace(&mut self.head[i], NIL);
        while slot != NIL {
            let s = &slots[slot as usize];
            self.near.push(s.key);
            slot = s.next;
        }
        self.in_buckets -= self.near.len();
        if self.near.len() > 1 {
            self.near.sort_unstable_by(|a, b| b.cmp(a));
        }
    }

    pub(super) fn len(&self) -> usize {
        self.near.len() + self.far.len() + self.in_buckets
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every pending key, in no order, leaving the calendar empty: `far`, then `near` and each
    /// bucket in turn as it would be served.
    pub(super) fn take_all<E>(&mut self, slots: &[Slot<E>]) -> Vec<u128> {
        let mut keys: Vec<u128> = self.far.drain().map(|Reverse(k)| k).collect();
        loop {
            keys.append(&mut self.near);
            if self.in_buckets == 0 {
                return keys;
            }
            self.serve_next_bucket(slots);
        }
    }
}
