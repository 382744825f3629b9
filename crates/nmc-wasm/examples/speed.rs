//! The native half of `bench/wasm-speed.sh`: one shipped scenario run through
//! `nmc_wasm::summary` (the function the wasm build wraps), timed, as events per second.
//!
//! `cargo run --release -p nmc-wasm --example speed -- NAME SEED [KEY=VALUE ...]`

use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, seed, sets @ ..] = args.as_slice() else {
        anyhow::bail!("usage: speed NAME SEED [KEY=VALUE ...]");
    };
    let text = nmc_run::builtin::find(name)
        .ok_or_else(|| anyhow::anyhow!("no built-in scenario `{name}`"))?;
    let t0 = Instant::now();
    let summary = nmc_wasm::summary(name, text, Some(seed.parse()?), &sets.join("\n"), &|_| {})?;
    let wall = t0.elapsed().as_secs_f64();
    if let Ok(path) = std::env::var("NATIVE_SUMMARY") {
        std::fs::write(path, &summary)?;
    }
    let v: serde_json::Value = serde_json::from_str(&summary)?;
    let events = v["metrics"]["events"].as_f64().unwrap_or(f64::NAN);
    println!(
        "native  {name}: {events} events in {wall:.3} s = {:.3e} events/s",
        events / wall
    );
    Ok(())
}
