//! K&O §V's example: the line X–A–B–C, driven by the update sequences of Tables I, II and III.
//!
//! "Let us consider a net with the following linear topology. … node X is that node in the
//! 'rest of the network' which sends routing updates to node A. … nodes B and C should always
//! send packets for node D to their left-hand neighbor (nodes A and B, respectively)."
//!
//! ```text
//!   D · · · X ——— A ——— B ——— C
//! ```
//!
//! A, B and C are [`DistanceVector`] routers; X is the rest of the network, scripted. The
//! driver delivers routing messages on four directed links (X→A, A→B, C→B, B→C), each at its
//! own period and phase, and after each delivery records the three IMPs' entries for D in the
//! paper's notation. The order of deliveries is not written down: it comes out of the periods,
//! and [`check_order`] compares it with the tables' "Routing" column.
//!
//! ## The scenario (what is scripted, and why)
//!
//! * **Periods.** Tables I and II: 640 ms on every link ("routing messages are sent every
//!   640 ms"). Table III: X→A and A→B every 320 ms, C→B and B→C every 640 ms ("it is quite
//!   possible … that A sends two routing messages to B before B sends one routing message to
//!   C"). Phases 0, 10, 20, 30 ms (Table III: 0, 10, 340, 350) put the links in the tables'
//!   order; they are our choice.
//! * **Row 0.** Every IMP starts knowing nothing; X reports d−8 (so A gets d−4) and all queues
//!   are empty; the links run for 16 periods (10.24 s) before row 1, and row 0 is the state
//!   then. `d` is [`D_UNITS`]; any value from 8 up prints the same.
//! * **Inputs from outside the line** (applied just before the row's message). The paper gives
//!   their effect on A's and C's cells, not the inputs themselves; we read them off those
//!   cells. Tables I, II, row 1: "a sudden increase in traffic between node A and node D causes
//!   the delay estimate in A to be increased by 9 units": X now reports d−3 and A's queue to X
//!   holds 4 packets (`d+5/4/X` = d−3 + 4 + 4). Row 4: C's queue to B holds 1 packet (`/1/`),
//!   row 8: 0 again (`/0/`). Table III row 1: X reports d−5, A's queue 2 (`d+1/2/X`); row 3: X
//!   reports d−3, A's queue 4; row 6: C's queue to B 1 packet.
//!
//! So A's estimates follow from the script; what the mechanism alone decides is every cell of
//! B and C, every best neighbour, and every hold-down mark.

use crate::loops::forwarding_loops_of;
use crate::router::{Entry, Router, RoutingMessage};
use crate::{DistanceVector, LineConfig, LineId, LoopPrevention, NodeId, RoutingParams, Units};
use nmc_sim::{SimDuration, SimTime};
use serde::Serialize;
use std::fmt;

/// The published tables, transcribed (see the file's header for conventions).
pub const PUBLISHED_TEXT: &str = include_str!("../fixtures/ko1977_tables.txt");

/// B's initial estimate to D, in units: the paper's `d`.
pub const D_UNITS: u32 = 16;

/// Node D, the destination every table follows (the far end of "the rest of the network").
pub const D: NodeId = NodeId(0);
const LINE_XA: LineId = LineId(0);
const LINE_AB: LineId = LineId(1);
const LINE_BC: LineId = LineId(2);

/// The IMPs of the example.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Imp {
    /// The node of "the rest of the network" that sends routing updates to A; scripted.
    X,
    /// The IMP next to X.
    A,
    /// The middle IMP of A–B–C.
    B,
    /// The IMP at the end of the line.
    C,
}

impl Imp {
    /// Its node number in the example's routers (D is node 0, X–C are 1–4).
    pub fn node(self) -> NodeId {
        NodeId(match self {
            Imp::X => 1,
            Imp::A => 2,
            Imp::B => 3,
            Imp::C => 4,
        })
    }
    /// Its letter, as the paper prints it.
    pub fn letter(self) -> char {
        match self {
            Imp::X => 'X',
            Imp::A => 'A',
            Imp::B => 'B',
            Imp::C => 'C',
        }
    }
    fn from_node(n: NodeId) -> Option<Imp> {
        [Imp::X, Imp::A, Imp::B, Imp::C]
            .into_iter()
            .find(|i| i.node() == n)
    }
    fn from_letter(c: &str) -> Option<Imp> {
        [Imp::X, Imp::A, Imp::B, Imp::C]
            .into_iter()
            .find(|i| c.len() == 1 && c.starts_with(i.letter()))
    }
}

/// The line between two IMPs of the example.
fn line(a: Imp, b: Imp) -> Option<LineId> {
    match (a.min(b), a.max(b)) {
        (Imp::X, Imp::A) => Some(LINE_XA),
        (Imp::A, Imp::B) => Some(LINE_AB),
        (Imp::B, Imp::C) => Some(LINE_BC),
        _ => None,
    }
}

/// Which of K&O's three tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Table {
    /// Table I: no loop prevention, every link every 640 ms.
    I,
    /// Table II: Table I's sequence with the 1974 line hold-down.
    II,
    /// Table III: the hold-down, with X→A and A→B twice as often as C→B and B→C.
    III,
}

impl Table {
    /// The three tables, in the paper's order.
    pub const ALL: [Table; 3] = [Table::I, Table::II, Table::III];

    /// Its number in Roman numerals, as the paper prints it.
    pub fn roman(self) -> &'static str {
        match self {
            Table::I => "I",
            Table::II => "II",
            Table::III => "III",
        }
    }

    /// The procedure the paper runs this table under.
    pub fn paper_variant(self) -> LoopPrevention {
        match self {
            Table::I => LoopPrevention::None,
            Table::II | Table::III => LoopPrevention::HoldDown1974,
        }
    }
}

/// A directed stream of routing messages.
#[derive(Clone, Copy, Debug)]
pub struct Link {
    /// The IMP that sends the messages.
    pub from: Imp,
    /// The IMP that receives them.
    pub to: Imp,
    /// The time between messages.
    pub period: SimDuration,
    /// When the first message is delivered, from the start of the run.
    pub phase: SimDuration,
}

/// Something from outside the line, applied just before a row's message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// X's estimate to D becomes `d + k` (k may be negative).
    XReports(i32),
    /// The output queue of `imp` towards `toward` now holds `packets`.
    Queue {
        /// The IMP whose queue it is.
        imp: Imp,
        /// The neighbour the queue's line leads to.
        toward: Imp,
        /// The number of packets waiting (1 delay unit each, K&O §III).
        packets: u32,
    },
}

/// A table's update sequence: the links, the scripted inputs by row, and the table's length.
#[derive(Clone, Debug)]
pub struct Sequence {
    /// The table the sequence reproduces.
    pub table: Table,
    /// The four directed links X→A, A→B, C→B and B→C, with their periods and phases.
    pub links: Vec<Link>,
    /// X's report during the warm-up (row 0), relative to d.
    pub x_initially: i32,
    /// The scripted inputs, each with the row it is applied before.
    pub inputs: Vec<(usize, Input)>,
    /// The last row the paper prints.
    pub rows: usize,
}

/// When row 1 happens: 16 periods of 640 ms after the start.
pub const ROW_1_AT: SimTime = SimTime::from_nanos(16 * 640_000_000);

fn link(from: Imp, to: Imp, period_ms: u64, phase_ms: u64) -> Link {
    Link {
        from,
        to,
        period: SimDuration::from_millis(period_ms),
        phase: SimDuration::from_millis(phase_ms),
    }
}

/// The update sequence of `table` (see the module doc for where each input comes from).
pub fn sequence(table: Table) -> Sequence {
    use Imp::*;
    let a_queue = |packets| Input::Queue {
        imp: A,
        toward: X,
        packets,
    };
    let c_queue = |packets| Input::Queue {
        imp: C,
        toward: B,
        packets,
    };
    match table {
        Table::I | Table::II => Sequence {
            table,
            links: vec![
                link(X, A, 640, 0),
                link(A, B, 640, 10),
                link(C, B, 640, 20),
                link(B, C, 640, 30),
            ],
            x_initially: -8,
            inputs: vec![
                (1, Input::XReports(-3)),
                (1, a_queue(4)),
                (4, c_queue(1)),
                (8, c_queue(0)),
            ],
            rows: 10,
        },
        Table::III => Sequence {
            table,
            links: vec![
                link(X, A, 320, 0),
                link(A, B, 320, 10),
                link(C, B, 640, 340),
                link(B, C, 640, 350),
            ],
            x_initially: -8,
            inputs: vec![
                (1, Input::XReports(-5)),
                (1, a_queue(2)),
                (3, Input::XReports(-3)),
                (3, a_queue(4)),
                (6, c_queue(1)),
            ],
            rows: 11,
        },
    }
}

/// One IMP's entry for D in the paper's notation: `d+5/4/X!`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// Estimate minus d (`None`: unreachable).
    pub estimate: Option<i64>,
    /// The local delay over the best delay line, units: 1 per waiting packet (the `4` of
    /// `d+5/4/X`).
    pub local: u32,
    /// The best delay neighbour (`None`: no route, printed `-`).
    pub best: Option<Imp>,
    /// Whether the line to the best neighbour is held down (printed `!`).
    pub held: bool,
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.estimate {
            None => f.write_str("∞")?,
            Some(0) => f.write_str("d")?,
            Some(k) if k > 0 => write!(f, "d+{k}")?,
            Some(k) => write!(f, "d-{}", -k)?,
        }
        let best = self.best.map_or('-', Imp::letter);
        write!(f, "/{}/{}", self.local, best)?;
        if self.held {
            f.write_str("!")?;
        }
        Ok(())
    }
}

/// The state after one routing message (or row 0).
#[derive(Clone, Debug)]
pub struct Row {
    /// The row's number: 0 for the initial state, then one per routing message.
    pub row: usize,
    /// When the row's routing message was delivered (row 0: [`ROW_1_AT`]).
    pub at: SimTime,
    /// `initially`, or `X→A`.
    pub routing: String,
    /// The IMP that received the row's routing message (`None` for row 0).
    pub receiver: Option<Imp>,
    /// IMPs A, B, C.
    pub cells: [Cell; 3],
    /// The forwarding loops towards D at this moment (e.g. `B→C→B`).
    pub loops: Vec<String>,
    /// Whether the paper prints this row (rows past the table continue the same schedule).
    pub in_paper: bool,
}

impl Row {
    /// The cell the paper prints for this row: all three for row 0, else the receiver's.
    pub fn printed(&self) -> String {
        match self.receiver {
            None => self
                .cells
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" "),
            Some(imp) => self.cell(imp).map(|c| c.to_string()).unwrap_or_default(),
        }
    }

    /// `imp`'s cell in this row (`None` for X, which has none).
    pub fn cell(&self, imp: Imp) -> Option<&Cell> {
        match imp {
            Imp::A => Some(&self.cells[0]),
            Imp::B => Some(&self.cells[1]),
            Imp::C => Some(&self.cells[2]),
            Imp::X => None,
        }
    }
}

/// The three routers and X's script.
struct Line {
    a: DistanceVector,
    b: DistanceVector,
    c: DistanceVector,
    x_reports: i32,
}

impl Line {
    fn new(params: RoutingParams, x_reports: i32) -> Line {
        let mk = |me: Imp, lines: &[Imp]| {
            let mut r = DistanceVector::new(me.node(), 5, params);
            for &n in lines {
                r.add_line(line(me, n).unwrap(), LineConfig::to(n.node()));
            }
            r
        };
        Line {
            a: mk(Imp::A, &[Imp::X, Imp::B]),
            b: mk(Imp::B, &[Imp::A, Imp::C]),
            c: mk(Imp::C, &[Imp::B]),
            x_reports,
        }
    }

    fn router(&mut self, imp: Imp) -> Option<&mut DistanceVector> {
        match imp {
            Imp::A => Some(&mut self.a),
            Imp::B => Some(&mut self.b),
            Imp::C => Some(&mut self.c),
            Imp::X => None,
        }
    }

    fn apply(&mut self, input: Input) {
        match input {
            Input::XReports(k) => self.x_reports = k,
            Input::Queue {
                imp,
                toward,
                packets,
            } => {
                if let (Some(l), Some(r)) = (line(imp, toward), self.router(imp)) {
                    r.set_queue_len(l, packets);
                }
            }
        }
    }

    /// X's routing message: its estimate to D, and itself at 0; one sequence number for D.
    fn x_message(&self) -> RoutingMessage {
        let inf = self.a.params().infinity;
        let mut entries = vec![
            Entry {
                estimate: inf,
                seqno: 0
            };
            5
        ];
        let d = (D_UNITS as i64 + self.x_reports as i64).max(0) as u32;
        entries[D.0 as usize] = Entry {
            estimate: Units(d),
            seqno: 1,
        };
        entries[Imp::X.node().0 as usize] = Entry {
            estimate: Units(0),
            seqno: 1,
        };
        RoutingMessage {
            from: Imp::X.node(),
            entries,
            link_state: Vec::new(),
            serial: 0,
        }
    }

    fn deliver(&mut self, now: SimTime, from: Imp, to: Imp) {
        let Some(l) = line(from, to) else { return };
        let msg = match from {
            Imp::X => Some(self.x_message()),
            _ => self.router(from).and_then(|r| r.routing_message(now, l)),
        };
        if let (Some(msg), Some(r)) = (msg, self.router(to)) {
            r.handle_routing_message(now, l, &msg);
        }
    }

    fn cell(r: &DistanceVector, now: SimTime) -> Cell {
        let v = r.route(now, D).expect("D is a node of the example");
        Cell {
            estimate: v.reachable.then(|| v.estimate.0 as i64 - D_UNITS as i64),
            local: v.local.0,
            best: v.best.and_then(|h| Imp::from_node(h.neighbour)),
            held: v.held_down,
        }
    }

    fn snapshot(
        &self,
        row: usize,
        at: SimTime,
        routing: String,
        receiver: Option<Imp>,
        in_paper: bool,
    ) -> Row {
        let routers: [&dyn Router; 3] = [&self.a, &self.b, &self.c];
        let loops = forwarding_loops_of(&routers, D)
            .into_iter()
            .map(|l| {
                let mut s: Vec<String> = l
                    .iter()
                    .map(|n| Imp::from_node(*n).map_or('?', Imp::letter).to_string())
                    .collect();
                s.push(s[0].clone());
                s.join("→")
            })
            .collect();
        Row {
            row,
            at,
            routing,
            receiver,
            cells: [
                Line::cell(&self.a, at),
                Line::cell(&self.b, at),
                Line::cell(&self.c, at),
            ],
            loops,
            in_paper,
        }
    }
}

/// The deliveries of `seq`'s links from time zero up to `until`, in time order (ties in the
/// order the links are listed).
fn deliveries(seq: &Sequence, until: SimTime) -> Vec<(SimTime, Imp, Imp)> {
    let mut v = Vec::new();
    for (i, l) in seq.links.iter().enumerate() {
        let mut t = SimTime::ZERO + l.phase;
        while t <= until {
            v.push((t, i, l.from, l.to));
            t += l.period;
        }
    }
    v.sort_by_key(|d| (d.0, d.1));
    v.into_iter().map(|(t, _, f, to)| (t, f, to)).collect()
}

/// Runs `seq` under `variant` with the default parameters: row 0, the paper's rows, and the
/// same schedule continued for `more` after the last of them.
pub fn run(seq: &Sequence, variant: LoopPrevention, more: SimDuration) -> Vec<Row> {
    run_with(seq, RoutingParams::with(variant), more)
}

/// [`run`] with any parameters.
pub fn run_with(seq: &Sequence, params: RoutingParams, more: SimDuration) -> Vec<Row> {
    let mut line = Line::new(params, seq.x_initially);
    // Enough deliveries to reach the table's last row, then `more`.
    let horizon = ROW_1_AT + SimDuration::from_secs(60) + more;
    let all = deliveries(seq, horizon);
    let mut rows = Vec::new();
    let mut row = 0usize;
    let mut last_paper_row_at = None;
    for (t, from, to) in all {
        if last_paper_row_at.is_some_and(|end| t > end + more) {
            break;
        }
        if t >= ROW_1_AT {
            if row == 0 {
                rows.push(line.snapshot(0, ROW_1_AT, "initially".into(), None, true));
            }
            row += 1;
            for (_, input) in seq.inputs.iter().filter(|(r, _)| *r == row) {
                line.apply(*input);
            }
        }
        line.deliver(t, from, to);
        if t >= ROW_1_AT {
            let label = format!("{}→{}", from.letter(), to.letter());
            rows.push(line.snapshot(row, t, label, Some(to), row <= seq.rows));
            if row == seq.rows {
                last_paper_row_at = Some(t);
            }
        }
    }
    rows
}

/// Whether the schedule's order of messages is the table's "Routing" column; the first row
/// that differs otherwise.
pub fn check_order(rows: &[Row], published: &PublishedTable) -> Result<(), String> {
    for p in &published.rows {
        let ours = rows
            .iter()
            .find(|r| r.row == p.row)
            .map(|r| r.routing.as_str());
        if ours != Some(p.routing.as_str()) {
            return Err(format!(
                "Table {} row {}: the schedule sends {:?}, the paper {}",
                published.table.roman(),
                p.row,
                ours,
                p.routing
            ));
        }
    }
    Ok(())
}

/// The rows in the paper's layout (only the receiving IMP's cell after row 0), with two
/// columns the paper does not have: the time since row 1 (ms) and the forwarding loops. Rows
/// past the paper's table are marked `+`.
pub fn render(title: &str, rows: &[Row]) -> String {
    let mut out = format!("{title}\n");
    out.push_str(&format!(
        "{:<4} {:>6} {:<10} {:<11} {:<11} {:<11} {}\n",
        "", "ms", "Routing", "IMP A", "IMP B", "IMP C", "loop"
    ));
    for r in rows {
        let mut cells = [String::new(), String::new(), String::new()];
        for (i, imp) in [Imp::A, Imp::B, Imp::C].into_iter().enumerate() {
            if r.receiver.is_none() || r.receiver == Some(imp) {
                cells[i] = r.cells[i].to_string();
            }
        }
        let idx = if r.in_paper {
            r.row.to_string()
        } else {
            format!("+{}", r.row)
        };
        let ms = (r.at - ROW_1_AT).as_nanos() / 1_000_000;
        let line = format!(
            "{:<4} {:>6} {:<10} {:<11} {:<11} {:<11} {}",
            idx,
            ms,
            r.routing,
            cells[0],
            cells[1],
            cells[2],
            r.loops.join(" ")
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The time a forwarding loop lasted: from the first row with a loop to the first row after it
/// without one (`None`: no loop; open-ended loops end at the last row).
pub fn loop_span(rows: &[Row]) -> Option<(SimTime, SimTime)> {
    let first = rows.iter().position(|r| !r.loops.is_empty())?;
    let end = rows[first..]
        .iter()
        .find(|r| r.loops.is_empty())
        .map_or(rows.last()?.at, |r| r.at);
    Some((rows[first].at, end))
}

// ---------------------------------------------------------------------------------------------
// The published tables.

/// One published row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublishedRow {
    /// The row's number, as printed.
    pub row: usize,
    /// The "Routing" column: `initially`, or the message's link (`X→A`).
    pub routing: String,
    /// IMPs A, B, C as printed (`None`: blank).
    pub cells: [Option<String>; 3],
}

impl PublishedRow {
    /// The printed text compared with [`Row::printed`].
    pub fn printed(&self) -> String {
        self.cells
            .iter()
            .flatten()
            .cloned()
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// One published table, transcribed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublishedTable {
    /// Which table.
    pub table: Table,
    /// Its rows in printed order, from row 0.
    pub rows: Vec<PublishedRow>,
}

/// A printed cell read otherwise, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Erratum {
    /// The table the cell is in.
    pub table: Table,
    /// The cell's row.
    pub row: usize,
    /// The IMP whose cell it is.
    pub imp: Imp,
    /// The cell as the paper prints it.
    pub printed: String,
    /// The reading a reproduction is compared with instead.
    pub reading: String,
    /// Why the printed cell is read otherwise.
    pub why: String,
}

/// Everything transcribed in [`PUBLISHED_TEXT`]: the three tables and the errata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Published {
    /// Tables I, II and III.
    pub tables: Vec<PublishedTable>,
    /// The printed cells read otherwise, with why.
    pub errata: Vec<Erratum>,
}

impl Published {
    /// The transcribed table `t`.
    pub fn table(&self, t: Table) -> &PublishedTable {
        self.tables
            .iter()
            .find(|p| p.table == t)
            .expect("all three tables are transcribed")
    }

    /// The erratum for a cell, if any.
    pub fn erratum(&self, t: Table, row: usize) -> Option<&Erratum> {
        self.errata.iter().find(|e| e.table == t && e.row == row)
    }

    /// What a reproduction of this row is compared with: as printed, or the erratum's reading.
    pub fn target(&self, t: Table, row: &PublishedRow) -> String {
        match self.erratum(t, row.row) {
            Some(e) => row.printed().replace(&e.printed, &e.reading),
            None => row.printed(),
        }
    }
}

/// Reads [`PUBLISHED_TEXT`].
pub fn published() -> Published {
    parse_published(PUBLISHED_TEXT).expect("the transcription parses")
}

/// Reads the transcription format (see the fixture's header).
pub fn parse_published(text: &str) -> Result<Published, String> {
    let mut tables: Vec<PublishedTable> = Vec::new();
    let mut errata = Vec::new();
    let table_of = |s: &str| match s {
        "I" => Some(Table::I),
        "II" => Some(Table::II),
        "III" => Some(Table::III),
        _ => None,
    };
    for (n, raw) in text.lines().enumerate() {
        let lineno = n + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        if words[0] == "TABLE" {
            let t = words
                .get(1)
                .and_then(|w| table_of(w))
                .ok_or(format!("line {lineno}: which table?"))?;
            tables.push(PublishedTable {
                table: t,
                rows: vec![],
            });
        } else if words[0] == "erratum" {
            let (head, why) = line
                .split_once(" -- ")
                .ok_or(format!("line {lineno}: erratum needs ` -- why`"))?;
            let w: Vec<&str> = head.split_whitespace().collect();
            if w.len() != 5 {
                return Err(format!(
                    "line {lineno}: erratum TABLE ROW IMP READING -- why"
                ));
            }
            let table = table_of(w[1]).ok_or(format!("line {lineno}: table {}", w[1]))?;
            let row: usize = w[2].parse().map_err(|_| format!("line {lineno}: row"))?;
            let imp = Imp::from_letter(w[3]).ok_or(format!("line {lineno}: IMP {}", w[3]))?;
            let printed = tables
                .iter()
                .find(|t| t.table == table)
                .and_then(|t| t.rows.iter().find(|r| r.row == row))
                .and_then(|r| match imp {
                    Imp::A => r.cells[0].clone(),
                    Imp::B => r.cells[1].clone(),
                    Imp::C => r.cells[2].clone(),
                    Imp::X => None,
                })
                .ok_or(format!("line {lineno}: no printed cell for the erratum"))?;
            errata.push(Erratum {
                table,
                row,
                imp,
                printed,
                reading: w[4].into(),
                why: why.trim().into(),
            });
        } else {
            let t = tables
                .last_mut()
                .ok_or(format!("line {lineno}: a row before any TABLE"))?;
            if words.len() != 5 {
                return Err(format!(
                    "line {lineno}: expected 5 columns, got {}",
                    words.len()
                ));
            }
            let row = words[0]
                .parse()
                .map_err(|_| format!("line {lineno}: row number {}", words[0]))?;
            let cell = |w: &str| (w != ".").then(|| w.to_string());
            t.rows.push(PublishedRow {
                row,
                routing: words[1].into(),
                cells: [cell(words[2]), cell(words[3]), cell(words[4])],
            });
        }
    }
    Ok(Published { tables, errata })
}
