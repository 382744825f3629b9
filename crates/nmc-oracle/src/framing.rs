//! SIMH's UDP framing of H316 words, and the host interface's flag word on top of it.
//!
//! Every datagram between SIMH's modem or host interfaces (`H316/h316_udp.c`) is, big-endian:
//! a `u32` magic `'H316'` (0x48333136), a `u32` sequence number, a `u16` word count, then that
//! many 16-bit words. The receiver drops a datagram whose magic or length is wrong and one
//! whose sequence is below the next it expects (a duplicate or a late one); a higher sequence
//! is accepted (datagrams were lost) and a sequence of 0 restarts the count (the peer
//! restarted). On the host interface (`H316/h316_hi.c`) the first word is a flag word:
//! 0o001 marks the last word of a message (1822's Last-IMP-Bit / Last-Host-Bit), 0o002 says
//! the sender is ready (1822's IMP Ready / Host Ready); a datagram of the flag word alone
//! only reports readiness.

use thiserror::Error;

/// The magic number every datagram starts with: the bytes `H316`.
pub const MAGIC: u32 = 0x4833_3136;
/// Bytes before the words: magic, sequence, count.
pub const HEADER_BYTES: usize = 10;
/// Largest word count SIMH accepts (`MAXDATA`, `h316_imp.h`).
pub const MAX_WORDS: usize = 16384;

/// Flag word bit: the last word of a message.
pub const FLAG_FINAL: u16 = 0o001;
/// Flag word bit: the sender (IMP or host) is ready.
pub const FLAG_READY: u16 = 0o002;

/// One datagram: its sequence number and its words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Datagram {
    /// Sender's sequence number (0, 1, 2, … per link).
    pub sequence: u32,
    /// The H316 words it carries.
    pub words: Vec<u16>,
}

/// Why a datagram was refused.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum FramingError {
    /// Fewer bytes than the header.
    #[error("datagram of {0} bytes is shorter than the 10-byte header")]
    Short(usize),
    /// The magic number is not `H316`.
    #[error("bad magic {0:#010x}")]
    BadMagic(u32),
    /// The word count does not match the datagram's length.
    #[error("count says {declared} words, datagram holds {actual} bytes of words")]
    Length {
        /// Words the header declares.
        declared: usize,
        /// Bytes after the header.
        actual: usize,
    },
    /// More words than SIMH handles.
    #[error("{0} words is more than SIMH's {MAX_WORDS}")]
    TooLong(usize),
}

impl Datagram {
    /// The datagram's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_BYTES + 2 * self.words.len());
        out.extend_from_slice(&MAGIC.to_be_bytes());
        out.extend_from_slice(&self.sequence.to_be_bytes());
        out.extend_from_slice(&(self.words.len() as u16).to_be_bytes());
        for w in &self.words {
            out.extend_from_slice(&w.to_be_bytes());
        }
        out
    }

    /// Reads one datagram, refusing anything SIMH's receiver would drop for its form.
    pub fn decode(bytes: &[u8]) -> Result<Datagram, FramingError> {
        if bytes.len() < HEADER_BYTES {
            return Err(FramingError::Short(bytes.len()));
        }
        let magic = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        if magic != MAGIC {
            return Err(FramingError::BadMagic(magic));
        }
        let sequence = u32::from_be_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        let declared = usize::from(u16::from_be_bytes([bytes[8], bytes[9]]));
        let body = &bytes[HEADER_BYTES..];
        if body.len() != 2 * declared {
            return Err(FramingError::Length {
                declared,
                actual: body.len(),
            });
        }
        if declared > MAX_WORDS {
            return Err(FramingError::TooLong(declared));
        }
        let words = body
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        Ok(Datagram { sequence, words })
    }
}

/// What a receiver does with a sequence number (SIMH's rule, `udp_receive`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SequenceVerdict {
    /// The one expected next.
    InOrder,
    /// Higher than expected: datagrams were lost; accepted.
    Gap(u32),
    /// Sequence 0 after others: the sender restarted; accepted.
    Restart,
    /// Lower than expected: a duplicate or a late datagram; dropped.
    Stale,
}

/// The receive side of one link's sequence numbers.
#[derive(Clone, Debug, Default)]
pub struct SequenceCheck {
    next: u32,
}

impl SequenceCheck {
    /// Judges `seq` and, unless it is stale, expects `seq + 1` next.
    pub fn check(&mut self, seq: u32) -> SequenceVerdict {
        let verdict = if seq == self.next {
            SequenceVerdict::InOrder
        } else if seq == 0 {
            SequenceVerdict::Restart
        } else if seq < self.next {
            return SequenceVerdict::Stale;
        } else {
            SequenceVerdict::Gap(seq - self.next)
        };
        self.next = seq.wrapping_add(1);
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_datagram_is_magic_sequence_count_then_words_big_endian() {
        let d = Datagram {
            sequence: 7,
            words: vec![0o000003, 0o177777],
        };
        assert_eq!(
            d.encode(),
            vec![b'H', b'3', b'1', b'6', 0, 0, 0, 7, 0, 2, 0, 3, 0xff, 0xff]
        );
    }

    #[test]
    fn malformed_datagrams_are_refused_with_their_reason() {
        assert_eq!(Datagram::decode(&[1, 2, 3]), Err(FramingError::Short(3)));
        let mut bad = Datagram {
            sequence: 0,
            words: vec![1],
        }
        .encode();
        bad[0] = b'X';
        assert!(matches!(
            Datagram::decode(&bad),
            Err(FramingError::BadMagic(_))
        ));
        let mut long = Datagram {
            sequence: 0,
            words: vec![1, 2],
        }
        .encode();
        long.push(0);
        assert_eq!(
            Datagram::decode(&long),
            Err(FramingError::Length {
                declared: 2,
                actual: 5
            })
        );
    }

    #[test]
    fn sequence_numbers_follow_simh_s_rule() {
        let mut c = SequenceCheck::default();
        assert_eq!(c.check(0), SequenceVerdict::InOrder);
        assert_eq!(c.check(1), SequenceVerdict::InOrder);
        assert_eq!(c.check(1), SequenceVerdict::Stale);
        assert_eq!(c.check(4), SequenceVerdict::Gap(2));
        assert_eq!(c.check(3), SequenceVerdict::Stale);
        assert_eq!(c.check(0), SequenceVerdict::Restart);
        assert_eq!(c.check(1), SequenceVerdict::InOrder);
    }

    proptest! {
        #[test]
        fn framing_round_trips(seq in any::<u32>(), words in proptest::collection::vec(any::<u16>(), 0..600)) {
            let d = Datagram { sequence: seq, words };
            prop_assert_eq!(Datagram::decode(&d.encode()), Ok(d));
        }

        #[test]
        fn any_bytes_decode_or_refuse_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = Datagram::decode(&bytes);
        }
    }
}
