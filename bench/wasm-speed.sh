#!/usr/bin/env bash
# Issue 60: how fast the simulation runs in wasm (Node's V8, as in Chromium) against native,
# for the same run: events per second, 3 rounds each, alternated. A benchmark, not a test: it
# asserts only that the two runs give the same summary bytes.
#
#   bench/wasm-speed.sh                       # ko-v2-chain, 9 hops, 10 simulated minutes
#   bench/wasm-speed.sh NAME SEED [KEY=VALUE ...]
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
if [ $# -eq 0 ]; then
    set -- ko-v2-chain 1 network.topology.hops=9 network.hosts.1.imp=IMP9
fi
cargo build --release -p nmc-wasm --example speed
scripts/build-web.sh >/dev/null
wasm="$target_dir/web/nmc_wasm.wasm"
for round in 1 2 3; do
    echo "-- round $round"
    NATIVE_SUMMARY="$target_dir/native-speed-summary.json" "$target_dir/release/examples/speed" "$@"
    WASM_SUMMARY="$target_dir/wasm-speed-summary.json" node bench/wasm_speed.js "$wasm" "$@"
    cmp "$target_dir/native-speed-summary.json" "$target_dir/wasm-speed-summary.json"
done
