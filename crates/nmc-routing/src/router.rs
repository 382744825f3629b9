//! The interface between a routing procedure and the IMP that runs it.
//!
//! [`Router`] groups its methods as quinn-proto's `Connection` does: getters, `handle_*`
//! (inputs), `set_*` (facts the IMP measures), and `poll_*` (outputs). A router never reads a
//! clock: each input carries `now`, and [`Router::poll_at`] says when it next wants to be
//! polled.

use crate::{LineId, NodeId, Units};
use nmc_sim::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// Where to send a packet next: the line, and the neighbour at its other end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Hop {
    /// The line to send on.
    pub line: LineId,
    /// The IMP at the line's far end.
    pub neighbour: NodeId,
}

/// One destination's entry in a routing message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The sender's delay estimate to the destination; [`crate::RoutingParams::infinity`] or
    /// more means unreachable.
    pub estimate: Units,
    /// The destination's sequence number the estimate belongs to. Only
    /// [`crate::LoopPrevention::FeasibleSuccessor`] uses it; the 1974 message had no such field
    /// (0 there), so a model charging line time for routing messages should not count it.
    pub seqno: u32,
}

/// A routing message: the sender's whole delay table, one entry per destination, indexed by
/// node number (K&O §III: each IMP reports its delay estimates to its neighbours).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoutingMessage {
    /// The IMP that sent the message.
    pub from: NodeId,
    /// The sender's entry for each destination, indexed by node number.
    pub entries: Vec<Entry>,
    /// Link-state updates ([`crate::LinkState`], SPF): every origin's latest the sender holds.
    /// Empty in a distance-vector message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub link_state: Vec<LinkStateUpdate>,
    /// The number of the sender's table, for an IMP that takes each table once (BBN IMP
    /// program 3050, 16 Sept 1973, p. 230 `RUTOUT`: the table made at the slow tick is numbered
    /// in the message's `HEAD1`; p. 225 `RSTINP` ignores a number it already took from the
    /// line). 0: unnumbered, as the routers here make every message; the IMP model numbers
    /// them (`nmc-imp`'s `routing_tables`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub serial: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One node's link-state update ([`crate::LinkState`], SPF), carried in a [`RoutingMessage`]: its lines that are up, each with the neighbour and the delay reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkStateUpdate {
    /// The node whose lines the update describes.
    pub origin: NodeId,
    /// The origin's update number, one more for each update it makes: a node keeps an origin's
    /// update with the highest number.
    pub seqno: u32,
    /// The origin's lines that are up: the neighbour at the far end and the line's reported
    /// delay (µs).
    pub links: Vec<(NodeId, Units)>,
}

impl RoutingMessage {
    /// The entry for `dst`; a destination the sender does not list is unreachable.
    pub fn entry(&self, dst: NodeId, infinity: Units) -> Entry {
        self.entries.get(dst.0 as usize).copied().unwrap_or(Entry {
            estimate: infinity,
            seqno: 0,
        })
    }
}

/// Something a router did that a trace or a loop measurement may want.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteEvent {
    /// When it happened.
    pub at: SimTime,
    /// The destination whose route it concerns.
    pub dst: NodeId,
    /// What happened.
    pub kind: RouteEventKind,
}

/// What a [`RouteEvent`] records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RouteEventKind {
    /// The best delay neighbour for `dst` changed (`None`: no route).
    BestNeighbour {
        /// The best delay neighbour before the change.
        from: Option<NodeId>,
        /// The best delay neighbour after it.
        to: Option<NodeId>,
        /// The delay estimate to `dst` after the change.
        estimate: Units,
    },
    /// A line hold-down started (or was restarted) on the line to `neighbour`.
    HoldDown {
        /// The neighbour at the far end of the held line.
        neighbour: NodeId,
        /// When the hold-down ends.
        until: SimTime,
    },
    /// A hold-down on the line to `held` kept the route there against a smaller estimate
    /// `offered` from `by`, which would have won without it (K&O §V: while held down,
    /// "ignoring the estimated delay from nonbest delay neighbors"; Table III row 11, B
    /// ignoring A). A loop kept by such a refusal is a *loop trap*, "a loop whose existence is
    /// extended because of line hold-down".
    HeldAgainst {
        /// The best delay neighbour the hold-down kept.
        held: NodeId,
        /// The neighbour whose smaller estimate was ignored.
        by: NodeId,
        /// The estimate to `dst` through `by`: its report plus the local delay to it.
        offered: Units,
    },
}

/// A routing procedure as an IMP uses it.
///
/// Order of calls: feed inputs as they happen (`handle_*`, `set_queue_len`), then drain
/// outputs (`poll_transmit` until `None`, `poll_event` until `None`), then sleep until
/// `poll_at`. Inputs naming a line the router does not know are ignored, never a panic.
pub trait Router {
    // --- getters ---

    /// The IMP this router belongs to.
    fn node(&self) -> NodeId;

    /// The next hop towards `dst`, or `None` when `dst` is this IMP, unknown, or unreachable.
    fn next_hop(&self, dst: NodeId) -> Option<Hop>;

    /// The current delay estimate to `dst` (`None` when unknown or unreachable).
    fn estimate(&self, dst: NodeId) -> Option<Units>;

    // --- inputs ---

    /// A routing message arrived on `line`.
    fn handle_routing_message(&mut self, now: SimTime, line: LineId, msg: &RoutingMessage);

    /// `line` went down: routes over it are lost at once.
    fn handle_line_down(&mut self, now: SimTime, line: LineId);

    /// `line` came (back) up; a routing message on it is due at once.
    fn handle_line_up(&mut self, now: SimTime, line: LineId);

    /// The number of packets waiting on the output queue of `line` (K&O §III: 1 unit each).
    /// The IMP calls this whenever the queue changes, or just before routing messages are
    /// handled; the router reads it when it next computes an estimate over `line`.
    fn set_queue_len(&mut self, line: LineId, packets: u32);

    /// A packet left on `line` and took `delay` from its arrival at this IMP to its arrival at
    /// the neighbour (waiting, processing, transmission, propagation). Only a router that
    /// measures delay ([`crate::LinkState`]) uses it; the default ignores it.
    fn handle_packet_delay(&mut self, now: SimTime, line: LineId, delay: SimDuration) {
        let _ = (now, line, delay);
    }

    // --- outputs ---

    /// The routing message this IMP would send on `line` now (`None` for an unknown or
    /// down line, or a router that sends none). Does not touch the schedule.
    fn routing_message(&self, now: SimTime, line: LineId) -> Option<RoutingMessage>;

    /// When the router next wants [`Router::poll_transmit`] called (`None`: never).
    fn poll_at(&self) -> Option<SimTime>;

    /// The next routing message due at or before `now`, with its line; advances that line's
    /// schedule. Call until `None`.
    fn poll_transmit(&mut self, now: SimTime) -> Option<(LineId, RoutingMessage)>;

    /// The next recorded [`RouteEvent`], oldest first (routers record none unless asked).
    fn poll_event(&mut self) -> Option<RouteEvent> {
        None
    }
}
