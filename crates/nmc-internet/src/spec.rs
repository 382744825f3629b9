//! The scenario sections of the `internet-1983` model: one measurement path, hop by hop, and
//! the PING that probes it.
//!
//! ```toml
//! model = "internet-1983"
//! [network.host]                 # the Fuzzball at each end (DCN1 and the far host)
//! per_packet = "4ms"             # one pass of a datagram through the host, in or out
//! per_octet = "7us"              # and per octet of the datagram (checksum, copy)
//! [[network.hops]]               # from the measurement host outwards
//! kind = "line"
//! name = "DCN1-FORD1 9600 DDCMP"
//! rate = "9600bit/s"
//! frame_overhead = "112bit"      # framing bits per frame (sync, header, CRC)
//! octet_bits = 8                 # line bits per octet of the frame (10 for start-stop)
//! min_payload = "0B"             # frames shorter than this are padded (Ethernet: 46 B)
//! propagation = "0ms"
//! [[network.hops]]
//! kind = "relay"                 # a gateway, IMP or forwarding Fuzzball
//! name = "FORD1"
//! per_packet = "4ms"
//! per_octet = "7us"
//! [[traffic]]                    # exactly one: the PING
//! volleys = 512
//! lengths = "0..256"
//! floor = "40B"
//! gap = "0ms"
//! timeout = "30s"
//! clock = "1ms"
//! ```

use nmc_scenario::Scenario;
use nmc_sim::{BitRate, Bits, SimDuration};
use serde::{Deserialize, Serialize};

/// An `internet-1983` scenario.
pub type InternetScenario = Scenario<NetworkSpec, PingSpec>;

/// Records this model can write (`record = [...]`).
pub const RECORDS: &[&str] = &["volleys"];

/// The path from the measurement host to the echoing host.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    /// The two end hosts' processing (both Fuzzballs in RFC 889's calibration block).
    pub host: HostSpec,
    /// The hops in order from the measurement host; the reply crosses them in reverse.
    pub hops: Vec<HopSpec>,
}

/// What one pass of a datagram through a host costs: `per_packet + per_octet × length`.
/// The echoing host makes two passes (receive, then send the reply), the measuring host two
/// (send the echo, receive the reply).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    pub per_packet: SimDuration,
    pub per_octet: SimDuration,
}

/// One hop of the path.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum HopSpec {
    /// A line: the whole frame is clocked out, then crosses in the propagation delay.
    Line {
        name: String,
        rate: BitRate,
        /// Framing bits added to every frame: sync or flags, link header, 1822 leader, CRC.
        frame_overhead: Bits,
        /// Bits on the line per octet of frame: 8 on synchronous lines, 10 with start-stop.
        #[serde(default = "eight")]
        octet_bits: u32,
        /// Datagrams shorter than this are padded to it (Ethernet's 46-octet minimum data).
        #[serde(default)]
        min_payload: Bits,
        #[serde(default)]
        propagation: SimDuration,
    },
    /// A store-and-forward node between two lines: `per_packet + per_octet × length`.
    Relay {
        name: String,
        per_packet: SimDuration,
        #[serde(default)]
        per_octet: SimDuration,
    },
    /// A packet-switching subnet run by nmc's IMP model (`model = "imp"`): the datagram enters
    /// at host `from` as an 1822 message of `8 × length` data bits and leaves when its last
    /// packet has reached host `to`; the reply goes back from `to` to `from`. The subnet runs
    /// the whole time the PING does, with its own traffic (`traffic`, e.g. a background load)
    /// and the run's seed. `network` is the IMP model's `[network]` section.
    Subnet {
        name: String,
        from: String,
        to: String,
        network: Box<nmc_imp::spec::NetworkSpec>,
        #[serde(default)]
        traffic: Vec<nmc_imp::spec::TrafficSpec>,
    },
}

fn eight() -> u32 {
    8
}

impl HopSpec {
    pub fn name(&self) -> &str {
        match self {
            HopSpec::Line { name, .. }
            | HopSpec::Relay { name, .. }
            | HopSpec::Subnet { name, .. } => name,
        }
    }
}

/// The Fuzzball PING of RFC 889 §2.1.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PingSpec {
    /// Volleys in a run (RFC 889: 512).
    pub volleys: u32,
    /// `LO..HI` octets, both ends included, or a single length (RFC 889: `0..256`).
    pub lengths: String,
    /// Lengths below this are rounded up to it (RFC 889: 40 octets).
    pub floor: Bits,
    /// Wait after a reply before the next echo (RFC 889 does not say; one volley in flight).
    pub gap: SimDuration,
    /// A volley unanswered this long is lost (RFC 889: 30 s).
    pub timeout: SimDuration,
    /// The measuring host's clock tick: times are read as whole ticks (RFC 792 ICMP
    /// timestamps count milliseconds).
    pub clock: SimDuration,
    /// The split fitted besides one line (RFC 889: 126 octets on ARPANET paths); optional.
    #[serde(default)]
    pub break_at: Option<Bits>,
}
