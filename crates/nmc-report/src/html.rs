//! The report page: one self-contained `index.html` (inline SVG, inline CSS, no scripts from
//! elsewhere), which opens from disk in any browser without a server.

use crate::check::{Check, Kind, Tally};
use crate::scoreboard::{self, Entry, Group, Scoreboard};
use crate::{ReportError, write_file};
use std::fmt::Write;
use std::path::Path;

/// One experiment's part of the page.
#[derive(Clone, Debug, Default)]
pub struct Section {
    /// The experiment's id, also the section's HTML anchor (`ko-v2-throughput`).
    pub id: String,
    /// The experiment's title, shown as the section heading.
    pub title: String,
    /// The publication the experiment reproduces.
    pub source: String,
    /// The user's guide's chapter that explains the experiment, as its path from the
    /// repository's root (`docs/src/explanation/ko-1977.md`). The section links to it as
    /// `../../` + the path: right for the report in `out/reproduce/` of a checkout, and the
    /// link's text names the page wherever the report is.
    pub chapter: Option<String>,
    /// Paragraphs of explanation (plain text).
    pub notes: Vec<String>,
    /// The experiment's rows of the reproduce table.
    pub checks: Vec<Check>,
    /// (caption, SVG document).
    pub plots: Vec<(String, String)>,
    /// Data files written for this section, relative to the page.
    pub files: Vec<String>,
}

/// The whole report page: the headline, the scoreboard, every row and each experiment's section.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The page title and top heading.
    pub title: String,
    /// The seed every result on the page was made with.
    pub seed: u64,
    /// The nmc version that made the report.
    pub nmc_version: String,
    /// The command that made the report, shown under the title.
    pub command: String,
    /// One section per experiment, in the order shown.
    pub sections: Vec<Section>,
    /// The verdict of each published quantity, shown first when present.
    pub scoreboard: Option<Scoreboard>,
}

/// Escapes `&`, `<`, `>` and `"` for HTML text and attribute values.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The CSS class of a row: whether it is within, and whether it counts.
fn row_class(c: &Check) -> &'static str {
    match (c.within, c.kind) {
        (true, Kind::Emergent) => "ok",
        (false, Kind::Emergent) => "miss",
        (true, _) => "ok-uncounted",
        (false, _) => "miss-uncounted",
    }
}

/// The class the misses filter reads: a row within its tolerance, or a quantity reproduced, is
/// hidden when only misses are shown.
fn filter_class(within: bool) -> &'static str {
    if within { "within" } else { "outside" }
}

/// The anchor of a published quantity's line on the scoreboard.
fn quantity_anchor(figure: &str) -> String {
    let slug: String = figure
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("q-{slug}")
}

fn checks_table(out: &mut String, checks: &[Check], with_experiment: bool) {
    out.push_str("<table class=\"rows\"><thead><tr>");
    if with_experiment {
        out.push_str("<th>experiment</th>");
    }
    out.push_str("<th>id</th><th>quantity</th><th>published</th><th>ours</th><th>unit</th><th>tolerance</th><th>within</th><th>kind</th><th>source</th></tr></thead><tbody>\n");
    for c in checks {
        let class = row_class(c);
        let kind = if c.why.is_empty() {
            escape(c.kind.name())
        } else {
            format!(
                "{}<br><small>{}</small>",
                escape(c.kind.name()),
                escape(&c.why)
            )
        };
        let ours = if c.note.is_empty() {
            escape(&c.ours.to_string())
        } else {
            format!(
                "{}<br><small class=\"note\">{}</small>",
                escape(&c.ours.to_string()),
                escape(&c.note)
            )
        };
        let _ = write!(out, "<tr class=\"{}\">", filter_class(c.within));
        if with_experiment {
            let _ = write!(
                out,
                "<td><a href=\"#{0}\">{0}</a></td>",
                escape(&c.experiment)
            );
        }
        let _ = writeln!(
            out,
            "<td><a href=\"#{}\">{}</a></td><td>{}</td><td>{}</td><td>{ours}</td><td>{}</td><td>{}</td><td class=\"{class}\">{}</td><td>{kind}</td><td>{}</td></tr>",
            quantity_anchor(&c.figure),
            escape(&c.id),
            escape(&c.quantity),
            escape(&c.published.to_string()),
            escape(&c.unit),
            escape(&c.tolerance),
            if c.within { "yes" } else { "no" },
            escape(&c.source),
        );
    }
    out.push_str("</tbody></table>\n");
}

/// A note as HTML: text between lines of three backticks is preformatted (the tables of the
/// papers beside ours); a note of several lines without them is preformatted whole; the rest
/// are paragraphs.
fn note_html(out: &mut String, note: &str) {
    if !note.contains('\n') {
        let _ = writeln!(out, "<p>{}</p>", escape(note));
        return;
    }
    if !note.lines().any(|l| l.trim() == "```") {
        let _ = writeln!(out, "<pre>{}</pre>", escape(note.trim_end()));
        return;
    }
    let mut fenced = false;
    let mut block: Vec<&str> = Vec::new();
    let flush = |out: &mut String, block: &mut Vec<&str>, fenced: bool| {
        if fenced {
            let _ = writeln!(out, "<pre>{}</pre>", escape(&block.join("\n")));
        } else {
            for para in block.join("\n").split("\n\n") {
                if !para.trim().is_empty() {
                    let _ = writeln!(out, "<p>{}</p>", escape(para.trim()));
                }
            }
        }
        block.clear();
    };
    for line in note.lines() {
        if line.trim() == "```" {
            flush(out, &mut block, fenced);
            fenced = !fenced;
        } else {
            block.push(line);
        }
    }
    flush(out, &mut block, fenced);
}

/// The scoreboard's table of one group of quantities.
fn board_table(out: &mut String, entries: &[&Entry], sections: &[Section]) {
    out.push_str("<table class=\"board\"><thead><tr><th>quantity</th><th>paper, where</th><th>what</th><th>published</th><th>verdict</th><th>counted rows within</th><th>first miss, and why (our reading)</th><th>shown in</th></tr></thead><tbody>\n");
    for e in entries {
        let f = &e.figure;
        let rows = if e.counted == 0 {
            format!("none of {} counted", e.rows)
        } else {
            format!("{} of {}", e.within, e.counted)
        };
        let mut why = String::new();
        if let (Some(v), Some(on)) = (e.calibrated, &e.calibrated_on) {
            let _ = write!(
                why,
                "<strong>calibrated: {v}</strong>, {} of {} out-of-sample rows within ({})<br>",
                e.calibrated_within,
                e.calibrated_rows,
                escape(on)
            );
        }
        if !e.reproduced() {
            if let Some(m) = e.misses_text() {
                why.push_str(&escape(&m));
            }
            if !f.short.is_empty() {
                let _ = write!(why, "<br><em>{}</em>", escape(f.short));
            }
        }
        let shown: Vec<String> = sections
            .iter()
            .filter(|s| s.checks.iter().any(|c| c.figure == f.id))
            .map(|s| format!("<a href=\"#{0}\">{0}</a>", escape(&s.id)))
            .collect();
        let _ = writeln!(
            out,
            "<tr id=\"{anchor}\" class=\"{within}\"><td class=\"key\">{id}</td><td>{paper}, {src}</td><td>{what}</td><td>{published}</td><td class=\"verdict {vclass}\">{verdict}</td><td>{rows}</td><td>{why}</td><td>{shown}</td></tr>",
            anchor = quantity_anchor(f.id),
            within = filter_class(e.reproduced()),
            id = escape(f.id),
            paper = escape(f.paper),
            src = escape(f.source),
            what = escape(f.quantity),
            published = escape(f.published),
            vclass = e.verdict.name().replace(' ', "-"),
            verdict = e.verdict,
            shown = shown.join(", "),
        );
    }
    out.push_str("</tbody></table>\n");
}

/// What the page's filter does: with the box ticked, rows within their tolerance (and
/// quantities reproduced) are hidden in every table. Plain script, no server: the page opens
/// from disk. `#misses` in the address ticks it on load.
const SCRIPT: &str = "<script>\n(function(){\n  var box=document.getElementById('only-misses');\n  function apply(){document.body.classList.toggle('only-misses',box.checked);}\n  box.addEventListener('change',apply);\n  if(location.hash==='#misses'){box.checked=true;}\n  apply();\n})();\n</script>\n";

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:1em 0;font-size:13px;width:100%}\
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top;overflow-wrap:break-word}td.key,td.verdict{white-space:nowrap}\
th{background:#f3f3f3}td.ok{background:#e6f4e6}td.miss{background:#fbe3e3;font-weight:bold}\
td.ok-uncounted{background:#f1f6f1;color:#666}td.miss-uncounted{background:#f8eeee;color:#666}\
td.verdict{font-weight:bold}td.reproduced{background:#e6f4e6}td.partly{background:#fdf3d8}\
td.missed{background:#fbe3e3}td.by-construction{background:#eee;color:#555}\
small.note{color:#7a4b00}pre{font-size:12px;background:#f7f7f7;padding:.5em;overflow-x:auto;max-width:100%}\
svg{max-width:100%;height:auto}figure{margin:1em 0}figcaption{font-size:13px;color:#555}\
section{border-top:2px solid #ddd;margin-top:2em}.meta{color:#666;font-size:13px}\
.headline{font-size:18px;font-weight:bold}nav ol{columns:2;font-size:14px}\
.filter{position:sticky;top:0;background:#fff;padding:.4em 0;border-bottom:1px solid #ddd;z-index:1}\
body.only-misses tr.within{display:none}";

impl Report {
    /// Every row of the report, in its sections' order.
    pub fn rows(&self) -> Vec<Check> {
        self.sections
            .iter()
            .flat_map(|s| s.checks.iter().cloned())
            .collect()
    }

    /// The page as one self-contained HTML document.
    pub fn to_html(&self) -> String {
        let mut out = String::new();
        let all = self.rows();
        let headline = Tally::of(&all).headline();
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title}</title>\n\
<style>{STYLE}</style></head><body>\n<h1>{title}</h1>\n\
<p class=\"meta\">nmc {ver} &middot; seed {seed} &middot; <code>{cmd}</code></p>\n",
            title = escape(&self.title),
            ver = escape(&self.nmc_version),
            seed = self.seed,
            cmd = escape(&self.command),
        );
        // The scoreboard first (issue 31), then the contents, the filter and every row.
        if let Some(board) = &self.scoreboard {
            scoreboard_html(&mut out, board, &self.sections);
        }
        out.push_str("<nav id=\"contents\"><h2>Contents</h2><ol>\n");
        if self.scoreboard.is_some() {
            out.push_str("<li><a href=\"#scoreboard\">Scoreboard: one verdict per published quantity</a></li>\n");
        }
        out.push_str("<li><a href=\"#rows\">Every row: published beside ours</a></li>\n");
        for s in &self.sections {
            let _ = writeln!(
                out,
                "<li><a href=\"#{id}\">{id}</a>: {title}</li>",
                id = escape(&s.id),
                title = escape(&s.title)
            );
        }
        out.push_str("</ol></nav>\n");
        let _ = writeln!(
            out,
            "<div class=\"filter\"><label><input type=\"checkbox\" id=\"only-misses\"> show only what is outside its tolerance</label> \
<span class=\"meta\">(in every table below; <code>index.html#misses</code> opens with it ticked)</span></div>"
        );
        let _ = writeln!(
            out,
            "<section id=\"rows\"><h2>Every row</h2>\n<p class=\"meta\">{headline}</p>\n<p class=\"meta\">Kinds: an <em>emergent</em> row is a value the mechanism \
produces, which a model wrong about the network could get wrong; only these count. A \
<em>restated input</em> equals a setting of the scenario (or follows from it by arithmetic); a \
<em>sanity bound</em> holds by construction of the scenario or procedure; a <em>variant</em> repeats \
another row's published figure by another method; an <em>expectation</em> row is compared with what the paper's author expected, not with a measurement; an <em>in-sample</em> row is scored on the data \
its model was fitted on. All are shown, with the reason, and not counted. A row's id links to its \
quantity on the scoreboard.</p>",
            headline = escape(&headline),
        );
        checks_table(&mut out, &all, true);
        out.push_str("</section>\n");
        for s in &self.sections {
            section_html(&mut out, s, self.scoreboard.as_ref());
        }
        out.push_str(SCRIPT);
        out.push_str("</body></html>\n");
        out
    }

    /// Writes the page ([`Report::to_html`]) to `path`.
    pub fn write(&self, path: &Path) -> Result<(), ReportError> {
        write_file(path, self.to_html().as_bytes())
    }
}

/// The scoreboard's section: its headline, the papers' tallies, the rule, and a table per
/// group of quantities.
fn scoreboard_html(out: &mut String, board: &Scoreboard, sections: &[Section]) {
    out.push_str("<section id=\"scoreboard\"><h2>Scoreboard</h2>\n");
    if let Some(h) = board.headline() {
        let _ = writeln!(out, "<p class=\"headline\">{}.</p>", escape(&h));
    }
    if !board.papers.is_empty() {
        out.push_str(
            "<table class=\"papers\"><tr><th>Paper (SPEC §3 quantities)</th><th>By paper</th></tr>\n",
        );
        for t in &board.papers {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td></tr>",
                escape(t.paper),
                escape(&t.text())
            );
        }
        out.push_str("</table>\n");
    }
    let _ = writeln!(
        out,
        "<p class=\"meta\">{} A miss is a finding about the model, not a broken build: \
         each is explained beside it, and in the experiment's section.</p>",
        escape(scoreboard::RULE)
    );
    for g in Group::ALL {
        let entries: Vec<&Entry> = board.group(g).collect();
        if entries.is_empty() {
            continue;
        }
        let [r, p, m, b] = board.counts(g);
        let _ = writeln!(
            out,
            "<h3>{}</h3><p class=\"meta\">{r} reproduced, {p} partly, {m} missed, {b} by construction</p>",
            escape(g.heading())
        );
        board_table(out, &entries, sections);
    }
    out.push_str("</section>\n");
}

/// One experiment's section: its source and chapter, its quantities' verdicts (with what is
/// short where one is not reproduced), its notes, rows, plots and files.
fn section_html(out: &mut String, s: &Section, scoreboard: Option<&Scoreboard>) {
    let _ = writeln!(
        out,
        "<section id=\"{id}\"><h2>{id}: {title}</h2><p class=\"meta\">Source: {src}</p>",
        id = escape(&s.id),
        title = escape(&s.title),
        src = escape(&s.source)
    );
    if let Some(page) = &s.chapter {
        let _ = writeln!(
            out,
            "<p class=\"meta chapter\">The book's chapter: <a href=\"../../{page}\">{page}</a></p>",
            page = escape(page)
        );
    }
    // Each quantity shown here, with its verdict and, where it is not reproduced,
    // why: the misses are explained where they are shown.
    if let Some(board) = scoreboard {
        let here: Vec<&Entry> = board
            .quantities
            .iter()
            .filter(|e| s.checks.iter().any(|c| c.figure == e.figure.id))
            .collect();
        if !here.is_empty() {
            out.push_str("<ul class=\"verdicts\">\n");
            for e in here {
                let _ = write!(
                    out,
                    "<li class=\"{}\"><a href=\"#{}\">{}</a> ({}): <strong>{}</strong>",
                    filter_class(e.reproduced()),
                    quantity_anchor(e.figure.id),
                    escape(e.figure.id),
                    escape(e.figure.quantity),
                    e.verdict
                );
                if !e.reproduced() && !e.figure.short.is_empty() {
                    let _ = write!(out, " — {}", escape(e.figure.short));
                }
                out.push_str("</li>\n");
            }
            out.push_str("</ul>\n");
        }
    }
    for n in &s.notes {
        note_html(out, n);
    }
    if !s.checks.is_empty() {
        checks_table(out, &s.checks, false);
    }
    for (caption, svg) in &s.plots {
        let _ = writeln!(
            out,
            "<figure>{svg}<figcaption>{}</figcaption></figure>",
            escape(caption)
        );
    }
    if !s.files.is_empty() {
        out.push_str("<p class=\"meta\">Data: ");
        let links: Vec<String> = s
            .files
            .iter()
            .map(|f| format!("<a href=\"{0}\">{0}</a>", escape(f)))
            .collect();
        out.push_str(&links.join(", "));
        out.push_str("</p>\n");
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Target, Value};

    #[test]
    fn page_holds_table_and_plots_and_escapes_text() {
        let c = Check::compare(
            "chain",
            "G-1",
            "delay <mean>",
            "ms",
            "issue 2",
            Target::Rel {
                value: 81.04,
                rel: 0.001,
            },
            Value::Num(81.04),
        );
        let r = Report {
            title: "nmc".into(),
            seed: 7,
            sections: vec![Section {
                id: "chain".into(),
                checks: vec![c],
                plots: vec![("a plot".into(), "<svg></svg>".into())],
                ..Default::default()
            }],
            ..Default::default()
        };
        let html = r.to_html();
        assert!(html.contains("delay &lt;mean&gt;"));
        assert!(html.contains("<figure><svg></svg>"));
        assert!(html.contains("seed 7"));
        assert!(html.contains("1 of 1 emergent rows within tolerance"));
        assert!(html.contains("<td>emergent</td>"));
        assert!(html.contains("<tr class=\"within\">"));
        assert!(html.contains("id=\"only-misses\""));
        // No chapter named, no link.
        assert!(!html.contains("The book's chapter"));
    }

    /// Issue 59: an experiment's section links to its chapter of the book.
    #[test]
    fn a_section_links_to_its_chapter() {
        let r = Report {
            sections: vec![Section {
                id: "ko-v2-throughput".into(),
                chapter: Some("docs/src/explanation/ko-1977.md".into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert!(r.to_html().contains(
            "The book's chapter: <a href=\"../../docs/src/explanation/ko-1977.md\">docs/src/explanation/ko-1977.md</a>"
        ));
    }

    #[test]
    fn notes_with_fences_or_lines_are_preformatted() {
        let mut out = String::new();
        note_html(&mut out, "Before:\n\n```\nA  1\nB  2\n```\nAfter <x>.");
        assert_eq!(
            out,
            "<p>Before:</p>\n<pre>A  1\nB  2</pre>\n<p>After &lt;x&gt;.</p>\n"
        );
        out.clear();
        note_html(&mut out, "Table:\n+--+\n|1 |\n");
        assert_eq!(out, "<pre>Table:\n+--+\n|1 |</pre>\n");
        out.clear();
        note_html(&mut out, "one line");
        assert_eq!(out, "<p>one line</p>\n");
    }
}
