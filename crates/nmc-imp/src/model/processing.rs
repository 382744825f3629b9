//! The IMP's clock and its lines' routing slots, driven: the driver keeps the clock (each IMP's
//! 25.6 ms tick, staggered over one period) and hands each tick to the IMP's step
//! ([`crate::imp::Imp::clock_tick`]); the processor, its task queue and the task level's work
//! are the IMP's own (`hop/processing.rs`).

use super::{Ev, Subnet};
use crate::params::{Giveback, ReqallWake, RoutingFrequency};
use nmc_sim::{EventQueue, SimDuration, SimTime};

impl Subnet {
    /// The clock of `imp` ticks: the IMP's step takes the processor for the tick's work
    /// ([`crate::imp::Imp::clock_tick`]), and the next tick is queued.
    pub(super) fn clock(&mut self, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        self.step(now, imp, q, |i, out| i.clock_tick(now, out));
        q.schedule(now + self.params.fast_tick, Ev::Clock { imp });
        if self.params.giveback == Giveback::Tally1973 {
            self.step(now, imp, q, |i, out| i.tally_tick(out));
        }
        if self.params.reqall_wake == ReqallWake::FastTick1973 {
            self.step(now, imp, q, |i, out| i.reqall_wake_tick(out));
        }
        self.tick_wakes_hosts(now, imp, q);
    }

    /// Time between routing send opportunities on `link`, and whether it follows the line's
    /// load ([`RoutingFrequency::LineLoad1973`]) or goes every period.
    pub(super) fn routing_slot(&self, link: u32) -> (SimDuration, bool) {
        let period = self.routing.period(link);
        let by_load = self.params.routing_frequency == RoutingFrequency::LineLoad1973
            && period == self.params.routing_period;
        if !by_load {
            return (period, false);
        }
        // Listing pp. 163–164 (`RSTOUT`): the base interval is the period / opportunities
        // (128 ms) on a 50 kbit/s line, every fast tick on 230.4/250 kbit/s lines, a whole
        // period on slower lines. **Choice** for speeds the listing does not name: the nearest.
        let p = &self.params;
        let bps = self.link(link).def.capacity.bps();
        let slot = if bps >= 200_000 {
            p.fast_tick
        } else if bps >= 40_000 {
            period / p.routing_opportunities as u64
        } else {
            period
        };
        (slot, true)
    }

    /// A routing send opportunity on `link`: the IMP's step decides whether it is used
    /// ([`crate::imp::Imp::routing_opportunity`]), and the next is queued one slot on.
    pub(super) fn routing_tick(&mut self, now: SimTime, link: u32, q: &mut EventQueue<Ev>) {
        let (slot, by_load) = self.routing_slot(link);
        let (imp, line) = self.link_at[link as usize];
        self.step(now, imp, q, |i, out| {
            i.routing_opportunity(line as usize, slot, by_load, out)
        });
        q.schedule(now + slot, Ev::RoutingTick { link });
    }
}
