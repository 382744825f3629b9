//! The hosts a scenario adds in numbers: host pairs (`kind = "pairs"`) and the background
//! load (`kind = "background"`), with the destinations' shares.

use super::BuildError;
use crate::model::{Host, Pump};
use crate::params::ImpParams;
use crate::topology::{Routes, Topology};
use std::collections::BTreeMap;

/// The most host pairs one `kind = "pairs"` entry may add: 50 times the largest shipped case
/// (`mesh-1000`'s 200).
pub(crate) const MAX_PAIRS: u64 = 10_000;

/// Adds `pairs` host pairs for `traffic[i]` (`kind = "pairs"`), each running a pump, on IMPs
/// drawn from the seed; returns the pumping hosts.
pub(super) fn add_pairs(
    hosts: &mut Vec<Host>,
    topo: &Topology,
    i: usize,
    pairs: u32,
    bits: u64,
    count: Option<u64>,
    seed: u64,
) -> Result<Vec<u32>, BuildError> {
    let n = topo.names.len() as u64;
    if n < 2 {
        return Err(BuildError(format!(
            "traffic[{i}]: host pairs need a network of at least two IMPs"
        )));
    }
    // Issue 33: a stated limit before anything is allocated (each pair is two hosts with
    // their own state on every IMP's tables).
    nmc_sim::limits::at_most(
        &format!("traffic[{i}].pairs"),
        u64::from(pairs),
        MAX_PAIRS,
        " host pairs",
    )
    .map_err(|e| BuildError(e.to_string()))?;
    // A stream of its own, apart from every line's and background host's.
    let mut rng = nmc_sim::RngStreams::new(seed).stream(crate::model::pairs_stream(i));
    let mut sources = Vec::with_capacity(pairs as usize);
    for k in 0..pairs {
        let mut found = None;
        for _ in 0..1000 {
            let a = rng.uniform_inclusive(0, n - 1) as u32;
            let mut b = rng.uniform_inclusive(0, n - 2) as u32;
            if b >= a {
                b += 1;
            }
            if topo.next_link(a, b).is_some() {
                found = Some((a, b));
                break;
            }
        }
        let Some((a, b)) = found else {
            return Err(BuildError(format!(
                "traffic[{i}]: no two IMPs with a path between them found for pair {k}"
            )));
        };
        let names = [format!("PAIR{k}-SRC"), format!("PAIR{k}-DST")];
        for name in &names {
            if hosts.iter().any(|h| &h.name == name) {
                return Err(BuildError(format!(
                    "traffic[{i}]: a host is already named `{name}`, the name of a pair's host"
                )));
            }
        }
        let src = hosts.len() as u32;
        for (name, imp) in names.into_iter().zip([a, b]) {
            hosts.push(Host::new(name, imp));
        }
        hosts[src as usize].pump = Some(Pump {
            dst_host: src + 1,
            bits,
            count,
            offered: 0,
            window: None,
        });
        sources.push(src);
    }
    Ok(sources)
}

/// The smallest `hop_decay`: below it `decay^hops` underflows on a large network and a
/// source's weights can all be zero.
pub(crate) const MIN_HOP_DECAY: f64 = 0.01;

/// How a background source weighs each destination (`BackgroundSpec::hop_decay`).
pub(crate) struct Pairing<'a> {
    topo: &'a Topology,
    weights: Vec<f64>,
    decay: f64,
    balance: Vec<f64>,
}

impl<'a> Pairing<'a> {
    /// The pairing of `b` among `imps` (its background hosts' IMPs) on `topo`.
    pub(crate) fn new(topo: &'a Topology, imps: &[u32], b: &crate::spec::BackgroundSpec) -> Self {
        let weights: Vec<f64> = topo.names.iter().map(|n| b.destination_weight(n)).collect();
        let balance = balance_destinations(
            topo,
            imps,
            &|x| b.origin_weight(&topo.names[x as usize]),
            &|y| weights[y as usize],
            b.hop_decay,
        );
        Pairing {
            topo,
            weights,
            decay: b.hop_decay,
            balance,
        }
    }

    /// The relative weight with which a source at `x` picks destination `y`.
    pub(crate) fn weight(&self, x: u32, y: u32) -> f64 {
        if self.decay == 1.0 {
            self.weights[y as usize]
        } else {
            let h = self.topo.hops(x, y).unwrap_or(0) as i32;
            self.weights[y as usize] * self.balance[y as usize] * self.decay.powi(h)
        }
    }
}

/// The share of `b`'s messages between IMPs `h` minimum hops apart, for each `h` (issue 54: RFC
/// 619 Table 1 gives the real network's messages by minimum hops, December 1973). Expected
/// shares from the weights, not a count of a run's messages. `b.imps` empty: every IMP.
pub fn background_hop_shares(
    topo: &Topology,
    b: &crate::spec::BackgroundSpec,
) -> BTreeMap<u32, f64> {
    let imps: Vec<u32> = if b.imps.is_empty() {
        (0..topo.names.len() as u32).collect()
    } else {
        b.imps.iter().filter_map(|n| topo.index(n)).collect()
    };
    let origin = |x: u32| b.origin_weight(&topo.names[x as usize]);
    let pair = Pairing::new(topo, &imps, b);
    let total: f64 = imps.iter().map(|&x| origin(x)).sum();
    let mut shares = BTreeMap::new();
    for &x in &imps {
        let to: Vec<(u32, f64)> = imps
            .iter()
            .filter(|&&y| y != x)
            .filter_map(|&y| Some((topo.hops(x, y)?, pair.weight(x, y))))
            .collect();
        let sum: f64 = to.iter().map(|t| t.1).sum();
        for (h, wt) in to {
            *shares.entry(h).or_insert(0.0) += origin(x) / total * wt / sum;
        }
    }
    shares
}

/// Rounds of the balancing in [`balance_destinations`]: the column sums agree with their
/// targets to better than 1e-9 on the 1974 map well before this.
const BALANCING_ROUNDS: usize = 200;

/// The balancing factors B_j of a doubly constrained gravity model (`BackgroundSpec::hop_decay`),
/// indexed by IMP: with them, the origins' shares spread over destinations ∝ weight × B ×
/// decay^hops send each IMP its share of the destination weights (Furness's iteration, a fixed
/// number of rounds in a fixed order, so the same inputs give the same bits). All 1 when
/// `decay` is 1 (the pairs are then not balanced, as before the parameter).
fn balance_destinations(
    topo: &Topology,
    imps: &[u32],
    origin: &dyn Fn(u32) -> f64,
    weight: &dyn Fn(u32) -> f64,
    decay: f64,
) -> Vec<f64> {
    let mut b = vec![1.0; topo.names.len()];
    if decay == 1.0 {
        return b;
    }
    // Reachable pairs and their decay, once.
    let pairs: Vec<Vec<(u32, f64)>> = imps
        .iter()
        .map(|&x| {
            imps.iter()
                .filter(|&&y| y != x)
                .filter_map(|&y| Some((y, decay.powi(topo.hops(x, y)? as i32))))
                .collect()
        })
        .collect();
    let total_origin: f64 = imps.iter().map(|&x| origin(x)).sum();
    let total_weight: f64 = imps.iter().map(|&y| weight(y)).sum();
    let mut received = vec![0.0; topo.names.len()];
    for _ in 0..BALANCING_ROUNDS {
        received.iter_mut().for_each(|r| *r = 0.0);
        for (&x, to) in imps.iter().zip(&pairs) {
            let sum: f64 = to.iter().map(|&(y, f)| b[y as usize] * weight(y) * f).sum();
            if sum == 0.0 {
                continue;
            }
            let share = origin(x) / total_origin;
            for &(y, f) in to {
                received[y as usize] += share * b[y as usize] * weight(y) * f / sum;
            }
        }
        for &y in imps {
            if received[y as usize] > 0.0 {
                b[y as usize] *= weight(y) / total_weight / received[y as usize];
            }
        }
    }
    b
}

/// One background host's plan (`kind = "background"`, `model/background.rs`): where it is, how
/// often its bursts come, where its messages go and how long they are. The model's background
/// hosts are built from these, and so are the emulated IMPs' (`nmc oracle emulate-map`), so
/// both networks are offered the same traffic from the same seed.
#[derive(Clone, Debug)]
pub struct BackgroundSite {
    /// The IMP (topology index).
    pub imp: u32,
    /// Its random stream's number in the run's `nmc_sim::RngStreams` (its arrivals, bursts,
    /// destinations and lengths, drawn in that order: [`crate::model::LengthMix`]).
    pub stream: u64,
    /// Mean time between its bursts, ns.
    pub mean_interval_ns: f64,
    /// Destination IMPs with cumulative probabilities (the last is 1); empty if none is
    /// reachable.
    pub dests: Vec<(u32, f64)>,
    /// Its messages' lengths and bursts.
    pub mix: crate::model::LengthMix,
    /// Messages that may wait at the host; arrivals beyond are refused.
    pub host_queue: u32,
    /// When its arrivals start, from the start of the run.
    pub start: nmc_sim::SimDuration,
}

/// The background hosts traffic entry `i` (`b`) puts on `topo`: one on each IMP it names (all
/// when none), each with its share of the arrivals and its destinations by the gravity weights
/// (see `model/background.rs`). Errors name the entry's key at fault.
pub fn background_sites(
    topo: &Topology,
    params: &ImpParams,
    i: usize,
    b: &crate::spec::BackgroundSpec,
) -> Result<Vec<BackgroundSite>, BuildError> {
    let at = format!("traffic[{i}]");
    let bad = |k: &str, why: &str| BuildError(format!("{at}.{k}: {why}"));
    if !(b.messages_per_second.is_finite() && b.messages_per_second > 0.0) {
        return Err(bad("messages_per_second", "must be above zero"));
    }
    if !(0.0..=1.0).contains(&b.single_packet_fraction) {
        return Err(bad("single_packet_fraction", "must be in [0, 1]"));
    }
    let p = params.max_packet.get();
    if b.single_mean.get() == 0 || b.single_mean.get() > p {
        return Err(bad("single_mean", &format!("must be 1 to {p} bits")));
    }
    if b.multi_mean.get() <= p || b.multi_mean.get() > params.max_message.get() {
        return Err(bad(
            "multi_mean",
            &format!(
                "must be above one packet ({p} bits) and at most {}",
                params.max_message
            ),
        ));
    }
    if !(b.burst_mean.is_finite() && b.burst_mean >= 1.0) {
        return Err(bad("burst_mean", "must be at least 1"));
    }
    if b.host_queue == 0 {
        return Err(bad("host_queue", "must be at least 1"));
    }
    let imps: Vec<u32> = if b.imps.is_empty() {
        (0..topo.names.len() as u32).collect()
    } else {
        let mut v = Vec::new();
        for (k, n) in b.imps.iter().enumerate() {
            let x = topo.index(n).ok_or_else(|| {
                bad(
                    &format!("imps[{k}]"),
                    &format!("`{n}` is not an IMP of this network"),
                )
            })?;
            if v.contains(&x) {
                return Err(bad(&format!("imps[{k}]"), &format!("`{n}` named twice")));
            }
            v.push(x);
        }
        v
    };
    if imps.len() < 2 {
        return Err(bad("imps", "background traffic needs at least two IMPs"));
    }
    if !(b.default_weight.is_finite() && b.default_weight > 0.0) {
        return Err(bad("default_weight", "must be above zero"));
    }
    for (key, map) in [("origins", &b.origins), ("destinations", &b.destinations)] {
        for (n, w) in map {
            let x = topo
                .index(n)
                .ok_or_else(|| bad(&format!("{key}.{n}"), "not an IMP of this network"))?;
            if !imps.contains(&x) {
                return Err(bad(
                    &format!("{key}.{n}"),
                    "this IMP has no background host",
                ));
            }
            if !(w.is_finite() && *w > 0.0) {
                return Err(bad(&format!("{key}.{n}"), "must be above zero"));
            }
        }
    }
    if !(b.hop_decay.is_finite() && (MIN_HOP_DECAY..=1.0).contains(&b.hop_decay)) {
        return Err(bad(
            "hop_decay",
            &format!("must be {MIN_HOP_DECAY} to 1 (1: destinations independent of distance)"),
        ));
    }
    let origin = |x: u32| b.origin_weight(&topo.names[x as usize]);
    let pair = Pairing::new(topo, &imps, b);
    let total_origin: f64 = imps.iter().map(|&x| origin(x)).sum();
    let mut sites = Vec::with_capacity(imps.len());
    for (k, &x) in imps.iter().enumerate() {
        let reachable: Vec<u32> = imps
            .iter()
            .copied()
            .filter(|&y| y != x && topo.next_link(x, y).is_some())
            .collect();
        let mut dests = Vec::new();
        let wsum: f64 = reachable.iter().map(|&y| pair.weight(x, y)).sum();
        let mut c = 0.0;
        for &y in &reachable {
            c += pair.weight(x, y) / wsum;
            dests.push((y, c));
        }
        if let Some(last) = dests.last_mut() {
            last.1 = 1.0;
        }
        let rate = b.messages_per_second * origin(x) / total_origin / b.burst_mean;
        sites.push(BackgroundSite {
            imp: x,
            stream: crate::model::background_stream(k),
            mean_interval_ns: 1e9 / rate,
            dests,
            mix: crate::model::LengthMix {
                single_packet_fraction: b.single_packet_fraction,
                single_mean: b.single_mean.get() as f64,
                multi_mean: b.multi_mean.get() as f64,
                burst_mean: b.burst_mean,
                max_packet: p,
                max_message: params.max_message.get(),
            },
            host_queue: b.host_queue,
            start: b.start,
        });
    }
    Ok(sites)
}

/// Adds the background hosts of traffic entry `i` ([`background_sites`]), named `BG-` and
/// their IMP's name.
pub(super) fn add_background(
    hosts: &mut Vec<Host>,
    topo: &Topology,
    params: &ImpParams,
    i: usize,
    b: &crate::spec::BackgroundSpec,
    seed: u64,
) -> Result<(), BuildError> {
    let sites = background_sites(topo, params, i, b)?;
    let first = hosts.len() as u32;
    for site in &sites {
        let name = format!("BG-{}", topo.names[site.imp as usize]);
        if hosts.iter().any(|h| h.name == name) {
            return Err(BuildError(format!(
                "traffic[{i}]: a host is already named `{name}`, the name of a background host"
            )));
        }
    }
    let streams = nmc_sim::RngStreams::new(seed);
    let host_of = |y: u32| first + sites.iter().position(|s| s.imp == y).expect("listed") as u32;
    for site in &sites {
        let dests: Vec<(u32, f64)> = site.dests.iter().map(|&(y, c)| (host_of(y), c)).collect();
        hosts.push(Host {
            started: true,
            background: (!dests.is_empty()).then(|| crate::model::Background {
                rng: Box::new(streams.stream(site.stream)),
                mean_interval_ns: site.mean_interval_ns,
                dests,
                mix: site.mix,
                backlog: Default::default(),
                host_queue: site.host_queue,
                stopped: false,
            }),
            ..Host::new(format!("BG-{}", topo.names[site.imp as usize]), site.imp)
        });
    }
    Ok(())
}
