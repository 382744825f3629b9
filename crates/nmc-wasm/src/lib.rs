//! # nmc-wasm — nmc in a browser
//!
//! The simulation, unchanged, compiled to `wasm32-unknown-unknown` and called from the static
//! page in `web/` (built by `scripts/build-web.sh`). Nothing here models anything: every call
//! is a thin wrapper over `nmc_run`, so a run in the page is the run `nmc run` makes with the
//! same scenario text, overrides and seed, and its summary has the same bytes, its time slices
//! those of the `slices.json` it writes (tested natively in `tests/native.rs`, and in wasm by
//! `tests/wasm/summary.test.js` under Node).
//!
//! | item | what | Rust behind it |
//! | --- | --- | --- |
//! | [`summary`] | one run: the text of the `summary.json` `nmc run` would write | [`nmc_run::summary_text`] |
//! | [`slices`] | one run with time slices (K&O Figs. 2, 7, 8) at instants [`slices_set`] asks for: `slices.json`'s slices, the measured pair's path with its coordinates, the map's sites, each line's utilisation ([`SliceRun`]) | [`nmc_run::imp_outcome_text`], [`nmc_imp::topology::site_coordinates`] |
//! | [`call`] | a [`Request`] as JSON in, a [`Reply`] as JSON out: what the page asks | [`summary`], [`slices`], [`nmc_run::builtin`] |
//! | `abi` (wasm32 only) | the exports `nmc_alloc`, `nmc_call`, `nmc_reply_ptr` and the import `nmc.progress` | [`call`] |
//!
//! ## The interface: three C functions, JSON through linear memory
//!
//! The page's loader (`web/nmc-wasm.js`, about 50 lines) writes a request's UTF-8 JSON into a
//! buffer from `nmc_alloc(len)`, calls `nmc_call(ptr, len)` (which takes the buffer back and
//! returns the reply's length) and reads the reply at `nmc_reply_ptr()`. Progress reaches JS
//! through the imported function `progress(fraction)` of module `nmc`. plotters (through
//! `nmc-report`'s charts) brings wasm-bindgen into the build on this target, and with it
//! placeholder imports that no run calls; the loader gives each a function that throws.
//!
//! **Why not wasm-bindgen** (measured 2026-11-29 on the 2-core machine CI runs on): its JS glue
//! is written by the `wasm-bindgen` CLI, which must be the crate's exact version and is not
//! in Debian's packages, so CI would build it from source: `cargo install wasm-bindgen-cli
//! --version =0.2.130` took 19 min 10 s of wall time beside another build, 10.8 min of CPU
//! (at best about 5½ min on 2 idle cores), on top of CI's 67 of 90 minutes. And `--locked`
//! fails here (its lock file names a `webpki-roots` release the registry does not have), so
//! the pinned CLI would be built from freshly resolved dependencies each time. The interface
//! is three functions with JSON in and out; a hand-written loader costs nothing to install.
//!
//! Errors are a [`Reply`] with `error`: the one line `nmc run` prints. Nothing panics on bad
//! input.

#![warn(missing_docs)]

use anyhow::{Result, bail};
use nmc_imp::observe::TimeSlice;
use nmc_imp::spec::TopologySpec;
use nmc_imp::topology::{Routes, Topology};
use nmc_run::RunOptions;
use nmc_scenario::Override;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Runs scenario `text` (`origin` names it in errors) with `overrides` (`--set` lines,
/// `key=value`, one per line) and `seed` (the scenario's when `None`), and returns the text of
/// the `summary.json` that `nmc run` would write: pretty JSON with a final newline.
/// `progress` gets the fraction of simulated time done.
pub fn summary(
    origin: &str,
    text: &str,
    seed: Option<u64>,
    overrides: &str,
    progress: &dyn Fn(f64),
) -> Result<String> {
    let opts = RunOptions {
        seed,
        sets: parse_sets(overrides)?,
        out: None,
        trace_limit: None,
    };
    let s = nmc_run::summary_text(origin, text, &opts, progress)?;
    Ok(s.text()?)
}

/// Parses `--set` lines (`key=value`, one per line; blank lines skipped).
fn parse_sets(overrides: &str) -> Result<Vec<Override>> {
    Ok(overrides
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::parse::<Override>)
        .collect::<Result<Vec<_>, _>>()?)
}

/// The most instants one [`slices`] call takes: the model's own bound on a run's time slices
/// ([`nmc_imp::run::MAX_SLICES`]), checked before any instant is made.
pub const MAX_INSTANTS: u64 = nmc_imp::run::MAX_SLICES as u64;

/// The instants of a [`slices`] call: `count` of them, `step_ms` apart from `start_ms`
/// (milliseconds since the start), as the `--set` line that asks `nmc run` for them:
/// `network.slices=["10000ms", "10020ms", ...]`. More than [`MAX_INSTANTS`], none, or a step
/// of 0 is an error of one line.
pub fn slices_set(start_ms: u64, step_ms: u64, count: u64) -> Result<String> {
    if count == 0 || count > MAX_INSTANTS {
        bail!("time slices: {count} instants asked for; from 1 to {MAX_INSTANTS}");
    }
    if step_ms == 0 {
        bail!("time slices: the step between instants is 0 ms; at least 1 ms");
    }
    // The last instant, in ns, must fit a simulated time.
    if step_ms
        .checked_mul(count - 1)
        .and_then(|d| d.checked_add(start_ms))
        .and_then(|t| t.checked_mul(1_000_000))
        .is_none()
    {
        bail!("time slices: the last instant is past any run's end");
    }
    let instants: Vec<String> = (0..count)
        .map(|k| format!("\"{}ms\"", start_ms + k * step_ms))
        .collect();
    Ok(format!("network.slices=[{}]", instants.join(", ")))
}

/// A site of the map: an IMP with its latitude and longitude in degrees (none off a map).
#[derive(Debug, Serialize, PartialEq)]
pub struct Site {
    /// The IMP's name.
    pub name: String,
    /// Latitude, degrees north (`maps.json`, with nmc-imp's corrections).
    pub lat: Option<f64>,
    /// Longitude, degrees east.
    pub lon: Option<f64>,
}

/// One direction of a line and how busy it was (`lines.csv`'s row).
#[derive(Debug, Serialize, PartialEq)]
pub struct LineUse {
    /// The IMP it leaves from.
    pub from: String,
    /// The IMP at its far end.
    pub to: String,
    /// Capacity, bit/s.
    pub capacity_bps: u64,
    /// Fraction of the measured period (`measure_from` to the end) it was busy sending.
    pub utilisation: f64,
}

/// What the page draws a run's time slices from ([`slices`]): the slices, as `nmc run`'s
/// `slices.json` holds them, and the map under them.
#[derive(Debug, Serialize)]
pub struct SliceRun {
    /// The scenario's name.
    pub scenario: String,
    /// The seed the run used.
    pub seed: u64,
    /// The `--set` line that asked for the instants ([`slices_set`]).
    pub set: String,
    /// The run's simulated time, ns.
    pub duration_ns: u64,
    /// When the metrics and the lines' utilisation start counting, ns.
    pub measure_from_ns: u64,
    /// The map's date (`network.topology.date`); none for a chain or a list of lines.
    pub map: Option<String>,
    /// The measured pair's path, source IMP first: the static shortest-hop route the slices'
    /// positions count hops along (`at_from`, `at_to`: hop *k* is `path[k]`). Empty when no
    /// slice was taken.
    pub path: Vec<Site>,
    /// Every IMP, with its coordinates on a map.
    pub sites: Vec<Site>,
    /// Every line, each direction, with its utilisation over the measured period.
    pub lines: Vec<LineUse>,
    /// The run's metrics (those of its `summary.json`).
    pub metrics: BTreeMap<String, f64>,
    /// The time slices taken, in time order: `slices.json`'s. An instant at which the measured
    /// pair had nothing under way gives none.
    pub slices: Vec<TimeSlice>,
}

/// Runs scenario `text` (IMP model) as [`summary`] does, with time slices at `count` instants
/// `step_ms` apart from `start_ms` ([`slices_set`], added after `overrides`), and returns the
/// slices with the measured pair's path, the sites and the lines' utilisation.
pub fn slices(
    origin: &str,
    text: &str,
    seed: Option<u64>,
    overrides: &str,
    (start_ms, step_ms, count): (u64, u64, u64),
    progress: &dyn Fn(f64),
) -> Result<SliceRun> {
    let set = slices_set(start_ms, step_ms, count)?;
    let mut sets = parse_sets(overrides)?;
    sets.push(set.parse::<Override>()?);
    let opts = RunOptions {
        seed,
        sets,
        out: None,
        trace_limit: None,
    };
    let (config, o) = nmc_run::imp_outcome_text(origin, text, &opts, progress)?;
    let topo = Topology::build(&config.network.topology).map_err(anyhow::Error::msg)?;
    let map = match &config.network.topology {
        TopologySpec::Map { date, .. } => Some(date.clone()),
        _ => None,
    };
    let doc: Option<serde_json::Value> = match map {
        Some(_) => Some(serde_json::from_str(nmc_imp::topology::MAPS_JSON)?),
        None => None,
    };
    let site = |name: &str| {
        let at = doc
            .as_ref()
            .and_then(|d| nmc_imp::topology::site_coordinates(d, name));
        Site {
            name: name.to_string(),
            lat: at.map(|a| a.0),
            lon: at.map(|a| a.1),
        }
    };
    let mut path = Vec::new();
    if let Some(first) = o.slices.first() {
        let (Some(mut at), Some(dst)) = (topo.index(&first.from), topo.index(&first.to)) else {
            bail!(
                "time slices: the measured pair {}–{} is not on the map",
                first.from,
                first.to
            );
        };
        path.push(site(&first.from));
        while at != dst && path.len() <= topo.names.len() {
            let Some(l) = topo.next_link(at, dst) else {
                bail!("time slices: no route from {} to {}", first.from, first.to);
            };
            at = topo.links[l as usize].to;
            path.push(site(&topo.names[at as usize]));
        }
    }
    Ok(SliceRun {
        scenario: config.name.clone(),
        seed: o.seed,
        set,
        duration_ns: o.duration.as_nanos(),
        measure_from_ns: o.measure_from.as_nanos(),
        map,
        path,
        sites: topo.names.iter().map(|n| site(n)).collect(),
        lines: o
            .lines
            .iter()
            .map(|l| LineUse {
                from: l.from.clone(),
                to: l.to.clone(),
                capacity_bps: l.capacity_bps,
                utilisation: l.utilisation,
            })
            .collect(),
        metrics: o.metrics.to_map(),
        slices: o.slices,
    })
}

/// What the page asks, as JSON: `{"call": "run", "origin": ..., "text": ..., "seed": "7",
/// "overrides": "key=value\n..."}` and the like.
#[derive(Debug, Deserialize)]
#[serde(tag = "call", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Request {
    /// One run ([`summary`]). `seed` is a decimal string (a u64 does not fit a JS number),
    /// absent or empty for the scenario's own.
    Run {
        /// Names the scenario in errors.
        origin: String,
        /// The scenario's TOML text.
        text: String,
        /// `--seed`, as decimal text.
        #[serde(default)]
        seed: Option<String>,
        /// `--set` lines.
        #[serde(default)]
        overrides: String,
    },
    /// One run with time slices ([`slices`]): its reply is a [`SliceRun`] as JSON text.
    Slices {
        /// Names the scenario in errors.
        origin: String,
        /// The scenario's TOML text.
        text: String,
        /// `--seed`, as decimal text.
        #[serde(default)]
        seed: Option<String>,
        /// `--set` lines.
        #[serde(default)]
        overrides: String,
        /// The first instant, ms since the start.
        start_ms: u64,
        /// Between two instants, ms.
        step_ms: u64,
        /// How many instants (at most [`MAX_INSTANTS`]).
        count: u64,
    },
    /// The shipped scenarios' names, one per line.
    BuiltinNames,
    /// A shipped scenario's text.
    Builtin {
        /// Its name, as `nmc scenarios` lists it.
        name: String,
    },
    /// The nmc version, as a summary's `nmc_version` gives it.
    Version,
}

/// The answer, as JSON: `{"ok": "..."}` or `{"error": "one line"}`.
#[derive(Debug, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub enum Reply {
    /// The call's text (a summary, a list, a scenario, a version).
    Ok(String),
    /// Why it failed, in one line.
    Error(String),
}

/// Answers `request` (a [`Request`] as JSON) with a [`Reply`]; `progress` as in [`summary`].
pub fn call(request: &str, progress: &dyn Fn(f64)) -> Reply {
    match answer(request, progress) {
        Ok(text) => Reply::Ok(text),
        Err(e) => Reply::Error(format!("{e:#}").replace('\n', " ")),
    }
}

fn answer(request: &str, progress: &dyn Fn(f64)) -> Result<String> {
    let request: Request = serde_json::from_str(request)
        .map_err(|e| anyhow::anyhow!("the page's request is not one nmc-wasm knows: {e}"))?;
    Ok(match request {
        Request::Run {
            origin,
            text,
            seed,
            overrides,
        } => summary(&origin, &text, parse_seed(seed)?, &overrides, progress)?,
        Request::Slices {
            origin,
            text,
            seed,
            overrides,
            start_ms,
            step_ms,
            count,
        } => serde_json::to_string(&slices(
            &origin,
            &text,
            parse_seed(seed)?,
            &overrides,
            (start_ms, step_ms, count),
            progress,
        )?)?,
        Request::BuiltinNames => nmc_run::builtin::SCENARIOS
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join("\n"),
        Request::Builtin { name } => nmc_run::builtin::find(&name)
            .ok_or_else(|| anyhow::anyhow!("no built-in scenario `{name}`"))?
            .to_string(),
        Request::Version => env!("CARGO_PKG_VERSION").to_string(),
    })
}

/// `--seed` as the page sends it: decimal text, absent or blank for the scenario's own.
fn parse_seed(seed: Option<String>) -> Result<Option<u64>> {
    Ok(match seed.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(s) => Some(
            s.parse::<u64>()
                .map_err(|e| anyhow::anyhow!("seed `{s}`: {e}"))?,
        ),
    })
}

/// The exports the page's loader calls, and the one import: only in the wasm build.
#[cfg(target_arch = "wasm32")]
mod abi {
    use std::cell::RefCell;

    #[link(wasm_import_module = "nmc")]
    unsafe extern "C" {
        /// The fraction of the run done, for the page's progress bar.
        #[link_name = "progress"]
        fn js_progress(fraction: f64);
    }

    thread_local! {
        /// The last reply, kept until the next call.
        static REPLY: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }

    /// A buffer of `len` bytes for a request, handed back to [`nmc_call`].
    #[unsafe(no_mangle)]
    pub extern "C" fn nmc_alloc(len: usize) -> *mut u8 {
        let mut v = vec![0u8; len];
        let p = v.as_mut_ptr();
        std::mem::forget(v);
        p
    }

    /// Answers the request of `len` bytes at `ptr` (from [`nmc_alloc`], freed here) and returns
    /// the reply's length; the reply is at [`nmc_reply_ptr`] until the next call.
    ///
    /// # Safety
    /// `ptr` and `len` are those of one [`nmc_alloc`] call, not used again.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn nmc_call(ptr: *mut u8, len: usize) -> usize {
        // SAFETY: the buffer came from nmc_alloc(len) as a Vec of that length and capacity.
        let bytes = unsafe { Vec::from_raw_parts(ptr, len, len) };
        let reply = match std::str::from_utf8(&bytes) {
            Ok(request) => super::call(request, &|f| {
                // SAFETY: an imported JS function taking a number.
                unsafe { js_progress(f) }
            }),
            Err(e) => super::Reply::Error(format!("the page's request is not UTF-8: {e}")),
        };
        let json = serde_json::to_vec(&reply).unwrap_or_else(|_| b"{\"error\":\"?\"}".to_vec());
        REPLY.with(|r| {
            *r.borrow_mut() = json;
            r.borrow().len()
        })
    }

    /// Where the last reply is (its length was [`nmc_call`]'s result).
    #[unsafe(no_mangle)]
    pub extern "C" fn nmc_reply_ptr() -> *const u8 {
        REPLY.with(|r| r.borrow().as_ptr())
    }
}
