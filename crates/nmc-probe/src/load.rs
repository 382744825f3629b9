//! # Latency under load (issue 75 §6): bulk flows and an echo probe together, as flent's RRUL
//!
//! A path's queue shows only when something fills it. This runs the echo probe
//! ([`crate::udp`]) for the whole run and, in the middle of it, `up` pump flows this host sends
//! and `down` flows the server sends ([`crate::pump`], `--reverse`), then bins what happened
//! into one time series: per step, the bits the flows carried each way and the probe's round
//! trips (by send time, as flent plots them). The probe's round trips before and after the
//! load are the idle path's; those sent while the flows ran are the loaded path's; the
//! difference of their medians is what the flows' queue adds (what the bufferbloat tests call
//! latency under load).
//!
//! | piece | what |
//! | --- | --- |
//! | [`LoadConfig`] | target, flows each way, the three phases, the step, the probe's interval, the flows' settings |
//! | [`Bins`] | the flows' bytes by step and direction, as they finish (bounded: one entry per step) |
//! | [`series`] | the steps from the bins and the probe's volleys (pure: tested without a network) |
//! | [`run`] | the threads: probe from the start, flows from `before` for `load`, all joined |
//!
//! Times: every thread's events are put on one time line, the wall clock's nanoseconds from the
//! run's start (the probe's volleys through their clock origin, each flow from when it was
//! started). A flow's bytes count when its RFNM comes (this host sending) or when a message is
//! whole here (the server sending); a reverse flow's clock starts once its request is sent,
//! about one round trip after it was started, so its bytes may fall up to that much early.

use crate::analysis::DelayStats;
use crate::pump::{PumpConfig, PumpTransport};
use crate::time::{Nanos, unix_now_ns};
use crate::{Error, Key, Pacing, ProbeConfig};
use serde::Serialize;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// How long an unanswered volley waits before it counts as lost. **Choice**: 5 s, longer than
/// any queue this is meant to show (a bloated queue of some seconds shows as late round trips,
/// not as losses), short enough that the run ends soon after its last volley.
pub const PROBE_TIMEOUT: Nanos = Nanos(5_000_000_000);

/// What to run.
#[derive(Debug, Clone)]
pub struct LoadConfig {
    /// `nmc serve`'s address (echo and pump on one port).
    pub target: SocketAddr,
    /// Flows this host sends (upload).
    pub up: u32,
    /// Flows the server sends (download, the pump's `--reverse`).
    pub down: u32,
    /// The probe alone before the flows start.
    pub before: Nanos,
    /// How long the flows run.
    pub load: Nanos,
    /// The probe alone after the flows end.
    pub after: Nanos,
    /// The time series' step.
    pub step: Nanos,
    /// The probe's spacing (one volley every this, whatever the replies).
    pub probe_interval: Nanos,
    /// The probe's datagram length (IP datagram, bytes).
    pub probe_length: u32,
    /// Each flow's settings (its `duration` is `load`; its session is made per flow).
    pub flow: PumpConfig,
    /// The server's secret, if it has one.
    pub key: Option<Key>,
}

impl LoadConfig {
    /// The whole run: before, load and after.
    pub fn total(&self) -> Nanos {
        Nanos(self.before.0 + self.load.0 + self.after.0)
    }

    /// Says in one line what is wrong with the settings, if anything.
    pub fn check(&self) -> Result<(), Error> {
        let bad = |m: String| Err(Error::Load(m));
        if self.up + self.down == 0 {
            return bad("no flows: give --up or --down (at least one flow)".into());
        }
        if self.up + self.down > 64 {
            return bad(format!("{} flows: at most 64", self.up + self.down));
        }
        if self.load.0 == 0 {
            return bad("--load must be longer than 0".into());
        }
        if self.step.0 < 10_000_000 {
            return bad(format!("--step {}: at least 10ms", self.step.human()));
        }
        if self.probe_interval.0 < 1_000_000 {
            return bad(format!(
                "--probe-interval {}: at least 1ms",
                self.probe_interval.human()
            ));
        }
        if self.total().0 / self.step.0 > 100_000 {
            return bad(format!(
                "{} steps of {}: at most 100,000 (a longer --step)",
                self.total().0 / self.step.0,
                self.step.human()
            ));
        }
        Ok(())
    }

    /// The probe's settings: paced over the whole run, one length.
    fn probe(&self) -> ProbeConfig {
        let count = (self.total().0 / self.probe_interval.0).clamp(1, u64::from(u32::MAX)) as u32;
        let (floor, max_length) = crate::udp::length_limits(&self.target, self.key.is_some());
        ProbeConfig {
            count,
            lengths: crate::LengthSpec::Fixed {
                length: self.probe_length.max(floor),
            },
            pacing: Pacing::Interval {
                interval_ns: self.probe_interval,
            },
            timeout: PROBE_TIMEOUT,
            seed: 1,
            floor,
            max_length,
            open_timeout: Some(Nanos(10_000_000_000)),
            silent_losses: Some(crate::probe::SILENT_LOSSES),
        }
    }
}

/// The flows' bytes by step, this host sending (`up`) and the server sending (`down`): one
/// entry per step of the run, added to as messages finish, from any thread.
#[derive(Debug)]
pub struct Bins {
    step: Nanos,
    bytes: Mutex<Vec<[u64; 2]>>,
}

impl Bins {
    /// Empty bins of `step` covering `total`.
    pub fn new(step: Nanos, total: Nanos) -> Bins {
        let n = total.0.div_ceil(step.0.max(1)) as usize;
        Bins {
            step,
            bytes: Mutex::new(vec![[0; 2]; n.max(1)]),
        }
    }

    /// `bytes` carried at `at` (from the run's start), `down` when the server sent them; a
    /// time past the last step counts in the last.
    pub fn add(&self, at: Nanos, down: bool, bytes: u64) {
        let mut b = self.bytes.lock().unwrap_or_else(|e| e.into_inner());
        let last = b.len() - 1;
        let i = ((at.0 / self.step.0) as usize).min(last);
        b[i][usize::from(down)] += bytes;
    }

    fn take(self) -> Vec<[u64; 2]> {
        self.bytes.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// One step of the time series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    /// Seconds from the run's start to the step's start.
    pub start_s: f64,
    /// Whether the flows were running over any of the step.
    pub loaded: bool,
    /// Bits this host's flows carried in the step, per second.
    pub up_bit_per_s: f64,
    /// Bits the server's flows carried in the step, per second.
    pub down_bit_per_s: f64,
    /// Volleys sent in the step.
    pub probes: u32,
    /// Of them, lost.
    pub lost: u32,
    /// Mean round trip of the step's answered volleys, seconds.
    pub rtt_mean_s: Option<f64>,
    /// Largest round trip of the step's answered volleys, seconds.
    pub rtt_max_s: Option<f64>,
}

/// A volley on the run's time line: sent at `sent` (from the run's start), its round trip if
/// answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// Send time from the run's start.
    pub sent: Nanos,
    /// Round trip, if answered.
    pub rtt: Option<Nanos>,
}

/// The steps of a run from its flows' bytes and its probe's volleys. `load` is the flows'
/// window `[before, before + load)`.
pub fn series(
    bytes: &[[u64; 2]],
    samples: &[Sample],
    step: Nanos,
    load: (Nanos, Nanos),
) -> Vec<Step> {
    let secs = step.0 as f64 / 1e9;
    bytes
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let (lo, hi) = (i as u64 * step.0, (i as u64 + 1) * step.0);
            let mine: Vec<&Sample> = samples
                .iter()
                .filter(|s| (lo..hi).contains(&s.sent.0))
                .collect();
            let rtts: Vec<f64> = mine
                .iter()
                .filter_map(|s| s.rtt.map(|r| r.0 as f64 / 1e9))
                .collect();
            Step {
                start_s: lo as f64 / 1e9,
                loaded: lo < load.1.0 && hi > load.0.0,
                up_bit_per_s: b[0] as f64 * 8.0 / secs,
                down_bit_per_s: b[1] as f64 * 8.0 / secs,
                probes: mine.len() as u32,
                lost: mine.iter().filter(|s| s.rtt.is_none()).count() as u32,
                rtt_mean_s: (!rtts.is_empty())
                    .then(|| rtts.iter().sum::<f64>() / rtts.len() as f64),
                rtt_max_s: rtts.iter().copied().reduce(f64::max),
            }
        })
        .collect()
}

/// What one flow did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowEnd {
    /// `up` (this host sent) or `down` (the server sent).
    pub direction: &'static str,
    /// Data bytes it carried (RFNMed, or whole here).
    pub bytes: u64,
    /// Its mean rate over the load, bits per second.
    pub bit_per_s: f64,
}

/// A run, reduced.
#[derive(Debug, Clone, Serialize)]
pub struct LoadRun {
    /// Wall-clock start, ns since the Unix epoch.
    pub started_unix_ns: u64,
    /// The time series.
    pub steps: Vec<Step>,
    /// Round trips of the volleys sent while no flow ran (before and after), ns.
    pub idle_rtt: Option<DelayStats>,
    /// Round trips of the volleys sent while the flows ran, ns.
    pub loaded_rtt: Option<DelayStats>,
    /// Loaded median minus idle median, ns: what the flows' queues added.
    pub added_median_ns: Option<i64>,
    /// Volleys sent, and lost, while the flows ran.
    pub loaded_probes: (u32, u32),
    /// Volleys sent, and lost, while none ran.
    pub idle_probes: (u32, u32),
    /// Every flow, up ones first.
    pub flows: Vec<FlowEnd>,
    /// The flows' mean rates over the load, bits per second: this host's and the server's.
    pub up_bit_per_s: f64,
    /// See `up_bit_per_s`.
    pub down_bit_per_s: f64,
    /// Stopped before the end (Ctrl-C).
    pub interrupted: bool,
}

/// Reduces the parts of a run.
pub fn reduce(
    cfg: &LoadConfig,
    started_unix_ns: u64,
    bytes: Vec<[u64; 2]>,
    samples: &[Sample],
    flows: Vec<FlowEnd>,
    interrupted: bool,
) -> LoadRun {
    let window = (cfg.before, Nanos(cfg.before.0 + cfg.load.0));
    let in_load = |s: &Sample| (window.0.0..window.1.0).contains(&s.sent.0);
    let rtts = |loaded: bool| -> Vec<u64> {
        samples
            .iter()
            .filter(|s| in_load(s) == loaded)
            .filter_map(|s| s.rtt.map(|r| r.0))
            .collect()
    };
    let count = |loaded: bool| {
        let of: Vec<&Sample> = samples.iter().filter(|s| in_load(s) == loaded).collect();
        (
            of.len() as u32,
            of.iter().filter(|s| s.rtt.is_none()).count() as u32,
        )
    };
    let (idle_rtt, loaded_rtt) = (DelayStats::of(&rtts(false)), DelayStats::of(&rtts(true)));
    let secs = cfg.load.0 as f64 / 1e9;
    let rate = |down: bool| {
        flows
            .iter()
            .filter(|f| (f.direction == "down") == down)
            .map(|f| f.bytes)
            .sum::<u64>() as f64
            * 8.0
            / secs
    };
    LoadRun {
        started_unix_ns,
        steps: series(&bytes, samples, cfg.step, window),
        added_median_ns: match (&idle_rtt, &loaded_rtt) {
            (Some(i), Some(l)) => Some(l.median_ns as i64 - i.median_ns as i64),
            _ => None,
        },
        idle_rtt,
        loaded_rtt,
        loaded_probes: count(true),
        idle_probes: count(false),
        up_bit_per_s: rate(false),
        down_bit_per_s: rate(true),
        flows,
        interrupted,
    }
}

/// Runs the probe and the flows against `cfg.target`; `stop` (Ctrl-C) ends everything early,
/// keeping what was measured. A flow that fails stops the others and the probe, and its error
/// is the run's.
pub fn run(cfg: &LoadConfig, stop: &AtomicBool) -> Result<LoadRun, Error> {
    cfg.check()?;
    let t0 = unix_now_ns();
    let bins = Bins::new(cfg.step, cfg.total());
    let halt = AtomicBool::new(false);
    let stopped = || stop.load(Ordering::Relaxed) || halt.load(Ordering::Relaxed);
    let since = |unix: u64| Nanos(unix.saturating_sub(t0));
    let (probe, flows) = std::thread::scope(|sc| {
        let probe = sc.spawn(|| {
            // The probe stops with the user or a failed flow, not at the end of the load.
            let probe_stop = AtomicBool::new(false);
            std::thread::scope(|inner| {
                inner.spawn(|| {
                    while !probe_stop.load(Ordering::Relaxed) {
                        if stopped() {
                            probe_stop.store(true, Ordering::Relaxed);
                        }
                        std::thread::sleep(std::time::Duration::from_millis(20));
                    }
                });
                let r = crate::udp::probe(
                    cfg.target,
                    cfg.probe(),
                    cfg.key.clone(),
                    &probe_stop,
                    crate::Watch::default(),
                );
                probe_stop.store(true, Ordering::Relaxed);
                r
            })
        });
        let flows: Vec<_> = (0..cfg.up + cfg.down)
            .map(|i| {
                let (bins, halt) = (&bins, &halt);
                sc.spawn(move || -> Result<FlowEnd, Error> {
                    let down = i >= cfg.up;
                    let start = Nanos(t0 + cfg.before.0);
                    while unix_now_ns() < start.0 {
                        if stopped() {
                            return Ok(FlowEnd {
                                direction: if down { "down" } else { "up" },
                                bytes: 0,
                                bit_per_s: 0.0,
                            });
                        }
                        let left = start.0.saturating_sub(unix_now_ns());
                        std::thread::sleep(std::time::Duration::from_nanos(left.min(20_000_000)));
                    }
                    let flow = PumpConfig {
                        duration: cfg.load,
                        session: crate::pump::net::session_id().wrapping_add(i),
                        ..cfg.flow.clone()
                    };
                    let began = since(unix_now_ns());
                    let mut carried = 0u64;
                    let r = if down {
                        let mut rows = |m: &crate::pump::receiver::Received, _in_time: bool| {
                            carried += u64::from(m.bytes);
                            bins.add(Nanos(began.0 + m.whole.0), true, u64::from(m.bytes));
                            Ok(())
                        };
                        crate::pump::reverse_client::pump_reverse(
                            cfg.target,
                            flow,
                            cfg.key.as_ref(),
                            halt,
                            None,
                            Some(&mut rows),
                        )
                        .map(|_| ())
                    } else {
                        let mut rows = |m: &crate::pump::sender::MessageRecord| {
                            if let Some(at) = m.rfnm {
                                carried += u64::from(m.bytes);
                                bins.add(Nanos(began.0 + at.0), false, u64::from(m.bytes));
                            }
                            Ok(())
                        };
                        crate::pump::net::pump_with_key(
                            cfg.target,
                            flow,
                            cfg.key.as_ref(),
                            halt,
                            None,
                            Some(&mut rows),
                        )
                        .map(|_| ())
                    };
                    if r.is_err() {
                        halt.store(true, Ordering::Relaxed);
                    }
                    r?;
                    Ok(FlowEnd {
                        direction: if down { "down" } else { "up" },
                        bytes: carried,
                        bit_per_s: carried as f64 * 8.0 / (cfg.load.0 as f64 / 1e9),
                    })
                })
            })
            .collect();
        // A user's stop reaches the flows through `halt`.
        while flows.iter().any(|f| !f.is_finished()) {
            if stop.load(Ordering::Relaxed) {
                halt.store(true, Ordering::Relaxed);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let flows: Vec<Result<FlowEnd, Error>> = flows
            .into_iter()
            .map(|f| {
                f.join()
                    .unwrap_or_else(|_| Err(Error::Load("a flow's thread panicked".into())))
            })
            .collect();
        (probe.join(), flows)
    });
    let flows: Vec<FlowEnd> = flows.into_iter().collect::<Result<_, _>>()?;
    let probe = probe.map_err(|_| Error::Load("the probe's thread panicked".into()))??;
    let samples: Vec<Sample> = probe
        .volleys
        .iter()
        .filter_map(|v| {
            let sent = v.sent?;
            let unix = probe.origin_unix_ns + i128::from(sent.0) - i128::from(t0);
            Some(Sample {
                sent: Nanos(u64::try_from(unix).unwrap_or(0)),
                rtt: if v.lost { None } else { v.rtt },
            })
        })
        .collect();
    if probe.counters.answered == 0 {
        return Err(Error::Unreachable(format!(
            "{}: no echo reply during the run (is `nmc serve` running there?)",
            cfg.target
        )));
    }
    Ok(reduce(
        cfg,
        t0,
        bins.take(),
        &samples,
        flows,
        stop.load(Ordering::Relaxed),
    ))
}

/// The flows' default settings: TCP, 64 KiB messages, 64 outstanding (iperf3's 128 KiB writes
/// fill a path the same way; the pump's K&O defaults of 1008 bytes and 4 outstanding would
/// not fill a modern path, issue 75's "defaults that surprise").
pub fn bulk_flow(load: Nanos) -> PumpConfig {
    PumpConfig {
        transport: PumpTransport::Tcp,
        size: 64 * 1024,
        outstanding: 64,
        duration: load,
        packet: 1400,
        timeout: Nanos(10_000_000_000),
        session: 0,
        count: None,
        omit: Nanos(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// `up` flows, `idle_ms` of probing before and after `load_ms` of load, steps of 100 ms.
    fn config(up: u32, idle_ms: u64, load_ms: u64) -> LoadConfig {
        LoadConfig {
            target: "127.0.0.1:1".parse().unwrap(),
            up,
            down: 0,
            before: Nanos(idle_ms * MS),
            load: Nanos(load_ms * MS),
            after: Nanos(idle_ms * MS),
            step: Nanos(100 * MS),
            probe_interval: Nanos(50 * MS),
            probe_length: 100,
            flow: bulk_flow(Nanos(load_ms * MS)),
            key: None,
        }
    }

    /// Bytes land in the step of their time; the last step takes anything later.
    #[test]
    fn bins_put_bytes_in_their_step_and_direction() {
        let b = Bins::new(Nanos(100 * MS), Nanos(300 * MS));
        b.add(Nanos(0), false, 10);
        b.add(Nanos(99 * MS), false, 5);
        b.add(Nanos(100 * MS), true, 7);
        b.add(Nanos(900 * MS), true, 1);
        assert_eq!(b.take(), vec![[15, 0], [0, 7], [0, 1]]);
    }

    /// A step's rate is its bytes over its length; its round trips are those of the volleys
    /// sent in it; it is loaded if the flows ran over any of it; the medians of the idle and
    /// loaded volleys and their difference.
    #[test]
    fn steps_and_phases_from_bytes_and_volleys() {
        let cfg = config(1, 200, 200);
        let bytes = vec![[0, 0], [0, 0], [1_000, 0], [3_000, 500], [0, 0], [0, 0]];
        let s = |t: u64, rtt: Option<u64>| Sample {
            sent: Nanos(t * MS),
            rtt: rtt.map(|r| Nanos(r * MS)),
        };
        let samples = [
            s(0, Some(10)),
            s(150, Some(12)),
            s(250, Some(40)),
            s(260, None),
            s(350, Some(80)),
            s(450, Some(11)),
        ];
        let flows = vec![FlowEnd {
            direction: "up",
            bytes: 4_000,
            bit_per_s: 0.0,
        }];
        let r = reduce(&cfg, 7, bytes, &samples, flows, false);
        let st = &r.steps;
        assert_eq!(st.len(), 6);
        assert_eq!(
            st.iter().map(|x| x.loaded).collect::<Vec<_>>(),
            [false, false, true, true, false, false]
        );
        assert_eq!(st[2].up_bit_per_s, 80_000.0);
        assert_eq!(st[3].down_bit_per_s, 40_000.0);
        assert_eq!((st[2].probes, st[2].lost), (2, 1));
        assert_eq!(st[2].rtt_mean_s, Some(0.04));
        assert_eq!(st[5].rtt_mean_s, None);
        assert_eq!(r.idle_probes, (3, 0));
        assert_eq!(r.loaded_probes, (3, 1));
        // Idle 10, 11, 12 → median 11; loaded 40, 80 → nearest-rank median 40.
        assert_eq!(r.added_median_ns, Some(29 * MS as i64));
        assert_eq!(r.up_bit_per_s, 160_000.0);
    }

    #[test]
    fn settings_are_checked_in_one_line() {
        let mut cfg = config(0, 0, 1_000);
        assert!(cfg.check().unwrap_err().to_string().contains("no flows"));
        cfg.up = 1;
        cfg.step = Nanos(MS);
        assert!(cfg.check().unwrap_err().to_string().contains("--step"));
        cfg.step = Nanos(100 * MS);
        assert!(cfg.check().is_ok());
    }
}
