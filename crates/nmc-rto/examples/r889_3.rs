//! Prints row R889-3 (Mills vs RSRE efficiency on the synthetic RFC 889 paths).
//! `cargo run -p nmc-rto --example r889_3 -- [SEED] [RUNS]`
use nmc_rto::eval::Charge;
use nmc_rto::r889::{Shaping, published, r889_3};

fn main() {
    let mut args = std::env::args().skip(1);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let runs: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(20);
    let charge = Charge::default();
    println!("# {}", charge.describe());
    for shaping in [Shaping::Calibrated, Shaping::Judgement] {
        println!("# {shaping:?} shapes; seed {seed}, {runs} runs of 512 volleys per path");
        println!(
            "{:<5} {:>6} {:>6} {:>7} {:>6} {:>5} {:>5} {:>11} {:>11} {:>5} {:>9}  claim",
            "path",
            "Mills",
            "RSRE",
            "gain%",
            "meanms",
            "CoV",
            "lost",
            "MillsRTX",
            "paperRTX",
            "RSRE",
            "calm/k"
        );
        for r in r889_3(seed, runs, &charge, shaping, &|_| {}).expect("presets fit") {
            let p = published(r.host).unwrap();
            println!(
                "{:<5} {:>6.3} {:>6.3} {:>+7.2} {:>6.0} {:>5.2} {:>5.1} {:>5.1}/{:>5.1}s {:>4}/{:>5.1}s {:>5.1} {:>5}/{:<3}  {:+}±{} {}",
                r.host,
                r.eff_mills,
                r.eff_rsre,
                r.gain_pct,
                r.mean_ms,
                r.cov,
                r.lost_per_run,
                r.mills_rtx_per_run,
                r.mills_rtx_time_per_run,
                p.rtx,
                p.rtx_time,
                r.rsre_rtx_per_run,
                r.shape.calm_mean,
                r.shape.excess_over_mean,
                r.claim.gain_pct,
                r.claim.tolerance_pct,
                if r.within() { "within" } else { "OUTSIDE" }
            );
        }
    }
}
