//! The sweep file and the plan it makes: every configuration (cases × grid points) × every
//! seed, each resolved and checked before anything runs.

use anyhow::{Context as _, Result, bail};
use nmc_run::{RunOptions, resolve_text};
use nmc_scenario::Override;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The sweep file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepFile {
    /// A scenario file (relative to the sweep file) or a built-in scenario's name.
    base: String,
    /// Free text for people.
    #[serde(default)]
    #[allow(dead_code)]
    description: String,
    /// The seeds every configuration runs with.
    seeds: Seeds,
    /// Overrides applied to every run (not a column of the tables).
    set: Option<toml::Table>,
    /// Keys, each with a list of values: every combination runs.
    grid: Option<toml::Table>,
    /// Explicit override sets; each is combined with every grid point.
    cases: Option<Vec<toml::Table>>,
    /// Metrics to keep (default: every metric of the run's summary).
    metrics: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Seeds {
    from: u64,
    count: u64,
}

/// Largest number of runs one sweep may plan (a typo such as `count = 1e9` is an error, not a
/// plan that fills memory).
pub const MAX_RUNS: u64 = 1_000_000;

/// Runs resolved at a time when a plan is checked (issue 57 §3): enough to keep every thread
/// busy (a run resolves in well under a millisecond), few enough that a failure stops the
/// check within a second rather than after all [`MAX_RUNS`] runs.
const CHECK_CHUNK: usize = 4096;

/// A sweep file read and its base scenario found; nothing resolved yet.
pub struct Sweep {
    /// The sweep file's path as given, for messages.
    pub origin: String,
    /// `base` as written in the sweep file.
    pub base: String,
    /// The base scenario's label in messages (its path, or `NAME (built-in)`).
    base_origin: String,
    base_text: String,
    seeds: Seeds,
    fixed: Vec<(String, toml::Value)>,
    grid: Vec<(String, Vec<toml::Value>)>,
    cases: Vec<Vec<(String, toml::Value)>>,
    /// The sweep file's `metrics`: the metrics to keep, each of which every run must report;
    /// `None`: every metric of each run's summary.
    pub metrics: Option<Vec<String>>,
}

/// One run of the plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// Position in the plan: configuration-major, seed-minor.
    pub index: usize,
    /// Which configuration (case × grid point), in plan order.
    pub config: usize,
    /// The seed it runs with.
    pub seed: u64,
    /// SHA-256 of the resolved scenario, seed included (what `summary.json` calls
    /// `config_hash`); names the run's result file.
    pub config_hash: String,
}

/// A run that could not be resolved or run: which, and the one-line message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunError {
    /// Position in the plan.
    pub index: usize,
    /// Which configuration, in plan order.
    pub config: usize,
    /// The seed it was to run with.
    pub seed: u64,
    /// What went wrong, naming the sweep file, the configuration (by its overrides) and the
    /// seed.
    pub message: String,
}

/// One configuration: the swept keys' values (as shown in the tables) and its overrides.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Config {
    /// Value of each swept key, in the plan's column order; `None` where this configuration
    /// leaves the key at the base scenario's value.
    pub values: Vec<Option<String>>,
    /// Every `--set` this configuration applies (fixed ones first), as `key=value`.
    pub sets: Vec<String>,
}

/// Everything a sweep will run, resolved and checked; written as `sweep.json` in the output
/// folder (identical for every shard and for the merged folder).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// `base` as written in the sweep file.
    pub base: String,
    /// The swept keys: the table columns before `seed`.
    pub keys: Vec<String>,
    /// Every configuration (cases × grid points), in plan order; [`Run::config`] indexes it.
    pub configs: Vec<Config>,
    /// Every run (configuration × seed), configuration-major; [`Run::index`] is its position.
    pub runs: Vec<Run>,
    /// Metrics to keep; `None`: all of each run's metrics.
    pub metrics: Option<Vec<String>>,
}

impl Sweep {
    /// Reads and checks the sweep file at `path` and finds its base scenario. Errors are one
    /// line and name the file.
    pub fn load(path: &Path) -> Result<Sweep> {
        let origin = path.display().to_string();
        let text = read_small(path).with_context(|| format!("reading {origin}"))?;
        // The base: a file next to the sweep file, else a built-in scenario.
        let dir = path.parent().unwrap_or(Path::new(""));
        Sweep::parse(&origin, &text, |base| {
            let base_path: PathBuf = dir.join(base);
            if base_path.is_file() {
                let t = read_small(&base_path)
                    .with_context(|| format!("{origin}: base: reading {}", base_path.display()))?;
                Ok((base_path.display().to_string(), t))
            } else if let Some(t) = nmc_run::builtin::find(base) {
                Ok((format!("{base} (built-in)"), t.to_string()))
            } else {
                bail!(
                    "{origin}: base = {base:?}: no such file ({}) and no built-in scenario of that name (`nmc scenarios` lists them)",
                    base_path.display()
                )
            }
        })
    }

    /// Reads and checks sweep file `text` (`origin` names it in messages); `find_base` turns
    /// its `base` into the base scenario's label and text. What [`Sweep::load`] does after
    /// reading the file, for callers that hold the text (the Python package).
    pub fn parse(
        origin: &str,
        text: &str,
        find_base: impl FnOnce(&str) -> Result<(String, String)>,
    ) -> Result<Sweep> {
        let origin = origin.to_string();
        let f: SweepFile = nmc_scenario::load(&origin, text, &[])?;
        let bad = |m: String| anyhow::anyhow!("{origin}: {m}");
        let (base_origin, base_text) = find_base(&f.base)?;
        if f.seeds.count == 0 {
            return Err(bad("seeds.count = 0: at least one seed".into()));
        }
        if f.seeds
            .from
            .checked_add(f.seeds.count - 1)
            .is_none_or(|last| last > i64::MAX as u64)
        {
            return Err(bad(format!(
                "seeds = {{ from = {}, count = {} }}: the last seed must be at most 2^63 - 1",
                f.seeds.from, f.seeds.count
            )));
        }
        let fixed = match &f.set {
            Some(t) => {
                let v = flatten_sets(t).map_err(|m| bad(format!("set: {m}")))?;
                if v.is_empty() {
                    return Err(bad("[set] is empty: remove it or give keys".into()));
                }
                v
            }
            None => Vec::new(),
        };
        let grid = match &f.grid {
            Some(t) => {
                let mut g = Vec::new();
                flatten_grid("", t, &mut g).map_err(|m| bad(format!("grid: {m}")))?;
                if g.is_empty() {
                    return Err(bad(
                        "[grid] is empty: give each swept key a list of values, e.g. \"network.line.queue_limit\" = [4, 8]".into(),
                    ));
                }
                g
            }
            None => Vec::new(),
        };
        let cases = match &f.cases {
            Some(cs) if cs.is_empty() => {
                return Err(bad(
                    "cases = []: give at least one case, or remove `cases`".into()
                ));
            }
            Some(cs) => cs
                .iter()
                .enumerate()
                .map(|(i, t)| flatten_sets(t).map_err(|m| bad(format!("cases[{i}]: {m}"))))
                .collect::<Result<Vec<_>>>()?,
            None => Vec::new(),
        };
        // A key has one source: fixed, grid, or cases (any number of cases).
        let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
        let keys = fixed
            .iter()
            .map(|(k, _)| (k.as_str(), "set"))
            .chain(grid.iter().map(|(k, _)| (k.as_str(), "grid")))
            .chain(
                cases
                    .iter()
                    .flatten()
                    .map(|(k, _)| (k.as_str(), "cases"))
                    .collect::<BTreeSet<_>>(),
            );
        for (k, from) in keys {
            if k == "seed" || k.starts_with("seed.") {
                return Err(bad(format!(
                    "{from}: `seed` is not swept by key: the seeds come from `seeds`"
                )));
            }
            if let Some(first) = seen.insert(k, from) {
                return Err(bad(format!(
                    "`{k}` is given in both `{first}` and `{from}`: a key comes from one of them"
                )));
            }
        }
        // Keys that overlap (`a` and `a.b`) would make a value depend on order.
        for (a, b) in seen.keys().flat_map(|a| seen.keys().map(move |b| (a, b))) {
            if b.starts_with(&format!("{a}.")) {
                return Err(bad(format!(
                    "`{a}` and `{b}` both set: one is inside the other"
                )));
            }
        }
        if let Some(m) = &f.metrics {
            if m.is_empty() {
                return Err(bad(
                    "metrics = []: name at least one, or remove `metrics` to keep them all".into(),
                ));
            }
            let mut s = BTreeSet::new();
            if let Some(d) = m.iter().find(|x| !s.insert(x.as_str())) {
                return Err(bad(format!("metrics: `{d}` named twice")));
            }
        }
        // Issue 33: checked, so that 64 keys of two values are refused, not wrapped to 0.
        nmc_sim::limits::product(
            "runs (cases × grid values × seeds)",
            std::iter::once(cases.len().max(1) as u64)
                .chain(grid.iter().map(|(_, v)| v.len() as u64))
                .chain([f.seeds.count]),
            MAX_RUNS,
            " runs",
        )
        .map_err(|e| bad(e.to_string()))?;
        Ok(Sweep {
            origin,
            base: f.base,
            base_origin,
            base_text,
            seeds: f.seeds,
            fixed,
            grid,
            cases,
            metrics: f.metrics,
        })
    }

    /// The base scenario's label and text.
    pub fn base_scenario(&self) -> (&str, &str) {
        (&self.base_origin, &self.base_text)
    }

    /// The swept keys, in column order: the grid's (alphabetical), then those only cases set.
    fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.grid.iter().map(|(k, _)| k.clone()).collect();
        let case_keys: BTreeSet<&String> = self.cases.iter().flatten().map(|(k, _)| k).collect();
        keys.extend(case_keys.into_iter().cloned());
        keys
    }

    /// Every configuration in plan order: cases outer (as listed), grid points inner (the
    /// last grid key varying fastest).
    fn configs(&self) -> Vec<Vec<(String, toml::Value)>> {
        let mut points: Vec<Vec<(String, toml::Value)>> = vec![Vec::new()];
        for (k, values) in &self.grid {
            points = points
                .into_iter()
                .flat_map(|p| {
                    values.iter().map(move |v| {
                        let mut q = p.clone();
                        q.push((k.clone(), v.clone()));
                        q
                    })
                })
                .collect();
        }
        let cases: Vec<Vec<(String, toml::Value)>> = if self.cases.is_empty() {
            vec![Vec::new()]
        } else {
            self.cases.clone()
        };
        cases
            .iter()
            .flat_map(|c| {
                points.iter().map(move |p| {
                    let mut all = self.fixed.clone();
                    all.extend(c.iter().cloned());
                    all.extend(p.iter().cloned());
                    all
                })
            })
            .collect()
    }

    /// Resolves every run (configuration × seed): applies the overrides, builds the model
    /// once to check it, and computes the run's config hash. Runs on the current rayon pool.
    /// The first bad configuration is the error, named by its overrides.
    ///
    /// Issue 57 §3: the first run is resolved before the plan is expanded, and the rest in
    /// plan-order chunks of 4096 runs that stop at the first failure, so that a bad key
    /// in a 10⁶-run sweep is refused at once, not after building every configuration.
    pub fn plan(&self) -> Result<Plan> {
        if let Some(first) = self.first_config() {
            let (sets, parsed) = self.overrides_of(0, &first)?;
            self.resolve_run(0, &sets, &parsed, self.seeds.from)?;
        }
        let (plan, errors) = self.plan_inner(true)?;
        match errors.into_iter().next() {
            Some(e) => Err(anyhow::anyhow!("{}", e.message)),
            None => Ok(plan),
        }
    }

    /// The first configuration in plan order (what [`Sweep::configs`] lists first), without
    /// expanding the others; `None` if the sweep has no run.
    fn first_config(&self) -> Option<Vec<(String, toml::Value)>> {
        if self.seeds.count == 0 {
            return None;
        }
        let mut all = self.fixed.clone();
        if let Some(c) = self.cases.first() {
            all.extend(c.iter().cloned());
        }
        for (k, values) in &self.grid {
            all.push((k.clone(), values.first()?.clone()));
        }
        Some(all)
    }

    /// Configuration `ci`'s overrides `c`, as `--set` texts and parsed.
    fn overrides_of(
        &self,
        ci: usize,
        c: &[(String, toml::Value)],
    ) -> Result<(Vec<String>, Vec<Override>)> {
        let mut sets = Vec::new();
        let mut parsed = Vec::new();
        for (k, v) in c {
            let text = format!("{k}={}", toml_text(v));
            let o: Override = text
                .parse()
                .map_err(|e| anyhow::anyhow!("{}: configuration {}: {e}", self.origin, ci + 1))?;
            sets.push(text);
            parsed.push(o);
        }
        Ok((sets, parsed))
    }

    /// Resolves configuration `ci` (its `--set` texts `sets`, parsed `parsed`) with `seed`: its
    /// configuration hash, or the error as the plan reports it.
    fn resolve_run(
        &self,
        ci: usize,
        sets: &[String],
        parsed: &[Override],
        seed: u64,
    ) -> Result<String> {
        let (origin, text) = self.base_scenario();
        let opts = RunOptions {
            seed: Some(seed),
            sets: parsed.to_vec(),
            out: None,
            trace_limit: None,
        };
        let r = resolve_text(origin, text, &opts).map_err(|e| {
            anyhow::anyhow!(
                "{}: configuration {} ({}), seed {seed}: {e:#}",
                self.origin,
                ci + 1,
                describe(sets),
            )
        })?;
        Ok(r.config_hash)
    }

    /// As [`Sweep::plan`], but a run that does not resolve (a bad value in one configuration)
    /// stays in the plan with an empty `config_hash` and its error in the list, in plan order,
    /// instead of failing the whole plan. Errors of the sweep file itself still fail.
    pub fn plan_keeping_errors(&self) -> Result<(Plan, Vec<RunError>)> {
        self.plan_inner(false)
    }

    /// The plan; with `stop`, resolution stops after the first chunk that holds a failure
    /// (the plan is then incomplete: only its first error is meant to be used).
    fn plan_inner(&self, stop: bool) -> Result<(Plan, Vec<RunError>)> {
        use rayon::prelude::*;
        let keys = self.keys();
        let mut configs = Vec::new();
        let mut overrides = Vec::new();
        for (ci, c) in self.configs().into_iter().enumerate() {
            let (sets, parsed) = self.overrides_of(ci, &c)?;
            let values = keys
                .iter()
                .map(|k| c.iter().find(|(ck, _)| ck == k).map(|(_, v)| cell_text(v)))
                .collect();
            configs.push(Config { values, sets });
            overrides.push(parsed);
        }
        let seeds: Vec<u64> = (0..self.seeds.count).map(|i| self.seeds.from + i).collect();
        let pairs: Vec<(usize, u64)> = (0..configs.len())
            .flat_map(|c| seeds.iter().map(move |&s| (c, s)))
            .collect();
        // Every run is checked (in chunks, see [`Sweep::plan`]); the first failure in plan order is the error (the same one
        // whatever the threads).
        let mut checked: Vec<Result<Run>> = Vec::with_capacity(pairs.len());
        for (chunk_at, chunk) in pairs.chunks(CHECK_CHUNK).enumerate() {
            let part: Vec<Result<Run>> = chunk
                .par_iter()
                .enumerate()
                .map(|(i, &(config, seed))| {
                    let index = chunk_at * CHECK_CHUNK + i;
                    let config_hash =
                        self.resolve_run(config, &configs[config].sets, &overrides[config], seed)?;
                    Ok(Run {
                        index,
                        config,
                        seed,
                        config_hash,
                    })
                })
                .collect();
            let failed = part.iter().any(Result::is_err);
            checked.extend(part);
            if stop && failed {
                break;
            }
        }
        let mut runs = Vec::with_capacity(checked.len());
        let mut errors = Vec::new();
        for (index, r) in checked.into_iter().enumerate() {
            match r {
                Ok(run) => runs.push(run),
                Err(e) => {
                    let (config, seed) = pairs[index];
                    errors.push(RunError {
                        index,
                        config,
                        seed,
                        message: format!("{e:#}"),
                    });
                    runs.push(Run {
                        index,
                        config,
                        seed,
                        config_hash: String::new(),
                    });
                }
            }
        }
        let plan = Plan {
            base: self.base.clone(),
            keys,
            configs,
            runs,
            metrics: self.metrics.clone(),
        };
        Ok((plan, errors))
    }
}

fn describe(sets: &[String]) -> String {
    if sets.is_empty() {
        "the base scenario".into()
    } else {
        sets.iter()
            .map(|s| format!("--set {s}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Reads a small text file (at most [`nmc_sim::limits::MAX_TEXT_BYTES`]).
fn read_small(path: &Path) -> Result<String> {
    Ok(nmc_sim::limits::read_text(
        path,
        nmc_sim::limits::MAX_TEXT_BYTES,
    )?)
}

/// A value as TOML text (`"30ms"`, `4`, `[1, 2]`), as `--set` reads it back.
fn toml_text(v: &toml::Value) -> String {
    v.to_string()
}

/// A value as a table cell: a string as itself, anything else as TOML.
fn cell_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => toml_text(other),
    }
}

/// `set` and cases: tables are paths (`a.b = 1` and `"a.b" = 1` are the same key), every
/// other value is a leaf.
fn flatten_sets(t: &toml::Table) -> Result<Vec<(String, toml::Value)>, String> {
    fn walk(prefix: &str, t: &toml::Table, out: &mut Vec<(String, toml::Value)>) {
        for (k, v) in t {
            let key = join(prefix, k);
            match v {
                toml::Value::Table(inner) if !inner.is_empty() => walk(&key, inner, out),
                other => out.push((key, other.clone())),
            }
        }
    }
    let mut out = Vec::new();
    walk("", t, &mut out);
    out.sort_by(|a, b| a.0.cmp(&b.0));
    for w in out.windows(2) {
        if w[0].0 == w[1].0 {
            return Err(format!("`{}` given twice", w[0].0));
        }
    }
    Ok(out)
}

/// The grid: tables are paths, lists are a key's values.
fn flatten_grid(
    prefix: &str,
    t: &toml::Table,
    out: &mut Vec<(String, Vec<toml::Value>)>,
) -> Result<(), String> {
    for (k, v) in t {
        let key = join(prefix, k);
        match v {
            toml::Value::Table(inner) => flatten_grid(&key, inner, out)?,
            toml::Value::Array(values) if values.is_empty() => {
                return Err(format!(
                    "`{key}` = []: a swept key needs at least one value"
                ));
            }
            toml::Value::Array(values) => {
                let mut seen = BTreeSet::new();
                if let Some(d) = values.iter().find(|v| !seen.insert(v.to_string())) {
                    return Err(format!("`{key}`: value {d} listed twice"));
                }
                out.push((key, values.clone()));
            }
            other => {
                return Err(format!(
                    "`{key}` = {other}: a swept key takes a list of values, e.g. [{other}]"
                ));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    for w in out.windows(2) {
        if w[0].0 == w[1].0 {
            return Err(format!("`{}` given twice", w[0].0));
        }
    }
    Ok(())
}

fn join(prefix: &str, k: &str) -> String {
    if prefix.is_empty() {
        k.to_string()
    } else {
        format!("{prefix}.{k}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `text` as a sweep file in a fresh folder and loads it.
    fn load(name: &str, text: &str) -> Result<Sweep> {
        let dir =
            std::env::temp_dir().join(format!("nmc-sweep-plan-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.toml");
        std::fs::write(&path, text).unwrap();
        let r = Sweep::load(&path);
        let _ = std::fs::remove_dir_all(&dir);
        r
    }

    const HEAD: &str = "base = \"md1\"\nseeds = { from = 5, count = 2 }\n";

    #[test]
    fn plan_order_cases_outer_grid_inner_last_key_fastest() {
        let s = load(
            "order",
            &format!(
                "{HEAD}[set]\nduration = \"1min\"\n[grid]\n\"network.line.queue_limit\" = [4, 8]\nnetwork.line.propagation = [\"0ms\", \"1ms\", \"2ms\"]\n[[cases]]\ntraffic.0.length.bits = \"500bit\"\n[[cases]]\n\"network.line.capacity\" = \"100kbit/s\"\n"
            ),
        )
        .unwrap();
        let p = s.plan().unwrap();
        assert_eq!(
            p.keys,
            [
                "network.line.propagation",
                "network.line.queue_limit",
                "network.line.capacity",
                "traffic.0.length.bits"
            ]
        );
        assert_eq!(p.configs.len(), 2 * 3 * 2);
        assert_eq!(p.runs.len(), 24);
        let row = |c: &Config| -> Vec<String> {
            c.values
                .iter()
                .map(|v| v.clone().unwrap_or_default())
                .collect()
        };
        assert_eq!(row(&p.configs[0]), ["0ms", "4", "", "500bit"]);
        assert_eq!(row(&p.configs[1]), ["0ms", "8", "", "500bit"]);
        assert_eq!(row(&p.configs[2]), ["1ms", "4", "", "500bit"]);
        assert_eq!(row(&p.configs[6]), ["0ms", "4", "100kbit/s", ""]);
        assert_eq!(
            p.configs[0].sets,
            [
                "duration=\"1min\"",
                "traffic.0.length.bits=\"500bit\"",
                "network.line.propagation=\"0ms\"",
                "network.line.queue_limit=4"
            ]
        );
        // Seeds minor, indices in order, every hash distinct (seed and values differ).
        assert_eq!(
            p.runs[..3]
                .iter()
                .map(|r| (r.index, r.config, r.seed))
                .collect::<Vec<_>>(),
            [(0, 0, 5), (1, 0, 6), (2, 1, 5)]
        );
        let hashes: BTreeSet<&str> = p.runs.iter().map(|r| r.config_hash.as_str()).collect();
        assert_eq!(hashes.len(), 24);
        // The same file plans the same hashes.
        assert_eq!(s.plan().unwrap(), p);
    }

    #[test]
    fn a_configuration_that_does_not_resolve_is_kept_with_its_error() {
        let text = format!(
            "{HEAD}[set]\nduration = \"1min\"\n[grid]\n\"traffic.0.arrivals.mean_interval\" = [\"80.64ms\", \"-3ms\"]\n"
        );
        // The base given as text (as the Python package gives it), not found from a file.
        let md1 = nmc_run::builtin::find("md1").unwrap();
        let s = Sweep::parse("t.toml", &text, |base| {
            assert_eq!(base, "md1");
            Ok(("md1 (given)".into(), md1.into()))
        })
        .unwrap();
        let (p, errors) = s.plan_keeping_errors().unwrap();
        assert_eq!(p.runs.len(), 4);
        // Configuration 2 (both its seeds) failed; its runs stay in place, hash empty.
        assert_eq!(
            errors
                .iter()
                .map(|e| (e.index, e.config, e.seed))
                .collect::<Vec<_>>(),
            [(2, 1, 5), (3, 1, 6)]
        );
        assert!(
            errors[0].message.starts_with("t.toml: configuration 2 ("),
            "{}",
            errors[0].message
        );
        assert!(!errors[0].message.contains('\n'));
        assert!(p.runs[..2].iter().all(|r| r.config_hash.len() == 64));
        assert!(p.runs[2..].iter().all(|r| r.config_hash.is_empty()));
        // `plan` refuses the same sweep with the first error.
        let e = s.plan().unwrap_err().to_string();
        assert_eq!(e, errors[0].message);
        // A good run, run from what a remote worker is sent, carries the planned hash.
        let r = &p.runs[1];
        let res = crate::run_config(
            "md1 (given)",
            md1,
            &p.configs[r.config].sets,
            r.seed,
            &r.config_hash,
            &|_| {},
        )
        .unwrap();
        assert_eq!(
            (res.seed, res.config_hash.as_str()),
            (6, r.config_hash.as_str())
        );
        assert!(res.metrics["delay.mean_ms"] > 0.0);
    }

    #[test]
    fn the_shipped_example_plans_200_runs() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sweeps/md1-load.toml");
        let p = Sweep::load(&path).unwrap().plan().unwrap();
        assert_eq!((p.configs.len(), p.runs.len()), (10, 200));
        assert_eq!(p.keys, ["traffic.0.arrivals.mean_interval"]);
    }

    #[test]
    fn hash_is_what_nmc_run_writes() {
        let s = load("hash", &format!("{HEAD}[grid]\nduration = [\"1min\"]\n")).unwrap();
        let p = s.plan().unwrap();
        let dir = std::env::temp_dir().join(format!("nmc-sweep-hash-{}", std::process::id()));
        let opts = RunOptions {
            seed: Some(6),
            sets: vec!["duration=1min".parse().unwrap()],
            out: Some(dir.clone()),
            trace_limit: None,
        };
        let (origin, text) = s.base_scenario();
        let r = nmc_run::run_text(origin, text, &opts, &|_| {}).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(r.summary.config_hash, p.runs[1].config_hash);
    }

    #[test]
    fn bad_files_are_one_line_errors_naming_the_file() {
        for (text, want) in [
            (
                format!("{HEAD}gird = {{ a = [1] }}\n"),
                "unknown field `gird`",
            ),
            (format!("{HEAD}[grid]\n"), "[grid] is empty"),
            (
                format!("{HEAD}[grid]\nduration = []\n"),
                "at least one value",
            ),
            (
                format!("{HEAD}[grid]\nduration = \"1min\"\n"),
                "takes a list",
            ),
            (
                format!("{HEAD}[grid]\nduration = [\"1min\", \"1min\"]\n"),
                "listed twice",
            ),
            (
                format!("{HEAD}[grid]\nseed = [1, 2]\n"),
                "`seed` is not swept",
            ),
            (format!("{HEAD}cases = []\n"), "at least one case"),
            (format!("{HEAD}metrics = []\n"), "at least one"),
            (format!("{HEAD}metrics = [\"a\", \"a\"]\n"), "named twice"),
            (
                "base = \"md1\"\nseeds = { from = 1, count = 0 }\n".into(),
                "count = 0",
            ),
            (
                "base = \"md1\"\nseeds = { from = 1 }\n".into(),
                "missing field `count`",
            ),
            (
                "base = \"nope\"\nseeds = { from = 1, count = 1 }\n".into(),
                "no built-in scenario",
            ),
            (
                format!("{HEAD}[set]\nduration = \"1min\"\n[grid]\nduration = [\"2min\"]\n"),
                "both `set` and `grid`",
            ),
            (
                format!(
                    "{HEAD}[set]\nnetwork.line = {{}}\n[grid]\nnetwork.line.queue_limit = [2]\n"
                ),
                "one is inside the other",
            ),
            (format!("{HEAD}[grid]\n\"network..x\" = [1]\n"), "empty key"),
        ] {
            let e = match load("bad", &text).and_then(|s| s.plan()) {
                Ok(_) => panic!("no error for\n{text}"),
                Err(e) => format!("{e:#}"),
            };
            assert!(e.contains("s.toml") && e.contains(want), "{e}\nfor\n{text}");
            assert!(!e.contains('\n'), "{e}");
        }
        // Values and keys the scenario refuses, named by configuration and override.
        for (grid, want) in [
            (
                "\"network.line.capacity\" = [\"50kbit/s\", \"fast\"]",
                "configuration 2",
            ),
            ("\"network.line.bogus\" = [1]", "unknown field `bogus`"),
            ("\"traffic.3.from\" = [1]", "no index 3"),
        ] {
            let s = load("bad-value", &format!("{HEAD}[grid]\n{grid}\n")).unwrap();
            let e = format!("{:#}", s.plan().unwrap_err());
            assert!(e.starts_with(&s.origin) && e.contains(want), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
