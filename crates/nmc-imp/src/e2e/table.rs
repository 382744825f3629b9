//! The end-to-end events of single-packet messages as RFC 632 prints them: two columns, SOURCE
//! IMP and DESTINATION IMP, events named `MSG(i+1) sent`, `RFNM(i) arr`, `ALL(i+1) sent`, with
//! message numbers relative to message *i*, the one that was overtaken.
//!
//! The paper's tables are schematic: they pair events of the two IMPs on one line where they
//! happen "about together". Ours put one event on a line, in the order of simulated time, with
//! the time (ms after `MSG(i) sent`) in front; the order within each column is what the
//! comparison with the paper checks ([`columns`]).

pub use crate::observe::E2eEvent;
use crate::observe::{Happened, Note, Side, What};
use std::fmt::Write as _;

/// `i`, `i+1`, … for message number `num` relative to `base`; `i-1`, … before it.
pub(crate) fn relative(num: u64, base: u64) -> String {
    match num.cmp(&base) {
        std::cmp::Ordering::Equal => "i".into(),
        std::cmp::Ordering::Greater => format!("i+{}", num - base),
        std::cmp::Ordering::Less => format!("i-{}", base - num),
    }
}

/// The event in the paper's words: `MSG(i+1) arr`, with the destination's disposition of an
/// arriving message in brackets when `notes` (Table 2 prints them: `(rejected)`, `(stored)`,
/// `(HOST output)`).
pub(crate) fn label(e: &E2eEvent, base: u64, notes: bool) -> String {
    let mut s = format!("{}({}) {}", e.what, relative(e.num, base), e.event);
    if notes && e.side == Side::Destination && e.what == What::Msg && e.note != Note::None {
        let _ = write!(s, " ({})", e.note);
    }
    s
}

/// Message *i* of the paper: the one before the first message that reached `dst` out of order
/// (rejected or stored) at or after `after_ns`, in the pair `src` → `dst`.
pub fn overtaken(events: &[E2eEvent], src: &str, dst: &str, after_ns: u64) -> Option<u64> {
    events
        .iter()
        .filter(|e| e.src == src && e.dst == dst && e.t_ns >= after_ns)
        .find(|e| {
            e.side == Side::Destination
                && e.what == What::Msg
                && e.event == Happened::Arr
                && matches!(e.note, Note::Rejected | Note::Stored)
        })
        .map(|e| e.num.saturating_sub(1))
}

/// The pair's events from the first sending of message `base` on, about messages `base` and
/// later, in time order.
pub fn window<'a>(events: &'a [E2eEvent], src: &str, dst: &str, base: u64) -> Vec<&'a E2eEvent> {
    let pair = events.iter().filter(|e| e.src == src && e.dst == dst);
    let Some(t0) = pair
        .clone()
        .find(|e| e.side == Side::Source && e.what == What::Msg && e.num == base)
        .map(|e| e.t_ns)
    else {
        return Vec::new();
    };
    pair.filter(|e| e.t_ns >= t0 && e.num >= base).collect()
}

/// The SOURCE IMP and DESTINATION IMP columns, top to bottom.
pub fn columns(window: &[&E2eEvent], base: u64, notes: bool) -> (Vec<String>, Vec<String>) {
    let col = |side: Side| {
        window
            .iter()
            .filter(|e| e.side == side)
            .map(|e| label(e, base, notes))
            .collect()
    };
    (col(Side::Source), col(Side::Destination))
}

/// The two-column table: one event per line in time order, time in ms after the first event.
/// Stops once `rows` lines are printed.
pub fn two_column_table(window: &[&E2eEvent], base: u64, notes: bool, rows: usize) -> String {
    let t0 = window.first().map_or(0, |e| e.t_ns);
    let mut out = format!(
        "{:>8}  {:<26}{}\n",
        "t (ms)", "SOURCE IMP", "DESTINATION IMP"
    );
    for e in window.iter().take(rows) {
        let t = (e.t_ns - t0) as f64 / 1e6;
        let l = label(e, base, notes);
        let (s, d) = if e.side == Side::Source {
            (l.as_str(), "")
        } else {
            ("", l.as_str())
        };
        let _ = writeln!(out, "{t:>8.1}  {s:<26}{d}");
    }
    // No trailing blanks on source-only lines.
    out.lines()
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(t: u64, side: Side, what: What, num: u64, event: Happened) -> E2eEvent {
        E2eEvent {
            t_ns: t * 1_000_000,
            src: "S".into(),
            dst: "D".into(),
            side,
            what,
            num,
            event,
            note: if side == Side::Destination && what == What::Msg {
                if num == 8 {
                    Note::Rejected
                } else {
                    Note::HostOutput
                }
            } else {
                Note::None
            },
        }
    }

    #[test]
    fn names_and_layout_follow_the_paper() {
        let log = vec![
            ev(0, Side::Source, What::Msg, 6, Happened::Sent),
            ev(1, Side::Source, What::Msg, 7, Happened::Sent),
            ev(2, Side::Source, What::Msg, 8, Happened::Sent),
            ev(3, Side::Destination, What::Msg, 8, Happened::Arr),
            ev(4, Side::Destination, What::Msg, 7, Happened::Arr),
            ev(5, Side::Destination, What::Rfnm, 7, Happened::Sent),
        ];
        assert_eq!(overtaken(&log, "S", "D", 0), Some(7));
        let w = window(&log, "S", "D", 7);
        let (s, d) = columns(&w, 7, true);
        assert_eq!(s, ["MSG(i) sent", "MSG(i+1) sent"]);
        assert_eq!(
            d,
            [
                "MSG(i+1) arr (rejected)",
                "MSG(i) arr (HOST output)",
                "RFNM(i) sent"
            ]
        );
        let table = two_column_table(&w, 7, false, 10);
        assert_eq!(
            table,
            "  t (ms)  SOURCE IMP                DESTINATION IMP\n\
             \x20    0.0  MSG(i) sent\n\
             \x20    1.0  MSG(i+1) sent\n\
             \x20    2.0                            MSG(i+1) arr\n\
             \x20    3.0                            MSG(i) arr\n\
             \x20    4.0                            RFNM(i) sent\n"
        );
        assert_eq!(relative(5, 7), "i-2");
    }
}
