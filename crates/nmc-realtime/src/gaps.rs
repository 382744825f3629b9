//! The gap table of RFC 508's KEY: number of gaps, max., avg. and min. gap time; shared by the
//! simulated SEL and by `nmc stream` on real paths.

use serde::Serialize;

/// Gaps of one test, in ns as measured (the SEL's are whole 1 ms steps).
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq)]
pub struct GapTable {
    /// Each gap's duration, ns, in the order they happened (empty for a running table).
    pub gaps_ns: Vec<u64>,
    /// A running table's figures, in place of the list (issue 58 §6: a long stream without
    /// records keeps nothing per gap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<RunningGaps>,
}

/// A gap table's figures kept as the gaps come: count, total, longest, shortest, ns.
#[derive(Clone, Copy, Debug, Default, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct RunningGaps {
    /// Gaps so far.
    pub count: u64,
    /// Their total, ns.
    pub total_ns: u64,
    /// The longest, ns.
    pub max_ns: u64,
    /// The shortest, ns.
    pub min_ns: u64,
}

impl GapTable {
    /// A table that keeps running figures only, not each gap.
    pub fn running() -> GapTable {
        GapTable {
            gaps_ns: Vec::new(),
            running: Some(RunningGaps::default()),
        }
    }
    /// Records a gap of `ns`.
    pub fn push(&mut self, ns: u64) {
        match &mut self.running {
            Some(r) => {
                r.min_ns = if r.count == 0 { ns } else { r.min_ns.min(ns) };
                r.max_ns = r.max_ns.max(ns);
                r.total_ns += ns;
                r.count += 1;
            }
            None => self.gaps_ns.push(ns),
        }
    }
    /// The number of gaps.
    pub fn count(&self) -> usize {
        match &self.running {
            Some(r) => r.count as usize,
            None => self.gaps_ns.len(),
        }
    }
    /// All gaps together, ns.
    pub fn total_ns(&self) -> u64 {
        match &self.running {
            Some(r) => r.total_ns,
            None => self.gaps_ns.iter().sum(),
        }
    }
    /// The longest gap, ms (`None` without gaps).
    pub fn max_ms(&self) -> Option<f64> {
        match &self.running {
            Some(r) => (r.count > 0).then(|| r.max_ns as f64 / 1e6),
            None => self.gaps_ns.iter().max().map(|&x| x as f64 / 1e6),
        }
    }
    /// The shortest gap, ms (`None` without gaps).
    pub fn min_ms(&self) -> Option<f64> {
        match &self.running {
            Some(r) => (r.count > 0).then(|| r.min_ns as f64 / 1e6),
            None => self.gaps_ns.iter().min().map(|&x| x as f64 / 1e6),
        }
    }
    /// The mean gap, ms (`None` without gaps).
    pub fn avg_ms(&self) -> Option<f64> {
        (self.count() > 0).then(|| self.total_ns() as f64 / 1e6 / self.count() as f64)
    }

    /// The KEY's lines under the buffers sent: max, avg, min, count (none when gap-free), as
    /// the paper prints them ("174ms", "8 sec", "1.5 sec").
    pub fn key_lines(&self) -> Vec<String> {
        let (Some(mx), Some(av), Some(mn)) = (self.max_ms(), self.avg_ms(), self.min_ms()) else {
            return Vec::new();
        };
        let mut v = if self.count() == 1 {
            vec![fmt_gap(mx)]
        } else {
            vec![fmt_gap(mx), fmt_gap(av), fmt_gap(mn)]
        };
        v.push(self.count().to_string());
        v
    }
}

/// A gap duration as RFC 508 prints it: ms below a second, seconds above.
pub fn fmt_gap(ms: f64) -> String {
    if ms >= 1000.0 {
        let s = ms / 1000.0;
        if (s - s.round()).abs() < 0.05 {
            format!("{:.0} sec", s)
        } else {
            format!("{:.1} sec", s)
        }
    } else {
        format!("{:.0} ms", ms)
    }
}

/// One cell of a Table I layout: time of day (or blank), buffers sent, the KEY lines.
#[derive(Clone, Debug, Default)]
pub struct LayoutCell {
    /// Time of day the test ran, as printed (`11:31`), or empty.
    pub time: String,
    /// Buffers sent, as printed.
    pub sent: String,
    /// The gap KEY's lines ([`GapTable::key_lines`]); empty for a gap-free test.
    pub key: Vec<String>,
}

/// Prints cells in RFC 508 Table I's layout: a row per rate, a column per buffer size; each
/// cell the time of day, the buffers sent, and under a rule the gap KEY where there were gaps.
pub fn table_layout(
    rates: &[u64],
    buffers: &[u64],
    cell: &dyn Fn(usize, usize) -> LayoutCell,
) -> String {
    let w = 9;
    let rule = format!(
        "+-------+{}\n",
        format!("{}+", "-".repeat(w)).repeat(buffers.len())
    );
    let mut s = String::new();
    s.push_str(&rule);
    s.push_str("| RATE  |");
    for b in buffers {
        s.push_str(&format!("{:^w$}|", format!("{b} b")));
    }
    s.push('\n');
    s.push_str(&rule);
    for (r, rate) in rates.iter().enumerate() {
        let cells: Vec<LayoutCell> = (0..buffers.len()).map(|c| cell(r, c)).collect();
        let keys = cells.iter().map(|c| c.key.len()).max().unwrap_or(0);
        let line = |label: &str, f: &dyn Fn(&LayoutCell) -> String| {
            let mut l = format!("|{label:<7}|");
            for c in &cells {
                l.push_str(&format!("{:^w$}|", f(c)));
            }
            l.push('\n');
            l
        };
        s.push_str(&line(&rate.to_string(), &|c| c.time.clone()));
        s.push_str(&line("", &|c| c.sent.clone()));
        if keys > 0 {
            s.push_str(&line("", &|c| {
                if c.key.is_empty() {
                    String::new()
                } else {
                    "-------".into()
                }
            }));
            for k in 0..keys {
                s.push_str(&line("", &|c| c.key.get(k).cloned().unwrap_or_default()));
            }
        }
        s.push_str(&rule);
    }
    s
}

/// Text blocks (each a printed table) side by side as an SVG in a monospace font, each under
/// its title.
pub fn blocks_svg(blocks: &[(&str, &str)]) -> String {
    let (cw, lh) = (7.3, 14.0);
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let mut x = 10.0;
    let mut body = String::new();
    let mut height: f64 = 0.0;
    for (title, text) in blocks {
        let width = text.lines().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * cw;
        body.push_str(&format!(
            "<text x=\"{x:.1}\" y=\"20\" font-weight=\"bold\">{}</text>\n",
            esc(title)
        ));
        for (i, line) in text.lines().enumerate() {
            body.push_str(&format!(
                "<text x=\"{x:.1}\" y=\"{:.1}\" xml:space=\"preserve\">{}</text>\n",
                40.0 + i as f64 * lh,
                esc(line)
            ));
        }
        height = height.max(40.0 + text.lines().count() as f64 * lh);
        x += width + 30.0;
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{x:.0}\" height=\"{:.0}\" font-family=\"monospace\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{body}</svg>\n",
        height + 10.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 58 §6: a running table gives the list's figures and KEY lines.
    #[test]
    fn a_running_table_has_the_lists_figures() {
        let gaps = [174_000_000u64, 8_000_000_000, 1_500_000_000, 3_000_000];
        let (mut list, mut running) = (GapTable::default(), GapTable::running());
        for g in gaps {
            list.push(g);
            running.push(g);
        }
        assert_eq!(running.count(), 4);
        assert_eq!(running.total_ns(), list.total_ns());
        assert_eq!(running.max_ms(), list.max_ms());
        assert_eq!(running.min_ms(), Some(3.0));
        assert_eq!(running.avg_ms(), list.avg_ms());
        assert_eq!(running.key_lines(), list.key_lines());
        assert!(running.gaps_ns.is_empty());
        assert_eq!(GapTable::running().key_lines(), Vec::<String>::new());
    }
}
