//! Seeded random streams, one per component.
//!
//! A run has one required seed. Each component (a traffic source, a line's error process, …)
//! asks [`RngStreams::stream`] for its own generator by a stable component id. The generator is
//! ChaCha8 with a 256-bit key expanded from the seed by SplitMix64 and the ChaCha *stream*
//! number set to the component id, so streams never overlap and adding a component does not
//! change what the others draw. Variates are computed here from raw 64-bit words
//! ([`unit_f64`], inverse-transform exponentials, Lemire-style bounded integers), so a run's
//! numbers depend only on this crate and ChaCha, whose output `rand_chacha` keeps value-stable.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// Derives per-component streams from one seed.
#[derive(Clone, Copy, Debug)]
pub struct RngStreams {
    seed: u64,
}

impl RngStreams {
    /// The streams of a run with seed `seed`.
    pub fn new(seed: u64) -> Self {
        RngStreams { seed }
    }

    /// The run's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The stream of component `component`.
    pub fn stream(&self, component: u64) -> Stream {
        let mut sm = self.seed;
        let mut key = [0u8; 32];
        for chunk in key.chunks_mut(8) {
            chunk.copy_from_slice(&splitmix64(&mut sm).to_le_bytes());
        }
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(component);
        Stream { rng }
    }
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Maps a 64-bit word to a float in (0, 1]: never 0, so `ln` of it is finite.
pub fn unit_f64(word: u64) -> f64 {
    ((word >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// One component's random stream.
#[derive(Clone, Debug)]
pub struct Stream {
    rng: ChaCha8Rng,
}

impl Stream {
    /// The stream's next raw 64-bit word (ChaCha8's output).
    pub fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// Uniform on (0, 1].
    pub fn unit(&mut self) -> f64 {
        unit_f64(self.next_u64())
    }

    /// Exponential with the given mean, by inverse transform.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * self.unit().ln()
    }

    /// Uniform integer on `lo..=hi` (Lemire's multiply-shift with rejection; unbiased).
    pub fn uniform_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        assert!(lo <= hi, "empty range {lo}..={hi}");
        let span = hi - lo;
        if span == u64::MAX {
            return self.next_u64();
        }
        let n = span + 1;
        let zone = n.wrapping_neg() % n;
        loop {
            let m = self.next_u64() as u128 * n as u128;
            if (m as u64) >= zone {
                return lo + (m >> 64) as u64;
            }
        }
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit() <= p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let s = RngStreams::new(42);
        let a: Vec<u64> = (0..4).map(|_| s.stream(1).next_u64()).collect();
        assert!(
            a.windows(2).all(|w| w[0] == w[1]),
            "same stream, same first word"
        );
        let mut x = s.stream(1);
        let mut y = s.stream(2);
        assert_ne!(x.next_u64(), y.next_u64());
        let mut z = RngStreams::new(43).stream(1);
        assert_ne!(s.stream(1).next_u64(), z.next_u64());
    }

    /// Pins the generator's output: if this changes, every published run changes. Do not
    /// update the value without a note in the changelog.
    #[test]
    fn value_stability() {
        let mut s = RngStreams::new(1).stream(0);
        let first = s.next_u64();
        let again = RngStreams::new(1).stream(0).next_u64();
        assert_eq!(first, again);
        assert_eq!(first, PINNED_FIRST_WORD);
    }
    const PINNED_FIRST_WORD: u64 = 17_254_111_457_321_727_320;

    #[test]
    fn variates_have_the_right_means() {
        let mut s = RngStreams::new(7).stream(3);
        let n = 200_000;
        let mean_exp: f64 = (0..n).map(|_| s.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((mean_exp - 2.0).abs() < 0.03, "{mean_exp}");
        let mean_u: f64 = (0..n)
            .map(|_| s.uniform_inclusive(40, 256) as f64)
            .sum::<f64>()
            / n as f64;
        assert!((mean_u - 148.0).abs() < 0.5, "{mean_u}");
        assert!((0..1000).all(|_| (5..=9).contains(&s.uniform_inclusive(5, 9))));
    }
}
