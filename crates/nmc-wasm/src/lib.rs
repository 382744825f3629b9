//! # nmc-wasm — nmc in a browser
//!
//! The simulation, unchanged, compiled to `wasm32-unknown-unknown` and called from the static
//! page in `web/` (built by `scripts/build-web.sh`). Nothing here models anything: every call
//! is a thin wrapper over `nmc_run`, so a run in the page is the run `nmc run` makes with the
//! same scenario text, overrides and seed, and its summary has the same bytes (tested natively
//! in `tests/native.rs`, and in wasm by `tests/wasm/summary.test.js` under Node).
//!
//! | item | what | Rust behind it |
//! | --- | --- | --- |
//! | [`summary`] | one run: the text of the `summary.json` `nmc run` would write | [`nmc_run::summary_text`] |
//! | [`call`] | a [`Request`] as JSON in, a [`Reply`] as JSON out: what the page asks | [`summary`], [`nmc_run::builtin`] |
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

use anyhow::Result;
use nmc_run::RunOptions;
use nmc_scenario::Override;
use serde::{Deserialize, Serialize};

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
    let sets = overrides
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::parse::<Override>)
        .collect::<Result<Vec<_>, _>>()?;
    let opts = RunOptions {
        seed,
        sets,
        out: None,
        trace_limit: None,
    };
    let s = nmc_run::summary_text(origin, text, &opts, progress)?;
    Ok(s.text()?)
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
        } => {
            let seed = match seed.as_deref().map(str::trim) {
                None | Some("") => None,
                Some(s) => Some(
                    s.parse::<u64>()
                        .map_err(|e| anyhow::anyhow!("seed `{s}`: {e}"))?,
                ),
            };
            summary(&origin, &text, seed, &overrides, progress)?
        }
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
