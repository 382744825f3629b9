//! The program's routing messages as its IMPs send them (`record = ["routing"]` with
//! `[network.program]`, written as `routing-messages.csv`): each IMP's table of delay and hops
//! to every other IMP, as it put it on each line, so a loop's start can be read from the
//! tables that made it rather than guessed from the packets (`crate::journeys` shows the
//! packets).
//!
//! A routing message is a frame whose header word has the routing bit (BBN 3050 p. 230,
//! `RUTOUT`: the sender's number in the upper byte, bit 0 set; a null frame also has bit 1,
//! `crate::trace::Frame`). Its third word is the sender's serial number (`RSTSN`, 400 octal
//! more for each new table, p. 232 `CRMSN1`; a table sent again keeps it), then one word for each of the program's 64 IMP numbers (`COMPL`, p. 231: the
//! routing table `RST` copied out, IMP *n*'s entry at word 3 + *n*), each the hops in its upper
//! five bits (`HOPS`, mask 174000) and the delay in its lower eleven (`DELS`, mask 3777; p. 229),
//! then a checksum. The delay is the program's own unit (each line adds its local delay,
//! pp. 226–228 `RSTINP`); an IMP the sender thinks dead is sent as the program marks it there
//! (`RTDEAD`), shown as read. Nothing here reads the emulator: the driver hands each frame over
//! as it leaves.

use std::path::Path;

use anyhow::{Context, Result};

use crate::trace::Frame;

/// Words before the first table entry: the acknowledgement header, the header, the serial.
const TABLE_AT: usize = 3;

/// The hops' bits of an entry (p. 229 `HOPM`).
const HOPS_MASK: u16 = 0o174000;

/// The delay's bits of an entry (p. 229 `DELM`).
const DELAY_MASK: u16 = 0o3777;

/// One routing message as it left (a row of `routing-messages.csv`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoutingMessage {
    /// Its first bit, ns from the scenario's time 0.
    pub t_ns: u64,
    /// The sending IMP (network index).
    pub from: usize,
    /// The IMP at the line's far end (network index).
    pub to: usize,
    /// The sender's serial number (`RSTSN`).
    pub serial: u16,
    /// The line's error check failed (it reached the far IMP as an error).
    pub corrupted: bool,
    /// The entry for each IMP of the network, in its order: (delay, hops).
    pub entries: Vec<(u16, u8)>,
}

/// The routing messages of a run, from time 0.
#[derive(Clone, Debug, Default)]
pub struct RoutingMessages {
    /// Each network index's IMP number.
    imps: Vec<u8>,
    /// Each network index's site name.
    names: Vec<String>,
    /// The messages, in the order they left.
    pub rows: Vec<RoutingMessage>,
}

impl RoutingMessages {
    /// For a network whose IMP `i` has number `imps[i]` and name `names[i]`.
    pub fn new(imps: &[u8], names: &[String]) -> RoutingMessages {
        RoutingMessages {
            imps: imps.to_vec(),
            names: names.to_vec(),
            rows: Vec::new(),
        }
    }

    /// A frame leaving IMP `from` for IMP `to` (network indices), its first bit `t_ns` from
    /// time 0, `ok` false if the line corrupted it: kept if it is a routing message long enough
    /// to hold every IMP's entry; other frames are ignored.
    pub fn frame(&mut self, words: &[u16], from: usize, to: usize, t_ns: u64, ok: bool) {
        if !matches!(Frame::decode(words), Frame::Routing { .. }) {
            return;
        }
        let Some(entries) = self
            .imps
            .iter()
            .map(|&n| {
                let w = *words.get(TABLE_AT + usize::from(n))?;
                Some((w & DELAY_MASK, ((w & HOPS_MASK) >> 11) as u8))
            })
            .collect::<Option<Vec<_>>>()
        else {
            return;
        };
        self.rows.push(RoutingMessage {
            t_ns,
            from,
            to,
            serial: words[2],
            corrupted: !ok,
            entries,
        });
    }

    /// Writes `routing-messages.csv`: `t_ns,from,to,serial,corrupted`, then one column per IMP
    /// by site name, each cell `delay/hops` as the sender put it.
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        let mut w = csv::Writer::from_path(path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        let mut header = vec!["t_ns", "from", "to", "serial", "corrupted"];
        header.extend(self.names.iter().map(String::as_str));
        w.write_record(&header)?;
        for r in &self.rows {
            let mut cells = vec![
                r.t_ns.to_string(),
                self.names[r.from].clone(),
                self.names[r.to].clone(),
                r.serial.to_string(),
                r.corrupted.to_string(),
            ];
            cells.extend(r.entries.iter().map(|(d, h)| format!("{d}/{h}")));
            w.write_record(&cells)?;
        }
        w.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A routing message from IMP `from` (number) with `entries` at their IMP numbers.
    fn routing(from: u8, serial: u16, entries: &[(u8, u16, u8)]) -> Vec<u16> {
        let mut w = vec![0u16; TABLE_AT + 64 + 1];
        w[1] = (u16::from(from) << 8) | 1;
        w[2] = serial;
        for &(n, delay, hops) in entries {
            w[TABLE_AT + usize::from(n)] = (u16::from(hops) << 11) | delay;
        }
        w
    }

    #[test]
    fn a_routing_message_gives_each_imps_delay_and_hops_in_the_networks_order() {
        let names: Vec<String> = ["UCLA", "BBN", "CASE"].map(String::from).to_vec();
        let mut r = RoutingMessages::new(&[38, 4, 12], &names);
        let w = routing(12, 0o1234, &[(38, 40, 6), (4, 28, 5), (12, 0, 0)]);
        r.frame(&w, 2, 0, 13_850_000_000, true);
        assert_eq!(
            r.rows,
            [RoutingMessage {
                t_ns: 13_850_000_000,
                from: 2,
                to: 0,
                serial: 0o1234,
                corrupted: false,
                entries: vec![(40, 6), (28, 5), (0, 0)],
            }]
        );
        // The largest of each field is read whole: 31 hops, a delay of 2047.
        let w = routing(12, 1, &[(4, 0o3777, 31)]);
        r.frame(&w, 2, 1, 1, false);
        assert_eq!(r.rows[1].entries[1], (0o3777, 31));
        assert!(r.rows[1].corrupted);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("routing-messages.csv");
        r.write_csv(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "t_ns,from,to,serial,corrupted,UCLA,BBN,CASE");
        assert_eq!(lines[1], "13850000000,CASE,UCLA,668,false,40/6,28/5,0/0");
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn packets_nulls_and_short_frames_are_not_routing_messages() {
        let names: Vec<String> = ["A", "B"].map(String::from).to_vec();
        let mut r = RoutingMessages::new(&[1, 2], &names);
        // A null frame: the routing bit and the null bit.
        let mut null = routing(1, 0, &[]);
        null[1] |= 2;
        r.frame(&null, 0, 1, 0, true);
        // A packet: no routing bit.
        r.frame(&[0, 0o4, 0o2, 0o1, 0, 7, 7], 0, 1, 0, true);
        // A routing frame too short for IMP 2's entry.
        r.frame(&routing(1, 0, &[])[..5], 0, 1, 0, true);
        r.frame(&[], 0, 1, 0, true);
        assert!(r.rows.is_empty());
    }
}
