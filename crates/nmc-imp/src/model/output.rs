//! The driver carries out what an IMP's step asks ([`Output`]), in the order the step pushed
//! it (`imp.rs` gives the call order): control messages and data packets sent, wake-ups
//! queued, counts, trace lines and milestones, host interfaces started, hosts moved on, answers
//! recorded, and the rest of a step handed back to the IMP ([`Imp::resume`]) once what came
//! before is done. The step pushes into the driver's sink ([`Carry`], the IMP's
//! [`crate::imp::Effects`]), a static call compiled into the step: a wake-up asked for first
//! is queued at once, the rest wait until the step returns.

use super::{Ev, Reply, Side, Subnet, Tr};
use crate::imp::{Effects, Imp, Net, Output, TimerId, Traced};
use crate::packet::{MsgId, Packet, PktId, PktKind, Slab};
use crate::params::ReplyToHost;
use crate::routing::Routing;
use crate::topology::{Routes, Topology};
use nmc_sim::{EventQueue, SimTime};

/// What an IMP's step reads around it ([`Net`]): the driver's store of packets, the routing
/// tables and which lines are up. Made for each step from the subnet's own fields, so that
/// the IMP's step may read them while it changes only its own tables.
pub(super) struct Around<'a> {
    slab: &'a Slab,
    routing: &'a Routing,
    topo: &'a Topology,
}

impl<'a> Around<'a> {
    /// What a step reads around it, from the subnet's store of packets, its routing and its
    /// topology (for a step the driver calls outside [`Subnet::step_in`]).
    #[inline(always)]
    pub(super) fn new(slab: &'a Slab, routing: &'a Routing, topo: &'a Topology) -> Self {
        Around {
            slab,
            routing,
            topo,
        }
    }
}

impl Net for Around<'_> {
    #[inline(always)]
    fn packet(&self, pkt: PktId) -> &Packet {
        self.slab.get(pkt)
    }

    #[inline(always)]
    fn route(&self, imp: u32, dst: u32) -> Option<u32> {
        self.topo.next_link(imp, dst)
    }

    #[inline(always)]
    fn line_up(&self, link: u32) -> bool {
        self.routing.line_up(link)
    }
}

/// The driver's sink for one step of IMP `imp` ([`Effects`]): a wake-up asked for before
/// anything else is queued at once ([`wake_up`]: nothing the step does after it reads the
/// event queue, and nothing before it is left to carry out, so the order is the one pushed);
/// every other output, and everything after one, waits in `later` (`Subnet::outputs`, from
/// `start` on) until the step returns ([`Subnet::apply`]).
pub(super) struct Carry<'a> {
    imp: u32,
    q: &'a mut EventQueue<Ev>,
    later: &'a mut Vec<Output>,
    start: usize,
}

impl Effects for Carry<'_> {
    #[inline(always)]
    fn push(&mut self, o: Output) {
        match o {
            Output::Timer { at, timer } if self.later.len() == self.start => {
                self.q.schedule(at, wake_up(self.imp, timer));
            }
            o => self.later.push(o),
        }
    }
}

/// The event that wakes IMP `imp` for `timer`.
#[inline(always)]
fn wake_up(imp: u32, timer: TimerId) -> Ev {
    match timer {
        TimerId::Retransmit {
            line,
            lch,
            generation,
        } => Ev::Retransmit {
            imp,
            line: line as u32,
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
        TimerId::OutputReady { line } => Ev::OutputReady {
            imp,
            line: line as u32,
        },
        TimerId::BackgroundReply => Ev::BackgroundReply { imp },
        TimerId::ReplyGap => Ev::ReplyGap { imp },
        TimerId::GvbMesget => Ev::GvbMesget { imp },
    }
}

impl Subnet {
    /// Runs `step` on IMP `imp` and carries out what it pushed; returns what it returned.
    #[inline]
    pub(super) fn step<R>(
        &mut self,
        now: SimTime,
        imp: u32,
        q: &mut EventQueue<Ev>,
        step: impl FnOnce(&mut Imp, &mut Carry<'_>) -> R,
    ) -> R {
        self.step_in(now, imp, q, |i, _, out| step(i, out))
    }

    /// Runs `step` on IMP `imp`, with what it may read around it ([`Around`]), and carries out
    /// what it pushed, in order ([`Carry`]); returns what it returned. The buffer for what
    /// waits is one of the subnet's own (`Subnet::outputs`), kept from step to step, so a step
    /// allocates nothing (a step within a step, rare, pushes after the outputs of the one
    /// that holds it, and carries its own out before them).
    #[inline(always)]
    pub(super) fn step_in<R>(
        &mut self,
        now: SimTime,
        imp: u32,
        q: &mut EventQueue<Ev>,
        step: impl FnOnce(&mut Imp, &Around<'_>, &mut Carry<'_>) -> R,
    ) -> R {
        let start = self.outputs.len();
        let net = Around {
            slab: &self.slab,
            routing: &self.routing,
            topo: &self.topo,
        };
        let mut out = Carry {
            imp,
            q: &mut *q,
            later: &mut self.outputs,
            start,
        };
        let r = step(&mut self.imps[imp as usize], &net, &mut out);
        match self.outputs.len() - start {
            0 => {}
            // A line's next frame asked for alone (a routing opportunity, a retransmission):
            // started here, without the loop.
            1 if let Output::Transmit { link } = self.outputs[start] => {
                self.outputs.truncate(start);
                self.try_send(now, link, q);
            }
            _ => self.apply(now, imp, start, q),
        }
        r
    }

    /// IMP `imp`'s `timer` runs out at `now` ([`Imp::handle_timeout`]): every wake-up an IMP
    /// asked for ([`Output::Timer`]) comes back this way (the two of every packet, a task's
    /// end and a retransmission, call it from their own step, `model.rs`).
    #[inline(always)]
    pub(super) fn timeout(
        &mut self,
        now: SimTime,
        imp: u32,
        timer: TimerId,
        q: &mut EventQueue<Ev>,
    ) {
        self.step_in(now, imp, q, |i, net, out| {
            i.handle_timeout(now, timer, net, out)
        });
    }

    /// Carries out what a step of IMP `imp` pushed (`Subnet::outputs` from `start` on), in
    /// order, and takes it off the buffer. An output may come back into an IMP (a step within
    /// this one), whose outputs go after these and are gone when it returns. The outputs of
    /// every frame and task are handled here; the rest in [`Self::apply_other`].
    #[inline(never)]
    fn apply(&mut self, now: SimTime, imp: u32, start: usize, q: &mut EventQueue<Ev>) {
        let mut k = start;
        while let Some(o) = self.outputs.get(k) {
            match *o {
                Output::Timer { at, timer } => q.schedule(at, wake_up(imp, timer)),
                Output::Transmit { link } => self.try_send(now, link, q),
                Output::Free { pkt } => self.slab.remove(pkt),
                _ => {
                    // Taken out of the buffer (its place is not read again).
                    let o = std::mem::replace(&mut self.outputs[k], Output::WakeHosts);
                    self.apply_other(now, imp, o, q)
                }
            }
            k += 1;
        }
        self.outputs.truncate(start);
    }

    /// Carries out `o`, one of the outputs of a step of IMP `imp` that [`Self::apply`] leaves.
    #[inline(never)]
    fn apply_other(&mut self, now: SimTime, imp: u32, o: Output, q: &mut EventQueue<Ev>) {
        match o {
            Output::Timer { .. } | Output::Transmit { .. } | Output::Free { .. } => {
                unreachable!("carried out in `apply`")
            }
            Output::ForeignArrived { body, src } => self.foreign_arrived(now, imp, src, body),
            Output::Park { pkt, hold } => {
                self.routing.counts.parked += 1;
                self.imps[imp as usize].park(pkt, hold);
            }
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
            Output::SequenceAfresh { stream } => self.obs.sequence_afresh(stream),
            Output::Milestone { msg, milestone } => self.obs.note(now, msg, milestone),
            Output::HostOutput { host } => self.start_host_output(now, imp, host, q),
            Output::WakeHosts => self.wake_hosts(now, imp, q),
            Output::HostInput { host } => self.host_try(now, host, q),
            Output::HostTaken { host } => self.host_taken(now, host, q),
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
                let reply = Reply {
                    imp,
                    host,
                    dst,
                    all: Some(all),
                };
                self.reply_to_host(now, msg, reply, q);
            }
            Output::SingleCopy { msg, again } => {
                let p = self.imps[imp as usize].data_packet(msg, 0);
                self.send_single(now, imp, p, again, q)
            }
            Output::Accepted { host, msg } => self.accepted(now, host, msg),
            Output::SingleAnswered { msg, host, dst } => {
                let reply = Reply {
                    imp,
                    host,
                    dst,
                    all: None,
                };
                self.reply_to_host(now, msg, reply, q);
            }
            Output::Resume(rest) => {
                self.step_in(now, imp, q, |i, net, out| i.resume(now, rest, net, out))
            }
        }
    }

    /// A reply to message `msg` is for its host: the host has it now, or, with `reply_to_host =
    /// "leader-1973"`, once its leader has crossed the host interface ([`Ev::ReplyToHost`];
    /// an IMP's own message generator has no interface).
    fn reply_to_host(&mut self, now: SimTime, msg: MsgId, reply: Reply, q: &mut EventQueue<Ev>) {
        if self.params.reply_to_host == ReplyToHost::Leader1973
            && self.hosts[reply.host as usize].generator.is_none()
        {
            let t = self
                .params
                .host_interface
                .transmission_time(self.params.host_leader);
            self.replies.insert(msg, reply);
            q.schedule(now + t, Ev::ReplyToHost { msg });
        } else {
            self.reply_at_host(now, msg, reply, q);
        }
    }

    /// Host `reply.host` has the reply to its message `msg`: its round trip is recorded and
    /// its pump may go on.
    pub(super) fn reply_at_host(
        &mut self,
        now: SimTime,
        msg: MsgId,
        reply: Reply,
        q: &mut EventQueue<Ev>,
    ) {
        let Reply {
            imp,
            host,
            dst,
            all,
        } = reply;
        match all {
            Some(all) => self.message_answered(now, imp, msg, dst, all),
            None => self.single_answered(now, imp, msg, host, dst),
        }
        self.pump_answered(now, host, msg, q);
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
            Traced::AllPut { from } => Tr::AllPut {
                imp: name(imp),
                from: name(from),
            },
            Traced::AllTaken { msg } => Tr::AllTaken {
                msg,
                imp: name(imp),
            },
            Traced::AllPulled { to } => Tr::AllPulled {
                imp: name(imp),
                to: name(to),
            },
            Traced::Tally { held } => Tr::Tally {
                imp: name(imp),
                held,
            },
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
}
