//! Runs spread over cores give the same bytes as runs on one: ko-v2-throughput's files and rows
//! with a pool of one thread and of two.

use nmc_experiments::{Context, find};

fn run_with_threads(threads: usize, out: &std::path::Path) -> (String, Vec<u8>) {
    let e = find("ko-v2-throughput").expect("registered");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let rows = pool.install(|| {
        let progress = |_: f64| {};
        let mut ctx = Context::new(e, 3, true, out.to_path_buf(), &progress);
        e.run(&mut ctx).unwrap();
        serde_json::to_string(&ctx.section.checks).unwrap()
    });
    let curve = std::fs::read(out.join("ko-v2-throughput/curve.csv")).unwrap();
    (rows, curve)
}

#[test]
fn same_bytes_on_one_thread_and_two() {
    let base = std::env::temp_dir().join(format!("nmc-parallel-{}", std::process::id()));
    let one = run_with_threads(1, &base.join("one"));
    let two = run_with_threads(2, &base.join("two"));
    assert!(one.1.len() > 1000);
    assert_eq!(one, two);
    let _ = std::fs::remove_dir_all(&base);
}
