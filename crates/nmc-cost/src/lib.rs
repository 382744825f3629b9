//! # nmc-cost: RFC 392's host cost per bit, in 1972 and today
//!
//! Hicks & Wessler (Utah, Sept 1972) measured what it cost a TENEX host to move a file from its
//! disk to the network (and back) with their RJS program: 75–85 µs of chargeable CPU per bit,
//! 127–180 µs/bit for short transfers, $9.90–11.20 per 10^6 bits at $474.60 per CPU hour. This
//! crate holds their tables, a cost model of their host whose unknowns are fitted on one table
//! and tested on the other, and the same measurement on a host of today.
//!
//! ## Start here
//!
//! | module | what |
//! | --- | --- |
//! | [`data`] | the two Utah-10 tables (`data/rfc392-utah10.csv`), the parser that names a bad row, the columns checked against each other |
//! | [`tenex`] | [`Tenex1972`]: the TENEX host's CPU per transfer as a pure function of cited parameters, split into its parts |
//! | [`its`] | a set-up per transfer from MIT's ITS FTP (RFC 573 Table III, `data/rfc573-table3.csv`), the analogue for the set-up RFC 392 does not give |
//! | [`fit`] | the unknowns (set-up, RJS per byte, UCLA's message size) estimated, cross-validated table against table; load regressions |
//! | [`live`] | today: a discard sink ([`live::CostService`] when `nmc serve` serves it), and a sender that moves a volume over TCP or UDP and reads the CPU it cost from the OS (`getrusage`) |
//! | [`table`] | RFC 392's columns for today's rows, and 1972 beside them |
//!
//! The model ([`tenex`]) and the fit ([`fit`]) read no clock and no file: the same inputs give
//! the same outputs, byte for byte. Only [`live`] touches sockets and the OS's accounting.

#![warn(missing_docs)]

pub mod data;
pub mod fit;
pub mod its;
pub mod live;
pub mod table;
pub mod tenex;

pub use data::{Dir, Transfer};
pub use tenex::Tenex1972;
