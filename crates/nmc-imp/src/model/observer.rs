//! What a run records, counts and watches, apart from the protocol: each message's timeline
//! ([`MessageRecord`]), the measured pair's occupancy sampled periodically ([`Occupancy`]), the
//! protocol's counts ([`Counted`]), and the [`Observer`] that keeps them; and what the subnet
//! still holds (undelivered messages, busy resources), for the end of a run and the no-leak
//! check.

use super::{BackgroundTally, E2eEvent, Ev, LockupReport, MsgState, Subnet, Tick, TimeSlice};
use crate::destination::Reply;
use crate::packet::{MsgId, Stream};
use nmc_sim::{EventQueue, SimDuration, SimTime};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// One message's timeline, in ns since the start (`record = ["messages"]`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct MessageRecord {
    /// The message's id.
    pub id: MsgId,
    /// The source host's name.
    pub host: String,
    /// The destination host's name.
    pub dst_host: String,
    /// Its length, data bits.
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
    /// REQALLs sent for it.
    pub reqalls: u32,
    /// Whether its RFNM carried a piggy-backed ALL (`None` until the RFNM comes back).
    pub rfnm_carried_all: Option<bool>,
    /// Times a single-packet message's copy was sent again on an ALLOCATE (RFC 632).
    pub retransmissions: u32,
}

/// Occupancy of the measured pair's resources, sampled periodically.
#[derive(Clone, Debug, Serialize)]
pub struct Occupancy {
    /// When the sample was taken, ns since the start.
    pub t_ns: u64,
    /// Message numbers in use on the measured pair's stream.
    pub message_numbers: u32,
    /// PLT entries in use at the source IMP.
    pub plt_entries: u32,
    /// Reassembly buffers reserved or filled at the destination IMP.
    pub reassembly_buffers: u32,
    /// Unused allocations the source IMP holds for the destination IMP.
    pub allocations_held: u32,
    /// Packet buffers in use at the source IMP.
    pub source_buffers: u32,
    /// The source IMP's PLT entries by holder (K&O Fig. 7): REQALLs (version 2: messages whose
    /// REQALL stole their entry), RFNMs of the pair's messages queued at the destination IMP
    /// (waiting for buffers to carry an ALL), and the rest: messages in flight and RFNMs on
    /// their way back.
    pub plt_reqalls: u32,
    /// RFNMs of the pair's messages waiting at the destination IMP for buffers to carry an ALL.
    pub plt_rfnms_waiting: u32,
    /// The rest: messages in flight and RFNMs on their way back.
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
    pub const COUNTED: [&'static str; 6] = crate::metric::OCCUPANCY_RESOURCES;

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

/// What the observer keeps of each message the subnet holds, from its offer until its RFNM
/// comes back (the protocol's side of it is the source IMP's [`crate::source::SourceMsg`]).
#[derive(Clone, Debug)]
pub struct Tracked {
    /// Other hosts' traffic (`model/background.rs`): counted, not recorded one by one.
    pub background: bool,
    /// The last packet has reached the destination host.
    pub delivered: bool,
    /// Its timeline, as recorded.
    pub rec: MessageRecord,
}

/// What befalls a message on its way, as the driver tells the observer ([`Observer::note`]):
/// K&O Fig. 1's points, each setting its time in the message's [`MessageRecord`] (Fig. 7's
/// timeline).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Milestone {
    /// Packet 1 is in the source IMP (point a).
    FirstIn,
    /// It took the number it travels with (point b).
    Numbered,
    /// A REQALL was sent for it.
    Reqall,
    /// Packet 1 left with all it needs held (point e).
    Launched,
    /// Its last packet is in the source IMP; the host may offer the next message.
    Accepted,
    /// A single-packet message's copy was sent again on an ALLOCATE (RFC 632).
    Retransmitted,
    /// Packet 1 reached the destination IMP.
    FirstArrived,
    /// The last packet reached the destination IMP (point f).
    Reassembled,
    /// The RFNM was made: packet 1 is at the destination host (point g).
    RfnmMade,
    /// The RFNM left the destination IMP, `waited_ns` after it was made.
    RfnmSent {
        /// How long it waited at the destination IMP.
        waited_ns: u64,
    },
}

/// What a run records, counts and watches ([`Subnet::obs`]): the protocol writes its events
/// here and never reads them back (the lockup watch stops the driver, not the protocol).
pub struct Observer {
    /// The messages the subnet holds, from their offer until their RFNM comes back, by id.
    pub messages: BTreeMap<MsgId, Tracked>,
    /// The finished records of recorded messages, in the order their RFNMs came back (not kept when
    /// `retain_messages` is off).
    pub done: Vec<MessageRecord>,
    /// When each recorded message's last packet reached the destination host (it may come
    /// after the RFNM); background messages are counted in [`Observer::tally`] instead.
    pub delivered_at: BTreeMap<MsgId, SimTime>,
    /// Per (source IMP, destination IMP, destination host): the last message number delivered
    /// to that host, to check that delivery is in order.
    pub delivered_last: BTreeMap<(Stream, u32), u64>,
    /// Messages delivered to a host after one with the same or a later number of their stream.
    pub order_violations: u64,
    /// Messages offered, delivered and answered, and the background traffic's own figures.
    pub tally: BackgroundTally,
    /// The occupancy samples taken (kept when `retain_occupancy`).
    pub occupancy: Vec<Occupancy>,
    /// How often occupancy is sampled.
    pub sample_period: SimDuration,
    /// The pair whose occupancy is sampled: (source IMP, destination IMP).
    pub watch: Option<(u32, u32)>,
    /// The stream of the measured pair.
    pub watch_stream: Stream,
    /// Keep every answered pump message and every occupancy sample (`true`), or only the
    /// running values of [`crate::analysis::StreamStats`] (`false`: memory flat in simulated
    /// time).
    pub retain_messages: bool,
    /// Keep every occupancy sample (`true`), or only the running means.
    pub retain_occupancy: bool,
    /// The running values of the messages and occupancy samples from `measure_from` on.
    pub stream_stats: crate::analysis::StreamStats,
    /// Instants at which to take a time slice, and the slices taken.
    pub slice_at: Vec<SimDuration>,
    /// The time slices taken.
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
    /// The lockup found, if the watch found one (the run then stops).
    pub lockup: Option<LockupReport>,
    /// When metrics start counting, and each link's busy time then.
    pub measure_from: SimDuration,
    /// Each link's busy time at `measure_from`, for the line utilisation.
    pub busy_at_measure: Vec<SimDuration>,
    /// Messages handed in from outside ([`Host::outside`](super::Host::outside)) and not yet
    /// delivered: their tags.
    pub outside_tags: BTreeMap<MsgId, u64>,
    /// Messages handed in from outside whose last packet reached the destination host: (tag,
    /// when), in delivery order, until [`crate::Stepper::poll_delivered`] takes them.
    pub outside_delivered: VecDeque<(u64, SimTime)>,
}

impl Observer {
    /// An observer that keeps every record, samples the occupancy of the pair `watch` (its
    /// stream `watch_stream`) every `sample_period`, takes no slices and watches for no
    /// lockup until the run's options say otherwise.
    pub fn new(
        sample_period: SimDuration,
        watch: Option<(u32, u32)>,
        watch_stream: Stream,
    ) -> Self {
        Observer {
            messages: BTreeMap::new(),
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
        }
    }

    /// Message `msg` reached `what` at `now`. At the destination IMP only the recorded (not
    /// background) messages' times are kept; background traffic is counted
    /// ([`Observer::tally`]).
    pub fn note(&mut self, now: SimTime, msg: MsgId, what: Milestone) {
        let Some(m) = self.messages.get_mut(&msg) else {
            return;
        };
        let (r, t) = (&mut m.rec, Some(now.as_nanos()));
        match what {
            Milestone::FirstIn => r.first_in_ns = t,
            Milestone::Numbered => r.numbered_ns = t,
            Milestone::Reqall => r.reqalls += 1,
            Milestone::Launched => r.launched_ns = t,
            Milestone::Accepted => r.accepted_ns = t,
            Milestone::Retransmitted => r.retransmissions += 1,
            _ if m.background => {}
            Milestone::FirstArrived => r.first_arrived_ns = t,
            Milestone::Reassembled => r.reassembled_ns = t,
            Milestone::RfnmMade => r.rfnm_made_ns = t,
            Milestone::RfnmSent { waited_ns } => {
                r.rfnm_sent_ns = t;
                let w = &mut self.rfnm_waits;
                *w = (w.0 + 1, w.1 + waited_ns, w.2.max(waited_ns));
            }
        }
    }
}

impl Subnet {
    pub(super) fn count(&mut self, what: Counted) {
        *self.obs.counts.entry(what.name()).or_default() += 1;
    }

    pub(super) fn sample(&mut self, now: SimTime, q: &mut EventQueue<Ev>) {
        if let Some((s, d)) = self.obs.watch {
            let si = &self.imps[s as usize];
            let di = &self.imps[d as usize];
            let awaiting_all = || {
                si.messages
                    .values()
                    .filter(|m| m.state == MsgState::AwaitAll)
                    .count() as u32
            };
            let plt_reqalls = self
                .procedure
                .plt_reqalls(&self.imps[s as usize], &awaiting_all);
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
        q.schedule(now + self.obs.sample_period, Ev::Observe(Tick::Sample));
    }

    /// Messages offered and not yet delivered to their host, counted where they are: in the
    /// source procedure or the subnet (known to the source, not delivered), or on their way
    /// to the host after the RFNM came back.
    pub fn undelivered(&self) -> u64 {
        let known = self.obs.messages.values().filter(|m| !m.delivered).count();
        let mut leaving: BTreeSet<MsgId> = BTreeSet::new();
        for i in &self.imps {
            for p in &i.ports {
                leaving.extend(
                    p.queue
                        .iter()
                        .map(|o| o.msg)
                        .filter(|m| !self.obs.messages.contains_key(m)),
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
        for l in self.links() {
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
        if !self.obs.messages.is_empty() {
            v.push(format!("{} messages unanswered", self.obs.messages.len()));
        }
        v
    }

    /// True when no resource anywhere is held (for the no-leak check).
    pub fn all_idle(&self) -> bool {
        self.imps.iter().all(|i| i.idle())
            && self
                .links()
                .all(|l| l.channels_busy() == 0 && l.data.is_empty() && l.ctrl.is_empty())
            && self.obs.messages.is_empty()
            && self.slab.live() == 0
    }
}

impl Subnet {
    /// An observer's tick ([`Tick`]): what it records is read now; the network is not touched.
    pub(super) fn observe(&mut self, now: SimTime, tick: Tick, q: &mut EventQueue<Ev>) {
        match tick {
            Tick::Sample => self.sample(now, q),
            Tick::Watchdog => self.watchdog(now, q),
            Tick::MeasureStart => {
                self.obs.busy_at_measure = self.links().map(|l| l.busy_time).collect();
            }
            Tick::Slice => {
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

    fn tracked(background: bool) -> Tracked {
        Tracked {
            background,
            delivered: false,
            rec: MessageRecord::default(),
        }
    }

    /// K&O Fig. 7's timeline is kept for recorded messages; of background traffic only what
    /// its tally needs at the source (its RFNM wait is not a recorded message's).
    #[test]
    fn milestones_set_the_timeline_and_the_rfnm_wait() {
        let mut o = Observer::new(SimDuration::from_millis(100), None, 0);
        o.messages.insert(1, tracked(false));
        o.messages.insert(2, tracked(true));
        let at = |ms| SimTime::ZERO + SimDuration::from_millis(ms);
        for m in [1, 2] {
            o.note(at(1), m, Milestone::FirstIn);
            o.note(at(2), m, Milestone::Launched);
            o.note(at(3), m, Milestone::Reassembled);
            o.note(at(4), m, Milestone::RfnmSent { waited_ns: 700 });
        }
        o.note(at(5), 9, Milestone::Launched); // no longer held: nothing to set
        let (r, b) = (&o.messages[&1].rec, &o.messages[&2].rec);
        assert_eq!(
            (r.first_in_ns, r.launched_ns),
            (Some(1_000_000), Some(2_000_000))
        );
        assert_eq!(
            (r.reassembled_ns, r.rfnm_sent_ns),
            (Some(3_000_000), Some(4_000_000))
        );
        assert_eq!(
            (b.first_in_ns, b.launched_ns),
            (Some(1_000_000), Some(2_000_000))
        );
        assert_eq!((b.reassembled_ns, b.rfnm_sent_ns), (None, None));
        assert_eq!(o.rfnm_waits, (1, 700, 700));
    }
}
