//! Path diagrams in the style of K&O's time slices (Figs. 2, 7, 8): the IMPs of one path as
//! ticks from the source (0) to the destination (n), and what is on the path at one instant as
//! shapes — messages as rectangles, RFNMs as ovals, REQALLs as diamonds, ALLs as dots — each
//! in its own row, labelled, with the resources it holds written beside it.
//!
//! Written as plain SVG text (not through [`crate::plot`]): a diagram has no data axes.

use std::fmt::Write as _;

/// The shape of an item, as K&O draw them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A message (rectangle).
    Rect,
    /// A RFNM (oval).
    Oval,
    /// A REQALL (diamond).
    Diamond,
    /// An ALL on its own (dot).
    Dot,
}

/// One thing on the path.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub shape: Shape,
    /// Its name, e.g. `i-3`.
    pub label: String,
    /// Where it is, in hops from the source: from `from` to `to` (equal for a point).
    pub from: f64,
    pub to: f64,
    /// What it holds and does, written to its right (`PLT ALL · waiting for an ALL`).
    pub note: String,
}

/// A path of `hops` hops and the items on it.
#[derive(Clone, Debug, PartialEq)]
pub struct PathDiagram {
    pub title: String,
    pub hops: u32,
    /// Names for the two ends (`UCLA`, `ARPA`).
    pub ends: (String, String),
    pub items: Vec<Item>,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

impl PathDiagram {
    /// The diagram as an SVG document.
    pub fn to_svg(&self) -> String {
        let (left, right, row, top) = (60.0, 330.0, 26.0, 64.0);
        let width = 960.0;
        let span = width - left - right;
        let n = self.hops.max(1) as f64;
        let x = |h: f64| left + span * (h / n).clamp(0.0, 1.0);
        let height = top + row * (self.items.len().max(1) as f64) + 30.0;
        let mut s = String::new();
        let _ = write!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
        );
        let _ = write!(
            s,
            r#"<rect width="{width}" height="{height}" fill="white"/><text x="{left}" y="20" font-size="14">{}</text>"#,
            esc(&self.title)
        );
        // The path: one tick per IMP, the ends named.
        let base = top - 22.0;
        let _ = write!(
            s,
            r#"<line x1="{}" y1="{base}" x2="{}" y2="{base}" stroke="black"/>"#,
            x(0.0),
            x(n)
        );
        for h in 0..=self.hops {
            let xh = x(h as f64);
            let _ = write!(
                s,
                r#"<line x1="{xh}" y1="{}" x2="{xh}" y2="{}" stroke="black"/><text x="{xh}" y="{}" text-anchor="middle" font-size="10">{h}</text>"#,
                base - 4.0,
                base + 4.0,
                base - 8.0
            );
            let _ = write!(
                s,
                r##"<line x1="{xh}" y1="{}" x2="{xh}" y2="{}" stroke="#e6e6e6"/>"##,
                base + 6.0,
                height - 24.0
            );
        }
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text><text x="{}" y="{}">{}</text>"#,
            x(0.0) - 8.0,
            base + 4.0,
            esc(&self.ends.0),
            x(n) + 8.0,
            base + 4.0,
            esc(&self.ends.1)
        );
        for (k, it) in self.items.iter().enumerate() {
            let cy = top + row * k as f64 + row / 2.0;
            let (x0, x1) = (x(it.from.min(it.to)), x(it.from.max(it.to)));
            let colour = match it.shape {
                Shape::Rect => "#1f77b4",
                Shape::Oval => "#d62728",
                Shape::Diamond => "#2ca02c",
                Shape::Dot => "#ff7f0e",
            };
            match it.shape {
                Shape::Rect => {
                    let w = (x1 - x0).max(12.0);
                    let _ = write!(
                        s,
                        r#"<rect x="{}" y="{}" width="{w}" height="14" fill="{colour}" fill-opacity="0.25" stroke="{colour}"/>"#,
                        x0 - if x1 - x0 < 12.0 { 6.0 } else { 0.0 },
                        cy - 7.0
                    );
                }
                Shape::Oval => {
                    let _ = write!(
                        s,
                        r#"<ellipse cx="{x0}" cy="{cy}" rx="11" ry="7" fill="{colour}" fill-opacity="0.25" stroke="{colour}"/>"#
                    );
                }
                Shape::Diamond => {
                    let _ = write!(
                        s,
                        r#"<polygon points="{},{cy} {x0},{} {},{cy} {x0},{}" fill="{colour}" fill-opacity="0.25" stroke="{colour}"/>"#,
                        x0 - 9.0,
                        cy - 8.0,
                        x0 + 9.0,
                        cy + 8.0
                    );
                }
                Shape::Dot => {
                    let _ = write!(
                        s,
                        r#"<circle cx="{x0}" cy="{cy}" r="5" fill="{colour}" stroke="{colour}"/>"#
                    );
                }
            }
            let _ = write!(
                s,
                r##"<text x="{}" y="{}" text-anchor="end">{}</text><text x="{}" y="{}" fill="#444">{}</text>"##,
                x0 - 14.0,
                cy + 4.0,
                esc(&it.label),
                x(n) + 24.0,
                cy + 4.0,
                esc(&it.note)
            );
        }
        let _ = write!(
            s,
            r##"<text x="{left}" y="{}" font-size="10" fill="#444">rectangle: message · oval: RFNM · diamond: REQALL · dot: ALL · x: hops from the source IMP</text></svg>"##,
            height - 8.0
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_and_labels_are_drawn_where_they_are() {
        let d = PathDiagram {
            title: "t < 1".into(),
            hops: 4,
            ends: ("A".into(), "B".into()),
            items: vec![
                Item {
                    shape: Shape::Rect,
                    label: "i".into(),
                    from: 1.0,
                    to: 3.0,
                    note: "PLT ALL".into(),
                },
                Item {
                    shape: Shape::Oval,
                    label: "i-1".into(),
                    from: 4.0,
                    to: 4.0,
                    note: "PLT".into(),
                },
                Item {
                    shape: Shape::Diamond,
                    label: "i+1".into(),
                    from: 0.0,
                    to: 0.0,
                    note: String::new(),
                },
            ],
        };
        let svg = d.to_svg();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("t &lt; 1"));
        assert_eq!(svg.matches("<rect x=").count(), 1);
        assert_eq!(svg.matches("<ellipse").count(), 1);
        assert_eq!(svg.matches("<polygon").count(), 1);
        // The message spans hops 1..3 of 4 on a 570-pixel path starting at 60.
        assert!(svg.contains(r#"<rect x="202.5""#), "{svg}");
        assert!(svg.contains(">i-1<"));
    }
}
