//! irtt JSON output (`irtt client -o FILE.json`, JSON format 1; `.json.gz` is read too).
//!
//! From irtt-client(1), OUTPUT: the top-level `round_trips` array has one object per request:
//! `seqno`; `lost` — `false`, `true`, `true_down` or `true_up` (irtt 0.9 documents a boolean; some
//! versions write the same words as strings, both are accepted); `timestamps.client.send.wall`
//! (Unix ns) or `.monotonic` (ns from an arbitrary origin); `delay.rtt` (ns, present when not
//! lost). The packet length is `config.params.length` and the peer `config.remote_address`.
//!
//! Mapping: send time = client send `wall` if every request has it, else `monotonic` for all
//! (one clock for the file); delay = `delay.rtt`
//! unless lost; length and path from `config`. irtt sends on a fixed interval with several
//! requests in flight, unlike RFC 889's one volley at a time; the replay in [`crate::eval`]
//! treats each round trip on its own, which is what the RFC 889 tables do too.
//!
//! JSON carries no line numbers after parsing, so structural errors name the element
//! (`round_trips[17]`); syntax errors carry serde_json's line and column.

use serde_json::Value;

use super::{Probe, Trace, TraceError};
use crate::time::Nanos;

/// Parses irtt JSON text.
pub fn parse(file: &str, text: &str) -> Result<Trace, TraceError> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| TraceError::new(file, Some(e.line() as u64), format!("bad JSON: {e}")))?;
    let rts = v
        .get("round_trips")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            TraceError::new(file, None, "no `round_trips` array: not irtt JSON output")
        })?;
    if rts.len() > super::MAX_PROBES {
        return Err(super::too_many_probes(file, super::MAX_PROBES));
    }
    let params = v.pointer("/config/params");
    let length = params
        .and_then(|p| p.get("length"))
        .and_then(Value::as_u64)
        .and_then(|l| u32::try_from(l).ok());
    let path = v
        .pointer("/config/remote_address")
        .and_then(Value::as_str)
        .map(str::to_string);

    // One clock for the whole file (issue 33): irtt leaves `wall` out of some requests (lost
    // ones), and taking `wall` where it is and `monotonic` where it is not put those requests
    // at a time decades away from their neighbours. `wall` when every request has it, else
    // `monotonic` for all.
    let has = |rt: &Value, clock: &str| {
        rt.pointer(&format!("/timestamps/client/send/{clock}"))
            .and_then(Value::as_u64)
            .is_some()
    };
    let clock = if rts.iter().all(|rt| has(rt, "wall")) {
        "wall"
    } else {
        "monotonic"
    };
    let mut probes = Vec::with_capacity(rts.len());
    for (i, rt) in rts.iter().enumerate() {
        let err = |msg: &str| TraceError::new(file, None, format!("round_trips[{i}]: {msg}"));
        let seq = rt
            .get("seqno")
            .and_then(Value::as_u64)
            .ok_or_else(|| err("missing or bad `seqno` (expected a non-negative integer)"))?;
        let lost = match rt.get("lost") {
            Some(Value::Bool(b)) => *b,
            Some(Value::String(s)) => match s.as_str() {
                "false" => false,
                "true" | "true_down" | "true_up" => true,
                _ => {
                    return Err(err(&format!(
                        "bad `lost` value `{s}` (expected false, true, true_down or true_up)"
                    )));
                }
            },
            _ => {
                return Err(err(
                    "missing or bad `lost` (expected false, true, true_down or true_up)",
                ));
            }
        };
        let send = rt
            .pointer(&format!("/timestamps/client/send/{clock}"))
            .and_then(Value::as_u64)
            .ok_or_else(|| {
                err(&format!(
                    "missing `timestamps.client.send.{clock}` (ns): every request needs `wall`, or \
                     else every request needs `monotonic`"
                ))
            })?;
        let delay = if lost {
            None
        } else {
            let rtt = rt
                .pointer("/delay/rtt")
                .ok_or_else(|| err("not lost but has no `delay.rtt`"))?;
            let ns = rtt
                .as_i64()
                .ok_or_else(|| err("bad `delay.rtt` (expected integer nanoseconds)"))?;
            if ns < 0 {
                return Err(err(&format!("negative `delay.rtt` {ns}")));
            }
            Some(Nanos(ns as u64))
        };
        probes.push(Probe {
            send: Nanos(send),
            length,
            delay,
            seq: Some(seq),
            path: path.clone(),
        });
    }
    Ok(Trace {
        name: String::new(),
        probes,
    })
}
