//! The confidence method, fixed before any run: **batch means**. A run's measured messages
//! (after its warm-up) are cut into `B` consecutive batches of equal count; each batch gives
//! one value (its throughput: data bits over the time from the batch's first reply to its last
//! reply, the previous batch's last reply for all but the first; its mean round trip); the
//! estimate is the mean of the batch values and its 95 % interval is
//! `mean ± t(0.975, B − 1) · s / √B`, `s` the batch values' standard deviation. Batches of
//! 20 or more 8-packet messages (≥ 4 s each, against round trips under 1 s) are taken as
//! nearly independent; the lag-1 correlation of the batch values is reported so a reader can
//! check. (Student's t quantiles are the standard table, not a fitted value.)

/// Two-sided 95 % Student t quantiles, t(0.975, df), df = 1..=30.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// t(0.975, df); the normal 1.96 beyond the table.
pub fn t975(df: usize) -> f64 {
    match df {
        0 => f64::NAN,
        d if d <= 30 => T975[d - 1],
        _ => 1.96,
    }
}

/// A batch-means estimate.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Estimate {
    /// Mean of the batch values.
    pub mean: f64,
    /// Half-width of the 95 % interval.
    pub half_width: f64,
    /// Batches.
    pub batches: usize,
    /// Lag-1 autocorrelation of the batch values.
    pub lag1: f64,
}

impl Estimate {
    /// Half-width relative to the mean.
    pub fn relative(&self) -> f64 {
        self.half_width / self.mean
    }
}

/// The estimate from batch values (at least two).
pub fn batch_means(values: &[f64]) -> Option<Estimate> {
    let b = values.len();
    if b < 2 {
        return None;
    }
    let n = b as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let s = var.sqrt();
    let lag1 = if var > 0.0 {
        values
            .windows(2)
            .map(|w| (w[0] - mean) * (w[1] - mean))
            .sum::<f64>()
            / ((n - 1.0) * var)
    } else {
        0.0
    };
    Some(Estimate {
        mean,
        half_width: t975(b - 1) * s / n.sqrt(),
        batches: b,
        lag1,
    })
}

/// Cuts `items` into `batches` consecutive runs of equal length (the remainder, at most
/// `batches − 1` items, is dropped from the end).
pub fn batches<T>(items: &[T], batches: usize) -> Vec<&[T]> {
    if batches == 0 {
        return Vec::new();
    }
    let per = items.len() / batches;
    if per == 0 {
        return Vec::new();
    }
    (0..batches)
        .map(|i| &items[i * per..(i + 1) * per])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_batches_have_no_spread() {
        let e = batch_means(&[5.0; 10]).unwrap();
        assert_eq!((e.mean, e.half_width, e.batches), (5.0, 0.0, 10));
    }

    #[test]
    fn the_interval_is_t_times_the_standard_error() {
        // values 1..=10: mean 5.5, s = 3.0277, se = 0.9574, t(9) = 2.262
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        let e = batch_means(&v).unwrap();
        assert!((e.mean - 5.5).abs() < 1e-12);
        assert!((e.half_width - 2.262 * 3.027_650_354 / 10f64.sqrt()).abs() < 1e-6);
        assert!(e.lag1 > 0.5, "a rising series is positively correlated");
    }

    #[test]
    fn batches_are_equal_and_consecutive() {
        let items: Vec<u32> = (0..23).collect();
        let b = batches(&items, 5);
        assert_eq!(b.len(), 5);
        assert!(b.iter().all(|s| s.len() == 4));
        assert_eq!(b[1][0], 4);
        assert!(batches(&items, 30).is_empty());
        assert!(batch_means(&[1.0]).is_none());
    }
}
