//! The driver carries out what an IMP's protocol step asks ([`Output`]), in the order the step
//! pushed it: control messages sent, wake-ups queued, counts, messages and hosts moved on, and
//! the rest of a step handed back to the IMP ([`Imp::resume`]) once what came before is done.

use super::{Ev, Subnet};
use crate::imp::{Imp, Output, TimerId};
use nmc_sim::{EventQueue, SimTime};

impl Subnet {
    /// Runs `step` on IMP `imp` and carries out what it pushed; returns what it returned.
    #[inline]
    pub(super) fn step<R>(
        &mut self,
        now: SimTime,
        imp: u32,
        q: &mut EventQueue<Ev>,
        step: impl FnOnce(&mut Imp, &mut Vec<Output>) -> R,
    ) -> R {
        let mut out = Vec::new();
        let r = step(&mut self.imps[imp as usize], &mut out);
        if !out.is_empty() {
            self.apply(now, imp, out, q);
        }
        r
    }

    /// Carries out `out`, what a step of IMP `imp` pushed, in order.
    fn apply(&mut self, now: SimTime, imp: u32, out: Vec<Output>, q: &mut EventQueue<Ev>) {
        for o in out {
            match o {
                Output::Control { to, stream, kind } => {
                    self.send_control(now, imp, to, stream, kind, q)
                }
                Output::Timer { at, timer } => q.schedule(at, self.wake_up(imp, timer)),
                Output::Count(what) => self.count(what),
                Output::Advance(msg) => self.advance(now, imp, msg, q),
                Output::WakeHosts => self.wake_hosts(now, imp, q),
                Output::Resume(rest) => self.step(now, imp, q, |i, out| i.resume(rest, out)),
            }
        }
    }

    /// The event that wakes IMP `imp` for `timer`.
    fn wake_up(&self, imp: u32, timer: TimerId) -> Ev {
        match timer {
            TimerId::Retransmit {
                line,
                lch,
                generation,
            } => Ev::Retransmit {
                link: self.imps[imp as usize].lines[line].id,
                lch,
                epoch: generation,
            },
            TimerId::RfnmWait { generation } => Ev::RfnmWait {
                imp,
                epoch: generation,
            },
            TimerId::GiveBack { dst, generation } => Ev::GiveBack {
                imp,
                dst,
                epoch: generation,
            },
            TimerId::Task { generation } => Ev::Task {
                imp,
                epoch: generation,
            },
            TimerId::BlockIdle { stream } => Ev::BlockIdle { imp, stream },
        }
    }
}
