//! The 1822 leader as IMP program 3050 takes it: two 16-bit words, the 32-bit leader of
//! BBN Report 1822 before the 96-bit one (SIMH's `SET HIn CONVERT` would translate; the
//! harness leaves it off).
//!
//! Word 1: `flags << 12 | type << 8 | host << 6 | imp`. Flags (3050 listing p. 15, "BITS IN
//! HEAD1", and `h316_hi.c`): 0o10 priority, 0o04 for-IMP (the host field then names one of
//! the IMP's fake hosts), 0o02 trace, 0o01 octal. Word 2: the link number in its high byte;
//! on a message from the IMP its low three bits are a subcode (3050 p. 17, "BITS IN RLT2":
//! `LINKNO=177760`, `SUBCOD=7`).
//!
//! Types from the IMP to the host, 3050 p. 17 ("IH CODES", the codes shifted left 8):
//! 0 regular, 1 error in leader, 2 IMP going down, 4 NOP, 5 RFNM, 7 destination dead
//! (subcode 0 IMP, 1 host), 8 error in data, 9 incomplete transmission (subcodes 0 destination
//! host took > 30 s, 1 more than 8095 bits, 2 source host took > 15 s, 3 lost in the subnet,
//! 4 source IMP took > 15 s), 10 reset. Codes 3 and 6 appear there only as comments
//! ("blocked link", "link table full") without a constant. From the host: 0 regular, 4 NOP.

use std::fmt;

/// Flag bits of word 1, already shifted (3050 p. 15).
pub mod flag {
    /// Priority message.
    pub const PRIORITY: u16 = 0o100000;
    /// For the IMP: the host field names a fake host.
    pub const FOR_IMP: u16 = 0o040000;
    /// Trace this message's packets.
    pub const TRACE: u16 = 0o020000;
    /// Octal (for the TTY fake host).
    pub const OCTAL: u16 = 0o010000;
}

/// A leader's type (its four bits in word 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Kind {
    /// 0: host text.
    Regular,
    /// 1: the IMP found an error in the host's leader.
    ErrorInLeader,
    /// 2: the IMP is going down.
    ImpGoingDown,
    /// 3: "blocked link" (a comment in 3050's table, no constant).
    BlockedLink,
    /// 4: no operation (the IMP sends three at start; a host may send them).
    Nop,
    /// 5: ready for next message, the end-to-end acknowledgement.
    Rfnm,
    /// 6: "link table full" (a comment in 3050's table, no constant).
    LinkTableFull,
    /// 7: the destination IMP or host is dead.
    DestinationDead,
    /// 8: error in the host's data.
    ErrorInData,
    /// 9: incomplete transmission (the subcode says why).
    IncompleteTransmission,
    /// 10: the IMP's interface was reset (ready line flap).
    Reset,
    /// Any other code.
    Other(u8),
}

impl Kind {
    /// The type from its four-bit code.
    pub fn from_code(c: u8) -> Kind {
        match c {
            0 => Kind::Regular,
            1 => Kind::ErrorInLeader,
            2 => Kind::ImpGoingDown,
            3 => Kind::BlockedLink,
            4 => Kind::Nop,
            5 => Kind::Rfnm,
            6 => Kind::LinkTableFull,
            7 => Kind::DestinationDead,
            8 => Kind::ErrorInData,
            9 => Kind::IncompleteTransmission,
            10 => Kind::Reset,
            c => Kind::Other(c & 0o17),
        }
    }

    /// The four-bit code.
    pub fn code(self) -> u8 {
        match self {
            Kind::Regular => 0,
            Kind::ErrorInLeader => 1,
            Kind::ImpGoingDown => 2,
            Kind::BlockedLink => 3,
            Kind::Nop => 4,
            Kind::Rfnm => 5,
            Kind::LinkTableFull => 6,
            Kind::DestinationDead => 7,
            Kind::ErrorInData => 8,
            Kind::IncompleteTransmission => 9,
            Kind::Reset => 10,
            Kind::Other(c) => c & 0o17,
        }
    }
}

/// The for-IMP fake hosts of IMP 3050 (addressed with [`flag::FOR_IMP`] and the number in
/// the host field). 3050 has no echo or message-generator fake host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FakeHost {
    /// 0: the IMP's teletype.
    Tty = 0,
    /// 1: DDT, the debugger.
    Ddt = 1,
    /// 2: trace out; parameter change in.
    Trace = 2,
    /// 3: statistics out; in, the discard host: it takes the message and the IMP returns a
    /// RFNM (K&O's destinations were fake hosts).
    Discard = 3,
}

/// Where a message goes or comes from: an IMP and a host on it (or a fake host).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Address {
    /// IMP number, 0..=63.
    pub imp: u8,
    /// Host number on it, 0..=3.
    pub host: u8,
    /// The host is one of the IMP's fake hosts.
    pub for_imp: bool,
}

impl Address {
    /// A fake host on `imp`.
    pub fn fake(imp: u8, fake: FakeHost) -> Address {
        Address {
            imp,
            host: fake as u8,
            for_imp: true,
        }
    }
}

/// A 32-bit leader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leader {
    /// Type.
    pub kind: Kind,
    /// The flag bits of word 1 (see [`flag`]), already shifted.
    pub flags: u16,
    /// Host number (2 bits).
    pub host: u8,
    /// IMP number (6 bits).
    pub imp: u8,
    /// Link number (word 2's high byte).
    pub link: u8,
    /// Word 2's low byte (its low three bits are the subcode on a message from the IMP).
    pub low: u8,
}

/// A leader's fields out of range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LeaderError {
    /// Host numbers are two bits.
    #[error("host {0} does not fit the 32-bit leader's two bits")]
    Host(u8),
    /// IMP numbers are six bits.
    #[error("IMP {0} does not fit the 32-bit leader's six bits")]
    Imp(u8),
}

impl Leader {
    /// A leader of `kind` to `to` on `link`.
    pub fn new(kind: Kind, to: Address, link: u8) -> Result<Leader, LeaderError> {
        if to.host > 3 {
            return Err(LeaderError::Host(to.host));
        }
        if to.imp > 63 {
            return Err(LeaderError::Imp(to.imp));
        }
        Ok(Leader {
            kind,
            flags: if to.for_imp { flag::FOR_IMP } else { 0 },
            host: to.host,
            imp: to.imp,
            link,
            low: 0,
        })
    }

    /// The two words.
    pub fn encode(&self) -> [u16; 2] {
        [
            (self.flags & 0o170000)
                | (u16::from(self.kind.code()) << 8)
                | (u16::from(self.host & 3) << 6)
                | u16::from(self.imp & 0o77),
            (u16::from(self.link) << 8) | u16::from(self.low),
        ]
    }

    /// Reads the two words.
    pub fn decode(w: [u16; 2]) -> Leader {
        Leader {
            kind: Kind::from_code(((w[0] >> 8) & 0o17) as u8),
            flags: w[0] & 0o170000,
            host: ((w[0] >> 6) & 3) as u8,
            imp: (w[0] & 0o77) as u8,
            link: (w[1] >> 8) as u8,
            low: (w[1] & 0o377) as u8,
        }
    }

    /// The subcode (low three bits of word 2).
    pub fn subcode(&self) -> u8 {
        self.low & 0o7
    }

    /// The address in the leader.
    pub fn address(&self) -> Address {
        Address {
            imp: self.imp,
            host: self.host,
            for_imp: self.flags & flag::FOR_IMP != 0,
        }
    }
}

impl fmt::Display for Leader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} imp {} host {}{} link {} sub {}",
            self.kind,
            self.imp,
            self.host,
            if self.flags & flag::FOR_IMP != 0 {
                " (fake)"
            } else {
                ""
            },
            self.link,
            self.subcode()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_to_the_discard_fake_host_on_imp_12() {
        let l = Leader::new(Kind::Regular, Address::fake(12, FakeHost::Discard), 9).unwrap();
        // for-IMP 040000, type 0, host 3 << 6 = 0300, IMP 12 = 014; link 9 in the high byte.
        assert_eq!(l.encode(), [0o040314, 0o004400]);
        assert_eq!(Leader::decode(l.encode()), l);
    }

    #[test]
    fn each_type_the_imp_sends_reads_back() {
        for (code, kind) in [
            (0, Kind::Regular),
            (1, Kind::ErrorInLeader),
            (2, Kind::ImpGoingDown),
            (4, Kind::Nop),
            (5, Kind::Rfnm),
            (7, Kind::DestinationDead),
            (8, Kind::ErrorInData),
            (9, Kind::IncompleteTransmission),
            (10, Kind::Reset),
        ] {
            let w = [(code << 8) | (1 << 6) | 0o13, (0o42 << 8) | 1];
            let l = Leader::decode(w);
            assert_eq!(l.kind, kind);
            assert_eq!((l.host, l.imp, l.link, l.subcode()), (1, 0o13, 0o42, 1));
            assert_eq!(l.encode(), w);
        }
        assert_eq!(Leader::decode([0o3400, 0]).kind, Kind::DestinationDead);
        assert_eq!(Leader::decode([0o5000, 0]).kind, Kind::Reset);
        assert_eq!(Leader::decode([0o7400, 0]).kind, Kind::Other(15));
    }

    #[test]
    fn out_of_range_addresses_are_refused() {
        let a = Address {
            imp: 64,
            host: 0,
            for_imp: false,
        };
        assert_eq!(Leader::new(Kind::Regular, a, 0), Err(LeaderError::Imp(64)));
        let a = Address {
            imp: 1,
            host: 4,
            for_imp: false,
        };
        assert_eq!(Leader::new(Kind::Regular, a, 0), Err(LeaderError::Host(4)));
    }
}
