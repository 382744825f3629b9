//! The state of one IMP: buffers, the processing queue, and the end-to-end tables (the
//! source side's as the cores of [`crate::source`]).

use crate::blocks::{ReceiveBlocks, TransmitBlocks};
use crate::destination::{Delivery, Replies};
use crate::link::Hold;
use crate::model::Processor;
use crate::packet::{MsgId, Stream};
use crate::params::ImpModel;
use crate::source::{Allocations, Numbers, Plt, PltClaims};
use crate::timer::Deadline;
use nmc_sim::SimTime;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A reply the destination IMP owes and that wants 8 reassembly buffers: a RFNM (which waits
/// at most 1 s for them, then goes without a piggy-backed ALL) or the ALL answering a REQALL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    Rfnm {
        stream: Stream,
        msg: MsgId,
        num: u64,
        /// The end of its wait for buffers, and the generation that names it.
        wait: Deadline,
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

/// Why an IMP refuses a packet in transit ([`Imp::refuses_transit`]; K&O §III).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    NoFreeBuffer,
    /// The IMP already holds its most store-and-forward packets (20).
    StoreAndForwardFull,
    NoRoute,
    /// The output queue toward the next IMP is full (8 packets).
    OutputQueueFull,
}

impl Refusal {
    /// As the trace writes it.
    pub fn reason(self) -> &'static str {
        match self {
            Refusal::NoFreeBuffer => "no free buffer",
            Refusal::StoreAndForwardFull => "20 store-and-forward packets",
            Refusal::NoRoute => "no route",
            Refusal::OutputQueueFull => "output queue full",
        }
    }
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

    /// Whether this IMP refuses a data packet passing through it, and why. K&O §III: "Such a
    /// rejection occurs if either there are 20 store-and-forward packets in the neighbor IMP or
    /// if the output queue for the next hop is full ... A rejected packet is retransmitted if no
    /// IMP-to-IMP acknowledgment has been received after a 125 ms timeout." Also refused: a
    /// packet for which no buffer is free, or no route.
    /// `next_queue` is that output queue's length, packets on their way into it counted, or
    /// `None` when there is no route. Control messages and packets for this IMP's own hosts are
    /// not asked about: they use space set aside for them (the caller's rule).
    pub fn refuses_transit(
        &self,
        store_and_forward_max: u32,
        output_queue_max: u32,
        next_queue: Option<u32>,
    ) -> Option<Refusal> {
        if self.free_buffers() == 0 {
            return Some(Refusal::NoFreeBuffer);
        }
        if self.sf_used >= store_and_forward_max {
            return Some(Refusal::StoreAndForwardFull);
        }
        let Some(queued) = next_queue else {
            return Some(Refusal::NoRoute);
        };
        if queued >= output_queue_max {
            return Some(Refusal::OutputQueueFull);
        }
        None
    }

    /// Takes a packet in transit if K&O §III's rule lets it ([`Imp::refuses_transit`]): the
    /// packet then holds a buffer and one of the store-and-forward places until the next IMP
    /// acknowledges it ([`Imp::release`]). On refusal nothing changes: "A rejected packet is
    /// retransmitted if no IMP-to-IMP acknowledgment has been received after a 125 ms timeout."
    pub fn admit_transit(
        &mut self,
        store_and_forward_max: u32,
        output_queue_max: u32,
        next_queue: Option<u32>,
    ) -> Result<(), Refusal> {
        if let Some(r) = self.refuses_transit(store_and_forward_max, output_queue_max, next_queue) {
            return Err(r);
        }
        self.buf_used += 1;
        self.sf_used += 1;
        Ok(())
    }

    /// A packet from one of this IMP's hosts (or its message generator) takes a buffer as it
    /// comes in (K&O §III: the IMP takes a host's packet only into a free buffer); it keeps it
    /// until the next IMP acknowledges the packet or, for a single-packet message's copy
    /// (RFC 632), until the RFNM.
    pub fn take_source_buffer(&mut self) {
        debug_assert!(self.free_buffers() > 0, "{}: no free buffer", self.name);
        self.buf_used += 1;
    }

    /// The buffer of a packet this IMP sent, freed by the next IMP's acknowledgement, by
    /// what held it ([`Hold`]): a source packet its buffer, a packet in transit its buffer and
    /// store-and-forward place; control messages use space set aside for them, and a
    /// single-packet message's copy waits for its RFNM ([`Imp::release_copy`]).
    pub fn release(&mut self, hold: Hold) {
        match hold {
            Hold::Source => self.buf_used -= 1,
            Hold::Transit => {
                self.buf_used -= 1;
                self.sf_used -= 1;
            }
            Hold::Control | Hold::Copy => {}
        }
    }

    /// The RFNM of a single-packet message came back: the source IMP's copy is no longer
    /// needed (RFC 632: the source keeps a copy until the RFNM).
    pub fn release_copy(&mut self) {
        self.buf_used -= 1;
    }

    /// When this IMP next needs waking for its own sake: the earliest of its timers (the
    /// processor's task in hand, RFNMs waiting for buffers, unused allocations, version 3's
    /// block disuse timers). Its lines' retransmission timers are the lines' own
    /// ([`crate::link::Link::poll_at`]).
    pub fn poll_at(&self) -> Option<SimTime> {
        [
            self.cpu.poll_at().map(|(t, _)| t),
            self.replies.poll_at(),
            self.allocs.poll_at(),
            self.tx_blocks.poll_at(),
        ]
        .into_iter()
        .flatten()
        .min()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An IMP of 40 buffers (K&O §III's limits: 20 store-and-forward packets, 8 in an output
    /// queue).
    fn imp() -> Imp {
        Imp::new("X".into(), ImpModel::H516, 40, 10)
    }

    #[test]
    fn a_neighbour_takes_a_packet_it_has_room_and_a_route_for() {
        assert_eq!(imp().refuses_transit(20, 8, Some(7)), None);
    }

    #[test]
    fn a_packet_is_rejected_when_the_imp_has_no_free_buffer() {
        let mut x = imp();
        x.buf_used = 40;
        assert_eq!(
            x.refuses_transit(20, 8, Some(0)),
            Some(Refusal::NoFreeBuffer)
        );
    }

    #[test]
    fn a_packet_is_rejected_when_20_store_and_forward_packets_are_held() {
        let mut x = imp();
        x.buf_used = 20;
        x.sf_used = 20;
        assert_eq!(
            x.refuses_transit(20, 8, Some(0)),
            Some(Refusal::StoreAndForwardFull)
        );
    }

    #[test]
    fn a_packet_is_rejected_when_its_output_queue_is_full_or_it_has_no_route() {
        assert_eq!(
            imp().refuses_transit(20, 8, Some(8)),
            Some(Refusal::OutputQueueFull)
        );
        assert_eq!(imp().refuses_transit(20, 8, None), Some(Refusal::NoRoute));
    }

    /// K&O §III: a packet in transit holds a buffer and a store-and-forward place until the
    /// next IMP acknowledges it; the 21st is refused while 20 are held.
    #[test]
    fn a_packet_in_transit_holds_its_place_until_acknowledged() {
        let mut x = imp();
        for _ in 0..20 {
            assert_eq!(x.admit_transit(20, 8, Some(0)), Ok(()));
        }
        assert_eq!((x.buf_used, x.sf_used), (20, 20));
        assert_eq!(
            x.admit_transit(20, 8, Some(0)),
            Err(Refusal::StoreAndForwardFull)
        );
        assert_eq!((x.buf_used, x.sf_used), (20, 20), "a refusal takes nothing");
        x.release(Hold::Transit);
        assert_eq!((x.buf_used, x.sf_used), (19, 19));
        assert_eq!(x.admit_transit(20, 8, Some(0)), Ok(()));
    }

    /// A host's packet holds a buffer but no store-and-forward place; a single-packet
    /// message's copy is kept past the acknowledgement, until the RFNM (RFC 632).
    #[test]
    fn a_source_packet_holds_a_buffer_and_a_copy_waits_for_the_rfnm() {
        let mut x = imp();
        x.take_source_buffer();
        x.take_source_buffer();
        assert_eq!((x.buf_used, x.sf_used), (2, 0));
        x.release(Hold::Source);
        x.release(Hold::Copy);
        assert_eq!(x.buf_used, 1, "the copy is still held");
        x.release_copy();
        assert!(x.idle());
    }

    /// The IMP's next wake-up is its earliest timer: an allocation unused for 250 ms goes back
    /// (K&O §II point i) before a RFNM made earlier has waited its 1 s for buffers (point g).
    #[test]
    fn an_imps_next_wake_up_is_its_earliest_timer() {
        use nmc_sim::SimDuration;
        let ms = |m: u64| SimTime::ZERO + SimDuration::from_millis(m);
        let mut x = imp();
        assert_eq!(x.poll_at(), None, "nothing armed");
        x.replies
            .make_rfnm(0, 7, 1, ms(100), SimDuration::from_secs(1));
        assert_eq!(x.poll_at(), Some(ms(1100)));
        x.allocs.add(3, ms(900), SimDuration::from_millis(250));
        assert_eq!(x.poll_at(), Some(ms(1100)));
        x.allocs.add(3, ms(700), SimDuration::from_millis(250));
        assert_eq!(x.poll_at(), Some(ms(950)));
    }

    #[test]
    fn the_first_reason_found_is_the_one_given() {
        let mut x = imp();
        x.buf_used = 40;
        x.sf_used = 20;
        assert_eq!(x.refuses_transit(20, 8, None), Some(Refusal::NoFreeBuffer));
    }
}
