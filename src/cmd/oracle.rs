//! `nmc oracle`: BBN's 1973 IMP program in SIMH's H316 on a cycle clock, nmc as its 1822 host
//! (issue 71). The command line and the work live in `nmc-oracle`.

use anyhow::Result;

use crate::Outcome;

pub use nmc_oracle::cli::OracleCommand;

/// Runs `nmc oracle …`; a refused run (an instance fell behind wall time) exits as outside tolerance.
pub fn run(c: OracleCommand) -> Result<Outcome> {
    Ok(if nmc_oracle::cli::run(c)? {
        Outcome::Ok
    } else {
        Outcome::OutsideTolerance
    })
}
