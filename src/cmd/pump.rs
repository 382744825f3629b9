//! `nmc pump`: Kleinrock & Opderbeck's (1977) throughput experiment on a real path, against
//! `nmc serve` (or `nmc echo serve --pump`). The work is in `nmc_probe::pump`; this file turns options into its
//! types and prints.

use crate::Outcome;
use crate::cmd::progress::Progress;
use crate::cmd::split_target;
use crate::cmd::units;
use anyhow::{Context, Result, bail};
use clap::Args;
use nmc_probe::pump::net::{Tick, pump_dialed, session_id};
use nmc_probe::pump::report::{MessagesCsv, ReceivedCsv, write_outputs};
use nmc_probe::pump::reverse_client::pump_reverse_dialed;
use nmc_probe::pump::sender::MessageRecord;
use nmc_probe::pump::{PumpConfig, PumpSummary, PumpTransport};
use nmc_probe::time::Nanos;
use nmc_probe::udp::DEFAULT_PORT;
use nmc_sim::SimDuration;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    nmc serve --listen 127.0.0.1:8890 &                    # every instrument's server, TCP and UDP\n  \
    nmc pump 127.0.0.1 --duration 5s                       # 1008-byte messages, 4 outstanding, TCP\n  \
    nmc pump 127.0.0.1 -t 10 --size 64K --outstanding 64   # iperf3's units: 10 s, 64KiB messages\n  \
    nmc pump 127.0.0.1 -n 100M --size 64K                  # 100 MiB, then stop (iperf3 -n; -k 500: 500 messages)\n  \
    nmc pump example.net:8890 --transport udp --outstanding 8 --duration 10min --out out/pump\n  \
    nmc pump example.net -R --duration 10s                 # the server sends, as iperf3 -R\n  \
    nmc pump example.net --bidir -i 1s                     # both ways at once, as iperf3 --bidir\n\n\
K&O (1977) §III–IV: a host sends messages with at most N outstanding (the 1974 \"4-message \
limit\"), each released by a RFNM, the server's acknowledgement once the whole message is in. \
Reports throughput over the run and over the best 150 consecutive messages, the round trip per \
message (first byte sent to RFNM), its histogram and autocorrelation, and the window limit \
N × size / mean round trip. Over UDP a message is ceil(size/packet) datagrams (the IMP's \
1008-bit packets by default) and is sent again whole when its RFNM is late (RFC 6298 timeout). \
A message unanswered for --timeout ends the run: before the first RFNM, with an error; after \
it, as a partial run whose measures are kept (exit 4). Writes messages.csv (not with \
--no-messages), summary.json, rtt.svg, rtt-histogram.svg and autocorrelation.svg. With -R/--reverse the server \
pumps to this host instead (this host opens the connection, so it works through NAT): the \
server times the round trips and sends its figures back at the end; messages.csv is then this \
host's record of each message's arrival, and summary.json says \"reverse\": true. Exit 0 when \
the run completed, 2 on bad input or a failed run, 3 when the server cannot be reached or \
refuses, 4 for a partial run (kept), 5 when stopped by the user (what was measured is \
written); with -J the document is \
printed whatever happens, with \"error\" on failure.")]
pub struct PumpArgs {
    /// HOST, HOST:PORT or `[IPv6]:PORT` of an `nmc serve` (or `nmc echo serve --pump`; default
    /// port 8890).
    pub target: String,
    /// tcp (the kernel's reliability) or udp (datagrams, the pump's own RFNM timeouts).
    #[arg(long, default_value = "tcp", value_parser = parse_transport)]
    pub transport: PumpTransport,
    /// Data bytes per message (K&O: 8063 bits, about 1008 bytes): a count of bytes, or a size
    /// such as 64KiB (65,536 bytes), 64kB (64,000) or iperf3's 64K (= 64KiB; K, M, G × 1024).
    #[arg(long, default_value = "1008", value_parser = parse_bytes)]
    pub size: u32,
    /// Messages outstanding at most (K&O's 1974 limit: 4).
    #[arg(long, default_value_t = 4)]
    pub outstanding: u32,
    /// How long to offer messages (K&O ran 10 min): 10s, 10min, or 10 (a bare number is
    /// seconds, as iperf3 -t 10).
    #[arg(short = 't', long, default_value = "10s", value_parser = units::duration)]
    pub duration: SimDuration,
    /// Send this many messages, then stop once they are answered, instead of for a time (as
    /// iperf3 -k counts blocks); with -P, shared out among the connections; with -R the server
    /// sends them, with --bidir each direction does (a server older than this refuses, in one
    /// line).
    #[arg(short = 'k', long, value_name = "N", conflicts_with_all = ["duration", "bytes"])]
    pub count: Option<u64>,
    /// A warm-up before the measured --duration, left out of the figures and reported apart,
    /// as iperf3 -O (TCP's slow start, a path's queues filling): 2s, or a bare number of
    /// seconds. Its interval lines are marked "(omitted)". With -R or --bidir the server
    /// leaves it out of the figures it sends back too.
    #[arg(short = 'O', long, value_name = "D", value_parser = units::duration, conflicts_with_all = ["count", "bytes"])]
    pub omit: Option<SimDuration>,
    /// Send this many bytes, in whole messages (⌈BYTES / size⌉ of them), then stop, as iperf3
    /// -n: 100M (iperf3's M = MiB), 1GB, or a count of bytes.
    #[arg(short = 'n', long, value_name = "BYTES", value_parser = units::size, conflicts_with = "duration")]
    pub bytes: Option<u64>,
    /// UDP: data bytes per datagram (the IMP's packet, 1008 bits = 126 bytes): bytes, or a size
    /// as --size takes it.
    #[arg(long, default_value = "126", value_parser = parse_bytes)]
    pub packet: u32,
    /// A message (or, over TCP, the connection) unanswered this long ends the run with an
    /// error: 10s, 500ms, or a bare number of seconds.
    #[arg(long, default_value = "10s", value_parser = units::duration)]
    pub timeout: SimDuration,
    /// Output folder (default: `out/pump/<target>`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The server's shared secret (as `nmc serve --secret-file`): answered in its TCP handshake, and a tag on every UDP datagram.
    #[arg(long, value_name = "FILE")]
    pub secret_file: Option<PathBuf>,
    #[command(flatten)]
    pub family: super::Family,
    #[command(flatten)]
    pub dial: super::DialArgs,
    /// Print a line every D while running (messages answered, throughput, round trip for that
    /// interval), as iperf3 -i does, instead of the progress bar; e.g. 1s, 500ms, or 1 (a bare
    /// number is seconds).
    #[arg(short = 'i', long, value_name = "D", value_parser = units::duration)]
    pub interval: Option<SimDuration>,
    /// Print one JSON document on stdout (schema nmc-instrument/2, as the book's
    /// docs/src/reference/outputs.md describes) instead of the text report; the files are written as usual.
    #[arg(short = 'J', long)]
    pub json: bool,
    /// How throughputs print: `auto` scales each to its size (`328 kbit/s`, `17.2 Gbit/s`), or
    /// one unit for all: `bit`, `kbit`, `Mbit`, `Gbit` (iperf3's `k`, `m`, `g` too).
    #[arg(short = 'f', long, default_value = "auto", value_parser = crate::cmd::parse_unit::<nmc_sim::RateFormat>)]
    pub format: nmc_sim::RateFormat,
    /// The server sends and this host receives, as iperf3 -R: this host connects and asks, the
    /// server pumps with these options and times the round trips, and sends its figures back at
    /// the end. messages.csv is then the receiver's record (seq,bytes,first_ns,whole_ns,packets,in_run).
    #[arg(short = 'R', long)]
    pub reverse: bool,
    /// Both ways at once, as iperf3 --bidir: this host pumps to the server on one connection
    /// while the server pumps back on another, each with these options. Each direction's files
    /// go to `forward/` and `reverse/` in the output folder; its interval lines are tagged.
    #[arg(long, conflicts_with = "reverse")]
    pub bidir: bool,
    /// Write no messages.csv (issue 58 §6: one row per message, about 110 MB a minute at
    /// loopback speed). The run keeps running figures either way, so summary.json, the plots,
    /// the report and the JSON document are the same.
    #[arg(long)]
    pub no_messages: bool,
    /// Pump over N connections at once, as iperf3 -P: each its own session with these options
    /// (all forward, or all from the server with -R). Each one's files go to `p1/`, `p2/`, … in
    /// the output folder, its lines are tagged `[1]`, `[2]`, …, and the report ends with their
    /// sum.
    #[arg(short = 'P', long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64), conflicts_with = "bidir")]
    pub parallel: u32,
}

/// One line, not clap's list of possible values and tip.
pub(crate) fn parse_transport(s: &str) -> Result<PumpTransport, String> {
    match s.trim() {
        "tcp" => Ok(PumpTransport::Tcp),
        "udp" => Ok(PumpTransport::Udp),
        _ => Err(format!("`{s}` is not a transport: expected tcp or udp")),
    }
}

pub(crate) fn parse_bytes(s: &str) -> Result<u32, String> {
    // Issue 32: the one size parser (`nmc_sim::parse_bytes`), as scenario files read sizes.
    let v = units::size(s)?;
    u32::try_from(v).map_err(|_| format!("`{s}` is not a size: at most 4GiB"))
}

pub fn run(a: PumpArgs) -> Result<Outcome> {
    // A malformed target is refused before anything else (it is resolved below).
    split_target(&a.target)?;
    // iperf3's -k / -n: a count of messages, the time then only a bound.
    let count = match (a.count, a.bytes) {
        (Some(k), _) => Some(k),
        (None, Some(b)) => Some(b.div_ceil(u64::from(a.size.max(1)))),
        (None, None) => None,
    };
    if let Some(k) = count
        && k > 0
        && k < u64::from(a.parallel)
    {
        bail!(
            "-k/-n give {k} messages, fewer than the {} connections of -P",
            a.parallel
        );
    }
    let cfg = PumpConfig {
        transport: a.transport,
        size: a.size,
        outstanding: a.outstanding,
        duration: match count {
            Some(_) => nmc_probe::pump::sender::COUNTED_RUN_BOUND,
            None => Nanos(a.duration.as_nanos()),
        },
        packet: a.packet,
        timeout: Nanos(a.timeout.as_nanos()),
        session: session_id(),
        count,
        omit: Nanos(a.omit.map_or(0, |d| d.as_nanos())),
    };
    // Check the numbers before resolving or saying anything.
    let (packets, _) = cfg.check()?;
    let interval = match a.interval {
        Some(d) if d.as_nanos() < 1_000_000 => bail!("--interval must be at least 1ms, got {d}"),
        Some(d) => Some(Nanos(d.as_nanos())),
        None => None,
    };
    let key = crate::cmd::gate::key_from(&a.secret_file)?;
    let addr = super::resolve_target(&a.target, DEFAULT_PORT, a.family)?;
    a.dial.check(addr, cfg.transport == PumpTransport::Tcp)?;
    super::json::begin();
    // On stdout, with the report (on stderr with --json: stdout holds the document alone).
    let say = |line: String| {
        if a.json {
            eprintln!("{line}")
        } else {
            outln!("{line}")
        }
    };
    say(plan_line(&a, &cfg, packets, addr));
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("out/pump").join(super::folder_name(&addr.to_string())));
    // Issue 33: the folder is ours from the first message; written beside it, put in place whole.
    let dir = nmc_report::OutDir::begin(&out)?;
    let signal = nmc_probe::signal::stop_on_signals()?;
    // The bar, or interval lines (issue 34), not both.
    let progress = interval.is_none().then(|| Progress::new(&addr.to_string()));
    let way = |reverse: bool, folder: PathBuf, tag: &str| Way {
        addr,
        cfg: cfg.clone(),
        key: key.as_ref(),
        reverse,
        folder,
        interval,
        format: a.format,
        json: a.json,
        tag: tag.to_string(),
        dial: a.dial.dial(),
        rows: !a.no_messages,
    };
    let start_unix_s = super::json::unix_now();
    let runs = if a.bidir {
        run_bidir(&cfg, dir.path(), &way, signal, progress.as_ref())?
    } else if a.parallel > 1 {
        run_parallel(&a, &cfg, dir.path(), &way, signal, progress.as_ref())?
    } else {
        vec![way(a.reverse, dir.path().to_path_buf(), "").run(signal, None, progress.as_ref())?]
    };
    if let Some(p) = progress {
        p.finish();
    }
    let target = addr.to_string();
    if !a.json {
        print_text(&a, &runs);
    }
    let mut wrote = Vec::new();
    for r in &runs {
        let written = write_outputs(&r.folder, &r.summary)?;
        if !a.no_messages {
            wrote.push(super::shown(&dir.final_path(&written.messages)));
        }
        wrote.extend(
            [
                written.summary,
                written.rtt,
                written.histogram,
                written.autocorrelation,
            ]
            .iter()
            .map(|f| super::shown(&dir.final_path(f))),
        );
    }
    dir.commit()?;
    // Issue 58 §3: Ctrl-C keeps what was measured, and says so with exit 5 (it was 0); a run
    // that failed after its first RFNM keeps it too, with exit 4 (it kept nothing, exit 2).
    let partial = runs.iter().find_map(|r| r.summary.run.partial.as_deref());
    let failure =
        if signal.load(Ordering::Relaxed) && runs.iter().any(|r| r.summary.run.interrupted) {
            Some(super::exit::stopped(
                "stopped by the user: what was measured is printed and written",
            ))
        } else {
            partial.map(|why| {
                super::exit::partial(format!(
                    "partial run: {why}; what was measured is printed and written"
                ))
            })
        };
    if a.json {
        print_document(&a, &cfg, &runs, &target, start_unix_s, failure.as_ref())?;
    }
    let last = wrote.pop().unwrap_or_default();
    say(format!("wrote {} and {last}", wrote.join(", ")));
    match failure {
        Some(f) => Err(f),
        None => Ok(Outcome::Ok),
    }
}

/// `--bidir`: both directions at once, the reverse on its own session so the server tells
/// their datagrams apart; either's failure stops the other, as a signal stops both. The
/// forward runs on this thread, with the progress bar.
fn run_bidir<'k>(
    cfg: &PumpConfig,
    dir: &std::path::Path,
    way: &dyn Fn(bool, PathBuf, &str) -> Way<'k>,
    signal: &'static AtomicBool,
    progress: Option<&Progress>,
) -> Result<Vec<Ran>> {
    // The reverse direction on its own session, so the server tells their datagrams apart.
    let back = PumpConfig {
        session: session_id().wrapping_add(1),
        ..cfg.clone()
    };
    let (back, there) = (
        Way {
            cfg: back,
            ..way(true, dir.join("reverse"), "[reverse] ")
        },
        way(false, dir.join("forward"), "[forward] "),
    );
    // Either direction's failure stops the other (as a signal stops both).
    let halt = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let reverse = scope.spawn(|| {
            let r = back.run(&halt, Some(signal), None);
            if r.is_err() {
                halt.store(true, Ordering::Relaxed);
            }
            r
        });
        let forward = there.run(&halt, Some(signal), progress);
        if forward.is_err() {
            halt.store(true, Ordering::Relaxed);
        }
        let reverse = reverse
            .join()
            .map_err(|_| anyhow::anyhow!("the reverse direction's thread panicked"))?;
        Ok::<_, anyhow::Error>(vec![
            forward.context("forward")?,
            reverse.context("reverse")?,
        ])
    })
}

/// `-P N` (issue 58 §5): N connections at once, each on its own session (a count shared out:
/// the first `count % N` send one more); one's failure stops the others, as a signal stops
/// all. The first runs on this thread, with the progress bar.
fn run_parallel<'k>(
    a: &PumpArgs,
    cfg: &PumpConfig,
    dir: &std::path::Path,
    way: &dyn Fn(bool, PathBuf, &str) -> Way<'k>,
    signal: &'static AtomicBool,
    progress: Option<&Progress>,
) -> Result<Vec<Ran>> {
    // Issue 58 §5: N connections at once, each on its own session; one's failure stops the
    // others (as a signal stops all).
    // A count is shared out: the first `count % P` connections send one more.
    let share = |i: u32| {
        cfg.count.map(|k| {
            let p = u64::from(a.parallel);
            k / p + u64::from(u64::from(i) < k % p)
        })
    };
    let ways: Vec<Way> = (0..a.parallel)
        .map(|i| Way {
            cfg: PumpConfig {
                session: cfg.session.wrapping_add(i),
                count: share(i),
                ..cfg.clone()
            },
            ..way(
                a.reverse,
                dir.join(format!("p{}", i + 1)),
                &format!("[{}] ", i + 1),
            )
        })
        .collect();
    let halt = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let halt = &halt;
        let mut ways = ways.into_iter();
        let first = ways.next().expect("two connections or more");
        let others: Vec<_> = ways
            .map(|w| {
                scope.spawn(move || {
                    let r = w.run(halt, Some(signal), None);
                    if r.is_err() {
                        halt.store(true, Ordering::Relaxed);
                    }
                    r
                })
            })
            .collect();
        // The first on this thread, with the progress bar.
        let r = first.run(halt, Some(signal), progress);
        if r.is_err() {
            halt.store(true, Ordering::Relaxed);
        }
        let mut all = vec![r.context("connection 1")?];
        for (i, t) in others.into_iter().enumerate() {
            let r = t
                .join()
                .map_err(|_| anyhow::anyhow!("connection {}'s thread panicked", i + 2))?;
            all.push(r.with_context(|| format!("connection {}", i + 2))?);
        }
        Ok::<_, anyhow::Error>(all)
    })
}

/// The line a run opens with: its direction, messages, window, transport and length, and when
/// an unanswered message ends it.
fn plan_line(a: &PumpArgs, cfg: &PumpConfig, packets: u16, addr: std::net::SocketAddr) -> String {
    format!(
        "nmc pump{}: {} bytes a message{}, at most {} outstanding, {} {addr} over {} for {}; a message unanswered for {} ends the run",
        if a.reverse {
            " --reverse"
        } else if a.bidir {
            " --bidir"
        } else {
            ""
        },
        cfg.size,
        if cfg.transport == PumpTransport::Udp {
            format!(" in {packets} datagrams")
        } else {
            String::new()
        },
        cfg.outstanding,
        if a.reverse {
            "sent by the server at"
        } else if a.bidir {
            "each way, to and from"
        } else {
            "to"
        },
        cfg.transport,
        match cfg.count {
            Some(k) => format!("{k} messages"),
            None if cfg.omit > Nanos::ZERO => format!(
                "{} after a warm-up of {} (left out)",
                cfg.duration.human(),
                cfg.omit.human()
            ),
            None => cfg.duration.human().to_string(),
        },
        cfg.timeout.human(),
    )
}

/// The report on the terminal: each run's summary (tagged with `-P`, its direction with
/// `--bidir`), and iperf3's `[SUM]` line over parallel connections.
fn print_text(a: &PumpArgs, runs: &[Ran]) {
    for (i, r) in runs.iter().enumerate() {
        if a.parallel > 1 {
            outln!("[{}]", i + 1);
        }
        if a.bidir {
            outln!(
                "{}",
                if r.reverse {
                    "reverse (the server sends):"
                } else {
                    "forward (this host sends):"
                }
            );
        }
        out!("{}", r.summary.text_in(a.format));
    }
    if a.parallel > 1 {
        let sum = parallel_sum(runs);
        outln!(
            "[SUM] {} connections: {} messages sent, {} answered; throughput over the run {}",
            runs.len(),
            sum.sent,
            sum.answered,
            a.format.show(sum.throughput_bps)
        );
    }
}

/// The run as one JSON document (`--json`): one run's, `--bidir`'s two directions, or `-P`'s
/// connections with their sum; the count asked for with `-k/-n`.
fn print_document(
    a: &PumpArgs,
    cfg: &PumpConfig,
    runs: &[Ran],
    target: &str,
    start_unix_s: f64,
    failure: Option<&anyhow::Error>,
) -> Result<()> {
    let end = |r: &Ran| -> Result<serde_json::Value> {
        let mut doc = super::json::pump(&r.summary, target, start_unix_s);
        doc["end"]["intervals"] = serde_json::to_value(&r.intervals)?;
        Ok(doc)
    };
    let mut doc = match runs {
        [one] => end(one)?,
        [fwd, rev] if a.bidir => super::json::bidir(end(fwd)?, end(rev)?),
        many => {
            let sum = parallel_sum(many);
            super::json::parallel(
                many.iter().map(end).collect::<Result<Vec<_>>>()?,
                serde_json::json!({
                    "messages_sent": sum.sent,
                    "messages_answered": sum.answered,
                    "throughput_bit_per_s": sum.throughput_bps,
                }),
            )
        }
    };
    // -k/-n with -P: the count asked for, not the first connection's share of it.
    if let Some(k) = cfg.count {
        doc["parameters"]["count"] = serde_json::json!(k);
    }
    super::json::print_run(doc, failure)?;
    Ok(())
}

/// What `-P` connections did together: the iperf3 `[SUM]` line.
struct Sum {
    sent: usize,
    answered: usize,
    throughput_bps: f64,
}

/// The sum over parallel connections: messages, and throughput (each over the same run).
fn parallel_sum(runs: &[Ran]) -> Sum {
    Sum {
        sent: runs.iter().map(|r| r.summary.messages_sent).sum(),
        answered: runs.iter().map(|r| r.summary.messages_answered).sum(),
        throughput_bps: runs.iter().map(|r| r.summary.throughput_bps).sum(),
    }
}

/// One direction of a run: who sends, where its files go, how its lines are tagged.
struct Way<'a> {
    addr: std::net::SocketAddr,
    cfg: PumpConfig,
    key: Option<&'a nmc_probe::Key>,
    reverse: bool,
    folder: PathBuf,
    interval: Option<Nanos>,
    format: nmc_sim::RateFormat,
    json: bool,
    tag: String,
    /// How this host's sockets are made (issue 58 §7).
    dial: nmc_serve::dial::Dial,
    /// Write messages.csv (not with --no-messages).
    rows: bool,
}

/// What one direction measured.
struct Ran {
    reverse: bool,
    folder: PathBuf,
    summary: PumpSummary,
    intervals: Vec<IntervalRow>,
}

impl Way<'_> {
    /// Pumps one way until the run ends or `stop` is set, writing messages.csv in `folder` as
    /// messages finish. With `watch` (the signal flag, when `stop` is a flag of its own that the
    /// other direction also sets), a set `watch` sets `stop` at the next tick.
    fn run(
        self,
        stop: &AtomicBool,
        watch: Option<&AtomicBool>,
        progress: Option<&Progress>,
    ) -> Result<Ran> {
        std::fs::create_dir_all(&self.folder)
            .with_context(|| format!("cannot create {}", self.folder.display()))?;
        let mut lines = Intervals::new(self.interval, self.format);
        lines.omit = self.cfg.omit;
        // In reverse the ticks bring the messages whole here, timed on arrival: no round trip.
        lines.rtt = !self.reverse;
        let (json, tag) = (self.json, self.tag.clone());
        let mut tick = |t: Tick<'_>| {
            if watch.is_some_and(|w| w.load(Ordering::Relaxed)) {
                stop.store(true, Ordering::Relaxed);
            }
            if let Some(p) = progress {
                p.set(t.fraction);
            }
            if let Some(line) = lines.tick(t.now, t.finished, t.tcp) {
                // On stdout, with the report (on stderr with --json: stdout holds the document).
                if json {
                    eprintln!("{tag}{line}")
                } else {
                    outln!("{tag}{line}")
                }
            }
        };
        // Issue 34: each message's row goes to disk as it finishes; the run keeps none.
        let messages = self.folder.join("messages.csv");
        let summary = if self.reverse {
            let mut csv = self
                .rows
                .then(|| ReceivedCsv::create(&messages))
                .transpose()?;
            let mut write = |m: &_, in_run| csv.as_mut().map_or(Ok(()), |c| c.write(m, in_run));
            let s = pump_reverse_dialed(
                self.addr,
                self.cfg,
                self.key,
                &self.dial,
                stop,
                Some(&mut tick),
                Some(&mut write),
            )?;
            if let Some(csv) = csv {
                csv.finish()?;
            }
            s
        } else {
            let mut csv = self
                .rows
                .then(|| {
                    MessagesCsv::create(&messages, self.cfg.duration)
                        .map(|c| c.omitting(self.cfg.omit))
                })
                .transpose()?;
            let mut write = |m: &_| csv.as_mut().map_or(Ok(()), |c| c.write(m));
            let run = pump_dialed(
                self.addr,
                self.cfg,
                self.key,
                &self.dial,
                stop,
                Some(&mut tick),
                Some(&mut write),
            )?;
            if let Some(csv) = csv {
                csv.finish()?;
            }
            PumpSummary::of(run)
        };
        Ok(Ran {
            reverse: self.reverse,
            folder: self.folder,
            summary,
            intervals: lines.done,
        })
    }
}

/// One `--interval` line's figures (also `end.intervals` in the JSON document).
#[derive(serde::Serialize)]
pub struct IntervalRow {
    pub start_s: f64,
    pub end_s: f64,
    /// RFNMs that came back in the interval.
    pub answered: usize,
    pub throughput_bit_per_s: f64,
    pub rtt_mean_s: Option<f64>,
    /// Data bytes of the messages answered in the interval (iperf3's "Transfer").
    pub data_bytes: u64,
    /// Over TCP (issue 75 §2, iperf3's "Retr", "Cwnd" and RTT): segments TCP retransmitted in
    /// the interval, and its congestion window and smoothed round trip at the interval's end
    /// (the sending socket's `TCP_INFO`, Linux); absent over UDP, in reverse, or elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retransmits: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwnd_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp_rtt_s: Option<f64>,
    /// Within the warm-up (`--omit`), left out of the run's figures; absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub omitted: bool,
}

/// Turns the pump's ticks into one line per interval: RFNMs that arrived in it, their bits
/// over its length, and their mean round trip. Each tick brings the messages finished since the
/// last; their figures wait in `open`, by interval, until that interval's line (a few intervals
/// at most: the ones between the last line and now).
struct Intervals {
    every: Option<Nanos>,
    next: Nanos,
    /// Interval index (interval i is (i·every, (i+1)·every]) → (RFNMs, bits, Σ round trip ns).
    open: std::collections::BTreeMap<u64, (usize, u64, u64)>,
    done: Vec<IntervalRow>,
    rate: nmc_sim::RateFormat,
    /// The records' `rfnm − sent` is a round trip (not in reverse, where it is an arrival).
    rtt: bool,
    /// The warm-up (`--omit`): intervals ending within it are marked.
    omit: Nanos,
    /// TCP's retransmits counted by the previous line (its count is the connection's).
    retransmits: u32,
}

impl Intervals {
    fn new(every: Option<Nanos>, rate: nmc_sim::RateFormat) -> Self {
        Intervals {
            every,
            next: every.unwrap_or(Nanos(u64::MAX)),
            open: Default::default(),
            done: Vec::new(),
            rate,
            rtt: true,
            omit: Nanos::ZERO,
            retransmits: 0,
        }
    }

    fn tick(
        &mut self,
        now: Nanos,
        finished: &[MessageRecord],
        tcp: Option<&dyn Fn() -> Option<nmc_probe::tcp_info::TcpStats>>,
    ) -> Option<String> {
        let every = self.every?;
        for r in finished {
            // An RFNM at 0 lies in no interval (each is open at its start).
            if let Some(at) = r.rfnm.filter(|t| t.0 > 0) {
                let o = self.open.entry((at.0 - 1) / every.0).or_default();
                o.0 += 1;
                o.1 += 8 * u64::from(r.bytes);
                o.2 += at.0.saturating_sub(r.sent.0);
            }
        }
        if now < self.next {
            return None;
        }
        let (from, to) = (Nanos(self.next.0 - every.0), self.next);
        self.next = Nanos(self.next.0 + every.0);
        let index = from.0 / every.0;
        // Nothing can arrive for an interval already printed; drop any such (none expected).
        while self.open.first_key_value().is_some_and(|(&k, _)| k < index) {
            self.open.pop_first();
        }
        let (n, bits, rtt) = self.open.remove(&index).unwrap_or_default();
        let secs = every.as_secs_f64();
        // Read only now that a line is due (a system call).
        let info = tcp.and_then(|f| f());
        let retransmits = info.map(|i| {
            let d = i.retransmits.saturating_sub(self.retransmits);
            self.retransmits = i.retransmits;
            d
        });
        let row = IntervalRow {
            start_s: from.as_secs_f64(),
            end_s: to.as_secs_f64(),
            answered: n,
            throughput_bit_per_s: bits as f64 / secs,
            rtt_mean_s: (n > 0 && self.rtt).then(|| rtt as f64 / n as f64 / 1e9),
            data_bytes: bits / 8,
            retransmits,
            cwnd_bytes: info.map(|i| i.cwnd_bytes()),
            tcp_rtt_s: info.map(|i| f64::from(i.rtt_us) / 1e6),
            omitted: nmc_probe::pump::analysis::in_warm_up(to, self.omit),
        };
        let line = format!(
            "[{:7.2}-{:7.2} s] {:>8} messages {:>14}  rtt {}{}{}",
            row.start_s,
            row.end_s,
            row.answered,
            self.rate.show(row.throughput_bit_per_s),
            row.rtt_mean_s
                .map_or("-".to_string(), |r| format!("{:.3} ms", r * 1e3)),
            match (row.retransmits, row.cwnd_bytes, row.tcp_rtt_s) {
                (Some(r), Some(c), Some(t)) => format!(
                    "  retr {r}  cwnd {}  tcp rtt {:.3} ms",
                    human_bytes(c),
                    t * 1e3
                ),
                _ => String::new(),
            },
            if row.omitted { "  (omitted)" } else { "" },
        );
        self.done.push(row);
        Some(line)
    }
}

/// A byte count as iperf3 prints a window: KiB, MiB.
fn human_bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 20 => format!("{:.2} MiB", b as f64 / f64::from(1 << 20)),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Interval lines from the messages finished at each tick: each RFNM in the interval
    /// (from, to] it arrived in, whichever tick brought it; one line a tick at most.
    #[test]
    fn interval_lines_fold_finished_messages() {
        let ms = |v: u64| Nanos(v * 1_000_000);
        let rec = |seq: u64, sent: u64, rfnm: u64| MessageRecord {
            seq,
            bytes: 1000,
            sent: ms(sent),
            rfnm: Some(ms(rfnm)),
            transmissions: 1,
        };
        let mut l = Intervals::new(Some(ms(100)), nmc_sim::RateFormat::Auto);
        assert_eq!(l.tick(ms(50), &[rec(0, 0, 40), rec(1, 0, 50)], None), None);
        // Brought at 130 ms: one RFNM at exactly 100 ms (the first interval), one at 120.
        assert!(
            l.tick(ms(130), &[rec(2, 60, 100), rec(3, 70, 120)], None)
                .is_some()
        );
        let r = &l.done[0];
        assert_eq!((r.answered, r.end_s), (3, 0.1));
        assert!((r.rtt_mean_s.unwrap() - 0.130 / 3.0).abs() < 1e-12);
        assert_eq!(r.throughput_bit_per_s, 3.0 * 8000.0 / 0.1);
        assert!(l.tick(ms(250), &[rec(4, 200, 250)], None).is_some());
        assert_eq!(l.tick(ms(299), &[], None), None);
        assert!(l.tick(ms(300), &[], None).is_some());
        assert_eq!(
            l.done.iter().map(|r| r.answered).collect::<Vec<_>>(),
            vec![3, 1, 1]
        );
        assert_eq!(l.open.len(), 0);
        assert_eq!(l.done[0].data_bytes, 3000);
        assert!(l.done.iter().all(|r| r.retransmits.is_none()));
    }

    /// Issue 75 §2: over TCP each line has the retransmits of its interval (the connection's
    /// count less the last line's), the window and TCP's round trip, read when the line is due.
    #[test]
    fn interval_lines_carry_tcp_figures_when_given() {
        let ms = |v: u64| Nanos(v * 1_000_000);
        let mut l = Intervals::new(Some(ms(100)), nmc_sim::RateFormat::Auto);
        let reads = std::cell::Cell::new(0);
        let at = |retransmits: u32| nmc_probe::tcp_info::TcpStats {
            retransmits,
            rtt_us: 2500,
            rttvar_us: 100,
            min_rtt_us: 2000,
            cwnd_segments: 10,
            mss_bytes: 1448,
        };
        let first = || {
            reads.set(reads.get() + 1);
            Some(at(3))
        };
        assert_eq!(l.tick(ms(50), &[], Some(&first)), None);
        assert_eq!(reads.get(), 0, "no line due, no read");
        let line = l.tick(ms(100), &[], Some(&first)).unwrap();
        assert_eq!(reads.get(), 1);
        assert!(
            line.contains("retr 3  cwnd 14.1 KiB  tcp rtt 2.500 ms"),
            "{line}"
        );
        let second = || Some(at(5));
        l.tick(ms(200), &[], Some(&second)).unwrap();
        let r = &l.done[1];
        assert_eq!(
            (r.retransmits, r.cwnd_bytes, r.tcp_rtt_s),
            (Some(2), Some(14480), Some(0.0025))
        );
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_bytes("1008"), Ok(1008));
        assert_eq!(parse_bytes("1KiB"), Ok(1024));
        assert_eq!(parse_bytes("1kB"), Ok(1000));
        assert_eq!(parse_bytes("2MiB"), Ok(2 << 20));
        assert_eq!(parse_bytes("1K"), Ok(1024)); // iperf3 -l 1K (issue 75 §4)
        assert_eq!(parse_bytes("126B"), Ok(126));
        assert!(parse_bytes("big").is_err());
        assert!(parse_bytes("8GiB").is_err());
    }
}
