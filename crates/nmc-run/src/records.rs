//! The records a scenario's `record = [...]` can ask of each model, as types. Each model
//! defines its own ([`nmc_scenario::Record`]); a run matches on them exhaustively, so a record
//! added to a model and not written here is a compile error, not a panic.

pub use nmc_imp::spec::ImpRecord;
#[cfg(feature = "internet")]
pub use nmc_internet::InternetRecord;
pub use nmc_net::spec::NetRecord;
pub use nmc_scenario::Record;

#[cfg(test)]
mod tests {
    use super::*;
    use nmc_scenario::Scenario;

    fn asking(names: &[&str]) -> Scenario<toml::Value, toml::Value> {
        let mut s: Scenario<toml::Value, toml::Value> = toml::from_str(
            "name = \"t\"\nmodel = \"imp\"\nseed = 1\nduration = \"1s\"\n[network]\n[[traffic]]\n",
        )
        .unwrap();
        s.record = names.iter().map(|n| n.to_string()).collect();
        s
    }

    /// Each record's name is its own, and names the record back.
    #[test]
    fn each_record_is_named_once() {
        fn check<R: Record + std::fmt::Debug>() {
            for &(r, n) in R::ALL {
                assert_eq!(r.name(), n);
                assert_eq!(R::named(n), Some(r));
                assert_eq!(R::ALL.iter().filter(|(_, m)| *m == n).count(), 1, "{n}");
            }
        }
        check::<ImpRecord>();
        check::<NetRecord>();
        #[cfg(feature = "internet")]
        check::<InternetRecord>();
    }

    /// The records come in the scenario's order; a record of another model is refused by the
    /// check, with the names this model has.
    #[test]
    fn records_come_in_order_and_a_stranger_is_refused() {
        let s = asking(&["lines", "messages"]);
        assert_eq!(
            s.records::<ImpRecord>(),
            [ImpRecord::Lines, ImpRecord::Messages]
        );
        assert!(s.wants(ImpRecord::Messages) && !s.wants(ImpRecord::E2e));
        let e = asking(&["volleys"])
            .check_records::<NetRecord>()
            .unwrap_err();
        assert!(
            e.to_string().contains(
                "unknown record `volleys` for model `imp` (expected one of packets, lines)"
            ),
            "{e}"
        );
    }
}
