//! `nmc oracle` without building the whole `nmc` binary (for working on this crate):
//! `cargo run -p nmc-oracle --example oracle -- chain --simh … --out …`.
use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: nmc_oracle::cli::OracleCommand,
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = nmc_oracle::cli::run(cli.cmd) {
        eprintln!("nmc oracle: {e:#}");
        std::process::exit(1);
    }
}
