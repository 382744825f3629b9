//! Every constant of the RFC 508 model, named, with its source, and overridable.
//!
//! "RFC 508" below is Pfeifer & McAfee, *Real-time data transmission on the ARPANET*, UCSB,
//! 7 May 1973. Where the sources are silent the value is marked **Choice** with its reason.

use crate::subnet::PathSpec;
use nmc_sim::SimDuration;
use serde::Serialize;

/// The SEL 810-B measurement program (RFC 508 §IV).
#[derive(Clone, Debug, Serialize)]
pub struct SelParams {
    /// Buffers in the SEL. RFC 508 §IV: "two buffers, each of 1 to 8 network packets".
    pub buffers: u32,
    /// Gap timer step. RFC 508 §IV: "a timer is also started to test for the empty buffer
    /// every one millisecond and to measure the duration of the gap".
    pub poll_ns: u64,
    /// SEL–360 link. RFC 508 §II: "a 500 kilobit line for high speed data transfers".
    pub link_bps: u64,
}

/// The UCSB IBM 360/75 (RFC 508 §II–III, §VI).
///
/// Sources searched for the host's response (issue 35): RFC 311 (Bryan, Feb 1972) describes the
/// 360/75's terminal attachments — 16 full-duplex line pairs on the MLC/360M, Culler-Fried
/// graphic consoles, classrooms at up to 9600 baud — and RFC 335 (May 1972) its new IMP
/// interface; neither gives a response time or a CPU figure. The one 1973 scale found is RFC
/// 573 Table I: hosts answered a new connection (ICP to the logger) in 2.4–3.0 s on average
/// (NIC, BBN, ISI, 25–31 Aug 1973) — the order of RFC 508's longest gaps, not a parameter here.
/// So every field below that is not RFC 508's is a **Choice**.
#[derive(Clone, Debug, Serialize)]
pub struct HostParams {
    /// Buffers of the SEL's data in the 360. RFC 508 §V step 1: "Initialize the UCSB IBM 360
    /// for double buffered data transfers using specified buffer sizes".
    pub user_buffers: u32,
    /// CPU time of the network job to answer the SEL's attention interrupt and start a transfer.
    /// **Choice**: 1 ms (a few thousand instructions of a ~1 MIPS 360/75); not in the sources.
    pub attention_cpu_ns: u64,
    /// CPU time of the NCP to build and send one message. **Choice**: 1 ms, as above.
    pub send_cpu_ns: u64,
    /// CPU time of the NCP to take in a RFNM or a host-host ALL. **Choice**: 0.5 ms.
    pub rfnm_cpu_ns: u64,
    /// On-Line System terminals in use (16 is the full classroom, RFC 508 §VI: "the Electrical
    /// Engineering On-Line classroom (16 interactive graphics terminals)"). Set per test by the
    /// experiment: 16 on 2/7 before 10:00, the fitted background otherwise.
    pub terminals: u32,
    /// Mean think time of an On-Line System user between interactions (exponential).
    /// **Choice** (fixed a priori, not fitted): 10 s, an interactive graphics user.
    pub think_mean_ns: u64,
    /// Mean CPU burst of one interaction (exponential), served ahead of the network job
    /// (RFC 508 §VI: "the SEL connection to the IBM 360 has lower priority in the 360 than the
    /// UCSB On-Line System"). Default 0.5 s (16 terminals then ask for ~76 % of the CPU); the
    /// `rfc508-realtime` experiment fits it, with the background terminals, on the 2/5 and 2/6
    /// tests (see [`crate::experiment::fit`]).
    pub burst_mean_ns: u64,
    /// When set, the host answers every request of the network job this long after it is made,
    /// instead of the On-Line System model (for the gap-free-rate curve).
    pub fixed_response_ns: Option<u64>,
}

/// The host-host protocol (NCP) of 1972–73 on both hosts.
#[derive(Clone, Debug, Serialize)]
pub struct NcpParams {
    /// Messages a link may have sent and not yet answered by a RFNM. Host/Host Protocol (NIC
    /// 8246, 1972; reproduced as RFC 6529) as we read it: a host sends the next message on a
    /// link only after the RFNM of the previous one. 1.
    pub messages_per_link: u32,
    /// Bits of the host-host header ahead of the data in each message. Host/Host Protocol:
    /// 8-bit marking, 8-bit byte size, 16-bit byte count, 8-bit filler: 40.
    pub header_bits: u64,
    /// Connection buffer of the sending NCP; the SEL's data waits here for the link, and a
    /// message carries everything waiting (up to the largest message), as a stream protocol
    /// does. Freed at the message's RFNM. **Choice**: 16046 bits, two largest messages (one on
    /// the link, the next being collected); the sources give no figure. RFC 101 (Feb 1971) puts
    /// the UCSB NCP, about 39 K bytes, in a 60 K-byte partition (so up to ~21 K bytes of buffers,
    /// far above this choice); the NCP's own description (NIC 5480) is not reachable. `nmc reproduce
    /// rfc508-realtime` shows R508-1 and R508-3 under one buffer per message as variants.
    pub send_buffer_bits: u64,
    /// Host-host allocation the UCLA NCP grants at the start, bits; it re-allocates what the
    /// discard socket consumed as each message arrives. **Choice**: 16126 bits (two largest
    /// messages); RFC 508 does not give the 360/91's allocation. `nmc reproduce rfc508-realtime`
    /// shows R508-1 and R508-3 under a one-message allocation (8063 bits) as variants.
    pub allocation_bits: u64,
    /// UCLA 360/91 time from a message's arrival to its host-host ALL. **Choice**: 0; RFC 508
    /// §II: the UCLA host "merely discarded the data it received".
    pub ucla_response_ns: u64,
    /// Length of the host-host ALL command message: 40-bit header + 8-bit opcode, 8-bit link,
    /// 16-bit message space, 32-bit bit space (Host/Host Protocol): 104 bits.
    pub all_message_bits: u64,
}

/// One test.
#[derive(Clone, Debug, Serialize)]
pub struct TestParams {
    /// RFC 508 §V: "After 30 seconds, stop the test."
    pub duration_ns: u64,
    /// The host runs this long before the test starts (the On-Line System in steady state).
    /// **Choice**: 60 s.
    pub warmup_ns: u64,
}

/// Everything.
#[derive(Clone, Debug, Serialize)]
pub struct Params {
    /// The SEL 810-B measurement program.
    pub sel: SelParams,
    /// The UCSB IBM 360/75.
    pub host: HostParams,
    /// The host-host protocol on both hosts.
    pub ncp: NcpParams,
    /// One test's duration and warm-up.
    pub test: TestParams,
    /// The UCSB–UCLA path the IMP model runs.
    #[serde(skip)]
    pub path: PathSpec,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            sel: SelParams {
                buffers: 2,
                poll_ns: 1_000_000,
                link_bps: 500_000,
            },
            host: HostParams {
                user_buffers: 2,
                attention_cpu_ns: 1_000_000,
                send_cpu_ns: 1_000_000,
                rfnm_cpu_ns: 500_000,
                terminals: 0,
                think_mean_ns: 10_000_000_000,
                burst_mean_ns: 500_000_000,
                fixed_response_ns: None,
            },
            ncp: NcpParams {
                messages_per_link: 1,
                header_bits: 40,
                send_buffer_bits: 16_046,
                allocation_bits: 16_126,
                ucla_response_ns: 0,
                all_message_bits: 104,
            },
            test: TestParams {
                duration_ns: 30_000_000_000,
                warmup_ns: 60_000_000_000,
            },
            path: PathSpec {
                line_bps: 50_000,
                propagation_ns: 700_000,
                host_interface_bps: 100_000,
                run: SimDuration::from_secs(30),
            },
        }
    }
}

impl Params {
    /// Checks the values a user can set; one line naming the field.
    pub fn validate(&self) -> Result<(), String> {
        if self.sel.buffers < 2 {
            return Err("sel.buffers must be at least 2 (double buffering)".into());
        }
        if self.sel.poll_ns == 0 || self.sel.link_bps == 0 {
            return Err("sel.poll_ns and sel.link_bps must be above zero".into());
        }
        if self.host.user_buffers == 0 || self.ncp.messages_per_link == 0 {
            return Err("host.user_buffers and ncp.messages_per_link must be at least 1".into());
        }
        if self.test.duration_ns == 0 {
            return Err("test.duration_ns must be above zero".into());
        }
        if self.host.terminals > 0 && (self.host.think_mean_ns == 0 || self.host.burst_mean_ns == 0)
        {
            return Err("host.think_mean_ns and host.burst_mean_ns must be above zero".into());
        }
        Ok(())
    }
}
