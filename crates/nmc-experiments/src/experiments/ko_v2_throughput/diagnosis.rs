//! Beside the rows of `ko-v2-throughput`: the 9-hop ablation and what-ifs, the adaptive curve,
//! the fixed per-hop latency, every other site at each distance, the background's pairing, and
//! issue 54's per-path diagnosis (each line's load and what binds).

use super::*;

pub(super) fn path_row(hops: u32, destination: &str, o: &Outcome, lags: f64) -> PathRow {
    let sat: Vec<&nmc_imp::run::LineRecord> = o
        .lines
        .iter()
        .filter(|l| l.utilisation >= SATURATED)
        .collect();
    // The pump's packets and their bits on a line, from its messages and the profile.
    let pump: Vec<&nmc_imp::observe::MessageRecord> =
        o.messages.iter().filter(|m| m.host == "UCLA").collect();
    let packets = |m: &nmc_imp::observe::MessageRecord| m.bits.div_ceil(o.params.max_packet.get());
    let pump_packets: u64 = pump.iter().map(|m| packets(m)).sum();
    let message_line_bits = mean(
        pump.iter()
            .map(|m| (m.bits + packets(m) * o.params.packet_overhead.get()) as f64),
    );
    let busiest = sat.iter().max_by(|a, b| {
        a.packet_frames
            .cmp(&b.packet_frames)
            .then(a.utilisation.total_cmp(&b.utilisation))
    });
    let (name, util, frames, other, window_ms) =
        busiest.map_or((String::new(), 0.0, 0, 0.0, f64::NAN), |l| {
            let other =
                (l.packet_frames as f64 - l.retransmissions as f64 - pump_packets as f64).max(0.0);
            let window =
                o.params.message_numbers as f64 * message_line_bits / l.capacity_bps as f64 * 1e3;
            (
                format!("{}>{}", l.from, l.to),
                l.utilisation,
                l.packet_frames,
                other,
                window,
            )
        });
    PathRow {
        hops,
        destination: destination.to_string(),
        saturated_lines: sat
            .iter()
            .map(|l| format!("{}>{}", l.from, l.to))
            .collect::<Vec<_>>()
            .join(" "),
        busiest_line: name,
        busiest_utilisation: util,
        busiest_packet_frames: frames,
        busiest_other_packet_frames: other,
        busiest_other_share: other / (frames as f64).max(1.0),
        rejected: sat.iter().map(|l| l.rejected).sum(),
        window_on_busiest_ms: window_ms,
        number_wait_fraction: number_wait_fraction(o),
        correlated_lags: lags,
        rtt_mean_ms: mean(round_trips_ms(&o.messages).into_iter()),
    }
}

/// The pump's journeys under adaptive routing at `hops` (its data packets, from UCLA).
pub(super) fn adaptive_row(
    hops: u32,
    row: &CurveRow,
    o: &Outcome,
    static_kbps: f64,
) -> AdaptiveRow {
    let pump: std::collections::BTreeSet<nmc_imp::packet::MsgId> = o
        .messages
        .iter()
        .filter(|m| m.host == "UCLA")
        .map(|m| m.id)
        .collect();
    let js: Vec<&nmc_imp::observe::JourneyRecord> = o
        .routing
        .journeys
        .iter()
        .filter(|j| j.kind == "data" && pump.contains(&j.msg))
        .collect();
    let n = js.len().max(1) as f64;
    let routing = o.metrics.routing;
    AdaptiveRow {
        hops,
        destination: row.destination.clone(),
        throughput_kbps: row.throughput_kbps,
        static_throughput_kbps: static_kbps,
        rtt_mean_ms: row.rtt_mean_ms,
        packets: js.len() as u64,
        longer_path_fraction: js.iter().filter(|j| j.hops > hops).count() as f64 / n,
        looped_fraction: js.iter().filter(|j| j.max_visits > 1).count() as f64 / n,
        hops_mean: js.iter().map(|j| f64::from(j.hops)).sum::<f64>() / n,
        route_changes: routing.map_or(f64::NAN, |r| r.route_changes as f64),
        hold_downs: routing.map_or(f64::NAN, |r| r.hold_downs as f64),
        correlated_lags: outcome_lags(o),
    }
}

/// Sites of the June 1974 map 1..=9 minimum hops from UCLA other than the curve's
/// ([`KO_MAP_DESTINATIONS`]) whose path from UCLA is all 50 kbit/s terrestrial line (the site
/// rule in the module's doc), by distance and name.
pub(super) fn other_sites() -> Result<Vec<(u32, String)>> {
    let s = scenario(Loader::FULL, MAP, &[])?;
    let t = nmc_imp::topology::Topology::build(&s.network.topology)
        .map_err(|e| anyhow::anyhow!("ko-v2-map: {e}"))?;
    let ucla = t
        .index("UCLA")
        .ok_or_else(|| anyhow::anyhow!("ko-v2-map: no UCLA"))?;
    let mut v: Vec<(u32, String)> = t
        .names
        .iter()
        .filter_map(|n| {
            let dst = t.index(n)?;
            let h = t.hops(ucla, dst)?;
            ((1..=9).contains(&h)
                && KO_MAP_DESTINATIONS[h as usize - 1] != n
                && terrestrial_50k(&t, ucla, dst))
            .then(|| (h, n.clone()))
        })
        .collect();
    v.sort();
    Ok(v)
}

/// Is the static path from `from` to `to` all 50 kbit/s line with under 100 ms of propagation
/// (no satellite or 9.6 kbit/s circuit)? The site rule's test.
pub(super) fn terrestrial_50k(t: &nmc_imp::topology::Topology, from: u32, to: u32) -> bool {
    use nmc_imp::topology::Routes as _;
    let mut at = from;
    while at != to {
        let Some(l) = t.next_link(at, to) else {
            return false;
        };
        let link = &t.links[l as usize];
        if link.capacity.bps() != 50_000 || link.propagation.as_millis_f64() >= 100.0 {
            return false;
        }
        at = link.to;
    }
    true
}

/// The site rule's two series of a figure: the scored median at each distance, and the spread
/// over the sites as a segment from the least to the most. `f` gives (median, least, most).
pub(super) fn site_rule_series(
    scores: &[SiteScore],
    label: &str,
    f: fn(&SiteScore) -> (f64, f64, f64),
) -> [Series; 2] {
    [
        Series::new(
            format!("nmc, loaded map, median over every site at that distance (scored{label})"),
            SeriesStyle::LinePoints,
            scores.iter().map(|s| (f64::from(s.hops), f(s).0)).collect(),
        ),
        Series::new(
            "nmc, spread over the sites",
            SeriesStyle::Segments,
            scores
                .iter()
                .flat_map(|s| {
                    let (h, (_, lo, hi)) = (f64::from(s.hops), f(s));
                    [(h, lo), (h, hi)]
                })
                .collect(),
        ),
    ]
}

/// Each site's mean over the seeds: the curve's site at each distance (its map rows) and the
/// other sites' runs.
pub(super) fn site_means(c: &Curve, others: &[SiteRow]) -> Vec<SiteRow> {
    // (hops, site) -> each run's (throughput, round trip, correlated lags).
    type Runs = Vec<(f64, f64, f64)>;
    let mut by: std::collections::BTreeMap<(u32, String), Runs> = std::collections::BTreeMap::new();
    for r in c.rows.iter().filter(|r| r.topology == "map") {
        let lags = c
            .lags
            .iter()
            .find(|l| l.0 == r.hops && l.1 == r.seed)
            .map_or(f64::NAN, |l| l.2);
        by.entry((r.hops, r.destination.clone()))
            .or_default()
            .push((r.throughput_kbps, r.rtt_mean_ms, lags));
    }
    for r in others {
        by.entry((r.hops, r.destination.clone()))
            .or_default()
            .push((r.throughput_kbps, r.rtt_mean_ms, r.correlated_lags));
    }
    by.into_iter()
        .map(|((hops, destination), v)| SiteRow {
            hops,
            destination,
            seed: 0,
            throughput_kbps: mean(v.iter().map(|x| x.0)),
            rtt_mean_ms: mean(v.iter().map(|x| x.1)),
            correlated_lags: mean(v.iter().map(|x| x.2)),
        })
        .collect()
}

/// The site rule's score at 1..=9 hops from every site's mean.
pub(super) fn site_scores(means: &[SiteRow]) -> Vec<SiteScore> {
    (1..=9u32)
        .map(|h| {
            let at: Vec<&SiteRow> = means.iter().filter(|r| r.hops == h).collect();
            let thr: Vec<f64> = at.iter().map(|r| r.throughput_kbps).collect();
            let rtt: Vec<f64> = at.iter().map(|r| r.rtt_mean_ms).collect();
            let (tlo, thi) = spread(thr.iter().copied());
            let (rlo, rhi) = spread(rtt.iter().copied());
            SiteScore {
                hops: h,
                sites: at.len(),
                throughput_median_kbps: median(thr),
                throughput_min_kbps: tlo,
                throughput_max_kbps: thi,
                rtt_median_ms: median(rtt),
                rtt_min_ms: rlo,
                rtt_max_ms: rhi,
                by_site: at
                    .iter()
                    .map(|r| {
                        format!(
                            "{} {:.1}/{:.0}",
                            r.destination, r.throughput_kbps, r.rtt_mean_ms
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            }
        })
        .collect()
}

/// KO-5's measure on one run: how many lags of its round trips are correlated.
pub(super) fn outcome_lags(o: &Outcome) -> f64 {
    let rtt = round_trips_ms(&o.messages);
    correlated_lags(&autocorrelation(&rtt, 10), autocorrelation_band(rtt.len())) as f64
}

/// Lags 1..=L all positive and outside the band: L.
pub(super) fn correlated_lags(ac: &[(usize, f64)], band: f64) -> usize {
    ac.iter().take_while(|(_, r)| *r > band).count()
}

/// K&O Fig. 2 style: each message's life as segments on a time axis.
pub(super) fn time_slices(o: &Outcome, first: usize, n: usize) -> Chart {
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
        "message (index in the run)",
    );
    for (s, pts) in stages.into_iter().enumerate() {
        chart = chart.with(Series::new(names[s], SeriesStyle::Segments, pts));
    }
    chart
}

/// Why the long path falls, the plan: the 9-hop run under each load (sensitivity) and with
/// each mechanism of the configuration off in turn (ablation), with K&O's counterfactual, the
/// window opened to 8 messages. A case with no settings is the run as configured.
pub(super) fn nine_hop_cases(p: &nmc_imp::ImpParams, base_rate: f64) -> Vec<Case> {
    let window = |numbers: u32, plt: u32| window_settings(p, numbers, plt);
    let rate = |f: f64| format!("traffic.1.messages_per_second={}", base_rate * f);
    let no_load = || "traffic=[{ kind = \"pump\", from = \"UCLA\", to = \"FAKE\" }]".to_string();
    let mut cases: Vec<Case> = LOAD_FACTORS
        .iter()
        .map(|&f| {
            let sets = if f == 0.0 {
                vec![no_load()]
            } else if f == 1.0 {
                vec![]
            } else {
                vec![rate(f)]
            };
            let input = if sets.is_empty() { "" } else { INPUT_LOAD };
            (
                "sensitivity",
                format!("load × {f}"),
                base_rate * f,
                p.message_numbers,
                sets,
                input,
            )
        })
        .collect();
    cases.push((
        "sensitivity",
        "load of December 1973's seven-day average (RFC 619)".into(),
        DEC_1973_MESSAGES_PER_SECOND,
        p.message_numbers,
        vec![format!(
            "traffic.1.messages_per_second={DEC_1973_MESSAGES_PER_SECOND}"
        )],
        INPUT_LOAD,
    ));
    let mut ablations: Vec<(String, Vec<String>, f64, u32, &'static str)> = vec![
        (
            "as configured".into(),
            vec![],
            base_rate,
            p.message_numbers,
            "",
        ),
        (
            "data packets 152 bits on the line (the earlier reading; RFC 635: 168)".into(),
            vec!["network.params.packet_overhead=152bit".into()],
            base_rate,
            p.message_numbers,
            INPUT_MECHANISM,
        ),
        (
            "load: December 1973's seven-day average, not October's working hours".into(),
            vec![format!(
                "traffic.1.messages_per_second={DEC_1973_MESSAGES_PER_SECOND}"
            )],
            DEC_1973_MESSAGES_PER_SECOND,
            p.message_numbers,
            INPUT_LOAD,
        ),
        (
            "no other traffic".into(),
            vec![no_load()],
            0.0,
            p.message_numbers,
            INPUT_LOAD,
        ),
        (
            "routing messages every 640 ms on every line (not by line load)".into(),
            vec!["network.params.routing_frequency=fixed".into()],
            base_rate,
            p.message_numbers,
            INPUT_MECHANISM,
        ),
        (
            "adaptive routing with the 1974 hold-down (not static minimum hops)".into(),
            vec!["network.routing=adaptive".into()],
            base_rate,
            p.message_numbers,
            INPUT_ROUTING,
        ),
    ];
    ablations.push((
        "4 logical channels a line, not 8 (RFC 619 p. 2): how near the channels are to binding"
            .into(),
        vec!["network.params.logical_channels=4".into()],
        base_rate,
        p.message_numbers,
        INPUT_MECHANISM,
    ));
    ablations.extend(TIP_WORK_MS.iter().map(|&ms| {
        (
            format!(
                "what if (no source): every 316 busy {ms} ms of each 25.6 ms tick above the task (TIP work)"
            ),
            vec![format!(
                "network.params.tip_work_316={}us",
                (ms * 1e3).round() as u64
            )],
            base_rate,
            p.message_numbers,
            INPUT_TIP,
        )
    }));
    ablations.push((
        format!(
            "what if (no source): data frames {} bits on the line, what RFC 573's 37.5 kbit/s at one hop needs",
            RFC573_PACKET_OVERHEAD_BITS
        ),
        vec![format!(
            "network.params.packet_overhead={RFC573_PACKET_OVERHEAD_BITS}bit"
        )],
        base_rate,
        p.message_numbers,
        INPUT_LINE_RATE,
    ));
    ablations.extend([
        (
            "counterfactual: 8 numbers, reassembly for 8 messages (6 PLT entries)".into(),
            window(8, p.plt_entries),
            base_rate,
            8,
            INPUT_WINDOW,
        ),
        (
            "counterfactual: 8 numbers, reassembly for 8 messages, 8 PLT entries".into(),
            window(8, 8),
            base_rate,
            8,
            INPUT_WINDOW,
        ),
    ]);
    debug_assert_eq!(ablations.len(), ABLATION_CASES);
    cases.extend(
        ablations
            .into_iter()
            .map(|(c, sets, r, n, i)| ("ablation", c, r, n, sets, i)),
    );
    cases
}

/// Settings for a window of `numbers` message numbers and `plt` PLT entries: room for
/// `numbers` full allocations plus the profile's spare beyond its 4, beside the profile's other
/// buffers (K&O's counterfactual).
pub(super) fn window_settings(p: &nmc_imp::ImpParams, numbers: u32, plt: u32) -> Vec<String> {
    let reasm = p.reassembly_buffers + (numbers - p.message_numbers) * p.allocation_buffers;
    vec![
        format!("network.params.message_numbers={numbers}"),
        format!("network.params.plt_entries={plt}"),
        format!("network.params.reassembly_buffers={reasm}"),
        format!(
            "network.params.buffers={}",
            p.buffers + reasm - p.reassembly_buffers
        ),
    ]
}

/// One row per case, from the run with its settings (the curve's own 9-hop run for the case
/// with none), its throughput also as a ratio to the run as configured.
pub(super) fn case_rows(
    cases: Vec<Case>,
    as_configured: &CurveRow,
    by_sets: &std::collections::BTreeMap<Vec<String>, CurveRow>,
) -> Vec<CaseRow> {
    let mut table = Vec::new();
    for (t, case, r, n, sets, input) in cases {
        let row = if sets.is_empty() {
            as_configured
        } else {
            &by_sets[&sets]
        };
        table.push(CaseRow {
            table: t,
            case,
            background_messages_per_second: r,
            message_numbers: n,
            throughput_kbps: row.throughput_kbps,
            throughput_ratio: f64::NAN,
            rtt_mean_ms: row.rtt_mean_ms,
            cycle_mean_ms: row.cycle_mean_ms,
            message_numbers_mean: row.message_numbers_mean,
            number_wait_fraction: row.number_wait_fraction,
            processing_316_wait_mean_ms: row.processing_316_wait_mean_ms,
            input,
        });
    }
    let configured = as_configured.throughput_kbps;
    for r in &mut table {
        r.throughput_ratio = r.throughput_kbps / configured;
    }
    table
}

/// 9-hop throughput against the network's load, beside K&O's 30 kbit/s.
pub(super) fn load_chart(sens: &[CaseRow], base_rate: f64) -> Chart {
    Chart::new(
        "9-hop throughput against the network's load",
        "other hosts' internode load (messages/s)",
        "throughput (kbit/s)",
    )
    .with(Series::new(
        "K&O Oct 1974, 9 hops",
        SeriesStyle::Dashed,
        vec![(0.0, 30.0), (2.0 * base_rate, 30.0)],
    ))
    .with(Series::new(
        "nmc, 4 message numbers",
        SeriesStyle::LinePoints,
        sens.iter()
            .filter(|r| r.case.starts_with("load ×"))
            .map(|r| (r.background_messages_per_second, r.throughput_kbps))
            .collect(),
    ))
    .with(Series::new(
        "nmc, December 1973's average load",
        SeriesStyle::Points,
        sens.iter()
            .filter(|r| !r.case.starts_with("load ×"))
            .map(|r| (r.background_messages_per_second, r.throughput_kbps))
            .collect(),
    ))
}

impl KoV2Throughput {
    /// The background's pairing, fitted on RFC 619 Table 1's messages by hops
    /// ([`ko_pairing`]): the table of the fit and a note of what it chose.
    pub(super) fn pairing(&self, ctx: &mut Context, pr: &mut Progress) -> Result<()> {
        let s = scenario(ctx.loader(), MAP, &[])?;
        let rows = ko_pairing::fit(&s)?;
        ctx.csv("pairing_fit", &rows)?;
        // How much the 9-hop point depends on the fitted value: the grid's neighbours (first
        // seed), beside the fit's own doubts (the note).
        let (loader, seed0) = (ctx.loader(), ctx.seed);
        let sens: Vec<Result<PairingSensitivityRow>> = PAIRING_SENSITIVITY
            .par_iter()
            .map(|&d| {
                let (r, _) = self.run_one(
                    loader,
                    "map",
                    9,
                    seed0,
                    &[format!("traffic.1.hop_decay={d}")],
                )?;
                Ok(PairingSensitivityRow {
                    hop_decay: d,
                    throughput_9hops_kbps: r.throughput_kbps,
                    rtt_9hops_ms: r.rtt_mean_ms,
                })
            })
            .collect();
        let sens: Vec<PairingSensitivityRow> = sens.into_iter().collect::<Result<_>>()?;
        pr.add(ctx, sens.len() as f64);
        ctx.csv("pairing_9hops", &sens)?;
        let at = |d: f64| {
            sens.iter()
                .find(|r| r.hop_decay == d)
                .map_or(String::from("?"), |r| {
                    format!(
                        "{:.1} kbit/s, {:.0} ms",
                        r.throughput_9hops_kbps, r.rtt_9hops_ms
                    )
                })
        };
        let chosen = rows.iter().find(|r| r.chosen).unwrap_or(&rows[0]);
        let independent = &rows[0];
        // The same rule on the map nearest RFC 619's December 1973 network.
        let on_1973 = ko_pairing::fit_on_map(&s, "1973-09")?;
        let chosen_1973 = on_1973
            .iter()
            .find(|r| r.chosen)
            .map_or(f64::NAN, |r| r.hop_decay);
        ctx.note(format!(
            "Where the background goes (pairing_fit.csv): RFC 619 Table 1 counts December 1973's messages by minimum \
             hops (mean {:.2}). Drawn independently of the origin (hop_decay = 1), the scenario's messages travel {:.2} \
             hops on the June 1974 map (total variation {:.3} from RFC 619's shares); the rule stated before scoring \
             chooses hop_decay = {} (mean {:.2} hops, total variation {:.3}), and the scenario runs with {}. Fitted on \
             that column only: every KO row is out of sample (RFC619-T1 scores the same table's round-trip column). \
             The fit is not robust. RFC 619 counted hops on the December 1973 network: the same rule on the 1973-09 \
             map chooses {chosen_1973}. And RFC 619 counted as one hop the traffic between a TIP and the IMP at its \
             site (AMES–AMST, ISI–USCT: its Table 4), which this map merges into one site and the scenario's weights \
             send elsewhere. At 9 hops (first seed, pairing_9hops.csv): hop_decay 1 gives {}, 0.95 {}, 0.9 {}, 0.85 {}.",
            ko_pairing::published_mean_hops(),
            independent.mean_hops,
            independent.total_variation,
            chosen.hop_decay,
            chosen.mean_hops,
            chosen.total_variation,
            ko_pairing::configured(&s),
            at(1.0),
            at(0.95),
            at(0.9),
            at(0.85),
        ));
        Ok(())
    }
}

/// The resource that binds a path: the window when opening it raises throughput by
/// [`COUNTERFACTUAL_RISE`], else its busiest line when that is [`SATURATED`], else neither.
pub(super) fn binding(ratio: f64, busiest: &str, utilisation: f64) -> String {
    if ratio >= COUNTERFACTUAL_RISE {
        "window".into()
    } else if utilisation >= SATURATED {
        format!("line {busiest}")
    } else {
        "neither".into()
    }
}

impl KoV2Throughput {
    /// Issue 54's diagnosis, per K&O path (first seed): each line's utilisation and other
    /// traffic's share (`path_lines.csv`), and which resource binds, by K&O's window
    /// counterfactual run at every distance (`binding.csv`).
    pub(super) fn diagnosis(
        &self,
        ctx: &mut Context,
        c: &Curve,
        pr: &mut Progress,
    ) -> Result<Vec<BindingRow>> {
        use nmc_imp::topology::Routes as _;
        let (loader, seed0) = (ctx.loader(), ctx.seed);
        let p = nmc_imp::ImpParams::v2_1974_10();
        let opened: Vec<Result<CurveRow>> = (1..=9u32)
            .into_par_iter()
            .map(|h| {
                self.run_one(
                    loader,
                    "map",
                    h,
                    seed0,
                    &window_settings(&p, 8, p.plt_entries),
                )
                .map(|r| r.0)
            })
            .collect();
        let opened: Vec<CurveRow> = opened.into_iter().collect::<Result<_>>()?;
        pr.add(ctx, 9.0);
        let s = scenario(loader, MAP, &[])?;
        let t = nmc_imp::topology::Topology::build(&s.network.topology)
            .map_err(|e| anyhow::anyhow!("ko-v2-map: {e}"))?;
        let ucla = t
            .index("UCLA")
            .ok_or_else(|| anyhow::anyhow!("ko-v2-map: no UCLA"))?;
        let mut lines = Vec::new();
        let mut bind = Vec::new();
        for (h, o) in &c.first {
            let dest = KO_MAP_DESTINATIONS[*h as usize - 1];
            let to = t
                .index(dest)
                .ok_or_else(|| anyhow::anyhow!("ko-v2-map: no {dest}"))?;
            let pump_packets: u64 = o
                .messages
                .iter()
                .filter(|m| m.host == "UCLA")
                .map(|m| m.bits.div_ceil(o.params.max_packet.get()))
                .sum();
            let (mut at, mut hop) = (ucla, 0);
            while at != to {
                let Some(l) = t.next_link(at, to) else { break };
                let next = t.links[l as usize].to;
                let (a, b) = (&t.names[at as usize], &t.names[next as usize]);
                hop += 1;
                // The records are in link order; by name only if they are not (a parallel line
                // would then be its first twin).
                let record = if o.lines.len() == t.links.len() {
                    o.lines.get(l as usize)
                } else {
                    o.lines.iter().find(|r| &r.from == a && &r.to == b)
                };
                if let Some(r) = record {
                    let other =
                        (r.packet_frames as f64 - r.retransmissions as f64 - pump_packets as f64)
                            .max(0.0);
                    lines.push(PathLineRow {
                        hops: *h,
                        destination: dest.to_string(),
                        hop,
                        line: format!("{a}>{b}"),
                        utilisation: r.utilisation,
                        other_share: other / (r.packet_frames as f64).max(1.0),
                        max_queue: r.max_queue,
                        rejected: r.rejected,
                        pump_packets: r.watched_packets,
                        pump_wait_ms: r.watched_wait_ms,
                    });
                }
                at = next;
            }
            let row = c
                .map_rows(*h)
                .find(|r| r.seed == seed0)
                .ok_or_else(|| anyhow::anyhow!("no {h}-hop run of seed {seed0}"))?;
            // The busiest line of this path (not of the whole network): most busy, then most
            // other hosts' packets.
            let (busiest, util, other) = lines
                .iter()
                .filter(|l| l.hops == *h)
                .max_by(|a, b| {
                    a.utilisation
                        .total_cmp(&b.utilisation)
                        .then(a.other_share.total_cmp(&b.other_share))
                })
                .map_or((String::new(), 0.0, 0.0), |l| {
                    (l.line.clone(), l.utilisation, l.other_share)
                });
            let waits: Vec<f64> = lines
                .iter()
                .filter(|l| l.hops == *h)
                .map(|l| l.pump_wait_ms)
                .collect();
            let w8 = opened[*h as usize - 1].throughput_kbps;
            let ratio = w8 / row.throughput_kbps;
            bind.push(BindingRow {
                hops: *h,
                destination: dest.to_string(),
                throughput_kbps: row.throughput_kbps,
                window8_throughput_kbps: w8,
                window8_ratio: ratio,
                message_numbers_mean: row.message_numbers_mean,
                number_wait_fraction: row.number_wait_fraction,
                pump_wait_by_hop_ms: waits
                    .iter()
                    .map(|w| format!("{w:.0}"))
                    .collect::<Vec<_>>()
                    .join("/"),
                pump_wait_total_ms: waits.iter().sum(),
                rtt_ms: row.rtt_mean_ms,
                cycle_ms: row.cycle_mean_ms,
                ko_rtt_ms: row.published_rtt_ms,
                window_bound_at_ko_rtt_kbps: window_bound(
                    row.throughput_kbps,
                    row.cycle_mean_ms,
                    row.message_numbers_mean,
                    row.published_rtt_ms - row.rtt_mean_ms,
                    f64::from(p.message_numbers),
                ),
                binding: binding(ratio, &busiest, util),
                busiest_line: busiest,
                busiest_utilisation: util,
                busiest_other_share: other,
            });
        }
        ctx.csv("path_lines", &lines)?;
        ctx.csv("binding", &bind)?;
        ctx.note(binding_note(&bind));
        Ok(bind)
    }
}

/// The most `numbers` message numbers carry, kbit/s, if each number's cycle (`cycle_ms`, with
/// `held` numbers held on average at `kbps`) were `extra_ms` longer: Little's law gives the
/// bits a message carries, `kbps × cycle / held`, and `numbers` such messages go per
/// `cycle + extra` (issue 54: what K&O's round trip would do to the model's window).
pub(super) fn window_bound(
    kbps: f64,
    cycle_ms: f64,
    held: f64,
    extra_ms: f64,
    numbers: f64,
) -> f64 {
    let cycle = cycle_ms + extra_ms;
    if held <= 0.0 || cycle <= 0.0 {
        return f64::NAN;
    }
    numbers * kbps * cycle_ms / (held * cycle)
}

impl KoV2Throughput {
    /// Why the long path falls: the 9-hop run against the network's load (sensitivity), and
    /// each mechanism of the configuration off in turn (ablation), with K&O's counterfactual:
    /// the window opened to 8 messages.
    pub(super) fn why_the_long_path_falls(
        &self,
        ctx: &mut Context,
        c: &Curve,
        pr: &mut Progress,
    ) -> Result<Cases> {
        let (loader, seed0) = (ctx.loader(), ctx.seed);
        // Why the long path falls: the 9-hop run against the network's load (sensitivity), and
        // each mechanism of the configuration off in turn (ablation), with K&O's counterfactual:
        // the window opened to 8 messages.
        let p = nmc_imp::ImpParams::v2_1974_10();
        let base_rate = background_rate(&scenario(Loader::FULL, MAP, &[])?)?;
        let cases = nine_hop_cases(&p, base_rate);
        // Cases with the same settings share one run, and the run as configured is the curve's
        // own (first seed, 9 hops): same seed, same settings, the same outcome.
        let mut unique: Vec<&Vec<String>> = Vec::new();
        for (_, _, _, _, sets, _) in &cases {
            if !sets.is_empty() && !unique.contains(&sets) {
                unique.push(sets);
            }
        }
        let runs: Vec<Result<(CurveRow, Outcome)>> = unique
            .par_iter()
            .map(|sets| self.run_one(loader, "map", 9, seed0, sets))
            .collect();
        let mut by_sets: std::collections::BTreeMap<Vec<String>, CurveRow> =
            std::collections::BTreeMap::new();
        for (sets, run) in unique.iter().zip(runs) {
            by_sets.insert((*sets).clone(), run?.0);
        }
        let as_configured = c
            .rows
            .iter()
            .find(|r| r.topology == "map" && r.hops == 9 && r.seed == seed0)
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("ko-v2-throughput: no 9-hop run of the first seed"))?;
        let table = case_rows(cases, &as_configured, &by_sets);
        pr.add(ctx, table.len() as f64);
        let (sens, ablation): (Vec<CaseRow>, Vec<CaseRow>) =
            table.into_iter().partition(|r| r.table == "sensitivity");
        ctx.csv("sensitivity_9hops", &sens)?;
        ctx.csv("ablation_9hops", &ablation)?;
        let load_chart = load_chart(&sens, base_rate);
        ctx.plot(
            "sensitivity-load",
            "9 hops: throughput against the other hosts' load, K&O's 4-message window; the scenario's level is October 1973's traffic × 2 for working hours.",
            &load_chart,
        )?;
        ctx.note(ablation_note(&as_configured, p.message_numbers, &ablation));
        Ok(Cases {
            sens,
            ablation,
            as_configured,
            base_rate,
        })
    }

    /// What if every line were longer: the 9-hop pump and RFC 619's run again.
    pub(super) fn line_delay(
        &self,
        ctx: &mut Context,
        as_configured: &CurveRow,
        (w0, r0): (usize, f64),
        pr: &mut Progress,
    ) -> Result<Vec<LineDelayRow>> {
        let (loader, seed0) = (ctx.loader(), ctx.seed);
        let mut delays = vec![LineDelayRow {
            line_delay_ms: 0.0,
            throughput_9hops_kbps: as_configured.throughput_kbps,
            rtt_9hops_ms: as_configured.rtt_mean_ms,
            rfc619_within: w0,
            rfc619_ratio_mean: r0,
        }];
        let delay_runs: Vec<Result<LineDelayRow>> = LINE_DELAYS_MS
            .par_iter()
            .map(|&d| {
                let set = format!("network.topology.line_delay={}us", (d * 1e3) as u64);
                let (pump, _) =
                    self.run_one(loader, "map", 9, seed0, std::slice::from_ref(&set))?;
                let (_, dec) = self.run_one(
                    loader,
                    "map",
                    9,
                    seed0,
                    &[
                        set,
                        "traffic.0.count=0".into(),
                        format!("traffic.1.messages_per_second={DEC_1973_MESSAGES_PER_SECOND}"),
                    ],
                )?;
                let (within, ratio) = rfc619_fit(&dec);
                Ok(LineDelayRow {
                    line_delay_ms: d,
                    throughput_9hops_kbps: pump.throughput_kbps,
                    rtt_9hops_ms: pump.rtt_mean_ms,
                    rfc619_within: within,
                    rfc619_ratio_mean: ratio,
                })
            })
            .collect();
        for r in delay_runs {
            delays.push(r?);
        }
        pr.add(ctx, 2.0 * LINE_DELAYS_MS.len() as f64);
        ctx.csv("what_if_line_delay", &delays)?;
        ctx.note(line_delay_note(&delays));
        Ok(delays)
    }

    /// The same curve under the 1974 adaptive routing: how often the pump's packets left the
    /// minimum-hop path or looped (K&O §III, §V; RFC 619: real paths 2-9 % longer).
    pub(super) fn adaptive_curve(
        &self,
        ctx: &mut Context,
        c: &Curve,
        paths: &[PathRow],
        pr: &mut Progress,
    ) -> Result<Vec<AdaptiveRow>> {
        let (loader, seed0) = (ctx.loader(), ctx.seed);
        // The same c.rows under the 1974 adaptive routing: how often the pump's packets left the
        // minimum-hop path or looped (K&O §III, §V; RFC 619: real paths 2-9 % longer).
        let adaptive_runs: Vec<Result<(CurveRow, Outcome)>> = (1..=9u32)
            .into_par_iter()
            .map(|h| {
                self.run_one(
                    loader,
                    "map",
                    h,
                    seed0,
                    &[
                        "network.routing=adaptive".into(),
                        "record=[\"messages\", \"lines\", \"journeys\"]".into(),
                    ],
                )
            })
            .collect();
        let mut adaptive = Vec::new();
        for (h, run) in (1..=9u32).zip(adaptive_runs) {
            let (row, o) = run?;
            let static_kbps = c
                .rows
                .iter()
                .find(|r| r.topology == "map" && r.hops == h && r.seed == seed0)
                .map_or(f64::NAN, |r| r.throughput_kbps);
            adaptive.push(adaptive_row(h, &row, &o, static_kbps));
        }
        pr.add(ctx, 9.0);
        ctx.csv("adaptive_routing", &adaptive)?;
        ctx.note(adaptive_note(&adaptive));
        ctx.note(collapse_note(paths, &adaptive, |h| {
            c.map_mean(h, |r| r.throughput_kbps)
        }));
        Ok(adaptive)
    }

    /// The pump to every other site at each distance under the site rule, every seed.
    pub(super) fn other_sites(
        &self,
        ctx: &mut Context,
        sites: &[(u32, String)],
        seeds: &[u64],
        pr: &mut Progress,
    ) -> Result<Vec<SiteRow>> {
        let loader = ctx.loader();
        let jobs: Vec<(u32, &String, u64)> = sites
            .iter()
            .flat_map(|(h, site)| seeds.iter().map(move |&seed| (*h, site, seed)))
            .collect();
        let site_runs: Vec<Result<SiteRow>> = jobs
            .par_iter()
            .map(|&(h, site, seed)| {
                let (row, o) = self.run_one(
                    loader,
                    "map",
                    h,
                    seed,
                    &[format!("network.hosts.1.imp={site}")],
                )?;
                Ok(SiteRow {
                    hops: h,
                    destination: row.destination,
                    seed,
                    throughput_kbps: row.throughput_kbps,
                    rtt_mean_ms: row.rtt_mean_ms,
                    correlated_lags: outcome_lags(&o),
                })
            })
            .collect();
        let site_rows: Vec<SiteRow> = site_runs.into_iter().collect::<Result<_>>()?;
        pr.add(ctx, site_rows.len() as f64);
        ctx.csv("destinations", &site_rows)?;
        Ok(site_rows)
    }
}
