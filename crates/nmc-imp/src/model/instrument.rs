//! The NMC's instrument inside the IMP, and scripted disturbances.
//!
//! * The **IMP message generator** (RFC 632: "using the IMP message generator, single-packet
//!   messages at the highest possible rate ('RFNM-driven')"): a process in the source IMP, with
//!   no host interface, that keeps `outstanding` messages sent and not yet answered by a RFNM
//!   and makes a new one each time a RFNM comes back. It is modelled as a host of its IMP whose
//!   messages start inside the IMP: each takes a buffer (the copy the source keeps until the
//!   RFNM) and goes straight to point b (a message number).
//! * **Scripted actions** at given times: a line error on the next packet frame of a line, a
//!   detour of the next single-packet message over an alternate path (RFC 632: "due to an
//!   alternate path or a line error"), and pauses of a generator ("interrupting the input
//!   stream at the source IMP").

use super::{Ev, Subnet, Tick, Tr};
use nmc_sim::{EventQueue, SimDuration, SimTime};

/// The IMP message generator's state.
#[derive(Clone, Debug)]
pub(crate) struct Generator {
    /// The destination host.
    pub(crate) dst_host: u32,
    /// Message length, data bits.
    pub(crate) bits: u64,
    /// Messages it keeps sent and unanswered.
    pub(crate) outstanding: u32,
    /// Messages sent and not yet answered by a RFNM.
    pub(crate) in_flight: u32,
    /// Stop after this many.
    pub(crate) count: Option<u64>,
    /// Messages offered so far.
    pub(crate) offered: u64,
    /// Paused by a scripted action: it offers nothing new.
    pub(crate) paused: bool,
}

/// A scripted action, resolved to the model's indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// The next packet frame sent on `link` is hit by a line error.
    LineError {
        /// The link (one direction of a line).
        link: u32,
    },
    /// The next single-packet message from `imp` leaves by `link` (with `within`: the next
    /// sent within that long of the one before it).
    Detour {
        /// The source IMP.
        imp: u32,
        /// The link it leaves by instead of its route.
        link: u32,
        /// Only a message this close behind its predecessor.
        within: Option<SimDuration>,
    },
    /// The generator of host `host` stops offering messages.
    Pause {
        /// The generator's host.
        host: u32,
    },
    /// … and starts again.
    Resume {
        /// The generator's host.
        host: u32,
    },
}

impl Subnet {
    /// Schedules the scripted actions and the lockup watch (called by `initial_events`).
    pub(super) fn schedule_instruments(&self, q: &mut EventQueue<Ev>) {
        for (index, (at, _)) in self.actions.iter().enumerate() {
            q.schedule(
                SimTime::ZERO + *at,
                Ev::Scripted {
                    index: index as u16,
                },
            );
        }
        if !self.obs.measure_from.is_zero() {
            q.schedule(
                SimTime::ZERO + self.obs.measure_from,
                Ev::Observe(Tick::MeasureStart),
            );
        }
        if !self.obs.lockup_window.is_zero() {
            q.schedule(
                SimTime::ZERO + self.obs.lockup_window / 4,
                Ev::Observe(Tick::Watchdog),
            );
        }
    }

    pub(super) fn scripted(&mut self, now: SimTime, index: u16, q: &mut EventQueue<Ev>) {
        let action = self.actions[index as usize].1;
        if self.trace.is_on() {
            self.trace.emit(
                now,
                &Tr::Scripted {
                    action: format!("{action:?}"),
                },
            );
        }
        match action {
            Action::LineError { link } => {
                self.corrupt_next.insert(link);
            }
            Action::Detour { imp, link, within } => {
                self.detours.insert(imp, (link, within));
            }
            Action::Pause { host } | Action::Resume { host } => {
                if let Some(g) = self.hosts[host as usize].generator.as_mut() {
                    g.paused = matches!(action, Action::Pause { .. });
                }
                self.host_try(now, host, q);
            }
        }
    }

    /// The generator of host `h` makes messages until `outstanding` are in flight.
    pub(super) fn generator_try(&mut self, now: SimTime, h: u32, q: &mut EventQueue<Ev>) {
        loop {
            let host = &self.hosts[h as usize];
            let g = host.generator.as_ref().expect("a generator");
            if !host.started
                || g.paused
                || g.in_flight >= g.outstanding
                || g.count.is_some_and(|c| g.offered >= c)
            {
                return;
            }
            let (src, dst_host, bits) = (host.imp, g.dst_host, g.bits);
            // The IMP's own generator takes any free buffer (no host interface, no 4-buffer
            // rule); it is tried again when a buffer frees (`wake_hosts`).
            if self.imps[src as usize].admit_own_packet().is_err() {
                return;
            }
            let g = self.hosts[h as usize]
                .generator
                .as_mut()
                .expect("a generator");
            g.offered += 1;
            g.in_flight += 1;
            // It starts inside the IMP: the packet is in, and it goes to point b.
            let (id, o) = self.new_offer(now, h, dst_host, bits);
            self.step(now, src, q, |i, out| i.message_generated(id, o, out));
        }
    }
}
