//! The oracle's experiments on nmc's own H316 emulator (`nmc-h316`, issue 73 §4): the same
//! chain, host and pump as the SIMH runs, on the emulator's integer clock, measured by the same
//! code.
//!
//! A recorded run (`data/oracle/runs/<name>/run.json`) gives the network (IMP numbers, which
//! modem line joins which), the settings (machine, line and host interface speeds, framing bits,
//! propagation, the IMP's clock) and the experiments in the order they ran. [`replay`] builds
//! those IMPs from the user's copy of the IMP program, brings them up as [`crate::run::Running`]
//! did (host ready when its IMP says so; a one-packet probe to the far IMP's discard fake host
//! every 2 s until one is answered by a RFNM), then runs each experiment with the same
//! [`Pump`] (link 10 + its place in the run). Everything the source IMP's host interface and
//! modems did is written as the patched SIMH writes its trace ([`crate::trace`]: `HIRX`,
//! `HIRXDONE`, `HITX`, `MITX`, `MIRX`, `MIRXDROP`), so [`message_rows`] and [`summarize`] — the
//! code that measured the recordings — measure the emulator too.
//!
//! ## What it found
//! `data/oracle/emulated/README.md`: with the tolerance fixed before the first run (5 % on
//! throughput and on K&O's round trip, [`crate::model::THROUGHPUT_TOLERANCE`],
//! [`crate::model::RTT_TOLERANCE`]), 56 of the 66 accepted rows agree on both and all 66 on
//! throughput. The 516's 1-hop round trip (−10 %) is SIMH's 250 µs polling
//! ([`Options::simh_poll_ns`] reproduces it); a +3 % round-trip offset on the 316's 8-packet
//! rows is not traced yet. RFC 632's run misses (below).
//!
//! Any network the program can run ([`check_network`]) is replayed the same way:
//! [`crate::map`] builds the June 1974 map's 42 IMPs for `nmc oracle emulate-map`, and
//! [`replay_loaded`] adds a scenario's background load ([`Load`], [`crate::background`]): a
//! host on every IMP's second interface, on from the moment the probe is answered.
//!
//! ## RFC 632's experiment (not a chain)
//! The recorded `rfc632-516-4` run (`nmc oracle rfc632`: IMP 11 to IMP 14's discard fake host
//! over two 3-hop paths, 11–12–13–14 at 50 kbit/s and 11–15–16–14 with 11–15 and 15–16 at
//! 230.4 kbit/s; 1000 single-packet messages, 4 outstanding) is replayed the same way: the
//! network is read from its `run.json` (each line's ends and speed, [`Network`]), each IMP gets
//! modems on the lines it uses at their speeds, and a frame reaches the far end of *its* line
//! (a line's own propagation if it has one, [`crate::run::Line::prop_ns`]). Its rows come from
//! `runs.csv` ([`recorded_rfc632`]). **Tolerance, fixed before its first replay**: the same
//! 5 % on throughput and on K&O's round trip as the chain rows ([`compare`]). The packet counts
//! behind the row (which line the source used, packets sent again, messages out of order at
//! the destination: RFC 632's trap) are set beside SIMH's in `counts.csv` ([`counts`]) and not
//! judged: one recorded run gives them no spread.
//!
//! ## The clock and the host
//! The IMPs run in lockstep windows of half the shortest frame time (a frame started in a
//! window cannot reach the next IMP before the window ends: at 50 kbit/s a frame's 72 framing
//! bits alone take 1.44 ms). The first IMP, the one with the host, runs its window in steps of
//! [`HOST_STEP_NS`]: the host answers a RFNM with the next message at the first step after the
//! RFNM's last bit (SIMH's host did so on wall time, and SIMH's interface then took it at its
//! next 250 µs poll). Same program and settings, same bytes: nothing here reads a clock.

use anyhow::{Context, Result, bail};
use nmc_h316::imp::InputError;
use nmc_h316::{CpuConfig, Image, Imp, ImpConfig, Model, Output, RunStop};
use nmc_imp::spec::PowerOn;

use crate::analyze::{ExperimentResult, MessageRow, message_rows, summarize};
use crate::leader::{Address, FakeHost, Kind, Leader};
use crate::pump::Pump;
use crate::run::{Experiment, HostRun, Machine, Network, Settings};
use crate::trace::{Event, Trace};

/// The user's copy of the IMP program: `given`, else the `NMC_IMP_PROGRAM` environment
/// variable; `None` when neither names one.
pub fn program_path(given: Option<&std::path::Path>) -> Option<std::path::PathBuf> {
    given
        .map(std::path::Path::to_path_buf)
        .or_else(|| std::env::var_os("NMC_IMP_PROGRAM").map(std::path::PathBuf::from))
}

/// Reads and parses the IMP program at `path` (SIMH's deposit file, `H316/tests/impcode.cmd`).
pub fn read_program(path: &std::path::Path) -> Result<Image> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the IMP program {}", path.display()))?;
    Image::parse(&text).with_context(|| format!("{} is not a SIMH deposit file", path.display()))
}

/// The IMP program [`program_path`] names, and its image ([`read_program`]); an error when none
/// is named.
pub fn load_program(given: Option<&std::path::Path>) -> Result<(std::path::PathBuf, Image)> {
    let Some(path) = program_path(given) else {
        bail!(
            "no IMP program: give --program or set NMC_IMP_PROGRAM (SIMH's H316/tests/impcode.cmd)"
        );
    };
    let image = read_program(&path)?;
    Ok((path, image))
}

/// The host IMP runs in steps this long, so the host acts within this of an IMP's output.
pub const HOST_STEP_NS: u64 = 20_000;

/// Between probes while the network comes up (as [`crate::run::Running::wait_up`]).
pub const PROBE_EVERY_NS: u64 = 2_000_000_000;

/// How a replay runs.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// For tracing a difference to SIMH's polling only (off by default): a frame reaches the
    /// receiving IMP at the first multiple of this period after its last bit arrives (SIMH's
    /// modem looks for datagrams every `MIn RXPOLL`: 250 µs in the oracle runs,
    /// `Settings::poll_us`). The hardware did not poll.
    pub simh_poll_ns: Option<u64>,
    /// The same for the host interface: an input starts only on this grid (SIMH's `HIn POLL`;
    /// `ImpConfig::host_input_poll_ns`).
    pub simh_host_poll_ns: Option<u64>,
    /// For tracing a difference to SIMH's wall-clock delivery only (0, off, by default): each
    /// frame reaches the receiving IMP up to this much after its last bit, uniformly, drawn
    /// from [`Options::seed`] (SIMH's frames arrived 0.1 ms late on average, 1.1 ms at the
    /// 99th percentile: `frame_delivery` in each recorded run.json).
    pub jitter_ns: u64,
    /// The seed of the jitter's generator (ChaCha8); unused without jitter.
    pub seed: u64,
    /// Give up if no probe is answered by then (simulated ns).
    pub up_timeout_ns: u64,
    /// Stop a pump with no reply for this long (simulated ns).
    pub stall_ns: u64,
    /// Stop after this many experiments (the rest are not run).
    pub experiments: usize,
    /// Diagnosis only: count each IMP's time per instruction address during each experiment
    /// ([`Imp::set_profile`]; [`Replay::profiles`]). Off by default; it changes no output.
    pub profile: bool,
    /// Diagnosis only: log each IMP's passes through these instruction addresses
    /// ([`Imp::set_watch`]; [`Replay::watched`]). Off by default; it changes no output.
    pub watch: WatchSpec,
    /// When each IMP is switched on ([`power_on_instants`]): together (at 0, the default, as
    /// SIMH's recorded runs) or apart.
    pub power_on: PowerOn,
    /// The seed the instants are drawn from when apart.
    pub power_on_seed: u64,
}

/// Counts of the real-time clock in one slow-tick cycle: the clock interrupts every 256 counts
/// (the fast tick, 25.6 ms at the program's 100 µs; `nmc_h316::imp::clock`) and the program's
/// slow tick is every 25th fast tick (BBN 3050 p. 161, `TOSLOW`).
pub const SLOW_TICK_COUNTS: u64 = 25 * 256;

/// When each of the IMPs numbered `imps` is switched on, in ns ([`PowerOn`]): all at 0, or
/// apart, each at an instant drawn uniformly over one slow-tick cycle of a clock counting
/// `rtc_us` ([`SLOW_TICK_COUNTS`] counts: 640 ms at 100 µs), from `seed` on the model's stream
/// for its IMPs' clock phases ([`nmc_imp::model::clock_stream`]). The draws go by IMP number
/// (1, 2, … 63, one each whether the network has that IMP or not), so a site keeps its instant
/// whatever order a driver lists the IMPs in: `nmc run` on `[network.program]` and `nmc oracle
/// emulate-map` switch the same map's IMPs on at the same instants from the same seed.
pub fn power_on_instants(imps: &[u8], power_on: PowerOn, rtc_us: u32, seed: u64) -> Vec<u64> {
    match power_on {
        PowerOn::Together => vec![0; imps.len()],
        PowerOn::Apart => {
            let cycle_ns = (SLOW_TICK_COUNTS * u64::from(rtc_us) * 1000).max(1);
            let mut rng = nmc_sim::RngStreams::new(seed).stream(nmc_imp::model::clock_stream());
            // One draw for each number up to the program's 63 (or a larger one given, which
            // `check_network` refuses before a run), so the first 64 never depend on it.
            let top = imps.iter().copied().max().unwrap_or(0).max(MAX_IMP_NUMBER);
            let by_number: Vec<u64> = (0..=top)
                .map(|_| rng.uniform_inclusive(0, cycle_ns - 1))
                .collect();
            imps.iter().map(|&n| by_number[usize::from(n)]).collect()
        }
    }
}

/// The addresses a replay watches and the words it copies at each ([`Options::watch`]): at
/// most [`WatchSpec::MAX_AT`] addresses and [`WatchSpec::MAX_PEEK`] words (a fixed size keeps
/// [`Options`] a plain value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WatchSpec {
    at: [u16; WatchSpec::MAX_AT],
    n_at: usize,
    peek: [u16; WatchSpec::MAX_PEEK],
    n_peek: usize,
}

impl Default for WatchSpec {
    /// No watch.
    fn default() -> Self {
        WatchSpec {
            at: [0; WatchSpec::MAX_AT],
            n_at: 0,
            peek: [0; WatchSpec::MAX_PEEK],
            n_peek: 0,
        }
    }
}

impl WatchSpec {
    /// Addresses a watch may hold.
    pub const MAX_AT: usize = 64;
    /// Words a watch may copy at each.
    pub const MAX_PEEK: usize = 16;

    /// Watch `at`, copying `peek` at each; an error names the limit passed.
    pub fn new(at: &[u16], peek: &[u16]) -> Result<WatchSpec> {
        if at.len() > Self::MAX_AT || peek.len() > Self::MAX_PEEK {
            bail!(
                "a watch takes at most {} addresses and {} peeked words ({} and {} given)",
                Self::MAX_AT,
                Self::MAX_PEEK,
                at.len(),
                peek.len()
            );
        }
        let mut w = WatchSpec {
            n_at: at.len(),
            n_peek: peek.len(),
            ..WatchSpec::default()
        };
        w.at[..at.len()].copy_from_slice(at);
        w.peek[..peek.len()].copy_from_slice(peek);
        Ok(w)
    }

    /// The watched addresses.
    pub fn at(&self) -> &[u16] {
        &self.at[..self.n_at]
    }

    /// The words copied at each.
    pub fn peek(&self) -> &[u16] {
        &self.peek[..self.n_peek]
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            simh_poll_ns: None,
            simh_host_poll_ns: None,
            jitter_ns: 0,
            seed: 0,
            up_timeout_ns: 900_000_000_000,
            stall_ns: 60_000_000_000,
            experiments: usize::MAX,
            profile: false,
            watch: WatchSpec::default(),
            power_on: PowerOn::Together,
            power_on_seed: 0,
        }
    }
}

/// What a replay measured.
#[derive(Clone, Debug)]
pub struct Replay {
    /// When the first probe was answered (ns).
    pub up_ns: u64,
    /// Each experiment's host records.
    pub host_runs: Vec<HostRun>,
    /// Each IMP's trace, in SIMH's trace format.
    pub traces: Vec<Trace>,
    /// The host's log.
    pub log: Vec<String>,
    /// Instructions executed, all IMPs.
    pub instructions: u64,
    /// The source IMP's number.
    pub source_imp: u8,
    /// Every IMP's number, by network index.
    pub imps: Vec<u8>,
    /// With [`Options::profile`]: per experiment (in the order run), each IMP's ns per
    /// instruction address while it ran (index: IMP index, then address).
    pub profiles: Vec<(String, Vec<Vec<u64>>)>,
    /// With [`Options::watch`]: each IMP's passes through the watched addresses, by network
    /// index, in time order.
    pub watched: Vec<Vec<nmc_h316::Watched>>,
    /// With a [`Load`]: the background hosts' counts, all hosts together, at the end of each
    /// experiment (in the order run; each the total since the load started).
    pub background: Vec<crate::background::Counts>,
    /// When each IMP was switched on ([`Options::power_on`]), ns, by network index.
    pub on_ns: Vec<u64>,
}

/// The network's own load on a replay ([`crate::background`]): a background host on some
/// IMPs, started when the network is up; the first experiment waits `settle_ns` after that.
#[derive(Clone, Debug)]
pub struct Load {
    /// Each background host: its IMP's network index and its plan (destinations as topology
    /// indices).
    pub sites: Vec<(usize, nmc_imp::run::BackgroundSite)>,
    /// The network index of each topology index.
    pub net_index: Vec<usize>,
    /// The seed of the hosts' streams (the scenario's run seed).
    pub seed: u64,
    /// Load alone before the first experiment.
    pub settle_ns: u64,
}

impl Replay {
    /// The experiments' results and every message's row, measured as the recordings were;
    /// with `pair_only`, the source's counts are the pump's pair's alone
    /// ([`crate::analyze::source_counts`]: on a loaded network, where other traffic crosses the
    /// source IMP), else every frame's, as SIMH's recorded counts were made.
    pub fn results(
        &self,
        settings: &Settings,
        pair_only: bool,
    ) -> (Vec<ExperimentResult>, Vec<MessageRow>) {
        let mut results = Vec::new();
        let mut all = Vec::new();
        for r in &self.host_runs {
            let (rows, matching) = message_rows(r, &self.traces[0], settings.host_bps);
            let mut x = summarize(r, &rows, matching, r.experiment.hops);
            x.accepted = !r.stalled;
            x.max_lag_ms = 0.0;
            x.behind_share = 0.0;
            if r.stalled {
                x.refused_because.push("the pump stalled".into());
            }
            x.source = crate::analyze::source_counts(
                &self.traces[0],
                r.span_ns,
                pair_only.then(|| (self.source_imp, self.imps[r.experiment.dest])),
            );
            x.dest = crate::analyze::dest_counts(
                &self.traces[r.experiment.dest],
                r.span_ns,
                self.source_imp,
            );
            results.push(x);
            all.extend(rows);
        }
        (results, all)
    }
}

/// The IMP configuration a recorded run's command file gave IMP `index` (SIMH's
/// `impconfig.cmd` as `crate::run` writes it: 16K, modems fitted only on the lines used, host
/// interface 1 fitted, sense switches 2 and 4).
pub fn imp_config(net: &Network, s: &Settings, index: usize) -> ImpConfig {
    let mut modems = [None; 5];
    for l in &net.lines {
        for end in [l.a, l.b] {
            if end.0 == index && (1..=5).contains(&end.1) {
                modems[end.1 as usize - 1] = Some(l.bps.unwrap_or(s.line_bps));
            }
        }
    }
    ImpConfig {
        cpu: CpuConfig {
            model: match net.machine(index, s.machine) {
                Machine::H516 => Model::H516,
                Machine::H316 => Model::H316,
            },
            ..CpuConfig::default()
        },
        number: u16::from(net.imps[index]),
        modems,
        hosts: [Some(s.host_bps), None, None, None],
        framing_bits: s.framing_bits,
        clock_tick_ns: u64::from(s.rtc_us) * 1000,
        ..ImpConfig::default()
    }
}

enum Phase {
    Up {
        last_probe: Option<u64>,
    },
    /// The load runs alone until then.
    Settle {
        until: u64,
    },
    Pump {
        index: usize,
        pump: Pump,
        start_ns: u64,
        last_progress: u64,
    },
    Done,
}

struct Driver<'a> {
    net: &'a Network,
    s: &'a Settings,
    experiments: &'a [Experiment],
    probe_imp: u8,
    limits: Options,
    imps: Vec<Imp>,
    events: Vec<Vec<Event>>,
    log: Vec<String>,
    phase: Phase,
    up_ns: Option<u64>,
    host_runs: Vec<HostRun>,
    profiles: Vec<(String, Vec<Vec<u64>>)>,
    load: Option<&'a Load>,
    /// Background hosts by IMP index, once the network is up.
    bg: Vec<Option<crate::background::BackgroundHost>>,
    /// Background messages delivered to a destination's host 2.
    bg_delivered: u64,
    /// The totals at the end of each experiment.
    background: Vec<crate::background::Counts>,
}

fn head(words: &[u16], n: usize) -> Vec<u16> {
    words[..words.len().min(n)].to_vec()
}

fn ev(t_ns: u64, what: &str, line: u8, words: usize, extra: String, head: Vec<u16>) -> Event {
    Event {
        t_ns,
        what: what.to_string(),
        line,
        words: words as u32,
        extra,
        head,
    }
}

impl Driver<'_> {
    fn peer(&self, imp: usize, line: u8) -> Option<(usize, u8)> {
        self.net.lines.iter().find_map(|l| {
            if l.a == (imp, line) {
                Some(l.b)
            } else if l.b == (imp, line) {
                Some(l.a)
            } else {
                None
            }
        })
    }

    /// The propagation delay of the line on IMP `imp`'s modem `line` (the run's, unless the
    /// line has its own).
    fn prop_of(&self, imp: usize, line: u8) -> u64 {
        self.net
            .lines
            .iter()
            .find(|l| l.a == (imp, line) || l.b == (imp, line))
            .and_then(|l| l.prop_ns)
            .unwrap_or(self.s.prop_ns)
    }

    fn note(&mut self, t: u64, s: String) {
        self.log.push(format!("{:.6} {s}", t as f64 / 1e9));
    }

    fn run_imp(&mut self, i: usize, until: u64) -> Result<Vec<Output>> {
        run_to(
            &mut self.imps[i],
            until,
            &format!("IMP {}", self.net.imps[i]),
        )
    }

    /// Record an IMP's outputs in its trace, act on the host's, collect frames to deliver.
    fn record(&mut self, i: usize, outs: Vec<Output>, frames: &mut Vec<Frame>) -> Result<()> {
        for o in outs {
            match o {
                Output::Frame {
                    line,
                    words,
                    first_bit_ns,
                    last_bit_ns,
                } => {
                    let arrive = last_bit_ns + self.prop_of(i, line);
                    self.events[i].push(ev(
                        first_bit_ns,
                        "MITX",
                        line,
                        words.len(),
                        format!("done={last_bit_ns} arrive={arrive}"),
                        head(&words, 8),
                    ));
                    frames.push((arrive, i, line, words));
                }
                Output::FrameIn { line, words, at_ns } => self.events[i].push(ev(
                    at_ns,
                    "MIRX",
                    line,
                    words.len(),
                    "-".into(),
                    head(&words, 8),
                )),
                Output::FrameLost { line, words, at_ns } => {
                    self.events[i].push(ev(at_ns, "MIRXDROP", line, words, "-".into(), vec![]))
                }
                Output::HostInput {
                    host,
                    words,
                    eom,
                    start_ns,
                    done_ns,
                } => {
                    let e = if eom { "eom" } else { "-" };
                    self.events[i].push(ev(
                        start_ns,
                        "HIRX",
                        host,
                        words.len(),
                        e.into(),
                        head(&words, 4),
                    ));
                    self.events[i].push(ev(done_ns, "HIRXDONE", host, 0, e.into(), vec![]));
                }
                Output::HostMessage {
                    host,
                    words,
                    final_start_ns,
                    last_bit_ns,
                } => {
                    self.events[i].push(ev(
                        final_start_ns,
                        "HITX",
                        host,
                        words.len(),
                        "final".into(),
                        head(&words, 4),
                    ));
                    if i == 0 && host == 1 && words.len() >= 2 {
                        self.host_message(last_bit_ns, Leader::decode([words[0], words[1]]))?;
                    } else if host == crate::background::HOST && words.len() >= 2 {
                        self.background_message(
                            i,
                            last_bit_ns,
                            Leader::decode([words[0], words[1]]),
                        );
                    }
                }
                Output::ImpReady {
                    host: 1,
                    ready,
                    at_ns,
                } if i == 0 => {
                    self.note(at_ns, format!("IMP ready {ready}"));
                    if ready {
                        let now = self.imps[0].now_ns();
                        self.imps[0]
                            .set_host_ready(1, true, now)
                            .map_err(input_error)?;
                    }
                }
                Output::ImpReady {
                    host: crate::background::HOST,
                    ready: true,
                    ..
                } if self.load.is_some() => {
                    let now = self.imps[i].now_ns();
                    self.imps[i]
                        .set_host_ready(crate::background::HOST, true, now)
                        .map_err(input_error)?;
                }
                Output::ImpReady { .. } | Output::Console { .. } | Output::Lights { .. } => {}
            }
        }
        Ok(())
    }

    /// A whole message from the IMP to the host, its last bit at `t`.
    fn host_message(&mut self, t: u64, leader: Leader) -> Result<()> {
        match &mut self.phase {
            Phase::Up { .. } => {
                self.note(t, format!("from IMP: {leader}"));
                if leader.kind == Kind::Rfnm && leader.link == 1 && leader.imp == self.probe_imp {
                    self.up_ns = Some(t);
                    match self.load {
                        Some(load) => {
                            self.start_load(load, t)?;
                            self.note(t, format!("background load on, {} hosts", load.sites.len()));
                            self.phase = Phase::Settle {
                                until: t + load.settle_ns,
                            };
                        }
                        None => self.start_experiment(0, t)?,
                    }
                }
            }
            Phase::Settle { .. } => self.note(t, format!("from IMP: {leader}")),
            Phase::Pump {
                pump,
                last_progress,
                ..
            } => {
                if pump.on_message(t, &leader).is_some() {
                    *last_progress = t;
                    if pump.finished() {
                        self.finish_experiment(t, false)?;
                    }
                } else {
                    self.note(t, format!("from IMP: {leader}"));
                }
            }
            Phase::Done => self.note(t, format!("from IMP: {leader}")),
        }
        Ok(())
    }

    fn start_experiment(&mut self, index: usize, now: u64) -> Result<()> {
        if index >= self.experiments.len() || index >= self.limits.experiments {
            self.phase = Phase::Done;
            return Ok(());
        }
        let e = &self.experiments[index];
        let link = 10 + index as u8;
        let (pump, text) = e.pump(self.net, link)?;
        self.note(now, text);
        if self.limits.profile {
            for imp in &mut self.imps {
                imp.take_profile();
            }
        }
        self.phase = Phase::Pump {
            index,
            pump,
            start_ns: now,
            last_progress: now,
        };
        Ok(())
    }

    fn finish_experiment(&mut self, now: u64, stalled: bool) -> Result<()> {
        let Phase::Pump {
            index,
            pump,
            start_ns,
            ..
        } = std::mem::replace(&mut self.phase, Phase::Done)
        else {
            return Ok(());
        };
        let e = &self.experiments[index];
        if stalled {
            self.note(now, format!("pump {}: no reply, stopped", e.name));
        }
        if self.limits.profile {
            let p = self
                .imps
                .iter_mut()
                .map(|i| i.take_profile().unwrap_or_default())
                .collect();
            self.profiles.push((e.name.clone(), p));
        }
        if self.load.is_some() {
            let all = self.background_counts();
            self.background.push(all);
        }
        self.host_runs.push(HostRun {
            experiment: e.clone(),
            link: pump.config().link,
            records: pump.records().to_vec(),
            stalled,
            span_ns: (start_ns, now),
        });
        self.start_experiment(index + 1, now)
    }

    /// The background hosts start, each with its opening NOP, their first arrivals after
    /// `now`.
    fn start_load(&mut self, load: &Load, now: u64) -> Result<()> {
        let streams = nmc_sim::RngStreams::new(load.seed);
        let index = |y: u32| load.net_index.get(y as usize).copied();
        for (i, site) in &load.sites {
            self.bg[*i] = crate::background::BackgroundHost::new(site, &index, &streams, now);
            if let Some(h) = self.bg[*i].as_mut() {
                let words = h.opening();
                let at = now.max(self.imps[*i].now_ns());
                self.imps[*i]
                    .host_send(crate::background::HOST, words, at)
                    .map_err(input_error)?;
            }
        }
        Ok(())
    }

    /// Every background host's counts added up, deliveries included.
    fn background_counts(&self) -> crate::background::Counts {
        let mut all = crate::background::Counts::default();
        for h in self.bg.iter().flatten() {
            all.add(&h.counts);
        }
        all.delivered = self.bg_delivered;
        all
    }

    /// A message to IMP `i`'s background host, its last bit at `t`: a background message
    /// delivered, or a reply to one this host sent.
    fn background_message(&mut self, i: usize, t: u64, leader: Leader) {
        let answered_by_rfnm = match leader.kind {
            Kind::Regular => {
                self.bg_delivered += 1;
                return;
            }
            Kind::Rfnm | Kind::IncompleteTransmission | Kind::DestinationDead => {
                let dest = self.net.imps.iter().position(|&n| n == leader.imp);
                let answered = match (dest, self.bg[i].as_mut()) {
                    (Some(d), Some(h)) => h.reply(d, leader.kind, t),
                    _ => false,
                };
                answered && leader.kind == Kind::Rfnm
            }
            _ => false,
        };
        if !answered_by_rfnm {
            self.note(
                t,
                format!("IMP {} background host: {leader}", self.net.imps[i]),
            );
        }
    }

    /// The background messages arriving before `end` handed to their IMPs' host 2, each at its
    /// arrival or the IMP's clock if that is later; refused if its host's queue is full.
    fn background_arrivals(&mut self, end: u64) -> Result<()> {
        for i in 0..self.bg.len() {
            let Some(h) = self.bg[i].as_mut() else {
                continue;
            };
            let arrivals = h.arrivals(end);
            if arrivals.is_empty() {
                continue;
            }
            let taken = self.imps[i]
                .devices
                .host(crate::background::HOST)
                .map_or(0, |x| x.stats.messages_in);
            for a in arrivals {
                if h.queued(taken) >= u64::from(h.host_queue) {
                    h.counts.refused += 1;
                    continue;
                }
                let at = a.at_ns.max(self.imps[i].now_ns());
                let words = h.message(&a, self.net.imps[a.dest], at)?;
                self.imps[i]
                    .host_send(crate::background::HOST, words, at)
                    .map_err(input_error)?;
            }
        }
        Ok(())
    }

    /// The host's turn at the source IMP's clock: probe, or hand over the pump's messages.
    fn host_act(&mut self) -> Result<()> {
        let now = self.imps[0].now_ns();
        let ready = self.imps[0].devices.host(1).is_some_and(|h| h.imp_ready());
        let mut send: Vec<(Leader, Vec<u16>)> = Vec::new();
        let mut stalled = false;
        if let Phase::Settle { until } = self.phase
            && now >= until
        {
            self.start_experiment(0, now)?;
        }
        match &mut self.phase {
            Phase::Up { last_probe } => {
                if ready && last_probe.is_none_or(|t| now >= t + PROBE_EVERY_NS) {
                    *last_probe = Some(now);
                    let to = Address::fake(self.probe_imp, FakeHost::Discard);
                    send.push((Leader::new(Kind::Regular, to, 1)?, vec![0o123456; 8]));
                }
            }
            Phase::Pump {
                pump,
                last_progress,
                ..
            } => {
                while let Some(m) = pump.next_message(now) {
                    send.push(m);
                }
                stalled = now > *last_progress + self.limits.stall_ns;
            }
            Phase::Settle { .. } | Phase::Done => {}
        }
        for (leader, text) in send {
            if matches!(self.phase, Phase::Up { .. }) {
                self.note(now, format!("probe to IMP {}", self.probe_imp));
            }
            let mut words = leader.encode().to_vec();
            words.extend_from_slice(&text);
            self.imps[0].host_send(1, words, now).map_err(input_error)?;
        }
        if stalled {
            self.finish_experiment(now, true)?;
        }
        Ok(())
    }
}

/// Runs `imp` (`who` in errors) to `until` and takes its outputs; a halt or a fault is an
/// error that says where.
pub(crate) fn run_to(imp: &mut Imp, until: u64, who: &str) -> Result<Vec<Output>> {
    match imp.run_until(until) {
        Ok(RunStop::Reached) => Ok(imp.take_outputs()),
        Ok(RunStop::Halted { p }) => bail!("{who} halted at {} ns (P = {p:05o})", imp.now_ns()),
        Err(f) => bail!("{who} at {} ns: {f}", imp.now_ns()),
    }
}

/// A frame to deliver: arrival at the far end, sending IMP, its line, the words.
type Frame = (u64, usize, u8, Vec<u16>);

fn input_error(e: InputError) -> anyhow::Error {
    anyhow::anyhow!("the driver gave an input too late: {e}")
}

/// Runs `experiments` on a network of emulated IMPs loaded with `image`, as the recorded run
/// with these settings did; `probe` is the IMP index whose discard fake host is probed until
/// it answers.
pub fn replay(
    image: &Image,
    net: &Network,
    s: &Settings,
    experiments: &[Experiment],
    probe: usize,
    limits: Options,
) -> Result<Replay> {
    replay_loaded(image, net, s, experiments, probe, limits, None)
}

/// [`replay`] with the network's own load: `load`'s background hosts on host interface 2 of
/// their IMPs ([`crate::background`]), from the moment the probe is answered.
pub fn replay_loaded(
    image: &Image,
    net: &Network,
    s: &Settings,
    experiments: &[Experiment],
    probe: usize,
    limits: Options,
    load: Option<&Load>,
) -> Result<Replay> {
    if net.imps.is_empty() || probe >= net.imps.len() {
        bail!(
            "a network of {} IMPs has no IMP {probe} to probe",
            net.imps.len()
        );
    }
    check_network(net)?;
    for e in experiments {
        if e.dest >= net.imps.len() {
            bail!("experiment {}: no IMP {} in the network", e.name, e.dest);
        }
    }
    let on = power_on_instants(&net.imps, limits.power_on, s.rtc_us, limits.power_on_seed);
    let imps: Vec<Imp> = (0..net.imps.len())
        .map(|i| {
            let mut c = imp_config(net, s, i);
            c.host_input_poll_ns = limits.simh_host_poll_ns;
            if load.is_some_and(|l| l.sites.iter().any(|x| x.0 == i)) {
                c.hosts[usize::from(crate::background::HOST) - 1] = Some(s.host_bps);
            }
            let mut imp = Imp::new(&c);
            imp.load(image);
            imp.power_on_at(on[i]);
            imp.set_profile(limits.profile);
            imp.set_watch(limits.watch.at(), limits.watch.peek());
            imp
        })
        .collect();
    // Half the shortest frame (framing bits only) plus propagation on any line.
    let window = net
        .lines
        .iter()
        .map(|l| {
            let bps = u64::from(l.bps.unwrap_or(s.line_bps).max(1));
            (u64::from(s.framing_bits) * 1_000_000_000).div_ceil(bps)
                + l.prop_ns.unwrap_or(s.prop_ns)
        })
        .min()
        .unwrap_or(1_000_000)
        / 2;
    if limits.jitter_ns >= 2 * window {
        bail!(
            "a jitter of {} ns could reorder frames on a line",
            limits.jitter_ns
        );
    }
    if window < HOST_STEP_NS {
        bail!("lines this fast leave a window of {window} ns, under the host's step");
    }
    let mut d = Driver {
        net,
        s,
        experiments,
        probe_imp: net.imps[probe],
        limits,
        events: vec![Vec::new(); imps.len()],
        imps,
        log: Vec::new(),
        phase: Phase::Up { last_probe: None },
        up_ns: None,
        host_runs: Vec::new(),
        profiles: Vec::new(),
        load,
        bg: vec![None; net.imps.len()],
        bg_delivered: 0,
        background: Vec::new(),
    };
    let mut rng = {
        use rand::SeedableRng;
        rand_chacha::ChaCha8Rng::seed_from_u64(limits.seed)
    };
    let mut t = 0u64;
    while !matches!(d.phase, Phase::Done) {
        if d.up_ns.is_none() && t > limits.up_timeout_ns {
            bail!(
                "the IMPs did not come up within {} s (no RFNM from IMP {}'s discard host)",
                limits.up_timeout_ns / 1_000_000_000,
                d.probe_imp
            );
        }
        let end = t + window;
        let mut frames: Vec<Frame> = Vec::new();
        d.background_arrivals(end)?;
        while d.imps[0].now_ns() < end {
            d.host_act()?;
            let step = (d.imps[0].now_ns() + HOST_STEP_NS).min(end);
            let outs = d.run_imp(0, step)?;
            d.record(0, outs, &mut frames)?;
        }
        for i in 1..d.imps.len() {
            let outs = d.run_imp(i, end)?;
            d.record(i, outs, &mut frames)?;
        }
        frames.sort_by_key(|f| (f.0, f.1, f.2));
        for (arrive, i, line, words) in frames {
            let arrive = if limits.jitter_ns > 0 {
                use rand::Rng;
                arrive + rng.random_range(0..=limits.jitter_ns)
            } else {
                arrive
            };
            let arrive = match limits.simh_poll_ns.filter(|&p| p > 0) {
                Some(p) => arrive.div_ceil(p) * p,
                None => arrive,
            };
            if let Some((j, pl)) = d.peer(i, line) {
                d.imps[j]
                    .deliver_frame(pl, words, arrive, true)
                    .map_err(input_error)?;
            }
        }
        t = end;
    }
    let traces = d
        .events
        .into_iter()
        .map(|mut ev| {
            ev.sort_by_key(|e| e.t_ns);
            Trace {
                events: ev,
                summary: None,
                unreadable: 0,
            }
        })
        .collect();
    Ok(Replay {
        up_ns: d.up_ns.unwrap_or(0),
        host_runs: d.host_runs,
        traces,
        log: d.log,
        instructions: d.imps.iter().map(|i| i.cpu.instructions()).sum(),
        source_imp: net.imps[0],
        imps: net.imps.clone(),
        profiles: d.profiles,
        watched: d.imps.iter_mut().map(Imp::take_watched).collect(),
        background: d.background,
        on_ns: d.imps.iter().map(Imp::on_ns).collect(),
    })
}

/// Modem interfaces an IMP of program 3050 drives: five (listing p. 25, `HOST34`: "0 for 5
/// modems", with 2 hosts; 4 modems leave room for 3 hosts, 3 for 4).
pub const MAX_MODEMS: u8 = 5;

/// The highest IMP number program 3050 knows: its tables have `NIMP = 64` entries ("NO OF
/// IMPS", listing p. 9), numbers 1–63 ([`nmc_h316::ImpConfig::number`]).
pub const MAX_IMP_NUMBER: u8 = 63;

/// A network the emulator can run: IMP numbers 1–[`MAX_IMP_NUMBER`] and distinct, every line
/// between two different IMPs of the list on modems 1–[`MAX_MODEMS`], no modem used twice, no
/// speed of 0. The error names the first fault in one line.
pub fn check_network(net: &Network) -> Result<()> {
    let mut numbers = std::collections::BTreeSet::new();
    for &n in &net.imps {
        if n == 0 || n > MAX_IMP_NUMBER {
            bail!("IMP number {n}: program 3050 takes 1 to {MAX_IMP_NUMBER}");
        }
        if !numbers.insert(n) {
            bail!("IMP number {n} appears twice");
        }
    }
    let mut used = std::collections::BTreeSet::new();
    for (k, l) in net.lines.iter().enumerate() {
        if l.a.0 == l.b.0 {
            bail!("line {k} joins IMP index {} to itself", l.a.0);
        }
        for (imp, modem) in [l.a, l.b] {
            if imp >= net.imps.len() {
                bail!(
                    "line {k}: no IMP index {imp} in a network of {}",
                    net.imps.len()
                );
            }
            if !(1..=MAX_MODEMS).contains(&modem) {
                bail!(
                    "line {k}: IMP {} modem {modem}: program 3050 drives modems 1 to {MAX_MODEMS}",
                    net.imps[imp]
                );
            }
            if !used.insert((imp, modem)) {
                bail!(
                    "line {k}: IMP {} modem {modem} is already used",
                    net.imps[imp]
                );
            }
        }
        if l.bps == Some(0) {
            bail!("line {k} has a speed of 0 bit/s");
        }
    }
    Ok(())
}

/// The accepted rows of RFC 632's recorded experiment (`nmc oracle rfc632`), from
/// `runs.csv` in `dir`: its network is not a chain, so `ko-chain.csv` and `single-packet.csv`
/// (and the model's comparison, [`crate::model::recorded`]) leave it out.
pub fn recorded_rfc632(dir: &std::path::Path) -> Result<Vec<crate::model::Recorded>> {
    let path = dir.join("runs.csv");
    let mut r =
        csv::Reader::from_path(&path).with_context(|| format!("reading {}", path.display()))?;
    let mut rows = Vec::new();
    for row in r.deserialize() {
        let row: crate::model::Recorded =
            row.with_context(|| format!("a row of {}", path.display()))?;
        if row.accepted && row.experiment.starts_with("rfc632") {
            rows.push(row);
        }
    }
    Ok(rows)
}

/// What the source and destination IMPs did in one experiment, SIMH's recording beside the
/// emulator's (`analyze::source_counts`, `analyze::dest_counts`: the same code). Reported, not
/// judged: the counts are the mechanism behind a row, and one recorded run gives no spread to
/// judge them by.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CountsRow {
    /// The recorded run.
    pub run: String,
    /// The experiment.
    pub experiment: String,
    /// `simh` or `emulator`.
    pub by: String,
    /// Message packets the source IMP sent (first sendings and again).
    pub packets_sent: u64,
    /// Of them, sent again.
    pub packets_again: u64,
    /// Of them, on modem line 1 … 5.
    pub line1: u64,
    /// On line 2.
    pub line2: u64,
    /// On line 3.
    pub line3: u64,
    /// On line 4.
    pub line4: u64,
    /// On line 5.
    pub line5: u64,
    /// REQALLs sent.
    pub reqall: u64,
    /// ALLOCATEs received alone.
    pub all_alone: u64,
    /// RFNMs received without an ALLOCATE.
    pub rfnm_alone: u64,
    /// Single-packet messages the destination IMP received from the source.
    pub dest_received: u64,
    /// Of them, out of order.
    pub dest_out_of_order: u64,
    /// Of them, again.
    pub dest_again: u64,
}

impl CountsRow {
    /// The emulator's counts of one experiment, with no recording beside them.
    pub fn of(run: &str, x: &ExperimentResult) -> CountsRow {
        CountsRow::new(run, &x.experiment, "emulator", &x.source, &x.dest)
    }

    fn new(
        run: &str,
        experiment: &str,
        by: &str,
        s: &crate::analyze::SourceCounts,
        d: &crate::analyze::DestCounts,
    ) -> CountsRow {
        CountsRow {
            run: run.into(),
            experiment: experiment.into(),
            by: by.into(),
            packets_sent: s.packets_sent,
            packets_again: s.packets_again,
            line1: s.packets_by_line[1],
            line2: s.packets_by_line[2],
            line3: s.packets_by_line[3],
            line4: s.packets_by_line[4],
            line5: s.packets_by_line[5],
            reqall: s.reqall,
            all_alone: s.all_alone,
            rfnm_alone: s.rfnm_alone,
            dest_received: d.received,
            dest_out_of_order: d.out_of_order,
            dest_again: d.again,
        }
    }
}

/// Each recorded experiment's counts (`results[].source`, `results[].dest` of its `run.json`)
/// above the emulator's for the same experiment, for the experiments the emulator ran.
pub fn counts(
    run_json: &std::path::Path,
    run: &str,
    results: &[ExperimentResult],
) -> Result<Vec<CountsRow>> {
    #[derive(serde::Deserialize)]
    struct Recorded {
        experiment: String,
        source: crate::analyze::SourceCounts,
        dest: crate::analyze::DestCounts,
    }
    let text = std::fs::read_to_string(run_json)
        .with_context(|| format!("cannot read {}", run_json.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not JSON", run_json.display()))?;
    let recorded: Vec<Recorded> = serde_json::from_value(v["results"].clone())
        .with_context(|| format!("{}: results", run_json.display()))?;
    let mut rows = Vec::new();
    for x in results {
        if let Some(r) = recorded.iter().find(|r| r.experiment == x.experiment) {
            rows.push(CountsRow::new(
                run,
                &x.experiment,
                "simh",
                &r.source,
                &r.dest,
            ));
        }
        rows.push(CountsRow::new(
            run,
            &x.experiment,
            "emulator",
            &x.source,
            &x.dest,
        ));
    }
    Ok(rows)
}

/// A recorded run's network, settings and experiments, from its `run.json`.
pub fn recorded_run(run_json: &std::path::Path) -> Result<(Network, Settings, Vec<Experiment>)> {
    let text = std::fs::read_to_string(run_json)
        .with_context(|| format!("cannot read {}", run_json.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not JSON", run_json.display()))?;
    let net: Network = serde_json::from_value(v["network"].clone())
        .with_context(|| format!("{}: network", run_json.display()))?;
    let s: Settings = serde_json::from_value(v["settings"].clone())
        .with_context(|| format!("{}: settings", run_json.display()))?;
    let e: Vec<Experiment> = serde_json::from_value(v["experiments"].clone())
        .with_context(|| format!("{}: experiments", run_json.display()))?;
    Ok((net, s, e))
}

/// The probe a recorded chain run used: the farthest IMP any experiment went to (`nmc oracle
/// chain` probes the IMP at the largest hop count).
pub fn probe_of(experiments: &[Experiment]) -> usize {
    experiments.iter().map(|e| e.dest).max().unwrap_or(1)
}

/// A trace in the patched SIMH's format (for `nmc oracle timeline` and reading by eye).
pub fn trace_text(t: &Trace) -> String {
    use std::fmt::Write as _;
    let mut s = String::from("# nmc-h316 emulator trace (SIMH trace format)\n");
    for e in &t.events {
        let _ = write!(
            s,
            "{} {} {} {} {} :",
            e.t_ns, e.what, e.line, e.words, e.extra
        );
        for w in &e.head {
            let _ = write!(s, " {w:06o}");
        }
        s.push('\n');
    }
    s
}

/// One recorded experiment beside the emulator's run of it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CompareRow {
    /// The recorded run.
    pub run: String,
    /// The experiment's name.
    pub experiment: String,
    /// `516` or `316`.
    pub machine: String,
    /// The host's window.
    pub outstanding: u32,
    /// Hops.
    pub hops: u32,
    /// Text words a message.
    pub text_words: usize,
    /// SIMH's throughput, kbit/s, and its 95 % half-width.
    pub simh_kbps: f64,
    /// Its 95 % half-width.
    pub simh_kbps_ci95: f64,
    /// The emulator's throughput, kbit/s (NaN if not measured).
    pub emu_kbps: f64,
    /// Its 95 % half-width (within-run batch means).
    pub emu_kbps_ci95: f64,
    /// (emulator − SIMH) / SIMH, %.
    pub kbps_diff_pct: f64,
    /// SIMH's K&O round trip, ms.
    pub simh_rtt_ms: f64,
    /// Its 95 % half-width.
    pub simh_rtt_ci95: f64,
    /// The emulator's K&O round trip, ms.
    pub emu_rtt_ms: f64,
    /// Its 95 % half-width.
    pub emu_rtt_ci95: f64,
    /// (emulator − SIMH) / SIMH, %.
    pub rtt_diff_pct: f64,
    /// Throughput within [`crate::model::THROUGHPUT_TOLERANCE`] of SIMH's.
    pub kbps_agrees: bool,
    /// Round trip within [`crate::model::RTT_TOLERANCE`] of SIMH's.
    pub rtt_agrees: bool,
    /// The emulator's messages all answered by RFNM and matched in its trace.
    pub clean: bool,
}

/// `emu` within `tolerance` (a fraction) of `simh`; a value not measured (NaN) never agrees.
pub fn agrees(emu: f64, simh: f64, tolerance: f64) -> bool {
    (emu - simh).abs() <= tolerance * simh.abs()
}

/// The accepted recorded rows of `run` beside the emulator's `results` for the same
/// experiments. A recorded row the emulator did not run gets NaN and disagrees.
pub fn compare(
    recorded: &[crate::model::Recorded],
    run: &str,
    results: &[ExperimentResult],
) -> Vec<CompareRow> {
    use crate::model::{RTT_TOLERANCE, THROUGHPUT_TOLERANCE};
    recorded
        .iter()
        .filter(|r| r.run == run && r.accepted)
        .map(|r| {
            let x = results.iter().find(|x| x.experiment == r.experiment);
            let mean = |e: Option<crate::stats::Estimate>| e.map_or(f64::NAN, |e| e.mean);
            let hw = |e: Option<crate::stats::Estimate>| e.map_or(f64::NAN, |e| e.half_width);
            let emu_kbps = mean(x.and_then(|x| x.throughput_kbps));
            let emu_rtt = mean(x.and_then(|x| x.ko_rtt_ms));
            let diff = |e: f64, s: f64| 100.0 * (e - s) / s;
            CompareRow {
                run: run.to_string(),
                experiment: r.experiment.clone(),
                machine: r.machine.clone(),
                outstanding: r.outstanding,
                hops: r.hops,
                text_words: r.text_words,
                simh_kbps: r.throughput_kbps,
                simh_kbps_ci95: r.throughput_ci95,
                emu_kbps,
                emu_kbps_ci95: hw(x.and_then(|x| x.throughput_kbps)),
                kbps_diff_pct: diff(emu_kbps, r.throughput_kbps),
                simh_rtt_ms: r.ko_rtt_ms,
                simh_rtt_ci95: r.ko_rtt_ci95,
                emu_rtt_ms: emu_rtt,
                emu_rtt_ci95: hw(x.and_then(|x| x.ko_rtt_ms)),
                rtt_diff_pct: diff(emu_rtt, r.ko_rtt_ms),
                kbps_agrees: agrees(emu_kbps, r.throughput_kbps, THROUGHPUT_TOLERANCE),
                rtt_agrees: agrees(emu_rtt, r.ko_rtt_ms, RTT_TOLERANCE),
                clean: x.is_some_and(|x| {
                    x.matching == "ok" && x.non_rfnm == 0 && !x.stalled && x.accepted
                }),
            }
        })
        .collect()
}

/// The comparison as a Markdown table.
pub fn table(rows: &[CompareRow]) -> String {
    use std::fmt::Write as _;
    let mut s = String::from(
        "| run | experiment | SIMH kbit/s | emulator kbit/s | Δ % | SIMH K&O rtt ms | emulator K&O rtt ms | Δ % | within 5 % |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | :---: |\n",
    );
    for r in rows {
        let ok = |b: bool| if b { "✓" } else { "✗" };
        let _ = writeln!(
            s,
            "| {} | {} | {:.2} ± {:.2} | {:.2} ± {:.2} | {:+.1} | {:.1} ± {:.1} | {:.1} ± {:.1} | {:+.1} | {} {}{} |",
            r.run,
            r.experiment,
            r.simh_kbps,
            r.simh_kbps_ci95,
            r.emu_kbps,
            r.emu_kbps_ci95,
            r.kbps_diff_pct,
            r.simh_rtt_ms,
            r.simh_rtt_ci95,
            r.emu_rtt_ms,
            r.emu_rtt_ci95,
            r.rtt_diff_pct,
            ok(r.kbps_agrees),
            ok(r.rtt_agrees),
            if r.clean { "" } else { " (not clean)" }
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imps_apart_are_switched_on_within_one_slow_tick_cycle_each_by_its_number() {
        let imps = [38u8, 4, 17, 63, 1];
        assert_eq!(
            power_on_instants(&imps, PowerOn::Together, 100, 7),
            vec![0; 5],
            "together: all at 0, the seed unused"
        );
        let a = power_on_instants(&imps, PowerOn::Apart, 100, 7);
        assert!(a.iter().all(|&t| t < 640_000_000), "{a:?}");
        assert!(a.windows(2).all(|w| w[0] != w[1]), "{a:?}");
        assert_eq!(
            a,
            power_on_instants(&imps, PowerOn::Apart, 100, 7),
            "same seed"
        );
        assert_ne!(
            a,
            power_on_instants(&imps, PowerOn::Apart, 100, 8),
            "another seed"
        );
        // An IMP keeps its instant whatever order or company it is listed in.
        assert_eq!(
            power_on_instants(&[4, 38], PowerOn::Apart, 100, 7),
            vec![a[1], a[0]]
        );
        // A number beyond the program's 63 gets an instant too, and moves no other.
        let big = power_on_instants(&[38, 200], PowerOn::Apart, 100, 7);
        assert_eq!(big[0], a[0]);
        assert!(big[1] < 640_000_000);
        // The cycle follows the clock: 25 x 256 counts of 20 us = 128 ms.
        let fast = power_on_instants(&imps, PowerOn::Apart, 20, 7);
        assert!(fast.iter().all(|&t| t < 128_000_000), "{fast:?}");
        // Over many IMPs and seeds the instants fill the cycle: every tenth of it is used.
        let mut tenths = [0u32; 10];
        for seed in 0..40 {
            let all: Vec<u8> = (1..=63).collect();
            for t in power_on_instants(&all, PowerOn::Apart, 100, seed) {
                tenths[(t / 64_000_000) as usize] += 1;
            }
        }
        assert!(tenths.iter().all(|&n| n > 150), "{tenths:?}");
    }

    #[test]
    fn a_row_agrees_within_five_percent_and_not_beyond_or_unmeasured() {
        assert!(agrees(105.0, 100.0, 0.05));
        assert!(agrees(95.0, 100.0, 0.05));
        assert!(!agrees(105.2, 100.0, 0.05));
        assert!(!agrees(94.8, 100.0, 0.05));
        assert!(!agrees(f64::NAN, 100.0, 0.05));
    }

    #[test]
    fn a_network_the_program_cannot_run_is_refused_in_one_line() {
        let ok = Network::rfc632(11, 230_400);
        assert!(check_network(&ok).is_ok());
        let mut n = ok.clone();
        n.imps[2] = 64;
        assert!(
            check_network(&n)
                .unwrap_err()
                .to_string()
                .contains("1 to 63")
        );
        let mut n = ok.clone();
        n.imps[2] = 11;
        assert!(check_network(&n).unwrap_err().to_string().contains("twice"));
        let mut n = ok.clone();
        n.lines[0].a.1 = 6;
        assert!(
            check_network(&n)
                .unwrap_err()
                .to_string()
                .contains("modems 1 to 5")
        );
        let mut n = ok.clone();
        n.lines[1].a = (0, 1);
        assert!(
            check_network(&n)
                .unwrap_err()
                .to_string()
                .contains("already used")
        );
        let mut n = ok.clone();
        n.lines[0].b = (9, 1);
        assert!(
            check_network(&n)
                .unwrap_err()
                .to_string()
                .contains("no IMP index 9")
        );
        let mut n = ok;
        n.lines[0].bps = Some(0);
        assert!(check_network(&n).is_err());
        for e in [
            check_network(&Network::chain(2, 0)).unwrap_err(),
            check_network(&n).unwrap_err(),
        ] {
            assert!(!e.to_string().contains('\n'), "one line: {e}");
        }
    }

    #[test]
    fn the_driver_refuses_a_probe_or_destination_outside_the_network() {
        let net = Network::chain(2, 11);
        let image = Image::default();
        let s = Settings::default();
        assert!(replay(&image, &net, &s, &[], 5, Options::default()).is_err());
    }
}
