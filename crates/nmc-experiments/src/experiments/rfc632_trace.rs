//! `rfc632-trace`: the sequence of events after one reordering, RFC 632 Tables 1 and 2 (R632-2).
//!
//! Scenario: `scenarios/rfc632-moffett-sri.toml` (see `rfc632-single-packet`) for 60 s with
//! the end-to-end events recorded. At 10 s one message from MOFFETT takes the faster path by
//! AMES and overtakes its predecessor: "we again assume that message i+1 reaches the destination
//! IMP before message i" (RFC 632 p. 3). At 25 s a later message takes that path too (RFC 632
//! p. 4: "a single arrival out of order of any of the later user or control messages … will not
//! change this retransmission pattern"). At 40 s the generator stops for 2 s ("the system can
//! only recover … if the input stream of single-packet messages is interrupted").
//!
//! Targets (stated before the run): the SOURCE IMP and DESTINATION IMP columns of Table 1 under
//! `rfc632-current` and of Table 2 under `rfc632-fix-a`, event by event, exactly, from
//! `MSG(i) sent` for as many events as the paper prints (Table 2 with its dispositions of
//! arriving messages); under `current`, 100 % of the messages sent between the disturbance and the
//! pause sent twice (±0, "all future messages"), and none after the pause (±0). Since 5 Dec 2026
//! the first detour takes the first message close behind its predecessor (`OVERTAKE_WITHIN`),
//! which can be a few messages after 10 s: the trap row counts from the message that overtook
//! (message i+1), as "future" reads; the ones sent before it are ahead of the overtaking.
//!
//! Layout: the paper pairs events of the two IMPs on one line where they happen about
//! together; ours prints one event per line in the order of simulated time, with the time, so
//! the two columns are compared as sequences ([`nmc_imp::e2e`]).

use crate::experiments::rfc632_single_packet::{Disturbance, detour, scenario};
use crate::registry::{Context, Experiment, Loader};
use anyhow::{Context as _, Result};
use nmc_imp::Outcome;
use nmc_imp::analysis::throughput_series;
use nmc_imp::e2e;
use nmc_report::{Chart, Series, SeriesStyle, Target, Value};
use nmc_sim::Trace;

/// RFC 632 Table 1, "Retransmission Pattern for the Current Flow Control Scheme": the SOURCE
/// IMP column, top to bottom.
pub const TABLE1_SOURCE: [&str; 24] = [
    "MSG(i) sent",
    "MSG(i+1) sent",
    "MSG(i+2) sent",
    "MSG(i+3) sent",
    "RFNM(i) arr",
    "MSG(i+4) sent",
    "ALL(i+1) arr",
    "MSG(i+1) sent",
    "RFNM(i+1) arr",
    "MSG(i+5) sent",
    "ALL(i+2) arr",
    "MSG(i+2) sent",
    "RFNM(i+2) arr",
    "MSG(i+6) sent",
    "ALL(i+3) arr",
    "MSG(i+3) sent",
    "RFNM(i+3) arr",
    "MSG(i+7) sent",
    "ALL(i+4) arr",
    "MSG(i+4) sent",
    "RFNM(i+4) arr",
    "MSG(i+8) sent",
    "ALL(i+5) arr",
    "MSG(i+5) sent",
];

/// RFC 632 Table 1, the DESTINATION IMP column. Two misprints corrected: "ALL(i+4) ent" and the
/// last line's "ALL(i+5)" are `ALL(i+4) sent` and `ALL(i+5) sent`.
pub const TABLE1_DESTINATION: [&str; 22] = [
    "MSG(i+1) arr",
    "MSG(i) arr",
    "RFNM(i) sent",
    "ALL(i+1) sent",
    "MSG(i+2) arr",
    "MSG(i+3) arr",
    "MSG(i+4) arr",
    "MSG(i+1) arr",
    "RFNM(i+1) sent",
    "ALL(i+2) sent",
    "MSG(i+5) arr",
    "MSG(i+2) arr",
    "RFNM(i+2) sent",
    "ALL(i+3) sent",
    "MSG(i+6) arr",
    "MSG(i+3) arr",
    "RFNM(i+3) sent",
    "ALL(i+4) sent",
    "MSG(i+7) arr",
    "MSG(i+4) arr",
    "RFNM(i+4) sent",
    "ALL(i+5) sent",
];

/// RFC 632 Table 2, "Sequence of Events for Modified Flow Control Scheme": SOURCE IMP column.
pub const TABLE2_SOURCE: [&str; 10] = [
    "MSG(i) sent",
    "MSG(i+1) sent",
    "MSG(i+2) sent",
    "MSG(i+3) sent",
    "RFNM(i) arr",
    "MSG(i+4) sent",
    "ALL(i+1) arr",
    "MSG(i+1) sent",
    "RFNM(i+1) arr",
    "MSG(i+5) sent",
];

/// RFC 632 Table 2, DESTINATION IMP column, with the paper's dispositions ("arr." and "arr"
/// printed alike).
pub const TABLE2_DESTINATION: [&str; 12] = [
    "MSG(i+1) arr (rejected)",
    "MSG(i) arr (HOST output)",
    "RFNM(i) sent",
    "ALL(i+1) sent",
    "MSG(i+2) arr (stored)",
    "MSG(i+3) arr (stored)",
    "MSG(i+4) arr (stored)",
    "MSG(i+1) arr (HOST output)",
    "RFNM(i+1) sent",
    "RFNM(i+2) sent",
    "RFNM(i+3) sent",
    "RFNM(i+4) sent",
];

/// When the first message overtakes, when the second does, when the generator pauses and for
/// how long (s).
pub const DETOURS_S: [f64; 2] = [10.0, 25.0];
/// The first detour takes the first message sent within this long of its predecessor, so that
/// it can overtake it ("we again assume that message i+1 reaches the destination IMP before
/// message i", RFC 632 p. 3), whatever the phase of the messages at 10 s. **Choice**: under the
/// difference between the two paths' times for a single packet on this map (by LBL about 75–79
/// ms, by AMES about 37: about 38–42 ms). With the rules `v2-1974-10` had before 5 Dec 2026
/// (`v2-1974-10-earlier`) the message it takes is the one the fixed moment took (the outputs
/// were byte for byte the same); with the 1973 program's rules together (`v2-1974-10` since)
/// the fixed moment took one 52 ms behind, which arrived after its predecessor, and no trap
/// began. `rfc632-single-packet`'s detour takes it too.
pub const OVERTAKE_WITHIN: &str = "35ms";
/// The generator's pause: (when it starts, how long it lasts), s.
pub const PAUSE_S: (f64, f64) = (40.0, 2.0);
const DURATION: &str = "60s";

/// Runs the trace scenario under `profile`, recording the end-to-end events.
pub fn trace_run(profile: &str, seed: u64) -> Result<Outcome> {
    let detours: Vec<String> = DETOURS_S
        .iter()
        .enumerate()
        // The second is any later message (RFC 632 p. 4: "a single arrival out of order of any
        // of the later user or control messages").
        .map(|(k, &t)| detour(t, (k == 0).then_some(OVERTAKE_WITHIN)))
        .collect();
    let sets = vec![
        format!("duration={DURATION}"),
        r#"record=["messages", "e2e"]"#.into(),
        format!("network.events=[{}]", detours.join(", ")),
        format!(
            r#"traffic.0.pauses=[{{ at = "{}s", length = "{}s" }}]"#,
            PAUSE_S.0, PAUSE_S.1
        ),
    ];
    let s = scenario(profile, Disturbance::None, &sets, Loader::FULL)?;
    Ok(nmc_imp::scenario::run(&s, seed, Trace::off(), &mut |_| {})?)
}

/// Message *i* (overtaken at the first detour) and the events from `MSG(i) sent` on.
pub fn paper_window(o: &Outcome) -> Result<(u64, Vec<&e2e::E2eEvent>)> {
    let after = (DETOURS_S[0] * 1e9) as u64;
    let base = e2e::overtaken(&o.e2e, "MOFFETT", "SRI", after)
        .context("no message arrived out of order after the detour")?;
    Ok((base, e2e::window(&o.e2e, "MOFFETT", "SRI", base)))
}

/// Our version of a table: the first `rows` events after the reordering, one per line.
pub fn table(o: &Outcome, notes: bool, rows: usize) -> Result<String> {
    let (base, w) = paper_window(o)?;
    Ok(e2e::two_column_table(&w, base, notes, rows))
}

/// "n/n as printed", or where ours first differs from the paper's column.
pub fn compare_column(ours: &[String], paper: &[&str]) -> String {
    match paper
        .iter()
        .enumerate()
        .find(|(k, p)| ours.get(*k).map(String::as_str) != Some(**p))
    {
        None => format!("{n}/{n} as printed", n = paper.len()),
        Some((k, p)) => format!(
            "differs at event {}: ours `{}`, paper `{p}`",
            k + 1,
            ours.get(k).map_or("(none)", String::as_str)
        ),
    }
}

/// Messages numbered `first` or later first sent in [from, to) s and answered: how many, and
/// how many were sent again.
fn sent_again(o: &Outcome, first: u64, from: f64, to: f64) -> (usize, usize) {
    let ns = |s: f64| (s * 1e9) as u64;
    let msgs: Vec<_> = o
        .messages
        .iter()
        .filter(|m| m.id >= first)
        .filter(|m| m.launched_ns.is_some_and(|t| t >= ns(from) && t < ns(to)))
        .collect();
    (
        msgs.len(),
        msgs.iter().filter(|m| m.retransmissions > 0).count(),
    )
}

/// The `rfc632-trace` experiment: the events after one reordering under the current rule and
/// fix A, against RFC 632 Tables 1 and 2 (R632-2).
pub struct Rfc632Trace;

/// R632-2: RFC 632's Table `table_no` under `profile`, each column ours against the paper's
/// event by event; `table<n>.txt` and `e2e-<profile>.csv`. The run's outcome.
fn compare_table(
    ctx: &mut Context,
    table_no: u32,
    profile: &str,
    notes: bool,
    (paper_src, paper_dst): (&[&str], &[&str]),
) -> Result<Outcome> {
    let o = trace_run(profile, ctx.seed)?;
    // No reordering after the detour (the faster path did not overtake): each column is a miss
    // that says so, not an error that stops the run.
    let window = paper_window(&o);
    let (src, dst) = match &window {
        Ok((base, w)) => e2e::columns(w, *base, notes),
        Err(_) => (Vec::new(), Vec::new()),
    };
    let verdict = |ours: &[String], paper: &[&str]| match &window {
        Ok(_) => compare_column(ours, paper),
        Err(e) => format!("{e:#}"),
    };
    for (column, ours, paper) in [
        ("SOURCE IMP", &src, paper_src),
        ("DESTINATION IMP", &dst, paper_dst),
    ] {
        ctx.check(
            &format!(
                "R632-2 Table {table_no} {}",
                column.to_lowercase().replace(" imp", "")
            ),
            &format!("{column} column, {profile}"),
            "events",
            &format!("RFC 632 Table {table_no}"),
            Target::Exact {
                text: format!("{n}/{n} as printed", n = paper.len()),
            },
            Value::Text(verdict(ours, paper)),
        );
    }
    let printed = paper_src.len() + paper_dst.len();
    let text = match &window {
        Ok((base, w)) => e2e::two_column_table(w, *base, notes, printed),
        Err(e) => format!("{e:#}\n"),
    };
    ctx.text(&format!("table{table_no}.txt"), &text)?;
    ctx.csv(&format!("e2e-{profile}"), &o.e2e)?;
    Ok(o)
}

/// Under the current rule: every message from the one that overtook (message i+1) went twice
/// until the pause, none after it; the throughput chart. The messages sent from 10 s before
/// the one the detour takes (`OVERTAKE_WITHIN`) are ahead of the overtaking, and RFC 632's
/// "all future messages" does not speak of them. Without an overtaking the row counts none.
fn trap_and_pause(ctx: &mut Context, o: &Outcome) -> Result<()> {
    let (pause, length) = PAUSE_S;
    let overtook = paper_window(o).map_or(u64::MAX, |(i, _)| i + 1);
    let (n, again) = sent_again(o, overtook, DETOURS_S[0], pause);
    ctx.check(
        "R632-2 trap",
        &format!(
            "messages from the first to overtake (after {} s) to the pause at {pause} s that went twice (overtakings after {} and {} s)",
            DETOURS_S[0], DETOURS_S[0], DETOURS_S[1]
        ),
        "%",
        "RFC 632 p. 4: \"all future messages to be retransmitted\"",
        Target::Abs {
            value: 100.0,
            abs: 0.0,
        },
        Value::Num(100.0 * again as f64 / n.max(1) as f64),
    );
    let (_, again_after) = sent_again(o, 0, pause + length, f64::INFINITY);
    ctx.check(
        "R632-2 pause",
        &format!("messages that went twice after a {length} s pause at {pause} s"),
        "messages",
        "RFC 632 p. 4: recovers only by \"interrupting the input stream\"",
        Target::Abs {
            value: 0.0,
            abs: 0.0,
        },
        Value::Num(again_after as f64),
    );
    let secs = o.duration.as_secs_f64();
    let marker = |t: f64| vec![(t, 0.0), (t, 40.0)];
    let mut chart = Chart::new(
        "Current rule: trapped by one overtaking, freed by a pause (1 s bins)",
        "time (s)",
        "throughput (kbit/s)",
    )
    .with(Series::new(
        "throughput",
        SeriesStyle::Line,
        throughput_series(&o.messages, 1.0, secs),
    ))
    .with(Series::new(
        format!("one message overtakes ({} s)", DETOURS_S[0]),
        SeriesStyle::Dashed,
        marker(DETOURS_S[0]),
    ))
    .with(Series::new(
        format!("another overtakes ({} s)", DETOURS_S[1]),
        SeriesStyle::Dashed,
        marker(DETOURS_S[1]),
    ))
    .with(Series::new(
        format!("input paused ({pause}–{} s)", pause + length),
        SeriesStyle::Dashed,
        marker(pause),
    ));
    chart.y_range = Some(0.0..40.0);
    ctx.plot(
        "trap-and-pause",
        "RFNM-driven single-packet messages MOFFETT→SRI under the current rule: one message overtakes \
         at 10 s and the flow stays trapped (a second overtaking at 25 s changes nothing) until the \
         generator pauses at 40 s.",
        &chart,
    )?;
    Ok(())
}

impl Experiment for Rfc632Trace {
    fn id(&self) -> &'static str {
        "rfc632-trace"
    }
    fn title(&self) -> &'static str {
        "Events after one reordering, current rule and fix A (RFC 632 Tables 1 and 2)"
    }
    fn source(&self) -> &'static str {
        "Opderbeck, RFC 632, May 1974, Tables 1–2, pp. 2–5"
    }
    fn chapter(&self) -> &'static str {
        "docs/src/explanation/rfc632.md"
    }
    fn run(&self, ctx: &mut Context) -> Result<()> {
        let mut rows = 0;
        for (table_no, profile, notes, paper_src, paper_dst) in [
            (
                1,
                "rfc632-current",
                false,
                &TABLE1_SOURCE[..],
                &TABLE1_DESTINATION[..],
            ),
            (
                2,
                "rfc632-fix-a",
                true,
                &TABLE2_SOURCE[..],
                &TABLE2_DESTINATION[..],
            ),
        ] {
            let o = compare_table(ctx, table_no, profile, notes, (paper_src, paper_dst))?;
            rows += 1;
            ctx.progress(rows as f64 / 2.0);
            if profile == "rfc632-current" {
                trap_and_pause(ctx, &o)?;
            }
        }
        ctx.note(
            "Tables: table1.txt (current rule) and table2.txt (fix A) list our events from MSG(i) sent, one per \
             line with the time in ms; the checks compare each column with the paper's, event by event. The \
             paper's two misprints in Table 1 (\"ALL(i+4) ent\", a bare \"ALL(i+5)\") are read as `sent`.",
        );
        Ok(())
    }
}
