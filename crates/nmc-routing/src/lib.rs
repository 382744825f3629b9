//! # nmc-routing — how an IMP chooses the next line
//!
//! Start here. The 1974 ARPANET IMP's adaptive distance-vector routing, as Kleinrock &
//! Opderbeck (IEEE Trans. Commun. COM-25(1), 1977, "K&O") describe it in §III and §V, written
//! as a pure protocol core: no clock, no I/O, no randomness. Every input carries `now`; every
//! output is a value the caller delivers. The IMP subnet model and the table driver of §V are
//! two thin drivers of the same core.
//!
//! | module | what |
//! | --- | --- |
//! | [`router`] | the [`Router`] trait the IMP model drives, [`RoutingMessage`], [`RouteEvent`] |
//! | [`params`] | [`RoutingParams`] (every constant, with its source) and the [`LoopPrevention`] variants |
//! | [`dv`] | [`DistanceVector`]: the delay estimates, the 1974 update rule, lines up/down, the schedule |
//! | [`holddown`] | when a line hold-down starts: the 1974 criterion and the frequency-independent one |
//! | [`feasible`] | the loop-free comparison: feasible successors with destination sequence numbers |
//! | [`spf`] | [`LinkState`]: shortest-path-first over measured delay (the ARPANET's from May 1979) |
//! | [`shortest_hop`] | [`ShortestHop`]: static shortest-hop routes behind the same trait |
//! | [`loops`] | finding forwarding loops in a set of tables; counting a packet's repeated visits |
//! | [`ko1977`] | K&O §V's line X–A–B–C, the update sequences of Tables I–III, the paper's notation |
//!
//! ## The model in the paper's words (K&O §III, §V)
//!
//! Each IMP keeps, per destination, *the delay estimate*, *the local delay over the best delay
//! line* and *the best delay neighbour*: the paper's `d+5/4/X`, with `!` when the line is *held
//! down*. Each hop adds 4 units and each packet waiting on the output line 1 more, up to 8
//! packets, so a hop costs 4..=12 units. Each IMP sends its estimates to each neighbour
//! periodically (640 ms on loaded 50 kbit/s lines; the period is per line). A routing message
//! from the best neighbour is taken as it comes; one from another neighbour wins only if it
//! offers a smaller estimate. What this leaves out: the 1974 IMP's separate hop-count table and
//! its line up/down protocol (the caller tells the router when a line goes down or comes up).
//!
//! ## Driving a router (what `nmc-imp` does)
//!
//! ```text
//! at start           for each line: router.handle_line_up(now, line) if it starts up
//! after any input    schedule a wake-up at router.poll_at()
//! at a wake-up       while let Some((line, msg)) = router.poll_transmit(now) { send msg on line }
//! message arrives    router.handle_routing_message(now, line, &msg)
//! queue changes      router.set_queue_len(line, packets_waiting)
//! line fails/returns router.handle_line_down(now, line) / handle_line_up(now, line)
//! forwarding         router.next_hop(dst) -> Option<Hop { line, neighbour }>
//! ```
//!
//! Same inputs in the same order give the same outputs: iteration is over ordered maps and
//! vectors only, and ties go to the lowest [`LineId`].

#![warn(missing_docs)]

pub mod dv;
pub mod feasible;
pub mod holddown;
pub mod ko1977;
pub mod loops;
pub mod params;
pub mod router;
pub mod shortest_hop;
pub mod spf;

pub use dv::{DistanceVector, LineConfig, RouteView, RouterStats};
pub use params::{HoldDownParams, LoopPrevention, RoutingParams};
pub use router::{Entry, Hop, LinkStateUpdate, RouteEvent, RouteEventKind, Router, RoutingMessage};
pub use shortest_hop::{Graph, ShortestHop};
pub use spf::{LinkState, SpfParams};

use serde::{Deserialize, Serialize};
use std::fmt;

/// An IMP (a node of the subnet), numbered from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NodeId(pub u32);

/// One of an IMP's lines, as the caller numbers them (the subnet model's line index will do).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LineId(pub u32);

/// Delay units, K&O §III's "(arbitrary) units" of the delay estimate.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Units(pub u32);

impl Units {
    /// `self + other`, saturating at `infinity`.
    pub fn plus(self, other: Units, infinity: Units) -> Units {
        Units(self.0.saturating_add(other.0).min(infinity.0))
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "IMP {}", self.0)
    }
}
impl fmt::Display for LineId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}", self.0)
    }
}
impl fmt::Display for Units {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
