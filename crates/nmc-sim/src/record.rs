//! Per-event records (one row per packet, per message, …): kept in memory, or handed to a sink
//! as each is made.
//!
//! A long run recording every packet makes millions of rows; kept until the end they grow
//! memory with simulated time. A model holds a [`Records`] instead of a `Vec`: off, kept (for
//! callers that read the rows afterwards: tests, experiments, the Python binding), or a
//! [`RecordSink`] that writes each row as it comes (`nmc run`'s CSV files, `nmc-report`'s
//! `records::CsvSink`), so memory stays flat. As with the [`crate::Trace`], a write error
//! never stops the model: the first one is kept, later rows are dropped, and
//! [`Records::finish`] reports it for the run to end with a one-line error.

use std::io;

/// Where rows go, one at a time, in the order they are made.
pub trait RecordSink<T> {
    /// Takes one row.
    fn record(&mut self, row: &T) -> io::Result<()>;
    /// Writes out whatever is buffered; called once, after the last row.
    fn finish(&mut self) -> io::Result<()>;
}

/// A `Vec` is the in-memory sink: it keeps a copy of every row.
impl<T: Clone> RecordSink<T> for Vec<T> {
    fn record(&mut self, row: &T) -> io::Result<()> {
        self.push(row.clone());
        Ok(())
    }
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A model's per-event records: not recorded, kept in memory, or passed on to a sink.
#[derive(Default)]
pub enum Records<T> {
    /// Not recorded: rows are dropped.
    #[default]
    Off,
    /// Every row kept in memory, in the order made.
    Kept(Vec<T>),
    /// Each row passed on to a sink as it is made.
    Sink {
        /// Where the rows go.
        sink: Box<dyn RecordSink<T>>,
        /// The first write error; no row is passed on after it.
        error: Option<io::Error>,
    },
}

impl<T> Records<T> {
    /// Kept in memory when `on`, not recorded otherwise.
    pub fn kept_if(on: bool) -> Self {
        if on {
            Records::Kept(Vec::new())
        } else {
            Records::Off
        }
    }

    /// Every row goes to `sink` as it is made.
    pub fn to_sink(sink: impl RecordSink<T> + 'static) -> Self {
        Records::Sink {
            sink: Box::new(sink),
            error: None,
        }
    }

    /// Whether rows are recorded at all (a model may skip building them when not).
    pub fn is_on(&self) -> bool {
        !matches!(self, Records::Off)
    }

    /// Records one row (nothing when off, or after a write error).
    pub fn record(&mut self, row: T) {
        match self {
            Records::Off => {}
            Records::Kept(v) => v.push(row),
            Records::Sink { sink, error } => {
                if error.is_none()
                    && let Err(e) = sink.record(&row)
                {
                    *error = Some(e);
                }
            }
        }
    }

    /// Flushes a sink and reports the first write error, if any.
    pub fn finish(&mut self) -> io::Result<()> {
        match self {
            Records::Sink { sink, error } => match error.take() {
                Some(e) => Err(e),
                None => sink.finish(),
            },
            _ => Ok(()),
        }
    }

    /// The rows kept in memory (empty when off or passed to a sink).
    pub fn take_kept(&mut self) -> Vec<T> {
        match self {
            Records::Kept(v) => std::mem::take(v),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Takes `ok` rows, then fails every write.
    struct Failing {
        ok: usize,
        taken: std::rc::Rc<std::cell::Cell<usize>>,
    }
    impl RecordSink<u32> for Failing {
        fn record(&mut self, _: &u32) -> io::Result<()> {
            if self.taken.get() == self.ok {
                return Err(io::Error::other("disk full"));
            }
            self.taken.set(self.taken.get() + 1);
            Ok(())
        }
        fn finish(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn kept_rows_come_back_in_order() {
        let mut r = Records::kept_if(true);
        for x in [3, 1, 2] {
            r.record(x);
        }
        assert!(r.finish().is_ok());
        assert_eq!(r.take_kept(), vec![3, 1, 2]);
        let mut off = Records::<u32>::kept_if(false);
        off.record(1);
        assert!(!off.is_on());
        assert!(off.take_kept().is_empty());
    }

    #[test]
    fn a_write_error_stops_the_sink_and_is_reported_once() {
        let taken = std::rc::Rc::new(std::cell::Cell::new(0));
        let mut r = Records::to_sink(Failing {
            ok: 2,
            taken: taken.clone(),
        });
        for x in 0..10 {
            r.record(x);
        }
        assert_eq!(taken.get(), 2);
        assert_eq!(r.finish().unwrap_err().to_string(), "disk full");
        assert!(r.finish().is_ok(), "the error is reported once");
    }

    #[test]
    fn a_vec_is_a_sink() {
        let mut v: Vec<u32> = Vec::new();
        v.record(&7).unwrap();
        v.finish().unwrap();
        assert_eq!(v, vec![7]);
    }
}
