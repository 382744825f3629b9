//! A scenario whose IMPs run BBN's IMP program (`[network.program]`, issue 73 §3): the
//! scenario's network, hosts and traffic, with every IMP (or those named in
//! `network.program.imps`) an emulated Honeywell 316/516
//! (`nmc-h316`) running the user's copy of program 3050, on nmc's integer clock. `nmc run`
//! comes here when a scenario has `[network.program]`; everything is measured from outside
//! the machines, as a host and a line see it.
//!
//! ## What stays the scenario's
//! * **Lines**: each line's speed and propagation ([`crate::map::network_of`], the model's
//!   own topology code) and `network.params.bit_error_rate`: a frame of *n* bits (its words and
//!   the 72 framing bits) is hit with probability 1 − (1 − ber)^*n*, drawn from the line
//!   direction's own stream of the run's seed (`nmc_imp::model::line_stream`); a hit frame
//!   reaches the far modem with its checksum failed, and the program does what it does.
//! * **Machines**: `network.imp_models` and `network.params.default_imp`.
//! * **Hosts**: a real host is host interface 1 of its IMP (leader host 0); a
//!   fake host is the IMP's discard fake host (3). The background hosts of `kind =
//!   "background"` are interface 2 ([`crate::background`]). Program 3050 serves two hosts
//!   beside five modems (listing p. 25, `HOST34`), so a second real host on one IMP is refused.
//! * **Traffic**: `kind = "pump"` ([`crate::pump::Pump`], each on its own link, 10 + its
//!   place) and `kind = "background"` (planned and drawn as the model's,
//!   [`crate::background`]). A pump with `outstanding` keeps that many messages out, as the
//!   oracle's host; without it, K&O's pump: the next message goes to the interface as soon as
//!   the IMP has taken the whole of the one before (the program's four message numbers per
//!   IMP pair then hold the rest back, K&O §III).
//!
//! ## The clock
//! Every IMP starts at power-on. Each real host is made ready when its IMP says it is
//! (`IMP ready`), and opens with a NOP, which the program throws away (listing pp. 120–121,
//! `HISTRH`). Each pump's host then sends a one-packet probe to its destination IMP's discard
//! fake host every 2 s until one is answered by a RFNM (as the oracle's runs do). **The network
//! is up** when every host the scenario uses is ready and every pump's probe is answered; the
//! **scenario's time 0** is `settle` after that (routes across a large map need seconds to
//! settle). Every time in the outputs is from that time 0; `program.up_s` gives when the
//! network came up after power-on.
//!
//! The IMPs run in lockstep windows of half the shortest frame (framing bits only) plus its
//! propagation: a frame started in a window cannot reach another IMP before the window ends.
//! An IMP with a pump's host runs its window in steps of [`HOST_STEP_NS`]: a host answers what
//! its IMP gave it at the next step (as [`crate::emulate`]). Same program, scenario and seed:
//! the same bytes (nothing here reads a clock).
//!
//! ## Modelled IMPs beside them
//! `network.program.imps` naming fewer than all: the others are nmc's model ([`crate::mixed`]),
//! which carries the program's packets through with its own buffers, queues, processors and
//! lines, and routes statically; the window loop runs the emulated IMPs, then the modelled
//! side to the window's end. A host on a modelled IMP is the model's: its pumps are the
//! model's, started at time 0, and its messages cross to the program's hosts translated
//! between the two end-to-end protocols (`mixed/translate.rs`); `messages.csv` has them beside
//! the program's hosts' messages. A background load's site on a modelled IMP is the model's
//! background host there, drawing from its own stream as the program's hosts do from theirs, so
//! the network is offered the same load whichever IMPs are modelled.
//!
//! ## What is refused, in one line
//! The model's instruments and disturbances (`network.events`, `network.line_events`,
//! `network.routing_periods`, `network.slices`, `network.vdh`), `kind = "generator"` and
//! `kind = "pairs"`, records other than `messages`, `lines`, `journeys` and `routing` (these
//! two only when every IMP runs the program: [`crate::journeys`], [`crate::routes`]), and a
//! network the program
//! cannot run ([`crate::emulate::check_network`]: 63 IMPs, five modems an IMP). The model's
//! other `[network.params]` and `network.routing` do not apply: the program has its own
//! constants and its own routing (said in the run's notes).

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use nmc_h316::{Image, Imp, Output};
use nmc_imp::observe::MessageRecord;
use nmc_imp::spec::{ImpConfig, TrafficSpec};
use nmc_imp::topology::Topology;

use crate::background::{BackgroundHost, Counts};
use crate::leader::{Address, FakeHost, Kind, Leader};
use crate::pump::{Pump, PumpConfig};
use crate::run::{Machine, Settings};

/// A host's step inside the window of an IMP with a pump ([`crate::emulate::HOST_STEP_NS`]).
pub use crate::emulate::HOST_STEP_NS;

/// Between probes while the network comes up.
pub const PROBE_EVERY_NS: u64 = crate::emulate::PROBE_EVERY_NS;

/// The host interface a scenario's real host is on.
pub const HOST: u8 = 1;

/// The link a probe goes on; a pump's link is [`FIRST_PUMP_LINK`] plus its place.
pub const PROBE_LINK: u8 = 1;

/// The first pump's link.
pub const FIRST_PUMP_LINK: u8 = 10;

/// The most data bits a message carries (BBN Report 1822: 8095 bits with the leader's 32).
pub const MAX_MESSAGE_BITS: u64 = 8063;

/// The most messages a pump keeps outstanding on the program's IMPs: its host hands each to
/// the interface at once (the program itself keeps 4 in flight per IMP pair, K&O §III, and the
/// rest wait there). **Choice**: 64, as a background host's queue (`host_queue`).
pub const MAX_OUTSTANDING: u32 = 64;

/// One line direction's figures over the scenario's time (`lines.csv`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct LineRow {
    /// The IMP it leaves from.
    pub from: String,
    /// The IMP at its far end.
    pub to: String,
    /// Its speed, bit/s.
    pub capacity_bps: u64,
    /// Its propagation delay, ns.
    pub propagation_ns: u64,
    /// Frames started from time 0 on.
    pub frames: u64,
    /// Their words.
    pub words: u64,
    /// Of them, hit by a line error.
    pub corrupted: u64,
    /// Share of the scenario's time the line was sending.
    pub utilisation: f64,
}

/// One pump message as its hosts saw it (`messages.csv`), times in ns from the scenario's
/// time 0: the model's columns where the moment is the same, none of the IMPs' inner steps.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ProgramMessage {
    /// Its place among its pump's messages, from 0.
    pub id: u64,
    /// The source host's name.
    pub host: String,
    /// The destination host's name.
    pub dst_host: String,
    /// Data bits.
    pub bits: u64,
    /// The host handed it to its interface.
    pub offered_ns: u64,
    /// The IMP had taken packet 1 (K&O point a): the input after the leader's, which the
    /// program reads alone (listing p. 125, `HILEAD`).
    pub first_in_ns: Option<u64>,
    /// The IMP had taken it whole (its last bit in: the host may offer the next).
    pub accepted_ns: Option<u64>,
    /// Its last bit reached a real destination host (a fake host's arrival is not seen).
    pub delivered_ns: Option<u64>,
    /// Its RFNM's last bit reached the source host.
    pub rfnm_ns: Option<u64>,
    /// The reply: `rfnm`, `incomplete` (incomplete transmission), `dead` (destination dead),
    /// or empty while none came.
    pub reply: &'static str,
}

impl ProgramMessage {
    fn shifted(&self, zero: u64) -> ProgramMessage {
        let at = |t: Option<u64>| t.map(|t| t.saturating_sub(zero));
        ProgramMessage {
            offered_ns: self.offered_ns.saturating_sub(zero),
            first_in_ns: at(self.first_in_ns),
            accepted_ns: at(self.accepted_ns),
            delivered_ns: at(self.delivered_ns),
            rfnm_ns: at(self.rfnm_ns),
            host: self.host.clone(),
            dst_host: self.dst_host.clone(),
            ..*self
        }
    }

    /// The record the model's metrics read.
    fn record(&self) -> MessageRecord {
        let mut r = MessageRecord::observed(
            self.id,
            &self.host,
            &self.dst_host,
            self.bits,
            self.offered_ns,
            self.accepted_ns,
            self.delivered_ns,
            self.rfnm_ns,
        );
        r.first_in_ns = self.first_in_ns;
        r
    }
}

/// One pass of a watched IMP's program at a watched address (`watch.csv`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WatchRow {
    /// The IMP's name.
    pub imp: String,
    /// When, ns from time 0 (negative before it: the network coming up and settling).
    pub t_ns: i64,
    /// The instruction's address, octal.
    pub p: String,
    /// The A register, octal.
    pub a: String,
    /// The index register, octal.
    pub x: String,
    /// The words at `peek`, octal, space-separated.
    pub peek: String,
}

/// What a run on the program gave.
#[derive(Clone, Debug)]
pub struct ProgramRun {
    /// Every pump's messages offered from time 0 on, by pump then order sent; times from time 0.
    pub messages: Vec<ProgramMessage>,
    /// `summary.json`'s metrics: the model's names where the figure is the same
    /// ([`nmc_imp::analysis::observed_metrics`]) and `program.*`.
    pub metrics: BTreeMap<String, f64>,
    /// Each line direction, in the topology's order.
    pub lines: Vec<LineRow>,
    /// Each data packet's and RFNM's journey that ended, when `record = ["journeys"]`
    /// ([`crate::journeys`]).
    pub journeys: Vec<crate::journeys::ProgramJourney>,
    /// Every routing message from time 0, when `record = ["routing"]` ([`crate::routes`]).
    pub routing: crate::routes::RoutingMessages,
    /// Each pass of the watched IMP's program at a watched address (`network.program.watch`;
    /// empty without one), from power-on.
    pub watch: Vec<WatchRow>,
    /// The program's file and its SHA-256.
    pub program: (PathBuf, String),
    /// Things to say about the run.
    pub notes: Vec<String>,
}

/// The program file `[network.program]` names (its `path`, else `NMC_IMP_PROGRAM`).
pub fn program_file(s: &ImpConfig) -> Result<PathBuf> {
    let given = s
        .network
        .program
        .as_ref()
        .and_then(|p| p.path.as_deref())
        .map(Path::new);
    crate::emulate::program_path(given).ok_or_else(|| {
        anyhow::anyhow!(
            "network.program: no IMP program: set network.program.path or NMC_IMP_PROGRAM (SIMH's H316/tests/impcode.cmd; nmc does not ship it)"
        )
    })
}

/// A pump of the scenario, resolved.
#[derive(Clone)]
struct PumpPlan {
    src_host: String,
    dst_host: String,
    /// Network index of the source and destination IMPs.
    src: usize,
    dst: usize,
    /// The destination is a fake host.
    fake: bool,
    bits: u64,
    start_ns: u64,
    count: u64,
    outstanding: Option<u32>,
}

/// What the scenario asks of the program's IMPs, checked.
struct Plan {
    net: crate::map::MapNetwork,
    settings: Settings,
    /// Network indices with a real scenario host on interface 1.
    real: BTreeMap<usize, String>,
    pumps: Vec<PumpPlan>,
    background: Option<crate::emulate::Load>,
    settle_ns: u64,
    up_timeout_ns: u64,
    ber: f64,
    /// The scenario's pumps run by hosts on modelled IMPs (the model's), by name of source
    /// host; and whether the scenario's first pump is one of them.
    model_pumps: (usize, bool),
    /// By network index: modelled beside the emulated IMPs (`network.program.imps` names the
    /// others); all false when every IMP runs the program.
    modelled: Vec<bool>,
    /// When each IMP is switched on (`network.program.power_on`).
    power_on: nmc_imp::spec::PowerOn,
    /// The IMP (network index) to watch and where (`network.program.watch`).
    watch: Option<(usize, crate::emulate::WatchSpec)>,
}

/// What the program's IMPs cannot run, refused in one line (the module's list).
fn refusals(s: &ImpConfig, p: &nmc_imp::spec::ProgramSpec, topology: &Topology) -> Result<()> {
    let n = &s.network;
    if let Some(x) = p.imps.iter().find(|x| topology.index(x).is_none()) {
        bail!("network.program.imps: {x} is not an IMP of this network");
    }
    let refuse = |what: &str| -> Result<()> {
        bail!(
            "{what}: the model's, not on IMPs that run the program (remove it, or [network.program])"
        )
    };
    if !n.events.is_empty() {
        refuse("network.events")?;
    }
    if !n.line_events.is_empty() {
        refuse("network.line_events")?;
    }
    if !n.routing_periods.is_empty() {
        refuse("network.routing_periods")?;
    }
    if !n.slices.is_empty() {
        refuse("network.slices")?;
    }
    if !n.vdh.is_empty() {
        refuse("network.vdh")?;
    }
    if s.trace {
        bail!(
            "trace = true: the model's event trace; IMPs that run the program are seen from outside (record = [\"messages\", \"lines\"])"
        );
    }
    for r in &s.record {
        if (r == "journeys" || r == "routing") && !p.imps.is_empty() {
            bail!(
                "record = [\"{r}\"]: read on the lines between IMPs that run the program, so only when every IMP does (remove network.program.imps)"
            );
        }
        if !["messages", "lines", "journeys", "routing"].contains(&r.as_str()) {
            bail!(
                "record = [\"{r}\"]: not made on IMPs that run the program (they are seen from outside: \"messages\", \"lines\", \"journeys\" and \"routing\")"
            );
        }
    }
    Ok(())
}

/// The scenario's hosts on `net`: the real ones by IMP index (interface 1, one an IMP), and
/// every host by name with its IMP index and whether it is a fake host.
type HostPlan<'a> = (BTreeMap<usize, String>, BTreeMap<&'a str, (usize, bool)>);

fn plan_hosts<'a>(s: &'a ImpConfig, net: &crate::map::MapNetwork) -> Result<HostPlan<'a>> {
    let n = &s.network;
    // Hosts: a real one on interface 1 of its IMP, at most one an IMP.
    let mut real = BTreeMap::new();
    let mut hosts: BTreeMap<&str, (usize, bool)> = BTreeMap::new();
    for (i, h) in n.hosts.iter().enumerate() {
        let Some(at) = net.index(&h.imp) else {
            bail!(
                "network.hosts[{i}]: `{}` is attached to `{}`, which is not an IMP of this network",
                h.name,
                h.imp
            );
        };
        if hosts.insert(&h.name, (at, h.fake)).is_some() {
            bail!("network.hosts[{i}]: a second host named `{}`", h.name);
        }
        if !h.fake
            && let Some(other) = real.insert(at, h.name.clone())
        {
            bail!(
                "network.hosts[{i}]: `{}` and `{other}` on {}: on IMPs that run the program a scenario's real host is interface 1, one an IMP (interface 2 is the background's)",
                h.name,
                h.imp
            );
        }
    }
    Ok((real, hosts))
}

fn plan(s: &ImpConfig, seed: u64) -> Result<Plan> {
    let n = &s.network;
    let p = n
        .program
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("the scenario has no [network.program]"))?;
    nmc_imp::run::check_observed_times(s).map_err(|e| anyhow::anyhow!("{}", e.0))?;
    let topology = Topology::build(&n.topology).map_err(|e| anyhow::anyhow!("{e}"))?;
    refusals(s, p, &topology)?;
    let tick = p.clock_tick.as_nanos();
    if tick == 0 || tick % 1000 != 0 || tick > 1_000_000 {
        bail!("network.program.clock_tick: a whole number of µs up to 1 ms (the program's: 100us)");
    }
    let host_bps = u32::try_from(p.host_interface.bps())
        .ok()
        .filter(|&b| b > 0)
        .ok_or_else(|| anyhow::anyhow!("network.program.host_interface: 1 bit/s to 4 Gbit/s"))?;
    let net = crate::map::network_of(
        "network.topology",
        topology,
        &n.imp_models,
        n.params.default_imp(),
        None,
    )?;
    let settings = Settings {
        machine: Machine::H516,
        host_bps,
        rtc_us: (tick / 1000) as u32,
        ..Settings::default()
    };
    let (mut real, hosts) = plan_hosts(s, &net)?;
    let modelled: Vec<bool> = net
        .names
        .iter()
        .map(|x| !p.imps.is_empty() && !p.imps.contains(x))
        .collect();
    // A real host on a modelled IMP is the model's (`crate::mixed`).
    real.retain(|&at, _| !modelled[at]);
    let mut model_pumps = (0, false);
    let mut pumps = Vec::new();
    let mut sites = Vec::new();
    for (k, t) in s.traffic.iter().enumerate() {
        match t {
            TrafficSpec::Pump {
                from,
                to,
                message,
                start,
                count,
                outstanding,
            } => {
                let find = |name: &str| {
                    hosts.get(name).copied().ok_or_else(|| {
                        anyhow::anyhow!("traffic[{k}]: no host named `{name}` in network.hosts")
                    })
                };
                let (src, src_fake) = find(from)?;
                let (dst, fake) = find(to)?;
                if src_fake {
                    bail!("traffic[{k}]: `{from}` is a fake host; a pump runs on a real one");
                }
                if src == dst {
                    bail!("traffic[{k}]: `{from}` and `{to}` are on one IMP");
                }
                if modelled[src] {
                    // The model's pump, on the modelled side (`crate::mixed`).
                    if pumps.is_empty() && model_pumps.0 == 0 {
                        model_pumps.1 = true;
                    }
                    model_pumps.0 += 1;
                    continue;
                }
                if message.get() == 0 || message.get() > MAX_MESSAGE_BITS {
                    bail!("traffic[{k}].message: 1 to {MAX_MESSAGE_BITS} bits (BBN Report 1822)");
                }
                if let Some(n) = *outstanding
                    && !(1..=MAX_OUTSTANDING).contains(&n)
                {
                    bail!(
                        "traffic[{k}].outstanding = {n}: 1 to {MAX_OUTSTANDING} on IMPs that run the program (the host hands them to its interface at once; the program keeps 4 in flight per IMP pair)"
                    );
                }
                let link = u64::from(FIRST_PUMP_LINK) + pumps.len() as u64;
                if link > 255 {
                    bail!("traffic[{k}]: more pumps than links (1822 has 256)");
                }
                pumps.push(PumpPlan {
                    src_host: from.clone(),
                    dst_host: to.clone(),
                    src,
                    dst,
                    fake,
                    bits: message.get(),
                    start_ns: start.as_nanos(),
                    count: count.unwrap_or(u64::MAX),
                    outstanding: *outstanding,
                });
            }
            TrafficSpec::Background(b) => {
                if !sites.is_empty() {
                    bail!(
                        "traffic[{k}]: a second background (one kind = \"background\" entry, as in the model)"
                    );
                }
                for site in nmc_imp::run::background_sites(&net.topology, &n.params, k, b)
                    .map_err(|e| anyhow::anyhow!("{}", e.0))?
                {
                    // The network's order is the topology's (`network_of` with no first).
                    if modelled[site.imp as usize] {
                        // The model's background host, on the modelled side (`crate::mixed`).
                        continue;
                    }
                    sites.push((site.imp as usize, site));
                }
            }
            TrafficSpec::Generator { .. } => bail!(
                "traffic[{k}]: kind = \"generator\" is the model's IMP message generator; on IMPs that run the program use a pump"
            ),
            TrafficSpec::Pairs { .. } => bail!(
                "traffic[{k}]: kind = \"pairs\" is not built on IMPs that run the program; list the hosts and pumps"
            ),
        }
    }
    let background = (!sites.is_empty()).then(|| crate::emulate::Load {
        net_index: (0..net.names.len()).collect(),
        sites,
        seed,
        settle_ns: 0,
    });
    let watch = p
        .watch
        .as_ref()
        .map(|w| plan_watch(w, &net.names, &modelled))
        .transpose()?;
    Ok(Plan {
        net,
        settings,
        real,
        pumps,
        background,
        settle_ns: p.settle.as_nanos(),
        up_timeout_ns: p.up_timeout.as_nanos(),
        ber: n.params.bit_error_rate(),
        model_pumps,
        modelled,
        power_on: p.power_on,
        watch,
    })
}

/// `network.program.watch`, checked: an IMP that runs the program, octal addresses, within
/// the watch's limits.
fn plan_watch(
    w: &nmc_imp::spec::ProgramWatch,
    names: &[String],
    modelled: &[bool],
) -> Result<(usize, crate::emulate::WatchSpec)> {
    let i = match names.iter().position(|x| *x == w.imp) {
        Some(i) if !modelled[i] => i,
        Some(_) => bail!(
            "network.program.watch.imp: {} is a modelled IMP; watch one that runs the program",
            w.imp
        ),
        None => bail!(
            "network.program.watch.imp: {} is not an IMP of this network",
            w.imp
        ),
    };
    // The machine's addresses are 15 bits (32K words): a larger one would never be reached.
    let octal = |key: &str, v: &[String]| -> Result<Vec<u16>> {
        v.iter()
            .map(|x| {
                u16::from_str_radix(x.trim(), 8)
                    .ok()
                    .filter(|&a| a <= 0o77777)
                    .ok_or_else(|| {
                        anyhow::anyhow!(
                            "network.program.watch.{key}: {x:?} is not an octal address (0 to 77777)"
                        )
                    })
            })
            .collect()
    };
    if w.at.is_empty() {
        bail!("network.program.watch.at: no address to watch (octal, e.g. [\"14310\"])");
    }
    let spec = crate::emulate::WatchSpec::new(&octal("at", &w.at)?, &octal("peek", &w.peek)?)
        .map_err(|e| anyhow::anyhow!("network.program.watch: {e}"))?;
    Ok((i, spec))
}

/// Checks what [`run`] would refuse, and that the program's file can be read, without running
/// (`nmc run`'s check before it makes the output folder).
pub fn check(s: &ImpConfig, seed: u64) -> Result<()> {
    plan(s, seed)?;
    crate::emulate::read_program(&program_file(s)?)?;
    Ok(())
}

/// What a host interface was given, in order: what the IMP takes next.
#[derive(Clone, Copy, Debug)]
enum Handed {
    Nop,
    Probe,
    /// A pump's message, and the inputs the IMP has taken of it.
    Message {
        pump: usize,
        index: usize,
        inputs: u8,
    },
    /// A background message to IMP `dest` (network index), and the inputs the IMP has taken
    /// of it.
    Background {
        dest: usize,
        inputs: u8,
    },
}

impl Handed {
    /// The IMP has taken one more input of this message (`eom`: its last): whether that input
    /// completed packet 1. The program reads a message's leader alone, then the packet's
    /// buffer (listing p. 125, `HILEAD`: the host input waiting for a leader), so packet 1 is
    /// in with the input after the leader's, or with the leader's if it ends the message.
    /// Seen on nmc's emulator: a 2-word input, then the packet's text.
    fn input_taken(&mut self, eom: bool) -> bool {
        match self {
            Handed::Message { inputs, .. } | Handed::Background { inputs, .. } => {
                *inputs = inputs.saturating_add(1);
                *inputs == 2 || (*inputs == 1 && eom)
            }
            Handed::Nop | Handed::Probe => false,
        }
    }
}

/// A pump as it runs.
struct Running {
    plan: PumpPlan,
    pump: Pump,
    /// Probe answered: the pair is up.
    up: bool,
    last_probe: Option<u64>,
    /// Its records (emulator times), by the order sent.
    records: Vec<ProgramMessage>,
    /// Messages not yet delivered to a real destination host, oldest first.
    undelivered: VecDeque<usize>,
}

/// In a [`Hop`]'s `to`: the far end is the modelled side (`crate::mixed`), the `u8` its
/// boundary line.
const MODELLED: usize = usize::MAX;

/// Where a frame from (IMP, modem) goes: its line direction, the far IMP and modem (or
/// [`MODELLED`] and the boundary line), the propagation.
#[derive(Clone, Copy)]
struct Hop {
    link: usize,
    to: (usize, u8),
    prop_ns: u64,
}

struct Driver {
    plan: Plan,
    imps: Vec<Imp>,
    hops: BTreeMap<(usize, u8), Hop>,
    errors: Vec<nmc_sim::Stream>,
    /// Per line direction: frames, words, corrupted, busy ns (from time 0).
    line_counts: Vec<(u64, u64, u64, u64)>,
    pumps: Vec<Running>,
    /// Per (IMP, interface): ready, and what it was handed and not yet taken whole.
    ready: BTreeMap<(usize, u8), bool>,
    handed: BTreeMap<(usize, u8), VecDeque<Handed>>,
    up_ns: Option<u64>,
    zero_ns: Option<u64>,
    bg: Vec<Option<BackgroundHost>>,
    bg_delivered: u64,
    /// Per (source IMP, destination IMP): when each background message answered next had its
    /// packet 1 taken ([`Handed::input_taken`]).
    bg_first_in: BTreeMap<(usize, usize), VecDeque<Option<u64>>>,
    /// Background RFNMs by hops between the IMPs: how many, and their round trips' sum (ns).
    bg_by_hops: BTreeMap<u32, (u64, u64)>,
    delivered_real: u64,
    log: Vec<String>,
    /// The modelled IMPs and their boundary lines, in a network of both kinds.
    mixed: Option<crate::mixed::Mixed>,
    /// Each packet's journey from time 0, when `record = ["journeys"]`.
    journeys: Option<crate::journeys::Journeys>,
    /// Every routing message from time 0, when `record = ["routing"]`.
    routing: Option<crate::routes::RoutingMessages>,
}

fn host_error(i: usize, e: nmc_h316::imp::InputError) -> anyhow::Error {
    anyhow::anyhow!("IMP index {i}: the driver gave an input too late: {e}")
}

impl Driver {
    fn uses(&self) -> Vec<(usize, u8)> {
        let mut v: Vec<(usize, u8)> = self.plan.real.keys().map(|&i| (i, HOST)).collect();
        if let Some(l) = &self.plan.background {
            v.extend(l.sites.iter().map(|s| (s.0, crate::background::HOST)));
        }
        v
    }

    /// Where a frame from modem `line` of emulated IMP `i` goes, if the line goes anywhere.
    fn hop_of(&self, i: usize, line: u8) -> Option<Hop> {
        if let Some(h) = self.hops.get(&(i, line)) {
            return Some(*h);
        }
        let m = self.mixed.as_ref()?;
        let edge = m.edge_at(i, line)?;
        let (link, prop_ns) = m.back_link(edge);
        Some(Hop {
            link: link as usize,
            to: (MODELLED, edge as u8),
            prop_ns,
        })
    }

    fn hand(&mut self, i: usize, host: u8, what: Handed, words: Vec<u16>) -> Result<()> {
        let now = self.imps[i].now_ns();
        self.imps[i]
            .host_send(host, words, now)
            .map_err(|e| host_error(i, e))?;
        self.handed.entry((i, host)).or_default().push_back(what);
        Ok(())
    }

    fn run_imp(&mut self, i: usize, until: u64) -> Result<Vec<Output>> {
        let who = format!(
            "{} (IMP {})",
            self.plan.net.names[i], self.plan.net.net.imps[i]
        );
        crate::emulate::run_to(&mut self.imps[i], until, &who)
    }

    /// An IMP's outputs: frames to deliver, hosts made ready, inputs taken, messages to hosts.
    fn record(&mut self, i: usize, outs: Vec<Output>, frames: &mut Vec<Frame>) -> Result<()> {
        for o in outs {
            match o {
                Output::Frame {
                    line,
                    words,
                    first_bit_ns,
                    last_bit_ns,
                } => {
                    let Some(hop) = self.hop_of(i, line) else {
                        continue;
                    };
                    let bits = words.len() as u64 * 16 + u64::from(self.plan.settings.framing_bits);
                    let ber = self.plan.ber;
                    let hit = ber > 0.0 && {
                        let p = 1.0 - (1.0 - ber).powf(bits as f64);
                        self.errors[hop.link].unit() < p
                    };
                    if let Some(z) = self.zero_ns.filter(|&z| first_bit_ns >= z) {
                        let c = &mut self.line_counts[hop.link];
                        c.0 += 1;
                        c.1 += words.len() as u64;
                        c.2 += u64::from(hit);
                        c.3 += last_bit_ns - first_bit_ns;
                        // Seen on a line between two IMPs that run the program.
                        if hop.to.0 != MODELLED {
                            let (to, t) = (hop.to.0, first_bit_ns - z);
                            if let Some(r) = &mut self.routing {
                                r.frame(&words, i, to, t, !hit);
                            }
                            if let Some(j) = &mut self.journeys {
                                let arrive = last_bit_ns + hop.prop_ns - z;
                                j.frame(&words, i, to, t, arrive, !hit);
                            }
                        }
                    }
                    match (&mut self.mixed, hop.to) {
                        (Some(m), (MODELLED, edge)) => m.frame_from_program(
                            usize::from(edge),
                            last_bit_ns + hop.prop_ns,
                            words,
                            !hit,
                        ),
                        _ => frames.push((last_bit_ns + hop.prop_ns, hop.to, words, !hit)),
                    }
                }
                Output::ImpReady { host, ready, at_ns } => {
                    if !self.uses().contains(&(i, host)) {
                        continue;
                    }
                    let was = self.ready.insert((i, host), ready).unwrap_or(false);
                    self.log.push(format!(
                        "{:.6} {} host {host}: IMP ready {ready}",
                        at_ns as f64 / 1e9,
                        self.plan.net.names[i]
                    ));
                    if ready && !was {
                        let now = self.imps[i].now_ns();
                        self.imps[i]
                            .set_host_ready(host, true, now)
                            .map_err(|e| host_error(i, e))?;
                        // The program throws away a real host's first input (`HISTRH`).
                        let nop = vec![u16::from(Kind::Nop.code()) << 8, 0];
                        self.hand(i, host, Handed::Nop, nop)?;
                    }
                }
                Output::HostInput {
                    host, eom, done_ns, ..
                } => {
                    let q = self.handed.entry((i, host)).or_default();
                    let packet_one = q.front_mut().is_some_and(|h| h.input_taken(eom));
                    if let Some(Handed::Background { dest, .. }) = q.front()
                        && packet_one
                    {
                        // The oldest of this destination's messages not yet begun is this one.
                        if let Some(slot) = self
                            .bg_first_in
                            .get_mut(&(i, *dest))
                            .and_then(|v| v.iter_mut().find(|x| x.is_none()))
                        {
                            *slot = Some(done_ns);
                        }
                    }
                    let front = if eom {
                        q.pop_front()
                    } else {
                        q.front().copied()
                    };
                    if let Some(Handed::Message { pump, index, .. }) = front {
                        let r = &mut self.pumps[pump].records[index];
                        if packet_one {
                            r.first_in_ns = Some(done_ns);
                        }
                        if eom {
                            r.accepted_ns = Some(done_ns);
                        }
                    }
                }
                Output::HostMessage {
                    host,
                    words,
                    last_bit_ns,
                    ..
                } if words.len() >= 2 => {
                    let leader = Leader::decode([words[0], words[1]]);
                    if host == HOST {
                        self.host_message(i, last_bit_ns, leader, words.get(2).copied());
                    } else if host == crate::background::HOST {
                        self.background_message(i, last_bit_ns, leader);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// A message to IMP `i`'s real host, its last bit at `t`.
    /// `first` is the message's first text word: a pump writes its message's index there.
    fn host_message(&mut self, i: usize, t: u64, leader: Leader, first: Option<u16>) {
        let from = self.plan.net.net.imps.iter().position(|&n| n == leader.imp);
        match leader.kind {
            Kind::Regular => {
                let Some(from) = from else { return };
                let link = usize::from(leader.link);
                if let Some(k) = link.checked_sub(usize::from(FIRST_PUMP_LINK))
                    && let Some(p) = self.pumps.get_mut(k)
                    && p.plan.src == from
                    && p.plan.dst == i
                    && !p.plan.fake
                    // The message whose index the first word carries (a message answered
                    // "dead" or "incomplete" is never delivered: order alone would shift).
                    && let Some(at) = p
                        .undelivered
                        .iter()
                        .position(|&x| Some(x as u16) == first)
                    && let Some(index) = p.undelivered.remove(at)
                {
                    p.records[index].delivered_ns = Some(t);
                    self.delivered_real += 1;
                }
            }
            Kind::Rfnm | Kind::IncompleteTransmission | Kind::DestinationDead => {
                if leader.link == PROBE_LINK {
                    for p in &mut self.pumps {
                        if p.plan.src == i && Some(p.plan.dst) == from && leader.kind == Kind::Rfnm
                        {
                            p.up = true;
                        }
                    }
                    return;
                }
                for p in &mut self.pumps {
                    if p.plan.src != i {
                        continue;
                    }
                    if let Some(r) = p.pump.on_message(t, &leader) {
                        let rec = &mut p.records[r.index as usize];
                        if r.reply == Kind::Rfnm {
                            rec.rfnm_ns = Some(t);
                            rec.reply = "rfnm";
                        } else {
                            rec.reply = if r.reply == Kind::DestinationDead {
                                "dead"
                            } else {
                                "incomplete"
                            };
                        }
                        return;
                    }
                }
                self.log.push(format!(
                    "{:.6} {}: {leader}",
                    t as f64 / 1e9,
                    self.plan.net.names[i]
                ));
            }
            _ => self.log.push(format!(
                "{:.6} {}: {leader}",
                t as f64 / 1e9,
                self.plan.net.names[i]
            )),
        }
    }

    /// A message to IMP `i`'s background host, as [`crate::emulate`]'s driver takes it.
    fn background_message(&mut self, i: usize, t: u64, leader: Leader) {
        match leader.kind {
            Kind::Regular => self.bg_delivered += 1,
            Kind::Rfnm | Kind::IncompleteTransmission | Kind::DestinationDead => {
                let dest = self.plan.net.net.imps.iter().position(|&n| n == leader.imp);
                let (Some(d), Some(h)) = (dest, self.bg[i].as_mut()) else {
                    return;
                };
                if !h.reply(d, leader.kind, t) {
                    return;
                }
                // RFC 619 Table 1's round trip, as the model's `background.rtt_by_hops`:
                // packet 1 in the source IMP → the RFNM at the source host.
                let first_in = self
                    .bg_first_in
                    .get_mut(&(i, d))
                    .and_then(VecDeque::pop_front)
                    .flatten();
                let hops = self.plan.net.topology.hops(i as u32, d as u32);
                if let (Kind::Rfnm, Some(a), Some(h)) = (leader.kind, first_in, hops) {
                    let e = self.bg_by_hops.entry(h).or_default();
                    e.0 += 1;
                    e.1 += t.saturating_sub(a);
                }
            }
            _ => {}
        }
    }

    /// The background messages arriving before `end`, handed to their IMPs' interface 2.
    fn background_arrivals(&mut self, end: u64) -> Result<()> {
        for i in 0..self.bg.len() {
            let Some(h) = self.bg[i].as_mut() else {
                continue;
            };
            let arrivals = h.arrivals(end);
            if arrivals.is_empty() {
                continue;
            }
            let host = crate::background::HOST;
            let taken = self.imps[i]
                .devices
                .host(host)
                .map_or(0, |x| x.stats.messages_in);
            for a in arrivals {
                // The opening NOP counts among the inputs taken.
                if h.queued(taken.saturating_sub(1)) >= u64::from(h.host_queue) {
                    h.counts.refused += 1;
                    continue;
                }
                let at = a.at_ns.max(self.imps[i].now_ns());
                let words = h.message(&a, self.plan.net.net.imps[a.dest], at)?;
                self.imps[i]
                    .host_send(host, words, at)
                    .map_err(|e| host_error(i, e))?;
                let handed = Handed::Background {
                    dest: a.dest,
                    inputs: 0,
                };
                self.handed.entry((i, host)).or_default().push_back(handed);
                self.bg_first_in
                    .entry((i, a.dest))
                    .or_default()
                    .push_back(None);
            }
        }
        Ok(())
    }

    /// The hosts of the pumps from IMP `i`, at its clock: probe, or hand over messages.
    fn host_act(&mut self, i: usize) -> Result<()> {
        let now = self.imps[i].now_ns();
        if self.ready.get(&(i, HOST)) != Some(&true) {
            return Ok(());
        }
        for k in 0..self.pumps.len() {
            if self.pumps[k].plan.src != i {
                continue;
            }
            let Some(zero) = self.zero_ns else {
                let dst_imp = self.plan.net.net.imps[self.pumps[k].plan.dst];
                let p = &mut self.pumps[k];
                if !p.up && p.last_probe.is_none_or(|t| now >= t + PROBE_EVERY_NS) {
                    p.last_probe = Some(now);
                    let to = Address::fake(dst_imp, FakeHost::Discard);
                    let mut words = Leader::new(Kind::Regular, to, PROBE_LINK)?
                        .encode()
                        .to_vec();
                    words.extend_from_slice(&[0o123456; 8]);
                    self.hand(i, HOST, Handed::Probe, words)?;
                }
                continue;
            };
            if now < zero.saturating_add(self.pumps[k].plan.start_ns) {
                continue;
            }
            loop {
                let p = &mut self.pumps[k];
                // K&O's pump: the next message once the IMP has taken its last one whole.
                let waiting = p.records.last().is_some_and(|r| r.accepted_ns.is_none());
                if p.plan.outstanding.is_none() && waiting {
                    break;
                }
                let Some((leader, text)) = p.pump.next_message(now) else {
                    break;
                };
                let index = p.records.len();
                p.records.push(ProgramMessage {
                    id: index as u64,
                    host: p.plan.src_host.clone(),
                    dst_host: p.plan.dst_host.clone(),
                    bits: p.plan.bits,
                    offered_ns: now,
                    ..ProgramMessage::default()
                });
                if !p.plan.fake {
                    p.undelivered.push_back(index);
                }
                let mut words = leader.encode().to_vec();
                words.extend_from_slice(&text);
                self.hand(
                    i,
                    HOST,
                    Handed::Message {
                        pump: k,
                        index,
                        inputs: 0,
                    },
                    words,
                )?;
            }
        }
        Ok(())
    }

    /// Whether the network is up: every host used is ready and every pump's probe answered.
    fn is_up(&self) -> bool {
        self.uses().iter().all(|k| self.ready.get(k) == Some(&true))
            && self.pumps.iter().all(|p| p.up)
            && self.mixed.as_ref().is_none_or(|m| m.pumps_up().is_none())
    }
}

/// A frame to deliver: arrival at the far end, the far IMP and modem, the words, its checksum.
type Frame = (u64, (usize, u8), Vec<u16>, bool);

/// Runs scenario `s` with every IMP on the emulator running `image`, from `seed`; `progress`
/// gets the fraction of the scenario's time done.
pub fn run_image(
    s: &ImpConfig,
    seed: u64,
    image: &Image,
    progress: &mut dyn FnMut(f64),
) -> Result<ProgramRun> {
    let (mut d, window, stepped) = Driver::new(s, plan(s, seed)?, image, seed)?;
    let duration = s.duration.as_nanos();
    let mut t = 0u64;
    let mut shown = 0u64;
    loop {
        if d.up_ns.is_none() {
            d.come_up(t)?;
        }
        if let Some(z) = d.zero_ns {
            if t >= z.saturating_add(duration) {
                break;
            }
            let done = (t.saturating_sub(z)) * 100 / duration.max(1);
            if done > shown {
                shown = done;
                progress(done as f64 / 100.0);
            }
        }
        d.window(t + window, &stepped)?;
        t += window;
    }
    progress(1.0);
    Ok(finish(s, d, duration))
}

impl Driver {
    /// The IMPs loaded with `image`, their lines, the pumps; the lockstep window and the
    /// IMPs that run it in the hosts' steps.
    fn new(
        s: &ImpConfig,
        plan: Plan,
        image: &Image,
        seed: u64,
    ) -> Result<(Driver, u64, Vec<usize>)> {
        let net = &plan.net.net;
        crate::emulate::check_network(net)?;
        let on =
            crate::emulate::power_on_instants(&net.imps, plan.power_on, plan.settings.rtc_us, seed);
        let imps: Vec<Imp> = (0..net.imps.len())
            .map(|i| {
                let mut c = crate::emulate::imp_config(net, &plan.settings, i);
                if plan
                    .background
                    .as_ref()
                    .is_some_and(|l| l.sites.iter().any(|x| x.0 == i))
                {
                    c.hosts[usize::from(crate::background::HOST) - 1] =
                        Some(plan.settings.host_bps);
                }
                let mut imp = Imp::new(&c);
                imp.load(image);
                imp.power_on_at(on[i]);
                if let Some((_, w)) = plan.watch.as_ref().filter(|w| w.0 == i) {
                    imp.set_watch(w.at(), w.peek());
                }
                imp
            })
            .collect();
        // Line j of the network is the topology's links 2j (a→b) and 2j+1 (b→a).
        // A line to a modelled IMP is the modelled side's (`crate::mixed`).
        let mut hops = BTreeMap::new();
        for (j, l) in net.lines.iter().enumerate() {
            let prop_ns = l.prop_ns.unwrap_or(plan.settings.prop_ns);
            let hop = |link, to| Hop { link, to, prop_ns };
            if !plan.modelled[l.b.0] {
                hops.insert(l.a, hop(2 * j, l.b));
            }
            if !plan.modelled[l.a.0] {
                hops.insert(l.b, hop(2 * j + 1, l.a));
            }
        }
        let streams = nmc_sim::RngStreams::new(seed);
        let mixed = if plan.modelled.contains(&true) {
            let line_errors = |l: usize| streams.stream(nmc_imp::model::line_stream(l));
            Some(crate::mixed::Mixed::new(
                s,
                &plan.net,
                plan.modelled.clone(),
                &plan.settings,
                seed,
                &line_errors,
                plan.ber,
            )?)
        } else {
            None
        };
        let errors = (0..2 * net.lines.len())
            .map(|l| streams.stream(nmc_imp::model::line_stream(l)))
            .collect();
        let window = net
            .lines
            .iter()
            .map(|l| {
                let bps = u64::from(l.bps.unwrap_or(plan.settings.line_bps).max(1));
                (u64::from(plan.settings.framing_bits) * 1_000_000_000).div_ceil(bps)
                    + l.prop_ns.unwrap_or(plan.settings.prop_ns)
            })
            .min()
            .unwrap_or(1_000_000)
            / 2;
        if window < HOST_STEP_NS {
            bail!("lines this fast leave a window of {window} ns, under the host's step");
        }
        let pumps = plan
            .pumps
            .iter()
            .enumerate()
            .map(|(k, p)| Running::new(k, p, net.imps[p.dst]))
            .collect::<Result<Vec<_>>>()?;
        let mut stepped: Vec<usize> = plan.pumps.iter().map(|p| p.src).collect();
        stepped.sort_unstable();
        stepped.dedup();
        let n_imps = imps.len();
        let journeys = s
            .record
            .iter()
            .any(|r| r == "journeys")
            .then(|| crate::journeys::Journeys::new(&net.imps, &plan.net.names));
        let routing = s
            .record
            .iter()
            .any(|r| r == "routing")
            .then(|| crate::routes::RoutingMessages::new(&net.imps, &plan.net.names));
        let d = Driver {
            line_counts: vec![(0, 0, 0, 0); 2 * net.lines.len()],
            plan,
            imps,
            hops,
            errors,
            pumps,
            ready: BTreeMap::new(),
            handed: BTreeMap::new(),
            up_ns: None,
            zero_ns: None,
            bg: vec![None; n_imps],
            bg_delivered: 0,
            bg_first_in: BTreeMap::new(),
            bg_by_hops: BTreeMap::new(),
            delivered_real: 0,
            log: Vec::new(),
            mixed,
            journeys,
            routing,
        };
        Ok((d, window, stepped))
    }

    /// At `t` before the network is up: if it now is, time 0 is set and the background hosts
    /// start from it; past the timeout, the error names what is missing.
    fn come_up(&mut self, t: u64) -> Result<()> {
        if self.is_up() {
            self.up_ns = Some(t);
            let zero = t.saturating_add(self.plan.settle_ns);
            self.zero_ns = Some(zero);
            if let Some(m) = &mut self.mixed {
                // Time 0 is in a later window; the model's lines are counted from the first
                // window's end at or after it (`Driver::window`).
                m.zero_at = Some(zero);
            }
            if let Some(load) = &self.plan.background {
                let streams = nmc_sim::RngStreams::new(load.seed);
                let index = |y: u32| Some(y as usize);
                for (i, site) in &load.sites {
                    self.bg[*i] = BackgroundHost::new(site, &index, &streams, zero);
                }
            }
        } else if t > self.plan.up_timeout_ns {
            bail!(
                "the IMPs did not come up within {} s of power-on (network.program.up_timeout): {}",
                self.plan.up_timeout_ns / 1_000_000_000,
                not_up(self)
            );
        }
        Ok(())
    }

    /// Every IMP runs to `end` (those in `stepped` in the hosts' steps), then the frames they
    /// started reach the far ends.
    fn window(&mut self, end: u64, stepped: &[usize]) -> Result<()> {
        let mut frames: Vec<Frame> = Vec::new();
        self.background_arrivals(end)?;
        for i in 0..self.imps.len() {
            if self.plan.modelled[i] {
                continue;
            }
            if stepped.binary_search(&i).is_ok() {
                while self.imps[i].now_ns() < end {
                    self.host_act(i)?;
                    let step = (self.imps[i].now_ns() + HOST_STEP_NS).min(end);
                    let outs = self.run_imp(i, step)?;
                    self.record(i, outs, &mut frames)?;
                }
            } else {
                let outs = self.run_imp(i, end)?;
                self.record(i, outs, &mut frames)?;
            }
        }
        if let Some(m) = &mut self.mixed {
            for (arrive, to, words, ok, link, first, last) in m.run_to(end)? {
                if self.zero_ns.is_some_and(|z| first >= z) {
                    let c = &mut self.line_counts[link as usize];
                    c.0 += 1;
                    c.1 += words.len() as u64;
                    c.2 += u64::from(!ok);
                    c.3 += last - first;
                }
                frames.push((arrive, to, words, ok));
            }
        }
        frames.sort_by_key(|f| (f.0, f.1));
        for (arrive, (j, line), words, ok) in frames {
            self.imps[j]
                .deliver_frame(line, words, arrive, ok)
                .map_err(|e| host_error(j, e))?;
        }
        Ok(())
    }
}

impl Running {
    /// Pump `k` of the scenario, to IMP number `dst_imp`.
    fn new(k: usize, p: &PumpPlan, dst_imp: u8) -> Result<Running> {
        let (host, for_imp) = if p.fake {
            (FakeHost::Discard as u8, true)
        } else {
            (HOST - 1, false)
        };
        let pump = Pump::new(PumpConfig {
            imp: dst_imp,
            host,
            for_imp,
            link: FIRST_PUMP_LINK + k as u8,
            outstanding: p.outstanding.map_or(usize::MAX, |n| n as usize),
            messages: p.count,
            text_words: p.bits.div_ceil(16) as usize,
        })?;
        Ok(Running {
            plan: p.clone(),
            pump,
            up: false,
            last_probe: None,
            records: Vec::new(),
            undelivered: VecDeque::new(),
        })
    }
}

/// Why the network is not up, for the error: the first host not ready or pump not answered.
fn not_up(d: &Driver) -> String {
    let names = &d.plan.net.names;
    if let Some((i, h)) = d.uses().into_iter().find(|k| d.ready.get(k) != Some(&true)) {
        return format!("{}'s host interface {h} never made ready", names[i]);
    }
    match d.pumps.iter().find(|p| !p.up) {
        Some(p) => format!(
            "no probe from {} answered by {}",
            names[p.plan.src], names[p.plan.dst]
        ),
        None => match d.mixed.as_ref().and_then(|m| m.pumps_up()) {
            Some((a, b)) => format!(
                "no way from {} to {} across the emulated IMPs (the modelled side's pump)",
                names[a], names[b]
            ),
            None => "every host ready".into(),
        },
    }
}

/// Runs scenario `s` (with `[network.program]`) from `seed`: reads the program, then
/// [`run_image`].
pub fn run(s: &ImpConfig, seed: u64, progress: &mut dyn FnMut(f64)) -> Result<ProgramRun> {
    let path = program_file(s)?;
    let bytes = std::fs::read(&path)
        .with_context(|| format!("cannot read the IMP program {}", path.display()))?;
    let image = crate::emulate::read_program(&path)?;
    let mut r = run_image(s, seed, &image, progress)?;
    r.program = (path, crate::build::sha256_hex(&bytes));
    Ok(r)
}

fn finish(s: &ImpConfig, mut d: Driver, duration: u64) -> ProgramRun {
    let zero = d.zero_ns.unwrap_or(0);
    let mut messages = Vec::new();
    let mut first = Vec::new();
    let (mut offered, mut answered, mut in_flight, mut fake_answered) = (0, 0, 0, 0);
    // The model's pumps' messages (hosts on modelled IMPs), answered ones, by host then order
    // offered; the first pump's are the metrics' when the scenario's first pump is one.
    let mut model: Vec<ProgramMessage> = d
        .mixed
        .as_mut()
        .map(|m| m.take_messages())
        .unwrap_or_default()
        .iter()
        .map(|r| {
            ProgramMessage {
                id: r.id,
                host: r.host.clone(),
                dst_host: r.dst_host().to_string(),
                bits: r.bits,
                offered_ns: r.offered_ns,
                first_in_ns: r.first_in_ns,
                accepted_ns: r.accepted_ns,
                delivered_ns: r.delivered_ns,
                rfnm_ns: r.rfnm_ns,
                reply: "rfnm",
            }
            .shifted(zero)
        })
        .collect();
    model.sort_by(|a, b| (&a.host, a.offered_ns, a.id).cmp(&(&b.host, b.offered_ns, b.id)));
    let first_model = s.traffic.iter().find_map(|t| match t {
        TrafficSpec::Pump { from, .. } if d.plan.model_pumps.1 => Some(from.clone()),
        _ => None,
    });
    for (k, p) in d.pumps.iter().enumerate() {
        for r in &p.records {
            let r = r.shifted(zero);
            offered += 1;
            if r.rfnm_ns.is_some() {
                answered += 1;
                fake_answered += u64::from(p.plan.fake);
            }
            // In the subnet, as the model counts it: not yet delivered (a fake host's arrival
            // is seen at its RFNM) and not given up ("dead", "incomplete").
            let arrived = if p.plan.fake {
                r.rfnm_ns
            } else {
                r.delivered_ns
            };
            let failed = matches!(r.reply, "dead" | "incomplete");
            in_flight += u64::from(arrived.is_none() && !failed);
            if k == 0 {
                first.push(r.record());
            }
            messages.push(r);
        }
    }
    for r in model {
        offered += 1;
        answered += 1;
        fake_answered += 1;
        if first_model.as_ref() == Some(&r.host) {
            first.push(r.record());
        }
        messages.push(r);
    }
    let mut bg = Counts::default();
    for h in d.bg.iter().flatten() {
        bg.add(&h.counts);
    }
    // The modelled IMPs' background hosts, as the model counts them (delivered: to the
    // model's hosts from the model's; the program's messages to them are not counted there).
    let model_bg = d.mixed.as_ref().map(|m| m.background_tally());
    if let Some([o, dl, _, r]) = model_bg {
        bg.sent += o;
        bg.offered += o + r;
        bg.refused += r;
        d.bg_delivered += dl;
    }
    // Not in `bg`, whose round trip is the emulated hosts' own.
    let model_answered = model_bg.map_or(0, |t| t[2]);
    // Every message, the background's too, as the model's `messages.*`.
    let tally = nmc_imp::analysis::ObservedTally {
        offered: offered + bg.sent,
        // A fake host's messages are not seen arriving: counted at their RFNM.
        delivered: d.delivered_real + fake_answered + d.bg_delivered,
        answered: answered + bg.answered + model_answered,
        in_flight: in_flight + bg.sent.saturating_sub(d.bg_delivered + bg.failed),
    };
    let hops = d.pumps.first().and_then(|p| {
        let topo = &d.plan.net.topology;
        topo.hops(p.plan.src as u32, p.plan.dst as u32)
    });
    let m = nmc_imp::analysis::observed_metrics(
        &first,
        s.network.measure_from,
        s.duration,
        tally,
        hops,
    );
    let mut metrics = m.to_map();
    // Figures of the model's inside that hosts do not see: its events (the program's work is
    // `program.instructions`), its single packets' copies sent again, the order of delivery to
    // fake hosts.
    for k in ["events", "messages.retransmissions", "order_violations"] {
        metrics.remove(k);
    }
    if d.bg.iter().any(Option::is_some) || model_bg.is_some_and(|t| t[0] + t[3] > 0) {
        // The model's `background.offered` leaves the refused arrivals out.
        let offered = bg.offered.saturating_sub(bg.refused);
        metrics.insert("background.offered".into(), offered as f64);
        metrics.insert("background.delivered".into(), d.bg_delivered as f64);
        metrics.insert("background.refused".into(), bg.refused as f64);
        metrics.insert(
            "background.answered".into(),
            (bg.answered + model_answered) as f64,
        );
        // Not the model's `background.rtt_mean_ms` (from the host starting packet 1 into its
        // IMP, RFNMs only): from the hand-over to the interface, every reply.
        let rtt = bg.mean_rtt_ms();
        if rtt.is_finite() {
            metrics.insert("program.background_rtt_from_handover_ms".into(), rtt);
        }
        for (h, (n, sum)) in &d.bg_by_hops {
            let at = |k: &str| format!("background.rtt_by_hops.{h:02}.{k}");
            metrics.insert(at("messages"), *n as f64);
            metrics.insert(at("mean_ms"), *sum as f64 / *n as f64 / 1e6);
        }
    }
    let up = d.up_ns.unwrap_or(0);
    metrics.insert("program.up_s".into(), up as f64 / 1e9);
    metrics.insert(
        "program.instructions".into(),
        d.imps.iter().map(|i| i.cpu.instructions()).sum::<u64>() as f64,
    );
    let net = &d.plan.net;
    let mut lines = Vec::new();
    for (j, l) in net.net.lines.iter().enumerate() {
        for (k, (a, b)) in [(l.a.0, l.b.0), (l.b.0, l.a.0)].into_iter().enumerate() {
            let mut c = d.line_counts[2 * j + k];
            if let Some(m) = d
                .mixed
                .as_ref()
                .filter(|_| d.plan.modelled[a] && d.plan.modelled[b])
            {
                // A line of the model's own: its frames and time sending as the model counts
                // them; its words from that time, as the program's frames would take it (the
                // model's frames are the program's lengths: a full packet's 1008 + 168 bits are
                // 69 words and the 72 framing bits; a control frame's 152, 5 words).
                let (frames, busy) = m.line_use(2 * j + k);
                let bps = u128::from(l.bps.unwrap_or(d.plan.settings.line_bps));
                let bits = (u128::from(busy) * bps + 500_000_000) / 1_000_000_000;
                let framing = u128::from(d.plan.settings.framing_bits) * u128::from(frames);
                let words = (bits.saturating_sub(framing) + 8) / 16;
                c = (frames, words as u64, 0, busy);
            }
            lines.push(LineRow {
                from: net.names[a].clone(),
                to: net.names[b].clone(),
                capacity_bps: u64::from(l.bps.unwrap_or(d.plan.settings.line_bps)),
                propagation_ns: l.prop_ns.unwrap_or(d.plan.settings.prop_ns),
                frames: c.0,
                words: c.1,
                corrupted: c.2,
                utilisation: c.3 as f64 / duration.max(1) as f64,
            });
        }
    }
    let frames: u64 = lines.iter().map(|l| l.frames).sum();
    metrics.insert("program.frames".into(), frames as f64);
    metrics.insert(
        "program.frames_corrupted".into(),
        lines.iter().map(|l| l.corrupted).sum::<u64>() as f64,
    );
    let mut notes = vec![format!(
        "{}; the network was up {:.1} s after power-on, time 0 is {:.1} s after that (network.program.settle); the model's [network.params] other than default_imp and bit_error_rate, and network.routing, do not apply to the emulated IMPs (the program has its own)",
        if d.mixed.is_some() {
            "the IMPs named in network.program.imps ran the IMP program on the emulator"
        } else {
            "every IMP ran the IMP program on the emulator"
        },
        up as f64 / 1e9,
        d.plan.settle_ns as f64 / 1e9
    )];
    if d.plan.power_on == nmc_imp::spec::PowerOn::Apart {
        let on: Vec<(u64, &str)> = d
            .imps
            .iter()
            .zip(&net.names)
            .zip(&d.plan.modelled)
            .filter(|(_, m)| !**m)
            .map(|((imp, n), _)| (imp.on_ns(), n.as_str()))
            .collect();
        if let (Some(first), Some(last)) = (on.iter().min(), on.iter().max()) {
            notes.push(format!(
                "each IMP running the program was switched on at an instant of its own (network.program.power_on = \"apart\", drawn from the seed over one slow-tick cycle): {} first, at {:.3} s, {} last, at {:.3} s",
                first.1,
                first.0 as f64 / 1e9,
                last.1,
                last.0 as f64 / 1e9
            ));
        }
    }
    if let Some(m) = &d.mixed {
        let names: Vec<&str> = net
            .names
            .iter()
            .zip(&d.plan.modelled)
            .filter(|(_, m)| **m)
            .map(|(n, _)| n.as_str())
            .collect();
        let b = m.boundary_counts();
        notes.push(format!(
            "modelled beside them (nmc's model, profile {}, static routes): {}; across the lines between the two kinds (from power-on) {} packets out of the model and {} into it ({} refused, {} duplicates, sent again by the program), {} packets of the model's own dropped there; the program's reports to modelled IMPs: {} answered, {} not; {} packets for IMPs not in the network left; the lines came up {} times and were killed {} times",
            s.network.profile,
            names.join(", "),
            b.out,
            b.taken,
            b.refused,
            b.duplicates,
            b.dropped,
            m.counts.answered,
            m.counts.unanswered,
            m.counts.misaddressed,
            m.counts.ups,
            m.counts.downs
        ));
        let t = m.tr.counts;
        if b.native_out + b.native_in > 0 {
            notes.push(format!(
                "hosts on modelled IMPs: {} of the model's own packets left the model in the program's protocol ({} transmissions; {} messages waited for one of the program's four message numbers a pair, {} could not be said), {} of the program's entered it as the model's own, {} of the program's GVBs answered by the modelled IMP, {} of the model's messages answered \"destination dead\" (its host is not told)",
                b.native_out, t.out, t.waited, t.dropped, b.native_in, t.gvbs_answered, t.dead
            ));
        }
        metrics.insert("program.boundary.native_dead".into(), t.dead as f64);
        metrics.insert("program.boundary.native_out".into(), b.native_out as f64);
        metrics.insert("program.boundary.native_in".into(), b.native_in as f64);
        metrics.insert("program.modelled_imps".into(), names.len() as f64);
        metrics.insert("program.boundary.packets_out".into(), b.out as f64);
        metrics.insert("program.boundary.packets_in".into(), b.taken as f64);
        metrics.insert("program.boundary.refused".into(), b.refused as f64);
        metrics.insert("program.boundary.line_kills".into(), m.counts.downs as f64);
    }
    let watch = match &d.plan.watch {
        Some((i, _)) => {
            let i = *i;
            let name = &d.plan.net.names[i];
            let zero = d.zero_ns.unwrap_or(0) as i64;
            d.imps[i]
                .take_watched()
                .into_iter()
                .map(|w| WatchRow {
                    imp: name.clone(),
                    t_ns: w.t_ns as i64 - zero,
                    p: format!("{:o}", w.p),
                    a: format!("{:o}", w.a),
                    x: format!("{:o}", w.x),
                    peek: w
                        .peek
                        .iter()
                        .map(|v| format!("{v:o}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                })
                .collect()
        }
        None => Vec::new(),
    };
    let journeys = d.journeys.take().map(|j| {
        metrics.extend(j.metrics());
        j.records
    });
    ProgramRun {
        messages,
        metrics,
        lines,
        journeys: journeys.unwrap_or_default(),
        routing: d.routing.take().unwrap_or_default(),
        watch,
        program: (PathBuf::new(), String::new()),
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3-hop chain with `[network.program]`, a pump SRC → FAKE, and `extra` lines appended
    /// (TOML, after the pump).
    fn scenario(network: &str, extra: &str) -> Result<ImpConfig> {
        scenario_with(network, "", extra)
    }

    /// [`scenario`] with `program` lines appended to `[network.program]`.
    fn scenario_with(network: &str, program: &str, extra: &str) -> Result<ImpConfig> {
        let text = format!(
            r#"
name = "t"
seed = 1
duration = "10s"
model = "imp"
record = ["messages", "lines"]
[network]
profile = "v2-1974-10"
topology = {{ kind = "chain", hops = 3 }}
hosts = [{{ name = "SRC", imp = "IMP0" }}, {{ name = "FAKE", imp = "IMP3", fake = true }}{network}]
[network.program]
path = "/nowhere/impcode.cmd"
{program}
[[traffic]]
kind = "pump"
from = "SRC"
to = "FAKE"
{extra}
"#
        );
        let s: nmc_imp::scenario::ImpScenario =
            nmc_scenario::load("t.toml", &text, &[]).map_err(|e| anyhow::anyhow!("{e}"))?;
        nmc_imp::scenario::resolve(&s).map_err(|e| anyhow::anyhow!("{}", e.0))
    }

    /// The 3-hop chain with `network.program.power_on` set to `when` (TOML).
    fn powered(when: &str) -> Result<ImpConfig> {
        scenario_with("", &format!("power_on = {when}"), "")
    }

    fn refusal(network: &str, extra: &str) -> String {
        let s = scenario(network, extra).expect("the scenario itself is valid");
        let e = plan(&s, 1).err().expect("refused").to_string();
        assert!(!e.contains('\n'), "one line: {e}");
        e
    }

    #[test]
    fn packet_one_is_in_with_the_input_after_the_leaders() {
        // A single-packet message: the leader alone, then the text with its end.
        let mut m = Handed::Background { dest: 3, inputs: 0 };
        assert!(!m.input_taken(false), "the leader's input is not packet 1");
        assert!(m.input_taken(true));
        // A multi-packet message: packet 1 with the second input, not again later.
        let mut m = Handed::Message {
            pump: 0,
            index: 0,
            inputs: 0,
        };
        assert!(!m.input_taken(false));
        assert!(m.input_taken(false));
        assert!(!m.input_taken(false));
        assert!(!m.input_taken(true));
        // A leader-only message (no text) is in with its one input.
        let mut m = Handed::Background { dest: 1, inputs: 0 };
        assert!(m.input_taken(true));
        assert!(!Handed::Nop.input_taken(true));
    }

    #[test]
    fn the_scenarios_hosts_pumps_and_lines_become_the_programs() {
        let s = scenario("", "message = \"1000bit\"\noutstanding = 2").unwrap();
        let p = plan(&s, 1).unwrap();
        assert_eq!(p.net.names, ["IMP0", "IMP1", "IMP2", "IMP3"]);
        // IMP numbers skip the NCC's 5; the profile's default machine, a 316.
        assert_eq!(p.net.net.imps, [1, 2, 3, 4]);
        assert_eq!(p.net.net.machine(0, Machine::H516), Machine::H316);
        assert_eq!(p.real.keys().copied().collect::<Vec<_>>(), [0]);
        let pump = &p.pumps[0];
        assert_eq!((pump.src, pump.dst, pump.fake), (0, 3, true));
        assert_eq!((pump.bits, pump.outstanding), (1000, Some(2)));
        assert_eq!(p.settings.rtc_us, 100);
        assert_eq!(p.settings.host_bps, 100_000);
        // The chain's 2 ms a hop, each line on its own modem pair.
        assert!(p.net.net.lines.iter().all(|l| l.prop_ns == Some(2_000_000)));
        assert_eq!(p.net.net.lines_of(1), [1, 2]);
    }

    #[test]
    fn the_imps_are_switched_on_together_unless_the_scenario_says_apart() {
        use nmc_imp::spec::PowerOn;
        let s = scenario("", "").unwrap();
        assert_eq!(plan(&s, 1).unwrap().power_on, PowerOn::Together);
        let s = powered("\"apart\"").unwrap();
        assert_eq!(plan(&s, 1).unwrap().power_on, PowerOn::Apart);
        let e = powered("\"sometimes\"").err().unwrap().to_string();
        assert!(
            e.contains("power_on") && e.contains("together") && e.contains("apart"),
            "{e}"
        );
        let e = powered("640").err().unwrap().to_string();
        assert!(e.contains("power_on"), "{e}");
    }

    /// `network.program.watch`: an IMP that runs the program, octal addresses; anything else
    /// refused in one line naming the key.
    #[test]
    fn a_watch_names_an_imp_that_runs_the_program_and_octal_addresses() {
        let watched = |w: &str| scenario_with("", &format!("watch = {w}"), "");
        let s = watched(r#"{ imp = "IMP2", at = ["14310", "14341"], peek = ["537"] }"#).unwrap();
        let (i, w) = plan(&s, 1).unwrap().watch.expect("a watch");
        assert_eq!(
            (i, w.at(), w.peek()),
            (2, &[0o14310, 0o14341][..], &[0o537][..])
        );
        assert!(plan(&scenario("", "").unwrap(), 1).unwrap().watch.is_none());
        let one_line = |w: &str| {
            let e = match watched(w) {
                Ok(s) => plan(&s, 1).err().expect("refused").to_string(),
                Err(e) => e.to_string(),
            };
            assert!(!e.contains('\n') && e.contains("watch"), "{e}");
            e
        };
        let e = one_line(r#"{ imp = "IMP9", at = ["14310"] }"#);
        assert!(e.contains("IMP9"), "{e}");
        let e = one_line(r#"{ imp = "IMP2", at = ["14318"] }"#);
        assert!(e.contains("14318") && e.contains("octal"), "{e}");
        let e = one_line(r#"{ imp = "IMP2", at = ["1"], peek = ["x"] }"#);
        assert!(e.contains("peek"), "{e}");
        let e = one_line(r#"{ imp = "IMP2", at = ["100000"] }"#);
        assert!(e.contains("77777"), "{e}");
        let e = one_line(r#"{ imp = "IMP2", at = [] }"#);
        assert!(e.contains("watch.at"), "{e}");
        let many: Vec<String> = (0..65).map(|a| format!("\"{a:o}\"")).collect();
        let e = one_line(&format!(
            r#"{{ imp = "IMP2", at = [{}] }}"#,
            many.join(", ")
        ));
        assert!(e.contains("64"), "{e}");
        let e = one_line(r#"{ imp = "IMP2", at = ["1"], when = "now" }"#);
        assert!(e.contains("when"), "{e}");
        // A modelled IMP cannot be watched.
        let s = scenario_with(
            "",
            "imps = [\"IMP0\", \"IMP1\"]\nwatch = { imp = \"IMP3\", at = [\"1\"] }",
            "",
        )
        .unwrap();
        let e = plan(&s, 1).err().expect("refused").to_string();
        assert!(e.contains("modelled"), "{e}");
    }

    #[test]
    fn what_the_program_cannot_run_is_refused_in_one_line() {
        let e = refusal(", { name = \"B\", imp = \"IMP0\" }", "");
        assert!(e.contains("interface 1, one an IMP"), "{e}");
        let e = refusal(
            "",
            "[[traffic]]\nkind = \"generator\"\nimp = \"IMP1\"\nto = \"FAKE\"",
        );
        assert!(e.contains("generator"), "{e}");
        let e = refusal("", "message = \"9000bit\"");
        assert!(e.contains("8063"), "{e}");
        let e = refusal(
            "",
            "[[traffic]]\nkind = \"background\"\nmessages_per_second = 1.0\nsingle_packet_fraction = 0.9\nsingle_mean = \"250bit\"\nmulti_mean = \"3000bit\"\n[[traffic]]\nkind = \"background\"\nmessages_per_second = 1.0\nsingle_packet_fraction = 0.9\nsingle_mean = \"250bit\"\nmulti_mean = \"3000bit\"",
        );
        assert!(e.contains("a second background"), "{e}");
        let mut s = scenario("", "").unwrap();
        s.network.measure_from = s.duration;
        let e = plan(&s, 1).err().unwrap().to_string();
        assert!(e.contains("measure_from"), "{e}");
        let e = refusal("", "outstanding = 0");
        assert!(e.contains("1 to 64"), "{e}");
        let e = refusal("", "outstanding = 4294967295");
        assert!(e.contains("1 to 64"), "{e}");
    }

    #[test]
    fn a_partial_list_of_emulated_imps_models_the_rest_and_refuses_their_hosts() {
        let mut s = scenario("", "").unwrap();
        let imps = |s: &mut ImpConfig, v: &[&str]| {
            s.network.program.as_mut().unwrap().imps = v.iter().map(|x| x.to_string()).collect();
        };
        imps(&mut s, &["IMP0", "IMP3"]);
        let p = plan(&s, 1).expect("the two in the middle are modelled");
        assert_eq!(p.modelled, [false, true, true, false]);
        imps(&mut s, &["IMP0", "IMP1", "IMP2", "IMP3"]);
        assert_eq!(
            plan(&s, 1).unwrap().modelled,
            [false; 4],
            "every IMP named is all"
        );
        imps(&mut s, &[]);
        assert_eq!(
            plan(&s, 1).unwrap().modelled,
            [false; 4],
            "none named is all"
        );
        imps(&mut s, &["IMP0", "IMP9"]);
        let e = plan(&s, 1).err().unwrap().to_string();
        assert!(e.contains("IMP9 is not an IMP"), "{e}");
        // The pump's destination on a modelled IMP: the model's host, its messages
        // translated; the source on a modelled IMP too: the model's pump.
        imps(&mut s, &["IMP0", "IMP1"]);
        let p = plan(&s, 1).expect("a host on a modelled IMP");
        assert_eq!((p.pumps.len(), p.model_pumps), (1, (0, false)));
        imps(&mut s, &["IMP1", "IMP2"]);
        let p = plan(&s, 1).expect("both ends modelled");
        assert_eq!((p.pumps.len(), p.model_pumps), (0, (1, true)));
        // From a modelled IMP's host to an emulated IMP's: the model's pump too.
        imps(&mut s, &["IMP1", "IMP2", "IMP3"]);
        let p = plan(&s, 1).expect("the source modelled");
        assert_eq!((p.pumps.len(), p.model_pumps), (0, (1, true)));
        let mut s = scenario(
            "",
            "[[traffic]]\nkind = \"background\"\nmessages_per_second = 1.0\nsingle_packet_fraction = 0.9\nsingle_mean = \"250bit\"\nmulti_mean = \"3000bit\"",
        )
        .unwrap();
        // A background site on a modelled IMP is the model's: the program's are the others.
        imps(&mut s, &["IMP0", "IMP3"]);
        let p = plan(&s, 1).expect("a background with modelled sites");
        let sites: Vec<usize> = p.background.unwrap().sites.iter().map(|x| x.0).collect();
        assert_eq!(sites, [0, 3]);
    }

    #[test]
    fn the_models_instruments_and_records_are_refused() {
        let mut s = scenario("", "").unwrap();
        s.record.push("occupancy".into());
        let e = plan(&s, 1).err().unwrap().to_string();
        assert!(e.contains("record = [\"occupancy\"]"), "{e}");
        let mut s = scenario("", "").unwrap();
        s.trace = true;
        let e = plan(&s, 1).err().unwrap().to_string();
        assert!(e.contains("trace = true"), "{e}");
        // Journeys and routing messages are read on the program's lines: every IMP must run it.
        for record in ["journeys", "routing"] {
            let mut s = scenario("", "").unwrap();
            s.record.push(record.into());
            plan(&s, 1).expect("with every IMP on the program");
            s.network.program.as_mut().unwrap().imps = vec!["IMP0".into(), "IMP3".into()];
            let e = plan(&s, 1).err().unwrap().to_string();
            assert!(
                e.contains(record) && e.contains("network.program.imps") && !e.contains('\n'),
                "{e}"
            );
        }
        let mut s = scenario("", "").unwrap();
        s.network.vdh = vec!["IMP1".into()];
        let e = plan(&s, 1).err().unwrap().to_string();
        assert!(e.starts_with("network.vdh"), "{e}");
    }

    #[test]
    fn a_missing_program_file_is_one_line_naming_it() {
        let s = scenario("", "").unwrap();
        let e = check(&s, 1).err().unwrap().to_string();
        assert!(
            e.contains("/nowhere/impcode.cmd") && !e.contains('\n'),
            "{e}"
        );
    }
}
