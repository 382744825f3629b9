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
    /// `packets.csv`: one row per packet delivered or dropped, with its delay; drawn as a
    /// delay histogram.
    Packets,
    /// `lines.csv`: one row of totals per channel; drawn as a utilisation chart.
    Lines,
}

impl Record for NetRecord {
    const ALL: &'static [(Self, &'static str)] =
        &[(NetRecord::Packets, "packets"), (NetRecord::Lines, "lines")];
}

/// `model = "imp"` (`nmc_imp::spec::RECORDS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImpRecord {
    /// `messages.csv`: one row per answered message, its timeline in ns, written as the run
    /// goes; drawn as a round-trip (accepted → RFNM) histogram.
    Messages,
    /// `lines.csv`: one row of totals per line direction (frames, retransmissions, utilisation).
    Lines,
    /// `occupancy.csv`: periodic samples of the resources the measured IMP pair holds, written
    /// as the run goes; its first 30 s drawn as a chart.
    Occupancy,
    /// `e2e.csv`: the end-to-end events of single-packet messages, as RFC 632's Tables 1–2 list
    /// them; written as the run goes.
    E2e,
    /// `routing.csv`: every change of a best neighbour and every hold-down; beside it
    /// `loops.csv`, `source-sends.csv` and `source-queues.csv`.
    Routing,
    /// `journeys.csv`: each packet's journey from its source IMP to its destination IMP;
    /// written as the run goes.
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
    /// `volleys.csv`: one row per echo volley (length, send time, round trip, lost).
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
