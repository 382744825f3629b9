//! `nmc`: the command line over nmc's libraries. Each subcommand lives in `cmd/<name>.rs` with
//! its own options; this file only parses, dispatches and maps the outcome to an exit code
//! (`cmd::exit`, issue 58 §3): 0 ok, 1 a check outside its tolerance, 2 bad usage or input
//! (clap's own errors are 2 too) or another failure, 3 a server that cannot be reached or
//! refused, 4 a partial run kept, 5 stopped by the user with the result kept.

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// `println!` that never panics: if stdout has gone (`nmc reproduce --list | head -3`, once
/// `head` exits) the text is dropped and the command goes on to its end — its files and its
/// exit status are what they would have been. (`println!` panics there.) Any other failure (a
/// full disk: `> /dev/full`) is kept by [`stdout_failed`], and `main` ends the command with
/// exit 2 saying so, never 0 with the output lost (issue 57 §5).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            $crate::stdout_failed(e);
        }
    }};
}

/// `print!` that never panics, as [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = write!(std::io::stdout().lock(), $($arg)*) {
            $crate::stdout_failed(e);
        }
    }};
}

/// The first failure to write stdout, other than a closed pipe (issue 57 §5).
static STDOUT_ERROR: std::sync::OnceLock<std::io::Error> = std::sync::OnceLock::new();

/// Keeps `e`, the first failure to write stdout, for `main` to report once the command has
/// run to its end (what it writes to files is kept; only the exit status and one line change).
/// A closed pipe is not kept: the reader went away on purpose (`| head -3`).
pub fn stdout_failed(e: std::io::Error) {
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        let _ = STDOUT_ERROR.set(e);
    }
}

/// Flushes stdout and says whether everything written to it arrived: `Err` with the first
/// failure (a closed pipe is not one).
fn stdout_result() -> std::io::Result<()> {
    use std::io::Write as _;
    if let Err(e) = std::io::stdout().lock().flush() {
        stdout_failed(e);
    }
    match STDOUT_ERROR.get() {
        Some(e) => Err(std::io::Error::new(e.kind(), e.to_string())),
        None => Ok(()),
    }
}

mod cmd;

#[derive(Parser)]
#[command(
    name = "nmc",
    // Usage errors print on one line like every other nmc error (see `usage_error`).
    color = clap::ColorChoice::Never,
    version,
    about = "Re-run the ARPANET Network Measurement Center experiments (1972-83)",
    long_about = "nmc rebuilds the ARPANET IMP subnet as a deterministic discrete-event simulator, \
the NMC's instruments, and the same measurements on today's networks.\n\n\
Start with `nmc reproduce --all` (every published figure beside ours) or \
`nmc run golden-chain` (a built-in scenario; `nmc scenarios` lists them)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one scenario (a file or a built-in name) and write summary.json, CSV records and plots.
    Run(cmd::run::RunArgs),
    /// List the built-in scenarios, or print one (`nmc scenarios show NAME`).
    Scenarios(cmd::scenarios::ScenariosArgs),
    /// Run the built-in published experiments and compare with the papers' figures.
    Reproduce(cmd::reproduce::ReproduceArgs),
    /// Run a scenario over a grid of `--set` values × seeds, in parallel and resumable: CSV/Parquet tables.
    Sweep(cmd::sweep::SweepArgs),
    /// Measure the engine's speed on the golden chain (packet-hops and events per second).
    Bench(cmd::bench::BenchArgs),
    /// Retransmission-timeout estimators on delay traces (RFC 889 §3): evaluate, sweep, synth.
    Rto(cmd::rto::RtoArgs),
    /// One server for every instrument (echo probe, pump, stream, cost) on one UDP and TCP port.
    Serve(cmd::serve::ServeArgs),
    /// RFC 889's delay-versus-length experiment on real networks: an echo server and a probe.
    #[command(subcommand)]
    Echo(cmd::echo::EchoCommand),
    /// RFC 392's host cost per bit on this host: CPU to send and receive over TCP/UDP, beside 1972's.
    Cost(cmd::cost::CostArgs),
    /// RFC 508's double-buffered real-time stream to a discard sink: the gap table on a real path.
    Stream(cmd::stream::StreamArgs),
    /// Discard sink for `nmc stream` (TCP and UDP on one port; acknowledges when asked).
    Sink(cmd::stream::SinkArgs),
    /// K&O (1977)'s throughput pump on a real path: N messages outstanding, each released by a RFNM from `nmc serve`.
    Pump(cmd::pump::PumpArgs),
    /// Latency under load, as flent's RRUL: pump flows both ways with the echo probe running throughout, one time series and its plots.
    #[command(visible_alias = "latency-under-load")]
    Rrul(cmd::rrul::RrulArgs),
    /// BBN's 1973 IMP program in SIMH on a cycle clock with nmc as its 1822 host: build, and K&O's pump on a chain.
    #[command(subcommand)]
    Oracle(cmd::oracle::OracleCommand),
    /// A shaped path without netem: two network namespaces joined by a line of set delay, rate and loss (Linux, root).
    Path(cmd::path::PathArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on stdout.
    Completions(cmd::shell::CompletionsArgs),
    /// Write man pages for nmc and every subcommand into a folder.
    Man(cmd::shell::ManArgs),
}

/// What a subcommand reports back.
pub enum Outcome {
    Ok,
    /// Ran, but at least one check fell outside its tolerance.
    OutsideTolerance,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    // Issue 58 §3: an instrument asked for `--json` prints one document whatever happens.
    let json = json_request(&cli.command);
    let result = match cli.command {
        Command::Run(a) => cmd::run::run(a),
        Command::Scenarios(a) => cmd::scenarios::run(a),
        Command::Reproduce(a) => cmd::reproduce::run(a),
        Command::Sweep(a) => cmd::sweep::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Rto(a) => cmd::rto::run(a),
        Command::Serve(a) => cmd::serve::run(a),
        Command::Echo(c) => cmd::echo::run(c),
        Command::Cost(a) => cmd::cost::run(a),
        Command::Stream(a) => cmd::stream::stream(a),
        Command::Sink(a) => cmd::stream::sink(a),
        Command::Pump(a) => cmd::pump::run(a),
        Command::Rrul(a) => cmd::rrul::run(a),
        Command::Path(a) => cmd::path::run(a),
        Command::Oracle(c) => cmd::oracle::run(c),
        Command::Completions(a) => cmd::shell::completions(a, Cli::command()),
        Command::Man(a) => cmd::shell::man(a, Cli::command()),
    };
    // Issue 57 §5: a command whose stdout did not arrive (a full disk) has not succeeded,
    // whatever it computed; its own error, if it has one, is the line to print.
    let result = match (result, stdout_result()) {
        (Ok(_), Err(e)) => Err(anyhow::Error::new(e).context("writing to stdout")),
        (result, _) => result,
    };
    match result {
        Ok(Outcome::Ok) => ExitCode::from(cmd::exit::OK),
        Ok(Outcome::OutsideTolerance) => ExitCode::from(cmd::exit::OUTSIDE_TOLERANCE),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // Issue 33, 57 §6: the one line for every subcommand, said once here (escaped,
            // shortened, the system's messages in words a user can act on).
            let text = cmd::words::error_line(&e);
            if let Some((tool, target)) = &json
                && !cmd::json::printed()
            {
                let mut doc = cmd::json::failure(tool, target, &text);
                // Refused before its run began: its command line (issue 74 §3).
                if !cmd::json::begun() {
                    doc["target"] = serde_json::Value::Null;
                }
                // Stopped by the user before anything was measured: still a stop.
                doc["stopped_early"] = (cmd::exit::code(&e) == cmd::exit::STOPPED).into();
                let _ = cmd::json::print(&doc);
            }
            // Issue 74 §3: the failure's document may not have arrived either (`-J >
            // /dev/full`); the run's own failure stays the exit status, and the line says both.
            match stdout_result() {
                Err(lost) if json.is_some() => eprintln!(
                    "nmc: {text} (and its -J document was lost: writing to stdout: {})",
                    cmd::words::plain(&lost.to_string())
                ),
                _ => eprintln!("nmc: {text}"),
            }
            ExitCode::from(cmd::exit::code(&e))
        }
    }
}

/// The instrument and target of a command that asked for `--json` (issue 58 §3: its document
/// is printed, with an `error`, even when the run fails before it has one).
fn json_request(c: &Command) -> Option<(&'static str, String)> {
    match c {
        Command::Echo(cmd::echo::EchoCommand::Probe(a)) if a.json => {
            Some(("nmc echo probe", a.target.join(" ")))
        }
        Command::Pump(a) if a.json => Some(("nmc pump", a.target.clone())),
        Command::Stream(a) if a.json => Some(("nmc stream", a.target.clone())),
        Command::Rrul(a) if a.json => Some(("nmc rrul", a.target.clone())),
        Command::Cost(a) if a.json && !a.serve => Some((
            "nmc cost",
            a.target.clone().unwrap_or_else(|| "loopback".into()),
        )),
        _ => None,
    }
}

/// Help and version print as clap writes them (exit 0; exit 2 if stdout cannot take them); a
/// usage error prints as nmc's own errors do, on one line and exit 2: `nmc: run: unexpected
/// argument '--foo' found (usage: nmc run [OPTIONS] <SCENARIO>; see 'nmc run --help')`.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        if e.use_stderr() {
            let _ = e.print();
            return ExitCode::from(2);
        }
        // Issue 57 §5: written and flushed here, not by `e.print()`, whose failure (`nmc --help
        // > /dev/full`) was exit 0 with nothing written.
        out!("{}", e.render());
        return match stdout_result() {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                let what = if e.kind() == ErrorKind::DisplayVersion {
                    "the version"
                } else {
                    "the help"
                };
                eprintln!("nmc: writing {what} to stdout: {err}");
                ExitCode::from(2)
            }
        };
    }
    let mut rendered = e.render().to_string();
    // Issue 57 §4: clap quotes a refused value whole, so a long one (a 20,000-segment `--set`
    // key) pushed the reason past the line's cut. The value is quoted shortened instead.
    if let Some(clap::error::ContextValue::String(v)) =
        e.get(clap::error::ContextKind::InvalidValue)
        && v.chars().count() > nmc_sim::limits::MAX_VALUE_ECHO
    {
        let short = nmc_sim::limits::quoted(v);
        rendered = rendered.replace(v.as_str(), &short);
    }
    let line = nmc_sim::limits::printable(&one_line(&rendered), nmc_sim::limits::MAX_ERROR_CHARS);
    // Issue 58 §3: an instrument asked for `-J` prints its document even when its command
    // line is refused (the target is not known then: null).
    if let Some(tool) = json_in_args() {
        let mut doc = cmd::json::failure(tool, "", &line);
        doc["target"] = serde_json::Value::Null;
        let _ = cmd::json::print(&doc);
    }
    eprintln!("nmc: {line}");
    ExitCode::from(cmd::exit::FAILED)
}

/// The instrument a refused command line names, if it also asks for `-J`/`--json` (before any
/// `--`; `-J` alone or among other short flags, as `-RJ`).
fn json_in_args() -> Option<&'static str> {
    let tool = match command_path()
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()[..]
    {
        ["nmc", "echo", "probe"] => "nmc echo probe",
        ["nmc", "pump"] => "nmc pump",
        ["nmc", "stream"] => "nmc stream",
        ["nmc", "cost"] => "nmc cost",
        ["nmc", "rrul"] => "nmc rrul",
        _ => return None,
    };
    std::env::args()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| {
            a == "--json"
                || (a.starts_with('-')
                    && !a.starts_with("--")
                    && a[1..].chars().all(|c| c.is_ascii_alphabetic())
                    && a.contains('J'))
        })
        .then_some(tool)
}

/// clap's multi-line error text as one line: the message with its indented details and `tip:`
/// joined, the usage line in brackets, and the subcommand's own `--help` instead of clap's
/// closing "For more information, try '--help'".
fn one_line(rendered: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut usage = None;
    for line in rendered.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(u) = line.strip_prefix("Usage:") {
            usage = Some(u.trim().to_string());
        } else if line.starts_with("tip:") {
            parts.push(format!("; {line}"));
        } else if !line.starts_with("For more information") {
            let line = line.strip_prefix("error:").unwrap_or(line).trim();
            parts.push(format!("{}{line}", if parts.is_empty() { "" } else { " " }));
        }
    }
    let help = format!("see '{} --help'", command_path().join(" "));
    match usage {
        Some(u) => format!("{} (usage: {u}; {help})", parts.concat()),
        None => format!("{} ({help})", parts.concat()),
    }
}

/// The subcommand the command line names, as far as it names one: `["nmc", "rto", "synth"]`.
fn command_path() -> Vec<String> {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut path = vec!["nmc".to_string()];
    for word in std::env::args().skip(1).filter(|w| !w.starts_with('-')) {
        match cmd.find_subcommand(&word) {
            Some(sub) => {
                path.push(sub.get_name().to_string());
                cmd = sub.clone();
            }
            None => break,
        }
    }
    path
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<std::io::Error>())
        .any(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}
