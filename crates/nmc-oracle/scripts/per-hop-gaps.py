#!/usr/bin/env python3
"""Idle gaps on the chain's output lines, from an emulator replay written with
`nmc oracle emulate --trace-all` (issue 71; data/oracle/emulated/per-hop/README.md).

For one experiment's span (spans.csv) and each IMP given, on its output line towards the
destination (the line that carried most data frames):
  * the line idle between two back-to-back data frames of 68-69 words (last bit of the first to
    first bit of the second; gaps under 10 ms): median, p10, p90;
  * idle gaps of 10 ms or more: how many, their total, and how many began or ended within
    300 ms of a 5-word data frame (a REQALL or give-back packet) sent on that line.

usage: per-hop-gaps.py RUN_DIR EXPERIMENT IMP [IMP ...]
"""
import collections
import csv
import sys


def frames(run, imp, t0, t1):
    out = []
    with open(f"{run}/imp{imp}.trace") as f:
        for line in f:
            if line.startswith("#"):
                continue
            left, _, right = line.partition(" :")
            t, what, l, words, extra = (left.split(" ", 4) + [""])[:5]
            t = int(t)
            if what != "MITX" or t < t0 or t > t1:
                continue
            head = [int(w, 8) for w in right.split()]
            done = int(extra.split("done=")[1].split()[0])
            data = len(head) >= 5 and not head[1] & 1 and head[1] & 4
            out.append((t, done, int(l), int(words), bool(data)))
    return out


def q(v, p):
    return v[min(len(v) - 1, int(p * len(v)))]


def main():
    run, experiment, imps = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3:]]
    with open(f"{run}/spans.csv") as f:
        span = next(r for r in csv.DictReader(f) if r["experiment"] == experiment)
    t0, t1 = int(span["start_ns"]), int(span["end_ns"])
    print(f"{experiment}: {(t1 - t0) / 1e9:.1f} s")
    for imp in imps:
        fr = frames(run, imp, t0, t1)
        line = collections.Counter(x[2] for x in fr if x[4]).most_common(1)[0][0]
        fr = [x for x in fr if x[2] == line]
        b2b, gaps = [], []
        small = [x[0] for x in fr if x[4] and x[3] == 5]
        for a, b in zip(fr, fr[1:]):
            g = (b[0] - a[1]) / 1e6
            if a[4] and b[4] and a[3] >= 68 and b[3] >= 68 and g < 10:
                b2b.append(g)
            if g >= 10:
                near = any(-300e6 <= r - a[1] <= 0 or 0 <= r - b[0] <= 300e6 or a[1] <= r <= b[0]
                           for r in small)
                gaps.append((g, near))
        b2b.sort()
        print(
            f"IMP {imp} line {line}: back-to-back data gap median {q(b2b, 0.5):.2f} "
            f"p10 {q(b2b, 0.1):.2f} p90 {q(b2b, 0.9):.2f} ms (n {len(b2b)}); "
            f"gaps >= 10 ms: {len(gaps)}, {sum(g for g, _ in gaps):.0f} ms; "
            f"near a 5-word data frame: {sum(1 for _, n in gaps if n)}, "
            f"{sum(g for g, n in gaps if n):.0f} ms; 5-word data frames sent: {len(small)}"
        )


if __name__ == "__main__":
    main()
