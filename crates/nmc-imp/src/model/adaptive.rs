//! The subnet's side of routing: routing frames with content, lines going down and up,
//! packets without a route, and the journey and loop records. The state and the choices made
//! are described in [`crate::routing`]; this module is the glue to the event model.

use super::{Ev, Subnet};
use crate::link::{Frame, FrameKind, Hold, accepted_at_line_down};
use crate::packet::{Packet, PktId, PktKind};
use crate::routing::{LineSample, NO_BODY, SourceSend};
use crate::topology::Routes;
use nmc_routing::NodeId;
use nmc_sim::{EventQueue, SimTime};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Trace lines of this module (`trace = true`).
#[derive(Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
enum Tr<'a> {
    Line {
        a: &'a str,
        b: &'a str,
        up: bool,
    },
    Route {
        imp: &'a str,
        dst: &'a str,
        kind: &'a str,
        from: &'a str,
        to: &'a str,
    },
}

impl Subnet {
    /// Schedules the scenario's line events (called with the initial events).
    pub(super) fn schedule_line_events(&self, q: &mut EventQueue<Ev>) {
        for e in &self.routing.events {
            q.schedule(
                SimTime::ZERO + e.at,
                Ev::LineChange {
                    line: e.line,
                    up: e.up,
                },
            );
        }
    }

    /// Topology line `line` (links `2·line`, `2·line + 1`) goes down or comes up.
    pub(super) fn line_change(
        &mut self,
        now: SimTime,
        line: u32,
        up: bool,
        q: &mut EventQueue<Ev>,
    ) {
        self.routing.counts.line_events += 1;
        let pair = [2 * line, 2 * line + 1];
        if self.trace.is_on() {
            let d = &self.link(pair[0]).def;
            self.trace.emit(
                now,
                &Tr::Line {
                    a: &self.imps[d.from as usize].name,
                    b: &self.imps[d.to as usize].name,
                    up,
                },
            );
        }
        if up {
            for l in pair {
                let st = &mut self.routing.links[l as usize];
                if st.up {
                    continue;
                }
                st.up = true;
                if let Some(since) = st.down_since.take() {
                    st.down_time += now - since;
                }
                let (from, line) = self.link_at[l as usize];
                self.step(now, from, q, |i, out| i.line_up(now, line as usize, out));
            }
        } else {
            let mut taken = Vec::new();
            for l in pair {
                if !self.routing.links[l as usize].up {
                    continue;
                }
                let busy = self.link(l).busy;
                let st = &mut self.routing.links[l as usize];
                st.up = false;
                st.downs += 1;
                st.down_since = Some(now);
                // Frames on the line are lost: the one being sent, and those propagating.
                st.doomed_tx = busy;
                st.doomed_wire = st.on_wire;
                // Packets sent and not acknowledged: the far IMP either has it (then it counts
                // as acknowledged) or it comes back to this IMP to be routed again
                // (`link::accepted_at_line_down`, read from both ends' sides of the line;
                // each IMP then changes only its own). The hosts woken by an acknowledged
                // one go on before the line's queues are taken off (`Imp::line_down`).
                let (from, line) = self.link_at[l as usize];
                let rev = self.link(l).reverse;
                let (far, far_line) = self.link_at[rev as usize];
                let accepted = accepted_at_line_down(self.link(l), self.link(rev));
                self.routing.counts.accepted_at_line_down += accepted.count_ones() as u64;
                let on_channels = self.step(now, from, q, |i, out| {
                    i.line_down(line as usize, accepted, out)
                });
                taken.extend(on_channels.into_iter().map(|h| (l, h)));
                let queued = self.imps[from as usize].line_down_reset(now, line as usize);
                // What the far end last accepted from this direction.
                self.imps[far as usize].line_down_received(far_line as usize);
                taken.extend(queued.into_iter().map(|h| (l, h)));
            }
            // Route the packets taken back again, oldest first per line.
            for (l, (pkt, hold)) in taken {
                let imp = self.link(l).def.from;
                self.routing.counts.taken_back += 1;
                self.requeue(now, imp, pkt, hold, q);
            }
        }
        for l in pair {
            let imp = self.link(l).def.from;
            self.routes_changed(now, imp, q);
        }
    }

    /// Puts a packet held by `imp` on the output queue its route gives now, or parks it
    /// ([`crate::imp::Imp::queue_or_park`]).
    fn requeue(&mut self, now: SimTime, imp: u32, pkt: PktId, hold: Hold, q: &mut EventQueue<Ev>) {
        let dst = self.slab.get(pkt).dst;
        match self.imps[imp as usize].queue_or_park(pkt, hold, dst, &self.topo) {
            Some(l) => self.try_send(now, l, q),
            None => self.routing.counts.parked += 1,
        }
    }

    /// After `imp`'s routing table may have changed: record the changes, route the packets
    /// waiting there for a route, and let its hosts try again.
    pub(super) fn routes_changed(&mut self, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        if self.routing.is_adaptive() {
            let first = self.routing.route_changes.len();
            self.record_route_events(now, imp);
            if self.trace.is_on() {
                for c in &self.routing.route_changes[first..] {
                    self.trace.emit(
                        now,
                        &Tr::Route {
                            imp: &c.imp,
                            dst: &c.dst,
                            kind: c.kind,
                            from: &c.from,
                            to: &c.to,
                        },
                    );
                }
            }
        }
        let waiting = self.imps[imp as usize].take_parked();
        for (pkt, hold) in waiting {
            let dst = self.slab.get(pkt).dst;
            if let Some(l) = self.imps[imp as usize].queue_or_park(pkt, hold, dst, &self.topo) {
                self.try_send(now, l, q);
            }
        }
        self.wake_hosts(now, imp, q);
    }

    /// Records the events of `imp`'s router (`record = ["routing"]`) and, for each destination
    /// whose best neighbour changed, the forwarding loops in every IMP's table now.
    fn record_route_events(&mut self, now: SimTime, imp: u32) {
        let mut changed = BTreeSet::new();
        while let Some(e) = self.imps[imp as usize].poll_route_event() {
            if let Some(dst) = self.routing.record_route_event(imp, e, &self.topo.names) {
                changed.insert(dst);
            }
        }
        for dst in changed {
            let next: BTreeMap<NodeId, Option<NodeId>> = self
                .imps
                .iter()
                .map(|i| (NodeId(i.id), i.best_neighbour(dst)))
                .collect();
            self.routing.check_loops(now, dst, &next, &self.topo.names);
        }
    }

    /// The IMPs a packet from `from` to `to` would visit now, by their routing tables (the
    /// routers' or the static routes), `from` first; `None` when a table has no route or the
    /// walk comes back to an IMP it visited (a forwarding loop).
    pub(crate) fn route_walk(&self, from: u32, to: u32) -> Option<Vec<u32>> {
        let mut path = vec![from];
        let mut at = from;
        while at != to {
            let l = self.imps[at as usize].route_by(to, || self.topo.next_link(at, to))?;
            at = self.topo.links[l as usize].to;
            if path.contains(&at) {
                return None;
            }
            path.push(at);
        }
        Some(path)
    }

    /// At the end of a frame's transmission: `true` if the line went down meanwhile and the
    /// frame is lost. Otherwise the frame is on its way.
    pub(super) fn lost_in_transmission(
        &mut self,
        now: SimTime,
        l: u32,
        frame: Frame,
        q: &mut EventQueue<Ev>,
    ) -> bool {
        let st = &mut self.routing.links[l as usize];
        if !st.doomed_tx {
            st.on_wire += 1;
            return false;
        }
        st.doomed_tx = false;
        st.frames_lost += 1;
        if let FrameKind::Routing { body, .. } = frame.kind {
            self.routing.take_body(body);
        }
        // The line is free, and may be back up already (`Imp::frame_lost`).
        let (from, line) = self.link_at[l as usize];
        self.step(now, from, q, |i, out| i.frame_lost(line as usize, out));
        true
    }

    /// A frame reaches the far end: `true` if it was on the line when the line went down.
    pub(super) fn lost_on_line(&mut self, l: u32, frame: Frame) -> bool {
        let st = &mut self.routing.links[l as usize];
        st.on_wire -= 1;
        if st.doomed_wire == 0 {
            return false;
        }
        st.doomed_wire -= 1;
        st.frames_lost += 1;
        self.drop_routing_body(frame);
        true
    }

    /// Frees the body of a routing frame that will not be read (a line error).
    pub(super) fn drop_routing_body(&mut self, frame: Frame) {
        if let FrameKind::Routing { body, .. } = frame.kind {
            self.routing.take_body(body);
        }
    }

    /// A frame without a packet arrived intact over link `l`: a routing message is handed to
    /// the router of the IMP at the far end.
    pub(super) fn frame_without_packet(
        &mut self,
        now: SimTime,
        l: u32,
        frame: Frame,
        q: &mut EventQueue<Ev>,
    ) {
        let at = self.link(l).def.to;
        let bits = match frame.kind {
            FrameKind::Routing { .. } => self.params.routing_message,
            _ => self.params.control_overhead,
        };
        self.step(now, at, q, |i, out| {
            i.frame_taken(now, frame.kind, bits, out)
        });
        let FrameKind::Routing { body, .. } = frame.kind else {
            return;
        };
        if body == NO_BODY {
            return;
        }
        let Some(msg) = self.routing.take_body(body) else {
            return;
        };
        let (at, back) = {
            let link = self.link(l);
            (link.def.to, link.reverse)
        };
        self.routing.counts.routing_messages += 1;
        self.imps[at as usize].routing_message_in(now, back, &msg);
        self.routes_changed(now, at, q);
    }

    /// Packet `id` is at `imp` now: counts the visit (adaptive and SPF routing) and notes when it
    /// came (SPF's delay samples).
    pub(super) fn note_visit(&mut self, now: SimTime, imp: u32, id: PktId) {
        self.routing.arrived(id, now);
        let p = self.slab.get(id);
        if self.obs.watches(p.stream) && matches!(p.kind, PktKind::Data { .. }) {
            self.obs.watched_entered(id as usize, now);
        }
        if self.routing.is_adaptive() {
            let p = *self.slab.get(id);
            self.obs.journeys.visit(now, imp, &p, &self.topo.names);
        }
    }

    /// A host's data packet joined output link `l` of its source IMP.
    pub(super) fn note_source_send(&mut self, now: SimTime, l: u32, p: &Packet) {
        if !self.routing.is_adaptive() || self.obs.watch.is_none_or(|(s, _)| s != p.src) {
            return;
        }
        if let PktKind::Data { msg, index, .. } = p.kind {
            let link = self.link(l);
            self.routing.source_sends.push(SourceSend {
                t_ns: now.as_nanos(),
                msg,
                index,
                to: self.topo.names[link.def.to as usize].clone(),
                queue: link.queue_len(),
            });
        }
    }

    /// Samples the output queues of the pumping host's IMP (adaptive routing only).
    pub(super) fn sample_routing(&mut self, now: SimTime) {
        let Some((s, _)) = self.obs.watch else {
            return;
        };
        if !self.routing.is_adaptive() {
            return;
        }
        for i in 0..self.routing.out_links(s).len() {
            let l = self.routing.out_links(s)[i];
            let link = self.link(l);
            self.routing.line_samples.push(LineSample {
                t_ns: now.as_nanos(),
                to: self.topo.names[link.def.to as usize].clone(),
                queue: link.queue_len(),
                up: self.routing.line_up(l),
            });
        }
    }
}
