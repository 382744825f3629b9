//! `nmc scenarios`: the built-in scenarios, listed or shown.

use crate::Outcome;
use anyhow::{Result, bail};
use clap::Args;
use nmc_run::builtin::{SCENARIOS, description, find};

#[derive(Args)]
#[command(
    after_help = "Examples:\n  nmc scenarios\n  nmc scenarios show ko-v2-map > my-map.toml\n  nmc run ko-v2-map --set duration=1min"
)]
pub struct ScenariosArgs {
    /// `show NAME` prints a scenario's file; without it, the list.
    #[arg(value_names = ["show", "NAME"], num_args = 0..=2)]
    pub what: Vec<String>,
}

pub fn run(a: ScenariosArgs) -> Result<Outcome> {
    match a.what.as_slice() {
        [] => {
            for (name, text) in SCENARIOS {
                outln!("{name:<20} {}", description(text));
            }
            outln!("\nnmc scenarios show NAME prints one; nmc run NAME runs it.");
        }
        [show, name] if show == "show" => match find(name) {
            Some(text) => out!("{text}"),
            None => {
                let known: Vec<&str> = SCENARIOS.iter().map(|(n, _)| *n).collect();
                bail!(
                    "no built-in scenario `{name}` (known: {})",
                    known.join(", ")
                )
            }
        },
        other => bail!(
            "`nmc scenarios {}`: expected nothing, or `show NAME`",
            other.join(" ")
        ),
    }
    Ok(Outcome::Ok)
}
