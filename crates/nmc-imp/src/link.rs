//! One direction of a line between two IMPs, with the IMP-to-IMP protocol.
//!
//! * Frames: packets (which must be acknowledged), acknowledgement-only frames, and routing
//!   messages. Every frame carries the acknowledgements pending for the reverse direction
//!   (piggy-backed); when nothing else is to be sent, an acknowledgement goes alone. A routing
//!   frame's content stays in a side table ([`crate::routing::Routing`]); the frame carries its
//!   id (`body`, [`crate::routing::NO_BODY`] with static routes), so [`Frame`] stays `Copy`.
//! * Logical channels (K&O ref. \[6\]): a packet is sent on a free channel and holds it, and its
//!   buffer in the sending IMP, until acknowledged. Each channel alternates a one-bit sequence
//!   number, so the receiver recognises a retransmitted duplicate, acknowledges it again and
//!   discards it.
//! * A packet not acknowledged within 125 ms is sent again (K&O §III): after a line error,
//!   after a lost acknowledgement, or after the neighbour rejected it for lack of space.
//! * Queues: control messages ahead of data when `control_priority` (a choice), data in the
//!   output queue of at most `output_queue_max` packets (K&O §III).

use crate::packet::PktId;
use crate::topology::LinkDef;
use nmc_sim::{SimDuration, Stream};
use std::collections::VecDeque;

/// Who owns the buffer a sent packet keeps in the sending IMP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    /// A packet entered from a host at this IMP.
    Source,
    /// A store-and-forward packet.
    Transit,
    /// A subnet control message.
    Control,
    /// A single-packet message, whose buffer the source IMP keeps as its copy until the RFNM
    /// (RFC 632): the acknowledgement frees nothing.
    Copy,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct LogicalChannel {
    pub held: Option<(PktId, Hold)>,
    pub bit: bool,
    /// Bumped on every send and acknowledgement, so stale timers are ignored.
    pub epoch: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Packet {
        pkt: PktId,
        lch: u8,
        bit: bool,
    },
    AckOnly,
    /// A routing message; `fresh` when its serial number is new to the receiver (the first
    /// the sender sends after recomputing its table, `model/processor.rs`).
    Routing {
        body: u32,
        fresh: bool,
    },
}

#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub kind: FrameKind,
    /// Acknowledgements carried for the reverse direction: channel mask and their bits.
    pub ack_mask: u8,
    pub ack_bits: u8,
    pub corrupted: bool,
}

pub struct Link {
    pub def: LinkDef,
    pub reverse: u32,
    pub busy: bool,
    pub ctrl: VecDeque<(PktId, Hold)>,
    pub data: VecDeque<(PktId, Hold)>,
    pub retx: VecDeque<u8>,
    pub routing_due: bool,
    /// Routing-message frequency by line load (`model/processor.rs`): the opportunity within
    /// the 5, how many of the 5 are used, and the busy time when they were counted.
    pub rf_slot: u32,
    pub rf_sends: u32,
    pub rf_busy_mark: SimDuration,
    /// The sender's routing generation last sent on this line.
    pub routing_sent: Option<u64>,
    pub lch: Vec<LogicalChannel>,
    /// Packets accepted by the far IMP's input and not yet queued here (counts toward the
    /// output-queue limit).
    pub incoming: u32,
    /// Receiver state for frames arriving over this link: last accepted bit per channel.
    pub rx_last: [Option<bool>; 8],
    /// Acknowledgements this link will carry (for frames that arrived over the reverse link).
    pub ack_mask: u8,
    pub ack_bits: u8,
    pub errors: Stream,
    // Counters.
    pub busy_time: SimDuration,
    pub frames: u64,
    pub data_frames: u64,
    pub retransmissions: u64,
    pub corrupted: u64,
    pub rejected: u64,
    pub duplicates: u64,
    pub max_queue: u32,
}

impl Link {
    pub fn new(def: LinkDef, reverse: u32, channels: u8, errors: Stream) -> Self {
        Link {
            def,
            reverse,
            busy: false,
            ctrl: VecDeque::new(),
            data: VecDeque::with_capacity(16),
            retx: VecDeque::new(),
            routing_due: false,
            rf_slot: 0,
            rf_sends: 1,
            rf_busy_mark: SimDuration::ZERO,
            routing_sent: None,
            lch: vec![LogicalChannel::default(); channels as usize],
            incoming: 0,
            rx_last: [None; 8],
            ack_mask: 0,
            ack_bits: 0,
            errors,
            busy_time: SimDuration::ZERO,
            frames: 0,
            data_frames: 0,
            retransmissions: 0,
            corrupted: 0,
            rejected: 0,
            duplicates: 0,
            max_queue: 0,
        }
    }

    /// Data packets queued or on their way into the queue (the output-queue limit counts both).
    pub fn queue_len(&self) -> u32 {
        self.data.len() as u32 + self.incoming
    }

    pub fn free_channel(&self) -> Option<u8> {
        self.lch
            .iter()
            .position(|c| c.held.is_none())
            .map(|i| i as u8)
    }

    /// Channels holding unacknowledged packets.
    pub fn channels_busy(&self) -> usize {
        self.lch.iter().filter(|c| c.held.is_some()).count()
    }

    /// Takes the pending acknowledgements for a frame about to be sent.
    pub fn take_acks(&mut self) -> (u8, u8) {
        let acks = (self.ack_mask, self.ack_bits);
        self.ack_mask = 0;
        self.ack_bits = 0;
        acks
    }

    pub fn add_ack(&mut self, lch: u8, bit: bool) {
        self.ack_mask |= 1 << lch;
        if bit {
            self.ack_bits |= 1 << lch;
        } else {
            self.ack_bits &= !(1 << lch);
        }
    }
}
