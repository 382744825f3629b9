//! K&O 1977 §V, Tables I–III: the mechanism against the published tables.
//!
//! The published tables are `fixtures/ko1977_tables.txt` (a transcription of the seed); the
//! snapshots in `snapshots/` are our runs in the paper's layout, with a loop column added.

use nmc_routing::LoopPrevention;
use nmc_routing::ko1977::{Row, Table, check_order, loop_span, published, render, run, sequence};
use nmc_sim::SimDuration;

fn paper_run(t: Table) -> Vec<Row> {
    run(&sequence(t), t.paper_variant(), SimDuration::ZERO)
}

fn in_paper(rows: &[Row]) -> Vec<Row> {
    rows.iter().filter(|r| r.in_paper).cloned().collect()
}

#[test]
fn the_transcription_has_three_tables_and_one_erratum() {
    let p = published();
    let lens: Vec<usize> = p.tables.iter().map(|t| t.rows.len()).collect();
    assert_eq!(lens, vec![11, 11, 12]);
    assert_eq!(p.errata.len(), 1);
    let e = &p.errata[0];
    assert_eq!((e.table, e.row), (Table::I, 8));
    assert_eq!(
        (e.printed.as_str(), e.reading.as_str()),
        ("d+21/0/C", "d+21/0/B")
    );
}

#[test]
fn the_periods_give_the_tables_order_of_messages() {
    let p = published();
    for t in Table::ALL {
        check_order(&paper_run(t), p.table(t)).unwrap();
    }
}

/// KO-6: every row, exactly (Table I row 8 against the erratum's reading).
#[test]
fn every_published_row_comes_out_of_the_mechanism() {
    let p = published();
    let mut mismatches = Vec::new();
    for t in Table::ALL {
        let rows = paper_run(t);
        for pr in &p.table(t).rows {
            let ours = rows.iter().find(|r| r.row == pr.row).unwrap().printed();
            let target = p.target(t, pr);
            if ours != target {
                mismatches.push(format!(
                    "Table {} row {}: paper {target}, ours {ours}",
                    t.roman(),
                    pr.row
                ));
            }
        }
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}

#[test]
fn the_erratum_is_the_only_difference_from_the_printed_text() {
    let p = published();
    let mut differing = Vec::new();
    for t in Table::ALL {
        let rows = paper_run(t);
        for pr in &p.table(t).rows {
            let ours = rows.iter().find(|r| r.row == pr.row).unwrap().printed();
            if ours != pr.printed() {
                differing.push((t, pr.row, pr.printed(), ours));
            }
        }
    }
    assert_eq!(
        differing,
        vec![(Table::I, 8, "d+21/0/C".to_string(), "d+21/0/B".to_string())]
    );
}

#[test]
fn table_i_without_hold_down() {
    insta::assert_snapshot!(render(
        "TABLE I: no loop prevention (K&O 1977 §V)",
        &paper_run(Table::I)
    ));
}

#[test]
fn table_ii_with_the_1974_hold_down() {
    insta::assert_snapshot!(render(
        "TABLE II: the 1974 line hold-down (K&O 1977 §V)",
        &paper_run(Table::II)
    ));
}

#[test]
fn table_iii_with_the_1974_hold_down_and_two_message_frequencies() {
    insta::assert_snapshot!(render(
        "TABLE III: the 1974 line hold-down, A→B twice as often as C→B (K&O 1977 §V)",
        &paper_run(Table::III)
    ));
}

/// Past the paper's last row, with the same schedule: how long the loop trap lasts.
#[test]
fn table_iii_continued_the_loop_trap() {
    let rows = run(
        &sequence(Table::III),
        LoopPrevention::HoldDown1974,
        SimDuration::from_millis(2600),
    );
    insta::assert_snapshot!(render(
        "TABLE III continued (rows marked + are past the paper's table)",
        &rows
    ));
    // K&O §V: the B–C loop "cannot be removed for almost 2 s" once B holds C down (row 11).
    let (from, to) = loop_span(&rows).unwrap();
    let row11 = rows.iter().find(|r| r.row == 11).unwrap().at;
    assert_eq!(from, rows.iter().find(|r| r.row == 5).unwrap().at);
    let after_hold = to - row11;
    assert!(
        after_hold >= SimDuration::from_secs(2)
            && after_hold <= SimDuration::from_secs(2) + SimDuration::from_millis(320),
        "the loop ended {after_hold} after row 11"
    );
}

#[test]
fn two_runs_give_the_same_rows() {
    for t in Table::ALL {
        for v in LoopPrevention::ALL {
            let once = || render("", &run(&sequence(t), v, SimDuration::from_secs(4)));
            assert_eq!(once(), once());
        }
    }
}

#[test]
fn table_i_loop_lasts_640_to_1280_ms() {
    // K&O §V: "the loop persists for 640 to 1280 ms in this example".
    let rows = paper_run(Table::I);
    let (from, to) = loop_span(&rows).unwrap();
    let d = to - from;
    assert!(
        d >= SimDuration::from_millis(640) && d <= SimDuration::from_millis(1280),
        "{d}"
    );
}

#[test]
fn the_hold_downs_start_where_the_paper_marks_them() {
    // Table II: A at row 1 and B at row 2 "start holding down their line to the best delay
    // neighbor since their delay estimate gets worse by more than 8 delay units".
    let rows = paper_run(Table::II);
    let marked: Vec<(usize, String)> = rows
        .iter()
        .filter(|r| r.printed().ends_with('!'))
        .map(|r| (r.row, r.routing.clone()))
        .collect();
    assert_eq!(marked.first(), Some(&(1, "X→A".to_string())));
    assert_eq!(marked.len(), 10, "{marked:?}");
    assert!(rows.iter().all(|r| r.loops.is_empty()));
}

/// The comparison variants on the same sequences.
mod variants {
    use super::*;

    fn snap(t: Table, v: LoopPrevention) -> String {
        let rows = run(&sequence(t), v, SimDuration::from_millis(1300));
        render(
            &format!("Table {}'s sequence under {}", t.roman(), v.name()),
            &rows,
        )
    }

    #[test]
    fn table_iii_under_the_frequency_independent_criterion() {
        insta::assert_snapshot!(snap(Table::III, LoopPrevention::HoldDownWindow));
    }

    #[test]
    fn table_iii_under_feasible_successors() {
        insta::assert_snapshot!(snap(Table::III, LoopPrevention::FeasibleSuccessor));
    }

    #[test]
    fn table_i_under_feasible_successors() {
        insta::assert_snapshot!(snap(Table::I, LoopPrevention::FeasibleSuccessor));
    }

    #[test]
    fn the_frequency_independent_criterion_keeps_table_ii_and_prevents_table_iii_loop() {
        let ii = |v| {
            in_paper(&run(&sequence(Table::II), v, SimDuration::ZERO))
                .iter()
                .map(Row::printed)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            ii(LoopPrevention::HoldDownWindow),
            ii(LoopPrevention::HoldDown1974)
        );
        let rows = run(
            &sequence(Table::III),
            LoopPrevention::HoldDownWindow,
            SimDuration::from_secs(5),
        );
        assert_eq!(loop_span(&rows), None);
    }

    #[test]
    fn feasible_successors_never_loop_on_any_sequence() {
        for t in Table::ALL {
            let rows = run(
                &sequence(t),
                LoopPrevention::FeasibleSuccessor,
                SimDuration::from_secs(30),
            );
            assert!(rows.len() > 50);
            for r in &rows {
                assert!(
                    r.loops.is_empty(),
                    "Table {} row {}: {:?}",
                    t.roman(),
                    r.row,
                    r.loops
                );
                for c in &r.cells {
                    assert!(c.estimate.is_some(), "D stays reachable");
                }
            }
        }
    }

    #[test]
    fn without_loop_prevention_every_sequence_loops() {
        for t in Table::ALL {
            let rows = run(&sequence(t), LoopPrevention::None, SimDuration::ZERO);
            assert!(loop_span(&rows).is_some(), "Table {}", t.roman());
        }
    }
}
