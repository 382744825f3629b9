//! `nmc run SCENARIO`: read the file, find its model, run it, write the outputs.
//!
//! Outputs in the chosen folder: `summary.json` always; `<record>.csv` for each name in the
//! scenario's `record` list; `trace.jsonl` when `trace = true`; SVG plots of what was recorded;
//! for the IMP model, `lockup.json` when the lockup watch fired, and `slices.json` with
//! `slice-1.svg`, `slice-2.svg`, ... when `network.slices` asks for time slices.

use crate::charts::{histogram_passes, occupancy_chart, slice_diagram};
#[cfg(feature = "internet")]
use crate::records::InternetRecord;
use crate::records::{ImpRecord, NetRecord, Record};
use anyhow::{Context as _, Result, bail};
use nmc_report::records::{CsvSink, read_csv};
use nmc_report::{Chart, OutDir, Series, SeriesStyle, Summary};
use nmc_scenario::{Override, ScenarioError, config_hash, locate, model_of};
use nmc_sim::Trace;
use std::collections::BTreeMap;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// Models `nmc run` knows, by the name a scenario gives in `model = "..."`.
pub const MODELS: &[&str] = &["store-forward", "imp", "internet-1983"];

/// How to run a scenario, beyond its text: what `nmc run`'s `--seed`, `--set`, `--out` and
/// `--trace-limit` say.
pub struct RunOptions {
    /// `--seed`, overriding the scenario's.
    pub seed: Option<u64>,
    /// `--set` overrides, in order.
    pub sets: Vec<Override>,
    /// Output folder; `out/<scenario name>` when not given.
    pub out: Option<PathBuf>,
    /// Size at which `trace.jsonl` stops, in bytes; [`TRACE_LIMIT`] when not given.
    pub trace_limit: Option<u64>,
}

/// The default size limit of `trace.jsonl`: 1 GB. A traced minute of the loaded 1974 map is a
/// few hundred MB; more than this is rarely wanted and can fill a disk (raise it with
/// `nmc run --trace-limit`).
pub const TRACE_LIMIT: u64 = 1_000_000_000;

/// What a completed run produced, its output folder in place.
pub struct RunResult {
    /// What `summary.json` holds: name, seed, version, resolved configuration and its hash,
    /// metrics.
    pub summary: Summary,
    /// The output folder, where the files now are.
    pub out: PathBuf,
    /// Every file the run wrote (summary, records, plots, trace), at its final path in `out`.
    pub files: Vec<PathBuf>,
    /// Things the run wants said, e.g. why it stopped early.
    pub notes: Vec<String>,
}

/// Runs the scenario in `path`. `progress` gets the fraction of simulated time done.
pub fn run_file(path: &Path, opts: &RunOptions, progress: &dyn Fn(f64)) -> Result<RunResult> {
    // A scenario is a small text file: a device or a huge file given by mistake is an error,
    // not a process that reads until memory runs out (issue 33).
    let text = nmc_sim::limits::read_text(path, nmc_sim::limits::MAX_TEXT_BYTES)?;
    run_text(&path.display().to_string(), &text, opts, progress)
}

/// Runs scenario `text`; `origin` names it in errors (a path, or a built-in name).
pub fn run_text(
    origin: &str,
    text: &str,
    opts: &RunOptions,
    progress: &dyn Fn(f64),
) -> Result<RunResult> {
    let (origin, text) = (origin.to_string(), text.to_string());
    // The model a `--set model=...` names runs, as the scenario records it.
    let (model, sets) = model_and_sets(&origin, &text, opts)?;
    match model.as_str() {
        "store-forward" => run_store_forward(&origin, &text, &sets, opts, progress),
        "imp" => run_imp(&origin, &text, &sets, opts, progress),
        "internet-1983" => run_internet(&origin, &text, &sets, opts),
        other => bail!(
            "{origin}: unknown model `{other}` (known: {})",
            MODELS.join(", ")
        ),
    }
}

/// Opens `trace.jsonl` in `dir` if the scenario asks for a trace: stopping at `limit` bytes, and
/// warning on stderr, early, when its growth projects past the limit before the run's `end`
/// ([`trace_projection_warning`]).
fn trace_for(
    on: bool,
    dir: &Path,
    limit: u64,
    end: nmc_sim::SimTime,
    files: &mut Vec<PathBuf>,
) -> Result<Trace> {
    if !on {
        return Ok(Trace::off());
    }
    let path = dir.join("trace.jsonl");
    let f =
        nmc_report::files::create(&path).with_context(|| format!("creating {}", path.display()))?;
    files.push(path);
    Ok(Trace::to_writer(BufWriter::new(f))
        .with_limit(limit)
        .warn_early(end, |p| eprintln!("nmc: {}", trace_projection_warning(p))))
}

/// A size in bytes for people: `950 B`, `310 kB`, `52.4 MB`, `1.2 GB` (powers of 1000, as
/// `--trace-limit` reads them).
pub fn fmt_bytes(b: u64) -> String {
    let b = b as f64;
    let (v, unit) = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")]
        .into_iter()
        .find(|(k, _)| b >= *k)
        .map_or((b, "B"), |(k, u)| (b / k, u));
    if unit == "B" || v >= 100.0 {
        format!("{v:.0} {unit}")
    } else {
        format!("{v:.1} {unit}")
    }
}

/// The one line said when a trace is on course to pass its size limit before the run ends.
pub fn trace_projection_warning(p: &nmc_sim::trace::Projection) -> String {
    let secs = |t: nmc_sim::SimTime| t.as_nanos() as f64 / 1e9;
    format!(
        "warning: trace.jsonl is on course for about {} by the run's end at simulated {:.0} s ({} in the first {:.1} s); it will stop at its limit of {} (raise it with --trace-limit SIZE, e.g. --trace-limit {})",
        fmt_bytes(p.projected),
        secs(p.end),
        fmt_bytes(p.bytes),
        secs(p.at),
        fmt_bytes(p.limit),
        suggested_limit(p.projected),
    )
}

/// A round `--trace-limit` above `projected` bytes: the next 1, 2 or 5 × a power of ten, in
/// the unit `--trace-limit` reads (`50MB`, `2GB`).
fn suggested_limit(projected: u64) -> String {
    let want = projected as f64 * 1.2;
    let mag = 10f64.powf(want.max(1.0).log10().floor());
    let v = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|v| *v >= want)
        .unwrap_or(10.0 * mag);
    fmt_bytes(v as u64).replace(' ', "").replace(".0", "")
}

/// What a run says when its trace met the size limit.
fn trace_note(stopped_at: Option<nmc_sim::SimTime>, opts: &RunOptions) -> Option<String> {
    stopped_at.map(|t| {
        format!(
            "warning: trace.jsonl stopped at its limit of {} bytes at simulated {:.3} s; the rest of the run is not traced (raise it with --trace-limit SIZE)",
            opts.trace_limit.unwrap_or(TRACE_LIMIT),
            t.as_nanos() as f64 / 1e9
        )
    })
}

type Begun<N, T> = (
    nmc_scenario::Scenario<N, T>,
    u64,
    OutDir,
    Vec<PathBuf>,
    Trace,
);

/// Loads the scenario with its overrides and checks it as every entry point does before it runs
/// anything: its name, its seed, and `check` (the model built once). A check that fails names
/// the file, line and column of the key it judged, or the `--set` that set it
/// ([`nmc_scenario::locate`]).
fn load_checked<N: serde::de::DeserializeOwned, T: serde::de::DeserializeOwned>(
    origin: &str,
    text: &str,
    sets: &[Override],
    check: impl FnOnce(&nmc_scenario::Scenario<N, T>, u64) -> Result<()>,
) -> Result<(nmc_scenario::Scenario<N, T>, u64)> {
    let s: nmc_scenario::Scenario<N, T> = nmc_scenario::load(origin, text, sets)?;
    let located = |e: anyhow::Error| -> anyhow::Error {
        let message = match e.downcast_ref::<ScenarioError>() {
            Some(e) => e.message().to_string(),
            None => format!("{e:#}"),
        };
        locate(origin, text, sets, &message).into()
    };
    s.check_name(origin).map_err(|e| located(e.into()))?;
    s.check_duration(origin).map_err(|e| located(e.into()))?;
    let seed = s.require_seed().map_err(|e| located(e.into()))?;
    check(&s, seed).map_err(located)?;
    Ok((s, seed))
}

fn check_store_forward(s: &nmc_net::StoreForwardScenario, seed: u64) -> Result<()> {
    nmc_net::StoreForward::build(s, seed, Trace::off())?;
    Ok(())
}

fn check_imp(s: &nmc_imp::scenario::ImpScenario, seed: u64) -> Result<()> {
    let config = nmc_imp::scenario::resolve(s)?;
    if config.network.program.is_some() {
        return check_program(&config, seed);
    }
    nmc_imp::run::check_observed_times(&config)?;
    nmc_imp::run::build(&config, seed, Trace::off())?;
    Ok(())
}

#[cfg(feature = "internet")]
fn check_internet(s: &nmc_internet::spec::InternetScenario, seed: u64) -> Result<()> {
    s.check_records::<InternetRecord>()?;
    nmc_internet::Path::build(s)?;
    nmc_internet::model::probe_config(s, seed)?;
    Ok(())
}

/// Loads and checks the scenario ([`load_checked`]), and only then makes the output folder and
/// opens the trace if the scenario asks for one: bad input writes nothing. The run writes into
/// `<out>.incomplete`, put in place of `<out>` by [`finish`] (issue 33: no folder mixes runs).
fn begin<N: serde::de::DeserializeOwned, T: serde::de::DeserializeOwned>(
    origin: &str,
    text: &str,
    sets: &[Override],
    opts: &RunOptions,
    check: impl FnOnce(&nmc_scenario::Scenario<N, T>, u64) -> Result<()>,
) -> Result<Begun<N, T>> {
    let (s, seed) = load_checked(origin, text, sets, check)?;
    let target = opts
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(&s.name));
    let out = OutDir::begin(&target)?;
    let mut files = Vec::new();
    let limit = opts.trace_limit.unwrap_or(TRACE_LIMIT);
    let end = nmc_sim::SimTime::ZERO + s.duration;
    let trace = trace_for(s.trace, out.path(), limit, end, &mut files)?;
    Ok((s, seed, out, files, trace))
}

/// Puts a complete run's folder in place and names its files where they now are.
fn finish(
    out: OutDir,
    summary: Summary,
    files: Vec<PathBuf>,
    notes: Vec<String>,
) -> Result<RunResult> {
    let files = files.iter().map(|f| out.final_path(f)).collect();
    let out = out.commit()?;
    Ok(RunResult {
        summary,
        out,
        files,
        notes,
    })
}

/// Writes `summary.json`: the run's name, seed, version, configuration and its hash, metrics.
fn write_summary(
    name: &str,
    seed: u64,
    metrics: BTreeMap<String, f64>,
    config: serde_json::Value,
    out: &Path,
    files: &mut Vec<PathBuf>,
) -> Result<Summary> {
    let summary = Summary {
        scenario: name.to_string(),
        seed,
        nmc_version: env!("CARGO_PKG_VERSION").into(),
        config_hash: config_hash(&config),
        metrics,
        config,
    };
    let path = out.join("summary.json");
    summary.write(&path)?;
    files.push(path);
    Ok(summary)
}

fn run_store_forward(
    origin: &str,
    text: &str,
    sets: &[Override],
    opts: &RunOptions,
    progress: &dyn Fn(f64),
) -> Result<RunResult> {
    let (s, seed, dir, mut files, trace) = begin::<
        nmc_net::spec::NetworkSpec,
        nmc_net::spec::TrafficSpec,
    >(origin, text, sets, opts, check_store_forward)?;
    let out = dir.path();
    let total = s.duration.as_nanos().max(1) as f64;
    // packets.csv is written as the packets are done, not kept: memory stays flat.
    let packets_csv = out.join("packets.csv");
    let sink: Option<Box<dyn nmc_sim::RecordSink<nmc_net::model::PacketRecord>>> =
        if s.wants(NetRecord::Packets) {
            Some(Box::new(CsvSink::create(&packets_csv)?))
        } else {
            None
        };
    let o = nmc_net::run_to(&s, seed, trace, sink, &mut |t| {
        progress(t.as_nanos() as f64 / total)
    })?;
    for r in s.records::<NetRecord>() {
        let path = out.join(format!("{}.csv", r.name()));
        match r {
            NetRecord::Packets => {
                /// The one column the histogram needs.
                #[derive(serde::Deserialize)]
                struct Delay {
                    delay_ns: Option<u64>,
                }
                // Drawn from every row, read back from the file (twice: range, then counts).
                let delays = || -> Result<_> {
                    Ok(read_csv::<Delay>(&packets_csv)?.filter_map(|r| match r {
                        Ok(r) => Ok(r.delay_ns.map(|d| d as f64 / 1e6)).transpose(),
                        Err(e) => Some(Err(e.into())),
                    }))
                };
                let svg_path = out.join("delay-histogram.svg");
                nmc_report::files::write(
                    &svg_path,
                    histogram_passes("End-to-end delay", "delay (ms)", delays)?
                        .to_svg()
                        .map_err(anyhow::Error::msg)?,
                )?;
                files.push(svg_path);
            }
            NetRecord::Lines => {
                nmc_report::records::write_csv(&path, &o.lines)?;
                let util: Vec<(f64, f64)> = o
                    .lines
                    .iter()
                    .map(|l| (l.channel as f64, l.utilisation))
                    .collect();
                let chart = Chart::new(
                    "Channel utilisation",
                    "channel (index)",
                    "utilisation (fraction of time busy)",
                )
                .with(Series::new("", SeriesStyle::Bars { width: 0.6 }, util));
                let svg_path = out.join("lines.svg");
                nmc_report::files::write(&svg_path, chart.to_svg().map_err(anyhow::Error::msg)?)?;
                files.push(svg_path);
            }
        }
        files.push(path);
    }
    let summary = write_summary(
        &s.name,
        seed,
        o.metrics.to_map(),
        serde_json::to_value(&s)?,
        out,
        &mut files,
    )?;
    let notes = trace_note(o.trace_stopped_at, opts).into_iter().collect();
    finish(dir, summary, files, notes)
}

fn run_imp(
    origin: &str,
    text: &str,
    sets: &[Override],
    opts: &RunOptions,
    progress: &dyn Fn(f64),
) -> Result<RunResult> {
    let (s, seed, dir, mut files, trace) = begin::<
        nmc_imp::scenario::NetworkSpec,
        nmc_imp::spec::TrafficSpec,
    >(origin, text, sets, opts, check_imp)?;
    let out = dir.path();
    // Only what the scenario records is kept, and messages.csv, e2e.csv and occupancy.csv are
    // written as the run goes: memory stays flat with `record = []` and with those.
    let keep = nmc_imp::run::Keep::Recorded;
    let messages_csv = out.join("messages.csv");
    let written = nmc_imp::run::Files {
        messages: Some(messages_csv.clone()),
        e2e: Some(out.join("e2e.csv")),
        occupancy: Some(out.join("occupancy.csv")),
        journeys: Some(out.join("journeys.csv")),
    };
    let config = nmc_imp::scenario::resolve(&s)?;
    if config.network.program.is_some() {
        return run_program(&s, &config, seed, dir, files, progress);
    }
    let o = nmc_imp::run::run_writing(&config, seed, trace, &mut |f| progress(f), keep, &written)?;
    let svg = |files: &mut Vec<PathBuf>, name: &str, chart: Chart| -> Result<()> {
        let path = out.join(name);
        nmc_report::files::write(&path, chart.to_svg().map_err(anyhow::Error::msg)?)?;
        files.push(path);
        Ok(())
    };
    for r in s.records::<ImpRecord>() {
        let path = out.join(format!("{}.csv", r.name()));
        match r {
            ImpRecord::Messages => {
                // Written during the run; the histogram reads every round trip back from it
                // (as `analysis::round_trips_ms` takes them from the records).
                let rtt = || -> Result<_> {
                    Ok(
                        read_csv::<nmc_imp::analysis::MetricRow>(&messages_csv)?.filter_map(|r| {
                            match r {
                                Ok(m) => Some(Ok((m.rfnm_ns? - m.accepted_ns?) as f64 / 1e6)),
                                Err(e) => Some(Err(e.into())),
                            }
                        }),
                    )
                };
                svg(
                    &mut files,
                    "round-trip-histogram.svg",
                    histogram_passes("Round trip (accepted → RFNM)", "round trip (ms)", rtt)?,
                )?;
            }
            ImpRecord::Lines => nmc_report::records::write_csv(&path, &o.lines)?,
            ImpRecord::E2e => {} // written during the run
            ImpRecord::Routing => {
                // routing.csv: every change of a best neighbour and every hold-down; beside it
                // the loops in the tables, and the pumping IMP's choice of line and its queues.
                let r = &o.routing;
                nmc_report::records::write_csv(&path, &r.route_changes)?;
                let loops = out.join("loops.csv");
                nmc_report::records::write_csv(&loops, &r.loops)?;
                let sends = out.join("source-sends.csv");
                nmc_report::records::write_csv(&sends, &r.source_sends)?;
                let queues = out.join("source-queues.csv");
                nmc_report::records::write_csv(&queues, &r.line_samples)?;
                files.extend([loops, sends, queues]);
            }
            ImpRecord::Journeys => {} // written during the run
            ImpRecord::Occupancy => {
                // Written during the run; the chart shows its first 30 s, read back.
                const SHOWN_S: f64 = 30.0;
                let mut shown = Vec::new();
                for o in nmc_imp::records::occupancy_rows(&path).map_err(anyhow::Error::msg)? {
                    let o = o.map_err(anyhow::Error::msg)?;
                    if o.t_ns as f64 / 1e9 > SHOWN_S {
                        break;
                    }
                    shown.push(o);
                }
                svg(
                    &mut files,
                    "occupancy.svg",
                    occupancy_chart(&shown, SHOWN_S, &o.params),
                )?;
            }
        }
        files.push(path);
    }
    // `network.slices`: every slice as data (`slices.json`) and each drawn as K&O draw them.
    if !o.slices.is_empty() {
        let path = out.join("slices.json");
        nmc_report::files::write(&path, serde_json::to_string_pretty(&o.slices)? + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
        files.push(path);
        for (k, sl) in o.slices.iter().enumerate() {
            let path = out.join(format!("slice-{}.svg", k + 1));
            let title = format!("Time slice of the measured pair, {} hops", sl.hops);
            nmc_report::files::write(&path, slice_diagram(sl, &title).to_svg())
                .with_context(|| format!("writing {}", path.display()))?;
            files.push(path);
        }
    }
    let mut notes: Vec<String> = trace_note(o.trace_stopped_at, opts).into_iter().collect();
    notes.extend(s.network.idle_chain_ends());
    if let Some(l) = &o.lockup {
        let path = out.join("lockup.json");
        nmc_report::files::write(&path, serde_json::to_string_pretty(l)?)
            .with_context(|| format!("writing {}", path.display()))?;
        files.push(path);
        notes.push(l.explain());
    }
    let mut config = serde_json::to_value(&s)?;
    config["resolved_params"] = serde_json::to_value(&o.params)?;
    let summary = write_summary(&s.name, seed, o.metrics.to_map(), config, out, &mut files)?;
    finish(dir, summary, files, notes)
}
/// `model = "internet-1983"`: RFC 889's PING over one path model (`nmc-internet`). Writes
/// `summary.json` (the fits in RFC 889's columns), `volleys.csv` when recorded, and
/// `delay-vs-length.svg`.
#[cfg(feature = "internet")]
fn run_internet(
    origin: &str,
    text: &str,
    sets: &[Override],
    opts: &RunOptions,
) -> Result<RunResult> {
    let (s, seed, dir, mut files, _trace) = begin::<
        nmc_internet::NetworkSpec,
        nmc_internet::PingSpec,
    >(origin, text, sets, opts, check_internet)?;
    let out = dir.path();
    let o = nmc_internet::run(&s, seed)?;
    for r in s.records::<InternetRecord>() {
        let path = out.join(format!("{}.csv", r.name()));
        match r {
            InternetRecord::Volleys => nmc_report::records::write_csv(&path, &o.records)?,
        }
        files.push(path);
    }
    let metrics = nmc_internet::metrics(&s, &o);
    let break_at = s.traffic[0].break_at.map(|b| (b.get() / 8) as u32);
    let mut notes = Vec::new();
    if let Some(cells) =
        nmc_probe::analysis::Rfc889Cells::of(&nmc_internet::fits(&o, break_at), break_at.is_some())
    {
        notes.push(format!(
            "in RFC 889's table layout (one-way ms, bit/s; as `nmc echo probe` prints):\n{}{}",
            nmc_probe::analysis::RFC889_HEADER,
            nmc_probe::analysis::rfc889_row(
                &s.name.trim_start_matches("rfc889-").to_uppercase(),
                &cells,
                &format!("simulated ({})", s.name)
            )
        ));
    }
    let points: Vec<(f64, f64)> = o
        .records
        .iter()
        .filter_map(|r| r.one_way_ns.map(|d| (r.length as f64, d as f64 / 1e6)))
        .collect();
    let mut chart = Chart::new(
        format!("{}: one-way delay against length", s.name),
        "IP datagram length (octets)",
        "one-way delay (ms)",
    )
    .with(Series::new("volleys", SeriesStyle::Points, points));
    if let Some(l) = metrics.one_line {
        chart = chart.with(Series::new(
            "fit (one line)",
            SeriesStyle::Line,
            vec![(40.0, l.delay_40_ms), (256.0, l.delay_256_ms)],
        ));
    }
    let svg_path = out.join("delay-vs-length.svg");
    nmc_report::files::write(&svg_path, chart.to_svg().map_err(anyhow::Error::msg)?)?;
    files.push(svg_path);
    let config = serde_json::to_value(&s)?;
    let summary = write_summary(&s.name, seed, metrics.to_map(), config, out, &mut files)?;
    finish(dir, summary, files, notes)
}

// For sweeps (`nmc sweep`): a scenario checked without running it, and run without writing.

/// A scenario with its overrides and seed applied, checked by building its model once.
pub struct Resolved {
    /// The scenario's `name`.
    pub name: String,
    /// The model that runs it.
    pub model: String,
    /// The seed the run would use.
    pub seed: u64,
    /// What a run would write as `config_hash` in `summary.json`: SHA-256 of the resolved
    /// configuration (seed included).
    pub config_hash: String,
}

/// The model a scenario runs (a `--set model=...` wins) and the overrides with the seed.
/// A `--seed` as a scenario can hold it: at most 2^63 − 1, since a scenario's integers are
/// signed 64-bit (a seed above it could not be written into the scenario that reruns the run).
/// `nmc run` and `nmc reproduce` refuse the same seeds with the same line (issue 57 §6).
pub fn check_seed(seed: u64) -> Result<i64> {
    i64::try_from(seed).map_err(|_| {
        anyhow::anyhow!("--seed {seed}: at most 2^63 - 1 (a scenario's integers are signed 64-bit)")
    })
}

fn model_and_sets(origin: &str, text: &str, opts: &RunOptions) -> Result<(String, Vec<Override>)> {
    let model = match opts
        .sets
        .iter()
        .rev()
        .find(|o| o.top_key() == Some("model"))
    {
        Some(o) => match o.value().as_str() {
            Some(m) => m.to_string(),
            None => bail!("--set model=...: the model is a name such as \"imp\""),
        },
        None => model_of(origin, text)?,
    };
    let mut sets = opts.sets.clone();
    if let Some(seed) = opts.seed {
        sets.push(Override::top("seed", check_seed(seed)?));
    }
    if !MODELS.contains(&model.as_str()) {
        bail!(
            "{origin}: unknown model `{model}` (known: {})",
            MODELS.join(", ")
        );
    }
    Ok((model, sets))
}

/// Loads scenario `text` with `opts`' overrides and seed and checks it as `nmc run` would
/// before running (name, seed, the model built once); runs nothing and writes nothing.
pub fn resolve_text(origin: &str, text: &str, opts: &RunOptions) -> Result<Resolved> {
    let (model, sets) = model_and_sets(origin, text, opts)?;
    let (name, seed, config) = resolved_config(origin, text, &model, &sets)?;
    Ok(Resolved {
        name,
        model,
        seed,
        config_hash: config_hash(&config),
    })
}

/// The scenario's name, seed and resolved configuration, as `summary.json` holds them.
fn resolved_config(
    origin: &str,
    text: &str,
    model: &str,
    sets: &[Override],
) -> Result<(String, u64, serde_json::Value)> {
    Ok(if model == "store-forward" {
        let (s, seed) = load_checked(origin, text, sets, check_store_forward)?;
        (s.name.clone(), seed, serde_json::to_value(&s)?)
    } else if model == "internet-1983" {
        internet_config(origin, text, sets)?
    } else {
        let (s, seed) = load_checked(origin, text, sets, check_imp)?;
        let mut config = serde_json::to_value(&s)?;
        config["resolved_params"] = serde_json::to_value(nmc_imp::scenario::resolve_params(
            &s.network.profile,
            &s.network.params,
        )?)?;
        (s.name.clone(), seed, config)
    })
}

/// Runs scenario `text` as [`metrics_text`] does and returns the [`Summary`] that `nmc run`
/// would write for it: the same name, seed, version, configuration, hash and metrics, so the
/// same bytes ([`Summary::text`]). Writes nothing. The page in `web/` runs scenarios through
/// this (`nmc-wasm`).
pub fn summary_text(
    origin: &str,
    text: &str,
    opts: &RunOptions,
    progress: &dyn Fn(f64),
) -> Result<Summary> {
    let (model, sets) = model_and_sets(origin, text, opts)?;
    let (name, seed, config) = resolved_config(origin, text, &model, &sets)?;
    let metrics = metrics_text(origin, text, opts, progress)?;
    Ok(Summary {
        scenario: name,
        seed,
        nmc_version: env!("CARGO_PKG_VERSION").into(),
        config_hash: config_hash(&config),
        metrics,
        config,
    })
}

/// Runs scenario `text` with `opts`' overrides and seed and returns its metrics (those
/// `summary.json` would hold). Writes nothing: no folder, no records, no trace (`opts.out` is
/// not used). `progress` gets the fraction of simulated time done.
pub fn metrics_text(
    origin: &str,
    text: &str,
    opts: &RunOptions,
    progress: &dyn Fn(f64),
) -> Result<BTreeMap<String, f64>> {
    let (model, sets) = model_and_sets(origin, text, opts)?;
    if model == "store-forward" {
        let (s, seed) = load_checked(origin, text, &sets, check_store_forward)?;
        let total = s.duration.as_nanos().max(1) as f64;
        let o = nmc_net::run(&s, seed, Trace::off(), &mut |t| {
            progress(t.as_nanos() as f64 / total)
        })?;
        Ok(o.metrics.to_map())
    } else if model == "internet-1983" {
        internet_metrics(origin, text, &sets, progress)
    } else {
        let (_, o) = imp_outcome_text(origin, text, opts, progress)?;
        Ok(o.metrics.to_map())
    }
}

/// Runs IMP scenario `text` with `opts`' overrides and seed as [`metrics_text`] does, and
/// returns its resolved configuration and the model's whole outcome: the metrics, each line's
/// figures (`lines.csv`'s), the time slices `network.slices` asks for (`slices.json`'s), and
/// the records the scenario keeps. Writes nothing. A scenario of another model is an error.
/// The page in `web/` draws its time slices over the map from this (`nmc-wasm`).
pub fn imp_outcome_text(
    origin: &str,
    text: &str,
    opts: &RunOptions,
    progress: &dyn Fn(f64),
) -> Result<(nmc_imp::ImpConfig, nmc_imp::run::Outcome)> {
    let (model, sets) = model_and_sets(origin, text, opts)?;
    if model != "imp" {
        bail!("{origin}: the model is `{model}`; only the IMP model (`imp`) has an IMP subnet");
    }
    let (s, seed) = load_checked(origin, text, &sets, check_imp)?;
    let config = nmc_imp::scenario::resolve(&s)?;
    let keep = nmc_imp::run::Keep::Recorded;
    let o = nmc_imp::run::run_keeping(&config, seed, Trace::off(), &mut |f| progress(f), keep)?;
    Ok((config, o))
}

/// The `internet-1983` scenario's name, seed and configuration ([`resolved_config`]).
#[cfg(feature = "internet")]
fn internet_config(
    origin: &str,
    text: &str,
    sets: &[Override],
) -> Result<(String, u64, serde_json::Value)> {
    let (s, seed) = load_checked(origin, text, sets, check_internet)?;
    Ok((s.name.clone(), seed, serde_json::to_value(&s)?))
}

/// The `internet-1983` run's metrics ([`metrics_text`]).
#[cfg(feature = "internet")]
fn internet_metrics(
    origin: &str,
    text: &str,
    sets: &[Override],
    progress: &dyn Fn(f64),
) -> Result<BTreeMap<String, f64>> {
    let (s, seed) = load_checked(origin, text, sets, check_internet)?;
    let o = nmc_internet::run(&s, seed)?;
    progress(1.0);
    Ok(nmc_internet::metrics(&s, &o).to_map())
}

// Without the `internet` feature (the browser build): the model is named, and refused in one
// line, before anything is loaded.

/// The one line that says the `internet-1983` model is not in this build.
/// A scenario with `[network.program]` checked as [`run_program`] would run it, the program's
/// file read: bad input writes nothing.
#[cfg(feature = "program")]
fn check_program(config: &nmc_imp::spec::ImpConfig, seed: u64) -> Result<()> {
    nmc_oracle::program::check(config, seed)
}

/// `[network.program]` (issue 73 §3): every IMP runs the IMP program on the emulator
/// (`nmc_oracle::program`); `summary.json` with the model's names where the figure is the
/// same and `program.*`, the program's file and SHA-256 beside the configuration; `messages.csv`
/// and `lines.csv` as recorded.
#[cfg(feature = "program")]
fn run_program(
    s: &nmc_imp::scenario::ImpScenario,
    config: &nmc_imp::spec::ImpConfig,
    seed: u64,
    dir: OutDir,
    mut files: Vec<PathBuf>,
    progress: &dyn Fn(f64),
) -> Result<RunResult> {
    let out = dir.path().to_path_buf();
    let o = nmc_oracle::program::run(config, seed, &mut |f| progress(f))?;
    for r in s.records::<ImpRecord>() {
        let path = out.join(format!("{}.csv", r.name()));
        match r {
            ImpRecord::Messages => {
                nmc_report::records::write_csv(&path, &o.messages)?;
                let rtt: Vec<f64> = o
                    .messages
                    .iter()
                    .filter_map(|m| Some((m.rfnm_ns? - m.accepted_ns?) as f64 / 1e6))
                    .collect();
                let chart =
                    histogram_passes("Round trip (accepted → RFNM)", "round trip (ms)", || {
                        Ok(rtt.iter().map(|&x| Ok(x)))
                    })?;
                let svg = out.join("round-trip-histogram.svg");
                nmc_report::files::write(&svg, chart.to_svg().map_err(anyhow::Error::msg)?)?;
                files.push(svg);
            }
            ImpRecord::Lines => nmc_report::records::write_csv(&path, &o.lines)?,
            ImpRecord::Journeys => nmc_report::records::write_csv(&path, &o.journeys)?,
            ImpRecord::Routing => {
                // The program's routing messages, not the model's routing.csv.
                let path = out.join("routing-messages.csv");
                o.routing.write_csv(&path)?;
                files.push(path);
                continue;
            }
            // Refused before the run (`nmc_oracle::program`).
            _ => continue,
        }
        files.push(path);
    }
    if config
        .network
        .program
        .as_ref()
        .is_some_and(|p| p.watch.is_some())
    {
        let path = out.join("watch.csv");
        nmc_report::records::write_csv(&path, &o.watch)?;
        files.push(path);
    }
    let mut config_json = serde_json::to_value(s)?;
    config_json["program_file"] = serde_json::json!({
        "path": o.program.0.display().to_string(),
        "sha256": o.program.1,
    });
    let summary = write_summary(&s.name, seed, o.metrics, config_json, &out, &mut files)?;
    finish(dir, summary, files, o.notes)
}

#[cfg(not(feature = "program"))]
fn no_program() -> anyhow::Error {
    anyhow::anyhow!(
        "network.program: IMPs that run the IMP program are not in this build of nmc (built without nmc-run's `program` feature, as the browser page is); run it with the `nmc` command"
    )
}

#[cfg(not(feature = "program"))]
fn check_program(_: &nmc_imp::spec::ImpConfig, _: u64) -> Result<()> {
    Err(no_program())
}

#[cfg(not(feature = "program"))]
fn run_program(
    _: &nmc_imp::scenario::ImpScenario,
    _: &nmc_imp::spec::ImpConfig,
    _: u64,
    _: OutDir,
    _: Vec<PathBuf>,
    _: &dyn Fn(f64),
) -> Result<RunResult> {
    Err(no_program())
}

#[cfg(not(feature = "internet"))]
fn no_internet(origin: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "{origin}: model `internet-1983` is not in this build of nmc (built without nmc-run's \
         `internet` feature, as the browser page is: its probe core comes with socket drivers); \
         run it with the `nmc` command"
    )
}

#[cfg(not(feature = "internet"))]
fn run_internet(origin: &str, _: &str, _: &[Override], _: &RunOptions) -> Result<RunResult> {
    Err(no_internet(origin))
}

#[cfg(not(feature = "internet"))]
fn internet_config(
    origin: &str,
    _: &str,
    _: &[Override],
) -> Result<(String, u64, serde_json::Value)> {
    Err(no_internet(origin))
}

#[cfg(not(feature = "internet"))]
fn internet_metrics(
    origin: &str,
    _: &str,
    _: &[Override],
    _: &dyn Fn(f64),
) -> Result<BTreeMap<String, f64>> {
    Err(no_internet(origin))
}
