//! A time slice of the measured pair (K&O Figs. 2, 7, 8) as a typed value: where each of its
//! messages, RFNMs, REQALLs and ALLs is along the path at an instant ([`TimeSlice`]). The
//! driver takes it off the subnet (`model/slice.rs`).

use serde::{Serialize, Serializer};
use std::fmt;

/// What a thing on the path is; K&O's figures draw each its own shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceKind {
    /// A message (its packets).
    Msg,
    /// A RFNM.
    Rfnm,
    /// A REQALL.
    Reqall,
    /// An ALL.
    All,
}

impl SliceKind {
    /// As K&O's figures label it, and as `slices.json` writes it: `MSG`, `RFNM`, `REQALL`,
    /// `ALL`.
    pub fn as_str(self) -> &'static str {
        match self {
            SliceKind::Msg => "MSG",
            SliceKind::Rfnm => "RFNM",
            SliceKind::Reqall => "REQALL",
            SliceKind::All => "ALL",
        }
    }
}

/// What a thing on the path is doing at the instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Doing {
    /// A message's packets between the IMPs.
    InFlight,
    /// A RFNM made at the destination IMP, waiting for buffers to carry an ALL.
    RfnmWaitingForAll,
    /// A RFNM or an ALL returning to the source IMP.
    OnItsWayBack,
    /// A message reassembled or going to its host at the destination IMP.
    AtTheDestination,
    /// A message whose packet 1 is going into the source IMP.
    Entering,
    /// A message holding its number (and in version 3 its allocation), waiting for a PLT entry.
    WaitingForPlt,
    /// A message whose REQALL waits for a PLT entry (version 3).
    ReqallWaitingForPlt,
    /// A message awaiting the ALL its REQALL asked for.
    MsgWaitingForAll,
    /// A message looking for an allocation (version 3).
    LookingForAll,
    /// A message waiting for a message number.
    WaitingForNumber,
    /// A message waiting for its transmit block (version 3).
    WaitingForBlock,
    /// A REQALL on its way to the destination IMP.
    OnItsWay,
    /// An ALL answering a REQALL, waiting at the destination IMP for buffers.
    WaitingForBuffers,
}

impl Doing {
    /// In words, as the slice's picture and `slices.json` write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Doing::InFlight => "in flight",
            Doing::RfnmWaitingForAll | Doing::MsgWaitingForAll => "waiting for an ALL",
            Doing::OnItsWayBack => "on its way back",
            Doing::AtTheDestination => "at the destination",
            Doing::Entering => "entering the source IMP",
            Doing::WaitingForPlt => "waiting for a PLT entry",
            Doing::ReqallWaitingForPlt => "REQALL waiting for a PLT entry",
            Doing::LookingForAll => "looking for an ALL",
            Doing::WaitingForNumber => "waiting for a number",
            Doing::WaitingForBlock => "waiting for its block",
            Doing::OnItsWay => "on its way",
            Doing::WaitingForBuffers => "waiting for buffers",
        }
    }
}

macro_rules! in_words {
    ($t:ty) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}
in_words!(SliceKind);
in_words!(Doing);

/// One thing on the path at the instant.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SliceItem {
    /// A message, a RFNM, a REQALL or an ALL.
    pub what: SliceKind,
    /// `i`, `i-1`, `i+1`, …: the message it belongs to, relative to message *i*.
    pub label: String,
    /// Where it is, in hops from the source IMP: from `at_from` to `at_to`.
    pub at_from: f64,
    /// Its foremost position, hops from the source IMP.
    pub at_to: f64,
    /// Holds a PLT entry of the source IMP.
    pub plt: bool,
    /// Holds an allocation (the 8 reassembly buffers of an ALL).
    pub all: bool,
    /// What it is doing.
    pub doing: Doing,
}

/// The measured pair at one instant.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TimeSlice {
    /// The instant, ns since the start.
    pub t_ns: u64,
    /// The source IMP of the measured pair (hop 0).
    pub from: String,
    /// Its destination IMP (hop `hops`).
    pub to: String,
    /// Hops from the source IMP to the destination IMP.
    pub hops: u32,
    /// What is on the path at the instant.
    pub items: Vec<SliceItem>,
}
