//! What the receiver of a UDP stream sees of its order and timing (issue 58 §5), as iperf3 and
//! irtt users read it: the interarrival jitter of RFC 3550 §6.4.1 and A.8, and the buffers that
//! arrived after a later one (out of order).
//!
//! RFC 3550's estimator, for each buffer in order of arrival (not of sequence): the transit
//! `R − S` (arrival time on the receiver's clock minus send time on the sender's, so the
//! clocks' offset cancels in the difference), `D = transit − previous transit`, and
//! `J ← J + (|D| − J) / 16`. It needs the send time in each buffer ([`super::wire::stamp`]); a
//! buffer without one leaves the estimate as it was.

use serde::Serialize;

/// One `-i` interval of a reverse run, as the client saw it (a forward stream's receiver
/// side, at the sink, the same).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ReceivedInterval {
    /// When the interval began, seconds from the start of receiving.
    pub start_s: f64,
    /// When it ended, seconds from the start.
    pub end_s: f64,
    /// Buffers received in it.
    pub buffers_received: u64,
    /// Their bits over the interval's length.
    pub rate_bit_per_s: f64,
    /// Over UDP (issue 75 §2, as iperf3's interval lines): the buffers the sequence numbers
    /// seen in the interval say were sent and did not arrive in it (a late one that fills a
    /// gap of an earlier interval takes one off; never below 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost: Option<u64>,
    /// Over UDP: buffers that arrived in the interval after a later one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out_of_order: Option<u64>,
    /// Over UDP: RFC 3550's running jitter at the interval's end, seconds (absent before two
    /// timed buffers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jitter_s: Option<f64>,
    /// Within the warm-up (`-O`): it ended by the warm-up's end; absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub omitted: bool,
}

/// One stream's arrivals at its receiver.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Arrivals {
    /// Buffers received.
    pub received: u64,
    /// Buffers that arrived after one with a higher sequence number (a duplicate counts too).
    pub out_of_order: u64,
    highest: Option<u64>,
    /// The last timed buffer's transit, ns (receiver's clock minus sender's).
    transit: Option<i128>,
    /// RFC 3550's J, ns; `None` until two timed buffers have arrived.
    jitter_ns: Option<f64>,
}

impl Arrivals {
    /// Buffer `seq`, sent at `sent_ns` on the sender's clock when it says (a timed buffer),
    /// arrived at `at_ns` on the receiver's.
    pub fn arrive(&mut self, seq: u64, sent_ns: Option<u64>, at_ns: u64) {
        self.received += 1;
        match self.highest {
            Some(h) if seq <= h => self.out_of_order += 1,
            _ => self.highest = Some(seq),
        }
        let Some(sent) = sent_ns else { return };
        let transit = i128::from(at_ns) - i128::from(sent);
        if let Some(prev) = self.transit {
            // RFC 3550 A.8: J += (|D| - J) / 16.
            let d = (transit - prev).unsigned_abs() as f64;
            let j = self.jitter_ns.unwrap_or(0.0);
            self.jitter_ns = Some(j + (d - j) / 16.0);
        }
        self.transit = Some(transit);
    }

    /// RFC 3550's interarrival jitter, ns, rounded; `None` before two timed buffers arrived.
    pub fn jitter_ns(&self) -> Option<u64> {
        self.jitter_ns.map(|j| j.round() as u64)
    }

    /// The buffers the highest sequence number so far says were sent (it + 1; numbers from 0).
    pub fn expected(&self) -> u64 {
        self.highest.map_or(0, |h| h + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_stream_has_no_jitter_and_no_reordering() {
        let mut a = Arrivals::default();
        for i in 0..10 {
            // Sent every 10 ms, each 3 ms in transit: the clocks' offset (1 s) cancels.
            a.arrive(
                i,
                Some(i * 10_000_000),
                1_000_000_000 + i * 10_000_000 + 3_000_000,
            );
        }
        assert_eq!(
            (a.received, a.out_of_order, a.jitter_ns()),
            (10, 0, Some(0))
        );
    }

    /// RFC 3550 A.8 by hand: transits 3, 5, 3 ms give D = 2, 2 ms; J = 2/16 = 0.125 ms, then
    /// 0.125 + (2 − 0.125)/16 = 0.2421875 ms.
    #[test]
    fn jitter_follows_rfc_3550s_running_estimate() {
        let mut a = Arrivals::default();
        a.arrive(0, Some(0), 3_000_000);
        assert_eq!(a.jitter_ns(), None);
        a.arrive(1, Some(10_000_000), 15_000_000);
        assert_eq!(a.jitter_ns(), Some(125_000));
        a.arrive(2, Some(20_000_000), 23_000_000);
        assert_eq!(a.jitter_ns(), Some(242_188));
    }

    #[test]
    fn a_buffer_after_a_later_one_is_out_of_order() {
        let mut a = Arrivals::default();
        for seq in [0, 1, 3, 2, 4, 4, 5] {
            a.arrive(seq, None, 0);
        }
        // 2 after 3, and the second 4.
        assert_eq!((a.received, a.out_of_order), (7, 2));
        assert_eq!(a.jitter_ns(), None, "untimed buffers give no jitter");
    }
}
