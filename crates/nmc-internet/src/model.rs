//! The path as stages, and the run: the real probe's core (`nmc_probe::probe::Probe`) driven by
//! simulated time instead of a socket.
//!
//! A datagram of `L` octets goes through these stages, each taking a whole number of
//! nanoseconds, one after the other (store and forward):
//!
//! 1. the measuring host's send pass: `per_packet + per_octet·L`;
//! 2. each hop outwards: a line takes `ceil((max(L, min_payload)·octet_bits + frame_overhead)
//!    · 10⁹ / rate)` ns plus its propagation; a relay `per_packet + per_octet·L`;
//! 3. the echoing host's receive pass and its send pass (its turnaround);
//! 4. the hops in reverse, and the measuring host's receive pass.
//!
//! A line direction is busy while it clocks a frame out; a frame finding it busy waits (FIFO).
//! With one volley in flight this never happens, but the model does not rely on it.
//!
//! The PING reads time from a clock that ticks every `clock` ns: the send stamp and the arrival
//! are both read as whole ticks, as the Fuzzball's millisecond clock read them.

use crate::hop::{self, Dir, Gateway, HopModel, Offer, Satnet};
use crate::spec::{HopSpec, InternetScenario};
use crate::subnet::{self, SubnetHop};
use nmc_probe::probe::{LengthSpec, Pacing, Probe, ProbeConfig, Volley};
use nmc_probe::time::Nanos;
use nmc_sim::{BitRate, Bits, EventQueue, RngStreams, SimDuration, SimTime};
use serde::Serialize;
use std::collections::BTreeMap;

/// A scenario that cannot be built, in one line.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// `network.hops` is empty.
    #[error("network.hops: the path needs at least one hop")]
    NoHops,
    /// A hop's parameters are invalid.
    #[error("network.hops.{index} ({name}): {reason}")]
    Hop {
        /// The hop's index in `network.hops`.
        index: usize,
        /// The hop's name.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The scenario does not have exactly one `[[traffic]]` entry: how many it has.
    #[error("traffic: exactly one [[traffic]] entry (the PING) is needed, found {0}")]
    Traffic(usize),
    /// A PING parameter is invalid.
    #[error("traffic.0.{key}: {reason}")]
    Ping {
        /// The parameter's key (`lengths`, `floor`, `volleys`, `clock`).
        key: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}

/// One stage a datagram passes through.
#[derive(Clone, Debug, PartialEq)]
pub enum Stage {
    /// A host pass or a relay: fixed plus per-octet time.
    Process {
        /// The relay's name, or the host pass's (`echoing host: receive`).
        name: String,
        /// The fixed time per datagram.
        per_packet: SimDuration,
        /// The time per octet of the datagram.
        per_octet: SimDuration,
    },
    /// One direction of a line; `channel` indexes the line directions (busy state).
    Line {
        /// The line's name.
        name: String,
        /// The line direction: `2k` outwards and `2k + 1` back on the path's `k`-th line (from 0).
        channel: usize,
        /// The line's rate.
        rate: BitRate,
        /// Framing bits added to every frame.
        frame_overhead: Bits,
        /// Bits on the line per octet of frame (8 synchronous, 10 start-stop).
        octet_bits: u32,
        /// Datagrams shorter than this many octets are padded to it.
        min_payload_octets: u64,
        /// The propagation delay.
        propagation: SimDuration,
    },
    /// A hop with state ([`HopModel`]: a gateway, SATNET, or later a stepped subnet):
    /// `hop` indexes the run's models, `dir` says which way the datagram crosses it.
    Hop {
        /// The hop's name.
        name: String,
        /// The hop's index among the run's models.
        hop: usize,
        /// Which way the datagram crosses it.
        dir: Dir,
    },
}

impl Stage {
    /// Bits a line clocks out for a datagram of `len` octets.
    pub fn frame_bits(&self, len: u64) -> Option<Bits> {
        match self {
            Stage::Line {
                frame_overhead,
                octet_bits,
                min_payload_octets,
                ..
            } => Some(Bits::new(
                len.max(*min_payload_octets) * *octet_bits as u64 + frame_overhead.get(),
            )),
            Stage::Process { .. } | Stage::Hop { .. } => None,
        }
    }

    /// Time the stage holds a datagram of `len` octets when nothing waits: processing, or
    /// transmission plus propagation. A [`Stage::Hop`]'s time depends on its state: 0 here,
    /// its floor in [`Path::idle_round_trip`].
    pub fn time(&self, len: u64) -> SimDuration {
        match self {
            Stage::Process {
                per_packet,
                per_octet,
                ..
            } => SimDuration::from_nanos(per_packet.as_nanos() + per_octet.as_nanos() * len),
            Stage::Line {
                rate, propagation, ..
            } => SimDuration::from_nanos(
                rate.transmission_time(self.frame_bits(len).unwrap())
                    .as_nanos()
                    + propagation.as_nanos(),
            ),
            Stage::Hop { .. } => SimDuration::ZERO,
        }
    }
}

/// The round trip as a list of stages, echo out and reply back.
#[derive(Clone, Debug)]
pub struct Path {
    /// The stages in the order a volley meets them: the measuring host's send pass, the hops
    /// out, the echoing host's two passes, the hops back in reverse, the measuring host's
    /// receive pass.
    pub stages: Vec<Stage>,
    channels: usize,
    /// The stateful hops' specifications, by model index (`Stage::Hop::hop`), with their index
    /// in `network.hops` (which numbers their random streams).
    hops: Vec<(usize, HopSpec)>,
    /// What a subnet hop's IMP scenario takes from the path: its name, its duration and the
    /// PING's timeout (a datagram not out of the subnet by then is lost).
    name: String,
    duration: SimDuration,
    give_up: SimDuration,
}

impl Path {
    /// Builds the stages from the scenario's network section.
    pub fn build(s: &InternetScenario) -> Result<Path, BuildError> {
        let n = &s.network;
        if n.hops.is_empty() {
            return Err(BuildError::NoHops);
        }
        let host = |name: &str| Stage::Process {
            name: name.to_string(),
            per_packet: n.host.per_packet,
            per_octet: n.host.per_octet,
        };
        let far = n.far_host.as_ref().unwrap_or(&n.host);
        let far_host = |name: &str| Stage::Process {
            name: name.to_string(),
            per_packet: far.per_packet,
            per_octet: far.per_octet,
        };
        let mut lines = 0usize;
        let mut hops = Vec::new();
        let give_up = s
            .traffic
            .first()
            .map_or(SimDuration::from_secs(30), |p| p.timeout);
        // The longest datagram the PING sends (a subnet must carry it in one message).
        let longest = s
            .traffic
            .first()
            .and_then(|p| LengthSpec::parse(&p.lengths).ok())
            .map(|l| match l {
                LengthSpec::Fixed { length } => length as u64,
                LengthSpec::Uniform { hi, .. } => hi as u64,
            });
        let mut out = Vec::new();
        for (index, h) in n.hops.iter().enumerate() {
            out.push(Self::stage(
                s, index, h, &mut lines, &mut hops, give_up, longest,
            )?);
        }
        if lines == 0 && hops.is_empty() {
            return Err(BuildError::Hop {
                index: 0,
                name: n.hops[0].name().to_string(),
                reason: "the path needs at least one line, gateway or SATNET hop".into(),
            });
        }
        let mut stages = vec![host("measuring host: send")];
        stages.extend(out.iter().cloned());
        stages.push(far_host("echoing host: receive"));
        stages.push(far_host("echoing host: send reply"));
        for st in out.iter().rev() {
            let mut st = st.clone();
            match &mut st {
                Stage::Line { channel, .. } => *channel += 1,
                Stage::Hop { dir, .. } => *dir = Dir::Back,
                Stage::Process { .. } => {}
            }
            stages.push(st);
        }
        stages.push(host("measuring host: receive"));
        Ok(Path {
            stages,
            channels: 2 * lines,
            hops,
            name: s.name.clone(),
            duration: s.duration,
            give_up,
        })
    }

    /// Hop `index` of the scenario's path, `h`, as a stage, checked: a line (counted in
    /// `lines`, its two channels numbered by it), a relay's processing, or a stateful hop
    /// (a gateway, SATNET, an IMP subnet) added to `hops`. `give_up` and `longest` (the PING's
    /// longest datagram, octets) check a subnet: it must carry the datagram in one message.
    fn stage(
        s: &InternetScenario,
        index: usize,
        h: &HopSpec,
        lines: &mut usize,
        hops: &mut Vec<(usize, HopSpec)>,
        give_up: SimDuration,
        longest: Option<u64>,
    ) -> Result<Stage, BuildError> {
        let bad = |reason: &str| BuildError::Hop {
            index,
            name: h.name().to_string(),
            reason: reason.to_string(),
        };
        Ok(match h {
            HopSpec::Line {
                name,
                rate,
                frame_overhead,
                octet_bits,
                min_payload,
                propagation,
            } => {
                if rate.bps() == 0 {
                    return Err(bad("rate must be above 0 bit/s"));
                }
                if !(8..=16).contains(octet_bits) {
                    return Err(bad(
                        "octet_bits must be 8..=16 (8 synchronous, 10 start-stop)",
                    ));
                }
                if min_payload.get() % 8 != 0 {
                    return Err(bad("min_payload must be whole octets, e.g. \"46B\""));
                }
                *lines += 1;
                Stage::Line {
                    name: name.clone(),
                    channel: 2 * (*lines - 1),
                    rate: *rate,
                    frame_overhead: *frame_overhead,
                    octet_bits: *octet_bits,
                    min_payload_octets: min_payload.get() / 8,
                    propagation: *propagation,
                }
            }
            HopSpec::Relay {
                name,
                per_packet,
                per_octet,
            } => Stage::Process {
                name: name.clone(),
                per_packet: *per_packet,
                per_octet: *per_octet,
            },
            HopSpec::Gateway {
                rate,
                frame_overhead,
                queue,
                cross,
                ..
            } => {
                if *queue == 0 {
                    return Err(bad("queue must hold at least 1 datagram"));
                }
                if rate.is_some_and(|r| r.bps() == 0) {
                    return Err(bad("rate must be above 0 bit/s"));
                }
                if rate.is_none() && frame_overhead.get() != 0 {
                    return Err(bad("frame_overhead needs the line's rate"));
                }
                if let Some(c) = cross {
                    hop::check_cross(c).map_err(|e| bad(&e))?;
                }
                stateful(hops, index, h)
            }
            HopSpec::Satnet {
                rate,
                hop: delay,
                frame,
                reservation_miss,
                loss,
                cross,
                ..
            } => {
                if rate.bps() == 0 {
                    return Err(bad("rate must be above 0 bit/s"));
                }
                if *frame < hop::MIN_MEAN_GAP {
                    return Err(bad("frame must be at least 1us"));
                }
                if *delay > SimDuration::from_secs(3600) {
                    return Err(bad("hop must be at most 1h"));
                }
                hop::check_probability("reservation_miss", *reservation_miss)
                    .map_err(|e| bad(&e))?;
                hop::check_probability("loss", *loss).map_err(|e| bad(&e))?;
                if let Some(c) = cross {
                    hop::check_cross(c).map_err(|e| bad(&e))?;
                }
                stateful(hops, index, h)
            }
            HopSpec::Subnet {
                from,
                to,
                network,
                traffic,
                ..
            } => {
                // Built once here so that a bad subnet is refused before the run.
                let sc = subnet::scenario(&s.name, index, s.duration, network, traffic);
                let part = SubnetHop::new(&sc, 0, from, to, give_up).map_err(|e| bad(&e))?;
                if let Some(l) = longest.filter(|&l| l > part.max_octets()) {
                    return Err(bad(&format!(
                        "a {l}-octet datagram does not fit one message of the subnet ({} data bits)",
                        part.max_octets() * 8
                    )));
                }
                stateful(hops, index, h)
            }
        })
    }

    /// Fresh state for the stateful hops, drawing from `seed`'s streams.
    pub fn models(&self, seed: u64) -> Vec<Box<dyn HopModel>> {
        let rng = RngStreams::new(seed);
        self.hops
            .iter()
            .map(|(index, h)| -> Box<dyn HopModel> {
                match h {
                    HopSpec::Gateway {
                        per_packet,
                        per_octet,
                        rate,
                        frame_overhead,
                        propagation,
                        queue,
                        cross,
                        ..
                    } => Box::new(Gateway::new(
                        *per_packet,
                        *per_octet,
                        rate.map(|r| (r, *frame_overhead)),
                        *propagation,
                        *queue as usize,
                        cross.as_ref(),
                        rng,
                        *index,
                    )),
                    HopSpec::Satnet {
                        rate,
                        frame_overhead,
                        hop,
                        frame,
                        per_packet,
                        reservation_miss,
                        loss,
                        cross,
                        ..
                    } => Box::new(Satnet::new(
                        *rate,
                        *frame_overhead,
                        *hop,
                        *frame,
                        *per_packet,
                        *reservation_miss,
                        *loss,
                        cross.as_ref(),
                        rng,
                        *index,
                    )),
                    HopSpec::Subnet {
                        from,
                        to,
                        network,
                        traffic,
                        ..
                    } => Box::new(
                        SubnetHop::new(
                            &subnet::scenario(&self.name, *index, self.duration, network, traffic),
                            seed,
                            from,
                            to,
                            self.give_up,
                        )
                        .expect("checked by Path::build"),
                    ),
                    HopSpec::Line { .. } | HopSpec::Relay { .. } => {
                        unreachable!("only stateful hops are listed")
                    }
                }
            })
            .collect()
    }

    /// The round trip of a datagram of `len` octets on an idle path: the sum of its stages (a
    /// stateful hop counts its floor: no other traffic, no contention, no frame wait).
    pub fn idle_round_trip(&self, len: u64) -> SimDuration {
        let models = self.models(0);
        SimDuration::from_nanos(
            self.stages
                .iter()
                .map(|s| match s {
                    Stage::Hop { hop, .. } => models[*hop].floor(len).as_nanos(),
                    _ => s.time(len).as_nanos(),
                })
                .sum(),
        )
    }
}

/// Lists a stateful hop (`network.hops[index]`) for [`Path::models`] and gives its stage.
fn stateful(hops: &mut Vec<(usize, HopSpec)>, index: usize, h: &HopSpec) -> Stage {
    hops.push((index, h.clone()));
    Stage::Hop {
        name: h.name().to_string(),
        hop: hops.len() - 1,
        dir: Dir::Out,
    }
}

/// One volley, as recorded (`volleys.csv`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct VolleyRecord {
    /// The volley's number, from 0 in the order sent.
    pub seq: u32,
    /// IP datagram length, octets.
    pub length: u32,
    /// Send time on the measuring host's clock (whole ticks), ns.
    pub sent_ns: Option<u64>,
    /// Round trip as the clock read it, ns; empty when lost.
    pub rtt_ns: Option<u64>,
    /// Round trip / 2 (RFC 889 §2.1), ns.
    pub one_way_ns: Option<u64>,
    /// The same round trip in true simulated time, ns.
    pub true_rtt_ns: Option<u64>,
    /// Whether the volley went unanswered within the timeout.
    pub lost: bool,
}

/// What a run produced.
pub struct RunOutput {
    /// The probe core's volleys, for `nmc_probe::analysis`.
    pub volleys: Vec<Volley>,
    /// The same volleys as the rows of `volleys.csv`.
    pub records: Vec<VolleyRecord>,
    /// Simulated time at the end.
    pub end: SimTime,
    /// Events the event loop handled.
    pub events: u64,
    /// Each stateful hop's counters: `(index in network.hops, key, value)`.
    pub hop_stats: Vec<(usize, &'static str, f64)>,
}

impl RunOutput {
    /// Counter `key` of every hop that keeps it, as `(index in network.hops, value)`, in path
    /// order (e.g. `route_hops_max` of each subnet crossing).
    pub fn hop_stat(&self, key: &str) -> Vec<(usize, f64)> {
        self.hop_stats
            .iter()
            .filter(|s| s.1 == key)
            .map(|s| (s.0, s.2))
            .collect()
    }
}

enum Event {
    /// The probe may have something to send.
    Wake,
    /// Volley `seq` (stamp `stamp`) has finished stage `stage - 1` and enters stage `stage`.
    Enter {
        seq: u32,
        stamp: Nanos,
        stage: usize,
    },
    /// Line direction `channel` finishes clocking out a frame.
    LineFree { channel: usize },
    /// Stateful hop `hop` asked to be stepped now ([`HopModel::poll_at`]).
    Step { hop: usize },
}

/// The PING's configuration from the scenario, checked.
pub fn probe_config(s: &InternetScenario, seed: u64) -> Result<ProbeConfig, BuildError> {
    let [p] = s.traffic.as_slice() else {
        return Err(BuildError::Traffic(s.traffic.len()));
    };
    let lengths = LengthSpec::parse(&p.lengths).map_err(|e| BuildError::Ping {
        key: "lengths",
        reason: e.to_string(),
    })?;
    if p.floor.get() % 8 != 0 {
        return Err(BuildError::Ping {
            key: "floor",
            reason: "must be whole octets, e.g. \"40B\"".into(),
        });
    }
    if p.volleys == 0 {
        return Err(BuildError::Ping {
            key: "volleys",
            reason: "at least 1".into(),
        });
    }
    if p.clock.is_zero() {
        return Err(BuildError::Ping {
            key: "clock",
            reason: "the clock tick must be above 0".into(),
        });
    }
    let cfg = ProbeConfig {
        count: p.volleys,
        lengths,
        pacing: Pacing::OneInFlight {
            gap_ns: Nanos(p.gap.as_nanos()),
        },
        timeout: Nanos(p.timeout.as_nanos()),
        seed,
        floor: (p.floor.get() / 8) as u32,
        max_length: 65535,
        // A model runs to its end: it never gives up on a path (issue 58 §2 is the real probe's).
        open_timeout: None,
        silent_losses: None,
    };
    Probe::new(cfg.clone()).map_err(|e| BuildError::Ping {
        // The count is the volleys key's; every other refusal is about the lengths.
        key: match e {
            nmc_probe::probe::ProbeError::TooMany { .. }
            | nmc_probe::probe::ProbeError::ZeroCount => "volleys",
            _ => "lengths",
        },
        reason: e.to_string(),
    })?;
    Ok(cfg)
}

/// Runs the PING over the path until every volley is answered or lost, or `duration` ends.
pub fn run(s: &InternetScenario, seed: u64) -> Result<RunOutput, BuildError> {
    let path = Path::build(s)?;
    let models = path.models(seed);
    run_with(s, seed, &path, models)
}

/// [`run`] over a built path with the given stateful hops (by model index): the way to put a
/// hop whose delay comes from another, stepped model into a path.
pub fn run_with(
    s: &InternetScenario,
    seed: u64,
    path: &Path,
    models: Vec<Box<dyn HopModel>>,
) -> Result<RunOutput, BuildError> {
    let cfg = probe_config(s, seed)?;
    let probe = Probe::new(cfg).expect("checked by probe_config");
    let end = SimTime::ZERO + s.duration;
    let mut sim = PathRun::new(path, models, probe, s.traffic[0].clock.as_nanos());
    let mut events = 0u64;
    sim.q.schedule(SimTime::ZERO, Event::Wake);
    let mut last = SimTime::ZERO;
    while let Some((now, ev)) = sim.q.pop() {
        if now > end {
            break;
        }
        last = now;
        events += 1;
        match ev {
            Event::Wake => {
                if sim.probe.is_done() {
                    break;
                }
                sim.wake(now);
            }
            Event::Enter { seq, stamp, stage } => sim.enter(now, seq, stamp, stage),
            Event::Step { hop } => sim.step(now, hop),
            Event::LineFree { channel } => sim.line_free(now, channel),
        }
    }
    Ok(RunOutput {
        volleys: sim.probe.volleys().to_vec(),
        records: sim.records(),
        end: last,
        events,
        hop_stats: sim.hop_stats(),
    })
}

/// The PING's run over a path: the probe, the event queue, each line direction's state and
/// the stateful hops, with what the probe cannot see (each volley's true send time and round
/// trip).
struct PathRun<'p> {
    path: &'p Path,
    models: Vec<Box<dyn HopModel>>,
    probe: Probe,
    /// The probe's clock tick, ns: it reads the time rounded down to it.
    tick: u64,
    q: EventQueue<Event>,
    /// Each line direction is clocking out a frame.
    busy: Vec<bool>,
    /// Each line direction's frames waiting for it: (volley, stamp).
    waiting: Vec<std::collections::VecDeque<(u32, Nanos)>>,
    true_sent: Vec<Option<SimTime>>,
    true_rtt: Vec<Option<u64>>,
    /// Datagrams a stepped hop holds: id -> (volley, stamp, stage).
    held: BTreeMap<u64, (u32, Nanos, usize)>,
    next_id: u64,
}

impl<'p> PathRun<'p> {
    /// The run's start: nothing sent, every line idle.
    fn new(path: &'p Path, models: Vec<Box<dyn HopModel>>, probe: Probe, tick: u64) -> Self {
        let volleys = probe.volleys().len();
        PathRun {
            path,
            models,
            probe,
            tick,
            q: EventQueue::new(),
            busy: vec![false; path.channels],
            waiting: vec![Default::default(); path.channels],
            true_sent: vec![None; volleys],
            true_rtt: vec![None; volleys],
            held: BTreeMap::new(),
            next_id: 0,
        }
    }

    /// The probe's clock reading at true time `t`.
    fn read_clock(&self, t: SimTime) -> Nanos {
        Nanos(t.as_nanos() / self.tick * self.tick)
    }

    /// The probe wakes: its timeouts, the volleys it sends now, and its next wake-up.
    fn wake(&mut self, now: SimTime) {
        let clock = self.read_clock(now);
        self.probe.handle_timeout(clock);
        while let Some(tx) = self.probe.poll_transmit(clock) {
            self.true_sent[tx.seq as usize] = Some(now);
            self.q.schedule(
                now,
                Event::Enter {
                    seq: tx.seq,
                    stamp: tx.stamp,
                    stage: 0,
                },
            );
        }
        if let Some(at) = self.probe.poll_at() {
            // The probe's times are clock readings; wake at the first true time whose
            // reading reaches `at`.
            let tick = self.tick;
            let t = SimTime::from_nanos(at.0.div_ceil(tick) * tick).max(now);
            if t > now {
                self.q.schedule(t, Event::Wake);
            }
        }
    }

    /// Volley `seq` enters stage `stage` (past the last: its reply reaches the probe).
    fn enter(&mut self, now: SimTime, seq: u32, stamp: Nanos, stage: usize) {
        let path = self.path;
        let Some(st) = path.stages.get(stage) else {
            let idx = seq as usize;
            self.true_rtt[idx] = self.true_sent[idx].map(|t0| (now - t0).as_nanos());
            self.probe
                .handle_reply(self.read_clock(now), seq, stamp, None);
            self.q.schedule(now, Event::Wake);
            return;
        };
        let len = self.probe.volleys()[seq as usize].length as u64;
        match st {
            Stage::Process { .. } => self.q.schedule(
                now + st.time(len),
                Event::Enter {
                    seq,
                    stamp,
                    stage: stage + 1,
                },
            ),
            Stage::Line { channel, .. } => {
                if self.busy[*channel] {
                    self.waiting[*channel].push_back((seq, stamp));
                } else {
                    self.start_line(stage, now, seq, stamp, len);
                }
            }
            Stage::Hop { .. } => self.offer(now, seq, stamp, stage, len),
        }
    }

    /// Volley `seq`'s datagram (`len` bytes) offered to the stateful hop of stage `stage`: on
    /// to the next stage when the hop says, lost, or held until the hop is stepped.
    fn offer(&mut self, now: SimTime, seq: u32, stamp: Nanos, stage: usize, len: u64) {
        let Stage::Hop { hop, dir, .. } = self.path.stages[stage] else {
            unreachable!("offer on a hop stage")
        };
        let id = self.next_id;
        self.next_id += 1;
        let next = Event::Enter {
            seq,
            stamp,
            stage: stage + 1,
        };
        match self.models[hop].offer(now, id, len, dir) {
            Offer::At(t) => self.q.schedule(t.max(now), next),
            // Lost: the probe's timeout resolves the volley.
            Offer::Dropped => {}
            Offer::Held => {
                self.held.insert(id, (seq, stamp, stage + 1));
                if let Some(t) = self.models[hop].poll_at() {
                    self.q.schedule(t.max(now), Event::Step { hop });
                }
            }
        }
    }

    /// Stateful hop `hop` is stepped to `now`: the datagrams it delivers go on, and it is
    /// stepped again when it asks.
    fn step(&mut self, now: SimTime, hop: usize) {
        let m = &mut self.models[hop];
        m.advance(now);
        while let Some((id, at)) = m.poll_delivered() {
            if let Some((seq, stamp, stage)) = self.held.remove(&id) {
                self.q
                    .schedule(at.max(now), Event::Enter { seq, stamp, stage });
            }
        }
        if let Some(t) = m.poll_at() {
            // A model that asks for `now` again is stepped a nanosecond later.
            let t = t.max(now + SimDuration::from_nanos(1));
            self.q.schedule(t, Event::Step { hop });
        }
    }

    /// Line direction `channel` has clocked out its frame: the next waiting one starts.
    fn line_free(&mut self, now: SimTime, channel: usize) {
        self.busy[channel] = false;
        if let Some((seq, stamp)) = self.waiting[channel].pop_front() {
            let stage = self
                .path
                .stages
                .iter()
                .position(|s| matches!(s, Stage::Line { channel: c, .. } if *c == channel))
                .expect("a waiting frame's line exists");
            let len = self.probe.volleys()[seq as usize].length as u64;
            self.start_line(stage, now, seq, stamp, len);
        }
    }

    /// Volley `seq`'s frame (`len` bytes) starts out on line stage `stage`: the line is busy
    /// for its transmission, and the frame enters the next stage after its propagation.
    fn start_line(&mut self, stage: usize, now: SimTime, seq: u32, stamp: Nanos, len: u64) {
        let st = &self.path.stages[stage];
        let Stage::Line {
            channel,
            rate,
            propagation,
            ..
        } = st
        else {
            unreachable!("start_line on a line stage")
        };
        let tx = rate.transmission_time(st.frame_bits(len).expect("a line"));
        self.busy[*channel] = true;
        self.q
            .schedule(now + tx, Event::LineFree { channel: *channel });
        self.q.schedule(
            now + tx + *propagation,
            Event::Enter {
                seq,
                stamp,
                stage: stage + 1,
            },
        );
    }

    /// The volleys as the rows of `volleys.csv`.
    fn records(&self) -> Vec<VolleyRecord> {
        self.probe
            .volleys()
            .iter()
            .map(|v| VolleyRecord {
                seq: v.seq,
                length: v.length,
                sent_ns: v.sent.map(|t| t.0),
                rtt_ns: v.rtt.map(|t| t.0),
                one_way_ns: v.one_way().map(|t| t.0),
                true_rtt_ns: if v.rtt.is_some() {
                    self.true_rtt[v.seq as usize]
                } else {
                    None
                },
                lost: v.lost,
            })
            .collect()
    }

    /// Each stateful hop's counters, by its index in the network's hops.
    fn hop_stats(&self) -> Vec<(usize, &'static str, f64)> {
        self.path
            .hops
            .iter()
            .zip(&self.models)
            .flat_map(|((index, _), m)| m.stats().into_iter().map(|(k, v)| (*index, k, v)))
            .collect()
    }
}
