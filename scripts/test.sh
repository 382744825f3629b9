#!/usr/bin/env bash
# Every test of nmc, Rust and Python: the README's test command.
#
#  1. `cargo test --workspace` (snapshots compared, never written: INSTA_UPDATE=no unless set).
#  2. The Python package: built as a wheel by maturin (release, as `pip install ./python`
#     builds it), installed with its test extras in a fresh virtual environment
#     (target/py-test-venv), and tested with pytest from outside the source tree. The Dask
#     tests start a LocalCluster of 2 worker processes on loopback.
#
# Needs a Rust toolchain and Python >= 3.10 with venv and pip (PYTHON=... picks the
# interpreter); everything else it installs from the package registries.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

echo "== cargo test --workspace"
INSTA_UPDATE="${INSTA_UPDATE:-no}" cargo test --workspace

echo "== Python: a fresh virtual environment"
py="${PYTHON:-python3}"
venv="$root/target/py-test-venv"
rm -rf "$venv"
"$py" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.9,<2"

echo "== Python: build the wheel (maturin, release)"
wheels="$root/target/py-test-wheels"
rm -rf "$wheels"
(cd python && "$venv/bin/maturin" build --release --out "$wheels")
wheel=$(ls "$wheels"/nmc-*.whl)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${wheel}[test]"

echo "== Python: pytest"
# From target/, so that `import nmc` is the installed wheel, not python/nmc (no compiled module).
cli="$root/target/debug/nmc"
cd "$root/target"
NMC_CLI="$([ -x "$cli" ] && echo "$cli" || true)" \
    "$venv/bin/python" -m pytest "$root/python/tests" -p no:cacheprovider -q
