//! Modelled IMPs in a network of IMPs that run the program (issue 73 §3: `network.program.imps`
//! naming fewer than all). The modelled IMPs are nmc's model ([`nmc_imp::Stepper`] with the
//! emulated IMPs outside it, `nmc_imp::model` `boundary.rs`); each line between a modelled IMP
//! and an emulated one has at the modelled end a [`Neighbour`], which speaks program 3050's line
//! protocol toward the program (hello, "I heard you", channels, acknowledgements,
//! retransmission, routing messages) and which this module times on the line.
//!
//! * **The program's packets and replies** cross the modelled IMPs as their own words: a frame
//!   from the program that the neighbour offers goes into the modelled IMP, which takes it or
//!   refuses it by its own rules (K&O §III; refused, the neighbour does not acknowledge it and
//!   the program sends it again); it is routed, queued and processed there as any packet in
//!   transit, and leaves by the neighbour on its way out, which acknowledges it back to the
//!   model when the program does.
//! * **Routing**: each neighbour tells the program its modelled IMP's distances as the
//!   program's routing messages give them (`neighbour/PROTOCOL.md` §4.5), along the model's
//!   static shortest paths: 4 units of delay a modelled hop, the program's own unit on an idle
//!   line (p. 176 `JED`); where the path leaves the model for an emulated IMP, that IMP's own
//!   latest entry plus the hop to it (1 hop, 4 units and one a packet in flight on the line, as
//!   the program adds, p. 225 `DELOUR`). A modelled IMP never offers an emulated neighbour a way
//!   to a destination better than that neighbour's own: it would take it, and send its packets
//!   back and forth (the program has no split horizon, p. 231; seen on a 9-hop chain before this
//!   rule, when static distances were offered). The modelled IMPs route statically.
//! * **Time**: the emulated IMPs run each lockstep window first; then the modelled side runs to
//!   the window's end, event by event in time order — the program's frames arriving (all sent
//!   in earlier windows: a window is shorter than any frame), the neighbours' frames starting,
//!   the model's own events. A neighbour's frame reaches its emulated IMP after the window.
//!
//! * **Hosts on modelled IMPs** are the model's, with its pumps and background hosts, started
//!   at the run's time 0 (the background hosts on emulated IMPs are the program run's);
//!   their messages, and the program's hosts' messages to them, cross the boundary translated
//!   between the two end-to-end protocols ([`translate`]). The program's reports to a modelled
//!   IMP with no discard host of the model's are answered here.
//!
//! Not built: the model's adaptive routing beside the program's, and line errors on the boundary lines' frames from the program (the emulated
//! IMP's side draws them, as on every line).

pub mod translate;

use anyhow::{Result, anyhow};
use nmc_imp::Stepper;
use nmc_imp::model::{BoundaryLine, Carried, Incoming, Native, Outgoing};
use nmc_imp::spec::{ImpConfig, RoutingMode, TrafficSpec};
use nmc_imp::topology::{Routes, Topology};
use nmc_sim::{SimTime, Stream};
use std::collections::VecDeque;

use crate::neighbour::frame::{self, IMP_NUMBERS, Kind, UNREACHABLE};
use crate::neighbour::{Event, Neighbour, SpeedType};
use std::collections::BTreeMap;
use translate::{In, Out, Role, Translator};

/// One line between a modelled IMP and an emulated one, at the modelled end.
struct Edge {
    line: BoundaryLine,
    /// The emulated IMP (network index) and its modem.
    far: (usize, u8),
    nb: Neighbour,
    bps: u64,
    prop_ns: u64,
    /// The neighbour's transmitter is busy until then.
    free_at: u64,
    /// Per neighbour channel: the model's channel and bit for the packet on it, and its words
    /// (to send again if the line is reset before the program took it).
    held: [Option<(u8, bool, Vec<u16>)>; 8],
    /// Frames from the program on their way: last bit in, words, checksum good.
    flying: VecDeque<(u64, Vec<u16>, bool)>,
    /// The serial number of the program's last routing message on the line.
    serial: Option<u8>,
    /// Line errors of the direction out of the model.
    errors: Stream,
    /// The modelled IMP may have a packet for the line.
    wants: bool,
    /// One of the model's packets taken for the line that waits for a message number of the
    /// program's ([`Out::Wait`]).
    parked: Option<Outgoing>,
}

/// How a modelled IMP's static path to an IMP goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    /// Inside the model all the way, this many hops.
    Inside(u32),
    /// Out of the model over boundary line `edge` after `hops` modelled hops.
    Out { edge: usize, hops: u32 },
    /// No static path.
    None,
}

/// What the modelled side did, for the run's summary and notes.
#[derive(Clone, Copy, Debug, Default)]
pub struct MixedCounts {
    /// Times a boundary line came up.
    pub ups: u64,
    /// Kills.
    pub downs: u64,
    /// Packets from the program for an IMP not in the network, left.
    pub misaddressed: u64,
    /// The program's single-packet messages to a modelled IMP's fake host, answered by a RFNM.
    pub answered: u64,
    /// Other packets for a modelled IMP: taken, not answered.
    pub unanswered: u64,
}

/// A frame from a neighbour to an emulated IMP: arrival, (IMP, modem), words, checksum good,
/// and the line direction it went on, with its first and last bit.
pub type ToProgram = (u64, (usize, u8), Vec<u16>, bool, u32, u64, u64);

/// The modelled IMPs of a network of both kinds, and the neighbours at their boundary lines.
pub struct Mixed {
    st: Stepper,
    edges: Vec<Edge>,
    /// IMP number of each network index.
    numbers: Vec<u8>,
    /// Modelled, by network index.
    pub modelled: Vec<bool>,
    framing_bits: u64,
    ber: f64,
    /// What the modelled side did.
    pub counts: MixedCounts,
    /// Each link's use in the model at the scenario's time 0.
    zero: Vec<(u64, u64)>,
    /// The scenario's time 0, once known: the model's lines are counted from it.
    pub zero_at: Option<u64>,
    /// Per boundary line, per network index: how its modelled IMP's static path goes.
    ways: Vec<Vec<Way>>,
    /// The two end-to-end protocols' tables.
    pub tr: Translator,
    /// The model's pumps (source and destination IMPs) and how the static path of each goes.
    pumps: Vec<(usize, usize, Way)>,
    /// When each pump's next probe may go (one to an emulated IMP's discard host every
    /// [`crate::program::PROBE_EVERY_NS`] while its path is up and none has been answered).
    probe_at: Vec<u64>,
}

/// The model's configuration for the modelled side of scenario `s`: its network (every IMP,
/// lines and machines) and profile, static routes, the scenario's hosts (those on emulated
/// IMPs only as addresses) and the pumps of hosts on modelled IMPs (`modelled_host`, by the
/// host's name; the other traffic is the program run's), nothing recorded.
pub fn model_config(s: &ImpConfig, modelled_host: &dyn Fn(&str) -> bool) -> ImpConfig {
    let mut m = s.clone();
    m.network.program = None;
    m.traffic.retain(|t| match t {
        TrafficSpec::Pump { from, .. } => modelled_host(from),
        // Its hosts on emulated IMPs send nothing in the model (`Stepper::with_outside_imps`).
        TrafficSpec::Background(_) => true,
        _ => false,
    });
    m.network.routing = RoutingMode::Static;
    // A numbered GVB's reply (`gvb_number = "mesget-1973"`) is not carried across the boundary
    // (`Stepper::with_outside_imps` refuses it): the modelled IMPs give back unnumbered, as
    // before the fourteenth rule; the emulated ones run the program.
    m.network.params.gvb_number = nmc_imp::params::GvbNumber::None;
    // The emulated IMPs all start at 0 (as the recorded runs did): the modelled ones start
    // at the same instant (`imp_clocks = "epoch"`), not at phases drawn from the seed.
    m.network.params.imp_clocks = nmc_imp::params::ImpClocks::Epoch;
    m.record.clear();
    m.trace = false;
    m
}

impl Mixed {
    /// The modelled side of `s` on network `net` (its lines and modems as the program run's),
    /// `modelled` by network index, from `seed`; `errors` gives each line direction's stream of
    /// line errors and `ber` the bit error rate.
    pub fn new(
        s: &ImpConfig,
        net: &crate::map::MapNetwork,
        modelled: Vec<bool>,
        settings: &crate::run::Settings,
        seed: u64,
        errors: &dyn Fn(usize) -> Stream,
        ber: f64,
    ) -> Result<Mixed> {
        let outside: Vec<&str> = net
            .names
            .iter()
            .zip(&modelled)
            .filter(|(_, m)| !**m)
            .map(|(n, _)| n.as_str())
            .collect();
        let on_modelled = |imp: &str| net.index(imp).is_some_and(|i| modelled[i]);
        let mut hosts: BTreeMap<u32, (u32, Role)> = (0u32..)
            .zip(&s.network.hosts)
            .map(|(k, h)| {
                let role = if h.fake { Role::Fake } else { Role::Real };
                (k, (net.index(&h.imp).unwrap_or(0) as u32, role))
            })
            .collect();
        let host_on_modelled = |name: &str| {
            s.network
                .hosts
                .iter()
                .any(|h| h.name == name && on_modelled(&h.imp))
        };
        let st = Stepper::with_outside_imps(&model_config(s, &host_on_modelled), seed, &outside)
            .map_err(|e| anyhow!("the modelled IMPs: {}", e.0))?;
        let numbers = net.net.imps.clone();
        for (k, imp) in st.background_hosts() {
            hosts.insert(k, (imp, Role::Background));
        }
        let tr = Translator::new(numbers.clone(), modelled.clone(), hosts.clone());
        let pumps: Vec<(usize, usize)> = s
            .traffic
            .iter()
            .filter_map(|t| match t {
                TrafficSpec::Pump { from, to, .. } if host_on_modelled(from) => {
                    let at = |n: &str| {
                        let i = s.network.hosts.iter().position(|h| h.name == n)?;
                        Some(hosts[&(i as u32)].0 as usize)
                    };
                    Some((at(from)?, at(to)?))
                }
                _ => None,
            })
            .collect();
        let mut edges = Vec::new();
        for line in st.boundary_lines() {
            // Line j of the network is the topology's links 2j (a → b) and 2j + 1 (b → a).
            let j = line.out as usize / 2;
            let l = &net.net.lines[j];
            let far = if line.out % 2 == 0 { l.b } else { l.a };
            debug_assert_eq!(far.0, line.far as usize);
            let bps = u64::from(l.bps.unwrap_or(settings.line_bps));
            let speed = SpeedType::of(bps, u64::from(settings.framing_bits));
            let own = numbers[line.imp as usize];
            let nb = Neighbour::new(own, speed, 0);
            edges.push(Edge {
                line,
                far,
                nb,
                bps,
                prop_ns: l.prop_ns.unwrap_or(settings.prop_ns),
                free_at: 0,
                held: Default::default(),
                flying: VecDeque::new(),
                serial: None,
                errors: errors(line.out as usize),
                wants: false,
                parked: None,
            });
        }
        let topo = &net.topology;
        let ways = edges
            .iter()
            .map(|e| {
                (0..numbers.len())
                    .map(|i| way(topo, &modelled, &edges, e.line.imp, i as u32))
                    .collect()
            })
            .collect();
        let pumps: Vec<(usize, usize, Way)> = pumps
            .into_iter()
            .map(|(a, b)| (a, b, way(topo, &modelled, &edges, a as u32, b as u32)))
            .collect();
        let mut me = Mixed {
            probe_at: vec![0; pumps.len()],
            pumps,
            st,
            edges,
            numbers,
            modelled,
            framing_bits: u64::from(settings.framing_bits),
            ber,
            counts: MixedCounts::default(),
            zero: Vec::new(),
            zero_at: None,
            ways,
            tr,
        };
        me.tables();
        Ok(me)
    }

    /// Every neighbour's table from the modelled IMPs' static paths and the emulated
    /// neighbours' latest entries (the module's "Routing").
    fn tables(&mut self) {
        for k in 0..self.edges.len() {
            let mut t = [UNREACHABLE; IMP_NUMBERS];
            for (i, &n) in self.numbers.iter().enumerate() {
                t[usize::from(n) % IMP_NUMBERS] = match self.ways[k][i] {
                    Way::Inside(0) => 0,
                    Way::Inside(h) if h < 21 => frame::entry(h, 4 * h),
                    Way::Out { edge, hops } => {
                        let e = &self.edges[edge];
                        let p = e.nb.peer_table()[usize::from(n) % IMP_NUMBERS];
                        let (ph, pd) = frame::entry_parts(p);
                        let busy = e.held.iter().filter(|h| h.is_some()).count() as u32;
                        if p == UNREACHABLE || ph + hops + 1 >= 21 {
                            UNREACHABLE
                        } else {
                            frame::entry(ph + hops + 1, pd + 4 * hops + 4 + busy)
                        }
                    }
                    _ => UNREACHABLE,
                };
            }
            self.edges[k].nb.set_table(&t);
        }
    }

    /// The first of the model's pumps whose path is not yet up, as (source, destination)
    /// IMPs: its path leaves the model by a line not yet up, or by one whose emulated IMP has
    /// no route to the destination yet (the program's own pumps wait for a probe's RFNM,
    /// `program.rs`); `None` when all are.
    pub fn pumps_up(&self) -> Option<(usize, usize)> {
        self.pumps.iter().find_map(|&(a, b, w)| {
            let up = self.path_up(w, b) && (self.modelled[b] || self.tr.probed(a as u32, b as u32));
            (!up).then_some((a, b))
        })
    }

    /// The static path `w` to IMP `b` leaves the model by a line that is up, to an emulated
    /// IMP with a route to `b`.
    fn path_up(&self, w: Way, b: usize) -> bool {
        match w {
            Way::Inside(_) => true,
            Way::Out { edge, .. } => {
                let nb = &self.edges[edge].nb;
                let n = usize::from(self.numbers[b]) % IMP_NUMBERS;
                nb.is_up() && nb.peer_table()[n] != UNREACHABLE
            }
            Way::None => false,
        }
    }

    /// Each of the model's pumps to an emulated IMP, until a probe is answered: a probe to
    /// that IMP's discard host every [`crate::program::PROBE_EVERY_NS`] while the path is up.
    fn probe(&mut self, now: u64) -> Result<()> {
        if self.zero_at.is_some() {
            return Ok(());
        }
        for k in 0..self.pumps.len() {
            let (a, b, w) = self.pumps[k];
            let (a32, b32) = (a as u32, b as u32);
            if self.modelled[b]
                || self.tr.probed(a32, b32)
                || now < self.probe_at[k]
                || !self.path_up(w, b)
            {
                continue;
            }
            self.probe_at[k] = now + crate::program::PROBE_EVERY_NS;
            if let Some(words) = self.tr.probe(a32, b32) {
                let p = Incoming {
                    src: a32,
                    dst: b32,
                    words,
                    control: false,
                    bits: 16,
                    native: None,
                };
                self.st
                    .boundary_send(a32, p)
                    .map_err(|e| anyhow!("the modelled side: {}", e.0))?;
            }
        }
        Ok(())
    }

    /// The boundary line whose program end is modem `modem` of emulated IMP `imp`, if any.
    pub fn edge_at(&self, imp: usize, modem: u8) -> Option<usize> {
        self.edges.iter().position(|e| e.far == (imp, modem))
    }

    /// Boundary line `edge`'s direction into the model (the program's frames), and its
    /// propagation.
    pub fn back_link(&self, edge: usize) -> (u32, u64) {
        let e = &self.edges[edge];
        (e.line.back, e.prop_ns)
    }

    /// A frame from the program on boundary line `edge`, its last bit in at `at`.
    pub fn frame_from_program(&mut self, edge: usize, at: u64, words: Vec<u16>, ok: bool) {
        self.edges[edge].flying.push_back((at, words, ok));
    }

    /// The modelled side from its clock to `end`, event by event; the neighbours' frames to
    /// the emulated IMPs are returned, to deliver after the window.
    pub fn run_to(&mut self, end: u64) -> Result<Vec<ToProgram>> {
        let mut out = Vec::new();
        let (mut last, mut same) = (u64::MAX, 0u32);
        loop {
            let now = self.st.now().as_nanos();
            let arrival = self
                .edges
                .iter()
                .filter_map(|e| e.flying.front().map(|f| f.0))
                .min()
                .unwrap_or(u64::MAX);
            let wake = self
                .edges
                .iter()
                .map(|e| {
                    let own = e.nb.poll_at().max(e.free_at);
                    // The modelled IMP's packet waits for a free channel on the line (an
                    // acknowledgement or the line coming up wakes it), or for a message
                    // number (a reply does).
                    let can = e.nb.unsent() == 0 && e.nb.free_channels() > 0;
                    if e.wants && e.parked.is_none() && can {
                        own.min(e.free_at)
                    } else {
                        own
                    }
                })
                .min()
                .unwrap_or(u64::MAX)
                .max(now);
            let model = self.st.poll_at().map_or(u64::MAX, |t| t.as_nanos());
            let zero = match (self.zero_at, self.zero.is_empty()) {
                (Some(z), true) => z.max(now),
                _ => u64::MAX,
            };
            let t = arrival.min(wake).min(model).min(zero);
            if t >= end {
                self.st.advance(SimTime::from_nanos(end));
                return Ok(out);
            }
            // Each pass handles something due at `t`; one that keeps coming back without
            // time moving is a bug, said rather than spun on.
            same = if t == last { same + 1 } else { 0 };
            last = t;
            if same > 100_000 {
                anyhow::bail!("the modelled side makes no progress at {t} ns");
            }
            self.st.advance(SimTime::from_nanos(t));
            if t == zero {
                self.mark_zero();
            }
            self.answer()?;
            self.probe(t)?;
            for k in 0..self.edges.len() {
                while self.edges[k].flying.front().is_some_and(|f| f.0 <= t) {
                    let (at, words, ok) = self.edges[k].flying.pop_front().expect("a frame");
                    self.frame_in(k, at, &words, ok)?;
                }
            }
            self.pull();
            for k in 0..self.edges.len() {
                self.transmit(k, t, &mut out);
            }
        }
    }

    /// A frame from the program reaches the neighbour on edge `k`, and what it carried the
    /// modelled IMP.
    fn frame_in(&mut self, k: usize, at: u64, words: &[u16], ok: bool) -> Result<()> {
        let offer = self.edges[k].nb.frame_in(at, words, ok);
        let events: Vec<Event> = std::iter::from_fn(|| self.edges[k].nb.poll_event()).collect();
        let mut acks = Vec::new();
        let routing = events
            .iter()
            .any(|e| matches!(e, Event::Routing | Event::Up | Event::Down { .. }));
        for ev in events {
            let e = &mut self.edges[k];
            match ev {
                Event::Acked { channel, .. } => {
                    if let Some((lch, bit, _)) = e.held[usize::from(channel & 7)].take() {
                        acks.push((lch, bit));
                    }
                }
                Event::Up => self.counts.ups += 1,
                Event::Down { .. } => {
                    self.counts.downs += 1;
                    self.st.boundary_reset(e.line.back);
                }
                Event::Dropped { words } => {
                    // Reset before the program took it: queued again for when the line is back.
                    let c = e
                        .held
                        .iter()
                        .position(|h| h.as_ref().is_some_and(|h| h.2 == words));
                    if let Some((lch, bit, w)) = c.and_then(|c| e.held[c].take()) {
                        let reply = w[0] & frame::head::TRNREP == 0;
                        if let Some(n) = e.nb.send(w.clone(), reply) {
                            e.held[usize::from(n)] = Some((lch, bit, w));
                        }
                    }
                }
                Event::Routing => {}
            }
        }
        let mut gvb = None;
        let carried = match &offer {
            Some(o) => match self.incoming(&o.words) {
                Some(mut packet) => {
                    let tr = self.tr.into_model(packet.src, packet.dst, &packet.words);
                    if let In::Native(n) = tr {
                        if n == Native::Gvb && !self.modelled[packet.src as usize] {
                            gvb = Some((packet.src, packet.dst, packet.words.clone()));
                        }
                        packet.native = Some(n);
                    }
                    Carried::Packet {
                        lch: o.channel & 7,
                        bit: o.odd_even,
                        packet,
                    }
                }
                None => {
                    self.counts.misaddressed += 1;
                    Carried::Null
                }
            },
            None => match ok.then(|| frame::classify(words)) {
                Some(Ok(Kind::Routing { serial, .. })) => {
                    let e = &mut self.edges[k];
                    let fresh = e.serial != Some(serial);
                    e.serial = Some(serial);
                    Carried::Routing { fresh }
                }
                _ => Carried::Null,
            },
        };
        if routing {
            self.tables();
        }
        let back = self.edges[k].line.back;
        let taken = self
            .st
            .boundary_frame_in(back, &acks, carried)
            .map_err(|e| anyhow!("the modelled side: {}", e.0))?;
        if let (true, Some(o)) = (taken, &offer) {
            self.edges[k].nb.accept(o);
        }
        if let (true, Some((src, dst, words))) = (taken, gvb) {
            // The program's GVB, given back in the model: answered as its destination does.
            let (reply, num) = self.tr.gvb_answer(src, dst, &words);
            self.st.boundary_skip(dst, src, num);
            self.send_reply(dst, src, reply)?;
        }
        Ok(())
    }

    /// Modelled IMP `imp` sends the program's reply `words` to emulated IMP `to`.
    fn send_reply(&mut self, imp: u32, to: u32, words: Vec<u16>) -> Result<()> {
        let reply = Incoming {
            src: imp,
            dst: to,
            words,
            control: true,
            bits: 0,
            native: None,
        };
        self.st
            .boundary_send(imp, reply)
            .map_err(|e| anyhow!("the modelled side: {}", e.0))
    }

    /// The program's packets that reached a modelled IMP, their destination, answered as the
    /// program's own fake host answers them. These are the program's reports: its background
    /// sends statistics and trouble reports to the NCC's IMP (5), or to the first IMP it finds
    /// up when that one is not (listing p. 45 `BACKST`, p. 48 `BKWD1`), as single-packet
    /// messages to fake host 3, the discard host, which takes them and is answered by a RFNM
    /// (p. 155 `IH63`). The RFNM is built as the program's background builds one (p. 52–53
    /// `BACK0`, `neighbour/PROTOCOL.md` §1.4: HEAD the message number and ONEOR8 + RFNM,
    /// HEAD1 the source IMP, HEAD2 the answering IMP) and sent from the modelled IMP as its own
    /// control message, and its number skipped in the model (it carries no message of the
    /// model's). Anything else that reaches a modelled IMP as the program's words (the
    /// program's answers to the model's GVBs and probes, "destination dead") is taken and
    /// counted, not answered.
    fn answer(&mut self) -> Result<()> {
        use frame::head;
        for a in self.st.boundary_arrived() {
            let w = &a.words;
            let single = w.len() >= 3
                && w[0] & head::TRNREP != 0
                && w[0] & head::ONEOR8 != 0
                && w[0] & (head::GVB_OR_ALLOC | head::INCTRN) == 0;
            if !single {
                self.counts.unanswered += 1;
                continue;
            }
            let rfnm = vec![
                (w[0] & head::MESSNO) | head::ONEOR8 | head::REQALL_OR_RFNM,
                u16::from(self.numbers[a.src as usize]),
                u16::from(self.numbers[a.imp as usize]),
            ];
            self.send_reply(a.imp, a.src, rfnm)?;
            // Its number carries no message of the model's: the ones after it go on.
            let num = self.tr.unwrap(a.src, a.imp, (w[0] >> 8) as u8);
            self.st.boundary_skip(a.imp, a.src, num);
            self.counts.answered += 1;
        }
        Ok(())
    }

    /// The packet a whole frame from the program carries, as the model takes it; `None` if it
    /// is for an IMP not in the network.
    fn incoming(&self, words: &[u16]) -> Option<Incoming> {
        let n = words.len();
        if n < frame::MIN_WORDS {
            return None;
        }
        let index = |number: u16| {
            self.numbers
                .iter()
                .position(|&x| u16::from(x) == number & 0o77)
                .map(|i| i as u32)
        };
        // HEAD1's and HEAD2's IMP fields (p. 15): where it goes (a reply's: the source it
        // answers) and where it came from.
        let (dst, src) = (index(words[2])?, index(words[3])?);
        let control = words[1] & frame::head::TRNREP == 0;
        // A data frame has 6 words of overhead (ACKH, HEAD–HEAD3, the checksum: the model's
        // 168 bits with the 72 of framing); a reply 5 (152).
        let overhead = if control { 5 } else { 6 };
        Some(Incoming {
            src,
            dst,
            words: words[1..n - 1].to_vec(),
            control,
            bits: (n.saturating_sub(overhead) * 16) as u64,
            native: None,
        })
    }

    /// The boundary lines the modelled IMPs have had something for since last asked.
    fn pull(&mut self) {
        for l in self.st.boundary_ready() {
            if let Some(e) = self.edges.iter_mut().find(|e| e.line.out == l) {
                e.wants = true;
            }
        }
    }

    /// Edge `k`'s neighbour starts its next frame at `t` if its line is free: first, if it has
    /// no packet of its own waiting, the modelled IMP's next packet is handed to it. A packet
    /// leaves the model's queue when the line can take it, as on the model's own lines
    /// (`Imp::poll_transmit`): the model's output queue and channels count as they do there.
    fn transmit(&mut self, k: usize, t: u64, out: &mut Vec<ToProgram>) {
        let framing = self.framing_bits;
        let ber = self.ber;
        if self.edges[k].free_at > t {
            return;
        }
        let e = &self.edges[k];
        if e.nb.unsent() == 0 && e.nb.free_channels() > 0 {
            let (wants, out) = (e.wants, e.line.out);
            let next = match self.edges[k].parked.take() {
                Some(o) => Some((o, true)),
                None if wants => {
                    let o = self.st.boundary_take(out);
                    if o.is_none() {
                        self.edges[k].wants = false;
                    }
                    o.map(|o| (o, false))
                }
                None => None,
            };
            if let Some((o, parked)) = next {
                self.hand_out(k, o, parked);
            }
        }
        let e = &mut self.edges[k];
        let Some(words) = e.nb.poll_transmit(t) else {
            return;
        };
        let bits = words.len() as u64 * 16 + framing;
        let last = t + (bits * 1_000_000_000).div_ceil(e.bps.max(1));
        e.free_at = last;
        let hit = ber > 0.0 && {
            let p = 1.0 - (1.0 - ber).powf(bits as f64);
            e.errors.unit() < p
        };
        out.push((last + e.prop_ns, e.far, words, !hit, e.line.out, t, last));
    }

    /// Edge `k`'s neighbour takes packet `o` from the modelled IMP: the program's words as
    /// they came, or one of the model's own translated ([`translate`]); one that waits for a
    /// message number stays parked, its channel on the model's side held.
    fn hand_out(&mut self, k: usize, o: Outgoing, parked_before: bool) {
        let (words, reply) = match &o.native {
            None => (o.words.clone(), o.control),
            Some(p) => match self.tr.out(p) {
                Out::Send { words, reply } => (words, reply),
                Out::Wait => {
                    if !parked_before {
                        self.tr.counts.waited += 1;
                    }
                    self.edges[k].parked = Some(o);
                    return;
                }
                Out::Drop => {
                    // Off its channel, as the model's own packets that cannot cross.
                    let (lch, bit) = (o.lch, o.bit);
                    let back = self.edges[k].line.back;
                    let _ = self
                        .st
                        .boundary_frame_in(back, &[(lch, bit)], Carried::Null);
                    return;
                }
            },
        };
        let e = &mut self.edges[k];
        if let Some(c) = e.nb.send(words.clone(), reply) {
            e.held[usize::from(c)] = Some((o.lch, o.bit, words));
        }
    }

    /// The scenario's time 0 is now: lines between modelled IMPs are counted from here.
    fn mark_zero(&mut self) {
        self.st.start_hosts();
        self.zero = (0u32..)
            .map_while(|l| self.st.line_use(l))
            .map(|(f, b)| (f, b.as_nanos()))
            .collect();
    }

    /// Link `l` between two modelled IMPs: frames started and ns sending since time 0.
    pub fn line_use(&self, l: usize) -> (u64, u64) {
        let (f, b) = self.st.line_use(l as u32).unwrap_or_default();
        let (f0, b0) = self.zero.get(l).copied().unwrap_or_default();
        (f - f0, b.as_nanos() - b0)
    }

    /// The model's pumps' messages answered so far (times from power-on), taken out.
    pub fn take_messages(&mut self) -> Vec<nmc_imp::observe::MessageRecord> {
        self.st.take_messages()
    }

    /// The modelled IMPs' background hosts' messages: offered, delivered to the model's
    /// hosts, answered, refused ([`Stepper::background_tally`]).
    pub fn background_tally(&self) -> [u64; 4] {
        self.st.background_tally()
    }

    /// What crossed the boundary, as the model counted it.
    pub fn boundary_counts(&self) -> nmc_imp::model::BoundaryCounts {
        self.st.boundary_counts()
    }
}

/// How modelled IMP `from`'s static path to IMP `to` goes: inside the model, or out over one
/// of `edges` after some modelled hops.
fn way(topo: &Topology, modelled: &[bool], edges: &[Edge], from: u32, to: u32) -> Way {
    let (mut at, mut hops) = (from, 0);
    while at != to {
        let Some((l, next)) = topo
            .next_link(at, to)
            .and_then(|l| topo.link_ends(l).map(|(_, b)| (l, b)))
        else {
            return Way::None;
        };
        if !modelled[next as usize] {
            return edges
                .iter()
                .position(|e| e.line.out == l)
                .map_or(Way::None, |edge| Way::Out { edge, hops });
        }
        at = next;
        hops += 1;
        if hops as usize > modelled.len() {
            return Way::None;
        }
    }
    Way::Inside(hops)
}

#[cfg(test)]
mod tests {
    //! The modelled side between two stand-ins for the program: neighbours, which speak the
    //! program's line protocol ([`crate::neighbour`]; against the program itself in the ignored
    //! tests of `tests/mixed.rs`).

    use super::*;
    use crate::neighbour::Offer;

    const MS: u64 = 1_000_000;
    const S: u64 = 1_000_000_000;

    /// IMP0 – IMP1 – IMP2, IMP1 modelled; IMP0 and IMP2 stood in for by neighbours.
    struct Bench {
        m: Mixed,
        /// The stand-ins: IMP0's end of line 0, IMP2's end of line 1.
        ends: [Neighbour; 2],
        at: [(usize, u8); 2],
        free_at: [u64; 2],
        /// Frames on their way to a stand-in: (arrival, stand-in, words).
        flying: Vec<(u64, usize, Vec<u16>)>,
        taken: [Vec<Offer>; 2],
        numbers: Vec<u8>,
        now: u64,
    }

    impl Bench {
        /// A chain of `hops` (2 or 3; IMP3, if any, emulated and not stood in for).
        fn new(hops: u32) -> Bench {
            Bench::with_hosts(hops, "")
        }

        /// The chain with `hosts` (TOML, the array's items).
        fn with_hosts(hops: u32, hosts: &str) -> Bench {
            let text = format!(
                r#"
name = "mixed"
seed = 1
duration = "10s"
model = "imp"
[network]
profile = "v2-1974-10"
topology = {{ kind = "chain", hops = {hops} }}
hosts = [{hosts}]
[network.program]
imps = ["IMP0", "IMP2", "IMP3"]
"#
            );
            let sc: nmc_imp::scenario::ImpScenario =
                nmc_scenario::load("mixed.toml", &text, &[]).unwrap();
            let s = nmc_imp::scenario::resolve(&sc).unwrap();
            let topology = nmc_imp::topology::Topology::build(&s.network.topology).unwrap();
            let net = crate::map::network_of(
                "network.topology",
                topology,
                &s.network.imp_models,
                s.network.params.default_imp(),
                None,
            )
            .unwrap();
            let settings = crate::run::Settings::default();
            let streams = nmc_sim::RngStreams::new(1);
            let errors = |l: usize| streams.stream(nmc_imp::model::line_stream(l));
            let mut modelled = vec![false; hops as usize + 1];
            modelled[1] = true;
            let m = Mixed::new(&s, &net, modelled, &settings, 1, &errors, 0.0).unwrap();
            let l = &net.net.lines;
            let speed = SpeedType::of(u64::from(settings.line_bps), 72);
            let numbers = net.net.imps.clone();
            Bench {
                ends: [
                    Neighbour::new(numbers[0], speed, 3 * MS),
                    Neighbour::new(numbers[2], speed, 11 * MS),
                ],
                at: [l[0].a, l[1].b],
                free_at: [0; 2],
                flying: Vec::new(),
                taken: [Vec::new(), Vec::new()],
                numbers,
                m,
                now: 0,
            }
        }

        /// Runs to `until` in 1 ms windows: the stand-ins event by event, then the modelled
        /// side; every offer is taken.
        fn run(&mut self, until: u64) {
            let ms = SpeedType::of(50_000, 72);
            while self.now < until {
                let end = self.now + MS;
                loop {
                    let arrival = self.flying.iter().map(|f| f.0).min().unwrap_or(u64::MAX);
                    let wake = (0..2)
                        .map(|i| self.ends[i].poll_at().max(self.free_at[i]).max(self.now))
                        .min()
                        .unwrap();
                    let t = arrival.min(wake);
                    if t >= end {
                        break;
                    }
                    if arrival == t {
                        let k = self.flying.iter().position(|f| f.0 == t).unwrap();
                        let (_, i, words) = self.flying.remove(k);
                        if let Some(o) = self.ends[i].frame_in(t, &words, true) {
                            self.ends[i].accept(&o);
                            self.taken[i].push(o);
                        }
                    }
                    for i in 0..2 {
                        while self.free_at[i] <= t {
                            let Some(words) = self.ends[i].poll_transmit(t) else {
                                break;
                            };
                            let last = t + ms.frame_ns(words.len());
                            self.free_at[i] = last;
                            let edge = self.m.edge_at(self.at[i].0, self.at[i].1).unwrap();
                            self.m.frame_from_program(edge, last + 2 * MS, words, true);
                        }
                    }
                }
                for (arrive, to, words, ok, ..) in self.m.run_to(end).unwrap() {
                    assert!(ok && arrive >= end, "after the window");
                    let i = self.at.iter().position(|&a| a == to).unwrap();
                    self.flying.push((arrive, i, words));
                }
                self.now = end;
            }
        }
    }

    #[test]
    fn a_packet_crosses_the_modelled_imp_and_a_report_to_it_is_answered() {
        let mut b = Bench::new(2);
        b.run(45 * S);
        assert_eq!(b.m.counts.ups, 2, "both lines up");
        assert!(b.ends[0].is_up() && b.ends[1].is_up());
        // The modelled IMP's table as the program reads it: itself 1 hop on, IMP2 2 hops.
        let t = b.ends[0].peer_table();
        let n = |i: usize| usize::from(b.numbers[i]);
        assert_eq!(t[n(1)], 0);
        assert_eq!(t[n(2)], frame::entry(1, 4));
        // A packet of a multi-packet message from IMP0 to IMP2's discard host.
        let packet: Vec<u16> = [
            frame::head::TRNREP,
            0o40300 | b.numbers[2] as u16,
            0o100000 | b.numbers[0] as u16,
            0,
        ]
        .into_iter()
        .chain(0..63)
        .collect();
        b.ends[0].send(packet.clone(), false).unwrap();
        b.run(46 * S);
        let got = b.taken[1].last().expect("IMP2 has it");
        let body = &got.words[1..got.words.len() - 1];
        assert_eq!(body.len(), packet.len());
        // The same words but ENDBIT, which each line sets (p. 65).
        let endbit = frame::head2::ENDBIT;
        assert_eq!(body[2] & !endbit, packet[2]);
        assert_eq!((&body[..2], &body[3..]), (&packet[..2], &packet[3..]));
        let acked =
            std::iter::from_fn(|| b.ends[0].poll_event()).any(|e| matches!(e, Event::Acked { .. }));
        assert!(acked, "IMP0's channel acknowledged by the modelled IMP");
        // A report from IMP0 to the modelled IMP's fake host 3: a single-packet REQ1,
        // answered by a RFNM for its message number.
        let before = b.taken[0].len();
        let report: Vec<u16> = [
            (7 << 8) | 0o304,
            0o40300 | b.numbers[1] as u16,
            0o140300 | b.numbers[0] as u16,
            0,
        ]
        .into_iter()
        .chain(0..30)
        .collect();
        b.ends[0].send(report, false).unwrap();
        b.run(47 * S);
        let rfnm = b.taken[0][before..]
            .iter()
            .find(|o| o.words[1] & frame::head::TRNREP == 0)
            .expect("a reply");
        assert_eq!(rfnm.words[1], (7 << 8) | 0o300, "RFNM for message 7");
        assert_eq!(rfnm.words[2] & 0o77, u16::from(b.numbers[0]));
        assert_eq!(rfnm.words[3] & 0o77, u16::from(b.numbers[1]));
        assert_eq!(b.m.counts.answered, 1);
        let c = b.m.boundary_counts();
        assert_eq!((c.refused, c.dropped), (0, 0));
        assert!(
            b.ends
                .iter()
                .all(|e| e.counts().kills == 0 && e.counts().bad == 0)
        );
    }

    /// The program has no split horizon (p. 231): a modelled IMP whose static path to an IMP
    /// goes through an emulated neighbour offers that IMP at the neighbour's own distance plus
    /// its hop, never its static distance, which under load would be the better, and the
    /// neighbour would send it its packets back.
    #[test]
    fn a_modelled_imp_offers_a_way_through_an_emulated_neighbour_at_the_neighbours_distance() {
        let mut b = Bench::new(3);
        let n = |b: &Bench, i: usize| usize::from(b.numbers[i]);
        // IMP2's stand-in says IMP3 is 3 hops and 30 units away (a loaded line, say).
        let mut t = [UNREACHABLE; IMP_NUMBERS];
        t[n(&b, 3)] = frame::entry(3, 30);
        b.ends[1].set_table(&t);
        b.run(46 * S);
        assert!(b.ends[0].is_up() && b.ends[1].is_up());
        // IMP1 offers IMP3 at IMP2's entry plus its hop: not its static 2 hops and 8 units.
        let want = frame::entry(4, 34);
        assert_eq!(b.ends[0].peer_table()[n(&b, 3)], want, "to IMP0");
        assert_eq!(b.ends[1].peer_table()[n(&b, 3)], want, "to IMP2 itself");
        // IMP2 itself: one hop from IMP1 (its own entry, 0, plus the hop).
        assert_eq!(b.ends[0].peer_table()[n(&b, 2)], frame::entry(1, 4));
    }

    /// A host of the program's (at IMP0's stand-in) sends a single-packet message to the
    /// modelled IMP's discard fake host, a host of the model's: it enters the model as the
    /// model's own message, and the model's RFNM leaves as the program's (300, its number).
    #[test]
    fn a_message_to_a_modelled_imps_host_is_answered_in_the_programs_protocol() {
        let mut b = Bench::with_hosts(2, r#"{ name = "FAKE", imp = "IMP1", fake = true }"#);
        b.run(45 * S);
        assert!(b.ends[0].is_up());
        let before = b.taken[0].len();
        let req1: Vec<u16> = [
            0o364,
            0o40300 | b.numbers[1] as u16,
            0o100000 | b.numbers[0] as u16,
            0,
        ]
        .into_iter()
        .chain(0..20)
        .collect();
        b.ends[0].send(req1, false).unwrap();
        b.run(46 * S);
        let rfnm = b.taken[0][before..]
            .iter()
            .find(|o| o.words[1] & frame::head::TRNREP == 0)
            .expect("a reply");
        assert_eq!(rfnm.words[1], 0o300, "RFNM for message 0");
        assert_eq!(rfnm.words[2] & 0o77, u16::from(b.numbers[0]));
        assert_eq!(rfnm.words[3] & 0o77, u16::from(b.numbers[1]));
        assert_eq!(b.m.tr.counts.native_in, 1);
        assert_eq!(
            b.m.counts.answered, 0,
            "the model's host took it, not the stand-in answer"
        );
    }
}
