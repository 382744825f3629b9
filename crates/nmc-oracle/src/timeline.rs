//! One message's life hop by hop, from every IMP's trace: each frame leaving and arriving at
//! each IMP (its packets, the REQALL and ALLOCATE, the RFNM, the null packets that carry the
//! IMP-to-IMP acknowledgements), and the host interface at the source, on the shared cycle
//! clock. Routing messages in the window are counted, not listed.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::trace::{Frame, parse};

/// One row of a timeline.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    /// Cycle-clock time, ms since the window's start.
    pub t_ms: f64,
    /// IMP number.
    pub imp: u8,
    /// `send` (a modem frame starts), `arrive` (its last bit in), `host-in` (words from the
    /// host taken), `host-out` (words to the host start).
    pub event: String,
    /// Modem or host line.
    pub line: u8,
    /// What the frame is.
    pub frame: String,
    /// Words.
    pub words: u32,
    /// For `send`: when its last bit arrives at the next IMP, ms.
    pub arrive_ms: Option<f64>,
    /// Acknowledgement bits the frame carries (ACKH low byte, octal).
    pub ack_bits: String,
    /// Logical channel (ACKH).
    pub channel: Option<u8>,
}

/// The rows of every trace in `dir` between `from_ns` and `to_ns` that belong to traffic
/// between `src` and `dst` (packets, replies, null packets on the path, host transfers).
pub fn timeline(
    dir: &Path,
    imps: &[u8],
    src: u8,
    dst: u8,
    from_ns: u64,
    to_ns: u64,
) -> Result<(Vec<Row>, usize)> {
    let lo = src.min(dst);
    let hi = src.max(dst);
    let mut rows = Vec::new();
    let mut routing = 0;
    for &imp in imps {
        let p = dir.join(format!("imp{imp}.trace"));
        let text =
            fs::read_to_string(&p).with_context(|| format!("cannot read {}", p.display()))?;
        for e in parse(&text).events {
            if e.t_ns < from_ns || e.t_ns > to_ns {
                continue;
            }
            let t_ms = (e.t_ns - from_ns) as f64 / 1e6;
            match e.what.as_str() {
                "MITX" | "MIRX" => {
                    let f = Frame::decode(&e.head);
                    let (keep, ack, chan) = match &f {
                        Frame::Packet(h) | Frame::Reply(h) => (
                            (h.source_imp == src && h.dest_imp == dst)
                                || (h.source_imp == dst && h.dest_imp == src),
                            Some(e.head[0] & 0o377),
                            Some(h.channel),
                        ),
                        Frame::Null { .. } => {
                            ((lo..=hi).contains(&imp), Some(e.head[0] & 0o377), None)
                        }
                        Frame::Routing { .. } => {
                            routing += 1;
                            (false, None, None)
                        }
                        Frame::Short => (false, None, None),
                    };
                    if keep {
                        rows.push(Row {
                            t_ms,
                            imp,
                            event: if e.what == "MITX" { "send" } else { "arrive" }.into(),
                            line: e.line,
                            frame: f.label(),
                            words: e.words,
                            arrive_ms: e
                                .extra_u64("arrive")
                                .map(|a| (a.saturating_sub(from_ns)) as f64 / 1e6),
                            ack_bits: ack.map(|a| format!("{a:03o}")).unwrap_or_default(),
                            channel: chan,
                        });
                    }
                }
                "HIRX" | "HITX" if imp == src => rows.push(Row {
                    t_ms,
                    imp,
                    event: if e.what == "HIRX" {
                        "host-in"
                    } else {
                        "host-out"
                    }
                    .into(),
                    line: e.line,
                    frame: match (e.what.as_str(), e.head.len() >= 2) {
                        ("HITX", true) => {
                            format!("{}", crate::leader::Leader::decode([e.head[0], e.head[1]]))
                        }
                        _ => e.extra.clone(),
                    },
                    words: e.words,
                    arrive_ms: None,
                    ack_bits: String::new(),
                    channel: None,
                }),
                _ => {}
            }
        }
    }
    if rows.is_empty() {
        bail!("no frames between IMP {src} and IMP {dst} in that window");
    }
    rows.sort_by(|a, b| a.t_ms.total_cmp(&b.t_ms).then(a.imp.cmp(&b.imp)));
    Ok((rows, routing))
}
