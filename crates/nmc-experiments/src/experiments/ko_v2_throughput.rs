//! `ko-v2-throughput`: K&O's October 1974 throughput experiments (Figs. 3–6, §IV).
//!
//! Scenario (K&O §I, §III–IV): the UCLA PDP-11/45 pumps 8-packet (8063-bit) messages, each as
//! soon as the source IMP has taken the previous one, to a fake host 1..9 hops away, for
//! 10 minutes each, under version 2 message processing. We run it on a chain
//! (`scenarios/ko-v2-chain.toml`) and on the June 1974 map (`scenarios/ko-v2-map.toml`); the
//! reproduce rows come from the map, the closer of the two to the network K&O measured.
//!
//! Targets and tolerances (issue 3), stated before the run:
//! * KO-1, K&O Fig. 3 / §IV: average throughput 37–38.5 kbit/s at 1–5 hops, ±5 %.
//! * KO-2, K&O Fig. 3 / §IV: 30 kbit/s at 9 hops, ±10 %.
//! * KO-3, K&O Fig. 4 / §IV: average round trip ≈ 200 + 90(n − 1) ms, ±15 % at each n.
//! * KO-4, K&O Fig. 3 / §IV: "the best 150-message throughput is not much better than the
//!   overall average": best-150 / average in [1.00, 1.10].
//! * KO-5, K&O Fig. 6 / §IV: "message delay is correlated out to about 3 or 4 successive
//!   messages": the last lag up to which every autocorrelation coefficient is positive and
//!   outside the ±1.96/√N band, in [3, 4].
//!
//! Calibration: one parameter, `packet_overhead`, is set so that one hop gives ~75 % line
//! efficiency (K&O §IV footnote 3); every other number comes out of the mechanism.

use crate::registry::{Context, Experiment};
use anyhow::Result;
use nmc_imp::analysis::{autocorrelation, autocorrelation_band, histogram, round_trips_ms};
use nmc_imp::model::Occupancy;
use nmc_imp::{ImpScenario, KO_MAP_DESTINATIONS, Outcome};
use nmc_report::{Chart, Series, SeriesStyle, Target, Value};
use nmc_scenario::Override;
use nmc_sim::Trace;
use serde::Serialize;

pub const CHAIN: &str = include_str!("../../../../scenarios/ko-v2-chain.toml");
pub const MAP: &str = include_str!("../../../../scenarios/ko-v2-map.toml");

pub struct KoV2Throughput;

#[derive(Serialize)]
struct CurveRow {
    topology: &'static str,
    hops: u32,
    destination: String,
    throughput_kbps: f64,
    best150_kbps: f64,
    rtt_mean_ms: f64,
    rtt_from_offer_mean_ms: f64,
    cycle_mean_ms: f64,
    messages: f64,
    message_numbers_mean: f64,
    plt_entries_mean: f64,
    reassembly_buffers_mean: f64,
    published_throughput_kbps: Option<f64>,
    published_rtt_ms: f64,
}

#[derive(Serialize)]
struct HistRow {
    hops: u32,
    bin_centre_ms: f64,
    count: f64,
}

#[derive(Serialize)]
struct AcRow {
    topology: &'static str,
    hops: u32,
    lag: usize,
    coefficient: f64,
    band: f64,
}

fn scenario(text: &str, sets: &[String], quick: bool) -> Result<ImpScenario> {
    let mut all: Vec<Override> = sets.iter().map(|s| s.parse()).collect::<Result<_, _>>()?;
    if quick {
        all.push("duration=2min".parse()?);
    }
    Ok(nmc_scenario::load("ko-v2", text, &all)?)
}

/// The published round trip, K&O §IV: "approximated by 200 + 90(n − 1) ms".
fn published_rtt(n: u32) -> f64 {
    200.0 + 90.0 * (n as f64 - 1.0)
}

/// Lags 1..=L all positive and outside the band: L.
fn correlated_lags(ac: &[(usize, f64)], band: f64) -> usize {
    ac.iter().take_while(|(_, r)| *r > band).count()
}

pub fn occupancy_chart(occ: &[Occupancy], seconds: f64) -> Chart {
    let pick = |f: fn(&Occupancy) -> u32| -> Vec<(f64, f64)> {
        occ.iter()
            .map(|o| (o.t_ns as f64 / 1e9, f(o) as f64))
            .take_while(|p| p.0 <= seconds)
            .collect()
    };
    Chart::new("Resources held by the pumped pair", "time (s)", "count")
        .with(Series::new(
            "message numbers (of 4)",
            SeriesStyle::Line,
            pick(|o| o.message_numbers),
        ))
        .with(Series::new(
            "PLT entries (of 6)",
            SeriesStyle::Line,
            pick(|o| o.plt_entries),
        ))
        .with(Series::new(
            "reassembly buffers at destination (of 34)",
            SeriesStyle::Line,
            pick(|o| o.reassembly_buffers),
        ))
}

/// K&O Fig. 2 style: each message's life as segments on a time axis.
fn time_slices(o: &Outcome, first: usize, n: usize) -> Chart {
    let mut stages: [Vec<(f64, f64)>; 4] = Default::default();
    for (k, m) in o.messages.iter().skip(first).take(n).enumerate() {
        let y = k as f64;
        let ms = |t: Option<u64>| t.map(|t| t as f64 / 1e6);
        let pts = [
            Some(m.offered_ns as f64 / 1e6),
            ms(m.launched_ns),
            ms(m.accepted_ns),
            ms(m.delivered_ns),
            ms(m.rfnm_ns),
        ];
        for s in 0..4 {
            if let (Some(a), Some(b)) = (pts[s], pts[s + 1]) {
                stages[s].push((a, y));
                stages[s].push((b.max(a), y));
            }
        }
    }
    let names = [
        "waiting in source IMP (number, PLT, ALL)",
        "rest of the message entering",
        "in the subnet until delivered",
        "RFNM on its way back",
    ];
    let mut chart = Chart::new(
        "Message life (K&O Fig. 2): 9 hops, map",
        "time (ms)",
        "message",
    );
    for (s, pts) in stages.into_iter().enumerate() {
        chart = chart.with(Series::new(names[s], SeriesStyle::Segments, pts));
    }
    chart
}

impl Experiment for KoV2Throughput {
    fn id(&self) -> &'static str {
        "ko-v2-throughput"
    }
    fn title(&self) -> &'static str {
        "October 1974 throughput and delay against distance (K&O Figs. 3–6)"
    }
    fn source(&self) -> &'static str {
        "Kleinrock & Opderbeck 1977, §II–IV, Figs. 3–6"
    }
    fn run(&self, ctx: &mut Context) -> Result<()> {
        let mut curve = Vec::new();
        let mut outcomes: Vec<(&'static str, u32, Outcome)> = Vec::new();
        let total = 18.0;
        for (topo, text) in [("chain", CHAIN), ("map", MAP)] {
            for hops in 1..=9u32 {
                let dest = match topo {
                    "chain" => format!("IMP{hops}"),
                    _ => KO_MAP_DESTINATIONS[hops as usize - 1].to_string(),
                };
                let mut sets = vec![format!("network.hosts.1.imp={dest}")];
                if topo == "chain" {
                    sets.push(format!("network.topology.hops={hops}"));
                }
                let s = scenario(text, &sets, ctx.quick)?;
                let o = nmc_imp::run(&s, ctx.seed, Trace::off(), &mut |_| {})?;
                anyhow::ensure!(
                    o.hops == Some(hops),
                    "{topo}: {dest} is {:?} hops away, expected {hops}",
                    o.hops
                );
                let m = &o.metrics;
                let get = |k: &str| m.get(k).copied().unwrap_or(f64::NAN);
                curve.push(CurveRow {
                    topology: topo,
                    hops,
                    destination: dest,
                    throughput_kbps: get("throughput_kbps"),
                    best150_kbps: get("best150_kbps"),
                    rtt_mean_ms: get("rtt.mean_ms"),
                    rtt_from_offer_mean_ms: get("rtt_from_offer.mean_ms"),
                    cycle_mean_ms: get("cycle.mean_ms"),
                    messages: get("messages.completed"),
                    message_numbers_mean: get("occupancy.message_numbers.mean"),
                    plt_entries_mean: get("occupancy.plt_entries.mean"),
                    reassembly_buffers_mean: get("occupancy.reassembly_buffers.mean"),
                    published_throughput_kbps: match hops {
                        1..=5 => Some(37.75),
                        9 => Some(30.0),
                        _ => None,
                    },
                    published_rtt_ms: published_rtt(hops),
                });
                outcomes.push((topo, hops, o));
                ctx.progress(outcomes.len() as f64 / total);
            }
        }
        let map_row = |h: u32| {
            curve
                .iter()
                .find(|r| r.topology == "map" && r.hops == h)
                .expect("ran")
        };
        for h in 1..=5 {
            ctx.check(
                &format!("KO-1 {h} hop{}", if h > 1 { "s" } else { "" }),
                &format!(
                    "average throughput, {h} hop{} (map)",
                    if h > 1 { "s" } else { "" }
                ),
                "kbit/s",
                "K&O Fig. 3",
                Target::Range {
                    lo: 37.0,
                    hi: 38.5,
                    rel: 0.05,
                },
                Value::Num(map_row(h).throughput_kbps),
            );
        }
        ctx.check(
            "KO-2",
            "average throughput, 9 hops (map)",
            "kbit/s",
            "K&O Fig. 3",
            Target::Rel {
                value: 30.0,
                rel: 0.10,
            },
            Value::Num(map_row(9).throughput_kbps),
        );
        for h in 1..=9 {
            ctx.check(
                &format!("KO-3 {h}"),
                &format!(
                    "average round trip, {h} hop{} (map)",
                    if h > 1 { "s" } else { "" }
                ),
                "ms",
                "K&O Fig. 4: 200 + 90(n − 1)",
                Target::Rel {
                    value: published_rtt(h),
                    rel: 0.15,
                },
                Value::Num(map_row(h).rtt_mean_ms),
            );
        }
        for h in [1, 5, 9] {
            let r = map_row(h);
            ctx.check(
                &format!("KO-4 {h}"),
                &format!(
                    "best-150 / average throughput, {h} hop{} (map)",
                    if h > 1 { "s" } else { "" }
                ),
                "ratio",
                "K&O Fig. 3: \"not much better\"",
                Target::Range {
                    lo: 1.0,
                    hi: 1.10,
                    rel: 0.0,
                },
                Value::Num(r.best150_kbps / r.throughput_kbps),
            );
        }
        // Figs. 5 and 6 from the map runs at 1, 5, 9 hops.
        let mut hist_rows = Vec::new();
        let mut ac_rows = Vec::new();
        let mut hist_chart = Chart::new(
            "Histogram of round-trip delay (K&O Fig. 5), map",
            "round trip (ms)",
            "messages",
        );
        let mut ac_chart = Chart::new(
            "Correlation of successive round trips (K&O Fig. 6), map",
            "lag (messages)",
            "coefficient",
        );
        for (topo, hops, o) in &outcomes {
            let rtt = round_trips_ms(&o.messages);
            let ac = autocorrelation(&rtt, 10);
            let band = autocorrelation_band(rtt.len());
            ac_rows.extend(ac.iter().map(|&(lag, c)| AcRow {
                topology: topo,
                hops: *hops,
                lag,
                coefficient: c,
                band,
            }));
            if *topo != "map" || ![1, 5, 9].contains(hops) {
                continue;
            }
            let h = histogram(&rtt, 25.0);
            hist_rows.extend(h.iter().map(|&(c, n)| HistRow {
                hops: *hops,
                bin_centre_ms: c,
                count: n,
            }));
            hist_chart = hist_chart.with(Series::new(
                format!("{hops} hops"),
                SeriesStyle::LinePoints,
                h,
            ));
            ac_chart = ac_chart.with(Series::new(
                format!("{hops} hops"),
                SeriesStyle::LinePoints,
                ac.iter().map(|&(l, c)| (l as f64, c)).collect(),
            ));
            ctx.check(
                &format!("KO-5 {hops}"),
                &format!(
                    "lags with significant positive correlation, {hops} hop{} (map)",
                    if *hops > 1 { "s" } else { "" }
                ),
                "lags",
                "K&O Fig. 6: \"out to about 3 or 4\"",
                Target::Range {
                    lo: 3.0,
                    hi: 4.0,
                    rel: 0.0,
                },
                Value::Num(correlated_lags(&ac, band) as f64),
            );
        }
        if let Some((_, _, o)) = outcomes.iter().find(|(t, h, _)| *t == "map" && *h == 9) {
            let band = autocorrelation_band(round_trips_ms(&o.messages).len());
            ac_chart = ac_chart.with(Series::new(
                "95 % band",
                SeriesStyle::Dashed,
                vec![(1.0, band), (10.0, band)],
            ));
            ctx.csv("occupancy_map_9hops", &o.occupancy)?;
            ctx.csv("messages_map_9hops", &o.messages)?;
            ctx.plot("occupancy", "Message numbers, PLT entries and reassembly buffers held by the pumped pair, 9 hops on the map, first 30 s.", &occupancy_chart(&o.occupancy, 30.0))?;
            ctx.plot(
                "time-slices",
                "The life of ten successive messages at 9 hops (compare K&O Fig. 2).",
                &time_slices(o, 200, 10),
            )?;
        }
        ctx.csv("curve", &curve)?;
        ctx.csv("histogram", &hist_rows)?;
        ctx.csv("autocorrelation", &ac_rows)?;
        let series = |topo: &str, f: fn(&CurveRow) -> f64| -> Vec<(f64, f64)> {
            curve
                .iter()
                .filter(|r| r.topology == topo)
                .map(|r| (r.hops as f64, f(r)))
                .collect()
        };
        let fig3 = Chart::new("Throughput against distance (K&O Fig. 3)", "hops", "kbit/s")
            .with(Series::new(
                "K&O Oct 1974 average (37–38.5 to 5 hops; 30 at 9)",
                SeriesStyle::Dashed,
                vec![(1.0, 37.75), (5.0, 37.75), (9.0, 30.0)],
            ))
            .with(Series::new(
                "nmc map, average",
                SeriesStyle::LinePoints,
                series("map", |r| r.throughput_kbps),
            ))
            .with(Series::new(
                "nmc map, best 150",
                SeriesStyle::LinePoints,
                series("map", |r| r.best150_kbps),
            ))
            .with(Series::new(
                "nmc chain, average",
                SeriesStyle::LinePoints,
                series("chain", |r| r.throughput_kbps),
            ));
        let mut fig3 = fig3;
        fig3.y_range = Some(0.0..50.0);
        ctx.plot(
            "fig3-throughput",
            "Average and best-150 throughput against hops, with K&O's October 1974 values.",
            &fig3,
        )?;
        let fig4 = Chart::new(
            "Average round trip against distance (K&O Fig. 4)",
            "hops",
            "ms",
        )
        .with(Series::new(
            "K&O: 200 + 90(n − 1)",
            SeriesStyle::Dashed,
            (1..=9).map(|h| (h as f64, published_rtt(h))).collect(),
        ))
        .with(Series::new(
            "nmc map (accepted → RFNM)",
            SeriesStyle::LinePoints,
            series("map", |r| r.rtt_mean_ms),
        ))
        .with(Series::new(
            "nmc chain (accepted → RFNM)",
            SeriesStyle::LinePoints,
            series("chain", |r| r.rtt_mean_ms),
        ))
        .with(Series::new(
            "nmc map (offered → RFNM)",
            SeriesStyle::LinePoints,
            series("map", |r| r.rtt_from_offer_mean_ms),
        ));
        ctx.plot("fig4-round-trip", "Average round trip against hops.", &fig4)?;
        ctx.plot(
            "fig5-histogram",
            "Round-trip histograms at 1, 5 and 9 hops (25 ms bins).",
            &hist_chart,
        )?;
        ctx.plot(
            "fig6-autocorrelation",
            "Autocorrelation of successive round trips.",
            &ac_chart,
        )?;
        let (m1, m9) = (map_row(1), map_row(9));
        let window_ms = 4.0 * 8063.0 / m1.throughput_kbps;
        ctx.note(format!(
            "Calibration: packet_overhead = {} bits per packet (the one calibrated constant) makes one hop carry {:.1} kbit/s \
             of data, K&O's ~75 % of 50 kbit/s. Everything else comes out of the mechanism.",
            nmc_imp::params::PACKET_OVERHEAD_CALIBRATED,
            m1.throughput_kbps,
        ));
        ctx.note(format!(
            "Why throughput falls or not with distance: four message numbers (and 34 reassembly buffers, which also admit \
             only four 8-packet allocations) cover 4 × 8063 bits; the pair keeps the line full only while a message's \
             number-holding time (from taking its number until the RFNM frees it) stays under 4 × 8063 bit / {:.1} kbit/s = {:.0} ms. \
             Ours is {:.0} ms at 1 hop and {:.0} ms at 9 hops, where the pair holds {:.2} of its 4 numbers on average \
             and gets {:.1} kbit/s. K&O's 30 kbit/s at 9 hops implies a holding time near 4 × 8063 / 30 = 1075 ms, and \
             their round trip grows by 90 ms per hop against our {:.0} ms: the 1974 network added per-hop delay that \
             this model does not have (K&O name looping, interfering traffic and IMP processing queues). KO-2 and \
             the long-path KO-3 rows are therefore misses of the model, not of the arithmetic.",
            m1.throughput_kbps,
            window_ms,
            m1.cycle_mean_ms,
            m9.cycle_mean_ms,
            m9.message_numbers_mean,
            m9.throughput_kbps,
            (m9.rtt_mean_ms - m1.rtt_mean_ms) / 8.0,
        ));
        ctx.note(
            "KO-5: without randomness in the load, successive round trips repeat with the period of the four-message \
             cycle (strong correlation at lag 4, negative at lags 1-3), so the run shows none of the decaying \
             correlation K&O measured on a live network; see fig6 and autocorrelation.csv.",
        );
        Ok(())
    }
}
