//! The end-to-end message procedure, the driver's side: a packet for an IMP (a message's
//! packet or a control message at its destination, a reply at its source) handed to the IMP's
//! step for it ([`crate::imp::Imp::handle_packet`]), and a message answered by its RFNM
//! recorded. The procedure itself is the IMP's (`e2e/messages.rs` at the source,
//! `e2e/replies.rs` and `e2e/single.rs` at the destination).

use super::{Ev, Subnet, Tr};
use crate::packet::{MsgId, Packet};
use nmc_sim::{EventQueue, SimTime};

impl Subnet {
    /// Packet `p` is for IMP `imp`: the IMP's step takes it, and what it pushes is carried out.
    pub(super) fn destination_receives(
        &mut self,
        now: SimTime,
        imp: u32,
        p: Packet,
        q: &mut EventQueue<Ev>,
    ) {
        self.step(now, imp, q, |i, out| i.handle_packet(now, &p, out));
    }

    /// Message `msg`, from IMP `imp` to IMP `dst`, was answered by its RFNM (carrying an ALL
    /// when `all`) ([`crate::imp::Output::Answered`]): the observer records its round trip.
    pub(super) fn message_answered(
        &mut self,
        now: SimTime,
        imp: u32,
        msg: MsgId,
        dst: u32,
        all: bool,
    ) {
        let t = self.obs.messages.remove(&msg).expect("a tracked message");
        let mut rec = t.rec;
        rec.rfnm_ns = Some(now.as_nanos());
        rec.rfnm_carried_all = Some(all);
        let rtt_ns = now.as_nanos() - rec.offered_ns;
        self.trace.emit(now, &Tr::RfnmIn { msg, all, rtt_ns });
        let hops = self.topo.hops(imp, dst).unwrap_or(0);
        self.answered(t.background, hops, rec);
    }
}
