#!/usr/bin/env python3
"""REQALLs and GVBs the source IMP sent in each experiment of a replayed run (issue 71 §4).

    nmc oracle emulate --program impcode.cmd --run 516-4-pass1 --out out/emulate
    crates/nmc-oracle/scripts/count-requests.py out/emulate/runs/516-4-pass1

Reads the run folder's `messages.csv` (each experiment's window: its first message handed to
the IMP to its last reply) and `imp11.trace` (the source IMP's frames, `MITX` lines, header
words in octal), and counts the transmissions whose header (BBN 3050 p. 15, bits in HEAD) has
REQALL set — a request for 8 (`REQ8`, a multipacket message that found no allocation) or for
1 (`REQ1`, every single-packet message) — or GVBALL (`GVB`, an allocation given back). The
model's counts for the same experiment are `count.reqall` and `count.gvb` in `nmc run`'s
summary.json (scenarios/oracle-chain.toml).
"""
import collections
import csv
import sys

REQALL, ONEOR8, TRNREP, GVBALL, LINETS = 0o100, 0o200, 0o4, 0o2, 0o1


def main(run):
    msgs = list(csv.DictReader(open(f"{run}/messages.csv")))
    windows = collections.OrderedDict()
    for m in msgs:
        sent, reply = int(m["host_sent_ns"]), int(m["host_reply_ns"] or 0)
        a, b = windows.get(m["experiment"], (sent, reply))
        windows[m["experiment"]] = (min(a, sent), max(b, reply))
    frames = []
    for line in open(f"{run}/imp11.trace"):
        p = line.split()
        if len(p) < 4 or p[1] != "MITX" or ":" not in line:
            continue
        w = [int(x, 8) for x in line.split(":")[1].split()]
        if len(w) < 5 or w[1] & LINETS or not w[1] & TRNREP:
            continue
        head = w[1]
        if head & REQALL:
            frames.append((int(p[0]), "REQ1" if head & ONEOR8 else "REQ8"))
        elif head & GVBALL:
            frames.append((int(p[0]), "GVB"))
    print("experiment,messages,req8,gvb,req1")
    for e, (a, b) in windows.items():
        c = collections.Counter(k for t, k in frames if a <= t <= b)
        n = sum(1 for m in msgs if m["experiment"] == e)
        print(f"{e},{n},{c['REQ8']},{c['GVB']},{c['REQ1']}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: count-requests.py RUN_FOLDER (a run of `nmc oracle emulate --out`)")
    main(sys.argv[1])
