//! An IMP's interface to one of its lines, with the IMP-to-IMP protocol: the outgoing
//! direction (its queues, logical channels and retransmission timers, the acknowledgements it
//! owes the neighbour) and, for the incoming direction, the sequence bit last accepted on each
//! channel. The IMP that sends on the direction holds it (`Imp::lines`).
//!
//! * Frames: packets (which must be acknowledged), acknowledgement-only frames, and routing
//!   messages. Every frame carries the acknowledgements pending for the reverse direction
//!   (piggy-backed); when nothing else is to be sent, an acknowledgement goes alone. A routing
//!   frame's content stays in a side table ([`crate::routing::Routing`]); the frame carries its
//!   id (`body`, [`crate::routing::NO_BODY`] with static routes), so [`Frame`] stays `Copy`.
//! * Logical channels (K&O ref. \[6\]): a packet is sent on a free channel and holds it, and its
//!   buffer in the sending IMP, until acknowledged. Each channel alternates a one-bit sequence
//!   number, so the receiver recognises a retransmitted duplicate, acknowledges it again and
//!   discards it.
//! * A packet not acknowledged within 125 ms is sent again (K&O §III): after a line error,
//!   after a lost acknowledgement, or after the neighbour rejected it for lack of space.
//! * Queues: control messages ahead of data when `control_priority` (a choice), data in the
//!   output queue of at most `output_queue_max` packets (K&O §III).

use crate::packet::PktId;
use crate::params::RoutingPattern;
use crate::timer::Deadline;
use crate::topology::LinkDef;
use nmc_sim::{SimDuration, SimTime, Stream};
use std::collections::VecDeque;

/// Who owns the buffer a sent packet keeps in the sending IMP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hold {
    /// A packet entered from a host at this IMP.
    Source,
    /// A store-and-forward packet.
    Transit,
    /// A subnet control message.
    Control,
    /// A control message on the regular queue, behind the data, as the 1973 program queued
    /// every packet that is neither a reply nor a priority transmission (BBN 3050 p. 66): a
    /// give-back under `gvb_queue = "regular-1973"`, a REQALL where it passes under
    /// `reqall_queue = "regular-1973"`. Like [`Hold::Control`] it holds no buffer.
    Regular,
    /// A single-packet message, whose buffer the source IMP keeps as its copy until the RFNM
    /// (RFC 632): the acknowledgement frees nothing.
    Copy,
    /// A source IMP's REQALL sent as the 1973 program sent it, through the task like a host
    /// packet (`reqall_path = "host-packet-1973"`): in the data queue, in packet 1's buffer,
    /// so the acknowledgement frees nothing but tells the message it may go on.
    Request,
}

/// One logical channel of a line's outgoing direction (K&O ref. \[6\]): the packet it holds until
/// acknowledged, its one-bit sequence number, and its retransmission timer.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LogicalChannel {
    /// The packet on the channel, unacknowledged, and what holds its buffer; `None` when the
    /// channel is free.
    pub(crate) held: Option<(PktId, Hold)>,
    /// The channel's one-bit sequence number: flipped for each new packet, kept for a
    /// retransmission.
    pub(crate) bit: bool,
    /// Bumped on every send and acknowledgement (and when the line goes down), so stale
    /// timers are ignored: the generation of the retransmission timer's arming.
    epoch: u32,
    /// The retransmission timer: when the packet on the channel is sent again if no
    /// acknowledgement has come (K&O §III), while it is armed.
    retransmit: Option<Deadline>,
}

impl LogicalChannel {
    /// A new generation: the packet on the channel was sent (again) or acknowledged, or the
    /// line went down. Any retransmission timer is disarmed; a wake-up queued for it is stale.
    pub(crate) fn next_generation(&mut self) {
        self.epoch += 1;
        self.retransmit = None;
    }

    /// The retransmission timer, if armed.
    pub(crate) fn retransmit_deadline(&self) -> Option<Deadline> {
        self.retransmit
    }
}

/// What a frame on a line carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrameKind {
    /// A packet, which must be acknowledged.
    Packet {
        /// The packet (its id in the [`crate::packet::Slab`]).
        pkt: PktId,
        /// The logical channel it is sent on.
        lch: u8,
        /// The channel's sequence bit for it.
        bit: bool,
    },
    /// Acknowledgements alone: nothing else was to be sent.
    AckOnly,
    /// A routing message; `fresh` when its serial number is new to the receiver (the first
    /// the sender sends after recomputing its table, `hop/processing.rs`).
    Routing {
        /// Its content's id in the side table ([`crate::routing::Routing`];
        /// [`crate::routing::NO_BODY`] with static routes).
        body: u32,
        /// Its serial number is new to the receiver.
        fresh: bool,
    },
}

/// The logical channels an acknowledgement mask names, lowest first: one or two of eight, most
/// often, so a frame's acknowledgements are walked bit by bit rather than over every channel.
#[inline]
pub(crate) fn channels_in(mask: u8) -> impl Iterator<Item = u8> {
    let mut left = mask;
    std::iter::from_fn(move || {
        if left == 0 {
            return None;
        }
        let lch = left.trailing_zeros() as u8;
        left &= left - 1;
        Some(lch)
    })
}

/// One frame on a line: what it carries, the acknowledgements piggy-backed for the reverse
/// direction, and whether a line error hit it.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    /// What it carries.
    pub(crate) kind: FrameKind,
    /// Acknowledgements carried for the reverse direction: channel mask and their bits.
    pub(crate) ack_mask: u8,
    /// The sequence bits acknowledged, one per channel set in `ack_mask`.
    pub(crate) ack_bits: u8,
    /// A line error hit it: the receiver's checksum fails and the frame is lost.
    pub(crate) corrupted: bool,
}

/// What [`Link::next_frame`] chose to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NextFrame {
    /// A routing message.
    Routing,
    /// A packet on a free logical channel, or one sent again.
    Packet {
        /// The packet (its id in the [`crate::packet::Slab`]).
        pkt: PktId,
        /// The logical channel it goes on.
        lch: u8,
        /// The channel's sequence bit for it.
        bit: bool,
        /// Sent again after its timeout, on the same channel with the same bit.
        retransmission: bool,
    },
    /// The pending acknowledgements alone.
    AckOnly,
}

/// The line-load rule for routing messages (listing p. 235, `RMVFRQ`; `params.rs` gives each
/// figure's source): of every `opportunities` send opportunities, one fewer is used for each
/// full `busy_unit` per `period` the line was busy during the last ones
/// ([`Link::routing_opportunity`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RoutingLoad {
    /// Send opportunities counted together (5: the profile's `routing_opportunities`).
    pub(crate) opportunities: u32,
    /// One fewer is used for each full unit of this much busy time per `period` (132 ms: the
    /// profile's `routing_busy_unit`).
    pub(crate) busy_unit: SimDuration,
    /// The routing period the unit is given for (640 ms: the profile's `routing_period`).
    pub(crate) period: SimDuration,
    /// Which opportunities are used, and when the load is counted (the profile's
    /// `routing_pattern`).
    pub(crate) pattern: RoutingPattern,
}

/// BBN 3050 p. 236 `RMVTAB`: the routing opportunities a line uses when it may use 1–5 of them,
/// bit 0 the slow tick's and bits 4, 3, 2, 1 the four after it (p. 164 `RSTO4`).
const RMVTAB: [u32; 5] = [0o1, 0o5, 0o15, 0o33, 0o37];

/// A line goes down: the channels of its `sending` side (one IMP's) whose packet the IMP at
/// the far end had already accepted, as a mask (bit `lch`), read from the far end's receiving
/// side `far` (the far IMP's side of the other direction, which holds the sequence bit it last
/// accepted on each channel): a packet is accepted if its bit is the last accepted there.
/// **Our choice** (K&O describe none of this; `crate::routing`, "Lines going down and coming
/// up"): such a packet counts as acknowledged, since the line's logical channels are reset at
/// both ends as the line protocol resynchronises, so no packet is delivered twice; the others
/// go back to their IMP to be routed again. (The 1974 IMP could create duplicates here, which
/// the destination discarded; we leave that out.)
pub(crate) fn accepted_at_line_down(sending: &Link, far: &Link) -> u8 {
    let mut mask = 0;
    for (lch, c) in sending.lch.iter().enumerate() {
        if c.held.is_some() && far.in_last[lch] == Some(c.bit) {
            mask |= 1 << lch;
        }
    }
    mask
}

/// An IMP's interface to one direction of a line (K&O §III): its queues, logical channels and
/// retransmission timers, the acknowledgements owed for the reverse direction, the sequence bits
/// last accepted coming in, and its counters (of frames sent, and of frames coming in).
pub(crate) struct Link {
    /// The direction: its two IMPs, capacity and propagation delay.
    pub(crate) def: LinkDef,
    /// Its index among the network's links (topology order).
    pub(crate) id: u32,
    /// The index of the line's other direction among the network's links.
    pub(crate) reverse: u32,
    /// A frame is being transmitted now.
    pub(crate) busy: bool,
    /// The IMP's output routine is between the last frame and the next
    /// ([`crate::imp::Imp::frame_sent`]; the profile's `output_gap_316`/`_516`): no frame
    /// starts until its wake-up ([`crate::imp::TimerId::OutputReady`]).
    pub(crate) gap: bool,
    /// Control messages queued ahead of data (when `control_priority`), each with what holds its
    /// buffer.
    pub(crate) ctrl: VecDeque<(PktId, Hold)>,
    /// The output queue: data packets (and control messages without `control_priority`), each with
    /// what holds its buffer.
    pub(crate) data: VecDeque<(PktId, Hold)>,
    /// Logical channels whose packet timed out and waits to be sent again, in the order they timed
    /// out.
    pub(crate) retx: VecDeque<u8>,
    /// A routing message goes first in the next frame.
    pub(crate) routing_due: bool,
    /// A null packet is due before the routing message (`routing_null = "before-1973"`).
    pub(crate) null_due: bool,
    /// Routing-message frequency by line load ([`Link::routing_opportunity`]): the
    /// opportunity within the 5.
    pub(crate) rf_slot: u32,
    /// How many of each `routing_opportunities` (5) are used, set by the line's load.
    pub(crate) rf_sends: u32,
    /// The line's busy time when its load was last counted.
    pub(crate) rf_busy_mark: SimDuration,
    /// The sender's routing generation last sent on this line.
    pub(crate) routing_sent: Option<u64>,
    /// With `routing_tables = "slow-tick-1973"`: the number of the last table this IMP took
    /// from the neighbour on this line (BBN 3050 p. 225 `RSTSNI`: a table with this number is
    /// ignored).
    pub(crate) table_taken: Option<u32>,
    /// Its logical channels (the profile's `logical_channels`, 8).
    pub(crate) lch: Vec<LogicalChannel>,
    /// Packets this IMP has taken in for this line and not yet queued on it (they wait for
    /// the processor; they count toward the output-queue limit).
    pub(crate) incoming: u32,
    /// The receiving side of the same line, held here with the sending side: the sequence bit
    /// last accepted on each logical channel of the reverse direction (frames coming in).
    pub(crate) in_last: [Option<bool>; 8],
    /// Acknowledgements this link will carry (for frames that arrived over the reverse link).
    pub(crate) ack_mask: u8,
    /// Their sequence bits, one per channel set in `ack_mask`.
    pub(crate) ack_bits: u8,
    /// The random stream that draws its line errors. Boxed: a ChaCha stream is over half a
    /// link's size, and is read only when the bit error rate is not zero.
    pub(crate) errors: Box<Stream>,
    // Counters.
    /// Time spent transmitting frames, in all.
    pub(crate) busy_time: SimDuration,
    /// Frames sent.
    pub(crate) frames: u64,
    /// Packet frames sent, retransmissions included.
    pub(crate) data_frames: u64,
    /// Packets sent again after their timeout.
    pub(crate) retransmissions: u64,
    /// Frames coming in over the reverse direction, counted by this IMP as it takes them
    /// ([`crate::imp::Imp::handle_frame`]): packets accepted (delivered packet-hops, `nmc
    /// bench`), ...
    pub(crate) in_accepted: u64,
    /// ... frames hit by a line error, ...
    pub(crate) in_corrupted: u64,
    /// ... packets refused (K&O §III), ...
    pub(crate) in_rejected: u64,
    /// ... and packets already accepted, discarded as duplicates.
    pub(crate) in_duplicates: u64,
    /// The longest the data queue has been, packets.
    pub(crate) max_queue: u32,
}

impl Link {
    /// A direction `def`, link `id` whose other direction is link `reverse`, with `channels`
    /// logical channels, all free; `errors` draws its line errors.
    pub(crate) fn new(def: LinkDef, id: u32, reverse: u32, channels: u8, errors: Stream) -> Self {
        Link {
            def,
            id,
            reverse,
            busy: false,
            gap: false,
            ctrl: VecDeque::new(),
            data: VecDeque::with_capacity(16),
            retx: VecDeque::new(),
            routing_due: false,
            null_due: false,
            rf_slot: 0,
            rf_sends: 1,
            rf_busy_mark: SimDuration::ZERO,
            routing_sent: None,
            table_taken: None,
            lch: vec![LogicalChannel::default(); channels as usize],
            incoming: 0,
            in_last: [None; 8],
            ack_mask: 0,
            ack_bits: 0,
            errors: Box::new(errors),
            busy_time: SimDuration::ZERO,
            frames: 0,
            data_frames: 0,
            retransmissions: 0,
            in_accepted: 0,
            in_corrupted: 0,
            in_rejected: 0,
            in_duplicates: 0,
            max_queue: 0,
        }
    }

    /// No frame is on the line and the output routine is not between two: the next may start.
    #[inline(always)]
    pub(crate) fn free(&self) -> bool {
        !self.busy && !self.gap
    }

    /// Data packets queued or on their way into the queue (the output-queue limit counts both).
    pub(crate) fn queue_len(&self) -> u32 {
        self.data.len() as u32 + self.incoming
    }

    /// The first logical channel that holds no packet, if any.
    pub(crate) fn free_channel(&self) -> Option<u8> {
        self.lch
            .iter()
            .position(|c| c.held.is_none())
            .map(|i| i as u8)
    }

    /// Channels holding unacknowledged packets.
    pub(crate) fn channels_busy(&self) -> usize {
        self.lch.iter().filter(|c| c.held.is_some()).count()
    }

    /// The 1973 program's count of the line's acknowledgment channels in use: every packet
    /// the task has routed to it, queued, on the line or unacknowledged (BBN 3050 pp. 65–66
    /// `GOTCHN`: a packet takes its channel at task time; p. 94 frees it at the
    /// acknowledgement; p. 176 `JED` counts them).
    pub(crate) fn channels_in_use(&self) -> u32 {
        (self.ctrl.len() + self.data.len() + self.channels_busy()) as u32
    }

    /// Takes the pending acknowledgements for a frame about to be sent.
    pub(crate) fn take_acks(&mut self) -> (u8, u8) {
        let acks = (self.ack_mask, self.ack_bits);
        self.ack_mask = 0;
        self.ack_bits = 0;
        acks
    }

    /// A routing send opportunity on this line, one of slots `slot` apart: whether it is
    /// used, by the line's load (listing p. 235, `RMVFRQ`): of every `rule.opportunities`, one
    /// fewer is used for each full `rule.busy_unit` (per `rule.period`) the line was busy
    /// during the last ones; at least one is used. The load is counted at the first of each
    /// `rule.opportunities`; the used ones are spread evenly over them.
    ///
    /// `slow`: whether this is the slow tick's opportunity, when the line counts its
    /// opportunities on its IMP's clock (`None`: the last of each `rule.opportunities` is taken
    /// for it). With `rule.pattern` [`RoutingPattern::Rmvtab1973`] the load is counted there and
    /// the opportunities used are the listing's table's ([`RMVTAB`]).
    pub(crate) fn routing_opportunity(
        &mut self,
        slot: SimDuration,
        rule: RoutingLoad,
        slow: Option<bool>,
    ) -> bool {
        let opps = rule.opportunities;
        let count = match rule.pattern {
            RoutingPattern::Even => self.rf_slot == 0,
            RoutingPattern::Rmvtab1973 => {
                // p. 164: the lines' bit pointers are synced with the slow tick's (bit 0).
                let at_slow = slow.unwrap_or(self.rf_slot == opps - 1);
                if at_slow {
                    self.rf_slot = opps - 1;
                }
                at_slow
            }
        };
        if count {
            let busy = (self.busy_time - self.rf_busy_mark).as_nanos() as u128;
            // The unit scales with the span counted (slot × opportunities).
            let unit = rule.busy_unit.as_nanos() as u128 * (slot.as_nanos() as u128 * opps as u128)
                / rule.period.as_nanos().max(1) as u128;
            let drop = (busy / unit.max(1)).min(opps as u128 - 1) as u32;
            self.rf_sends = opps - drop;
            self.rf_busy_mark = self.busy_time;
        }
        let (k, n) = (self.rf_slot, self.rf_sends);
        self.rf_slot = (self.rf_slot + 1) % opps;
        match rule.pattern {
            RoutingPattern::Even => (k + 1) * n / opps > k * n / opps,
            // p. 235 `RMVFRQ`: `RUTFRQ` = `RMVTAB`[4 - whole 132 ms], at least entry 0.
            RoutingPattern::Rmvtab1973 => {
                let bits = RMVTAB[(n as usize).clamp(1, RMVTAB.len()) - 1];
                (bits >> (opps - 1 - k)) & 1 == 1
            }
        }
    }

    /// The line went down (its sending side): the line protocol starts afresh when it comes
    /// back (every channel's sequence bit cleared and its timer disarmed, no acknowledgement
    /// owed, no retransmission or routing message due), and the packets on its queues are
    /// taken off, control messages first, each with what holds its buffer.
    pub(crate) fn reset_at_line_down(&mut self) -> Vec<(PktId, Hold)> {
        for c in &mut self.lch {
            c.bit = false;
            c.next_generation();
        }
        self.ack_mask = 0;
        self.ack_bits = 0;
        self.retx.clear();
        self.routing_due = false;
        self.null_due = false;
        self.ctrl.drain(..).chain(self.data.drain(..)).collect()
    }

    /// Is there anything [`Link::next_frame`] could send: a routing message due, a
    /// retransmission, a queued packet or acknowledgements owed? (`false`: it would send
    /// nothing.)
    #[inline]
    pub(crate) fn has_work(&self) -> bool {
        self.routing_due
            || self.null_due
            || self.ack_mask != 0
            || !self.retx.is_empty()
            || !self.ctrl.is_empty()
            || !self.data.is_empty()
    }

    /// What goes on the line next, if the line is free ([`crate::imp::Imp::poll_transmit`]
    /// checks that): a routing message when one is due, else a retransmission, else a queued
    /// packet on a free logical channel (control messages first), else the pending
    /// acknowledgements alone. A packet
    /// frame takes its channel and flips the channel's sequence bit; a retransmission reuses
    /// both (K&O §III; RFC 632).
    #[inline]
    pub(crate) fn next_frame(&mut self) -> Option<NextFrame> {
        // The one gate: a driver that asks `has_work` before calling in sees the same answer.
        if !self.has_work() {
            return None;
        }
        if self.null_due {
            self.null_due = false;
            return Some(NextFrame::AckOnly);
        }
        if self.routing_due {
            self.routing_due = false;
            return Some(NextFrame::Routing);
        }
        if let Some(lch) = self.retx.pop_front() {
            let c = &mut self.lch[lch as usize];
            let (pkt, _) = c.held.expect("retransmission of a held packet");
            c.next_generation();
            self.retransmissions += 1;
            return Some(NextFrame::Packet {
                pkt,
                lch,
                bit: c.bit,
                retransmission: true,
            });
        }
        if let Some(lch) = self
            .free_channel()
            .filter(|_| !self.ctrl.is_empty() || !self.data.is_empty())
        {
            let (pkt, hold) = self
                .ctrl
                .pop_front()
                .or_else(|| self.data.pop_front())
                .expect("non-empty");
            let c = &mut self.lch[lch as usize];
            c.bit = !c.bit;
            c.next_generation();
            c.held = Some((pkt, hold));
            return Some(NextFrame::Packet {
                pkt,
                lch,
                bit: c.bit,
                retransmission: false,
            });
        }
        (self.ack_mask != 0).then_some(NextFrame::AckOnly)
    }

    /// An acknowledgement for channel `lch` with sequence bit `bit` came back: the packet it
    /// held, if the acknowledgement is for the packet on it now (an old one is ignored).
    pub(crate) fn acknowledge(&mut self, lch: u8, bit: bool) -> Option<(PktId, Hold)> {
        let c = self.lch.get_mut(lch as usize)?;
        if c.bit != bit {
            return None;
        }
        let held = c.held.take()?;
        c.next_generation();
        if !self.retx.is_empty() {
            self.retx.retain(|&x| x != lch);
        }
        Some(held)
    }

    /// The frame of the packet on channel `lch` has left at `now`: its retransmission timer
    /// runs out `timeout` plus the line's round-trip propagation later (K&O §III: "retransmitted
    /// if no IMP-to-IMP acknowledgment has been received after a 125 ms timeout"; the
    /// propagation is nmc's choice, `params.rs`). Returns the deadline, for which the driver
    /// queues one wake-up. A channel whose packet was acknowledged while its frame was still
    /// going out has nothing to time: its deadline is not kept, and the wake-up will be stale.
    pub(crate) fn arm_retransmission(
        &mut self,
        lch: u8,
        now: SimTime,
        timeout: SimDuration,
    ) -> Deadline {
        let at = now + timeout + self.def.propagation * 2;
        let c = &mut self.lch[lch as usize];
        let d = Deadline {
            at,
            generation: c.epoch,
        };
        if c.held.is_some() {
            c.retransmit = Some(d);
        }
        d
    }

    #[cfg(test)]
    /// The earliest deadline among the channels' retransmission timers.
    pub(crate) fn poll_at(&self) -> Option<SimTime> {
        self.lch
            .iter()
            .filter_map(|c| c.retransmit.map(|d| d.at))
            .min()
    }

    /// A wake-up at `now` of channel `lch`'s retransmission timer, armed at generation
    /// `epoch`: true if the timer ran out with the packet on the channel still unacknowledged,
    /// which now waits to be sent again. One that comes before the deadline, or for an arming
    /// since disarmed (an acknowledgement, a new sending), does nothing.
    pub(crate) fn retransmit(&mut self, lch: u8, epoch: u32, now: SimTime) -> bool {
        let c = &mut self.lch[lch as usize];
        if !c.retransmit.is_some_and(|d| d.expired(epoch, now)) {
            return false;
        }
        c.retransmit = None;
        let due = c.held.is_some() && !self.retx.contains(&lch);
        if due {
            self.retx.push_back(lch);
        }
        due
    }

    /// Receiving side: is a packet coming in on channel `lch` with bit `bit` a retransmission
    /// of one already accepted? (Then it is acknowledged again and discarded.)
    pub(crate) fn is_duplicate(&self, lch: u8, bit: bool) -> bool {
        self.in_last[lch as usize] == Some(bit)
    }

    /// An acknowledgement is owed for channel `lch` with sequence bit `bit`: it goes with the next
    /// frame on this link.
    pub(crate) fn add_ack(&mut self, lch: u8, bit: bool) {
        self.ack_mask |= 1 << lch;
        if bit {
            self.ack_bits |= 1 << lch;
        } else {
            self.ack_bits &= !(1 << lch);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nmc_sim::{BitRate, RngStreams};

    /// An acknowledgement mask names its channels lowest first, and only those.
    #[test]
    fn an_ack_mask_names_its_channels() {
        assert_eq!(channels_in(0b1010_0001).collect::<Vec<_>>(), [0, 5, 7]);
        assert_eq!(channels_in(0xff).count(), 8);
        assert_eq!(channels_in(0).next(), None);
    }

    fn line(channels: u8) -> Link {
        let def = LinkDef {
            from: 0,
            to: 1,
            capacity: BitRate::from_kbps(50),
            propagation: SimDuration::from_millis(1),
        };
        Link::new(def, 0, 1, channels, RngStreams::new(1).stream(0))
    }

    fn t(ms: u64) -> SimTime {
        SimTime::from_nanos(ms * 1_000_000)
    }

    /// The 50 kbit/s line's rule (`params.rs`: 5 opportunities 128 ms apart, one fewer per
    /// 132 ms busy of 640), with `pattern`.
    fn rule(pattern: RoutingPattern) -> (RoutingLoad, SimDuration) {
        let rule = RoutingLoad {
            opportunities: 5,
            busy_unit: SimDuration::from_millis(132),
            period: SimDuration::from_millis(640),
            pattern,
        };
        (rule, SimDuration::from_millis(128))
    }

    /// Listing p. 235 (`RMVFRQ`) and RFC 619 p. 5 on a 50 kbit/s line, opportunities 128 ms
    /// apart: an idle line uses all 5 of them (a routing message every 128 ms); a line busy the
    /// whole time drops one per full 132 ms of its 640, 4 of 5, and uses one (every 640 ms);
    /// busy 300 ms of the 640, it drops 2 and uses 3.
    #[test]
    fn routing_opportunities_follow_the_line_load() {
        let (rule, slot) = rule(RoutingPattern::Even);
        let mut l = line(8);
        let used = |l: &mut Link| {
            (0..5)
                .filter(|_| l.routing_opportunity(slot, rule, None))
                .count()
        };
        assert_eq!(used(&mut l), 5, "idle");
        l.busy_time += SimDuration::from_millis(640);
        assert_eq!(used(&mut l), 1, "busy throughout");
        l.busy_time += SimDuration::from_millis(300);
        assert_eq!(used(&mut l), 3, "busy 300 ms of 640");
    }

    /// BBN 3050 p. 235 `RMVFRQ`, p. 236 `RMVTAB`, p. 164 `RSTO4` (`routing_pattern =
    /// "rmvtab-1973"`): the load is counted at the slow tick's opportunity, which every pattern
    /// uses (bit 0); of the four after it (bits 4, 3, 2, 1) a line busy one full 132 ms of its
    /// 640 skips the third (11011), two the first and fourth (01101), three all but the
    /// second (00101), four or more all four (00001). An idle line uses all five.
    #[test]
    fn a_loaded_line_skips_the_opportunities_the_listings_table_names() {
        let (rule, slot) = rule(RoutingPattern::Rmvtab1973);
        let mut l = line(8);
        // A cycle: the slow tick's opportunity, then the four after it.
        let cycle = |l: &mut Link| -> Vec<bool> {
            (0..5)
                .map(|k| l.routing_opportunity(slot, rule, Some(k == 0)))
                .collect()
        };
        assert_eq!(cycle(&mut l), [true; 5], "idle");
        for (busy_ms, used) in [
            (140, [true, true, true, false, true]),
            (270, [true, false, true, true, false]),
            (400, [true, false, false, true, false]),
            (540, [true, false, false, false, false]),
            (0, [true; 5]),
        ] {
            l.busy_time += SimDuration::from_millis(busy_ms);
            assert_eq!(cycle(&mut l), used, "busy {busy_ms} ms of 640");
        }
    }

    /// A line going down (our choice, `crate::routing`): a packet on a channel counts as
    /// accepted when the far end's last accepted sequence bit there is the packet's; a free
    /// channel, a bit not yet accepted, or nothing accepted yet does not.
    #[test]
    fn the_far_end_accepted_the_packets_whose_bit_it_last_took() {
        let (mut sending, mut far) = (line(8), line(8));
        for (lch, bit) in [(0, true), (1, false), (2, true), (3, false)] {
            sending.lch[lch].held = Some((lch as PktId, Hold::Transit));
            sending.lch[lch].bit = bit;
        }
        far.in_last[..5].copy_from_slice(&[Some(true), Some(true), Some(true), None, Some(true)]);
        assert_eq!(accepted_at_line_down(&sending, &far), 0b0101);
        far.in_last = [None; 8];
        assert_eq!(
            accepted_at_line_down(&sending, &far),
            0,
            "nothing accepted yet"
        );
    }

    /// K&O §III: 125 ms (`retransmit_timeout`).
    const TIMEOUT: SimDuration = SimDuration::from_millis(125);

    fn sent(f: Option<NextFrame>) -> (PktId, u8, bool, bool) {
        match f {
            Some(NextFrame::Packet {
                pkt,
                lch,
                bit,
                retransmission,
            }) => (pkt, lch, bit, retransmission),
            other => panic!("expected a packet, got {other:?}"),
        }
    }

    /// "A packet is sent on a free channel and holds it ... until acknowledged": with 8
    /// logical channels the ninth packet waits for an acknowledgement.
    #[test]
    fn a_packet_holds_its_channel_until_acknowledged() {
        let mut l = line(8);
        for p in 0..9 {
            l.data.push_back((p, Hold::Transit));
        }
        let mut on = Vec::new();
        for _ in 0..8 {
            on.push(sent(l.next_frame()));
        }
        assert_eq!(
            l.next_frame(),
            None,
            "no free channel, nothing to acknowledge"
        );
        let (pkt, lch, bit, _) = on[3];
        assert_eq!(l.acknowledge(lch, bit), Some((pkt, Hold::Transit)));
        let (p9, lch9, _, again) = sent(l.next_frame());
        assert_eq!((p9, lch9, again), (8, lch, false));
    }

    /// K&O §III: "retransmitted if no IMP-to-IMP acknowledgment has been received after a
    /// 125 ms timeout" — on the same channel with the same bit, so the receiver can tell a
    /// duplicate; a timer from before the acknowledgement, or an old acknowledgement, does
    /// nothing.
    #[test]
    fn retransmission_on_timeout_and_duplicates() {
        let mut l = line(8);
        l.data.push_back((7, Hold::Source));
        let (pkt, lch, bit, _) = sent(l.next_frame());
        let d = l.arm_retransmission(lch, t(20), TIMEOUT);
        assert!(l.retransmit(lch, d.generation, d.at));
        assert!(
            !l.retransmit(lch, d.generation, d.at),
            "already waiting to go again"
        );
        let (p, c, b, again) = sent(l.next_frame());
        assert_eq!((p, c, b, again), (pkt, lch, bit, true));
        assert_eq!(l.retransmissions, 1);
        // The stale timer of the first sending does nothing now.
        assert!(!l.retransmit(lch, d.generation, d.at));
        assert_eq!(l.acknowledge(lch, !bit), None, "an old acknowledgement");
        assert_eq!(l.acknowledge(lch, bit), Some((pkt, Hold::Source)));
        // Receiver side: the bit of the last accepted packet marks a duplicate.
        let mut rx = line(8);
        rx.in_last[lch as usize] = Some(bit);
        assert!(rx.is_duplicate(lch, bit));
        assert!(!rx.is_duplicate(lch, !bit));
    }

    /// K&O §III: a packet is "retransmitted if no IMP-to-IMP acknowledgment has been received
    /// after a 125 ms timeout" (plus the line's round trip, nmc's choice): armed when its frame
    /// has left at t, the timer runs out at t + 125 ms + 2 × propagation and not before; the
    /// acknowledgement disarms it; a retransmission re-arms it from its own sending.
    #[test]
    fn retransmitted_if_no_acknowledgment_after_a_125_ms_timeout() {
        let mut l = line(8);
        assert_eq!(l.poll_at(), None);
        l.data.push_back((1, Hold::Transit));
        l.data.push_back((2, Hold::Transit));
        let (_, a, bit_a, _) = sent(l.next_frame());
        let da = l.arm_retransmission(a, t(10), TIMEOUT);
        let (_, b, bit_b, _) = sent(l.next_frame());
        let db = l.arm_retransmission(b, t(30), TIMEOUT);
        // The 1 ms line of `line`: a round trip of 2 ms on top of the 125.
        assert_eq!((da.at, db.at), (t(137), t(157)));
        assert_eq!(l.poll_at(), Some(t(137)));
        assert_eq!(l.lch[a as usize].retransmit_deadline(), Some(da));
        // A wake-up before the deadline does nothing.
        assert!(!l.retransmit(a, da.generation, t(136)));
        assert!(l.retx.is_empty());
        // The acknowledgement of `b` disarms its timer: its wake-up finds nothing.
        assert_eq!(l.acknowledge(b, bit_b), Some((2, Hold::Transit)));
        assert_eq!(l.lch[b as usize].retransmit_deadline(), None);
        assert_eq!(l.poll_at(), Some(t(137)));
        assert!(!l.retransmit(b, db.generation, db.at));
        // At its deadline `a` is unacknowledged: it waits to go again, its timer spent.
        assert!(l.retransmit(a, da.generation, t(137)));
        assert_eq!(l.poll_at(), None);
        assert_eq!(l.retx, [a]);
        // Sent again at 140: the new timer runs from then.
        let (_, again, bit, retx) = sent(l.next_frame());
        assert_eq!((again, bit, retx), (a, bit_a, true));
        let dr = l.arm_retransmission(a, t(140), TIMEOUT);
        assert_eq!(l.poll_at(), Some(t(267)));
        assert_ne!(dr.generation, da.generation);
        assert!(
            !l.retransmit(a, da.generation, t(267)),
            "the first sending's"
        );
        // An acknowledgement that comes while the frame is still going out leaves nothing to
        // time when it has gone.
        assert_eq!(l.acknowledge(a, bit_a), Some((1, Hold::Transit)));
        l.data.push_back((3, Hold::Transit));
        let (_, c, bit_c, _) = sent(l.next_frame());
        assert_eq!(l.acknowledge(c, bit_c), Some((3, Hold::Transit)));
        let dc = l.arm_retransmission(c, t(300), TIMEOUT);
        assert_eq!(l.poll_at(), None);
        assert!(!l.retransmit(c, dc.generation, dc.at));
    }

    /// Control messages go ahead of data; a routing message goes first of all; with nothing
    /// else to send, pending acknowledgements go alone.
    #[test]
    fn what_goes_first() {
        let mut l = line(8);
        l.data.push_back((1, Hold::Source));
        l.ctrl.push_back((2, Hold::Control));
        l.routing_due = true;
        l.add_ack(3, true);
        assert_eq!(l.next_frame(), Some(NextFrame::Routing));
        assert_eq!(sent(l.next_frame()).0, 2);
        assert_eq!(sent(l.next_frame()).0, 1);
        assert_eq!(l.next_frame(), Some(NextFrame::AckOnly));
        assert_eq!(l.take_acks(), (1 << 3, 1 << 3));
        assert_eq!(l.next_frame(), None);
    }
}
