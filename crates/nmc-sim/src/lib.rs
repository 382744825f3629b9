//! # nmc-sim — the deterministic discrete-event engine
//!
//! Start here. This crate is the floor every nmc model stands on; it knows nothing of IMPs.
//!
//! | module | what it holds |
//! | --- | --- |
//! | [`time`] | [`SimTime`] and [`SimDuration`]: integer nanoseconds, unit constructors, display |
//! | [`units`] | [`BitRate`], [`Bits`] and the unit parser/printer (`50kbit/s`, `640ms`, `126B`): the one duration parser |
//! | [`nanos`] | [`Nanos`]: measured times and spans for the probe and the RTO tools, exact-ms and human display |
//! | [`limits`] | what input may size: counts, products of counts, thread pools, whole-file reads, each refused in one line past its limit |
//! | [`graph`] | [`graph::breadth_first`]: the one shortest-hop search the models' static routes use |
//! | [`queue`] | [`EventQueue`]: pending events in `(time, insertion sequence)` order, their keys in a calendar of time buckets (`queue/calendar.rs`) |
//! | [`engine`] | [`Model`] and [`Simulation`]: run until a time, until idle, or while a condition holds |
//! | [`rng`] | [`RngStreams`]: one ChaCha stream per component, derived from `(seed, component id)` |
//! | [`trace`] | [`Trace`]: an optional JSON-lines event trace of typed records |
//! | [`record`] | [`Records`] and [`RecordSink`]: per-event records kept in memory or written as they are made |
//!
//! ## Determinism guarantees
//!
//! * Simulated time is an integer count of nanoseconds ([`SimTime`]); no floating point ever
//!   decides when an event happens.
//! * **Same-time order.** Events are delivered in increasing time; events scheduled for the
//!   *same* time are delivered in the order they were scheduled (first in, first out), because
//!   each carries a sequence number taken from one counter at the moment it is pushed. A model
//!   that needs a different order at the same instant must express it by what it schedules
//!   (e.g. handle both cases in one event), never by relying on heap internals.
//! * **Randomness.** A run's seed is required. Each component draws from its own stream of
//!   ChaCha8 (`rand_chacha`, whose output is value-stable across releases), keyed by the seed
//!   and selected by the component id, so adding draws in one component never shifts another's,
//!   and floating-point variates are derived from raw 64-bit words by this crate
//!   ([`rng::unit_f64`]), not by a dependency whose algorithm might change on upgrade.
//! * Nothing here reads a clock or iterates a hash map.

#![warn(missing_docs)]

pub mod engine;
pub mod graph;
pub mod limits;
pub mod nanos;
pub mod queue;
pub mod record;
pub mod rng;
pub mod time;
pub mod trace;
pub mod units;

pub use engine::{Model, RunOutcome, Simulation};
pub use nanos::Nanos;
pub use queue::EventQueue;
pub use record::{RecordSink, Records};
pub use rng::{RngStreams, Stream};
pub use time::{SimDuration, SimTime};
pub use trace::Trace;
pub use units::{
    BitRate, Bits, RangeError, RateFormat, UnitError, parse_bytes, parse_fraction,
    parse_per_second, parse_range,
};
