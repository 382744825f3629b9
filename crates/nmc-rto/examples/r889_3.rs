//! Prints row R889-3 (Mills vs RSRE efficiency on the synthetic RFC 889 paths).
//! `cargo run -p nmc-rto --example r889_3 -- [SEED] [RUNS]`
use nmc_rto::eval::Charge;
use nmc_rto::r889::r889_3;

fn main() {
    let mut args = std::env::args().skip(1);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1983);
    let runs: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(20);
    let charge = Charge::default();
    println!("# {}", charge.describe());
    println!("# seed {seed}, {runs} runs of 512 volleys per path");
    println!(
        "{:<6} {:>8} {:>8} {:>8} {:>8} {:>7} {:>6} {:>6}  claim",
        "path", "Mills", "RSRE", "gain %", "mean ms", "CoV", "lost", "paper"
    );
    for r in r889_3(seed, runs, &charge).expect("presets fit") {
        println!(
            "{:<6} {:>8.4} {:>8.4} {:>+8.2} {:>8.0} {:>7.2} {:>6.1} {:>6.2}  {:+} ± {} ({}) {}",
            r.host,
            r.eff_mills,
            r.eff_rsre,
            r.gain_pct,
            r.mean_ms,
            r.cov,
            r.lost_per_run,
            r.published_eff,
            r.claim.gain_pct,
            r.claim.tolerance_pct,
            r.claim.words,
            if r.within() { "within" } else { "OUTSIDE" }
        );
    }
}
