//! `rfc889-paths`: RFC 889 §2 (Mills, Dec 1983) on the table's paths that do not cross the
//! ARPANET or MILNET, from path models with queues and a satellite channel (`nmc-internet`'s
//! gateway and SATNET hops), and the simulated traces R889-3 replays (see `r889-estimators`).
//!
//! **R889-2, paths that do not cross the ARPANET/MILNET** ("NTA to SATNET hosts"): TANUM,
//! ETAM, GOONY, each a scenario file naming its hops (`scenarios/rfc889/{tanum,etam,goony}.toml`)
//! with every parameter's source or the reason for the choice. Rows, with tolerances stated
//! here before any run and never widened:
//! - delay at 40 and at 256 octets (ms), **±15 %** of the table (a path with random delays: the
//!   satellite channel's frame wait and contention, the gateway's bursts);
//! - the rate Δbits/Δdelay (bit/s), **±25 %** (a slope, noisier than either delay);
//! - **the split at 126 octets absent**: the two lines split at 126 octets, fitted by the same
//!   code as `nmc echo probe` (`nmc_probe::analysis::fit_all`), gain nothing significant over
//!   one line — the F statistic of two lines against one (2 and n−4 degrees of freedom) is at
//!   most **4.61**, the 1 % point of F(2, ∞). Nothing in these models depends on length other
//!   than linearly, so this row holds by construction (a 1 % chance of failing by noise): it is
//!   a sanity bound, not evidence (`R889-2 <ID> no split`). The split *present* where the path
//!   crosses the ARPANET/MILNET is `rfc889-arpanet`'s, through the IMP model.
//!
//! The tolerances differ from `rfc889-arpanet`'s ±10 % on purpose, stated before these rows were
//! first run: these paths' delays are random (a satellite channel's frame wait and contention,
//! a gateway's bursts) where the ARPANET rows' are regression lines through a subnet whose
//! 512-volley fits vary little from seed to seed.
//!
//! TANUM's echo host turnaround (`far_host`) is estimated from the TANUM row itself (see
//! `tanum.toml`), so TANUM's delay and rate rows restate an input; ETAM and GOONY cross the same
//! parts and add SATNET, whose parameters are from public descriptions or are stated choices,
//! and are the test. GOONY's model differs from ETAM's only in the far station's name: the
//! sources give nothing that tells the two channel echoes apart.
//!
//! Rows of the table that cross the ARPANET or MILNET are `rfc889-arpanet`'s.

use crate::registry::{Context, Experiment};
use anyhow::{Result, anyhow};
use nmc_internet::{InternetScenario, columns, fits, run};
use nmc_probe::analysis::{RFC889_HEADER, Rfc889Cells, rfc889_row};
use nmc_report::{Target, Value};
use std::fmt::Write as _;

/// One path of RFC 889's table modelled without the ARPANET: Host ID, its scenario, the
/// published delays at 40 and 256 octets (ms) and rate (bit/s) — targets only.
pub(crate) struct PathRow {
    pub id: &'static str,
    pub file: &'static str,
    pub text: &'static str,
    pub comment: &'static str,
    /// `(d40, d256, rate)` from RFC 889 §2's table, if the path has a row there.
    pub published: Option<(f64, f64, f64)>,
    /// Why the row is not judged as emergent, if it is not.
    pub input: Option<&'static str>,
    /// The RFC 889 §3 Host ID of the same path, for R889-3.
    pub sec3: String,
}

macro_rules! path {
    ($id:expr, $f:expr, $c:expr, $p:expr, $input:expr, $s3:expr) => {
        PathRow {
            id: $id,
            file: concat!("scenarios/rfc889/", $f, ".toml"),
            text: include_str!(concat!("../../../../scenarios/rfc889/", $f, ".toml")),
            comment: $c,
            published: $p,
            input: $input,
            sec3: $s3.to_string(),
        }
    };
}

const TANUM_INPUT: &str =
    "the echo host's turnaround (far_host) is estimated from this row (tanum.toml)";

/// The R889-2 paths ("NTA to SATNET hosts", RFC 889 §2).
pub(crate) fn r889_2_paths() -> Vec<PathRow> {
    vec![
        path!(
            "TANUM",
            "tanum",
            "9600 bps Tanum line",
            Some((107.0, 368.0, 6625.0)),
            Some(TANUM_INPUT),
            "TANUM"
        ),
        path!(
            "ETAM",
            "etam",
            "Etam channel echo",
            Some((964.0, 1274.0, 5576.0)),
            None,
            "ETAM"
        ),
        path!(
            "GOONY",
            "goony",
            "Goonhilly channel echo",
            Some((972.0, 1256.0, 6082.0)),
            None,
            "GOONY"
        ),
    ]
}

/// The paths whose simulated traces R889-3 replays: FOE with its multiplexor's other channels
/// (`foe-mux.toml`; R889-1 judges `foe.toml`), the three NTA paths, and the paths across the
/// ARPANET through the IMP model (judged against §2 by `rfc889-arpanet`), each beside its §3
/// row: ISID-L is §3's "ISID" (random lengths, low activity), ISID-H its "ISID *" (high).
pub(crate) fn r889_3_paths() -> Vec<PathRow> {
    let mut v = vec![path!(
        "FOE",
        "foe-mux",
        "9600/14.4K stat mux, with the mux's other channels",
        None,
        None,
        "FOE"
    )];
    v.extend(r889_2_paths());
    v.extend(super::rfc889_arpanet::rows().into_iter().map(|r| PathRow {
        id: r.id,
        file: r.file,
        text: r.text,
        comment: r.comment,
        published: None,
        input: None,
        sec3: super::rfc889_arpanet::sec3_id(r.id),
    }));
    v
}

/// Delay tolerance of R889-2's modelled paths, stated before running.
pub const DELAY_TOLERANCE: f64 = 0.15;
/// Rate tolerance of R889-2's modelled paths, stated before running.
pub const RATE_TOLERANCE: f64 = 0.25;
/// Largest F statistic (two lines split at 126 octets against one) for "no split": the 1 %
/// point of F(2, ∞).
pub const SPLIT_ABSENT_MAX_F: f64 = 4.61;

/// Loads a path's scenario.
pub(crate) fn load(p: &PathRow) -> Result<InternetScenario> {
    Ok(nmc_scenario::load(p.file, p.text, &[])?)
}

#[derive(serde::Serialize)]
struct Result2 {
    host: &'static str,
    comment: &'static str,
    judged: bool,
    ours_delay_40_ms: f64,
    ours_delay_256_ms: f64,
    ours_rate_bps: f64,
    published_delay_40_ms: f64,
    published_delay_256_ms: f64,
    published_rate_bps: f64,
    split_126_f: f64,
    split_126_sse_reduction: f64,
    answered: usize,
    lost: usize,
}

/// The `rfc889-paths` experiment: RFC 889 §2's delay against length on the NTA–SATNET paths, from
/// models with queues and a satellite channel (R889-2), and the traces R889-3 replays.
pub struct Rfc889Paths;

/// One R889-2 path: run, fitted one line and two lines split at 126 octets, its rows (delays,
/// rate, no split), its chart and volleys; its lines of the side-by-side `table` and of RFC
/// 889's `layout`.
fn path(
    ctx: &mut Context,
    p: &PathRow,
    table: &mut String,
    layout: &mut String,
) -> Result<Result2> {
    let s = load(p)?;
    let seed = s.seed.unwrap_or(ctx.seed);
    let out = run(&s, seed)?;
    let f = fits(&out, Some(126));
    let line = f
        .one_line
        .ok_or_else(|| anyhow!("{}: too few answered volleys to fit", p.id))?;
    let (d40, d256, rate) = columns(&line, 40.0, 256.0);
    let split = f
        .split
        .ok_or_else(|| anyhow!("{}: too few volleys either side of 126 octets", p.id))?;
    let (pd40, pd256, prate) = p.published.expect("R889-2 paths have a row");
    let lost = out.volleys.iter().filter(|v| v.lost).count();
    writeln!(
        table,
        "{:<9} {:>9.0} {:>6.0} {:>8.0} {:>6.2} {:>4} | {:>11.0} {:>6.0} {:>8.0}     {}{}",
        p.id,
        d40,
        d256,
        rate,
        split.f_statistic,
        lost,
        pd40,
        pd256,
        prate,
        p.comment,
        if p.input.is_some() {
            " (echo turnaround estimated from this row)"
        } else {
            ""
        }
    )?;
    let cells = Rfc889Cells::of(&f, false).expect("one line was fitted");
    writeln!(layout, "{}", rfc889_row(p.id, &cells, "ours"))?;
    let published = Rfc889Cells::One {
        d40: pd40,
        d256: pd256,
        rate: prate,
    };
    writeln!(
        layout,
        "{}",
        rfc889_row("", &published, &format!("RFC 889: {}", p.comment))
    )?;
    super::rfc889_one_line_cells(
        ctx,
        (
            &format!("R889-2 {}", p.id),
            &format!("{} ({})", p.id, p.comment),
        ),
        (pd40, pd256, prate),
        (d40, d256, rate),
        (DELAY_TOLERANCE, RATE_TOLERANCE),
        p.input,
        None,
    );
    ctx.check(
        &format!("R889-2 {} no split", p.id),
        &format!(
            "{}: two lines split at 126 octets against one, F statistic (split absent: at most {SPLIT_ABSENT_MAX_F})",
            p.id
        ),
        "",
        "RFC 889 §2: \"Only one characteristic was assumed for ARPANET-exclusive paths\"; NTA to SATNET rows have one",
        Target::AtMost {
            value: SPLIT_ABSENT_MAX_F,
        },
        Value::Num(split.f_statistic),
    )
    .sanity_bound(
        "nothing in these path models depends on length other than linearly: a split can appear only by chance",
    );
    let answered = nmc_internet::one_way_ms(&out);
    let (s40, s125, _) = columns(&split.short, 40.0, 125.0);
    let (l125, l256, _) = columns(&split.long, 125.0, 256.0);
    let chart = super::rfc889_delay_chart(
        format!("RFC 889 {}: NTA → {} ({})", p.id, p.id, p.comment),
        answered,
        vec![
            ("our fit (one line)", vec![(40.0, d40), (256.0, d256)]),
            (
                "our fit split at 126 (short)",
                vec![(40.0, s40), (125.0, s125)],
            ),
            (
                "our fit split at 126 (long)",
                vec![(125.0, l125), (256.0, l256)],
            ),
        ],
        (
            "RFC 889: delay at 40 and 256 octets",
            vec![(40.0, pd40), (256.0, pd256)],
        ),
    );
    ctx.plot(
        &format!("delay-vs-length-{}", p.id.to_lowercase()),
        &format!(
            "{}: simulated one-way delay against length, our line and our two lines split at 126 octets, and RFC 889's 40- and 256-octet delays (hollow markers).",
            p.id
        ),
        &chart,
    )?;
    ctx.csv(&format!("volleys-{}", p.id.to_lowercase()), &out.records)?;
    Ok(Result2 {
        host: p.id,
        comment: p.comment,
        judged: p.input.is_none(),
        ours_delay_40_ms: d40,
        ours_delay_256_ms: d256,
        ours_rate_bps: rate,
        published_delay_40_ms: pd40,
        published_delay_256_ms: pd256,
        published_rate_bps: prate,
        split_126_f: split.f_statistic,
        split_126_sse_reduction: split.sse_reduction,
        answered: out.volleys.iter().filter(|v| v.rtt.is_some()).count(),
        lost,
    })
}

/// The table, RFC 889's layout, the tolerances and where the other rows are.
fn notes(ctx: &mut Context, table: &str, layout: &str) {
    ctx.note(format!("```\n{table}```"));
    ctx.note(format!(
        "The same in RFC 889's table layout (also printed by `nmc echo probe` for today's paths):\n```\n{layout}```"
    ));
    ctx.note(format!(
        "Tolerances, stated before running: delays ±{:.0} %, rate ±{:.0} %; split at 126 octets absent when F ≤ {SPLIT_ABSENT_MAX_F} (1 % point of F(2, ∞)) — a sanity bound here, since nothing in these models splits. \
         TANUM's delay and rate rows restate an input (the echo host's turnaround is estimated from them). \
         Each path's composition, with sources and choices: scenarios/rfc889/{{tanum,etam,goony}}.toml.",
        DELAY_TOLERANCE * 100.0,
        RATE_TOLERANCE * 100.0
    ));
    ctx.note(format!(
        "Rows across the ARPANET or MILNET, and to SATNET through them, are in \
         `rfc889-arpanet` (through the IMP model: {}), with the rows not modelled yet and why.",
        super::rfc889_arpanet::row_ids().join(", ")
    ));
}

impl Experiment for Rfc889Paths {
    fn id(&self) -> &'static str {
        "rfc889-paths"
    }
    fn title(&self) -> &'static str {
        "RFC 889 §2: delay against length on the NTA–SATNET paths, from models with queues and a satellite channel"
    }
    fn source(&self) -> &'static str {
        "Mills, RFC 889 (Dec 1983) §1–2; SATNET from Kahn (NTC 1979) and Jacobs, Binder & Hoversten (Proc. IEEE 1978)"
    }
    fn chapter(&self) -> &'static str {
        "docs/src/explanation/rfc889.md"
    }
    fn run(&self, ctx: &mut Context) -> Result<()> {
        let paths = r889_2_paths();
        let mut table = String::new();
        writeln!(
            table,
            "RFC 889 §2, NTA to SATNET hosts; one-way ms, bit/s; F = two lines at 126 octets against one\n\
             Host ID   ours: 40    256     Rate     F(126) lost | RFC 889: 40    256     Rate     Comments"
        )?;
        let mut results = Vec::new();
        let mut layout = String::from(RFC889_HEADER);
        for (i, p) in paths.iter().enumerate() {
            ctx.progress(i as f64 / paths.len() as f64);
            results.push(path(ctx, p, &mut table, &mut layout)?);
        }
        ctx.progress(1.0);
        ctx.csv("rfc889-paths", &results)?;
        ctx.text("table.txt", &table)?;
        notes(ctx, &table, &layout);
        Ok(())
    }
}
