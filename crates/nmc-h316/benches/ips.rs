//! Instructions per second: the emulator's speed, in a benchmark (never a timed test).
//!
//! * `cpu/mixed_loop`: a loop of memory-reference, indexed, indirect, shift, skip and generic
//!   instructions on a bare CPU (no devices), 1,000 instructions an iteration of the bench.
//! * `imp/program_idle` (only with `NMC_IMP_PROGRAM`): BBN's IMP program on one IMP, 1 s of
//!   simulated time from start-up, devices and clock included.
//! * `imp/pair_lines_up` (only with `NMC_IMP_PROGRAM`): two IMPs and their line, 10 s of
//!   simulated time from start-up (routing messages flowing); throughput in instructions of
//!   both machines.
//!
//! `cargo bench -p nmc-h316`; criterion prints the rate as "Kelem/s" or "Melem/s" where an
//! element is one instruction.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nmc_h316::io::NoDevices;
use nmc_h316::subnet::{Line, Subnet};
use nmc_h316::{Cpu, CpuConfig, Image, Imp, ImpConfig};
use std::hint::black_box;

fn mixed_loop() -> Cpu {
    let mut cpu = Cpu::new(CpuConfig::default());
    let program: &[(u16, u16)] = &[
        (0o45, 0o177000),  // loop counter
        (0o200, 0o072300), // LDX 300
        (0o201, 0o044400), // LDA 400,X
        (0o202, 0o014401), // ADD 401
        (0o203, 0o104302), // LDA* 302
        (0o204, 0o041474), // LGL 4
        (0o205, 0o100040), // SZE
        (0o206, 0o140401), // CMA
        (0o207, 0o010402), // STA 402
        (0o210, 0o022402), // CAS 402
        (0o211, 0o101000), // NOP
        (0o212, 0o101000), // NOP
        (0o213, 0o024045), // IRS 45
        (0o214, 0o002201), // JMP 201
        (0o215, 0o140040), // CRA
        (0o216, 0o010045), // STA 45 (restart the count)
        (0o217, 0o002201), // JMP 201
        (0o300, 0o000002),
        (0o302, 0o000401),
        (0o402, 0o000000),
        (0o403, 0o000005),
    ];
    for &(a, w) in program {
        cpu.mem.deposit(a, w);
    }
    cpu.set_p(0o200);
    cpu
}

fn program() -> Option<Image> {
    let path = std::env::var_os("NMC_IMP_PROGRAM")?;
    Image::parse(&std::fs::read_to_string(path).ok()?).ok()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("cpu");
    g.throughput(Throughput::Elements(1000));
    let mut cpu = mixed_loop();
    g.bench_function("mixed_loop", |b| {
        b.iter(|| {
            for _ in 0..1000 {
                black_box(cpu.step(&mut NoDevices).unwrap());
            }
        })
    });
    g.finish();

    let Some(image) = program() else {
        eprintln!("NOT RUN: imp/* benches need NMC_IMP_PROGRAM (the path of impcode.cmd)");
        return;
    };
    let mut g = c.benchmark_group("imp");
    g.sample_size(10);
    // Count the instructions of one run to state the throughput.
    let run_one = |image: &Image| {
        let mut imp = Imp::new(&ImpConfig::default());
        imp.load(image);
        imp.run_until(1_000_000_000).unwrap();
        imp
    };
    let n = run_one(&image).cpu.instructions();
    g.throughput(Throughput::Elements(n));
    g.bench_function("program_idle", |b| b.iter(|| black_box(run_one(&image))));

    let run_pair = |image: &Image| {
        let imps = [2u16, 3]
            .iter()
            .map(|&number| {
                let mut imp = Imp::new(&ImpConfig {
                    number,
                    ..ImpConfig::default()
                });
                imp.load(image);
                imp
            })
            .collect();
        let mut net = Subnet::new(
            imps,
            vec![Line {
                a: (0, 1),
                b: (1, 1),
                propagation_ns: 100_000,
            }],
        );
        net.run_until(10_000_000_000).unwrap();
        net
    };
    let n: u64 = run_pair(&image)
        .imps
        .iter()
        .map(|i| i.cpu.instructions())
        .sum();
    g.throughput(Throughput::Elements(n));
    g.bench_function("pair_lines_up", |b| b.iter(|| black_box(run_pair(&image))));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
