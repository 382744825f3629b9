//! The typed configuration of the IMP subnet model (`model = "imp"`): what a scenario file
//! says, once [`crate::scenario`] has resolved the profile and its overrides. The sections, as a
//! file writes them:
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
//!
//! RFC 632's instrument and disturbances (`scenarios/rfc632-moffett-sri.toml`):
//!
//! ```toml
//! [[network.events]]          # or { kind = "detour", at, imp, via }
//! kind = "line-error"
//! at = "10s"
//! from = "LBL"
//! to = "LLL"
//! [[traffic]]
//! kind = "generator"          # the IMP message generator, inside IMP `imp`
//! imp = "MOFFETT"
//! to = "SRI"                  # a host; `fake = true` in network.hosts for the IMP's own
//! message = "1000bit"
//! outstanding = 4
//! pauses = [{ at = "40s", length = "2s" }]
//! ```

use crate::params::ImpParams;
use nmc_routing::RoutingParams;
use nmc_scenario::Scenario;
use nmc_sim::{BitRate, Bits, SimDuration};
use serde::{Deserialize, Serialize};

/// What the model runs: a scenario whose network section is resolved, the profile with its
/// overrides applied ([`ImpParams`]) and the adaptive procedure's [`RoutingParams`]. The
/// scenario file's own form, with `[network.params]` and `[network.routing_params]` as the
/// user wrote them, and the resolution, are the scenario layer's ([`crate::scenario`]).
pub type ImpConfig = Scenario<Network, TrafficSpec>;

/// The resolved network section.
pub type Network = NetworkSpec<ImpParams, Option<RoutingParams>>;

/// A section of overrides that may be left out of the serialized scenario when empty.
pub trait Overrides {
    /// Whether the section holds no override (then it is not written out).
    fn is_empty(&self) -> bool;
}

impl Overrides for Option<RoutingParams> {
    fn is_empty(&self) -> bool {
        self.is_none()
    }
}

/// The records this model can write (`record = [...]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImpRecord {
    /// `messages.csv`: one row per answered message, its timeline in ns, written as the run
    /// goes; drawn as a round-trip (accepted → RFNM) histogram.
    Messages,
    /// `lines.csv`: one row of totals per line direction (frames, retransmissions, utilisation).
    Lines,
    /// `occupancy.csv`: periodic samples of the resources the measured IMP pair holds, written
    /// as the run goes; its first 30 s drawn as a chart.
    Occupancy,
    /// `e2e.csv`: the end-to-end events of single-packet messages, as RFC 632's Tables 1–2 list
    /// them; written as the run goes.
    E2e,
    /// `routing.csv`: every change of a best neighbour and every hold-down; beside it
    /// `loops.csv`, `source-sends.csv` and `source-queues.csv`.
    Routing,
    /// `journeys.csv`: each packet's journey from its source IMP to its destination IMP;
    /// written as the run goes.
    Journeys,
}

impl nmc_scenario::Record for ImpRecord {
    const ALL: &'static [(Self, &'static str)] = &[
        (ImpRecord::Messages, "messages"),
        (ImpRecord::Lines, "lines"),
        (ImpRecord::Occupancy, "occupancy"),
        (ImpRecord::E2e, "e2e"),
        (ImpRecord::Routing, "routing"),
        (ImpRecord::Journeys, "journeys"),
    ];
}

/// `[network]`. `P` is what `params` holds and `R` what `routing_params` holds: the sections
/// as written in the scenario layer, or resolved ([`Network`]: the profile's parameters with
/// the overrides applied, and the adaptive procedure's parameters when it runs).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    bound(
        serialize = "P: Serialize, R: Serialize + Overrides",
        deserialize = "P: Deserialize<'de> + Default, R: Deserialize<'de> + Default"
    )
)]
pub struct NetworkSpec<P, R> {
    /// Named parameter set (see [`crate::params::ImpParams::PROFILES`]).
    pub profile: String,
    /// Overrides of single profile parameters (resolved: the profile with them applied).
    #[serde(default)]
    pub params: P,
    /// The IMPs and lines: a chain, an ARPANET map, an explicit list, or a generated mesh.
    pub topology: TopologySpec,
    /// Hosts and the IMP each attaches to.
    pub hosts: Vec<HostSpec>,
    /// How often resource occupancy is sampled (`record = ["occupancy"]`).
    #[serde(default = "default_sample")]
    pub sample_period: SimDuration,
    /// Scripted disturbances (`[[network.events]]`), each at its time.
    #[serde(default)]
    pub events: Vec<EventSpec>,
    /// A lockup is declared when no message is delivered and no RFNM comes back for this long
    /// while messages are outstanding; the run then stops and reports what is held (RFC 626).
    /// `0s` turns the watch off.
    #[serde(default = "default_lockup_window")]
    pub lockup_window: SimDuration,
    /// Metrics count from this time on: throughput and round trips of the RFNMs that come back
    /// from then, occupancy means and line utilisation over the rest of the run (`0s`: all of it).
    #[serde(default)]
    pub measure_from: SimDuration,
    /// Instants at which to take a time slice of the measured pair (K&O Figs. 2, 7, 8): where
    /// its messages, RFNMs, REQALLs and ALLs are and what they hold (`["5min"]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slices: Vec<SimDuration>,
    /// How IMPs choose the next line: `static` shortest-hop routes (the default), the 1974
    /// `adaptive` procedure, or `spf` over measured delay (1979–87) (see [`crate::routing`]).
    #[serde(default, skip_serializing_if = "RoutingMode::is_static")]
    pub routing: RoutingMode,
    /// Parameters of the adaptive procedure, any field of [`nmc_routing::RoutingParams`]
    /// (`loop_prevention`, `hop_units`, `hold_down`, ...); `routing = "adaptive"` only
    /// (resolved: `Some` exactly when the procedure is adaptive).
    #[serde(default, skip_serializing_if = "Overrides::is_empty")]
    pub routing_params: R,
    /// Lines whose routing messages go at another period than the default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routing_periods: Vec<RoutingPeriodSpec>,
    /// Lines going down and coming back up during the run (`[[network.line_events]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub line_events: Vec<LineEventSpec>,
    /// Which IMPs are 316s and which 516s (`{ "316" = ["MITRE", ...], "516" = [...] }`); the
    /// others are `network.params.default_imp`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub imp_models: std::collections::BTreeMap<crate::params::ImpModel, Vec<String>>,
    /// IMPs running the very distant host (VDH) software: `buffers_vdh` packet buffers and
    /// `reassembly_buffers_vdh` reassembly buffers instead of the usual (K&O §III, §VII).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vdh: Vec<String>,
    /// IMPs that run BBN's IMP program on nmc's H316/516 emulator instead of the model
    /// (`[network.program]`, issue 73 §3; [`ProgramSpec`]). Absent: every IMP is the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<ProgramSpec>,
}

/// `[network.program]`: the IMPs run the original IMP program (BBN's 3050, SIMH's
/// `H316/tests/impcode.cmd`) on nmc's emulator of the Honeywell 316/516 (`nmc-h316`), on nmc's
/// integer clock. Lines, hosts and traffic stay the scenario's; everything is measured from
/// outside the machines (frames on lines, messages at hosts). `nmc run` runs it
/// (`nmc_oracle::program`); the model's entry points refuse such a scenario in one line.
///
/// ```toml
/// [network.program]
/// path = "/path/to/impcode.cmd"   # default: the NMC_IMP_PROGRAM environment variable
/// settle = "10s"                  # time 0 of the scenario: this long after the network is up
/// power_on = "apart"              # each IMP switched on at its own instant (default: together)
/// ```
///
/// The program's file is the user's own copy and is never part of nmc; its SHA-256 is
/// written into the run's summary.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProgramSpec {
    /// The program's deposit file; `None`: the `NMC_IMP_PROGRAM` environment variable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The IMPs that run it, by name; empty (the default): all. The others are the model's,
    /// beside them (`nmc_oracle::mixed`): they carry the program's packets through, route
    /// statically, and may have no hosts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub imps: Vec<String>,
    /// The scenario's time 0 comes this long after the network is up (every host the scenario
    /// uses made ready by its IMP, and each pump's probe to its destination answered): the
    /// program's routing messages carry a distance one hop per period, so routes across a
    /// large map settle in seconds. **Choice**: 10 s, as `nmc oracle emulate-map --settle`.
    #[serde(default = "default_program_settle")]
    pub settle: SimDuration,
    /// The IMPs' real-time clock, one count. **100 µs**, the program's own (3050 listing p. 112:
    /// a packet's age compared with `1250.`, "COMPARE WITH 125 MS"); SIMH's configuration runs
    /// it at 20 µs, five times fast.
    #[serde(default = "default_program_clock")]
    pub clock_tick: SimDuration,
    /// The host interfaces' speed (BBN Report 1822: the IMP's side of a local host interface
    /// moves bits as fast as both ends allow; 100 kbit/s as SIMH's default and the oracle's
    /// recordings).
    #[serde(default = "default_program_host_rate")]
    pub host_interface: BitRate,
    /// Give up when the network is not up by then (simulated, from power-on).
    #[serde(default = "default_program_up_timeout")]
    pub up_timeout: SimDuration,
    /// When each IMP is switched on ([`PowerOn`]): `"together"` (the default) or `"apart"`.
    #[serde(default, skip_serializing_if = "PowerOn::is_together")]
    pub power_on: PowerOn,
    /// Instruction addresses to watch on one IMP (a diagnosis, as `nmc oracle emulate
    /// --watch`): `watch.csv` has each time its program was about to execute one. Nothing else
    /// changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<ProgramWatch>,
}

/// `network.program.watch`: where in one IMP's program to look (a diagnosis). The run is the
/// same step for step with it or without it; `watch.csv` gets a row each time the IMP's
/// program is about to execute one of the addresses `at` (a subroutine entered by `JST`
/// starts at its label + 1), with the time from time 0, the address, the A and X registers,
/// and the memory words at `peek`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProgramWatch {
    /// The IMP, by name (one that runs the program).
    pub imp: String,
    /// Instruction addresses, octal as the listing prints them (e.g. `"14310"`); at most 64.
    pub at: Vec<String>,
    /// Memory words to copy at each pass, octal; at most 16.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub peek: Vec<String>,
}

/// When the program's IMPs are switched on (`network.program.power_on`). The program starts its
/// clock when it starts (BBN 3050 p. 161: the slow tick, where it makes its routing table, is
/// its own `TOSLOW`, every 25th fast tick), and nothing in it sets one IMP's clock by another's
/// (the network-wide `SYNC` count, p. 94 `M2INUL`, only times trouble reports). So the instant
/// each IMP starts fixes the phase of its ticks against its neighbours' for the whole run.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PowerOn {
    /// Every IMP switched on at one instant, every IMP's ticks in step (as every run of the
    /// program before 6 Dec 2026, and as SIMH's recorded chains; the model's
    /// `imp_clocks = "epoch"`).
    #[default]
    Together,
    /// Each IMP switched on at an instant of its own, drawn uniformly over one slow-tick cycle
    /// of its clock (25 × 256 counts of `clock_tick`: 640 ms at the program's 100 µs) from the
    /// run's seed, on the model's stream for its IMPs' clock phases: each IMP's fast and slow
    /// ticks at a phase of their own, as the model's `imp_clocks = "apart"`. **Choice**, the
    /// 1974 profile's ground for `apart`: the network's IMPs were loaded and restarted one by
    /// one.
    Apart,
}

impl PowerOn {
    /// The default, left out of a written scenario.
    pub fn is_together(&self) -> bool {
        *self == PowerOn::Together
    }
}

fn default_program_settle() -> SimDuration {
    SimDuration::from_secs(10)
}
fn default_program_clock() -> SimDuration {
    SimDuration::from_micros(100)
}
fn default_program_host_rate() -> BitRate {
    BitRate::from_kbps(100)
}
/// **Choice**: 900 s, as the oracle's replays (`nmc_oracle::emulate::Options::up_timeout_ns`):
/// program 3050 greets its hosts about 90 s after power-on at its own clock.
fn default_program_up_timeout() -> SimDuration {
    SimDuration::from_secs(900)
}

impl<P, R> NetworkSpec<P, R> {
    /// A chain whose end IMPs carry no host has lines no traffic crosses: `--set
    /// network.topology.hops=9` on a 5-hop scenario keeps its far host on `IMP5` and measures
    /// 5 hops. Said in one line (issue 33), with the key that would move the host.
    pub fn idle_chain_ends(&self) -> Option<String> {
        let TopologySpec::Chain { hops, .. } = self.topology else {
            return None;
        };
        let on: Vec<(usize, u32)> = self
            .hosts
            .iter()
            .enumerate()
            .filter_map(|(i, h)| Some((i, h.imp.strip_prefix("IMP")?.parse::<u32>().ok()?)))
            .collect();
        let lo = on.iter().map(|&(_, n)| n).min()?;
        let (far, hi) = on.iter().copied().max_by_key(|&(_, n)| n)?;
        if lo == 0 && hi >= hops {
            return None;
        }
        Some(format!(
            "warning: network.topology is a chain of {hops} hops (IMP0-IMP{hops}), but its hosts sit \
             on IMP{lo}-IMP{hi}: traffic crosses at most {} of them (to use the whole chain, e.g. \
             --set network.hosts.{far}.imp=IMP{hops})",
            hi.min(hops) - lo.min(hi)
        ))
    }

    /// The same section with `params` and `routing_params` replaced (how the scenario layer
    /// resolves it).
    pub fn with<P2, R2>(self, params: P2, routing_params: R2) -> NetworkSpec<P2, R2> {
        NetworkSpec {
            profile: self.profile,
            params,
            topology: self.topology,
            hosts: self.hosts,
            sample_period: self.sample_period,
            events: self.events,
            lockup_window: self.lockup_window,
            measure_from: self.measure_from,
            slices: self.slices,
            routing: self.routing,
            routing_params,
            routing_periods: self.routing_periods,
            line_events: self.line_events,
            imp_models: self.imp_models,
            vdh: self.vdh,
            program: self.program,
        }
    }
}

/// A scripted disturbance, to cause one reordering at a known moment (RFC 632: "due to an
/// alternate path or a line error").
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum EventSpec {
    /// The next packet (a message's or a control message's) sent on the line `from` → `to` at
    /// or after `at` is hit by a line error: the CRC check discards it and it is retransmitted
    /// after the 125 ms timeout.
    LineError {
        /// When the line error is armed, from the start of the run.
        at: SimDuration,
        /// The IMP the line leaves from.
        from: String,
        /// The IMP at its far end.
        to: String,
    },
    /// The next single-packet message `imp` sends at or after `at` leaves by its line to `via`
    /// instead of its route (one packet on an alternate path), then follows the routes from there.
    Detour {
        /// When the detour is armed, from the start of the run.
        at: SimDuration,
        /// The source IMP whose next single-packet message is detoured.
        imp: String,
        /// The neighbour it goes to instead.
        via: String,
        /// If given, only a message sent within this long of the message `imp` sent before it
        /// is detoured (a later one waits for the next that is): one that can overtake its
        /// predecessor, whatever the phase of the messages at `at`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        within: Option<SimDuration>,
    },
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
    /// One [`nmc_routing::LinkState`] per IMP: shortest paths over each line's measured delay,
    /// averaged and flooded (the ARPANET's routing from May 1979; constants `spf_*` of
    /// `[network.params]`).
    Spf,
}

impl RoutingMode {
    /// Whether routes are static (the default, left out when written).
    pub(crate) fn is_static(&self) -> bool {
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
    /// The line, by its two IMPs.
    pub(crate) line: [String; 2],
    /// The period of its routing messages.
    pub(crate) period: SimDuration,
    /// Only the messages from this end (one of the two IMPs); both directions when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) from: Option<String>,
}

/// `[[network.line_events]]`: a line goes down or comes back up at `at`.
///
/// ```toml
/// [[network.line_events]]
/// at = "60s"
/// line = ["A", "B"]
/// state = "down"
/// ```
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LineEventSpec {
    /// When, from the start of the run.
    pub(crate) at: SimDuration,
    /// The line, by its two IMPs.
    pub(crate) line: [String; 2],
    /// Down or up.
    pub(crate) state: LineState,
}

/// Whether a line event takes a line down or brings it up.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum LineState {
    /// The line comes back up.
    Up,
    /// The line goes down.
    Down,
}

/// `network.topology`: how the IMPs and lines are made.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TopologySpec {
    /// IMPs `IMP0` … `IMP<hops>` in a row.
    Chain {
        /// Lines in the chain (IMPs: one more).
        hops: u32,
        /// Every line's capacity (default 50 kbit/s).
        #[serde(default = "default_capacity")]
        capacity: BitRate,
        /// Every line's propagation delay, each way (default 2 ms).
        #[serde(default = "default_chain_propagation")]
        propagation: SimDuration,
    },
    /// A logical map of the ARPANET from `data/arpanet-maps/maps.json` (sites as IMPs).
    Map {
        /// Map date, e.g. `1974-06`.
        date: String,
        /// Every line's capacity unless overridden (default 50 kbit/s).
        #[serde(default = "default_capacity")]
        capacity: BitRate,
        /// Propagation per km of great-circle distance between the sites' coordinates.
        #[serde(default = "default_per_km")]
        propagation_per_km: SimDuration,
        /// Lines whose speed or delay differ from the defaults (satellite circuits, etc.).
        #[serde(default)]
        overrides: Vec<LineSpec>,
        /// A fixed delay added to every line, each way, beyond its propagation. 0 in every
        /// scenario: no source gives such a term; `reproduce ko-v2-throughput` sets it only to
        /// ask what a per-hop latency would do (a what-if, never a row), and `reproduce
        /// rfc889-arpanet` fits it on three rows of RFC 889 and scores the rest under it (the
        /// 1983 calibration, issue 56: calibrated rows, never the sourced verdict).
        #[serde(default)]
        line_delay: SimDuration,
    },
    /// Explicit IMPs and lines.
    Lines {
        /// The IMPs' names, in order.
        imps: Vec<String>,
        /// The lines between them.
        lines: Vec<LineSpec>,
        /// The capacity of a line that gives none (default 50 kbit/s).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        capacity: Option<BitRate>,
        /// The propagation delay of a line that gives none, each way (default 2 ms, as a
        /// chain's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        propagation: Option<SimDuration>,
    },
    /// A generated mesh of IMPs `IMP0` … `IMP<imps-1>` ([`nmc_net::mesh::generate`]):
    /// connected, each IMP with a number of lines in `degree` (`"3..4"`, or `3`), drawn from
    /// `seed`. The topology has its own seed so that runs over many seeds share one network.
    Mesh {
        /// IMPs in the mesh.
        imps: u32,
        /// Lines per IMP: a range (`"3..4"`) or one number.
        degree: Degree,
        /// The mesh's own random seed (default 1).
        #[serde(default = "default_mesh_seed")]
        seed: u64,
        /// Every line's capacity (default 50 kbit/s).
        #[serde(default = "default_capacity")]
        capacity: BitRate,
        /// Every line's propagation delay, each way (default 2 ms).
        #[serde(default = "default_chain_propagation")]
        propagation: SimDuration,
    },
}

/// A range of line counts per IMP: `"3..4"` (3 or 4) or one number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(try_from = "DegreeText", into = "DegreeText")]
pub struct Degree {
    /// The fewest lines per IMP.
    pub(crate) min: u32,
    /// The most lines per IMP.
    pub(crate) max: u32,
}

#[derive(Deserialize, Serialize)]
#[serde(untagged)]
enum DegreeText {
    One(u32),
    Range(String),
}

impl TryFrom<DegreeText> for Degree {
    type Error = String;
    fn try_from(t: DegreeText) -> Result<Self, String> {
        let bad = |s: &str| format!("degree `{s}`: expected a number or a range such as \"3..4\"");
        let (min, max) = match t {
            DegreeText::One(n) => (n, n),
            DegreeText::Range(s) => match nmc_sim::parse_range::<u32>(&s) {
                Ok(r) => r,
                // Said below in the degree's own words.
                Err(nmc_sim::RangeError::Empty { lo, hi }) => (lo, hi),
                Err(nmc_sim::RangeError::NotARange) => return Err(bad(&s)),
            },
        };
        if min == 0 || min > max {
            return Err(format!("degree {min}..{max}: need 1 <= min <= max"));
        }
        Ok(Degree { min, max })
    }
}

impl From<Degree> for DegreeText {
    fn from(d: Degree) -> Self {
        DegreeText::Range(format!("{}..{}", d.min, d.max))
    }
}

fn default_mesh_seed() -> u64 {
    1
}

/// One line between two named IMPs; unset values take the topology's defaults.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LineSpec {
    /// One end: an IMP's name.
    pub a: String,
    /// The other end.
    pub b: String,
    /// Its capacity (default: the topology's).
    pub capacity: Option<BitRate>,
    /// Its propagation delay, each way (default: the topology's).
    pub propagation: Option<SimDuration>,
}

/// `network.hosts`: a host and the IMP it attaches to.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// The host's name, as traffic names it.
    pub name: String,
    /// The IMP it attaches to.
    pub imp: String,
    /// One of the IMP's own fake hosts (the discard fake host RFC 632's generator sent to, "from
    /// the MOFFET-IMP to the SRI-IMP"): it takes a message word by word at the program's speed
    /// (`fake_host_word_316`/`_516`), with no host interface, beside any real hosts of the
    /// same IMP. It cannot run a pump.
    #[serde(default)]
    pub fake: bool,
}

/// `[[traffic]]`: what the hosts send.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TrafficSpec {
    /// The UCLA pump (K&O §I, §III): messages of `message` bits offered back to back, the next
    /// as soon as the source IMP has taken the last packet of the previous one.
    Pump {
        /// The sending host.
        from: String,
        /// The receiving host.
        to: String,
        /// Message length, bits (default 8063).
        #[serde(default = "default_message")]
        message: Bits,
        /// When the pump starts, from the start of the run.
        #[serde(default)]
        start: SimDuration,
        /// Stop after this many messages.
        count: Option<u64>,
        /// Messages offered and not yet answered by their RFNM, at most, as a host that waits
        /// for RFNMs keeps them (the oracle's host, issue 71: K&O's pump "with N outstanding").
        /// None (the default): K&O's pump, whose next message waits only for the source IMP
        /// to take the last packet of the one before; the IMP's message numbers then bound
        /// what is in flight (K&O §III: four per IMP pair).
        #[serde(default)]
        outstanding: Option<u32>,
    },
    /// The IMP message generator (RFC 632): a process inside the source IMP `imp` (no host
    /// interface) sending single-packet messages of `message` bits to host `to`, "RFNM-driven":
    /// a new message each time a RFNM comes back, with `outstanding` messages sent and not yet
    /// answered.
    Generator {
        /// The source IMP, inside which the generator runs.
        imp: String,
        /// The destination host.
        to: String,
        /// Message length, bits (default 1000: RFC 632's "about 1000 bits").
        #[serde(default = "default_generator_message")]
        message: Bits,
        /// Messages sent and not yet answered, at most (default 4).
        #[serde(default = "default_outstanding")]
        outstanding: u32,
        /// When the generator starts, from the start of the run.
        #[serde(default)]
        start: SimDuration,
        /// Stop after this many messages.
        count: Option<u64>,
        /// Times the generator stops offering new messages (RFC 632: "interrupting the input
        /// stream at the source IMP").
        #[serde(default)]
        pauses: Vec<PauseSpec>,
    },
    /// Other hosts' traffic: the network's own load ([`BackgroundSpec`]).
    Background(BackgroundSpec),
    /// `pairs` host pairs drawn at random, each running a pump as `kind = "pump"` does: hosts
    /// `PAIR<k>-SRC` and `PAIR<k>-DST` are added on two different IMPs with a path between
    /// them, drawn uniformly from the run's seed (for networks too large to list hosts by
    /// hand, such as a generated mesh).
    ///
    /// ```toml
    /// [[traffic]]
    /// kind = "pairs"
    /// pairs = 64
    /// message = "8063bit"     # optional, as for a pump
    /// ```
    Pairs {
        /// Host pairs to draw.
        pairs: u32,
        /// Message length, bits (default 8063).
        #[serde(default = "default_message")]
        message: Bits,
        /// When the pumps start, from the start of the run.
        #[serde(default)]
        start: SimDuration,
        /// Each pump stops after this many messages.
        count: Option<u64>,
    },
}

/// `kind = "background"`: other hosts' traffic over the whole network (see
/// `model/background.rs` for the process). One background host, `BG-<IMP>`, is added on each
/// IMP in `imps` (every IMP when empty); it sends and sinks.
///
/// ```toml
/// [[traffic]]
/// kind = "background"
/// messages_per_second = 37.0     # all background hosts together
/// single_packet_fraction = 0.93
/// single_mean = "250bit"
/// multi_mean = "3000bit"
/// burst_mean = 1.0               # 1: Poisson
/// origins = { UCLA = 40.3 }      # relative origination rates; missing IMPs weigh 1
/// destinations = { UCLA = 43.5 } # relative destination rates
/// ```
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BackgroundSpec {
    /// Messages per second offered by all background hosts together.
    pub messages_per_second: f64,
    /// Fraction of messages that fit one packet.
    pub(crate) single_packet_fraction: f64,
    /// Mean data bits of a single-packet message (exponential, capped at one packet).
    pub(crate) single_mean: Bits,
    /// Mean data bits of a multipacket message (one packet plus an exponential part, capped).
    pub(crate) multi_mean: Bits,
    /// Mean messages per burst to one destination (1: Poisson arrivals).
    #[serde(default = "default_burst")]
    pub(crate) burst_mean: f64,
    /// IMPs with a background host; empty: all.
    #[serde(default)]
    pub(crate) imps: Vec<String>,
    /// Relative rates at which each IMP's hosts originate messages (e.g. messages per minute
    /// from a measurement); IMPs not named weigh `default_weight`.
    #[serde(default)]
    pub(crate) origins: std::collections::BTreeMap<String, f64>,
    /// Relative rates at which each IMP's hosts receive messages; a source picks destination
    /// `j` with probability ∝ this weight among the other IMPs (and, below a `hop_decay` of 1,
    /// its balancing factor and the decay). IMPs not named weigh `default_weight`.
    #[serde(default)]
    pub(crate) destinations: std::collections::BTreeMap<String, f64>,
    /// Weight of an IMP that `origins` or `destinations` does not name.
    #[serde(default = "default_weight")]
    pub(crate) default_weight: f64,
    /// How the choice of destination falls off with distance (issue 54): a source at IMP `i`
    /// picks destination `j` with probability ∝ `destinations[j]` × B_j × `hop_decay`^h(i, j),
    /// h the minimum hops, B_j balancing the pairs so that each IMP still receives its
    /// `destinations` share of all messages (a doubly constrained gravity model: RFC 619 Tables
    /// 2–3 give each site's messages sent and received, not who talked to whom). 1, the
    /// default: destination drawn independently of the origin's place and the pairs not
    /// balanced, as before (a source then never picks itself, so a site's share of what is
    /// received differs somewhat from its weight). Must be in [0.01, 1]. Written into a run's
    /// configuration only when not 1, so the configurations of runs before it are unchanged.
    #[serde(
        default = "default_hop_decay",
        skip_serializing_if = "is_default_hop_decay"
    )]
    pub hop_decay: f64,
    /// When background traffic starts, from the start of the run.
    #[serde(default)]
    pub(crate) start: SimDuration,
    /// Messages that may wait at a background host; arrivals beyond are refused and counted.
    #[serde(default = "default_host_queue")]
    pub(crate) host_queue: u32,
}

fn default_weight() -> f64 {
    1.0
}

impl BackgroundSpec {
    /// The origination weight of the IMP named `imp` (`default_weight` when not named).
    pub(crate) fn origin_weight(&self, imp: &str) -> f64 {
        self.origins
            .get(imp)
            .copied()
            .unwrap_or(self.default_weight)
    }

    /// The destination weight of the IMP named `imp` (`default_weight` when not named).
    pub(crate) fn destination_weight(&self, imp: &str) -> f64 {
        self.destinations
            .get(imp)
            .copied()
            .unwrap_or(self.default_weight)
    }
}

fn default_hop_decay() -> f64 {
    1.0
}

fn is_default_hop_decay(d: &f64) -> bool {
    *d == 1.0
}

fn default_burst() -> f64 {
    1.0
}
/// **Choice**: 64 messages, far more than a host's backlog at the loads the sources report.
fn default_host_queue() -> u32 {
    64
}

/// The generator offers nothing from `at` for `length`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PauseSpec {
    /// When the pause starts, from the start of the run.
    pub(crate) at: SimDuration,
    /// How long it lasts.
    pub(crate) length: SimDuration,
}

pub(crate) fn default_capacity() -> BitRate {
    BitRate::from_kbps(50)
}
/// **Choice**: 2 ms per hop (≈ 400 km of cable), a typical inter-site distance on the 1974 map.
pub(crate) fn default_chain_propagation() -> SimDuration {
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
/// RFC 632: "a message length of about 1000 bits".
fn default_generator_message() -> Bits {
    Bits::new(1000)
}
/// RFNM-driven at "the highest possible rate": as many as the 4 message numbers of a pair allow.
fn default_outstanding() -> u32 {
    4
}
/// **Choice**: 10 s, far longer than any wait the protocol has (1 s RFNM timeout, 125 ms
/// retransmission), far shorter than a run.
fn default_lockup_window() -> SimDuration {
    SimDuration::from_secs(10)
}
