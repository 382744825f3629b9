//! A neighbour that is not the program, on a line with BBN's IMP program 3050 on nmc's emulator
//! (issue 73 §3: the first step to a network of modelled and emulated IMPs): the program brings
//! the line up with it, routes through it, takes its packets and replies, and sends it its own.
//!
//! The program is BBN's, with a proprietary notice: nmc never commits it. These tests read the
//! user's copy (SIMH's `H316/tests/impcode.cmd`) from `NMC_IMP_PROGRAM`, so they are marked
//! `#[ignore]`: a plain `cargo test` lists them as ignored, i.e. **not run**. Run them with
//! `NMC_IMP_PROGRAM=/path/to/impcode.cmd cargo test --release -p nmc-oracle --test neighbour --
//! --include-ignored --nocapture`; asked to run without the variable, each prints NOT RUN and
//! returns.
//!
//! What must hold, written before the first run: the line comes up (both ends) within the
//! program's own start-up (its line killed at power-on, 10 intervals silent, 60 intervals of
//! "I heard you": 6.4 + 38.4 s, plus the first routing messages); the program then reports
//! the neighbour's IMP one hop away; a message either way is answered by the right reply; the
//! program records no trouble (its trouble word, location 746 `HLTLOC`, listing p. 188, does not
//! change once the line is up) and never kills the line.

mod common;

use nmc_h316::{Image, Imp, ImpConfig, Output};
use nmc_oracle::leader::{Address, FakeHost, Kind, Leader};
use nmc_oracle::neighbour::frame::{self, head, head1, head2};
use nmc_oracle::neighbour::{Event, Neighbour, Offer, SpeedType};
use nmc_oracle::trace::{Frame, PacketHeader};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;
/// The program's trouble word (listing p. 188 `HLTWRD`: where the last trouble was reported).
const HLTLOC: u16 = 0o746;

/// Emulated IMPs and neighbours, each neighbour on one modem of one IMP, 50 kbit/s, no
/// propagation; run in windows shorter than the shortest frame.
struct Bench {
    imps: Vec<Imp>,
    nbrs: Vec<Neighbour>,
    /// Neighbour `i` is on modem `.1` of IMP `.0`.
    at: Vec<(usize, u8)>,
    /// Frames from the IMPs on their way to a neighbour: (last bit, neighbour, words).
    flying: Vec<(u64, usize, Vec<u16>)>,
    free_at: Vec<u64>,
    /// Messages the IMPs gave their hosts: (time, IMP, words).
    to_hosts: Vec<(u64, usize, Vec<u16>)>,
    now: u64,
}

const WINDOW_NS: u64 = MS;

fn frame_ns(words: usize) -> u64 {
    (words as u64 * 16 + 72) * S / 50_000
}

impl Bench {
    fn new(image: &Image, numbers: &[u16], nbrs: &[(u8, usize)]) -> Bench {
        let imps = numbers
            .iter()
            .map(|&number| {
                let mut imp = Imp::new(&ImpConfig {
                    number,
                    ..ImpConfig::default()
                });
                imp.load(image);
                imp.set_host_ready(1, true, 0).unwrap();
                imp
            })
            .collect();
        let speed = SpeedType::of(50_000, 72);
        Bench {
            imps,
            nbrs: nbrs
                .iter()
                .map(|&(own, _)| Neighbour::new(own, speed, 3 * MS))
                .collect(),
            at: nbrs.iter().map(|&(_, imp)| (imp, 1)).collect(),
            flying: Vec::new(),
            free_at: vec![0; nbrs.len()],
            to_hosts: Vec::new(),
            now: 0,
        }
    }

    /// Runs to `until`; `take` decides each offer (it may send on any neighbour).
    fn run(&mut self, until: u64, take: &mut dyn FnMut(&mut [Neighbour], usize, &Offer) -> bool) {
        while self.now < until {
            let b = (self.now + WINDOW_NS).min(until);
            self.neighbours_to(b, take);
            for (i, imp) in self.imps.iter_mut().enumerate() {
                imp.run_until(b).expect("the program runs");
                for o in imp.take_outputs() {
                    match o {
                        Output::Frame {
                            line,
                            words,
                            last_bit_ns,
                            ..
                        } => {
                            if let Some(n) = self.at.iter().position(|&a| a == (i, line)) {
                                self.flying.push((last_bit_ns, n, words));
                            }
                        }
                        Output::HostMessage {
                            words, last_bit_ns, ..
                        } => self.to_hosts.push((last_bit_ns, i, words)),
                        _ => {}
                    }
                }
            }
            self.now = b;
        }
    }

    /// The neighbours' side of the window, event by event: frames arriving, frames sent.
    fn neighbours_to(
        &mut self,
        b: u64,
        take: &mut dyn FnMut(&mut [Neighbour], usize, &Offer) -> bool,
    ) {
        loop {
            let arrival = self.flying.iter().map(|f| f.0).min().unwrap_or(u64::MAX);
            let wake = (0..self.nbrs.len())
                .map(|i| self.nbrs[i].poll_at().max(self.free_at[i]).max(self.now))
                .min()
                .unwrap_or(u64::MAX);
            let t = arrival.min(wake);
            if t >= b {
                return;
            }
            if arrival == t {
                let k = self.flying.iter().position(|f| f.0 == t).unwrap();
                let (_, n, words) = self.flying.remove(k);
                if let Some(offer) = self.nbrs[n].frame_in(t, &words, true)
                    && take(&mut self.nbrs, n, &offer)
                {
                    self.nbrs[n].accept(&offer);
                }
            }
            for n in 0..self.nbrs.len() {
                while self.free_at[n] <= t {
                    let Some(words) = self.nbrs[n].poll_transmit(t) else {
                        break;
                    };
                    let end = t + frame_ns(words.len());
                    self.free_at[n] = end;
                    let (imp, modem) = self.at[n];
                    self.imps[imp]
                        .deliver_frame(modem, words, end, true)
                        .expect("a frame reaches the IMP after its window");
                }
            }
        }
    }

    fn host_send(&mut self, imp: usize, words: Vec<u16>) {
        let t = self.now.max(self.imps[imp].now_ns());
        self.imps[imp].host_send(1, words, t).unwrap();
    }

    fn events(&mut self, n: usize) -> Vec<Event> {
        std::iter::from_fn(|| self.nbrs[n].poll_event()).collect()
    }
}

fn leader_kind(words: &[u16]) -> Kind {
    Leader::decode([words[0], words[1]]).kind
}

fn header(words: &[u16]) -> Option<PacketHeader> {
    match Frame::decode(words) {
        Frame::Packet(h) | Frame::Reply(h) => Some(h),
        _ => None,
    }
}

/// A reply from IMP `from` to IMP `to` about message `m`, as a destination's background loop
/// builds one (5 words with the line's; p. 52–53 `BACK0`).
fn reply(m: u8, low: u16, to: u8, from: u8) -> Vec<u16> {
    vec![u16::from(m) << 8 | low, u16::from(to), u16::from(from)]
}

#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn the_program_brings_its_line_up_with_a_neighbour_and_exchanges_messages_with_it() {
    let Some(image) = common::program() else {
        return;
    };
    // Emulated IMP 2; the neighbour is IMP 3 on its modem 1.
    let mut b = Bench::new(&image, &[2], &[(3, 0)]);
    let offers = std::cell::RefCell::new(Vec::<Offer>::new());
    let mut take = |_: &mut [Neighbour], _: usize, o: &Offer| {
        offers.borrow_mut().push(o.clone());
        true
    };
    while !b.nbrs[0].is_up() && b.now < 60 * S {
        b.run(b.now + 100 * MS, &mut take);
    }
    let up_at = b.now;
    assert!(b.nbrs[0].is_up(), "the line is up within 60 s");
    assert_eq!(b.nbrs[0].neighbour(), Some(2));
    b.run(100 * S, &mut take);
    assert!(b.events(0).contains(&Event::Up));
    let (hops, delay) = frame::entry_parts(b.nbrs[0].peer_table()[3]);
    eprintln!(
        "line up by {:.1} s; IMP 2 reports IMP 3 at {hops} hops, delay {delay}",
        up_at as f64 / S as f64
    );
    assert_eq!(hops, 1, "the program routes to IMP 3 over the line");
    assert!(
        (4..=12).contains(&delay),
        "its delay: 4 + packets in flight (p. 176 JED)"
    );
    assert_eq!(b.nbrs[0].peer_table()[2], 0);
    let trouble = b.imps[0].cpu.mem.read(HLTLOC);

    // The host on IMP 2: a NOP (the program drops a host's first input), then a single-packet
    // message to IMP 3's host 0.
    let nop = Leader::new(Kind::Nop, Address::fake(0, FakeHost::Tty), 0).unwrap();
    b.host_send(0, nop.encode().to_vec());
    b.run(101 * S, &mut take);
    let to3 = Leader::new(
        Kind::Regular,
        Address {
            imp: 3,
            host: 0,
            for_imp: false,
        },
        9,
    )
    .unwrap();
    let mut msg = to3.encode().to_vec();
    msg.extend([0o2222u16; 20]);
    b.host_send(0, msg);
    b.run(102 * S, &mut take);
    let got = offers.borrow().clone();
    assert_eq!(got.len(), 1, "one packet offered: {got:?}");
    let h = header(&got[0].words).expect("a message's packet");
    assert!(h.single && h.last && h.dest_imp == 3 && h.source_imp == 2);
    assert_eq!(got[0].words.len(), 5 + 20 + 1, "header, text, checksum");
    assert_eq!(&got[0].words[5..25], &[0o2222; 20]);
    // IMP 3 answers as a destination: RFNM for that message number.
    b.nbrs[0].send(
        reply(h.message, head::ONEOR8 | head::REQALL_OR_RFNM, 2, 3),
        true,
    );
    b.run(103 * S, &mut take);
    let rfnm = b
        .to_hosts
        .iter()
        .find(|(_, _, w)| leader_kind(w) == Kind::Rfnm)
        .expect("the host on IMP 2 has a RFNM");
    assert_eq!(Leader::decode([rfnm.2[0], rfnm.2[1]]).imp, 3);
    assert_eq!(Leader::decode([rfnm.2[0], rfnm.2[1]]).link, 9);

    // IMP 3 as a source: a single-packet message from its host 0 to IMP 2's discard fake host,
    // message number 0, asking for its buffer (p. 128: the first try of a single packet).
    let data = vec![
        head::ONEOR8 | head::REQALL_OR_RFNM | head::TRNREP,
        head1::FORIMP | (FakeHost::Discard as u16) << 6 | 2,
        head2::LSTPKT | 3,
        7 << 8,
        0o4444,
        0o4444,
    ];
    assert!(b.nbrs[0].send(data, false).is_some());
    offers.borrow_mut().clear();
    b.run(104 * S, &mut take);
    let got = offers.borrow().clone();
    let replies: Vec<PacketHeader> = got.iter().filter_map(|o| header(&o.words)).collect();
    eprintln!("replies from IMP 2: {replies:?}");
    assert!(
        replies
            .iter()
            .any(|r| r.reqall_or_rfnm && r.single && r.message == 0 && r.dest_imp == 3),
        "IMP 2 answers message 0 with a RFNM"
    );
    let events = b.events(0);
    assert!(events.iter().any(|e| matches!(e, Event::Acked { .. })));
    assert!(
        !events.iter().any(|e| matches!(e, Event::Down { .. })),
        "{events:?}"
    );
    assert_eq!(b.nbrs[0].counts().kills, 0);
    assert_eq!(b.nbrs[0].counts().bad, 0);
    assert_eq!(
        b.imps[0].cpu.mem.read(HLTLOC),
        trouble,
        "the program reported no trouble"
    );
}

#[test]
#[ignore = "needs BBN's IMP program: NMC_IMP_PROGRAM=/path/to/impcode.cmd, --include-ignored"]
fn a_message_crosses_a_neighbour_between_two_emulated_imps() {
    let Some(image) = common::program() else {
        return;
    };
    // Emulated IMPs 2 and 5; a relay, IMP 3 toward IMP 2 and IMP 4 toward IMP 5... as one IMP:
    // both ends are IMP 3, one on each line, forwarding whatever comes in to the other line.
    let mut b = Bench::new(&image, &[2, 5], &[(3, 0), (3, 1)]);
    let mut forwarded = 0u32;
    let mut take = |n: &mut [Neighbour], i: usize, o: &Offer| {
        // A packet or reply for the far IMP goes on the other line if a channel is free there;
        // otherwise it is left, and the program sends it again.
        let other = 1 - i;
        let words = o.words[1..o.words.len() - 1].to_vec();
        let reply = matches!(Frame::decode(&o.words), Frame::Reply(_));
        if n[other].send(words, reply).is_some() {
            forwarded += 1;
            true
        } else {
            false
        }
    };
    let tables = |b: &mut Bench| {
        // Each side's table: its own IMP 3 at 0, the far IMP one hop on from it.
        for i in 0..2 {
            let far = *b.nbrs[1 - i].peer_table();
            let mut t = [frame::UNREACHABLE; frame::IMP_NUMBERS];
            for k in 0..frame::IMP_NUMBERS {
                let (h, d) = frame::entry_parts(far[k]);
                if far[k] != frame::UNREACHABLE && h < 21 {
                    t[k] = frame::entry(h + 1, d + 4);
                }
            }
            b.nbrs[i].set_table(&t);
        }
    };
    for s in 0..100 {
        b.run(s * S + S, &mut take);
        tables(&mut b);
    }
    assert!(b.nbrs[0].is_up() && b.nbrs[1].is_up());
    let (hops, _) = frame::entry_parts(b.nbrs[0].peer_table()[5]);
    assert_eq!(hops, 2, "IMP 2 routes to IMP 5 through IMP 3");
    let trouble: Vec<u16> = b.imps.iter().map(|i| i.cpu.mem.read(HLTLOC)).collect();
    let nop = Leader::new(Kind::Nop, Address::fake(0, FakeHost::Tty), 0).unwrap();
    b.host_send(0, nop.encode().to_vec());
    b.run(101 * S, &mut take);
    let to5 = Leader::new(Kind::Regular, Address::fake(5, FakeHost::Discard), 4).unwrap();
    let mut msg = to5.encode().to_vec();
    msg.extend([0o3333u16; 200]);
    b.host_send(0, msg);
    for s in 101..106 {
        b.run(s * S + S, &mut take);
        tables(&mut b);
    }
    let rfnm = b
        .to_hosts
        .iter()
        .find(|(_, i, w)| *i == 0 && leader_kind(w) == Kind::Rfnm)
        .expect("IMP 2's host has a RFNM from IMP 5");
    eprintln!(
        "a 4-packet message to IMP 5's discard host answered at {} ms after it was sent; {forwarded} frames forwarded",
        (rfnm.0 - 101 * S) / MS
    );
    assert_eq!(Leader::decode([rfnm.2[0], rfnm.2[1]]).imp, 5);
    for (n, was) in trouble.iter().enumerate() {
        assert_eq!(b.nbrs[n].counts().kills, 0);
        assert_eq!(b.nbrs[n].counts().bad, 0);
        assert_eq!(
            b.imps[n].cpu.mem.read(HLTLOC),
            *was,
            "no trouble at IMP {n}"
        );
    }
}
