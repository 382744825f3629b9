#!/bin/sh
# The runs behind data/oracle/ (issue 71 §3): K&O's pump on a chain of 10 emulated IMPs
# (IMPs 11-20, 50 kbit/s lines, no other traffic) from IMP 11's host to the discard fake host
# of each IMP in turn, for 516 and 316 timing and 4 and 8 outstanding; single-packet round
# trips with the 4-outstanding runs. One hop count per run: a shorter run is less often
# refused on a busy machine. A refused run (an instance fell behind wall time beyond the
# bounds stated in `nmc oracle chain --help`) is kept under refused/ and run again, up to
# RETRIES times; nothing is thrown away.
#   usage: ko-runs.sh SIMH_CHECKOUT OUT_DIR ["NMC ORACLE"]   (default: `nmc oracle`)
set -u
SIMH=$1; OUT=$2; NMC=${3:-nmc oracle}; RETRIES=${RETRIES:-6}
MESSAGES=${MESSAGES:-120}; WARMUP=${WARMUP:-20}; SINGLE=${SINGLE:-30}
MACHINES=${MACHINES:-"516 316"}; WINDOWS=${WINDOWS:-"4 8"}; HOPS=${HOPS:-"1 2 3 4 5 6 7 8 9"}
mkdir -p "$OUT/refused"
for machine in $MACHINES; do
  for out in $WINDOWS; do
    for hops in $HOPS; do
      name="$machine-$out-$hops"
      [ -f "$OUT/$name/run.json" ] && continue
      try=1
      while [ $try -le "$RETRIES" ]; do
        single=$SINGLE; [ "$out" != 4 ] && single=0
        $NMC chain --simh "$SIMH" --imps 10 --hops "$hops" --imp "$machine" \
          --outstanding "$out" --messages "$MESSAGES" --warmup "$WARMUP" --single "$single" \
          --out "$OUT/try-$name" > "$OUT/try-$name.out" 2>&1
        rc=$?
        if [ $rc = 0 ]; then
          mv "$OUT/try-$name.out" "$OUT/try-$name/stdout.txt"; mv "$OUT/try-$name" "$OUT/$name"; break
        fi
        mv "$OUT/try-$name.out" "$OUT/try-$name/stdout.txt"; mv "$OUT/try-$name" "$OUT/refused/$name-try$try"
        try=$((try + 1))
      done
    done
  done
done
