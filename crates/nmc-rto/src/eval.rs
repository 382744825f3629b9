//! Mills' evaluation: replay a delay trace through an estimator and tabulate it as RFC 889 §3.1.
//!
//! RFC 889 §3.1 defines the columns: *Lost Packets* — "no ICMP Reply message was received for
//! thirty seconds after transmission"; *RTX Packets* — "the computed timeout is less than the
//! measured delay, which would result in a superfluous retransmission"; for each, the number of
//! instances and "the total accumulated time required for the recovery action"; *Mean* — mean
//! delay "excluding those cycles involving packet loss"; *CoV* — coefficient of variation;
//! *Eff* — "the ratio of the total time accumulated while sending good data to this time plus
//! the lost-packet and rtx-packet time".
//!
//! # How time is charged
//!
//! The RFC does not say how recovery time is charged. The rule used here (printed with every
//! table, see [`Charge::describe`]):
//!
//! - **good time** = N · Mean: every one of the N volleys is eventually delivered once, at the
//!   mean delay of the delivered ones (a lost volley's successful retransmission is credited at
//!   the mean, since its own delay is not in the trace). This is not a guess: it reproduces the
//!   RFC 889 table's own arithmetic — for every row, Total ≈ 512 · Mean + Lost time + RTX time
//!   and Eff ≈ 512 · Mean / Total (FACC: 512 · 0.267 + 222.1 + 9.2 = 368.0, printed 368;
//!   Eff 136.7/368 = .37) — see the `paper_table_arithmetic` test;
//! - **lost time** = the timeout in force when the lost volley was sent: the sender waits it out
//!   before retransmitting. The table's lost time per lost packet is about twice the mean (FOE
//!   7.5 s / 3 = 2.5 s at a 1.15 s mean), i.e. G·E with G = 2;
//! - **RTX time** = by default the measured delay of the volley that drew the superfluous
//!   retransmission (`rtx=delay`): the needless copy occupies the path for another round trip as
//!   long as the one the useful copy took. The table is consistent with this (isolated netspurts:
//!   ISID-2 17 s over 3 RTX at a 0.516 s mean), but the source cannot settle it, so the
//!   alternatives are parameters: `rtx=timeout` (the timeout that expired) and `rtx=excess`
//!   (delay − timeout: the time the sender spent in a needless recovery).
//!
//! Driving the estimator, per volley (see [`crate::estimator`]): arm `rto()`; a reply later than
//! the loss limit, or none, is a loss → `on_timeout()`; a reply later than the timeout is an RTX
//! → `on_timeout()`, then `on_ack(delay, retransmitted = true)`; otherwise `on_ack(delay, false)`.
//! "Less than" is strict, as in the RFC: a delay equal to the timeout is good.

use std::fmt::Write as _;

use crate::estimator::Estimator;
use crate::time::{Nanos, decimal};
use crate::trace::Trace;

/// What an RTX (superfluous retransmission) is charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RtxCharge {
    /// The measured delay of the volley (default).
    #[default]
    Delay,
    /// The timeout that expired.
    Timeout,
    /// Delay minus timeout.
    Excess,
}

impl RtxCharge {
    /// Parses `delay`, `timeout` or `excess`.
    pub fn parse(s: &str) -> Option<RtxCharge> {
        match s.to_ascii_lowercase().as_str() {
            "delay" => Some(RtxCharge::Delay),
            "timeout" => Some(RtxCharge::Timeout),
            "excess" => Some(RtxCharge::Excess),
            _ => None,
        }
    }
    /// The name `parse` accepts.
    pub fn name(self) -> &'static str {
        match self {
            RtxCharge::Delay => "delay",
            RtxCharge::Timeout => "timeout",
            RtxCharge::Excess => "excess",
        }
    }
}

/// Evaluation parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charge {
    /// A reply later than this (or none) is a lost packet (RFC 889 §3.1: thirty seconds).
    pub loss_limit: Nanos,
    /// What an RTX costs.
    pub rtx: RtxCharge,
}

impl Default for Charge {
    fn default() -> Self {
        Charge {
            loss_limit: Nanos::from_secs(30),
            rtx: RtxCharge::Delay,
        }
    }
}

impl Charge {
    /// One line stating the rule, printed above every table and stored in CSV outputs.
    pub fn describe(&self) -> String {
        let rtx = match self.rtx {
            RtxCharge::Delay => "measured delay",
            RtxCharge::Timeout => "timeout that expired",
            RtxCharge::Excess => "delay minus timeout",
        };
        format!(
            "time charged: good = N x mean delay; lost (no reply within {}s) = timeout in force; RTX (timeout < delay) = {rtx}",
            decimal(self.loss_limit.0, 9)
        )
    }
}

/// What happened to one volley.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Reply before the timeout.
    Good,
    /// Reply after the timeout: a superfluous retransmission.
    Rtx,
    /// No reply within the loss limit.
    Lost,
}

impl Outcome {
    /// `good`, `rtx`, `lost`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Good => "good",
            Outcome::Rtx => "rtx",
            Outcome::Lost => "lost",
        }
    }
}

/// One replayed volley.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Send time from the trace.
    pub send: Nanos,
    /// Measured delay, `None` if no reply (or later than the loss limit: see `outcome`).
    pub delay: Option<Nanos>,
    /// The timeout the estimator armed for this volley.
    pub timeout: Nanos,
    /// The classification.
    pub outcome: Outcome,
}

/// One row of the RFC 889 table: a trace replayed through an estimator.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Trace label (the table's Host ID).
    pub trace: String,
    /// The estimator's full spec ([`Estimator::describe`]).
    pub estimator: String,
    /// Volleys in the trace (N).
    pub packets: usize,
    /// Lost packets.
    pub lost: usize,
    /// Time charged to lost packets.
    pub lost_time: Nanos,
    /// RTX packets.
    pub rtx: usize,
    /// Time charged to RTX packets.
    pub rtx_time: Nanos,
    /// Good time, N · mean.
    pub good_time: Nanos,
    /// good + lost + RTX time.
    pub total_time: Nanos,
    /// Mean delay of the delivered volleys, seconds (0 if none).
    pub mean: f64,
    /// Coefficient of variation of the delivered delays (population standard deviation / mean;
    /// 0 if fewer than one delivered or a zero mean).
    pub cov: f64,
    /// good / total; 1 for an empty trace, 0 if nothing was delivered but time was lost.
    pub efficiency: f64,
}

/// Replays `trace` through a fresh copy of `estimator`.
pub fn replay(trace: &Trace, estimator: &dyn Estimator, charge: &Charge) -> (Summary, Vec<Step>) {
    let mut est = estimator.fresh();
    let mut steps = Vec::with_capacity(trace.len());
    let (mut lost, mut lost_time, mut rtx, mut rtx_time) = (0usize, 0u64, 0usize, 0u64);
    let mut delivered: Vec<f64> = Vec::with_capacity(trace.len());
    let mut delivered_sum: u64 = 0;
    for p in &trace.probes {
        let timeout = est.rto();
        let delay = p.delay.filter(|d| *d <= charge.loss_limit);
        let outcome = match delay {
            None => {
                lost += 1;
                lost_time = lost_time.saturating_add(timeout.0);
                est.on_timeout();
                Outcome::Lost
            }
            Some(d) if timeout < d => {
                rtx += 1;
                let c = match charge.rtx {
                    RtxCharge::Delay => d,
                    RtxCharge::Timeout => timeout,
                    RtxCharge::Excess => d.saturating_sub(timeout),
                };
                rtx_time = rtx_time.saturating_add(c.0);
                est.on_timeout();
                est.on_ack(d, true);
                Outcome::Rtx
            }
            Some(d) => {
                est.on_ack(d, false);
                Outcome::Good
            }
        };
        if let Some(d) = delay {
            delivered.push(d.as_secs_f64());
            delivered_sum = delivered_sum.saturating_add(d.0);
        }
        steps.push(Step {
            send: p.send,
            delay: p.delay,
            timeout,
            outcome,
        });
    }
    let n = trace.len();
    let (mean, cov) = mean_cov(&delivered);
    // good = Σ delivered delays + lost · mean = N · mean (exact in the delivered part).
    let good = delivered_sum.saturating_add(Nanos::from_secs_f64(lost as f64 * mean).0);
    let total = good.saturating_add(lost_time).saturating_add(rtx_time);
    let efficiency = if total == 0 {
        1.0
    } else {
        (good as f64 / total as f64).clamp(0.0, 1.0)
    };
    let summary = Summary {
        trace: trace.name.clone(),
        estimator: est.describe(),
        packets: n,
        lost,
        lost_time: Nanos(lost_time),
        rtx,
        rtx_time: Nanos(rtx_time),
        good_time: Nanos(good),
        total_time: Nanos(total),
        mean,
        cov,
        efficiency,
    };
    (summary, steps)
}

/// Mean and coefficient of variation (population standard deviation over mean).
pub fn mean_cov(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt() / mean)
}

/// The RFC 889 table, one row per (trace, estimator), estimators of a trace on adjacent rows:
/// Total (s), Lost count and time (s), RTX count and time (s), Mean (ms), CoV, Eff. Opens with
/// the charge rule.
pub fn format_table(rows: &[Summary], charge: &Charge) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}", charge.describe());
    let id_w = rows.iter().map(|r| r.trace.len()).max().unwrap_or(0).max(7);
    let est_w = rows
        .iter()
        .map(|r| short(&r.estimator).len())
        .max()
        .unwrap_or(0)
        .max(9);
    let _ = writeln!(
        out,
        "{:<id_w$}  {:<est_w$}  {:>5}  {:>8}  {:>5} {:>8}  {:>5} {:>8}  {:>8}  {:>5}  {:>5}",
        "Host ID",
        "Estimator",
        "N",
        "Total s",
        "Lost",
        "Time s",
        "RTX",
        "Time s",
        "Mean ms",
        "CoV",
        "Eff"
    );
    let width = id_w + est_w + 5 + 8 + 5 + 8 + 5 + 8 + 8 + 5 + 5 + 20;
    let _ = writeln!(out, "{}", "-".repeat(width));
    let mut last = None;
    for r in rows {
        let id = if last == Some(&r.trace) {
            ""
        } else {
            r.trace.as_str()
        };
        last = Some(&r.trace);
        let _ = writeln!(
            out,
            "{:<id_w$}  {:<est_w$}  {:>5}  {:>8.1}  {:>5} {:>8.1}  {:>5} {:>8.1}  {:>8.1}  {:>5.2}  {:>5.3}",
            id,
            short(&r.estimator),
            r.packets,
            r.total_time.as_secs_f64(),
            r.lost,
            r.lost_time.as_secs_f64(),
            r.rtx,
            r.rtx_time.as_secs_f64(),
            r.mean * 1e3,
            r.cov,
            r.efficiency
        );
    }
    out
}

/// The estimator spec without parameters that are at their default, for narrow tables.
pub fn short(spec: &str) -> String {
    let Ok(est) = crate::estimator::parse(spec) else {
        return spec.to_string();
    };
    let Ok(default) = crate::estimator::parse(est.name()) else {
        return spec.to_string();
    };
    let changed: Vec<String> = est
        .keys()
        .iter()
        .filter(|k| est.get(k) != default.get(k))
        .map(|k| format!("{k}={}", est.get(k).unwrap_or_default()))
        .collect();
    if changed.is_empty() {
        est.name().to_string()
    } else {
        format!("{}:{}", est.name(), changed.join(","))
    }
}

/// Writes summaries as CSV (times in seconds, mean in ms), with the charge rule in a column.
pub fn write_summary_csv<W: std::io::Write>(
    rows: &[Summary],
    charge: &Charge,
    w: W,
) -> std::io::Result<()> {
    let mut wtr = csv::Writer::from_writer(w);
    wtr.write_record([
        "trace",
        "estimator",
        "packets",
        "total_s",
        "lost",
        "lost_s",
        "rtx",
        "rtx_s",
        "good_s",
        "mean_ms",
        "cov",
        "efficiency",
        "charge",
    ])?;
    for r in rows {
        wtr.write_record([
            r.trace.clone(),
            r.estimator.clone(),
            r.packets.to_string(),
            decimal(r.total_time.0, 9),
            r.lost.to_string(),
            decimal(r.lost_time.0, 9),
            r.rtx.to_string(),
            decimal(r.rtx_time.0, 9),
            decimal(r.good_time.0, 9),
            format!("{:.6}", r.mean * 1e3),
            format!("{:.6}", r.cov),
            format!("{:.6}", r.efficiency),
            charge.describe(),
        ])?;
    }
    wtr.flush()
}

/// Writes the per-volley replay as CSV: send_s, delay_ms (empty if none), timeout_ms, outcome.
pub fn write_steps_csv<W: std::io::Write>(steps: &[Step], w: W) -> std::io::Result<()> {
    let mut wtr = csv::Writer::from_writer(w);
    wtr.write_record(["send_s", "delay_ms", "timeout_ms", "outcome"])?;
    for s in steps {
        wtr.write_record([
            decimal(s.send.0, 9),
            s.delay.map(|d| decimal(d.0, 6)).unwrap_or_default(),
            decimal(s.timeout.0, 6),
            s.outcome.name().to_string(),
        ])?;
    }
    wtr.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimator::{Mills, Rsre};
    use crate::trace::Probe;

    fn trace(delays_ms: &[Option<u64>]) -> Trace {
        let mut t = 0;
        Trace {
            name: "t".into(),
            probes: delays_ms
                .iter()
                .map(|d| {
                    let p = Probe::new(Nanos::from_millis(t), d.map(Nanos::from_millis));
                    t += d.unwrap_or(30_000);
                    p
                })
                .collect(),
        }
    }

    /// RSRE F = 7/8, G = 2 over 100, 300, lost, 100 ms (init 3 s):
    /// v1 T = 3 s good (E = 100); v2 T = 200 < 300: RTX, charged 300 ms (E = 125);
    /// v3 T = 250 lost, charged 250 ms; v4 T = 250 good.
    /// Mean = 500/3 ms; good = 4 · mean = 666.67 ms; total = 666.67 + 250 + 300 = 1216.67 ms.
    #[test]
    fn by_hand() {
        let t = trace(&[Some(100), Some(300), None, Some(100)]);
        let (s, steps) = replay(&t, &Rsre::default(), &Charge::default());
        let outcomes: Vec<_> = steps.iter().map(|s| s.outcome).collect();
        assert_eq!(
            outcomes,
            [Outcome::Good, Outcome::Rtx, Outcome::Lost, Outcome::Good]
        );
        assert_eq!(steps[1].timeout, Nanos::from_millis(200));
        assert_eq!(steps[2].timeout, Nanos::from_millis(250));
        assert_eq!((s.lost, s.lost_time), (1, Nanos::from_millis(250)));
        assert_eq!((s.rtx, s.rtx_time), (1, Nanos::from_millis(300)));
        assert!((s.mean - 0.5 / 3.0).abs() < 1e-12);
        assert_eq!(s.good_time, Nanos(666_666_667));
        assert_eq!(s.total_time, Nanos(1_216_666_667));
        assert!((s.efficiency - 666.666667 / 1216.666667).abs() < 1e-6);
        // Other charges for the RTX: the timeout (200 ms) or the excess (100 ms).
        let c = Charge {
            rtx: RtxCharge::Timeout,
            ..Charge::default()
        };
        assert_eq!(
            replay(&t, &Rsre::default(), &c).0.rtx_time,
            Nanos::from_millis(200)
        );
        let c = Charge {
            rtx: RtxCharge::Excess,
            ..Charge::default()
        };
        assert_eq!(
            replay(&t, &Rsre::default(), &c).0.rtx_time,
            Nanos::from_millis(100)
        );
    }

    /// Mills over the same trace: v2 T = 200 < 300 RTX (E = 0.75·100 + 0.25·300 = 150);
    /// v3 T = 300 lost; v4 T = 300 good.
    #[test]
    fn mills_by_hand() {
        let t = trace(&[Some(100), Some(300), None, Some(100)]);
        let (s, steps) = replay(&t, &Mills::default(), &Charge::default());
        assert_eq!(steps[2].timeout, Nanos::from_millis(300));
        assert_eq!(s.lost_time, Nanos::from_millis(300));
    }

    #[test]
    fn late_reply_beyond_limit_is_lost() {
        let t = trace(&[Some(100), Some(31_000)]);
        let (s, _) = replay(&t, &Rsre::default(), &Charge::default());
        assert_eq!((s.lost, s.rtx), (1, 0));
        assert!((s.mean - 0.1).abs() < 1e-12);
    }

    #[test]
    fn empty_trace() {
        let (s, _) = replay(&Trace::default(), &Rsre::default(), &Charge::default());
        assert_eq!(s.efficiency, 1.0);
        assert_eq!(s.total_time, Nanos::ZERO);
    }

    #[test]
    fn table_shows_the_charge_rule() {
        let t = trace(&[Some(100), Some(300)]);
        let (s, _) = replay(&t, &Mills::default(), &Charge::default());
        let table = format_table(&[s], &Charge::default());
        assert!(table.lines().next().unwrap().contains("time charged"));
        assert!(table.contains("mills"));
    }
}
