//! One IMP as a core that does no I/O: its buffers, its lines, the processing queue, and the
//! whole end-to-end procedure of the IMP, source and destination. The tables are sans-I/O
//! cores ([`crate::source`], [`crate::destination`], [`crate::blocks`], [`crate::processor`],
//! [`crate::link`]); the rules that change them are the IMP's own steps: the hop-by-hop ones
//! under `hop/` (`hop/processing.rs` the processor and the task level's store-and-forward,
//! `hop/lines.rs` its side of its lines, `hop/routing.rs` its routing: its own router, or the
//! static routes, and the packets waiting for a route), the end-to-end ones under `e2e/`:
//! `e2e/messages.rs` the source's (K&O §II points a–e, h, i: a message through its version's
//! [`crate::e2e::procedure::Procedure`], which the IMP holds), `e2e/replies.rs` the
//! destination's for a multipacket message and the replies (points d, f, g, i),
//! `e2e/single.rs` both ends of RFC 632's single-packet messages, `e2e/control_blocks.rs`
//! version 3's message control blocks. The driver (`crate::model`) owns what is not the
//! IMP's: the lines' timing and the frames on them (a routing frame's body among them), the
//! hosts and their interfaces, the clock that ticks, the lines' state (up or down) and
//! routing-message slots, the trace, the counts and the observer.
//!
//! # Call order
//! Every step takes `now` and a sink `out` ([`Effects`]: the driver's, or a `Vec<Output>`
//! in the tests), and pushes into it what the driver is to do, one [`Output`] each, in order;
//! a step that reads what is around the IMP (a packet's header, a route, whether a line is
//! up) reads it through [`Net`], which the driver holds.
//! What the driver calls:
//! 1. **A frame from a neighbour**: [`Imp::handle_frame`], which says what became of it
//!    ([`Arrival`]); an accepted packet joins the processor's task queue
//!    ([`Imp::packet_in`]), a frame without one costs the processor its time
//!    ([`Imp::frame_taken`]). Frames go out through [`Imp::poll_transmit`],
//!    [`Imp::frame_started`] (counted, and a line error drawn) and [`Imp::frame_sent`] (which
//!    asks for the retransmission timer's wake-up).
//! 2. **A wake-up**: [`Imp::handle_timeout`] for the timer it was asked for
//!    ([`Output::Timer`]; every wake-up comes back this one way): the processor's task done
//!    (the task level acknowledges a packet, then sends it on or hands it to
//!    [`Imp::handle_packet`]: a message's packet or a control message at its destination, a
//!    RFNM, ALL, or RFC 632's RFNM or ALLOCATE at its source), a retransmission, a RFNM's 1 s
//!    wait, an allocation's 250 ms, a block's disuse.
//! 3. **A clock tick** (every 25.6 ms; the driver keeps the clock): [`Imp::clock_tick`]; a
//!    routing send opportunity on a line (the driver keeps its slots):
//!    [`Imp::routing_opportunity`]; a routing frame starting carries
//!    [`Imp::routing_message`], one arriving intact goes to [`Imp::routing_message_in`], a
//!    packet's first departure on a line gives SPF its delay ([`Imp::line_delay`]); the
//!    router's events are read with [`Imp::poll_route_event`]. A packet the driver sends from
//!    the IMP (a data packet, a control message, a copy, one taken back from a line gone down)
//!    is routed by [`Imp::queue_or_park`]; when the table may have changed, the waiting ones
//!    come back with [`Imp::take_parked`] to be routed again.
//! 4. **A host's message** (K&O §II point a): [`Imp::message_offered`] when the host offers it;
//!    [`Imp::next_input`] says whether its next packet may go in now, and
//!    [`Imp::admit_host_packet`] whether the IMP has room; once the packet is across the
//!    interface, [`Imp::host_packet_taken`] (the processor charged, then the source's step,
//!    [`Imp::host_packet_in`]). The IMP's
//!    own message generator starts a message inside the IMP: [`Imp::message_offered`] with
//!    packet 1 in, then [`Imp::advance`].
//! 5. **A packet handed to a host** at the destination: the host's interface starts it with
//!    [`Imp::host_output_begin`] (which says how long the transfer takes); once it is across,
//!    [`Imp::host_output_done`] (the interface free, the buffer it held given back), then
//!    [`Imp::handed_to_host`] (before the delivery is recorded), [`Imp::single_handed_to_host`]
//!    and [`Imp::serve_replies`].
//! 6. **A line going down** (the driver's line event; our choices, [`crate::routing`]), each
//!    direction in turn: the far end's acceptance read from both ends' sides of the line
//!    ([`crate::link::accepted_at_line_down`]), then [`Imp::line_down`] at the sending IMP
//!    (what the far end accepted is acknowledged, the rest taken off the channels), its outputs
//!    carried out (the hosts woken), then [`Imp::line_down_reset`] (the queues taken off, the
//!    router told) and [`Imp::line_down_received`] at the far IMP; a frame cut off is
//!    [`Imp::frame_lost`]. **A line coming up**: [`Imp::line_up`] (the router told).
//! 7. **The outputs**, carried out in the order pushed, each finished before the next, nothing
//!    else between: send the control message ([`Output::Control`]) or the data packet
//!    ([`Output::Data`], [`Output::SingleCopy`]: [`Imp::data_packet`] makes it); queue the
//!    wake-up ([`Output::Timer`]); count ([`Output::Count`]); write the trace line
//!    ([`Output::Trace`]) or RFC 632's table line ([`Output::E2e`]); note the milestone
//!    ([`Output::Milestone`]); start the host's interface on its next packet
//!    ([`Output::HostOutput`]); let a host put its next packet in ([`Output::HostInput`]), or
//!    every host waiting at this IMP try again ([`Output::WakeHosts`]); tell the host its
//!    message was taken ([`Output::Accepted`]); record a message answered
//!    ([`Output::Answered`], [`Output::SingleAnswered`]); start a line's next frame if it is
//!    up and free ([`Output::Transmit`]); drop a packet no longer held ([`Output::Free`]), or
//!    hold one with no route until the routes change ([`Output::Park`]: [`Imp::park`]).
//! 8. **[`Output::Resume`]**: call [`Imp::resume`] with it at that point (what came before may
//!    have come back into this IMP: a launched packet lets its host put in the next, which may
//!    be the generator's next message, moved on at once), and carry out what that pushes, in
//!    its place, before the outputs after it.
//!
//! The driver never changes the IMP's tables itself: a message's state changes in one place,
//! `Imp::set_state`, which pushes the trace line.
//!
//! One IMP by hand, no simulator: a neighbour's frame with a packet passing through is
//! refused while 20 store-and-forward packets are held (K&O §III), and taken once one goes
//! (the test `one_imp_by_hand`, at the end of this file).

use crate::blocks::{ReceiveBlocks, TransmitBlocks};
use crate::destination::{Delivery, Next, Replies, Request, Turns};
use crate::link::{Frame, FrameKind, Hold, Link, NextFrame, RoutingLoad};
use crate::observe::{Counted, Happened, Milestone, Note, Side, What};
use crate::packet::{DataPacket, Input, MsgId, Packet, PktId, PktKind, Single, Stream};
use crate::params::ImpCosts;
use crate::params::{
    BackgroundLevel, ControlQueue, FakeHostRfnm, Giveback, GvbNumber, HostPacketEntry,
    HostQueueCheck, ImpModel, ImpParams, MessageProcessing, OutputLimit, Piggyback, ReplyToHost,
    ReqallCheck, ReqallClaim, ReqallPath, ReqallWake, RoutingNull, RoutingTables, SinglePacketRule,
};
use crate::processor::Processor;
use crate::routing::AnyRouter;
use crate::source::{Allocations, MsgState, Numbers, Plt, PltClaims, SourceMsg};
use crate::timer::Deadline;
use nmc_sim::{BitRate, Bits, SimDuration, SimTime};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A packet on its way to the destination host.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HostOut {
    /// The message it belongs to.
    pub(crate) msg: MsgId,
    /// The source IMP, as the packet's header names it: where the message's RFNM goes.
    pub(crate) src: u32,
    /// The destination host (its interface, [`HostPort`]).
    pub(crate) host: u32,
    /// The message's stream (its sequence of message numbers, `crate::packet::Stream`).
    pub(crate) stream: Stream,
    /// Its message's number in the stream.
    pub(crate) num: u64,
    /// Its place in the message, from 0.
    pub(crate) index: u8,
    /// Packets in the message.
    pub(crate) of: u8,
    /// The packet's data bits.
    pub(crate) bits: u64,
}

/// One host interface of an IMP, output side: packets waiting for the host, one at a time on
/// its 100 kbit/s line (K&O §III). Each host on an IMP has its own interface.
#[derive(Clone, Debug, Default)]
pub(crate) struct HostPort {
    /// The host this interface serves.
    pub(crate) host: u32,
    /// Packets waiting for the host, in the order they go.
    pub(crate) queue: VecDeque<HostOut>,
    /// A packet is being transferred to the host now.
    pub(crate) busy: bool,
}

/// Why an IMP refuses a packet in transit ([`Imp::refuses_transit`]; K&O §III).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No packet buffer is free.
    NoFreeBuffer,
    /// The IMP already holds its most store-and-forward packets (20).
    StoreAndForwardFull,
    /// No route to the packet's destination IMP.
    NoRoute,
    /// The output queue toward the next IMP is full (8 packets).
    OutputQueueFull,
}

impl Refusal {
    /// As the trace writes it.
    pub(crate) fn reason(self) -> &'static str {
        match self {
            Refusal::NoFreeBuffer => "no free buffer",
            Refusal::StoreAndForwardFull => "20 store-and-forward packets",
            Refusal::NoRoute => "no route",
            Refusal::OutputQueueFull => "output queue full",
        }
    }
}

/// The limits K&O §III puts on a packet passing through an IMP (the profile's
/// `store_and_forward_max` and `output_queue_max`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TransitLimits {
    /// "20 store-and-forward packets in the neighbor IMP".
    pub(crate) store_and_forward_max: u32,
    /// "the output queue for the next hop is full" (8 packets).
    pub(crate) output_queue_max: u32,
    /// What counts toward it.
    pub(crate) output_limit: OutputLimit,
}

/// The limits of the source procedure (K&O §II, §VI–VII; the profile's figures per version).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SourceLimits {
    /// The software version whose source procedure the IMP runs (the profile's
    /// `message_processing`: version 2 of October 1974, K&O §II–III, or version 3 of 1975,
    /// K&O §VI–VII).
    pub(crate) version: MessageProcessing,
    /// Message numbers per stream (K&O §II point b: 4 in version 2; §VI: 8 in version 3).
    pub(crate) message_numbers: u32,
    /// Which of them a stream may give next (`message_number_order`).
    pub(crate) number_order: crate::params::NumberOrder,
    /// Pending leader table entries per IMP (K&O §II point c: 6).
    pub(crate) plt_entries: u32,
    /// Version 3: transmit (and receive) blocks per IMP (K&O §VI: 64).
    pub(crate) control_blocks: u32,
    /// Version 3: whether a REQALL decided while another to the same IMP is unanswered is sent
    /// (the 1975 IMPs) or withheld (K&O §VII's first remedy).
    pub(crate) superfluous_reqalls: bool,
    /// An allocation unused this long goes back with a GVB (K&O §II: "within the next 250 ms";
    /// [`Imp::allocation_arrived`]).
    pub(crate) giveback_after: SimDuration,
    /// How an unused allocation is timed out: its own timer, or the 1973 TALLY clock.
    pub(crate) giveback: Giveback,
    /// Fast ticks on the TALLY clock before the oldest allocation goes back.
    pub(crate) giveback_ticks: u32,
    /// Version 3: a transmit block with no number in use this long is released (the profile's
    /// choice of 2 min, after RFC 660; [`Imp::number_released`]).
    pub(crate) control_block_idle: SimDuration,
    /// How a REQALL goes and when its message goes on (the profile's `reqall_path`;
    /// [`Imp::control_sent`], [`Imp::reqalls_acknowledged`]).
    pub(crate) reqall_path: ReqallPath,
    /// When a message whose 1973 request is unacknowledged takes an ALL (the profile's
    /// `reqall_claim`; `Imp::add_allocation`).
    pub(crate) reqall_claim: ReqallClaim,
    /// When a message whose 1973 request is answered is looked at again (the profile's
    /// `reqall_wake`; [`Imp::reqall_wake_tick`]).
    pub(crate) reqall_wake: ReqallWake,
    /// When packet 1 looks for an ALL (the profile's `reqall_check`;
    /// [`Imp::tally_at_input`]).
    pub(crate) reqall_check: ReqallCheck,
    /// Whether a GVB holds a message number (the profile's `gvb_number`;
    /// [`Imp::tally_tick`]).
    pub(crate) gvb_number: GvbNumber,
}

/// The limits of the destination procedure (K&O §II, §VII; RFC 632): what a reply reserves,
/// how long a RFNM waits for its ALL, and how out-of-order single-packet messages are met.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DestinationLimits {
    /// Buffers an ALL reserves (K&O §II: "an allocation of these \[eight\] buffers").
    pub(crate) allocation_buffers: u32,
    /// Longest a RFNM waits for buffers to carry a piggy-backed ALL (K&O §II: "at most 1 s";
    /// [`Imp::make_rfnm`]).
    pub(crate) rfnm_all_wait: SimDuration,
    /// When a RFNM may carry a piggy-backed ALL (K&O §VII's fix; [`Imp::next_reply`]).
    pub(crate) rfnm_piggyback: Piggyback,
    /// Out-of-order single-packet messages (RFC 632 and its fixes; [`crate::e2e::single::arrive`]).
    pub(crate) single_packet_rule: SinglePacketRule,
    /// A packet's data bits at most (K&O §II: "one 1008-bit packet"): a message reassembled is
    /// handed to its host in packets of this size, the last shorter ([`Imp::hand_over_in_order`]).
    pub(crate) max_packet: u64,
    /// When a multipacket message's RFNM is made if the IMP's host is a fake host
    /// ([`Imp::handed_to_host`]).
    pub(crate) fake_host_rfnm: FakeHostRfnm,
    /// The order replies go in (`reply_order`; [`crate::destination::Turns`]).
    pub(crate) reply_order: crate::params::ReplyOrder,
}

/// The limits of the IMP's lines and clock: the IMP-to-IMP retransmission timeout (K&O §III's
/// 125 ms; [`Imp::frame_sent`]), the fast ticks per slow tick (BBN's listing, `TO`;
/// [`Imp::poll_transmit`], [`Imp::clock_tick`]) and the queueing of control messages
/// ([`Imp::enqueue`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LineLimits {
    /// A packet unacknowledged this long is sent again (the line adds its round trip).
    pub(crate) retransmit_timeout: SimDuration,
    /// Fast ticks per slow tick: a routing message is fresh once a slow tick.
    pub(crate) slow_tick_every: u32,
    /// Control messages go ahead of data on a line's queue (a choice: the sources are silent;
    /// the profile's `control_priority`).
    pub(crate) control_priority: bool,
    /// Which queue a give-back joins (the profile's `gvb_queue`; [`Imp::control_hold`]).
    pub(crate) gvb_queue: ControlQueue,
    /// Which queue a REQALL joins where it passes (the profile's `reqall_queue`;
    /// [`Imp::control_hold`]).
    pub(crate) reqall_queue: ControlQueue,
    /// Routing messages by the line's load (listing p. 235, `RMVFRQ`; the profile's
    /// `routing_frequency = "line-load-1973"`): how many send opportunities make one count.
    pub(crate) routing: RoutingLoad,
    /// A null packet goes before each routing message of a routing opportunity (the profile's
    /// `routing_null`; [`Imp::routing_opportunity`]).
    pub(crate) routing_null: RoutingNull,
    /// When the IMP's routing table is made and taken (the profile's `routing_tables`;
    /// [`Imp::routing_message`], [`Imp::routing_message_in`], [`Imp::clock_tick`]).
    pub(crate) routing_tables: RoutingTables,
}

/// What the IMP's processor spends on its work (BBN's IMP program 3050, `params.rs` gives each
/// figure's source; `hop/processing.rs`): each model's costs, read by the IMP's own model
/// ([`Imp::costs`]), and the overhead a host's packet adds to its frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ProcessorLimits {
    /// A 316's costs.
    pub(crate) h316: ImpCosts,
    /// A 516's costs.
    pub(crate) h516: ImpCosts,
    /// Bits a packet's header adds to its text (the profile's `packet_overhead`): a host's
    /// packet costs the processor its frame's bits.
    pub(crate) packet_overhead: u64,
}

/// The profile's limits an IMP holds from [`Imp::new`] on, and its rules read: nothing is
/// passed on each call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// On a packet passing through (K&O §III; [`Imp::admit_transit`]).
    pub(crate) transit: TransitLimits,
    /// K&O §III: a host's packet is taken only while at least this many buffers are free (4;
    /// [`Imp::admit_host_packet`]).
    pub(crate) host_input_min_free: u32,
    /// When a host's packet is asked whether its line has room: before its input or, as the
    /// 1973 program, after it ([`Imp::host_packet_handed`]).
    pub(crate) host_queue_check: HostQueueCheck,
    /// When a host's packet goes on: when handed over, or once the task has taken it
    /// ([`Imp::host_packet_taken`]).
    pub(crate) host_packet_entry: HostPacketEntry,
    /// How a reply reaches the host whose message it answers ([`Imp::packet_in`]).
    pub(crate) reply_to_host: ReplyToHost,
    /// How the background's time for a single-packet reply passes (`e2e/single.rs`).
    pub(crate) background_level: BackgroundLevel,
    /// On a message at its source IMP (the version's rules, `e2e/procedure.rs`).
    pub(crate) source: SourceLimits,
    /// On a message at its destination IMP (`destination.rs`, `e2e/single.rs`).
    pub(crate) destination: DestinationLimits,
    /// On the IMP's lines and clock.
    pub(crate) line: LineLimits,
    /// On the IMP's processor.
    pub(crate) processor: ProcessorLimits,
}

impl Limits {
    /// The limits of a profile.
    pub(crate) fn of(p: &ImpParams) -> Self {
        Limits {
            transit: TransitLimits {
                store_and_forward_max: p.store_and_forward_max,
                output_queue_max: p.output_queue_max,
                output_limit: p.output_limit,
            },
            host_input_min_free: p.host_input_min_free,
            host_queue_check: p.host_queue_check,
            host_packet_entry: p.host_packet_entry,
            background_level: p.background_level,
            reply_to_host: p.reply_to_host,
            source: SourceLimits {
                version: p.message_processing,
                message_numbers: p.message_numbers,
                number_order: p.message_number_order,
                plt_entries: p.plt_entries,
                control_blocks: p.control_blocks,
                superfluous_reqalls: p.superfluous_reqalls,
                giveback_after: p.giveback_after,
                giveback: p.giveback,
                giveback_ticks: p.giveback_ticks,
                control_block_idle: p.control_block_idle,
                reqall_path: p.reqall_path,
                reqall_claim: p.reqall_claim,
                reqall_wake: p.reqall_wake,
                reqall_check: p.reqall_check,
                gvb_number: p.gvb_number,
            },
            destination: DestinationLimits {
                allocation_buffers: p.allocation_buffers,
                rfnm_all_wait: p.rfnm_all_wait,
                rfnm_piggyback: p.rfnm_piggyback,
                single_packet_rule: p.single_packet_rule,
                max_packet: p.max_packet.get(),
                fake_host_rfnm: p.fake_host_rfnm,
                reply_order: p.reply_order,
            },
            line: LineLimits {
                retransmit_timeout: p.retransmit_timeout,
                slow_tick_every: p.slow_tick_every,
                control_priority: p.control_priority,
                gvb_queue: p.gvb_queue,
                reqall_queue: p.reqall_queue,
                routing: RoutingLoad {
                    opportunities: p.routing_opportunities,
                    busy_unit: p.routing_busy_unit,
                    pattern: p.routing_pattern,
                    period: p.routing_period,
                },
                routing_null: p.routing_null,
                routing_tables: p.routing_tables,
            },
            processor: ProcessorLimits {
                h316: p.costs(ImpModel::H316),
                h516: p.costs(ImpModel::H516),
                packet_overhead: p.packet_overhead.get(),
            },
        }
    }
}

/// What an IMP did with a frame that came in on one of its lines ([`Imp::handle_frame`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Arrival {
    /// The checksum failed: the frame is lost, the acknowledgements it carried with it.
    Corrupted,
    /// A routing message or acknowledgements alone: nothing to accept.
    NoPacket,
    /// "A retransmission of a packet already accepted": acknowledged again and discarded.
    Duplicate,
    /// A packet passing through, refused (K&O §III): no acknowledgement goes back, so the
    /// sender sends it again after its 125 ms timeout.
    Rejected {
        /// The packet refused.
        packet: Packet,
        /// Why.
        refusal: Refusal,
    },
    /// Accepted: a packet in transit holds a buffer, a store-and-forward place and a place on
    /// the queue of `next`, its next line (none when it is for this IMP, a control message, or
    /// has no route); it is acknowledged once the processor has taken it.
    Accepted {
        /// The packet taken in.
        packet: Packet,
        /// The link it is to leave by, when it passes through.
        next: Option<u32>,
        /// The logical channel it came on and its sequence bit: its acknowledgement, owed once
        /// the processor has taken it ([`Imp::owe_acknowledgement`]).
        lch: u8,
        /// The sequence bit.
        bit: bool,
    },
}

/// Why a host's packet waits outside its IMP ([`Imp::admit_host_packet`]; K&O §III).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HostWait {
    /// Fewer free buffers than the host may take from (4).
    FewBuffers,
    /// No route to the message's destination now.
    NoRoute,
    /// The output queue the packet would join is full (8 packets).
    OutputQueueFull,
}

/// A frame an IMP starts on one of its lines ([`Imp::poll_transmit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Transmit {
    /// What goes: a routing message, a packet (new, or again after its timeout), or the
    /// acknowledgements alone ([`crate::link::Link::next_frame`]).
    pub(crate) what: NextFrame,
    /// A routing message that is the first on this line since the IMP's last slow tick, when
    /// it recomputed its table: its serial number is new to the neighbour (`hop/processing.rs`).
    pub(crate) fresh: bool,
    /// The acknowledgements it carries for the other direction: channel mask and bits.
    pub(crate) ack_mask: u8,
    /// The sequence bits acknowledged, one per channel set in `ack_mask`.
    pub(crate) ack_bits: u8,
}

/// One of an IMP's timers, named as its wake-up names it: the timer and the generation of
/// its arming ([`Deadline`]), so that a wake-up for an arming since disarmed finds nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimerId {
    /// The retransmission timer of logical channel `lch` of `line` (K&O §III's 125 ms).
    Retransmit {
        /// The line: its place among the IMP's lines.
        line: usize,
        /// The logical channel.
        lch: u8,
        /// The generation of the arming.
        generation: u32,
    },
    /// A RFNM's wait of at most 1 s for buffers to carry a piggy-backed ALL (K&O §II point g).
    RfnmWait {
        /// The generation of the RFNM's wait.
        generation: u32,
    },
    /// An allocation from `dst` unused for 250 ms (K&O §II point i).
    GiveBack {
        /// The destination IMP the allocation came from.
        dst: u32,
        /// The generation of the allocation's give-back timer.
        generation: u32,
    },
    /// The end of the task in service on the processor (`hop/processing.rs`); a clock tick
    /// that pre-empts the processor moves it later under a new generation.
    Task {
        /// The generation of the task's end.
        generation: u32,
    },
    /// Version 3: the disuse timer of the transmit block of `stream` (K&O §VI), a timer that
    /// moves its deadline when the block is used ([`crate::timer::Timer`]).
    BlockIdle {
        /// The stream whose transmit block it is.
        stream: Stream,
    },
    /// The output routine of `line` is done after its frame ([`Imp::frame_sent`]): the
    /// line's next frame may start.
    OutputReady {
        /// The line: its place among the IMP's lines.
        line: usize,
    },
    /// The background's next single-packet reply is made (`e2e/single.rs`).
    BackgroundReply,
    /// The least time between two replies has passed (`reply_gap_*`): the line of replies is
    /// served ([`Imp::serve_replies`]).
    ReplyGap,
    /// The oldest give-back the TALLY clock timed out asks for its message number
    /// (`gvb_mesget_*`, [`Imp::gvb_asks_number`]).
    GvbMesget,
}

/// What an IMP's step may ask of what is around it, which the driver holds (`crate::model`):
/// the packets' headers and texts (the driver's store of every packet, `crate::packet::Slab`),
/// the static routing table (the topology's shortest paths, the same in every IMP: read only
/// by an IMP that runs no router, [`Imp::route`]) and whether a line is up. An IMP reads no
/// other IMP's state through it.
pub(crate) trait Net {
    /// Packet `pkt`, as this IMP holds it.
    fn packet(&self, pkt: PktId) -> &Packet;
    /// The link the static routes give from IMP `imp` toward IMP `dst`, if any.
    fn route(&self, imp: u32, dst: u32) -> Option<u32>;
    /// Whether link `link` (one direction of a line) is up.
    fn line_up(&self, link: u32) -> bool;
}

#[allow(
    clippy::enum_variant_names,
    reason = "HostOutput is the 1822 interface's own name; the lint ran only once the enum was private"
)]
/// What one of the IMP's protocol steps asks of the driver, pushed in the order it is to be
/// done (smoltcp's `dispatch(emit)`): the step has already changed the IMP's tables, and the
/// driver carries out each output in turn, before anything else happens in the IMP. The steps
/// that push them so far are version 3's message control blocks (`e2e/control_blocks.rs`:
/// [`Imp::number_released`], [`Imp::create_block_received`], [`Imp::block_created_received`],
/// [`Imp::release_block_received`], and the block's disuse timer through
/// [`Imp::handle_timeout`]) and every step of the destination (`e2e/replies.rs`:
/// [`Imp::message_packet_received`], [`Imp::reqall_received`], [`Imp::gvb_received`],
/// [`Imp::handed_to_host`], [`Imp::serve_replies`], and the RFNM's wait and the allocation's
/// give-back through [`Imp::handle_timeout`]; `e2e/single.rs`: [`Imp::single_received`],
/// [`Imp::single_handed_to_host`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Output {
    /// Send a subnet control message of `kind` on `stream` to IMP `to` (this IMP itself when
    /// both ends are its hosts).
    Control {
        /// The IMP it goes to.
        to: u32,
        /// The stream it belongs to.
        stream: Stream,
        /// What it is.
        kind: PktKind,
    },
    /// Wake the IMP at `at` for `timer` ([`Imp::handle_timeout`]).
    Timer {
        /// When.
        at: SimTime,
        /// The timer, as its wake-up names it.
        timer: TimerId,
    },
    /// Count one of what the protocol counts.
    Count(Counted),
    /// Write one event of the procedure to the trace (`trace = true`); the driver names the
    /// IMPs.
    Trace(Traced),
    /// This IMP, as a destination, starts `stream`'s message numbers afresh (a version 3
    /// receive block made again, K&O §VI): the observer's check that messages reach their host
    /// in order starts afresh for the stream too.
    SequenceAfresh {
        /// The stream.
        stream: Stream,
    },
    /// Message `msg` passed a point of its life, for the observer's timeline.
    Milestone {
        /// The message.
        msg: MsgId,
        /// The point it passed.
        milestone: Milestone,
    },
    /// Write one line of RFC 632's table of single-packet messages' events (`record =
    /// ["e2e"]`): `event` of `what`, number `num`, on this IMP's `side` of its pair with IMP
    /// `peer`.
    E2e {
        /// The other IMP of the pair.
        peer: u32,
        /// This IMP's side of the pair.
        side: Side,
        /// The message, its RFNM or its ALLOCATE.
        what: What,
        /// The message number.
        num: u64,
        /// Sent, arrived or deleted.
        event: Happened,
        /// What became of an arriving message.
        note: Note,
    },
    /// Packets wait for `host` on this IMP: the driver starts the next one on the host's
    /// interface if it is free (`model/host.rs`).
    HostOutput {
        /// The destination host.
        host: u32,
    },
    /// A resource came free at this IMP: its hosts that wait for one may go on (the driver's
    /// hosts, `model/host.rs`).
    WakeHosts,
    /// Host `host` may put its next packet into this IMP, if it has one and the IMP has room
    /// (K&O §II point a, §III; the driver's host interface, `model/host.rs`).
    HostInput {
        /// The source host.
        host: u32,
    },
    /// The task level took host `host`'s packet (`host_packet_entry = "after-task-1973"`,
    /// listing p. 133 `H2TSKS`): its interface may read the next.
    HostTaken {
        /// The source host.
        host: u32,
    },
    /// Send packet `index` of message `msg` from this IMP, its source, towards its destination
    /// ([`Imp::data_packet`] makes it): the driver routes it (it waits for a route while there
    /// is none) and queues it on a line.
    Data {
        /// The message.
        msg: MsgId,
        /// The packet's place in it (0: packet 1).
        index: u8,
    },
    /// Message `msg` to IMP `dst` is answered by its RFNM (with an ALL when `all`) and gone from
    /// this IMP: the driver's observer records its round trip.
    Answered {
        /// The message.
        msg: MsgId,
        /// The source host.
        host: u32,
        /// The destination IMP.
        dst: u32,
        /// The RFNM carried an ALL.
        all: bool,
    },
    /// Send single-packet message `msg` from this IMP, its source, towards its destination
    /// ([`Imp::data_packet`] makes its packet): the first time, or `again` when an ALLOCATE
    /// called its copy back (RFC 632). Its buffer is the copy kept until the RFNM; the driver
    /// routes it (it waits for a route while there is none) and, once it is queued on a line,
    /// writes RFC 632's table line.
    SingleCopy {
        /// The message.
        msg: MsgId,
        /// Sent again on an ALLOCATE.
        again: bool,
    },
    /// Host `host` has put all of message `msg` into this IMP and been told: it may offer the
    /// next (`model/host.rs`).
    Accepted {
        /// The source host.
        host: u32,
        /// The message.
        msg: MsgId,
    },
    /// Single-packet message `msg`, from host `host` to IMP `dst`, is answered by its RFNM and
    /// gone from this IMP: the driver's host and observer record it.
    SingleAnswered {
        /// The message.
        msg: MsgId,
        /// The source host.
        host: u32,
        /// The destination IMP.
        dst: u32,
    },
    /// This IMP's line `link` (its outgoing direction) may have a frame to start: the driver
    /// starts the next ([`Imp::poll_transmit`]) if the line is up and free.
    Transmit {
        /// The link.
        link: u32,
    },
    /// Packet `pkt` is no longer held here (it is handed to this IMP's own step, or the far
    /// IMP has it): the driver drops it from its store.
    Free {
        /// The packet.
        pkt: PktId,
    },
    /// An outside IMP's packet has reached this IMP, its destination (`model/boundary.rs`):
    /// the driver outside answers it.
    ForeignArrived {
        /// Its words' id.
        body: u32,
        /// Its source IMP.
        src: u32,
    },
    /// Packet `pkt`, held as `hold`, has no route now: it is to wait in this IMP until its
    /// routing table changes ([`Imp::park`], once the outputs before it are carried out, so
    /// the waiting packets keep the order they came to have no route in).
    Park {
        /// The packet.
        pkt: PktId,
        /// What holds its buffer.
        hold: Hold,
    },
    /// The rest of a step, to be taken once the outputs before it are carried out (they may
    /// come back into this IMP: a message moved on, a control message to itself): the driver
    /// hands it back to [`Imp::resume`] when it reaches it.
    Resume(Resume),
}

/// Where a step pushes its outputs: the driver's own sink, which carries each out in the order
/// pushed (`model/output.rs`), or a `Vec<Output>` that keeps them (one IMP by hand, the
/// tests). Every step is generic over it: a static call, compiled into each step for the
/// driver's sink, so that an output the driver can carry out at once costs no more than the
/// call it stands for.
pub(crate) trait Effects {
    /// Output `o`, after those pushed before it.
    fn push(&mut self, o: Output);
}

impl Effects for Vec<Output> {
    #[inline(always)]
    fn push(&mut self, o: Output) {
        Vec::push(self, o);
    }
}

/// The rest of a step that waits for the outputs pushed before it ([`Output::Resume`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Resume {
    /// The task level has acknowledged packet `pkt` on the line it came by, and the packet
    /// goes back on that line: once the acknowledgement's frame has started, it joins the
    /// line's queue, the place `planned` for it given up ([`Imp::packet_processed`]).
    Processed {
        /// The packet.
        pkt: PktId,
        /// What holds its buffer.
        hold: Hold,
        /// The link whose queue kept a place for it, if any.
        planned: Option<u32>,
    },
    /// Messages in line for a free transmit block, after message `after` was moved on: the
    /// next is moved on in turn, unless `after` is still first in line (it found no block).
    BlockWaiters {
        /// The message moved on last.
        after: MsgId,
    },
    /// Requests in line for a free receive block: the next is opened, if a block is free.
    ReceiveBlocks,
    /// The replies owed, after one has gone (it may have come back into this IMP): the next
    /// goes if it can ([`Imp::serve_replies`]).
    Replies,
    /// A reply has gone under `reply_order = "number-1973"` (a stream's turn may have moved
    /// on): RFC 632's ALLOCATEs now in turn, then the replies ([`Imp::serve_replies`]).
    Turn,
    /// RFC 632's ALLOCATEs whose turn had come when the replies were served, after one has
    /// gone: the rest, each if a buffer can be had, then the replies.
    SingleRequests(Vec<((Stream, u64), Request)>),
    /// Message `0` goes on through its source procedure, as far as its version's rule lets it
    /// ([`Imp::advance`]).
    Advance(MsgId),
    /// Messages waiting for a message number or a PLT entry go on in turn
    /// (`Imp::serve_waiters`).
    ServeWaiters,
    /// Messages waiting for a number, after message `moved`, first waiting on `stream`, was
    /// moved on: still first, the streams after `stream` have their turn (those known at
    /// `mark`); otherwise the next on `stream` goes on. Then the claims on the PLT.
    Waiters {
        /// The streams known when the serving began ([`crate::source::Numbers::lines_mark`]).
        mark: u64,
        /// The stream being served.
        stream: Stream,
        /// The message moved on last.
        moved: MsgId,
    },
    /// The claims on free PLT entries, after `moved` (the message moved on last for one, if
    /// any) or a launch: the next is served, if one can take an entry.
    Plt {
        /// The message moved on last for an entry.
        moved: Option<MsgId>,
    },
    /// A reply from destination IMP `dst` was dealt with: a message the version asks to move
    /// on again does (`Imp::ask_again`).
    AskAgain {
        /// The destination IMP the reply came from.
        dst: u32,
    },
    /// `line` went down, and the far IMP had accepted the packet on channel `lch` (sequence
    /// bit `bit`): it is acknowledged now, after what the channels before it freed was carried
    /// out ([`Imp::line_down`], [`Imp::acknowledged_at_line_down`]).
    AcceptedAtLineDown {
        /// The line (its place among the IMP's lines).
        line: usize,
        /// The logical channel.
        lch: u8,
        /// The packet's sequence bit.
        bit: bool,
    },
}

/// One event of the procedure for the trace ([`Output::Trace`]), with the IMPs by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Traced {
    /// Message `msg` is reassembled here (point f).
    Reassembled {
        /// The message.
        msg: MsgId,
    },
    /// The RFNM of message `msg` leaves (point g), with a piggy-backed ALL when `all`, after
    /// waiting `waited_ns` since it was made.
    Rfnm {
        /// The message it answers.
        msg: MsgId,
        /// It carries an ALL.
        all: bool,
        /// How long it waited at this IMP since it was made, in ns.
        waited_ns: u64,
    },
    /// The ALL answering the REQALL that held number `num` leaves for source IMP `to`.
    AllSent {
        /// The number the REQALL held.
        num: u64,
        /// The source IMP.
        to: u32,
    },
    /// An ALL from `from`, alone or on a RFNM, joins the allocations this IMP holds unused
    /// (point h; BBN 3050 p. 83, the TALLY table).
    AllPut {
        /// The destination IMP it came from.
        from: u32,
    },
    /// Message `msg` took an unassigned ALL out of the TALLY table (point c; BBN 3050 p. 136
    /// `TALLYG`, called from p. 128 `HIPLT` or p. 130 `HIPLT5`).
    AllTaken {
        /// The message.
        msg: MsgId,
    },
    /// The give-back clock took the allocation from `to` out of the table to go back (point
    /// i; the 1973 program's `BACK2`, p. 55): its GVB follows once it has a number
    /// ([`Traced::Giveback`]).
    AllPulled {
        /// The destination IMP the allocation came from.
        to: u32,
    },
    /// A fast tick found `held` unused allocations in the TALLY table (`giveback =
    /// "tally-1973"`, BBN 3050 p. 163 `TALLYB`; not traced while it is empty).
    Tally {
        /// Allocations held, of every destination, before the tick's give-back.
        held: u32,
    },
    /// An allocation from `to` unused for its time goes back to it in a GVB (point i).
    Giveback {
        /// The destination IMP the allocation came from.
        to: u32,
    },
    /// Single-packet message `msg` (number `num`) reached this IMP, its destination, and
    /// `disposition` became of it (RFC 632).
    SingleIn {
        /// The message.
        msg: MsgId,
        /// Its number.
        num: u64,
        /// What became of it.
        disposition: Note,
    },
    /// The ALLOCATE for single-packet message `msg` (number `num`) leaves for source IMP `to`.
    SingleAllSent {
        /// The message.
        msg: MsgId,
        /// Its number.
        num: u64,
        /// The source IMP.
        to: u32,
    },
    /// Stored single-packet message `msg` (number `num`) was deleted to make room (fix B).
    SingleDeleted {
        /// The message.
        msg: MsgId,
        /// Its number.
        num: u64,
    },
    /// Message `msg`, at this IMP its source, went from state `from` to `to`.
    State {
        /// The message.
        msg: MsgId,
        /// The state it left.
        from: MsgState,
        /// The state it is in.
        to: MsgState,
    },
    /// Message `msg` leaves this IMP, its source (point e; a single-packet message at once).
    Launched {
        /// The message.
        msg: MsgId,
    },
    /// An ALL (or RFC 632's ALLOCATE for number `num`) reached this IMP, the source.
    AllIn {
        /// The number it answers (0 for K&O's ALL, which names none).
        num: u64,
    },
    /// Packet 1 of message `msg` is in this IMP, its source (point a).
    FirstIn {
        /// The message.
        msg: MsgId,
    },
    /// Message `msg` took message number `num` (point b; at its leader with `number_wait =
    /// "leader-mesget-1973"`).
    Number {
        /// The message.
        msg: MsgId,
        /// The number.
        num: u64,
    },
    /// A PLT entry went to message `msg` (point c), `plt_used` now in use.
    Plt {
        /// The message.
        msg: MsgId,
        /// PLT entries in use after this one.
        plt_used: u32,
    },
    /// A REQALL for message `msg` leaves with number `num`.
    Reqall {
        /// The message.
        msg: MsgId,
        /// The number it holds.
        num: u64,
    },
}

/// The packets a frame's piggy-backed acknowledgements freed, by logical channel: the sender
/// drops its copies ([`Imp::acknowledge`]).
pub(crate) type Acked = [Option<PktId>; 8];

#[cfg(test)]
/// Nothing around: for the tests of steps that read nothing around the IMP ([`Net`]).
pub(crate) struct Nowhere;

#[cfg(test)]
impl Net for Nowhere {
    fn packet(&self, _: PktId) -> &Packet {
        unreachable!("the step reads no packet")
    }
    fn route(&self, _: u32, _: u32) -> Option<u32> {
        unreachable!("the step reads no route")
    }
    fn line_up(&self, _: u32) -> bool {
        unreachable!("the step reads no line")
    }
}

/// One IMP (K&O §II–III): its packet buffers, store-and-forward and reassembly counts, its
/// processor, the source and destination tables of the end-to-end procedure, version 3's control
/// blocks, and its lines.
pub(crate) struct Imp {
    /// Its index in the network (topology order).
    pub(crate) id: u32,
    /// Its name, as the topology gives it (e.g. `UCLA`).
    pub(crate) name: String,
    /// 316 or 516 (what its processor spends on each kind of work: `ImpParams::costs`).
    pub(crate) model: ImpModel,
    /// Packet buffers in all (the profile's `buffers`, K&O §III's 51; `buffers_vdh` on a VDH IMP).
    pub(crate) buffers: u32,
    /// Packet buffers in use: packets held in transit or from a host, and reassembly buffers
    /// reserved or filled.
    pub(crate) buf_used: u32,
    /// Store-and-forward places held by packets in transit (at most `store_and_forward_max`, 20;
    /// K&O §III).
    pub(crate) sf_used: u32,
    /// Reassembly buffers at most (the profile's `reassembly_buffers`, K&O §III's 34;
    /// `reassembly_buffers_vdh` on a VDH IMP).
    pub(crate) reasm_max: u32,
    /// Reassembly buffers reserved or filled.
    pub(crate) reasm_used: u32,
    /// The processor and its task queue (`processor.rs`).
    pub(crate) cpu: Processor,
    /// The profile's limits its rules read.
    pub(crate) limits: Limits,

    // ---- Source side (K&O §II points a, b, c, e, h, i) ----
    /// Its hosts' messages, from the host's offer until the RFNM comes back, each where it is
    /// in the procedure ([`SourceMsg`]), by id.
    pub(crate) messages: BTreeMap<MsgId, SourceMsg>,
    /// Message numbers per stream (point b), given out in order ([`Numbers`]).
    pub(crate) numbers: Numbers,
    /// Pending leader table entries (point c) and, in version 2, who waits for one ([`Plt`]).
    pub(crate) plt: Plt,
    /// Unused allocations per destination IMP and the messages waiting for one
    /// ([`Allocations`]).
    pub(crate) allocs: Allocations,
    /// REQALLs sent the 1973 way (`reqall_path = "host-packet-1973"`, [`Hold::Request`]) and
    /// not yet acknowledged by the next IMP: the packet and the message that asked.
    pub(crate) reqalls_on_line: Vec<(PktId, MsgId)>,
    /// Of those, the ones acknowledged since the IMP's step last looked
    /// ([`Imp::reqalls_acknowledged`]).
    pub(crate) reqalls_acked: Vec<MsgId>,
    /// Allocations taken out of the TALLY table to be given back, whose GVB waits for a
    /// message number to its destination (`gvb_number = "mesget-1973"`), oldest first: the
    /// destination IMPs.
    pub(crate) gvbs_waiting: VecDeque<u32>,
    /// Allocations the TALLY clock has timed out whose give-back has not yet asked for its
    /// number (`gvb_mesget_*` after the tick, [`TimerId::GvbMesget`]), oldest first: the
    /// destination IMPs.
    pub(crate) gvbs_pulled: VecDeque<u32>,

    // ---- Destination side (K&O §II points d, f, g) ----
    /// Messages in reassembly, and their hand-over in number order ([`Delivery`]).
    pub(crate) delivery: Delivery,
    /// Output to each host on this IMP, by host (see [`HostPort`]).
    pub(crate) ports: Vec<HostPort>,
    /// The hosts of this IMP that are its own fake hosts (the discard host), in host order:
    /// their output is the program's, at background level ([`Imp::is_fake_host`]).
    pub(crate) fake_hosts: Vec<u32>,
    /// RFNMs and ALLs owed, waiting for 8 buffers (and, in number order, GVB answers, waiting
    /// for their place) ([`Replies`]).
    pub(crate) replies: Replies,
    /// Each stream's turn to be replied to, and the replies held for theirs
    /// (`reply_order = "number-1973"`; [`Turns`]).
    pub(crate) turns: Turns<crate::e2e::replies::HeldReply>,

    // ---- Destination side, single-packet messages (RFC 632; `e2e/single.rs`) ----
    /// Single-packet messages not accepted, each owed an ALLOCATE: (stream, number) → the
    /// message and its source IMP.
    pub(crate) requests: BTreeMap<(Stream, u64), Request>,
    /// Reassembly buffers set aside for one single-packet message each, not yet filled.
    pub(crate) set_aside: BTreeSet<(Stream, u64)>,

    // ---- Version 3 (K&O §VI–VII; `e2e/v3.rs`) ----
    /// Transmit blocks, by stream, and messages waiting for one to be free ([`TransmitBlocks`]).
    pub(crate) tx_blocks: TransmitBlocks,
    /// Receive blocks, by stream, and requests waiting for one to be free ([`ReceiveBlocks`]).
    pub(crate) rx_blocks: ReceiveBlocks,
    /// Claims on a PLT entry, served in order: messages that hold their allocation, and
    /// REQALLs decided but not yet sent; the REQALLs outstanding ([`PltClaims`]).
    pub(crate) plt_claims: PltClaims,

    // ---- Its lines (K&O §III; [`crate::link`]) ----
    /// Its interface to each of its lines: the outgoing direction's logical channels, queues
    /// and retransmission timers, the acknowledgements it owes the neighbour, and what it last
    /// accepted on each channel coming in ([`Link`]).
    pub(crate) lines: Vec<Link>,
    /// Its router, which chooses each packet's next line (`network.routing`: the 1974
    /// distance-vector procedure of K&O §III, or SPF from 1979); `None` with static routes
    /// ([`Imp::route`]).
    pub(crate) router: Option<AnyRouter>,
    /// With `routing_tables = "slow-tick-1973"` (only then is it made): the table its router
    /// made at its last slow tick, numbered with that tick's generation, which every routing
    /// message it sends until the next carries (BBN 3050 p. 230 `RUTOUT`;
    /// [`Imp::make_routing_table`]).
    pub(crate) table_made: Option<nmc_routing::RoutingMessage>,
    /// Packets for which its routing table has no route, oldest first: each keeps its buffer
    /// and is routed again whenever the table changes (our choice, `crate::routing`, "Lines
    /// going down and coming up").
    pub(crate) parked: VecDeque<(PktId, Hold)>,
    /// Single-packet messages' replies (RFNMs, ALLOCATEs) the background has still to make
    /// (`single_rfnm_316`/`_516`), with when each is made, oldest first.
    pub(crate) background_replies: VecDeque<crate::e2e::single::PendingReply>,
    /// When the last reply left the line of replies (`reply_gap_*`).
    pub(crate) last_reply_at: Option<SimTime>,
    /// The wake-up asked for at the end of the least time after it ([`TimerId::ReplyGap`]).
    pub(crate) reply_wake: Option<SimTime>,
}

/// What one IMP has of its own rather than from the profile: what the scenario says of it
/// (`network.imp_models`, `network.vdh`) and the fake hosts it holds. Made for every IMP by
/// [`crate::run::build`] and taken whole by [`Imp::new`]: nothing is patched into an IMP
/// after it is made.
#[derive(Clone, Debug)]
pub(crate) struct ImpSettings {
    /// Its machine (K&O §III: a 316 or a 516; the profile's `default_imp` unless named).
    pub(crate) model: ImpModel,
    /// Its packet buffers (the profile's `buffers`, or `buffers_vdh` on a very distant host's IMP).
    pub(crate) buffers: u32,
    /// The most of them reassembly may hold (`reassembly_buffers`, or `reassembly_buffers_vdh`).
    pub(crate) reasm_max: u32,
    /// Its fake hosts (BBN 3050 p. 243), by host index, sorted.
    pub(crate) fake_hosts: Vec<u32>,
    /// Its router, converged with the others' (`crate::routing::Routing::configure`), or
    /// `None` with static routes.
    pub(crate) router: Option<AnyRouter>,
}

impl ImpSettings {
    /// An IMP as the profile makes it: its default machine and buffers, no fake host.
    pub(crate) fn of(p: &ImpParams) -> Self {
        ImpSettings {
            model: p.default_imp,
            buffers: p.buffers,
            reasm_max: p.reassembly_buffers,
            fake_hosts: Vec::new(),
            router: None,
        }
    }

    #[cfg(test)]
    /// A `model` IMP with `buffers` buffers, `reasm_max` of them for reassembly, no fake host.
    pub(crate) fn test(model: ImpModel, buffers: u32, reasm_max: u32) -> Self {
        ImpSettings {
            model,
            buffers,
            reasm_max,
            fake_hosts: Vec::new(),
            router: None,
        }
    }
}

impl Imp {
    /// IMP `id`, named `name`, with its own `settings` ([`ImpSettings`]: machine, buffers,
    /// reassembly's share, fake hosts) and the profile's `limits`; no lines or messages yet.
    pub(crate) fn new(id: u32, name: String, settings: ImpSettings, limits: Limits) -> Self {
        let ImpSettings {
            model,
            buffers,
            reasm_max,
            fake_hosts,
            router,
        } = settings;
        Imp {
            id,
            name,
            model,
            buffers,
            buf_used: 0,
            sf_used: 0,
            reasm_max,
            reasm_used: 0,
            cpu: Processor::default(),
            limits,
            messages: BTreeMap::new(),
            numbers: Numbers::new(limits.source.number_order),
            plt: Plt::default(),
            allocs: Allocations::default(),
            reqalls_on_line: Vec::new(),
            reqalls_acked: Vec::new(),
            gvbs_waiting: VecDeque::new(),
            gvbs_pulled: VecDeque::new(),
            delivery: Delivery::default(),
            ports: Vec::new(),
            fake_hosts,
            replies: Replies::default(),
            turns: Turns::new(
                limits.destination.reply_order == crate::params::ReplyOrder::Number1973,
            ),
            requests: BTreeMap::new(),
            set_aside: BTreeSet::new(),
            tx_blocks: TransmitBlocks::default(),
            rx_blocks: ReceiveBlocks::default(),
            plt_claims: PltClaims::default(),
            lines: Vec::new(),
            router,
            table_made: None,
            parked: VecDeque::new(),
            background_replies: VecDeque::new(),
            last_reply_at: None,
            reply_wake: None,
        }
    }

    /// Adds `link`, one direction of a line leaving this IMP, and returns its place among the
    /// IMP's lines (the `line` that [`Imp::handle_frame`] and the other entry points take).
    pub(crate) fn add_line(&mut self, link: Link) -> u32 {
        self.lines.push(link);
        (self.lines.len() - 1) as u32
    }

    /// The output port of host `host` (made on first use).
    /// Is `host` one of this IMP's own fake hosts?
    #[inline]
    pub(crate) fn is_fake_host(&self, host: u32) -> bool {
        self.fake_hosts.binary_search(&host).is_ok()
    }

    pub(crate) fn port(&mut self, host: u32) -> &mut HostPort {
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

    /// Host `host`'s interface starts its next packet, if it is free and a packet waits for
    /// the host (K&O §III: one at a time on its 100 kbit/s line): it is busy until
    /// [`Imp::host_output_done`]. Returns the packet's data bits (the driver times the
    /// transfer).
    #[inline]
    pub(crate) fn host_output_start(&mut self, host: u32) -> Option<u64> {
        let port = self.port(host);
        if port.busy {
            return None;
        }
        let bits = port.queue.front()?.bits;
        port.busy = true;
        Some(bits)
    }

    /// [`Imp::host_output_start`], and how long the packet takes across the interface: to a
    /// real host, its bits at the interface's rate `interface` (K&O §III: 100 kbit/s); to one
    /// of this IMP's fake hosts, the program's own time for it (the profile's
    /// `fake_host_word` per 16-bit word and `fake_host_packet`, by its machine).
    #[inline]
    pub(crate) fn host_output_begin(
        &mut self,
        host: u32,
        interface: BitRate,
    ) -> Option<SimDuration> {
        let bits = self.host_output_start(host)?;
        Some(if self.is_fake_host(host) {
            let costs = self.costs();
            costs.fake_host_word * bits.div_ceil(16) + costs.fake_host_packet
        } else {
            interface.transmission_time(Bits::new(bits))
        })
    }

    /// The packet that [`Imp::host_output_start`] started is across host `host`'s interface:
    /// the interface is free, and the reassembly buffer the packet held is given back
    /// ([`Imp::release_reassembly`]). Returns the packet, for the steps that follow
    /// ([`Imp::handed_to_host`], [`Imp::single_handed_to_host`], [`Imp::serve_replies`]).
    ///
    /// # Panics
    /// If no packet was being output to the host.
    #[inline]
    pub(crate) fn host_output_done(&mut self, host: u32) -> HostOut {
        let port = self.port(host);
        port.busy = false;
        let o = port.queue.pop_front().expect("a packet was being output");
        self.release_reassembly(1);
        o
    }

    /// Is any packet of a message of `stream` numbered below `num` still on its way to a host?
    pub(crate) fn output_pending_before(&self, stream: Stream, num: u64) -> bool {
        self.ports
            .iter()
            .any(|p| p.queue.iter().any(|o| o.stream == stream && o.num < num))
    }

    /// What line `line` holds against its limit of `output_queue_max` packets
    /// ([`OutputLimit`]): its queue, and under the 1973 program's rule its channels too.
    pub(crate) fn line_load(&self, line: usize) -> u32 {
        let l = &self.lines[line];
        match self.limits.transit.output_limit {
            OutputLimit::Queue => l.queue_len(),
            OutputLimit::Channels => l.queue_len() + l.channels_busy() as u32,
        }
    }

    /// Packet buffers not in use.
    pub(crate) fn free_buffers(&self) -> u32 {
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
    pub(crate) fn refuses_transit(&self, next_queue: Option<u32>) -> Option<Refusal> {
        let limits = self.limits.transit;
        if self.free_buffers() == 0 {
            return Some(Refusal::NoFreeBuffer);
        }
        if self.sf_used >= limits.store_and_forward_max {
            return Some(Refusal::StoreAndForwardFull);
        }
        let Some(queued) = next_queue else {
            return Some(Refusal::NoRoute);
        };
        if queued >= limits.output_queue_max {
            return Some(Refusal::OutputQueueFull);
        }
        None
    }

    /// Takes a packet in transit if K&O §III's rule lets it ([`Imp::refuses_transit`]): the
    /// packet then holds a buffer and one of the store-and-forward places until the next IMP
    /// acknowledges it ([`Imp::release`]). On refusal nothing changes: "A rejected packet is
    /// retransmitted if no IMP-to-IMP acknowledgment has been received after a 125 ms timeout."
    pub(crate) fn admit_transit(&mut self, next_queue: Option<u32>) -> Result<(), Refusal> {
        if let Some(r) = self.refuses_transit(next_queue) {
            return Err(r);
        }
        self.buf_used += 1;
        self.sf_used += 1;
        Ok(())
    }

    /// Whether a host may put `input`, its message's next packet ([`Imp::next_input`]), in now,
    /// and if so its buffer is taken ([`Imp::take_source_buffer`]). K&O §III: the IMP takes a
    /// host's packet only while at least `min_free` (4) buffers are free, and a packet after
    /// its message's first, which joins its output queue at once, only while that queue (the
    /// one its route, read through `net`, gives now) holds fewer than `output_queue_max` (8),
    /// and not while it has no route. A message's first packet, and one for this IMP's own
    /// hosts, join no queue now: their queueing waits for the message's resources.
    #[inline]
    pub(crate) fn admit_host_packet(
        &mut self,
        input: &Input,
        net: &impl Net,
    ) -> Result<(), HostWait> {
        let (min_free, output_queue_max) = (
            self.limits.host_input_min_free,
            self.limits.transit.output_queue_max,
        );
        // Whatever the rule, the packet needs a buffer of its own.
        if self.free_buffers() < min_free.max(1) {
            return Err(HostWait::FewBuffers);
        }
        if self.limits.host_queue_check == HostQueueCheck::BeforeInput {
            self.host_packet_has_room(input, net, output_queue_max)?;
        }
        self.take_source_buffer();
        Ok(())
    }

    /// Whether `input`, a host's packet in this IMP's buffer, may now be handed to the task
    /// (`host_queue_check = "after-input-1973"`: BBN 3050 p. 133 `H2TASK`, p. 64 `TSKFOR`): a
    /// packet after its message's first joins its line's queue at once, so the line must have
    /// room ([`Imp::admit_host_packet`]'s rule, asked after the input).
    #[inline]
    pub(crate) fn host_packet_handed(&self, input: &Input, net: &impl Net) -> Result<(), HostWait> {
        self.host_packet_has_room(input, net, self.limits.transit.output_queue_max)
    }

    /// K&O §III: a host's packet after its message's first joins its output queue (the one its
    /// route, read through `net`, gives now) at once, so it needs a route and a queue holding
    /// fewer than `output_queue_max`.
    fn host_packet_has_room(
        &self,
        input: &Input,
        net: &impl Net,
        output_queue_max: u32,
    ) -> Result<(), HostWait> {
        if input.index > 0 && input.dst != self.id {
            let line = self
                .route(input.dst, net)
                .and_then(|l| self.line_of(l))
                .ok_or(HostWait::NoRoute)?;
            if self.line_load(line) >= output_queue_max {
                return Err(HostWait::OutputQueueFull);
            }
        }
        Ok(())
    }

    /// A packet of the IMP's own message generator takes any free buffer: it has no host
    /// interface, and neither K&O §III's 4-buffer rule nor an output queue holds it back.
    pub(crate) fn admit_own_packet(&mut self) -> Result<(), HostWait> {
        if self.free_buffers() == 0 {
            return Err(HostWait::FewBuffers);
        }
        self.take_source_buffer();
        Ok(())
    }

    /// A packet from one of this IMP's hosts (or its message generator) takes a buffer as it
    /// comes in (K&O §III: the IMP takes a host's packet only into a free buffer); it keeps it
    /// until the next IMP acknowledges the packet or, for a single-packet message's copy
    /// (RFC 632), until the RFNM.
    pub(crate) fn take_source_buffer(&mut self) {
        debug_assert!(self.free_buffers() > 0, "{}: no free buffer", self.name);
        self.buf_used += 1;
    }

    /// The buffer of a packet this IMP sent, freed by the next IMP's acknowledgement, by
    /// what held it ([`Hold`]): a source packet its buffer, a packet in transit its buffer and
    /// store-and-forward place; control messages use space set aside for them, and a
    /// single-packet message's copy waits for its RFNM ([`Imp::release_copy`]).
    pub(crate) fn release(&mut self, pkt: PktId, hold: Hold) {
        match hold {
            Hold::Source => self.buf_used -= 1,
            Hold::Transit => {
                self.buf_used -= 1;
                self.sf_used -= 1;
            }
            Hold::Control | Hold::Regular | Hold::Copy => {}
            Hold::Request => {
                // Packet 1's buffer (`TWOQ`): nothing freed; the message may go on.
                if let Some(k) = self.reqalls_on_line.iter().position(|&(p, _)| p == pkt) {
                    let (_, msg) = self.reqalls_on_line.remove(k);
                    self.reqalls_acked.push(msg);
                }
            }
        }
    }

    /// Message `msg` of this IMP, its source, moves to state `to`; the change is traced.
    pub(crate) fn set_state(&mut self, msg: MsgId, to: MsgState, out: &mut impl Effects) {
        let m = self.messages.get_mut(&msg).expect("a message of this IMP");
        let from = std::mem::replace(&mut m.state, to);
        out.push(Output::Trace(Traced::State { msg, from, to }));
    }

    /// The RFNM of a single-packet message came back: the source IMP's copy is no longer
    /// needed (RFC 632: the source keeps a copy until the RFNM).
    pub(crate) fn release_copy(&mut self) {
        self.buf_used -= 1;
    }

    #[cfg(test)]
    /// When this IMP next needs waking for its own sake: the earliest of its timers (the
    /// processor's task in hand, its lines' retransmission timers, RFNMs waiting for buffers,
    /// unused allocations, version 3's block disuse timers).
    pub(crate) fn poll_at(&self) -> Option<SimTime> {
        let lines = self.lines.iter().filter_map(Link::poll_at).min();
        let task = self.cpu.poll_at().map(|(t, _)| t);
        self.next_release_at()
            .into_iter()
            .chain(lines)
            .chain(task)
            .min()
    }

    /// The earliest of the timers that can let something this IMP holds go by time alone: a
    /// RFNM's wait for buffers, an unused allocation, a block's disuse (the lockup report's
    /// question, `model/lockup.rs`). A line's retransmission timer is not one: sending a packet
    /// again frees nothing. Nor is the end of the processor's task in hand: it is work on
    /// something that came in (in a lockup, a packet sent again and refused), over within
    /// milliseconds, and whether the watch looks while one is in hand is chance.
    pub(crate) fn next_release_at(&self) -> Option<SimTime> {
        [
            self.replies.poll_at(),
            self.allocs.poll_at(),
            self.tx_blocks.poll_at(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Packet `pkt` joins the queue of `line`, by what holds it ([`Hold`]): a control message
    /// ahead of data when [`LineLimits::control_priority`] (a choice: the sources are silent,
    /// `params.rs`), anything else at the end of the output queue (K&O §III: at most 8 data
    /// packets, a rule asked before a packet is taken in, [`Imp::admit_transit`],
    /// [`Imp::admit_host_packet`]), a REQALL sent the 1973 way ([`Hold::Request`]) among them.
    #[inline]
    pub(crate) fn enqueue(&mut self, line: usize, pkt: PktId, hold: Hold) {
        let control_priority = self.limits.line.control_priority;
        let link = &mut self.lines[line];
        if hold == Hold::Control && control_priority {
            link.ctrl.push_back((pkt, hold));
        } else {
            link.data.push_back((pkt, hold));
        }
        link.max_queue = link.max_queue.max(link.data.len() as u32);
    }

    /// The task level has taken in the packet that came on `line` on channel `lch` with
    /// sequence bit `bit`: its acknowledgement is owed to the neighbour, to go with the next
    /// frame on the line (listing p. 70, `GOODM`: the acknowledgement goes when the packet is
    /// accepted; asked only while the line is up, [`Imp::packet_processed`]).
    #[inline]
    pub(crate) fn owe_acknowledgement(&mut self, line: usize, lch: u8, bit: bool) {
        self.lines[line].add_ack(lch, bit);
    }

    /// The task level is done with packet `pkt`, held as `hold`, which goes on toward another
    /// IMP by link `route` (its route now; `None`: no route, it waits in the IMP). A packet in
    /// transit had a place kept on the queue of `planned` when it arrived
    /// ([`Imp::handle_frame`]); that place is given up as the packet joins its queue, whichever
    /// line the route gives now. Returns the line it joined.
    #[inline]
    pub(crate) fn forward(
        &mut self,
        pkt: PktId,
        hold: Hold,
        planned: Option<u32>,
        route: Option<u32>,
    ) -> Option<usize> {
        if hold == Hold::Transit
            && let Some(k) = planned.and_then(|p| self.line_of(p))
        {
            self.lines[k].incoming -= 1;
        }
        let line = route.and_then(|l| self.line_of(l))?;
        self.enqueue(line, pkt, hold);
        Some(line)
    }

    /// The next frame on `line`, if the line is free and something is to be sent; the line is
    /// then busy until [`Imp::frame_sent`]. Every frame carries the acknowledgements owed for
    /// the other direction; a routing message goes first, then a packet to be sent again,
    /// then a queued one on a free logical channel (control messages first), else the
    /// acknowledgements alone ([`crate::link::Link::next_frame`]). The IMP's clock makes a
    /// slow tick every [`LineLimits::slow_tick_every`] ticks (BBN's listing, `params.rs`).
    #[inline]
    pub(crate) fn poll_transmit(&mut self, line: usize) -> Option<Transmit> {
        let generation = self.routing_generation();
        let link = &mut self.lines[line];
        if !link.free() {
            return None;
        }
        let what = link.next_frame()?;
        let mut fresh = false;
        if what == NextFrame::Routing {
            fresh = link.routing_sent != Some(generation);
            link.routing_sent = Some(generation);
        }
        let (ack_mask, ack_bits) = link.take_acks();
        link.busy = true;
        Some(Transmit {
            what,
            fresh,
            ack_mask,
            ack_bits,
        })
    }

    /// A wake-up at `now` for timer `timer` (one the IMP asked for, [`Output::Timer`]): what
    /// its running out asks is pushed into `out`; nothing when the arming it names was disarmed
    /// meanwhile (an acknowledgement, an allocation used, a RFNM gone with its ALL, a clock tick
    /// that moved a task's end). Wake-ups come at their deadlines ([`Imp::poll_at`] gives the
    /// earliest); one per arming. Each timer's step: the processor's task done and the next
    /// started (`hop/processing.rs`: [`Imp::task_done`]); a packet unacknowledged on a line,
    /// sent again (`hop/lines.rs`: [`Imp::retransmission_due`]); version 3's block disuse
    /// (`e2e/control_blocks.rs`: the block released, or a wake-up asked for its later deadline);
    /// a RFNM's wait for buffers (the RFNM sent without an ALL) and an allocation's give-back
    /// (the GVB), both in `e2e/replies.rs`. `net` is what the task level reads around it.
    ///
    /// # Panics
    /// If a retransmission timer names a line or channel the IMP does not have.
    #[inline(always)]
    pub(crate) fn handle_timeout(
        &mut self,
        now: SimTime,
        timer: TimerId,
        net: &impl Net,
        out: &mut impl Effects,
    ) {
        match timer {
            TimerId::Retransmit {
                line,
                lch,
                generation,
            } => self.retransmission_due(now, line, lch, generation, out),
            TimerId::RfnmWait { generation } => {
                debug_assert!(
                    Deadline::on_time(self.replies.deadline(generation), generation, now),
                    "a RFNM's wait ends at its deadline"
                );
                self.rfnm_wait_over(now, generation, out);
            }
            TimerId::GiveBack { dst, generation } => {
                debug_assert!(
                    Deadline::on_time(self.allocs.deadline(dst, generation), generation, now),
                    "an allocation's give-back timer wakes at its deadline"
                );
                self.allocation_unused(now, dst, generation, out);
            }
            TimerId::Task { generation } => self.task_done(now, generation, net, out),
            TimerId::BlockIdle { stream } => self.block_idle_woken(now, stream, out),
            TimerId::OutputReady { line } => self.output_ready(line, out),
            TimerId::BackgroundReply => self.background_replies_due(now, out),
            TimerId::ReplyGap => {
                if self.reply_wake == Some(now) {
                    self.reply_wake = None;
                }
                self.serve_replies(now, out)
            }
            TimerId::GvbMesget => self.gvb_asks_number(out),
        }
    }

    /// A packet for this IMP at `now` (its destination, or a reply's source): a data packet,
    /// a REQALL, a GVB or a version 3 block message at the destination; a RFNM, an ALL, or RFC
    /// 632's RFNM or ALLOCATE at the source. The step for its kind takes it.
    pub(crate) fn handle_packet(&mut self, now: SimTime, p: &Packet, out: &mut impl Effects) {
        let (stream, from) = (p.stream, p.src);
        match p.kind {
            // RFC 632: a single-packet message at its destination (`e2e/single.rs`).
            PktKind::Data {
                msg,
                num,
                of: 1,
                host,
                ..
            } => {
                let s = Single {
                    msg,
                    num,
                    src: from,
                    host,
                };
                self.single_received(now, stream, s, p.bits.get(), out);
            }
            // K&O §II points d, f, g: a multipacket message's packet (`e2e/replies.rs`).
            PktKind::Data {
                msg,
                num,
                index: _,
                of,
                host,
            } => {
                let d = DataPacket {
                    stream,
                    msg,
                    num,
                    of,
                    src: from,
                    host,
                    bits: p.bits.get(),
                };
                self.message_packet_received(now, d, out);
            }
            PktKind::ReqAll { msg: _, num } => self.reqall_received(now, (from, stream, num), out),
            PktKind::Gvb => self.gvb_received(now, out),
            PktKind::GvbNumbered { num } => {
                self.numbered_gvb_received(now, (from, stream, num), out)
            }
            PktKind::GvbRfnm { num } => self.gvb_answered((stream, num), from, out),
            // K&O §II point h at the source (`e2e/messages.rs`).
            PktKind::Rfnm { msg, num: _, all } => {
                self.rfnm_received(now, stream, (msg, all), from, out)
            }
            PktKind::All { num } => self.all_received(now, (stream, num), from, out),
            // RFC 632's RFNM and ALLOCATE at the source (`e2e/single.rs`).
            PktKind::SingleRfnm { msg, num } => {
                self.single_rfnm_received(now, stream, (msg, num), from, out)
            }
            PktKind::SingleAll { msg, num } => self.single_all_received((msg, num), from, out),
            // Version 3's message control blocks (`e2e/control_blocks.rs`).
            PktKind::CreateBlock => self.create_block_received(from, stream, out),
            PktKind::BlockCreated => self.block_created_received(stream, out),
            PktKind::ReleaseBlock => self.release_block_received(stream, out),
            // An outside IMP's packet for this IMP (a report to its fake host): the driver
            // outside answers it as the IMP program's fake host would (`model/boundary.rs`).
            PktKind::Foreign { body, .. } => out.push(Output::ForeignArrived { body, src: from }),
        }
    }

    /// The rest of a step ([`Output::Resume`]) at `now`, once the outputs pushed before it are
    /// carried out (`net` as for the step it continues).
    pub(crate) fn resume(
        &mut self,
        now: SimTime,
        rest: Resume,
        net: &impl Net,
        out: &mut impl Effects,
    ) {
        match rest {
            Resume::Processed { pkt, hold, planned } => {
                let route = self.route(net.packet(pkt).dst, net);
                self.queued_on(pkt, hold, planned, route, out)
            }
            Resume::BlockWaiters { after } => self.serve_block_waiters(Some(after), out),
            Resume::ReceiveBlocks => self.open_waiting_receive_block(out),
            Resume::Replies => self.serve_reply_queue(now, out),
            Resume::Turn => self.serve_replies(now, out),
            Resume::SingleRequests(rest) => self.serve_single_requests(now, rest, out),
            Resume::Advance(msg) => self.advance(msg, out),
            Resume::ServeWaiters => self.serve_waiters(out),
            Resume::Waiters {
                mark,
                stream,
                moved,
            } => self.waiters_resumed(mark, stream, moved, out),
            Resume::Plt { moved } => self.serve_plt(moved, out),
            Resume::AskAgain { dst } => self.ask_again(dst, out),
            Resume::AcceptedAtLineDown { line, lch, bit } => {
                self.acknowledged_at_line_down(line, lch, bit, out)
            }
        }
    }

    /// Which of its lines is network link `link` (its outgoing direction), if any.
    #[inline]
    pub(crate) fn line_of(&self, link: u32) -> Option<usize> {
        self.lines.iter().position(|x| x.id == link)
    }

    /// The neighbour on `line` acknowledged the packet on channel `lch` with sequence bit
    /// `bit`: the channel is free again and the buffer the packet held is given back by what
    /// held it ([`Imp::release`]). Returns the packet, whose copy the caller drops; `None` for
    /// an old acknowledgement.
    #[inline]
    pub(crate) fn acknowledge(&mut self, line: usize, lch: u8, bit: bool) -> Option<PktId> {
        let (pkt, hold) = self.lines[line].acknowledge(lch, bit)?;
        self.release(pkt, hold);
        Some(pkt)
    }

    /// A frame came in on `line` (the line to the neighbour that sent it), handled whole, as
    /// the IMP's modem-to-IMP routine handled it: in one pass it dealt with the returning
    /// acknowledgements (freeing the packets they covered) and then put the packet on the task
    /// queue (BBN, *The Interface Message Processor Program*, Feb. 1973, updated Nov. 1973,
    /// §3.1.2, "Packet Flow Through Major IMP Routines"); the line's output and the hosts'
    /// input, other routines, run after it:
    /// * a frame whose checksum fails is lost, with everything it carried;
    /// * the acknowledgements it carries free this IMP's packets on the line
    ///   ([`Imp::acknowledge`]; returned by channel);
    /// * a packet on a channel whose sequence bit was the last accepted there is a
    ///   retransmission: acknowledged again (the acknowledgement waits on `line`) and discarded;
    /// * a data packet passing through is asked K&O §III's questions ([`Imp::admit_transit`]),
    ///   with its next line's queue, packets on their way into it counted; control messages and
    ///   packets for this IMP's hosts use space set aside for them and are not asked;
    /// * an accepted packet's sequence bit is remembered, and a place on its next line's queue
    ///   is kept for it while the processor handles it;
    /// * each frame is counted on `line` by what became of it (a line error, a duplicate, a
    ///   refusal, a packet accepted).
    ///
    /// `packet` reads the frame's packet (asked only once the frame is known not to be a
    /// duplicate: the sender may have dropped an acknowledged packet meanwhile); `route` gives
    /// the static routes' next link toward a packet's destination IMP, if any (read only when
    /// the IMP runs no router, [`Imp::route_by`]).
    ///
    /// # Panics
    /// If `line` is not one of its lines, or the frame names a logical channel above 7 (the
    /// profile allows at most 8, `params.rs`).
    #[inline]
    pub(crate) fn handle_frame(
        &mut self,
        line: usize,
        frame: &Frame,
        packet: impl FnOnce(PktId) -> Packet,
        route: impl FnOnce(&Packet) -> Option<u32>,
    ) -> (Acked, Arrival) {
        let mut acked: Acked = [None; 8];
        if frame.corrupted {
            self.lines[line].in_corrupted += 1;
            return (acked, Arrival::Corrupted);
        }
        for lch in crate::link::channels_in(frame.ack_mask) {
            let bit = frame.ack_bits & (1 << lch) != 0;
            acked[lch as usize] = self.acknowledge(line, lch, bit);
        }
        let FrameKind::Packet { pkt, lch, bit } = frame.kind else {
            return (acked, Arrival::NoPacket);
        };
        if self.lines[line].is_duplicate(lch, bit) {
            self.lines[line].add_ack(lch, bit);
            self.lines[line].in_duplicates += 1;
            return (acked, Arrival::Duplicate);
        }
        let packet = packet(pkt);
        let transit = !packet.kind.is_control() && packet.dst != self.id;
        let next = if transit {
            self.route_by(packet.dst, || route(&packet))
        } else {
            None
        };
        let next_line = next.and_then(|n| self.line_of(n));
        if transit {
            let queued = next_line.map(|k| self.line_load(k));
            if let Err(refusal) = self.admit_transit(queued) {
                self.lines[line].in_rejected += 1;
                return (acked, Arrival::Rejected { packet, refusal });
            }
        }
        self.lines[line].in_last[lch as usize] = Some(bit);
        self.lines[line].in_accepted += 1;
        if let Some(k) = next_line {
            self.lines[k].incoming += 1;
        }
        (
            acked,
            Arrival::Accepted {
                packet,
                next,
                lch,
                bit,
            },
        )
    }

    /// Can `n` reassembly buffers be reserved now?
    pub(crate) fn can_reserve(&self, n: u32) -> bool {
        self.reasm_used + n <= self.reasm_max && self.free_buffers() >= n
    }

    /// Reserves `n` reassembly buffers, each also a packet buffer ([`Imp::can_reserve`] says
    /// whether it may).
    pub(crate) fn reserve(&mut self, n: u32) {
        self.reasm_used += n;
        self.buf_used += n;
    }

    /// Frees `n` reassembly buffers, reserved or filled, and their packet buffers.
    pub(crate) fn release_reassembly(&mut self, n: u32) {
        self.reasm_used -= n;
        self.buf_used -= n;
    }

    /// Reserves one allocation's buffers ([`DestinationLimits::allocation_buffers`]) for the
    /// reply at the head of the queue, if [`Imp::can_reserve`] them; says whether it did.
    pub(crate) fn reserve_allocation(&mut self) -> bool {
        let n = self.limits.destination.allocation_buffers;
        let ok = self.can_reserve(n);
        if ok {
            self.reserve(n);
        }
        ok
    }

    /// K&O §II point f: a message of `of` packets is reassembled; the buffers its allocation
    /// reserved and it did not fill (a message of fewer than 8 packets) go back.
    pub(crate) fn release_unfilled(&mut self, of: u8) {
        self.release_reassembly(self.limits.destination.allocation_buffers - of as u32);
    }

    /// A GVB came in: the allocation it gives back frees its buffers.
    pub(crate) fn release_allocation(&mut self) {
        self.release_reassembly(self.limits.destination.allocation_buffers);
    }

    /// K&O §II point h: an ALL for `dst` reached this source IMP at `now`: the allocate counter
    /// goes up, and the allocation goes back with a GVB at the returned deadline unless used
    /// ([`SourceLimits::giveback_after`]).
    pub(crate) fn allocation_arrived(&mut self, dst: u32, now: SimTime) -> Deadline {
        self.allocs.add(dst, now, self.limits.source.giveback_after)
    }

    /// K&O §II point g: the RFNM of message `msg` (`num` of `stream`, from source IMP `src`) is
    /// made at `now`; it waits for buffers to carry an ALL until the returned deadline
    /// ([`DestinationLimits::rfnm_all_wait`]).
    pub(crate) fn make_rfnm(
        &mut self,
        stream: Stream,
        msg: MsgId,
        num: u64,
        src: u32,
        now: SimTime,
    ) -> Deadline {
        let wait = self.limits.destination.rfnm_all_wait;
        self.replies.make_rfnm(stream, msg, num, src, now, wait)
    }

    /// The reply to serve next, under the profile's piggy-back rule (K&O §VII: BBN's fix sends
    /// every RFNM with another reply queued at once, [`DestinationLimits::rfnm_piggyback`]).
    pub(crate) fn next_reply(&mut self) -> Next {
        let fix = self.limits.destination.rfnm_piggyback == Piggyback::NotWhileRepliesWait;
        self.replies.next(fix)
    }

    /// Does anything still hold a resource here? (For the no-leak check.)
    pub(crate) fn idle(&self) -> bool {
        self.buf_used == 0
            && self.sf_used == 0
            && self.reasm_used == 0
            && self.plt.used() == 0
            && self.numbers.idle()
            && self.delivery.idle()
            && self.replies.is_empty()
            && self.turns.idle()
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

    /// K&O §III's limits: 20 store-and-forward packets, 8 in an output queue; the October
    /// 1974 profile's processor.
    fn k_and_o() -> Limits {
        let p = ImpParams::v2_1974_10();
        Limits {
            transit: TransitLimits {
                store_and_forward_max: 20,
                output_queue_max: 8,
                output_limit: OutputLimit::Queue,
            },
            host_input_min_free: 4,
            host_queue_check: HostQueueCheck::BeforeInput,
            host_packet_entry: HostPacketEntry::AtOnce,
            background_level: BackgroundLevel::Timer,
            reply_to_host: ReplyToHost::AtOnce,
            source: SourceLimits {
                version: MessageProcessing::V2,
                message_numbers: 4,
                number_order: crate::params::NumberOrder::Pool,
                plt_entries: 6,
                control_blocks: 64,
                superfluous_reqalls: true,
                giveback_after: SimDuration::from_millis(250),
                giveback: Giveback::PerAllocation,
                giveback_ticks: 6,
                control_block_idle: SimDuration::from_secs(120),
                reqall_path: ReqallPath::Control,
                reqall_claim: ReqallClaim::AtAck,
                reqall_wake: ReqallWake::AtOnce,
                reqall_check: ReqallCheck::AtTask,
                gvb_number: GvbNumber::None,
            },
            destination: DestinationLimits {
                allocation_buffers: 8,
                rfnm_all_wait: SimDuration::from_secs(1),
                rfnm_piggyback: Piggyback::Always,
                single_packet_rule: SinglePacketRule::Current,
                max_packet: 1008,
                fake_host_rfnm: FakeHostRfnm::AfterFirstPacket,
                reply_order: crate::params::ReplyOrder::Made,
            },
            line: LineLimits {
                retransmit_timeout: SimDuration::from_millis(125),
                slow_tick_every: 5,
                control_priority: true,
                gvb_queue: ControlQueue::Priority,
                reqall_queue: ControlQueue::Priority,
                routing: RoutingLoad {
                    opportunities: 5,
                    busy_unit: SimDuration::from_millis(132),
                    period: SimDuration::from_millis(640),
                    pattern: crate::params::RoutingPattern::Even,
                },
                routing_null: RoutingNull::None,
                routing_tables: RoutingTables::EachMessage,
            },
            processor: ProcessorLimits {
                h316: p.costs(ImpModel::H316),
                h516: p.costs(ImpModel::H516),
                packet_overhead: 168,
            },
        }
    }

    /// `modem_interrupts = "cpu-1973"` (BBN 3050 p. 11: modem input runs above the timeout
    /// level and the task): a frame's modem input routine takes the processor when the frame
    /// is in, and its own task no longer holds that time, so an IMP with nothing else to do
    /// ends the frame's task when it did; a frame that comes in while a task is in service
    /// makes that task end later by its routine's time (pp. 88–96, 258 memory cycles for a
    /// short frame, measured on the program). With the interrupts free it costs nothing.
    #[test]
    fn a_frames_modem_input_takes_the_processor_from_the_task_in_service() {
        use crate::params::ModemInterrupts;
        use nmc_sim::{Bits, SimDuration};
        let us = |u: u64| SimTime::ZERO + SimDuration::from_micros(u);
        let mut p = ImpParams::v2_1974_10();
        p.modem_interrupts = ModemInterrupts::Cpu1973;
        let mut limits = k_and_o();
        limits.processor.h516 = p.costs(ImpModel::H516);
        let cpu = Imp::new(
            0,
            "X".into(),
            ImpSettings::test(ImpModel::H516, 40, 10),
            limits,
        );
        let routing = FrameKind::Routing {
            body: 0,
            fresh: true,
        };
        let update = ImpParams::v2_1974_10().routing_update_516;
        for (mut x, interrupts) in [(imp(), false), (cpu, true)] {
            let mut out = Vec::new();
            x.modem_input(us(0), Bits::new(1160), &mut out);
            x.frame_taken(us(0), routing, Bits::new(1160), &mut out);
            let end = x.cpu.poll_at().map(|d| d.0);
            assert_eq!(end, Some(us(0) + update), "an idle IMP: the measured time");
            x.modem_input(us(1_000), Bits::new(152), &mut out);
            let end = x.cpu.poll_at().map(|d| d.0);
            let m2i = if interrupts {
                p.modem_input_control_516
            } else {
                SimDuration::ZERO
            };
            assert_eq!(end, Some(us(0) + update + m2i), "a null came in meanwhile");
        }
    }

    /// An IMP of 40 buffers.
    fn imp() -> Imp {
        Imp::new(
            0,
            "X".into(),
            ImpSettings::test(ImpModel::H516, 40, 10),
            k_and_o(),
        )
    }

    /// A RFNM for a single-packet message its source no longer holds (answered by an earlier
    /// copy of the same RFNM) frees nothing, neither the pair's number nor a copy's buffer: it
    /// is counted and dropped. (It used to give the number back a second time.)
    #[test]
    fn a_second_rfnm_for_an_answered_single_packet_message_frees_nothing() {
        let mut x = imp();
        let mut out: Vec<Output> = Vec::new();
        x.single_rfnm_received(SimTime::ZERO, 5, (99, 4), 3, &mut out);
        assert_eq!(x.numbers.in_use(5), 0);
        assert!(
            out.iter()
                .any(|o| matches!(o, Output::Count(Counted::SingleRfnmDuplicate)))
        );
        assert!(
            !out.iter()
                .any(|o| matches!(o, Output::SingleAnswered { .. }))
        );
    }

    #[test]
    fn a_neighbour_takes_a_packet_it_has_room_and_a_route_for() {
        assert_eq!(imp().refuses_transit(Some(7)), None);
    }

    #[test]
    fn a_packet_is_rejected_when_the_imp_has_no_free_buffer() {
        let mut x = imp();
        x.buf_used = 40;
        assert_eq!(x.refuses_transit(Some(0)), Some(Refusal::NoFreeBuffer));
    }

    #[test]
    fn a_packet_is_rejected_when_20_store_and_forward_packets_are_held() {
        let mut x = imp();
        x.buf_used = 20;
        x.sf_used = 20;
        assert_eq!(
            x.refuses_transit(Some(0)),
            Some(Refusal::StoreAndForwardFull)
        );
    }

    #[test]
    fn a_packet_is_rejected_when_its_output_queue_is_full_or_it_has_no_route() {
        assert_eq!(
            imp().refuses_transit(Some(8)),
            Some(Refusal::OutputQueueFull)
        );
        assert_eq!(imp().refuses_transit(None), Some(Refusal::NoRoute));
    }

    /// K&O §III: a packet in transit holds a buffer and a store-and-forward place until the
    /// next IMP acknowledges it; the 21st is refused while 20 are held.
    #[test]
    fn a_packet_in_transit_holds_its_place_until_acknowledged() {
        let mut x = imp();
        for _ in 0..20 {
            assert_eq!(x.admit_transit(Some(0)), Ok(()));
        }
        assert_eq!((x.buf_used, x.sf_used), (20, 20));
        assert_eq!(x.admit_transit(Some(0)), Err(Refusal::StoreAndForwardFull));
        assert_eq!((x.buf_used, x.sf_used), (20, 20), "a refusal takes nothing");
        x.release(0, Hold::Transit);
        assert_eq!((x.buf_used, x.sf_used), (19, 19));
        assert_eq!(x.admit_transit(Some(0)), Ok(()));
    }

    /// A host's packet holds a buffer but no store-and-forward place; a single-packet
    /// message's copy is kept past the acknowledgement, until the RFNM (RFC 632).
    #[test]
    fn a_source_packet_holds_a_buffer_and_a_copy_waits_for_the_rfnm() {
        let mut x = imp();
        x.take_source_buffer();
        x.take_source_buffer();
        assert_eq!((x.buf_used, x.sf_used), (2, 0));
        x.release(0, Hold::Source);
        x.release(0, Hold::Copy);
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
        x.make_rfnm(0, 7, 1, 5, ms(100));
        assert_eq!(x.poll_at(), Some(ms(1100)));
        x.allocation_arrived(3, ms(900));
        assert_eq!(x.poll_at(), Some(ms(1100)));
        x.allocation_arrived(3, ms(700));
        assert_eq!(x.poll_at(), Some(ms(950)));
    }

    /// K&O §II point f: an ALL reserves 8 reassembly buffers; a 3-packet message reassembled
    /// in them gives back the 5 it did not fill, and a GVB gives back all 8. The reassembly
    /// room (10 here) bounds what may be reserved: 3 held and 8 more do not fit.
    #[test]
    fn an_allocation_gives_back_what_its_message_did_not_fill() {
        let mut x = imp();
        assert!(x.reserve_allocation());
        assert_eq!((x.reasm_used, x.buf_used), (8, 8));
        x.release_unfilled(3);
        assert_eq!((x.reasm_used, x.buf_used), (3, 3));
        assert!(!x.reserve_allocation(), "3 + 8 > 10 reassembly buffers");
        assert_eq!(
            (x.reasm_used, x.buf_used),
            (3, 3),
            "a refusal takes nothing"
        );
        x.release_reassembly(3);
        assert!(x.reserve_allocation());
        x.release_allocation();
        assert_eq!((x.reasm_used, x.buf_used), (0, 0));
    }

    /// K&O §VII, BBN's fix, as the IMP's profile says: with two RFNMs and an ALL owed, the 1975
    /// IMP offers the RFNM at the head (to wait for its ALL); under the fix both RFNMs go at
    /// once without one.
    #[test]
    fn the_profile_says_whether_rfnms_wait_for_their_all_behind_other_replies() {
        use crate::destination::{Next, Reply};
        let owe = |x: &mut Imp| {
            x.make_rfnm(7, 100, 0, 5, SimTime::ZERO);
            x.replies.owe_all(3, 4, 5);
            x.make_rfnm(7, 101, 1, 5, SimTime::ZERO);
        };
        let mut before = imp();
        owe(&mut before);
        assert!(matches!(
            before.next_reply(),
            Next::Head(Reply::Rfnm { msg: 100, .. })
        ));
        let mut fixed = imp();
        fixed.limits.destination.rfnm_piggyback = Piggyback::NotWhileRepliesWait;
        owe(&mut fixed);
        let Next::WithoutAll(gone) = fixed.next_reply() else {
            panic!("under the fix the RFNMs go without ALLs");
        };
        assert_eq!(gone.len(), 2);
    }

    /// The frames an IMP is fed below: IMP X (0) with two lines, to A (1, X's link 0) and to
    /// B (2, X's link 2), 50 kbit/s; A sends to X over link 1.
    mod frames {
        pub(super) use super::*;
        pub(super) use crate::link::NextFrame;
        use crate::packet::PktKind;
        use crate::topology::LinkDef;
        use nmc_sim::{BitRate, Bits, RngStreams, SimDuration};

        /// X's line to A, on which A's frames come in.
        pub(super) const FROM_A: usize = 0;
        /// X's line to B, link 2 of the network.
        pub(super) const TO_B: usize = 1;

        pub(super) fn imp_x() -> Imp {
            let mut x = imp();
            let streams = RngStreams::new(1);
            for (to, id) in [(1, 0), (2, 2)] {
                let def = LinkDef {
                    from: 0,
                    to,
                    capacity: BitRate::from_kbps(50),
                    propagation: SimDuration::from_millis(1),
                };
                x.lines
                    .push(Link::new(def, id, id + 1, 8, streams.stream(id as u64)));
            }
            x
        }

        /// A one-packet message from A's host for IMP `dst`.
        pub(super) fn data_for(dst: u32) -> Packet {
            Packet {
                kind: PktKind::Data {
                    msg: 1,
                    num: 0,
                    index: 0,
                    of: 1,
                    host: 0,
                },
                src: 1,
                dst,
                stream: 0,
                bits: Bits::new(1000),
                hops: 0,
            }
        }

        /// A's frame carrying its packet `pkt` on logical channel `lch` with sequence bit `bit`.
        pub(super) fn frame(pkt: PktId, lch: u8, bit: bool) -> Frame {
            Frame {
                kind: FrameKind::Packet { pkt, lch, bit },
                ack_mask: 0,
                ack_bits: 0,
                corrupted: false,
            }
        }

        /// X's host's packet 42 goes to A: its buffer taken, its frame sent. Its channel and
        /// sequence bit.
        pub(super) fn a_host_packet_sent_to_a(x: &mut Imp) -> (u8, bool) {
            x.take_source_buffer();
            x.lines[FROM_A].data.push_back((42, Hold::Source));
            match x.lines[FROM_A].next_frame() {
                Some(NextFrame::Packet { lch, bit, .. }) => (lch, bit),
                other => panic!("the packet goes, not {other:?}"),
            }
        }

        /// Routes everything toward B.
        pub(super) fn via_b(_: &Packet) -> Option<u32> {
            Some(2)
        }

        pub(super) fn accepted(a: Arrival) -> Option<u32> {
            match a {
                Arrival::Accepted { next, .. } => next,
                other => panic!("expected the packet accepted, got {other:?}"),
            }
        }
    }

    /// K&O §III: a packet passing through takes a buffer and a store-and-forward place, and a
    /// place on its next line's queue is kept for it; the acknowledgement goes only once the
    /// processor has taken it (listing p. 70, `GOODM`).
    #[test]
    fn a_packet_in_transit_is_accepted_into_a_buffer_and_its_next_queue() {
        use frames::*;
        let mut x = imp_x();
        let (acked, a) = x.handle_frame(FROM_A, &frame(7, 0, true), |_| data_for(2), via_b);
        assert_eq!(acked, [None; 8]);
        assert_eq!(accepted(a), Some(2));
        assert_eq!((x.buf_used, x.sf_used), (1, 1));
        assert_eq!(x.lines[TO_B].queue_len(), 1, "its place on B's queue");
        assert_eq!(x.lines[FROM_A].next_frame(), None, "not acknowledged yet");
    }

    /// K&O §III: "Such a rejection occurs if either there are 20 store-and-forward packets in
    /// the neighbor IMP or if the output queue for the next hop is full ... A rejected packet
    /// is retransmitted if no IMP-to-IMP acknowledgment has been received after a 125 ms
    /// timeout." No acknowledgement goes back; the retransmission, once there is room, is
    /// taken as new.
    #[test]
    fn a_packet_is_rejected_at_20_store_and_forward_packets_and_taken_when_sent_again() {
        use frames::*;
        let mut x = imp_x();
        (x.buf_used, x.sf_used) = (20, 20);
        let (_, a) = x.handle_frame(FROM_A, &frame(7, 3, true), |_| data_for(2), via_b);
        assert!(matches!(
            a,
            Arrival::Rejected {
                refusal: Refusal::StoreAndForwardFull,
                ..
            }
        ));
        assert_eq!((x.buf_used, x.sf_used), (20, 20), "a refusal takes nothing");
        assert_eq!(x.lines[FROM_A].next_frame(), None, "no acknowledgement");
        x.release(0, Hold::Transit);
        let (_, a) = x.handle_frame(FROM_A, &frame(7, 3, true), |_| data_for(2), via_b);
        assert_eq!(accepted(a), Some(2));
        let l = &x.lines[FROM_A];
        assert_eq!(
            (l.in_rejected, l.in_accepted),
            (1, 1),
            "counted where it came in"
        );
    }

    /// K&O §III: a rejection also occurs "if the output queue for the next hop is full" (8
    /// packets, those on their way into it counted).
    #[test]
    fn a_packet_is_rejected_when_its_next_queue_is_full() {
        use frames::*;
        let mut x = imp_x();
        for k in 0..8u8 {
            let (_, a) =
                x.handle_frame(FROM_A, &frame(k as PktId, k, true), |_| data_for(2), via_b);
            assert_eq!(accepted(a), Some(2));
        }
        let (_, a) = x.handle_frame(FROM_A, &frame(8, 0, false), |_| data_for(2), via_b);
        assert!(matches!(
            a,
            Arrival::Rejected {
                refusal: Refusal::OutputQueueFull,
                ..
            }
        ));
    }

    /// A retransmission of a packet already accepted (its acknowledgement was lost) is
    /// recognised by its channel's sequence bit, acknowledged again and discarded; its packet
    /// is not read, for the sender may have dropped it.
    #[test]
    fn a_duplicate_is_acknowledged_again_and_discarded() {
        use frames::*;
        let mut x = imp_x();
        let (_, a) = x.handle_frame(FROM_A, &frame(7, 5, true), |_| data_for(2), via_b);
        assert_eq!(accepted(a), Some(2));
        let (_, a) = x.handle_frame(
            FROM_A,
            &frame(7, 5, true),
            |_| unreachable!("a duplicate's packet is not read"),
            via_b,
        );
        assert!(matches!(a, Arrival::Duplicate));
        assert_eq!((x.buf_used, x.sf_used), (1, 1), "nothing more taken");
        assert_eq!(x.lines[FROM_A].take_acks(), (1 << 5, 1 << 5));
        // The next packet on the channel flips the bit: new.
        let (_, a) = x.handle_frame(FROM_A, &frame(9, 5, false), |_| data_for(2), via_b);
        assert_eq!(accepted(a), Some(2));
        let l = &x.lines[FROM_A];
        assert_eq!(
            (l.in_accepted, l.in_duplicates),
            (2, 1),
            "counted where it came in"
        );
    }

    /// Every frame carries the acknowledgements for the other direction: they free this IMP's
    /// channels and the buffers its packets held; an old one (the wrong sequence bit) frees
    /// nothing.
    #[test]
    fn piggy_backed_acknowledgements_free_channels_and_buffers() {
        use frames::*;
        let mut x = imp_x();
        let (lch, bit) = a_host_packet_sent_to_a(&mut x);
        let ack = |bit: bool| Frame {
            kind: FrameKind::AckOnly,
            ack_mask: 1 << lch,
            ack_bits: if bit { 1 << lch } else { 0 },
            corrupted: false,
        };
        let (acked, a) = x.handle_frame(FROM_A, &ack(!bit), |_| unreachable!(), via_b);
        assert_eq!(
            (acked, x.buf_used),
            ([None; 8], 1),
            "an old acknowledgement"
        );
        assert!(matches!(a, Arrival::NoPacket));
        let (acked, _) = x.handle_frame(FROM_A, &ack(bit), |_| unreachable!(), via_b);
        assert_eq!(acked[lch as usize], Some(42));
        assert!(x.idle());
        assert_eq!(x.lines[FROM_A].channels_busy(), 0);
    }

    /// A frame whose checksum fails is lost whole: its packet and the acknowledgements it
    /// carried (the sender's timer will send the packet again).
    #[test]
    fn a_corrupted_frame_is_lost_with_its_acknowledgements() {
        use frames::*;
        let mut x = imp_x();
        let (lch, bit) = a_host_packet_sent_to_a(&mut x);
        let mut f = frame(7, 0, true);
        f.ack_mask = 1 << lch;
        f.ack_bits = if bit { 1 << lch } else { 0 };
        f.corrupted = true;
        let (acked, a) = x.handle_frame(FROM_A, &f, |_| unreachable!(), via_b);
        assert!(matches!(a, Arrival::Corrupted));
        assert_eq!((acked, x.buf_used, x.sf_used), ([None; 8], 1, 0));
        assert_eq!(x.lines[FROM_A].channels_busy(), 1);
        assert_eq!(x.lines[FROM_A].in_corrupted, 1, "counted where it came in");
    }

    /// K&O §III's questions are for packets passing through: a packet for this IMP's own hosts
    /// fills a buffer its allocation reserved, and a control message uses space set aside, so
    /// neither is refused for want of a buffer.
    #[test]
    fn packets_for_this_imp_and_control_messages_are_not_asked() {
        use frames::*;
        let mut x = imp_x();
        x.buf_used = 40;
        let (_, a) = x.handle_frame(FROM_A, &frame(7, 0, true), |_| data_for(0), via_b);
        assert_eq!(accepted(a), None);
        let mut gvb = data_for(2);
        gvb.kind = crate::packet::PktKind::Gvb;
        let (_, a) = x.handle_frame(FROM_A, &frame(8, 1, true), |_| gvb, via_b);
        assert_eq!(accepted(a), None);
        assert_eq!(x.buf_used, 40);
    }

    /// The IMP's next wake-up counts its lines' retransmission timers: "retransmitted if no
    /// IMP-to-IMP acknowledgment has been received after a 125 ms timeout" (plus the line's
    /// round trip, nmc's choice).
    #[test]
    fn an_imps_next_wake_up_counts_its_lines_retransmission_timers() {
        use frames::*;
        let mut x = imp_x();
        x.lines[TO_B].data.push_back((1, Hold::Transit));
        let Some(crate::link::NextFrame::Packet { lch, .. }) = x.lines[TO_B].next_frame() else {
            panic!("the packet goes");
        };
        let sent = SimTime::from_nanos(10_000_000);
        x.lines[TO_B].arm_retransmission(lch, sent, nmc_sim::SimDuration::from_millis(125));
        assert_eq!(x.poll_at(), Some(SimTime::from_nanos(137_000_000)));
        assert_eq!(x.next_release_at(), None, "sending again frees nothing");
    }

    /// A line sends one frame at a time: a packet goes with the acknowledgements owed to the
    /// neighbour piggy-backed; nothing more starts until it has gone, when its retransmission
    /// timer starts (K&O §III's 125 ms, plus the line's round trip); then, with nothing else to
    /// send, an acknowledgement owed since goes alone once the output routine is done.
    #[test]
    fn a_frame_carries_the_acknowledgements_owed_and_holds_the_line_until_sent() {
        use frames::*;
        let mut x = imp_x();
        x.lines[TO_B].add_ack(2, true);
        x.lines[TO_B].data.push_back((5, Hold::Transit));
        let t = x.poll_transmit(TO_B).expect("the packet goes");
        assert!(matches!(t.what, NextFrame::Packet { pkt: 5, .. }));
        assert_eq!((t.ack_mask, t.ack_bits), (1 << 2, 1 << 2));
        x.lines[TO_B].add_ack(3, false);
        assert_eq!(x.poll_transmit(TO_B), None, "the line is busy");
        let NextFrame::Packet { pkt, lch, bit, .. } = t.what else {
            unreachable!()
        };
        let frame = Frame {
            kind: FrameKind::Packet { pkt, lch, bit },
            ack_mask: t.ack_mask,
            ack_bits: t.ack_bits,
            corrupted: false,
        };
        let sent = SimTime::from_nanos(30_000_000);
        let mut out = Vec::new();
        x.frame_sent(TO_B, &frame, sent, &mut out);
        let timer = TimerId::Retransmit {
            line: TO_B,
            lch,
            generation: x.lines[TO_B].lch[lch as usize]
                .retransmit_deadline()
                .expect("armed")
                .generation,
        };
        let at = SimTime::from_nanos(157_000_000);
        // The acknowledgement waits for the output routine (BBN 3050 pp. 105–107,
        // `output_gap_516`, measured on the program).
        let gap = x.costs().output_gap;
        assert!(!gap.is_zero());
        let ready = Output::Timer {
            at: sent + gap,
            timer: TimerId::OutputReady { line: TO_B },
        };
        assert_eq!(
            out,
            [Output::Timer { at, timer }, ready],
            "its wake-up asked for"
        );
        assert_eq!(x.poll_transmit(TO_B), None, "the output routine first");
        x.output_ready(TO_B, &mut Vec::new());
        let t = x
            .poll_transmit(TO_B)
            .expect("the acknowledgement goes alone");
        assert_eq!(
            (t.what, t.ack_mask, t.ack_bits),
            (NextFrame::AckOnly, 1 << 3, 0)
        );
    }

    /// A routing message's serial number is new to the neighbour only for the first sent on
    /// the line after the IMP's slow tick, when it recomputed its table.
    #[test]
    fn a_routing_message_is_fresh_once_per_slow_tick() {
        use frames::*;
        let mut x = imp_x();
        let routing = |x: &mut Imp| {
            x.lines[TO_B].routing_due = true;
            let t = x.poll_transmit(TO_B).expect("the routing message goes");
            assert_eq!(t.what, NextFrame::Routing);
            x.lines[TO_B].busy = false;
            t.fresh
        };
        assert!(routing(&mut x));
        assert!(!routing(&mut x), "the same table again");
        x.cpu.ticks = 5;
        assert!(routing(&mut x), "after a slow tick");
    }

    /// `routing_tables = "slow-tick-1973"` (BBN 3050 pp. 171, 176, 225, 230): a neighbour's
    /// table is taken once, whatever its copies say; the local delay over a line is its
    /// channels in use counted at the slow tick, not its queue when the message comes; and
    /// every message sent until the next slow tick carries the table made at this one.
    #[test]
    fn a_table_is_taken_once_and_made_at_the_slow_tick_under_the_1973_rule() {
        use crate::routing::AnyRouter;
        use frames::*;
        use nmc_routing::{
            DistanceVector, Entry, LineConfig, LineId, NodeId, Router, RoutingMessage,
            RoutingParams, Units,
        };
        const D: u32 = 3;
        let (line_a, line_b) = (LineId(0), LineId(2));
        let mut x = imp_x();
        x.limits.line.routing_tables = RoutingTables::SlowTick1973;
        let mut dv = DistanceVector::new(NodeId(0), 4, RoutingParams::default());
        dv.add_line(line_a, LineConfig::to(NodeId(1)))
            .add_line(line_b, LineConfig::to(NodeId(2)));
        x.router = Some(AnyRouter::Dv(dv));
        let table = |from: u32, d: u32, serial: u32| {
            let mut entries = vec![
                Entry {
                    estimate: Units(600),
                    seqno: 0,
                };
                4
            ];
            entries[from as usize].estimate = Units(0);
            entries[D as usize].estimate = Units(d);
            RoutingMessage {
                from: NodeId(from),
                entries,
                link_state: Vec::new(),
                serial,
            }
        };
        let best = |x: &Imp| {
            let r = x.router.as_ref().expect("a router");
            (r.next_hop(NodeId(D)).map(|h| h.line), r.estimate(NodeId(D)))
        };
        let t = SimTime::ZERO;
        // A table comes in on a link (0 from A, 2 from B): the best line and estimate after it.
        let step = |x: &mut Imp, link: u32, msg: RoutingMessage, want: (LineId, u32), why: &str| {
            x.routing_message_in(t, link, &msg);
            assert_eq!(best(x), (Some(want.0), Some(Units(want.1))), "{why}");
        };
        step(
            &mut x,
            0,
            table(1, 10, 7),
            (line_a, 14),
            "A's table: 10 + 4",
        );
        step(
            &mut x,
            0,
            table(1, 2, 7),
            (line_a, 14),
            "the same number again is ignored",
        );
        // Three packets wait on the line to A: the queue would count them when B's table comes
        // (K&O §III), the 1973 rule only at the slow tick.
        for pkt in 1..=3 {
            x.lines[FROM_A].data.push_back((pkt, Hold::Transit));
        }
        step(
            &mut x,
            2,
            table(2, 11, 7),
            (line_a, 14),
            "B's 15 is no better",
        );
        x.make_routing_table(t, 1);
        let made = |x: &Imp, link: u32| {
            let m = x.routing_message(t, link).expect("the table made");
            (m.serial, m.entries[D as usize].estimate)
        };
        assert_eq!(made(&x, 2), (1, Units(14)));
        let why = "A's next table, over 3 channels in use: 10 + 4 + 3";
        step(&mut x, 0, table(1, 10, 8), (line_a, 17), why);
        step(&mut x, 2, table(2, 11, 8), (line_b, 15), "B's 15 wins now");
        assert_eq!(
            made(&x, 0),
            (1, Units(14)),
            "the table made at the slow tick goes"
        );
    }

    /// The IMP's timers run out through one door, each wake-up naming its arming: K&O §II's
    /// RFNM that waited its 1 s ("the RFNM is then sent without a piggy-backed ALL"), the
    /// allocation unused for 250 ms (given back), and §III's 125 ms retransmission; a second
    /// wake-up for an arming already spent does nothing.
    #[test]
    fn timers_run_out_through_handle_timeout() {
        use frames::*;
        use nmc_sim::SimDuration;
        let ms = |m: u64| SimTime::ZERO + SimDuration::from_millis(m);
        let mut x = imp_x();
        let wait = x.make_rfnm(0, 7, 1, 5, ms(100));
        let gvb = x.allocation_arrived(3, ms(200));
        x.lines[TO_B].data.push_back((1, Hold::Transit));
        let Some(NextFrame::Packet { lch, .. }) = x.lines[TO_B].next_frame() else {
            panic!("the packet goes");
        };
        let retx = x.lines[TO_B].arm_retransmission(lch, ms(300), SimDuration::from_millis(125));
        assert_eq!(x.poll_at(), Some(ms(427)), "the retransmission first");
        let timer = TimerId::Retransmit {
            line: TO_B,
            lch,
            generation: retx.generation,
        };
        let mut out = Vec::new();
        x.handle_timeout(ms(427), timer, &Nowhere, &mut out);
        let again = [
            Output::Count(Counted::Retransmission),
            Output::Transmit { link: 2 },
        ];
        assert_eq!(out, again, "counted, and the line may send it again");
        assert_eq!(x.lines[TO_B].retx, [lch]);
        assert_eq!(x.poll_at(), Some(ms(450)));
        let timer = TimerId::GiveBack {
            dst: 3,
            generation: gvb.generation,
        };
        out.clear();
        x.handle_timeout(ms(450), timer, &Nowhere, &mut out);
        let gvb = Output::Control {
            to: 3,
            stream: 0,
            kind: PktKind::Gvb,
        };
        assert_eq!(out.last(), Some(&gvb), "given back");
        out.clear();
        x.handle_timeout(ms(450), timer, &Nowhere, &mut out);
        assert_eq!(out, [], "given back once");
        let timer = TimerId::RfnmWait {
            generation: wait.generation,
        };
        x.handle_timeout(ms(1100), timer, &Nowhere, &mut out);
        let rfnm = Output::Control {
            to: 5,
            stream: 0,
            kind: PktKind::Rfnm {
                msg: 7,
                num: 1,
                all: false,
            },
        };
        assert_eq!(out.last(), Some(&rfnm), "sent without an ALL");
        assert_eq!(x.poll_at(), None);
    }

    /// The processor's task ends through the same door. BBN's listing (p. 11) runs the
    /// timeout level above the task level: a clock tick that takes the processor for its fast
    /// tick moves the task's end that much later, a wake-up is asked for the new end, and the
    /// wake-up for the old end finds nothing.
    #[test]
    fn a_clock_tick_moves_the_end_of_the_task_in_service() {
        use nmc_sim::SimDuration;
        let ms = |m: u64| SimTime::ZERO + SimDuration::from_millis(m);
        let mut x = imp();
        let mut out = Vec::new();
        x.frame_taken(ms(0), FrameKind::AckOnly, Bits::new(152), &mut out);
        let Some((end, old)) = x.cpu.poll_at() else {
            panic!("in service")
        };
        let null = x.costs().null_packet;
        assert_eq!(end, ms(0) + null, "a null packet's cost");
        let task = |generation| TimerId::Task { generation };
        assert_eq!(
            out,
            [Output::Timer {
                at: end,
                timer: task(old)
            }]
        );
        out.clear();
        x.clock_tick(ms(0), &mut out);
        let (later, new) = x.cpu.poll_at().expect("in service");
        assert_eq!(
            later,
            end + x.costs().fast_tick,
            "the fast tick's time later"
        );
        assert_eq!(
            out,
            [Output::Timer {
                at: later,
                timer: task(new)
            }]
        );
        out.clear();
        x.handle_timeout(end, task(old), &Nowhere, &mut out);
        assert_eq!((out.len(), x.cpu.is_empty()), (0, false), "a stale wake-up");
        x.handle_timeout(later, task(new), &Nowhere, &mut out);
        assert_eq!(out, [], "a null packet hands nothing on");
        assert!(x.cpu.is_empty() && x.poll_at().is_none());
    }

    /// What the task level reads around it, in the tests: one packet, IMP 2 by link 2
    /// (toward B), and which lines are up.
    struct Around {
        packet: Packet,
        up: bool,
    }

    impl Net for Around {
        fn packet(&self, _: PktId) -> &Packet {
            &self.packet
        }
        fn route(&self, _: u32, dst: u32) -> Option<u32> {
            (dst == 2).then_some(2)
        }
        fn line_up(&self, _: u32) -> bool {
            self.up
        }
    }

    /// Listing p. 70 (`GOODM`): when the task level has taken a packet in, its acknowledgement
    /// is owed on the line it came by (the line may send it), and the packet joins the queue
    /// of its route, giving up the place kept for it since it arrived; a packet for this IMP
    /// goes to its own step. With the line back down, nothing is owed.
    #[test]
    fn the_task_level_acknowledges_a_packet_then_sends_it_on() {
        use crate::processor::{NO_PLACE, Work};
        use frames::*;
        use nmc_sim::Bits;
        let mut x = imp_x();
        let net = Around {
            packet: data_for(2),
            up: true,
        };
        let (_, a) = x.handle_frame(FROM_A, &frame(7, 3, true), |_| data_for(2), via_b);
        assert_eq!(accepted(a), Some(2));
        let work = Work::Packet {
            pkt: 70,
            line: FROM_A as u32,
            lch: 3,
            bit: true,
            planned: 2,
        };
        let mut out = Vec::new();
        x.packet_in(SimTime::ZERO, work, &data_for(2), Bits::new(1168), &mut out);
        let [Output::Timer { at, timer }] = out[..] else {
            panic!("one wake-up: {out:?}")
        };
        out.clear();
        x.handle_timeout(at, timer, &net, &mut out);
        let on = [Output::Transmit { link: 0 }, Output::Transmit { link: 2 }];
        assert_eq!(out, on, "the acknowledgement's line, then the packet's");
        assert_eq!(x.lines[FROM_A].take_acks(), (1 << 3, 1 << 3));
        assert_eq!(x.lines[TO_B].data, [(70, Hold::Transit)]);
        assert_eq!(x.lines[TO_B].queue_len(), 1, "its kept place given up");
        // The line back is down: nothing is owed; a packet for this IMP goes to its step.
        let net = Around {
            packet: data_for(0),
            up: false,
        };
        let work = Work::Packet {
            pkt: 71,
            line: FROM_A as u32,
            lch: 4,
            bit: true,
            planned: NO_PLACE,
        };
        out.clear();
        x.packet_in(at, work, &data_for(0), Bits::new(1168), &mut out);
        let [Output::Timer { at, timer }] = out[..] else {
            panic!("one wake-up: {out:?}")
        };
        out.clear();
        x.handle_timeout(at, timer, &net, &mut out);
        assert_eq!(out.first(), Some(&Output::Free { pkt: 71 }), "{out:?}");
        assert_eq!(x.lines[FROM_A].take_acks(), (0, 0));
    }

    /// Routes around X (IMP 0): IMP 2 by link 2 (toward B), IMP 1 by link 0 (toward A),
    /// IMP 3 by none.
    struct Routes;
    impl Net for Routes {
        fn packet(&self, _: PktId) -> &Packet {
            unreachable!("admission reads no packet")
        }
        fn route(&self, imp: u32, dst: u32) -> Option<u32> {
            assert_eq!(imp, 0, "X's own table");
            [Some(0), Some(0), Some(2), None][dst as usize]
        }
        fn line_up(&self, _: u32) -> bool {
            unreachable!("admission reads no line")
        }
    }

    /// A host's packet `index` of a message to IMP `dst`.
    fn packet(index: u8, dst: u32) -> Input {
        Input {
            index,
            bits: 1000,
            dst,
        }
    }

    /// K&O §III: a host's packet enters the IMP only while 4 buffers are free, and a packet
    /// after its message's first only while the output queue it joins holds fewer than 8 (or
    /// if it has a route at all); admitted, it holds a buffer.
    #[test]
    fn a_hosts_packet_enters_with_4_free_buffers_and_room_on_its_queue() {
        use frames::*;
        let mut x = imp_x();
        x.buf_used = 37;
        assert_eq!(
            x.admit_host_packet(&packet(0, 2), &Routes),
            Err(HostWait::FewBuffers),
            "3 free"
        );
        x.buf_used = 36;
        assert_eq!(x.admit_host_packet(&packet(0, 2), &Routes), Ok(()));
        assert_eq!(x.buf_used, 37);
        x.buf_used = 0;
        for p in 0..8 {
            x.lines[TO_B].data.push_back((p, Hold::Source));
        }
        assert_eq!(
            x.admit_host_packet(&packet(1, 2), &Routes),
            Err(HostWait::OutputQueueFull)
        );
        assert_eq!(
            x.admit_host_packet(&packet(0, 2), &Routes),
            Ok(()),
            "packet 1 joins no queue now"
        );
        assert_eq!(
            x.admit_host_packet(&packet(1, 3), &Routes),
            Err(HostWait::NoRoute)
        );
        assert_eq!(
            x.admit_host_packet(&packet(1, 1), &Routes),
            Ok(()),
            "toward A"
        );
        assert_eq!(
            x.admit_host_packet(&packet(1, 0), &Routes),
            Ok(()),
            "for X's own hosts"
        );
        assert_eq!(x.buf_used, 3);
        // Whatever the rule asks, a packet needs a buffer.
        x.buf_used = 40;
        x.limits.host_input_min_free = 0;
        assert_eq!(
            x.admit_host_packet(&packet(0, 2), &Routes),
            Err(HostWait::FewBuffers)
        );
    }

    /// What counts toward a line's 8: K&O's output queue alone, or (BBN 3050 p. 64 `TSKFOR`,
    /// "ALL CHANNELS ARE IN USE") the line's channels, which hold a packet from the task to its
    /// acknowledgement: 4 queued and 4 sent unacknowledged leave room under the first rule and
    /// none under the second, for a host's packet and for one in transit alike.
    #[test]
    fn under_the_1973_rule_packets_sent_and_unacknowledged_count_toward_a_lines_8() {
        use frames::*;
        for (rule, room) in [(OutputLimit::Queue, true), (OutputLimit::Channels, false)] {
            let mut x = imp_x();
            x.limits.transit.output_limit = rule;
            for p in 0..4 {
                x.lines[TO_B].data.push_back((p, Hold::Source));
            }
            for c in 0..4 {
                x.lines[TO_B].lch[c].held = Some((100 + c as u32, Hold::Transit));
            }
            assert_eq!(x.line_load(TO_B), if room { 4 } else { 8 }, "{rule:?}");
            let host = x.admit_host_packet(&packet(1, 2), &Routes);
            assert_eq!(host.is_ok(), room, "a host's packet, {rule:?}: {host:?}");
            let transit = x.refuses_transit(Some(x.line_load(TO_B)));
            assert_eq!(transit.is_none(), room, "a packet in transit, {rule:?}");
        }
    }

    /// Which queue a give-back joins (`gvb_queue`): the 1973 program builds it "(NOT PRI)"
    /// (BBN 3050 p. 55 `B2B`) and its task puts on the priority queue only replies and priority
    /// transmissions (p. 64 `SFPRI`), so the GVB waits behind the data already queued and
    /// counts toward the line's 8 as they do; a RFNM still goes ahead. Under `"priority"` the
    /// GVB goes ahead too and the data's room is as before.
    #[test]
    fn a_1973_give_back_waits_behind_the_data_and_a_rfnm_does_not() {
        use frames::*;
        for (rule, behind) in [
            (ControlQueue::Regular1973, true),
            (ControlQueue::Priority, false),
        ] {
            let mut x = imp_x();
            x.limits.line.gvb_queue = rule;
            for p in 0..3 {
                x.enqueue(TO_B, p, Hold::Source);
            }
            let load = x.line_load(TO_B);
            let gvb = x.control_hold(&PktKind::GvbNumbered { num: 0 });
            assert_eq!(gvb == Hold::Regular, behind, "{rule:?}");
            x.enqueue(TO_B, 50, gvb);
            let rfnm = x.control_hold(&PktKind::Rfnm {
                msg: 0,
                num: 0,
                all: true,
            });
            assert_eq!(rfnm, Hold::Control);
            x.enqueue(TO_B, 51, rfnm);
            let l = &x.lines[TO_B];
            assert_eq!(
                l.ctrl.back(),
                Some(&(51, Hold::Control)),
                "the RFNM ahead of the data"
            );
            assert_eq!(l.data.back() == Some(&(50, gvb)), behind, "{rule:?}");
            assert_eq!(l.ctrl.front() == Some(&(50, gvb)), !behind, "{rule:?}");
            assert_eq!(x.line_load(TO_B), load + u32::from(behind), "{rule:?}");
        }
    }

    /// Which queue a REQALL joins where it passes (`reqall_queue`): the 1973 program's
    /// store-and-forward puts on the priority queue only replies and priority transmissions
    /// (BBN 3050 p. 66), and a REQALL is a transmission (p. 129 `HIPLT2`, p. 137 `MESGET`), so
    /// taken in at an intermediate IMP it joins the data queue behind the packets already
    /// there; the ALL that answers it, a reply, still goes ahead. Under `"priority"` the
    /// REQALL goes ahead too.
    #[test]
    fn a_1973_reqall_in_transit_waits_behind_the_data_and_its_all_does_not() {
        use frames::*;
        for (rule, behind) in [
            (ControlQueue::Regular1973, true),
            (ControlQueue::Priority, false),
        ] {
            for (kind, reply) in [
                (PktKind::ReqAll { msg: 1, num: 4 }, false),
                (PktKind::All { num: 4 }, true),
            ] {
                let mut x = imp_x();
                x.limits.line.reqall_queue = rule;
                for p in 0..3 {
                    x.enqueue(TO_B, p, Hold::Transit);
                }
                let net = Around {
                    packet: Packet {
                        kind,
                        ..data_for(2)
                    },
                    up: true,
                };
                let mut out = Vec::new();
                x.processed_on(SimTime::ZERO, 60, None, None, &net, &mut out);
                let l = &x.lines[TO_B];
                let in_data = l.data.back() == Some(&(60, Hold::Regular));
                let ahead = l.ctrl.back() == Some(&(60, Hold::Control));
                let goes_behind = behind && !reply;
                assert_eq!(
                    (in_data, ahead),
                    (goes_behind, !goes_behind),
                    "{rule:?} {kind:?}"
                );
                assert_eq!(
                    l.data.len(),
                    3 + usize::from(goes_behind),
                    "{rule:?} {kind:?}"
                );
            }
        }
    }

    /// A packet in transit keeps a place on its next line's queue from its arrival; when the
    /// task level is done with it, it joins the queue its route gives now, and the place kept
    /// is given up, even when the route has moved to another line meanwhile. With no route it
    /// joins nothing and waits in the IMP.
    #[test]
    fn a_forwarded_packet_joins_its_routes_queue_and_gives_up_its_kept_place() {
        use frames::*;
        let mut x = imp_x();
        let (_, a) = x.handle_frame(FROM_A, &frame(7, 0, true), |_| data_for(2), via_b);
        assert_eq!(accepted(a), Some(2));
        x.owe_acknowledgement(FROM_A, 0, true);
        assert_eq!(
            x.lines[FROM_A].take_acks(),
            (1, 1),
            "acknowledged once taken in"
        );
        assert_eq!(x.lines[TO_B].queue_len(), 1, "its place kept toward B");
        // The route moved: toward A now.
        assert_eq!(x.forward(70, Hold::Transit, Some(2), Some(0)), Some(FROM_A));
        assert_eq!(x.lines[TO_B].queue_len(), 0);
        assert_eq!(x.lines[FROM_A].data, [(70, Hold::Transit)]);
        // A control message has no kept place; with no route it waits.
        assert_eq!(x.forward(71, Hold::Control, None, None), None);
        assert!(x.lines[TO_B].ctrl.is_empty() && x.lines[FROM_A].ctrl.is_empty());
    }

    #[test]
    fn the_first_reason_found_is_the_one_given() {
        let mut x = imp();
        x.buf_used = 40;
        x.sf_used = 20;
        assert_eq!(x.refuses_transit(None), Some(Refusal::NoFreeBuffer));
    }

    /// One IMP by hand, no simulator: a neighbour's frame with a packet passing through is
    /// refused while 20 store-and-forward packets are held (K&O §III), and taken once one goes.
    /// (The module doc's example until the module was made private, issue 55.)
    #[test]
    fn one_imp_by_hand() {
        use crate::imp::{Arrival, Imp, Limits, Refusal};
        use crate::link::{Frame, FrameKind, Hold, Link};
        use crate::packet::{Packet, PktKind};
        use crate::params::{ImpModel, ImpParams};
        use crate::topology::LinkDef;
        use nmc_sim::{BitRate, Bits, RngStreams, SimDuration};

        // IMP 0 with lines to IMP 1 (its link 0), IMP 2 (link 2), IMP 3 (link 4) and IMP 4
        // (link 6); 40 buffers; the limits of the October 1974 profile (20 store-and-forward
        // packets, output queues of 8).
        let limits = Limits::of(&ImpParams::v2_1974_10());
        let mut imp = Imp::new(
            0,
            "UCLA".into(),
            ImpSettings::test(ImpModel::H316, 40, 10),
            limits,
        );
        for (to, id) in [(1, 0), (2, 2), (3, 4), (4, 6)] {
            let def = LinkDef {
                from: 0,
                to,
                capacity: BitRate::from_kbps(50),
                propagation: SimDuration::from_millis(1),
            };
            imp.add_line(Link::new(
                def,
                id,
                id + 1,
                8,
                RngStreams::new(1).stream(id as u64),
            ));
        }
        let packet = Packet {
            kind: PktKind::Data {
                msg: 1,
                num: 0,
                index: 0,
                of: 1,
                host: 0,
            },
            src: 1,
            dst: 2,
            stream: 0,
            bits: Bits::new(1008),
            hops: 0,
        };
        // The i-th frame from IMP 1: its 8 logical channels in turn, each channel's bit flipping
        // once every channel has been used.
        let frame = |i: u32| Frame {
            kind: FrameKind::Packet {
                pkt: i,
                lch: (i % 8) as u8,
                bit: (i / 8).is_multiple_of(2),
            },
            ack_mask: 0,
            ack_bits: 0,
            corrupted: false,
        };
        // They come in on line 0 (from IMP 1), routed in turn to IMPs 2, 3 and 4 (no output
        // queue fills): the first 20 are taken and held for their lines.
        for i in 0..20 {
            let next = 2 + 2 * (i % 3);
            let (_, what) = imp.handle_frame(0, &frame(i), |_| packet, |_| Some(next));
            assert!(
                matches!(what, Arrival::Accepted { .. }),
                "frame {i}: {what:?}"
            );
        }
        let frame = frame(20);
        let (_, what) = imp.handle_frame(0, &frame, |_| packet, |_| Some(2));
        assert!(matches!(
            what,
            Arrival::Rejected {
                refusal: Refusal::StoreAndForwardFull,
                ..
            }
        ));
        imp.release(0, Hold::Transit);
        let (_, what) = imp.handle_frame(0, &frame, |_| packet, |_| Some(2));
        assert!(matches!(what, Arrival::Accepted { next: Some(2), .. }));
    }
}
