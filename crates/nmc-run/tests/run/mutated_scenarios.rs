//! Issue 17: every shipped scenario, mutated at random (a line deleted or repeated, a number
//! made extreme, a character changed, the text cut short), is either accepted — its model
//! builds, and it runs to the end with metrics — or refused with one line; never a panic or a
//! hang.

use nmc_run::builtin::SCENARIOS;
use nmc_run::{RunOptions, metrics_text, resolve_text};
use proptest::prelude::*;
use std::sync::mpsc;
use std::time::Duration;

use crate::budget;

/// Numbers a careless or hostile edit could put in.
const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "1e400",
    "18446744073709551616",
    "9223372036854775807",
    "0.0000001",
    "nan",
    "\"\"",
    "[]",
    "\"1e400kbit/s\"",
    "\"-5kbit/s\"",
    "\"999999999h\"",
];

fn mutate(text: &str, kind: u8, at: usize, pick: usize, ch: char) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let k = at % lines.len().max(1);
    match kind % 5 {
        0 => lines
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != k)
            .map(|(_, l)| *l)
            .collect::<Vec<_>>()
            .join("\n"),
        1 => {
            let mut v = lines.clone();
            v.insert(k, lines[k]);
            v.join("\n")
        }
        2 => {
            // The k-th `= value` gets an extreme value.
            let mut v: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            let with_value: Vec<usize> = (0..v.len())
                .filter(|&i| v[i].contains(" = ") && !v[i].trim_start().starts_with('#'))
                .collect();
            if let Some(&i) = with_value.get(at % with_value.len().max(1)) {
                let key = v[i].split(" = ").next().unwrap_or_default().to_string();
                v[i] = format!("{key} = {}", EXTREMES[pick % EXTREMES.len()]);
            }
            v.join("\n")
        }
        3 => {
            let mut chars: Vec<char> = text.chars().collect();
            if !chars.is_empty() {
                let i = at % chars.len();
                chars[i] = ch;
            }
            chars.into_iter().collect()
        }
        _ => text
            .chars()
            .take(at % text.chars().count().max(1))
            .collect(),
    }
}

/// A shipped scenario's name and a mutation of its text.
fn mutated() -> impl Strategy<Value = (&'static str, String)> {
    (
        0..SCENARIOS.len(),
        0u8..5,
        0usize..100_000,
        0usize..100,
        proptest::char::range(' ', '~'),
    )
        .prop_map(|(which, kind, at, pick, ch)| {
            let (name, text) = SCENARIOS[which];
            (name, mutate(text, kind, at, pick, ch))
        })
}

/// A refusal is one line of text.
fn one_line(name: &str, line: &str) -> Result<(), TestCaseError> {
    prop_assert!(!line.contains('\n'), "{name}: not one line: {line}");
    prop_assert!(!line.is_empty());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        failure_persistence: crate::regressions(),
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_mutated_scenario_builds_or_is_refused_in_one_line((name, mutated) in mutated()) {
        let origin = format!("{name}.toml");
        let got = std::panic::catch_unwind(|| {
            resolve_text(&origin, &mutated, &RunOptions { seed: None, sets: vec![], out: None, trace_limit: None }).map(|_| ())
        });
        match got {
            Err(_) => prop_assert!(false, "panic on {name} mutated:\n{mutated}"),
            Ok(Ok(())) => {}
            Ok(Err(e)) => one_line(name, &format!("{e:#}"))?,
        }
    }
}

/// Simulated time for a mutated scenario that is run, not only built: long enough for every
/// model to send, short enough for 100-odd runs in a debug build.
const RUN_FOR: &str = "duration=300ms";
/// A run that has not ended by then is taken for a hang (a debug build runs the shipped
/// scenarios' first 300 ms in well under a second each).
const HANG: Duration = Duration::from_secs(120);
/// A run still making progress after this is stopped and counted as running (see `budget`).
const BUDGET: Duration = Duration::from_secs(2);

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 120,
        failure_persistence: crate::regressions(),
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_mutated_scenario_runs_to_the_end_or_is_refused_in_one_line((name, mutated) in mutated()) {
        let origin = format!("{name}.toml");
        let (tx, rx) = mpsc::channel();
        let m = mutated.clone();
        std::thread::spawn(move || {
            let opts = RunOptions { seed: None, sets: vec![RUN_FOR.parse().unwrap()], out: None, trace_limit: None };
            let progress = budget::progress_within(BUDGET);
            let got = std::panic::catch_unwind(|| {
                metrics_text(&origin, &m, &opts, &progress).map_err(|e| format!("{e:#}"))
            });
            let _ = tx.send(got);
        });
        match rx.recv_timeout(HANG) {
            Err(_) => prop_assert!(false, "{name}: no end within {HANG:?}, mutated:\n{mutated}"),
            Ok(Err(p)) if budget::stopped(&*p) => {}
            Ok(Err(_)) => prop_assert!(false, "panic on {name} mutated:\n{mutated}"),
            Ok(Ok(Ok(metrics))) => {
                prop_assert!(!metrics.is_empty(), "{name}: a run with no metrics");
                for (k, v) in &metrics {
                    prop_assert!(!k.is_empty() && !v.is_infinite(), "{name}: metric {k} = {v}");
                }
            }
            Ok(Ok(Err(line))) => one_line(name, &line)?,
        }
    }
}
