//! `nmc cost`: RFC 392's host cost per bit, measured on this host today. The work is in
//! `nmc_cost::live` (sockets, `getrusage`) and `nmc_cost::table` (RFC 392's columns); this file
//! turns options into a plan, runs it and prints.

use crate::Outcome;
use anyhow::{Context, Result, bail};
use clap::Args;
use nmc_cost::live::{self, Measured, Plan, Proto, SinkConfig, TcpSink};
use nmc_cost::table;
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Default price of one vCPU-hour, $: AWS EC2 on-demand, us-east-1, m7g.large (2 vCPUs, Linux)
/// at $0.0816 per hour as listed in June 2026 (FactualMinds, "Amazon EC2 On-Demand Pricing:
/// Instance Families, Regional Multipliers, and the Graviton Crossover (2026)"), so $0.0408 per
/// vCPU-hour. Override with --price-per-cpu-hour.
pub const DEFAULT_PRICE_PER_CPU_HOUR: f64 = 0.0408;

/// The sink's default port (TCP and UDP).
pub const DEFAULT_PORT: u16 = nmc_probe::udp::DEFAULT_PORT;

/// The largest transfer `nmc cost` accepts: 16 GiB (larger is taken as a typing error).
pub const MAX_TRANSFER: u64 = 16 << 30;

/// The most transfers one `nmc cost` runs: (transports × sizes × write sizes) × `--repeat`,
/// checked before the plan is made (issue 57 §3: `--repeat 4294967295` aborted allocating the
/// list of 3 GB). A choice: 100,000 is over 2,000 times the default plan's 42 transfers, and at
/// even a millisecond each (a connection set-up) a bigger plan is a typing error, not a run.
pub const MAX_TRANSFERS: u64 = 100_000;

#[derive(Args)]
#[command(after_help = "Examples:\n  \
    nmc cost                                   # loopback: a sink in this process, TCP and UDP\n  \
    nmc cost --sizes 219,56280,10MiB --write-sizes 1,64KiB --proto tcp\n  \
    nmc serve                                  # on the far host: every instrument's server\n  \
    nmc cost far.example.net                   # here: send to it (port 8890)\n\n\
Sizes are bytes, or take a unit as scenario files do: kB, MB, GB (decimal) or KiB, MiB, GiB \
(binary); iperf3's K, M, G are binary (64K = 64KiB), as iperf3 reads -l. Each TCP transfer is one connection (its set-up is \
the per-transfer fixed cost, as RFC 392's RJS job set-up was); CPU is getrusage(RUSAGE_THREAD) of \
the sending thread and of the sink's receiving thread (the sink reports it back over TCP). Prints \
RFC 392's columns (clock time, CPU time, bytes s/r, bits/s, µs/bit, 5-minute load) with ns/bit \
and $ per 10^6 bits, then 1972's Utah figures beside today's. A remote UDP run first sends one \
request the sink answers (`nmc serve` and `nmc cost --serve` do) and fails in one line if none \
comes back within 5 s: nothing there, a firewall, or a sink with a secret, which UDP transfers \
cannot carry. Ctrl-C ends the run within 100 ms: the transfer under way is abandoned (a part \
of a transfer is no row) and the finished ones are printed. Exit 0 when the run completed, \
2 on bad input or a failed transfer, 3 when the sink cannot be reached or refuses, 5 when \
stopped by the user (what was measured is printed); with -J the document is printed whatever \
happens, with \"error\" on failure.")]
pub struct CostArgs {
    /// `HOST[:PORT]` of a sink started with `nmc cost --serve` (default port 8890); without it, a
    /// sink on loopback in this process.
    pub target: Option<String>,
    /// Run the discard sink (TCP and UDP on the same port) instead of measuring.
    #[arg(long, conflicts_with = "target")]
    pub serve: bool,
    /// With --serve: the address and port to listen on.
    #[arg(long, default_value_t = nmc_serve::bind::any(DEFAULT_PORT))]
    pub listen: SocketAddr,
    /// With --serve: stop by itself after this long, e.g. 10min, or a bare number of seconds.
    #[arg(long, value_parser = crate::cmd::units::duration)]
    pub duration: Option<nmc_sim::SimDuration>,
    /// With --serve: admit only TCP clients that prove they hold this shared secret (HMAC-SHA256
    /// challenge; the UDP side is then not served). Sending: answer the sink's challenge (TCP only).
    #[arg(long, value_name = "FILE")]
    pub secret_file: Option<PathBuf>,
    #[command(flatten)]
    pub family: super::Family,
    #[command(flatten)]
    pub gate: crate::cmd::gate::GateArgs,
    /// Transfer sizes, bytes or with a unit (10MiB, 10MB, iperf3's 10M = 10MiB) (default: RFC
    /// 392's smallest, a short receive, a typical send, the largest transfer, then 10 MiB and 100
    /// MiB).
    #[arg(long, value_delimiter = ',', value_parser = parse_size, default_value = "219,845,18930,56280,473489,10MiB,100MiB")]
    pub sizes: Vec<u64>,
    /// Bytes per write (TCP) or datagram (UDP, at most 65507), as --sizes takes them (64KiB,
    /// 64K): 1 byte is TENEX BOUT's analogue.
    #[arg(long, value_delimiter = ',', value_parser = parse_write_size, default_value = "1,1KiB,64KiB")]
    pub write_sizes: Vec<u64>,
    /// Transports to measure: tcp, udp.
    #[arg(long, value_delimiter = ',', value_parser = parse_proto, default_value = "tcp,udp")]
    pub proto: Vec<Proto>,
    /// Transfers per (transport, size, write size).
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Skip combinations needing more than this many write calls (1-byte writes of 100 MiB).
    #[arg(long, default_value_t = 1_000_000)]
    pub max_calls: u64,
    /// Price of one CPU hour today, $ (default: an AWS on-demand vCPU-hour, June 2026).
    #[arg(long, default_value_t = DEFAULT_PRICE_PER_CPU_HOUR)]
    pub price_per_cpu_hour: f64,
    /// Write every transfer to this CSV file too.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print one JSON document on stdout (schema nmc-instrument/2: the book's
    /// docs/src/reference/outputs.md) instead of the text report, which goes to stderr.
    #[arg(short = 'J', long)]
    pub json: bool,
}

fn parse_size(s: &str) -> Result<u64, String> {
    // Issue 32: the one size parser (`nmc_sim::parse_bytes`), as scenario files read sizes.
    let v = crate::cmd::units::size(s)?;
    if v == 0 {
        return Err(format!("`{s}`: a transfer must be at least 1 byte"));
    }
    if v > MAX_TRANSFER {
        return Err(format!("`{s}` is absurd: more than 16GiB in one transfer"));
    }
    Ok(v)
}

fn parse_write_size(s: &str) -> Result<u64, String> {
    let v = parse_size(s)?;
    if v > live::BUF_BYTES as u64 {
        return Err(format!(
            "`{s}`: writes are at most 64KiB (65536 bytes; a UDP datagram carries at most 65507, and a larger write is sent as 65507)"
        ));
    }
    Ok(v)
}

fn parse_proto(s: &str) -> Result<Proto, String> {
    match s.trim() {
        "tcp" => Ok(Proto::Tcp),
        "udp" => Ok(Proto::Udp),
        _ => Err(format!("`{s}`: expected tcp or udp")),
    }
}

/// The address this host's packets to `to` leave from (port 0), as the kernel routes them: a
/// UDP socket connected to it (the clients' own, `nmc_serve::dial`), which sends nothing.
fn leaves_from(to: SocketAddr) -> Option<SocketAddr> {
    let u = nmc_serve::dial::Dial::default().udp(to).ok()?;
    Some(SocketAddr::new(u.local_addr().ok()?.ip(), 0))
}

pub fn run(a: CostArgs) -> Result<Outcome> {
    if a.serve {
        return serve(&a);
    }
    if !(a.price_per_cpu_hour.is_finite() && a.price_per_cpu_hour > 0.0) {
        bail!("--price-per-cpu-hour must be a positive number of dollars");
    }
    if a.repeat == 0 {
        bail!("--repeat must be at least 1");
    }
    let combinations = [a.proto.len(), a.sizes.len(), a.write_sizes.len()]
        .map(|n| n as u64)
        .iter()
        .fold(1u64, |p, &n| p.saturating_mul(n));
    nmc_sim::limits::product(
        &format!(
            "--repeat {} × {combinations} (transport, size, write size) combinations",
            a.repeat
        ),
        [combinations, u64::from(a.repeat)],
        MAX_TRANSFERS,
        " transfers",
    )?;
    let remote = a
        .target
        .as_deref()
        .map(|t| super::resolve_target(t, DEFAULT_PORT, a.family))
        .transpose()?;
    if a.secret_file.is_some() && remote.is_none() {
        bail!(
            "--secret-file goes with a remote sink (TARGET) or --serve; the loopback sink needs none"
        );
    }
    if a.secret_file.is_some() && a.proto.contains(&Proto::Udp) {
        bail!(
            "--secret-file: UDP transfers carry no tag and a sink with a secret takes none; add --proto tcp"
        );
    }
    let key = crate::cmd::gate::key_from(&a.secret_file)?;
    super::json::begin();
    let local = match remote {
        Some(_) => None,
        None => Some(TcpSink::start(
            SocketAddr::from(([127, 0, 0, 1], 0)),
            SinkConfig::default(),
            None,
        )?),
    };
    let tcp_addr = remote.unwrap_or_else(|| local.as_ref().expect("local sink").addr);
    let plan = Plan {
        protos: a.proto.clone(),
        sizes: a.sizes.clone(),
        write_sizes: a.write_sizes.iter().map(|&w| w as usize).collect(),
        repeat: a.repeat,
        max_calls: a.max_calls,
    };
    let (cells, skipped) = plan.cells();
    if cells.is_empty() {
        bail!(
            "nothing to measure: every combination needs more than --max-calls {} write calls",
            a.max_calls
        );
    }
    // The report on stdout, or on stderr with --json (stdout then holds the document alone).
    let say = |text: String| {
        if a.json {
            eprintln!("{text}")
        } else {
            outln!("{text}")
        }
    };
    say(format!(
        "nmc cost: sink {} ({}); {} transfers; price ${} per CPU hour",
        tcp_addr,
        if remote.is_some() {
            "remote: receiver CPU from its TCP report; UDP sender only"
        } else {
            "loopback, in this process"
        },
        cells.len(),
        a.price_per_cpu_hour
    ));
    if !skipped.is_empty() {
        let s: Vec<String> = skipped
            .iter()
            .map(|c| {
                format!(
                    "{} {} B in {}-byte writes",
                    c.proto.name(),
                    c.bytes,
                    c.write_size
                )
            })
            .collect();
        say(format!(
            "skipped (more than --max-calls {} calls): {}",
            a.max_calls,
            s.join(", ")
        ));
    }
    // Issue 58 §1: a remote UDP run opens with an exchange the sink answers, or fails here.
    if let Some(target) = remote
        && cells.iter().any(|c| c.proto == Proto::Udp)
    {
        open_udp(target)?;
    }
    let start_unix_s = super::json::unix_now();
    let stop = nmc_probe::signal::stop_on_signals()?;
    let live::CellsRun { measured, stopped } =
        live::run_cells(&cells, tcp_addr, remote, key.as_ref(), stop)?;
    if stopped && measured.is_empty() {
        return Err(super::exit::stopped(
            "stopped by the user before the first transfer ended: nothing was measured",
        ));
    }
    let failure = stopped.then(|| {
        super::exit::stopped(format!(
            "stopped by the user after {} of {} transfers: what was measured is printed{}",
            measured.len(),
            cells.len(),
            if a.out.is_some() { " and written" } else { "" }
        ))
    });
    table::today_and_1972(&measured, a.price_per_cpu_hour)
        .into_iter()
        .for_each(say);
    if let Some(path) = &a.out {
        // Its error names the file already (issue 57 §6: it was said twice, and "writing" thrice).
        nmc_report::records::write_csv(path, &csv_rows(&measured, a.price_per_cpu_hour))?;
        say(format!("\nwrote {}", super::shown(path)));
    }
    if a.json {
        print_json(
            &a,
            &plan,
            &measured,
            tcp_addr,
            start_unix_s,
            stopped,
            failure.as_ref(),
        )?;
    }
    match failure {
        Some(f) => Err(f),
        None => Ok(Outcome::Ok),
    }
}

/// The run as one JSON document (`--json`): each transfer's figures, the plan, this host's end.
fn print_json(
    a: &CostArgs,
    plan: &Plan,
    measured: &[Measured],
    tcp_addr: SocketAddr,
    start_unix_s: f64,
    stopped: bool,
    failure: Option<&anyhow::Error>,
) -> Result<()> {
    let rows = csv_rows(measured, a.price_per_cpu_hour);
    let transfers: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "proto": r.proto,
                "transfer_bytes": r.bytes,
                "write_bytes": r.write_size,
                "calls": r.calls,
                "clock_s": r.clock_s,
                "sender_cpu_s": r.sender_cpu_s,
                "sender_cpu_s_per_bit": r.sender_us_per_bit / 1e6,
                "receiver_cpu_s": r.receiver_cpu_s,
                "receiver_cpu_s_per_bit": r.receiver_us_per_bit.map(|u| u / 1e6),
                "received_bytes": r.received,
                "throughput_bit_per_s": r.bits_per_s,
                "sender_dollars_per_megabit": r.sender_dollars_per_megabit,
            })
        })
        .collect();
    let mut doc = super::json::document(
        "nmc cost",
        &tcp_addr.to_string(),
        Some(start_unix_s),
        stopped,
        serde_json::json!({ "transfers": transfers }),
    );
    doc["parameters"] = super::json::cost_parameters(plan, a.price_per_cpu_hour);
    // Issue 58 §4: this host's end. Each transfer has a connection of its own, so the port
    // is 0: the address its transfers leave from, as the kernel routes to the sink (a UDP
    // socket connected to it, which sends nothing).
    doc["local"] = serde_json::json!(leaves_from(tcp_addr).map(|a| a.to_string()));
    super::json::print_run(doc, failure)
}

#[derive(serde::Serialize)]
struct CsvRow {
    proto: &'static str,
    bytes: u64,
    write_size: usize,
    calls: u64,
    clock_s: f64,
    sender_cpu_s: f64,
    sender_user_s: f64,
    sender_sys_s: f64,
    sender_us_per_bit: f64,
    receiver_cpu_s: Option<f64>,
    receiver_user_s: Option<f64>,
    receiver_sys_s: Option<f64>,
    received: Option<u64>,
    receiver_us_per_bit: Option<f64>,
    bits_per_s: f64,
    sender_dollars_per_megabit: f64,
    load5: Option<f64>,
}

fn csv_rows(ms: &[Measured], price: f64) -> Vec<CsvRow> {
    ms.iter()
        .map(|m| CsvRow {
            proto: m.proto.name(),
            bytes: m.bytes,
            write_size: m.write_size,
            calls: m.calls,
            clock_s: m.clock_ns as f64 / 1e9,
            sender_cpu_s: m.sender.total_ns as f64 / 1e9,
            sender_user_s: m.sender.user_ns as f64 / 1e9,
            sender_sys_s: m.sender.sys_ns as f64 / 1e9,
            sender_us_per_bit: m.sender_us_per_bit(),
            receiver_cpu_s: m.receiver.map(|r| r.total_ns as f64 / 1e9),
            receiver_user_s: m.receiver.map(|r| r.user_ns as f64 / 1e9),
            receiver_sys_s: m.receiver.map(|r| r.sys_ns as f64 / 1e9),
            received: m.received,
            receiver_us_per_bit: m.receiver_us_per_bit(),
            bits_per_s: m.bits_per_s(),
            sender_dollars_per_megabit: nmc_cost::tenex::dollars_per_megabit(
                m.sender_us_per_bit(),
                price,
            ),
            load5: m.load5,
        })
        .collect()
}

fn serve(a: &CostArgs) -> Result<Outcome> {
    let log = |l: String| eprintln!("nmc cost sink: {l}");
    let key = crate::cmd::gate::key_from(&a.secret_file)?;
    let limits = a.gate.limits()?;
    let with_secret = key.is_some();
    let describe = limits.describe(key.as_ref());
    let config = SinkConfig { limits, key };
    let sink = TcpSink::start(a.listen, config, Some(Box::new(log)))
        .with_context(|| format!("cannot listen on {} (TCP)", a.listen))?;
    // With a secret the UDP side is not opened: a datagram proves nothing about its sender.
    let udp = if with_secret {
        None
    } else {
        Some(
            nmc_serve::bind::udp(sink.addr)
                .with_context(|| format!("cannot listen on {} (UDP)", sink.addr))?,
        )
    };
    eprintln!(
        "nmc cost sink: discarding on {} ({}); tcp: {describe}; Ctrl-C to stop",
        sink.addr,
        if with_secret {
            "TCP only, with a secret"
        } else {
            "TCP and UDP"
        }
    );
    let stop = nmc_probe::signal::stop_on_signals()?;
    let start = Instant::now();
    let limit = a.duration.map(|d| Duration::from_nanos(d.as_nanos()));
    let should_stop = || {
        stop.load(std::sync::atomic::Ordering::Relaxed)
            || limit.is_some_and(|l| start.elapsed() >= l)
    };
    match &udp {
        Some(udp) => live::serve_udp(
            udp,
            &should_stop,
            &log,
            Duration::from_secs(60),
            &answer_opening,
        )?,
        None => {
            while !should_stop() {
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
    log(sink.summary());
    log(sink.gate().to_string());
    drop(sink);
    Ok(Outcome::Ok)
}

/// How long a remote UDP run waits for the sink to answer its opening. **Choice**: 5 s, the
/// time a TCP transfer gives its connection (`nmc_cost::live::send_tcp`).
pub const UDP_OPEN_TIMEOUT: Duration = Duration::from_secs(5);

/// Issue 58 §1: a UDP transfer to a sink nobody runs, behind a firewall, or on a server with a
/// secret (which takes no untagged datagram) used to "measure" the sender alone and exit 0.
/// A remote UDP run now opens with the echo server's smallest request, which `nmc serve` and
/// `nmc cost --serve` answer ([`answer_opening`]), and fails in one line when it is not
/// answered within [`UDP_OPEN_TIMEOUT`] ([`nmc_serve::opening`]).
fn open_udp(target: SocketAddr) -> Result<()> {
    use nmc_probe::wire;
    use nmc_serve::opening::{OpenError, TcpLook};
    let local: SocketAddr = if target.is_ipv4() {
        SocketAddr::from(([0, 0, 0, 0], 0))
    } else {
        SocketAddr::from(([0u16; 8], 0))
    };
    let sock = UdpSocket::bind(local).with_context(|| format!("binding {local} (UDP)"))?;
    sock.connect(target)
        .with_context(|| format!("cannot reach the sink at {target} over UDP"))?;
    let mut request = [0u8; wire::HEADER_LEN];
    wire::encode_request(&mut request, wire::HEADER_LEN, 0, OPENING_STAMP, None)?;
    let answered = |a: &[u8]| {
        wire::decode(a).is_ok_and(|h| h.is_reply() && h.seq == 0 && h.client_tx_ns == OPENING_STAMP)
    };
    match nmc_serve::opening::open_udp(&sock, &request, &answered, UDP_OPEN_TIMEOUT, false) {
        Ok(_) => Ok(()),
        Err(OpenError::Refused(e) | OpenError::Io(e)) => Err(super::exit::unreachable(format!(
            "cannot reach the sink at {target} over UDP: {e}"
        ))),
        Err(OpenError::Silent(s)) if s.tcp == TcpLook::WantsSecret => {
            Err(super::exit::unreachable(format!(
                "cannot reach the sink: no answer over UDP from {target} within {:?}: it wants a secret (its TCP port sends the challenge), and cost's UDP transfers carry no tag: measure with --proto tcp and --secret-file",
                s.within
            )))
        }
        Err(OpenError::Silent(s)) => Err(super::exit::unreachable(format!(
            "cannot reach the sink: {s}"
        ))),
    }
}

/// The send time the opening's request carries, echoed back (any value would do; this one
/// spells "nmc-cost").
const OPENING_STAMP: u64 = u64::from_be_bytes(*b"nmc-cost");

/// `nmc cost --serve`'s answer to the opening of a UDP run ([`open_udp`]): an untagged echo
/// request of the smallest size, answered as the echo server answers it (the same length
/// back). Anything else is data.
fn answer_opening(d: &[u8]) -> Option<Vec<u8>> {
    use nmc_probe::wire;
    let h = wire::decode(d).ok()?;
    if d.len() != wire::HEADER_LEN || h.is_reply() || h.is_tagged() {
        return None;
    }
    let mut reply = d.to_vec();
    wire::seal_reply(&mut reply, nmc_probe::time::unix_now_ns(), 0, 0, None);
    Some(reply)
}
