//! SVG charts.
//!
//! A [`Chart`] is data (title, axis labels, series); [`Chart::to_svg`] draws it with plotters'
//! SVG backend. Text is written as SVG `<text>` in a generic `sans-serif` family, so no font
//! files are needed to draw and any browser renders it.

use plotters::prelude::*;
use std::ops::Range;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SeriesStyle {
    Line,
    Points,
    LinePoints,
    /// Vertical bars of the given width in x units, centred on each x.
    Bars {
        width: f64,
    },
    /// A dashed horizontal or sloped reference line (e.g. a published curve).
    Dashed,
    /// Separate line segments: points taken in pairs (start, end).
    Segments,
}

#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub style: SeriesStyle,
}

impl Series {
    pub fn new(name: impl Into<String>, style: SeriesStyle, points: Vec<(f64, f64)>) -> Self {
        Series {
            name: name.into(),
            points,
            style,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Fixed axis ranges; by default they cover the data (y from 0 when all y ≥ 0).
    pub x_range: Option<Range<f64>>,
    pub y_range: Option<Range<f64>>,
    pub size: (u32, u32),
}

const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(127, 127, 127),
];

impl Chart {
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
            size: (720, 420),
        }
    }

    pub fn with(mut self, s: Series) -> Self {
        self.series.push(s);
        self
    }

    fn ranges(&self) -> (Range<f64>, Range<f64>) {
        let pts = || {
            self.series
                .iter()
                .flat_map(|s| s.points.iter())
                .filter(|p| p.0.is_finite() && p.1.is_finite())
        };
        let bar_pad = self
            .series
            .iter()
            .filter_map(|s| match s.style {
                SeriesStyle::Bars { width } => Some(width / 2.0),
                _ => None,
            })
            .fold(0.0, f64::max);
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in pts() {
            x0 = x0.min(x - bar_pad);
            x1 = x1.max(x + bar_pad);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if x0 > x1 {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        if y0 >= 0.0 {
            y0 = 0.0;
        }
        let pad = |lo: f64, hi: f64| if hi > lo { (hi - lo) * 0.05 } else { 1.0 };
        let x = self
            .x_range
            .clone()
            .unwrap_or(x0..x1 + if x1 > x0 { 0.0 } else { 1.0 });
        let y = self.y_range.clone().unwrap_or(y0..y1 + pad(y0, y1));
        (x, y)
    }

    /// Draws the chart as an SVG document.
    pub fn to_svg(&self) -> Result<String, String> {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, self.size).into_drawing_area();
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            let (xr, yr) = self.ranges();
            let mut chart = ChartBuilder::on(&root)
                .caption(&self.title, ("sans-serif", 18))
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(56)
                .build_cartesian_2d(xr, yr)
                .map_err(|e| e.to_string())?;
            chart
                .configure_mesh()
                .x_desc(&self.x_label)
                .y_desc(&self.y_label)
                .light_line_style(RGBColor(235, 235, 235))
                .draw()
                .map_err(|e| e.to_string())?;
            for (i, s) in self.series.iter().enumerate() {
                let color = PALETTE[i % PALETTE.len()];
                let pts: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .copied()
                    .filter(|p| p.0.is_finite() && p.1.is_finite())
                    .collect();
                let legend = move |(x, y): (i32, i32)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                };
                match s.style {
                    SeriesStyle::Line => chart
                        .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                        .map_err(|e| e.to_string())?
                        .label(&s.name)
                        .legend(legend),
                    SeriesStyle::Dashed => chart
                        .draw_series(DashedLineSeries::new(pts, 6, 4, color.stroke_width(2)))
                        .map_err(|e| e.to_string())?
                        .label(&s.name)
                        .legend(legend),
                    SeriesStyle::Points => chart
                        .draw_series(pts.into_iter().map(|p| Circle::new(p, 2, color.filled())))
                        .map_err(|e| e.to_string())?
                        .label(&s.name)
                        .legend(legend),
                    SeriesStyle::LinePoints => {
                        chart
                            .draw_series(pts.iter().map(|p| Circle::new(*p, 3, color.filled())))
                            .map_err(|e| e.to_string())?;
                        chart
                            .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                            .map_err(|e| e.to_string())?
                            .label(&s.name)
                            .legend(legend)
                    }
                    SeriesStyle::Segments => chart
                        .draw_series(
                            pts.chunks_exact(2)
                                .map(|w| PathElement::new(vec![w[0], w[1]], color.stroke_width(4))),
                        )
                        .map_err(|e| e.to_string())?
                        .label(&s.name)
                        .legend(legend),
                    SeriesStyle::Bars { width } => chart
                        .draw_series(pts.into_iter().map(|(x, y)| {
                            Rectangle::new(
                                [(x - width / 2.0, 0.0), (x + width / 2.0, y)],
                                color.mix(0.7).filled(),
                            )
                        }))
                        .map_err(|e| e.to_string())?
                        .label(&s.name)
                        .legend(legend),
                };
            }
            if self.series.iter().any(|s| !s.name.is_empty()) {
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.85))
                    .border_style(RGBColor(200, 200, 200))
                    .position(SeriesLabelPosition::UpperRight)
                    .draw()
                    .map_err(|e| e.to_string())?;
            }
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_text_and_series_without_fonts() {
        let svg = Chart::new("Throughput", "hops", "kbit/s")
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
        for text in ["Throughput", "kbit/s", "average"] {
            assert!(
                svg.contains(&format!(">\n{text}\n</text>")),
                "{text} missing"
            );
        }
        // Empty and non-finite data still give a drawable chart.
        assert!(
            Chart::new("e", "x", "y")
                .with(Series::new("n", SeriesStyle::Line, vec![(f64::NAN, 1.0)]))
                .to_svg()
                .is_ok()
        );
    }
}
