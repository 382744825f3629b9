//! Time slices in the style of K&O Figs. 2, 7 and 8: at an instant, where each of the measured
//! pair's messages, RFNMs, REQALLs and ALLs is along the path from the source IMP to the
//! destination IMP, and which PLT entries and allocations it holds (`network.slices`).
//!
//! Positions are hops from the source IMP: an IMP at distance *k* is at *k*; a frame on a line
//! (sent, not yet acknowledged) is half way to the next IMP. A message is drawn from its
//! rearmost to its foremost packet; before it leaves it is at 0, in reassembly or on its way to
//! the host at the path's end. Labels count from message *i*, the message most recently
//! launched, as K&O's figures do.

use super::{MsgState, SliceItem, Subnet, TimeSlice};
use crate::observe::{Doing, SliceKind};
use crate::packet::{MsgId, PktId, PktKind};
use crate::source::SourceMsg;
use nmc_sim::SimTime;
use std::collections::BTreeMap;

impl Subnet {
    /// The measured pair's messages and control messages now (empty without a measured pair).
    pub(crate) fn time_slice(&self, now: SimTime) -> Option<TimeSlice> {
        let (s, d) = self.obs.watch?;
        let hops = self.topo.hops(s, d)?;
        let dist = |imp: u32| self.topo.hops(s, imp).unwrap_or(0).min(hops) as f64;
        let places = self.packet_places(&dist);
        let mut data: BTreeMap<MsgId, (f64, f64)> = BTreeMap::new();
        let mut rfnm: BTreeMap<MsgId, (f64, bool)> = BTreeMap::new();
        let mut reqall: Vec<(MsgId, f64)> = Vec::new();
        let mut alls: Vec<f64> = Vec::new();
        for &(p, at) in &places {
            let pk = self.slab.get(p);
            let ours = (pk.src == s && pk.dst == d) || (pk.src == d && pk.dst == s);
            if !ours {
                continue;
            }
            match pk.kind {
                PktKind::Data { msg, .. } => {
                    let e = data.entry(msg).or_insert((at, at));
                    *e = (e.0.min(at), e.1.max(at));
                }
                PktKind::Rfnm { msg, all, .. } => {
                    rfnm.insert(msg, (at, all));
                }
                PktKind::ReqAll { msg, .. } => reqall.push((msg, at)),
                PktKind::All { .. } => alls.push(at),
                _ => {}
            }
        }
        let (si, di) = (
            self.imps[s as usize].snapshot(),
            self.imps[d as usize].snapshot(),
        );
        let end = hops as f64;
        let tracked = &self.obs.messages;
        let pump =
            |id: &MsgId, m: &SourceMsg| m.dst == d && !tracked[id].background && m.packets > 1;
        let mine: Vec<(MsgId, &SourceMsg)> = si.messages().filter(|(id, m)| pump(id, m)).collect();
        // Message i: the most recently launched.
        let base = mine
            .iter()
            .filter(|(_, m)| m.state == MsgState::Launched)
            .map(|(id, _)| *id)
            .max()
            .or_else(|| mine.first().map(|(id, _)| *id))?;
        // Outstanding pump messages are consecutive: count them in order of offer.
        let rank = |id: MsgId| mine.iter().position(|(k, _)| *k == id).unwrap_or(0) as u64;
        let label = |id: MsgId| crate::e2e::relative(rank(id) + 1_000_000, rank(base) + 1_000_000);
        let all_first = si.allocation_before_plt();
        let mut items = Vec::new();
        for &(id, m) in &mine {
            let waiting_rfnm = di.rfnm_waiting(id);
            let in_reassembly = di.at_destination(id);
            use {Doing::*, SliceKind::*};
            let (what, from, to, plt, all, doing) = match m.state {
                MsgState::Launched => {
                    if let Some(&(a, b)) = data.get(&id) {
                        let reached = if in_reassembly { end } else { b };
                        (Msg, a, reached, true, true, InFlight)
                    } else if waiting_rfnm {
                        (Rfnm, end, end, true, false, RfnmWaitingForAll)
                    } else if let Some(&(at, carries)) = rfnm.get(&id) {
                        (Rfnm, at, at, true, carries, OnItsWayBack)
                    } else if in_reassembly {
                        (Msg, end, end, true, true, AtTheDestination)
                    } else {
                        (Msg, 0.0, 0.0, true, true, Entering)
                    }
                }
                MsgState::NeedPlt => (Msg, 0.0, 0.0, false, all_first, WaitingForPlt),
                MsgState::AwaitAll => {
                    let queued = si.reqall_waiting(id);
                    let doing = if queued {
                        ReqallWaitingForPlt
                    } else {
                        MsgWaitingForAll
                    };
                    // Version 2: its REQALL stole the message's PLT entry.
                    (Msg, 0.0, 0.0, !all_first, false, doing)
                }
                MsgState::NeedAll => (Msg, 0.0, 0.0, false, false, LookingForAll),
                MsgState::NeedNumber => (Msg, 0.0, 0.0, false, false, WaitingForNumber),
                MsgState::NeedBlock => (Msg, 0.0, 0.0, false, false, WaitingForBlock),
                MsgState::InputFirst => continue,
            };
            items.push(SliceItem {
                what,
                label: label(id),
                at_from: from,
                at_to: to,
                plt,
                all,
                doing,
            });
        }
        control_items(&mut items, reqall, alls, di.alls_waiting_for(s), end, label);
        Some(TimeSlice {
            t_ns: now.as_nanos(),
            from: self.imps[s as usize].name.clone(),
            to: self.imps[d as usize].name.clone(),
            hops,
            items,
        })
    }

    /// Where every packet in the subnet is, by packet id: queued or in a processor at an IMP
    /// (at its distance `dist`), or on a line (sent, awaiting its acknowledgement: half way).
    fn packet_places(&self, dist: &dyn Fn(u32) -> f64) -> Vec<(PktId, f64)> {
        let mut places: Vec<(PktId, f64)> = Vec::new();
        for l in self.links() {
            let at = dist(l.def.from);
            places.extend(l.ctrl.iter().chain(&l.data).map(|&(p, _)| (p, at)));
            let ahead = (dist(l.def.to) - at).clamp(-1.0, 1.0) * 0.5;
            places.extend(
                l.lch
                    .iter()
                    .filter_map(|c| c.held)
                    .map(|(p, _)| (p, at + ahead)),
            );
        }
        for (k, i) in self.imps.iter().enumerate() {
            let at = dist(k as u32);
            places.extend(i.cpu.packets().map(|p| (p, at)));
        }
        places
    }
}

/// The pair's control messages in the slice: REQALLs and ALLs on their way (`reqall`,
/// `alls`), then `alls_waiting` ALLs answering REQALLs, held at the destination (`end`) for
/// buffers; `label` names a REQALL by its message.
fn control_items(
    items: &mut Vec<SliceItem>,
    reqall: Vec<(MsgId, f64)>,
    alls: Vec<f64>,
    alls_waiting: u32,
    end: f64,
    label: impl Fn(MsgId) -> String,
) {
    for (id, at) in reqall {
        items.push(SliceItem {
            what: SliceKind::Reqall,
            label: label(id),
            at_from: at,
            at_to: at,
            plt: true,
            all: false,
            doing: Doing::OnItsWay,
        });
    }
    for at in alls {
        items.push(SliceItem {
            what: SliceKind::All,
            label: String::new(),
            at_from: at,
            at_to: at,
            plt: true,
            all: true,
            doing: Doing::OnItsWayBack,
        });
    }
    // ALLs answering REQALLs, waiting at the destination for buffers.
    for _ in 0..alls_waiting {
        items.push(SliceItem {
            what: SliceKind::All,
            label: String::new(),
            at_from: end,
            at_to: end,
            plt: true,
            all: false,
            doing: Doing::WaitingForBuffers,
        });
    }
}
