//! Version 2 message processing (October 1974; K&O §II–III, Fig. 1), the first implementation
//! of [`Procedure`].
//!
//! * **sequencing per IMP pair**: 4 message numbers per source-IMP/destination-IMP pair
//!   (`message_numbers`; K&O §III: "message sequence numbers allocated per source
//!   IMP-destination IMP pair");
//! * **order of acquisition**: message number (point b), then a PLT entry (point c), then an
//!   allocation: one at hand is used; without one a REQALL goes out that "steals the acquired
//!   message number and the PLT entry", and the message starts again at point b when an ALL
//!   comes back.

use super::procedure::MsgState;
use super::procedure::{Grant, Procedure, Step, Want};
use crate::imp::Imp;
use crate::packet::{Stream, stream, stream_ends};

/// The October 1974 procedure.
pub(crate) struct V2;

impl Procedure for V2 {
    fn stream(&self, imp_of: &dyn Fn(u32) -> u32, h: u32, dst_host: u32) -> Stream {
        stream(imp_of(h), imp_of(dst_host))
    }

    fn stream_src(&self, _imp_of: &dyn Fn(u32) -> u32, s: Stream) -> u32 {
        stream_ends(s).0
    }

    fn first_state(&self) -> MsgState {
        MsgState::NeedNumber
    }

    /// The REQALL stole the number: the message starts again at point b.
    fn allocated_state(&self) -> MsgState {
        MsgState::NeedNumber
    }

    fn allocation_before_plt(&self) -> bool {
        false
    }

    /// Points b and c, and the REQALL detour.
    fn step(&self, imp: &mut Imp, m: Want) -> Step {
        let limits = imp.limits.source;
        match m.state {
            MsgState::NeedNumber => {
                // BBN 3050 p. 128 `HI23`: the number its leader took, if it did.
                if let Some(num) = imp.messages.get(&m.msg).and_then(|x| x.leader_num) {
                    return Step::Numbered {
                        num,
                        then: MsgState::NeedPlt,
                    };
                }
                // K&O §II point b: 4 message numbers per source-IMP/destination-IMP pair.
                match imp.numbers.request(m.stream, m.msg, limits.message_numbers) {
                    Some(num) => Step::Numbered {
                        num,
                        then: MsgState::NeedPlt,
                    },
                    None => Step::Wait, // in line for a number of the stream
                }
            }
            MsgState::NeedPlt => {
                // K&O §II point c: one of the source IMP's 6 PLT entries.
                if !imp.plt.request(m.msg, limits.plt_entries) {
                    Step::Wait // in line for an entry
                } else if imp.use_allocation(m.msg, m.dst) {
                    // An unassigned ALL is at hand: use it (its GVB timer now finds it gone).
                    Step::PltLaunch
                } else {
                    // K&O §II: "this REQALL steals the acquired message number and the PLT
                    // entry"; the message waits for the ALL.
                    imp.allocs.await_all(m.dst, m.msg);
                    Step::PltReqall
                }
            }
            _ => Step::Wait,
        }
    }

    /// The oldest message waiting for a PLT entry.
    fn grant(&self, imp: &mut Imp) -> Grant {
        imp.plt.first_waiting().map_or(Grant::None, Grant::Advance)
    }

    /// Messages whose REQALL stole their PLT entry.
    fn plt_reqalls(&self, _imp: &Imp, awaiting_all: &dyn Fn() -> u32) -> u32 {
        awaiting_all()
    }
}

#[cfg(test)]
mod tests {
    //! Version 2's source rules on one IMP, in K&O §II's words.
    use super::super::testing::want;
    use super::*;
    use crate::params::ImpParams;

    /// A source IMP with the October 1974 profile's limits (4 numbers per IMP pair, 6 PLT
    /// entries: `params.rs`).
    fn imp() -> Imp {
        super::super::testing::imp(&ImpParams::v2_1974_10(), 10)
    }

    #[test]
    fn a_message_takes_one_of_four_numbers_per_imp_pair_and_the_fifth_waits() {
        let mut s = imp();
        for k in 0..4 {
            assert_eq!(
                V2.step(&mut s, want(k, MsgState::NeedNumber)),
                Step::Numbered {
                    num: k,
                    then: MsgState::NeedPlt
                }
            );
        }
        assert_eq!(V2.step(&mut s, want(4, MsgState::NeedNumber)), Step::Wait);
    }

    #[test]
    fn with_an_allocation_at_hand_packet_one_leaves_once_it_has_a_plt_entry() {
        let mut s = imp();
        s.allocs.add(
            1,
            nmc_sim::SimTime::ZERO,
            nmc_sim::SimDuration::from_millis(250),
        );
        assert_eq!(V2.step(&mut s, want(0, MsgState::NeedPlt)), Step::PltLaunch);
        assert_eq!(s.plt.used(), 1);
    }

    /// K&O §II: "this REQALL steals the acquired message number and the PLT entry".
    #[test]
    fn without_an_allocation_a_reqall_takes_the_plt_entry_and_the_message_awaits_an_all() {
        let mut s = imp();
        assert_eq!(V2.step(&mut s, want(0, MsgState::NeedPlt)), Step::PltReqall);
        assert_eq!(s.plt.used(), 1);
        assert_eq!(s.allocs.next_awaiting(1), Some(0));
    }

    #[test]
    fn the_seventh_claim_on_six_plt_entries_waits_and_is_served_first() {
        let mut s = imp();
        for k in 0..6 {
            assert_eq!(V2.step(&mut s, want(k, MsgState::NeedPlt)), Step::PltReqall);
        }
        assert_eq!(V2.grant(&mut s), Grant::None);
        assert_eq!(V2.step(&mut s, want(6, MsgState::NeedPlt)), Step::Wait);
        assert_eq!(V2.grant(&mut s), Grant::Advance(6));
    }
}
