//! IMPs, lines and routes built from the topology spec.
//!
//! Each full-duplex line becomes two directed links; line `k` gives links `2k` (a→b) and
//! `2k+1` (b→a). Routes are static and shortest in hops (adaptive routing replaces them in
//! its own issue; the model only asks [`Routes::next_link`]). They are computed per
//! destination IMP the first time they are asked for, and kept (a breadth-first search over
//! the links into each IMP, [`nmc_net::topology::Adjacency`]; ties to the lowest-numbered
//! link): the state at set-up is O(N + E), and grows by N entries per destination in use.
//!
//! The `mesh` topology is generated ([`nmc_net::mesh::generate`]): IMPs `IMP0` … connected
//! at random, each with a number of lines in the `degree` range, from the topology's own
//! `seed`.
//!
//! The `map` topology reads `data/arpanet-maps/maps.json` (compiled in): sites are IMPs, each
//! listed circuit a 50 kbit/s line (the maps record no speeds), propagation from the sites'
//! great-circle distance. A site pair listed twice gives two parallel lines, as the file's
//! description says. Known exceptions are given as `overrides` in the scenario; two sites the
//! file places wrongly are corrected here (`SITE_CORRECTIONS`).

use crate::spec::{LineSpec, TopologySpec};
use nmc_net::topology::{Adjacency, NO_ROUTE};
use nmc_sim::{BitRate, SimDuration};
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};

/// The ARPANET logical maps (`data/arpanet-maps/maps.json`), compiled in.
pub const MAPS_JSON: &str = include_str!("../../../data/arpanet-maps/maps.json");

/// One direction of a line: from one IMP to the other, with its capacity and propagation delay.
#[derive(Clone, Debug)]
pub struct LinkDef {
    /// The IMP it leaves from.
    pub(crate) from: u32,
    /// The IMP at its far end.
    pub to: u32,
    /// Its capacity, bit/s.
    pub capacity: BitRate,
    /// Its propagation delay, each way.
    pub propagation: SimDuration,
}

/// The IMPs by name and the links between them, with static shortest-hop routes computed per
/// destination on first use.
pub struct Topology {
    /// The IMPs' names, by index.
    pub names: Vec<String>,
    /// The links (each line's two directions: `2k` a→b, `2k+1` b→a).
    pub links: Vec<LinkDef>,
    /// IMP index by name.
    by_name: HashMap<String, u32>,
    /// The links into each IMP.
    into: Adjacency,
    /// Per destination IMP: the link each IMP takes towards it, once asked for.
    routes: Vec<OnceCell<Box<[u32]>>>,
}

/// The most IMPs a network may have: 2^24, as the store-and-forward model's nodes
/// (`nmc_net::MAX_NODES`). IMP and host ids are 32-bit; the bound keeps the random-stream
/// namespaces apart (`crate::model::line_stream`) and a network's tables within memory.
pub(crate) const MAX_IMPS: usize = 1 << 24;

/// The routing decision the model needs.
pub trait Routes {
    /// The link to take from `imp` towards `dst`, if any.
    fn next_link(&self, imp: u32, dst: u32) -> Option<u32>;
}

impl Routes for Topology {
    fn next_link(&self, imp: u32, dst: u32) -> Option<u32> {
        let c = self.routes_to(dst)[imp as usize];
        (c != NO_ROUTE).then_some(c)
    }
}

impl Topology {
    /// Link `l`'s ends: the IMP it leaves from and the IMP at its far end.
    pub fn link_ends(&self, l: u32) -> Option<(u32, u32)> {
        self.links.get(l as usize).map(|d| (d.from, d.to))
    }

    /// The index of the IMP named `name`.
    pub fn index(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).copied()
    }

    /// Every IMP's link towards `dst` (`u32::MAX`: none), computed on first use.
    pub(crate) fn routes_to(&self, dst: u32) -> &[u32] {
        self.routes[dst as usize].get_or_init(|| {
            self.into
                .routes_to(dst as usize, |l| self.links[l as usize].from)
        })
    }

    #[cfg(test)]
    /// Destination IMPs whose routes have been computed so far.
    pub(crate) fn destinations_routed(&self) -> usize {
        self.routes.iter().filter(|r| r.get().is_some()).count()
    }

    /// Hops from `src` to `dst` along the static routes (`None`: no route, or a loop).
    pub fn hops(&self, src: u32, dst: u32) -> Option<u32> {
        let mut at = src;
        let mut h = 0;
        while at != dst {
            at = self.links[self.next_link(at, dst)? as usize].to;
            h += 1;
            if h > self.names.len() as u32 {
                return None;
            }
        }
        Some(h)
    }

    /// Builds the IMPs, lines and link directions of `spec` (errors are one line naming the fault).
    pub fn build(spec: &TopologySpec) -> Result<Topology, String> {
        let (names, lines): Lines = match spec {
            TopologySpec::Chain {
                hops,
                capacity,
                propagation,
            } => {
                if *hops == 0 {
                    return Err("network.topology.hops must be at least 1".into());
                }
                // Issue 33: the mesh's limit holds for a chain too (hops + 1 IMPs); 4e9 hops
                // asked for 96 GB at once.
                if *hops as usize >= MAX_IMPS {
                    return Err(format!(
                        "network.topology.hops: at most {} hops ({MAX_IMPS} IMPs), got {hops}",
                        MAX_IMPS - 1
                    ));
                }
                let names: Vec<String> = (0..=*hops).map(|i| format!("IMP{i}")).collect();
                let lines = names
                    .windows(2)
                    .map(|w| (w[0].clone(), w[1].clone(), *capacity, *propagation))
                    .collect();
                (names, lines)
            }
            TopologySpec::Lines {
                imps,
                lines,
                capacity,
                propagation,
            } => {
                // A line without its own takes the topology's (by default a chain's).
                let cap = capacity.unwrap_or_else(crate::spec::default_capacity);
                let prop = propagation.unwrap_or_else(crate::spec::default_chain_propagation);
                let resolved = lines
                    .iter()
                    .map(|l| {
                        (
                            l.a.clone(),
                            l.b.clone(),
                            l.capacity.unwrap_or(cap),
                            l.propagation.unwrap_or(prop),
                        )
                    })
                    .collect();
                (imps.clone(), resolved)
            }
            TopologySpec::Mesh {
                imps,
                degree,
                seed,
                capacity,
                propagation,
            } => {
                if *imps as usize > MAX_IMPS {
                    return Err(format!(
                        "network.topology.imps: at most {MAX_IMPS} IMPs, got {imps}"
                    ));
                }
                let lines = nmc_net::mesh::generate(*imps, degree.min, degree.max, *seed)
                    .map_err(|e| format!("network.topology: {e}"))?;
                let names: Vec<String> = (0..*imps).map(|i| format!("IMP{i}")).collect();
                let lines = lines
                    .into_iter()
                    .map(|(a, b)| {
                        (
                            names[a as usize].clone(),
                            names[b as usize].clone(),
                            *capacity,
                            *propagation,
                        )
                    })
                    .collect();
                (names, lines)
            }
            TopologySpec::Map {
                date,
                capacity,
                propagation_per_km,
                overrides,
                line_delay,
            } => {
                let (names, mut lines) =
                    map_lines(date, *capacity, *propagation_per_km, overrides)?;
                for l in &mut lines {
                    l.3 += *line_delay;
                }
                (names, lines)
            }
        };
        if names.len() > MAX_IMPS {
            return Err(format!(
                "network.topology: at most {MAX_IMPS} IMPs, got {}",
                names.len()
            ));
        }
        let mut by_name: HashMap<String, u32> = HashMap::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            // The first of two IMPs of one name is the one lines and hosts find.
            by_name.entry(n.clone()).or_insert(i as u32);
        }
        let mut links = Vec::with_capacity(lines.len() * 2);
        let idx = |n: &str| {
            by_name.get(n).copied().ok_or_else(|| {
                format!("network.topology: line end `{n}` is not an IMP of this network")
            })
        };
        for (a, b, capacity, propagation) in &lines {
            let (ia, ib) = (idx(a)?, idx(b)?);
            if ia == ib {
                return Err(format!(
                    "network.topology: a line joins two IMPs, not `{a}` to itself"
                ));
            }
            links.push(LinkDef {
                from: ia,
                to: ib,
                capacity: *capacity,
                propagation: *propagation,
            });
            links.push(LinkDef {
                from: ib,
                to: ia,
                capacity: *capacity,
                propagation: *propagation,
            });
        }
        let into = Adjacency::into_nodes(names.len(), links.iter().map(|l| (l.from, l.to)));
        let routes = (0..names.len()).map(|_| OnceCell::new()).collect();
        Ok(Topology {
            names,
            links,
            by_name,
            into,
            routes,
        })
    }
}

type Lines = (Vec<String>, Vec<(String, String, BitRate, SimDuration)>);

/// Sites whose coordinates in `maps.json` are not the site's (issue 54): (site, latitude,
/// longitude, why). A line's propagation comes from its ends' great-circle distance, so a site
/// placed on the wrong continent gives every line to it tens of milliseconds it never had. A
/// scenario's `overrides` still win over the distance.
/// * RUTGERS: the file has 41.374 N, 2.117 E, which is Barcelona. Rutgers University is in
///   New Brunswick, New Jersey (40.50 N, 74.45 W); its IMP's lines on the 1974 map run to
///   HARVARD and ABERDEEN (29.3 and 31.9 ms of propagation with the file's place, about 1.7
///   and 0.9 ms with New Brunswick's).
/// * HAWAII: the file has 157.9 E, the sign of the longitude lost; the ALOHA IMP was at the
///   University of Hawaii, Honolulu (21.30 N, 157.82 W). Its line to AMES was a satellite
///   circuit, which `ko-v2-map`, `ko-looping` and `rfc889/hawaii` give by an override; the
///   other scenarios on the 1976–1982 maps now give it 20 ms of great-circle propagation
///   where the wrong longitude gave 40.
pub(crate) const SITE_CORRECTIONS: &[(&str, f64, f64, &str)] = &[
    (
        "RUTGERS",
        40.50,
        -74.45,
        "maps.json places it in Barcelona (41.374 N, 2.117 E); New Brunswick, NJ",
    ),
    (
        "HAWAII",
        21.30,
        -157.82,
        "maps.json gives 157.9 E (sign lost); Honolulu",
    ),
];

fn map_lines(
    date: &str,
    capacity: BitRate,
    per_km: SimDuration,
    overrides: &[LineSpec],
) -> Result<Lines, String> {
    let doc: serde_json::Value =
        serde_json::from_str(MAPS_JSON).map_err(|e| format!("maps.json: {e}"))?;
    let maps = &doc["maps"];
    let edges = maps[date].as_array().ok_or_else(|| {
        let dates: Vec<&str> = maps
            .as_object()
            .map(|m| m.keys().map(|k| k.as_str()).collect())
            .unwrap_or_default();
        format!(
            "network.topology.date: no map dated `{date}` (maps: {})",
            dates.join(", ")
        )
    })?;
    let mut sites: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    let mut lines = Vec::new();
    for e in edges {
        let a = e[0].as_str().unwrap_or_default().to_string();
        let b = e[1].as_str().unwrap_or_default().to_string();
        if a == b {
            // A line between two IMPs the map merges into one site (SRI in 1975-07, USC-ISI in
            // 1976-07, RADC in 1979-09): one site is one IMP here, so the line is left out.
            continue;
        }
        for s in [&a, &b] {
            match site_coordinates(&doc, s) {
                Some(at) => {
                    sites.insert(s.clone(), at);
                }
                None => return Err(format!("maps.json: site `{s}` has no coordinates")),
            }
        }
        let km = great_circle_km(sites[&a], sites[&b]);
        let prop = SimDuration::from_nanos((km * per_km.as_nanos() as f64).round() as u64);
        lines.push((a, b, capacity, prop));
    }
    for (i, o) in overrides.iter().enumerate() {
        let mut hit = false;
        for l in lines
            .iter_mut()
            .filter(|l| (l.0 == o.a && l.1 == o.b) || (l.0 == o.b && l.1 == o.a))
        {
            hit = true;
            if let Some(c) = o.capacity {
                l.2 = c;
            }
            if let Some(p) = o.propagation {
                l.3 = p;
            }
        }
        if !hit {
            return Err(format!(
                "network.topology.overrides[{i}]: the {date} map has no line {}–{}",
                o.a, o.b
            ));
        }
    }
    Ok((sites.into_keys().collect(), lines))
}

/// A site's latitude and longitude in degrees, as a map line's propagation is computed from
/// them: `maps.json`'s (`doc`, [`MAPS_JSON`] parsed), or `SITE_CORRECTIONS`' where the file
/// is wrong. `None`: the file gives the site no coordinates.
pub fn site_coordinates(doc: &serde_json::Value, site: &str) -> Option<(f64, f64)> {
    if let Some(&(_, lat, lon, _)) = SITE_CORRECTIONS.iter().find(|c| c.0 == site) {
        return Some((lat, lon));
    }
    let s = &doc["sites"][site];
    Some((s["latitude"].as_f64()?, s["longitude"].as_f64()?))
}

fn great_circle_km(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (la1, lo1, la2, lo2) = (
        a.0.to_radians(),
        a.1.to_radians(),
        b.0.to_radians(),
        b.1.to_radians(),
    );
    let h = ((la2 - la1) / 2.0).sin().powi(2)
        + la1.cos() * la2.cos() * ((lo2 - lo1) / 2.0).sin().powi(2);
    2.0 * 6371.0 * h.sqrt().asin()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line of a `lines` topology that gives no capacity or propagation takes the
    /// topology's, and those default as a chain's (the reference, scenario-keys.md).
    #[test]
    fn a_line_without_its_own_speed_or_delay_takes_the_topologys() {
        let line = |b: &str, capacity: Option<BitRate>| LineSpec {
            a: "A".into(),
            b: b.into(),
            capacity,
            propagation: None,
        };
        let spec = |capacity, propagation| TopologySpec::Lines {
            imps: vec!["A".into(), "B".into(), "C".into()],
            lines: vec![line("B", None), line("C", Some(BitRate::from_kbps(9)))],
            capacity,
            propagation,
        };
        let t = Topology::build(&spec(None, None)).unwrap();
        assert_eq!(t.links[0].capacity, BitRate::from_kbps(50));
        assert_eq!(t.links[0].propagation, SimDuration::from_millis(2));
        let t = Topology::build(&spec(
            Some(BitRate::from_kbps(230)),
            Some(SimDuration::ZERO),
        ))
        .unwrap();
        assert_eq!(t.links[0].capacity, BitRate::from_kbps(230));
        assert_eq!(t.links[0].propagation, SimDuration::ZERO);
        assert_eq!(t.links.last().unwrap().capacity, BitRate::from_kbps(9));
    }

    #[test]
    fn june_1974_map_has_bbn_nine_hops_from_ucla() {
        let t = Topology::build(&TopologySpec::Map {
            date: "1974-06".into(),
            capacity: BitRate::from_kbps(50),
            propagation_per_km: SimDuration::from_micros(5),
            line_delay: SimDuration::ZERO,
            overrides: vec![],
        })
        .unwrap();
        let (ucla, bbn) = (t.index("UCLA").unwrap(), t.index("BBN").unwrap());
        assert_eq!(t.hops(ucla, bbn), Some(9));
        assert_eq!(t.hops(ucla, t.index("SDC").unwrap()), Some(1));
    }

    /// Every site of every map, with [`SITE_CORRECTIONS`], lies in the continental United
    /// States or is one of the overseas sites the maps name: a site on the wrong continent
    /// (RUTGERS in Barcelona, issue 54) fails here.
    #[test]
    fn every_site_is_where_its_name_says() {
        let overseas = ["LONDON", "NORSAR", "HAWAII"];
        for date in [
            "1969-12", "1972-08", "1974-06", "1975-07", "1977-07", "1980-12", "1982-02",
        ] {
            let (sites, lines) = map_lines(
                date,
                BitRate::from_kbps(50),
                SimDuration::from_micros(5),
                &[],
            )
            .unwrap();
            let doc: serde_json::Value = serde_json::from_str(MAPS_JSON).unwrap();
            for s in sites.iter().filter(|s| !overseas.contains(&s.as_str())) {
                let (lat, lon) = SITE_CORRECTIONS
                    .iter()
                    .find(|c| c.0 == s.as_str())
                    .map_or_else(
                        || {
                            let site = &doc["sites"][s.as_str()];
                            (
                                site["latitude"].as_f64().unwrap(),
                                site["longitude"].as_f64().unwrap(),
                            )
                        },
                        |c| (c.1, c.2),
                    );
                assert!(
                    (24.0..50.0).contains(&lat) && (-125.0..-66.0).contains(&lon),
                    "{date}: {s} at {lat}, {lon}"
                );
            }
            let prop = |a: &str, b: &str| {
                lines
                    .iter()
                    .find(|l| (l.0 == a && l.1 == b) || (l.0 == b && l.1 == a))
                    .map(|l| l.3.as_secs_f64() * 1e3)
                    .unwrap()
            };
            if date == "1977-07" {
                // Moffett Field to Honolulu is about 3,860 km: 19 ms at 5 us/km (40 with the
                // file's longitude).
                assert!((17.0..22.0).contains(&prop("AMES 15", "HAWAII")));
            }
            if date == "1974-06" {
                // New Brunswick is about 340 km from Cambridge and 180 km from Aberdeen, MD.
                assert!((1.4..2.0).contains(&prop("HARVARD", "RUTGERS")));
                assert!((0.7..1.1).contains(&prop("RUTGERS", "ABERDEEN")));
            }
        }
    }
}

#[cfg(test)]
mod per_destination {
    use super::*;
    use crate::spec::Degree;

    /// The all-pairs table the model built before routes were computed per destination.
    fn all_pairs(n: usize, links: &[LinkDef]) -> Vec<u32> {
        let mut into: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, l) in links.iter().enumerate() {
            into[l.to as usize].push(i as u32);
        }
        let mut next = vec![u32::MAX; n * n];
        let mut seen = vec![false; n];
        for dst in 0..n {
            seen.fill(false);
            seen[dst] = true;
            let mut q = std::collections::VecDeque::from([dst]);
            while let Some(v) = q.pop_front() {
                for &li in &into[v] {
                    let u = links[li as usize].from as usize;
                    if !seen[u] {
                        seen[u] = true;
                        next[u * n + dst] = li;
                        q.push_back(u);
                    }
                }
            }
        }
        next
    }

    fn check(t: &Topology) {
        let n = t.names.len();
        let old = all_pairs(n, &t.links);
        for dst in 0..n {
            for imp in 0..n {
                let got = t.next_link(imp as u32, dst as u32).unwrap_or(u32::MAX);
                assert_eq!(got, old[imp * n + dst], "{imp} -> {dst}");
            }
        }
    }

    /// Every map (parallel lines included) and some meshes: the routes per destination equal
    /// the old all-pairs table entry for entry.
    #[test]
    fn routes_equal_the_all_pairs_table() {
        for date in ["1972-03", "1974-06", "1975-07", "1982-02"] {
            check(
                &Topology::build(&TopologySpec::Map {
                    date: date.into(),
                    capacity: BitRate::from_kbps(50),
                    propagation_per_km: SimDuration::from_micros(5),
                    line_delay: SimDuration::ZERO,
                    overrides: vec![],
                })
                .unwrap(),
            );
        }
        for seed in 0..4 {
            check(&mesh(120, 3, 4, seed));
        }
    }

    fn mesh(imps: u32, min: u32, max: u32, seed: u64) -> Topology {
        Topology::build(&TopologySpec::Mesh {
            imps,
            degree: Degree { min, max },
            seed,
            capacity: BitRate::from_kbps(50),
            propagation: SimDuration::from_millis(2),
        })
        .unwrap()
    }

    #[test]
    fn a_1000_imp_mesh_is_connected_and_routes_lazily() {
        let t = mesh(1000, 3, 4, 1);
        assert_eq!(t.destinations_routed(), 0);
        let far = (0..1000u32).filter_map(|d| t.hops(0, d)).max().unwrap();
        assert!(far > 3 && far < 30, "diameter from IMP0: {far}");
        assert_eq!(
            t.destinations_routed(),
            999,
            "every other IMP reached from IMP0"
        );
        assert_eq!(t.index("IMP999"), Some(999));
        let again = mesh(1000, 3, 4, 1);
        assert_eq!(
            t.links.iter().map(|l| (l.from, l.to)).collect::<Vec<_>>(),
            again
                .links
                .iter()
                .map(|l| (l.from, l.to))
                .collect::<Vec<_>>()
        );
    }

    /// IMP ids are 32-bit (issue 15): a chain past 65,535 IMPs builds, names and routes end to
    /// end, and its streams keep both ends apart.
    #[test]
    fn a_chain_past_16_bit_ids_routes_end_to_end() {
        let t = Topology::build(&TopologySpec::Chain {
            hops: 70_000,
            capacity: BitRate::from_kbps(50),
            propagation: SimDuration::from_millis(2),
        })
        .unwrap();
        assert_eq!(t.names.len(), 70_001);
        assert_eq!(t.hops(0, 70_000), Some(70_000));
        assert_eq!(t.hops(69_999, 1), Some(69_998));
        let far = t.index(&t.names[70_000]).unwrap();
        assert_eq!(far, 70_000);
        let s = crate::packet::stream(far, 65_536);
        assert_eq!(crate::packet::stream_ends(s), (70_000, 65_536));
        assert!(crate::packet::stream(far, 0) > crate::packet::stream(65_536, u32::MAX));
    }
}
