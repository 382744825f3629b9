//! The event loop: a [`Model`] handles one event at a time and schedules more.
//!
//! The engine owns the clock; the model never reads one. It only sees `now` as the argument of
//! [`Model::handle`], the way smoltcp's `poll(timestamp)` does, so the same model code could be
//! driven by something other than this loop.

use crate::queue::EventQueue;
use crate::time::SimTime;

/// A discrete-event model.
pub trait Model {
    /// The model's event type: plain values (not boxed) keep the loop allocation-free.
    type Event;

    /// Handles `event` at time `now`; schedules follow-up events on `queue`.
    fn handle(&mut self, now: SimTime, event: Self::Event, queue: &mut EventQueue<Self::Event>);
}

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunOutcome {
    /// No events are pending.
    Idle,
    /// The time limit was reached; later events are still pending.
    TimeLimit,
    /// The stop condition became true.
    Condition,
}

/// A model plus its pending events and clock.
pub struct Simulation<M: Model> {
    /// The model: its state, open to the caller between runs (to read results, or to change it).
    pub model: M,
    queue: EventQueue<M::Event>,
    events_handled: u64,
}

impl<M: Model> Simulation<M> {
    /// `model` at time zero, with no events pending.
    pub fn new(model: M) -> Self {
        Simulation {
            model,
            queue: EventQueue::new(),
            events_handled: 0,
        }
    }

    /// The current simulated time: that of the last event handled, or the end a run stopped at
    /// if later.
    pub fn now(&self) -> SimTime {
        self.queue.now()
    }

    /// Events handled so far.
    pub fn events_handled(&self) -> u64 {
        self.events_handled
    }

    /// Events still pending.
    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// When the next pending event is due, if any.
    pub fn next_event_at(&self) -> Option<SimTime> {
        self.queue.peek_time()
    }

    /// Schedules an event from outside the model (initial events, scenario actions).
    pub fn schedule(&mut self, at: SimTime, event: M::Event) {
        self.queue.schedule(at, event);
    }

    /// Acts on the model from outside at the current time (a frame handed in by another
    /// simulator sharing the clock): `f` gets the model, `now` and the queue for what follows.
    /// It may schedule nothing before `now`, as [`Model::handle`] may not.
    pub fn act<R>(&mut self, f: impl FnOnce(&mut M, SimTime, &mut EventQueue<M::Event>) -> R) -> R {
        let now = self.queue.now();
        f(&mut self.model, now, &mut self.queue)
    }

    /// Handles the next event if it is due at or before `end`; `false` if none is.
    #[inline]
    fn step_until(&mut self, end: SimTime) -> bool {
        match self.queue.pop_until(end) {
            Some((now, ev)) => {
                self.model.handle(now, ev, &mut self.queue);
                self.events_handled += 1;
                true
            }
            None => false,
        }
    }

    /// Handles every event due at or before `end`, then sets the clock to `end`.
    pub fn run_until(&mut self, end: SimTime) -> RunOutcome {
        while self.step_until(end) {}
        self.queue.advance_to(end);
        if self.queue.is_empty() {
            RunOutcome::Idle
        } else {
            RunOutcome::TimeLimit
        }
    }

    /// Handles events until none are pending.
    pub fn run_until_idle(&mut self) -> RunOutcome {
        while self.step_until(SimTime::MAX) {}
        RunOutcome::Idle
    }

    /// Handles events while `keep_going(model, now)` holds (checked before each event), up to
    /// `end`. On a time limit the clock moves to `end`; when no event is left (`Idle`) it stays
    /// at the last event's time.
    pub fn run_while(
        &mut self,
        end: SimTime,
        mut keep_going: impl FnMut(&M, SimTime) -> bool,
    ) -> RunOutcome {
        loop {
            if !keep_going(&self.model, self.now()) {
                return RunOutcome::Condition;
            }
            if !self.step_until(end) {
                // Idle leaves the clock at the last event; a time limit moves it to `end`.
                if self.queue.is_empty() {
                    return RunOutcome::Idle;
                }
                self.queue.advance_to(end);
                return RunOutcome::TimeLimit;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SimDuration;

    /// A ticker that reschedules itself every 10 ns and counts.
    struct Ticker {
        ticks: u32,
    }
    impl Model for Ticker {
        type Event = ();
        fn handle(&mut self, now: SimTime, _: (), q: &mut EventQueue<()>) {
            self.ticks += 1;
            q.schedule(now + SimDuration::from_nanos(10), ());
        }
    }

    #[test]
    fn run_until_time_condition_and_idle() {
        let mut sim = Simulation::new(Ticker { ticks: 0 });
        sim.schedule(SimTime::ZERO, ());
        assert_eq!(
            sim.run_until(SimTime::from_nanos(95)),
            RunOutcome::TimeLimit
        );
        assert_eq!(sim.model.ticks, 10); // t = 0, 10, ..., 90
        assert_eq!(sim.now(), SimTime::from_nanos(95));
        let out = sim.run_while(SimTime::MAX, |m, _| m.ticks < 15);
        assert_eq!(out, RunOutcome::Condition);
        assert_eq!(sim.model.ticks, 15);

        struct Once;
        impl Model for Once {
            type Event = ();
            fn handle(&mut self, _: SimTime, _: (), _: &mut EventQueue<()>) {}
        }
        let mut s = Simulation::new(Once);
        s.schedule(SimTime::from_nanos(3), ());
        assert_eq!(s.run_until_idle(), RunOutcome::Idle);
        assert_eq!(s.events_handled(), 1);

        // Where each way of stopping leaves the clock.
        let at = SimTime::from_nanos;
        let once_at_3 = || {
            let mut s = Simulation::new(Once);
            s.schedule(at(3), ());
            s
        };
        let mut s = once_at_3();
        assert_eq!(s.run_while(at(100), |_, _| true), RunOutcome::Idle);
        assert_eq!(
            s.now(),
            at(3),
            "run_while: idle leaves the clock at the last event"
        );
        let mut s = once_at_3();
        assert_eq!(s.run_while(at(2), |_, _| true), RunOutcome::TimeLimit);
        assert_eq!(
            s.now(),
            at(2),
            "run_while: a time limit moves the clock to the end"
        );
        assert_eq!(s.events_handled(), 0);
        let mut s = once_at_3();
        assert_eq!(s.run_until(at(100)), RunOutcome::Idle);
        assert_eq!(
            s.now(),
            at(100),
            "run_until: the clock moves to the end either way"
        );
        let mut s = once_at_3();
        assert_eq!(s.run_until(at(3)), RunOutcome::Idle);
        assert_eq!(s.events_handled(), 1, "an event due at the end is handled");
    }
}
