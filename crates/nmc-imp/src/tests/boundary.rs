//! Lines to IMPs outside the model (`model/boundary.rs`, issue 73 §3): a modelled IMP in a
//! chain of outside ones carries their packets across, by the rules of its own lines.

use super::scenario::{ImpScenario, resolve};
use crate::Stepper;
use crate::model::{Carried, Incoming};
use nmc_scenario::load;
use nmc_sim::{SimDuration, SimTime};

/// IMP0 – IMP1 – IMP2 – IMP3, 50 kbit/s, 2 ms, with `hosts` (TOML, the array's items).
fn chain_with(hosts: &str) -> ImpScenario {
    let text = format!(
        r#"
name = "boundary"
seed = 1
duration = "1min"
model = "imp"

[network]
profile = "v2-1974-10"
topology = {{ kind = "chain", hops = 3, capacity = "50kbit/s", propagation = "2ms" }}
hosts = [{hosts}]
# GVBs without message numbers: one that holds a number does not cross the boundary (refused
# below, and by `Stepper::with_outside_imps`).
params = {{ gvb_number = "none" }}
"#
    );
    load("boundary.toml", &text, &[]).unwrap()
}

/// The chain with no hosts: IMP0 and IMP3 outside in [`stepper`].
fn chain() -> ImpScenario {
    chain_with("")
}

fn stepper() -> Stepper {
    Stepper::with_outside_imps(&resolve(&chain()).unwrap(), 1, &["IMP0", "IMP3"]).unwrap()
}

fn packet(words: usize) -> Incoming {
    Incoming {
        src: 0,
        dst: 3,
        words: (0..words as u16).collect(),
        control: false,
        bits: (words as u64 - 4) * 16,
        native: None,
    }
}

/// Lines: the chain's links are 2j (IMP j → IMP j+1) and 2j+1 (back).
#[test]
fn an_outside_packet_crosses_two_modelled_imps_and_is_acknowledged() {
    let mut st = stepper();
    let lines = st.boundary_lines();
    assert_eq!(lines.len(), 2);
    let (into, out) = (lines[0].back, lines[1].out);
    assert_eq!((lines[0].imp, lines[0].far), (1, 0));
    assert_eq!((lines[1].imp, lines[1].far), (2, 3));
    st.advance(st.now() + SimDuration::from_millis(100));
    // Nothing crosses from the modelled IMPs' own frames (routing, acknowledgements).
    for l in st.boundary_ready() {
        assert_eq!(st.boundary_take(l), None);
    }
    let p = packet(68);
    let words = p.words.clone();
    let carried = Carried::Packet {
        lch: 0,
        bit: false,
        packet: p,
    };
    assert!(st.boundary_frame_in(into, &[], carried.clone()).unwrap());
    // The same channel and bit again is a duplicate: not taken a second time.
    assert!(!st.boundary_frame_in(into, &[], carried).unwrap());
    let mut got = None;
    let t0 = st.now();
    while got.is_none() && st.now() < t0 + SimDuration::from_secs(1) {
        let next = st.now() + SimDuration::from_micros(100);
        st.advance(next);
        for l in st.boundary_ready() {
            if let Some(o) = st.boundary_take(l) {
                assert_eq!(l, out);
                got = Some((st.now() - t0, o));
            }
        }
    }
    let (after, o) = got.expect("the packet reaches the far boundary");
    assert_eq!(o.words, words, "its words cross unchanged");
    assert!(!o.control);
    // Two processors and one 50 kbit/s line of 1160 bits (23.2 ms) between them, plus
    // the line's propagation: more than the line's time, well under a 125 ms retransmission.
    assert!(
        after > SimDuration::from_millis(25) && after < SimDuration::from_millis(60),
        "{after}"
    );
    // Not acknowledged: the modelled IMP does not hand it out again (the far end resends):
    // its 125 ms timer runs out twice in 300 ms, and nothing crosses.
    let idle = |st: &mut Stepper, ms: u64| {
        for _ in 0..ms {
            let next = st.now() + SimDuration::from_millis(1);
            st.advance(next);
            for l in st.boundary_ready() {
                assert_eq!(st.boundary_take(l), None);
            }
        }
    };
    idle(&mut st, 300);
    let c = st.boundary_counts();
    assert_eq!(
        (c.out, c.taken, c.duplicates, c.refused, c.retransmissions),
        (1, 1, 1, 0, 2),
        "{c:?}"
    );
    // The far end's acknowledgement frees the channel: no more tries.
    let back = lines[1].back;
    assert!(
        !st.boundary_frame_in(back, &[(o.lch, o.bit)], Carried::Null)
            .unwrap()
    );
    idle(&mut st, 300);
    let c = st.boundary_counts();
    assert_eq!((c.acknowledged, c.retransmissions), (1, 2), "{c:?}");
}

/// A report of an outside IMP to a modelled one (the program's background sends its
/// statistics to the first IMP it finds up): taken, processed there, handed to the driver,
/// and the driver's answer goes back out through the model as the modelled IMP's control
/// message.
#[test]
fn a_packet_for_a_modelled_imp_arrives_there_and_its_answer_goes_back() {
    let mut st = stepper();
    let lines = st.boundary_lines();
    let mut p = packet(40);
    p.dst = 2;
    let words = p.words.clone();
    let carried = Carried::Packet {
        lch: 3,
        bit: true,
        packet: p,
    };
    assert!(st.boundary_frame_in(lines[0].back, &[], carried).unwrap());
    let t0 = st.now();
    let mut arrived = Vec::new();
    while arrived.is_empty() && st.now() < t0 + SimDuration::from_secs(1) {
        let next = st.now() + SimDuration::from_micros(100);
        st.advance(next);
        arrived = st.boundary_arrived();
    }
    assert_eq!(arrived.len(), 1, "it reaches IMP2");
    let a = &arrived[0];
    assert_eq!((a.imp, a.src, &a.words), (2, 0, &words));
    assert!(a.at > t0, "after a line and two processors");
    // The answer, from IMP2 to IMP0: back over IMP1 and out by the first boundary line.
    let answer = Incoming {
        src: 2,
        dst: 0,
        words: vec![0o300, 1, 3],
        control: true,
        bits: 0,
        native: None,
    };
    st.boundary_send(2, answer).unwrap();
    let mut out = None;
    while out.is_none() && st.now() < t0 + SimDuration::from_secs(2) {
        let next = st.now() + SimDuration::from_micros(100);
        st.advance(next);
        for l in st.boundary_ready() {
            if let Some(o) = st.boundary_take(l) {
                out = Some((l, o));
            }
        }
    }
    let (l, o) = out.expect("the answer leaves the model");
    assert_eq!(l, lines[0].out);
    assert_eq!(o.words, vec![0o300, 1, 3]);
    assert!(o.control);
    // Only from a modelled IMP to an outside one.
    let bad = Incoming {
        dst: 2,
        ..packet(5)
    };
    let e = st.boundary_send(1, bad).unwrap_err();
    assert!(e.0.contains("from a modelled IMP to an outside one"), "{e}");
}

#[test]
fn what_cannot_cross_is_refused_in_one_line() {
    let mut st = stepper();
    let into = st.boundary_lines()[0].back;
    let mut p = packet(10);
    p.dst = 9;
    let e = st
        .boundary_frame_in(
            into,
            &[],
            Carried::Packet {
                lch: 0,
                bit: false,
                packet: p,
            },
        )
        .unwrap_err();
    assert!(e.0.contains("to IMP 9 (of 4)"), "{e}");
    let e = st.boundary_frame_in(1, &[], Carried::Null).unwrap_err();
    assert!(e.0.contains("not a line from an outside IMP"), "{e}");
    let e = st
        .boundary_frame_in(into, &[(9, true)], Carried::Null)
        .unwrap_err();
    assert!(e.0.contains("channel 9"), "{e}");
    // A host on an outside IMP is an address only: one that sends the model's traffic is
    // refused.
    let s = chain_with(r#"{ name = "H", imp = "IMP0" }, { name = "G", imp = "IMP3" }"#);
    assert!(Stepper::with_outside_imps(&resolve(&s).unwrap(), 1, &["IMP0"]).is_ok());
    let mut s = resolve(&s).unwrap();
    s.traffic.push(crate::spec::TrafficSpec::Pump {
        from: "H".into(),
        to: "G".into(),
        message: nmc_sim::Bits::new(1000),
        start: SimDuration::ZERO,
        count: None,
        outstanding: None,
    });
    let e = Stepper::with_outside_imps(&s, 1, &["IMP0"]).err().unwrap();
    assert!(e.0.contains("host `H` is on `IMP0`"), "{e}");
    // A GVB that holds a message number is not carried across the boundary: refused.
    let mut s = resolve(&chain()).unwrap();
    s.network.params.gvb_number = crate::params::GvbNumber::Mesget1973;
    let e = Stepper::with_outside_imps(&s, 1, &["IMP0"]).err().unwrap();
    assert!(e.0.contains("network.params.gvb_number"), "{e}");
}

#[test]
fn a_network_without_outside_imps_runs_as_before() {
    // With no IMP outside, the boundary is empty and the model's own lines carry everything,
    // frame for frame as a subnet built the usual way.
    let s = resolve(&chain()).unwrap();
    let mut a = Stepper::with_outside_imps(&s, 1, &[]).unwrap();
    let mut b = Stepper::new(&s, 1, &[]).unwrap();
    assert!(a.boundary_lines().is_empty());
    let t = a.now() + SimDuration::from_secs(5);
    a.advance(t);
    b.advance(t);
    let uses = |st: &Stepper| (0..6).map(|l| st.line_use(l).unwrap()).collect::<Vec<_>>();
    assert_eq!(uses(&a), uses(&b));
    assert!(
        uses(&a).iter().all(|u| u.0 > 0),
        "routing messages on every line"
    );
    assert_eq!(a.line_use(6), None);
}

/// A host on a modelled IMP pumping to a fake host on an outside one: once its traffic starts
/// ([`Stepper::start_hosts`]), its REQALL leaves the model as one of its own packets
/// ([`crate::model::Native`]), with the message's destination host.
#[test]
fn a_modelled_hosts_message_crosses_as_the_models_own() {
    let mut s = resolve(&chain_with(
        r#"{ name = "SRC", imp = "IMP1" }, { name = "FAKE", imp = "IMP3", fake = true }"#,
    ))
    .unwrap();
    s.traffic.push(crate::spec::TrafficSpec::Pump {
        from: "SRC".into(),
        to: "FAKE".into(),
        message: nmc_sim::Bits::new(8048),
        start: SimDuration::ZERO,
        count: None,
        outstanding: Some(4),
    });
    let mut st = Stepper::with_outside_imps(&s, 1, &["IMP0", "IMP2", "IMP3"]).unwrap();
    let out = st.boundary_lines()[1].out;
    st.advance(st.now() + SimDuration::from_secs(1));
    for l in st.boundary_ready() {
        assert_eq!(st.boundary_take(l), None, "nothing before the hosts start");
    }
    st.start_hosts();
    let t0 = st.now();
    let mut got = None;
    while got.is_none() && st.now() < t0 + SimDuration::from_secs(1) {
        st.advance(st.now() + SimDuration::from_micros(100));
        for l in st.boundary_ready() {
            if let Some(o) = st.boundary_take(l) {
                got = Some((l, o));
            }
        }
    }
    let (l, o) = got.expect("the REQALL crosses");
    assert_eq!(l, out);
    let n = o.native.expect("one of the model's own");
    assert_eq!((n.src, n.dst), (1, 3));
    assert!(
        matches!(n.kind, crate::model::Native::ReqAll { host: 1, .. }),
        "{n:?}"
    );
}

/// The background load in a network with outside IMPs: the outside IMPs' background hosts are
/// addresses only, and the modelled IMPs' send nothing before [`Stepper::start_hosts`], then
/// the arrivals drawn at time 0, shifted to it.
#[test]
fn a_background_on_outside_imps_sends_nothing_and_the_models_waits_for_its_start() {
    let mut s = resolve(&chain()).unwrap();
    s.traffic.push(crate::spec::TrafficSpec::Background(
        toml::from_str(
            r#"messages_per_second = 50.0
single_packet_fraction = 0.9
single_mean = "250bit"
multi_mean = "3000bit""#,
        )
        .unwrap(),
    ));
    let mut st = Stepper::with_outside_imps(&s, 1, &["IMP0", "IMP3"]).unwrap();
    let bg = st.background_hosts();
    assert_eq!(bg.iter().map(|b| b.1).collect::<Vec<_>>(), [0, 1, 2, 3]);
    st.advance(st.now() + SimDuration::from_secs(2));
    assert_eq!(st.background_tally()[0], 0, "nothing before the start");
    st.start_hosts();
    st.advance(st.now() + SimDuration::from_secs(4));
    // Two of the four sites, from their own streams: some arrivals, fewer than all four
    // sites' over the same 4 s of a network all modelled.
    let [offered, _, _, refused] = st.background_tally();
    let mut all = Stepper::new(&s, 1, &[]).unwrap();
    all.advance(SimTime::ZERO + SimDuration::from_secs(4));
    let [o, _, _, r] = all.background_tally();
    assert!(offered > 0, "the modelled sites offer");
    assert!(
        offered + refused < o + r,
        "{offered} + {refused} of {o} + {r}"
    );
}
