//! `nmc rrul`: latency under load (issue 75 §6), as flent's RRUL test: pump flows each way with
//! the echo probe running throughout, one time series. The work is in `nmc_probe::load`; this
//! file turns options into its types, draws and prints.

use crate::Outcome;
use crate::cmd::progress::Progress;
use crate::cmd::units;
use anyhow::{Context, Result};
use clap::Args;
use nmc_probe::load::{LoadConfig, LoadRun, bulk_flow};
use nmc_probe::pump::PumpTransport;
use nmc_probe::time::Nanos;
use nmc_probe::udp::DEFAULT_PORT;
use nmc_report::plot::{Chart, Series, SeriesStyle};
use nmc_sim::{RateFormat, SimDuration};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    nmc serve --listen 127.0.0.1:8890 &          # every instrument's server\n  \
    nmc rrul 127.0.0.1                           # 4 flows each way for 30 s, probed every 100 ms\n  \
    nmc rrul example.net --up 1 --down 0 -t 20   # one upload, 20 s\n  \
    nmc rrul example.net -J --out out/rrul        # the document on stdout, files in out/rrul\n\n\
Latency under load, as flent's RRUL: the echo probe runs for the whole run; after --before the \
flows start (--up from this host, --down from the server, each a pump flow of --size messages \
with --outstanding in flight, TCP by default) and run for --duration; then the probe goes on \
alone for --after. Each --step of the run gives the bits each way and the probe's round trips \
(by send time). The report compares the round trips while the flows ran with those before and \
after: the difference of the medians is what the flows' queues added. Writes timeseries.csv, \
summary.json, throughput.svg and latency.svg. Exit 0 when the run completed, 2 on bad input, \
3 when the server cannot be reached, 5 when stopped by the user (what was measured is written); \
with -J the document is printed whatever happens, with \"error\" on failure.")]
pub struct RrulArgs {
    /// HOST, HOST:PORT or `[IPv6]:PORT` of an `nmc serve` (default port 8890).
    pub target: String,
    /// Flows this host sends (uploads).
    #[arg(long, default_value_t = 4)]
    pub up: u32,
    /// Flows the server sends to this host (downloads, as the pump's -R).
    #[arg(long, default_value_t = 4)]
    pub down: u32,
    /// How long the flows run: 30s, or a bare number of seconds (as iperf3 -t).
    #[arg(short = 't', long, default_value = "30s", value_parser = units::duration)]
    pub duration: SimDuration,
    /// The probe alone before the flows start (the idle path).
    #[arg(long, default_value = "5s", value_parser = units::duration)]
    pub before: SimDuration,
    /// The probe alone after the flows end (the queue draining, the idle path again).
    #[arg(long, default_value = "5s", value_parser = units::duration)]
    pub after: SimDuration,
    /// The time series' step.
    #[arg(long, default_value = "200ms", value_parser = units::duration)]
    pub step: SimDuration,
    /// One probe volley every this, whatever the replies.
    #[arg(long, default_value = "100ms", value_parser = units::duration)]
    pub probe_interval: SimDuration,
    /// The probe's datagram length, bytes (IP datagram; at least the probe's floor).
    #[arg(long, default_value_t = 100)]
    pub probe_length: u32,
    /// Each flow's message size: bytes, or 64KiB, 64kB, iperf3's 64K (= 64KiB).
    #[arg(long, default_value = "64KiB", value_parser = super::pump::parse_bytes)]
    pub size: u32,
    /// Each flow's messages in flight at most.
    #[arg(long, default_value_t = 64)]
    pub outstanding: u32,
    /// The flows' transport: tcp or udp.
    #[arg(long, default_value = "tcp", value_parser = super::pump::parse_transport)]
    pub transport: PumpTransport,
    /// The server's shared secret (as `nmc serve --secret-file`).
    #[arg(long, value_name = "FILE")]
    pub secret_file: Option<PathBuf>,
    /// Output folder (default: `out/rrul/<target>`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print one JSON document on stdout (schema nmc-instrument/2) instead of the report.
    #[arg(short = 'J', long)]
    pub json: bool,
    #[command(flatten)]
    pub family: super::Family,
}

fn nanos(d: SimDuration) -> Nanos {
    Nanos(d.as_nanos())
}

pub fn run(a: RrulArgs) -> Result<Outcome> {
    let key = crate::cmd::gate::key_from(&a.secret_file)?;
    let load = nanos(a.duration);
    let mut flow = bulk_flow(load);
    flow.size = a.size;
    flow.outstanding = a.outstanding;
    flow.transport = a.transport;
    flow.check()?;
    let target = super::resolve_target(&a.target, DEFAULT_PORT, a.family)?;
    let cfg = LoadConfig {
        target,
        up: a.up,
        down: a.down,
        before: nanos(a.before),
        load,
        after: nanos(a.after),
        step: nanos(a.step),
        probe_interval: nanos(a.probe_interval),
        probe_length: a.probe_length,
        flow,
        key,
    };
    cfg.check()?;
    super::json::begin();
    let label = target.to_string();
    eprintln!(
        "nmc rrul to {label}: {} up, {} down ({} messages of {} bytes, {} in flight), {} idle, {} loaded, {} idle; probe every {}",
        cfg.up,
        cfg.down,
        match a.transport {
            PumpTransport::Tcp => "tcp",
            PumpTransport::Udp => "udp",
        },
        a.size,
        a.outstanding,
        cfg.before.human(),
        cfg.load.human(),
        cfg.after.human(),
        cfg.probe_interval.human(),
    );
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out/rrul").join(super::folder_name(&label)));
    let dir = nmc_report::OutDir::begin(&out)?;
    let stop = nmc_probe::signal::stop_on_signals()?;
    let progress = Progress::new(&label);
    let total = cfg.total().0 as f64;
    let started = std::time::Instant::now();
    let result = std::thread::scope(|sc| {
        let h = sc.spawn(|| nmc_probe::load::run(&cfg, stop));
        while !h.is_finished() {
            progress.set((started.elapsed().as_nanos() as f64 / total).min(1.0));
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        h.join()
    });
    progress.finish();
    let run = result.map_err(|_| anyhow::anyhow!("the run's thread panicked"))??;
    let report = text(&label, &cfg, &run);
    if !a.json {
        out!("{report}");
    }
    write_files(dir.path(), &cfg, &run)?;
    let shown = super::shown(&dir.final_path(dir.path()));
    dir.commit()?;
    let failure = run.interrupted.then(|| {
        super::exit::stopped("stopped by the user: what was measured is printed and written")
    });
    if a.json {
        super::json::print_run(document(&label, &cfg, &run), failure.as_ref())?;
    } else {
        outln!("wrote timeseries.csv, summary.json, throughput.svg and latency.svg in {shown}");
    }
    match failure {
        Some(f) => Err(f),
        None => Ok(Outcome::Ok),
    }
}

fn ms(ns: f64) -> f64 {
    ns / 1e6
}

/// The report.
fn text(label: &str, cfg: &LoadConfig, run: &LoadRun) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "nmc rrul to {label}: {} up, {} down for {}{}",
        cfg.up,
        cfg.down,
        cfg.load.human(),
        if run.interrupted {
            " (stopped early)"
        } else {
            ""
        }
    );
    for (name, st, (n, lost)) in [
        ("idle", &run.idle_rtt, run.idle_probes),
        ("loaded", &run.loaded_rtt, run.loaded_probes),
    ] {
        match st {
            Some(d) => {
                let _ = writeln!(
                    s,
                    "  {name:<7} rtt ms: min {:.3}  median {:.3}  p95 {:.3}  max {:.3}  ({} volleys, {lost} lost)",
                    ms(d.min_ns as f64),
                    ms(d.median_ns as f64),
                    ms(d.p95_ns as f64),
                    ms(d.max_ns as f64),
                    n
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "  {name:<7} rtt: no answered volley ({n} sent, {lost} lost)"
                );
            }
        }
    }
    if let Some(d) = run.added_median_ns {
        let _ = writeln!(
            s,
            "  latency under load: {:+.3} ms on the median round trip (loaded − idle)",
            ms(d as f64)
        );
    }
    let _ = writeln!(
        s,
        "  carried: up {}  down {}  (mean over the load; {} flows)",
        RateFormat::Auto.show(run.up_bit_per_s),
        RateFormat::Auto.show(run.down_bit_per_s),
        run.flows.len()
    );
    s
}

/// `timeseries.csv`, `summary.json`, `throughput.svg`, `latency.svg` into `dir`.
fn write_files(dir: &Path, cfg: &LoadConfig, run: &LoadRun) -> Result<()> {
    let mut csv = String::from(
        "start_s,loaded,up_bit_per_s,down_bit_per_s,probes,lost,rtt_mean_ms,rtt_max_ms\n",
    );
    let opt = |v: Option<f64>| v.map_or(String::new(), |x| format!("{:.6}", x * 1e3));
    for st in &run.steps {
        let _ = writeln!(
            csv,
            "{:.3},{},{:.0},{:.0},{},{},{},{}",
            st.start_s,
            st.loaded,
            st.up_bit_per_s,
            st.down_bit_per_s,
            st.probes,
            st.lost,
            opt(st.rtt_mean_s),
            opt(st.rtt_max_s)
        );
    }
    let write = |name: &str, body: &str| {
        std::fs::write(dir.join(name), body).with_context(|| format!("writing {name}"))
    };
    write("timeseries.csv", &csv)?;
    let summary = json!({
        "tool": "nmc rrul",
        "version": env!("CARGO_PKG_VERSION"),
        "config": parameters(cfg),
        "run": run,
    });
    write("summary.json", &serde_json::to_string_pretty(&summary)?)?;
    let (lo, hi) = (
        cfg.before.0 as f64 / 1e9,
        (cfg.before.0 + cfg.load.0) as f64 / 1e9,
    );
    let mid = |st: &nmc_probe::load::Step| st.start_s + cfg.step.0 as f64 / 2e9;
    let marks = |top: f64| {
        Series::new(
            "flows start / stop",
            SeriesStyle::Segments,
            vec![(lo, 0.0), (lo, top), (hi, 0.0), (hi, top)],
        )
    };
    let up: Vec<(f64, f64)> = run
        .steps
        .iter()
        .map(|st| (mid(st), st.up_bit_per_s / 1e6))
        .collect();
    let down: Vec<(f64, f64)> = run
        .steps
        .iter()
        .map(|st| (mid(st), st.down_bit_per_s / 1e6))
        .collect();
    let top = up
        .iter()
        .chain(&down)
        .map(|p| p.1)
        .fold(0.0, f64::max)
        .max(1e-3);
    let chart = Chart::new(
        "Latency under load: what the flows carried (per step)",
        "time (s)",
        "throughput (Mbit/s)",
    )
    .with(marks(top))
    .with(Series::new("up (this host sends)", SeriesStyle::Line, up))
    .with(Series::new(
        "down (the server sends)",
        SeriesStyle::Line,
        down,
    ));
    write(
        "throughput.svg",
        &chart.to_svg().map_err(anyhow::Error::msg)?,
    )?;
    let rtt: Vec<(f64, f64)> = run
        .steps
        .iter()
        .map(|st| (mid(st), st.rtt_mean_s.map_or(f64::NAN, |r| r * 1e3)))
        .collect();
    let rtt_max: Vec<(f64, f64)> = run
        .steps
        .iter()
        .map(|st| (mid(st), st.rtt_max_s.map_or(f64::NAN, |r| r * 1e3)))
        .collect();
    let top = rtt_max
        .iter()
        .map(|p| p.1)
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
        .max(1e-3);
    let chart = Chart::new(
        "Latency under load: the probe's round trip (per step, by send time)",
        "time (s)",
        "round trip (ms)",
    )
    .with(marks(top))
    .with(Series::new("mean", SeriesStyle::Line, rtt))
    .with(Series::new("max", SeriesStyle::Dashed, rtt_max));
    write("latency.svg", &chart.to_svg().map_err(anyhow::Error::msg)?)?;
    Ok(())
}

fn secs(n: Nanos) -> f64 {
    n.0 as f64 / 1e9
}

fn parameters(cfg: &LoadConfig) -> Value {
    json!({
        "up": cfg.up,
        "down": cfg.down,
        "before_s": secs(cfg.before),
        "duration_s": secs(cfg.load),
        "after_s": secs(cfg.after),
        "step_s": secs(cfg.step),
        "probe_interval_s": secs(cfg.probe_interval),
        "probe_length_bytes": cfg.probe_length,
        "size_bytes": cfg.flow.size,
        "outstanding": cfg.flow.outstanding,
        "transport": match cfg.flow.transport {
            PumpTransport::Tcp => "tcp",
            PumpTransport::Udp => "udp",
        },
    })
}

/// The -J document (schemas/nmc-instrument-2/rrul.schema.json).
fn document(label: &str, cfg: &LoadConfig, run: &LoadRun) -> Value {
    let delays = |d: &Option<nmc_probe::analysis::DelayStats>| d.as_ref().map(super::json::delays);
    let mut doc = super::json::document(
        "nmc rrul",
        label,
        Some(run.started_unix_ns as f64 / 1e9),
        run.interrupted,
        json!({
            "idle_rtt": delays(&run.idle_rtt),
            "loaded_rtt": delays(&run.loaded_rtt),
            "added_median_s": run.added_median_ns.map(|d| d as f64 / 1e9),
            "idle_volleys": run.idle_probes.0,
            "idle_lost": run.idle_probes.1,
            "loaded_volleys": run.loaded_probes.0,
            "loaded_lost": run.loaded_probes.1,
            "up_bit_per_s": run.up_bit_per_s,
            "down_bit_per_s": run.down_bit_per_s,
            "flows": run.flows.iter().map(|f| json!({
                "direction": f.direction,
                "bytes": f.bytes,
                "bit_per_s": f.bit_per_s,
            })).collect::<Vec<_>>(),
            "steps": run.steps.iter().map(|st| json!({
                "start_s": st.start_s,
                "loaded": st.loaded,
                "up_bit_per_s": st.up_bit_per_s,
                "down_bit_per_s": st.down_bit_per_s,
                "probes": st.probes,
                "lost": st.lost,
                "rtt_mean_s": st.rtt_mean_s,
                "rtt_max_s": st.rtt_max_s,
            })).collect::<Vec<_>>(),
        }),
    );
    doc["parameters"] = parameters(cfg);
    doc
}
