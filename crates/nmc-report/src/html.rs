//! The report page: one self-contained `index.html` (inline SVG, inline CSS, no scripts from
//! elsewhere), which opens from disk in any browser without a server.

use crate::check::{Check, Kind, Tally};
use crate::{ReportError, write_file};
use std::fmt::Write;
use std::path::Path;

/// One experiment's part of the page.
#[derive(Clone, Debug, Default)]
pub struct Section {
    pub id: String,
    pub title: String,
    pub source: String,
    /// Paragraphs of explanation (plain text).
    pub notes: Vec<String>,
    pub checks: Vec<Check>,
    /// (caption, SVG document).
    pub plots: Vec<(String, String)>,
    /// Data files written for this section, relative to the page.
    pub files: Vec<String>,
}

#[derive(Clone, Debug, Default)]
pub struct Report {
    pub title: String,
    pub seed: u64,
    pub nmc_version: String,
    pub command: String,
    pub sections: Vec<Section>,
}

pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn checks_table(out: &mut String, checks: &[Check], with_experiment: bool) {
    out.push_str("<table><thead><tr>");
    if with_experiment {
        out.push_str("<th>experiment</th>");
    }
    out.push_str("<th>id</th><th>quantity</th><th>published</th><th>ours</th><th>unit</th><th>tolerance</th><th>within</th><th>kind</th><th>source</th></tr></thead><tbody>\n");
    for c in checks {
        let class = match (c.within, c.kind) {
            (true, Kind::Emergent) => "ok",
            (false, Kind::Emergent) => "miss",
            (true, _) => "ok-uncounted",
            (false, _) => "miss-uncounted",
        };
        let kind = if c.why.is_empty() {
            escape(c.kind.name())
        } else {
            format!(
                "<span title=\"{why}\">{}</span><br><small>{why}</small>",
                escape(c.kind.name()),
                why = escape(&c.why)
            )
        };
        out.push_str("<tr>");
        if with_experiment {
            let _ = write!(
                out,
                "<td><a href=\"#{0}\">{0}</a></td>",
                escape(&c.experiment)
            );
        }
        let _ = writeln!(
            out,
            "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{class}\">{}</td><td>{kind}</td><td>{}</td></tr>",
            escape(&c.id),
            escape(&c.quantity),
            escape(&c.published.to_string()),
            escape(&c.ours.to_string()),
            escape(&c.unit),
            escape(&c.tolerance),
            if c.within { "yes" } else { "no" },
            escape(&c.source),
        );
    }
    out.push_str("</tbody></table>\n");
}

impl Report {
    pub fn to_html(&self) -> String {
        let mut out = String::new();
        let all: Vec<Check> = self
            .sections
            .iter()
            .flat_map(|s| s.checks.iter().cloned())
            .collect();
        let headline = Tally::of(&all).headline();
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\n<style>\
body{{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}}\
table{{border-collapse:collapse;margin:1em 0;font-size:14px}}th,td{{border:1px solid #ccc;padding:3px 8px;text-align:left}}\
th{{background:#f3f3f3}}td:nth-child(-n+2){{white-space:nowrap}}td.ok{{background:#e6f4e6}}td.miss{{background:#fbe3e3;font-weight:bold}}\
td.ok-uncounted{{background:#f1f6f1;color:#666}}td.miss-uncounted{{background:#f8eeee;color:#666}}\
figure{{margin:1em 0}}figcaption{{font-size:13px;color:#555}}section{{border-top:2px solid #ddd;margin-top:2em}}\
.meta{{color:#666;font-size:13px}}</style></head><body>\n<h1>{title}</h1>\n\
<p class=\"meta\">nmc {ver} &middot; seed {seed} &middot; <code>{cmd}</code> &middot; {headline}</p>\n<p class=\"meta\">Kinds: an <em>emergent</em> row is a value the mechanism \
produces, which a model wrong about the network could get wrong; only these count above. A \
<em>restated input</em> equals a setting of the scenario (or follows from it by arithmetic), and a \
<em>sanity bound</em> holds by construction of the scenario or procedure: both are shown, with \
the reason, and not counted.</p>\n",
            title = escape(&self.title),
            ver = escape(&self.nmc_version),
            seed = self.seed,
            cmd = escape(&self.command),
            headline = escape(&headline),
        );
        out.push_str("<h2>Reproduce table</h2>\n");
        checks_table(&mut out, &all, true);
        for s in &self.sections {
            let _ = writeln!(
                out,
                "<section id=\"{id}\"><h2>{id}: {title}</h2><p class=\"meta\">Source: {src}</p>",
                id = escape(&s.id),
                title = escape(&s.title),
                src = escape(&s.source)
            );
            for n in &s.notes {
                let _ = writeln!(out, "<p>{}</p>", escape(n));
            }
            if !s.checks.is_empty() {
                checks_table(&mut out, &s.checks, false);
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
        out.push_str("</body></html>\n");
        out
    }

    pub fn write(&self, path: &Path) -> Result<(), ReportError> {
        write_file(path, self.to_html().as_bytes())
    }
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
    }
}
