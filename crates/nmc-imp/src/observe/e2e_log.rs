//! The end-to-end events of single-packet messages as typed values, in RFC 632's words
//! ([`E2eEvent`]: `record = ["e2e"]`); `e2e/table.rs` lays them out as the RFC's Tables 1–2.

use serde::Serialize;

/// One end-to-end event of a single-packet message, as RFC 632's tables list them
/// (`record = ["e2e"]`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct E2eEvent {
    /// When, ns since the start.
    pub(crate) t_ns: u64,
    /// The pair: source and destination IMPs.
    pub(crate) src: String,
    /// The destination IMP of the pair.
    pub(crate) dst: String,
    /// The IMP where it happens.
    pub(crate) side: Side,
    /// What the event is about: the message, its RFNM or its ALLOCATE.
    pub(crate) what: What,
    /// Message number.
    pub(crate) num: u64,
    /// Sent, arrived or deleted.
    pub(crate) event: Happened,
    /// At the destination, what became of an arriving message; at the source, `again` for a
    /// copy sent on an ALLOCATE.
    pub(crate) note: Note,
}

/// Which IMP of the pair, RFC 632's two columns.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Side {
    /// The source IMP (RFC 632's left column).
    Source,
    /// The destination IMP (the right column).
    Destination,
}

/// What the event is about, in RFC 632's words.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub(crate) enum What {
    /// The message itself.
    #[serde(rename = "MSG")]
    Msg,
    /// Its RFNM.
    #[serde(rename = "RFNM")]
    Rfnm,
    /// The ALLOCATE for it.
    #[serde(rename = "ALL")]
    All,
}

/// What happened to it.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Happened {
    /// Sent by the IMP.
    Sent,
    /// Arrived at the IMP.
    Arr,
    /// A stored out-of-order message deleted to make room (RFC 632 fix B).
    Deleted,
}

/// A destination's disposition of an arriving message (RFC 632 Table 2 prints them), or
/// `again` at the source.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub(crate) enum Note {
    /// Nothing to note.
    #[serde(rename = "")]
    None,
    /// Accepted in order and queued for the destination host.
    #[serde(rename = "HOST output")]
    HostOutput,
    /// Accepted out of order and stored until its turn.
    #[serde(rename = "stored")]
    Stored,
    /// Not accepted: treated as a request for one reassembly buffer, and discarded.
    #[serde(rename = "rejected")]
    Rejected,
    /// A second copy of a message already accepted, discarded.
    #[serde(rename = "duplicate")]
    Duplicate,
    /// At the source: the copy sent again on an ALLOCATE.
    #[serde(rename = "again")]
    Again,
}

macro_rules! words {
    ($t:ty { $($v:ident => $s:literal),* $(,)? }) => {
        impl $t {
            /// The word RFC 632 (or the trace) uses.
            pub(crate) fn as_str(self) -> &'static str {
                match self { $(Self::$v => $s),* }
            }
        }
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
words!(Side { Source => "source", Destination => "destination" });
words!(What { Msg => "MSG", Rfnm => "RFNM", All => "ALL" });
words!(Happened { Sent => "sent", Arr => "arr", Deleted => "deleted" });

words!(Note { None => "", HostOutput => "HOST output", Stored => "stored", Rejected => "rejected",
    Duplicate => "duplicate", Again => "again" });
