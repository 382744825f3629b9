//! Version 3 message processing (K&O §VI–VII) on small networks, in the paper's words: message
//! control blocks made by an exchange of subnet control messages, 8 numbers per host pair,
//! "message number, reassembly buffers, and PLT entry", superfluous REQALLs, RFNMs waiting at
//! the destination for piggy-backed ALLs ("phasing"), the VDH destination, and BBN's fix.

use super::scenario::{ImpScenario, resolve, run};
use crate::Outcome;
use crate::observe::{Doing, SliceKind};
use crate::run::run_and_drain;
use nmc_scenario::{Override, load};
use nmc_sim::{SimDuration, Trace};

/// A pump across a chain of `hops` 50 kbit/s lines, version 3 before BBN's fix.
const CHAIN: &str = r#"
name = "v3-chain"
seed = 1
duration = "2min"
model = "imp"
record = ["messages", "occupancy"]

[network]
profile = "v3-1975-02"
topology = { kind = "chain", hops = 9, capacity = "50kbit/s", propagation = "2ms" }
hosts = [{ name = "UCLA", imp = "IMP0" }, { name = "FAKE", imp = "IMP9", fake = true }]

[[traffic]]
kind = "pump"
from = "UCLA"
to = "FAKE"
message = "8063bit"
"#;

fn scenario(sets: &[&str]) -> ImpScenario {
    let sets: Vec<Override> = sets.iter().map(|s| s.parse().unwrap()).collect();
    load("v3-chain.toml", CHAIN, &sets).unwrap()
}

fn metric(o: &Outcome, k: &str) -> f64 {
    o.metrics.to_map().get(k).copied().unwrap_or(0.0)
}

fn go(sets: &[&str]) -> Outcome {
    run(&scenario(sets), 1, Trace::off(), &mut |_| {}).unwrap()
}

/// "Before a source HOST A ... can send a message to some destination HOST B ..., a message
/// control block must now be obtained": one exchange for the pair, then none while it is used.
#[test]
fn the_first_message_waits_for_the_block_exchange_and_later_ones_do_not() {
    let o = go(&[]);
    assert_eq!(metric(&o, "count.v3.create-block"), 1.0);
    assert_eq!(metric(&o, "count.v3.release-block"), 0.0);
    let first = &o.messages[0];
    let second = &o.messages[1];
    let wait = |m: &crate::observe::MessageRecord| m.numbered_ns.unwrap() - m.first_in_ns.unwrap();
    // The first message waits a round trip of control messages over 9 hops; the second
    // finds its block open.
    assert!(
        wait(first) > 9 * 2_000_000,
        "first waited {} ns",
        wait(first)
    );
    assert!(wait(second) < wait(first));
}

/// A block unused for `control_block_idle` is released; the pair's next message makes a new
/// one (a pump that stops and starts again).
#[test]
fn an_unused_block_is_released_and_made_again() {
    let s = scenario(&["network.params.control_block_idle=1s", "traffic.0.count=3"]);
    let o = run_and_drain(&resolve(&s).unwrap(), 1, SimDuration::from_secs(10)).unwrap();
    assert_eq!(metric(&o, "count.v3.create-block"), 1.0);
    assert_eq!(metric(&o, "count.v3.release-block"), 1.0);
    assert!(o.idle_at_end, "held: {:?}", o.held_at_end);
}

/// A pair whose block was released and made again numbers its messages from the start; they
/// still reach the host in order, and the order check starts afresh with the numbers (it
/// counted each restart as a message out of order until 6 Dec 2026: 663 in ten minutes of
/// `ko-v3-map`, every one a stream's first message after a new block).
#[test]
fn a_block_made_again_numbers_afresh_and_keeps_the_order() {
    // IMP 0's message generator (RFC 632) to the fake host, paused longer than a block's
    // disuse time.
    let pump = CHAIN.find("[[traffic]]").expect("the chain's traffic");
    let text = format!(
        "{}[[traffic]]\nkind = \"generator\"\nimp = \"IMP0\"\nto = \"FAKE\"\ncount = 40\n\
         pauses = [{{ at = \"2s\", length = \"5s\" }}]\n",
        &CHAIN[..pump]
    );
    let sets: Vec<Override> = ["network.params.control_block_idle=1s"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    let s: ImpScenario = load("v3-again.toml", &text, &sets).unwrap();
    let o = run_and_drain(&resolve(&s).unwrap(), 1, SimDuration::from_secs(30)).unwrap();
    assert_eq!(metric(&o, "count.v3.create-block"), 2.0, "made again");
    assert_eq!(
        o.messages
            .iter()
            .filter(|m| m.delivered_ns.is_some())
            .count(),
        40
    );
    assert_eq!(o.order_violations, 0);
}

/// "A shortage of transmit and/or receive blocks will normally cause only an initial setup
/// delay": with one block per IMP, two host pairs from one IMP take turns, and every message
/// still arrives, in order.
#[test]
fn a_shortage_of_blocks_delays_but_loses_nothing() {
    let text = CHAIN.replace(
        r#"hosts = [{ name = "UCLA", imp = "IMP0" }, { name = "FAKE", imp = "IMP9", fake = true }]"#,
        r#"hosts = [{ name = "UCLA", imp = "IMP0" }, { name = "FAKE", imp = "IMP9" },
         { name = "SECOND", imp = "IMP0" }, { name = "OTHER", imp = "IMP9" }]"#,
    ) + r#"
[[traffic]]
kind = "pump"
from = "SECOND"
to = "OTHER"
message = "8063bit"
count = 5
"#;
    let sets: Vec<Override> = [
        "network.params.control_blocks=1",
        "network.params.control_block_idle=200ms",
        "traffic.0.count=5",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect();
    let s = load("t.toml", &text, &sets).unwrap();
    let o = run_and_drain(&resolve(&s).unwrap(), 1, SimDuration::from_secs(30)).unwrap();
    assert!(metric(&o, "count.v3.transmit-block-wait") >= 1.0);
    assert!(metric(&o, "count.v3.create-block") >= 2.0);
    assert_eq!(metric(&o, "messages.answered"), 10.0);
    assert_eq!(o.order_violations, 0);
    assert!(o.idle_at_end, "held: {:?}", o.held_at_end);
}

/// K&O §VII, Fig. 7: before the fix, RFNMs queue at the destination waiting for piggy-backed
/// ALLs while holding PLT entries; after it ("avoid the piggy-backing of allocates on RFNM's
/// as long as there are other replies to be sent") they hardly wait.
#[test]
fn phasing_before_the_fix_and_not_after() {
    let before = go(&["network.profile=v3-1975-02"]);
    let after = go(&["network.profile=v3-1975-05"]);
    let waiting = |o: &Outcome| metric(o, "occupancy.plt_rfnms_waiting.mean");
    assert!(
        waiting(&before) > 2.0,
        "PLT entries held by waiting RFNMs before the fix: {}",
        waiting(&before)
    );
    assert!(waiting(&after) < 0.5, "after the fix: {}", waiting(&after));
    assert!(metric(&after, "count.rfnm-not-piggybacked") > 0.0);
    assert_eq!(metric(&before, "count.rfnm-not-piggybacked"), 0.0);
    // Every message of each run arrived once and in order.
    for o in [&before, &after] {
        assert_eq!(o.order_violations, 0);
        assert_eq!(metric(o, "messages.lost"), 0.0);
    }
}

/// K&O §VII: a superfluous REQALL is "sent while a previous REQALL is still outstanding"; the
/// first remedy K&O name, never sending one, leaves none.
#[test]
fn superfluous_reqalls_are_sent_unless_withheld() {
    let with = go(&["network.profile=v3-1975-05"]);
    let without = go(&[
        "network.profile=v3-1975-05",
        "network.params.superfluous_reqalls=false",
    ]);
    assert!(metric(&with, "count.v3.superfluous-reqall") > 10.0);
    assert_eq!(metric(&without, "count.v3.superfluous-reqall"), 0.0);
    assert!(metric(&without, "count.v3.reqall-withheld") > 0.0);
}

/// K&O §VII, Fig. 8: to a VDH destination (10 reassembly buffers: one message at a time)
/// before the fix, a REQALL goes for every data message and the pair stalls on the 1 s RFNM
/// time-out: throughput falls several-fold against the same path to an ordinary IMP.
#[test]
fn a_vdh_destination_takes_a_reqall_per_message_and_stalls() {
    let plain = go(&[]);
    let vdh = go(&["network.vdh=[\"IMP9\"]"]);
    let per_message = metric(&vdh, "count.reqall") / metric(&vdh, "messages.completed").max(1.0);
    assert!(per_message > 0.8, "REQALLs per message: {per_message}");
    assert!(metric(&vdh, "count.rfnm-without-all") > 0.0);
    let ratio = metric(&plain, "throughput_kbps") / metric(&vdh, "throughput_kbps");
    assert!(ratio > 1.5, "ordinary / VDH throughput: {ratio}");
}

/// Numbers are per host pair in version 3: a pump never holds more than the profile's 8.
#[test]
fn eight_numbers_per_host_pair() {
    let o = go(&[]);
    let most = o.occupancy.iter().map(|s| s.message_numbers).max().unwrap();
    assert!(most > 4 && most <= 8, "most numbers held: {most}");
}

/// Zero blocks cannot carry a message: a one-line error, not a hang.
#[test]
fn zero_blocks_is_an_error() {
    let err = super::scenario::run(
        &scenario(&["network.params.control_blocks=0"]),
        1,
        Trace::off(),
        &mut |_| {},
    )
    .err()
    .expect("an error");
    let text = err.to_string();
    assert!(text.contains("control_blocks"), "{text}");
    assert!(!text.contains('\n'));
}

/// A time slice (K&O Figs. 2, 7) of the run before the fix: RFNMs wait at the destination
/// holding PLT entries, messages in flight hold a PLT entry and an allocation; after the fix
/// no RFNM waits.
#[test]
fn time_slices_show_where_the_plt_entries_are() {
    let before = go(&["network.slices=[\"60s\", \"90s\"]"]);
    assert_eq!(before.slices.len(), 2);
    let s = &before.slices[0];
    assert_eq!(s.hops, 9);
    let waiting = |s: &crate::observe::TimeSlice| {
        s.items
            .iter()
            .filter(|i| i.what == SliceKind::Rfnm && i.doing == Doing::RfnmWaitingForAll && i.plt)
            .count()
    };
    assert!(waiting(s) >= 2, "{:#?}", s.items);
    assert!(
        s.items
            .iter()
            .any(|i| i.what == SliceKind::Msg && i.doing == Doing::InFlight && i.plt && i.all)
    );
    let plts = s
        .items
        .iter()
        .filter(|i| i.plt && i.what != SliceKind::All)
        .count();
    assert!(plts <= 6, "more PLT holders than entries: {plts}");
    let after = go(&["network.profile=v3-1975-05", "network.slices=[\"60s\"]"]);
    assert_eq!(waiting(&after.slices[0]), 0, "{:#?}", after.slices[0].items);
}

/// The same seed gives the same run, slices and records included.
#[test]
fn v3_runs_are_deterministic() {
    let runs: Vec<String> = (0..2)
        .map(|_| {
            let o = go(&["network.slices=[\"30s\"]", "duration=40s"]);
            format!(
                "{:?}{:?}{:?}{:?}",
                o.messages, o.metrics, o.occupancy, o.slices
            )
        })
        .collect();
    assert!(runs[0].len() > 5_000);
    assert_eq!(runs[0], runs[1]);
}

/// Every change of a message's state is traced, and the changes follow the version 3 order:
/// block, number, allocation (or a REQALL and the wait for an ALL), PLT entry, launched.
#[test]
fn every_state_change_is_traced_in_the_papers_order() {
    use std::sync::{Arc, Mutex};
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Sink {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let sink = Sink::default();
    let s = scenario(&["duration=20s"]);
    let o = run(&s, 1, Trace::to_writer(sink.clone()), &mut |_| {}).unwrap();
    let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
    let allowed = [
        ("input-first", "need-block"),
        ("need-block", "need-number"),
        ("need-number", "need-all"),
        ("need-all", "need-plt"),
        ("need-all", "await-all"),
        ("await-all", "need-all"),
        ("need-plt", "launched"),
    ];
    let mut changes = 0;
    for line in text.lines().filter(|l| l.contains(r#""event":"state""#)) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let pair = (v["from"].as_str().unwrap(), v["to"].as_str().unwrap());
        assert!(allowed.contains(&pair), "{line}");
        changes += 1;
    }
    // At least four changes per answered message (block, number, allocation, PLT, launch).
    assert!(changes >= 4 * o.messages.len(), "{changes} changes");
}

/// With REQALLs withheld, two host pairs from one IMP to a VDH destination (allocations scarce,
/// RFNMs timing out without an ALL): nobody waits for an ALL nobody asked for; drained, every
/// message is answered.
#[test]
fn withheld_reqalls_never_leave_a_message_waiting() {
    let text = CHAIN.replace(
        r#"hosts = [{ name = "UCLA", imp = "IMP0" }, { name = "FAKE", imp = "IMP9", fake = true }]"#,
        r#"hosts = [{ name = "UCLA", imp = "IMP0" }, { name = "FAKE", imp = "IMP9" },
         { name = "SECOND", imp = "IMP0" }, { name = "OTHER", imp = "IMP9" }]"#,
    ) + r#"
[[traffic]]
kind = "pump"
from = "SECOND"
to = "OTHER"
message = "8063bit"
"#;
    for profile in ["v3-1975-02", "v3-1975-05"] {
        let sets: Vec<Override> = [
            "network.params.superfluous_reqalls=false",
            "network.vdh=[\"IMP9\"]",
            "duration=60s",
            &format!("network.profile={profile}"),
        ]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
        let s = load("t.toml", &text, &sets).unwrap();
        let o = run_and_drain(&resolve(&s).unwrap(), 1, SimDuration::from_secs(30)).unwrap();
        assert!(metric(&o, "messages.answered") > 20.0, "{profile}");
        assert_eq!(metric(&o, "messages.in_flight"), 0.0, "{profile}");
        assert!(o.idle_at_end, "{profile}: held: {:?}", o.held_at_end);
    }
}
