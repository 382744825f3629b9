//! The IMP's side of its lines (K&O §III; the line's own rules are `link.rs`'s): a frame gone
//! out, its retransmission timer armed, a packet unacknowledged after its timeout sent
//! again, and a routing send opportunity used or not.

use crate::imp::{Effects, Imp, Output, TimerId};
use crate::link::{Frame, FrameKind};
use crate::observe::Counted;
use crate::timer::Deadline;
use nmc_sim::{SimDuration, SimTime};

impl Imp {
    /// The frame on `line` has gone out at `now`: the line is free; a packet's
    /// retransmission timer starts ([`crate::link::Link::arm_retransmission`]; K&O §III's
    /// 125 ms, [`crate::imp::LineLimits::retransmit_timeout`]) and a wake-up is asked for its
    /// deadline. (The line's next frame and the hosts' next packets are the driver's: it keeps
    /// the lines and the interfaces.)
    #[inline]
    pub(crate) fn frame_sent(
        &mut self,
        line: usize,
        frame: &Frame,
        now: SimTime,
        out: &mut impl Effects,
    ) {
        let timeout = self.limits.line.retransmit_timeout;
        let link = &mut self.lines[line];
        link.busy = false;
        if let FrameKind::Packet { lch, .. } = frame.kind {
            let d = link.arm_retransmission(lch, now, timeout);
            let timer = TimerId::Retransmit {
                line,
                lch,
                generation: d.generation,
            };
            out.push(Output::Timer { at: d.at, timer });
        }
    }

    /// The retransmission timer of channel `lch` of `line`, armed at `generation`, woke at
    /// `now` ([`TimerId::Retransmit`]). K&O §III: a packet is "retransmitted if no IMP-to-IMP
    /// acknowledgment has been received after a 125 ms timeout": if it is still on the channel,
    /// it waits to be sent again ([`crate::link::Link::retransmit`]), counted, and the line may
    /// start it.
    #[inline]
    pub(crate) fn retransmission_due(
        &mut self,
        now: SimTime,
        line: usize,
        lch: u8,
        generation: u32,
        out: &mut impl Effects,
    ) {
        let link = &mut self.lines[line];
        debug_assert!(
            Deadline::on_time(
                link.lch[lch as usize].retransmit_deadline(),
                generation,
                now
            ),
            "a retransmission timer wakes at its deadline"
        );
        if link.retransmit(lch, generation, now) {
            out.push(Output::Count(Counted::Retransmission));
            self.ask_transmit(line, out);
        }
    }

    /// A routing send opportunity on `line` at `now`; the driver's clock gives one every
    /// `slot` (listing pp. 163–164, `RSTOUT`). Every one is used (`by_load` false: the
    /// profile's fixed frequency), or as many as the line's load allows (listing p. 235,
    /// `RMVFRQ`: [`crate::link::Link::routing_opportunity`]); a used one puts a routing
    /// message first in the line's next frame, which the driver is asked to start.
    pub(crate) fn routing_opportunity(
        &mut self,
        line: usize,
        slot: SimDuration,
        by_load: bool,
        out: &mut impl Effects,
    ) {
        let rule = self.limits.line.routing;
        let link = &mut self.lines[line];
        if !by_load || link.routing_opportunity(slot, rule) {
            link.routing_due = true;
            self.ask_transmit(line, out);
        }
    }

    /// `line` has something to send: the driver is asked to start its next frame
    /// ([`Output::Transmit`]) unless the line is busy with one, whose end starts the next
    /// anyway (the driver's side of [`Imp::frame_sent`]); nothing can free the line before the
    /// driver reaches this output, so the ask would find it busy.
    #[inline(always)]
    pub(crate) fn ask_transmit(&self, line: usize, out: &mut impl Effects) {
        let link = &self.lines[line];
        if !link.busy {
            out.push(Output::Transmit { link: link.id });
        }
    }
}
