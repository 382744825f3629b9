//! What a run leaves behind: the JSON summary, the text report, the scatter plot, and the files
//! in the output directory.
//!
//! `--out DIR` gets three files:
//! - `trace.csv`: one row per volley ([`crate::trace`]);
//! - `summary.json`: a [`Summary`];
//! - `delay-vs-length.svg`: one-way delay against length, with the fitted lines.

use crate::Error;
use crate::analysis::{
    Answer, BEST_SPLIT_MIN_F, DelayStats, Fits, LineFit, LossSplit, OneWaySplit, RFC889_HEADER,
    Rfc889Cells, SplitFit, Variation, fit_all, rfc889_row,
};
use crate::driver::ProbeRun;
use crate::probe::Volley;
use crate::trace;
use nmc_report::plot::{Chart, Series, SeriesStyle};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Everything a run measured, reduced. Serialised as `summary.json`.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Name of the program that wrote the summary, `nmc echo probe`.
    pub tool: &'static str,
    /// Version of the program that wrote the summary (the crate's).
    pub version: &'static str,
    /// The run itself: target, transport, settings, clock, counters (its volleys go to
    /// `trace.csv`).
    #[serde(flatten)]
    pub run: ProbeRun,
    /// Volleys resolved (answered or lost).
    pub volleys: usize,
    /// Volleys answered within the timeout.
    pub answered: usize,
    /// Volleys declared lost.
    pub lost: usize,
    /// `lost / volleys`; 0 when no volley was resolved.
    pub loss_fraction: f64,
    /// One-way-normalised delay (round trip / 2).
    pub one_way: Option<DelayStats>,
    /// Round trips of the answered volleys, ns.
    pub rtt: Option<DelayStats>,
    /// Server turnaround reported in UDP replies.
    pub server_turnaround: Option<DelayStats>,
    /// Inter-packet delay variation and RFC 3550 jitter between consecutive volleys
    /// ([`Variation`]); `None` when no two consecutive volleys were answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variation: Option<Variation>,
    /// The round trip split into up and down by the server's wall-clock receive times (UDP to
    /// `nmc serve`; [`OneWaySplit`]: exact only with agreeing clocks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_way_split: Option<OneWaySplit>,
    /// Losses split up and down by the server's count ([`LossSplit`]; UDP to `nmc serve`,
    /// volleys of at least 68 bytes, 84 with a secret).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loss_split: Option<LossSplit>,
    /// The least-squares fits of one-way delay on length: one line, the split asked for, the best
    /// split.
    pub fits: Fits,
    /// The break asked for (RFC 889: 126 octets on ARPANET paths).
    pub break_at: Option<u32>,
    /// The trace's columns, for a reader that wants to check.
    pub trace_columns: [&'static str; 6],
}

/// One line of the report for a set of times, in ms (with its coefficient of variation when
/// `cov`).
fn stats_line(s: &mut String, name: &str, d: &DelayStats, cov: bool) {
    let ms = |x: f64| x / 1e6;
    let _ = write!(
        s,
        "  {name:<14} ms: min {:.3}  median {:.3}  mean {:.3}  p95 {:.3}  max {:.3}",
        ms(d.min_ns as f64),
        ms(d.median_ns as f64),
        ms(d.mean_ns),
        ms(d.p95_ns as f64),
        ms(d.max_ns as f64),
    );
    if cov {
        let _ = write!(s, "  (CoV {:.3})", d.cov);
    }
    s.push('\n');
}

/// An answered volley as the variation figures read it ([`Answer`]); its two ways where the
/// server gave its receive time: up = server receive − probe send (the monotonic send time on
/// the wall clock, `origin_unix_ns` + sent), down = probe receive − server receive −
/// turnaround. `None` for a volley not answered.
pub fn answer(v: &Volley, origin_unix_ns: i128) -> Option<Answer> {
    let (sent, rtt) = (v.sent?.0, v.rtt?.0);
    let up_down_ns = v.server_rx_unix_ns.map(|rx| {
        let sent_wall = origin_unix_ns + i128::from(sent);
        let up = i128::from(rx) - sent_wall;
        let turn = i128::from(v.server_turnaround.map_or(0, |t| t.0));
        let down = sent_wall + i128::from(rtt) - i128::from(rx) - turn;
        let clamp = |x: i128| x.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64;
        (clamp(up), clamp(down))
    });
    Some(Answer {
        seq: v.seq,
        rtt_ns: rtt,
        up_down_ns,
    })
}

/// The line `nmc echo probe` opens with: what it will send, to whom, how, and when a volley
/// counts as lost.
pub fn plan_line(cfg: &crate::probe::ProbeConfig, target: &str, icmp: bool) -> String {
    use crate::probe::Pacing;
    format!(
        "nmc echo probe: {} volleys to {} over {}, lengths {}, {}, lost after {}{}",
        cfg.count,
        target,
        if icmp { "icmp" } else { "udp" },
        cfg.lengths,
        match cfg.pacing {
            Pacing::OneInFlight { gap_ns } => {
                format!("one in flight, at least {} apart", gap_ns.human())
            }
            Pacing::Interval { interval_ns } => format!("one every {}", interval_ns.human()),
        },
        cfg.timeout.human(),
        match cfg.open_timeout {
            None => String::new(),
            Some(t) => format!("; gives up if nothing answers within {}", t.human()),
        },
    )
}

/// An interval line (issue 34), as iperf3 prints them: the interval, volleys sent, answered
/// and lost in it, and the round trips of its replies.
pub fn interval_text(l: &crate::IntervalLine) -> String {
    let ms = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.3}"));
    format!(
        "[{:7.2}-{:7.2} s] sent {:>5}  answered {:>5}  lost {:>4}  rtt min/mean/max {}/{}/{} ms",
        l.start_s,
        l.end_s,
        l.sent,
        l.answered,
        l.lost,
        ms(l.rtt_min_ms),
        ms(l.rtt_mean_ms),
        ms(l.rtt_max_ms)
    )
}

/// A line per reply, as irtt and ping print them (issue 75 §5): its sequence number, length
/// and round trip, each way's delay where the server gave its time, and the IPDV from the
/// reply before when that was the previous volley's.
#[derive(Debug, Default)]
pub struct ReplyLines {
    /// The last answered volley: its sequence number and round trip, ns.
    last: Option<(u32, u64)>,
}

impl ReplyLines {
    /// The line for volley `v` (`None` if it was not answered); `origin_unix_ns` is the run's
    /// start on the wall clock ([`answer`]).
    pub fn line(&mut self, v: &Volley, origin_unix_ns: i128) -> Option<String> {
        let w = answer(v, origin_unix_ns)?;
        let ms = |ns: i64| ns as f64 / 1e6;
        let mut text = format!(
            "seq={} len={} rtt={:.3} ms",
            w.seq,
            v.length,
            w.rtt_ns as f64 / 1e6
        );
        if let Some((up, down)) = w.up_down_ns {
            text += &format!(" up={:.3} ms down={:.3} ms", ms(up), ms(down));
        }
        if let Some((seq, rtt)) = self.last
            && seq + 1 == w.seq
        {
            text += &format!(" ipdv={:.3} ms", ms(w.rtt_ns as i64 - rtt as i64));
        }
        self.last = Some((w.seq, w.rtt_ns));
        Some(text)
    }
}

impl Summary {
    /// Reduces a run. `break_at` is the split to fit besides one line and the best split.
    pub fn of(run: ProbeRun, break_at: Option<u32>) -> Summary {
        let answered: Vec<&Volley> = run
            .volleys
            .iter()
            .filter(|v| !v.lost && v.rtt.is_some())
            .collect();
        let lost = run.volleys.iter().filter(|v| v.lost).count();
        let one_way: Vec<u64> = answered
            .iter()
            .filter_map(|v| v.one_way())
            .map(|d| d.0)
            .collect();
        let rtt: Vec<u64> = answered.iter().filter_map(|v| v.rtt).map(|d| d.0).collect();
        let turn: Vec<u64> = answered
            .iter()
            .filter_map(|v| v.server_turnaround)
            .map(|d| d.0)
            .collect();
        let points: Vec<(u32, f64)> = answered
            .iter()
            .filter_map(|v| v.one_way().map(|d| (v.length, d.0 as f64)))
            .collect();
        let answers: Vec<Answer> = answered
            .iter()
            .filter_map(|v| answer(v, run.origin_unix_ns))
            .collect();
        let volleys = answered.len() + lost;
        Summary {
            tool: "nmc echo probe",
            version: env!("CARGO_PKG_VERSION"),
            volleys,
            answered: answered.len(),
            lost,
            loss_fraction: if volleys > 0 {
                lost as f64 / volleys as f64
            } else {
                0.0
            },
            one_way: DelayStats::of(&one_way),
            rtt: DelayStats::of(&rtt),
            server_turnaround: DelayStats::of(&turn),
            variation: Variation::of(&answers),
            one_way_split: OneWaySplit::of(&answers),
            loss_split: LossSplit::of(
                volleys as u64,
                answered.len() as u64,
                answered.iter().filter_map(|v| v.server_count),
            ),
            fits: fit_all(&points, break_at),
            break_at,
            trace_columns: trace::COLUMNS,
            run,
        }
    }

    /// The report's lines for the delay variation and the two ways (as irtt prints them: IPDV
    /// of the round trip and each way, send and receive delay).
    fn variation_text(&self, s: &mut String) {
        let ms = |x: f64| x / 1e6;
        let stats = |s: &mut String, name: &str, d: &DelayStats| stats_line(s, name, d, false);
        if let Some(v) = &self.variation {
            stats(s, "IPDV (rtt)", &v.ipdv);
            let _ = writeln!(
                s,
                "  {:<14}     RFC 3550 jitter of the round trip {:.3} ms (consecutive volleys, RFC 3393)",
                "",
                ms(v.jitter_ns)
            );
            if let (Some(u), Some(d)) = (&v.ipdv_up, &v.ipdv_down) {
                stats(s, "IPDV up", u);
                stats(s, "IPDV down", d);
            }
        }
        if let Some(l) = &self.loss_split {
            let _ = writeln!(
                s,
                "  {:<14}     the server answered {} of {} volleys: lost up {}, down {} (by its count in the last reply)",
                "loss split", l.server_answered, self.volleys, l.lost_up, l.lost_down
            );
        }
        if let Some(w) = &self.one_way_split {
            for (name, d) in [("delay up", &w.up), ("delay down", &w.down)] {
                let _ = writeln!(
                    s,
                    "  {name:<14} ms: min {:.3}  median {:.3}  mean {:.3}  max {:.3}",
                    ms(d.min_ns as f64),
                    ms(d.median_ns as f64),
                    ms(d.mean_ns),
                    ms(d.max_ns as f64),
                );
            }
            let _ = writeln!(
                s,
                "  {:<14}     {}",
                "",
                if w.clocks_disagree {
                    "the clocks disagree (a one-way delay came out negative): up and down each carry their offset; their sum and the IPDVs do not"
                } else {
                    "by the server's wall clock against this host's: exact only if the two clocks agree (one host, or PTP/NTP well under these delays)"
                }
            );
        }
    }

    /// The text report printed after a run.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let r = &self.run;
        let c = &r.counters;
        let _ = writeln!(
            s,
            "{} to {} over {}: {} volleys in {}{}",
            self.tool,
            r.target,
            r.transport,
            self.volleys,
            r.elapsed.human(),
            if r.interrupted {
                " (stopped early)"
            } else {
                ""
            }
        );
        let _ = writeln!(s, "  {}", r.timer);
        let _ = writeln!(
            s,
            "  lengths {} bytes (IP datagram, {} bytes of headers; floor {}), seed {}",
            r.config.lengths, r.header_bytes, r.config.floor, r.config.seed
        );
        let _ = writeln!(
            s,
            "  answered {}  lost {} ({:.2} %)  late {}  duplicates {}  reordered {}  foreign {}  unauthenticated {}  icmp-errors {}",
            self.answered,
            self.lost,
            100.0 * self.loss_fraction,
            c.late,
            c.duplicates,
            c.reordered,
            c.foreign,
            c.unauthenticated,
            c.icmp_errors
        );
        let ms = |x: f64| x / 1e6;
        for (name, st) in [("one-way delay", &self.one_way), ("round trip", &self.rtt)] {
            if let Some(d) = st {
                stats_line(&mut s, name, d, true);
            }
        }
        self.variation_text(&mut s);
        let _ = writeln!(
            s,
            "  fits of one-way delay on length (RFC 889 §2: delay in ms at each end, rate = Δbits/Δdelay;\n   n.s.: slope within two standard errors of zero, — : slope not positive):"
        );
        let line = |s: &mut String, label: &str, f: &LineFit| {
            // A slope within two standard errors of zero says nothing about a rate.
            let significant = f.slope_ns_per_byte.abs() > 2.0 * f.slope_stderr_ns_per_byte;
            let rate = match f.rate_bps {
                Some(r) if significant => format!("{r:.0} bit/s"),
                Some(_) => "n.s.".to_string(),
                None => "—".to_string(),
            };
            let _ = writeln!(
                s,
                "    {label:<22} {:>4}: {:>9.3}  {:>4}: {:>9.3}  rate {:>14}  intercept {:.3} ms  n {}  r² {:.4}",
                f.from_len,
                ms(f.delay_at_from_ns),
                f.to_len,
                ms(f.delay_at_to_ns),
                rate,
                ms(f.intercept_ns),
                f.n,
                f.r2
            );
        };
        let split = |s: &mut String, label: &str, sp: &SplitFit| {
            line(s, &format!("{label} <{}", sp.break_at), &sp.short);
            line(s, &format!("{label} >={}", sp.break_at), &sp.long);
            let _ = writeln!(
                s,
                "    {:<22} split removes {:.1} % of the one line's squared residual (F = {:.1})",
                "",
                100.0 * sp.sse_reduction,
                sp.f_statistic
            );
        };
        match &self.fits.one_line {
            Some(f) => line(&mut s, "one line", f),
            None => {
                let _ = writeln!(
                    s,
                    "    too few answered volleys of distinct lengths to fit a line"
                );
            }
        }
        if let Some(sp) = &self.fits.split {
            split(&mut s, "split", sp);
        } else if let Some(b) = self.break_at {
            let _ = writeln!(s, "    split at {b}: too few points on one side");
        }
        match &self.fits.best_split {
            Some(sp) if sp.f_statistic >= BEST_SPLIT_MIN_F => split(&mut s, "best split", sp),
            Some(sp) => {
                let _ = writeln!(
                    s,
                    "    best split             none stands out (best at {}: F = {:.1} < {BEST_SPLIT_MIN_F})",
                    sp.break_at, sp.f_statistic
                );
            }
            None => {}
        }
        if let Some(cells) = Rfc889Cells::of(&self.fits, self.break_at.is_some()) {
            let _ = writeln!(
                s,
                "  in RFC 889's table layout (one-way ms, bit/s; the same layout as the simulated 1983 paths):"
            );
            for l in RFC889_HEADER.lines() {
                let _ = writeln!(s, "    {l}");
            }
            let _ = writeln!(
                s,
                "    {}",
                rfc889_row(&r.target, &cells, &r.transport.to_string())
            );
        }
        if c.unauthenticated > 0 {
            let _ = writeln!(
                s,
                "  note: {} replies were not authenticated: does the server have the same secret?",
                c.unauthenticated
            );
        }
        if self.lost > 0 && r.transport == crate::driver::Transport::Udp {
            let _ = writeln!(
                s,
                "  note: a server's rate limit looks like loss from here; `nmc echo serve` counts the requests it refused (rate-limited)"
            );
        }
        if c.icmp_errors > 0 && self.answered == 0 {
            let _ = writeln!(
                s,
                "  note: the target answered with ICMP errors: is an echo server listening there?"
            );
        }
        s
    }
}

/// Draws one-way delay (ms) against length (bytes) with the fitted lines, as an SVG file, in
/// the project's chart style ([`nmc_report::style`]).
pub fn write_svg(path: &Path, summary: &Summary) -> Result<(), Error> {
    let plot_err = |e: String| Error::Plot(path.display().to_string(), e);
    let pts: Vec<(f64, f64)> = summary
        .run
        .volleys
        .iter()
        .filter(|v| !v.lost)
        .filter_map(|v| v.one_way().map(|d| (f64::from(v.length), d.0 as f64 / 1e6)))
        .collect();
    let (xmin, xmax) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (ymin, ymax) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let (xmin, xmax) = if pts.is_empty() {
        (0.0, 256.0)
    } else {
        (0.0_f64.max(xmin - 8.0), xmax + 8.0)
    };
    let (ymin, ymax) = if pts.is_empty() {
        (0.0, 1.0)
    } else {
        let pad = ((ymax - ymin) * 0.08).max(0.01);
        (0.0_f64.max(ymin - pad), ymax + pad)
    };
    let title = format!(
        "{} over {}: one-way delay vs length ({} answered, {} lost)",
        summary.run.target, summary.run.transport, summary.answered, summary.lost
    );
    let mut chart = Chart::new(
        title,
        "IP datagram length (bytes)",
        "one-way delay = RTT/2 (ms)",
    )
    .with(Series::new("volleys", SeriesStyle::Points, pts));
    chart.size = (900, 560);
    chart.x_range = Some(xmin..xmax);
    chart.y_range = Some(ymin..ymax);
    let seg =
        |f: &LineFit, lo: f64, hi: f64| [(lo, f.delay_at(lo) / 1e6), (hi, f.delay_at(hi) / 1e6)];
    if let Some(f) = &summary.fits.one_line {
        let label = format!(
            "one line: {:.3} ms + {:.4} ms/byte{}",
            f.intercept_ns / 1e6,
            f.slope_ns_per_byte / 1e6,
            f.rate_bps
                .map_or(String::new(), |r| format!(", {r:.0} bit/s"))
        );
        chart = chart.with(Series::new(
            label,
            SeriesStyle::Line,
            seg(f, xmin, xmax).to_vec(),
        ));
    }
    let best = summary
        .fits
        .best_split
        .filter(|b| b.f_statistic >= BEST_SPLIT_MIN_F);
    for (sp, name) in [(&summary.fits.split, "split"), (&best, "best split")] {
        let Some(sp) = sp else { continue };
        let b = f64::from(sp.break_at);
        let rate = |f: &LineFit| f.rate_bps.map_or("—".into(), |r| format!("{r:.0}"));
        // The two lines, broken at the break (a non-finite point breaks a line).
        let mut line = seg(&sp.short, xmin, b).to_vec();
        line.push((f64::NAN, f64::NAN));
        line.extend(seg(&sp.long, b, xmax));
        chart = chart.with(Series::new(
            format!(
                "{name} at {}: {} / {} bit/s",
                sp.break_at,
                rate(&sp.short),
                rate(&sp.long)
            ),
            SeriesStyle::Line,
            line,
        ));
    }
    let svg = chart.to_svg().map_err(plot_err)?;
    nmc_report::files::write(path, svg).map_err(|e| Error::Write(path.display().to_string(), e))
}

/// The files [`write_outputs`] wrote.
#[derive(Debug, Clone)]
pub struct Outputs {
    /// Path of `trace.csv`.
    pub trace: PathBuf,
    /// Path of `summary.json`.
    pub summary: PathBuf,
    /// Path of `delay-vs-length.svg`.
    pub plot: PathBuf,
}

/// Writes `trace.csv`, `summary.json` and `delay-vs-length.svg` into `dir`, creating it.
pub fn write_outputs(dir: &Path, summary: &Summary) -> Result<Outputs, Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Write(dir.display().to_string(), e))?;
    let out = Outputs {
        trace: dir.join("trace.csv"),
        summary: dir.join("summary.json"),
        plot: dir.join("delay-vs-length.svg"),
    };
    let f = nmc_report::files::create(&out.trace)
        .map_err(nmc_report::files::WriteError::into_io)
        .map_err(|e| Error::Write(out.trace.display().to_string(), e))?;
    trace::write_trace(std::io::BufWriter::new(f), &summary.run.volleys)?;
    let json = serde_json::to_string_pretty(summary).expect("summary serialises");
    nmc_report::files::write(&out.summary, json + "\n")
        .map_err(|e| Error::Write(out.summary.display().to_string(), e))?;
    write_svg(&out.plot, summary)?;
    Ok(out)
}
