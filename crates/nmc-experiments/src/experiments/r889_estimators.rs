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
//! Targets: "some ten percent" better → +10 ± 5 %; "worse by a few percent" → −3 ± 3 %.

use crate::registry::{Context, Experiment};
use anyhow::{Result, anyhow};
use nmc_report::{Target, Value};
use nmc_rto::estimator::{Mills, Rsre};
use nmc_rto::eval::{Charge, RtxCharge, replay};
use nmc_rto::r889::{Shaping, published, r889_3};
use serde::Serialize;

pub struct R889Estimators;

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
        let mut rows = Vec::new();
        let mut main = Vec::new();
        let variants = [
            (Shaping::Calibrated, RtxCharge::Delay),
            (Shaping::Calibrated, RtxCharge::Timeout),
            (Shaping::Calibrated, RtxCharge::Excess),
            (Shaping::Judgement, RtxCharge::Delay),
        ];
        for (vi, (shaping, rtx)) in variants.into_iter().enumerate() {
            let charge = Charge { rtx, ..base_charge };
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
                &format!("R889-3 {}", r.host),
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
        ctx.csv("r889-3", &rows)?;

        // The Fuzzball display of the first run of each path, for both estimators.
        let mills = Mills::new(15.0 / 16.0, 3.0 / 4.0, 2.0);
        let rsre = Rsre::new(7.0 / 8.0, 2.0);
        std::fs::create_dir_all(&ctx.dir)?;
        for r in &main {
            let trace = r.model.generate(ctx.seed).map_err(|e| anyhow!("{e}"))?;
            for (name, est) in [
                ("mills", &mills as &dyn nmc_rto::Estimator),
                ("rsre", &rsre),
            ] {
                let (s, steps) = replay(&trace, est, &base_charge);
                let svg = nmc_rto::plot::fuzzball_svg(&s, &steps).map_err(|e| anyhow!(e))?;
                let stem = format!("{}-{name}", r.host.to_lowercase());
                std::fs::write(ctx.dir.join(format!("{stem}.svg")), &svg)?;
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
}
