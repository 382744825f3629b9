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
use crate::link::{FrameKind, Hold};
use crate::packet::PktId;
use crate::params::RoutingFrequency;
use nmc_sim::{Bits, EventQueue, SimDuration, SimTime};

/// What a task is.
#[derive(Clone, Copy, Debug)]
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
    Cpu(SimDuration),
}

/// One entry of an IMP's task queue.
#[derive(Clone, Copy, Debug)]
pub struct Task {
    pub work: Work,
    pub queued: SimTime,
}

/// An IMP's processor.
#[derive(Clone, Debug, Default)]
pub struct Processor {
    pub queue: std::collections::VecDeque<Task>,
    pub busy: bool,
    /// When the task in service finishes, and its generation (a tick moves it later).
    pub done_at: SimTime,
    pub epoch: u32,
    /// The timeout level holds the processor until then.
    pub blocked_until: SimTime,
    /// Fast ticks so far.
    pub ticks: u64,
    // Counters.
    pub tasks: u64,
    pub wait_ns: u128,
    pub wait_max_ns: u64,
    pub busy_ns: u128,
}

impl Subnet {
    /// Puts a task on the processor of `imp`.
    pub(super) fn process(&mut self, now: SimTime, imp: u16, work: Work, q: &mut EventQueue<Ev>) {
        self.imps[imp as usize]
            .cpu
            .queue
            .push_back(Task { work, queued: now });
        self.start_processing(now, imp, q);
    }

    fn cost(&self, imp: u16, work: Work) -> SimDuration {
        match work {
            Work::Packet { pkt, .. } => {
                let bits = self.frame_bits(self.slab.get(pkt));
                self.imps[imp as usize]
                    .costs
                    .packet_rate
                    .transmission_time(bits)
            }
            Work::Cpu(t) => t,
        }
    }

    /// The CPU time of a host's packet of `bits` data bits taken in by `imp`.
    pub(super) fn host_packet_cost(&self, imp: u16, bits: u64) -> SimDuration {
        let frame = Bits::new(bits + self.params.packet_overhead.get());
        self.imps[imp as usize]
            .costs
            .packet_rate
            .transmission_time(frame)
    }

    pub(super) fn start_processing(&mut self, now: SimTime, imp: u16, q: &mut EventQueue<Ev>) {
        let i = &self.imps[imp as usize];
        if i.cpu.busy {
            return;
        }
        let Some(&task) = i.cpu.queue.front() else {
            return;
        };
        let t = self.cost(imp, task.work);
        let cpu = &mut self.imps[imp as usize].cpu;
        let start = now.max(cpu.blocked_until);
        let waited = start.since(task.queued).as_nanos();
        cpu.tasks += 1;
        cpu.wait_ns += waited as u128;
        cpu.wait_max_ns = cpu.wait_max_ns.max(waited);
        cpu.busy_ns += t.as_nanos() as u128;
        cpu.busy = true;
        cpu.epoch = cpu.epoch.wrapping_add(1);
        cpu.done_at = start + t;
        q.schedule(
            cpu.done_at,
            Ev::ProcDone {
                imp,
                epoch: cpu.epoch,
            },
        );
    }

    pub(super) fn proc_done(&mut self, now: SimTime, imp: u16, epoch: u32, q: &mut EventQueue<Ev>) {
        let cpu = &mut self.imps[imp as usize].cpu;
        if !cpu.busy || cpu.epoch != epoch {
            return; // a clock tick moved this task's end later
        }
        cpu.busy = false;
        let task = cpu.queue.pop_front().expect("a task in service");
        if let Work::Packet {
            pkt,
            link,
            lch,
            bit,
        } = task.work
        {
            self.packet_processed(now, imp, pkt, link, lch, bit, q);
        }
        self.start_processing(now, imp, q);
    }

    /// The task level has accepted packet `pkt` from `link`: acknowledge it, then hand it to
    /// the destination procedure or queue it for its next line.
    #[allow(clippy::too_many_arguments)]
    fn packet_processed(
        &mut self,
        now: SimTime,
        imp: u16,
        pkt: PktId,
        link: u32,
        lch: u8,
        bit: bool,
        q: &mut EventQueue<Ev>,
    ) {
        // Listing p. 70 (`GOODM`): the acknowledgement goes when the packet is accepted.
        let rev = self.links[link as usize].reverse;
        if self.routing.line_up(rev) {
            self.links[rev as usize].add_ack(lch, bit);
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
            let Some(l) = self.forward_link(imp, pkt, hold) else {
                return; // no route now: the packet waits in the IMP
            };
            if hold == Hold::Transit {
                self.links[l as usize].incoming -= 1;
            }
            self.enqueue(l, pkt, hold);
            self.try_send(now, l, q);
        }
    }

    /// A frame without a packet arrived intact: its CPU time joins the queue.
    pub(super) fn frame_cost(
        &mut self,
        now: SimTime,
        at: u16,
        kind: FrameKind,
        q: &mut EventQueue<Ev>,
    ) {
        let c = self.imps[at as usize].costs;
        let t = match kind {
            FrameKind::Routing { fresh: true, .. } => c.routing_update,
            FrameKind::Routing { fresh: false, .. } => c.routing_repeat,
            FrameKind::AckOnly => c.null_packet,
            FrameKind::Packet { .. } => return,
        };
        if !t.is_zero() {
            self.process(now, at, Work::Cpu(t), q);
        }
    }

    /// The IMP's clock: a fast tick, and every `slow_tick_every`-th a slow one, pre-empting
    /// the task level for their CPU time.
    pub(super) fn clock(&mut self, now: SimTime, imp: u16, q: &mut EventQueue<Ev>) {
        let every = self.params.slow_tick_every as u64;
        let c = self.imps[imp as usize].costs;
        let cpu = &mut self.imps[imp as usize].cpu;
        cpu.ticks += 1;
        let t = c.fast_tick
            + if cpu.ticks.is_multiple_of(every) {
                c.slow_tick
            } else {
                SimDuration::ZERO
            };
        if !t.is_zero() {
            cpu.blocked_until = cpu.blocked_until.max(now) + t;
            cpu.busy_ns += t.as_nanos() as u128;
            if cpu.busy {
                cpu.done_at += t;
                cpu.epoch = cpu.epoch.wrapping_add(1);
                q.schedule(
                    cpu.done_at,
                    Ev::ProcDone {
                        imp,
                        epoch: cpu.epoch,
                    },
                );
            }
        }
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
        // Listing pp. 163–164 (`RSTOUT`): the base interval is 5 fast ticks (128 ms) on a
        // 50 kbit/s line, every tick on 230.4/250 kbit/s lines, 25 ticks on slower lines.
        // **Choice** for speeds the listing does not name: the nearest of these.
        let bps = self.links[link as usize].def.capacity.bps();
        let slot = if bps >= 200_000 {
            period / 25
        } else if bps >= 40_000 {
            period / 5
        } else {
            period
        };
        (slot, true)
    }

    /// A routing send opportunity on `link`.
    pub(super) fn routing_tick(&mut self, now: SimTime, link: u32, q: &mut EventQueue<Ev>) {
        let (slot, by_load) = self.routing_slot(link);
        let send = if by_load {
            // Listing p. 235 (`RMVFRQ`): every 5 opportunities, one fewer is used for each
            // full 132/640 of the last 5 the line was busy; at least one is used.
            let l = &mut self.links[link as usize];
            if l.rf_slot == 0 {
                let busy = l.busy_time.as_nanos() - l.rf_busy_mark.as_nanos();
                let unit = (slot.as_nanos() * 5) as u128 * 132 / 640;
                let drop = (busy as u128 / unit.max(1)).min(4) as u8;
                l.rf_sends = 5 - drop;
                l.rf_busy_mark = l.busy_time;
            }
            let (k, n) = (l.rf_slot as u32, l.rf_sends as u32);
            l.rf_slot = (l.rf_slot + 1) % 5;
            (k + 1) * n / 5 > k * n / 5
        } else {
            true
        };
        if send {
            self.links[link as usize].routing_due = true;
            self.try_send(now, link, q);
        }
        q.schedule(now + slot, Ev::RoutingTick { link });
    }
}
