//! RFC 508 Table I as data: the 176 thirty-second tests and the three long tests.
//!
//! Source: Pfeifer & McAfee, RFC 508 (UCSB, 7 May 1973), §VI and Table I (pp. 7–9). The seed
//! text has the table flattened onto one line; it is rebuilt here cell by cell. Each cell holds
//! the time of day the test ran, the buffers sent, and, for the seven tests that had gaps, the
//! gap table in the paper's KEY (max., avg., min. gap time, number of gaps).
//!
//! Reading notes, where the printed table needs a decision:
//! * Columns. The headings print 4023 and 8048 bits where 4 and 8 packets would be 4032 and
//!   8064 bits. We keep the printed values as the buffer sizes (a buffer holds what was printed;
//!   4023 is still four packets, 8048 fits under the 8063-bit message limit that 8064 would
//!   exceed). [`PACKETS`] gives the packet count of each column.
//! * Dates. The footer puts columns 1008 and 2016 on 2/7/73 a.m., 3024–5040 on 2/6/73 a.m. and
//!   6048–8048 on 2/5/73 p.m.; the times of day run in sequence within those groups
//!   (2/6: 5040 at 10:12–10:33, 4023 at 10:34–11:33, 3024 at 11:34–11:57).
//! * Times are printed as on the page (12-hour clock, a.m./p.m. from the column's date);
//!   "7:55" for 8400 bit/s, 2016 bits, sits between 9:54 and 9:56 and is kept as printed.
//! * Gaps. The gap entries sit in the 2016 column at 6000, 9600, 10800, 13200 and 16800 bit/s,
//!   in the 8048 column at 21600 bit/s and in the 5040 column at 25200 bit/s (counted from the
//!   cell borders of the flattened rows). A one-gap cell prints only one duration; a two-gap cell
//!   prints max, avg, min.
//! * Long tests (§VI and the box under the table): 5 min on 2/5 at 2:20 p.m., 4669 buffers;
//!   8 min on 2/6 at 11:58 a.m. (the box says 11:53), 7141 buffers; 18 min on 2/7 at 11:53
//!   a.m., 16071 buffers (the box says "10 min." but 16071 buffers of 2016 bits at 30000 bit/s
//!   is 18.0 min, as §VI says). All at 30000 bit/s with 2016-bit buffers, no gaps.

use serde::Serialize;

/// Process bit rates of the rows, bit/s (RFC 508 Table I, left column).
pub const RATES: [u64; 22] = [
    5300, 6000, 7200, 8400, 9600, 10800, 12000, 13200, 14400, 15600, 16800, 18000, 19200, 20400,
    21600, 22800, 24000, 25200, 26400, 27600, 28800, 30000,
];

/// Buffer sizes of the columns, bits, as printed (RFC 508 Table I heading).
pub const BUFFERS: [u64; 8] = [1008, 2016, 3024, 4023, 5040, 6048, 7056, 8048];

/// Network packets per buffer, for each column (RFC 508 §IV: "1 to 8 network packets").
pub const PACKETS: [u32; 8] = [1, 2, 3, 4, 5, 6, 7, 8];

/// The day each column ran (the footer of Table I).
pub const DAYS: [Day; 8] = [
    Day::Feb7Am,
    Day::Feb7Am,
    Day::Feb6Am,
    Day::Feb6Am,
    Day::Feb6Am,
    Day::Feb5Pm,
    Day::Feb5Pm,
    Day::Feb5Pm,
];

/// The session a column of Table I was measured in (the table's footer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Day {
    /// 2/5/73, afternoon.
    Feb5Pm,
    /// 2/6/73, morning.
    Feb6Am,
    /// 2/7/73, morning: "the Electrical Engineering On-Line classroom (16 interactive graphics
    /// terminals) was in full use that day until 10:00 A.M." (§VI).
    Feb7Am,
}

impl Day {
    /// The date as the table prints it (`2/5/73 p.m.`).
    pub fn label(self) -> &'static str {
        match self {
            Day::Feb5Pm => "2/5/73 p.m.",
            Day::Feb6Am => "2/6/73 a.m.",
            Day::Feb7Am => "2/7/73 a.m.",
        }
    }
}

/// The gap table of one test, in RFC 508's KEY (durations in ms).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PublishedGaps {
    /// Number of gaps.
    pub count: u32,
    /// Longest gap, ms.
    pub max_ms: f64,
    /// Mean gap, ms (the one gap's duration for a one-gap cell).
    pub avg_ms: f64,
    /// Shortest gap, ms (the one gap's duration for a one-gap cell).
    pub min_ms: f64,
}

/// One 30-second test of Table I.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Cell {
    /// The row's process bit rate, bit/s.
    pub rate_bps: u64,
    /// The column's buffer size, bits, as printed.
    pub buffer_bits: u64,
    /// The session the column was measured in.
    pub day: Day,
    /// Time of day as printed ("11:31"), 12-hour clock.
    pub time: &'static str,
    /// Buffers the SEL sent in the test, as printed.
    pub buffers_sent: u64,
    /// The gap KEY, for the seven tests that had gaps.
    pub gaps: Option<PublishedGaps>,
}

impl Cell {
    /// Minutes after midnight (a.m./p.m. from the column's date; 12:xx p.m. is noon).
    pub fn minutes(&self) -> u32 {
        let (h, m) = self.time.split_once(':').expect("h:mm");
        let (h, m): (u32, u32) = (h.parse().expect("hour"), m.parse().expect("minute"));
        let h = match self.day {
            Day::Feb5Pm if h < 12 => h + 12,
            _ => h,
        };
        h * 60 + m
    }
}

const TIMES: [[&str; 8]; 22] = [
    [
        "11:31", "9:51", "11:34", "10:34", "10:12", "1:59", "1:37", "12:32",
    ],
    [
        "11:32", "9:52", "11:40", "10:35", "10:13", "2:00", "1:38", "12:36",
    ],
    [
        "11:33", "9:54", "11:41", "10:36", "10:14", "2:01", "1:39", "12:37",
    ],
    [
        "11:34", "7:55", "11:42", "10:37", "10:14", "2:02", "1:40", "12:38",
    ],
    [
        "11:35", "9:56", "11:43", "10:38", "10:15", "2:03", "1:41", "12:39",
    ],
    [
        "11:36", "9:57", "11:44", "10:39", "10:16", "2:04", "1:42", "12:40",
    ],
    [
        "11:37", "9:58", "11:45", "10:44", "10:17", "2:05", "1:43", "12:41",
    ],
    [
        "11:38", "9:59", "11:46", "10:45", "10:18", "2:06", "1:44", "12:49",
    ],
    [
        "11:39", "10:45", "11:46", "10:46", "10:18", "2:07", "1:45", "12:50",
    ],
    [
        "11:39", "10:46", "11:47", "10:47", "10:19", "2:08", "1:46", "12:51",
    ],
    [
        "11:40", "11:15", "11:43", "10:48", "10:20", "2:09", "1:47", "12:52",
    ],
    [
        "11:41", "11:17", "11:48", "10:49", "10:21", "2:10", "1:48", "1:00",
    ],
    [
        "11:42", "11:18", "11:49", "10:50", "10:22", "2:11", "1:49", "1:20",
    ],
    [
        "11:42", "11:19", "11:50", "10:51", "10:23", "2:12", "1:50", "1:21",
    ],
    [
        "11:43", "11:20", "11:51", "10:52", "10:24", "2:13", "1:51", "1:22",
    ],
    [
        "11:44", "11:21", "11:51", "10:53", "10:25", "2:14", "1:52", "1:27",
    ],
    [
        "11:44", "11:22", "11:52", "10:54", "10:26", "2:15", "1:53", "1:29",
    ],
    [
        "11:45", "11:23", "11:53", "10:55", "10:27", "2:16", "1:54", "1:30",
    ],
    [
        "11:46", "11:24", "11:54", "10:56", "10:30", "2:17", "1:55", "1:31",
    ],
    [
        "11:47", "11:27", "11:55", "10:57", "10:31", "2:18", "1:56", "1:32",
    ],
    [
        "11:48", "11:28", "11:56", "11:30", "10:32", "2:19", "1:57", "1:33",
    ],
    [
        "11:49", "11:30", "11:57", "11:33", "10:33", "2:20", "1:58", "1:34",
    ],
];

const SENT: [[u64; 8]; 22] = [
    [158, 81, 45, 41, 33, 28, 24, 21],
    [180, 89, 61, 46, 37, 31, 27, 23],
    [216, 109, 72, 54, 44, 37, 33, 23],
    [245, 126, 82, 63, 51, 42, 37, 32],
    [287, 83, 99, 73, 58, 49, 42, 36],
    [318, 138, 109, 81, 65, 56, 47, 42],
    [358, 180, 119, 91, 73, 61, 52, 46],
    [396, 188, 132, 101, 80, 67, 57, 49],
    [428, 213, 141, 107, 88, 73, 62, 56],
    [467, 232, 156, 117, 94, 79, 67, 59],
    [503, 243, 168, 127, 100, 85, 72, 63],
    [535, 266, 179, 136, 107, 90, 76, 68],
    [573, 285, 191, 144, 114, 98, 82, 73],
    [610, 303, 202, 153, 123, 103, 87, 75],
    [643, 327, 213, 162, 130, 108, 94, 81],
    [687, 344, 223, 173, 138, 113, 99, 86],
    [712, 352, 240, 180, 143, 122, 103, 93],
    [741, 375, 252, 193, 146, 126, 109, 96],
    [786, 395, 264, 203, 160, 131, 113, 100],
    [819, 410, 276, 213, 167, 140, 119, 104],
    [856, 429, 287, 217, 171, 145, 125, 110],
    [896, 447, 299, 224, 180, 151, 129, 112],
];

/// The seven tests with gaps: (rate, buffer, gaps), as printed.
const GAPS: [(u64, u64, PublishedGaps); 7] = [
    (6000, 2016, g(1, 174.0, 174.0, 174.0)),
    (9600, 2016, g(1, 8000.0, 8000.0, 8000.0)),
    (10800, 2016, g(2, 3000.0, 1500.0, 100.0)),
    (13200, 2016, g(2, 438.0, 269.0, 100.0)),
    (16800, 2016, g(3, 190.0, 128.0, 29.0)),
    (21600, 8048, g(10, 98.0, 30.0, 5.0)),
    (25200, 5040, g(13, 149.0, 70.0, 2.0)),
];

const fn g(count: u32, max_ms: f64, avg_ms: f64, min_ms: f64) -> PublishedGaps {
    PublishedGaps {
        count,
        max_ms,
        avg_ms,
        min_ms,
    }
}

/// All 176 cells, row by row (rates) and column by column (buffer sizes).
pub fn cells() -> Vec<Cell> {
    let mut out = Vec::with_capacity(176);
    for (r, &rate) in RATES.iter().enumerate() {
        for (c, &bits) in BUFFERS.iter().enumerate() {
            let gaps = GAPS
                .iter()
                .find(|(gr, gb, _)| *gr == rate && *gb == bits)
                .map(|x| x.2);
            out.push(Cell {
                rate_bps: rate,
                buffer_bits: bits,
                day: DAYS[c],
                time: TIMES[r][c],
                buffers_sent: SENT[r][c],
                gaps,
            });
        }
    }
    out
}

/// One of the three long tests (RFC 508 §VI).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct LongTest {
    /// The date, as printed (`2/5/73`).
    pub date: &'static str,
    /// The time it started, as §VI gives it (`2:20 p.m.`).
    pub time: &'static str,
    /// Its length, minutes.
    pub minutes: u64,
    /// The process bit rate, bit/s.
    pub rate_bps: u64,
    /// The buffer size, bits.
    pub buffer_bits: u64,
    /// Buffers sent.
    pub buffers_sent: u64,
    /// Number of gaps.
    pub gaps: u32,
}

/// The three long tests of §VI, all at 30000 bit/s with 2016-bit buffers and no gaps (see the
/// module doc for the times and lengths read).
pub const LONG_TESTS: [LongTest; 3] = [
    LongTest {
        date: "2/5/73",
        time: "2:20 p.m.",
        minutes: 5,
        rate_bps: 30000,
        buffer_bits: 2016,
        buffers_sent: 4669,
        gaps: 0,
    },
    LongTest {
        date: "2/6/73",
        time: "11:58 a.m.",
        minutes: 8,
        rate_bps: 30000,
        buffer_bits: 2016,
        buffers_sent: 7141,
        gaps: 0,
    },
    LongTest {
        date: "2/7/73",
        time: "11:53 a.m.",
        minutes: 18,
        rate_bps: 30000,
        buffer_bits: 2016,
        buffers_sent: 16071,
        gaps: 0,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_176_cells_and_seven_with_gaps() {
        let c = cells();
        assert_eq!(c.len(), 176);
        assert_eq!(c.iter().filter(|c| c.gaps.is_some()).count(), 7);
        // §VI: "the longest gap which occurred was 8 seconds".
        let longest = c.iter().filter_map(|c| c.gaps).map(|g| g.max_ms);
        assert_eq!(longest.fold(0.0, f64::max), 8000.0);
        // §VI: four failures on 2/7 between 9:52 and 9:59 (the 8 s one and "three other").
        let early = c
            .iter()
            .filter(|c| c.gaps.is_some() && c.day == Day::Feb7Am && c.minutes() < 600)
            .count();
        assert_eq!(early, 4);
    }

    #[test]
    fn a_gap_free_cell_is_close_to_rate_times_30_over_bits() {
        // The paper's own consistency (30000 bit/s, 1008 bits: 892.9 expected, 896 printed).
        let c = cells();
        let off: Vec<_> = c
            .iter()
            .filter(|c| c.gaps.is_none())
            .filter(|c| {
                let e = c.rate_bps as f64 * 30.0 / c.buffer_bits as f64;
                (c.buffers_sent as f64 - e).abs() > 0.10 * e
            })
            .map(|c| (c.rate_bps, c.buffer_bits, c.buffers_sent))
            .collect();
        // Two gap-free cells are more than 10 % off: 5300 bit/s with 3024 bits prints 45
        // where 52.6 is expected, and 7200 bit/s with 8048 bits prints 23 (26.8 expected; it
        // repeats the cell above). Kept as printed.
        assert_eq!(off, vec![(5300, 3024, 45), (7200, 8048, 23)]);
    }
}
