//! Version 3's message control blocks, the IMP's steps (K&O §VI): the disuse timer of a
//! transmit block, the control messages that make and release a block pair, and the receive
//! block made at the destination IMP. The tables are [`crate::blocks`]; the source rule that
//! asks for a block is `e2e/v3.rs`. Each step changes the IMP's tables and pushes what the
//! driver is to do ([`Output`]): the control messages to send, the wake-ups to queue, the
//! counts, and the messages and hosts that may go on.

use crate::imp::{Effects, Imp, Output, Resume, TimerId};
use crate::observe::Counted;
use crate::packet::{MsgId, PktKind, Stream};
use crate::timer::Woken;
use nmc_sim::SimTime;

impl Imp {
    /// A number of `stream` came back at `now`: with none left in use, the transmit block's
    /// disuse timer starts ([`crate::imp::SourceLimits::control_block_idle`]), and a wake-up
    /// is asked for its deadline unless one already queued comes by then.
    pub(crate) fn number_released(&mut self, now: SimTime, stream: Stream, out: &mut impl Effects) {
        if self.numbers.in_use(stream) != 0 {
            return;
        }
        let idle = self.limits.source.control_block_idle;
        if let Some(at) = self.tx_blocks.arm_idle(stream, now + idle) {
            let timer = TimerId::BlockIdle { stream };
            out.push(Output::Timer { at, timer });
        }
    }

    /// A wake-up at `now` for the disuse timer of `stream`'s transmit block
    /// ([`Imp::handle_timeout`]): if the timer ran out (no number given out since the last came
    /// back), the block is released and the stream's numbers forgotten, the destination IMP is
    /// told to release its receive block, and the messages waiting for a free transmit block
    /// go on in turn. A deadline moved later asks for a wake-up then.
    pub(crate) fn block_idle_woken(
        &mut self,
        now: SimTime,
        stream: Stream,
        out: &mut impl Effects,
    ) {
        match self.tx_blocks.idle_woken(stream, now) {
            Woken::Later(at) => {
                let timer = TimerId::BlockIdle { stream };
                out.push(Output::Timer { at, timer });
            }
            Woken::Stale => {}
            Woken::Expired => {
                if !(self.tx_blocks.releasable(stream) && self.numbers.unused(stream)) {
                    return;
                }
                let to = self.tx_blocks.release(stream).expect("a releasable block");
                self.numbers.forget(stream);
                out.push(Output::Count(Counted::ReleaseBlock));
                let kind = PktKind::ReleaseBlock;
                out.push(Output::Control { to, stream, kind });
                // A message waiting for a free transmit block may have one now.
                self.serve_block_waiters(None, out);
            }
        }
    }

    /// The message first in line for a free transmit block goes on, unless it is `after`, the
    /// one moved on last, still first (it found none); the rest follow through
    /// [`Resume::BlockWaiters`].
    pub(crate) fn serve_block_waiters(&mut self, after: Option<MsgId>, out: &mut impl Effects) {
        if let Some(w) = self.tx_blocks.first_waiting()
            && Some(w) != after
        {
            out.push(Output::Resume(Resume::Advance(w)));
            out.push(Output::Resume(Resume::BlockWaiters { after: w }));
        }
    }

    /// Version 3: source IMP `src` asks this IMP for the receive block of `stream` (K&O §VI).
    /// It is made and reported at once if one is free (or the stream has it already);
    /// otherwise the request waits in line for one, counted.
    pub(crate) fn create_block_received(
        &mut self,
        src: u32,
        stream: Stream,
        out: &mut impl Effects,
    ) {
        let cap = self.limits.source.control_blocks as usize;
        if self.rx_blocks.request(stream, src, cap) {
            self.open_receive_block(src, stream, out);
        } else {
            out.push(Output::Count(Counted::ReceiveBlockWait));
        }
    }

    /// Version 3: the receive block of `stream` exists at the destination IMP (K&O §VI): the
    /// pair is established, the messages that waited for it go on in order, and the hosts
    /// after them.
    pub(crate) fn block_created_received(&mut self, stream: Stream, out: &mut impl Effects) {
        // "When IMP S receives this control message, the message control block pair is
        // established."
        let Some(waiters) = self.tx_blocks.opened(stream) else {
            return;
        };
        for w in waiters {
            out.push(Output::Resume(Resume::Advance(w)));
        }
        out.push(Output::WakeHosts);
    }

    /// Version 3: the source IMP released `stream`'s transmit block; the receive block goes,
    /// and the requests waiting for a free receive block are served in turn.
    pub(crate) fn release_block_received(&mut self, stream: Stream, out: &mut impl Effects) {
        self.rx_blocks.release(stream);
        self.delivery.forget(stream);
        self.open_waiting_receive_block(out);
    }

    /// The request longest in line for a receive block gets one, if one is free; the next
    /// follows through [`Resume::ReceiveBlocks`], once the report has gone.
    pub(crate) fn open_waiting_receive_block(&mut self, out: &mut impl Effects) {
        let cap = self.limits.source.control_blocks as usize;
        if let Some((stream, src)) = self.rx_blocks.next_waiting(cap) {
            self.open_receive_block(src, stream, out);
            out.push(Output::Resume(Resume::ReceiveBlocks));
        }
    }

    /// Makes the receive block of `stream` (its message sequence starts afresh if the block is
    /// new) and reports it to source IMP `src`.
    fn open_receive_block(&mut self, src: u32, stream: Stream, out: &mut impl Effects) {
        if self.rx_blocks.open(stream) {
            self.delivery.forget(stream);
            out.push(Output::SequenceAfresh { stream });
        }
        let kind = PktKind::BlockCreated;
        out.push(Output::Control {
            to: src,
            stream,
            kind,
        });
    }
}

#[cfg(test)]
mod tests {
    //! Version 3's message control blocks on one IMP, in K&O §VI's words. IMP S (0) is the
    //! source of stream S→D (hosts 0 and 1, host 1 on IMP 1); as a destination it serves
    //! requests from IMPs 2 and 3.
    use super::super::procedure::{MsgState, Procedure, Step};
    use super::super::testing::want;
    use super::super::v3::V3;
    use super::*;
    use crate::packet::stream;
    use crate::params::ImpParams;
    use nmc_sim::SimDuration;

    /// An IMP with the 1975 profile's limits (2-minute disuse, `params.rs`) and `blocks`
    /// control blocks of each kind.
    fn imp(blocks: u32) -> Imp {
        let mut i = super::super::testing::imp(&ImpParams::v3_1975_02(), 10);
        i.limits.source.control_blocks = blocks;
        i
    }

    /// Message `msg` goes on through its source procedure once what came before is done.
    fn advance(msg: MsgId) -> Output {
        Output::Resume(Resume::Advance(msg))
    }

    fn secs(s: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_secs(s)
    }

    /// Host 0's stream to host 1 (IMP 1): its first message asked for the block pair, and IMP
    /// 1 reported the receive block.
    fn established(s: &mut Imp) {
        assert_eq!(V3.step(s, want(0, MsgState::NeedBlock)), Step::CreateBlock);
        let mut out = Vec::new();
        s.block_created_received(stream(0, 1), &mut out);
        assert_eq!(out, [advance(0), Output::WakeHosts]);
    }

    /// "Before a HOST can send a message to another HOST, source IMP S creates a transmit
    /// block and sends a subnet control message to destination IMP D to request the creation
    /// of a receive block"; "when IMP S receives this control message, the message control
    /// block pair is established": the messages that waited for it go on, in order, then the
    /// hosts. A report for a stream with no transmit block is ignored.
    #[test]
    fn block_created_in_establishes_the_pair_and_its_waiting_messages_go_on() {
        let mut s = imp(64);
        assert_eq!(
            V3.step(&mut s, want(0, MsgState::NeedBlock)),
            Step::CreateBlock
        );
        assert_eq!(V3.step(&mut s, want(1, MsgState::NeedBlock)), Step::Wait);
        let mut out = Vec::new();
        s.block_created_received(stream(0, 1), &mut out);
        let go = [advance(0), advance(1), Output::WakeHosts];
        assert_eq!(out, go);
        assert_eq!(
            V3.step(&mut s, want(0, MsgState::NeedBlock)),
            Step::Moved(MsgState::NeedNumber),
            "the pair is established"
        );
        let mut out = Vec::new();
        s.block_created_received(stream(5, 6), &mut out);
        assert_eq!(out, [], "no such transmit block");
    }

    /// The block's disuse timer (2 minutes, the profile's choice after RFC 660) starts when
    /// the stream's last number comes back, and not while a number is still out.
    #[test]
    fn the_last_number_back_starts_the_disuse_timer() {
        let mut s = imp(64);
        established(&mut s);
        let d = stream(0, 1);
        let num = |s: &mut Imp, msg| V3.step(s, want(msg, MsgState::NeedNumber));
        assert!(matches!(num(&mut s, 0), Step::Numbered { num: 0, .. }));
        assert!(matches!(num(&mut s, 1), Step::Numbered { num: 1, .. }));
        s.numbers.release(d, 0);
        let mut out = Vec::new();
        s.number_released(secs(10), d, &mut out);
        assert_eq!(out, [], "number 1 is still out");
        s.numbers.release(d, 1);
        s.number_released(secs(20), d, &mut out);
        let timer = TimerId::BlockIdle { stream: d };
        assert_eq!(
            out,
            [Output::Timer {
                at: secs(140),
                timer
            }]
        );
        assert_eq!(s.poll_at(), Some(secs(140)));
    }

    /// Control block idle for 2 minutes → transmit block released, numbers forgotten →
    /// ReleaseBlock to the destination IMP → the message waiting for a free transmit block
    /// goes on ("a shortage of transmit and/or receive blocks will normally cause only an
    /// initial setup delay"); if it is still first in line after, nothing more.
    #[test]
    fn a_block_idle_for_its_disuse_time_is_released_and_the_next_message_goes_on() {
        let mut s = imp(1);
        established(&mut s);
        let d = stream(0, 1);
        let other = want(7, MsgState::NeedBlock);
        let other = super::super::procedure::Want {
            stream: stream(0, 2),
            dst: 2,
            ..other
        };
        assert_eq!(V3.step(&mut s, other), Step::BlocksFull { first: true });
        let mut out = Vec::new();
        s.number_released(secs(0), d, &mut out);
        let timer = TimerId::BlockIdle { stream: d };
        assert_eq!(
            out,
            [Output::Timer {
                at: secs(120),
                timer
            }]
        );
        let mut out = Vec::new();
        s.handle_timeout(secs(120), timer, &crate::imp::Nowhere, &mut out);
        let released = [
            Output::Count(Counted::ReleaseBlock),
            Output::Control {
                to: 1,
                stream: d,
                kind: PktKind::ReleaseBlock,
            },
            advance(7),
            Output::Resume(Resume::BlockWaiters { after: 7 }),
        ];
        assert_eq!(out, released);
        assert!(s.numbers.unused(d) && s.poll_at().is_none());
        // The driver moved message 7 on: it made its own block. Nobody else waits.
        assert_eq!(V3.step(&mut s, other), Step::CreateBlock);
        let mut out = Vec::new();
        s.resume(
            secs(120),
            Resume::BlockWaiters { after: 7 },
            &crate::imp::Nowhere,
            &mut out,
        );
        assert_eq!(out, []);
    }

    /// A number given out before the 2 minutes are up cancels the timer, and the wake-up finds
    /// nothing; the number back re-arms it, and a second return before it runs out moves it
    /// later: the wake-up queued for the earlier deadline asks for one at the new one.
    #[test]
    fn a_block_used_again_is_not_released() {
        let mut s = imp(64);
        established(&mut s);
        let d = stream(0, 1);
        let timer = TimerId::BlockIdle { stream: d };
        let mut out = Vec::new();
        s.number_released(secs(0), d, &mut out);
        assert!(matches!(
            V3.step(&mut s, want(0, MsgState::NeedNumber)),
            Step::Numbered { .. }
        ));
        let mut woken = Vec::new();
        s.handle_timeout(secs(120), timer, &crate::imp::Nowhere, &mut woken);
        assert_eq!(woken, [], "a number is out: the block is in use");
        s.numbers.release(d, 0);
        let mut out = Vec::new();
        s.number_released(secs(130), d, &mut out);
        s.number_released(secs(160), d, &mut out);
        assert_eq!(
            out,
            [Output::Timer {
                at: secs(250),
                timer
            }],
            "one wake-up"
        );
        let mut woken = Vec::new();
        s.handle_timeout(secs(250), timer, &crate::imp::Nowhere, &mut woken);
        assert_eq!(
            woken,
            [Output::Timer {
                at: secs(280),
                timer
            }],
            "moved later"
        );
    }

    /// "Source IMP S ... sends a subnet control message to destination IMP D to request the
    /// creation of a receive block": CreateBlock in → receive block made → BlockCreated back
    /// to S. With every receive block in use the request waits in line, counted; a ReleaseBlock
    /// in frees its block, and the request longest in line gets it and its report goes to the
    /// IMP that asked.
    #[test]
    fn create_block_in_makes_the_receive_block_or_waits_for_a_free_one() {
        let mut d = imp(1);
        let (a, b) = (stream(4, 0), stream(6, 0));
        let mut out = Vec::new();
        d.create_block_received(2, a, &mut out);
        let created = |to, stream| Output::Control {
            to,
            stream,
            kind: PktKind::BlockCreated,
        };
        let afresh = |stream| Output::SequenceAfresh { stream };
        assert_eq!(
            out,
            [afresh(a), created(2, a)],
            "a new block: numbers afresh"
        );
        let mut out = Vec::new();
        d.create_block_received(3, b, &mut out);
        assert_eq!(out, [Output::Count(Counted::ReceiveBlockWait)]);
        assert_eq!(d.rx_blocks.waiting(), 1);
        let mut out = Vec::new();
        d.release_block_received(a, &mut out);
        assert_eq!(
            out,
            [
                afresh(b),
                created(3, b),
                Output::Resume(Resume::ReceiveBlocks)
            ]
        );
        let mut out = Vec::new();
        d.resume(
            SimTime::ZERO,
            Resume::ReceiveBlocks,
            &crate::imp::Nowhere,
            &mut out,
        );
        assert_eq!(out, [], "nobody else in line");
        assert_eq!(d.rx_blocks.waiting(), 0);
    }
}
