//! How long program 3050 holds the processor at its timeout level (and above), measured on
//! nmc's emulator: the program's side of the profile's `fast_tick_*`, `slow_tick_*`,
//! `routing_update_*` and `routing_repeat_*` (issue 71, 4 Dec 2026).
//!
//! Two IMPs (2 and 3) on one 50 kbit/s line, idle after start-up. From 100 s to 130 s IMP 3 is
//! stepped instruction by instruction. A **stretch** is a stretch of time in which neither the
//! task level nor the background runs (every instruction at levels 0–5 of the listing's level
//! column, p. 11; a pause of task or background work of up to 300 µs inside one is counted in
//! it). Each stretch is named by the routine it ran:
//!
//! * **slow tick**: the slow timeout jobs, `JOBS` (p. 171: `IHTC`, `DEDH`, `JED`, `RUTCLK`,
//!   `RUTOUT`, `HTEST`, `HPOKE`, `DEDI`, `JUQC`, `MESSTO`, the `ADD` chain check), every 25th
//!   tick; its fast tick's jobs come with it;
//! * **routing message, new**: `RSTINP` (p. 225, at timeout level) copying a routing message
//!   with a new serial number into the tables (`COPYL`, pp. 226–228);
//! * **routing message, seen before**: `RSTINP` checking the code's checksum and the serial
//!   number only;
//! * **fast tick**: the rest (the clock's fast jobs every 25.6 ms, p. 161).
//!
//! Printed per machine: each kind's count and its median (nearest rank) beside the model's
//! profile value (`v2-1974-10`; the model charges a slow tick its `slow_tick_*` plus its
//! `fast_tick_*`).
//!
//! ```sh
//! NMC_IMP_PROGRAM=~/src/simh/H316/tests/impcode.cmd \
//!     cargo run --release -p nmc-oracle --example timeout_level
//! ```
//!
//! The program and its listing are BBN's and never committed: the program is read from
//! `NMC_IMP_PROGRAM`, the listing (for its level column, as `nmc oracle per-hop --listing`)
//! from `c-listing-ps.txt` beside it in the SIMH checkout.

use nmc_h316::{CpuConfig, Image, Imp, ImpConfig, Model, Output};
use nmc_oracle::perhop::dist;
use std::collections::BTreeMap;

/// `JOBS` (p. 171): the slow timeout jobs.
const JOBS: u16 = 0o21075;
/// `RSTCK1` (p. 225): `RSTINP`'s first step, for every routing message.
const RSTCK1: u16 = 0o26121;
/// `COPYL` (p. 226): the copy of a new routing message into the tables.
const COPYL: u16 = 0o26171;
const S: u64 = 1_000_000_000;
/// A task or background pause longer than this ends a stretch.
const GAP_NS: u64 = 300_000;

/// The kinds of stretch, in the order printed.
const KINDS: [&str; 4] = [
    "fast tick",
    "slow tick (with its fast tick)",
    "routing message, new",
    "routing message, seen before",
];

fn main() {
    let Some(path) = nmc_oracle::emulate::program_path(None) else {
        eprintln!("NOT RUN: set NMC_IMP_PROGRAM to SIMH's H316/tests/impcode.cmd");
        return;
    };
    let image = nmc_oracle::emulate::read_program(&path).expect("the IMP program reads");
    let listing = path.with_file_name("c-listing-ps.txt");
    let Ok(text) = std::fs::read_to_string(&listing) else {
        eprintln!("NOT RUN: no listing at {}", listing.display());
        return;
    };
    let levels = nmc_oracle::perhop::listing_levels(&text);
    println!("| machine | stretch | count | program median ms | model ms (v2-1974-10) |");
    println!("| --- | --- | ---: | ---: | ---: |");
    // The model's values, read from its profile (`v2-1974-10`), ms: fast, slow + fast, routing
    // new, routing seen.
    let profile = serde_json::to_value(
        nmc_imp::params::ImpParams::profile("v2-1974-10").expect("the 1974 profile"),
    )
    .expect("the profile serialises");
    let ms = |key: &str| {
        serde_json::from_value::<nmc_sim::SimDuration>(profile[key].clone())
            .unwrap_or_else(|e| panic!("{key}: {e}"))
            .as_millis_f64()
    };
    for (name, model) in [("516", Model::H516), ("316", Model::H316)] {
        let fast = ms(&format!("fast_tick_{name}"));
        let ours = [
            fast,
            ms(&format!("slow_tick_{name}")) + fast,
            ms(&format!("routing_update_{name}")),
            ms(&format!("routing_repeat_{name}")),
        ];
        let stretches = measure(&image, model, &levels);
        for (k, kind) in KINDS.iter().enumerate() {
            let v = stretches.get(kind).cloned().unwrap_or_default();
            if v.is_empty() {
                println!("| {name} | {kind} | 0 | — | {:.2} |", ours[k]);
                continue;
            }
            println!(
                "| {name} | {kind} | {} | {:.3} | {:.2} |",
                v.len(),
                dist(&v.iter().map(|&x| x as u64).collect::<Vec<_>>()).median,
                ours[k]
            );
        }
    }
}

/// Stretch lengths (ns) by kind.
fn measure(
    image: &Image,
    model: Model,
    levels: &BTreeMap<u16, char>,
) -> BTreeMap<&'static str, Vec<f64>> {
    // The task level (6) or the background (7) by the listing's level column (p. 11).
    let low = |p: u16| matches!(levels.get(&p), Some('6' | '7'));
    let mut imps: Vec<Imp> = [2u16, 3]
        .iter()
        .map(|&number| {
            let mut imp = Imp::new(&ImpConfig {
                number,
                cpu: CpuConfig {
                    model,
                    ..CpuConfig::default()
                },
                ..ImpConfig::default()
            });
            imp.load(image);
            imp
        })
        .collect();
    let window = 200_000;
    let mut now = 0;
    let mut out: BTreeMap<&'static str, Vec<f64>> = BTreeMap::new();
    // The stretch under way: its start, busy time, last busy instant, what it ran.
    let mut cur: Option<(u64, u64, u64, [bool; 3])> = None;
    while now < 130 * S {
        now += window;
        let mut frames = Vec::new();
        for (i, imp) in imps.iter_mut().enumerate() {
            if i == 1 && now > 100 * S {
                while imp.now_ns() < now {
                    let t = imp.now_ns();
                    let p = imp.cpu.p();
                    let low = low(p);
                    imp.run_until(t + 1).expect("the program runs");
                    let dt = imp.now_ns() - t;
                    if low {
                        if let Some((_, busy, last, ran)) = cur
                            && t - last > GAP_NS
                        {
                            let kind = match ran {
                                [true, _, _] => KINDS[1],
                                [false, _, true] => KINDS[2],
                                [false, true, false] => KINDS[3],
                                _ => KINDS[0],
                            };
                            out.entry(kind).or_default().push(busy as f64);
                            cur = None;
                        }
                        continue;
                    }
                    // A stretch begins with timeout-level code; interrupts above it, inside.
                    if cur.is_none() && levels.get(&p) != Some(&'5') {
                        continue;
                    }
                    let c = cur.get_or_insert((t, 0, t, [false; 3]));
                    c.1 += dt;
                    c.2 = t + dt;
                    c.3[0] |= p == JOBS;
                    c.3[1] |= p == RSTCK1;
                    c.3[2] |= p == COPYL;
                }
            } else {
                imp.run_until(now).expect("the program runs");
            }
            for o in imp.take_outputs() {
                if let Output::Frame {
                    line,
                    words,
                    last_bit_ns,
                    ..
                } = o
                {
                    frames.push((1 - i, line, words, last_bit_ns));
                }
            }
        }
        for (j, line, words, at) in frames {
            imps[j]
                .deliver_frame(line, words, at, true)
                .expect("a frame in time");
        }
    }
    out
}
