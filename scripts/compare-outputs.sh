#!/usr/bin/env bash
# Byte-identity check for a change that must not change any result (issue 55's steps: code moved
# inside the IMP model, a refactoring, a speed-up). Run the build before and the build after
# over the same runs, then compare every file they wrote.
#
#   scripts/compare-outputs.sh run BINARY OUTDIR   # write every output of BINARY under OUTDIR
#   scripts/compare-outputs.sh diff BEFORE AFTER   # name each file that differs; exit 1 if any
#
# The runs: `reproduce --all --quick --seed 1`; every shipped scenario (scenarios/, ien163/,
# rfc889/) at 40 s of simulated time, seed 7; and four traced runs at 30 s (ko-v2-map,
# ko-v3-map, rfc632-moffett-sri, rfc626-lockup), whose traces put every protocol event in order.
# About 420 files; a few minutes on two cores. Only what names the run and not its results is
# masked: the output folder and the binary's path (in index.html and the logs), and reproduce's
# wall-clock progress lines. Two runs of one build differ in nothing else.
#
# Typical use, from the repository's root:
#   git stash; cargo build --release; cp target/release/nmc /tmp/nmc-before; git stash pop
#   cargo build --release
#   scripts/compare-outputs.sh run /tmp/nmc-before /tmp/before
#   scripts/compare-outputs.sh run target/release/nmc /tmp/after
#   scripts/compare-outputs.sh diff /tmp/before /tmp/after
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
usage() {
    echo "usage: $0 run BINARY OUTDIR | $0 diff BEFORE AFTER" >&2
    exit 2
}
[ $# -eq 3 ] || usage
case "$1" in
run)
    bin="$(realpath "$2")"
    out="$3"
    [ -x "$bin" ] || { echo "$0: $2 is not an executable" >&2; exit 2; }
    rm -rf "$out"
    mkdir -p "$out/scen" "$out/trace"
    "$bin" reproduce --all --quick --seed 1 --out "$out/repro" >"$out/repro.log" 2>&1 \
        || echo "reproduce failed: see $out/repro.log"
    for s in "$root"/scenarios/*.toml "$root"/scenarios/ien163/*.toml "$root"/scenarios/rfc889/*.toml; do
        n=$(basename "$s" .toml)
        timeout 300 "$bin" run "$s" --seed 7 --set duration=40s --out "$out/scen/$n" \
            >"$out/scen/$n.log" 2>&1 || echo "scenario $n failed or timed out"
    done
    for n in ko-v2-map ko-v3-map rfc632-moffett-sri rfc626-lockup; do
        timeout 300 "$bin" run "$root/scenarios/$n.toml" --seed 7 --set duration=30s \
            --set trace=true --out "$out/trace/$n" >"$out/trace/$n.log" 2>&1 \
            || echo "traced $n failed or timed out"
    done
    echo "$(find "$out" -type f | wc -l) files under $out"
    ;;
diff)
    a="$2"
    b="$3"
    differ=0
    mask() {
        sed -e "/ % after [0-9]* s$/d" -e "s#$2#OUT#g" -e 's#/[A-Za-z0-9_./-]*/nmc[A-Za-z0-9_-]*#BIN#g' "$2/$1"
    }
    while read -r line; do
        echo "$line"
        differ=1
    done < <(diff -r -q "$a" "$b" | grep -v -e '/index.html differ' -e '\.log differ')
    while read -r f; do
        if ! diff <(mask "$f" "$a") <(mask "$f" "$b") >/dev/null; then
            echo "differs (paths masked): $f"
            differ=1
        fi
    done < <(cd "$a" && find . \( -name index.html -o -name '*.log' \) -type f)
    echo "files: $(find "$a" -type f | wc -l) before, $(find "$b" -type f | wc -l) after"
    [ $differ = 0 ] && echo "identical" || { echo "NOT identical"; exit 1; }
    ;;
*) usage ;;
esac
