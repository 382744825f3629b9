//! The IMP's end-to-end steps: the source's (K&O Fig. 1 points a–e, h, i), the destination's
//! and its replies (points d, f, g, i), both ends of single-packet messages (RFC 632), version
//! 3's control blocks, and the tables RFC 632 prints of them.
//!
//! | module | what |
//! | --- | --- |
//! | `e2e/procedure.rs` | where the software versions differ, as one trait (`procedure::Procedure`) of sans-I/O rules over the source IMP's tables, returning typed steps (`procedure::Step`, `procedure::Grant`) that the IMP's source steps (`e2e/messages.rs`) carry out; a message's state (`procedure::MsgState`) |
//! | `e2e/messages.rs` | the source IMP's steps of a message (K&O §II points a–e, h, i): the host's packets taken in, the message moved through its version's rules, packet 1 launched, the RFNM or ALL received and the allocation it brings, the waiting messages and PLT claims served in turn; each pushes what the driver is to do (`crate::imp::Output`) |
//! | `e2e/v2.rs` | version 2, October 1974 (K&O §II–III): numbers per IMP pair, PLT entry, then allocation or a REQALL that steals both |
//! | `e2e/v3.rs` | version 3, 1975 (K&O §VI–VII): message control blocks, numbers per host pair, allocation before PLT entry, superfluous REQALLs |
//! | `e2e/version.rs` | which version's procedure an IMP runs (`version::of`, `Imp::procedure`), apart from the trait so that it names none of its implementations |
//! | `e2e/control_blocks.rs` | version 3's message control blocks (K&O §VI), the IMP's steps: the block's disuse timer, the control messages that make and release a block pair; each pushes what the driver is to do (`crate::imp::Output`) |
//! | `e2e/replies.rs` | the destination IMP's steps of a multipacket message (K&O §II points d, f, g; §VII): reassembly, in-order hand-over to the hosts, the RFNM made and its 1 s wait, the replies (RFNMs with or without a piggy-backed ALL, ALLs) as buffers allow, and the source's GVB of an unused allocation (point i); each pushes what the driver is to do (`crate::imp::Output`) |
//! | `e2e/single.rs` | single-packet messages at the destination (RFC 632): accept in order, store or reject out of order by the rule in force (current, fix A, fix B, accept-all), and when an ALLOCATE may go |
//! | `e2e/table.rs` | RFC 632's two-column tables of single-packet messages' events (re-exported here) |
//!
//! Each rule is tested on one IMP, in K&O's words, in its own file.

mod control_blocks;
pub(crate) mod messages;
pub(crate) mod procedure;
pub(crate) mod replies;
pub(crate) mod single;
mod table;
pub(crate) mod v2;
pub(crate) mod v3;
pub(crate) mod version;

pub use table::*;

#[cfg(test)]
mod testing {
    //! What the rules' tests share: one IMP with a profile's limits, and a message that wants
    //! a step.
    use super::procedure::{MsgState, Want};
    use crate::imp::{Imp, ImpSettings, Limits};
    use crate::packet::{MsgId, stream};
    use crate::params::{ImpModel, ImpParams};

    /// An IMP with `p`'s limits (`params.rs`), 40 buffers and `reassembly` reassembly buffers.
    pub(super) fn imp(p: &ImpParams, reassembly: u32) -> Imp {
        Imp::new(
            0,
            "S".into(),
            ImpSettings::test(ImpModel::H516, 40, reassembly),
            Limits::of(p),
        )
    }

    /// Message `msg`, in `state`, from host 0 to host 1 (IMP 1).
    pub(super) fn want(msg: MsgId, state: MsgState) -> Want {
        Want {
            msg,
            state,
            stream: stream(0, 1),
            dst: 1,
        }
    }
}
