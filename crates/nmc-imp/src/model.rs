//! The subnet as an event model: IMPs, links, hosts, and the clock that drives them. The
//! end-to-end message procedure is each IMP's own (`Imp`, its steps in `e2e/`; where versions
//! 2 and 3 differ, the profile's `Procedure`, `e2e/procedure.rs`); the driver here carries
//! out what the IMPs' steps push, in time.
//!
//! The life of a multipacket message, as K&O Fig. 1 letters it:
//! * **a** the host has put packet 1 into the source IMP (`Ev::HostInputDone`); input of
//!   packets 2..8 halts;
//! * **b** the message takes a message number for its IMP pair (4 per pair, K&O §III);
//! * **c** it takes a PLT entry (6 per source IMP); if no ALL is held for the destination, a
//!   REQALL is sent that *steals* the number and PLT entry, and the message starts again at
//!   **b** when the ALL comes back;
//! * **d** the destination answers a REQALL with an ALL as soon as 8 reassembly buffers are free;
//! * **e** with all three resources, packet 1 leaves and input of the rest resumes;
//! * **f** all packets reassembled: the message queues for the destination host, in message
//!   number order per IMP pair;
//! * **g** after packet 1 reaches the host, the RFNM is made; it waits up to 1 s for 8 free
//!   buffers to carry a piggy-backed ALL, then goes without;
//! * **h** the RFNM frees the number and PLT entry and adds its ALL to the allocate counter;
//! * **i** an allocation unused for 250 ms goes back with a GVB.
//!
//! A message that fits one packet takes the shorter road of RFC 632 instead: a message number
//! but no PLT entry and no REQALL; the source keeps a copy until the RFNM; the destination
//! accepts it, stores it, or treats it as a request for one buffer, by the profile's
//! `crate::params::SinglePacketRule` (`e2e/single.rs`, both ends the IMP's own steps). The IMP message generator and the scripted
//! disturbances are in `model/instrument.rs`; the lockup watch in `model/lockup.rs`.
//!
//! This file is the driver: the [`Subnet`] with its construction and first events, and the
//! dispatch of each event ([`Model::handle`]). The events themselves (`Ev`; the observers'
//! timers apart, as `Tick`) are in `model/event.rs`, the random streams of the parts in
//! `model/streams.rs`; the rest of `impl Subnet` is in the child modules:
//!
//! | module | what |
//! | --- | --- |
//! | `model/host.rs` | the hosts (`Host`, `Pump`, `Handed`): a message's packets into the source IMP (point a; K&O §III's 4 free buffers), new messages, and the destination IMP's output to its hosts (point g: the RFNM is made after packet 1) |
//! | `model/message.rs` | a packet for an IMP handed to its step (`Imp::handle_packet`: a message's packet or a control message at its destination, a reply at its source), and a message answered recorded |
//! | `model/line.rs` | the IMP-to-IMP lines: packets and control messages queued, frames sent, a frame received handed to its IMP (`Imp::handle_frame`) and what follows from it (the processor, the trace, the counts), and retransmission |
//! | `model/watch.rs` | the observers' ticks read off the subnet for the `Observer` (`observe/`): the occupancy sample ([`Occupancy`]), the counts ([`Counted`]); what is still held |
//! | `model/trace.rs` | the trace lines (`trace = true`) |
//! | `model/output.rs` | what an IMP's step asks (`crate::imp::Output`; the steps are the IMP's own, `e2e/`), carried out in order: control messages and data packets sent, wake-ups queued, counts, trace lines, milestones, host interfaces started, hosts moved on, answers recorded, and the rest of a step handed back to the IMP |
//! | `model/single.rs` | single-packet messages (RFC 632), the driver's side: the copy routed and queued on a line, the answered message recorded, RFC 632's table lines written |
//! | `model/processing.rs` | the IMPs' 25.6 ms clocks, each tick handed to its IMP (the processor, its task queue and the task level are the IMP's own, `hop/processing.rs`), and the lines' routing slots |
//! | `model/adaptive.rs` | the subnet's side of routing: routing frames' bodies, lines going down and up, an IMP's waiting packets routed again when its table may have changed, the route records, journeys and loops |
//! | `model/background.rs` | other hosts' traffic (`Background`) |
//! | `model/instrument.rs` | the IMP message generator (`Generator`) and scripted disturbances (`Action`) |
//! | `model/boundary.rs` | lines to IMPs outside the model (a network of modelled IMPs and IMPs running the 1973 program): packets handed out and in through [`crate::Stepper`], the outside IMPs' packets carried through as their own words |
//! | `model/lockup.rs` | the lockup watch, read off the subnet ([`LockupReport`]; RFC 626) |
//! | `model/slice.rs` | time slices of the measured pair, read off the subnet ([`TimeSlice`]; K&O Figs. 2, 7, 8) |

mod adaptive;
mod background;
mod boundary;
mod event;
mod host;
mod instrument;
mod line;
mod lockup;
mod message;
mod output;
mod processing;
mod single;
mod slice;
mod streams;
mod trace;
mod watch;

pub(crate) use crate::e2e::procedure::{MsgState, Procedure};
pub(crate) use crate::processor::{NO_PLACE, Work};
pub(crate) use background::Background;
pub use background::LengthMix;
pub(crate) use boundary::Boundary;
pub use boundary::{
    Arrived, BoundaryCounts, BoundaryLine, Carried, Incoming, Native, NativePacket, Outgoing,
};
pub(crate) use event::{Ev, Tick};
pub(crate) use host::{Handed, Host, Pump, Waiting, Window};
pub(crate) use instrument::{Action, Generator};
use streams::lateness_stream;
pub(crate) use streams::pairs_stream;
pub use streams::{background_stream, clock_stream, line_stream};
use trace::Tr;

use crate::observe::{
    Counted, E2eEvent, Happened, LockupReport, MessageRecord, Milestone, Note, Observer, Occupancy,
    Side, SliceItem, TimeSlice, Tracked, What,
};

use crate::imp::{Imp, ImpSettings, Limits, Output, TimerId};
use crate::link::Link;
use crate::packet::{MsgId, Slab, Stream};
use crate::params::{ImpClocks, ImpParams};
use crate::routing::Routing;
use crate::topology::Topology;
use nmc_sim::{EventQueue, Model, RngStreams, SimDuration, SimTime, Trace};
use std::collections::{BTreeMap, BTreeSet};

/// The subnet as an event model ([`Model`]): the IMPs (each with its lines and its own
/// end-to-end procedure), the hosts, the packets in flight, routing, and what the run
/// observes.
pub struct Subnet {
    /// The profile's parameters, resolved.
    pub(crate) params: ImpParams,
    /// The IMPs and the lines between them.
    pub(crate) topo: Topology,
    /// The IMPs, each holding its lines' outgoing directions ([`Imp::lines`]).
    pub(crate) imps: Vec<Imp>,
    /// Where link `l` (one direction of a line, in topology order) is held: its IMP and its
    /// place among that IMP's lines ([`Subnet::link`]).
    pub(crate) link_at: Vec<(u32, u32)>,
    /// The hosts, by index.
    pub(crate) hosts: Vec<Host>,
    /// Every packet held anywhere in the subnet, by id.
    pub(crate) slab: Slab,
    /// The id the next message takes.
    pub(crate) next_msg: MsgId,
    /// The trace (`trace = true`; off otherwise).
    pub(crate) trace: Trace,
    /// Scripted actions and when (`[[network.events]]`, generator pauses).
    pub(crate) actions: Vec<(SimDuration, Action)>,
    /// Links whose next packet frame is to be hit by a line error.
    pub(crate) corrupt_next: BTreeSet<u32>,
    /// Each line direction's stream for its frames' lateness (`frame_lateness`; empty when
    /// it is 0).
    pub(crate) lateness: Vec<nmc_sim::Stream>,
    /// Source IMPs whose next single-packet message leaves by this link instead of its route.
    pub(crate) detours: BTreeMap<u32, (u32, Option<SimDuration>)>,
    /// When each IMP last sent a single-packet message the first time (a detour's `within`).
    pub(crate) last_single_sent: BTreeMap<u32, SimTime>,
    /// When each IMP's clock first ticks (`imp_clocks`).
    clock_start: Vec<SimDuration>,
    /// How packets are routed, which lines are up, and the loop records.
    pub(crate) routing: Routing,
    /// Per IMP, the hosts that a freed resource may let go on: those the last `host_try` left
    /// waiting (for buffers, an output queue, a route, or the resources of K&O §II point a),
    /// and generators. A host leaves the set only when `host_try` finds it with nothing to do
    /// (input busy, not started, no message) — states it leaves only through a direct
    /// `host_try` — so `wake_hosts` visits exactly the hosts a scan of every host on the IMP
    /// would have moved, in the same (host) order, without the scan (issue 15).
    pub(crate) waiting: Vec<Waiting>,
    /// Per IMP, the hosts whose packet the IMP would not take, to be offered again at its next
    /// fast tick (`host_retry = "fast-tick"`, BBN 3050 p. 70 `BADH`, p. 165 `HITC`).
    pub(crate) tick_waiting: Vec<Waiting>,
    /// When background traffic starts.
    pub(crate) background_start: SimDuration,
    /// What is recorded, counted and watched: observes the protocol, takes no part in it.
    pub(crate) obs: Observer,
    /// The end-to-end procedure of the profile's software version (`e2e/procedure.rs`).
    pub(crate) procedure: &'static dyn Procedure,
    /// The buffer for what the IMPs' steps push, kept for the next step (`model/output.rs`).
    pub(crate) outputs: Vec<Output>,
    /// Replies on their way over a host interface to the host whose message they answer
    /// (`reply_to_host = "leader-1973"`), by message.
    pub(crate) replies: BTreeMap<MsgId, Reply>,
    /// Lines to IMPs outside the model (a network of modelled and emulated IMPs; none in
    /// every other run): `model/boundary.rs`.
    pub(crate) boundary: Boundary,
}

/// A reply to a host's message, from the IMP's step that answered it ([`Output::Answered`],
/// [`Output::SingleAnswered`]) to the host.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reply {
    /// The source IMP.
    pub(crate) imp: u32,
    /// The host whose message it answers.
    pub(crate) host: u32,
    /// The message's destination IMP.
    pub(crate) dst: u32,
    /// A RFNM carrying an ALL or not; `None`: a single-packet message's RFNM (RFC 632).
    pub(crate) all: Option<bool>,
}

impl Subnet {
    /// The profile's parameters, resolved.
    pub fn params(&self) -> &ImpParams {
        &self.params
    }

    #[cfg(test)]
    /// The hosts, by index.
    pub(crate) fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    #[cfg(test)]
    /// How many IMPs the subnet has.
    pub(crate) fn imp_count(&self) -> usize {
        self.imps.len()
    }

    #[cfg(test)]
    /// How packets are routed, which lines are up, and the loop records.
    pub(crate) fn routing(&self) -> &Routing {
        &self.routing
    }

    /// The IMP host `host` sits on.
    pub fn host_imp(&self, host: u32) -> u32 {
        self.hosts[host as usize].imp
    }

    /// A subnet of `topo` with `hosts` under the profile's `params`: IMPs with their own
    /// `settings` (one per IMP, in the topology's order) and the profile's limits, each line direction a [`Link`] held by the IMP it leaves from (its line
    /// errors drawn from `seed`'s streams), static routes, and occupancy sampled every
    /// `sample_period` for the first host with a pump or a generator and its destination;
    /// `trace` takes the trace lines.
    pub(crate) fn new(
        params: ImpParams,
        topo: Topology,
        hosts: Vec<Host>,
        settings: Vec<ImpSettings>,
        seed: u64,
        sample_period: SimDuration,
        trace: Trace,
    ) -> Self {
        debug_assert_eq!(settings.len(), topo.names.len(), "one setting per IMP");
        let streams = RngStreams::new(seed);
        let mut imps: Vec<Imp> = topo
            .names
            .iter()
            .zip(settings)
            .enumerate()
            .map(|(i, (n, own))| Imp::new(i as u32, n.clone(), own, Limits::of(&params)))
            .collect();
        // Each direction of a line is held by the IMP it leaves from: that IMP's interface to
        // the line, its channels, queues and the acknowledgements it owes.
        let mut link_at = Vec::with_capacity(topo.links.len());
        for (i, d) in topo.links.iter().enumerate() {
            let k = imps[d.from as usize].add_line(Link::new(
                d.clone(),
                i as u32,
                (i ^ 1) as u32,
                params.logical_channels,
                streams.stream(line_stream(i)),
            ));
            link_at.push((d.from, k));
        }
        let clock_start = clock_starts(&params, &mut imps, &streams);
        let lateness = if params.frame_lateness.is_zero() {
            Vec::new()
        } else {
            (0..link_at.len())
                .map(|i| streams.stream(lateness_stream(i)))
                .collect()
        };
        let watched = hosts.iter().enumerate().find_map(|(k, h)| {
            let dst = h
                .pump
                .as_ref()
                .map(|p| p.dst_host)
                .or(h.generator.as_ref().map(|g| g.dst_host))?;
            Some((k as u32, dst))
        });
        let watch = watched.map(|(h, d)| (hosts[h as usize].imp, hosts[d as usize].imp));
        let procedure = crate::e2e::version::of(params.message_processing);
        let imp_of = |h: u32| hosts[h as usize].imp;
        let watch_stream = watched.map_or(0, |(h, d)| procedure.stream(&imp_of, h, d));
        let routing = Routing::new_static(&params, &topo);
        // Every host starts in the set: it leaves once `host_try` has seen it idle.
        let mut waiting = vec![Waiting::default(); topo.names.len()];
        for (h, host) in hosts.iter().enumerate() {
            waiting[host.imp as usize].insert(h as u32);
        }
        Subnet {
            procedure,
            outputs: Vec::new(),
            replies: BTreeMap::new(),
            boundary: Boundary::default(),
            tick_waiting: vec![Waiting::default(); waiting.len()],
            waiting,
            background_start: SimDuration::ZERO,
            routing,
            params,
            topo,
            imps,
            link_at,
            hosts,
            slab: Slab::default(),
            next_msg: 0,
            trace,
            actions: Vec::new(),
            corrupt_next: BTreeSet::new(),
            lateness,
            detours: BTreeMap::new(),
            last_single_sent: BTreeMap::new(),
            clock_start,
            obs: Observer::new(sample_period, watch, watch_stream),
        }
    }

    /// Link `l`: one direction of a line, held by the IMP it leaves from.
    #[inline]
    pub(crate) fn link(&self, l: u32) -> &Link {
        let (imp, k) = self.link_at[l as usize];
        &self.imps[imp as usize].lines[k as usize]
    }

    /// Every link, in topology order.
    pub(crate) fn links(&self) -> impl Iterator<Item = &Link> + '_ {
        (0..self.link_at.len() as u32).map(|l| self.link(l))
    }

    /// The stream of messages from host `h` to host `dst_host`: their IMP pair in version 2
    /// (K&O §III: "message sequence numbers allocated per source IMP-destination IMP pair"),
    /// their host pair in version 3 (K&O §VI: "message sequencing is now done on the basis of
    /// HOST-to-HOST pairs").
    pub(crate) fn stream_of(&self, h: u32, dst_host: u32) -> Stream {
        self.procedure
            .stream(&|h| self.hosts[h as usize].imp, h, dst_host)
    }

    /// The source IMP of `s`.
    pub(crate) fn stream_src(&self, s: Stream) -> u32 {
        self.procedure
            .stream_src(&|h| self.hosts[h as usize].imp, s)
    }

    /// Events that start the run.
    pub(crate) fn initial_events(&mut self, q: &mut EventQueue<Ev>, starts: &[(u32, SimDuration)]) {
        let n = self.link_at.len().max(1) as u64;
        for i in 0..self.link_at.len() {
            if self.on_imp_clock(i as u32).is_some() {
                continue; // its opportunities come at its IMP's ticks (`Subnet::clock`)
            }
            // Stagger the first routing opportunity of each line over one interval.
            let phase = self.routing_slot(i as u32).0.as_nanos() * i as u64 / n;
            q.schedule(
                SimTime::from_nanos(phase),
                Ev::RoutingTick { link: i as u32 },
            );
        }
        for &(host, at) in starts {
            q.schedule(SimTime::ZERO + at, Ev::HostStart { host });
        }
        q.schedule(SimTime::ZERO, Ev::Observe(Tick::Sample));
        for &t in &self.obs.slice_at {
            q.schedule(SimTime::ZERO + t, Ev::Observe(Tick::Slice));
        }
        // Each IMP's clock, from its first tick (`imp_clocks`).
        for (imp, &first) in self.clock_start.iter().enumerate() {
            q.schedule(SimTime::ZERO + first, Ev::Clock { imp: imp as u32 });
        }
        self.schedule_background(q, self.background_start);
        self.schedule_instruments(q);
        self.schedule_line_events(q);
    }
}

/// When each IMP's clock first ticks, and its count of ticks set so that its slow ticks fall
/// where `imp_clocks` puts them ([`ImpClocks`]).
fn clock_starts(params: &ImpParams, imps: &mut [Imp], streams: &RngStreams) -> Vec<SimDuration> {
    let fast = params.fast_tick.as_nanos();
    let m = imps.len().max(1) as u64;
    let mut rng = streams.stream(clock_stream());
    let every = u64::from(params.slow_tick_every.max(1));
    imps.iter_mut()
        .enumerate()
        .map(|(k, imp)| match params.imp_clocks {
            // Staggered over one fast tick in the IMPs' order.
            ImpClocks::Together => SimDuration::from_nanos(fast * k as u64 / m),
            // All at once: same-time ticks go in the IMPs' order (the queue's insertion order).
            ImpClocks::Epoch => SimDuration::ZERO,
            ImpClocks::Apart => {
                imp.cpu.ticks = rng.uniform_inclusive(0, every - 1);
                SimDuration::from_nanos(rng.uniform_inclusive(0, fast.max(1) - 1))
            }
        })
        .collect()
}

impl Model for Subnet {
    type Event = Ev;
    fn handle(&mut self, now: SimTime, ev: Ev, q: &mut EventQueue<Ev>) {
        match ev {
            Ev::HostStart { host } => {
                self.hosts[host as usize].started = true;
                self.host_try(now, host, q);
            }
            Ev::HostInputDone { host } => self.host_input_done(now, host, q),
            Ev::HostInterfaceDone { host } => self.host_interface_done(now, host, q),
            Ev::TxDone { link, frame } => self.tx_done(now, link, frame, q),
            Ev::Arrive { link, frame } => self.arrive(now, link, frame, q),
            // Every wake-up an IMP asked for goes back to it (`Imp::handle_timeout`): the end
            // of its processor's task, a retransmission, a RFNM's 1 s wait, an unused
            // allocation's 250 ms, a block's disuse. The two of every packet (its task's end,
            // its retransmission timer) are each a step of their own, compiled in here with
            // the timer's kind known; the rare ones share `Subnet::timeout`.
            Ev::Task { imp, epoch } => {
                let timer = TimerId::Task { generation: epoch };
                self.step_in(now, imp, q, |i, net, out| {
                    i.handle_timeout(now, timer, net, out)
                });
            }
            Ev::Retransmit {
                imp,
                line,
                lch,
                epoch,
            } => {
                let timer = TimerId::Retransmit {
                    line: line as usize,
                    lch,
                    generation: epoch,
                };
                self.step_in(now, imp, q, |i, net, out| {
                    i.handle_timeout(now, timer, net, out)
                });
            }
            Ev::Clock { imp } => self.clock(now, imp, q),
            Ev::RoutingTick { link } => self.routing_tick(now, link, q),
            Ev::RoutingAtTick { imp, tick } => self.routing_at_tick(now, imp, tick, q),
            Ev::HostOutputDone { imp, host } => self.host_output_done(now, imp, host, q),
            Ev::RfnmWait { imp, epoch } => {
                let timer = TimerId::RfnmWait { generation: epoch };
                self.timeout(now, imp, timer, q);
            }
            Ev::GiveBack { imp, dst, epoch } => {
                let timer = TimerId::GiveBack {
                    dst,
                    generation: epoch,
                };
                self.timeout(now, imp, timer, q);
            }
            Ev::Scripted { index } => self.scripted(now, index, q),
            Ev::LineChange { line, up } => self.line_change(now, line, up, q),
            Ev::Arrival { host } => self.background_arrival(now, host, q),
            Ev::BlockIdle { imp, stream } => {
                let timer = TimerId::BlockIdle { stream };
                self.timeout(now, imp, timer, q);
            }
            Ev::OutputReady { imp, line } => {
                let timer = TimerId::OutputReady {
                    line: line as usize,
                };
                self.timeout(now, imp, timer, q);
            }
            Ev::BackgroundReply { imp } => self.timeout(now, imp, TimerId::BackgroundReply, q),
            Ev::ReplyGap { imp } => self.timeout(now, imp, TimerId::ReplyGap, q),
            Ev::GvbMesget { imp } => self.timeout(now, imp, TimerId::GvbMesget, q),
            Ev::ReplyToHost { msg } => {
                let reply = self.replies.remove(&msg).expect("a reply on its way");
                self.reply_at_host(now, msg, reply, q);
            }
            Ev::Observe(tick) => self.observe(now, tick, q),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// No two components draw from the same random stream, however large the network: 400,000
    /// line directions (a 100,000-IMP chain has 199,998), a background host on each of 65,536
    /// IMPs, and 1,000 traffic entries (issue 15: `1000 + i` and `2000 + k` used to meet once
    /// a network had more than 1,000 line directions).
    #[test]
    fn random_streams_never_collide() {
        let lines: BTreeSet<u64> = (0..400_000).map(line_stream).collect();
        let background: BTreeSet<u64> = (0..=u16::MAX as usize).map(background_stream).collect();
        let pairs: BTreeSet<u64> = (0..1000).map(pairs_stream).collect();
        let late: BTreeSet<u64> = (0..400_000).map(lateness_stream).collect();
        assert_eq!(lines.len(), 400_000);
        assert_eq!(late.len(), 400_000);
        for set in [&lines, &background, &pairs, &late] {
            assert!(!set.contains(&clock_stream()));
        }
        assert!(lines.is_disjoint(&background));
        assert!(lines.is_disjoint(&pairs));
        assert!(background.is_disjoint(&pairs));
        for set in [&lines, &background, &pairs] {
            assert!(late.is_disjoint(set));
        }
        // The first 1000 line directions keep the streams they always had.
        assert_eq!(line_stream(0), 1000);
        assert_eq!(line_stream(999), 1999);
        // At the largest network allowed (MAX_IMPS IMPs, lines of up to 16 directions each):
        // the namespaces are increasing ranges that do not meet.
        let max_imps = crate::topology::MAX_IMPS;
        assert!(line_stream(999) < background_stream(0));
        assert!(background_stream(max_imps - 1) < line_stream(1000));
        assert!(line_stream(16 * max_imps) < pairs_stream(0));
        assert!(pairs_stream(1000) < clock_stream());
        assert!(clock_stream() < lateness_stream(0));
    }
}

#[cfg(test)]
mod clock_tests {
    use super::*;
    use crate::params::ImpModel;

    /// Ten IMPs' first ticks and tick counts under `clocks`, from `seed`.
    fn starts(clocks: ImpClocks, seed: u64) -> (Vec<SimDuration>, Vec<u64>) {
        let mut p = ImpParams::v2_1974_10();
        p.imp_clocks = clocks;
        let mut imps: Vec<Imp> = (0..10)
            .map(|i| {
                let own = ImpSettings::test(ImpModel::H516, 40, 10);
                Imp::new(i, format!("IMP{i}"), own, Limits::of(&p))
            })
            .collect();
        let s = clock_starts(&p, &mut imps, &RngStreams::new(seed));
        (s, imps.iter().map(|i| i.cpu.ticks).collect())
    }

    /// When each IMP's first slow tick comes (every 25th tick, counted from its count).
    fn slow_ticks(s: &[SimDuration], ticks: &[u64]) -> Vec<u64> {
        let fast = ImpParams::v2_1974_10().fast_tick.as_nanos();
        s.iter()
            .zip(ticks)
            .map(|(t, &k)| t.as_nanos() + (24 - k % 25) * fast)
            .collect()
    }

    /// `imp_clocks = "epoch"`: every IMP's clock started at one instant, every tick at the same
    /// time (the recorded runs of the program). `"together"`: the first ticks staggered over one
    /// fast tick, so every slow tick falls in the same fast tick. `"apart"`: each at a phase of
    /// its own, drawn from the seed — the same for the same seed — so the slow ticks spread over
    /// the 640 ms cycle.
    #[test]
    fn imp_clocks_start_at_one_instant_together_or_apart() {
        let fast = 25_600_000;
        let (e, ke) = starts(ImpClocks::Epoch, 1);
        assert!(e.iter().all(|t| t.as_nanos() == 0) && ke.iter().all(|&k| k == 0));
        assert_eq!((e, ke), starts(ImpClocks::Epoch, 2));
        let (s, k) = starts(ImpClocks::Together, 1);
        assert_eq!(s[9].as_nanos(), fast * 9 / 10);
        assert!(k.iter().all(|&k| k == 0));
        let slow = slow_ticks(&s, &k);
        assert!(slow.iter().max().unwrap() - slow.iter().min().unwrap() < fast);
        let (a, ka) = starts(ImpClocks::Apart, 1);
        assert_eq!((a.clone(), ka.clone()), starts(ImpClocks::Apart, 1));
        assert_ne!((a.clone(), ka.clone()), starts(ImpClocks::Apart, 2));
        assert!(a.iter().all(|t| t.as_nanos() < fast) && ka.iter().all(|&k| k < 25));
        let slow = slow_ticks(&a, &ka);
        assert!(
            slow.iter().max().unwrap() - slow.iter().min().unwrap() > 10 * fast,
            "{slow:?}"
        );
    }
}

#[cfg(test)]
mod procedure_tests {
    //! The versions' differences, read through [`version::of`].
    use super::*;
    use crate::e2e::version;
    use crate::params::MessageProcessing;

    fn host(imp: u32) -> Host {
        Host::new(format!("host on IMP {imp}"), imp)
    }

    /// Hosts 0 and 1 on IMP 5, host 2 on IMP 9.
    fn hosts() -> Vec<Host> {
        vec![host(5), host(5), host(9)]
    }

    #[test]
    fn version_2_numbers_messages_per_imp_pair() {
        // K&O §III: "message sequence numbers allocated per source IMP-destination IMP pair":
        // two hosts on one IMP share the numbers to a destination IMP.
        let (v2, h) = (version::of(MessageProcessing::V2), hosts());
        let imp_of = |k: u32| h[k as usize].imp;
        assert_eq!(v2.stream(&imp_of, 0, 2), v2.stream(&imp_of, 1, 2));
        assert_eq!(v2.stream_src(&imp_of, v2.stream(&imp_of, 1, 2)), 5);
    }

    #[test]
    fn version_3_numbers_messages_per_host_pair() {
        // K&O §VI: "message sequencing is now done on the basis of HOST-to-HOST pairs".
        let (v3, h) = (version::of(MessageProcessing::V3), hosts());
        let imp_of = |k: u32| h[k as usize].imp;
        assert_ne!(v3.stream(&imp_of, 0, 2), v3.stream(&imp_of, 1, 2));
        assert_eq!(v3.stream_src(&imp_of, v3.stream(&imp_of, 1, 2)), 5);
    }

    #[test]
    fn the_order_of_acquisition_differs() {
        // Version 2: number, PLT entry, then an allocation (a REQALL steals number and entry,
        // the message starts again at point b). Version 3 (K&O §VI): "message number,
        // reassembly buffers, and PLT entry"; a message keeps its number while it waits.
        let (v2, v3) = (
            version::of(MessageProcessing::V2),
            version::of(MessageProcessing::V3),
        );
        assert!(!v2.allocation_before_plt() && v3.allocation_before_plt());
        assert_eq!(v2.first_state(), MsgState::NeedNumber);
        assert_eq!(v3.first_state(), MsgState::NeedBlock);
        assert_eq!(v2.allocated_state(), MsgState::NeedNumber);
        assert_eq!(v3.allocated_state(), MsgState::NeedAll);
    }
}
