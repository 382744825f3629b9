//! # nmc-rto — retransmission-timeout estimators and their RFC 889 evaluation
//!
//! Mills' second experiment in RFC 889 (Dec 1983, §3) replayed measured echo delays through the
//! TCP retransmission-timeout algorithm and tabulated, per run, the lost packets, the superfluous
//! retransmissions and an *efficiency*. This crate rebuilds that method for any delay trace —
//! simulated, measured by nmc's echo probe, or recorded by irtt or flent — and for the estimators
//! of 1983 and after. It is independent of the IMP simulator and fully deterministic: nothing in
//! it reads a clock, and the synthetic generator is seeded.
//!
//! ## Start here
//!
//! | module | what |
//! | --- | --- |
//! | [`time`] | [`Nanos`], integer nanoseconds (`nmc_sim`'s, shared with `nmc-probe`): the one time type; exact trace decimals |
//! | [`estimator`] | the [`Estimator`] trait and the serde parameter structs; RSRE, Mills, Jacobson/Karels, RFC 6298, Linux, QUIC PTO; the `NAME[:k=v,...]` spec [`parse`](estimator::parse)r |
//! | [`trace`] | [`Trace`]: the CSV format (documented in [`trace::csv`]), irtt and flent importers, [`trace::load`] |
//! | [`eval`] | the replay and the RFC 889 table; **how time is charged** is in its module doc |
//! | [`plot`] | the Fuzzball display: delays with the computed timeout drawn over them (SVG) |
//! | [`synth`] | seeded synthetic paths: baseline, dispersion, netspurts, loss |
//! | [`r889`] | the RFC 889 table as published, presets fitted to it, row R889-3 |
//! | [`sweep`] | parameter grids over traces, with a heat map |
//!
//! ## Example
//!
//! ```
//! use nmc_rto::{estimator, eval, synth::PathModel};
//!
//! let trace = PathModel::default().generate(42).unwrap();
//! let mills = estimator::parse("mills:F1=15/16,F2=3/4,G=2").unwrap();
//! let (row, _steps) = eval::replay(&trace, mills.as_ref(), &eval::Charge::default());
//! assert!(row.efficiency > 0.0 && row.efficiency <= 1.0);
//! ```
//!
//! ## What the model leaves out
//!
//! Like RFC 889, one volley is in flight at a time and each round trip is judged on its own: the
//! replay does not model the queueing a retransmission would add, nor congestion control. A lost
//! volley's retransmission is assumed to succeed, at the mean delay (see [`eval`]).

#![warn(missing_docs)]

pub mod estimator;
pub mod eval;
pub mod plot;
pub mod r889;
pub mod sweep;
pub mod synth;
pub mod time;
pub mod trace;

pub use estimator::Estimator;
pub use time::Nanos;
pub use trace::Trace;
