//! Two IMPs joined by one line, each with a host: print the trace.
//!
//! `NMC_IMP_PROGRAM=/path/to/impcode.cmd cargo run --release -p nmc-h316 --example imp_pair -- [seconds] [tick_us]`

use nmc_h316::subnet::{Line, Subnet};
use nmc_h316::{Image, Imp, ImpConfig};

fn main() {
    let path = std::env::var("NMC_IMP_PROGRAM").expect("NMC_IMP_PROGRAM: the path of impcode.cmd");
    let image = Image::parse(&std::fs::read_to_string(&path).expect("read")).expect("parse");
    let args: Vec<String> = std::env::args().collect();
    let secs: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(60);
    let tick_us: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let imps = [2u16, 3]
        .iter()
        .map(|&n| {
            let mut imp = Imp::new(&ImpConfig {
                number: n,
                clock_tick_ns: tick_us * 1000,
                ..ImpConfig::default()
            });
            imp.load(&image);
            imp.set_host_ready(1, true, 0).unwrap();
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
    let t0 = std::time::Instant::now();
    let r = net.run_until(secs * 1_000_000_000);
    for l in net.trace().lines().filter(|l| !l.contains(" FRAME ")) {
        println!("{l}");
    }
    println!(
        "{r:?}; frames {:?}; wall {:.2} s",
        net.frames_sent,
        t0.elapsed().as_secs_f64()
    );
}
