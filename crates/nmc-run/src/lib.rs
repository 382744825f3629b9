//! # nmc-run — what `nmc run` does
//!
//! One scenario file in, one folder of outputs out: the file names its model, the model runs,
//! and the outputs it asked for are written. `nmc sweep` and the Python package run scenarios
//! through the same functions; the published experiments (`nmc-experiments`) drive the models
//! directly.
//!
//! | module | what |
//! | --- | --- |
//! | [`mod@run`] | read a scenario, pick its model ([`nmc_scenario::model_of`]), run it, write `summary.json`, the records and their plots ([`run_file`], [`run_text`]); resolve without running ([`resolve_text`]); run without writing ([`metrics_text`], [`summary_text`], [`imp_outcome_text`]) |
//! | [`builtin`] | the shipped scenarios, built in: `nmc scenarios`, `nmc run NAME` |
//! | [`charts`] | the plots a run draws of what it recorded (an IMP pair's resources held, its time slices drawn as K&O draw them) |
//! | [`records`] | each model's records as a type ([`records::Record`]), matched exhaustively |

#![warn(missing_docs)]

pub mod builtin;
pub mod charts;
pub mod records;
pub mod run;

pub use run::{
    Resolved, RunOptions, RunResult, imp_outcome_text, metrics_text, resolve_text, run_file,
    run_text, summary_text,
};
