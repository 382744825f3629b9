//! The random streams of the subnet's parts, one per part however large the network, so that
//! no two draw from the same stream (tested in `model.rs`).

/// The random stream of line direction `i` (its errors). Streams 1000..1999 for the first 1000
/// directions, as always (so smaller networks give the same bytes as before), and from 2^40 for
/// the rest, apart from the background hosts' `2000 + k` ([`background_stream`]) and the host
/// pairs' `2^48 + i` (`run.rs`), however large the network.
pub fn line_stream(i: usize) -> u64 {
    if i < 1000 {
        1000 + i as u64
    } else {
        (1 << 40) + i as u64
    }
}

/// The random stream of the background host on IMP `k` (`model/background.rs`).
pub fn background_stream(k: usize) -> u64 {
    2000 + k as u64
}

/// The random stream that places the host pairs of traffic entry `i` (`kind = "pairs"`).
pub(crate) fn pairs_stream(i: usize) -> u64 {
    (1 << 48) + i as u64
}

/// The random stream of the IMPs' clock phases (`imp_clocks = "apart"`): one for the whole
/// network, above every other namespace. The program's IMPs draw their power-on instants from it
/// (`network.program.power_on = "apart"`, `nmc_oracle::emulate::power_on_instants`).
pub fn clock_stream() -> u64 {
    1 << 56
}

/// The random stream of line direction `i`'s frame lateness (`frame_lateness`, a diagnosis),
/// above the clocks' namespace.
pub(crate) fn lateness_stream(i: usize) -> u64 {
    (1 << 57) + i as u64
}
