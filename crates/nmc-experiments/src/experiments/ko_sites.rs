//! What K&O's two throughput experiments (`ko-v2-throughput`, `ko-v3-throughput`) share: the
//! fake-host sites on the ARPANET maps — constants of the experiments, not of the IMP model, so
//! they live here. (How a run's scenario is loaded, and what `--quick` shortens, each declares
//! in its [`crate::registry::Plan`].)

/// Fake-host sites 1..9 hops from UCLA on the June 1974 map, used by K&O's experiments in nmc.
/// K&O do not name theirs; these are sites at each distance along well-used paths.
pub const KO_MAP_DESTINATIONS: [&str; 9] = [
    "SDC", "RAND", "USC-ISI", "STANFORD", "SRI", "MOFFETT", "LBL", "UTAH", "BBN",
];
/// Fake-host sites 1..12 hops from UCLA on the July 1975 map (`scenarios/ko-v3-map.toml`), for
/// K&O's 1975 experiments: the October 1974 site where it is still at its distance, BBN at 12,
/// otherwise the alphabetically first site at that distance.
pub const KO_V3_DESTINATIONS: [&str; 12] = [
    "SDC", "RAND", "USC-ISI", "STANFORD", "AMES", "MOFFETT", "RML", "ETAC", "ARPA", "ABERDEEN",
    "BELVOIR", "BBN",
];

#[cfg(test)]
mod tests {
    use super::*;
    use nmc_imp::spec::TopologySpec;
    use nmc_imp::topology::Topology;
    use nmc_sim::{BitRate, SimDuration};

    fn map(date: &str) -> Topology {
        Topology::build(&TopologySpec::Map {
            date: date.into(),
            capacity: BitRate::from_kbps(50),
            propagation_per_km: SimDuration::from_micros(5),
            line_delay: SimDuration::ZERO,
            overrides: vec![],
        })
        .unwrap()
    }

    fn at_their_hop_counts(t: &Topology, sites: &[&str]) {
        let ucla = t.index("UCLA").unwrap();
        for (h, site) in sites.iter().enumerate() {
            assert_eq!(
                t.hops(ucla, t.index(site).unwrap()),
                Some(h as u32 + 1),
                "{site}"
            );
        }
    }

    /// The destinations `ko-v2-throughput` uses on the June 1974 map are the hop counts it says.
    #[test]
    fn ko_destinations_are_at_their_hop_counts() {
        at_their_hop_counts(&map("1974-06"), &KO_MAP_DESTINATIONS);
    }

    /// So are those of `ko-v3-throughput` on the July 1975 map (whose SRI–SRI line, two IMPs
    /// the map merges into one site, is left out).
    #[test]
    fn ko_v3_destinations_are_at_their_hop_counts() {
        at_their_hop_counts(&map("1975-07"), &KO_V3_DESTINATIONS);
    }
}
