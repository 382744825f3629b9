//! SVG charts.
//!
//! A [`Chart`] is data (title, axis titles, axis kinds, series); [`Chart::to_svg`] draws it in
//! the project's one style ([`crate::style`]) with plotters' SVG backend. Text is written as SVG
//! `<text>` in a generic `sans-serif` family, so no font files are needed and any browser
//! renders it.
//!
//! How a chart is drawn, whatever made it:
//! - plotters draws the frame, the grid, the ticks and the axis titles; the ticks are chosen
//!   here ([`Axis`]), so whole-number and category axes get whole-number or named ticks only;
//! - the series are mapped to pixels, clipped to the plot, and drawn in this order: bars, then
//!   published values and reference curves ([`SeriesStyle::Published`], [`SeriesStyle::Dashed`]),
//!   then our series in the order given — so ours are never under a published value;
//! - the legend goes in the first of eight places inside the plot (the corners, then the middles
//!   of the edges) where it covers no mark of any series; where there is none, below the plot;
//!   its box is sized by [`style::text_width`], the same estimate plotters' text is laid out by
//!   or wider (an SVG cannot know its viewer's font; see there);
//! - a title too long for the plot's width wraps at spaces ([`style::wrap`]), centred over the
//!   plot, and each extra line adds to the document's height;
//! - every axis title carries its unit, `quantity (unit)` ([`style::axis_unit`]): a chart with
//!   an axis that does not (other than a category axis) is refused with a one-line error, so a
//!   chart drawn without a unit fails every run and test that draws it.

use crate::style::{self, Glyph, LegendEntry, Marker};
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::ops::Range;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SeriesStyle {
    /// Our values as a line (no markers: for long series such as time series).
    Line,
    /// Our values as markers only (a scatter; large clouds get small markers).
    Points,
    /// Our values as a line with a marker at each value.
    LinePoints,
    /// Vertical bars of the given width in x units, centred on each x.
    Bars {
        /// The width of each bar, in x units.
        width: f64,
    },
    /// A dashed reference line: a published or theoretical *curve*, a bound, an event marker.
    Dashed,
    /// Separate line segments: points taken in pairs (start, end).
    Segments,
    /// Values a paper prints: black hollow markers at exactly these points, no line between.
    Published,
}

impl SeriesStyle {
    fn is_reference(self) -> bool {
        matches!(self, SeriesStyle::Dashed | SeriesStyle::Published)
    }
}

/// One named set of points on a chart, and how it is drawn.
#[derive(Clone, Debug)]
pub struct Series {
    /// The name in the legend (an empty name leaves the series out of the legend).
    pub name: String,
    /// The points (x, y), in the axes' units; a non-finite coordinate breaks a line.
    pub points: Vec<(f64, f64)>,
    /// How the points are drawn.
    pub style: SeriesStyle,
    /// A marker shape other than the one the series' place gives it.
    pub marker: Option<Marker>,
}

impl Series {
    /// A series; a point with a non-finite coordinate is not drawn and breaks a line.
    pub fn new(name: impl Into<String>, style: SeriesStyle, points: Vec<(f64, f64)>) -> Self {
        Series {
            name: name.into(),
            points,
            style,
            marker: None,
        }
    }

    /// Values a paper prints, drawn only at these points ([`SeriesStyle::Published`]).
    pub fn published(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series::new(name, SeriesStyle::Published, points)
    }

    /// The same series with the given marker shape.
    pub fn with_marker(mut self, marker: Marker) -> Self {
        self.marker = Some(marker);
        self
    }
}

/// What an axis' values are, which decides its ticks.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Axis {
    /// Whole-number ticks if every value on the axis is a whole number, else [`Axis::Linear`].
    #[default]
    Auto,
    /// Any "nice" ticks (1, 2, 2.5, 5 × 10ᵏ apart).
    Linear,
    /// Whole numbers (hops, channels, lags, counts): ticks at whole numbers only.
    Integer,
    /// Named categories at the given x (or y) values; ticks at those values only, named.
    Categories(Vec<(f64, String)>),
    /// Values are log10 of the quantity: ticks at whole powers of ten, labelled 1, 10, 100 ….
    Log10,
}

/// A chart as data: title, axis titles and kinds, ranges, size and series.
#[derive(Clone, Debug)]
pub struct Chart {
    /// The title above the plot (wrapped to the plot's width when long).
    pub title: String,
    /// Axis titles: quantity and unit, e.g. `round trip (ms)`, `messages (count)`; checked when
    /// drawn ([`style::axis_unit`]).
    pub x_label: String,
    /// The y axis title, quantity and unit (see `x_label`).
    pub y_label: String,
    /// The series, ours drawn in this order (after bars and reference series).
    pub series: Vec<Series>,
    /// Fixed axis ranges; by default they cover the data (y from 0 when all y ≥ 0).
    pub x_range: Option<Range<f64>>,
    /// The fixed y range, if any (see `x_range`).
    pub y_range: Option<Range<f64>>,
    /// What the x values are, which decides the x ticks.
    pub x_axis: Axis,
    /// What the y values are, which decides the y ticks.
    pub y_axis: Axis,
    /// Size of the chart in pixels (a legend placed below the plot adds to the height).
    pub size: (u32, u32),
}

/// A rectangle in pixels: left, top, right, bottom.
pub type Rect = (f64, f64, f64, f64);

/// Where [`Chart::to_svg`] put things: what the tests of the drawing look at.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// The plotting area.
    pub plot: Rect,
    /// The legend's box, if the chart has one.
    pub legend: Option<Rect>,
    /// Whether the legend is below the plot (no corner was free of data).
    pub legend_below: bool,
    /// Tick labels as drawn.
    pub x_ticks: Vec<String>,
    /// The y axis' tick labels as drawn.
    pub y_ticks: Vec<String>,
    /// The size of the SVG document.
    pub size: (u32, u32),
    /// The title's lines as drawn (a long title wraps to the plot's width).
    pub title: Vec<String>,
}

/// An axis made ready to draw: range, tick positions and labels.
#[derive(Clone, Debug)]
struct AxisPlan {
    range: Range<f64>,
    ticks: Vec<f64>,
    labels: Vec<String>,
}

impl AxisPlan {
    fn label(&self, v: f64) -> String {
        let tol = (self.range.end - self.range.start).abs() * 1e-9;
        self.ticks
            .iter()
            .position(|t| (t - v).abs() <= tol)
            .map(|i| self.labels[i].clone())
            .unwrap_or_default()
    }
}

/// Up to this span a whole-number axis counts as "a few values" (hops, channels, bins): half a
/// unit of room at each end and, where they fit, a tick at every value.
const FEW: f64 = 20.0;

/// Between the title's last line and the plot, pixels.
const TITLE_GAP: u32 = 8;

fn is_whole(v: f64) -> bool {
    (v - v.round()).abs() < 1e-9
}

/// Plans one axis. `values` are the data on it, `(lo, hi)` their extent (with bar widths),
/// `pad_ends` whether the ends get room for markers, `from_zero` whether a non-negative axis
/// starts at 0.
fn plan_axis(
    axis: &Axis,
    fixed: Option<&Range<f64>>,
    values: &[f64],
    (lo, hi): (f64, f64),
    pad_ends: bool,
    from_zero: bool,
    max_ticks: usize,
) -> AxisPlan {
    let kind = match axis {
        Axis::Auto if !values.is_empty() && values.iter().all(|v| is_whole(*v)) => &Axis::Integer,
        Axis::Auto => &Axis::Linear,
        k => k,
    };
    let discrete = matches!(kind, Axis::Integer | Axis::Categories(_));
    let range = match fixed {
        Some(r) => r.clone(),
        None => {
            let (mut lo, mut hi) = if lo <= hi { (lo, hi) } else { (0.0, 1.0) };
            if let Axis::Categories(c) = kind {
                for (v, _) in c {
                    lo = lo.min(*v);
                    hi = hi.max(*v);
                }
            }
            if from_zero && lo >= 0.0 && !matches!(kind, Axis::Log10) {
                lo = 0.0;
            }
            if discrete && hi - lo <= FEW && (pad_ends || hi == lo) {
                let z = from_zero && lo == 0.0;
                (if z { lo } else { lo - 0.5 }, hi + 0.5)
            } else if hi == lo {
                (lo - 0.5, hi + 0.5)
            } else if pad_ends {
                let p = (hi - lo) * 0.04;
                (if from_zero && lo == 0.0 { lo } else { lo - p }, hi + p)
            } else {
                (lo, hi)
            }
            .into_range()
        }
    };
    let (ticks, labels) = match kind {
        Axis::Categories(c) => {
            let mut c: Vec<_> = c
                .iter()
                .filter(|(v, _)| *v >= range.start - 1e-9 && *v <= range.end + 1e-9)
                .cloned()
                .collect();
            c.sort_by(|a, b| a.0.total_cmp(&b.0));
            c.into_iter().unzip()
        }
        Axis::Log10 => {
            let (t, _) = style::ticks(range.start, range.end, true, max_ticks);
            if t.len() >= 2 {
                let l = t.iter().map(|k| style::log10_label(*k)).collect();
                (t, l)
            } else {
                let (t, _) = style::ticks(range.start, range.end, false, max_ticks);
                let l = t.iter().map(|k| format!("{:.3}", 10f64.powf(*k))).collect();
                (t, l)
            }
        }
        _ => {
            let (t, step) = style::ticks(range.start, range.end, discrete, max_ticks);
            let l = t.iter().map(|v| style::tick_label(*v, step)).collect();
            (t, l)
        }
    };
    AxisPlan {
        range,
        ticks,
        labels,
    }
}

trait IntoRange {
    fn into_range(self) -> Range<f64>;
}

impl IntoRange for (f64, f64) {
    fn into_range(self) -> Range<f64> {
        self.0..self.1
    }
}

/// Something drawn, in pixels.
#[derive(Clone, Debug)]
enum Prim {
    Path {
        pts: Vec<(f64, f64)>,
        dashed: bool,
        width: u32,
    },
    Mark {
        c: (f64, f64),
        shape: Marker,
        r: f64,
        filled: bool,
    },
    Bar(Rect),
}

/// One series made ready to draw.
struct Layer {
    series: usize,
    colour: RGBColor,
    prims: Vec<Prim>,
    glyph: Glyph,
}

/// Clips the segment a–b to `r` (Liang–Barsky); `None` if it misses.
fn clip(a: (f64, f64), b: (f64, f64), r: Rect) -> Option<((f64, f64), (f64, f64))> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, a.0 - r.0),
        (dx, r.2 - a.0),
        (-dy, a.1 - r.1),
        (dy, r.3 - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
            if t0 > t1 {
                return None;
            }
        }
    }
    Some((
        (a.0 + t0 * dx, a.1 + t0 * dy),
        (a.0 + t1 * dx, a.1 + t1 * dy),
    ))
}

fn inside(p: (f64, f64), r: Rect) -> bool {
    p.0 >= r.0 - 0.5 && p.0 <= r.2 + 0.5 && p.1 >= r.1 - 0.5 && p.1 <= r.3 + 0.5
}

fn overlaps(a: Rect, b: Rect) -> bool {
    a.0 <= b.2 && b.0 <= a.2 && a.1 <= b.3 && b.1 <= a.3
}

/// Whether a drawn thing touches the rectangle `r`.
fn hits(p: &Prim, r: Rect) -> bool {
    match p {
        Prim::Path { pts, width, .. } => {
            let w = f64::from(*width) / 2.0;
            let r = (r.0 - w, r.1 - w, r.2 + w, r.3 + w);
            pts.windows(2).any(|s| clip(s[0], s[1], r).is_some())
                || pts.len() == 1 && inside(pts[0], r)
        }
        Prim::Mark { c, r: rad, .. } => overlaps((c.0 - rad, c.1 - rad, c.0 + rad, c.1 + rad), r),
        Prim::Bar(b) => overlaps(*b, r),
    }
}

/// Clipped polylines of `pts` (already in pixels), broken at non-finite points.
fn polylines(pts: &[(f64, f64)], plot: Rect) -> Vec<Vec<(f64, f64)>> {
    let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut cur: Vec<(f64, f64)> = Vec::new();
    for w in pts.windows(2) {
        let ok = |p: (f64, f64)| p.0.is_finite() && p.1.is_finite();
        match (ok(w[0]) && ok(w[1]))
            .then(|| clip(w[0], w[1], plot))
            .flatten()
        {
            Some((a, b)) => {
                if cur.last() != Some(&a) {
                    if cur.len() >= 2 {
                        out.push(std::mem::take(&mut cur));
                    }
                    cur.clear();
                    cur.push(a);
                }
                cur.push(b);
            }
            None => {
                if cur.len() >= 2 {
                    out.push(std::mem::take(&mut cur));
                }
                cur.clear();
            }
        }
    }
    if cur.len() >= 2 {
        out.push(cur);
    }
    if pts.len() == 1 && pts[0].0.is_finite() && inside(pts[0], plot) {
        out.push(vec![pts[0]]);
    }
    out
}

/// A linear f64 axis whose ticks (and grid lines) are exactly the planned ones.
struct Ticked {
    inner: RangedCoordf64,
    ticks: Vec<f64>,
}

impl Ticked {
    fn new(p: &AxisPlan) -> Self {
        Ticked {
            inner: p.range.clone().into(),
            ticks: p.ticks.clone(),
        }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.inner.range()
    }
}

type Coords = Cartesian2d<Ticked, Ticked>;

fn derr<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

impl Chart {
    /// An empty chart with the given title and axis titles (each `quantity (unit)`), automatic
    /// axes and ranges, and the style's default size.
    pub fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Self {
        Chart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            series: Vec::new(),
            x_range: None,
            y_range: None,
            x_axis: Axis::Auto,
            y_axis: Axis::Auto,
            size: style::SIZE,
        }
    }

    /// The same chart with the series `s` added after the others.
    pub fn with(mut self, s: Series) -> Self {
        self.series.push(s);
        self
    }

    /// The same chart with the series `s` added, in order.
    pub fn with_all(mut self, s: impl IntoIterator<Item = Series>) -> Self {
        self.series.extend(s);
        self
    }

    /// The same chart with the given kind of x axis.
    pub fn x_axis(mut self, axis: Axis) -> Self {
        self.x_axis = axis;
        self
    }

    /// The same chart with the given kind of y axis.
    pub fn y_axis(mut self, axis: Axis) -> Self {
        self.y_axis = axis;
        self
    }

    fn finite(&self) -> impl Iterator<Item = &(f64, f64)> {
        self.series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|p| p.0.is_finite() && p.1.is_finite())
    }

    /// Both axes planned for a plot `plot_px` pixels wide and high.
    fn plan(&self, plot_px: (f64, f64)) -> (AxisPlan, AxisPlan) {
        let bar_pad = self
            .series
            .iter()
            .filter_map(|s| match s.style {
                SeriesStyle::Bars { width } => Some(width / 2.0),
                _ => None,
            })
            .fold(0.0, f64::max);
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in self.finite() {
            x0 = x0.min(x - bar_pad);
            x1 = x1.max(x + bar_pad);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        let xs: Vec<f64> = self.finite().map(|p| p.0).collect();
        let ys: Vec<f64> = self.finite().map(|p| p.1).collect();
        let markers = self.series.iter().any(|s| {
            matches!(
                s.style,
                SeriesStyle::Points | SeriesStyle::LinePoints | SeriesStyle::Published
            )
        });
        let whole = |v: &[f64]| !v.is_empty() && v.iter().all(|v| is_whole(*v));
        // As many x ticks as fit side by side (whole-number axes may be dense: every hop).
        let x_discrete = match self.x_axis {
            Axis::Auto => whole(&xs),
            Axis::Integer | Axis::Categories(_) => true,
            _ => false,
        };
        // A few whole numbers (hops, channels, bins): a tick at each if they fit, and half a
        // unit of room at each end (bars included); many (buffer sizes in bits): as any axis.
        let few = x_discrete && x1 - x0 - 2.0 * bar_pad <= FEW;
        let (most, gap) = if few { (16, 14.0) } else { (10, 30.0) };
        let (ends, pad_ends) = if few {
            ((x0 + bar_pad, x1 - bar_pad), true)
        } else {
            ((x0, x1), markers && bar_pad == 0.0)
        };
        let plan_x = |n: usize| {
            plan_axis(
                &self.x_axis,
                self.x_range.as_ref(),
                &xs,
                ends,
                pad_ends,
                false,
                n,
            )
        };
        let x = (3..=most)
            .rev()
            .map(plan_x)
            .find(|p| {
                let w = p
                    .labels
                    .iter()
                    .map(|l| style::text_width(l, style::TICK_SIZE))
                    .fold(0.0, f64::max);
                p.labels.len() as f64 * (w + gap) <= plot_px.0
            })
            .unwrap_or_else(|| plan_x(3));
        let y_discrete = match self.y_axis {
            Axis::Auto => whole(&ys),
            Axis::Integer | Axis::Categories(_) => true,
            _ => false,
        };
        let y_ticks = if y_discrete {
            ((plot_px.1 / 30.0) as usize).clamp(3, 12)
        } else {
            ((plot_px.1 / 45.0) as usize).clamp(3, 10)
        };
        let mut y = plan_axis(
            &self.y_axis,
            self.y_range.as_ref(),
            &ys,
            (y0, y1),
            false,
            true,
            y_ticks,
        );
        if self.y_range.is_none() && y0 <= y1 {
            // Room above the highest value (and below a negative lowest).
            let r = &y.range;
            let pad = if r.end > r.start {
                (r.end - r.start) * 0.05
            } else {
                1.0
            };
            let lo = if r.start < 0.0 {
                r.start - pad
            } else {
                r.start
            };
            y = plan_axis(
                &self.y_axis,
                Some(&(lo..r.end + pad)),
                &ys,
                (y0, y1),
                false,
                true,
                y_ticks,
            );
        }
        (x, y)
    }

    fn y_label_area(y: &AxisPlan) -> u32 {
        let w = y
            .labels
            .iter()
            .map(|l| style::text_width(l, style::TICK_SIZE))
            .fold(0.0, f64::max);
        (w + 42.0).max(52.0).ceil() as u32
    }

    /// The title's lines, wrapped to the plot's width ([`style::wrap`]), and the horizontal
    /// centre of the plot they are centred on.
    fn title_lines(&self, y: &AxisPlan) -> (Vec<String>, f64) {
        let left = f64::from(style::MARGIN + Self::y_label_area(y));
        let right = f64::from(self.size.0) - f64::from(style::MARGIN);
        (
            style::wrap(&self.title, style::TITLE_SIZE, right - left),
            (left + right) / 2.0,
        )
    }

    /// The height the title's lines beyond the first add to the document.
    fn extra_title_height(lines: &[String]) -> u32 {
        (style::line_height(style::TITLE_SIZE) * lines.len().saturating_sub(1) as f64).ceil() as u32
    }

    fn build<'a, DB: DrawingBackend>(
        &self,
        area: &'a DrawingArea<DB, Shift>,
        x: &AxisPlan,
        y: &AxisPlan,
        titled: bool,
    ) -> Result<ChartContext<'a, DB, Coords>, String> {
        let mut b = ChartBuilder::on(area);
        b.margin(style::MARGIN);
        if titled {
            b.margin_top(TITLE_GAP);
        }
        b.x_label_area_size(style::X_LABEL_AREA)
            .y_label_area_size(Self::y_label_area(y))
            .build_cartesian_2d(Ticked::new(x), Ticked::new(y))
            .map_err(derr)
    }

    /// The series as pixel primitives, in drawing order, and the legend entries in the
    /// chart's order.
    fn layers(
        &self,
        map: &dyn Fn((f64, f64)) -> (f64, f64),
        plot: Rect,
    ) -> (Vec<Layer>, Vec<LegendEntry>) {
        let (mut n_ref, mut n_pub, mut n_ours, mut n_marked, mut n_lines) = (0, 0, 0, 0, 0);
        let lines = self
            .series
            .iter()
            .filter(|s| matches!(s.style, SeriesStyle::Line | SeriesStyle::LinePoints))
            .count();
        let mut layers = Vec::new();
        for (i, s) in self.series.iter().enumerate() {
            let colour = if s.style.is_reference() {
                n_ref += 1;
                style::reference(n_ref - 1)
            } else {
                n_ours += 1;
                style::ours(n_ours - 1)
            };
            let px: Vec<(f64, f64)> = s
                .points
                .iter()
                .map(|&(x, y)| {
                    if x.is_finite() && y.is_finite() {
                        map((x, y))
                    } else {
                        (f64::NAN, f64::NAN)
                    }
                })
                .collect();
            let marks = |shape: Marker, r: f64, filled: bool| -> Vec<Prim> {
                px.iter()
                    .filter(|p| p.0.is_finite() && inside(**p, plot))
                    .map(|&c| Prim::Mark {
                        c,
                        shape,
                        r,
                        filled,
                    })
                    .collect()
            };
            let path = |dashed: bool, width: u32| -> Vec<Prim> {
                polylines(&px, plot)
                    .into_iter()
                    .map(|pts| Prim::Path { pts, dashed, width })
                    .collect()
            };
            let mut glyph = Glyph {
                colour,
                line: None,
                line_width: style::LINE_WIDTH,
                marker: None,
                bar: false,
            };
            let our_marker = |k: usize| {
                s.marker
                    .unwrap_or(style::OUR_MARKERS[k % style::OUR_MARKERS.len()])
            };
            let shrink = |k: usize| {
                (style::MARKER_RADIUS - style::MARKER_STEP * k as f64).max(style::MARKER_MIN)
            };
            let prims = match s.style {
                SeriesStyle::Line => {
                    n_lines += 1;
                    let w = style::our_line_width(n_lines - 1, lines);
                    glyph.line = Some(false);
                    glyph.line_width = w;
                    path(false, w)
                }
                SeriesStyle::Dashed => {
                    glyph.line = Some(true);
                    glyph.line_width = style::REFERENCE_WIDTH;
                    path(true, style::REFERENCE_WIDTH)
                }
                SeriesStyle::Segments => {
                    glyph.line = Some(false);
                    glyph.line_width = style::SEGMENT_WIDTH;
                    px.chunks_exact(2)
                        .flat_map(|w| polylines(w, plot))
                        .map(|pts| Prim::Path {
                            pts,
                            dashed: false,
                            width: style::SEGMENT_WIDTH,
                        })
                        .collect()
                }
                SeriesStyle::Points => {
                    let shape = our_marker(n_ours - 1);
                    let r = if s.points.len() > 60 {
                        style::SCATTER_RADIUS
                    } else {
                        n_marked += 1;
                        shrink(n_marked - 1)
                    };
                    glyph.marker = Some((shape, r.max(3.0), true));
                    marks(shape, r, true)
                }
                SeriesStyle::LinePoints => {
                    let shape = our_marker(n_ours - 1);
                    n_marked += 1;
                    let r = shrink(n_marked - 1);
                    n_lines += 1;
                    let w = style::our_line_width(n_lines - 1, lines);
                    glyph.line = Some(false);
                    glyph.line_width = w;
                    glyph.marker = Some((shape, r, true));
                    let mut p = path(false, w);
                    p.extend(marks(shape, r, true));
                    p
                }
                SeriesStyle::Published => {
                    n_pub += 1;
                    let shape = s.marker.unwrap_or(
                        style::PUBLISHED_MARKERS[(n_pub - 1) % style::PUBLISHED_MARKERS.len()],
                    );
                    glyph.marker = Some((shape, style::PUBLISHED_RADIUS - 1.0, false));
                    marks(shape, style::PUBLISHED_RADIUS, false)
                }
                SeriesStyle::Bars { width } => {
                    glyph.bar = true;
                    bars(&s.points, width, map, plot)
                }
            };
            layers.push(Layer {
                series: i,
                colour,
                prims,
                glyph,
            });
        }
        let legend = layers
            .iter()
            .filter(|l| !self.series[l.series].name.is_empty())
            .map(|l| LegendEntry {
                label: self.series[l.series].name.clone(),
                glyph: l.glyph.clone(),
            })
            .collect();
        let rank = |l: &Layer| match self.series[l.series].style {
            SeriesStyle::Bars { .. } => 0,
            s if s.is_reference() => 1,
            _ => 2,
        };
        layers.sort_by_key(|l| (rank(l), l.series));
        (layers, legend)
    }

    /// Where the legend goes: the top-left corner of the first place inside the plot whose box
    /// touches no mark, or `None` for below the plot.
    fn place_legend(layers: &[Layer], entries: &[LegendEntry], plot: Rect) -> Option<(f64, f64)> {
        let (w, h) = style::legend_size(entries);
        let inset = style::LEGEND_INSET;
        let (l, t, r, b) = (
            plot.0 + inset,
            plot.1 + inset,
            plot.2 - inset - w,
            plot.3 - inset - h,
        );
        if r < l || b < t {
            return None;
        }
        let (cx, cy) = ((l + r) / 2.0, (t + b) / 2.0);
        let candidates = [
            (r, t),
            (l, t),
            (r, b),
            (l, b),
            (cx, t),
            (cx, b),
            (r, cy),
            (l, cy),
        ];
        candidates.into_iter().find(|&(x, y)| {
            let bx = (x - 3.0, y - 3.0, x + w + 3.0, y + h + 3.0);
            !layers
                .iter()
                .flat_map(|l| l.prims.iter())
                .any(|p| hits(p, bx))
        })
    }

    /// Lays the chart out without drawing it (see [`Layout`]).
    pub fn layout(&self) -> Result<Layout, String> {
        self.render().map(|(_, l)| l)
    }

    /// Draws the chart as an SVG document.
    pub fn to_svg(&self) -> Result<String, String> {
        self.render().map(|(s, _)| s)
    }

    /// Every axis titled with its unit ([`style::axis_unit`]); a category axis is exempt (its
    /// tick names say what it is).
    fn check_axis_titles(&self) -> Result<(), String> {
        for (title, axis) in [(&self.x_label, &self.x_axis), (&self.y_label, &self.y_axis)] {
            if !matches!(axis, Axis::Categories(_)) {
                style::axis_unit(title).map_err(|e| format!("chart {:?}: {e}", self.title))?;
            }
        }
        Ok(())
    }

    fn render(&self) -> Result<(String, Layout), String> {
        self.check_axis_titles()?;
        // A first pass on a scratch canvas finds the plot area, the marks and the legend's place.
        let (w, h) = (f64::from(self.size.0), f64::from(self.size.1));
        let guess = (w - 120.0, h - 110.0);
        let (xp, yp) = self.plan(guess);
        // A long title wraps to the plot's width; its extra lines add to the height.
        let (title, centre) = self.title_lines(&yp);
        let top_h = self.size.1 + Self::extra_title_height(&title);
        let (plot, layers, entries) = {
            let mut scratch = String::new();
            let root =
                SVGBackend::with_string(&mut scratch, (self.size.0, top_h)).into_drawing_area();
            let body = style::draw_title(&root, &title, style::TITLE_SIZE, centre)?;
            let chart = self.build(&body, &xp, &yp, !title.is_empty())?;
            let (xr, yr) = chart.plotting_area().get_pixel_range();
            let plot = (
                f64::from(xr.start),
                f64::from(yr.start),
                f64::from(xr.end - 1),
                f64::from(yr.end - 1),
            );
            let map = |p: (f64, f64)| {
                let (x, y) = chart.backend_coord(&p);
                (f64::from(x), f64::from(y))
            };
            let (layers, entries) = self.layers(&map, plot);
            (plot, layers, entries)
        };
        let place = if entries.is_empty() {
            None
        } else {
            Some(Self::place_legend(&layers, &entries, plot))
        };
        let strip = match place {
            Some(None) => style::legend_rows(&entries, plot.2 - plot.0).1.ceil() as u32,
            _ => 0,
        };
        let size = (self.size.0, top_h + strip);
        let mut out = String::new();
        let legend;
        {
            let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
            root.fill(&style::BACKGROUND).map_err(derr)?;
            let (top, _) = root.split_vertically(top_h);
            let body = style::draw_title(&top, &title, style::TITLE_SIZE, centre)?;
            let mut chart = self.build(&body, &xp, &yp, !title.is_empty())?;
            let xf = |v: &f64| xp.label(*v);
            let yf = |v: &f64| yp.label(*v);
            chart
                .configure_mesh()
                .x_desc(&self.x_label)
                .y_desc(&self.y_label)
                .x_label_formatter(&xf)
                .y_label_formatter(&yf)
                .bold_line_style(style::GRID)
                .light_line_style(TRANSPARENT)
                .axis_style(style::AXIS)
                .label_style(style::text(style::TICK_SIZE, style::AXIS))
                .axis_desc_style(style::text(style::AXIS_TITLE_SIZE, style::AXIS))
                .draw()
                .map_err(derr)?;
            for l in &layers {
                draw_layer(&root, l)?;
            }
            legend = match place {
                Some(Some(at)) => {
                    style::draw_legend(&root, at, &entries)?;
                    let (w, h) = style::legend_size(&entries);
                    Some((at.0, at.1, at.0 + w, at.1 + h))
                }
                Some(None) => {
                    let at = (plot.0, f64::from(top_h));
                    style::draw_legend_rows(&root, at, plot.2 - plot.0, &entries)?;
                    Some((at.0, at.1, plot.2, at.1 + f64::from(strip)))
                }
                None => None,
            };
            root.present().map_err(derr)?;
        }
        let layout = Layout {
            plot,
            legend,
            legend_below: matches!(place, Some(None)),
            title: title.clone(),
            x_ticks: xp.labels.clone(),
            y_ticks: yp.labels.clone(),
            size,
        };
        Ok((out, layout))
    }
}

fn draw_layer<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, l: &Layer) -> Result<(), String> {
    let ip = |p: &(f64, f64)| (p.0.round() as i32, p.1.round() as i32);
    for p in &l.prims {
        match p {
            Prim::Path { pts, dashed, width } => {
                let style = l.colour.stroke_width(*width);
                let pts: Vec<(i32, i32)> = pts.iter().map(ip).collect();
                if *dashed {
                    area.draw(&DashedPathElement::new(
                        pts,
                        style::DASH.0,
                        style::DASH.1,
                        style,
                    ))
                    .map_err(derr)?;
                } else {
                    area.draw(&PathElement::new(pts, style)).map_err(derr)?;
                }
            }
            Prim::Mark {
                c,
                shape,
                r,
                filled,
            } => style::draw_marker(area, *c, *shape, *r, l.colour, *filled)?,
            Prim::Bar(r) => {
                area.draw(&Rectangle::new(
                    [ip(&(r.0, r.1)), ip(&(r.2, r.3))],
                    l.colour.mix(0.75).filled(),
                ))
                .map_err(derr)?;
            }
        }
    }
    Ok(())
}
/// A bar series' bars, `width` wide in x units, clipped to the plot (`map` takes a point to
/// pixels); a bar wholly outside is left out.
fn bars(
    points: &[(f64, f64)],
    width: f64,
    map: &dyn Fn((f64, f64)) -> (f64, f64),
    plot: Rect,
) -> Vec<Prim> {
    points
        .iter()
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .filter_map(|&(x, y)| {
            let a = map((x - width / 2.0, 0.0));
            let b = map((x + width / 2.0, y));
            let r = (
                a.0.min(b.0).max(plot.0),
                a.1.min(b.1).max(plot.1),
                a.0.max(b.0).min(plot.2),
                a.1.max(b.1).min(plot.3),
            );
            (r.0 < r.2 && r.1 <= r.3).then_some(Prim::Bar(r))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_text_and_series_without_fonts() {
        let svg = Chart::new("Throughput", "distance (hops)", "throughput (kbit/s)")
            .with(Series::new(
                "average",
                SeriesStyle::LinePoints,
                vec![(1.0, 38.0), (9.0, 30.0)],
            ))
            .with(Series::new(
                "hist",
                SeriesStyle::Bars { width: 0.5 },
                vec![(2.0, 3.0)],
            ))
            .to_svg()
            .unwrap();
        assert!(svg.starts_with("<svg"));
        for text in ["Throughput", "throughput (kbit/s)", "average"] {
            assert!(
                svg.contains(&format!(">\n{text}\n</text>")),
                "{text} missing"
            );
        }
        // Empty and non-finite data still give a drawable chart.
        assert!(
            Chart::new("e", "x (s)", "y (count)")
                .with(Series::new("n", SeriesStyle::Line, vec![(f64::NAN, 1.0)]))
                .to_svg()
                .is_ok()
        );
        // An axis without a unit is refused, in one line that names the chart and the title.
        let e = Chart::new("Throughput", "hops", "throughput (kbit/s)")
            .to_svg()
            .unwrap_err();
        assert!(
            e.contains("\"Throughput\"") && e.contains("\"hops\" carries no unit"),
            "{e}"
        );
        assert!(
            Chart::new("gain", "loop prevention", "gain (%)")
                .x_axis(Axis::Categories(vec![(1.0, "none".into())]))
                .to_svg()
                .is_ok(),
            "a category axis names its ticks instead"
        );
    }

    /// The value of attribute `name` in one SVG element's text.
    fn attr(el: &str, name: &str) -> Option<f64> {
        let k = format!(" {name}=\"");
        let at = el.find(&k)? + k.len();
        el[at..].split('"').next()?.parse().ok()
    }

    fn attr_str<'a>(el: &'a str, name: &str) -> &'a str {
        let k = format!(" {name}=\"");
        el.find(&k)
            .and_then(|at| el[at + k.len()..].split('"').next())
            .unwrap_or("")
    }

    /// Every element `<tag .../>` of an SVG document, as text.
    fn elements<'a>(svg: &'a str, tag: &str) -> Vec<&'a str> {
        svg.match_indices(&format!("<{tag} "))
            .map(|(i, _)| &svg[i..i + svg[i..].find('>').unwrap() + 1])
            .collect()
    }

    /// The text of every `<text>` element.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text ")
            .skip(1)
            .filter_map(|t| t.split_once('>'))
            .map(|(_, rest)| {
                rest.split("</text>")
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_string()
            })
            .collect()
    }

    fn hex(c: RGBColor) -> String {
        format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
    }

    fn legend_box(svg: &str) -> Rect {
        let frame = elements(svg, "rect")
            .into_iter()
            .find(|r| attr_str(r, "stroke") == hex(style::LEGEND_FRAME))
            .expect("a legend frame");
        let (x, y) = (attr(frame, "x").unwrap(), attr(frame, "y").unwrap());
        (
            x,
            y,
            x + attr(frame, "width").unwrap(),
            y + attr(frame, "height").unwrap(),
        )
    }

    fn fig3() -> Chart {
        let ours: Vec<(f64, f64)> = (1..=9)
            .map(|h| (f64::from(h), 41.0 - 0.3 * f64::from(h)))
            .collect();
        let mut c = Chart::new("Fig. 3", "distance (hops)", "throughput (kbit/s)")
            .with(Series::published(
                "K&O Oct 1974",
                vec![
                    (1.0, 37.75),
                    (2.0, 37.75),
                    (3.0, 37.75),
                    (4.0, 37.75),
                    (5.0, 37.75),
                    (9.0, 30.0),
                ],
            ))
            .with(Series::new("nmc", SeriesStyle::LinePoints, ours));
        c.y_range = Some(0.0..50.0);
        c
    }

    #[test]
    fn integer_and_category_axes_have_whole_or_named_ticks_only() {
        // Hops 1..9 and counts 0..3: plotters alone would label 0.5-steps on both.
        let c = Chart::new("counts", "distance (hops)", "messages (count)").with(Series::new(
            "n",
            SeriesStyle::LinePoints,
            vec![(1.0, 0.0), (2.0, 3.0), (5.0, 1.0), (9.0, 2.0)],
        ));
        let l = c.layout().unwrap();
        let hops: Vec<String> = (1..=9).map(|h| h.to_string()).collect();
        assert_eq!(l.x_ticks, hops, "a tick at every hop, none between");
        assert_eq!(l.y_ticks, ["0", "1", "2", "3"]);
        let svg = c.to_svg().unwrap();
        let numeric: Vec<String> = texts(&svg)
            .into_iter()
            .filter(|t| t.parse::<f64>().is_ok())
            .collect();
        assert!(numeric.len() >= 13, "{numeric:?}");
        assert!(
            numeric.iter().all(|t| !t.contains('.')),
            "fractional tick label on a whole-number axis: {numeric:?}"
        );
        // Categories: named ticks at exactly the given values.
        let c = Chart::new("gain", "loop prevention", "throughput gain (%)")
            .with(Series::new(
                "nmc",
                SeriesStyle::Bars { width: 0.6 },
                vec![(1.0, 20.0), (2.0, 8.0), (3.0, 54.5)],
            ))
            .x_axis(Axis::Categories(vec![
                (1.0, "none".into()),
                (2.0, "hold-down".into()),
                (3.0, "feasible successor".into()),
            ]));
        assert_eq!(
            c.layout().unwrap().x_ticks,
            ["none", "hold-down", "feasible successor"]
        );
        // A continuous axis keeps its fractions.
        let c = Chart::new("rho", "load ρ (fraction)", "wait (ms)").with(Series::new(
            "w",
            SeriesStyle::Points,
            vec![(0.1, 1.1), (0.8, 39.9)],
        ));
        assert!(c.layout().unwrap().x_ticks.iter().any(|t| t.contains('.')));
    }

    #[test]
    fn published_values_are_markers_at_the_papers_points_under_ours() {
        let svg = fig3().to_svg().unwrap();
        let black = hex(style::reference(0));
        let hollow: Vec<&str> = elements(&svg, "circle")
            .into_iter()
            .filter(|c| attr_str(c, "stroke") == black && attr_str(c, "fill") == "none")
            .collect();
        // Six published values and the legend's sample: no more, no fewer.
        assert_eq!(hollow.len(), 6 + 1, "{hollow:?}");
        // No line joins them (no black polyline: the axes are another colour).
        assert!(
            !elements(&svg, "polyline")
                .iter()
                .any(|p| attr_str(p, "stroke") == black),
            "a published series is drawn with a line"
        );
        // The hops they are at: 1–5 and 9 (x pixels of 9 distinct hops, 6 of them used).
        let l = fig3().layout().unwrap();
        let px = |h: f64| l.plot.0 + (h - 0.5) / 9.0 * (l.plot.2 - l.plot.0);
        let mut xs: Vec<f64> = hollow[..6].iter().map(|c| attr(c, "cx").unwrap()).collect();
        xs.sort_by(f64::total_cmp);
        for (x, h) in xs.iter().zip([1.0, 2.0, 3.0, 4.0, 5.0, 9.0]) {
            assert!(
                (x - px(h)).abs() <= 2.0,
                "published marker at x={x}, hop {h} is at {}",
                px(h)
            );
        }
        // Ours is drawn after (on top of) every published marker.
        let ours = hex(style::ours(0));
        let first_ours = svg.find(&format!("stroke=\"{ours}\"")).unwrap();
        let last_published = svg.rfind(&format!("stroke=\"{black}\"")).unwrap();
        let legend = svg
            .find(&format!("stroke=\"{}\"", hex(style::LEGEND_FRAME)))
            .unwrap();
        assert!(svg[..legend].rfind(&format!("stroke=\"{black}\"")).unwrap() < first_ours);
        assert!(last_published > legend, "the legend's sample comes last");
    }

    #[test]
    fn the_legend_covers_no_data() {
        // Data high on the left and right, low in the middle: the top corners are taken.
        let v: Vec<(f64, f64)> = (0..=40)
            .map(|i| {
                let x = f64::from(i) / 4.0;
                (x, 2.0 + (x - 5.0).powi(2) * 3.0)
            })
            .collect();
        let c = Chart::new("valley", "x (s)", "y (ms)")
            .with(Series::new("a valley", SeriesStyle::Points, v.clone()))
            .with(Series::new(
                "the valley, higher",
                SeriesStyle::Line,
                v.iter().map(|p| (p.0, p.1 + 5.0)).collect(),
            ));
        let svg = c.to_svg().unwrap();
        let l = c.layout().unwrap();
        assert!(!l.legend_below);
        let b = legend_box(&svg);
        assert_eq!(
            Some(b),
            l.legend
                .map(|r| (r.0.round(), r.1.round(), r.2.round(), r.3.round()))
        );
        let blue = hex(style::ours(0));
        let inside = |x: f64, y: f64| x >= b.0 && x <= b.2 && y >= b.1 && y <= b.3;
        let dots_inside = elements(&svg, "circle")
            .into_iter()
            .filter(|c| attr_str(c, "fill") == blue)
            .filter(|c| inside(attr(c, "cx").unwrap(), attr(c, "cy").unwrap()))
            .count();
        assert_eq!(
            dots_inside, 1,
            "only the legend's own sample lies in the legend"
        );
        let red = hex(style::ours(1));
        for p in elements(&svg, "polyline")
            .into_iter()
            .filter(|p| attr_str(p, "stroke") == red)
        {
            let pts: Vec<(f64, f64)> = attr_str(p, "points")
                .split_whitespace()
                .filter_map(|xy| xy.split_once(','))
                .map(|(x, y)| (x.parse().unwrap(), y.parse().unwrap()))
                .collect();
            if pts.len() > 2 {
                for w in pts.windows(2) {
                    assert!(clip(w[0], w[1], b).is_none(), "line crosses the legend");
                }
            }
        }
        // Data everywhere: the legend goes below the plot, and the document grows.
        let mut c = c;
        c.series.push(Series::new(
            "everywhere",
            SeriesStyle::Line,
            (0..=400)
                .map(|i| (f64::from(i) / 40.0, if i % 2 == 0 { 0.0 } else { 80.0 }))
                .collect(),
        ));
        let l = c.layout().unwrap();
        assert!(l.legend_below);
        let r = l.legend.unwrap();
        assert!(r.1 >= f64::from(c.size.1) && l.size.1 > c.size.1);
    }

    /// The `<text>` elements with the given `font-size`, as (x, y, text-anchor, text).
    fn texts_of_size(svg: &str, size: f64) -> Vec<(f64, f64, String, String)> {
        svg.split("<text ")
            .skip(1)
            .filter_map(|t| {
                let (head, rest) = t.split_once('>')?;
                let head = format!(" {head}");
                (attr(&head, "font-size")? == size).then(|| {
                    (
                        attr(&head, "x").unwrap_or(f64::NAN),
                        attr(&head, "y").unwrap_or(f64::NAN),
                        attr_str(&head, "text-anchor").to_string(),
                        rest.split("</text>")
                            .next()
                            .unwrap_or("")
                            .trim()
                            .to_string(),
                    )
                })
            })
            .collect()
    }

    #[test]
    fn a_long_title_wraps_within_the_canvas_and_pushes_the_plot_down() {
        let long = "Pump round trips, first 200 s of the loaded 1974 map with failures \
                    (CASE–CMU down 40–60, 100–120, 160–180 s; UCLA–ARPA pumped at 9 hops)";
        let short =
            Chart::new("Fig. 3", "distance (hops)", "throughput (kbit/s)").with(Series::new(
                "nmc",
                SeriesStyle::LinePoints,
                vec![(1.0, 38.0), (9.0, 30.0)],
            ));
        let mut c = short.clone();
        c.title = long.into();
        let (l, svg) = (c.layout().unwrap(), c.to_svg().unwrap());
        assert!(l.title.len() >= 2, "{:?}", l.title);
        assert_eq!(
            l.title.join(" "),
            long.split_whitespace().collect::<Vec<_>>().join(" ")
        );
        let size = style::TITLE_SIZE / 1.24;
        let drawn = texts_of_size(&svg, size);
        assert_eq!(
            drawn.iter().map(|t| t.3.clone()).collect::<Vec<_>>(),
            l.title,
            "each line is its own <text>"
        );
        let canvas = f64::from(l.size.0);
        let mut last_y = 0.0;
        for (x, y, anchor, text) in &drawn {
            assert_eq!(anchor, "middle");
            let w = style::text_width(text, style::TITLE_SIZE);
            assert!(
                x - w / 2.0 >= 0.0 && x + w / 2.0 <= canvas,
                "{text:?} ({w:.0} px at x={x}) runs off a {canvas} px canvas"
            );
            assert!(
                w <= l.plot.2 - l.plot.0 + 1.0,
                "{text:?} is wider than the plot"
            );
            assert!(*y > last_y, "lines go down the page");
            last_y = *y;
        }
        // The extra lines add to the height; the plot below keeps its size.
        let s = short.layout().unwrap();
        assert_eq!(s.title, ["Fig. 3"]);
        assert!(l.size.1 > s.size.1, "{:?} vs {:?}", l.size, s.size);
        assert!(
            last_y + size * 0.3 < l.plot.1,
            "the title overlaps the plot"
        );
        let h = |r: Rect| r.3 - r.1;
        assert!((h(l.plot) - h(s.plot)).abs() <= 1.0);
    }

    #[test]
    fn the_legend_box_holds_its_longest_label() {
        let labels = [
            "nmc",
            "WWW MMM — wide letters in a long label",
            "K&O Oct 1974 (published)",
        ];
        let mut c = Chart::new("legend", "x (s)", "y (ms)");
        for (k, name) in labels.iter().enumerate() {
            c = c.with(Series::new(
                *name,
                SeriesStyle::LinePoints,
                vec![(0.0, 1.0 + k as f64), (1.0, 1.0 + k as f64)],
            ));
        }
        c.y_range = Some(0.0..20.0);
        let svg = c.to_svg().unwrap();
        let b = legend_box(&svg);
        let drawn = texts_of_size(&svg, style::LEGEND_SIZE / 1.24);
        for name in labels {
            let (x, _, _, _) = drawn
                .iter()
                .find(|t| t.3 == name.replace('&', "&amp;"))
                .unwrap_or_else(|| panic!("{name} not drawn: {drawn:?}"));
            // By plotters' own estimate and by the style's, the label ends inside the frame.
            let (pw, _) = style::font(style::LEGEND_SIZE).box_size(name).unwrap();
            let em = style::LEGEND_SIZE / 1.24;
            let pessimistic = name.chars().count() as f64 * em * 0.64;
            for w in [f64::from(pw), style::text_width(name, style::LEGEND_SIZE)] {
                assert!(
                    x + w <= b.2,
                    "{name}: ends at {} past the frame at {}",
                    x + w,
                    b.2
                );
            }
            assert!(
                style::text_width(name, style::LEGEND_SIZE) >= pessimistic * 0.9,
                "{name}: estimate below 0.58 em a character"
            );
        }
    }
}
