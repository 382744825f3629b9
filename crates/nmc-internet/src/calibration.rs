//! A Fuzzball's cost per pass, estimated from one published path.
//!
//! RFC 889 (Mills, Dec 1983) gives no host timing, only each path's fitted line: the one-way
//! delay at 40 octets and the rate (the inverse slope, bit/s). On a path whose every other
//! part is known (lines, framing, propagation, relays), the two Fuzzballs' four passes per round
//! trip are what is left:
//!
//! ```text
//! d(L) = d₀(L) + 2 · (per_packet + per_octet · L)        (one way: half of four passes)
//! ```
//!
//! where `d₀` is the path's idle one-way time with the hosts costing nothing. Two published
//! numbers fix the two unknowns: the slope `8·10⁹ / rate` ns per octet gives `per_octet`, the
//! delay at 40 octets then gives `per_packet`. Which rows are fitted and which are held out to
//! test the estimate is the experiment's choice (`nmc-experiments`' `rfc889-delay`).

use crate::model::{BuildError, Path};
use crate::spec::{HopSpec, HostSpec, InternetScenario};
use nmc_sim::SimDuration;

/// Why a path cannot be fitted, in one line.
#[derive(Debug, thiserror::Error)]
pub enum FitError {
    /// The path could not be built.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The path has a hop other than a line: the scenario's name and the hop's kind.
    #[error("{0}: a fit path must have only lines between its two Fuzzballs (found a {1})")]
    NotSimple(String, &'static str),
    /// A fitted host cost came out below zero.
    #[error(
        "{name}: the published figures leave a negative cost ({what} = {value:.1} µs): the path's other parts already take longer"
    )]
    Negative {
        /// The scenario's name.
        name: String,
        /// Which cost: `per_packet` or `per_octet`.
        what: &'static str,
        /// The cost that came out, µs.
        value: f64,
    },
    /// The published rate is not a positive, finite number: the scenario's name.
    #[error("{0}: the published rate must be a positive number of bit/s")]
    Rate(String),
}

/// The per-pass costs that make `s`'s path give `d40_ms` one way at 40 octets and a slope of
/// `rate_bps`, rounded to 0.1 ms per packet and 1 µs per octet (the table's delays are whole
/// milliseconds). The path must be lines only, with the two Fuzzballs at its ends; the
/// scenario's own host costs are ignored.
pub fn fit_host_pass(
    s: &InternetScenario,
    d40_ms: f64,
    rate_bps: f64,
) -> Result<HostSpec, FitError> {
    if !(rate_bps.is_finite() && rate_bps > 0.0) {
        return Err(FitError::Rate(s.name.clone()));
    }
    if let Some(h) = s
        .network
        .hops
        .iter()
        .find(|h| !matches!(h, HopSpec::Line { .. }))
    {
        let kind = match h {
            HopSpec::Line { .. } => "line",
            HopSpec::Relay { .. } => "relay",
            HopSpec::Gateway { .. } => "gateway",
            HopSpec::Satnet { .. } => "satnet",
            HopSpec::Subnet { .. } => "subnet",
        };
        return Err(FitError::NotSimple(s.name.clone(), kind));
    }
    let mut bare = s.clone();
    bare.network.host = HostSpec {
        per_packet: SimDuration::ZERO,
        per_octet: SimDuration::ZERO,
    };
    bare.network.far_host = None;
    let path = Path::build(&bare)?;
    // Idle one-way time with free hosts, ns.
    let d0 = |len: u64| path.idle_round_trip(len).as_nanos() as f64 / 2.0;
    let slope0 = (d0(256) - d0(40)) / 216.0;
    let per_octet_ns = (8e9 / rate_bps - slope0) / 2.0;
    let per_packet_ns = (d40_ms * 1e6 - d0(40)) / 2.0 - 40.0 * per_octet_ns;
    for (what, v) in [("per_octet", per_octet_ns), ("per_packet", per_packet_ns)] {
        if v < 0.0 {
            return Err(FitError::Negative {
                name: s.name.clone(),
                what,
                value: v / 1e3,
            });
        }
    }
    Ok(HostSpec {
        per_packet: SimDuration::from_micros(((per_packet_ns / 1e5).round() * 100.0) as u64),
        per_octet: SimDuration::from_micros((per_octet_ns / 1e3).round() as u64),
    })
}
