//! The shipped scenarios, built into the binary so that an installed `nmc` can run and show
//! them from any directory (`nmc scenarios`, `nmc run NAME`). The files in `scenarios/` are
//! the same text.

/// (name, text) of every shipped scenario, by name.
pub const SCENARIOS: &[(&str, &str)] = &[
    (
        "chain-100k",
        include_str!("../../../scenarios/chain-100k.toml"),
    ),
    (
        "golden-chain",
        include_str!("../../../scenarios/golden-chain.toml"),
    ),
    (
        "ien163-bbn-bragg",
        include_str!("../../../scenarios/ien163/bbn-bragg.toml"),
    ),
    (
        "ien163-bbn-sri",
        include_str!("../../../scenarios/ien163/bbn-sri.toml"),
    ),
    (
        "ko-alternate-3x",
        include_str!("../../../scenarios/ko-alternate-3x.toml"),
    ),
    (
        "ko-alternate-path",
        include_str!("../../../scenarios/ko-alternate-path.toml"),
    ),
    (
        "ko-looping",
        include_str!("../../../scenarios/ko-looping.toml"),
    ),
    (
        "ko-v2-chain",
        include_str!("../../../scenarios/ko-v2-chain.toml"),
    ),
    (
        "ko-v2-map",
        include_str!("../../../scenarios/ko-v2-map.toml"),
    ),
    (
        "ko-v3-map",
        include_str!("../../../scenarios/ko-v3-map.toml"),
    ),
    (
        "map-1982-pairs",
        include_str!("../../../scenarios/map-1982-pairs.toml"),
    ),
    ("md1", include_str!("../../../scenarios/md1.toml")),
    (
        "mesh-1000",
        include_str!("../../../scenarios/mesh-1000.toml"),
    ),
    (
        "oracle-chain",
        include_str!("../../../scenarios/oracle-chain.toml"),
    ),
    (
        "oracle-rfc632",
        include_str!("../../../scenarios/oracle-rfc632.toml"),
    ),
    (
        "rfc626-lockup",
        include_str!("../../../scenarios/rfc626-lockup.toml"),
    ),
    (
        "rfc632-moffett-sri",
        include_str!("../../../scenarios/rfc632-moffett-sri.toml"),
    ),
    (
        "rfc889-ajax",
        include_str!("../../../scenarios/rfc889/ajax.toml"),
    ),
    (
        "rfc889-berk",
        include_str!("../../../scenarios/rfc889/berk.toml"),
    ),
    (
        "rfc889-brl",
        include_str!("../../../scenarios/rfc889/brl.toml"),
    ),
    (
        "rfc889-dcn5",
        include_str!("../../../scenarios/rfc889/dcn5.toml"),
    ),
    (
        "rfc889-dcn6",
        include_str!("../../../scenarios/rfc889/dcn6.toml"),
    ),
    (
        "rfc889-dcn8",
        include_str!("../../../scenarios/rfc889/dcn8.toml"),
    ),
    (
        "rfc889-etam",
        include_str!("../../../scenarios/rfc889/etam.toml"),
    ),
    (
        "rfc889-facc",
        include_str!("../../../scenarios/rfc889/facc.toml"),
    ),
    (
        "rfc889-foe",
        include_str!("../../../scenarios/rfc889/foe.toml"),
    ),
    (
        "rfc889-foe-mux",
        include_str!("../../../scenarios/rfc889/foe-mux.toml"),
    ),
    (
        "rfc889-ford1",
        include_str!("../../../scenarios/rfc889/ford1.toml"),
    ),
    (
        "rfc889-goony",
        include_str!("../../../scenarios/rfc889/goony.toml"),
    ),
    (
        "rfc889-hawaii",
        include_str!("../../../scenarios/rfc889/hawaii.toml"),
    ),
    (
        "rfc889-imp17",
        include_str!("../../../scenarios/rfc889/imp17.toml"),
    ),
    (
        "rfc889-isia-h",
        include_str!("../../../scenarios/rfc889/isia-h.toml"),
    ),
    (
        "rfc889-isia-l",
        include_str!("../../../scenarios/rfc889/isia-l.toml"),
    ),
    (
        "rfc889-isid-h",
        include_str!("../../../scenarios/rfc889/isid-h.toml"),
    ),
    (
        "rfc889-isid-l",
        include_str!("../../../scenarios/rfc889/isid-l.toml"),
    ),
    (
        "rfc889-milarp",
        include_str!("../../../scenarios/rfc889/milarp.toml"),
    ),
    (
        "rfc889-nta-l",
        include_str!("../../../scenarios/rfc889/nta-l.toml"),
    ),
    (
        "rfc889-score",
        include_str!("../../../scenarios/rfc889/score.toml"),
    ),
    (
        "rfc889-tanum",
        include_str!("../../../scenarios/rfc889/tanum.toml"),
    ),
    (
        "rfc889-ucl",
        include_str!("../../../scenarios/rfc889/ucl.toml"),
    ),
    (
        "rfc889-umd1",
        include_str!("../../../scenarios/rfc889/umd1.toml"),
    ),
    (
        "rfc889-wash",
        include_str!("../../../scenarios/rfc889/wash.toml"),
    ),
];

/// The built-in scenario of this name (with or without `.toml`).
pub fn find(name: &str) -> Option<&'static str> {
    let name = name.strip_suffix(".toml").unwrap_or(name);
    SCENARIOS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The scenario's `description` (or its first comment line), for listings.
pub fn description(text: &str) -> String {
    let parsed: Option<toml::Table> = text.parse().ok();
    parsed
        .and_then(|t| t.get("description")?.as_str().map(str::to_owned))
        .or_else(|| {
            text.lines()
                .find_map(|l| l.strip_prefix('#').map(|c| c.trim().to_owned()))
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file in `scenarios/` is built in, and every built-in one is a file there.
    #[test]
    fn every_shipped_file_is_built_in() {
        // `scenarios/*.toml` by stem; `scenarios/<folder>/*.toml` as `<folder>-<stem>`, for
        // every folder there (`rfc889`, `ien163`).
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
        let stems = |sub: &str, prefix: &str| -> Vec<String> {
            std::fs::read_dir(format!("{dir}/{sub}"))
                .unwrap()
                .filter_map(|e| {
                    let p = e.unwrap().path();
                    let stem = p.file_stem()?.to_string_lossy().into_owned();
                    (p.extension()? == "toml").then(|| format!("{prefix}{stem}"))
                })
                .collect()
        };
        let mut files = stems("", "");
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                let sub = p.file_name().unwrap().to_string_lossy().into_owned();
                files.extend(stems(&sub, &format!("{sub}-")));
            }
        }
        files.sort();
        let built: Vec<String> = SCENARIOS.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(files, built);
        for (n, t) in SCENARIOS {
            assert!(!description(t).is_empty(), "{n} has no description");
        }
    }
}
