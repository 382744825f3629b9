//! The IMP's clock and its lines' routing slots, driven: the driver keeps the clock (each IMP's
//! 25.6 ms tick, staggered over one period) and hands each tick to the IMP's step
//! ([`crate::imp::Imp::clock_tick`]); the processor, its task queue and the task level's work
//! are the IMP's own (`hop/processing.rs`).

use super::{Ev, Subnet};
use crate::params::{Giveback, ReqallClaim, ReqallWake, RoutingClock, RoutingFrequency};
use nmc_sim::{EventQueue, SimDuration, SimTime};

impl Subnet {
    /// The clock of `imp` ticks: the IMP's step takes the processor for the tick's work
    /// ([`crate::imp::Imp::clock_tick`]), and the next tick is queued.
    pub(super) fn clock(&mut self, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        self.step(now, imp, q, |i, out| i.clock_tick(now, out));
        q.schedule(now + self.params.fast_tick, Ev::Clock { imp });
        // BBN 3050 p. 163 `JOBF`: the hosts' input restarted (`HITC`) before the TALLY clock's
        // bump (`TALLYB`).
        if self.params.reqall_claim == ReqallClaim::Tick1973 {
            self.step(now, imp, q, |i, out| i.reqall_claim_tick(out));
        }
        if self.params.giveback == Giveback::Tally1973 {
            self.step(now, imp, q, |i, out| i.tally_tick(now, out));
        }
        if self.params.reqall_wake == ReqallWake::FastTick1973 {
            self.step(now, imp, q, |i, out| i.reqall_wake_tick(out));
        }
        self.tick_wakes_hosts(now, imp, q);
        if self.params.routing_clock == RoutingClock::ImpTick1973 {
            self.routing_clock_tick(now, imp, q);
        }
    }

    /// `routing_clock = "imp-tick-1973"`: the tick just counted by `imp`'s clock is a routing
    /// send opportunity for each of its lines whose slot it ends (BBN 3050 p. 163 `JOBF` →
    /// `RSTOUT`, p. 164 `RSTO2`); they come when the tick's work is done
    /// ([`Subnet::routing_at_tick`]). Ticks are counted from the IMP's first, so the slow tick
    /// (every `slow_tick_every`-th) ends a slot of every line whose slot divides it.
    fn routing_clock_tick(&mut self, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        let tick = self.imps[imp as usize].cpu.ticks;
        if self.due_at_tick(imp, tick).next().is_some() {
            let at = self.imps[imp as usize].cpu.clock_done().max(now);
            q.schedule(at, Ev::RoutingAtTick { imp, tick });
        }
    }

    /// The lines of `imp` whose routing slot its clock's tick number `ticks` ended, in the
    /// IMP's line order.
    fn due_at_tick(&self, imp: u32, ticks: u64) -> impl Iterator<Item = u32> + '_ {
        let i = &self.imps[imp as usize];
        i.lines.iter().map(|l| l.id).filter(move |&link| {
            self.on_imp_clock(link)
                .is_some_and(|every| ticks.is_multiple_of(every))
        })
    }

    /// Every line of `imp` whose slot its clock's tick number `tick` ended has its routing send
    /// opportunity ([`crate::imp::Imp::routing_opportunity`]), in the IMP's line order, when
    /// that tick's work is done.
    pub(super) fn routing_at_tick(
        &mut self,
        now: SimTime,
        imp: u32,
        tick: u64,
        q: &mut EventQueue<Ev>,
    ) {
        let i = &self.imps[imp as usize];
        // Interrupts that came during the tick's work (`modem_interrupts = "cpu-1973"`) made
        // it end later than when this was asked for: the opportunities come then, still the
        // tick's (p. 161: the next tick's jobs wait for this one's, `TO` being one level).
        if i.cpu.clock_done() > now {
            q.schedule(i.cpu.clock_done(), Ev::RoutingAtTick { imp, tick });
            return;
        }
        let slow = i.is_slow_tick(tick);
        let links: Vec<u32> = self.due_at_tick(imp, tick).collect();
        for link in links {
            let (slot, by_load) = self.routing_slot(link);
            let line = self.link_at[link as usize].1 as usize;
            self.step(now, imp, q, |i, out| {
                i.routing_opportunity(line, slot, by_load, Some(slow), out)
            });
        }
    }

    /// With `routing_clock = "imp-tick-1973"`, a line whose routing follows its load counts
    /// its opportunities on its IMP's clock: every this many fast ticks (its slot in fast
    /// ticks, at least one). `None`: the line keeps its own clock ([`Ev::RoutingTick`]).
    pub(super) fn on_imp_clock(&self, link: u32) -> Option<u64> {
        if self.params.routing_clock != RoutingClock::ImpTick1973 {
            return None;
        }
        let (slot, by_load) = self.routing_slot(link);
        by_load.then(|| (slot.as_nanos() / self.params.fast_tick.as_nanos().max(1)).max(1))
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
            i.routing_opportunity(line as usize, slot, by_load, None, out)
        });
        q.schedule(now + slot, Ev::RoutingTick { link });
    }
}
