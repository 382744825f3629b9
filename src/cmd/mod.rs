//! One module per subcommand.

pub mod bench;
pub mod cost;
pub mod echo;
pub mod gate;
pub mod json;
pub mod progress;
pub mod pump;
pub mod reproduce;
pub mod rto;
pub mod run;
pub mod scenarios;
pub mod shell;
pub mod stream;
pub mod sweep;

/// Reads a quantity with its unit (`30s`, `200ms`, `50kbit/s`, `2016bit`) with `nmc_sim`'s one
/// parser, for every option of the command line: a bare number is refused with a one-line
/// message that suggests the unit ("`30` needs a unit: 30s, 30ms, …").
pub fn parse_unit<T: std::str::FromStr<Err = nmc_sim::UnitError>>(s: &str) -> Result<T, String> {
    s.parse::<T>().map_err(|e| e.to_string())
}

/// A target's label as one folder name under `out/`: letters, digits, `.` and `-` kept, any
/// other character (`:` of a port, `/`, `[`) made `_`.
pub fn folder_name(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
