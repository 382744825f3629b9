//! `nmc oracle`: the command line (its definition lives here so the `nmc` binary only
//! dispatches to it).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};

use crate::analyze::{ExperimentResult, MessageRow, message_rows, summarize};
use crate::build::{BuildInfo, build, check_checkout, clone, sha256_file};
use crate::files::write_csv;
use crate::run::{Experiment, Machine, Network, Running, Settings};
use crate::trace::parse;

/// Run BBN's 1973 IMP program in SIMH's H316 simulator, timed on a cycle clock, with nmc as an
/// 1822 host: K&O's experiment on the real program.
#[derive(Subcommand, Debug)]
pub enum OracleCommand {
    /// Build SIMH's h316 from your SIMH checkout with nmc's patches (the checkout is not changed).
    Build(BuildArgs),
    /// Run a chain of IMPs and K&O's pump from the first to the discard fake host of each IMP
    /// in turn; write every instance's logs and trace, the results and run.json to --out.
    Chain(ChainArgs),
    /// RFC 632's experiment on the real program: single-packet messages, RFNM-driven, across
    /// 3 hops with two paths (one with two 230.4 kbit/s circuits), to the discard fake host.
    Rfc632(Rfc632Args),
    /// Gather the results of many runs (accepted and refused) into tables, with each run's
    /// small files (run.json, results.csv, messages.csv, host.log, stdout) copied beside them.
    Collect(CollectArgs),
    /// One message's life hop by hop from a chain run's traces: every frame leaving and
    /// arriving at each IMP, acknowledgements, ALLOCATE, RFNM, on the cycle clock.
    Timeline(TimelineArgs),
    /// A recorded timeline (nmc oracle timeline) beside the model's run of the same experiment,
    /// event by event: each packet at each hop, the REQALL and ALLOCATE, the RFNM, each step's
    /// time on both and whether it is within one packet time. Needs no SIMH.
    Align(AlignArgs),
    /// Run nmc's model on every recorded experiment (data/oracle) and set the two side by side,
    /// each row judged against the tolerances fixed before the comparison (5 %); needs no SIMH.
    Compare(CompareArgs),
    /// Try a rule against the program: the profile and the profile with the --set values, each
    /// over the phase scan and on the June 1974 map, judged by the conditions fixed before the
    /// first rule was run (phase-rows on both may not fall, no class's round trip and neither
    /// map figure may rise); exits 1 when the rule fails. Needs no SIMH.
    Rule(RuleArgs),
    /// Run every recorded chain run (data/oracle/runs; RFC 632's two-path run by name) again
    /// on nmc's own H316 emulator, with the user's copy of the IMP program, and set each
    /// accepted experiment beside SIMH's, judged against the tolerances fixed before the
    /// comparison (5 %); needs no SIMH.
    Emulate(EmulateArgs),
    /// K&O's pump across the June 1974 map with every IMP (42) emulated running BBN's program,
    /// no other traffic: UCLA to the discard fake host of the ko-v2-throughput site at each
    /// hop count, set beside SIMH's chain numbers (data/oracle/ko-chain.csv); not scored.
    EmulateMap(EmulateMapArgs),
    /// The emulator's speed: instructions per second and the real-time factor of a 10-IMP
    /// chain and of the June 1974 map (42 IMPs) running BBN's program, idle after start-up.
    /// Skips with a message when no program is given.
    Bench(BenchArgs),
    /// Diagnosis: where a packet's time goes hop by hop in one experiment of an emulator
    /// replay written with `emulate --trace-all` (store-and-forward delay at each intermediate
    /// IMP split into the output line busy and the rest, the destination's and the source's
    /// time to the RFNM; with --listing, the IMPs' time by the listing's labels and program
    /// levels from `emulate --profile`; or the model's frames, --model-trace).
    PerHop(PerHopArgs),
    /// Diagnosis: the source IMP's TALLY table of unused allocations in each experiment of an
    /// emulator replay watched at its addresses, beside the model's on the same experiment:
    /// ALLs in, taken by a message, given back, REQALLs, the ticks that found one held, and
    /// how long an ALL waited. Needs no SIMH.
    Tally(TallyArgs),
}

/// `nmc oracle tally`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nmc oracle emulate --run 316-4-pass1 --max-experiments 4 --out out/w316 --watch 7157,15147,4310,14412,14400,20201 --peek 15155\n  \
    nmc oracle tally --run out/w316/runs/316-4-pass1\n  \
    nmc oracle tally --run out/w316/runs/316-4-pass1 --experiment 316-4out-4hop --out out/tally\n\n\
The program's table is read at its source IMP from the replay's watch.csv (07157 an ALL put in, \
15147 TALLYG's success, after 04310 BACK2's pull, 14412 HIPLT2's request, 20201 TALLYB's tick \
with the table's in-pointer 15155 peeked); the model's from its trace of the same experiment on \
scenarios/oracle-chain.toml, as nmc oracle compare runs it. Both over the measured messages.")]
pub struct TallyArgs {
    /// A run's directory written by `nmc oracle emulate --out DIR --watch
    /// 7157,15147,4310,14412,14400,20201 --peek 15155` (DIR/runs/NAME: `watch.csv` and
    /// `messages.csv`).
    #[arg(long, value_name = "DIR")]
    run: PathBuf,
    /// Only these experiments (names in messages.csv); by default every one the replay
    /// measured.
    #[arg(long, value_name = "NAME")]
    experiment: Vec<String>,
    /// The recorded data (for each experiment's machine, message and window).
    #[arg(long, value_name = "DIR", default_value = "data/oracle")]
    data: PathBuf,
    /// The model's chain scenario (default: scenarios/oracle-chain.toml, as compiled in).
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// Change a value of the model's scenario (as `nmc run --set`); may be repeated.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<nmc_scenario::Override>,
    /// Also write tally.csv, tally.json and tally.md here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// `nmc oracle per-hop`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nmc oracle emulate --run 316-4-fill1 --out out/emu316 --trace-all --profile\n  \
    nmc oracle per-hop --run out/emu316/runs/316-4-fill1 --experiment 316-4out-9hop\n  \
    nmc oracle per-hop --run out/emu316/runs/316-4-fill1 --experiment 316-4out-9hop --listing c-listing-ps.txt --out out/ph\n\n\
The listing (BBN's, with a proprietary notice) is read at run time and never copied.")]
pub struct PerHopArgs {
    /// A run's directory written by `nmc oracle emulate --out DIR --trace-all`
    /// (DIR/runs/NAME: every `imp<N>.trace` and `spans.csv`).
    #[arg(long, value_name = "DIR", required_unless_present = "model_trace")]
    run: Option<PathBuf>,
    /// The experiment (a name in spans.csv).
    #[arg(long, value_name = "NAME", required_unless_present = "model_trace")]
    experiment: Option<String>,
    /// Instead: the model's trace.jsonl (`nmc run scenarios/oracle-chain.toml --set trace=true
    /// --set network.hosts.1.imp=IMP9 …`), from IMP0 to --model-dest; messages from the 21st
    /// (the recordings' 20 of warm-up) on.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["run", "experiment", "listing"])]
    model_trace: Option<PathBuf>,
    /// The model's destination IMP (its number k of `IMPk`); by default the IMP where the
    /// trace's messages are reassembled.
    #[arg(long)]
    model_dest: Option<u8>,
    /// The IMP program's listing: sum the run's profile.csv (`emulate --profile`) by its labels
    /// and program levels.
    #[arg(long, value_name = "FILE")]
    listing: Option<PathBuf>,
    /// Labels to list in the profile table.
    #[arg(long, default_value_t = 30)]
    top: usize,
    /// Write hops.csv (every interval), per-hop.md and, with --listing, profile-by-label.csv
    /// here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// `nmc oracle emulate-map`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    NMC_IMP_PROGRAM=~/src/simh/H316/tests/impcode.cmd nmc oracle emulate-map --out out/emulate-map\n  \
    nmc oracle emulate-map --program impcode.cmd --hops 1,5,9 --messages 60 --out out/emulate-map\n  \
    nmc oracle emulate-map --program impcode.cmd --seed 2 --out out/ko-program/seed-2\n  \
    nmc oracle emulate-map --program impcode.cmd --load 0 --out out/emulate-map-unloaded\n\n\
The network is scenarios/ko-v2-map.toml's topology (42 sites, 47 lines, each with its speed and \
great-circle propagation; TIPs as 316s, the rest 516s), numbered by the rule of \
crates/nmc-oracle/src/map.rs (UCLA is IMP 38 there, BBN IMP 4), with the scenario's background \
load (--load 0: none) offered by a host on every IMP's second host interface, drawn as the model \
draws it from the same seed (crates/nmc-oracle/src/background.rs). The host on UCLA's IMP probes the farthest site asked for until a RFNM answers, then pumps to the \
discard fake host of each destination in turn (SDC, RAND, USC-ISI, STANFORD, SRI, MOFFETT, LBL, \
UTAH, BBN for 1..9 hops: nmc-experiments' KO_MAP_DESTINATIONS), measured by the code that \
measured the SIMH chain runs, each distance set beside SIMH's chains (not judged: the map is not \
the chain). Recorded runs of it (seeds 1-3) are the scoreboard's KO-1/2/3 program rows \
(nmc reproduce ko-v2-throughput; docs/src/how-to/ko-program.md).")]
pub struct EmulateMapArgs {
    /// BBN's IMP program as SIMH's deposit file; default: the NMC_IMP_PROGRAM environment
    /// variable.
    #[arg(long, value_name = "FILE")]
    program: Option<PathBuf>,
    /// Hop counts to pump across (each to its ko-v2-throughput site).
    #[arg(long, value_parser = parse_hops, default_value = "1..9")]
    hops: Hops,
    /// Messages outstanding at most (K&O's version 2: 4).
    #[arg(long, default_value_t = 4)]
    outstanding: usize,
    /// Messages to each destination, warm-up included (as the SIMH chain runs: 120).
    #[arg(long, default_value_t = 120)]
    messages: u64,
    /// Messages at the start not measured.
    #[arg(long, default_value_t = 20)]
    warmup: u64,
    /// Text words a message (503 = 8048 bits, the most under K&O's 8063-bit limit in words).
    #[arg(long, default_value_t = 503)]
    text_words: usize,
    /// Diagnosis only: every IMP this machine (default: the scenario's, TIPs 316s).
    #[arg(long, value_enum, value_name = "MACHINE")]
    machine: Option<Machine>,
    /// Diagnosis only: every line without propagation delay (default: the scenario's
    /// great-circle delays).
    #[arg(long)]
    no_propagation: bool,
    /// The scenario's background load (67.5 messages/s from every site, as the model runs
    /// K&O's experiment) times this: 1 the scenario's, 0 none.
    #[arg(long, default_value_t = 1.0, value_name = "FACTOR")]
    load: f64,
    /// The background hosts' seed (default: the scenario's, 1); also the power-on instants'.
    #[arg(long)]
    seed: Option<u64>,
    /// When each IMP is switched on: together (at one instant, every IMP's clock ticking in
    /// step, as every recorded run before 6 Dec 2026) or apart (each at an instant of its own
    /// over one slow-tick cycle, 640 ms, drawn from --seed; as `network.program.power_on`).
    #[arg(long, default_value = "together", value_name = "WHEN", value_parser = parse_power_on)]
    power_on: nmc_imp::spec::PowerOn,
    /// Load alone before the first experiment (a duration: 10s, 500ms; a bare number is
    /// seconds).
    #[arg(long, default_value = "10s", value_name = "DURATION", value_parser = parse_duration_ns)]
    settle: u64,
    /// The recorded SIMH data to set beside (ko-chain.csv).
    #[arg(long, value_name = "DIR", default_value = "data/oracle")]
    data: PathBuf,
    /// Write beside.csv, beside.md, results.json, messages.csv, counts.csv, host.log and
    /// emulate-map.json (the program's sha256, the IMP numbering, the command) here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// `nmc oracle bench`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    NMC_IMP_PROGRAM=~/src/simh/H316/tests/impcode.cmd nmc oracle bench\n  \
    nmc oracle bench --program impcode.cmd --network map --idle-s 60 --out out/bench-emulator.json\n\n\
Each network runs 100 simulated seconds of start-up, then --idle-s more with no host traffic; \
both phases are timed. The 10-IMP chain is the recorded SIMH runs' (IMPs 11-20, 516s, 50 kbit/s, \
no propagation); the map is scenarios/ko-v2-map.toml's topology (42 sites, 47 lines, each with \
its speed and great-circle propagation; TIPs as 316s), numbered by the rule of \
crates/nmc-oracle/src/map.rs. --network loaded (or all) times the map as `nmc run ko-v2-map` \
runs it with [network.program]: start-up, a 10 s settle, then --idle-s of K&O's pump and the \
background load, one row. Without --program or NMC_IMP_PROGRAM it prints NOT RUN and \
exits 0.")]
pub struct BenchArgs {
    /// BBN's IMP program as SIMH's deposit file; default: the NMC_IMP_PROGRAM environment
    /// variable.
    #[arg(long, value_name = "FILE")]
    program: Option<PathBuf>,
    /// Which networks.
    #[arg(long, value_enum, default_value = "both")]
    network: BenchNetwork,
    /// Simulated seconds of the idle phase, after the 100 s of start-up (with `--network
    /// loaded`: of the load, after the start-up and the settle).
    #[arg(long, value_name = "S", default_value_t = 20)]
    idle_s: u64,
    /// Also write the rows as JSON (with the program's sha256 and the command) to this file.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// The networks `nmc oracle bench` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum BenchNetwork {
    /// The 10-IMP chain of the recorded runs.
    Chain,
    /// The June 1974 map (scenarios/ko-v2-map.toml).
    Map,
    /// Both.
    Both,
    /// The June 1974 map on the program as `nmc run ko-v2-map` with `[network.program]` runs
    /// it: K&O's pump and the background load for --idle-s after start-up and a 10 s settle.
    Loaded,
    /// The chain, the map, and the loaded map.
    All,
}

/// `nmc oracle emulate`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nmc oracle emulate --program ~/src/simh/H316/tests/impcode.cmd\n  \
    nmc oracle emulate --program impcode.cmd --run 516-4-pass1 --out out/emulate\n  \
    nmc oracle emulate --program impcode.cmd --run rfc632-516-4 --out out/emulate-rfc632\n\n\
A row agrees if the emulator's throughput and K&O's round trip are each within 5 % of the \
recorded mean (the oracle issue's tolerance, fixed before the first comparison); the command \
exits 1 if any row does not.")]
pub struct EmulateArgs {
    /// BBN's IMP program as SIMH's deposit file (H316/tests/impcode.cmd; never committed);
    /// default: the NMC_IMP_PROGRAM environment variable.
    #[arg(long, value_name = "FILE")]
    program: Option<PathBuf>,
    /// The recorded data (ko-chain.csv, single-packet.csv and runs/).
    #[arg(long, value_name = "DIR", default_value = "data/oracle")]
    data: PathBuf,
    /// Recorded runs to replay (default: every chain run with an accepted row in ko-chain.csv
    /// or single-packet.csv; RFC 632's, whose network is not a chain, by name:
    /// `--run rfc632-516-4`).
    #[arg(long = "run", value_name = "NAME")]
    runs: Vec<String>,
    /// Stop each run after its last experiment with an accepted row.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    stop_early: bool,
    /// Diagnosis only: SIMH's polling (frames and host inputs taken on a grid of this many µs,
    /// as SIMH's interfaces poll; the oracle runs used 250). Off by default: the hardware did
    /// not poll.
    #[arg(long, value_name = "US")]
    simh_poll_us: Option<u64>,
    /// Diagnosis only: SIMH's polling of the modems alone (frames taken on this grid).
    #[arg(long, value_name = "US", conflicts_with = "simh_poll_us")]
    simh_modem_poll_us: Option<u64>,
    /// Diagnosis only: SIMH's polling of the host interface alone (inputs start on this grid).
    #[arg(long, value_name = "US", conflicts_with = "simh_poll_us")]
    simh_host_poll_us: Option<u64>,
    /// Diagnosis only: each frame reaches the next IMP up to this many µs late, uniformly
    /// (seeded by --seed), as SIMH's wall-clock delivery made them. Off (0) by default.
    #[arg(long, value_name = "US", default_value_t = 0)]
    jitter_us: u64,
    /// Seed of the jitter's generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run at most this many of each run's experiments (its first ones, in its order).
    #[arg(long, value_name = "N")]
    max_experiments: Option<usize>,
    /// Also write compare.csv, compare.md, counts.csv (the source and destination IMPs'
    /// packet counts, SIMH's above the emulator's), emulate.json (the settings: program
    /// sha256, polling, jitter and seed) and each run's results.json, messages.csv, host.log
    /// and the source IMP's trace here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Diagnosis only (with --out): write every IMP's trace (`imp<N>.trace`), not only the
    /// source's, and `spans.csv` (each experiment's hop count, destination and time span) in
    /// each run's directory, for `nmc oracle per-hop`. The default outputs are unchanged.
    #[arg(long, requires = "out")]
    trace_all: bool,
    /// Diagnosis only (with --out): count every IMP's time per instruction address during each
    /// experiment and write it as `profile.csv` (experiment, IMP, octal address, ns) in each
    /// run's directory, for `nmc oracle per-hop --listing`. The default outputs are unchanged.
    #[arg(long, requires = "out")]
    profile: bool,
    /// Diagnosis only (with --out): log every time an IMP's program is about to execute one of
    /// these instruction addresses (octal, as the listing prints them, comma-separated; a
    /// subroutine entered by JST starts at its label + 1): `watch.csv` in each run's directory
    /// (IMP, time, address, A, X and the --peek words, octal). At most 64 addresses. The
    /// default outputs are unchanged; a busy address makes a large file.
    #[arg(long, requires = "out", value_name = "OCTAL,...", value_delimiter = ',', value_parser = parse_octal)]
    watch: Vec<u16>,
    /// With --watch: memory words to copy at each pass (octal addresses, comma-separated; at
    /// most 16), e.g. a table's in-pointer or a clock.
    #[arg(long, requires = "watch", value_name = "OCTAL,...", value_delimiter = ',', value_parser = parse_octal)]
    peek: Vec<u16>,
}

/// An octal address (`--watch`, `--peek`).
fn parse_octal(s: &str) -> std::result::Result<u16, String> {
    let x = s.trim();
    u16::from_str_radix(x, 8).map_err(|_| format!("{x:?} is not an octal address (0 to 177777)"))
}

/// `nmc oracle compare`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nmc oracle compare\n  \
    nmc oracle compare --data data/oracle --out out/oracle-compare\n  \
    nmc oracle compare --set network.params.output_queue_max=4\n  \
    nmc oracle compare --phases 8 --map --set 'network.params.gvb_mesget_516=\"1.90ms\"'\n\n\
A row agrees if the model's throughput and K&O's round trip are each within 5 % of the \
recorded mean; rows outside are marked with a cross and the command exits 1 if any is not a named \
residual (crates/nmc-oracle/src/model.rs).")]
pub struct CompareArgs {
    /// The recorded data (ko-chain.csv and single-packet.csv).
    #[arg(long, value_name = "DIR", default_value = "data/oracle")]
    data: PathBuf,
    /// The model's scenario (default: scenarios/oracle-chain.toml, as compiled in).
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// Change a scenario value after the experiment's own (as `nmc run --set`).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<nmc_scenario::Override>,
    /// Also write compare.csv, compare.json and compare.md here (and, with --phases,
    /// phases.csv, phases.json and phases.md).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Diagnosis: also run every experiment at N start phases spread over the profile's
    /// routing period (640 ms) and show the spread of the model's differences, marking the
    /// rows whose verdict changes with the phase (a half-filled circle). The comparison's
    /// verdicts and exit status stay the first phase's.
    #[arg(long, value_name = "N")]
    phases: Option<u32>,
    /// Diagnosis: also run the model on the June 1974 map (`scenarios/ko-v2-map.toml`, with
    /// the --set values) beside the program's recordings there (`DATA/emulated/`: loaded, seeds
    /// 1-6, 54 site-seeds; unloaded, 9 sites) and give each set's mean |Δ| of throughput and
    /// round trip; with --out, map.csv, map.json and map.md. The exit status is unchanged.
    #[arg(long)]
    map: bool,
}

/// `nmc oracle rule`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nmc oracle rule --set 'network.params.gvb_mesget_316=\"3.32ms\"' --set 'network.params.gvb_mesget_516=\"1.90ms\"'\n  \
    nmc oracle rule --set 'network.params.reqall_queue=\"regular-1973\"' --out out/rule6\n\n\
The candidate holds only if, against the profile: the phase-rows agreeing on both measures do not \
fall; no class's (516 and 316 8-packet, single packets) mean |mean Δ| of the round trip rises; and \
on the June 1974 map, loaded (54 site-seeds) and unloaded (9 sites), neither mean |Δ| of throughput \
nor of the round trip rises (to 0.01 %, as printed). About a minute.")]
pub struct RuleArgs {
    /// The recorded data (ko-chain.csv, single-packet.csv and emulated/).
    #[arg(long, value_name = "DIR", default_value = "data/oracle")]
    data: PathBuf,
    /// The model's chain scenario (default: scenarios/oracle-chain.toml, as compiled in).
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// The candidate: scenario values changed on top of the profile (as `nmc run --set`); at
    /// least one.
    #[arg(long = "set", value_name = "KEY=VALUE", required = true)]
    sets: Vec<nmc_scenario::Override>,
    /// Start phases of the scan.
    #[arg(long, value_name = "N", default_value_t = 8)]
    phases: u32,
    /// Also write rule.json (both readings and the verdict) and rule.md here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// `nmc oracle align`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nmc oracle align --timeline data/oracle/timeline-1packet-516-9hop.csv --run 516-4-pass1 --experiment 516-single-9hop\n  \
    nmc oracle align --timeline data/oracle/timeline-8packet-516-1hop-4out.csv --run 516-4-pass1 --experiment 516-4out-1hop --message m82\n\n\
The model runs the recorded experiment as nmc oracle compare does (scenarios/oracle-chain.toml, \
the experiment's machine, message and window), traced; its message is the pump's first measured \
one like the program's (one that sent a REQALL if the program's did, one that did not if it did \
not) unless --index says another. Each packet's step is measured from that packet's own event \
before it. Exit 1 when a step is outside one packet time of the program's.")]
pub struct AlignArgs {
    /// The recorded timeline (a CSV of nmc oracle timeline).
    #[arg(long, value_name = "FILE")]
    timeline: PathBuf,
    /// The program's message: its number in the timeline, e.g. m82 (default: the first whose
    /// first packet the source IMP sends).
    #[arg(long, value_name = "mX")]
    message: Option<String>,
    /// The recorded run the timeline comes from (its experiment's settings are read from it).
    #[arg(long)]
    run: String,
    /// The recorded experiment (as in ko-chain.csv or single-packet.csv).
    #[arg(long)]
    experiment: String,
    /// The model's message: its index among the pump's (default: the first measured one that,
    /// like the program's, did or did not send a REQALL).
    #[arg(long)]
    index: Option<u64>,
    /// The recorded data (ko-chain.csv and single-packet.csv).
    #[arg(long, value_name = "DIR", default_value = "data/oracle")]
    data: PathBuf,
    /// Change a scenario value after the experiment's own (as `nmc run --set`).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<nmc_scenario::Override>,
    /// Also write align.csv and align.md here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

fn align_cmd(a: AlignArgs) -> Result<bool> {
    let recorded = crate::model::recorded(&a.data)?;
    let Some(rec) = recorded
        .iter()
        .find(|r| r.run == a.run && r.experiment == a.experiment)
    else {
        bail!(
            "{}: no accepted experiment {} in run {}",
            a.data.display(),
            a.experiment,
            a.run
        );
    };
    let al = match a.index {
        Some(index) => crate::align::align(
            &a.timeline,
            a.message.as_deref(),
            crate::model::SCENARIO,
            &a.sets,
            rec,
            index,
        )?,
        None => crate::align::align_like(
            &a.timeline,
            a.message.as_deref(),
            crate::model::SCENARIO,
            &a.sets,
            rec,
            crate::model::first_measured(rec),
        )?,
    };
    let table = crate::align::table(&al);
    print!("{table}");
    if let Some(out) = &a.out {
        fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
        if al.packets > 1 {
            write_csv(&out.join("align.csv"), &al.packet_rows())?;
        } else {
            write_csv(&out.join("align.csv"), &al.steps)?;
        }
        fs::write(out.join("align.md"), &table)?;
    }
    Ok(al.all_within())
}

/// `nmc oracle rfc632`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nmc oracle rfc632 --simh ~/src/simh --out out/oracle/rfc632\n  \
    nmc oracle rfc632 --simh ~/src/simh --outstanding 8 --messages 1000 --out out/oracle/rfc632-8\n\n\
IMPs 11 (source) and 14 (destination) joined by 11-12-13-14 (50 kbit/s) and 11-15-16-14 \
(11-15 and 15-16 at --fast-bps, 16-14 at 50 kbit/s).")]
pub struct Rfc632Args {
    #[command(flatten)]
    source: Source,
    /// The IMPs' machine.
    #[arg(long, value_enum, default_value = "516")]
    imp: Machine,
    /// Messages outstanding at most (RFC 632 saw about 3.5 in transit).
    #[arg(long, default_value_t = 4)]
    outstanding: usize,
    /// Messages, warm-up included.
    #[arg(long, default_value_t = 600)]
    messages: u64,
    /// Messages at the start not measured.
    #[arg(long, default_value_t = 20)]
    warmup: u64,
    /// Text words a message (63 = 1008 bits, one full packet; RFC 632: about 1000 bits).
    #[arg(long, default_value_t = 63)]
    text_words: usize,
    /// Speed of the fast path's two circuits, bit/s.
    #[arg(long, default_value_t = 230_400)]
    fast_bps: u32,
    #[command(flatten)]
    timing: TimingArgs,
    /// Output folder.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

fn rfc632(a: Rfc632Args) -> Result<bool> {
    crate::analyze::check_pump(a.outstanding, Some(a.messages), a.warmup)?;
    let net = Network::rfc632(11, a.fast_bps);
    let machine = match a.imp {
        Machine::H516 => "516",
        Machine::H316 => "316",
    };
    let experiments = vec![Experiment {
        name: format!("rfc632-{machine}-{}out", a.outstanding),
        dest: 3,
        hops: 3,
        outstanding: a.outstanding,
        messages: a.messages,
        warmup: a.warmup,
        text_words: a.text_words,
    }];
    run_network(
        &a.source,
        net,
        settings(a.imp, &a.timing),
        experiments,
        3,
        &a.out,
        &a.timing,
    )
}

/// `nmc oracle collect`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nmc oracle collect --runs out/oracle --out data/oracle")]
pub struct CollectArgs {
    /// Folders holding runs (each a folder with run.json; `refused/` below is read too).
    #[arg(long, value_name = "DIR", required = true)]
    runs: Vec<PathBuf>,
    /// Folder to write the tables and the runs' small files to.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

#[derive(serde::Serialize)]
struct CollectRow {
    run: String,
    accepted: bool,
    experiment: String,
    machine: String,
    outstanding: u64,
    hops: u64,
    text_words: u64,
    measured: u64,
    throughput_kbps: Option<f64>,
    throughput_ci95: Option<f64>,
    ko_rtt_ms: Option<f64>,
    ko_rtt_ci95: Option<f64>,
    ko_rtt_median_ms: Option<f64>,
    host_rtt_ms: Option<f64>,
    host_rtt_ci95: Option<f64>,
    max_lag_ms: f64,
    frame_delivery_p99_ms: Option<f64>,
    frame_delivery_max_ms: Option<f64>,
    refused_because: String,
    simh_commit: String,
    impcode_cmd_sha256: String,
}

fn collect_cmd(a: CollectArgs) -> Result<bool> {
    let mut dirs = Vec::new();
    for r in &a.runs {
        for sub in [r.clone(), r.join("refused")] {
            let Ok(rd) = fs::read_dir(&sub) else { continue };
            for e in rd.flatten() {
                if e.path().join("run.json").is_file() {
                    dirs.push(e.path());
                }
            }
        }
    }
    dirs.sort();
    if dirs.is_empty() {
        bail!("no run.json under the folders given");
    }
    let mut rows = Vec::new();
    for d in &dirs {
        let v: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(d.join("run.json"))?)
                .with_context(|| format!("{}/run.json is not JSON", d.display()))?;
        let refused = d
            .parent()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n == "refused");
        let name = format!(
            "{}{}",
            if refused { "refused/" } else { "" },
            d.file_name().and_then(|n| n.to_str()).unwrap_or("run")
        );
        let dest = a.out.join("runs").join(&name);
        fs::create_dir_all(&dest)?;
        for f in [
            "run.json",
            "results.csv",
            "messages.csv",
            "host.log",
            "stdout.txt",
        ] {
            if d.join(f).is_file() {
                fs::copy(d.join(f), dest.join(f))?;
            }
        }
        let max_lag = v["instances"]
            .as_object()
            .map(|m| {
                m.values()
                    .filter_map(|s| s["measured_max_lag_ns"].as_f64())
                    .fold(0.0, f64::max)
                    / 1e6
            })
            .unwrap_or(f64::NAN);
        let machine = v["settings"]["machine"]
            .as_str()
            .unwrap_or("")
            .trim_start_matches('H')
            .to_string();
        let est = |x: &serde_json::Value, k: &str| x[k]["mean"].as_f64();
        let ci = |x: &serde_json::Value, k: &str| x[k]["half_width"].as_f64();
        for r in v["results"].as_array().into_iter().flatten() {
            rows.push(CollectRow {
                run: name.clone(),
                accepted: r["accepted"]
                    .as_bool()
                    .unwrap_or_else(|| v["accepted"].as_bool().unwrap_or(false)),
                experiment: r["experiment"].as_str().unwrap_or("").into(),
                machine: machine.clone(),
                outstanding: r["outstanding"].as_u64().unwrap_or(0),
                hops: r["hops"].as_u64().unwrap_or(0),
                text_words: r["text_words"].as_u64().unwrap_or(0),
                measured: r["measured"].as_u64().unwrap_or(0),
                throughput_kbps: est(r, "throughput_kbps"),
                throughput_ci95: ci(r, "throughput_kbps"),
                ko_rtt_ms: est(r, "ko_rtt_ms"),
                ko_rtt_ci95: ci(r, "ko_rtt_ms"),
                ko_rtt_median_ms: r["ko_rtt_median_ms"].as_f64(),
                host_rtt_ms: est(r, "host_rtt_ms"),
                host_rtt_ci95: ci(r, "host_rtt_ms"),
                max_lag_ms: r["max_lag_ms"].as_f64().unwrap_or(max_lag),
                frame_delivery_p99_ms: v["frame_delivery"]["p99_ms"].as_f64(),
                frame_delivery_max_ms: v["frame_delivery"]["max_ms"].as_f64(),
                refused_because: r["refused_because"]
                    .as_array()
                    .or_else(|| v["refused_because"].as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str())
                            .collect::<Vec<_>>()
                            .join("; ")
                    })
                    .unwrap_or_default(),
                simh_commit: v["simh_commit"].as_str().unwrap_or("").into(),
                impcode_cmd_sha256: v["impcode_cmd_sha256"].as_str().unwrap_or("").into(),
            });
        }
    }
    rows.sort_by(|x, y| {
        (
            x.text_words < 100,
            &x.machine,
            x.outstanding,
            x.hops,
            !x.accepted,
            &x.run,
        )
            .cmp(&(
                y.text_words < 100,
                &y.machine,
                y.outstanding,
                y.hops,
                !y.accepted,
                &y.run,
            ))
    });
    write_csv(&a.out.join("runs.csv"), &rows)?;
    let multi: Vec<&CollectRow> = rows
        .iter()
        .filter(|r| r.accepted && r.text_words >= 100 && !r.experiment.starts_with("rfc632"))
        .collect();
    let single: Vec<&CollectRow> = rows
        .iter()
        .filter(|r| r.accepted && r.text_words < 100 && !r.experiment.starts_with("rfc632"))
        .collect();
    write_csv(&a.out.join("ko-chain.csv"), &multi)?;
    write_csv(&a.out.join("single-packet.csv"), &single)?;
    println!(
        "{} rows from {} runs written to {}",
        rows.len(),
        dirs.len(),
        a.out.join("runs.csv").display()
    );
    Ok(true)
}

/// `nmc oracle timeline`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nmc oracle timeline --run out/oracle/516-4 --experiment 516-single-9hop --index 10 --out single-9hop.csv")]
pub struct TimelineArgs {
    /// A chain run's output folder.
    #[arg(long, value_name = "DIR")]
    run: PathBuf,
    /// The experiment's name (as in results.csv).
    #[arg(long)]
    experiment: String,
    /// The message's index in it.
    #[arg(long)]
    index: u64,
    /// CSV to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

fn timeline_cmd(a: TimelineArgs) -> Result<bool> {
    let run: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(a.run.join("run.json"))
            .with_context(|| format!("cannot read {}/run.json", a.run.display()))?,
    )
    .context("run.json is not JSON")?;
    let imps: Vec<u8> = run["network"]["imps"]
        .as_array()
        .map(|v| {
            v.iter()
                .filter_map(|x| x.as_u64())
                .map(|x| x as u8)
                .collect()
        })
        .unwrap_or_default();
    let exp = run["experiments"]
        .as_array()
        .and_then(|v| v.iter().find(|e| e["name"] == a.experiment.as_str()))
        .with_context(|| format!("no experiment `{}` in run.json", a.experiment))?;
    let dest = exp["dest"].as_u64().unwrap_or(0) as usize;
    if imps.is_empty() || dest >= imps.len() {
        bail!("run.json does not describe the network");
    }
    let mut rdr = csv::Reader::from_path(a.run.join("messages.csv"))
        .with_context(|| format!("cannot read {}/messages.csv", a.run.display()))?;
    let mut window = None;
    for r in rdr.deserialize::<std::collections::HashMap<String, String>>() {
        let r = r?;
        if r.get("experiment") == Some(&a.experiment)
            && r.get("index").map(String::as_str) == Some(&a.index.to_string())
        {
            let sent: u64 = r["host_sent_ns"].parse()?;
            let end: u64 = r["imp_rfnm_ns"]
                .parse()
                .or_else(|_| r["host_reply_ns"].parse())?;
            window = Some((sent.saturating_sub(1_000_000), end + 2_000_000));
        }
    }
    let Some((from, to)) = window else {
        bail!("no message {} in experiment `{}`", a.index, a.experiment);
    };
    let (rows, routing) = crate::timeline::timeline(&a.run, &imps, imps[0], imps[dest], from, to)?;
    write_csv(&a.out, &rows)?;
    println!(
        "{} rows ({} routing messages in the window not listed) written to {}",
        rows.len(),
        routing,
        a.out.display()
    );
    Ok(true)
}

/// Where SIMH comes from and where it is built.
#[derive(Args, Debug, Clone)]
pub struct Source {
    /// Your SIMH checkout (github.com/simh/simh or open-simh/simh); it is only read.
    #[arg(long, value_name = "PATH", required_unless_present = "clone")]
    pub simh: Option<PathBuf>,
    /// Clone SIMH (shallow) from this URL into the build folder instead.
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "https://github.com/simh/simh")]
    pub clone: Option<String>,
    /// Build folder.
    #[arg(long, value_name = "DIR", default_value = "target/nmc-oracle")]
    pub build_dir: PathBuf,
    /// C compiler.
    #[arg(long, default_value = "cc")]
    pub cc: String,
}

impl Source {
    fn checkout(&self) -> Result<PathBuf> {
        match (&self.simh, &self.clone) {
            (Some(p), _) => Ok(p.clone()),
            (None, Some(url)) => clone(url, &self.build_dir.join("simh-clone")),
            (None, None) => bail!("give --simh PATH (your SIMH checkout) or --clone"),
        }
    }

    fn build(&self) -> Result<(PathBuf, BuildInfo)> {
        let simh = self.checkout()?;
        check_checkout(&simh)?;
        let simh = simh
            .canonicalize()
            .with_context(|| format!("cannot resolve {}", simh.display()))?;
        fs::create_dir_all(&self.build_dir)
            .with_context(|| format!("cannot create {}", self.build_dir.display()))?;
        let info = build(&simh, &self.build_dir, &self.cc)?;
        Ok((simh, info))
    }
}

/// `nmc oracle build`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nmc oracle build --simh ~/src/simh\n  \
    nmc oracle build --clone                 # shallow clone of github.com/simh/simh\n\n\
The checkout is only read: the files h316 needs are copied to --build-dir, nmc's patches \
applied (crates/nmc-oracle/patches/README.md says what each fixes) and compiled with --cc.")]
pub struct BuildArgs {
    #[command(flatten)]
    source: Source,
}

/// Hop counts from the command line.
#[derive(Clone, Debug)]
pub struct Hops(pub Vec<usize>);

/// A range or list of hop counts: `1..9`, `1,5,9`, `3`.
fn parse_hops(s: &str) -> Result<Hops, String> {
    parse_hop_list(s).map(Hops)
}

fn parse_hop_list(s: &str) -> Result<Vec<usize>, String> {
    let bad = || format!("`{s}`: hops are a range `1..9`, a list `1,5,9` or a number");
    let v: Vec<usize> = if let Some((a, b)) = s.split_once("..") {
        let a: usize = a.trim().parse().map_err(|_| bad())?;
        let b: usize = b
            .trim()
            .trim_start_matches('=')
            .parse()
            .map_err(|_| bad())?;
        if a > b {
            return Err(bad());
        }
        (a..=b).collect()
    } else {
        s.split(',')
            .map(|x| x.trim().parse().map_err(|_| bad()))
            .collect::<Result<_, _>>()?
    };
    if v.is_empty() || v.contains(&0) || v.iter().any(|&h| h > 20) {
        return Err(format!("`{s}`: hop counts run from 1 to 20"));
    }
    Ok(v)
}

/// Line and timing settings shared by `chain` and `rfc632`.
#[derive(Args, Debug, Clone)]
pub struct TimingArgs {
    /// Modem line speed, bit/s.
    #[arg(long, default_value_t = 50_000)]
    line_bps: u32,
    /// Propagation delay of every line, us.
    #[arg(long, default_value_t = 0)]
    prop_us: u64,
    /// The IMP's clock, us a count (3050 listing p. 112: 1250 counts = 125 ms; SIMH's
    /// impconfig.cmd has 20, five times fast).
    #[arg(long, default_value_t = 100)]
    rtc_us: u32,
    /// Modem framing bits per frame (RFC 568: 72).
    #[arg(long, default_value_t = 72)]
    framing_bits: u32,
    /// Interface polling interval, us of simulated time (a frame waits up to this long in
    /// its socket: 250 us is about 1 % of a full packet's 23.5 ms).
    #[arg(long, default_value_t = 250)]
    poll_us: u64,
    /// Pacing interval, us: an instance runs at most this far ahead of wall time before it
    /// sleeps (fewer, longer sleeps lose less to a busy machine's wake-up delays).
    #[arg(long, default_value_t = 1000)]
    pace_us: u64,
    /// Refuse the run if any instance lagged wall time by more than this, ms.
    #[arg(long, default_value_t = 25.0)]
    max_lag_ms: f64,
    /// Refuse the run if any instance spent more than this share of its time over 2 ms behind.
    #[arg(long, default_value_t = 0.01)]
    max_behind: f64,
    /// First UDP port used.
    #[arg(long, default_value_t = 47_000)]
    base_port: u16,
    /// Stop a pump that gets no reply for this many seconds.
    #[arg(long, default_value_t = 60)]
    stall_s: u64,
    /// Give up if the IMPs are not up after this many seconds (with the clock at 100 us the
    /// program takes about 40 s to bring its lines up and about 100 s to answer from 9 hops).
    #[arg(long, default_value_t = 900)]
    up_timeout_s: u64,
}

/// `nmc oracle chain`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nmc oracle chain --simh ~/src/simh --hops 1..9 --imp 516 --outstanding 4 --messages 120 --single 30 --out out/oracle/516-4\n  \
    nmc oracle chain --simh ~/src/simh --hops 9 --imp 316 --outstanding 8 --out out/oracle/316-8-9\n\n\
Each experiment is refused (results.csv accepted = false; exit status 1) if, while it ran, any \
IMP's cycle clock fell more than --max-lag-ms behind wall time or spent more than --max-behind \
of its time over 2 ms behind: run it again.")]
pub struct ChainArgs {
    #[command(flatten)]
    source: Source,
    /// Hop counts to pump across (the chain has max+1 IMPs unless --imps says more).
    #[arg(long, value_parser = parse_hops, default_value = "1..9")]
    hops: Hops,
    /// IMPs in the chain (default: largest hop count + 1).
    #[arg(long)]
    imps: Option<usize>,
    /// The IMPs' machine: 516 (0.96 us memory cycle) or 316 (1.6 us).
    #[arg(long, value_enum, default_value = "516")]
    imp: Machine,
    /// Messages outstanding at most (K&O: as many as the network takes; the IMPs allow 4 per pair).
    #[arg(long, default_value_t = 4)]
    outstanding: usize,
    /// 8-packet messages per hop count (0: none), warm-up included.
    #[arg(long, default_value_t = 200)]
    messages: u64,
    /// Messages at the start of each hop count not measured.
    #[arg(long, default_value_t = 20)]
    warmup: u64,
    /// Text words of the multi-packet messages (503 words = 8048 bits, the most under K&O's
    /// 8063-bit limit in whole words: 8 packets).
    #[arg(long, default_value_t = 503)]
    text_words: usize,
    /// Single-packet messages per hop count, one outstanding (0: none).
    #[arg(long, default_value_t = 0)]
    single: u64,
    /// Text words of the single-packet messages (63 words = 1008 bits, one full packet).
    #[arg(long, default_value_t = 63)]
    single_words: usize,
    #[command(flatten)]
    timing: TimingArgs,
    /// Output folder.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// A duration in ns: a bare number is seconds (`10`, `2.5`), otherwise a scenario's duration
/// (`10s`, `500ms`, `1min`).
fn parse_duration_ns(text: &str) -> Result<u64, String> {
    if let Ok(x) = text.trim().parse::<f64>() {
        return if x.is_finite() && x >= 0.0 {
            Ok((x * 1e9).round() as u64)
        } else {
            Err(format!("{text}: a duration is 0 or more seconds"))
        };
    }
    text.parse::<nmc_sim::SimDuration>()
        .map(|d| d.as_nanos())
        .map_err(|e| e.to_string())
}

/// `together` or `apart`, spelt as the scenario key `network.program.power_on` is.
fn parse_power_on(text: &str) -> Result<nmc_imp::spec::PowerOn, String> {
    use serde::Deserialize;
    use serde::de::IntoDeserializer;
    let d: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
        text.into_deserializer();
    nmc_imp::spec::PowerOn::deserialize(d).map_err(|e| e.to_string())
}

/// Runs a subcommand; `false` when a chain run was refused (an instance fell behind).
pub fn run(cmd: OracleCommand) -> Result<bool> {
    match cmd {
        OracleCommand::Build(a) => {
            let (_, info) = a.source.build()?;
            println!(
                "built {} from SIMH {} with {} patches",
                info.h316.display(),
                info.simh_commit,
                crate::build::PATCHES.len()
            );
            Ok(true)
        }
        OracleCommand::Chain(a) => chain(a),
        OracleCommand::Timeline(a) => timeline_cmd(a),
        OracleCommand::Align(a) => align_cmd(a),
        OracleCommand::Collect(a) => collect_cmd(a),
        OracleCommand::Rfc632(a) => rfc632(a),
        OracleCommand::Compare(a) => compare_cmd(a),
        OracleCommand::Rule(a) => rule_cmd(a),
        OracleCommand::Emulate(a) => emulate_cmd(a),
        OracleCommand::Bench(a) => bench_cmd(a),
        OracleCommand::PerHop(a) => per_hop_cmd(a),
        OracleCommand::Tally(a) => tally_cmd(a),
        OracleCommand::EmulateMap(a) => crate::map::emulate_map_cmd(crate::map::MapArgs {
            program: a.program,
            hops: a.hops.0,
            outstanding: a.outstanding,
            messages: a.messages,
            warmup: a.warmup,
            text_words: a.text_words,
            machine: a.machine,
            no_propagation: a.no_propagation,
            load: a.load,
            seed: a.seed,
            power_on: a.power_on,
            settle_ns: a.settle,
            data: a.data,
            out: a.out,
        }),
    }
}

fn tally_cmd(a: TallyArgs) -> Result<bool> {
    use crate::tally::{Row, csv_rows, experiment_named, experiments, model, program, table};
    let scenario = match &a.scenario {
        Some(p) => fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?,
        None => crate::model::SCENARIO.to_string(),
    };
    let recorded = crate::model::recorded(&a.data)?;
    let names = if a.experiment.is_empty() {
        experiments(&a.run)?
    } else {
        a.experiment.clone()
    };
    if names.is_empty() {
        bail!(
            "{}: no measured experiment",
            a.run.join("messages.csv").display()
        );
    }
    let mut rows = Vec::new();
    for name in &names {
        let program = program(&a.run, name)?;
        // The recording's values, or for one no recording kept, the name's.
        let rec = match recorded.iter().find(|r| &r.experiment == name) {
            Some(r) => r.clone(),
            None => experiment_named(name, program.messages).with_context(|| {
                format!(
                    "{name}: not among the recorded experiments in {} nor named as the chain's are",
                    a.data.display()
                )
            })?,
        };
        rows.push(Row {
            experiment: name.clone(),
            program,
            model: model(&scenario, &a.sets, &rec)?,
        });
    }
    let md = table(&rows);
    print!("{md}");
    if let Some(out) = &a.out {
        fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
        write_csv(&out.join("tally.csv"), &csv_rows(&rows))?;
        fs::write(
            out.join("tally.json"),
            serde_json::to_string_pretty(&rows)? + "\n",
        )?;
        fs::write(out.join("tally.md"), &md)?;
    }
    Ok(true)
}

fn per_hop_cmd(a: PerHopArgs) -> Result<bool> {
    use crate::perhop::{Span, from_traces, measure};
    use std::fmt::Write as _;
    if let Some(p) = &a.model_trace {
        return per_hop_model(&a, p);
    }
    let (Some(run), Some(experiment)) = (&a.run, &a.experiment) else {
        bail!("give --run and --experiment, or --model-trace");
    };
    let path = run.join("spans.csv");
    let mut r = csv::Reader::from_path(&path).with_context(|| {
        format!(
            "reading {} (replay with `nmc oracle emulate --trace-all`)",
            path.display()
        )
    })?;
    let spans: Vec<Span> = r.deserialize().collect::<Result<_, _>>()?;
    let Some(span) = spans.iter().find(|s| &s.experiment == experiment) else {
        bail!("{}: no experiment {experiment}", path.display());
    };
    let mut imps: Vec<u8> = fs::read_dir(run)?
        .filter_map(|e| {
            let n = e.ok()?.file_name().into_string().ok()?;
            n.strip_prefix("imp")?.strip_suffix(".trace")?.parse().ok()
        })
        .collect();
    imps.sort_unstable();
    let frames = from_traces(run, &imps, span)?;
    let m = measure(&frames, span.source_imp, span.dest_imp);
    let mut md = format!(
        "# {}: IMP {} to IMP {} ({} hops), {:.1} s from {:.3} s\n\n",
        span.experiment,
        span.source_imp,
        span.dest_imp,
        span.hops,
        (span.end_ns - span.start_ns) as f64 / 1e9,
        span.start_ns as f64 / 1e9
    );
    md += &crate::perhop::table(&m, "interval");
    let _ = writeln!(
        md,
        "\nArrivals at intermediate IMPs not sent on (duplicates): {}\n",
        m.unmatched
    );
    md += &crate::perhop::table_per_imp(&m);
    let profile_rows = match &a.listing {
        Some(listing) => profile_tables(&mut md, run, span, &m, listing, a.top)?,
        None => Vec::new(),
    };
    print!("{md}");
    if let Some(out) = &a.out {
        fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
        write_csv(&out.join("hops.csv"), &m.hops)?;
        fs::write(out.join("per-hop.md"), &md)?;
        if !profile_rows.is_empty() {
            let mut w = csv::Writer::from_path(out.join("profile-by-label.csv"))?;
            w.write_record([
                "label",
                "page",
                "address",
                "ns",
                "ns_per_packet",
                "cycles_per_packet",
            ])?;
            for r in &profile_rows {
                w.write_record(
                    [
                        "label",
                        "page",
                        "address",
                        "ns",
                        "ns_per_packet",
                        "cycles_per_packet",
                    ]
                    .map(|k| r[k].to_string().trim_matches('"').to_string()),
                )?;
            }
            w.flush()?;
        }
    }
    Ok(true)
}

/// `nmc oracle per-hop --model-trace`: the same tables from the model's trace (`trace.jsonl`).
fn per_hop_model(a: &PerHopArgs, p: &Path) -> Result<bool> {
    use crate::perhop::measure;
    use std::fmt::Write as _;
    let text = fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?;
    let dest = match a.model_dest {
        Some(d) => d,
        None => crate::perhop::model_destination(&text)?,
    };
    let frames = crate::perhop::from_model_jsonl(&text, 50_000, 1160, 20, dest)?;
    let m = measure(&frames, 0, dest);
    let mut md = format!("# the model: IMP 0 to IMP {dest} ({})\n\n", p.display());
    md += &crate::perhop::table(&m, "interval");
    let _ = writeln!(md);
    md += &crate::perhop::table_per_imp(&m);
    print!("{md}");
    if let Some(out) = &a.out {
        fs::create_dir_all(out)?;
        write_csv(&out.join("hops.csv"), &m.hops)?;
        fs::write(out.join("per-hop.md"), &md)?;
    }
    Ok(true)
}

/// The CPU profile's tables (`--listing`): time by program level and by label at the
/// experiment's intermediate IMPs, per forwarded data packet, appended to `md`; the label rows
/// (all of them; the table shows the `top`).
fn profile_tables(
    md: &mut String,
    run: &Path,
    span: &crate::perhop::Span,
    m: &crate::perhop::Measured,
    listing: &Path,
    top: usize,
) -> Result<Vec<serde_json::Value>> {
    use crate::perhop::{by_label, listing_labels, read_profile};
    use std::fmt::Write as _;
    let mut profile_rows = Vec::new();
    let text = fs::read_to_string(listing)
        .with_context(|| format!("cannot read {}", listing.display()))?;
    let labels = listing_labels(&text);
    let prof = read_profile(&run.join("profile.csv"), &span.experiment)?;
    let cycle_ns = if span.experiment.starts_with("316") {
        1600.0
    } else {
        960.0
    };
    // Intermediate IMPs only: the ones that forwarded the flow's data packets.
    let mids: std::collections::BTreeSet<u8> = m
        .hops
        .iter()
        .filter(|h| h.what == "data")
        .map(|h| h.imp)
        .collect();
    let packets = m.hops.iter().filter(|h| h.what == "data").count().max(1) as f64;
    let mut sum: std::collections::BTreeMap<u16, u64> = Default::default();
    for imp in &mids {
        for (&addr, &ns) in prof.get(imp).into_iter().flatten() {
            *sum.entry(addr).or_default() += ns;
        }
    }
    let total: u64 = sum.values().sum();
    let _ = writeln!(
        md,
        "\nTime by program level (the listing's level column, p. 11), the {} intermediate IMPs together, per forwarded data packet:\n\n| level | share % | µs per packet | cycles per packet |\n| --- | ---: | ---: | ---: |",
        mids.len()
    );
    for (c, ns) in crate::perhop::by_level(&sum, &crate::perhop::listing_levels(&text)) {
        let per = ns as f64 / packets;
        let _ = writeln!(
            md,
            "| {} | {:.2} | {:.1} | {:.0} |",
            crate::perhop::level_name(c),
            100.0 * ns as f64 / total.max(1) as f64,
            per / 1e3,
            per / cycle_ns
        );
    }
    let _ = writeln!(
        md,
        "\nTime by label, the {} intermediate IMPs together ({:.1} s of IMP time, {packets} data packets forwarded; cycles at {cycle_ns} ns):\n\n| label | page | address | share % | µs per forwarded data packet | cycles per packet |\n| --- | ---: | ---: | ---: | ---: | ---: |",
        mids.len(),
        total as f64 / 1e9
    );
    for (label, page, addr, ns) in by_label(&sum, &labels) {
        let per = ns as f64 / packets;
        if profile_rows.len() < top {
            let _ = writeln!(
                md,
                "| {label} | {page} | {addr:05o} | {:.2} | {:.1} | {:.0} |",
                100.0 * ns as f64 / total.max(1) as f64,
                per / 1e3,
                per / cycle_ns
            );
        }
        profile_rows.push(serde_json::json!({
            "label": label, "page": page, "address": format!("{addr:05o}"), "ns": ns,
            "ns_per_packet": per, "cycles_per_packet": per / cycle_ns,
        }));
    }
    Ok(profile_rows)
}

fn bench_cmd(a: BenchArgs) -> Result<bool> {
    let Some(program) = crate::emulate::program_path(a.program.as_deref()) else {
        eprintln!(
            "NOT RUN: nmc oracle bench needs BBN's IMP program: give --program or set \
             NMC_IMP_PROGRAM (SIMH's H316/tests/impcode.cmd); nothing was measured"
        );
        return Ok(true);
    };
    let image = crate::emulate::read_program(&program)?;
    let idle_ns = a
        .idle_s
        .checked_mul(1_000_000_000)
        .filter(|&n| n > 0)
        .ok_or_else(|| anyhow::anyhow!("--idle-s must be 1 to 18446744073"))?;
    let s = Settings::default();
    let mut rows = Vec::new();
    if matches!(
        a.network,
        BenchNetwork::Chain | BenchNetwork::Both | BenchNetwork::All
    ) {
        let net = Network::chain(10, 11);
        rows.extend(crate::speed::measure(
            &image, "chain-10", &net, &s, idle_ns,
        )?);
    }
    if matches!(
        a.network,
        BenchNetwork::Map | BenchNetwork::Both | BenchNetwork::All
    ) {
        let m =
            crate::map::from_scenario("ko-v2-map.toml", crate::map::KO_MAP, crate::map::KO_SOURCE)?;
        rows.extend(crate::speed::measure(
            &image,
            "map-1974-06",
            &m.net,
            &s,
            idle_ns,
        )?);
    }
    if matches!(a.network, BenchNetwork::Loaded | BenchNetwork::All) {
        rows.push(crate::speed::measure_loaded(&image, idle_ns)?);
    }
    print!("{}", crate::speed::table(&rows));
    if let Some(out) = &a.out {
        let doc = serde_json::json!({
            "command": std::env::args().collect::<Vec<_>>(),
            "impcode_cmd_sha256": sha256_file(&program)?,
            "startup_s": crate::speed::STARTUP_NS / 1_000_000_000,
            "idle_s": a.idle_s,
            "rows": rows,
        });
        fs::write(out, serde_json::to_string_pretty(&doc)?)
            .with_context(|| format!("cannot write {}", out.display()))?;
    }
    Ok(true)
}

/// `rows` as `stem`.csv and `stem`.json, and their Markdown table `md` as `stem`.md, in `out`
/// (created), if given.
fn write_tables<T: serde::Serialize>(
    out: Option<&Path>,
    stem: &str,
    rows: &[T],
    md: &str,
) -> Result<()> {
    let Some(out) = out else {
        return Ok(());
    };
    fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    write_csv(&out.join(format!("{stem}.csv")), rows)?;
    fs::write(
        out.join(format!("{stem}.json")),
        serde_json::to_string_pretty(rows)?,
    )?;
    fs::write(out.join(format!("{stem}.md")), md)?;
    Ok(())
}

/// The model's chain scenario (`--scenario`, or the compiled-in one) and the recorded
/// experiments of `data`, for `compare` and `rule`.
fn chain_inputs(
    scenario: Option<&Path>,
    data: &Path,
) -> Result<(String, Vec<crate::model::Recorded>)> {
    let text = match scenario {
        Some(p) => fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        None => crate::model::SCENARIO.to_string(),
    };
    let recorded = crate::model::recorded(data)?;
    if recorded.is_empty() {
        bail!(
            "{} has no accepted experiment to compare with",
            data.display()
        );
    }
    Ok((text, recorded))
}

fn compare_cmd(a: CompareArgs) -> Result<bool> {
    let (text, recorded) = chain_inputs(a.scenario.as_deref(), &a.data)?;
    let rows = crate::model::compare(&text, &a.sets, &recorded)?;
    let table = crate::model::table(&rows);
    print!("{table}");
    let left = crate::model::unexplained(&rows);
    let agree = rows
        .iter()
        .filter(|r| r.kbps_agrees && r.rtt_agrees)
        .count();
    let (kbps, rtt) = (
        rows.iter().filter(|r| r.kbps_agrees).count(),
        rows.iter().filter(|r| r.rtt_agrees).count(),
    );
    println!(
        "{agree} of {n} experiments agree within 5 % on both (throughput {kbps} of {n}, round trip {rtt} of {n}); \
         the others are residuals named in crates/nmc-oracle/src/model.rs",
        n = rows.len()
    );
    for l in &left {
        println!("not on the ledger: {l}");
    }
    let unnamed = left.len();
    write_tables(a.out.as_deref(), "compare", &rows, &table)?;
    if let Some(n) = a.phases {
        let scan = crate::model::phase_scan(&text, &a.sets, &recorded, n)?;
        let t = crate::model::phase_table(&scan);
        println!("\nAt {n} start phases over the routing period:\n");
        print!("{t}");
        let moved = scan.iter().filter(|r| !r.settled()).count();
        println!(
            "{moved} of {} experiments agree on both at some phases and not at others (◐)",
            scan.len()
        );
        let classes = crate::model::phase_classes(&scan);
        println!("\nBy class (what a rule tried against the program reads):\n");
        print!("{classes}");
        let md = format!("{t}\n{classes}");
        write_tables(a.out.as_deref(), "phases", &scan, &md)?;
    }
    if a.map {
        use crate::mapcheck::{MapSet, check, table};
        let rows = check(&a.data, &[MapSet::Loaded, MapSet::Unloaded], &a.sets)?;
        let t = table(&rows);
        println!("\nThe model beside the program on the June 1974 map:\n");
        print!("{t}");
        write_tables(a.out.as_deref(), "map", &rows, &t)?;
    }
    Ok(unnamed == 0)
}

fn rule_cmd(a: RuleArgs) -> Result<bool> {
    use crate::rule::{judge, read, table};
    let (text, recorded) = chain_inputs(a.scenario.as_deref(), &a.data)?;
    let profile = read(&text, &[], &recorded, &a.data, a.phases)?;
    let candidate = read(&text, &a.sets, &recorded, &a.data, a.phases)?;
    let verdict = judge(&profile, &candidate);
    let t = table(&verdict);
    print!("{t}");
    if let Some(out) = &a.out {
        fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
        let doc = serde_json::json!({
            "command": std::env::args().collect::<Vec<_>>(),
            "sets": a.sets.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            "phases": a.phases,
            "profile": profile,
            "candidate": candidate,
            "verdict": verdict,
        });
        fs::write(out.join("rule.json"), serde_json::to_string_pretty(&doc)?)?;
        fs::write(out.join("rule.md"), &t)?;
    }
    Ok(verdict.holds)
}

fn emulate_cmd(a: EmulateArgs) -> Result<bool> {
    use crate::emulate::{Options, probe_of, recorded_run, replay};
    let (program, image) = crate::emulate::load_program(a.program.as_deref())?;
    let mut recorded = crate::model::recorded(&a.data)?;
    let mut runs: Vec<String> = if a.runs.is_empty() {
        recorded.iter().map(|r| r.run.clone()).collect()
    } else {
        a.runs.clone()
    };
    // RFC 632's run (not a chain) is replayed when asked for by name.
    recorded.extend(crate::emulate::recorded_rfc632(&a.data)?);
    for run in &runs {
        if !recorded.iter().any(|r| &r.run == run) {
            bail!(
                "{}: no accepted recorded experiment of a run named {run}",
                a.data.display()
            );
        }
    }
    runs.sort();
    runs.dedup();
    if runs.is_empty() {
        bail!(
            "{} has no accepted experiment to compare with",
            a.data.display()
        );
    }
    let mut all = Vec::new();
    let mut all_counts = Vec::new();
    for run in &runs {
        let dir = a.data.join("runs").join(run);
        let (net, settings, experiments) = recorded_run(&dir.join("run.json"))?;
        let wanted: Vec<&str> = recorded
            .iter()
            .filter(|r| &r.run == run)
            .map(|r| r.experiment.as_str())
            .collect();
        let last = experiments
            .iter()
            .rposition(|e| wanted.contains(&e.name.as_str()))
            .map_or(experiments.len(), |i| i + 1);
        let limits = Options {
            experiments: a
                .max_experiments
                .unwrap_or(usize::MAX)
                .min(if a.stop_early { last } else { usize::MAX }),
            simh_poll_ns: a.simh_poll_us.or(a.simh_modem_poll_us).map(|u| u * 1000),
            simh_host_poll_ns: a.simh_poll_us.or(a.simh_host_poll_us).map(|u| u * 1000),
            jitter_ns: a.jitter_us * 1000,
            seed: a.seed,
            profile: a.profile,
            watch: crate::emulate::WatchSpec::new(&a.watch, &a.peek)?,
            ..Options::default()
        };
        let t0 = std::time::Instant::now();
        let r = replay(
            &image,
            &net,
            &settings,
            &experiments,
            probe_of(&experiments),
            limits,
        )?;
        let (results, messages) = r.results(&settings, false);
        all_counts.extend(crate::emulate::counts(
            &dir.join("run.json"),
            run,
            &results,
        )?);
        let mut rows = crate::emulate::compare(&recorded, run, &results);
        if a.max_experiments.is_some() {
            // Rows of experiments deliberately not run are left out, not counted as misses.
            rows.retain(|r| results.iter().any(|x| x.experiment == r.experiment));
        }
        eprintln!(
            "nmc oracle emulate: {run}: up at {:.1} s, {} experiments, {:.1} s simulated, {:.2e} instructions, {:.1} s wall",
            r.up_ns as f64 / 1e9,
            results.len(),
            r.host_runs.last().map_or(0, |h| h.span_ns.1) as f64 / 1e9,
            r.instructions as f64,
            t0.elapsed().as_secs_f64()
        );
        if let Some(out) = &a.out {
            write_replay(
                &a,
                &out.join("runs").join(run),
                &net,
                &r,
                &results,
                &messages,
            )?;
        }
        all.extend(rows);
    }
    let table = crate::emulate::table(&all);
    print!("{table}");
    let both = all.iter().filter(|r| r.kbps_agrees && r.rtt_agrees).count();
    println!(
        "{both} of {n} experiments agree within 5 % on both (throughput {}, round trip {})",
        all.iter().filter(|r| r.kbps_agrees).count(),
        all.iter().filter(|r| r.rtt_agrees).count(),
        n = all.len()
    );
    if let Some(out) = &a.out {
        write_csv(&out.join("compare.csv"), &all)?;
        fs::write(out.join("compare.md"), &table)?;
        write_csv(&out.join("counts.csv"), &all_counts)?;
        let settings = serde_json::json!({
            "command": std::env::args().collect::<Vec<_>>(),
            "impcode_cmd_sha256": sha256_file(&program)?,
            "runs": runs,
            "stop_early": a.stop_early,
            "max_experiments": a.max_experiments,
            "simh_poll_us": a.simh_poll_us,
            "simh_modem_poll_us": a.simh_modem_poll_us,
            "simh_host_poll_us": a.simh_host_poll_us,
            "jitter_us": a.jitter_us,
            "seed": a.seed,
            "rows": all.len(),
            "agree_both": both,
        });
        fs::write(
            out.join("emulate.json"),
            serde_json::to_string_pretty(&settings)?,
        )?;
    }
    Ok(both == all.len())
}

/// One replayed run's files in `d`: its messages, results, host log and the source IMP's
/// trace; with `--trace-all` every IMP's trace and the experiments' spans (for `per-hop`), with
/// `--profile` the CPU profile.
fn write_replay(
    a: &EmulateArgs,
    d: &Path,
    net: &crate::run::Network,
    r: &crate::emulate::Replay,
    results: &[crate::analyze::ExperimentResult],
    messages: &[MessageRow],
) -> Result<()> {
    fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    write_csv(&d.join("messages.csv"), messages)?;
    fs::write(
        d.join("results.json"),
        serde_json::to_string_pretty(&results)?,
    )?;
    fs::write(d.join("host.log"), r.log.join("\n") + "\n")?;
    fs::write(
        d.join(format!("imp{}.trace", net.imps[0])),
        crate::emulate::trace_text(&r.traces[0]),
    )?;
    if a.trace_all {
        for (k, t) in r.traces.iter().enumerate().skip(1) {
            fs::write(
                d.join(format!("imp{}.trace", net.imps[k])),
                crate::emulate::trace_text(t),
            )?;
        }
        let spans: Vec<crate::perhop::Span> = r
            .host_runs
            .iter()
            .map(|h| crate::perhop::Span {
                experiment: h.experiment.name.clone(),
                hops: h.experiment.hops,
                source_imp: net.imps[0],
                dest_imp: net.imps[h.experiment.dest],
                start_ns: h.span_ns.0,
                end_ns: h.span_ns.1,
            })
            .collect();
        write_csv(&d.join("spans.csv"), &spans)?;
    }
    if a.profile {
        crate::perhop::write_profiles(&d.join("profile.csv"), &net.imps, &r.profiles)?;
    }
    if !a.watch.is_empty() {
        let mut w = csv::Writer::from_path(d.join("watch.csv"))
            .with_context(|| format!("cannot write {}", d.join("watch.csv").display()))?;
        w.write_record(["imp", "t_ns", "p", "a", "x", "peek"])?;
        for (k, seen) in r.watched.iter().enumerate() {
            for s in seen {
                let peek: Vec<String> = s.peek.iter().map(|v| format!("{v:o}")).collect();
                w.write_record([
                    net.imps[k].to_string(),
                    s.t_ns.to_string(),
                    format!("{:o}", s.p),
                    format!("{:o}", s.a),
                    format!("{:o}", s.x),
                    peek.join(" "),
                ])?;
            }
        }
        w.flush()?;
    }
    Ok(())
}

#[derive(serde::Serialize)]
struct ResultRow<'a> {
    experiment: &'a str,
    machine: &'a str,
    hops: usize,
    outstanding: usize,
    text_words: usize,
    measured: usize,
    non_rfnm: usize,
    throughput_kbps: Option<f64>,
    throughput_ci95: Option<f64>,
    ko_rtt_ms: Option<f64>,
    ko_rtt_ci95: Option<f64>,
    ko_rtt_median_ms: Option<f64>,
    host_rtt_ms: Option<f64>,
    host_rtt_ci95: Option<f64>,
    accepted: bool,
    matching: &'a str,
}

fn chain(a: ChainArgs) -> Result<bool> {
    let max_hops = *a.hops.0.iter().max().unwrap_or(&1);
    let n = a.imps.unwrap_or(max_hops + 1);
    if n < max_hops + 1 || n > 20 {
        bail!(
            "--imps {n}: a chain for {max_hops} hops needs {} to 20 IMPs",
            max_hops + 1
        );
    }
    crate::analyze::check_pump(
        a.outstanding,
        (a.messages > 0).then_some(a.messages),
        a.warmup,
    )?;
    let net = Network::chain(n, 11);
    let machine = match a.imp {
        Machine::H516 => "516",
        Machine::H316 => "316",
    };
    let mut experiments = Vec::new();
    for &h in &a.hops.0 {
        if a.messages > 0 {
            experiments.push(Experiment {
                name: format!("{machine}-{}out-{h}hop", a.outstanding),
                dest: h,
                hops: h,
                outstanding: a.outstanding,
                messages: a.messages,
                warmup: a.warmup,
                text_words: a.text_words,
            });
        }
    }
    for &h in &a.hops.0 {
        if a.single > 0 {
            experiments.push(Experiment {
                name: format!("{machine}-single-{h}hop"),
                dest: h,
                hops: h,
                outstanding: 1,
                messages: a.single,
                warmup: 2.min(a.single.saturating_sub(1)),
                text_words: a.single_words,
            });
        }
    }
    let probe = max_hops;
    run_network(
        &a.source,
        net,
        settings(a.imp, &a.timing),
        experiments,
        probe,
        &a.out,
        &a.timing,
    )
}

fn settings(machine: Machine, t: &TimingArgs) -> Settings {
    Settings {
        machine,
        line_bps: t.line_bps,
        prop_ns: t.prop_us * 1000,
        framing_bits: t.framing_bits,
        rtc_us: t.rtc_us,
        poll_us: t.poll_us,
        pace_us: t.pace_us,
        refuse_max_lag_ms: t.max_lag_ms,
        refuse_behind_share: t.max_behind,
        base_port: t.base_port,
        ..Settings::default()
    }
}

/// Builds, starts `net`, waits until a probe to `probe` (an IMP index) is answered, runs the
/// experiments in turn, stops, judges, analyses and writes everything to `out`.
fn run_network(
    source: &Source,
    net: Network,
    settings: Settings,
    experiments: Vec<Experiment>,
    probe: usize,
    out_dir: &Path,
    t: &TimingArgs,
) -> Result<bool> {
    let command_line: Vec<String> = std::env::args().collect();
    let (simh, info) = source.build()?;
    let impcode = simh.join("H316/tests/impcode.cmd");
    let impcode_sha256 = sha256_file(&impcode)?;
    let n = net.imps.len();
    let machine = match settings.machine {
        Machine::H516 => "516",
        Machine::H316 => "316",
    };
    if experiments.is_empty() {
        bail!("nothing to run: --messages and --single are both 0");
    }
    // SIMH's RUNLIMIT is a 32-bit count of half cycles: the instances stop by themselves then.
    let limit_s = (i32::MAX as f64) * (settings.machine.cycle_ns() / 2) as f64 / 1e9;
    fs::create_dir_all(out_dir).with_context(|| format!("cannot create {}", out_dir.display()))?;
    eprintln!(
        "nmc oracle: {n} IMPs ({machine}), {} experiments, output in {}",
        experiments.len(),
        out_dir.display()
    );
    let mut running = Running::start(
        &info.h316,
        &simh,
        &net,
        &settings,
        out_dir,
        Duration::from_secs_f64(limit_s),
    )?;
    let up = running.wait_up(net.imps[probe], Duration::from_secs(t.up_timeout_s));
    let up_s = match up {
        Ok(t) => t,
        Err(e) => {
            let _ = running.stop();
            return Err(e);
        }
    };
    eprintln!("nmc oracle: IMPs up, first RFNM at {up_s:.1} s");
    let mut host_runs = Vec::new();
    for (i, e) in experiments.iter().enumerate() {
        if running.now() as f64 / 1e9 > limit_s - 30.0 {
            eprintln!(
                "nmc oracle: SIMH's run limit ({limit_s:.0} s) is near; {} stopped",
                e.name
            );
            break;
        }
        let link = 10 + i as u8;
        let r = running.pump(&net, e, link, Duration::from_secs(t.stall_s))?;
        eprintln!(
            "nmc oracle: {} done at {:.1} s ({} replies{})",
            e.name,
            running.now() as f64 / 1e9,
            r.records.len(),
            if r.stalled { ", stalled" } else { "" }
        );
        host_runs.push(r);
    }
    if let Some(last) = host_runs.last() {
        running.wait_lag_window(last.span_ns.1)?;
    }
    let host_counts = running.host_counts();
    let (out, _) = running.stop()?;
    let (summaries, refusals, traces) = instance_reports(&net, &out, up_s, &settings);
    let delivery = crate::analyze::delivery(&net, &traces, (up_s * 1e9) as u64);
    let (all_rows, results) = experiment_results(&net, &host_runs, &traces, &settings);
    // The run is accepted when every experiment is; the whole run's lag (from the first RFNM)
    // is reported beside, in `refused_because` of the run, for information.
    let accepted = !results.is_empty() && results.iter().all(|x| x.accepted);
    write_csv(&out.join("messages.csv"), &all_rows)?;
    let rows: Vec<ResultRow> = results
        .iter()
        .map(|x| ResultRow {
            experiment: &x.experiment,
            machine,
            hops: x.hops,
            outstanding: x.outstanding,
            text_words: x.text_words,
            measured: x.measured,
            non_rfnm: x.non_rfnm,
            throughput_kbps: x.throughput_kbps.map(|e| e.mean),
            throughput_ci95: x.throughput_kbps.map(|e| e.half_width),
            ko_rtt_ms: x.ko_rtt_ms.map(|e| e.mean),
            ko_rtt_ci95: x.ko_rtt_ms.map(|e| e.half_width),
            ko_rtt_median_ms: x.ko_rtt_median_ms,
            host_rtt_ms: x.host_rtt_ms.map(|e| e.mean),
            host_rtt_ci95: x.host_rtt_ms.map(|e| e.half_width),
            accepted: x.accepted,
            matching: &x.matching,
        })
        .collect();
    write_csv(&out.join("results.csv"), &rows)?;
    let run_json = serde_json::json!({
        "command": command_line,
        "accepted": accepted,
        "whole_run_lag": refusals,
        "simh": info.simh,
        "simh_commit": info.simh_commit,
        "impcode_cmd_sha256": impcode_sha256,
        "patches_sha256": info.patches_sha256,
        "cc_command": info.cc_command,
        "network": net,
        "settings": settings,
        "experiments": experiments,
        "imps_up_s": up_s,
        "host_counts": host_counts,
        "instances": summaries,
        "frame_delivery": delivery,
        "results": results,
        "confidence": "batch means: 10 consecutive batches of the measured messages, mean ± t(0.975, 9)·s/√10 (crates/nmc-oracle/src/stats.rs)",
    });
    fs::write(
        out.join("run.json"),
        serde_json::to_string_pretty(&run_json)?,
    )?;
    print_results(&results, &delivery, accepted);
    Ok(accepted)
}

/// What every instance of `net` reported in `out`: its summary with the lag measured from
/// the first RFNM (`up_s`) on, the refusals of the whole run's lag against `settings`' bounds,
/// and each instance's trace, in `net.imps`' order.
fn instance_reports(
    net: &Network,
    out: &Path,
    up_s: f64,
    settings: &Settings,
) -> (
    serde_json::Map<String, serde_json::Value>,
    Vec<String>,
    Vec<crate::trace::Trace>,
) {
    let mut summaries = serde_json::Map::new();
    let mut refusals = Vec::new();
    let mut traces = Vec::new();
    for &imp in &net.imps {
        let text = fs::read_to_string(out.join(format!("imp{imp}.trace"))).unwrap_or_default();
        let t = parse(&text);
        // Kept up? Judged over the measurements (from the first RFNM on), from the trace's
        // one-second windows; the whole run's figures are in the summary beside them.
        let from_ns = (up_s * 1e9) as u64;
        let windows: Vec<(u64, u64)> = t
            .events
            .iter()
            .filter(|e| e.what == "LAG" && e.t_ns > from_ns + 1_000_000_000)
            .map(|e| {
                (
                    e.extra_u64("max_lag_ns").unwrap_or(u64::MAX),
                    e.extra_u64("over_ns").unwrap_or(u64::MAX),
                )
            })
            .collect();
        match &t.summary {
            Some(s) if !windows.is_empty() => {
                let lag = windows.iter().map(|w| w.0).max().unwrap_or(u64::MAX) as f64 / 1e6;
                let behind =
                    windows.iter().map(|w| w.1 as f64).sum::<f64>() / (windows.len() as f64 * 1e9);
                if lag > settings.refuse_max_lag_ms {
                    refusals.push(format!(
                        "IMP {imp} lagged {lag:.1} ms (bound {} ms)",
                        settings.refuse_max_lag_ms
                    ));
                }
                if behind > settings.refuse_behind_share {
                    refusals.push(format!(
                        "IMP {imp} was over {} us behind {:.2} % of the time (bound {:.2} %)",
                        settings.lag_bound_us,
                        100.0 * behind,
                        100.0 * settings.refuse_behind_share
                    ));
                }
                let mut s = s.clone();
                s["measured_max_lag_ns"] = serde_json::json!(lag * 1e6);
                s["measured_behind_share"] = serde_json::json!(behind);
                summaries.insert(format!("imp{imp}"), s);
            }
            _ => refusals.push(format!(
                "IMP {imp} wrote no summary or lag record (did it exit cleanly?)"
            )),
        }
        traces.push(t);
    }
    (summaries, refusals, traces)
}

/// Each experiment's messages and its result, judged on its own span against `settings`'
/// bounds (an experiment whose pump stalled is refused).
fn experiment_results(
    net: &Network,
    host_runs: &[crate::run::HostRun],
    traces: &[crate::trace::Trace],
    settings: &Settings,
) -> (Vec<MessageRow>, Vec<ExperimentResult>) {
    let mut all_rows: Vec<MessageRow> = Vec::new();
    let mut results: Vec<ExperimentResult> = Vec::new();
    let named: Vec<(u8, &crate::trace::Trace)> =
        net.imps.iter().copied().zip(traces.iter()).collect();
    for r in host_runs {
        let (rows, matching) = message_rows(r, &traces[0], settings.host_bps);
        let mut x = summarize(r, &rows, matching, r.experiment.hops);
        // Each experiment is judged on its own span (the same bounds as the run).
        let (lag, behind, mut why) = crate::analyze::judge(
            &named,
            r.span_ns,
            settings.refuse_max_lag_ms,
            settings.refuse_behind_share,
            settings.lag_bound_us,
        );
        if r.stalled {
            why.push("the pump stalled".into());
        }
        x.accepted = why.is_empty();
        x.max_lag_ms = lag;
        x.behind_share = behind;
        x.refused_because = why;
        x.source = crate::analyze::source_counts(&traces[0], r.span_ns, None);
        x.dest = crate::analyze::dest_counts(&traces[r.experiment.dest], r.span_ns, net.imps[0]);
        results.push(x);
        all_rows.extend(rows);
    }
    (all_rows, results)
}

/// The run's table as the terminal shows it: each experiment's throughput and round trips
/// with their 95 % half-widths and its verdict, the frames' delivery, the run's verdict.
fn print_results(
    results: &[ExperimentResult],
    delivery: &crate::analyze::Delivery,
    accepted: bool,
) {
    println!(
        "{:<22} {:>4} {:>4} {:>18} {:>18} {:>18}",
        "experiment", "hops", "out", "kbit/s", "K&O rtt ms", "host rtt ms"
    );
    let f = |e: Option<crate::stats::Estimate>| {
        e.map(|e| format!("{:.1} ± {:.1}", e.mean, e.half_width))
            .unwrap_or_else(|| "-".into())
    };
    for x in results {
        println!(
            "{:<22} {:>4} {:>4} {:>18} {:>18} {:>18}  {}",
            x.experiment,
            x.hops,
            x.outstanding,
            f(x.throughput_kbps),
            f(x.ko_rtt_ms),
            f(x.host_rtt_ms),
            if x.accepted {
                "accepted".to_string()
            } else {
                format!("REFUSED: {}", x.refused_because.join("; "))
            }
        );
    }
    println!(
        "frames between IMPs: {} paired, arrival minus due: mean {:.2} ms, 99 % under {:.2} ms, max {:.2} ms, min {:.2} ms, {} over 1 ms",
        delivery.frames,
        delivery.mean_ms,
        delivery.p99_ms,
        delivery.max_ms,
        delivery.min_ms,
        delivery.over_1ms
    );
    if accepted {
        println!("run accepted: every instance kept up with wall time during every experiment");
    } else {
        println!(
            "run REFUSED: {} of {} experiments refused (an instance fell behind wall time during them)",
            results.iter().filter(|x| !x.accepted).count(),
            results.len()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_on_is_spelt_as_the_scenario_key() {
        use nmc_imp::spec::PowerOn;
        assert_eq!(parse_power_on("together"), Ok(PowerOn::Together));
        assert_eq!(parse_power_on("apart"), Ok(PowerOn::Apart));
        let e = parse_power_on("sometimes").unwrap_err();
        assert!(e.contains("together") && e.contains("apart"), "{e}");
    }

    #[test]
    fn hop_counts_read_as_ranges_or_lists() {
        assert_eq!(parse_hop_list("1..9").unwrap(), (1..=9).collect::<Vec<_>>());
        assert_eq!(parse_hop_list("1,5,9").unwrap(), vec![1, 5, 9]);
        assert_eq!(parse_hop_list("3").unwrap(), vec![3]);
        assert!(parse_hop_list("0..3").is_err());
        assert!(parse_hop_list("9..1").is_err());
        assert!(parse_hop_list("a").unwrap_err().contains("hops are"));
    }
}
