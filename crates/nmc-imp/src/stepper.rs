//! The subnet as a part of a larger model: hosts whose messages are handed in from outside,
//! a clock the caller advances, and deliveries the caller polls.
//!
//! This is how a path model (RFC 889's 1983 Internet paths in `nmc-internet`) puts the
//! ARPANET into a path without a second network model: its gateway host hands a datagram to
//! its IMP as an 1822 message ([`Stepper::offer`]); the message takes what every message
//! takes — a message number, the PLT, a REQALL unless an allocation is at hand, buffers,
//! lines, IMP processors, shared with the scenario's other traffic — and
//! [`Stepper::poll_delivered`] says when its last packet reached the destination host.
//!
//! The caller keeps its own clock: it calls [`Stepper::advance`] to a time, offers messages
//! at that time, and asks [`Stepper::poll_at`] when the subnet next has something to do.
//! Same-time order: a message offered at `t` enters the event queue after every event
//! already due at `t`, so a run depends only on the scenario, the seed and the offers.

use crate::model::{Ev, Handed, Subnet};
use crate::run::{BuildError, build};
use crate::spec::ImpConfig;
use nmc_sim::{SimTime, Simulation, Trace};
use std::collections::VecDeque;

/// A subnet stepped from outside (see the module's introduction).
pub struct Stepper {
    sim: Simulation<Subnet>,
}

#[cfg(test)]
/// A message handed in with [`Stepper::offer`] has reached its destination host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Delivered {
    /// The tag given to [`Stepper::offer`].
    pub(crate) tag: u64,
    /// When its last packet finished its transfer into the destination host.
    pub(crate) at: SimTime,
}

impl Stepper {
    /// Builds scenario `s` with `seed` (its traffic runs as in `nmc run`: background load,
    /// pumps) and makes the hosts named in `outside` take their messages from
    /// [`Stepper::offer`]. Such a host must be in `network.hosts` and send no traffic of the
    /// scenario's own.
    pub fn new(s: &ImpConfig, seed: u64, outside: &[&str]) -> Result<Self, BuildError> {
        let (mut subnet, starts) = build(s, seed, Trace::off())?;
        for name in outside {
            let Some(h) = subnet.hosts.iter().position(|h| h.name == *name) else {
                return Err(BuildError(format!(
                    "`{name}` is not a host of this network (network.hosts)"
                )));
            };
            let host = &mut subnet.hosts[h];
            if host.pump.is_some() || host.generator.is_some() || host.background.is_some() {
                return Err(BuildError(format!(
                    "host `{name}` already sends the scenario's own traffic; messages handed in \
                     from outside need a host of their own"
                )));
            }
            host.outside = Some(VecDeque::new());
        }
        // Nothing is recorded one by one: memory stays flat however long the caller runs.
        subnet.obs.retain_messages = false;
        subnet.obs.retain_occupancy = false;
        let mut sim = Simulation::new(subnet);
        let mut q = nmc_sim::EventQueue::new();
        sim.model.initial_events(&mut q, &starts);
        while let Some((t, e)) = q.pop() {
            sim.schedule(t, e);
        }
        Ok(Stepper { sim })
    }

    /// The index of host `name`, for [`Stepper::offer`].
    pub fn host(&self, name: &str) -> Option<u32> {
        self.sim
            .model
            .hosts
            .iter()
            .position(|h| h.name == name)
            .map(|i| i as u32)
    }

    /// The IMPs (by name) a message from host `from` to host `to` would pass now, by the
    /// routing tables; `None` when there is no route or a forwarding loop.
    pub fn route(&self, from: u32, to: u32) -> Option<Vec<String>> {
        let m = &self.sim.model;
        let (a, b) = (
            m.hosts.get(from as usize)?.imp,
            m.hosts.get(to as usize)?.imp,
        );
        let path = m.route_walk(a, b)?;
        Some(
            path.into_iter()
                .map(|i| m.topo.names[i as usize].clone())
                .collect(),
        )
    }

    #[cfg(test)]
    /// The subnet's clock: every event before it has been handled.
    pub(crate) fn now(&self) -> SimTime {
        self.sim.now()
    }

    #[allow(
        dead_code,
        reason = "the stepping protocol of the module doc; nmc-internet steps by run_to_delivery"
    )]
    /// When the subnet next has an event to handle (it always has: clocks and routing run).
    pub(crate) fn poll_at(&self) -> Option<SimTime> {
        self.sim.next_event_at()
    }

    /// Handles every event due at or before `until`; the clock is then `until`. A time before
    /// the clock is a no-op.
    pub fn advance(&mut self, until: SimTime) {
        if until >= self.sim.now() {
            self.sim.run_until(until);
        }
    }

    /// Host `from` hands a message of `bits` data bits for host `to` to its IMP at the
    /// subnet's current time ([`Stepper::advance`] there first). It queues behind the host's
    /// earlier messages, one at a time through the host interface as every host's messages go.
    pub fn offer(&mut self, from: u32, to: u32, bits: u64, tag: u64) -> Result<(), BuildError> {
        let m = &mut self.sim.model;
        let max = m.params.max_message.get();
        let n = m.hosts.len();
        if to as usize >= n || from == to {
            return Err(BuildError(format!(
                "offer: host {to} is not another host of this network"
            )));
        }
        if bits == 0 || bits > max {
            return Err(BuildError(format!(
                "offer: a message holds 1 to {max} data bits, not {bits}"
            )));
        }
        let Some(queue) = m
            .hosts
            .get_mut(from as usize)
            .and_then(|h| h.outside.as_mut())
        else {
            return Err(BuildError(format!(
                "offer: host {from} was not named as taking messages from outside"
            )));
        };
        queue.push_back(Handed { to, bits, tag });
        let now = self.sim.now();
        self.sim.schedule(now, Ev::HostStart { host: from });
        Ok(())
    }

    #[cfg(test)]
    /// The next message handed in that has reached its destination host, in delivery order.
    pub(crate) fn poll_delivered(&mut self) -> Option<Delivered> {
        self.sim
            .model
            .obs
            .outside_delivered
            .pop_front()
            .map(|(tag, at)| Delivered { tag, at })
    }

    /// Runs until the message `tag` (already offered) is delivered, handling every event up
    /// to then, and returns when; `None` if it is not delivered by `give_up`. Deliveries of
    /// other tags met on the way stay queued for `Stepper::poll_delivered`.
    pub fn run_to_delivery(&mut self, tag: u64, give_up: SimTime) -> Option<SimTime> {
        loop {
            let m = &mut self.sim.model;
            if let Some(k) = m.obs.outside_delivered.iter().position(|&(t, _)| t == tag) {
                return m.obs.outside_delivered.remove(k).map(|(_, at)| at);
            }
            match self.sim.next_event_at() {
                Some(t) if t <= give_up => self.sim.run_until(t),
                _ => {
                    self.advance(give_up);
                    return None;
                }
            };
        }
    }

    /// The subnet, to read its state and counts.
    pub fn subnet(&self) -> &Subnet {
        &self.sim.model
    }
}
