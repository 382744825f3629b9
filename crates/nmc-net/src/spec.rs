//! The scenario sections of the store-and-forward model.
//!
//! ```toml
//! model = "store-forward"
//! [network]
//! topology = "chain"          # or "lines" with [[network.lines]]
//! nodes = 5
//! [network.line]              # defaults for every line
//! capacity = "50kbit/s"
//! propagation = "0.1ms"
//! queue_limit = 64            # packets waiting per direction, beyond the one being sent
//! [[traffic]]
//! from = 0
//! to = 4
//! arrivals = { kind = "constant", interval = "20.16ms" }
//! length = { kind = "fixed", bits = "1008bit" }
//! ```

use nmc_scenario::Scenario;
use nmc_sim::{BitRate, Bits, SimDuration};
use serde::{Deserialize, Serialize};

/// A store-and-forward scenario.
pub type StoreForwardScenario = Scenario<NetworkSpec, TrafficSpec>;

/// The records this model can write (`record = [...]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetRecord {
    /// `packets.csv`: one row per packet delivered or dropped, with its delay; drawn as a
    /// delay histogram.
    Packets,
    /// `lines.csv`: one row of totals per channel; drawn as a utilisation chart.
    Lines,
}

impl nmc_scenario::Record for NetRecord {
    const ALL: &'static [(Self, &'static str)] =
        &[(NetRecord::Packets, "packets"), (NetRecord::Lines, "lines")];
}

/// The `[network]` section: nodes and lines.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    /// `chain`: nodes 0..n-1 in a line; `lines`: the explicit list in `lines`.
    pub topology: TopologyKind,
    /// Number of nodes.
    pub nodes: u32,
    /// Defaults for every line.
    pub line: LineSpec,
    /// Explicit lines for `topology = "lines"`.
    #[serde(default)]
    pub lines: Vec<LineEntry>,
}

/// How the lines are given: `network.topology`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum TopologyKind {
    /// Nodes `0..n` in a row, line `k` joining `k` and `k+1`.
    Chain,
    /// The lines listed in `[[network.lines]]`.
    Lines,
}

/// Line parameters (both directions alike).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LineSpec {
    /// Capacity of each direction (`"50kbit/s"`).
    pub capacity: BitRate,
    /// Propagation delay (`"0.1ms"`).
    pub propagation: SimDuration,
    /// Packets that may wait behind the one in transmission; an arrival beyond is dropped.
    pub queue_limit: u32,
}

/// One explicit line; unset fields take `network.line`'s values.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LineEntry {
    /// One end's node.
    pub a: u32,
    /// The other end's node.
    pub b: u32,
    /// Capacity of each direction, if not the default.
    pub capacity: Option<BitRate>,
    /// Propagation delay, if not the default.
    pub propagation: Option<SimDuration>,
    /// Packets that may wait per direction, if not the default.
    pub queue_limit: Option<u32>,
}

/// One `[[traffic]]` source: where its packets go, when and how long they are.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficSpec {
    /// The node the packets are offered at.
    pub from: u32,
    /// Their destination node (not `from`).
    pub to: u32,
    /// When the source offers its next packet.
    pub arrivals: Arrivals,
    /// How long each packet is.
    pub length: Length,
    /// When the source starts.
    #[serde(default)]
    pub start: SimDuration,
    /// Stop after this many packets (default: run to the end).
    pub count: Option<u64>,
}

/// When a source offers its next packet.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Arrivals {
    /// One packet every `interval`.
    Constant {
        /// The gap between offers (above zero).
        interval: SimDuration,
    },
    /// Exponential gaps with mean `mean_interval`.
    Poisson {
        /// The mean gap between offers (above zero).
        mean_interval: SimDuration,
    },
    /// As fast as the first line takes them: a new packet as soon as the previous one starts
    /// transmission, so the source's queue is never empty and never grows.
    Saturate,
}

/// How long each packet is.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Length {
    /// Every packet `bits` long.
    Fixed {
        /// The length (above zero).
        bits: Bits,
    },
    /// Uniform on `min..=max` bits.
    Uniform {
        /// The shortest length (above zero).
        min: Bits,
        /// The longest length (at least `min`).
        max: Bits,
    },
    /// Exponential with mean `mean`, rounded up to whole bits (at least 1).
    Exponential {
        /// The mean length (above zero).
        mean: Bits,
    },
}
