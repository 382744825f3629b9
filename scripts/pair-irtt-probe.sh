#!/usr/bin/env bash
# Issue 75 §5: irtt against nmc echo probe, alternated, across a shaped path made by `nmc path`
# (20 ms each way ± 2 ms, 20 Mbit/s, 1 % loss each way): 1000 packets 10 ms apart, 100-byte IP
# datagrams (irtt -l 72: its UDP payload). Round trip, IPDV of the round trip and each way, each
# way's delay (one host: the clocks agree), and loss up and down. Needs root, iproute2 and irtt.
#   scripts/pair-irtt-probe.sh [RUNS]
set -euo pipefail
RUNS=${1:-3}
NMC=${NMC:-$(dirname "$0")/../target/release/nmc}
OUT=${OUT:-out/pair-irtt-probe}
command -v irtt >/dev/null || { echo "pair-irtt-probe: irtt is not installed" >&2; exit 2; }
rm -rf "$OUT"
mkdir -p "$OUT"
"$NMC" path --delay 20ms --jitter 2ms --rate 20Mbit/s --loss 1% --name pairi -t 600 -i 0 >"$OUT/path.log" 2>&1 &
path=$!
cleanup() {
    ip netns exec pairi-b pkill irtt 2>/dev/null || true
    pkill -f "nmc serve --listen 198.18.0.2:8890" 2>/dev/null || true
    kill -INT "$path" 2>/dev/null || true
    wait "$path" 2>/dev/null || true
}
trap cleanup EXIT
sleep 3
ip netns exec pairi-b "$NMC" serve --listen 198.18.0.2:8890 --rate 1000/s >"$OUT/serve.log" 2>&1 &
ip netns exec pairi-b irtt server -b 198.18.0.2:2112 >"$OUT/irtt-server.log" 2>&1 &
sleep 1
for i in $(seq 1 "$RUNS"); do
    ip netns exec pairi-a irtt client -i 10ms -d 10s -l 72 -Q -o "$OUT/irtt-$i.json" 198.18.0.2:2112
    ip netns exec pairi-a "$NMC" echo probe 198.18.0.2:8890 --count 1000 --interval 10ms --length 100 \
        --timeout 2s -J --out "$OUT/nmc-$i" >"$OUT/nmc-$i.json"
done
python3 - "$OUT" "$RUNS" <<'PY'
import json, sys
out, runs = sys.argv[1], int(sys.argv[2])
ms = lambda ns: ns / 1e6
print("| run | tool | rtt median / mean ms | IPDV rtt mean / median ms | IPDV up / down mean ms | delay up / down median ms | lost up / down |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for i in range(1, runs + 1):
    s = json.load(open(f"{out}/irtt-{i}.json"))["stats"]
    st = lambda k, f: s[k][f]
    print(f"| {i} | irtt | {ms(st('rtt','median')):.2f} / {ms(st('rtt','mean')):.2f} "
          f"| {ms(st('ipdv_round_trip','mean')):.3f} / {ms(st('ipdv_round_trip','median')):.3f} "
          f"| {ms(st('ipdv_send','mean')):.3f} / {ms(st('ipdv_receive','mean')):.3f} "
          f"| {ms(st('send_delay','median')):.2f} / {ms(st('receive_delay','median')):.2f} "
          f"| {s['upstream_loss_percent']:.2f} % / {s['downstream_loss_percent']:.2f} % |")
    e = json.load(open(f"{out}/nmc-{i}.json"))["end"]
    v = e["volleys"]
    print(f"| {i} | nmc | {e['rtt']['median_s']*1e3:.2f} / {e['rtt']['mean_s']*1e3:.2f} "
          f"| {e['ipdv']['mean_s']*1e3:.3f} / {e['ipdv']['median_s']*1e3:.3f} "
          f"| {e['ipdv_up']['mean_s']*1e3:.3f} / {e['ipdv_down']['mean_s']*1e3:.3f} "
          f"| {e['delay_up']['median_s']*1e3:.2f} / {e['delay_down']['median_s']*1e3:.2f} "
          f"| {100*e['lost_up']/v:.2f} % / {100*e['lost_down']/max(1,e['server_answered']):.2f} % |")
PY
