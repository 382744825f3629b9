//! `nmc echo serve` and `nmc echo probe`: RFC 889 §2's delay-versus-length experiment on real
//! networks. The work is in `nmc-probe`; this file turns options into its types and prints.

use crate::Outcome;
use crate::cmd::gate::key_from;
use crate::cmd::progress::Progress;
use crate::cmd::units;
use anyhow::{Result, bail};
use clap::{Args, Subcommand};
use nmc_probe::report::{Summary, write_outputs};
use nmc_probe::time::Nanos;
use nmc_probe::udp::{DEFAULT_PORT, EchoServer, ServeOptions};
use nmc_probe::{LengthSpec, Pacing, ProbeConfig, ServerConfig};
use nmc_sim::SimDuration;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Subcommand)]
pub enum EchoCommand {
    /// Answer echo probes over UDP: same length back, server timestamps, rate limits, optional shared secret.
    Serve(ServeArgs),
    /// Measure delay against packet length to HOST, fit it, and write trace.csv, summary.json and a plot.
    Probe(ProbeArgs),
}

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    nmc echo serve\n  \
    nmc echo serve --listen 127.0.0.1:8890 --secret-file secret --rate 200/s --duration 10min\n\n\
A reply is never longer than its request. Bad, unauthenticated and over-rate packets are dropped \
and counted; a summary line goes to stderr every --log-every and at the end. Ctrl-C stops cleanly.")]
pub struct ServeArgs {
    /// Address and UDP port to listen on.
    #[arg(long, default_value_t = nmc_serve::bind::any(DEFAULT_PORT))]
    pub listen: SocketAddr,
    /// Answer only requests tagged with this shared secret (HMAC-SHA256; the file's bytes, surrounding whitespace removed; at least 16).
    #[arg(long, value_name = "FILE")]
    pub secret_file: Option<PathBuf>,
    #[command(flatten)]
    pub limits: EchoLimits,
    /// Print a summary line this often: 60s, or a bare number of seconds (`0`: only at the end).
    #[arg(long, default_value = "60s", value_parser = units::duration)]
    pub log_every: SimDuration,
    /// Stop by itself after this long: 10min, or a bare number of seconds.
    #[arg(long, value_parser = units::duration)]
    pub duration: Option<SimDuration>,
    /// Also serve `nmc pump`: acknowledge each message with a RFNM, over UDP on this port and TCP on the same port number (with --secret-file: the TCP challenge, and a tag on every UDP datagram).
    #[arg(long)]
    pub pump: bool,
    #[command(flatten)]
    pub gate: crate::cmd::gate::GateArgs,
}

/// The echo server's own limits, shared by `nmc echo serve` and `nmc serve`.
#[derive(Args)]
pub struct EchoLimits {
    /// Echo replies per second to one source address (token bucket).
    #[arg(long, default_value = "100/s", value_parser = parse_per_second)]
    pub rate: f64,
    /// Echo replies one source may get back to back (the bucket's depth).
    #[arg(long, default_value_t = 200)]
    pub burst: u32,
    /// Echo replies per second over all sources together.
    #[arg(long, default_value = "2000/s", value_parser = parse_per_second)]
    pub global_rate: f64,
    /// Largest UDP payload an echo reply is sent for, bytes.
    #[arg(long, default_value_t = 1472)]
    pub max_payload: usize,
}

impl EchoLimits {
    /// The echo core's configuration; a secret (`keyed`) makes tags required. `--max-payload`
    /// must hold an echo header and fit a UDP datagram (issue 57 §6: 0 was taken, and every
    /// request then went unanswered).
    pub fn config(&self, keyed: bool) -> Result<ServerConfig> {
        let (lo, hi) = (
            nmc_probe::wire::HEADER_LEN,
            nmc_probe::wire::MAX_UDP_PAYLOAD,
        );
        if !(lo..=hi).contains(&self.max_payload) {
            bail!(
                "--max-payload {}: must be {lo} to {hi} bytes (an echo header to the largest UDP payload)",
                self.max_payload
            );
        }
        Ok(ServerConfig {
            max_payload: self.max_payload,
            rate_per_source: self.rate,
            burst_per_source: f64::from(self.burst.max(1)),
            global_rate: self.global_rate,
            global_burst: (self.global_rate * 2.0).max(1.0),
            require_tag: keyed,
            ..ServerConfig::default()
        })
    }
}

/// A `--log-every` or `--duration` as the server's `Duration`s (`0s` log interval: none).
pub fn serve_times(
    log_every: SimDuration,
    duration: Option<SimDuration>,
) -> (Option<std::time::Duration>, Option<std::time::Duration>) {
    (
        (!log_every.is_zero()).then(|| std::time::Duration::from_nanos(log_every.as_nanos())),
        duration.map(|d| std::time::Duration::from_nanos(d.as_nanos())),
    )
}

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    nmc echo probe 127.0.0.1                       # RFC 889: 512 volleys, 0..256 bytes, one in flight\n  \
    nmc echo probe example.net:8890 --count 100 --length 256 --interval 100ms\n  \
    nmc echo probe 192.0.2.7 --icmp --out out/ping # ICMP Echo (ping socket or root)\n  \
    nmc echo probe 2001:db8::7 --icmp              # ICMPv6 Echo\n  \
    nmc echo probe a.example b.example --count 100 # several at once, a table at the end (as fping)\n\n\
Lengths are whole IP datagrams (IP + UDP/ICMP header + payload); those below the floor are \
rounded up to it (40, Mills' minimum; 60 over UDP or ICMPv6, 76 with a secret). Delays are one-way-normalised, \
round trip / 2, as RFC 889 reports them. Writes trace.csv (send_time_ns,length_bytes,delay_ns,seq,\
rtt_ns,server_turnaround_ns), summary.json and delay-vs-length.svg; `nmc rto evaluate` reads \
trace.csv as it is (it uses the rtt_ns column). Gives up on a host that never answers after \
--open-timeout (10 s). Exit 0 when the run completed, 2 on bad input, 3 when nothing answered, \
5 when stopped by the user (what was measured is written); with -J the document is printed \
whatever happens, with \"error\" on failure.")]
pub struct ProbeArgs {
    /// HOST, HOST:PORT or `[IPv6]:PORT` (default port 8890; the port is ignored with --icmp).
    /// Several: each probed at once, as fping does, each into its own folder, and a table of
    /// all at the end.
    #[arg(required = true, num_args = 1..)]
    pub target: Vec<String>,
    /// Volleys in the run (RFC 889: 512).
    #[arg(short = 'c', long, default_value_t = 512)]
    pub count: u32,
    /// Lengths uniform on LO..HI bytes, both ends included (RFC 889: 0..256, rounded up to 40).
    #[arg(long, default_value = "0..256", value_parser = parse_lengths, conflicts_with = "length")]
    pub lengths: LengthSpec,
    /// Every volley this many bytes instead.
    #[arg(long)]
    pub length: Option<u32>,
    /// Send a volley every INTERVAL whatever the replies (100ms, or a bare number of seconds as
    /// ping -i 0.1); without it, one volley in flight (as the Fuzzball did).
    #[arg(long, value_parser = units::duration, conflicts_with = "gap")]
    pub interval: Option<SimDuration>,
    /// With one volley in flight, never send two volleys closer than this (keeps a fast path
    /// under the server's default 100/s): 10ms, or a bare number of seconds.
    #[arg(long, default_value = "10ms", value_parser = units::duration)]
    pub gap: SimDuration,
    /// A volley unanswered this long is lost (RFC 889: 30 s): 30s, 500ms, or a bare number of
    /// seconds.
    #[arg(long, default_value = "30s", value_parser = units::duration)]
    pub timeout: SimDuration,
    /// Give up when nothing has answered this long after the first volley (issue 58: the
    /// default 512 volleys at 30 s each took hours to report a silent host; irtt waits 15 s);
    /// also after 10 volleys lost with none answered. 10s, or a bare number of seconds; `0`:
    /// never give up.
    #[arg(long, default_value = "10s", value_parser = units::duration)]
    pub open_timeout: SimDuration,
    /// Tag requests with this shared secret and accept only replies tagged with it (UDP only).
    #[arg(long, value_name = "FILE", conflicts_with = "icmp")]
    pub secret_file: Option<PathBuf>,
    #[command(flatten)]
    pub family: super::Family,
    #[command(flatten)]
    pub dial: super::DialArgs,
    /// Send ICMP Echo instead of UDP (ICMPv6 Echo to an IPv6 address): any host that answers
    /// ping, no server needed.
    #[arg(long)]
    pub icmp: bool,
    /// Seed of the length generator (recorded in summary.json).
    #[arg(long, default_value_t = 889)]
    pub seed: u64,
    /// Also fit two lines split at this length (RFC 889: 126 octets on ARPANET paths); 0 for none.
    #[arg(long = "break", value_name = "BYTES", default_value_t = 126)]
    pub break_at: u32,
    /// Output folder (default: `out/echo/<target>`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print one JSON document on stdout (schema nmc-instrument/2, as the book's
    /// docs/src/reference/outputs.md describes) instead of the text report; the files are written as usual.
    #[arg(short = 'J', long)]
    pub json: bool,
    /// Print a line every D while running: volleys sent, answered and lost in that interval
    /// and the round trips' min/mean/max (as fping -Q and iperf3 -i do; --interval is the
    /// volleys' spacing, as in ping); e.g. 1s, or 1 (a bare number is seconds). On stderr with
    /// --json, whose document then
    /// carries them as end.intervals.
    #[arg(long, value_name = "D", value_parser = units::duration)]
    pub report_interval: Option<SimDuration>,
    /// Print a line for each reply as it comes (as irtt's and ping's per-packet lines): its
    /// sequence number, length, round trip, and over UDP the way up and down by the server's
    /// clock and the round trip's change from the volley before. On stderr with --json.
    #[arg(long)]
    pub per_reply: bool,
}

fn parse_per_second(s: &str) -> Result<f64, String> {
    nmc_sim::parse_per_second(s).map_err(|e| e.to_string())
}

fn parse_lengths(s: &str) -> Result<LengthSpec, String> {
    LengthSpec::parse(s).map_err(|e| e.to_string())
}

pub fn run(c: EchoCommand) -> Result<Outcome> {
    match c {
        EchoCommand::Serve(a) => serve(a),
        EchoCommand::Probe(a) => probe(a),
    }
}

fn serve(a: ServeArgs) -> Result<Outcome> {
    let key = key_from(&a.secret_file)?;
    let (log_interval, duration) = serve_times(a.log_every, a.duration);
    let opts = ServeOptions {
        config: a.limits.config(key.is_some())?,
        key,
        log_interval,
        duration,
        pump: a.pump,
        limits: a.gate.limits()?,
        services: Default::default(),
    };
    let server = EchoServer::bind(a.listen, opts)?;
    let stop = nmc_probe::signal::stop_on_signals()?;
    server.run(stop, &mut |line| eprintln!("{line}"))?;
    Ok(Outcome::Ok)
}

/// One target's run (`several`: one of several probed at once, its lines prefixed with its
/// name and its bar among the others): everything a run prints and writes; its summary, if it
/// got that far, beside its outcome.
fn probe_one(
    a: &ProbeArgs,
    target: &str,
    several: Option<&indicatif::MultiProgress>,
) -> (Option<Summary>, Result<Outcome>) {
    let mut kept = None;
    let r = probe_target(a, target, several, &mut kept);
    (kept, r)
}

fn probe_target(
    a: &ProbeArgs,
    target: &str,
    several: Option<&indicatif::MultiProgress>,
    kept: &mut Option<Summary>,
) -> Result<Outcome> {
    let every = a
        .report_interval
        .map(|d| std::time::Duration::from_nanos(d.as_nanos()));
    // Issue 74 §4: every interval has a floor, as the pump's.
    if let Some(d) = a.report_interval
        && d.as_nanos() < 1_000_000
    {
        bail!("--report-interval {d}: at least 1ms, e.g. 1s");
    }
    if a.count == 0 {
        bail!("--count must be at least 1");
    }
    let key = key_from(&a.secret_file)?;
    // --icmp to an IPv6 address sends ICMPv6 Echo.
    let addr = super::resolve_target(target, DEFAULT_PORT, a.family)?;
    let cfg = probe_config(a, addr, key.is_some())?;
    if !a.icmp {
        a.dial.check(addr, false)?;
    }
    super::json::begin();
    let target_label = if a.icmp {
        addr.ip().to_string()
    } else {
        addr.to_string()
    };
    eprintln!(
        "{}",
        nmc_probe::report::plan_line(&cfg, &target_label, a.icmp)
    );
    let out = a
        .out
        .clone()
        .map(|o| match several {
            Some(_) => o.join(super::folder_name(&target_label)),
            None => o,
        })
        .unwrap_or_else(|| PathBuf::from("out/echo").join(super::folder_name(&target_label)));
    // Several targets: each line names its own.
    let tag = match several {
        Some(_) => format!("[{target_label}] "),
        None => String::new(),
    };
    // Issue 33: the folder is ours (a second run into it is refused) from the first volley;
    // the files are written beside it and put in place whole.
    let dir = nmc_report::OutDir::begin(&out)?;
    let stop = nmc_probe::signal::stop_on_signals()?;
    let progress = match several {
        Some(m) => Progress::new_in(m, &target_label),
        None => Progress::new(&target_label),
    };
    let mut tick = |sent: usize, total: usize| progress.set(sent as f64 / total.max(1) as f64);
    // Issue 34: interval lines, kept for the JSON document's `end.intervals` too.
    let mut intervals: Vec<nmc_probe::IntervalLine> = Vec::new();
    let mut on_line = |l: &nmc_probe::IntervalLine| {
        let text = format!("{tag}{}", nmc_probe::report::interval_text(l));
        if a.json {
            eprintln!("{text}");
        } else {
            outln!("{text}");
        }
        intervals.push(l.clone());
    };
    // Issue 75 §5: a line per reply, as irtt prints them.
    let mut replies = nmc_probe::report::ReplyLines::default();
    let mut on_reply = |v: &nmc_probe::probe::Volley, origin: i128| {
        let Some(line) = replies.line(v, origin) else {
            return;
        };
        let text = format!("{tag}{line}");
        if a.json {
            eprintln!("{text}");
        } else {
            outln!("{text}");
        }
    };
    // The lines take the place of the progress bar, as in iperf3.
    let lines = every.is_some() || a.per_reply;
    let watch = nmc_probe::Watch {
        progress: (!lines).then_some(&mut tick as &mut dyn FnMut(usize, usize)),
        intervals: every.map(|d| (d, &mut on_line as &mut dyn FnMut(&nmc_probe::IntervalLine))),
        replies: a
            .per_reply
            .then_some(&mut on_reply as &mut dyn FnMut(&nmc_probe::probe::Volley, i128)),
    };
    let run = run_transport(a, addr, cfg, key, stop, watch)?;
    progress.finish();
    let summary = Summary::of(run, (a.break_at > 0).then_some(a.break_at));
    if !a.json {
        out!("{}", summary.text());
    }
    *kept = Some(summary.clone());
    let written = write_outputs(dir.path(), &summary)?;
    let files = nmc_probe::report::Outputs {
        trace: dir.final_path(&written.trace),
        summary: dir.final_path(&written.summary),
        plot: dir.final_path(&written.plot),
    };
    dir.commit()?;
    // Issue 33: a measurement with no valid sample is not a success. Issue 58 §3: that is a
    // host that cannot be reached (exit 3); a run stopped by the user keeps what it measured
    // (exit 5); the JSON document, printed either way, says which.
    let c = summary.run.counters;
    let failure = if c.answered == 0 {
        Some(super::exit::unreachable(nothing_answered(a, &summary)))
    } else if summary.run.interrupted && stop.load(std::sync::atomic::Ordering::Relaxed) {
        Some(super::exit::stopped(format!(
            "stopped by the user after {} of {} volleys: what was measured is printed and written",
            c.sent, a.count
        )))
    } else {
        None
    };
    if a.json {
        let mut doc = super::json::probe(&summary);
        if every.is_some() {
            doc["end"]["intervals"] = super::json::probe_intervals(&intervals);
        }
        super::json::print_run(doc, failure.as_ref())?;
    } else {
        outln!(
            "wrote {}, {} and {}",
            super::shown(&files.trace),
            super::shown(&files.summary),
            super::shown(&files.plot),
        );
        // A trace with no answered volley has nothing for the estimators to replay.
        if c.answered > 0 {
            outln!(
                "replay it through the timeout estimators: nmc rto evaluate {}",
                super::shown(&files.trace)
            );
        }
    }
    match failure {
        Some(f) => Err(f),
        None => Ok(Outcome::Ok),
    }
}

/// The probe's plan from the options: lengths, pacing, timeouts and the transport's length
/// limits for `addr`, checked before anything is said or sent.
fn probe_config(a: &ProbeArgs, addr: SocketAddr, keyed: bool) -> Result<ProbeConfig> {
    let lengths = match a.length {
        Some(length) => LengthSpec::Fixed { length },
        None => a.lengths,
    };
    let pacing = match a.interval {
        Some(i) => Pacing::Interval {
            interval_ns: Nanos(i.as_nanos()),
        },
        None => Pacing::OneInFlight {
            gap_ns: Nanos(a.gap.as_nanos()),
        },
    };
    let (floor, max_length) = if a.icmp {
        nmc_probe::icmp::length_limits(addr.ip())
    } else {
        nmc_probe::udp::length_limits(&addr, keyed)
    };
    let cfg = ProbeConfig {
        count: a.count,
        lengths,
        pacing,
        timeout: Nanos(a.timeout.as_nanos()),
        seed: a.seed,
        floor,
        max_length,
        open_timeout: (!a.open_timeout.is_zero()).then(|| Nanos(a.open_timeout.as_nanos())),
        silent_losses: (!a.open_timeout.is_zero()).then_some(nmc_probe::probe::SILENT_LOSSES),
    };
    // The lengths against the transport.
    nmc_probe::probe::Probe::new(cfg.clone()).map_err(|e| match e {
        nmc_probe::probe::ProbeError::TooMany { .. } => anyhow::anyhow!("--count: {e}"),
        e => e.into(),
    })?;
    Ok(cfg)
}

/// One run of the probe over its transport: ICMP Echo, or UDP to nmc's server (on a socket
/// made with the dial options when there are any, issue 58 §7).
fn run_transport(
    a: &ProbeArgs,
    addr: SocketAddr,
    cfg: ProbeConfig,
    key: Option<nmc_serve::Key>,
    stop: &'static std::sync::atomic::AtomicBool,
    watch: nmc_probe::Watch<'_>,
) -> Result<nmc_probe::ProbeRun> {
    Ok(if a.icmp {
        nmc_probe::icmp::probe_dialed(addr.ip(), &a.dial.dial(), cfg, stop, watch)?
    } else {
        let dial = a.dial.dial();
        if dial.is_plain() {
            nmc_probe::udp::probe(addr, cfg, key, stop, watch)?
        } else {
            // Issue 58 §7: the socket made with the options, then the same run on it.
            let sock = dial.udp(addr).map_err(|e| match e {
                nmc_serve::dial::DialError::Option(m) => anyhow::anyhow!(m),
                nmc_serve::dial::DialError::Connect(e) => {
                    super::exit::unreachable(format!("cannot reach {addr}: {e}"))
                }
            })?;
            nmc_probe::udp::probe_on(sock, cfg, key, stop, watch)?
        }
    })
}

/// `nmc echo probe`: one target as ever; several probed at once, each as one is, then a table.
fn probe(a: ProbeArgs) -> Result<Outcome> {
    if let [target] = &a.target[..] {
        return probe_one(&a, target, None).1;
    }
    if a.json {
        bail!(
            "-J takes one target ({} given): run once per target, or read each folder's summary.json",
            a.target.len()
        );
    }
    if let Some(t) = a
        .target
        .iter()
        .enumerate()
        .find_map(|(i, t)| a.target[..i].contains(t).then_some(t))
    {
        bail!("target {t} is given twice: each target once");
    }
    let multi = indicatif::MultiProgress::new();
    let done: Vec<(String, Option<Summary>, Result<Outcome>)> = std::thread::scope(|sc| {
        let runs: Vec<_> = a
            .target
            .iter()
            .map(|t| {
                let (a, multi) = (&a, &multi);
                sc.spawn(move || probe_one(a, t, Some(multi)))
            })
            .collect();
        a.target
            .iter()
            .zip(runs)
            .map(|(t, h)| {
                let (s, r) = h.join().unwrap_or_else(|_| {
                    (
                        None,
                        Err(anyhow::anyhow!("{t}: the probe's thread panicked")),
                    )
                });
                (t.clone(), s, r)
            })
            .collect()
    });
    outln!("{}", several_table(&done));
    // The first failure, named by its target, decides the exit status (each was printed).
    match done
        .into_iter()
        .find_map(|(t, _, r)| r.err().map(|e| (t, e)))
    {
        Some((t, e)) => Err(e.context(format!("target {t}"))),
        None => Ok(Outcome::Ok),
    }
}

/// The table after several targets: one line each, as fping's summary.
fn several_table(done: &[(String, Option<Summary>, Result<Outcome>)]) -> String {
    let ms = |ns: f64| ns / 1e6;
    let mut s = String::from(
        "target                         sent  answered  lost %   rtt min / median / mean / max ms         IPDV mean ms  jitter ms\n",
    );
    for (t, sum, r) in done {
        let Some(sum) = sum else {
            let why = r
                .as_ref()
                .err()
                .map_or("no result".to_string(), |e| e.to_string());
            s += &format!("{t:<30} {why}\n");
            continue;
        };
        let rtt = sum.rtt.as_ref().map_or("-".to_string(), |d| {
            format!(
                "{:.3} / {:.3} / {:.3} / {:.3}",
                ms(d.min_ns as f64),
                ms(d.median_ns as f64),
                ms(d.mean_ns),
                ms(d.max_ns as f64)
            )
        });
        let (ipdv, jitter) =
            sum.variation
                .as_ref()
                .map_or(("-".to_string(), "-".to_string()), |v| {
                    (
                        format!("{:.3}", ms(v.ipdv.mean_ns)),
                        format!("{:.3}", ms(v.jitter_ns)),
                    )
                });
        s += &format!(
            "{t:<30} {:>5} {:>9} {:>6.2}   {rtt:<40} {ipdv:>12} {jitter:>10}\n",
            sum.run.counters.sent,
            sum.answered,
            100.0 * sum.loss_fraction
        );
    }
    s.trim_end().to_string()
}

/// The one line for a run in which no volley was answered: why it ended, its counts, and the
/// likely cause.
fn nothing_answered(a: &ProbeArgs, summary: &Summary) -> String {
    let c = summary.run.counters;
    let hint = if c.icmp_errors > 0 {
        "; port unreachable: is an echo server listening there?".to_string()
    } else if a.secret_file.is_none() {
        "; a server with a secret answers only requests tagged with it: give it with --secret-file"
            .to_string()
    } else {
        format!(
            "; a server with a secret answers only requests tagged with the same one and sent within {} s of its own clock: are the secrets the same, and both clocks set (NTP)?",
            nmc_probe::wire::FRESHNESS.as_secs()
        )
    };
    let why = match summary.run.gave_up {
        Some(nmc_probe::probe::GiveUp::OpenTimeout { after_ns }) => format!(
            "nothing answered within {} of the first volley (--open-timeout): gave up",
            after_ns.human()
        ),
        Some(nmc_probe::probe::GiveUp::SilentLosses { lost }) => {
            format!("{lost} volleys lost and none answered: gave up")
        }
        None => "no volley was answered".to_string(),
    };
    format!(
        "{why} ({} sent, {} lost, {} ICMP errors{hint}): nothing was measured",
        c.sent, c.lost, c.icmp_errors,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_split() {
        let s = |t: &str| crate::cmd::split_target(t).unwrap();
        assert_eq!(s("127.0.0.1"), ("127.0.0.1".into(), None));
        assert_eq!(s("127.0.0.1:9000"), ("127.0.0.1".into(), Some(9000)));
        assert_eq!(s("localhost:9000"), ("localhost".into(), Some(9000)));
        assert_eq!(s("::1"), ("::1".into(), None));
        assert_eq!(s("[::1]:9000"), ("::1".into(), Some(9000)));
        assert!(crate::cmd::split_target("host:http").is_err());
    }

    #[test]
    fn rates_parse() {
        assert_eq!(parse_per_second("50/s").unwrap(), 50.0);
        assert_eq!(parse_per_second("2.5").unwrap(), 2.5);
        assert!(parse_per_second("fast").is_err());
        assert!(parse_per_second("0/s").is_err());
    }
}
