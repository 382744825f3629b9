//! Small programs driving the IMP's devices through the CPU: the clock interrupts every 256
//! counts of 100 µs; a modem's output-done interrupt comes when the frame's last bit has gone;
//! a received frame lands in the input buffer when its last bit arrives; absent interfaces
//! ignore their instructions; an unknown device is a fault.

use nmc_h316::imp::InputError;
use nmc_h316::{Fault, Imp, ImpConfig, IoError, Output, RunStop};

const US: u64 = 1_000;
const MS: u64 = 1_000_000;

/// Main loop at 200: set the priority mask from 300, CLKON, ENB, then an idle `JMP *`.
/// Clock handler (vector 102 → 1000): read the clock into 301, count into 302, return.
/// Modem 1 output handler (vector 71 → 1100): count into 303, return.
/// Modem 1 input handler (vector 64 → 1200): count into 304, return.
fn machine(extra: &[(u16, u16)]) -> Imp {
    let mut imp = Imp::new(&ImpConfig::default());
    let words: &[(u16, u16)] = &[
        (0o102, 0o001000),
        (0o071, 0o001100),
        (0o064, 0o001200),
        (0o200, 0o004300), // LDA 300
        (0o201, 0o170120), // SMK 120
        (0o202, 0o030040), // CLKON
        (0o203, 0o000401), // ENB
        (0o204, 0o002204), // JMP *
        // clock handler
        (0o1001, 0o131040), // RDCLOK
        (0o1002, 0o003001), // JMP *-1 (not ready)
        (0o1003, 0o010301), // STA 301
        (0o1004, 0o024302), // IRS 302
        (0o1005, 0o000401), // ENB
        (0o1006, 0o103000), // JMP* 1000
        // modem output handler
        (0o1101, 0o024303), // IRS 303
        (0o1102, 0o000401), // ENB
        (0o1103, 0o103100), // JMP* 1100
        // modem input handler
        (0o1201, 0o024304), // IRS 304
        (0o1202, 0o000401), // ENB
        (0o1203, 0o103200), // JMP* 1200
        // mask: clock (level 15), modem 1 output (6), modem 1 input (1)
        (0o300, 0o100000 | 0o002000 | 0o000002),
    ];
    for &(a, w) in words.iter().chain(extra) {
        imp.cpu.mem.deposit(a, w);
    }
    imp.cpu.set_p(0o200);
    imp
}

#[test]
fn the_clock_interrupts_after_256_counts_of_100_us() {
    let mut imp = machine(&[]);
    // CLKON ends at 3 × 2 cycles = 5.76 µs; the carry 25.6 ms later.
    let clkon = 3 * 1920;
    imp.run_until(clkon + 25_600 * US - 5 * US).unwrap();
    assert_eq!(imp.cpu.mem.read(0o302), 0, "not yet");
    imp.run_until(clkon + 25_600 * US + 20 * US).unwrap();
    assert_eq!(imp.cpu.mem.read(0o302), 1, "one clock interrupt");
    assert_eq!(
        imp.cpu.mem.read(0o301),
        256,
        "the count read in the handler"
    );
    assert_eq!(
        imp.cpu.mem.read(0o1000) & 0o77777,
        0o204,
        "returns to the idle loop"
    );
    imp.run_until(clkon + 10 * 25_600 * US + 20 * US).unwrap();
    assert_eq!(imp.cpu.mem.read(0o302), 10);
}

#[test]
fn output_done_comes_when_the_last_bit_has_gone() {
    // Before ENB: point modem 1's output channel (32, 33) at 4 words and start output.
    let mut imp = machine(&[
        (0o32, 0o000400),
        (0o33, 0o000403),
        (0o400, 0o1),
        (0o401, 0o2),
        (0o402, 0o3),
        (0o403, 0o4),
        (0o203, 0o030071), // M1OUT instead of ENB...
        (0o204, 0o000401), // ...ENB here
        (0o205, 0o002205), // and the idle loop at 205
    ]);
    let ocp_end = 4 * 1920;
    // 4 words + 72 framing bits = 136 bits at 50 kbit/s = 2.72 ms.
    let last_bit = ocp_end + 2_720 * US;
    imp.run_until(last_bit - 5 * US).unwrap();
    assert_eq!(imp.cpu.mem.read(0o303), 0);
    let out = imp.take_outputs();
    assert_eq!(
        out,
        [Output::Frame {
            line: 1,
            words: vec![1, 2, 3, 4],
            first_bit_ns: ocp_end,
            last_bit_ns: last_bit
        }]
    );
    imp.run_until(last_bit + 20 * US).unwrap();
    assert_eq!(imp.cpu.mem.read(0o303), 1, "output-done interrupt");
    assert_eq!(
        imp.cpu.mem.read(0o32),
        0o404,
        "the channel's pointer reached the end"
    );
}

#[test]
fn a_received_frame_is_in_memory_when_its_last_bit_arrives() {
    let mut imp = machine(&[
        (0o20, 0o100000 | 0o500),
        (0o21, 0o000507),
        (0o203, 0o030471), // M1IN
        (0o204, 0o000401), // ENB
        (0o205, 0o002205),
    ]);
    imp.run_until(100 * US).unwrap();
    imp.deliver_frame(1, vec![0o11, 0o22, 0o33], 3 * MS, true)
        .unwrap();
    imp.run_until(3 * MS - 5 * US).unwrap();
    assert_eq!(imp.cpu.mem.read(0o500), 0);
    imp.run_until(3 * MS + 20 * US).unwrap();
    assert_eq!(
        (imp.cpu.mem.read(0o500), imp.cpu.mem.read(0o502)),
        (0o11, 0o33)
    );
    assert_eq!(imp.cpu.mem.read(0o304), 1, "input-done interrupt");
    assert_eq!(imp.cpu.mem.read(0o20), 0o100503, "three words in");
    assert_eq!(
        imp.deliver_frame(1, vec![1], MS, true),
        Err(InputError::Late {
            at_ns: MS,
            now_ns: imp.now_ns()
        })
    );
    assert!(matches!(
        imp.deliver_frame(2, vec![1], 10 * MS, true),
        Err(InputError::NotFitted { .. })
    ));
}

#[test]
fn a_machine_switched_on_later_starts_its_clock_there_and_loses_frames_before() {
    // The receiver armed as above, on a machine switched on at 9.6 ms (20,000 half cycles of
    // a 516: an instant off that grid is taken at the next half cycle).
    let mut imp = machine(&[
        (0o20, 0o100000 | 0o500),
        (0o21, 0o000507),
        (0o203, 0o030471), // M1IN
        (0o204, 0o000401), // ENB
        (0o205, 0o030040), // CLKON
        (0o206, 0o002206), // JMP *
    ]);
    let on = 9_600 * US;
    imp.power_on_at(on);
    assert_eq!((imp.now_ns(), imp.on_ns()), (on, on));
    // Its last bit at 9 ms: the machine is off, the frame lost (not an error: nothing there).
    imp.deliver_frame(1, vec![0o77, 0o66], 9 * MS, true)
        .unwrap();
    assert_eq!(
        imp.take_outputs(),
        [Output::FrameLost {
            line: 1,
            words: 2,
            at_ns: 9 * MS
        }]
    );
    assert_eq!(imp.devices.modem(1).unwrap().stats.lost, 1);
    // After it: received as on any machine.
    imp.deliver_frame(1, vec![0o11, 0o22, 0o33], 13 * MS, true)
        .unwrap();
    imp.run_until(13 * MS + 20 * US).unwrap();
    assert_eq!(imp.cpu.mem.read(0o500), 0o11, "received after power-on");
    assert_eq!(imp.cpu.mem.read(0o304), 1, "input-done interrupt");
    // Its clock started with it: the first carry 25.6 ms after its CLKON (five instructions
    // after power-on), not 25.6 ms after 0.
    imp.run_until(on + 25_600 * US - 5 * US).unwrap();
    assert_eq!(imp.cpu.mem.read(0o302), 0, "no tick yet");
    imp.run_until(on + 25_600 * US + 40 * US).unwrap();
    assert_eq!(
        imp.cpu.mem.read(0o302),
        1,
        "its first tick, at its own phase"
    );
}

#[test]
fn absent_interfaces_ignore_their_instructions_and_unknown_devices_fault() {
    // M2OUT (modem 2 is not fitted by default), then SKS on it, then OCP 33 (no such device).
    let mut imp = machine(&[
        (0o203, 0o030072), // M2OUT: ignored
        (0o204, 0o070472), // M2ERR: no skip
        (0o205, 0o030033), // OCP 33
    ]);
    let r = imp.run_until(MS);
    assert_eq!(
        r,
        Err(Fault::Io {
            p: 0o205,
            word: 0o030033,
            dev: 0o33,
            func: 0,
            error: IoError::NoDevice
        })
    );
    assert!(imp.take_outputs().is_empty());
}

#[test]
fn a_halt_stops_the_run_and_says_where() {
    let mut imp = machine(&[(0o204, 0o000000)]);
    assert_eq!(imp.run_until(MS), Ok(RunStop::Halted { p: 0o205 }));
}

#[test]
fn a_subnet_hands_a_frame_to_the_far_imp_at_its_last_bit_plus_propagation() {
    use nmc_h316::subnet::{Line, Subnet};
    let build = || {
        // IMP 0 sends 4 words on line 1; IMP 1 listens on line 1.
        let sender = machine(&[
            (0o32, 0o000400),
            (0o33, 0o000403),
            (0o400, 0o7),
            (0o403, 0o70),
            (0o203, 0o030071), // M1OUT
            (0o204, 0o000401),
            (0o205, 0o002205),
        ]);
        let receiver = machine(&[
            (0o20, 0o100000 | 0o500),
            (0o21, 0o000517),
            (0o203, 0o030471), // M1IN
            (0o204, 0o000401),
            (0o205, 0o002205),
        ]);
        Subnet::new(
            vec![sender, receiver],
            vec![Line {
                a: (0, 1),
                b: (1, 1),
                propagation_ns: 5 * MS,
            }],
        )
    };
    let mut net = build();
    assert_eq!(
        net.lookahead_ns(),
        1_440 * US + 5 * MS,
        "72 bits at 50 kbit/s + 5 ms"
    );
    let arrival = 4 * 1920 + 2_720 * US + 5 * MS;
    net.run_until(arrival - 5 * US).unwrap();
    assert_eq!(net.imps[1].cpu.mem.read(0o304), 0);
    net.run_until(arrival + 20 * US).unwrap();
    assert_eq!(net.imps[1].cpu.mem.read(0o304), 1, "input done");
    assert_eq!(
        (
            net.imps[1].cpu.mem.read(0o500),
            net.imps[1].cpu.mem.read(0o503)
        ),
        (0o7, 0o70)
    );
    net.run_until(200 * MS).unwrap();
    let mut again = build();
    again.run_until(200 * MS).unwrap();
    assert_eq!(net.trace(), again.trace(), "the same bytes twice");
    assert!(net.trace().contains("FRAME line1"), "{}", net.trace());
}

#[test]
fn the_profile_counts_each_instructions_time_at_its_address_and_changes_nothing() {
    // The loop of `a_timing_loop_runs_at_four_cycles_an_iteration`, IRS 45 at 200 and JMP 200
    // at 201, run to a halt at 202, with and without the profile.
    let words = [
        (0o200, 0o024045),
        (0o201, 0o002200),
        (0o202, 0o0),
        (0o45, 0o177766),
    ];
    let run = |profile: bool| {
        let mut imp = Imp::new(&ImpConfig::default());
        for (a, w) in words {
            imp.cpu.mem.deposit(a, w);
        }
        imp.cpu.set_p(0o200);
        imp.set_profile(profile);
        let stop = imp.run_until(MS).unwrap();
        (stop, imp.now_ns(), imp.take_profile())
    };
    let (stop, t, none) = run(false);
    assert!(matches!(stop, RunStop::Halted { .. }));
    assert!(none.is_none(), "off by default");
    let (stop2, t2, p) = run(true);
    assert_eq!((stop2, t2), (stop, t), "the profile changes no timing");
    let p = p.unwrap();
    // 10 IRS of 3 cycles, 9 JMP of 1, a HLT of 1 (0.96 µs a cycle).
    assert_eq!(p[0o200], 10 * 3 * 960);
    assert_eq!(p[0o201], 9 * 960);
    assert_eq!(p.iter().sum::<u64>(), t);
}

/// A watch on the clock handler's `IRS 302` sees each clock interrupt once, at the count it
/// had then, with the words asked for; and the machine runs as it does unwatched.
#[test]
fn a_watch_sees_each_pass_through_an_address_and_changes_nothing() {
    let until = 3 * 1920 + 3 * 25_600 * US + 100 * US;
    let mut plain = machine(&[]);
    plain.run_until(until).unwrap();
    let mut watched = machine(&[]);
    watched.set_watch(&[0o1004], &[0o302, 0o301]);
    watched.run_until(until).unwrap();
    let seen = watched.take_watched();
    assert_eq!(seen.len(), 3, "{seen:?}");
    for (k, w) in seen.iter().enumerate() {
        assert_eq!(w.p, 0o1004);
        assert_eq!(w.peek[0], k as u16, "302 before its IRS");
        assert_eq!(w.a, w.peek[1], "A holds the clock just stored in 301");
    }
    assert!(seen.windows(2).all(|p| p[1].t_ns - p[0].t_ns > 25_000 * US));
    assert!(watched.take_watched().is_empty(), "taken");
    assert_eq!(plain.now_ns(), watched.now_ns());
    for a in [0o301, 0o302, 0o303, 0o304] {
        assert_eq!(plain.cpu.mem.read(a), watched.cpu.mem.read(a));
    }
}
