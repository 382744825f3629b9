//! The subnet stepped from outside (`crate::Stepper`): what a path model relies on.

use super::scenario::{ImpScenario, resolve};
use crate::Stepper;
use nmc_scenario::load;
use nmc_sim::{SimDuration, SimTime};

/// A 4-hop chain of 50 kbit/s lines with two hosts and no traffic of its own.
fn chain(profile: &str) -> ImpScenario {
    let text = format!(
        r#"
name = "stepper"
seed = 1
duration = "1min"
model = "imp"

[network]
profile = "{profile}"
topology = {{ kind = "chain", hops = 4, capacity = "50kbit/s", propagation = "2ms" }}
hosts = [{{ name = "GW-A", imp = "IMP0" }}, {{ name = "GW-B", imp = "IMP4" }}]
"#
    );
    load("stepper.toml", &text, &[]).unwrap()
}

/// One message at a time, each offered when the last has been delivered and the subnet has
/// been quiet for a second or so (allocations given back): the mean delay from offer to
/// delivery over `reps` messages of each length. The quiet gaps vary (1 s + 0..640 ms in 37 ms
/// steps) so that the messages meet the 640 ms routing messages at every phase, which is most
/// of the variation on an idle chain.
fn delays(profile: &str, lengths: &[u64], reps: u64) -> Vec<(u64, f64)> {
    let s = chain(profile);
    let mut st = Stepper::new(&resolve(&s).unwrap(), 7, &["GW-A", "GW-B"]).unwrap();
    let (a, b) = (st.host("GW-A").unwrap(), st.host("GW-B").unwrap());
    let mut out = Vec::new();
    let mut tag = 0;
    for &bits in lengths {
        let mut sum = 0u64;
        for k in 0..reps {
            let t0 = st.now() + SimDuration::from_millis(1000 + 37 * (k % 18));
            st.advance(t0);
            st.offer(a, b, bits, tag).unwrap();
            let at = st
                .run_to_delivery(tag, t0 + SimDuration::from_secs(30))
                .expect("delivered");
            sum += (at - t0).as_nanos();
            tag += 1;
        }
        out.push((bits, sum as f64 / reps as f64));
    }
    out
}

/// K&O §II: a message of more than one packet (1008 data bits) first sends a REQALL and waits
/// for the ALL unless an allocation is at hand; a single-packet message does not (RFC 632).
/// Delivery delay against length therefore jumps at one packet by more than the second
/// packet's own transmission — the split RFC 889 §2.2 saw at 126 octets.
#[test]
fn a_second_packet_costs_a_reqall_round_trip() {
    for profile in ["v2-1974-10", "v3-1975-05", "arpanet-1983"] {
        let d = delays(profile, &[200, 1000, 1016, 2000], 36);
        let ms: Vec<f64> = d.iter().map(|x| x.1 / 1e6).collect();
        assert!(
            ms[1] > ms[0],
            "{profile}: delay grows with length within a packet: {ms:?}"
        );
        // The REQALL and the ALL cross four hops each way: far more than 16 more bits cost.
        assert!(
            ms[2] - ms[1] > 20.0,
            "{profile}: crossing one packet adds {:.1} ms; {ms:?}",
            ms[2] - ms[1]
        );
        assert!(ms[3] > ms[2], "{profile}: {ms:?}");
    }
}

/// Offers queue at the host in order and come out in order; the same offers give the same
/// times (determinism); bad offers are refused in one line.
#[test]
fn offers_in_order_same_seed_same_times_and_refusals() {
    let run = || {
        let s = chain("v2-1974-10");
        let mut st = Stepper::new(&resolve(&s).unwrap(), 3, &["GW-A", "GW-B"]).unwrap();
        let (a, b) = (st.host("GW-A").unwrap(), st.host("GW-B").unwrap());
        st.advance(SimTime::ZERO + SimDuration::from_millis(500));
        for tag in 0..6 {
            st.offer(a, b, 500 + 1500 * (tag % 2), tag).unwrap();
        }
        st.advance(SimTime::ZERO + SimDuration::from_secs(20));
        std::iter::from_fn(|| st.poll_delivered()).collect::<Vec<_>>()
    };
    let first = run();
    let tags: Vec<u64> = first.iter().map(|d| d.tag).collect();
    assert_eq!(
        tags,
        vec![0, 1, 2, 3, 4, 5],
        "one host pair: delivered in order"
    );
    assert_eq!(first, run());

    let s = chain("v2-1974-10");
    let mut st = Stepper::new(&resolve(&s).unwrap(), 3, &["GW-A"]).unwrap();
    let (a, b) = (st.host("GW-A").unwrap(), st.host("GW-B").unwrap());
    for (from, to, bits) in [
        (a, b, 0),
        (a, b, 9000),
        (b, a, 100),
        (a, a, 100),
        (a, 99, 100),
    ] {
        let e = st.offer(from, to, bits, 0).unwrap_err().to_string();
        assert!(!e.contains('\n'), "{e}");
    }
    assert!(Stepper::new(&resolve(&s).unwrap(), 3, &["NOPE"]).is_err());
}
