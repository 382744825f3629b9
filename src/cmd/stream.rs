//! `nmc stream` and `nmc sink`: RFC 508's double-buffered real-time source on a real path,
//! and the discard sink it sends to. The work is in `nmc-realtime::stream`.

use crate::Outcome;
use crate::cmd::units;
use anyhow::{Context, Result, bail};
use clap::Args;
use nmc_realtime::gaps::{LayoutCell, table_layout};
use nmc_realtime::stream::reverse::{ReceivedInterval, stream_bidir, stream_reverse};
use nmc_realtime::stream::sender::{StreamConfig, StreamInterval, StreamRun, run_reporting};
use nmc_realtime::stream::sink::{Sink, Stall};
use nmc_realtime::stream::{DEFAULT_PORT, Transport};
use nmc_realtime::table1;
use nmc_sim::{BitRate, Bits, SimDuration};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    nmc serve &                                         # every instrument's server, TCP and UDP port 8890\n  \
    nmc stream 127.0.0.1 --rate 30kbit/s --buffer 2016bit --duration 30s\n  \
    nmc stream example.net:8890 --udp --ack --out out/stream\n  \
    nmc stream 127.0.0.1 --sweep --rates 6kbit/s,18kbit/s,30kbit/s --buffers 1008bit,4032bit --duration 10s\n  \
    nmc stream example.net -R --ack --duration 30s     # the sink sends, as iperf3 -R\n  \
    nmc stream 127.0.0.1 -u --bulk -b 10M -n 5M         # 5 MiB at 10 Mbit/s, then stop (iperf3 -n; -k N buffers)\n  \
    nmc stream 127.0.0.1 -u --bulk -b 10M -t 10 -O 2 -i 1  # a 2 s warm-up left out (iperf3 -O); lines with the sink's side\n  \
    nmc stream 127.0.0.1 -u --bulk -b 10M --bidir       # both ways at once, as iperf3 --bidir\n\n\
Two buffers; one fills at --rate while the other is written; if the other is not free when the \
first is full, a gap starts (RFC 508 §IV). \"Written\" means the socket took the buffer, or with \
--ack that the sink acknowledged reading it (the RFNM's analogue). Prints the gap table in RFC \
508's KEY form (time of day, buffers sent, max/avg/min gap, gaps); --out writes buffers.csv and \
summary.json. With -R/--reverse the sink sends and this host receives (this host connects, so it \
works through NAT): the sink times the gaps and sends its records back at the end, and \
summary.json says \"reverse\": true. Exit 0 when the run completed, 2 on bad input, 3 when \
the sink cannot be reached or refuses the run, 4 for a partial run (kept), 5 when stopped by \
the user (kept); with -J the document is printed whatever happens, with \"error\" on failure.")]
pub struct StreamArgs {
    /// HOST, HOST:PORT or `[IPv6]:PORT` of an `nmc serve` or `nmc sink` (default port 8890).
    pub target: String,
    /// Process bit rate, e.g. 30kbit/s or 10Mbit/s, or as iperf3 -b: 10M (bits; K, M, G ×
    /// 1000), or a bare number of bit/s.
    #[arg(short = 'b', long, default_value = "30kbit/s", value_parser = units::rate)]
    pub rate: BitRate,
    /// Size of each of the two buffers, e.g. 2016bit, 252B, 1KiB, or as iperf3 -l: a bare
    /// number of bytes (252), 1K (= 1KiB; K, M, G × 1024).
    #[arg(long, default_value = "2016bit", value_parser = units::length)]
    pub buffer: Bits,
    /// Length of the test (RFC 508: 30 s): 30s, 2min, or 30 (a bare number is seconds, as
    /// iperf3 -t 30).
    #[arg(short = 't', long, default_value = "30s", value_parser = units::duration)]
    pub duration: SimDuration,
    /// Fill and send this many buffers, as iperf3 -k counts blocks, instead of a time: the run
    /// lasts N × (buffer ÷ rate), each test of a sweep its own.
    #[arg(short = 'k', long, value_name = "N", conflicts_with_all = ["duration", "bytes"])]
    pub count: Option<u64>,
    /// Send this many bytes, in whole buffers (⌈8 × BYTES ÷ buffer bits⌉ of them), as iperf3
    /// -n: 10M (iperf3's M = MiB), 1MB, or a count of bytes.
    #[arg(short = 'n', long, value_name = "BYTES", value_parser = units::size, conflicts_with = "duration")]
    pub bytes: Option<u64>,
    /// UDP, one datagram per buffer (default TCP, reliable as the NCP's connections were).
    #[arg(short = 'u', long)]
    pub udp: bool,
    /// With --udp: a bulk source at --rate, as iperf3 -u -b, instead of RFC 508's double
    /// buffer: a buffer late at its deadline goes at once and the schedule is kept, so the run
    /// sends its rate on average; no gap is counted (loss, jitter and order at the sink are).
    #[arg(long, requires = "udp", conflicts_with_all = ["ack", "sweep"])]
    pub bulk: bool,
    /// A write is complete when the sink acknowledges the buffer, not when the socket takes it.
    #[arg(long)]
    pub ack: bool,
    /// With --udp --ack: an acknowledgement missing this long counts the buffer as lost and
    /// done: 1s, 200ms, or a bare number of seconds.
    #[arg(long, default_value = "1s", value_parser = units::duration)]
    pub ack_timeout: SimDuration,
    /// Give up connecting, or on a sink that takes nothing, after this long (a partial run):
    /// 10s, or a bare number of seconds.
    #[arg(long, default_value = "10s", value_parser = units::duration)]
    pub io_timeout: SimDuration,
    /// Run RFC 508's procedure over --rates × --buffers and print Table I's layout.
    #[arg(long)]
    pub sweep: bool,
    /// Sweep rates, comma-separated, each as --rate takes it, e.g. 6kbit/s,18kbit/s or 6k,18k
    /// (default: Table I's 22).
    #[arg(long, value_delimiter = ',', value_parser = units::rate)]
    pub rates: Vec<BitRate>,
    /// Sweep buffer sizes, comma-separated, each as --buffer takes it, e.g. 1008bit,252B
    /// (default: Table I's 8).
    #[arg(long, value_delimiter = ',', value_parser = units::length)]
    pub buffers: Vec<Bits>,
    /// Write buffers.csv (one row per buffer) and summary.json here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The sink's shared secret (as its --secret-file): answered in its TCP handshake, a tag on each UDP buffer.
    #[arg(long, value_name = "FILE")]
    pub secret_file: Option<PathBuf>,
    #[command(flatten)]
    pub family: super::Family,
    #[command(flatten)]
    pub dial: super::DialArgs,
    /// Print one JSON document on stdout (schema nmc-instrument/2: the book's
    /// docs/src/reference/outputs.md) instead of the text report, which goes to stderr.
    #[arg(short = 'J', long)]
    pub json: bool,
    /// Print a line every D while running (buffers sent, the process's rate, gaps and the
    /// longest for that interval), as iperf3 -i does; e.g. 1s, or 1 (a bare number is seconds).
    /// Not with --sweep.
    #[arg(short = 'i', long, value_name = "D", value_parser = units::duration, conflicts_with = "sweep")]
    pub interval: Option<SimDuration>,
    /// The sink sends and this host receives, as iperf3 -R: this host connects and
    /// asks, the sink runs the stream with these options and times the gaps, and sends its
    /// records back at the end; -i lines count the buffers received here.
    #[arg(short = 'R', long)]
    pub reverse: bool,
    /// How rates print in the -i lines and the shortfall line: `auto` scales each to its size
    /// (`30.0 kbit/s`, `9.87 Mbit/s`), or one unit for all: `bit`, `kbit`, `Mbit`, `Gbit`
    /// (iperf3's `k`, `m`, `g` too), as `nmc pump -f`.
    #[arg(short = 'f', long, default_value = "auto", value_parser = crate::cmd::parse_unit::<nmc_sim::RateFormat>)]
    pub format: nmc_sim::RateFormat,
    /// Keep no record per buffer (issue 58 §6): no buffers.csv, no list of each gap in
    /// summary.json, and no limit on the buffers of one run (a record is about 72 bytes: 36 MB
    /// a minute at 100 Mbit/s); the KEY box, its gap figures and the JSON document are the same.
    #[arg(long)]
    pub no_records: bool,
    /// A warm-up before the measured --duration, left out of the figures and reported apart,
    /// as iperf3 -O: its buffers (the first ⌊D ÷ fill time⌋) are sent and timed as any, and
    /// their gaps, loss and receipt counted apart; -i lines within it end in "(omitted)". 2s,
    /// or a bare number of seconds. Over UDP the sink splits its tally at a mark after the
    /// warm-up (an older sink cannot: the loss is then not given); with -R a sink older than
    /// this refuses in one line.
    #[arg(short = 'O', long, value_name = "D", value_parser = units::duration, conflicts_with_all = ["count", "bytes", "sweep"])]
    pub omit: Option<SimDuration>,
    /// Both ways at once, as iperf3 --bidir: this host streams to the sink on one connection
    /// while the sink streams back on another, each with these options and measured as alone;
    /// the report, the -i lines (each tagged with its direction) and the JSON document's end
    /// have each direction, and --out writes forward/ and reverse/.
    #[arg(long, conflicts_with_all = ["reverse", "sweep"])]
    pub bidir: bool,
}

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    nmc sink                                            # TCP and UDP port 8890, until Ctrl-C\n  \
    nmc sink --listen 127.0.0.1:5080 --duration 10min --secret-file secret\n  \
    nmc sink --stall-after 100 --stall-for 2s           # stops reading once: a host that falls behind\n\n\
`nmc serve` serves the stream too, beside every other instrument; this sink serves the stream alone.")]
pub struct SinkArgs {
    /// Address and port (TCP and UDP) to listen on.
    #[arg(long, default_value_t = nmc_serve::bind::any(DEFAULT_PORT))]
    pub listen: SocketAddr,
    /// For tests: stop reading once, after this many buffers ...
    #[arg(long, requires = "stall_for")]
    pub stall_after: Option<u64>,
    /// ... for this long (2s, or a bare number of seconds).
    #[arg(long, value_parser = units::duration, requires = "stall_after")]
    pub stall_for: Option<SimDuration>,
    /// Stop by itself after this long: 10min, or a bare number of seconds.
    #[arg(long, value_parser = units::duration)]
    pub duration: Option<SimDuration>,
    /// Serve only clients that hold this shared secret (HMAC-SHA256: a challenge over TCP, a tag on each UDP buffer; the file's bytes, surrounding whitespace removed; at least 16).
    #[arg(long, value_name = "FILE")]
    pub secret_file: Option<PathBuf>,
    #[command(flatten)]
    pub gate: crate::cmd::gate::GateArgs,
}

fn std_dur(d: SimDuration) -> Duration {
    Duration::from_nanos(d.as_nanos())
}

pub fn sink(a: SinkArgs) -> Result<Outcome> {
    let stall = match (a.stall_after, a.stall_for) {
        (Some(after), Some(len)) => Some(Stall {
            after,
            length: std_dur(len),
        }),
        _ => None,
    };
    let key = crate::cmd::gate::key_from(&a.secret_file)?;
    let limits = a.gate.limits()?;
    let describe = limits.describe(key.as_ref());
    let sink = Sink::bind(a.listen, stall)
        .with_context(|| format!("binding {}", a.listen))?
        .with_gate(limits, key, std::sync::Arc::new(|l: &str| eprintln!("{l}")));
    let addr = sink.local_addr()?;
    eprintln!("nmc sink: discarding on {addr} (TCP and UDP); tcp: {describe}");
    let counts = sink.counts.clone();
    let gate = sink.gate_counters();
    let stop = nmc_probe::signal::stop_on_signals()?;
    if let Some(d) = a.duration {
        let d = std_dur(d);
        std::thread::spawn(move || {
            std::thread::sleep(d);
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
    }
    sink.run(stop)?;
    eprintln!("nmc sink: {}", counts.summary());
    eprintln!("nmc sink: {}", gate.snapshot());
    Ok(Outcome::Ok)
}

/// The buffers `-k` or `-n` ask for, in buffers of `bits`.
fn buffers_asked(a: &StreamArgs, bits: u64) -> Option<u64> {
    match (a.count, a.bytes) {
        (Some(k), _) => Some(k),
        (None, Some(b)) => Some((b.saturating_mul(8)).div_ceil(bits.max(1))),
        (None, None) => None,
    }
}

fn config(
    a: &StreamArgs,
    key: &Option<nmc_serve::Key>,
    target: SocketAddr,
    rate: u64,
    bits: u64,
) -> StreamConfig {
    StreamConfig {
        key: key.clone(),
        records: !a.no_records,
        dial: a.dial.dial(),
        bulk: a.bulk,
        target,
        rate_bps: rate,
        buffer_bits: bits,
        duration: match buffers_asked(a, bits) {
            // iperf3's -k/-n: exactly the time the source takes to fill that many buffers
            // (the run's buffers due are ⌊duration ÷ fill⌋).
            Some(n) => {
                let fill = StreamConfig::fill_of(bits, rate);
                fill.saturating_mul(u32::try_from(n).unwrap_or(u32::MAX))
            }
            None => std_dur(a.duration),
        },
        transport: if a.udp {
            Transport::Udp
        } else {
            Transport::Tcp
        },
        ack: a.ack,
        ack_timeout: std_dur(a.ack_timeout),
        io_timeout: std_dur(a.io_timeout),
        omit: a.omit.map_or(Duration::ZERO, std_dur),
    }
}

/// Issue 74 §2: when the source sent fewer buffers than its rate called for in its time, one
/// line with the rate achieved beside the rate asked, and why: a bulk source only falls behind
/// when this host cannot send that fast; RFC 508's double buffer, when its gaps held it back.
fn shortfall(r: &StreamRun, format: nmc_sim::RateFormat) -> Option<String> {
    if r.kept_up() {
        return None;
    }
    let show = |bps: f64| format.show(bps);
    let why = if r.config.bulk {
        "this host could not send that fast"
    } else {
        "the gaps held the source back"
    };
    Some(format!(
        "sent {} of the {} asked ({} of {} buffers in {:.3} s): {why}",
        show(r.sent_rate_bps().unwrap_or(0.0)),
        show(r.config.rate_bps as f64),
        r.buffers_sent,
        r.buffers_due(),
        r.sent_s
    ))
}

/// RFC 508's KEY for one test.
fn key_box(r: &StreamRun) -> String {
    let mut lines = vec![
        (r.time_of_day.clone(), "time of day"),
        (r.buffers_sent.to_string(), "# buffers sent"),
    ];
    // Issue 33: loss is said wherever it can happen. TCP cannot lose a buffer; UDP can: the
    // sink's acknowledgements show it, or without them its tally at the end.
    match (r.config.transport, r.config.ack, super::json::lost(r)) {
        (Transport::Udp, true, _) => lines.push((r.acks_lost.to_string(), "# lost (no ack)")),
        (Transport::Udp, false, Some(n)) if r.received.is_some() => {
            lines.push((n.to_string(), "# lost (not received here)"))
        }
        (Transport::Udp, false, Some(n)) => lines.push((n.to_string(), "# lost (sink's tally)")),
        (Transport::Udp, false, None) => {
            lines.push(("?".into(), "# lost: not seen (the sink gave no tally)"))
        }
        (Transport::Tcp, ..) => {}
    }
    // Issue 58 §5: what the receiver saw of the buffers' order and timing (UDP).
    if let Some(a) = &r.arrivals {
        let jitter = a
            .jitter_ns
            .map_or("?".to_string(), |j| format!("{:.3}ms", j as f64 / 1e6));
        lines.push((jitter, "jitter (RFC 3550)"));
        lines.push((a.out_of_order.to_string(), "# out of order"));
    }
    // Issue 75 §2: the warm-up, left out of every figure here.
    if let Some(o) = &r.omitted {
        lines.push((
            o.buffers_sent.to_string(),
            "# warm-up buffers (-O, left out)",
        ));
    }
    let key = r.gaps.key_lines();
    let labels: &[&str] = if key.len() == 2 {
        &["gap time", "# gaps"]
    } else {
        &["max. gap time", "avg. gap time", "min. gap time", "# gaps"]
    };
    let mut out = String::from("+----------+\n");
    for (v, l) in lines.drain(..) {
        out.push_str(&format!("|{v:^10}| {l}\n"));
    }
    if !key.is_empty() {
        out.push_str("|----------|\n");
        for (v, l) in key.iter().zip(labels) {
            out.push_str(&format!("|{v:^10}| {l}\n"));
        }
    }
    out.push_str("+----------+");
    out
}

/// Writes `buffers.csv` and `summary.json` into `dir` (a staging folder, see `run`).
fn write_outputs(dir: &Path, runs: &[StreamRun], records: bool) -> Result<()> {
    if records {
        write_buffers(dir, runs)?;
    }
    write_summary(dir, runs)
}

/// `buffers.csv`: one row per buffer of every run.
fn write_buffers(dir: &Path, runs: &[StreamRun]) -> Result<()> {
    let path = dir.join("buffers.csv");
    // Its error names the file already (issue 57 §6: not twice).
    let file = nmc_report::files::create(&path)?;
    let mut w = csv::Writer::from_writer(file);
    #[derive(serde::Serialize)]
    struct Row {
        rate_bps: u64,
        buffer_bits: u64,
        seq: u64,
        filled_s: f64,
        completed_s: Option<f64>,
        gap_ms: Option<f64>,
    }
    for run in runs {
        for r in &run.records {
            w.serialize(Row {
                rate_bps: run.config.rate_bps,
                buffer_bits: run.config.buffer_bits,
                seq: r.seq,
                filled_s: r.filled_s,
                completed_s: r.completed_s,
                gap_ms: r.gap_ms,
            })?;
        }
    }
    w.flush()?;
    Ok(())
}

/// `summary.json`: each run's settings and figures.
fn write_summary(dir: &Path, runs: &[StreamRun]) -> Result<()> {
    let json = serde_json::json!({
        "tool": "nmc stream",
        "source": "RFC 508 §IV (Pfeifer & McAfee 1973): double buffering, gaps timed on a monotonic clock",
        "runs": runs.iter().map(|r| super::json::with_reverse(r, serde_json::json!({
            "config": r.config,
            "started_unix_s": r.started_unix_s,
            "local": r.local,
            "time_of_day_utc": r.time_of_day,
            "buffers_sent": r.buffers_sent,
            "buffers_completed": r.buffers_completed,
            "gaps": r.gaps.count(),
            "max_gap_ms": r.gaps.max_ms(),
            "avg_gap_ms": r.gaps.avg_ms(),
            "min_gap_ms": r.gaps.min_ms(),
            "gaps_ms": r.gaps.gaps_ns.iter().map(|&g| g as f64 / 1e6).collect::<Vec<_>>(),
            "acks_lost": r.acks_lost,
            "loss_seen": super::json::lost(r).is_some(),
            "sink_received": r.sink_received,
            "jitter_ms": r.arrivals.and_then(|a| a.jitter_ns).map(|j| j as f64 / 1e6),
            "out_of_order": r.arrivals.map(|a| a.out_of_order),
            "partial": r.partial,
        }))).collect::<Vec<_>>(),
    });
    let path = dir.join("summary.json");
    nmc_report::files::write(&path, serde_json::to_string_pretty(&json)? + "\n")
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

pub fn stream(a: StreamArgs) -> Result<Outcome> {
    if a.count == Some(0) || a.bytes == Some(0) {
        bail!("-k/-n must ask for at least 1 buffer");
    }
    let target = super::resolve_target(&a.target, DEFAULT_PORT, a.family)?;
    let key = crate::cmd::gate::key_from(&a.secret_file)?;
    if !a.sweep && (!a.rates.is_empty() || !a.buffers.is_empty()) {
        bail!("--rates and --buffers go with --sweep; a single test takes --rate and --buffer");
    }
    let (rates, buffers) = tests_of(&a);
    check_tests(&a, &key, target, &rates, &buffers)?;
    let every = interval_of(&a)?;
    a.dial.check(target, !a.udp)?;
    super::json::begin();
    // Issue 33: the folder is ours from the first buffer; written beside it, put in place whole.
    let out = a
        .out
        .as_deref()
        .map(nmc_report::OutDir::begin)
        .transpose()?;
    // Ctrl-C ends the run early: what ran is printed and written, marked partial.
    let stop = nmc_probe::signal::stop_on_signals()?;
    // The report on stdout, or on stderr with --json (stdout then holds the document alone).
    let say = |text: String| {
        if a.json {
            eprintln!("{text}")
        } else {
            outln!("{text}")
        }
    };
    let mut runs = Vec::new();
    let mut partial = None;
    let mut intervals: Vec<StreamInterval> = Vec::new();
    // --bidir: each direction's lines are tagged, as the pump's.
    let (fwd_tag, rev_tag) = if a.bidir {
        ("[forward] ", "[reverse] ")
    } else {
        ("", "")
    };
    let mut on_interval = |iv: StreamInterval| {
        // Issue 75 §1: over UDP the sink's side of the interval, as iperf3's receiver lines.
        say(sent_line(fwd_tag, &iv, a.format));
        intervals.push(iv);
    };
    let mut received_intervals: Vec<ReceivedInterval> = Vec::new();
    let mut on_received = |iv: ReceivedInterval| {
        say(received_line(rev_tag, &iv, a.format));
        received_intervals.push(iv);
    };
    'all: for &r in &rates {
        for &b in &buffers {
            let c = config(&a, &key, target, r, b);
            let done = if a.bidir {
                // Issue 75 §2: both ways at once; either one's failure is the command's.
                let (there, back) =
                    stream_bidir(&c, stop, every, &mut on_interval, &mut on_received);
                vec![there.context("forward")?, back.context("reverse")?]
            } else if a.reverse {
                vec![stream_reverse(&c, stop, every, &mut on_received)?]
            } else {
                vec![run_reporting(&c, stop, every, &mut on_interval)?]
            };
            for run in done {
                report_run(&a, target, &run, (r, b), fwd_tag, &say);
                if let Some(p) = &run.partial {
                    partial = Some(format!("{r} bit/s, {b} bit: {p}"));
                    runs.push(run);
                    // --bidir: the other direction's report too, then stop.
                    if a.bidir {
                        continue;
                    }
                    break 'all;
                }
                runs.push(run);
            }
            if partial.is_some() {
                break 'all;
            }
        }
    }
    if a.sweep {
        say(sweep_table(&rates, &buffers, &runs));
    }
    if let Some(dir) = out {
        write_files(&a, dir, &runs)?;
    }
    // Issue 58 §3: a run stopped by the user (exit 5) or by the path or sink (exit 4) keeps
    // what it measured, and the JSON document says why it ended.
    let failure = partial.map(|p| {
        let line = format!("partial run, stopped early: {p}");
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            super::exit::stopped(line)
        } else {
            super::exit::partial(line)
        }
    });
    if a.json {
        print_document(
            &a,
            target,
            every.is_some(),
            &runs,
            (&intervals, &received_intervals),
            failure.as_ref(),
        )?;
    }
    match failure {
        Some(f) => Err(f),
        None => Ok(Outcome::Ok),
    }
}

/// Checks every test (each rate with each buffer) before running any.
fn check_tests(
    a: &StreamArgs,
    key: &Option<nmc_serve::Key>,
    target: SocketAddr,
    rates: &[u64],
    buffers: &[u64],
) -> Result<()> {
    for &r in rates {
        for &b in buffers {
            let c = config(a, key, target, r, b);
            c.validate()?;
            if !a.reverse {
                c.check_records()?;
            }
        }
    }
    Ok(())
}

/// Issue 34: the interval lines' length (`-i`), kept for the JSON document's `end.intervals`
/// too; issue 74 §4: at least 1 ms (`-i 1ns` wrote a line for each nanosecond).
fn interval_of(a: &StreamArgs) -> Result<Option<Duration>> {
    let every = a
        .interval
        .map(|d| std::time::Duration::from_nanos(d.as_nanos()));
    if let Some(d) = a.interval
        && d.as_nanos() < 1_000_000
    {
        bail!("--interval {d}: at least 1ms, e.g. 1s");
    }
    Ok(every)
}

/// A sweep's table in RFC 508's Table I layout: each test's start, buffers sent and KEY.
fn sweep_table(rates: &[u64], buffers: &[u64], runs: &[StreamRun]) -> String {
    let find = |ri: usize, bi: usize| runs.get(ri * buffers.len() + bi);
    table_layout(rates, buffers, &|ri, bi| match find(ri, bi) {
        Some(r) => LayoutCell {
            time: r.time_of_day.clone(),
            sent: r.buffers_sent.to_string(),
            key: r.gaps.key_lines(),
        },
        None => LayoutCell::default(),
    })
}

/// Writes the runs' files into `dir` and puts it in place: with `--bidir` each direction's in
/// its own folder, as the pump's.
fn write_files(a: &StreamArgs, dir: nmc_report::OutDir, runs: &[StreamRun]) -> Result<()> {
    if a.bidir {
        for (run, way) in runs.iter().zip(["forward", "reverse"]) {
            let d = dir.path().join(way);
            std::fs::create_dir_all(&d)
                .with_context(|| format!("cannot create {}", d.display()))?;
            write_outputs(&d, std::slice::from_ref(run), !a.no_records)?;
        }
    } else {
        write_outputs(dir.path(), runs, !a.no_records)?;
    }
    dir.commit()?;
    Ok(())
}

/// What the terminal shows of one test's run: with `--bidir` its direction, over TCP the
/// sink's own lines, then (one test) the KEY box, the shortfall, the receiver's rate, what a
/// reverse run received and the warm-up apart, or (a sweep) one line on stderr.
fn report_run(
    a: &StreamArgs,
    target: SocketAddr,
    run: &StreamRun,
    (r, b): (u64, u64),
    fwd_tag: &str,
    say: &dyn Fn(String),
) {
    if a.bidir {
        say(if run.received.is_some() {
            "reverse (the sink sends):".to_string()
        } else {
            "forward (this host sends):".to_string()
        });
    }
    // Issue 75 §1: over TCP the sink's lines by its clock, as iperf3's server
    // output (its -i lines while running are this host's, the sender's).
    if !run.receiver_intervals.is_empty() {
        say(format!(
            "{fwd_tag}the sink's lines (its clock, from the run's first frame):"
        ));
        for iv in &run.receiver_intervals {
            say(format!(
                "{fwd_tag}[{:7.2}-{:7.2} s] {:>6} buffers {:>14}  received by the sink{}",
                iv.start_s,
                iv.end_s,
                iv.buffers_received,
                a.format.show(iv.rate_bit_per_s),
                omitted(iv.omitted)
            ));
        }
    }
    if !a.sweep {
        say(key_box(run));
        if let Some(line) = shortfall(run, a.format) {
            say(line);
        }
        if let Some(bps) = run.received_rate_bps() {
            say(format!(
                "received {} over the {:.3} s of sending (the receiver's rate, as iperf3's receiver line)",
                a.format.show(bps),
                run.sent_s
            ));
        }
        if let Some(got) = &run.received {
            say(format!(
                "--reverse: the sink at {target} sent and timed the gaps; received here {} buffers, {} bytes",
                got.buffers, got.bytes
            ));
        }
        if let Some(o) = &run.omitted {
            say(format!(
                "warm-up (-O {:.3}s, left out of the figures above): {} buffers sent, {} gaps{}",
                o.duration_s,
                o.buffers_sent,
                o.gaps,
                o.received
                    .map(|n| format!(", {n} received"))
                    .unwrap_or_default()
            ));
        }
    } else {
        eprintln!(
            "  {r} bit/s, {b} bit: {} buffers, {} gaps{}{}",
            run.buffers_sent,
            run.gaps.count(),
            shortfall(run, a.format)
                .map(|l| format!(" ({l})"))
                .unwrap_or_default(),
            run.partial
                .as_deref()
                .map(|p| format!(" (partial: {p})"))
                .unwrap_or_default()
        );
    }
}

/// The run as one JSON document (`--json`): with `--bidir` each direction's end as a one-way
/// run gives it; the interval lines (`intervals_on`: sent and received) and a forward TCP
/// run's lines at the sink.
fn print_document(
    a: &StreamArgs,
    target: SocketAddr,
    intervals_on: bool,
    runs: &[StreamRun],
    (intervals, received_intervals): (&[StreamInterval], &[ReceivedInterval]),
    failure: Option<&anyhow::Error>,
) -> Result<()> {
    if a.bidir && runs.len() == 2 {
        // One document, each direction's end as a one-way run gives it (as the pump's).
        let one = |run: &StreamRun, ivs: serde_json::Value| {
            let mut d = super::json::stream(std::slice::from_ref(run), &target.to_string());
            if intervals_on {
                d["end"]["intervals"] = ivs;
            }
            if !run.receiver_intervals.is_empty() {
                d["end"]["receiver_intervals"] =
                    serde_json::to_value(&run.receiver_intervals).unwrap_or_default();
            }
            d
        };
        let fwd = one(&runs[0], serde_json::to_value(intervals)?);
        let rev = one(&runs[1], serde_json::to_value(received_intervals)?);
        super::json::print_run(super::json::bidir(fwd, rev), failure)?;
    } else {
        let mut doc = super::json::stream(runs, &target.to_string());
        if intervals_on {
            doc["end"]["intervals"] = if a.reverse {
                serde_json::to_value(received_intervals)?
            } else {
                serde_json::to_value(intervals)?
            };
        }
        // Issue 75 §1: a forward TCP run's lines at the sink, by its clock (one test: -i
        // does not go with --sweep).
        if let Some(r) = runs.first().filter(|r| !r.receiver_intervals.is_empty()) {
            doc["end"]["receiver_intervals"] = serde_json::to_value(&r.receiver_intervals)?;
        }
        super::json::print_run(doc, failure)?;
    }
    Ok(())
}

/// The tests to run: RFC 508's Table I rates and buffers (or `--rates`/`--buffers`) with
/// `--sweep`, else the one `--rate` and `--buffer`.
fn tests_of(a: &StreamArgs) -> (Vec<u64>, Vec<u64>) {
    if a.sweep {
        (
            if a.rates.is_empty() {
                table1::RATES.to_vec()
            } else {
                a.rates.iter().map(|r| r.bps()).collect()
            },
            if a.buffers.is_empty() {
                table1::BUFFERS.to_vec()
            } else {
                a.buffers.iter().map(|b| b.get()).collect()
            },
        )
    } else {
        (vec![a.rate.bps()], vec![a.buffer.get()])
    }
}

/// The mark of a line in the warm-up (`-O`), left out of the figures.
fn omitted(o: bool) -> &'static str {
    if o { "  (omitted)" } else { "" }
}

/// A sent interval's line (`tag` names the direction with `--bidir`), with the sink's side
/// over UDP (issue 75 §1, as iperf3's receiver lines).
fn sent_line(tag: &str, iv: &StreamInterval, format: nmc_sim::RateFormat) -> String {
    let received = iv
        .receiver
        .as_ref()
        .map(|r| {
            format!(
                "  | received {} buffers {}  lost {}  out of order {}  jitter {}",
                r.buffers_received,
                format.show(r.rate_bit_per_s),
                r.lost,
                r.out_of_order,
                r.jitter_s
                    .map_or("-".to_string(), |j| format!("{:.3} ms", j * 1e3))
            )
        })
        .unwrap_or_default();
    format!(
        "{tag}[{:7.2}-{:7.2} s] {:>6} buffers {:>14}  gaps {}{}{received}{}",
        iv.start_s,
        iv.end_s,
        iv.buffers_sent,
        format.show(iv.rate_bit_per_s),
        iv.gaps,
        iv.longest_gap_s
            .map(|g| format!(" (longest {:.1} ms)", g * 1e3))
            .unwrap_or_default(),
        omitted(iv.omitted)
    )
}

/// A received interval's line (a reverse run's, this host receiving); over UDP, as iperf3's
/// lines, with lost, out of order and the jitter at the interval's end.
fn received_line(tag: &str, iv: &ReceivedInterval, format: nmc_sim::RateFormat) -> String {
    // Over UDP, as iperf3's lines: lost, out of order and the jitter at the interval's end.
    let udp = match (iv.lost, iv.out_of_order) {
        (Some(l), Some(o)) => format!(
            "  lost {l}  out of order {o}  jitter {}",
            iv.jitter_s
                .map_or("-".to_string(), |j| format!("{:.3} ms", j * 1e3))
        ),
        _ => String::new(),
    };
    format!(
        "{tag}[{:7.2}-{:7.2} s] {:>6} buffers {:>14}  received{udp}{}",
        iv.start_s,
        iv.end_s,
        iv.buffers_received,
        format.show(iv.rate_bit_per_s),
        omitted(iv.omitted)
    )
}
