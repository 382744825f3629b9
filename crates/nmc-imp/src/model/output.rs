//! The driver carries out what an IMP's step asks ([`Output`]), in the order the step pushed
//! it (`imp.rs` gives the call order): control messages and data packets sent, wake-ups
//! queued, counts, trace lines and milestones, host interfaces started, hosts moved on, answers
//! recorded, and the rest of a step handed back to the IMP ([`Imp::resume`]) once what came
//! before is done.

use super::{Ev, Side, Subnet, Tr};
use crate::imp::{Imp, Output, TimerId, Traced};
use crate::packet::PktKind;
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

    /// IMP `imp`'s `timer` runs out at `now` ([`Imp::handle_timeout`]), a step of its own. Kept
    /// out of the event loop's dispatch: these wake-ups are few beside the lines' events.
    #[inline(never)]
    pub(super) fn timeout(
        &mut self,
        now: SimTime,
        imp: u32,
        timer: TimerId,
        q: &mut EventQueue<Ev>,
    ) {
        self.step(now, imp, q, |i, out| i.handle_timeout(now, timer, out));
    }

    /// Carries out `out`, what a step of IMP `imp` pushed, in order.
    fn apply(&mut self, now: SimTime, imp: u32, out: Vec<Output>, q: &mut EventQueue<Ev>) {
        for o in out {
            match o {
                Output::Control { to, stream, kind } => {
                    debug_assert!(
                        !matches!(
                            kind,
                            PktKind::Rfnm { .. }
                                | PktKind::All { .. }
                                | PktKind::SingleRfnm { .. }
                                | PktKind::SingleAll { .. }
                        ) || to == self.stream_src(stream),
                        "a reply goes to its stream's source IMP"
                    );
                    self.send_control(now, imp, to, stream, kind, q)
                }
                Output::Timer { at, timer } => q.schedule(at, self.wake_up(imp, timer)),
                Output::Count(what) => self.count(what),
                Output::Trace(what) => self.trace_step(now, imp, what),
                Output::E2e {
                    peer,
                    side,
                    what,
                    num,
                    event,
                    note,
                } => {
                    let (src, dst) = match side {
                        Side::Source => (imp, peer),
                        Side::Destination => (peer, imp),
                    };
                    self.log_e2e(now, src, dst, side, what, num, event, note)
                }
                Output::Milestone { msg, milestone } => self.obs.note(now, msg, milestone),
                Output::HostOutput { host } => self.start_host_output(now, imp, host, q),
                Output::WakeHosts => self.wake_hosts(now, imp, q),
                Output::HostInput { host } => self.host_try(now, host, q),
                Output::Data { msg, index } => {
                    let p = self.imps[imp as usize].data_packet(msg, index);
                    self.send_data(now, p, q)
                }
                Output::Answered {
                    msg,
                    host,
                    dst,
                    all,
                } => {
                    self.message_answered(now, imp, msg, dst, all);
                    self.pump_answered(now, host, msg, q);
                }
                Output::SingleCopy { msg, again } => {
                    let p = self.imps[imp as usize].data_packet(msg, 0);
                    self.send_single(now, imp, p, again, q)
                }
                Output::Accepted { host, msg } => self.accepted(now, host, msg),
                Output::SingleAnswered { msg, host, dst } => {
                    self.single_answered(now, imp, msg, host, dst);
                    self.pump_answered(now, host, msg, q);
                }
                Output::Resume(rest) => self.step(now, imp, q, |i, out| i.resume(now, rest, out)),
            }
        }
    }

    /// Writes event `what` of IMP `imp`'s procedure to the trace, the IMPs by name.
    fn trace_step(&mut self, now: SimTime, imp: u32, what: Traced) {
        let name = |i: u32| self.imps[i as usize].name.as_str();
        let line = match what {
            Traced::Reassembled { msg } => Tr::Reassembled {
                msg,
                imp: name(imp),
            },
            Traced::Rfnm {
                msg,
                all,
                waited_ns,
            } => Tr::Rfnm {
                msg,
                all,
                waited_ns,
            },
            Traced::AllSent { num, to } => Tr::AllSent { num, to: name(to) },
            Traced::Giveback { to } => Tr::Giveback {
                imp: name(imp),
                to: name(to),
            },
            Traced::SingleIn {
                msg,
                num,
                disposition,
            } => Tr::SingleIn {
                msg,
                num,
                imp: name(imp),
                disposition: disposition.as_str(),
            },
            Traced::SingleAllSent { msg, num, to } => Tr::SingleAllSent {
                msg,
                num,
                to: name(to),
            },
            Traced::SingleDeleted { msg, num } => Tr::SingleDeleted {
                msg,
                num,
                imp: name(imp),
            },
            Traced::State { msg, from, to } => Tr::State { msg, from, to },
            Traced::Launched { msg } => Tr::Launched { msg },
            Traced::AllIn { num } => Tr::AllIn { num },
            Traced::FirstIn { msg } => Tr::FirstIn {
                msg,
                imp: name(imp),
            },
            Traced::Number { msg, num } => Tr::Number { msg, num },
            Traced::Plt { msg, plt_used } => Tr::Plt { msg, plt_used },
            Traced::Reqall { msg, num } => Tr::Reqall { msg, num },
        };
        self.trace.emit(now, &line);
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
