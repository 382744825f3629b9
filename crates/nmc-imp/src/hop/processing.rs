//! The IMP's processor: one queue for all of an IMP's work, the timeout routines above it, and
//! what the task level does with a packet.
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
//! * every frame that arrives intact, and every packet a host puts in, is a task in the
//!   IMP's FIFO ([`crate::processor::Processor`]), served one at a time. Its CPU time: a data
//!   or control packet's frame bits at the IMP's processing bandwidth (K&O §III: ~700 kbit/s
//!   for a 316, ~850 for a 516; [`Imp::packet_in`], [`Imp::host_packet_taken`]); a null
//!   (acknowledgement-only) packet, a new routing message and a repeated one their own costs
//!   ([`crate::params::ImpCosts`]; [`Imp::frame_taken`]);
//! * a packet is acknowledged to the neighbour when the task level has accepted it (`GOODM`,
//!   p. 70: the acknowledgement bit is flipped and a null packet sent if the line is idle), so
//!   a long processing queue holds the sender's logical channels and can run into its 125 ms
//!   retransmission timeout ([`Imp::task_done`]);
//! * the clock pre-empts: a fast tick takes the processor for its CPU time, a slow tick for
//!   that and the slow jobs'; the task in service finishes that much later
//!   ([`Imp::clock_tick`]). IMPs' clocks are not in phase (each IMP's first tick is staggered
//!   over one period by the driver, which keeps the clock);
//! * simplifications: a host's packet costs the processor its CPU time, but enters the
//!   output queue (or waits for its message's resources) at once rather than after its turn;
//!   a routing message updates the tables when it arrives and costs its CPU time in the queue.
//!
//! The time tasks wait in the queue is measured per IMP (`processing.wait_*` metrics): K&O §VII
//! give ~10 ms on 316s in 1975 (more than 5× the 516's), with waits of several hundred ms in
//! particular cases.

use crate::imp::{Effects, Imp, Net, Output, Resume, TimerId};
use crate::link::{FrameKind, Hold};
use crate::packet::{MsgId, Packet, PktId, PktKind};
use crate::params::{HostPacketEntry, ImpCosts, ImpModel, ReplyToHost};
use crate::processor::{NO_PLACE, Work};
use nmc_sim::{Bits, SimDuration, SimTime};

impl Imp {
    /// What this IMP's processor spends on each kind of work: its model's costs
    /// ([`crate::imp::ProcessorLimits`]).
    #[inline(always)]
    pub(crate) fn costs(&self) -> ImpCosts {
        match self.model {
            ImpModel::H316 => self.limits.processor.h316,
            ImpModel::H516 => self.limits.processor.h516,
        }
    }

    /// `work` joins the task queue at `now` for `cost` of processor time (listing p. 62: one
    /// FIFO, one task at a time).
    #[inline(always)]
    fn push_task(&mut self, now: SimTime, work: Work, cost: SimDuration, out: &mut impl Effects) {
        let before = self.cpu.poll_at();
        self.cpu.push(now, work, cost);
        self.ask_task_end(before, out);
    }

    /// A wake-up for the end of the task in service ([`TimerId::Task`]), if it is not the
    /// `before` already asked for.
    #[inline(always)]
    fn ask_task_end(&self, before: Option<(SimTime, u32)>, out: &mut impl Effects) {
        let after = self.cpu.poll_at();
        if after != before
            && let Some((at, generation)) = after
        {
            let timer = TimerId::Task { generation };
            out.push(Output::Timer { at, timer });
        }
    }

    /// Modem input (listing p. 93): a packet accepted from a line ([`Imp::handle_frame`]) joins
    /// the task queue as `work`, for its frame's `bits` at the processing bandwidth, or with
    /// `packet_task = "measured-1973"` the time measured on the program for its frame's
    /// length.
    ///
    /// With `reply_to_host = "leader-1973"` a reply come back to the IMP of the host whose
    /// message it answers (`p`) costs instead the task that hands it to that host (BBN 3050 pp.
    /// 83–85, `OWP`, `TASK2H`; the profile's `reply_task_316`/`_516`, measured on the program).
    #[inline]
    pub(crate) fn packet_in(
        &mut self,
        now: SimTime,
        work: Work,
        p: &Packet,
        bits: Bits,
        out: &mut impl Effects,
    ) {
        let reply_home = self.limits.reply_to_host == ReplyToHost::Leader1973
            && p.dst == self.id
            && matches!(p.kind, PktKind::Rfnm { .. } | PktKind::SingleRfnm { .. });
        let costs = self.costs();
        let cost = if reply_home {
            costs.reply_task
        } else if let Some(line) = costs.packet_task {
            line.time(bits)
        } else {
            costs.packet_rate.transmission_time(bits)
        };
        let cost = cost - self.own_input(bits);
        self.push_task(now, work, cost, out);
    }

    /// A frame of `bits` came in on a line at `now`: with `modem_interrupts = "cpu-1973"` the
    /// modem input routine takes the processor for its time (BBN 3050 p. 11: modem input runs
    /// above the timeout level and the task; pp. 88–96, `M2I1` … `ACTR1`), so the task in
    /// service and the clock's jobs end that much later; free otherwise.
    #[inline]
    pub(crate) fn modem_input(&mut self, now: SimTime, bits: Bits, out: &mut impl Effects) {
        let Some(line) = self.costs().modem_input else {
            return;
        };
        self.interrupt(now, line.time(bits), out);
    }

    /// An interrupt routine takes the processor at `now` for `cost` (p. 11: above the timeout
    /// level and the task): the task in service ends that much later, and a wake-up is asked
    /// for its new end.
    #[inline]
    pub(super) fn interrupt(&mut self, now: SimTime, cost: SimDuration, out: &mut impl Effects) {
        let before = self.cpu.poll_at();
        self.cpu.interrupt(now, cost);
        self.ask_task_end(before, out);
    }

    /// The modem input routine's time for a frame of `bits` that its measured task time holds
    /// ([`Imp::modem_input`] takes it at the frame's arrival instead); zero while the
    /// interrupts are free.
    #[inline(always)]
    fn own_input(&self, bits: Bits) -> SimDuration {
        self.costs()
            .modem_input
            .map_or(SimDuration::ZERO, |line| line.time(bits))
    }

    /// Host input (listing p. 133): a packet of message `msg` is across its host's interface;
    /// the processor is charged its frame's bits, and the source's step for it follows
    /// ([`Imp::host_packet_in`]).
    pub(crate) fn host_packet_taken(&mut self, now: SimTime, msg: MsgId, out: &mut impl Effects) {
        let bits = self
            .next_input(msg)
            .expect("the packet whose input was started")
            .bits;
        let frame = Bits::new(bits + self.limits.processor.packet_overhead);
        let costs = self.costs();
        let measured = costs.host_packet_task;
        let cost = if self.limits.host_packet_entry == HostPacketEntry::AfterTask1973
            && !measured.is_zero()
        {
            measured
        } else {
            costs.packet_rate.transmission_time(frame)
        };
        match self.limits.host_packet_entry {
            HostPacketEntry::AtOnce => {
                self.push_task(now, Work::Cpu, cost, out);
                self.host_packet_in(msg, out);
            }
            // Listing p. 133 (`H2TASK`, `H2TSKS`): on the task queue; it goes on, and its
            // host's interface reads the next packet, when the task has taken it.
            HostPacketEntry::AfterTask1973 => {
                self.tally_at_input(msg, out);
                self.push_task(now, Work::HostPacket { msg }, cost, out)
            }
        }
    }

    /// The task level has taken the host's packet of message `msg` (`host_packet_entry =
    /// "after-task-1973"`, listing p. 133 `H2TSKS`: "TASK TOOK IT"): it goes on through its
    /// message's procedure ([`Imp::host_packet_in`]) and its host may put in the next packet
    /// ([`Output::HostTaken`]).
    fn host_packet_tasked(&mut self, msg: MsgId, out: &mut impl Effects) {
        let Some(host) = self.message_host(msg) else {
            return; // the message was given up while its packet waited for the task
        };
        self.host_packet_in(msg, out);
        out.push(Output::HostTaken { host });
    }

    /// A frame without a packet, of `bits` on the line, arrived intact: a routing message (new
    /// to this IMP or repeated) or acknowledgements alone; its CPU time (less its modem input,
    /// when that is taken at its arrival) joins the queue.
    #[inline]
    pub(crate) fn frame_taken(
        &mut self,
        now: SimTime,
        kind: FrameKind,
        bits: Bits,
        out: &mut impl Effects,
    ) {
        let c = self.costs();
        let t = match kind {
            FrameKind::Routing { fresh: true, .. } => c.routing_update,
            FrameKind::Routing { fresh: false, .. } => c.routing_repeat,
            FrameKind::AckOnly => c.null_packet,
            FrameKind::Packet { .. } => return,
        };
        let t = t - self.own_input(bits);
        if !t.is_zero() {
            self.push_task(now, Work::Cpu, t, out);
        }
    }

    /// The IMP's clock ticks at `now` (every 25.6 ms, the driver's clock): a fast tick, and
    /// every `slow_tick_every`-th a slow one, pre-empt the task level for their CPU time
    /// (listing p. 11: T.O above TSK); the task in service ends that much later.
    #[inline]
    pub(crate) fn clock_tick(&mut self, now: SimTime, out: &mut impl Effects) {
        let c = self.costs();
        let slow = self.is_slow_tick(self.cpu.ticks + 1);
        let t = c.fast_tick + if slow { c.slow_tick } else { SimDuration::ZERO };
        let before = self.cpu.poll_at();
        self.cpu.preempt(now, t);
        self.ask_task_end(before, out);
        if slow {
            self.make_routing_table(now, self.routing_generation());
        }
    }

    /// Whether the IMP's clock tick number `tick` (counted from its first, 1) is a slow one:
    /// every `slow_tick_every`-th (listing p. 161, `TO`).
    #[inline]
    pub(crate) fn is_slow_tick(&self, tick: u64) -> bool {
        tick.is_multiple_of(self.slow_tick_every())
    }

    /// The slow ticks the IMP's clock has made so far: its routing table's generation (a
    /// routing message is fresh once a generation, [`Imp::poll_transmit`]; the 1973 rule
    /// numbers its table with it, [`Imp::make_routing_table`]).
    #[inline]
    pub(crate) fn routing_generation(&self) -> u64 {
        self.cpu.ticks / self.slow_tick_every()
    }

    /// Fast ticks per slow tick (at least one).
    #[inline]
    fn slow_tick_every(&self) -> u64 {
        u64::from(self.limits.line.slow_tick_every.max(1))
    }

    /// The end of the task in service, named `generation` ([`TimerId::Task`]), at `now`: the
    /// next task starts (a wake-up is asked for its end), and a packet's task is done
    /// ([`Imp::packet_processed`]). A clock tick that moved the task's end later made this
    /// wake-up stale: nothing.
    #[inline(always)]
    pub(crate) fn task_done(
        &mut self,
        now: SimTime,
        generation: u32,
        net: &impl Net,
        out: &mut impl Effects,
    ) {
        if self.cpu.poll_at() != Some((now, generation)) {
            return; // a clock tick moved this task's end later
        }
        let task = self.cpu.handle_timeout(now);
        debug_assert!(task.is_some(), "the task in service is due");
        self.ask_task_end(None, out);
        match task.map(|t| t.work) {
            Some(Work::Packet {
                pkt,
                line,
                lch,
                bit,
                planned,
            }) => {
                let planned = (planned != NO_PLACE).then_some(planned);
                self.packet_processed(now, pkt, line as usize, (lch, bit), planned, net, out);
            }
            Some(Work::HostPacket { msg }) => self.host_packet_tasked(msg, out),
            Some(Work::Cpu) | None => {}
        }
    }

    /// The task level has accepted packet `pkt`, which came on `line` on channel and sequence
    /// bit `(lch, bit)`: it is acknowledged (listing p. 70, `GOODM`: the acknowledgement bit is
    /// flipped and a null packet sent if the line is idle), then handed to this IMP's own step
    /// if it is for this IMP ([`Imp::handle_packet`]), or queued for its next line by the route
    /// its table gives now, the place `planned` for a packet in transit given up
    /// ([`Imp::forward`]); with no route it waits in the IMP. The acknowledgement's frame
    /// starts before the packet joins a queue: when the packet goes back on the line it came
    /// by, it joins that queue only once the frame has started ([`Resume::Processed`]).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn packet_processed(
        &mut self,
        now: SimTime,
        pkt: PktId,
        line: usize,
        (lch, bit): (u8, bool),
        planned: Option<u32>,
        net: &impl Net,
        out: &mut impl Effects,
    ) {
        // Listing p. 70 (`GOODM`): the acknowledgement goes when the packet is accepted.
        let back = self.lines[line].id;
        if !net.line_up(back) {
            self.processed_on(now, pkt, planned, None, net, out);
            return;
        }
        self.owe_acknowledgement(line, lch, bit);
        self.ask_transmit(line, out);
        self.processed_on(now, pkt, planned, Some(back), net, out);
    }

    /// Packet `pkt`, taken in and acknowledged by the task level, goes on: to this IMP's own
    /// step if it is for this IMP ([`Imp::handle_packet`]), else onto the queue of its route
    /// now, the place `planned` for a packet in transit given up ([`Imp::forward`]), or it
    /// waits in the IMP for a route. A packet whose route is `back`, the line whose frame was
    /// just asked for, waits for that frame ([`Resume::Processed`]).
    #[inline(always)]
    pub(crate) fn processed_on(
        &mut self,
        now: SimTime,
        pkt: PktId,
        planned: Option<u32>,
        back: Option<u32>,
        net: &impl Net,
        out: &mut impl Effects,
    ) {
        let p = *net.packet(pkt);
        if p.dst == self.id {
            out.push(Output::Free { pkt });
            self.handle_packet(now, &p, out);
            return;
        }
        let hold = if p.kind.is_control() {
            self.control_hold(&p.kind)
        } else {
            Hold::Transit
        };
        let planned = planned.filter(|_| hold == Hold::Transit);
        let route = self.route(p.dst, net);
        if route.is_some() && route == back {
            out.push(Output::Resume(Resume::Processed { pkt, hold, planned }));
            return;
        }
        self.queued_on(pkt, hold, planned, route, out);
    }

    /// Packet `pkt`, held as `hold`, joins the queue of `route` (the place `planned` for it
    /// given up, [`Imp::forward`]), or waits in the IMP for a route.
    #[inline(always)]
    pub(crate) fn queued_on(
        &mut self,
        pkt: PktId,
        hold: Hold,
        planned: Option<u32>,
        route: Option<u32>,
        out: &mut impl Effects,
    ) {
        match self.forward(pkt, hold, planned, route) {
            Some(line) => self.ask_transmit(line, out),
            // No route now: the packet waits in the IMP.
            None => out.push(Output::Park { pkt, hold }),
        }
    }
}
