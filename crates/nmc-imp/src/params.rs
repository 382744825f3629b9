//! Every protocol constant of the IMP subnet, as a named parameter of a profile.
//!
//! A profile is a complete [`ImpParams`]; a scenario names one (`profile = "v2-1974-10"`) and may
//! override any field in `[network.params]` or with `--set network.params.<field>=...`.
//! Each field cites where its value comes from. "K&O" is Kleinrock & Opderbeck, *Throughput in
//! the ARPANET — protocols and measurement*, IEEE Trans. Commun. COM-25(1), Jan. 1977
//! (`shared/seeds/003_…`); "RFC 632" is Opderbeck, May 1974 (`shared/seeds/001_…`).
//! Values marked **choice** are left open by the sources; the reason for each is given.

use nmc_sim::{BitRate, Bits, SimDuration};
use serde::{Deserialize, Serialize};

/// The parameters of the subnet. Field names are the sources' names where they have one.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ImpParams {
    // ---- Packets and messages (K&O §II) ----
    /// Largest message a host may send, in data bits. K&O §II: "each with a maximum length of
    /// 8063 data bits".
    pub max_message: Bits,
    /// Largest packet, in data bits. K&O §II: "one 1008-bit packet".
    pub max_packet: Bits,

    // ---- Lines (K&O §III; SPEC §2.1) ----
    /// Bits each frame carries on a line beyond its data: IMP header, framing (SYN/DLE/STX/ETX)
    /// and the 24-bit CRC. **Choice, calibrated**: the sources give no figure; the value makes
    /// 8-packet traffic over one 50 kbit/s hop reach the ~75 % line efficiency of K&O §IV
    /// footnote 3 once routing messages, acknowledgements and host input are accounted for
    /// (see the calibration note in `nmc reproduce ko-v2-throughput`).
    pub packet_overhead: Bits,
    /// Data bits of a subnet control message (RFNM, REQALL, ALL, GVB) beyond the frame
    /// overhead. **Choice**: a control message is a leader-sized packet (32 bits of leader).
    pub control_bits: Bits,
    /// Length of a routing message on the line, overhead included. **Choice**: about one full
    /// packet, so that at one message per 640 ms a loaded 50 kbit/s line spends ~3.6 % of its
    /// capacity on routing, as McQuillan reports for the 1974 procedure (K&O ref. [8]).
    pub routing_message: Bits,
    /// Period of routing messages on a line. K&O §III: "once every 640 ms (for heavily loaded,
    /// 50-kbit/s lines)".
    pub routing_period: SimDuration,
    /// Frames a line may have sent but not yet acknowledged (logical channels). **Choice**: 8,
    /// the number of logical channels per line of the 1974 IMP program (McQuillan et al. 1972,
    /// K&O ref. [6]); the sources do not state it.
    pub logical_channels: u8,
    /// IMP-to-IMP retransmission timeout. K&O §III and RFC 632: "retransmitted if no
    /// IMP-to-IMP acknowledgment has been received after a 125 ms timeout".
    pub retransmit_timeout: SimDuration,
    /// Probability that a bit on a line is in error (a frame with an error is discarded by the
    /// CRC check and retransmitted after the timeout). RFC 632: line errors cause
    /// retransmission. **Choice**: 0 in the profiles; set it in a scenario.
    pub bit_error_rate: f64,

    // ---- IMPs (K&O §III) ----
    /// Packet buffers per IMP. K&O §III: 51 without the VDH software, 30 with it.
    pub buffers: u32,
    /// Packet buffers per IMP with VDH software. K&O §III.
    pub buffers_vdh: u32,
    /// A packet may enter the source IMP from a host only if this many buffers are free.
    /// K&O §III: "at least four free buffers".
    pub host_input_min_free: u32,
    /// Store-and-forward packets an IMP may hold. K&O §III: "a maximum of 20".
    pub store_and_forward_max: u32,
    /// Packets per output queue. K&O §III: "8 packets for each output queue".
    pub output_queue_max: u32,
    /// Processing bandwidth of a 316 IMP. K&O §III: "about 700 … kbit/s".
    pub processing_316: BitRate,
    /// Processing bandwidth of a 516 IMP. K&O §III: "about … 850 kbit/s".
    pub processing_516: BitRate,
    /// IMP model used where the topology does not say. **Choice**: 316, the more common and
    /// slower machine on the 1974 net.
    pub default_imp: ImpModel,

    // ---- Hosts (K&O §III) ----
    /// Host–IMP interface speed, each direction. K&O §III: "a single 100-kbit/s transmission line".
    pub host_interface: BitRate,
    /// Leader bits the host sends before a message. **Choice**: 32 bits, the host–IMP leader.
    pub host_leader: Bits,

    // ---- Version 2 end-to-end control (K&O §II–III) ----
    /// Message numbers per source-IMP/destination-IMP pair. K&O §III: "only four message
    /// sequence numbers allocated per source IMP-destination IMP pair".
    pub message_numbers: u32,
    /// Pending-leader-table entries per source IMP. K&O §III: "a shared pool of six".
    pub plt_entries: u32,
    /// Reassembly buffers per IMP without VDH. K&O §III: "a maximum of 34 buffers".
    pub reassembly_buffers: u32,
    /// Reassembly buffers per VDH IMP. SPEC §2.2 / K&O §VII: 10.
    pub reassembly_buffers_vdh: u32,
    /// Buffers an ALL reserves. K&O §II: "an allocation of these [eight] buffers".
    pub allocation_buffers: u32,
    /// Longest a RFNM waits for buffers to carry a piggy-backed ALL. K&O §II: "at most 1 s".
    pub rfnm_all_wait: SimDuration,
    /// Unused allocation returned with a GVB after this. K&O §II: "within the next 250 ms".
    pub giveback_after: SimDuration,
    /// Control messages (RFNM, ALL, REQALL, GVB) go ahead of data in output queues.
    /// **Choice**: true; the IMP program served its control traffic first.
    pub control_priority: bool,
    /// Out-of-order single-packet messages: how the destination treats them (RFC 632).
    pub single_packet_rule: SinglePacketRule,
}

/// Which IMP hardware.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub enum ImpModel {
    #[serde(rename = "316")]
    H316,
    #[serde(rename = "516")]
    H516,
}

/// How a destination IMP treats a single-packet message that arrives out of order.
/// Only `current` is modelled so far; RFC 632's fixes come with their own issue.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SinglePacketRule {
    /// RFC 632 "current rule": reject, treat as a request for one buffer.
    Current,
}

impl ImpParams {
    /// October 1974, "version 2" (K&O §II–IV).
    pub fn v2_1974_10() -> Self {
        ImpParams {
            max_message: Bits::new(8063),
            max_packet: Bits::new(1008),
            packet_overhead: Bits::new(PACKET_OVERHEAD_CALIBRATED),
            control_bits: Bits::new(32),
            routing_message: Bits::new(1160),
            routing_period: SimDuration::from_millis(640),
            logical_channels: 8,
            retransmit_timeout: SimDuration::from_millis(125),
            bit_error_rate: 0.0,
            buffers: 51,
            buffers_vdh: 30,
            host_input_min_free: 4,
            store_and_forward_max: 20,
            output_queue_max: 8,
            processing_316: BitRate::from_kbps(700),
            processing_516: BitRate::from_kbps(850),
            default_imp: ImpModel::H316,
            host_interface: BitRate::from_kbps(100),
            host_leader: Bits::new(32),
            message_numbers: 4,
            plt_entries: 6,
            reassembly_buffers: 34,
            reassembly_buffers_vdh: 10,
            allocation_buffers: 8,
            rfnm_all_wait: SimDuration::from_secs(1),
            giveback_after: SimDuration::from_millis(250),
            control_priority: true,
            single_packet_rule: SinglePacketRule::Current,
        }
    }

    /// The profile of this name.
    pub fn profile(name: &str) -> Option<Self> {
        match name {
            "v2-1974-10" => Some(Self::v2_1974_10()),
            _ => None,
        }
    }

    pub const PROFILES: &[&str] = &["v2-1974-10"];

    /// Checks values that would make the model meaningless.
    pub fn validate(&self) -> Result<(), String> {
        let p = "network.params";
        if self.max_packet.get() == 0 || self.max_message.get() == 0 {
            return Err(format!(
                "{p}: max_packet and max_message must be above zero"
            ));
        }
        if self.max_message.get().div_ceil(self.max_packet.get()) > self.allocation_buffers as u64 {
            return Err(format!(
                "{p}: a {} message needs more packets than an allocation of {} buffers holds",
                self.max_message, self.allocation_buffers
            ));
        }
        if self.logical_channels == 0 || self.logical_channels > 8 {
            return Err(format!("{p}.logical_channels must be 1..=8"));
        }
        if !(0.0..1.0).contains(&self.bit_error_rate) {
            return Err(format!("{p}.bit_error_rate must be in [0, 1)"));
        }
        if self.message_numbers == 0 || self.plt_entries == 0 {
            return Err(format!(
                "{p}: message_numbers and plt_entries must be at least 1"
            ));
        }
        if self.reassembly_buffers < self.allocation_buffers
            || self.reassembly_buffers > self.buffers
        {
            return Err(format!(
                "{p}.reassembly_buffers must hold one allocation ({}) and fit in the IMP's {} buffers",
                self.allocation_buffers, self.buffers
            ));
        }
        if self.output_queue_max == 0
            || self.retransmit_timeout.is_zero()
            || self.routing_period.is_zero()
        {
            return Err(format!(
                "{p}: output_queue_max, retransmit_timeout and routing_period must be above zero"
            ));
        }
        Ok(())
    }
}

/// Per-packet line overhead in bits, the one calibrated constant of `v2-1974-10` (see
/// [`ImpParams::packet_overhead`]).
pub const PACKET_OVERHEAD_CALIBRATED: u64 = 280;
