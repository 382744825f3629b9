//! An IMP's processor as a sans-I/O core: one FIFO queue for all of an IMP's work, and the
//! clock's timeout level that pre-empts it (BBN's IMP program 3050, 16 Sept 1973, listing
//! pp. 11, 62, 93, 133). The rules, and the IMP's steps that drive this core, are in
//! `hop/processing.rs`.

use crate::packet::{MsgId, PktId};
use nmc_sim::{SimDuration, SimTime};

/// [`Work::Packet::planned`] of a packet with no place kept on a queue.
pub(crate) const NO_PLACE: u32 = u32::MAX;

/// What a task is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Work {
    /// A packet that arrived on the IMP's `line`, on logical channel `lch` with sequence bit
    /// `bit`: it is acknowledged when processed (`hop/processing.rs`).
    Packet {
        /// The packet (its id in the [`crate::packet::Slab`]).
        pkt: PktId,
        /// The IMP's line it came on (its place among the IMP's lines): the acknowledgement
        /// goes back on it.
        line: u32,
        /// The logical channel.
        lch: u8,
        /// The channel's sequence bit for it.
        bit: bool,
        /// A packet passing through: the link whose queue keeps a place for it since it
        /// arrived (`crate::imp::Imp::handle_frame`), or [`NO_PLACE`].
        planned: u32,
    },
    /// A host's packet of message `msg`, in its buffer: it goes on when the task has taken it
    /// (`host_packet_entry = "after-task-1973"`, `hop/processing.rs`).
    HostPacket {
        /// The message whose next packet it is.
        msg: MsgId,
    },
    /// Processor time with nothing to hand on: a host's packet taken in (`host_packet_entry =
    /// "at-once"`), a null packet, a routing message.
    Cpu,
}

/// One entry of an IMP's task queue: the work, its CPU time, and when it was queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Task {
    /// What is to be done.
    pub(crate) work: Work,
    /// The processor time it takes.
    pub(crate) cost: SimDuration,
    /// When it joined the queue.
    pub(crate) queued: SimTime,
}

/// An IMP's processor as a sans-I/O core: it takes `now` and returns what finished; it
/// schedules nothing. The driver asks [`Processor::poll_at`] when the task in service ends
/// and calls [`Processor::handle_timeout`] then.
#[derive(Clone, Debug, Default)]
pub(crate) struct Processor {
    queue: std::collections::VecDeque<Task>,
    /// The task in service and when it finishes.
    serving: Option<(Task, SimTime)>,
    /// The timeout level holds the processor until then.
    blocked_until: SimTime,
    /// Changes whenever the deadline does, so a driver can recognise stale wake-ups.
    generation: u32,
    /// Clock ticks so far.
    pub(crate) ticks: u64,
    // Counters.
    /// Tasks started.
    pub(crate) tasks: u64,
    /// Time the started tasks waited in the queue (behind other tasks and the clock), summed, ns.
    pub(crate) wait_ns: u128,
    /// The longest a task waited in the queue, ns.
    pub(crate) wait_max_ns: u64,
    /// Time the processor spent busy, on tasks and at the clock's timeout level, summed, ns.
    pub(crate) busy_ns: u128,
}

impl Processor {
    /// Task level: `work` joins the FIFO; it starts at once if the processor is free.
    #[inline]
    pub(crate) fn push(&mut self, now: SimTime, work: Work, cost: SimDuration) {
        let task = Task {
            work,
            cost,
            queued: now,
        };
        // A free processor has an empty queue (a task ending starts the next at once): the
        // task starts without passing through it.
        if self.serving.is_none() {
            debug_assert!(self.queue.is_empty(), "a free processor has no queue");
            self.start(now, task);
        } else {
            self.queue.push_back(task);
        }
    }

    /// When the task in service finishes, with the generation of that deadline.
    pub(crate) fn poll_at(&self) -> Option<(SimTime, u32)> {
        self.serving.map(|(_, t)| (t, self.generation))
    }

    /// The task in service is done at `now` (its deadline): returns it and starts the next.
    #[inline]
    pub(crate) fn handle_timeout(&mut self, now: SimTime) -> Option<Task> {
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
    pub(crate) fn preempt(&mut self, now: SimTime, cost: SimDuration) {
        self.ticks += 1;
        self.interrupt(now, cost);
    }

    /// An interrupt level above the clock's (listing p. 11: modem input, IMP-to-modem) takes
    /// the processor for `cost`: the task in service and the clock's jobs, if it is holding
    /// the processor, finish that much later. Not a tick.
    pub(crate) fn interrupt(&mut self, now: SimTime, cost: SimDuration) {
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

    /// When the clock's jobs committed so far are done ([`Self::preempt`]).
    pub(crate) fn clock_done(&self) -> SimTime {
        self.blocked_until
    }

    /// Processor time spent by `now` on tasks and the clock's jobs, ns: the time committed to
    /// them ([`Self::busy_ns`]: a task's when it starts, a clock job's when it preempts) less
    /// what of it lies after `now`. The background (`e2e/single.rs`) runs in the rest.
    pub(crate) fn busy_by(&self, now: SimTime) -> u128 {
        let end = self
            .serving
            .map_or(self.blocked_until, |(_, t)| t.max(self.blocked_until));
        self.busy_ns
            .saturating_sub(u128::from(end.since(now).as_nanos()))
    }

    /// When the work committed by `now` — the task in service, the clock's job, the queued
    /// tasks — is done: the earliest the background gets the processor back.
    pub(crate) fn free_at(&self, now: SimTime) -> SimTime {
        let end = self
            .serving
            .map_or(self.blocked_until, |(_, t)| t.max(self.blocked_until));
        let queued: u64 = self.queue.iter().map(|t| t.cost.as_nanos()).sum();
        now.max(end) + SimDuration::from_nanos(queued)
    }

    /// The packets among the tasks, in service first.
    pub(crate) fn packets(&self) -> impl Iterator<Item = PktId> + '_ {
        self.serving
            .iter()
            .map(|(t, _)| t)
            .chain(&self.queue)
            .filter_map(|t| match t.work {
                Work::Packet { pkt, .. } => Some(pkt),
                Work::HostPacket { .. } | Work::Cpu => None,
            })
    }

    /// Tasks queued or in service.
    pub(crate) fn len(&self) -> usize {
        self.queue.len() + self.serving.is_some() as usize
    }

    #[cfg(test)]
    /// Whether no task is queued or in service.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Is a packet among the tasks? (A packet held here is a resource; CPU time is not.)
    pub(crate) fn holds_packet(&self) -> bool {
        let packet = |t: &Task| matches!(t.work, Work::Packet { .. });
        self.queue.iter().any(packet) || self.serving.is_some_and(|(t, _)| packet(&t))
    }

    fn start_next(&mut self, now: SimTime) {
        if let Some(task) = self.queue.pop_front() {
            self.start(now, task);
        }
    }

    /// `task` takes the processor: it starts at `now`, or when the clock's job lets go.
    #[inline]
    fn start(&mut self, now: SimTime, task: Task) {
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

    /// What the background (below both levels, p. 11) can count on: the time the tasks and
    /// the clock have had so far, and when the work committed is done.
    #[test]
    fn the_background_sees_the_time_taken_and_when_the_processor_is_free() {
        let mut p = Processor::default();
        p.push(at(0), Work::Cpu, ms(4));
        assert_eq!(p.busy_by(at(1)), 1_000_000, "a task 1 ms into its 4");
        p.preempt(at(2), ms(2));
        assert_eq!(
            p.busy_by(at(3)),
            3_000_000,
            "2 ms of task, then 1 of the clock"
        );
        p.push(at(3), Work::Cpu, ms(1));
        assert_eq!(
            p.free_at(at(3)),
            at(7),
            "the task ends at 6, the queued one at 7"
        );
        assert!(p.handle_timeout(at(6)).is_some());
        assert_eq!(p.busy_by(at(10)), 7_000_000);
        assert_eq!(p.free_at(at(10)), at(10), "idle: free now");
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

    /// Listing p. 11: modem input and IMP-to-modem run above the timeout level. An interrupt
    /// routine during the clock's hold makes the hold end later, and the task that waits for
    /// it starts later; it is not a tick.
    #[test]
    fn an_interrupt_stretches_the_clocks_hold_and_is_no_tick() {
        let mut p = Processor::default();
        p.preempt(at(0), ms(20));
        p.push(at(1), Work::Cpu, ms(2));
        p.interrupt(at(5), ms(1));
        p.interrupt(at(9), ms(1));
        assert_eq!(p.clock_done(), at(22), "the hold took 2 ms more");
        assert_eq!(p.poll_at().map(|d| d.0), Some(at(24)));
        assert_eq!(p.ticks, 1, "one tick, two interrupts");
        // Idle: an interrupt holds the processor from now, and a task queued meanwhile waits.
        let mut q = Processor::default();
        q.interrupt(at(30), ms(1));
        q.push(at(30), Work::Cpu, ms(3));
        assert_eq!(q.poll_at().map(|d| d.0), Some(at(34)));
        assert_eq!(q.ticks, 0);
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
                line: 0,
                lch: 0,
                bit: true,
                planned: NO_PLACE,
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
