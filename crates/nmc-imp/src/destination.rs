//! A destination IMP's end-to-end table as a sans-I/O core (K&O §II points d, f; RFC 632):
//! messages in reassembly, and their hand-over to the host in message-number order per stream.
//!
//! [`Delivery`] says which message is next; it keeps no time, sends nothing and traces nothing.
//! Buffers, replies (RFNM, ALL) and the host interfaces are the driver's (`model.rs`,
//! `model/single.rs`, `model/v3.rs`).

use crate::imp::Reassembly;
use crate::packet::{MsgId, Stream};
use std::collections::{BTreeMap, BTreeSet};

/// A message number of a stream.
pub type Key = (Stream, u64);

/// Messages in reassembly or complete, and the next number each stream hands to its host.
/// A number a REQALL took is *skipped*: no message carries it (K&O §II).
#[derive(Clone, Debug, Default)]
pub struct Delivery {
    reassembly: BTreeMap<Key, Reassembly>,
    expected: BTreeMap<Stream, u64>,
    skipped: BTreeSet<Key>,
    complete: BTreeSet<Key>,
}

impl Delivery {
    /// Packet `of`-of of message `msg` (number `key.1`) arrives (point d). Returns whether it is
    /// the message's first packet and whether the message is now whole (point f).
    pub fn packet(&mut self, key: Key, msg: MsgId, of: u8, bits: u64) -> (bool, bool) {
        let r = self.reassembly.entry(key).or_insert(Reassembly {
            msg,
            of,
            received: 0,
            bits: 0,
        });
        r.received += 1;
        r.bits += bits;
        let (first, last) = (r.received == 1, r.received == of);
        if last {
            self.complete.insert(key);
        }
        (first, last)
    }

    /// A single-packet message is accepted whole (RFC 632), in turn or to wait for its turn.
    pub fn single(&mut self, key: Key, msg: MsgId, bits: u64) {
        self.reassembly.insert(
            key,
            Reassembly {
                msg,
                of: 1,
                received: 1,
                bits,
            },
        );
        self.complete.insert(key);
    }

    /// A REQALL took number `key.1`: the sequence skips it.
    pub fn skip(&mut self, key: Key) {
        self.skipped.insert(key);
    }

    /// The next message of `stream` to hand to the host, if it is complete, taken out with its
    /// number; skipped numbers are passed over.
    pub fn next_in_order(&mut self, stream: Stream) -> Option<(u64, Reassembly)> {
        loop {
            let next = self.expected.entry(stream).or_default();
            let n = *next;
            if self.skipped.remove(&(stream, n)) {
                *next += 1;
                continue;
            }
            if !self.complete.remove(&(stream, n)) {
                return None;
            }
            *next += 1;
            let r = self
                .reassembly
                .remove(&(stream, n))
                .expect("a complete message is stored");
            return Some((n, r));
        }
    }

    /// The number `stream` hands to its host next.
    pub fn expected(&self, stream: Stream) -> u64 {
        self.expected.get(&stream).copied().unwrap_or(0)
    }

    /// Whether message `key` is complete and waits for its turn (or is being handed over).
    pub fn is_complete(&self, key: Key) -> bool {
        self.complete.contains(&key)
    }

    /// Whether anything is known here of number `key`: complete, in reassembly or skipped.
    pub fn knows(&self, key: Key) -> bool {
        self.complete.contains(&key)
            || self.reassembly.contains_key(&key)
            || self.skipped.contains(&key)
    }

    /// Complete messages stored ahead of their turn, in (stream, number) order.
    pub fn out_of_order(&self) -> impl Iterator<Item = Key> + '_ {
        self.complete
            .iter()
            .copied()
            .filter(|&(s, n)| n > self.expected(s))
    }

    /// RFC 632 fix B's victim: the stored single-packet message furthest from its turn.
    pub fn furthest_single(&self) -> Option<Key> {
        self.out_of_order()
            .filter(|k| self.reassembly.get(k).is_some_and(|r| r.of == 1))
            .max_by_key(|&(s, n)| (n - self.expected(s), s))
    }

    /// Deletes complete message `key` (fix B), returning what was stored.
    pub fn delete(&mut self, key: Key) -> Reassembly {
        self.complete.remove(&key);
        self.reassembly.remove(&key).expect("stored")
    }

    /// Whether message `msg` is in reassembly here.
    pub fn holds(&self, msg: MsgId) -> bool {
        self.reassembly.values().any(|r| r.msg == msg)
    }

    /// Forgets where `stream` was (its version 3 receive block is made or released).
    pub fn forget(&mut self, stream: Stream) {
        self.expected.remove(&stream);
    }

    /// Nothing in reassembly.
    pub fn idle(&self) -> bool {
        self.reassembly.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAIR: Stream = 3;

    /// K&O §II: messages reach the destination host in the order of their numbers, whatever
    /// order they are reassembled in.
    #[test]
    fn a_message_reassembled_early_waits_for_its_predecessor() {
        let mut d = Delivery::default();
        assert_eq!(d.packet((PAIR, 1), 11, 2, 1008), (true, false));
        assert_eq!(d.packet((PAIR, 1), 11, 2, 500), (false, true));
        assert!(d.next_in_order(PAIR).is_none(), "message 0 is not in yet");
        assert_eq!(d.out_of_order().collect::<Vec<_>>(), [(PAIR, 1)]);
        d.packet((PAIR, 0), 10, 1, 200);
        let (n, r) = d.next_in_order(PAIR).unwrap();
        assert_eq!((n, r.msg, r.bits), (0, 10, 200));
        let (n, r) = d.next_in_order(PAIR).unwrap();
        assert_eq!((n, r.msg, r.bits), (1, 11, 1508));
        assert!(d.next_in_order(PAIR).is_none() && d.idle());
        assert_eq!(d.expected(PAIR), 2);
    }

    /// K&O §II: "this REQALL steals the acquired message number": no message will carry it,
    /// and the sequence passes over it.
    #[test]
    fn a_number_a_reqall_took_is_passed_over() {
        let mut d = Delivery::default();
        d.skip((PAIR, 0));
        d.single((PAIR, 1), 21, 96);
        assert!(d.knows((PAIR, 0)) && d.knows((PAIR, 1)) && !d.knows((PAIR, 2)));
        assert_eq!(
            d.next_in_order(PAIR).map(|(n, r)| (n, r.msg)),
            Some((1, 21))
        );
    }

    /// RFC 632 fix B deletes the stored single-packet message furthest from its turn.
    #[test]
    fn fix_b_deletes_the_message_furthest_from_its_turn() {
        let mut d = Delivery::default();
        d.single((PAIR, 2), 32, 96);
        d.single((PAIR, 5), 35, 96);
        d.single((PAIR + 1, 1), 41, 96);
        assert_eq!(d.furthest_single(), Some((PAIR, 5)));
        assert_eq!(d.delete((PAIR, 5)).msg, 35);
        assert_eq!(d.furthest_single(), Some((PAIR, 2)));
        assert!(d.holds(32) && !d.holds(35));
    }
}
