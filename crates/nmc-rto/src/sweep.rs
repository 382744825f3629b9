//! Parameter sweeps: one estimator over a grid of its parameters, on a set of traces — the
//! "number of trials" by which Mills chose F1 = 15/16, F2 = 3/4 (RFC 889 §3.3).
//!
//! A grid is `key=SPEC[,key=SPEC...]` with one to three keys of the estimator, where SPEC is a
//! range `a..b/step` (both ends included, within rounding), a list `v1|v2|v3`, or one value:
//! `F1=0.8..0.975/0.025,F2=0.5..0.9/0.05,G=1.5|2|2.5`. A duration parameter's values carry their
//! unit, like every duration (`min=200ms..1s/200ms`, `init=1s|3s`); its axis is in seconds. The
//! first key is the heat map's x axis, the second its y axis, the third splits it into panels.
//! Each grid point's score is the mean efficiency over the traces.

use std::fmt;

use crate::estimator::Estimator;
use crate::eval::{Charge, replay};
use crate::time::Nanos;
use crate::trace::Trace;

/// One grid axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// Parameter key, as the estimator spells it.
    pub key: String,
    /// Values, in order (seconds for a duration).
    pub values: Vec<f64>,
    /// The values were given as durations (with their unit) and are seconds.
    pub duration: bool,
}

impl Axis {
    /// The text [`Estimator::set`] is given for value `v` of this axis.
    pub fn text(&self, v: f64) -> String {
        if self.duration {
            format!("{}ns", Nanos::from_secs_f64(v).0)
        } else {
            v.to_string()
        }
    }
}

/// A bad grid; one line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("bad grid `{grid}`: {msg}")]
pub struct GridError {
    /// The grid text.
    pub grid: String,
    /// What is wrong.
    pub msg: String,
}

/// Parses a grid against an estimator (keys are checked and normalised through it).
pub fn parse_grid(grid: &str, base: &dyn Estimator) -> Result<Vec<Axis>, GridError> {
    let fail = |msg: String| GridError {
        grid: grid.to_string(),
        msg,
    };
    let mut axes: Vec<Axis> = Vec::new();
    for item in grid.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (k, spec) = item
            .split_once('=')
            .ok_or_else(|| fail(format!("`{item}` is not key=a..b/step, key=v1|v2 or key=v")))?;
        let key = base
            .keys()
            .iter()
            .find(|c| c.eq_ignore_ascii_case(k.trim()))
            .ok_or_else(|| {
                fail(format!(
                    "unknown key `{}` for {} (expected one of: {})",
                    k.trim(),
                    base.name(),
                    base.keys().join(", ")
                ))
            })?
            .to_string();
        // Numbers, or durations with their unit (then in seconds); one axis is all one kind.
        let mut kind: Option<bool> = None;
        let mut num = |s: &str| -> Result<f64, GridError> {
            let s = s.trim();
            let (v, is_duration) = match nmc_sim::parse_fraction(s) {
                Some(v) => (v, false),
                None => match s.parse::<Nanos>() {
                    Ok(d) => (d.as_secs_f64(), true),
                    Err(_) => {
                        return Err(fail(format!(
                            "`{s}` is not a number or a duration with its unit"
                        )));
                    }
                },
            };
            if *kind.get_or_insert(is_duration) != is_duration {
                return Err(fail(format!(
                    "`{spec}` mixes numbers and durations: give every value of a duration with its unit"
                )));
            }
            Ok(v)
        };
        let values = if let Some((range, step)) = spec.split_once("..").map(|(a, rest)| {
            let (b, step) = rest.rsplit_once('/').unwrap_or((rest, ""));
            ((a, b), step)
        }) {
            let (a, b) = (num(range.0)?, num(range.1)?);
            if step.is_empty() {
                return Err(fail(format!("range `{spec}` needs a step: a..b/step")));
            }
            let st = num(step)?;
            if st <= 0.0 || b < a {
                return Err(fail(format!(
                    "range `{spec}` needs a ≤ b and a positive step"
                )));
            }
            let n = ((b - a) / st + 1e-9).floor() as usize + 1;
            if n > 10_000 {
                return Err(fail(format!(
                    "range `{spec}` has {n} points (at most 10000)"
                )));
            }
            // Rounded to 10 decimals so that 0.8 + 0.025·1 prints as 0.825.
            (0..n)
                .map(|i| ((a + st * i as f64) * 1e10).round() / 1e10)
                .collect()
        } else {
            spec.split('|')
                .map(&mut num)
                .collect::<Result<Vec<_>, _>>()?
        };
        let axis = Axis {
            key,
            values,
            duration: kind == Some(true),
        };
        // Every value must be acceptable to the estimator.
        let mut probe = base.fresh();
        for v in &axis.values {
            probe
                .set(&axis.key, &axis.text(*v))
                .map_err(|e| fail(e.to_string()))?;
        }
        if axes.iter().any(|a| a.key == axis.key) {
            return Err(fail(format!("key `{}` given twice", axis.key)));
        }
        axes.push(axis);
    }
    if axes.is_empty() || axes.len() > 3 {
        return Err(fail(format!("expected 1 to 3 keys, got {}", axes.len())));
    }
    let points: usize = axes.iter().map(|a| a.values.len()).product();
    if points > 100_000 {
        return Err(fail(format!("{points} grid points (at most 100000)")));
    }
    Ok(axes)
}

/// One grid point.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The parameter values, in axis order.
    pub values: Vec<f64>,
    /// Efficiency per trace, in trace order.
    pub efficiency: Vec<f64>,
    /// Mean of `efficiency`.
    pub mean: f64,
}

/// A finished sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    /// Base estimator spec.
    pub base: String,
    /// The axes.
    pub axes: Vec<Axis>,
    /// Trace names.
    pub traces: Vec<String>,
    /// All grid points, first axis varying fastest.
    pub points: Vec<Point>,
}

impl fmt::Display for Sweep {
    /// A one-line account of the best point.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.best() {
            Some(p) => {
                let kv: Vec<String> = self
                    .axes
                    .iter()
                    .zip(&p.values)
                    .map(|(a, v)| format!("{}={v}{}", a.key, if a.duration { "s" } else { "" }))
                    .collect();
                write!(f, "best {}: mean efficiency {:.4}", kv.join(","), p.mean)
            }
            None => write!(f, "empty sweep"),
        }
    }
}

impl Sweep {
    /// The point with the highest mean efficiency (first on ties).
    pub fn best(&self) -> Option<&Point> {
        self.points
            .iter()
            .fold(None, |b: Option<&Point>, p| match b {
                Some(b) if b.mean >= p.mean => Some(b),
                _ => Some(p),
            })
    }
}

/// Runs the grid.
pub fn run(base: &dyn Estimator, axes: &[Axis], traces: &[Trace], charge: &Charge) -> Sweep {
    let dims: Vec<usize> = axes.iter().map(|a| a.values.len()).collect();
    let total: usize = dims.iter().product();
    let mut points = Vec::with_capacity(total);
    for idx in 0..total {
        let mut rem = idx;
        let mut est = base.fresh();
        let mut values = Vec::with_capacity(axes.len());
        for a in axes {
            let v = a.values[rem % a.values.len()];
            rem /= a.values.len();
            est.set(&a.key, &a.text(v))
                .expect("grid values were validated by parse_grid");
            values.push(v);
        }
        let efficiency: Vec<f64> = traces
            .iter()
            .map(|t| replay(t, est.as_ref(), charge).0.efficiency)
            .collect();
        let mean = if efficiency.is_empty() {
            0.0
        } else {
            efficiency.iter().sum::<f64>() / efficiency.len() as f64
        };
        points.push(Point {
            values,
            efficiency,
            mean,
        });
    }
    Sweep {
        base: base.describe(),
        axes: axes.to_vec(),
        traces: traces.iter().map(|t| t.name.clone()).collect(),
        points,
    }
}

/// Writes the sweep as CSV: one column per key, one per trace (`eff_NAME`), then `mean_eff`.
pub fn write_csv<W: std::io::Write>(s: &Sweep, charge: &Charge, w: W) -> std::io::Result<()> {
    let mut wtr = csv::WriterBuilder::new().flexible(true).from_writer(w);
    wtr.write_record([format!("# base {}; {}", s.base, charge.describe())])?;
    let mut header: Vec<String> = s.axes.iter().map(|a| a.key.clone()).collect();
    header.extend(s.traces.iter().map(|t| format!("eff_{t}")));
    header.push("mean_eff".into());
    wtr.write_record(&header)?;
    for p in &s.points {
        let mut rec: Vec<String> = p.values.iter().map(|v| v.to_string()).collect();
        rec.extend(p.efficiency.iter().map(|e| format!("{e:.6}")));
        rec.push(format!("{:.6}", p.mean));
        wtr.write_record(&rec)?;
    }
    wtr.flush()
}

/// Renders the sweep's mean efficiency as a heat map.
pub fn heatmap(s: &Sweep) -> Result<String, crate::plot::PlotError> {
    let one = [f64::NAN];
    let ax = |i: usize| s.axes.get(i).map(|a| (a.key.as_str(), a.values.as_slice()));
    let x = ax(0).unwrap_or(("", &one));
    let y = ax(1).unwrap_or(("", &one));
    let panels = ax(2).unwrap_or(("", &one));
    let (nx, ny) = (x.1.len(), y.1.len());
    let mut cells = vec![vec![vec![f64::NAN; nx]; ny]; panels.1.len()];
    for (i, p) in s.points.iter().enumerate() {
        let (xi, yi, pi) = (i % nx, (i / nx) % ny, i / (nx * ny));
        cells[pi][yi][xi] = p.mean;
    }
    crate::plot::heatmap_svg(&crate::plot::HeatMap {
        title: format!("{}: mean efficiency; {}", crate::eval::short(&s.base), s),
        x,
        y,
        panels,
        cells,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimator::parse;

    #[test]
    fn grid_syntax() {
        let m = parse("mills").unwrap();
        let g = parse_grid("F1=0.8..0.9/0.05,F2=0.5|0.75,G=2", m.as_ref()).unwrap();
        assert_eq!(g.len(), 3);
        assert_eq!(g[0].values.len(), 3);
        assert_eq!(g[1].values, vec![0.5, 0.75]);
        assert_eq!(g[2].values, vec![2.0]);
        let e = parse_grid("F9=1", m.as_ref()).unwrap_err().to_string();
        assert!(e.contains("unknown key `F9`"), "{e}");
        let e = parse_grid("F1=0.8..0.9", m.as_ref())
            .unwrap_err()
            .to_string();
        assert!(e.contains("step"), "{e}");
        let e = parse_grid("F1=0.5..2/0.5", m.as_ref())
            .unwrap_err()
            .to_string();
        assert!(e.contains("F1"), "{e}");
    }

    #[test]
    fn duration_axes_take_their_unit() {
        let j = parse("jacobson").unwrap();
        let g = parse_grid("min=200ms..1s/200ms,g=1/8", j.as_ref()).unwrap();
        assert!(g[0].duration && !g[1].duration);
        assert_eq!(g[0].values, vec![0.2, 0.4, 0.6, 0.8, 1.0]);
        assert_eq!(g[0].text(0.2), "200000000ns");
        let e = parse_grid("min=1|2", j.as_ref()).unwrap_err().to_string();
        assert!(e.contains("`1` needs a unit: 1s, 1ms"), "{e}");
        let e = parse_grid("min=1s|2", j.as_ref()).unwrap_err().to_string();
        assert!(e.contains("mixes numbers and durations"), "{e}");
    }
}
