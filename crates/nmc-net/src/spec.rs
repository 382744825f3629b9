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

/// Records this model can write (`record = [...]`).
pub const RECORDS: &[&str] = &["packets", "lines"];

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

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum TopologyKind {
    Chain,
    Lines,
}

/// Line parameters (both directions alike).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LineSpec {
    pub capacity: BitRate,
    pub propagation: SimDuration,
    /// Packets that may wait behind the one in transmission; an arrival beyond is dropped.
    pub queue_limit: u32,
}

/// One explicit line; unset fields take `network.line`'s values.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LineEntry {
    pub a: u32,
    pub b: u32,
    pub capacity: Option<BitRate>,
    pub propagation: Option<SimDuration>,
    pub queue_limit: Option<u32>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficSpec {
    pub from: u32,
    pub to: u32,
    pub arrivals: Arrivals,
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
    Constant { interval: SimDuration },
    /// Exponential gaps with mean `mean_interval`.
    Poisson { mean_interval: SimDuration },
    /// As fast as the first line takes them: a new packet as soon as the previous one starts
    /// transmission, so the source's queue is never empty and never grows.
    Saturate,
}

/// How long each packet is.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Length {
    Fixed {
        bits: Bits,
    },
    /// Uniform on `min..=max` bits.
    Uniform {
        min: Bits,
        max: Bits,
    },
    /// Exponential with mean `mean`, rounded up to whole bits (at least 1).
    Exponential {
        mean: Bits,
    },
}
