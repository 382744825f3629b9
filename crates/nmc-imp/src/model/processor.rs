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
use crate::params::{ImpCosts, RoutingFrequency};
use nmc_sim::{Bits, EventQueue, SimDuration, SimTime};

/// What a task is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// A packet that arrived on `link`, on logical channel `lch` with sequence bit `bit`: it is
    /// acknowledged when processed.
    Packet {
        pkt: PktId,
        link: u32,
        lch: u8,
        bit: bool,
    },
    /// Processor time with nothing to hand on: a host's packet taken in, a null packet, a
    /// routing message.
    Cpu,
}

/// One entry of an IMP's task queue: the work, its CPU time, and when it was queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Task {
    pub work: Work,
    pub cost: SimDuration,
    pub queued: SimTime,
}

/// An IMP's processor as a sans-I/O core: it takes `now` and returns what finished; it
/// schedules nothing. The driver asks [`Processor::poll_at`] when the task in service ends
/// and calls [`Processor::handle_timeout`] then.
#[derive(Clone, Debug, Default)]
pub struct Processor {
    queue: std::collections::VecDeque<Task>,
    /// The task in service and when it finishes.
    serving: Option<(Task, SimTime)>,
    /// The timeout level holds the processor until then.
    blocked_until: SimTime,
    /// Changes whenever the deadline does, so a driver can recognise stale wake-ups.
    generation: u32,
    /// Clock ticks so far.
    pub ticks: u64,
    // Counters.
    pub tasks: u64,
    pub wait_ns: u128,
    pub wait_max_ns: u64,
    pub busy_ns: u128,
}

impl Processor {
    /// Task level: `work` joins the FIFO; it starts at once if the processor is free.
    pub fn push(&mut self, now: SimTime, work: Work, cost: SimDuration) {
        self.queue.push_back(Task {
            work,
            cost,
            queued: now,
        });
        if self.serving.is_none() {
            self.start_next(now);
        }
    }

    /// When the task in service finishes, with the generation of that deadline.
    pub fn poll_at(&self) -> Option<(SimTime, u32)> {
        self.serving.map(|(_, t)| (t, self.generation))
    }

    /// The task in service is done at `now` (its deadline): returns it and starts the next.
    pub fn handle_timeout(&mut self, now: SimTime) -> Option<Task> {
        match self.serving {
            Some((task, done)) if done <= now => {
                self.serving = None;
                self.start_next(now);
                Some(task)
            }
            _ => None,
        }
    }

    /// Timeout level (listing p. 11: T.O above TSK): the clock takes the processor for `cost`,
    /// and the task in service finishes that much later.
    pub fn preempt(&mut self, now: SimTime, cost: SimDuration) {
        self.ticks += 1;
        if cost.is_zero() {
            return;
        }
        self.blocked_until = self.blocked_until.max(now) + cost;
        self.busy_ns += cost.as_nanos() as u128;
        if let Some((_, done)) = self.serving.as_mut() {
            *done += cost;
            self.generation = self.generation.wrapping_add(1);
        }
    }

    /// The packets among the tasks, in service first.
    pub fn packets(&self) -> impl Iterator<Item = PktId> + '_ {
        self.serving
            .iter()
            .map(|(t, _)| t)
            .chain(&self.queue)
            .filter_map(|t| match t.work {
                Work::Packet { pkt, .. } => Some(pkt),
                Work::Cpu => None,
            })
    }

    /// Tasks queued or in service.
    pub fn len(&self) -> usize {
        self.queue.len() + self.serving.is_some() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Is a packet among the tasks? (A packet held here is a resource; CPU time is not.)
    pub fn holds_packet(&self) -> bool {
        let packet = |t: &Task| matches!(t.work, Work::Packet { .. });
        self.queue.iter().any(packet) || self.serving.is_some_and(|(t, _)| packet(&t))
    }

    fn start_next(&mut self, now: SimTime) {
        let Some(task) = self.queue.pop_front() else {
            return;
        };
        let start = now.max(self.blocked_until);
        let waited = start.since(task.queued).as_nanos();
        self.tasks += 1;
        self.wait_ns += waited as u128;
        self.wait_max_ns = self.wait_max_ns.max(waited);
        self.busy_ns += task.cost.as_nanos() as u128;
        self.serving = Some((task, start + task.cost));
        self.generation = self.generation.wrapping_add(1);
    }
}

impl Subnet {
    /// What the processor of `imp` spends on each kind of work (its model's costs).
    fn costs(&self, imp: u32) -> ImpCosts {
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
    fn arm(&mut self, imp: u32, before: Option<(SimTime, u32)>, q: &mut EventQueue<Ev>) {
        let after = self.imps[imp as usize].cpu.poll_at();
        if after != before
            && let Some((t, epoch)) = after
        {
            q.schedule(t, Ev::ProcDone { imp, epoch });
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

    pub(super) fn proc_done(&mut self, now: SimTime, imp: u32, epoch: u32, q: &mut EventQueue<Ev>) {
        let timer = TimerId::Task { generation: epoch };
        let Some(Expired::TaskDone(task)) = self.imps[imp as usize].handle_timeout(now, timer)
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

#[cfg(test)]
mod tests {
    //! The processor core alone, fed times and tasks, read as the IMP program's rules.
    use super::*;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }
    fn at(x: u64) -> SimTime {
        SimTime::ZERO + ms(x)
    }

    /// Listing p. 62: the task level serves one FIFO queue, one task at a time.
    #[test]
    fn tasks_are_served_first_in_first_out() {
        let mut p = Processor::default();
        p.push(at(0), Work::Cpu, ms(2));
        p.push(at(1), Work::Cpu, ms(3));
        assert_eq!(p.poll_at().map(|d| d.0), Some(at(2)));
        let first = p.handle_timeout(at(2)).expect("due");
        assert_eq!(first.queued, at(0));
        assert_eq!(p.poll_at().map(|d| d.0), Some(at(5)));
        let second = p.handle_timeout(at(5)).expect("due");
        assert_eq!(second.queued, at(1));
        assert!(p.is_empty() && p.poll_at().is_none());
        // The second waited 1 ms (queued at 1, started at 2).
        assert_eq!(p.wait_ns, 1_000_000);
        assert_eq!(p.tasks, 2);
    }

    /// Listing p. 11: the timeout level pre-empts the task level; the task in service ends
    /// later by the clock job's CPU time, and the deadline's generation changes.
    #[test]
    fn the_clock_preempts_the_task_in_service() {
        let mut p = Processor::default();
        p.push(at(0), Work::Cpu, ms(2));
        let (t0, g0) = p.poll_at().unwrap();
        p.preempt(at(1), ms(7));
        let (t1, g1) = p.poll_at().unwrap();
        assert_eq!((t0, t1), (at(2), at(9)));
        assert_ne!(g0, g1, "a driver must see the old wake-up as stale");
        assert!(
            p.handle_timeout(at(2)).is_none(),
            "not due before its new deadline"
        );
        assert!(p.handle_timeout(at(9)).is_some());
        assert_eq!(p.ticks, 1);
    }

    /// A task that arrives while the clock holds the processor starts when the clock is done.
    #[test]
    fn a_task_waits_for_the_clock_job() {
        let mut p = Processor::default();
        p.preempt(at(0), ms(11));
        p.push(at(1), Work::Cpu, ms(2));
        assert_eq!(p.poll_at().map(|d| d.0), Some(at(13)));
        p.handle_timeout(at(13));
        assert_eq!(p.wait_max_ns, 10_000_000);
    }

    /// A packet held by the task level is a resource; CPU time alone is not.
    #[test]
    fn only_packets_are_held() {
        let mut p = Processor::default();
        p.push(at(0), Work::Cpu, ms(1));
        assert!(!p.holds_packet());
        p.push(
            at(0),
            Work::Packet {
                pkt: 7,
                link: 0,
                lch: 0,
                bit: true,
            },
            ms(1),
        );
        assert!(p.holds_packet());
        p.handle_timeout(at(1));
        assert!(p.holds_packet(), "the packet is now in service");
        p.handle_timeout(at(2));
        assert!(!p.holds_packet());
    }
}
