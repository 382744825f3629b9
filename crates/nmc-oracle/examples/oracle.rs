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
    match nmc_oracle::cli::run(cli.cmd) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("nmc oracle: {e:#}");
            std::process::exit(2);
        }
    }
}
