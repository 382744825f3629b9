//! Running a network of emulated IMPs with nmc as the host on the first: the command files,
//! the instances, the host's socket loop (the thin driver over [`crate::host`] and
//! [`crate::pump`]), stopping, and reading back what each instance reported.
//!
//! Every instance's cycle clock reads 0 at one shared wall instant (the epoch, a few seconds
//! after the instances start, so all have loaded the IMP program), so their traces and the
//! host's record share one time base, in ns since the epoch.

use std::fs;
use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};

use crate::host::{Event, Host};
use crate::leader::{Address, FakeHost, Kind, Leader};
use crate::pump::{Pump, PumpConfig, Record};

/// The IMP's machine, which sets the memory cycle.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
pub enum Machine {
    /// Honeywell DDP-516: 0.96 us memory cycle (Honeywell DDP-516 Programmers Reference
    /// Manual, 1968: LDA 2 cycles, 1.92 us).
    #[value(name = "516")]
    H516,
    /// Honeywell 316: 1.6 us memory cycle (Honeywell's H-316 description: "memory cycle time
    /// 1.6 microseconds", register add 3.2 us).
    #[value(name = "316")]
    H316,
}

impl Machine {
    /// Memory cycle in ns.
    pub fn cycle_ns(self) -> u64 {
        match self {
            Machine::H516 => 960,
            Machine::H316 => 1600,
        }
    }
}

/// A modem line between two IMPs (indices into the IMP list) on given line numbers.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Line {
    /// First IMP (index) and its modem line (1–5).
    pub a: (usize, u8),
    /// Second IMP and its line.
    pub b: (usize, u8),
    /// Its speed, bit/s, if not the run's `line_bps`.
    pub bps: Option<u32>,
    /// Its one-way propagation delay, ns, if not the run's `prop_ns` (absent from the recorded
    /// runs' `run.json`, which all used one delay; the 1974 map's lines each have their own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prop_ns: Option<u64>,
}

/// A network to run.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Network {
    /// IMP numbers, in order; the host is on the first.
    pub imps: Vec<u8>,
    /// Modem lines.
    pub lines: Vec<Line>,
    /// Each IMP's machine, by index, where it is not the run's (`Settings::machine`): the
    /// 1974 map's TIPs are 316s among 516s. Empty in every recorded run, whose `run.json` does
    /// not have it; only the emulator runs a network with it (SIMH's runner refuses it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub machines: Vec<Machine>,
}

impl Network {
    /// A chain of `n` IMPs numbered from `first`: IMP k's line 2 to IMP k+1's line 1.
    pub fn chain(n: usize, first: u8) -> Network {
        Network {
            imps: (0..n).map(|i| first + i as u8).collect(),
            lines: (1..n)
                .map(|k| Line {
                    a: (k - 1, 2),
                    b: (k, 1),
                    bps: None,
                    prop_ns: None,
                })
                .collect(),
            machines: Vec::new(),
        }
    }

    /// RFC 632's network (Opderbeck, May 1974: MOFFETT to SRI, "two 3-hop paths, one with
    /// two 230.4 kbit/s circuits"): source S = `first`, destination D = `first + 3`, path one
    /// S–A–B–D on `line_bps` lines (A = `first + 1`, B = `first + 2`), path two S–C–E–D with
    /// S–C and C–E at `fast_bps` (C = `first + 4`, E = `first + 5`) and E–D at `line_bps`.
    pub fn rfc632(first: u8, fast_bps: u32) -> Network {
        let l = |a: (usize, u8), b: (usize, u8), bps: Option<u32>| Line {
            a,
            b,
            bps,
            prop_ns: None,
        };
        Network {
            imps: (0..6).map(|i| first + i).collect(),
            lines: vec![
                l((0, 1), (1, 1), None),
                l((1, 2), (2, 1), None),
                l((2, 2), (3, 1), None),
                l((0, 2), (4, 1), Some(fast_bps)),
                l((4, 2), (5, 1), Some(fast_bps)),
                l((5, 2), (3, 2), None),
            ],
            machines: Vec::new(),
        }
    }

    /// IMP index `i`'s machine: its own if [`Network::machines`] gives one, else `run`'s.
    pub fn machine(&self, i: usize, run: Machine) -> Machine {
        self.machines.get(i).copied().unwrap_or(run)
    }

    /// The modem line numbers IMP index `i` uses.
    pub fn lines_of(&self, i: usize) -> Vec<u8> {
        let mut v: Vec<u8> = self
            .lines
            .iter()
            .flat_map(|l| [l.a, l.b])
            .filter(|(k, _)| *k == i)
            .map(|(_, n)| n)
            .collect();
        v.sort();
        v
    }
}

/// Settings of a run (every one written into `run.json`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Settings {
    /// The IMPs' machine.
    pub machine: Machine,
    /// Modem line speed, bit/s (K&O's lines: 50 kbit/s).
    pub line_bps: u32,
    /// Propagation delay of every line, ns.
    pub prop_ns: u64,
    /// Bits a modem frame carries beyond its words: 72 (RFC 568 item 2, McQuillan, Sep 1973:
    /// 72 bits of framing, SYN, DLE STX, DLE ETX and a 24-bit checksum).
    pub framing_bits: u32,
    /// Host interface speed, bit/s (1822: 100 kbit/s; SIMH's default).
    pub host_bps: u32,
    /// The IMP's real-time clock: microseconds a count. **100**, from the program itself:
    /// 3050 listing p. 112 compares a packet's age in counts with `1250.`, "COMPARE WITH 125
    /// MS" (0.1 ms a count), and p. 161 makes every 25th clock interrupt a slow tick, the
    /// "640 MS TICKS" of p. 16 (an interrupt every 25.6 ms = 256 counts of 0.1 ms, the carry
    /// out of the count's low byte). SIMH's `impconfig.cmd` sets 20 us (50 kHz), which runs
    /// every timer of the program 5 times fast: routing messages every 128 ms instead of
    /// K&O's 640 ms, retransmission after 25 ms instead of 125.
    pub rtc_us: u32,
    /// How often an interface polls its socket, us of simulated time.
    pub poll_us: u64,
    /// How often the cycle clock is paced to wall time, us.
    pub pace_us: u64,
    /// Lag beyond which time counts as "behind", us.
    pub lag_bound_us: u64,
    /// A run is refused if any instance ever lagged more than this, ms.
    pub refuse_max_lag_ms: f64,
    /// … or spent more than this share of its time lagging beyond `lag_bound_us`.
    pub refuse_behind_share: f64,
    /// First UDP port; each IMP uses ports from `base_port + 10·index`.
    pub base_port: u16,
    /// Seconds between start and the epoch.
    pub start_margin_s: f64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            machine: Machine::H516,
            line_bps: 50_000,
            prop_ns: 0,
            framing_bits: 72,
            host_bps: 100_000,
            rtc_us: 100,
            poll_us: 250,
            pace_us: 1000,
            lag_bound_us: 2_000,
            refuse_max_lag_ms: 25.0,
            refuse_behind_share: 0.01,
            base_port: 47_000,
            start_margin_s: 0.0,
        }
    }
}

/// One pump run to a destination.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Experiment {
    /// A name for the outputs.
    pub name: String,
    /// Destination IMP index in the network.
    pub dest: usize,
    /// Hops from the source to it (on the shortest path).
    pub hops: usize,
    /// Messages outstanding at most.
    pub outstanding: usize,
    /// Messages (warm-up included).
    pub messages: u64,
    /// Messages at the start not measured.
    pub warmup: u64,
    /// Text words per message.
    pub text_words: usize,
}

impl Experiment {
    /// K&O's pump for this experiment on `net`, on `link`, to the destination IMP's discard
    /// fake host, and the line that says so in the run's notes. SIMH's run and the emulator's
    /// build it here alike.
    pub(crate) fn pump(&self, net: &Network, link: u8) -> Result<(Pump, String)> {
        let imp = net.imps[self.dest];
        let pump = Pump::new(PumpConfig {
            imp,
            host: FakeHost::Discard as u8,
            for_imp: true,
            link,
            outstanding: self.outstanding,
            messages: self.messages,
            text_words: self.text_words,
        })?;
        let text = format!(
            "pump {}: {} messages of {} words to IMP {imp} link {link}, {} outstanding",
            self.name, self.messages, self.text_words, self.outstanding
        );
        Ok((pump, text))
    }
}

/// What one experiment measured from the host's side.
#[derive(Clone, Debug, serde::Serialize)]
pub struct HostRun {
    /// The experiment.
    pub experiment: Experiment,
    /// Link used.
    pub link: u8,
    /// Replies, in order (times in ns since the epoch, host clock).
    pub records: Vec<Record>,
    /// It stopped for lack of replies.
    pub stalled: bool,
    /// When it started and finished, ns since the epoch (host clock).
    pub span_ns: (u64, u64),
}

fn wall_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// A running network.
pub struct Running {
    /// Output folder.
    pub out: PathBuf,
    /// Wall ns of the cycle clocks' zero.
    pub epoch_ns: u64,
    children: Vec<(u8, Child)>,
    sock: UdpSocket,
    imp_port: u16,
    host: Host,
    /// Host-side log lines.
    pub log: Vec<String>,
}

fn port(s: &Settings, index: usize, slot: u16) -> u16 {
    s.base_port + 10 * index as u16 + slot
}

/// The command file of IMP `index`. The configuration follows SIMH's `impconfig.cmd` (an
/// IMP's 16K, no high-speed arithmetic, DMC, 16 extended interrupts; sense switches 2 and 4 on),
/// without its instruction history (slow), with the IMP's clock at [`Settings::rtc_us`] (not its
/// 20 us) and with the cycle clock set.
fn command_file(
    simh: &Path,
    net: &Network,
    s: &Settings,
    index: usize,
    epoch_ns: u64,
    runlimit_units: u64,
) -> String {
    let imp = net.imps[index];
    let hc_ns = s.machine.cycle_ns() / 2;
    let poll_units = (s.poll_us * 1000).div_ceil(hc_ns).max(1);
    let mut c = String::new();
    let mut l = |x: &str| {
        c.push_str(x);
        c.push('\n');
    };
    l(&format!("; nmc oracle: IMP {imp} (index {index})"));
    l(&format!(
        "set env NMC_ORACLE_CYCLE_NS={}",
        s.machine.cycle_ns()
    ));
    l(&format!("set env NMC_ORACLE_EPOCH_NS={epoch_ns}"));
    l(&format!("set env NMC_ORACLE_PACE_US={}", s.pace_us));
    l(&format!(
        "set env NMC_ORACLE_LAG_BOUND_US={}",
        s.lag_bound_us
    ));
    l(&format!(
        "set env NMC_ORACLE_MI_FRAMING_BITS={}",
        s.framing_bits
    ));
    l(&format!("set env NMC_ORACLE_MI_PROP_NS={}", s.prop_ns));
    // A line with its own delay: the patched modem delays what it sends by its line's value.
    for line in &net.lines {
        for me in [line.a, line.b] {
            if let (true, Some(p)) = (me.0 == index, line.prop_ns) {
                l(&format!("set env NMC_ORACLE_MI{}_PROP_NS={p}", me.1));
            }
        }
    }
    l(&format!("set env NMC_ORACLE_TRACE=imp{imp}.trace"));
    l(&format!("set env NMC_ORACLE_SUMMARY=imp{imp}.summary.json"));
    let rtc = format!("SET RTC INTERVAL={}", s.rtc_us);
    for x in [
        "RESET ALL",
        "SET CPU 16K NOHSA DMA=0 DMC EXTINT=16",
        "SET LPT DISABLED",
        "SET MT DISABLED",
        "SET CLK DISABLED",
        "SET FHD DISABLED",
        "SET DP DISABLED",
        "SET IMP ENABLED",
        "SET RTC ENABLED",
        "SET RTC QUANTUM=32",
        rtc.as_str(),
        "SET WDT ENABLED",
        "SET WDT DELAY=0",
    ] {
        l(x);
    }
    let used = net.lines_of(index);
    for n in 1..=5u8 {
        l(&format!(
            "SET MI{n} {}",
            if used.contains(&n) {
                "ENABLED"
            } else {
                "DISABLED"
            }
        ));
    }
    l("SET HI1 ENABLED");
    for n in 2..=4 {
        l(&format!("SET HI{n} DISABLED"));
    }
    for x in [
        "DEPOSIT CPU STOP_DEV 0",
        "DEPOSIT CPU SS4 1",
        "DEPOSIT TTY KTIME 1000",
        "DEPOSIT TTY TTIME 1000",
        "DEPOSIT CPU SS2 1",
        "SET CONSOLE DEBUG=STDERR",
        "SET WDT DEBUG=LIGHTS",
    ] {
        l(x);
    }
    l(&format!("SET IMP NUM={imp}"));
    l(&format!(
        "do \"{}\"",
        simh.join("H316/tests/impcode.cmd").display()
    ));
    for line in &net.lines {
        for (me, other) in [(line.a, line.b), (line.b, line.a)] {
            if me.0 == index {
                let n = me.1;
                l(&format!(
                    "DEPOSIT MI{n} BPS {}",
                    line.bps.unwrap_or(s.line_bps)
                ));
                l(&format!("DEPOSIT MI{n} RXPOLL {poll_units}"));
                l(&format!(
                    "ATTACH MI{n} {}::{}",
                    port(s, me.0, u16::from(me.1)),
                    port(s, other.0, u16::from(other.1))
                ));
            }
        }
    }
    l(&format!("DEPOSIT HI1 BPS {}", s.host_bps));
    l(&format!("DEPOSIT HI1 POLL {poll_units}"));
    if index == 0 {
        l(&format!(
            "ATTACH HI1 {}::{}",
            port(s, 0, 6),
            port(s, net.imps.len() + 1, 0)
        ));
    }
    l(&format!("RUNLIMIT {runlimit_units}"));
    l("GO");
    l("EXIT");
    c
}

impl Running {
    /// Writes the command files, binds the host's socket, starts every instance.
    pub fn start(
        h316: &Path,
        simh: &Path,
        net: &Network,
        s: &Settings,
        out: &Path,
        max_run: Duration,
    ) -> Result<Running> {
        if net.machines.iter().any(|&m| m != s.machine) {
            bail!(
                "SIMH's runner runs one machine for every IMP; per-IMP machines are the emulator's"
            );
        }
        fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
        let host_port = port(s, net.imps.len() + 1, 0);
        let sock = UdpSocket::bind(("127.0.0.1", host_port))
            .with_context(|| format!("cannot bind the host's UDP port {host_port}"))?;
        sock.set_read_timeout(Some(Duration::from_millis(1)))?;
        let margin = if s.start_margin_s > 0.0 {
            s.start_margin_s
        } else {
            3.0 + 0.4 * net.imps.len() as f64
        };
        let epoch_ns = wall_ns() + (margin * 1e9) as u64;
        let units = (max_run.as_nanos() as u64) / (s.machine.cycle_ns() / 2);
        let units = units.min(i32::MAX as u64);
        let mut children = Vec::new();
        for i in 0..net.imps.len() {
            let imp = net.imps[i];
            let cmd = out.join(format!("imp{imp}.cmd"));
            fs::write(&cmd, command_file(simh, net, s, i, epoch_ns, units))?;
            let log = fs::File::create(out.join(format!("imp{imp}.log")))?;
            let child = Command::new(h316)
                .arg(format!("imp{imp}.cmd"))
                .current_dir(out)
                .stdin(Stdio::null())
                .stdout(log.try_clone()?)
                .stderr(log)
                .spawn()
                .with_context(|| format!("cannot start {}", h316.display()))?;
            children.push((imp, child));
        }
        Ok(Running {
            out: out.to_path_buf(),
            epoch_ns,
            children,
            sock,
            imp_port: port(s, 0, 6),
            host: Host::new(),
            log: Vec::new(),
        })
    }

    /// ns since the epoch on the host's clock.
    pub fn now(&self) -> u64 {
        wall_ns().saturating_sub(self.epoch_ns)
    }

    fn send(&mut self, bytes: &[u8]) -> Result<()> {
        self.sock
            .send_to(bytes, ("127.0.0.1", self.imp_port))
            .map(|_| ())
            .or_else(|e| {
                if e.kind() == std::io::ErrorKind::ConnectionRefused {
                    Ok(())
                } else {
                    Err(e.into())
                }
            })
    }

    /// One datagram from the IMP, if one comes within 1 ms.
    fn poll(&mut self) -> Result<Option<Event>> {
        let mut buf = [0u8; 65536];
        match self.sock.recv_from(&mut buf) {
            Ok((n, _)) => {
                let now = self.now();
                Ok(self.host.receive(now, &buf[..n]))
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::ConnectionRefused
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    fn note(&mut self, s: String) {
        let line = format!("{:.6} {s}", self.now() as f64 / 1e9);
        self.log.push(line);
    }

    fn check_children(&mut self) -> Result<()> {
        for (imp, c) in &mut self.children {
            if let Some(st) = c.try_wait()? {
                bail!(
                    "IMP {imp}'s simulator stopped early ({st}); see imp{imp}.log in {}",
                    self.out.display()
                );
            }
        }
        Ok(())
    }

    /// Waits for the IMP to report ready, then says the host is ready, and sends a one-packet
    /// message on link 1 to the discard fake host of `probe_imp` every 2 s until one is
    /// answered by a RFNM (the lines are up and the route known).
    pub fn wait_up(&mut self, probe_imp: u8, timeout: Duration) -> Result<f64> {
        let t0 = Instant::now();
        let mut last_probe: Option<Instant> = None;
        let to = Address::fake(probe_imp, FakeHost::Discard);
        let probe = Leader::new(Kind::Regular, to, 1)?;
        loop {
            if t0.elapsed() > timeout {
                bail!(
                    "the IMPs did not come up within {} s (no RFNM from IMP {probe_imp}'s discard host); see the logs in {}",
                    timeout.as_secs(),
                    self.out.display()
                );
            }
            self.check_children()?;
            if let Some(ev) = self.poll()? {
                match ev {
                    Event::ImpReady(r) => {
                        self.note(format!("IMP ready {r}"));
                        if r {
                            let b = self.host.ready();
                            self.send(&b)?;
                        }
                    }
                    Event::Message { leader, text, .. } => {
                        self.note(format!("from IMP: {leader} ({} words)", text.len()));
                        if leader.kind == Kind::Rfnm && leader.link == 1 && leader.imp == probe_imp
                        {
                            return Ok(self.now() as f64 / 1e9);
                        }
                    }
                }
            }
            if self.host.imp_ready()
                && last_probe.is_none_or(|t| t.elapsed() > Duration::from_secs(2))
            {
                let b = self.host.message(&probe, &[0o123456; 8]);
                self.send(&b)?;
                self.note(format!("probe to IMP {probe_imp}"));
                last_probe = Some(Instant::now());
            }
        }
    }

    /// Runs one pump to completion (or until no reply comes for `stall`).
    pub fn pump(
        &mut self,
        net: &Network,
        e: &Experiment,
        link: u8,
        stall: Duration,
    ) -> Result<HostRun> {
        let (mut p, text) = e.pump(net, link)?;
        self.note(text);
        let mut last_progress = Instant::now();
        let mut stalled = false;
        let start_ns = self.now();
        while !p.finished() {
            while let Some((leader, text)) = p.next_message(self.now()) {
                let b = self.host.message(&leader, &text);
                self.send(&b)?;
            }
            if let Some(ev) = self.poll()? {
                match ev {
                    Event::Message { at_ns, leader, .. } => {
                        if p.on_message(at_ns, &leader).is_some() {
                            last_progress = Instant::now();
                        } else {
                            self.note(format!("from IMP: {leader}"));
                        }
                    }
                    Event::ImpReady(r) => self.note(format!("IMP ready {r}")),
                }
            }
            if last_progress.elapsed() > stall {
                self.note(format!(
                    "pump {}: no reply for {} s, stopped",
                    e.name,
                    stall.as_secs()
                ));
                stalled = true;
                break;
            }
            self.check_children()?;
        }
        let odd: Vec<String> = p
            .records()
            .iter()
            .filter(|r| r.reply != Kind::Rfnm)
            .map(|r| format!("#{} {:?}/{}", r.index, r.reply, r.subcode))
            .collect();
        if !odd.is_empty() {
            self.note(format!(
                "pump {}: replies other than RFNM: {}",
                e.name,
                odd.join(", ")
            ));
        }
        Ok(HostRun {
            experiment: e.clone(),
            link,
            records: p.records().to_vec(),
            stalled,
            span_ns: (start_ns, self.now()),
        })
    }

    /// Keeps every instance running until each has written the lag window that holds `end_ns`
    /// (a window at `t` covers `(t − 1 s, t]`, written once a simulated second; [`crate::analyze::judge`]),
    /// reading what the IMP sends meanwhile. Without it a short last experiment (a few single
    /// packets) ends before any window closes over it and is refused for having no lag record.
    /// The wait is a window and a fifth on the harness's wall clock: an instance a little
    /// behind wall time (more than the 25 ms bound refuses the run anyway) still writes it.
    pub fn wait_lag_window(&mut self, end_ns: u64) -> Result<()> {
        let until = end_ns + crate::analyze::LAG_WINDOW_NS * 6 / 5;
        while self.now() < until {
            self.check_children()?;
            if let Some(Event::Message { leader, text, .. }) = self.poll()? {
                self.note(format!("from IMP: {leader} ({} words)", text.len()));
            }
        }
        Ok(())
    }

    /// Host counts (datagrams, refusals).
    pub fn host_counts(&self) -> crate::host::Counts {
        self.host.counts().clone()
    }

    /// Stops every instance (SIGINT: SIMH stops the run, finishes its command file and writes
    /// its summary), killing any that has not exited within 15 s.
    pub fn stop(mut self) -> Result<(PathBuf, Vec<String>)> {
        use rustix::process::{Pid, Signal, kill_process};
        for (_, c) in &self.children {
            if let Some(pid) = Pid::from_raw(c.id() as i32) {
                let _ = kill_process(pid, Signal::INT);
            }
        }
        let t0 = Instant::now();
        for (imp, c) in &mut self.children {
            loop {
                if c.try_wait()?.is_some() {
                    break;
                }
                if t0.elapsed() > Duration::from_secs(15) {
                    let _ = c.kill();
                    let _ = c.wait();
                    self.log
                        .push(format!("IMP {imp} killed after SIGINT did not stop it"));
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        fs::write(self.out.join("host.log"), self.log.join("\n") + "\n")?;
        Ok((self.out.clone(), self.log.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_joins_each_imp_s_line_2_to_the_next_one_s_line_1() {
        let n = Network::chain(4, 11);
        assert_eq!(n.imps, vec![11, 12, 13, 14]);
        assert_eq!(n.lines_of(0), vec![2]);
        assert_eq!(n.lines_of(1), vec![1, 2]);
        assert_eq!(n.lines_of(3), vec![1]);
    }

    #[test]
    fn rfc632_has_two_three_hop_paths_one_with_two_fast_circuits() {
        let n = Network::rfc632(11, 230_400);
        assert_eq!(n.imps.len(), 6);
        let fast = n.lines.iter().filter(|l| l.bps == Some(230_400)).count();
        assert_eq!(fast, 2);
        // S (index 0) and D (index 3) each have two lines.
        assert_eq!(n.lines_of(0), vec![1, 2]);
        assert_eq!(n.lines_of(3), vec![1, 2]);
    }

    #[test]
    fn a_line_with_its_own_delay_sets_it_on_both_ends_modems() {
        let mut net = Network::chain(3, 11);
        net.lines[1].prop_ns = Some(2_500_000);
        let s = Settings::default();
        let c = command_file(Path::new("/simh"), &net, &s, 1, 0, 1);
        assert!(c.contains("set env NMC_ORACLE_MI2_PROP_NS=2500000"));
        assert!(!c.contains("NMC_ORACLE_MI1_PROP_NS"));
        let c = command_file(Path::new("/simh"), &net, &s, 2, 0, 1);
        assert!(c.contains("set env NMC_ORACLE_MI1_PROP_NS=2500000"));
        // The recorded runs had no per-line delay: run.json stays as it was.
        let json = serde_json::to_string(&Network::chain(2, 11)).unwrap();
        assert!(!json.contains("prop_ns"), "{json}");
    }

    #[test]
    fn a_command_file_sets_the_cycle_clock_and_pairs_the_ports() {
        let net = Network::chain(3, 11);
        let s = Settings::default();
        let c = command_file(Path::new("/simh"), &net, &s, 1, 123, 456);
        assert!(c.contains("set env NMC_ORACLE_CYCLE_NS=960"));
        assert!(c.contains("set env NMC_ORACLE_EPOCH_NS=123"));
        assert!(c.contains("SET IMP NUM=12"));
        assert!(c.contains("do \"/simh/H316/tests/impcode.cmd\""));
        // IMP 12's line 1 to IMP 11's line 2, its line 2 to IMP 13's line 1.
        assert!(c.contains(&format!(
            "ATTACH MI1 {}::{}",
            port(&s, 1, 1),
            port(&s, 0, 2)
        )));
        assert!(c.contains(&format!(
            "ATTACH MI2 {}::{}",
            port(&s, 1, 2),
            port(&s, 2, 1)
        )));
        assert!(c.contains("DEPOSIT MI1 BPS 50000"));
        assert!(!c.contains("HISTORY"), "instruction history slows the CPU");
        assert!(!c.contains("ATTACH HI1"), "only the first IMP has a host");
        assert!(c.contains("RUNLIMIT 456"));
        // 250 us of polling on a 516 is 521 half cycles of 480 ns.
        assert!(c.contains("DEPOSIT MI1 RXPOLL 521"));
        let first = command_file(Path::new("/simh"), &net, &s, 0, 123, 456);
        assert!(first.contains(&format!(
            "ATTACH HI1 {}::{}",
            port(&s, 0, 6),
            port(&s, 4, 0)
        )));
    }
}
