//! How long program 3050 takes to make a single-packet message's RFNM at its destination,
//! measured on nmc's emulator: the constant behind the profile's `single_rfnm_316`/`_516`
//! (issue 71, 4 Dec 2026).
//!
//! Two IMPs (2 and 3) on one 50 kbit/s line; once they are up, the host on IMP 2 sends a NOP
//! (the program drops a host's first input), then a single-packet message (63 words) to IMP 3's
//! discard fake host every 2 s. IMP 3 is stepped instruction by instruction around each
//! message, and the moments its program reaches two places of the listing are noted:
//! `IH63` (p. 155, 17214: the host output is done with the packet and its reply is marked due)
//! and the call of `GIVTSK` in `BACK0`'s path (pp. 52–53, 04077: the background has built the
//! RFNM and gives it to the task). Printed per machine: the medians of packet in → `IH63`,
//! `IH63` → `GIVTSK`, and `IH63` → the RFNM's first bit on the line back (the medians of `nmc oracle per-hop`: nearest rank),
//! over the messages
//! whose RFNM found that line idle (a RFNM that waits behind a routing message is left out).
//! Then the same messages to IMP 3's real host (interface 1): from the message's last bit at
//! the host to `IH63` and to the RFNM's first bit (4 Dec 2026: 2.34 ms on a 516, 4.13 on a 316,
//! where the model, from the same moment, takes `single_rfnm_516`/`_316`, 1.84 and 2.89).
//!
//! ```sh
//! NMC_IMP_PROGRAM=~/src/simh/H316/tests/impcode.cmd \
//!     cargo run --release -p nmc-oracle --example background_rfnm
//! ```
//!
//! The program is BBN's and is never committed: it is read from `NMC_IMP_PROGRAM`.

use nmc_h316::{CpuConfig, Image, Imp, ImpConfig, Model, Output};
use nmc_oracle::leader::{Address, FakeHost, Kind, Leader};
use nmc_oracle::perhop::dist;

/// `IH63` (listing p. 155).
const IH63: u16 = 0o17214;
/// `JST GIVTSK` in `BACK0`'s reply path (listing p. 52).
const GIVTSK_CALL: u16 = 0o4077;
const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;
/// Messages sent (one every 2 s from 96 s).
const MESSAGES: u64 = 22;

fn main() {
    let Some(path) = nmc_oracle::emulate::program_path(None) else {
        eprintln!("NOT RUN: set NMC_IMP_PROGRAM to SIMH's H316/tests/impcode.cmd");
        return;
    };
    let image = nmc_oracle::emulate::read_program(&path).expect("the IMP program reads");
    println!(
        "| machine | messages | packet in → IH63 ms | IH63 → GIVTSK ms | IH63 → RFNM's first bit ms (idle line) |"
    );
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (name, model) in [("516", Model::H516), ("316", Model::H316)] {
        let m = measure(&image, model, false);
        println!(
            "| {name} | {} | {:.2} | {:.2} | {:.2} ({} messages) |",
            m.to_ih63.len(),
            dist(&m.to_ih63).median,
            dist(&m.to_givtsk).median,
            dist(&m.to_rfnm).median,
            m.to_rfnm.len()
        );
    }
    // The same messages to IMP 3's real host (interface 1, taking the IMP's output as fast as
    // the interface sends it): from the message's last bit at the host to the RFNM's first bit.
    println!();
    println!(
        "| machine | to a real host: messages | IH63 → GIVTSK ms | host's last bit → IH63 ms | host's last bit → RFNM's first bit ms (idle line) |"
    );
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (name, model) in [("516", Model::H516), ("316", Model::H316)] {
        let m = measure(&image, model, true);
        println!(
            "| {name} | {} | {:.2} | {:.2} | {:.2} ({} messages) |",
            m.to_givtsk.len(),
            dist(&m.to_givtsk).median,
            dist(&m.host_to_ih63).median,
            dist(&m.host_to_rfnm).median,
            m.host_to_rfnm.len()
        );
    }
}

/// Intervals in ns, one per message.
#[derive(Default)]
struct Measured {
    to_ih63: Vec<u64>,
    to_givtsk: Vec<u64>,
    to_rfnm: Vec<u64>,
    /// To a real host: its last bit → `IH63`, and → the RFNM's first bit (idle line).
    host_to_ih63: Vec<u64>,
    host_to_rfnm: Vec<u64>,
}

/// One message's moments at IMP 3, ns.
#[derive(Default)]
struct Moments {
    packet_in: Option<u64>,
    ih63: Option<u64>,
    givtsk: Option<u64>,
    rfnm_first_bit: Option<u64>,
    /// The message's last bit at IMP 3's real host.
    host_last_bit: Option<u64>,
    /// When the line back was last busy before the RFNM (its last frame's last bit).
    line_free_at: u64,
}

fn measure(image: &Image, model: Model, real_host: bool) -> Measured {
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
            imp.set_host_ready(1, true, 0).unwrap();
            imp
        })
        .collect();
    let window = 200_000;
    let mut out = Measured::default();
    let mut now = 0;
    let mut sent: Option<u64> = None;
    let mut moments = Moments::default();
    let first = 96 * S;
    let last = first + 2 * S * MESSAGES;
    while now < last + 2 * S {
        now += window;
        if now > 95 * S && now <= 95 * S + window {
            let nop = Leader::new(Kind::Nop, Address::fake(0, FakeHost::Tty), 0).unwrap();
            let t = now.max(imps[0].now_ns());
            imps[0].host_send(1, nop.encode().to_vec(), t).unwrap();
        }
        if now >= first && now < last && (now - first) % (2 * S) < window {
            finish(&moments, &mut out);
            moments = Moments::default();
            let dest = if real_host {
                Address {
                    imp: 3,
                    host: 0,
                    for_imp: false,
                }
            } else {
                Address::fake(3, FakeHost::Discard)
            };
            let to = Leader::new(Kind::Regular, dest, 7).unwrap();
            let mut words = to.encode().to_vec();
            words.extend([0o1111u16; 63]);
            let t = now.max(imps[0].now_ns());
            imps[0].host_send(1, words, t).unwrap();
            sent = Some(t);
        }
        let mut frames = Vec::new();
        for (i, imp) in imps.iter_mut().enumerate() {
            let watching = i == 1 && sent.is_some_and(|s| now > s && now < s + 100 * MS);
            if watching {
                while imp.now_ns() < now {
                    let t = imp.now_ns();
                    imp.run_until(t + 1).unwrap();
                    let p = imp.cpu.p();
                    if p == IH63 && moments.ih63.is_none() {
                        moments.ih63 = Some(imp.now_ns());
                    }
                    if p == GIVTSK_CALL && moments.ih63.is_some() && moments.givtsk.is_none() {
                        moments.givtsk = Some(imp.now_ns());
                    }
                }
            } else {
                imp.run_until(now).unwrap();
            }
            for o in imp.take_outputs() {
                if let Output::HostMessage {
                    host: 1,
                    last_bit_ns,
                    ..
                } = o
                    && i == 1
                    && sent.is_some()
                {
                    moments.host_last_bit.get_or_insert(last_bit_ns);
                }
                if let Output::Frame {
                    line,
                    words,
                    first_bit_ns,
                    last_bit_ns,
                } = o
                {
                    let in_message = sent.is_some_and(|s| first_bit_ns > s);
                    if in_message && i == 0 && words.len() == 69 {
                        moments.packet_in.get_or_insert(last_bit_ns);
                    }
                    // A reply about a single-packet message (HEAD: ONEOR8 and RFNM, not TRNREP).
                    let rfnm = words.len() == 5 && words[1] & 0o305 == 0o300;
                    if in_message && i == 1 && moments.rfnm_first_bit.is_none() {
                        if rfnm && moments.ih63.is_some() {
                            moments.rfnm_first_bit = Some(first_bit_ns);
                        } else {
                            moments.line_free_at = moments.line_free_at.max(last_bit_ns);
                        }
                    }
                    frames.push((1 - i, line, words, last_bit_ns));
                }
            }
        }
        for (j, line, words, at) in frames {
            imps[j].deliver_frame(line, words, at, true).unwrap();
        }
    }
    finish(&moments, &mut out);
    out
}

fn finish(m: &Moments, out: &mut Measured) {
    if let (Some(host), Some(ih63), Some(givtsk), Some(rfnm)) =
        (m.host_last_bit, m.ih63, m.givtsk, m.rfnm_first_bit)
    {
        out.to_givtsk.push(givtsk.saturating_sub(ih63));
        out.host_to_ih63.push(ih63.saturating_sub(host));
        if m.line_free_at <= givtsk {
            out.host_to_rfnm.push(rfnm.saturating_sub(host));
        }
        return;
    }
    let (Some(arrived), Some(ih63), Some(givtsk), Some(rfnm)) =
        (m.packet_in, m.ih63, m.givtsk, m.rfnm_first_bit)
    else {
        return;
    };
    let ms = |a: u64, b: u64| b.saturating_sub(a);
    out.to_ih63.push(ms(arrived, ih63));
    out.to_givtsk.push(ms(ih63, givtsk));
    // Only where the line back was idle when the RFNM was given to the task.
    if m.line_free_at <= givtsk {
        out.to_rfnm.push(ms(ih63, rfnm));
    }
}
