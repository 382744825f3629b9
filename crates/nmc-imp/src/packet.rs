//! What travels: packets of host messages and subnet control messages, kept in a slab.
//!
//! A packet held by an IMP (in a queue, awaiting an IMP-to-IMP acknowledgement, in reassembly)
//! is a slot of [`Slab`]; the next IMP gets its own copy when it accepts the packet, and the
//! sender frees its copy when the acknowledgement comes back, as the IMPs did.

use nmc_sim::Bits;

pub type PktId = u32;
pub type MsgId = u64;

/// The kinds of packet in the subnet (K&O §II, Fig. 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PktKind {
    /// Packet `index` (0-based) of a host message of `of` packets, with message number `num`.
    Data {
        msg: MsgId,
        num: u64,
        index: u8,
        of: u8,
    },
    /// Ready For Next Message for message number `num`, perhaps carrying a piggy-backed ALL.
    Rfnm { msg: MsgId, num: u64, all: bool },
    /// Request for an allocation of reassembly buffers; it holds message number `num`.
    ReqAll { msg: MsgId, num: u64 },
    /// The allocation answering the REQALL that held message number `num`.
    All { num: u64 },
    /// Giveback of an unused allocation.
    Gvb,
}

impl PktKind {
    pub fn is_control(&self) -> bool {
        !matches!(self, PktKind::Data { .. })
    }
    pub fn name(&self) -> &'static str {
        match self {
            PktKind::Data { .. } => "data",
            PktKind::Rfnm { all: true, .. } => "rfnm+all",
            PktKind::Rfnm { .. } => "rfnm",
            PktKind::ReqAll { .. } => "reqall",
            PktKind::All { .. } => "all",
            PktKind::Gvb => "gvb",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub kind: PktKind,
    /// Source and destination IMPs.
    pub src: u16,
    pub dst: u16,
    /// Data bits (the frame on a line adds the overhead).
    pub bits: Bits,
    pub hops: u16,
}

/// Packets by id, with slot reuse.
#[derive(Default)]
pub struct Slab {
    slots: Vec<Packet>,
    free: Vec<PktId>,
    live: u32,
}

impl Slab {
    pub fn insert(&mut self, p: Packet) -> PktId {
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
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id as usize]
    }
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id as usize]
    }
    pub fn remove(&mut self, id: PktId) {
        self.live -= 1;
        self.free.push(id);
    }
    /// Packets currently held somewhere.
    pub fn live(&self) -> u32 {
        self.live
    }
}
