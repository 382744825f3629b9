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
//! [[network.hops]]
//! kind = "gateway"               # a finite FIFO per direction, optionally driving a line
//! name = "NTARE gateway + 9.6 kbit/s line"
//! per_packet = "4ms"
//! per_octet = "7us"
//! rate = "9600bit/s"             # the line it drives (optional), and its framing
//! frame_overhead = "168bit"
//! queue = 8                      # datagrams held per direction; one more is dropped
//! cross = { kind = "on-off", mean_gap = "200ms", length = "256B", on = "3s", off = "2min" }
//! [[network.hops]]
//! kind = "satnet"                # the shared satellite channel, reservation access
//! name = "SATNET Tanum - Etam"
//! rate = "64kbit/s"
//! frame_overhead = "192bit"
//! hop = "270ms"                  # one satellite hop, earth station to earth station
//! frame = "100ms"                # one reservation opportunity per frame
//! per_packet = "1ms"             # each SIMP's handling
//! reservation_miss = 0.05        # a reservation lost in contention, retried
//! loss = 0.028                   # a datagram lost on the channel
//! cross = { kind = "poisson", mean_gap = "100ms", length = "128B" }
//! [network.far_host]             # optional: the echoing host, when not a Fuzzball
//! per_packet = "32.4ms"
//! per_octet = "353us"
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

/// The records this model can write (`record = [...]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InternetRecord {
    /// `volleys.csv`: one row per echo volley (length, send time, round trip, lost).
    Volleys,
}

impl nmc_scenario::Record for InternetRecord {
    const ALL: &'static [(Self, &'static str)] = &[(InternetRecord::Volleys, "volleys")];
}

/// The path from the measurement host to the echoing host.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    /// The two end hosts' processing (both Fuzzballs in RFC 889's calibration block).
    pub host: HostSpec,
    /// The echoing host's processing when it is not a Fuzzball (e.g. an echo "host" inside a
    /// SATNET IMP); `host` when absent.
    #[serde(default)]
    pub far_host: Option<HostSpec>,
    /// The hops in order from the measurement host; the reply crosses them in reverse.
    pub hops: Vec<HopSpec>,
}

/// What one pass of a datagram through a host costs: `per_packet + per_octet × length`.
/// The echoing host makes two passes (receive, then send the reply), the measuring host two
/// (send the echo, receive the reply).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// The fixed cost of one pass.
    pub per_packet: SimDuration,
    /// The cost per octet of the datagram, per pass.
    pub per_octet: SimDuration,
}

/// One hop of the path.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum HopSpec {
    /// A line: the whole frame is clocked out, then crosses in the propagation delay.
    Line {
        /// The hop's name, as reports and metrics call it.
        name: String,
        /// The line's rate.
        rate: BitRate,
        /// Framing bits added to every frame: sync or flags, link header, 1822 leader, CRC.
        frame_overhead: Bits,
        /// Bits on the line per octet of frame: 8 on synchronous lines, 10 with start-stop.
        #[serde(default = "eight")]
        octet_bits: u32,
        /// Datagrams shorter than this are padded to it (Ethernet's 46-octet minimum data).
        #[serde(default)]
        min_payload: Bits,
        /// The propagation delay, one way (default 0).
        #[serde(default)]
        propagation: SimDuration,
    },
    /// A store-and-forward node between two lines: `per_packet + per_octet × length`.
    Relay {
        /// The hop's name, as reports and metrics call it.
        name: String,
        /// The fixed cost of forwarding one datagram, each way.
        per_packet: SimDuration,
        /// The cost per octet of the datagram, each way (default 0).
        #[serde(default)]
        per_octet: SimDuration,
    },
    /// A gateway with a finite FIFO buffer per direction (see [`crate::hop::Gateway`]):
    /// service `per_packet + per_octet × length`, plus the frame on the line it drives when
    /// `rate` is given; other traffic through it from `cross`.
    Gateway {
        /// The hop's name, as reports and metrics call it.
        name: String,
        /// The fixed processing cost of one datagram.
        per_packet: SimDuration,
        /// The processing cost per octet of the datagram (default 0).
        #[serde(default)]
        per_octet: SimDuration,
        /// The line the gateway drives (optional): its rate …
        #[serde(default)]
        rate: Option<BitRate>,
        /// … and the framing bits it adds to every frame.
        #[serde(default)]
        frame_overhead: Bits,
        /// The propagation delay after service, one way (default 0).
        #[serde(default)]
        propagation: SimDuration,
        /// Datagrams held per direction, the one in service included; one more is dropped.
        queue: u32,
        /// The other traffic through the gateway, each direction alike (default none).
        #[serde(default)]
        cross: Option<CrossSpec>,
    },
    /// SATNET's shared satellite channel with reservation access (see [`crate::hop::Satnet`]).
    Satnet {
        /// The hop's name, as reports and metrics call it.
        name: String,
        /// The channel's rate (64 kbit/s).
        rate: BitRate,
        /// Channel bits added to every packet (preamble, SATNET header, checksum).
        frame_overhead: Bits,
        /// Earth station to earth station through the satellite, one way (~270 ms).
        hop: SimDuration,
        /// A station may send a reservation once per frame.
        frame: SimDuration,
        /// Each SIMP's processing of a datagram (in at one end, out at the other).
        #[serde(default)]
        per_packet: SimDuration,
        /// Probability that a reservation is lost in contention (CPODA) and must be retried.
        #[serde(default)]
        reservation_miss: f64,
        /// Probability that a datagram is lost on the channel.
        #[serde(default)]
        loss: f64,
        /// The other stations' reserved traffic on the channel.
        #[serde(default)]
        cross: Option<CrossSpec>,
    },
    /// A packet-switching subnet run by nmc's IMP model (`model = "imp"`; `subnet.rs`): the
    /// datagram enters at host `from` as an 1822 message of `8 × length` data bits and leaves
    /// when its last packet has reached host `to`; the reply goes back from `to` to `from`. The
    /// subnet runs the whole time the PING does, with its own traffic (`traffic`, e.g. a
    /// background load) and the run's seed. `network` is the IMP model's `[network]` section.
    Subnet {
        /// The hop's name, as reports and metrics call it.
        name: String,
        /// The subnet host the measuring side's datagrams enter at (`DCN-GATEWAY`).
        from: String,
        /// The subnet host on the echoing side (`MIT-GW`); on another IMP than `from`.
        to: String,
        /// The IMP model's `[network]` section: IMPs, lines, hosts, profile.
        network: Box<nmc_imp::scenario::NetworkSpec>,
        /// The subnet's own traffic, in the IMP model's `[[traffic]]` form (default none).
        #[serde(default)]
        traffic: Vec<nmc_imp::spec::TrafficSpec>,
    },
}

/// Other traffic through a gateway or on the SATNET channel: fixed-length packets arriving as a
/// Poisson process, or in on/off bursts (exponential on and off periods, Poisson while on).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum CrossSpec {
    /// Fixed-length packets arriving as a Poisson process.
    Poisson {
        /// Mean time between packets.
        mean_gap: SimDuration,
        /// Each packet's length (whole octets).
        length: Bits,
    },
    /// Poisson arrivals during bursts, with exponential on and off periods.
    OnOff {
        /// Mean time between packets while a burst is on.
        mean_gap: SimDuration,
        /// Each packet's length (whole octets).
        length: Bits,
        /// Mean length of a burst.
        on: SimDuration,
        /// Mean quiet time between bursts.
        off: SimDuration,
    },
}

fn eight() -> u32 {
    8
}

impl HopSpec {
    /// The hop's name.
    pub fn name(&self) -> &str {
        match self {
            HopSpec::Line { name, .. }
            | HopSpec::Relay { name, .. }
            | HopSpec::Gateway { name, .. }
            | HopSpec::Satnet { name, .. }
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
