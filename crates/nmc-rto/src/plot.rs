//! SVG plots: the Fuzzball display and the sweep heat map.
//!
//! RFC 889 §3.1: each run's data points were "plotted on a color bit-map display ... (x,y), where
//! x represents the time since initiation of the experiment and y the measured delay ... Then,
//! the simulated retransmission-timeout algorithm was run on these data and its computed timeout
//! plotted in the same way. The display immediately reveals how the algorithm behaves in the face
//! of varying traffic loads, network glitches, lost packets and superfluous retransmissions."
//! [`fuzzball_svg`] draws the same: round-trip delays as points (RTX volleys in red), lost
//! volleys as crosses along the top, and the timeout in force as a step line. (The Fuzzball
//! normalised delays to one way; these plots show the round trip the trace records.)
//!
//! Both are drawn in the project's one chart style ([`nmc_report::style`]); the display is an
//! [`nmc_report::Chart`]. Text is emitted as SVG `<text>` elements and rendered by the viewer, so
//! no system fonts are needed.

use nmc_report::style::{self, Marker};
use nmc_report::{Axis, Chart, Series, SeriesStyle};
use plotters::prelude::*;

use crate::eval::{Outcome, Step, Summary};

/// Any plotting failure, as text.
pub type PlotError = String;

fn perr<E: std::fmt::Debug>(e: E) -> PlotError {
    format!("plot: {e:?}")
}

/// The Fuzzball display of one replay, as an SVG document.
pub fn fuzzball_svg(summary: &Summary, steps: &[Step]) -> Result<String, PlotError> {
    let t0 = steps.first().map_or(0, |s| s.send.0);
    let x = |s: &Step| s.send.0.saturating_sub(t0) as f64 / 1e9;
    let x_max = steps.iter().map(x).fold(0.0, f64::max).max(1e-3) * 1.02;
    let max_delay = steps
        .iter()
        .filter(|s| s.outcome != Outcome::Lost)
        .filter_map(|s| s.delay)
        .map(|d| d.as_millis_f64())
        .fold(0.0, f64::max);
    let max_timeout = steps
        .iter()
        .map(|s| s.timeout.as_millis_f64())
        .fold(0.0, f64::max);
    // Keep the delays readable: a backed-off timeout may be far above them; it is clipped.
    let y_max = if max_delay > 0.0 {
        max_timeout.min(3.0 * max_delay).max(max_delay) * 1.08
    } else {
        max_timeout.max(1.0) * 1.08
    };
    let clip = |v: f64| v.min(y_max);

    let caption = format!(
        "{} - {}: eff {:.3}, lost {} ({:.1} s), RTX {} ({:.1} s), mean {:.0} ms, CoV {:.2}",
        summary.trace,
        crate::eval::short(&summary.estimator),
        summary.efficiency,
        summary.lost,
        summary.lost_time.as_secs_f64(),
        summary.rtx,
        summary.rtx_time.as_secs_f64(),
        summary.mean * 1e3,
        summary.cov
    );
    let delays = |o: Outcome| -> Vec<(f64, f64)> {
        steps
            .iter()
            .filter(|s| s.outcome == o)
            .filter_map(|s| s.delay.map(|d| (x(s), clip(d.as_millis_f64()))))
            .collect()
    };
    let lost: Vec<(f64, f64)> = steps
        .iter()
        .filter(|s| s.outcome == Outcome::Lost)
        .map(|s| (x(s), y_max * 0.97))
        .collect();
    // The timeout in force, as a step line.
    let mut line = Vec::with_capacity(steps.len() * 2);
    for (i, s) in steps.iter().enumerate() {
        let t = clip(s.timeout.as_millis_f64());
        line.push((x(s), t));
        let next = steps.get(i + 1).map_or(x_max, x);
        line.push((next, t));
    }
    let mut chart = Chart::new(caption, "time since start (s)", "round-trip delay (ms)")
        .with(Series::new(
            "delay",
            SeriesStyle::Points,
            delays(Outcome::Good),
        ))
        .with(Series::new(
            "RTX: delay above timeout",
            SeriesStyle::Points,
            delays(Outcome::Rtx),
        ))
        .with(Series::new("computed timeout", SeriesStyle::Line, line))
        .with(Series::new("lost (no reply)", SeriesStyle::Points, lost).with_marker(Marker::Cross))
        .x_axis(Axis::Linear)
        .y_axis(Axis::Linear);
    chart.size = (960, 540);
    chart.x_range = Some(0.0..x_max);
    chart.y_range = Some(0.0..y_max);
    chart.to_svg()
}

/// A heat map: `cells[panel][y][x]` values over labelled axes, one panel per third-axis value.
pub struct HeatMap<'a> {
    /// Caption.
    pub title: String,
    /// X axis name and tick values.
    pub x: (&'a str, &'a [f64]),
    /// Y axis name and tick values (one value for a single row).
    pub y: (&'a str, &'a [f64]),
    /// Panel axis name and values (one value for a single panel).
    pub panels: (&'a str, &'a [f64]),
    /// `cells[panel][yi][xi]`.
    pub cells: Vec<Vec<Vec<f64>>>,
}

fn heat_color(t: f64) -> HSLColor {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    HSLColor(0.7 * (1.0 - t), 0.75, 0.5)
}

/// Renders a heat map (high values red, low blue; the colour scale spans the grid's range).
pub fn heatmap_svg(h: &HeatMap<'_>) -> Result<String, PlotError> {
    let all = h
        .cells
        .iter()
        .flatten()
        .flatten()
        .copied()
        .filter(|v| v.is_finite());
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let span = if hi > lo { hi - lo } else { 1.0 };
    let np = h.panels.1.len().max(1);
    let mut svg = String::new();
    {
        let width = (420 * np as u32).clamp(480, 2400);
        let root = SVGBackend::with_string(&mut svg, (width, 480)).into_drawing_area();
        root.fill(&style::BACKGROUND).map_err(perr)?;
        // A sweep's title is long and a single panel narrow: the axis-title size, wrapped to
        // the width.
        let title = style::wrap(
            &format!("{}   (colour: {:.3} blue .. {:.3} red)", h.title, lo, hi),
            style::AXIS_TITLE_SIZE,
            f64::from(width - 2 * style::MARGIN),
        );
        let root = style::draw_title(
            &root,
            &title,
            style::AXIS_TITLE_SIZE,
            f64::from(width) / 2.0,
        )
        .map_err(perr)?;
        let areas = root.split_evenly((1, np));
        for (pi, area) in areas.iter().enumerate() {
            let nx = h.x.1.len().max(1);
            let ny = h.y.1.len().max(1);
            let xs = h.x.1;
            let ys = h.y.1;
            let cap = match h.panels.1.get(pi) {
                Some(v) if h.panels.1.len() > 1 || !h.panels.0.is_empty() => {
                    format!("{} = {v}", h.panels.0)
                }
                _ => String::new(),
            };
            let mut chart = ChartBuilder::on(area)
                .caption(cap, style::font(style::AXIS_TITLE_SIZE))
                .margin(style::MARGIN)
                .x_label_area_size(style::X_LABEL_AREA)
                .y_label_area_size(60)
                .build_cartesian_2d(0f64..nx as f64, 0f64..ny as f64)
                .map_err(perr)?;
            // Label cell centres only, and at most about eight per axis.
            let label = |vals: &[f64], v: &f64| {
                let i = v.floor() as usize;
                let stride = vals.len().div_ceil(8).max(1);
                let centre = (v - v.floor() - 0.5).abs() < 1e-9;
                match vals.get(i) {
                    Some(x) if centre && i.is_multiple_of(stride) && x.is_finite() => {
                        format!("{x}")
                    }
                    _ => String::new(),
                }
            };
            let xf = |v: &f64| label(xs, v);
            let yf = |v: &f64| label(ys, v);
            chart
                .configure_mesh()
                .disable_mesh()
                .x_labels(nx * 2 + 1)
                .y_labels(ny * 2 + 1)
                .x_label_formatter(&xf)
                .y_label_formatter(&yf)
                .x_desc(h.x.0)
                .y_desc(h.y.0)
                .axis_style(style::AXIS)
                .label_style(style::text(style::TICK_SIZE, style::AXIS))
                .axis_desc_style(style::text(style::AXIS_TITLE_SIZE, style::AXIS))
                .draw()
                .map_err(perr)?;
            let Some(grid) = h.cells.get(pi) else {
                continue;
            };
            let mut rects = Vec::new();
            for (yi, row) in grid.iter().enumerate() {
                for (xi, v) in row.iter().enumerate() {
                    let c = heat_color((v - lo) / span);
                    rects.push(Rectangle::new(
                        [(xi as f64, yi as f64), (xi as f64 + 1.0, yi as f64 + 1.0)],
                        c.filled(),
                    ));
                }
            }
            chart.draw_series(rects).map_err(perr)?;
        }
        root.present().map_err(perr)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heat_maps_long_title_wraps_within_its_width() {
        let xs = [0.1, 0.2, 0.3];
        let svg = heatmap_svg(&HeatMap {
            title: "RFC 889 §3 estimators replayed on every trace of the sweep: the mean \
                    retransmission timeout over the measured round trip, by gain and minimum"
                .into(),
            x: ("gain α (dimensionless)", &xs),
            y: ("minimum (ms)", &[200.0]),
            panels: ("", &[0.0]),
            cells: vec![vec![vec![1.0, 2.0, 3.0]]],
        })
        .unwrap();
        let width: f64 = svg
            .split("width=\"")
            .nth(1)
            .and_then(|w| w.split('"').next())
            .unwrap()
            .parse()
            .unwrap();
        let size = format!("font-size=\"{}\"", style::AXIS_TITLE_SIZE / 1.24);
        let lines: Vec<String> = svg
            .split("<text ")
            .filter_map(|t| t.split_once('>'))
            .filter(|(head, _)| head.contains(&size) && head.contains("text-anchor=\"middle\""))
            .map(|(_, rest)| rest.split("</text>").next().unwrap().trim().to_string())
            .filter(|t| !t.is_empty() && t != "minimum (ms)" && !t.starts_with("gain α"))
            .collect();
        assert!(lines.len() >= 2, "{lines:?}");
        assert!(
            lines[0].starts_with("RFC 889 §3") && lines.last().unwrap().contains("red)"),
            "{lines:?}"
        );
        for l in &lines {
            assert!(style::text_width(l, style::AXIS_TITLE_SIZE) <= width, "{l}");
        }
    }
}
