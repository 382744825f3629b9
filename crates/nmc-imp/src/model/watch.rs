//! The driver's side of what a run watches: the observers' ticks ([`Tick`]), the occupancy
//! sample read off the measured pair's tables, the protocol's counts handed to the
//! [`Observer`](crate::observe::Observer), and what the subnet still holds (undelivered
//! messages, busy resources) for the end of a run and the no-leak check.

use super::{Counted, Ev, Occupancy, Subnet, Tick};
use crate::packet::MsgId;
use nmc_sim::{EventQueue, SimTime};
use std::collections::BTreeSet;

impl Subnet {
    pub(super) fn count(&mut self, what: Counted) {
        self.obs.count(what);
    }

    pub(super) fn sample(&mut self, now: SimTime, q: &mut EventQueue<Ev>) {
        if let Some((s, d)) = self.obs.watch {
            let (si, di) = (
                self.imps[s as usize].snapshot(),
                self.imps[d as usize].snapshot(),
            );
            let plt_reqalls = si.plt_reqalls();
            let plt_rfnms_waiting = di.rfnms_waiting_for(s);
            let o = Occupancy {
                t_ns: now.as_nanos(),
                message_numbers: si.numbers_in_use(self.obs.watch_stream),
                plt_entries: si.plt_used(),
                reassembly_buffers: di.reassembly_used(),
                allocations_held: si.allocations_held(d),
                source_buffers: si.buffers_used(),
                plt_reqalls,
                plt_rfnms_waiting,
                plt_messages: si
                    .plt_used()
                    .saturating_sub(plt_reqalls + plt_rfnms_waiting),
            };
            self.obs.sampled(now, o);
        }
        self.sample_routing(now);
        q.schedule(now + self.obs.sample_period, Ev::Observe(Tick::Sample));
    }

    /// Messages offered and not yet delivered to their host, counted where they are: in the
    /// source procedure or the subnet (known to the source, not delivered), or on their way
    /// to the host after the RFNM came back.
    pub(crate) fn undelivered(&self) -> u64 {
        let known = self.obs.messages.values().filter(|m| !m.delivered).count();
        let mut leaving: BTreeSet<MsgId> = BTreeSet::new();
        for i in &self.imps {
            let to_hosts = i.snapshot().to_hosts();
            leaving.extend(to_hosts.filter(|m| !self.obs.messages.contains_key(m)));
        }
        (known + leaving.len()) as u64
    }

    /// What is still held, one line per IMP or line that is not idle (empty when idle).
    pub(crate) fn held(&self) -> Vec<String> {
        let mut v = Vec::new();
        for i in &self.imps {
            v.extend(i.snapshot().held());
        }
        for l in self.links() {
            if l.channels_busy() > 0 || !l.data.is_empty() || !l.ctrl.is_empty() {
                v.push(format!(
                    "line {}→{}: channels {}, data {}, control {}",
                    self.imps[l.def.from as usize].name,
                    self.imps[l.def.to as usize].name,
                    l.channels_busy(),
                    l.data.len(),
                    l.ctrl.len()
                ));
            }
        }
        if !self.obs.messages.is_empty() {
            v.push(format!("{} messages unanswered", self.obs.messages.len()));
        }
        v
    }

    /// True when no resource anywhere is held (for the no-leak check).
    pub(crate) fn all_idle(&self) -> bool {
        self.imps.iter().all(|i| i.idle())
            && self
                .links()
                .all(|l| l.channels_busy() == 0 && l.data.is_empty() && l.ctrl.is_empty())
            && self.obs.messages.is_empty()
            && self.slab.live() == 0
    }
}

impl Subnet {
    /// An observer's tick ([`Tick`]): what it records is read now; the network is not touched.
    pub(super) fn observe(&mut self, now: SimTime, tick: Tick, q: &mut EventQueue<Ev>) {
        match tick {
            Tick::Sample => self.sample(now, q),
            Tick::Watchdog => self.watchdog(now, q),
            Tick::MeasureStart => {
                self.obs.busy_at_measure = self.links().map(|l| l.busy_time).collect();
            }
            Tick::Slice => {
                if let Some(s) = self.time_slice(now) {
                    self.obs.slices.push(s);
                }
            }
        }
    }
}
