//! The model on the oracle's chain, side by side with the real program (issue 71 §4–5).
//!
//! Every accepted experiment of `data/oracle/` (`ko-chain.csv`, `single-packet.csv`) is run
//! again on nmc's model of the IMP (`nmc-imp`) from one scenario file
//! (`scenarios/oracle-chain.toml`: ten IMPs, 50 kbit/s lines, no propagation, no other
//! traffic, the destination the discard fake host), with the experiment's machine, hop count,
//! message length, host window and message count set over it. The model's messages are
//! measured with the same code as the real program's ([`crate::analyze::estimate`]): K&O's
//! round trip from the source IMP taking the message's last packet to the RFNM at the source
//! IMP (the real one to the RFNM's last word at the host: one 32-bit leader at 100 kbit/s,
//! 0.32 ms, later), throughput over the RFNMs.
//!
//! **Tolerances, fixed before the comparison** (issue 71 §4: "every difference larger than
//! 5 %"): a row agrees if the model's throughput is within [`THROUGHPUT_TOLERANCE`] of the
//! recorded mean and its round trip within [`RTT_TOLERANCE`] of the recorded mean. A row that
//! does not is a miss; the misses that are understood are named with their cause in
//! [`RESIDUALS`], and the test that needs no SIMH (`tests` below) fails on a miss that is not
//! named and on a named one that no longer misses.

use crate::analyze::{Estimates, MessageRow, estimate};
use anyhow::{Context, Result, bail};
use nmc_imp::scenario::ImpScenario;
use nmc_imp::spec::TrafficSpec;
use nmc_scenario::Override;
use nmc_sim::{SimDuration, Trace};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The scenario every comparison runs (`scenarios/oracle-chain.toml`), compiled in so the
/// comparison needs no checkout; `nmc oracle compare --scenario` runs another.
pub const SCENARIO: &str = include_str!("../../../scenarios/oracle-chain.toml");

/// A row agrees on throughput within this fraction of the recorded mean (issue 71 §4).
pub const THROUGHPUT_TOLERANCE: f64 = 0.05;
/// A row agrees on K&O's round trip within this fraction of the recorded mean (issue 71 §4).
pub const RTT_TOLERANCE: f64 = 0.05;

/// Messages before the measured ones, as the recordings ran them (`scripts/ko-runs.sh`:
/// `WARMUP=20` for 8-packet messages; 2 for single packets, `nmc oracle chain`).
fn warmup(text_words: usize) -> u64 {
    if text_words > 63 { 20 } else { 2 }
}

/// A recorded experiment: one accepted row of `ko-chain.csv` or `single-packet.csv`.
#[derive(Clone, Debug, Deserialize)]
pub struct Recorded {
    /// The run it came from.
    pub run: String,
    /// Accepted (only accepted rows are compared).
    pub accepted: bool,
    /// Experiment name, e.g. `516-4out-3hop`.
    pub experiment: String,
    /// `516` or `316`.
    pub machine: String,
    /// The host's window.
    pub outstanding: u32,
    /// Hops to the discard fake host.
    pub hops: u32,
    /// Text words a message.
    pub text_words: usize,
    /// Messages measured.
    pub measured: u64,
    /// Throughput, kbit/s, and its 95 % half-width.
    pub throughput_kbps: f64,
    /// 95 % half-width of the throughput.
    pub throughput_ci95: f64,
    /// K&O's round trip, ms.
    pub ko_rtt_ms: f64,
    /// 95 % half-width of the round trip.
    pub ko_rtt_ci95: f64,
}

/// Reads the accepted rows of the recorded tables in `dir` (`data/oracle`).
pub fn recorded(dir: &Path) -> Result<Vec<Recorded>> {
    let mut rows = Vec::new();
    for file in ["ko-chain.csv", "single-packet.csv"] {
        let path = dir.join(file);
        let mut r =
            csv::Reader::from_path(&path).with_context(|| format!("reading {}", path.display()))?;
        for row in r.deserialize() {
            let row: Recorded = row.with_context(|| format!("a row of {}", path.display()))?;
            if row.accepted {
                rows.push(row);
            }
        }
    }
    rows.sort_by(|a, b| {
        (a.text_words, &a.machine, a.outstanding, a.hops).cmp(&(
            b.text_words,
            &b.machine,
            b.outstanding,
            b.hops,
        ))
    });
    Ok(rows)
}

/// The model's run of one recorded experiment, with the recorded values beside it.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The recorded experiment's name.
    pub experiment: String,
    /// `516` or `316`.
    pub machine: String,
    /// The host's window.
    pub outstanding: u32,
    /// Hops.
    pub hops: u32,
    /// Text bits a message.
    pub bits: u64,
    /// Recorded throughput, kbit/s.
    pub real_kbps: f64,
    /// Its 95 % half-width.
    pub real_kbps_ci95: f64,
    /// The model's throughput, kbit/s (NaN if it could not be measured).
    pub model_kbps: f64,
    /// (model − real) / real, %.
    pub kbps_diff_pct: f64,
    /// Recorded K&O round trip, ms.
    pub real_rtt_ms: f64,
    /// Its 95 % half-width.
    pub real_rtt_ci95: f64,
    /// The model's K&O round trip, ms.
    pub model_rtt_ms: f64,
    /// (model − real) / real, %.
    pub rtt_diff_pct: f64,
    /// Throughput within [`THROUGHPUT_TOLERANCE`].
    pub kbps_agrees: bool,
    /// Round trip within [`RTT_TOLERANCE`].
    pub rtt_agrees: bool,
    /// The named cause, if this row is a known residual ([`RESIDUALS`]).
    pub residual: &'static str,
}

/// A miss the comparison knows, with its cause: the experiments (by name) where the model's
/// throughput or round trip is outside its tolerance for a reason stated here. The test fails
/// if one of these agrees again (the entry must go) or a row misses without an entry.
pub struct Residual {
    /// The recorded experiments it covers.
    pub experiments: &'static [&'static str],
    /// The measure that misses: `throughput` or `rtt`.
    pub measure: &'static str,
    /// Why.
    pub cause: &'static str,
}

/// The named residuals (see [`Residual`]), as of the recordings of 2 December 2026 and the
/// profile `v2-1974-10` with the 1973 program's output limit, host retry, give-back clock,
/// fake host and its RFNM after the message, REQALL path and host interface, the fake
/// host's estimated work per packet (issue 71 §4), a reply's way to its host (3 Dec 2026), a
/// single-packet RFNM made at background level (4 Dec 2026), and a message's number taken
/// before its packet 1 with the host's wait at the fast ticks (5 Dec 2026); the 316 round
/// trips' cause named from the program's traces and the measured timeout level (5 Dec 2026).
/// Each says what is known; "open" means the cause is not yet found.
pub const RESIDUALS: &[Residual] = &[
    Residual {
        experiments: &[
            "316-4out-1hop",
            "316-4out-3hop",
            "316-4out-8hop",
            "316-8out-1hop",
            "316-8out-3hop",
            "316-8out-8hop",
            "516-4out-4hop",
            "516-4out-7hop",
            "516-8out-4hop",
            "516-8out-9hop",
        ],
        measure: "throughput",
        cause: "the rate of REQALLs, which sets the throughput: a message whose first packet is \
                in before an ALL (BBN 3050 p. 128 HIPLT, TALLYG) sends a request and waits \
                (pp. 129–130, in the model since 2 Dec 2026 as reqall_path = host-packet-1973), \
                and its spare ALL goes back as a GVB. Counted in 120 messages, the program on \
                nmc-h316 (data/oracle/emulated/counts.csv, column reqall, runs 516-4-pass1 / \
                316-4-pass1, 1–9 hops): 39/40 42/42 41/40 38/8 6/22 17/23 21/23 23/7 25/6; the \
                model (nmc run scenarios/oracle-chain.toml, count.reqall; with the RFNM's way to \
                the host, reply_to_host = leader-1973, since 3 Dec 2026): 46/54 61/62 56/36 \
                3/3 4/10 11/34 43/67 56/120 38/10. Whether an ALL is in first is a race of a few \
                ms between a RFNM two messages back and the next first packet; the model wins \
                it at 4 hops where the program loses it (model 1–8 % fast), and loses it more \
                often at 7–8 hops (5–6 % slow). On 316s at 8 hops it now loses it for every \
                message (120 REQALLs; the program 4–27): each waits for its ALL and the model \
                carries half the program's throughput (−51 to −53 %) at an unchanged round trip; \
                with the reply at the host at once (reply_to_host = at-once) it lost it for 55 \
                and was 3–6 % slow. The ALL that comes while a request waits for its \
                acknowledgement stays in the TALLY table in the model, and is given back; the \
                listing takes it out at once (p. 130 HIPLT5, TALLYG): tried (reqall_claim = \
                at-all-1973), the 8-hop 316 rows come back (120 -> 40 REQALLs) but 2-3 hops get \
                6-8 % fast, 29 -> 21 rows on both, not adopted. What decides it (516, 4 hops, \
                the program on nmc-h316 traced, 5 Dec 2026): the ALL a message's packet 1 \
                takes came on the RFNM three messages back, and the TALLY clock gives it back \
                5 ticks after it came to an empty table (102-128 ms, p. 55 BACK2, p. 163 TALLYB); \
                in the program that RFNM reaches the source 72-120 ms before the packet, a \
                three-message cycle with one REQALL in three; in the model 58-80 ms, because its \
                last packet takes 179 ms (median) from leaving the source to its RFNM back \
                against the program's 142: from the second message on one packet stands queued \
                at the first intermediate IMP (store and forward 48.9 ms against 28.9) and a \
                quarter of one at the others (32.5 against 25.5), and nothing drains it; the \
                program's REQALL pauses do (35 ms from the request to the message's packet 1, \
                the model's 7.4). The model's state depends on its clocks' phase at the start \
                (pump 80 ms later: 28.6 ms at the first hop, 19 REQALLs; 500 ms later: 23), \
                so nmc oracle compare --phases 8 shows which rows the phase decides (12 of 66; \
                516 at 4 hops misses at all 8, +7 to +9 % on throughput). Tried, not adopted \
                (rule as above, stated before the run): the request's message looked at again \
                only at a fast tick (reqall_wake = fast-tick-1973, p. 130 HIPLT6-7, p. 117 \
                HIWM): rows on both 30 -> 31, but the 316 round trips 7.8 -> 9.3 %; with the \
                timeout level as measured, 516 3.1 -> 4.4 %. Run without a prior statement, so \
                not a candidate: a GVB holding a message number until the destination answers \
                it (gvb_number = mesget-1973, p. 55 B2C, p. 74 GUDGVB, p. 85 GOTGVB): 30 rows, \
                516 3.1 -> 3.4 %. Tried 5 Dec (phase rule, stated before the run): routing at \
                the IMP's fast ticks, every line at once, as the program's traces show it \
                (routing_clock = imp-tick-1973): a routing message no longer leaves a standing \
                packet at 4 hops at the start phase (19 REQALLs in 120, round trip 309 ms), but \
                over 8 phases the 516 rows stay 7-8 % fast at 4 hops and at 5 and 7-9 hops \
                become 5-7 % short; rows on both 227 -> 167 of 528: not adopted. The program's REQALLs at \
                4 hops (516-4-pass1 traced): all but the first six (32 of 38) leave at the same \
                point of the 640 ms slow-tick cycle (within 0.4 ms); each goes right behind the \
                previous message's last packet (0.4-0.5 ms after it in 35 of 37), and the line then stays idle 32.0 ms (33 of 38) \
                until the message's packet 1 (5.4 % of the experiment); 19 come 26.9 ms after a \
                GVB. The model's are followed by packet 1 after 4.4-8.7 ms, an ALL from a RFNM \
                being in hand by the request's acknowledgement. The fourteenth candidate (5 \
                Dec 2026; the profile v2-1974-10-program: every rule read in or measured on \
                the program together) passes the phase rule (rows on both 227 -> 377 of 528, \
                every class closer; 41 of 66 at the first phase) and brings the 516 4-hop rows \
                within at 6 of 8 phases; not yet adopted (the scoreboard is to be re-measured \
                under it first; how-to oracle.md)",
    },
    Residual {
        experiments: &["516-4out-4hop", "516-8out-4hop"],
        measure: "rtt",
        cause: "the same race at 4 hops: the model sends 3 REQALLs in 120 messages where the \
                program sends 38, so it keeps four messages in the pipe and each waits longer \
                (12–17 % long); the program's REQALLs drain it (297–309 ms at 4 hops, 379–382 at \
                5)",
    },
    Residual {
        experiments: &[
            "316-4out-3hop",
            "316-4out-6hop",
            "316-4out-7hop",
            "316-4out-8hop",
            "316-4out-9hop",
            "316-8out-6hop",
            "316-8out-7hop",
            "316-8out-8hop",
            "316-8out-9hop",
        ],
        measure: "rtt",
        cause: "the timeout level's hold at the slow tick, which the model's 316 costs make half \
                as long as the program's (measured on nmc-h316, two idle IMPs: 23.6 ms on a 316, \
                14.1 on a 516, the model 12.0 and 7.2; example timeout_level, 4 Dec 2026). On \
                316s the real round trip grows about 54 ms a hop (8-packet messages), on 516s \
                about 34. At 9 hops the program's data packets wait a mean 20.9 ms at each \
                intermediate 316 IMP, most of it behind the flow's own packet (a standing \
                backlog of one packet a hop), the model's 10.6 (data/oracle/emulated/per-hop). \
                Where the backlog comes from (the program's traces, 316-4-fill1, 9 hops, 5 Dec \
                2026): every slow tick the task level is held ~20 ms, a packet that came in \
                meanwhile waits for it and then for the null and routing message queued at its \
                end (54.9 ms), and from then on each packet waits about one frame until a pause \
                in the stream drains it. With the four timeout-level costs as measured (slow \
                tick 13.481 / 22.463 ms, fast tick 0.660 / 1.099, routing message new 6.009 / \
                11.101, seen before 1.025 / 1.702; none fitted), the model's 316 data packets \
                wait 24.9 ms a hop at 9 hops and its round trip there is 673 ms (program 636-651, \
                emulator 656); over 8 start phases (nmc oracle compare --phases 8) the 316 rows \
                at 7-9 hops go from 9-26 % short to within 5 % at most phases, all but one (8 \
                outstanding, 8 hops: +11 %; 9 hops -13 -> +2 %), 6 hops stay 5-7 % short. Not adopted (4 Dec, single-phase rule; and as \
                a diagnosis over 8 phases on 5 Dec the 516 8-packet class's mean |d| of the \
                round trip 2.67 -> 3.68 %, its 4-hop race rows 8 points longer, and the 316 \
                3-hop rows 9-18 % long): the race named for throughput above is what stands in \
                its way. Also tried with it (5 Dec, stated before the run, not adopted): \
                routing at the IMP's fast ticks, every line at once (routing_clock = \
                imp-tick-1973, p. 163 JOBF, p. 164 RSTO2): 316 8.17 -> 5.24 %, single 7.74 -> \
                5.86, rows on both 227 -> 261 of 528, but 516 2.67 -> 4.24. Not it: the \
                program's gap between queued frames (output_gap_316, 0 by default) moves these \
                rows further off (9 hops -14 to -23 %; data/oracle/emulated/per-hop/README.md, \
                3 Dec 2026); not the start phase: at 8 start phases the 6-9 hop rows stay 6-16 % \
                short at every one",
    },
    Residual {
        experiments: &[
            "316-single-1hop",
            "316-single-2hop",
            "316-single-4hop",
            "316-single-5hop",
            "316-single-6hop",
            "316-single-7hop",
            "316-single-8hop",
            "316-single-9hop",
            "516-single-1hop",
            "516-single-3hop",
            "516-single-4hop",
            "516-single-7hop",
            "516-single-8hop",
        ],
        measure: "throughput",
        cause: "one message outstanding: its throughput is its round trip's (see the round-trip \
                residual of the same experiments)",
    },
    Residual {
        experiments: &[
            "316-single-1hop",
            "316-single-2hop",
            "316-single-4hop",
            "316-single-5hop",
            "316-single-6hop",
            "316-single-7hop",
            "316-single-8hop",
            "316-single-9hop",
            "516-single-1hop",
            "516-single-3hop",
            "516-single-4hop",
            "516-single-7hop",
        ],
        measure: "rtt",
        cause: "open: the model's single-packet round trip is 7–13 % short at 1, 3, 4 and 7 \
                hops on 516s and 9–16 % at every distance but 3 on 316s. Where it goes, measured on the program \
                (nmc oracle emulate --trace-all, then per-hop; 30 messages, 2 Dec 2026): from a \
                single packet's arrival at the destination to its RFNM leaving, median 5.7 ms \
                (mean 7.0) on a 516 and 9.5 (16.3) on a 316, against the model's 3.0 (4.7) and \
                4.2 (6.6) (its trace, the same chain): both wait behind the 152-bit null that \
                carries the acknowledgement (program 3.2 ms of line time on average); the \
                program's RFNM also waits behind routing frames (1.3 ms on a 516, 4.9 on a 316) \
                and is made later (2.6 ms on a 516, 6.3 on a 316 not explained by the line: the \
                RFNM goes through the rally table at background level, BBN 3050 p. 52 BACK0, \
                p. 155 IH63). At each intermediate IMP a single packet waits behind routing \
                frames (mean 2.6 ms a hop on a 516 at 9 hops, 3.9 on a 316 at 5), queued when \
                the slow tick's routing computation ends (p. 164). A message that meets no \
                routing frame, at 1 hop (3 Dec 2026): on a 516 34.1 ms against the model's \
                31.2 — the host's packet leaves its IMP 1.1 ms after its last word (the model: \
                at once), the RFNM leaves 0.46 ms after the null ahead of it (the output gap) \
                and reaches the host 0.8 ms after it arrives (the model 0.18); on a 316 38.9 \
                against 32.6 — 1.8 ms at the source, the RFNM made 9.2 ms after the packet's \
                arrival (the model 5.8), 1.3 ms from its arrival to the host. Tried and not \
                adopted: the host's packet on only once the task has taken it \
                (host_packet_entry = after-task-1973, p. 133 H2TASK): single rows on both 4 -> \
                6, but the 8-packet round trips shorter and all rows on both 27 -> 23 \
                (data/oracle/emulated/per-hop/README.md). Also tried (3 Dec 2026, a local \
                patch, not kept): every line's routing send opportunities at its IMP's own fast \
                ticks, all lines of the IMP in one tick, as the program's routing clocks run \
                from its fast timeout (p. 163 JOBF calls RSTOUT before IMTC; p. 164 RSTO2) \
                instead of spread line by line over one slot: the single-packet rows move the \
                wrong way (516 at 4 hops 136 -> 120 ms against the program's 146; 316 at 5 hops \
                172 -> 166 against 194), all rows on both 29 -> 20. In the model since 3 Dec 2026: the \
                reply's way to the host (reply_to_host = leader-1973: 810 cycles measured, then \
                the leader over the interface; 516 rows at 2 and 5 hops now agree; on 316s the \
                rows barely move, the model's single-packet round trip there keeping its phase \
                to the clock: the message starts 1.4 ms later and waits 1.4 ms less). Not yet: \
                routing frames ahead of queued data after the slow tick, the 316's cycle time. \
                In the model since 4 Dec 2026: the RFNM made at background level \
                (single_rfnm_316/_516, 2.89 / 1.84 ms from the packet gone to the host to the \
                RFNM's first bit, measured on the program: p. 155 IH63, pp. 52-53 BACK0, \
                GIVTSK); 316 rows move 2-13 ms towards the program at 1-4, 7 and 8 hops (3 \
                hops now agrees) and not at 5, 6 and 9, 516 rows 0-1 ms. Left at the destination: from the packet's arrival to the fake \
                host done with it (IH63) the program takes 3.54 ms on a 516 and 5.97 on a 316 \
                (medians, 22 messages each), the model 2.49 and 4.16. The long tails: a RFNM due \
                during the slow tick waits for its end and then behind the routing messages it \
                queues; the program's slow tick (p. 171 JOBS) holds its processor 14.1 ms on a \
                516 and 23.6 on a 316, twice the model's 7.2 and 12.0 (example timeout_level, \
                4 Dec 2026). Tried and not adopted: the slow tick, and with it the fast tick \
                and the routing messages' costs, as measured: rows on both 30 -> 33 (37), single \
                rows' mean |d| 7.9 -> 6.6 (6.4) %, but the 516 8-packet class 3.1 -> 4.1 \
                (3.9) %, its 4-hop race rows longer (how-to oracle.md). In the model since \
                then: the background below the clock and the tasks (background_level = \
                idle-1973, p. 11), which moves these rows little (single mean |d| 7.87 -> 7.82 %). \
                At 8 start phases (nmc oracle compare --phases 8, 5 Dec 2026) the 316 rows but \
                3 hops miss at every phase (-8 to -17 %), as do 516's at 3 and 4 hops; 516's at \
                1, 5, 7 and 8 hops agree at some phases and not at others",
    },
];

/// Every row outside its tolerance without a [`Residual`] naming it, and every residual whose
/// experiments all agree on its measure now (the entry must go): empty when the comparison
/// and its ledger agree.
pub fn unexplained(rows: &[Row]) -> Vec<String> {
    let named = |e: &str, m: &str| {
        RESIDUALS
            .iter()
            .any(|r| r.measure == m && r.experiments.contains(&e))
    };
    let mut v = Vec::new();
    for r in rows {
        if !r.kbps_agrees && !named(&r.experiment, "throughput") {
            v.push(format!(
                "{}: throughput {:+.1} %, no residual names it",
                r.experiment, r.kbps_diff_pct
            ));
        }
        if !r.rtt_agrees && !named(&r.experiment, "rtt") {
            v.push(format!(
                "{}: round trip {:+.1} %, no residual names it",
                r.experiment, r.rtt_diff_pct
            ));
        }
    }
    for res in RESIDUALS {
        for e in res.experiments {
            let of: Vec<&Row> = rows.iter().filter(|r| r.experiment == *e).collect();
            let misses = of.iter().any(|r| match res.measure {
                "throughput" => !r.kbps_agrees,
                _ => !r.rtt_agrees,
            });
            if !of.is_empty() && !misses {
                v.push(format!(
                    "{e}: named as a {} residual but agrees now",
                    res.measure
                ));
            }
        }
    }
    v
}

/// The overrides that make the chain scenario `rec`'s experiment (its destination, machine,
/// message, window and count, the warm-up included), then `extra`.
pub fn experiment_sets(rec: &Recorded, extra: &[Override]) -> Result<Vec<Override>> {
    let bits = 16 * rec.text_words as u64;
    let count = rec.measured + warmup(rec.text_words);
    let mut sets: Vec<Override> = [
        format!("network.hosts.1.imp=IMP{}", rec.hops),
        format!("network.params.default_imp=\"{}\"", rec.machine),
        format!("traffic.0.message={bits}bit"),
        format!("traffic.0.outstanding={}", rec.outstanding),
        format!("traffic.0.count={count}"),
    ]
    .iter()
    .map(|s| s.parse().map_err(|e| anyhow::anyhow!("{e}")))
    .collect::<Result<_>>()?;
    sets.extend(extra.iter().cloned());
    Ok(sets)
}

/// The pump's first measured message (the ones before warm the chain up).
pub fn first_measured(rec: &Recorded) -> u64 {
    warmup(rec.text_words)
}

/// Runs the model for `rec` from scenario text `scenario` (with `extra` overrides after the
/// experiment's own), and measures it.
pub fn run_one(scenario: &str, extra: &[Override], rec: &Recorded) -> Result<Estimates> {
    run_one_at(scenario, extra, rec, SimDuration::ZERO)
}

/// [`run_one`] with the pump started `offset` later than the scenario says: another phase of
/// the IMPs' clocks (fast ticks, routing slots) at the experiment's start.
pub fn run_one_at(
    scenario: &str,
    extra: &[Override],
    rec: &Recorded,
    offset: SimDuration,
) -> Result<Estimates> {
    let bits = 16 * rec.text_words as u64;
    let count = rec.measured + warmup(rec.text_words);
    let sets = experiment_sets(rec, extra)?;
    let mut s: ImpScenario = nmc_scenario::load("oracle-chain.toml", scenario, &sets)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if let Some(TrafficSpec::Pump { start, .. }) = s.traffic.first_mut() {
        *start += offset;
    }
    let seed = s.require_seed().map_err(|e| anyhow::anyhow!("{e}"))?;
    let out = nmc_imp::scenario::run(&s, seed, Trace::off(), &mut |_| {})
        .map_err(|e| anyhow::anyhow!("{}: {}", rec.experiment, e.0))?;
    let mut msgs: Vec<_> = out.messages.iter().filter(|m| m.host == "HOST").collect();
    msgs.sort_by_key(|m| m.id);
    if (msgs.len() as u64) < count {
        bail!(
            "{}: the model answered {} of {} messages in {}",
            rec.experiment,
            msgs.len(),
            count,
            s.duration
        );
    }
    let skip = warmup(rec.text_words) as usize;
    let rows: Vec<MessageRow> = msgs
        .iter()
        .enumerate()
        .map(|(i, m)| MessageRow {
            experiment: rec.experiment.clone(),
            index: i as u64,
            measured: i >= skip,
            host_sent_ns: m.offered_ns,
            host_reply_ns: m.rfnm_ns.unwrap_or(0),
            reply: "Rfnm".into(),
            imp_eom_ns: m.accepted_ns,
            imp_rfnm_ns: m.rfnm_ns,
            ko_rtt_ns: m.rfnm_ns.zip(m.accepted_ns).map(|(r, a)| r - a),
            host_rtt_ns: m.rfnm_ns.unwrap_or(0) - m.offered_ns,
        })
        .collect();
    Ok(estimate(&rows, bits as f64))
}

/// The model's mean throughput and K&O round trip for `rec`, each judged against the
/// recording with the tolerances fixed before the comparison.
struct Judged {
    model_kbps: f64,
    model_rtt_ms: f64,
    kbps_diff_pct: f64,
    rtt_diff_pct: f64,
    kbps_agrees: bool,
    rtt_agrees: bool,
}

fn judged(rec: &Recorded, e: &Estimates) -> Judged {
    let model_kbps = e.throughput_kbps.map_or(f64::NAN, |x| x.mean);
    let model_rtt_ms = e.ko_rtt_ms.map_or(f64::NAN, |x| x.mean);
    let pct = |m: f64, r: f64| 100.0 * (m - r) / r;
    Judged {
        model_kbps,
        model_rtt_ms,
        kbps_diff_pct: pct(model_kbps, rec.throughput_kbps),
        rtt_diff_pct: pct(model_rtt_ms, rec.ko_rtt_ms),
        kbps_agrees: (model_kbps - rec.throughput_kbps).abs()
            <= THROUGHPUT_TOLERANCE * rec.throughput_kbps,
        rtt_agrees: (model_rtt_ms - rec.ko_rtt_ms).abs() <= RTT_TOLERANCE * rec.ko_rtt_ms,
    }
}

/// Runs the model for every recorded experiment and sets them side by side.
pub fn compare(scenario: &str, extra: &[Override], recorded: &[Recorded]) -> Result<Vec<Row>> {
    recorded
        .iter()
        .map(|rec| {
            let j = judged(rec, &run_one(scenario, extra, rec)?);
            let residual = RESIDUALS
                .iter()
                .find(|r| {
                    r.experiments.contains(&rec.experiment.as_str())
                        && ((r.measure == "throughput" && !j.kbps_agrees)
                            || (r.measure == "rtt" && !j.rtt_agrees))
                })
                .map_or("", |r| r.cause);
            Ok(Row {
                experiment: rec.experiment.clone(),
                machine: rec.machine.clone(),
                outstanding: rec.outstanding,
                hops: rec.hops,
                bits: 16 * rec.text_words as u64,
                real_kbps: rec.throughput_kbps,
                real_kbps_ci95: rec.throughput_ci95,
                model_kbps: j.model_kbps,
                kbps_diff_pct: j.kbps_diff_pct,
                real_rtt_ms: rec.ko_rtt_ms,
                real_rtt_ci95: rec.ko_rtt_ci95,
                model_rtt_ms: j.model_rtt_ms,
                rtt_diff_pct: j.rtt_diff_pct,
                kbps_agrees: j.kbps_agrees,
                rtt_agrees: j.rtt_agrees,
                residual,
            })
        })
        .collect()
}

/// One experiment run at several start phases (`nmc oracle compare --phases N`): the pump
/// started `k × period / N` after the scenario's start for `k` in `0..N`, `period` the
/// profile's routing period (640 ms: the slow tick, whose routing messages and clock jobs set
/// the phase of everything periodic in the IMPs). Differences in % of the recording, as in
/// [`Row`]: least, mean and greatest over the phases. Diagnosis: a row whose verdict changes
/// with the phase is one the model's clocks, not its rules alone, decide.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PhaseRow {
    /// The experiment's name.
    pub experiment: String,
    /// Phases run.
    pub phases: u32,
    /// Throughput difference, % of the recording: least over the phases.
    pub kbps_diff_min_pct: f64,
    /// Mean.
    pub kbps_diff_mean_pct: f64,
    /// Greatest.
    pub kbps_diff_max_pct: f64,
    /// K&O round-trip difference, %: least.
    pub rtt_diff_min_pct: f64,
    /// Mean.
    pub rtt_diff_mean_pct: f64,
    /// Greatest.
    pub rtt_diff_max_pct: f64,
    /// Phases at which throughput and round trip both agree within the tolerances.
    pub agree_both: u32,
    /// Phases at which throughput agrees.
    pub agree_kbps: u32,
    /// Phases at which the round trip agrees.
    pub agree_rtt: u32,
}

impl PhaseRow {
    /// The verdict on both measures is the same at every phase.
    pub fn settled(&self) -> bool {
        self.agree_both == 0 || self.agree_both == self.phases
    }
}

/// Runs the model for every recorded experiment at `n` start phases over the profile's
/// routing period ([`PhaseRow`]); the first phase is [`compare`]'s run.
pub fn phase_scan(
    scenario: &str,
    extra: &[Override],
    recorded: &[Recorded],
    n: u32,
) -> Result<Vec<PhaseRow>> {
    anyhow::ensure!(n >= 1, "--phases must be at least 1");
    let s: ImpScenario = nmc_scenario::load("oracle-chain.toml", scenario, extra)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let period = nmc_imp::scenario::resolve_params(&s.network.profile, &s.network.params)
        .map_err(|e| anyhow::anyhow!("{}", e.0))?
        .routing_period;
    recorded
        .iter()
        .map(|rec| {
            let runs = (0..n)
                .map(|k| {
                    let offset = SimDuration::from_nanos(period.as_nanos() * k as u64 / n as u64);
                    Ok(judged(rec, &run_one_at(scenario, extra, rec, offset)?))
                })
                .collect::<Result<Vec<Judged>>>()?;
            let count = |f: &dyn Fn(&Judged) -> bool| runs.iter().filter(|j| f(j)).count() as u32;
            let spread = |f: &dyn Fn(&Judged) -> f64| {
                let v = runs.iter().map(f);
                let lo = v.clone().fold(f64::INFINITY, f64::min);
                let hi = v.clone().fold(f64::NEG_INFINITY, f64::max);
                (lo, v.sum::<f64>() / n as f64, hi)
            };
            let (kbps_diff_min_pct, kbps_diff_mean_pct, kbps_diff_max_pct) =
                spread(&|j| j.kbps_diff_pct);
            let (rtt_diff_min_pct, rtt_diff_mean_pct, rtt_diff_max_pct) =
                spread(&|j| j.rtt_diff_pct);
            Ok(PhaseRow {
                experiment: rec.experiment.clone(),
                phases: n,
                kbps_diff_min_pct,
                kbps_diff_mean_pct,
                kbps_diff_max_pct,
                rtt_diff_min_pct,
                rtt_diff_mean_pct,
                rtt_diff_max_pct,
                agree_both: count(&|j| j.kbps_agrees && j.rtt_agrees),
                agree_kbps: count(&|j| j.kbps_agrees),
                agree_rtt: count(&|j| j.rtt_agrees),
            })
        })
        .collect()
}

/// The class an experiment's rows are judged in when a rule is tried (the how-to's adoption
/// rules): `single packets` (one message outstanding, either machine), or the machine's
/// 8-packet rows (`516, 8-packet`, `316, 8-packet`), by the experiment's name.
pub fn class_of(experiment: &str) -> &'static str {
    if experiment.contains("single") {
        "single packets"
    } else if experiment.starts_with("316") {
        "316, 8-packet"
    } else {
        "516, 8-packet"
    }
}

/// The phase scan summed by class ([`class_of`]), what the adoption rule reads: phases at
/// which a row agrees on both measures, summed over the class's rows, and the mean over its
/// rows of |mean Δ| (over the phases) of throughput and of the round trip; a last line for
/// every row.
pub fn phase_classes(rows: &[PhaseRow]) -> String {
    let mut s = String::from(
        "| class | experiments | phases agreeing on both | mean \\|mean Δ\\| throughput | mean \\|mean Δ\\| round trip |\n\
         | --- | ---: | ---: | ---: | ---: |\n",
    );
    let mut line = |name: &str, of: &[&PhaseRow]| {
        let n = of.len().max(1) as f64;
        let mean = |f: &dyn Fn(&PhaseRow) -> f64| of.iter().map(|r| f(r).abs()).sum::<f64>() / n;
        s.push_str(&format!(
            "| {name} | {} | {} of {} | {:.2} % | {:.2} % |\n",
            of.len(),
            of.iter().map(|r| r.agree_both).sum::<u32>(),
            of.iter().map(|r| r.phases).sum::<u32>(),
            mean(&|r| r.kbps_diff_mean_pct),
            mean(&|r| r.rtt_diff_mean_pct),
        ));
    };
    for class in ["516, 8-packet", "316, 8-packet", "single packets"] {
        let of: Vec<&PhaseRow> = rows
            .iter()
            .filter(|r| class_of(&r.experiment) == class)
            .collect();
        if !of.is_empty() {
            line(class, &of);
        }
    }
    line("all", &rows.iter().collect::<Vec<_>>());
    s
}

/// The phase scan as a Markdown table.
pub fn phase_table(rows: &[PhaseRow]) -> String {
    let mut s = String::from(
        "| experiment | throughput Δ %: least / mean / greatest | round trip Δ % | phases agreeing: both (throughput, round trip) |\n\
         | --- | --- | --- | --- |\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {:+.1} / {:+.1} / {:+.1} | {:+.1} / {:+.1} / {:+.1} | {} of {} ({}, {}){} |\n",
            r.experiment,
            r.kbps_diff_min_pct,
            r.kbps_diff_mean_pct,
            r.kbps_diff_max_pct,
            r.rtt_diff_min_pct,
            r.rtt_diff_mean_pct,
            r.rtt_diff_max_pct,
            r.agree_both,
            r.phases,
            r.agree_kbps,
            r.agree_rtt,
            if r.settled() { "" } else { " ◐" },
        ));
    }
    s
}

/// The rows as a Markdown table (the book's how-to and the command's output).
pub fn table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| experiment | real kbit/s | model | Δ | real round trip, ms | model | Δ |\n\
         | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let mark = |ok: bool| if ok { "" } else { " ✗" };
    for r in rows {
        s.push_str(&format!(
            "| {} | {:.1} ± {:.1} | {:.1} | {:+.1} %{} | {:.0} ± {:.0} | {:.0} | {:+.1} %{} |\n",
            r.experiment,
            r.real_kbps,
            r.real_kbps_ci95,
            r.model_kbps,
            r.kbps_diff_pct,
            mark(r.kbps_agrees),
            r.real_rtt_ms,
            r.real_rtt_ci95,
            r.model_rtt_ms,
            r.rtt_diff_pct,
            mark(r.rtt_agrees),
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 71 §5: the model's chain runs against the recorded data, no SIMH needed. Every
    /// recorded experiment agrees within the tolerances fixed above or is a named residual,
    /// and no named residual agrees now (a model change that closes one must take it off the
    /// ledger; one that opens a new miss must name it).
    #[test]
    fn the_model_agrees_with_the_real_program_or_the_difference_is_named() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/oracle");
        let recorded = recorded(&data).unwrap();
        assert!(
            recorded.len() >= 60,
            "the recordings are there: {}",
            recorded.len()
        );
        let rows = compare(SCENARIO, &[], &recorded).unwrap();
        let left = unexplained(&rows);
        assert!(left.is_empty(), "{}\n{}", left.join("\n"), table(&rows));
    }

    /// The comparison can fail: a model made slower by half misses nearly every row, and
    /// those misses are not all named.
    #[test]
    fn a_wrong_model_is_caught() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/oracle");
        let recorded = recorded(&data).unwrap();
        let slow: Override = "network.topology.capacity=25kbit/s".parse().unwrap();
        let rows = compare(SCENARIO, &[slow], &recorded).unwrap();
        assert!(rows.iter().filter(|r| !r.kbps_agrees).count() > rows.len() * 9 / 10);
        assert!(!unexplained(&rows).is_empty());
    }

    /// `--phases`: the first phase is the comparison's own run; the others start the pump
    /// later by parts of the routing period, and change the model's result (516 at 4 hops: one
    /// packet queued at the first intermediate IMP from the start, or not; `Residual`).
    #[test]
    fn a_phase_scan_starts_with_the_comparison_and_moves_the_model() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/oracle");
        let recorded: Vec<Recorded> = recorded(&data)
            .unwrap()
            .into_iter()
            .filter(|r| r.experiment == "516-4out-4hop")
            .collect();
        assert_eq!(recorded.len(), 1);
        let rows = compare(SCENARIO, &[], &recorded).unwrap();
        let scan = phase_scan(SCENARIO, &[], &recorded, 8).unwrap();
        let (r, p) = (&rows[0], &scan[0]);
        assert_eq!(p.phases, 8);
        let (lo, mean, hi) = (p.rtt_diff_min_pct, p.rtt_diff_mean_pct, p.rtt_diff_max_pct);
        assert!(lo <= r.rtt_diff_pct && r.rtt_diff_pct <= hi, "{p:?} {r:?}");
        assert!(lo <= mean && mean <= hi);
        assert!(hi - lo > 5.0, "the phase moves the round trip: {p:?}");
        assert!(p.agree_both <= p.agree_kbps.min(p.agree_rtt));
        assert!(phase_table(&scan).contains("516-4out-4hop"));
        assert!(phase_scan(SCENARIO, &[], &recorded, 0).is_err());
    }

    /// The class sums the adoption rule reads: phases agreeing on both summed over a class's
    /// rows, and the mean over them of |mean Δ|; a class with no rows is left out.
    #[test]
    fn the_phase_scan_sums_by_class() {
        let row = |experiment: &str, kbps: f64, rtt: f64, both: u32| PhaseRow {
            experiment: experiment.into(),
            phases: 8,
            kbps_diff_min_pct: kbps,
            kbps_diff_mean_pct: kbps,
            kbps_diff_max_pct: kbps,
            rtt_diff_min_pct: rtt,
            rtt_diff_mean_pct: rtt,
            rtt_diff_max_pct: rtt,
            agree_both: both,
            agree_kbps: both,
            agree_rtt: both,
        };
        let rows = [
            row("516-4out-4hop", 8.0, 12.0, 0),
            row("516-8out-9hop", -2.0, -4.0, 8),
            row("316-single-1hop", 10.0, -15.0, 1),
        ];
        assert_eq!(class_of("316-4out-9hop"), "316, 8-packet");
        let t = phase_classes(&rows);
        assert!(
            t.contains("| 516, 8-packet | 2 | 8 of 16 | 5.00 % | 8.00 % |"),
            "{t}"
        );
        assert!(
            t.contains("| single packets | 1 | 1 of 8 | 10.00 % | 15.00 % |"),
            "{t}"
        );
        assert!(!t.contains("| 316, 8-packet |"), "{t}");
        assert!(
            t.contains("| all | 3 | 9 of 24 | 6.67 % | 10.33 % |"),
            "{t}"
        );
    }
}
