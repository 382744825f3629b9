//! Synthetic delay paths: a seeded generator of RFC 889-like echo runs.
//!
//! RFC 889 §3.2 describes what the measured paths looked like: delays "more-or-less Poissonly
//! distributed about a relatively narrow range", with "occasional spasms where one or more packets
//! can be delayed many times the typical value", typically "a short burst of long-delay packets
//! after a relatively long interval of well-mannered behavior" — the *netspurts* — plus lost
//! packets. The model, per volley:
//!
//! - **baseline**: a constant `base` delay (plus `per_octet` × length, 0 in the presets: the RFC's
//!   §3 runs made "no correction for packet length");
//! - **dispersion**: an exponential term with mean `jitter`;
//! - **netspurts**: a two-state chain. In the calm state, once at least `calm_min` volleys have
//!   passed since the last spurt, a spurt starts with probability `1/calm_mean` per volley; it
//!   lasts a geometric number of volleys with mean `spurt_len`; a spurt draws one level
//!   `L ~ Exp(spurt_excess)` and each of its volleys adds `L·(½ + U)`, U uniform on [0, 1);
//! - **loss**: each volley independently gets no reply with probability `loss`;
//! - **lengths** uniform on `length_min..=length_max` (40..256 octets, as RFC 889's runs);
//! - **timing**: one volley in flight; the next is sent when the reply arrives, or `loss_wait`
//!   (30 s, RFC 889's loss limit) after a lost one.
//!
//! Determinism: ChaCha20 (rand_chacha) seeded from the run seed, one stream per path (FNV-1a of
//! the path name), and every variate is derived here from `next_u64` (uniforms as 53-bit
//! fractions, lengths by multiply-shift), so the integer draws are identical on every platform.
//! Exponentials use `f64::ln`, whose last bit may in principle differ between math libraries;
//! delays are rounded to the nanosecond, so such a difference would almost never show.
//!
//! [`PathModel::fit`] solves `base` and `jitter` so that the model's expected mean and CoV equal
//! given targets, for chosen spurt shape parameters; the presets in [`crate::r889`] fit the
//! RFC 889 table this way.

use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

use crate::time::Nanos;
use crate::trace::{Probe, Trace};

/// Parameters of one synthetic path. Durations in seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct PathModel {
    /// Path name (also selects the random stream).
    pub name: String,
    /// Volleys per run (RFC 889: 512).
    pub volleys: usize,
    /// Baseline delay.
    pub base: f64,
    /// Mean of the exponential dispersion term.
    pub jitter: f64,
    /// Delay per octet of length.
    pub per_octet: f64,
    /// Minimum calm volleys between netspurts.
    pub calm_min: usize,
    /// Mean number of further calm volleys before a netspurt starts (1/probability).
    pub calm_mean: f64,
    /// Mean netspurt length in volleys (geometric, at least 1).
    pub spurt_len: f64,
    /// Mean netspurt level (exponential): the extra delay of a spurt's volleys, on average.
    pub spurt_excess: f64,
    /// Probability that a volley gets no reply.
    pub loss: f64,
    /// Shortest packet, octets.
    pub length_min: u32,
    /// Longest packet, octets.
    pub length_max: u32,
    /// Wait after a lost volley before the next one.
    pub loss_wait: f64,
}

/// The most volleys one synthetic run holds (about 400 MB of trace; RFC 889's runs had 512).
pub const MAX_VOLLEYS: usize = 10_000_000;

impl Default for PathModel {
    fn default() -> Self {
        PathModel {
            name: "synthetic".into(),
            volleys: 512,
            base: 0.3,
            jitter: 0.05,
            per_octet: 0.0,
            calm_min: 30,
            calm_mean: 100.0,
            spurt_len: 3.0,
            spurt_excess: 0.6,
            loss: 0.0,
            length_min: 40,
            length_max: 256,
            loss_wait: 30.0,
        }
    }
}

/// E[(½ + U)²] for U uniform on [0, 1).
const SPURT_SHAPE_M2: f64 = 13.0 / 12.0;

/// Why a model could not be fitted or built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SynthError {
    /// The spurt shape alone gives more variance than the target CoV allows, or leaves no room
    /// for a positive baseline.
    #[error("path {name}: cannot fit mean {mean_ms} ms, CoV {cov}: {why}")]
    Infeasible {
        /// Path.
        name: String,
        /// Target mean, ms.
        mean_ms: f64,
        /// Target CoV.
        cov: f64,
        /// Explanation.
        why: String,
    },
    /// A parameter is out of range.
    #[error("path {name}: {msg}")]
    Bad {
        /// Path.
        name: String,
        /// What is wrong.
        msg: String,
    },
}

impl PathModel {
    /// Long-run fraction of volleys inside a netspurt.
    pub fn spurt_fraction(&self) -> f64 {
        if self.spurt_excess <= 0.0 || self.calm_mean <= 0.0 {
            return 0.0;
        }
        let calm = self.calm_min as f64 + (self.calm_mean - 1.0).max(0.0);
        self.spurt_len / (self.spurt_len + calm)
    }

    /// Expected mean delay (lengths ignored), seconds.
    pub fn expected_mean(&self) -> f64 {
        self.base + self.jitter + self.spurt_fraction() * self.spurt_excess
    }

    /// Expected coefficient of variation (lengths ignored).
    pub fn expected_cov(&self) -> f64 {
        let s = self.spurt_fraction();
        let m = self.spurt_excess;
        let var = self.jitter.powi(2) + s * 2.0 * SPURT_SHAPE_M2 * m * m - (s * m).powi(2);
        var.max(0.0).sqrt() / self.expected_mean()
    }

    /// Sets `base` and `jitter` so that the expected mean is `mean` and the expected CoV `cov`,
    /// keeping the spurt shape and everything else.
    pub fn fit(mut self, mean: f64, cov: f64) -> Result<PathModel, SynthError> {
        let s = self.spurt_fraction();
        let m = self.spurt_excess;
        let infeasible = |why: String| SynthError::Infeasible {
            name: self.name.clone(),
            mean_ms: mean * 1e3,
            cov,
            why,
        };
        let spurt_var = s * 2.0 * SPURT_SHAPE_M2 * m * m - (s * m).powi(2);
        let j2 = (cov * mean).powi(2) - spurt_var;
        if j2 < 0.0 {
            return Err(infeasible(format!(
                "netspurts alone give CoV {:.3}; lower spurt_excess or spurt_len",
                spurt_var.sqrt() / mean
            )));
        }
        let j = j2.sqrt();
        let base = mean - j - s * m;
        if base <= 0.0 {
            return Err(infeasible(format!(
                "no room for a positive baseline (dispersion {:.1} ms, spurts {:.1} ms)",
                j * 1e3,
                s * m * 1e3
            )));
        }
        self.base = base;
        self.jitter = j;
        Ok(self)
    }

    fn check(&self) -> Result<(), SynthError> {
        let bad = |msg: &str| {
            Err(SynthError::Bad {
                name: self.name.clone(),
                msg: msg.to_string(),
            })
        };
        let finite_nonneg = [
            self.base,
            self.jitter,
            self.per_octet,
            self.spurt_excess,
            self.loss_wait,
        ]
        .iter()
        .all(|x| x.is_finite() && *x >= 0.0);
        if !finite_nonneg {
            return bad("delays must be finite and non-negative");
        }
        if !(0.0..=1.0).contains(&self.loss) {
            return bad("loss must be a probability in [0, 1]");
        }
        if self.spurt_len < 1.0 || !self.spurt_len.is_finite() {
            return bad("spurt_len must be at least 1");
        }
        if self.calm_mean < 1.0 || !self.calm_mean.is_finite() {
            return bad("calm_mean must be at least 1");
        }
        if self.length_min > self.length_max {
            return bad("length_min exceeds length_max");
        }
        // Checked before anything is allocated: a trace is held in memory while it is made.
        if self.volleys == 0 || self.volleys > MAX_VOLLEYS {
            return bad(&format!(
                "volleys must be 1 to {MAX_VOLLEYS} (RFC 889's runs had 512), got {}",
                self.volleys
            ));
        }
        Ok(())
    }

    /// Generates one run. `seed` is the run seed; the stream is chosen by the path name.
    /// At most [`MAX_VOLLEYS`] volleys.
    pub fn generate(&self, seed: u64) -> Result<Trace, SynthError> {
        self.check()?;
        let mut rng = Rng::new(seed, stream_of(&self.name));
        let mut probes = Vec::with_capacity(self.volleys);
        let mut now: u64 = 0;
        let mut calm_run = 0usize;
        let mut spurt_left = 0usize;
        let mut level = 0.0;
        let p_start = 1.0 / self.calm_mean;
        let p_continue = 1.0 - 1.0 / self.spurt_len;
        for seq in 0..self.volleys {
            // Draw order is fixed: spurt state, length, dispersion, spurt shape, loss.
            if spurt_left == 0 && self.spurt_excess > 0.0 {
                if calm_run >= self.calm_min && rng.uniform() < p_start {
                    level = rng.exp(self.spurt_excess);
                    spurt_left = 1;
                    while rng.uniform() < p_continue && spurt_left < 10_000 {
                        spurt_left += 1;
                    }
                } else {
                    calm_run += 1;
                }
            }
            let span = u64::from(self.length_max - self.length_min) + 1;
            let length = self.length_min + rng.below(span) as u32;
            let mut d = self.base + rng.exp(self.jitter) + self.per_octet * f64::from(length);
            let u_shape = rng.uniform();
            if spurt_left > 0 {
                d += level * (0.5 + u_shape);
                spurt_left -= 1;
                if spurt_left == 0 {
                    calm_run = 0;
                }
            }
            let lost = rng.uniform() < self.loss;
            let delay = (!lost).then(|| Nanos::from_secs_f64(d));
            probes.push(Probe {
                send: Nanos(now),
                length: Some(length),
                delay,
                seq: Some(seq as u64),
                path: Some(self.name.clone()),
            });
            let wait = delay.unwrap_or(Nanos::from_secs_f64(self.loss_wait));
            now = now.saturating_add(wait.0);
        }
        Ok(Trace {
            name: self.name.clone(),
            probes,
        })
    }
}

/// FNV-1a of the path name: the ChaCha stream of that path.
pub fn stream_of(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Portable variates from ChaCha20's `next_u64`.
struct Rng(ChaCha20Rng);

impl Rng {
    fn new(seed: u64, stream: u64) -> Rng {
        let mut r = ChaCha20Rng::seed_from_u64(seed);
        r.set_stream(stream);
        Rng(r)
    }
    /// Uniform on [0, 1) with 53 random bits.
    fn uniform(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// Exponential with the given mean (0 gives 0 and still consumes one draw).
    fn exp(&mut self, mean: f64) -> f64 {
        let u = self.uniform();
        -mean * (1.0 - u).ln()
    }
    /// Uniform integer below `n` (n ≥ 1), by multiply-shift.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.0.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_trace_different_path_different_stream() {
        let m = PathModel::default();
        assert_eq!(m.generate(7).unwrap(), m.generate(7).unwrap());
        assert_ne!(m.generate(7).unwrap(), m.generate(8).unwrap());
        let other = PathModel {
            name: "other".into(),
            ..m.clone()
        };
        let (a, b) = (m.generate(7).unwrap(), other.generate(7).unwrap());
        assert_ne!(
            a.probes.iter().map(|p| p.delay).collect::<Vec<_>>(),
            b.probes.iter().map(|p| p.delay).collect::<Vec<_>>()
        );
    }

    /// Pins the generator's output for one seed: a change to the draw order, the variates or
    /// the ChaCha stream shows up here (values as `nmc rto synth --mean 0.3s --cov 0.5 --seed 1`).
    #[test]
    fn golden_first_volleys() {
        let m = PathModel {
            volleys: 4,
            ..PathModel::default().fit(0.3, 0.5).unwrap()
        };
        let t = m.generate(1).unwrap();
        let got: Vec<(u64, Option<u32>, Option<u64>)> = t
            .probes
            .iter()
            .map(|p| (p.send.0, p.length, p.delay.map(|d| d.0)))
            .collect();
        assert_eq!(
            got,
            [
                (0, Some(69), Some(281_469_283)),
                (281_469_283, Some(238), Some(218_669_775)),
                (500_139_058, Some(79), Some(380_464_707)),
                (880_603_765, Some(113), Some(240_412_211)),
            ]
        );
    }

    #[test]
    fn fit_hits_the_targets_in_expectation() {
        let m = PathModel::default().fit(0.807, 0.68).unwrap();
        assert!((m.expected_mean() - 0.807).abs() < 1e-12);
        assert!((m.expected_cov() - 0.68).abs() < 1e-12);
        let e = PathModel {
            spurt_excess: 50.0,
            ..PathModel::default()
        }
        .fit(0.3, 0.2)
        .unwrap_err()
        .to_string();
        assert!(e.contains("netspurts alone"), "{e}");
    }

    #[test]
    fn realised_statistics_approach_the_model() {
        let m = PathModel {
            volleys: 200_000,
            loss: 0.05,
            ..PathModel::default().fit(0.5, 0.5).unwrap()
        };
        let t = m.generate(3).unwrap();
        let d: Vec<f64> = t
            .probes
            .iter()
            .filter_map(|p| p.delay)
            .map(Nanos::as_secs_f64)
            .collect();
        let (mean, cov) = crate::eval::mean_cov(&d);
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
        assert!((cov - 0.5).abs() < 0.05, "{cov}");
        let lost = t.len() - d.len();
        assert!((lost as f64 / t.len() as f64 - 0.05).abs() < 0.005);
    }
}
