//! The IMP's processor: one queue for all of an IMP's work, and the timeout routines above it.
//!
//! BBN's IMP program 3050 (16 Sept 1973, listing p. 11) runs at priority levels, highest first:
//! modem input, VDH, IMP-to-modem, IMP-to-host, host-to-IMP, **timeout (T.O)**, **task (TSK)**,
//! background. Modem input and host input put each packet at the end of *one* FIFO task
//! queue (pp. 93, 133); the task level takes them in turn: the store-and-forward decision,
//! duplicate detection, queueing for output, the destination's reassembly, and routing
//! messages, which go through the same queue (p. 67). Every 25.6 ms the timeout level runs the
//! fast jobs, and every 25th time (640 ms) the slow ones, among them the routing computation;
//! it pre-empts the task level. So in nmc:
//!
//! * every frame that arrives intact, and every packet a host puts in, is a [`Task`] in the
//!   IMP's FIFO, served one at a time. Its CPU time: a data or control packet's frame bits at
//!   the IMP's processing bandwidth (K&O §III: ~700 kbit/s for a 316, ~850 for a 516); a null
//!   (acknowledgement-only) packet, a new routing message and a repeated one their own costs
//!   ([`crate::params::ImpCosts`]);
//! * a packet is acknowledged to the neighbour when the task level has accepted it (`GOODM`,
//!   p. 70: the acknowledgement bit is flipped and a null packet sent if the line is idle), so
//!   a long processing queue holds the sender's logical channels and can run into its 125 ms
//!   retransmission timeout;
//! * the clock pre-empts: a fast tick takes the processor for its CPU time, a slow tick for
//!   that and the slow jobs'; the task in service finishes that much later. IMPs' clocks are
//!   not in phase (each IMP's first tick is staggered over one period);
//! * simplifications: a host's packet costs the processor its CPU time, but enters the
//!   output queue (or waits for its message's resources) at once rather than after its turn;
//!   a routing message updates the tables when it arrives and costs its CPU time in the queue.
//!
//! The time tasks wait in the queue is measured per IMP (`processing.wait_*` metrics): K&O §VII
//! give ~10 ms on 316s in 1975 (more than 5× the 516's), with waits of several hundred ms in
//! particular cases.

use super::{Ev, Subnet};
use crate::imp::{Expired, TimerId};
use crate::link::{FrameKind, Hold};
use crate::packet::PktId;
use crate::params::{Giveback, ImpCosts, RoutingFrequency};
use crate::processor::Work;
use nmc_sim::{Bits, EventQueue, SimDuration, SimTime};

impl Subnet {
    /// What the processor of `imp` spends on each kind of work (its model's costs).
    pub(super) fn costs(&self, imp: u32) -> ImpCosts {
        self.params.costs(self.imps[imp as usize].model)
    }

    /// Puts a task on the processor of `imp` (its CPU time from the IMP's costs).
    pub(super) fn process(&mut self, now: SimTime, imp: u32, work: Work, q: &mut EventQueue<Ev>) {
        let cost = match work {
            Work::Packet { pkt, .. } => {
                let bits = self.frame_bits(self.slab.get(pkt));
                self.costs(imp).packet_rate.transmission_time(bits)
            }
            Work::Cpu => SimDuration::ZERO,
        };
        self.process_for(now, imp, work, cost, q);
    }

    fn process_for(
        &mut self,
        now: SimTime,
        imp: u32,
        work: Work,
        cost: SimDuration,
        q: &mut EventQueue<Ev>,
    ) {
        let cpu = &mut self.imps[imp as usize].cpu;
        let before = cpu.poll_at();
        cpu.push(now, work, cost);
        self.arm(imp, before, q);
    }

    /// Schedules the processor's wake-up if its deadline moved.
    #[inline(always)]
    fn arm(&mut self, imp: u32, before: Option<(SimTime, u32)>, q: &mut EventQueue<Ev>) {
        let after = self.imps[imp as usize].cpu.poll_at();
        if after != before
            && let Some((t, epoch)) = after
        {
            q.schedule(t, Ev::Task { imp, epoch });
        }
    }

    /// The CPU time of a host's packet of `bits` data bits taken in by `imp`.
    pub(super) fn host_packet(
        &mut self,
        now: SimTime,
        imp: u32,
        bits: u64,
        q: &mut EventQueue<Ev>,
    ) {
        let frame = Bits::new(bits + self.params.packet_overhead.get());
        let cost = self.costs(imp).packet_rate.transmission_time(frame);
        self.process_for(now, imp, Work::Cpu, cost, q);
    }

    pub(super) fn task_done(&mut self, now: SimTime, imp: u32, epoch: u32, q: &mut EventQueue<Ev>) {
        let timer = TimerId::Task { generation: epoch };
        let Some(Expired::TaskDone(task)) =
            self.step(now, imp, q, |i, out| i.handle_timeout(now, timer, out))
        else {
            return; // a clock tick moved this task's end later
        };
        self.arm(imp, None, q);
        if let Work::Packet {
            pkt,
            link,
            lch,
            bit,
        } = task.work
        {
            self.packet_processed(now, imp, pkt, link, lch, bit, q);
        }
    }

    /// The task level has accepted packet `pkt` from `link`: acknowledge it, then hand it to
    /// the destination procedure or queue it for its next line.
    #[allow(clippy::too_many_arguments)]
    fn packet_processed(
        &mut self,
        now: SimTime,
        imp: u32,
        pkt: PktId,
        link: u32,
        lch: u8,
        bit: bool,
        q: &mut EventQueue<Ev>,
    ) {
        // Listing p. 70 (`GOODM`): the acknowledgement goes when the packet is accepted.
        let rev = self.link(link).reverse;
        if self.routing.line_up(rev) {
            let line = self.link_at[rev as usize].1;
            self.imps[imp as usize].owe_acknowledgement(line as usize, lch, bit);
            self.try_send(now, rev, q);
        }
        let p = *self.slab.get(pkt);
        if p.dst == imp {
            self.slab.remove(pkt);
            self.destination_receives(now, imp, p, q);
        } else {
            let hold = if p.kind.is_control() {
                Hold::Control
            } else {
                Hold::Transit
            };
            let planned = if hold == Hold::Transit {
                self.routing.take_plan(pkt)
            } else {
                None
            };
            let route = self.routing.next_link(&self.topo, imp, p.dst);
            let priority = self.params.control_priority;
            if self.imps[imp as usize]
                .forward(pkt, hold, planned, route, priority)
                .is_none()
            {
                // No route now: the packet waits in the IMP.
                self.routing.park(imp, pkt, hold);
                return;
            }
            let l = route.expect("a packet joins the line of its route");
            self.try_send(now, l, q);
        }
    }

    /// A frame without a packet arrived intact: its CPU time joins the queue.
    pub(super) fn frame_cost(
        &mut self,
        now: SimTime,
        at: u32,
        kind: FrameKind,
        q: &mut EventQueue<Ev>,
    ) {
        let c = self.costs(at);
        let t = match kind {
            FrameKind::Routing { fresh: true, .. } => c.routing_update,
            FrameKind::Routing { fresh: false, .. } => c.routing_repeat,
            FrameKind::AckOnly => c.null_packet,
            FrameKind::Packet { .. } => return,
        };
        if !t.is_zero() {
            self.process_for(now, at, Work::Cpu, t, q);
        }
    }

    /// The IMP's clock: a fast tick, and every `slow_tick_every`-th a slow one, pre-empting
    /// the task level for their CPU time.
    pub(super) fn clock(&mut self, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        let every = self.params.slow_tick_every as u64;
        let c = self.costs(imp);
        let cpu = &mut self.imps[imp as usize].cpu;
        let slow = (cpu.ticks + 1).is_multiple_of(every);
        let t = c.fast_tick + if slow { c.slow_tick } else { SimDuration::ZERO };
        let before = cpu.poll_at();
        cpu.preempt(now, t);
        self.arm(imp, before, q);
        q.schedule(now + self.params.fast_tick, Ev::Clock { imp });
        if self.params.giveback == Giveback::Tally1973 {
            self.step(now, imp, q, |i, out| i.tally_tick(out));
        }
        self.tick_wakes_hosts(now, imp, q);
    }

    /// Time between routing send opportunities on `link`, and whether it follows the line's
    /// load ([`RoutingFrequency::LineLoad1973`]) or goes every period.
    pub(super) fn routing_slot(&self, link: u32) -> (SimDuration, bool) {
        let period = self.routing.period(link);
        let by_load = self.params.routing_frequency == RoutingFrequency::LineLoad1973
            && period == self.params.routing_period;
        if !by_load {
            return (period, false);
        }
        // Listing pp. 163–164 (`RSTOUT`): the base interval is the period / opportunities
        // (128 ms) on a 50 kbit/s line, every fast tick on 230.4/250 kbit/s lines, a whole
        // period on slower lines. **Choice** for speeds the listing does not name: the nearest.
        let p = &self.params;
        let bps = self.link(link).def.capacity.bps();
        let slot = if bps >= 200_000 {
            p.fast_tick
        } else if bps >= 40_000 {
            period / p.routing_opportunities as u64
        } else {
            period
        };
        (slot, true)
    }

    /// A routing send opportunity on `link`.
    pub(super) fn routing_tick(&mut self, now: SimTime, link: u32, q: &mut EventQueue<Ev>) {
        let (slot, by_load) = self.routing_slot(link);
        let send = if by_load {
            // Listing p. 235 (`RMVFRQ`): of every `routing_opportunities`, one fewer is used for
            // each full `routing_busy_unit` (per `routing_period`) the line was busy during
            // the last ones; at least one is used.
            let (opps, unit, period) = (
                self.params.routing_opportunities,
                self.params.routing_busy_unit,
                self.params.routing_period,
            );
            let l = self.link_mut(link);
            if l.rf_slot == 0 {
                let busy = (l.busy_time - l.rf_busy_mark).as_nanos() as u128;
                // The unit scales with the span counted (slot × opportunities).
                let unit = unit.as_nanos() as u128 * (slot.as_nanos() as u128 * opps as u128)
                    / period.as_nanos().max(1) as u128;
                let drop = (busy / unit.max(1)).min(opps as u128 - 1) as u32;
                l.rf_sends = opps - drop;
                l.rf_busy_mark = l.busy_time;
            }
            let (k, n) = (l.rf_slot, l.rf_sends);
            l.rf_slot = (l.rf_slot + 1) % opps;
            (k + 1) * n / opps > k * n / opps
        } else {
            true
        };
        if send {
            self.link_mut(link).routing_due = true;
            self.try_send(now, link, q);
        }
        q.schedule(now + slot, Ev::RoutingTick { link });
    }
}
