//! `ko-alternate-path`: what alternate routing adds to one host's throughput (K&O §III, KO-10).
//!
//! Scenario (K&O §III): one host pumps 8-packet messages over two equally long, independent
//! paths (`scenarios/ko-alternate-path.toml`: SRC–P1–DST and SRC–P2–DST, 50 kbit/s, no
//! interfering traffic), under the adaptive routing of 1974; the single-path throughput is the
//! same scenario with static routes (everything over P1). Then a 1-hop and a 2-hop primary
//! with alternates of every length up to 3n + 1 hops (`scenarios/ko-alternate-3x.toml`).
//!
//! Targets, stated before the runs (K&O §III):
//! * KO-10: "even if primary and secondary paths are equally long, at most a 30 percent
//!   increase in throughput can be achieved": the gain over one path, 0–30 %, ±10 % of the
//!   ends, under each variant of the 1974 update rule (no loop prevention, the 1974 hold-down,
//!   our reading of the later hold-down); the 1974 hold-down's row is counted, the others are
//!   *variants* of it (issue 31).
//! * KO-10 mechanism: "the frequency of switching between lines is limited to once every
//!   640 ms": mean time between switches ≥ 640 ms; "the backlogged queue of 8 packets on the
//!   old path": packets waiting on the old line when the pump's packets switch, 8 ± 15 %.
//! * KO-10 3×: "an alternate path is never used if it is more than three times longer": pump
//!   packets sent on an alternate of more than 3n hops, at most 0.
//!
//! Kinds (issue 17): the backlog row restates `output_queue_max` (8) and the 3× rows cannot
//! fail with 4–12 units per hop; they are shown, marked, and not counted in the headline.
//! Issue 56: the gain row's band (no gain up to 30 %) admits a model that never uses the second
//! path, so it cannot test the claim; it is a sanity bound, and KO-10's verdict rests on the
//! switching row (the 640 ms that K&O's 30 % follows from).
//!
//! The loop-free comparison (feasible successors) re-chooses among stored reports at every
//! routing message; it is not the 1974 procedure and gets no KO-10 row (its gain is in the
//! CSV and the notes).

use crate::registry::{Context, Experiment, Loader, Plan};
use anyhow::{Result, ensure};
use nmc_imp::Outcome;
use nmc_imp::scenario::ImpScenario;
use nmc_report::{Axis, Chart, Series, SeriesStyle, Target, Value};
use nmc_sim::Trace;
use serde::Serialize;

/// `scenarios/ko-alternate-path.toml`, built in: two equally long paths, SRC–P1–DST and
/// SRC–P2–DST (KO-10).
pub const EQUAL: &str = include_str!("../../../../scenarios/ko-alternate-path.toml");
/// `scenarios/ko-alternate-3x.toml`, built in: a 1-hop primary with a 4-hop alternate (KO-10
/// 3×); the experiment replaces its topology for the other lengths.
pub const LONG: &str = include_str!("../../../../scenarios/ko-alternate-3x.toml");

/// The `ko-alternate-path` experiment: what alternate routing adds to one host's throughput
/// (K&O §III, KO-10).
pub struct KoAlternatePath;

const SOURCE: &str = "Kleinrock & Opderbeck 1977, §III";
/// The rule K&O's network ran in 1974: its KO-10 gain row is the one shown as a bound (issue 56).
const PAPER_RULE: &str = "hold-down-1974";
/// The variants of the 1974 update rule (they get KO-10 rows), then the loop-free comparison.
const VARIANTS: [&str; 4] = ["none", PAPER_RULE, "hold-down-window", "feasible-successor"];

#[derive(Serialize)]
struct GainRow {
    routing: &'static str,
    throughput_kbps: f64,
    gain_percent: f64,
    packets_p1: usize,
    packets_p2: usize,
    switches: usize,
    mean_switch_interval_ms: f64,
    mean_backlog_at_switch: f64,
    overlap_per_switch_ms: f64,
    /// Overlap per switch over the switch interval: the gain K&O's argument predicts.
    predicted_gain_percent: f64,
    rtt_mean_ms: f64,
    hold_downs: f64,
}

#[derive(Serialize)]
struct SwitchRow {
    routing: &'static str,
    t_ms: f64,
    to: String,
    interval_ms: f64,
    backlog_on_old_line: u32,
}

#[derive(Serialize)]
struct AlternateRow {
    primary_hops: u32,
    alternate_hops: u32,
    ratio: f64,
    pump_packets: usize,
    on_alternate: usize,
    throughput_kbps: f64,
}

fn load(text: &str, sets: &[String], loader: Loader) -> Result<ImpScenario> {
    loader.load("ko-alternate-path", text, sets)
}

/// Each change of line in the pump's packets at the source: (time ms, new line, backlog on
/// the old line then).
fn switches(o: &Outcome) -> Vec<(f64, String, u32)> {
    let r = &o.routing;
    let mut out = Vec::new();
    let mut prev: Option<&str> = None;
    for s in &r.source_sends {
        if let Some(p) = prev
            && p != s.to
        {
            // The old line's queue at the sample just before the switch.
            let backlog = r
                .line_samples
                .iter()
                .take_while(|q| q.t_ns <= s.t_ns)
                .filter(|q| q.to == p)
                .last()
                .map_or(0, |q| q.queue);
            out.push((s.t_ns as f64 / 1e6, s.to.clone(), backlog));
        }
        prev = Some(&s.to);
    }
    out
}

/// `lines` for the `lines` topology: a primary of `n` hops and an alternate of `k` hops.
fn two_paths(n: u32, k: u32) -> String {
    let mut imps = vec!["\"SRC\"".to_string(), "\"DST\"".to_string()];
    let mut lines = Vec::new();
    let line = |a: &str, b: &str| {
        format!("{{ a = \"{a}\", b = \"{b}\", capacity = \"50kbit/s\", propagation = \"2ms\" }}")
    };
    for (prefix, hops) in [("P", n), ("A", k)] {
        let mut at = "SRC".to_string();
        for i in 1..hops {
            let next = format!("{prefix}{i}");
            imps.push(format!("\"{next}\""));
            lines.push(line(&at, &next));
            at = next;
        }
        lines.push(line(&at, "DST"));
    }
    format!(
        "network.topology={{ kind = \"lines\", imps = [{}], lines = [{}] }}",
        imps.join(", "),
        lines.join(", ")
    )
}

impl Experiment for KoAlternatePath {
    fn id(&self) -> &'static str {
        "ko-alternate-path"
    }
    fn title(&self) -> &'static str {
        "Alternate routing: at most ~30 % more throughput over two equal paths; never over one 3× longer (K&O §III)"
    }
    fn source(&self) -> &'static str {
        "Kleinrock & Opderbeck, IEEE Trans. Commun. COM-25(1), 1977, §III"
    }
    fn chapter(&self) -> &'static str {
        "docs/src/explanation/ko-1977.md"
    }
    fn plan(&self) -> Plan {
        Plan::quick(&["duration=2min"])
    }

    fn run(&self, ctx: &mut Context) -> Result<()> {
        let g = Self::gains(ctx)?;
        Self::gain_checks(ctx, &g);
        let alternates = Self::three_times_rule(ctx)?;
        Self::outputs(ctx, &g, &alternates)?;
        Self::notes(ctx, &g, &alternates);
        ctx.progress(1.0);
        Ok(())
    }
}

/// The two-path runs and their baseline.
struct Gains {
    /// Static routes, everything over P1, kbit/s.
    base: f64,
    /// One full packet on a 50 kbit/s line, ms (K&O: 23.5 ms).
    packet_ms: f64,
    /// One row per loop prevention.
    gains: Vec<GainRow>,
    switch_rows: Vec<SwitchRow>,
    /// The run without loop prevention, for the queue pictures.
    series_run: Option<Outcome>,
}

/// The gain row of loop prevention `v`.
fn row<'a>(gains: &'a [GainRow], v: &str) -> &'a GainRow {
    gains.iter().find(|g| g.routing == v).expect("ran")
}

impl KoAlternatePath {
    /// Two equal 2-hop paths under each loop prevention, beside static routes over one.
    fn gains(ctx: &mut Context) -> Result<Gains> {
        let loader = ctx.loader();
        // One path: static routes send everything over P1.
        let single = load(
            EQUAL,
            &[
                "network.routing=static".into(),
                "network.routing_params={}".into(),
            ],
            loader,
        )?;
        let single = nmc_imp::scenario::run(&single, ctx.seed, Trace::off(), &mut |_| {})?;
        let base = single.metrics.pair.throughput_kbps;
        let params = &single.params;
        // One full packet on a 50 kbit/s line (K&O: 23.5 ms).
        let packet_ms = (params.max_packet.get() + params.packet_overhead.get()) as f64 / 50.0;
        ctx.progress(0.1);

        let mut gains = Vec::new();
        let mut switch_rows = Vec::new();
        let mut series_run: Option<Outcome> = None;
        for (i, v) in VARIANTS.into_iter().enumerate() {
            let s = load(
                EQUAL,
                &[format!("network.routing_params.loop_prevention={v}")],
                loader,
            )?;
            let o = nmc_imp::scenario::run(&s, ctx.seed, Trace::off(), &mut |_| {})?;
            let thr = o.metrics.pair.throughput_kbps;
            let sw = switches(&o);
            let intervals: Vec<f64> = sw.windows(2).map(|w| w[1].0 - w[0].0).collect();
            let mean = |x: &[f64]| {
                if x.is_empty() {
                    f64::NAN
                } else {
                    x.iter().sum::<f64>() / x.len() as f64
                }
            };
            let interval = mean(&intervals);
            let backlog = mean(&sw.iter().map(|s| s.2 as f64).collect::<Vec<_>>());
            let on = |to: &str| o.routing.source_sends.iter().filter(|s| s.to == to).count();
            gains.push(GainRow {
                routing: v,
                throughput_kbps: thr,
                gain_percent: 100.0 * (thr / base - 1.0),
                packets_p1: on("P1"),
                packets_p2: on("P2"),
                switches: sw.len(),
                mean_switch_interval_ms: interval,
                mean_backlog_at_switch: backlog,
                overlap_per_switch_ms: backlog * packet_ms,
                predicted_gain_percent: 100.0 * backlog * packet_ms / interval,
                rtt_mean_ms: o.metrics.pair.rtt_mean_ms().unwrap_or(f64::NAN),
                hold_downs: o.metrics.routing.map_or(f64::NAN, |r| r.hold_downs as f64),
            });
            let mut last = f64::NAN;
            for (t, to, b) in &sw {
                switch_rows.push(SwitchRow {
                    routing: v,
                    t_ms: *t,
                    to: to.clone(),
                    interval_ms: t - last,
                    backlog_on_old_line: *b,
                });
                last = *t;
            }
            if v == "none" {
                series_run = Some(o);
            }
            ctx.progress(0.1 + 0.4 * (i + 1) as f64 / VARIANTS.len() as f64);
        }
        Ok(Gains {
            base,
            packet_ms,
            gains,
            switch_rows,
            series_run,
        })
    }

    /// KO-10's gain, switching and backlog rows.
    fn gain_checks(ctx: &mut Context, g: &Gains) {
        let row = |v: &str| row(&g.gains, v);
        for v in &VARIANTS[..3] {
            let row_of = ctx.check(
                &format!("KO-10 gain {v}"),
                &format!(
                    "throughput gain over one path, two equal 2-hop paths, adaptive routing ({v})"
                ),
                "%",
                &format!("{SOURCE}: \"at most a 30 percent increase\""),
                Target::Range {
                    lo: 0.0,
                    hi: 30.0,
                    rel: 0.1,
                },
                Value::Num(row(v).gain_percent),
            );
            // Issue 56: "at most a 30 percent increase" admits no gain at all, so a model that
            // never used the second path would meet it: the row cannot test the claim.
            if *v == PAPER_RULE {
                row_of.sanity_bound(
                    "\"at most a 30 percent increase\" admits no gain at all: a model that never used the \
                     second path meets it (KO-10's verdict rests on the switching row)",
                );
            }
            // Issue 31: one published figure, counted once, under the rule of its time.
            if *v != PAPER_RULE {
                row_of.variant(
                    "KO-10 gain hold-down-1974 under another update rule: K&O's network of 1974 ran the 1974 hold-down",
                );
            }
        }
        let none = row("none");
        ctx.check(
            "KO-10 switching",
            "mean time between the pump's switches of line (none)",
            "ms",
            &format!("{SOURCE}: \"limited to once every 640 ms\""),
            Target::AtLeast { value: 640.0 },
            Value::Num(none.mean_switch_interval_ms),
        );
        ctx.check(
            "KO-10 backlog",
            "packets waiting on the old line when the pump switches (none)",
            "packets",
            &format!("{SOURCE}: \"the backlogged queue of 8 packets\""),
            Target::Rel {
                value: 8.0,
                rel: 0.15,
            },
            Value::Num(none.mean_backlog_at_switch),
        )
        // Issue 17: the pump fills SRC's output queue to its limit before the estimate turns, so
        // the backlog at a switch is `output_queue_max` (8, K&O §III's own figure), an input.
        .restated_input("equals the IMP's `output_queue_max` of 8 packets: the pump fills the queue to its limit before switching");
    }

    /// The 3× rule: a primary of n hops, alternates of n+1 ..= 3n+1 hops.
    fn three_times_rule(ctx: &mut Context) -> Result<Vec<AlternateRow>> {
        let loader = ctx.loader();
        let mut alternates = Vec::new();
        let combos: Vec<(u32, u32)> = [1u32, 2]
            .iter()
            .flat_map(|&n| (n + 1..=3 * n + 1).map(move |k| (n, k)))
            .collect();
        for (i, &(n, k)) in combos.iter().enumerate() {
            let s = load(LONG, &[two_paths(n, k)], loader)?;
            let o = nmc_imp::scenario::run(&s, ctx.seed, Trace::off(), &mut |_| {})?;
            ensure!(o.hops == Some(n), "primary of {n} hops, got {:?}", o.hops);
            alternates.push(AlternateRow {
                primary_hops: n,
                alternate_hops: k,
                ratio: k as f64 / n as f64,
                pump_packets: o.routing.source_sends.len(),
                on_alternate: o
                    .routing
                    .source_sends
                    .iter()
                    .filter(|s| s.to == "A1")
                    .count(),
                throughput_kbps: o.metrics.pair.throughput_kbps,
            });
            ctx.progress(0.5 + 0.4 * (i + 1) as f64 / combos.len() as f64);
        }
        for a in alternates
            .iter()
            .filter(|a| a.alternate_hops > 3 * a.primary_hops)
        {
            ctx.check(
                &format!("KO-10 3× {}/{}", a.primary_hops, a.alternate_hops),
                &format!(
                    "pump packets sent on a {}-hop alternate to a {}-hop primary (hold-down-1974)",
                    a.alternate_hops, a.primary_hops
                ),
                "packets",
                &format!("{SOURCE}: \"never used if it is more than three times longer\""),
                Target::AtMost { value: 0.0 },
                Value::Num(a.on_alternate as f64),
            )
            // Issue 17: a line's delay estimate is 4 to 12 units, so an alternate of 3n + 1 hops
            // is at least 12n + 4 units and the n-hop primary at most 12n: the alternate is never
            // the shorter, whatever the load. The row cannot fail.
            .sanity_bound("with 4–12 units per hop an alternate of more than 3n hops (≥ 12n + 4 units) never beats an n-hop primary (≤ 12n)");
        }
        Ok(alternates)
    }

    /// The tables and the charts.
    fn outputs(ctx: &mut Context, g: &Gains, alternates: &[AlternateRow]) -> Result<()> {
        let Gains {
            gains,
            switch_rows,
            series_run,
            ..
        } = g;
        ctx.csv("gain", gains)?;
        ctx.csv("switches", switch_rows)?;
        ctx.csv("alternates", alternates)?;

        if let Some(o) = &series_run {
            let window_ns = 8_000_000_000u64;
            let r = &o.routing;
            let queue = |to: &str| -> Vec<(f64, f64)> {
                r.line_samples
                    .iter()
                    .filter(|q| q.to == to && q.t_ns <= window_ns)
                    .map(|q| (q.t_ns as f64 / 1e9, q.queue as f64))
                    .collect()
            };
            let sends = |to: &str, y: f64| -> Vec<(f64, f64)> {
                r.source_sends
                    .iter()
                    .filter(|s| s.to == to && s.t_ns <= window_ns)
                    .map(|s| (s.t_ns as f64 / 1e9, y))
                    .collect()
            };
            ctx.csv("source-queues-none", &r.line_samples)?;
            ctx.csv("source-sends-none", &r.source_sends)?;
            let mut chart = Chart::new(
                "Which line the pump's packets take, and SRC's output queues (no loop prevention)",
                "time (s)",
                "packets queued (count)",
            )
            .with(Series::new("queue to P1", SeriesStyle::Line, queue("P1")))
            .with(Series::new("queue to P2", SeriesStyle::Line, queue("P2")))
            .with(Series::new(
                "a packet leaves for P1",
                SeriesStyle::Points,
                sends("P1", 10.5),
            ))
            .with(Series::new(
                "a packet leaves for P2",
                SeriesStyle::Points,
                sends("P2", 11.0),
            ));
            chart.y_range = Some(0.0..12.0);
            ctx.plot(
                "switching",
                "The first 8 s with no loop prevention: SRC's output queues to P1 and P2 (sampled every 10 ms) and the line \
                 each of the pump's packets joins (dots). The pump fills one line's queue to 8; a routing message then offers \
                 the other line 8 units cheaper and the pump moves; the old queue drains for 8 packet times while the new \
                 one fills: the only time both lines carry the pump's packets.",
                &chart,
            )?;
        }
        let gain_chart = Chart::new(
            "Throughput gain of alternate routing over one path",
            "loop prevention",
            "throughput gain (%)",
        )
        .x_axis(Axis::Categories(
            gains
                .iter()
                .enumerate()
                .map(|(i, g)| ((i + 1) as f64, g.routing.to_string()))
                .collect(),
        ))
        .with(Series::new(
            "nmc",
            SeriesStyle::Bars { width: 0.6 },
            gains
                .iter()
                .enumerate()
                .map(|(i, g)| ((i + 1) as f64, g.gain_percent))
                .collect(),
        ))
        .with(Series::new(
            "K&O: at most 30 %",
            SeriesStyle::Dashed,
            vec![(0.5, 30.0), (4.5, 30.0)],
        ))
        .with(Series::new(
            "K&O's argument with our switch interval and backlog",
            SeriesStyle::Points,
            gains
                .iter()
                .enumerate()
                .map(|(i, g)| ((i + 1) as f64, g.predicted_gain_percent))
                .collect(),
        ));
        ctx.plot(
            "gain",
            "Gain over the static single-path throughput for each loop-prevention variant, with K&O's bound and the \
             gain their argument predicts from our measured switch interval and backlog (overlap / interval).",
            &gain_chart,
        )?;
        Ok(())
    }

    /// What the gain rests on.
    fn notes(ctx: &mut Context, g: &Gains, alternates: &[AlternateRow]) {
        let Gains {
            base,
            packet_ms,
            gains,
            ..
        } = g;
        let row = |v: &str| row(gains, v);
        let none = row("none");
        ctx.note(format!(
            "One path: {base:.1} kbit/s (static routes, all over P1). One full packet takes {packet_ms:.1} ms on a 50 kbit/s \
             line here (K&O: 23.5 ms), so a backlog of 8 gives {:.0} ms of overlap (K&O: 188 ms).",
            8.0 * packet_ms
        ));
        ctx.note(format!(
            "Mechanism (no loop prevention): the pump's packets switch line {} times, every {:.0} ms on average, not every \
             640 ms: SRC switches only when the *other* neighbour's routing message offers a strictly smaller estimate, and the \
             estimate via the current line is refreshed only by that line's own message; with the two lines' messages 320 ms \
             apart, a full queue is seen and beaten only 1.5 periods after the previous switch (K&O: \"the relatively slow \
             propagation of routing information further reduces the frequency of switching\"). At each switch {:.1} packets \
             wait on the old line, {:.0} ms of overlap, so K&O's argument predicts {:.0} %; measured {:.1} %.",
            none.switches,
            none.mean_switch_interval_ms,
            none.mean_backlog_at_switch,
            none.overlap_per_switch_ms,
            none.predicted_gain_percent,
            none.gain_percent
        ));
        let h = row(PAPER_RULE);
        let f = row("feasible-successor");
        ctx.note(format!(
            "The 1974 hold-down cuts the gain to {:.1} %: when the line the pump has just moved to fills, the estimate via \
             it rises by more than 8 units in one message, which holds that line for 2 s and ignores the other \
             ({} hold-downs; switches every {:.0} ms). The feasible-successor comparison, which keeps every neighbour's last \
             report and re-chooses at every routing message with the current queues, balances the two lines and gains {:.1} %: \
             the ~30 % limit belongs to the 1974 update rule, not to alternate routing as such.",
            h.gain_percent, h.hold_downs, h.mean_switch_interval_ms, f.gain_percent
        ));
        let used: Vec<String> = alternates
            .iter()
            .map(|a| {
                format!(
                    "{}/{} hops: {} of {}",
                    a.primary_hops, a.alternate_hops, a.on_alternate, a.pump_packets
                )
            })
            .collect();
        ctx.note(format!(
            "3× rule (hold-down-1974; pump packets on the alternate, primary/alternate hops): {}. A hop costs 4..12 units, so \
             an alternate of k hops costs at least 4k and a primary of n hops at most 12n; an alternate of exactly 3n hops ties \
             at best and a tie never moves traffic (\"only over paths of length less than 3n hops\").",
            used.join("; ")
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_paths_builds_the_hop_counts_it_says() {
        let s = load(
            LONG,
            &[two_paths(2, 5)],
            Loader::of(KoAlternatePath.plan(), true),
        )
        .unwrap();
        let o = nmc_imp::scenario::run(&s, 1, Trace::off(), &mut |_| {});
        let o = o.unwrap();
        assert_eq!(o.hops, Some(2));
        assert_eq!(o.lines.len(), 2 * (2 + 5));
    }
}
