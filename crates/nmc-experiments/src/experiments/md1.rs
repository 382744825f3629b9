//! `md1-queue`: one line under Poisson arrivals of fixed-length packets is an M/D/1 queue.
//!
//! Expected: the Pollaczek–Khinchine mean wait W = ρ·S / (2(1 − ρ)), S = 1008 bit / 50 kbit/s.
//! Tolerance ±2 % (issue 2), on 2000 simulated minutes per load (200 in `--quick`, ±5 %).

use crate::registry::{Context, Experiment, Plan};
use anyhow::Result;
use nmc_net::{StoreForwardScenario, run};
use nmc_report::{Chart, Series, SeriesStyle, Target, Value};
use nmc_sim::{SimDuration, Trace};

/// The `md1-queue` experiment: one line's mean wait under Poisson arrivals of fixed-length
/// packets against the Pollaczek–Khinchine formula.
pub struct Md1;

const SCENARIO: &str = include_str!("../../../../scenarios/md1.toml");

impl Experiment for Md1 {
    fn id(&self) -> &'static str {
        "md1-queue"
    }
    fn title(&self) -> &'static str {
        "One line under Poisson arrivals: mean wait against Pollaczek–Khinchine"
    }
    fn source(&self) -> &'static str {
        "queueing theory (M/D/1, Pollaczek–Khinchine mean-value formula)"
    }
    fn chapter(&self) -> &'static str {
        "docs/src/tutorials/reproduce.md"
    }
    fn plan(&self) -> Plan {
        Plan::shortened(
            "200 simulated minutes per load instead of 2000, tolerance ±5 % instead of ±2 %",
        )
    }
    fn run(&self, ctx: &mut Context) -> Result<()> {
        let service_ns = 20_160_000u64;
        let loads = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
        let (minutes, rel) = if ctx.quick { (200, 0.05) } else { (2000, 0.02) };
        let mut ours_pts = Vec::new();
        let mut theory_pts = Vec::new();
        for (i, &rho) in loads.iter().enumerate() {
            let mean_interval = SimDuration::from_nanos((service_ns as f64 / rho).round() as u64);
            let sets = [
                format!("traffic.0.arrivals.mean_interval={mean_interval}").parse()?,
                format!("duration={minutes}min").parse()?,
            ];
            let s: StoreForwardScenario = nmc_scenario::load("md1", SCENARIO, &sets)?;
            let out = run(&s, ctx.seed, Trace::off(), &mut |_| {})?;
            let s_ms = service_ns as f64 / 1e6;
            let ours = out.metrics.delay.mean_ms - s_ms;
            let theory = rho * s_ms / (2.0 * (1.0 - rho));
            ours_pts.push((rho, ours));
            theory_pts.push((rho, theory));
            if [0.3, 0.5, 0.7].contains(&rho) {
                ctx.check(
                    &format!("MD1 ρ={rho}"),
                    &format!("mean wait at ρ = {rho}"),
                    "ms",
                    "Pollaczek–Khinchine",
                    Target::Rel { value: theory, rel },
                    Value::Num(ours),
                );
            }
            ctx.progress((i + 1) as f64 / loads.len() as f64);
        }
        let chart = Chart::new(
            "M/D/1: mean wait in queue",
            "load ρ (fraction of capacity)",
            "mean wait (ms)",
        )
        .with(Series::new(
            "Pollaczek–Khinchine",
            SeriesStyle::Dashed,
            theory_pts,
        ))
        .with(Series::new("nmc", SeriesStyle::Points, ours_pts));
        ctx.plot(
            "md1-wait",
            "Mean wait against load, simulated and theoretical.",
            &chart,
        )
    }
}
