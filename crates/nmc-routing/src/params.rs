//! Every constant of the routing procedure, named, overridable, with its source.
//!
//! [`RoutingParams`] deserialises from a scenario's `[routing]` table (unknown keys are errors);
//! each field left out takes the default below, which is the source's value where the source
//! gives one and is marked *our choice* where it does not.
//!
//! ```toml
//! [routing]
//! loop_prevention = "hold-down-1974"   # or "none", "hold-down-window", "feasible-successor"
//! period = "640ms"
//! hold_down = { threshold = 8, duration = "2s" }
//! ```

use crate::Units;
use nmc_sim::SimDuration;
use serde::{Deserialize, Serialize};

/// How a router keeps packets out of loops: the variants issue 4 compares.
///
/// The first three share the 1974 update rule ([`crate::dv`]): take whatever the best-delay
/// neighbour reports, switch to another neighbour only when it offers a strictly smaller
/// estimate. They differ in when a *line hold-down* starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoopPrevention {
    /// No loop prevention: K&O §V, Table I.
    None,
    /// The 1974 line hold-down [K&O ref. 8, McQuillan, BBN Rep. 2831]: "continue using the best
    /// delay path for up to 2 s (ignoring the estimated delay from nonbest delay neighbors)
    /// whenever the delay estimate on this path increased by more than 8 delay units" between
    /// consecutive routing messages (K&O §V, Tables II and III).
    #[default]
    #[serde(rename = "hold-down-1974")]
    HoldDown1974,
    /// The later criterion "independent of the frequency at which routing messages are sent"
    /// (K&O §V, last paragraph). K&O do not give it; our reading: the rise is measured against
    /// the lowest estimate the IMP has held during the last [`HoldDownParams::window`] of its
    /// own time (640 ms, the period the 8-unit threshold was set for), not against the value
    /// one routing message ago. A change split over two messages 320 ms apart then counts the
    /// same as one message carrying it whole. See [`crate::holddown`].
    HoldDownWindow,
    /// A loop-free alternative for comparison: switch only to a *feasible* neighbour, the
    /// source-node condition of Jaffe & Moss (IEEE Trans. Commun. 30(7), 1982) and
    /// Garcia-Luna-Aceves (DUAL, IEEE/ACM ToN 1(1), 1993), with destination-originated
    /// sequence numbers to reset it, as in DSDV (Perkins & Bhagwat, SIGCOMM 1994) and Babel
    /// (RFC 8966 §2.4–2.5, §3.5.1). See [`crate::feasible`].
    FeasibleSuccessor,
}

impl LoopPrevention {
    /// Every variant, in the order issue 4 compares them.
    pub const ALL: [LoopPrevention; 4] = [
        LoopPrevention::None,
        LoopPrevention::HoldDown1974,
        LoopPrevention::HoldDownWindow,
        LoopPrevention::FeasibleSuccessor,
    ];

    /// The profile name used in scenario files and reports.
    pub fn name(self) -> &'static str {
        match self {
            LoopPrevention::None => "none",
            LoopPrevention::HoldDown1974 => "hold-down-1974",
            LoopPrevention::HoldDownWindow => "hold-down-window",
            LoopPrevention::FeasibleSuccessor => "feasible-successor",
        }
    }

    /// Whether this variant holds lines down (and so prints `!`).
    pub fn holds_down(self) -> bool {
        matches!(
            self,
            LoopPrevention::HoldDown1974 | LoopPrevention::HoldDownWindow
        )
    }
}

/// The line hold-down's constants (K&O §V).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HoldDownParams {
    /// A hold-down starts when the estimate via the best neighbour rises by *more than* this
    /// many units. K&O §V: "increased by more than 8 delay units".
    pub threshold: Units,
    /// How long the held line is kept and other neighbours ignored. K&O §V: "for up to 2 s".
    pub duration: SimDuration,
    /// For [`LoopPrevention::HoldDownWindow`] only: the span of the IMP's own time over which a
    /// rise is measured. Our choice: 640 ms, the routing period of loaded 50 kbit/s lines
    /// (K&O §III), for which the 1974 rule and this one agree (Table II comes out the same).
    pub window: SimDuration,
}

impl Default for HoldDownParams {
    fn default() -> Self {
        HoldDownParams {
            threshold: Units(8),
            duration: SimDuration::from_secs(2),
            window: SimDuration::from_millis(640),
        }
    }
}

/// The routing procedure's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoutingParams {
    /// How the router keeps packets out of loops (default: the 1974 hold-down).
    pub loop_prevention: LoopPrevention,
    /// Units each hop adds to the estimate. K&O §III: "Each hop on the path from source to
    /// destination contributes four (arbitrary) units to the delay estimate."
    pub hop_units: Units,
    /// Units each packet waiting on the output line adds. K&O §III: "Each packet in an output
    /// queue … contributes one additional delay unit."
    pub units_per_queued_packet: Units,
    /// Queue lengths above this count as this. K&O §III: "the length of the output queues is
    /// limited to 8 packets", so one hop adds 4..=12 units.
    pub max_queue: u32,
    /// Default interval between routing messages on a line; each line may have its own
    /// ([`crate::LineConfig::period`]). K&O §III: "once every 640 ms (for heavily loaded,
    /// 50-kbit/s lines)"; §V: the frequency "is a function of line speed and line utilization".
    pub period: SimDuration,
    /// The line hold-down's constants, used by the hold-down variants only (K&O §V).
    pub hold_down: HoldDownParams,
    /// Estimates at or above this mean "unreachable". Not in the sources; our choice: 600 units,
    /// 50 hops at the 12-unit maximum, above any path in the 1970s ARPANET, so that a count to
    /// infinity (no loop prevention, or hold-down) ends after a bounded number of exchanges.
    pub infinity: Units,
    /// For [`LoopPrevention::FeasibleSuccessor`] only: how often each IMP starts a new sequence
    /// number for itself as a destination, which resets its neighbours' feasibility distances.
    /// Our choice: 16 routing periods (10.24 s); DSDV and Babel leave it to the implementer.
    pub seqno_interval: SimDuration,
}

impl Default for RoutingParams {
    fn default() -> Self {
        RoutingParams {
            loop_prevention: LoopPrevention::default(),
            hop_units: Units(4),
            units_per_queued_packet: Units(1),
            max_queue: 8,
            period: SimDuration::from_millis(640),
            hold_down: HoldDownParams::default(),
            infinity: Units(600),
            seqno_interval: SimDuration::from_millis(16 * 640),
        }
    }
}

impl RoutingParams {
    /// The defaults with another loop-prevention variant.
    pub fn with(loop_prevention: LoopPrevention) -> Self {
        RoutingParams {
            loop_prevention,
            ..Default::default()
        }
    }

    /// The cost of one hop over a line with `queued` packets waiting: 4 + 1 per packet, the
    /// queue counted up to [`Self::max_queue`] (K&O §III).
    pub fn hop_cost(&self, queued: u32) -> Units {
        Units(
            self.hop_units.0
                + self
                    .units_per_queued_packet
                    .0
                    .saturating_mul(queued.min(self.max_queue)),
        )
    }

    /// The local delay part of [`Self::hop_cost`] (the `4` in `d+5/4/X`).
    pub fn local_delay(&self, queued: u32) -> Units {
        Units(
            self.units_per_queued_packet
                .0
                .saturating_mul(queued.min(self.max_queue)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_sources() {
        let p = RoutingParams::default();
        assert_eq!(p.hop_cost(0), Units(4));
        assert_eq!(p.hop_cost(8), Units(12));
        assert_eq!(p.hop_cost(20), Units(12), "queues count up to 8 packets");
        assert_eq!(p.period, SimDuration::from_millis(640));
        assert_eq!(p.hold_down.threshold, Units(8));
        assert_eq!(p.hold_down.duration, SimDuration::from_secs(2));
    }

    #[test]
    fn params_read_from_toml_and_reject_unknown_keys() {
        let p: RoutingParams = toml::from_str(
            "loop_prevention = \"hold-down-window\"\nperiod = \"320ms\"\nhold_down = { threshold = 10 }\n",
        )
        .unwrap();
        assert_eq!(p.loop_prevention, LoopPrevention::HoldDownWindow);
        assert_eq!(p.period, SimDuration::from_millis(320));
        assert_eq!(p.hold_down.threshold, Units(10));
        assert_eq!(p.hold_down.duration, SimDuration::from_secs(2));
        let e = toml::from_str::<RoutingParams>("hop_unit = 4\n").unwrap_err();
        assert!(e.to_string().contains("unknown field `hop_unit`"), "{e}");
        let e = toml::from_str::<RoutingParams>("loop_prevention = \"split\"\n").unwrap_err();
        assert!(e.to_string().contains("hold-down-1974"), "{e}");
    }
}
