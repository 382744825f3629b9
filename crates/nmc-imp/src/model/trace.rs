//! The trace (`trace = true`): one JSON line per event of the procedures.

use super::MsgState;
use crate::packet::MsgId;
use serde::Serialize;

/// A trace line (`trace = true`).
#[derive(Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub(super) enum Tr<'a> {
    State {
        msg: MsgId,
        from: MsgState,
        to: MsgState,
    },
    Offered {
        msg: MsgId,
        host: &'a str,
    },
    FirstIn {
        msg: MsgId,
        imp: &'a str,
    },
    Number {
        msg: MsgId,
        num: u64,
    },
    Plt {
        msg: MsgId,
        plt_used: u32,
    },
    Reqall {
        msg: MsgId,
        num: u64,
    },
    Launched {
        msg: MsgId,
    },
    Accepted {
        msg: MsgId,
    },
    /// A frame's first bit leaves: a packet (by kind), a routing message or a null packet,
    /// and its length on the line.
    Send {
        kind: &'static str,
        msg: Option<MsgId>,
        packet: Option<u8>,
        bits: u64,
        from: &'a str,
        to: &'a str,
        retransmission: bool,
    },
    Reject {
        kind: &'static str,
        at: &'a str,
        reason: &'static str,
    },
    LineError {
        from: &'a str,
        to: &'a str,
    },
    Reassembled {
        msg: MsgId,
        imp: &'a str,
    },
    ToHost {
        msg: MsgId,
        packet: u8,
    },
    Rfnm {
        msg: MsgId,
        all: bool,
        waited_ns: u64,
    },
    AllSent {
        num: u64,
        to: &'a str,
    },
    RfnmIn {
        msg: MsgId,
        all: bool,
        rtt_ns: u64,
    },
    AllIn {
        num: u64,
    },
    AllPut {
        imp: &'a str,
        from: &'a str,
    },
    AllTaken {
        msg: MsgId,
        imp: &'a str,
    },
    AllPulled {
        imp: &'a str,
        to: &'a str,
    },
    Tally {
        imp: &'a str,
        held: u32,
    },
    Giveback {
        imp: &'a str,
        to: &'a str,
    },
    /// A single-packet message reached its destination IMP (RFC 632), and what became of it.
    SingleIn {
        msg: MsgId,
        num: u64,
        imp: &'a str,
        disposition: &'static str,
    },
    SingleAllSent {
        msg: MsgId,
        num: u64,
        to: &'a str,
    },
    SingleDeleted {
        msg: MsgId,
        num: u64,
        imp: &'a str,
    },
    Scripted {
        action: String,
    },
    Lockup {
        pending: usize,
        since_ns: u64,
    },
}
