//! Adaptive routing and lines going down and up in the IMP subnet (issue 4, second half).

use super::scenario::{ImpScenario, resolve, run};
use crate::run::{BuildError, build, run_and_drain};
use nmc_routing::{NodeId, Router, Units};
use nmc_scenario::{Override, load};
use nmc_sim::{SimDuration, SimTime, Simulation, Trace};
use std::collections::VecDeque;

const ALTERNATE: &str = include_str!("../../../../scenarios/ko-alternate-path.toml");
const CHAIN: &str = include_str!("../../../../scenarios/ko-v2-chain.toml");

fn scenario(text: &str, sets: &[&str]) -> ImpScenario {
    let sets: Vec<Override> = sets.iter().map(|s| s.parse().unwrap()).collect();
    load("test.toml", text, &sets).unwrap()
}

/// A ring of `n` IMPs R0..R(n-1) with 50 kbit/s lines and no traffic.
fn ring(n: usize, extra: &str) -> ImpScenario {
    let imps: Vec<String> = (0..n).map(|i| format!("\"R{i}\"")).collect();
    let lines: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "{{ a = \"R{i}\", b = \"R{}\", capacity = \"50kbit/s\", propagation = \"2ms\" }}",
                (i + 1) % n
            )
        })
        .collect();
    let text = format!(
        "name = \"ring\"\nseed = 1\nduration = \"20s\"\nmodel = \"imp\"\n\
         [network]\nprofile = \"v2-1974-10\"\nrouting = \"adaptive\"\nhosts = []\n\
         topology = {{ kind = \"lines\", imps = [{}], lines = [{}] }}\n{extra}",
        imps.join(", "),
        lines.join(", ")
    );
    load("ring.toml", &text, &[]).unwrap()
}

/// Hops from every IMP to `dst` over the ring's lines, without the lines in `down`.
fn ring_hops(n: usize, dst: usize, down: &[(usize, usize)]) -> Vec<Option<u32>> {
    let up = |a: usize, b: usize| {
        !down
            .iter()
            .any(|&(x, y)| (x, y) == (a, b) || (y, x) == (a, b))
    };
    let mut hops = vec![None; n];
    hops[dst] = Some(0);
    let mut q = VecDeque::from([dst]);
    while let Some(v) = q.pop_front() {
        for w in [(v + 1) % n, (v + n - 1) % n] {
            if hops[w].is_none() && up(v, w) {
                hops[w] = Some(hops[v].unwrap() + 1);
                q.push_back(w);
            }
        }
    }
    hops
}

/// Every IMP's next hop to every destination is one hop nearer it over the ring's lines that
/// are up (`down` left out); with `units_per_hop` (the distance-vector router with no traffic),
/// its estimate is that many units per hop of the shortest path too.
fn assert_shortest_paths(
    sim: &Simulation<crate::model::Subnet>,
    n: usize,
    down: &[(usize, usize)],
    units_per_hop: Option<u32>,
) {
    for dst in 0..n {
        let hops = ring_hops(n, dst, down);
        let d = NodeId(dst as u32);
        for (i, r) in sim
            .model
            .imps
            .iter()
            .map(|x| x.router.as_ref().expect("a router"))
            .enumerate()
        {
            if i == dst {
                continue;
            }
            if let Some(u) = units_per_hop {
                assert_eq!(
                    r.estimate(d),
                    hops[i].map(|h| Units(u * h)),
                    "R{i} to R{dst} at {}",
                    sim.now()
                );
            }
            let next = r.next_hop(d).expect("a route").neighbour.0 as usize;
            assert_eq!(
                hops[next],
                hops[i].map(|h| h - 1),
                "R{i} to R{dst} at {}",
                sim.now()
            );
        }
    }
}

/// The line R0–R1 goes down at 2 s and comes back at 30 s.
const R0_R1_DOWN_AND_UP: &str = "[[network.line_events]]\nat = \"2s\"\nline = [\"R0\", \"R1\"]\n\
     state = \"down\"\n[[network.line_events]]\nat = \"30s\"\nline = [\"R0\", \"R1\"]\n\
     state = \"up\"\n";

/// The subnet of `s` built with seed 1 and its first events queued, at time 0.
fn started(s: &ImpScenario) -> Simulation<crate::model::Subnet> {
    let (subnet, starts) = build(&resolve(s).unwrap(), 1, Trace::off()).unwrap();
    let mut sim = Simulation::new(subnet);
    let mut q = nmc_sim::EventQueue::new();
    sim.model.initial_events(&mut q, &starts);
    while let Some((t, e)) = q.pop() {
        sim.schedule(t, e);
    }
    sim
}

/// Routing converges after a line failure and again after its repair, under every
/// loop-prevention variant (the 1974 rule counts up from the stale estimates; hold-downs and
/// sequence numbers take up to a few seconds more).
#[test]
fn routing_converges_after_a_line_failure_and_repair() {
    for variant in [
        "none",
        "hold-down-1974",
        "hold-down-window",
        "feasible-successor",
    ] {
        let s = ring(
            6,
            &format!(
                "[network.routing_params]\nloop_prevention = \"{variant}\"\n{R0_R1_DOWN_AND_UP}"
            ),
        );
        let mut sim = started(&s);
        let at = |s: u64| SimTime::ZERO + SimDuration::from_secs(s);
        assert_shortest_paths(&sim, 6, &[], Some(4));
        sim.run_until(at(25));
        assert_shortest_paths(&sim, 6, &[(0, 1)], Some(4));
        sim.run_until(at(45));
        assert_shortest_paths(&sim, 6, &[], Some(4));
        assert!(
            sim.model.routing().bodies_in_flight() <= 12,
            "{variant}: routing bodies leak"
        );
    }
}

/// SPF over measured delay (`routing = "spf"`): a line going down is flooded at once and
/// every IMP routes round it, and back when it returns; every next hop is one hop nearer (the
/// ring's lines are alike, so the shortest delay is the fewest hops).
#[test]
fn spf_routes_round_a_failed_line_and_back() {
    let mut s = ring(6, R0_R1_DOWN_AND_UP);
    s.network.routing = crate::spec::RoutingMode::Spf;
    let mut sim = started(&s);
    let at = |s: u64| SimTime::ZERO + SimDuration::from_secs(s);
    assert_shortest_paths(&sim, 6, &[], None);
    sim.run_until(at(25));
    assert_shortest_paths(&sim, 6, &[(0, 1)], None);
    sim.run_until(at(45));
    assert_shortest_paths(&sim, 6, &[], None);
}

/// SPF's flooding window only saves work: with it (2 s, longer than the routing period) every
/// message's timeline is the one every frame carrying the whole database gives, lines going
/// down and up included. A window no longer than the routing period is refused.
#[test]
fn spf_flood_window_changes_nothing_but_the_work() {
    let run_with = |window: &str| {
        let s = scenario(
            ALTERNATE,
            &[
                "network.routing=spf",
                "network.routing_params={}",
                &format!("network.params.spf_flood_window={window}"),
                "network.line_events=[\
                  { at = \"5s\", line = [\"P1\", \"DST\"], state = \"down\" },\
                  { at = \"12s\", line = [\"P1\", \"DST\"], state = \"up\" }]",
                "duration=25s",
                "traffic.0.count=60",
                "record=[]",
            ],
        );
        run_and_drain(&resolve(&s).unwrap(), 3, SimDuration::from_secs(30)).unwrap()
    };
    let times = |o: &crate::Outcome| {
        o.messages
            .iter()
            .map(|m| (m.id, m.launched_ns, m.delivered_ns, m.rfnm_ns))
            .collect::<Vec<_>>()
    };
    let (whole, windowed) = (run_with("\"0s\""), run_with("\"2s\""));
    assert_eq!(whole.messages.len(), 60);
    assert_eq!(times(&whole), times(&windowed));
    let s = scenario(
        ALTERNATE,
        &[
            "network.routing=spf",
            "network.routing_params={}",
            "network.params.spf_flood_window=\"100ms\"",
        ],
    );
    let e = match build(&resolve(&s).unwrap(), 1, Trace::off()) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a 100 ms window must be refused"),
    };
    assert!(e.contains("spf_flood_window"), "{e}");
    assert!(!e.contains('\n'), "{e}");
}

/// Two lines go down and come back while the pump runs over two paths, with line errors on:
/// every message is delivered exactly once and in order, every RFNM comes back, and after
/// the drain nothing is held anywhere.
#[test]
fn no_packet_is_lost_for_good_when_lines_go_down_and_up() {
    let events = ["network.line_events=[\
          { at = \"5s\", line = [\"P1\", \"DST\"], state = \"down\" },\
          { at = \"9s\", line = [\"SRC\", \"P2\"], state = \"down\" },\
          { at = \"12s\", line = [\"P1\", \"DST\"], state = \"up\" },\
          { at = \"15.5s\", line = [\"SRC\", \"P2\"], state = \"up\" },\
          { at = \"17.3s\", line = [\"SRC\", \"P1\"], state = \"down\" },\
          { at = \"17.35s\", line = [\"SRC\", \"P1\"], state = \"up\" }]"];
    for routing in ["adaptive", "static", "spf"] {
        let s = scenario(
            ALTERNATE,
            &[
                &format!("network.routing={routing}"),
                if routing != "adaptive" {
                    "network.routing_params={}"
                } else {
                    "network.routing_params.loop_prevention=hold-down-1974"
                },
                events[0],
                "duration=25s",
                "traffic.0.count=60",
                "network.params.bit_error_rate=5e-6",
                "record=[]",
            ],
        );
        let o = run_and_drain(&resolve(&s).unwrap(), 2, SimDuration::from_secs(30)).unwrap();
        let m = o.metrics.routing.expect("routing figures");
        assert!(m.frames_lost > 0, "{routing}: frames must be lost");
        if routing != "static" {
            assert!(m.taken_back > 0, "{routing}: {m:?}");
        }
        assert_eq!(o.messages.len(), 60, "{routing}: every RFNM came back");
        assert_eq!(o.order_violations, 0, "{routing}: once each, in order");
        let delivered: Vec<u64> = o
            .messages
            .iter()
            .map(|m| m.delivered_ns.expect("delivered"))
            .collect();
        assert!(delivered.windows(2).all(|w| w[0] < w[1]), "{routing}");
        assert!(o.idle_at_end, "{routing}: a resource was still held");
        if routing != "static" {
            let data: Vec<_> = o
                .routing
                .journeys
                .iter()
                .filter(|j| j.kind == "data")
                .collect();
            assert_eq!(data.len(), 60 * 8, "one journey per packet, none twice");
            // Each journey's path names every IMP it was at, from its source to its
            // destination; with a line down the packets went both ways round.
            let mut via = std::collections::BTreeSet::new();
            for j in &data {
                let p: Vec<&str> = j.path.split(' ').collect();
                assert_eq!(p.len() as u32, j.hops + 1, "{routing}: {j:?}");
                assert_eq!((p[0], p[p.len() - 1]), ("SRC", "DST"), "{routing}: {j:?}");
                via.insert(p[1]);
            }
            assert_eq!(via, ["P1", "P2"].into(), "{routing}");
        }
    }
}

/// Adaptive routing on a chain has one path to choose: every message's timeline is the same
/// as with static routes (routing frames take the same line time either way).
#[test]
fn adaptive_routing_on_one_path_is_static_routing() {
    let base = [
        "duration=20s",
        "network.topology.hops=3",
        "network.hosts.1.imp=IMP3",
    ];
    let run_with = |extra: &[&str]| {
        let mut sets = base.to_vec();
        sets.extend_from_slice(extra);
        run(&scenario(CHAIN, &sets), 4, Trace::off(), &mut |_| {}).unwrap()
    };
    let plain = run_with(&[]);
    let stat = run_with(&["network.routing=static"]);
    let adaptive = run_with(&["network.routing=adaptive"]);
    let times = |o: &crate::Outcome| {
        o.messages
            .iter()
            .map(|m| (m.id, m.launched_ns, m.delivered_ns, m.rfnm_ns))
            .collect::<Vec<_>>()
    };
    assert!(plain.messages.len() > 50);
    assert_eq!(times(&plain), times(&stat));
    assert_eq!(times(&plain), times(&adaptive));
    assert_eq!(plain.metrics.routing, None, "static adds no metrics");
    let r = adaptive.metrics.routing.expect("routing figures");
    assert!(r.messages > 100);
    assert_eq!(r.visits.map(|v| v.max), Some(1));
}

#[test]
fn bad_routing_input_is_one_line_naming_the_key() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "network.line_events=[{ at = \"1s\", line = [\"SRC\", \"NOWHERE\"], state = \"down\" }]",
            ],
            "network.line_events[0].line: `NOWHERE` is not an IMP of this network",
        ),
        (
            &["network.line_events=[{ at = \"1s\", line = [\"SRC\", \"DST\"], state = \"down\" }]"],
            "network.line_events[0].line: no line joins `SRC` and `DST`",
        ),
        (
            &["network.routing_params.loop_prevention=split-horizon"],
            "network.routing_params: unknown variant `split-horizon`",
        ),
        (
            &["network.routing_params.hop_unit=4"],
            "network.routing_params: unknown field `hop_unit`",
        ),
        (
            &["network.routing=static"],
            "network.routing_params: only with network.routing = \"adaptive\"",
        ),
        (
            &[
                "network.routing_periods=[{ line = [\"SRC\", \"P1\"], period = \"320ms\", from = \"DST\" }]",
            ],
            "network.routing_periods[0].from: `DST` is not an end of the line SRC–P1",
        ),
        (
            &["network.routing_periods=[{ line = [\"SRC\", \"P1\"], period = \"0s\" }]"],
            "network.routing_periods[0].period must be above zero",
        ),
    ];
    for (sets, want) in cases {
        let s = scenario(ALTERNATE, sets);
        let e: BuildError = run(&s, 1, Trace::off(), &mut |_| {})
            .err()
            .expect("must fail");
        let e = e.to_string();
        assert!(e.contains(want), "{sets:?}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
    // Typed keys fail when the scenario is read.
    let sets: Vec<Override> =
        ["network.line_events=[{ at = \"1s\", line = [\"SRC\", \"P1\"], state = \"flapping\" }]"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
    let e = load::<ImpScenario>("x.toml", ALTERNATE, &sets)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown variant `flapping`"), "{e}");
    assert!(!e.contains('\n'), "{e}");
    let sets: Vec<Override> = ["network.routing=dynamic"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    let e = load::<ImpScenario>("x.toml", ALTERNATE, &sets)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("expected one of `static`, `adaptive`, `spf`"),
        "{e}"
    );
}

/// With two paths of different speed (K&O §III; RFC 632's MOFFETT–SRI case has a faster
/// second path) the packets of one host's stream arrive at the destination IMP out of the
/// order they were sent in; messages still reach the host in order.
#[test]
fn a_faster_second_path_reorders_packets() {
    let s = scenario(
        ALTERNATE,
        &[
            "duration=30s",
            "network.routing_params.loop_prevention=none",
            "network.topology.lines.2.capacity=230.4kbit/s",
            "network.topology.lines.3.capacity=230.4kbit/s",
            "record=[]",
        ],
    );
    let o = run(&s, 1, Trace::off(), &mut |_| {}).unwrap();
    let mut data: Vec<_> = o
        .routing
        .journeys
        .iter()
        .filter(|j| j.kind == "data")
        .map(|j| (j.sent_ns, j.arrived_ns))
        .collect();
    data.sort();
    let overtaken = data.windows(2).filter(|w| w[1].1 < w[0].1).count();
    assert!(overtaken > 0, "no packet overtook another");
    assert_eq!(o.order_violations, 0);
}

/// RFC 632's two paths as the oracle ran them on the 1973 program
/// (`scenarios/oracle-rfc632.toml`). Under the model's rule (`routing_tables =
/// "each-message"`) the source IMP's route flaps with every table that comes in, and its first
/// switch to the fast path lets a message overtake the one before: the trap, within the first
/// 50 messages. Under the program's (`"slow-tick-1973"`: a table made at each slow tick and
/// taken once) the route changes at most once a slow tick, when the window's messages fill the
/// slow path, and the first 300 messages go untrapped, as on the program (which trapped at
/// message 772 on SIMH and 891 on nmc's emulator).
#[test]
fn the_1973_programs_tables_keep_rfc_632s_two_paths_out_of_the_trap_longer() {
    let first_trapped = |tables: &str| {
        let s = scenario(
            include_str!("../../../../scenarios/oracle-rfc632.toml"),
            &[
                &format!("network.params.routing_tables=\"{tables}\""),
                "traffic.0.count=300",
                "duration=40s",
                "record=[]",
            ],
        );
        let o = run(&s, 1, Trace::off(), &mut |_| {}).unwrap();
        assert_eq!(o.messages.len(), 300, "{tables}: every message answered");
        o.messages
            .iter()
            .filter(|m| m.retransmissions > 0)
            .map(|m| m.id)
            .min()
    };
    let each = first_trapped("each-message");
    assert!(each.is_some_and(|id| id < 50), "each message: {each:?}");
    assert_eq!(first_trapped("slow-tick-1973"), None, "the 1973 tables");
}

/// Static routes never change and carry nothing of the adaptive machinery: no route changes,
/// no journeys, every message delivered in order, and the same seed gives the same run.
#[test]
fn static_routes_are_static() {
    let s = scenario(
        CHAIN,
        &[
            "duration=20s",
            "network.topology.hops=3",
            "network.hosts.1.imp=IMP3",
        ],
    );
    let a = run(&s, 4, Trace::off(), &mut |_| {}).unwrap();
    let b = run(&s, 4, Trace::off(), &mut |_| {}).unwrap();
    assert!(a.messages.len() > 80, "{} messages", a.messages.len());
    assert_eq!(a.order_violations, 0);
    assert!(a.routing.journeys.is_empty() && a.routing.route_changes.is_empty());
    assert_eq!(format!("{:?}", a.messages), format!("{:?}", b.messages));
}

/// Same seed, same run: routing records, loops and journeys of an adaptive run with line
/// failures come out identical twice.
#[test]
fn adaptive_runs_are_deterministic() {
    let looping = include_str!("../../../../scenarios/ko-looping.toml");
    let s = scenario(looping, &["duration=70s", "record=[]"]);
    let runs: Vec<String> = (0..2)
        .map(|_| {
            let o = run(&s, 5, Trace::off(), &mut |_| {}).unwrap();
            let r = &o.routing;
            format!(
                "{:?}{:?}{:?}{:?}{:?}",
                r.route_changes, r.loops, r.journeys, o.messages, o.metrics
            )
        })
        .collect();
    assert!(runs[0].len() > 100_000);
    assert_eq!(runs[0], runs[1]);
}
