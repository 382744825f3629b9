//! The RFC 508 procedure on the model: Table I's 176 tests, the host-load fit and prediction,
//! the long tests, and the largest gap-free rate per buffer size. Pure: returns data; the
//! report lives in `nmc-experiments` (`rfc508-realtime`).

use crate::model::{SubnetSet, TestResult, run_test};
use crate::params::Params;
use crate::subnet::SubnetError;
use crate::table1::{self, BUFFERS, Cell, Day, RATES};
use nmc_sim::RngStreams;
use serde::Serialize;

/// The subnet times for each column of Table I.
pub struct Sets(pub Vec<SubnetSet>);

impl Sets {
    pub fn new(p: &Params, seed: u64) -> Result<Sets, SubnetError> {
        Ok(Sets(
            BUFFERS
                .iter()
                .map(|&b| SubnetSet::for_buffer(p, b, seed))
                .collect::<Result<_, _>>()?,
        ))
    }
}

/// Component ids of the random streams: one per (purpose, replicate, test).
fn stream_id(purpose: u64, replicate: u64, test: u64) -> u64 {
    (purpose << 48) | (replicate << 24) | test
}

/// Runs `cells` with `terminals(cell)` On-Line System users; `purpose` separates the streams
/// of different uses (fit, table, long tests) so that they never share draws.
pub fn run_cells(
    p: &Params,
    sets: &Sets,
    cells: &[Cell],
    terminals: &dyn Fn(&Cell) -> u32,
    seed: u64,
    purpose: u64,
    replicate: u64,
) -> Vec<TestResult> {
    let streams = RngStreams::new(seed);
    cells
        .iter()
        .map(|c| {
            let col = BUFFERS.iter().position(|&b| b == c.buffer_bits).expect("column");
            let row = RATES.iter().position(|&r| r == c.rate_bps).expect("row");
            let test = (row * BUFFERS.len() + col) as u64;
            let mut q = p.clone();
            q.host.terminals = terminals(c);
            let mut host = streams.stream(stream_id(purpose, replicate, 2 * test));
            let mut net = streams.stream(stream_id(purpose, replicate, 2 * test + 1));
            run_test(&q, &sets.0[col], c.rate_bps, c.buffer_bits, &mut host, &mut net)
        })
        .collect()
}

/// Whether a test of Table I ran while the On-Line classroom was full: 2/7 before 10:00
/// (RFC 508 §VI).
pub fn classroom_full(c: &Cell) -> bool {
    c.day == Day::Feb7Am && c.minutes() < 600
}

/// The host-load fit on 2/5 and 2/6 and its prediction of 2/7.
#[derive(Clone, Debug, Serialize)]
pub struct Fit {
    /// Background On-Line System terminals in use, fitted on the 2/5 and 2/6 tests.
    pub terminals: u32,
    /// For each candidate: (terminals, mean fraction of fit-set tests with gaps).
    pub curve: Vec<(u32, f64)>,
    /// Published fraction of the 2/5–2/6 tests with gaps (2 of 132).
    pub observed: f64,
    pub replicates: u64,
}

/// Fits the background load: the number of terminals in use (0..=16) whose mean fraction of
/// gapped tests over `replicates` runs of the 2/5 and 2/6 tests is nearest the published one
/// (ties go to fewer terminals). The 2/7 tests are not used.
pub fn fit(p: &Params, sets: &Sets, seed: u64, replicates: u64) -> Fit {
    let fit_set: Vec<Cell> = table1::cells().into_iter().filter(|c| c.day != Day::Feb7Am).collect();
    let observed =
        fit_set.iter().filter(|c| c.gaps.is_some()).count() as f64 / fit_set.len() as f64;
    let mut curve = Vec::new();
    for n in 0..=16u32 {
        let mut gapped = 0usize;
        for r in 0..replicates {
            let res = run_cells(p, sets, &fit_set, &|_| n, seed, 1, r);
            gapped += res.iter().filter(|t| t.gaps.count() > 0).count();
        }
        curve.push((n, gapped as f64 / (fit_set.len() as u64 * replicates) as f64));
    }
    let best = curve
        .iter()
        .min_by(|a, b| (a.1 - observed).abs().total_cmp(&(b.1 - observed).abs()))
        .map(|x| x.0)
        .expect("candidates");
    Fit {
        terminals: best,
        curve,
        observed,
        replicates,
    }
}

/// Terminals in use for a test under the fitted model: 16 while the classroom was full,
/// the fitted background otherwise.
pub fn load_for(fit_terminals: u32) -> impl Fn(&Cell) -> u32 {
    move |c: &Cell| if classroom_full(c) { 16 } else { fit_terminals }
}

/// The largest rate (in `step` bit/s steps, up to `max`) at which one test of `duration_ns`
/// has no gap, with the host answering every request `response_ns` after it is made.
pub fn largest_gap_free_rate(
    p: &Params,
    set: &SubnetSet,
    buffer_bits: u64,
    response_ns: u64,
    seed: u64,
    step: u64,
    max: u64,
) -> u64 {
    let mut q = p.clone();
    q.host.fixed_response_ns = Some(response_ns);
    q.host.terminals = 0;
    let streams = RngStreams::new(seed);
    let ok = |rate: u64| {
        let mut h = streams.stream(stream_id(4, 0, rate));
        let mut n = streams.stream(stream_id(5, 0, rate));
        run_test(&q, set, rate, buffer_bits, &mut h, &mut n).gaps.count() == 0
    };
    // Gaps need not be monotone in the rate (phases), so scan upward and stop at the first
    // gapped rate.
    let mut best = 0;
    let mut r = step;
    while r <= max {
        if !ok(r) {
            break;
        }
        best = r;
        r += step;
    }
    best
}
