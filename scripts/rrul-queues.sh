#!/usr/bin/env bash
# Issue 75 §6: latency under load (`nmc rrul`) across a shaped path made by `nmc path` (20 Mbit/s
# and 10 ms each way): a deep queue and a shallow one with one flow each way, and the deep one
# with one upload alone; 5 s of idle probing before and after each load. Needs root and
# iproute2. The how-to (docs/src/how-to/rrul.md) has the table these runs gave.
#   scripts/rrul-queues.sh [DEEP] [SHALLOW] [SECONDS]     e.g. 1000 30 20
set -euo pipefail
DEEP=${1:-1000}
SHALLOW=${2:-30}
SECS=${3:-20}
NMC=${NMC:-$(dirname "$0")/../target/release/nmc}
OUT=${OUT:-out/rrul-queues}
rm -rf "$OUT"
mkdir -p "$OUT"
run() { # NAME LIMIT UP DOWN
    "$NMC" path --delay 10ms --rate 20Mbit/s --limit "$2" --name rrul -t 600 -i 0 >"$OUT/path-$1.log" 2>&1 &
    path=$!
    sleep 3
    ip netns exec rrul-b "$NMC" serve --listen 198.18.0.2:8890 >"$OUT/serve-$1.log" 2>&1 &
    sleep 1
    ip netns exec rrul-a "$NMC" rrul 198.18.0.2:8890 --up "$3" --down "$4" -t "$SECS" \
        --out "$OUT/$1" | tee "$OUT/$1.txt"
    pkill -f "nmc serve --listen 198.18.0.2:8890" || true
    kill -INT "$path"
    wait "$path" || true
}
run "limit-$DEEP" "$DEEP" 1 1
run "limit-$SHALLOW" "$SHALLOW" 1 1
run "up-only-$DEEP" "$DEEP" 1 0
