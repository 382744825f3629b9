//! The IMP's real-time clock, its watchdog and status lights, and the task device.
//!
//! ## Real-time clock (device 40)
//! BBN's own clock (not Honeywell's H316-12 option): a 16-bit counter read by `RDCLOK`
//! (INA 1040), started by `CLKON` (OCP 40) and stopped by `CLKOFF` (OCP 1040); each carry out
//! of the counter's low byte interrupts on the clock level (vector 102, `CLOKIL`).
//!
//! **Tick: 100 µs by default.** The listing's comments give the clock's unit as 100 µs in
//! several places (paraphrased): the line-timing code reads it as a 100 µs clock; a
//! retransmission is due after 1250 counts, which it calls 125 ms; one slow timeout, 6400
//! counts, is 640 ms; and the 16-bit count wraps 10.24 times per 640 ms tick
//! (65536 × 100 µs = 10.24 × 640 ms). The clock interrupt thus comes every 25.6 ms (256
//! counts) and the program's slow tick, every 25th, every 640 ms. Run on this clock, an idle
//! line carries a routing message every 128 ms, as RFC 619 (Dec 1973) reports of the network.
//! SIMH's IMP configuration (`impconfig.cmd`, `SET RTC INTERVAL=20`) counts every 20 µs
//! instead — five times fast: all the program's
//! timeouts then run five times short. The tick is a parameter so a run can match either.
//!
//! ## Watchdog and lights (device 26)
//! `WDT` (OCP 26) restarts the hardware watchdog; should it run out, the machine takes a JST*
//! through location 62 (`WDTIL`), where the program reloads itself. No source gives the
//! watchdog's period: it is a parameter, off by default (as in SIMH's IMP configuration,
//! `SET WDT DELAY=0`). `LITES` (OTA 26) sets the status lights (the program's lamp test and its
//! "line up" display: a light off means all is well). `AMI516` (SKS 26) skips on a 516.
//!
//! ## Task device (41, 42)
//! `TASK` (OCP 41) requests the task level (vector 103, `TASKIL`): the program's way to run its
//! background task at interrupt priority. `RDIMPN` (INA 1041) reads the IMP's number (set by
//! switches on the real machine). `AMIMLC` (SKS 42) skips on a TIP (a multi-line controller):
//! never, here.

use super::levels::{CLOCK_LEVEL, TASK_LEVEL};
use super::{Ev, Events, Output};
use crate::interrupt::Interrupts;

/// The real-time clock.
#[derive(Clone, Debug)]
pub struct Clock {
    tick_ns: u64,
    running: bool,
    /// Time (ns) at which the count was 0, while running (may be before time 0).
    base_ns: i128,
    frozen: u16,
    epoch: u64,
}

impl Clock {
    pub(crate) fn new(tick_ns: u64) -> Clock {
        Clock {
            tick_ns: tick_ns.max(1),
            running: false,
            base_ns: 0,
            frozen: 0,
            epoch: 0,
        }
    }

    fn ticks(&self, now: u64) -> i128 {
        (now as i128 - self.base_ns).div_euclid(self.tick_ns as i128)
    }

    /// The count at `now`.
    pub fn count(&self, now: u64) -> u16 {
        if self.running {
            self.ticks(now) as u16
        } else {
            self.frozen
        }
    }

    fn arm(&mut self, now: u64, events: &mut Events) {
        let next = (self.ticks(now).div_euclid(256) + 1) * 256;
        let at = self.base_ns + next * self.tick_ns as i128;
        events.at(at.max(0) as u64, Ev::ClockCarry { epoch: self.epoch });
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
                if !self.running {
                    self.base_ns = now as i128 - self.frozen as i128 * self.tick_ns as i128;
                    self.running = true;
                    self.epoch += 1;
                    self.arm(now, events);
                }
                irq.withdraw(CLOCK_LEVEL);
            }
            0o10 => {
                self.frozen = self.count(now);
                self.running = false;
                self.epoch += 1;
                irq.withdraw(CLOCK_LEVEL);
            }
            _ => return false,
        }
        true
    }

    /// A carry out of the low byte.
    pub(crate) fn carry(
        &mut self,
        epoch: u64,
        now: u64,
        irq: &mut Interrupts,
        events: &mut Events,
    ) {
        if epoch == self.epoch && self.running {
            irq.request(CLOCK_LEVEL);
            self.arm(now, events);
        }
    }
}

/// The watchdog timer and the status lights.
#[derive(Clone, Debug)]
pub struct Watchdog {
    timeout_ns: Option<u64>,
    epoch: u64,
    lights: u16,
}

impl Watchdog {
    pub(crate) fn new(timeout_ns: Option<u64>) -> Watchdog {
        Watchdog {
            timeout_ns,
            epoch: 0,
            lights: 0,
        }
    }

    /// The lights as last set.
    pub fn lights(&self) -> u16 {
        self.lights
    }

    /// `WDT`: restart the countdown.
    pub(crate) fn restart(&mut self, now: u64, events: &mut Events) {
        self.epoch += 1;
        if let Some(t) = self.timeout_ns {
            events.at(now + t, Ev::WatchdogExpire { epoch: self.epoch });
        }
    }

    /// `LITES`.
    pub(crate) fn set_lights(&mut self, lights: u16, now: u64, out: &mut Vec<Output>) {
        if lights != self.lights {
            self.lights = lights;
            out.push(Output::Lights { lights, at_ns: now });
        }
    }

    pub(crate) fn expire(&mut self, epoch: u64, irq: &mut Interrupts) {
        if epoch == self.epoch {
            irq.request_watchdog();
        }
    }
}

/// `TASK`: request the task level.
pub(crate) fn task(irq: &mut Interrupts) {
    irq.request(TASK_LEVEL);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_counts_100_us_and_interrupts_every_256_counts() {
        let mut c = Clock::new(100_000);
        let (mut irq, mut ev) = (Interrupts::default(), Events::default());
        assert_eq!(c.count(5_000_000), 0, "stopped until CLKON");
        c.ocp(0, 1_000_000, &mut irq, &mut ev);
        assert_eq!(c.count(1_000_000 + 12_345_678), 123);
        let (t, e) = ev.pop_due(u64::MAX).unwrap();
        assert_eq!(t, 1_000_000 + 25_600_000, "25.6 ms");
        let Ev::ClockCarry { epoch } = e else {
            panic!()
        };
        c.carry(epoch, t, &mut irq, &mut ev);
        assert!(irq.requesting(CLOCK_LEVEL));
        assert_eq!(ev.pop_due(u64::MAX).unwrap().0, 1_000_000 + 51_200_000);
        // Off: the count holds; on again: it continues from there.
        c.ocp(0o10, 1_000_000 + 30_000_000, &mut irq, &mut ev);
        assert_eq!(c.count(99_000_000), 300);
        c.ocp(0, 100_000_000, &mut irq, &mut ev);
        assert_eq!(c.count(100_000_000 + 100_000), 301);
        let (t, e) = ev.pop_due(u64::MAX).unwrap();
        let Ev::ClockCarry { epoch } = e else {
            panic!()
        };
        c.carry(epoch, t, &mut irq, &mut ev);
        assert_eq!(
            t,
            100_000_000 + (512 - 300) * 100_000,
            "the next carry, at count 512"
        );
    }

    #[test]
    fn the_watchdog_breaks_only_if_not_restarted() {
        let mut w = Watchdog::new(Some(1_000));
        let (mut irq, mut ev) = (Interrupts::default(), Events::default());
        w.restart(0, &mut ev);
        w.restart(500, &mut ev);
        let (_, Ev::WatchdogExpire { epoch }) = ev.pop_due(u64::MAX).unwrap() else {
            panic!()
        };
        w.expire(epoch, &mut irq);
        let (t, Ev::WatchdogExpire { epoch }) = ev.pop_due(u64::MAX).unwrap() else {
            panic!()
        };
        assert_eq!(t, 1_500);
        w.expire(epoch, &mut irq);
        irq.enable();
        assert_eq!(irq.take(), Some(0o62));
    }
}
