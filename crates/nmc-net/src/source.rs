//! Traffic sources: when the next packet is offered and how long it is.
//!
//! Each source draws from its own random stream (component id = its index in `traffic`), so
//! adding a source leaves the others' packets unchanged. Exponential variates are rounded to
//! the nearest nanosecond (gaps) or up to the next whole bit (lengths, at least 1 bit).

use crate::spec::{Arrivals, Length, TrafficSpec};
use nmc_sim::{RngStreams, SimDuration, Stream};

/// One traffic source: its spec, its random stream and how many packets it has offered.
pub struct Source {
    /// The source's entry of `traffic`.
    pub spec: TrafficSpec,
    stream: Stream,
    /// Packets offered so far.
    pub offered: u64,
}

impl Source {
    /// A source for `spec` drawing from the random stream `component` of `streams` (its index
    /// in `traffic`).
    pub fn new(spec: TrafficSpec, streams: &RngStreams, component: u64) -> Self {
        Source {
            spec,
            stream: streams.stream(component),
            offered: 0,
        }
    }

    /// Whether the source is `saturate`: it offers its next packet when the previous one starts
    /// transmission on the first channel.
    pub fn saturating(&self) -> bool {
        matches!(self.spec.arrivals, Arrivals::Saturate)
    }

    /// True once the source has offered all it was asked to.
    pub fn exhausted(&self) -> bool {
        self.spec.count.is_some_and(|c| self.offered >= c)
    }

    /// The gap to the next offer, for timed sources (`None` for `saturate`).
    pub fn next_gap(&mut self) -> Option<SimDuration> {
        match &self.spec.arrivals {
            Arrivals::Constant { interval } => Some(*interval),
            Arrivals::Poisson { mean_interval } => {
                let ns = self.stream.exponential(mean_interval.as_nanos() as f64);
                Some(SimDuration::from_nanos(ns.round() as u64))
            }
            Arrivals::Saturate => None,
        }
    }

    /// Draws the next packet's length in bits.
    pub fn next_length(&mut self) -> u32 {
        let bits = match &self.spec.length {
            Length::Fixed { bits } => bits.get(),
            Length::Uniform { min, max } => self.stream.uniform_inclusive(min.get(), max.get()),
            Length::Exponential { mean } => {
                self.stream.exponential(mean.get() as f64).ceil() as u64
            }
        };
        bits.clamp(1, u32::MAX as u64) as u32
    }
}

/// Checks a source's parameters; the message names the entry.
pub fn validate(index: usize, spec: &TrafficSpec) -> Result<(), String> {
    let at = format!("traffic[{index}]");
    if spec.from == spec.to {
        return Err(format!(
            "{at}: from and to are both node {}; nmc models traffic through the network",
            spec.from
        ));
    }
    match &spec.arrivals {
        Arrivals::Constant { interval } if interval.is_zero() => {
            return Err(format!("{at}.arrivals.interval must be above zero"));
        }
        Arrivals::Poisson { mean_interval } if mean_interval.is_zero() => {
            return Err(format!("{at}.arrivals.mean_interval must be above zero"));
        }
        _ => {}
    }
    match &spec.length {
        Length::Fixed { bits } if bits.get() == 0 => {
            Err(format!("{at}.length.bits must be above zero"))
        }
        Length::Uniform { min, max } if min > max || min.get() == 0 => Err(format!(
            "{at}.length: need 0 < min <= max, got min = {min}, max = {max}"
        )),
        Length::Exponential { mean } if mean.get() == 0 => {
            Err(format!("{at}.length.mean must be above zero"))
        }
        _ => Ok(()),
    }
}
