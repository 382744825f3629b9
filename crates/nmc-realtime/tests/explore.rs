use nmc_realtime::{experiment, params::Params, table1};
#[test]
#[ignore]
fn explore() {
    let p = Params::default();
    let sets = experiment::Sets::new(&p, 508).unwrap();
    let cells = table1::cells();
    let res = experiment::run_cells(&p, &sets, &cells, &|_| 0, 508, 9, 0);
    for (c, r) in cells.iter().zip(&res) {
        if r.gaps.count() > 0 || (r.buffers_sent as f64 - c.buffers_sent as f64).abs() > 0.03 * c.buffers_sent as f64 {
            eprintln!("{} {} pub {} ours {} gaps {} max {:?} msgbits {:.0}", c.rate_bps, c.buffer_bits, c.buffers_sent, r.buffers_sent, r.gaps.count(), r.gaps.max_ms(), r.mean_message_bits);
        }
    }
    for (i, s) in sets.0.iter().enumerate() { eprintln!("col {i} rfnm1 {:.1}", s.one_buffer_rfnm_ms()); }
    let t = std::time::Instant::now();
    let f = experiment::fit(&p, &sets, 508, 2);
    eprintln!("fit {:?} in {:?}", f, t.elapsed());
}
