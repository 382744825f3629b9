//! `--json`: one JSON document on stdout for every real-network instrument (issue 34), as
//! iperf3's `-J` prints one. One schema, [`SCHEMA`], for `nmc echo probe`, `nmc pump`, `nmc
//! stream` and `nmc cost`:
//!
//! ```json
//! { "schema": "nmc-instrument/2", "tool": "nmc pump", "version": "0.1.0",
//!   "units": { "time": "s", "rate": "bit/s", "size": "byte" },
//!   "target": "127.0.0.1:8890", "start_unix_s": 1764130000.5, "stopped_early": false,
//!   "end": { ... the tool's measures ... } }
//! ```
//!
//! Issue 58 §3: the document is printed whatever happens. A run that fails has `"error"`, the
//! one line also printed on stderr: with `"end": null` when nothing was measured (`main`
//! prints it, [`failure`]), with the measures when the run was partial or stopped by the user
//! ([`print_run`]).
//!
//! Issue 58 §4: `parameters` says how the run was asked for: the names of the `config` in the
//! run's `summary.json` (the probe's, the pump's, the stream's; the cost's options), each in
//! the unit convention below.
//!
//! One unit convention across instruments: every time is in seconds, every rate in bit/s,
//! every size in bytes, and each key ends in its unit (`_s`, `_bit_per_s`, `_bytes`); a bare
//! key is a count or a ratio. (The files in `--out` keep their own columns, which the papers'
//! tables and the readers of earlier versions expect.) A change that removes or renames a key
//! or changes its meaning bumps the schema's number; a new key does not.
//!
//! JSON Schema (draft 2020-12) files for the four documents are in `schemas/nmc-instrument-2/`
//! (`echo-probe`, `pump`, `stream`, `cost`, each with `common.schema.json`), tested against
//! every kind of document the instruments print (`tests/schemas/`). Version 2 (2026-11-29):
//! the probe's `end.intervals` give their round trips in seconds (`rtt_mean_s`; version 1
//! wrote `rtt_mean_ms`).

use serde_json::{Value, json};

/// The schema's name and version.
pub const SCHEMA: &str = "nmc-instrument/2";

/// The document around one instrument's `end` measures.
pub fn document(
    tool: &str,
    target: &str,
    start_unix_s: Option<f64>,
    stopped_early: bool,
    end: Value,
) -> Value {
    json!({
        "schema": SCHEMA,
        "tool": tool,
        "version": env!("CARGO_PKG_VERSION"),
        "units": { "time": "s", "rate": "bit/s", "size": "byte" },
        "target": target,
        "start_unix_s": start_unix_s,
        "stopped_early": stopped_early,
        "end": end,
    })
}

/// Whether a document has been printed (issue 58 §3: one, whatever happens).
static PRINTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Prints `doc` on stdout, alone, pretty-printed.
pub fn print(doc: &Value) -> anyhow::Result<()> {
    PRINTED.store(true, std::sync::atomic::Ordering::Relaxed);
    outln!("{}", serde_json::to_string_pretty(doc)?);
    Ok(())
}

/// Whether the instrument's command line has been checked whole and its run begun ([`begin`]).
static BEGUN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Marks that the command line was checked whole and the run begins (issue 74 §3): a failure
/// before this is the command line refused, and its document's `target` is null, as when the
/// parser refuses it; a failure after it names its target.
pub fn begin() {
    BEGUN.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether [`begin`] was called in this process.
pub fn begun() -> bool {
    BEGUN.load(std::sync::atomic::Ordering::Relaxed)
}

/// Whether [`print()`] has printed a document in this process.
pub fn printed() -> bool {
    PRINTED.load(std::sync::atomic::Ordering::Relaxed)
}

/// Now, in seconds since the Unix epoch: a run's `start_unix_s`, taken as it starts.
pub fn unix_now() -> f64 {
    nmc_probe::time::unix_now_ns() as f64 / 1e9
}

/// The document of a run that failed before it had measures (issue 58 §3): `end` is null and
/// `error` is the one line the command also prints on stderr.
pub fn failure(tool: &str, target: &str, error: &str) -> Value {
    let mut doc = document(tool, target, None, false, Value::Null);
    doc["error"] = json!(error);
    doc
}

/// Prints the document of a run that measured something, with `error` set to `failure`'s one
/// line when it then failed or was stopped (the measures stay).
pub fn print_run(mut doc: Value, failure: Option<&anyhow::Error>) -> anyhow::Result<()> {
    if let Some(f) = failure {
        doc["error"] = json!(super::words::error_line(f));
    }
    print(&doc)
}

fn s(ns: f64) -> f64 {
    ns / 1e9
}

/// `nmc echo probe`'s `parameters`: its `summary.json` `config`, times in seconds.
fn probe_parameters(c: &nmc_probe::probe::ProbeConfig) -> Value {
    use nmc_probe::probe::{LengthSpec, Pacing};
    json!({
        "count": c.count,
        "lengths": match c.lengths {
            LengthSpec::Fixed { length } => json!({ "kind": "fixed", "length_bytes": length }),
            LengthSpec::Uniform { lo, hi } => json!({ "kind": "uniform", "lo_bytes": lo, "hi_bytes": hi }),
        },
        "pacing": match c.pacing {
            Pacing::OneInFlight { gap_ns } => json!({ "kind": "one_in_flight", "gap_s": s(gap_ns.0 as f64) }),
            Pacing::Interval { interval_ns } => json!({ "kind": "interval", "interval_s": s(interval_ns.0 as f64) }),
        },
        "timeout_s": s(c.timeout.0 as f64),
        "seed": c.seed,
        "floor_bytes": c.floor,
        "max_length_bytes": c.max_length,
        "open_timeout_s": c.open_timeout.map(|t| s(t.0 as f64)),
        "silent_losses": c.silent_losses,
    })
}

/// `nmc pump`'s `parameters`: its `summary.json` `config`, times in seconds.
fn pump_parameters(c: &nmc_probe::pump::PumpConfig) -> Value {
    let mut v = json!({
        "transport": c.transport.to_string(),
        "size_bytes": c.size,
        "outstanding": c.outstanding,
        "duration_s": s(c.duration.0 as f64),
        "packet_bytes": c.packet,
        "timeout_s": s(c.timeout.0 as f64),
        "session": c.session,
    });
    // Only a counted run (-k, -n) has it: the documents of timed runs are as before.
    if let Some(n) = c.count {
        v["count"] = json!(n);
    }
    // Only a run with a warm-up (-O, --omit).
    if c.omit.0 > 0 {
        v["omit_s"] = json!(s(c.omit.0 as f64));
    }
    v
}

/// `nmc stream`'s `parameters`: what its tests share of the `config` in `summary.json` (each
/// test's rate and buffer are in its entry of `end.tests`), times in seconds.
fn stream_parameters(c: &nmc_realtime::stream::sender::StreamConfig) -> Value {
    let mut v = json!({
        "transport": c.transport,
        "duration_s": c.duration.as_secs_f64(),
        "ack": c.ack,
        "bulk": c.bulk,
        "ack_timeout_s": c.ack_timeout.as_secs_f64(),
        "io_timeout_s": c.io_timeout.as_secs_f64(),
        "secret": c.key.is_some(),
    });
    // Only a run with a warm-up (-O), as the pump's.
    if !c.omit.is_zero() {
        v["omit_s"] = json!(c.omit.as_secs_f64());
    }
    v
}

/// `nmc cost`'s `parameters`: its plan (each cell's size and write size are in `end.transfers`).
pub fn cost_parameters(plan: &nmc_cost::live::Plan, price_per_cpu_hour: f64) -> Value {
    json!({
        "protos": plan.protos.iter().map(|p| p.name()).collect::<Vec<_>>(),
        "sizes_bytes": plan.sizes,
        "write_sizes_bytes": plan.write_sizes,
        "repeat": plan.repeat,
        "max_calls": plan.max_calls,
        "price_dollars_per_cpu_hour": price_per_cpu_hour,
    })
}

pub(crate) fn delays(d: &nmc_probe::analysis::DelayStats) -> Value {
    json!({
        "n": d.n,
        "min_s": s(d.min_ns as f64),
        "median_s": s(d.median_ns as f64),
        "mean_s": s(d.mean_ns),
        "p95_s": s(d.p95_ns as f64),
        "max_s": s(d.max_ns as f64),
        "stddev_s": s(d.stddev_ns),
        "cov": d.cov,
    })
}

fn line(f: &nmc_probe::analysis::LineFit) -> Value {
    json!({
        "n": f.n,
        "from_bytes": f.from_len,
        "to_bytes": f.to_len,
        "intercept_s": s(f.intercept_ns),
        "slope_s_per_byte": s(f.slope_ns_per_byte),
        // RFC 889's "rate": the bits one more byte adds, over the one-way time it adds.
        "rate_bit_per_s": if f.slope_ns_per_byte > 0.0 { Some(8e9 / f.slope_ns_per_byte) } else { None },
        "r2": f.r2,
    })
}

fn split(f: &nmc_probe::analysis::SplitFit) -> Value {
    json!({
        "break_bytes": f.break_at,
        "short": line(&f.short),
        "long": line(&f.long),
        "f_statistic": f.f_statistic,
    })
}

/// `nmc echo probe`.
pub fn probe(sum: &nmc_probe::report::Summary) -> Value {
    let c = &sum.run.counters;
    let local = json!(sum.run.local);
    let mut doc = document(
        "nmc echo probe",
        &sum.run.target,
        Some(sum.run.started_unix_ns as f64 / 1e9),
        sum.run.interrupted,
        json!({
            "volleys": sum.volleys,
            "answered": c.answered,
            "lost": sum.lost,
            "loss_fraction": sum.loss_fraction,
            "elapsed_s": s(sum.run.elapsed.0 as f64),
            "rtt": sum.rtt.as_ref().map(delays),
            "one_way": sum.one_way.as_ref().map(delays),
            "server_turnaround": sum.server_turnaround.as_ref().map(delays),
            "fit_one_line": sum.fits.one_line.as_ref().map(line),
            "fit_split": sum.fits.split.as_ref().map(split),
            "fit_best_split": sum.fits.best_split.as_ref().map(split),
        }),
    );
    // Issue 75 §5: the delay variation and the two ways, when there are any (optional keys).
    if let Some(v) = &sum.variation {
        doc["end"]["ipdv"] = delays(&v.ipdv);
        doc["end"]["jitter_s"] = json!(s(v.jitter_ns));
        if let (Some(u), Some(d)) = (&v.ipdv_up, &v.ipdv_down) {
            doc["end"]["ipdv_up"] = delays(u);
            doc["end"]["ipdv_down"] = delays(d);
        }
    }
    if let Some(l) = &sum.loss_split {
        doc["end"]["server_answered"] = json!(l.server_answered);
        doc["end"]["lost_up"] = json!(l.lost_up);
        doc["end"]["lost_down"] = json!(l.lost_down);
    }
    if let Some(w) = &sum.one_way_split {
        let signed = |d: &nmc_probe::analysis::SignedStats| {
            json!({
                "n": d.n,
                "min_s": s(d.min_ns as f64),
                "median_s": s(d.median_ns as f64),
                "mean_s": s(d.mean_ns),
                "max_s": s(d.max_ns as f64),
                "stddev_s": s(d.stddev_ns),
            })
        };
        doc["end"]["delay_up"] = signed(&w.up);
        doc["end"]["delay_down"] = signed(&w.down);
        doc["end"]["clocks_disagree"] = json!(w.clocks_disagree);
    }
    doc["parameters"] = probe_parameters(&sum.run.config);
    doc["local"] = local;
    doc
}

/// `nmc echo probe --report-interval`'s lines as `end.intervals`, every time in seconds (the
/// lines print milliseconds; nmc-instrument/1 wrote them so, against its own convention).
pub fn probe_intervals(lines: &[nmc_probe::IntervalLine]) -> Value {
    let s = |ms: Option<f64>| ms.map(|v| v / 1e3);
    lines
        .iter()
        .map(|l| {
            json!({
                "start_s": l.start_s,
                "end_s": l.end_s,
                "sent": l.sent,
                "answered": l.answered,
                "lost": l.lost,
                "rtt_min_s": s(l.rtt_min_ms),
                "rtt_mean_s": s(l.rtt_mean_ms),
                "rtt_max_s": s(l.rtt_max_ms),
            })
        })
        .collect()
}

/// `nmc pump --bidir` and `nmc stream --bidir`: one document whose `end` holds each direction's `end` (`forward`: this
/// host sent; `reverse`: the server sent), as [`pump`] gives them.
pub fn bidir(forward: Value, reverse: Value) -> Value {
    let early = |d: &Value| d["stopped_early"].as_bool().unwrap_or(false);
    let mut doc = document(
        forward["tool"].as_str().unwrap_or("nmc pump"),
        forward["target"].as_str().unwrap_or_default(),
        forward["start_unix_s"].as_f64(),
        early(&forward) || early(&reverse),
        json!({
            "bidir": true,
            "forward": forward["end"],
            "reverse": reverse["end"],
        }),
    );
    doc["parameters"] = forward["parameters"].clone();
    // Each direction has its own connection: this host's end of the forward one.
    doc["local"] = forward["local"].clone();
    doc
}

/// `nmc pump -P N`: one document whose `end` holds each connection's `end` in `streams`, and
/// their `sum` (iperf3's `[SUM]`); `local` is the first connection's end.
pub fn parallel(docs: Vec<Value>, sum: Value) -> Value {
    let first = &docs[0];
    let mut doc = document(
        "nmc pump",
        first["target"].as_str().unwrap_or_default(),
        first["start_unix_s"].as_f64(),
        docs.iter()
            .any(|d| d["stopped_early"].as_bool().unwrap_or(false)),
        json!({
            "parallel": docs.len(),
            "streams": docs.iter().map(|d| d["end"].clone()).collect::<Vec<_>>(),
            "sum": sum,
        }),
    );
    doc["parameters"] = first["parameters"].clone();
    doc["local"] = first["local"].clone();
    doc
}

/// `nmc pump`. With `--reverse`, `end.reverse` is true (the figures are the sending server's)
/// and `end.receiver` holds what this host received.
pub fn pump(
    sum: &nmc_probe::pump::analysis::PumpSummary,
    target: &str,
    start_unix_s: f64,
) -> Value {
    let mut doc = pump_forward(sum, target, start_unix_s);
    if let Some(v) = &sum.receiver {
        doc["end"]["reverse"] = json!(true);
        doc["end"]["receiver"] = json!({
            "messages": v.messages,
            "messages_in_run": v.messages_in_run,
            "received_bytes": v.bytes,
            "throughput_bit_per_s": v.throughput_bps,
            "in_order": v.in_order,
            "out_of_order": v.out_of_order,
            "duplicates": v.duplicates,
            "dropped": v.dropped,
        });
    }
    doc
}

fn pump_forward(
    sum: &nmc_probe::pump::analysis::PumpSummary,
    target: &str,
    start_unix_s: f64,
) -> Value {
    let ms = |v: f64| v / 1e3;
    let mut doc = document(
        "nmc pump",
        target,
        Some(start_unix_s),
        sum.run.interrupted,
        json!({
            "messages_sent": sum.messages_sent,
            "messages_answered": sum.messages_answered,
            "answered_in_run": sum.answered_in_run,
            "run_s": sum.run_seconds,
            "throughput_bit_per_s": sum.throughput_bps,
            "best_150_bit_per_s": sum.best_150_bps,
            "window_limit_bit_per_s": sum.window_limit_bps,
            "window_limited": sum.window_limited,
            "rtt": sum.rtt.as_ref().map(|r| json!({
                "n": r.count,
                "min_s": ms(r.min_ms),
                "median_s": ms(r.median_ms),
                "mean_s": ms(r.mean_ms),
                "p95_s": ms(r.p95_ms),
                "max_s": ms(r.max_ms),
                "stddev_s": ms(r.sd_ms),
            })),
            "autocorrelation": sum.autocorrelation.iter().map(|(lag, r)| json!({"lag": lag, "r": r})).collect::<Vec<_>>(),
            "significant_lags": sum.significant_lags,
            "tcp": sum.run.tcp.map(|t| json!({
                "retransmits": t.retransmits,
                "rtt_s": t.rtt_us as f64 / 1e6,
                "rttvar_s": t.rttvar_us as f64 / 1e6,
                "min_rtt_s": (t.min_rtt_us > 0).then(|| t.min_rtt_us as f64 / 1e6),
                "cwnd_bytes": t.cwnd_bytes(),
                "cwnd_segments": t.cwnd_segments,
                "mss_bytes": t.mss_bytes,
            })),
            "partial": sum.run.partial,
        }),
    );
    if let Some(o) = &sum.omitted {
        doc["end"]["omitted"] = json!({
            "duration_s": o.seconds,
            "answered": o.answered,
            "throughput_bit_per_s": o.throughput_bps,
        });
    }
    doc["parameters"] = pump_parameters(&sum.run.config);
    doc["local"] = json!(sum.run.local);
    doc
}

/// `nmc stream`: one entry per test (one without `--sweep`).
pub fn stream(runs: &[nmc_realtime::stream::sender::StreamRun], target: &str) -> Value {
    let tests: Vec<Value> = runs
        .iter()
        .map(|r| {
            let ms = |v: Option<f64>| v.map(|v| v / 1e3);
            let mut test = json!({
                    "rate_bit_per_s": r.config.rate_bps,
                    "sent_rate_bit_per_s": r.sent_rate_bps(),
                    "sent_s": r.sent_s,
                    "buffer_bytes": r.config.buffer_bits as f64 / 8.0,
                    "buffers_due": r.buffers_due(),
                    "buffers_sent": r.buffers_sent,
                    "kept_up": r.kept_up(),
                    "buffers_completed": r.buffers_completed,
                    "gaps": r.gaps.count(),
                    "max_gap_s": ms(r.gaps.max_ms()),
                    "avg_gap_s": ms(r.gaps.avg_ms()),
                    "min_gap_s": ms(r.gaps.min_ms()),
                    "lost": lost(r),
                    "sink_received": r.sink_received,
                    "jitter_s": r.arrivals.and_then(|a| a.jitter_ns).map(|j| j as f64 / 1e9),
                    "out_of_order": r.arrivals.map(|a| a.out_of_order),
                    "partial": r.partial,
            });
            // Issue 75 §2: what arrived, over the sending time (an optional key).
            if let Some(bps) = r.received_rate_bps() {
                test["received_rate_bit_per_s"] = json!(bps);
            }
            // -O: the warm-up, left out of every figure above.
            if let Some(o) = &r.omitted {
                test["omitted"] = json!(o);
            }
            with_reverse(r, test)
        })
        .collect();
    let mut doc = document(
        "nmc stream",
        target,
        runs.first().map(|r| r.started_unix_s as f64),
        runs.iter().any(|r| r.partial.is_some()),
        json!({ "tests": tests }),
    );
    if let Some(r) = runs.first() {
        doc["parameters"] = stream_parameters(&r.config);
        doc["local"] = json!(r.local);
    }
    doc
}

/// Buffers lost: over UDP with --ack those never acknowledged, without it those missing from
/// the sink's tally; over TCP none; `None` when it cannot be known (no tally came back).
pub fn lost(r: &nmc_realtime::stream::sender::StreamRun) -> Option<u64> {
    match (r.config.transport, r.config.ack) {
        (nmc_realtime::stream::Transport::Tcp, _) => Some(0),
        (nmc_realtime::stream::Transport::Udp, true) => Some(r.acks_lost),
        (nmc_realtime::stream::Transport::Udp, false) => r
            .sink_received
            .map(|got| r.buffers_sent.saturating_sub(got)),
    }
}

/// A run's JSON object, with `"reverse": true` and what the client `received` when the sink
/// sent (`--reverse`); a forward run's object as it is.
pub fn with_reverse(
    r: &nmc_realtime::stream::sender::StreamRun,
    mut v: serde_json::Value,
) -> serde_json::Value {
    if let Some(got) = &r.received {
        v["reverse"] = serde_json::json!(true);
        v["received"] = serde_json::json!({
            "buffers": got.buffers,
            "received_bytes": got.bytes,
        });
    }
    v
}
