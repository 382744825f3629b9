//! Limits on what input may size (issue 33).
//!
//! Every count, size and pool that comes from a file, a flag or a peer is checked here, with
//! checked arithmetic, **before** anything is allocated or started, and refused in one line that
//! names the key or option and the limit. One mechanism for every place of that kind:
//!
//! * [`at_most`]: one count against its limit;
//! * [`product`]: a count that is a product of counts (a sweep's grid), without overflow;
//! * [`jobs`]: a thread pool's size (`--jobs`, `jobs=`);
//! * [`read_capped`] and [`read_file`]: a whole input read with a cap (a trace file, and what
//!   its gzip decompresses to), never slurped without one; [`read_regular`] as [`read_file`],
//!   for a file that can only be a regular one (a sweep's own `sweep.json` and `runs/*.json`);
//! * [`printable`]: an error's text as the terminal gets it — control characters from an input
//!   file escaped, and at most [`MAX_ERROR_CHARS`] characters, so that one bad file cannot write
//!   200 KB or terminal escapes into an error line.

use std::fmt;
use std::io::Read;
use std::path::Path;

/// The most threads a `--jobs` may ask for: well past any machine this runs on (a pool of
/// 100,000 threads would exhaust the process before doing any work).
pub const MAX_JOBS: usize = 1024;

/// The most bytes a whole-file input (a trace, and what it decompresses to) may hold: 256 MiB.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// The most bytes a small text input (a scenario, a sweep file) may hold: 16 MiB.
pub const MAX_TEXT_BYTES: u64 = 16 << 20;

/// The most memory one simulated network's own state may need, in either model: 8 GiB, a
/// third of the 23 GB machine nmc is built and tested on. A network that needs more, by the
/// model's estimate from the counts its scenario states, is refused before anything is
/// allocated (issue 33: a chain of 4e9 hops asked for 96 GB at once and aborted; issue 57 §3:
/// 2^24 store-and-forward nodes, within the node limit, asked for 5.9 GB in one allocation).
pub const MAX_STATE_BYTES: u64 = 8 << 30;

/// What one network's state may use on this machine: [`MAX_STATE_BYTES`], or half the memory
/// the process may have when that is less, and why.
///
/// Issue 57 §3: a chain of 700,000 IMPs is within [`MAX_STATE_BYTES`] by its estimate (7 GB)
/// and aborted on a machine or in a container with less memory than that. The memory the
/// process may have is the least of the machine's RAM (`MemTotal`), the cgroup's
/// `memory.max` and the address-space limit (`ulimit -v`), each where the system gives it;
/// half of it goes to the network's state, the rest to the process itself, its output buffers
/// and the allocator's slack. On a machine that gives none of them the budget is
/// [`MAX_STATE_BYTES`]. Reading them changes no output: a network within the budget runs the
/// same on any machine, one past it is refused in one line before anything is allocated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateBudget {
    /// The most bytes of state a network may need here.
    pub bytes: u64,
    /// Where the limit comes from, as a reader of the refusal needs it.
    pub why: String,
}

impl StateBudget {
    /// The budget from the memory the process may have (`None`: nothing known), and what that
    /// figure is.
    pub fn from_memory(memory: Option<(u64, &str)>) -> StateBudget {
        match memory {
            Some((bytes, what)) if bytes / 2 < MAX_STATE_BYTES => StateBudget {
                bytes: bytes / 2,
                why: format!("half the {:.1} GB {what}", bytes as f64 / 1e9),
            },
            _ => StateBudget {
                bytes: MAX_STATE_BYTES,
                why: "nmc's limit for one network".into(),
            },
        }
    }

    /// This machine's budget (read once, then kept).
    pub fn here() -> &'static StateBudget {
        static HERE: std::sync::OnceLock<StateBudget> = std::sync::OnceLock::new();
        HERE.get_or_init(|| StateBudget::from_memory(process_memory()))
    }
}

/// The least of the memory limits the system states for this process, and its name.
fn process_memory() -> Option<(u64, &'static str)> {
    [
        (meminfo_total(), "of this machine's memory"),
        (
            cgroup_memory_max(),
            "memory limit of this cgroup (memory.max)",
        ),
        (address_space_limit(), "address-space limit (ulimit -v)"),
    ]
    .into_iter()
    .filter_map(|(bytes, what)| bytes.filter(|&b| b > 0).map(|b| (b, what)))
    .min_by_key(|&(b, _)| b)
}

/// `MemTotal` of `/proc/meminfo`, in bytes (Linux).
fn meminfo_total() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// The cgroup v2 `memory.max` of this process's cgroup, in bytes; `max` is no limit.
fn cgroup_memory_max() -> Option<u64> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = own.lines().find_map(|l| l.strip_prefix("0::"))?;
    let file = Path::new("/sys/fs/cgroup")
        .join(path.trim_start_matches('/'))
        .join("memory.max");
    std::fs::read_to_string(file).ok()?.trim().parse().ok()
}

/// `RLIMIT_AS`, in bytes, when it is set.
#[cfg(unix)]
fn address_space_limit() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the limit into `r`, which lives for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    // `rlim_t` is unsigned on Linux and signed on the BSDs.
    #[allow(clippy::useless_conversion)]
    u64::try_from(r.rlim_cur).ok()
}

#[cfg(not(unix))]
fn address_space_limit() -> Option<u64> {
    None
}

/// The longest error line nmc prints: the key and a short excerpt of what was wrong, not the
/// whole input.
pub const MAX_ERROR_CHARS: usize = 400;

/// The most characters of a value a user gave that an error line quotes (issue 57 §4, 74 §3).
/// **Choice**: 60, enough to recognise the value; the line's reason must fit after it within
/// [`MAX_ERROR_CHARS`].
pub const MAX_VALUE_ECHO: usize = 60;

/// A value the user gave, as an error line quotes it: [`printable`], cut to
/// [`MAX_VALUE_ECHO`] characters.
pub fn quoted(value: &str) -> String {
    printable(value, MAX_VALUE_ECHO)
}

/// `text` as one printable line: control characters (newlines, tabs, escapes) written as
/// `\n`, `\t`, `\u{1b}`, and the whole cut to `max` characters with `…` where it was cut
/// (the start, which names the file and key, is kept).
pub fn printable(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    for c in text.chars() {
        let piece: String = if c.is_control() {
            c.escape_default().collect()
        } else {
            c.to_string()
        };
        let len = piece.chars().count();
        if n + len > max.saturating_sub(1) {
            out.push('…');
            return out;
        }
        out.push_str(&piece);
        n += len;
    }
    out
}

/// A count or size past its limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// The key or option, as the user wrote it (`--jobs`, `traffic.0.volleys`).
    pub what: String,
    /// The value asked for, as text ("more than 18446744073709551615" on overflow).
    pub value: String,
    /// The most allowed; `unit` says of what, where it needs saying.
    pub limit: u64,
    /// What the limit stands for, if it needs saying (` threads`, ` runs`).
    pub unit: &'static str,
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} = {}: at most {}{} (a limit of nmc's, so that input cannot exhaust the machine)",
            self.what, self.value, self.limit, self.unit
        )
    }
}

impl std::error::Error for TooLarge {}

/// `value` if it is at most `limit`, else the one-line refusal naming `what`.
pub fn at_most(what: &str, value: u64, limit: u64, unit: &'static str) -> Result<u64, TooLarge> {
    if value <= limit {
        Ok(value)
    } else {
        Err(TooLarge {
            what: what.into(),
            value: value.to_string(),
            limit,
            unit,
        })
    }
}

/// The product of `factors` if it is at most `limit`; overflow is refused like any other excess
/// (never wrapped, never saturated into something that passes).
pub fn product(
    what: &str,
    factors: impl IntoIterator<Item = u64>,
    limit: u64,
    unit: &'static str,
) -> Result<u64, TooLarge> {
    let mut p: u64 = 1;
    for f in factors {
        p = p.checked_mul(f).ok_or_else(|| TooLarge {
            what: what.into(),
            value: format!("more than {}", u64::MAX),
            limit,
            unit,
        })?;
    }
    at_most(what, p, limit, unit)
}

/// The size of a thread pool: `requested`, or every core when `None`; zero and more than
/// [`MAX_JOBS`] are refused, naming `what`.
pub fn jobs(what: &str, requested: Option<usize>) -> Result<usize, JobsError> {
    match requested {
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        Some(0) => Err(JobsError::Zero(what.into())),
        Some(n) => at_most(what, n as u64, MAX_JOBS as u64, " threads")
            .map(|_| n)
            .map_err(JobsError::TooMany),
    }
}

/// A thread pool's size that cannot be.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JobsError {
    /// Zero threads asked for; holds the option or argument that asked (`--jobs`, `jobs`).
    #[error("{0} 0: at least one thread")]
    Zero(String),
    /// More than [`MAX_JOBS`] threads asked for.
    #[error("{0}")]
    TooMany(TooLarge),
}

/// A capped read that failed: the source could not be read, or held more than the cap.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The source could not be opened or read, or (for [`read_text`]) is not UTF-8.
    /// (The I/O error is in the text, not a `source`: shown once.)
    #[error("{what}: cannot read: {cause}")]
    Io {
        /// The source as named in messages (a file's path, as displayed).
        what: String,
        /// The I/O error; `InvalidData` for text that is not UTF-8.
        cause: std::io::Error,
    },
    /// Not a regular file where one is expected ([`read_regular`]): a device (`/dev/zero`), a
    /// named pipe or a folder.
    #[error("{what}: not a regular file")]
    NotAFile {
        /// The source as named in messages (a file's path, as displayed).
        what: String,
    },
    /// An input file that is neither a regular file nor a stream this process holds
    /// ([`read_file`]): a named pipe, a device or a folder.
    #[error(
        "{what}: not a regular file (a named pipe or a device is not read; a stream the shell \
         opens is: <(cat FILE))"
    )]
    NotInput {
        /// The path, as given.
        what: String,
    },
    /// The source holds more than `limit` bytes.
    #[error(
        "{what}: more than {limit} bytes{how} (a limit of nmc's, so that input cannot exhaust the machine)"
    )]
    TooLarge {
        /// The source as named in messages (a file's path, as displayed).
        what: String,
        /// The cap, in bytes.
        limit: u64,
        /// " once decompressed", where it applies.
        how: &'static str,
    },
}

/// Reads all of `reader` (named `what` in errors), refusing more than `limit` bytes without
/// holding more than `limit + 1` of them. `how` qualifies the size in the error (" once
/// decompressed").
pub fn read_capped(
    reader: impl Read,
    what: &str,
    limit: u64,
    how: &'static str,
) -> Result<Vec<u8>, ReadError> {
    let mut out = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|cause| ReadError::Io {
            what: what.into(),
            cause,
        })?;
    if out.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            what: what.into(),
            limit,
            how,
        });
    }
    Ok(out)
}

/// Reads the UTF-8 text file at `path` with [`read_capped`].
pub fn read_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    let bytes = read_file(path, limit)?;
    String::from_utf8(bytes).map_err(|e| ReadError::Io {
        what: path.display().to_string(),
        cause: std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()),
    })
}

/// Reads the user's input file at `path` with [`read_capped`]: a regular file, or a stream
/// this process already holds open ([`held_open`]: the shell's process substitution `<(…)`,
/// `/dev/stdin`), read to the cap. Anything else is refused before it is opened (issue 74 §3):
/// a named pipe's open waits for a writer, for ever if none comes (`nmc run ./fifo` hung); a
/// device such as `/dev/zero` never ends; a folder is a mistake.
pub fn read_file(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let what = path.display().to_string();
    let io = |cause| ReadError::Io {
        what: what.clone(),
        cause,
    };
    if !held_open(path) && !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(ReadError::NotInput { what });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    read_capped(file, &what, limit, "")
}

/// Whether `path` names a descriptor this process holds already (`/dev/fd/N`,
/// `/proc/self/fd/N`, `/dev/stdin`): opening it does not wait for anyone, whatever it is (the
/// shell made the pipe of `<(…)` and its writer before starting nmc).
pub fn held_open(path: &Path) -> bool {
    let p = path.to_string_lossy();
    p == "/dev/stdin"
        || ["/dev/fd/", "/proc/self/fd/"].iter().any(|dir| {
            p.strip_prefix(dir)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// Reads the file at `path` with [`read_capped`], refusing anything but a regular file first:
/// for a file nmc wrote itself or a key (issue 57 §3), where a device (`/dev/zero`), a named
/// pipe (whose open would wait for a writer) or a folder can only be a mistake or a trap. The
/// type is checked before the open and again on the open file.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let what = path.display().to_string();
    let io = |cause| ReadError::Io {
        what: what.clone(),
        cause,
    };
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(ReadError::NotAFile { what });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    if !file.metadata().map_err(io)?.is_file() {
        return Err(ReadError::NotAFile { what });
    }
    read_capped(file, &what, limit, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 74 §3: the descriptors a shell hands nmc are read; other paths are judged by
    /// their type.
    #[test]
    fn streams_this_process_holds_are_told_from_paths() {
        for held in ["/dev/fd/63", "/proc/self/fd/0", "/dev/stdin"] {
            assert!(held_open(Path::new(held)), "{held}");
        }
        for not in ["/dev/fd/", "/dev/fd/x", "/dev/zero", "fifo", "/proc/1/fd/3"] {
            assert!(!held_open(Path::new(not)), "{not}");
        }
    }

    #[test]
    fn counts_past_their_limit_are_refused_naming_the_key() {
        assert_eq!(at_most("count", 5, 5, ""), Ok(5));
        let e = at_most("--count", 4_294_967_295, 1_000_000, " volleys").unwrap_err();
        assert_eq!(
            e.to_string(),
            "--count = 4294967295: at most 1000000 volleys (a limit of nmc's, so that input \
             cannot exhaust the machine)"
        );
    }

    #[test]
    fn a_product_that_overflows_is_refused_not_wrapped() {
        // 64 grid keys of two values each: 2^64 wraps to 0 in u64 arithmetic.
        let e = product("grid", std::iter::repeat_n(2, 64), 1_000_000, " runs").unwrap_err();
        assert!(e.value.starts_with("more than"), "{e}");
        assert_eq!(product("grid", [10, 10, 10], 1000, ""), Ok(1000));
        assert!(product("grid", [10, 10, 11], 1000, "").is_err());
        assert_eq!(product("grid", [], 1, ""), Ok(1));
    }

    #[test]
    fn pools_are_bounded() {
        assert!(jobs("--jobs", None).unwrap() >= 1);
        assert_eq!(jobs("--jobs", Some(3)), Ok(3));
        assert_eq!(
            jobs("--jobs", Some(0)).unwrap_err().to_string(),
            "--jobs 0: at least one thread"
        );
        let e = jobs("--jobs", Some(100_000)).unwrap_err().to_string();
        assert!(
            e.starts_with("--jobs = 100000: at most 1024 threads"),
            "{e}"
        );
    }

    #[test]
    fn echoed_input_is_escaped_and_shortened() {
        assert_eq!(
            printable("a.toml:1: key `x\ny\u{1b}[31m`", 100),
            "a.toml:1: key `x\\ny\\u{1b}[31m`"
        );
        let long = format!("f.toml:3: bad value {}", "z".repeat(200_000));
        let p = printable(&long, MAX_ERROR_CHARS);
        assert_eq!(p.chars().count(), MAX_ERROR_CHARS);
        assert!(p.starts_with("f.toml:3: bad value zz") && p.ends_with('…'));
        assert_eq!(printable("short", 10), "short");
    }

    #[test]
    fn reads_stop_one_byte_past_the_cap() {
        let data = [7u8; 100];
        assert_eq!(read_capped(&data[..], "x", 100, "").unwrap().len(), 100);
        let e = read_capped(&data[..], "trace.csv", 99, " once decompressed").unwrap_err();
        assert_eq!(
            e.to_string(),
            "trace.csv: more than 99 bytes once decompressed (a limit of nmc's, so that input \
             cannot exhaust the machine)"
        );
        // An endless source is cut at the cap, not read to the end.
        let e = read_capped(std::io::repeat(0), "zeros", 1 << 20, "").unwrap_err();
        assert!(matches!(e, ReadError::TooLarge { .. }));
    }

    #[test]
    fn only_a_regular_file_is_read_where_one_is_expected() {
        let dir = std::env::temp_dir().join(format!("nmc-limits-regular-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("f.json");
        std::fs::write(&f, "{}").unwrap();
        assert_eq!(read_regular(&f, 2).unwrap(), b"{}");
        let e = read_regular(&f, 1).unwrap_err();
        assert!(matches!(e, ReadError::TooLarge { limit: 1, .. }), "{e}");
        let e = read_regular(&dir, 100).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{}: not a regular file", dir.display())
        );
        #[cfg(unix)]
        {
            let e = read_regular(Path::new("/dev/zero"), 100).unwrap_err();
            assert_eq!(e.to_string(), "/dev/zero: not a regular file");
        }
        assert!(matches!(
            read_regular(&dir.join("none"), 100),
            Err(ReadError::Io { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_state_budget_is_half_the_memory_the_process_may_have_at_most_the_limit() {
        let four_gb = StateBudget::from_memory(Some((4_000_000_000, "address-space limit")));
        assert_eq!(four_gb.bytes, 2_000_000_000);
        assert_eq!(four_gb.why, "half the 4.0 GB address-space limit");
        // A machine with more than twice the limit, or one that says nothing, gets the limit.
        for big in [Some((64 << 30, "of this machine's memory")), None] {
            assert_eq!(StateBudget::from_memory(big).bytes, MAX_STATE_BYTES);
        }
        let here = StateBudget::here();
        assert!(here.bytes > 0 && here.bytes <= MAX_STATE_BYTES, "{here:?}");
    }
}
