//! What the lockup watch reports (RFC 626; RFC 632 p. 4): when nothing moved, with how many
//! messages outstanding, and what each destination IMP held ([`LockupReport`]). The watch
//! itself reads the subnet (`model/lockup.rs`).

use serde::Serialize;
use std::fmt::Write as _;

/// What the subnet held when the lockup was declared.
#[derive(Clone, Debug, Serialize)]
pub struct LockupReport {
    /// When the lockup was declared, ns since the start.
    pub detected_ns: u64,
    /// The last delivery or RFNM.
    pub(crate) last_progress_ns: u64,
    /// Messages sent and not answered by a RFNM.
    pub(crate) outstanding: usize,
    /// IMPs holding reassembly space or owing ALLOCATEs.
    pub(crate) held: Vec<HeldAt>,
}

/// One destination IMP's reassembly state.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct HeldAt {
    /// The IMP's name.
    pub(crate) imp: String,
    /// Reassembly buffers reserved or filled.
    pub(crate) reassembly_used: u32,
    /// Reassembly buffers at most.
    pub(crate) reassembly_max: u32,
    /// Complete messages stored out of order, per source IMP: their numbers.
    pub(crate) stored_out_of_order: Vec<(String, Vec<u64>)>,
    /// Messages whose turn it is (every predecessor done) refused for want of a buffer, per
    /// source IMP: the message every later one from that source waits for.
    pub(crate) in_order_refused: Vec<(String, u64)>,
    /// Other refused messages owed an ALLOCATE.
    pub(crate) other_requests: usize,
    /// The IMP's next timer that can let something go ([`crate::imp::Imp::next_release_at`]: a
    /// RFNM's wait for buffers, an unused allocation, a block's disuse; not a line's
    /// retransmission, which frees nothing, nor the end of a task in hand), if any: with none,
    /// nothing the IMP holds will be let go by time alone.
    pub(crate) next_timer_ns: Option<u64>,
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
