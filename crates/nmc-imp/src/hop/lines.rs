//! The IMP's side of its lines (K&O §III; the line's own rules are `link.rs`'s): a frame gone
//! out, its retransmission timer armed, a packet unacknowledged after its timeout sent
//! again, a routing send opportunity used or not, and a line going down and coming up.

use crate::imp::{Effects, Imp, Output, Resume, TimerId};
use crate::link::Hold;
use crate::link::{Frame, FrameKind};
use crate::observe::Counted;
use crate::packet::PktId;
use crate::params::RoutingNull;
use crate::timer::Deadline;
use nmc_routing::{LineId, Router};
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
        let gap = self.costs().output_gap;
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
        // BBN 3050 pp. 105–107 (`I2M` … `I2MALL`): the output-done interrupt's routine frees
        // the acknowledged packet, looks for a routing message due and takes the next packet
        // from the line's ring before it starts the interface again. A frame already waiting
        // starts only when that is done (the profile's `output_gap_316`/`_516`, measured on
        // the program); a line with nothing to send is simply idle, and whatever comes next
        // starts as soon as it is queued.
        if !gap.is_zero() && link.has_work() {
            link.gap = true;
            out.push(Output::Timer {
                at: now + gap,
                timer: TimerId::OutputReady { line },
            });
            // With `modem_interrupts = "cpu-1973"` that routine takes the processor for the
            // gap (p. 11: IMP-to-modem runs above the timeout level and the task).
            if self.costs().modem_input.is_some() {
                self.interrupt(now, gap, out);
            }
        }
    }

    /// The output routine of `line` is done ([`TimerId::OutputReady`]): the line's next
    /// frame may start.
    pub(crate) fn output_ready(&mut self, line: usize, out: &mut impl Effects) {
        self.lines[line].gap = false;
        self.ask_transmit(line, out);
    }

    /// A frame starts on `line` (the one [`Imp::poll_transmit`] gave): it takes `tx` on the
    /// line, added to the line's busy time (the load `RMVFRQ` reads,
    /// [`crate::link::Link::routing_opportunity`]), and is counted (`packet`: it carries one);
    /// a line error hits it with probability `p_err` (the driver's, from the profile's bit error
    /// rate), drawn from the line's own stream. Returns whether one did.
    #[inline]
    pub(crate) fn frame_started(
        &mut self,
        line: usize,
        tx: SimDuration,
        packet: bool,
        p_err: f64,
    ) -> bool {
        let link = &mut self.lines[line];
        let hit = link.errors.bernoulli(p_err);
        link.busy_time += tx;
        link.frames += 1;
        if packet {
            link.data_frames += 1;
        }
        hit
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
    /// message first in the line's next frame, which the driver is asked to start. `slow`:
    /// whether it is the slow tick's, when the driver counts opportunities on the IMP's clock.
    pub(crate) fn routing_opportunity(
        &mut self,
        line: usize,
        slot: SimDuration,
        by_load: bool,
        slow: Option<bool>,
        out: &mut impl Effects,
    ) {
        let rule = self.limits.line.routing;
        let null = self.limits.line.routing_null == RoutingNull::Before1973;
        let link = &mut self.lines[line];
        if !by_load || link.routing_opportunity(slot, rule, slow) {
            link.routing_due = true;
            // BBN 3050 p. 164 `RSTO6`: "ALWAYS SEND NULL W/ROUTING" (`routing_null`).
            link.null_due |= null;
            self.ask_transmit(line, out);
        }
    }

    /// `line` went down (the driver's line event; our choices, `crate::routing`, "Lines going
    /// down and coming up"), its sending side first:
    /// the packets on its channels that the far IMP had accepted (`accepted`, by channel:
    /// [`crate::link::accepted_at_line_down`]) count as acknowledged, each in turn
    /// ([`Resume::AcceptedAtLineDown`]: the copy dropped and this IMP's hosts woken, as an
    /// acknowledgement does, before the next); the others are taken off their channels and
    /// returned, in channel order, to be routed again. Once the driver has carried out what
    /// this pushed, [`Imp::line_down_reset`].
    pub(crate) fn line_down(
        &mut self,
        line: usize,
        accepted: u8,
        out: &mut impl Effects,
    ) -> Vec<(PktId, Hold)> {
        let mut taken = Vec::new();
        for (lch, c) in self.lines[line].lch.iter_mut().enumerate() {
            let Some(held) = c.held else {
                continue;
            };
            if accepted & (1 << lch) != 0 {
                let (lch, bit) = (lch as u8, c.bit);
                out.push(Output::Resume(Resume::AcceptedAtLineDown {
                    line,
                    lch,
                    bit,
                }));
            } else {
                c.held = None;
                c.next_generation();
                taken.push(held);
            }
        }
        taken
    }

    /// The packet on channel `lch` of `line` (sequence bit `bit`), which the far IMP had
    /// accepted when the line went down ([`Imp::line_down`]), is acknowledged
    /// ([`Imp::acknowledge`]): its copy is dropped and this IMP's hosts may go on (no frame
    /// starts: the line is down).
    pub(crate) fn acknowledged_at_line_down(
        &mut self,
        line: usize,
        lch: u8,
        bit: bool,
        out: &mut impl Effects,
    ) {
        if let Some(pkt) = self.acknowledge(line, lch, bit) {
            out.push(Output::Free { pkt });
            self.reqalls_acknowledged(out);
            out.push(Output::WakeHosts);
        }
    }

    /// `line` is down, the hosts woken by what its channels' acceptance freed
    /// ([`Imp::line_down`]): its sending side starts afresh
    /// ([`crate::link::Link::reset_at_line_down`]), and the packets on its queues are
    /// returned, control messages first, to be routed again after those taken off its
    /// channels; then the IMP's router learns the line is down (nmc-routing's line-down).
    pub(crate) fn line_down_reset(&mut self, now: SimTime, line: usize) -> Vec<(PktId, Hold)> {
        let queued = self.lines[line].reset_at_line_down();
        if let Some(r) = self.router.as_mut() {
            r.handle_line_down(now, LineId(self.lines[line].id));
        }
        queued
    }

    /// The other direction of `line` went down: this IMP forgets the sequence bits it last
    /// accepted on it (its receiving side starts afresh with the line protocol).
    pub(crate) fn line_down_received(&mut self, line: usize) {
        self.lines[line].in_last = [None; 8];
    }

    /// `line` came back up: the IMP's router, if it runs one, learns it and sends a routing
    /// message at once (nmc-routing's line-up), and the line may start its next frame.
    pub(crate) fn line_up(&mut self, now: SimTime, line: usize, out: &mut impl Effects) {
        if let Some(r) = self.router.as_mut() {
            r.handle_line_up(now, LineId(self.lines[line].id));
            self.lines[line].routing_due = true;
        }
        self.ask_transmit(line, out);
    }

    /// The frame being sent on `line` when it went down is lost (its end came): the line is
    /// free, and may start its next frame if it is back up.
    pub(crate) fn frame_lost(&mut self, line: usize, out: &mut impl Effects) {
        self.lines[line].busy = false;
        self.ask_transmit(line, out);
    }

    /// `line` has something to send: the driver is asked to start its next frame
    /// ([`Output::Transmit`]) unless the line is busy with one, whose end starts the next
    /// anyway (the driver's side of [`Imp::frame_sent`]); nothing can free the line before the
    /// driver reaches this output, so the ask would find it busy.
    #[inline(always)]
    pub(crate) fn ask_transmit(&self, line: usize, out: &mut impl Effects) {
        let link = &self.lines[line];
        if link.free() {
            out.push(Output::Transmit { link: link.id });
        }
    }
}
