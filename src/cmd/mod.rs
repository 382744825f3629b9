//! One module per subcommand.

pub mod bench;
pub mod cost;
pub mod echo;
pub mod exit;
pub mod gate;
pub mod json;
pub mod oracle;
pub mod path;
pub mod progress;
pub mod pump;
pub mod reproduce;
pub mod rrul;
pub mod rto;
pub mod run;
pub mod scenarios;
pub mod serve;
pub mod shell;
pub mod stream;
pub mod sweep;
pub mod units;
pub mod words;

/// A path as the "wrote …" and "Report: …" lines show it (issue 57 §6): its control
/// characters escaped (`\u{1b}` for an escape byte, `\n` for a line break), so an `--out`
/// that holds one cannot drive the terminal or split the line; any other path as
/// `Path::display` shows it, byte for byte.
pub fn shown(path: &std::path::Path) -> String {
    nmc_sim::limits::printable(&path.display().to_string(), usize::MAX)
}

/// Reads a quantity with its unit (`30s`, `200ms`) with `nmc_sim`'s one parser, for the options
/// that are not an instrument's rate, size or duration (`nmc rto`'s times, `-f`, `nmc path
/// --delay`): a bare number is refused with a one-line message that suggests the unit ("`30`
/// needs a unit: 30s, 30ms, …"). An instrument's rates, sizes and durations go through
/// [`units`], which also takes iperf3's forms (issue 75 §4).
pub fn parse_unit<T: std::str::FromStr<Err = nmc_sim::UnitError>>(s: &str) -> Result<T, String> {
    s.parse::<T>().map_err(|e| e.to_string())
}

/// A target's label as one folder name under `out/`: letters, digits, `.` and `-` kept, any
/// other character (`:` of a port, `/`, `[`) made `_`.
pub fn folder_name(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Splits `HOST`, `HOST:PORT`, `[V6]:PORT` or a bare IPv6 address into host and port.
pub fn split_target(t: &str) -> anyhow::Result<(String, Option<u16>)> {
    let bad_port = |p: &str| anyhow::anyhow!("target `{t}`: `{p}` is not a port number");
    if let Some(rest) = t.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or_else(|| anyhow::anyhow!("target `{t}`: missing `]`"))?;
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p.parse().map_err(|_| bad_port(p))?),
            None if after.is_empty() => None,
            None => anyhow::bail!("target `{t}`: expected `[ADDRESS]:PORT`"),
        };
        return Ok((host.to_string(), port));
    }
    if t.parse::<std::net::IpAddr>().is_ok() {
        return Ok((t.to_string(), None));
    }
    match t.rsplit_once(':') {
        Some((h, p)) => Ok((h.to_string(), Some(p.parse().map_err(|_| bad_port(p))?))),
        None => Ok((t.to_string(), None)),
    }
}

/// `-4` / `-6`, as iperf3, ping and irtt have them (issue 58 §7): which of a name's addresses a
/// client uses.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct Family {
    /// Use the target's IPv4 address only.
    #[arg(short = '4', long = "ipv4", conflicts_with = "ipv6")]
    pub ipv4: bool,
    /// Use the target's IPv6 address only.
    #[arg(short = '6', long = "ipv6")]
    pub ipv6: bool,
}

impl Family {
    fn takes(&self, a: &std::net::SocketAddr) -> bool {
        (!self.ipv4 || a.is_ipv4()) && (!self.ipv6 || a.is_ipv6())
    }
}

/// A client's socket options (issue 58 §7), as path and AQM studies set them; none by default.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct DialArgs {
    /// Bind this host's end to this address (and port) before connecting: `192.0.2.7`,
    /// `192.0.2.7:5000` or `[2001:db8::7]:5000`.
    #[arg(long, value_name = "ADDR[:PORT]", value_parser = parse_bind)]
    pub bind: Option<std::net::SocketAddr>,
    /// Mark this host's packets with this DSCP (0 to 63; 46 is EF, 10 AF11), as the IP TOS
    /// byte or the IPv6 traffic class.
    #[arg(long, value_name = "N", value_parser = parse_dscp)]
    pub dscp: Option<u8>,
    /// TCP's congestion control for this host's connections (Linux), e.g. cubic, reno, bbr.
    #[arg(long, value_name = "ALGO")]
    pub congestion: Option<String>,
    /// The sockets' send and receive buffers, as iperf3 -w: e.g. 4MiB, 4MB (decimal), or
    /// iperf3's 4M (= 4MiB; K, M, G × 1024) or a bare number of bytes.
    #[arg(short = 'w', long, value_name = "SIZE", value_parser = parse_window)]
    pub window: Option<usize>,
}

impl DialArgs {
    /// Checks the options against the target before the run begins (issue 74 §3: a bind
    /// address of the other family was refused only when the first socket was made): what a
    /// socket carrying `tcp` or UDP to `to` cannot take, in one line.
    pub fn check(&self, to: std::net::SocketAddr, tcp: bool) -> anyhow::Result<()> {
        use nmc_serve::dial::Protocol;
        let proto = if tcp { Protocol::TCP } else { Protocol::UDP };
        self.dial()
            .check(to, proto)
            .map_err(|e| anyhow::anyhow!(e.to_string()))
    }

    /// The options as the sockets take them.
    pub fn dial(&self) -> nmc_serve::dial::Dial {
        nmc_serve::dial::Dial {
            bind: self.bind,
            dscp: self.dscp,
            congestion: self.congestion.clone(),
            window: self.window,
        }
    }
}

/// `--dscp`: 0 to 63, refused with the command line (issue 74 §3: 64 was refused only when
/// the first socket was made, after the run had begun).
fn parse_dscp(s: &str) -> Result<u8, String> {
    s.trim()
        .parse::<u8>()
        .ok()
        .filter(|&d| d <= 63)
        .ok_or_else(|| {
            format!(
                "`{}`: a DSCP is 0 to 63 (46 is EF, 0 best effort)",
                nmc_sim::limits::quoted(s)
            )
        })
}

/// `--bind`: an address (any port) or an address and port.
fn parse_bind(s: &str) -> Result<std::net::SocketAddr, String> {
    let t = s.trim();
    // A bare address, or an IPv6 one in brackets without a port.
    let bare = t
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .unwrap_or(t);
    if let Ok(ip) = bare.parse::<std::net::IpAddr>() {
        return Ok(std::net::SocketAddr::new(ip, 0));
    }
    t.parse().map_err(|_| {
        format!("`{s}` is not an address: give 192.0.2.7, 192.0.2.7:5000, 2001:db8::7 or [2001:db8::7]:5000")
    })
}

/// `--window`: a size with its unit (`4MiB`), or bytes.
fn parse_window(s: &str) -> Result<usize, String> {
    let v = units::size(s)?;
    usize::try_from(v)
        .ok()
        .filter(|&v| v > 0 && v <= 1 << 30)
        .ok_or_else(|| format!("`{s}`: give a size from 1 byte to 1GiB, e.g. 4MiB"))
}

/// The address a client sends to: `target` (`HOST`, `HOST:PORT`, `[IPv6]:PORT`) resolved, the
/// first of its addresses `family` takes, on `default_port` unless it names one. One line when
/// the name does not resolve or has no address of that family.
pub fn resolve_target(
    target: &str,
    default_port: u16,
    family: Family,
) -> anyhow::Result<std::net::SocketAddr> {
    use anyhow::Context as _;
    use std::net::ToSocketAddrs as _;
    let (host, port) = split_target(target)?;
    let port = port.unwrap_or(default_port);
    let mut any = false;
    // Issue 74 §3: a long target is quoted to its start, not echoed whole.
    let (target, host) = (
        nmc_sim::limits::quoted(target),
        nmc_sim::limits::quoted(&host),
    );
    (host.as_str(), port)
        .to_socket_addrs()
        .with_context(|| format!("target `{target}`: cannot resolve `{host}`"))?
        .inspect(|_| any = true)
        .find(|a| family.takes(a))
        .with_context(|| match (any, family.ipv4, family.ipv6) {
            (true, true, _) => format!("target `{target}`: `{host}` has no IPv4 address (-4)"),
            (true, _, true) => format!("target `{target}`: `{host}` has no IPv6 address (-6)"),
            _ => format!("target `{target}`: `{host}` has no address"),
        })
}
