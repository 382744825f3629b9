//! The lockup watch: reassembly lockup (RFC 626; RFC 632 p. 4) is a state in which nothing moves
//! while messages wait. The watch declares one when no message has reached a host and no RFNM
//! has come back for `lockup_window` while messages are outstanding, and records what every IMP
//! holds at that moment, so that a run ends with an explanation instead of idling to its end.

use super::{Ev, Subnet, Tick, Tr};
use nmc_sim::{EventQueue, SimTime};
use serde::Serialize;
use std::fmt::Write as _;

/// What the subnet held when the lockup was declared.
#[derive(Clone, Debug, Serialize)]
pub struct LockupReport {
    /// When the lockup was declared, ns since the start.
    pub detected_ns: u64,
    /// The last delivery or RFNM.
    pub last_progress_ns: u64,
    /// Messages sent and not answered by a RFNM.
    pub outstanding: usize,
    /// IMPs holding reassembly space or owing ALLOCATEs.
    pub held: Vec<HeldAt>,
}

/// One destination IMP's reassembly state.
#[derive(Clone, Debug, Serialize)]
pub struct HeldAt {
    /// The IMP's name.
    pub imp: String,
    /// Reassembly buffers reserved or filled.
    pub reassembly_used: u32,
    /// Reassembly buffers at most.
    pub reassembly_max: u32,
    /// Complete messages stored out of order, per source IMP: their numbers.
    pub stored_out_of_order: Vec<(String, Vec<u64>)>,
    /// Messages whose turn it is (every predecessor done) refused for want of a buffer, per
    /// source IMP: the message every later one from that source waits for.
    pub in_order_refused: Vec<(String, u64)>,
    /// Other refused messages owed an ALLOCATE.
    pub other_requests: usize,
    /// The IMP's next timer that can let something go ([`crate::imp::Imp::next_release_at`]: a
    /// RFNM's wait for buffers, an unused allocation, a task in hand, a block's disuse; not a
    /// line's retransmission, which frees nothing), if any: with none, nothing the IMP holds
    /// will be let go by time alone.
    pub next_timer_ns: Option<u64>,
}

impl LockupReport {
    /// The report in a few lines for people.
    pub fn explain(&self) -> String {
        let mut s = format!(
            "lockup at {:.3} s: nothing delivered and no RFNM back since {:.3} s, with {} messages outstanding.",
            self.detected_ns as f64 / 1e9,
            self.last_progress_ns as f64 / 1e9,
            self.outstanding
        );
        for h in &self.held {
            let stored: usize = h.stored_out_of_order.iter().map(|(_, v)| v.len()).sum();
            let _ = write!(
                s,
                " {}: {} of {} reassembly buffers in use, {} of them by messages stored out of order from {} sources; \
                 {} in-order messages refused for want of a buffer ({}); {} other requests.",
                h.imp,
                h.reassembly_used,
                h.reassembly_max,
                stored,
                h.stored_out_of_order.len(),
                h.in_order_refused.len(),
                h.in_order_refused
                    .iter()
                    .map(|(src, n)| format!("{src} #{n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                h.other_requests
            );
        }
        if !self.held.is_empty() && self.held.iter().all(|h| h.next_timer_ns.is_none()) {
            s.push_str(
                " No timer is armed at these IMPs: nothing they hold will be let go by time alone.",
            );
        }
        s
    }
}

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
