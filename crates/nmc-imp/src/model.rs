//! The subnet as an event model: IMPs, links, hosts, and the end-to-end message procedure.
//! Where versions 2 and 3 differ, the subnet calls the profile's [`Procedure`]
//! (`model/procedure.rs`): version 2 in `model/v2.rs`, version 3 in `model/v3.rs`.
//!
//! The life of a multipacket message, as K&O Fig. 1 letters it:
//! * **a** the host has put packet 1 into the source IMP ([`Ev::HostInputDone`]); input of
//!   packets 2..8 halts;
//! * **b** the message takes a message number for its IMP pair (4 per pair, K&O §III);
//! * **c** it takes a PLT entry (6 per source IMP); if no ALL is held for the destination, a
//!   REQALL is sent that *steals* the number and PLT entry, and the message starts again at
//!   **b** when the ALL comes back;
//! * **d** the destination answers a REQALL with an ALL as soon as 8 reassembly buffers are free;
//! * **e** with all three resources, packet 1 leaves and input of the rest resumes;
//! * **f** all packets reassembled: the message queues for the destination host, in message
//!   number order per IMP pair;
//! * **g** after packet 1 reaches the host, the RFNM is made; it waits up to 1 s for 8 free
//!   buffers to carry a piggy-backed ALL, then goes without;
//! * **h** the RFNM frees the number and PLT entry and adds its ALL to the allocate counter;
//! * **i** an allocation unused for 250 ms goes back with a GVB.
//!
//! A message that fits one packet takes the shorter road of RFC 632 instead: a message number
//! but no PLT entry and no REQALL; the source keeps a copy until the RFNM; the destination
//! accepts it, stores it, or treats it as a request for one buffer, by the profile's
//! [`crate::params::SinglePacketRule`] (`model/single.rs`). The IMP message generator and the scripted
//! disturbances are in `model/instrument.rs`; the lockup watch in `model/lockup.rs`.

mod background;
mod instrument;
mod lockup;
mod procedure;
mod processor;
mod single;
mod slice;
mod v2;
mod v3;

pub use background::{Background, BackgroundTally, LengthMix};
pub use instrument::{Action, Generator};
pub use lockup::{HeldAt, LockupReport};
pub use procedure::{Procedure, procedure};
pub use processor::{Processor, Task, Work};
pub use single::{E2eEvent, Happened, Note, Side, What};
pub use slice::{SliceItem, TimeSlice};

use crate::destination::Next;
use crate::imp::{HostOut, Imp, Reply};
use crate::link::{Frame, FrameKind, Hold, Link, NextFrame};
use crate::packet::{MsgId, Packet, PktId, PktKind, Slab, Stream};
use crate::params::{ImpParams, Piggyback};
use crate::routing::Routing;
use crate::topology::Topology;
use nmc_sim::{Bits, EventQueue, Model, RngStreams, SimDuration, SimTime, Trace};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

mod adaptive;

#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// A host starts or resumes offering traffic.
    HostStart { host: u32 },
    /// A packet from a host is fully in its IMP.
    HostInputDone { host: u32 },
    /// A frame finished transmission on a link.
    TxDone { link: u32, frame: Frame },
    /// A frame reaches the far IMP.
    Arrive { link: u32, frame: Frame },
    /// The IMP processor finished the task at the head of its queue (generation `epoch`).
    ProcDone { imp: u32, epoch: u32 },
    /// The IMP's 25.6 ms clock (`model/processor.rs`).
    Clock { imp: u32 },
    /// IMP-to-IMP retransmission timer of a logical channel.
    AckTimeout { link: u32, lch: u8, epoch: u32 },
    /// Time for a routing message on a link.
    RoutingTick { link: u32 },
    /// A packet finished its transfer to destination host `host` on IMP `imp`.
    HostOutputDone { imp: u32, host: u32 },
    /// A RFNM has waited its 1 s for a piggy-backed ALL.
    RfnmTimeout { imp: u32, epoch: u32 },
    /// An allocation unused for 250 ms.
    GiveBack { imp: u32, dst: u32, epoch: u32 },
    /// Periodic sample of resource occupancy.
    Sample,
    /// The scenario's scripted action `index` (a disturbance, a generator pause or resume).
    Scripted { index: u16 },
    /// Periodic check for a lockup: no progress while messages are outstanding.
    Watchdog,
    /// Metrics start counting (`network.measure_from`).
    MeasureStart,
    /// A line (topology line index, both directions) goes down or comes up.
    LineChange { line: u32, up: bool },
    /// Background messages arrive at host `host` (`model/background.rs`).
    Arrival { host: u32 },
    /// Version 3: a wake-up for the disuse timer of a transmit block.
    BlockIdle { imp: u32, stream: Stream },
    /// Take a time slice of the measured pair (`network.slices`).
    Slice,
}

/// The random stream of line direction `i` (its errors). Streams 1000..1999 for the first 1000
/// directions, as always (so smaller networks give the same bytes as before), and from 2^40 for
/// the rest, apart from the background hosts' `2000 + k` ([`background_stream`]) and the host
/// pairs' `2^48 + i` (`run.rs`), however large the network.
pub fn line_stream(i: usize) -> u64 {
    if i < 1000 {
        1000 + i as u64
    } else {
        (1 << 40) + i as u64
    }
}

/// The random stream of the background host on IMP `k` (`model/background.rs`).
pub fn background_stream(k: usize) -> u64 {
    2000 + k as u64
}

/// The random stream that places the host pairs of traffic entry `i` (`kind = "pairs"`).
pub fn pairs_stream(i: usize) -> u64 {
    (1 << 48) + i as u64
}

/// Where a message is in the source IMP's procedure. Every change goes through `change`,
/// which traces it (`trace = true`: `{"event": "state", "from": ..., "to": ...}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MsgState {
    InputFirst,
    /// Version 3: waiting for its transmit block (`model/v3.rs`).
    NeedBlock,
    NeedNumber,
    /// Version 3: holds its number, looks for an allocation.
    NeedAll,
    NeedPlt,
    AwaitAll,
    Launched,
}

#[derive(Clone, Debug)]
pub struct Msg {
    pub host: u32,
    /// The destination host.
    pub dst_host: u32,
    /// Other hosts' traffic (`model/background.rs`): counted, not recorded one by one.
    pub background: bool,
    /// The last packet has reached the destination host.
    pub delivered: bool,
    pub src: u32,
    pub dst: u32,
    /// Its sequence of message numbers: the IMP pair (version 2) or the host pair (version 3).
    pub stream: Stream,
    pub bits: u64,
    pub packets: u8,
    pub state: MsgState,
    pub num: Option<u64>,
    pub input: u8,
    pub reqalls: u32,
    pub rec: MessageRecord,
}

/// One message's timeline, in ns since the start (`record = ["messages"]`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct MessageRecord {
    pub id: MsgId,
    pub host: String,
    pub dst_host: String,
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
    pub rfnm_made_ns: Option<u64>,
    /// The RFNM left the destination IMP (K&O Fig. 7 point g: with the ALL it waited for).
    pub rfnm_sent_ns: Option<u64>,
    /// The last packet reached the destination host.
    pub delivered_ns: Option<u64>,
    /// The RFNM reached the source host (point h).
    pub rfnm_ns: Option<u64>,
    pub reqalls: u32,
    pub rfnm_carried_all: Option<bool>,
    /// Times a single-packet message's copy was sent again on an ALLOCATE (RFC 632).
    pub retransmissions: u32,
}

pub struct Pump {
    pub dst_host: u32,
    pub bits: u64,
    pub count: Option<u64>,
    pub offered: u64,
}

pub struct Host {
    pub name: String,
    pub imp: u32,
    pub pump: Option<Pump>,
    pub input_busy: bool,
    pub current: Option<MsgId>,
    pub started: bool,
    /// Set when this "host" is the IMP message generator inside its IMP (RFC 632).
    pub generator: Option<Generator>,
    /// Set when this host sends (and sinks) other hosts' traffic (`model/background.rs`).
    pub background: Option<Background>,
    /// Set when this host's messages are handed in from outside the model ([`crate::Stepper`]):
    /// those not yet offered to the IMP, in order.
    pub outside: Option<VecDeque<Handed>>,
}

impl Host {
    /// A host named `name` on IMP `imp` that offers nothing until given a pump, a generator,
    /// background traffic or messages from outside.
    pub fn new(name: String, imp: u32) -> Self {
        Host {
            name,
            imp,
            pump: None,
            input_busy: false,
            current: None,
            started: false,
            generator: None,
            background: None,
            outside: None,
        }
    }
}

/// A message handed to a host from outside the model ([`crate::Stepper::offer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handed {
    /// The destination host.
    pub to: u32,
    /// Data bits (the host leader is added on the interface, as for every message).
    pub bits: u64,
    /// The caller's name for the message, given back on delivery.
    pub tag: u64,
}

/// Message `id` (`m`) moves to state `to`: the one place a message's state changes, traced.
pub(crate) fn change(trace: &mut Trace, now: SimTime, id: MsgId, m: &mut Msg, to: MsgState) {
    let from = std::mem::replace(&mut m.state, to);
    trace.emit(now, &Tr::State { msg: id, from, to });
}

/// A trace line (`trace = true`).
#[derive(Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
enum Tr<'a> {
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
    Send {
        kind: &'static str,
        msg: Option<MsgId>,
        packet: Option<u8>,
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

/// Occupancy of the measured pair's resources, sampled periodically.
#[derive(Clone, Debug, Serialize)]
pub struct Occupancy {
    pub t_ns: u64,
    pub message_numbers: u32,
    pub plt_entries: u32,
    pub reassembly_buffers: u32,
    pub allocations_held: u32,
    pub source_buffers: u32,
    /// The source IMP's PLT entries by holder (K&O Fig. 7): REQALLs (version 2: messages whose
    /// REQALL stole their entry), RFNMs of the pair's messages queued at the destination IMP
    /// (waiting for buffers to carry an ALL), and the rest: messages in flight and RFNMs on
    /// their way back.
    pub plt_reqalls: u32,
    pub plt_rfnms_waiting: u32,
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
    /// The counts whose means the metrics give (`occupancy.<name>.mean`), in this order.
    pub const COUNTED: [&'static str; 6] = [
        "message_numbers",
        "plt_entries",
        "reassembly_buffers",
        "plt_reqalls",
        "plt_rfnms_waiting",
        "plt_messages",
    ];

    /// The values of [`Occupancy::COUNTED`].
    pub fn counts(&self) -> [u32; 6] {
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
    pub fn name(self) -> &'static str {
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

/// What a run records, counts and watches ([`Subnet::obs`]): the protocol writes its events
/// here and never reads them back (the lockup watch stops the driver, not the protocol).
pub struct Observer {
    pub done: Vec<MessageRecord>,
    /// When each recorded message's last packet reached the destination host (it may come
    /// after the RFNM); background messages are counted in [`Observer::tally`] instead.
    pub delivered_at: BTreeMap<MsgId, SimTime>,
    /// Per (source IMP, destination IMP, destination host): the last message number delivered
    /// to that host, to check that delivery is in order.
    pub delivered_last: BTreeMap<(Stream, u32), u64>,
    pub order_violations: u64,
    /// Messages offered, delivered and answered, and the background traffic's own figures.
    pub tally: BackgroundTally,
    pub occupancy: Vec<Occupancy>,
    pub sample_period: SimDuration,
    /// The pair whose occupancy is sampled: (source IMP, destination IMP).
    pub watch: Option<(u32, u32)>,
    /// The stream of the measured pair.
    pub watch_stream: Stream,
    /// Keep every answered pump message and every occupancy sample (`true`), or only the
    /// running values of [`crate::analysis::StreamStats`] (`false`: memory flat in simulated
    /// time).
    pub retain_messages: bool,
    pub retain_occupancy: bool,
    pub stream_stats: crate::analysis::StreamStats,
    /// Instants at which to take a time slice, and the slices taken.
    pub slice_at: Vec<SimDuration>,
    pub slices: Vec<TimeSlice>,
    /// By [`Counted::name`], so that the metrics come out in name order.
    pub counts: BTreeMap<&'static str, u64>,
    /// How long the multipacket RFNMs of the recorded (not background) messages waited at the
    /// destination IMP after they were made: count, sum and largest, in ns.
    pub rfnm_waits: (u64, u64, u64),
    /// The end-to-end event log of single-packet messages, when recorded (`record = ["e2e"]`).
    pub e2e: Option<Vec<E2eEvent>>,
    /// No progress for this long with messages outstanding is a lockup (zero: not watched).
    pub lockup_window: SimDuration,
    /// Progress count (deliveries + RFNMs) at the last change, and when it changed.
    pub progress_mark: (usize, SimTime),
    pub lockup: Option<LockupReport>,
    /// When metrics start counting, and each link's busy time then.
    pub measure_from: SimDuration,
    pub busy_at_measure: Vec<SimDuration>,
    /// Messages handed in from outside ([`Host::outside`]) and not yet delivered: their tags.
    pub outside_tags: BTreeMap<MsgId, u64>,
    /// Messages handed in from outside whose last packet reached the destination host: (tag,
    /// when), in delivery order, until [`crate::Stepper::poll_delivered`] takes them.
    pub outside_delivered: VecDeque<(u64, SimTime)>,
}

pub struct Subnet {
    pub params: ImpParams,
    pub topo: Topology,
    pub imps: Vec<Imp>,
    pub links: Vec<Link>,
    pub hosts: Vec<Host>,
    pub slab: Slab,
    pub msgs: BTreeMap<MsgId, Msg>,
    pub next_msg: MsgId,
    pub trace: Trace,
    /// Scripted actions and when (`[[network.events]]`, generator pauses).
    pub actions: Vec<(SimDuration, Action)>,
    /// Links whose next packet frame is to be hit by a line error.
    pub corrupt_next: BTreeSet<u32>,
    /// Source IMPs whose next single-packet message leaves by this link instead of its route.
    pub detours: BTreeMap<u32, u32>,
    /// How packets are routed, which lines are up, and the loop records.
    pub routing: Routing,
    /// Per IMP, the hosts that a freed resource may let go on: those the last `host_try` left
    /// waiting (for buffers, an output queue, a route, or the resources of K&O §II point a),
    /// and generators. A host leaves the set only when `host_try` finds it with nothing to do
    /// (input busy, not started, no message) — states it leaves only through a direct
    /// `host_try` — so `wake_hosts` visits exactly the hosts a scan of every host on the IMP
    /// would have moved, in the same (host) order, without the scan (issue 15).
    pub waiting: Vec<BTreeSet<u32>>,
    /// When background traffic starts.
    pub background_start: SimDuration,
    /// What is recorded, counted and watched: observes the protocol, takes no part in it.
    pub obs: Observer,
    /// The end-to-end procedure of the profile's software version (`model/procedure.rs`).
    pub procedure: &'static dyn Procedure,
}

impl Subnet {
    pub fn new(
        params: ImpParams,
        topo: Topology,
        hosts: Vec<Host>,
        seed: u64,
        sample_period: SimDuration,
        trace: Trace,
    ) -> Self {
        let streams = RngStreams::new(seed);
        let imps = topo
            .names
            .iter()
            .map(|n| {
                Imp::new(
                    n.clone(),
                    params.default_imp,
                    params.buffers,
                    params.reassembly_buffers,
                )
            })
            .collect();
        let links = topo
            .links
            .iter()
            .enumerate()
            .map(|(i, d)| {
                Link::new(
                    d.clone(),
                    (i ^ 1) as u32,
                    params.logical_channels,
                    streams.stream(line_stream(i)),
                )
            })
            .collect();
        let watched = hosts.iter().enumerate().find_map(|(k, h)| {
            let dst = h
                .pump
                .as_ref()
                .map(|p| p.dst_host)
                .or(h.generator.as_ref().map(|g| g.dst_host))?;
            Some((k as u32, dst))
        });
        let watch = watched.map(|(h, d)| (hosts[h as usize].imp, hosts[d as usize].imp));
        let procedure = procedure(params.message_processing);
        let watch_stream = watched.map_or(0, |(h, d)| procedure.stream(&hosts, h, d));
        let routing = Routing::new_static(&params, &topo);
        // Every host starts in the set: it leaves once `host_try` has seen it idle.
        let mut waiting = vec![BTreeSet::new(); topo.names.len()];
        for (h, host) in hosts.iter().enumerate() {
            waiting[host.imp as usize].insert(h as u32);
        }
        Subnet {
            procedure,
            waiting,
            background_start: SimDuration::ZERO,
            routing,
            params,
            topo,
            imps,
            links,
            hosts,
            slab: Slab::default(),
            msgs: BTreeMap::new(),
            next_msg: 0,
            trace,
            actions: Vec::new(),
            corrupt_next: BTreeSet::new(),
            detours: BTreeMap::new(),
            obs: Observer {
                done: Vec::new(),
                delivered_at: BTreeMap::new(),
                delivered_last: BTreeMap::new(),
                tally: BackgroundTally::default(),
                order_violations: 0,
                occupancy: Vec::new(),
                sample_period,
                watch,
                watch_stream,
                slice_at: Vec::new(),
                retain_messages: true,
                retain_occupancy: true,
                stream_stats: Default::default(),
                slices: Vec::new(),
                counts: BTreeMap::new(),
                rfnm_waits: (0, 0, 0),
                e2e: None,
                lockup_window: SimDuration::ZERO,
                progress_mark: (0, SimTime::ZERO),
                lockup: None,
                measure_from: SimDuration::ZERO,
                busy_at_measure: Vec::new(),
                outside_tags: BTreeMap::new(),
                outside_delivered: VecDeque::new(),
            },
        }
    }

    /// The stream of messages from host `h` to host `dst_host`: their IMP pair in version 2
    /// (K&O §III: "message sequence numbers allocated per source IMP-destination IMP pair"),
    /// their host pair in version 3 (K&O §VI: "message sequencing is now done on the basis of
    /// HOST-to-HOST pairs").
    pub fn stream_of(&self, h: u32, dst_host: u32) -> Stream {
        self.procedure.stream(&self.hosts, h, dst_host)
    }

    /// The source IMP of `s`.
    pub fn stream_src(&self, s: Stream) -> u32 {
        self.procedure.stream_src(&self.hosts, s)
    }

    fn count(&mut self, what: Counted) {
        *self.obs.counts.entry(what.name()).or_default() += 1;
    }

    /// Events that start the run.
    pub fn initial_events(&mut self, q: &mut EventQueue<Ev>, starts: &[(u32, SimDuration)]) {
        let n = self.links.len().max(1) as u64;
        for i in 0..self.links.len() {
            // Stagger the first routing opportunity of each line over one interval.
            let phase = self.routing_slot(i as u32).0.as_nanos() * i as u64 / n;
            q.schedule(
                SimTime::from_nanos(phase),
                Ev::RoutingTick { link: i as u32 },
            );
        }
        for &(host, at) in starts {
            q.schedule(SimTime::ZERO + at, Ev::HostStart { host });
        }
        q.schedule(SimTime::ZERO, Ev::Sample);
        for &t in &self.obs.slice_at {
            q.schedule(SimTime::ZERO + t, Ev::Slice);
        }
        // Each IMP's clock, staggered over one fast tick.
        let m = self.imps.len().max(1) as u64;
        for imp in 0..self.imps.len() {
            let phase = self.params.fast_tick.as_nanos() * imp as u64 / m;
            q.schedule(SimTime::from_nanos(phase), Ev::Clock { imp: imp as u32 });
        }
        self.schedule_background(q, self.background_start);
        self.schedule_instruments(q);
        self.schedule_line_events(q);
    }

    fn frame_bits(&self, p: &Packet) -> Bits {
        Bits::new(p.bits.get() + self.params.packet_overhead.get())
    }

    // ------------------------------------------------------------------ hosts

    /// The host puts its next packet into its IMP if the IMP can take it.
    /// Host `h` hands the IMP its next packet if it can; keeps `waiting` up to date.
    fn host_try(&mut self, now: SimTime, h: u32, q: &mut EventQueue<Ev>) {
        let waits = self.host_try_input(now, h, q);
        let imp = self.hosts[h as usize].imp as usize;
        if waits {
            self.waiting[imp].insert(h);
        } else {
            self.waiting[imp].remove(&h);
        }
    }

    /// Whether `host_try` would find host `h` with nothing to do (no side effects): the
    /// invariant that lets `wake_hosts` skip it, checked in debug builds.
    fn host_idle(&self, h: u32) -> bool {
        let host = &self.hosts[h as usize];
        let no_next = if let Some(o) = &host.outside {
            o.is_empty()
        } else if let Some(b) = &host.background {
            b.backlog.is_empty()
        } else {
            host.pump
                .as_ref()
                .is_none_or(|p| p.count.is_some_and(|c| p.offered >= c))
        };
        host.generator.is_none()
            && (host.input_busy || !host.started || host.current.is_none() && no_next)
    }

    /// [`Self::host_try`]'s work: `true` if the host is left waiting for something a freed
    /// resource may give it, `false` if it started a packet's input or has nothing to do.
    fn host_try_input(&mut self, now: SimTime, h: u32, q: &mut EventQueue<Ev>) -> bool {
        if self.hosts[h as usize].generator.is_some() {
            self.generator_try(now, h, q);
            return true;
        }
        let host = &self.hosts[h as usize];
        if host.input_busy || !host.started {
            return false;
        }
        let imp = host.imp;
        let mid = match host.current {
            Some(m) => m,
            None => match self.new_message(now, h) {
                Some(m) => m,
                None => return false,
            },
        };
        let m = &self.msgs[&mid];
        if !(m.state == MsgState::InputFirst && m.input == 0
            || m.state == MsgState::Launched && m.input < m.packets)
        {
            return true; // K&O §II point a: input of packets 2..8 halts until the resources are held.
        }
        // K&O §III: a packet may enter the source IMP only with at least 4 free buffers; and it
        // joins an output queue of at most 8 (checked for packets after the first, which
        // are queued at once).
        let i = &self.imps[imp as usize];
        if i.free_buffers() < self.params.host_input_min_free {
            return true;
        }
        if m.input > 0 && m.src != m.dst {
            let Some(l) = self.routing.next_link(&self.topo, m.src, m.dst) else {
                return true; // no route now: the host waits
            };
            if self.links[l as usize].queue_len() >= self.params.output_queue_max {
                return true;
            }
        }
        let bits = self.packet_bits(m.bits, m.input, m.packets)
            + if m.input == 0 {
                self.params.host_leader.get()
            } else {
                0
            };
        self.imps[imp as usize].buf_used += 1;
        self.hosts[h as usize].input_busy = true;
        let t = self
            .params
            .host_interface
            .transmission_time(Bits::new(bits));
        q.schedule(now + t, Ev::HostInputDone { host: h });
        false
    }

    fn packet_bits(&self, msg_bits: u64, index: u8, of: u8) -> u64 {
        let max = self.params.max_packet.get();
        if index + 1 < of {
            max
        } else {
            msg_bits - max * (of as u64 - 1)
        }
    }

    fn new_message(&mut self, now: SimTime, h: u32) -> Option<MsgId> {
        if let Some(o) = self.hosts[h as usize].outside.as_mut() {
            let Handed { to, bits, tag } = o.pop_front()?;
            let id = self.insert_message(now, h, to, bits, MsgState::InputFirst, 0);
            self.obs.outside_tags.insert(id, tag);
            self.hosts[h as usize].current = Some(id);
            return Some(id);
        }
        if let Some(b) = self.hosts[h as usize].background.as_mut() {
            let (dst_host, bits) = b.backlog.pop_front()?;
            let id = self.insert_message(now, h, dst_host, bits, MsgState::InputFirst, 0);
            self.hosts[h as usize].current = Some(id);
            return Some(id);
        }
        let pump = self.hosts[h as usize].pump.as_mut()?;
        if pump.count.is_some_and(|c| pump.offered >= c) {
            return None;
        }
        pump.offered += 1;
        let (dst_host, bits) = (pump.dst_host, pump.bits);
        let id = self.insert_message(now, h, dst_host, bits, MsgState::InputFirst, 0);
        self.hosts[h as usize].current = Some(id);
        Some(id)
    }

    /// A new message of `bits` from host `h` to host `dst_host`, in `state` with `input`
    /// packets already in the source IMP.
    fn insert_message(
        &mut self,
        now: SimTime,
        h: u32,
        dst_host: u32,
        bits: u64,
        state: MsgState,
        input: u8,
    ) -> MsgId {
        let id = self.next_msg;
        self.next_msg += 1;
        let background = self.hosts[h as usize].background.is_some();
        self.obs.tally.offered += 1;
        let packets = bits.div_ceil(self.params.max_packet.get()) as u8;
        if background {
            self.obs.tally.background_offered += 1;
            self.obs.tally.background_packets += packets as u64;
        }
        let src = self.hosts[h as usize].imp;
        let dst = self.hosts[dst_host as usize].imp;
        let stream = self.stream_of(h, dst_host);
        let rec = MessageRecord {
            id,
            host: self.hosts[h as usize].name.clone(),
            dst_host: self.hosts[dst_host as usize].name.clone(),
            bits,
            offered_ns: now.as_nanos(),
            ..Default::default()
        };
        self.trace.emit(
            now,
            &Tr::Offered {
                msg: id,
                host: &self.hosts[h as usize].name,
            },
        );
        self.msgs.insert(
            id,
            Msg {
                host: h,
                dst_host,
                background,
                delivered: false,
                src,
                dst,
                stream,
                bits,
                packets,
                state,
                num: None,
                input,
                reqalls: 0,
                rec,
            },
        );
        id
    }

    fn host_input_done(&mut self, now: SimTime, h: u32, q: &mut EventQueue<Ev>) {
        self.hosts[h as usize].input_busy = false;
        let mid = self.hosts[h as usize]
            .current
            .expect("input of a current message");
        let m = self.msgs.get_mut(&mid).expect("current message exists");
        let index = m.input;
        m.input += 1;
        // The task level takes the packet in (`model/processor.rs`).
        let (src, pbits) = (m.src, m.bits);
        let of = m.packets;
        let bits = self.packet_bits(pbits, index, of);
        self.host_packet(now, src, bits, q);
        let m = self.msgs.get_mut(&mid).expect("current message exists");
        if index == 0 {
            m.rec.first_in_ns = Some(now.as_nanos());
            change(&mut self.trace, now, mid, m, self.procedure.first_state());
            self.trace.emit(
                now,
                &Tr::FirstIn {
                    msg: mid,
                    imp: &self.imps[m.src as usize].name,
                },
            );
            self.advance(now, mid, q);
        } else {
            let (src, dst, num, of, bits) =
                (m.src, m.dst, m.num.expect("launched"), m.packets, m.bits);
            let pb = self.packet_bits(bits, index, of);
            self.send_data(now, src, dst, mid, num, index, of, pb, q);
        }
        let m = &self.msgs[&mid];
        if m.input == m.packets && m.state == MsgState::Launched && m.rec.accepted_ns.is_none() {
            self.accepted(now, h, mid);
        }
        self.host_try(now, h, q);
    }

    /// The last packet of a message is in the source IMP: the pump may offer the next.
    fn accepted(&mut self, now: SimTime, h: u32, mid: MsgId) {
        let m = self.msgs.get_mut(&mid).expect("message");
        m.rec.accepted_ns = Some(now.as_nanos());
        self.hosts[h as usize].current = None;
        self.trace.emit(now, &Tr::Accepted { msg: mid });
    }

    // ------------------------------------------------------- source procedure

    /// Moves a message through the source procedure of its version as far as it can go.
    fn advance(&mut self, now: SimTime, mid: MsgId, q: &mut EventQueue<Ev>) {
        let p = self.procedure;
        p.advance(self, now, mid, q);
    }

    /// Point e: packet 1 leaves; input of the rest resumes.
    fn launch(&mut self, now: SimTime, mid: MsgId, q: &mut EventQueue<Ev>) {
        let m = self.msgs.get_mut(&mid).expect("message");
        change(&mut self.trace, now, mid, m, MsgState::Launched);
        m.rec.launched_ns = Some(now.as_nanos());
        let (src, dst, num, of, bits, host, input) = (
            m.src,
            m.dst,
            m.num.expect("numbered"),
            m.packets,
            m.bits,
            m.host,
            m.input,
        );
        self.trace.emit(now, &Tr::Launched { msg: mid });
        let pb = self.packet_bits(bits, 0, of);
        self.send_data(now, src, dst, mid, num, 0, of, pb, q);
        if input == of {
            self.accepted(now, host, mid);
        }
        self.host_try(now, host, q);
    }

    /// Wakes messages waiting for numbers or PLT entries at `imp`.
    fn serve_waiters(&mut self, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        for d in self.imps[imp as usize].numbers.waiting_streams() {
            while let Some(w) = self.imps[imp as usize].numbers.first_waiting(d) {
                self.advance(now, w, q);
                if self.imps[imp as usize].numbers.first_waiting(d) == Some(w) {
                    break;
                }
            }
        }
        let p = self.procedure;
        p.serve_plt(self, now, imp, q);
    }

    /// Point h: the RFNM (or the ALL answering a REQALL) reaches the source IMP.
    fn source_receives(&mut self, now: SimTime, imp: u32, p: Packet, q: &mut EventQueue<Ev>) {
        let dst = p.src; // the destination IMP sent it
        match p.kind {
            PktKind::Rfnm { msg, num: _, all } => {
                self.release_number_and_plt(imp, p.stream);
                self.number_released(now, imp, p.stream, q);
                if all {
                    self.add_allocation(now, imp, dst, q);
                }
                if let Some(m) = self.msgs.remove(&msg) {
                    let mut rec = m.rec;
                    rec.rfnm_ns = Some(now.as_nanos());
                    rec.rfnm_carried_all = Some(all);
                    let rtt = now.as_nanos() - rec.offered_ns;
                    self.trace.emit(
                        now,
                        &Tr::RfnmIn {
                            msg,
                            all,
                            rtt_ns: rtt,
                        },
                    );
                    let hops = self.topo.hops(m.src, m.dst).unwrap_or(0);
                    self.answered(m.background, hops, rec);
                }
                self.serve_waiters(now, imp, q);
                self.procedure.reply_served(self, now, imp, dst, q);
            }
            PktKind::All { num: _ } => {
                // The REQALL's number and PLT entry come back and the ALL goes to the counter.
                self.release_number_and_plt(imp, p.stream);
                self.procedure
                    .all_returned(self, now, imp, dst, p.stream, q);
                self.trace.emit(now, &Tr::AllIn { num: 0 });
                self.add_allocation(now, imp, dst, q);
                self.serve_waiters(now, imp, q);
                self.procedure.reply_served(self, now, imp, dst, q);
            }
            _ => unreachable!("only RFNMs and ALLs go to a source IMP"),
        }
        self.wake_hosts(now, imp, q);
    }

    fn release_number_and_plt(&mut self, imp: u32, stream: Stream) {
        let i = &mut self.imps[imp as usize];
        i.numbers.release(stream);
        i.plt.release();
    }

    /// An ALL reaches the source IMP, alone or on a RFNM (K&O §II point h): the allocate
    /// counter goes up, and the oldest message waiting for an allocation to this destination
    /// starts again at point b, whichever ALL this is. If that message's own REQALL is answered
    /// later, that ALL is spare and goes back with a GVB unless used within 250 ms (the
    /// "superfluous REQALL" of K&O §VII).
    fn add_allocation(&mut self, now: SimTime, imp: u32, dst: u32, q: &mut EventQueue<Ev>) {
        let epoch = self.imps[imp as usize].allocs.add(dst);
        q.schedule(
            now + self.params.giveback_after,
            Ev::GiveBack { imp, dst, epoch },
        );
        if let Some(w) = self.imps[imp as usize].allocs.next_awaiting(dst)
            && let Some(m) = self.msgs.get_mut(&w)
        {
            // Version 2: the REQALL stole the number, the message starts again at point b.
            // Version 3: it kept its number and now has its allocation.
            change(&mut self.trace, now, w, m, self.procedure.allocated_state());
            self.advance(now, w, q);
        }
    }

    fn give_back(&mut self, now: SimTime, imp: u32, dst: u32, epoch: u32, q: &mut EventQueue<Ev>) {
        if self.imps[imp as usize].allocs.give_back(dst, epoch) {
            self.count(Counted::Gvb);
            self.trace.emit(
                now,
                &Tr::Giveback {
                    imp: &self.imps[imp as usize].name,
                    to: &self.imps[dst as usize].name,
                },
            );
            self.send_control(now, imp, dst, 0, PktKind::Gvb, q);
        }
    }

    // ------------------------------------------------------ destination side

    fn destination_receives(&mut self, now: SimTime, imp: u32, p: Packet, q: &mut EventQueue<Ev>) {
        match p.kind {
            PktKind::Data { of: 1, .. } => self.single_arrives(now, imp, p, q),
            PktKind::Data {
                msg,
                num,
                index: _,
                of,
            } => {
                let (first, last) =
                    self.imps[imp as usize]
                        .delivery
                        .packet((p.stream, num), msg, of, p.bits.get());
                if let Some(m) = self.msgs.get_mut(&msg).filter(|m| !m.background) {
                    let t = Some(now.as_nanos());
                    if first {
                        m.rec.first_arrived_ns = t;
                    }
                    if last {
                        m.rec.reassembled_ns = t;
                    }
                }
                if last {
                    // Point f. Unfilled reserved buffers (a message of fewer than 8 packets) go back.
                    let unused = self.params.allocation_buffers - of as u32;
                    self.imps[imp as usize].release_reassembly(unused);
                    self.trace.emit(
                        now,
                        &Tr::Reassembled {
                            msg,
                            imp: &self.imps[imp as usize].name,
                        },
                    );
                    self.hand_over_in_order(now, imp, p.stream, q);
                    self.serve_replies(now, imp, q);
                }
            }
            PktKind::ReqAll { msg: _, num } => {
                // The REQALL's number carries no message: the sequence skips it.
                self.imps[imp as usize].delivery.skip((p.stream, num));
                self.imps[imp as usize].replies.owe_all(p.stream, num);
                self.hand_over_in_order(now, imp, p.stream, q);
                self.serve_replies(now, imp, q);
            }
            PktKind::Gvb => {
                self.imps[imp as usize].release_reassembly(self.params.allocation_buffers);
                self.serve_replies(now, imp, q);
            }
            PktKind::Rfnm { .. } | PktKind::All { .. } => self.source_receives(now, imp, p, q),
            PktKind::SingleRfnm { .. } | PktKind::SingleAll { .. } => {
                self.single_source_receives(now, imp, p, q)
            }
            PktKind::CreateBlock | PktKind::BlockCreated | PktKind::ReleaseBlock => {
                self.block_control(now, imp, p, q)
            }
        }
    }

    /// Queues complete messages for the host in message-number order per stream.
    fn hand_over_in_order(&mut self, now: SimTime, imp: u32, src: Stream, q: &mut EventQueue<Ev>) {
        let i = &mut self.imps[imp as usize];
        let mut hosts: Vec<u32> = Vec::new();
        while let Some((next, r)) = i.delivery.next_in_order(src) {
            // The message is still known: its RFNM goes only after packet 1 reaches the host.
            let host = self.msgs.get(&r.msg).map_or(0, |m| m.dst_host);
            let max = self.params.max_packet.get();
            let port = i.port(host);
            for index in 0..r.of {
                let bits = if index + 1 < r.of {
                    max
                } else {
                    r.bits - max * (r.of as u64 - 1)
                };
                port.queue.push_back(HostOut {
                    msg: r.msg,
                    host,
                    stream: src,
                    num: next,
                    index,
                    of: r.of,
                    bits,
                });
            }
            hosts.push(host);
        }
        for host in hosts {
            self.start_host_output(now, imp, host, q);
        }
    }

    /// Starts the next packet to `host` if its interface is free (each host on an IMP has its
    /// own interface).
    fn start_host_output(&mut self, now: SimTime, imp: u32, host: u32, q: &mut EventQueue<Ev>) {
        let fake = self.imps[imp as usize].fake_host;
        let port = self.imps[imp as usize].port(host);
        if port.busy {
            return;
        }
        if let Some(o) = port.queue.front() {
            port.busy = true;
            let t = if fake {
                SimDuration::ZERO
            } else {
                self.params
                    .host_interface
                    .transmission_time(Bits::new(o.bits))
            };
            q.schedule(now + t, Ev::HostOutputDone { imp, host });
        }
    }

    fn host_output_done(&mut self, now: SimTime, imp: u32, host: u32, q: &mut EventQueue<Ev>) {
        let i = &mut self.imps[imp as usize];
        let port = i.port(host);
        port.busy = false;
        let o = port.queue.pop_front().expect("a packet was being output");
        i.release_reassembly(1);
        self.trace.emit(
            now,
            &Tr::ToHost {
                msg: o.msg,
                packet: o.index,
            },
        );
        if o.index == 0 && o.of > 1 {
            // Point g: "After the transmission of the first packet to the HOST, the RFNM for
            // this message is generated" (K&O §II).
            let epoch = i.replies.make_rfnm(o.stream, o.msg, o.num, now.as_nanos());
            if let Some(m) = self.msgs.get_mut(&o.msg).filter(|m| !m.background) {
                m.rec.rfnm_made_ns = Some(now.as_nanos());
            }
            q.schedule(
                now + self.params.rfnm_all_wait,
                Ev::RfnmTimeout { imp, epoch },
            );
        }
        if o.index + 1 == o.of {
            self.delivered(now, host, o.msg);
            if let Some(last) = self.obs.delivered_last.insert((o.stream, host), o.num)
                && last >= o.num
            {
                self.obs.order_violations += 1;
            }
        }
        if o.of == 1 {
            self.single_rfnm(now, imp, o, q);
        }
        self.serve_replies(now, imp, q);
        self.start_host_output(now, imp, host, q);
    }

    /// Sends the replies at the head of the queue for which 8 buffers can be reserved.
    fn serve_replies(&mut self, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        self.serve_single_requests(now, imp, q);
        let n = self.params.allocation_buffers;
        let fix = self.params.rfnm_piggyback == Piggyback::NotWhileRepliesWait;
        loop {
            let r = match self.imps[imp as usize].replies.next(fix) {
                Next::Nothing => return,
                Next::WithoutAll(gone) => {
                    // BBN's fix (K&O §VII): every RFNM with another reply queued goes now.
                    for r in gone {
                        self.count(Counted::RfnmNotPiggybacked);
                        self.send_reply(now, imp, r, false, q);
                    }
                    continue;
                }
                Next::Head(r) => r,
            };
            let i = &mut self.imps[imp as usize];
            if !i.can_reserve(n) {
                return;
            }
            i.reserve(n);
            i.replies.take_head();
            self.send_reply(now, imp, r, true, q);
        }
    }

    /// Sends reply `r`: a RFNM, with a piggy-backed ALL when `all`, or an ALL.
    fn send_reply(&mut self, now: SimTime, imp: u32, r: Reply, all: bool, q: &mut EventQueue<Ev>) {
        match r {
            Reply::Rfnm {
                stream,
                msg,
                num,
                made_ns,
                ..
            } => self.send_rfnm(now, imp, (stream, msg, num, made_ns), all, q),
            Reply::All { stream, num } => {
                let src = self.stream_src(stream);
                self.trace.emit(
                    now,
                    &Tr::AllSent {
                        num,
                        to: &self.imps[src as usize].name,
                    },
                );
                self.send_control(now, imp, src, stream, PktKind::All { num }, q);
            }
        }
    }

    fn send_rfnm(
        &mut self,
        now: SimTime,
        imp: u32,
        (stream, msg, num, made_ns): (Stream, MsgId, u64, u64),
        all: bool,
        q: &mut EventQueue<Ev>,
    ) {
        // How long it waited at the destination IMP since it was made.
        let waited = now.as_nanos() - made_ns;
        if let Some(m) = self.msgs.get_mut(&msg).filter(|m| !m.background) {
            m.rec.rfnm_sent_ns = Some(now.as_nanos());
            let w = &mut self.obs.rfnm_waits;
            *w = (w.0 + 1, w.1 + waited, w.2.max(waited));
        }
        self.trace.emit(
            now,
            &Tr::Rfnm {
                msg,
                all,
                waited_ns: waited,
            },
        );
        self.count(if all {
            Counted::RfnmWithAll
        } else {
            Counted::RfnmWithoutAll
        });
        let src = self.stream_src(stream);
        self.send_control(now, imp, src, stream, PktKind::Rfnm { msg, num, all }, q);
    }

    fn rfnm_timeout(&mut self, now: SimTime, imp: u32, epoch: u32, q: &mut EventQueue<Ev>) {
        if let Some(r) = self.imps[imp as usize].replies.wait_over(epoch) {
            // K&O §II: "the RFNM is then sent without a piggy-backed ALL".
            self.send_reply(now, imp, r, false, q);
        }
    }

    // ------------------------------------------------------------ packets

    #[allow(clippy::too_many_arguments)]
    fn send_data(
        &mut self,
        now: SimTime,
        src: u32,
        dst: u32,
        msg: MsgId,
        num: u64,
        index: u8,
        of: u8,
        bits: u64,
        q: &mut EventQueue<Ev>,
    ) {
        let p = Packet {
            kind: PktKind::Data {
                msg,
                num,
                index,
                of,
            },
            src,
            dst,
            stream: self.msgs.get(&msg).map_or(0, |m| m.stream),
            bits: Bits::new(bits),
            hops: 0,
        };
        debug_assert_ne!(
            src, dst,
            "hosts on one IMP are refused when the model is built"
        );
        let id = self.slab.insert(p);
        self.note_visit(now, src, id);
        let Some(l) = self.routing.next_link(&self.topo, src, dst) else {
            self.routing.park(src, id, Hold::Source);
            return;
        };
        self.links[l as usize].data.push_back((id, Hold::Source));
        self.note_queue(l);
        self.note_source_send(now, l, &p);
        self.try_send(now, l, q);
    }

    fn send_control(
        &mut self,
        now: SimTime,
        from: u32,
        to: u32,
        stream: Stream,
        kind: PktKind,
        q: &mut EventQueue<Ev>,
    ) {
        let p = Packet {
            kind,
            src: from,
            dst: to,
            stream,
            bits: self.params.control_bits,
            hops: 0,
        };
        if from == to {
            self.destination_receives(now, to, p, q);
            return;
        }
        let id = self.slab.insert(p);
        self.note_visit(now, from, id);
        let Some(l) = self.routing.next_link(&self.topo, from, to) else {
            self.routing.park(from, id, Hold::Control);
            return;
        };
        self.enqueue(l, id, Hold::Control);
        self.try_send(now, l, q);
    }

    fn enqueue(&mut self, l: u32, id: PktId, hold: Hold) {
        let link = &mut self.links[l as usize];
        if hold == Hold::Control && self.params.control_priority {
            link.ctrl.push_back((id, hold));
        } else {
            link.data.push_back((id, hold));
        }
        self.note_queue(l);
    }

    fn note_queue(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        link.max_queue = link.max_queue.max(link.data.len() as u32);
    }

    /// Starts the next frame on an idle link.
    fn try_send(&mut self, now: SimTime, l: u32, q: &mut EventQueue<Ev>) {
        let link = &mut self.links[l as usize];
        if link.busy || !self.routing.line_up(l) {
            return;
        }
        let Some(next) = link.next_frame() else {
            return;
        };
        let (kind, bits, retransmission) = match next {
            NextFrame::Routing => {
                let from = link.def.from;
                let generation =
                    self.imps[from as usize].cpu.ticks / self.params.slow_tick_every as u64;
                let fresh = link.routing_sent != Some(generation);
                link.routing_sent = Some(generation);
                let body = self.routing.body_for(now, l, from);
                (
                    FrameKind::Routing { body, fresh },
                    self.params.routing_message,
                    false,
                )
            }
            NextFrame::Packet {
                pkt,
                lch,
                bit,
                retransmission,
            } => (
                FrameKind::Packet { pkt, lch, bit },
                Bits::new(self.slab.get(pkt).bits.get() + self.params.packet_overhead.get()),
                retransmission,
            ),
            NextFrame::AckOnly => (FrameKind::AckOnly, self.params.packet_overhead, false),
        };
        let link = &mut self.links[l as usize];
        let (ack_mask, ack_bits) = link.take_acks();
        let p_err = 1.0 - (1.0 - self.params.bit_error_rate).powf(bits.get() as f64);
        let corrupted = link.errors.bernoulli(p_err)
            || matches!(kind, FrameKind::Packet { .. }) && self.corrupt_next.remove(&l);
        let tx = link.def.capacity.transmission_time(bits);
        link.busy = true;
        link.busy_time += tx;
        link.frames += 1;
        if let FrameKind::Packet { pkt, .. } = kind {
            link.data_frames += 1;
            if self.trace.is_on() {
                let p = *self.slab.get(pkt);
                let (msg, packet) = match p.kind {
                    PktKind::Data { msg, index, .. } => (Some(msg), Some(index)),
                    _ => (None, None),
                };
                let (from, to) = (link.def.from, link.def.to);
                self.trace.emit(
                    now,
                    &Tr::Send {
                        kind: p.kind.name(),
                        msg,
                        packet,
                        from: &self.imps[from as usize].name,
                        to: &self.imps[to as usize].name,
                        retransmission,
                    },
                );
            }
        }
        q.schedule(
            now + tx,
            Ev::TxDone {
                link: l,
                frame: Frame {
                    kind,
                    ack_mask,
                    ack_bits,
                    corrupted,
                },
            },
        );
    }

    fn tx_done(&mut self, now: SimTime, l: u32, frame: Frame, q: &mut EventQueue<Ev>) {
        if self.lost_in_transmission(now, l, frame, q) {
            return;
        }
        let link = &mut self.links[l as usize];
        link.busy = false;
        q.schedule(now + link.def.propagation, Ev::Arrive { link: l, frame });
        if let FrameKind::Packet { lch, .. } = frame.kind {
            let epoch = link.lch[lch as usize].epoch;
            q.schedule(
                now + self.params.retransmit_timeout + link.def.propagation * 2,
                Ev::AckTimeout {
                    link: l,
                    lch,
                    epoch,
                },
            );
        }
        let from = link.def.from;
        self.try_send(now, l, q);
        self.wake_hosts(now, from, q);
    }

    /// Something freed at `imp`: its waiting hosts try again, in host order. The cursor walks
    /// the live set, so a host that starts waiting behind the cursor meanwhile is tried too,
    /// as a scan of every host would have tried it.
    fn wake_hosts(&mut self, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        debug_assert!(
            self.hosts
                .iter()
                .enumerate()
                .all(|(h, host)| host.imp != imp
                    || self.waiting[imp as usize].contains(&(h as u32))
                    || self.host_idle(h as u32)),
            "a host left out of `waiting` at IMP {imp} has something to do"
        );
        let mut from = 0;
        while let Some(&h) = self.waiting[imp as usize].range(from..).next() {
            from = h + 1;
            self.host_try(now, h, q);
        }
    }

    fn arrive(&mut self, now: SimTime, l: u32, frame: Frame, q: &mut EventQueue<Ev>) {
        if self.lost_on_line(l, frame) {
            return;
        }
        let (at, from, rev) = {
            let link = &self.links[l as usize];
            (link.def.to, link.def.from, link.reverse)
        };
        if frame.corrupted {
            // The CRC check fails: the frame, its acknowledgements included, is lost.
            self.links[l as usize].corrupted += 1;
            self.drop_routing_body(frame);
            self.count(Counted::LineError);
            self.trace.emit(
                now,
                &Tr::LineError {
                    from: &self.imps[from as usize].name,
                    to: &self.imps[at as usize].name,
                },
            );
            return;
        }
        // Piggy-backed acknowledgements, for frames `at` sent over the reverse link.
        for lch in 0..8u8 {
            if frame.ack_mask & (1 << lch) != 0 {
                self.acknowledged(now, rev, lch, frame.ack_bits & (1 << lch) != 0, q);
            }
        }
        let FrameKind::Packet { pkt, lch, bit } = frame.kind else {
            self.frame_without_packet(now, l, frame, q);
            return;
        };
        if self.links[l as usize].is_duplicate(lch, bit) {
            // A retransmission of a packet already accepted: acknowledge it again, drop it.
            self.links[l as usize].duplicates += 1;
            self.links[rev as usize].add_ack(lch, bit);
            self.try_send(now, rev, q);
            return;
        }
        let p = *self.slab.get(pkt);
        if let Some(reason) = self.rejects(at, &p) {
            // K&O §III: rejected by the neighbour; no acknowledgement, the sender retransmits.
            self.links[l as usize].rejected += 1;
            self.count(Counted::Rejection);
            self.trace.emit(
                now,
                &Tr::Reject {
                    kind: p.kind.name(),
                    at: &self.imps[at as usize].name,
                    reason,
                },
            );
            return;
        }
        // Acknowledged once the task level has taken it (`model/processor.rs`).
        self.links[l as usize].rx_last[lch as usize] = Some(bit);
        let mut copy = p;
        copy.hops += 1;
        let id = self.slab.insert(copy);
        let imp = &mut self.imps[at as usize];
        if at != p.dst
            && !p.kind.is_control()
            && let Some(next) = self.routing.next_link(&self.topo, at, p.dst)
        {
            imp.buf_used += 1;
            imp.sf_used += 1;
            self.links[next as usize].incoming += 1;
            self.routing.plan(id, next);
        }
        self.note_visit(now, at, id);
        self.process(
            now,
            at,
            Work::Packet {
                pkt: id,
                link: l,
                lch,
                bit,
            },
            q,
        );
    }

    /// Why the IMP at `at` cannot take packet `p` now, if it cannot (K&O §III).
    fn rejects(&self, at: u32, p: &Packet) -> Option<&'static str> {
        if p.kind.is_control() || at == p.dst {
            // Control messages use space set aside for them (a choice: the sources are silent);
            // data for this IMP fills buffers its allocation reserved.
            return None;
        }
        let imp = &self.imps[at as usize];
        if imp.free_buffers() == 0 {
            return Some("no free buffer");
        }
        if imp.sf_used >= self.params.store_and_forward_max {
            return Some("20 store-and-forward packets");
        }
        let Some(next) = self.routing.next_link(&self.topo, at, p.dst) else {
            return Some("no route");
        };
        if self.links[next as usize].queue_len() >= self.params.output_queue_max {
            return Some("output queue full");
        }
        None
    }

    fn acknowledged(&mut self, now: SimTime, l: u32, lch: u8, bit: bool, q: &mut EventQueue<Ev>) {
        let link = &mut self.links[l as usize];
        let Some((pkt, hold)) = link.acknowledge(lch, bit) else {
            return; // an old acknowledgement
        };
        let from = link.def.from;
        self.slab.remove(pkt);
        let imp = &mut self.imps[from as usize];
        match hold {
            Hold::Source => imp.buf_used -= 1,
            Hold::Transit => {
                imp.buf_used -= 1;
                imp.sf_used -= 1;
            }
            Hold::Control | Hold::Copy => {}
        }
        self.try_send(now, l, q);
        self.wake_hosts(now, from, q);
    }

    fn ack_timeout(&mut self, now: SimTime, l: u32, lch: u8, epoch: u32, q: &mut EventQueue<Ev>) {
        if self.links[l as usize].ack_timeout(lch, epoch) {
            self.count(Counted::Retransmission);
            self.try_send(now, l, q);
        }
    }

    fn sample(&mut self, now: SimTime, q: &mut EventQueue<Ev>) {
        if let Some((s, d)) = self.obs.watch {
            let si = &self.imps[s as usize];
            let di = &self.imps[d as usize];
            let plt_reqalls = self.procedure.plt_reqalls(self, s);
            let plt_rfnms_waiting = di
                .replies
                .iter()
                .filter(
                    |r| matches!(r, Reply::Rfnm { stream, .. } if self.stream_src(*stream) == s),
                )
                .count() as u32;
            let o = Occupancy {
                t_ns: now.as_nanos(),
                message_numbers: si.numbers.in_use(self.obs.watch_stream),
                plt_entries: si.plt.used(),
                reassembly_buffers: di.reasm_used,
                allocations_held: si.allocs.held(d),
                source_buffers: si.buf_used,
                plt_reqalls,
                plt_rfnms_waiting,
                plt_messages: si
                    .plt
                    .used()
                    .saturating_sub(plt_reqalls + plt_rfnms_waiting),
            };
            if now.since(SimTime::ZERO) >= self.obs.measure_from {
                self.obs.stream_stats.add_occupancy(&o);
            }
            if self.obs.retain_occupancy {
                self.obs.occupancy.push(o);
            }
        }
        self.sample_routing(now);
        q.schedule(now + self.obs.sample_period, Ev::Sample);
    }

    /// Messages offered and not yet delivered to their host, counted where they are: in the
    /// source procedure or the subnet (known to the source, not delivered), or on their way
    /// to the host after the RFNM came back.
    pub fn undelivered(&self) -> u64 {
        let known = self.msgs.values().filter(|m| !m.delivered).count();
        let mut leaving: BTreeSet<MsgId> = BTreeSet::new();
        for i in &self.imps {
            for p in &i.ports {
                leaving.extend(
                    p.queue
                        .iter()
                        .map(|o| o.msg)
                        .filter(|m| !self.msgs.contains_key(m)),
                );
            }
        }
        (known + leaving.len()) as u64
    }

    /// What is still held, one line per IMP or line that is not idle (empty when idle).
    pub fn held(&self) -> Vec<String> {
        let mut v = Vec::new();
        for i in &self.imps {
            if !i.idle() {
                v.push(format!(
                    "{}: buffers {}, s/f {}, reassembly {}, PLT {}, numbers {:?}, replies {}, allocations {:?}, tasks {}, to hosts {}",
                    i.name,
                    i.buf_used,
                    i.sf_used,
                    i.reasm_used,
                    i.plt.used(),
                    i.numbers.used(),
                    i.replies.len(),
                    i.allocs.held_all(),
                    i.cpu.len(),
                    i.ports.iter().map(|p| p.queue.len()).sum::<usize>()
                ));
                v.extend(self.procedure.held(i));
            }
        }
        for l in &self.links {
            if l.channels_busy() > 0 || !l.data.is_empty() || !l.ctrl.is_empty() {
                v.push(format!(
                    "line {}→{}: channels {}, data {}, control {}",
                    self.imps[l.def.from as usize].name,
                    self.imps[l.def.to as usize].name,
                    l.channels_busy(),
                    l.data.len(),
                    l.ctrl.len()
                ));
            }
        }
        if !self.msgs.is_empty() {
            v.push(format!("{} messages unanswered", self.msgs.len()));
        }
        v
    }

    /// True when no resource anywhere is held (for the no-leak check).
    pub fn all_idle(&self) -> bool {
        self.imps.iter().all(|i| i.idle())
            && self
                .links
                .iter()
                .all(|l| l.channels_busy() == 0 && l.data.is_empty() && l.ctrl.is_empty())
            && self.msgs.is_empty()
            && self.slab.live() == 0
    }
}

impl Model for Subnet {
    type Event = Ev;
    fn handle(&mut self, now: SimTime, ev: Ev, q: &mut EventQueue<Ev>) {
        match ev {
            Ev::HostStart { host } => {
                self.hosts[host as usize].started = true;
                self.host_try(now, host, q);
            }
            Ev::HostInputDone { host } => self.host_input_done(now, host, q),
            Ev::TxDone { link, frame } => self.tx_done(now, link, frame, q),
            Ev::Arrive { link, frame } => self.arrive(now, link, frame, q),
            Ev::ProcDone { imp, epoch } => self.proc_done(now, imp, epoch, q),
            Ev::Clock { imp } => self.clock(now, imp, q),
            Ev::AckTimeout { link, lch, epoch } => self.ack_timeout(now, link, lch, epoch, q),
            Ev::RoutingTick { link } => self.routing_tick(now, link, q),
            Ev::HostOutputDone { imp, host } => self.host_output_done(now, imp, host, q),
            Ev::RfnmTimeout { imp, epoch } => self.rfnm_timeout(now, imp, epoch, q),
            Ev::GiveBack { imp, dst, epoch } => self.give_back(now, imp, dst, epoch, q),
            Ev::Sample => self.sample(now, q),
            Ev::Scripted { index } => self.scripted(now, index, q),
            Ev::Watchdog => self.watchdog(now, q),
            Ev::MeasureStart => {
                self.obs.busy_at_measure = self.links.iter().map(|l| l.busy_time).collect();
            }
            Ev::LineChange { line, up } => self.line_change(now, line, up, q),
            Ev::Arrival { host } => self.background_arrival(now, host, q),
            Ev::BlockIdle { imp, stream } => self.block_idle(now, imp, stream, q),
            Ev::Slice => {
                if let Some(s) = self.time_slice(now) {
                    self.obs.slices.push(s);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// No two components draw from the same random stream, however large the network: 400,000
    /// line directions (a 100,000-IMP chain has 199,998), a background host on each of 65,536
    /// IMPs, and 1,000 traffic entries (issue 15: `1000 + i` and `2000 + k` used to meet once
    /// a network had more than 1,000 line directions).
    #[test]
    fn random_streams_never_collide() {
        let lines: BTreeSet<u64> = (0..400_000).map(line_stream).collect();
        let background: BTreeSet<u64> = (0..=u16::MAX as usize).map(background_stream).collect();
        let pairs: BTreeSet<u64> = (0..1000).map(pairs_stream).collect();
        assert_eq!(lines.len(), 400_000);
        assert!(lines.is_disjoint(&background));
        assert!(lines.is_disjoint(&pairs));
        assert!(background.is_disjoint(&pairs));
        // The first 1000 line directions keep the streams they always had.
        assert_eq!(line_stream(0), 1000);
        assert_eq!(line_stream(999), 1999);
        // At the largest network allowed (MAX_IMPS IMPs, lines of up to 16 directions each):
        // the namespaces are increasing ranges that do not meet.
        let max_imps = crate::topology::MAX_IMPS;
        assert!(line_stream(999) < background_stream(0));
        assert!(background_stream(max_imps - 1) < line_stream(1000));
        assert!(line_stream(16 * max_imps) < pairs_stream(0));
    }
}
