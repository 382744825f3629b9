//! One message's life on the 1973 program beside the model's, event by event (issue 71 §4:
//! "the two timelines aligned event by event"): a single-packet message, or each packet of a
//! multi-packet one with its REQALL and ALLOCATE.
//!
//! The program's side is a recorded timeline (`nmc oracle timeline`, e.g.
//! `data/oracle/timeline-1packet-516-9hop.csv`): its message is the first the source IMP (the
//! lowest IMP number in the file) sends the first packet of (packet 0, a data frame: not a
//! 5-word REQALL or give-back), or the one named (`mX`, its number in the timeline). The
//! model's side is the same recorded experiment run on the model (as `nmc oracle compare` runs
//! it), traced, and its message the `index`-th of the pump. Both are read from the same events,
//! each time from the moment the source IMP has the message's last word (the program: the host
//! interface's `eom`; the model: `accepted`, where K&O's round trip starts):
//!
//! | step | program (timeline) | model (trace) |
//! | --- | --- | --- |
//! | the REQALL leaves IMP *k* | `send` of `packet mW p0 REQALL` (5 words; W the message's number − 1) | the `reqall` send from IMP *k* |
//! | the ALL leaves IMP *k* | `send` of `ALL mW` | the `all` send from IMP *k* |
//! | packet *p* leaves IMP *k* | `send` of `packet mX pP` at IMP *k* | `send` `data` of packet *p* from IMP *k* |
//! | it is in at IMP *k*+1 | the send's `arrive_ms` (its last bit due there) | the send + its frame's bits at the line's rate + propagation |
//! | the RFNM leaves IMP *k* | `send` of `RFNM mX` (or `RFNM+ALL mX`) at IMP *k* | the message's `rfnm` send from IMP *k* |
//! | it is in at IMP *k*−1 | the send's `arrive_ms` | the send + the RFNM's bits at the line's rate + propagation |
//! | the RFNM at the host | `host-out` of the Rfnm at the source | `rfnm-in` |
//!
//! Each step is measured from the event before it *of the same packet* (packet 3 leaving IMP
//! 2 from packet 3's arrival there); a packet's leaving the source, and the REQALL's, from the
//! last word in; the ALL leaving the destination from the REQALL's arrival there; the RFNM
//! leaving the destination from the message's last packet in. The model's control packets are
//! not named in its trace: the REQALL is the first `reqall` send after the message's `reqall`
//! event, the ALL the first `all` send after the destination's `all-sent` of the REQALL's
//! number, the RFNM the first `rfnm` send after the last packet in, and at each later IMP the
//! same one in the order of that kind (a chain keeps them in order). The REQALL and ALL rows
//! appear when either side asked for an allocation for the message; a side that did not shows
//! them empty, and they are not compared.
//!
//! The tolerance, fixed before any comparison (the issue's): each step within **one packet
//! time** of the program's (the data frame's time on the line, 23.52 ms for 63 words at
//! 50 kbit/s), and the whole within 5 % or one packet time. A step outside is a residual to be
//! named, never a wider tolerance.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use nmc_imp::scenario::ImpScenario;
use nmc_scenario::Override;
use serde::{Deserialize, Serialize};

use crate::model::Recorded;

/// One row of a recorded timeline (`nmc oracle timeline`'s CSV), as read back.
#[derive(Clone, Debug, Deserialize)]
struct TimelineRow {
    t_ms: f64,
    imp: u8,
    event: String,
    frame: String,
    words: u32,
    /// For a `send`: when its last bit is due at the next IMP, ms.
    arrive_ms: Option<f64>,
}

/// What happened, in a message's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum What {
    ReqallLeaves,
    ReqallIn,
    AllLeaves,
    AllIn,
    PacketLeaves,
    PacketIn,
    RfnmLeaves,
    RfnmIn,
    RfnmToHost,
}

impl What {
    fn name(self) -> &'static str {
        match self {
            What::ReqallLeaves => "REQALL leaves",
            What::ReqallIn => "REQALL in",
            What::AllLeaves => "ALL leaves",
            What::AllIn => "ALL in",
            What::PacketLeaves => "packet leaves",
            What::PacketIn => "packet in",
            What::RfnmLeaves => "RFNM leaves",
            What::RfnmIn => "RFNM in",
            What::RfnmToHost => "RFNM to host",
        }
    }
}

/// One event of a message's life: what, which packet (multi-packet messages' packets only),
/// at which hop from the source IMP.
type Key = (What, Option<u8>, u32);

/// One side's events: ms from the message's last word in.
type Events = HashMap<Key, f64>;

/// What a step is measured from.
enum Prev {
    /// The message's last word in.
    Anchor,
    /// An event of the same packet (or control message).
    Event(Key),
    /// The message's last packet in at the destination.
    LastPacketIn,
}

/// The event a step of `key` is measured from, on a chain of `hops`.
fn previous((what, packet, hop): Key, hops: u32) -> Prev {
    match what {
        What::ReqallLeaves if hop == 0 => Prev::Anchor,
        What::ReqallLeaves => Prev::Event((What::ReqallIn, None, hop)),
        What::ReqallIn => Prev::Event((What::ReqallLeaves, None, hop - 1)),
        What::AllLeaves if hop == hops => Prev::Event((What::ReqallIn, None, hop)),
        What::AllLeaves => Prev::Event((What::AllIn, None, hop)),
        What::AllIn => Prev::Event((What::AllLeaves, None, hop + 1)),
        What::PacketLeaves if hop == 0 => Prev::Anchor,
        What::PacketLeaves => Prev::Event((What::PacketIn, packet, hop)),
        What::PacketIn => Prev::Event((What::PacketLeaves, packet, hop - 1)),
        What::RfnmLeaves if hop == hops => Prev::LastPacketIn,
        What::RfnmLeaves => Prev::Event((What::RfnmIn, None, hop)),
        What::RfnmIn => Prev::Event((What::RfnmLeaves, None, hop + 1)),
        What::RfnmToHost => Prev::Event((What::RfnmIn, None, 0)),
    }
}

/// The time of `prev` on one side, if that side has it.
fn prev_time(ev: &Events, prev: &Prev, hops: u32) -> Option<f64> {
    match prev {
        Prev::Anchor => Some(0.0),
        Prev::Event(k) => ev.get(k).copied(),
        Prev::LastPacketIn => ev
            .iter()
            .filter(|((w, _, h), _)| *w == What::PacketIn && *h == hops)
            .map(|(_, &t)| t)
            .reduce(f64::max),
    }
}

/// The events of a message in their order: the REQALL and its ALL (when `reqall`), each
/// packet's way to the destination, the RFNM's way back and the RFNM at the host. A
/// single-packet message's packet has no number (`packets` = 1).
fn order(hops: u32, packets: u8, reqall: bool) -> Vec<Key> {
    let mut keys = Vec::new();
    if reqall {
        for k in 0..hops {
            keys.push((What::ReqallLeaves, None, k));
            keys.push((What::ReqallIn, None, k + 1));
        }
        for j in 0..hops {
            keys.push((What::AllLeaves, None, hops - j));
            keys.push((What::AllIn, None, hops - j - 1));
        }
    }
    for p in 0..packets {
        let n = (packets > 1).then_some(p);
        for k in 0..hops {
            keys.push((What::PacketLeaves, n, k));
            keys.push((What::PacketIn, n, k + 1));
        }
    }
    for j in 0..hops {
        keys.push((What::RfnmLeaves, None, hops - j));
        keys.push((What::RfnmIn, None, hops - j - 1));
    }
    keys.push((What::RfnmToHost, None, 0));
    keys
}

/// One aligned event.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    /// What happened (`REQALL leaves`, `REQALL in`, `ALL leaves`, `ALL in`, `packet leaves`,
    /// `packet in`, `RFNM leaves`, `RFNM in`, `RFNM to host`).
    pub what: String,
    /// The packet's number in a multi-packet message (0–7, the timeline's `pN`); none for a
    /// single packet and for control messages. Written as its own column for multi-packet
    /// messages only ([`Alignment::packet_rows`]).
    #[serde(skip)]
    pub packet: Option<u8>,
    /// Hops from the source IMP of the IMP where it happened.
    pub at_hop: u32,
    /// The program's time, ms from the message's last word in (none: not on the program).
    pub program_ms: Option<f64>,
    /// The model's time, ms from the same point (none: not on the model).
    pub model_ms: Option<f64>,
    /// This step's duration on the program (from the event it is measured from), ms.
    pub program_step_ms: Option<f64>,
    /// The same on the model.
    pub model_step_ms: Option<f64>,
    /// Model step − program step, ms.
    pub step_diff_ms: Option<f64>,
    /// Within one packet time (none: on one side only, not compared).
    pub within: Option<bool>,
}

/// A [`Step`] with its packet number as a column (multi-packet messages).
#[derive(Clone, Debug, Serialize)]
pub struct PacketStep {
    /// As [`Step::what`].
    pub what: String,
    /// As [`Step::packet`] (empty for the REQALL, ALL and RFNM).
    pub packet: Option<u8>,
    /// As [`Step::at_hop`].
    pub at_hop: u32,
    /// As [`Step::program_ms`].
    pub program_ms: Option<f64>,
    /// As [`Step::model_ms`].
    pub model_ms: Option<f64>,
    /// As [`Step::program_step_ms`].
    pub program_step_ms: Option<f64>,
    /// As [`Step::model_step_ms`].
    pub model_step_ms: Option<f64>,
    /// As [`Step::step_diff_ms`].
    pub step_diff_ms: Option<f64>,
    /// As [`Step::within`].
    pub within: Option<bool>,
}

/// The alignment of one message.
#[derive(Clone, Debug, Serialize)]
pub struct Alignment {
    /// The recorded experiment the model ran.
    pub experiment: String,
    /// Hops.
    pub hops: u32,
    /// Packets in the message.
    pub packets: u8,
    /// The program's message (its number in the timeline).
    pub program_message: String,
    /// The model's message (its index in the pump's messages).
    pub model_index: u64,
    /// The program asked for an allocation for this message (a REQALL of its own).
    pub program_reqall: bool,
    /// The model did.
    pub model_reqall: bool,
    /// One packet time, ms: the tolerance of a step.
    pub packet_time_ms: f64,
    /// Every event in order.
    pub steps: Vec<Step>,
    /// The whole, program and model, ms (the RFNM at the host).
    pub program_total_ms: f64,
    /// The model's.
    pub model_total_ms: f64,
    /// The whole within 5 % or one packet time.
    pub total_within: bool,
}

impl Alignment {
    /// The steps with the packet number as a column (for a multi-packet message's CSV).
    pub fn packet_rows(&self) -> Vec<PacketStep> {
        self.steps
            .iter()
            .map(|s| PacketStep {
                what: s.what.clone(),
                packet: s.packet,
                at_hop: s.at_hop,
                program_ms: s.program_ms,
                model_ms: s.model_ms,
                program_step_ms: s.program_step_ms,
                model_step_ms: s.model_step_ms,
                step_diff_ms: s.step_diff_ms,
                within: s.within,
            })
            .collect()
    }

    /// Every step in tolerance and the whole too.
    pub fn all_within(&self) -> bool {
        self.total_within && self.steps.iter().all(|s| s.within != Some(false))
    }
}

/// The program's side of a message: its name, hops, packets, whether it sent a REQALL of its
/// own, and its events.
struct ProgramSide {
    msg: String,
    hops: u32,
    packets: u8,
    reqall: bool,
    events: Events,
}

/// The message's number in a frame's name (`packet m80 p3` → 80).
fn number(msg: &str) -> Option<u8> {
    msg.strip_prefix('m')?.parse().ok()
}

/// The program's events of message `message` (by default the first the source IMP sends packet
/// 0 of) in `rows`, each in ms from the message's last word in.
fn program_events(rows: &[TimelineRow], message: Option<&str>) -> Result<ProgramSide> {
    let src = rows
        .iter()
        .map(|r| r.imp)
        .min()
        .context("an empty timeline")?;
    let dst = rows
        .iter()
        .map(|r| r.imp)
        .max()
        .context("an empty timeline")?;
    let hops = u32::from(dst - src);
    // A message's packet: `packet mX pP …` with its words (a 5-word packet is a REQALL or a
    // give-back, not the message's data).
    let packet_of = |r: &TimelineRow| -> Option<(String, u8)> {
        let mut w = r.frame.split_whitespace();
        if w.next()? != "packet" || r.words <= 5 {
            return None;
        }
        let msg = w.next()?.to_string();
        let p = w.next()?.strip_prefix('p')?.parse().ok()?;
        Some((msg, p))
    };
    let msg = match message {
        Some(m) => m.to_string(),
        None => rows
            .iter()
            .filter(|r| r.event == "send" && r.imp == src)
            .find_map(|r| packet_of(r).filter(|(_, p)| *p == 0).map(|(m, _)| m))
            .context("the timeline has no first packet of a message sent by its source IMP")?,
    };
    let n = number(&msg).with_context(|| format!("`{msg}` is not a message (mX)"))?;
    let sent_at_src: Vec<&TimelineRow> = rows
        .iter()
        .filter(|r| {
            r.event == "send" && r.imp == src && packet_of(r).is_some_and(|(m, _)| m == msg)
        })
        .collect();
    let Some(last) = sent_at_src.iter().find(|r| r.frame.contains(" last")) else {
        bail!("the timeline has no last packet of {msg} sent by its source IMP");
    };
    let packets = sent_at_src
        .iter()
        .filter_map(|r| packet_of(r).map(|(_, p)| p))
        .max()
        .unwrap_or(0)
        + 1;
    if packets > 1 && sent_at_src.iter().any(|r| r.frame.contains("single")) {
        bail!("{msg}: a single-packet frame among several packets");
    }
    // The message's last word: the host interface's last `eom` before its last packet leaves.
    let eom = rows
        .iter()
        .rfind(|r| r.imp == src && r.event == "host-in" && r.frame == "eom" && r.t_ms <= last.t_ms)
        .with_context(|| format!("no host-in eom before {msg}'s last packet"))?
        .t_ms;
    // A frame's arrival is read from its send (`arrive_ms`: when its last bit is due at the
    // next IMP), as the model's is: each instance's clock is paced to wall time on its own, so
    // an `arrive` row of the next IMP can read a few ms off (up to the run's lag bound).
    let find = |event: &str, imp: u8, is: &dyn Fn(&str) -> bool, name: &str, after: f64| {
        rows.iter()
            .find(|r| r.event == event && r.imp == imp && is(&r.frame) && r.t_ms >= after)
            .with_context(|| format!("no {event} of {name} at IMP {imp} in the timeline"))
    };
    let due = |r: &TimelineRow| {
        r.arrive_ms
            .with_context(|| format!("a send of {} at IMP {} without its arrival", r.frame, r.imp))
    };
    let mut ev = Events::new();
    // The REQALL of a multi-packet message goes as a 5-word packet with the number before the
    // message's (3050 pp. 129–130, `HIPLT2`–`HIPLT0`: the message goes on with a new number),
    // and its ALLOCATE comes back alone.
    let reqall_name = format!("packet m{} p0 REQALL", n.wrapping_sub(1));
    let all_name = format!("ALL m{}", n.wrapping_sub(1));
    let first_packet = sent_at_src
        .first()
        .context("no packet of the message")?
        .t_ms;
    let reqall = packets > 1
        && rows.iter().any(|r| {
            r.event == "send" && r.imp == src && r.frame == reqall_name && r.t_ms <= first_packet
        });
    if reqall {
        let is = |f: &str| f == reqall_name;
        let mut t = f64::MIN;
        for k in 0..hops {
            let sent = find("send", src + k as u8, &is, &reqall_name, t)?;
            ev.insert((What::ReqallLeaves, None, k), sent.t_ms - eom);
            ev.insert((What::ReqallIn, None, k + 1), due(sent)? - eom);
            t = sent.t_ms;
        }
        let is = |f: &str| f == all_name;
        for j in 0..hops {
            let sent = find("send", dst - j as u8, &is, &all_name, t)?;
            ev.insert((What::AllLeaves, None, hops - j), sent.t_ms - eom);
            ev.insert((What::AllIn, None, hops - j - 1), due(sent)? - eom);
            t = sent.t_ms;
        }
    }
    let mut last_in = f64::MIN;
    for p in 0..packets {
        let name = format!("packet {msg} p{p}");
        let is = |f: &str| f == name || f.starts_with(&format!("{name} "));
        let key = (packets > 1).then_some(p);
        let mut t = f64::MIN;
        for k in 0..hops {
            let sent = find("send", src + k as u8, &is, &name, t)?;
            ev.insert((What::PacketLeaves, key, k), sent.t_ms - eom);
            ev.insert((What::PacketIn, key, k + 1), due(sent)? - eom);
            t = sent.t_ms;
        }
        last_in = last_in.max(t);
    }
    let rfnm = format!("RFNM {msg}");
    let suffix = format!(" {msg}");
    let is = |f: &str| f.starts_with("RFNM") && f.ends_with(&suffix);
    let mut t = last_in;
    for j in 0..hops {
        let sent = find("send", dst - j as u8, &is, &rfnm, t)?;
        ev.insert((What::RfnmLeaves, None, hops - j), sent.t_ms - eom);
        ev.insert((What::RfnmIn, None, hops - j - 1), due(sent)? - eom);
        t = sent.t_ms;
    }
    let host = find("host-out", src, &|f| f.starts_with("Rfnm"), "Rfnm", t)?;
    ev.insert((What::RfnmToHost, None, 0), host.t_ms - eom);
    Ok(ProgramSide {
        msg,
        hops,
        packets,
        reqall,
        events: ev,
    })
}

/// A `Write` into a shared buffer, for the model's trace.
#[derive(Clone, Default)]
struct Buffer(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl std::io::Write for Buffer {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The model's side of a message: whether it sent a REQALL of its own, its events, and one
/// packet time (the data frame's time on the line, ms).
struct ModelSide {
    reqall: bool,
    events: Events,
    packet_ms: f64,
}

/// One `send` of the model's trace: kind, message and packet (data only), from and to (IMP
/// numbers), ms.
struct Send {
    kind: String,
    msg: Option<u64>,
    packet: Option<u8>,
    from: u32,
    to: u32,
    t: f64,
}

/// The model's run of `rec`'s experiment on the oracle's chain (`scenario` with `extra`
/// overrides), traced: the run and its `trace.jsonl` text.
pub(crate) fn model_traced(
    scenario: &str,
    extra: &[Override],
    rec: &Recorded,
) -> Result<(nmc_imp::Outcome, String)> {
    let sets = crate::model::experiment_sets(rec, extra)?;
    let s: ImpScenario = nmc_scenario::load("oracle-chain.toml", scenario, &sets)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let seed = s.require_seed().map_err(|e| anyhow::anyhow!("{e}"))?;
    let buf = Buffer::default();
    let out = nmc_imp::scenario::run(
        &s,
        seed,
        nmc_sim::Trace::to_writer(buf.clone()),
        &mut |_| {},
    )
    .map_err(|e| anyhow::anyhow!("{}: {}", rec.experiment, e.0))?;
    let text = String::from_utf8(buf.0.take()).context("the model's trace")?;
    Ok((out, text))
}

/// The model's events of message `index` of `rec`'s experiment (run from `scenario` with
/// `extra` overrides), as [`program_events`] gives the program's.
fn model_events(
    scenario: &str,
    extra: &[Override],
    rec: &Recorded,
    index: u64,
) -> Result<ModelSide> {
    let (out, text) = model_traced(scenario, extra, rec)?;
    let p = &out.params;
    // A frame is in at the next IMP when its last bit is: its bits at the line's rate, and the
    // line's propagation (the chain's lines are alike: the first one's).
    let line = out.lines.first().context("the model's chain has no line")?;
    let frame_ms = |bits: u64| bits as f64 / line.capacity_bps as f64 * 1e3;
    let prop_ms = line.propagation_ns as f64 / 1e6;
    let text_bits = 16 * rec.text_words as u64;
    let max_packet = p.max_packet.get();
    let packets = text_bits.div_ceil(max_packet).max(1);
    let packet_ms = frame_ms(text_bits.min(max_packet) + p.packet_overhead.get());
    let data_ms = |k: u64| {
        frame_ms(text_bits.saturating_sub(k * max_packet).min(max_packet) + p.packet_overhead.get())
            + prop_ms
    };
    let reply_ms = frame_ms(p.control_overhead.get()) + prop_ms;
    let imp =
        |v: &serde_json::Value| -> Option<u32> { v.as_str()?.strip_prefix("IMP")?.parse().ok() };
    let mut accepted = None;
    let mut reqall = None;
    let mut all_sent = Vec::new();
    let mut rfnm_made = None;
    let mut to_host = None;
    let mut sends = Vec::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).context("a model trace line")?;
        let t = v["t_ns"].as_u64().unwrap_or(0) as f64 / 1e6;
        let ours = v["msg"].as_u64() == Some(index);
        match v["event"].as_str() {
            Some("accepted") if ours => accepted = Some(t),
            Some("reqall") if ours && reqall.is_none() => reqall = Some((t, v["num"].as_u64())),
            Some("all-sent") => all_sent.push((t, v["num"].as_u64())),
            Some("rfnm") if ours => rfnm_made = Some(t),
            Some("rfnm-in") if ours => to_host = Some(t),
            Some("send") if !v["retransmission"].as_bool().unwrap_or(false) => {
                let (Some(from), Some(to)) = (imp(&v["from"]), imp(&v["to"])) else {
                    continue;
                };
                sends.push(Send {
                    kind: v["kind"].as_str().unwrap_or("").to_string(),
                    msg: v["msg"].as_u64(),
                    packet: v["packet"].as_u64().map(|x| x as u8),
                    from,
                    to,
                    t,
                });
            }
            _ => {}
        }
    }
    let t0 = accepted.with_context(|| format!("the model's message {index} was never accepted"))?;
    let hops = rec.hops;
    // The sends of a kind from IMP `a` along the chain (`down`: towards the source).
    let along = |is: &dyn Fn(&str) -> bool, a: u32, down: bool| -> Vec<f64> {
        sends
            .iter()
            .filter(|s| is(&s.kind) && s.from == a && (s.to + 1 == a) == down && s.msg.is_none())
            .map(|s| s.t)
            .collect()
    };
    // A control message from IMP `first` hop by hop: the first of its kind sent there at or
    // after `after`, and at each later IMP the one in the same place of that kind's order.
    let chain = |is: &dyn Fn(&str) -> bool, first: u32, down: bool, after: f64, name: &str| {
        let at_first = along(is, first, down);
        let nth = at_first
            .iter()
            .position(|&t| t >= after)
            .with_context(|| format!("the model's {name} never left IMP{first}"))?;
        (0..hops)
            .map(|j| {
                let a = if down { first - j } else { first + j };
                along(is, a, down)
                    .get(nth)
                    .map(|&t| (a, t))
                    .with_context(|| format!("the model's {name} never left IMP{a}"))
            })
            .collect::<Result<Vec<_>>>()
    };
    let mut ev = Events::new();
    let model_reqall = packets > 1 && reqall.is_some();
    if let (true, Some((at, num))) = (model_reqall, reqall) {
        let req = chain(&|k| k == "reqall", 0, false, at, "REQALL")?;
        for &(a, t) in &req {
            ev.insert((What::ReqallLeaves, None, a), t - t0);
            ev.insert((What::ReqallIn, None, a + 1), t + reply_ms - t0);
        }
        let req_in = req.last().map(|&(_, t)| t + reply_ms).unwrap_or(at);
        let made = all_sent
            .iter()
            .find(|&&(t, n)| n == num && t >= req_in - reply_ms)
            .map(|&(t, _)| t)
            .context("the model's destination never sent the REQALL's ALL")?;
        for (a, t) in chain(&|k| k == "all", hops, true, made, "ALL")? {
            ev.insert((What::AllLeaves, None, a), t - t0);
            ev.insert((What::AllIn, None, a - 1), t + reply_ms - t0);
        }
    }
    let mut last_in = f64::MIN;
    for k in 0..packets {
        let key = (packets > 1).then_some(k as u8);
        for a in 0..hops {
            let sent = sends
                .iter()
                .find(|s| {
                    s.kind == "data"
                        && s.msg == Some(index)
                        && s.packet == Some(k as u8)
                        && s.from == a
                })
                .map(|s| s.t)
                .with_context(|| format!("the model's packet {k} never left IMP{a}"))?;
            ev.insert((What::PacketLeaves, key, a), sent - t0);
            ev.insert((What::PacketIn, key, a + 1), sent + data_ms(k) - t0);
            if a + 1 == hops {
                last_in = last_in.max(sent + data_ms(k));
            }
        }
    }
    let after = rfnm_made.map_or(last_in, |m| m.max(last_in));
    for (a, t) in chain(&|k| k.starts_with("rfnm"), hops, true, after, "RFNM")? {
        ev.insert((What::RfnmLeaves, None, a), t - t0);
        ev.insert((What::RfnmIn, None, a - 1), t + reply_ms - t0);
    }
    let host =
        to_host.with_context(|| format!("the model's RFNM of {index} never reached the host"))?;
    ev.insert((What::RfnmToHost, None, 0), host - t0);
    Ok(ModelSide {
        reqall: model_reqall,
        events: ev,
        packet_ms,
    })
}

/// Aligns the recorded timeline `timeline` (a CSV of `nmc oracle timeline`) with the model's
/// run of `rec` (from `scenario`, `extra` overrides), message `index` of the pump; the
/// program's message is `message` (`mX`), by default the first the source sends.
pub fn align(
    timeline: &Path,
    message: Option<&str>,
    scenario: &str,
    extra: &[Override],
    rec: &Recorded,
    index: u64,
) -> Result<Alignment> {
    let mut r = csv::Reader::from_path(timeline)
        .with_context(|| format!("cannot read {}", timeline.display()))?;
    let rows: Vec<TimelineRow> = r.deserialize().collect::<Result<_, _>>().with_context(|| {
        format!(
            "{}: not a timeline of nmc oracle timeline",
            timeline.display()
        )
    })?;
    let program = program_events(&rows, message)?;
    let hops = program.hops;
    if hops != rec.hops {
        bail!(
            "{} spans {hops} hops; experiment {} has {}",
            timeline.display(),
            rec.experiment,
            rec.hops
        );
    }
    let model = model_events(scenario, extra, rec, index)?;
    let packets = program.packets;
    let model_packets = model
        .events
        .keys()
        .filter(|(w, _, h)| *w == What::PacketLeaves && *h == 0)
        .count();
    if model_packets != usize::from(packets) {
        bail!(
            "the program's {} has {packets} packets; the model's message {index} {model_packets}",
            program.msg
        );
    }
    let mut steps = Vec::new();
    for key in order(hops, packets, program.reqall || model.reqall) {
        let prev = previous(key, hops);
        let (p, m) = (program.events.get(&key), model.events.get(&key));
        let ps = p
            .zip(prev_time(&program.events, &prev, hops))
            .map(|(t, f)| t - f);
        let ms = m
            .zip(prev_time(&model.events, &prev, hops))
            .map(|(t, f)| t - f);
        let diff = ms.zip(ps).map(|(m, p)| m - p);
        steps.push(Step {
            what: key.0.name().to_string(),
            packet: key.1,
            at_hop: key.2,
            program_ms: p.copied(),
            model_ms: m.copied(),
            program_step_ms: ps,
            model_step_ms: ms,
            step_diff_ms: diff,
            within: diff.map(|d| d.abs() <= model.packet_ms),
        });
    }
    let host = (What::RfnmToHost, None, 0);
    let (pt, mt) = (program.events[&host], model.events[&host]);
    Ok(Alignment {
        experiment: rec.experiment.clone(),
        hops,
        packets,
        program_message: program.msg,
        model_index: index,
        program_reqall: program.reqall,
        model_reqall: model.reqall,
        packet_time_ms: model.packet_ms,
        steps,
        program_total_ms: pt,
        model_total_ms: mt,
        total_within: (mt - pt).abs() <= (0.05 * pt).max(model.packet_ms),
    })
}

/// [`align`] with the model's first measured message (from `first`) that is like the
/// program's: one that sent a REQALL if the program's did, one that did not if it did not, so
/// that the steps compared are the same kind of message's (the model's first measured one if
/// none of its messages is).
pub fn align_like(
    timeline: &Path,
    message: Option<&str>,
    scenario: &str,
    extra: &[Override],
    rec: &Recorded,
    first: u64,
) -> Result<Alignment> {
    let a = align(timeline, message, scenario, extra, rec, first)?;
    if a.program_reqall == a.model_reqall {
        return Ok(a);
    }
    for index in first + 1..first + rec.measured {
        let b = align(timeline, message, scenario, extra, rec, index)?;
        if b.program_reqall == b.model_reqall {
            return Ok(b);
        }
    }
    Ok(a)
}

/// A time or `—` where a side has none.
fn cell(v: Option<f64>, sign: bool) -> String {
    match (v, sign) {
        (Some(x), false) => format!("{x:.2}"),
        (Some(x), true) => format!("{x:+.2}"),
        (None, _) => "—".to_string(),
    }
}

/// The alignment as a Markdown table.
pub fn table(a: &Alignment) -> String {
    let multi = a.packets > 1;
    let mut s = if multi {
        format!(
            "# {} ({} hop{}, {} packets): the program's {} beside the model's message {}\n\n\
             ms from the message's end at the source IMP (the program: its `eom` row, when the host interface starts on the last piece; the model: `accepted`, its last word in), as for single packets; packet: its number in the message (the timeline's pN); each step is measured from the event before it of the same packet or control message (a packet leaving the source IMP from the message's end, the RFNM leaving the destination from the last packet in); a step is within when it is within one packet time ({:.2} ms) of the program's. REQALL: the program {}, the model {} (— where a side has no such event: not compared)\n\n\
             | event | packet | at hop | program | model | program step | model step | model − program | within |\n\
             | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n",
            a.experiment,
            a.hops,
            if a.hops == 1 { "" } else { "s" },
            a.packets,
            a.program_message,
            a.model_index,
            a.packet_time_ms,
            if a.program_reqall { "sent one" } else { "none" },
            if a.model_reqall { "sent one" } else { "none" },
        )
    } else {
        format!(
            "# {} ({} hops): the program's {} beside the model's message {}\n\n\
             ms from the message's last word in at the source IMP; a step is within when it is within one packet time ({:.2} ms) of the program's\n\n\
             | event | at hop | program | model | program step | model step | model − program | within |\n\
             | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n",
            a.experiment, a.hops, a.program_message, a.model_index, a.packet_time_ms
        )
    };
    for st in &a.steps {
        let packet = if multi {
            format!(
                " {} |",
                st.packet.map(|p| p.to_string()).unwrap_or_default()
            )
        } else {
            String::new()
        };
        s += &format!(
            "| {} |{} {} | {} | {} | {} | {} | {} | {} |\n",
            st.what,
            packet,
            st.at_hop,
            cell(st.program_ms, false),
            cell(st.model_ms, false),
            cell(st.program_step_ms, false),
            cell(st.model_step_ms, false),
            cell(st.step_diff_ms, true),
            match st.within {
                Some(true) => "yes",
                Some(false) => "NO",
                None => "—",
            }
        );
    }
    s += &format!(
        "\nThe whole: program {:.2} ms, model {:.2} ms ({:+.1} %): {}.\n",
        a.program_total_ms,
        a.model_total_ms,
        100.0 * (a.model_total_ms - a.program_total_ms) / a.program_total_ms,
        if a.total_within {
            "within 5 % or one packet time"
        } else {
            "OUTSIDE 5 % and one packet time"
        }
    );
    let misses: Vec<(&str, Option<u8>, u32)> = a
        .steps
        .iter()
        .filter(|st| st.within == Some(false))
        .map(|st| (st.what.as_str(), st.packet, st.at_hop))
        .chain((!a.total_within).then_some(("the whole", None, u32::MAX)))
        .collect();
    let place = |(what, packet, hop): (&str, Option<u8>, u32)| {
        let mut at = what.to_string();
        if hop != u32::MAX {
            at += &format!(" at hop {hop}");
        }
        if let Some(p) = packet {
            at += &format!(" (packet {p})");
        }
        at
    };
    if multi {
        let compared = a.steps.iter().filter(|st| st.within.is_some()).count();
        let within = a.steps.iter().filter(|st| st.within == Some(true)).count();
        let one_side = a.steps.len() - compared;
        s += &format!("\nSteps within one packet time: {within} of {compared} compared");
        if one_side > 0 {
            s += &format!(" ({one_side} on one side only)");
        }
        s += ".\n";
        // Each cause once, with every step it names.
        let mut causes: Vec<(&str, Vec<String>)> = Vec::new();
        let mut unnamed = Vec::new();
        for m in &misses {
            match residual(a, m.0, m.1, m.2) {
                Some(r) => match causes.iter_mut().find(|(c, _)| *c == r.cause) {
                    Some((_, at)) => at.push(place(*m)),
                    None => causes.push((r.cause, vec![place(*m)])),
                },
                None => unnamed.push(place(*m)),
            }
        }
        for (cause, at) in causes {
            s += &format!("\n{}, named: {cause}.\n", at.join("; "));
        }
        for at in unnamed {
            s += &format!("\n{at}: outside, and not named.\n");
        }
    } else {
        for m in misses {
            match residual(a, m.0, m.1, m.2) {
                Some(r) => s += &format!("\n{}, named: {}.\n", place(m), r.cause),
                None => s += &format!("\n{}: outside, and not named.\n", place(m)),
            }
        }
    }
    s
}

/// A step of a recorded timeline outside one packet time of the model, with what is known of
/// its cause.
#[derive(Clone, Copy, Debug)]
pub struct Residual {
    /// The recorded experiment.
    pub experiment: &'static str,
    /// The program's message (its number in the timeline).
    pub message: &'static str,
    /// As [`Step::what`], or `the whole`.
    pub what: &'static str,
    /// As [`Step::packet`].
    pub packet: Option<u8>,
    /// As [`Step::at_hop`]; `u32::MAX` for the whole.
    pub at_hop: u32,
    /// What is known of its cause.
    pub cause: &'static str,
}

/// The named residual of a step of `a`, if there is one.
fn residual(
    a: &Alignment,
    what: &str,
    packet: Option<u8>,
    at_hop: u32,
) -> Option<&'static Residual> {
    TIMELINE_RESIDUALS.iter().find(|r| {
        r.experiment == a.experiment
            && r.message == a.program_message
            && r.what == what
            && r.packet == packet
            && r.at_hop == at_hop
    })
}

/// The steps of the recorded timelines outside one packet time of the model, each with what is
/// known of its cause (the tests fail if one agrees again, or a step misses without an entry).
pub const TIMELINE_RESIDUALS: &[Residual] = &[
    // The single packet, 9 hops: the program's m183 beside the model's first measured message
    // without a REQALL.
    Residual {
        experiment: "516-single-9hop",
        message: "m183",
        what: "packet leaves",
        packet: None,
        at_hop: 6,
        cause: "the program's packet waits 41.9 ms at IMP 17 (the model 5.4) with no frame of the \
         pair's traffic on that line (the timeline lists every one; routing frames are counted, \
         not listed): the slow tick's pause (a null, then a routing message on each line, BBN \
         3050 pp. 163-164; data/oracle/emulated/per-hop/README.md). The model's message meets \
         a pause of the same length on its way back instead, with its RFNM at IMP 3 (41.5 ms, \
         the step named below): with every IMP's clock started at one instant (imp_clocks = \
         \"epoch\", as the recorded run) the pause has the program's length; where a message \
         meets it is the phase of the clocks to the message, which the alignment does not \
         match",
    },
    Residual {
        experiment: "516-single-9hop",
        message: "m183",
        what: "RFNM leaves",
        packet: None,
        at_hop: 3,
        cause: "the model's RFNM waits 41.5 ms at IMP 3 (the program's 5.3): the model's pause at \
         its slow tick, which the program's message met with its packet at IMP 17 (the step \
         named above)",
    },
    Residual {
        experiment: "516-single-9hop",
        message: "m183",
        what: "RFNM leaves",
        packet: None,
        at_hop: 6,
        cause: "the program's RFNM waits 26.1 ms at IMP 17 on its way back (the model's 0.6), \
         with no frame of the pair on that line: a routing frame and its null (26.2 ms on a 50 \
         kbit/s line) are the likeliest reading, not shown from this recording, which lists the \
         pair's frames only",
    },
    Residual {
        experiment: "516-single-9hop",
        message: "m183",
        what: "the whole",
        packet: None,
        at_hop: u32::MAX,
        cause: "the program's message waits at two pauses (41.9 ms with its packet at IMP 17, \
         26.1 with its RFNM), the model's at one (41.5 ms with its RFNM at IMP 3): program 350.1 \
         ms, model 318.8 (-9.0 %). The program's message took 350.1 ms against its experiment's \
         median of 302.9",
    },
    // The 8-packet, 1-hop timeline: the program's m82 beside the model's first measured
    // message with a REQALL, 22.
    Residual {
        experiment: "516-4out-1hop",
        message: "m82",
        what: "packet leaves",
        packet: Some(3),
        at_hop: 0,
        cause: "the program's packet 3 leaves 50.7 ms after its packet 2 (25.0 ms after the \
         message's end), the model's one frame after (8.2 ms before the end): at the source the \
         program's line sends a null at 453.96 ms of the window, then stays busy until packet 3 \
         at 480.98 with a frame the timeline counts but does not list (23.6 ms: a routing \
         message's 68 words); the model's message 22 meets no routing message. Which message \
         meets one is the phase of the clocks to the message",
    },
    Residual {
        what: "packet leaves",
        packet: Some(4),
        at_hop: 0,
        ..BEHIND_ROUTING_1HOP
    },
    Residual {
        what: "packet leaves",
        packet: Some(5),
        at_hop: 0,
        ..BEHIND_ROUTING_1HOP
    },
    Residual {
        what: "packet leaves",
        packet: Some(6),
        at_hop: 0,
        ..BEHIND_ROUTING_1HOP
    },
    Residual {
        what: "packet leaves",
        packet: Some(7),
        at_hop: 0,
        ..BEHIND_ROUTING_1HOP
    },
    Residual {
        what: "the whole",
        packet: None,
        at_hop: u32::MAX,
        cause: "the program's packets 3-7 wait behind a routing message at the source (the steps \
         named above), the model's do not: program 164.3 ms, model 139.3 (-15.2 %)",
        ..BEHIND_ROUTING_1HOP
    },
    // The 8-packet, 9-hop timeline: the program's first message, m87, beside the model's
    // first measured message without a REQALL, 20.
    Residual {
        what: "packet leaves",
        packet: Some(0),
        at_hop: 8,
        ..SLOW_TICK_9HOP
    },
    Residual {
        what: "packet leaves",
        packet: Some(1),
        at_hop: 7,
        ..SLOW_TICK_9HOP
    },
    Residual {
        what: "packet leaves",
        packet: Some(2),
        at_hop: 6,
        ..SLOW_TICK_9HOP
    },
    Residual {
        what: "packet leaves",
        packet: Some(3),
        at_hop: 5,
        ..SLOW_TICK_9HOP
    },
    Residual {
        what: "packet leaves",
        packet: Some(4),
        at_hop: 4,
        ..SLOW_TICK_9HOP
    },
    Residual {
        what: "packet leaves",
        packet: Some(5),
        at_hop: 3,
        ..SLOW_TICK_9HOP
    },
    Residual {
        what: "packet leaves",
        packet: Some(6),
        at_hop: 3,
        ..SLOW_TICK_9HOP
    },
    Residual {
        what: "packet leaves",
        packet: Some(7),
        at_hop: 2,
        ..SLOW_TICK_9HOP
    },
    Residual {
        packet: Some(0),
        ..GVB_AHEAD_9HOP
    },
    Residual {
        packet: Some(1),
        ..GVB_AHEAD_9HOP
    },
    Residual {
        packet: Some(2),
        ..GVB_AHEAD_9HOP
    },
    Residual {
        packet: Some(3),
        ..GVB_AHEAD_9HOP
    },
    Residual {
        packet: Some(4),
        ..GVB_AHEAD_9HOP
    },
    Residual {
        packet: Some(5),
        ..GVB_AHEAD_9HOP
    },
    Residual {
        what: "packet leaves",
        packet: Some(0),
        at_hop: 1,
        cause: "the model's packet 0 waits 30.5 ms at IMP 1 (the program's 2.7) behind the \
         last packet of the message before, which the routing frame IMP 1 sent at the slow \
         tick (routing_clock = \"imp-tick-1973\", 16.8 ms before packet 0 came in) had held: \
         the slow tick met at the message's start, where the program's m87 meets it at hops \
         2-8 (named above)",
        ..SLOW_TICK_9HOP
    },
    Residual {
        what: "the whole",
        packet: None,
        at_hop: u32::MAX,
        cause: "the program's message meets its pause at the slow tick with 8 packets at once \
         (28.6-41.9 ms each) on its way, the model's meets it at its start, before its end is \
         counted, behind a give-back (named above): program 525.2 ms, model 440.9 (-16.1 %)",
        ..SLOW_TICK_9HOP
    },
];

/// The program's packets 4-7 of m82 (1 hop), which follow its packet 3 behind a routing
/// message at the source.
const BEHIND_ROUTING_1HOP: Residual = Residual {
    experiment: "516-4out-1hop",
    message: "m82",
    what: "",
    packet: None,
    at_hop: 0,
    cause: "each follows the program's packet 3, which waited behind a null and a routing \
     message at the source (the step named for packet 3), one frame after the other: 28.6-32.9 \
     ms later than the model's, measured from the message's end (32.4-32.9 for packets 4-6, \
     since a give-back that came among them in the model waits behind the data, \
     gvb_queue = \"regular-1973\")",
};

/// The program's packets of m87 (9 hops) that wait through its pause at the slow tick.
const SLOW_TICK_9HOP: Residual = Residual {
    experiment: "516-4out-9hop",
    message: "m87",
    what: "",
    packet: None,
    at_hop: 0,
    cause: "the program's pause at the slow tick, at every IMP at once: in this recording no IMP \
     sends a data frame from 302.9 to 344.3 ms of the window (m87's eom row at 99.2), IMPs 12–19 \
     each send a null on both lines at 316.3–316.9 ms, and forwarding starts again at \
     344.3–353.6 ms; so these eight packets, each at the IMP it had reached, wait 28.6–41.9 \
     ms where the model's wait 0.9–4.4 (packets 0 at hop 8 and 6 at hop 3 also behind the packet \
     queued ahead of them when the pause came). The recorded run started every IMP's clock at \
     one instant, and the program starts all its lines' routing messages in step with the slow \
     tick (BBN 3050 p. 162, `TOIL1`); at the slow tick it runs the slow jobs at timeout level \
     (p. 171 `JOBS`: `RUTCLK`, `RUTOUT`, `DEDI`), then puts a routing message, with a null, on \
     each line whose time has come (pp. 163–164 `RSTOUT`, `RSTO6`): 68 words, 23.2 ms, ahead \
     of the waiting data (the timeline counts routing frames, does not list them). On nmc's \
     emulator (`nmc oracle emulate --run 516-4-pass1 --trace-all`) IMP 15 of the same \
     experiment pauses so about every 640 ms: its output line idle for up to 15 ms with a \
     packet waiting, then a null and a routing frame, then the packet, about 40 ms in all. The \
     model pauses so too (routing at the IMP's ticks, a null before each routing message, the \
     slow tick's hold as measured, every IMP's clock at one instant as in the recording), but \
     its message 20 meets it only at its start, at IMPs 0 and 1 before its last packet is in \
     (the steps named for its packets at hop 0): the phase of the clocks to the message is not \
     the recording's, and the alignment does not match it",
};

/// The model's message 20 (9 hops), whose last packet waits behind a give-back at the source.
const GVB_AHEAD_9HOP: Residual = Residual {
    experiment: "516-4out-9hop",
    message: "m87",
    what: "packet leaves",
    packet: None,
    at_hop: 0,
    cause: "measured from the message's end (its last word in), the model's packets leave the \
     source 23.6-52.1 ms earlier than the program's because its end comes late: 27.6 ms before \
     it the TALLY clock gave back the ALL of the RFNM that came 118 ms before (gvb_queue = \
     \"regular-1973\": the GVB joins the data queue, behind the message's packets, and holds \
     a place among the line's 8), so the host's last packet is refused until a place frees; and \
     the slow tick's routing frame (23.2 ms) goes between packets 0 and 1. The program's m87 \
     met no give-back: its packet 0 leaves 9.8 ms after its end. A give-back ahead of a \
     message's last packet is what the program does too (watched at 4 hops, the ledger's \
     REQALL entry in model.rs); which message meets one is the phase of the TALLY clock to \
     the messages",
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Every step within one packet time of the program's, or named in
    /// [`TIMELINE_RESIDUALS`]; and no named step agrees now.
    fn agrees_or_is_named(a: &Alignment) {
        let named =
            |what: &str, packet: Option<u8>, hop: u32| residual(a, what, packet, hop).is_some();
        for s in &a.steps {
            let Some(within) = s.within else {
                assert!(
                    !named(&s.what, s.packet, s.at_hop),
                    "{} at hop {} (packet {:?}) is on one side only and named",
                    s.what,
                    s.at_hop,
                    s.packet
                );
                continue;
            };
            assert_eq!(
                within,
                !named(&s.what, s.packet, s.at_hop),
                "{} at hop {} (packet {:?}): program step {:?} ms, model {:?} ms (tolerance {:.2} ms); a miss must be named, a named step must still miss",
                s.what,
                s.at_hop,
                s.packet,
                s.program_step_ms,
                s.model_step_ms,
                a.packet_time_ms
            );
        }
        assert_eq!(a.total_within, !named("the whole", None, u32::MAX));
        // Every entry of this message names a step of it.
        for r in TIMELINE_RESIDUALS
            .iter()
            .filter(|r| r.experiment == a.experiment && r.message == a.program_message)
        {
            assert!(
                r.at_hop == u32::MAX
                    || a.steps
                        .iter()
                        .any(|s| s.what == r.what && s.packet == r.packet && s.at_hop == r.at_hop),
                "{} at hop {} (packet {:?}) is named but not a step",
                r.what,
                r.at_hop,
                r.packet
            );
        }
    }

    /// Aligns a recorded timeline of run 516-4-pass1 (`data/oracle`) with the model's first
    /// measured message like the program's ([`align_like`]).
    fn recorded(timeline: &str, experiment: &str, message: Option<&str>) -> Alignment {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/oracle");
        let recorded = crate::model::recorded(&data).unwrap();
        let rec = recorded
            .iter()
            .find(|r| r.run == "516-4-pass1" && r.experiment == experiment)
            .unwrap();
        align_like(
            &data.join(timeline),
            message,
            crate::model::SCENARIO,
            &[],
            rec,
            crate::model::first_measured(rec),
        )
        .unwrap()
    }

    /// The recorded 9-hop single-packet timeline beside the model. Needs no SIMH.
    #[test]
    fn the_single_packet_timeline_agrees_step_by_step_or_is_named() {
        let a = recorded("timeline-1packet-516-9hop.csv", "516-single-9hop", None);
        println!("{}", table(&a));
        assert_eq!(a.steps.len(), 4 * 9 + 1);
        agrees_or_is_named(&a);
    }

    /// The recorded 1-hop 8-packet timeline (4 outstanding), its first message with a REQALL
    /// (m82, as the model's first measured message has), beside the model: the REQALL and its
    /// ALL, each packet, the RFNM. Needs no SIMH.
    #[test]
    fn the_8_packet_1_hop_timeline_agrees_step_by_step_or_is_named() {
        let a = recorded(
            "timeline-8packet-516-1hop-4out.csv",
            "516-4out-1hop",
            Some("m82"),
        );
        println!("{}", table(&a));
        assert!(a.program_reqall && a.model_reqall);
        assert_eq!(a.steps.len(), 4 + 2 * 8 + 3);
        agrees_or_is_named(&a);
    }

    /// The recorded 9-hop 8-packet timeline (4 outstanding), its first message, beside the
    /// model. Needs no SIMH.
    #[test]
    fn the_8_packet_9_hop_timeline_agrees_step_by_step_or_is_named() {
        let a = recorded("timeline-8packet-516-9hop-4out.csv", "516-4out-9hop", None);
        println!("{}", table(&a));
        assert_eq!(
            a.steps.len(),
            2 * 9 * 8
                + 2 * 9
                + 1
                + if a.program_reqall || a.model_reqall {
                    4 * 9
                } else {
                    0
                }
        );
        agrees_or_is_named(&a);
    }

    #[test]
    fn a_message_is_read_per_packet_with_its_reqall_and_all() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/oracle");
        let mut r =
            csv::Reader::from_path(data.join("timeline-8packet-516-1hop-4out.csv")).unwrap();
        let rows: Vec<TimelineRow> = r.deserialize().collect::<Result<_, _>>().unwrap();
        // The first message whose packet 0 the source sends: m80, no REQALL of its own.
        let first = program_events(&rows, None).unwrap();
        assert_eq!(
            (first.msg.as_str(), first.packets, first.reqall),
            ("m80", 8, false)
        );
        // m82 goes after REQALL m81 and its ALL.
        let m82 = program_events(&rows, Some("m82")).unwrap();
        assert!(m82.reqall);
        let at = |k: Key| m82.events[&k];
        assert!(at((What::ReqallLeaves, None, 0)) < at((What::AllIn, None, 0)));
        assert!(at((What::PacketLeaves, Some(7), 0)) < at((What::RfnmLeaves, None, 1)));
        // A message not in the timeline, or one whose life it does not hold, is refused.
        assert!(program_events(&rows, Some("m200")).is_err());
        assert!(program_events(&rows, Some("m79")).is_err());
    }
}
