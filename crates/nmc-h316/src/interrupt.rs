//! The interrupt system: the standard interrupt, the 16 priority levels the IMP used, and the
//! watchdog's break.
//!
//! ## Rules
//!
//! * **ENB / INH** (DDP-516 PRM, generic instructions: "enable / inhibit program interrupt"):
//!   interrupts are taken only while enabled, and not until the instruction after the ENB has
//!   run (so `ENB; JMP* return` leaves a handler before the next interrupt). Taking an interrupt
//!   inhibits further ones.
//! * **Standard interrupt** (PRM, interrupt section; location 63): every device's request is
//!   gated by its bit of the standard mask (`SMK 20`) and they share the JST* through 63. The
//!   request is level-sensitive: it stays until the device drops it.
//! * **Priority interrupt option** (Honeywell *316 Interfacing*, ch. 4 "Priority Interrupts"):
//!   levels 1–16 each have their own vector, 63+n, and their mask bit in `SMK 120`: level 1 is
//!   the mask word's bit 1 (0100000), level 16 its bit 16 (1). The lowest-numbered requesting
//!   level wins. A request is an edge: granting it clears it. (SIMH's IMP support reads the
//!   Interfacing manual the same way, and the IMP program never clears its modem-output, task or
//!   clock requests itself.) The standard interrupt is served before the priority levels.
//! * **The IMP's levels** (IMP listing 3050, the interrupt-location symbols of its definitions
//!   page): modem input 1–5 at 64–70, modem output 1–5 at 71–75, host output 1–2 at 76–77,
//!   host input 1–2 at 100–101, clock at 102, task at 103; host 3 and 4 share vectors with
//!   modems 5 and 4. They are tabled in [`crate::imp::levels`].
//! * **Watchdog break** (listing: the watchdog's interrupt location is 62): a JST* through 62
//!   taken whatever the enable state, as the memory-lockout violation break of the same
//!   location is (Wise, `cpu.cpp`).
//!
//! When an interrupt is taken the CPU also saves the extend mode and enters extend mode
//! ([`crate::cpu`]).

/// Vector of the standard interrupt (PRM: location 63).
pub const STANDARD_VECTOR: u16 = 0o63;
/// Vector of the watchdog (IMP listing: WDTIL = 62).
pub const WATCHDOG_VECTOR: u16 = 0o62;

/// A priority level, 1 (highest) to 16.
pub type Level = u8;

/// The interrupt state the CPU and the devices share.
#[derive(Clone, Debug, Default)]
pub struct Interrupts {
    enabled: bool,
    /// False from an ENB until the next instruction has been fetched.
    armed: bool,
    standard_mask: u16,
    standard_requests: u16,
    priority_mask: u16,
    priority_requests: u16,
    watchdog: bool,
}

impl Interrupts {
    /// Mask bit of a priority level (level 1: 0100000 … level 16: 1).
    #[inline]
    pub const fn level_bit(level: Level) -> u16 {
        0o100000 >> (level - 1)
    }

    /// Vector of a priority level: 63 + level.
    #[inline]
    pub const fn level_vector(level: Level) -> u16 {
        STANDARD_VECTOR + level as u16
    }

    /// ENB.
    pub fn enable(&mut self) {
        self.enabled = true;
        self.armed = false;
    }

    /// INH (also done by taking an interrupt).
    pub fn inhibit(&mut self) {
        self.enabled = false;
    }

    /// Whether interrupts are enabled (ENB given, not yet inhibited).
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// An instruction has been fetched: an ENB's deferral is over.
    #[inline]
    pub(crate) fn fetched(&mut self) {
        self.armed = true;
    }

    /// SMK 20: the standard interrupt mask.
    pub fn set_standard_mask(&mut self, mask: u16) {
        self.standard_mask = mask;
    }

    /// SMK 120: the mask of priority levels 1–16.
    pub fn set_priority_mask(&mut self, mask: u16) {
        self.priority_mask = mask;
    }

    /// The priority mask (for tests and traces).
    pub fn priority_mask(&self) -> u16 {
        self.priority_mask
    }

    /// A device raises (or drops) its standard-interrupt request line `bit`.
    pub fn set_standard_request(&mut self, bit: u16, on: bool) {
        if on {
            self.standard_requests |= bit;
        } else {
            self.standard_requests &= !bit;
        }
    }

    /// Whether standard-interrupt line `bit` is requesting and unmasked.
    pub fn standard_requesting(&self, bit: u16) -> bool {
        self.standard_requests & self.standard_mask & bit != 0
    }

    /// A device's edge on priority level `level`.
    #[inline]
    pub fn request(&mut self, level: Level) {
        self.priority_requests |= Self::level_bit(level);
    }

    /// Withdraw a request not yet granted (a device reset).
    #[inline]
    pub fn withdraw(&mut self, level: Level) {
        self.priority_requests &= !Self::level_bit(level);
    }

    /// Whether level `level` is requesting.
    pub fn requesting(&self, level: Level) -> bool {
        self.priority_requests & Self::level_bit(level) != 0
    }

    /// The watchdog timed out.
    pub fn request_watchdog(&mut self) {
        self.watchdog = true;
    }

    /// The vector of the interrupt to take before the next fetch, if any; granting it clears an
    /// edge request and inhibits interrupts.
    #[inline]
    pub(crate) fn take(&mut self) -> Option<u16> {
        if self.watchdog {
            self.watchdog = false;
            self.enabled = false;
            return Some(WATCHDOG_VECTOR);
        }
        if !(self.enabled && self.armed) {
            return None;
        }
        if self.standard_requests & self.standard_mask != 0 {
            self.enabled = false;
            return Some(STANDARD_VECTOR);
        }
        let pending = self.priority_requests & self.priority_mask;
        if pending == 0 {
            return None;
        }
        let level = pending.leading_zeros() as u8 + 1;
        self.priority_requests &= !Self::level_bit(level);
        self.enabled = false;
        Some(Self::level_vector(level))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_level_wins_and_its_edge_is_consumed() {
        let mut i = Interrupts::default();
        i.set_priority_mask(0o177777);
        i.request(15);
        i.request(6);
        i.enable();
        assert_eq!(
            i.take(),
            None,
            "not before the instruction after ENB is fetched"
        );
        i.fetched();
        assert_eq!(
            i.take(),
            Some(0o71),
            "level 6 (modem 1 output) before 15 (clock)"
        );
        assert_eq!(i.take(), None, "taking inhibits");
        i.enable();
        i.fetched();
        assert_eq!(i.take(), Some(0o102));
        i.enable();
        i.fetched();
        assert_eq!(i.take(), None, "edges are consumed");
    }

    #[test]
    fn masked_levels_wait() {
        let mut i = Interrupts::default();
        i.request(1);
        i.enable();
        i.fetched();
        assert_eq!(i.take(), None);
        i.set_priority_mask(Interrupts::level_bit(1));
        assert_eq!(i.take(), Some(0o64));
    }
}
