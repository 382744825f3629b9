//! Whole-subnet tests: shipped and small scenarios run from their TOML text, checked against
//! what K&O and the RFCs say must hold. They live inside the crate (not in `tests/`) because
//! they read what a run keeps that no other crate reads (the subnet's routing tables and hosts,
//! the e2e log's fields, the lockup report's detail, counts by name).
//!
//! | file | what |
//! | --- | --- |
//! | `tests/load.rs` | the network's own load and the IMP's own work (issue 10) |
//! | `tests/routing.rs` | adaptive routing, lines going down and up (issue 4) |
//! | `tests/single_packet.rs` | single-packet messages (issue 5, RFC 632) |
//! | `tests/stepper.rs` | the subnet stepped from outside ([`crate::Stepper`]) |
//! | `tests/subnet.rs` | what must hold in the version 2 subnet (issue 3) |
//! | `tests/v3.rs` | version 3 message processing (K&O §VI–VII) |

mod load;
mod routing;
mod single_packet;
mod stepper;
mod subnet;
mod v3;

mod scenario {
    //! A scenario file resolved for this crate, as `nmc-imp-scenario` resolves it (that crate
    //! depends on this one, so its `resolve` returns another build's types inside these tests):
    //! the profile with `[network.params]` applied, and `[network.routing_params]` over
    //! `RoutingParams`' defaults with the profile's `routing_period`.
    use crate::params::ImpParams;
    use crate::run::{BuildError, Outcome};
    use crate::spec::{ImpConfig, Overrides, RoutingMode, TrafficSpec};
    use nmc_routing::RoutingParams;
    use nmc_scenario::Scenario;
    use nmc_sim::Trace;
    use serde::{Deserialize, Serialize};

    /// `[network.routing_params]` as written.
    #[derive(Clone, Debug, Default, Deserialize, Serialize)]
    #[serde(transparent)]
    pub(crate) struct RoutingOverrides(toml::Table);

    impl Overrides for RoutingOverrides {
        fn is_empty(&self) -> bool {
            self.0.is_empty()
        }
    }

    /// A `model = "imp"` scenario as written.
    pub(crate) type ImpScenario =
        Scenario<crate::spec::NetworkSpec<toml::Table, RoutingOverrides>, TrafficSpec>;

    /// The scenario as this crate runs it.
    pub(crate) fn resolve(s: &ImpScenario) -> Result<ImpConfig, BuildError> {
        let n = &s.network;
        let mut params = ImpParams::profile(&n.profile).ok_or_else(|| {
            BuildError(format!(
                "network.profile: unknown profile `{}` (known: {})",
                n.profile,
                ImpParams::PROFILES.join(", ")
            ))
        })?;
        if !n.params.is_empty() {
            let mut table = toml::Table::try_from(&params)
                .map_err(|e| BuildError(format!("network.params: {e}")))?;
            for (k, v) in &n.params {
                if !table.contains_key(k) {
                    return Err(BuildError(format!(
                        "network.params.{k}: unknown parameter (known: {})",
                        table.keys().cloned().collect::<Vec<_>>().join(", ")
                    )));
                }
                table.insert(k.clone(), v.clone());
            }
            params = toml::Value::Table(table)
                .try_into()
                .map_err(|e: toml::de::Error| {
                    BuildError(format!("network.params: {}", e.message().trim()))
                })?;
            params.validate().map_err(BuildError)?;
        }
        let routing = (n.routing == RoutingMode::Adaptive || !n.routing_params.is_empty())
            .then(|| {
                let t = &n.routing_params.0;
                let mut rp: RoutingParams =
                    toml::Value::Table(t.clone())
                        .try_into()
                        .map_err(|e: toml::de::Error| {
                            format!("network.routing_params: {}", e.message().trim())
                        })?;
                if !t.contains_key("period") {
                    rp.period = params.routing_period;
                }
                crate::routing::check_routing_params(&rp)?;
                Ok::<_, String>(rp)
            })
            .transpose()
            .map_err(BuildError)?;
        Ok(s.clone().map_network(|n| n.with(params, routing)))
    }

    /// Resolves the scenario and runs it for its duration, keeping every record.
    pub(crate) fn run(
        s: &ImpScenario,
        seed: u64,
        trace: Trace,
        progress: &mut dyn FnMut(f64),
    ) -> Result<Outcome, BuildError> {
        crate::run(&resolve(s)?, seed, trace, progress)
    }
}
