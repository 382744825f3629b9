//! Single-packet messages (RFC 632, Opderbeck, May 1974): what the driver does for them. The
//! protocol is the IMP's own ([`crate::e2e::single`]): at the source, the message launched at
//! once with no PLT entry and no REQALL, its copy kept until the RFNM and sent again on an
//! ALLOCATE; at the destination, what becomes of it, when its ALLOCATE goes and its RFNM. Here
//! the driver carries out what those steps push: the copy routed and queued on a line
//! ([`Subnet::send_single`]), the answered message recorded ([`Subnet::single_answered`]), and
//! RFC 632's table lines written ([`Subnet::log_e2e`]).

use super::{E2eEvent, Ev, Happened, Note, Side, Subnet, Tr, What};
use crate::link::Hold;
use crate::packet::{MsgId, Packet, PktKind};
use nmc_sim::{EventQueue, SimTime};

impl Subnet {
    /// Writes a line of RFC 632's table (`record = ["e2e"]`): `event` of `what`, number `num`,
    /// at the `side` of the pair `src` → `dst` where it happened.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn log_e2e(
        &mut self,
        now: SimTime,
        src: u32,
        dst: u32,
        side: Side,
        what: What,
        num: u64,
        event: Happened,
        note: Note,
    ) {
        if let Some(log) = self.obs.e2e.as_mut() {
            log.push(E2eEvent {
                t_ns: now.as_nanos(),
                src: self.imps[src as usize].name.clone(),
                dst: self.imps[dst as usize].name.clone(),
                side,
                what,
                num,
                event,
                note,
            });
        }
    }

    // ----------------------------------------------------------------- source

    /// Sends single-packet message `packet` from its source IMP `src`, the first time or
    /// `again` on an ALLOCATE ([`crate::imp::Output::SingleCopy`], pushed by
    /// [`crate::imp::Imp::launch_single`] and [`crate::imp::Imp::single_all_received`]). The
    /// buffer it occupies is the copy, kept until the RFNM ([`Hold::Copy`]).
    pub(super) fn send_single(
        &mut self,
        now: SimTime,
        src: u32,
        packet: Packet,
        again: bool,
        q: &mut EventQueue<Ev>,
    ) {
        let PktKind::Data { num, .. } = packet.kind else {
            debug_assert!(false, "a single-packet message's copy is a data packet");
            return;
        };
        let dst = packet.dst;
        let id = self.slab.insert(packet);
        let before = if again {
            None
        } else {
            self.last_single_sent.insert(src, now)
        };
        let detour = self.detours.get(&src).copied().filter(|&(_, within)| {
            within.is_none_or(|w| before.is_some_and(|t| now.since(t) <= w))
        });
        let l = match detour {
            Some((l, _)) => {
                self.detours.remove(&src);
                self.enqueue(l, id, Hold::Copy);
                l
            }
            None => match self.imps[src as usize].queue_or_park(id, Hold::Copy, dst, &self.topo) {
                Some(l) => l,
                None => {
                    // No route now (a line is down): the copy waits with the IMP's other
                    // packets for one, as `send_data` does.
                    self.routing.counts.parked += 1;
                    return;
                }
            },
        };
        self.note_visit(now, src, id);
        let note = if again { Note::Again } else { Note::None };
        self.log_e2e(
            now,
            src,
            dst,
            Side::Source,
            What::Msg,
            num,
            Happened::Sent,
            note,
        );
        self.try_send(now, l, q);
    }

    /// Single-packet message `msg`, from host `host` to IMP `dst`, was answered by its RFNM at
    /// source IMP `imp` ([`crate::imp::Output::SingleAnswered`]): the host's generator has one
    /// fewer outstanding, and the observer records its round trip.
    pub(super) fn single_answered(
        &mut self,
        now: SimTime,
        imp: u32,
        msg: MsgId,
        host: u32,
        dst: u32,
    ) {
        if let Some(g) = self.hosts[host as usize].generator.as_mut() {
            g.in_flight -= 1;
        }
        let t = self.obs.messages.remove(&msg).expect("a tracked message");
        let mut rec = t.rec;
        rec.rfnm_ns = Some(now.as_nanos());
        rec.rfnm_carried_all = Some(false);
        let rtt_ns = now.as_nanos() - rec.offered_ns;
        self.trace.emit(
            now,
            &Tr::RfnmIn {
                msg,
                all: false,
                rtt_ns,
            },
        );
        let hops = self.topo.hops(imp, dst).unwrap_or(0);
        self.answered(t.background, hops, rec);
    }
}
