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

use crate::spec::{HopSpec, InternetScenario};
use nmc_probe::probe::{LengthSpec, Pacing, Probe, ProbeConfig, Volley};
use nmc_probe::time::Nanos;
use nmc_sim::{BitRate, Bits, EventQueue, SimDuration, SimTime};
use serde::Serialize;

/// A scenario that cannot be built, in one line.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("network.hops: the path needs at least one hop")]
    NoHops,
    #[error("network.hops.{index} ({name}): {reason}")]
    Hop {
        index: usize,
        name: String,
        reason: String,
    },
    #[error("traffic: exactly one [[traffic]] entry (the PING) is needed, found {0}")]
    Traffic(usize),
    #[error("traffic.0.{key}: {reason}")]
    Ping { key: &'static str, reason: String },
}

/// One stage a datagram passes through.
#[derive(Clone, Debug, PartialEq)]
pub enum Stage {
    /// A host pass or a relay: fixed plus per-octet time.
    Process {
        name: String,
        per_packet: SimDuration,
        per_octet: SimDuration,
    },
    /// One direction of a line; `channel` indexes the line directions (busy state).
    Line {
        name: String,
        channel: usize,
        rate: BitRate,
        frame_overhead: Bits,
        octet_bits: u32,
        min_payload_octets: u64,
        propagation: SimDuration,
    },
    /// A subnet run by the IMP model ([`Path::subnets`]`[part]`), crossed from its `from` host
    /// to its `to` host, or back when `reverse`.
    Subnet {
        name: String,
        part: usize,
        reverse: bool,
    },
}

/// A subnet of the path: the IMP scenario it runs and the two hosts where the path enters
/// and leaves it.
#[derive(Clone, Debug)]
pub struct SubnetPart {
    /// Its index in `network.hops`.
    pub hop: usize,
    pub name: String,
    pub scenario: nmc_imp::ImpScenario,
    pub from: String,
    pub to: String,
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
            Stage::Process { .. } | Stage::Subnet { .. } => None,
        }
    }

    /// Time the stage holds a datagram of `len` octets when nothing waits: processing, or
    /// transmission plus propagation. A subnet's time is what its IMP model makes of the
    /// datagram when it gets there, so it counts zero here.
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
            Stage::Subnet { .. } => SimDuration::ZERO,
        }
    }
}

/// The round trip as a list of stages, echo out and reply back.
#[derive(Clone, Debug)]
pub struct Path {
    pub stages: Vec<Stage>,
    /// The subnets the path crosses, in path order.
    pub subnets: Vec<SubnetPart>,
    channels: usize,
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
        let mut lines = 0usize;
        let mut out = Vec::new();
        let mut subnets = Vec::new();
        for (index, h) in n.hops.iter().enumerate() {
            let bad = |reason: &str| BuildError::Hop {
                index,
                name: h.name().to_string(),
                reason: reason.to_string(),
            };
            out.push(match h {
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
                    lines += 1;
                    Stage::Line {
                        name: name.clone(),
                        channel: 2 * (lines - 1),
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
                HopSpec::Subnet {
                    name,
                    from,
                    to,
                    network,
                    traffic,
                } => {
                    let scenario = nmc_imp::ImpScenario {
                        name: format!("{}-hop-{index}", s.name),
                        description: name.clone(),
                        seed: Some(s.seed.unwrap_or(0)),
                        duration: s.duration,
                        model: "imp".into(),
                        network: network.as_ref().clone(),
                        traffic: traffic.clone(),
                        record: Vec::new(),
                        trace: false,
                    };
                    // Built once here so that a bad subnet is refused before the run.
                    nmc_imp::Stepper::new(&scenario, 0, &[from.as_str(), to.as_str()])
                        .map_err(|e| bad(&e.0))?;
                    lines += 1;
                    subnets.push(SubnetPart {
                        hop: index,
                        name: name.clone(),
                        scenario,
                        from: from.clone(),
                        to: to.clone(),
                    });
                    Stage::Subnet {
                        name: name.clone(),
                        part: subnets.len() - 1,
                        reverse: false,
                    }
                }
            });
        }
        if lines == 0 {
            return Err(BuildError::Hop {
                index: 0,
                name: n.hops[0].name().to_string(),
                reason: "the path needs at least one line".into(),
            });
        }
        let mut stages = vec![host("measuring host: send")];
        stages.extend(out.iter().cloned());
        stages.push(host("echoing host: receive"));
        stages.push(host("echoing host: send reply"));
        for st in out.iter().rev() {
            let mut st = st.clone();
            match &mut st {
                Stage::Line { channel, .. } => *channel += 1,
                Stage::Subnet { reverse, .. } => *reverse = true,
                Stage::Process { .. } => {}
            }
            stages.push(st);
        }
        stages.push(host("measuring host: receive"));
        Ok(Path {
            stages,
            subnets,
            channels: 2 * lines,
        })
    }

    /// The round trip of a datagram of `len` octets on an idle path: the sum of its stages.
    pub fn idle_round_trip(&self, len: u64) -> SimDuration {
        SimDuration::from_nanos(self.stages.iter().map(|s| s.time(len).as_nanos()).sum())
    }
}

/// One volley, as recorded (`volleys.csv`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct VolleyRecord {
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
    pub lost: bool,
}

/// What a run produced.
pub struct RunOutput {
    /// The probe core's volleys, for `nmc_probe::analysis`.
    pub volleys: Vec<Volley>,
    pub records: Vec<VolleyRecord>,
    /// Simulated time at the end.
    pub end: SimTime,
    pub events: u64,
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
    };
    Probe::new(cfg.clone()).map_err(|e| BuildError::Ping {
        key: "lengths",
        reason: e.to_string(),
    })?;
    Ok(cfg)
}

/// Runs the PING over the path until every volley is answered or lost, or `duration` ends.
pub fn run(s: &InternetScenario, seed: u64) -> Result<RunOutput, BuildError> {
    let path = Path::build(s)?;
    let cfg = probe_config(s, seed)?;
    let tick = s.traffic[0].clock.as_nanos();
    let mut probe = Probe::new(cfg).expect("checked by probe_config");
    let read_clock = |t: SimTime| Nanos(t.as_nanos() / tick * tick);
    let end = SimTime::ZERO + s.duration;
    let mut q: EventQueue<Event> = EventQueue::new();
    let mut busy = vec![false; path.channels];
    let mut waiting: Vec<std::collections::VecDeque<(u32, Nanos)>> =
        vec![Default::default(); path.channels];
    let mut true_sent: Vec<Option<SimTime>> = vec![None; probe.volleys().len()];
    let mut true_rtt: Vec<Option<u64>> = vec![None; probe.volleys().len()];
    let mut events = 0u64;
    // Each subnet runs beside the path, stepped to each datagram's arrival (`Stage::Subnet`).
    let mut subnets = Vec::new();
    for part in &path.subnets {
        let hop = |reason: String| BuildError::Hop {
            index: part.hop,
            name: part.name.clone(),
            reason,
        };
        let st = nmc_imp::Stepper::new(&part.scenario, seed, &[&part.from, &part.to])
            .map_err(|e| hop(e.0))?;
        let ends = (
            st.host(&part.from).expect("checked by Stepper::new"),
            st.host(&part.to).expect("checked by Stepper::new"),
        );
        subnets.push((st, ends));
    }
    let mut next_tag = 0u64;
    let give_up = SimDuration::from_nanos(s.traffic[0].timeout.as_nanos());
    q.schedule(SimTime::ZERO, Event::Wake);
    let mut last = SimTime::ZERO;
    while let Some((now, ev)) = q.pop() {
        if now > end {
            break;
        }
        last = now;
        events += 1;
        match ev {
            Event::Wake => {
                if probe.is_done() {
                    break;
                }
                let clock = read_clock(now);
                probe.handle_timeout(clock);
                while let Some(tx) = probe.poll_transmit(clock) {
                    true_sent[tx.seq as usize] = Some(now);
                    q.schedule(
                        now,
                        Event::Enter {
                            seq: tx.seq,
                            stamp: tx.stamp,
                            stage: 0,
                        },
                    );
                }
                if let Some(at) = probe.poll_at() {
                    // The probe's times are clock readings; wake at the first true time whose
                    // reading reaches `at`.
                    let t = SimTime::from_nanos(at.0.div_ceil(tick) * tick).max(now);
                    if t > now {
                        q.schedule(t, Event::Wake);
                    }
                }
            }
            Event::Enter { seq, stamp, stage } => {
                let Some(st) = path.stages.get(stage) else {
                    let idx = seq as usize;
                    true_rtt[idx] = true_sent[idx].map(|t0| (now - t0).as_nanos());
                    probe.handle_reply(read_clock(now), seq, stamp, None);
                    q.schedule(now, Event::Wake);
                    continue;
                };
                let len = probe.volleys()[seq as usize].length as u64;
                match st {
                    Stage::Process { .. } => q.schedule(
                        now + st.time(len),
                        Event::Enter {
                            seq,
                            stamp,
                            stage: stage + 1,
                        },
                    ),
                    Stage::Subnet {
                        name,
                        part,
                        reverse,
                    } => {
                        // One datagram = one 1822 message of 8 × length data bits.
                        let (st, (a, b)) = &mut subnets[*part];
                        let (from, to) = if *reverse { (*b, *a) } else { (*a, *b) };
                        st.advance(now);
                        let tag = next_tag;
                        next_tag += 1;
                        st.offer(from, to, len * 8, tag)
                            .map_err(|e| BuildError::Hop {
                                index: path.subnets[*part].hop,
                                name: name.clone(),
                                reason: e.0,
                            })?;
                        // Not delivered within the PING's timeout: lost, as far as the PING knows.
                        if let Some(at) = st.run_to_delivery(tag, now + give_up) {
                            q.schedule(
                                at,
                                Event::Enter {
                                    seq,
                                    stamp,
                                    stage: stage + 1,
                                },
                            );
                        }
                    }
                    Stage::Line { channel, .. } => {
                        if busy[*channel] {
                            waiting[*channel].push_back((seq, stamp));
                        } else {
                            start_line(&mut q, &mut busy, &path, stage, now, seq, stamp, len);
                        }
                    }
                }
            }
            Event::LineFree { channel } => {
                busy[channel] = false;
                if let Some((seq, stamp)) = waiting[channel].pop_front() {
                    let stage = path
                        .stages
                        .iter()
                        .position(|s| matches!(s, Stage::Line { channel: c, .. } if *c == channel))
                        .expect("a waiting frame's line exists");
                    let len = probe.volleys()[seq as usize].length as u64;
                    start_line(&mut q, &mut busy, &path, stage, now, seq, stamp, len);
                }
            }
        }
    }
    let records = probe
        .volleys()
        .iter()
        .map(|v| VolleyRecord {
            seq: v.seq,
            length: v.length,
            sent_ns: v.sent.map(|t| t.0),
            rtt_ns: v.rtt.map(|t| t.0),
            one_way_ns: v.one_way().map(|t| t.0),
            true_rtt_ns: if v.rtt.is_some() {
                true_rtt[v.seq as usize]
            } else {
                None
            },
            lost: v.lost,
        })
        .collect();
    Ok(RunOutput {
        volleys: probe.volleys().to_vec(),
        records,
        end: last,
        events,
    })
}

#[allow(clippy::too_many_arguments)]
fn start_line(
    q: &mut EventQueue<Event>,
    busy: &mut [bool],
    path: &Path,
    stage: usize,
    now: SimTime,
    seq: u32,
    stamp: Nanos,
    len: u64,
) {
    let st = &path.stages[stage];
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
    busy[*channel] = true;
    q.schedule(now + tx, Event::LineFree { channel: *channel });
    q.schedule(
        now + tx + *propagation,
        Event::Enter {
            seq,
            stamp,
            stage: stage + 1,
        },
    );
}
