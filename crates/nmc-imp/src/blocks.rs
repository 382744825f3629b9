//! Version 3's message control blocks as sans-I/O cores (K&O §VI): "before a HOST can send a
//! message to another HOST, source IMP S creates a transmit block and sends a subnet control
//! message to destination IMP D to request the creation of a receive block"; "when IMP S
//! receives this control message, the message control block pair is established". 64 of each
//! per IMP (`control_blocks`); a transmit block unused for `control_block_idle` is released,
//! the receive block with it; "a shortage of transmit and/or receive blocks will normally cause
//! only an initial setup delay": requests wait for a free block, in order.
//!
//! Each block knows the IMP at its pair's other end, as the control messages told it: a
//! transmit block the destination IMP it asked, a request the source IMP that sent it.
//!
//! The cores decide; the source rule that asks for a block is `e2e/v3.rs`, and the IMP's steps
//! on the blocks (the disuse timer, the control messages that make and release a pair) are
//! `e2e/control_blocks.rs`, which say what the driver is to send and count
//! ([`crate::imp::Output`]).

use crate::packet::{MsgId, Stream};
use crate::timer::{Timer, Woken};
use nmc_sim::SimTime;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A transmit block (K&O §VI).
#[derive(Clone, Debug, Default)]
pub(crate) struct TxBlock {
    /// The destination IMP asked for the receive block (to which the release goes).
    pub(crate) dst: u32,
    /// The destination has reported its receive block.
    pub(crate) open: bool,
    /// Messages waiting for it to open.
    pub(crate) waiters: Vec<MsgId>,
    /// The disuse timer (`control_block_idle`): armed when the last number of the block's
    /// stream comes back, cancelled when a number is given out.
    pub(crate) idle: Timer,
}

/// What a message that needs its stream's transmit block finds ([`TransmitBlocks::need`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Need {
    /// The block pair is established: go on.
    Open,
    /// The block exists and waits for its receive block: the message waits with it.
    Opening,
    /// A block was made for it now: ask the destination IMP for the receive block.
    Created,
    /// Every transmit block is in use: the message waits for one to be released (`first`:
    /// it has just joined the line).
    Full {
        /// It has just joined the line (it was not waiting already).
        first: bool,
    },
}

/// A source IMP's transmit blocks, by stream, and the messages waiting for one to be free.
#[derive(Clone, Debug, Default)]
pub(crate) struct TransmitBlocks {
    blocks: BTreeMap<Stream, TxBlock>,
    waiting: VecDeque<MsgId>,
}

impl TransmitBlocks {
    /// Message `mid` of `stream`, for destination IMP `dst`, needs the stream's transmit block;
    /// at most `cap` exist.
    pub(crate) fn need(&mut self, stream: Stream, dst: u32, mid: MsgId, cap: usize) -> Need {
        let room = self.blocks.len() < cap;
        match self.blocks.get_mut(&stream) {
            Some(b) if b.open => Need::Open,
            Some(b) => {
                if !b.waiters.contains(&mid) {
                    b.waiters.push(mid);
                }
                Need::Opening
            }
            None if room => {
                self.blocks.insert(
                    stream,
                    TxBlock {
                        dst,
                        waiters: vec![mid],
                        ..Default::default()
                    },
                );
                self.waiting.retain(|&w| w != mid);
                Need::Created
            }
            None => {
                let first = !self.waiting.contains(&mid);
                if first {
                    self.waiting.push_back(mid);
                }
                Need::Full { first }
            }
        }
    }

    /// The receive block of `stream` is reported: the pair is established. Returns the messages
    /// that waited for it, in order (`None` if the stream has no transmit block).
    pub(crate) fn opened(&mut self, stream: Stream) -> Option<Vec<MsgId>> {
        let b = self.blocks.get_mut(&stream)?;
        b.open = true;
        Some(std::mem::take(&mut b.waiters))
    }

    /// A number of `stream` is given out: the block is in use.
    pub(crate) fn used(&mut self, stream: Stream) {
        if let Some(b) = self.blocks.get_mut(&stream) {
            b.idle.cancel();
        }
    }

    /// The last number of `stream` came back: its disuse timer runs out at `at`. Returns when
    /// the driver must wake it, if no wake-up it already queued comes by then.
    #[must_use]
    pub(crate) fn arm_idle(&mut self, stream: Stream, at: SimTime) -> Option<SimTime> {
        self.blocks.get_mut(&stream)?.idle.arm(at)
    }

    /// The earliest deadline of the blocks' disuse timers.
    pub(crate) fn poll_at(&self) -> Option<SimTime> {
        self.blocks.values().filter_map(|b| b.idle.deadline()).min()
    }

    /// A wake-up of `stream`'s disuse timer at `now`.
    pub(crate) fn idle_woken(&mut self, stream: Stream, now: SimTime) -> Woken {
        match self.blocks.get_mut(&stream) {
            Some(b) => b.idle.woken(now),
            None => Woken::Stale,
        }
    }

    /// Can `stream`'s block be released (established, nobody waiting for it)?
    pub(crate) fn releasable(&self, stream: Stream) -> bool {
        self.blocks
            .get(&stream)
            .is_some_and(|b| b.open && b.waiters.is_empty())
    }

    /// Releases `stream`'s block; returns the destination IMP it paired with (`None` if the
    /// stream had no block).
    pub(crate) fn release(&mut self, stream: Stream) -> Option<u32> {
        self.blocks.remove(&stream).map(|b| b.dst)
    }

    /// The message longest in line for a free block.
    pub(crate) fn first_waiting(&self) -> Option<MsgId> {
        self.waiting.front().copied()
    }

    /// Messages in line for a free block.
    pub(crate) fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Nobody waits and every block is established (for the no-leak check).
    pub(crate) fn idle(&self) -> bool {
        self.waiting.is_empty() && self.blocks.values().all(|b| b.open && b.waiters.is_empty())
    }
}

/// A destination IMP's receive blocks, by stream, and the requests waiting for one, each with
/// the source IMP that sent it.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReceiveBlocks {
    open: BTreeSet<Stream>,
    waiting: VecDeque<(Stream, u32)>,
}

impl ReceiveBlocks {
    /// A request from source IMP `src` for `stream`'s receive block; at most `cap` exist.
    /// `true`: it can be opened now ([`ReceiveBlocks::open`]); `false`: it waits in line.
    pub(crate) fn request(&mut self, stream: Stream, src: u32, cap: usize) -> bool {
        if self.open.contains(&stream) || self.open.len() < cap {
            true
        } else {
            self.waiting.push_back((stream, src));
            false
        }
    }

    /// Opens `stream`'s receive block; `true` if it is new (its message sequence starts
    /// afresh).
    pub(crate) fn open(&mut self, stream: Stream) -> bool {
        self.open.insert(stream)
    }

    /// The transmit block released its receive block.
    pub(crate) fn release(&mut self, stream: Stream) {
        self.open.remove(&stream);
    }

    /// The request longest in line, if a block is free for it (it leaves the line): its stream
    /// and the source IMP that sent it.
    pub(crate) fn next_waiting(&mut self, cap: usize) -> Option<(Stream, u32)> {
        if self.open.len() < cap {
            self.waiting.pop_front()
        } else {
            None
        }
    }

    /// Requests in line.
    pub(crate) fn waiting(&self) -> usize {
        self.waiting.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// K&O §VI: a host's first message to another host makes a transmit block and waits for
    /// the receive block; later messages of the pair wait with it; all go on when it opens.
    #[test]
    fn the_first_message_makes_the_block_and_the_rest_wait_with_it() {
        let mut t = TransmitBlocks::default();
        assert_eq!(t.need(7, 1, 100, 64), Need::Created);
        assert_eq!(t.need(7, 1, 101, 64), Need::Opening);
        assert_eq!(t.opened(7), Some(vec![100, 101]));
        assert_eq!(t.need(7, 1, 102, 64), Need::Open);
        assert!(t.idle());
    }

    /// "A shortage of transmit and/or receive blocks will normally cause only an initial
    /// setup delay": with every block in use a message waits in line, and gets one once a
    /// block is released.
    #[test]
    fn a_shortage_of_blocks_makes_messages_wait() {
        let mut t = TransmitBlocks::default();
        assert_eq!(t.need(1, 1, 10, 1), Need::Created);
        assert_eq!(t.need(2, 1, 20, 1), Need::Full { first: true });
        assert_eq!(t.need(2, 1, 20, 1), Need::Full { first: false });
        t.opened(1);
        assert!(t.releasable(1));
        assert_eq!(t.release(1), Some(1), "the destination IMP it paired with");
        assert_eq!(t.first_waiting(), Some(20));
        assert_eq!(t.need(2, 1, 20, 1), Need::Created);
        assert_eq!(t.waiting(), 0);

        let mut r = ReceiveBlocks::default();
        assert!(r.request(1, 5, 1) && r.open(1));
        assert!(r.request(1, 5, 1), "the stream's own block again");
        assert!(!r.request(2, 6, 1), "no free block: in line");
        assert_eq!(r.next_waiting(1), None);
        r.release(1);
        assert_eq!(r.next_waiting(1), Some((2, 6)), "with the IMP that asked");
    }

    /// A block unused for `control_block_idle` (2 min) is released: a number given out
    /// cancels its disuse timer, the next return re-arms it.
    #[test]
    fn a_block_in_use_is_not_released() {
        let s = |secs: u64| SimTime::from_nanos(secs * 1_000_000_000);
        let mut t = TransmitBlocks::default();
        t.need(7, 1, 100, 64);
        t.opened(7);
        assert_eq!(t.arm_idle(7, s(120)), Some(s(120)));
        t.used(7);
        assert_eq!(
            t.idle_woken(7, s(120)),
            Woken::Stale,
            "a number went out since"
        );
        assert_eq!(t.arm_idle(7, s(150)), Some(s(150)));
        assert_eq!(t.idle_woken(7, s(150)), Woken::Expired);
        assert_eq!(t.idle_woken(8, s(150)), Woken::Stale, "no such block");
    }
}
