//! The end-to-end message procedure of an IMP software version, as one trait
//! ([`Procedure`]) with an implementation per version: `V2` in `e2e/v2.rs` (October 1974, K&O
//! §II–III) and `V3` in `e2e/v3.rs` (1975, K&O §VI–VII); `e2e/version.rs` picks one for a
//! profile (`version::of`), and the IMP reads it there (`Imp::procedure`).
//!
//! A version's rules are sans-I/O: each takes the source IMP's tables ([`Imp`]) and what it
//! reads of the message ([`Want`]), changes the tables, and returns what follows — a typed
//! [`Step`] or [`Grant`]. The IMP's step (`e2e/messages.rs`, [`Imp::advance`]) carries it out:
//! records the message's number, pushes the trace lines and counts, launches packet 1, sends
//! the REQALL or the block request. So a rule is tested in K&O's words on one IMP, without a
//! subnet (the tests below `e2e/v2.rs` and `e2e/v3.rs`).
//!
//! What the versions share is the IMP's steps', not the trait's: launching packet 1 (K&O Fig.
//! 1 point e), reassembly and hand-over (points d, f), RFNMs and their piggy-backed ALLs
//! (points g, h), the GVB timer (point i), single-packet messages (RFC 632); and the line
//! procedure.

use crate::imp::Imp;
use crate::packet::{MsgId, Stream};
pub(crate) use crate::source::MsgState;

/// What a rule reads of the message it moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Want {
    /// The message.
    pub(crate) msg: MsgId,
    /// Where it is in the source procedure.
    pub(crate) state: MsgState,
    /// The stream its numbers count in (IMP pair in version 2, host pair in version 3).
    pub(crate) stream: Stream,
    /// Its destination IMP.
    pub(crate) dst: u32,
}

/// One step of a message through its source procedure, for the driver to carry out. The rule
/// has already changed the IMP's tables accordingly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// In line for a resource (a block, a number, a PLT entry), or nothing to do: nothing
    /// more until something frees.
    Wait,
    /// On to `MsgState`; the procedure goes on.
    Moved(MsgState),
    /// Message number `num` taken (K&O point b); on to `then`. A single-packet message leaves
    /// now (RFC 632: no PLT entry, no allocation); any other goes on.
    Numbered {
        /// The number.
        num: u64,
        /// The state the message moves to.
        then: MsgState,
    },
    /// A PLT entry taken (point c) with an allocation at hand: packet 1 leaves (point e).
    PltLaunch,
    /// Version 2: a PLT entry taken, no allocation at hand: a REQALL "steals the acquired
    /// message number and the PLT entry" (K&O §II) and the message awaits an ALL.
    PltReqall,
    /// Version 3: a transmit block was made; a control message asks the destination IMP for
    /// the receive block (K&O §VI). The message waits for the answer.
    CreateBlock,
    /// Version 3: every transmit block is in use; `first` the first time a message is turned
    /// away for that (counted once).
    BlocksFull {
        /// The first such wait of this message.
        first: bool,
    },
    /// Version 3: no allocation, and a REQALL to that IMP already out: the message awaits its
    /// ALL without asking again (K&O §VII's first remedy).
    Withheld,
    /// Version 3: no allocation: a REQALL was queued for a PLT entry and the message awaits an
    /// ALL; `superfluous` when one to that IMP was still unanswered (K&O §VII).
    Asked {
        /// Another REQALL to the same IMP was outstanding.
        superfluous: bool,
    },
    /// Version 3: holding number and allocation, the message queued for a PLT entry.
    Claimed,
}

/// What a free PLT entry of an IMP goes to next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Grant {
    /// No entry free, or no claim that can take one.
    None,
    /// Version 2: the oldest message waiting for an entry; the driver moves it on.
    Advance(MsgId),
    /// Version 3: message `msg` took an entry (`plt_used` now in use): packet 1 leaves.
    Launch {
        /// The message.
        msg: MsgId,
        /// PLT entries in use after this one.
        plt_used: u32,
    },
    /// Version 3: a REQALL took an entry and number `num` of `stream`; it goes to `dst`.
    Reqall {
        /// The message it asks for.
        msg: MsgId,
        /// Its message number.
        num: u64,
        /// Its stream.
        stream: Stream,
        /// The destination IMP.
        dst: u32,
    },
}

/// One version's source procedure: how messages are sequenced, the order in which a message
/// acquires its resources, and what an ALL coming back does beyond adding to the allocate
/// counter.
pub(crate) trait Procedure: Send + Sync {
    /// The stream of messages from host `h` to host `dst_host`: the sequence their message
    /// numbers count in. `imp_of` names a host's IMP.
    fn stream(&self, imp_of: &dyn Fn(u32) -> u32, h: u32, dst_host: u32) -> Stream;

    /// The source IMP of stream `s`.
    fn stream_src(&self, imp_of: &dyn Fn(u32) -> u32, s: Stream) -> u32;

    /// Where a message's source procedure starts once packet 1 is in the source IMP (K&O Fig.
    /// 1 point a).
    fn first_state(&self) -> MsgState;

    /// Where a message waiting for an allocation goes when an ALL reaches its source IMP.
    fn allocated_state(&self) -> MsgState;

    /// Does a message waiting for a PLT entry already hold its reassembly allocation? (The
    /// order of acquisition: version 3 takes the allocation first, version 2 the PLT entry.)
    fn allocation_before_plt(&self) -> bool;

    /// One step of message `m` at its source IMP `imp`: the tables change, the step says what
    /// follows. [`Imp::advance`] calls again after a [`Step::Moved`] or [`Step::Numbered`].
    /// The rule reads the IMP's limits (`Imp::limits`).
    fn step(&self, imp: &mut Imp, m: Want) -> Step;

    /// The claim the next free PLT entry of `imp` serves, taken off its line.
    fn grant(&self, imp: &mut Imp) -> Grant;

    /// The ALL answering a REQALL of `imp`'s to `dst` is back; the REQALL's number and PLT
    /// entry have just been released. True when the version also counts the stream's number
    /// as given back (the block's disuse timer may start). Nothing, by default.
    fn all_returned(&self, _imp: &mut Imp, _dst: u32) -> bool {
        false
    }

    /// A RFNM or an ALL from `dst` has been dealt with at `imp` and the waiters served: a
    /// message to move on again, and the state it moves to. None by default.
    fn ask_again(&self, _imp: &mut Imp, _dst: u32) -> Option<(MsgId, MsgState)> {
        None
    }

    /// PLT entries of source IMP `imp` held by REQALLs (the occupancy samples' `plt_reqalls`);
    /// `awaiting_all` counts the IMP's messages awaiting an ALL.
    fn plt_reqalls(&self, imp: &Imp, awaiting_all: &dyn Fn() -> u32) -> u32;

    /// What this version's own tables at `imp` still hold, for the no-leak report (`None`,
    /// the default, when the version has no tables of its own).
    fn held(&self, _imp: &Imp) -> Option<String> {
        None
    }
}
