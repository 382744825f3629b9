//! One exit-code contract for every command (issue 58 §3), so that a script can tell what
//! happened without reading the text:
//!
//! | code | meaning |
//! | --- | --- |
//! | 0 | the run completed (for `reproduce`, every check within its tolerance) |
//! | 1 | a check fell outside its tolerance (`reproduce --strict`) |
//! | 2 | bad usage or input, or another failure (a file that cannot be written, ...) |
//! | 3 | cannot reach the server, or it refused the run: nothing was measured |
//! | 4 | a partial run: the path or the server stopped it early; what was measured is printed and written |
//! | 5 | stopped by the user (Ctrl-C, SIGTERM); what was measured is printed and written |
//! | 130 | a second signal, more than `nmc_probe::signal::SAME_STOP` after the first: the process ended at once |
//!
//! An instrument says which by returning an error made here ([`unreachable()`], [`partial`],
//! [`stopped`]), or by the library's own error for the cases it knows (a stream's sink that
//! cannot be reached, a pump's server that refused); [`code`] reads either from the error's
//! chain. Anything else is 2, as before.

use std::fmt;

/// The run completed.
pub const OK: u8 = 0;
/// A check fell outside its tolerance.
pub const OUTSIDE_TOLERANCE: u8 = 1;
/// Bad usage or input, or another failure.
pub const FAILED: u8 = 2;
/// Cannot reach the server, or it refused the run: nothing was measured.
pub const UNREACHABLE: u8 = 3;
/// A partial run, stopped early by the path or the server; what was measured is kept.
pub const PARTIAL: u8 = 4;
/// Stopped by the user; what was measured is kept.
pub const STOPPED: u8 = 5;

/// An error with its exit code.
#[derive(Debug)]
struct Classified {
    code: u8,
    line: String,
}

impl fmt::Display for Classified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.line)
    }
}

impl std::error::Error for Classified {}

fn classified(code: u8, line: impl fmt::Display) -> anyhow::Error {
    anyhow::Error::new(Classified {
        code,
        line: line.to_string(),
    })
}

/// The server could not be reached or refused the run (exit 3); `line` says why.
pub fn unreachable(line: impl fmt::Display) -> anyhow::Error {
    classified(UNREACHABLE, line)
}

/// A partial run, kept (exit 4); `line` says why it ended early.
pub fn partial(line: impl fmt::Display) -> anyhow::Error {
    classified(PARTIAL, line)
}

/// Stopped by the user, what ran kept (exit 5); `line` says so.
pub fn stopped(line: impl fmt::Display) -> anyhow::Error {
    classified(STOPPED, line)
}

/// The exit code of a command that failed with `e`: the first code found in its chain (an
/// error made here, or a library's error that says it could not reach its server), else 2.
pub fn code(e: &anyhow::Error) -> u8 {
    use nmc_cost::live::LiveError;
    use nmc_realtime::stream::StreamError;
    for c in e.chain() {
        if let Some(k) = c.downcast_ref::<Classified>() {
            return k.code;
        }
        if let Some(
            StreamError::Connect { .. } | StreamError::Unanswered(_) | StreamError::Refused(_),
        ) = c.downcast_ref()
        {
            return UNREACHABLE;
        }
        if let Some(
            LiveError::Connect { .. } | LiveError::WantsSecret { .. } | LiveError::Auth { .. },
        ) = c.downcast_ref()
        {
            return UNREACHABLE;
        }
        if let Some(nmc_probe::Error::Unreachable(_)) = c.downcast_ref() {
            return UNREACHABLE;
        }
    }
    FAILED
}

/// The exit statuses the command `path` (the words after `nmc`: `["echo", "probe"]`) can end
/// with, each with its meaning for that command: its man page's EXIT STATUS section (issue 58
/// §8), from the table above.
pub fn statuses(path: &[&str]) -> Vec<(u8, &'static str)> {
    const SECOND: (u8, &str) = (
        130,
        "a second signal, more than 0.5 s after the first: the process ended at once, keeping \
         nothing more",
    );
    const USAGE: (u8, &str) = (
        FAILED,
        "bad usage or input, or another failure (a file that cannot be written, ...): one line on \
         stderr",
    );
    match path {
        ["echo", "probe"] | ["pump"] | ["stream"] | ["cost"] => {
            let mut v = vec![
                (OK, "the run completed"),
                USAGE,
                (
                    UNREACHABLE,
                    "cannot reach the server, or it refused the run: nothing was measured",
                ),
            ];
            if matches!(path, ["pump"] | ["stream"]) {
                v.push((
                    PARTIAL,
                    "a partial run: the path or the server ended it early; what was measured is \
                     printed and written",
                ));
            }
            v.push((
                STOPPED,
                "stopped by the user (Ctrl-C, SIGTERM); what was measured is printed and written",
            ));
            v.push(SECOND);
            v
        }
        ["serve"] | ["echo", "serve"] | ["sink"] => vec![
            (
                OK,
                "stopped by SIGTERM or Ctrl-C, or at --duration, with a last summary line",
            ),
            USAGE,
            SECOND,
        ],
        ["path"] => vec![
            (
                OK,
                "stopped by SIGTERM or Ctrl-C, or at --duration; the namespaces are removed",
            ),
            (
                FAILED,
                "bad usage, or the path cannot be made (not root, its names taken, no \
                 /dev/net/tun): one line on stderr",
            ),
            (
                130,
                "a second signal, more than 0.5 s after the first: the process ended at once, \
                 leaving the namespaces (ip netns del NAME-a; ip netns del NAME-b)",
            ),
        ],
        ["reproduce"] => vec![
            (
                OK,
                "the run completed (with --strict: and every row is within its tolerance)",
            ),
            (
                OUTSIDE_TOLERANCE,
                "with --strict: a row fell outside its tolerance",
            ),
            USAGE,
        ],
        _ => vec![(OK, "the command completed"), USAGE],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_has_its_own_code_and_context_keeps_it() {
        use anyhow::Context as _;
        let codes = [
            code(&anyhow::anyhow!("bad input")),
            code(&unreachable("no answer")),
            code(&partial("sink closed")),
            code(&stopped("Ctrl-C")),
        ];
        assert_eq!(codes, [FAILED, UNREACHABLE, PARTIAL, STOPPED]);
        let wrapped = Err::<(), _>(partial("sink closed"))
            .context("forward")
            .unwrap_err();
        assert_eq!(code(&wrapped), PARTIAL);
        assert_eq!(format!("{wrapped:#}"), "forward: sink closed");
        let lib = anyhow::Error::new(nmc_probe::Error::Unreachable("refused".into()));
        assert_eq!(code(&lib), UNREACHABLE);
        let all = [OK, OUTSIDE_TOLERANCE, FAILED, UNREACHABLE, PARTIAL, STOPPED];
        let mut sorted = all.to_vec();
        sorted.dedup();
        assert_eq!(sorted.len(), all.len());
        assert!(!all.contains(&(nmc_probe::signal::EXIT_ON_SECOND_SIGNAL as u8)));
    }
}
