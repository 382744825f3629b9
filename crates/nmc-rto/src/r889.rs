//! RFC 889 §3: the published table, synthetic paths fitted to it, and row R889-3.
//!
//! [`PUBLISHED`] is the table of RFC 889 (Mills, Dec 1983), page 8–9, as printed (run with
//! F1 = 15/16, F2 = 3/4, G = 2; 512 volleys a run). Its values are comparison targets only:
//! the presets' mean, CoV and loss counts are what the generator is *fitted* to, and nothing
//! below writes a published figure into a result.
//!
//! R889-3 (RFC 889 §3.3): "values of F1 = 15/16 and F2 = 3/4 (with G = 2) ... The results on
//! some paths (FOE, ISID, ISIA) were better by some ten percent in efficiency, as compared to the
//! values now used in typical implementations where F = 7/8 and G = 2. The results on most paths
//! were better by five percent, while on a couple (FACC, UCL) the results were worse by a few
//! percent." [`r889_3`] measures the relative efficiency gain of Mills over RSRE,
//! `100 · (Eff_Mills − Eff_RSRE) / Eff_RSRE`, on each synthetic path, averaged over runs.

use crate::estimator::{Mills, Rsre};
use crate::eval::{Charge, mean_cov, replay};
use crate::synth::{PathModel, SynthError};
use crate::time::Nanos;

/// One row of the RFC 889 §3 table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PaperRow {
    /// Host ID (`*` = busy period; suffix -1 = 40 octets, -2 = 256 octets).
    pub host: &'static str,
    /// Total time, s.
    pub total: f64,
    /// Lost packets.
    pub lost: u32,
    /// Lost time, s.
    pub lost_time: f64,
    /// RTX packets.
    pub rtx: u32,
    /// RTX time, s.
    pub rtx_time: f64,
    /// Mean delay, ms.
    pub mean_ms: f64,
    /// Coefficient of variation.
    pub cov: f64,
    /// Efficiency.
    pub eff: f64,
}

/// Positional constructor keeping the table below as compact as the printed one.
#[allow(clippy::too_many_arguments)]
const fn row(
    host: &'static str,
    total: f64,
    lost: u32,
    lost_time: f64,
    rtx: u32,
    rtx_time: f64,
    mean_ms: f64,
    cov: f64,
    eff: f64,
) -> PaperRow {
    PaperRow {
        host,
        total,
        lost,
        lost_time,
        rtx,
        rtx_time,
        mean_ms,
        cov,
        eff,
    }
}

/// Volleys per run in the RFC 889 §3 table ("Most runs, including all those summarized here,
/// consisted of 512 echo/reply cycles").
pub const VOLLEYS: usize = 512;

/// The RFC 889 §3 table, every row as printed. The two `UCL` rows are DCN1→UCL (via ARPANET)
/// and NTA→UCL; they are told apart here as `UCL` and `UCL (NTA)`.
pub const PUBLISHED: &[PaperRow] = &[
    // DCN1 to nearby local-net hosts (calibration)
    row("DCN5", 5.0, 0, 0.0, 0, 0.0, 11.0, 0.15, 1.0),
    row("DCN8", 8.0, 0, 0.0, 0, 0.0, 16.0, 0.13, 1.0),
    row("IMP17", 19.0, 0, 0.0, 0, 0.0, 38.0, 0.33, 1.0),
    row("FORD1", 86.0, 0, 0.0, 1, 0.2, 167.0, 0.33, 0.99),
    row("UMD1", 135.0, 0, 0.0, 2, 0.5, 263.0, 0.45, 0.99),
    row("DCN6", 177.0, 0, 0.0, 0, 0.0, 347.0, 0.34, 1.0),
    row("FACC", 368.0, 196, 222.1, 6, 9.2, 267.0, 1.1, 0.37),
    row("FOE", 670.0, 3, 7.5, 21, 73.3, 1150.0, 0.69, 0.87),
    row("FOE-1", 374.0, 0, 0.0, 26, 61.9, 610.0, 0.75, 0.83),
    row("FOE-2", 1016.0, 3, 16.7, 10, 47.2, 1859.0, 0.41, 0.93),
    // DCN1 to ARPANET hosts and local nets
    row("MILARP", 59.0, 0, 0.0, 2, 0.5, 115.0, 0.39, 0.99),
    row("ISID", 163.0, 0, 0.0, 1, 1.8, 316.0, 0.47, 0.98),
    row("ISID-1", 84.0, 0, 0.0, 2, 1.0, 163.0, 0.18, 0.98),
    row("ISID-2", 281.0, 0, 0.0, 3, 17.0, 516.0, 0.91, 0.93),
    row("ISID *", 329.0, 0, 0.0, 5, 12.9, 619.0, 0.81, 0.96),
    row("SCORE", 208.0, 0, 0.0, 1, 0.8, 405.0, 0.46, 0.99),
    row("RVAX", 256.0, 1, 1.3, 0, 0.0, 499.0, 0.42, 0.99),
    row("AJAX", 365.0, 0, 0.0, 0, 0.0, 713.0, 0.44, 1.0),
    row("WASH", 494.0, 0, 0.0, 2, 2.8, 960.0, 0.39, 0.99),
    row("WASH-1", 271.0, 0, 0.0, 5, 8.0, 514.0, 0.34, 0.97),
    row("WASH-2", 749.0, 1, 9.8, 2, 17.5, 1411.0, 0.4, 0.96),
    row("BERK", 528.0, 20, 50.1, 4, 35.0, 865.0, 1.13, 0.83),
    // DCN1 to MILNET/MINET hosts and local nets
    row("ISIA", 436.0, 4, 7.4, 2, 15.7, 807.0, 0.68, 0.94),
    row("ISIA-1", 197.0, 0, 0.0, 0, 0.0, 385.0, 0.27, 1.0),
    row("ISIA-2", 615.0, 0, 0.0, 2, 15.0, 1172.0, 0.36, 0.97),
    row("ISIA *", 595.0, 18, 54.1, 6, 33.3, 992.0, 0.77, 0.85),
    row("BRL", 644.0, 1, 3.0, 1, 1.9, 1249.0, 0.43, 0.99),
    row("BRL-1", 318.0, 0, 0.0, 4, 13.6, 596.0, 0.68, 0.95),
    row("BRL-2", 962.0, 2, 8.4, 0, 0.0, 1864.0, 0.12, 0.99),
    row("LON", 677.0, 0, 0.0, 3, 11.7, 1300.0, 0.51, 0.98),
    row("LON-1", 302.0, 0, 0.0, 0, 0.0, 589.0, 0.06, 1.0),
    row("LON-2", 1047.0, 0, 0.0, 0, 0.0, 2044.0, 0.03, 1.0),
    row("HAWAII", 709.0, 4, 12.9, 3, 18.5, 1325.0, 0.55, 0.95),
    row("OFFICE3", 856.0, 3, 12.9, 3, 10.3, 1627.0, 0.54, 0.97),
    row("OFF3-1", 432.0, 2, 4.2, 2, 6.9, 823.0, 0.31, 0.97),
    row("OFF3-2", 1277.0, 7, 39.0, 3, 41.5, 2336.0, 0.44, 0.93),
    row("KOREA", 1048.0, 3, 14.5, 2, 18.7, 1982.0, 0.48, 0.96),
    row("KOREA-1", 506.0, 4, 8.6, 1, 2.2, 967.0, 0.18, 0.97),
    row("KOREA-2", 1493.0, 6, 35.5, 2, 19.3, 2810.0, 0.19, 0.96),
    // DCN1 to TELENET hosts via ARPANET
    row("RICE", 677.0, 2, 6.8, 3, 12.1, 1286.0, 0.41, 0.97),
    row("RICE-1", 368.0, 1, 0.1, 3, 2.3, 715.0, 0.11, 0.99),
    row("RICE-2", 1002.0, 1, 4.4, 1, 9.5, 1930.0, 0.19, 0.98),
    // DCN1 to SATNET hosts and local nets via ARPANET
    row("UCL", 689.0, 9, 26.8, 0, 0.0, 1294.0, 0.21, 0.96),
    row("UCL-1", 623.0, 39, 92.8, 2, 5.3, 1025.0, 0.32, 0.84),
    row("UCL-2", 818.0, 4, 13.5, 0, 0.0, 1571.0, 0.15, 0.98),
    row("NTA", 779.0, 12, 38.7, 1, 3.7, 1438.0, 0.24, 0.94),
    row("NTA-1", 616.0, 24, 56.6, 2, 5.3, 1083.0, 0.25, 0.89),
    row("NTA-2", 971.0, 19, 71.1, 0, 0.0, 1757.0, 0.2, 0.92),
    // NTA to SATNET hosts and local nets
    row("TANUM", 110.0, 3, 1.6, 0, 0.0, 213.0, 0.41, 0.98),
    row("GOONY", 587.0, 19, 44.2, 1, 2.9, 1056.0, 0.23, 0.91),
    row("ETAM", 608.0, 32, 76.3, 1, 3.1, 1032.0, 0.29, 0.86),
    row("UCL (NTA)", 612.0, 5, 12.6, 2, 8.5, 1154.0, 0.24, 0.96),
];

/// The published row for a host.
pub fn published(host: &str) -> Option<&'static PaperRow> {
    PUBLISHED.iter().find(|r| r.host == host)
}

/// What RFC 889 §3.3 says of Mills vs RSRE on a path, as a relative efficiency gain in percent,
/// with the tolerance this project accepts around it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Claim {
    /// Relative gain, percent ("some ten percent" → 10; "worse by a few percent" → −3).
    pub gain_pct: f64,
    /// Accepted distance from `gain_pct`, percentage points.
    pub tolerance_pct: f64,
    /// The words of the source.
    pub words: &'static str,
}

/// A synthetic path fitted to a published row.
#[derive(Debug, Clone, PartialEq)]
pub struct Preset {
    /// Host ID in the table.
    pub host: &'static str,
    /// The spurt shape and other choices; `base` and `jitter` are fitted.
    pub shape: PathModel,
    /// Why this shape.
    pub why: &'static str,
    /// RFC 889 §3.3's claim for this path.
    pub claim: Claim,
}

/// "Some ten percent": ±5, half the effect (the rule of [`WORSE_FEW`]).
const BETTER_10: Claim = Claim {
    gain_pct: 10.0,
    tolerance_pct: 5.0,
    words: "better by some ten percent in efficiency",
};
/// Issue 56: an effect of about `x` is scored within ±`x`/2, so that no band admits "no
/// effect" (±3 around −3 passed a gain of 0, and could not test "worse").
const WORSE_FEW: Claim = Claim {
    gain_pct: -3.0,
    tolerance_pct: 1.5,
    words: "worse by a few percent",
};

fn shape(
    host: &str,
    calm_min: usize,
    calm_mean: f64,
    spurt_len: f64,
    excess_over_mean: f64,
) -> PathModel {
    let row = published(host).expect("preset host is in the table");
    PathModel {
        name: host.to_string(),
        volleys: VOLLEYS,
        calm_min,
        calm_mean,
        spurt_len,
        spurt_excess: excess_over_mean * row.mean_ms / 1e3,
        loss: f64::from(row.lost) / VOLLEYS as f64,
        ..PathModel::default()
    }
}

/// The five paths R889-3 names. The netspurt shape (how often, how long, how high) is not in the
/// source and is a judgement per path, stated in `why`; mean, CoV and loss rate are fitted to the
/// table.
pub fn presets() -> Vec<Preset> {
    vec![
        Preset {
            host: "FOE",
            shape: shape("FOE", 20, 60.0, 4.0, 2.0),
            why: "London via 14.4 kbit/s cable and statistical multiplexor: \"extremely large delay dispersion\" (§3.2); frequent 4-volley spurts at 2x the mean",
            claim: BETTER_10,
        },
        Preset {
            host: "ISID",
            shape: shape("ISID", 30, 100.0, 3.0, 2.0),
            why: "ARPANET host: narrow dispersion, rare short netspurts at 2x the mean",
            claim: BETTER_10,
        },
        Preset {
            host: "ISIA",
            shape: shape("ISIA", 30, 80.0, 4.0, 2.2),
            why: "MILNET host via gateways: moderate dispersion, occasional 4-volley netspurts at 2.2x the mean",
            claim: BETTER_10,
        },
        Preset {
            host: "FACC",
            shape: shape("FACC", 10, 30.0, 3.0, 2.5),
            why: "local-net host with 38 % loss (196 of 512) and CoV 1.1: frequent spurts and heavy independent loss",
            claim: WORSE_FEW,
        },
        Preset {
            host: "UCL",
            shape: shape("UCL", 50, 150.0, 2.0, 1.0),
            why: "SATNET path: long steady satellite delay (CoV .21), 9 losses, rare small spurts",
            claim: WORSE_FEW,
        },
    ]
}

impl Preset {
    /// The shape fitted to the published mean and CoV.
    pub fn model(&self) -> Result<PathModel, SynthError> {
        let row = published(self.host).expect("preset host is in the table");
        self.shape.clone().fit(row.mean_ms / 1e3, row.cov)
    }
}

/// How each path's netspurt shape (how often, how high) is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shaping {
    /// The shape stated in the preset, a judgement from RFC 889 §3.2's description.
    Judgement,
    /// Calibrated so that Mills' estimator — the one the published table was made with — sees
    /// the table's RTX count and RTX time on the synthetic path (see [`calibrate`]).
    Calibrated,
}

/// The result of [`calibrate`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Chosen mean calm stretch, volleys (`f64::INFINITY`: no netspurts).
    pub calm_mean: f64,
    /// Chosen netspurt level, as a multiple of the path's mean delay.
    pub excess_over_mean: f64,
}

/// The grid [`calibrate`] searches: mean calm stretch (volleys) × netspurt level (× mean).
pub const CALM_GRID: &[f64] = &[5.0, 10.0, 20.0, 40.0, 80.0, 160.0, 320.0];
/// See [`CALM_GRID`].
pub const LEVEL_GRID: &[f64] = &[0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 6.0];

/// Seeds used by [`calibrate`]: `seed + CALIBRATION_SEED_OFFSET + r`, disjoint from the
/// evaluation runs' `seed + r`.
pub const CALIBRATION_SEED_OFFSET: u64 = 1 << 32;

/// Fits the netspurt shape of a preset to the published Mills row: over [`CALM_GRID`] ×
/// [`LEVEL_GRID`] (plus "no netspurts"), each candidate is fitted to the row's mean and CoV
/// ([`PathModel::fit`]; infeasible candidates are skipped), run `runs` times on calibration
/// seeds, and replayed through Mills (F1 = 15/16, F2 = 3/4, G = 2); the candidate whose mean RTX
/// count and RTX time per run are closest to the table's (sum of squared relative errors, with
/// denominators at least 1 packet and 1 s) wins, the first in grid order on ties.
///
/// Only Mills' own row is used: the RSRE side of R889-3 stays unfitted.
pub fn calibrate(
    p: &Preset,
    seed: u64,
    runs: usize,
    charge: &Charge,
) -> Result<(PathModel, Calibration), SynthError> {
    let row = published(p.host).expect("preset host is in the table");
    let mills = Mills::new(15.0 / 16.0, 3.0 / 4.0, 2.0);
    let mean = row.mean_ms / 1e3;
    let mut candidates: Vec<(PathModel, Calibration)> = Vec::new();
    let none = PathModel {
        spurt_excess: 0.0,
        ..p.shape.clone()
    };
    if let Ok(m) = none.fit(mean, row.cov) {
        candidates.push((
            m,
            Calibration {
                calm_mean: f64::INFINITY,
                excess_over_mean: 0.0,
            },
        ));
    }
    for &calm in CALM_GRID {
        for &k in LEVEL_GRID {
            let shape = PathModel {
                calm_mean: calm,
                spurt_excess: k * mean,
                ..p.shape.clone()
            };
            if let Ok(m) = shape.fit(mean, row.cov) {
                candidates.push((
                    m,
                    Calibration {
                        calm_mean: calm,
                        excess_over_mean: k,
                    },
                ));
            }
        }
    }
    let mut best: Option<(f64, usize)> = None;
    for (i, (m, _)) in candidates.iter().enumerate() {
        let (mut rtx, mut rtx_time) = (0.0, 0.0);
        for r in 0..runs.max(1) {
            let t = m.generate(seed.wrapping_add(CALIBRATION_SEED_OFFSET + r as u64))?;
            let s = replay(&t, &mills, charge).0;
            rtx += s.rtx as f64;
            rtx_time += s.rtx_time.as_secs_f64();
        }
        let n = runs.max(1) as f64;
        let e_count = (rtx / n - f64::from(row.rtx)) / f64::from(row.rtx).max(1.0);
        let e_time = (rtx_time / n - row.rtx_time) / row.rtx_time.max(1.0);
        let score = e_count * e_count + e_time * e_time;
        if best.is_none_or(|(b, _)| score < b) {
            best = Some((score, i));
        }
    }
    let (_, i) = best.ok_or_else(|| SynthError::Infeasible {
        name: p.host.to_string(),
        mean_ms: row.mean_ms,
        cov: row.cov,
        why: "no candidate shape fits".into(),
    })?;
    Ok(candidates.swap_remove(i))
}

/// R889-3 on one path.
#[derive(Debug, Clone, PartialEq)]
pub struct R889Row {
    /// Host ID.
    pub host: &'static str,
    /// Runs averaged.
    pub runs: usize,
    /// Mean efficiency, Mills F1 = 15/16, F2 = 3/4, G = 2.
    pub eff_mills: f64,
    /// Mean efficiency, RSRE F = 7/8, G = 2.
    pub eff_rsre: f64,
    /// `100 · (eff_mills − eff_rsre) / eff_rsre`.
    pub gain_pct: f64,
    /// The source's claim.
    pub claim: Claim,
    /// Realised mean delay over the runs, ms (target: the table's Mean).
    pub mean_ms: f64,
    /// Realised CoV, averaged over runs (target: the table's CoV).
    pub cov: f64,
    /// Realised lost volleys per run (target: the table's Lost).
    pub lost_per_run: f64,
    /// Mills' RTX count per run (the table's RTX is a calibration target under
    /// [`Shaping::Calibrated`]).
    pub mills_rtx_per_run: f64,
    /// Mills' RTX time per run, s.
    pub mills_rtx_time_per_run: f64,
    /// RSRE's RTX count per run.
    pub rsre_rtx_per_run: f64,
    /// The shape used.
    pub shape: Calibration,
    /// The model used (fitted base and jitter included).
    pub model: PathModel,
}

impl R889Row {
    /// Whether the measured gain is within the tolerance of the claim.
    pub fn within(&self) -> bool {
        (self.gain_pct - self.claim.gain_pct).abs() <= self.claim.tolerance_pct
    }
}

/// Runs R889-3: for each preset, the path model (shaped per `shaping`, calibration on `runs`
/// calibration runs), then `runs` evaluation runs (run `r` uses seed `seed + r`), each replayed
/// through Mills (F1 = 15/16, F2 = 3/4, G = 2) and RSRE (F = 7/8, G = 2) under `charge`.
/// `progress` is called with the fraction done.
pub fn r889_3(
    seed: u64,
    runs: usize,
    charge: &Charge,
    shaping: Shaping,
    progress: &dyn Fn(f64),
) -> Result<Vec<R889Row>, SynthError> {
    let runs = runs.max(1);
    let mills = Mills::new(15.0 / 16.0, 3.0 / 4.0, 2.0);
    let rsre = Rsre::new(7.0 / 8.0, 2.0);
    let mut out = Vec::new();
    let ps = presets();
    for (pi, p) in ps.iter().enumerate() {
        let (model, shape) = match shaping {
            Shaping::Judgement => (
                p.model()?,
                Calibration {
                    calm_mean: p.shape.calm_mean,
                    excess_over_mean: p.shape.spurt_excess
                        / (published(p.host).map_or(1.0, |r| r.mean_ms) / 1e3),
                },
            ),
            Shaping::Calibrated => calibrate(p, seed, runs, charge)?,
        };
        let (mut em, mut er, mut mean, mut cov, mut lost) = (0.0, 0.0, 0.0, 0.0, 0.0);
        let (mut m_rtx, mut m_rtx_t, mut r_rtx) = (0.0, 0.0, 0.0);
        for r in 0..runs {
            let t = model.generate(seed.wrapping_add(r as u64))?;
            let sm = replay(&t, &mills, charge).0;
            let sr = replay(&t, &rsre, charge).0;
            em += sm.efficiency;
            er += sr.efficiency;
            m_rtx += sm.rtx as f64;
            m_rtx_t += sm.rtx_time.as_secs_f64();
            r_rtx += sr.rtx as f64;
            let d: Vec<f64> = t
                .probes
                .iter()
                .filter_map(|p| p.delay)
                .map(Nanos::as_secs_f64)
                .collect();
            let (m, c) = mean_cov(&d);
            mean += m;
            cov += c;
            lost += (t.len() - d.len()) as f64;
        }
        let n = runs as f64;
        let (em, er) = (em / n, er / n);
        out.push(R889Row {
            host: p.host,
            runs,
            eff_mills: em,
            eff_rsre: er,
            gain_pct: 100.0 * (em - er) / er,
            claim: p.claim,
            mean_ms: mean / n * 1e3,
            cov: cov / n,
            lost_per_run: lost / n,
            mills_rtx_per_run: m_rtx / n,
            mills_rtx_time_per_run: m_rtx_t / n,
            rsre_rtx_per_run: r_rtx / n,
            shape,
            model,
        });
        progress((pi + 1) as f64 / ps.len() as f64);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The charge rule of [`crate::eval`] reproduces the table's own arithmetic: for every row,
    /// Total = 512 · Mean + Lost time + RTX time (to the table's rounding: Total is printed to the
    /// second, truncated, and Mean to the ms), and Eff = 512 · Mean / Total, truncated to two
    /// decimals (FOE .879 is printed .87), within the rounding of the printed figures.
    #[test]
    fn no_claims_band_admits_no_effect() {
        // Issue 56: "worse by a few percent" at −3 ± 3 passed a gain of 0.
        for p in presets() {
            let c = p.claim;
            assert!(
                c.gain_pct.abs() > c.tolerance_pct,
                "{}: {} ± {} admits 0",
                p.host,
                c.gain_pct,
                c.tolerance_pct
            );
        }
    }

    #[test]
    fn paper_table_arithmetic() {
        for r in PUBLISHED {
            let good = VOLLEYS as f64 * r.mean_ms / 1e3;
            let total = good + r.lost_time + r.rtx_time;
            // Mean is rounded to 1 ms: 512 · 0.5 ms = 0.26 s of slack, plus truncation of Total.
            assert!(
                (total - r.total).abs() <= 1.3,
                "{}: 512·mean + lost + rtx = {total:.1}, printed {}",
                r.host,
                r.total
            );
            let eff = good / total;
            assert!(
                eff - r.eff > -0.006 && eff - r.eff < 0.0101,
                "{}: eff {eff:.4}, printed {}",
                r.host,
                r.eff
            );
        }
    }

    /// Calibration brings Mills' RTX count near the table's on the heavily glitched FOE path,
    /// and R889-3 is a deterministic function of the seed.
    #[test]
    fn calibration_and_determinism() {
        let charge = Charge::default();
        let a = r889_3(1, 3, &charge, Shaping::Calibrated, &|_| {}).unwrap();
        let b = r889_3(1, 3, &charge, Shaping::Calibrated, &|_| {}).unwrap();
        assert_eq!(a, b);
        let foe = a.iter().find(|r| r.host == "FOE").unwrap();
        assert!(
            (foe.mills_rtx_per_run - 21.0).abs() < 10.0,
            "{}",
            foe.mills_rtx_per_run
        );
        for r in &a {
            assert!((0.0..=1.0).contains(&r.eff_mills) && (0.0..=1.0).contains(&r.eff_rsre));
        }
    }

    #[test]
    fn presets_fit() {
        for p in presets() {
            let m = p.model().unwrap();
            let row = published(p.host).unwrap();
            assert!((m.expected_mean() * 1e3 - row.mean_ms).abs() < 1e-6);
            assert!((m.expected_cov() - row.cov).abs() < 1e-9);
        }
    }
}
