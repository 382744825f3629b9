//! The optional event trace: one JSON object per line.
//!
//! Each line is `{"t_ns": <time>, <the record's own fields>}`; a model's records are a
//! `#[serde(tag = "event")]` enum, so every line names its event type. When tracing is off the
//! [`Trace`] is a no-op and costs one branch per call.
//!
//! A trace has a size limit ([`Trace::with_limit`]): a long run traces millions of events a
//! simulated minute, and a disk filled by mistake loses more than the trace. At the limit the
//! trace writes one last line, `{"t_ns":…,"event":"TraceLimit","limit_bytes":…}`, and stops;
//! [`Trace::stopped_at`] says when, so the run can say so.

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
}

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

    /// When the size limit stopped the trace, if it did.
    pub fn stopped_at(&self) -> Option<SimTime> {
        self.stopped_at
    }

    pub fn is_on(&self) -> bool {
        self.sink.is_some()
    }

    /// Lines written so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Writes one record at `now`. Records must serialize to JSON objects.
    pub fn emit<R: Serialize>(&mut self, now: SimTime, record: &R) {
        let Some(sink) = self.sink.as_mut() else {
            return;
        };
        if self.error.is_some() || self.stopped_at.is_some() {
            return;
        }
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
}
