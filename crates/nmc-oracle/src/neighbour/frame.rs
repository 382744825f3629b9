//! Program 3050's frames on a modem line, word by word: the bits of each header word, the
//! software checksum every frame ends with, and the two frames a line's own protocol makes
//! (the null packet and the routing message). BBN 3050 listing (16 Sept 1973) pp. 14–16 for the
//! words and their bits; each rule below cites its page.
//!
//! A message's packet or reply is left as words: [`crate::trace::Frame::decode`] reads its
//! header, and the neighbour ([`super::Neighbour`]) fills only what belongs to the line (the
//! acknowledgement word, `ENDBIT`, the checksum).

/// Words of a routing message: ACKH, the header, the serial number, one entry per IMP number
/// 0–63, the checksum (p. 254, the routing area; pp. 230–232 `RUTOUT`).
pub const ROUTING_WORDS: usize = 68;

/// The most words a message frame may have: ACKH, HEAD–HEAD3, 63 text words, the checksum. The
/// receiver's buffer ends there: a 70-word frame loses its last word to the end pointer (p. 14
/// `BUFE`; p. 92–93, `M2I`).
pub const MAX_MESSAGE_WORDS: usize = 69;

/// The fewest words of any frame: four header words and the checksum (nulls, REQ8, GVB, replies
/// built at background level, p. 52–53 `BACK0`, p. 58 `GIVTSK`).
pub const MIN_WORDS: usize = 5;

/// IMP numbers a routing message has an entry for: 0–63 (p. 223).
pub const IMP_NUMBERS: usize = 64;

/// A routing entry for an IMP not reachable, dead or not there: hops 31, delay 2047 (p. 224
/// `RUTINI`; p. 230 `RUTOUT`).
pub const UNREACHABLE: u16 = 0o177777;

/// ACKH, word 0 (p. 15, "BITS IN ACKH").
pub mod ackh {
    /// The packet's odd/even bit on its channel.
    pub const ODEVEN: u16 = 0o100000;
    /// The logical channel the packet is on (0–7 in bits 8–10; the receiver masks with 7,
    /// p. 63).
    pub const CHANUM: u16 = 0o17400;
    /// One acknowledgement bit for each of the sender's 8 receive channels (its `RSEX`).
    pub const ACKBTS: u16 = 0o377;
}

/// HEAD, word 1 (p. 15, "BITS IN HEAD" and "BITS IN RUTHED").
pub mod head {
    /// Message number (high byte).
    pub const MESSNO: u16 = 0o177400;
    /// A single-packet message (or a reply about one).
    pub const ONEOR8: u16 = 0o200;
    /// REQALL on a transmission, RFNM on a reply.
    pub const REQALL_OR_RFNM: u16 = 0o100;
    /// Priority order number.
    pub const ORDNO: u16 = 0o60;
    /// Incomplete transmission.
    pub const INCTRN: u16 = 0o10;
    /// 1: a transmission; 0: a reply.
    pub const TRNREP: u16 = 0o4;
    /// GVB on a transmission, ALLOCATE on a reply.
    pub const GVB_OR_ALLOC: u16 = 0o2;
    /// The line's own frames (null, routing): 1.
    pub const LINETS: u16 = 0o1;
    /// In a line's own frame: a core request (never sent by a neighbour: the receiver answers
    /// with its whole memory, p. 93, p. 107 `I2MCOR`).
    pub const SNDCOR: u16 = 0o100000;
    /// In a null: "I heard you" (p. 107 `I2MNUL`).
    pub const IHERDU: u16 = 0o20;
    /// A demand to reload (p. 100 `DMNDCR`; never sent by a neighbour).
    pub const GETCOR: u16 = 0o4;
    /// A null packet: acknowledgements only.
    pub const NULPKT: u16 = 0o2;
}

/// HEAD1, word 2 (p. 15, "BITS IN HEAD1").
pub mod head1 {
    /// For one of the destination IMP's fake hosts.
    pub const FORIMP: u16 = 0o40000;
    /// Packet number 0–7 (transmissions).
    pub const PKTNO: u16 = 0o3400;
    /// On a reply: the destination host is dead.
    pub const REPDED: u16 = 0o400;
    /// Destination host.
    pub const DESTH: u16 = 0o300;
    /// Destination IMP.
    pub const DESTI: u16 = 0o77;
}

/// HEAD2, word 3 (p. 15, "BITS IN HEAD2").
pub mod head2 {
    /// The message's last packet.
    pub const LSTPKT: u16 = 0o100000;
    /// From a fake host.
    pub const FRMIMP: u16 = 0o40000;
    /// Set by the sending IMP on a line iff its number is the higher of the two (p. 65, p. 94,
    /// p. 166): a frame carrying the receiver's own value is its own, come back on a looped line.
    pub const ENDBIT: u16 = 0o1000;
    /// Source host.
    pub const SRCEH: u16 = 0o300;
    /// Source IMP.
    pub const SRCEI: u16 = 0o77;
}

/// The checksum word that ends a frame whose other words are `words`: chosen so that all the
/// frame's *n* words add up to *n* − 1, modulo 2¹⁶ (the receiver starts its sum at −(*n*−1) and
/// must reach 0: p. 33–34, p. 93; every sender: p. 131 `HICKSM`, p. 68 `SWPCHK`, p. 58
/// `GIVTSK`, p. 107, p. 230–231 `RUTOUT`).
pub fn checksum(words: &[u16]) -> u16 {
    let sum = words.iter().fold(0u16, |s, &w| s.wrapping_add(w));
    (words.len() as u16).wrapping_sub(sum)
}

/// Whether a whole frame's checksum is right.
pub fn checksum_ok(frame: &[u16]) -> bool {
    match frame.split_last() {
        Some((&c, rest)) => c == checksum(rest),
        None => false,
    }
}

/// `words` with their checksum appended.
pub fn seal(mut words: Vec<u16>) -> Vec<u16> {
    words.push(checksum(&words));
    words
}

/// A null packet (p. 107 `I2MNUL`): the sender's acknowledgement bits, its number, "I heard
/// you" or not, its clock in fast ticks (`SYNC`), a zero word, the checksum.
pub fn null(own: u8, acks: u8, i_heard_you: bool, sync: u16) -> Vec<u16> {
    let ihy = if i_heard_you { head::IHERDU } else { 0 };
    seal(vec![
        u16::from(acks),
        u16::from(own) << 8 | head::NULPKT | head::LINETS | ihy,
        sync,
        0,
    ])
}

/// A routing message (pp. 230–232 `RUTOUT`): word 0 is 0 (a routing message carries no
/// acknowledgements), the sender's number, the table's serial number in the high byte, then
/// `entries[k]` for IMP *k* (hops << 11 | delay), the checksum.
pub fn routing(own: u8, serial: u8, entries: &[u16; IMP_NUMBERS]) -> Vec<u16> {
    let mut w = Vec::with_capacity(ROUTING_WORDS);
    w.extend([
        0,
        u16::from(own) << 8 | head::LINETS,
        u16::from(serial) << 8,
    ]);
    w.extend_from_slice(entries);
    seal(w)
}

/// A routing entry: `hops` (at most 31) and `delay` (at most 2047) as the program packs them
/// (p. 223: `HOPS` 174000, `DELS` 003777).
pub fn entry(hops: u32, delay: u32) -> u16 {
    ((hops.min(31) as u16) << 11) | delay.min(2047) as u16
}

/// A routing entry's hops and delay.
pub fn entry_parts(e: u16) -> (u32, u32) {
    (u32::from(e >> 11), u32::from(e & 0o3777))
}

/// What a frame from the line is, once its checksum has been checked (the order of the
/// receiver's tests, p. 91–95 `M2I`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A null: acknowledgements, and maybe "I heard you".
    Null {
        /// The sender's number.
        from: u8,
        /// Its acknowledgement bits.
        acks: u8,
        /// It heard a routing message of ours in its last basic interval.
        i_heard_you: bool,
    },
    /// A routing message.
    Routing {
        /// The sender's number.
        from: u8,
        /// Its table's serial number.
        serial: u8,
        /// Its entries, IMP 0–63.
        entries: Box<[u16; IMP_NUMBERS]>,
    },
    /// A packet of a message or a reply (LINETS clear).
    Message,
    /// A line frame a neighbour never sends: a core request, a reload demand, a core dump.
    Maintenance,
}

/// Why a frame was not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// Fewer than [`MIN_WORDS`] words.
    #[error("a frame of {0} words is shorter than the program's 5")]
    Short(usize),
    /// More words than the receiver's buffer holds.
    #[error("a frame of {0} words is longer than the program's 69")]
    Long(usize),
    /// The software checksum is wrong.
    #[error("checksum wrong")]
    Checksum,
    /// A routing message not of 68 words.
    #[error("a routing message of {0} words, not 68")]
    RoutingLength(usize),
}

/// Reads a frame: its length and checksum checked, then what it is.
pub fn classify(words: &[u16]) -> Result<Kind, FrameError> {
    if words.len() < MIN_WORDS {
        return Err(FrameError::Short(words.len()));
    }
    if words.len() > MAX_MESSAGE_WORDS {
        return Err(FrameError::Long(words.len()));
    }
    let h = words[1];
    // A core request is taken before the checksum is looked at (p. 93): never answered here.
    if h & head::LINETS != 0 && h & head::SNDCOR != 0 {
        return Ok(Kind::Maintenance);
    }
    if !checksum_ok(words) {
        return Err(FrameError::Checksum);
    }
    if h & head::LINETS == 0 {
        return Ok(Kind::Message);
    }
    // The whole upper byte is the sender's number (p. 67, p. 94).
    let from = (h >> 8) as u8;
    if h & head::NULPKT != 0 {
        return Ok(Kind::Null {
            from,
            acks: (words[0] & ackh::ACKBTS) as u8,
            i_heard_you: h & head::IHERDU != 0,
        });
    }
    if h & head::GETCOR != 0 || h & 0o10 != 0 {
        return Ok(Kind::Maintenance);
    }
    if words.len() != ROUTING_WORDS {
        return Err(FrameError::RoutingLength(words.len()));
    }
    let mut entries = Box::new([0u16; IMP_NUMBERS]);
    entries.copy_from_slice(&words[3..3 + IMP_NUMBERS]);
    Ok(Kind::Routing {
        from,
        serial: (words[2] >> 8) as u8,
        entries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames recorded from two emulated IMPs (2 and 3) running program 3050, as they left.
    #[test]
    fn the_programs_own_frames_check_and_read() {
        let null2 = [0o377, 0o1003, 0o342, 0, 0o176040];
        assert!(checksum_ok(&null2));
        assert_eq!(null(2, 0o377, false, 0o342), null2);
        let ihy3 = [0o376, 0o1423, 0o7052, 0, 0o166711];
        assert_eq!(null(3, 0o376, true, 0o7052), ihy3);
        assert_eq!(
            classify(&ihy3),
            Ok(Kind::Null {
                from: 3,
                acks: 0o376,
                i_heard_you: true
            })
        );
        // IMP 2's routing message before the line was up: only its own entry is 0.
        let mut entries = [UNREACHABLE; IMP_NUMBERS];
        entries[2] = 0;
        let r = routing(2, 0o12, &entries);
        assert_eq!(r.len(), ROUTING_WORDS);
        assert_eq!(&r[..3], &[0, 0o1001, 0o5000]);
        assert_eq!(r[67], 0o172201);
        // A single-packet message to IMP 3's discard host, as IMP 2 sent it.
        let single = [
            0o377, 0o364, 0o40303, 0o100002, 0o3400, 0o1111, 0o1111, 0o1111, 0o1111, 0o1111,
            0o1111, 0o1111, 0o1111, 0o1111, 0o1111, 0o1111, 0o1111, 0o1111, 0o1111, 0o1111, 0o1111,
            0o1111, 0o1111, 0o1111, 0o1111, 0o4255,
        ];
        assert_eq!(classify(&single), Ok(Kind::Message));
        let mut bad = single;
        bad[7] ^= 1;
        assert_eq!(classify(&bad), Err(FrameError::Checksum));
    }

    #[test]
    fn entries_pack_as_the_listing_says() {
        assert_eq!(entry(1, 4), 0o4004);
        assert_eq!(entry_parts(0o4004), (1, 4));
        assert_eq!(entry(40, 5000), UNREACHABLE);
        assert_eq!(entry_parts(UNREACHABLE), (31, 2047));
    }

    #[test]
    fn a_core_request_is_never_read_as_routing_and_short_or_long_frames_are_refused() {
        assert_eq!(
            classify(&[0o40001, 0o100001, 0, 0, 7]),
            Ok(Kind::Maintenance)
        );
        assert_eq!(classify(&[1, 2, 3]), Err(FrameError::Short(3)));
        assert_eq!(classify(&[0; 70]), Err(FrameError::Long(70)));
        let r = seal(vec![0, 0o1001, 0, 5, 6]);
        assert_eq!(classify(&r), Err(FrameError::RoutingLength(6)));
    }
}
