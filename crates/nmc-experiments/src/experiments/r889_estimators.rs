//! `r889-estimators`: RFC 889 §3.3 — Mills' two-gain estimator against the RSRE algorithm.
//!
//! Source: RFC 889 (Mills, Dec 1983) §3.3: with F1 = 15/16, F2 = 3/4, G = 2 "the results on some
//! paths (FOE, ISID, ISIA) were better by some ten percent in efficiency, as compared to the
//! values now used in typical implementations where F = 7/8 and G = 2. The results on most paths
//! were better by five percent, while on a couple (FACC, UCL) the results were worse by a few
//! percent."
//!
//! Scenario: Mills' delay records are not available, so each named path is a synthetic one
//! (`nmc_rto::synth`) fitted to its row of the RFC 889 table: mean and CoV exactly in
//! expectation, loss rate = Lost/512, and the netspurt shape calibrated so that Mills' estimator
//! sees the table's RTX count and time (`nmc_rto::r889::calibrate`). Both estimators are then
//! replayed over the same runs (512 volleys each; 20 runs, 5 with `--quick`) and their mean
//! efficiencies compared: gain = 100 · (Eff_Mills − Eff_RSRE) / Eff_RSRE.
//!
//! Targets: "some ten percent" better → +10 ± 5 %; "worse by a few percent" → −3 ± 1.5 %.
//! Issue 56: an effect of about `x` is scored within ±`x`/2, so that no band admits no effect;
//! before, "worse by a few percent" was −3 ± 3 and "most paths" +5 ± 5, and both passed a gain
//! of zero.
//!
//! **A second source: traces from path models** (`nmc-internet`, see `rfc889-paths`): the
//! simulated PING over FOE with its multiplexor's other channels (`foe-mux.toml`) and the NTA
//! paths TANUM, ETAM, GOONY (`tanum/etam/goony.toml`), whose delay bursts and losses come from
//! mechanisms — a gateway's finite buffer under bursts of other traffic, SATNET's frame wait,
//! reservation contention and channel loss — and not from the table they are judged against;
//! and the 13 paths across the ARPANET through the IMP model (`rfc889-arpanet`, each beside its
//! §3 row: ISID-L as "ISID", ISID-H as "ISID *", ISIA-H as "ISIA *"), whose delays vary with
//! the datagram's length and, on the loaded ones, with the subnet's other traffic.
//! The same replay (one-way delays, RFC 889 §3's 30 s loss rule) under each charging rule;
//! rows, stated before running: FOE's claim as above (+10 ± 5 %), and "the results on most
//! paths were better by five percent" as the **median gain over the modelled paths, +5 ± 2.5 %**.
//! Five runs per path model (two with `--quick`), run on all cores.

use crate::registry::{Context, Experiment, Plan};
use anyhow::{Result, anyhow};
use nmc_report::{Target, Value};
use nmc_rto::estimator::{Mills, Rsre};
use nmc_rto::eval::{Charge, RtxCharge, replay};
use nmc_rto::r889::{R889Row, Shaping, presets, published, r889_3};
use rayon::prelude::*;
use serde::Serialize;

use super::rfc889_paths::{load, r889_3_paths};

/// The `r889-estimators` experiment: Mills' two-gain retransmission-timeout estimator against
/// the RSRE algorithm, on synthetic paths fitted to the RFC 889 table (RFC 889 §3.3).
pub struct R889Estimators;

/// Runs of 512 volleys per path model, quick or not: a run across the loaded ARPANET takes about
/// a second (ISIA-H's two loaded crossings 1.6 s), so 20 runs of the 17 paths would take 2 minutes
/// of the full reproduction on their own. Five runs give each path 2,560 volleys.
const PATH_MODEL_RUNS: usize = 5;
/// With `--quick`.
const PATH_MODEL_RUNS_QUICK: usize = 2;

#[derive(Serialize)]
struct Row {
    path: &'static str,
    shaping: &'static str,
    rtx_charge: &'static str,
    runs: usize,
    eff_mills: f64,
    eff_rsre: f64,
    gain_pct: f64,
    claim_pct: f64,
    mean_ms: f64,
    paper_mean_ms: f64,
    cov: f64,
    paper_cov: f64,
    lost_per_run: f64,
    paper_lost: u32,
    mills_rtx_per_run: f64,
    paper_rtx: u32,
    mills_rtx_time_s: f64,
    paper_rtx_time_s: f64,
    rsre_rtx_per_run: f64,
    calm_mean: f64,
    spurt_level_over_mean: f64,
    base_ms: f64,
    jitter_ms: f64,
    paper_eff_mills: f64,
}

impl Experiment for R889Estimators {
    fn id(&self) -> &'static str {
        "r889-estimators"
    }
    fn title(&self) -> &'static str {
        "TCP retransmission timeout: Mills (F1=15/16, F2=3/4, G=2) against RSRE (F=7/8, G=2)"
    }
    fn source(&self) -> &'static str {
        "RFC 889 §3 (Mills, Dec 1983)"
    }
    fn chapter(&self) -> &'static str {
        "docs/src/explanation/rfc889.md"
    }
    fn plan(&self) -> Plan {
        Plan::shortened(
            "5 runs of 512 volleys per path instead of 20, 2 path-model runs instead of 5",
        )
    }
    fn run(&self, ctx: &mut Context) -> Result<()> {
        let runs = if ctx.quick { 5 } else { 20 };
        let base_charge = Charge::default();
        ctx.note(format!(
            "Synthetic paths fitted to the RFC 889 table (mean, CoV, loss rate; netspurt shape \
             calibrated to Mills' RTX count and time), {runs} runs of 512 volleys each, seed {}. \
             Gain = 100 × (Eff Mills − Eff RSRE) / Eff RSRE. {}.",
            ctx.seed,
            base_charge.describe()
        ));
        let (rows, main) = synthetic(ctx, runs, &base_charge)?;
        ctx.csv("r889-3", &rows)?;
        let model_runs = if ctx.quick {
            PATH_MODEL_RUNS_QUICK
        } else {
            PATH_MODEL_RUNS
        };
        path_models(ctx, model_runs)?;
        count_path_models(ctx);
        fuzzball(ctx, &main, &base_charge)
    }
}

/// R889-3 on synthetic traces: every path under each shaping and RTX charge (the rows of
/// `r889-3.csv`), a sensitivity note per variant, and a row per path for the first (the
/// calibrated shapes, RTX charged as delay), whose results it returns.
fn synthetic(
    ctx: &mut Context,
    runs: usize,
    base_charge: &Charge,
) -> Result<(Vec<Row>, Vec<R889Row>)> {
    let mut rows = Vec::new();
    let mut main = Vec::new();
    let variants = [
        (Shaping::Calibrated, RtxCharge::Delay),
        (Shaping::Calibrated, RtxCharge::Timeout),
        (Shaping::Calibrated, RtxCharge::Excess),
        (Shaping::Judgement, RtxCharge::Delay),
    ];
    for (vi, (shaping, rtx)) in variants.into_iter().enumerate() {
        let charge = Charge {
            rtx,
            ..*base_charge
        };
        let progress = |f: f64| ctx.progress((vi as f64 + f) / variants.len() as f64);
        let result =
            r889_3(ctx.seed, runs, &charge, shaping, &progress).map_err(|e| anyhow!("{e}"))?;
        for r in &result {
            let p = published(r.host).expect("preset rows exist");
            rows.push(Row {
                path: r.host,
                shaping: match shaping {
                    Shaping::Calibrated => "calibrated",
                    Shaping::Judgement => "judgement",
                },
                rtx_charge: rtx.name(),
                runs,
                eff_mills: r.eff_mills,
                eff_rsre: r.eff_rsre,
                gain_pct: r.gain_pct,
                claim_pct: r.claim.gain_pct,
                mean_ms: r.mean_ms,
                paper_mean_ms: p.mean_ms,
                cov: r.cov,
                paper_cov: p.cov,
                lost_per_run: r.lost_per_run,
                paper_lost: p.lost,
                mills_rtx_per_run: r.mills_rtx_per_run,
                paper_rtx: p.rtx,
                mills_rtx_time_s: r.mills_rtx_time_per_run,
                paper_rtx_time_s: p.rtx_time,
                rsre_rtx_per_run: r.rsre_rtx_per_run,
                calm_mean: r.shape.calm_mean,
                spurt_level_over_mean: r.shape.excess_over_mean,
                base_ms: r.model.base * 1e3,
                jitter_ms: r.model.jitter * 1e3,
                paper_eff_mills: p.eff,
            });
        }
        if vi == 0 {
            main = result;
        } else {
            let gains: Vec<String> = result
                .iter()
                .map(|r| format!("{} {:+.1} %", r.host, r.gain_pct))
                .collect();
            ctx.note(format!(
                "Sensitivity — {} shapes, RTX charged as {}: {}.",
                match shaping {
                    Shaping::Calibrated => "calibrated",
                    Shaping::Judgement => "judgement",
                },
                rtx.name(),
                gains.join(", ")
            ));
        }
    }
    for r in &main {
        ctx.check(
            &format!("R889-3 {} (synthetic)", r.host),
            &format!(
                "efficiency gain, Mills over RSRE, {} (Mills {:.3}, RSRE {:.3})",
                r.host, r.eff_mills, r.eff_rsre
            ),
            "%",
            "RFC 889 §3.3",
            Target::Abs {
                value: r.claim.gain_pct,
                abs: r.claim.tolerance_pct,
            },
            Value::Num(r.gain_pct),
        );
    }
    Ok((rows, main))
}

/// Issue 31: where a path model gives the same claim, the synthetic row is its variant (its
/// traces are shaped so that Mills' estimator sees the §3 row's RTX count and time, so the
/// path model, fitted to nothing in §3, is the one counted).
fn count_path_models(ctx: &mut Context) {
    // Issue 31: where a path model gives the same claim, the synthetic row is its variant
    // (its traces are shaped so that Mills' estimator sees the §3 row's RTX count and time,
    // so the path model, fitted to nothing in §3, is the one counted).
    let modelled: Vec<String> = ctx
        .rows()
        .iter()
        .filter_map(|c| c.id.strip_suffix(" (path model)").map(str::to_string))
        .collect();
    for c in ctx.rows_mut() {
        if let Some(base) = c.id.strip_suffix(" (synthetic)")
            && modelled.iter().any(|m| m == base)
        {
            c.variant(&format!(
                "{base}'s claim on synthetic traces shaped to the §3 row's RTX count and \
                     time; the path-model row, fitted to nothing in §3, is counted"
            ));
        }
    }
}

/// The Fuzzball display of the first run of each path, for both estimators.
fn fuzzball(ctx: &mut Context, main: &[R889Row], base_charge: &Charge) -> Result<()> {
    // The Fuzzball display of the first run of each path, for both estimators.
    let mills = Mills::new(15.0 / 16.0, 3.0 / 4.0, 2.0);
    let rsre = Rsre::new(7.0 / 8.0, 2.0);
    std::fs::create_dir_all(&ctx.dir)?;
    for r in main {
        let trace = r.model.generate(ctx.seed).map_err(|e| anyhow!("{e}"))?;
        for (name, est) in [
            ("mills", &mills as &dyn nmc_rto::Estimator),
            ("rsre", &rsre),
        ] {
            let (s, steps) = replay(&trace, est, base_charge);
            let svg = nmc_rto::plot::fuzzball_svg(&s, &steps).map_err(|e| anyhow!(e))?;
            let stem = format!("{}-{name}", r.host.to_lowercase());
            nmc_report::files::write(ctx.dir.join(format!("{stem}.svg")), &svg)?;
            ctx.section
                .files
                .push(format!("{}/{stem}.svg", ctx.section.id));
            ctx.section.plots.push((
                    format!(
                        "{} ({name}): delays of run 1 with the computed timeout drawn over them (the Fuzzball display).",
                        r.host
                    ),
                    svg,
                ));
        }
    }
    Ok(())
}

/// One run of a path model as an RFC 889 §3 trace: send times and one-way delays; a volley with
/// no reply has no delay (lost).
fn model_trace(
    s: &nmc_internet::InternetScenario,
    seed: u64,
    name: &str,
) -> Result<nmc_rto::trace::Trace> {
    let out = nmc_internet::run(s, seed)?;
    let probes = out
        .volleys
        .iter()
        .filter_map(|v| {
            let sent = v.sent?;
            Some(nmc_rto::trace::Probe::new(
                nmc_rto::time::Nanos(sent.0),
                v.one_way().map(|d| nmc_rto::time::Nanos(d.0)),
            ))
        })
        .collect();
    Ok(nmc_rto::trace::Trace {
        name: name.into(),
        probes,
    })
}

#[derive(Serialize)]
struct ModelRow {
    path: &'static str,
    source: &'static str,
    rtx_charge: &'static str,
    runs: usize,
    eff_mills: f64,
    eff_rsre: f64,
    gain_pct: f64,
    mean_ms: f64,
    paper_mean_ms: f64,
    cov: f64,
    paper_cov: f64,
    lost_per_run: f64,
    paper_lost: u32,
    mills_rtx_per_run: f64,
    paper_rtx: u32,
    rsre_rtx_per_run: f64,
    paper_eff_mills: f64,
}

use super::ko_v2_throughput::median;

/// R889-3 on the path models' traces (the second, labelled source).
fn path_models(ctx: &mut Context, runs: usize) -> Result<()> {
    let mills = Mills::new(15.0 / 16.0, 3.0 / 4.0, 2.0);
    let rsre = Rsre::new(7.0 / 8.0, 2.0);
    let rules = [RtxCharge::Delay, RtxCharge::Timeout, RtxCharge::Excess];
    let mut rows = Vec::new();
    let mut table = String::from(
        "R889-3 on path-model traces (source: nmc-internet path models, not fitted to §3)\n\
         Path   rule     Eff Mills  Eff RSRE  gain %  | mean ms (§3)   CoV (§3)     lost/run (§3)  RTX Mills (§3)\n",
    );
    let paths = r889_3_paths();
    // Every run of every path, on all cores: each run has its own seed, and the traces come
    // back in path and run order, so the result does not depend on the threads.
    let scenarios: Vec<_> = paths.iter().map(load).collect::<Result<_>>()?;
    let seed = ctx.seed;
    let all_traces: Vec<Vec<_>> = paths
        .par_iter()
        .zip(&scenarios)
        .map(|(p, s)| {
            let base = s.seed.unwrap_or(seed);
            (0..runs)
                .into_par_iter()
                .map(|r| model_trace(s, base.wrapping_add(r as u64), p.id))
                .collect::<Result<Vec<_>>>()
        })
        .collect::<Result<_>>()?;
    let mut main_gain = Vec::new();
    for (p, traces) in paths.iter().zip(&all_traces) {
        let paper = published(&p.sec3).ok_or_else(|| anyhow!("{}: no §3 row", p.sec3))?;
        for rtx in rules {
            let charge = Charge {
                rtx,
                ..Charge::default()
            };
            let (mut em, mut er, mut mean, mut cov, mut lost, mut mr, mut rr) =
                (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
            for t in traces {
                let sm = replay(t, &mills, &charge).0;
                let sr = replay(t, &rsre, &charge).0;
                em += sm.efficiency;
                er += sr.efficiency;
                mean += sm.mean;
                cov += sm.cov;
                lost += sm.lost as f64;
                mr += sm.rtx as f64;
                rr += sr.rtx as f64;
            }
            let k = runs as f64;
            let (em, er) = (em / k, er / k);
            let gain = 100.0 * (em - er) / er;
            if rtx == RtxCharge::Delay {
                main_gain.push((p.sec3.as_str(), gain, em, er));
            }
            use std::fmt::Write as _;
            writeln!(
                table,
                "{:<6} {:<8} {:>9.3} {:>9.3} {:>+7.1}  | {:>6.0} ({:>5.0})  {:>5.2} ({:>4.2})  {:>5.1} ({:>3})      {:>5.1} ({:>2})",
                p.id,
                rtx.name(),
                em,
                er,
                gain,
                mean / k * 1e3,
                paper.mean_ms,
                cov / k,
                paper.cov,
                lost / k,
                paper.lost,
                mr / k,
                paper.rtx
            )?;
            rows.push(ModelRow {
                path: p.id,
                source: "path model",
                rtx_charge: rtx.name(),
                runs,
                eff_mills: em,
                eff_rsre: er,
                gain_pct: gain,
                mean_ms: mean / k * 1e3,
                paper_mean_ms: paper.mean_ms,
                cov: cov / k,
                paper_cov: paper.cov,
                lost_per_run: lost / k,
                paper_lost: paper.lost,
                mills_rtx_per_run: mr / k,
                paper_rtx: paper.rtx,
                rsre_rtx_per_run: rr / k,
                paper_eff_mills: paper.eff,
            });
        }
    }
    for (id, gain, em, er) in &main_gain {
        if let Some(claim) = presets().iter().find(|p| p.host == *id).map(|p| p.claim) {
            ctx.check(
                &format!("R889-3 {id} (path model)"),
                &format!(
                    "efficiency gain, Mills over RSRE, {id}, on path-model traces (Mills {em:.3}, RSRE {er:.3})"
                ),
                "%",
                "RFC 889 §3.3",
                Target::Abs {
                    value: claim.gain_pct,
                    abs: claim.tolerance_pct,
                },
                Value::Num(*gain),
            );
        }
    }
    let gains: Vec<f64> = main_gain.iter().map(|g| g.1).collect();
    let names: Vec<String> = main_gain
        .iter()
        .map(|g| format!("{} {:+.1}", g.0, g.1))
        .collect();
    ctx.check(
        "R889-3 most paths (path models)",
        &format!(
            "median efficiency gain, Mills over RSRE, over the path models ({})",
            names.join(", ")
        ),
        "%",
        "RFC 889 §3.3: \"The results on most paths were better by five percent\"",
        // Issue 56: half the effect, so that "no effect" misses.
        Target::Abs {
            value: 5.0,
            abs: 2.5,
        },
        Value::Num(median(gains)),
    );
    ctx.csv("r889-3-path-models", &rows)?;
    ctx.text("r889-3-path-models.txt", &table)?;
    ctx.note(format!(
        "Second source — traces from path models ({runs} runs of 512 volleys per path, seeds from each scenario's). \
         Time charged as the first source ({}); the rule column varies what an RTX costs:\n```\n{table}```",
        Charge::default().describe()
    ));
    Ok(())
}
