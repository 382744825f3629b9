//! The driver's events: the protocol's, each named as the work or timer it ends, and the
//! observers' own ticks, apart.

use crate::link::Frame;
use crate::packet::{MsgId, Stream};

/// An event of the subnet model: the protocol's events, each named as the work or timer it ends,
/// and the observers' ticks ([`Tick`]).
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// A host starts or resumes offering traffic.
    HostStart {
        /// The host.
        host: u32,
    },
    /// A packet from a host is fully in its IMP.
    HostInputDone {
        /// The host.
        host: u32,
    },
    /// The host interface's work after a packet's input is done (`host_packet_input_*`): the
    /// packet goes to the task.
    HostInterfaceDone {
        /// The host.
        host: u32,
    },
    /// A frame finished transmission on a link.
    TxDone {
        /// The link (one direction of a line, in topology order).
        link: u32,
        /// The frame.
        frame: Frame,
    },
    /// A frame reaches the far IMP.
    Arrive {
        /// The link it came over.
        link: u32,
        /// The frame.
        frame: Frame,
    },
    /// The IMP processor finished the task at the head of its queue (generation `epoch`): the
    /// IMP's [`TimerId::Task`](crate::imp::TimerId::Task), one name for the timer throughout.
    Task {
        /// The IMP.
        imp: u32,
        /// The generation of the task's end.
        epoch: u32,
    },
    /// The IMP's 25.6 ms clock (`model/processing.rs`; its tick is the IMP's step,
    /// `hop/processing.rs`).
    Clock {
        /// The IMP.
        imp: u32,
    },
    /// IMP-to-IMP retransmission timer of a logical channel ([`TimerId::Retransmit`](crate::imp::TimerId::Retransmit)), woken at
    /// the deadline the channel holds (`Link::poll_at`); `epoch` names the arming, one wake-up
    /// per arming. (What it counts when it fires is `Counted::Retransmission`.)
    Retransmit {
        /// The IMP that sent the packet.
        imp: u32,
        /// The line it went on, as the IMP numbers its lines (its place in `Imp::lines`).
        line: u32,
        /// The logical channel.
        lch: u8,
        /// The generation of the timer's arming.
        epoch: u32,
    },
    /// Time for a routing message on a link.
    RoutingTick {
        /// The link.
        link: u32,
    },
    /// The routing send opportunity of every line of an IMP that counts them on its clock
    /// (`routing_clock = "imp-tick-1973"`), when the tick's work on its processor is done.
    RoutingAtTick {
        /// The IMP.
        imp: u32,
        /// The tick whose work it follows: the IMP's clock count
        /// ([`crate::processor::Processor::ticks`]) when it ticked.
        tick: u64,
    },
    /// A packet finished its transfer to destination host `host` on IMP `imp`.
    HostOutputDone {
        /// The destination IMP.
        imp: u32,
        /// The destination host.
        host: u32,
    },
    /// A RFNM has waited its 1 s for a piggy-backed ALL ([`TimerId::RfnmWait`](crate::imp::TimerId::RfnmWait); the deadline
    /// `Replies` holds; `epoch` names the RFNM's wait).
    RfnmWait {
        /// The destination IMP, where the RFNM waits.
        imp: u32,
        /// The generation of the RFNM's wait.
        epoch: u32,
    },
    /// An allocation unused for 250 ms (the deadline `Allocations` holds; `epoch` names the
    /// allocation's give-back timer).
    GiveBack {
        /// The source IMP that holds the allocation.
        imp: u32,
        /// The destination IMP it came from.
        dst: u32,
        /// The generation of the give-back timer's arming.
        epoch: u32,
    },
    /// The scenario's scripted action `index` (a disturbance, a generator pause or resume).
    Scripted {
        /// Its place in `Subnet::actions`.
        index: u16,
    },
    /// A line (topology line index, both directions) goes down or comes up.
    LineChange {
        /// The line (its index in the topology).
        line: u32,
        /// It comes up (`false`: it goes down).
        up: bool,
    },
    /// Background messages arrive at host `host` (`model/background.rs`).
    Arrival {
        /// The background host.
        host: u32,
    },
    /// The IMP's output routine of a line is done after its last frame
    /// ([`TimerId::OutputReady`](crate::imp::TimerId::OutputReady)).
    OutputReady {
        /// The IMP.
        imp: u32,
        /// The line, as the IMP numbers its lines (its place in `Imp::lines`).
        line: u32,
    },
    /// The background of IMP `imp` makes its next single-packet reply
    /// ([`TimerId::BackgroundReply`](crate::imp::TimerId::BackgroundReply)).
    BackgroundReply {
        /// The IMP.
        imp: u32,
    },
    /// The least time between two of IMP `imp`'s replies has passed
    /// ([`TimerId::ReplyGap`](crate::imp::TimerId::ReplyGap)).
    ReplyGap {
        /// The IMP.
        imp: u32,
    },
    /// The oldest give-back IMP `imp`'s TALLY clock timed out asks for its message number
    /// ([`TimerId::GvbMesget`](crate::imp::TimerId::GvbMesget)).
    GvbMesget {
        /// The IMP.
        imp: u32,
    },
    /// Version 3: a wake-up for the disuse timer of a transmit block.
    BlockIdle {
        /// The source IMP.
        imp: u32,
        /// The stream whose transmit block it is.
        stream: Stream,
    },
    /// A reply's leader has crossed the host interface to the host whose message `msg` it
    /// answers (`reply_to_host = "leader-1973"`).
    ReplyToHost {
        /// The message answered.
        msg: MsgId,
    },
    /// One of the observers' own timers ([`Tick`]): it records, and changes nothing in the
    /// network.
    Observe(Tick),
}

/// The observers' timers (`model/watch.rs`, `model/lockup.rs`, `model/slice.rs`), apart
/// from the protocol's events: what a run records is read at these ticks, and nothing the
/// network does depends on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tick {
    /// Periodic sample of resource occupancy.
    Sample,
    /// Periodic check for a lockup: no progress while messages are outstanding.
    Watchdog,
    /// Metrics start counting (`network.measure_from`).
    MeasureStart,
    /// Take a time slice of the measured pair (`network.slices`).
    Slice,
}
