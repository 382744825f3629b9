//! `ko-v3-throughput`: K&O's 1975 throughput experiments under "version 3" message processing
//! (§VI–VII, Figs. 7–9).
//!
//! Scenario (K&O §VII): the UCLA pump of October 1974 again, 8063-bit messages to a fake host
//! 1..12 hops away for 10 minutes, now on the 1975 network (`scenarios/ko-v3-map.toml`: the July
//! 1975 map, the nearest to the February and May runs, with the network's own load of
//! `ko-v2-map.toml`), under `v3-1975-02` (February, before BBN's phasing fix) and `v3-1975-05`
//! (May, after it). October 1974 is run beside them from `ko-v2-map.toml` (curve A of Fig. 9).
//! Every row comes from these configurations, several seeds each; only the destination and the
//! profile change.
//!
//! Targets and tolerances, stated before the runs:
//! * KO-7, K&O §VII: February 1975 against October 1974, "for paths with many hops, the
//!   decrease in throughput was almost 50 percent": the ratio Feb/Oct of average throughput at
//!   9 hops (the longest path both have) in 0.45–0.60.
//! * KO-FIG7 316, K&O §VII: in 1975 "the average queueing delay in the processing queue [of a
//!   316] is about 10 ms", ±50 %; and "more than 5 times as much as ... in the 516 IMP": the
//!   ratio at least 5 (February runs, 9 hops, every IMP of each kind).
//! * KO-FIG7 phasing and time slice, K&O §VII and Fig. 7: most PLT entries held by RFNMs
//!   waiting at the destination for an ALL, and the figure's slice read as ours is.
//!
//!   Issue 56: these are the mechanism K&O show for KO-7, not its published quantity; they were
//!   KO-7's rows and gave it a "partly" its throughput ratio did not earn. They are their own
//!   quantity now (KO-FIG7, beside SPEC §3), and KO-7's verdict rests on the ratio alone.
//! * KO-8, K&O §VII, Fig. 8: to a VDH destination (10 reassembly buffers) before the fix,
//!   "throughput degradations by a factor of 3": ordinary/VDH throughput at 9 hops, 3 ± 20 %.
//! * KO-9, K&O Fig. 9 / abstract: May 1975, 9 hops, "27 kbit/s", ±10 %.
//! * KO-9 below Oct 1974, K&O §VII: May 1975 "inferior to that in October 1974": May/Oct at 9
//!   hops at most 1.
//! * KO-9 above Feb 1975, K&O §VII: "far better than that which we observed in February 1975
//!   prior to the phasing fix": May/Feb, mean of 9–12 hops, at least 1.25 ("far" read as a
//!   quarter or more).
//!
//! The mechanism is written beside the numbers: PLT entries by holder (messages, REQALLs, RFNMs
//! waiting at the destination for a piggy-backed ALL), superfluous REQALLs, how long RFNMs wait
//! at the destination, and the ablations at 9 hops (the fix alone, withholding superfluous
//! REQALLs alone, both, and the VDH destination before and after the fix).
//!
//! What-ifs at 9 hops (`what_if_9hops.csv`, first seed; none has a source and no row uses one):
//! no other traffic, a fixed per-hop latency, less reassembly room, and a 316's work above the
//! task, each run for all three periods and scored against the targets above both as a change
//! to every period and as a change between October 1974 and 1975 alone. The note names, for
//! each row that misses, the cases that would bring it within and the source missing for each.
//!
//! **The 1975 calibration (issue 56), stated before the run.** One input no reachable source
//! gives: the reassembly room other hosts held at the destination IMP (K&O §III: reassembly
//! space is "shared with all other HOST's"; §VII gives the 1975 buffer counts, 34, not what
//! others held). It is estimated as a step, others holding room for k = 0, 1, 2 or 3 of the
//! 4 messages the 34 buffers hold (`reassembly_buffers` = 34 − 8k, every IMP, the 1975 runs
//! alone: October 1974 as configured), and
//! * **fitted on KO-7 long paths alone** (Feb 1975 / Oct 1974 at 9 hops, mean over the seeds):
//!   the k whose ratio is nearest the middle of KO-7's band (0.525; the smaller k on a tie);
//!   that row, re-scored under the fit, is labelled in-sample and never counts;
//! * **tested on KO-9** (May 1975 at 9 hops, May/Oct at 9 hops, May/Feb over 9–12 hops, every
//!   seed, under the fitted k), none of which the fit reads: these rows are kind *calibrated*
//!   and give KO-9 its calibrated verdict beside the sourced one, which they never change.
//!
//! Every step is run at 9–12 hops for both 1975 profiles (`calibration_1975.csv`), so the
//! report shows the whole step table, not only the chosen step.

use super::ko_sites::{KO_MAP_DESTINATIONS, KO_V3_DESTINATIONS};
use crate::registry::{Context, Experiment, Loader, Plan};
use anyhow::Result;
use nmc_imp::Outcome;
use nmc_imp::metric::Resource;
use nmc_imp::observe::{Counted, Doing, SliceKind};
use nmc_imp::params::ImpModel;
use nmc_imp::scenario::ImpScenario;
use nmc_report::diagram::PathDiagram;
use nmc_report::style::Marker;
use nmc_report::{Axis, Chart, Series, SeriesStyle, Target, Value};
use nmc_sim::Trace;
use rayon::prelude::*;
use serde::Serialize;

/// `scenarios/ko-v3-map.toml`, built in: the July 1975 map with the network's own load (K&O
/// §VII).
pub const V3_MAP: &str = include_str!("../../../../scenarios/ko-v3-map.toml");
use super::ko_v2_throughput::{MAP as V2_MAP, mean, spread};

/// The `ko-v3-throughput` experiment: K&O's 1975 throughput experiments under "version 3"
/// message processing, before and after BBN's phasing fix (§VI–VII, Figs. 7–9).
pub struct KoV3Throughput;

/// One run to make: period, case, profile, hops, seed, extra settings.
type Job = (Period, String, &'static str, u32, u64, Vec<String>);

/// Room for how many of its 4 messages other hosts hold at the destination IMP, the steps the
/// 1975 calibration tries beside k = 0 (the runs as configured).
const CALIBRATION_HELD: [u32; 3] = [1, 2, 3];

/// The middle of KO-7's band, which the calibration's fit aims at.
const KO7_MIDDLE: f64 = (KO7_RATIO.0 + KO7_RATIO.1) / 2.0;

/// The case name of calibration step `k` (others hold room for `k` messages).
fn calibration_case(k: u32) -> String {
    format!("calibration: others hold room for {k} of 4 messages")
}

/// The 1975 profiles' `reassembly_buffers` with others holding room for `k` messages
/// (each message's allocation is `allocation_buffers`).
fn calibration_buffers(k: u32) -> u32 {
    nmc_imp::ImpParams::v3_1975_02().reassembly_less_held(k)
}

/// The three curves of K&O Fig. 9 (and the February one the text describes).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
enum Period {
    #[serde(rename = "Oct 1974")]
    Oct1974,
    #[serde(rename = "Feb 1975")]
    Feb1975,
    #[serde(rename = "May 1975")]
    May1975,
}

impl Period {
    fn hops(self) -> u32 {
        match self {
            Period::Oct1974 => 9,
            _ => 12,
        }
    }
    fn destination(self, hops: u32) -> &'static str {
        match self {
            Period::Oct1974 => KO_MAP_DESTINATIONS[hops as usize - 1],
            _ => KO_V3_DESTINATIONS[hops as usize - 1],
        }
    }
    fn scenario(self) -> (&'static str, &'static str) {
        match self {
            Period::Oct1974 => (V2_MAP, "v2-1974-10"),
            Period::Feb1975 => (V3_MAP, "v3-1975-02"),
            Period::May1975 => (V3_MAP, "v3-1975-05"),
        }
    }
}

#[derive(Serialize, Clone)]
struct Row {
    period: Period,
    case: String,
    seed: u64,
    hops: u32,
    destination: String,
    throughput_kbps: f64,
    best150_kbps: f64,
    rtt_mean_ms: f64,
    messages: f64,
    plt_entries_mean: f64,
    plt_messages_mean: f64,
    plt_reqalls_mean: f64,
    plt_rfnms_waiting_mean: f64,
    message_numbers_mean: f64,
    reqalls: f64,
    superfluous_reqalls: f64,
    rfnms_with_all_fraction: f64,
    rfnms_not_piggybacked: f64,
    rfnm_timeouts: f64,
    rfnm_wait_at_destination_mean_ms: f64,
    rfnm_wait_at_destination_max_ms: f64,
    blocks_created: f64,
    processing_316_wait_mean_ms: f64,
    processing_516_wait_mean_ms: f64,
    /// The first slice read as K&O's Fig. 7 ([`fig7_summary`]).
    #[serde(skip)]
    fig7: String,
}

/// Seeds of the full run (the first alone under `--quick`).
const SEEDS: u64 = 3;

/// KO-7's target (stated before the runs, module doc): Feb/Oct at 9 hops in 0.45–0.60.
const KO7_RATIO: (f64, f64) = (0.45, 0.60);

fn ko7_target() -> Target {
    Target::Range {
        lo: KO7_RATIO.0,
        hi: KO7_RATIO.1,
        rel: 0.0,
    }
}

/// KO-FIG7 316 queue's target: a 316's processing queue about 10 ms, ±50 %.
fn ko7_316_target() -> Target {
    Target::Rel {
        value: 10.0,
        rel: 0.5,
    }
}

/// KO-FIG7 time slice: K&O's time slice, read as [`fig7_summary`] reads ours.
fn ko7_fig7_target() -> Target {
    Target::Exact {
        text: "PLT: 4 RFNM waiting, 2 MSG in flight; next MSG has ALL, no PLT".into(),
    }
}

/// KO-FIG7 316/516: a 316's processing queue more than 5 times a 516's.
const KO7_316_OVER_516: Target = Target::AtLeast { value: 5.0 };

/// KO-9's target: May 1975 at 9 hops, 27 kbit/s ±10 %.
fn ko9_target() -> Target {
    Target::Rel {
        value: 27.0,
        rel: 0.10,
    }
}

/// KO-9 below Oct 1974: May/Oct at most 1.
const KO9_BELOW_OCT: Target = Target::AtMost { value: 1.0 };

/// KO-9 above Feb 1975: May/Feb at least 1.25.
const KO9_ABOVE_FEB: Target = Target::AtLeast { value: 1.25 };

/// What-ifs at 9 hops, each run for October 1974, February and May 1975 (first seed): (case,
/// the input it stands for (a key of [`INPUTS`]), extra settings). **None has a source**: they
/// are not used by any row; they show which input would bring each row that misses within its
/// tolerance, and so which missing source would settle it (`what_if_9hops.csv`).
const WHAT_IFS: [(&str, &str, &[&str]); 6] = [
    (
        "no other traffic",
        "load",
        &["traffic=[{ kind = \"pump\", from = \"UCLA\", to = \"FAKE\", message = \"8063bit\" }]"],
    ),
    (
        "every line 20 ms longer each way",
        "latency",
        &["network.topology.line_delay=20ms"],
    ),
    (
        "reassembly room for 3 messages at each IMP (26 buffers of 34)",
        "reassembly",
        &["network.params.reassembly_buffers=26"],
    ),
    (
        "reassembly room for 2 messages at each IMP (18 buffers of 34)",
        "reassembly",
        &["network.params.reassembly_buffers=18"],
    ),
    (
        "every 316 busy 12.8 ms of each 25.6 ms tick above the task",
        "TIP work",
        &["network.params.tip_work_316=12800us"],
    ),
    (
        "every 316 busy 19.2 ms of each 25.6 ms tick above the task",
        "TIP work",
        &["network.params.tip_work_316=19200us"],
    ),
];

/// The inputs the what-ifs stand for, and the source each is missing.
const INPUTS: [(&str, &str); 4] = [
    (
        "load",
        "the network's load in 1975 (no 1975 traffic figures reached; K&O §VII: the February fall \
         \"was not due to a sudden surge of interfering traffic\")",
    ),
    (
        "latency",
        "a fixed per-hop latency, which RFC 619's short messages rule out (ko-v2-throughput's \
         what_if_line_delay.csv)",
    ),
    (
        "reassembly",
        "the reassembly space other hosts held at the destination IMP (K&O §III: it is \"shared with all \
         other HOST's\"; which fake host K&O used, and its IMP's traffic, are not published)",
    ),
    (
        "TIP work",
        "a TIP's terminal work above the task on every 316 (its cost per character and its terminals' \
         rates: Ornstein et al., SJCC 1972, not reachable)",
    ),
];

/// One what-if at 9 hops (first seed), the three periods side by side, and the rows it would
/// bring within their tolerances.
#[derive(Serialize)]
struct WhatIfRow {
    case: String,
    /// The input the case stands for (a key of [`INPUTS`]; empty for the run as configured).
    input: &'static str,
    oct_kbps: f64,
    feb_kbps: f64,
    may_kbps: f64,
    feb_over_oct: f64,
    may_over_oct: f64,
    may_over_feb: f64,
    feb_316_wait_ms: f64,
    feb_516_wait_ms: f64,
    feb_plt_rfnms_waiting: f64,
    feb_plt_messages: f64,
    /// PLT entries held by the pump's messages in October (its window in flight).
    oct_plt_messages: f64,
    /// The rows that miss as configured and would be within under this case (9 hops, first
    /// seed; KO-9 above Feb at 9 hops alone).
    #[serde(serialize_with = "ids")]
    rows_within: Vec<&'static str>,
    /// The same, with the case applied to 1975 alone (October as configured): an input that
    /// changed between October 1974 and February 1975.
    #[serde(serialize_with = "ids")]
    rows_within_1975_only: Vec<&'static str>,
}

/// Row ids in one CSV cell.
fn ids<S: serde::Serializer>(v: &[&str], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&v.join("; "))
}

/// The rows a what-if is scored on, with their targets: (id, target, value from one case's
/// three runs).
fn what_if_rows(oct: &Row, feb: &Row, may: &Row) -> [(&'static str, Target, Value); 7] {
    let n = Value::Num;
    [
        (
            "KO-7 long paths",
            ko7_target(),
            n(feb.throughput_kbps / oct.throughput_kbps),
        ),
        (
            "KO-FIG7 316 queue",
            ko7_316_target(),
            n(feb.processing_316_wait_mean_ms),
        ),
        (
            "KO-FIG7 316/516",
            KO7_316_OVER_516,
            n(feb.processing_316_wait_mean_ms / feb.processing_516_wait_mean_ms),
        ),
        (
            "KO-FIG7 time slice",
            ko7_fig7_target(),
            Value::Text(feb.fig7.clone()),
        ),
        ("KO-9 9 hops", ko9_target(), n(may.throughput_kbps)),
        (
            "KO-9 below Oct 1974",
            KO9_BELOW_OCT,
            n(may.throughput_kbps / oct.throughput_kbps),
        ),
        (
            "KO-9 above Feb 1975",
            KO9_ABOVE_FEB,
            n(may.throughput_kbps / feb.throughput_kbps),
        ),
    ]
}

/// The ablations at 9 hops on the 1975 map: (case, profile, extra settings; `{dst}` is the
/// 9-hop destination).
const ABLATIONS: [(&str, &str, &[&str]); 6] = [
    (
        "Feb 1975: superfluous REQALLs, piggy-backing always",
        "v3-1975-02",
        &[],
    ),
    ("BBN's fix alone (May 1975)", "v3-1975-05", &[]),
    (
        "no superfluous REQALLs alone",
        "v3-1975-02",
        &["network.params.superfluous_reqalls=false"],
    ),
    (
        "both remedies",
        "v3-1975-05",
        &["network.params.superfluous_reqalls=false"],
    ),
    (
        "VDH destination, Feb 1975",
        "v3-1975-02",
        &["network.vdh=[\"{dst}\"]"],
    ),
    (
        "VDH destination, May 1975",
        "v3-1975-05",
        &["network.vdh=[\"{dst}\"]"],
    ),
];

/// When the time slices are taken: well into the run.
fn slice_at(quick: bool) -> &'static str {
    if quick { "61s" } else { "301s" }
}

/// The first time slice of a run, as K&O draw them (Figs. 2, 7, 8).
fn slice_diagram(o: &Outcome, title: &str) -> Option<PathDiagram> {
    Some(nmc_run::charts::slice_diagram(o.slices.first()?, title))
}

/// A time slice in K&O Fig. 7's terms: who holds the PLT entries, and whether the next
/// message holds its ALL but no PLT entry.
fn fig7_summary(o: &Outcome) -> String {
    let Some(sl) = o.slices.first() else {
        return "no slice".into();
    };
    let count = |what: SliceKind, doing: Doing| {
        sl.items
            .iter()
            .filter(|i| i.what == what && i.plt && i.doing == doing)
            .count()
    };
    let next = sl
        .items
        .iter()
        .any(|i| i.what == SliceKind::Msg && i.all && !i.plt && i.doing == Doing::WaitingForPlt);
    format!(
        "PLT: {} RFNM waiting, {} MSG in flight; next MSG {}",
        count(SliceKind::Rfnm, Doing::RfnmWaitingForAll),
        count(SliceKind::Msg, Doing::InFlight),
        if next {
            "has ALL, no PLT"
        } else {
            "not waiting with ALL"
        }
    )
}

#[derive(Serialize)]
struct TimelineRow {
    message: u64,
    point: &'static str,
    event: &'static str,
    at: &'static str,
    t_ms: f64,
}

/// K&O Fig. 7's timeline of one message *i*, points a–h, in ms after a: a message past the
/// run's middle that waited for a PLT entry and whose RFNM carried an ALL.
fn timeline(o: &Outcome) -> Vec<TimelineRow> {
    let half = o.messages.len() / 2;
    let Some(m) = o.messages.iter().skip(half).find(|m| {
        m.rfnm_carried_all == Some(true)
            && m.launched_ns.zip(m.first_in_ns).is_some_and(|(l, f)| l > f)
            && m.rfnm_sent_ns.is_some()
    }) else {
        return Vec::new();
    };
    let points: [(&str, &str, &str, Option<u64>); 8] = [
        (
            "a",
            "input of packet 1 starts (message i-1 accepted)",
            "source IMP",
            Some(m.offered_ns),
        ),
        (
            "b",
            "packet 1 received by the source IMP",
            "source IMP",
            m.first_in_ns,
        ),
        (
            "c",
            "a PLT entry is free: the message proceeds",
            "source IMP",
            m.launched_ns,
        ),
        (
            "d",
            "all packets accepted by the source IMP",
            "source IMP",
            m.accepted_ns,
        ),
        (
            "e",
            "packet 1 received by the destination IMP",
            "destination IMP",
            m.first_arrived_ns,
        ),
        (
            "f",
            "last packet received by the destination IMP",
            "destination IMP",
            m.reassembled_ns,
        ),
        (
            "g",
            "RFNM sent, with the ALL it waited for",
            "destination IMP",
            m.rfnm_sent_ns,
        ),
        (
            "h",
            "RFNM received by the source IMP",
            "source IMP",
            m.rfnm_ns,
        ),
    ];
    points
        .iter()
        .filter_map(|&(point, event, at, t)| {
            Some(TimelineRow {
                message: m.id,
                point,
                event,
                at,
                t_ms: (t? - m.offered_ns) as f64 / 1e6,
            })
        })
        .collect()
}

fn scenario(loader: Loader, text: &str, sets: &[String]) -> Result<ImpScenario> {
    loader.load("ko-v3", text, sets)
}

/// One run: `period`'s scenario to its `hops` destination, with `extra` settings.
/// One step of the 1975 calibration: other hosts hold room for `held_messages` of the
/// destination's 4 messages (means over seeds; `calibration_1975.csv`).
#[derive(Serialize, Clone, Debug, PartialEq)]
struct CalibrationRow {
    held_messages: u32,
    reassembly_buffers: u32,
    /// The fit row, KO-7 long paths: Feb 1975 (this step) / Oct 1974 (as configured), 9 hops.
    feb_over_oct_9hops: f64,
    feb_9hops_kbps: f64,
    /// The rows tested (KO-9).
    may_9hops_kbps: f64,
    may_over_oct_9hops: f64,
    may_over_feb_9_12hops: f64,
    /// The step the fit chose.
    chosen: bool,
}

/// Every step of the calibration: k = 0 from the curve, the others from their own runs.
fn calibration_steps(runs: &Runs) -> Vec<CalibrationRow> {
    let oct9 = runs.avg(Period::Oct1974, 9, thr);
    let mut steps = Vec::new();
    for k in std::iter::once(0).chain(CALIBRATION_HELD) {
        let avg = |p: Period, h: u32| -> f64 {
            if k == 0 {
                runs.avg(p, h, thr)
            } else {
                let case = calibration_case(k);
                mean(
                    runs.calibration_runs
                        .iter()
                        .filter(|r| r.case == case && r.period == p && r.hops == h)
                        .map(thr),
                )
            }
        };
        let long = |p: Period| mean((9..=12).map(|h| avg(p, h)));
        let (feb9, may9) = (avg(Period::Feb1975, 9), avg(Period::May1975, 9));
        steps.push(CalibrationRow {
            held_messages: k,
            reassembly_buffers: calibration_buffers(k),
            feb_over_oct_9hops: feb9 / oct9,
            feb_9hops_kbps: feb9,
            may_9hops_kbps: may9,
            may_over_oct_9hops: may9 / oct9,
            may_over_feb_9_12hops: long(Period::May1975) / long(Period::Feb1975),
            chosen: false,
        });
    }
    steps
}

/// The fit (module doc): the step whose fit row is nearest the middle of KO-7's band, the
/// smaller k on a tie. Reads `feb_over_oct_9hops` and nothing else.
fn fit_step(steps: &[CalibrationRow]) -> CalibrationRow {
    let miss = |s: &CalibrationRow| {
        let d = (s.feb_over_oct_9hops - KO7_MIDDLE).abs();
        if d.is_finite() { d } else { f64::INFINITY }
    };
    let mut best = &steps[0];
    for s in &steps[1..] {
        if miss(s) < miss(best) {
            best = s;
        }
    }
    best.clone()
}

fn run_one(
    loader: Loader,
    period: Period,
    case: &str,
    profile: &str,
    hops: u32,
    seed: u64,
    extra: &[String],
) -> Result<(Row, Outcome)> {
    let (text, _) = period.scenario();
    let dest = period.destination(hops);
    let mut sets = vec![
        format!("network.hosts.1.imp={dest}"),
        format!("network.profile={profile}"),
        format!("network.slices=[\"{}\"]", slice_at(loader.quick)),
    ];
    sets.extend(extra.iter().map(|s| s.replace("{dst}", dest)));
    let s = scenario(loader, text, &sets)?;
    let o = nmc_imp::scenario::run(&s, seed, Trace::off(), &mut |_| {})?;
    anyhow::ensure!(
        o.hops == Some(hops),
        "{dest} is {:?} hops from UCLA, expected {hops}",
        o.hops
    );
    let m = &o.metrics;
    let count = |k: Counted| m.count(k) as f64;
    let row = Row {
        period,
        case: case.to_string(),
        seed,
        hops,
        destination: dest.to_string(),
        throughput_kbps: m.pair.throughput_kbps,
        best150_kbps: m.pair.best150_kbps.unwrap_or(f64::NAN),
        rtt_mean_ms: m.pair.rtt_mean_ms().unwrap_or(f64::NAN),
        messages: m.pair.completed as f64,
        plt_entries_mean: m.occupancy_mean(Resource::PltEntries).unwrap_or(f64::NAN),
        plt_messages_mean: m.occupancy_mean(Resource::PltMessages).unwrap_or(f64::NAN),
        plt_reqalls_mean: m.occupancy_mean(Resource::PltReqalls).unwrap_or(f64::NAN),
        plt_rfnms_waiting_mean: m
            .occupancy_mean(Resource::PltRfnmsWaiting)
            .unwrap_or(f64::NAN),
        message_numbers_mean: m
            .occupancy_mean(Resource::MessageNumbers)
            .unwrap_or(f64::NAN),
        reqalls: count(Counted::Reqall),
        superfluous_reqalls: count(Counted::SuperfluousReqall),
        rfnms_with_all_fraction: m.pair.rfnm_with_all_fraction.unwrap_or(f64::NAN),
        rfnms_not_piggybacked: count(Counted::RfnmNotPiggybacked),
        rfnm_timeouts: count(Counted::RfnmWithoutAll) - count(Counted::RfnmNotPiggybacked),
        rfnm_wait_at_destination_mean_ms: m.rfnm_wait_at_destination.map_or(0.0, |w| w.mean),
        rfnm_wait_at_destination_max_ms: m.rfnm_wait_at_destination.map_or(0.0, |w| w.max),
        blocks_created: count(Counted::CreateBlock),
        processing_316_wait_mean_ms: m
            .processing_wait_mean_ms(ImpModel::H316)
            .unwrap_or(f64::NAN),
        processing_516_wait_mean_ms: m
            .processing_wait_mean_ms(ImpModel::H516)
            .unwrap_or(f64::NAN),
        fig7: fig7_summary(&o),
    };
    Ok((row, o))
}

/// The pumped pair's PLT entries by holder over the first `seconds` (K&O Fig. 7's resources).
fn plt_chart(o: &Outcome, title: &str, seconds: f64) -> Chart {
    let pick = |f: fn(&nmc_imp::observe::Occupancy) -> u32| -> Vec<(f64, f64)> {
        o.occupancy
            .iter()
            .map(|s| (s.t_ns as f64 / 1e9, f(s) as f64))
            .take_while(|p| p.0 <= seconds)
            .collect()
    };
    let of = o.params.plt_entries;
    Chart::new(
        title,
        "time (s)",
        format!("PLT entries held (count, of {of})"),
    )
    .with(Series::new(
        "messages (in flight, RFNM on its way back)",
        SeriesStyle::Line,
        pick(|s| s.plt_messages),
    ))
    .with(Series::new(
        "RFNMs waiting at the destination for an ALL",
        SeriesStyle::Line,
        pick(|s| s.plt_rfnms_waiting),
    ))
    .with(Series::new(
        "REQALLs",
        SeriesStyle::Line,
        pick(|s| s.plt_reqalls),
    ))
}

impl Experiment for KoV3Throughput {
    fn id(&self) -> &'static str {
        "ko-v3-throughput"
    }
    fn title(&self) -> &'static str {
        "1975 throughput under version 3: phasing, the VDH stall and BBN's fix (K&O Figs. 7–9)"
    }
    fn source(&self) -> &'static str {
        "Kleinrock & Opderbeck 1977, §VI–VII, Figs. 7–9; load from RFC 586, RFC 612 and RFC 619"
    }
    fn chapter(&self) -> &'static str {
        "docs/src/explanation/ko-1977.md"
    }
    fn plan(&self) -> Plan {
        Plan::quick(&["duration=2min"])
            .also("the time slice at 61 s instead of 301 s")
            .seeds(SEEDS)
    }
    fn run(&self, ctx: &mut Context) -> Result<()> {
        let runs = Self::runs(ctx)?;
        Self::checks(ctx, &runs);
        Self::calibration(ctx, &runs)?;
        Self::figures(ctx, &runs)?;
        Self::nine_hop_pictures(ctx, &runs)?;
        Self::ablations_and_what_ifs(ctx, &runs)
    }
}

/// Every run of the experiment, in plan order.
struct Runs {
    quick: bool,
    /// The seeds of the curves and ablations (the what-ifs take the first).
    seeds: Vec<u64>,
    /// Each run's row, with the outcome kept for the first seed's 9-hop pictures.
    results: Vec<(Row, Option<Outcome>)>,
    /// The curves' and ablations' rows (curve.csv).
    rows: Vec<Row>,
    /// The what-ifs' rows (their own table).
    what_if_runs: Vec<Row>,
    /// The 1975 calibration's steps, k ≥ 1 (their own table; k = 0 is the curve).
    calibration_runs: Vec<Row>,
}

impl Runs {
    /// The curve's rows of `p` at `h` hops, one per seed.
    fn curve(&self, p: Period, h: u32) -> impl Iterator<Item = &Row> {
        self.rows
            .iter()
            .filter(move |r| r.period == p && r.case == "curve" && r.hops == h)
    }

    /// The mean over seeds of one figure of the curve of `p` at `h` hops.
    fn avg(&self, p: Period, h: u32, f: fn(&Row) -> f64) -> f64 {
        mean(self.curve(p, h).map(f))
    }

    /// The range over seeds of the curve's throughput, as text.
    fn note(&self, p: Period, h: u32) -> String {
        let (lo, hi) = spread(self.curve(p, h).map(|r| r.throughput_kbps));
        format!("{lo:.1}–{hi:.1} kbit/s")
    }

    /// The PLT entries of February 1975's runs, as the run had them (its first-seed 9-hop
    /// outcome), for labels.
    fn feb_plt_entries(&self) -> u32 {
        self.results
            .iter()
            .find(|(r, o)| o.is_some() && r.period == Period::Feb1975 && r.case == "curve")
            .and_then(|(_, o)| o.as_ref())
            .map_or_else(
                || nmc_imp::ImpParams::v3_1975_02().plt_entries,
                |o| o.params.plt_entries,
            )
    }

    /// The mean of one figure over the rows of case `c`.
    fn case_mean(&self, c: &str, f: fn(&Row) -> f64) -> f64 {
        mean(self.rows.iter().filter(|r| r.case == c).map(f))
    }
}

fn thr(r: &Row) -> f64 {
    r.throughput_kbps
}

impl KoV3Throughput {
    /// Every run, independent: all go to every core, and are taken back in plan order, so
    /// the output does not depend on the number of cores.
    fn runs(ctx: &mut Context) -> Result<Runs> {
        let (quick, loader) = (ctx.quick, ctx.loader());
        let seeds = ctx.seeds();
        // Every run is independent: all go to every core, and are taken back in this order,
        // so the output does not depend on the number of cores.
        let mut jobs: Vec<Job> = Vec::new();
        for period in [Period::Oct1974, Period::Feb1975, Period::May1975] {
            let profile = period.scenario().1;
            for h in 1..=period.hops() {
                for &s in &seeds {
                    jobs.push((period, "curve".into(), profile, h, s, Vec::new()));
                }
            }
        }
        let owned = |extra: &[&str]| extra.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for (case, profile, extra) in ABLATIONS {
            for &s in &seeds {
                jobs.push((Period::Feb1975, case.into(), profile, 9, s, owned(extra)));
            }
        }
        for (case, _, extra) in WHAT_IFS {
            for period in [Period::Oct1974, Period::Feb1975, Period::May1975] {
                let profile = period.scenario().1;
                jobs.push((period, case.into(), profile, 9, seeds[0], owned(extra)));
            }
        }
        for k in CALIBRATION_HELD {
            let set = format!(
                "network.params.reassembly_buffers={}",
                calibration_buffers(k)
            );
            for period in [Period::Feb1975, Period::May1975] {
                let profile = period.scenario().1;
                for h in 9..=12 {
                    for &s in &seeds {
                        let case = calibration_case(k);
                        jobs.push((period, case, profile, h, s, vec![set.clone()]));
                    }
                }
            }
        }
        let total = jobs.len() as f64;
        let mut results: Vec<(Row, Option<Outcome>)> = Vec::new();
        for chunk in jobs.chunks(8) {
            let batch: Vec<Result<(Row, Outcome)>> = chunk
                .par_iter()
                .map(|(p, case, profile, h, s, extra)| {
                    run_one(loader, *p, case, profile, *h, *s, extra)
                })
                .collect();
            for r in batch {
                let (row, o) = r?;
                // Keep the first seed's 9-hop outcomes for the pictures.
                let keep = row.hops == 9
                    && row.seed == seeds[0]
                    && (row.case == "curve" || row.case == ABLATIONS[4].0);
                results.push((row, keep.then_some(o)));
            }
            ctx.progress(results.len() as f64 / total);
        }
        // The what-ifs and the calibration's steps go to their own tables, not to curve.csv.
        let is_what_if = |r: &Row| WHAT_IFS.iter().any(|w| w.0 == r.case);
        let is_calibration = |r: &Row| r.case.starts_with("calibration:");
        let what_if_runs: Vec<Row> = results
            .iter()
            .filter(|(r, _)| is_what_if(r))
            .map(|(r, _)| r.clone())
            .collect();
        let calibration_runs: Vec<Row> = results
            .iter()
            .filter(|(r, _)| is_calibration(r))
            .map(|(r, _)| r.clone())
            .collect();
        let rows: Vec<Row> = results
            .iter()
            .filter(|(r, _)| !is_what_if(r) && !is_calibration(r))
            .map(|(r, _)| r.clone())
            .collect();
        Ok(Runs {
            quick,
            seeds,
            results,
            rows,
            what_if_runs,
            calibration_runs,
        })
    }

    /// KO-6 to KO-9 beside K&O's figures.
    fn checks(ctx: &mut Context, runs: &Runs) {
        let n = runs.seeds.len();
        let plt = runs.feb_plt_entries();
        let (oct9, feb9, may9) = (
            runs.avg(Period::Oct1974, 9, thr),
            runs.avg(Period::Feb1975, 9, thr),
            runs.avg(Period::May1975, 9, thr),
        );
        ctx.check(
            "KO-7 long paths",
            &format!(
                "Feb 1975 / Oct 1974 average throughput, 9 hops, mean of {n} seeds (Feb {}, Oct {})",
                runs.note(Period::Feb1975, 9),
                runs.note(Period::Oct1974, 9)
            ),
            "ratio",
            "K&O §VII: \"almost 50 percent\" lower on long paths",
            ko7_target(),
            Value::Num(feb9 / oct9),
        );
        let w316 = runs.avg(Period::Feb1975, 9, |r| r.processing_316_wait_mean_ms);
        let w516 = runs.avg(Period::Feb1975, 9, |r| r.processing_516_wait_mean_ms);
        ctx.check(
            "KO-FIG7 316 queue",
            "mean wait in a 316's processing queue, Feb 1975, 9-hop runs, every 316",
            "ms",
            "K&O §VII: \"about 10 ms\"",
            ko7_316_target(),
            Value::Num(w316),
        );
        ctx.check(
            "KO-FIG7 316/516",
            &format!("316 / 516 mean processing-queue wait ({w316:.2} / {w516:.2} ms)"),
            "ratio",
            "K&O §VII: \"more than 5 times\"",
            KO7_316_OVER_516,
            Value::Num(w316 / w516),
        );
        ctx.check(
            "KO-FIG7 phasing",
            "PLT entries held by RFNMs waiting at the destination for an ALL, Feb 1975, 9 hops (mean over the run)",
            &format!("of {plt}"),
            "K&O §VII, Fig. 7: \"most of the PLT's are owned by RFNM's\" (at least half)",
            Target::AtLeast {
                value: f64::from(plt) / 2.0,
            },
            Value::Num(runs.avg(Period::Feb1975, 9, |r| r.plt_rfnms_waiting_mean)),
        );
        if let Some((r, _)) = runs
            .results
            .iter()
            .find(|(r, o)| o.is_some() && r.period == Period::Feb1975 && r.case == "curve")
        {
            ctx.check(
                "KO-FIG7 time slice",
                &format!(
                    "time slice at {} s, Feb 1975, 9 hops, first seed (one instant, as the figure)",
                    slice_at(runs.quick).trim_end_matches('s')
                ),
                "",
                "K&O Fig. 7: PLTs of messages i−1, i and RFNMs i−5..i−2; message i+1 \"has its ALL\" but no PLT",
                ko7_fig7_target(),
                Value::Text(r.fig7.clone()),
            );
        }
        let vdh = runs.case_mean("VDH destination, Feb 1975", thr);
        let plain = runs.case_mean(ABLATIONS[0].0, thr);
        ctx.check(
            "KO-8 VDH",
            &format!(
                "ordinary / VDH destination throughput, 9 hops, Feb 1975 ({plain:.1} / {vdh:.1} kbit/s)"
            ),
            "ratio",
            "K&O §VII: \"degradations by a factor of 3\"",
            Target::Rel {
                value: 3.0,
                rel: 0.2,
            },
            Value::Num(plain / vdh),
        );
        ctx.check(
            "KO-9 9 hops",
            &format!(
                "May 1975 average throughput, 9 hops, mean of {n} seeds ({})",
                runs.note(Period::May1975, 9)
            ),
            "kbit/s",
            "K&O Fig. 9 and abstract",
            ko9_target(),
            Value::Num(may9),
        );
        ctx.check(
            "KO-9 below Oct 1974",
            "May 1975 / Oct 1974 average throughput, 9 hops",
            "ratio",
            "K&O §VII: \"inferior to that in October 1974\"",
            KO9_BELOW_OCT,
            Value::Num(may9 / oct9),
        );
        let long = |p: Period| mean((9..=12).map(|h| runs.avg(p, h, thr)));
        ctx.check(
            "KO-9 above Feb 1975",
            "May 1975 / Feb 1975 average throughput, mean of 9–12 hops",
            "ratio",
            "K&O §VII: \"far better than ... February 1975\"",
            KO9_ABOVE_FEB,
            Value::Num(long(Period::May1975) / long(Period::Feb1975)),
        );
    }

    /// The 1975 calibration (module doc): the step table, the fit on KO-7 long paths alone,
    /// and KO-9 scored out of sample under the fitted step.
    fn calibration(ctx: &mut Context, runs: &Runs) -> Result<()> {
        let steps = calibration_steps(runs);
        let fit = fit_step(&steps);
        let steps: Vec<CalibrationRow> = steps
            .into_iter()
            .map(|s| CalibrationRow {
                chosen: s.held_messages == fit.held_messages,
                ..s
            })
            .collect();
        ctx.csv("calibration_1975", &steps)?;
        let n = runs.seeds.len();
        let k = fit.held_messages;
        let what = format!(
            "other hosts hold room for {k} of the destination's 4 messages in 1975 \
             (reassembly_buffers = {}), fitted on KO-7 long paths alone",
            fit.reassembly_buffers
        );
        ctx.check(
            "KO-7 long paths, calibrated",
            &format!(
                "Feb 1975 / Oct 1974 average throughput, 9 hops, mean of {n} seeds, {k} of 4 messages' room held by others"
            ),
            "ratio",
            "K&O §VII: \"almost 50 percent\" lower on long paths",
            ko7_target(),
            Value::Num(fit.feb_over_oct_9hops),
        )
        .in_sample(&format!("the fit row of the 1975 calibration: {what}"));
        let why = format!("calibrated on KO-7 long paths: {what}");
        ctx.check(
            "KO-9 9 hops, calibrated",
            &format!(
                "May 1975 average throughput, 9 hops, mean of {n} seeds, {k} of 4 messages' room held by others"
            ),
            "kbit/s",
            "K&O Fig. 9 and abstract",
            ko9_target(),
            Value::Num(fit.may_9hops_kbps),
        )
        .calibrated(&why);
        ctx.check(
            "KO-9 below Oct 1974, calibrated",
            "May 1975 (calibrated) / Oct 1974 average throughput, 9 hops",
            "ratio",
            "K&O §VII: \"inferior to that in October 1974\"",
            KO9_BELOW_OCT,
            Value::Num(fit.may_over_oct_9hops),
        )
        .calibrated(&why);
        ctx.check(
            "KO-9 above Feb 1975, calibrated",
            "May 1975 / Feb 1975 average throughput, both calibrated, mean of 9–12 hops",
            "ratio",
            "K&O §VII: \"far better than ... February 1975\"",
            KO9_ABOVE_FEB,
            Value::Num(fit.may_over_feb_9_12hops),
        )
        .calibrated(&why);
        let profile_k = nmc_imp::params::CALIBRATED_1975_HELD_MESSAGES;
        let agrees = if profile_k == k {
            "this run's fit agrees".to_string()
        } else {
            format!(
                "this run's fit chose k = {k} instead (another seed or length: the profiles were fitted on the full run, seed 1)"
            )
        };
        let table: Vec<String> = steps
            .iter()
            .map(|s| {
                format!(
                    "k = {} ({} buffers): Feb/Oct {:.3}, May {:.1} kbit/s, May/Oct {:.3}, May/Feb {:.3}",
                    s.held_messages,
                    s.reassembly_buffers,
                    s.feb_over_oct_9hops,
                    s.may_9hops_kbps,
                    s.may_over_oct_9hops,
                    s.may_over_feb_9_12hops
                )
            })
            .collect();
        ctx.note(format!(
            "The 1975 calibration (issue 56; the split was stated in the experiment's doc before the run): one \
             constant no source gives, the reassembly room other hosts held at the destination IMP, as a step of k \
             of the 4 messages the 34 buffers hold (1975 runs only; October 1974 as configured). Fitted on KO-7 \
             long paths alone (Feb/Oct at 9 hops nearest {KO7_MIDDLE:.3}, the middle of its band): k = {k}, \
             reassembly_buffers = {}. Tested on KO-9 (May at 9 hops, May/Oct, May/Feb over 9–12 hops), which the \
             fit never reads; they give KO-9 its calibrated verdict and never change the sourced one. Plausible by \
             K&O §III (the space is shared with every other host sending to that IMP) and §VII (the 1975 counts \
             give the total, not what others held); no source gives k. The profiles v3-1975-02-calibrated and \
             v3-1975-05-calibrated hold k = {profile_k}: {agrees}. The step table (calibration_1975.csv; mean over \
             seeds): {}.",
            fit.reassembly_buffers,
            table.join("; ")
        ));
        Ok(())
    }

    /// Fig. 9, the PLT's holders and the RFNMs' waits against distance, and curve.csv.
    fn figures(ctx: &mut Context, runs: &Runs) -> Result<()> {
        // Both 1975 profiles have the same PLT (K&O §VI); the label reads February's.
        let plt = runs.feb_plt_entries();
        // The mechanism, in numbers and pictures.
        ctx.csv("curve", &runs.rows)?;
        let series = |p: Period, f: fn(&Row) -> f64| -> Vec<(f64, f64)> {
            (1..=p.hops())
                .map(|h| (h as f64, runs.avg(p, h, f)))
                .collect()
        };
        let mut fig9 = Chart::new(
            "Throughput against distance, 1974 and 1975 (K&O Fig. 9)",
            "distance (hops)",
            "throughput (kbit/s)",
        )
        .with(Series::published(
            "K&O May 1975 average, 9 hops (27)",
            vec![(9.0, 27.0)],
        ))
        .with(Series::published(
            "K&O Oct 1974 average (37–38.5 at 1–5 hops; 30 at 9)",
            (1..=5)
                .map(|h| (h as f64, 37.75))
                .chain([(9.0, 30.0)])
                .collect(),
        ))
        // Issue 31: KO-7's claim on the figure it is about, so its miss shows here too: Feb
        // 1975 "almost 50 %" below October 1974 on long paths, read as KO-7's target (0.45–0.60
        // of October's 30 kbit/s at 9 hops).
        .with({
            let (lo, hi) = KO7_RATIO;
            Series::published(
                format!(
                    "K&O Feb 1975, long paths: almost 50 % below Oct 1974 ({lo}–{hi} × 30 at 9 hops)"
                ),
                vec![(9.0, lo * 30.0), (9.0, hi * 30.0)],
            )
            .with_marker(Marker::TriangleDown)
        })
        .with(Series::new(
            "nmc Oct 1974 (A)",
            SeriesStyle::LinePoints,
            series(Period::Oct1974, thr),
        ))
        .with(Series::new(
            "nmc Feb 1975, before the fix",
            SeriesStyle::LinePoints,
            series(Period::Feb1975, thr),
        ))
        .with(Series::new(
            "nmc May 1975 average (A'')",
            SeriesStyle::LinePoints,
            series(Period::May1975, thr),
        ))
        .with(Series::new(
            "nmc May 1975 best 150 (B'')",
            SeriesStyle::LinePoints,
            series(Period::May1975, |r| r.best150_kbps),
        ));
        fig9.y_range = Some(0.0..50.0);
        ctx.plot(
            "fig9-throughput",
            "Average throughput against hops: October 1974 (version 2, June 1974 map), February 1975 (version 3 before BBN's fix) and May 1975 (after it, with the best 150 messages), July 1975 map, with K&O's published values.",
            &fig9,
        )?;
        let holders = Chart::new(
            "PLT entries of the source IMP by holder (K&O Fig. 7), mean over the run",
            "distance (hops)",
            format!("PLT entries held, mean (count, of {plt})"),
        )
        .with(Series::new(
            "Feb 1975: RFNMs waiting for an ALL",
            SeriesStyle::LinePoints,
            series(Period::Feb1975, |r| r.plt_rfnms_waiting_mean),
        ))
        .with(Series::new(
            "Feb 1975: REQALLs",
            SeriesStyle::LinePoints,
            series(Period::Feb1975, |r| r.plt_reqalls_mean),
        ))
        .with(Series::new(
            "May 1975: RFNMs waiting for an ALL",
            SeriesStyle::LinePoints,
            series(Period::May1975, |r| r.plt_rfnms_waiting_mean),
        ))
        .with(Series::new(
            "May 1975: REQALLs",
            SeriesStyle::LinePoints,
            series(Period::May1975, |r| r.plt_reqalls_mean),
        ));
        ctx.plot(
            "plt-holders",
            "Who holds the six PLT entries: before the fix RFNMs wait at the destination for piggy-backed ALLs (phasing); after it they go at once and REQALLs take their place.",
            &holders,
        )?;
        let waits = Chart::new(
            "How long a RFNM waits at the destination IMP",
            "distance (hops)",
            "mean wait of a RFNM (ms)",
        )
        .with(Series::new(
            "Oct 1974",
            SeriesStyle::LinePoints,
            series(Period::Oct1974, |r| r.rfnm_wait_at_destination_mean_ms),
        ))
        .with(Series::new(
            "Feb 1975",
            SeriesStyle::LinePoints,
            series(Period::Feb1975, |r| r.rfnm_wait_at_destination_mean_ms),
        ))
        .with(Series::new(
            "May 1975",
            SeriesStyle::LinePoints,
            series(Period::May1975, |r| r.rfnm_wait_at_destination_mean_ms),
        ));
        ctx.plot(
            "rfnm-wait",
            "Mean time from a RFNM's making (packet 1 at the host) to its sending, by hops.",
            &waits,
        )?;
        Ok(())
    }

    /// The first seed's 9-hop runs of each period (and to a VDH destination): time slices,
    /// occupancy, message i's timeline, the PLT's holders over time.
    fn nine_hop_pictures(ctx: &mut Context, runs: &Runs) -> Result<()> {
        for (r, o) in &runs.results {
            let Some(o) = o else { continue };
            if r.case == ABLATIONS[4].0 {
                if let Some(d) = slice_diagram(o, "Feb 1975, VDH destination, 9 hops (K&O Fig. 8)")
                {
                    ctx.svg("slice-vdh-feb1975-9hops", "Time slice to a VDH destination before the fix (compare K&O Fig. 8): messages (rectangles), RFNMs (ovals), REQALLs (diamonds), each with the PLT entry and allocation it holds.", d.to_svg())?;
                }
                continue;
            }
            if let Some(d) = slice_diagram(o, &format!("{:?}, 9 hops (K&O Figs. 2, 7)", r.period)) {
                let name = format!("{:?}", r.period).to_lowercase();
                ctx.svg(
                    &format!("slice-{name}-9hops"),
                    &format!("Time slice of the pumped pair, {:?}, 9 hops (compare K&O Fig. 2 for version 2, Fig. 7 for phasing before the fix): messages (rectangles), RFNMs (ovals), REQALLs (diamonds), ALLs (dots), each with the PLT entry and allocation it holds.", r.period),
                    d.to_svg(),
                )?;
            }
            let name = match r.period {
                Period::Oct1974 => "oct1974",
                Period::Feb1975 => "feb1975",
                Period::May1975 => "may1975",
            };
            ctx.csv(&format!("occupancy_{name}_9hops"), &o.occupancy)?;
            if r.period == Period::Feb1975 {
                let t = timeline(o);
                if !t.is_empty() {
                    let mut chart = Chart::new(
                        "The life of message i, Feb 1975, 9 hops (K&O Fig. 7, times a–h)",
                        "time after a (ms)",
                        "where",
                    )
                    .y_axis(Axis::Categories(vec![
                        (0.0, "destination IMP".into()),
                        (1.0, "source IMP".into()),
                    ]));
                    for p in &t {
                        let y = if p.at == "source IMP" { 1.0 } else { 0.0 };
                        chart = chart.with(Series::new(
                            format!("{}: {}", p.point, p.event),
                            SeriesStyle::Points,
                            vec![(p.t_ms, y)],
                        ));
                    }
                    chart.y_range = Some(-0.5..1.5);
                    ctx.plot(
                        "timeline-feb1975-9hops",
                        "One message's timeline before the fix, lettered as K&O's Fig. 7: it waits at b for a PLT entry until c, and its RFNM waits at the destination from f to g.",
                        &chart,
                    )?;
                    ctx.csv("timeline_feb1975_9hops", &t)?;
                }
            }
            if r.period != Period::Oct1974 {
                ctx.plot(
                    &format!("plt-{name}-9hops"),
                    &format!(
                        "{:?} at 9 hops, first 30 s: the pair's PLT entries by holder.",
                        r.period
                    ),
                    &plt_chart(o, &format!("PLT entries by holder, 9 hops, {name}"), 30.0),
                )?;
            }
        }
        Ok(())
    }

    /// The ablations' note and the what-if table.
    fn ablations_and_what_ifs(ctx: &mut Context, runs: &Runs) -> Result<()> {
        let n = runs.seeds.len();
        ctx.note(format!(
            "Ablations at 9 hops ({}), mean of {n} seeds: {}.",
            KO_V3_DESTINATIONS[8],
            ABLATIONS
                .iter()
                .map(|(c, _, _)| format!(
                    "{c}: {:.1} kbit/s, {:.2} PLT entries held by waiting RFNMs, {:.0} superfluous REQALLs",
                    runs.case_mean(c, thr),
                    runs.case_mean(c, |r| r.plt_rfnms_waiting_mean),
                    runs.case_mean(c, |r| r.superfluous_reqalls)
                ))
                .collect::<Vec<_>>()
                .join("; ")
        ));
        let (what_ifs, missing) = what_if_table(&runs.rows, &runs.what_if_runs, runs.seeds[0])?;
        ctx.csv("what_if_9hops", &what_ifs)?;
        ctx.note(what_if_note(&what_ifs, &missing));
        Ok(())
    }
}

/// The what-if table: the run as configured (each period's first-seed 9-hop curve run) and
/// each case of [`WHAT_IFS`], with the rows that miss as configured and come within under it.
fn what_if_table(
    curve: &[Row],
    runs: &[Row],
    seed: u64,
) -> Result<(Vec<WhatIfRow>, Vec<&'static str>)> {
    let find = |rows: &[Row], case: &str, p: Period| -> Result<Row> {
        rows.iter()
            .find(|r| r.case == case && r.period == p && r.hops == 9 && r.seed == seed)
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("ko-v3-throughput: no 9-hop {case} run for {p:?}"))
    };
    let three = |rows: &[Row], case: &str| -> Result<[Row; 3]> {
        Ok([
            find(rows, case, Period::Oct1974)?,
            find(rows, case, Period::Feb1975)?,
            find(rows, case, Period::May1975)?,
        ])
    };
    let base = three(curve, "curve")?;
    let missing: Vec<&str> = what_if_rows(&base[0], &base[1], &base[2])
        .into_iter()
        .filter(|(_, t, v)| !t.holds(v))
        .map(|(id, _, _)| id)
        .collect();
    let mut cases = vec![("as configured", "", base)];
    for (case, input, _) in WHAT_IFS {
        cases.push((case, input, three(runs, case)?));
    }
    let base_oct = cases[0].2[0].clone();
    let table = cases
        .into_iter()
        .map(|(case, input, [oct, feb, may])| {
            let closed = |oct: &Row| -> Vec<&'static str> {
                what_if_rows(oct, &feb, &may)
                    .into_iter()
                    .filter(|(id, t, v)| missing.contains(id) && t.holds(v))
                    .map(|(id, _, _)| id)
                    .collect()
            };
            let within = closed(&oct);
            let within_1975 = closed(&base_oct);
            WhatIfRow {
                case: case.to_string(),
                input,
                oct_kbps: oct.throughput_kbps,
                feb_kbps: feb.throughput_kbps,
                may_kbps: may.throughput_kbps,
                feb_over_oct: feb.throughput_kbps / oct.throughput_kbps,
                may_over_oct: may.throughput_kbps / oct.throughput_kbps,
                may_over_feb: may.throughput_kbps / feb.throughput_kbps,
                feb_316_wait_ms: feb.processing_316_wait_mean_ms,
                feb_516_wait_ms: feb.processing_516_wait_mean_ms,
                feb_plt_rfnms_waiting: feb.plt_rfnms_waiting_mean,
                feb_plt_messages: feb.plt_messages_mean,
                oct_plt_messages: oct.plt_messages_mean,
                rows_within: within,
                rows_within_1975_only: within_1975,
            }
        })
        .collect();
    Ok((table, missing))
}

/// For each row that misses as configured (first seed, 9 hops): the what-ifs under which it
/// would be within, and the input each stands for, whose source is missing.
fn what_if_note(table: &[WhatIfRow], missing: &[&str]) -> String {
    let Some((base, cases)) = table.split_first() else {
        return String::new();
    };
    let fmt_case = |r: &WhatIfRow| {
        format!(
            "{}: Oct {:.1}, Feb {:.1}, May {:.1} kbit/s (Feb/Oct {:.2}, May/Oct {:.2}, May/Feb {:.2}), a 316's queue {:.1} ms",
            r.case,
            r.oct_kbps,
            r.feb_kbps,
            r.may_kbps,
            r.feb_over_oct,
            r.may_over_oct,
            r.may_over_feb,
            r.feb_316_wait_ms
        )
    };
    let closes: Vec<String> = missing
        .iter()
        .map(|id| {
            let by: Vec<String> = cases
                .iter()
                .filter_map(|r| {
                    let when = match (
                        r.rows_within.contains(id),
                        r.rows_within_1975_only.contains(id),
                    ) {
                        (true, true) => "every period, or 1975 only",
                        (true, false) => "every period",
                        (false, true) => "1975 only",
                        (false, false) => return None,
                    };
                    Some(format!("{} [{}; {when}]", r.case, r.input))
                })
                .collect();
            if by.is_empty() {
                format!("{id}: none")
            } else {
                format!("{id}: {}", by.join(", "))
            }
        })
        .collect();
    let (lo, hi) = spread(
        table
            .iter()
            .map(|r| r.feb_plt_messages / r.oct_plt_messages),
    );
    format!(
        "Which input would close the rows that miss (what_if_9hops.csv: 9 hops, first seed, each case run for all three \
         periods, and read both as a change to every period and as a change between October 1974 and 1975 alone, \
         October as configured; no case has a source and no row uses one). As configured: Oct {:.1}, Feb {:.1}, May {:.1} kbit/s, a \
         316's queue {:.1} ms. {}. Where the window binds, throughput follows the messages in flight: February's \
         phasing leaves {:.2} of the six PLT entries to messages against October's {:.2} (× {:.2}; × {lo:.2}–{hi:.2} \
         over the cases), where K&O's Fig. 7 shows 2 of 6 against a window of 4. The rows that miss as configured, and the cases that bring each within its stated \
         tolerance, with the input in brackets (KO-9 above Feb 1975 read at 9 hops alone): {}. The inputs, and the \
         source missing for each: {}.",
        base.oct_kbps,
        base.feb_kbps,
        base.may_kbps,
        base.feb_316_wait_ms,
        cases.iter().map(fmt_case).collect::<Vec<_>>().join("; "),
        base.feb_plt_messages,
        base.oct_plt_messages,
        base.feb_plt_messages / base.oct_plt_messages,
        if closes.is_empty() {
            "none".to_string()
        } else {
            closes.join("; ")
        },
        INPUTS
            .iter()
            .map(|(k, v)| format!("[{k}] {v}"))
            .collect::<Vec<_>>()
            .join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 56: the 1975 calibration chooses its step on KO-7 long paths alone: the rows it
    /// is tested on (KO-9) cannot move the choice; a tie goes to the smaller step; a step that
    /// did not run (NaN) is never chosen.
    #[test]
    fn the_calibration_fits_on_ko7_alone() {
        let step = |k: u32, feb_over_oct: f64, may: f64| CalibrationRow {
            held_messages: k,
            reassembly_buffers: calibration_buffers(k),
            feb_over_oct_9hops: feb_over_oct,
            feb_9hops_kbps: f64::NAN,
            may_9hops_kbps: may,
            may_over_oct_9hops: may / 35.0,
            may_over_feb_9_12hops: 1.3,
            chosen: false,
        };
        let steps = [
            step(0, 1.03, 27.0),
            step(1, 0.78, 27.0),
            step(2, 0.56, 10.0),
            step(3, 0.36, 27.0),
        ];
        assert_eq!(fit_step(&steps).held_messages, 2, "nearest 0.525");
        assert_eq!(
            [0, 1, 2, 3].map(calibration_buffers),
            [34, 26, 18, 10],
            "K&O §VII's 34 buffers less 8 a message"
        );
        let tie = [step(0, 0.525 + 0.1, 0.0), step(1, 0.525 - 0.1, 0.0)];
        assert_eq!(fit_step(&tie).held_messages, 0);
        let nan = [step(0, 1.0, 0.0), step(1, f64::NAN, 0.0)];
        assert_eq!(fit_step(&nan).held_messages, 0);
    }

    fn row(period: Period, case: &str, kbps: f64) -> Row {
        Row {
            period,
            case: case.into(),
            seed: 1,
            hops: 9,
            destination: period.destination(9).into(),
            throughput_kbps: kbps,
            best150_kbps: kbps,
            rtt_mean_ms: 1000.0,
            messages: 100.0,
            plt_entries_mean: 6.0,
            plt_messages_mean: 3.0,
            plt_reqalls_mean: 0.0,
            plt_rfnms_waiting_mean: 3.0,
            message_numbers_mean: 4.0,
            reqalls: 0.0,
            superfluous_reqalls: 0.0,
            rfnms_with_all_fraction: 1.0,
            rfnms_not_piggybacked: 0.0,
            rfnm_timeouts: 0.0,
            rfnm_wait_at_destination_mean_ms: 0.0,
            rfnm_wait_at_destination_max_ms: 0.0,
            blocks_created: 0.0,
            processing_316_wait_mean_ms: 0.4,
            processing_516_wait_mean_ms: 0.14,
            fig7: "PLT: 3 RFNM waiting, 3 MSG in flight; next MSG has ALL, no PLT".into(),
        }
    }

    /// A what-if is scored on the rows' own targets: a case whose May run gives 27 kbit/s
    /// closes KO-9; one that halves February only against October as configured closes KO-7
    /// in its 1975-only reading, not in its every-period one; a row within as configured is
    /// never listed.
    #[test]
    fn what_ifs_name_the_rows_they_would_close() {
        let (oct, feb, may) = (Period::Oct1974, Period::Feb1975, Period::May1975);
        let curve = vec![
            row(oct, "curve", 35.0),
            row(feb, "curve", 35.0),
            row(may, "curve", 30.0), // May/Oct 0.86: "below Oct" holds as configured.
        ];
        let (a, b) = (WHAT_IFS[0].0, WHAT_IFS[1].0);
        let mut runs = vec![
            row(oct, a, 35.0),
            row(feb, a, 35.0),
            row(may, a, 27.0),
            row(oct, b, 20.0),
            row(feb, b, 18.0),
            row(may, b, 31.0),
        ];
        for (c, _, _) in &WHAT_IFS[2..] {
            runs.extend([row(oct, c, 35.0), row(feb, c, 35.0), row(may, c, 37.0)]);
        }
        let (table, missing) = what_if_table(&curve, &runs, 1).unwrap();
        assert!(missing.contains(&"KO-7 long paths") && missing.contains(&"KO-9 9 hops"));
        assert!(!missing.contains(&"KO-9 below Oct 1974"));
        assert_eq!(table[0].case, "as configured");
        assert!(table[0].rows_within.is_empty());
        assert!(table[1].rows_within.contains(&"KO-9 9 hops"));
        // Feb 18 / Oct 20 = 0.9 in every period; 18 / 35 = 0.51 against October as configured.
        assert!(!table[2].rows_within.contains(&"KO-7 long paths"));
        assert!(table[2].rows_within_1975_only.contains(&"KO-7 long paths"));
        let note = what_if_note(&table, &missing);
        assert!(note.contains(&format!("KO-9 9 hops: {a} [load; every period")));
        assert!(note.contains(&format!("KO-7 long paths: {b} [latency; 1975 only]")));
        assert!(!note.contains("KO-9 below Oct 1974:"));
    }
}
