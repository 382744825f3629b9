//! A neighbour IMP that is not the program: one end of a modem line that speaks program
//! 3050's line protocol, so that something other than an emulated IMP — nmc's modelled IMP,
//! a test — can sit on a line with one (issue 73 §3, a network of modelled and emulated IMPs).
//! Sans-I/O: it takes `now` and frames, and says what goes on the line; the caller times the
//! line.
//!
//! Toward the program it does what a 3050 at the other end would (BBN 3050 listing, 16 Sept
//! 1973; each rule cites its page):
//! * **Bringing the line up and keeping it up** (pp. 162–167 `RSTOUT`, `DEDL`): a null and a
//!   routing message every clock period of the line's speed type (128 ms at 50 kbit/s) while
//!   the line is idle, fewer as it is busy: one fewer of every five for each full 132 ms it was
//!   sending in the last slow tick, down to one, the hello check's (p. 164 `RSTO4`, p. 235
//!   `RMVFRQ`, `RMVTAB`; the null goes only with a routing message, "always send null w/
//!   routing"; the model's `routing_frequency = "line-load-1973"` is the same rule); once a
//!   basic interval (five periods) an "I heard you" in the next null if a routing message came
//!   in that interval; the line up after 60 net intervals with an "I heard you" from the
//!   program (38.4 s), killed after 5 without one, then silent for 10 intervals, its channels
//!   reset (p. 168 `JSRT`).
//! * **Logical channels** (p. 14 `NACH`, pp. 63–65 `TSKM`/`TSKFOR`, pp. 94–96 `M2IACK`, p. 112
//!   `I2MRET`): 8 a direction; a packet takes the lowest free channel and holds it until
//!   acknowledged; its odd/even bit is the channel's; every message frame and null carries the
//!   receive bits; a packet not acknowledged is sent again 125 ms after its last try, and after
//!   200 tries the line is killed; a duplicate (its odd/even bit equal to the last accepted) is
//!   dropped without acknowledging it; an acknowledgement for a free channel kills the line.
//! * **Routing**: the caller's table, entry *k* for IMP *k* as the program packs it ([`frame::entry`]);
//!   the serial number moves on once a basic interval, as the program's once a slow tick; the
//!   program's table is kept as it last came (read only while the line is up, a serial number
//!   not seen before; all unreachable after 2 basic intervals without an "I heard you", as the
//!   program's dummy input, p. 167).
//! * **`ENDBIT`** on every message frame it sends, set iff its number is the higher (p. 65);
//!   a message frame from the program carrying the value it would send itself is dropped as the
//!   program drops a looped frame (p. 94).
//!
//! The listing's rules for such a line, each with its page (frame layouts, the
//! acknowledgement and hello protocols, routing, message numbers and allocations, and what is
//! still unsure with the emulator test that would settle it), are written down beside this file
//! in `neighbour/PROTOCOL.md`.
//!
//! What it does not: compute routes (the caller gives the table), reassemble messages or keep
//! message numbers (the caller reads and builds the header words with [`crate::trace::Frame`]
//! and [`frame`]'s bits), or answer maintenance frames (core requests, reload demands, dumps:
//! counted and ignored).
//!
//! ## Driving it
//! * [`Neighbour::frame_in`] for each frame from the program when its last bit arrives; it
//!   returns an [`Offer`] for a packet or reply new on its channel, which the caller takes
//!   ([`Neighbour::accept`]: acknowledged) or leaves (not acknowledged: the program sends it
//!   again, as for any IMP short of room);
//! * [`Neighbour::send`] to queue a packet or reply (its header words from HEAD on; the line
//!   adds ACKH, `ENDBIT` and the checksum), refused while all 8 channels are held;
//! * [`Neighbour::poll_transmit`] when the line is free: the next frame's words, or none;
//! * [`Neighbour::poll_at`]: the next time it has something to do (call `poll_transmit` then);
//! * [`Neighbour::poll_event`]: the line up or down, a channel acknowledged, the program's
//!   routing message, packets dropped when the line was killed.

pub mod frame;

use frame::{IMP_NUMBERS, Kind, UNREACHABLE, ackh, head2};
use std::collections::VecDeque;

/// Logical channels a direction (p. 14 `NACH`).
pub const CHANNELS: usize = 8;

/// A packet not acknowledged is sent again this long after its last try: 1250 counts of the
/// 100 µs clock, "125 MS" (p. 112 `I2MRET`).
pub const RETRANSMIT_NS: u64 = 125_000_000;

/// Tries of one packet before the line is killed (p. 109 `INCH`, p. 112).
pub const MAX_TRIES: u32 = 200;

/// The program's fast tick: 256 counts of the 100 µs clock (p. 161).
pub const FAST_TICK_NS: u64 = 25_600_000;

/// The program's slow tick: 25 fast ticks (p. 161).
pub const SLOW_TICK_NS: u64 = 25 * FAST_TICK_NS;

/// `MS132K` (p. 236): a line busy this long in a slow tick sends one routing message fewer
/// a basic interval (1320 counts of the 100 µs clock).
pub const BUSY_UNIT_NS: u64 = 132_000_000;

/// `RMVTAB` (p. 235): the periods that send a routing message, by how many may (1–5).
const RMVTAB: [u8; 5] = [0o1, 0o5, 0o15, 0o33, 0o37];

/// Basic intervals a killed line stays silent (p. 166 `KILTIM`).
pub const KILL_INTERVALS: i32 = 10;

/// The line's speed type, as the program classifies a line by how long its own routing message
/// takes to go out (p. 101–103, p. 105 `I2MRM`, `TIMSPC`: 11.3, 56.6 and 217.8 ms). Each type has
/// its clock period (a routing message every period on an idle line; five periods make the basic
/// interval of the hello protocol) and its held-dead count `LINDT` (p. 103, p. 162).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpeedType {
    /// 0–3.
    pub kind: u8,
    /// The clock period, ns.
    pub period_ns: u64,
    /// `LINDT`: basic intervals of "I heard you" a line needs to come up.
    pub intervals_to_up: i32,
    /// The line's speed, bit/s, and the modems' framing bits a frame: how long each frame
    /// keeps the line busy, which sets how many routing messages go (p. 235 `RMVFRQ`).
    pub bps: u64,
    /// Framing bits a frame.
    pub framing_bits: u64,
}

impl SpeedType {
    /// The type of a line of `bps`, with `framing_bits` added to each frame by the modems.
    pub fn of(bps: u64, framing_bits: u64) -> SpeedType {
        let bits = frame::ROUTING_WORDS as u64 * 16 + framing_bits;
        let us = bits * 1_000_000 / bps.max(1);
        let (kind, ticks, intervals_to_up) = match us {
            0..11_300 => (3, 1, 300),
            11_300..56_600 => (2, 5, 60),
            56_600..217_800 => (1, 25, 12),
            _ => (0, 50, 6),
        };
        SpeedType {
            kind,
            period_ns: ticks * FAST_TICK_NS,
            intervals_to_up,
            bps: bps.max(1),
            framing_bits,
        }
    }

    /// How long a frame of `words` keeps the line busy.
    pub fn frame_ns(&self, words: usize) -> u64 {
        (words as u64 * 16 + self.framing_bits) * 1_000_000_000 / self.bps
    }

    /// The basic interval: five clock periods (p. 163 `RMBIT`).
    pub fn interval_ns(&self) -> u64 {
        5 * self.period_ns
    }
}

/// A packet or reply from the program, new on its channel: the caller takes it or leaves it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Offer {
    /// Its logical channel.
    pub channel: u8,
    /// Its odd/even bit.
    pub odd_even: bool,
    /// The whole frame (ACKH first, the checksum last).
    pub words: Vec<u16>,
}

/// What happened on the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The line came up (60 net intervals of "I heard you").
    Up,
    /// The line was killed; `why` says by what.
    Down {
        /// The cause.
        why: &'static str,
    },
    /// The program acknowledged the packet on `channel`: it is free again.
    Acked {
        /// The channel.
        channel: u8,
        /// The packet's words as queued (HEAD first).
        words: Vec<u16>,
    },
    /// The program's routing table changed (one with a new serial number and other entries,
    /// read while the line is up; or all unreachable after missed "I heard you"s).
    Routing,
    /// A packet queued or unacknowledged when the line was reset: it never reached the program.
    Dropped {
        /// Its words as queued (HEAD first).
        words: Vec<u16>,
    },
}

/// What the line refused or threw away, by cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Nulls sent.
    pub nulls: u64,
    /// Routing messages sent.
    pub routing: u64,
    /// Packets and replies sent (first tries).
    pub packets: u64,
    /// Packets sent again.
    pub retransmissions: u64,
    /// Frames in with a hardware error, a bad length or checksum.
    pub bad: u64,
    /// Message frames in while the line was down or held dead.
    pub while_down: u64,
    /// Duplicates in (dropped unacknowledged).
    pub duplicates: u64,
    /// Frames carrying our own number or our own `ENDBIT` (a looped line).
    pub looped: u64,
    /// Maintenance frames in (ignored).
    pub maintenance: u64,
    /// Times the line was killed.
    pub kills: u64,
}

#[derive(Clone, Debug)]
struct Slot {
    /// HEAD onwards, as queued.
    words: Vec<u16>,
    /// Replies and priority packets go first (p. 66).
    priority: bool,
    /// When it last went, and how often.
    last_sent_ns: Option<u64>,
    tries: u32,
}

/// One end of a line to an IMP running program 3050.
#[derive(Clone, Debug)]
pub struct Neighbour {
    own: u8,
    speed: SpeedType,
    // The hello protocol's state, as the program's (p. 21, p. 166–167).
    /// `SLT` < 0: held dead after a kill, counting up one an interval.
    held: i32,
    up: bool,
    /// `LTR`.
    ltr: i32,
    /// "I heard you"s from the program in this interval (`LAC`).
    lac: u32,
    /// Routing messages from the program in this interval (`E123`).
    e123: u32,
    /// The next null carries "I heard you" (`SIHY`).
    sihy: bool,
    /// The program's number, from its routing messages (`NEIGHB`; 0 until one came).
    neighbour: u8,
    // Channels (p. 23): the odd/even bit each channel's next packet carries, which channels
    // are free, the bit last accepted on each receive channel.
    tsex: u8,
    chfree: u8,
    rsex: u8,
    slots: [Option<Slot>; CHANNELS],
    /// Channels in the order their packets were queued, not yet sent once.
    fresh: VecDeque<u8>,
    /// The retransmission ring's pointer (p. 106).
    ring: usize,
    /// Acknowledgements owed: a null goes when nothing else does (`SNULL`).
    snull: bool,
    // Routing.
    table: [u16; IMP_NUMBERS],
    serial: u8,
    peer: [u16; IMP_NUMBERS],
    peer_serial: Option<u8>,
    /// The next clock period's start, and the position in the basic interval (0–4; 0 runs the
    /// hello check first).
    next_period_ns: u64,
    position: u8,
    /// 2: a null then a routing message are due; 1: the routing message.
    routing_due: u8,
    /// The line's busy time since the last slow tick, and when the next slow tick is
    /// (`CUMTIM`, p. 105; p. 235 `RMVFRQ`).
    busy_ns: u64,
    next_slow_ns: u64,
    /// Which of the five periods of a basic interval send a routing message (with its null),
    /// as `RUTFRQ` (p. 164 `RSTO4`; p. 235 `RMVTAB`): bit 1 the hello check's, then 20, 10, 4,
    /// 2 (octal).
    rutfrq: u8,
    /// The latest time it was given.
    now_ns: u64,
    events: VecDeque<Event>,
    counts: Counts,
}

impl Neighbour {
    /// IMP `own` on a line of `speed`, its table all unreachable but itself, its first clock
    /// period at `start_ns`. Like a 3050 just started or its line just reset: channels free,
    /// receive bits all 1, the line down for [`SpeedType::intervals_to_up`] intervals.
    pub fn new(own: u8, speed: SpeedType, start_ns: u64) -> Neighbour {
        let mut table = [UNREACHABLE; IMP_NUMBERS];
        table[usize::from(own) % IMP_NUMBERS] = 0;
        let mut n = Neighbour {
            own,
            speed,
            held: 0,
            up: false,
            ltr: -speed.intervals_to_up,
            lac: 0,
            e123: 0,
            sihy: false,
            neighbour: 0,
            tsex: 0,
            chfree: 0o377,
            rsex: 0o377,
            slots: Default::default(),
            fresh: VecDeque::new(),
            ring: 0,
            snull: false,
            table,
            serial: 0,
            peer: [UNREACHABLE; IMP_NUMBERS],
            peer_serial: None,
            next_period_ns: start_ns,
            position: 0,
            routing_due: 0,
            busy_ns: 0,
            next_slow_ns: start_ns + SLOW_TICK_NS,
            rutfrq: 0o37,
            now_ns: start_ns,
            events: VecDeque::new(),
            counts: Counts::default(),
        };
        n.reset_channels();
        n
    }

    /// Its IMP number.
    pub fn own(&self) -> u8 {
        self.own
    }

    /// The program's IMP number, once a routing message has told it.
    pub fn neighbour(&self) -> Option<u8> {
        (self.neighbour != 0).then_some(self.neighbour)
    }

    /// Whether the line is up.
    pub fn is_up(&self) -> bool {
        self.up
    }

    /// The counts so far.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// The program's routing table as it last came (all unreachable before the line is up).
    pub fn peer_table(&self) -> &[u16; IMP_NUMBERS] {
        &self.peer
    }

    /// The table to send from now on (entry *k* for IMP *k*, [`frame::entry`]); our own entry
    /// is kept 0.
    pub fn set_table(&mut self, table: &[u16; IMP_NUMBERS]) {
        let own = usize::from(self.own) % IMP_NUMBERS;
        if table != &self.table {
            self.table = *table;
            self.table[own] = 0;
            self.serial = self.serial.wrapping_add(1);
        }
    }

    /// Packets queued and not yet sent once.
    pub fn unsent(&self) -> usize {
        self.fresh.len()
    }

    /// Channels free now.
    pub fn free_channels(&self) -> u32 {
        self.chfree.count_ones()
    }

    /// Queues a packet or reply: `words` from HEAD on (HEAD, HEAD1, HEAD2, then HEAD3 and the
    /// text, or the reply's words); the line fills ACKH, `ENDBIT` and the checksum. `priority`:
    /// replies and priority messages, which go before the rest (p. 66). Refused (`None`) while
    /// all channels are held, as the program refuses a packet then (p. 64); otherwise the
    /// channel it took.
    pub fn send(&mut self, words: Vec<u16>, priority: bool) -> Option<u8> {
        if self.chfree == 0 || words.len() + 2 > frame::MAX_MESSAGE_WORDS || words.len() < 3 {
            return None;
        }
        let c = self.chfree.trailing_zeros() as u8;
        self.chfree &= !(1 << c);
        self.slots[usize::from(c)] = Some(Slot {
            words,
            priority,
            last_sent_ns: None,
            tries: 0,
        });
        self.fresh.push_back(c);
        Some(c)
    }

    /// Takes an offered packet: its channel's bit is now the one accepted, and the
    /// acknowledgement goes in the next frame (p. 70 `GOODM`).
    pub fn accept(&mut self, offer: &Offer) {
        let bit = 1u8 << (offer.channel & 7);
        if offer.odd_even {
            self.rsex |= bit;
        } else {
            self.rsex &= !bit;
        }
        self.snull = true;
    }

    /// What happened, oldest first.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// A frame from the program whose last bit arrived at `now_ns`; `ok` false if the line
    /// corrupted it (the modem's check failed: lost without a trace, p. 88–90). Returns the
    /// packet or reply it carried if that is new on its channel.
    pub fn frame_in(&mut self, now_ns: u64, words: &[u16], ok: bool) -> Option<Offer> {
        self.advance(now_ns);
        if self.held < 0 {
            // A killed line's input is thrown away (p. 99 `KILLIN`).
            self.counts.while_down += 1;
            return None;
        }
        if !ok {
            self.counts.bad += 1;
            return None;
        }
        let kind = match frame::classify(words) {
            Ok(k) => k,
            Err(_) => {
                self.counts.bad += 1;
                return None;
            }
        };
        match kind {
            Kind::Maintenance => {
                self.counts.maintenance += 1;
                None
            }
            Kind::Null {
                from,
                acks,
                i_heard_you,
            } => {
                if from == self.own {
                    self.counts.looped += 1;
                    return None;
                }
                if i_heard_you {
                    self.lac += 1;
                }
                self.acks_in(acks);
                None
            }
            Kind::Routing {
                from,
                serial,
                entries,
            } => {
                if from == self.own {
                    self.counts.looped += 1;
                    return None;
                }
                if self.neighbour != 0 && from != self.neighbour {
                    self.kill("the neighbour's number changed");
                    return None;
                }
                self.neighbour = from;
                self.e123 += 1;
                if self.up && self.peer_serial != Some(serial) {
                    self.peer_serial = Some(serial);
                    if *entries != self.peer {
                        self.peer = *entries;
                        self.events.push_back(Event::Routing);
                    }
                }
                None
            }
            Kind::Message => self.message_in(words),
        }
    }

    fn message_in(&mut self, words: &[u16]) -> Option<Offer> {
        if !self.up {
            self.counts.while_down += 1;
            return None;
        }
        // The sender's ENDBIT is set iff it is the higher; ours would be set iff we are.
        if (words[3] & head2::ENDBIT != 0) == (self.own > self.neighbour) {
            self.counts.looped += 1;
            return None;
        }
        self.acks_in((words[0] & ackh::ACKBTS) as u8);
        if self.held < 0 {
            return None;
        }
        let channel = ((words[0] & ackh::CHANUM) >> 8) as u8 & 7;
        let odd_even = words[0] & ackh::ODEVEN != 0;
        if odd_even == (self.rsex & (1 << channel) != 0) {
            self.counts.duplicates += 1;
            return None;
        }
        Some(Offer {
            channel,
            odd_even,
            words: words.to_vec(),
        })
    }

    /// The program's acknowledgement bits (p. 94–96 `M2IACK`): its complement, against the bits
    /// our channels' packets carry, says which were taken.
    fn acks_in(&mut self, acks: u8) {
        let a = !acks;
        let changed = a ^ self.tsex;
        if changed & self.chfree != 0 {
            self.kill("an acknowledgement for a free channel");
            return;
        }
        for c in 0..CHANNELS as u8 {
            if changed & (1 << c) != 0 {
                let slot = self.slots[usize::from(c)].take();
                self.fresh.retain(|&f| f != c);
                self.chfree |= 1 << c;
                if let Some(s) = slot {
                    self.events.push_back(Event::Acked {
                        channel: c,
                        words: s.words,
                    });
                }
            }
        }
        self.tsex = a;
    }

    /// The next time it has something to do, at the earliest the last time it was given: now if
    /// a frame is ready (a null or routing message due, acknowledgements owed, a packet not yet
    /// sent on an up line), else its next clock period, or the next fast tick while a packet
    /// waits for its acknowledgement (the program looks at one retransmission slot an output
    /// wake-up, p. 165 `IMTC`). Call [`Neighbour::poll_transmit`] then, if the line is free.
    pub fn poll_at(&self) -> u64 {
        let ready = self.held >= 0
            && (self.routing_due > 0 || self.snull || (self.up && !self.fresh.is_empty()));
        if ready {
            return self.now_ns;
        }
        let unacknowledged = self.up && self.slots.iter().any(Option::is_some);
        if unacknowledged {
            self.next_period_ns
                .min((self.now_ns / FAST_TICK_NS + 1) * FAST_TICK_NS)
        } else {
            self.next_period_ns
        }
    }

    /// The next frame for the line, which is free at `now_ns` (p. 106–107 `I2MALL`): nothing
    /// while held dead; a null then a routing message when due; a packet unacknowledged for
    /// [`RETRANSMIT_NS`] (one ring slot looked at a call); a new priority packet; a new packet; a
    /// null if acknowledgements are owed.
    pub fn poll_transmit(&mut self, now_ns: u64) -> Option<Vec<u16>> {
        let words = self.next_frame(now_ns)?;
        // Its time on the line counts toward the next slow tick's routing frequency (p. 105).
        self.busy_ns += self.speed.frame_ns(words.len());
        Some(words)
    }

    fn next_frame(&mut self, now_ns: u64) -> Option<Vec<u16>> {
        self.advance(now_ns);
        if self.held < 0 {
            return None;
        }
        match self.routing_due {
            2 => {
                self.routing_due = 1;
                return Some(self.null_now(now_ns));
            }
            1 => {
                self.routing_due = 0;
                self.counts.routing += 1;
                return Some(frame::routing(self.own, self.serial, &self.table));
            }
            _ => {}
        }
        if self.up {
            if let Some(w) = self.retransmission(now_ns) {
                return Some(w);
            }
            if let Some(w) = self.first_try(now_ns) {
                return Some(w);
            }
        }
        self.snull.then(|| self.null_now(now_ns))
    }

    fn null_now(&mut self, now_ns: u64) -> Vec<u16> {
        let ihy = std::mem::take(&mut self.sihy);
        self.snull = false;
        self.counts.nulls += 1;
        frame::null(self.own, self.rsex, ihy, (now_ns / FAST_TICK_NS) as u16)
    }

    fn retransmission(&mut self, now_ns: u64) -> Option<Vec<u16>> {
        let c = self.ring;
        self.ring = (self.ring + 1) % CHANNELS;
        let due = match &self.slots[c] {
            Some(s) => s.last_sent_ns.is_some_and(|t| now_ns >= t + RETRANSMIT_NS),
            None => false,
        };
        if !due {
            return None;
        }
        if self.slots[c].as_ref().is_some_and(|s| s.tries >= MAX_TRIES) {
            self.kill("200 tries of one packet");
            return None;
        }
        self.counts.retransmissions += 1;
        Some(self.frame_of(c as u8, now_ns))
    }

    fn first_try(&mut self, now_ns: u64) -> Option<Vec<u16>> {
        let pick = self
            .fresh
            .iter()
            .position(|&c| {
                self.slots[usize::from(c)]
                    .as_ref()
                    .is_some_and(|s| s.priority)
            })
            .or((!self.fresh.is_empty()).then_some(0))?;
        let c = self.fresh.remove(pick)?;
        self.counts.packets += 1;
        Some(self.frame_of(c, now_ns))
    }

    /// The frame of the packet on channel `c`, with the line's words: ACKH (its channel and
    /// odd/even bit, our receive bits), `ENDBIT`, the checksum (p. 65, p. 110).
    fn frame_of(&mut self, c: u8, now_ns: u64) -> Vec<u16> {
        let bit = self.tsex & (1 << c) != 0;
        let endbit = self.own > self.neighbour;
        let rsex = self.rsex;
        let slot = self.slots[usize::from(c)]
            .as_mut()
            .expect("a channel picked to send holds a packet");
        slot.last_sent_ns = Some(now_ns);
        slot.tries += 1;
        let mut w = Vec::with_capacity(slot.words.len() + 2);
        w.push(if bit { ackh::ODEVEN } else { 0 } | u16::from(c) << 8 | u16::from(rsex));
        w.extend_from_slice(&slot.words);
        if endbit {
            w[3] |= head2::ENDBIT;
        } else {
            w[3] &= !head2::ENDBIT;
        }
        self.snull = false;
        frame::seal(w)
    }

    /// Runs the line's clock to `now_ns`: each period, the hello check at the interval's first
    /// position, then a null and a routing message due (p. 163–164 `RSTOUT`).
    fn advance(&mut self, now_ns: u64) {
        self.now_ns = self.now_ns.max(now_ns);
        loop {
            // The slow tick's `RMVFRQ` (p. 235), before a period at the same time: of the
            // five periods, one fewer sends a routing message for each full 132 ms (`MS132K`)
            // the line was busy since the last (at least the hello check's).
            if self.next_slow_ns <= self.next_period_ns && self.next_slow_ns <= now_ns {
                let extra = 4u64.saturating_sub(self.busy_ns / BUSY_UNIT_NS);
                self.rutfrq = RMVTAB[extra as usize];
                self.busy_ns = 0;
                self.next_slow_ns += SLOW_TICK_NS;
                continue;
            }
            if self.next_period_ns > now_ns {
                return;
            }
            // `RMBIT` moves 1, 20, 10, 4, 2 (octal): the hello check's period first.
            let bit = if self.position == 0 {
                1
            } else {
                1 << (5 - self.position)
            };
            if self.position == 0 {
                self.hello_check();
            }
            self.position = (self.position + 1) % 5;
            if self.held >= 0 && self.rutfrq & bit != 0 {
                self.routing_due = 2;
            }
            self.next_period_ns += self.speed.period_ns;
        }
    }

    /// Once a basic interval (p. 166–167 `DEDL`).
    fn hello_check(&mut self) {
        if self.held < 0 {
            self.held += 1;
            if self.held == 0 {
                self.reset_channels();
            }
            return;
        }
        // A new table each interval, as the program's each slow tick (p. 230 `RMSN`).
        self.serial = self.serial.wrapping_add(1);
        if self.e123 > 0 {
            self.sihy = true;
            self.e123 = 0;
        }
        if self.lac > 0 {
            self.lac = u32::from(self.lac >= 2);
            if !self.up {
                self.ltr += 1;
                if self.ltr >= 0 {
                    self.up = true;
                    self.events.push_back(Event::Up);
                }
            }
            if self.up {
                self.ltr = -5;
            }
        } else if self.up {
            self.ltr += 1;
            if self.ltr == -3 {
                self.peer = [UNREACHABLE; IMP_NUMBERS];
                self.peer_serial = None;
                self.events.push_back(Event::Routing);
            }
            if self.ltr >= 0 {
                self.kill("5 basic intervals without an \"I heard you\"");
            }
        } else {
            self.ltr = (self.ltr - 1).max(-self.speed.intervals_to_up);
        }
    }

    /// `KILLIN` (p. 99, p. 166): the line down, silent, its input thrown away for
    /// [`KILL_INTERVALS`] intervals; then its channels reset.
    fn kill(&mut self, why: &'static str) {
        self.counts.kills += 1;
        self.up = false;
        self.events.push_back(Event::Down { why });
        self.held = -KILL_INTERVALS;
        self.neighbour = 0;
        self.ltr = -self.speed.intervals_to_up;
        self.routing_due = 0;
        self.peer = [UNREACHABLE; IMP_NUMBERS];
        self.peer_serial = None;
    }

    /// `JSRT` (p. 168): every channel free, receive bits all 1, send bits all 0; what was queued
    /// or unacknowledged is handed back.
    fn reset_channels(&mut self) {
        for s in self.slots.iter_mut() {
            if let Some(s) = s.take() {
                self.events.push_back(Event::Dropped { words: s.words });
            }
        }
        self.fresh.clear();
        self.tsex = 0;
        self.chfree = 0o377;
        self.rsex = 0o377;
        self.snull = false;
        self.lac = 0;
        self.e123 = 0;
        self.sihy = false;
        self.ltr = -self.speed.intervals_to_up;
    }
}

#[cfg(test)]
mod tests;
