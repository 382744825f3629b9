#!/usr/bin/env bash
# Every test of nmc, Rust and Python: the README's test command.
#
#  1. `cargo test --workspace` (snapshots compared, never written: INSTA_UPDATE=no unless set).
#  2. The page of issue 60 (scripts/build-web.sh: the simulation in wasm into target/web/),
#     its summaries compared with `nmc run`'s byte for byte under Node (tests/wasm); the page
#     itself is tested in step 5 (tests/browser/test_web_page.py, screenshot web-page.png).
#  3. The Python package: built as a wheel by maturin (release, as `pip install ./python`
#     builds it), installed with its test extras in a fresh virtual environment
#     (target/py-test-venv), and tested with pytest from outside the source tree. The Dask
#     tests start a LocalCluster of 2 worker processes on loopback.
#  4. The instruments' -J documents against their JSON Schemas (schemas/, tests/schemas).
#  5. The report page of `nmc reproduce --all --quick` (the one step 1 wrote) in headless Chromium (tests/browser,
#     Selenium): the scoreboard on top, the contents links, the misses filter, no table wider
#     than the page; a screenshot of the top is kept in target/browser-test/. Chromium and
#     ChromeDriver come from the system's packages (installed when missing, as root or with
#     passwordless sudo); without them the step says so and is skipped.
#
# Needs a Rust toolchain and Python >= 3.10 with venv and pip (PYTHON=... picks the
# interpreter); everything else it installs from the package registries.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's wall time, printed when the next begins, and the whole at the end (issue 59: the
# times a newcomer and CI can expect).
started=$SECONDS
step_start=$SECONDS
step_name=""
step() {
    [ -z "$step_name" ] || echo "   ($step_name: $((SECONDS - step_start)) s)"
    step_name=$1
    step_start=$SECONDS
    echo "== $1"
}
trap '[ -z "$step_name" ] || echo "   ($step_name: $((SECONDS - step_start)) s)"; echo "scripts/test.sh: $((SECONDS - started)) s in all"' EXIT
root=$PWD

step "cargo test --workspace"
INSTA_UPDATE="${INSTA_UPDATE:-no}" cargo test --workspace

# The 13 tests that need root and network namespaces (a shaped path: TUN emulator, veth pairs)
# are #[ignore]d, so that a plain `cargo test` says they did not run rather than passing them
# unrun. Here they run as root, or wherever NMC_NETNS=1 says the environment can (.ci/run sets
# it: CI runs as root); if they cannot make their namespaces, they fail.
if [ "$(id -u)" = 0 ] || [ "${NMC_NETNS:-}" = 1 ]; then
    step "the network-namespace tests (ignored by plain cargo test)"
    # One command over the workspace, so the test binaries are those `cargo test --workspace`
    # just built (`-p` would unify features afresh and compile them again: minutes of CI).
    # Every #[ignore]d test in these three targets is a namespace test.
    cargo test --workspace --test probe --test realtime --test cli -- --ignored
else
    step "the network-namespace tests: not run (need root; set NMC_NETNS=1 where they can run)"
fi

step "the page in a browser (issue 60): scripts/build-web.sh, and the wasm build under Node"
# The simulation compiled to wasm32-unknown-unknown (crates/nmc-wasm) and the page (web/) into
# target/web/: about 3.5 minutes of a 2-core machine from cold. Node's test runner compares the
# module's summaries with `nmc run`'s byte for byte (tests/wasm). Skipped, with the reason,
# only when rustup cannot add the target.
web_dir="$root/${CARGO_TARGET_DIR:-target}/web"
case "${CARGO_TARGET_DIR:-}" in /*) web_dir="$CARGO_TARGET_DIR/web" ;; esac
web_skip=""
if rustup target add wasm32-unknown-unknown >/dev/null 2>&1; then
    scripts/build-web.sh
    if command -v node >/dev/null 2>&1; then
        NMC_CLI="$root/target/debug/nmc" NMC_WASM="$web_dir/nmc_wasm.wasm" node --test tests/wasm/
    else
        echo "SKIPPED the Node test of the wasm build: node is not installed"
    fi
else
    web_skip="rustup could not add the wasm32-unknown-unknown target"
    echo "SKIPPED the page's build and its tests: $web_skip"
fi

step "Python: a fresh virtual environment"
py="${PYTHON:-python3}"
venv="$root/target/py-test-venv"
rm -rf "$venv"
"$py" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.9,<2"

step "Python: build the wheel (maturin, release)"
wheels="$root/target/py-test-wheels"
rm -rf "$wheels"
(cd python && "$venv/bin/maturin" build --release --out "$wheels")
wheel=$(ls "$wheels"/nmc-*.whl)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${wheel}[test]"

step "Python: pytest"
# From target/, so that `import nmc` is the installed wheel, not python/nmc (no compiled module).
cli="$root/target/debug/nmc"
cd "$root/target"
NMC_CLI="$([ -x "$cli" ] && echo "$cli" || true)" \
    "$venv/bin/python" -m pytest "$root/python/tests" -p no:cacheprovider -q

step "the instruments' JSON documents against their JSON Schemas (tests/schemas)"
# Issue 58 §4: schemas/nmc-instrument-2/ checked against every kind of -J document the
# instruments print on loopback (about 15 s), with jsonschema in the test environment.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "jsonschema>=4.18,<5"
NMC_CLI="$cli" "$venv/bin/python" -m pytest "$root/tests/schemas" -p no:cacheprovider -q

step "the report page in headless Chromium (tests/browser)"
# Chromium and ChromeDriver from the system's packages (Debian: chromium, chromium-driver),
# installed here when missing; Selenium into the test environment. The test is skipped, with
# the reason, only when the browser cannot be installed.
have_browser() { command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; }
if ! have_browser; then
    sudo=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; fi
    fi
    if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; }; then
        echo "installing chromium and chromium-driver with apt-get"
        $sudo apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1 \
            || { $sudo apt-get update -qq >/dev/null 2>&1 \
                 && $sudo apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1; } \
            || true
    fi
fi
# The page is the one the cli tests' `reproduce --all --quick` wrote a few minutes before
# (tests/cli/reproduce_table.rs, `all_quick`): the same binary, seed and command, so running
# it again here would only cost minutes. Without that folder the test runs its own.
report="$root/${CARGO_TARGET_DIR:-target}/tmp/reproduce-all-quick"
case "${CARGO_TARGET_DIR:-}" in /*) report="$CARGO_TARGET_DIR/tmp/reproduce-all-quick" ;; esac
[ -f "$report/index.html" ] || report=""
if have_browser; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "selenium>=4.10,<5"
    NMC_CLI="$cli" CHROMIUM="$(command -v chromium)" CHROMEDRIVER="$(command -v chromedriver)" \
        NMC_BROWSER_ARTEFACTS="$root/target/browser-test" NMC_REPORT_DIR="$report" \
        NMC_WEB_DIR="$web_dir" NMC_WEB_SKIP="$web_skip" \
        "$venv/bin/python" -m pytest "$root/tests/browser" -p no:cacheprovider -q
    echo "screenshot of the report's top: target/browser-test/report-top.png"
    [ -n "$web_skip" ] || echo "screenshot of the page (issue 60): target/browser-test/web-page.png"
else
    echo "SKIPPED the browser test: Chromium and ChromeDriver are not installed and could not be"
    echo "installed here (needs apt-get as root or passwordless sudo; Debian packages chromium, chromium-driver)"
fi
