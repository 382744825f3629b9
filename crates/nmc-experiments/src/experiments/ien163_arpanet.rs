//! `ien163-arpanet`: IEN 163 (R. G. Jones, UCL, Nov 1980), GGP echo round trips across the
//! ARPANET, minimum and mean, through the IMP model (**IEN163**): the check issue 30 asks for
//! before RFC 889's rows are scored — does the model's subnet give the *typical* delay of the
//! period, or only its floor?
//!
//! IEN 163 sent 1000 GGP echo packets, 4 s apart, from UCL through SATNET and the BBN
//! SATNET/ARPANET gateway to gateways on the ARPANET, and to the BBN gateway itself. The
//! ARPANET part of a round trip is read as the difference of two runs (arithmetic on the published figures, pp. 5–7): to the
//! Bragg gateway minimum 1689 − 1443 = 246 ms and mean 2270 − 1929 = 341 ms; to the SRI PR1
//! gateway 1715 − 1443 = 272 and 2266 − 1929 = 337. The runs were made on different days, so the
//! differences are rough (a minimum of a sum is not the sum of minima).
//!
//! Each path (`scenarios/ien163/*.toml`) is run twice with its seed:
//! * **idle** subnet (the runs were at 4:45–7:07 in the eastern US), scored against the
//!   **minimum**;
//! * under the **one published load figure**, the busiest node of Dec 1985 (Serr; the
//!   background of `scenarios/rfc889/isid-h.toml`, read from that file, calibrated there on
//!   the Feb 1982 map),
//!   scored against the **mean**: a high estimate for 1980, so a mean below IEN 163's says the
//!   model's queues at published load are too short.
//!
//! Tolerance ±15 %, the delay tolerance of `rfc889-paths`. It was chosen after a first run of
//! these paths had been seen (the rows were built and run once before the tolerance was
//! written); the note lists the rows ±20 % would let pass as well (at the time, BRAGG's mean).
//! Rows are emergent: nothing in the model was set from IEN 163.

use crate::registry::{Context, Experiment, Plan};
use anyhow::Result;
use nmc_internet::{HopSpec, InternetScenario, RunOutput, run};
use nmc_report::{Target, Value};
use std::fmt::Write as _;

/// The paths: id, scenario file and text, published minimum and mean round trip (ms, [D]).
const PATHS: [(&str, &str, &str, f64, f64); 2] = [
    (
        "BBN–BRAGG",
        "scenarios/ien163/bbn-bragg.toml",
        include_str!("../../../../scenarios/ien163/bbn-bragg.toml"),
        246.0,
        341.0,
    ),
    (
        "BBN–SRI",
        "scenarios/ien163/bbn-sri.toml",
        include_str!("../../../../scenarios/ien163/bbn-sri.toml"),
        272.0,
        337.0,
    ),
];

/// The rows' tolerance (see the module doc for when it was chosen).
const TOLERANCE: f64 = 0.15;

/// The wider tolerance the note reports beside it, because `TOLERANCE` was chosen after a first
/// run: which rows it alone would let pass.
const WIDER_TOLERANCE: f64 = 0.20;

/// The scenario that carries the one published load figure (Serr, Dec 1985): its subnet's
/// other traffic is the loaded runs' (read from the file, not restated here).
const SERR_LOAD_FILE: (&str, &str) = (
    "scenarios/rfc889/isid-h.toml",
    include_str!("../../../../scenarios/rfc889/isid-h.toml"),
);

/// The other traffic of the first subnet crossing of `s`.
fn subnet_traffic(s: &mut InternetScenario) -> Option<&mut Vec<nmc_imp::spec::TrafficSpec>> {
    s.network.hops.iter_mut().find_map(|h| match h {
        HopSpec::Subnet { traffic, .. } => Some(traffic),
        _ => None,
    })
}

const SOURCE: &str = "R. G. Jones, IEN 163 (UCL, Nov 1980) pp. 5–7: differences of two runs' \
     minima and means";

/// One run's round trips (ms).
#[derive(serde::Serialize)]
struct RunRow {
    path: &'static str,
    load: &'static str,
    route_hops: f64,
    answered: usize,
    min_ms: f64,
    mean_ms: f64,
    max_ms: f64,
    published_min_ms: f64,
    published_mean_ms: f64,
}

fn rtts_ms(out: &RunOutput) -> Vec<f64> {
    out.records
        .iter()
        .filter_map(|v| v.rtt_ns)
        .map(|ns| ns as f64 / 1e6)
        .collect()
}

/// The `ien163-arpanet` experiment: IEN 163's GGP echo round trips across the ARPANET, minimum
/// and mean, through the IMP model (IEN163).
pub struct Ien163Arpanet;

/// One path under one load (`j` 0: idle; 1: Serr's 1985 subnet traffic, `serr`): its round
/// trips, its row (the minimum idle, the mean loaded) and its line of `table`; a row that
/// misses `TOLERANCE` but not `WIDER_TOLERANCE` is named in `only_wider`.
fn path_run(
    ctx: &mut Context,
    (id, file, text, publ_min, publ_mean): (&'static str, &str, &str, f64, f64),
    (j, load): (usize, &'static str),
    serr: &[nmc_imp::spec::TrafficSpec],
    table: &mut String,
    only_wider: &mut Vec<String>,
) -> Result<RunRow> {
    let mut s: InternetScenario = ctx.loader().load(file, text, &[])?;
    if j == 1 {
        *subnet_traffic(&mut s).ok_or_else(|| anyhow::anyhow!("{file}: no subnet hop"))? =
            serr.to_vec();
    }
    let out = run(&s, s.seed.unwrap_or(ctx.seed))?;
    let r = rtts_ms(&out);
    anyhow::ensure!(!r.is_empty(), "{id}: no volley answered");
    let hops = out
        .hop_stat("route_hops_max")
        .first()
        .map_or(f64::NAN, |s| s.1);
    let row = RunRow {
        path: id,
        load,
        route_hops: hops,
        answered: r.len(),
        min_ms: r.iter().copied().fold(f64::INFINITY, f64::min),
        mean_ms: r.iter().sum::<f64>() / r.len() as f64,
        max_ms: r.iter().copied().fold(0.0, f64::max),
        published_min_ms: publ_min,
        published_mean_ms: publ_mean,
    };
    writeln!(
        table,
        "{id:<11} {:<6} {hops:>4}  {:>5.0}  {:>5.0}  {:>5.0}  ({publ_min}, {publ_mean})",
        if j == 0 { "idle" } else { "Serr" },
        row.min_ms,
        row.mean_ms,
        row.max_ms
    )?;
    let (which, publ, ours) = if j == 0 {
        ("minimum", publ_min, row.min_ms)
    } else {
        ("mean", publ_mean, row.mean_ms)
    };
    let row_id = format!("IEN163 {id} {which} RTT");
    if (ours / publ - 1.0).abs() > TOLERANCE && (ours / publ - 1.0).abs() <= WIDER_TOLERANCE {
        only_wider.push(row_id.clone());
    }
    ctx.check(
        &row_id,
        &format!(
            "{id}: GGP echo round trip, gateway to gateway across the ARPANET, {which} \
             ({load} subnet, route of {hops} hops)"
        ),
        "ms",
        SOURCE,
        Target::Rel {
            value: publ,
            rel: TOLERANCE,
        },
        Value::Num(ours),
    );
    Ok(row)
}

/// The table, the spread above the floor by path, and the rows within the wider tolerance.
fn notes(ctx: &mut Context, rows: &[RunRow], table: &str, only_wider: &[String]) {
    let spread: Vec<String> = PATHS
        .iter()
        .map(|(id, _, _, lo, mean)| {
            let loaded = rows.iter().find(|r| r.path == *id && r.load != "idle");
            let idle = rows.iter().find(|r| r.path == *id && r.load == "idle");
            match (idle, loaded) {
                (Some(i), Some(l)) => format!(
                    "{id}: mean − minimum {:.0} ms in IEN 163, {:.0} in the model at Serr's load",
                    mean - lo,
                    l.mean_ms - i.min_ms
                ),
                _ => String::new(),
            }
        })
        .collect();
    ctx.note(format!(
        "```\n{table}```\n{}. The spread above the floor is what queues add (compare \
         RFC 889's ISID-H − ISID-L in `rfc889-arpanet`). Tolerance ±15 %, chosen after a \
         first run; rows that miss it and are within ±20 %: {}. The routes are SPF's over \
         delay on the Dec 1980 map: an idle line reports a routing frame's delay, so SPF \
         may trade hops for propagation (BBN 40 to BRAGG is 9 hops by the fewest).",
        spread.join("; "),
        if only_wider.is_empty() {
            "none".to_string()
        } else {
            only_wider.join(", ")
        }
    ));
}

impl Experiment for Ien163Arpanet {
    fn id(&self) -> &'static str {
        "ien163-arpanet"
    }
    fn title(&self) -> &'static str {
        "IEN 163: GGP echo round trips across the ARPANET of 1980, minimum and mean, through the IMP model"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn chapter(&self) -> &'static str {
        "docs/src/explanation/arpanet-1983.md"
    }
    fn plan(&self) -> Plan {
        Plan::quick(&["traffic.0.volleys=200"])
    }
    fn run(&self, ctx: &mut Context) -> Result<()> {
        let mut rows = Vec::new();
        let mut table = String::from(
            "path        load   hops  min    mean   max    (ms; IEN 163: min, mean)\n",
        );
        let mut serr: InternetScenario =
            nmc_scenario::load(SERR_LOAD_FILE.0, SERR_LOAD_FILE.1, &[])?;
        let serr = subnet_traffic(&mut serr)
            .map(|t| t.clone())
            .ok_or_else(|| anyhow::anyhow!("{}: no subnet hop", SERR_LOAD_FILE.0))?;
        let runs = PATHS.len() * 2;
        let mut only_wider = Vec::new();
        for (i, (id, file, text, publ_min, publ_mean)) in PATHS.into_iter().enumerate() {
            for (j, load) in ["idle", "Serr 1985"].into_iter().enumerate() {
                ctx.progress((2 * i + j) as f64 / runs as f64);
                let path = (id, file, text, publ_min, publ_mean);
                rows.push(path_run(
                    ctx,
                    path,
                    (j, load),
                    &serr,
                    &mut table,
                    &mut only_wider,
                )?);
            }
        }
        ctx.progress(1.0);
        ctx.csv("ien163-arpanet", &rows)?;
        ctx.text("table.txt", &table)?;
        notes(ctx, &rows, &table, &only_wider);
        Ok(())
    }
}
