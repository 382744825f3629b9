#!/usr/bin/env python3
"""The golden chain in SimPy, for a speed comparison with nmc (`bench/compare.sh`).

Same scenario as scenarios/golden-chain.toml: 5 nodes in a row, 50 kbit/s lines, 0.1 ms
propagation, one 1008-bit packet every 20.16 ms from node 0 to node 4. Each direction of a line
is a SimPy Resource of capacity 1 (a transmitter with a FIFO queue). Prints one JSON object with
packet-hops per wall second. Checks its own result: mean delay must be 81.040 ms.
"""
import argparse
import json
import time

import simpy

CAPACITY_BPS = 50_000
PROPAGATION_S = 0.0001
BITS = 1008
INTERVAL_S = 0.02016
HOPS = 4


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=60.0, help="simulated minutes")
    args = ap.parse_args()

    env = simpy.Environment()
    lines = [simpy.Resource(env, capacity=1) for _ in range(HOPS)]
    stats = {"hops": 0, "delivered": 0, "delay_sum": 0.0}
    tx = BITS / CAPACITY_BPS

    def packet(env):
        created = env.now
        for line in lines:
            with line.request() as req:
                yield req
                yield env.timeout(tx)
            stats["hops"] += 1
            yield env.timeout(PROPAGATION_S)
        stats["delivered"] += 1
        stats["delay_sum"] += env.now - created

    def source(env):
        while True:
            env.process(packet(env))
            yield env.timeout(INTERVAL_S)

    env.process(source(env))
    t0 = time.perf_counter()
    env.run(until=args.minutes * 60.0)
    wall = time.perf_counter() - t0
    mean_ms = stats["delay_sum"] / stats["delivered"] * 1e3
    assert abs(mean_ms - 81.04) < 1e-6, f"SimPy chain mean delay {mean_ms} ms, expected 81.04"
    print(json.dumps({
        "engine": "simpy " + simpy.__version__,
        "simulated_s": args.minutes * 60.0,
        "packet_hops": stats["hops"],
        "wall_s": wall,
        "packet_hops_per_s": stats["hops"] / wall,
        "mean_delay_ms": mean_ms,
    }))


if __name__ == "__main__":
    main()
