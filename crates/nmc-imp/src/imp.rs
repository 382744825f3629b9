//! The state of one IMP: buffers, the processing queue, and the end-to-end tables (the
//! source side's as the cores of [`crate::source`]).

use crate::blocks::{ReceiveBlocks, TransmitBlocks};
use crate::destination::{Delivery, Replies};
use crate::model::Processor;
use crate::packet::{MsgId, Stream};
use crate::params::ImpModel;
use crate::source::{Allocations, Numbers, Plt, PltClaims};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A reply the destination IMP owes and that wants 8 reassembly buffers: a RFNM (which waits
/// at most 1 s for them, then goes without a piggy-backed ALL) or the ALL answering a REQALL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    Rfnm {
        stream: Stream,
        msg: MsgId,
        num: u64,
        epoch: u32,
        /// When it was made (K&O point g), in ns.
        made_ns: u64,
    },
    All {
        stream: Stream,
        num: u64,
    },
}

/// A message being reassembled at its destination IMP.
#[derive(Clone, Copy, Debug)]
pub struct Reassembly {
    pub msg: MsgId,
    pub of: u8,
    pub received: u8,
    pub bits: u64,
}

/// A packet on its way to the destination host.
#[derive(Clone, Copy, Debug)]
pub struct HostOut {
    pub msg: MsgId,
    /// The destination host (its interface, [`HostPort`]).
    pub host: u32,
    /// The message's stream (its sequence of message numbers, `crate::packet::Stream`).
    pub stream: Stream,
    pub num: u64,
    pub index: u8,
    pub of: u8,
    pub bits: u64,
}

/// One host interface of an IMP, output side: packets waiting for the host, one at a time on
/// its 100 kbit/s line (K&O §III). Each host on an IMP has its own interface.
#[derive(Clone, Debug, Default)]
pub struct HostPort {
    pub host: u32,
    pub queue: VecDeque<HostOut>,
    pub busy: bool,
}

pub struct Imp {
    pub name: String,
    /// 316 or 516 (what its processor spends on each kind of work: `ImpParams::costs`).
    pub model: ImpModel,
    pub buffers: u32,
    pub buf_used: u32,
    pub sf_used: u32,
    pub reasm_max: u32,
    /// Reassembly buffers reserved or filled.
    pub reasm_used: u32,
    /// The processor and its task queue (`model/processor.rs`).
    pub cpu: Processor,

    // ---- Source side (K&O §II points b, c, h, i) ----
    /// Message numbers per stream (point b), given out in order ([`Numbers`]).
    pub numbers: Numbers,
    /// Pending leader table entries (point c) and, in version 2, who waits for one ([`Plt`]).
    pub plt: Plt,
    /// Unused allocations per destination IMP and the messages waiting for one
    /// ([`Allocations`]).
    pub allocs: Allocations,

    // ---- Destination side (K&O §II points d, f, g) ----
    /// Messages in reassembly, and their hand-over in number order ([`Delivery`]).
    pub delivery: Delivery,
    /// Output to each host on this IMP, by host (see [`HostPort`]).
    pub ports: Vec<HostPort>,
    /// The IMP's host is a fake host inside it: output takes no time.
    pub fake_host: bool,
    /// RFNMs and ALLs owed, waiting for 8 buffers ([`Replies`]).
    pub replies: Replies,

    // ---- Destination side, single-packet messages (RFC 632; `model/single.rs`) ----
    /// Single-packet messages not accepted, each owed an ALLOCATE: (stream, number) → message.
    pub requests: BTreeMap<(Stream, u64), MsgId>,
    /// Reassembly buffers set aside for one single-packet message each, not yet filled.
    pub set_aside: BTreeSet<(Stream, u64)>,

    // ---- Version 3 (K&O §VI–VII; `model/v3.rs`) ----
    /// Transmit blocks, by stream, and messages waiting for one to be free ([`TransmitBlocks`]).
    pub tx_blocks: TransmitBlocks,
    /// Receive blocks, by stream, and requests waiting for one to be free ([`ReceiveBlocks`]).
    pub rx_blocks: ReceiveBlocks,
    /// Claims on a PLT entry, served in order: messages that hold their allocation, and
    /// REQALLs decided but not yet sent; the REQALLs outstanding ([`PltClaims`]).
    pub plt_claims: PltClaims,
}

/// A claim on a PLT entry in version 3 (K&O §VI: "message number, reassembly buffers, and PLT
/// entry", in that order; "the message number and the PLT entry are used to send a REQALL").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PltClaim {
    /// A message that holds its number and its allocation.
    Message(MsgId),
    /// A REQALL for the stream, to the destination IMP `dst`, decided for message `msg`.
    Reqall {
        stream: Stream,
        dst: u32,
        msg: MsgId,
    },
}

impl Imp {
    pub fn new(name: String, model: ImpModel, buffers: u32, reasm_max: u32) -> Self {
        Imp {
            name,
            model,
            buffers,
            buf_used: 0,
            sf_used: 0,
            reasm_max,
            reasm_used: 0,
            cpu: Processor::default(),
            numbers: Numbers::default(),
            plt: Plt::default(),
            allocs: Allocations::default(),
            delivery: Delivery::default(),
            ports: Vec::new(),
            fake_host: false,
            replies: Replies::default(),
            requests: BTreeMap::new(),
            set_aside: BTreeSet::new(),
            tx_blocks: TransmitBlocks::default(),
            rx_blocks: ReceiveBlocks::default(),
            plt_claims: PltClaims::default(),
        }
    }

    /// The output port of host `host` (made on first use).
    pub fn port(&mut self, host: u32) -> &mut HostPort {
        let k = match self.ports.iter().position(|p| p.host == host) {
            Some(k) => k,
            None => {
                self.ports.push(HostPort {
                    host,
                    ..Default::default()
                });
                self.ports.len() - 1
            }
        };
        &mut self.ports[k]
    }

    /// Is any packet of a message of `stream` numbered below `num` still on its way to a host?
    pub fn output_pending_before(&self, stream: Stream, num: u64) -> bool {
        self.ports
            .iter()
            .any(|p| p.queue.iter().any(|o| o.stream == stream && o.num < num))
    }

    pub fn free_buffers(&self) -> u32 {
        self.buffers.saturating_sub(self.buf_used)
    }

    /// Can `n` reassembly buffers be reserved now?
    pub fn can_reserve(&self, n: u32) -> bool {
        self.reasm_used + n <= self.reasm_max && self.free_buffers() >= n
    }

    pub fn reserve(&mut self, n: u32) {
        self.reasm_used += n;
        self.buf_used += n;
    }

    pub fn release_reassembly(&mut self, n: u32) {
        self.reasm_used -= n;
        self.buf_used -= n;
    }

    /// Does anything still hold a resource here? (For the no-leak check.)
    pub fn idle(&self) -> bool {
        self.buf_used == 0
            && self.sf_used == 0
            && self.reasm_used == 0
            && self.plt.used() == 0
            && self.numbers.idle()
            && self.delivery.idle()
            && self.replies.is_empty()
            && self.allocs.idle()
            && !self.cpu.holds_packet()
            && self.ports.iter().all(|p| p.queue.is_empty() && !p.busy)
            && self.requests.is_empty()
            && self.set_aside.is_empty()
            && self.plt_claims.idle()
            && self.tx_blocks.idle()
            && self.rx_blocks.waiting() == 0
    }
}
