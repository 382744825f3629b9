//! Run BBN's IMP program headless and print what it does.
//!
//! `NMC_IMP_PROGRAM=/path/to/impcode.cmd cargo run --release -p nmc-h316 --example imp_headless -- [seconds] [tick_us]`

use nmc_h316::{Image, Imp, ImpConfig, RunStop};

fn main() {
    let path = std::env::var("NMC_IMP_PROGRAM").expect("NMC_IMP_PROGRAM: the path of impcode.cmd");
    let text = std::fs::read_to_string(&path).expect("read the program");
    let image = Image::parse(&text).expect("parse the program");
    let args: Vec<String> = std::env::args().collect();
    let secs: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(30);
    let tick_us: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let mut imp = Imp::new(&ImpConfig {
        number: 2,
        clock_tick_ns: tick_us * 1000,
        ..ImpConfig::default()
    });
    imp.load(&image);
    eprintln!("{image}");
    imp.set_host_ready(1, true, 0).unwrap();
    let t0 = std::time::Instant::now();
    let step = 100_000_000;
    let mut t = 0;
    while t < secs * 1_000_000_000 {
        t += step;
        match imp.run_until(t) {
            Ok(RunStop::Reached) => {}
            Ok(RunStop::Halted { p }) => {
                println!("halted at {p:05o}");
                break;
            }
            Err(e) => {
                println!("{:>12} fault: {e}", imp.now_ns());
                break;
            }
        }
        for o in imp.take_outputs() {
            println!("{o:?}");
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    println!(
        "simulated {:.3} s, {} instructions, wall {:.2} s, {:.1} M instr/s",
        imp.now_ns() as f64 / 1e9,
        imp.cpu.instructions(),
        wall,
        imp.cpu.instructions() as f64 / wall / 1e6
    );
}
