//! The system's words for a network or file failure, said as a user can act on them (issue 57
//! §6: "Resource temporarily unavailable (os error 11)" reached users for a read that timed
//! out).
//!
//! Errors keep the system's error all the way up (a library cannot know what its caller was
//! waiting for), so the rewording happens once, on the line nmc prints: every message the
//! system gives for one of the kinds below is replaced by what it means for a measurement.
//! The messages are the standard library's own for this platform's error numbers, so the
//! table needs no list of numbers and holds on Linux and the BSDs alike.

use std::io::ErrorKind;
use std::sync::OnceLock;

/// What each kind means to someone running an instrument or writing an output.
fn meaning(kind: ErrorKind) -> Option<&'static str> {
    Some(match kind {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => "no answer within the timeout",
        ErrorKind::ConnectionRefused => "connection refused: nothing listens on that port",
        ErrorKind::ConnectionReset => "the other end reset the connection",
        ErrorKind::ConnectionAborted => "the connection was aborted",
        ErrorKind::BrokenPipe => "the other end closed the connection",
        ErrorKind::AddrInUse => "that address and port are already in use (another server?)",
        ErrorKind::AddrNotAvailable => "that address is not one of this machine's",
        ErrorKind::NetworkUnreachable => "no route to that network",
        ErrorKind::HostUnreachable => "no route to that host",
        ErrorKind::NetworkDown => "this machine's network is down",
        _ => return None,
    })
}

/// (the system's message, its meaning) for every error number whose kind has a meaning.
fn table() -> &'static [(String, &'static str)] {
    static TABLE: OnceLock<Vec<(String, &'static str)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t: Vec<(String, &'static str)> = (1..512)
            .filter_map(|n| {
                let e = std::io::Error::from_raw_os_error(n);
                meaning(e.kind()).map(|m| (e.to_string(), m))
            })
            .collect();
        // Longest first, so that no message is replaced inside a longer one.
        t.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));
        t
    })
}

/// `text` with every system message of the kinds above said in plain words.
pub fn plain(text: &str) -> String {
    table()
        .iter()
        .fold(text.to_string(), |out, (system, words)| {
            out.replace(system.as_str(), words)
        })
}

/// The one line nmc prints for a failed command, on stderr and as a `-J` document's `error`:
/// the error and its causes, the system's messages in words, escaped and shortened (issue 33).
pub fn error_line(e: &anyhow::Error) -> String {
    nmc_sim::limits::printable(&plain(&chain(e)), nmc_sim::limits::MAX_ERROR_CHARS)
}

/// The error and its causes, `: ` between them, as anyhow's `{:#}` writes them, but a cause
/// whose words the line already ends with is said once (issue 74 §3: "No space left on device
/// (os error 28): No space left on device (os error 28)", where a message quoted its own
/// source).
fn chain(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.is_empty() {
            line = text;
        } else if !line.ends_with(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first error number of `kind` on this platform.
    fn raw(kind: ErrorKind) -> std::io::Error {
        (1..512)
            .map(std::io::Error::from_raw_os_error)
            .find(|e| e.kind() == kind)
            .unwrap_or_else(|| panic!("no error number of kind {kind:?}"))
    }

    /// Issue 74 §3: a cause the message already quotes is not said twice.
    #[test]
    fn a_cause_already_said_is_said_once() {
        let full = raw(ErrorKind::StorageFull);
        let said = full.to_string();
        let e = anyhow::Error::new(std::io::Error::new(full.kind(), said.clone()))
            .context(format!("writing out/run/summary.json: {said}"));
        assert_eq!(
            error_line(&e),
            format!("writing out/run/summary.json: {said}")
        );
        // A cause not yet said is kept.
        let e = anyhow::Error::new(raw(ErrorKind::StorageFull)).context("writing out/x.csv");
        assert_eq!(error_line(&e), format!("writing out/x.csv: {said}"));
    }

    #[test]
    fn a_timed_out_read_says_so_in_words() {
        let e = raw(ErrorKind::WouldBlock);
        let text = format!("pump 127.0.0.1:5201: reading the reply: {e}");
        assert!(text.contains("os error"), "{text}");
        assert_eq!(
            plain(&text),
            "pump 127.0.0.1:5201: reading the reply: no answer within the timeout"
        );
    }

    #[test]
    fn every_meaningful_kind_is_reworded_and_others_are_kept() {
        for kind in [
            ErrorKind::ConnectionRefused,
            ErrorKind::ConnectionReset,
            ErrorKind::BrokenPipe,
            ErrorKind::AddrInUse,
            ErrorKind::AddrNotAvailable,
        ] {
            let text = format!("x: {}", raw(kind));
            let said = plain(&text);
            assert!(!said.contains("os error"), "{kind:?}: {said}");
            assert_eq!(said, format!("x: {}", meaning(kind).unwrap()));
        }
        // A failure with no plainer words (a full disk) keeps the system's.
        let full = raw(ErrorKind::StorageFull).to_string();
        assert_eq!(plain(&full), full);
    }
}
