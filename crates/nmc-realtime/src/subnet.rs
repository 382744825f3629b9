//! The subnet between the two hosts, measured with nmc's IMP model: the only module of this
//! crate that touches `nmc_imp`.
//!
//! RFC 508 Fig. 1: UCSB 360/75 —100 kbit/s— UCSB IMP —50 kbit/s— UCLA IMP —100 kbit/s— UCLA
//! 360/91. We run nmc's IMP model (`nmc_imp::run`, profile `v2-1974-10`, a `lines` topology of
//! two IMPs) with a host on each IMP and the UCSB host sending messages of one buffer each to
//! the UCLA host, **one message outstanding** (`message_numbers = 1`, so each message waits for
//! the RFNM of the one before: the NCP's rule, see [`crate::params::NcpParams`]). From each
//! message's record we take
//!
//! * `deliver`: from the moment the host starts it into the IMP until its last packet is in
//!   the UCLA host (when the UCLA NCP can return the host-host allocation), and
//! * `rfnm`: until the RFNM is back at the UCSB host,
//!
//! measured from `max(offered, previous RFNM)`, plus the input time of packet 1 when the model
//! had already taken packet 1 while waiting for the message number (the model's host may offer
//! packet 1 early; an NCP waiting for a RFNM does not). A second run carries the UCLA NCP's
//! host-host allocate command (a short message) from UCLA to UCSB for its one-way time.
//!
//! **The decomposition and its limit.** The host/SEL/NCP model ([`crate::model`]) draws each
//! message's subnet times from these samples with its own seeded stream. This is exact only
//! because the subnet here is unloaded and holds one message at a time: what the hosts do
//! between messages cannot change the subnet's state, except through the allocation the RFNM
//! piggy-backs, which the IMP returns with a GVB when unused for `giveback_after` (250 ms,
//! K&O §II). So we also keep the first message's times (`cold`: no allocation held, a REQALL
//! round trip first) and the model uses them when a message follows the previous RFNM by more
//! than `giveback_after`. Other traffic on the 1973 network, and the IMP's own variation beyond
//! routing-message interference, are left out.

use nmc_imp::ImpParams;
use nmc_imp::spec::{
    HostSpec, ImpConfig, LineSpec, NetworkSpec, RoutingMode, TopologySpec, TrafficSpec,
};
use nmc_scenario::Scenario;
use nmc_sim::{BitRate, Bits, SimDuration, Trace};

/// Subnet times of one message size, in ns.
#[derive(Clone, Debug)]
pub struct SubnetTimes {
    /// Data bits per message given to the IMP model (buffer plus NCP header, at most 8063).
    pub message_bits: u64,
    /// Warm messages (an allocation held): (deliver, rfnm).
    pub warm: Vec<(u64, u64)>,
    /// The first message (a REQALL first): (deliver, rfnm).
    pub cold: (u64, u64),
    /// An unused allocation goes back after this (the profile's `giveback_after`).
    pub giveback_after_ns: u64,
    /// Data frames resent on the line during the run (IMP-to-IMP retransmissions after the
    /// 125 ms timeout; 0 on an error-free line).
    pub retransmissions: f64,
}

/// The path's parameters that the IMP model needs.
#[derive(Clone, Debug)]
pub struct PathSpec {
    /// UCSB–UCLA line. RFC 508 Fig. 1: "50 Kb/s".
    pub line_bps: u64,
    /// UCSB–UCLA propagation. **Choice**: 0.7 ms, ~140 km great-circle (Santa Barbara–Los
    /// Angeles) at 5 µs/km, the IMP model's per-km figure.
    pub propagation_ns: u64,
    /// Host interfaces. RFC 508 Fig. 1: "100 Kb/s".
    pub host_interface_bps: u64,
    /// Simulated time of each measuring run.
    pub run: SimDuration,
}

/// Why the IMP model could not give the times: one line.
#[derive(Debug, thiserror::Error)]
#[error("subnet model: {0}")]
pub struct SubnetError(pub String);

/// The IMP model's configuration for one measuring run, as typed values (issue 32: no
/// scenario text formatted and parsed back): profile `v2-1974-10` with one message number (the
/// NCP's one message outstanding) and the host interfaces' rate; the two IMPs and their line;
/// a host on each; a pump from `from` to `to` of `bits`-bit messages. No lockup watch, nothing
/// recorded but the outcome's messages.
fn config(p: &PathSpec, from: &str, to: &str, bits: u64) -> Result<ImpConfig, SubnetError> {
    let mut params = ImpParams::v2_1974_10();
    params.message_numbers = 1;
    // The pump stands for an NCP that sends its next message when the RFNM comes (the one
    // number held in the IMP keeps it back): its packet 1 goes in at once, as the host's would
    // at the RFNM, not at the IMP's next fast tick as a 1973 host waiting for a number does
    // (`number_wait = "leader-tick-1973"`).
    params.number_wait = nmc_imp::params::NumberWait::AtFirstPacket;
    params.host_interface = BitRate::from_bps(p.host_interface_bps);
    params
        .validate()
        .map_err(|e| SubnetError(format!("network.params: {e}")))?;
    let host = |name: &str, imp: &str| HostSpec {
        name: name.into(),
        imp: imp.into(),
        fake: false,
    };
    Ok(Scenario {
        name: "rfc508-subnet".into(),
        description: String::new(),
        seed: Some(1),
        duration: p.run,
        model: "imp".into(),
        network: NetworkSpec {
            profile: "v2-1974-10".into(),
            params,
            topology: TopologySpec::Lines {
                imps: vec!["UCSB".into(), "UCLA".into()],
                lines: vec![LineSpec {
                    a: "UCSB".into(),
                    b: "UCLA".into(),
                    capacity: Some(BitRate::from_bps(p.line_bps)),
                    propagation: Some(SimDuration::from_nanos(p.propagation_ns)),
                }],
                capacity: None,
                propagation: None,
            },
            hosts: vec![host("UCSB-360", "UCSB"), host("UCLA-360", "UCLA")],
            // A scenario file's default; nothing here records occupancy.
            sample_period: SimDuration::from_millis(100),
            events: Vec::new(),
            lockup_window: SimDuration::ZERO,
            measure_from: SimDuration::ZERO,
            slices: Vec::new(),
            routing: RoutingMode::Static,
            routing_params: None,
            routing_periods: Vec::new(),
            line_events: Vec::new(),
            imp_models: Default::default(),
            vdh: Vec::new(),
            program: None,
        },
        traffic: vec![TrafficSpec::Pump {
            from: from.into(),
            to: to.into(),
            message: Bits::new(bits),
            start: SimDuration::ZERO,
            count: None,
            outstanding: None,
        }],
        record: Vec::new(),
        trace: false,
    })
}

fn measure(
    p: &PathSpec,
    from: &str,
    to: &str,
    bits: u64,
    seed: u64,
) -> Result<SubnetTimes, SubnetError> {
    let o = nmc_imp::run(&config(p, from, to, bits)?, seed, Trace::off(), &mut |_| {})
        .map_err(|e| SubnetError(e.to_string()))?;
    let mut warm = Vec::new();
    let mut cold = None;
    let mut prev_rfnm: Option<u64> = None;
    for r in &o.messages {
        let (Some(first_in), Some(del), Some(rfnm)) = (r.first_in_ns, r.delivered_ns, r.rfnm_ns)
        else {
            continue;
        };
        let start = match prev_rfnm {
            Some(pr) if pr > r.offered_ns => pr - (first_in - r.offered_ns),
            _ => r.offered_ns,
        };
        let pair = (del.saturating_sub(start), rfnm - start);
        if cold.is_none() {
            cold = Some(pair);
        } else {
            warm.push(pair);
        }
        prev_rfnm = Some(rfnm);
    }
    let cold =
        cold.ok_or_else(|| SubnetError(format!("no {bits}-bit message came back in {}", p.run)))?;
    if warm.is_empty() {
        warm.push(cold);
    }
    Ok(SubnetTimes {
        message_bits: bits,
        warm,
        cold,
        giveback_after_ns: o.params.giveback_after.as_nanos(),
        retransmissions: o.metrics.count(nmc_imp::observe::Counted::Retransmission) as f64,
    })
}

/// Subnet times for messages of `bits` data bits from the UCSB host to the UCLA host.
pub fn forward(p: &PathSpec, bits: u64, seed: u64) -> Result<SubnetTimes, SubnetError> {
    measure(p, "UCSB-360", "UCLA-360", bits, seed)
}

/// Subnet times for a short control message (the host-host allocate) from UCLA to UCSB.
pub fn reverse(p: &PathSpec, bits: u64, seed: u64) -> Result<SubnetTimes, SubnetError> {
    measure(p, "UCLA-360", "UCSB-360", bits, seed)
}

/// The largest message the IMP model's profile carries (data bits).
pub fn max_message_bits() -> u64 {
    nmc_imp::ImpParams::v2_1974_10().max_message.get()
}
