//! # nmc-experiments — what `nmc reproduce` does
//!
//! (`nmc run`, one scenario file, is `nmc-run`'s.)
//!
//! | module | what |
//! | --- | --- |
//! | [`registry`] | the [`Experiment`] trait and the [`Context`] an experiment writes into |
//! | [`experiments`] | one module per published experiment, and the list of them ([`all`]) |
//! | [`figures`] | the published quantities the rows belong to, for the scoreboard |
//! | [`reproduce`] | `reproduce.json` and the report page of a reproduction, with the scoreboard |
//!
//! An experiment drives a model with the source's own scenario, and states each published
//! figure as a [`nmc_report::Target`] with its tolerance *before* comparing; the verdict comes
//! from [`nmc_report::Check::compare`], never from the experiment.

#![warn(missing_docs)]

pub mod experiments;
pub mod figures;
pub mod registry;
pub mod reproduce;

pub use experiments::{all, find};
pub use registry::{Context, Experiment, run_experiment};
