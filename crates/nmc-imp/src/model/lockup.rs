//! The lockup watch: reassembly lockup (RFC 626; RFC 632 p. 4) is a state in which nothing moves
//! while messages wait. The watch declares one when no message has reached a host and no RFNM
//! has come back for `lockup_window` while messages are outstanding, and records what every IMP
//! holds at that moment, so that a run ends with an explanation instead of idling to its end.

use super::{Ev, HeldAt, LockupReport, Subnet, Tick, Tr};
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
    pub fn lockup_report(&self, now: SimTime) -> LockupReport {
        // The source IMP's name of a stream.
        let name = |s: u64| self.imps[self.stream_src(s) as usize].name.clone();
        let held = self
            .imps
            .iter()
            .filter(|i| i.reasm_used > 0 || !i.requests.is_empty())
            .map(|i| {
                let mut stored: Vec<(String, Vec<u64>)> = Vec::new();
                for (s, n) in i.delivery.out_of_order() {
                    match stored.last_mut() {
                        Some((src, v)) if *src == name(s) => v.push(n),
                        _ => stored.push((name(s), vec![n])),
                    }
                }
                let in_order: Vec<(String, u64)> = i
                    .requests
                    .keys()
                    .filter(|(s, n)| *n == i.delivery.expected(*s))
                    .map(|(s, n)| (name(*s), *n))
                    .collect();
                HeldAt {
                    imp: i.name.clone(),
                    reassembly_used: i.reasm_used,
                    reassembly_max: i.reasm_max,
                    other_requests: i.requests.len() - in_order.len(),
                    stored_out_of_order: stored,
                    in_order_refused: in_order,
                    next_timer_ns: i.next_release_at().map(|t| t.as_nanos()),
                }
            })
            .collect();
        LockupReport {
            detected_ns: now.as_nanos(),
            last_progress_ns: self.obs.progress_mark.1.as_nanos(),
            outstanding: self.obs.messages.len(),
            held,
        }
    }
}
