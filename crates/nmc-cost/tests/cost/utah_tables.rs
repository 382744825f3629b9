//! The Utah-10 tables as RFC 392 prints them: the transcription, its parser's errors, and the
//! rows whose columns disagree with each other.

use nmc_cost::data::{self, DataError, Dir, UTAH10_CSV, consistency, parse, utah10};

#[test]
fn both_tables_are_there_in_printed_order() {
    let rows = utah10();
    assert_eq!(rows.iter().filter(|t| t.table == 1).count(), 30);
    assert_eq!(rows.iter().filter(|t| t.table == 2).count(), 47);
    // Table 1, first row:   14    11.61    18930 s    10152.175    76.67    3.74
    let t = &rows[0];
    assert_eq!(
        (
            t.clock_s,
            t.cpu_s,
            t.bytes,
            t.dir,
            t.bits_per_s,
            t.us_per_bit,
            t.load
        ),
        (14, 11.61, 18930, Dir::Send, 10152.175, 76.67, 3.74)
    );
    // Table 2, row 30 (the largest):   19:57   295.16   473489 s   3162.399   77.92   1.85
    let t = rows.iter().find(|t| t.table == 2 && t.row == 30).unwrap();
    assert_eq!(
        (t.clock_s, t.cpu_s, t.bytes, t.dir, t.us_per_bit),
        (19 * 60 + 57, 295.16, 473_489, Dir::Send, 77.92)
    );
    // Table 1, row 16 is printed with three decimals: 01:34   13.287   19562 r.
    let t = rows.iter().find(|t| t.table == 1 && t.row == 16).unwrap();
    assert_eq!((t.cpu_s, t.cpu_decimals, t.dir), (13.287, 3, Dir::Receive));
}

#[test]
fn the_short_transfers_are_the_papers_127_to_180() {
    let short: Vec<_> = utah10().into_iter().filter(|t| t.bytes < 900).collect();
    let us: Vec<f64> = short.iter().map(|t| t.us_per_bit).collect();
    assert_eq!(us, vec![135.80, 134.12, 179.18, 127.28, 128.96]);
}

#[test]
fn rows_whose_columns_disagree() {
    // Clock time against bits/s (column 1 truncated to whole seconds), CPU against µs/bit at the
    // printed rounding: exactly these rows of the tables disagree.
    let bad: Vec<String> = consistency(&utah10())
        .iter()
        .filter(|c| !c.clock_agrees || !c.cpu_agrees)
        .map(|c| {
            format!(
                "T{} R{} clock {} cpu {}",
                c.table, c.row, c.clock_agrees, c.cpu_agrees
            )
        })
        .collect();
    assert_eq!(
        bad,
        vec![
            "T1 R16 clock true cpu false",
            "T1 R20 clock true cpu false",
            "T2 R33 clock false cpu true",
        ]
    );
}

fn err(text: &str) -> DataError {
    parse("t.csv", text).unwrap_err()
}

const HEAD: &str = "table,row,clk,cpu_s,bytes,dir,bits_per_s,us_per_bit,load\n";

#[test]
fn a_truncated_row_is_an_error_naming_it() {
    let e = err(&format!(
        "{HEAD}1,1,14,11.61,18930,s,10152.175,76.67,3.74\n1,2,02:56,37.89,59066\n"
    ));
    assert_eq!(
        e.to_string(),
        "t.csv: line 3 (table 1 row 2): 5 fields, expected 9 (table,row,clk,cpu_s,bytes,dir,bits_per_s,us_per_bit,load): the row is malformed or truncated"
    );
}

#[test]
fn malformed_fields_are_errors_naming_row_and_field() {
    let cases = [
        (
            "1,1,14,11.6x,18930,s,10152.175,76.67,3.74",
            "field `cpu_s` = `11.6x`",
        ),
        (
            "1,1,14,11.61,18930,x,10152.175,76.67,3.74",
            "field `dir` = `x`",
        ),
        (
            "1,1,1:4:2,11.61,18930,s,10152.175,76.67,3.74",
            "field `clk` = `1:4:2`",
        ),
        (
            "1,1,02:75,11.61,18930,s,10152.175,76.67,3.74",
            "field `clk` = `02:75`",
        ),
        (
            "1,1,14,11.61,0,s,10152.175,76.67,3.74",
            "field `bytes` = `0`",
        ),
        (
            "3,1,14,11.61,18930,s,10152.175,76.67,3.74",
            "field `table` = `3`",
        ),
        (
            "1,1,14,11.61,18930,s,10152.175,-76.67,3.74",
            "field `us_per_bit` = `-76.67`",
        ),
        (
            "1,1,14,11.61,18930,s,10152.175,76.67,NaN",
            "field `load` = `NaN`",
        ),
    ];
    for (row, what) in cases {
        let e = err(&format!("{HEAD}{row}\n"));
        assert!(
            e.to_string().starts_with(&format!(
                "t.csv: line 2 (table {} row 1): {what}",
                &row[..1]
            )),
            "{row}: {e}"
        );
    }
}

#[test]
fn a_missing_or_repeated_row_is_an_error() {
    let r1 = "1,1,14,11.61,18930,s,10152.175,76.67,3.74";
    let r3 = "1,3,14,11.61,18930,s,10152.175,76.67,3.74";
    let e = err(&format!("{HEAD}{r1}\n{r3}\n"));
    assert!(e.what.contains("expected row 2 of table 1"), "{e}");
    let e = err(&format!("{HEAD}{r1}\n{r1}\n"));
    assert!(e.what.contains("expected row 2 of table 1"), "{e}");
}

#[test]
fn no_header_or_no_rows_is_an_error() {
    assert!(
        err("1,1,14,11.61,18930,s,10152.175,76.67,3.74\n")
            .what
            .contains("expected the header")
    );
    assert!(err("# only a comment\n").what.contains("no header"));
    assert!(err(HEAD).what.contains("no rows"));
}

#[test]
fn the_compiled_transcription_names_its_source() {
    assert!(UTAH10_CSV.starts_with("# RFC 392"));
    assert_eq!(data::UTAH10_NAME, "rfc392-utah10.csv");
}
