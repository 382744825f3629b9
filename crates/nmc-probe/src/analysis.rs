//! Reduction of a run, as RFC 889 §2 did it: order statistics of the delays, and least-squares
//! lines of delay on length, one line or two split at a break point, with the rate
//! Δbits / Δdelay of each.
//!
//! Delays here are one-way-normalised (round trip / 2, RFC 889 §2.1). Because the probe's packet
//! crosses each link twice, once in each direction, a link of `R` bit/s adds `8·L/R` to the round
//! trip per direction and so `8·L/R` to the one-way-normalised delay: the rate Mills computed from
//! the slope, `8 / slope`, is the link's own bit rate when one link dominates.
//!
//! Mills's table gives each line's delay at its two ends (40 and 125 octets for single-packet
//! messages, 125 and 256 for multi-packet ones) and the rate between them. [`LineFit`] carries
//! the same: `delay_at_from_ns`, `delay_at_to_ns` and `rate_bps`. For a split at `b` octets the
//! short line covers lengths `< b` and is quoted at (shortest, b−1); the long line covers `≥ b` and is
//! quoted at (b−1, longest), so a split at 126 reproduces the table's 40 / 125 / 125 / 256 columns.

use nmc_report::stats::{Rule, percentile_position};
use serde::Serialize;

/// `(length in bytes, one-way delay in ns)` points.
type Points = Vec<(u32, f64)>;

/// Order statistics and moments of a set of delays, in ns.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DelayStats {
    /// Number of delays.
    pub n: usize,
    /// Smallest delay, ns.
    pub min_ns: u64,
    /// Median delay (nearest rank), ns.
    pub median_ns: u64,
    /// Mean delay, ns.
    pub mean_ns: f64,
    /// 95th percentile delay (nearest rank), ns.
    pub p95_ns: u64,
    /// Largest delay, ns.
    pub max_ns: u64,
    /// Sample standard deviation (n − 1 in the denominator), ns; 0 for a single delay.
    pub stddev_ns: f64,
    /// Coefficient of variation (stddev / mean), as in RFC 889 §3's table.
    pub cov: f64,
}

impl DelayStats {
    /// `None` for an empty set. Quantiles are nearest-rank ([`Rule::NearestRank`]): the smallest
    /// value with at least q·n values at or below it.
    pub fn of(values: &[u64]) -> Option<DelayStats> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_unstable();
        let n = v.len();
        let rank = |q: f64| {
            v[percentile_position(n, q, Rule::NearestRank)
                .expect("non-empty")
                .0]
        };
        let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
        let var = if n > 1 {
            v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        let sd = var.sqrt();
        Some(DelayStats {
            n,
            min_ns: v[0],
            median_ns: rank(0.5),
            mean_ns: mean,
            p95_ns: rank(0.95),
            max_ns: v[n - 1],
            stddev_ns: sd,
            cov: if mean > 0.0 { sd / mean } else { 0.0 },
        })
    }
}

/// A least-squares line `delay = intercept + slope · length` over one range of lengths.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LineFit {
    /// Number of points the line was fitted to.
    pub n: usize,
    /// Shortest and longest length the line is quoted at (see the module doc).
    pub from_len: u32,
    /// Longest length the line is quoted at, bytes (see the module doc).
    pub to_len: u32,
    /// Delay at length 0, ns.
    pub intercept_ns: f64,
    /// ns of one-way-normalised delay per byte of datagram.
    pub slope_ns_per_byte: f64,
    /// Standard errors of the two coefficients (ordinary least squares, residual variance with n − 2 degrees of freedom).
    pub intercept_stderr_ns: f64,
    /// Standard error of the slope, ns per byte.
    pub slope_stderr_ns_per_byte: f64,
    /// Coefficient of determination R² (1 when the delays do not vary).
    pub r2: f64,
    /// Root mean square of the residuals, ns.
    pub rms_residual_ns: f64,
    /// Sum of squared residuals, ns².
    pub sse: f64,
    /// The line's delay at `from_len`, ns.
    pub delay_at_from_ns: f64,
    /// The line's delay at `to_len`, ns.
    pub delay_at_to_ns: f64,
    /// Δbits / Δdelay between `from_len` and `to_len` = 8e9 / slope, bit/s; `None` unless the slope is positive.
    pub rate_bps: Option<f64>,
}

impl LineFit {
    /// The line's delay at `len` bytes, ns.
    pub fn delay_at(&self, len: f64) -> f64 {
        self.intercept_ns + self.slope_ns_per_byte * len
    }
}

/// Fits a line to `(length, delay_ns)` points and quotes it at `from_len` and `to_len`. `None`
/// with fewer than 3 points or fewer than 2 distinct lengths.
pub fn fit_line(points: &[(u32, f64)], from_len: u32, to_len: u32) -> Option<LineFit> {
    let n = points.len();
    if n < 3 {
        return None;
    }
    let nf = n as f64;
    let mx = points.iter().map(|p| p.0 as f64).sum::<f64>() / nf;
    let my = points.iter().map(|p| p.1).sum::<f64>() / nf;
    let sxx: f64 = points.iter().map(|p| (p.0 as f64 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 as f64 - mx) * (p.1 - my)).sum();
    let syy: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let sse: f64 = points
        .iter()
        .map(|p| (p.1 - intercept - slope * p.0 as f64).powi(2))
        .sum();
    let s2 = sse / (nf - 2.0);
    let line = LineFit {
        n,
        from_len,
        to_len,
        intercept_ns: intercept,
        slope_ns_per_byte: slope,
        intercept_stderr_ns: (s2 * (1.0 / nf + mx * mx / sxx)).sqrt(),
        slope_stderr_ns_per_byte: (s2 / sxx).sqrt(),
        r2: if syy > 0.0 { 1.0 - sse / syy } else { 1.0 },
        rms_residual_ns: (sse / nf).sqrt(),
        sse,
        delay_at_from_ns: intercept + slope * from_len as f64,
        delay_at_to_ns: intercept + slope * to_len as f64,
        rate_bps: (slope > 0.0).then(|| 8e9 / slope),
    };
    Some(line)
}

/// Two lines split at a break: `short` over lengths `< break_at`, `long` over `≥ break_at`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SplitFit {
    /// First length of the long line, bytes: `short` covers lengths below it, `long` the rest.
    pub break_at: u32,
    /// The line over lengths `< break_at`.
    pub short: LineFit,
    /// The line over lengths `≥ break_at`.
    pub long: LineFit,
    /// Sum of both lines' squared residuals, ns².
    pub sse: f64,
    /// 1 − sse(two lines) / sse(one line): how much of the one line's misfit the split removes.
    pub sse_reduction: f64,
    /// F statistic of two lines against one: ((sse₁ − sse₂) / 2) / (sse₂ / (n − 4)). For a split
    /// found by searching every break it runs high by chance, so the report shows the best split
    /// only above [`BEST_SPLIT_MIN_F`].
    pub f_statistic: f64,
}

/// Smallest F statistic at which the text report and the plot show the best split: a judgement,
/// well above the ≈ 3 of a single pre-chosen break at the 5 % level, to allow for the search.
pub const BEST_SPLIT_MIN_F: f64 = 20.0;

/// The fits RFC 889 §2 made, plus a search for the best break.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Fits {
    /// One line over all lengths ("only one characteristic was assumed for ARPANET-exclusive paths").
    pub one_line: Option<LineFit>,
    /// Two lines split at the requested break (126 octets on ARPANET paths).
    pub split: Option<SplitFit>,
    /// Two lines split where the total squared residual is least, over every observed length
    /// that leaves at least [`MIN_SEGMENT_POINTS`] points and 3 distinct lengths on each side.
    pub best_split: Option<SplitFit>,
}

/// Fewest points a line of a split may rest on.
pub const MIN_SEGMENT_POINTS: usize = 8;

/// Fits two lines split at `break_at`; `None` if either side has too few points.
pub fn fit_split(points: &[(u32, f64)], break_at: u32, one: Option<&LineFit>) -> Option<SplitFit> {
    let (short, long): (Points, Points) = points.iter().partition(|p| p.0 < break_at);
    if short.len() < MIN_SEGMENT_POINTS || long.len() < MIN_SEGMENT_POINTS {
        return None;
    }
    let lo = short.iter().map(|p| p.0).min()?;
    let hi = long.iter().map(|p| p.0).max()?;
    let knee = break_at.saturating_sub(1);
    let s = fit_line(&short, lo, knee)?;
    let l = fit_line(&long, knee, hi)?;
    let sse = s.sse + l.sse;
    let n = points.len() as f64;
    let f_statistic = match one {
        Some(o) if sse > 0.0 && n > 4.0 => ((o.sse - sse) / 2.0) / (sse / (n - 4.0)),
        Some(o) if o.sse > sse => f64::INFINITY,
        _ => 0.0,
    };
    Some(SplitFit {
        break_at,
        short: s,
        long: l,
        sse,
        sse_reduction: one.map_or(0.0, |o| if o.sse > 0.0 { 1.0 - sse / o.sse } else { 0.0 }),
        f_statistic,
    })
}

fn distinct(points: &[(u32, f64)]) -> usize {
    let mut v: Vec<u32> = points.iter().map(|p| p.0).collect();
    v.sort_unstable();
    v.dedup();
    v.len()
}

/// All three fits of `(length, one-way delay ns)` points.
pub fn fit_all(points: &[(u32, f64)], break_at: Option<u32>) -> Fits {
    let lo = points.iter().map(|p| p.0).min().unwrap_or(0);
    let hi = points.iter().map(|p| p.0).max().unwrap_or(0);
    let one_line = fit_line(points, lo, hi);
    let split = break_at.and_then(|b| fit_split(points, b, one_line.as_ref()));
    let mut candidates: Vec<u32> = points.iter().map(|p| p.0).collect();
    candidates.sort_unstable();
    candidates.dedup();
    let best_split = candidates
        .iter()
        .filter(|&&b| {
            let (s, l): (Points, Points) = points.iter().partition(|p| p.0 < b);
            distinct(&s) >= 3 && distinct(&l) >= 3
        })
        .filter_map(|&b| fit_split(points, b, one_line.as_ref()))
        .min_by(|a, b| a.sse.total_cmp(&b.sse));
    Fits {
        one_line,
        split,
        best_split,
    }
}

/// One row in RFC 889 §2's table layout, in ms and bit/s.
///
/// RFC 889 prints "Host ID | Single-packet 40, 125, Rate | Multi-packet 125, 256, Rate |
/// Comments". A path with two characteristics (split at 126 octets) fills both groups; a path
/// with one line is printed as Mills printed the calibration and SATNET rows: its delay at 40
/// under "Single-packet 40", its delay at 256 and its rate under "Multi-packet 256" and "Rate".
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Rfc889Cells {
    /// One line over all lengths: no split asked for, or the split could not be fitted.
    One {
        /// Delay at 40 octets, ms.
        d40: f64,
        /// Delay at 256 octets, ms.
        d256: f64,
        /// Rate of the line, bit/s (NaN when its slope is not positive).
        rate: f64,
    },
    /// Both lines of the split at the requested break (126 octets on ARPANET paths).
    Two {
        /// Single-packet line's delay at 40 octets, ms.
        s40: f64,
        /// Single-packet line's delay at 125 octets, ms.
        s125: f64,
        /// Single-packet line's rate, bit/s (NaN when its slope is not positive).
        s_rate: f64,
        /// Multi-packet line's delay at 125 octets, ms.
        m125: f64,
        /// Multi-packet line's delay at 256 octets, ms.
        m256: f64,
        /// Multi-packet line's rate, bit/s (NaN when its slope is not positive).
        m_rate: f64,
    },
}

impl Rfc889Cells {
    /// The cells of `fits`: both lines of the split when `split` is asked for and fitted,
    /// otherwise the one line; `None` when there is no line.
    pub fn of(fits: &Fits, split: bool) -> Option<Rfc889Cells> {
        let ms = |l: &LineFit, at: f64| l.delay_at(at) / 1e6;
        let rate = |l: &LineFit| l.rate_bps.unwrap_or(f64::NAN);
        match (&fits.split, &fits.one_line) {
            (Some(sp), _) if split => Some(Rfc889Cells::Two {
                s40: ms(&sp.short, 40.0),
                s125: ms(&sp.short, 125.0),
                s_rate: rate(&sp.short),
                m125: ms(&sp.long, 125.0),
                m256: ms(&sp.long, 256.0),
                m_rate: rate(&sp.long),
            }),
            (_, Some(l)) => Some(Rfc889Cells::One {
                d40: ms(l, 40.0),
                d256: ms(l, 256.0),
                rate: rate(l),
            }),
            _ => None,
        }
    }
}

/// The two header lines of RFC 889 §2's table layout ([`rfc889_row`]).
pub const RFC889_HEADER: &str = "Host ID    Single-packet          Rate     Multi-packet            Rate     Comments\n           40         125         (bps)    125         256         (bps)\n";

/// One row of RFC 889 §2's table layout: the same for `nmc echo probe` on today's paths and
/// for the simulated 1983 paths, so the two can be put side by side. Delays of 10 ms or more
/// are printed in whole ms as in RFC 889, shorter ones with two decimals.
pub fn rfc889_row(host: &str, cells: &Rfc889Cells, comment: &str) -> String {
    let d = |x: f64| {
        if !x.is_finite() {
            "—".to_string()
        } else if x.abs() >= 10.0 {
            format!("{x:.0}")
        } else {
            format!("{x:.2}")
        }
    };
    let r = |x: f64| {
        if x.is_finite() {
            format!("{x:.0}")
        } else {
            "—".to_string()
        }
    };
    let cols: [String; 6] = match *cells {
        Rfc889Cells::One { d40, d256, rate } => [
            d(d40),
            String::new(),
            String::new(),
            String::new(),
            d(d256),
            r(rate),
        ],
        Rfc889Cells::Two {
            s40,
            s125,
            s_rate,
            m125,
            m256,
            m_rate,
        } => [d(s40), d(s125), r(s_rate), d(m125), d(m256), r(m_rate)],
    };
    format!(
        "{host:<10} {:<10} {:<11} {:<8} {:<11} {:<11} {:<8} {comment}",
        cols[0], cols[1], cols[2], cols[3], cols[4], cols[5]
    )
    .trim_end()
    .to_string()
}

/// Order statistics of signed times in ns (one-way delays between two clocks that need not
/// agree, which may come out negative).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SignedStats {
    /// Number of values.
    pub n: usize,
    /// Smallest, ns.
    pub min_ns: i64,
    /// Median (nearest rank), ns.
    pub median_ns: i64,
    /// Mean, ns.
    pub mean_ns: f64,
    /// Largest, ns.
    pub max_ns: i64,
    /// Sample standard deviation (n − 1), ns; 0 for one value.
    pub stddev_ns: f64,
}

impl SignedStats {
    /// `None` for an empty set; quantiles nearest-rank, as [`DelayStats::of`].
    pub fn of(values: &[i64]) -> Option<SignedStats> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_unstable();
        let n = v.len();
        let mid = v[percentile_position(n, 0.5, Rule::NearestRank)
            .expect("non-empty")
            .0];
        let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
        let var = if n > 1 {
            v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Some(SignedStats {
            n,
            min_ns: v[0],
            median_ns: mid,
            mean_ns: mean,
            max_ns: v[n - 1],
            stddev_ns: var.sqrt(),
        })
    }
}

/// One answered volley as the variation figures read it: its sequence number, round trip and,
/// where the server gave its receive time, the two one-way delays (up, down) in ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Answer {
    /// The volley's sequence number.
    pub seq: u32,
    /// Its round trip, ns.
    pub rtt_ns: u64,
    /// Probe to server and server to probe, ns, each with the offset between the two wall
    /// clocks in it (with opposite signs): see [`OneWaySplit`].
    pub up_down_ns: Option<(i64, i64)>,
}

/// The round trip split into its two ways, from the server's wall-clock receive time and
/// turnaround and the probe's wall clock: up = server receive − probe send, down = probe
/// receive − (server receive + turnaround). Each includes the offset between the two clocks
/// (up + it, down − it): exact only when the clocks agree (the same host, or both kept by
/// PTP/NTP to better than the delays), which the probe cannot know; the variations of each
/// way ([`Variation`]) do not depend on the offset, only on the clocks' drift.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OneWaySplit {
    /// Probe to server ("send delay" in irtt), ns.
    pub up: SignedStats,
    /// Server to probe ("receive delay"), ns.
    pub down: SignedStats,
    /// Some one-way delay came out negative: the clocks do not agree.
    pub clocks_disagree: bool,
}

/// Inter-packet delay variation (RFC 3393) between volleys sent one after the other (sequence
/// numbers `k − 1` and `k`, both answered), as irtt reports it: the magnitude of the change
/// in delay, in ns; and RFC 3550's interarrival jitter (A.8), the running estimate
/// `J += (|D| − J) / 16` over the same pairs, its value at the end.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Variation {
    /// |IPDV| of the round trip, ns.
    pub ipdv: DelayStats,
    /// RFC 3550 jitter of the round trip at the end of the run, ns.
    pub jitter_ns: f64,
    /// |IPDV| of the way up, ns (where the server gave its receive time).
    pub ipdv_up: Option<DelayStats>,
    /// |IPDV| of the way down, ns.
    pub ipdv_down: Option<DelayStats>,
}

impl Variation {
    /// From the answered volleys in any order; `None` when no two consecutive ones were
    /// answered.
    pub fn of(answers: &[Answer]) -> Option<Variation> {
        let mut a = answers.to_vec();
        a.sort_unstable_by_key(|x| x.seq);
        let pairs: Vec<(&Answer, &Answer)> = a
            .windows(2)
            .filter(|w| w[1].seq == w[0].seq + 1)
            .map(|w| (&w[0], &w[1]))
            .collect();
        let rtt: Vec<u64> = pairs
            .iter()
            .map(|(p, q)| q.rtt_ns.abs_diff(p.rtt_ns))
            .collect();
        let ipdv = DelayStats::of(&rtt)?;
        let jitter_ns = rtt.iter().fold(0.0, |j: f64, &d| j + (d as f64 - j) / 16.0);
        let way = |pick: fn((i64, i64)) -> i64| {
            let v: Vec<u64> = pairs
                .iter()
                .filter_map(|(p, q)| Some(pick(q.up_down_ns?).abs_diff(pick(p.up_down_ns?))))
                .collect();
            DelayStats::of(&v)
        };
        Some(Variation {
            ipdv,
            jitter_ns,
            ipdv_up: way(|(u, _)| u),
            ipdv_down: way(|(_, d)| d),
        })
    }
}

/// The run's losses split up and down by the server's count of the requests it answered from
/// this probe (irtt's "server packets received"): the largest count any reply carried is what
/// the server answered up to that reply; the volleys it did not answer were lost on the way up
/// (or refused by its limits), the replies it sent that never came back on the way down. A
/// volley sent after the last reply that carried a count and answered by the server, its reply
/// lost, counts as lost up: the split is exact only up to the last reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LossSplit {
    /// Requests the server answered, by its count.
    pub server_answered: u64,
    /// Volleys the server did not answer.
    pub lost_up: u64,
    /// Volleys the server answered whose reply was not received in time.
    pub lost_down: u64,
}

impl LossSplit {
    /// From the volleys resolved (`volleys`: answered or lost), those answered, and the counts
    /// the replies carried; `None` when none carried one, or when the largest is more than
    /// the volleys (the server counted an earlier run from the same port).
    pub fn of(volleys: u64, answered: u64, counts: impl IntoIterator<Item = u64>) -> Option<Self> {
        let server = counts.into_iter().max()?;
        if server > volleys || server < answered {
            return None;
        }
        Some(LossSplit {
            server_answered: server,
            lost_up: volleys - server,
            lost_down: server - answered,
        })
    }
}

impl OneWaySplit {
    /// From the answered volleys that have both ways; `None` when none has.
    pub fn of(answers: &[Answer]) -> Option<OneWaySplit> {
        let (up, down): (Vec<i64>, Vec<i64>) = answers.iter().filter_map(|a| a.up_down_ns).unzip();
        Some(OneWaySplit {
            clocks_disagree: up.iter().chain(&down).any(|&x| x < 0),
            up: SignedStats::of(&up)?,
            down: SignedStats::of(&down)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_nearest_rank() {
        let s = DelayStats::of(&(1..=100).collect::<Vec<u64>>()).unwrap();
        assert_eq!(
            (s.min_ns, s.median_ns, s.p95_ns, s.max_ns),
            (1, 50, 95, 100)
        );
        assert!((s.mean_ns - 50.5).abs() < 1e-9);
        assert!(DelayStats::of(&[]).is_none());
    }

    /// FORD1 in RFC 889's table: 93 ms at 40 octets, 274 ms at 256, rate 9540 bit/s.
    #[test]
    fn exact_line_gives_mills_rate() {
        let slope = (274.0 - 93.0) / (256.0 - 40.0) * 1e6; // ns per byte
        let pts: Vec<(u32, f64)> = (40..=256)
            .map(|l| (l, 93e6 + slope * (l - 40) as f64))
            .collect();
        let f = fit_line(&pts, 40, 256).unwrap();
        assert!((f.delay_at_from_ns - 93e6).abs() < 1.0);
        assert!((f.delay_at_to_ns - 274e6).abs() < 1.0);
        let rate = f.rate_bps.unwrap();
        assert!((rate - 9547.0).abs() < 1.0, "{rate}");
        assert!(f.r2 > 0.999_999);
    }

    /// MILARP: single-packet 61 → 105 ms over 40..125, multi-packet 133 → 171 ms over 125..256.
    #[test]
    fn split_at_126_recovers_both_characteristics_and_best_break_finds_it() {
        let short = |l: u32| 61e6 + (105e6 - 61e6) * (l as f64 - 40.0) / 85.0;
        let long = |l: u32| 133e6 + (171e6 - 133e6) * (l as f64 - 125.0) / 131.0;
        let mut pts = Vec::new();
        for l in 40..=256u32 {
            // A little deterministic noise so the fit is not degenerate.
            let noise = ((l * 7919) % 13) as f64 * 1e4;
            pts.push((l, if l < 126 { short(l) } else { long(l) } + noise));
        }
        let fits = fit_all(&pts, Some(126));
        let s = fits.split.unwrap();
        assert_eq!((s.short.from_len, s.short.to_len), (40, 125));
        assert_eq!((s.long.from_len, s.long.to_len), (125, 256));
        assert!((s.short.delay_at_from_ns / 1e6 - 61.0).abs() < 0.2);
        assert!((s.long.delay_at_to_ns / 1e6 - 171.0).abs() < 0.2);
        // Mills: 15358 and 27769 bit/s (his table rounds delays to whole ms).
        assert!((s.short.rate_bps.unwrap() / 15454.0 - 1.0).abs() < 0.02);
        assert!((s.long.rate_bps.unwrap() / 27578.0 - 1.0).abs() < 0.02);
        assert!(s.sse_reduction > 0.99);
        assert!(s.f_statistic > BEST_SPLIT_MIN_F);
        assert_eq!(fits.best_split.unwrap().break_at, 126);
    }

    /// RFC 889's own rows print back in its layout: FORD1 (one line) and MILARP (two).
    #[test]
    fn rfc889_layout_rows() {
        let one = Rfc889Cells::One {
            d40: 93.0,
            d256: 274.0,
            rate: 9540.0,
        };
        let row = rfc889_row("FORD1", &one, "9600 DDCMP base");
        assert_eq!(
            row,
            "FORD1      93                                          274         9540     9600 DDCMP base"
        );
        let two = Rfc889Cells::Two {
            s40: 61.0,
            s125: 105.0,
            s_rate: 15358.0,
            m125: 133.0,
            m256: 171.0,
            m_rate: 27769.0,
        };
        let row = rfc889_row("MILARP", &two, "MILNET gateway");
        assert!(row.starts_with(
            "MILARP     61         105         15358    133         171         27769"
        ));
        // Header columns line up with the cells.
        let h: Vec<&str> = RFC889_HEADER.lines().collect();
        assert_eq!(h[1].find("125"), row.find("105"));
        assert_eq!(h[1].rfind("256"), row.find("171"));
        assert!(
            rfc889_row(
                "X",
                &Rfc889Cells::One {
                    d40: 0.25,
                    d256: 0.5,
                    rate: f64::NAN
                },
                ""
            )
            .contains("0.25")
        );
    }

    #[test]
    fn degenerate_inputs_give_none() {
        assert!(fit_line(&[(40, 1.0), (40, 2.0), (40, 3.0)], 40, 40).is_none());
        assert!(fit_line(&[(40, 1.0), (50, 2.0)], 40, 50).is_none());
        let fits = fit_all(&[], Some(126));
        assert!(fits.one_line.is_none() && fits.split.is_none() && fits.best_split.is_none());
    }

    fn answer(seq: u32, rtt_ns: u64, up: i64) -> Answer {
        Answer {
            seq,
            rtt_ns,
            up_down_ns: Some((up, rtt_ns as i64 - up - 100)),
        }
    }

    /// RFC 3393 between consecutive volleys only (a gap in the answered sequence makes no
    /// pair), as magnitudes; RFC 3550's jitter is the running 1/16 estimate over them.
    #[test]
    fn ipdv_pairs_consecutive_volleys_and_jitter_runs_over_them() {
        // Round trips 1000, 1400, (3 lost), 900, 1000; given out of order.
        let a = [
            answer(4, 900, 400),
            answer(0, 1000, 500),
            answer(5, 1000, 450),
            answer(1, 1400, 500),
        ];
        let v = Variation::of(&a).unwrap();
        assert_eq!(v.ipdv.n, 2);
        assert_eq!((v.ipdv.min_ns, v.ipdv.max_ns), (100, 400));
        // J = 0 + (400 − 0)/16 = 25, then 25 + (100 − 25)/16 = 29.6875.
        assert!((v.jitter_ns - 29.6875).abs() < 1e-9, "{}", v.jitter_ns);
        // Up: 500 → 500 (0) and 400 → 450 (50); down: 400 → 800 (400), 400 → 450 (50).
        let up = v.ipdv_up.unwrap();
        assert_eq!((up.min_ns, up.max_ns), (0, 50));
        let down = v.ipdv_down.unwrap();
        assert_eq!((down.min_ns, down.max_ns), (50, 400));
        assert!(Variation::of(&[answer(0, 1, 0), answer(2, 1, 0)]).is_none());
    }

    /// The split's two ways are as measured, negative ones kept and flagged: the clocks'
    /// offset is in them.
    #[test]
    fn one_way_split_keeps_negative_delays_and_says_the_clocks_disagree() {
        let s = OneWaySplit::of(&[answer(0, 1000, 300), answer(1, 1000, 500)]).unwrap();
        assert_eq!((s.up.min_ns, s.up.max_ns), (300, 500));
        assert_eq!((s.down.min_ns, s.down.max_ns), (400, 600));
        assert!(!s.clocks_disagree);
        let skewed = OneWaySplit::of(&[answer(0, 1000, -200)]).unwrap();
        assert!(skewed.clocks_disagree && skewed.up.min_ns == -200);
        let none = Answer {
            seq: 0,
            rtt_ns: 5,
            up_down_ns: None,
        };
        assert!(OneWaySplit::of(&[none]).is_none());
    }

    /// The largest count splits the losses; counts that cannot be this run's give nothing.
    #[test]
    fn loss_split_from_the_servers_count() {
        // 10 volleys, 6 answered; the server's last count says it answered 8.
        let s = LossSplit::of(10, 6, [1, 2, 5, 8, 7]).unwrap();
        assert_eq!((s.server_answered, s.lost_up, s.lost_down), (8, 2, 2));
        assert!(LossSplit::of(10, 6, []).is_none());
        assert!(
            LossSplit::of(10, 6, [12]).is_none(),
            "an earlier run's count"
        );
        assert!(LossSplit::of(10, 6, [5]).is_none(), "fewer than answered");
    }
}
