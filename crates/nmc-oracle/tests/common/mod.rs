//! What the oracle's integration tests that run BBN's IMP program share: the user's copy of
//! the program, and K&O's pump on a chain as a scenario.

#![allow(dead_code, reason = "each test file uses what it needs")]

use nmc_h316::Image;

/// The user's copy of the program (`NMC_IMP_PROGRAM`, SIMH's `H316/tests/impcode.cmd`), or
/// `None` with NOT RUN printed: the tests that need it are `#[ignore]`d and say so when asked
/// to run without it.
pub fn program() -> Option<Image> {
    let Some(path) = nmc_oracle::emulate::program_path(None) else {
        eprintln!("NOT RUN: NMC_IMP_PROGRAM is not set (SIMH's H316/tests/impcode.cmd)");
        return None;
    };
    Some(nmc_oracle::emulate::read_program(&path).expect("the IMP program reads"))
}

/// A chain of `hops` on the program (v2-1974-10, 40 s, measured from 10 s, settled 2 s), K&O's
/// pump from IMP0's host to the last IMP's discard fake host: 4 outstanding 8048-bit messages.
/// `topology` is added to the chain's table (`propagation = "0s"`), `program` to
/// `[network.program]` (`imps = [...]`).
pub fn pump_chain(hops: u32, topology: &str, program: &str) -> nmc_imp::spec::ImpConfig {
    let text = format!(
        r#"
name = "program-chain"
seed = 1
duration = "40s"
model = "imp"
record = ["messages", "lines"]
[network]
profile = "v2-1974-10"
measure_from = "10s"
topology = {{ kind = "chain", hops = {hops}{topology} }}
hosts = [{{ name = "SRC", imp = "IMP0" }}, {{ name = "FAKE", imp = "IMP{hops}", fake = true }}]
[network.program]
settle = "2s"
{program}
[[traffic]]
kind = "pump"
from = "SRC"
to = "FAKE"
message = "8048bit"
outstanding = 4
"#
    );
    let s: nmc_imp::scenario::ImpScenario =
        nmc_scenario::load("program-chain", &text, &[]).unwrap();
    nmc_imp::scenario::resolve(&s).unwrap()
}
