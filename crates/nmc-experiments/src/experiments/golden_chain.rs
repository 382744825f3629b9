//! `golden-chain`: the engine's exact check (issue 2).
//!
//! Scenario `scenarios/golden-chain.toml`: 5 nodes, 50 kbit/s lines, 0.1 ms propagation,
//! 1008-bit packets every 20.16 ms. The expected values follow from arithmetic, not a paper:
//! 1008 bit / 50 kbit/s = 20.16 ms per hop, plus 0.1 ms, times 4 hops = 81.040 ms, and a
//! source that offers exactly one packet per transmission time never queues or loses one.

use crate::registry::{Context, Experiment, Plan};
use anyhow::Result;
use nmc_net::{StoreForwardScenario, run};
use nmc_report::{Chart, Series, SeriesStyle, Target, Value};
use nmc_sim::Trace;

/// `scenarios/golden-chain.toml`, built in: the 5-node chain the experiment runs.
pub const SCENARIO: &str = include_str!("../../../../scenarios/golden-chain.toml");

/// The `golden-chain` experiment: the engine's exact check against arithmetic (issue 2).
pub struct GoldenChain;

impl Experiment for GoldenChain {
    fn id(&self) -> &'static str {
        "golden-chain"
    }
    fn title(&self) -> &'static str {
        "Golden chain: 5 nodes, 50 kbit/s, 1008-bit packets every 20.16 ms"
    }
    fn source(&self) -> &'static str {
        "issue 2 (arithmetic: 4 × (1008 bit / 50 kbit/s + 0.1 ms))"
    }
    fn chapter(&self) -> &'static str {
        "docs/src/tutorials/reproduce.md"
    }
    fn plan(&self) -> Plan {
        Plan::quick(&["duration=1min"])
    }
    fn run(&self, ctx: &mut Context) -> Result<()> {
        let s: StoreForwardScenario =
            ctx.loader()
                .load("scenarios/golden-chain.toml", SCENARIO, &[])?;
        let total = s.duration.as_nanos() as f64;
        let out = run(&s, ctx.seed, Trace::off(), &mut |t| {
            ctx.progress(t.as_nanos() as f64 / total)
        })?;
        let m = &out.metrics;
        let src = "arithmetic (issue 2)";
        ctx.check(
            "CHAIN delay",
            "mean end-to-end delay",
            "ms",
            src,
            Target::Abs {
                value: 81.040,
                abs: 0.0005,
            },
            Value::Num(m.delay.mean_ms),
        );
        let settled = m.packets.offered as f64 - m.packets.in_flight as f64;
        ctx.check(
            "CHAIN delivered",
            "delivered / offered (excluding packets still in flight at the end)",
            "",
            src,
            Target::Abs {
                value: 1.0,
                abs: 0.0,
            },
            Value::Num(m.packets.delivered as f64 / settled),
        )
        // Issue 17: one packet per transmission time never queues more than one packet behind
        // a 64-packet limit, so nothing can be dropped; the row checks conservation, not timing.
        .sanity_bound(
            "a source at exactly the line rate never fills a 64-packet queue: nothing can be lost",
        );
        ctx.note(format!(
            "{} packets offered, {} delivered, {} in flight at the end, {} dropped; {} events.",
            m.packets.offered,
            m.packets.delivered,
            m.packets.in_flight,
            m.packets.dropped,
            out.events
        ));
        let util: Vec<(f64, f64)> = out
            .lines
            .iter()
            .map(|l| (l.channel as f64, l.utilisation))
            .collect();
        ctx.csv("lines", &out.lines)?;
        let chart = Chart::new(
            "Golden chain: channel utilisation",
            "channel (index: 2k = node k→k+1, 2k+1 = back)",
            "utilisation (fraction of time busy)",
        )
        .with(Series::new(
            "utilisation",
            SeriesStyle::Bars { width: 0.6 },
            util,
        ));
        ctx.plot(
            "utilisation",
            "Forward channels are busy all the time; return channels idle.",
            &chart,
        )
    }
}
