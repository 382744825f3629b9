#!/usr/bin/env bash
# A profile-guided build of nmc, for long sweeps (issue 36): the release build, laid out by the
# compiler from where a training run spent its time. It is rustc's own workflow (the rustc
# book, "Profile-guided Optimization": -Cprofile-generate, llvm-profdata merge,
# -Cprofile-use), in three steps:
#
#  1. an instrumented release build of `nmc` (target/pgo/instrumented);
#  2. a training run: `nmc reproduce --all --quick` (every built-in experiment, the IMP model
#     above all), whose counts are merged into target/pgo/nmc.profdata;
#  3. the optimised release build (target/pgo/optimized), copied to target/pgo/nmc.
#
# The code is the same, so the outputs are the same bytes as the release build's. Measured on
# a 2-core machine on 2026-11-28 (docs/src/performance.md): 348 s from nothing in CI's clean clone
# (two builds, the training run and the check), and 30 simulated minutes of the loaded 1974
# map in 0.90 of the release build's wall time (the training runs the same code, on other
# scenarios and shorter runs).
#
# Usage: scripts/build-pgo.sh [--install] [--check] [--jobs N]
#   --install  also copies the binary into cargo's bin folder, where `cargo install` puts it
#   --check    also runs `reproduce --all --quick` with the new binary and fails unless every
#              file but index.html (which names the command line) is the training run's bytes
#   --jobs N   threads for the training run and the check (default: all cores)
# Needs llvm-profdata of rustc's own LLVM version: `rustup component add llvm-tools`
# (LLVM_PROFDATA=/path names another). Builds in $CARGO_TARGET_DIR when set (else target/).
# The cargo steps use --target <host> so that RUSTFLAGS reach nmc's code and not build
# scripts.
set -euo pipefail
cd "$(dirname "$0")/.."

install=0
check=0
jobs=$(nproc 2>/dev/null || echo 2)
while [ $# -gt 0 ]; do
    case "$1" in
        --install) install=1 ;;
        --check) check=1 ;;
        --jobs)
            [ $# -ge 2 ] || { echo "error: --jobs needs a number" >&2; exit 2; }
            jobs=$2
            shift
            ;;
        -h | --help)
            sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *) echo "error: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$jobs" in
    '' | *[!0-9]* | 0) echo "error: --jobs takes a positive whole number, not '$jobs'" >&2; exit 2 ;;
esac

host=$(rustc -vV | sed -n 's/^host: //p')
profdata=${LLVM_PROFDATA:-$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata}
if [ ! -x "$profdata" ]; then
    echo "error: no llvm-profdata at $profdata: run 'rustup component add llvm-tools' (or set LLVM_PROFDATA)" >&2
    exit 2
fi

target=${CARGO_TARGET_DIR:-target}
work=$target/pgo
mkdir -p "$work"
work=$(cd "$work" && pwd)
rm -rf "$work/profiles" "$work/training" "$work/check" "$work/nmc.profdata"
start=$(date +%s)

echo "== 1/3 an instrumented build (target dir $work/instrumented)"
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$work/profiles" \
    cargo build --release --bin nmc --target "$host" --target-dir "$work/instrumented"

echo "== 2/3 training: nmc reproduce --all --quick --jobs $jobs (log: $work/training.log)"
"$work/instrumented/$host/release/nmc" reproduce --all --quick --jobs "$jobs" \
    --out "$work/training" > "$work/training.log" 2>&1 ||
    { echo "error: the training run failed; see $work/training.log" >&2; exit 1; }
"$profdata" merge -o "$work/nmc.profdata" "$work/profiles"

echo "== 3/3 the optimised build (target dir $work/optimized)"
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$work/nmc.profdata" \
    cargo build --release --bin nmc --target "$host" --target-dir "$work/optimized"
cp "$work/optimized/$host/release/nmc" "$work/nmc"
echo "built $work/nmc in $(( $(date +%s) - start )) s"

if [ "$check" = 1 ]; then
    echo "== check: the new binary's reproduce --all --quick against the training run's"
    "$work/nmc" reproduce --all --quick --jobs "$jobs" --out "$work/check" > "$work/check.log" 2>&1 ||
        { echo "error: the check run failed; see $work/check.log" >&2; exit 1; }
    if ! diff -r --exclude=index.html "$work/training" "$work/check" > "$work/check.diff"; then
        echo "error: the profile-guided build's outputs differ from the training run's: $work/check.diff" >&2
        exit 1
    fi
    echo "   the same bytes ($(find "$work/check" -type f ! -name index.html | wc -l) files)"
fi

if [ "$install" = 1 ]; then
    bin=${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin
    mkdir -p "$bin"
    install -m 755 "$work/nmc" "$bin/nmc"
    echo "installed $bin/nmc"
fi
