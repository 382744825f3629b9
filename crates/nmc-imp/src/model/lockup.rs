//! The lockup watch: reassembly lockup (RFC 626; RFC 632 p. 4) is a state in which nothing moves
//! while messages wait. The watch declares one when no message has reached a host and no RFNM
//! has come back for `lockup_window` while messages are outstanding, and records what every IMP
//! holds at that moment, so that a run ends with an explanation instead of idling to its end.

use super::{Ev, LockupReport, Subnet, Tick, Tr};
use nmc_sim::{EventQueue, SimTime};

impl Subnet {
    /// Deliveries to hosts plus RFNMs back: what counts as progress.
    fn progress(&self) -> usize {
        (self.obs.tally.delivered + self.obs.tally.answered) as usize
    }

    pub(super) fn watchdog(&mut self, now: SimTime, q: &mut EventQueue<Ev>) {
        let p = self.progress();
        if p != self.obs.progress_mark.0 || self.obs.messages.is_empty() {
            self.obs.progress_mark = (p, now);
        } else if now.since(self.obs.progress_mark.1) >= self.obs.lockup_window {
            let report = self.lockup_report(now);
            self.trace.emit(
                now,
                &Tr::Lockup {
                    pending: report.outstanding,
                    since_ns: report.last_progress_ns,
                },
            );
            self.obs.lockup = Some(report);
            return; // the driver stops the run
        }
        q.schedule(
            now + self.obs.lockup_window / 4,
            Ev::Observe(Tick::Watchdog),
        );
    }

    /// The report of a lockup declared at `now`: messages outstanding, and what each IMP holding
    /// reassembly space or owing an ALLOCATE holds.
    pub(crate) fn lockup_report(&self, now: SimTime) -> LockupReport {
        // The source IMP's name of a stream.
        let name = |s: u64| self.imps[self.stream_src(s) as usize].name.clone();
        let held = self
            .imps
            .iter()
            .filter_map(|i| i.snapshot().lockup_held(name))
            .collect();
        LockupReport {
            detected_ns: now.as_nanos(),
            last_progress_ns: self.obs.progress_mark.1.as_nanos(),
            outstanding: self.obs.messages.len(),
            held,
        }
    }
}
