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
    if !dir.is_dir() {
        bail!(
            "{}: no such directory: the recorded runs come with nmc's source; run from its checkout \
             or give --data DIR",
            dir.display()
        );
    }
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
/// profile `v2-1974-10` with every rule read in the 1973 program or measured on it (issue 71's
/// fourteenth candidate, adopted 5 Dec 2026: rows agreeing on both over 8 start phases 227 ->
/// 377 of 528), on the chain with every IMP's clock started at one instant as the recorded runs'
/// were (`imp_clocks = "epoch"`, 5 Dec 2026: 377 -> 416 of 528), and with a packet's task time
/// at an IMP as measured on the program (`packet_task = "measured-1973"`, 5 Dec 2026: 416 ->
/// 433 of 528), and with a give-back queued behind the data as the program queues it
/// (`gvb_queue = "regular-1973"`, 5 Dec 2026: 433 -> 459 of 528). What was tried before and why it was not adopted is in the how-to `oracle.md`;
/// `nmc oracle compare --set network.profile=v2-1974-10-earlier` shows the rows as they were.
/// Each says what is known; "open" means the cause is not yet found.
pub const RESIDUALS: &[Residual] = &[
    Residual {
        experiments: &["316-4out-4hop", "316-8out-4hop", "516-4out-4hop"],
        measure: "throughput",
        cause: "the rate of REQALLs, which sets the throughput: a message whose first packet is \
                in before an ALL (BBN 3050 p. 128 HIPLT, TALLYG) sends a request and waits for \
                it (pp. 129-130), and its spare ALL goes back as a GVB. Counted in 120 messages \
                with 4 outstanding, 1-9 hops, 516 / 316: the program on nmc-h316 \
                (data/oracle/emulated/counts.csv, column reqall, runs 516-4-pass1 / 316-4-pass1) \
                39/40 42/42 41/40 38/8 6/22 17/23 21/23 23/7 25/6; the model (nmc run \
                scenarios/oracle-chain.toml, count.reqall, 5 Dec 2026, gvb_queue = \
                regular-1973) 39/42 41/41 54/42 4/41 4/13 7/22 19/27 27/26 26/9. At 4 hops \
                the race goes the other way on both machines: the 516 model sends 4 where the \
                program sends 38 (so it keeps four messages in the pipe, +6 % throughput), the \
                316 model 41 where the program sends 8 (the pipe drained, -5 to -7 %). Whether \
                an ALL is in first is a race of a few ms between a RFNM two messages back and \
                the next first packet; over 8 start phases (nmc oracle compare --phases 8) the \
                4-hop rows agree at 1-5 of 8. What keeps the program in its state at 4 hops was \
                watched on nmc-h316 (516-4-pass1, a PC watch on the TALLY table and the task's \
                checks, 5 Dec 2026): an ALL that came with a RFNM waits 105 ms unused and goes \
                back (BACK2); its GVB takes the line's next free channel, so the host's last \
                packet of the message then on the line is refused until the channel after, the \
                next message's leader is read 56 ms late, and its packet 1 finds no ALL and asks \
                (one such cycle each 640 ms). The model, given the same rules (the GVB in the \
                data queue, gvb_queue = regular-1973), stays in the other state at 4 hops: each \
                RFNM's ALL is claimed by a packet 1 within 70 ms, no ALL goes back, and none is \
                asked for. On 316s at 4 hops it is the other way round (the same watch on \
                316-4-pass1, whose program the emulator runs at 39.4 kbit/s and 399 ms, within \
                2.3 % of the recording): the program's RFNMs come in 19-29 ms before the next \
                packet 1, which claims their ALL; in the model (nmc run \
                scenarios/oracle-chain.toml, 316s, IMP4) the RFNMs come in 112-191 ms before \
                the next packet 1, in a cycle of three (191, 112, 112 ms), so once in three \
                messages the TALLY clock gives an ALL back just before a packet 1 comes (2 ms \
                before, messages 60-66), and that message asks. On 516s the program itself \
                takes either state at 4 hops: replayed on nmc's emulator with each frame up to \
                200 us late, as SIMH's wall-clock delivery made them (nmc oracle emulate --run \
                516-4-pass1 --max-experiments 4 --jitter-us 200, seeds 1-8, 6 Dec 2026), six \
                runs send 38-40 REQALLs (37.7-37.9 kbit/s, 297-299 ms: the recordings' state) \
                and two send 4 and 5 (40.24 and 40.29 kbit/s, 362 and 368 ms), the state the \
                model is in at the comparison's first phase (4 REQALLs, 40.3 kbit/s, 351 ms); \
                over 8 start phases the model is in the recordings' state at 5. On 316s the \
                program keeps its state under the same perturbation (seeds 1-3: 8, 9 and 8 \
                REQALLs, 39.4 kbit/s, 400-410 ms). With the listing's order of the ALL check (packet \
                1 looks when its input ends, before the task: reqall_check = at-input-1973, \
                tried 5 Dec 2026 and not adopted) the 316 model sent 3 and its 4-hop rows \
                agreed at 7 of 8 phases; the 516 model still sent 4. On 316s the model's other \
                state needs exact lockstep: with each frame up to 200 us late (frame_lateness \
                = 200us, a diagnosis; nmc oracle compare --set seed=N, seeds 1-8, 6 Dec 2026) \
                the 316 model sends 3-4 REQALLs at 4 hops (nmc run, 120 messages) and carries \
                39.6-39.7 kbit/s at 399-402 ms, the program's state, which the program keeps \
                under the same perturbation on nmc's emulator (316-4-pass1, --jitter-us 200, \
                seeds 1-8: 7-9 REQALLs, 39.4-39.5 kbit/s, 389-410 ms); with the recorded runs' \
                own lateness in the comparison (frame_lateness = 250us, SIMH's modem poll: \
                tried 6 Dec 2026 and not adopted) the 316 4-hop rows agree at 7 of 8 phases. \
                Deterministic, the program on nmc's emulator stays in that state (39.4 kbit/s, \
                399 ms, 8 REQALLs) where the model leaves it. The source's TALLY table side \
                by side (nmc oracle tally on a watched replay, 7 Dec 2026, 100 measured \
                messages): at 4 hops on 316s the program takes each ALL a median 29 ms after \
                it comes and gives back 6 (at 152 ms), the model 33 (at 110 ms, the TALLY \
                clock's sixth tick); on 516s the program gives back 34 and the model 2. Two \
                differences the table showed were tried as rules and change neither state: \
                the ALL taken at the next fast tick rather than at once (reqall_claim = \
                tick-1973, rule 12) and a host left to the tick looked at only then, not when \
                its own reply comes (host_retry = fast-tick-only-1973, rule 13; it brings the \
                model's ALL waits to the program's at 6-9 hops)",
    },
    Residual {
        experiments: &["516-8out-9hop"],
        measure: "throughput",
        cause: "the recording's own spread: the model carries 39.4 kbit/s at 9 hops with 4 and \
                with 8 outstanding (4 message numbers either way; the line, not the numbers, \
                limits it), +8 % on this row at every start phase. The program does the same on \
                nmc's deterministic emulator: 37.63 +- 1.06 kbit/s with 4 and with 8 outstanding \
                alike (data/oracle/emulated/compare.csv, runs 516-4-pass1 and 516-8-pass1 \
                replayed), and the model is within 4.7 % of that. The SIMH recording's \
                4-outstanding row (38.0 +- 1.5) agrees with the model (+3.7 %); its \
                8-outstanding row, 36.5 +- 2.4, is one wall-clock-paced run's, the widest \
                interval of the 516 8-packet rows",
    },
    Residual {
        experiments: &["516-single-9hop"],
        measure: "throughput",
        cause: "one message outstanding: its throughput is its round trip's (see the round-trip \
                residual of the same experiment)",
    },
    Residual {
        experiments: &["516-4out-4hop", "516-8out-4hop"],
        measure: "rtt",
        cause: "the same race at 4 hops (see the throughput residual): the 516 model sends 4 \
                REQALLs in 120 messages where the program sends 38, so it keeps four messages \
                in the pipe and each waits longer (+13 to +18 % at the comparison's first \
                phase); the program's REQALLs drain it. Over 8 start phases the 4-hop rows \
                agree at 5 of 8. The program itself, perturbed by late frames, falls into the \
                model's state in 2 of 8 runs, and then its round trip is 362-368 ms against the \
                model's 351 (-3 to -5 %) and its throughput 40.24-40.29 against 40.3 kbit/s \
                (the throughput residual's runs)",
    },
    Residual {
        experiments: &["516-single-2hop"],
        measure: "rtt",
        cause: "the program's own spread: the model's single-packet round trip at 2 hops on \
                516s is 75 against the recording's 70 ms (+7.8 %) at the comparison's first \
                phase, +1.2 to +7.8 % over 8 start phases (within the tolerance at 6 of 8). The \
                program does the same: replayed on nmc's emulator with each frame up to 200 us \
                late, as SIMH's wall-clock delivery made them (nmc oracle emulate --run \
                516-4-pass1 --jitter-us 200, seeds 1-8, 6 Dec 2026), its 28 messages take \
                69.0, 69.0, 70.0, 73.4, 73.5, 73.5, 74.4 and 76.3 ms (deterministic 69.8), and \
                the model's 75 lies within that range. The 8-packet 2-hop rows, 6-10 % long at \
                every phase until 5 Dec 2026, agree at every phase since the GVB waits in the \
                data queue (gvb_queue = regular-1973)",
    },
    Residual {
        experiments: &[
            "316-4out-3hop",
            "316-4out-4hop",
            "316-4out-8hop",
            "316-4out-9hop",
            "316-8out-4hop",
            "316-8out-8hop",
            "316-8out-9hop",
        ],
        measure: "rtt",
        cause: "the 316 rows are short where the model sends more REQALLs than the program \
                (see the throughput residual): at 4 hops 41 in 120 messages against the \
                program's 8, at 8 hops 26 against 7, at 9 hops 9 against 6; each request's \
                pause drains the pipe, so the round trip is 19-21 % short at 4 hops, 8-18 % at \
                8 and 4-7 % at 9 at the comparison's first phase (over 8 start phases the 9-hop \
                rows agree at 6-8 of 8, the 4-hop at 1-5, the 8-hop at none; with each frame up \
                to 200 us late, seeds 1-8, 316-4out-8hop takes 493-533 ms, where the program \
                under the same perturbation takes 611-646, 316-4-fill1 seeds 1-5). At 3 hops the \
                model sends 42 and the program 40, and of the two recordings of 316-4out-3hop \
                one agrees (289 +- 10 ms against the model's 287) and one does not (309 +- 19, \
                -7.4 %; 3 of 8 phases): the recordings' own spread. At 8 hops the model settles \
                into a cycle of one REQALL every four messages (traced, 316-4out, messages \
                40-46, 5 Dec 2026, before packet_task = measured-1973 and gvb_queue = \
                regular-1973): the request's spare ALL is used by the \
                next message, so the ALL of the RFNM after it waits unused until the TALLY clock \
                gives it back (104 ms); the GVB takes one of the pair's four message numbers (p. \
                55 B2C), the next message waits for a number and uses the following ALL, and \
                the one after finds none and asks again. The program at 8 hops keeps the pipe \
                full instead: on nmc-h316 (316-4-fill1, nmc oracle timeline, messages m50 and \
                m51) each RFNM's ALL is claimed by a packet 1 about 55 and 27 ms after it comes \
                in. At 9 hops the program keeps a standing backlog of about one packet a hop \
                (its data packets wait a mean 20.9 ms at each intermediate 316, \
                data/oracle/emulated/per-hop), formed at the slow tick (the task level held ~20 \
                ms, then the null and routing message queued at its end); the model keeps it \
                too, but its 10 REQALLs against 6 drain it at some phases. Why the model's \
                state at 8 hops differs (measured 6 Dec 2026): the program there is bound by \
                the host's window (it sends message i+4 at the RFNM of i, and that RFNM comes a \
                median 26 ms after message i+3's last packet is in, so i+4's packet 1 claims \
                the RFNM's ALL 12.4 ms after it: 101 claims, 3 give-backs; nmc oracle emulate \
                --run 316-4-fill1 --max-experiments 6 --watch 7157,15147,4307). The model \
                reaches that state only with a longer give-back (giveback_ticks = 8, a \
                diagnosis: 316-4out-8hop 591 ms and no REQALL; 4 hops 401 ms, 9 hops 636), and \
                there its round trip is 591 against the program's 635 ms, so its RFNM comes 15 \
                ms before message i+3's last packet is in and its ALLs wait 12-124 ms (median \
                40) for a packet 1; with the listing's 6 ticks (p. 55 BACK2) some go back and \
                the REQALL cycle above starts. So at 8 hops the miss is the model's full-pipe \
                round trip, about 7 % short, the margin that keeps the program's ALLs claimed. \
                The program's give-back itself is as the model's: BACK2 pulls the ALL 0.1-1.7 \
                ms after the tick that takes the TALLY clock to 6 (316-4-pass1, 4 hops, 8 \
                give-backs). Where the full pipe's time goes (6 Dec 2026, 316-4-fill1 traced \
                at every IMP): a packet's wait at each intermediate 316 is set at the slow \
                tick and kept until the source pauses; it grows when a line goes idle in the \
                slow jobs' hold while its upstream neighbour's does not, and the program's \
                waits lock at 26-32 ms where the model's lock at 16-26. The program's slow \
                jobs take 20.6 ms idle and 22.3-22.5 loaded: the modem routines (pp. 88-96, \
                101-112), about 12 % of a loaded 316's processor, run above the clock and the \
                task (p. 11), and the model charged them nothing. With them \
                (modem_interrupts = cpu-1973, measured per frame, a candidate that failed the \
                phase rule: 456 of 528, the 516 rows 2-4 % long) 316-4out-4hop takes 401 ms, \
                316-8out-8hop agrees at every phase, 316-4out-8hop takes 527 ms with 18 \
                REQALLs in 120 messages (how-to oracle.md). The REQALL cycle is the \
                program's too: SIMH's other run of 316-4out-8hop (316-4-pass1, refused \
                only because IMPs 11, 17 and 20 fell 28-29 ms behind, the bound 25 ms; \
                data/oracle/runs) kept it, 27 \
                REQALLs and 28 GVBs in 120 messages, 36.7 kbit/s at 490.7 +- 16.2 ms, where \
                the model gives 38.6 at 491.4 with 26. The accepted recording sent 8, and \
                nmc's emulator replaying 316-4-pass1 sends 7 (deterministic) and 4-8 (frames \
                up to 200 us late, seeds 1-3): the program leaves the cycle within its first \
                20 messages (on the emulator, 316-4-fill1, REQALLs for messages 0, 1, 3, 4, \
                7, 11 and 18, then none), where the model keeps one every 5 messages (with \
                modem_interrupts = cpu-1973 until message 79, and with frames 200 us late, \
                seeds 1-4, to the end)",
    },
    Residual {
        experiments: &["516-single-9hop"],
        measure: "rtt",
        cause: "the program's stream locks to the 640 ms cycle and the model's, in exact \
                lockstep, does not: the model's single-packet round trip at 9 hops on 516s is \
                290 against 312 ms (-7 %) at every start phase. Replayed on nmc's emulator with \
                each frame up to 200 us late (nmc oracle emulate --run 516-4-pass1 --jitter-us \
                200, seeds 1-8, 6 Dec 2026) the program gives 309.3-315.6 ms, the recording's \
                312 (deterministic, 301: a lock of its own). Its messages go two to a cycle, \
                their K&O round trips alternating about 335 and 280 ms (seed 2: last packets in \
                at 580 and 291 ms of the cycle, every cycle). Traced (--trace-all, seed 2, \
                message 8 against the model's message at the same phase of the cycle, aligned \
                on the routing message the slow tick delays): the program's data packet \
                reaches the 6th IMP 0.1 ms before the slow tick holds its task level, waits the \
                hold (14 ms) and the routing message sent after it (23 ms), and its RFNM then \
                meets the routing messages every IMP sends 115 ms after the slow tick (29 ms \
                more): 340 ms. The model's packet reaches that IMP 1.3 ms earlier (the fast \
                ticks and late frames on the program's way) and leaves before the hold: 283 \
                ms. So the model's messages pass through every phase of the cycle (17 in 8 \
                cycles, 301 ms a message) and are caught less often. With frames late as SIMH \
                delivered them (frame_lateness = 250us, SIMH's modem poll: tried in the \
                comparison 6 Dec 2026 and not adopted) the model's round trip here agrees at \
                all 8 phases (mean -1.9 %). The model's routing skips the opportunity 115 ms \
                after the slow tick on half its lines where the program's skips the third \
                (routing_pattern = rmvtab-1973, the listing's table, tried 6 Dec 2026 and not \
                adopted: 294 ms here)",
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
    for c in class_summaries(rows) {
        s.push_str(&format!(
            "| {} | {} | {} of {} | {:.2} % | {:.2} % |\n",
            c.class, c.experiments, c.agree_both, c.phases, c.kbps_mean_abs_pct, c.rtt_mean_abs_pct,
        ));
    }
    s
}

/// One class's sums over a phase scan ([`class_summaries`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassSummary {
    /// The class ([`class_of`]), or `all`.
    pub class: String,
    /// Its experiments.
    pub experiments: usize,
    /// Phases at which one of its experiments agrees on both measures, summed.
    pub agree_both: u32,
    /// Phases run, summed.
    pub phases: u32,
    /// Mean over its experiments of |mean Δ| of throughput, %.
    pub kbps_mean_abs_pct: f64,
    /// Mean over its experiments of |mean Δ| of the round trip, %.
    pub rtt_mean_abs_pct: f64,
}

/// The phase scan summed by class ([`phase_classes`]' figures): the three classes present, in
/// order, then `all`.
pub fn class_summaries(rows: &[PhaseRow]) -> Vec<ClassSummary> {
    let line = |name: &str, of: &[&PhaseRow]| {
        let n = of.len().max(1) as f64;
        let mean = |f: &dyn Fn(&PhaseRow) -> f64| of.iter().map(|r| f(r).abs()).sum::<f64>() / n;
        ClassSummary {
            class: name.to_string(),
            experiments: of.len(),
            agree_both: of.iter().map(|r| r.agree_both).sum(),
            phases: of.iter().map(|r| r.phases).sum(),
            kbps_mean_abs_pct: mean(&|r| r.kbps_diff_mean_pct),
            rtt_mean_abs_pct: mean(&|r| r.rtt_diff_mean_pct),
        }
    };
    let mut out = Vec::new();
    for class in ["516, 8-packet", "316, 8-packet", "single packets"] {
        let of: Vec<&PhaseRow> = rows
            .iter()
            .filter(|r| class_of(&r.experiment) == class)
            .collect();
        if !of.is_empty() {
            out.push(line(class, &of));
        }
    }
    out.push(line("all", &rows.iter().collect::<Vec<_>>()));
    out
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

/// The accepted recording of `experiment` in the repository's `data/oracle`, for tests.
#[cfg(test)]
pub(crate) fn recorded_experiment(experiment: &str) -> Recorded {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/oracle");
    recorded(&data)
        .unwrap()
        .into_iter()
        .find(|r| r.experiment == experiment)
        .unwrap_or_else(|| panic!("no accepted recording of {experiment}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run away from the checkout, the recorded runs are not found: one line that says where
    /// they come from and how to point at them.
    #[test]
    fn recordings_not_found_say_how_to_point_at_them() {
        let e = recorded(Path::new("no/such/oracle"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("no/such/oracle: no such directory"), "{e}");
        assert!(e.contains("--data DIR") && !e.contains('\n'), "{e}");
    }

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

    /// `host_retry = "fast-tick-only-1973"` (rule 13's candidate): a host whose leader found
    /// no message number waits for its IMP's fast tick (BBN 3050 p. 128 `HI22`), and its own
    /// reply no longer starts its packet 1 before the tick; under `fast-tick` it does (at
    /// 516s, 9 hops, dozens of packets 1 come in exactly one packet's input after a reply).
    #[test]
    fn a_host_left_to_the_tick_is_not_restarted_by_its_reply() {
        let rec = recorded_experiment("516-4out-9hop");
        let after_reply = |retry: &str| {
            let set: Override = format!("network.params.host_retry=\"{retry}\"")
                .parse()
                .unwrap();
            let (_, text) =
                crate::align::model_traced(crate::model::SCENARIO, &[set], &rec).unwrap();
            let (mut offered, mut first, mut replies) = (Vec::new(), Vec::new(), Vec::new());
            for line in text.lines() {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                let t = v["t_ns"].as_u64().unwrap();
                match v["event"].as_str() {
                    Some("offered") => offered.push((v["msg"].as_u64().unwrap(), t)),
                    Some("first-in") => first.push((v["msg"].as_u64().unwrap(), t)),
                    Some("rfnm-in") => replies.push(t),
                    _ => {}
                }
            }
            // A packet 1's input, leader included: the shortest offer to first-in.
            let input = first
                .iter()
                .filter_map(|(m, f)| offered.iter().find(|(o, _)| o == m).map(|(_, t)| f - t))
                .min()
                .unwrap();
            first
                .iter()
                .filter(|(_, f)| replies.iter().any(|r| f.abs_diff(r + input) < 1_000))
                .count()
        };
        let restarted = after_reply("fast-tick");
        assert!(restarted >= 10, "{restarted}");
        assert_eq!(after_reply("fast-tick-only-1973"), 0);
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
