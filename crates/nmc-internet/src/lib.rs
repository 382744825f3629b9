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
//!   model ([`subnet::SubnetHop`] over [`nmc_imp::Stepper`], profile `arpanet-1983`, `docs/arpanet-1983.md`), run beside
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
pub use spec::{CrossSpec, HopSpec, HostSpec, InternetScenario, NetworkSpec, PingSpec, RECORDS};

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

/// The metrics of `summary.json`.
pub fn metrics(s: &InternetScenario, out: &RunOutput) -> BTreeMap<String, f64> {
    let break_at = s.traffic[0].break_at.map(|b| (b.get() / 8) as u32);
    let f = fits(out, break_at);
    let mut m = BTreeMap::new();
    let answered = out.volleys.iter().filter(|v| v.rtt.is_some()).count();
    let lost = out.volleys.iter().filter(|v| v.lost).count();
    m.insert(
        "volleys.sent".into(),
        out.volleys.iter().filter(|v| v.sent.is_some()).count() as f64,
    );
    m.insert("volleys.answered".into(), answered as f64);
    m.insert("volleys.lost".into(), lost as f64);
    m.insert("sim.end_s".into(), out.end.as_secs_f64());
    m.insert("sim.events".into(), out.events as f64);
    for (index, key, value) in &out.hop_stats {
        m.insert(format!("hop.{index}.{key}"), *value);
    }
    if let Some(l) = &f.one_line {
        let (d40, d256, rate) = columns(l, 40.0, 256.0);
        m.insert("fit.one_line.delay_40_ms".into(), d40);
        m.insert("fit.one_line.delay_256_ms".into(), d256);
        m.insert("fit.one_line.rate_bps".into(), rate);
        m.insert("fit.one_line.r2".into(), l.r2);
    }
    if let Some(sp) = &f.split {
        let (a, b, r) = columns(&sp.short, 40.0, 125.0);
        m.insert("fit.split.short.delay_40_ms".into(), a);
        m.insert("fit.split.short.delay_125_ms".into(), b);
        m.insert("fit.split.short.rate_bps".into(), r);
        let (a, b, r) = columns(&sp.long, 125.0, 256.0);
        m.insert("fit.split.long.delay_125_ms".into(), a);
        m.insert("fit.split.long.delay_256_ms".into(), b);
        m.insert("fit.split.long.rate_bps".into(), r);
    }
    m
}
