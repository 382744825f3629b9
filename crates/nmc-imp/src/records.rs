//! The message records written to a CSV file as a run makes them (`nmc run` with
//! `record = ["messages"]`), instead of kept to the end: memory stays flat in simulated time.
//!
//! The file must hold what [`crate::run::run`] keeps, byte for byte: one row per answered
//! recorded message, in message order, each with the time its last packet reached the host.
//! The model finishes records in the order their RFNMs come back (`crate::observe::Observer`'s
//! `done`), and a message's last packet may reach its host after its RFNM. So the driver calls
//! `MessageFile::drain` every so often: it takes the finished records and writes, in message
//! order, those no earlier message can still come before and whose delivery is settled. Those
//! are the messages older than the oldest the model still holds, in its message table or on
//! the way to a host; only the records of the messages in flight wait in memory.
//!
//! The metrics `add_metrics` draws from every record are then drawn from the file
//! (`MessageFile::add_metrics`), to the bit, but for the best block of 150, which needs the
//! RFNM order and is kept as the records are taken.
//!
//! The end-to-end events (`record = ["e2e"]`), the occupancy samples (`["occupancy"]`) and
//! the packets' journeys (`["journeys"]`; their `visits.*` metrics are running figures,
//! `crate::observe::JourneyStats`) need no such care: the model makes them in the order the files hold them, and each write
//! passes on what was made since the last. The occupancy means are read back from the file
//! (`Written::add_metrics`).

use crate::analysis::{MetricRow, add_message_metrics_in_passes};
use crate::metric::ImpMetrics;
use crate::model::Subnet;
use crate::observe::JourneyRecord;
use crate::observe::{E2eEvent, MessageRecord, Occupancy};
use crate::packet::MsgId;
use nmc_records::records::{CsvSink, read_csv};
use nmc_records::stats::{BEST_BLOCK, BestBlock};
use nmc_sim::{Records, SimDuration};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The files a run writes as it goes ([`crate::run::Files`], for what the scenario records).
#[derive(Default)]
pub(crate) struct Written {
    /// `messages.csv` (`record = ["messages"]`), written in message order as records settle.
    pub(crate) messages: Option<MessageFile>,
    /// `e2e.csv`: single-packet messages' end-to-end events (`record = ["e2e"]`).
    pub(crate) e2e: Option<Records<E2eEvent>>,
    /// `occupancy.csv` (`record = ["occupancy"]`), and its path, from which the means are read
    /// back.
    pub(crate) occupancy: Option<(Records<Occupancy>, PathBuf)>,
    /// `journeys.csv`: each packet's journey (`record = ["journeys"]`).
    pub(crate) journeys: Option<Records<JourneyRecord>>,
}

impl Written {
    /// Whether anything is written as the run goes.
    pub(crate) fn is_on(&self) -> bool {
        self.messages.is_some()
            || self.e2e.is_some()
            || self.occupancy.is_some()
            || self.journeys.is_some()
    }

    /// Passes on what is settled (see the module's notes).
    pub(crate) fn drain(&mut self, m: &mut Subnet) {
        if let Some(f) = self.messages.as_mut() {
            f.drain(m);
        }
        if let (Some(rows), Some(log)) = (self.e2e.as_mut(), m.obs.e2e.as_mut()) {
            for e in log.drain(..) {
                rows.record(e);
            }
        }
        if let Some((rows, _)) = self.occupancy.as_mut() {
            for o in m.obs.occupancy.drain(..) {
                rows.record(o);
            }
        }
        if let Some(rows) = self.journeys.as_mut() {
            for j in m.obs.journeys.records.drain(..) {
                rows.record(j);
            }
        }
    }

    /// At the end of the run: writes what is left and closes the files. The first write error
    /// is one line naming the file.
    pub(crate) fn close(&mut self, m: &mut Subnet) -> Result<(), String> {
        self.drain(m);
        if let Some(f) = self.messages.as_mut() {
            f.close(m)?;
        }
        if let Some(rows) = self.e2e.as_mut() {
            rows.finish()
                .map_err(|e| format!("writing the end-to-end events: {e}"))?;
        }
        if let Some((rows, _)) = self.occupancy.as_mut() {
            rows.finish()
                .map_err(|e| format!("writing the occupancy samples: {e}"))?;
        }
        if let Some(rows) = self.journeys.as_mut() {
            rows.finish()
                .map_err(|e| format!("writing the journeys: {e}"))?;
        }
        Ok(())
    }

    /// The metrics `run` draws from the records it keeps, from the closed files: see
    /// [`MessageFile::add_metrics`]; and the occupancy means of `crate::analysis::add_metrics`,
    /// over the samples from `from`.
    pub(crate) fn add_metrics(
        &self,
        metrics: &mut ImpMetrics,
        from: SimDuration,
        measured: SimDuration,
    ) -> Result<(), String> {
        if let Some(f) = &self.messages {
            f.add_metrics(metrics, from, measured)?;
        }
        if let Some((_, path)) = &self.occupancy {
            // Sums of counts: exact in any order.
            let (mut n, mut sums) = (0u64, [-0.0f64; 6]);
            for o in occupancy_rows(path)? {
                let o = o?;
                if o.t_ns < from.as_nanos() {
                    continue;
                }
                n += 1;
                for (s, x) in sums.iter_mut().zip(o.counts()) {
                    *s += x as f64;
                }
            }
            if n > 0 {
                metrics.occupancy_means = Some(sums.map(|sum| sum / n as f64));
            }
        }
        Ok(())
    }
}

/// `occupancy.csv`'s columns, to read it back.
#[derive(serde::Deserialize)]
struct OccupancyRow {
    t_ns: u64,
    message_numbers: u32,
    plt_entries: u32,
    reassembly_buffers: u32,
    allocations_held: u32,
    source_buffers: u32,
    plt_reqalls: u32,
    plt_rfnms_waiting: u32,
    plt_messages: u32,
}

/// The samples of an `occupancy.csv` a run wrote, one at a time, in time order.
pub fn occupancy_rows(
    path: &Path,
) -> Result<impl Iterator<Item = Result<Occupancy, String>>, String> {
    let rows = read_csv::<OccupancyRow>(path).map_err(|e| e.to_string())?;
    Ok(rows.map(|r| {
        let r = r.map_err(|e| e.to_string())?;
        Ok(Occupancy {
            t_ns: r.t_ns,
            message_numbers: r.message_numbers,
            plt_entries: r.plt_entries,
            reassembly_buffers: r.reassembly_buffers,
            allocations_held: r.allocations_held,
            source_buffers: r.source_buffers,
            plt_reqalls: r.plt_reqalls,
            plt_rfnms_waiting: r.plt_rfnms_waiting,
            plt_messages: r.plt_messages,
        })
    }))
}

/// `messages.csv` being written, and what the metrics need that the file's order does not give.
pub(crate) struct MessageFile {
    path: PathBuf,
    rows: Records<MessageRecord>,
    /// Answered records waiting for an earlier message, or for their own delivery.
    pending: BTreeMap<MsgId, MessageRecord>,
    /// The RFNMs of the latest instant taken: (message, time, bits). They go to the best
    /// blocks in message order once time moves on, as the stable sort of `best_block_bps`
    /// leaves messages whose RFNMs came back at the same instant.
    tie: Vec<(MsgId, u64, u64)>,
    /// The best block over every RFNM, and over those from `measure_from` on: which one the
    /// metrics use is known only at the end (whether the run got that far).
    best_all: BestBlock,
    best_measured: BestBlock,
    measure_from_ns: u64,
    retransmissions: u64,
}

impl MessageFile {
    /// Creates the file (its folder too) for a run measuring from `measure_from`.
    pub(crate) fn create(path: &Path, measure_from: SimDuration) -> Result<Self, String> {
        let sink = CsvSink::create(path).map_err(|e| e.to_string())?;
        Ok(MessageFile {
            path: path.to_path_buf(),
            rows: Records::to_sink(sink),
            pending: BTreeMap::new(),
            tie: Vec::new(),
            best_all: BestBlock::new(BEST_BLOCK),
            best_measured: BestBlock::new(BEST_BLOCK),
            measure_from_ns: measure_from.as_nanos(),
            retransmissions: 0,
        })
    }

    /// Takes the records the model finished since the last call and writes those that are
    /// settled (see the module's notes).
    pub(crate) fn drain(&mut self, m: &mut Subnet) {
        self.take(m);
        let mut bound = m.next_msg;
        if let Some(&oldest) = m.obs.messages.keys().next() {
            bound = bound.min(oldest);
        }
        for i in &m.imps {
            for p in &i.ports {
                if let Some(o) = p.queue.iter().map(|o| o.msg).min() {
                    bound = bound.min(o);
                }
            }
        }
        while let Some(e) = self.pending.first_entry()
            && *e.key() < bound
        {
            let mut r = e.remove();
            r.delivered_ns = m.obs.delivered_at.remove(&r.id).map(|t| t.as_nanos());
            self.rows.record(r);
        }
        // Deliveries of messages never answered: no record will ask for them.
        m.obs.delivered_at = m.obs.delivered_at.split_off(&bound);
    }

    fn take(&mut self, m: &mut Subnet) {
        for r in m.obs.done.drain(..) {
            self.retransmissions += r.retransmissions as u64;
            if let Some(t) = r.rfnm_ns {
                if self.tie.first().is_some_and(|&(_, at, _)| at != t) {
                    self.feed_ties();
                }
                self.tie.push((r.id, t, r.bits));
            }
            self.pending.insert(r.id, r);
        }
    }

    fn feed_ties(&mut self) {
        self.tie.sort_by_key(|&(id, _, _)| id);
        for (_, t, bits) in self.tie.drain(..) {
            self.best_all.add(t, bits);
            if t >= self.measure_from_ns {
                self.best_measured.add(t, bits);
            }
        }
    }

    /// At the end of the run: writes every record left, in message order, and closes the file.
    /// A write error (the first) is one line naming the file.
    pub(crate) fn close(&mut self, m: &mut Subnet) -> Result<(), String> {
        self.take(m);
        self.feed_ties();
        for (id, mut r) in std::mem::take(&mut self.pending) {
            r.delivered_ns = m.obs.delivered_at.get(&id).map(|t| t.as_nanos());
            self.rows.record(r);
        }
        self.rows
            .finish()
            .map_err(|e| format!("writing the message records: {e}"))
    }

    /// The message metrics of `crate::analysis::add_metrics` and `messages.retransmissions`,
    /// as `run` computes them from the records it keeps, from the closed file: over the
    /// messages answered from `from` (the run's [`crate::run::Outcome::measure_from`]) in the
    /// `measured` time after it.
    pub(crate) fn add_metrics(
        &self,
        metrics: &mut ImpMetrics,
        from: SimDuration,
        measured: SimDuration,
    ) -> Result<(), String> {
        let best = if from.is_zero() {
            &self.best_all
        } else {
            &self.best_measured
        };
        let rows = || read_csv::<MetricRow>(&self.path);
        add_message_metrics_in_passes(
            &mut metrics.pair,
            rows,
            from.as_nanos(),
            measured,
            best.bps(),
        )
        .map_err(|e| e.to_string())?;
        metrics.messages.retransmissions = self.retransmissions as f64;
        Ok(())
    }
}
