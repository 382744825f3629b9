//! # nmc-internet: the 1983 Internet paths of RFC 889 §2 as models
//!
//! Mills (RFC 889, Dec 1983, §2.1) measured, from the DCN1 Fuzzball (an LSI-11), the one-way
//! normalised delay of 512 ICMP Echo volleys of random length on each path and fitted delay
//! against length. This crate builds a path from parts, hop by hop, and runs **the real probe's
//! core** ([`nmc_probe::probe::Probe`]: lengths, one volley in flight, the 30 s loss rule,
//! RTT / 2) against it in simulated time; the fits are **the same code** the real
//! `nmc echo probe` uses ([`nmc_probe::analysis::fit_all`]).
//!
//! | module | what |
//! | --- | --- |
//! | [`spec`] | the scenario: `[network.host]`, `[[network.hops]]`, the PING in `[[traffic]]` |
//! | [`model`] | the stages of a round trip, their arithmetic, and the event loop that drives the probe |
//! | [`calibration`] | a Fuzzball's cost per pass, estimated from one published path's delay at 40 octets and rate |
//! | [`hop`] | hops with state: a gateway (finite FIFO, drops, other traffic), SATNET (shared channel, reservations), and the [`HopModel`] interface a stepped subnet will plug into |
//!
//! Time is integer nanoseconds ([`nmc_sim::SimTime`]); a run depends only on the scenario and
//! its seed: the seed draws the lengths, and (through [`nmc_sim::RngStreams`], one stream per
//! hop and purpose) the stateful hops' other traffic, contention and loss. A path of lines and
//! relays only has no other randomness: its delays are its arithmetic, read through the
//! measuring host's clock tick.
//!
//! ## What a part costs, and where its figure comes from
//!
//! Every figure is a scenario parameter; the shipped values and their reasons are in the
//! scenario files (`scenarios/rfc889/*.toml`) beside each value. In short:
//! - **Line**: `(max(L, min_payload) · octet_bits + frame_overhead) / rate` plus propagation,
//!   store and forward. Framing per protocol from the public frame formats: DDCMP (DEC DDCMP
//!   V4.0 data message: SOH, count and flags, response, number, address, header CRC-16 = 8
//!   octets; data CRC-16 = 2; SYN characters before the header), the 1822 leader (BBN Report
//!   1822, 96-bit leader of 1983), HDLC-family synchronous framing (flag, address, control,
//!   FCS-16, flag), Ethernet (DIX v2.0, 1982: 8-octet preamble, 14-octet header, 4-octet FCS,
//!   46-octet minimum data, 12-octet interframe gap counted as overhead).
//! - **Host** (both ends are Fuzzballs): one pass of a datagram costs `per_packet + per_octet ·
//!   L`; four passes per round trip. RFC 889 gives no host timing: each interface kind's costs
//!   are estimated ([`calibration`]) from one calibration row of its kind and tested on the
//!   others (see `nmc-experiments`' `rfc889-delay`, which states the split).
//! - **Relay** (a forwarding Fuzzball or an IMP): `per_packet + per_octet · L` each way; a
//!   forwarding Fuzzball's is a receive pass and a send pass, twice a host pass.
//! - **Subnet** (`kind = "subnet"`: the ARPANET or MILNET of 1983): not arithmetic but nmc's IMP
//!   model ([`subnet::SubnetHop`] over [`nmc_imp::Stepper`], profile `arpanet-1983`, `docs/src/explanation/arpanet-1983.md`), run beside
//!   the path with its own traffic. A datagram of `L` octets is an 1822 message of `8·L` data
//!   bits: one packet up to 126 octets, two or three above, which then take what multi-packet
//!   messages take (an allocation of reassembly space, a REQALL unless one is at hand). The
//!   split RFC 889 saw at 126 octets comes out of that, or not; it is not drawn in.
//! - **Gateway**: a relay with a finite FIFO buffer per direction, optionally driving a line
//!   (processing, then transmission, not overlapped), with other traffic through it — delay
//!   bursts when a burst of other traffic fills the buffer, loss when it overflows.
//! - **SATNET**: reservation access to a shared 64 kbit/s satellite channel; at least two
//!   satellite hops per crossing (the reservation, then the datagram).
//! - **`far_host`**: the echoing host when it is not a Fuzzball (SATNET's echo hosts live in
//!   the SIMPs).

#![warn(missing_docs)]

pub mod calibration;
pub mod hop;
pub mod model;
pub mod spec;
pub mod subnet;

pub use calibration::{FitError, fit_host_pass};
pub use hop::{Dir, HopModel, Offer};
pub use model::{BuildError, Path, RunOutput, Stage, VolleyRecord, run, run_with};
pub use spec::{
    CrossSpec, HopSpec, HostSpec, InternetRecord, InternetScenario, NetworkSpec, PingSpec,
};

use nmc_probe::analysis::{Fits, LineFit, fit_all};
use std::collections::BTreeMap;

/// The answered volleys as `(length in octets, one-way delay in ns)`, RFC 889's points.
pub fn one_way_points(out: &RunOutput) -> impl Iterator<Item = (u32, f64)> + '_ {
    out.volleys
        .iter()
        .filter(|v| !v.lost)
        .filter_map(|v| v.one_way().map(|d| (v.length, d.0 as f64)))
}

/// The answered volleys as `(length in octets, one-way delay in ms)`, for plots.
pub fn one_way_ms(out: &RunOutput) -> Vec<(f64, f64)> {
    one_way_points(out)
        .map(|(l, ns)| (f64::from(l), ns / 1e6))
        .collect()
}

/// The run reduced as RFC 889 reduced it: the fits over `(length, one-way ns)` of answered volleys.
pub fn fits(out: &RunOutput, break_at: Option<u32>) -> Fits {
    let points: Vec<(u32, f64)> = one_way_points(out).collect();
    fit_all(&points, break_at)
}

/// RFC 889's columns for one line: delay at `a` and at `b` octets (ms), and the rate (bit/s).
pub fn columns(line: &LineFit, a: f64, b: f64) -> (f64, f64, f64) {
    (
        line.delay_at(a) / 1e6,
        line.delay_at(b) / 1e6,
        line.rate_bps.unwrap_or(f64::NAN),
    )
}

/// What a run measured, as typed values; `summary.json` holds [`InternetMetrics::to_map`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InternetMetrics {
    /// Volleys sent (`volleys.sent`).
    pub volleys_sent: u64,
    /// Volleys answered (`volleys.answered`).
    pub volleys_answered: u64,
    /// Volleys lost under the 30 s rule (`volleys.lost`).
    pub volleys_lost: u64,
    /// When the run ended, s of simulated time (`sim.end_s`).
    pub end_s: f64,
    /// Events the simulation handled (`sim.events`).
    pub events: u64,
    /// Each stateful hop's counters, `(index in network.hops, key, value)`
    /// (`hop.<index>.<key>`).
    pub hop_stats: Vec<(usize, &'static str, f64)>,
    /// RFC 889's one-line fit: delay at 40 and 256 octets (ms), rate (bit/s), r²
    /// (`fit.one_line.*`); `None` without enough answered volleys.
    pub one_line: Option<OneLineColumns>,
    /// RFC 889's split fit, the short line (40 to 125 octets) and the long (125 to 256)
    /// (`fit.split.{short,long}.*`); `None` without a break or enough volleys.
    pub split: Option<[FitColumns; 2]>,
}

/// RFC 889's columns for the one-line fit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OneLineColumns {
    /// Delay at 40 octets, ms (`fit.one_line.delay_40_ms`).
    pub delay_40_ms: f64,
    /// Delay at 256 octets, ms (`fit.one_line.delay_256_ms`).
    pub delay_256_ms: f64,
    /// Rate, bit/s (`fit.one_line.rate_bps`).
    pub rate_bps: f64,
    /// Goodness of fit (`fit.one_line.r2`).
    pub r2: f64,
}

/// RFC 889's columns for one line of the split fit: delay at its two ends (ms) and its rate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FitColumns {
    /// Delay at the line's shorter end, ms (40 octets for the short line, 125 for the long).
    pub delay_a_ms: f64,
    /// Delay at its longer end, ms (125 octets for the short line, 256 for the long).
    pub delay_b_ms: f64,
    /// Rate, bit/s.
    pub rate_bps: f64,
}

impl InternetMetrics {
    /// One stateful hop's counter (`hop.<index>.<key>`), `None` when that hop has no such
    /// counter.
    pub fn hop(&self, index: usize, key: &str) -> Option<f64> {
        self.hop_stats
            .iter()
            .find(|s| s.0 == index && s.1 == key)
            .map(|s| s.2)
    }

    /// Every figure under its `summary.json` name, in name order.
    pub fn to_map(&self) -> BTreeMap<String, f64> {
        let mut m = BTreeMap::new();
        let mut put = |k: String, v: f64| {
            m.insert(k, v);
        };
        put("volleys.sent".into(), self.volleys_sent as f64);
        put("volleys.answered".into(), self.volleys_answered as f64);
        put("volleys.lost".into(), self.volleys_lost as f64);
        put("sim.end_s".into(), self.end_s);
        put("sim.events".into(), self.events as f64);
        for (index, key, value) in &self.hop_stats {
            put(format!("hop.{index}.{key}"), *value);
        }
        if let Some(l) = self.one_line {
            put("fit.one_line.delay_40_ms".into(), l.delay_40_ms);
            put("fit.one_line.delay_256_ms".into(), l.delay_256_ms);
            put("fit.one_line.rate_bps".into(), l.rate_bps);
            put("fit.one_line.r2".into(), l.r2);
        }
        if let Some([short, long]) = self.split {
            put("fit.split.short.delay_40_ms".into(), short.delay_a_ms);
            put("fit.split.short.delay_125_ms".into(), short.delay_b_ms);
            put("fit.split.short.rate_bps".into(), short.rate_bps);
            put("fit.split.long.delay_125_ms".into(), long.delay_a_ms);
            put("fit.split.long.delay_256_ms".into(), long.delay_b_ms);
            put("fit.split.long.rate_bps".into(), long.rate_bps);
        }
        m
    }
}

/// The run's figures, RFC 889's fits included.
pub fn metrics(s: &InternetScenario, out: &RunOutput) -> InternetMetrics {
    let break_at = s.traffic[0].break_at.map(|b| (b.get() / 8) as u32);
    let f = fits(out, break_at);
    let cols = |line: &LineFit, a: f64, b: f64| {
        let (delay_a_ms, delay_b_ms, rate_bps) = columns(line, a, b);
        FitColumns {
            delay_a_ms,
            delay_b_ms,
            rate_bps,
        }
    };
    InternetMetrics {
        volleys_sent: out.volleys.iter().filter(|v| v.sent.is_some()).count() as u64,
        volleys_answered: out.volleys.iter().filter(|v| v.rtt.is_some()).count() as u64,
        volleys_lost: out.volleys.iter().filter(|v| v.lost).count() as u64,
        end_s: out.end.as_secs_f64(),
        events: out.events,
        hop_stats: out.hop_stats.clone(),
        one_line: f.one_line.as_ref().map(|l| {
            let (delay_40_ms, delay_256_ms, rate_bps) = columns(l, 40.0, 256.0);
            OneLineColumns {
                delay_40_ms,
                delay_256_ms,
                rate_bps,
                r2: l.r2,
            }
        }),
        split: f
            .split
            .as_ref()
            .map(|sp| [cols(&sp.short, 40.0, 125.0), cols(&sp.long, 125.0, 256.0)]),
    }
}
