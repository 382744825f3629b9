//! What travels: packets of host messages and subnet control messages, kept in a slab.
//!
//! A packet held by an IMP (in a queue, awaiting an IMP-to-IMP acknowledgement, in reassembly)
//! is a slot of `Slab`; the next IMP gets its own copy when it accepts the packet, and the
//! sender frees its copy when the acknowledgement comes back, as the IMPs did.

use nmc_sim::Bits;

/// A packet's id: its slot in the [`Slab`].
pub(crate) type PktId = u32;
/// A message's id in the run, given out in the order messages are made.
pub type MsgId = u64;

/// A sequence of message numbers: what message numbers, reassembly order and RFNMs are counted
/// in. Version 2 numbers messages per source-IMP/destination-IMP pair (K&O §III), version 3 per
/// source-host/destination-host pair (K&O §VI). Either way the pair is packed into one value,
/// first end in the high 32 bits ([`stream`]), so that a source IMP's streams sort by their
/// destination as the version 2 tables did.
pub(crate) type Stream = u64;

/// The stream of the pair `a` → `b` (IMPs in version 2, hosts in version 3).
pub(crate) fn stream(a: u32, b: u32) -> Stream {
    (a as u64) << 32 | b as u64
}

/// The two ends of a stream.
pub(crate) fn stream_ends(s: Stream) -> (u32, u32) {
    ((s >> 32) as u32, s as u32)
}

/// The kinds of packet in the subnet (K&O §II, Fig. 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PktKind {
    /// Packet `index` (0-based) of a host message of `of` packets, with message number `num`.
    Data {
        /// The message it belongs to.
        msg: MsgId,
        /// The message's number in its stream.
        num: u64,
        /// Its place in the message, from 0.
        index: u8,
        /// Packets in the message.
        of: u8,
        /// The destination host its leader names: every packet's header carries the leader
        /// (RFC 568 item 2: the 96-bit header includes it), so the destination IMP hands the
        /// message over without asking the source.
        host: u32,
    },
    /// Ready For Next Message for message number `num`, perhaps carrying a piggy-backed ALL.
    Rfnm {
        /// The message it answers.
        msg: MsgId,
        /// That message's number.
        num: u64,
        /// It carries a piggy-backed ALL.
        all: bool,
    },
    /// Request for an allocation of reassembly buffers; it holds message number `num`.
    ReqAll {
        /// The message it was sent for.
        msg: MsgId,
        /// The message number it holds.
        num: u64,
    },
    /// The allocation answering the REQALL that held message number `num`.
    All {
        /// The message number the REQALL held.
        num: u64,
    },
    /// Giveback of an unused allocation.
    Gvb,
    /// Giveback of an unused allocation that holds message number `num` of its stream until
    /// the destination answers it (`gvb_number = "mesget-1973"`: BBN 3050 p. 55 `B2C`, `MESGET`).
    GvbNumbered {
        /// The message number it holds.
        num: u64,
    },
    /// The destination's answer to a numbered GVB, which gives its number back (BBN 3050 p. 74
    /// `GUDGVB`: "WE MUST RETURN A REPLY"; p. 15 `INCTRN`, "ALSO SET ON RFNM FOR GVB"; at the
    /// source p. 85 `GOTGVB`, "MARK MESS NO AS REPLIED").
    GvbRfnm {
        /// The GVB's number.
        num: u64,
    },
    /// RFNM for single-packet message `msg` (number `num`): it carries no allocation (RFC 632).
    SingleRfnm {
        /// The message it answers.
        msg: MsgId,
        /// That message's number.
        num: u64,
    },
    /// ALLOCATE of one reassembly buffer for single-packet message `msg` (number `num`), which
    /// the destination did not accept: the source sends its copy again (RFC 632 events 6–9).
    SingleAll {
        /// The message refused.
        msg: MsgId,
        /// That message's number.
        num: u64,
    },
    /// A packet or reply of IMPs outside the model, carried through it (issue 73 §3: a network
    /// of modelled IMPs and IMPs running the 1973 program): its words stay in a side table
    /// (`model/boundary.rs`), so that [`Packet`] stays `Copy`; the model routes it by its
    /// destination IMP and queues it as a subnet control message when `control` (the
    /// program's replies go on its priority queue, p. 66), as data in transit otherwise.
    Foreign {
        /// Its words' id in the side table.
        body: u32,
        /// A reply (queued and held as a control message).
        control: bool,
    },
    /// Version 3: the source IMP asks the destination IMP to create the receive block of the
    /// packet's stream (K&O §VI: "sends a subnet control message to destination IMP D to
    /// request the creation of a receive block").
    CreateBlock,
    /// Version 3: the receive block exists ("returns a subnet control message to IMP S to
    /// report this fact").
    BlockCreated,
    /// Version 3: the source IMP has released the stream's transmit block after disuse; the
    /// destination releases the receive block.
    ReleaseBlock,
}

impl PktKind {
    /// A subnet control message (every kind but data, and a foreign reply).
    pub(crate) fn is_control(&self) -> bool {
        match self {
            PktKind::Data { .. } => false,
            PktKind::Foreign { control, .. } => *control,
            _ => true,
        }
    }
    /// The kind as the trace writes it.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            PktKind::Data { .. } => "data",
            PktKind::Rfnm { all: true, .. } => "rfnm+all",
            PktKind::Rfnm { .. } => "rfnm",
            PktKind::ReqAll { .. } => "reqall",
            PktKind::All { .. } => "all",
            PktKind::Gvb | PktKind::GvbNumbered { .. } => "gvb",
            PktKind::GvbRfnm { .. } => "rfnm(gvb)",
            PktKind::SingleRfnm { .. } => "rfnm(single)",
            PktKind::SingleAll { .. } => "all(single)",
            PktKind::CreateBlock => "create-block",
            PktKind::BlockCreated => "block-created",
            PktKind::ReleaseBlock => "release-block",
            PktKind::Foreign { .. } => "foreign",
        }
    }
}

/// A packet: its kind, its ends, its stream, its length and the lines it has crossed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Packet {
    /// Its kind and what it carries.
    pub(crate) kind: PktKind,
    /// Source and destination IMPs.
    pub(crate) src: u32,
    /// The destination IMP.
    pub(crate) dst: u32,
    /// The stream it belongs to (end-to-end packets; 0 for packets of no stream, a GVB).
    pub(crate) stream: Stream,
    /// Data bits (the frame on a line adds the overhead).
    pub(crate) bits: Bits,
    /// Lines crossed so far (one added each time an IMP accepts it).
    pub(crate) hops: u32,
}

/// Packets by id, with slot reuse.
#[derive(Default)]
pub(crate) struct Slab {
    slots: Vec<Packet>,
    free: Vec<PktId>,
    live: u32,
}

impl Slab {
    /// Stores `p` in a free slot (or a new one) and returns its id.
    pub(crate) fn insert(&mut self, p: Packet) -> PktId {
        self.live += 1;
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = p;
                id
            }
            None => {
                self.slots.push(p);
                (self.slots.len() - 1) as PktId
            }
        }
    }
    /// The packet in slot `id`.
    pub(crate) fn get(&self, id: PktId) -> &Packet {
        &self.slots[id as usize]
    }
    /// Frees slot `id` for reuse.
    pub(crate) fn remove(&mut self, id: PktId) {
        self.live -= 1;
        self.free.push(id);
    }
    /// Packets currently held somewhere.
    pub(crate) fn live(&self) -> u32 {
        self.live
    }
}

// ---- Packets as the IMP's end-to-end steps read them (`e2e/`): below both the IMP and
// its steps, so that `imp.rs` names them without importing from `e2e/` (issue 72). ----

/// The next packet a host may put into its IMP (`Imp::next_input`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Input {
    /// Its place in the message (0: packet 1).
    pub(crate) index: u8,
    /// Its data bits (the host leader is the driver's, on the interface).
    pub(crate) bits: u64,
    /// The message's destination IMP (the packet's output queue, for packets after the first).
    pub(crate) dst: u32,
}

/// A single-packet message as its packet's header names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Single {
    /// The message.
    pub(crate) msg: MsgId,
    /// Its number in its stream.
    pub(crate) num: u64,
    /// The source IMP its header names.
    pub(crate) src: u32,
    /// The destination host its leader names.
    pub(crate) host: u32,
}

/// A multipacket message's packet as its header names it (`Imp::message_packet_received`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DataPacket {
    /// The message's stream.
    pub(crate) stream: Stream,
    /// The message.
    pub(crate) msg: MsgId,
    /// Its number in the stream.
    pub(crate) num: u64,
    /// Packets in the message.
    pub(crate) of: u8,
    /// The source IMP.
    pub(crate) src: u32,
    /// The destination host its leader names.
    pub(crate) host: u32,
    /// The packet's data bits.
    pub(crate) bits: u64,
}
