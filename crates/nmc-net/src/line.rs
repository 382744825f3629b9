//! One direction of a line: a transmitter with a FIFO output queue.
//!
//! A packet is clocked out at the line's capacity (transmission time = bits / capacity, rounded
//! up to the nanosecond), then crosses the line in the propagation delay. While one packet is
//! being sent, up to `queue_limit` more wait; an arrival beyond that is dropped and counted.
//! There are no framing or overhead bits here: the IMP model adds its own.

use nmc_sim::{BitRate, SimDuration, SimTime};
use std::collections::VecDeque;

/// A packet in flight. Small and `Copy`: it travels inside the model's events and waits in a
/// channel's queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// The packet's number, unique in a run, in the order packets were offered.
    pub id: u64,
    /// The traffic source that offered it: its index in `traffic`.
    pub source: u32,
    /// The destination node.
    pub dst: u32,
    /// Its length, bits.
    pub bits: u32,
    /// The channels it has been offered to so far, the current one included.
    pub hops: u32,
    /// When its source offered it.
    pub created: SimTime,
}

/// One direction of a line: its parameters, queue, transmitter and counters.
pub struct Channel {
    /// The node the channel sends from.
    pub from: u32,
    /// The node at its far end.
    pub to: u32,
    /// The line's capacity.
    pub capacity: BitRate,
    /// The time a bit takes to cross the line.
    pub propagation: SimDuration,
    /// Packets that may wait behind the one being sent; an arrival beyond is dropped.
    pub queue_limit: u32,
    /// The packets waiting, oldest first (not the one being sent).
    pub queue: VecDeque<Packet>,
    /// The packet being clocked out, if any.
    pub sending: Option<Packet>,
    /// Packets clocked out and still crossing the line, oldest first. They arrive in the order
    /// they left (one propagation delay after), so the arrival event names only the channel
    /// and takes the oldest: the event stays 8 bytes instead of carrying a 32-byte packet
    /// through the event queue (issue 15, measured on the golden chain).
    pub in_flight: VecDeque<Packet>,
    // Counters.
    /// Packets clocked out in full.
    pub sent: u64,
    /// Packets dropped because the queue was full.
    pub dropped: u64,
    /// Total transmission time, each transmission counted in full when it starts.
    pub busy: SimDuration,
    /// The longest the queue has been, packets.
    pub max_queue: u32,
    /// The last packet length clocked out and its transmission time: most traffic has one
    /// length, and this saves a division per packet per hop.
    last_tx: (u32, SimDuration),
}

/// What happened to a packet offered to a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// The line was idle: transmission starts now and ends at the given time.
    Started(SimTime),
    /// Waiting in the queue.
    Queued,
    /// Queue full: dropped.
    Dropped,
}

impl Channel {
    /// An idle channel from node `from` to node `to`: empty queue, counters at zero.
    pub fn new(
        from: u32,
        to: u32,
        capacity: BitRate,
        propagation: SimDuration,
        queue_limit: u32,
    ) -> Self {
        Channel {
            from,
            to,
            capacity,
            propagation,
            queue_limit,
            queue: VecDeque::new(),
            sending: None,
            in_flight: VecDeque::new(),
            sent: 0,
            dropped: 0,
            busy: SimDuration::ZERO,
            max_queue: 0,
            last_tx: (0, capacity.transmission_time(nmc_sim::Bits::new(0))),
        }
    }

    fn start(&mut self, now: SimTime, p: Packet) -> SimTime {
        if p.bits != self.last_tx.0 {
            let tx = self
                .capacity
                .transmission_time(nmc_sim::Bits::new(p.bits as u64));
            self.last_tx = (p.bits, tx);
        }
        let tx = self.last_tx.1;
        self.busy += tx;
        self.sending = Some(p);
        now + tx
    }

    /// Offers a packet at `now`.
    pub fn offer(&mut self, now: SimTime, p: Packet) -> Offer {
        if self.sending.is_none() {
            return Offer::Started(self.start(now, p));
        }
        if self.queue.len() as u32 >= self.queue_limit {
            self.dropped += 1;
            return Offer::Dropped;
        }
        self.queue.push_back(p);
        self.max_queue = self.max_queue.max(self.queue.len() as u32);
        Offer::Queued
    }

    /// The transmission in progress ends at `now`: returns the packet sent and, if another was
    /// waiting, the time its own transmission ends.
    pub fn finish(&mut self, now: SimTime) -> (Packet, Option<SimTime>) {
        let done = self
            .sending
            .take()
            .expect("transmission-done event for an idle channel");
        self.sent += 1;
        let next = self.queue.pop_front().map(|p| self.start(now, p));
        (done, next)
    }
}
