//! The published quantities the reproduce table scores (issue 31): SPEC §3's 21 figures of the
//! five source papers, then the further checks, each labelled with where it comes from. The
//! list is data, `figures.toml` beside this file (its header says what each key holds); this
//! file reads it once.
//!
//! Every row of every experiment belongs to one of these by the first word of its id
//! ([`nmc_report::check::figure_of`]); a test runs the quick reproduction and checks that no row
//! is left without a quantity. `published` is the paper's value as the paper (or SPEC §3's
//! summary of it) states it — a target, quoted — and `short` is our reading of what the model
//! lacks where the quantity is not reproduced; neither decides a verdict.

use nmc_report::scoreboard::{Figure, Group};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// `figures.toml`, built in.
const FIGURES: &str = include_str!("figures.toml");

/// The file's shape.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FigureFile {
    /// Short names of the papers the quantities name (`KO`).
    papers: BTreeMap<String, String>,
    /// Readings several quantities share (`short_ref`).
    shorts: BTreeMap<String, String>,
    /// The quantities, in the scoreboard's order.
    figure: Vec<FigureEntry>,
}

/// One `[[figure]]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FigureEntry {
    id: String,
    group: GroupKey,
    paper: String,
    source: String,
    quantity: String,
    published: String,
    #[serde(default)]
    short: String,
    #[serde(default)]
    short_ref: Option<String>,
}

/// [`Group`] as the file names it.
#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum GroupKey {
    Spec,
    Seed,
    Other,
    Textbook,
}

impl From<GroupKey> for Group {
    fn from(g: GroupKey) -> Self {
        match g {
            GroupKey::Spec => Group::Spec,
            GroupKey::Seed => Group::Seed,
            GroupKey::Other => Group::Other,
            GroupKey::Textbook => Group::Textbook,
        }
    }
}

/// The file read and its references resolved: each quantity's paper and shared reading
/// in full. An error names the quantity and the key.
fn parse(text: &str) -> Result<Vec<FigureEntry>, String> {
    let file: FigureFile = toml::from_str(text).map_err(|e| format!("figures.toml: {e}"))?;
    file.figure
        .into_iter()
        .map(|mut f| {
            if let Some(name) = file.papers.get(&f.paper) {
                f.paper = name.clone();
            }
            if let Some(key) = f.short_ref.take() {
                if !f.short.is_empty() {
                    return Err(format!("figures.toml: {}: both short and short_ref", f.id));
                }
                f.short = file.shorts.get(&key).cloned().ok_or_else(|| {
                    format!(
                        "figures.toml: {}: short_ref `{key}` is not in [shorts]",
                        f.id
                    )
                })?;
            }
            Ok(f)
        })
        .collect()
}

/// Every published quantity, in the order the scoreboard shows them.
pub fn all() -> Vec<Figure> {
    static READ: OnceLock<Vec<FigureEntry>> = OnceLock::new();
    // The file is built in and its reading is tested (`the_list_reads_as_written`): it cannot
    // fail for a user.
    let entries = READ.get_or_init(|| parse(FIGURES).expect("figures.toml is built in and tested"));
    entries
        .iter()
        .map(|f| Figure {
            id: &f.id,
            group: f.group.into(),
            paper: &f.paper,
            source: &f.source,
            quantity: &f.quantity,
            published: &f.published,
            short: &f.short,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_reads_as_written() {
        let all = all();
        assert_eq!(all.len(), 28);
        let ko2 = all.iter().find(|f| f.id == "KO-2").unwrap();
        assert_eq!(ko2.paper, "Kleinrock & Opderbeck 1977");
        assert_eq!(ko2.published, "30 kbit/s");
        // A line-ending backslash joins the lines with the space before it.
        assert!(
            ko2.short
                .starts_with("the 9-hop path is too fast, and about as fast as the original")
        );
        assert!(!ko2.short.contains('\n') && !ko2.short.contains("  "));
        let ien = all.iter().find(|f| f.id == "IEN163").unwrap();
        assert!(ien.short.starts_with("the 1983 subnet's IMP timing"));
        assert_eq!(ien.group, Group::Other);
    }

    #[test]
    fn a_bad_list_is_named_in_one_line() {
        let bad = FIGURES.replace("short_ref = \"short_1983\"", "short_ref = \"nowhere\"");
        let e = parse(&bad).err().unwrap();
        assert!(
            e.contains("short_ref `nowhere`") && !e.contains('\n'),
            "{e}"
        );
        let e = parse("[papers]\n[shorts]\n[[figure]]\nid = \"X\"\ncolour = 1\n")
            .err()
            .unwrap();
        assert!(e.contains("colour"), "{e}");
    }

    #[test]
    fn spec_lists_21_quantities_and_ids_are_unique() {
        let all = all();
        assert_eq!(all.iter().filter(|f| f.group == Group::Spec).count(), 21);
        let mut ids: Vec<&str> = all.iter().map(|f| f.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), all.len());
        // An id is one word: rows find their quantity by the first word of theirs.
        assert!(all.iter().all(|f| !f.id.contains(' ')));
    }
}
