//! The scenario sections of the IMP subnet model (`model = "imp"`).
//!
//! ```toml
//! model = "imp"
//! [network]
//! profile = "v2-1974-10"
//! topology = { kind = "chain", hops = 5 }
//! hosts = [{ name = "UCLA", imp = "IMP0" }, { name = "FAKE", imp = "IMP5" }]
//! routing = "adaptive"        # default "static"; see `routing.rs`
//! events = [{ at = "60s", line = ["IMP2", "IMP3"], state = "down" }]
//! [network.params]            # any field of the profile (see `params.rs`)
//! message_numbers = 4
//! [network.routing_params]    # any field of nmc_routing::RoutingParams
//! loop_prevention = "hold-down-1974"
//! [[traffic]]
//! kind = "pump"
//! from = "UCLA"
//! to = "FAKE"
//! message = "8063bit"
//! ```

use nmc_scenario::Scenario;
use nmc_sim::{BitRate, Bits, SimDuration};
use serde::{Deserialize, Serialize};

pub type ImpScenario = Scenario<NetworkSpec, TrafficSpec>;

/// Records this model can write (`record = [...]`).
pub const RECORDS: &[&str] = &["messages", "lines", "occupancy", "routing", "journeys"];

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    /// Named parameter set (see [`crate::params::ImpParams::PROFILES`]).
    pub profile: String,
    /// Overrides of single profile parameters.
    #[serde(default)]
    pub params: toml::Table,
    pub topology: TopologySpec,
    /// Hosts and the IMP each attaches to.
    pub hosts: Vec<HostSpec>,
    /// How often resource occupancy is sampled (`record = ["occupancy"]`).
    #[serde(default = "default_sample")]
    pub sample_period: SimDuration,
    /// How IMPs choose the next line: `static` shortest-hop routes (the default) or the 1974
    /// `adaptive` procedure (see [`crate::routing`]).
    #[serde(default, skip_serializing_if = "RoutingMode::is_static")]
    pub routing: RoutingMode,
    /// Parameters of the adaptive procedure, any field of [`nmc_routing::RoutingParams`]
    /// (`loop_prevention`, `hop_units`, `hold_down`, ...); `routing = "adaptive"` only.
    #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
    pub routing_params: toml::Table,
    /// Lines whose routing messages go at another period than the default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routing_periods: Vec<RoutingPeriodSpec>,
    /// Lines going down and coming back up during the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<LineEventSpec>,
}

/// `network.routing`.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum RoutingMode {
    /// Shortest-hop routes computed once from the topology; they never change (a line going
    /// down holds its packets until it comes back).
    #[default]
    Static,
    /// One [`nmc_routing::DistanceVector`] per IMP, fed by routing messages on the lines.
    Adaptive,
}

impl RoutingMode {
    pub fn is_static(&self) -> bool {
        *self == RoutingMode::Static
    }
}

/// `[[network.routing_periods]]`: the routing-message period of one line (K&O §V: the
/// frequency "is a function of line speed and line utilization").
///
/// ```toml
/// [[network.routing_periods]]
/// line = ["A", "B"]
/// period = "320ms"
/// from = "A"          # optional: only A's messages to B; both directions without it
/// ```
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RoutingPeriodSpec {
    pub line: [String; 2],
    pub period: SimDuration,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

/// `[[network.events]]`: a line goes down or comes back up at `at`.
///
/// ```toml
/// [[network.events]]
/// at = "60s"
/// line = ["A", "B"]
/// state = "down"
/// ```
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LineEventSpec {
    pub at: SimDuration,
    pub line: [String; 2],
    pub state: LineState,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum LineState {
    Up,
    Down,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TopologySpec {
    /// IMPs `IMP0` … `IMP<hops>` in a row.
    Chain {
        hops: u16,
        #[serde(default = "default_capacity")]
        capacity: BitRate,
        #[serde(default = "default_chain_propagation")]
        propagation: SimDuration,
    },
    /// A logical map of the ARPANET from `data/arpanet-maps/maps.json` (sites as IMPs).
    Map {
        /// Map date, e.g. `1974-06`.
        date: String,
        #[serde(default = "default_capacity")]
        capacity: BitRate,
        /// Propagation per km of great-circle distance between the sites' coordinates.
        #[serde(default = "default_per_km")]
        propagation_per_km: SimDuration,
        /// Lines whose speed or delay differ from the defaults (satellite circuits, etc.).
        #[serde(default)]
        overrides: Vec<LineSpec>,
    },
    /// Explicit IMPs and lines.
    Lines {
        imps: Vec<String>,
        lines: Vec<LineSpec>,
    },
}

/// One line between two named IMPs; unset values take the topology's defaults.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LineSpec {
    pub a: String,
    pub b: String,
    pub capacity: Option<BitRate>,
    pub propagation: Option<SimDuration>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    pub name: String,
    pub imp: String,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TrafficSpec {
    /// The UCLA pump (K&O §I, §III): messages of `message` bits offered back to back, the next
    /// as soon as the source IMP has taken the last packet of the previous one.
    Pump {
        from: String,
        to: String,
        #[serde(default = "default_message")]
        message: Bits,
        #[serde(default)]
        start: SimDuration,
        /// Stop after this many messages.
        count: Option<u64>,
    },
}

fn default_capacity() -> BitRate {
    BitRate::from_kbps(50)
}
/// **Choice**: 2 ms per hop (≈ 400 km of cable), a typical inter-site distance on the 1974 map.
fn default_chain_propagation() -> SimDuration {
    SimDuration::from_millis(2)
}
/// **Choice**: 5 µs/km, signal speed in cable of about 2/3 c, on the great-circle distance.
fn default_per_km() -> SimDuration {
    SimDuration::from_micros(5)
}
fn default_sample() -> SimDuration {
    SimDuration::from_millis(100)
}
fn default_message() -> Bits {
    Bits::new(8063)
}
