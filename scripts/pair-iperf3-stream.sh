#!/usr/bin/env bash
# Issue 75 §1: iperf3 -u -R -b against nmc stream -u --bulk -R, alternated, across a shaped path
# made by `nmc path` (20 ms each way ± 2 ms, 30 Mbit/s). Needs root, iproute2 and iperf3.
#   scripts/pair-iperf3-stream.sh [RATE] [SECONDS] [RUNS]     e.g. 20M 10 3, or 40M 5 3
set -euo pipefail
RATE=${1:-20M}
SECS=${2:-10}
RUNS=${3:-3}
NMC=${NMC:-$(dirname "$0")/../target/release/nmc}
OUT=${OUT:-out/pair-iperf3-stream}
command -v iperf3 >/dev/null || { echo "pair-iperf3-stream: iperf3 is not installed" >&2; exit 2; }
rm -rf "$OUT"
mkdir -p "$OUT"
"$NMC" path --delay 20ms --jitter 2ms --rate 30Mbit/s --name pair -t 600 -i 0 >"$OUT/path.log" 2>&1 &
path=$!
cleanup() {
    ip netns exec pair-b pkill iperf3 2>/dev/null || true
    pkill -f "nmc serve --listen 198.18.0.2:8890" 2>/dev/null || true
    kill -INT "$path" 2>/dev/null || true
    wait "$path" 2>/dev/null || true
}
trap cleanup EXIT
sleep 3
ip netns exec pair-b "$NMC" serve --listen 198.18.0.2:8890 >"$OUT/serve.log" 2>&1 &
ip netns exec pair-b iperf3 -s -D -p 5201 --logfile "$OUT/iperf-server.log"
sleep 1
for i in $(seq 1 "$RUNS"); do
    ip netns exec pair-a iperf3 -c 198.18.0.2 -p 5201 -u -R -b "$RATE" -l 1400 -t "$SECS" -J >"$OUT/iperf-$i.json"
    ip netns exec pair-a "$NMC" stream 198.18.0.2:8890 -u --bulk -b "$RATE" --buffer 1400 -R -t "$SECS" \
        --no-records -J --out "$OUT/nmc-$i" >"$OUT/nmc-$i.json"
done
python3 - "$OUT" "$RUNS" <<'PY'
import json, sys
out, runs = sys.argv[1], int(sys.argv[2])
for i in range(1, runs + 1):
    s = json.load(open(f"{out}/iperf-{i}.json"))["end"]["sum"]
    print(f"iperf3 run {i}: {s['bits_per_second'] / 1e6:.2f} Mbit/s, lost {s['lost_packets']} of "
          f"{s['packets']} ({s['lost_percent']:.3f} %), jitter {s['jitter_ms']:.3f} ms")
    (t,) = json.load(open(f"{out}/nmc-{i}.json"))["end"]["tests"]
    got, sent = t["sink_received"], t["buffers_sent"]
    print(f"nmc    run {i}: sent {sent} of {t['buffers_due']} due, received {got} "
          f"({100 * (sent - got) / sent:.3f} % lost), {got * 1400 * 8 / t['sent_s'] / 1e6:.2f} Mbit/s "
          f"over {t['sent_s']:.2f} s, jitter {t['jitter_s'] * 1e3:.3f} ms")
PY
