//! An IMP: the CPU with BBN's devices, on one integer clock, sans I/O.
//!
//! ## Driving it
//! Like a protocol core, an [`Imp`] never reads a clock and never blocks:
//!
//! * inputs: [`Imp::deliver_frame`] (a frame on a modem line, given the time its last bit
//!   arrives), [`Imp::host_send`] (a message from a host, from a given time),
//!   [`Imp::set_host_ready`];
//! * run: [`Imp::run_until`]`(t)` executes instructions, and fires device events (frame ends,
//!   clock carries, host transfers) at the instruction boundary at or after their time, until
//!   the clock reaches `t`;
//! * outputs: [`Imp::take_outputs`] — frames put on lines (with the times of their first and
//!   last bits), messages to hosts, IMP-ready changes, the lights.
//!
//! A frame is output when its transmission *starts* (its words are fixed then: the DMC takes
//! them from the buffer), carrying the time its last bit has gone; the sender's output-done
//! interrupt comes at that time, and the far IMP should be given it at that time plus the
//! line's propagation. So a driver running several IMPs may let each run ahead of the others by
//! the shortest frame time plus the propagation delay.
//!
//! ## What BBN's program 3050 does on it (measured with the emulator; see `tests/h316/imp_program.rs`)
//! On the listing's 100 µs clock: lamps lit at 6.6 s; a line to another IMP up (lights 077400)
//! at 54.5 s; IMP ready, three NOPs and a RESET to each host at 90.3 s; a remote host answers
//! "destination dead" for about 6 s more; the first message a host sends after start-up gets
//! no reply (as in SIMH). Idle lines carry a routing message (68 words) every 128 ms. IMPs
//! report to the NCC's host (IMP 5, host 1) when an IMP 5 exists. On SIMH's 20 µs clock the
//! same steps come about five times sooner (hosts greeted at 18.9 s).
//!
//! ## Order of same-time events
//! Device events at the same time fire in the order they were scheduled (a sequence number
//! breaks ties); all of them fire before the next instruction. Nothing depends on a hash or
//! a wall clock: the same inputs give the same run, instruction for instruction.

pub mod clock;
pub mod console;
pub mod host;
pub mod levels;
pub mod modem;

use crate::cpu::{Cpu, CpuConfig, Fault, Step};
use crate::io::{Bus, IoCx, IoError};
use crate::loader::Image;
use clock::{Clock, Watchdog};
use console::{Console, TTY_DEVICE, TTY_MASK_BIT};
use host::HostInterface;
use levels::{CLOCK_DEVICE, HOSTS, MLC_DEVICE, MODEMS, TASK_DEVICE, WATCHDOG_DEVICE};
use modem::Modem;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Settings of one IMP. Defaults follow SIMH's IMP configuration (`impconfig.cmd`: 16K, one
/// modem, one host, sense switches 2 and 4 set) except the clock tick (the listing's 100 µs,
/// see [`clock`]) and the line speed (the 50 kbit/s lines of the 1970s network).
#[derive(Clone, Debug)]
pub struct ImpConfig {
    /// The processor.
    pub cpu: CpuConfig,
    /// The IMP's number (`RDIMPN`), 1–63.
    pub number: u16,
    /// Modem interfaces 1–5: the line speed in bit/s if fitted. A modem not fitted ignores its
    /// instructions (no skip, no interrupt), as SIMH's disabled devices do.
    pub modems: [Option<u32>; 5],
    /// Host interfaces 1–4: the interface speed in bit/s if fitted.
    pub hosts: [Option<u32>; 4],
    /// Bits a modem frame carries beyond its words (RFC 568 item 2: 72).
    pub framing_bits: u32,
    /// The real-time clock's tick (listing: 100 µs; SIMH's configuration: 20 µs).
    pub clock_tick_ns: u64,
    /// The hardware watchdog's period, if it is to run at all (no source gives it).
    pub watchdog_ns: Option<u64>,
    /// Time the console teletype takes a character (an ASR-33: 100 ms).
    pub console_char_ns: u64,
    /// Sense switches 1–4 (SIMH's IMP configuration sets 2 and 4: 4 lets DDT run, 2 is used at
    /// start-up).
    pub sense_switches: [bool; 4],
    /// For comparison with SIMH only: start a host input only at multiples of this period, as
    /// SIMH's host interface does (it looks for the host's datagram when its unit's service
    /// runs, every `HIn POLL`; nmc's oracle runs set 250 µs). `None` (the default, and the
    /// hardware's behaviour: 1822 moves bits as soon as both sides are ready) starts an input
    /// as soon as the IMP has armed it and the host's message is there.
    pub host_input_poll_ns: Option<u64>,
}

impl Default for ImpConfig {
    fn default() -> Self {
        ImpConfig {
            cpu: CpuConfig::default(),
            number: 1,
            modems: [Some(50_000), None, None, None, None],
            hosts: [Some(100_000), None, None, None],
            framing_bits: 72,
            clock_tick_ns: 100_000,
            watchdog_ns: None,
            console_char_ns: 100_000_000,
            sense_switches: [false, true, false, true],
            host_input_poll_ns: None,
        }
    }
}

/// What an IMP did that the world sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// A frame started on modem line `line` (1–5).
    Frame {
        /// Modem line, 1–5.
        line: u8,
        /// The frame's words (framing and checksum are the hardware's, not in the words).
        words: Vec<u16>,
        /// When its first bit went.
        first_bit_ns: u64,
        /// When its last bit has gone.
        last_bit_ns: u64,
    },
    /// A frame arrived on `line` with the receiver not started, or before the IMP was switched
    /// on ([`Imp::power_on_at`]): lost.
    FrameLost {
        /// Modem line.
        line: u8,
        /// Its length in words.
        words: usize,
        /// When its last bit arrived.
        at_ns: u64,
    },
    /// A frame on modem line `line` was written to memory (its last bit arrived with the
    /// receiver armed); `words` are those written (at most the input buffer's length).
    FrameIn {
        /// Modem line, 1–5.
        line: u8,
        /// The words written.
        words: Vec<u16>,
        /// When its last bit arrived.
        at_ns: u64,
    },
    /// A message (the words of one or more outputs, the last a final output) to host `host`.
    HostMessage {
        /// Host interface, 1–4.
        host: u8,
        /// The words, leader first.
        words: Vec<u16>,
        /// When the final output (the one carrying the message's last word) started.
        final_start_ns: u64,
        /// When its last bit had gone to the host.
        last_bit_ns: u64,
    },
    /// An input from host `host` completed: the IMP has taken `words` (one buffer's worth,
    /// or the rest of the message), and the input level interrupts.
    HostInput {
        /// Host interface, 1–4.
        host: u8,
        /// The words taken.
        words: Vec<u16>,
        /// They end the message (Last-Host-Bit came with the last of them).
        eom: bool,
        /// When the transfer started (input armed and the host's message there).
        start_ns: u64,
        /// When its last bit came: the input is done.
        done_ns: u64,
    },
    /// IMP Master Ready changed on a host interface.
    ImpReady {
        /// Host interface, 1–4.
        host: u8,
        /// Now ready?
        ready: bool,
        /// When.
        at_ns: u64,
    },
    /// The console teletype printed a character.
    Console {
        /// The character (7 bits).
        byte: u8,
        /// When it was printed.
        at_ns: u64,
    },
    /// The status lights changed.
    Lights {
        /// The word sent by `LITES`.
        lights: u16,
        /// When.
        at_ns: u64,
    },
}

/// Device events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Ev {
    ModemTxDone { line: u8, epoch: u64 },
    ModemRx { line: u8, id: u64 },
    HostInputPoll { host: u8 },
    HostRxDone { host: u8, epoch: u64 },
    HostTxDone { host: u8, epoch: u64 },
    HostReady { host: u8, ready: bool },
    ClockCarry { epoch: u64 },
    WatchdogExpire { epoch: u64 },
    ConsoleDone { epoch: u64 },
}

/// The device event queue: `(time, sequence)` order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Events {
    heap: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    seq: u64,
}

impl Events {
    pub(crate) fn at(&mut self, t: u64, ev: Ev) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, ev)));
    }

    #[inline]
    pub(crate) fn next_time(&self) -> u64 {
        self.heap.peek().map_or(u64::MAX, |Reverse((t, _, _))| *t)
    }

    #[inline]
    pub(crate) fn pop_due(&mut self, now: u64) -> Option<(u64, Ev)> {
        if self.next_time() <= now {
            self.heap.pop().map(|Reverse((t, _, e))| (t, e))
        } else {
            None
        }
    }
}

/// Why an input could not be taken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// The time is before the IMP's clock: the driver let it run past it.
    #[error("input for {at_ns} ns, but the IMP's clock is already at {now_ns} ns")]
    Late {
        /// The input's time.
        at_ns: u64,
        /// The IMP's clock.
        now_ns: u64,
    },
    /// No such interface fitted.
    #[error("no {what} {index} fitted")]
    NotFitted {
        /// "modem" or "host".
        what: &'static str,
        /// The line or host number asked for.
        index: u8,
    },
}

/// Why [`Imp::run_until`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunStop {
    /// The clock reached the time asked for.
    Reached,
    /// The program halted (HLT); P is after the HLT.
    Halted {
        /// P.
        p: u16,
    },
}

/// Everything on the IMP's I/O bus.
#[derive(Clone, Debug)]
pub struct Devices {
    modems: [Option<Modem>; 5],
    hosts: [Option<HostInterface>; 4],
    clock: Clock,
    watchdog: Watchdog,
    console: Console,
    number: u16,
    events: Events,
    out: Vec<Output>,
}

impl Devices {
    fn modem_of(&self, dev: u8) -> Option<usize> {
        MODEMS.iter().position(|m| m.device == dev)
    }

    fn host_of(&self, dev: u8) -> Option<usize> {
        HOSTS.iter().position(|h| h.device == dev)
    }

    /// Modem `line` (1–5), if fitted.
    pub fn modem(&self, line: u8) -> Option<&Modem> {
        self.modems.get(line.wrapping_sub(1) as usize)?.as_ref()
    }

    /// Host interface `host` (1–4), if fitted.
    pub fn host(&self, host: u8) -> Option<&HostInterface> {
        self.hosts.get(host.wrapping_sub(1) as usize)?.as_ref()
    }

    /// The IMP's number (`RDIMPN`).
    pub fn number(&self) -> u16 {
        self.number
    }

    /// The real-time clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The watchdog and lights.
    pub fn watchdog(&self) -> &Watchdog {
        &self.watchdog
    }

    /// The console teletype.
    pub fn console(&self) -> &Console {
        &self.console
    }

    /// Fire one device event due at `now` (its own time: the CPU notices it at the next
    /// instruction boundary, but the device acted then); returns DMC half cycles stolen.
    fn fire(&mut self, now: u64, ev: Ev, cpu: &mut Cpu) -> u64 {
        let (mem, irq) = (&mut cpu.mem, &mut cpu.irq);
        match ev {
            Ev::ModemTxDone { line, epoch } => self.modems[line as usize - 1]
                .as_mut()
                .map_or(0, |m| m.tx_done(epoch, mem, irq)),
            Ev::ModemRx { line, id } => self.modems[line as usize - 1]
                .as_mut()
                .map_or(0, |m| m.rx(id, now, mem, irq, &mut self.out)),
            Ev::HostInputPoll { host } => {
                if let Some(h) = self.hosts[host as usize - 1].as_mut() {
                    h.try_input(now, mem, &mut self.events);
                }
                0
            }
            Ev::HostRxDone { host, epoch } => self.hosts[host as usize - 1]
                .as_mut()
                .map_or(0, |h| h.rx_done(epoch, now, mem, irq, &mut self.out)),
            Ev::HostTxDone { host, epoch } => {
                self.hosts[host as usize - 1].as_mut().map_or(0, |h| {
                    h.tx_done(epoch, now, mem, irq, &mut self.events, &mut self.out)
                })
            }
            Ev::HostReady { host, ready } => {
                if let Some(h) = self.hosts[host as usize - 1].as_mut() {
                    h.set_host_ready(ready);
                }
                0
            }
            Ev::ClockCarry { epoch } => {
                self.clock.carry(epoch, now, irq, &mut self.events);
                0
            }
            Ev::WatchdogExpire { epoch } => {
                self.watchdog.expire(epoch, irq);
                0
            }
            Ev::ConsoleDone { epoch } => {
                self.console.done(epoch, now, irq, &mut self.out);
                0
            }
        }
    }
}

impl Bus for Devices {
    fn ocp(&mut self, cx: &mut IoCx<'_>, dev: u8, func: u8) -> Result<(), IoError> {
        let now = cx.now_ns;
        let ok = if let Some(i) = self.modem_of(dev) {
            match self.modems[i].as_mut() {
                Some(m) => m.ocp(func, now, cx.mem, cx.irq, &mut self.events, &mut self.out),
                None => true,
            }
        } else if let Some(i) = self.host_of(dev) {
            match self.hosts[i].as_mut() {
                Some(h) => h.ocp(func, now, cx.mem, cx.irq, &mut self.events, &mut self.out),
                None => true,
            }
        } else {
            match dev {
                CLOCK_DEVICE => self.clock.ocp(func, now, cx.irq, &mut self.events),
                TTY_DEVICE => self.console.ocp(func, now, cx.irq, &mut self.events),
                TASK_DEVICE if func == 0 => {
                    clock::task(cx.irq);
                    true
                }
                WATCHDOG_DEVICE if func == 0 => {
                    self.watchdog.restart(now, &mut self.events);
                    true
                }
                TASK_DEVICE | WATCHDOG_DEVICE => false,
                _ => return Err(IoError::NoDevice),
            }
        };
        if ok { Ok(()) } else { Err(IoError::NoFunction) }
    }

    fn sks(&mut self, cx: &mut IoCx<'_>, dev: u8, func: u8) -> Result<bool, IoError> {
        let r = if let Some(i) = self.modem_of(dev) {
            match &self.modems[i] {
                Some(m) => m.sks(func),
                None => Some(false),
            }
        } else if let Some(i) = self.host_of(dev) {
            match &self.hosts[i] {
                Some(h) => h.sks(func),
                None => Some(false),
            }
        } else {
            match (dev, func) {
                (TTY_DEVICE, _) => self
                    .console
                    .sks(func, cx.irq.standard_requesting(TTY_MASK_BIT)),
                // AMIMLC: not a TIP.
                (MLC_DEVICE, 0) => Some(false),
                // AMI516.
                (WATCHDOG_DEVICE, 0) => Some(cx.model == crate::timing::Model::H516),
                (MLC_DEVICE | WATCHDOG_DEVICE, _) => None,
                _ => return Err(IoError::NoDevice),
            }
        };
        r.ok_or(IoError::NoFunction)
    }

    fn ina(&mut self, cx: &mut IoCx<'_>, dev: u8, func: u8) -> Result<Option<u16>, IoError> {
        match (dev, func) {
            (TTY_DEVICE, _) => self.console.ina(func, cx.irq).ok_or(IoError::NoFunction),
            // RDCLOK (INA 1040; the clear bit is the CPU's).
            (CLOCK_DEVICE, 0) => Ok(Some(self.clock.count(cx.now_ns))),
            // RDIMPN (INA 1041).
            (TASK_DEVICE, 0) => Ok(Some(self.number)),
            (CLOCK_DEVICE | TASK_DEVICE, _) => Err(IoError::NoFunction),
            _ if self.modem_of(dev).is_some() || self.host_of(dev).is_some() => {
                Err(IoError::NoFunction)
            }
            _ => Err(IoError::NoDevice),
        }
    }

    fn ota(&mut self, cx: &mut IoCx<'_>, dev: u8, func: u8, a: u16) -> Result<bool, IoError> {
        match (dev, func) {
            (TTY_DEVICE, _) => self
                .console
                .ota(func, a, cx.now_ns, cx.irq, &mut self.events)
                .ok_or(IoError::NoFunction),
            // LITES (OTA 26): taken, so skips.
            (WATCHDOG_DEVICE, 0) => {
                self.watchdog.set_lights(a, cx.now_ns, &mut self.out);
                Ok(true)
            }
            (WATCHDOG_DEVICE, _) => Err(IoError::NoFunction),
            _ if self.modem_of(dev).is_some() || self.host_of(dev).is_some() => {
                Err(IoError::NoFunction)
            }
            _ => Err(IoError::NoDevice),
        }
    }
}

/// One IMP.
#[derive(Clone, Debug)]
pub struct Imp {
    /// The processor and its memory.
    pub cpu: Cpu,
    /// The devices.
    pub devices: Devices,
    /// Opt-in profile ([`Imp::set_profile`]): ns spent per instruction address.
    profile: Option<Vec<u64>>,
    /// Opt-in watch ([`Imp::set_watch`]).
    watch: Option<Watch>,
    /// When it was switched on ([`Imp::power_on_at`]); 0 unless set.
    on_ns: u64,
}

/// A watch on instruction addresses ([`Imp::set_watch`]).
#[derive(Clone, Debug)]
struct Watch {
    /// Watched, by address.
    at: Vec<bool>,
    /// Memory words to copy at each.
    peek: Vec<u16>,
    /// What was seen, in time order.
    seen: Vec<Watched>,
}

/// The program about to execute a watched instruction ([`Imp::set_watch`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Watched {
    /// The IMP's clock (ns).
    pub t_ns: u64,
    /// The instruction's address (P).
    pub p: u16,
    /// The A register.
    pub a: u16,
    /// The index register.
    pub x: u16,
    /// The words asked for, in the order asked.
    pub peek: Vec<u16>,
}

impl Imp {
    /// An IMP with empty memory; [`Imp::load`] a program before running it.
    pub fn new(config: &ImpConfig) -> Imp {
        let mut cpu = Cpu::new(config.cpu.clone());
        cpu.sense = config.sense_switches;
        let modems = std::array::from_fn(|i| {
            config.modems[i].map(|bps| Modem::new(i as u8 + 1, MODEMS[i], bps, config.framing_bits))
        });
        let hosts = std::array::from_fn(|i| {
            config.hosts[i].map(|bps| {
                HostInterface::new(i as u8 + 1, HOSTS[i], bps)
                    .with_input_poll(config.host_input_poll_ns)
            })
        });
        Imp {
            cpu,
            devices: Devices {
                modems,
                hosts,
                clock: Clock::new(config.clock_tick_ns),
                watchdog: Watchdog::new(config.watchdog_ns),
                console: Console::new(config.console_char_ns),
                number: config.number,
                events: Events::default(),
                out: Vec::new(),
            },
            profile: None,
            watch: None,
            on_ns: 0,
        }
    }

    /// Switch the IMP on at `t_ns` rather than at 0: its processor starts there, from the
    /// loaded start address, as a machine powered on (or loaded) later than its neighbours. Call
    /// it once, after [`Imp::load`] and before running. Until then the machine is off: a frame
    /// whose last bit arrives before `t_ns` is lost ([`Output::FrameLost`], counted as the
    /// modem's `lost`), as nothing is there to receive it. Everything the program does with its
    /// clock — the real-time clock's base, its fast and slow ticks — follows from where it
    /// started, so each IMP's ticks fall at its own phase.
    pub fn power_on_at(&mut self, t_ns: u64) {
        self.cpu.idle_until(t_ns);
        self.on_ns = self.cpu.now_ns();
    }

    /// When the IMP was switched on ([`Imp::power_on_at`]; 0 by default).
    pub fn on_ns(&self) -> u64 {
        self.on_ns
    }

    /// Watch instruction addresses `at` (a diagnosis, `nmc oracle emulate --watch`): each time
    /// the program is about to execute one of them, the time, P, A, X and the memory words at
    /// `peek` are kept ([`Imp::take_watched`]). A subroutine entered by `JST` starts at its
    /// label + 1. Nothing else changes: the run is the same step for step. An empty `at`
    /// switches it off.
    pub fn set_watch(&mut self, at: &[u16], peek: &[u16]) {
        self.watch = (!at.is_empty()).then(|| {
            let mut w = vec![false; 1 << 16];
            for &a in at {
                w[a as usize] = true;
            }
            Watch {
                at: w,
                peek: peek.to_vec(),
                seen: Vec::new(),
            }
        });
    }

    /// What the watch has seen so far ([`Imp::set_watch`]), and start again.
    pub fn take_watched(&mut self) -> Vec<Watched> {
        self.watch
            .as_mut()
            .map(|w| std::mem::take(&mut w.seen))
            .unwrap_or_default()
    }

    /// Count the time spent at each instruction address (off by default; a diagnosis of where
    /// the program's time goes, `nmc oracle emulate --profile`). Each step's time — the
    /// instruction's cycles, DMC cycles charged with it, an interrupt's entry — goes to the
    /// address P held before the step (for an interrupt, the interrupted instruction's).
    /// Switching it on starts from zero; off drops the counts.
    pub fn set_profile(&mut self, on: bool) {
        self.profile = on.then(|| vec![0; crate::memory::MAX_WORDS]);
    }

    /// The profile so far (ns per address, indexed by address), and start again from zero;
    /// `None` if profiling is off.
    pub fn take_profile(&mut self) -> Option<Vec<u64>> {
        let p = self.profile.as_mut()?;
        let out = p.clone();
        p.fill(0);
        Some(out)
    }

    /// Load a core image and set P to its start address.
    pub fn load(&mut self, image: &Image) {
        image.apply(&mut self.cpu.mem);
        if let Some(p) = image.start {
            self.cpu.set_p(p);
        }
    }

    /// The clock (ns).
    pub fn now_ns(&self) -> u64 {
        self.cpu.now_ns()
    }

    /// Run until the clock reaches `until_ns` (or the program halts).
    pub fn run_until(&mut self, until_ns: u64) -> Result<RunStop, Fault> {
        loop {
            let now = self.cpu.now_ns();
            while let Some((t, ev)) = self.devices.events.pop_due(now) {
                let stolen = self.devices.fire(t, ev, &mut self.cpu);
                self.cpu.steal(stolen);
            }
            if now >= until_ns {
                return Ok(RunStop::Reached);
            }
            let limit = until_ns.min(self.devices.events.next_time());
            if self.cpu.halted() {
                return Ok(RunStop::Halted { p: self.cpu.p() });
            }
            if self.profile.is_some() || self.watch.is_some() {
                while self.cpu.now_ns() < limit.min(self.devices.events.next_time()) {
                    let (p, t0) = (self.cpu.p(), self.cpu.now_ns());
                    if let Some(w) = self.watch.as_mut()
                        && w.at[p as usize]
                    {
                        let peek = w.peek.iter().map(|&a| self.cpu.mem.read(a)).collect();
                        w.seen.push(Watched {
                            t_ns: t0,
                            p,
                            a: self.cpu.a,
                            x: self.cpu.x(),
                            peek,
                        });
                    }
                    let step = self.cpu.step(&mut self.devices)?;
                    if let Some(prof) = self.profile.as_mut() {
                        let n = prof.len();
                        prof[p as usize % n] += self.cpu.now_ns() - t0;
                    }
                    if step == Step::Halted {
                        break;
                    }
                }
            } else {
                while self.cpu.now_ns() < limit.min(self.devices.events.next_time()) {
                    if self.cpu.step(&mut self.devices)? == Step::Halted {
                        break;
                    }
                }
            }
        }
    }

    /// Give modem `line` (1–5) a frame whose last bit arrives at `last_bit_ns`; `ok` false if
    /// the line corrupted it (the interface's checksum fails: `MnERR`).
    pub fn deliver_frame(
        &mut self,
        line: u8,
        words: Vec<u16>,
        last_bit_ns: u64,
        ok: bool,
    ) -> Result<(), InputError> {
        let now_ns = self.now_ns();
        let m = self
            .devices
            .modems
            .get_mut(line.wrapping_sub(1) as usize)
            .and_then(Option::as_mut)
            .ok_or(InputError::NotFitted {
                what: "modem",
                index: line,
            })?;
        if last_bit_ns < self.on_ns {
            // Switched off (`power_on_at`): nothing receives it.
            m.stats.lost += 1;
            self.devices.out.push(Output::FrameLost {
                line,
                words: words.len(),
                at_ns: last_bit_ns,
            });
            return Ok(());
        }
        if last_bit_ns < now_ns {
            return Err(InputError::Late {
                at_ns: last_bit_ns,
                now_ns,
            });
        }
        m.arrive(words, ok, last_bit_ns, &mut self.devices.events);
        Ok(())
    }

    /// Host `host` (1–4) offers a message (leader first) from `at_ns`.
    pub fn host_send(&mut self, host: u8, words: Vec<u16>, at_ns: u64) -> Result<(), InputError> {
        let now_ns = self.now_ns();
        if at_ns < now_ns {
            return Err(InputError::Late { at_ns, now_ns });
        }
        let h = self
            .devices
            .hosts
            .get_mut(host.wrapping_sub(1) as usize)
            .and_then(Option::as_mut)
            .ok_or(InputError::NotFitted {
                what: "host",
                index: host,
            })?;
        h.offer(words, at_ns, &mut self.devices.events);
        Ok(())
    }

    /// Host `host` raises or drops Host Master Ready at `at_ns`.
    pub fn set_host_ready(&mut self, host: u8, ready: bool, at_ns: u64) -> Result<(), InputError> {
        let now_ns = self.now_ns();
        if at_ns < now_ns {
            return Err(InputError::Late { at_ns, now_ns });
        }
        if self.devices.host(host).is_none() {
            return Err(InputError::NotFitted {
                what: "host",
                index: host,
            });
        }
        self.devices.events.at(at_ns, Ev::HostReady { host, ready });
        Ok(())
    }

    /// Outputs since the last call, in the order they happened.
    pub fn take_outputs(&mut self) -> Vec<Output> {
        std::mem::take(&mut self.devices.out)
    }
}
