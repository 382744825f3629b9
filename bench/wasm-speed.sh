#!/usr/bin/env bash
# Issue 60: how fast the simulation runs in wasm against native, for the same run: events per
# second natively, in Node's V8 and in headless Chromium (the page of scripts/build-web.sh, its
# Web Worker, as a reader's run), 3 rounds each, alternated. A benchmark, not a test: it asserts
# only that the runs give the same summary bytes. Chromium is skipped, with the reason, when it
# or ChromeDriver is missing (Debian: chromium, chromium-driver); selenium goes into
# target/bench-venv.
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
chromium="${CHROMIUM:-$(command -v chromium || true)}"
chromedriver="${CHROMEDRIVER:-$(command -v chromedriver || true)}"
venv="$target_dir/bench-venv"
if [ -n "$chromium" ] && [ -n "$chromedriver" ]; then
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "selenium>=4.10,<5"
else
    echo "chromium: skipped (chromium or chromedriver not installed)"
fi
for round in 1 2 3; do
    echo "-- round $round"
    NATIVE_SUMMARY="$target_dir/native-speed-summary.json" "$target_dir/release/examples/speed" "$@"
    WASM_SUMMARY="$target_dir/wasm-speed-summary.json" node bench/wasm_speed.js "$wasm" "$@"
    cmp "$target_dir/native-speed-summary.json" "$target_dir/wasm-speed-summary.json"
    if [ -n "$chromium" ] && [ -n "$chromedriver" ]; then
        CHROMIUM="$chromium" CHROMEDRIVER="$chromedriver" \
            CHROMIUM_SUMMARY="$target_dir/chromium-speed-summary.json" \
            "$venv/bin/python" bench/wasm_speed_chromium.py "$target_dir/web" "$@"
        cmp "$target_dir/native-speed-summary.json" "$target_dir/chromium-speed-summary.json"
    fi
done
