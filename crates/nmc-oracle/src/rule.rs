//! A rule tried against the program (`nmc oracle rule --set …`): the test every candidate for
//! the profile has had since 6 December 2026, run on the profile and on the candidate and
//! judged in one go, so that the verdict is the command's and not a reading of two tables.
//!
//! The candidate is the profile with the `--set` values. It holds, and may be adopted, only if
//! all of these hold (each stated before any rule was run with it; how-to `oracle.md`):
//!
//! * over the phase scan ([`crate::model::phase_scan`], 8 start phases by default) the
//!   phase-rows agreeing on both measures do not fall below the profile's;
//! * no class's ([`crate::model::class_of`]) mean |mean Δ| of the round trip rises;
//! * on the June 1974 map ([`crate::mapcheck`]) neither mean |Δ| — throughput, round trip —
//!   rises, loaded or unloaded.
//!
//! "Rises" is read as the figures are printed, to 0.01 %: a difference below that is none.
//! What the rule cannot see is said beside it in the how-to: the scoreboard (`nmc reproduce
//! --all --quick`), which some rules also had to keep.

use crate::mapcheck::{MapRow, MapSet, mean_abs};
use crate::model::{ClassSummary, Recorded, class_summaries, phase_scan};
use anyhow::Result;
use nmc_scenario::Override;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What one configuration gives on the rule's measures.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Reading {
    /// Phase-rows agreeing on both measures, and phase-rows run.
    pub agree_both: u32,
    /// Phase-rows run.
    pub phases: u32,
    /// The classes' sums, then `all`.
    pub classes: Vec<ClassSummary>,
    /// Loaded map: site-seeds, mean |Δ| throughput and round trip, %.
    pub map_loaded: (usize, f64, f64),
    /// Unloaded map: the same.
    pub map_unloaded: (usize, f64, f64),
}

/// Runs the phase scan and the map for one configuration (`extra` on the scenarios).
pub fn read(
    scenario: &str,
    extra: &[Override],
    recorded: &[Recorded],
    data: &Path,
    phases: u32,
) -> Result<Reading> {
    let scan = phase_scan(scenario, extra, recorded, phases)?;
    let classes = class_summaries(&scan);
    let all = classes.last().expect("class_summaries ends with all");
    let (agree_both, phases) = (all.agree_both, all.phases);
    let map: Vec<MapRow> =
        crate::mapcheck::check(data, &[MapSet::Loaded, MapSet::Unloaded], extra)?;
    Ok(Reading {
        agree_both,
        phases,
        classes,
        map_loaded: mean_abs(&map, MapSet::Loaded),
        map_unloaded: mean_abs(&map, MapSet::Unloaded),
    })
}

/// One of the rule's conditions, judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// What is compared.
    pub measure: String,
    /// The profile's figure.
    pub profile: f64,
    /// The candidate's.
    pub candidate: f64,
    /// `true` when the candidate's may not be below the profile's (phase-rows); `false` when
    /// it may not be above (differences).
    pub higher_is_better: bool,
    /// Whether the condition holds.
    pub holds: bool,
}

/// The rule's verdict: every condition, and whether all hold.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verdict {
    /// The conditions in the order of the module's list.
    pub checks: Vec<Check>,
    /// All hold: the candidate may be adopted.
    pub holds: bool,
}

/// `x` as printed, to 0.01 (in hundredths, to compare exactly).
fn hundredths(x: f64) -> i64 {
    (x * 100.0).round() as i64
}

/// Judges `candidate` against `profile` by the rule's conditions.
pub fn judge(profile: &Reading, candidate: &Reading) -> Verdict {
    let mut checks = vec![Check {
        measure: format!("phase-rows agreeing on both (of {})", profile.phases),
        profile: profile.agree_both as f64,
        candidate: candidate.agree_both as f64,
        higher_is_better: true,
        holds: candidate.agree_both >= profile.agree_both,
    }];
    let lower = |measure: String, p: f64, c: f64| Check {
        measure,
        profile: p,
        candidate: c,
        higher_is_better: false,
        holds: hundredths(c) <= hundredths(p),
    };
    for p in profile.classes.iter().filter(|c| c.class != "all") {
        let c = candidate
            .classes
            .iter()
            .find(|c| c.class == p.class)
            .map_or(f64::INFINITY, |c| c.rtt_mean_abs_pct);
        checks.push(lower(
            format!("{}: mean |mean Δ| of the round trip, %", p.class),
            p.rtt_mean_abs_pct,
            c,
        ));
    }
    for (name, p, c) in [
        ("loaded", profile.map_loaded, candidate.map_loaded),
        ("unloaded", profile.map_unloaded, candidate.map_unloaded),
    ] {
        checks.push(lower(
            format!("map {name} ({} site-seeds): mean |Δ| throughput, %", p.0),
            p.1,
            c.1,
        ));
        checks.push(lower(
            format!("map {name}: mean |Δ| round trip, %"),
            p.2,
            c.2,
        ));
    }
    let holds = checks.iter().all(|c| c.holds);
    Verdict { checks, holds }
}

impl Verdict {
    /// The conditions that do not hold, by name.
    pub fn failed(&self) -> Vec<&str> {
        self.checks
            .iter()
            .filter(|c| !c.holds)
            .map(|c| c.measure.as_str())
            .collect()
    }
}

/// The verdict as a Markdown table and a last line.
pub fn table(v: &Verdict) -> String {
    let mut s = String::from(
        "| the rule's condition | profile | candidate | holds |\n| --- | ---: | ---: | :---: |\n",
    );
    for c in &v.checks {
        let fmt = |x: f64| {
            if c.higher_is_better {
                format!("{x:.0}")
            } else {
                format!("{x:.2}")
            }
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            c.measure.replace('|', "\\|"),
            fmt(c.profile),
            fmt(c.candidate),
            if c.holds { "✓" } else { "✗" }
        ));
    }
    let failed = v.failed();
    if v.holds {
        s.push_str("\nThe rule holds: the candidate may be adopted into the profile.\n");
    } else {
        s.push_str(&format!(
            "\nThe rule fails ({} of {} conditions: {}): not adopted.\n",
            failed.len(),
            v.checks.len(),
            failed.join("; ")
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(agree: u32, rtt: [f64; 3], loaded: (f64, f64), unloaded: (f64, f64)) -> Reading {
        let class = |name: &str, r: f64| ClassSummary {
            class: name.into(),
            experiments: 1,
            agree_both: 0,
            phases: 8,
            kbps_mean_abs_pct: 0.0,
            rtt_mean_abs_pct: r,
        };
        Reading {
            agree_both: agree,
            phases: 528,
            classes: vec![
                class("516, 8-packet", rtt[0]),
                class("316, 8-packet", rtt[1]),
                class("single packets", rtt[2]),
                class("all", 0.0),
            ],
            map_loaded: (54, loaded.0, loaded.1),
            map_unloaded: (9, unloaded.0, unloaded.1),
        }
    }

    /// Rule 9 of 7 Dec 2026 as it was read by hand: the chains hold, the unloaded map's round
    /// trip rises, so the rule fails on that one condition.
    #[test]
    fn rule_9_fails_on_the_unloaded_maps_round_trip_alone() {
        let profile = reading(459, [2.09, 2.62, 2.20], (4.45, 12.05), (4.69, 5.32));
        let rule9 = reading(459, [2.01, 2.56, 2.20], (4.30, 11.86), (4.24, 6.55));
        let v = judge(&profile, &rule9);
        assert!(!v.holds);
        let failed = v.failed();
        assert_eq!(failed, ["map unloaded: mean |Δ| round trip, %"]);
        assert!(table(&v).contains("The rule fails (1 of 8 conditions"));
    }

    /// Equal figures, and a difference below the printed 0.01 %, hold; one phase-row fewer
    /// fails.
    #[test]
    fn ties_hold_and_a_lost_phase_row_fails() {
        let profile = reading(459, [2.09, 2.62, 2.20], (4.45, 12.05), (4.69, 5.32));
        let same = reading(459, [2.091, 2.62, 2.199], (4.45, 12.05), (4.69, 5.32));
        assert!(judge(&profile, &same).holds);
        assert!(table(&judge(&profile, &same)).contains("The rule holds"));
        let fewer = reading(458, [2.0, 2.0, 2.0], (4.0, 11.0), (4.0, 5.0));
        let v = judge(&profile, &fewer);
        assert!(!v.holds);
        assert!(!v.checks[0].holds && v.checks[1..].iter().all(|c| c.holds));
    }
}
