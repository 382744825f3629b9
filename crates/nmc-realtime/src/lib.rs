//! # nmc-realtime — RFC 508: real-time data through a time-shared host, simulated and measured
//!
//! Start here. Pfeifer & McAfee (UCSB, RFC 508, May 1973) played a constant-rate stream from a
//! SEL 810-B through the UCSB IBM 360/75 and the ARPANET into a discard socket at UCLA, with
//! two buffers of 1–8 packets, and timed the gaps when a buffer was not yet free.
//!
//! | module | what |
//! | --- | --- |
//! | [`table1`] | Table I as data: 176 tests (time, buffers sent, gap KEY) and the 3 long tests |
//! | [`params`] | every constant of the model, with its source or marked as a choice |
//! | [`subnet`] | the UCSB–UCLA subnet through nmc's IMP model (the only use of `nmc_imp`), and the decomposition's limit |
//! | [`host`] | the 360/75: a CPU serving the On-Line System ahead of the SEL's network job |
//! | [`model`] | one test: SEL double buffering, the SEL–360 link, the NCP, the subnet, UCLA's allocation |
//! | [`experiment`] | Table I's procedure, the host-load fit and prediction, the gap-free-rate curve |
//! | [`gaps`] | the gap table in RFC 508's KEY form and Table I's printed layout |
//! | [`stream`] | `nmc stream`: the same double-buffered stream on a real path, and its discard sink |
//!
//! ## What the model leaves out
//! * Other traffic on the 1973 network: the subnet is unloaded (see [`subnet`]).
//! * The 360's I/O, paging and time slices: the host is one CPU with two priorities ([`host`]).
//! * The sweep second hand: tests are exactly `test.duration_ns` long (RFC 508 §V timed them
//!   by hand; R508-1's ±3 % tolerance stands for that).

#![warn(missing_docs)]

pub mod experiment;
pub mod gaps;
pub mod host;
pub mod model;
pub mod params;
pub mod stream;
pub mod subnet;
pub mod table1;
