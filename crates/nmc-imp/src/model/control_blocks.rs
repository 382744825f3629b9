//! Version 3's message control blocks, the driver's side (K&O §VI): the disuse timer of a
//! transmit block, the control messages that make and release block pairs, and the receive
//! block made at the destination IMP. The tables are `crate::blocks`; the source rule that
//! asks for a block is `e2e/v3.rs`.

use super::{Counted, Ev, Subnet};
use crate::imp::{Expired, TimerId};
use crate::packet::{PktKind, Stream};
use nmc_sim::{EventQueue, SimTime};

impl Subnet {
    /// A number of `stream` came back to `imp`: with none left in use, the block's disuse
    /// timer starts.
    pub(super) fn number_released(
        &mut self,
        now: SimTime,
        imp: u32,
        stream: Stream,
        q: &mut EventQueue<Ev>,
    ) {
        if let Some(at) = self.imps[imp as usize].number_released(stream, now) {
            q.schedule(at, Ev::BlockIdle { imp, stream });
        }
    }

    /// A wake-up for the disuse timer of `stream`'s transmit block at `imp`: if the timer ran
    /// out (no number given out since the last came back), the block is released.
    pub(super) fn block_idle(
        &mut self,
        now: SimTime,
        imp: u32,
        stream: Stream,
        q: &mut EventQueue<Ev>,
    ) {
        match self.imps[imp as usize].handle_timeout(now, TimerId::BlockIdle { stream }) {
            Some(Expired::NotYet { at }) => return q.schedule(at, Ev::BlockIdle { imp, stream }),
            Some(Expired::BlockReleased { .. }) => {}
            _ => return,
        }
        let dst = self.hosts[crate::packet::stream_ends(stream).1 as usize].imp;
        self.count(Counted::ReleaseBlock);
        self.send_control(now, imp, dst, stream, PktKind::ReleaseBlock, q);
        // A message waiting for a free transmit block may have one now.
        while let Some(w) = self.imps[imp as usize].tx_blocks.first_waiting() {
            self.advance(now, imp, w, q);
            if self.imps[imp as usize].tx_blocks.first_waiting() == Some(w) {
                break;
            }
        }
    }

    /// Version 3: a source IMP asks this IMP for the receive block of `stream` (K&O §VI).
    pub(super) fn create_block_received(
        &mut self,
        now: SimTime,
        imp: u32,
        stream: Stream,
        q: &mut EventQueue<Ev>,
    ) {
        let i = &mut self.imps[imp as usize];
        let cap = i.limits.source.control_blocks as usize;
        if i.rx_blocks.request(stream, cap) {
            self.open_receive_block(now, imp, stream, q);
        } else {
            self.count(Counted::ReceiveBlockWait);
        }
    }

    /// Version 3: the receive block of `stream` exists at the destination IMP (K&O §VI).
    pub(super) fn block_created_received(
        &mut self,
        now: SimTime,
        imp: u32,
        stream: Stream,
        q: &mut EventQueue<Ev>,
    ) {
        // "When IMP S receives this control message, the message control block pair is
        // established."
        let Some(waiters) = self.imps[imp as usize].tx_blocks.opened(stream) else {
            return;
        };
        for w in waiters {
            self.advance(now, imp, w, q);
        }
        self.wake_hosts(now, imp, q);
    }

    /// Version 3: the source IMP released `stream`'s transmit block; the receive block goes.
    pub(super) fn release_block_received(
        &mut self,
        now: SimTime,
        imp: u32,
        stream: Stream,
        q: &mut EventQueue<Ev>,
    ) {
        let i = &mut self.imps[imp as usize];
        i.rx_blocks.release(stream);
        i.delivery.forget(stream);
        let cap = i.limits.source.control_blocks as usize;
        while let Some(s) = self.imps[imp as usize].rx_blocks.next_waiting(cap) {
            self.open_receive_block(now, imp, s, q);
        }
    }

    /// Makes the receive block of `stream` at `imp` and reports it to the source IMP.
    fn open_receive_block(
        &mut self,
        now: SimTime,
        imp: u32,
        stream: Stream,
        q: &mut EventQueue<Ev>,
    ) {
        let i = &mut self.imps[imp as usize];
        if i.rx_blocks.open(stream) {
            i.delivery.forget(stream);
        }
        let src = self.stream_src(stream);
        self.send_control(now, imp, src, stream, PktKind::BlockCreated, q);
    }
}
