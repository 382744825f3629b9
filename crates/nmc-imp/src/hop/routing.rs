//! The IMP's routing: the next line for a packet, by its own router or the static routes;
//! packets without a route kept until the table changes; and what reaches its router (a
//! routing message from a neighbour, a line going down or up, a packet's delay on a line).
//! The router itself is `nmc-routing`'s ([`crate::routing`] says which procedure and how the
//! model drives it); the routing frames' timing is the line's ([`Imp::routing_opportunity`]).

use crate::imp::{Imp, Net};
use crate::link::Hold;
use crate::packet::PktId;
use crate::params::RoutingTables;
use crate::routing::AnyRouter;
use crate::topology::Routes;
use nmc_routing::{LineId, NodeId, RouteEvent, Router, RoutingMessage};
use nmc_sim::{SimDuration, SimTime};

impl Imp {
    /// The link this IMP's routing gives now toward IMP `dst`, if any: its router's next hop
    /// (`network.routing = "adaptive"` or `"spf"`), else the static routes `statics` give.
    #[inline]
    pub(crate) fn route_by(&self, dst: u32, statics: impl FnOnce() -> Option<u32>) -> Option<u32> {
        match &self.router {
            Some(r) => r.next_hop(NodeId(dst)).map(|h| h.line.0),
            None => statics(),
        }
    }

    /// [`Imp::route_by`], the static routes read through `net`.
    #[inline]
    pub(crate) fn route(&self, dst: u32, net: &impl Net) -> Option<u32> {
        self.route_by(dst, || net.route(self.id, dst))
    }

    /// Packet `pkt`, held as `hold`, for IMP `dst`, joins the queue of the line its route gives
    /// now (the link is returned, for the driver to start its next frame), or, without a
    /// route, waits in the IMP ([`Imp::parked`]) until its table changes (`None`).
    pub(crate) fn queue_or_park(
        &mut self,
        pkt: PktId,
        hold: Hold,
        dst: u32,
        statics: &impl Routes,
    ) -> Option<u32> {
        match self.route_by(dst, || statics.next_link(self.id, dst)) {
            Some(l) => {
                let line = self
                    .line_of(l)
                    .expect("a route leaves by one of the IMP's lines");
                self.enqueue(line, pkt, hold);
                Some(l)
            }
            None => {
                self.park(pkt, hold);
                None
            }
        }
    }

    /// Packet `pkt`, held as `hold`, waits for a route, after those already waiting.
    pub(crate) fn park(&mut self, pkt: PktId, hold: Hold) {
        self.parked.push_back((pkt, hold));
    }

    /// The packets waiting for a route, oldest first, taken out to be routed again
    /// ([`Imp::queue_or_park`] parks again those still without one).
    pub(crate) fn take_parked(&mut self) -> std::collections::VecDeque<(PktId, Hold)> {
        std::mem::take(&mut self.parked)
    }

    /// The routing message this IMP's router sends on `link` now (`None` with static routes:
    /// the frame still goes, carrying nothing): the table as it is now, or, with
    /// `routing_tables = "slow-tick-1973"`, the one made at the last slow tick
    /// ([`Imp::make_routing_table`]; before the first, the table as it is, unnumbered).
    pub(crate) fn routing_message(&self, now: SimTime, link: u32) -> Option<RoutingMessage> {
        match &self.table_made {
            Some(table) => Some(table.clone()),
            None => self.router.as_ref()?.routing_message(now, LineId(link)),
        }
    }

    /// Whether this IMP makes its routing table at the slow tick and takes each neighbour's
    /// once (`routing_tables = "slow-tick-1973"`, with the distance-vector router).
    fn tables_at_slow_tick(&self) -> bool {
        self.limits.line.routing_tables == RoutingTables::SlowTick1973
            && matches!(self.router, Some(AnyRouter::Dv(_)))
    }

    /// A routing message from the neighbour on the far end of `link` (the link's id on this
    /// IMP's side, coming in) arrived intact: the router reads it, with every output queue's
    /// length read now (K&O §III: 1 unit per packet waiting on the output line, read when the
    /// message is handled; the count the 8-packet limit applies to). With `routing_tables =
    /// "slow-tick-1973"` a table whose number this IMP already took from that line is ignored
    /// (BBN 3050 p. 225 `RSTINP`: "WE SAW IT BEFORE"), and the lines' local delays are those
    /// counted at the slow tick.
    pub(crate) fn routing_message_in(&mut self, now: SimTime, link: u32, msg: &RoutingMessage) {
        let at_slow_tick = self.tables_at_slow_tick();
        if at_slow_tick && msg.serial != 0 {
            let Some(k) = self.line_of(link) else {
                return;
            };
            if self.lines[k].table_taken == Some(msg.serial) {
                return;
            }
            self.lines[k].table_taken = Some(msg.serial);
        }
        let Some(router) = self.router.as_mut() else {
            return;
        };
        if !at_slow_tick {
            for l in &self.lines {
                router.set_queue_len(LineId(l.id), l.queue_len());
            }
        }
        router.handle_routing_message(now, LineId(link), msg);
    }

    /// The slow tick's routing work with `routing_tables = "slow-tick-1973"` (BBN 3050 p. 171
    /// `JOBS`): each line's local delay is counted from its acknowledgment channels in use
    /// (p. 176 `JED`), and the table every routing message carries until the next slow tick is
    /// made, numbered with the tick's generation (p. 230 `RUTOUT`). Nothing otherwise.
    pub(crate) fn make_routing_table(&mut self, now: SimTime, generation: u64) {
        if !self.tables_at_slow_tick() {
            return;
        }
        let Some(router) = self.router.as_mut() else {
            return;
        };
        for l in &self.lines {
            router.set_queue_len(LineId(l.id), l.channels_in_use());
        }
        // The table is the same on every line; the first line up gives it.
        let table = self
            .lines
            .iter()
            .find_map(|l| router.routing_message(now, LineId(l.id)));
        self.table_made = table.map(|mut t| {
            t.serial = u32::try_from(generation).unwrap_or(u32::MAX);
            t
        });
    }

    /// A packet left on `link` for the first time and took `delay` from its arrival here to
    /// its arrival at the neighbour: a delay sample for the router (SPF).
    pub(crate) fn line_delay(&mut self, now: SimTime, link: u32, delay: SimDuration) {
        if let Some(r) = self.router.as_mut() {
            r.handle_packet_delay(now, LineId(link), delay);
        }
    }

    /// The router's next event (a best neighbour changed, a hold-down), for the records.
    pub(crate) fn poll_route_event(&mut self) -> Option<RouteEvent> {
        self.router.as_mut()?.poll_event()
    }

    /// The destination `dst`'s next IMP by this IMP's router (the loop records read every
    /// IMP's).
    pub(crate) fn best_neighbour(&self, dst: u32) -> Option<NodeId> {
        self.router
            .as_ref()?
            .next_hop(NodeId(dst))
            .map(|h| h.neighbour)
    }
}
