//! The modem interface: one full-duplex synchronous line, its frames moved by the DMC.
//!
//! BBN built it for the IMP (Heart et al., "The interface message processor for the ARPA
//! computer network", SJCC 1970: the modem interface frames a packet with SYN, DLE STX …
//! DLE ETX and a 24-bit checksum the hardware computes and checks). The instructions are the
//! listing's (see [`super::levels`]):
//!
//! | instruction | function | what the core does |
//! | --- | --- | --- |
//! | `MnOUT` OCP 0 | start output | takes the output channel's buffer as a frame; the frame's last bit has gone after (16·words + framing bits) ÷ line speed; then the channel's pointer reaches the buffer's end and the output level interrupts |
//! | `MnIN` OCP 4 | start input | arms the receiver (clears its error flag) |
//! | `MnUNXP` OCP 1 | un-cross-patch | ends either loop |
//! | `MnLXP` OCP 2 | line cross-patch | output returns to this receiver, as from the line |
//! | `MnIXP` OCP 3 | interface cross-patch | the same, inside the interface |
//! | `MnERR` SKS 4 | skip on error | the last input overran its buffer or failed its checksum |
//!
//! A frame arriving ([`super::Imp::deliver_frame`]) is written to memory when its last bit
//! arrives, if the receiver is armed (else it is lost, as on the real line: the receiver
//! listens only when started): at most the input buffer's length, the rest dropped and the
//! error flag set; the channel's pointer advanced by the words written; the input level
//! interrupts and the receiver disarms.
//!
//! Framing: 72 bits beyond the words by default (RFC 568 item 2 and RFC 635 pp. 6–7: 48 bits of
//! line control — SYN SYN DLE STX … DLE ETX — and the 24-bit checksum), a parameter.

use super::levels::ModemWiring;
use super::{Ev, Events, Output};
use crate::interrupt::Interrupts;
use crate::memory::Memory;
use crate::timing::DMC_HALF_CYCLES_PER_WORD;
use std::collections::BTreeMap;

/// Nanoseconds `bits` take at `bps`, rounded up.
pub fn bits_ns(bits: u64, bps: u32) -> u64 {
    (bits * 1_000_000_000).div_ceil(bps.max(1) as u64)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loop {
    None,
    Line,
    Interface,
}

/// Counts a modem keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModemStats {
    /// Frames sent.
    pub sent: u64,
    /// Frames written to memory.
    pub received: u64,
    /// Frames that arrived with the receiver not armed.
    pub lost: u64,
    /// Inputs that ended with the error flag set.
    pub errors: u64,
}

/// One modem interface.
#[derive(Clone, Debug)]
pub struct Modem {
    line: u8,
    wiring: ModemWiring,
    bps: u32,
    framing_bits: u32,
    rx_armed: bool,
    rx_error: bool,
    tx_epoch: u64,
    tx_words: usize,
    looped: Loop,
    arrivals: BTreeMap<u64, (Vec<u16>, bool)>,
    next_arrival: u64,
    /// Counts.
    pub stats: ModemStats,
}

impl Modem {
    pub(crate) fn new(line: u8, wiring: ModemWiring, bps: u32, framing_bits: u32) -> Modem {
        Modem {
            line,
            wiring,
            bps,
            framing_bits,
            rx_armed: false,
            rx_error: false,
            tx_epoch: 0,
            tx_words: 0,
            looped: Loop::None,
            arrivals: BTreeMap::new(),
            next_arrival: 0,
            stats: ModemStats::default(),
        }
    }

    /// Line speed, bit/s.
    pub fn bps(&self) -> u32 {
        self.bps
    }

    /// Time a frame of `words` words occupies the line.
    pub fn frame_ns(&self, words: usize) -> u64 {
        bits_ns(16 * words as u64 + self.framing_bits as u64, self.bps)
    }

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
            0 => {
                let (first, count) = self.wiring.output_dmc.buffer(mem);
                let words = mem.block(first, count);
                let last = now + self.frame_ns(count);
                self.tx_epoch += 1;
                self.tx_words = count;
                irq.withdraw(self.wiring.output_level);
                events.at(
                    last,
                    Ev::ModemTxDone {
                        line: self.line,
                        epoch: self.tx_epoch,
                    },
                );
                self.stats.sent += 1;
                if self.looped == Loop::None {
                    out.push(Output::Frame {
                        line: self.line,
                        words,
                        first_bit_ns: now,
                        last_bit_ns: last,
                    });
                } else {
                    self.arrive(words, true, last, events);
                }
            }
            1 => self.looped = Loop::None,
            2 => self.looped = Loop::Line,
            3 => self.looped = Loop::Interface,
            4 => {
                self.rx_armed = true;
                self.rx_error = false;
                irq.withdraw(self.wiring.input_level);
            }
            _ => return false,
        }
        true
    }

    pub(crate) fn sks(&self, func: u8) -> Option<bool> {
        match func {
            4 => Some(self.rx_error),
            _ => None,
        }
    }

    /// Queue a frame to arrive (its last bit) at `at_ns`.
    pub(crate) fn arrive(&mut self, words: Vec<u16>, ok: bool, at_ns: u64, events: &mut Events) {
        let id = self.next_arrival;
        self.next_arrival += 1;
        self.arrivals.insert(id, (words, ok));
        events.at(
            at_ns,
            Ev::ModemRx {
                line: self.line,
                id,
            },
        );
    }

    /// Output done: the last bit has gone. Returns DMC half cycles stolen.
    pub(crate) fn tx_done(&mut self, epoch: u64, mem: &mut Memory, irq: &mut Interrupts) -> u64 {
        if epoch != self.tx_epoch {
            return 0;
        }
        self.wiring.output_dmc.advance(mem, self.tx_words);
        irq.request(self.wiring.output_level);
        self.tx_words as u64 * DMC_HALF_CYCLES_PER_WORD
    }

    /// A frame's last bit arrived. Returns DMC half cycles stolen.
    pub(crate) fn rx(
        &mut self,
        id: u64,
        now: u64,
        mem: &mut Memory,
        irq: &mut Interrupts,
        out: &mut Vec<Output>,
    ) -> u64 {
        let Some((words, ok)) = self.arrivals.remove(&id) else {
            return 0;
        };
        if !self.rx_armed {
            self.stats.lost += 1;
            out.push(Output::FrameLost {
                line: self.line,
                words: words.len(),
                at_ns: now,
            });
            return 0;
        }
        let (first, room) = self.wiring.input_dmc.buffer(mem);
        let n = words.len().min(room);
        for (i, &w) in words[..n].iter().enumerate() {
            mem.deposit(first.wrapping_add(i as u16), w);
        }
        self.wiring.input_dmc.advance(mem, n);
        self.rx_error = !ok || words.len() > room;
        out.push(Output::FrameIn {
            line: self.line,
            words: words[..n].to_vec(),
            at_ns: now,
        });
        if self.rx_error {
            self.stats.errors += 1;
        }
        self.stats.received += 1;
        self.rx_armed = false;
        irq.request(self.wiring.input_level);
        n as u64 * DMC_HALF_CYCLES_PER_WORD
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dmc::INPUT;
    use crate::imp::levels::MODEMS;

    fn setup() -> (Modem, Memory, Interrupts, Events, Vec<Output>) {
        (
            Modem::new(1, MODEMS[0], 50_000, 72),
            Memory::new(16 * 1024),
            Interrupts::default(),
            Events::default(),
            Vec::new(),
        )
    }

    #[test]
    fn a_frame_leaves_at_the_line_speed_and_interrupts_when_its_last_bit_has_gone() {
        let (mut m, mut mem, mut irq, mut ev, mut out) = setup();
        // Output channel 6: pointers 32/33, buffer 1000..1007 (8 words).
        mem.deposit(0o32, 0o1000);
        mem.deposit(0o33, 0o1007);
        for i in 0..8 {
            mem.deposit(0o1000 + i, 0o100 + i);
        }
        assert!(m.ocp(0, 1_000, &mem, &mut irq, &mut ev, &mut out));
        // 8 words + 72 framing bits = 200 bits at 50 kbit/s = 4 ms.
        let Output::Frame {
            words,
            first_bit_ns,
            last_bit_ns,
            ..
        } = &out[0]
        else {
            panic!("{out:?}")
        };
        assert_eq!(words.len(), 8);
        assert_eq!((*first_bit_ns, *last_bit_ns), (1_000, 4_001_000));
        let (t, e) = ev.pop_due(u64::MAX).unwrap();
        assert_eq!(t, 4_001_000);
        let Ev::ModemTxDone { epoch, .. } = e else {
            panic!()
        };
        assert!(!irq.requesting(6));
        assert_eq!(
            m.tx_done(epoch, &mut mem, &mut irq),
            8 * 8,
            "4 cycles a word"
        );
        assert!(irq.requesting(6), "modem 1 output level");
        assert_eq!(mem.read(0o32), 0o1010, "the pointer reached the end");
    }

    #[test]
    fn a_frame_is_written_when_its_last_bit_arrives_if_the_receiver_is_armed() {
        let (mut m, mut mem, mut irq, mut ev, mut out) = setup();
        m.arrive(vec![1, 2, 3], true, 500, &mut ev);
        let (_, Ev::ModemRx { id, .. }) = ev.pop_due(500).unwrap() else {
            panic!()
        };
        assert_eq!(m.rx(id, 500, &mut mem, &mut irq, &mut out), 0);
        assert_eq!(m.stats.lost, 1, "not armed: lost");

        mem.deposit(0o20, INPUT | 0o2000);
        mem.deposit(0o21, 0o2001); // room for 2
        m.ocp(4, 600, &mem, &mut irq, &mut ev, &mut out);
        m.arrive(vec![7, 8, 9], true, 900, &mut ev);
        let (_, Ev::ModemRx { id, .. }) = ev.pop_due(900).unwrap() else {
            panic!()
        };
        m.rx(id, 900, &mut mem, &mut irq, &mut out);
        assert_eq!(
            (mem.read(0o2000), mem.read(0o2001), mem.read(0o2002)),
            (7, 8, 0)
        );
        assert_eq!(mem.read(0o20), INPUT | 0o2002);
        assert_eq!(m.sks(4), Some(true), "overran its buffer: MnERR skips");
        assert!(irq.requesting(1));
    }

    #[test]
    fn a_crosspatched_interface_hears_itself() {
        let (mut m, mut mem, mut irq, mut ev, mut out) = setup();
        mem.deposit(0o32, 0o1000);
        mem.deposit(0o33, 0o1000);
        mem.deposit(0o1000, 0o4242);
        mem.deposit(0o20, INPUT | 0o3000);
        mem.deposit(0o21, 0o3000);
        m.ocp(3, 0, &mem, &mut irq, &mut ev, &mut out);
        m.ocp(4, 0, &mem, &mut irq, &mut ev, &mut out);
        m.ocp(0, 0, &mem, &mut irq, &mut ev, &mut out);
        assert!(out.is_empty(), "nothing on the line");
        while let Some((t, e)) = ev.pop_due(u64::MAX) {
            match e {
                Ev::ModemRx { id, .. } => {
                    m.rx(id, t, &mut mem, &mut irq, &mut out);
                }
                Ev::ModemTxDone { epoch, .. } => {
                    m.tx_done(epoch, &mut mem, &mut irq);
                }
                _ => unreachable!(),
            }
        }
        assert_eq!(mem.read(0o3000), 0o4242);
    }
}
