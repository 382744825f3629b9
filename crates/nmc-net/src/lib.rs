//! # nmc-net — store-and-forward lines and traffic sources
//!
//! The first model on the engine, and the ground the IMP subnet is built on: nodes joined by
//! full-duplex lines, each direction a [`line::Channel`] with a capacity, a propagation delay
//! and a FIFO output queue with a limit; traffic [`source`]s that offer packets at constant
//! intervals, as a Poisson stream, or as fast as the first line takes them; static
//! shortest-hop routes. It leaves out everything an IMP adds (acknowledgements, buffers,
//! end-to-end control): those belong to the subnet model.
//!
//! | module | what |
//! | --- | --- |
//! | [`spec`] | the scenario sections this model reads (`model = "store-forward"`) |
//! | [`topology`] | nodes, channels and shortest-hop routes built from the spec |
//! | [`line`](mod@line) | one direction of a line: queue, transmitter, counters |
//! | [`source`] | arrival processes and packet-length distributions |
//! | [`metric`] | what a run measured ([`metric::NetMetrics`]) and its `summary.json` names |
//! | [`mesh`] | a generated connected mesh of N nodes with degrees in a range, from a seed |
//! | [`model`] | the [`model::StoreForward`] event model and [`model::run`] |
//!
//! The golden scenario (`scenarios/golden-chain.toml`): 5 nodes, 50 kbit/s lines, 0.1 ms
//! propagation, 1008-bit packets every 20.16 ms. Each packet takes 20.16 ms to clock out and
//! 0.1 ms to cross each of 4 lines, and never waits, so every packet's delay is exactly
//! 4 × 20.26 ms = 81.040 ms.

#![warn(missing_docs)]

pub mod line;
pub mod mesh;
pub mod metric;
pub mod model;
pub mod source;
pub mod spec;
pub mod topology;

pub use model::{Outcome, StoreForward, run, run_to};
pub use spec::StoreForwardScenario;
