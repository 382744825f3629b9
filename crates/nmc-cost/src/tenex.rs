//! The TENEX host of RFC 392 as a cost model: the chargeable CPU time of one RJS transfer, from
//! the disk to the network or back, as a pure function of documented parameters.
//!
//! One transfer of `n` 8-bit bytes costs (µs of chargeable CPU):
//!
//! ```text
//! setup                                   once per transfer (opening the file and the
//!                                         connection, the RJS job handshake)   — estimated
//! + n × bin_bout_us_per_byte              BIN/BOUT, fast mode                  — RFC 392 §I
//! + messages × slow_us_per_message        the "slow bin, bout", once a message — RFC 392 §I
//! + messages × unpack × (size / full)     receiving: unpacking 8-bit bytes    — RFC 392 §I
//! + n × rjs_us_per_byte                   the RJS program's record/block
//!                                         formatting and the disk side          — estimated
//! + records × rjs_us_per_record           per record (default 0, see below)     — estimated
//! + messages × wait × load                page faults after waiting for a
//!                                         message, per unit of load average     — estimated
//! ```
//!
//! `messages` follows from the message size in each direction: Utah's sends are cut into
//! messages as large as the NCP and the host-to-host allocation allow (8063 bits less the
//! host-host header, so 1002 8-bit bytes); what UCLA's 360/91 sent back is not in the paper and
//! is an estimated parameter ([`Tenex1972::recv_message_bytes`]). The send/receive difference
//! therefore comes out of the mechanism — per-message costs times the number of messages — and
//! not from a per-direction constant.
//!
//! Left out, on purpose:
//! - **Per-record against per-byte RJS cost.** The tables give bytes only; with a fixed record
//!   size, records are proportional to bytes, so the two cannot be told apart. The fit puts the
//!   whole of the RJS program's cost per byte; `rjs_us_per_record` is kept (default 0) so that a
//!   reader can move cost between them and see the same totals.
//! - **Page faults and load beyond one term.** The paper blames page faulting for the program's
//!   cost (§I) but gives no figure. Load enters only as a per-message wait cost
//!   ([`Tenex1972::wait_us_per_message_per_load`]), because the tables show an effect of load on
//!   receives and none on sends (see [`crate::fit::load_regressions`]).

use crate::data::Dir;
use serde::Serialize;

/// RFC 392's TENEX host (Utah-10, September 1972). Every field cites its source; the ones the
/// source does not give say so and are estimated from the tables by [`crate::fit`].
/// [`Default`] holds the paper's constants with the estimated quantities at zero (set-up, RJS,
/// wait) or at a full message (UCLA's message size): a fit fills them in.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Tenex1972 {
    /// Bits per byte on the RJS data connection. RFC 392 §III: "the 8 bit bytes now required by
    /// the protocol" (NETRJS, RFC 189).
    pub byte_bits: u32,
    /// BIN/BOUT in fast mode, µs per byte. RFC 392 §I: "The basic timing of these two
    /// instructions (in the fast mode) is 120 us per byte to get the data onto or off of the
    /// network" (Tomlinson, BBN, ref. \[3\]).
    pub bin_bout_us_per_byte: f64,
    /// The "slow bin, bout", µs per message, both directions. RFC 392 §I: it "occurs once per
    /// message. If the users bytes are 36 bits long then it will take an average of 500 us per
    /// message."
    pub slow_us_per_message: f64,
    /// Extra µs for unpacking a full message on receipt. RFC 392 §I: "If the bytes have to be
    /// unpacked from the message to be usable, then it may take up to a milli-second depending
    /// on the size of the message": 1000 − 500 µs for a full message, scaled by the message's
    /// size (judgement: linear in size). Applied to received messages only (judgement: the
    /// paper names unpacking as the receiving side's work).
    pub unpack_us_per_full_message: f64,
    /// Largest message, bits. K&O §II and BBN Report 1822: 8063 data bits.
    pub max_message_bits: u32,
    /// NCP host-host header inside each message, bits: message type, byte size, byte count,
    /// filler (8 + 8 + 16 + 8). Judgement from the 1972 Host/Host protocol; not in RFC 392.
    pub host_header_bits: u32,
    /// The host-to-host allocation UCLA gave Utah's sending connection, bits per message.
    /// Not in RFC 392; judgement: at least one full message (so it does not bind).
    pub send_allocation_bits: u32,
    /// Mean bytes per message that UCLA's 360/91 sent to Utah. Not in RFC 392: estimated from
    /// the tables by [`crate::fit`] (default: a full message, the paper-constants assumption).
    /// What would have kept them small the paper does not say: Utah's own receive allocation
    /// (in the 1972 NCP the receiver allocates messages and bits to the sender), or the 91
    /// sending one message per RJS record.
    pub recv_message_bytes: f64,
    /// The RJS program's own cost per byte (record/block headers, blocking, the disk side), µs.
    /// Not in RFC 392 beyond its total ("600 to 700 us per bit byte", §II): estimated.
    pub rjs_us_per_byte: f64,
    /// The RJS program's cost per record, µs (default 0: not separable from the per-byte cost).
    pub rjs_us_per_record: f64,
    /// Bytes per record for `rjs_us_per_record`: a card image (judgement).
    pub record_bytes: u32,
    /// Fixed CPU per transfer, µs. Not in RFC 392: estimated (the paper shows its effect: short
    /// transfers cost 127–180 µs/bit).
    pub setup_us: f64,
    /// CPU charged for each message the process waits for, per unit of 5-minute load average,
    /// µs: after a wait the scheduler has taken the program's pages and it faults them back in
    /// (RFC 392 §I: the page faulting that made the program "charged an excessive amount").
    /// The paper gives no figure: estimated (0 in the paper-constants fit). Per message, so a
    /// direction with small messages feels load and one with full messages hardly does.
    pub wait_us_per_message_per_load: f64,
    /// Price of chargeable CPU, $ per hour. RFC 392 §II: "$474.60 per cpu hour on TENEX's"
    /// (BBN, ref. \[5\]).
    pub price_per_cpu_hour: f64,
    /// Predicted network transmission cost, $ per 10^6 bits. RFC 392 §II cites Roberts &
    /// Wessler (SJCC 1970, ref. \[4\]) without the figure; the paper's own ratios imply it:
    /// $9.90 / 33 = 0.300, $11.20 / 37 = 0.303. We use $0.30 (an input, not a result).
    pub network_cost_per_megabit: f64,
}

impl Default for Tenex1972 {
    fn default() -> Self {
        Tenex1972 {
            byte_bits: 8,
            bin_bout_us_per_byte: 120.0,
            slow_us_per_message: 500.0,
            unpack_us_per_full_message: 500.0,
            max_message_bits: 8063,
            host_header_bits: 40,
            send_allocation_bits: 8063,
            recv_message_bytes: 1002.0,
            rjs_us_per_byte: 0.0,
            rjs_us_per_record: 0.0,
            record_bytes: 80,
            setup_us: 0.0,
            wait_us_per_message_per_load: 0.0,
            price_per_cpu_hour: 474.60,
            network_cost_per_megabit: 0.30,
        }
    }
}

/// The TENEX monitor's CPU charged to a process for one transfer's fixed work — one network
/// connection opened and closed, one disk file opened and closed — in ms, low and high.
///
/// Counted (issue 35), not measured: no TENEX per-call CPU figure is published. Hand counts of
/// the main paths in the TENEX 1.28 monitor source (GitHub `PDP-10/tenex`, `128-tenex/`, Sep–Dec
/// 1971, the release nearest RFC 392): `netac1.mac` NETOPN → CONNEC → MAKSKT → DOFSM → SNDRFC
/// and NETCLZ; `impdrv.mac` IMPSCM, IMPMSO; `gtjfn.mac` .GTJFN; `dskdev.mac` DSKOPN, DSKCLZ;
/// `pagem.mac` ASOFN (its ASCHK1 scan of the 512-word index block) and RELOFN (RELOF3). About
/// 1,450–2,870 instructions for the connection, 1,000–2,000 for its GTJFN and 5,000–13,000 for
/// the disk file, at 1.7–2.5 µs per KA10 instruction (1.5–2.0 in the index-block loops; a
/// judgement from the KA10's instruction times with 1 µs core). Left out: page faults, and the
/// NCP's handling of the replies, which runs at scheduler level and is charged to the
/// scheduler, not the process (`sched.mac`). Used as a lower bound on the set-up, never as the
/// set-up: the RJS program's own per-transfer work is not in it.
pub const MONITOR_SETUP_MS: (f64, f64) = (13.0, 40.0);

/// Where one transfer's CPU goes, µs.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Parts {
    /// The fixed set-up per transfer.
    pub setup: f64,
    /// BIN/BOUT in fast mode, per byte.
    pub bin_bout: f64,
    /// The "slow bin, bout", per message.
    pub slow: f64,
    /// Unpacking received messages.
    pub unpack: f64,
    /// The RJS program's cost per byte.
    pub rjs_byte: f64,
    /// The RJS program's cost per record.
    pub rjs_record: f64,
    /// The per-message wait cost under load.
    pub load: f64,
}

impl Parts {
    /// All the parts together, µs.
    pub fn total(&self) -> f64 {
        self.setup
            + self.bin_bout
            + self.slow
            + self.unpack
            + self.rjs_byte
            + self.rjs_record
            + self.load
    }
}

impl Tenex1972 {
    /// Data bytes in a full message: (8063 − header) / byte size, whole bytes.
    pub fn full_message_bytes(&self) -> f64 {
        let bits = self.max_message_bits.saturating_sub(self.host_header_bits);
        f64::from(bits / self.byte_bits.max(1))
    }

    /// Bytes per message in direction `dir`: sends as large as the NCP limit and the allocation
    /// allow; receives as UCLA sent them.
    pub fn message_bytes(&self, dir: Dir) -> f64 {
        match dir {
            Dir::Send => {
                let limit = self
                    .max_message_bits
                    .min(self.send_allocation_bits)
                    .saturating_sub(self.host_header_bits);
                f64::from(limit / self.byte_bits.max(1)).max(1.0)
            }
            Dir::Receive => self
                .recv_message_bytes
                .clamp(1.0, self.full_message_bytes()),
        }
    }

    /// Messages needed for `bytes` in direction `dir`.
    pub fn messages(&self, dir: Dir, bytes: u64) -> f64 {
        (bytes as f64 / self.message_bytes(dir)).ceil()
    }

    /// The mechanism's CPU for one transfer, split into its parts (µs). `load` is the 5-minute
    /// load average, used only through `load_us_per_bit`.
    pub fn cost(&self, dir: Dir, bytes: u64, load: f64) -> Parts {
        let n = bytes as f64;
        let msgs = self.messages(dir, bytes);
        let unpack = match dir {
            Dir::Send => 0.0,
            // Each message's unpacking scales with its size; the total scales with the bytes.
            Dir::Receive => self.unpack_us_per_full_message * n / self.full_message_bytes(),
        };
        let records = (n / f64::from(self.record_bytes.max(1))).ceil();
        Parts {
            setup: self.setup_us,
            bin_bout: n * self.bin_bout_us_per_byte,
            slow: msgs * self.slow_us_per_message,
            unpack,
            rjs_byte: n * self.rjs_us_per_byte,
            rjs_record: records * self.rjs_us_per_record,
            load: msgs * self.wait_us_per_message_per_load * load,
        }
    }

    /// µs of chargeable CPU per bit for one transfer.
    pub fn us_per_bit(&self, dir: Dir, bytes: u64, load: f64) -> f64 {
        self.cost(dir, bytes, load).total() / (bytes as f64 * f64::from(self.byte_bits))
    }

    /// $ per 10^6 bits at `price_per_cpu_hour`, for a cost of `us_per_bit`.
    pub fn dollars_per_megabit(&self, us_per_bit: f64) -> f64 {
        dollars_per_megabit(us_per_bit, self.price_per_cpu_hour)
    }
}

/// $ per 10^6 bits: 10^6 bits × µs/bit = µs/bit CPU seconds, at `price_per_cpu_hour` / 3600 $
/// per second (RFC 392 §II's arithmetic: 75–85 s per 10^6 bits at $474.60/h).
pub fn dollars_per_megabit(us_per_bit: f64, price_per_cpu_hour: f64) -> f64 {
    us_per_bit * price_per_cpu_hour / 3600.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bin_bout_alone_is_15_us_per_bit() {
        // 120 µs per 8-bit byte (RFC 392 §I) is 15 µs/bit before anything else.
        let p = Tenex1972::default();
        let parts = p.cost(Dir::Send, 10_000, 0.0);
        assert_eq!(parts.bin_bout / 80_000.0, 15.0);
    }

    #[test]
    fn a_full_message_carries_1002_bytes() {
        let p = Tenex1972::default();
        assert_eq!(p.full_message_bytes(), 1002.0);
        assert_eq!(p.messages(Dir::Send, 1002), 1.0);
        assert_eq!(p.messages(Dir::Send, 1003), 2.0);
    }

    #[test]
    fn a_smaller_allocation_means_more_messages() {
        let p = Tenex1972 {
            send_allocation_bits: 1040,
            ..Tenex1972::default()
        };
        assert_eq!(p.message_bytes(Dir::Send), 125.0);
        assert_eq!(p.messages(Dir::Send, 1000), 8.0);
    }

    #[test]
    fn the_paper_price_turns_75_to_85_us_into_its_dollars() {
        // RFC 392 §II: 75 to 85 cpu seconds per 10^6 bits at $474.60/h is "$9.90 to 11.20".
        assert!((dollars_per_megabit(75.0, 474.60) - 9.8875).abs() < 1e-9);
        assert!((dollars_per_megabit(85.0, 474.60) - 11.2058).abs() < 1e-3);
    }
}
