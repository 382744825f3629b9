//! The end-to-end message procedure of an IMP software version, as one trait
//! ([`Procedure`]) with an implementation per version: `V2` in `model/v2.rs` (October 1974, K&O
//! §II–III) and `V3` in `model/v3.rs` (1975, K&O §VI–VII); [`super::procedure`] picks one. The subnet calls the procedure where
//! the versions differ and nowhere asks which version it runs.
//!
//! What the versions share is the subnet's, not the trait's: the tables as sans-I/O cores
//! ([`crate::source`], [`crate::destination`]), launching packet 1 (K&O Fig. 1 point e),
//! reassembly and hand-over (points d, f), RFNMs and their piggy-backed ALLs (points g, h), the
//! GVB timer (point i), single-packet messages (RFC 632) and the line procedure.

use super::{Ev, Host, MsgState, Subnet};
use crate::imp::Imp;
use crate::packet::{MsgId, Stream};
use nmc_sim::{EventQueue, SimTime};

/// One version's source procedure: how messages are sequenced, the order in which a message
/// acquires its resources, and what an ALL coming back does beyond adding to the allocate
/// counter.
pub trait Procedure: Send + Sync {
    /// The stream of messages from host `h` to host `dst_host`: the sequence their message
    /// numbers count in.
    fn stream(&self, hosts: &[Host], h: u32, dst_host: u32) -> Stream;

    /// The source IMP of stream `s`.
    fn stream_src(&self, hosts: &[Host], s: Stream) -> u32;

    /// Where a message's source procedure starts once packet 1 is in the source IMP (K&O Fig.
    /// 1 point a).
    fn first_state(&self) -> MsgState;

    /// Where a message waiting for an allocation goes when an ALL reaches its source IMP.
    fn allocated_state(&self) -> MsgState;

    /// Does a message waiting for a PLT entry already hold its reassembly allocation? (The
    /// order of acquisition: version 3 takes the allocation first, version 2 the PLT entry.)
    fn allocation_before_plt(&self) -> bool;

    /// Moves message `mid` through the source procedure as far as its resources let it go.
    fn advance(&self, sub: &mut Subnet, now: SimTime, mid: MsgId, q: &mut EventQueue<Ev>);

    /// A PLT entry at `imp` may be free: gives it to whoever waits for one.
    fn serve_plt(&self, sub: &mut Subnet, now: SimTime, imp: u32, q: &mut EventQueue<Ev>);

    /// The ALL answering a REQALL of stream `stream` from `imp` to `dst` is back; the REQALL's
    /// number and PLT entry have just been released, the allocation is not yet counted.
    /// Nothing more by default.
    fn all_returned(
        &self,
        _sub: &mut Subnet,
        _now: SimTime,
        _imp: u32,
        _dst: u32,
        _stream: Stream,
        _q: &mut EventQueue<Ev>,
    ) {
    }

    /// A RFNM or an ALL from `dst` has been dealt with at `imp` and the waiters served.
    /// Nothing more by default.
    fn reply_served(
        &self,
        _sub: &mut Subnet,
        _now: SimTime,
        _imp: u32,
        _dst: u32,
        _q: &mut EventQueue<Ev>,
    ) {
    }

    /// PLT entries of source IMP `src` held by REQALLs (the occupancy samples' `plt_reqalls`).
    fn plt_reqalls(&self, sub: &Subnet, src: u32) -> u32;

    /// What this version's own tables at `imp` still hold, for the no-leak report (`None`,
    /// the default, when the version has no tables of its own).
    fn held(&self, _imp: &Imp) -> Option<String> {
        None
    }
}
