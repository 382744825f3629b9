//! nmc as an 1822 host on SIMH's host interface: a sans-I/O core. It turns datagrams from
//! the IMP into [`Event`]s and the host's messages into datagrams; it does no I/O and reads no
//! clock (the caller passes `now`, in ns on its own clock, to stamp what it reports).
//!
//! From the IMP: a datagram of the flag word alone reports IMP Ready (set or clear); otherwise
//! its words after the flag word are a piece of a message, the first piece starting with the
//! two-word leader, the piece with [`FLAG_FINAL`] ending it (the IMP sends one datagram per
//! output buffer). To the IMP: one datagram per message, flag word [`FLAG_FINAL`] |
//! [`FLAG_READY`] then leader and text; a flag word alone with [`FLAG_READY`] tells the IMP
//! the host is up (SIMH's IMP reads Host Ready from each datagram's flag word).
//!
//! Nothing the IMP (or anyone else on the port) sends can make the core panic: a datagram it
//! cannot use is counted in [`Refusals`] and dropped.

use crate::framing::{Datagram, FLAG_FINAL, FLAG_READY, SequenceCheck, SequenceVerdict};
use crate::leader::Leader;

/// What the host learned from one datagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The IMP's ready line changed (or was reported again).
    ImpReady(bool),
    /// A whole message from the IMP: its leader and text words.
    Message {
        /// When its last piece arrived.
        at_ns: u64,
        /// Its leader.
        leader: Leader,
        /// Text after the leader.
        text: Vec<u16>,
    },
}

/// Datagrams refused, by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Refusals {
    /// Not SIMH framing (short, wrong magic, wrong length).
    pub malformed: u64,
    /// A sequence number below the one expected (duplicate or late).
    pub stale: u64,
    /// No flag word.
    pub empty: u64,
    /// A message whose words end before its two-word leader does.
    pub short_leader: u64,
    /// A message longer than any the IMP sends (pieces without end).
    pub overlong: u64,
}

impl Refusals {
    /// All refusals.
    pub fn total(&self) -> u64 {
        self.malformed + self.stale + self.empty + self.short_leader + self.overlong
    }
}

/// Counts of what went through.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Datagrams received and accepted.
    pub datagrams_in: u64,
    /// Datagrams sent.
    pub datagrams_out: u64,
    /// Whole messages from the IMP.
    pub messages_in: u64,
    /// Messages to the IMP.
    pub messages_out: u64,
    /// Sequence gaps seen (datagrams lost between IMP and host).
    pub gaps: u64,
    /// Datagrams refused.
    pub refused: Refusals,
}

/// Longest message the core assembles, in words: 8 packets of 63 words, a 2-word leader and
/// room to spare (a longer one is refused as overlong).
pub const MAX_MESSAGE_WORDS: usize = 1024;

/// The host side of one host interface.
#[derive(Clone, Debug, Default)]
pub struct Host {
    tx_sequence: u32,
    rx: SequenceCheck,
    imp_ready: bool,
    partial: Option<Vec<u16>>,
    counts: Counts,
}

impl Host {
    /// A host that has sent nothing.
    pub fn new() -> Host {
        Host::default()
    }

    /// Counts so far.
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    /// Whether the IMP last said it was ready.
    pub fn imp_ready(&self) -> bool {
        self.imp_ready
    }

    /// One datagram from the IMP, arrived at `now_ns`.
    pub fn receive(&mut self, now_ns: u64, bytes: &[u8]) -> Option<Event> {
        let d = match Datagram::decode(bytes) {
            Ok(d) => d,
            Err(_) => {
                self.counts.refused.malformed += 1;
                return None;
            }
        };
        match self.rx.check(d.sequence) {
            SequenceVerdict::Stale => {
                self.counts.refused.stale += 1;
                return None;
            }
            SequenceVerdict::Gap(_) => self.counts.gaps += 1,
            SequenceVerdict::InOrder | SequenceVerdict::Restart => {}
        }
        let Some((&flags, words)) = d.words.split_first() else {
            self.counts.refused.empty += 1;
            return None;
        };
        self.counts.datagrams_in += 1;
        if words.is_empty() {
            self.imp_ready = flags & FLAG_READY != 0;
            return Some(Event::ImpReady(self.imp_ready));
        }
        let buf = self.partial.get_or_insert_with(Vec::new);
        if buf.len() + words.len() > MAX_MESSAGE_WORDS {
            self.partial = None;
            self.counts.refused.overlong += 1;
            return None;
        }
        buf.extend_from_slice(words);
        if flags & FLAG_FINAL == 0 {
            return None;
        }
        let msg = self.partial.take().unwrap_or_default();
        if msg.len() < 2 {
            self.counts.refused.short_leader += 1;
            return None;
        }
        self.counts.messages_in += 1;
        Some(Event::Message {
            at_ns: now_ns,
            leader: Leader::decode([msg[0], msg[1]]),
            text: msg[2..].to_vec(),
        })
    }

    /// The datagram that tells the IMP this host is ready.
    pub fn ready(&mut self) -> Vec<u8> {
        self.datagram(vec![FLAG_READY])
    }

    /// The datagram carrying one message: leader then text, ended, host ready.
    pub fn message(&mut self, leader: &Leader, text: &[u16]) -> Vec<u8> {
        let mut words = Vec::with_capacity(3 + text.len());
        words.push(FLAG_FINAL | FLAG_READY);
        words.extend_from_slice(&leader.encode());
        words.extend_from_slice(text);
        self.counts.messages_out += 1;
        self.datagram(words)
    }

    fn datagram(&mut self, words: Vec<u16>) -> Vec<u8> {
        let d = Datagram {
            sequence: self.tx_sequence,
            words,
        };
        self.tx_sequence = self.tx_sequence.wrapping_add(1);
        self.counts.datagrams_out += 1;
        d.encode()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leader::{Address, FakeHost, Kind};
    use proptest::prelude::*;

    fn from_imp(seq: u32, words: &[u16]) -> Vec<u8> {
        Datagram {
            sequence: seq,
            words: words.to_vec(),
        }
        .encode()
    }

    #[test]
    fn the_imp_s_ready_flag_alone_is_a_ready_report() {
        let mut h = Host::new();
        assert_eq!(
            h.receive(5, &from_imp(0, &[FLAG_FINAL | FLAG_READY])),
            Some(Event::ImpReady(true))
        );
        assert!(h.imp_ready());
        assert_eq!(
            h.receive(6, &from_imp(1, &[FLAG_FINAL])),
            Some(Event::ImpReady(false))
        );
    }

    #[test]
    fn a_rfnm_is_one_final_datagram_of_two_words() {
        let mut h = Host::new();
        let rfnm = Leader::decode([(5 << 8) | 0o040000 | (3 << 6) | 12, 9 << 8]);
        match h.receive(
            77,
            &from_imp(0, &[FLAG_FINAL | FLAG_READY, 0o042714, 0o004400]),
        ) {
            Some(Event::Message {
                at_ns,
                leader,
                text,
            }) => {
                assert_eq!(at_ns, 77);
                assert_eq!(leader, rfnm);
                assert_eq!(leader.kind, Kind::Rfnm);
                assert!(text.is_empty());
            }
            e => panic!("expected a message, got {e:?}"),
        }
    }

    #[test]
    fn a_message_in_pieces_is_assembled_at_its_final_piece() {
        let mut h = Host::new();
        assert_eq!(
            h.receive(1, &from_imp(0, &[FLAG_READY, 0, 0o400, 1, 2])),
            None
        );
        match h.receive(2, &from_imp(1, &[FLAG_READY | FLAG_FINAL, 3])) {
            Some(Event::Message { text, leader, .. }) => {
                assert_eq!(text, vec![1, 2, 3]);
                assert_eq!(leader.kind, Kind::Regular);
                assert_eq!(leader.link, 1);
            }
            e => panic!("{e:?}"),
        }
    }

    #[test]
    fn each_kind_of_bad_datagram_is_counted_not_fatal() {
        let mut h = Host::new();
        assert_eq!(h.receive(0, b"garbage"), None);
        assert_eq!(h.receive(0, &from_imp(0, &[])), None);
        assert_eq!(h.receive(0, &from_imp(1, &[FLAG_FINAL, 0o2400])), None);
        assert_eq!(h.receive(0, &from_imp(1, &[FLAG_FINAL])), None);
        let big = vec![0u16; MAX_MESSAGE_WORDS];
        let mut first = vec![0u16];
        first.extend_from_slice(&big);
        assert_eq!(h.receive(0, &from_imp(2, &first)), None);
        assert_eq!(h.receive(0, &from_imp(3, &[0, 1])), None);
        let r = &h.counts().refused;
        assert_eq!(
            (r.malformed, r.empty, r.short_leader, r.stale, r.overlong),
            (1, 1, 1, 1, 1)
        );
    }

    #[test]
    fn a_gap_in_sequence_is_counted_and_the_datagram_kept() {
        let mut h = Host::new();
        assert_eq!(
            h.receive(0, &from_imp(3, &[FLAG_READY])),
            Some(Event::ImpReady(true))
        );
        assert_eq!(h.counts().gaps, 1);
    }

    #[test]
    fn the_host_s_message_is_flags_leader_text_with_rising_sequence() {
        let mut h = Host::new();
        let l = Leader::new(Kind::Regular, Address::fake(12, FakeHost::Discard), 2).unwrap();
        let a = Datagram::decode(&h.ready()).unwrap();
        assert_eq!((a.sequence, a.words.clone()), (0, vec![FLAG_READY]));
        let b = Datagram::decode(&h.message(&l, &[7, 8])).unwrap();
        assert_eq!(b.sequence, 1);
        assert_eq!(
            b.words,
            vec![FLAG_FINAL | FLAG_READY, 0o040314, 0o001000, 7, 8]
        );
        assert_eq!(h.counts().messages_out, 1);
    }

    proptest! {
        #[test]
        fn no_datagram_makes_the_host_panic(datagrams in proptest::collection::vec(
            (any::<u32>(), proptest::collection::vec(any::<u16>(), 0..40)), 0..30)) {
            let mut h = Host::new();
            for (i, (seq, words)) in datagrams.into_iter().enumerate() {
                let _ = h.receive(i as u64, &from_imp(seq, &words));
            }
        }
    }
}
