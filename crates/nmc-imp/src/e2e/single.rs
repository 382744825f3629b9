//! Single-packet messages at the destination IMP (RFC 632, Opderbeck, May 1974): what becomes
//! of an arriving single-packet message, and when the ALLOCATE for one not accepted may go.
//! Sans-I/O rules over the destination IMP's tables (`Imp::delivery`, `Imp::requests`,
//! `Imp::set_aside`, its reassembly buffers); the driver (`model/single.rs`) records, traces,
//! hands accepted messages to the host and sends the ALLOCATEs.
//!
//! * **In order** (its predecessor by number from the same source has been handed to the host):
//!   accepted into one reassembly buffer and queued for the host.
//! * **Out of order**, by [`SinglePacketRule`]:
//!   - `current` (events 1–11, Table 1): not accepted; "treated as a request for the allocation
//!     of one reassembly buffer and then discarded";
//!   - `fix-a` (Table 2): rejected like that only while a predecessor's buffer needs are unknown
//!     (nothing of it has arrived yet); otherwise the predecessors' buffers are set aside and the
//!     message is stored;
//!   - `fix-b` ("deferred rejection") and `accept-all`: stored while there is space. When an
//!     in-order message finds no space, `fix-b` deletes stored out-of-order messages to make room
//!     ("can be deleted later without the message being lost"); `accept-all` does not, and can
//!     lock up (RFC 626).
//! * **The ALLOCATE** for a message not accepted (under every rule) goes back "only after the
//!   RFNM for the previous message has been processed" (RFC 632 event 6) and when one reassembly
//!   buffer can be reserved for it ("when reassembly buffer space is available", p. 6). The
//!   buffer stays reserved until the copy arrives, which is then accepted.
//!
//! Choices the sources leave open: an in-order message that finds no reassembly buffer is
//! treated as a request too, under every rule; `fix-b`'s ALLOCATEs follow the same release rule
//! as `current`'s (after the predecessor's RFNM), so the copy it calls back arrives in order and
//! cannot be deleted again; `fix-b` deletes the stored message furthest from its turn first.

use crate::destination::{Key, Reply};
use crate::imp::Imp;
use crate::observe::Note;
use crate::packet::{MsgId, Stream};
use crate::params::SinglePacketRule;

/// What the destination made of an arriving single-packet message (RFC 632 Table 2's notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disposition {
    /// A second copy of a message already accepted, discarded.
    Duplicate,
    /// Not accepted: now a request for one reassembly buffer (an ALLOCATE to come).
    Rejected,
    /// Accepted in order: queued for the destination host.
    HostOutput,
    /// Accepted out of order: stored until its turn.
    Stored,
}

/// A stored out-of-order message that fix B deleted to make room; it is now a request for an
/// ALLOCATE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deleted {
    /// Its stream and number.
    pub key: Key,
    /// The message.
    pub msg: MsgId,
}

/// A single-packet message as its packet's header names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Single {
    /// The message.
    pub msg: MsgId,
    /// Its number in its stream.
    pub num: u64,
    /// The destination host its leader names.
    pub host: u32,
}

/// Single-packet message `s` (`bits` long) of `stream` reaches destination `imp`: accepts it (reserving its buffer and storing it with [`crate::destination`]'s
/// delivery table), or turns it into a request for an ALLOCATE, under the IMP's rule
/// ([`crate::imp::DestinationLimits::single_packet_rule`]). Under fix B an
/// in-order message first deletes stored out-of-order ones until a buffer is free; those are
/// pushed onto `deleted`, in the order deleted.
pub fn arrive(
    imp: &mut Imp,
    stream: Stream,
    s: Single,
    bits: u64,
    deleted: &mut Vec<Deleted>,
) -> Disposition {
    let Single { msg, num, host } = s;
    let rule = imp.limits.destination.single_packet_rule;
    let key = (stream, num);
    let expected = imp.delivery.expected(stream);
    let accept = if num < expected || imp.delivery.is_complete(key) {
        None // a second copy: cannot happen, copies go again only on an ALLOCATE
    } else if imp.set_aside.contains(&key) {
        Some(true) // its ALLOCATE reserved the buffer
    } else if num == expected {
        if rule == SinglePacketRule::FixB {
            make_room(imp, deleted);
        }
        Some(reserve_one(imp))
    } else {
        Some(match rule {
            SinglePacketRule::Current => false,
            SinglePacketRule::FixA => set_aside_for_predecessors(imp, stream, expected, num),
            SinglePacketRule::FixB | SinglePacketRule::AcceptAll => reserve_one(imp),
        })
    };
    match accept {
        None => Disposition::Duplicate,
        Some(true) => {
            imp.set_aside.remove(&key);
            imp.requests.remove(&key);
            imp.delivery.single(key, msg, host, bits);
            if num == expected {
                Disposition::HostOutput
            } else {
                Disposition::Stored
            }
        }
        Some(false) => {
            // "treated as a request for the allocation of one reassembly buffer".
            imp.requests.insert(key, msg);
            Disposition::Rejected
        }
    }
}

/// Reserves one reassembly buffer if there is one.
fn reserve_one(imp: &mut Imp) -> bool {
    let ok = imp.can_reserve(1);
    if ok {
        imp.reserve(1);
    }
    ok
}

/// Fix A: message `num` of `stream` is out of order (`expected` is next). If every
/// predecessor's buffer need is known, sets aside a buffer for each predecessor that was
/// refused and has none yet, reserves one for `num`, and says yes.
fn set_aside_for_predecessors(imp: &mut Imp, stream: Stream, expected: u64, num: u64) -> bool {
    let mut need = Vec::new();
    for k in expected..num {
        let key = (stream, k);
        let known = imp.delivery.knows(key)
            || imp.set_aside.contains(&key)
            || imp.requests.contains_key(&key);
        if !known {
            return false;
        }
        if imp.requests.contains_key(&key) && !imp.set_aside.contains(&key) {
            need.push(key);
        }
    }
    if !imp.can_reserve(need.len() as u32 + 1) {
        return false;
    }
    imp.reserve(need.len() as u32 + 1);
    imp.set_aside.extend(need);
    true
}

/// Fix B: until one reassembly buffer is free, deletes the stored out-of-order single-packet
/// message furthest from its turn; each becomes a request for an ALLOCATE.
fn make_room(imp: &mut Imp, deleted: &mut Vec<Deleted>) {
    while !imp.can_reserve(1) {
        let Some(key) = imp.delivery.furthest_single() else {
            return;
        };
        let r = imp.delivery.delete(key);
        imp.release_reassembly(1);
        imp.requests.insert(key, r.msg);
        deleted.push(Deleted { key, msg: r.msg });
    }
}

/// Has the destination finished with every message of `stream` before `num`: handed to the
/// host, and its RFNM processed (RFC 632 event 6)?
fn predecessors_done(imp: &Imp, stream: Stream, num: u64) -> bool {
    imp.delivery.expected(stream) >= num
        && !imp.output_pending_before(stream, num)
        && !imp
            .replies
            .iter()
            .any(|r| matches!(*r, Reply::Rfnm { stream: s, num: n, .. } if s == stream && n < num))
}

/// The requests whose ALLOCATE's turn has come (RFC 632 event 6), in stream and number order;
/// each may still wait for a buffer ([`grant`]).
pub fn ready_requests(imp: &Imp) -> Vec<(Key, MsgId)> {
    imp.requests
        .iter()
        .filter(|((s, n), _)| predecessors_done(imp, *s, *n))
        .map(|(k, m)| (*k, *m))
        .collect()
}

/// The ALLOCATE for request `key` may go: a buffer was set aside for it, or one is reserved
/// now (then set aside). The request is then served (removed); without a buffer it waits.
pub fn grant(imp: &mut Imp, key: Key) -> bool {
    if !imp.set_aside.contains(&key) {
        if !imp.can_reserve(1) {
            return false;
        }
        imp.reserve(1);
        imp.set_aside.insert(key);
    }
    imp.requests.remove(&key);
    true
}

/// The note RFC 632's tables write beside a destination's `MSG arr`.
impl From<Disposition> for Note {
    fn from(d: Disposition) -> Self {
        match d {
            Disposition::Duplicate => Note::Duplicate,
            Disposition::Rejected => Note::Rejected,
            Disposition::HostOutput => Note::HostOutput,
            Disposition::Stored => Note::Stored,
        }
    }
}

#[cfg(test)]
mod tests {
    //! The rules on one destination IMP, in RFC 632's words. Messages of one stream; the
    //! destination holds `REASSEMBLY` reassembly buffers.
    use super::*;
    use crate::params::ImpParams;
    use SinglePacketRule::{AcceptAll, Current, FixA, FixB};

    const REASSEMBLY: u32 = 3;
    const STREAM: Stream = 7;

    fn dest() -> Imp {
        super::super::testing::imp(&ImpParams::v2_1974_10(), REASSEMBLY)
    }

    /// Message number `num` arrives; its message id is its number.
    fn arr(d: &mut Imp, rule: SinglePacketRule, num: u64) -> (Disposition, Vec<Deleted>) {
        let mut deleted = Vec::new();
        let s = Single {
            msg: num,
            num,
            host: 0,
        };
        d.limits.destination.single_packet_rule = rule;
        let got = arrive(d, STREAM, s, 1000, &mut deleted);
        (got, deleted)
    }

    #[test]
    fn in_order_it_is_accepted_for_the_host_under_every_rule() {
        for rule in [Current, FixA, FixB, AcceptAll] {
            let mut d = dest();
            assert_eq!(arr(&mut d, rule, 0).0, Disposition::HostOutput, "{rule:?}");
            assert!(d.delivery.is_complete((STREAM, 0)));
        }
    }

    #[test]
    fn current_out_of_order_is_treated_as_a_request_and_discarded() {
        // RFC 632 Table 1: "treated as a request for the allocation of one reassembly buffer
        // and then discarded".
        let mut d = dest();
        assert_eq!(arr(&mut d, Current, 1).0, Disposition::Rejected);
        assert_eq!(d.requests.get(&(STREAM, 1)), Some(&1));
        assert!(!d.delivery.knows((STREAM, 1)));
        // Its ALLOCATE waits until message 0 has been handed to the host (event 6).
        assert!(ready_requests(&d).is_empty());
    }

    #[test]
    fn fix_a_rejects_while_a_predecessor_is_unknown_then_sets_aside_for_it() {
        let mut d = dest();
        // Nothing of 0 has arrived: 1's need for 0 is unknown, so 1 is refused.
        assert_eq!(arr(&mut d, FixA, 1).0, Disposition::Rejected);
        // 0 had been refused before (no buffer was free then): it is a request too.
        d.requests.insert((STREAM, 0), 0);
        // Now every predecessor of 2 is known: a buffer is set aside for 0 and for 1 (both
        // requests), and 2 is stored: three buffers.
        assert_eq!(arr(&mut d, FixA, 2).0, Disposition::Stored);
        assert!(d.set_aside.contains(&(STREAM, 0)) && d.set_aside.contains(&(STREAM, 1)));
        assert!(!d.can_reserve(1), "all three reassembly buffers are taken");
        // 0's ALLOCATE is due (nothing before it) and its buffer is already set aside.
        assert_eq!(ready_requests(&d), vec![((STREAM, 0), 0)]);
        assert!(grant(&mut d, (STREAM, 0)));
        assert!(!d.requests.contains_key(&(STREAM, 0)));
    }

    #[test]
    fn fix_b_deletes_the_stored_message_furthest_from_its_turn_for_an_in_order_one() {
        // "deferred rejection": out-of-order messages are stored while there is space ...
        let mut d = dest();
        for n in 1..=REASSEMBLY as u64 {
            assert_eq!(arr(&mut d, FixB, n).0, Disposition::Stored);
        }
        // ... and "can be deleted later without the message being lost".
        let (got, deleted) = arr(&mut d, FixB, 0);
        assert_eq!(got, Disposition::HostOutput);
        assert_eq!(
            deleted,
            vec![Deleted {
                key: (STREAM, REASSEMBLY as u64),
                msg: REASSEMBLY as u64
            }]
        );
        assert!(d.requests.contains_key(&(STREAM, REASSEMBLY as u64)));
    }

    #[test]
    fn accept_all_refuses_the_in_order_message_when_out_of_order_ones_fill_reassembly() {
        // RFC 626's lockup: every buffer holds a message waiting for its predecessor, and the
        // predecessor finds none.
        let mut d = dest();
        for n in 1..=REASSEMBLY as u64 {
            assert_eq!(arr(&mut d, AcceptAll, n).0, Disposition::Stored);
        }
        let (got, deleted) = arr(&mut d, AcceptAll, 0);
        assert_eq!(got, Disposition::Rejected);
        assert!(deleted.is_empty());
        // Its ALLOCATE is due but no buffer can be reserved: it waits.
        assert_eq!(ready_requests(&d), vec![((STREAM, 0), 0)]);
        assert!(!grant(&mut d, (STREAM, 0)));
        assert!(d.requests.contains_key(&(STREAM, 0)));
    }
}
