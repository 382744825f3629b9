//! The direct multiplex control (DMC): devices move words to and from core by themselves.
//!
//! Each of the 16 DMC channels keeps its transfer's state in two core words (DDP-516 PRM, the
//! DMC option; the IMP listing sets them up as `MnINBP`, `MnOTBP`, `HnINBP`, `HnOTBP`):
//! channel *n* at 20 + 2(*n* − 1) (octal) holds the next address (bit 1 set for input), and the
//! word after it the last address of the buffer. Each word moved advances the first word; the
//! transfer ends when the last address has been used.
//!
//! How the cores use it: a transfer's words are moved as a block when the device's transfer
//! completes (a frame's last bit), and the cycles the DMC stole, 4 a word
//! ([`crate::timing::DMC_HALF_CYCLES_PER_WORD`]), are charged to the CPU then. The real DMC
//! moved each word as the line delivered it; the total cycles are the same, their placement
//! within the frame time is not modelled.

use crate::memory::{Memory, X_AMASK};

/// Bit 1 of a channel's first word: the transfer is an input.
pub const INPUT: u16 = 0o100000;

/// A DMC channel, 1–16.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Channel(pub u8);

impl Channel {
    /// The core address of the channel's first (next-address) word.
    pub const fn pointer_address(self) -> u16 {
        0o20 + 2 * (self.0 as u16 - 1)
    }

    /// The buffer the channel's words describe: its next address and how many words remain
    /// (0 when the next address is past the last).
    pub fn buffer(self, mem: &Memory) -> (u16, usize) {
        let at = self.pointer_address();
        let next = mem.read(at) & X_AMASK;
        let last = mem.read(at + 1) & X_AMASK;
        let count = if last >= next {
            (last - next) as usize + 1
        } else {
            0
        };
        (next, count)
    }

    /// `n` words moved: advance the next address (keeping the input bit).
    pub fn advance(self, mem: &mut Memory, n: usize) {
        let at = self.pointer_address();
        let w = mem.read(at);
        let next = ((w & X_AMASK) as usize + n) as u16 & X_AMASK;
        mem.deposit(at, (w & INPUT) | next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channel_words_and_their_buffer() {
        let mut mem = Memory::new(16 * 1024);
        let ch = Channel(13); // the IMP's host 1 input: 50, 51
        assert_eq!(ch.pointer_address(), 0o50);
        mem.deposit(0o50, INPUT | 0o1000);
        mem.deposit(0o51, 0o1007);
        assert_eq!(ch.buffer(&mem), (0o1000, 8));
        ch.advance(&mut mem, 3);
        assert_eq!(mem.read(0o50), INPUT | 0o1003);
        assert_eq!(ch.buffer(&mem), (0o1003, 5));
        ch.advance(&mut mem, 5);
        assert_eq!(ch.buffer(&mem).1, 0, "used up");
    }
}
