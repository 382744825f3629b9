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

use crate::model::{
    Arrived, BoundaryCounts, BoundaryLine, Carried, Ev, Handed, Incoming, Outgoing, Subnet,
};
use crate::run::{BuildError, build};
use crate::spec::ImpConfig;
use crate::spec::RoutingMode;
use nmc_sim::{SimDuration, SimTime, Simulation, Trace};
use std::collections::VecDeque;

/// A subnet stepped from outside (see the module's introduction).
pub struct Stepper {
    sim: Simulation<Subnet>,
    /// Hosts whose traffic waits for [`Stepper::start_hosts`], and when after it each starts
    /// (a network with outside IMPs: its time 0 is the caller's).
    deferred: Vec<(u32, SimDuration)>,
    /// The background hosts' first arrivals, as drawn at time 0, waiting for
    /// [`Stepper::start_hosts`] too.
    deferred_arrivals: Vec<(SimDuration, Ev)>,
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
        Stepper::build(s, seed, outside, false)
    }

    /// [`Stepper::new`]; with `defer`, the hosts' traffic waits for [`Stepper::start_hosts`].
    fn build(s: &ImpConfig, seed: u64, outside: &[&str], defer: bool) -> Result<Self, BuildError> {
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
        let (now, deferred) = if defer {
            (Vec::new(), starts)
        } else {
            (starts, Vec::new())
        };
        sim.model.initial_events(&mut q, &now);
        let mut deferred_arrivals = Vec::new();
        while let Some((t, e)) = q.pop() {
            if defer && matches!(e, Ev::Arrival { .. }) {
                deferred_arrivals.push((t - SimTime::ZERO, e));
            } else {
                sim.schedule(t, e);
            }
        }
        Ok(Stepper {
            sim,
            deferred,
            deferred_arrivals,
        })
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

    /// The subnet's clock: every event before it has been handled.
    pub fn now(&self) -> SimTime {
        self.sim.now()
    }

    /// When the subnet next has an event to handle (it always has: clocks and routing run).
    pub fn poll_at(&self) -> Option<SimTime> {
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

/// A network of modelled IMPs and IMPs outside the model (issue 73 §3: the outside ones run
/// BBN's 1973 program on the emulator, `nmc_oracle::program`): the lines between the two
/// kinds are handed across here (`model/boundary.rs`). The caller times those lines and holds
/// their far ends; it advances the subnet to each frame's time, as for [`Stepper::offer`].
impl Stepper {
    /// Builds scenario `s` with `seed`, the IMPs named in `outside` left outside the model:
    /// they stay in its topology (for routes) and do nothing. The modelled IMPs route by
    /// static shortest paths (`network.routing = "static"`), and no host of the scenario may be
    /// on an outside IMP (its traffic is the caller's).
    pub fn with_outside_imps(
        s: &ImpConfig,
        seed: u64,
        outside: &[&str],
    ) -> Result<Self, BuildError> {
        if s.network.routing != RoutingMode::Static {
            return Err(BuildError(
                "network.routing: modelled IMPs beside outside ones route by static shortest paths (\"static\"); the adaptive procedures would need the outside IMPs' routing messages".into(),
            ));
        }
        let mut me = Stepper::build(s, seed, &[], true)?;
        let m = &mut me.sim.model;
        let mut ids = Vec::with_capacity(outside.len());
        for name in outside {
            let Some(i) = m.topo.index(name) else {
                return Err(BuildError(format!(
                    "`{name}` is not an IMP of this network"
                )));
            };
            if let Some(h) = m
                .hosts
                .iter()
                .find(|h| h.imp == i && (h.pump.is_some() || h.generator.is_some()))
            {
                return Err(BuildError(format!(
                    "host `{}` is on `{name}`, an IMP outside the model: its traffic is the outside's",
                    h.name
                )));
            }
            ids.push(i);
        }
        if m.params.message_processing != crate::params::MessageProcessing::V2
            && let Some(h) = m.hosts.iter().find(|h| !ids.contains(&h.imp))
        {
            return Err(BuildError(format!(
                "network.profile: host `{}` is on a modelled IMP beside outside ones, whose messages cross in version 2's protocol (the IMP program's); a version 3 profile's message control blocks do not",
                h.name
            )));
        }
        if m.params.gvb_number == crate::params::GvbNumber::Mesget1973 {
            return Err(BuildError(
                "network.params.gvb_number: \"mesget-1973\" (a GVB holding a message number) is not carried across the boundary to outside IMPs; use \"none\" in a network with outside IMPs".into(),
            ));
        }
        m.set_outside(&ids);
        // A background host on an outside IMP is an address only: the outside sends its load.
        for h in m.hosts.iter_mut().filter(|h| ids.contains(&h.imp)) {
            if let Some(b) = h.background.as_mut() {
                b.stopped = true;
            }
        }
        // The pumps' messages are kept, to be written beside the outside hosts'.
        m.obs.retain_messages = true;
        Ok(me)
    }

    /// The hosts' traffic starts now (as at time 0 of a run of the model alone): a network
    /// with outside IMPs holds it until the caller's time 0 ([`Stepper::with_outside_imps`]).
    /// Once only; later calls do nothing.
    pub fn start_hosts(&mut self) {
        let now = self.sim.now();
        for (host, at) in std::mem::take(&mut self.deferred) {
            self.sim.schedule(now + at, Ev::HostStart { host });
        }
        for (at, e) in std::mem::take(&mut self.deferred_arrivals) {
            self.sim.schedule(now + at, e);
        }
    }

    /// The background load's messages so far, as the model counts its own (those of its
    /// background hosts): offered, delivered (to the model's hosts), answered, refused.
    pub fn background_tally(&self) -> [u64; 4] {
        let t = &self.sim.model.obs.tally;
        [
            t.background_offered,
            t.background_delivered,
            t.background_answered,
            t.background_refused,
        ]
    }

    /// The background hosts (`kind = "background"`), as (host index, IMP), in host order.
    pub fn background_hosts(&self) -> Vec<(u32, u32)> {
        (0u32..)
            .zip(&self.sim.model.hosts)
            .filter(|(_, h)| h.background.is_some())
            .map(|(i, h)| (i, h.imp))
            .collect()
    }

    /// The index of each host of the scenario's `network.hosts`, in its order (the model's
    /// host `i` is the scenario's `i`).
    pub fn host_imp(&self, host: u32) -> Option<u32> {
        self.sim.model.hosts.get(host as usize).map(|h| h.imp)
    }

    /// The messages of the model's pumps answered so far, in the order their RFNMs came back,
    /// taken out (a network with outside IMPs keeps them).
    pub fn take_messages(&mut self) -> Vec<crate::observe::MessageRecord> {
        std::mem::take(&mut self.sim.model.obs.done)
    }

    /// Number `num` of the stream from IMP `src` to modelled IMP `imp` carries no message
    /// there: the caller answered it itself (`model/boundary.rs`).
    pub fn boundary_skip(&mut self, imp: u32, src: u32, num: u64) {
        let m = &self.sim.model;
        let n = m.imps.len() as u32;
        if imp < n && src < n && !m.is_outside(imp) {
            self.sim
                .act(|m, now, q| m.boundary_skip(now, imp, src, num, q));
        }
    }

    /// The lines between a modelled IMP and an outside one, in topology order.
    pub fn boundary_lines(&self) -> Vec<BoundaryLine> {
        self.sim.model.boundary_lines()
    }

    /// The lines out of the model that have had something to give since last asked (each
    /// once): call [`Stepper::boundary_take`] on them.
    pub fn boundary_ready(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.sim.model.boundary.ready)
            .into_iter()
            .collect()
    }

    /// The next packet to cross line `out` (modelled IMP → outside IMP) now, if the modelled
    /// IMP has one for it; the caller's far end sends it and acknowledges it back with its
    /// channel and bit ([`Stepper::boundary_frame_in`]).
    pub fn boundary_take(&mut self, out: u32) -> Option<Outgoing> {
        if !self.is_boundary(out, true) {
            return None;
        }
        self.sim.act(|m, now, q| m.boundary_take(now, out, q))
    }

    /// A frame from the outside IMP over line `back` (outside IMP → modelled IMP), its last
    /// bit in now: the acknowledgements it carries for the modelled IMP's channels (channel,
    /// bit), and what it `carried`. `Ok(true)` if it carried a packet the modelled IMP took;
    /// `Ok(false)` if refused (no buffer, K&O §III: the far end sends it again) or no packet.
    pub fn boundary_frame_in(
        &mut self,
        back: u32,
        acks: &[(u8, bool)],
        carried: Carried,
    ) -> Result<bool, BuildError> {
        if !self.is_boundary(back, false) {
            return Err(BuildError(format!(
                "link {back} is not a line from an outside IMP into the model"
            )));
        }
        let m = &self.sim.model;
        let channels = m.params.logical_channels;
        if let Some(&(lch, _)) = acks.iter().find(|a| a.0 >= channels) {
            return Err(BuildError(format!(
                "an acknowledgement for channel {lch} of {channels}"
            )));
        }
        if let Carried::Packet { lch, packet, .. } = &carried {
            let n = m.imps.len() as u32;
            if *lch >= channels || packet.src >= n || packet.dst >= n {
                return Err(BuildError(format!(
                    "a packet on channel {lch} from IMP {} to IMP {} (of {n})",
                    packet.src, packet.dst
                )));
            }
        }
        Ok(self
            .sim
            .act(|m, now, q| m.boundary_frame_in(now, back, acks, carried, q)))
    }

    /// The outside packets that reached their destination, a modelled IMP, since last asked
    /// (reports the program sends to an IMP's fake host), in the order they did.
    pub fn boundary_arrived(&mut self) -> Vec<Arrived> {
        std::mem::take(&mut self.sim.model.boundary.arrived)
    }

    /// Modelled IMP `imp` sends outside packet `p` now (an answer to one that arrived; its
    /// `src` is ignored: `imp` sends it), routed through the model as its own control
    /// message or packet in transit toward `p.dst`.
    pub fn boundary_send(&mut self, imp: u32, p: Incoming) -> Result<(), BuildError> {
        let m = &self.sim.model;
        let n = m.imps.len() as u32;
        if imp >= n || p.dst >= n || m.is_outside(imp) || !m.is_outside(p.dst) {
            return Err(BuildError(format!(
                "a packet from IMP {imp} to IMP {}: from a modelled IMP to an outside one only",
                p.dst
            )));
        }
        self.sim.act(|m, now, q| m.boundary_send(now, imp, p, q));
        Ok(())
    }

    /// The outside end reset line `back` (outside IMP → modelled IMP) and starts its
    /// channels afresh: the modelled IMP forgets the sequence bits it last accepted on it.
    pub fn boundary_reset(&mut self, back: u32) {
        if self.is_boundary(back, false) {
            self.sim.model.boundary_reset(back);
        }
    }

    /// Link `l`'s use so far (frames started, time sending), as the model counts a line of
    /// its own; `None` if there is no such link.
    pub fn line_use(&self, l: u32) -> Option<(u64, SimDuration)> {
        let m = &self.sim.model;
        ((l as usize) < m.link_at.len()).then(|| {
            let link = m.link(l);
            (link.frames, link.busy_time)
        })
    }

    /// What crossed the boundary lines so far.
    pub fn boundary_counts(&self) -> BoundaryCounts {
        self.sim.model.boundary.counts
    }

    /// Is `l` a line out of the model (`out`) or into it?
    fn is_boundary(&self, l: u32, out: bool) -> bool {
        let m = &self.sim.model;
        let Some(d) = m.topo.links.get(l as usize) else {
            return false;
        };
        let (inside, outside) = if out { (d.from, d.to) } else { (d.to, d.from) };
        !m.is_outside(inside) && m.is_outside(outside)
    }
}
