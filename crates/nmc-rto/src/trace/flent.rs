//! flent data files (`*.flent.gz`: gzip-compressed JSON, file format version 1–3).
//!
//! From flent's `resultset.py`: the object has `metadata`, `version`, `x_values` (seconds from
//! the test start), `results` (series name → values aligned with `x_values`, `null` where
//! missing) and, since version 2, `raw_values` (series name → list of `{"t": Unix seconds,
//! "val": value, "seq": n, ...}`). Ping series are named like `Ping (ms) ICMP` and hold ms.
//!
//! Mapping, using `raw_values` when the series has them:
//! - each raw point is a reply: delay = `val` ms; `t` is taken as the reply's arrival time
//!   (`ping -D` stamps the line when the reply is printed), so send = `t − val`;
//! - when the points carry `seq`, the missing sequence numbers between the first and last are
//!   probes without reply (as flent's own `num_missing` counts them); their send time is
//!   interpolated linearly in `seq` between the neighbouring replies;
//! - without raw values, the aggregated `results` series is used: send = `x_value`, `null` =
//!   no reply (flent's interpolated grid, a coarser picture).
//!
//! Series selection: the one named, else the first series (in name order) whose name starts
//! with `Ping`. Lengths are not recorded by flent.

use serde_json::Value;

use super::{Probe, Trace, TraceError};
use crate::time::Nanos;

/// Parses flent JSON text (already decompressed).
pub fn parse(file: &str, text: &str, series: Option<&str>) -> Result<Trace, TraceError> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| TraceError::new(file, Some(e.line() as u64), format!("bad JSON: {e}")))?;
    let results = v.get("results").and_then(Value::as_object);
    let raw = v.get("raw_values").and_then(Value::as_object);
    if results.is_none() && raw.is_none() {
        return Err(TraceError::new(
            file,
            None,
            "no `results` or `raw_values` object: not a flent data file",
        ));
    }
    let mut names: Vec<&String> = raw
        .into_iter()
        .flat_map(|m| m.keys())
        .chain(results.into_iter().flat_map(|m| m.keys()))
        .collect();
    names.sort();
    names.dedup();
    let name: String = match series {
        Some(s) => names
            .iter()
            .find(|n| n.as_str() == s)
            .map(|n| n.to_string())
            .ok_or_else(|| {
                TraceError::new(
                    file,
                    None,
                    format!(
                        "no series `{s}` (series present: {})",
                        names
                            .iter()
                            .map(|n| n.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })?,
        None => names
            .iter()
            .find(|n| n.starts_with("Ping"))
            .map(|n| n.to_string())
            .ok_or_else(|| {
                TraceError::new(
                    file,
                    None,
                    format!(
                        "no ping series (series present: {}); name one explicitly",
                        names
                            .iter()
                            .map(|n| n.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })?,
    };
    let raw_points = raw
        .and_then(|m| m.get(&name))
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty());
    let probes = match raw_points {
        Some(points) => from_raw(file, &name, points)?,
        None => from_results(file, &name, &v)?,
    };
    Ok(Trace {
        name: String::new(),
        probes,
    })
}

fn ms_to_nanos(ms: f64) -> Nanos {
    Nanos::from_secs_f64(ms / 1e3)
}

fn from_raw(file: &str, name: &str, points: &[Value]) -> Result<Vec<Probe>, TraceError> {
    if points.len() > super::MAX_PROBES {
        return Err(super::too_many_probes(file, super::MAX_PROBES));
    }
    // (seq, send_s, delay_ms)
    let mut got: Vec<(Option<u64>, f64, f64)> = Vec::with_capacity(points.len());
    for (i, p) in points.iter().enumerate() {
        let err =
            |msg: &str| TraceError::new(file, None, format!("raw_values[\"{name}\"][{i}]: {msg}"));
        let t = p
            .get("t")
            .and_then(Value::as_f64)
            .ok_or_else(|| err("missing or bad `t` (expected Unix seconds)"))?;
        let Some(val) = p.get("val") else {
            continue; // points without a value carry other data (flent skips them too)
        };
        let val = val
            .as_f64()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| err("bad `val` (expected a non-negative number of ms)"))?;
        let seq = p.get("seq").and_then(Value::as_u64);
        if !t.is_finite() || t < 0.0 {
            return Err(err("bad `t` (expected non-negative Unix seconds)"));
        }
        got.push((seq, t - val / 1e3, val));
    }
    let with_seq = got.iter().all(|g| g.0.is_some()) && !got.is_empty();
    if !with_seq {
        got.sort_by(|a, b| a.1.total_cmp(&b.1));
        return Ok(got
            .into_iter()
            .map(|(seq, send, val)| Probe {
                send: Nanos::from_secs_f64(send),
                length: None,
                delay: Some(ms_to_nanos(val)),
                seq,
                path: None,
            })
            .collect());
    }
    got.sort_by_key(|g| g.0);
    got.dedup_by_key(|g| g.0);
    let mut probes = Vec::new();
    for w in 0..got.len() {
        let (seq, send, val) = got[w];
        let seq = seq.unwrap_or_default();
        probes.push(Probe {
            send: Nanos::from_secs_f64(send),
            length: None,
            delay: Some(ms_to_nanos(val)),
            seq: Some(seq),
            path: None,
        });
        if let Some(&(Some(next_seq), next_send, _)) = got.get(w + 1) {
            let gap = next_seq - seq;
            if gap > 100_000 {
                return Err(TraceError::new(
                    file,
                    None,
                    format!(
                        "raw_values[\"{name}\"]: implausible gap of {gap} sequence numbers after seq {seq}"
                    ),
                ));
            }
            if probes.len() as u64 + gap > super::MAX_PROBES as u64 {
                return Err(super::too_many_probes(file, super::MAX_PROBES));
            }
            for k in 1..gap {
                let frac = k as f64 / gap as f64;
                probes.push(Probe {
                    send: Nanos::from_secs_f64(send + frac * (next_send - send)),
                    length: None,
                    delay: None,
                    seq: Some(seq + k),
                    path: None,
                });
            }
        }
    }
    Ok(probes)
}

fn from_results(file: &str, name: &str, v: &Value) -> Result<Vec<Probe>, TraceError> {
    let xs = v
        .get("x_values")
        .and_then(Value::as_array)
        .ok_or_else(|| TraceError::new(file, None, "no `x_values` array"))?;
    let ys = v
        .pointer("/results")
        .and_then(|r| r.get(name))
        .and_then(Value::as_array)
        .ok_or_else(|| TraceError::new(file, None, format!("series `{name}` has no values")))?;
    if xs.len() > super::MAX_PROBES {
        return Err(super::too_many_probes(file, super::MAX_PROBES));
    }
    if xs.len() != ys.len() {
        return Err(TraceError::new(
            file,
            None,
            format!(
                "series `{name}` has {} values for {} x_values",
                ys.len(),
                xs.len()
            ),
        ));
    }
    xs.iter()
        .zip(ys)
        .enumerate()
        .map(|(i, (x, y))| {
            let x = x
                .as_f64()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| TraceError::new(file, None, format!("x_values[{i}]: expected non-negative seconds")))?;
            let delay = match y {
                Value::Null => None,
                y => Some(ms_to_nanos(y.as_f64().filter(|d| d.is_finite() && *d >= 0.0).ok_or_else(
                    || TraceError::new(file, None, format!("results[\"{name}\"][{i}]: expected a non-negative number or null")),
                )?)),
            };
            Ok(Probe {
                send: Nanos::from_secs_f64(x),
                length: None,
                delay,
                seq: Some(i as u64),
                path: None,
            })
        })
        .collect()
}
