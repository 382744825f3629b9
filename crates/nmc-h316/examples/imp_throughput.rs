//! A chain of IMPs 2, 3, … joined by 50 kbit/s lines (modem 2 of one to modem 1 of the next):
//! host 1 of the first IMP sends N-word messages to the last IMP's discard fake host on links
//! 1–k, a new one on a link when that link's RFNM comes back; prints the throughput and round
//! trips. Exploratory (issue 73 §4 compares with SIMH's recordings).
//!
//! `NMC_IMP_PROGRAM=… cargo run --release -p nmc-h316 --example imp_throughput -- [words] [seconds] [outstanding] [hops]`

use nmc_h316::subnet::{Line, Subnet};
use nmc_h316::{Image, Imp, ImpConfig};

fn main() {
    let path = std::env::var("NMC_IMP_PROGRAM").expect("NMC_IMP_PROGRAM");
    let image = Image::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let args: Vec<String> = std::env::args().collect();
    let data_words: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(501);
    let secs: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(60);
    let outstanding: u16 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(4);
    let hops: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let imps = (0..=hops)
        .map(|i| {
            let mut imp = Imp::new(&ImpConfig {
                number: 2 + i as u16,
                modems: [Some(50_000), Some(50_000), None, None, None],
                cpu: nmc_h316::CpuConfig {
                    // MODEL=316 for a 316's 1.6 µs cycle.
                    model: if std::env::var("MODEL").as_deref() == Ok("316") {
                        nmc_h316::Model::H316
                    } else {
                        nmc_h316::Model::H516
                    },
                    ..nmc_h316::CpuConfig::default()
                },
                ..ImpConfig::default()
            });
            imp.load(&image);
            imp.set_host_ready(1, true, 0).unwrap();
            imp
        })
        .collect();
    let lines = (0..hops)
        .map(|i| Line {
            a: (i, 2),
            b: (i + 1, 1),
            propagation_ns: 100_000,
        })
        .collect();
    let mut net = Subnet::new(imps, lines);
    let dest = 0o040300 | (2 + hops as u16);
    // Up: wait for the NOPs and RESET, then 10 s more (destinations come alive).
    net.run_until(100_000_000_000).unwrap();
    // The first message after the host comes up gets no answer (as in SIMH:
    // shared/oracle/first-run.md): send one to throw away.
    net.host_send(0, 1, vec![dest, 0o000400, 0]).unwrap();
    net.run_until(101_000_000_000).unwrap();
    net.take_deliveries();
    let start = net.now_ns();
    let msg = |link: u16| {
        let mut m = vec![dest, link << 8];
        m.extend((0..data_words).map(|i| i as u16));
        m
    };
    let mut sent_at = std::collections::BTreeMap::new();
    for link in 1..=outstanding {
        net.host_send(0, 1, msg(link)).unwrap();
        sent_at.insert(link, net.now_ns());
    }
    let (mut rfnms, mut rtts, mut other) = (0u64, Vec::new(), Vec::new());
    let t0 = std::time::Instant::now();
    while net.now_ns() < start + secs * 1_000_000_000 {
        let until = net.now_ns() + net.window_ns();
        if let Err(e) = net.run_until(until) {
            println!("{e}");
            break;
        }
        for d in net.take_deliveries() {
            let ty = (d.words[0] >> 8) & 0o17;
            let link = d.words.get(1).map_or(0, |w| w >> 8);
            if d.imp == 0 && ty == 5 {
                rfnms += 1;
                if let Some(t) = sent_at.get(&link) {
                    rtts.push(d.at_ns - t);
                }
                net.host_send(0, 1, msg(link)).unwrap();
                sent_at.insert(link, net.now_ns());
            } else {
                other.push((d.imp, ty, d.words.len()));
            }
        }
    }
    if std::env::var_os("TRACE").is_some() {
        for l in net.trace().lines().filter(|l| !l.contains(" FRAME ")) {
            println!("{l}");
        }
    }
    if std::env::var_os("TRACE").is_some() {
        println!("{:?}", net.imps[0].devices.host(1));
    }
    let elapsed = (net.now_ns() - start) as f64 / 1e9;
    rtts.sort_unstable();
    let median = rtts.get(rtts.len() / 2).copied().unwrap_or(0);
    println!(
        "{hops} hops, {data_words} data words, {outstanding} outstanding: {rfnms} RFNMs in {elapsed:.1} s = {:.1} kbit/s of data; median round trip {:.1} ms; other host messages {:?}; wall {:.1} s",
        rfnms as f64 * data_words as f64 * 16.0 / elapsed / 1e3,
        median as f64 / 1e6,
        &other[..other.len().min(10)],
        t0.elapsed().as_secs_f64()
    );
}
