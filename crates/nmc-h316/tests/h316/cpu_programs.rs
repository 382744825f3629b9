//! Small programs, one per instruction class, interrupt and timing rule, each with the result
//! and the cycles the DDP-516 manual's table (and Wise's emulator for the rows it lacks) give.
//! Words are octal, as the manual writes them; the mnemonic is beside each.

use nmc_h316::io::{Bus, IoCx, IoError};
use nmc_h316::{Cpu, CpuConfig, Fault, Model, Step};

fn machine(words: &[(u16, u16)], start: u16) -> Cpu {
    machine_with(CpuConfig::default(), words, start)
}

fn machine_with(config: CpuConfig, words: &[(u16, u16)], start: u16) -> Cpu {
    let mut cpu = Cpu::new(config);
    for &(addr, w) in words {
        cpu.mem.deposit(addr, w);
    }
    cpu.set_p(start);
    cpu
}

/// Run `n` steps on `bus`; the half cycles of each.
fn run<B: Bus>(cpu: &mut Cpu, bus: &mut B, n: usize) -> Vec<u32> {
    (0..n)
        .map(|_| match cpu.step(bus).expect("no fault") {
            Step::Ran(hc) => hc,
            Step::Interrupt { half_cycles, .. } => half_cycles,
            Step::Halted => 0,
        })
        .collect()
}

fn steps(cpu: &mut Cpu, n: usize) -> Vec<u32> {
    run(cpu, &mut nmc_h316::io::NoDevices, n)
}

#[test]
fn load_add_store_with_overflow_into_c() {
    // 1000 LDA 1100 ; 1001 ADD 1101 ; 1002 STA 1102 ; 1003 ADD 1103 (overflows)
    let mut cpu = machine(
        &[
            (0o1000, 0o005100), // LDA (sector bit) 100 of this sector
            (0o1001, 0o015101), // ADD
            (0o1002, 0o011102), // STA
            (0o1003, 0o015103), // ADD
            (0o1100, 0o000007),
            (0o1101, 0o000005),
            (0o1103, 0o077777),
        ],
        0o1000,
    );
    assert_eq!(
        steps(&mut cpu, 3),
        [4, 4, 4],
        "LDA, ADD, STA: 2 cycles each"
    );
    assert_eq!(cpu.mem.read(0o1102), 12);
    assert!(!cpu.c);
    steps(&mut cpu, 1);
    assert_eq!(cpu.a, 0o100013, "7 + 5 + 077777 wraps");
    assert!(cpu.c, "ADD overflow sets C");
    assert_eq!(cpu.now_ns(), 4 * 1920, "four 1.92 µs instructions on a 516");
}

#[test]
fn sector_zero_and_logical_ops() {
    // sector bit clear: address in sector zero whatever the sector of the instruction.
    let mut cpu = machine(
        &[
            (0o2000, 0o004150), // LDA 150 (sector zero)
            (0o2001, 0o006151), // ANA 151
            (0o2002, 0o012152), // ERA 152
            (0o2003, 0o016153), // SUB 153
            (0o150, 0o177770),
            (0o151, 0o000017),
            (0o152, 0o000001),
            (0o153, 0o000010),
        ],
        0o2000,
    );
    steps(&mut cpu, 4);
    assert_eq!(cpu.a, (((0o177770 & 0o17) ^ 1) as u16).wrapping_sub(8));
    assert!(!cpu.c);
}

#[test]
fn index_register_is_location_zero() {
    // LDX 200 (3 cycles), LDA 300,X (2), STX 201 (2).
    let mut cpu = machine(
        &[
            (0o100, 0o072200), // LDX 200
            (0o101, 0o044300), // LDA 300,1
            (0o102, 0o032201), // STX 201
            (0o200, 0o000005),
            (0o305, 0o123456),
        ],
        0o100,
    );
    assert_eq!(steps(&mut cpu, 3), [6, 4, 4]);
    assert_eq!(cpu.a, 0o123456);
    assert_eq!(cpu.x(), 5);
    assert_eq!(cpu.mem.read(0), 5, "X is memory word 0");
    assert_eq!(cpu.mem.read(0o201), 5);
}

#[test]
fn locations_one_to_seventeen_are_not_written() {
    let mut cpu = machine(&[(0o100, 0o010005), (0o101, 0o010020)], 0o100); // STA 5; STA 20
    cpu.a = 0o777;
    steps(&mut cpu, 2);
    assert_eq!(cpu.mem.read(5), 0);
    assert_eq!(cpu.mem.read(0o20), 0o777);
}

#[test]
fn indirection_costs_a_cycle_a_level_and_indexes_in_normal_mode() {
    // LDA* 200: 200 -> *210 (flag), 210 -> 300 with tag: + X.
    let mut cpu = machine(
        &[
            (0o0, 0o000002),   // X = 2
            (0o100, 0o104200), // LDA* 200
            (0o200, 0o100210), // indirect again
            (0o210, 0o040300), // tag: index
            (0o302, 0o000042),
        ],
        0o100,
    );
    assert_eq!(steps(&mut cpu, 1), [4 + 2 + 2], "LDA 2 cycles + 2 levels");
    assert_eq!(cpu.a, 0o42);
}

#[test]
fn extend_mode_indirect_words_are_15_bits_and_index_once_after() {
    let mut cpu = machine_with(
        CpuConfig {
            memory_words: 32 * 1024,
            ..CpuConfig::default()
        },
        &[
            (0o0, 0o000001),
            (0o100, 0o000013), // EXA
            (0o101, 0o144200), // LDA* 200,X (flag+tag)
            (0o200, 0o040300), // in extend mode 040300 is an address, not a tag
            (0o40301, 0o000077),
        ],
        0o100,
    );
    steps(&mut cpu, 2);
    assert!(cpu.extend_mode());
    assert_eq!(cpu.a, 0o77, "040300 + X(1)");
}

#[test]
fn jst_cas_irs_ima() {
    let mut cpu = machine(
        &[
            (0o100, 0o020300), // JST 300
            (0o101, 0o000000), // HLT (return lands here)
            (0o300, 0o000000), // return address stored here
            (0o301, 0o102300), // JMP* 300
        ],
        0o100,
    );
    assert_eq!(steps(&mut cpu, 2), [6, 2 + 2], "JST 3 cycles; JMP* 1 + 1");
    assert_eq!(cpu.mem.read(0o300), 0o101);
    assert_eq!(cpu.p(), 0o101);
    assert_eq!(cpu.step(&mut nmc_h316::io::NoDevices), Ok(Step::Halted));
    assert!(cpu.halted());

    // CAS: equal skips one, less skips two, greater none.
    for (a, m, after) in [
        (5u16, 5u16, 0o202u16),
        (3, 5, 0o203),
        (7, 5, 0o201),
        (0o177777, 1, 0o203),
    ] {
        let mut cpu = machine(&[(0o200, 0o022300), (0o300, m)], 0o200);
        cpu.a = a;
        assert_eq!(steps(&mut cpu, 1), [6], "CAS 3 cycles");
        assert_eq!(cpu.p(), after, "CAS A={a:o} M={m:o}");
    }

    // IRS: counts up, skips on zero.
    let mut cpu = machine(
        &[(0o200, 0o024300), (0o201, 0o024300), (0o300, 0o177776)],
        0o200,
    );
    steps(&mut cpu, 1);
    assert_eq!(cpu.p(), 0o201);
    steps(&mut cpu, 1);
    assert_eq!(cpu.p(), 0o203, "the second IRS reached zero and skipped");

    // IMA: exchange.
    let mut cpu = machine(&[(0o200, 0o026300), (0o300, 0o111)], 0o200);
    cpu.a = 0o222;
    assert_eq!(steps(&mut cpu, 1), [6], "IMA 3 cycles");
    assert_eq!((cpu.a, cpu.mem.read(0o300)), (0o111, 0o222));
}

#[test]
fn a_timing_loop_runs_at_four_cycles_an_iteration() {
    // A count-up loop, IRS then a jump back (the IMP program times its start-up waits with
    // such loops): 3 + 1 cycles a turn.
    let mut cpu = machine(
        &[
            (0o200, 0o024045),
            (0o201, 0o002200),
            (0o202, 0o0),
            (0o45, 0o177766),
        ],
        0o200,
    );
    let mut n = 0;
    while cpu.step(&mut nmc_h316::io::NoDevices).unwrap() != Step::Halted {
        n += 1;
    }
    // 10 IRS, 9 JMP, 1 HLT.
    assert_eq!(n, 19);
    assert_eq!(cpu.half_cycles(), 10 * 6 + 9 * 2 + 2);
    let mut c316 = machine_with(
        CpuConfig {
            model: Model::H316,
            ..CpuConfig::default()
        },
        &[
            (0o200, 0o024045),
            (0o201, 0o002200),
            (0o202, 0o0),
            (0o45, 0o177766),
        ],
        0o200,
    );
    while c316.step(&mut nmc_h316::io::NoDevices).unwrap() != Step::Halted {}
    assert_eq!(c316.now_ns(), 80 * 800, "the same cycles at 1.6 µs");
    assert_eq!(cpu.now_ns(), 80 * 480);
}

#[test]
fn shifts() {
    fn sh(word: u16, a: u16, b: u16) -> (u16, u16, bool, u32) {
        let mut cpu = machine(&[(0o100, word)], 0o100);
        cpu.a = a;
        cpu.b = b;
        let hc = steps(&mut cpu, 1)[0];
        (cpu.a, cpu.b, cpu.c, hc)
    }
    // LGL 1 = 041477: C gets the bit shifted out.
    assert_eq!(sh(0o041477, 0o100001, 0), (0o000002, 0, true, 3));
    // LGR 2 = 040476.
    assert_eq!(sh(0o040476, 0o000006, 0), (0o000001, 0, true, 4));
    // ARS 1 = 040577: sign propagates.
    assert_eq!(sh(0o040577, 0o100000, 0), (0o140000, 0, false, 3));
    // ALS 1 = 041577: overflow when the sign changes.
    assert!(sh(0o041577, 0o040000, 0).2, "ALS overflow");
    assert!(!sh(0o041577, 0o020000, 0).2, "ALS no overflow");
    // ALR 1 / ARR 1: rotate, C the bit that crossed.
    assert_eq!(sh(0o041677, 0o100000, 0), (0o000001, 0, true, 3));
    assert_eq!(sh(0o040677, 0o000001, 0), (0o100000, 0, true, 3));
    // LLL 4 = 041074: 32 bits A'B.
    assert_eq!(sh(0o041074, 0o000001, 0o170000), (0o000037, 0, false, 6));
    // LRL 4 = 040074.
    assert_eq!(sh(0o040074, 0o000027, 0), (0o000001, 0o070000, false, 6));
    // LRS 1 = 040177: 31-bit arithmetic, B's sign bit skipped (kept).
    assert_eq!(
        sh(0o040177, 0o100001, 0o100000),
        (0o140000, 0o140000, false, 3)
    );
    // LLR 1 = 041277: rotate A'B left.
    assert_eq!(sh(0o041277, 0o100000, 0o000001), (0, 0o000003, true, 3));
    // LRR 16 = 040260: swap A and B.
    assert_eq!(
        sh(0o040260, 0o1234, 0o5670),
        (0o5670, 0o1234, false, 2 + 16)
    );
}

#[test]
fn skips() {
    fn skipped(word: u16, a: u16, c: bool, sense: [bool; 4]) -> bool {
        let mut cpu = machine(&[(0o100, word)], 0o100);
        cpu.a = a;
        cpu.c = c;
        cpu.sense = sense;
        assert_eq!(steps(&mut cpu, 1), [2], "skips are 1 cycle");
        cpu.p() == 0o102
    }
    let off = [false; 4];
    assert!(skipped(0o100000, 0, false, off), "SKP");
    assert!(!skipped(0o101000, 0, false, off), "NOP");
    assert!(skipped(0o100040, 0, false, off), "SZE on zero");
    assert!(!skipped(0o100040, 1, false, off), "SZE on non-zero");
    assert!(skipped(0o101040, 1, false, off), "SNZ");
    assert!(skipped(0o100400, 1, false, off), "SPL");
    assert!(skipped(0o101400, 0o100000, false, off), "SMI");
    assert!(skipped(0o100001, 0, false, off), "SRC");
    assert!(skipped(0o101001, 0, true, off), "SSC");
    assert!(skipped(0o101100, 3, false, off), "SLN");
    assert!(skipped(0o100100, 2, false, off), "SLZ");
    assert!(
        skipped(0o101010, 0, false, [false, true, false, false]),
        "SS2"
    );
    assert!(skipped(0o100002, 0, false, off), "SR4");
    // Combined: SZE with SMI bit, reverse clear: skip only if A is zero AND plus.
    assert!(!skipped(0o100440, 0o100000, false, off));
}

#[test]
fn generic_a() {
    fn g(word: u16, a: u16, c: bool) -> (u16, bool) {
        let mut cpu = machine(&[(0o100, word)], 0o100);
        cpu.a = a;
        cpu.c = c;
        steps(&mut cpu, 1);
        (cpu.a, cpu.c)
    }
    assert_eq!(g(0o140024, 0o1, false), (0o100001, false), "CHS");
    assert_eq!(g(0o140040, 0o7, false), (0, false), "CRA");
    assert_eq!(g(0o140100, 0o100007, false), (0o7, false), "SSP");
    assert_eq!(g(0o140200, 0, true), (0, false), "RCB");
    assert_eq!(g(0o140320, 0o100007, false), (0o7, true), "CSA");
    assert_eq!(g(0o140401, 0o7, false), (0o177770, false), "CMA");
    assert_eq!(g(0o140407, 0o1, false), (0o177777, false), "TCA");
    assert_eq!(g(0o140500, 0o1, false), (0o100001, false), "SSM");
    assert_eq!(g(0o140600, 0, false), (0, true), "SCB");
    assert_eq!(g(0o141044, 0o123456, false), (0o123400, false), "CAR");
    assert_eq!(g(0o141050, 0o123456, false), (0o56, false), "CAL");
    assert_eq!(g(0o141140, 0o123456, false), (0o247, false), "ICL");
    assert_eq!(g(0o141240, 0o123456, false), (0o027000, false), "ICR");
    assert_eq!(g(0o141340, 0o123456, false), (0o027247, false), "ICA");
    assert_eq!(
        g(0o141206, 0o077777, false),
        (0o100000, true),
        "AOA overflow"
    );
    assert_eq!(g(0o141216, 0o000001, true), (0o000002, false), "ACA");
}

/// A bus with one device, 33: OCP 0 sets a flag, SKS 0 skips when it is set, INA 0 gives
/// 0o70 when the flag is set, OTA 0 takes A.
#[derive(Default)]
struct Dev33 {
    flag: bool,
    out: Vec<u16>,
    ocp_at: Vec<u64>,
}

impl Bus for Dev33 {
    fn ocp(&mut self, cx: &mut IoCx<'_>, dev: u8, func: u8) -> Result<(), IoError> {
        match (dev, func) {
            (0o33, 0) => {
                self.flag = true;
                self.ocp_at.push(cx.now_ns);
                Ok(())
            }
            (0o33, 1) => {
                cx.irq.request(3);
                Ok(())
            }
            (0o33, _) => Err(IoError::NoFunction),
            _ => Err(IoError::NoDevice),
        }
    }
    fn sks(&mut self, _: &mut IoCx<'_>, dev: u8, func: u8) -> Result<bool, IoError> {
        match (dev, func) {
            (0o33, 0) => Ok(self.flag),
            _ => Err(IoError::NoDevice),
        }
    }
    fn ina(&mut self, _: &mut IoCx<'_>, dev: u8, func: u8) -> Result<Option<u16>, IoError> {
        match (dev, func) {
            (0o33, 0) => Ok(self.flag.then_some(0o70)),
            _ => Err(IoError::NoDevice),
        }
    }
    fn ota(&mut self, _: &mut IoCx<'_>, dev: u8, func: u8, a: u16) -> Result<bool, IoError> {
        match (dev, func) {
            (0o33, 0) => {
                self.out.push(a);
                Ok(true)
            }
            _ => Err(IoError::NoDevice),
        }
    }
}

#[test]
fn io_instructions_skip_when_the_device_is_ready_and_ina_ors_into_a() {
    let mut cpu = machine(
        &[
            (0o100, 0o070033), // SKS 33 (not set: no skip)
            (0o101, 0o130033), // INA 33 (not ready: no skip, A kept)
            (0o102, 0o030033), // OCP 33
            (0o103, 0o070033), // SKS 33 (set: skip)
            (0o104, 0o000000),
            (0o105, 0o130033), // INA 33: A |= 070, skip
            (0o106, 0o000000),
            (0o107, 0o131033), // INA 1033: clear A first, then 070, skip
            (0o110, 0o000000),
            (0o111, 0o170033), // OTA 33: taken, skip
        ],
        0o100,
    );
    cpu.a = 0o1;
    let mut bus = Dev33::default();
    assert_eq!(run(&mut cpu, &mut bus, 2), [4, 4], "I/O 2 cycles");
    assert_eq!((cpu.p(), cpu.a), (0o102, 0o1));
    run(&mut cpu, &mut bus, 2);
    assert_eq!(cpu.p(), 0o105);
    assert_eq!(bus.ocp_at, [3 * 1920], "the OCP acts when its cycles end");
    run(&mut cpu, &mut bus, 1);
    assert_eq!((cpu.p(), cpu.a), (0o107, 0o71));
    run(&mut cpu, &mut bus, 1);
    assert_eq!((cpu.p(), cpu.a), (0o111, 0o70));
    run(&mut cpu, &mut bus, 1);
    assert_eq!((cpu.p(), bus.out.as_slice()), (0o113, [0o70].as_slice()));
}

#[test]
fn unanswered_io_and_missing_options_are_faults_not_panics() {
    let mut cpu = machine(&[(0o100, 0o030077)], 0o100); // OCP 77
    let e = cpu.step(&mut Dev33::default()).unwrap_err();
    assert!(
        matches!(
            e,
            Fault::Io {
                p: 0o100,
                word: 0o030077,
                dev: 0o77,
                ..
            }
        ),
        "{e}"
    );
    let mut cpu = machine(&[(0o100, 0o034100)], 0o100); // MPY 100
    let e = cpu.step(&mut nmc_h316::io::NoDevices).unwrap_err();
    assert!(
        matches!(
            e,
            Fault::Unimplemented {
                p: 0o100,
                word: 0o034100,
                ..
            }
        ),
        "{e}"
    );
    // A loop of indirect words.
    let mut cpu = machine(&[(0o100, 0o104200), (0o200, 0o100200)], 0o100);
    let e = cpu.step(&mut nmc_h316::io::NoDevices).unwrap_err();
    assert!(matches!(e, Fault::IndirectLoop { .. }), "{e}");
}

#[test]
fn an_interrupt_is_a_jst_through_its_vector_after_the_instruction_after_enb() {
    // Level 3 vector is 66; its handler at 500 (entry word), code at 501.
    let mut cpu = machine(
        &[
            (0o66, 0o000500),
            (0o100, 0o140040), // CRA
            (0o101, 0o170120), // SMK 120 (A = mask)
            (0o102, 0o030133), // OCP 1,33: request level 3 (bus below)
            (0o103, 0o000401), // ENB
            (0o104, 0o101000), // NOP: runs before the interrupt
            (0o105, 0o101000), // NOP: interrupted before this one
            (0o501, 0o000043), // INK
            (0o502, 0o000011), // DXA
            (0o503, 0o000401), // ENB
            (0o504, 0o102500), // JMP* 500 (return; extend off at this jump)
        ],
        0o100,
    );
    cpu.mem.deposit(0o200, 0o020000); // mask for level 3
    cpu.mem.deposit(0o100, 0o004200); // LDA 200 instead of CRA
    let mut bus = Dev33::default();
    run(&mut cpu, &mut bus, 4);
    assert_eq!(cpu.irq.priority_mask(), 0o020000);
    assert_eq!(run(&mut cpu, &mut bus, 1), [2], "the NOP after ENB");
    let hc = run(&mut cpu, &mut bus, 1)[0];
    assert_eq!(hc, 4 + 2, "interrupt: JST* without a fetch, 2 + 1 cycles");
    assert_eq!(cpu.mem.read(0o500), 0o105, "the interrupted P");
    assert!(cpu.extend_mode(), "interrupts enter extend mode");
    assert!(!cpu.irq.enabled());
    run(&mut cpu, &mut bus, 1);
    assert_eq!(
        cpu.a & 0o20000,
        0,
        "INK: the interrupted code was not in extend mode"
    );
    run(&mut cpu, &mut bus, 3);
    assert_eq!(cpu.p(), 0o105);
    assert!(!cpu.extend_mode(), "DXA took effect at the return jump");
}

#[test]
fn smk_and_otk_do_not_skip() {
    let mut cpu = machine(&[(0o100, 0o170020), (0o101, 0o171020)], 0o100);
    cpu.a = 0o100000;
    steps(&mut cpu, 2);
    assert_eq!(cpu.p(), 0o102);
    assert!(cpu.c, "OTK: A1 to C");
}

#[test]
fn a_pending_extend_off_survives_an_interrupt_until_the_handlers_first_jump() {
    // EXA; ENB; DXA — interrupted before the jump that would end extend mode.
    let mut cpu = machine(
        &[
            (0o66, 0o000500),
            (0o100, 0o000013), // EXA
            (0o101, 0o000401), // ENB
            (0o102, 0o000011), // DXA (pending)
            (0o103, 0o002103), // JMP * (never reached before the interrupt)
            (0o501, 0o002502), // JMP 502: carries out the pending extend off
            (0o502, 0o000000),
        ],
        0o100,
    );
    cpu.irq.set_priority_mask(0o020000);
    cpu.irq.request(3);
    steps(&mut cpu, 3);
    assert!(cpu.extend_mode());
    steps(&mut cpu, 1); // the interrupt
    assert!(cpu.extend_mode());
    steps(&mut cpu, 1); // JMP 502
    assert!(
        !cpu.extend_mode(),
        "the DXA took effect at the handler's first jump"
    );
}
