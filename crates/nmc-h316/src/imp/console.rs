//! The console teletype (ASR-33 on device 4, the 516's standard "ASR interface"), on the
//! standard interrupt (mask bit 040: the IMP program enables the TTY alone by loading 40 into
//! the standard mask). The IMP program uses it as its fake host 0 and for DDT.
//!
//! | instruction | what |
//! | --- | --- |
//! | OCP 4 (`TTSIM`) | input mode: not ready, not busy |
//! | OCP 104 (`TTSOM`) | output mode: a dummy character time, then ready (and interrupting) |
//! | SKS 4 (`TTSRDY`) | skip if ready |
//! | SKS 104 (`TTSNBZ`) | skip if not busy |
//! | SKS 404 | skip if not interrupting |
//! | SKS 504 (`TTSNSC`) | skip unless the input character is XOFF |
//! | INA 4, 204 (`TTINA`, `TTINB`) | the character (all 8 bits, or 6), if ready |
//! | OTA 4, 204 (`TTOTA`, `TTOTB`) | print a character (204: 6-bit code) if ready; ready again, interrupting, one character time later |
//!
//! Behaviour as SIMH's `h316_stddev.c` models the ASR interface (no Honeywell manual page for
//! it was at hand). Nobody types here: input never becomes ready. A character takes 100 ms by
//! default (an ASR-33 prints ten a second), a parameter.

use super::{Ev, Events, Output};
use crate::interrupt::Interrupts;

/// The TTY's bit in the standard interrupt mask.
pub const TTY_MASK_BIT: u16 = 0o40;
/// The TTY's device code.
pub const TTY_DEVICE: u8 = 0o4;
const XOFF: u16 = 0o23;

/// The console teletype.
#[derive(Clone, Debug)]
pub struct Console {
    char_ns: u64,
    output_mode: bool,
    ready: bool,
    busy: bool,
    buf: u16,
    epoch: u64,
    pending: Option<u8>,
    /// Everything printed so far.
    pub printed: Vec<u8>,
}

impl Console {
    pub(crate) fn new(char_ns: u64) -> Console {
        Console {
            char_ns,
            output_mode: false,
            ready: false,
            busy: false,
            buf: 0,
            epoch: 0,
            pending: None,
            printed: Vec::new(),
        }
    }

    fn request(&self, irq: &mut Interrupts, on: bool) {
        irq.set_standard_request(TTY_MASK_BIT, on);
    }

    pub(crate) fn ocp(
        &mut self,
        func: u8,
        now: u64,
        irq: &mut Interrupts,
        events: &mut Events,
    ) -> bool {
        match func {
            0 => {
                self.output_mode = false;
                self.ready = false;
                self.busy = false;
                self.epoch += 1;
            }
            1 => {
                self.output_mode = true;
                self.ready = true;
                self.busy = true;
                self.pending = None;
                self.epoch += 1;
                events.at(now + self.char_ns, Ev::ConsoleDone { epoch: self.epoch });
            }
            _ => return false,
        }
        self.request(irq, false);
        true
    }

    pub(crate) fn sks(&self, func: u8, irq_pending: bool) -> Option<bool> {
        match func {
            0 => Some(self.ready),
            1 => Some(!self.busy),
            4 => Some(!irq_pending),
            5 => Some(self.output_mode || self.buf & 0o177 != XOFF),
            _ => None,
        }
    }

    pub(crate) fn ina(&mut self, func: u8, irq: &mut Interrupts) -> Option<Option<u16>> {
        match func {
            0 | 2 => {
                if self.ready {
                    self.ready = false;
                    self.request(irq, false);
                    Some(Some(self.buf & if func == 2 { 0o77 } else { 0o377 }))
                } else {
                    Some(None)
                }
            }
            _ => None,
        }
    }

    pub(crate) fn ota(
        &mut self,
        func: u8,
        a: u16,
        now: u64,
        irq: &mut Interrupts,
        events: &mut Events,
    ) -> Option<bool> {
        match func {
            0 | 2 => {
                if !self.ready {
                    return Some(false);
                }
                let mut c = a & 0o377;
                if func == 2 {
                    // 6-bit code to ASCII: set bit 7, clear 6 if 5 was set.
                    c |= 0o100;
                    if c & 0o40 != 0 {
                        c &= 0o277;
                    }
                }
                self.buf = c;
                self.ready = false;
                self.busy = true;
                self.pending = Some(c as u8);
                self.request(irq, false);
                self.epoch += 1;
                events.at(now + self.char_ns, Ev::ConsoleDone { epoch: self.epoch });
                Some(true)
            }
            _ => None,
        }
    }

    /// A character time has passed.
    pub(crate) fn done(
        &mut self,
        epoch: u64,
        now: u64,
        irq: &mut Interrupts,
        out: &mut Vec<Output>,
    ) {
        if epoch != self.epoch {
            return;
        }
        if let Some(c) = self.pending.take() {
            self.printed.push(c & 0o177);
            out.push(Output::Console {
                byte: c & 0o177,
                at_ns: now,
            });
        }
        self.busy = false;
        self.ready = true;
        self.request(irq, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_prints_one_character_time_after_ota_and_interrupts() {
        let mut c = Console::new(100_000_000);
        let (mut irq, mut ev, mut out) = (Interrupts::default(), Events::default(), Vec::new());
        c.ocp(1, 0, &mut irq, &mut ev);
        assert_eq!(c.sks(0, false), Some(true), "ready at once in output mode");
        assert_eq!(c.ota(0, 0o301, 10, &mut irq, &mut ev), Some(true));
        assert_eq!(c.ota(0, 0o302, 20, &mut irq, &mut ev), Some(false), "busy");
        // The first (dummy) cycle's event is stale now.
        while let Some((t, Ev::ConsoleDone { epoch })) = ev.pop_due(u64::MAX) {
            c.done(epoch, t, &mut irq, &mut out);
        }
        assert_eq!(
            out,
            [Output::Console {
                byte: b'A',
                at_ns: 100_000_010
            }]
        );
        assert_eq!(c.sks(0, false), Some(true));
        irq.set_standard_mask(TTY_MASK_BIT);
        irq.enable();
        irq.fetched();
        assert_eq!(irq.take(), Some(0o63), "the standard interrupt");
    }
}
