//! The [`Observer`]: what a run records, counts and watches, apart from the protocol. The
//! driver tells it what happens as typed values — a message's [`Milestone`]s, a [`Counted`]
//! event, an [`Occupancy`] sample, a [`TimeSlice`], an [`E2eEvent`], a [`LockupReport`] — and it
//! keeps them; the protocol never reads them back.

use super::{BackgroundTally, Counted, E2eEvent, LockupReport, MessageRecord, Milestone};
use super::{Journeys, Occupancy, TimeSlice, Tracked};
use crate::packet::{MsgId, Stream};
use nmc_sim::{SimDuration, SimTime};
use std::collections::{BTreeMap, VecDeque};

/// What a run records, counts and watches (the subnet's `obs`): the protocol writes its events
/// here and never reads them back (the lockup watch stops the driver, not the protocol).
pub(crate) struct Observer {
    /// The messages the subnet holds, from their offer until their RFNM comes back, by id.
    pub(crate) messages: BTreeMap<MsgId, Tracked>,
    /// Each packet's journey under adaptive routing.
    pub(crate) journeys: Journeys,
    /// The finished records of recorded messages, in the order their RFNMs came back (not kept when
    /// `retain_messages` is off).
    pub(crate) done: Vec<MessageRecord>,
    /// When each recorded message's last packet reached the destination host (it may come
    /// after the RFNM); background messages are counted in [`Observer::tally`] instead.
    pub(crate) delivered_at: BTreeMap<MsgId, SimTime>,
    /// Per (stream, destination host): the last message number delivered to that host, to
    /// check that delivery is in order; forgotten when the stream's numbers start afresh
    /// ([`Observer::sequence_afresh`]).
    pub(crate) delivered_last: BTreeMap<(Stream, u32), u64>,
    /// Messages delivered to a host after one with the same or a later number of their stream.
    pub(crate) order_violations: u64,
    /// Messages offered, delivered and answered, and the background traffic's own figures.
    pub(crate) tally: BackgroundTally,
    /// The occupancy samples taken (kept when `retain_occupancy`).
    pub(crate) occupancy: Vec<Occupancy>,
    /// How often occupancy is sampled.
    pub(crate) sample_period: SimDuration,
    /// The pair whose occupancy is sampled: (source IMP, destination IMP).
    pub(crate) watch: Option<(u32, u32)>,
    /// The stream of the measured pair.
    pub(crate) watch_stream: Stream,
    /// Keep every answered pump message and every occupancy sample (`true`), or only the
    /// running values of [`crate::analysis::StreamStats`] (`false`: memory flat in simulated
    /// time).
    pub(crate) retain_messages: bool,
    /// Keep every occupancy sample (`true`), or only the running means.
    pub(crate) retain_occupancy: bool,
    /// The running values of the messages and occupancy samples from `measure_from` on.
    pub(crate) stream_stats: crate::analysis::StreamStats,
    /// Instants at which to take a time slice, and the slices taken.
    pub(crate) slice_at: Vec<SimDuration>,
    /// The time slices taken.
    pub(crate) slices: Vec<TimeSlice>,
    /// By [`Counted::name`], so that the metrics come out in name order.
    pub(crate) counts: BTreeMap<&'static str, u64>,
    /// How long the multipacket RFNMs of the recorded (not background) messages waited at the
    /// destination IMP after they were made: count, sum and largest, in ns.
    pub(crate) rfnm_waits: (u64, u64, u64),
    /// The end-to-end event log of single-packet messages, when recorded (`record = ["e2e"]`).
    pub(crate) e2e: Option<Vec<E2eEvent>>,
    /// No progress for this long with messages outstanding is a lockup (zero: not watched).
    pub(crate) lockup_window: SimDuration,
    /// Progress count (deliveries + RFNMs) at the last change, and when it changed.
    pub(crate) progress_mark: (usize, SimTime),
    /// The lockup found, if the watch found one (the run then stops).
    pub(crate) lockup: Option<LockupReport>,
    /// When metrics start counting, and each link's busy time then.
    pub(crate) measure_from: SimDuration,
    /// Each link's busy time at `measure_from`, for the line utilisation.
    pub(crate) busy_at_measure: Vec<SimDuration>,
    /// Messages handed in from outside ([`Host::outside`](crate::model::Host::outside)) and not yet
    /// delivered: their tags.
    pub(crate) outside_tags: BTreeMap<MsgId, u64>,
    /// Messages handed in from outside whose last packet reached the destination host: (tag,
    /// when), in delivery order, until [`crate::Stepper::poll_delivered`] takes them.
    pub(crate) outside_delivered: VecDeque<(u64, SimTime)>,
    /// When each packet slot's data packet of the watched stream came to the IMP that holds it
    /// (its source IMP, or the IMP that accepted it from a line): read when it first leaves.
    watch_entered: Vec<SimTime>,
    /// Per link, the data packets of the watched stream that left on it for the first time from
    /// `measure_from` on, and their summed wait in the IMP before that transmission began, ns
    /// (issue 54: the queue the pump's packets meet at each hop).
    pub(crate) hop_waits: Vec<(u64, u64)>,
}

impl Observer {
    /// One more `what` (`count.<name>` in the metrics).
    pub(crate) fn count(&mut self, what: Counted) {
        *self.counts.entry(what.name()).or_default() += 1;
    }

    /// An occupancy sample of the measured pair, taken at `now`: counted into the running
    /// means from `measure_from` on, and kept when `retain_occupancy`.
    pub(crate) fn sampled(&mut self, now: SimTime, o: Occupancy) {
        if now.since(SimTime::ZERO) >= self.measure_from {
            self.stream_stats.add_occupancy(&o);
        }
        if self.retain_occupancy {
            self.occupancy.push(o);
        }
    }

    /// An observer that keeps every record, samples the occupancy of the pair `watch` (its
    /// stream `watch_stream`) every `sample_period`, takes no slices and watches for no
    /// lockup until the run's options say otherwise.
    pub(crate) fn new(
        sample_period: SimDuration,
        watch: Option<(u32, u32)>,
        watch_stream: Stream,
    ) -> Self {
        Observer {
            messages: BTreeMap::new(),
            journeys: Journeys::default(),
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
            watch_entered: Vec::new(),
            hop_waits: Vec::new(),
        }
    }

    /// Whether `stream`'s data packets are watched ([`Observer::hop_waits`]).
    #[inline]
    pub(crate) fn watches(&self, stream: Stream) -> bool {
        self.watch.is_some() && stream == self.watch_stream
    }

    /// A data packet of the watched stream, in slot `slot`, came to an IMP at `now`.
    pub(crate) fn watched_entered(&mut self, slot: usize, now: SimTime) {
        if self.watch_entered.len() <= slot {
            self.watch_entered.resize(slot + 1, SimTime::ZERO);
        }
        self.watch_entered[slot] = now;
    }

    /// The data packet of the watched stream in slot `slot` begins its first transmission on
    /// link `link` (of `links`) at `now`: its wait in the IMP is tallied from `measure_from` on.
    pub(crate) fn watched_left(&mut self, slot: usize, link: usize, links: usize, now: SimTime) {
        let Some(&entered) = self.watch_entered.get(slot) else {
            return;
        };
        if now.since(SimTime::ZERO) < self.measure_from {
            return;
        }
        if self.hop_waits.len() < links {
            self.hop_waits.resize(links, (0, 0));
        }
        let w = &mut self.hop_waits[link];
        w.0 += 1;
        w.1 += (now - entered).as_nanos();
    }

    /// `stream`'s message numbers start afresh at its destination (a version 3 receive block
    /// made again): its next message is checked against none delivered before.
    pub(crate) fn sequence_afresh(&mut self, stream: Stream) {
        self.delivered_last.retain(|&(s, _), _| s != stream);
    }

    /// Message `msg` reached `what` at `now`. At the destination IMP only the recorded (not
    /// background) messages' times are kept; background traffic is counted
    /// ([`Observer::tally`]).
    pub(crate) fn note(&mut self, now: SimTime, msg: MsgId, what: Milestone) {
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
