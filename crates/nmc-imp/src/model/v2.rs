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

use super::procedure::Procedure;
use super::{Counted, Ev, Host, MsgState, Subnet, Tr, change};
use crate::packet::{MsgId, PktKind, Stream, stream, stream_ends};
use nmc_sim::{EventQueue, SimTime};

/// The October 1974 procedure.
pub struct V2;

impl Procedure for V2 {
    fn stream(&self, hosts: &[Host], h: u32, dst_host: u32) -> Stream {
        stream(hosts[h as usize].imp, hosts[dst_host as usize].imp)
    }

    fn stream_src(&self, _hosts: &[Host], s: Stream) -> u32 {
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

    /// Moves a message through points b, c (and the REQALL detour) as far as it can go.
    fn advance(&self, sub: &mut Subnet, now: SimTime, mid: MsgId, q: &mut EventQueue<Ev>) {
        loop {
            let m = &sub.msgs[&mid];
            let (src, dst, stream, state) = (m.src, m.dst, m.stream, m.state);
            let imp = &mut sub.imps[src as usize];
            match state {
                MsgState::NeedNumber => {
                    // K&O §II point b: 4 message numbers per source-IMP/destination-IMP pair.
                    let Some(num) = imp.numbers.request(stream, mid, sub.params.message_numbers)
                    else {
                        return; // in line for a number of the stream
                    };
                    let m = sub.msgs.get_mut(&mid).expect("message");
                    m.num = Some(num);
                    m.rec.numbered_ns = Some(now.as_nanos());
                    change(&mut sub.trace, now, mid, m, MsgState::NeedPlt);
                    sub.trace.emit(now, &Tr::Number { msg: mid, num });
                    if sub.msgs[&mid].packets == 1 {
                        // RFC 632: no PLT entry, no REQALL for a single-packet message.
                        sub.launch_single(now, mid, q);
                        return;
                    }
                }
                MsgState::NeedPlt => {
                    // K&O §II point c: one of the source IMP's 6 PLT entries.
                    if !imp.plt.request(mid, sub.params.plt_entries) {
                        return; // in line for an entry
                    }
                    sub.trace.emit(
                        now,
                        &Tr::Plt {
                            msg: mid,
                            plt_used: sub.imps[src as usize].plt.used(),
                        },
                    );
                    if sub.imps[src as usize].allocs.take(dst) {
                        // An unassigned ALL is at hand: use it (its GVB timer now finds it gone).
                        sub.launch(now, mid, q);
                    } else {
                        // K&O §II: "this REQALL steals the acquired message number and the PLT entry".
                        let m = sub.msgs.get_mut(&mid).expect("message");
                        let num = m.num.take().expect("numbered");
                        change(&mut sub.trace, now, mid, m, MsgState::AwaitAll);
                        m.reqalls += 1;
                        m.rec.reqalls += 1;
                        sub.imps[src as usize].allocs.await_all(dst, mid);
                        sub.trace.emit(now, &Tr::Reqall { msg: mid, num });
                        sub.count(Counted::Reqall);
                        let kind = PktKind::ReqAll { msg: mid, num };
                        sub.send_control(now, src, dst, stream, kind, q);
                    }
                    return;
                }
                _ => return,
            }
        }
    }

    /// Messages waiting for a PLT entry, oldest first.
    fn serve_plt(&self, sub: &mut Subnet, now: SimTime, imp: u32, q: &mut EventQueue<Ev>) {
        while let Some(w) = sub.imps[imp as usize].plt.first_waiting() {
            sub.advance(now, w, q);
            if sub.imps[imp as usize].plt.first_waiting() == Some(w) {
                break;
            }
        }
    }

    /// Messages whose REQALL stole their PLT entry.
    fn plt_reqalls(&self, sub: &Subnet, src: u32) -> u32 {
        sub.msgs
            .values()
            .filter(|m| m.src == src && m.state == MsgState::AwaitAll)
            .count() as u32
    }
}
