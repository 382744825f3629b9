//! From a run's records and traces to K&O's quantities.
//!
//! Definitions (K&O §IV; `nmc-experiments`' `ko_v2_throughput` takes the same):
//! * **Throughput**: the host's data bits delivered per second, `16 · text words` per message,
//!   over the time between replies (the time a batch of messages took from the reply before
//!   it to its last reply), after a warm-up.
//! * **Round trip, K&O's**: from the source IMP taking the message's last word (the host may
//!   start the next message; `HIRXDONE` with end of message in the source IMP's trace) to the
//!   RFNM's last word reaching the host (`HITX` of the RFNM plus its two words at the host
//!   interface's speed), both on the source IMP's cycle clock. It includes the source IMP's
//!   queues but not the host's wait to hand the message over (K&O Fig. 2, points a–c).
//! * **Round trip, host's**: from the host handing the message to the interface to its RFNM
//!   arriving, on the host's wall clock (the wait at the source included).
//!
//! Replies on one link come back in order, and the IMP takes the host's messages in order,
//! so the i-th message on a link, the i-th end of message with that link's leader and the
//! i-th RFNM on that link are one message; a count that does not match is reported, not
//! guessed at.

use crate::leader::Kind;
use crate::run::HostRun;
use crate::stats::{Estimate, batch_means, batches};
use crate::trace::{Trace, host_messages};

/// One message's times (ns since the epoch).
#[derive(Clone, Debug, serde::Serialize)]
pub struct MessageRow {
    /// Experiment name.
    pub experiment: String,
    /// Index in its run.
    pub index: u64,
    /// Measured (after warm-up).
    pub measured: bool,
    /// Host handed it over (host clock).
    pub host_sent_ns: u64,
    /// Reply reached the host (host clock).
    pub host_reply_ns: u64,
    /// Reply kind.
    pub reply: String,
    /// The source IMP took its last word (cycle clock), if matched.
    pub imp_eom_ns: Option<u64>,
    /// The RFNM's last word reached the host (cycle clock), if matched.
    pub imp_rfnm_ns: Option<u64>,
    /// K&O's round trip, ns.
    pub ko_rtt_ns: Option<u64>,
    /// The host's round trip, ns.
    pub host_rtt_ns: u64,
}

/// One experiment's result.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ExperimentResult {
    /// Experiment name.
    pub experiment: String,
    /// Hops to the destination.
    pub hops: usize,
    /// Messages outstanding at most.
    pub outstanding: usize,
    /// Text words per message.
    pub text_words: usize,
    /// Messages answered / measured.
    pub answered: usize,
    /// Messages measured (after warm-up).
    pub measured: usize,
    /// Replies other than RFNM.
    pub non_rfnm: usize,
    /// Throughput, kbit/s (batch means over the source IMP's RFNM times).
    pub throughput_kbps: Option<Estimate>,
    /// K&O's round trip, ms.
    pub ko_rtt_ms: Option<Estimate>,
    /// The host's round trip, ms.
    pub host_rtt_ms: Option<Estimate>,
    /// Median K&O round trip, ms.
    pub ko_rtt_median_ms: Option<f64>,
    /// Why the trace matching failed, if it did.
    pub matching: String,
    /// The pump stalled.
    pub stalled: bool,
    /// Every instance kept up with wall time while this experiment ran (and it did not stall).
    pub accepted: bool,
    /// Largest lag of any instance over the experiment, ms.
    pub max_lag_ms: f64,
    /// Largest share of time any instance spent over the lag bound during it.
    pub behind_share: f64,
    /// Why it was refused, if it was.
    pub refused_because: Vec<String>,
    /// What the source IMP sent and got meanwhile.
    pub source: SourceCounts,
    /// How the destination IMP received single-packet messages meanwhile.
    pub dest: DestCounts,
}

/// How often each instance writes a `LAG` record (patch 0003): one window of simulated time.
pub const LAG_WINDOW_NS: u64 = 1_000_000_000;

/// Did every instance keep up while an experiment ran? From the one-second `LAG` windows of
/// each trace that overlap `span` (a window at `t` covers `(t − 1 s, t]`). Returns the largest
/// lag (ms), the largest share of time over the bound, and the reasons to refuse.
pub fn judge(
    traces: &[(u8, &Trace)],
    span: (u64, u64),
    max_lag_ms: f64,
    max_behind: f64,
    bound_us: u64,
) -> (f64, f64, Vec<String>) {
    let mut worst_lag = 0.0f64;
    let mut worst_behind = 0.0f64;
    let mut reasons = Vec::new();
    for (imp, t) in traces {
        let w: Vec<(u64, u64)> = t
            .events
            .iter()
            .filter(|e| e.what == "LAG" && e.t_ns > span.0 && e.t_ns < span.1 + LAG_WINDOW_NS)
            .map(|e| {
                (
                    e.extra_u64("max_lag_ns").unwrap_or(u64::MAX),
                    e.extra_u64("over_ns").unwrap_or(u64::MAX),
                )
            })
            .collect();
        if w.is_empty() || t.summary.is_none() {
            reasons.push(format!(
                "IMP {imp}: no lag record over the experiment (did it exit cleanly?)"
            ));
            continue;
        }
        let lag = w.iter().map(|x| x.0).max().unwrap_or(u64::MAX) as f64 / 1e6;
        let behind = w.iter().map(|x| x.1 as f64).sum::<f64>() / (w.len() as f64 * 1e9);
        worst_lag = worst_lag.max(lag);
        worst_behind = worst_behind.max(behind);
        if lag > max_lag_ms {
            reasons.push(format!(
                "IMP {imp} lagged {lag:.1} ms (bound {max_lag_ms} ms)"
            ));
        }
        if behind > max_behind {
            reasons.push(format!(
                "IMP {imp} was over {bound_us} us behind {:.2} % of the time (bound {:.2} %)",
                100.0 * behind,
                100.0 * max_behind
            ));
        }
    }
    (worst_lag, worst_behind, reasons)
}

/// The K&O times of every message of `run`, from the source IMP's trace.
pub fn message_rows(run: &HostRun, source: &Trace, host_bps: u32) -> (Vec<MessageRow>, String) {
    let (ins, outs) = host_messages(source, 1);
    let eoms: Vec<u64> = ins
        .iter()
        .filter(|m| m.leader.link == run.link && m.leader.kind == Kind::Regular)
        .map(|m| m.eom_ns)
        .collect();
    let rfnms: Vec<u64> = outs
        .iter()
        .filter(|m| m.leader.link == run.link && m.leader.kind != Kind::Regular)
        .map(|m| m.start_ns + (2 * 16 * 1_000_000_000u64).div_ceil(u64::from(host_bps)))
        .collect();
    let n = run.records.len();
    let matching = if eoms.len() == n && rfnms.len() == n {
        "ok".to_string()
    } else {
        format!(
            "records {n}, ends of message {}, replies {} in the trace",
            eoms.len(),
            rfnms.len()
        )
    };
    let rows = run
        .records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let (e, f) = if matching == "ok" {
                (Some(eoms[i]), Some(rfnms[i]))
            } else {
                (None, None)
            };
            MessageRow {
                experiment: run.experiment.name.clone(),
                index: r.index,
                measured: r.index >= run.experiment.warmup,
                host_sent_ns: r.sent_ns,
                host_reply_ns: r.reply_ns,
                reply: format!("{:?}", r.reply),
                imp_eom_ns: e,
                imp_rfnm_ns: f,
                ko_rtt_ns: e.zip(f).map(|(e, f)| f.saturating_sub(e)),
                host_rtt_ns: r.reply_ns.saturating_sub(r.sent_ns),
            }
        })
        .collect();
    (rows, matching)
}

/// Batches used for every estimate.
pub const BATCHES: usize = 10;

/// A pump's settings as a command takes them: at least one message outstanding and, when
/// `messages` is given, at least [`BATCHES`] measured after `warmup`.
pub fn check_pump(outstanding: usize, messages: Option<u64>, warmup: u64) -> anyhow::Result<()> {
    if outstanding == 0 {
        anyhow::bail!("--outstanding must be at least 1");
    }
    if let Some(m) = messages
        && m < warmup + BATCHES as u64
    {
        anyhow::bail!(
            "--messages {m} leaves fewer than {BATCHES} measured after --warmup {warmup}"
        );
    }
    Ok(())
}

/// The experiment's estimates.
pub fn summarize(
    run: &HostRun,
    rows: &[MessageRow],
    matching: String,
    hops: usize,
) -> ExperimentResult {
    let e = &run.experiment;
    let est = estimate(rows, 16.0 * e.text_words as f64);
    ExperimentResult {
        experiment: e.name.clone(),
        hops,
        outstanding: e.outstanding,
        text_words: e.text_words,
        answered: rows.len(),
        measured: rows.iter().filter(|r| r.measured).count(),
        non_rfnm: rows.iter().filter(|r| r.reply != "Rfnm").count(),
        throughput_kbps: est.throughput_kbps,
        ko_rtt_ms: est.ko_rtt_ms,
        host_rtt_ms: est.host_rtt_ms,
        ko_rtt_median_ms: est.ko_rtt_median_ms,
        matching,
        stalled: run.stalled,
        accepted: false,
        max_lag_ms: f64::NAN,
        behind_share: f64::NAN,
        refused_because: Vec::new(),
        source: SourceCounts::default(),
        dest: DestCounts::default(),
    }
}

/// An experiment's estimates from its messages (the definitions of `data/oracle/README.md`),
/// the same for the real program's messages and the model's (`crate::model`).
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Estimates {
    /// Throughput, kbit/s: text bits over the time from the reply before the first measured
    /// message to the last reply, batch means.
    pub throughput_kbps: Option<Estimate>,
    /// K&O's round trip, ms (source IMP took the last word → RFNM), batch means.
    pub ko_rtt_ms: Option<Estimate>,
    /// The host's round trip, ms (host handed the message over → RFNM), batch means.
    pub host_rtt_ms: Option<Estimate>,
    /// Median K&O round trip, ms.
    pub ko_rtt_median_ms: Option<f64>,
}

/// [`Estimates`] of messages `rows` (in order of sending) carrying `text_bits` each.
pub fn estimate(rows: &[MessageRow], text_bits: f64) -> Estimates {
    let measured: Vec<&MessageRow> = rows.iter().filter(|r| r.measured).collect();
    // The reply before the first measured one starts the first batch.
    let start_of = |i: usize| -> Option<u64> {
        if i == 0 {
            rows.iter()
                .rfind(|r| !r.measured)
                .and_then(|r| r.imp_rfnm_ns)
        } else {
            measured[i - 1].imp_rfnm_ns
        }
    };
    let mut tput = Vec::new();
    let per = measured.len() / BATCHES;
    if per > 0 {
        for b in 0..BATCHES {
            let first = b * per;
            let last = (b + 1) * per - 1;
            if let (Some(t0), Some(t1)) = (start_of(first), measured[last].imp_rfnm_ns)
                && t1 > t0
            {
                tput.push(per as f64 * text_bits / ((t1 - t0) as f64 / 1e9) / 1000.0);
            }
        }
    }
    let ko: Vec<f64> = measured
        .iter()
        .filter_map(|r| r.ko_rtt_ns)
        .map(|v| v as f64 / 1e6)
        .collect();
    let host: Vec<f64> = measured
        .iter()
        .map(|r| r.host_rtt_ns as f64 / 1e6)
        .collect();
    let means = |v: &[f64]| -> Option<Estimate> {
        let b: Vec<f64> = batches(v, BATCHES)
            .iter()
            .map(|s| s.iter().sum::<f64>() / s.len() as f64)
            .collect();
        batch_means(&b)
    };
    let median = {
        let mut k = ko.clone();
        k.sort_by(|a, b| a.total_cmp(b));
        (!k.is_empty()).then(|| k[k.len() / 2])
    };
    Estimates {
        throughput_kbps: (tput.len() == BATCHES)
            .then(|| batch_means(&tput))
            .flatten(),
        ko_rtt_ms: if ko.len() == measured.len() {
            means(&ko)
        } else {
            None
        },
        host_rtt_ms: means(&host),
        ko_rtt_median_ms: median,
    }
}

/// How well frames kept their time between instances: for each modem frame, its arrival at
/// the receiving IMP (on the receiver's cycle clock) minus the time its last bit was due there
/// (on the sender's clock, `arrive=` of its `MITX`). It is at least the polling delay; beyond
/// that it is the skew between the two instances' clocks, which lag on a busy machine makes.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Delivery {
    /// Frames paired (sent in the window and received).
    pub frames: usize,
    /// Mean error, ms.
    pub mean_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Largest, ms.
    pub max_ms: f64,
    /// Earliest (negative: received before due, the receiver's clock behind the sender's), ms.
    pub min_ms: f64,
    /// Frames more than 1 ms late.
    pub over_1ms: usize,
}

/// Frame delivery errors over the lines of `net` for frames due after `from_ns`.
pub fn delivery(net: &crate::run::Network, traces: &[Trace], from_ns: u64) -> Delivery {
    let mut errs: Vec<f64> = Vec::new();
    for l in &net.lines {
        for (tx, rx) in [(l.a, l.b), (l.b, l.a)] {
            let sent: Vec<u64> = traces[tx.0]
                .events
                .iter()
                .filter(|e| e.what == "MITX" && e.line == tx.1)
                .filter_map(|e| e.extra_u64("arrive"))
                .collect();
            let got: Vec<u64> = traces[rx.0]
                .events
                .iter()
                .filter(|e| (e.what == "MIRX" || e.what == "MIRXDROP") && e.line == rx.1)
                .map(|e| e.t_ns)
                .collect();
            for (due, at) in sent.iter().zip(got.iter()) {
                if *due >= from_ns {
                    errs.push((*at as f64 - *due as f64) / 1e6);
                }
            }
        }
    }
    if errs.is_empty() {
        return Delivery::default();
    }
    errs.sort_by(|a, b| a.total_cmp(b));
    let n = errs.len();
    Delivery {
        frames: n,
        mean_ms: errs.iter().sum::<f64>() / n as f64,
        p99_ms: errs[(n * 99 / 100).min(n - 1)],
        max_ms: errs[n - 1],
        min_ms: errs[0],
        over_1ms: errs.iter().filter(|e| **e > 1.0).count(),
    }
}

/// What the source IMP sent and got during an experiment, read from its trace: the
/// mechanisms behind a throughput (3050's frame bits, `crate::trace::Frame`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SourceCounts {
    /// Message packets sent (first sendings and again).
    pub packets_sent: u64,
    /// Of them, sent again (a packet number of a message already sent).
    pub packets_again: u64,
    /// REQALLs sent (5-word control packets with the REQALL bit).
    pub reqall: u64,
    /// Give-backs sent (GVB).
    pub gvb: u64,
    /// RFNMs received carrying an ALLOCATE.
    pub rfnm_with_all: u64,
    /// RFNMs received without one.
    pub rfnm_alone: u64,
    /// RFNMs of a give-back received (RFNM with the incomplete bit, 3050 p. 15: INCTRN "also
    /// set on RFNM for GVB").
    pub rfnm_of_gvb: u64,
    /// ALLOCATEs received alone.
    pub all_alone: u64,
    /// Null packets (acknowledgements only) sent.
    pub nulls_sent: u64,
    /// Message packets sent on each modem line (index 0 unused): which path they took.
    pub packets_by_line: [u64; 6],
}

/// The source IMP's counts between `span.0` and `span.1`. With `pair` = `Some((src, dst))`
/// (IMP numbers), only that pair's: message packets, REQALLs and give-backs from `src` to
/// `dst`, replies from `dst` to `src`; other traffic through the source IMP (a loaded
/// network's, or a neighbouring experiment's at the span's edges) is left out. `None` counts
/// every frame, the rule the SIMH runs' recorded counts were made with. Null packets: all.
pub fn source_counts(source: &Trace, span: (u64, u64), pair: Option<(u8, u8)>) -> SourceCounts {
    let ours = |from: u8, to: u8| pair.is_none_or(|p| p == (from, to));
    use crate::trace::Frame;
    use std::collections::HashSet;
    let mut c = SourceCounts::default();
    let mut seen: HashSet<(u8, u8)> = HashSet::new();
    for e in source
        .events
        .iter()
        .filter(|e| e.t_ns >= span.0 && e.t_ns <= span.1)
    {
        let f = Frame::decode(&e.head);
        match (e.what.as_str(), f) {
            ("MITX", Frame::Packet(h)) if ours(h.source_imp, h.dest_imp) => {
                if h.reqall_or_rfnm && e.words <= 5 {
                    c.reqall += 1;
                } else if h.gvb_or_alloc && e.words <= 5 {
                    c.gvb += 1;
                } else {
                    c.packets_sent += 1;
                    c.packets_by_line[usize::from(e.line.min(5))] += 1;
                    if !seen.insert((h.message, h.packet)) {
                        c.packets_again += 1;
                    }
                    // Message numbers are 8 bits: forget the half of the circle behind us.
                    let stale = h.message.wrapping_add(128);
                    seen.retain(|(m, _)| *m != stale);
                }
            }
            ("MITX", Frame::Null { .. }) => c.nulls_sent += 1,
            ("MIRX", Frame::Reply(h)) if ours(h.dest_imp, h.source_imp) => {
                match (h.reqall_or_rfnm, h.gvb_or_alloc) {
                    (true, _) if h.incomplete => c.rfnm_of_gvb += 1,
                    (true, true) => c.rfnm_with_all += 1,
                    (true, false) => c.rfnm_alone += 1,
                    (false, true) => c.all_alone += 1,
                    _ => {}
                }
            }
            _ => {}
        }
    }
    c
}

/// Single-packet messages as the destination IMP received them from `src`: in order, out of
/// order (a message number other than the next after the highest so far), or again.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DestCounts {
    /// Single-packet message packets received from the source.
    pub received: u64,
    /// Of them, arriving ahead of a lower-numbered message not yet received.
    pub out_of_order: u64,
    /// Of them, a message number already received.
    pub again: u64,
}

/// The destination's counts between `span.0` and `span.1`.
pub fn dest_counts(dest: &Trace, span: (u64, u64), src: u8) -> DestCounts {
    use crate::trace::Frame;
    use std::collections::HashSet;
    let mut c = DestCounts::default();
    // Message numbers are 8 bits and wrap: `next` is the lowest not yet received, `ahead` the
    // ones received beyond it.
    let mut next: Option<u8> = None;
    let mut ahead: HashSet<u8> = HashSet::new();
    for e in dest
        .events
        .iter()
        .filter(|e| e.t_ns >= span.0 && e.t_ns <= span.1 && e.what == "MIRX")
    {
        let Frame::Packet(h) = Frame::decode(&e.head) else {
            continue;
        };
        if !h.single || h.source_imp != src || e.words <= 5 {
            continue;
        }
        c.received += 1;
        let m = h.message;
        match next {
            None => next = Some(m.wrapping_add(1)),
            Some(n) if m == n => {
                let mut n = m.wrapping_add(1);
                while ahead.remove(&n) {
                    n = n.wrapping_add(1);
                }
                next = Some(n);
            }
            Some(n) if m.wrapping_sub(n) < 128 => {
                if ahead.insert(m) {
                    c.out_of_order += 1;
                } else {
                    c.again += 1;
                }
            }
            Some(_) => c.again += 1,
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::parse;

    fn single(t: u64, m: u8) -> String {
        // ACKH, HEAD (message m, single, transmit), HEAD1 (to IMP 14), HEAD2 (from IMP 11), HEAD3, text
        format!(
            "{t} MIRX 1 69 - : 000000 {:06o} 000016 000013 005000 000000\n",
            (u16::from(m) << 8) | 0o204
        )
    }

    #[test]
    fn a_message_overtaking_another_counts_out_of_order_once() {
        let text: String = [
            single(1, 5),
            single(2, 7),
            single(3, 6),
            single(4, 8),
            single(5, 8),
        ]
        .concat();
        let c = dest_counts(&parse(&text), (0, 10), 11);
        assert_eq!((c.received, c.out_of_order, c.again), (5, 1, 1));
    }

    #[test]
    fn message_numbers_wrap_without_counting() {
        let text: String = (0..600u64).map(|i| single(i, (i % 256) as u8)).collect();
        let c = dest_counts(&parse(&text), (0, 1000), 11);
        assert_eq!((c.received, c.out_of_order, c.again), (600, 0, 0));
    }
}
