//! The end-to-end message procedure of an IMP software version, as one trait
//! ([`Procedure`]) with an implementation per version: [`super::v2::V2`] (October 1974, K&O
//! §II–III) and [`super::v3::V3`] (1975, K&O §VI–VII). The subnet calls the procedure where
//! the versions differ and nowhere asks which version it runs.
//!
//! What the versions share is the subnet's, not the trait's: the tables as sans-I/O cores
//! ([`crate::source`], [`crate::destination`]), launching packet 1 (K&O Fig. 1 point e),
//! reassembly and hand-over (points d, f), RFNMs and their piggy-backed ALLs (points g, h), the
//! GVB timer (point i), single-packet messages (RFC 632) and the line procedure.

use super::{Ev, Host, MsgState, Subnet};
use crate::imp::Imp;
use crate::packet::{MsgId, Stream};
use crate::params::MessageProcessing;
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

/// The procedure the profile's `message_processing` names.
pub fn procedure(v: MessageProcessing) -> &'static dyn Procedure {
    match v {
        MessageProcessing::V2 => &super::v2::V2,
        MessageProcessing::V3 => &super::v3::V3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(imp: u32) -> Host {
        Host::new(format!("host on IMP {imp}"), imp)
    }

    /// Hosts 0 and 1 on IMP 5, host 2 on IMP 9.
    fn hosts() -> Vec<Host> {
        vec![host(5), host(5), host(9)]
    }

    #[test]
    fn version_2_numbers_messages_per_imp_pair() {
        // K&O §III: "message sequence numbers allocated per source IMP-destination IMP pair":
        // two hosts on one IMP share the numbers to a destination IMP.
        let (v2, h) = (procedure(MessageProcessing::V2), hosts());
        assert_eq!(v2.stream(&h, 0, 2), v2.stream(&h, 1, 2));
        assert_eq!(v2.stream_src(&h, v2.stream(&h, 1, 2)), 5);
    }

    #[test]
    fn version_3_numbers_messages_per_host_pair() {
        // K&O §VI: "message sequencing is now done on the basis of HOST-to-HOST pairs".
        let (v3, h) = (procedure(MessageProcessing::V3), hosts());
        assert_ne!(v3.stream(&h, 0, 2), v3.stream(&h, 1, 2));
        assert_eq!(v3.stream_src(&h, v3.stream(&h, 1, 2)), 5);
    }

    #[test]
    fn the_order_of_acquisition_differs() {
        // Version 2: number, PLT entry, then an allocation (a REQALL steals number and entry,
        // the message starts again at point b). Version 3 (K&O §VI): "message number,
        // reassembly buffers, and PLT entry"; a message keeps its number while it waits.
        let (v2, v3) = (
            procedure(MessageProcessing::V2),
            procedure(MessageProcessing::V3),
        );
        assert!(!v2.allocation_before_plt() && v3.allocation_before_plt());
        assert_eq!(v2.first_state(), MsgState::NeedNumber);
        assert_eq!(v3.first_state(), MsgState::NeedBlock);
        assert_eq!(v2.allocated_state(), MsgState::NeedNumber);
        assert_eq!(v3.allocated_state(), MsgState::NeedAll);
    }
}
