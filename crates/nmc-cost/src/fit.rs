//! Estimating what RFC 392 does not give, and testing the estimates on data they were not fitted to.
//!
//! The RJS program's cost per byte ([`Tenex1972::rjs_us_per_byte`]) is always estimated from
//! the tables, and so is the fixed set-up per transfer ([`Tenex1972::setup_us`]) except in the
//! [`Variant::SourcedSetup`] fit, which takes it from RFC 573 ([`crate::its`]). The [`Variant::Mechanism`] and [`Variant::SourcedSetup`] fits also
//! estimate the size of the messages UCLA sent ([`Tenex1972::recv_message_bytes`]) and the per-message wait cost
//! under load ([`Tenex1972::wait_us_per_message_per_load`]). Everything else is the paper's.
//!
//! **Criterion.** Least squares on µs/bit (column 5), every row weighted alike: with the paper's
//! parts subtracted, a row's remaining CPU per bit is `setup / bits + rjs / byte_bits`, a
//! straight line in `1 / bits`, fitted in closed form. The message size is found by trying every
//! whole number of bytes from 1 to a full message and keeping the least squared error (the
//! smallest size on a tie), so the fit is deterministic.
//!
//! **Cross-validation.** Fit on table 1, predict every row of table 2, and the reverse
//! ([`cross_validate`]); each row's error is predicted − printed µs/bit, from a fit that never
//! saw that row.

use crate::data::{Dir, Transfer};
use crate::tenex::Tenex1972;
use serde::Serialize;

/// Which parameters a fit may move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Variant {
    /// Only set-up and RJS per byte; UCLA's messages are taken as full (1002 bytes), like
    /// Utah's. The paper's constants alone then set the send/receive difference.
    PaperConstants,
    /// Also UCLA's message size and the per-message wait cost under load: the send/receive
    /// difference and the load effect come from per-message costs times the number of
    /// messages, the same rule in both directions.
    Mechanism,
    /// As [`Variant::Mechanism`], but the set-up is not fitted: it is `base.setup_us`, taken
    /// from another source ([`crate::its`]: MIT's ITS FTP, RFC 573). Fitted: RJS per byte,
    /// UCLA's message size and the wait cost.
    SourcedSetup,
}

impl Variant {
    /// The variant's name in reports (`paper-constants`, `mechanism`, `sourced-setup`).
    pub fn name(self) -> &'static str {
        match self {
            Variant::PaperConstants => "paper-constants",
            Variant::Mechanism => "mechanism",
            Variant::SourcedSetup => "sourced-setup",
        }
    }
}

/// One fit: the parameters it chose and how well they match the rows they were fitted on.
#[derive(Clone, Debug, Serialize)]
pub struct Fit {
    /// Which parameters the fit could move.
    pub variant: Variant,
    /// The tables the fit saw (1, 2, or 12 for both).
    pub fitted_on: u8,
    /// Rows the fit saw.
    pub rows: usize,
    /// The host model with the fitted parameters filled in.
    pub params: Tenex1972,
    /// Root-mean-square error of µs/bit on the fitted rows.
    pub rms_us_per_bit: f64,
}

/// Fits `base`'s estimated parameters to `rows` (see the module doc).
pub fn fit(rows: &[&Transfer], base: &Tenex1972, variant: Variant, fitted_on: u8) -> Fit {
    let full = base.full_message_bytes();
    let candidates: Vec<f64> = match variant {
        Variant::PaperConstants => vec![full],
        Variant::Mechanism | Variant::SourcedSetup => (1..=full as u32).map(f64::from).collect(),
    };
    let fixed_setup = (variant == Variant::SourcedSetup).then_some(base.setup_us);
    let mut best: Option<(f64, Tenex1972)> = None;
    for m in candidates {
        let p = fit_linear(
            rows,
            base,
            m,
            variant != Variant::PaperConstants,
            fixed_setup,
        );
        let sse: f64 = rows
            .iter()
            .map(|t| (p.us_per_bit(t.dir, t.bytes, t.load) - t.us_per_bit).powi(2))
            .sum();
        if best.as_ref().is_none_or(|(b, _)| sse < *b) {
            best = Some((sse, p));
        }
    }
    let (sse, params) = best.expect("at least one candidate");
    Fit {
        variant,
        fitted_on,
        rows: rows.len(),
        params,
        rms_us_per_bit: (sse / rows.len().max(1) as f64).sqrt(),
    }
}

/// With UCLA's message size `recv_m`, the set-up, RJS-per-byte and (with `with_wait`) the
/// per-message wait cost that minimise the squared µs/bit error: regress
/// z = printed µs/bit − the paper's parts per bit on 1 / bits (coefficient: set-up, µs), a
/// constant (RJS µs per bit) and messages × load / bits (wait µs per message per unit load).
/// With `fixed_setup`, the set-up is that value and is subtracted with the paper's parts.
fn fit_linear(
    rows: &[&Transfer],
    base: &Tenex1972,
    recv_m: f64,
    with_wait: bool,
    fixed_setup: Option<f64>,
) -> Tenex1972 {
    let known = Tenex1972 {
        recv_message_bytes: recv_m,
        setup_us: fixed_setup.unwrap_or(0.0),
        rjs_us_per_byte: 0.0,
        wait_us_per_message_per_load: 0.0,
        ..base.clone()
    };
    let bb = f64::from(base.byte_bits.max(1));
    let mut x: Vec<Vec<f64>> = Vec::new();
    let mut z: Vec<f64> = Vec::new();
    for t in rows {
        let bits = t.bytes as f64 * bb;
        let paper = known.cost(t.dir, t.bytes, t.load).total();
        let mut xi = if fixed_setup.is_some() {
            vec![1.0]
        } else {
            vec![1.0 / bits, 1.0]
        };
        if with_wait {
            xi.push(known.messages(t.dir, t.bytes) * t.load / bits);
        }
        x.push(xi);
        z.push(t.us_per_bit - paper / bits);
    }
    let mut c = solve_least_squares(&x, &z);
    if let Some(s) = fixed_setup {
        c.insert(0, s);
    }
    Tenex1972 {
        setup_us: c[0],
        rjs_us_per_byte: c[1] * bb,
        wait_us_per_message_per_load: if with_wait { c[2] } else { 0.0 },
        ..known
    }
}

/// Least squares by the normal equations (k ≤ 3 columns, well scaled enough here), solved by
/// Gaussian elimination with partial pivoting. A singular system gives zeros for the columns
/// it cannot determine.
#[allow(clippy::needless_range_loop)] // the normal equations read best as a[i][j]
fn solve_least_squares(x: &[Vec<f64>], z: &[f64]) -> Vec<f64> {
    let k = x.first().map_or(0, Vec::len);
    // Scale each column to unit largest magnitude so 1/bits and 1 are comparable.
    let scale: Vec<f64> = (0..k)
        .map(|j| {
            let m = x.iter().map(|r| r[j].abs()).fold(0.0, f64::max);
            if m > 0.0 { m } else { 1.0 }
        })
        .collect();
    let mut a = vec![vec![0.0; k + 1]; k];
    for (r, &zi) in x.iter().zip(z) {
        for i in 0..k {
            for j in 0..k {
                a[i][j] += r[i] / scale[i] * r[j] / scale[j];
            }
            a[i][k] += r[i] / scale[i] * zi;
        }
    }
    for col in 0..k {
        let piv = (col..k)
            .max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()))
            .unwrap_or(col);
        a.swap(col, piv);
        if a[col][col].abs() < 1e-300 {
            continue;
        }
        let pivot_row = a[col].clone();
        for (row, r) in a.iter_mut().enumerate() {
            if row != col {
                let f = r[col] / pivot_row[col];
                for (x, p) in r.iter_mut().zip(&pivot_row).skip(col) {
                    *x -= f * p;
                }
            }
        }
    }
    (0..k)
        .map(|i| {
            if a[i][i].abs() < 1e-300 {
                0.0
            } else {
                a[i][k] / a[i][i] / scale[i]
            }
        })
        .collect()
}

/// Ordinary least squares y = a + b x; returns (b, a). One point or no spread in x: b = 0.
fn least_squares(pts: &[(f64, f64)]) -> (f64, f64) {
    let n = pts.len() as f64;
    if pts.is_empty() {
        return (0.0, 0.0);
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    (b, my - b * mx)
}

/// A simple regression with its statistics.
#[derive(Clone, Debug, Serialize)]
pub struct Regression {
    /// What was regressed on what, in words.
    pub what: String,
    /// Number of points.
    pub n: usize,
    /// Least-squares slope, y units per x unit.
    pub slope: f64,
    /// Least-squares intercept, y units.
    pub intercept: f64,
    /// The slope's standard error (NaN with fewer than 3 points or no spread in x).
    pub slope_se: f64,
    /// slope / its standard error.
    pub t: f64,
    /// Pearson correlation.
    pub r: f64,
}

impl Regression {
    /// |t| ≥ 2: the slope is distinguishable from zero at about the 5 % level (stated before
    /// looking at the tables).
    pub fn significant(&self) -> bool {
        self.t.abs() >= 2.0
    }
}

/// Least-squares line of y on x through `pts`, with the slope's standard error, its t and the
/// correlation; `what` names it.
pub fn regress(what: &str, pts: &[(f64, f64)]) -> Regression {
    let n = pts.len();
    let (slope, intercept) = least_squares(pts);
    let nf = n as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / nf;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / nf;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let syy: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sse: f64 = pts
        .iter()
        .map(|p| (p.1 - intercept - slope * p.0).powi(2))
        .sum();
    let slope_se = if n > 2 && sxx > 0.0 {
        (sse / (nf - 2.0) / sxx).sqrt()
    } else {
        f64::NAN
    };
    Regression {
        what: what.into(),
        n,
        slope,
        intercept,
        slope_se,
        t: slope / slope_se,
        r: if sxx > 0.0 && syy > 0.0 {
            sxy / (sxx * syy).sqrt()
        } else {
            f64::NAN
        },
    }
}

/// One row predicted by a fit that did not see it.
#[derive(Clone, Debug, Serialize)]
pub struct Prediction {
    /// The variant of the predicting fit.
    pub variant: Variant,
    /// The row's table (1 or 2).
    pub table: u8,
    /// The row's number in its table.
    pub row: u32,
    /// Column 3's letter, `s` or `r`.
    pub dir: char,
    /// Column 3: 8-bit bytes.
    pub bytes: u64,
    /// Column 6: the 5-minute load average.
    pub load: f64,
    /// The table the predicting fit was made on.
    pub fitted_on: u8,
    /// Column 5 as printed, µs/bit.
    pub printed_us_per_bit: f64,
    /// The model's µs/bit for the row.
    pub predicted_us_per_bit: f64,
    /// predicted − printed.
    pub error_us_per_bit: f64,
    /// The prediction's parts, µs/bit.
    pub setup: f64,
    /// BIN/BOUT in fast mode, µs/bit.
    pub bin_bout: f64,
    /// The once-a-message "slow bin, bout", µs/bit.
    pub slow: f64,
    /// Unpacking received messages, µs/bit.
    pub unpack: f64,
    /// The RJS program, per byte and per record, µs/bit.
    pub rjs: f64,
}

/// Both directions of cross-validation for one variant.
#[derive(Clone, Debug, Serialize)]
pub struct CrossVal {
    /// Which parameters the fits could move.
    pub variant: Variant,
    /// The fit on table 1, which predicts table 2.
    pub fit_on_1: Fit,
    /// The fit on table 2, which predicts table 1.
    pub fit_on_2: Fit,
    /// Every row of both tables, in table order, each predicted by the other table's fit.
    pub predictions: Vec<Prediction>,
}

/// Summary of prediction errors over a set of rows.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorSummary {
    /// Rows summarised.
    pub rows: usize,
    /// Mean error (predicted − printed), µs/bit: the bias.
    pub mean_us_per_bit: f64,
    /// Root-mean-square error, µs/bit.
    pub rms_us_per_bit: f64,
    /// Largest absolute error, µs/bit.
    pub max_abs_us_per_bit: f64,
    /// Mean absolute error as a percentage of the printed µs/bit.
    pub mean_abs_pct: f64,
}

/// The error summary of `preds`.
pub fn summarize<'a>(preds: impl IntoIterator<Item = &'a Prediction>) -> ErrorSummary {
    let v: Vec<&Prediction> = preds.into_iter().collect();
    let n = v.len().max(1) as f64;
    ErrorSummary {
        rows: v.len(),
        mean_us_per_bit: v.iter().map(|p| p.error_us_per_bit).sum::<f64>() / n,
        rms_us_per_bit: (v.iter().map(|p| p.error_us_per_bit.powi(2)).sum::<f64>() / n).sqrt(),
        max_abs_us_per_bit: v
            .iter()
            .map(|p| p.error_us_per_bit.abs())
            .fold(0.0, f64::max),
        mean_abs_pct: v
            .iter()
            .map(|p| 100.0 * p.error_us_per_bit.abs() / p.printed_us_per_bit)
            .sum::<f64>()
            / n,
    }
}

/// Fit on each table, predict the other.
pub fn cross_validate(rows: &[Transfer], base: &Tenex1972, variant: Variant) -> CrossVal {
    let t1: Vec<&Transfer> = rows.iter().filter(|t| t.table == 1).collect();
    let t2: Vec<&Transfer> = rows.iter().filter(|t| t.table == 2).collect();
    let fit_on_1 = fit(&t1, base, variant, 1);
    let fit_on_2 = fit(&t2, base, variant, 2);
    let predictions = rows
        .iter()
        .map(|t| {
            let f = if t.table == 1 { &fit_on_2 } else { &fit_on_1 };
            predict(&f.params, t, variant, f.fitted_on)
        })
        .collect();
    CrossVal {
        variant,
        fit_on_1,
        fit_on_2,
        predictions,
    }
}

/// Leave-one-out: each row predicted by a fit on all the other rows (both tables). A second
/// test, beside [`cross_validate`]: the table-against-table split leaves every short transfer
/// (all in table 2) to a fit that saw none; here the fit has seen the other short ones.
/// `fitted_on` is 0 in the predictions.
pub fn leave_one_out(rows: &[Transfer], base: &Tenex1972, variant: Variant) -> Vec<Prediction> {
    (0..rows.len())
        .map(|i| {
            let others: Vec<&Transfer> = rows
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, t)| t)
                .collect();
            let f = fit(&others, base, variant, 0);
            predict(&f.params, &rows[i], variant, 0)
        })
        .collect()
}

/// Row `t` as the model `p` predicts it, with its parts; `variant` and `fitted_on` describe the
/// fit `p` came from and are copied into the prediction.
pub fn predict(p: &Tenex1972, t: &Transfer, variant: Variant, fitted_on: u8) -> Prediction {
    let parts = p.cost(t.dir, t.bytes, t.load);
    let bits = t.bytes as f64 * f64::from(p.byte_bits);
    let predicted = parts.total() / bits;
    Prediction {
        variant,
        table: t.table,
        row: t.row,
        dir: t.dir.letter(),
        bytes: t.bytes,
        load: t.load,
        fitted_on,
        printed_us_per_bit: t.us_per_bit,
        predicted_us_per_bit: predicted,
        error_us_per_bit: predicted - t.us_per_bit,
        setup: parts.setup / bits,
        bin_bout: parts.bin_bout / bits,
        slow: parts.slow / bits,
        unpack: parts.unpack / bits,
        rjs: (parts.rjs_byte + parts.rjs_record) / bits,
    }
}

/// The boundary between short and large transfers: RFC 392's short rows are under ~900 bytes
/// (219–845 bytes); the next is 1412.
pub const SHORT_BYTES: u64 = 900;

/// Does load move µs/bit? Regressions over the large transfers (≥ [`SHORT_BYTES`]): printed
/// µs/bit on load, per direction; and the mechanism's cross-validated error on load (what load
/// would have to explain).
pub fn load_regressions(rows: &[Transfer], cv: &CrossVal) -> Vec<Regression> {
    let mut out = Vec::new();
    for (name, dir) in [("sends", Dir::Send), ("receives", Dir::Receive)] {
        let pts: Vec<(f64, f64)> = rows
            .iter()
            .filter(|t| t.dir == dir && t.bytes >= SHORT_BYTES)
            .map(|t| (t.load, t.us_per_bit))
            .collect();
        out.push(regress(
            &format!("printed µs/bit on load, large {name}"),
            &pts,
        ));
    }
    let pts: Vec<(f64, f64)> = cv
        .predictions
        .iter()
        .filter(|p| p.bytes >= SHORT_BYTES)
        .map(|p| (p.load, -p.error_us_per_bit))
        .collect();
    out.push(regress(
        "cross-validated residual (printed − predicted) on load, large transfers",
        &pts,
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::utah10;

    #[test]
    fn least_squares_recovers_a_line() {
        let pts: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, 3.0 + 2.0 * i as f64)).collect();
        let (b, a) = least_squares(&pts);
        assert!((b - 2.0).abs() < 1e-12 && (a - 3.0).abs() < 1e-12);
    }

    #[test]
    fn a_fit_recovers_parameters_it_generated() {
        // Rows generated by a known host must give that host back.
        let truth = Tenex1972 {
            wait_us_per_message_per_load: 25.0,
            setup_us: 90_000.0,
            rjs_us_per_byte: 480.0,
            recv_message_bytes: 37.0,
            ..Tenex1972::default()
        };
        let mut rows = utah10();
        for t in &mut rows {
            t.us_per_bit = truth.us_per_bit(t.dir, t.bytes, t.load);
        }
        let refs: Vec<&Transfer> = rows.iter().collect();
        let f = fit(&refs, &Tenex1972::default(), Variant::Mechanism, 12);
        assert_eq!(f.params.recv_message_bytes, 37.0);
        assert!((f.params.setup_us - 90_000.0).abs() < 1e-3);
        assert!((f.params.rjs_us_per_byte - 480.0).abs() < 1e-6);
        assert!((f.params.wait_us_per_message_per_load - 25.0).abs() < 1e-6);
        assert!(f.rms_us_per_bit < 1e-9);
        // With the set-up given, the same host comes back and the set-up is not moved.
        let given = Tenex1972 {
            setup_us: 90_000.0,
            ..Tenex1972::default()
        };
        let f = fit(&refs, &given, Variant::SourcedSetup, 12);
        assert_eq!(f.params.setup_us, 90_000.0);
        assert_eq!(f.params.recv_message_bytes, 37.0);
        assert!((f.params.rjs_us_per_byte - 480.0).abs() < 1e-6);
        assert!((f.params.wait_us_per_message_per_load - 25.0).abs() < 1e-6);
    }
}
