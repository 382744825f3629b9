//! `nmc stream`: RFC 508's double-buffered isochronous source on a real path, and its discard
//! sink.
//!
//! The sender is the SEL 810-B's measurement program with sockets in place of the 360: two
//! buffers; a buffer fills at the process bit rate (a deadline on the monotonic clock); when it
//! is full a write is initiated and the other buffer is tested; if the other buffer's write has
//! not completed, a gap starts and lasts until it completes (RFC 508 §IV). "Write complete" is
//! either the socket accepting the whole buffer, or (`ack`) the sink's acknowledgement that it
//! read it: the analogue of the RFNM. Gaps are timed from the gap's start to the writer's
//! completion time on the monotonic clock; the process resumes within 1 ms of it (it tests
//! every millisecond, as the SEL did).
//!
//! | module | what |
//! | --- | --- |
//! | [`wire`] | the frame a buffer travels in and the acknowledgement |
//! | [`arrivals`] | what a UDP stream's receiver sees: RFC 3550's jitter, buffers out of order; one interval as the receiver saw it |
//! | [`sink`] | the discard sink (TCP and UDP on one port), with a scripted stall for tests; [`sink::SinkService`], the same sink as one of `nmc serve`'s instruments |
//! | [`sender`] | the double-buffered source and its per-buffer records |
//! | [`reverse`] | `--reverse` (iperf3 `-R`): the sink sends, the client receives; where the gaps are measured, and why |

pub mod arrivals;
pub mod reverse;
pub mod sender;
pub mod sink;
pub mod wire;

/// Default port of the sink: 8890, the port of `nmc serve` and of every nmc server, so that a
/// client finds one without being told (it was 5080, "508", before one server served all).
pub const DEFAULT_PORT: u16 = 8890;

/// TCP (reliable and ordered, as the NCP's connections were) or UDP (one datagram a buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// One TCP connection; the buffers are frames in its byte stream.
    Tcp,
    /// One UDP datagram per buffer.
    Udp,
}

/// Why a stream could not start or stopped early: one line.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// A setting is refused, or the sink answered in a way the stream cannot use; the message
    /// says which.
    #[error("{0}")]
    Input(String),
    /// The sink could not be reached.
    #[error("cannot reach the sink at {addr}: {err}")]
    Connect {
        /// The sink's address.
        addr: String,
        /// The error the connection attempt returned.
        err: std::io::Error,
    },
    /// A UDP run's opening exchange was not answered (issue 58 §1): nothing was measured. The
    /// message says what the sink's TCP port said instead.
    #[error("cannot reach the sink: {0}")]
    Unanswered(nmc_serve::opening::Silence),
    /// The sink refused the run (a reverse request it does not serve: past its limits, ...);
    /// its one line (issue 58 §3: told apart from bad input for the exit code).
    #[error("{0}")]
    Refused(String),
    /// A socket call failed during the run.
    #[error("{what}: {err}")]
    Io {
        /// What the stream was doing (`receiving the stream`, ...).
        what: &'static str,
        /// The error the operating system returned.
        err: std::io::Error,
    },
}
