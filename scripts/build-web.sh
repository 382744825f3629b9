#!/usr/bin/env bash
# Builds the page of issue 60 (the IMP subnet in a browser) into target/web/: the simulation
# compiled to wasm32-unknown-unknown (crates/nmc-wasm, release), the page's files from web/,
# and the wasm's bytes once more as a script (nmc-wasm-bytes.js), so that the page works
# opened from disk (file://), where a browser fetches nothing. No network, no CDN, no npm.
#
#   scripts/build-web.sh            # then open target/web/index.html, or serve target/web/
#   OUT=dir scripts/build-web.sh    # somewhere else
#
# Needs rustup's wasm32-unknown-unknown target (added here when missing). Measured on the
# 2-core machine (2026-11-29): 3 min 33 s from cold, seconds after a change to the page only.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
out="${OUT:-$target_dir/web}"

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    rustup target add wasm32-unknown-unknown
fi
cargo build -p nmc-wasm --target wasm32-unknown-unknown --release
wasm="$target_dir/wasm32-unknown-unknown/release/nmc_wasm.wasm"

rm -rf "$out"
mkdir -p "$out"
cp web/*.html web/*.js web/*.css web/*.json "$out/"
cp "$wasm" "$out/nmc_wasm.wasm"
{
    printf '// The bytes of nmc_wasm.wasm (built by scripts/build-web.sh), for a page opened from disk.\n'
    printf 'var NMC_WASM_BASE64 = "'
    base64 -w0 "$wasm"
    printf '";\n'
} >"$out/nmc-wasm-bytes.js"
# The book (docs/, an mdBook) beside the page, for its links to the chapters; without mdbook
# the page names each chapter's source file instead.
if command -v mdbook >/dev/null 2>&1 && mdbook build docs -d "$out/book" >/dev/null 2>&1; then
    echo 'var NMC_BOOK = true;' >"$out/nmc-book.js"
else
    rm -rf "$out/book"
    echo 'var NMC_BOOK = false;' >"$out/nmc-book.js"
fi
echo "the page: $out/index.html ($(du -sh "$out" | cut -f1))"
