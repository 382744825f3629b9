//! The records a run keeps, as typed values: each message's timeline ([`MessageRecord`]) and
//! what the observer holds of a message in the subnet ([`Tracked`]), what befalls a message on
//! its way ([`Milestone`]), the protocol's counts ([`Counted`]), the measured pair's occupancy
//! ([`Occupancy`]), and every message's tally with the background traffic's share
//! ([`BackgroundTally`]).

use crate::packet::MsgId;
use serde::Serialize;

/// One message's timeline, in ns since the start (`record = ["messages"]`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct MessageRecord {
    /// The message's id.
    pub id: MsgId,
    /// The source host's name.
    pub host: String,
    /// The destination host's name.
    pub(crate) dst_host: String,
    /// Its length, data bits.
    pub bits: u64,
    /// The host starts putting packet 1 into the source IMP.
    pub offered_ns: u64,
    /// Packet 1 is in the source IMP (point a).
    pub first_in_ns: Option<u64>,
    /// The message took the number it travels with (point b; after a REQALL, the second one).
    pub numbered_ns: Option<u64>,
    /// Packet 1 leaves with all resources held (point e).
    pub launched_ns: Option<u64>,
    /// The last packet is in the source IMP; the host may offer the next message.
    pub accepted_ns: Option<u64>,
    /// Packet 1 reached the destination IMP (K&O Fig. 7 point e).
    pub first_arrived_ns: Option<u64>,
    /// The last packet reached the destination IMP: reassembled (K&O Fig. 7 point f).
    pub reassembled_ns: Option<u64>,
    /// The RFNM was made: packet 1 is at the destination host (K&O §II point g).
    pub(crate) rfnm_made_ns: Option<u64>,
    /// The RFNM left the destination IMP (K&O Fig. 7 point g: with the ALL it waited for).
    pub rfnm_sent_ns: Option<u64>,
    /// The last packet reached the destination host.
    pub delivered_ns: Option<u64>,
    /// The RFNM reached the source host (point h).
    pub rfnm_ns: Option<u64>,
    /// REQALLs sent for it.
    pub(crate) reqalls: u32,
    /// Whether its RFNM carried a piggy-backed ALL (`None` until the RFNM comes back).
    pub rfnm_carried_all: Option<bool>,
    /// Times a single-packet message's copy was sent again on an ALLOCATE (RFC 632).
    pub retransmissions: u32,
}

impl MessageRecord {
    /// The destination host's name.
    pub fn dst_host(&self) -> &str {
        &self.dst_host
    }

    /// A message's timeline as hosts outside the model saw it (the emulated IMPs of
    /// `[network.program]`, issue 73 §3): offered, taken whole by the source IMP, delivered,
    /// answered; the IMPs' inner steps unknown.
    #[allow(clippy::too_many_arguments, reason = "one argument per column seen")]
    pub fn observed(
        id: MsgId,
        host: &str,
        dst_host: &str,
        bits: u64,
        offered_ns: u64,
        accepted_ns: Option<u64>,
        delivered_ns: Option<u64>,
        rfnm_ns: Option<u64>,
    ) -> MessageRecord {
        MessageRecord {
            id,
            host: host.to_string(),
            dst_host: dst_host.to_string(),
            bits,
            offered_ns,
            accepted_ns,
            delivered_ns,
            rfnm_ns,
            ..MessageRecord::default()
        }
    }
}

/// Occupancy of the measured pair's resources, sampled periodically.
#[derive(Clone, Debug, Serialize)]
pub struct Occupancy {
    /// When the sample was taken, ns since the start.
    pub t_ns: u64,
    /// Message numbers in use on the measured pair's stream.
    pub message_numbers: u32,
    /// PLT entries in use at the source IMP.
    pub plt_entries: u32,
    /// Reassembly buffers reserved or filled at the destination IMP.
    pub reassembly_buffers: u32,
    /// Unused allocations the source IMP holds for the destination IMP.
    pub(crate) allocations_held: u32,
    /// Packet buffers in use at the source IMP.
    pub(crate) source_buffers: u32,
    /// The source IMP's PLT entries by holder (K&O Fig. 7): REQALLs (version 2: messages whose
    /// REQALL stole their entry), RFNMs of the pair's messages queued at the destination IMP
    /// (waiting for buffers to carry an ALL), and the rest: messages in flight and RFNMs on
    /// their way back.
    pub plt_reqalls: u32,
    /// RFNMs of the pair's messages waiting at the destination IMP for buffers to carry an ALL.
    pub plt_rfnms_waiting: u32,
    /// The rest: messages in flight and RFNMs on their way back.
    pub plt_messages: u32,
}

/// What the protocol counts (`count.<name>` in the metrics): events of the end-to-end and
/// IMP-to-IMP procedures, named as the sources name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counted {
    /// A GVB gave an unused allocation back (K&O §II).
    Gvb,
    /// A frame hit by a line error (checksum failure).
    LineError,
    /// A packet refused by the next IMP (no buffer, or its output queue full; K&O §III).
    Rejection,
    /// A REQALL sent (K&O §II; version 3: §VI).
    Reqall,
    /// An IMP-to-IMP retransmission after the 125 ms timeout.
    Retransmission,
    /// A single-packet message's RFNM (RFC 632).
    SingleRfnm,
    /// A RFNM sent at once without an ALL because another reply waited behind it (BBN's fix, K&O §VII).
    RfnmNotPiggybacked,
    /// An ALLOCATE for a refused single-packet message (RFC 632).
    SingleAll,
    /// A stored out-of-order single-packet message deleted to make room (RFC 632 fix B).
    SingleDeleted,
    /// A second copy of a single-packet message.
    SingleDuplicate,
    /// A single-packet message's RFNM come back for a message already answered (the reply to
    /// a second copy).
    SingleRfnmDuplicate,
    /// A multi-packet message's RFNM come back for a message already answered.
    RfnmDuplicate,
    /// A single-packet message refused and kept as a request (RFC 632).
    SingleRejected,
    /// A single-packet message sent again on its ALLOCATE (RFC 632).
    SingleRetransmission,
    /// A version 3 transmit block asked for its receive block (K&O §VI).
    CreateBlock,
    /// A version 3 receive block request waited for a free block.
    ReceiveBlockWait,
    /// A version 3 transmit block released after disuse.
    ReleaseBlock,
    /// A version 3 REQALL not sent because one was outstanding (K&O §VII's first remedy).
    ReqallWithheld,
    /// A version 3 REQALL sent while another was outstanding (K&O §VII).
    SuperfluousReqall,
    /// A version 3 message waited for a free transmit block.
    TransmitBlockWait,
    /// A multi-packet RFNM with a piggy-backed ALL.
    RfnmWithAll,
    /// A multi-packet RFNM without an ALL (no 8 reassembly buffers within the wait).
    RfnmWithoutAll,
}

impl Occupancy {
    #[allow(dead_code, reason = "names the order of Occupancy::counts")]
    /// The counts whose means the metrics give (`occupancy.<name>.mean`), in this order.
    pub(crate) const COUNTED: [&'static str; 6] = crate::metric::OCCUPANCY_RESOURCES;

    /// The values of [`Occupancy::COUNTED`].
    pub(crate) fn counts(&self) -> [u32; 6] {
        [
            self.message_numbers,
            self.plt_entries,
            self.reassembly_buffers,
            self.plt_reqalls,
            self.plt_rfnms_waiting,
            self.plt_messages,
        ]
    }
}

impl Counted {
    /// The metric's name, after `count.`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Counted::Gvb => "gvb",
            Counted::LineError => "line-errors",
            Counted::Rejection => "rejections",
            Counted::Reqall => "reqall",
            Counted::Retransmission => "retransmissions",
            Counted::SingleRfnm => "rfnm(single)",
            Counted::RfnmNotPiggybacked => "rfnm-not-piggybacked",
            Counted::SingleAll => "single-all",
            Counted::SingleDeleted => "single-deleted",
            Counted::SingleDuplicate => "single-duplicates",
            Counted::SingleRfnmDuplicate => "single-rfnm-duplicates",
            Counted::RfnmDuplicate => "rfnm-duplicates",
            Counted::SingleRejected => "single-rejected",
            Counted::SingleRetransmission => "single-retransmissions",
            Counted::CreateBlock => "v3.create-block",
            Counted::ReceiveBlockWait => "v3.receive-block-wait",
            Counted::ReleaseBlock => "v3.release-block",
            Counted::ReqallWithheld => "v3.reqall-withheld",
            Counted::SuperfluousReqall => "v3.superfluous-reqall",
            Counted::TransmitBlockWait => "v3.transmit-block-wait",
            Counted::RfnmWithAll => "rfnm+all",
            Counted::RfnmWithoutAll => "rfnm-without-all",
        }
    }
}

/// What the observer keeps of each message the subnet holds, from its offer until its RFNM
/// comes back (the protocol's side of it is the source IMP's [`crate::source::SourceMsg`]).
#[derive(Clone, Debug)]
pub(crate) struct Tracked {
    /// Other hosts' traffic (`model/background.rs`): counted, not recorded one by one.
    pub(crate) background: bool,
    /// The last packet has reached the destination host.
    pub(crate) delivered: bool,
    /// Its timeline, as recorded.
    pub(crate) rec: MessageRecord,
}

/// What befalls a message on its way, as the driver tells the observer ([`Observer::note`](super::Observer::note)):
/// K&O Fig. 1's points, each setting its time in the message's [`MessageRecord`] (Fig. 7's
/// timeline).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Milestone {
    /// Packet 1 is in the source IMP (point a).
    FirstIn,
    /// It took the number it travels with (point b).
    Numbered,
    /// A REQALL was sent for it.
    Reqall,
    /// Packet 1 left with all it needs held (point e).
    Launched,
    /// Its last packet is in the source IMP; the host may offer the next message.
    Accepted,
    /// A single-packet message's copy was sent again on an ALLOCATE (RFC 632).
    Retransmitted,
    /// Packet 1 reached the destination IMP.
    FirstArrived,
    /// The last packet reached the destination IMP (point f).
    Reassembled,
    /// The RFNM was made: packet 1 is at the destination host (point g).
    RfnmMade,
    /// The RFNM left the destination IMP, `waited_ns` after it was made.
    RfnmSent {
        /// How long it waited at the destination IMP.
        waited_ns: u64,
    },
}

/// Every message offered, delivered and answered, and the background traffic's share.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct BackgroundTally {
    /// Messages a host (or the IMP message generator) started to offer to its IMP.
    pub(crate) offered: u64,
    /// Messages whose last packet reached the destination host.
    pub(crate) delivered: u64,
    /// Messages whose RFNM reached the source.
    pub(crate) answered: u64,
    /// Background messages offered.
    pub(crate) background_offered: u64,
    /// Background messages whose last packet reached the destination host.
    pub(crate) background_delivered: u64,
    /// Background messages whose RFNM reached the source.
    pub(crate) background_answered: u64,
    /// Background arrivals refused because the host's backlog was full.
    pub(crate) background_refused: u64,
    /// Packets of the background messages offered.
    pub(crate) background_packets: u64,
    /// Sum of background round trips (offered → RFNM), for the mean.
    pub(crate) background_rtt_ns: u128,
    /// Background round trips as the IMPs' statistics defined them (RFC 619 p. 3: T(6) − T(2),
    /// from the first packet's entry at the source IMP to the RFNM's arrival there), by
    /// minimum hops between the IMPs: (messages, sum in ns).
    pub(crate) background_by_hops: std::collections::BTreeMap<u32, (u64, u128)>,
}
