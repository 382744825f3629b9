#!/bin/sh
# The runs behind data/oracle/ (issue 71 §3): K&O's pump on a chain of 10 emulated IMPs
# (IMPs 11-20, 50 kbit/s lines, no other traffic) from IMP 11's host to the discard fake host
# of each IMP in turn, for 516 and 316 timing and 4 and 8 outstanding; single-packet round
# trips with the 4-outstanding runs. Each experiment is judged on its own span: one in which
# an instance fell behind wall time beyond the bounds of `nmc oracle chain --help` is refused
# (results.csv, accepted = false), and its hop count is run again in a later pass, up to
# PASSES passes. Every pass's folder is kept; nothing is thrown away.
#   usage: ko-runs.sh SIMH_CHECKOUT OUT_DIR ["NMC ORACLE"]   (default: `nmc oracle`)
set -u
SIMH=$1; OUT=$2; NMC=${3:-nmc oracle}; PASSES=${PASSES:-5}
MESSAGES=${MESSAGES:-120}; WARMUP=${WARMUP:-20}; SINGLE=${SINGLE:-30}
UP=${UP_TIMEOUT:-900}; MACHINES=${MACHINES:-"516 316"}; WINDOWS=${WINDOWS:-"4 8"}; HOPS=${HOPS:-"1 2 3 4 5 6 7 8 9"}
mkdir -p "$OUT"
for machine in $MACHINES; do
  for out in $WINDOWS; do
    hops=$HOPS; pass=1
    while [ -n "$hops" ] && [ $pass -le "$PASSES" ]; do
      dir="$OUT/$machine-$out-pass$pass"
      single=$SINGLE; [ "$out" != 4 ] && single=0
      if [ ! -f "$dir/results.csv" ]; then
        $NMC chain --simh "$SIMH" --imps 10 --hops "$(echo $hops | tr ' ' ,)" --imp "$machine" \
          --outstanding "$out" --messages "$MESSAGES" --warmup "$WARMUP" --single "$single" \
          --up-timeout-s "$UP" --out "$dir" > "$dir.stdout.txt" 2>&1
        mv "$dir.stdout.txt" "$dir/stdout.txt" 2>/dev/null
      fi
      # hop counts with any refused experiment go again
      hops=$(awk -F, 'NR==1 { for (i = 1; i <= NF; i++) { if ($i == "hops") h = i; if ($i == "accepted") a = i } next }
                      $a != "true" { print $h }' "$dir/results.csv" 2>/dev/null | sort -un | tr '\n' ' ' | sed 's/ $//')
      [ -f "$dir/results.csv" ] || hops=$HOPS
      pass=$((pass + 1))
    done
  done
done
