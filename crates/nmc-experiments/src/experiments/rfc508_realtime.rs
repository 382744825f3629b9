//! `rfc508-realtime`: RFC 508 (Pfeifer & McAfee, UCSB, May 1973), rows R508-1..3.
//!
//! The path of RFC 508 Fig. 1 from mechanism ([`nmc_realtime`]): the SEL 810-B's two buffers
//! and 1 ms gap timer, the 500 kbit/s SEL link, the 360/75's network job behind the On-Line
//! System, the 1972–73 NCP (one message per RFNM on the link), the UCSB–UCLA subnet through
//! nmc's IMP model, and the UCLA discard socket's host-host allocation. The procedure is the
//! paper's: 30 s tests over Table I's 8 buffer sizes × 22 rates, and 5, 8 and 18 min at 30000
//! bit/s with 2016-bit buffers.
//!
//! **The host model is fitted on part of the table and judged on the rest.** The On-Line
//! System's think time (10 s) is fixed a priori ([`nmc_realtime::params::HostParams`]); the
//! background count of terminals in use and the mean CPU burst are fitted on half of the tests
//! of 2/5 and 2/6, those on the even rows of Table I (rates 5300, 7200, …, 28800 bit/s; 66
//! tests over the six buffer sizes of those days: their fraction with gaps, 1 of 66, and its
//! mean gap, 30 ms; see [`nmc_realtime::experiment::fit`] and `is_fit_cell`). **The split was
//! chosen before any run with it (issue 35, which proposed alternate rows):** the fitted and
//! held-out tests of 2/5–2/6 share every buffer size and interleave in rate, where the old
//! split (all of 2/5–2/6 fitted, 2/7 held out) had no buffer size in common. Held out: the 66
//! tests on the odd rows of 2/5–2/6 and the 44 of 2/7, predicted with the classroom full (16
//! terminals) before 10:00, as RFC 508 §VI states, and the fitted background otherwise. The
//! published gapped tests were known when the split was chosen (they are in the paper: one on
//! an even row, one on an odd row of 2/5–2/6, five on 2/7); the model's results were not.
//!
//! Targets and tolerances, stated before the run:
//! * R508-1: every cell that is gap-free in Table I and in ours within ±3 % of the printed
//!   buffers sent (the paper timed 30 s with a sweep second hand); counted as cells outside
//!   (target 0). **Mostly by construction**: a gap-free test sends rate × 30 / bits buffers
//!   whatever the model; what is emergent is whether the path keeps up, reported as the cells
//!   the network alone (unloaded host) leaves with gaps (target 0: the paper attributes its
//!   gaps to hosts). Cells with gaps: ours lower by what their gaps cost, within 1.5 buffers on
//!   average (restates the mechanism).
//! * R508-2: gap-free tests among the 110 held-out tests, the published fraction there (104
//!   of 110, 94.5 %) ± two binomial standard deviations of 110 tests at that fraction (±4.3
//!   points), counted; over the whole table, 96 % (169 of 176) ± 3 points (the binomial spread
//!   of 176 tests is ~1.5 points), *in-sample* (it averages over the 66 fitted tests), shown and
//!   not counted; the 2/7 prediction: 5 of 44 tests with gaps (11.4 %) ± 7 points, and 4 of the
//!   8 before 10:00 ± 2 tests; the longest gap 8 s, between half and twice that (4–16 s), since
//!   it is one extreme draw. The one-parameter fit's rows are *variants* (issue 31), shown and
//!   not counted.
//! * R508-3: each long test gap-free in at least half of its replicates under the fitted host
//!   (the 360/75 with the On-Line System's background fitted on half of 2/5–2/6; none of the
//!   long tests ran before 10:00 on 2/7), out of sample; no gaps (±0) on an unloaded host, and
//!   the printed buffers sent within ±3 %.
//!
//! **Issue 56: a verdict rests on the quantity the paper published, under the configuration the
//! paper ran.** The unloaded-host rows (R508-1's network gaps and R508-3's gaps) are the
//! published figure under a configuration RFC 508 did not run, and are shown as *variants*;
//! R508-1's only other row (buffers sent) restates the tests' settings, so R508-1 is *by
//! construction*, and which of Table I's tests gap under the paper's host is R508-2. R508-3
//! counts the fitted host's rows.
//!
//! The NCP's buffers are choices the sources leave open: the sending NCP's connection buffer
//! (`ncp.send_buffer_bits`, two largest messages) and UCLA's host-host allocation
//! (`ncp.allocation_bits`, two largest messages). R508-1's network row and R508-3's gap rows
//! are shown again, as *variants*, with one SEL buffer per message and with a one-message
//! allocation (issue 35), so a reader sees how much those rows rest on the choices.
//!
//! Kinds (issue 17): R508-1 and the R508-3 buffers-sent rows restate the tests' settings (rate,
//! duration, buffer size) and "R508-1 gap accounting" is accounting that holds for any gaps (a sanity
//! bound); they are shown but not counted in the headline.

use crate::registry::{Context, Experiment, Plan};
use anyhow::Result;
use nmc_realtime::experiment::{self, Sets, classroom_full, load_for};
use nmc_realtime::gaps::{LayoutCell, table_layout};
use nmc_realtime::model::{TestResult, run_test};
use nmc_realtime::params::Params;
use nmc_realtime::table1::{self, BUFFERS, Day, LONG_TESTS, RATES};
use nmc_report::{Axis, Chart, Series, SeriesStyle, Target, Value};
use serde::Serialize;

/// RFC 508 §VI: "the longest gap which occurred was 8 seconds"; one extreme draw of the table,
/// so between half and twice that.
const LONGEST_GAP: Target = Target::Factor {
    value: 8000.0,
    factor: 2.0,
};

/// Issue 56: why the unloaded host's rows do not count. RFC 508 ran every test on the loaded
/// 360/75; which tests gap under that host is R508-2's prediction and R508-3's fitted-host rows.
const UNLOADED: &str = "the network alone (an unloaded host) is not the configuration RFC 508 ran: \
     its tests ran on the loaded 360/75 (the fitted host's rows are R508-2 and R508-3's)";

/// R508-3 under the paper's host: a long test counts as gap-free when at least this share of
/// its replicates is (no gaps the model's likelier outcome for that one published test),
/// stated before running (issue 56).
const LONG_GAP_FREE_PCT: f64 = 50.0;

/// The alternative UCLA allocation: one largest message, 8063 bits (BBN Report 1822).
const ONE_MESSAGE_ALLOCATION_BITS: u64 = 8063;

/// The `rfc508-realtime` experiment: the SEL 810-B's real-time data through the 360/75 and the
/// ARPANET, RFC 508's Table I (rows R508-1..3).
pub struct Rfc508Realtime;

#[derive(Serialize)]
struct CellRow {
    rate_bps: u64,
    buffer_bits: u64,
    day: &'static str,
    time: &'static str,
    terminals: u32,
    published_sent: u64,
    published_gaps: u32,
    published_max_gap_ms: Option<f64>,
    /// For a published cell with gaps: rate × (30 s − its gaps) / bits, what the gaps explain.
    published_after_gap_cost: Option<f64>,
    ours_sent: u64,
    ours_gaps: usize,
    ours_max_gap_ms: Option<f64>,
    ours_avg_gap_ms: Option<f64>,
    ours_min_gap_ms: Option<f64>,
    ours_mean_message_bits: f64,
    ours_host_utilisation: f64,
    network_alone_sent: u64,
    network_alone_gaps: usize,
}

#[derive(Serialize)]
struct CurveRow {
    buffer_bits: u64,
    host_response_ms: f64,
    largest_gap_free_bps: u64,
}

#[derive(Serialize)]
struct GapRow {
    replicate: u64,
    rate_bps: u64,
    buffer_bits: u64,
    gap_ms: f64,
}

fn gapped(rs: &[TestResult]) -> usize {
    rs.iter().filter(|r| r.gaps.count() > 0).count()
}

impl Experiment for Rfc508Realtime {
    fn id(&self) -> &'static str {
        "rfc508-realtime"
    }
    fn title(&self) -> &'static str {
        "Real-time data from the SEL 810-B through a time-shared 360/75 and the ARPANET (RFC 508)"
    }
    fn source(&self) -> &'static str {
        "Pfeifer & McAfee, RFC 508, May 1973, §IV–VI and Table I"
    }
    fn chapter(&self) -> &'static str {
        "docs/src/explanation/rfc508.md"
    }
    fn plan(&self) -> Plan {
        Plan::shortened(
            "the host model fitted on 1 repetition instead of 4, Table I repeated 2 times instead of 8, gap-free rates searched in steps of 1200 bit/s instead of 300",
        )
    }
    fn run(&self, ctx: &mut Context) -> Result<()> {
        let r = Self::runs(ctx)?;
        let outside = Self::r508_1(ctx, &r);
        let feb7 = Self::r508_2(ctx, &r);
        let longs = Self::r508_3(ctx, &r);
        let curve = Self::gap_free_rates(ctx, &r);
        Self::outputs(ctx, &r, &curve)?;
        Self::notes(ctx, &r, &outside, &feb7, &longs);
        Ok(())
    }
}

/// The host responses of the gap-free-rate curve, ms (0: the network alone).
const RESPONSES_MS: [u64; 5] = [0, 100, 250, 500, 1000];

/// The runs every row reads ([`Rfc508Realtime::runs`]).
struct Runs {
    /// The parameters as shipped (think time and bursts a priori).
    p: Params,
    seed: u64,
    /// Replicate tables under the fitted host.
    reps: u64,
    /// The IMP model's times per buffer size.
    sets: Sets,
    /// The host model fitted on half of 2/5–2/6.
    fit: experiment::Fit,
    /// Table I's 176 tests.
    cells: Vec<table1::Cell>,
    /// Table I under the fitted host, `reps` times.
    tables: Vec<Vec<TestResult>>,
    /// Table I with the network alone (unloaded host).
    alone: Vec<TestResult>,
    /// One buffer per message (the NCP's send buffer holds one SEL buffer).
    single: Params,
    single_sets: Sets,
    single_alone: Vec<TestResult>,
    /// UCLA allocating one largest message, not two (`ncp.allocation_bits`).
    one_alloc: Params,
    one_alloc_sets: Sets,
    one_alloc_alone: Vec<TestResult>,
}

impl Runs {
    /// Issue 35: the NCP's buffers are choices; the rows under the alternatives.
    fn alternatives(&self) -> [(&'static str, &'static str, &Params, &Sets); 2] {
        [
            (
                "one buffer per message",
                "the NCP's send buffer holding one SEL buffer (`ncp.send_buffer_bits`)",
                &self.single,
                &self.single_sets,
            ),
            (
                "one-message allocation",
                "UCLA allocating one largest message at a time (`ncp.allocation_bits` 8063)",
                &self.one_alloc,
                &self.one_alloc_sets,
            ),
        ]
    }
}

/// R508-2's 2/7 prediction, for the notes.
struct Feb7 {
    /// 2/7 tests with gaps (mean over tables).
    gapped: f64,
    /// Those before 10:00.
    early_gapped: f64,
    /// Table I's 2/7 tests with gaps.
    published: f64,
}

/// The mean over `reps` tables of how many of the tests `idx` had a gap.
fn mean_gapped(tables: &[Vec<TestResult>], idx: &[usize], reps: u64) -> f64 {
    tables
        .iter()
        .map(|t| idx.iter().filter(|&&i| t[i].gaps.count() > 0).count() as f64)
        .sum::<f64>()
        / reps as f64
}

/// The mean over `reps` tables of `n` tests of the percentage with no gap.
fn mean_free_pct(tables: &[Vec<TestResult>], n: f64, reps: u64) -> f64 {
    tables
        .iter()
        .map(|t| 100.0 * (n - gapped(t) as f64) / n)
        .sum::<f64>()
        / reps as f64
}

/// Every gap of every replicate table, one row each.
fn every_gap(tables: &[Vec<TestResult>]) -> Vec<GapRow> {
    tables
        .iter()
        .enumerate()
        .flat_map(|(k, t)| {
            t.iter().flat_map(move |r| {
                r.gaps.gaps_ns.iter().map(move |&g| GapRow {
                    replicate: k as u64,
                    rate_bps: r.rate_bps,
                    buffer_bits: r.buffer_bits,
                    gap_ms: g as f64 / 1e6,
                })
            })
        })
        .collect()
}

impl Rfc508Realtime {
    /// The runs every row reads: the host model fitted on half of 2/5–2/6, Table I under it
    /// `reps` times, the network alone (unloaded host), and the NCP's alternatives.
    fn runs(ctx: &mut Context) -> Result<Runs> {
        let p = Params::default();
        p.validate().map_err(anyhow::Error::msg)?;
        let seed = ctx.seed;
        let (fit_reps, reps): (u64, u64) = if ctx.quick { (1, 2) } else { (4, 8) };
        let sets = Sets::new(&p, seed)?;
        ctx.progress(0.05);
        let fit = experiment::fit(&p, &sets, seed, fit_reps);
        ctx.progress(0.3);
        let cells = table1::cells();
        let load = load_for(fit.terminals);
        let mut fitted = p.clone();
        fitted.host.burst_mean_ns = fit.burst_mean_ns;
        let tables: Vec<Vec<TestResult>> = (0..reps)
            .map(|r| experiment::run_cells(&fitted, &sets, &cells, &load, seed, 2, r))
            .collect();
        let alone = experiment::run_cells(&p, &sets, &cells, &|_| 0, seed, 3, 0);
        // The same with one buffer per message (the NCP's send buffer holds one SEL buffer).
        let mut single = p.clone();
        single.ncp.send_buffer_bits = 1;
        let single_sets = Sets::new(&single, seed)?;
        let single_alone = experiment::run_cells(&single, &single_sets, &cells, &|_| 0, seed, 3, 0);
        // And with UCLA allocating one largest message, not two (`ncp.allocation_bits`).
        let mut one_alloc = p.clone();
        one_alloc.ncp.allocation_bits = ONE_MESSAGE_ALLOCATION_BITS;
        let one_alloc_sets = Sets::new(&one_alloc, seed)?;
        let one_alloc_alone =
            experiment::run_cells(&one_alloc, &one_alloc_sets, &cells, &|_| 0, seed, 3, 0);
        ctx.progress(0.5);
        Ok(Runs {
            p,
            seed,
            reps,
            sets,
            fit,
            cells,
            tables,
            alone,
            single,
            single_sets,
            single_alone,
            one_alloc,
            one_alloc_sets,
            one_alloc_alone,
        })
    }

    /// R508-1: buffers sent against Table I, and the gaps the network alone leaves; returns
    /// the cells outside ±3 % (rate, bits, published, ours).
    fn r508_1(ctx: &mut Context, r: &Runs) -> Vec<(u64, u64, u64, u64)> {
        let (p, cells, alone, ours) = (&r.p, &r.cells, &r.alone, &r.tables[0]);
        // R508-1.
        let mut outside = Vec::new();
        let mut both_free = 0;
        for (c, r) in cells.iter().zip(ours) {
            if c.gaps.is_none() && r.gaps.count() == 0 {
                both_free += 1;
                let rel = (r.buffers_sent as f64 - c.buffers_sent as f64) / c.buffers_sent as f64;
                if rel.abs() > 0.03 {
                    outside.push((c.rate_bps, c.buffer_bits, c.buffers_sent, r.buffers_sent));
                }
            }
        }
        ctx.check(
            "R508-1 buffers sent off ±3 %",
            &format!("cells gap-free in both ({both_free}) whose buffers sent are outside ±3 % of Table I (by construction, mostly)"),
            "cells",
            "RFC 508 Table I; ±3 %: 30 s by sweep second hand (§V)",
            Target::Abs { value: 0.0, abs: 0.0 },
            Value::Num(outside.len() as f64),
        )
        // Issue 17: a gap-free test sends rate × 30 s / bits buffers whatever the model.
        .restated_input("a gap-free test sends rate × 30 s / buffer bits, the test's own settings");
        ctx.check(
            "R508-1 network gaps",
            "cells the network alone (unloaded host) leaves with gaps",
            "cells",
            "RFC 508 §VI–VII: gaps \"probably attributable to the host computers and not the Network\"",
            Target::Abs { value: 0.0, abs: 0.0 },
            Value::Num(gapped(alone) as f64),
        )
        // Issue 56: not the quantity Table I prints, nor the configuration RFC 508 ran.
        .variant(UNLOADED);
        for ((tag, how, _, _), cells_alone) in r
            .alternatives()
            .iter()
            .zip([&r.single_alone, &r.one_alloc_alone])
        {
            ctx.check(
                &format!("R508-1 network gaps ({tag})"),
                &format!("cells the network alone leaves with gaps, with {how}"),
                "cells",
                "RFC 508 §VI–VII: gaps \"probably attributable to the host computers and not the Network\"",
                Target::Abs { value: 0.0, abs: 0.0 },
                Value::Num(gapped(cells_alone) as f64),
            )
            .variant(&format!("R508-1 network gaps with {how}: a choice the sources leave open"));
        }
        let costs: Vec<f64> = ours
            .iter()
            .filter(|r| r.gaps.count() > 0)
            .map(|r| {
                let secs = p.test.duration_ns as f64 / 1e9 - r.gaps.total_ns() as f64 / 1e9;
                (r.buffers_sent as f64 - r.rate_bps as f64 * secs.max(0.0) / r.buffer_bits as f64)
                    .abs()
            })
            .collect();
        if !costs.is_empty() {
            ctx.check(
                "R508-1 gap accounting",
                "cells with gaps: mean |sent − rate × (30 s − gaps) / bits| (restates the mechanism)",
                "buffers",
                "RFC 508 Table I: gapped cells lower by what their gaps cost",
                Target::AtMost { value: 1.5 },
                Value::Num(costs.iter().sum::<f64>() / costs.len() as f64),
            )
            // Issue 17: the stream sends at its rate whenever it is not in a gap; the row is
            // that accounting, which holds for any pattern of gaps.
            .sanity_bound("the stream sends at its rate except in its gaps: accounting that holds for any gaps");
        }
        outside
    }

    /// R508-2: gap-free tests, held out and in the whole table; the 2/7 prediction; the
    /// one-parameter variant; the longest gap.
    fn r508_2(ctx: &mut Context, r: &Runs) -> Feb7 {
        let Runs {
            fit, cells, tables, ..
        } = r;
        let (reps, ours) = (r.reps, &r.tables[0]);
        // R508-2. First the tests the fit did not see (issue 35), then the whole table.
        let held: Vec<usize> = (0..cells.len())
            .filter(|&i| !experiment::is_fit_cell(&cells[i]))
            .collect();
        let held_n = held.len() as f64;
        let pub_held_free =
            held.iter().filter(|&&i| cells[i].gaps.is_none()).count() as f64 / held_n;
        let held_free_pct: f64 = tables
            .iter()
            .map(|t| {
                100.0 * held.iter().filter(|&&i| t[i].gaps.count() == 0).count() as f64 / held_n
            })
            .sum::<f64>()
            / reps as f64;
        ctx.check(
            "R508-2 held-out no-gap tests",
            &format!(
                "held-out tests with no gap: the odd rows of 2/5–2/6 and all of 2/7, {} tests (mean of {reps} tables)",
                held.len()
            ),
            "%",
            "RFC 508 Table I: 104 of the 110 held-out tests; ± two binomial standard deviations (stated before the run)",
            Target::Abs {
                value: 100.0 * pub_held_free,
                abs: 200.0 * (pub_held_free * (1.0 - pub_held_free) / held_n).sqrt(),
            },
            Value::Num(held_free_pct),
        );
        let n = cells.len() as f64;
        let free_pct = mean_free_pct(tables, n, reps);
        ctx.check(
            "R508-2 no-gap tests",
            &format!("tests with no gap, prime-time load (mean of {reps} tables)"),
            "%",
            "RFC 508 §VI: \"In 96 percent of the trials\" (169 of 176)",
            Target::Abs {
                value: 100.0 * 169.0 / 176.0,
                abs: 3.0,
            },
            Value::Num(free_pct),
        )
        // Issue 31: 66 of the 176 tests are those the host model is fitted on; the
        // out-of-sample rows are the held-out row above and the 2/7 predictions below.
        .in_sample("averages over the 66 tests of 2/5–2/6 the host model's terminals and bursts are fitted on (of 176); the held-out row and the 2/7 rows are the prediction");
        let feb7: Vec<usize> = (0..cells.len())
            .filter(|&i| cells[i].day == Day::Feb7Am)
            .collect();
        let early: Vec<usize> = feb7
            .iter()
            .copied()
            .filter(|&i| classroom_full(&cells[i]))
            .collect();
        let feb7_gapped = mean_gapped(tables, &feb7, reps);
        let early_gapped = mean_gapped(tables, &early, reps);
        let pub_feb7 = feb7.iter().filter(|&&i| cells[i].gaps.is_some()).count() as f64;
        ctx.check(
            "R508-2 predict 2/7 gaps",
            &format!(
                "2/7 tests with gaps, predicted from the fit on half of 2/5–2/6 ({} background terminals, {} ms bursts)",
                fit.terminals,
                fit.burst_mean_ns / 1_000_000
            ),
            "%",
            "RFC 508 Table I: 5 of 44 on 2/7",
            Target::Abs { value: 100.0 * pub_feb7 / feb7.len() as f64, abs: 7.0 },
            Value::Num(100.0 * feb7_gapped / feb7.len() as f64),
        );
        ctx.check(
            "R508-2 predict 2/7 before 10:00",
            "2/7 tests before 10:00 (classroom full, 16 terminals) with gaps, predicted",
            "tests",
            "RFC 508 §VI: the 8 s gap and \"three other significant failures between 9:52 A.M. and 9:59 A.M.\"",
            Target::Abs { value: 4.0, abs: 2.0 },
            Value::Num(early_gapped),
        );
        Self::bursts_a_priori(ctx, r, (&feb7, &early), pub_feb7);
        let longest = ours
            .iter()
            .filter_map(|r| r.gaps.max_ms())
            .fold(0.0, f64::max);
        ctx.check(
            "R508-2 longest gap",
            "longest gap in the table",
            "ms",
            "RFC 508 §VI: \"the longest gap which occurred was 8 seconds\"",
            LONGEST_GAP,
            Value::Num(longest),
        );
        ctx.progress(0.6);
        Feb7 {
            gapped: feb7_gapped,
            early_gapped,
            published: pub_feb7,
        }
    }

    /// The one-parameter variant of R508-2: bursts held at the a-priori 0.5 s and only the
    /// terminals fitted; its rows are variants of the fitted rows (`feb7`, `early`: the 2/7
    /// tests, and those before 10:00).
    fn bursts_a_priori(
        ctx: &mut Context,
        r: &Runs,
        (feb7, early): (&[usize], &[usize]),
        pub_feb7: f64,
    ) {
        let Runs {
            p,
            sets,
            fit,
            cells,
            ..
        } = r;
        let (seed, reps) = (r.seed, r.reps);
        let n = cells.len() as f64;
        // The one-parameter variant: bursts held at the a-priori 0.5 s, terminals fitted.
        let prior_ms = p.host.burst_mean_ns as f64 / 1e6;
        let prior_terminals = fit.terminals_at_burst(prior_ms).unwrap_or(0);
        let prior_load = load_for(prior_terminals);
        let prior_tables: Vec<Vec<TestResult>> = (0..reps)
            .map(|r| experiment::run_cells(p, sets, cells, &prior_load, seed, 7, r))
            .collect();
        let prior_free = mean_free_pct(&prior_tables, n, reps);
        let variant =
            format!("variant: {prior_ms} ms bursts a priori, {prior_terminals} terminals fitted");
        ctx.check(
            "R508-2 variant no-gap tests",
            &format!("tests with no gap ({variant})"),
            "%",
            "RFC 508 §VI: 96 %",
            Target::Abs {
                value: 100.0 * 169.0 / 176.0,
                abs: 3.0,
            },
            Value::Num(prior_free),
        )
        .variant("R508-2 no-gap tests with bursts held at 0.5 s a priori and only the terminals fitted (in-sample as that row is)");
        ctx.check(
            "R508-2 variant 2/7 gaps",
            &format!("2/7 tests with gaps, predicted ({variant})"),
            "%",
            "RFC 508 Table I: 5 of 44 on 2/7",
            Target::Abs {
                value: 100.0 * pub_feb7 / feb7.len() as f64,
                abs: 7.0,
            },
            Value::Num(100.0 * mean_gapped(&prior_tables, feb7, reps) / feb7.len() as f64),
        )
        .variant("R508-2 predict 2/7 gaps with bursts held at 0.5 s a priori and only the terminals fitted: the same figure by a second fit");
        ctx.check(
            "R508-2 variant 2/7 before 10:00",
            &format!("2/7 tests before 10:00 with gaps, predicted ({variant})"),
            "tests",
            "RFC 508 §VI: four failures 9:52–9:59",
            Target::Abs {
                value: 4.0,
                abs: 2.0,
            },
            Value::Num(mean_gapped(&prior_tables, early, reps)),
        )
        .variant("R508-2 predict 2/7 before 10:00 with bursts held at 0.5 s a priori and only the terminals fitted: the same figure by a second fit");
        ctx.check(
            "R508-2 variant longest gap",
            &format!("longest gap in the table ({variant})"),
            "ms",
            "RFC 508 §VI: 8 s",
            LONGEST_GAP,
            Value::Num(
                prior_tables[0]
                    .iter()
                    .filter_map(|r| r.gaps.max_ms())
                    .fold(0.0, f64::max),
            ),
        )
        .variant("R508-2 longest gap with bursts held at 0.5 s a priori and only the terminals fitted: the same figure by a second fit");
    }

    /// R508-3: the long tests under the fitted host (counted), on an unloaded host, and again
    /// under each NCP alternative.
    fn r508_3(ctx: &mut Context, r: &Runs) -> Vec<TestResult> {
        let alternatives = r.alternatives();
        let (p, sets, seed) = (&r.p, &r.sets, r.seed);
        // R508-3.
        let mut longs = Vec::new();
        for (k, lt) in LONG_TESTS.iter().enumerate() {
            let col = BUFFERS
                .iter()
                .position(|&b| b == lt.buffer_bits)
                .expect("2016");
            // One long test on an unloaded host, with the same random streams whatever the NCP.
            let long_test = |params: &Params, sets: &Sets| {
                let mut q = params.clone();
                q.test.duration_ns = lt.minutes * 60_000_000_000;
                q.host.terminals = 0;
                let streams = nmc_sim::RngStreams::new(seed);
                let mut h = streams.stream((6 << 48) | (2 * k as u64));
                let mut nr = streams.stream((6 << 48) | (2 * k as u64 + 1));
                run_test(
                    &q,
                    &sets.0[col],
                    lt.rate_bps,
                    lt.buffer_bits,
                    &mut h,
                    &mut nr,
                )
            };
            // Issue 56: the paper's configuration, the 360/75 with the On-Line System's
            // background fitted on half of 2/5–2/6 (none of these tests is before 10:00 on
            // 2/7, when the classroom was full); out of sample, as the long tests are not in
            // the fit.
            let mut fitted = p.clone();
            fitted.test.duration_ns = lt.minutes * 60_000_000_000;
            fitted.host.terminals = r.fit.terminals;
            fitted.host.burst_mean_ns = r.fit.burst_mean_ns;
            let free = (0..r.reps)
                .filter(|&rep| {
                    let streams = nmc_sim::RngStreams::new(seed);
                    let id = (8 << 48) | (rep << 24) | (2 * k as u64);
                    let mut h = streams.stream(id);
                    let mut nr = streams.stream(id + 1);
                    run_test(
                        &fitted,
                        &sets.0[col],
                        lt.rate_bps,
                        lt.buffer_bits,
                        &mut h,
                        &mut nr,
                    )
                    .gaps
                    .count()
                        == 0
                })
                .count();
            ctx.check(
                &format!("R508-3 {} min gap-free, fitted host", lt.minutes),
                &format!(
                    "replicates ({}) of the test with no gap, 30000 bit/s, 2016-bit buffers, the 360/75 with the fitted On-Line System ({} terminals)",
                    r.reps, r.fit.terminals
                ),
                "%",
                &format!(
                    "RFC 508 §VI: {} {}, \"no gaps\" (gap-free in at least half the replicates)",
                    lt.date, lt.time
                ),
                Target::AtLeast {
                    value: LONG_GAP_FREE_PCT,
                },
                Value::Num(100.0 * free as f64 / r.reps as f64),
            );
            let r = long_test(p, sets);
            ctx.check(
                &format!("R508-3 {} min gaps", lt.minutes),
                "gaps at 30000 bit/s, 2016-bit buffers, unloaded host",
                "gaps",
                &format!("RFC 508 §VI: {} {}, \"no gaps\"", lt.date, lt.time),
                Target::Abs {
                    value: 0.0,
                    abs: 0.0,
                },
                Value::Num(r.gaps.count() as f64),
            )
            .variant(UNLOADED);
            ctx.check(
                &format!("R508-3 {} min buffers sent", lt.minutes),
                "buffers sent",
                "buffers",
                "RFC 508 Table I, box under the table",
                Target::Rel {
                    value: lt.buffers_sent as f64,
                    rel: 0.03,
                },
                Value::Num(r.buffers_sent as f64),
            )
            // Issue 17: with no gap (the row above), rate × minutes / buffer bits.
            .restated_input(
                "without a gap the test sends rate × duration / buffer bits, its own settings",
            );
            longs.push(r);
            for (tag, how, alt, alt_sets) in &alternatives {
                let r = long_test(alt, alt_sets);
                ctx.check(
                    &format!("R508-3 {} min gaps ({tag})", lt.minutes),
                    &format!("gaps at 30000 bit/s, 2016-bit buffers, unloaded host, with {how}"),
                    "gaps",
                    &format!("RFC 508 §VI: {} {}, \"no gaps\"", lt.date, lt.time),
                    Target::Abs {
                        value: 0.0,
                        abs: 0.0,
                    },
                    Value::Num(r.gaps.count() as f64),
                )
                .variant(&format!(
                    "R508-3 gaps with {how}: a choice the sources leave open"
                ));
            }
        }
        ctx.progress(0.7);
        longs
    }

    /// Beyond the paper: the largest gap-free rate per buffer size, for each host response.
    fn gap_free_rates(ctx: &mut Context, r: &Runs) -> Vec<CurveRow> {
        let (p, sets, seed) = (&r.p, &r.sets, r.seed);
        // Beyond the paper: the largest gap-free rate per buffer size.
        let mut curve = Vec::new();
        let step = if ctx.quick { 1200 } else { 300 };
        for (col, &b) in BUFFERS.iter().enumerate() {
            for &d in &RESPONSES_MS {
                let r = experiment::largest_gap_free_rate(
                    p,
                    &sets.0[col],
                    b,
                    d * 1_000_000,
                    seed,
                    step,
                    60_000,
                );
                curve.push(CurveRow {
                    buffer_bits: b,
                    host_response_ms: d as f64,
                    largest_gap_free_bps: r,
                });
            }
            ctx.progress(0.7 + 0.25 * (col + 1) as f64 / BUFFERS.len() as f64);
        }
        curve
    }

    /// Table I published and ours (CSV, text, SVG), the gaps, the fit's grid, and the charts.
    fn outputs(ctx: &mut Context, r: &Runs, curve: &[CurveRow]) -> Result<()> {
        Self::files(ctx, r, curve)?;
        Self::layouts(ctx, r)?;
        Self::charts(ctx, r, curve)
    }

    /// table1.csv (ours beside the paper's, test by test), gaps.csv, gap_free_rate.csv, fit.csv.
    fn files(ctx: &mut Context, r: &Runs, curve: &[CurveRow]) -> Result<()> {
        let Runs {
            fit,
            cells,
            tables,
            alone,
            ..
        } = r;
        let ours = &r.tables[0];
        let load = load_for(fit.terminals);
        // Outputs.
        let rows: Vec<CellRow> = cells
            .iter()
            .zip(ours)
            .zip(alone)
            .map(|((c, r), a)| CellRow {
                rate_bps: c.rate_bps,
                buffer_bits: c.buffer_bits,
                day: c.day.label(),
                time: c.time,
                terminals: load(c),
                published_sent: c.buffers_sent,
                published_gaps: c.gaps.map_or(0, |g| g.count),
                published_max_gap_ms: c.gaps.map(|g| g.max_ms),
                published_after_gap_cost: c.gaps.map(|g| after_gaps(c, g)),
                ours_sent: r.buffers_sent,
                ours_gaps: r.gaps.count(),
                ours_max_gap_ms: r.gaps.max_ms(),
                ours_avg_gap_ms: r.gaps.avg_ms(),
                ours_min_gap_ms: r.gaps.min_ms(),
                ours_mean_message_bits: r.mean_message_bits,
                ours_host_utilisation: r.host_utilisation,
                network_alone_sent: a.buffers_sent,
                network_alone_gaps: a.gaps.count(),
            })
            .collect();
        ctx.csv("table1", &rows)?;
        let gap_rows = every_gap(tables);
        ctx.csv("gaps", &gap_rows)?;
        ctx.csv("gap_free_rate", curve)?;
        ctx.csv("fit", &fit.grid)?;
        Ok(())
    }

    /// Table I as RFC 508 prints it, the paper's and ours, as text files and on the page.
    fn layouts(ctx: &mut Context, r: &Runs) -> Result<()> {
        let Runs { fit, cells, .. } = r;
        let (seed, reps, ours) = (r.seed, r.reps, &r.tables[0]);
        let published = layout(&|i| {
            let c = &cells[i];
            LayoutCell {
                time: c.time.into(),
                sent: c.buffers_sent.to_string(),
                key: c.gaps.map_or(Vec::new(), |g| {
                    // The KEY as printed: max, avg, min, count.
                    let mut v = if g.count == 1 {
                        vec![nmc_realtime::gaps::fmt_gap(g.max_ms)]
                    } else {
                        vec![
                            nmc_realtime::gaps::fmt_gap(g.max_ms),
                            nmc_realtime::gaps::fmt_gap(g.avg_ms),
                            nmc_realtime::gaps::fmt_gap(g.min_ms),
                        ]
                    };
                    v.push(g.count.to_string());
                    v
                }),
            }
        });
        let ours_layout = layout(&|i| LayoutCell {
            time: cells[i].time.into(),
            sent: ours[i].buffers_sent.to_string(),
            key: ours[i].gaps.key_lines(),
        });
        let text = format!(
            "RFC 508 Table I as published (Pfeifer & McAfee 1973)\n{published}\n\
             nmc rfc508-realtime, seed {seed}, table 1 of {reps}; host: {} background terminals, 16 on 2/7 before 10:00, {} ms bursts\n{ours_layout}",
            fit.terminals,
            fit.burst_mean_ns / 1_000_000
        );
        ctx.text("table1.txt", &text)?;
        let ours_title = format!(
            "nmc, seed {seed}: {} background terminals, {} ms bursts; 16 on 2/7 before 10:00",
            fit.terminals,
            fit.burst_mean_ns / 1_000_000
        );
        ctx.text(
            "table1-layout.svg",
            &nmc_realtime::gaps::blocks_svg(&[
                ("RFC 508 Table I (Pfeifer & McAfee 1973)", &published),
                (&ours_title, &ours_layout),
            ]),
        )?;
        ctx.note(format!(
            "Table I, published and ours (seed {seed}):\n{text}"
        ));
        Ok(())
    }

    /// Buffers sent, the gap-free rate per buffer size, and the gap durations, as charts.
    fn charts(ctx: &mut Context, r: &Runs, curve: &[CurveRow]) -> Result<()> {
        let Runs { cells, tables, .. } = r;
        let ours = &r.tables[0];
        let sent_chart = Chart::new(
            "Buffers sent in 30 s: Table I against ours",
            "buffers sent, Table I (count)",
            "buffers sent, ours (count)",
        )
        .with(Series::new(
            "cells",
            SeriesStyle::Points,
            cells
                .iter()
                .zip(ours)
                .map(|(c, r)| (c.buffers_sent as f64, r.buffers_sent as f64))
                .collect(),
        ))
        .with(Series::new(
            "equal",
            SeriesStyle::Dashed,
            vec![(0.0, 0.0), (900.0, 900.0)],
        ));
        ctx.plot(
            "table1",
            "Each of the 176 tests of Table I: buffers sent, published (x) and ours (y).",
            &sent_chart,
        )?;
        let mut chart = Chart::new(
            "Largest gap-free process rate against buffer size",
            "buffer size (bits)",
            "largest gap-free process rate (bit/s)",
        );
        for &d in &RESPONSES_MS {
            let label = if d == 0 {
                "network alone".to_string()
            } else {
                format!("host answers in {d} ms")
            };
            chart = chart.with(Series::new(
                label,
                SeriesStyle::LinePoints,
                curve
                    .iter()
                    .filter(|c| c.host_response_ms == d as f64)
                    .map(|c| (c.buffer_bits as f64, c.largest_gap_free_bps as f64))
                    .collect(),
            ));
        }
        ctx.plot(
            "gap_free_rate",
            "The largest process rate with no gap in a 30 s test, for each buffer size, with the network alone and with the 360 answering each request of the network job (the SEL's attention, each message send, each RFNM and ALL) a fixed time after it is made, in turn (RFC 508 §VII asks for \"techniques for handling gaps of 1/2 to 1 second\").",
            &chart,
        )?;
        let mut hist = [0u64; 9];
        let edges = [10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0, 30000.0];
        for g in &every_gap(tables) {
            let k = edges
                .iter()
                .position(|&e| g.gap_ms < e)
                .unwrap_or(edges.len());
            hist[k] += 1;
        }
        let hist_chart = Chart::new(
            "Gap durations, all tables (log bins)",
            "gap duration",
            "gaps (count)",
        )
        .x_axis(Axis::Categories(
            [
                "<10 ms",
                "10–30 ms",
                "30–100 ms",
                "0.1–0.3 s",
                "0.3–1 s",
                "1–3 s",
                "3–10 s",
                "10–30 s",
                "≥30 s",
            ]
            .iter()
            .enumerate()
            .map(|(k, l)| (k as f64, l.to_string()))
            .collect(),
        ))
        .with(Series::new(
            "ours",
            SeriesStyle::Bars { width: 0.8 },
            hist.iter()
                .enumerate()
                .map(|(k, &c)| (k as f64, c as f64))
                .collect(),
        ));
        ctx.plot("gap_durations", "Distribution of our gap durations over all replicate tables (bins at 10, 30, 100, 300 ms, 1, 3, 10, 30 s). Published: 174 ms; 8 s; 3 s and 100 ms; 438 and 100 ms; 190, 165 and 29 ms; ten of 5–98 ms (avg 30); thirteen of 2–149 ms (avg 70).", &hist_chart)?;
        Ok(())
    }

    /// What the rows rest on and what the model leaves out.
    fn notes(
        ctx: &mut Context,
        r: &Runs,
        outside: &[(u64, u64, u64, u64)],
        feb7: &Feb7,
        longs: &[TestResult],
    ) {
        let Runs {
            sets,
            fit,
            cells,
            alone,
            single_alone,
            single_sets,
            ..
        } = r;
        let (feb7_gapped, early_gapped, pub_feb7) =
            (feb7.gapped, feb7.early_gapped, feb7.published);
        ctx.note(format!(
            "Subnet (nmc's IMP model, UCSB–50 kbit/s–UCLA, one message outstanding): RFNM round trip of a one-buffer message {} ms (1008 bits) … {} ms (8048 bits). \
             With one buffer per message that carries at most {:.1} kbit/s at 1008 bits; the NCP's connection buffer lets a message carry every buffer waiting, so the network alone keeps up with every cell of Table I ({} cells with gaps).",
            fmt1(sets.0[0].one_buffer_rfnm_ms()),
            fmt1(sets.0[7].one_buffer_rfnm_ms()),
            1008.0 / sets.0[0].one_buffer_rfnm_ms(),
            gapped(alone),
        ));
        let in_band: Vec<String> = fit
            .grid
            .iter()
            .filter(|f| f.gapped_fraction >= fit.band.0 && f.gapped_fraction <= fit.band.1)
            .map(|f| {
                format!(
                    "{}×{} ms: {:.1} ms",
                    f.terminals, f.burst_mean_ms, f.mean_gap_ms
                )
            })
            .collect();
        ctx.note(format!(
            "Host fit on the 66 tests of the even rows of 2/5–2/6 only ({} replicate(s) per candidate; grid in fit.csv): published {:.1} % with gaps, mean gap {:.1} ms. \
             Candidates within one binomial s.d. ({:.1}–{:.1} %), terminals × burst: mean gap — {}. Chosen: {} background terminals, {} ms bursts (think time 10 s a priori). \
             Prediction of 2/7 (16 terminals before 10:00): {:.1} of 44 tests with gaps (published 5), {:.1} of the 8 before 10:00 (published 4); error {:+.1} tests and {:+.1} tests.",
            fit.replicates,
            100.0 * fit.observed_fraction,
            fit.observed_mean_gap_ms,
            100.0 * fit.band.0,
            100.0 * fit.band.1,
            if in_band.is_empty() { "none".to_string() } else { in_band.join(", ") },
            fit.terminals,
            fit.burst_mean_ns / 1_000_000,
            feb7_gapped,
            early_gapped,
            feb7_gapped - pub_feb7,
            early_gapped - 4.0,
        ));
        if !outside.is_empty() {
            ctx.note(format!(
                "R508-1 cells outside ±3 % (rate, bits, published, ours): {:?}. Table I's gap-free cells run on average {:.2} buffers above rate × 30 / bits.",
                outside,
                cells.iter().filter(|c| c.gaps.is_none()).map(|c| c.buffers_sent as f64 - c.rate_bps as f64 * 30.0 / c.buffer_bits as f64).sum::<f64>() / 169.0
            ));
        }
        ctx.note(format!(
            "Variant, one buffer per message (the NCP's send buffer holds one SEL buffer, `ncp.send_buffer_bits`): the network \
             alone leaves {} of 176 cells with gaps (largest gap-free rate ≈ buffer / RFNM round trip: {:.1} kbit/s at 1008 bits, \
             {:.1} kbit/s at 8048 bits), where Table I has none caused by the network. So UCSB's NCP must have sent more than one \
             SEL buffer per RFNM (if the IMP model's round trips and the one-message-per-RFNM rule hold).",
            gapped(single_alone),
            1008.0 / single_sets.0[0].one_buffer_rfnm_ms(),
            8048.0 / single_sets.0[7].one_buffer_rfnm_ms(),
        ));
        ctx.note(format!(
            "Table I's own cells with gaps against what their gaps cost, rate × (30 s − gaps) / bits (rate, bits: printed, explained): {}. \
             Printed less explained: {}.",
            cells
                .iter()
                .filter_map(|c| c.gaps.map(|g| format!("{}, {}: {}, {:.1}", c.rate_bps, c.buffer_bits, c.buffers_sent, after_gaps(c, g))))
                .collect::<Vec<_>>()
                .join("; "),
            cells
                .iter()
                .filter_map(|c| c.gaps.map(|g| format!("{:+.1}", c.buffers_sent as f64 - after_gaps(c, g))))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        ctx.note(format!(
            "Long tests (unloaded host): {}.",
            LONG_TESTS
                .iter()
                .zip(longs)
                .map(|(l, r)| format!(
                    "{} min: {} buffers, {} gaps (published {})",
                    l.minutes,
                    r.buffers_sent,
                    r.gaps.count(),
                    l.buffers_sent
                ))
                .collect::<Vec<_>>()
                .join("; ")
        ));
        ctx.note(
            "What the model leaves out or cannot yet match: other traffic on the 1973 network (the subnet is unloaded and holds one \
             message at a time, which is what lets the host model draw the IMP model's times); the 360's I/O, paging and time \
             slices (one CPU, two priorities); the sweep second hand (every test is exactly 30 s); the 1973 IMP program (the \
             October 1974 profile stands in). The host model's On-Line System (exponential think and burst, first come first \
             served, ahead of the network job) cannot give both the short gaps of 2/5–2/6 and the 174 ms–8 s gaps of the full \
             classroom on 2/7 from one per-terminal demand: fitted on half of 2/5–2/6 it misses 2/7, and with 0.5 s bursts a priori it \
             gaps every early 2/7 test where the paper gapped half.",
        );
        ctx.progress(1.0);
    }
}

/// rate × (30 s − total gap) / bits for a published cell (total gap = avg × count).
fn after_gaps(c: &nmc_realtime::table1::Cell, g: nmc_realtime::table1::PublishedGaps) -> f64 {
    c.rate_bps as f64 * (30.0 - g.avg_ms * g.count as f64 / 1e3) / c.buffer_bits as f64
}

fn fmt1(x: f64) -> String {
    format!("{x:.1}")
}

fn layout(f: &dyn Fn(usize) -> LayoutCell) -> String {
    table_layout(&RATES, &BUFFERS, &|r, c| f(r * BUFFERS.len() + c))
}
