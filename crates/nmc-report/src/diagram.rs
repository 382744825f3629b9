//! Path diagrams in the style of K&O's time slices (Figs. 2, 7, 8): the IMPs of one path as
//! ticks from the source (0) to the destination (n), and what is on the path at one instant as
//! shapes — messages as rectangles, RFNMs as ovals, REQALLs as diamonds, ALLs as dots — each
//! in its own row, labelled, with the resources it holds written beside it.
//!
//! Written as plain SVG text (not through [`crate::plot`]: a diagram has no data axes), in the
//! same style as the charts ([`crate::style`]: font, sizes, palette, grid and axis colours).

use crate::style;
use plotters::style::RGBColor;
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
    /// How it is drawn: message, RFNM, REQALL or ALL.
    pub shape: Shape,
    /// Its name, e.g. `i-3`.
    pub label: String,
    /// Where it is, in hops from the source: from `from` to `to` (equal for a point).
    pub from: f64,
    /// Where it ends, in hops from the source (equal to `from` for a point).
    pub to: f64,
    /// What it holds and does, written to its right (`PLT ALL · waiting for an ALL`).
    pub note: String,
}

/// A path of `hops` hops and the items on it.
#[derive(Clone, Debug, PartialEq)]
pub struct PathDiagram {
    /// The title written above the path.
    pub title: String,
    /// The path's length in hops: ticks run from the source (0) to the destination (`hops`).
    pub hops: u32,
    /// Names for the two ends (`UCLA`, `ARPA`).
    pub ends: (String, String),
    /// The items on the path at the instant drawn, one row each, top to bottom.
    pub items: Vec<Item>,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The narrowest a diagram is, pixels: room for the path and short notes.
const MIN_WIDTH: f64 = 960.0;

/// A colour as SVG writes it.
fn hex(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// The SVG font size (pixels) of a plotters size from [`style`].
fn px(size: f64) -> f64 {
    (size / 1.24 * 100.0).round() / 100.0
}

impl Shape {
    /// Its colour: the style's palette, one colour a kind, in the order K&O list them.
    pub fn colour(self) -> RGBColor {
        style::ours(match self {
            Shape::Rect => 0,
            Shape::Oval => 1,
            Shape::Diamond => 2,
            Shape::Dot => 3,
        })
    }
}

impl PathDiagram {
    /// The diagram as an SVG document, in the project's chart style ([`crate::style`]): its
    /// fonts and sizes, its palette (one colour for each kind of item), its grid and axis
    /// colours. The title wraps to the width; the document widens to hold the longest note.
    pub fn to_svg(&self) -> String {
        // Room on the left for the source's name and for the labels of items at the source
        // (a label ends 14 px left of its item, which may reach 9 px left of hop 0).
        let label_w = self
            .items
            .iter()
            .map(|it| style::text_width(&it.label, style::LEGEND_SIZE) + 23.0)
            .chain([style::text_width(&self.ends.0, style::LEGEND_SIZE) + 8.0])
            .fold(0.0, f64::max);
        let left = (f64::from(style::MARGIN) + label_w).max(60.0).ceil();
        let (path_w, row) = (570.0, 26.0);
        let n = self.hops.max(1) as f64;
        let x = |h: f64| left + path_w * (h / n).clamp(0.0, 1.0);
        let note_x = x(n) + 24.0;
        let notes_w = self
            .items
            .iter()
            .map(|it| style::text_width(&it.note, style::LEGEND_SIZE))
            .fold(0.0, f64::max);
        let end_w = style::text_width(&self.ends.1, style::LEGEND_SIZE);
        let width = (note_x + notes_w.max(end_w) + f64::from(style::MARGIN))
            .max(MIN_WIDTH)
            .ceil();
        let key = "rectangle: message · oval: RFNM · diamond: REQALL · dot: ALL · x: hops from the source IMP";
        let title = style::wrap(
            &self.title,
            style::TITLE_SIZE,
            width - left - f64::from(style::MARGIN),
        );
        let title_h = style::line_height(style::TITLE_SIZE);
        let top = f64::from(style::MARGIN) + title_h * title.len() as f64 + 42.0;
        let key_h = style::line_height(style::TICK_SIZE);
        let height = (top + row * (self.items.len().max(1) as f64) + 10.0 + key_h).ceil();
        let (axis, grid, bg) = (hex(style::AXIS), hex(style::GRID), hex(style::BACKGROUND));
        let mut s = String::new();
        let _ = write!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="{}" font-size="{}" fill="{axis}">"#,
            style::FONT,
            px(style::LEGEND_SIZE),
        );
        let _ = write!(
            s,
            r#"<rect width="{width}" height="{height}" fill="{bg}"/>"#
        );
        for (i, line) in title.iter().enumerate() {
            let _ = write!(
                s,
                r#"<text x="{left}" y="{}" font-size="{}">{}</text>"#,
                f64::from(style::MARGIN) + title_h * (i as f64 + 0.8),
                px(style::TITLE_SIZE),
                esc(line)
            );
        }
        // The path: one tick per IMP, the ends named.
        let base = top - 22.0;
        let _ = write!(
            s,
            r#"<line x1="{}" y1="{base}" x2="{}" y2="{base}" stroke="{axis}"/>"#,
            x(0.0),
            x(n)
        );
        for h in 0..=self.hops {
            let xh = x(h as f64);
            let _ = write!(
                s,
                r#"<line x1="{xh}" y1="{}" x2="{xh}" y2="{}" stroke="{axis}"/><text x="{xh}" y="{}" text-anchor="middle" font-size="{}">{h}</text>"#,
                base - 4.0,
                base + 4.0,
                base - 8.0,
                px(style::TICK_SIZE),
            );
            let _ = write!(
                s,
                r#"<line x1="{xh}" y1="{}" x2="{xh}" y2="{}" stroke="{grid}"/>"#,
                base + 6.0,
                height - key_h - 6.0
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
            let colour = hex(it.shape.colour());
            let paint = format!(
                r#"fill="{colour}" fill-opacity="0.25" stroke="{colour}" stroke-width="{}""#,
                style::LINE_WIDTH
            );
            match it.shape {
                Shape::Rect => {
                    let w = (x1 - x0).max(12.0);
                    let _ = write!(
                        s,
                        r#"<rect x="{}" y="{}" width="{w}" height="14" {paint}/>"#,
                        x0 - if x1 - x0 < 12.0 { 6.0 } else { 0.0 },
                        cy - 7.0
                    );
                }
                Shape::Oval => {
                    let _ = write!(
                        s,
                        r#"<ellipse cx="{x0}" cy="{cy}" rx="11" ry="7" {paint}/>"#
                    );
                }
                Shape::Diamond => {
                    let _ = write!(
                        s,
                        r#"<polygon points="{},{cy} {x0},{} {},{cy} {x0},{}" {paint}/>"#,
                        x0 - 9.0,
                        cy - 8.0,
                        x0 + 9.0,
                        cy + 8.0
                    );
                }
                Shape::Dot => {
                    let _ = write!(
                        s,
                        r#"<circle cx="{x0}" cy="{cy}" r="{}" fill="{colour}" stroke="{colour}"/>"#,
                        style::MARKER_RADIUS
                    );
                }
            }
            let _ = write!(
                s,
                r#"<text x="{}" y="{}" text-anchor="end">{}</text><text x="{note_x}" y="{}">{}</text>"#,
                x0 - 14.0,
                cy + 4.0,
                esc(&it.label),
                cy + 4.0,
                esc(&it.note)
            );
        }
        let _ = write!(
            s,
            r#"<text x="{left}" y="{}" font-size="{}">{key}</text></svg>"#,
            height - 8.0,
            px(style::TICK_SIZE),
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
        // The shared style: its font, its palette (one colour a kind), its grid colour.
        assert!(svg.contains(&format!(r#"font-family="{}""#, style::FONT)));
        for (tag, shape) in [
            ("<rect x=", Shape::Rect),
            ("<ellipse", Shape::Oval),
            ("<polygon", Shape::Diamond),
        ] {
            let at = svg.find(tag).unwrap();
            let el = &svg[at..at + svg[at..].find("/>").unwrap()];
            assert!(
                el.contains(&format!("stroke=\"{}\"", hex(shape.colour()))),
                "{el}"
            );
        }
        assert_ne!(Shape::Rect.colour(), Shape::Oval.colour());
        assert!(svg.contains(&format!("stroke=\"{}\"", hex(style::GRID))));
        // A long label at the source stays on the canvas: the path moves right to make room.
        let mut wide = d.clone();
        wide.items[2].label = "MSG i+1 (the next one)".into();
        let svg2 = wide.to_svg();
        let at = svg2.find(">MSG i+1 (the next one)<").unwrap();
        let x = x_before(&svg2, at);
        assert!(
            x - style::text_width("MSG i+1 (the next one)", style::LEGEND_SIZE) >= 0.0,
            "{x}"
        );
        // The same diagram, the same bytes.
        assert_eq!(svg, d.to_svg());
    }

    /// The `x` attribute of the last element that starts before byte `at` of `svg`.
    fn x_before(svg: &str, at: usize) -> f64 {
        svg[..at]
            .rsplit("x=\"")
            .next()
            .and_then(|v| v.split('"').next())
            .and_then(|v| v.parse().ok())
            .expect("an x attribute before the text")
    }

    #[test]
    fn a_long_note_widens_the_document_and_a_long_title_wraps() {
        let note = "PLT ALL · waiting for an ALL that the destination cannot send: ".repeat(3);
        let d = PathDiagram {
            title: "A time slice of the 9-hop path with a title long enough to need two lines or more, as K&O's captions do. ".repeat(3),
            hops: 9,
            ends: ("UCLA".into(), "ARPA".into()),
            items: vec![Item {
                shape: Shape::Dot,
                label: "ALL".into(),
                from: 2.0,
                to: 2.0,
                note: note.clone(),
            }],
        };
        let svg = d.to_svg();
        let width: f64 = svg
            .split("width=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let at = svg.find(&esc(&note)).unwrap();
        let x = x_before(&svg, at);
        assert!(
            x + style::text_width(&note, style::LEGEND_SIZE) <= width,
            "note runs off"
        );
        let title_size = format!("font-size=\"{}\"", px(style::TITLE_SIZE));
        let lines: Vec<&str> = svg
            .split("<text ")
            .filter(|t| {
                t.split_once('>')
                    .is_some_and(|(head, _)| head.contains(&title_size))
            })
            .collect();
        assert!(lines.len() >= 2, "{lines:?}");
    }
}
