#!/usr/bin/env bash
# The golden chain in nmc, in a bare BinaryHeap loop (bench/bare_heap.rs) and in SimPy
# (bench/peers/simpy_chain.py), run alternately (nmc, bare, SimPy, nmc, bare, SimPy, ...) so
# that a change in the machine's load hits all three alike; prints each round's packet-hops/s
# and the ratios within the round, then the median ratio over the rounds.
# Usage: bench/compare.sh [simulated-minutes (default 60)] [rounds (default 5)]
# Builds into $CARGO_TARGET_DIR when set (else target/). Installs SimPy into
# <target>/bench-venv from PyPI the first time. ns-3: not run (its Python
# wheels bring a toolchain-sized download; compare by hand with ns-3's own Run() if you have it).
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-60}
rounds=${2:-5}
target=${CARGO_TARGET_DIR:-target}
venv=$target/bench-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet simpy
fi
cargo build --release --quiet
rustc --edition 2021 -O bench/bare_heap.rs -o "$target/bare_heap"
results=()
for r in $(seq 1 "$rounds"); do
  n=$("$target/release/nmc" bench --json --duration "${minutes}min" --repeat 1)
  b=$("$target/bare_heap" "$minutes")
  s=$("$venv/bin/python" bench/peers/simpy_chain.py --minutes "$minutes")
  results+=("$n" "$b" "$s")
done
python3 - "${results[@]}" <<'PY'
import json, statistics, sys
xs = [json.loads(a) for a in sys.argv[1:]]
rounds = [xs[i:i + 3] for i in range(0, len(xs), 3)]
rb, rs, ri = [], [], []
print("round  nmc (M hops/s)  bare heap  SimPy    nmc/bare  nmc/SimPy  IMP/chain per event")
for k, (n, b, s) in enumerate(rounds, 1):
    imp = n.get("imp_loaded_map_9hops_10min")
    n = n["golden_chain"] if "golden_chain" in n else n
    assert n["packet_hops"] == b["packet_hops"] == s["packet_hops"], (n["packet_hops"], b["packet_hops"], s["packet_hops"])
    hn, hb, hs = n["packet_hops_per_s"], b["packet_hops_per_s"], s["packet_hops_per_s"]
    rb.append(hn / hb)
    rs.append(hn / hs)
    # Wall time per event of the loaded 9-hop IMP run over the golden chain's, same round.
    ri.append(n["events_per_s"] / imp["events_per_s"] if imp else float("nan"))
    print(f"{k:>5}  {hn / 1e6:>14.2f}  {hb / 1e6:>9.2f}  {hs / 1e6:>6.3f}  {hn / hb:>8.2f}  {hn / hs:>9.1f}  {ri[-1]:>19.2f}")
print(f"median over {len(rounds)} rounds: nmc/bare {statistics.median(rb):.2f}, nmc/SimPy {statistics.median(rs):.1f}x, IMP/chain cost per event {statistics.median(ri):.2f}")
PY
