//! BBN's IMP program 3050 (Sept 1973) on the emulator: it starts, two IMPs bring their line
//! up and exchange routing messages, greet their hosts, and a message to the far IMP's discard
//! fake host is answered by a RFNM; two runs give the same trace bytes.
//!
//! The program is BBN's, with a proprietary notice: nmc never commits it. These tests read the
//! user's copy (SIMH's `H316/tests/impcode.cmd`) from `NMC_IMP_PROGRAM`, so they are marked
//! `#[ignore]`: a plain `cargo test` lists them as ignored, i.e. **not run**. Run them with
//! `NMC_IMP_PROGRAM=/path/to/impcode.cmd cargo test -p nmc-h316 --test h316 -- imp_program
//! --include-ignored --nocapture`; asked to run without the variable, each prints NOT RUN and
//! returns.
//!
//! Targets, each with its source, and the tolerance stated before the run:
//!
//! * With SIMH's clock setting (20 µs ticks) the IMPs must be up (lights 077400, three NOPs
//!   and a RESET to the host) within the ~23 s SIMH took (`shared/oracle/first-run.md`). The
//!   bound is SIMH's own time, no tolerance added.
//! * With the listing's clock (100 µs), an idle 50 kbit/s line carries a routing message
//!   every 128 ms (RFC 619, Dec 1973, pp. 2–5): the median interval between routing messages
//!   must be within 5 % of 128 ms. Emergent: nothing in the emulator knows the period; the
//!   program computes it from its clock.

use nmc_h316::subnet::{HostDelivery, Line, Subnet};
use nmc_h316::{Image, Imp, ImpConfig, Output, RunStop};

fn program() -> Option<Image> {
    let Some(path) = std::env::var_os("NMC_IMP_PROGRAM") else {
        eprintln!(
            "NOT RUN: NMC_IMP_PROGRAM is not set (the path of SIMH's H316/tests/impcode.cmd); \
             this IMP-program check did not run"
        );
        return None;
    };
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("NMC_IMP_PROGRAM={}: {e}", path.to_string_lossy()));
    Some(Image::parse(&text).expect("the deposit file parses"))
}

const S: u64 = 1_000_000_000;
const MS: u64 = 1_000_000;

fn pair(image: &Image, tick_ns: u64) -> Subnet {
    pair_with_host(image, tick_ns, 1)
}

/// IMPs 2 and 3 joined by one line, each with host interface 1 and `iface` fitted (100 kbit/s)
/// and the host on `iface` ready from the start.
fn pair_with_host(image: &Image, tick_ns: u64, iface: u8) -> Subnet {
    let mut hosts = ImpConfig::default().hosts;
    hosts[usize::from(iface) - 1] = Some(100_000);
    let imps = [2u16, 3]
        .iter()
        .map(|&number| {
            let mut imp = Imp::new(&ImpConfig {
                number,
                clock_tick_ns: tick_ns,
                hosts,
                ..ImpConfig::default()
            });
            imp.load(image);
            imp.set_host_ready(iface, true, 0).unwrap();
            imp
        })
        .collect();
    Subnet::new(
        imps,
        vec![Line {
            a: (0, 1),
            b: (1, 1),
            propagation_ns: 100_000,
        }],
    )
}

/// The 32-bit (old) leader's message type: bits 5–8 of its first word.
fn leader_type(words: &[u16]) -> u16 {
    (words[0] >> 8) & 0o17
}

/// The leader types of the messages IMP index `i` gave its host, in order.
fn greetings(seen: &[HostDelivery], i: usize) -> Vec<u16> {
    seen.iter()
        .filter(|d| d.imp == i)
        .map(|d| leader_type(&d.words))
        .collect()
}

/// Run until each IMP has given its host three NOPs (type 4) and a RESET (type 10).
fn bring_up(net: &mut Subnet, limit_ns: u64) -> Vec<HostDelivery> {
    let mut seen = Vec::new();
    net.run_until_or(limit_ns, |n| {
        seen.extend(n.take_deliveries());
        (0..2).all(|i| greetings(&seen, i).starts_with(&[4, 4, 4, 10]))
    })
    .expect("no fault");
    seen
}

#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn one_imp_starts_and_lights_its_lamps() {
    let Some(image) = program() else { return };
    let mut imp = Imp::new(&ImpConfig::default());
    imp.load(&image);
    assert_eq!(imp.cpu.p(), 0o2000);
    assert_eq!(imp.run_until(10 * S), Ok(RunStop::Reached));
    let outputs = imp.take_outputs();
    let lights: Vec<_> = outputs
        .iter()
        .filter_map(|o| match o {
            Output::Lights { lights, at_ns } => Some((*lights, *at_ns)),
            _ => None,
        })
        .collect();
    eprintln!("lights {lights:?}; {} instructions", imp.cpu.instructions());
    assert_eq!(
        lights.first().map(|l| l.0),
        Some(0o177400),
        "all lamps lit at start"
    );
    assert!(
        outputs
            .iter()
            .any(|o| matches!(o, Output::Frame { line: 1, .. })),
        "it calls on its line"
    );
}

#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn two_imps_come_up_within_simhs_time_on_simhs_clock() {
    let Some(image) = program() else { return };
    let mut net = pair(&image, 20_000);
    let seen = bring_up(&mut net, 23 * S);
    for l in net.trace().lines().filter(|l| !l.contains(" FRAME ")) {
        eprintln!("{l}");
    }
    for i in 0..2 {
        let types = greetings(&seen, i);
        assert!(
            types.starts_with(&[4, 4, 4, 10]),
            "IMP {} greeted its host with NOP NOP NOP RESET within 23 s: {types:?}",
            i + 2
        );
    }
    let up: Vec<_> = net
        .trace()
        .lines()
        .filter(|l| l.ends_with("LIGHTS 077400"))
        .collect();
    assert_eq!(up.len(), 2, "both IMPs show their line up");
    eprintln!("up at {} ns", net.now_ns());
}

#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn an_imp_switched_on_later_comes_up_with_its_neighbour() {
    let Some(image) = program() else { return };
    let mut net = pair(&image, 20_000);
    // IMP 3 switched on 3 s after IMP 2 (whose program first calls on its line 1.9 s after
    // power-on at this clock): IMP 2's first calls on the line are lost.
    let on = 3 * S;
    net.imps[1].power_on_at(on);
    let seen = bring_up(&mut net, 30 * S);
    for i in 0..2 {
        let types = greetings(&seen, i);
        assert!(
            types.starts_with(&[4, 4, 4, 10]),
            "IMP {} greeted its host: {types:?}",
            i + 2
        );
    }
    let first = |imp: &str| {
        net.trace()
            .lines()
            .find(|l| l.contains(&format!(" {imp} FRAME ")))
            .and_then(|l| l.split(' ').next()?.parse::<u64>().ok())
    };
    assert!(first("imp2").is_some_and(|t| t < on), "IMP 2 calls first");
    assert!(first("imp3").is_some_and(|t| t >= on), "IMP 3 only once on");
    assert!(
        net.imps[1].devices.modem(1).unwrap().stats.lost > 0,
        "IMP 2's frames before IMP 3 was on are lost"
    );
}

#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn an_idle_line_carries_a_routing_message_every_128_ms() {
    let Some(image) = program() else { return };
    let mut net = pair(&image, 100_000);
    net.run_until(120 * S).expect("no fault");
    // Routing messages: 68 words (1024 + 136 bits with framing: RFC 635 pp. 6–7).
    let starts: Vec<u64> = net
        .trace()
        .lines()
        .filter(|l| l.contains("imp2 FRAME line1") && l.contains(" words=68 "))
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .filter(|&t| t > 100 * S)
        .collect();
    let mut gaps: Vec<u64> = starts.windows(2).map(|w| w[1] - w[0]).collect();
    gaps.sort_unstable();
    let median = gaps[gaps.len() / 2];
    eprintln!(
        "{} routing messages in 100–120 s; median gap {:.1} ms",
        starts.len(),
        median as f64 / 1e6
    );
    let target = 128 * MS;
    assert!(
        median.abs_diff(target) * 20 <= target,
        "median {median} ns, RFC 619: 128 ms ± 5 %"
    );
}

#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn a_message_to_the_far_discard_host_is_answered_by_a_rfnm_and_runs_repeat() {
    let Some(image) = program() else { return };
    let run = || {
        let mut net = pair(&image, 100_000);
        bring_up(&mut net, 150 * S);
        let up = net.now_ns();
        // To IMP 3's fake host 3 (discard): for-IMP bit, type 0 (regular), host 3, IMP 3;
        // link 1; four data words. One a second until a RFNM (type 5) comes back.
        let message = vec![0o040303, 0o000400, 0o1, 0o2, 0o3, 0o4];
        let mut rfnm = None;
        let mut sent = 0;
        while net.now_ns() < up + 20 * S && rfnm.is_none() {
            net.host_send(0, 1, message.clone()).unwrap();
            sent += 1;
            let until = net.now_ns() + S;
            net.run_until_or(until, |n| {
                for d in n.take_deliveries() {
                    if d.imp == 0 && leader_type(&d.words) == 5 {
                        rfnm = Some(d);
                    }
                }
                rfnm.is_some()
            })
            .expect("no fault");
        }
        (net.trace().to_string(), rfnm, sent, up)
    };
    let (trace, rfnm, sent, up) = run();
    for l in trace.lines().filter(|l| !l.contains(" FRAME ")) {
        eprintln!("{l}");
    }
    let rfnm = rfnm.expect("a RFNM from IMP 3's discard host");
    eprintln!(
        "hosts up at {:.3} s; RFNM after {sent} messages, at {:.3} s: {}",
        up as f64 / 1e9,
        rfnm.at_ns as f64 / 1e9,
        rfnm.words
            .iter()
            .map(|w| format!("{w:06o}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    assert_eq!(rfnm.words[0] & 0o77, 3, "from IMP 3");
    let (again, ..) = run();
    assert!(trace == again, "two runs give the same trace bytes");
}

/// What a host got during an exchange: (message, IMP index, leader type, link, ms after the
/// message was sent).
type Got = (u16, usize, u16, u16, f64);

/// Six one-packet messages to a *real* host on host interface `iface` (1 or 2) of IMP 3 from the
/// same interface of IMP 2, 2 s apart once both IMPs are up, message k on link 2 + k so that each
/// RFNM names its message; a NOP before them if `nop_first`. Everything the hosts got but NOPs
/// and RESETs.
fn real_host_exchange(image: &Image, iface: u8, nop_first: bool) -> Vec<Got> {
    let mut net = pair_with_host(image, 100_000, iface);
    net.run_until_or(150 * S, |_| false).expect("no fault");
    if nop_first {
        // NOP (type 4).
        net.host_send(0, iface, vec![4 << 8, 0]).unwrap();
        let t = net.now_ns() + S / 10;
        net.run_until_or(t, |_| false).expect("no fault");
    }
    // Regular (type 0), leader host iface − 1 (the leader counts hosts from 0), IMP 3; four
    // data words.
    let host = u16::from(iface - 1);
    let mut log = Vec::new();
    for k in 0..6u16 {
        let sent = net.now_ns();
        let message = vec![host << 6 | 3, (2 + k) << 8, 0o1, 0o2, 0o3, 0o4];
        net.host_send(0, iface, message).unwrap();
        net.run_until_or(sent + 2 * S, |n| {
            for d in n.take_deliveries() {
                let t = leader_type(&d.words);
                if t != 4 && t != 10 {
                    let ms = (d.at_ns - sent) as f64 / 1e6;
                    log.push((k, d.imp, t, d.words[1] >> 8, ms));
                }
            }
            false
        })
        .expect("no fault");
    }
    for l in &log {
        eprintln!(
            "interface {iface}, message {}: IMP index {} got type {} link {} after {:.1} ms",
            l.0, l.1, l.2, l.3, l.4
        );
    }
    log
}

/// Message `k`'s delivery at the far IMP (index 1) and its RFNM at the sender (index 0), ms
/// after it was sent, each only if it names message k's link and came in message k's 2 s.
fn delivered_and_answered(log: &[Got], k: u16) -> (Option<f64>, Option<f64>) {
    let got = |imp: usize, t: u16| {
        log.iter()
            .find(|l| l.0 == k && l.1 == imp && l.2 == t && l.3 == 2 + k)
            .map(|l| l.4)
    };
    (got(1, 0), got(0, 5))
}

/// Host interfaces 1 and 2 alike: once the far host is up and the sender has begun with a NOP,
/// each message is delivered and its own RFNM (by its link) reaches the sender within tens of
/// ms, before the next message is sent.
#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn a_message_to_a_real_host_is_delivered_and_answered_before_the_next() {
    let Some(image) = program() else { return };
    for iface in [1u8, 2] {
        let log = real_host_exchange(&image, iface, true);
        for k in 0..6 {
            let (Some(d), Some(r)) = delivered_and_answered(&log, k) else {
                panic!(
                    "interface {iface}, message {k}: delivered and answered within 2 s: {log:?}"
                );
            };
            assert!(
                d < 100.0 && r < 200.0,
                "interface {iface}, message {k}: {d} ms, {r} ms"
            );
        }
    }
}

/// BBN 3050 pp. 120–121 (HISTRH "DISCARD FIRST INPUT OF REAL HOST", HIFRST "WAITING FOR INITIAL
/// INPUT"): the first thing a real host sends after it comes up is thrown away. A host that
/// begins with a message loses it, unanswered; the next ones go through.
#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn a_real_hosts_first_input_is_discarded_unanswered() {
    let Some(image) = program() else { return };
    for iface in [1u8, 2] {
        let log = real_host_exchange(&image, iface, false);
        assert!(
            log.iter().all(|l| l.0 != 0),
            "interface {iface}: the first message left a trace: {log:?}"
        );
        for k in 1..6 {
            let (d, r) = delivered_and_answered(&log, k);
            assert!(
                d.is_some() && r.is_some(),
                "interface {iface}, message {k}: {log:?}"
            );
        }
    }
}
