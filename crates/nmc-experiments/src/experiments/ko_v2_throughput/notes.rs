//! The notes of `ko-v2-throughput`: what each table shows and, closing them, what would bring each
//! missed row within and the input each case stands for.

use super::*;

/// KO-3 and KO-5 read from the paths (first seed's lines, every seed's lags): the paths whose
/// round trips are correlated as K&O's Fig. 6, against the rest, with what their busiest lines
/// carry and how often the window held the pump back.
pub(super) fn paths_note(paths: &[PathRow]) -> String {
    let ko_1hop_kbps = published_throughput(1).unwrap_or(f64::NAN);
    let (like, unlike): (Vec<&PathRow>, Vec<&PathRow>) = paths
        .iter()
        .partition(|p| (KO5_LAGS.0..=KO5_LAGS.1).contains(&p.correlated_lags));
    let hops = |v: &[&PathRow]| {
        v.iter()
            .map(|p| p.hops.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let range = |v: &[&PathRow], scale: f64, f: fn(&PathRow) -> f64| {
        if v.is_empty() {
            return "none".to_string();
        }
        let (lo, hi) = spread(v.iter().map(|p| scale * f(p)));
        if format!("{lo:.0}") == format!("{hi:.0}") {
            format!("{lo:.0}")
        } else {
            format!("{lo:.0}–{hi:.0}")
        }
    };
    let group = |v: &[&PathRow]| {
        format!(
            "round trips {} ms, the pump's next message waiting for a number {} % of the time, the busiest line \
             carrying {} % other hosts' packets",
            range(v, 1.0, |p| p.rtt_mean_ms),
            range(v, 100.0, |p| p.number_wait_fraction),
            range(v, 100.0, |p| p.busiest_other_share),
        )
    };
    format!(
        "Round trips and their correlation (KO-3, KO-5) follow the queue at each path's busiest line, not the distance \
         (paths.csv: first seed's lines, every seed's lags). Successive round trips are correlated out to {}-{} lags, \
         as K&O's Fig. 6, at hops {}: {}. There the messages of the window queue behind one another at a line shared \
         with other sites' traffic, and the round trip is about the window's time on that line ({} ms) whatever the \
         distance. At hops {} ({}), correlation lasts {} lags (0 where round trips repeat a fixed cycle, \
         10, the most counted, where a backlog drifts slowly). The pump keeps a line at least {:.0} % busy on {} of {} paths, so \
         every round trip here holds a queue; K&O's {} kbit/s with a {} ms round trip at 1 hop is {:.1} kbit in \
         flight, about one message, a round trip that holds little queueing, and theirs grows {} ms a hop. Which fake \
         host K&O used at each distance is not published; the destinations here are a choice \
         (scenarios/ko-v2-map.toml).",
        KO5_LAGS.0,
        KO5_LAGS.1,
        hops(&like),
        group(&like),
        range(&like, 1.0, |p| p.window_on_busiest_ms),
        hops(&unlike),
        group(&unlike),
        range(&unlike, 1.0, |p| p.correlated_lags),
        SATURATED * 100.0,
        paths
            .iter()
            .filter(|p| !p.saturated_lines.is_empty())
            .count(),
        paths.len(),
        ko_1hop_kbps,
        published_rtt(1),
        ko_1hop_kbps * published_rtt(1) / 1e3,
        published_rtt(2) - published_rtt(1),
    )
}

/// For each row that misses as configured: the cases (first seed) under which it would be
/// within its stated tolerance, and the input each stands for.
pub(super) fn closing_note(rows: &[Closing]) -> String {
    let missing: Vec<String> = rows
        .iter()
        .filter(|r| !r.target.holds(&Value::Num(r.ours)))
        .map(|r| {
            let within: Vec<&(String, &str, f64)> = r
                .cases
                .iter()
                .filter(|(_, _, v)| r.target.holds(&Value::Num(*v)))
                .collect();
            let by: Vec<String> = within
                .iter()
                .map(|(c, _, v)| format!("{c} ({v:.1})"))
                .collect();
            let inputs: std::collections::BTreeSet<&str> =
                within.iter().map(|(_, i, _)| *i).collect();
            if by.is_empty() {
                let (lo, hi) = spread(r.cases.iter().map(|c| c.2));
                if r.cases.is_empty() {
                    format!("{} (ours {:.1}): none of these", r.id, r.ours)
                } else {
                    format!(
                        "{} (ours {:.1}): none of these (they give {lo:.1}–{hi:.1})",
                        r.id, r.ours
                    )
                }
            } else {
                format!(
                    "{} (ours {:.1}): {}; the input: {}",
                    r.id,
                    r.ours,
                    by.join(", "),
                    inputs.into_iter().collect::<Vec<_>>().join("; ")
                )
            }
        })
        .collect();
    if missing.is_empty() {
        return "Every row of KO-1, KO-2, KO-3 and KO-5 is within its tolerance.".into();
    }
    format!(
        "Which input would close each row that misses (the first seed's runs of adaptive_routing.csv, \
         destinations.csv, ablation_9hops.csv, sensitivity_9hops.csv and what_if_line_delay.csv scored against the \
         row's own target; \
         none is used by a row, and a case with no source is a what-if, not a fit): {}.",
        missing.join("; ")
    )
}

pub(super) fn adaptive_note(rows: &[AdaptiveRow]) -> String {
    let (lo, hi) = spread(rows.iter().map(|r| 100.0 * r.longer_path_fraction));
    let (llo, lhi) = spread(rows.iter().map(|r| 100.0 * r.looped_fraction));
    let stretch = mean(rows.iter().map(|r| r.hops_mean / f64::from(r.hops) - 1.0));
    let list = rows
        .iter()
        .map(|r| {
            format!(
                "{} hops {:.1} ({:.1} static; {:.0} % of packets on a longer path)",
                r.hops,
                r.throughput_kbps,
                r.static_throughput_kbps,
                100.0 * r.longer_path_fraction
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "Under the 1974 adaptive routing with hold-down (adaptive_routing.csv, first seed), {lo:.1}-{hi:.1} % of the \
         pump's packets took a path longer than the minimum, and {llo:.2}-{lhi:.2} % looped; its packets travelled \
         {:.1} % more hops than the minimum on average (RFC 619: the network's own traffic went 2 % (Aug 1973) to 9 % \
         (Dec 1973) further). Throughput against the same seed with static minimum-hop routing, the rows' configuration \
         (a choice kept from earlier work), in kbit/s: {list}. K&O §III say alternate paths are \"rarely used\" if longer \
         than the primary.",
        100.0 * stretch
    )
}

/// The paths that fall well below the others under the load (K&O's Fig. 3 has no such dip):
/// which line saturates, how much of it is other hosts' traffic, and what adaptive routing gives.
pub(super) fn collapse_note(
    paths: &[PathRow],
    adaptive: &[AdaptiveRow],
    thr: impl Fn(u32) -> f64,
) -> String {
    let mut all: Vec<f64> = (1..=9).map(&thr).collect();
    all.sort_by(f64::total_cmp);
    let median = all[all.len() / 2];
    let low: Vec<String> = paths
        .iter()
        .filter(|p| thr(p.hops) < 0.95 * median)
        .map(|p| {
            let a = adaptive
                .iter()
                .find(|a| a.hops == p.hops)
                .map_or(f64::NAN, |a| a.throughput_kbps);
            format!(
                "{} hops ({}): {:.1} kbit/s, busiest line {} carrying {:.0} % other hosts' packets; {:.1} kbit/s under adaptive routing",
                p.hops,
                p.destination,
                thr(p.hops),
                p.busiest_line,
                100.0 * p.busiest_other_share,
                a
            )
        })
        .collect();
    if low.is_empty() {
        return format!(
            "No path falls more than 5 % below the median throughput of the nine ({median:.1} kbit/s)."
        );
    }
    format!(
        "Paths more than 5 % below the median throughput of the nine ({median:.1} kbit/s), with static minimum-hop \
         routing (busiest line and its share of other hosts' packets from the first seed, paths.csv): {}.",
        low.join("; ")
    )
}

/// The per-hop latency what-if in words: what it gives the pump, and what it costs RFC 619.
pub(super) fn line_delay_note(rows: &[LineDelayRow]) -> String {
    let list = rows
        .iter()
        .map(|r| {
            format!(
                "+{:.0} ms: {:.1} kbit/s and {:.0} ms at 9 hops, RFC 619's Table 1 within ±30 % at {} of 9 hops \
                 (ours {:.2} × theirs on average)",
                r.line_delay_ms,
                r.throughput_9hops_kbps,
                r.rtt_9hops_ms,
                r.rfc619_within,
                r.rfc619_ratio_mean
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    format!(
        "What if every line had a fixed extra delay each way (what_if_line_delay.csv; no source gives one, so no row \
         uses it): {list}. A latency that lengthens K&O's 8-packet round trips lengthens the network's short \
         messages as much, and RFC 619's December round trips are the check on that."
    )
}

/// The ablation at 9 hops in words: each mechanism's effect against the run as configured
/// (`base`, the table's first row); the counterfactual rows are those with more than the
/// profile's `numbers`.
pub(super) fn ablation_note(base: &CurveRow, numbers: u32, rows: &[CaseRow]) -> String {
    let effects = rows
        .iter()
        .skip(1)
        .map(|r| {
            format!(
                "{}: {:.1} kbit/s, {:.0} ms (× {:.2}; a 316's processing queue {:.1} ms)",
                r.case,
                r.throughput_kbps,
                r.rtt_mean_ms,
                r.throughput_ratio,
                r.processing_316_wait_mean_ms
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let opened = rows
        .iter()
        .filter(|r| r.message_numbers > numbers)
        .map(|r| r.throughput_ratio);
    let (lo, hi) = spread(opened);
    let verdict = if lo >= COUNTERFACTUAL_RISE {
        "a clear rise: here the 4-message window is what holds the long path back, as K&O say"
    } else {
        "no clear rise: here the long path is held back by more than the window K&O name, and paths.csv gives \
         the busiest line on it and the share of that line other hosts use"
    };
    format!(
        "Ablation at 9 hops (ablation_9hops.csv, first seed): as configured {:.1} kbit/s with a {:.0} ms round trip; {effects}. \
         K&O explain the fall with the 4-message window; opening it to 8 messages gives × {lo:.2}–{hi:.2}, {verdict}. A rise of at least \
         {:.0} % counts as clear (stated before the run).",
        base.throughput_kbps,
        base.rtt_mean_ms,
        100.0 * (COUNTERFACTUAL_RISE - 1.0)
    )
}

/// What binds one K&O path in the model and what K&O's reading needs instead, in one line
/// (issue 54's fallback: the row's note says it where the shape is not reproduced).
pub(super) fn binding_line(r: &BindingRow) -> String {
    let why = if r.binding == "window" {
        "the window".to_string()
    } else if r.binding == "neither" {
        "neither the window nor a line".to_string()
    } else {
        format!(
            "its busiest line, {} ({:.0} % busy, {:.0} % other hosts' packets)",
            r.busiest_line,
            r.busiest_utilisation * 100.0,
            r.busiest_other_share * 100.0
        )
    };
    let needs = if r.window_bound_at_ko_rtt_kbps < r.throughput_kbps {
        "the window would bind"
    } else {
        "the window would still not bind"
    };
    format!(
        "binds: {why}. K&O's reading needs Fig. 4's round trip, {:.0} ms against the model's {:.0}: with it 4 \
         numbers carry at most {:.1} kbit/s, so {needs}",
        r.ko_rtt_ms, r.rtt_ms, r.window_bound_at_ko_rtt_kbps,
    )
}

/// The note a published row at `hops` carries: [`binding_line`] for the map's path at that
/// distance, with the ablation it is read beside.
pub(super) fn binding_row_note(rows: &[BindingRow], hops: u32) -> Option<String> {
    let r = rows.iter().find(|r| r.hops == hops)?;
    let ablation = if hops == 9 {
        "; what each mechanism the 1974 network had does here: ablation_9hops.csv"
    } else {
        ""
    };
    Some(format!(
        "In the model, on the map's path to {} (first seed; binding.csv{ablation}): 8 message numbers \
         give ×{:.3}; {}.",
        r.destination,
        r.window8_ratio,
        binding_line(r)
    ))
}

/// One line per K&O path: what binds it in the model, against K&O's reading (§IV: the 4-message
/// window, from about 5 hops on).
pub(super) fn binding_note(rows: &[BindingRow]) -> String {
    let each: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} hop{} ({}): {:.1} kbit/s, {:.1} with 8 message numbers (×{:.3}); {:.2} numbers held, the next \
                 message waiting for one {:.0} % of the time; the pump's packets wait {} ms at its hops ({:.0} in \
                 all); {}",
                r.hops,
                s_hop(r.hops),
                r.destination,
                r.throughput_kbps,
                r.window8_throughput_kbps,
                r.window8_ratio,
                r.message_numbers_mean,
                r.number_wait_fraction * 100.0,
                r.pump_wait_by_hop_ms,
                r.pump_wait_total_ms,
                binding_line(r),
            )
        })
        .collect();
    format!(
        "What binds each K&O path (binding.csv, path_lines.csv; first seed; the window binds when K&O's counterfactual \
         of 8 message numbers and room for 8 messages raises throughput by {:.0} % or more). K&O §IV read the fall \
         beyond 5 hops as the 4-message window's gaps; in the model: {}.",
        (COUNTERFACTUAL_RISE - 1.0) * 100.0,
        each.join("; ")
    )
}

impl KoV2Throughput {
    /// The rows that miss, each with the cases that would meet its target (the closing note).
    pub(super) fn closing_rows(
        c: &Curve,
        cases: &Cases,
        delays: &[LineDelayRow],
        adaptive: &[AdaptiveRow],
        site_rows: &[SiteRow],
        scores: &[SiteScore],
    ) -> Vec<Closing> {
        let score = |h: u32| &scores[h as usize - 1];
        let (sens, ablation) = (&cases.sens, &cases.ablation);
        let nine_hop_cases = |f: fn(&CaseRow) -> f64, g: fn(&LineDelayRow) -> f64| {
            let mut v: Vec<(String, &'static str, f64)> = sens
                .iter()
                .chain(ablation)
                .filter(|r| !r.input.is_empty())
                .map(|r| (r.case.clone(), r.input, f(r)))
                .collect();
            v.extend(delays.iter().filter(|d| d.line_delay_ms > 0.0).map(|d| {
                (
                    format!("every line {} ms longer each way", d.line_delay_ms),
                    INPUT_LATENCY,
                    g(d),
                )
            }));
            v
        };
        let adaptive_cases = |h: u32, f: fn(&AdaptiveRow) -> f64| {
            adaptive
                .iter()
                .filter(move |a| a.hops == h)
                .map(move |a| ("adaptive routing".to_string(), INPUT_ROUTING, f(a)))
        };
        let site_cases = |h: u32, g: fn(&SiteRow) -> f64| {
            site_rows
                .iter()
                .filter(move |r| r.hops == h)
                .map(move |r| (format!("to {}", r.destination), INPUT_SITE, g(r)))
        };
        let mut closing: Vec<Closing> = (1..=5)
            .map(|h| Closing {
                id: format!("KO-1 {}", hops(h)),
                target: ko1_target(),
                ours: score(h).throughput_median_kbps,
                // Under the site rule a site is no longer a remedy: every one is scored.
                cases: adaptive_cases(h, |a| a.throughput_kbps).collect(),
            })
            .collect();
        closing.push(Closing {
            id: "KO-2 9 hops".into(),
            target: ko2_target(),
            ours: score(9).throughput_median_kbps,
            cases: nine_hop_cases(|r| r.throughput_kbps, |d| d.throughput_9hops_kbps),
        });
        closing.extend((1..=9).map(|h| Closing {
            id: format!("KO-3 {}", hops(h)),
            target: ko3_target(h),
            ours: score(h).rtt_median_ms,
            cases: if h == 9 {
                nine_hop_cases(|r| r.rtt_mean_ms, |d| d.rtt_9hops_ms)
            } else {
                adaptive_cases(h, |a| a.rtt_mean_ms).collect()
            },
        }));
        closing.extend([1, 5, 9].map(|h| {
            Closing {
                id: format!("KO-5 {}", hops(h)),
                target: ko5_target(),
                ours: mean(c.lags.iter().filter(|l| l.0 == h).map(|l| l.2)),
                cases: adaptive_cases(h, |a| a.correlated_lags)
                    .chain(site_cases(h, |r| r.correlated_lags))
                    .collect(),
            }
        }));
        closing
    }

    /// The curve's tables, Figs. 3-6, and the notes on what the curve is made of.
    pub(super) fn figures_and_notes(
        ctx: &mut Context,
        c: &Curve,
        figs: Figs56,
        adaptive: &[AdaptiveRow],
        base_rate: f64,
        scores: &[SiteScore],
    ) -> Result<()> {
        let paths = Self::curve_figures(ctx, c, figs, adaptive, scores)?;
        Self::curve_notes(ctx, c, &paths, base_rate)
    }

    /// The curve's tables and Figs. 3-6; returns the paths' rows for the notes.
    fn curve_figures(
        ctx: &mut Context,
        c: &Curve,
        figs: Figs56,
        adaptive: &[AdaptiveRow],
        scores: &[SiteScore],
    ) -> Result<Vec<PathRow>> {
        let Figs56 {
            hist_rows,
            hist_chart,
            ac_chart,
            paths,
        } = figs;
        ctx.csv("curve", &c.rows)?;
        ctx.csv("histogram", &hist_rows)?;
        ctx.csv("autocorrelation", &c.ac_rows)?;
        let series = |topo: &str, f: fn(&CurveRow) -> f64| -> Vec<(f64, f64)> {
            (1..=9u32)
                .filter_map(|h| {
                    let v: Vec<f64> = c
                        .rows
                        .iter()
                        .filter(|r| r.topology == topo && r.hops == h)
                        .map(f)
                        .collect();
                    (!v.is_empty()).then(|| (h as f64, mean(v.into_iter())))
                })
                .collect()
        };
        let mut fig3 = Chart::new(
            "Throughput against distance (K&O Fig. 3)",
            "distance (hops)",
            "throughput (kbit/s)",
        )
        .with(Series::published(
            "K&O Oct 1974 average (37–38.5 at 1–5 hops; 30 at 9)",
            (1..=9)
                .filter_map(|h| published_throughput(h).map(|v| (f64::from(h), v)))
                .collect(),
        ))
        .with_all(site_rule_series(scores, "", |s| {
            (
                s.throughput_median_kbps,
                s.throughput_min_kbps,
                s.throughput_max_kbps,
            )
        }))
        .with(Series::new(
            "nmc, loaded map, K&O-path sites (mean of seeds)",
            SeriesStyle::LinePoints,
            series("map", |r| r.throughput_kbps),
        ))
        .with(Series::new(
            "nmc, loaded map, best 150",
            SeriesStyle::LinePoints,
            series("map", |r| r.best150_kbps),
        ))
        .with(Series::new(
            "nmc, empty chain, average",
            SeriesStyle::LinePoints,
            series("chain", |r| r.throughput_kbps),
        ))
        .with(Series::new(
            "nmc, loaded map, adaptive routing (first seed)",
            SeriesStyle::Points,
            adaptive
                .iter()
                .map(|r| (f64::from(r.hops), r.throughput_kbps))
                .collect(),
        ));
        fig3.y_range = Some(0.0..50.0);
        ctx.plot(
            "fig3-throughput",
            "Average and best-150 throughput against hops, with K&O's October 1974 values.",
            &fig3,
        )?;
        let fig4 = Chart::new(
            "Average round trip against distance (K&O Fig. 4)",
            "distance (hops)",
            "average round trip (ms)",
        )
        .with(Series::new(
            "K&O: 200 + 90(n − 1)",
            SeriesStyle::Dashed,
            (1..=9).map(|h| (h as f64, published_rtt(h))).collect(),
        ))
        .with_all(site_rule_series(scores, "; accepted → RFNM", |s| {
            (s.rtt_median_ms, s.rtt_min_ms, s.rtt_max_ms)
        }))
        .with(Series::new(
            "nmc, loaded map, K&O-path sites (accepted → RFNM)",
            SeriesStyle::LinePoints,
            series("map", |r| r.rtt_mean_ms),
        ))
        .with(Series::new(
            "nmc, empty chain (accepted → RFNM)",
            SeriesStyle::LinePoints,
            series("chain", |r| r.rtt_mean_ms),
        ))
        .with(Series::new(
            "nmc, loaded map (offered → RFNM)",
            SeriesStyle::LinePoints,
            series("map", |r| r.rtt_from_offer_mean_ms),
        ));
        ctx.plot("fig4-round-trip", "Average round trip against hops.", &fig4)?;
        ctx.plot(
            "fig5-histogram",
            "Round-trip histograms at 1, 5 and 9 hops (25 ms bins, first seed).",
            &hist_chart,
        )?;
        ctx.plot(
            "fig6-autocorrelation",
            "Autocorrelation of successive round trips (first seed).",
            &ac_chart,
        )?;
        Ok(paths)
    }

    /// The notes on what the curve is made of: the configuration, one hop against the line's
    /// own limit, what the round trip measures, the 9-hop window, and what is not modelled.
    fn curve_notes(ctx: &mut Context, c: &Curve, paths: &[PathRow], base_rate: f64) -> Result<()> {
        let p = nmc_imp::ImpParams::v2_1974_10();
        let m1 = c.map_mean(1, |r| r.throughput_kbps);
        let m9 = c.map_mean(9, |r| r.throughput_kbps);
        let c9 = c.map_mean(9, |r| r.cycle_mean_ms);
        let n9 = c.map_mean(9, |r| r.message_numbers_mean);
        let w9 = c.map_mean(9, |r| r.number_wait_fraction);
        let p316 = c.map_mean(9, |r| r.processing_316_wait_mean_ms);
        // The line's own limit for the pump at 1 hop (first seed): a full message's bits with its
        // packets' overhead, on a line that also carries a routing message every routing period.
        let one = c.first.iter().find(|(h, _)| *h == 1).map(|(_, o)| o);
        let pp = one.map_or(&p, |o| &o.params);
        let line_bps = one
            .and_then(|o| o.lines.iter().find(|l| l.from == "UCLA"))
            .map_or(f64::NAN, |l| l.capacity_bps as f64);
        let one_other = paths
            .iter()
            .find(|r| r.hops == 1)
            .map_or(f64::NAN, |r| r.busiest_other_share);
        let packets = pp.max_message.get().div_ceil(pp.max_packet.get());
        let message_line_bits = (pp.max_message.get() + packets * pp.packet_overhead.get()) as f64;
        let routing_share =
            pp.routing_message.get() as f64 / (line_bps * pp.routing_period.as_secs_f64());
        let line_limit = line_bps / 1e3 * (1.0 - routing_share) * pp.max_message.get() as f64
            / message_line_bits;
        ctx.note(format!(
            "One configuration for every row: the June 1974 map with the network's own load at October's working-hours level \
             ({base_rate} internode messages/s: October 1973's traffic from RFC 586 with the IMPs' status reports, × 2 for \
             working hours, a choice after RFC 546 and RFC 413; 1.07 packets per message; RFC 619's site matrix), 316 and 516 \
             IMPs with the IMP program's own work (routing messages every 128-640 ms by line load, their processing, the \
             25.6 ms and 640 ms clock jobs), {} bits of line overhead on a data packet and {} on a RFNM (RFC 568, RFC 635); \
             {} seeds. Nothing is fitted to K&O's figures.",
            pp.packet_overhead.get(),
            pp.control_overhead.get(),
            c.seeds.len()
        ));
        ctx.note(format!(
            "One hop carries {m1:.1} kbit/s against K&O's 37-38.5. The line alone allows {line_limit:.1} kbit/s to the pump \
             ({} bits of data in {} line bits a message, less a {} bit routing message every {} ms); other hosts' traffic \
             shares the line ({:.0} % of its packet frames, first seed, paths.csv). K&O's \"approximately 75 percent\" (their ref. [4], Kleinrock, Naylor & \
             Opderbeck 1976, not reachable) is what that study measured; BBN's \"about 37.5 kbit/s\" (RFC 573 §IV, citing BBN \
             report 2491) says no more of where the rest went.",
            pp.max_message.get(),
            message_line_bits,
            pp.routing_message.get(),
            pp.routing_period.as_millis_f64(),
            100.0 * one_other,
        ));
        ctx.note(
            "Round trip (KO-3, Figs. 4-6) is measured as K&O's host saw it: from the IMP taking the message's last packet (the \
             PDP-11/45 may start the next message) to the RFNM at the host. It includes the source IMP's \
             output queue but not the wait for a message number and the other resources (K&O Fig. 2, points a-c), which \
             comes before the rest of the message is taken in and which K&O count as a gap in throughput. RFC 619's T(6) − T(2) \
             (RFC619-T1) is the IMP's view, from packet 1 in the source IMP to the RFNM back, without the wait for a \
             message number. The time from the host offering a message to its RFNM is drawn in Fig. 4 beside it.",
        );
        ctx.note(format!(
            "At 9 hops the pair holds {n9:.2} of its {n} numbers on average, a number is held {c9:.0} ms \
             ({n} × {b} bit / {c9:.0} ms = {:.1} kbit/s), and the pump's next message waits for a number {:.0} % of the time, \
             so throughput is {m9:.1} kbit/s. ablation_9hops.csv and sensitivity_9hops.csv show what each mechanism and the \
             load contribute.",
            f64::from(pp.message_numbers) * pp.max_message.get() as f64 / c9,
            w9 * 100.0,
            n = pp.message_numbers,
            b = pp.max_message.get(),
        ));
        ctx.note(format!(
            "Not modelled: the 316's higher-priority work (K&O §VII: a 316's processing queue averaged about 10 ms in 1975, \
             more than 5 times a 516's). The IMP program gives the TIP's character output interrupt level 0 and its clock \
             level 4, above the task (BBN IMP program 3050 listing, p. 11), but no source reached gives the TIP's cost per \
             character or its terminals' character rates (Ornstein et al., SJCC 1972, not reachable). Here a 316's queue \
             waits {p316:.2} ms on average at 9 hops: only the IMP program's own work runs above the task."
        ));
        Ok(())
    }
}
