//! K&O's pump as a sans-I/O core: messages to one destination, at most N outstanding, each
//! released by its reply (K&O §IV: the UCLA PDP-11/45 "pumped" 8-packet messages to fake
//! hosts as fast as the network took them; a message number is freed by the RFNM, §II).
//!
//! A message is outstanding from the moment it is handed to the IMP until its reply: a RFNM,
//! or an incomplete-transmission or destination-dead report on the same link, which also
//! release it (and are counted). Messages on one link are sequenced by the IMPs, so replies
//! come back in order and release the oldest outstanding message.

use std::collections::VecDeque;

use crate::leader::{Address, Kind, Leader, LeaderError};

/// What to pump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PumpConfig {
    /// Destination IMP.
    pub imp: u8,
    /// Host on it (a fake host when `for_imp`).
    pub host: u8,
    /// The destination is one of the IMP's fake hosts.
    pub for_imp: bool,
    /// Link number the messages go on (their replies come back on it).
    pub link: u8,
    /// Messages outstanding at most.
    pub outstanding: usize,
    /// Messages to send.
    pub messages: u64,
    /// Text words per message (after the 2-word leader).
    pub text_words: usize,
}

/// One message's fate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Record {
    /// Its place in the run, from 0.
    pub index: u64,
    /// When the host handed it to the IMP.
    pub sent_ns: u64,
    /// When its reply reached the host.
    pub reply_ns: u64,
    /// The reply.
    pub reply: Kind,
    /// The reply's subcode.
    pub subcode: u8,
}

/// The pump.
#[derive(Clone, Debug)]
pub struct Pump {
    cfg: PumpConfig,
    leader: Leader,
    next: u64,
    in_flight: VecDeque<(u64, u64)>,
    records: Vec<Record>,
    /// Replies on this link that matched no outstanding message.
    pub unmatched: u64,
}

impl Pump {
    /// A pump that has sent nothing.
    pub fn new(cfg: PumpConfig) -> Result<Pump, LeaderError> {
        let to = Address {
            imp: cfg.imp,
            host: cfg.host,
            for_imp: cfg.for_imp,
        };
        Ok(Pump {
            leader: Leader::new(Kind::Regular, to, cfg.link)?,
            cfg,
            next: 0,
            in_flight: VecDeque::new(),
            records: Vec::new(),
            unmatched: 0,
        })
    }

    /// The settings.
    pub fn config(&self) -> &PumpConfig {
        &self.cfg
    }

    /// The next message, if the window has room and messages remain; the caller sends it now.
    /// Its first text word carries its index (low 16 bits), the rest a fixed pattern.
    pub fn next_message(&mut self, now_ns: u64) -> Option<(Leader, Vec<u16>)> {
        if self.in_flight.len() >= self.cfg.outstanding || self.next >= self.cfg.messages {
            return None;
        }
        let mut text = vec![0o125252u16; self.cfg.text_words];
        if let Some(w) = text.first_mut() {
            *w = self.next as u16;
        }
        self.in_flight.push_back((self.next, now_ns));
        self.next += 1;
        Some((self.leader, text))
    }

    /// A message from the IMP. Returns the record it completed, if it was this pump's reply.
    pub fn on_message(&mut self, at_ns: u64, leader: &Leader) -> Option<Record> {
        let ours = leader.link == self.cfg.link
            && leader.imp == self.cfg.imp
            && leader.host == self.cfg.host
            && matches!(
                leader.kind,
                Kind::Rfnm | Kind::IncompleteTransmission | Kind::DestinationDead
            );
        if !ours {
            return None;
        }
        let Some((index, sent_ns)) = self.in_flight.pop_front() else {
            self.unmatched += 1;
            return None;
        };
        let r = Record {
            index,
            sent_ns,
            reply_ns: at_ns,
            reply: leader.kind,
            subcode: leader.subcode(),
        };
        self.records.push(r);
        Some(r)
    }

    /// Messages sent and not yet answered.
    pub fn outstanding(&self) -> usize {
        self.in_flight.len()
    }

    /// Every message sent and answered.
    pub fn finished(&self) -> bool {
        self.next >= self.cfg.messages && self.in_flight.is_empty()
    }

    /// Messages sent so far.
    pub fn sent(&self) -> u64 {
        self.next
    }

    /// The records, in order of reply.
    pub fn records(&self) -> &[Record] {
        &self.records
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leader::FakeHost;

    fn cfg(outstanding: usize, messages: u64) -> PumpConfig {
        PumpConfig {
            imp: 12,
            host: FakeHost::Discard as u8,
            for_imp: true,
            link: 4,
            outstanding,
            messages,
            text_words: 503,
        }
    }

    fn rfnm(link: u8) -> Leader {
        Leader {
            kind: Kind::Rfnm,
            flags: crate::leader::flag::FOR_IMP,
            host: 3,
            imp: 12,
            link,
            low: 0,
        }
    }

    #[test]
    fn four_outstanding_then_one_more_per_rfnm() {
        let mut p = Pump::new(cfg(4, 10)).unwrap();
        for i in 0..4 {
            let (l, text) = p.next_message(i).expect("window open");
            assert_eq!(text.len(), 503);
            assert_eq!(text[0], i as u16);
            assert_eq!(l.link, 4);
        }
        assert!(p.next_message(10).is_none(), "the window is full at 4");
        let r = p.on_message(100, &rfnm(4)).unwrap();
        assert_eq!((r.index, r.sent_ns, r.reply_ns), (0, 0, 100));
        assert!(p.next_message(101).is_some());
        assert!(p.next_message(102).is_none());
    }

    #[test]
    fn replies_on_other_links_or_of_other_kinds_do_not_release() {
        let mut p = Pump::new(cfg(1, 2)).unwrap();
        p.next_message(0).unwrap();
        assert!(p.on_message(1, &rfnm(5)).is_none());
        let mut nop = rfnm(4);
        nop.kind = Kind::Nop;
        assert!(p.on_message(1, &nop).is_none());
        assert_eq!(p.outstanding(), 1);
        let mut inc = rfnm(4);
        inc.kind = Kind::IncompleteTransmission;
        inc.low = 1;
        let r = p.on_message(2, &inc).unwrap();
        assert_eq!((r.reply, r.subcode), (Kind::IncompleteTransmission, 1));
    }

    #[test]
    fn a_reply_with_nothing_outstanding_is_counted() {
        let mut p = Pump::new(cfg(1, 1)).unwrap();
        assert!(p.on_message(1, &rfnm(4)).is_none());
        assert_eq!(p.unmatched, 1);
        p.next_message(2).unwrap();
        p.on_message(3, &rfnm(4)).unwrap();
        assert!(p.finished());
        assert!(p.next_message(4).is_none());
    }
}
