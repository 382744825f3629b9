//! RFC 632 Tables 1 and 2 as nmc prints them (issue 5): snapshots that read like the paper, and
//! the columns checked against the transcribed tables.

use nmc_experiments::experiments::rfc632_trace::{
    TABLE1_DESTINATION, TABLE1_SOURCE, TABLE2_DESTINATION, TABLE2_SOURCE, paper_window, table,
    trace_run,
};
use nmc_imp::e2e::columns;

/// Table 1, "Retransmission Pattern for the Current Flow Control Scheme": message i+1 overtakes
/// message i, and from then on every message is sent twice.
#[test]
fn table_1_current_rule() {
    let o = trace_run("rfc632-current", 1).unwrap();
    let (i, w) = paper_window(&o).unwrap();
    let (src, dst) = columns(&w, i, false);
    assert_eq!(src[..TABLE1_SOURCE.len()], TABLE1_SOURCE);
    assert_eq!(dst[..TABLE1_DESTINATION.len()], TABLE1_DESTINATION);
    insta::assert_snapshot!(table(&o, false, 46).unwrap());
}

/// Table 2, "Sequence of Events for Modified Flow Control Scheme" (fix A): only message i+1 is
/// sent again.
#[test]
fn table_2_fix_a() {
    let o = trace_run("rfc632-fix-a", 1).unwrap();
    let (i, w) = paper_window(&o).unwrap();
    let (src, dst) = columns(&w, i, true);
    assert_eq!(src[..TABLE2_SOURCE.len()], TABLE2_SOURCE);
    assert_eq!(dst[..TABLE2_DESTINATION.len()], TABLE2_DESTINATION);
    insta::assert_snapshot!(table(&o, true, 22).unwrap());
    let again: u32 = o.messages.iter().map(|m| m.retransmissions).sum();
    assert_eq!(
        again, 2,
        "i+1 at the first overtaking, and the second overtaking's"
    );
}
