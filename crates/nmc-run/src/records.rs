//! The records a scenario's `record = [...]` can ask of each model, as types: a run matches
//! on them exhaustively, so a name added to a model's list and not written here is a compile
//! error, not a panic (`Record::ALL` is tested against each model's `RECORDS`).

use anyhow::{Result, bail};

/// A model's records: each with the name a scenario uses.
pub trait Record: Copy + Sized + 'static {
    /// Every record of the model, in the order of the model's `RECORDS`.
    const ALL: &'static [(Self, &'static str)];

    /// The records `names` asks for, in its order, with their names. A name the model does not
    /// know is an error (the scenario's check refuses it first, with the line at fault).
    fn parse(names: &[String]) -> Result<Vec<(Self, &str)>> {
        names
            .iter()
            .map(|n| match Self::ALL.iter().find(|(_, name)| name == n) {
                Some(&(r, _)) => Ok((r, n.as_str())),
                None => bail!("record: `{n}` is not a record of this model"),
            })
            .collect()
    }
}

/// `model = "store-forward"` (`nmc_net::RECORDS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetRecord {
    Packets,
    Lines,
}

impl Record for NetRecord {
    const ALL: &'static [(Self, &'static str)] =
        &[(NetRecord::Packets, "packets"), (NetRecord::Lines, "lines")];
}

/// `model = "imp"` (`nmc_imp::spec::RECORDS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImpRecord {
    Messages,
    Lines,
    Occupancy,
    E2e,
    Routing,
    Journeys,
}

impl Record for ImpRecord {
    const ALL: &'static [(Self, &'static str)] = &[
        (ImpRecord::Messages, "messages"),
        (ImpRecord::Lines, "lines"),
        (ImpRecord::Occupancy, "occupancy"),
        (ImpRecord::E2e, "e2e"),
        (ImpRecord::Routing, "routing"),
        (ImpRecord::Journeys, "journeys"),
    ];
}

/// `model = "internet-1983"` (`nmc_internet::RECORDS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InternetRecord {
    Volleys,
}

impl Record for InternetRecord {
    const ALL: &'static [(Self, &'static str)] = &[(InternetRecord::Volleys, "volleys")];
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names<R: Record>() -> Vec<&'static str> {
        R::ALL.iter().map(|(_, n)| *n).collect()
    }

    #[test]
    fn each_models_records_are_its_list() {
        assert_eq!(names::<NetRecord>(), nmc_net::spec::RECORDS);
        assert_eq!(names::<ImpRecord>(), nmc_imp::spec::RECORDS);
        assert_eq!(names::<InternetRecord>(), nmc_internet::RECORDS);
    }

    #[test]
    fn names_parse_in_order_and_a_stranger_is_an_error() {
        let ask = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let asked = ask(&["lines", "messages"]);
        let got = ImpRecord::parse(&asked).unwrap();
        assert_eq!(
            got,
            [
                (ImpRecord::Lines, "lines"),
                (ImpRecord::Messages, "messages")
            ]
        );
        let e = NetRecord::parse(&ask(&["volleys"])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "record: `volleys` is not a record of this model"
        );
    }
}
