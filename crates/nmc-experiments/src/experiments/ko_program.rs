//! K&O's experiment on the original IMP program (issue 73 §5): BBN's program 3050 (16 Sept
//! 1973) run on nmc's H316 emulator on the June 1974 map of `ko-v2-map.toml`, every IMP
//! emulated, with the scenario's background load offered by a host on every IMP as the model
//! draws it (`nmc oracle emulate-map`, `crates/nmc-oracle/src/background.rs`).
//!
//! The program is never committed (its listing carries a BBN proprietary notice), so these
//! rows are read from **recorded runs** (`data/oracle/emulated/map-1974-load-runs-apart/seed-N/`,
//! compiled in): one per seed, each pumping 120 messages of 503 words (100 measured) with 4
//! outstanding to each of the `ko-v2-throughput` sites at 1–9 hops in turn. They are
//! re-made with the program by the command in each run's `emulate-map.json`. Each IMP is
//! switched on at an instant of its own (`--power-on apart`), so its slow ticks, where the
//! program makes its routing table, have their own phase, as the 1974 profile's IMPs'
//! (`imp_clocks = "apart"`); the runs before 6 Dec 2026 switched every IMP on at one instant
//! (`map-1974-load-runs/`, kept), under which the program's packets loop far more (the how-to
//! `ko-program.md`). The RFC 619 rows below likewise (`program-rfc619-t1-apart/`).
//!
//! The rows are K&O's Figs. 3–4 under another method, so they are
//! [`nmc_report::check::Kind::Variant`]: shown beside the model's rows, never counted in the headline.
//! Nothing in them is fitted; the load is the model's, its level and pairing chosen before any
//! KO row was scored (`scenarios/ko-v2-map.toml`). What differs from K&O's network, known: the
//! program is September 1973's, not October 1974's; no NCC status reports (IMP 5 unused); one
//! destination site per distance, not the model's median over sites; the TIP sites run the IMP
//! program on a 316.

use anyhow::{Context as _, Result, bail};
use nmc_report::check::{Target, Value};

use crate::registry::Context;

/// The recorded runs, by seed: each run's `results.json`.
const RUNS: [(u64, &str); 6] = [
    (
        1,
        include_str!(
            "../../../../data/oracle/emulated/map-1974-load-runs-apart/seed-1/results.json"
        ),
    ),
    (
        2,
        include_str!(
            "../../../../data/oracle/emulated/map-1974-load-runs-apart/seed-2/results.json"
        ),
    ),
    (
        3,
        include_str!(
            "../../../../data/oracle/emulated/map-1974-load-runs-apart/seed-3/results.json"
        ),
    ),
    (
        4,
        include_str!(
            "../../../../data/oracle/emulated/map-1974-load-runs-apart/seed-4/results.json"
        ),
    ),
    (
        5,
        include_str!(
            "../../../../data/oracle/emulated/map-1974-load-runs-apart/seed-5/results.json"
        ),
    ),
    (
        6,
        include_str!(
            "../../../../data/oracle/emulated/map-1974-load-runs-apart/seed-6/results.json"
        ),
    ),
];

/// Where the recorded runs are, for the rows' notes.
pub const RECORDED: &str = "data/oracle/emulated/map-1974-load-runs-apart";

/// One distance on the original program: each seed's throughput and K&O round trip.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ProgramRow {
    /// Hops from UCLA.
    pub hops: u32,
    /// The destination's experiment name (site in it).
    pub experiment: String,
    /// Mean over the seeds, kbit/s.
    pub throughput_kbps: f64,
    /// Mean over the seeds of K&O's round trip, ms.
    pub rtt_ms: f64,
    /// Each seed's throughput, kbit/s.
    pub throughput_by_seed: String,
    /// Each seed's round trip, ms.
    pub rtt_by_seed: String,
}

fn num(v: &serde_json::Value, key: &str) -> Option<f64> {
    v.get(key)?.get("mean")?.as_f64()
}

/// The recorded runs' rows, 1–9 hops; an error names a run that does not parse or lacks a
/// distance, or an experiment that did not run clean.
pub fn rows() -> Result<Vec<ProgramRow>> {
    let mut per: Vec<(String, Vec<f64>, Vec<f64>)> = vec![(String::new(), vec![], vec![]); 9];
    for (seed, text) in RUNS {
        let v: serde_json::Value = serde_json::from_str(text)
            .with_context(|| format!("{RECORDED}/seed-{seed}/results.json"))?;
        let list = v.as_array().map(Vec::as_slice).unwrap_or_default();
        for h in 1..=9u32 {
            let Some(x) = list
                .iter()
                .find(|x| x.get("hops").and_then(|h| h.as_u64()) == Some(u64::from(h)))
            else {
                bail!("{RECORDED}/seed-{seed}: no experiment at {h} hops");
            };
            let clean = x.get("accepted").and_then(|a| a.as_bool()) == Some(true)
                && x.get("matching").and_then(|m| m.as_str()) == Some("ok");
            let (Some(k), Some(r), true) = (num(x, "throughput_kbps"), num(x, "ko_rtt_ms"), clean)
            else {
                bail!("{RECORDED}/seed-{seed}: the {h}-hop experiment did not run clean");
            };
            let e = &mut per[h as usize - 1];
            e.0 = x
                .get("experiment")
                .and_then(|n| n.as_str())
                .unwrap_or_default()
                .to_string();
            e.1.push(k);
            e.2.push(r);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let list = |v: &[f64], d: usize| {
        v.iter()
            .map(|x| format!("{x:.d$}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    Ok(per
        .into_iter()
        .enumerate()
        .map(|(i, (experiment, k, r))| ProgramRow {
            hops: i as u32 + 1,
            experiment,
            throughput_kbps: mean(&k),
            rtt_ms: mean(&r),
            throughput_by_seed: list(&k, 2),
            rtt_by_seed: list(&r, 1),
        })
        .collect())
}

/// The rows' kind, said once.
fn why() -> String {
    format!(
        "the original IMP program 3050 (Sept 1973) on nmc's H316 emulator, June 1974 map, this \
         scenario's background load, one site per distance, each IMP switched on at an instant \
         of its own, mean of {} recorded seeds ({RECORDED}; nmc oracle emulate-map \
         --power-on apart with the program re-makes them)",
        RUNS.len()
    )
}

/// KO-1, KO-2 and KO-3 on the original program, beside the model's rows: `targets` gives
/// K&O's target of each (KO-1 1–5 hops, KO-2 9 hops, KO-3 1–9 hops), `model` the model's
/// throughput and round trip at a distance (for the notes). Writes `program_rows.csv`.
pub fn checks(
    ctx: &mut Context,
    targets: &dyn Fn(&str, u32) -> Target,
    model: &dyn Fn(u32) -> (f64, f64),
) -> Result<()> {
    let rows = rows()?;
    ctx.csv("program_rows", &rows)?;
    let why = why();
    let hops = |h: u32| format!("{h} hop{}", if h > 1 { "s" } else { "" });
    // K&O's figures in the model's order: KO-1 at 1–5 hops, KO-2 at 9, KO-3 at 1–9.
    let throughput = rows
        .iter()
        .filter(|r| r.hops <= 5)
        .map(|r| ("KO-1", r))
        .chain(rows.iter().filter(|r| r.hops == 9).map(|r| ("KO-2", r)));
    for (figure, r) in throughput {
        ctx.check(
            &format!("{figure} program {}", hops(r.hops)),
            &format!(
                "average throughput, {}, the original IMP program (seeds: {} kbit/s)",
                hops(r.hops),
                r.throughput_by_seed
            ),
            "kbit/s",
            "K&O Fig. 3",
            targets(figure, r.hops),
            Value::Num(r.throughput_kbps),
        )
        .variant(&why)
        .with_note(&format!("the model's row: {:.2} kbit/s", model(r.hops).0));
    }
    for r in &rows {
        ctx.check(
            &format!("KO-3 program {}", hops(r.hops)),
            &format!(
                "average round trip, {}, the original IMP program (seeds: {} ms)",
                hops(r.hops),
                r.rtt_by_seed
            ),
            "ms",
            "K&O Fig. 4: 200 + 90(n − 1)",
            targets("KO-3", r.hops),
            Value::Num(r.rtt_ms),
        )
        .variant(&why)
        .with_note(&format!("the model's row: {:.0} ms", model(r.hops).1));
    }
    Ok(())
}

/// RFC 619's Table 1 on the original program (issue 73 §3): `ko-v2-map` run by `nmc run` with
/// `[network.program]`, every IMP on the emulator, the pump silent (`traffic.0.count=0`), the
/// background at RFC 619's December 1973 level (`traffic.1.messages_per_second=30.8`, as the
/// model's RFC619-T1 rows), 5 minutes after a 10 s settle; each run's `summary.json`, compiled in
/// (re-made by the command in the folder's README).
const T1_RUNS: [(u64, &str); 3] = [
    (
        1,
        include_str!(
            "../../../../data/oracle/emulated/program-rfc619-t1-apart/seed-1/summary.json"
        ),
    ),
    (
        2,
        include_str!(
            "../../../../data/oracle/emulated/program-rfc619-t1-apart/seed-2/summary.json"
        ),
    ),
    (
        3,
        include_str!(
            "../../../../data/oracle/emulated/program-rfc619-t1-apart/seed-3/summary.json"
        ),
    ),
];

/// Where the recorded RFC 619 runs are, for the rows' notes.
pub const T1_RECORDED: &str = "data/oracle/emulated/program-rfc619-t1-apart";

/// One distance of RFC 619's Table 1 on the original program.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct T1Row {
    /// Minimum hops between the IMPs.
    pub hops: u32,
    /// Mean over the seeds of the mean round trip (packet 1 in the source IMP → RFNM), ms.
    pub rtt_ms: f64,
    /// Each seed's, ms.
    pub rtt_by_seed: String,
    /// Messages answered, all seeds.
    pub messages: f64,
}

/// The recorded runs' RFC 619 rows, 1–9 hops; an error names a run that does not parse or has
/// no answered message at a distance.
pub fn t1_rows() -> Result<Vec<T1Row>> {
    let mut rows = Vec::new();
    for h in 1..=9u32 {
        let (mut rtt, mut n) = (Vec::new(), 0.0);
        for (seed, text) in T1_RUNS {
            let v: serde_json::Value = serde_json::from_str(text)
                .with_context(|| format!("{T1_RECORDED}/seed-{seed}/summary.json"))?;
            let at = |k: &str| v["metrics"][format!("background.rtt_by_hops.{h:02}.{k}")].as_f64();
            let (Some(r), Some(m)) = (at("mean_ms"), at("messages")) else {
                bail!("{T1_RECORDED}/seed-{seed}: no background message answered at {h} hops");
            };
            rtt.push(r);
            n += m;
        }
        rows.push(T1Row {
            hops: h,
            rtt_ms: rtt.iter().sum::<f64>() / rtt.len() as f64,
            rtt_by_seed: rtt
                .iter()
                .map(|x| format!("{x:.1}"))
                .collect::<Vec<_>>()
                .join(" "),
            messages: n,
        });
    }
    Ok(rows)
}

/// RFC619-T1 on the original program, beside the model's rows: `target` gives RFC 619's value
/// and tolerance at a distance, `model` the model's round trip there (for the notes). Writes
/// `program_rfc619_table1.csv`.
pub fn t1_checks(
    ctx: &mut Context,
    target: &dyn Fn(u32) -> Target,
    model: &dyn Fn(u32) -> f64,
) -> Result<()> {
    let rows = t1_rows()?;
    ctx.csv("program_rfc619_table1", &rows)?;
    let why = format!(
        "the original IMP program 3050 (Sept 1973) on nmc's H316 emulator, every IMP of the June \
         1974 map, the December 1973 load, no pump, each IMP switched on at an instant of its \
         own; mean of {} recorded seeds ({T1_RECORDED}; nmc run with [network.program] and \
         power_on = \"apart\" re-makes them)",
        T1_RUNS.len()
    );
    for r in &rows {
        let h = r.hops;
        ctx.check(
            &format!("RFC619-T1 program {h} hop{}", if h > 1 { "s" } else { "" }),
            &format!(
                "network's own messages, mean round trip T(6)−T(2), {h} hop{}, the original IMP program (seeds: {} ms)",
                if h > 1 { "s" } else { "" },
                r.rtt_by_seed
            ),
            "ms",
            "RFC 619 Table 1, Dec 1973, without status reports",
            target(h),
            Value::Num(r.rtt_ms),
        )
        .variant(&why)
        .with_note(&format!("the model's row: {:.0} ms", model(h)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_recorded_run_has_nine_clean_distances() {
        let rows = rows().unwrap();
        assert_eq!(rows.len(), 9);
        for r in &rows {
            assert_eq!(r.throughput_by_seed.split(' ').count(), RUNS.len());
            assert!(
                r.experiment.contains(&format!("{}hop", r.hops)),
                "{}",
                r.experiment
            );
            // Sanity: under the 50 kbit/s lines, and a round trip of at least one 8-packet
            // message's time on one of them (161 ms).
            assert!((1.0..50.0).contains(&r.throughput_kbps), "{r:?}");
            assert!(r.rtt_ms > 161.0, "{r:?}");
        }
    }

    #[test]
    fn every_recorded_rfc619_run_answers_at_every_distance() {
        let rows = t1_rows().unwrap();
        assert_eq!(rows.len(), 9);
        for r in &rows {
            assert_eq!(r.rtt_by_seed.split(' ').count(), T1_RUNS.len());
            // Sanity: a packet and a RFNM over each hop take more than 10 ms.
            assert!(
                r.rtt_ms > 10.0 * f64::from(r.hops) && r.messages > 10.0,
                "{r:?}"
            );
        }
    }
}
