//! The scoreboard: one verdict per published quantity (issue 31).
//!
//! The reproduce table has hundreds of rows, and one published figure may give many of them
//! (RFC 889's table gives 7 rows on each of 13 paths). The scoreboard answers the question a
//! reader asks first — which of the papers' findings does nmc reproduce? — with one verdict per
//! published quantity ([`Figure`]), from the rows that belong to it ([`Check::figure`]) by one
//! rule, [`Verdict::of`]:
//!
//! * only *counted* rows (kind [`Kind::Emergent`]) decide; restated inputs, sanity bounds,
//!   variants and in-sample rows are shown but never decide;
//! * **reproduced**: every counted row within its tolerance;
//! * **partly**: some counted rows within, some not;
//! * **missed**: no counted row within;
//! * **by construction**: the quantity has rows but none is counted (all restate inputs or
//!   cannot fail) — it is shown and not counted in the headline.
//!
//! A quantity may also have rows scored out of sample under a *calibrated* profile (kind
//! [`Kind::Calibrated`], issue 56: one constant no source gives, fitted on another row). They
//! never change the verdict above; they give the quantity a second, *calibrated* verdict by the
//! same rule ([`Verdict::calibrated`]), and the headline says how many quantities are reproduced
//! with and without calibration.

use crate::check::{Check, Kind, TABLE_WIDTH, wrap};
use serde::Serialize;
use std::fmt;

/// The rule of [`Verdict::of`], as the report and `reproduce.json` state it.
pub const RULE: &str = "Each published quantity gets one verdict from its counted (emergent) rows: \
reproduced when every counted row is within its tolerance, partly when some are, missed when none \
is, and by construction when it has rows but none is counted (every row restates an input, cannot \
fail, repeats another row by another method or is scored in-sample). Rows scored out of sample \
under a calibrated profile give a second, calibrated verdict by the same rule and never change \
the first. Only the quantities of SPEC §3 make the headline.";

/// Where a published quantity comes from, which decides whether it makes the headline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Group {
    /// One of the published figures of the five source papers that `SPEC.md` §3 lists: the
    /// headline counts these.
    #[serde(rename = "published (SPEC §3)")]
    Spec,
    /// A finding of the source papers that SPEC §3 does not list.
    #[serde(rename = "from the source papers, beyond SPEC §3")]
    Seed,
    /// A published figure from a document that is not one of the five sources.
    #[serde(rename = "from other sources")]
    Other,
    /// A check of the simulator against arithmetic or queueing theory, not a published
    /// measurement.
    #[serde(rename = "textbook check")]
    Textbook,
}

impl Group {
    /// Every group, in the order the scoreboard shows them.
    pub const ALL: [Group; 4] = [Group::Spec, Group::Seed, Group::Other, Group::Textbook];

    /// The heading the scoreboard gives the group.
    pub fn heading(self) -> &'static str {
        match self {
            Group::Spec => "The published quantities of the five source papers (SPEC §3)",
            Group::Seed => "Further findings of the source papers (not in SPEC §3's list)",
            Group::Other => "Published figures from other documents (not the five sources)",
            Group::Textbook => "Textbook checks of the simulator (not published measurements)",
        }
    }
}

/// One published quantity, as its paper states it.
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    /// The id its rows start with (`KO-3`).
    pub id: &'static str,
    /// Where the quantity comes from; only [`Group::Spec`] makes the headline.
    pub group: Group,
    /// The paper, as the scoreboard groups by it (`Kleinrock & Opderbeck 1977`).
    pub paper: &'static str,
    /// Where in the paper (`Fig. 4`).
    pub source: &'static str,
    /// What the quantity is, in words.
    pub quantity: &'static str,
    /// The value as the paper prints it (a target, quoted; never an input).
    pub published: &'static str,
    /// What we think is short when the quantity is not reproduced: our reading, shown beside
    /// the rows that miss (it does not decide anything).
    pub short: &'static str,
}

/// A quantity's verdict; see the module doc for the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Verdict {
    /// Every counted row within its tolerance.
    #[serde(rename = "reproduced")]
    Reproduced,
    /// Some counted rows within, some not.
    #[serde(rename = "partly")]
    Partly,
    /// No counted row within.
    #[serde(rename = "missed")]
    Missed,
    /// Rows, but none counted: every row restates an input, cannot fail, is a variant or is
    /// in-sample.
    #[serde(rename = "by construction")]
    ByConstruction,
}

impl Verdict {
    /// Every verdict, in the order the scoreboard counts them.
    pub const ALL: [Verdict; 4] = [
        Verdict::Reproduced,
        Verdict::Partly,
        Verdict::Missed,
        Verdict::ByConstruction,
    ];

    /// The verdict of a quantity whose rows are `rows`; `None` when it has none (not run).
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a Check>) -> Option<Verdict> {
        let (mut any, mut counted, mut within) = (false, 0usize, 0usize);
        for c in rows {
            any = true;
            if c.kind == Kind::Emergent {
                counted += 1;
                within += usize::from(c.within);
            }
        }
        Some(match (any, counted, within) {
            (false, ..) => return None,
            (true, 0, _) => Verdict::ByConstruction,
            (true, n, w) if w == n => Verdict::Reproduced,
            (true, _, 0) => Verdict::Missed,
            _ => Verdict::Partly,
        })
    }

    /// The calibrated verdict of a quantity whose rows are `rows`: the same rule over its
    /// rows of kind [`Kind::Calibrated`] alone; `None` when it has none.
    pub fn calibrated<'a>(rows: impl IntoIterator<Item = &'a Check>) -> Option<Verdict> {
        let (mut counted, mut within) = (0usize, 0usize);
        for c in rows {
            if c.kind == Kind::Calibrated {
                counted += 1;
                within += usize::from(c.within);
            }
        }
        Some(match (counted, within) {
            (0, _) => return None,
            (n, w) if w == n => Verdict::Reproduced,
            (_, 0) => Verdict::Missed,
            _ => Verdict::Partly,
        })
    }

    /// The name used on the scoreboard, in the report and in `reproduce.json`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::Partly => "partly",
            Verdict::Missed => "missed",
            Verdict::ByConstruction => "by construction",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One quantity on the scoreboard.
#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    /// The quantity as its paper states it.
    #[serde(flatten)]
    pub figure: Figure,
    /// Its verdict from its rows, by [`Verdict::of`].
    pub verdict: Verdict,
    /// Rows of this quantity, counted or not.
    pub rows: usize,
    /// Counted (emergent) rows, and how many of them are within.
    pub counted: usize,
    /// How many of the counted rows are within their tolerance.
    pub within: usize,
    /// The ids of the counted rows outside their tolerance.
    pub misses: Vec<String>,
    /// The first counted miss, as "id: ours X against published Y unit".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_miss: Option<String>,
    /// The verdict of its rows scored under a calibrated profile ([`Verdict::calibrated`]),
    /// if it has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibrated: Option<Verdict>,
    /// What was fitted and on which row, as the first calibrated row says it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibrated_on: Option<String>,
    /// Rows scored out of sample under the calibrated profile, and how many are within
    /// (both 0 when it has none).
    #[serde(skip_serializing_if = "is_zero")]
    pub calibrated_rows: usize,
    /// How many of [`Entry::calibrated_rows`] are within their tolerance.
    #[serde(skip_serializing_if = "is_zero")]
    pub calibrated_within: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Entry {
    /// The first miss and how many more there are ("KO-3 2 hops: ours … (and 3 more)"), for
    /// the terminal and the report alike.
    pub fn misses_text(&self) -> Option<String> {
        let first = self.first_miss.as_ref()?;
        Some(match self.misses.len().saturating_sub(1) {
            0 => first.clone(),
            more => format!("{first} (and {more} more)"),
        })
    }

    /// Whether the quantity is reproduced: the report's filter hides it with the rows within.
    pub fn reproduced(&self) -> bool {
        self.verdict == Verdict::Reproduced
    }
}

/// Every quantity that has rows in a run, in the order of the list of figures.
#[derive(Clone, Debug, Serialize)]
pub struct Scoreboard {
    /// The rule the verdicts follow ([`RULE`]), stated with them.
    pub rule: &'static str,
    /// One entry per quantity with rows, in the order of the list of figures.
    pub quantities: Vec<Entry>,
    /// The headline per paper, over its SPEC §3 quantities (issue 56: one table's row count
    /// must not set the figure).
    pub papers: Vec<PaperTally>,
}

/// One paper's share of the headline: its SPEC §3 quantities by verdict, and its counted rows.
#[derive(Clone, Debug, Serialize)]
pub struct PaperTally {
    /// The paper, as [`Figure::paper`] names it.
    pub paper: &'static str,
    /// Its quantities with each verdict, in [`Verdict::ALL`]'s order.
    pub verdicts: [usize; 4],
    /// The same with each calibrated verdict in place of its own where it has one.
    pub verdicts_calibrated: [usize; 4],
    /// Its counted (emergent) rows.
    pub counted: usize,
    /// How many of those are within tolerance.
    pub within: usize,
}

/// "4 reproduced, 3 partly" from counts in [`Verdict::ALL`]'s order, verdicts with none left out.
fn verdict_counts(counts: [usize; 4]) -> String {
    Verdict::ALL
        .iter()
        .zip(counts)
        .filter(|(_, n)| *n > 0)
        .map(|(v, n)| format!("{n} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl PaperTally {
    /// "4 reproduced, 3 partly, 2 missed, 1 by construction; 40 of 52 counted rows within"
    /// (verdicts with no quantity left out).
    pub fn text(&self) -> String {
        let mut s = verdict_counts(self.verdicts);
        if self.verdicts_calibrated != self.verdicts {
            s.push_str(&format!(
                " (with calibration: {})",
                verdict_counts(self.verdicts_calibrated)
            ));
        }
        s.push_str(&format!(
            "; {} of {} counted rows within",
            self.within, self.counted
        ));
        s
    }
}

/// A scoreboard built from rows whose quantity is not in the list of figures.
#[derive(Debug, thiserror::Error)]
#[error("rows belong to no published quantity in the list: {0}")]
pub struct UnknownFigures(pub String);

impl Scoreboard {
    /// The verdict of every quantity in `figures` that has rows in `checks`. Every row must
    /// belong to a quantity of the list.
    pub fn of(figures: &[Figure], checks: &[Check]) -> Result<Scoreboard, UnknownFigures> {
        let unknown: Vec<&str> = checks
            .iter()
            .filter(|c| !figures.iter().any(|f| f.id == c.figure))
            .map(|c| c.id.as_str())
            .collect();
        if !unknown.is_empty() {
            return Err(UnknownFigures(unknown.join(", ")));
        }
        let quantities = figures
            .iter()
            .filter_map(|f| {
                let rows: Vec<&Check> = checks.iter().filter(|c| c.figure == f.id).collect();
                let verdict = Verdict::of(rows.iter().copied())?;
                let counted: Vec<&&Check> = rows.iter().filter(|c| c.counts()).collect();
                let misses: Vec<&&Check> = counted.iter().copied().filter(|c| !c.within).collect();
                Some(Entry {
                    figure: f.clone(),
                    verdict,
                    rows: rows.len(),
                    counted: counted.len(),
                    within: counted.len() - misses.len(),
                    first_miss: misses.first().map(|c| {
                        let unit = if c.unit.is_empty() {
                            String::new()
                        } else {
                            format!(" {}", c.unit)
                        };
                        format!("{}: ours {} against {}{unit}", c.id, c.ours, c.published)
                    }),
                    misses: misses.iter().map(|c| c.id.clone()).collect(),
                    calibrated: Verdict::calibrated(rows.iter().copied()),
                    calibrated_on: rows
                        .iter()
                        .find(|c| c.kind == Kind::Calibrated)
                        .map(|c| c.why.clone()),
                    calibrated_rows: rows.iter().filter(|c| c.kind == Kind::Calibrated).count(),
                    calibrated_within: rows
                        .iter()
                        .filter(|c| c.kind == Kind::Calibrated && c.within)
                        .count(),
                })
            })
            .collect::<Vec<Entry>>();
        let mut papers: Vec<PaperTally> = Vec::new();
        for e in quantities.iter().filter(|e| e.figure.group == Group::Spec) {
            let k = match papers.iter().position(|p| p.paper == e.figure.paper) {
                Some(k) => k,
                None => {
                    papers.push(PaperTally {
                        paper: e.figure.paper,
                        verdicts: [0; 4],
                        verdicts_calibrated: [0; 4],
                        counted: 0,
                        within: 0,
                    });
                    papers.len() - 1
                }
            };
            // Verdict::ALL lists the verdicts in declaration order.
            let p = &mut papers[k];
            p.verdicts[e.verdict as usize] += 1;
            p.verdicts_calibrated[e.calibrated.unwrap_or(e.verdict) as usize] += 1;
            p.counted += e.counted;
            p.within += e.within;
        }
        Ok(Scoreboard {
            rule: RULE,
            quantities,
            papers,
        })
    }

    /// The quantities of one group.
    pub fn group(&self, g: Group) -> impl Iterator<Item = &Entry> {
        self.quantities.iter().filter(move |e| e.figure.group == g)
    }

    /// How many quantities of a group have each verdict, in [`Verdict::ALL`]'s order.
    pub fn counts(&self, g: Group) -> [usize; 4] {
        Verdict::ALL.map(|v| self.group(g).filter(|e| e.verdict == v).count())
    }

    /// The same with each quantity's calibrated verdict in place of its own where it has one.
    pub fn counts_calibrated(&self, g: Group) -> [usize; 4] {
        Verdict::ALL.map(|v| {
            self.group(g)
                .filter(|e| e.calibrated.unwrap_or(e.verdict) == v)
                .count()
        })
    }

    /// "Of the 21 published quantities (SPEC §3): 6 reproduced, 8 partly, 5 missed, 2 by
    /// construction (not counted)", then, when some have a calibrated verdict, the same counts
    /// with it ("; with calibration (KO-9): 7 reproduced, …"). `None` when the run has none of
    /// them.
    pub fn headline(&self) -> Option<String> {
        let n = self.group(Group::Spec).count();
        (n > 0).then(|| {
            let counts = |[r, p, m, b]: [usize; 4]| {
                let mut s = format!("{r} reproduced, {p} partly, {m} missed");
                if b > 0 {
                    s.push_str(&format!(", {b} by construction (not counted)"));
                }
                s
            };
            let mut s = format!(
                "Of the {n} published quantities run (SPEC §3): {}",
                counts(self.counts(Group::Spec))
            );
            let calibrated: Vec<&str> = self
                .group(Group::Spec)
                .filter(|e| e.calibrated.is_some())
                .map(|e| e.figure.id)
                .collect();
            if !calibrated.is_empty() {
                s.push_str(&format!(
                    "; with calibration ({}): {}",
                    calibrated.join(", "),
                    counts(self.counts_calibrated(Group::Spec))
                ));
            }
            s
        })
    }

    /// The scoreboard for the terminal, at most [`TABLE_WIDTH`] columns: the headline, one line
    /// per paper, then each quantity with its verdict, its counted rows within, what the paper
    /// prints and, for one not reproduced, its first miss and our reading of what is short.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut put = |first: &str, indent: usize, text: &str| {
            let pad = " ".repeat(indent);
            let width = TABLE_WIDTH - indent;
            let lead = first.chars().count();
            for (k, l) in wrap(text, width - lead.min(width / 2)).iter().enumerate() {
                if k == 0 {
                    out.push_str(&format!("{pad}{first}{l}\n"));
                } else {
                    out.push_str(&format!("{pad}{}{l}\n", " ".repeat(lead.min(width / 2))));
                }
            }
        };
        if let Some(h) = self.headline() {
            put("", 0, &format!("{h}."));
        }
        put(
            "",
            0,
            "Each quantity: its verdict, its counted rows within / counted (none: every row \
             restates an input or cannot fail), what the paper states; for one not reproduced, \
             its first miss and our reading of why.",
        );
        for g in Group::ALL {
            let entries: Vec<&Entry> = self.group(g).collect();
            if entries.is_empty() {
                continue;
            }
            put("", 0, &format!("{}:", g.heading()));
            let mut papers: Vec<&str> = Vec::new();
            for e in &entries {
                if !papers.contains(&e.figure.paper) {
                    papers.push(e.figure.paper);
                }
            }
            for p in papers {
                if g == Group::Spec
                    && let Some(t) = self.papers.iter().find(|t| t.paper == p)
                {
                    put(&format!("{p}: "), 2, &t.text());
                }
                let lead = if g == Group::Spec { "    " } else { "" };
                let by: Vec<String> = Verdict::ALL
                    .iter()
                    .filter_map(|v| {
                        let ids: Vec<&str> = entries
                            .iter()
                            .filter(|e| e.figure.paper == p && e.verdict == *v)
                            .map(|e| e.figure.id)
                            .collect();
                        (!ids.is_empty()).then(|| format!("{} {}", v, ids.join(" ")))
                    })
                    .collect();
                if g == Group::Spec {
                    put(lead, 2, &by.join("; "));
                } else {
                    put(&format!("{p}: "), 2, &by.join("; "));
                }
            }
            for e in &entries {
                let rows = if e.counted == 0 {
                    "none".to_string()
                } else {
                    format!("{}/{}", e.within, e.counted)
                };
                let head = format!("{:<10} {:<15} {rows:>6}  ", e.figure.id, e.verdict.name());
                put(
                    &head,
                    4,
                    &format!(
                        "{} ({}): {}",
                        e.figure.quantity, e.figure.source, e.figure.published
                    ),
                );
                if let (Some(v), Some(on)) = (e.calibrated, &e.calibrated_on) {
                    let pad = " ".repeat(head.chars().count());
                    put(
                        &pad,
                        4,
                        &format!(
                            "calibrated: {v}, {} of {} out-of-sample rows within ({on})",
                            e.calibrated_within, e.calibrated_rows
                        ),
                    );
                }
                if !e.reproduced() {
                    let pad = " ".repeat(head.chars().count());
                    if let Some(m) = e.misses_text() {
                        put(&pad, 4, &format!("first miss: {m}"));
                    }
                    if !e.figure.short.is_empty() {
                        put(&pad, 4, &format!("why: {}", e.figure.short));
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Target, Value};

    fn row(id: &str, ours: f64) -> Check {
        Check::compare(
            "e",
            id,
            "q",
            "ms",
            "src",
            Target::Abs {
                value: 1.0,
                abs: 0.5,
            },
            Value::Num(ours),
        )
    }

    fn fig(id: &'static str, group: Group) -> Figure {
        Figure {
            id,
            group,
            paper: "P",
            source: "Fig. 1",
            quantity: "a quantity",
            published: "1 ms",
            short: "the model is short of something",
        }
    }

    #[test]
    fn the_verdict_rule() {
        let (a, b) = (row("A x", 1.0), row("A y", 9.0));
        assert_eq!(Verdict::of([&a]), Some(Verdict::Reproduced));
        assert_eq!(Verdict::of([&a, &b]), Some(Verdict::Partly));
        assert_eq!(Verdict::of([&b]), Some(Verdict::Missed));
        assert_eq!(Verdict::of([]), None);
        // Rows that are not counted never decide: a variant within does not rescue a miss, and
        // a quantity of restated inputs only is "by construction", however they compare.
        let mut v = row("A v", 1.0);
        v.variant("the same figure by another method");
        assert_eq!(Verdict::of([&b, &v]), Some(Verdict::Missed));
        let mut i = row("A i", 9.0);
        i.restated_input("a setting");
        assert_eq!(Verdict::of([&i]), Some(Verdict::ByConstruction));
        let mut s = row("A s", 1.0);
        s.in_sample("fitted on it");
        assert_eq!(Verdict::of([&a, &s]), Some(Verdict::Reproduced));
        // A row under a calibrated profile never decides the sourced verdict; it gives the
        // calibrated one, by the same rule over such rows alone.
        let mut c = row("A c", 1.0);
        c.calibrated("calibrated on A x");
        assert_eq!(Verdict::of([&b, &c]), Some(Verdict::Missed));
        assert_eq!(Verdict::calibrated([&b, &c]), Some(Verdict::Reproduced));
        assert_eq!(Verdict::calibrated([&a, &b]), None);
    }

    #[test]
    fn the_headline_is_given_per_paper_so_one_table_cannot_set_it() {
        // Paper Q's one quantity has many rows, all within; paper P's two quantities miss.
        let mut figures = vec![fig("A", Group::Spec), fig("B", Group::Spec)];
        figures.push(Figure {
            paper: "Q",
            ..fig("C", Group::Spec)
        });
        figures.push(fig("D", Group::Seed));
        let mut rows = vec![row("A 1", 9.0), row("B 1", 9.0), row("B 2", 1.0)];
        rows.extend((0..20).map(|k| row(&format!("C {k}"), 1.0)));
        let mut e = row("B e", 1.0);
        e.expectation("what the author expected");
        rows.push(e);
        rows.push(row("D 1", 1.0));
        let board = Scoreboard::of(&figures, &rows).unwrap();
        let by: Vec<(&str, String)> = board.papers.iter().map(|p| (p.paper, p.text())).collect();
        assert_eq!(
            by,
            [
                (
                    "P",
                    "1 partly, 1 missed; 1 of 3 counted rows within".to_string()
                ),
                (
                    "Q",
                    "1 reproduced; 20 of 20 counted rows within".to_string()
                ),
            ],
            "only SPEC §3 quantities, and an expectation row never counts"
        );
        let text = board.text();
        assert!(text.contains("P: 1 partly, 1 missed"), "{text}");
    }

    #[test]
    fn the_headline_says_what_calibration_changes() {
        let figures = [fig("A", Group::Spec), fig("B", Group::Spec)];
        let mut c = row("A c", 1.0);
        c.calibrated("calibrated on B: a constant");
        let rows = [row("A 1", 9.0), c, row("B", 1.0)];
        let board = Scoreboard::of(&figures, &rows).unwrap();
        assert_eq!(board.quantities[0].verdict, Verdict::Missed);
        assert_eq!(board.quantities[0].calibrated, Some(Verdict::Reproduced));
        assert_eq!(
            board.headline().unwrap(),
            "Of the 2 published quantities run (SPEC §3): 1 reproduced, 0 partly, 1 missed; \
             with calibration (A): 2 reproduced, 0 partly, 0 missed"
        );
        let text = board.text();
        assert!(
            text.contains(
                "calibrated: reproduced, 1 of 1 out-of-sample rows within (calibrated on B:"
            ),
            "{text}"
        );
    }

    #[test]
    fn rows_go_to_their_quantity_and_the_headline_counts_spec_only() {
        let figures = [
            fig("A", Group::Spec),
            fig("B", Group::Spec),
            fig("T", Group::Textbook),
            fig("N", Group::Spec),
        ];
        let rows = [
            row("A 1", 1.0),
            row("A 2", 5.0),
            row("B", 1.0),
            row("T x", 7.0),
        ];
        assert_eq!(rows[0].figure, "A");
        assert_eq!(rows[2].figure, "B");
        let board = Scoreboard::of(&figures, &rows).unwrap();
        // N has no rows in this run: not on the board.
        let ids: Vec<&str> = board.quantities.iter().map(|e| e.figure.id).collect();
        assert_eq!(ids, ["A", "B", "T"]);
        assert_eq!(board.quantities[0].verdict, Verdict::Partly);
        assert_eq!(board.quantities[0].misses, ["A 2"]);
        assert_eq!(
            board.quantities[0].first_miss.as_deref(),
            Some("A 2: ours 5 against 1 ms")
        );
        assert_eq!(
            board.headline().unwrap(),
            "Of the 2 published quantities run (SPEC §3): 1 reproduced, 1 partly, 0 missed"
        );
        let text = board.text();
        assert!(
            text.lines().all(|l| l.chars().count() <= TABLE_WIDTH),
            "{text}"
        );
        assert!(
            text.contains("why: the model is short of something"),
            "{text}"
        );
        assert!(text.find("SPEC §3").unwrap() < text.find("Textbook").unwrap());
        let err = Scoreboard::of(&figures[..1], &rows).unwrap_err();
        assert!(err.to_string().contains("B, T x"), "{err}");
    }
}
