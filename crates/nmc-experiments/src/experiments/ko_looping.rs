//! `ko-looping`: packets meeting routing loops on the June 1974 map (K&O §V).
//!
//! Scenario (`scenarios/ko-looping.toml`): the UCLA pump sends 8-packet messages to BBN (9
//! hops) under the 1974 adaptive routing while three other hosts send 2-packet messages across
//! its path; three directions of lines near CASE send routing messages every 320 ms, the rest
//! every 640 ms (K&O §V: the frequency "is a function of line speed and line utilization").
//! Two conditions: *traffic* alone, and *traffic + failures*, where CASE–CMU on the pump's path
//! fails for 20 s each minute. Each runs under the four loop-prevention variants and, as the
//! reference without loops, with static routes.
//!
//! Loops are measured, never asserted (nothing here fails a test). What is measured, per run:
//! * per packet of every host message: the most visits to one IMP, and the hops it made inside
//!   loops (K&O: "exchanged between neighbors"), from `nmc_imp::observe::JourneyRecord`;
//! * per destination, every loop in the routing tables and how long it lasted;
//! * the UCLA pump's round trips: mean, 99th percentile, maximum, and the share above 2 s.
//!
//! Rows, each stated with what it compares (K&O §V):
//! * KO-LOOP exchanges: "packets are exchanged between neighbors up to 50 times": the most
//!   hops one packet made inside loops under the 1974 hold-down, 50 ± 50 %.
//! * KO-LOOP traps: loop traps "have been observed repeatedly" (1974 hold-down) and "we have
//!   not been able to detect loop traps in this modified system" (the frequency-independent
//!   criterion, `hold-down-window`, our reading of it). A loop trap is "a loop whose existence
//!   is extended because of line hold-down"; measurably, a loop in the tables during which an
//!   IMP of the loop, holding its line to the next IMP of the loop for the loop's destination,
//!   refused a smaller estimate from a neighbour outside the loop (`held-against` in the route
//!   changes), which would have taken it out of the loop without the hold-down, as B refuses A in Table
//!   III row 11. (Loops with a hold-down along them that refused nothing are counted apart.)
//!   At least 1 under the 1974 rule; at most 0 under the fix. Loops lasting over
//!   1280 ms (K&O Table I: without hold-down a loop "persists for 640 to 1280 ms") are counted
//!   too, in the CSV.
//! * KO-LOOP loop-free: the feasible-successor comparison (K&O ref. \[10\]'s aim) has no loop in
//!   its tables: at most 0. A sanity bound (issue 17): loop-free by construction, so it is not
//!   counted in the headline.

use crate::registry::{Context, Experiment, Loader, Plan};
use anyhow::Result;
use nmc_imp::Outcome;
use nmc_imp::observe::JourneyRecord;
use nmc_imp::scenario::ImpScenario;
use nmc_report::stats::Rule;
use nmc_report::{Axis, Chart, Series, SeriesStyle, Target, Value};
use nmc_sim::Trace;
use serde::Serialize;
use std::collections::BTreeMap;

/// `scenarios/ko-looping.toml`, built in: the June 1974 map, the UCLA pump to BBN and three
/// hosts sending across its path (K&O §V).
pub const SCENARIO: &str = include_str!("../../../../scenarios/ko-looping.toml");

/// The `ko-looping` experiment: packets meeting routing loops on the June 1974 map (K&O §V).
pub struct KoLooping;

const SOURCE: &str = "Kleinrock & Opderbeck 1977, §V";
const ROUTINGS: [&str; 5] = [
    "static",
    "none",
    "hold-down-1974",
    "hold-down-window",
    "feasible-successor",
];
const CONDITIONS: [&str; 2] = ["traffic", "traffic + failures"];
/// Without hold-down, K&O Table I's loop "persists for 640 to 1280 ms": loops longer than this
/// are counted apart.
const LONG_NS: u64 = 1_280_000_000;
/// Round trips above this count as the tail.
const TAIL_MS: f64 = 2000.0;

#[derive(Serialize, Clone)]
struct Stats {
    condition: &'static str,
    routing: &'static str,
    packets: usize,
    looped_packets: usize,
    looped_percent: f64,
    max_visits: u32,
    max_loop_hops: u32,
    /// Among packets that looped.
    p99_loop_hops: u32,
    max_packet_loop_ms: f64,
    table_loops: usize,
    table_loop_mean_ms: f64,
    table_loop_max_ms: f64,
    /// Loops lasting longer than 1280 ms.
    long_loops: usize,
    /// Loops during which an IMP of the loop held its line towards the next IMP of the loop.
    held_loops: usize,
    /// Loop traps: loops that a hold-down along them kept against a smaller estimate ([`traps`]).
    traps: usize,
    hold_downs: f64,
    /// Hold-downs that started within one routing period of the end of the one before, at the same
    /// IMP for the same destination.
    restarted_hold_downs: usize,
    route_changes: f64,
    pump_messages: usize,
    pump_kbps: f64,
    pump_rtt_mean_ms: f64,
    pump_rtt_p99_ms: f64,
    pump_rtt_max_ms: f64,
    pump_rtt_tail_percent: f64,
}

#[derive(Serialize)]
struct VisitRow {
    condition: &'static str,
    routing: &'static str,
    max_visits: u32,
    packets: usize,
}

#[derive(Serialize)]
struct LoopRow {
    condition: &'static str,
    routing: &'static str,
    dst: String,
    imps: String,
    from_ms: f64,
    duration_ms: f64,
    open_at_end: bool,
    /// An IMP of the loop held its line to the next IMP of the loop while the loop lasted.
    held_along: bool,
    /// ... and refused a smaller estimate from a neighbour outside the loop meanwhile (a trap).
    trap: bool,
}

#[derive(Serialize)]
struct LoopedPacket {
    condition: &'static str,
    routing: &'static str,
    kind: &'static str,
    msg: u64,
    index: u8,
    src: String,
    dst: String,
    sent_ms: f64,
    hops: u32,
    max_visits: u32,
    revisits: u32,
    loop_hops: u32,
    loop_ms: f64,
}

fn load(sets: &[String], loader: Loader) -> Result<ImpScenario> {
    loader.load("ko-looping", SCENARIO, sets)
}

/// The `p` percentile of sorted values by [`Rule::Round`] (no interpolation); NaN when empty.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    nmc_report::stats::percentile(sorted, p, Rule::Round).unwrap_or(f64::NAN)
}

/// The UCLA pump's round trips (accepted → RFNM), ms, in message order.
fn pump_rtts(o: &Outcome) -> Vec<f64> {
    o.messages
        .iter()
        .filter(|m| m.host == "UCLA")
        .filter_map(|m| Some((m.rfnm_ns? - m.accepted_ns?) as f64 / 1e6))
        .collect()
}

fn stats(condition: &'static str, routing: &'static str, o: &Outcome) -> Stats {
    let data: Vec<&JourneyRecord> = o
        .routing
        .journeys
        .iter()
        .filter(|j| j.kind == "data")
        .collect();
    let looped: Vec<&&JourneyRecord> = data.iter().filter(|j| j.max_visits > 1).collect();
    let mut hops: Vec<f64> = looped.iter().map(|j| j.loop_hops as f64).collect();
    hops.sort_by(f64::total_cmp);
    let end = o.duration.as_nanos();
    let durations: Vec<f64> = o
        .routing
        .loops
        .iter()
        .map(|l| l.duration_ns(end) as f64 / 1e6)
        .collect();
    let mut rtt = pump_rtts(o);
    let n = rtt.len();
    let mean = rtt.iter().sum::<f64>() / n.max(1) as f64;
    rtt.sort_by(f64::total_cmp);
    let pump_bits: u64 = o
        .messages
        .iter()
        .filter(|m| m.host == "UCLA" && m.rfnm_ns.is_some())
        .map(|m| m.bits)
        .sum();
    let trapped = traps(o);
    Stats {
        condition,
        routing,
        packets: data.len(),
        looped_packets: looped.len(),
        looped_percent: 100.0 * looped.len() as f64 / data.len().max(1) as f64,
        max_visits: data.iter().map(|j| j.max_visits).max().unwrap_or(1),
        max_loop_hops: data.iter().map(|j| j.loop_hops).max().unwrap_or(0),
        p99_loop_hops: percentile(&hops, 0.99).max(0.0) as u32,
        max_packet_loop_ms: data.iter().map(|j| j.loop_ns).max().unwrap_or(0) as f64 / 1e6,
        table_loops: durations.len(),
        table_loop_mean_ms: if durations.is_empty() {
            0.0
        } else {
            durations.iter().sum::<f64>() / durations.len() as f64
        },
        table_loop_max_ms: durations.iter().cloned().fold(0.0, f64::max),
        long_loops: o
            .routing
            .loops
            .iter()
            .filter(|l| l.duration_ns(end) > LONG_NS)
            .count(),
        held_loops: trapped.iter().filter(|t| t.0).count(),
        traps: trapped.iter().filter(|t| t.1).count(),
        hold_downs: o.metrics.routing.map_or(0.0, |r| r.hold_downs as f64),
        restarted_hold_downs: restarted_hold_downs(o),
        route_changes: o.metrics.routing.map_or(0.0, |r| r.route_changes as f64),
        pump_messages: n,
        pump_kbps: pump_bits as f64 / o.duration.as_secs_f64() / 1e3,
        pump_rtt_mean_ms: mean,
        pump_rtt_p99_ms: percentile(&rtt, 0.99),
        pump_rtt_max_ms: rtt.last().copied().unwrap_or(f64::NAN),
        pump_rtt_tail_percent: 100.0 * rtt.iter().filter(|&&r| r > TAIL_MS).count() as f64
            / n.max(1) as f64,
    }
}

/// Hold-downs that started within one routing period (the profile's `routing_period`, K&O
/// §III's 640 ms on a loaded line) of the end of the previous one at the same IMP for the same
/// destination: the estimate still rising when the hold-down ran out.
fn restarted_hold_downs(o: &Outcome) -> usize {
    let period = o.params.routing_period.as_nanos();
    let mut last_end: BTreeMap<(&str, &str), u64> = BTreeMap::new();
    let mut n = 0;
    for c in o
        .routing
        .route_changes
        .iter()
        .filter(|c| c.kind == "hold-down")
    {
        let key = (c.imp.as_str(), c.dst.as_str());
        if let Some(&end) = last_end.get(&key)
            && c.t_ns >= end
            && c.t_ns - end <= period
        {
            n += 1;
        }
        last_end.insert(key, c.value);
    }
    n
}

/// For each table loop: whether a hold-down was along it (some IMP of the loop had its line to
/// the next IMP of the loop held down, for the loop's destination, at some time while the loop
/// lasted), and whether it was a *loop trap* (K&O §V: "a loop whose existence is extended
/// because of line hold-down"): while the loop lasted, an IMP of the loop, holding its line to
/// the next IMP of the loop, refused a smaller estimate from a neighbour outside the loop, which
/// would have taken it out of the loop without the hold-down (Table III row 11: B, holding C,
/// ignores A).
/// A hold-down along a loop that refused nothing did not extend it.
fn traps(o: &Outcome) -> Vec<(bool, bool)> {
    // (IMP, destination) -> hold-downs as (start, end, held neighbour).
    type HoldDowns<'a> = Vec<(u64, u64, &'a str)>;
    let mut held: BTreeMap<(&str, &str), HoldDowns> = BTreeMap::new();
    // (IMP, destination) -> refusals as (time, held neighbour, refused neighbour).
    type Refusals<'a> = Vec<(u64, &'a str, &'a str)>;
    let mut refused: BTreeMap<(&str, &str), Refusals> = BTreeMap::new();
    for c in &o.routing.route_changes {
        let key = (c.imp.as_str(), c.dst.as_str());
        match c.kind {
            "hold-down" => held
                .entry(key)
                .or_default()
                .push((c.t_ns, c.value, c.to.as_str())),
            "held-against" => {
                refused
                    .entry(key)
                    .or_default()
                    .push((c.t_ns, c.from.as_str(), c.to.as_str()))
            }
            _ => {}
        }
    }
    let end = o.duration.as_nanos();
    o.routing
        .loops
        .iter()
        .map(|l| {
            let (from, until) = (l.from_ns, l.until_ns.unwrap_or(end));
            let imps: Vec<&str> = l.imps.split('>').collect();
            let along = |pred: &dyn Fn(&str, &str) -> bool| {
                imps.iter().enumerate().any(|(i, imp)| {
                    let next = imps[(i + 1) % imps.len()];
                    pred(imp, next)
                })
            };
            let held_along = along(&|imp, next| {
                held.get(&(imp, l.dst.as_str())).is_some_and(|h| {
                    h.iter()
                        .any(|&(a, b, n)| n == next && a < until && b > from)
                })
            });
            // The refused neighbour must be outside the loop: switching to one inside it
            // would only make another loop.
            let trap = along(&|imp, next| {
                refused.get(&(imp, l.dst.as_str())).is_some_and(|r| {
                    r.iter().any(|&(t, held, by)| {
                        held == next && !imps.contains(&by) && t >= from && t < until
                    })
                })
            });
            (held_along, trap)
        })
        .collect()
}

/// `(x, log10 of the share of values above x)` at each value, for a tail plot.
fn log_ccdf(values: &[f64], scale: f64) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = values.iter().map(|x| x / scale).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    v.iter()
        .enumerate()
        .filter(|(i, _)| i + 1 < v.len())
        .map(|(i, &x)| (x, ((n - 1.0 - i as f64) / n).log10()))
        .collect()
}

impl Experiment for KoLooping {
    fn id(&self) -> &'static str {
        "ko-looping"
    }
    fn title(&self) -> &'static str {
        "Looping on the June 1974 map: repeated visits, loop durations and the round-trip tail under each loop prevention (K&O §V)"
    }
    fn source(&self) -> &'static str {
        "Kleinrock & Opderbeck, IEEE Trans. Commun. COM-25(1), 1977, §V"
    }
    fn chapter(&self) -> &'static str {
        "docs/src/explanation/ko-1977.md"
    }
    fn plan(&self) -> Plan {
        Plan::quick(&["duration=2min"])
    }

    fn run(&self, ctx: &mut Context) -> Result<()> {
        let runs = Self::runs(ctx)?;
        Self::checks(ctx, &runs);
        ctx.csv("summary", &runs.all)?;
        ctx.csv("visits", &runs.visit_rows)?;
        ctx.csv("loops", &runs.loop_rows)?;
        ctx.csv("looped-packets", &runs.looped_rows)?;
        Self::charts(ctx, &runs)?;
        Self::notes(ctx, &runs);
        ctx.progress(1.0);
        Ok(())
    }
}

/// What the runs gave, in run order.
struct Runs {
    /// One line per condition and loop prevention.
    all: Vec<Stats>,
    visit_rows: Vec<VisitRow>,
    loop_rows: Vec<LoopRow>,
    looped_rows: Vec<LoopedPacket>,
    /// The UCLA pump's round trips, by condition and loop prevention.
    rtts: BTreeMap<(&'static str, &'static str), Vec<f64>>,
    /// The pump's round trips over time under failures, for three loop preventions.
    series: BTreeMap<&'static str, Vec<(f64, f64)>>,
}

impl Runs {
    /// The run of condition `c` under loop prevention `r`.
    fn get(&self, c: &str, r: &str) -> &Stats {
        self.all
            .iter()
            .find(|s| s.condition == c && s.routing == r)
            .expect("ran")
    }
}

impl KoLooping {
    /// Every condition under every loop prevention, one run each, and what each gave.
    fn runs(ctx: &mut Context) -> Result<Runs> {
        let mut all: Vec<Stats> = Vec::new();
        let mut visit_rows = Vec::new();
        let mut loop_rows = Vec::new();
        let mut looped_rows: Vec<LoopedPacket> = Vec::new();
        let mut rtts: BTreeMap<(&'static str, &'static str), Vec<f64>> = BTreeMap::new();
        let mut series: BTreeMap<&'static str, Vec<(f64, f64)>> = BTreeMap::new();
        let total = (CONDITIONS.len() * ROUTINGS.len()) as f64;
        let mut done = 0.0;
        for condition in CONDITIONS {
            for routing in ROUTINGS {
                let mut sets = Vec::new();
                if condition == "traffic" {
                    sets.push("network.line_events=[]".to_string());
                }
                if routing == "static" {
                    sets.push("network.routing=static".into());
                    sets.push("network.routing_params={}".into());
                } else {
                    sets.push(format!("network.routing_params.loop_prevention={routing}"));
                }
                let s = load(&sets, ctx.loader())?;
                let o = nmc_imp::scenario::run(&s, ctx.seed, Trace::off(), &mut |_| {})?;
                let st = stats(condition, routing, &o);
                if routing != "static" {
                    let mut by_visits: BTreeMap<u32, usize> = BTreeMap::new();
                    for j in o.routing.journeys.iter().filter(|j| j.kind == "data") {
                        *by_visits.entry(j.max_visits).or_default() += 1;
                    }
                    visit_rows.extend(by_visits.into_iter().map(|(v, n)| VisitRow {
                        condition,
                        routing,
                        max_visits: v,
                        packets: n,
                    }));
                    let end = o.duration.as_nanos();
                    let trapped = traps(&o);
                    loop_rows.extend(o.routing.loops.iter().zip(trapped).map(
                        |(l, (held_along, trap))| LoopRow {
                            condition,
                            routing,
                            dst: l.dst.clone(),
                            imps: l.imps.clone(),
                            from_ms: l.from_ns as f64 / 1e6,
                            duration_ms: l.duration_ns(end) as f64 / 1e6,
                            open_at_end: l.until_ns.is_none(),
                            held_along,
                            trap,
                        },
                    ));
                    looped_rows.extend(o.routing.journeys.iter().filter(|j| j.max_visits > 1).map(
                        |j| LoopedPacket {
                            condition,
                            routing,
                            kind: j.kind,
                            msg: j.msg,
                            index: j.index,
                            src: j.src.clone(),
                            dst: j.dst.clone(),
                            sent_ms: j.sent_ns as f64 / 1e6,
                            hops: j.hops,
                            max_visits: j.max_visits,
                            revisits: j.revisits,
                            loop_hops: j.loop_hops,
                            loop_ms: j.loop_ns as f64 / 1e6,
                        },
                    ));
                }
                if condition == "traffic + failures"
                    && matches!(routing, "static" | "hold-down-1974" | "feasible-successor")
                {
                    series.insert(
                        routing,
                        o.messages
                            .iter()
                            .filter(|m| m.host == "UCLA")
                            .filter_map(|m| {
                                Some((
                                    m.accepted_ns? as f64 / 1e9,
                                    (m.rfnm_ns? - m.accepted_ns?) as f64 / 1e3 / 1e6,
                                ))
                            })
                            .filter(|p| p.0 <= 200.0)
                            .collect(),
                    );
                }
                rtts.insert((condition, routing), pump_rtts(&o));
                all.push(st);
                done += 1.0;
                ctx.progress(done / total);
            }
        }
        Ok(Runs {
            all,
            visit_rows,
            loop_rows,
            looped_rows,
            rtts,
            series,
        })
    }

    /// KO-LOOP's rows beside K&O's words.
    fn checks(ctx: &mut Context, runs: &Runs) {
        for c in CONDITIONS {
            ctx.check(
                &format!("KO-LOOP exchanges, {c}"),
                &format!("most hops one packet made inside loops, 1974 hold-down, {c}"),
                "hops",
                &format!("{SOURCE}: \"exchanged between neighbors up to 50 times\""),
                Target::Rel {
                    value: 50.0,
                    rel: 0.5,
                },
                Value::Num(runs.get(c, "hold-down-1974").max_loop_hops as f64),
            );
        }
        ctx.check(
            "KO-LOOP traps, 1974",
            "loop traps (a loop a hold-down along it kept against a smaller estimate), 1974 hold-down, traffic",
            "loops",
            &format!("{SOURCE}: loop traps \"observed repeatedly\""),
            Target::AtLeast { value: 1.0 },
            Value::Num(runs.get("traffic", "hold-down-1974").traps as f64),
        );
        ctx.check(
            "KO-LOOP traps, fix",
            "loop traps (a loop a hold-down along it kept against a smaller estimate), frequency-independent hold-down (our reading), traffic",
            "loops",
            &format!("{SOURCE}: \"not been able to detect loop traps in this modified system\""),
            Target::AtMost { value: 0.0 },
            Value::Num(runs.get("traffic", "hold-down-window").traps as f64),
        );
        ctx.check(
            "KO-LOOP loop-free",
            "loops in the tables, feasible successors, traffic + failures",
            "loops",
            &format!("{SOURCE}: a loop-free routing algorithm (ref. [10])"),
            Target::AtMost { value: 0.0 },
            Value::Num(
                runs.get("traffic + failures", "feasible-successor")
                    .table_loops as f64,
            ),
        )
        // Issue 17: the feasibility condition makes the tables loop-free by construction (Jaffe &
        // Moss 1982); the row can catch a defect in our implementation, not confirm a finding.
        .sanity_bound("feasible successors are loop-free by construction (Jaffe & Moss 1982)");
    }

    /// Visits, loop durations, the round trips' tail and the pump's round trips over time.
    fn charts(ctx: &mut Context, runs: &Runs) -> Result<()> {
        let c = "traffic + failures";
        let mut visits_chart = Chart::new(
            "Packets by the most visits to one IMP (traffic + failures)",
            "most visits to one IMP (count)",
            "packets (count, log scale)",
        )
        .y_axis(Axis::Log10);
        let mut loops_chart = Chart::new(
            "How long loops last in the routing tables (traffic + failures)",
            "loop duration (s)",
            "share of loops lasting longer (fraction, log scale)",
        )
        .y_axis(Axis::Log10);
        let mut rtt_chart = Chart::new(
            "Tail of the UCLA pump's round trips (traffic + failures)",
            "round trip (s)",
            "share of messages above (fraction, log scale)",
        )
        .y_axis(Axis::Log10);
        for r in ROUTINGS {
            if r != "static" {
                visits_chart = visits_chart.with(Series::new(
                    r,
                    SeriesStyle::LinePoints,
                    runs.visit_rows
                        .iter()
                        .filter(|v| v.condition == c && v.routing == r)
                        .map(|v| (v.max_visits as f64, (v.packets as f64).log10()))
                        .collect(),
                ));
                let d: Vec<f64> = runs
                    .loop_rows
                    .iter()
                    .filter(|l| l.condition == c && l.routing == r)
                    .map(|l| l.duration_ms)
                    .collect();
                if !d.is_empty() {
                    loops_chart =
                        loops_chart.with(Series::new(r, SeriesStyle::Line, log_ccdf(&d, 1000.0)));
                }
            }
            rtt_chart = rtt_chart.with(Series::new(
                r,
                SeriesStyle::Line,
                log_ccdf(&runs.rtts[&(c, r)], 1000.0),
            ));
        }
        ctx.plot(
            "visits",
            "How many data packets (log scale) visited one IMP at most 1, 2, 3, … times, per loop prevention.",
            &visits_chart,
        )?;
        // Issue 31: K&O's claim on the plot it illustrates: without hold-down a loop "persists
        // for 640 to 1280 ms" (Table I), drawn from the plot's lowest share to 1.
        let most = ROUTINGS
            .iter()
            .map(|r| {
                runs.loop_rows
                    .iter()
                    .filter(|l| l.condition == c && l.routing == *r)
                    .count()
            })
            .max()
            .unwrap_or(0);
        if most > 1 {
            let low = (1.0 / most as f64).log10();
            for (x, name) in [
                (0.64, "K&O Table I: a loop without hold-down lasts 640 ms …"),
                (1.28, "… to 1280 ms"),
            ] {
                loops_chart = loops_chart.with(Series::new(
                    name,
                    SeriesStyle::Dashed,
                    vec![(x, low), (x, 0.0)],
                ));
            }
        }
        ctx.plot(
            "loop-durations",
            "Share of the loops in the routing tables lasting longer than x (log scale), per loop prevention, with K&O's 640–1280 ms for a loop without hold-down (dashed).",
            &loops_chart,
        )?;
        ctx.plot(
            "round-trip-tail",
            "Share of the UCLA pump's messages whose round trip exceeds x (log scale): the tail of K&O's delay histogram. \
             Static routes wait out each failure.",
            &rtt_chart,
        )?;
        let mut ts = Chart::new(
            "Pump round trips, first 200 s (CASE–CMU down 40–60, 100–120, 160–180 s)",
            "message accepted at (s)",
            "round trip (s)",
        );
        for (r, pts) in &runs.series {
            ts = ts.with(Series::new(*r, SeriesStyle::Points, pts.clone()));
        }
        ctx.plot(
            "round-trips",
            "Each pump message's round trip against the time it was accepted, with static routes, the 1974 hold-down and \
             feasible successors.",
            &ts,
        )?;
        Ok(())
    }

    /// Each run in a sentence, the reading, and the definitions.
    fn notes(ctx: &mut Context, runs: &Runs) {
        let line = |s: &Stats| {
            format!(
                "{}: {:.2} % of packets looped, most visits {}, most loop hops {} (99th pct of looped {}), longest packet loop \
                 {:.0} ms; {} table loops (mean {:.0} ms, longest {:.0} ms, {} over 1280 ms, {} with a hold-down along them, {} traps); pump {:.1} kbit/s, \
                 round trip mean {:.0} / p99 {:.0} / max {:.0} ms, {:.2} % above 2 s",
                s.routing,
                s.looped_percent,
                s.max_visits,
                s.max_loop_hops,
                s.p99_loop_hops,
                s.max_packet_loop_ms,
                s.table_loops,
                s.table_loop_mean_ms,
                s.table_loop_max_ms,
                s.long_loops,
                s.held_loops,
                s.traps,
                s.pump_kbps,
                s.pump_rtt_mean_ms,
                s.pump_rtt_p99_ms,
                s.pump_rtt_max_ms,
                s.pump_rtt_tail_percent
            )
        };
        for c in CONDITIONS {
            let parts: Vec<String> = runs
                .all
                .iter()
                .filter(|s| s.condition == c)
                .map(line)
                .collect();
            ctx.note(format!("{c}. {}.", parts.join(". ")));
        }
        let (f, n, h, w, fs, st) = (
            "traffic + failures",
            runs.get("traffic + failures", "none"),
            runs.get("traffic + failures", "hold-down-1974"),
            runs.get("traffic + failures", "hold-down-window"),
            runs.get("traffic + failures", "feasible-successor"),
            runs.get("traffic", "static"),
        );
        ctx.note(format!(
            "Reading ({f}): without loop prevention loops are many and short ({} loops, mean {:.0} ms): a neighbour's \
             stale, lower estimate wins until the next exchange. The 1974 hold-down leaves {} loops, but they last longer \
             (mean {:.0} ms, longest {:.1} s) and {} of them are traps: a line held down towards a neighbour that is itself \
             in the loop keeps the loop for up to 2 s, and the packets caught in it keep its queues non-empty, so the \
             estimate rises by more than 8 again at the next message and a new hold-down can start as the old one ends; \
             after a failure the estimates count up towards infinity (600 units) inside such loops. The longest pump round \
             trip is {:.1} s with the 1974 hold-down against {:.1} s without loop prevention{}. Our reading of the later, \
             frequency-independent criterion leaves {} traps{}. Hold-downs that started within one routing period \
             (the profile's routing_period) of the end of the last one at the same IMP and destination: {} of {} (1974), {} of {} (our reading). Feasible successors keep the tables loop-free (packets \
             still come back to an IMP once when routes change under them in flight), but after a failure an IMP may \
             have no feasible neighbour until the destination's next sequence number (up to 10.24 s), which gives the \
             pump a {:.1} s worst round trip; static routes wait out each 20 s failure ({:.1} s).",
            n.table_loops,
            n.table_loop_mean_ms,
            h.table_loops,
            h.table_loop_mean_ms,
            h.table_loop_max_ms / 1e3,
            h.traps,
            h.pump_rtt_max_ms / 1e3,
            n.pump_rtt_max_ms / 1e3,
            if h.pump_rtt_max_ms > n.pump_rtt_max_ms {
                ": hold-down lengthens the tail it was meant to cut"
            } else {
                ""
            },
            w.traps,
            if w.traps > 0 {
                ": here traps come from sudden rises and failures, not only from routing messages at different \
                 frequencies (inside a two-IMP loop each IMP sees the other's estimate count up, holds its line to it, \
                 and starts a new hold-down at the first message after the last one ends), so it does not reproduce \
                 K&O's report that traps vanished. What BBN changed is not described in any source we could read: K&O \
                 give one sentence; McQuillan, Falk & Richer (IEEE Trans. Commun., Dec 1978) and BBN Report 3803 (1978) \
                 probably say, but only their abstracts were reachable. The reading is a reconstruction, behind its own \
                 switch (loop_prevention = \"hold-down-window\")"
            } else {
                ", as K&O report for the modified system"
            },
            h.restarted_hold_downs,
            h.hold_downs,
            w.restarted_hold_downs,
            w.hold_downs,
            fs.pump_rtt_max_ms / 1e3,
            runs.get(f, "static").pump_rtt_max_ms / 1e3,
        ));
        ctx.note(format!(
            "With background traffic and no failures the pump gets {:.1} kbit/s at 9 hops with a {:.0} ms mean round trip \
             (static routes), against K&O's 30 kbit/s and 920 ms (KO-2, KO-3) and ko-v2-throughput's otherwise empty \
             network (see its rows): interfering traffic adds per-hop delay.",
            st.pump_kbps, st.pump_rtt_mean_ms
        ));
        ctx.note(format!(
            "Definitions: a packet's loop hops run from its first visit to an IMP it came back to until its last visit to \
             such an IMP; a table loop is a cycle of best neighbours towards one destination, from the route change that \
             closed it to the one that opened it; a hold-down is along a loop when an IMP of the loop held its line to the \
             next IMP of the loop down while the loop lasted; a trap (K&O: \"a loop whose existence is extended because \
             of line hold-down\") is a loop during which such an IMP refused, because of the hold-down, a smaller \
             estimate from a neighbour outside the loop, which would otherwise have taken it out of the loop (K&O Table \
             III row 11); \
             long loops last over {} ms; the tail is round trips above {} ms. Counts cover \
             every host's data packets; round trips are the UCLA pump's (accepted → RFNM).",
            LONG_NS / 1_000_000,
            TAIL_MS
        ));
    }
}
