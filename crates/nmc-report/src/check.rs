//! Rows of the reproduce table.
//!
//! A published figure enters the code only here, as a [`Target`] of an experiment, with its
//! source in the experiment's definition. [`Check::compare`] decides `within` from the target
//! and the tolerance stated with it; nothing else may set `within`.
//!
//! Every row also has a [`Kind`] (issues 17 and 31): only an *emergent* row, a value the
//! mechanism produces and that a wrong model could get wrong, counts towards the headline. A row
//! that restates an input, checks a bound the scenario guarantees, repeats another row's
//! published figure under another method, or is scored on the data its parameters were fitted
//! on is shown but not counted.
//!
//! Every row belongs to one published quantity, its [`Check::figure`] (the first word of its id:
//! `KO-3 9 hops` belongs to `KO-3`); [`crate::scoreboard`] gives each quantity one verdict.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A value in the table: a number, or text where the source gives no single number.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// A number, in the row's unit.
    Num(f64),
    /// Text: a range, a bound, or a table cell in the paper's notation.
    Text(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Num(x) => write!(f, "{}", fmt_num(*x)),
            Value::Text(t) => f.write_str(t),
        }
    }
}

/// Formats a number with about four significant digits, without trailing zeros.
pub fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return "n/a".into();
    }
    let digits = if x == 0.0 {
        0
    } else {
        (x.abs().log10().floor() as i32).max(-6)
    };
    let decimals = (3 - digits).clamp(0, 8) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// What a row can tell us (issue 17: "rows that cannot fail or that restate an input must not
/// count as reproduced").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Kind {
    /// The value comes out of the mechanism, and a model wrong about the paper's network could
    /// put it outside the tolerance. Only these rows count in the headline.
    #[default]
    #[serde(rename = "emergent")]
    Emergent,
    /// The value is a setting of the scenario, or follows from settings and figures read off the
    /// same source by arithmetic: agreement shows the input was copied, not that the mechanism
    /// reproduces anything.
    #[serde(rename = "restated input")]
    RestatedInput,
    /// The bound holds by construction of the scenario or of the procedure: any model that runs
    /// the procedure at all meets it, so the row can catch a defect but not confirm a finding.
    #[serde(rename = "sanity bound")]
    SanityBound,
    /// The row repeats another row's published figure under another method (another rule, a
    /// second source of traces, other fitted constants): shown beside the counted row, never
    /// counted twice.
    #[serde(rename = "variant")]
    Variant,
    /// The row is scored on (or averages over) the data its model's parameters were fitted on:
    /// agreement is partly the fit's, so it is not counted as emergent.
    #[serde(rename = "in-sample")]
    InSample,
    /// The row is scored out of sample under a *calibrated* profile: a constant no source
    /// gives was fitted on another row (named in [`Check::why`]), and this row was not used
    /// in the fit (issue 56). It decides its quantity's calibrated verdict
    /// ([`crate::scoreboard::Entry::calibrated`]), never the sourced one.
    #[serde(rename = "calibrated")]
    Calibrated,
    /// The published value is what the author *expected* the network to do (RFC 632: "the
    /// throughput … should be more than 30 kbit/s"), not a measurement (issue 56): agreement
    /// says the model meets the author's expectation, not that it reproduces a finding. Shown,
    /// never counted.
    #[serde(rename = "expectation")]
    Expectation,
}

impl Kind {
    /// Every kind, emergent first, in the order the table and the report list them.
    pub const ALL: [Kind; 7] = [
        Kind::Emergent,
        Kind::RestatedInput,
        Kind::SanityBound,
        Kind::Variant,
        Kind::InSample,
        Kind::Calibrated,
        Kind::Expectation,
    ];

    /// The name used in the table, the report and `reproduce.json`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Emergent => "emergent",
            Kind::RestatedInput => "restated input",
            Kind::SanityBound => "sanity bound",
            Kind::Variant => "variant",
            Kind::InSample => "in-sample",
            Kind::Calibrated => "calibrated",
            Kind::Expectation => "expectation",
        }
    }

    /// A short form for the terminal table.
    pub fn short(self) -> &'static str {
        match self {
            Kind::Emergent => "emergent",
            Kind::RestatedInput => "input",
            Kind::SanityBound => "bound",
            Kind::Variant => "variant",
            Kind::InSample => "in-sample",
            Kind::Calibrated => "calibrated",
            Kind::Expectation => "expected",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A published figure and the tolerance we claim for it, stated before the run.
#[derive(Clone, Debug)]
pub enum Target {
    /// `value`, within ± `rel` (a fraction: 0.05 is ±5 %).
    Rel {
        /// The published value, in the row's unit.
        value: f64,
        /// The relative tolerance, a fraction of `value`.
        rel: f64,
    },
    /// `value`, within ± `abs` (in the row's unit).
    Abs {
        /// The published value, in the row's unit.
        value: f64,
        /// The absolute tolerance, in the row's unit.
        abs: f64,
    },
    /// A published range `lo..=hi`, widened by ± `rel` of each end.
    Range {
        /// The low end of the published range, in the row's unit.
        lo: f64,
        /// The high end of the published range, in the row's unit.
        hi: f64,
        /// How far each end is widened, a fraction of that end (0 keeps the range as printed).
        rel: f64,
    },
    /// `value`, within a factor: between `value / factor` and `value × factor` (for one extreme
    /// draw, such as the longest gap of a table).
    Factor {
        /// The published value, in the row's unit.
        value: f64,
        /// The factor allowed either way (at least 1).
        factor: f64,
    },
    /// At most `value`.
    AtMost {
        /// The upper bound, in the row's unit.
        value: f64,
    },
    /// At least `value`.
    AtLeast {
        /// The lower bound, in the row's unit.
        value: f64,
    },
    /// Text that must match exactly (e.g. a table row in the paper's notation).
    Exact {
        /// The published text, compared character for character.
        text: String,
    },
}

impl Target {
    fn published(&self) -> Value {
        match self {
            Target::Rel { value, .. }
            | Target::Abs { value, .. }
            | Target::Factor { value, .. } => Value::Num(*value),
            Target::Range { lo, hi, .. } => {
                Value::Text(format!("{}–{}", fmt_num(*lo), fmt_num(*hi)))
            }
            Target::AtMost { value } => Value::Text(format!("≤ {}", fmt_num(*value))),
            Target::AtLeast { value } => Value::Text(format!("≥ {}", fmt_num(*value))),
            Target::Exact { text } => Value::Text(text.clone()),
        }
    }

    fn tolerance(&self) -> String {
        match self {
            Target::Rel { rel, .. } => format!("±{} %", fmt_num(rel * 100.0)),
            Target::Abs { abs, .. } => format!("±{}", fmt_num(*abs)),
            Target::Factor { factor, .. } => format!("×/÷{}", fmt_num(*factor)),
            Target::Range { rel, .. } if *rel == 0.0 => "in range".into(),
            Target::Range { rel, .. } => format!("range ±{} %", fmt_num(rel * 100.0)),
            Target::AtMost { .. } | Target::AtLeast { .. } => "bound".into(),
            Target::Exact { .. } => "exact".into(),
        }
    }

    /// The step `ours` is rounded to when rows are compared across runs (the snapshot test):
    /// the leading decimal place of the tolerance's half-width, or for a bound two decimal
    /// places below the bound's leading digit (so a value just past the bound still reads as
    /// past it); `None` for text and for a tolerance of zero, which compare at full precision.
    fn resolution(&self) -> Option<f64> {
        let decade = |x: f64| 10f64.powf(x.abs().log10().floor());
        let half = match *self {
            Target::Rel { value, rel } => rel * value.abs(),
            Target::Abs { abs, .. } => abs,
            Target::Range { lo, hi, rel } => (hi * (1.0 + rel) - lo * (1.0 - rel)) / 2.0,
            Target::Factor { value, factor } => (value * factor - value / factor) / 2.0,
            Target::AtMost { value } | Target::AtLeast { value } => {
                return (value != 0.0).then(|| decade(value) / 100.0);
            }
            Target::Exact { .. } => return None,
        };
        (half > 0.0 && half.is_finite()).then(|| decade(half))
    }

    /// Whether `ours` is within this target and its tolerance.
    pub fn holds(&self, ours: &Value) -> bool {
        match (self, ours) {
            (Target::Exact { text }, Value::Text(t)) => t == text,
            (_, Value::Text(_)) | (Target::Exact { .. }, _) => false,
            (t, Value::Num(x)) if x.is_finite() => match *t {
                Target::Rel { value, rel } => (x - value).abs() <= rel * value.abs(),
                Target::Abs { value, abs } => (x - value).abs() <= abs,
                Target::Range { lo, hi, rel } => *x >= lo * (1.0 - rel) && *x <= hi * (1.0 + rel),
                Target::Factor { value, factor } => *x >= value / factor && *x <= value * factor,
                Target::AtMost { value } => *x <= value,
                Target::AtLeast { value } => *x >= value,
                Target::Exact { .. } => unreachable!(),
            },
            _ => false,
        }
    }
}

/// One row of the reproduce table.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Check {
    /// The name of the experiment that made the row (`ko-v2-throughput`).
    pub experiment: String,
    /// The row's id, unique in a run: the published quantity's id, then what the row measures
    /// (`KO-3 9 hops`, `R889-2 ISID-H single delay 40B`).
    pub id: String,
    /// The published quantity the row belongs to: the first word of the id (`KO-3`).
    #[serde(default)]
    pub figure: String,
    /// What the row measures, in words.
    pub quantity: String,
    /// The published value as the table shows it: the target's value, range or bound, or the
    /// printed cell ([`Check::printed`]).
    pub published: Value,
    /// The value this run produced.
    pub ours: Value,
    /// The unit of `published` and `ours` (empty for a pure number or text).
    pub unit: String,
    /// The tolerance as the table shows it (`±5 %`, `bound`, `exact`).
    pub tolerance: String,
    /// Whether `ours` is within the target and its tolerance; set only by [`Check::compare`].
    pub within: bool,
    /// Where the published value comes from.
    pub source: String,
    /// Emergent, restated input or sanity bound; only emergent rows count in the headline.
    #[serde(default)]
    pub kind: Kind,
    /// Why a row is not emergent (empty for an emergent row).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub why: String,
    /// What the reader should know beside the verdict: why the target differs from the printed
    /// cell ([`Check::printed`]), or what a miss comes from.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// The step `ours` is rounded to when runs are compared ([`Check::ours_rounded`]); absent
    /// for text and for a tolerance of zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<f64>,
}

impl Check {
    /// Compares `ours` with `target` and records the verdict.
    pub fn compare(
        experiment: &str,
        id: &str,
        quantity: &str,
        unit: &str,
        source: &str,
        target: Target,
        ours: Value,
    ) -> Check {
        Check {
            experiment: experiment.into(),
            id: id.into(),
            figure: figure_of(id).into(),
            quantity: quantity.into(),
            published: target.published(),
            within: target.holds(&ours),
            ours,
            unit: unit.into(),
            tolerance: target.tolerance(),
            source: source.into(),
            kind: Kind::Emergent,
            why: String::new(),
            note: String::new(),
            resolution: target.resolution(),
        }
    }

    /// Marks the row as restating an input, saying which.
    pub fn restated_input(&mut self, why: &str) -> &mut Check {
        self.set_kind(Kind::RestatedInput, why)
    }

    /// Marks the row as a bound that cannot fail in this scenario, saying why.
    pub fn sanity_bound(&mut self, why: &str) -> &mut Check {
        self.set_kind(Kind::SanityBound, why)
    }

    /// Marks the row as repeating another row's published figure under another method, saying
    /// which.
    pub fn variant(&mut self, why: &str) -> &mut Check {
        self.set_kind(Kind::Variant, why)
    }

    /// Marks the row as scored on the data its parameters were fitted on, saying which.
    pub fn in_sample(&mut self, why: &str) -> &mut Check {
        self.set_kind(Kind::InSample, why)
    }

    /// Marks the row as scored out of sample under a calibrated profile, saying what was
    /// fitted and on which row ("calibrated on KO-7 long paths: …").
    pub fn calibrated(&mut self, why: &str) -> &mut Check {
        self.set_kind(Kind::Calibrated, why)
    }

    /// Marks the row as compared with what its author expected, not with a measurement,
    /// saying whose expectation.
    pub fn expectation(&mut self, why: &str) -> &mut Check {
        self.set_kind(Kind::Expectation, why)
    }

    /// Shows the cell as the paper prints it where the row is compared with another reading of
    /// it (an erratum), and says why in the row's note. The verdict stays the comparison with
    /// the target.
    pub fn printed(&mut self, printed: &str, why: &str) -> &mut Check {
        self.published = Value::Text(printed.into());
        self.note = why.into();
        self
    }

    /// Adds a note to the row (see [`Check::note`]).
    pub fn with_note(&mut self, note: &str) -> &mut Check {
        if !self.note.is_empty() {
            self.note.push(' ');
        }
        self.note.push_str(note);
        self
    }

    /// Sets the row's kind with the reason (empty only for [`Kind::Emergent`]).
    pub fn set_kind(&mut self, kind: Kind, why: &str) -> &mut Check {
        self.kind = kind;
        self.why = why.into();
        self
    }

    /// Whether the row counts in the headline.
    pub fn counts(&self) -> bool {
        self.kind == Kind::Emergent
    }

    /// `ours` rounded to the row's [`resolution`](Check::resolution), as text: a change below
    /// it is not a change of the row.
    pub fn ours_rounded(&self) -> String {
        match (&self.ours, self.resolution) {
            (Value::Num(x), Some(step)) if x.is_finite() => {
                let decimals = (-step.log10().round()).max(0.0) as usize;
                let r = (x / step).round() * step;
                // No "-0" for a value that rounds to zero.
                let r = if r == 0.0 { 0.0 } else { r };
                format!("{r:.decimals$}")
            }
            (v, _) => v.to_string(),
        }
    }
}

/// The published quantity a row id belongs to: its first word (`KO-3 9 hops` → `KO-3`).
pub fn figure_of(id: &str) -> &str {
    id.split_whitespace().next().unwrap_or("")
}

/// The headline's counts: emergent rows within and in all, and the rows not counted by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Emergent rows within tolerance.
    pub emergent_within: usize,
    /// Emergent rows in all, within or not.
    pub emergent: usize,
    /// Rows that restate an input.
    pub restated_input: usize,
    /// Rows that are sanity bounds.
    pub sanity_bound: usize,
    /// Rows that repeat another row's figure under another method.
    pub variant: usize,
    /// Rows scored on the data their parameters were fitted on.
    pub in_sample: usize,
    /// Rows scored out of sample under a calibrated profile.
    pub calibrated: usize,
    /// Rows compared with what an author expected, not with a measurement.
    pub expectation: usize,
}

impl Tally {
    /// Counts `checks` by kind, and the emergent ones within tolerance.
    pub fn of(checks: &[Check]) -> Tally {
        let mut t = Tally::default();
        for c in checks {
            match c.kind {
                Kind::Emergent => {
                    t.emergent += 1;
                    t.emergent_within += usize::from(c.within);
                }
                Kind::RestatedInput => t.restated_input += 1,
                Kind::SanityBound => t.sanity_bound += 1,
                Kind::Variant => t.variant += 1,
                Kind::InSample => t.in_sample += 1,
                Kind::Calibrated => t.calibrated += 1,
                Kind::Expectation => t.expectation += 1,
            }
        }
        t
    }

    /// All rows, counted or not.
    pub fn rows(&self) -> usize {
        self.emergent
            + self.restated_input
            + self.sanity_bound
            + self.variant
            + self.in_sample
            + self.calibrated
            + self.expectation
    }

    /// "41 of 50 emergent rows within tolerance (not counted: 6 restated inputs, 3 sanity
    /// bounds)".
    pub fn headline(&self) -> String {
        let mut s = format!(
            "{} of {} emergent rows within tolerance",
            self.emergent_within, self.emergent
        );
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut not = Vec::new();
        if self.restated_input > 0 {
            not.push(plural(
                self.restated_input,
                "restated input",
                "restated inputs",
            ));
        }
        if self.sanity_bound > 0 {
            not.push(plural(self.sanity_bound, "sanity bound", "sanity bounds"));
        }
        if self.variant > 0 {
            not.push(plural(self.variant, "variant", "variants"));
        }
        if self.in_sample > 0 {
            not.push(format!("{} in-sample", self.in_sample));
        }
        if self.calibrated > 0 {
            not.push(format!("{} calibrated", self.calibrated));
        }
        if self.expectation > 0 {
            not.push(plural(self.expectation, "expectation", "expectations"));
        }
        if !not.is_empty() {
            s.push_str(&format!(" (not counted: {})", not.join(", ")));
        }
        s
    }
}

/// The widest line of [`table_text`] (issue 17: the terminal table fits 120 columns).
pub const TABLE_WIDTH: usize = 120;

/// Splits `text` into lines of at most `width` characters, at spaces where it can.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word: Vec<char> = word.chars().collect();
        let len = line.chars().count();
        if len > 0 && len + 1 + word.len() <= width {
            line.push(' ');
            line.extend(&word);
            continue;
        }
        if len > 0 {
            lines.push(std::mem::take(&mut line));
        }
        while word.len() > width {
            lines.push(word.drain(..width).collect());
        }
        line = word.into_iter().collect();
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// The table as text for the terminal, at most [`TABLE_WIDTH`] columns wide: rows grouped under
/// their experiment, long cells (the quantity above all) wrapped onto further lines, the kind
/// abbreviated ([`Kind::short`]). The full text of every cell is in the report and in
/// `reproduce.json`.
pub fn table_text(checks: &[Check]) -> String {
    const SEP: &str = "  ";
    let header = [
        "id",
        "quantity",
        "published",
        "ours",
        "unit",
        "tolerance",
        "within",
        "kind",
    ];
    // The most each column may take; the quantity takes what the others leave.
    const QUANTITY: usize = 1;
    let caps = [20, usize::MAX, 12, 12, 8, 10, 6, 8];
    let rows: Vec<[String; 8]> = checks
        .iter()
        .map(|c| {
            [
                c.id.clone(),
                c.quantity.clone(),
                c.published.to_string(),
                c.ours.to_string(),
                c.unit.clone(),
                c.tolerance.clone(),
                if c.within { "yes".into() } else { "NO".into() },
                c.kind.short().into(),
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for (w, cap) in widths.iter_mut().zip(caps) {
        *w = (*w).min(cap);
    }
    let others: usize = widths
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != QUANTITY)
        .map(|(_, w)| w)
        .sum();
    let room = TABLE_WIDTH - others - SEP.len() * (widths.len() - 1);
    widths[QUANTITY] = widths[QUANTITY].min(room);
    let put = |cells: &[String]| {
        let mut out = String::new();
        let wrapped: Vec<Vec<String>> = cells.iter().zip(widths).map(|(c, w)| wrap(c, w)).collect();
        let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
        for k in 0..height {
            let mut line = String::new();
            for (i, (cell, w)) in wrapped.iter().zip(widths).enumerate() {
                if i > 0 {
                    line.push_str(SEP);
                }
                let part = cell.get(k).map_or("", String::as_str);
                line.push_str(part);
                line.extend(std::iter::repeat_n(' ', w - part.chars().count()));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    };
    let mut out = put(&header.map(String::from));
    let mut experiment = None;
    for (c, r) in checks.iter().zip(&rows) {
        if experiment != Some(&c.experiment) {
            experiment = Some(&c.experiment);
            out.push_str(&format!("{}:\n", c.experiment));
        }
        out.push_str(&put(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(t: Target, ours: f64) -> Check {
        Check::compare("e", "X-1", "q", "u", "src", t, Value::Num(ours))
    }

    #[test]
    fn verdicts_follow_the_stated_tolerance() {
        assert!(
            check(
                Target::Rel {
                    value: 30.0,
                    rel: 0.1
                },
                32.9
            )
            .within
        );
        assert!(
            !check(
                Target::Rel {
                    value: 30.0,
                    rel: 0.1
                },
                33.1
            )
            .within
        );
        assert!(
            check(
                Target::Range {
                    lo: 37.0,
                    hi: 38.5,
                    rel: 0.05
                },
                36.0
            )
            .within
        );
        assert!(
            !check(
                Target::Range {
                    lo: 37.0,
                    hi: 38.5,
                    rel: 0.0
                },
                36.9
            )
            .within
        );
        assert!(check(Target::AtMost { value: 8.0 }, 7.0).within);
        assert!(!check(Target::AtLeast { value: 30.0 }, f64::NAN).within);
        let c = Check::compare(
            "e",
            "T",
            "row",
            "",
            "s",
            Target::Exact {
                text: "d+5/4/X!".into(),
            },
            Value::Text("d+5/4/X!".into()),
        );
        assert!(c.within);
    }

    #[test]
    fn numbers_print_short() {
        assert_eq!(fmt_num(81.04), "81.04");
        assert_eq!(fmt_num(37.123456), "37.12");
        assert_eq!(fmt_num(29762.0), "29762");
        assert_eq!(fmt_num(0.012345), "0.01235");
        assert_eq!(fmt_num(f64::NAN), "n/a");
    }

    #[test]
    fn table_lines_up() {
        let t = table_text(&[check(
            Target::Rel {
                value: 81.04,
                rel: 0.001,
            },
            81.04,
        )]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3, "{t}");
        assert_eq!(lines[1], "e:");
        assert_eq!(lines[0].find("published"), lines[2].find("81.04"));
        assert!(lines[2].ends_with("emergent"), "{t}");
    }

    #[test]
    fn table_fits_120_columns_and_wraps_long_cells() {
        let long = "a quantity described at great length, ".repeat(6);
        let mut c = Check::compare(
            "rfc632-single-packet",
            "KO-LOOP exchanges, traffic + failures",
            &long,
            "messages",
            "src",
            Target::Exact {
                text: "PLT: 4 RFNM waiting, 2 MSG in flight; next MSG has ALL, no PLT".into(),
            },
            Value::Text("PLT: 4 RFNM waiting, 2 MSG in flight".into()),
        );
        c.restated_input("test");
        let t = table_text(&[c]);
        assert!(t.lines().all(|l| l.chars().count() <= TABLE_WIDTH), "{t}");
        assert!(t.lines().count() > 4, "{t}");
        // Every word of the quantity is still there, in order.
        let at = t.lines().next().unwrap().find("quantity").unwrap();
        let words: Vec<&str> = t
            .lines()
            .skip(2)
            .filter_map(|l| l.get(at..).map(|q| q.split("  ").next().unwrap_or("")))
            .flat_map(|q| q.split(' '))
            .filter(|w| !w.is_empty())
            .collect();
        let expected: Vec<&str> = long.split(' ').filter(|w| !w.is_empty()).collect();
        assert_eq!(words, expected, "{t}");
        assert!(t.contains("input"), "{t}");
    }

    #[test]
    fn wrap_breaks_at_spaces_and_splits_long_words() {
        assert_eq!(wrap("one two three", 7), ["one two", "three"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), [""]);
    }

    #[test]
    fn kinds_and_headline_count_emergent_rows_only() {
        let t = |v| Target::Abs { value: v, abs: 1.0 };
        let mut rows = vec![
            check(t(1.0), 1.0),
            check(t(1.0), 5.0),
            check(t(4.0), 4.0),
            check(t(0.0), 0.0),
            check(t(30.0), 37.0),
        ];
        rows[2].restated_input("equals the setting");
        rows[3].sanity_bound("cannot fail");
        rows[4].expectation("what the author expected");
        let tally = Tally::of(&rows);
        assert_eq!(
            tally,
            Tally {
                emergent_within: 1,
                emergent: 2,
                restated_input: 1,
                sanity_bound: 1,
                variant: 0,
                in_sample: 0,
                calibrated: 0,
                expectation: 1,
            }
        );
        assert_eq!(
            tally.headline(),
            "1 of 2 emergent rows within tolerance (not counted: 1 restated input, 1 sanity bound, 1 expectation)"
        );
        let json = serde_json::to_string(&rows[2]).unwrap();
        assert!(json.contains("\"kind\":\"restated input\""), "{json}");
        let back: Check = serde_json::from_str(&json).unwrap();
        assert_eq!(back.kind, Kind::RestatedInput);
        assert_eq!(back.why, "equals the setting");
        // A row written before kinds existed reads back as emergent.
        let old = json.replace(",\"kind\":\"restated input\"", "");
        let old: Check = serde_json::from_str(&old).unwrap();
        assert_eq!(old.kind, Kind::Emergent);
    }

    #[test]
    fn ours_is_rounded_to_the_tolerance() {
        let rel = |value, rel, ours| check(Target::Rel { value, rel }, ours).ours_rounded();
        // ±15 % of 500 is ±75: tens.
        assert_eq!(rel(500.0, 0.15, 512.4), "510");
        // ±10 % of 30: units.
        assert_eq!(rel(30.0, 0.1, 28.64), "29");
        assert_eq!(
            check(
                Target::Abs {
                    value: 81.04,
                    abs: 0.0005
                },
                81.04012
            )
            .ours_rounded(),
            "81.0401"
        );
        assert_eq!(
            check(Target::AtLeast { value: 640.0 }, 1234.4).ours_rounded(),
            "1234"
        );
        assert_eq!(
            check(Target::AtMost { value: 1.0 }, 1.0234).ours_rounded(),
            "1.02"
        );
        assert_eq!(
            check(Target::AtMost { value: 0.0 }, 3.0).ours_rounded(),
            "3"
        );
        assert_eq!(
            check(
                Target::Abs {
                    value: 0.0,
                    abs: 0.0
                },
                -0.0001
            )
            .ours_rounded(),
            "-0.0001"
        );
    }
}
