//! One IMP's tables as the observers read them ([`Snapshot`], from [`Imp::snapshot`]): the
//! occupancy sample's counts, what a time slice asks of a message, the lockup report's view of
//! a destination, and what is still held at the end of a run. Read-only, and the only way the
//! observers (`model/watch.rs`, `model/slice.rs`, `model/lockup.rs`) see an IMP's protocol
//! state; the protocol's own steps never read it.

use super::HeldAt;
use crate::destination::Reply;
use crate::e2e::replies::HeldReply;
use crate::imp::Imp;
use crate::packet::{MsgId, Stream};
use crate::source::{MsgState, SourceMsg};

/// One IMP's tables, borrowed for reading ([`Imp::snapshot`]).
#[derive(Clone, Copy)]
pub(crate) struct Snapshot<'a>(&'a Imp);

impl Imp {
    /// This IMP's tables as the observers read them.
    pub(crate) fn snapshot(&self) -> Snapshot<'_> {
        Snapshot(self)
    }
}

impl<'a> Snapshot<'a> {
    // ------------------------------------------------------------ at the source

    /// Its hosts' messages in its table, by id: from the host's offer until the RFNM.
    pub(crate) fn messages(self) -> impl Iterator<Item = (MsgId, &'a SourceMsg)> {
        self.0.messages.iter().map(|(id, m)| (*id, m))
    }

    /// Message numbers of `stream` in use (K&O §II point b).
    pub(crate) fn numbers_in_use(self, stream: Stream) -> u32 {
        self.0.numbers.in_use(stream)
    }

    /// PLT entries in use (point c).
    pub(crate) fn plt_used(self) -> u32 {
        self.0.plt.used()
    }

    /// PLT entries held by REQALLs, as the version counts them (version 2: messages whose
    /// REQALL stole their entry; version 3: REQALLs out).
    pub(crate) fn plt_reqalls(self) -> u32 {
        let imp = self.0;
        let awaiting_all = || {
            imp.messages
                .values()
                .filter(|m| m.state == MsgState::AwaitAll)
                .count() as u32
        };
        imp.procedure().plt_reqalls(imp, &awaiting_all)
    }

    /// Whether a REQALL decided for message `msg` waits for a PLT entry (version 3).
    pub(crate) fn reqall_waiting(self, msg: MsgId) -> bool {
        self.0.plt_claims.reqall_waiting(msg)
    }

    /// Unused allocations from destination IMP `dst` (point h).
    pub(crate) fn allocations_held(self, dst: u32) -> u32 {
        self.0.allocs.held(dst)
    }

    /// Does a message waiting for a PLT entry hold its allocation already (version 3's order
    /// of acquisition)?
    pub(crate) fn allocation_before_plt(self) -> bool {
        self.0.procedure().allocation_before_plt()
    }

    /// Packet buffers in use.
    pub(crate) fn buffers_used(self) -> u32 {
        self.0.buf_used
    }

    // ------------------------------------------------------- at the destination

    /// Reassembly buffers reserved or filled.
    pub(crate) fn reassembly_used(self) -> u32 {
        self.0.reasm_used
    }

    /// RFNMs made here for source IMP `src`'s messages, waiting for buffers to carry an ALL
    /// (or, `reply_order = "number-1973"`, for their turn).
    pub(crate) fn rfnms_waiting_for(self, src: u32) -> u32 {
        let waits = |r: &Reply| matches!(r, Reply::Rfnm { src: s, .. } if *s == src);
        let held = |h: &HeldReply| matches!(h, HeldReply::Rfnm { src: s, .. } if *s == src);
        let queued = self.0.replies.iter().filter(|r| waits(r)).count();
        (queued + self.0.turns.held().filter(|(_, h)| held(h)).count()) as u32
    }

    /// ALLs answering source IMP `src`'s REQALLs, waiting here for buffers (or their turn).
    pub(crate) fn alls_waiting_for(self, src: u32) -> u32 {
        let waits = |r: &Reply| matches!(r, Reply::All { src: s, .. } if *s == src);
        let held = |h: &HeldReply| matches!(h, HeldReply::All { src: s } if *s == src);
        let queued = self.0.replies.iter().filter(|r| waits(r)).count();
        (queued + self.0.turns.held().filter(|(_, h)| held(h)).count()) as u32
    }

    /// Whether the RFNM of message `msg` waits here for buffers (or its turn).
    pub(crate) fn rfnm_waiting(self, msg: MsgId) -> bool {
        let waits = |r: &Reply| matches!(r, Reply::Rfnm { msg: m, .. } if *m == msg);
        let held = |h: &HeldReply| matches!(h, HeldReply::Rfnm { msg: m, .. } if *m == msg);
        self.0.replies.iter().any(waits) || self.0.turns.held().any(|(_, h)| held(h))
    }

    /// Whether message `msg` is here in reassembly or on its way out to its host.
    pub(crate) fn at_destination(self, msg: MsgId) -> bool {
        self.0.delivery.holds(msg) || self.to_hosts().any(|m| m == msg)
    }

    /// The messages whose packets wait for or cross a host interface here.
    pub(crate) fn to_hosts(self) -> impl Iterator<Item = MsgId> + 'a {
        self.0
            .ports
            .iter()
            .flat_map(|p| p.queue.iter().map(|o| o.msg))
    }

    /// What this IMP holds as a destination, for the lockup report (RFC 626): nothing when it
    /// holds no reassembly space and owes no ALLOCATE. `source` names a stream's source IMP.
    pub(crate) fn lockup_held(self, source: impl Fn(Stream) -> String) -> Option<HeldAt> {
        let i = self.0;
        if i.reasm_used == 0 && i.requests.is_empty() {
            return None;
        }
        let mut stored: Vec<(String, Vec<u64>)> = Vec::new();
        for (s, n) in i.delivery.out_of_order() {
            match stored.last_mut() {
                Some((src, v)) if *src == source(s) => v.push(n),
                _ => stored.push((source(s), vec![n])),
            }
        }
        let in_order: Vec<(String, u64)> = i
            .requests
            .keys()
            .filter(|(s, n)| *n == i.delivery.expected(*s))
            .map(|(s, n)| (source(*s), *n))
            .collect();
        Some(HeldAt {
            imp: i.name.clone(),
            reassembly_used: i.reasm_used,
            reassembly_max: i.reasm_max,
            other_requests: i.requests.len() - in_order.len(),
            stored_out_of_order: stored,
            in_order_refused: in_order,
            next_timer_ns: i.next_release_at().map(|t| t.as_nanos()),
        })
    }

    // ---------------------------------------------------------------- the whole

    /// What it still holds, one line and then the version's own tables, for the no-leak check
    /// (empty when it is idle).
    pub(crate) fn held(self) -> Vec<String> {
        let i = self.0;
        if i.idle() {
            return Vec::new();
        }
        let mut v = vec![format!(
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
        )];
        let held = i.turns.held().count();
        if held > 0 {
            v.push(format!("{}: replies held for their turn {held}", i.name));
        }
        v.extend(i.procedure().held(i));
        v
    }
}
