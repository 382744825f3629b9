//! An ARPANET map's IMPs and lines as a [`Network`] of emulated IMPs (issue 73 §4–5): the
//! topology of an nmc scenario (`network.topology`, built by `nmc_imp::topology::Topology`,
//! the same code that builds the model's network), with each line's own speed and propagation
//! delay and each IMP's machine from the scenario's `network.imp_models`.
//!
//! ## Rules (program 3050's limits, and what the map does not say)
//! * **IMP numbers.** The map's sites in the topology's order get numbers 1, 2, 3, … skipping
//!   [`NCC_IMP`] (5): program 3050 sends every IMP's status reports to host 1 of IMP 5, the
//!   NCC, whenever an IMP 5 is up (`BBNIMP`, listing p. 9), and no NCC host is modelled; as in
//!   the SIMH chain runs (IMPs 11–20), no IMP reports. The program's tables hold 64 IMPs
//!   ([`crate::emulate::MAX_IMP_NUMBER`]), so a map of more than 62 sites is refused.
//! * **Modems.** An IMP's lines in the topology's order are its modems 1, 2, …; 3050 drives
//!   five ([`crate::emulate::MAX_MODEMS`]). A site with more lines is refused with its name: no
//!   rule could choose which of its lines to leave out without changing the map. On the June
//!   1974 map the most is AMES's five (two of them parallel lines to SRI).
//! * **Machines.** A site listed under `network.imp_models."316"` is a 316, every other
//!   `network.params.default_imp`; each runs the IMP program 3050 (a TIP's own code is not in
//!   SIMH's `impcode.cmd`, so a TIP site is emulated as an IMP on a 316).
//! * **Hosts.** Every IMP has host interface 1 fitted (as in the chain runs); only the source
//!   IMP's host is driven.

use anyhow::{Context, Result, bail};
use nmc_imp::params::ImpModel;
use nmc_imp::scenario::ImpScenario;
use nmc_imp::topology::Topology;

use crate::emulate::{MAX_IMP_NUMBER, MAX_MODEMS};
use crate::run::{Experiment, Line, Machine, Network, Settings};

/// `scenarios/ko-v2-map.toml`, compiled in: K&O's October 1974 experiment on the June 1974
/// logical map (42 sites, 47 circuits; the map records no speeds: 50 kbit/s, three overridden).
pub const KO_MAP: &str = include_str!("../../../scenarios/ko-v2-map.toml");

/// The NCC's IMP, where program 3050 sends every IMP's status reports: `BBNIMP=5`, "ARPA NCC
/// IMP" (listing p. 9; 1 in the DCA version). Left unused by [`from_scenario`].
pub const NCC_IMP: u8 = 5;

/// The IMP model where a scenario says none: nmc-imp's (`ImpParams::default_imp`, the 316:
/// "every TIP was one", RFC 395).
pub const DEFAULT_IMP: ImpModel = ImpModel::H316;

/// K&O's source site (K&O 1977 §IV: the measurements were made from UCLA).
pub const KO_SOURCE: &str = "UCLA";

/// The fake-host sites 1 … 9 hops from UCLA that `nmc reproduce ko-v2-throughput` pumps to
/// (`nmc-experiments`, `experiments/ko_sites.rs`, `KO_MAP_DESTINATIONS`: K&O do not name
/// theirs). The same list, by hop count; a test here checks each is at its distance.
pub const KO_DESTINATIONS: [&str; 9] = [
    "SDC", "RAND", "USC-ISI", "STANFORD", "SRI", "MOFFETT", "LBL", "UTAH", "BBN",
];

/// A map as emulated IMPs: the network (index 0 the source), each index's site name, and
/// the model's topology it came from (for hop counts).
pub struct MapNetwork {
    /// IMPs (numbers), lines (modems, speeds, delays) and machines.
    pub net: Network,
    /// Site names by index.
    pub names: Vec<String>,
    /// The topology, as nmc's model builds it.
    pub topology: Topology,
    /// Topology index of each network index.
    topo_index: Vec<u32>,
}

impl MapNetwork {
    /// The network index of site `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Minimum hops between two network indices along the model's static shortest routes.
    pub fn hops(&self, from: usize, to: usize) -> Option<u32> {
        self.topology
            .hops(self.topo_index[from], self.topo_index[to])
    }
}

/// The background load of scenario `text` (named `origin` in errors) on `m`, its level times
/// `level` (1: the scenario's; 0: none, `None`), from `seed` (the scenario's when `None`):
/// every `kind = "background"` entry's hosts, planned as the model plans them
/// ([`nmc_imp::run::background_sites`]). The first experiment waits `settle_ns` after the load
/// starts.
pub fn background_load(
    origin: &str,
    text: &str,
    m: &MapNetwork,
    level: f64,
    seed: Option<u64>,
    settle_ns: u64,
) -> Result<Option<crate::emulate::Load>> {
    if !(level.is_finite() && level >= 0.0) {
        bail!("--load {level}: a level is a factor of the scenario's load, 0 or more");
    }
    if level == 0.0 {
        return Ok(None);
    }
    let s: ImpScenario =
        nmc_scenario::load(origin, text, &[]).map_err(|e| anyhow::anyhow!("{e}"))?;
    let params = nmc_imp::scenario::resolve_params(&s.network.profile, &s.network.params)
        .map_err(|e| anyhow::anyhow!("{origin}: {}", e.0))?;
    let mut net_index = vec![0usize; m.topo_index.len()];
    for (i, &k) in m.topo_index.iter().enumerate() {
        net_index[k as usize] = i;
    }
    let mut sites = Vec::new();
    for (i, t) in s.traffic.iter().enumerate() {
        if let nmc_imp::spec::TrafficSpec::Background(b) = t {
            let mut b = b.clone();
            b.messages_per_second *= level;
            for site in nmc_imp::run::background_sites(&m.topology, &params, i, &b)
                .map_err(|e| anyhow::anyhow!("{origin}: {}", e.0))?
            {
                sites.push((net_index[site.imp as usize], site));
            }
        }
    }
    if sites.is_empty() {
        return Ok(None);
    }
    if sites
        .iter()
        .any(|(i, _)| sites.iter().filter(|(j, _)| j == i).count() > 1)
    {
        bail!(
            "{origin}: two background entries on one IMP; the emulated IMPs have one background host each"
        );
    }
    Ok(Some(crate::emulate::Load {
        sites,
        net_index,
        seed: seed.or(s.seed).unwrap_or(1),
        settle_ns,
    }))
}

/// The IMP number of topology index `k` ([`NCC_IMP`] skipped).
pub fn imp_number(k: usize) -> Option<u8> {
    let n = k + 1;
    let n = if n >= usize::from(NCC_IMP) { n + 1 } else { n };
    u8::try_from(n).ok().filter(|&n| n <= MAX_IMP_NUMBER)
}

/// The scenario `text` (named `origin` in errors) as emulated IMPs, `source` at index 0.
pub fn from_scenario(origin: &str, text: &str, source: &str) -> Result<MapNetwork> {
    let s: ImpScenario =
        nmc_scenario::load(origin, text, &[]).map_err(|e| anyhow::anyhow!("{e}"))?;
    let topology =
        Topology::build(&s.network.topology).map_err(|e| anyhow::anyhow!("{origin}: {e}"))?;
    // Checked as the model checks it; `default_imp` read from the table as written (the
    // resolved parameters keep it to their crate), the model's own default where absent.
    nmc_imp::scenario::resolve_params(&s.network.profile, &s.network.params)
        .map_err(|e| anyhow::anyhow!("{origin}: {}", e.0))?;
    let default_imp: ImpModel = match s.network.params.get("default_imp") {
        Some(v) => serde_json::to_value(v)
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
            .ok_or_else(|| anyhow::anyhow!("{origin}: network.params.default_imp: {v}"))?,
        None => DEFAULT_IMP,
    };
    let Some(src) = topology.index(source) else {
        bail!("{origin}: no site named {source}");
    };
    network_of(
        origin,
        topology,
        &s.network.imp_models,
        default_imp,
        Some(src),
    )
}

/// `topology` as emulated IMPs (the rules above), `first` at network index 0 and the rest in
/// the topology's order; each IMP's machine from `imp_models`, else `default_imp`.
pub fn network_of(
    origin: &str,
    topology: Topology,
    imp_models: &std::collections::BTreeMap<ImpModel, Vec<String>>,
    default_imp: ImpModel,
    first: Option<u32>,
) -> Result<MapNetwork> {
    let n = topology.names.len();
    let src = first.unwrap_or(0);
    // Network index order: the source first, then the topology's order.
    let order: Vec<u32> = std::iter::once(src)
        .chain((0..n as u32).filter(|&k| k != src))
        .collect();
    let mut at = vec![0usize; n];
    for (i, &k) in order.iter().enumerate() {
        at[k as usize] = i;
    }
    let mut imps = Vec::with_capacity(n);
    for &k in &order {
        let Some(number) = imp_number(k as usize) else {
            bail!(
                "{origin}: {n} sites; program 3050 numbers IMPs 1 to {MAX_IMP_NUMBER} and {NCC_IMP} is left to the NCC"
            );
        };
        imps.push(number);
    }
    let model_of = |name: &str| {
        imp_models
            .iter()
            .find(|(_, sites)| sites.iter().any(|x| x == name))
            .map_or(default_imp, |(m, _)| *m)
    };
    let machines = order
        .iter()
        .map(|&k| match model_of(&topology.names[k as usize]) {
            ImpModel::H316 => Machine::H316,
            ImpModel::H516 => Machine::H516,
        })
        .collect();
    // Line j is links 2j (a→b) and 2j+1 (b→a).
    let mut next_modem = vec![1u8; n];
    let mut lines = Vec::with_capacity(topology.links.len() / 2);
    for pair in topology.links.chunks_exact(2) {
        let (ab, ba) = (&pair[0], &pair[1]);
        let (a, b) = (ba.to as usize, ab.to as usize);
        let mut end = |k: usize| -> Result<(usize, u8)> {
            let m = next_modem[k];
            if m > MAX_MODEMS {
                let lines = topology.links.iter().filter(|l| l.to as usize == k).count();
                bail!(
                    "{origin}: {} has {lines} lines; program 3050 drives at most {MAX_MODEMS} modems",
                    topology.names[k]
                );
            }
            next_modem[k] += 1;
            Ok((at[k], m))
        };
        let (ea, eb) = (end(a)?, end(b)?);
        let bps = u32::try_from(ab.capacity.bps())
            .map_err(|_| anyhow::anyhow!("{origin}: a line of {} bit/s", ab.capacity.bps()))?;
        lines.push(Line {
            a: ea,
            b: eb,
            bps: Some(bps),
            prop_ns: Some(ab.propagation.as_nanos()),
        });
    }
    let net = Network {
        imps,
        lines,
        machines,
    };
    crate::emulate::check_network(&net).map_err(|e| anyhow::anyhow!("{origin}: {e}"))?;
    let names = order
        .iter()
        .map(|&k| topology.names[k as usize].clone())
        .collect();
    Ok(MapNetwork {
        net,
        names,
        topology,
        topo_index: order,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_skip_the_ncc_and_stop_at_63() {
        let v: Vec<Option<u8>> = (0..6).map(imp_number).collect();
        assert_eq!(v, [1, 2, 3, 4, 6, 7].map(Some));
        assert_eq!(imp_number(61), Some(63));
        assert_eq!(imp_number(62), None);
    }

    #[test]
    fn the_1974_map_fits_the_program_with_ucla_first() {
        let m = from_scenario("ko-v2-map.toml", KO_MAP, KO_SOURCE).unwrap();
        assert_eq!(m.names[0], "UCLA");
        assert_eq!(m.net.imps.len(), 42);
        assert_eq!(m.net.lines.len(), 47);
        assert!(!m.net.imps.contains(&NCC_IMP));
        // AMES: five lines, modems 1-5, the most any site has.
        let ames = m.index("AMES").unwrap();
        assert_eq!(m.net.lines_of(ames), vec![1, 2, 3, 4, 5]);
        assert!((0..42).all(|i| m.net.lines_of(i).len() <= 5));
        // The scenario's overrides: two 9.6 kbit/s circuits, the Hawaii satellite's 270 ms.
        let slow = m.net.lines.iter().filter(|l| l.bps == Some(9_600)).count();
        assert_eq!(slow, 2);
        let hawaii = m.index("HAWAII").unwrap();
        let l = m
            .net
            .lines
            .iter()
            .find(|l| l.a.0 == hawaii || l.b.0 == hawaii)
            .unwrap();
        assert_eq!(l.prop_ns, Some(270_000_000));
        // TIPs are 316s, the rest 516s.
        assert_eq!(
            m.net.machine(m.index("USC-ISI").unwrap(), Machine::H516),
            Machine::H316
        );
        assert_eq!(m.net.machine(0, Machine::H316), Machine::H516);
    }

    #[test]
    fn ko_destinations_are_at_their_hop_counts() {
        let m = from_scenario("ko-v2-map.toml", KO_MAP, KO_SOURCE).unwrap();
        for (h, site) in KO_DESTINATIONS.iter().enumerate() {
            assert_eq!(
                m.hops(0, m.index(site).unwrap()),
                Some(h as u32 + 1),
                "{site}"
            );
        }
    }

    #[test]
    fn an_unknown_source_is_one_line() {
        let e = from_scenario("ko-v2-map.toml", KO_MAP, "NOWHERE")
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("no site named NOWHERE") && !e.contains('\n'),
            "{e}"
        );
    }
}

/// What `nmc oracle emulate-map` was asked for (its arguments, resolved).
pub struct MapArgs {
    /// The program's deposit file, or `NMC_IMP_PROGRAM`.
    pub program: Option<std::path::PathBuf>,
    /// Hop counts, each to its [`KO_DESTINATIONS`] site.
    pub hops: Vec<usize>,
    /// Messages outstanding at most.
    pub outstanding: usize,
    /// Messages a destination, warm-up included.
    pub messages: u64,
    /// Messages not measured.
    pub warmup: u64,
    /// Text words a message.
    pub text_words: usize,
    /// Diagnosis: every IMP this machine instead of the scenario's.
    pub machine: Option<Machine>,
    /// Diagnosis: no propagation delay on any line.
    pub no_propagation: bool,
    /// The scenario's background load times this (0: none).
    pub load: f64,
    /// The background hosts' seed (the scenario's when `None`); also the power-on instants'.
    pub seed: Option<u64>,
    /// When each IMP is switched on.
    pub power_on: nmc_imp::spec::PowerOn,
    /// Load alone before the first experiment, ns.
    pub settle_ns: u64,
    /// The recorded data (`ko-chain.csv`).
    pub data: std::path::PathBuf,
    /// Output folder.
    pub out: Option<std::path::PathBuf>,
}

/// K&O's pump to the site `hops` away on the map, as one experiment of a replay.
pub fn ko_experiments(m: &MapNetwork, a: &MapArgs) -> Result<Vec<Experiment>> {
    let mut v = Vec::new();
    for &h in &a.hops {
        let Some(site) = (1..=KO_DESTINATIONS.len())
            .contains(&h)
            .then(|| KO_DESTINATIONS[h - 1])
        else {
            bail!("--hops {h}: the map's destinations are 1 to 9 hops from UCLA");
        };
        let dest = m
            .index(site)
            .ok_or_else(|| anyhow::anyhow!("the map has no site {site}"))?;
        v.push(Experiment {
            name: format!("map-{}out-{h}hop-{site}", a.outstanding),
            dest,
            hops: h,
            outstanding: a.outstanding,
            messages: a.messages,
            warmup: a.warmup,
            text_words: a.text_words,
        });
    }
    Ok(v)
}

/// One hop count: the map's emulated IMPs beside SIMH's chains.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BesideRow {
    /// Hops from UCLA (minimum, on the map).
    pub hops: usize,
    /// The destination site and its IMP number on the emulated map.
    pub destination: String,
    /// Its machine.
    pub dest_machine: String,
    /// The map's throughput, kbit/s, and its 95 % half-width.
    pub map_kbps: f64,
    /// Its 95 % half-width.
    pub map_kbps_ci95: f64,
    /// The map's K&O round trip, ms.
    pub map_rtt_ms: f64,
    /// Its 95 % half-width.
    pub map_rtt_ci95: f64,
    /// The source IMP's message packets on each of its modems 1–3 (which way it routed).
    pub source_lines: String,
    /// Line transmissions of the pump's message packets, every IMP, per transmission by the
    /// source IMP ([`hops_per_packet`]): the minimum hops if every packet took a shortest path.
    pub hops_per_packet: f64,
    /// SIMH's 516 chain at this hop count with the same window and message: mean of the
    /// accepted rows' throughputs (NaN: none).
    pub simh_516_kbps: f64,
    /// Their K&O round trip, ms.
    pub simh_516_rtt_ms: f64,
    /// How many accepted rows.
    pub simh_516_rows: usize,
    /// SIMH's 316 chain, the same.
    pub simh_316_kbps: f64,
    /// Their K&O round trip, ms.
    pub simh_316_rtt_ms: f64,
    /// How many accepted rows.
    pub simh_316_rows: usize,
    /// Every message answered by a RFNM and matched in the trace.
    pub clean: bool,
}

/// Message packets from IMP `src` to IMP `dst` put on a line by any IMP between `span.0` and
/// `span.1` (`MITX` of a packet longer than a control packet's 5 words, 3050's header read by
/// `crate::trace::Frame`), per such packet the source IMP put on a line: the mean path length
/// the program's routing gave them (retransmissions on a hop count at that hop, as at the
/// source). NaN if the source sent none.
pub fn hops_per_packet(
    traces: &[crate::trace::Trace],
    source: usize,
    span: (u64, u64),
    src: u8,
    dst: u8,
) -> f64 {
    use crate::trace::Frame;
    let count = |t: &crate::trace::Trace| {
        t.events
            .iter()
            .filter(|e| e.t_ns >= span.0 && e.t_ns <= span.1 && e.what == "MITX" && e.words > 5)
            .filter(|e| {
                matches!(Frame::decode(&e.head), Frame::Packet(h)
                    if h.source_imp == src && h.dest_imp == dst && !h.reqall_or_rfnm && !h.gvb_or_alloc)
            })
            .count()
    };
    let all: usize = traces.iter().map(count).sum();
    let first = count(&traces[source]);
    if first == 0 {
        f64::NAN
    } else {
        all as f64 / first as f64
    }
}

/// Background messages by minimum hops from source to destination: how many were answered,
/// and their mean round trip from the first word into the source IMP to the reply's first word
/// out to the host (the model's `background.rtt_by_hops` starts at packet 1 in the IMP and ends
/// at the RFNM at the host: within a packet's input time of this). Read from every IMP's
/// host-2 trace: inputs and replies paired in order per destination.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct HopsRtt {
    /// Minimum hops.
    pub hops: u32,
    /// Messages answered (RFNM or another reply).
    pub messages: u64,
    /// Mean round trip, ms.
    pub mean_ms: f64,
}

/// Background messages from one site, or to one: as [`HopsRtt`], by site.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SiteRtt {
    /// The site.
    pub site: String,
    /// Its machine.
    pub machine: String,
    /// Messages it sent that were answered, and their mean round trip, ms.
    pub sent: u64,
    /// Their mean round trip, ms.
    pub sent_mean_ms: f64,
    /// Messages to it that were answered, and their mean round trip, ms.
    pub received: u64,
    /// Their mean round trip, ms.
    pub received_mean_ms: f64,
}

/// The background's round trips ([`HopsRtt`]) by distance and by site, from the replay's
/// traces.
pub fn background_rtts(
    traces: &[crate::trace::Trace],
    m: &MapNetwork,
) -> (Vec<HopsRtt>, Vec<SiteRtt>) {
    use crate::leader::Kind;
    use std::collections::{BTreeMap, VecDeque};
    let mut by: BTreeMap<u32, (u64, u128)> = BTreeMap::new();
    let n = traces.len();
    let mut from = vec![(0u64, 0u128); n];
    let mut to = vec![(0u64, 0u128); n];
    for (i, t) in traces.iter().enumerate() {
        let (ins, outs) = crate::trace::host_messages(t, crate::background::HOST);
        let mut pending: BTreeMap<u8, VecDeque<u64>> = BTreeMap::new();
        // Inputs and replies in time order.
        let mut ev: Vec<(u64, bool, u8)> = ins
            .iter()
            .filter(|x| x.leader.kind == Kind::Regular)
            .map(|x| (x.start_ns, true, x.leader.imp))
            .chain(
                outs.iter()
                    .filter(|o| {
                        matches!(
                            o.leader.kind,
                            Kind::Rfnm | Kind::IncompleteTransmission | Kind::DestinationDead
                        )
                    })
                    .map(|o| (o.start_ns, false, o.leader.imp)),
            )
            .collect();
        ev.sort_by_key(|e| (e.0, !e.1));
        for (at, input, imp) in ev {
            if input {
                pending.entry(imp).or_default().push_back(at);
                continue;
            }
            let Some(sent) = pending.get_mut(&imp).and_then(VecDeque::pop_front) else {
                continue;
            };
            let Some(j) = m.net.imps.iter().position(|&n| n == imp) else {
                continue;
            };
            let Some(h) = m.hops(i, j) else { continue };
            let rtt = u128::from(at.saturating_sub(sent));
            for e in [by.entry(h).or_default(), &mut from[i], &mut to[j]] {
                e.0 += 1;
                e.1 += rtt;
            }
        }
    }
    let mean = |(k, sum): (u64, u128)| {
        if k == 0 {
            f64::NAN
        } else {
            sum as f64 / k as f64 / 1e6
        }
    };
    let hops = by
        .into_iter()
        .map(|(hops, x)| HopsRtt {
            hops,
            messages: x.0,
            mean_ms: mean(x),
        })
        .collect();
    let sites = (0..n.min(m.names.len()))
        .map(|i| SiteRtt {
            site: m.names[i].clone(),
            machine: format!("{:?}", m.net.machine(i, Machine::H516)),
            sent: from[i].0,
            sent_mean_ms: mean(from[i]),
            received: to[i].0,
            received_mean_ms: mean(to[i]),
        })
        .collect();
    (hops, sites)
}

/// The rows as a Markdown table.
pub fn beside_table(rows: &[BesideRow]) -> String {
    use std::fmt::Write as _;
    let mut s = String::from(
        "| hops | destination | map kbit/s | map K&O rtt ms | source packets on modems 1/2/3 | hops a packet | SIMH 516 chain kbit/s | rtt ms | SIMH 316 chain kbit/s | rtt ms |\n\
         | ---: | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} ({}) | {:.2} ± {:.2} | {:.1} ± {:.1} | {} | {:.2} | {:.2} | {:.1} | {:.2} | {:.1} |{}",
            r.hops,
            r.destination,
            r.dest_machine,
            r.map_kbps,
            r.map_kbps_ci95,
            r.map_rtt_ms,
            r.map_rtt_ci95,
            r.source_lines,
            r.hops_per_packet,
            r.simh_516_kbps,
            r.simh_516_rtt_ms,
            r.simh_316_kbps,
            r.simh_316_rtt_ms,
            if r.clean { "" } else { " not clean" }
        );
    }
    s
}

/// `nmc oracle emulate-map`: runs, prints the table, writes the files; `true` if every
/// experiment ran clean.
pub fn emulate_map_cmd(a: MapArgs) -> Result<bool> {
    use crate::emulate::{Options, replay_loaded};
    use std::fs;
    crate::analyze::check_pump(a.outstanding, Some(a.messages), a.warmup)?;
    let (program, image) = crate::emulate::load_program(a.program.as_deref())?;
    let recorded = crate::model::recorded(&a.data)?;
    let mut m = from_scenario("ko-v2-map.toml", KO_MAP, KO_SOURCE)?;
    if let Some(machine) = a.machine {
        m.net.machines = vec![machine; m.net.imps.len()];
    }
    if a.no_propagation {
        for l in &mut m.net.lines {
            l.prop_ns = Some(0);
        }
    }
    let experiments = ko_experiments(&m, &a)?;
    // The probe: the farthest destination asked for, as `nmc oracle chain` probes.
    let probe = experiments
        .iter()
        .max_by_key(|e| e.hops)
        .map(|e| e.dest)
        .ok_or_else(|| anyhow::anyhow!("no hop count to run"))?;
    let load = background_load("ko-v2-map.toml", KO_MAP, &m, a.load, a.seed, a.settle_ns)?;
    let s = Settings::default();
    let options = Options {
        power_on: a.power_on,
        power_on_seed: load.as_ref().map(|l| l.seed).or(a.seed).unwrap_or(1),
        ..Options::default()
    };
    let t0 = std::time::Instant::now();
    let r = replay_loaded(
        &image,
        &m.net,
        &s,
        &experiments,
        probe,
        options,
        load.as_ref(),
    )?;
    let (results, messages) = r.results(&s, true);
    eprintln!(
        "nmc oracle emulate-map: up at {:.1} s, {} experiments, {:.1} s simulated, {:.2e} instructions, {:.1} s wall",
        r.up_ns as f64 / 1e9,
        results.len(),
        r.host_runs.last().map_or(0, |h| h.span_ns.1) as f64 / 1e9,
        r.instructions as f64,
        t0.elapsed().as_secs_f64()
    );
    let (by_hops, by_site) = if load.is_some() {
        background_rtts(&r.traces, &m)
    } else {
        (Vec::new(), Vec::new())
    };
    print_background(&by_hops, &by_site, &r);
    let rows = beside_rows(&a, &m, &s, &r, &experiments, &results, &recorded);
    let table = beside_table(&rows);
    print!("{table}");
    if let Some(out) = &a.out {
        use crate::files::write_csv;
        fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
        write_csv(&out.join("beside.csv"), &rows)?;
        fs::write(out.join("beside.md"), &table)?;
        write_csv(&out.join("messages.csv"), &messages)?;
        fs::write(
            out.join("results.json"),
            serde_json::to_string_pretty(&results)?,
        )?;
        let counts: Vec<crate::emulate::CountsRow> = results
            .iter()
            .map(|x| crate::emulate::CountsRow::of("map", x))
            .collect();
        write_csv(&out.join("counts.csv"), &counts)?;
        fs::write(out.join("host.log"), r.log.join("\n") + "\n")?;
        let imps: Vec<serde_json::Value> = (0..m.net.imps.len())
            .map(|i| {
                serde_json::json!({
                    "site": m.names[i],
                    "imp": m.net.imps[i],
                    "machine": m.net.machine(i, s.machine),
                    "modems": m.net.lines_of(i),
                    "on_s": r.on_ns[i] as f64 / 1e9,
                })
            })
            .collect();
        let doc = serde_json::json!({
            "command": std::env::args().collect::<Vec<_>>(),
            "impcode_cmd_sha256": crate::build::sha256_file(&program)?,
            "scenario": if load.is_some() {
                "scenarios/ko-v2-map.toml (topology and background load; the pump as below)"
            } else {
                "scenarios/ko-v2-map.toml (topology only; no background load)"
            },
            "load": a.load,
            "seed": load.as_ref().map(|l| l.seed),
            "power_on": a.power_on,
            "power_on_seed": options.power_on_seed,
            "settle_s": a.settle_ns as f64 / 1e9,
            "background_by_experiment": r.background,
            "background_rtt_by_hops": by_hops,
            "background_rtt_by_site": by_site,
            "machine": a.machine,
            "no_propagation": a.no_propagation,
            "settings": s,
            "experiments": experiments,
            "up_s": r.up_ns as f64 / 1e9,
            "instructions": r.instructions,
            "imps": imps,
            "lines": m.net.lines,
        });
        fs::write(
            out.join("emulate-map.json"),
            serde_json::to_string_pretty(&doc)?,
        )?;
    }
    Ok(rows.iter().all(|r| r.clean))
}

/// The background's figures on stderr: its round trip by hops, the slowest senders, and its
/// messages' fates over the last experiment.
fn print_background(by_hops: &[HopsRtt], by_site: &[SiteRtt], r: &crate::emulate::Replay) {
    if !by_hops.is_empty() {
        let cells: Vec<String> = by_hops
            .iter()
            .map(|x| format!("{} {:.0} ({})", x.hops, x.mean_ms, x.messages))
            .collect();
        eprintln!(
            "background round trip by hops, ms (messages): {}",
            cells.join(", ")
        );
    }
    let mut slow: Vec<&SiteRtt> = by_site.iter().filter(|x| x.sent >= 20).collect();
    slow.sort_by(|a, b| b.sent_mean_ms.total_cmp(&a.sent_mean_ms));
    if !slow.is_empty() {
        let cells: Vec<String> = slow
            .iter()
            .take(6)
            .map(|x| format!("{} {:.0} ({})", x.site, x.sent_mean_ms, x.sent))
            .collect();
        eprintln!(
            "slowest background senders, ms (messages): {}",
            cells.join(", ")
        );
    }
    if let Some(c) = r.background.last() {
        eprintln!(
            "background: {} offered, {} refused, {} sent, {} delivered, {} answered by RFNM, {} otherwise; mean round trip {:.1} ms",
            c.offered,
            c.refused,
            c.sent,
            c.delivered,
            c.answered,
            c.failed,
            c.mean_rtt_ms()
        );
    }
}

/// One row per experiment: the emulated map's figures beside the recorded SIMH chains' at the
/// same hop count (516 and 316, `a`'s pump).
fn beside_rows(
    a: &MapArgs,
    m: &MapNetwork,
    s: &Settings,
    r: &crate::emulate::Replay,
    experiments: &[Experiment],
    results: &[crate::analyze::ExperimentResult],
    recorded: &[crate::model::Recorded],
) -> Vec<BesideRow> {
    let simh = |machine: &str, hops: usize| {
        let v: Vec<&crate::model::Recorded> = recorded
            .iter()
            .filter(|x| {
                x.machine == machine
                    && x.hops as usize == hops
                    && x.outstanding as usize == a.outstanding
                    && x.text_words == a.text_words
            })
            .collect();
        let mean = |f: fn(&crate::model::Recorded) -> f64| {
            v.iter().map(|x| f(x)).sum::<f64>() / v.len() as f64
        };
        (mean(|x| x.throughput_kbps), mean(|x| x.ko_rtt_ms), v.len())
    };
    let mut rows = Vec::new();
    for (e, x) in experiments.iter().zip(results) {
        let (k516, r516, n516) = simh("516", e.hops);
        let (k316, r316, n316) = simh("316", e.hops);
        let est = |e: Option<crate::stats::Estimate>| {
            e.map_or((f64::NAN, f64::NAN), |e| (e.mean, e.half_width))
        };
        let (kbps, kbps_hw) = est(x.throughput_kbps);
        let (rtt, rtt_hw) = est(x.ko_rtt_ms);
        let machine = match m.net.machine(e.dest, s.machine) {
            Machine::H516 => "516",
            Machine::H316 => "316",
        };
        let by = &x.source.packets_by_line;
        let span = r
            .host_runs
            .iter()
            .find(|h| h.experiment.name == e.name)
            .map_or((0, 0), |h| h.span_ns);
        let hops_per_packet =
            hops_per_packet(&r.traces, 0, span, m.net.imps[0], m.net.imps[e.dest]);
        rows.push(BesideRow {
            hops: e.hops,
            destination: format!("{} IMP {}", m.names[e.dest], m.net.imps[e.dest]),
            dest_machine: machine.to_string(),
            map_kbps: kbps,
            map_kbps_ci95: kbps_hw,
            map_rtt_ms: rtt,
            map_rtt_ci95: rtt_hw,
            source_lines: format!("{}/{}/{}", by[1], by[2], by[3]),
            hops_per_packet,
            simh_516_kbps: k516,
            simh_516_rtt_ms: r516,
            simh_516_rows: n516,
            simh_316_kbps: k316,
            simh_316_rtt_ms: r316,
            simh_316_rows: n316,
            clean: x.matching == "ok" && x.non_rfnm == 0 && !x.stalled,
        });
    }
    rows
}
