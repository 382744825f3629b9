//! Version 3 message processing (1975; K&O §VI–VII, Figs. 7–9).
//!
//! What changes from version 2 (the rest of the subnet is the same):
//! * **message control blocks** (K&O §VI): before a host's first message to another host, the
//!   source IMP makes a *transmit block* and sends a subnet control message asking the
//!   destination IMP for the matching *receive block*; the message waits until the reply comes
//!   back. 64 of each per IMP (`control_blocks`); a block unused for `control_block_idle` is
//!   released, the receive block with it ([`PktKind::ReleaseBlock`](crate::packet::PktKind::ReleaseBlock)).
//! * **sequencing per host pair**: 8 message numbers per source-host/destination-host pair
//!   (`message_numbers`), and the destination hands messages over in order per host pair.
//! * **order of acquisition**: "message number, reassembly buffers, and PLT entry". A message
//!   that finds an allocation at its source IMP keeps it and queues for a PLT entry; one that
//!   finds none decides on a REQALL, which takes "the message number and the PLT entry" (here:
//!   a number of its own on the stream and a PLT entry, queued behind earlier claims), and
//!   waits for an ALL, whichever arrives first: a piggy-backed one on a RFNM or its REQALL's.
//! * **superfluous REQALLs** (K&O §VII): a REQALL decided while an earlier one to the same
//!   destination IMP is still unanswered. The 1975 IMPs sent them (`superfluous_reqalls =
//!   true`); K&O's first remedy withholds them (`false`): the message waits for the ALL already
//!   asked for.
//! * **BBN's fix** (`rfnm_piggyback = "not-while-replies-wait"`, profile `v3-1975-05`): "avoid
//!   the piggy-backing of allocates on RFNM's as long as there are other replies to be sent" —
//!   applied in the destination's replies (`Imp::serve_replies`, `e2e/replies.rs`).
//!
//! Choices the sources leave open: the REQALL's message number is a new one on the stream (the
//! message keeps its own, so that when it takes an ALL that came first it needs only a PLT
//! entry, as K&O's Fig. 8 narrative has it); claims on PLT entries are served first come,
//! first served, REQALLs and messages alike; a released stream starts its numbers again at 0.

use super::procedure::MsgState;
use super::procedure::{Grant, Procedure, Step, Want};
use crate::blocks::Need;
use crate::imp::Imp;
use crate::packet::{MsgId, Stream, stream, stream_ends};
use crate::source::PltClaim;

/// The 1975 procedure.
pub(crate) struct V3;

impl Procedure for V3 {
    /// K&O §VI: "message sequencing is now done on the basis of HOST-to-HOST pairs".
    fn stream(&self, _imp_of: &dyn Fn(u32) -> u32, h: u32, dst_host: u32) -> Stream {
        stream(h, dst_host)
    }

    fn stream_src(&self, imp_of: &dyn Fn(u32) -> u32, s: Stream) -> u32 {
        imp_of(stream_ends(s).0)
    }

    /// A message first needs its transmit block.
    fn first_state(&self) -> MsgState {
        MsgState::NeedBlock
    }

    /// The message kept its number and now has its allocation.
    fn allocated_state(&self) -> MsgState {
        MsgState::NeedAll
    }

    /// K&O §VI: "message number, reassembly buffers, and PLT entry", in that order.
    fn allocation_before_plt(&self) -> bool {
        true
    }

    /// A version 3 message's block, number, allocation and PLT entry, one at a time.
    fn step(&self, imp: &mut Imp, m: Want) -> Step {
        let limits = imp.limits.source;
        let cap = limits.control_blocks as usize;
        match m.state {
            MsgState::NeedBlock => match imp.tx_blocks.need(m.stream, m.dst, m.msg, cap) {
                Need::Open => Step::Moved(MsgState::NeedNumber),
                Need::Opening => Step::Wait,
                // K&O §VI: "source IMP S creates a transmit block and sends a subnet control
                // message to destination IMP D to request the creation of a receive block".
                Need::Created => Step::CreateBlock,
                // All transmit blocks in use: "a shortage of transmit and/or receive blocks
                // will normally cause only an initial setup delay".
                Need::Full { first } => Step::BlocksFull { first },
            },
            MsgState::NeedNumber => {
                // K&O §VI: "8 message sequence numbers ... on a sending HOST-receiving HOST
                // pair basis".
                let Some(num) = imp.numbers.request(m.stream, m.msg, limits.message_numbers) else {
                    return Step::Wait; // in line for a number of the host pair
                };
                imp.tx_blocks.used(m.stream);
                Step::Numbered {
                    num,
                    then: MsgState::NeedAll,
                }
            }
            MsgState::NeedAll => {
                // K&O §VI: "a multipacket message tries to obtain the reassembly buffers
                // before it asks for the PLT entry".
                if imp.use_allocation(m.msg, m.dst) {
                    return Step::Moved(MsgState::NeedPlt);
                }
                imp.allocs.await_all(m.dst, m.msg);
                let superfluous = imp.plt_claims.superfluous(m.dst);
                if superfluous && !limits.superfluous_reqalls {
                    // K&O §VII's first remedy: wait for the ALL already asked for.
                    return Step::Withheld;
                }
                // K&O §VII: "A REQALL is called superfluous if it is sent while a previous
                // REQALL is still outstanding."
                imp.plt_claims.reqall(m.stream, m.dst, m.msg);
                Step::Asked { superfluous }
            }
            MsgState::NeedPlt => {
                imp.plt_claims.message(m.msg);
                Step::Claimed
            }
            _ => Step::Wait,
        }
    }

    /// A free PLT entry goes to the claim at the head of the line: a message leaves (point e
    /// of K&O Fig. 1); a REQALL takes a message number of its stream too and goes to the
    /// destination IMP (or, with no number free, waits, and the line with it).
    fn grant(&self, i: &mut Imp) -> Grant {
        let limits = i.limits.source;
        if !i.plt.free(limits.plt_entries) {
            return Grant::None;
        }
        let Some(claim) = i.plt_claims.first() else {
            return Grant::None;
        };
        match claim {
            PltClaim::Message(msg) => {
                i.plt_claims.take_first();
                i.plt.take();
                Grant::Launch {
                    msg,
                    plt_used: i.plt.used(),
                }
            }
            PltClaim::Reqall { stream, dst, msg } => {
                let Some(num) = i.numbers.take(stream, limits.message_numbers) else {
                    return Grant::None; // the REQALL waits for a number of its stream
                };
                i.tx_blocks.used(stream);
                i.plt_claims.take_first();
                i.plt.take();
                Grant::Reqall {
                    msg,
                    num,
                    stream,
                    dst,
                }
            }
        }
    }

    /// The REQALL is no longer outstanding; its number is back, so with none of the stream in
    /// use the block's disuse timer starts.
    fn all_returned(&self, i: &mut Imp, dst: u32) -> bool {
        i.plt_claims.answered(dst);
        true
    }

    /// With REQALLs withheld (`superfluous_reqalls = false`), messages wait for the ALL of a
    /// REQALL another message sent; when no REQALL to `dst` is outstanding any more and none
    /// of those waiting has an allocation, the oldest asks again, so that none waits for an
    /// ALL nobody asked for.
    fn ask_again(&self, i: &mut Imp, dst: u32) -> Option<(MsgId, MsgState)> {
        let nothing_asked = i.plt_claims.outstanding(dst) == 0 && i.allocs.held(dst) == 0;
        if !nothing_asked {
            return None;
        }
        i.allocs.next_awaiting(dst).map(|w| (w, MsgState::NeedAll))
    }

    fn plt_reqalls(&self, imp: &Imp, _: &dyn Fn() -> u32) -> u32 {
        imp.plt_claims.held_by_reqalls()
    }

    fn held(&self, i: &Imp) -> Option<String> {
        Some(format!(
            "{}: version 3: blocks waited for {}, PLT claims {}, REQALLs out {:?}, receive blocks waited for {}",
            i.name,
            i.tx_blocks.waiting(),
            i.plt_claims.len(),
            i.plt_claims.outstanding_all(),
            i.rx_blocks.waiting()
        ))
    }
}

#[cfg(test)]
mod tests {
    //! Version 3's source rules on one IMP, in K&O §VI–VII's words.
    use super::super::testing::want;
    use super::*;
    use crate::params::ImpParams;

    /// A source IMP with the 1975 profile's limits (8 numbers per host pair, 6 PLT entries,
    /// 64 blocks, superfluous REQALLs sent: `params.rs`).
    fn imp() -> Imp {
        super::super::testing::imp(&ImpParams::v3_1975_02(), 10)
    }

    #[test]
    fn the_first_message_of_a_host_pair_asks_for_the_block_pair_and_the_next_waits() {
        let mut s = imp();
        assert_eq!(
            V3.step(&mut s, want(0, MsgState::NeedBlock)),
            Step::CreateBlock
        );
        assert_eq!(V3.step(&mut s, want(1, MsgState::NeedBlock)), Step::Wait);
    }

    /// K&O §VI: "message number, reassembly buffers, and PLT entry": an allocation at hand is
    /// taken before the PLT entry is asked for.
    #[test]
    fn a_message_with_an_allocation_at_hand_takes_it_before_its_plt_entry() {
        let mut s = imp();
        s.allocs.add(
            1,
            nmc_sim::SimTime::ZERO,
            nmc_sim::SimDuration::from_millis(250),
        );
        assert_eq!(
            V3.step(&mut s, want(0, MsgState::NeedAll)),
            Step::Moved(MsgState::NeedPlt)
        );
        assert_eq!(V3.step(&mut s, want(0, MsgState::NeedPlt)), Step::Claimed);
        assert_eq!(
            V3.grant(&mut s),
            Grant::Launch {
                msg: 0,
                plt_used: 1
            }
        );
        assert_eq!(V3.grant(&mut s), Grant::None);
    }

    /// K&O §VII: "A REQALL is called superfluous if it is sent while a previous REQALL is
    /// still outstanding"; the 1975 IMPs sent it, the first remedy withholds it.
    #[test]
    fn a_second_reqall_to_the_same_imp_is_superfluous_or_withheld() {
        for (send, second) in [
            (true, Step::Asked { superfluous: true }),
            (false, Step::Withheld),
        ] {
            let mut s = imp();
            s.limits.source.superfluous_reqalls = send;
            assert_eq!(
                V3.step(&mut s, want(0, MsgState::NeedAll)),
                Step::Asked { superfluous: false }
            );
            assert_eq!(V3.step(&mut s, want(1, MsgState::NeedAll)), second);
        }
    }

    /// The REQALL takes "the message number and the PLT entry": a number of its own on the
    /// stream, then it goes out; when its ALL is back, nothing is outstanding and the oldest
    /// waiting message asks again only if no allocation is held.
    #[test]
    fn a_reqall_takes_a_number_and_a_plt_entry_and_its_all_clears_it() {
        let mut s = imp();
        assert_eq!(
            V3.step(&mut s, want(0, MsgState::NeedAll)),
            Step::Asked { superfluous: false }
        );
        assert_eq!(
            V3.grant(&mut s),
            Grant::Reqall {
                msg: 0,
                num: 0,
                stream: stream(0, 1),
                dst: 1
            }
        );
        assert_eq!(V3.ask_again(&mut s, 1), None, "its REQALL is out");
        assert!(V3.all_returned(&mut s, 1));
        assert_eq!(V3.ask_again(&mut s, 1), Some((0, MsgState::NeedAll)));
    }
}
