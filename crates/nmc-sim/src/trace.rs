//! The optional event trace: one JSON object per line.
//!
//! Each line is `{"t_ns": <time>, <the record's own fields>}`; a model's records are a
//! `#[serde(tag = "event")]` enum, so every line names its event type. When tracing is off the
//! [`Trace`] is a no-op and costs one branch per call.
//!
//! A trace has a size limit ([`Trace::with_limit`]): a long run traces millions of events a
//! simulated minute, and a disk filled by mistake loses more than the trace. At the limit the
//! trace writes one last line, `{"t_ns":…,"event":"TraceLimit","limit_bytes":…}`, and stops;
//! [`Trace::stopped_at`] says when, so the run can say so. So that nobody waits hours to learn
//! that, a trace told when the run ends ([`Trace::warn_early`]) projects its size to the end
//! and reports once, as soon as the projection passes the limit ([`Projection`]).

use crate::time::SimTime;
use serde::Serialize;
use std::io::{self, Write};

/// Where trace lines go (or nowhere).
pub struct Trace {
    sink: Option<Box<dyn Write>>,
    error: Option<io::Error>,
    lines: u64,
    bytes: u64,
    limit: u64,
    stopped_at: Option<SimTime>,
    early: Option<Early>,
}

/// The early warning of [`Trace::warn_early`]: when the run ends, and whom to tell.
struct Early {
    end: SimTime,
    warn: Box<dyn FnMut(&Projection)>,
}

/// What the trace has written at `at`, and where that leads by the run's end: the argument of
/// the early warning ([`Trace::warn_early`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projection {
    /// Simulated time of the projection.
    pub at: SimTime,
    /// Bytes written by then.
    pub bytes: u64,
    /// The run's end.
    pub end: SimTime,
    /// `bytes` extrapolated at the rate so far (bytes per simulated second) to `end`.
    pub projected: u64,
    /// The size limit.
    pub limit: u64,
}

/// Growth is projected only after this fraction of the run (1/`EARLY_AFTER`): the first
/// instants, when a run sets itself up, are no guide to its rate.
pub const EARLY_AFTER: u64 = 100;

impl Default for Trace {
    fn default() -> Self {
        Self::off()
    }
}

impl Trace {
    /// A trace that records nothing.
    pub fn off() -> Self {
        Trace {
            sink: None,
            error: None,
            lines: 0,
            bytes: 0,
            limit: u64::MAX,
            stopped_at: None,
            early: None,
        }
    }

    /// A trace written to `sink`, without a size limit.
    pub fn to_writer(sink: impl Write + 'static) -> Self {
        Trace {
            sink: Some(Box::new(sink)),
            ..Trace::off()
        }
    }

    /// The same trace, stopping once it has written `bytes` bytes (the closing `TraceLimit`
    /// line comes on top).
    pub fn with_limit(mut self, bytes: u64) -> Self {
        self.limit = bytes;
        self
    }

    /// The same trace, calling `warn` once, early, if it is going to stop at its limit before
    /// the run ends at `end`: as soon as the bytes written so far, extrapolated at their rate
    /// per simulated second to `end`, pass the limit, looked at from 1/[`EARLY_AFTER`] of the
    /// run on; or, for a trace that fills faster than that, just before it stops. Called at most
    /// once, and never after the trace has stopped.
    pub fn warn_early(mut self, end: SimTime, warn: impl FnMut(&Projection) + 'static) -> Self {
        self.early = Some(Early {
            end,
            warn: Box::new(warn),
        });
        self
    }

    /// Calls the early warning if the trace projects past its limit (see [`Trace::warn_early`]).
    fn project(&mut self, now: SimTime, next: u64) {
        let Some(early) = self.early.as_mut() else {
            return;
        };
        let (t, end) = (now.as_nanos(), early.end.as_nanos());
        let bytes = self.bytes.saturating_add(next);
        let at_limit = bytes > self.limit;
        if !(at_limit || t > 0 && t >= end / EARLY_AFTER) {
            return;
        }
        // bytes × end / t, in u128 so that a long run cannot overflow.
        let projected = if t == 0 || t >= end {
            bytes
        } else {
            (u128::from(bytes) * u128::from(end) / u128::from(t)).min(u128::from(u64::MAX)) as u64
        };
        if projected > self.limit || at_limit {
            (early.warn)(&Projection {
                at: now,
                bytes,
                end: early.end,
                projected: projected.max(bytes),
                limit: self.limit,
            });
            self.early = None;
        }
    }

    /// When the size limit stopped the trace, if it did.
    pub fn stopped_at(&self) -> Option<SimTime> {
        self.stopped_at
    }

    /// Whether it has somewhere to write ([`Trace::to_writer`]); still true once the size limit
    /// or a write error has stopped it.
    #[inline]
    pub fn is_on(&self) -> bool {
        self.sink.is_some()
    }

    /// Lines written so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Writes one record at `now`. Records must serialize to JSON objects.
    // The check is inlined into the models' event handlers and the writing is not: with the
    // trace off (every benchmark, most runs) a record costs one predictable branch, and the
    // handler does not build the record at all.
    #[inline]
    pub fn emit<R: Serialize>(&mut self, now: SimTime, record: &R) {
        if self.sink.is_none() || self.error.is_some() || self.stopped_at.is_some() {
            return;
        }
        self.write(now, record);
    }

    #[inline(never)]
    fn write<R: Serialize>(&mut self, now: SimTime, record: &R) {
        let body = match serde_json::to_string(record) {
            Ok(b) => b,
            Err(e) => {
                self.error = Some(io::Error::other(e));
                return;
            }
        };
        let fields = body
            .strip_prefix('{')
            .and_then(|b| b.strip_suffix('}'))
            .unwrap_or("");
        let sep = if fields.is_empty() { "" } else { "," };
        let line = format!("{{\"t_ns\":{}{sep}{fields}}}\n", now.as_nanos());
        self.project(now, line.len() as u64);
        let Some(sink) = self.sink.as_mut() else {
            return;
        };
        let result = if self.bytes + line.len() as u64 > self.limit {
            self.stopped_at = Some(now);
            writeln!(
                sink,
                "{{\"t_ns\":{},\"event\":\"TraceLimit\",\"limit_bytes\":{}}}",
                now.as_nanos(),
                self.limit
            )
        } else {
            self.bytes += line.len() as u64;
            sink.write_all(line.as_bytes())
        };
        match result {
            Err(e) => self.error = Some(e),
            Ok(()) => self.lines += 1,
        }
    }

    /// Flushes and reports the first write error, if any.
    pub fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if let Some(s) = self.sink.as_mut() {
            s.flush()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[derive(Serialize)]
    #[serde(tag = "event")]
    enum Ev {
        Sent { packet: u64 },
        Idle,
    }

    #[test]
    fn lines_carry_time_and_tagged_fields() {
        let buf = Shared::default();
        let mut t = Trace::to_writer(buf.clone());
        t.emit(SimTime::from_nanos(5), &Ev::Sent { packet: 3 });
        t.emit(SimTime::from_nanos(6), &Ev::Idle);
        t.finish().unwrap();
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text,
            "{\"t_ns\":5,\"event\":\"Sent\",\"packet\":3}\n{\"t_ns\":6,\"event\":\"Idle\"}\n"
        );
    }

    #[test]
    fn a_trace_stops_at_its_limit_and_says_so() {
        let buf = Shared::default();
        // Each line is 38 bytes: room for two under a 100-byte limit.
        let mut t = Trace::to_writer(buf.clone()).with_limit(100);
        for (i, ns) in [10u64, 20, 30, 40].into_iter().enumerate() {
            t.emit(SimTime::from_nanos(ns), &Ev::Sent { packet: i as u64 });
        }
        t.finish().unwrap();
        assert_eq!(t.stopped_at(), Some(SimTime::from_nanos(30)));
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(
            lines[2],
            "{\"t_ns\":30,\"event\":\"TraceLimit\",\"limit_bytes\":100}"
        );
    }

    /// A trace warned at `end`: the projections it reported.
    fn warned(limit: u64, end: u64, times: &[u64]) -> (Vec<Projection>, Option<SimTime>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s2 = seen.clone();
        let mut t = Trace::to_writer(Shared::default())
            .with_limit(limit)
            .warn_early(SimTime::from_nanos(end), move |p| {
                s2.lock().unwrap().push(*p)
            });
        for (i, ns) in times.iter().enumerate() {
            t.emit(
                SimTime::from_nanos(*ns),
                &Ev::Sent {
                    packet: i as u64 % 10,
                },
            );
        }
        let v = seen.lock().unwrap().clone();
        (v, t.stopped_at())
    }

    #[test]
    fn a_trace_on_course_past_its_limit_warns_once_early() {
        // ~40-byte lines, one every 10 ns, to a run ending at 10 000 ns: ~40 000 bytes in all.
        let times: Vec<u64> = (1..=1000).map(|k| k * 10).collect();
        let (w, stopped) = warned(10_000, 10_000, &times);
        assert_eq!(w.len(), 1, "{w:?}");
        let stopped = stopped.expect("the trace stops");
        // Looked at from 1/100 of the run (100 ns): the ten lines so far, × 100, well before
        // the stop at about 2 500 ns.
        let first_ten: u64 = (1..=10u64)
            .map(|k| {
                format!(
                    "{{\"t_ns\":{},\"event\":\"Sent\",\"packet\":{}}}\n",
                    k * 10,
                    (k - 1) % 10
                )
                .len() as u64
            })
            .sum();
        assert_eq!(w[0].at, SimTime::from_nanos(100));
        assert_eq!(w[0].bytes, first_ten);
        assert_eq!(w[0].projected, first_ten * 100);
        assert_eq!(w[0].limit, 10_000);
        assert!(w[0].at < stopped, "{:?} vs {stopped:?}", w[0].at);
        // A limit the run stays under: no warning, no stop.
        let (w, stopped) = warned(40_000, 10_000, &times);
        assert!(w.is_empty() && stopped.is_none(), "{w:?}");
        // A trace that fills before 1/100 of the run is warned of just before it stops.
        let (w, stopped) = warned(100, 1_000_000, &times);
        assert_eq!(w.len(), 1);
        assert_eq!(Some(w[0].at), stopped);
        // At time zero there is no rate to project from: the warning waits for the limit.
        let (w, _) = warned(100, 10_000, &[0, 0, 0, 0]);
        assert_eq!(w.len(), 1, "at the limit, even at time zero");
    }
}
