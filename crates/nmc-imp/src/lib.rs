//! # nmc-imp — the ARPANET IMP subnet, October 1974 ("version 2") and 1975 ("version 3")
//!
//! Start here. The subnet of K&O §II–III (Kleinrock & Opderbeck, IEEE Trans. Commun. 1977):
//! IMPs joined by full-duplex lines, hosts on 100 kbit/s interfaces, messages of up to 8063 bits
//! cut into packets of up to 1008 bits, stored and forwarded with IMP-to-IMP acknowledgement
//! and retransmission, reassembled at the destination and acknowledged end to end by a RFNM,
//! with the version 2 flow control that rations message numbers, pending-leader-table entries
//! and reassembly buffers — or the version 3 procedure of K&O §VI–VII (message control blocks,
//! numbers per host pair, allocation before PLT entry; profiles `v3-1975-02`, `v3-1975-05`).
//!
//! The modules linked below are the crate's public surface, what other crates use; those in
//! plain code are its own (private to it).
//!
//! | module | what |
//! | --- | --- |
//! | [`params`] | every protocol constant, as a named parameter of a profile (`v2-1974-10`), with its source |
//! | [`spec`] | the typed configuration a run takes ([`ImpConfig`]): resolved parameters, topology, hosts, events, traffic; the scenario file's own form and its resolution are [`scenario`]'s |
//! | [`topology`] | IMPs and lines from a chain, an explicit list, or the 1974 ARPANET map; static routes behind [`topology::Routes`] |
//! | [`routing`] | `network.routing`: static routes or the 1974 adaptive procedure (`nmc-routing`), lines going down and up, per-packet visits and loop records |
//! | [`packet`] | data packets and subnet control messages (RFNM, REQALL, ALL, GVB, version 3 block messages); streams, the sequences message numbers count in |
//! | `link` | an IMP's interface to one line: the outgoing direction's logical channels, acknowledgements, retransmission (each channel's deadline, `link::Link::poll_at`) and line errors, and the sequence bits last accepted coming in |
//! | `imp` | one IMP as a core: its buffers, taken and freed only through its methods (K&O §III's rule for a packet in transit, `imp::Imp::admit_transit`), its lines, its processor, its source and destination tables; a host's packet let in or kept waiting (`imp::Imp::admit_host_packet`: K&O §III's 4 free buffers and 8-packet output queue), a frame from a neighbour handled whole (`imp::Imp::handle_frame`: checksum, piggy-backed acknowledgements, duplicates, K&O §III's rejections), a packet the processor is done with acknowledged and sent on (`imp::Imp::owe_acknowledgement`, `imp::Imp::forward`), the next frame on a line (`imp::Imp::poll_transmit`), its timers run out through one door (`imp::Imp::handle_timeout`: the processor's task, retransmission, the RFNM's 1 s wait, the 250 ms give-back, version 3's block disuse), and its next wake-up (`imp::Imp::poll_at`) |
//! | `hop` | the IMP's hop-by-hop steps (`hop/processing.rs`: the processor's tasks and clock, the task level's store-and-forward decision and acknowledgement; `hop/lines.rs`: a frame sent, a packet sent again), pushing what the driver is to do |
//! | `processor` | an IMP's processor as a sans-I/O core (`processor::Processor`): one FIFO task queue, and the clock's timeout level that pre-empts it (IMP program 3050) |
//! | `blocks` | version 3's message control blocks, transmit and receive, as sans-I/O cores (K&O §VI) |
//! | `destination` | the destination IMP's reassembly, in-order hand-over and the replies it owes (RFNMs, ALLs, BBN's fix) as sans-I/O cores (K&O §II points d, f, g; §VII; RFC 632) |
//! | `source` | the source IMP's end-to-end tables as sans-I/O cores: message numbers, PLT entries, allocations (K&O §II points b, c, h) |
//! | [`model`] | the event model: the life of a message, points a–i of K&O Fig. 1; the IMPs' clocks ticking (`model/processing.rs`); other hosts' traffic (`model/background.rs`); a packet for an IMP handed to its step (`model/message.rs`) and what the IMP's steps push carried out (`model/output.rs`); the observers' ticks (`model/watch.rs`, `model/slice.rs`, `model/lockup.rs`) |
//! | [`observe`] | what a run records, counts and watches, as typed values handed to the `observe::Observer`: each message's timeline and milestones, counts, occupancy samples, time slices, RFC 632's e2e events, the lockup report |
//! | [`metric`] | what a run measured, as typed values (`ImpMetrics`), and their `summary.json` names |
//! | [`records`] | messages.csv, e2e.csv, occupancy.csv and journeys.csv written as the run makes them, in message order, so that memory stays flat in simulated time |
//! | [`mod@run`] | build from a scenario, run, collect records and metrics |
//! | [`scenario`] | a `model = "imp"` scenario file as written (a profile's name, `[network.params]` and `[network.routing_params]` overrides) resolved into [`ImpConfig`], with one-line errors naming the key |
//! | `timer` | a timer as a value that carries its deadline: one wake-up queued however often it is re-armed (`timer::Timer`), or one per arming where merging wake-ups would reorder a run's events (`timer::Deadline`: the retransmission, RFNM-wait and give-back timers) |
//! | `stepper` | the subnet inside a larger model: hosts handed messages from outside, a clock the caller advances, deliveries it polls ([`Stepper`]) |
//! | [`analysis`] | throughput, best 150, round-trip histogram and autocorrelation |
//! | [`e2e`] | the IMP's end-to-end steps, each tested on one IMP: the source's (K&O Fig. 1 points a–e, h, i; `e2e/messages.rs`) over one trait per software version (`e2e::procedure::Procedure`: `e2e/v2.rs`, `e2e/v3.rs`); the destination's and its replies (`e2e/replies.rs`); both ends of single-packet messages (RFC 632, `e2e/single.rs`); version 3's control blocks (`e2e/control_blocks.rs`); and their end-to-end events in RFC 632's two-column layout (Tables 1–2, `e2e/table.rs`) |
//! | `tests` | whole-subnet tests, each a scenario file run and checked against K&O and the RFCs (inside the crate: they read what no other crate reads) |
//!
//! ## A message's life, stage by stage, and where each stage is
//! The rules (what a table allows) and the steps that apply them are the IMP's, sans-I/O on one
//! IMP (`imp::Imp`, its call order in `imp.rs`); the driver (`model/`) carries out what each
//! step pushes: frames on lines, events in time, records and traces.
//!
//! | stage (K&O §II–III, Fig. 1; RFC 632) | rules | driver |
//! | --- | --- | --- |
//! | the host hands the message to its IMP, packet by packet (K&O §III's 4 free buffers); the source IMP holds it in its table until the RFNM (`source::SourceMsg`, `source::MsgState`) | `imp.rs` (`imp::Imp::admit_host_packet`), `e2e/messages.rs` (`imp::Imp::host_packet_in`) | `model/host.rs` |
//! | a message number, a PLT entry, an allocation or a REQALL (points b–d) | `e2e/messages.rs` (`imp::Imp::advance`) after `e2e/v2.rs`, `e2e/v3.rs`, over the tables of `source.rs` | `model/output.rs` |
//! | version 3's message control blocks (K&O §VI) | `blocks.rs`; the IMP's steps in `e2e/control_blocks.rs`, which push what follows (`imp::Output`) | `model/output.rs` carries the outputs out |
//! | launch (point e); packets IMP to IMP: acknowledgements, retransmission, line errors, K&O §III's rejections | `link.rs`, `imp.rs` (`imp::Imp::handle_frame`) | `model/line.rs` |
//! | each IMP's processor: the task queue and the clock; the task level's store-and-forward decision and acknowledgement | `processor.rs`, `hop/processing.rs` | `model/processing.rs` (the clock), `model/output.rs` |
//! | the route a packet takes | `routing.rs` (`nmc-routing`) | `model/adaptive.rs` |
//! | reassembly, in-order hand-over, the RFNM with or without a piggy-backed ALL, the ALL | `e2e/replies.rs` over the tables of `destination.rs` | `model/message.rs` hands the packet in, `model/host.rs` the host's output |
//! | single-packet messages at the destination (RFC 632) | `e2e/single.rs` | `model/single.rs` |
//! | the RFNM at the source, allocations kept and given back (GVB) | `e2e/messages.rs`, `e2e/replies.rs` over the tables of `source.rs` | `model/message.rs` records the answer |
//! | what is watched and written (each message's timeline: `observe::Tracked`, `observe::Milestone`) | `observe/` | `model/watch.rs`, `model/slice.rs`, `model/lockup.rs`; then `records.rs`, `metric.rs`, `analysis.rs` |
//!
//! ## What the model leaves out, and why
//! * Single-packet messages follow RFC 632 (`e2e/single.rs`, `model/single.rs`): a message number but no PLT
//!   entry and no REQALL; out-of-order arrivals by `params::SinglePacketRule` (profiles
//!   `rfc632-current`, `rfc632-fix-a`, `rfc632-fix-b`, `rfc626-accept-all`). The IMP message
//!   generator, scripted disturbances (one line error, one detour) and generator pauses are in
//!   `model/instrument.rs`; a run that locks up stops with a [`observe::LockupReport`].
//! * Routing is static shortest-hop unless the scenario asks for `routing = "adaptive"` (see
//!   [`routing`] for what that procedure leaves out); with static routes, routing messages are
//!   still sent every 640 ms so that they take their share of each line.
//! * Control messages (RFNM, ALL, REQALL, GVB) do not compete for packet buffers (a choice,
//!   the sources are silent); they do take line time and need acknowledgement.
//! * The live network (issue 10): other hosts' messages from an origin/destination matrix
//!   (`kind = "background"`), every frame and host packet through the IMP's one task queue
//!   with 316 or 516 costs and the clock jobs above it, routing messages as often as the
//!   line's load allows (`routing_frequency`), all from BBN's IMP program 3050 (Sept 1973) and
//!   RFCs 612 and 619; see `params.rs` for each figure's source. The IMP's own fake hosts and
//!   the background-level work (RFNM and ALL generation ran there) take no processor time.

#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod analysis;
mod blocks;
mod destination;
pub mod e2e;
mod hop;
mod imp;
mod link;
pub mod metric;
pub mod model;
pub mod observe;
pub mod packet;
pub mod params;
mod processor;
pub mod records;
pub mod routing;
pub mod run;
pub mod scenario;
mod source;
pub mod spec;
mod stepper;
mod timer;
pub mod topology;

#[cfg(test)]
mod tests;

pub use params::ImpParams;

pub use run::{Outcome, run};
pub use spec::{ImpConfig, Network};
pub use stepper::Stepper;
