//! A small harness: several IMPs joined by modem lines, run in lockstep windows, with a trace
//! of everything seen outside the machines (frames on lines, messages to hosts, lights).
//!
//! It is the crate's own test bed (two IMPs, one line, a host or two) and the benchmark's
//! network (`nmc oracle bench`: a 10-IMP chain, the 42 IMPs of the 1974 map), not nmc's subnet
//! model: a line joins any two modems, runs at its modems' speed with its own propagation delay,
//! and never corrupts a frame.
//!
//! ## Lockstep
//! Every IMP runs to the end of the same window; then the frames they started are handed to
//! the far ends, arriving at last bit + propagation. A frame started in a window cannot arrive
//! before the window's end if the window is no longer than the shortest frame (its framing
//! bits alone) plus the propagation delay ([`Subnet::lookahead_ns`]). An IMP's clock passes the
//! window's end by up to one instruction and one DMC word (tens of µs); the window is half the
//! lookahead, which leaves hundreds.
//! Host messages an IMP sends are collected per host for the caller, who may answer them from
//! the next window on.
//!
//! ## Trace
//! One line per event, in time order (ties: IMP index, then the order the IMP produced them):
//! `t_ns imp EVENT details`. Two runs from the same program and inputs give the same bytes.

use crate::cpu::Fault;
use crate::imp::{Imp, InputError, Output, RunStop};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A line between modem `line_a` of IMP `a` and modem `line_b` of IMP `b` (indexes into the
/// subnet's IMPs; lines 1–5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    /// First end: IMP index and modem line.
    pub a: (usize, u8),
    /// Second end.
    pub b: (usize, u8),
    /// One-way propagation delay.
    pub propagation_ns: u64,
}

/// Why a subnet run stopped early.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SubnetError {
    /// An IMP's program faulted.
    #[error("IMP {imp} at {at_ns} ns: {fault}")]
    Fault {
        /// IMP index.
        imp: usize,
        /// When.
        at_ns: u64,
        /// What.
        fault: Fault,
    },
    /// An IMP's program halted.
    #[error("IMP {imp} halted at {at_ns} ns (P = {p:05o})")]
    Halted {
        /// IMP index.
        imp: usize,
        /// When.
        at_ns: u64,
        /// P after the HLT.
        p: u16,
    },
    /// An input could not be given (a harness bug: the window was too long).
    #[error("IMP {imp}: {error}")]
    Input {
        /// IMP index.
        imp: usize,
        /// What.
        error: InputError,
    },
}

/// A message an IMP gave one of its hosts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostDelivery {
    /// IMP index.
    pub imp: usize,
    /// Host interface, 1–4.
    pub host: u8,
    /// The words, leader first.
    pub words: Vec<u16>,
    /// When the last bit reached the host.
    pub at_ns: u64,
}

/// IMPs and lines.
pub struct Subnet {
    /// The IMPs.
    pub imps: Vec<Imp>,
    lines: Vec<Line>,
    now_ns: u64,
    trace: String,
    /// Host messages not yet taken by the caller.
    deliveries: Vec<HostDelivery>,
    /// Frames started, per (IMP, line).
    pub frames_sent: BTreeMap<(usize, u8), u64>,
    /// Each line end's far end and the line's propagation (built from `lines`).
    peers: BTreeMap<(usize, u8), ((usize, u8), u64)>,
    /// Whether the trace is written ([`Subnet::set_trace`]).
    tracing: bool,
}

impl Subnet {
    /// IMPs (loaded and configured by the caller) joined by `lines`.
    pub fn new(imps: Vec<Imp>, lines: Vec<Line>) -> Subnet {
        let mut peers = BTreeMap::new();
        // The first line listed on an end wins, as a search of `lines` in order would find it.
        for l in &lines {
            peers.entry(l.a).or_insert((l.b, l.propagation_ns));
            peers.entry(l.b).or_insert((l.a, l.propagation_ns));
        }
        Subnet {
            imps,
            lines,
            now_ns: 0,
            trace: String::new(),
            deliveries: Vec::new(),
            frames_sent: BTreeMap::new(),
            peers,
            tracing: true,
        }
    }

    /// Write the trace (the default) or not: a long run that needs only the IMPs' outputs, a
    /// benchmark for one, need not format every frame. Deliveries and counts are kept either way.
    pub fn set_trace(&mut self, on: bool) {
        self.tracing = on;
    }

    /// The window: the shortest frame time on any line plus its propagation.
    pub fn lookahead_ns(&self) -> u64 {
        self.lines
            .iter()
            .map(|l| {
                let end = |(i, line): (usize, u8)| {
                    self.imps[i]
                        .devices
                        .modem(line)
                        .map_or(u64::MAX, |m| m.frame_ns(0))
                };
                end(l.a).min(end(l.b)) + l.propagation_ns
            })
            .min()
            .unwrap_or(1_000_000)
            .max(1)
    }

    /// The window: half the lookahead.
    pub fn window_ns(&self) -> u64 {
        (self.lookahead_ns() / 2).max(1)
    }

    /// The subnet's clock.
    pub fn now_ns(&self) -> u64 {
        self.now_ns
    }

    /// The trace so far.
    pub fn trace(&self) -> &str {
        &self.trace
    }

    /// Host messages delivered since the last call.
    pub fn take_deliveries(&mut self) -> Vec<HostDelivery> {
        std::mem::take(&mut self.deliveries)
    }

    fn peer(&self, imp: usize, line: u8) -> Option<((usize, u8), u64)> {
        self.peers.get(&(imp, line)).copied()
    }

    /// Run every IMP to `until_ns`, window by window.
    pub fn run_until(&mut self, until_ns: u64) -> Result<(), SubnetError> {
        let w = self.window_ns();
        while self.now_ns < until_ns {
            let end = (self.now_ns + w).min(until_ns);
            self.window(end)?;
        }
        Ok(())
    }

    /// Run until `done` returns true after a window (or `until_ns`); whether it did.
    pub fn run_until_or(
        &mut self,
        until_ns: u64,
        mut done: impl FnMut(&mut Subnet) -> bool,
    ) -> Result<bool, SubnetError> {
        let w = self.window_ns();
        while self.now_ns < until_ns {
            let end = (self.now_ns + w).min(until_ns);
            self.window(end)?;
            if done(self) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn window(&mut self, end: u64) -> Result<(), SubnetError> {
        let mut events: Vec<(u64, usize, usize, Output)> = Vec::new();
        for i in 0..self.imps.len() {
            match self.imps[i].run_until(end) {
                Ok(RunStop::Reached) => {}
                Ok(RunStop::Halted { p }) => {
                    return Err(SubnetError::Halted {
                        imp: i,
                        at_ns: self.imps[i].now_ns(),
                        p,
                    });
                }
                Err(fault) => {
                    return Err(SubnetError::Fault {
                        imp: i,
                        at_ns: self.imps[i].now_ns(),
                        fault,
                    });
                }
            }
            for (k, o) in self.imps[i].take_outputs().into_iter().enumerate() {
                let t = match &o {
                    // Seen inside the receiving machine: not part of this trace.
                    Output::FrameIn { .. } | Output::HostInput { .. } => continue,
                    Output::Frame { first_bit_ns, .. } => *first_bit_ns,
                    Output::FrameLost { at_ns, .. }
                    | Output::ImpReady { at_ns, .. }
                    | Output::Lights { at_ns, .. }
                    | Output::Console { at_ns, .. } => *at_ns,
                    Output::HostMessage { last_bit_ns, .. } => *last_bit_ns,
                };
                events.push((t, i, k, o));
            }
        }
        events.sort_by_key(|(t, i, k, _)| (*t, *i, *k));
        for (t, i, _, o) in events {
            let number = self.imps[i].devices.number();
            match o {
                Output::Frame {
                    line,
                    words,
                    first_bit_ns,
                    last_bit_ns,
                } => {
                    *self.frames_sent.entry((i, line)).or_default() += 1;
                    if self.tracing {
                        let _ = writeln!(
                            self.trace,
                            "{t} imp{number} FRAME line{line} last_bit={last_bit_ns} words={} :{}",
                            words.len(),
                            octal(&words, 8)
                        );
                    }
                    let _ = first_bit_ns;
                    if let Some(((j, peer_line), prop)) = self.peer(i, line) {
                        self.imps[j]
                            .deliver_frame(peer_line, words, last_bit_ns + prop, true)
                            .map_err(|error| SubnetError::Input { imp: j, error })?;
                    }
                }
                Output::FrameLost { line, words, .. } => {
                    if self.tracing {
                        let _ =
                            writeln!(self.trace, "{t} imp{number} LOST line{line} words={words}");
                    }
                }
                Output::HostMessage { host, words, .. } => {
                    if self.tracing {
                        let _ = writeln!(
                            self.trace,
                            "{t} imp{number} TOHOST host{host} words={} :{}",
                            words.len(),
                            octal(&words, 8)
                        );
                    }
                    self.deliveries.push(HostDelivery {
                        imp: i,
                        host,
                        words,
                        at_ns: t,
                    });
                }
                Output::ImpReady { host, ready, .. } => {
                    if self.tracing {
                        let _ = writeln!(self.trace, "{t} imp{number} IMPREADY host{host} {ready}");
                    }
                }
                Output::FrameIn { .. } | Output::HostInput { .. } => {}
                Output::Console { byte, .. } => {
                    if self.tracing {
                        let _ = writeln!(self.trace, "{t} imp{number} CONSOLE {byte:03o}");
                    }
                }
                Output::Lights { lights, .. } => {
                    if self.tracing {
                        let _ = writeln!(self.trace, "{t} imp{number} LIGHTS {lights:06o}");
                    }
                }
            }
        }
        self.now_ns = end;
        Ok(())
    }

    /// Host `host` of IMP `imp` sends `words` now (the subnet's clock, or the IMP's if that
    /// has passed the window's end).
    pub fn host_send(&mut self, imp: usize, host: u8, words: Vec<u16>) -> Result<(), SubnetError> {
        let t = self.now_ns.max(self.imps[imp].now_ns());
        let number = self.imps[imp].devices.number();
        if self.tracing {
            let _ = writeln!(
                self.trace,
                "{t} imp{number} FROMHOST host{host} words={} :{}",
                words.len(),
                octal(&words, 8)
            );
        }
        self.imps[imp]
            .host_send(host, words, t)
            .map_err(|error| SubnetError::Input { imp, error })
    }
}

fn octal(words: &[u16], n: usize) -> String {
    let mut s = String::new();
    for w in words.iter().take(n) {
        let _ = write!(s, " {w:06o}");
    }
    if words.len() > n {
        s.push_str(" ...");
    }
    s
}
