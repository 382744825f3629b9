//! # `nmc pump`: Kleinrock & Opderbeck's throughput experiment on today's paths
//!
//! In October 1974 the NMC's PDP 11/45 at UCLA pumped 8-packet messages into the ARPANET, at most
//! four outstanding, each released by the RFNM ("ready for next message") that the destination
//! IMP returned once the message was reassembled; it timed each round trip and reported
//! throughput over the run and over the best 150 consecutive messages, the round-trip histogram
//! and its autocorrelation (Kleinrock & Opderbeck, "Throughput in the ARPANET — Protocols and
//! Measurement", IEEE Trans. Commun. 25(1), 1977, §III–IV). The four-message limit capped
//! throughput at 4 × message / round trip when a path's bandwidth × round trip exceeded it (§III,
//! Fig. 2). This module repeats that against `nmc echo serve --pump` over TCP or UDP.
//!
//! | module | what |
//! | --- | --- |
//! | [`wire`] | the DATA frame and the RFNM, byte by byte |
//! | [`sender`] | the pump's core: N outstanding, RFNMs, UDP retransmission, give-up |
//! | [`sink`] | the server's core: reassembly, RFNMs, order and repeat counts, bounded state |
//! | [`analysis`] | throughput, best 150, round trips, window limit, histogram, autocorrelation |
//! | [`running`] | the same figures kept as messages finish, in bounded state (issue 34) |
//! | [`window`] | the measured window: what falls in the warm-up (`--omit`) and what in the run |
//! | [`report`] | `messages.csv`, `summary.json`, the text report, three SVG plots |
//! | [`net`] | the socket drivers: pump over TCP and UDP, the server's TCP side |
//! | [`reverse`] | `--reverse` (iperf3 `-R`): the server sends, the client receives; where each figure is measured, and why; the server's side |
//! | [`reverse_client`] | the client's side of a reverse run: ask, receive, answer, read the figures back |
//! | [`receiver`] | the receiving core of a reverse run: frames or datagrams in, RFNMs out, arrivals timed |
//!
//! The cores ([`sender::Pump`], [`sink::SinkCore`], [`sink::TcpSink`]) read no clock and do no
//! I/O: the drivers hand them the time and the bytes.
//!
//! ## Left out, on purpose
//!
//! - Rate limits on the UDP side: an RFNM is shorter than the datagram it answers and there is
//!   one per message, so the UDP side cannot amplify; it is therefore not rate-limited. (With a
//!   secret every datagram carries a tag, [`wire::TAG_LEN`]; the TCP side takes the challenge.)
//! - The IMP's own machinery (message numbers, PLT, reassembly allocation): only the end-to-end
//!   window is reproduced; today's path supplies the rest.

pub mod analysis;
pub mod net;
pub mod receiver;
pub mod report;
pub mod reverse;
pub mod reverse_client;
pub mod running;
pub mod sender;
pub mod sink;
pub mod window;
pub mod wire;

pub use analysis::{Collector, PumpFigures, PumpRun, PumpSummary};
pub use sender::{PumpConfig, PumpError, PumpTransport};
