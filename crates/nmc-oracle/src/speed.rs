//! The emulator's speed (issue 73 §4: "speed in a benchmark, not a test"): instructions per
//! wall second and the real-time factor (simulated seconds per wall second) of whole networks
//! of emulated IMPs running BBN's program, `nmc oracle bench`.
//!
//! Each network is built as the replays build theirs ([`crate::emulate::imp_config`]: the
//! modems its lines use at their speeds, host interface 1 fitted, the listing's 100 µs clock)
//! and run in [`nmc_h316::subnet::Subnet`]'s lockstep windows with its trace off, with no host
//! traffic: the program brings its lines up and then exchanges routing messages on every line. Two phases are timed apart: **start-up** (simulated 0 to
//! [`STARTUP_NS`]) and **idle** (the next `idle` seconds). Nothing here is asserted: the
//! numbers depend on the machine, and are recorded in the book's performance page.

use std::time::Instant;

use anyhow::{Result, bail};
use nmc_h316::Image;
use nmc_h316::subnet::{Line as SubnetLine, Subnet};

use crate::run::{Network, Settings};

/// Start-up, simulated: the program has its lines up and its hosts greeted by about 90.3 s and
/// answers a message across a 9-hop chain from 97.1–97.2 s (`data/oracle/emulated/README.md`);
/// 100 s is past both.
pub const STARTUP_NS: u64 = 100_000_000_000;

/// One timed phase of one network.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SpeedRow {
    /// The network's name.
    pub network: String,
    /// `start-up` or `idle`.
    pub phase: String,
    /// IMPs emulated.
    pub imps: usize,
    /// Lines between them.
    pub lines: usize,
    /// Simulated seconds the phase covers.
    pub simulated_s: f64,
    /// Wall seconds it took.
    pub wall_s: f64,
    /// Instructions executed, all IMPs.
    pub instructions: u64,
    /// Frames put on lines, all IMPs.
    pub frames: u64,
    /// Instructions per wall second, all IMPs together.
    pub instructions_per_s: f64,
    /// Simulated seconds per wall second of the whole network (> 1: faster than real time).
    pub real_time_factor: f64,
    /// Emulated IMP-seconds per wall second (the real-time factor times the IMPs).
    pub imp_seconds_per_s: f64,
}

/// `net` as a [`Subnet`] of IMPs loaded with `image`, trace off.
pub fn subnet(image: &Image, net: &Network, s: &Settings) -> Result<Subnet> {
    crate::emulate::check_network(net)?;
    let imps = (0..net.imps.len())
        .map(|i| {
            let mut imp = nmc_h316::Imp::new(&crate::emulate::imp_config(net, s, i));
            imp.load(image);
            imp
        })
        .collect();
    let lines = net
        .lines
        .iter()
        .map(|l| SubnetLine {
            a: l.a,
            b: l.b,
            propagation_ns: l.prop_ns.unwrap_or(s.prop_ns),
        })
        .collect();
    let mut sub = Subnet::new(imps, lines);
    sub.set_trace(false);
    Ok(sub)
}

fn totals(sub: &Subnet) -> (u64, u64) {
    (
        sub.imps.iter().map(|i| i.cpu.instructions()).sum(),
        sub.frames_sent.values().sum(),
    )
}

/// Runs `net` through start-up ([`STARTUP_NS`]) and then `idle_ns` more, timing each phase.
pub fn measure(
    image: &Image,
    name: &str,
    net: &Network,
    s: &Settings,
    idle_ns: u64,
) -> Result<Vec<SpeedRow>> {
    if idle_ns == 0 {
        bail!("the idle phase must last more than 0 s");
    }
    let mut sub = subnet(image, net, s)?;
    let mut rows = Vec::new();
    let mut before = (0, 0);
    for (phase, until) in [("start-up", STARTUP_NS), ("idle", STARTUP_NS + idle_ns)] {
        let from = sub.now_ns();
        let t0 = Instant::now();
        sub.run_until(until)
            .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        let wall_s = t0.elapsed().as_secs_f64();
        let now = totals(&sub);
        let simulated_s = (sub.now_ns() - from) as f64 / 1e9;
        let instructions = now.0 - before.0;
        let rtf = simulated_s / wall_s;
        rows.push(SpeedRow {
            network: name.to_string(),
            phase: phase.to_string(),
            imps: net.imps.len(),
            lines: net.lines.len(),
            simulated_s,
            wall_s,
            instructions,
            frames: now.1 - before.1,
            instructions_per_s: instructions as f64 / wall_s,
            real_time_factor: rtf,
            imp_seconds_per_s: rtf * net.imps.len() as f64,
        });
        before = now;
    }
    Ok(rows)
}

/// The June 1974 map as `scenarios/ko-v2-map.toml` runs on the program with `nmc run`
/// (`[network.program]`, [`crate::program`]): every IMP emulated, K&O's pump to BBN and the
/// scenario's background load (67.5 messages/s), for `load_ns` of scenario time after the
/// network is up and a 10 s settle. Timed whole, one row (`loaded`): its simulated seconds are
/// the start-up, the settle and the load; its frames are those from the scenario's time 0.
pub fn measure_loaded(image: &Image, load_ns: u64) -> Result<SpeedRow> {
    if load_ns == 0 {
        bail!("the loaded phase must last more than 0 s");
    }
    let sets: Vec<nmc_scenario::Override> = [
        "network.program.settle=10s".to_string(),
        format!("duration={load_ns}ns"),
        "record=[\"lines\"]".to_string(),
    ]
    .iter()
    .map(|x| x.parse())
    .collect::<Result<_, _>>()
    .map_err(|e: nmc_scenario::ScenarioError| anyhow::anyhow!("{e}"))?;
    let s: nmc_imp::scenario::ImpScenario =
        nmc_scenario::load("ko-v2-map.toml", crate::map::KO_MAP, &sets)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    let config = nmc_imp::scenario::resolve(&s).map_err(|e| anyhow::anyhow!("{}", e.0))?;
    let t0 = Instant::now();
    let r = crate::program::run_image(&config, s.seed.unwrap_or(1), image, &mut |_| {})?;
    let wall_s = t0.elapsed().as_secs_f64();
    let m = |k: &str| r.metrics.get(k).copied().unwrap_or(0.0);
    // Start-up, then the settle and the load as the scenario resolved them.
    let settle = config
        .network
        .program
        .as_ref()
        .map_or(0.0, |p| p.settle.as_secs_f64());
    let simulated_s = m("program.up_s") + settle + config.duration.as_secs_f64();
    let instructions = m("program.instructions") as u64;
    let imps = r
        .lines
        .iter()
        .map(|l| &l.from)
        .collect::<std::collections::BTreeSet<_>>();
    let rtf = simulated_s / wall_s;
    Ok(SpeedRow {
        network: "map-1974-06".into(),
        phase: "loaded".into(),
        imps: imps.len(),
        lines: r.lines.len() / 2,
        simulated_s,
        wall_s,
        instructions,
        frames: m("program.frames") as u64,
        instructions_per_s: instructions as f64 / wall_s,
        real_time_factor: rtf,
        imp_seconds_per_s: rtf * imps.len() as f64,
    })
}

/// The rows as a Markdown table.
pub fn table(rows: &[SpeedRow]) -> String {
    use std::fmt::Write as _;
    let mut s = String::from(
        "| network | phase | IMPs | lines | simulated s | wall s | instructions | M instructions / s | real-time factor | IMP-s / s |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.0} | {:.1} | {:.3e} | {:.1} | {:.2} | {:.0} |",
            r.network,
            r.phase,
            r.imps,
            r.lines,
            r.simulated_s,
            r.wall_s,
            r.instructions as f64,
            r.instructions_per_s / 1e6,
            r.real_time_factor,
            r.imp_seconds_per_s
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_network_the_program_cannot_run_is_refused_before_any_work() {
        let net = Network::chain(2, 0);
        let e = subnet(&Image::default(), &net, &Settings::default())
            .err()
            .unwrap();
        assert!(e.to_string().contains("IMP number 0"), "{e}");
        let e = measure(
            &Image::default(),
            "x",
            &Network::chain(2, 11),
            &Settings::default(),
            0,
        )
        .unwrap_err();
        assert!(e.to_string().contains("more than 0 s"), "{e}");
    }
}
