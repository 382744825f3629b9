//! A time slice of the measured pair (K&O Figs. 2, 7, 8) as a typed value: where each of its
//! messages, RFNMs, REQALLs and ALLs is along the path at an instant ([`TimeSlice`]). The
//! driver takes it off the subnet (`model/slice.rs`).

use serde::Serialize;

/// One thing on the path at the instant.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SliceItem {
    /// `MSG`, `RFNM`, `REQALL` or `ALL`.
    pub what: &'static str,
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
    /// What it is doing: `waiting for PLT`, `in flight`, `waiting for an ALL`, ….
    pub doing: &'static str,
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
