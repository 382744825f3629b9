//! # nmc-scenario — scenario files
//!
//! A scenario is a TOML file holding everything a run needs: name, seed, duration, the model
//! and its parameters, the network, the traffic, what to record. Quantities carry units
//! (`50kbit/s`, `640ms`, `1008bit`; see [`nmc_sim::units`]).
//!
//! Loading happens in two stages, like ripgrep's flags: first the text as typed is parsed and
//! checked against the model's typed scenario (so an error names the file, line and key), then
//! each `--set path.to.key=value` override is applied to the parsed table and the result is
//! checked again (an error names the override and the key path). Every struct a model reads is
//! `#[serde(deny_unknown_fields)]`, so a misspelt key is an error, never silently ignored.
//!
//! | item | what |
//! | --- | --- |
//! | [`Scenario`] | the common frame: name, seed, duration, model, network, traffic, record, trace |
//! | [`Override`] | one `--set a.b.0.c=value` |
//! | [`load`] | text + overrides → typed scenario, or a one-line [`ScenarioError`] |
//! | [`model_of`] | which model a scenario names, read before the typed load |
//! | [`config_hash`] | SHA-256 of the resolved configuration, written into every output |
//! | [`locate`] | a check that failed after loading → the file, line and column (or the `--set`) of the key it names |

#![warn(missing_docs)]

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;

pub use nmc_sim::{BitRate, Bits, SimDuration};

/// What went wrong reading a scenario, as one line.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// A fault at one place in the scenario text: `origin:line:column: message`.
    #[error("{origin}:{line}:{column}: {message}")]
    File {
        /// Where the text came from (a file name), as the caller named it.
        origin: String,
        /// The line of the fault, counted from 1.
        line: usize,
        /// The column of the fault on its line, counted from 1 in bytes.
        column: usize,
        /// What is wrong; a parse error quotes the line as written.
        message: String,
    },
    /// A fault of the scenario as a whole, or at no place the text writes: `origin: message`.
    #[error("{origin}: {message}")]
    Whole {
        /// Where the text came from (a file name), or the scenario's name.
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// A fault laid at one `--set` override: `--set TEXT: message`.
    #[error("--set {}: {message}", nmc_sim::limits::quoted(.text))]
    Override {
        /// The override as typed, `path.to.key=value`.
        text: String,
        /// What is wrong; once the override is applied, it names the key path it judged.
        message: String,
    },
}

impl ScenarioError {
    /// The message without where it happened.
    pub fn message(&self) -> &str {
        match self {
            ScenarioError::File { message, .. }
            | ScenarioError::Whole { message, .. }
            | ScenarioError::Override { message, .. } => message,
        }
    }
}

/// The frame every scenario shares; `N` is the model's network section, `T` one traffic entry.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario<N, T> {
    /// Short name, used in output files.
    pub name: String,
    /// Free text for people.
    #[serde(default)]
    pub description: String,
    /// Required, here or with `--seed`; written into every output.
    pub seed: Option<u64>,
    /// Simulated time to run.
    pub duration: SimDuration,
    /// Which model runs this scenario (e.g. `store-forward`).
    pub model: String,
    /// The model's network: topology and parameters.
    pub network: N,
    /// Traffic sources.
    #[serde(default = "Vec::new")]
    pub traffic: Vec<T>,
    /// Per-item records to write as CSV (names are model-specific, e.g. `packets`).
    #[serde(default)]
    pub record: Vec<String>,
    /// Write the JSON-lines event trace (`trace.jsonl`).
    #[serde(default)]
    pub trace: bool,
}

impl<N, T> Scenario<N, T> {
    /// The same scenario with its network section mapped by `f` (how a model's scenario layer
    /// resolves the section as written into what the model runs).
    pub fn map_network<N2>(self, f: impl FnOnce(N) -> N2) -> Scenario<N2, T> {
        Scenario {
            name: self.name,
            description: self.description,
            seed: self.seed,
            duration: self.duration,
            model: self.model,
            network: f(self.network),
            traffic: self.traffic,
            record: self.record,
            trace: self.trace,
        }
    }

    /// The seed, or the one-line reason there is none.
    pub fn require_seed(&self) -> Result<u64, ScenarioError> {
        self.seed.ok_or_else(|| ScenarioError::Whole {
            origin: self.name.clone(),
            message: "no seed: put `seed = N` in the scenario or pass --seed N".into(),
        })
    }

    /// Checks that `name` can name an output folder: letters, digits, `.`, `_`, `-`, not empty
    /// and not `.` or `..` (a name must never lead outside `--out`).
    pub fn check_name(&self, origin: &str) -> Result<(), ScenarioError> {
        let n = &self.name;
        let ok = !n.is_empty()
            && n != "."
            && n != ".."
            && n.len() <= 100
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if ok {
            Ok(())
        } else {
            Err(ScenarioError::Whole {
                origin: origin.into(),
                message: format!(
                    "name = {n:?}: a scenario's name names its output folder: 1-100 letters, digits, '.', '_' or '-' (not \".\" or \"..\")"
                ),
            })
        }
    }

    /// Checks that the run lasts: a `duration` of zero would end before anything happened and
    /// write a summary of nothing.
    pub fn check_duration(&self, origin: &str) -> Result<(), ScenarioError> {
        if self.duration.is_zero() {
            return Err(ScenarioError::Whole {
                origin: origin.into(),
                message: "duration = 0s: the run would end before anything happened; give a duration above zero".into(),
            });
        }
        Ok(())
    }

    /// Checks `record` names against what the model can write ([`Record::ALL`]); a name given
    /// twice is refused (issue 33: each entry multiplied the recording work).
    pub fn check_records<R: Record>(&self) -> Result<(), ScenarioError> {
        let known: Vec<&str> = R::ALL.iter().map(|(_, n)| *n).collect();
        for (k, r) in self.record.iter().enumerate() {
            if let Some(j) = self.record[..k].iter().position(|x| x == r) {
                return Err(ScenarioError::Whole {
                    origin: self.name.clone(),
                    message: format!(
                        "record: `{r}` is named twice (entries {j} and {k}): name each record once"
                    ),
                });
            }
        }
        match self.record.iter().find(|r| !known.contains(&r.as_str())) {
            None => Ok(()),
            Some(r) => Err(ScenarioError::Whole {
                origin: self.name.clone(),
                message: format!(
                    "record: unknown record `{r}` for model `{}` (expected one of {})",
                    self.model,
                    known.join(", ")
                ),
            }),
        }
    }

    /// The records `record` asks for, in its order (a name the model does not know, which
    /// [`Scenario::check_records`] refuses first, is left out).
    pub fn records<R: Record>(&self) -> Vec<R> {
        self.record.iter().filter_map(|n| R::named(n)).collect()
    }

    /// Whether `record` asks for `r`.
    pub fn wants<R: Record>(&self, r: R) -> bool {
        self.record.iter().any(|n| n == r.name())
    }
}

/// A model's records, as a type: each with the name a scenario's `record = [...]` gives it.
/// A run matches on them exhaustively, so a record added to a model and not written is a
/// compile error, and no model reads a record's name as a string.
pub trait Record: Copy + Eq + Sized + 'static {
    /// Every record of the model, with its name, in the order the model lists them.
    const ALL: &'static [(Self, &'static str)];

    /// The record's name in a scenario (`messages`, `lines`, ...).
    fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(r, _)| *r == self)
            .map_or("", |(_, n)| n)
    }

    /// The record called `name`, if the model has one.
    fn named(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(r, _)| *r)
    }
}

/// One path segment of an override: a table key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// A command-line override `path.to.key=value`. The value is read as a TOML value if it is
/// one (`3`, `true`, `"x"`, `[1, 2]`), otherwise as a string (`50kbit/s`, `640ms`).
#[derive(Clone, Debug)]
pub struct Override {
    text: String,
    path: Vec<Segment>,
    value: toml::Value,
}

impl Override {
    /// The top-level key this override sets, when it sets one (`model=imp` → `model`).
    pub fn top_key(&self) -> Option<&str> {
        match self.path.as_slice() {
            [Segment::Key(k)] => Some(k),
            _ => None,
        }
    }

    /// The value it sets.
    pub fn value(&self) -> &toml::Value {
        &self.value
    }

    /// An override of one top-level key (used for `--seed N`).
    pub fn top(key: &str, value: impl Into<toml::Value>) -> Self {
        let value = value.into();
        Override {
            text: format!("{key}={value}"),
            path: vec![Segment::Key(key.into())],
            value,
        }
    }
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Longest `--set` key (the part before `=`), bytes. **Choice**: 256, eight times the longest
/// key a scenario has (`traffic.N.arrivals.interval` and the like are under 40 bytes); checked
/// before the key is split, so a key of 20,000 segments is refused at once (issue 57 §4: it
/// took 21 s, each segment a table nested in the last).
pub const MAX_SET_KEY_BYTES: usize = 256;
/// Most segments in a `--set` key. **Choice**: 32; a scenario's keys are at most 5 deep.
pub const MAX_SET_KEY_SEGMENTS: usize = 32;

impl FromStr for Override {
    type Err = ScenarioError;
    fn from_str(s: &str) -> Result<Self, ScenarioError> {
        let bad = |m: &str| ScenarioError::Override {
            text: s.into(),
            message: m.into(),
        };
        let (lhs, rhs) = s
            .split_once('=')
            .ok_or_else(|| bad("expected path.to.key=value"))?;
        // Echoed shortened: the reason must fit on the error's line after it.
        let short = |m: String| ScenarioError::Override {
            text: format!("{}…", s.chars().take(40).collect::<String>()),
            message: m,
        };
        if lhs.len() > MAX_SET_KEY_BYTES {
            return Err(short(format!(
                "the key is {} bytes long, more than {MAX_SET_KEY_BYTES}",
                lhs.len()
            )));
        }
        let segments = lhs.split('.').count();
        if segments > MAX_SET_KEY_SEGMENTS {
            return Err(short(format!(
                "the key has {segments} segments, more than {MAX_SET_KEY_SEGMENTS}"
            )));
        }
        let path = lhs
            .trim()
            .split('.')
            .map(|seg| match seg.parse::<usize>() {
                Ok(i) => Ok(Segment::Index(i)),
                Err(_) if !seg.is_empty() => Ok(Segment::Key(seg.to_string())),
                Err(_) => Err(bad("empty key in path")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if !matches!(path.first(), Some(Segment::Key(_))) {
            return Err(bad("the path must start with a key"));
        }
        let rhs = rhs.trim();
        // Issue 33: a line break in the value used to end the TOML value there and drop the
        // rest without a word.
        if rhs.contains(['\n', '\r']) {
            return Err(bad(
                "the value holds a line break: a --set value is one line (write a list or a string on one line)",
            ));
        }
        let value = toml::from_str::<toml::Table>(&format!("v = {rhs}"))
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(rhs.to_string()));
        Ok(Override {
            text: s.into(),
            path,
            value,
        })
    }
}

fn apply(table: &mut toml::Table, o: &Override) -> Result<(), ScenarioError> {
    let bad = |m: String| ScenarioError::Override {
        text: o.text.clone(),
        message: m,
    };
    let mut cur: &mut toml::Value = match &o.path[0] {
        Segment::Key(k) if o.path.len() == 1 => {
            table.insert(k.clone(), o.value.clone());
            return Ok(());
        }
        Segment::Key(k) => table
            .entry(k.clone())
            .or_insert_with(|| toml::Value::Table(Default::default())),
        Segment::Index(_) => unreachable!("checked when parsed"),
    };
    for (depth, seg) in o.path.iter().enumerate().skip(1) {
        let last = depth == o.path.len() - 1;
        let here = path_text(&o.path[..depth]);
        cur = match (seg, cur) {
            (Segment::Key(k), toml::Value::Table(t)) => {
                if last {
                    t.insert(k.clone(), o.value.clone());
                    return Ok(());
                }
                t.entry(k.clone())
                    .or_insert_with(|| toml::Value::Table(Default::default()))
            }
            (Segment::Index(i), toml::Value::Array(a)) => {
                let len = a.len();
                let slot = a
                    .get_mut(*i)
                    .ok_or_else(|| bad(format!("`{here}` has {len} entries, no index {i}")))?;
                if last {
                    *slot = o.value.clone();
                    return Ok(());
                }
                slot
            }
            (Segment::Key(k), _) => {
                return Err(bad(format!(
                    "`{here}` is not a table, cannot set `{k}` in it"
                )));
            }
            (Segment::Index(i), _) => {
                return Err(bad(format!("`{here}` is not an array, cannot index [{i}]")));
            }
        };
    }
    Ok(())
}

fn path_text(path: &[Segment]) -> String {
    path.iter()
        .map(|s| match s {
            Segment::Key(k) => k.clone(),
            Segment::Index(i) => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Turns a toml error into `origin:line:col: <the line as written>: message`.
fn file_error(origin: &str, text: &str, e: &toml::de::Error) -> ScenarioError {
    let message = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1;
            let written = text.lines().nth(line - 1).unwrap_or("").trim();
            ScenarioError::File {
                origin: origin.into(),
                line,
                column,
                message: format!("`{written}`: {message}"),
            }
        }
        None => ScenarioError::Whole {
            origin: origin.into(),
            message,
        },
    }
}

/// Reads which model a scenario names (its top-level `model` key).
pub fn model_of(origin: &str, text: &str) -> Result<String, ScenarioError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| file_error(origin, text, &e))?;
    match table.get("model") {
        Some(toml::Value::String(m)) => Ok(m.clone()),
        Some(_) => Err(ScenarioError::Whole {
            origin: origin.into(),
            message: "`model` must be a string such as \"store-forward\"".into(),
        }),
        None => {
            // A key the scenario does not know is most likely `model` misspelt: name it.
            let unknown: Vec<String> = table
                .keys()
                .filter(|k| !TOP_LEVEL_KEYS.contains(&k.as_str()))
                .map(|k| format!("`{k}`"))
                .collect();
            let hint = if unknown.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} is not a scenario's key (one of {})",
                    unknown.join(", "),
                    TOP_LEVEL_KEYS.map(|k| format!("`{k}`")).join(", ")
                )
            };
            Err(ScenarioError::Whole {
                origin: origin.into(),
                message: format!(
                    "missing key `model` (which model runs this scenario, e.g. \"store-forward\"){hint}"
                ),
            })
        }
    }
}

/// The keys at the top of every scenario file ([`Scenario`]'s fields).
const TOP_LEVEL_KEYS: [&str; 9] = [
    "name",
    "description",
    "seed",
    "duration",
    "model",
    "network",
    "traffic",
    "record",
    "trace",
];

/// Parses `text` (from `origin`, a file name for messages) as `S`, then applies `overrides`.
pub fn load<S: DeserializeOwned>(
    origin: &str,
    text: &str,
    overrides: &[Override],
) -> Result<S, ScenarioError> {
    // Stage 1: as typed, so errors carry line numbers.
    let typed: S = toml::from_str(text).map_err(|e| file_error(origin, text, &e))?;
    if overrides.is_empty() {
        return Ok(typed);
    }
    // Stage 2: the overrides, checked again with the key path.
    let mut table: toml::Table = toml::from_str(text).map_err(|e| file_error(origin, text, &e))?;
    for o in overrides {
        apply(&mut table, o)?;
    }
    serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
        let path = e.path().to_string();
        let message = e.inner().message().trim().replace('\n', " ");
        // The path as serde writes it (`traffic[0].arrivals`), compared segment by segment
        // with each override's (issue 33's rule, [`override_at_fault`]); the root is `.`.
        let at = leading_path(&path).map_or_else(Vec::new, |(segments, _)| segments);
        let culprit = override_at_fault(overrides, &at, &message)
            .or(overrides.last())
            .map(|o| o.text.clone())
            .unwrap_or_default();
        ScenarioError::Override {
            text: culprit,
            message: format!("at `{path}`: {message}"),
        }
    })
}

/// Places a check that failed after the scenario was read (a value out of range, a node that
/// does not exist, two hosts on one IMP) where the input says it. Such checks live with the
/// models and report the key path they judged at the start of their message
/// (`traffic[0].arrivals.interval must be above zero`, `network.nodes: ...`). The error names:
/// - `--set TEXT` when an override set that key, a part of it, or a table holding it;
/// - otherwise `origin:line:column` of the key in `text`, or of the deepest table holding it
///   that is written there (a value left at its default is judged in its table);
/// - otherwise just `origin` (the message names no key, or a key the text does not write).
pub fn locate(origin: &str, text: &str, overrides: &[Override], message: &str) -> ScenarioError {
    let message = message.trim().replace('\n', " ");
    let whole = |message: String| ScenarioError::Whole {
        origin: origin.into(),
        message,
    };
    let Some((path, _)) = leading_path(&message) else {
        return whole(message);
    };
    if let Some(o) = override_at_fault(overrides, &path, &message) {
        return ScenarioError::Override {
            text: o.text.clone(),
            message,
        };
    }
    match offset_of(text, &path) {
        Some(at) => {
            let before = &text[..at.min(text.len())];
            ScenarioError::File {
                origin: origin.into(),
                line: before.matches('\n').count() + 1,
                column: before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1,
                message,
            }
        }
        None => whole(message),
    }
}

/// The `--set` a message about `path` is laid at (issue 33: sweeps named the wrong one). One
/// that set `path` or a table holding it is at fault (the last such, as the last one wins).
/// Overrides deeper than `path` (the message judges a table, `network.params: ...`) are at
/// fault only when one of them is, or when the message names its key; several, none named,
/// are no one's: the message is placed in the file instead.
fn override_at_fault<'a>(
    overrides: &'a [Override],
    path: &[Segment],
    message: &str,
) -> Option<&'a Override> {
    let related = |o: &&Override| {
        let n = o.path.len().min(path.len());
        o.path[..n] == path[..n]
    };
    if let Some(o) = overrides
        .iter()
        .rev()
        .filter(related)
        .find(|o| o.path.len() <= path.len())
    {
        return Some(o);
    }
    let deeper: Vec<&Override> = overrides.iter().filter(related).collect();
    if let [one] = deeper.as_slice() {
        return Some(one);
    }
    let names = |o: &&&Override| match o.path.last() {
        Some(Segment::Key(k)) => mentions(message, k),
        _ => false,
    };
    deeper.iter().rev().find(names).copied()
}

/// Does `text` name `key` as a whole word (`message` is not named by `message_numbers`)?
fn mentions(text: &str, key: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    text.match_indices(key).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + key.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// The key path a located message starts with, as written: `traffic[0].to` of
/// `traffic[0].to = 9: no such node`. Only meaningful for a message [`locate`] placed in a file.
pub fn leading_key(message: &str) -> Option<&str> {
    leading_path(message).map(|(_, len)| &message[..len])
}

/// The key path a message starts with, and its length in bytes: `traffic[0].to = 9: ...` →
/// (`traffic`, 0, `to`; 13).
fn leading_path(message: &str) -> Option<(Vec<Segment>, usize)> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let mut rest = message;
    let mut path = Vec::new();
    loop {
        if path.is_empty() || rest.starts_with('.') {
            let body = if path.is_empty() { rest } else { &rest[1..] };
            let len = body.find(|c| !is_ident(c)).unwrap_or(body.len());
            if len == 0 || !body.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                break;
            }
            path.push(Segment::Key(body[..len].to_string()));
            rest = &body[len..];
        } else if let Some(body) = rest.strip_prefix('[') {
            let len = body
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(body.len());
            match (body[..len].parse::<usize>(), body[len..].strip_prefix(']')) {
                (Ok(i), Some(after)) => {
                    path.push(Segment::Index(i));
                    rest = after;
                }
                _ => break,
            }
        } else {
            break;
        }
    }
    // A path ends where the words begin: `network.nodes: ...`, `traffic[0].to = 9`, `x must ...`.
    let ends_well = rest.is_empty() || rest.starts_with([':', ' ', '=']);
    (!path.is_empty() && ends_well).then(|| (path, message.len() - rest.len()))
}

/// The byte offset in `text` of the deepest part of `path` written there: a key, an array
/// element, or the table holding a key left at its default.
fn offset_of(text: &str, path: &[Segment]) -> Option<usize> {
    use toml::de::{DeTable, DeValue};
    let doc = DeTable::parse(text).ok()?;
    let mut best = None;
    let mut here: Option<&DeValue<'_>> = None;
    for seg in path {
        match seg {
            Segment::Key(k) => {
                let table = match here {
                    None => doc.get_ref(),
                    Some(DeValue::Table(t)) => t,
                    Some(_) => break,
                };
                let Some((key, value)) = table.iter().find(|(key, _)| key.get_ref() == k) else {
                    break;
                };
                best = Some(key.span().start);
                here = Some(value.get_ref());
            }
            Segment::Index(i) => {
                let Some(DeValue::Array(a)) = here else { break };
                let Some(v) = a.get(*i) else { break };
                best = Some(v.span().start);
                here = Some(v.get_ref());
            }
        }
    }
    best
}

/// SHA-256 (hex) of the resolved configuration's canonical JSON.
pub fn config_hash<S: Serialize>(resolved: &S) -> String {
    let json = serde_json::to_vec(resolved).expect("scenario types serialize to JSON");
    let digest = Sha256::digest(&json);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, Serialize)]
    #[serde(deny_unknown_fields)]
    struct Net {
        capacity: BitRate,
        nodes: u32,
    }
    #[derive(Debug, Deserialize, Serialize)]
    #[serde(deny_unknown_fields)]
    struct Src {
        interval: SimDuration,
    }
    type S = Scenario<Net, Src>;

    const TEXT: &str = r#"
name = "t"
seed = 1
duration = "10min"
model = "store-forward"

[network]
capacity = "50kbit/s"
nodes = 5

[[traffic]]
interval = "20.16ms"
"#;

    fn err(text: &str, sets: &[&str]) -> String {
        let sets: Vec<Override> = sets.iter().map(|s| s.parse().unwrap()).collect();
        load::<S>("s.toml", text, &sets).unwrap_err().to_string()
    }

    #[test]
    fn loads_and_overrides() {
        let s: S = load("s.toml", TEXT, &[]).unwrap();
        assert_eq!(s.network.capacity.bps(), 50_000);
        let sets: Vec<Override> = [
            "network.capacity=230.4kbit/s",
            "traffic.0.interval=1s",
            "seed=9",
        ]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
        let s: S = load("s.toml", TEXT, &sets).unwrap();
        assert_eq!(s.network.capacity.bps(), 230_400);
        assert_eq!(s.traffic[0].interval, SimDuration::from_secs(1));
        assert_eq!(s.seed, Some(9));
    }

    #[test]
    fn errors_name_line_and_key() {
        let e = err(&TEXT.replace("nodes = 5", "nodes = 5\nnodez = 3"), &[]);
        assert!(e.starts_with("s.toml:10:") && e.contains("nodez"), "{e}");
        let e = err(&TEXT.replace("\"50kbit/s\"", "50"), &[]);
        assert!(
            e.starts_with("s.toml:8:") && e.contains("capacity = 50"),
            "{e}"
        );
        let e = err(&TEXT.replace("50kbit/s", "50kbits/s"), &[]);
        assert!(e.contains("unknown unit `kbits/s`"), "{e}");
        let e = err("name = [", &[]);
        assert!(e.starts_with("s.toml:1:"), "{e}");
        assert!(!e.contains('\n'));
    }

    #[test]
    fn override_errors_name_the_override() {
        let e = err(TEXT, &["network.capacity=fast"]);
        assert!(
            e.starts_with("--set network.capacity=fast: at `network.capacity`"),
            "{e}"
        );
        let e = err(TEXT, &["network.bogus=1"]);
        assert!(e.contains("bogus"), "{e}");
        // A later override that is right is not blamed (a sweep appends `seed=N` last):
        // the fault is laid at the one whose key it names, on a table or at the top.
        let e = err(TEXT, &["traffic.0.intervall=1s", "seed=3"]);
        assert!(
            e.starts_with("--set traffic.0.intervall=1s: at `traffic[0]"),
            "{e}"
        );
        let e = err(TEXT, &["nodez=1", "seed=3"]);
        assert!(e.starts_with("--set nodez=1:"), "{e}");
        let e = err(TEXT, &["network.capacity=fast", "seed=3"]);
        assert!(e.starts_with("--set network.capacity=fast:"), "{e}");
        let e = err(TEXT, &["traffic.3.interval=1s"]);
        assert!(e.contains("no index 3"), "{e}");
        let e = err(TEXT, &["name.x=1"]);
        assert!(e.contains("not a table"), "{e}");
        assert!("novalue".parse::<Override>().is_err());
        // A line break would have ended the value there and dropped the rest.
        let e = "traffic.0.count=3\nduration=1s"
            .parse::<Override>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("line break"), "{e}");
    }

    #[test]
    fn model_and_seed_checks() {
        assert_eq!(model_of("s", TEXT).unwrap(), "store-forward");
        assert!(
            model_of("s", "name = 'x'")
                .unwrap_err()
                .to_string()
                .contains("missing key `model`")
        );
        // The list the hint gives is the scenario's own keys.
        let s: S = load("s.toml", TEXT, &[]).unwrap();
        let table = toml::Table::try_from(&s).unwrap();
        let mut keys: Vec<&str> = table.keys().map(String::as_str).collect();
        let mut known = TOP_LEVEL_KEYS.to_vec();
        keys.sort();
        known.sort();
        assert_eq!(keys, known);
        // A misspelt `model` is named: it is the key the scenario does not know.
        let e = model_of("s", "name = 'x'\nmodell = 'imp'")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("missing key `model`") && e.contains("`modell` is not a scenario's key"),
            "{e}"
        );
        let s: S = load("s.toml", &TEXT.replace("seed = 1\n", ""), &[]).unwrap();
        assert!(s.require_seed().unwrap_err().to_string().contains("--seed"));
    }

    #[test]
    fn checks_after_loading_name_the_line_of_their_key() {
        let text = format!(
            "{TEXT}\n[[traffic]]\ninterval = \"1s\"\nlength = {{ kind = \"fixed\", bits = \"0bit\" }}\n"
        );
        let at = |m: &str, sets: &[&str]| {
            let sets: Vec<Override> = sets.iter().map(|s| s.parse().unwrap()).collect();
            locate("s.toml", &text, &sets, m).to_string()
        };
        // A key written in the file: its own line and column.
        assert_eq!(
            at("network.nodes: a network needs at least 2 nodes", &[]),
            "s.toml:9:1: network.nodes: a network needs at least 2 nodes"
        );
        // The second [[traffic]] entry, a key inside an inline table.
        assert_eq!(
            at("traffic[1].length.bits must be above zero", &[]),
            "s.toml:16:28: traffic[1].length.bits must be above zero"
        );
        assert!(at("traffic[1]: from and to are both node 0", &[]).starts_with("s.toml:1"));
        assert_eq!(
            leading_key("traffic[1].length.bits must be above zero"),
            Some("traffic[1].length.bits")
        );
        // A key left at its default: the table that holds it.
        assert!(at("network.queue_limit must be at least 1", &[]).starts_with("s.toml:7:"));
        // Set on the command line: the override, not the file.
        assert_eq!(
            at("network.nodes: too few", &["network.nodes=1"]),
            "--set network.nodes=1: network.nodes: too few"
        );
        assert!(at("traffic[1].interval: x", &["traffic.1=3"]).starts_with("--set traffic.1=3"));
        // No key path, or one the file does not write: the file alone.
        assert_eq!(
            at("no seed: pass --seed", &[]),
            "s.toml: no seed: pass --seed"
        );
        assert_eq!(
            at("bogus.key must be 1", &[]),
            "s.toml: bogus.key must be 1"
        );
        assert_eq!(
            at("--rate must be above zero", &[]),
            "s.toml: --rate must be above zero"
        );
    }

    #[test]
    fn a_message_about_a_table_is_laid_at_the_set_it_names_not_the_last_one() {
        // Issue 33, class 5: a sweep's configuration sets several keys of one table; the
        // error judged the table and was laid at whichever --set came last.
        let at = |m: &str, sets: &[&str]| {
            let sets: Vec<Override> = sets.iter().map(|s| s.parse().unwrap()).collect();
            locate("s.toml", TEXT, &sets, m).to_string()
        };
        let sets = ["network.nodes=0", "network.queue_limit=6", "duration=1s"];
        assert!(
            at("network: nodes must be at least 2", &sets).starts_with("--set network.nodes=0:"),
            "{}",
            at("network: nodes must be at least 2", &sets)
        );
        // Several set below it, none named: no --set is blamed.
        assert!(at("network: inconsistent", &sets).starts_with("s.toml"));
        // One set below it: that one (it is the only change there).
        assert!(
            at("network: inconsistent", &["network.nodes=0"]).starts_with("--set network.nodes=0")
        );
        // A key is named as a word, not inside another: `queue` is not `queue_limit`.
        assert!(!mentions("queue_limit must be 1", "queue"));
        assert!(mentions("network: queue_limit, or nodes", "nodes"));
        // The message's own key, or a table above it, set: that --set, last one winning.
        assert!(
            at(
                "network.nodes: too few",
                &["network.nodes=1", "network.queue_limit=3"]
            )
            .starts_with("--set network.nodes=1")
        );
        assert!(
            at("network.nodes: too few", &["network={ nodes = 1 }"]).starts_with("--set network=")
        );
    }

    #[test]
    fn hash_follows_the_resolved_config() {
        let a: S = load("s.toml", TEXT, &[]).unwrap();
        let b: S = load("s.toml", TEXT, &["seed=2".parse().unwrap()]).unwrap();
        assert_eq!(config_hash(&a), config_hash(&a));
        assert_ne!(config_hash(&a), config_hash(&b));
        assert_eq!(config_hash(&a).len(), 64);
    }
}
