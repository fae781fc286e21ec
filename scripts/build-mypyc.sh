#!/usr/bin/env bash
# Compile shardwise's hottest pure-Python modules with mypyc (ships with mypy, a dev dependency) into
# extensions beside their sources (rules/**/*.cpython-*.so, rules/_mc__mypyc.*.so): an optional accelerator,
# like the compiled YAML reader. The modules are listed in scripts/mypyc_build.py.
#
#   scripts/build-mypyc.sh PYTHON    build (or keep a current build) for that interpreter
#
# Without mypyc or a C compiler, or when the build fails, it says so, removes what it built and exits 0: the
# modules are then imported from their sources (the same results, about a fifth more instructions of a lint).
# SHARDWISE_MYPYC=0 removes the extensions and builds none; SHARDWISE_REQUIRE_MYPYC=1 makes a failed build exit
# 1. A build takes two to four minutes (under `nice`; `make setup` runs it); a compiled source edited since then retires the extensions at
# import (rules/_module_code.py) until the next build.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${1:-python3}"
case "$python" in /*) ;; */*) python="$PWD/$python" ;; esac  # the build runs in its staging folder
say() { echo "build-mypyc: $*" >&2; }
clean() {
    find rules -name '*.cpython-*.so' -delete
    rm -f rules/_mc_sources.marshal
}
give_up() {
    clean
    say "$1; the modules are imported from their sources (same results, slower)"
    if [ "${SHARDWISE_REQUIRE_MYPYC:-}" = "1" ]; then
        say "SHARDWISE_REQUIRE_MYPYC=1: failing"
        exit 1
    fi
    exit 0
}
if [ "${SHARDWISE_MYPYC:-}" = "0" ]; then
    clean
    exit 0
fi
if ! "$python" -c "import mypyc.build" 2>/dev/null; then
    give_up "mypyc not found (pip install mypy)"
fi
mapfile -t modules < <("$python" scripts/mypyc_build.py --modules)
# current: no source of rules/ changed since (the compiled code checks the types of the classes it reads from
# the other modules too: a field's annotation edited there needs a new build)
if [ -f rules/_mc_sources.marshal ] \
    && [ -z "$(find scripts/mypyc_build.py rules -name '*.py' -newer rules/_mc_sources.marshal -print -quit 2>/dev/null | head -1)" ] \
    && [ -z "$(for m in "${modules[@]}"; do ls rules/$m.cpython-*.so >/dev/null 2>&1 || echo missing; done)" ]; then
    exit 0  # current
fi
say "compiling ${#modules[@]} modules with mypyc (two to four minutes) ..."
t0=$(date +%s)
stage=build/mypyc
rm -rf "$stage"
mkdir -p "$stage/shardwise"
cp shardwise/__init__.py "$stage/shardwise/"
ln -s ../../../rules "$stage/shardwise/rules"
cp scripts/mypyc_build.py "$stage/"
# mypy's settings for the build: those of pyproject.toml ([tool.mypy])
printf '[mypy]\npython_version = 3.11\nignore_missing_imports = True\nplugins = pydantic.mypy\n' > "$stage/mypy.ini"
if ! (cd "$stage" && nice -n 10 "$python" mypyc_build.py > build.log 2>&1); then
    tail -n 20 "$stage/build.log" >&2
    give_up "the mypyc build failed (all of it in $stage/build.log)"
fi
"$python" scripts/mypyc_build.py --manifest rules
if ! "$python" -c "import shardwise.rules.capacity.group" 2>/dev/null; then
    give_up "the compiled modules do not import"
fi
say "compiled ${#modules[@]} modules in $(( $(date +%s) - t0 )) s"
