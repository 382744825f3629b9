//! The names of the metrics a run reports ([`crate::run::Outcome::metrics`], `summary.json`),
//! one constant or function per name, used where a metric is written and where it is read
//! (issue 32: a renamed key is a compile error, not a row that silently reads NaN).
//!
//! Reading: [`crate::run::Outcome::measured`] for a figure that may be absent (a mean with no
//! samples: NaN then, as a table shows it), [`crate::run::Outcome::counted`] for a counter (0
//! when nothing was counted).

/// Messages of the measured pair whose RFNM came back.
pub const MESSAGES_COMPLETED: &str = "messages.completed";
/// The measured pair's data bits delivered per second of the measured period, kbit/s.
pub const THROUGHPUT_KBPS: &str = "throughput_kbps";
/// The best 150 consecutive messages' throughput, kbit/s (K&O §IV).
pub const BEST150_KBPS: &str = "best150_kbps";
/// Mean round trip, from the message's last packet in the source IMP (`accepted_ns`) to its
/// RFNM, ms (`analysis::round_trips_ms`).
pub const RTT_MEAN_MS: &str = "rtt.mean_ms";
/// Mean round trip from the message's offer to the IMP, ms.
pub const RTT_FROM_OFFER_MEAN_MS: &str = "rtt_from_offer.mean_ms";
/// Mean time a message holds its message number, from taking it (K&O point b) to its RFNM
/// (point h), ms: one cycle of a number.
pub const CYCLE_MEAN_MS: &str = "cycle.mean_ms";
/// The fraction of RFNMs that carried an ALL.
pub const RFNM_WITH_ALL_FRACTION: &str = "rfnm.with_all_fraction";
/// A RFNM's wait for reassembly buffers at the destination, mean and longest, ms.
pub const RFNM_WAIT_AT_DESTINATION_MEAN_MS: &str = "rfnm.wait_at_destination.mean_ms";
/// The longest RFNM wait for reassembly buffers at the destination, ms.
pub const RFNM_WAIT_AT_DESTINATION_MAX_MS: &str = "rfnm.wait_at_destination.max_ms";
/// The busiest line's utilisation (either direction).
pub const LINES_UTILISATION_MAX: &str = "lines.utilisation.max";
/// Line utilisation (either direction), the mean over lines.
pub const LINES_UTILISATION_MEAN: &str = "lines.utilisation.mean";
/// Single-packet messages' copies sent again on an ALLOCATE (RFC 632), summed over the
/// messages; the IMP-to-IMP retransmissions are `count.retransmissions` ([`count`]).
pub const MESSAGES_RETRANSMISSIONS: &str = "messages.retransmissions";
/// Other hosts' messages offered per second, and their mean packets per message.
pub const BACKGROUND_OFFERED_PER_S: &str = "background.offered_per_s";
/// Other hosts' messages: their mean packets per message.
pub const BACKGROUND_PACKETS_PER_MESSAGE: &str = "background.packets_per_message";
/// Routing: best-neighbour changes and hold-downs started.
pub const ROUTING_ROUTE_CHANGES: &str = "routing.route_changes";
/// Routing: hold-downs started.
pub const ROUTING_HOLD_DOWNS: &str = "routing.hold_downs";

/// The mean of one resource the measured pair holds (`occupancy.csv`'s columns:
/// `message_numbers`, `plt_entries`, `reassembly_buffers`, `plt_messages`, `plt_reqalls`,
/// `plt_rfnms_waiting`).
pub fn occupancy_mean(resource: &str) -> String {
    format!("occupancy.{resource}.mean")
}

/// A counter of the run ([`crate::model::Counted`]'s names, e.g. `reqall`,
/// `single-rejected`).
pub fn count(name: &str) -> String {
    format!("count.{name}")
}

/// The mean wait in the processors' task queues of one IMP model (`316`, `516`), ms.
pub fn processing_wait_mean_ms(model: &str) -> String {
    format!("processing.{model}.wait_mean_ms")
}

/// The mean round trip of other hosts' messages between IMPs `hops` apart (RFC 619 Table 1's
/// definition), ms.
pub fn background_rtt_by_hops_mean_ms(hops: u32) -> String {
    format!("background.rtt_by_hops.{hops:02}.mean_ms")
}

/// How many of other hosts' messages went between IMPs `hops` apart.
pub fn background_rtt_by_hops_messages(hops: u32) -> String {
    format!("background.rtt_by_hops.{hops:02}.messages")
}
