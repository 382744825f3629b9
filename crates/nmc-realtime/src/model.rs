//! One test of RFC 508 on the path of its Figure 1, as a discrete-event model in integer ns.
//!
//! The pieces, in the order a buffer meets them:
//!
//! 1. **SEL 810-B** (§IV): two buffers; the converter fills one at the process bit rate while
//!    the other is written. When a buffer is full a write is initiated and the converter turns
//!    to the next buffer; if that buffer's previous write has not completed, a *gap* starts; the
//!    SEL tests every 1 ms, so the gap ends at the first 1 ms step after the buffer comes free,
//!    and is recorded in whole steps.
//! 2. **SEL → 360/75** (§II–III): the SEL raises an attention interrupt; the 360's network job
//!    answers it ([`crate::host::Cpu`], behind the On-Line System) when one of the 360's two
//!    buffers for the SEL's data is free (§V step 1, "double buffered"), then the buffer crosses
//!    the 500 kbit/s link. The SEL's write is complete, and its buffer free, when the transfer
//!    ends.
//! 3. **NCP at UCSB**: data moves from the 360's buffer into the connection's send buffer when
//!    it has room; the NCP sends everything waiting as one message (up to the largest message
//!    and the host-host allocation) when the link has fewer than `messages_per_link` messages
//!    unanswered; each send, RFNM and ALL costs the network job CPU time.
//! 4. **The subnet** ([`crate::subnet`]): the message's delivery and RFNM times are drawn from
//!    nmc's IMP model's times for a message of that length, cold (REQALL first) when the
//!    message follows the last RFNM by more than the IMP's giveback time.
//! 5. **NCP at UCLA** (the 360/91 discard socket, site 65 socket 9): re-allocates the bits of
//!    each message when it arrives; the ALL travels back as a short message over the subnet.
//!
//! "Buffers sent" counts the buffers whose write was initiated within the test (§V: "after 30
//! seconds, stop the test"). A gap still open at the end is counted up to the end.

use crate::gaps::GapTable;
use crate::host::Cpu;
use crate::params::Params;
use crate::subnet::{self, SubnetError, SubnetTimes};
use nmc_sim::rng::Stream;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

/// The subnet's times for every message length a test of one buffer size can send.
pub struct SubnetSet {
    forward: BTreeMap<u64, SubnetTimes>,
    reverse: SubnetTimes,
    max_data_bits: u64,
    header_bits: u64,
}

impl SubnetSet {
    /// Runs the IMP model for messages of 1, 2, … buffers (plus the NCP header), up to the send
    /// buffer and the largest message, and once for the UCLA NCP's ALL message.
    pub fn for_buffer(p: &Params, buffer_bits: u64, seed: u64) -> Result<SubnetSet, SubnetError> {
        let max_msg = subnet::max_message_bits();
        let max_data = max_msg.saturating_sub(p.ncp.header_bits).max(1);
        let mut forward = BTreeMap::new();
        let mut k = 1;
        loop {
            let data = (k * buffer_bits)
                .min(max_data)
                .min(p.ncp.send_buffer_bits.max(buffer_bits));
            let bits = (data + p.ncp.header_bits).min(max_msg);
            if let std::collections::btree_map::Entry::Vacant(e) = forward.entry(bits) {
                e.insert(subnet::forward(&p.path, bits, seed)?);
            }
            if data == max_data || k * buffer_bits >= p.ncp.send_buffer_bits {
                break;
            }
            k += 1;
        }
        Ok(SubnetSet {
            forward,
            reverse: subnet::reverse(&p.path, p.ncp.all_message_bits, seed)?,
            max_data_bits: max_data,
            header_bits: p.ncp.header_bits,
        })
    }

    fn times(&self, data_bits: u64) -> &SubnetTimes {
        let bits = data_bits + self.header_bits;
        self.forward
            .range(bits..)
            .next()
            .or_else(|| self.forward.iter().next_back())
            .map(|x| x.1)
            .expect("at least one size")
    }

    /// Mean warm RFNM round trip of the smallest message (one buffer), ms.
    pub fn one_buffer_rfnm_ms(&self) -> f64 {
        let t = self.forward.values().next().expect("one size");
        t.warm.iter().map(|x| x.1 as f64).sum::<f64>() / t.warm.len() as f64 / 1e6
    }
}

/// What one test gave.
#[derive(Clone, Debug, Serialize)]
pub struct TestResult {
    /// The SEL's process bit rate, bit/s.
    pub rate_bps: u64,
    /// The size of each SEL buffer, bits.
    pub buffer_bits: u64,
    /// Buffers the SEL filled during the test (Table I's "buffers sent").
    pub buffers_sent: u64,
    /// The gaps: times the SEL found its next buffer not yet free, in whole poll steps.
    pub gaps: GapTable,
    /// Host-host messages the UCSB NCP sent to UCLA.
    pub messages: u64,
    /// Mean data bits per message.
    pub mean_message_bits: f64,
    /// On-Line System share of the CPU during the test.
    pub host_utilisation: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    FillDone(usize),
    TransferDone(usize),
    SendDone(u64),
    Rfnm(u64),
    RfnmDone(u64),
    AllocArrive(u64),
    AllocDone(u64),
}

/// Runs one test at `rate_bps` with buffers of `buffer_bits`. `host_rng` draws the On-Line
/// System, `net_rng` the subnet samples.
pub fn run_test(
    p: &Params,
    set: &SubnetSet,
    rate_bps: u64,
    buffer_bits: u64,
    host_rng: &mut Stream,
    net_rng: &mut Stream,
) -> TestResult {
    let start = p.test.warmup_ns;
    let end = start + p.test.duration_ns;
    let cpu = Cpu::new(&p.host, end + 60_000_000_000, host_rng);
    let mut test = Test::new(p, set, rate_bps, buffer_bits, cpu, net_rng);
    test.sel_free[0] = false;
    test.push(start + test.fill_ns, Ev::FillDone(0));

    while let Some(Reverse((t, _, ev))) = test.q.pop() {
        if t > end {
            break;
        }
        match ev {
            Ev::FillDone(i) => test.fill_done(t, i),
            Ev::TransferDone(i) => test.transfer_done(t, i),
            Ev::SendDone(bits) => test.send_done(t, bits),
            Ev::Rfnm(bits) => {
                let done = test.cpu.serve(t, p.host.rfnm_cpu_ns);
                test.push(done, Ev::RfnmDone(bits));
            }
            Ev::RfnmDone(bits) => {
                test.in_flight.pop_front();
                test.ncp_space -= bits;
                test.last_rfnm = Some(t);
            }
            Ev::AllocArrive(bits) => {
                let done = test.cpu.serve(t, p.host.rfnm_cpu_ns);
                test.push(done, Ev::AllocDone(bits));
            }
            Ev::AllocDone(bits) => test.allocation += bits,
        }
        // Whatever can move now, moves: 360 buffers into the NCP, the SEL's next transfer, the
        // NCP's next message.
        test.fill_send_buffer();
        test.start_transfer(t);
        test.send_message(t);
    }
    if let Some((_, g0)) = test.waiting
        && g0 < end
    {
        test.gaps.push((end - g0).div_ceil(test.poll) * test.poll);
    }
    TestResult {
        rate_bps,
        buffer_bits,
        buffers_sent: test.sent,
        gaps: test.gaps,
        messages: test.messages,
        mean_message_bits: test.message_bits as f64 / test.messages.max(1) as f64,
        host_utilisation: test.cpu.utilisation(start, end),
    }
}

/// One test's state along the path: the event queue, the SEL's buffers, the 360's, the NCP's
/// send buffer and connection, and the counts.
struct Test<'a> {
    p: &'a Params,
    set: &'a SubnetSet,
    cpu: Cpu,
    net_rng: &'a mut Stream,
    buffer_bits: u64,
    /// One buffer's fill time at the rate, ns.
    fill_ns: u64,
    /// One buffer's transfer time over the SEL's link, ns.
    xfer_ns: u64,
    n_sel: usize,
    poll: u64,
    q: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    seq: u64,
    sel_free: Vec<bool>,
    /// The SEL buffer the converter waits for, and since when: a gap.
    waiting: Option<(usize, u64)>,
    /// Full SEL buffers waiting for their transfer.
    pending: VecDeque<usize>,
    transfer_busy: bool,
    /// The 360's buffers for the SEL's data in use.
    user_used: u32,
    user_queue: VecDeque<u64>,
    ncp_queued: u64,
    ncp_space: u64,
    in_flight: VecDeque<u64>,
    sending: bool,
    allocation: u64,
    last_rfnm: Option<u64>,
    sent: u64,
    gaps: GapTable,
    messages: u64,
    message_bits: u64,
}

impl<'a> Test<'a> {
    /// A test at `rate_bps` in `buffer_bits` buffers, before its first event.
    fn new(
        p: &'a Params,
        set: &'a SubnetSet,
        rate_bps: u64,
        buffer_bits: u64,
        cpu: Cpu,
        net_rng: &'a mut Stream,
    ) -> Test<'a> {
        let fill_ns = ((buffer_bits as u128 * 1_000_000_000 + rate_bps as u128 / 2)
            / rate_bps as u128) as u64;
        let xfer_ns = (buffer_bits as u128 * 1_000_000_000 / p.sel.link_bps as u128) as u64;
        let n_sel = p.sel.buffers as usize;
        Test {
            p,
            set,
            cpu,
            net_rng,
            buffer_bits,
            fill_ns,
            xfer_ns,
            n_sel,
            poll: p.sel.poll_ns,
            q: BinaryHeap::new(),
            seq: 0,
            sel_free: vec![true; n_sel],
            waiting: None,
            pending: VecDeque::new(),
            transfer_busy: false,
            user_used: 0,
            user_queue: VecDeque::new(),
            ncp_queued: 0,
            ncp_space: 0,
            in_flight: VecDeque::new(),
            sending: false,
            allocation: p.ncp.allocation_bits,
            last_rfnm: None,
            sent: 0,
            gaps: GapTable::default(),
            messages: 0,
            message_bits: 0,
        }
    }

    /// Schedules `e` at `t` (events at one time in the order scheduled).
    fn push(&mut self, t: u64, e: Ev) {
        self.seq += 1;
        self.q.push(Reverse((t, self.seq, e)));
    }

    /// SEL buffer `i` is full at `t`: its write waits for the link, and the converter turns
    /// to the next buffer, or waits for it (a gap starts).
    fn fill_done(&mut self, t: u64, i: usize) {
        self.sent += 1;
        self.pending.push_back(i);
        let j = (i + 1) % self.n_sel;
        if self.sel_free[j] {
            self.sel_free[j] = false;
            self.push(t + self.fill_ns, Ev::FillDone(j));
        } else {
            self.waiting = Some((j, t));
        }
    }

    /// SEL buffer `i`'s transfer to the 360 ends at `t`: the buffer is free, and a gap waiting
    /// for it ends at the SEL's next poll step.
    fn transfer_done(&mut self, t: u64, i: usize) {
        self.transfer_busy = false;
        self.sel_free[i] = true;
        self.user_queue.push_back(self.buffer_bits);
        if let Some((w, g0)) = self.waiting
            && w == i
        {
            self.waiting = None;
            let steps = (t - g0).div_ceil(self.poll);
            let resume = g0 + steps * self.poll;
            if steps > 0 {
                self.gaps.push(steps * self.poll);
            }
            self.sel_free[i] = false;
            self.push(resume + self.fill_ns, Ev::FillDone(i));
        }
    }

    /// The NCP's message of `bits` leaves at `t`: its RFNM and the ALL that answers it, timed
    /// by the subnet (cold when the link has been idle past the giveback time).
    fn send_done(&mut self, t: u64, bits: u64) {
        self.sending = false;
        let set = self.set;
        let times = set.times(bits);
        let cold = self.in_flight.is_empty()
            && self
                .last_rfnm
                .is_none_or(|r| t.saturating_sub(r) > times.giveback_after_ns);
        let (deliver, rfnm) = if cold {
            times.cold
        } else {
            times.warm[self
                .net_rng
                .uniform_inclusive(0, times.warm.len() as u64 - 1) as usize]
        };
        let back = set.reverse.warm[self
            .net_rng
            .uniform_inclusive(0, set.reverse.warm.len() as u64 - 1)
            as usize]
            .0;
        self.in_flight.push_back(bits);
        self.messages += 1;
        self.message_bits += bits;
        self.push(t + rfnm, Ev::Rfnm(bits));
        self.push(
            t + deliver + self.p.ncp.ucla_response_ns + back,
            Ev::AllocArrive(bits),
        );
    }

    /// The 360's buffers move into the NCP's send buffer while it has room.
    fn fill_send_buffer(&mut self) {
        while let Some(&b) = self.user_queue.front() {
            if self.ncp_space + b > self.p.ncp.send_buffer_bits.max(self.buffer_bits) {
                break;
            }
            self.user_queue.pop_front();
            self.user_used -= 1;
            self.ncp_queued += b;
            self.ncp_space += b;
        }
    }

    /// The SEL's next full buffer crosses to the 360 when the link and a 360 buffer are free
    /// (after the network job answers the attention interrupt).
    fn start_transfer(&mut self, t: u64) {
        if !self.transfer_busy
            && self.user_used < self.p.host.user_buffers
            && let Some(i) = self.pending.pop_front()
        {
            self.transfer_busy = true;
            self.user_used += 1;
            let done = self.cpu.serve(t, self.p.host.attention_cpu_ns);
            self.push(done + self.xfer_ns, Ev::TransferDone(i));
        }
    }

    /// The NCP sends everything waiting as one message (up to the largest message and the
    /// allocation) when the link has room for another message unanswered.
    fn send_message(&mut self, t: u64) {
        if !self.sending
            && (self.in_flight.len() as u32) < self.p.ncp.messages_per_link
            && self.ncp_queued > 0
        {
            let bits = self
                .ncp_queued
                .min(self.set.max_data_bits)
                .min(self.allocation);
            if bits > 0 {
                self.sending = true;
                self.ncp_queued -= bits;
                self.allocation -= bits;
                let done = self.cpu.serve(t, self.p.host.send_cpu_ns);
                self.push(done, Ev::SendDone(bits));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nmc_sim::RngStreams;

    fn one(p: &Params, set: &SubnetSet, rate: u64, bits: u64, seed: u64) -> TestResult {
        let s = RngStreams::new(seed);
        run_test(p, set, rate, bits, &mut s.stream(1), &mut s.stream(2))
    }

    #[test]
    fn the_network_alone_keeps_up_at_30000_bit_s_with_1008_bit_buffers() {
        let p = Params::default();
        let set = SubnetSet::for_buffer(&p, 1008, 1).unwrap();
        let r = one(&p, &set, 30_000, 1008, 1);
        assert_eq!(r.gaps.count(), 0);
        // 30 s / 33.6 ms = 892.9: 892 deadlines in the test.
        assert_eq!(r.buffers_sent, 892);
        // One buffer per message would need a 68 ms RFNM every 33.6 ms: messages carry more.
        assert!(r.mean_message_bits > 1008.0, "{}", r.mean_message_bits);
    }

    #[test]
    fn one_buffer_per_message_cannot_carry_30000_bit_s() {
        // The NCP's send buffer holds one SEL buffer: a message per buffer, one per RFNM.
        let mut p = Params::default();
        p.ncp.send_buffer_bits = 1008;
        let set = SubnetSet::for_buffer(&p, 1008, 1).unwrap();
        let r = one(&p, &set, 30_000, 1008, 1);
        assert!(r.gaps.count() > 100, "{}", r.gaps.count());
        assert_eq!(r.mean_message_bits, 1008.0);
    }

    #[test]
    fn a_host_that_answers_late_makes_gaps_in_whole_milliseconds_and_costs_buffers() {
        let mut p = Params::default();
        p.host.fixed_response_ns = Some(250_000_000);
        let set = SubnetSet::for_buffer(&p, 2016, 1).unwrap();
        let r = one(&p, &set, 30_000, 2016, 1);
        assert!(r.gaps.count() > 0);
        assert!(r.gaps.gaps_ns.iter().all(|g| g % 1_000_000 == 0));
        // Gaps cost what they last: sent ≈ rate × (30 s − gaps) / bits.
        let secs = 30.0 - r.gaps.total_ns() as f64 / 1e9;
        let expect = 30_000.0 * secs / 2016.0;
        assert!(
            (r.buffers_sent as f64 - expect).abs() <= 2.0,
            "{} vs {expect}",
            r.buffers_sent
        );
    }

    #[test]
    fn same_seed_same_test_and_another_seed_another_host() {
        let mut p = Params::default();
        p.host.terminals = 16;
        let set = SubnetSet::for_buffer(&p, 2016, 1).unwrap();
        let a = one(&p, &set, 13_200, 2016, 7);
        let b = one(&p, &set, 13_200, 2016, 7);
        assert_eq!(a.gaps, b.gaps);
        assert_eq!(a.buffers_sent, b.buffers_sent);
        assert_eq!(a.host_utilisation, b.host_utilisation);
        let c = one(&p, &set, 13_200, 2016, 8);
        assert_ne!(a.host_utilisation, c.host_utilisation);
    }

    #[test]
    fn the_subnet_takes_longer_for_longer_messages_and_a_cold_message_longer_still() {
        let p = Params::default();
        let set = SubnetSet::for_buffer(&p, 1008, 1).unwrap();
        let means: Vec<f64> = set
            .forward
            .values()
            .map(|t| t.warm.iter().map(|x| x.1 as f64).sum::<f64>() / t.warm.len() as f64)
            .collect();
        assert!(means.windows(2).all(|w| w[0] < w[1]), "{means:?}");
        let big = set.forward.values().next_back().unwrap();
        let warm_min = big.warm.iter().map(|x| x.1).min().unwrap();
        assert!(
            big.cold.1 > warm_min,
            "REQALL first: {} vs {warm_min}",
            big.cold.1
        );
    }
}
