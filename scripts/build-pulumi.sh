#!/usr/bin/env bash
# Build the real Pulumi CLI and its Python language host from their published Go modules.
#
#   scripts/build-pulumi.sh            build (or reuse) and print where the binaries are
#   scripts/build-pulumi.sh --print-bin  print only the bin directory (for scripts and CI)
#
# Nothing is copied into this repository and no module source is edited: a throw-away wrapper
# module in the cache directory requires the release's modules and `go build`s their main packages.
#
#   SHARDWISE_PULUMI_CACHE  cache root (default ~/.cache/shardwise-pulumi)
#   PULUMI_VERSION          release of github.com/pulumi/pulumi/{pkg,sdk}/v3 (default below: the
#                           newest the Go module proxy served that builds with Go 1.26)
#   PULUMI_LANGUAGE_PYTHON_VERSION  release of sdk/v3 whose pulumi-language-python is built
#                           (default v3.79.0, the last one that holds it; see below)
#
# Exit status: 0 the CLI is built or reused; 1 a build step failed (the go command's error is printed).
set -euo pipefail

PULUMI_VERSION="${PULUMI_VERSION:-v3.276.0}"
CACHE="${SHARDWISE_PULUMI_CACHE:-$HOME/.cache/shardwise-pulumi}"
ROOT="$CACHE/$PULUMI_VERSION"
BIN="$ROOT/bin"
PRINT_BIN=0
[[ "${1:-}" == "--print-bin" ]] && PRINT_BIN=1

say() { if [[ $PRINT_BIN == 0 ]]; then echo "build-pulumi: $*"; else echo "build-pulumi: $*" >&2; fi; }

command -v go >/dev/null || { say "go is not installed: the engine cannot be built here"; exit 1; }

# Two cores shared with other work: the lowest priority, both cores for the compiler.
export GOMAXPROCS="${GOMAXPROCS:-$(nproc)}"
export GOFLAGS="-buildvcs=false -trimpath -p=${GOMAXPROCS}"
export GOTOOLCHAIN=local   # this machine's Go; the module proxy serves modules, not toolchains
GO=(nice -n 19 go)
LDFLAGS="-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=${PULUMI_VERSION}"

mkdir -p "$BIN"

elapsed() { echo "$(( $(date +%s) - $1 ))s"; }

# --- the CLI ---------------------------------------------------------------------------------------
if [[ -x "$BIN/pulumi" ]]; then
  say "pulumi ${PULUMI_VERSION}: cached ($BIN/pulumi)"
else
  t0=$(date +%s)
  W="$ROOT/cli-wrapper"
  rm -rf "$W" && mkdir -p "$W"
  (
    cd "$W"
    go mod init shardwise.invalid/pulumi-cli >/dev/null 2>&1
    # pkg/v3's own go.mod replaces these; replace directives of a dependency are ignored, so the
    # wrapper states the same ones (sdk/v3 at the same release instead of pkg's ../sdk).
    go mod edit -replace "github.com/atotto/clipboard=github.com/tgummerer/clipboard@v0.0.0-20241001131231-d02d263e614e"
    "${GO[@]}" get -tool "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi@${PULUMI_VERSION}"
    "${GO[@]}" get "github.com/pulumi/pulumi/sdk/v3@${PULUMI_VERSION}"
    "${GO[@]}" build -ldflags "$LDFLAGS" -o "$BIN/pulumi.tmp" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
  )
  mv "$BIN/pulumi.tmp" "$BIN/pulumi"
  say "pulumi ${PULUMI_VERSION}: built in $(elapsed "$t0")"
fi

# --- the Python language host -----------------------------------------------------------------------
# From v3.80.0 the host is its own module (sdk/python/cmd/pulumi-language-python/v3), which the module
# proxy refuses (403); up to v3.79.0 it is a main package of sdk/v3 itself, which the proxy serves.
# `go install` refuses that module's replace directive (golang.org/x/text => v0.3.6), so a wrapper
# module states the same replace and builds the package; the host finds its `-exec` script (a plain
# file of the module) beside itself. It predates the CLI passing Pulumi.yaml's runtime options to
# it, so it does not read `virtualenv`: run it with PULUMI_PYTHON_CMD set to the venv's python.
HOST_VERSION="${PULUMI_LANGUAGE_PYTHON_VERSION:-v3.79.0}"
HOST_PKG="github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python"
HOST_LDFLAGS="-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=${HOST_VERSION}"
if [[ -x "$BIN/pulumi-language-python" && -f "$BIN/pulumi-language-python-exec" ]]; then
  say "pulumi-language-python ${HOST_VERSION}: cached ($BIN/pulumi-language-python)"
else
  t0=$(date +%s)
  W="$ROOT/host-wrapper-${HOST_VERSION}"
  rm -rf "$W" && mkdir -p "$W"
  (
    cd "$W"
    go mod init shardwise.invalid/pulumi-language-python >/dev/null 2>&1
    go mod edit -replace "golang.org/x/text=golang.org/x/text@v0.3.6"
    "${GO[@]}" get -tool "${HOST_PKG}@${HOST_VERSION}"
    "${GO[@]}" build -ldflags "$HOST_LDFLAGS" -o "$BIN/pulumi-language-python.tmp" "$HOST_PKG"
  )
  SDK_DIR="$(go mod download -json "github.com/pulumi/pulumi/sdk/v3@${HOST_VERSION}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')"
  install -m 0755 "$SDK_DIR/python/cmd/pulumi-language-python-exec" "$BIN/pulumi-language-python-exec"
  mv "$BIN/pulumi-language-python.tmp" "$BIN/pulumi-language-python"
  say "pulumi-language-python ${HOST_VERSION}: built in $(elapsed "$t0")"
fi

if [[ $PRINT_BIN == 1 ]]; then
  echo "$BIN"
else
  say "pulumi $("$BIN/pulumi" version) at $BIN"
  say "add it to PATH: export PATH=\"$BIN:\$PATH\""
fi
