//! Rows of the reproduce table.
//!
//! A published figure enters the code only here, as a [`Target`] of an experiment, with its
//! source in the experiment's definition. [`Check::compare`] decides `within` from the target
//! and the tolerance stated with it; nothing else may set `within`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A value in the table: a number, or text where the source gives no single number.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    Num(f64),
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

/// A published figure and the tolerance we claim for it, stated before the run.
#[derive(Clone, Debug)]
pub enum Target {
    /// `value`, within ± `rel` (a fraction: 0.05 is ±5 %).
    Rel { value: f64, rel: f64 },
    /// `value`, within ± `abs` (in the row's unit).
    Abs { value: f64, abs: f64 },
    /// A published range `lo..=hi`, widened by ± `rel` of each end.
    Range { lo: f64, hi: f64, rel: f64 },
    /// At most `value`.
    AtMost { value: f64 },
    /// At least `value`.
    AtLeast { value: f64 },
    /// Text that must match exactly (e.g. a table row in the paper's notation).
    Exact { text: String },
}

impl Target {
    fn published(&self) -> Value {
        match self {
            Target::Rel { value, .. } | Target::Abs { value, .. } => Value::Num(*value),
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
            Target::Range { rel, .. } if *rel == 0.0 => "in range".into(),
            Target::Range { rel, .. } => format!("range ±{} %", fmt_num(rel * 100.0)),
            Target::AtMost { .. } | Target::AtLeast { .. } => "bound".into(),
            Target::Exact { .. } => "exact".into(),
        }
    }

    fn holds(&self, ours: &Value) -> bool {
        match (self, ours) {
            (Target::Exact { text }, Value::Text(t)) => t == text,
            (_, Value::Text(_)) | (Target::Exact { .. }, _) => false,
            (t, Value::Num(x)) if x.is_finite() => match *t {
                Target::Rel { value, rel } => (x - value).abs() <= rel * value.abs(),
                Target::Abs { value, abs } => (x - value).abs() <= abs,
                Target::Range { lo, hi, rel } => *x >= lo * (1.0 - rel) && *x <= hi * (1.0 + rel),
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
    pub experiment: String,
    /// The figure's id (e.g. `KO-2`), with a qualifier where one figure gives several rows.
    pub id: String,
    pub quantity: String,
    pub published: Value,
    pub ours: Value,
    pub unit: String,
    pub tolerance: String,
    pub within: bool,
    /// Where the published value comes from.
    pub source: String,
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
            quantity: quantity.into(),
            published: target.published(),
            within: target.holds(&ours),
            ours,
            unit: unit.into(),
            tolerance: target.tolerance(),
            source: source.into(),
        }
    }
}

/// The table as text for the terminal.
pub fn table_text(checks: &[Check]) -> String {
    let header = [
        "experiment",
        "id",
        "quantity",
        "published",
        "ours",
        "unit",
        "tolerance",
        "within",
    ];
    let rows: Vec<[String; 8]> = checks
        .iter()
        .map(|c| {
            [
                c.experiment.clone(),
                c.id.clone(),
                c.quantity.clone(),
                c.published.to_string(),
                c.ours.to_string(),
                c.unit.clone(),
                c.tolerance.clone(),
                if c.within { "yes".into() } else { "NO".into() },
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            s.push_str(cell);
            if i + 1 < cells.len() {
                s.extend(std::iter::repeat_n(' ', w - cell.chars().count()));
            }
        }
        s.push('\n');
        s
    };
    let mut out = line(&header.map(String::from));
    for r in &rows {
        out.push_str(&line(r));
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
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].find("published"), lines[1].find("81.04"));
    }
}
