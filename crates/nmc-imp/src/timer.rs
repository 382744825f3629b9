//! A timer as a value that carries its deadline (issue 10), in the manner of smoltcp's and
//! quinn-proto's timers: the protocol state holds *when* the timer runs out; the driver only
//! has to wake it then.
//!
//! Re-arming a timer moves its deadline and queues nothing new unless the new deadline comes
//! before the wake-up already queued: a wake-up that finds the deadline moved later queues one
//! for the new deadline. So a timer that is re-armed at every use (version 3's 2-minute block
//! disuse timer, re-armed at every RFNM) has one wake-up in the event queue, not one per
//! arming. Before this, every arming queued an event that would almost always find itself
//! stale: 3,510 of the 3,954 events pending in a loaded `ko-v3-map` run, a heap ten times the
//! size it needed and 40 % of the run's time spent in it.
//!
//! Some timers cannot share wake-ups that way without changing a run: the event queue orders
//! events of the same instant by when they were queued, so dropping or merging a wake-up moves
//! other events of that instant (tried on the IMP-to-IMP retransmission timer: results
//! changed). Those timers hold a [`Deadline`] instead: the protocol core still knows when each
//! runs out and answers `poll_at` from it, and the driver queues one wake-up per arming, as it
//! always did, naming the arming by its generation so that a wake-up the core has since
//! disarmed or re-armed is recognised.

use nmc_sim::SimTime;

/// When an armed timer runs out, and the generation of the arming that set it (a wake-up that
/// names another generation is stale).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Deadline {
    /// When it runs out.
    pub(crate) at: SimTime,
    /// The arming's generation.
    pub(crate) generation: u32,
}

impl Deadline {
    /// A wake-up at `now` for the arming `generation`: is it this one's, and has it run out?
    /// (One before the deadline does nothing.)
    pub(crate) fn expired(&self, generation: u32, now: SimTime) -> bool {
        self.generation == generation && self.at <= now
    }

    /// Whether a wake-up for the arming `generation` at `now` is a timely one: either it
    /// names another arming (stale), or it comes at this deadline. The driver queues each
    /// wake-up for its deadline, so it checks this in debug builds.
    pub(crate) fn on_time(this: Option<Deadline>, generation: u32, now: SimTime) -> bool {
        this.is_none_or(|d| d.generation != generation || d.at == now)
    }
}

/// A timer: its deadline, if armed, and the wake-up queued for it, if any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Timer {
    deadline: Option<SimTime>,
    wake: Option<SimTime>,
}

/// What a wake-up found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Woken {
    /// The deadline is now: the timer ran out (and is disarmed).
    Expired,
    /// The deadline moved later: queue a wake-up for it.
    Later(SimTime),
    /// Nothing to do: the timer was cancelled, or another wake-up is queued for it.
    Stale,
}

impl Timer {
    /// When it runs out, if armed.
    pub(crate) fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    /// Arms it to run out at `at`, replacing any deadline it had. Returns the time for which
    /// the caller must queue a wake-up, if the one already queued does not come by `at`.
    #[must_use]
    pub(crate) fn arm(&mut self, at: SimTime) -> Option<SimTime> {
        self.deadline = Some(at);
        match self.wake {
            Some(w) if w <= at => None,
            _ => {
                self.wake = Some(at);
                Some(at)
            }
        }
    }

    /// Disarms it; a wake-up already queued will find it stale.
    pub(crate) fn cancel(&mut self) {
        self.deadline = None;
    }

    /// A wake-up queued for this timer arrived at `now`.
    pub(crate) fn woken(&mut self, now: SimTime) -> Woken {
        if self.wake == Some(now) {
            self.wake = None;
        }
        match self.deadline {
            Some(d) if d == now => {
                self.deadline = None;
                Woken::Expired
            }
            Some(d) if d > now && self.wake.is_none() => {
                self.wake = Some(d);
                Woken::Later(d)
            }
            _ => Woken::Stale,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SimTime {
        SimTime::from_nanos(ms * 1_000_000)
    }

    #[test]
    fn a_timer_re_armed_at_every_use_queues_one_wake_up() {
        let mut x = Timer::default();
        assert_eq!(
            x.arm(t(120_000)),
            Some(t(120_000)),
            "the first arming queues"
        );
        assert_eq!(
            x.arm(t(120_040)),
            None,
            "used again 40 ms later: nothing new queued"
        );
        assert_eq!(x.arm(t(125_000)), None);
        assert_eq!(x.woken(t(120_000)), Woken::Later(t(125_000)));
        assert_eq!(x.woken(t(125_000)), Woken::Expired);
        assert_eq!(x.deadline(), None);
    }

    #[test]
    fn a_cancelled_timer_wakes_stale() {
        let mut x = Timer::default();
        let _ = x.arm(t(10));
        x.cancel();
        assert_eq!(x.woken(t(10)), Woken::Stale);
        assert_eq!(
            x.arm(t(30)),
            Some(t(30)),
            "its wake-up is spent: a new one is queued"
        );
        assert_eq!(x.woken(t(30)), Woken::Expired);
    }

    #[test]
    fn a_deadline_expires_at_its_time_for_its_own_generation() {
        let d = Deadline {
            at: t(125),
            generation: 4,
        };
        assert!(!d.expired(4, t(124)), "before the deadline: nothing");
        assert!(d.expired(4, t(125)));
        assert!(!d.expired(3, t(125)), "an older arming's wake-up is stale");
        assert!(Deadline::on_time(Some(d), 4, t(125)));
        assert!(Deadline::on_time(Some(d), 3, t(90)));
        assert!(!Deadline::on_time(Some(d), 4, t(90)));
        assert!(Deadline::on_time(None, 4, t(90)));
    }

    #[test]
    fn an_earlier_deadline_queues_its_own_wake_up() {
        let mut x = Timer::default();
        let _ = x.arm(t(50));
        assert_eq!(x.arm(t(20)), Some(t(20)));
        assert_eq!(x.woken(t(20)), Woken::Expired);
        assert_eq!(
            x.woken(t(50)),
            Woken::Stale,
            "the first wake-up finds nothing to do"
        );
    }
}
