//! The model on the June 1974 map beside the program's recordings there (`nmc oracle compare
//! --map`): the second half of the test every rule tried against the program has had since 6
//! December 2026 (how-to `oracle.md`).
//!
//! The program's side is what `nmc oracle emulate-map --power-on apart` recorded with every IMP
//! running program 3050 on nmc's emulator (`data/oracle/emulated/`): K&O's pump from UCLA, 120
//! messages of 503 words with 4 outstanding, to the discard fake host of each of
//! [`KO_DESTINATIONS`] (1–9 hops), **loaded** (the scenario's background load, seeds 1–6,
//! `map-1974-load-runs-apart/seed-N/beside.csv`: 54 site-seeds) and **unloaded** (seed 1,
//! `map-1974-apart/beside.csv`: 9 sites). The model's side runs `scenarios/ko-v2-map.toml` with
//! the same seed, the site's fake host, the pump from 10 s with 4 outstanding, 42 s in all,
//! measured from 14.5 s (the program's first measured message), and reads the run's
//! throughput and K&O round trip (`throughput_kbps`, `rtt.mean_ms`). Each set is summed up as
//! the mean over its rows of |model − program| / program, in %.

use crate::map::{KO_DESTINATIONS, KO_MAP};
use anyhow::{Context, Result, bail};
use nmc_imp::scenario::ImpScenario;
use nmc_scenario::Override;
use nmc_sim::Trace;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The loaded recordings' seeds.
pub const LOADED_SEEDS: std::ops::RangeInclusive<u64> = 1..=6;
/// The unloaded recording's seed.
pub const UNLOADED_SEED: u64 = 1;

/// Which recorded set a row belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MapSet {
    /// With the scenario's background load.
    Loaded,
    /// The pump alone.
    Unloaded,
}

/// One site at one seed: the program's figures and the model's.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MapRow {
    /// The recorded set.
    pub set: MapSet,
    /// The run's seed (the program's and the model's).
    pub seed: u64,
    /// Hops from UCLA.
    pub hops: u32,
    /// The destination site.
    pub site: String,
    /// The program's throughput, kbit/s.
    pub program_kbps: f64,
    /// The program's K&O round trip, ms.
    pub program_rtt_ms: f64,
    /// The model's throughput, kbit/s.
    pub model_kbps: f64,
    /// The model's K&O round trip, ms.
    pub model_rtt_ms: f64,
    /// (model − program) / program, %.
    pub kbps_diff_pct: f64,
    /// (model − program) / program, %.
    pub rtt_diff_pct: f64,
}

/// One destination of an `emulate-map` recording (`beside.csv`).
#[derive(Debug, Deserialize)]
struct Beside {
    hops: u32,
    /// The site's name and its IMP number, e.g. `SDC IMP 34`.
    destination: String,
    map_kbps: f64,
    map_rtt_ms: f64,
}

impl Beside {
    /// The site's name, as the map scenario names it.
    fn site(&self) -> &str {
        self.destination.split_whitespace().next().unwrap_or("")
    }
}

/// The program's figures for each destination, from one `beside.csv`.
fn recorded(path: &Path) -> Result<Vec<Beside>> {
    let mut r =
        csv::Reader::from_path(path).with_context(|| format!("cannot read {}", path.display()))?;
    let rows = r
        .deserialize::<Beside>()
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("{}: not an emulate-map beside.csv", path.display()))?;
    if rows.len() != KO_DESTINATIONS.len() {
        bail!(
            "{}: {} rows, where the map's destinations are {}",
            path.display(),
            rows.len(),
            KO_DESTINATIONS.len()
        );
    }
    Ok(rows)
}

/// The model's throughput and K&O round trip for one site, set and seed, with `extra` on top.
fn model(set: MapSet, seed: u64, site: &str, extra: &[Override]) -> Result<(f64, f64)> {
    let mut sets: Vec<String> = vec![
        format!("network.hosts.1.imp={site}"),
        "duration=42s".into(),
        "network.measure_from=14.5s".into(),
    ];
    match set {
        MapSet::Loaded => {
            sets.push("traffic.0.outstanding=4".into());
            sets.push("traffic.0.start=10s".into());
        }
        MapSet::Unloaded => sets.push(
            r#"traffic=[{kind="pump",from="UCLA",to="FAKE",message="8063bit",outstanding=4,start="10s"}]"#
                .into(),
        ),
    }
    let mut all = sets
        .iter()
        .map(|s| s.parse::<Override>().map_err(|e| anyhow::anyhow!("{e}")))
        .collect::<Result<Vec<_>>>()?;
    all.extend_from_slice(extra);
    let s: ImpScenario =
        nmc_scenario::load("ko-v2-map.toml", KO_MAP, &all).map_err(|e| anyhow::anyhow!("{e}"))?;
    let out = nmc_imp::scenario::run(&s, seed, Trace::off(), &mut |_| {})
        .map_err(|e| anyhow::anyhow!("ko-v2-map, {site}, seed {seed}: {}", e.0))?;
    let pair = &out.metrics.pair;
    let rtt = pair
        .rtt_mean_ms()
        .with_context(|| format!("ko-v2-map, {site}, seed {seed}: no message answered"))?;
    Ok((pair.throughput_kbps, rtt))
}

/// Every site of the sets asked for, the model beside the program (`data`: the recorded data,
/// `data/oracle`).
pub fn check(data: &Path, sets: &[MapSet], extra: &[Override]) -> Result<Vec<MapRow>> {
    let dir = data.join("emulated");
    let mut rows = Vec::new();
    for &set in sets {
        let runs: Vec<(u64, std::path::PathBuf)> = match set {
            MapSet::Loaded => LOADED_SEEDS
                .map(|s| {
                    (
                        s,
                        dir.join(format!("map-1974-load-runs-apart/seed-{s}/beside.csv")),
                    )
                })
                .collect(),
            MapSet::Unloaded => vec![(UNLOADED_SEED, dir.join("map-1974-apart/beside.csv"))],
        };
        for (seed, path) in runs {
            for b in recorded(&path)? {
                let (model_kbps, model_rtt_ms) = model(set, seed, b.site(), extra)?;
                let pct = |m: f64, p: f64| 100.0 * (m - p) / p;
                rows.push(MapRow {
                    set,
                    seed,
                    hops: b.hops,
                    site: b.site().to_string(),
                    program_kbps: b.map_kbps,
                    program_rtt_ms: b.map_rtt_ms,
                    model_kbps,
                    model_rtt_ms,
                    kbps_diff_pct: pct(model_kbps, b.map_kbps),
                    rtt_diff_pct: pct(model_rtt_ms, b.map_rtt_ms),
                });
            }
        }
    }
    Ok(rows)
}

/// Mean |Δ| of throughput and round trip, %, over the rows of `set`, with their count.
pub fn mean_abs(rows: &[MapRow], set: MapSet) -> (usize, f64, f64) {
    let r: Vec<&MapRow> = rows.iter().filter(|r| r.set == set).collect();
    let n = r.len().max(1) as f64;
    (
        r.len(),
        r.iter().map(|r| r.kbps_diff_pct.abs()).sum::<f64>() / n,
        r.iter().map(|r| r.rtt_diff_pct.abs()).sum::<f64>() / n,
    )
}

/// The two sets' summary lines, as a Markdown table.
pub fn table(rows: &[MapRow]) -> String {
    let mut t = String::from(
        "| on the June 1974 map (`scenarios/ko-v2-map.toml`) | site-seeds | mean \\|Δ\\| throughput | mean \\|Δ\\| round trip |\n| --- | ---: | ---: | ---: |\n",
    );
    for (set, name) in [
        (MapSet::Loaded, "loaded, IMPs switched on apart (seeds 1–6)"),
        (MapSet::Unloaded, "unloaded, apart (seed 1)"),
    ] {
        let (n, k, r) = mean_abs(rows, set);
        if n > 0 {
            t.push_str(&format!("| {name} | {n} | {k:.2} % | {r:.2} % |\n"));
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The unloaded set: one row a destination, the program's figures read from the recording
    /// as written, the model's from a run that answered its messages.
    #[test]
    fn the_unloaded_map_sets_the_model_beside_each_recorded_site() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/oracle");
        let rows = check(&data, &[MapSet::Unloaded], &[]).unwrap();
        assert_eq!(rows.len(), 9);
        let recorded = recorded(&data.join("emulated/map-1974-apart/beside.csv")).unwrap();
        for (row, b) in rows.iter().zip(&recorded) {
            assert_eq!(
                (row.hops, row.program_kbps, row.program_rtt_ms),
                (b.hops, b.map_kbps, b.map_rtt_ms)
            );
            assert_eq!(row.site, KO_DESTINATIONS[b.hops as usize - 1]);
            assert!(row.model_kbps > 10.0 && row.model_rtt_ms > 100.0, "{row:?}");
        }
        let (n, k, r) = mean_abs(&rows, MapSet::Unloaded);
        assert_eq!(n, 9);
        assert!(k.is_finite() && r.is_finite());
        assert!(table(&rows).contains("| unloaded, apart (seed 1) | 9 |"));
    }

    /// A recording with a row missing is refused in one line, not read short.
    #[test]
    fn a_short_recording_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("beside.csv");
        std::fs::write(
            &p,
            "hops,destination,map_kbps,map_rtt_ms\n1,SDC IMP 34,38.0,200.0\n",
        )
        .unwrap();
        let e = recorded(&p).unwrap_err().to_string();
        assert!(e.contains("1 rows"), "{e}");
    }
}
