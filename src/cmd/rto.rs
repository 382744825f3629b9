//! `nmc rto`: retransmission-timeout estimators on delay traces (RFC 889 §3 and after).

use crate::Outcome;
use crate::cmd::parse_unit;
use anyhow::{Context as _, Result, anyhow, bail};
use clap::{Args, Subcommand};
use nmc_rto::eval::{self, Charge, RtxCharge};
use nmc_rto::r889;
use nmc_rto::synth::PathModel;
use nmc_rto::{Estimator, Nanos, Trace, estimator, sweep, trace};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct RtoArgs {
    #[command(subcommand)]
    pub command: RtoCommand,
}

#[derive(Subcommand)]
pub enum RtoCommand {
    /// Replay traces through estimators: the RFC 889 table, CSV, and a Fuzzball plot per estimator.
    Evaluate(EvaluateArgs),
    /// Try an estimator over a grid of its parameters: CSV and a heat map of mean efficiency.
    Sweep(SweepArgs),
    /// Write a synthetic delay trace (CSV), fitted to an RFC 889 path or to a mean and CoV.
    Synth(SynthArgs),
}

/// How replays charge time (shared by evaluate and sweep).
#[derive(Args)]
pub struct ChargeArgs {
    /// A reply later than this counts as lost, with its unit (RFC 889: 30s).
    #[arg(long, default_value = "30s", value_parser = parse_unit::<Nanos>)]
    pub loss_limit: Nanos,
    /// What a superfluous retransmission costs: delay (the measured delay), timeout, or excess
    /// (delay − timeout).
    #[arg(long, default_value = "delay", value_parser = parse_charge)]
    pub rtx_charge: RtxCharge,
    /// flent files: the data series to read (default: the first `Ping ...` series).
    #[arg(long)]
    pub series: Option<String>,
}

impl ChargeArgs {
    /// The charge rule; `--loss-limit 0s` is refused (issue 57 §5): every volley would be lost
    /// and the table would print a mean of 0 ms as if something had been measured.
    fn charge(&self) -> Result<Charge> {
        if self.loss_limit == Nanos(0) {
            bail!(
                "--loss-limit 0s: must be positive (a reply later than it counts as lost, so 0 \
                 loses every volley and leaves nothing to evaluate)"
            );
        }
        Ok(Charge {
            loss_limit: self.loss_limit,
            rtx: self.rtx_charge,
        })
    }
}

#[derive(Args)]
#[command(
    after_help = "Estimators: rsre (RFC 793), mills (RFC 889), jacobson (SIGCOMM '88), rfc6298, \
linux, quic (RFC 9002); override parameters with NAME:key=value,... Durations take their unit \
(rfc6298:min=200ms,G=10ms; a bare number is refused).\n\n\
Traces: nmc CSV (send_s,length,delay_ms,seq,path; see `cargo doc -p nmc-rto`), irtt JSON \
(.json, .json.gz), flent data files (.flent.gz).\n\n\
Examples:\n  nmc rto evaluate trace.csv\n  \
nmc rto evaluate run.json.gz --estimator mills --estimator rsre:F=0.875,G=2 --estimator rfc6298 --out out/rto\n  \
nmc rto evaluate a.csv b.flent.gz --estimator mills:F1=0.9375,F2=0.75,G=2 --rtx-charge timeout"
)]
pub struct EvaluateArgs {
    /// Trace files (nmc CSV, irtt JSON, flent .flent.gz; gzip allowed).
    #[arg(required = true)]
    pub traces: Vec<PathBuf>,
    /// Estimator spec NAME[:key=value,...] (repeatable; default: mills and rsre, RFC 889's pair).
    #[arg(long = "estimator", short = 'e', value_name = "SPEC", value_parser = parse_estimator)]
    pub estimators: Vec<Spec>,
    /// Output folder for summary.csv, per-volley CSVs and SVG plots.
    #[arg(long, default_value = "out/rto")]
    pub out: PathBuf,
    #[command(flatten)]
    pub charge: ChargeArgs,
}

#[derive(Args)]
#[command(
    after_help = "Grid: key=a..b/step, key=v1|v2|v3 or key=v, one to three keys of the \
estimator; the first is the heat map's x axis, the second its y axis, the third makes panels.\n\n\
Examples:\n  nmc rto sweep foe.csv isid.csv --grid 'F1=0.8..0.975/0.025,F2=0.5..0.95/0.05,G=1.5|2|2.5'"
)]
pub struct SweepArgs {
    /// Trace files.
    #[arg(required = true)]
    pub traces: Vec<PathBuf>,
    /// The grid, e.g. F1=0.8..0.975/0.025,F2=0.5..0.9/0.05,G=2.
    #[arg(long)]
    pub grid: String,
    /// The estimator whose parameters are swept (other parameters as given here).
    #[arg(long, default_value = "mills", value_parser = parse_estimator)]
    pub estimator: Spec,
    /// Output folder for sweep.csv and sweep.svg.
    #[arg(long, default_value = "out/rto-sweep")]
    pub out: PathBuf,
    #[command(flatten)]
    pub charge: ChargeArgs,
}

#[derive(Args)]
#[command(
    after_help = "Presets (fitted to RFC 889 §3's table): FOE, ISID, ISIA, FACC, UCL.\n\n\
Examples:\n  nmc rto synth --preset FOE --seed 7 --out foe.csv\n  \
nmc rto synth --mean 300ms --cov 0.5 --loss 0.01 --volleys 2000 --out path.csv"
)]
pub struct SynthArgs {
    /// An RFC 889 path: mean, CoV, loss rate and netspurt shape as fitted for R889-3.
    #[arg(long)]
    pub preset: Option<String>,
    /// Target mean round-trip delay (with --cov, instead of a preset).
    #[arg(long, value_parser = parse_unit::<Nanos>)]
    pub mean: Option<Nanos>,
    /// Target coefficient of variation.
    #[arg(long)]
    pub cov: Option<f64>,
    /// Probability that a volley gets no reply.
    #[arg(long)]
    pub loss: Option<f64>,
    /// Volleys in the run.
    #[arg(long)]
    pub volleys: Option<usize>,
    /// Minimum calm volleys between netspurts.
    #[arg(long)]
    pub calm_min: Option<usize>,
    /// Mean further calm volleys before a netspurt.
    #[arg(long)]
    pub calm_mean: Option<f64>,
    /// Mean netspurt length, volleys.
    #[arg(long)]
    pub spurt_len: Option<f64>,
    /// Mean extra delay of a netspurt.
    #[arg(long, value_parser = parse_unit::<Nanos>)]
    pub spurt_excess: Option<Nanos>,
    /// Run seed (recorded in the file).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output CSV file (`-` for standard output).
    #[arg(long, default_value = "-")]
    pub out: PathBuf,
}

/// A parsed estimator spec: the full `describe()` text that rebuilds it.
#[derive(Clone)]
pub struct Spec {
    pub describe: String,
}

impl Spec {
    fn build(&self) -> Box<dyn Estimator> {
        estimator::parse(&self.describe).expect("validated when parsed")
    }
}

fn parse_estimator(s: &str) -> Result<Spec, String> {
    let e = estimator::parse(s).map_err(|e| e.to_string())?;
    Ok(Spec {
        describe: e.describe(),
    })
}

fn parse_charge(s: &str) -> Result<RtxCharge, String> {
    RtxCharge::parse(s).ok_or_else(|| format!("`{s}` is not delay, timeout or excess"))
}

pub fn run(a: RtoArgs) -> Result<Outcome> {
    match a.command {
        RtoCommand::Evaluate(e) => evaluate(e),
        RtoCommand::Sweep(s) => run_sweep(s),
        RtoCommand::Synth(s) => synth(s),
    }
}

/// The traces at `paths`, each with at least one volley answered within the loss limit: one
/// with none (every reply lost, or later than `--loss-limit`) has no delay to estimate from
/// and is refused in one line (issue 57 §5), not tabulated as a mean of 0 ms.
fn load_traces(paths: &[PathBuf], series: Option<&str>, charge: &Charge) -> Result<Vec<Trace>> {
    paths
        .iter()
        .map(|p| {
            let t = trace::load_series(p, series)?;
            if t.is_empty() {
                bail!("{}: no volleys in the trace", p.display());
            }
            let answered = |d: &Option<Nanos>| d.is_some_and(|d| d <= charge.loss_limit);
            if !t.probes.iter().any(|v| answered(&v.delay)) {
                bail!(
                    "{}: none of its {} volleys was answered within --loss-limit {}: nothing to \
                     evaluate",
                    p.display(),
                    t.len(),
                    charge.loss_limit
                );
            }
            Ok(t)
        })
        .collect()
}

/// A file-name-safe version of a label.
fn safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<()> {
    nmc_report::files::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

fn evaluate(a: EvaluateArgs) -> Result<Outcome> {
    let charge = a.charge.charge()?;
    let specs = if a.estimators.is_empty() {
        vec![
            parse_estimator("mills").map_err(|e| anyhow!(e))?,
            parse_estimator("rsre").map_err(|e| anyhow!(e))?,
        ]
    } else {
        a.estimators.clone()
    };
    let traces = load_traces(&a.traces, a.charge.series.as_deref(), &charge)?;
    // Issue 33: written beside --out and put in place whole.
    let dir = nmc_report::OutDir::begin(&a.out)?;
    let mut rows = Vec::new();
    let mut files = 0;
    for t in &traces {
        for (i, spec) in specs.iter().enumerate() {
            let est = spec.build();
            let (summary, steps) = eval::replay(t, est.as_ref(), &charge);
            let stem = format!("{}.{}-{}", safe(&t.name), i + 1, est.name());
            let mut buf = Vec::new();
            eval::write_steps_csv(&steps, &mut buf)?;
            write(&dir.path().join(format!("{stem}.csv")), buf)?;
            let svg = nmc_rto::plot::fuzzball_svg(&summary, &steps).map_err(|e| anyhow!(e))?;
            write(&dir.path().join(format!("{stem}.svg")), svg)?;
            files += 2;
            rows.push(summary);
        }
    }
    out!("{}", eval::format_table(&rows, &charge));
    let mut buf = Vec::new();
    eval::write_summary_csv(&rows, &charge, &mut buf)?;
    write(&dir.path().join("summary.csv"), buf)?;
    dir.commit()?;
    outln!(
        "\nwrote summary.csv and {files} per-volley CSV/SVG files to {}",
        super::shown(&a.out)
    );
    Ok(Outcome::Ok)
}

fn run_sweep(a: SweepArgs) -> Result<Outcome> {
    let charge = a.charge.charge()?;
    let base = a.estimator.build();
    let axes = sweep::parse_grid(&a.grid, base.as_ref())?;
    let traces = load_traces(&a.traces, a.charge.series.as_deref(), &charge)?;
    let s = sweep::run(base.as_ref(), &axes, &traces, &charge);
    let dir = nmc_report::OutDir::begin(&a.out)?;
    let mut buf = Vec::new();
    sweep::write_csv(&s, &charge, &mut buf)?;
    write(&dir.path().join("sweep.csv"), buf)?;
    let svg = sweep::heatmap(&s).map_err(|e| anyhow!(e))?;
    write(&dir.path().join("sweep.svg"), svg)?;
    dir.commit()?;
    outln!("# {}", charge.describe());
    outln!(
        "{} grid points of {} over {} trace(s); {}",
        s.points.len(),
        eval::short(&s.base),
        traces.len(),
        s
    );
    outln!("wrote sweep.csv and sweep.svg to {}", super::shown(&a.out));
    Ok(Outcome::Ok)
}

fn synth(a: SynthArgs) -> Result<Outcome> {
    let (mut model, mean, cov) = match &a.preset {
        Some(name) => {
            let p = r889::presets()
                .into_iter()
                .find(|p| p.host.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    let known: Vec<&str> = r889::presets().iter().map(|p| p.host).collect();
                    anyhow!("unknown preset `{name}` (known: {})", known.join(", "))
                })?;
            let row = r889::published(p.host).expect("preset rows exist");
            (p.shape, row.mean_ms / 1e3, row.cov)
        }
        None => {
            let (Some(mean), Some(cov)) = (a.mean, a.cov) else {
                bail!("give --preset NAME, or both --mean and --cov");
            };
            (PathModel::default(), mean.as_secs_f64(), cov)
        }
    };
    if let Some(v) = a.volleys {
        model.volleys = v;
    }
    if let Some(v) = a.loss {
        model.loss = v;
    }
    if let Some(v) = a.calm_min {
        model.calm_min = v;
    }
    if let Some(v) = a.calm_mean {
        model.calm_mean = v;
    }
    if let Some(v) = a.spurt_len {
        model.spurt_len = v;
    }
    if let Some(v) = a.spurt_excess {
        model.spurt_excess = v.as_secs_f64();
    }
    let mean = a.mean.map_or(mean, Nanos::as_secs_f64);
    let cov = a.cov.unwrap_or(cov);
    let model = model.fit(mean, cov)?;
    let t = model.generate(a.seed)?;
    let mut buf = format!(
        "# nmc rto synth: path {}, seed {}, base {:.6}s, jitter {:.6}s, calm_min {}, calm_mean {}, spurt_len {}, spurt_excess {:.6}s, loss {}\n",
        model.name,
        a.seed,
        model.base,
        model.jitter,
        model.calm_min,
        model.calm_mean,
        model.spurt_len,
        model.spurt_excess,
        model.loss
    )
    .into_bytes();
    trace::csv::write(&t, &mut buf)?;
    if a.out.as_os_str() == "-" {
        use std::io::Write as _;
        std::io::stdout()
            .write_all(&buf)
            .context("writing the trace to stdout")?;
    } else {
        write(&a.out, buf)?;
        eprintln!("wrote {} volleys to {}", t.len(), super::shown(&a.out));
    }
    Ok(Outcome::Ok)
}
