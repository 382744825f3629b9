//! The ARPANET (or MILNET) of 1983 as a hop: nmc's IMP model ([`nmc_imp::Stepper`]) run beside
//! the path, with its own traffic.
//!
//! A datagram of `L` octets entering at host `from` is handed to that host's IMP as an 1822
//! message of `8·L` data bits; it leaves the hop when its last packet has reached host `to`.
//! A message of one packet (up to 126 octets) and one of two or three take different roads
//! through the IMPs (K&O §II; RFC 632): the split RFC 889 §2.1 saw at 126 octets comes out of
//! that road, or does not. The subnet is stepped to each datagram's arrival and run until the
//! datagram is delivered; with one volley in flight, nothing else in the path needs it sooner.

use crate::hop::{Dir, HopModel, HopStats, Offer};
use nmc_imp::Stepper;
use nmc_imp::scenario::{ImpScenario, NetworkSpec};
use nmc_imp::spec::TrafficSpec;
use nmc_sim::{SimDuration, SimTime};

/// The IMP scenario a `kind = "subnet"` hop runs: its `[network]` and `[[traffic]]`, for the
/// path's duration, recording nothing.
pub fn scenario(
    path_name: &str,
    index: usize,
    duration: SimDuration,
    network: &NetworkSpec,
    traffic: &[TrafficSpec],
) -> ImpScenario {
    ImpScenario {
        name: format!("{path_name}-hop-{index}"),
        description: String::new(),
        seed: Some(0),
        duration,
        model: "imp".into(),
        network: network.clone(),
        traffic: traffic.to_vec(),
        record: Vec::new(),
        trace: false,
    }
}

/// A subnet hop's state: the stepped IMP model and the two hosts the path uses.
pub struct SubnetHop {
    stepper: Stepper,
    /// (`from`, `to`) host indices.
    ends: (u32, u32),
    /// A datagram not delivered within this is lost (the PING's own timeout).
    give_up: SimDuration,
    offered: u64,
    delivered: u64,
    /// The fewest and most IMP-to-IMP hops of the route the outbound datagrams found.
    route_hops: Option<(usize, usize)>,
}

impl SubnetHop {
    /// Builds the subnet of `s` with `seed`; `from` and `to` take their messages from the path.
    pub fn new(
        s: &ImpScenario,
        seed: u64,
        from: &str,
        to: &str,
        give_up: SimDuration,
    ) -> Result<Self, String> {
        let config = nmc_imp::scenario::resolve(s).map_err(|e| e.0)?;
        let stepper = Stepper::new(&config, seed, &[from, to]).map_err(|e| e.0)?;
        let ends = (
            stepper.host(from).expect("checked by Stepper::new"),
            stepper.host(to).expect("checked by Stepper::new"),
        );
        // Issue 33: two ends on one IMP never cross the subnet; every datagram was lost and
        // the run said nothing. Refused, as the IMP model refuses such traffic.
        let subnet = stepper.subnet();
        if subnet.host_imp(ends.0) == subnet.host_imp(ends.1) {
            return Err(format!(
                "`{from}` and `{to}` are on the same IMP; a subnet hop carries datagrams between \
                 hosts on different IMPs (network.hosts)"
            ));
        }
        Ok(SubnetHop {
            stepper,
            ends,
            give_up,
            offered: 0,
            delivered: 0,
            route_hops: None,
        })
    }

    /// Largest datagram (octets) one message carries.
    pub fn max_octets(&self) -> u64 {
        self.stepper.subnet().params().max_message.get() / 8
    }
}

impl HopModel for SubnetHop {
    fn offer(&mut self, now: SimTime, id: u64, len: u64, dir: Dir) -> Offer {
        let (from, to) = match dir {
            Dir::Out => self.ends,
            Dir::Back => (self.ends.1, self.ends.0),
        };
        self.stepper.advance(now);
        if dir == Dir::Out
            && let Some(route) = self.stepper.route(from, to)
        {
            let h = route.len() - 1;
            self.route_hops = Some(
                self.route_hops
                    .map_or((h, h), |(a, b)| (a.min(h), b.max(h))),
            );
        }
        // Lengths are checked against the message size when the path is built.
        if self.stepper.offer(from, to, len * 8, id).is_err() {
            return Offer::Dropped;
        }
        self.offered += 1;
        match self.stepper.run_to_delivery(id, now + self.give_up) {
            Some(at) => {
                self.delivered += 1;
                Offer::At(at)
            }
            None => Offer::Dropped,
        }
    }

    /// Not known without running the subnet: 0 (a subnet hop adds nothing to
    /// [`crate::Path::idle_round_trip`]).
    fn floor(&self, _len: u64) -> SimDuration {
        SimDuration::ZERO
    }

    fn stats(&self) -> HopStats {
        vec![
            ("datagrams_offered", self.offered as f64),
            ("datagrams_delivered", self.delivered as f64),
            (
                "route_hops_min",
                self.route_hops.map_or(f64::NAN, |r| r.0 as f64),
            ),
            (
                "route_hops_max",
                self.route_hops.map_or(f64::NAN, |r| r.1 as f64),
            ),
        ]
    }
}
