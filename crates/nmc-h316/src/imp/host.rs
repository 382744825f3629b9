//! The host interface (BBN Report 1822): a bit-serial, handshaken link to one host, its words
//! moved by the DMC.
//!
//! 1822 moves a message bit by bit, each bit acknowledged (There's-Your-Bit /
//! Ready-For-Next-Bit), the message's last bit flagged (Last-Host-Bit, Last-IMP-Bit); each side
//! shows the other a ready line (Host Master Ready, IMP Master Ready). The core keeps that at the
//! level the program sees, words at the interface's speed:
//!
//! | instruction | function | what the core does |
//! | --- | --- | --- |
//! | `HnIN` OCP 1 | start input | arms input; the host's words flow while it is armed, until the buffer is full or the message's last word has come; then the input level interrupts |
//! | `HnROUT` OCP 0 | start output | the output buffer goes to the host; the output level interrupts when its last bit has gone |
//! | `HnFOUT` OCP 2 | start final output | the same, its last word ends the message (Last-IMP-Bit) |
//! | `HnXP` OCP 3 | cross-patch | output returns to this interface's input (the host sees nothing) |
//! | `HnUNXP` OCP 4 | un-cross-patch | ends the loop and drops IMP Master Ready |
//! | `HnENAB` OCP 5 | enable | raises IMP Master Ready |
//! | `HnERR` SKS 0 | skip on error | never set here (no broken cables) |
//! | `HnRDY` SKS 1 | skip on host ready | Host Master Ready |
//! | `HnEOM` SKS 2 | skip on end of message | the last input ended with the message's last word |
//!
//! The end of message comes **with** the last word (1822: Last-Host-Bit accompanies the last
//! bit), also when that word exactly fills the buffer. (Stock SIMH reported it in a separate,
//! empty input, which made every message a packet longer: `shared/oracle/first-run.md`.)
//!
//! Timing: an input of *n* words completes 16·*n* bit times after it could start (armed, and the
//! host's message there); an output of *n* words 16·*n* bit times after the OCP. The host is
//! taken to take IMP output as fast as the interface sends it. Default speed 100 kbit/s
//! (SIMH's `HI_TXBPS`; 1822 leaves the rate to the bit handshake), a parameter.

use super::levels::HostWiring;
use super::modem::bits_ns;
use super::{Ev, Events, Output};
use crate::interrupt::Interrupts;
use crate::memory::Memory;
use crate::timing::DMC_HALF_CYCLES_PER_WORD;
use std::collections::VecDeque;

/// Counts a host interface keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostStats {
    /// Messages the host gave the IMP (all their words taken).
    pub messages_in: u64,
    /// Messages the IMP gave the host (final outputs).
    pub messages_out: u64,
}

/// One host interface.
#[derive(Clone, Debug)]
pub struct HostInterface {
    host: u8,
    wiring: HostWiring,
    bps: u32,
    imp_ready: bool,
    host_ready: bool,
    crosspatch: bool,
    /// Messages from the host, each with the time it was offered, and words already taken
    /// from the first.
    queue: VecDeque<(u64, Vec<u16>)>,
    taken: usize,
    rx_armed: bool,
    rx_epoch: u64,
    /// An input under way: words, whether they end the message, when it started.
    rx_busy: Option<(usize, bool, u64)>,
    eom: bool,
    tx_epoch: u64,
    /// An output under way: words, final, when it started.
    tx: Option<(Vec<u16>, bool, u64)>,
    out_words: Vec<u16>,
    /// Start inputs only on this grid (ns); see [`super::ImpConfig::host_input_poll_ns`].
    input_poll_ns: Option<u64>,
    /// Counts.
    pub stats: HostStats,
}

impl HostInterface {
    pub(crate) fn new(host: u8, wiring: HostWiring, bps: u32) -> HostInterface {
        HostInterface {
            host,
            wiring,
            bps,
            imp_ready: false,
            host_ready: false,
            crosspatch: false,
            queue: VecDeque::new(),
            taken: 0,
            rx_armed: false,
            rx_epoch: 0,
            rx_busy: None,
            eom: false,
            tx_epoch: 0,
            tx: None,
            out_words: Vec::new(),
            input_poll_ns: None,
            stats: HostStats::default(),
        }
    }

    /// Start inputs only at multiples of `poll_ns` (SIMH's polled interface; `None`: at once).
    pub(crate) fn with_input_poll(mut self, poll_ns: Option<u64>) -> HostInterface {
        self.input_poll_ns = poll_ns.filter(|&p| p > 0);
        self
    }

    /// IMP Master Ready, as the IMP last set it.
    pub fn imp_ready(&self) -> bool {
        self.imp_ready
    }

    fn words_ns(&self, n: usize) -> u64 {
        bits_ns(16 * n as u64, self.bps)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ocp(
        &mut self,
        func: u8,
        now: u64,
        mem: &Memory,
        irq: &mut Interrupts,
        events: &mut Events,
        out: &mut Vec<Output>,
    ) -> bool {
        match func {
            0 | 2 => {
                let (first, count) = self.wiring.output_dmc.buffer(mem);
                let words = mem.block(first, count);
                self.tx_epoch += 1;
                self.tx = Some((words, func == 2, now));
                irq.withdraw(self.wiring.output_level);
                events.at(
                    now + self.words_ns(count),
                    Ev::HostTxDone {
                        host: self.host,
                        epoch: self.tx_epoch,
                    },
                );
            }
            1 => {
                self.rx_armed = true;
                self.eom = false;
                irq.withdraw(self.wiring.input_level);
                self.try_input(now, mem, events);
            }
            3 => self.crosspatch = true,
            4 => {
                self.crosspatch = false;
                self.set_imp_ready(false, now, out);
            }
            5 => self.set_imp_ready(true, now, out),
            _ => return false,
        }
        true
    }

    fn set_imp_ready(&mut self, ready: bool, now: u64, out: &mut Vec<Output>) {
        if self.imp_ready != ready {
            self.imp_ready = ready;
            out.push(Output::ImpReady {
                host: self.host,
                ready,
                at_ns: now,
            });
        }
    }

    pub(crate) fn sks(&self, func: u8) -> Option<bool> {
        match func {
            0 => Some(false),
            1 => Some(self.host_ready),
            2 => Some(self.eom),
            _ => None,
        }
    }

    /// The host offers a message at `at_ns`.
    pub(crate) fn offer(&mut self, words: Vec<u16>, at_ns: u64, events: &mut Events) {
        self.queue.push_back((at_ns, words));
        events.at(at_ns, Ev::HostInputPoll { host: self.host });
    }

    /// Host Master Ready changes.
    pub(crate) fn set_host_ready(&mut self, ready: bool) {
        self.host_ready = ready;
    }

    /// Start an input transfer if one can start now.
    pub(crate) fn try_input(&mut self, now: u64, mem: &Memory, events: &mut Events) {
        if !self.rx_armed || self.rx_busy.is_some() {
            return;
        }
        let Some((at, msg)) = self.queue.front() else {
            return;
        };
        if *at > now {
            return;
        }
        if let Some(p) = self.input_poll_ns {
            let tick = now.div_ceil(p) * p;
            if tick > now {
                events.at(tick, Ev::HostInputPoll { host: self.host });
                return;
            }
        }
        let (_, room) = self.wiring.input_dmc.buffer(mem);
        let remaining = msg.len() - self.taken;
        let n = remaining.min(room);
        let last = n == remaining;
        self.rx_epoch += 1;
        self.rx_busy = Some((n, last, now));
        events.at(
            now + self.words_ns(n),
            Ev::HostRxDone {
                host: self.host,
                epoch: self.rx_epoch,
            },
        );
    }

    /// An input transfer's last bit has come. Returns DMC half cycles stolen.
    pub(crate) fn rx_done(
        &mut self,
        epoch: u64,
        now: u64,
        mem: &mut Memory,
        irq: &mut Interrupts,
        out: &mut Vec<Output>,
    ) -> u64 {
        if epoch != self.rx_epoch {
            return 0;
        }
        let Some((n, last, start_ns)) = self.rx_busy.take() else {
            return 0;
        };
        let (first, _) = self.wiring.input_dmc.buffer(mem);
        if let Some((_, msg)) = self.queue.front() {
            let words = &msg[self.taken..self.taken + n];
            for (i, &w) in words.iter().enumerate() {
                mem.deposit(first.wrapping_add(i as u16), w);
            }
            out.push(Output::HostInput {
                host: self.host,
                words: words.to_vec(),
                eom: last,
                start_ns,
                done_ns: now,
            });
        }
        self.wiring.input_dmc.advance(mem, n);
        if last {
            self.queue.pop_front();
            self.taken = 0;
            self.stats.messages_in += 1;
        } else {
            self.taken += n;
        }
        self.eom = last;
        self.rx_armed = false;
        irq.request(self.wiring.input_level);
        n as u64 * DMC_HALF_CYCLES_PER_WORD
    }

    /// An output's last bit has gone. Returns DMC half cycles stolen.
    pub(crate) fn tx_done(
        &mut self,
        epoch: u64,
        now: u64,
        mem: &mut Memory,
        irq: &mut Interrupts,
        events: &mut Events,
        out: &mut Vec<Output>,
    ) -> u64 {
        if epoch != self.tx_epoch {
            return 0;
        }
        let Some((words, last, start_ns)) = self.tx.take() else {
            return 0;
        };
        let n = words.len();
        self.wiring.output_dmc.advance(mem, n);
        self.out_words.extend(words);
        if last {
            let message = std::mem::take(&mut self.out_words);
            self.stats.messages_out += 1;
            if self.crosspatch {
                self.offer(message, now, events);
            } else {
                out.push(Output::HostMessage {
                    host: self.host,
                    words: message,
                    final_start_ns: start_ns,
                    last_bit_ns: now,
                });
            }
        }
        irq.request(self.wiring.output_level);
        n as u64 * DMC_HALF_CYCLES_PER_WORD
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dmc::INPUT;
    use crate::imp::levels::HOSTS;

    fn drain(
        h: &mut HostInterface,
        ev: &mut Events,
        mem: &mut Memory,
        irq: &mut Interrupts,
        out: &mut Vec<Output>,
    ) -> Vec<u64> {
        let mut times = Vec::new();
        while let Some((t, e)) = ev.pop_due(u64::MAX) {
            match e {
                Ev::HostInputPoll { .. } => h.try_input(t, mem, ev),
                Ev::HostRxDone { epoch, .. } => {
                    h.rx_done(epoch, t, mem, irq, out);
                    times.push(t);
                }
                Ev::HostTxDone { epoch, .. } => {
                    h.tx_done(epoch, t, mem, irq, ev, out);
                    times.push(t);
                }
                _ => unreachable!(),
            }
        }
        times
    }

    #[test]
    fn a_message_fills_buffers_and_its_end_comes_with_its_last_word() {
        let mut h = HostInterface::new(1, HOSTS[0], 100_000);
        let (mut mem, mut irq, mut ev, mut out) = (
            Memory::new(16 * 1024),
            Interrupts::default(),
            Events::default(),
            Vec::new(),
        );
        h.offer((1..=6).collect(), 1_000, &mut ev);
        // Buffer of 4 words at 2000 (host 1 input pointers 50/51).
        mem.deposit(0o50, INPUT | 0o2000);
        mem.deposit(0o51, 0o2003);
        h.ocp(1, 0, &mem, &mut irq, &mut ev, &mut out);
        let t = drain(&mut h, &mut ev, &mut mem, &mut irq, &mut out);
        // 4 words = 64 bits at 100 kbit/s = 640 µs after the message was offered.
        assert_eq!(t, [641_000]);
        assert_eq!(h.sks(2), Some(false), "buffer full, not the end");
        assert!(irq.requesting(13));
        mem.deposit(0o50, INPUT | 0o2000);
        h.ocp(1, 700_000, &mem, &mut irq, &mut ev, &mut out);
        let t = drain(&mut h, &mut ev, &mut mem, &mut irq, &mut out);
        assert_eq!(t, [700_000 + 320_000]);
        assert_eq!(h.sks(2), Some(true), "end of message with words 5 and 6");
        assert_eq!((mem.read(0o2000), mem.read(0o2001)), (5, 6));
        assert_eq!(mem.read(0o50), INPUT | 0o2002);
    }

    #[test]
    fn final_output_completes_a_message_to_the_host() {
        let mut h = HostInterface::new(1, HOSTS[0], 100_000);
        let (mut mem, mut irq, mut ev, mut out) = (
            Memory::new(16 * 1024),
            Interrupts::default(),
            Events::default(),
            Vec::new(),
        );
        mem.deposit(0o44, 0o3000);
        mem.deposit(0o45, 0o3001);
        mem.deposit(0o3000, 0o11);
        mem.deposit(0o3001, 0o22);
        h.ocp(0, 0, &mem, &mut irq, &mut ev, &mut out);
        drain(&mut h, &mut ev, &mut mem, &mut irq, &mut out);
        assert!(out.is_empty(), "not final yet");
        assert!(irq.requesting(11));
        mem.deposit(0o44, 0o3000);
        mem.deposit(0o45, 0o3000);
        h.ocp(2, 400_000, &mem, &mut irq, &mut ev, &mut out);
        drain(&mut h, &mut ev, &mut mem, &mut irq, &mut out);
        assert_eq!(
            out,
            [Output::HostMessage {
                host: 1,
                words: vec![0o11, 0o22, 0o11],
                final_start_ns: 400_000,
                last_bit_ns: 400_000 + 160_000
            }]
        );
        h.ocp(5, 600_000, &mem, &mut irq, &mut ev, &mut out);
        assert_eq!(
            out[1],
            Output::ImpReady {
                host: 1,
                ready: true,
                at_ns: 600_000
            }
        );
    }

    #[test]
    fn with_simhs_poll_an_input_starts_on_the_next_tick_and_reports_its_times() {
        let mut h = HostInterface::new(1, HOSTS[0], 100_000).with_input_poll(Some(250_000));
        let (mut mem, mut irq, mut ev, mut out) = (
            Memory::new(16 * 1024),
            Interrupts::default(),
            Events::default(),
            Vec::new(),
        );
        h.offer(vec![7, 8], 1_000, &mut ev);
        mem.deposit(0o50, INPUT | 0o2000);
        mem.deposit(0o51, 0o2003);
        h.ocp(1, 0, &mem, &mut irq, &mut ev, &mut out);
        let t = drain(&mut h, &mut ev, &mut mem, &mut irq, &mut out);
        // Offered at 1 µs, taken from the 250 µs tick: 2 words = 320 µs later.
        assert_eq!(t, [250_000 + 320_000]);
        assert_eq!(
            out,
            [Output::HostInput {
                host: 1,
                words: vec![7, 8],
                eom: true,
                start_ns: 250_000,
                done_ns: 570_000
            }]
        );
    }
}
