//! The source IMP's TALLY table, the program beside the model (`nmc oracle tally`).
//!
//! BBN 3050 keeps the allocations a source IMP holds unused in one table, oldest first (p. 136
//! `TALLY`, `TALLYI` its in-pointer): an ALL is put in when a RFNM or an ALLOCATE brings it
//! (p. 83, 07157), a message's packet 1 takes one out (`TALLYG` from p. 128 `HIPLT` or p. 130
//! `HIPLT5`; 15147 is its success), a message that finds none asks (`HIPLT2`, 14412), and the
//! background gives the oldest back once the TALLY clock, bumped at each fast tick (p. 163
//! `TALLYB`, 20201), has reached 6 (p. 55 `BACK2`, whose pull, 04310, calls `TALLYG`). Whether
//! an allocation is in hand when the next packet 1 comes is the REQALL race of the 4-hop rows
//! (the how-to `oracle.md`).
//!
//! The program's side is read from a replay on nmc's emulator watched at those addresses
//! (`nmc oracle emulate --watch 7157,15147,4310,14412,14400,20201 --peek 15155`): the table's
//! length at each tick is its in-pointer's distance from the table's start. The model's side is
//! its trace of the same experiment on the oracle's chain (`all-put`, `all-taken`, `all-pulled`,
//! `reqall`, and `tally` at each fast tick that found the table non-empty). Both
//! are counted over the measured messages (the program's `measured` rows; the model's from the
//! same warm-up on), from the first one's offer to the last one's reply.

use std::collections::VecDeque;
use std::path::Path;

use anyhow::{Context, Result, bail};
use nmc_scenario::Override;
use serde::{Deserialize, Serialize};

use crate::model::Recorded;

/// `TALLYB`, the fast tick's bump of the TALLY clock (p. 163).
const TALLYB: u16 = 0o20201;
/// The put of an ALL into the table (p. 83, after `ALLOC`'s test).
const PUT: u16 = 0o7157;
/// `TALLYG`'s success (p. 136: "SKIP=SUCCESS").
const TALLYG_OK: u16 = 0o15147;
/// `BACK2`'s pull of the oldest allocation (p. 55).
const PULL: u16 = 0o4310;
/// `HIPLT2`: a message's packet 1 found none and asks (p. 129).
const REQALL: u16 = 0o14412;
/// `HIPLT`: packet 1 looks in the table (p. 128); marks the host's IMP.
const HIPLT: u16 = 0o14400;
/// The table's start (`TALLY`, p. 254, 32261).
const TALLY: u16 = 0o32261;

/// The addresses `nmc oracle emulate --watch` must have logged, with `--peek 15155` first.
pub const WATCH: &str = "7157,15147,4310,14412,14400,20201";

/// One side's table over the measured messages.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Table {
    /// Messages in the window.
    pub messages: u64,
    /// ALLs put in the table.
    pub put: u64,
    /// Taken out by a message.
    pub taken: u64,
    /// Taken out to go back (a give-back).
    pub pulled: u64,
    /// REQALLs (messages that found none).
    pub reqalls: u64,
    /// Fast ticks in the window.
    pub ticks: u64,
    /// Of them, ticks that found the table non-empty.
    pub ticks_held: u64,
    /// Each ALL's time in the table when a message took it, ns (those put in the window).
    pub age_taken_ns: Vec<u64>,
    /// Each ALL's time in the table when it was pulled to go back, ns.
    pub age_pulled_ns: Vec<u64>,
}

impl Table {
    /// Share of the ticks that found an allocation held, %.
    pub fn held_pct(&self) -> f64 {
        100.0 * self.ticks_held as f64 / self.ticks.max(1) as f64
    }
}

/// What happened to the table, in time order.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ev {
    Put,
    Taken,
    Pulled,
    Reqall,
    /// A fast tick; `held` the table's length then.
    Tick {
        held: u32,
    },
}

/// Folds events (time-ordered, ns) into a [`Table`]: entries put before `from` are counted in
/// the table's length but not in the ages, events before `from` in nothing else.
fn fold(events: &[(u64, Ev)], from: u64, to: u64, start_len: usize) -> Table {
    let mut t = Table::default();
    // Put times, oldest first; `None` for entries of unknown age.
    let mut held: VecDeque<Option<u64>> = std::iter::repeat_n(None, start_len).collect();
    for &(at, e) in events {
        if at > to {
            break;
        }
        let counted = at >= from;
        match e {
            Ev::Put => {
                held.push_back(counted.then_some(at));
                t.put += u64::from(counted);
            }
            Ev::Taken | Ev::Pulled => {
                let put = held.pop_front().flatten();
                if !counted {
                    continue;
                }
                let age = put.map(|p| at - p);
                if e == Ev::Taken {
                    t.taken += 1;
                    t.age_taken_ns.extend(age);
                } else {
                    t.pulled += 1;
                    t.age_pulled_ns.extend(age);
                }
            }
            Ev::Reqall => t.reqalls += u64::from(counted),
            Ev::Tick { held: n } => {
                if counted {
                    t.ticks += 1;
                    t.ticks_held += u64::from(n > 0);
                }
            }
        }
    }
    t
}

/// A row of an emulator replay's `messages.csv`.
#[derive(Deserialize)]
struct MessageRow {
    experiment: String,
    measured: bool,
    host_sent_ns: u64,
    host_reply_ns: u64,
}

/// A row of its `watch.csv` (octal words).
#[derive(Deserialize)]
struct WatchRow {
    imp: u8,
    t_ns: u64,
    p: String,
    peek: String,
}

fn octal(s: &str, what: &str) -> Result<u16> {
    u16::from_str_radix(s.trim(), 8).with_context(|| format!("{what} {s:?} is not octal"))
}

/// A replay's measured messages (its `messages.csv`).
fn measured(run: &Path) -> Result<Vec<MessageRow>> {
    let path = run.join("messages.csv");
    let mut r = csv::Reader::from_path(&path).with_context(|| {
        format!(
            "reading {} (a replay of nmc oracle emulate)",
            path.display()
        )
    })?;
    let mut rows = Vec::new();
    for row in r.deserialize() {
        let m: MessageRow = row.with_context(|| format!("a row of {}", path.display()))?;
        if m.measured {
            rows.push(m);
        }
    }
    Ok(rows)
}

/// The measured window of `experiment` in a replay's `messages.csv`: its measured messages,
/// and from the first one's offer to the last one's reply.
fn window(run: &Path, experiment: &str) -> Result<(u64, u64, u64)> {
    let mut n = 0;
    let (mut from, mut to) = (u64::MAX, 0);
    for m in measured(run)?.iter().filter(|m| m.experiment == experiment) {
        n += 1;
        from = from.min(m.host_sent_ns);
        to = to.max(m.host_reply_ns);
    }
    if n == 0 {
        bail!(
            "{}: no measured message of {experiment}",
            run.join("messages.csv").display()
        );
    }
    Ok((n, from, to))
}

/// The experiments a replay measured, in the order it ran them.
pub fn experiments(run: &Path) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    for m in measured(run)? {
        if !names.contains(&m.experiment) {
            names.push(m.experiment);
        }
    }
    Ok(names)
}

/// The program's table at its source IMP (the IMP whose host's packets 1 pass `HIPLT`) over
/// `experiment`'s measured messages, from the replay in `run` (its `watch.csv` and
/// `messages.csv`).
pub fn program(run: &Path, experiment: &str) -> Result<Table> {
    let (messages, from, to) = window(run, experiment)?;
    let path = run.join("watch.csv");
    let hint = || {
        format!(
            "reading {} (replay with nmc oracle emulate --out DIR --watch {WATCH} --peek 15155)",
            path.display()
        )
    };
    let mut r = csv::Reader::from_path(&path).with_context(hint)?;
    let mut rows = Vec::new();
    let mut seen = [false; 6];
    let mut source = None;
    for row in r.deserialize() {
        let w: WatchRow = row.with_context(|| format!("a row of {}", path.display()))?;
        let p = octal(&w.p, "address")?;
        if let Some(k) = [PUT, TALLYG_OK, PULL, REQALL, HIPLT, TALLYB]
            .iter()
            .position(|&a| a == p)
        {
            seen[k] = true;
        }
        if p == HIPLT && (from..=to).contains(&w.t_ns) {
            source.get_or_insert(w.imp);
        }
        rows.push((w.imp, w.t_ns, p, w.peek));
    }
    if seen.iter().any(|s| !s) {
        bail!("{}: a watch of every address is needed", hint());
    }
    let source = source.with_context(|| format!("{}: no packet 1 of {experiment}", hint()))?;
    let mut events = Vec::new();
    let mut last = 0u16;
    for (imp, t, p, peek) in rows {
        if imp != source {
            continue;
        }
        let ev = match p {
            PUT => Some(Ev::Put),
            TALLYG_OK if last == PULL => Some(Ev::Pulled),
            TALLYG_OK => Some(Ev::Taken),
            REQALL => Some(Ev::Reqall),
            TALLYB => {
                let first = peek.split_whitespace().next().with_context(|| {
                    format!("{}: no word peeked at 20201 (--peek 15155)", hint())
                })?;
                let n = u32::from(octal(first, "TALLYI")?.wrapping_sub(TALLY));
                Some(Ev::Tick { held: n })
            }
            _ => None,
        };
        if p != TALLYB {
            last = p;
        }
        events.extend(ev.map(|e| (t, e)));
    }
    // The window starts at its first tick, where the table's length is read (its in-pointer):
    // entries of unknown age.
    let first = events
        .iter()
        .position(|&(t, e)| t >= from && matches!(e, Ev::Tick { .. }))
        .with_context(|| format!("{}: no tick in {experiment}'s window", hint()))?;
    let (from, start_len) = match events[first] {
        (t, Ev::Tick { held }) => (t, held as usize),
        _ => unreachable!("found as a tick"),
    };
    let mut t = fold(&events[first..], from, to, start_len);
    t.messages = messages;
    Ok(t)
}

/// The model's table at its source IMP (`IMP0`) on the oracle's chain (`scenario`, with the
/// experiment's own values and then `extra`), over the same measured messages as the program's
/// (warm-up as `nmc oracle compare`).
pub fn model(scenario: &str, extra: &[Override], rec: &Recorded) -> Result<Table> {
    let (out, text) = crate::align::model_traced(scenario, extra, rec)?;
    let first = crate::model::first_measured(rec);
    let fast = out.params.fast_tick().as_nanos();
    let mut events = Vec::new();
    let (mut from, mut to, mut messages) = (None, 0, 0);
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).context("a model trace line")?;
        let t = v["t_ns"].as_u64().unwrap_or(0);
        let at_source = |key: &str| v[key].as_str() == Some("IMP0");
        let measured = v["msg"].as_u64().is_some_and(|m| m >= first);
        let ev = match v["event"].as_str() {
            Some("offered") if measured => {
                from.get_or_insert(t);
                messages += 1;
                None
            }
            Some("rfnm-in") => {
                if measured {
                    to = to.max(t);
                }
                None
            }
            Some("all-put") if at_source("imp") => Some(Ev::Put),
            Some("all-taken") if at_source("imp") => Some(Ev::Taken),
            Some("all-pulled") if at_source("imp") => Some(Ev::Pulled),
            Some("reqall") => Some(Ev::Reqall),
            Some("tally") if at_source("imp") => Some(Ev::Tick {
                held: v["held"].as_u64().unwrap_or(0) as u32,
            }),
            _ => None,
        };
        events.extend(ev.map(|e| (t, e)));
    }
    let from = from.with_context(|| format!("{}: no measured message", rec.experiment))?;
    let mut t = fold(&events, from, to, 0);
    t.messages = messages;
    // The trace names only the ticks that found the table non-empty; the window's ticks are
    // the clock's, at whole periods from the epoch (`imp_clocks = "epoch"`, the chain's).
    t.ticks = (to / fast + 1).saturating_sub(from.div_ceil(fast));
    Ok(t)
}

/// The experiment named `name` as the chain runs name them (`516-4out-8hop`: a 516 chain, 4
/// outstanding, 8 hops, 503-word messages; `316-single-3hop`: one 63-word message at a time),
/// for an experiment the replay ran but no recording kept (`measured` messages). `None` for
/// another name.
pub fn experiment_named(name: &str, measured: u64) -> Option<Recorded> {
    let mut parts = name.split('-');
    let machine = parts.next().filter(|m| ["316", "516"].contains(m))?;
    let (outstanding, text_words) = match parts.next()? {
        "single" => (1, 63),
        k => (k.strip_suffix("out")?.parse().ok()?, 503),
    };
    let hops = parts.next()?.strip_suffix("hop")?.parse().ok()?;
    if parts.next().is_some() {
        return None;
    }
    Some(Recorded {
        run: String::new(),
        accepted: false,
        experiment: name.to_string(),
        machine: machine.to_string(),
        outstanding,
        hops,
        text_words,
        measured,
        throughput_kbps: f64::NAN,
        throughput_ci95: f64::NAN,
        ko_rtt_ms: f64::NAN,
        ko_rtt_ci95: f64::NAN,
    })
}

/// One experiment, the program's table beside the model's.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// The experiment.
    pub experiment: String,
    /// The program on nmc's emulator.
    pub program: Table,
    /// The model on the oracle's chain.
    pub model: Table,
}

/// The median (nearest rank, as `nmc oracle per-hop`), ms.
fn median(ns: &[u64]) -> Option<f64> {
    (!ns.is_empty()).then(|| crate::perhop::dist(ns).median)
}

/// The rows as a Markdown table, a line a side.
pub fn table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| experiment | side | messages | ALLs in | taken | given back | REQALLs | ticks holding one | \
         age taken, median ms | age given back, median ms |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let ms = |v: &[u64]| median(v).map_or("—".to_string(), |m| format!("{m:.1}"));
    for r in rows {
        for (side, t) in [("program", &r.program), ("model", &r.model)] {
            s += &format!(
                "| {} | {side} | {} | {} | {} | {} | {} | {:.0} % of {} | {} | {} |\n",
                r.experiment,
                t.messages,
                t.put,
                t.taken,
                t.pulled,
                t.reqalls,
                t.held_pct(),
                t.ticks,
                ms(&t.age_taken_ns),
                ms(&t.age_pulled_ns),
            );
        }
    }
    s
}

/// A row of `tally.csv`.
#[derive(Serialize)]
pub struct CsvRow<'a> {
    experiment: &'a str,
    side: &'a str,
    messages: u64,
    put: u64,
    taken: u64,
    pulled: u64,
    reqalls: u64,
    ticks: u64,
    ticks_held: u64,
    age_taken_median_ms: Option<f64>,
    age_pulled_median_ms: Option<f64>,
}

/// The rows as `tally.csv`'s, a row a side.
pub fn csv_rows(rows: &[Row]) -> Vec<CsvRow<'_>> {
    rows.iter()
        .flat_map(|r| {
            [("program", &r.program), ("model", &r.model)].map(|(side, t)| CsvRow {
                experiment: &r.experiment,
                side,
                messages: t.messages,
                put: t.put,
                taken: t.taken,
                pulled: t.pulled,
                reqalls: t.reqalls,
                ticks: t.ticks,
                ticks_held: t.ticks_held,
                age_taken_median_ms: median(&t.age_taken_ns),
                age_pulled_median_ms: median(&t.age_pulled_ns),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ALL put before the window is in the table's length, not in the ages; one put in it
    /// and taken 30 ms later is; a pull takes the oldest; ticks count the table as it stands.
    #[test]
    fn an_experiment_is_known_by_its_name() {
        let r = experiment_named("516-4out-8hop", 100).unwrap();
        assert_eq!(
            (r.machine.as_str(), r.outstanding, r.hops, r.text_words),
            ("516", 4, 8, 503)
        );
        let r = experiment_named("316-single-3hop", 28).unwrap();
        assert_eq!((r.outstanding, r.hops, r.text_words), (1, 3, 63));
        for bad in [
            "416-4out-8hop",
            "516-4in-8hop",
            "516-4out-8",
            "516-4out-8hop-x",
        ] {
            assert!(experiment_named(bad, 1).is_none(), "{bad}");
        }
    }

    #[test]
    fn the_table_is_folded_oldest_first_over_the_window() {
        let ms = |m: u64| m * 1_000_000;
        let ev = [
            (ms(5), Ev::Put),
            (ms(10), Ev::Tick { held: 1 }),
            (ms(20), Ev::Put),
            (ms(26), Ev::Tick { held: 2 }),
            (ms(40), Ev::Pulled),
            (ms(50), Ev::Taken),
            (ms(51), Ev::Tick { held: 0 }),
            (ms(60), Ev::Reqall),
            (ms(99), Ev::Put),
        ];
        let t = fold(&ev, ms(10), ms(90), 0);
        assert_eq!((t.put, t.taken, t.pulled, t.reqalls), (1, 1, 1, 1));
        assert_eq!((t.ticks, t.ticks_held), (3, 2));
        assert!(t.age_pulled_ns.is_empty(), "put before the window: {t:?}");
        assert_eq!(t.age_taken_ns, [ms(30)]);
    }

    /// The model's side on the oracle's chain: every ALL put in the window is taken, pulled
    /// or still held at its end, and each message either found one or asked.
    #[test]
    fn the_models_table_accounts_for_every_allocation() {
        let rec = crate::model::recorded_experiment("316-4out-4hop");
        let t = model(crate::model::SCENARIO, &[], &rec).unwrap();
        assert_eq!(t.messages, rec.measured);
        assert!(t.taken + t.pulled <= t.put + 2, "{t:?}");
        assert!(t.put <= t.taken + t.pulled + 2, "{t:?}");
        // Each measured message took one, and up to three messages before them (4 outstanding)
        // may take theirs after the first measured one is offered.
        assert!(
            (t.messages..=t.messages + 3).contains(&t.taken),
            "each measured message took one ALL: {t:?}"
        );
        assert!(t.ticks > 0 && t.ticks_held <= t.ticks);
    }
}
