#!/usr/bin/env bash
# Build shardwise's optional compiled YAML reader (native/, Rust: pyo3 and unsafe-libyaml from
# crates.io) into rules/_yamlfast.abi3.so, where `import shardwise.rules._yamlfast` finds it.
#
#   scripts/build-native.sh PYTHON    build (or keep a current build) for that interpreter
#
# Without cargo, or when the build fails, it says so and exits 0: the linter then reads YAML with its
# Python reader (the same results, about three times the CPU time for YAML). SHARDWISE_REQUIRE_NATIVE=1
# makes a missing or failed build exit 1 (CI). The build runs under `nice`, takes about a minute the
# first time (the crates come from crates.io through cargo's registry, pinned by native/Cargo.lock)
# and nothing when the library is newer than its sources.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${1:-python3}"
out="rules/_yamlfast.abi3.so"
say() { echo "build-native: $*" >&2; }
give_up() {
    say "$1; YAML is read by the Python reader (same results, slower)"
    if [ "${SHARDWISE_REQUIRE_NATIVE:-}" = "1" ]; then
        say "SHARDWISE_REQUIRE_NATIVE=1: failing"
        exit 1
    fi
    exit 0
}

if ! command -v cargo >/dev/null 2>&1; then
    give_up "cargo not found (install Rust to build the compiled reader)"
fi
if [ -f "$out" ] && [ -z "$(find native/Cargo.toml native/Cargo.lock native/src -newer "$out" -print -quit)" ]; then
    exit 0  # current
fi
say "building the compiled YAML reader (cargo build --release --locked, about a minute the first time) ..."
t0=$(date +%s)
if ! PYO3_PYTHON="$python" nice -n 10 cargo build --quiet --release --locked --manifest-path native/Cargo.toml; then
    rm -f "$out"
    give_up "cargo build failed"
fi
built=""
for candidate in native/target/release/lib_yamlfast.so native/target/release/lib_yamlfast.dylib; do
    if [ -f "$candidate" ]; then built="$candidate"; break; fi
done
if [ -z "$built" ]; then
    give_up "cargo built no library this script knows (looked for lib_yamlfast.so and .dylib)"
fi
cp "$built" "$out.tmp"
mv "$out.tmp" "$out"
if ! "$python" -c "import shardwise.rules._yamlfast" 2>/dev/null; then
    rm -f "$out"
    give_up "the built library does not import"
fi
say "built $out in $(( $(date +%s) - t0 )) s"
