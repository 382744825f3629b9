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

use anyhow::{Result, bail};
use nmc_imp::params::ImpModel;
use nmc_imp::scenario::ImpScenario;
use nmc_imp::topology::Topology;

use crate::emulate::{MAX_IMP_NUMBER, MAX_MODEMS};
use crate::run::{Line, Machine, Network};

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
    let n = topology.names.len();
    let Some(src) = topology.index(source) else {
        bail!("{origin}: no site named {source}");
    };
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
        s.network
            .imp_models
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
