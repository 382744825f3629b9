//! The hosts as the driver sees them: the host side of each message, and the destination IMP's
//! output to its hosts. A host puts a message's packets into its source IMP, packet 1 first
//! (K&O §II point a: input of packets 2..8 halts until the resources are held), each only when
//! the IMP has at least 4 free buffers and, after packet 1, the packet's output queue is not
//! full (at most 8; K&O §III); at the destination IMP each host has its own interface, and the
//! RFNM is made after packet 1 has gone through it (K&O §II point g).

use super::output::Around;
use super::{Background, Ev, Generator, MessageRecord, Milestone, Subnet, Tr, Tracked};
use crate::e2e::messages::Offer;
use crate::packet::MsgId;
use crate::params::{HostPacketEntry, HostQueueCheck, HostRetry, MessageProcessing, NumberWait};
use nmc_sim::{Bits, EventQueue, SimTime};
use std::collections::VecDeque;

/// The UCLA pump (K&O §I, §III; `kind = "pump"`): messages offered back to back, the next as soon
/// as the source IMP has taken the last packet of the one before.
pub(crate) struct Pump {
    /// The destination host.
    pub(crate) dst_host: u32,
    /// Message length, data bits.
    pub(crate) bits: u64,
    /// Stop after this many messages (`None`: never).
    pub(crate) count: Option<u64>,
    /// Messages offered so far.
    pub(crate) offered: u64,
    /// The host's own limit on messages awaiting their RFNM (`traffic.N.outstanding`), if
    /// it keeps one.
    pub(crate) window: Option<Window>,
}

/// Messages a pump has offered and not yet had answered by their RFNM, and how many it allows
/// (`traffic.N.outstanding`): a host that waits for RFNMs, as the oracle's host does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    max: u32,
    in_flight: Vec<MsgId>,
}

impl Window {
    /// A window of `max` messages (at least 1: the scenario refuses 0).
    pub(crate) fn new(max: u32) -> Self {
        Window {
            max,
            in_flight: Vec::new(),
        }
    }

    /// Whether the host must wait for a RFNM before it offers another message.
    pub(crate) fn full(&self) -> bool {
        self.in_flight.len() as u64 >= u64::from(self.max)
    }

    /// Message `msg` was answered: `true` if it was one of this window's.
    fn answered(&mut self, msg: MsgId) -> bool {
        match self.in_flight.iter().position(|&m| m == msg) {
            Some(i) => {
                self.in_flight.remove(i);
                true
            }
            None => false,
        }
    }
}

/// A host on an IMP: what it sends (a pump, the IMP message generator, background traffic, or
/// messages from outside) and the message it is putting into its IMP.
pub(crate) struct Host {
    /// Its name, as the scenario gives it.
    pub(crate) name: String,
    /// The IMP it attaches to.
    pub(crate) imp: u32,
    /// The pump it runs, if any.
    pub(crate) pump: Option<Pump>,
    /// A packet is on its way over the host interface into the IMP now, or the interface is
    /// at its own work on one just in (`host_packet_input_*`).
    pub(crate) input_busy: bool,
    /// Its last packet is in the IMP's buffer and waits for the task to take it
    /// (`host_queue_check = "after-input-1973"`, [`crate::imp::Imp::host_packet_handed`]).
    pub(crate) handing_over: bool,
    /// Its last packet is on the IMP's task queue and the interface waits for the task to take
    /// it (`host_packet_entry = "after-task-1973"`, [`crate::imp::Output::HostTaken`]).
    pub(crate) in_task: bool,
    /// The message whose packets it is putting into its IMP, until the last is in.
    pub(crate) current: Option<MsgId>,
    /// It has started offering traffic ([`super::Ev::HostStart`]).
    pub(crate) started: bool,
    /// Set when this "host" is the IMP message generator inside its IMP (RFC 632).
    pub(crate) generator: Option<Generator>,
    /// Set when this host sends (and sinks) other hosts' traffic (`model/background.rs`).
    pub(crate) background: Option<Background>,
    /// Set when this host's messages are handed in from outside the model ([`crate::Stepper`]):
    /// those not yet offered to the IMP, in order.
    pub(crate) outside: Option<VecDeque<Handed>>,
}

impl Host {
    /// A host named `name` on IMP `imp` that offers nothing until given a pump, a generator,
    /// background traffic or messages from outside.
    pub(crate) fn new(name: String, imp: u32) -> Self {
        Host {
            name,
            imp,
            pump: None,
            input_busy: false,
            handing_over: false,
            in_task: false,
            current: None,
            started: false,
            generator: None,
            background: None,
            outside: None,
        }
    }
}

/// A message handed to a host from outside the model ([`crate::Stepper::offer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Handed {
    /// The destination host.
    pub(crate) to: u32,
    /// Data bits (the host leader is added on the interface, as for every message).
    pub(crate) bits: u64,
    /// The caller's name for the message, given back on delivery.
    pub(crate) tag: u64,
}

/// What [`Subnet::host_try_input`] left a host doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum HostTry {
    /// Started a packet's input, or has nothing to do.
    Done,
    /// Waits for something a freed resource may give it.
    Waits,
    /// Waits for its IMP's next fast tick (`host_retry = "fast-tick"`).
    WaitsForTick,
}

/// The hosts waiting at one IMP (`Subnet::waiting`), in host order: a sorted list, as an IMP
/// has a few hosts (a `BTreeSet`'s range walk at every wake-up showed in a loaded map's
/// profile, issue 36).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Waiting(Vec<u32>);

impl Waiting {
    /// Adds host `h` (once).
    pub(crate) fn insert(&mut self, h: u32) {
        if let Err(i) = self.0.binary_search(&h) {
            self.0.insert(i, h);
        }
    }

    /// Takes host `h` out, if it is in.
    pub(crate) fn remove(&mut self, h: u32) {
        if let Ok(i) = self.0.binary_search(&h) {
            self.0.remove(i);
        }
    }

    /// Whether host `h` is in.
    pub(crate) fn contains(&self, h: u32) -> bool {
        self.0.binary_search(&h).is_ok()
    }

    /// The first host in the set numbered `from` or above.
    pub(crate) fn first_from(&self, from: u32) -> Option<u32> {
        self.0.get(self.0.partition_point(|&h| h < from)).copied()
    }
}

impl Subnet {
    /// The host puts its next packet into its IMP if the IMP can take it.
    /// Host `h` hands the IMP its next packet if it can; keeps `waiting` up to date.
    pub(super) fn host_try(&mut self, now: SimTime, h: u32, q: &mut EventQueue<Ev>) {
        let imp = self.hosts[h as usize].imp as usize;
        // `host_retry = "fast-tick-only-1973"`: a host left to the clock is looked at again
        // only at its IMP's fast tick (BBN 3050 p. 163 `JOBF` → `HITC`), which takes it out of
        // `tick_waiting` first ([`Self::tick_wakes_hosts`]).
        if self.params.host_retry == HostRetry::FastTickOnly1973
            && self.tick_waiting[imp].contains(h)
        {
            return;
        }
        let waits = self.host_try_input(now, h, q);
        if waits == HostTry::WaitsForTick {
            self.waiting[imp].remove(h);
            self.tick_waiting[imp].insert(h);
        } else if waits == HostTry::Waits {
            self.waiting[imp].insert(h);
        } else {
            self.waiting[imp].remove(h);
        }
    }

    /// Whether `host_try` would find host `h` with nothing to do (no side effects): the
    /// invariant that lets `wake_hosts` skip it, checked in debug builds.
    pub(super) fn host_idle(&self, h: u32) -> bool {
        let host = &self.hosts[h as usize];
        let no_next = if let Some(o) = &host.outside {
            o.is_empty()
        } else if let Some(b) = &host.background {
            b.backlog.is_empty()
        } else {
            host.pump.as_ref().is_none_or(|p| {
                p.count.is_some_and(|c| p.offered >= c)
                    || p.window.as_ref().is_some_and(Window::full)
            })
        };
        host.generator.is_none()
            && (host.input_busy
                || host.in_task
                || !host.started
                || host.current.is_none() && no_next)
    }

    /// The hosts the IMP would not take a packet from, offered it again at the IMP's fast tick
    /// (`host_retry = "fast-tick"`).
    pub(super) fn tick_wakes_hosts(&mut self, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        let mut from = 0;
        while let Some(h) = self.tick_waiting[imp as usize].first_from(from) {
            from = h + 1;
            self.tick_waiting[imp as usize].remove(h);
            self.host_try(now, h, q);
        }
    }

    /// [`Self::host_try`]'s work: whether the host is left waiting for something a freed
    /// resource may give it ([`HostTry::Waits`]) or for the IMP's next fast tick, or started a
    /// packet's input or has nothing to do ([`HostTry::Done`]).
    pub(super) fn host_try_input(
        &mut self,
        now: SimTime,
        h: u32,
        q: &mut EventQueue<Ev>,
    ) -> HostTry {
        if self.hosts[h as usize].generator.is_some() {
            self.generator_try(now, h, q);
            return HostTry::Waits;
        }
        let host = &self.hosts[h as usize];
        if host.input_busy || host.in_task || !host.started {
            return HostTry::Done;
        }
        let imp = host.imp;
        if host.handing_over {
            // The packet is in the IMP; the task takes it if its line has room now.
            let mid = host.current.expect("a packet in of a current message");
            let input = self.imps[imp as usize]
                .next_input(mid)
                .expect("the packet handed over");
            let net = Around::new(&self.slab, &self.routing, &self.topo);
            if self.imps[imp as usize]
                .host_packet_handed(&input, &net)
                .is_err()
            {
                return self.host_waits();
            }
            self.hosts[h as usize].handing_over = false;
            self.host_packet_taken(now, h, mid, q);
            return self.host_try_input(now, h, q);
        }
        let mid = match host.current {
            Some(m) => m,
            None => match self.new_message(now, h) {
                Some(m) => m,
                None => return HostTry::Done,
            },
        };
        // K&O §II point a: input of packets 2..8 halts until the resources are held.
        let Some(input) = self.imps[imp as usize].next_input(mid) else {
            return HostTry::Waits;
        };
        // BBN 3050 p. 128 (`HI23`, `HI22`): the 1973 program takes the number before packet 1
        // is read, and a host whose message finds none looks again at the next fast tick.
        if input.index == 0 && self.params.message_processing == MessageProcessing::V2 {
            let numbered = match self.params.number_wait {
                NumberWait::AtFirstPacket => true,
                NumberWait::LeaderTick1973 => self.imps[imp as usize].number_free_for(mid),
                NumberWait::LeaderMesget1973 => {
                    self.step(now, imp, q, |i, out| i.number_at_leader(mid, out))
                }
            };
            if !numbered {
                return HostTry::WaitsForTick;
            }
        }
        // K&O §III (the IMP's rule, `Imp::admit_host_packet`): a packet that may not enter
        // waits with its host.
        let bits = input.bits
            + if input.index == 0 {
                self.params.host_leader.get()
            } else {
                0
            };
        let net = Around::new(&self.slab, &self.routing, &self.topo);
        if self.imps[imp as usize]
            .admit_host_packet(&input, &net)
            .is_err()
        {
            return self.host_waits();
        }
        self.hosts[h as usize].input_busy = true;
        let t = self
            .params
            .host_interface
            .transmission_time(Bits::new(bits));
        q.schedule(now + t, Ev::HostInputDone { host: h });
        HostTry::Done
    }

    /// How a host whose packet the IMP would not take waits (`host_retry`).
    fn host_waits(&self) -> HostTry {
        match self.params.host_retry {
            HostRetry::AtOnce => HostTry::Waits,
            HostRetry::FastTick | HostRetry::FastTickOnly1973 => HostTry::WaitsForTick,
        }
    }

    pub(super) fn new_message(&mut self, now: SimTime, h: u32) -> Option<MsgId> {
        if let Some(o) = self.hosts[h as usize].outside.as_mut() {
            let Handed { to, bits, tag } = o.pop_front()?;
            let id = self.offer(now, h, to, bits);
            self.obs.outside_tags.insert(id, tag);
            self.hosts[h as usize].current = Some(id);
            return Some(id);
        }
        if let Some(b) = self.hosts[h as usize].background.as_mut() {
            let (dst_host, bits) = b.backlog.pop_front()?;
            let id = self.offer(now, h, dst_host, bits);
            self.hosts[h as usize].current = Some(id);
            return Some(id);
        }
        let pump = self.hosts[h as usize].pump.as_mut()?;
        if pump.count.is_some_and(|c| pump.offered >= c)
            || pump.window.as_ref().is_some_and(Window::full)
        {
            return None;
        }
        pump.offered += 1;
        let (dst_host, bits) = (pump.dst_host, pump.bits);
        let id = self.offer(now, h, dst_host, bits);
        if let Some(w) = self.hosts[h as usize]
            .pump
            .as_mut()
            .and_then(|p| p.window.as_mut())
        {
            w.in_flight.push(id);
        }
        self.hosts[h as usize].current = Some(id);
        Some(id)
    }

    /// Message `msg`, from host `h`, was answered by its RFNM: a pump that keeps a window
    /// (`traffic.N.outstanding`) may offer the next.
    pub(super) fn pump_answered(
        &mut self,
        now: SimTime,
        h: u32,
        msg: MsgId,
        q: &mut EventQueue<Ev>,
    ) {
        let released = self.hosts[h as usize]
            .pump
            .as_mut()
            .and_then(|p| p.window.as_mut())
            .is_some_and(|w| w.answered(msg));
        if released {
            self.host_try(now, h, q);
        }
    }

    /// A new message of `bits` from host `h` to host `dst_host`: numbered, traced and
    /// tracked by the observer; what its source IMP is to be told of it.
    pub(super) fn new_offer(
        &mut self,
        now: SimTime,
        h: u32,
        dst_host: u32,
        bits: u64,
    ) -> (MsgId, Offer) {
        let id = self.next_msg;
        self.next_msg += 1;
        let background = self.hosts[h as usize].background.is_some();
        self.obs.tally.offered += 1;
        let src = self.hosts[h as usize].imp;
        if background {
            let packets = self.imps[src as usize].packets_of(bits);
            self.obs.tally.background_offered += 1;
            self.obs.tally.background_packets += packets as u64;
        }
        let dst = self.hosts[dst_host as usize].imp;
        let stream = self.stream_of(h, dst_host);
        let rec = MessageRecord {
            id,
            host: self.hosts[h as usize].name.clone(),
            dst_host: self.hosts[dst_host as usize].name.clone(),
            bits,
            offered_ns: now.as_nanos(),
            ..Default::default()
        };
        self.trace.emit(
            now,
            &Tr::Offered {
                msg: id,
                host: &self.hosts[h as usize].name,
            },
        );
        let tracked = Tracked {
            background,
            delivered: false,
            rec,
        };
        self.obs.messages.insert(id, tracked);
        let offer = Offer {
            host: h,
            dst_host,
            dst,
            stream,
            bits,
        };
        (id, offer)
    }

    /// Host `h` offers a new message of `bits` to host `dst_host` to its IMP.
    fn offer(&mut self, now: SimTime, h: u32, dst_host: u32, bits: u64) -> MsgId {
        let (id, o) = self.new_offer(now, h, dst_host, bits);
        let src = self.hosts[h as usize].imp;
        self.imps[src as usize].message_offered(id, o);
        id
    }

    /// Host `h`'s packet is across its interface: its source IMP's processor takes it in and
    /// the IMP's step for it follows ([`Imp::host_packet_taken`]), and the host tries its next.
    ///
    /// [`Imp::host_packet_taken`]: crate::imp::Imp::host_packet_taken
    pub(super) fn host_input_done(&mut self, now: SimTime, h: u32, q: &mut EventQueue<Ev>) {
        self.hosts[h as usize].input_busy = false;
        if self.params.host_queue_check == HostQueueCheck::AfterInput1973 {
            // The packet is in its buffer; the task is asked for it (`host_try_input`). If it
            // is the message's last, the IMP has taken the message's last word: K&O's round
            // trip starts now, whenever the task takes the packet.
            let mid = self.hosts[h as usize]
                .current
                .expect("input of a current message");
            let src = self.hosts[h as usize].imp as usize;
            if self.imps[src].last_packet_due(mid) {
                self.obs.note(now, mid, Milestone::Accepted);
            }
            // The interface's own work on the packet first (`host_packet_input_*`, p. 133 up to
            // `H2TASK`): it stays busy, reading nothing meanwhile.
            let interface = self.imps[src].costs().host_packet_input;
            if interface.is_zero() {
                self.host_interface_done(now, h, q);
            } else {
                self.hosts[h as usize].input_busy = true;
                q.schedule(now + interface, Ev::HostInterfaceDone { host: h });
            }
            return;
        }
        let mid = self.hosts[h as usize]
            .current
            .expect("input of a current message");
        self.host_packet_taken(now, h, mid, q);
        self.host_try(now, h, q);
    }

    /// The host interface has done its work on host `h`'s packet (`host_packet_input_*`, at
    /// once without it): the packet is offered to the task.
    pub(super) fn host_interface_done(&mut self, now: SimTime, h: u32, q: &mut EventQueue<Ev>) {
        self.hosts[h as usize].input_busy = false;
        self.hosts[h as usize].handing_over = true;
        self.host_try(now, h, q);
    }

    /// Host `h`'s packet of message `mid` is handed to its IMP ([`Imp::host_packet_taken`]);
    /// with `host_packet_entry = "after-task-1973"` its interface then waits for the task to
    /// take it ([`Self::host_taken`]).
    ///
    /// [`Imp::host_packet_taken`]: crate::imp::Imp::host_packet_taken
    fn host_packet_taken(&mut self, now: SimTime, h: u32, mid: MsgId, q: &mut EventQueue<Ev>) {
        if self.params.host_packet_entry == HostPacketEntry::AfterTask1973 {
            self.hosts[h as usize].in_task = true;
        }
        let imp = self.hosts[h as usize].imp;
        self.step(now, imp, q, |i, out| i.host_packet_taken(now, mid, out));
    }

    /// The task took host `h`'s packet ([`crate::imp::Output::HostTaken`]): its interface may
    /// read the next.
    pub(super) fn host_taken(&mut self, now: SimTime, h: u32, q: &mut EventQueue<Ev>) {
        self.hosts[h as usize].in_task = false;
        self.host_try(now, h, q);
    }

    /// The last packet of message `mid` is in its source IMP, which has told host `h`
    /// ([`crate::imp::Output::Accepted`]): the host may offer the next.
    pub(super) fn accepted(&mut self, now: SimTime, h: u32, mid: MsgId) {
        // After its input (`host_queue_check = "after-input-1973"`) a host's last word was
        // noted when its input ended (`host_input_done`); the IMP's own generator has no input.
        if self.params.host_queue_check == HostQueueCheck::BeforeInput
            || self.hosts[h as usize].generator.is_some()
        {
            self.obs.note(now, mid, Milestone::Accepted);
        }
        self.hosts[h as usize].current = None;
        self.trace.emit(now, &Tr::Accepted { msg: mid });
    }

    /// Starts the next packet to `host` if its interface is free (each host on an IMP has its
    /// own interface; [`Imp::host_output_begin`]), and queues the end of its transfer.
    ///
    /// [`Imp::host_output_begin`]: crate::imp::Imp::host_output_begin
    pub(super) fn start_host_output(
        &mut self,
        now: SimTime,
        imp: u32,
        host: u32,
        q: &mut EventQueue<Ev>,
    ) {
        let interface = self.params.host_interface;
        if let Some(t) = self.imps[imp as usize].host_output_begin(host, interface) {
            q.schedule(now + t, Ev::HostOutputDone { imp, host });
        }
    }

    /// A packet is across the interface of `host` at `imp`: the interface is free and the
    /// packet's buffer given back ([`Imp::host_output_done`]); it is traced, the IMP's steps
    /// for a packet at its host follow (the RFNM after packet 1, RFC 632's RFNM, the replies
    /// the freed buffer lets go), the message's delivery is recorded after its last packet,
    /// and the interface starts its next.
    ///
    /// [`Imp::host_output_done`]: crate::imp::Imp::host_output_done
    pub(super) fn host_output_done(
        &mut self,
        now: SimTime,
        imp: u32,
        host: u32,
        q: &mut EventQueue<Ev>,
    ) {
        let o = self.imps[imp as usize].host_output_done(host);
        self.trace.emit(
            now,
            &Tr::ToHost {
                msg: o.msg,
                packet: o.index,
            },
        );
        // Point g: the RFNM is made after packet 1 (the IMP's step, `e2e/replies.rs`).
        self.step(now, imp, q, |i, out| i.handed_to_host(now, &o, out));
        if o.index + 1 == o.of {
            self.delivered(now, host, o.msg);
            if let Some(last) = self.obs.delivered_last.insert((o.stream, host), o.num)
                && last >= o.num
            {
                self.obs.order_violations += 1;
            }
        }
        // RFC 632's RFNM of a single-packet message, and the replies the freed buffer may let
        // go: the IMP's steps (`e2e/single.rs`, `e2e/replies.rs`).
        self.step(now, imp, q, |i, out| i.single_handed_to_host(now, &o, out));
        self.step(now, imp, q, |i, out| i.serve_replies(now, out));
        self.start_host_output(now, imp, host, q);
    }

    /// Something freed at `imp`: its waiting hosts try again, in host order. The cursor walks
    /// the live set, so a host that starts waiting behind the cursor meanwhile is tried too,
    /// as a scan of every host would have tried it.
    pub(super) fn wake_hosts(&mut self, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        debug_assert!(
            self.hosts
                .iter()
                .enumerate()
                .all(|(h, host)| host.imp != imp
                    || self.waiting[imp as usize].contains(h as u32)
                    || self.tick_waiting[imp as usize].contains(h as u32)
                    || self.host_idle(h as u32)),
            "a host left out of `waiting` at IMP {imp} has something to do"
        );
        let mut from = 0;
        while let Some(h) = self.waiting[imp as usize].first_from(from) {
            from = h + 1;
            self.host_try(now, h, q);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Waiting;
    use std::collections::BTreeSet;

    proptest::proptest! {
        /// The waiting hosts of an IMP behave as the ordered set they replace: the same
        /// members after any inserts and removals, and `first_from` is the set's `range(from..)`
        /// first, which `wake_hosts` walks.
        #[test]
        fn waiting_is_an_ordered_set(ops in proptest::collection::vec((0u32..12, 0u8..3), 0..200)) {
            let (mut w, mut set) = (Waiting::default(), BTreeSet::new());
            for (h, op) in ops {
                match op {
                    0 => { w.insert(h); set.insert(h); }
                    1 => { w.remove(h); set.remove(&h); }
                    _ => {}
                }
                for from in 0..14 {
                    proptest::prop_assert_eq!(w.first_from(from), set.range(from..).next().copied());
                    proptest::prop_assert_eq!(w.contains(from), set.contains(&from));
                }
            }
        }
    }
}
