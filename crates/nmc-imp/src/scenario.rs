//! The IMP model's scenario file, resolved for this crate (issue 72: once its own crate,
//! `nmc-imp-scenario`, which depended on this one while this crate's tests kept a copy of it).
//!
//! A run takes typed values ([`crate::ImpConfig`]: the profile's parameters with their
//! overrides applied, the adaptive procedure's parameters). This module is the scenario layer in
//! between: the `[network]` section as a file states it ([`NetworkSpec`]: a profile's name,
//! `[network.params]` and `[network.routing_params]` as tables of overrides), and [`resolve`],
//! which applies them with one-line errors that name the key at fault.
//!
//! | item | what |
//! | --- | --- |
//! | [`ImpScenario`], [`NetworkSpec`] | a `model = "imp"` scenario as written |
//! | [`resolve`] | the scenario as this crate runs it |
//! | [`resolve_params`], [`resolve_routing_params`] | the two override sections |
//! | [`run`] | resolve, then [`crate::run()`] |
//!
//! The other sections (topology, hosts, events, traffic) are typed already ([`crate::spec`]).

#![warn(missing_docs)]

use crate::ImpParams;
use crate::run::{BuildError, Outcome};
use crate::spec::{ImpConfig, Overrides, TrafficSpec};
use nmc_routing::RoutingParams;
use nmc_scenario::Scenario;
use nmc_sim::Trace;
use serde::{Deserialize, Serialize};

pub use crate::spec::ImpRecord;

/// `[network.routing_params]` as written: any fields of [`RoutingParams`], the rest defaulted.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(transparent)]
pub struct RoutingOverrides(pub toml::Table);

impl Overrides for RoutingOverrides {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// `[network]` as a scenario file states it (every key documented at
/// [`crate::spec::NetworkSpec`]).
pub type NetworkSpec = crate::spec::NetworkSpec<toml::Table, RoutingOverrides>;

/// A `model = "imp"` scenario as written.
pub type ImpScenario = Scenario<NetworkSpec, TrafficSpec>;

/// The scenario as this crate runs it: the profile with `[network.params]` applied and, with
/// `routing = "adaptive"` or when given, `[network.routing_params]` over [`RoutingParams`]'
/// defaults.
pub fn resolve(s: &ImpScenario) -> Result<ImpConfig, BuildError> {
    let params = resolve_params(&s.network.profile, &s.network.params)?;
    // Static routes with routing parameters are refused by the model (`Routing::configure`),
    // which sees them as `Some`.
    let routing_params = (s.network.routing == crate::spec::RoutingMode::Adaptive
        || !s.network.routing_params.is_empty())
    .then(|| resolve_routing_params(&s.network.routing_params.0, &params))
    .transpose()
    .map_err(BuildError)?;
    Ok(s.clone().map_network(|n| n.with(params, routing_params)))
}

/// The profile named `profile` with the overrides of `[network.params]` applied; an unknown
/// profile or key, or a value of the wrong type, is a one-line error naming it.
pub fn resolve_params(profile: &str, overrides: &toml::Table) -> Result<ImpParams, BuildError> {
    let base = ImpParams::profile(profile).ok_or_else(|| {
        BuildError(format!(
            "network.profile: unknown profile `{profile}` (known: {})",
            ImpParams::PROFILES.join(", ")
        ))
    })?;
    if overrides.is_empty() {
        return Ok(base);
    }
    let mut table =
        toml::Table::try_from(&base).map_err(|e| BuildError(format!("network.params: {e}")))?;
    for (k, v) in overrides {
        if !table.contains_key(k) {
            return Err(BuildError(format!(
                "network.params.{k}: unknown parameter (known: {})",
                table.keys().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
        table.insert(k.clone(), v.clone());
    }
    let params: ImpParams =
        toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| {
                BuildError(format!("network.params: {}", e.message().trim()))
            })?;
    params.validate().map_err(BuildError)?;
    Ok(params)
}

/// `[network.routing_params]` over [`RoutingParams`]' defaults, with `period` defaulting to the
/// profile's `routing_period`.
pub fn resolve_routing_params(
    t: &toml::Table,
    params: &ImpParams,
) -> Result<RoutingParams, String> {
    let mut rp: RoutingParams = toml::Value::Table(t.clone())
        .try_into()
        .map_err(|e: toml::de::Error| format!("network.routing_params: {}", e.message().trim()))?;
    if !t.contains_key("period") {
        rp.period = params.routing_period;
    }
    crate::routing::check_routing_params(&rp)?;
    Ok(rp)
}

/// Resolves the scenario and runs it for its duration, keeping every record
/// ([`crate::run()`]).
pub fn run(
    s: &ImpScenario,
    seed: u64,
    trace: Trace,
    progress: &mut dyn FnMut(f64),
) -> Result<Outcome, BuildError> {
    crate::run(&resolve(s)?, seed, trace, progress)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHAIN: &str = r#"
name = "t"
seed = 1
duration = "1s"
model = "imp"
[network]
profile = "v2-1974-10"
topology = { kind = "chain", hops = 2 }
hosts = [{ name = "A", imp = "IMP0" }, { name = "B", imp = "IMP2" }]
"#;

    fn resolved(sets: &[&str]) -> Result<ImpConfig, String> {
        let sets: Vec<_> = sets.iter().map(|s| s.parse().unwrap()).collect();
        let s: ImpScenario =
            nmc_scenario::load("t.toml", CHAIN, &sets).map_err(|e| e.to_string())?;
        resolve(&s).map_err(|e| e.0)
    }

    #[test]
    fn overrides_apply_over_the_profile() {
        let c = resolved(&["network.params.message_numbers=8"]).unwrap();
        assert_eq!(c.network.params.message_numbers, 8);
        let base = ImpParams::profile("v2-1974-10").unwrap();
        assert_eq!(c.network.params.plt_entries, base.plt_entries);
        assert!(
            c.network.routing_params.is_none(),
            "static routes: no routing parameters"
        );
    }

    #[test]
    fn adaptive_routing_takes_the_profiles_period_unless_given() {
        let c = resolved(&["network.routing=adaptive"]).unwrap();
        let base = ImpParams::profile("v2-1974-10").unwrap();
        assert_eq!(
            c.network.routing_params.unwrap().period,
            base.routing_period
        );
        let c = resolved(&[
            "network.routing=adaptive",
            "network.routing_params.period=320ms",
        ])
        .unwrap();
        assert_eq!(
            c.network.routing_params.unwrap().period,
            nmc_sim::SimDuration::from_millis(320)
        );
    }

    #[test]
    fn bad_overrides_are_one_line_errors_naming_the_key() {
        let e = resolved(&["network.params.message_number=8"]).unwrap_err();
        assert!(
            e.starts_with("network.params.message_number: unknown parameter"),
            "{e}"
        );
        let e = resolved(&["network.profile=v9"]).unwrap_err();
        assert!(
            e.starts_with("network.profile: unknown profile `v9`"),
            "{e}"
        );
        let static_with_params =
            resolved(&["network.routing_params.loop_prevention=none"]).unwrap();
        let e = crate::run::build(&static_with_params, 1, Trace::off())
            .err()
            .unwrap()
            .0;
        assert_eq!(
            e,
            "network.routing_params: only with network.routing = \"adaptive\""
        );
        assert!(!e.contains('\n'));
    }
}
