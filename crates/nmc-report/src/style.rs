//! The one chart style of the project: fonts, sizes, colours, markers, grid, ticks and legend.
//!
//! Every SVG chart nmc draws takes its look from here: [`crate::plot::Chart`] (the experiments,
//! the probe and pump reports, the RFC 889 Fuzzball display) and the heat map of `nmc-rto`. A
//! change of look is a change to this file only.
//!
//! Conventions a reader of any nmc chart can rely on:
//! - **published values** (what a paper prints) are black hollow markers at exactly the points
//!   the paper gives, with no line between them; a published *curve* (a formula, a theory) is a
//!   black or grey dashed line;
//! - **our values** are coloured (a colour-blind-safe palette), lines with filled markers, drawn
//!   after the published ones so nothing of ours is hidden under them; where several of our
//!   series share a point their markers differ in shape and shrink series by series, so each
//!   stays visible;
//! - axes whose values are whole numbers (hops, channels, lags, counts) or categories (variants)
//!   carry whole-number or named ticks only;
//! - the legend sits in a corner of the plot only where it covers no data, otherwise below it.

use plotters::prelude::*;
use plotters::style::FontDesc;

/// Font family of all text: generic, so no font files are needed and any viewer renders it.
pub const FONT: &str = "sans-serif";
/// Font sizes in plotters units (the SVG `font-size` is this / 1.24).
pub const TITLE_SIZE: f64 = 20.0;
/// Font size of axis titles, plotters units.
pub const AXIS_TITLE_SIZE: f64 = 16.0;
/// Font size of tick labels, plotters units.
pub const TICK_SIZE: f64 = 14.0;
/// Font size of legend text, plotters units.
pub const LEGEND_SIZE: f64 = 14.0;

/// Outer margin of a chart, pixels.
pub const MARGIN: u32 = 14;
/// Height of the x tick-label and axis-title area, pixels.
pub const X_LABEL_AREA: u32 = 46;
/// Default size of a chart, pixels.
pub const SIZE: (u32, u32) = (760, 440);

/// Background, axes, grid and legend frame.
pub const BACKGROUND: RGBColor = WHITE;
/// Colour of the axes, ticks and text: near-black.
pub const AXIS: RGBColor = RGBColor(40, 40, 40);
/// Colour of the grid lines: light grey.
pub const GRID: RGBColor = RGBColor(228, 228, 228);
/// Colour of the legend's border: mid grey.
pub const LEGEND_FRAME: RGBColor = RGBColor(160, 160, 160);

/// Our series, in order (Okabe & Ito's colour-blind-safe set, without its yellow).
pub const PALETTE: [RGBColor; 6] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(230, 159, 0),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
];

/// Published values and reference curves, in order: black, then greys.
pub const REFERENCE: [RGBColor; 3] = [
    RGBColor(0, 0, 0),
    RGBColor(105, 105, 105),
    RGBColor(160, 160, 160),
];

/// The colour of our `i`-th series.
pub fn ours(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The colour of the `i`-th published or reference series.
pub fn reference(i: usize) -> RGBColor {
    REFERENCE[i % REFERENCE.len()]
}

/// Line widths, pixels.
pub const LINE_WIDTH: u32 = 2;

/// The width of our `k`-th line of `n`: where there are several, the first is widest and each
/// later one (drawn on top) narrower, so lines that coincide show as nested stripes.
pub fn our_line_width(k: usize, n: usize) -> u32 {
    if n < 2 {
        LINE_WIDTH
    } else {
        (4u32.saturating_sub(k as u32)).max(LINE_WIDTH)
    }
}
/// Width of dashed reference lines, pixels.
pub const REFERENCE_WIDTH: u32 = 2;
/// Width of the separate segments of [`crate::plot::SeriesStyle::Segments`], pixels.
pub const SEGMENT_WIDTH: u32 = 5;
/// Dash and gap of dashed lines, pixels.
pub const DASH: (u32, u32) = (7, 4);

/// Marker radii, pixels: scatter clouds, our markers (the first series; each later one shrinks
/// by [`MARKER_STEP`] down to [`MARKER_MIN`], so markers sharing a point nest) and published
/// values (hollow, drawn around ours).
pub const SCATTER_RADIUS: f64 = 2.5;
/// Radius of the first of our series' markers, pixels.
pub const MARKER_RADIUS: f64 = 5.0;
/// How much smaller each later series' markers are than the one before, pixels.
pub const MARKER_STEP: f64 = 0.75;
/// The smallest radius our markers shrink to, pixels.
pub const MARKER_MIN: f64 = 3.0;
/// Radius of the hollow markers of published values, pixels.
pub const PUBLISHED_RADIUS: f64 = 7.0;

/// A marker's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// A circle.
    Circle,
    /// A square.
    Square,
    /// A triangle pointing up.
    TriangleUp,
    /// A diamond (a square on its corner).
    Diamond,
    /// A triangle pointing down.
    TriangleDown,
    /// An ×: never filled.
    Cross,
}

/// Shapes of our series in order (the first is a circle).
pub const OUR_MARKERS: [Marker; 6] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Cross,
];

/// Shapes of published series in order.
pub const PUBLISHED_MARKERS: [Marker; 4] = [
    Marker::Circle,
    Marker::Square,
    Marker::Diamond,
    Marker::TriangleUp,
];

/// Font of a given size in the style's family.
pub fn font(size: f64) -> FontDesc<'static> {
    FontDesc::new(FontFamily::Name(FONT), size, FontStyle::Normal)
}

/// Text style of a given size and colour.
pub fn text(size: f64, colour: RGBColor) -> TextStyle<'static> {
    font(size).color(&colour)
}

/// The width of character `c` in em, generously: an upper estimate of DejaVu Sans, the widest
/// of the usual `sans-serif` fonts (Liberation Sans, Arial and Helvetica are narrower).
fn char_em(c: char) -> f64 {
    match c {
        ' ' | 'i' | 'j' | 'l' | 'I' | 'J' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | '`' => 0.32,
        'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '{' | '}' | '-' | '/' => 0.44,
        'm' | 'w' | 'M' | 'W' | '%' | '@' | '—' | '…' => 1.0,
        'A'..='Z' => 0.8,
        'a'..='z' | '0'..='9' => 0.64,
        c if c.is_ascii() => 0.84,
        // Greek and accented letters (ρ, µ, é) as lower case; arrows, ×, −, ≥ and the rest wide.
        c if c.is_alphabetic() => 0.7,
        _ => 0.9,
    }
}

/// The width of text `s` in pixels at a plotters font size `size`.
///
/// This is an estimate, and has to be: an SVG names a font family, and the viewer's font
/// decides the real width. plotters cannot measure either: built without a font backend (this
/// project needs no font files), its [`FontDesc::box_size`] is itself an estimate, 0.7 ×
/// `size` / 1.24² pixels a byte. So this takes the larger of that (what plotters lays its own
/// caption and tick labels out with) and a per-character upper estimate of the widest usual
/// sans-serif font (`char_em` em a character at the SVG font size, `size` / 1.24). Layout
/// that makes room for this width makes room for the text in any usual font.
pub fn text_width(s: &str, size: f64) -> f64 {
    let ours = s.chars().map(char_em).sum::<f64>() * size / 1.24;
    let plotters = font(size).box_size(s).map_or(0.0, |(w, _)| f64::from(w));
    ours.max(plotters)
}

/// Height of one line of text at a plotters font size: 1.25 × the SVG font size.
pub fn line_height(size: f64) -> f64 {
    (size / 1.24 * 1.25).ceil()
}

/// `s` broken into lines of at most `width` pixels at font size `size` ([`text_width`]), at
/// spaces; a word wider than `width` on its own is broken between characters. Whitespace runs
/// become one space; empty text gives no lines.
pub fn wrap(s: &str, size: f64, width: f64) -> Vec<String> {
    let fits = |t: &str| text_width(t, size) <= width;
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in s.split_whitespace() {
        let joined = if cur.is_empty() {
            word.to_string()
        } else {
            format!("{cur} {word}")
        };
        if fits(&joined) {
            cur = joined;
            continue;
        }
        if !cur.is_empty() {
            lines.push(std::mem::take(&mut cur));
        }
        if fits(word) {
            cur = word.to_string();
        } else {
            for ch in word.chars() {
                let mut next = cur.clone();
                next.push(ch);
                if !cur.is_empty() && !fits(&next) {
                    lines.push(std::mem::take(&mut cur));
                    next = ch.to_string();
                }
                cur = next;
            }
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Draws a marker centred at pixel `c` on a pixel-addressed drawing area.
pub fn draw_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    c: (f64, f64),
    shape: Marker,
    r: f64,
    colour: RGBColor,
    filled: bool,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let p = |dx: f64, dy: f64| ((c.0 + dx).round() as i32, (c.1 + dy).round() as i32);
    let stroke = colour.stroke_width(if filled { 1 } else { 2 });
    let poly = |pts: Vec<(i32, i32)>| -> Result<(), String> {
        if filled {
            area.draw(&Polygon::new(pts, colour.filled())).map_err(e)
        } else {
            let mut closed = pts.clone();
            closed.push(pts[0]);
            area.draw(&PathElement::new(closed, stroke)).map_err(e)
        }
    };
    match shape {
        Marker::Circle => {
            let style = if filled { colour.filled() } else { stroke };
            area.draw(&Circle::new(p(0.0, 0.0), r.round().max(1.0) as u32, style))
                .map_err(e)
        }
        Marker::Square => {
            let h = r * 0.85;
            poly(vec![p(-h, -h), p(h, -h), p(h, h), p(-h, h)])
        }
        Marker::Diamond => poly(vec![
            p(0.0, -r * 1.15),
            p(r, 0.0),
            p(0.0, r * 1.15),
            p(-r, 0.0),
        ]),
        Marker::TriangleUp => poly(vec![p(0.0, -r * 1.1), p(r, r * 0.8), p(-r, r * 0.8)]),
        Marker::TriangleDown => poly(vec![p(0.0, r * 1.1), p(r, -r * 0.8), p(-r, -r * 0.8)]),
        Marker::Cross => {
            let h = r * 0.9;
            let style = colour.stroke_width(2);
            area.draw(&PathElement::new(vec![p(-h, -h), p(h, h)], style))
                .map_err(e)?;
            area.draw(&PathElement::new(vec![p(-h, h), p(h, -h)], style))
                .map_err(e)
        }
    }
}

/// What one legend entry shows beside its text.
#[derive(Clone, Debug, PartialEq)]
pub struct Glyph {
    /// The series' colour, of line, marker and bar alike.
    pub colour: RGBColor,
    /// A line through the glyph: `Some(dashed)`.
    pub line: Option<bool>,
    /// The width of that line, pixels.
    pub line_width: u32,
    /// A marker at its centre: shape, radius, filled.
    pub marker: Option<(Marker, f64, bool)>,
    /// A filled box (bars).
    pub bar: bool,
}

/// One legend entry.
#[derive(Clone, Debug, PartialEq)]
pub struct LegendEntry {
    /// The text: the series' name.
    pub label: String,
    /// What is drawn beside the text.
    pub glyph: Glyph,
}

/// Legend metrics, pixels.
pub const LEGEND_PAD: f64 = 7.0;
/// Height of one legend row, pixels.
pub const LEGEND_ROW: f64 = 18.0;
/// Width of the space for an entry's glyph, before its text, pixels.
pub const LEGEND_GLYPH: f64 = 30.0;
/// Gap between the plot frame and a legend inside it, pixels.
pub const LEGEND_INSET: f64 = 8.0;

/// Size of a legend laid out in one column.
pub fn legend_size(entries: &[LegendEntry]) -> (f64, f64) {
    let w = entries
        .iter()
        .map(|e| text_width(&e.label, LEGEND_SIZE))
        .fold(0.0, f64::max);
    (
        2.0 * LEGEND_PAD + LEGEND_GLYPH + 6.0 + w,
        2.0 * LEGEND_PAD + LEGEND_ROW * entries.len() as f64,
    )
}

/// A legend laid out in rows across `width` pixels (for below the plot): each entry's
/// (column x offset, row) and the total height.
pub fn legend_rows(entries: &[LegendEntry], width: f64) -> (Vec<(f64, usize)>, f64) {
    let mut at = Vec::with_capacity(entries.len());
    let (mut x, mut row) = (LEGEND_PAD, 0usize);
    for e in entries {
        let w = LEGEND_GLYPH + 6.0 + text_width(&e.label, LEGEND_SIZE) + 18.0;
        if x > LEGEND_PAD && x + w > width - LEGEND_PAD {
            x = LEGEND_PAD;
            row += 1;
        }
        at.push((x, row));
        x += w;
    }
    let rows = if entries.is_empty() { 0 } else { row + 1 };
    (at, 2.0 * LEGEND_PAD + LEGEND_ROW * rows as f64)
}

fn draw_glyph<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    x: f64,
    y: f64,
    g: &Glyph,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (x0, x1, yi) = (
        x.round() as i32,
        (x + LEGEND_GLYPH - 4.0).round() as i32,
        y.round() as i32,
    );
    if g.bar {
        area.draw(&Rectangle::new(
            [(x0 + 6, yi - 6), (x1 - 6, yi + 6)],
            g.colour.mix(0.75).filled(),
        ))
        .map_err(e)?;
    }
    match g.line {
        Some(false) => area
            .draw(&PathElement::new(
                vec![(x0, yi), (x1, yi)],
                g.colour.stroke_width(g.line_width),
            ))
            .map_err(e)?,
        Some(true) => {
            for k in 0..3 {
                let a = x0 + k * 10;
                area.draw(&PathElement::new(
                    vec![(a, yi), ((a + 6).min(x1), yi)],
                    g.colour.stroke_width(g.line_width),
                ))
                .map_err(e)?;
            }
        }
        None => {}
    }
    if let Some((shape, r, filled)) = g.marker {
        draw_marker(
            area,
            ((x0 + x1) as f64 / 2.0, y),
            shape,
            r,
            g.colour,
            filled,
        )?;
    }
    Ok(())
}

/// Draws a one-column legend with its top-left corner at `at` (pixels): a white box with a
/// thin [`LEGEND_FRAME`] border, and each entry's glyph and text.
pub fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    at: (f64, f64),
    entries: &[LegendEntry],
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (w, h) = legend_size(entries);
    let tl = (at.0.round() as i32, at.1.round() as i32);
    let br = ((at.0 + w).round() as i32, (at.1 + h).round() as i32);
    area.draw(&Rectangle::new([tl, br], BACKGROUND.filled()))
        .map_err(e)?;
    area.draw(&Rectangle::new([tl, br], LEGEND_FRAME))
        .map_err(e)?;
    for (i, entry) in entries.iter().enumerate() {
        let y = at.1 + LEGEND_PAD + LEGEND_ROW * (i as f64 + 0.5);
        draw_glyph(area, at.0 + LEGEND_PAD, y, &entry.glyph)?;
        draw_label(
            area,
            at.0 + LEGEND_PAD + LEGEND_GLYPH + 6.0,
            y,
            &entry.label,
        )?;
    }
    Ok(())
}

/// Draws a legend in rows across the strip whose top-left corner is `at` and width `width`
/// (no frame: it stands outside the plot).
pub fn draw_legend_rows<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    at: (f64, f64),
    width: f64,
    entries: &[LegendEntry],
) -> Result<(), String> {
    let (pos, _) = legend_rows(entries, width);
    for (entry, (x, row)) in entries.iter().zip(pos) {
        let y = at.1 + LEGEND_PAD + LEGEND_ROW * (row as f64 + 0.5);
        draw_glyph(area, at.0 + x, y, &entry.glyph)?;
        draw_label(area, at.0 + x + LEGEND_GLYPH + 6.0, y, &entry.label)?;
    }
    Ok(())
}

fn draw_label<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    x: f64,
    y: f64,
    label: &str,
) -> Result<(), String> {
    let style = text(LEGEND_SIZE, AXIS).pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Left,
        plotters::style::text_anchor::VPos::Center,
    ));
    area.draw(&Text::new(
        label.to_string(),
        (x.round() as i32, y.round() as i32),
        style,
    ))
    .map_err(|e| e.to_string())
}

/// Draws a title's `lines` (from [`wrap`]) at font size `size`, centred on x = `centre`, from
/// the top of `area` (after [`MARGIN`]), and returns the area below them.
pub fn draw_title<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    lines: &[String],
    size: f64,
    centre: f64,
) -> Result<DrawingArea<DB, plotters::coord::Shift>, String> {
    if lines.is_empty() {
        return Ok(area.clone());
    }
    let lh = line_height(size);
    let font = text(size, AXIS).pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Center,
        plotters::style::text_anchor::VPos::Top,
    ));
    for (i, l) in lines.iter().enumerate() {
        let y = f64::from(MARGIN) + lh * i as f64;
        area.draw(&Text::new(
            l.clone(),
            (centre.round() as i32, y.round() as i32),
            font.clone(),
        ))
        .map_err(|e| e.to_string())?;
    }
    let h = f64::from(MARGIN) + lh * lines.len() as f64;
    Ok(area.split_vertically(h.ceil() as u32).1)
}

/// Units an axis title may end with, before a metric prefix (`n`, `µ`, `m`, `k`, `M`, `G`) and
/// in ratios (`kbit/s`, `µs/bit`).
const UNITS: &[&str] = &[
    "s", "min", "h", "bit", "bits", "b", "B", "byte", "bytes", "octet", "octets", "Hz", "%",
    "packet", "packets", "message", "messages", "hop", "hops", "unit", "units", "buffer",
    "buffers",
];

/// Words that say an axis has no physical unit, and which kind of number it is.
const UNITLESS: &[&str] = &[
    "count",
    "fraction",
    "dimensionless",
    "index",
    "ratio",
    "sequence number",
];

fn is_unit(u: &str) -> bool {
    let one = |p: &str| {
        UNITS.contains(&p)
            || ["n", "µ", "u", "m", "k", "M", "G"]
                .iter()
                .any(|pre| p.strip_prefix(pre).is_some_and(|b| UNITS.contains(&b)))
    };
    !u.is_empty() && u.split('/').all(one)
}

/// The unit an axis title carries: the title is `quantity (unit)`, the unit in brackets at its
/// end, where the unit is a unit of measure (`ms`, `kbit/s`, `µs/bit`, `bytes`, `hops`, `%`), a
/// multiple of a named reference (`× Dec 1973 seven-day average`), or says the number has no
/// unit and what it is (`count`, `fraction`, `dimensionless`, `index`, `ratio`). A comma, a colon
/// or more words may follow the unit (`count per 25 ms bin`, `fraction, log scale`). Anything
/// else is the one-line reason it is not a titled quantity. [`crate::plot::Chart`] refuses to
/// draw an axis (other than a category axis, whose tick names say what it is) without one.
pub fn axis_unit(title: &str) -> Result<&str, String> {
    let reason = || {
        format!(
            "axis title {title:?} carries no unit: end it with the unit in brackets, e.g. \
             \"round trip (ms)\", or say it has none: (count), (fraction), (dimensionless), (index)"
        )
    };
    let body = title.trim_end().strip_suffix(')').ok_or_else(reason)?;
    // The bracket that opens the last group (which may itself hold brackets).
    let mut depth = 0usize;
    let mut open = None;
    for (i, c) in body.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' if depth == 0 => {
                open = Some(i);
                break;
            }
            '(' => depth -= 1,
            _ => {}
        }
    }
    let open = open.ok_or_else(reason)?;
    if body[..open].trim().is_empty() {
        return Err(reason());
    }
    let unit = body[open + 1..].trim();
    let head = unit.split([',', ':', ';']).next().unwrap_or("").trim();
    let first = head.split_whitespace().next().unwrap_or("");
    let ok = head.starts_with('×')
        || UNITLESS
            .iter()
            .any(|w| head == *w || head.starts_with(&format!("{w} ")))
        || is_unit(first);
    if ok { Ok(unit) } else { Err(reason()) }
}

/// Tick positions for an axis from `lo` to `hi`: multiples of a "nice" step (1, 2, 2.5 or 5
/// times a power of ten; whole-number steps only when `integer`), at most about `max_ticks`.
/// Returns the ticks and the step.
pub fn ticks(lo: f64, hi: f64, integer: bool, max_ticks: usize) -> (Vec<f64>, f64) {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return (vec![lo], 1.0);
    }
    let span = hi - lo;
    let raw = span / max_ticks.max(2) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let mut step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * mag);
    if integer {
        step = if step <= 1.0 {
            1.0
        } else if (step - step.round()).abs() > 1e-9 {
            // 2.5 is not whole: go up to 5.
            (step * 2.0).round()
        } else {
            step.round()
        };
    }
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    let ticks = (first..=last).map(|k| k as f64 * step).collect();
    (ticks, step)
}

/// A tick label for `v` on an axis of ticks `step` apart: as many decimals as the step needs
/// and no more (so `50`, `0.25`, never `50.0`).
pub fn tick_label(v: f64, step: f64) -> String {
    let decimals = if step >= 1.0 && (step - step.round()).abs() < 1e-9 {
        0
    } else {
        let mut d = 0usize;
        let mut s = step;
        while d < 8 && (s - s.round()).abs() > 1e-6 * s.abs().max(1.0) {
            s *= 10.0;
            d += 1;
        }
        d
    };
    let v = if v.abs() < step * 1e-9 { 0.0 } else { v };
    format!("{v:.decimals$}")
}

/// A tick label for `k` on a log10 axis: 10^k written out (`0.001`, `1`, `1000`), or with an
/// exponent past six places.
pub fn log10_label(k: f64) -> String {
    let k = k.round() as i32;
    if (0..=6).contains(&k) {
        format!("{}", 10u64.pow(k as u32))
    } else if (-6..0).contains(&k) {
        format!("{:.*}", (-k) as usize, 10f64.powi(k))
    } else {
        format!("1e{k}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_ticks_are_whole() {
        for (lo, hi) in [(0.5, 9.5), (0.0, 3.0), (-0.5, 4.5), (0.0, 41.0), (0.5, 1.5)] {
            let (t, step) = ticks(lo, hi, true, 10);
            assert!(
                step >= 1.0 && step.fract() == 0.0,
                "{lo}..{hi}: step {step}"
            );
            assert!(t.iter().all(|v| v.fract() == 0.0), "{lo}..{hi}: {t:?}");
            assert!(!t.is_empty());
        }
        let (t, _) = ticks(0.5, 9.5, true, 10);
        assert_eq!(t, (1..=9).map(f64::from).collect::<Vec<_>>());
    }

    #[test]
    fn labels_carry_only_needed_decimals() {
        assert_eq!(tick_label(50.0, 10.0), "50");
        assert_eq!(tick_label(0.25, 0.25), "0.25");
        assert_eq!(tick_label(0.5, 0.5), "0.5");
        assert_eq!(tick_label(-0.0, 0.1), "0.0");
        assert_eq!(log10_label(3.0), "1000");
        assert_eq!(log10_label(-2.0), "0.01");
    }

    #[test]
    fn text_width_is_generous_for_wide_letters_and_at_least_plotters() {
        let em = TITLE_SIZE / 1.24;
        // W and M are about 1 em in the widest usual sans-serif; i about 0.28 em.
        assert!(text_width("WWWWWWWWWW", TITLE_SIZE) >= 9.8 * em);
        assert!(text_width("MMMMMMMMMM", TITLE_SIZE) > text_width("iiiiiiiiii", TITLE_SIZE));
        for t in ["illicit", "ρ (fraction)", "K&O Oct 1974", ""] {
            let (w, _) = font(LEGEND_SIZE).box_size(t).unwrap();
            assert!(text_width(t, LEGEND_SIZE) >= f64::from(w), "{t}");
        }
    }

    #[test]
    fn wrap_breaks_at_spaces_within_the_width() {
        let t = "Pump round trips, first 200 s (CASE–CMU down 40–60, 100–120, 160–180 s)";
        let width = 300.0;
        let lines = wrap(t, TITLE_SIZE, width);
        assert!(lines.len() >= 2, "{lines:?}");
        for l in &lines {
            assert!(text_width(l, TITLE_SIZE) <= width, "{l:?}");
        }
        // Nothing lost, nothing added: the words in order.
        assert_eq!(
            lines.join(" ").split(' ').collect::<Vec<_>>(),
            t.split_whitespace().collect::<Vec<_>>()
        );
        // Short text stays on one line; empty text has none.
        assert_eq!(wrap("Fig. 3", TITLE_SIZE, width), ["Fig. 3"]);
        assert!(wrap("  ", TITLE_SIZE, width).is_empty());
        // A word longer than the width is broken between characters, still within it.
        let long = "x".repeat(80);
        let lines = wrap(&long, TITLE_SIZE, 200.0);
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| text_width(l, TITLE_SIZE) <= 200.0));
        assert_eq!(lines.concat(), long);
    }

    #[test]
    fn axis_titles_must_carry_a_unit() {
        for (t, unit) in [
            ("round trip (ms)", "ms"),
            ("throughput (kbit/s)", "kbit/s"),
            ("cost (µs/bit)", "µs/bit"),
            ("autocorrelation r(k) (dimensionless)", "dimensionless"),
            ("messages (count per 25 ms bin)", "count per 25 ms bin"),
            (
                "share of loops (fraction, log scale)",
                "fraction, log scale",
            ),
            (
                "network load (× Dec 1973 seven-day average)",
                "× Dec 1973 seven-day average",
            ),
            ("channel (index: 2k = node k→k+1)", "index: 2k = node k→k+1"),
            ("distance (hops)", "hops"),
            ("gain (%)", "%"),
        ] {
            assert_eq!(axis_unit(t), Ok(unit), "{t}");
        }
        for t in [
            "hops",
            "kbit/s",
            "loop prevention",
            "round trip",
            "(ms)",
            "delay (approximate)",
            "delay (ms",
            "x",
            "",
            "rate (furlongs/fortnight)",
        ] {
            let e = axis_unit(t).expect_err(t);
            assert!(e.contains("carries no unit") && !e.contains('\n'), "{e}");
        }
    }
}
