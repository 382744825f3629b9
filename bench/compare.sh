#!/usr/bin/env bash
# Runs the golden chain in nmc and in SimPy on this machine and prints the speed ratio.
# Usage: bench/compare.sh [simulated-minutes]   (default 60)
# Installs SimPy into target/bench-venv from PyPI the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-60}
venv=target/bench-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet simpy
fi
cargo build --release --quiet
nmc_json=$(./target/release/nmc bench --json --duration "${minutes}min" --repeat 3)
simpy_json=$("$venv/bin/python" bench/peers/simpy_chain.py --minutes "$minutes")
echo "nmc:   $nmc_json"
echo "simpy: $simpy_json"
python3 - "$nmc_json" "$simpy_json" <<'PY'
import json, sys
n, s = (json.loads(a) for a in sys.argv[1:3])
assert n["packet_hops"] == s["packet_hops"], (n["packet_hops"], s["packet_hops"])
print(f"packet-hops/s: nmc {n['packet_hops_per_s']:,.0f}  simpy {s['packet_hops_per_s']:,.0f}  "
      f"ratio {n['packet_hops_per_s'] / s['packet_hops_per_s']:,.1f}x")
PY
