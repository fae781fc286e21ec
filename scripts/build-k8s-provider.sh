#!/usr/bin/env bash
# Build the real Pulumi Kubernetes provider plugin (pulumi-resource-kubernetes) from its Go module.
#
#   scripts/build-k8s-provider.sh              build (or reuse) and print where the plugin is
#   scripts/build-k8s-provider.sh --print-bin  print only the bin directory (for scripts and CI)
#
# github.com/pulumi/pulumi-kubernetes/provider/v4 is served by the Go module proxy only as a
# pseudo-version, and its go.mod replaces the SDK module with a folder of the repository
# (`../sdk`) that the module zip does not hold, so `go install` refuses it. This script copies the
# downloaded module into the cache, drops that replace in the copy, requires the published SDK
# module instead (`go get github.com/pulumi/pulumi-kubernetes/sdk/v4@v4.24.0`), runs the main
# package's generate.go (it writes the embedded, versioned schema and Terraform mapping) and
# `go build`s it under `nice -n 19`. Nothing is copied into this repository; a built plugin is reused.
#
#   SHARDWISE_PULUMI_CACHE  cache root, shared with scripts/build-pulumi.sh (default ~/.cache/shardwise-pulumi)
#   K8S_PROVIDER_VERSION    the provider module's version (default below: the one the proxy serves)
#   K8S_SDK_VERSION         the published sdk/v4 module required instead of ../sdk (default v4.24.0)
#
# Exit status: 0 the plugin is built or reused; 1 a build step failed (the go command's error is printed).
set -euo pipefail

K8S_PROVIDER_VERSION="${K8S_PROVIDER_VERSION:-v4.0.0-20260115033456-f47bc2d6f199}"
K8S_SDK_VERSION="${K8S_SDK_VERSION:-v4.24.0}"
MOD="github.com/pulumi/pulumi-kubernetes/provider/v4"
CACHE="${SHARDWISE_PULUMI_CACHE:-$HOME/.cache/shardwise-pulumi}"
ROOT="$CACHE/pulumi-kubernetes-${K8S_PROVIDER_VERSION}"
BIN="$ROOT/bin"
PRINT_BIN=0
[[ "${1:-}" == "--print-bin" ]] && PRINT_BIN=1

say() { if [[ $PRINT_BIN == 0 ]]; then echo "build-k8s-provider: $*"; else echo "build-k8s-provider: $*" >&2; fi; }

command -v go >/dev/null || { say "go is not installed: the Kubernetes provider cannot be built here"; exit 1; }

export GOMAXPROCS="${GOMAXPROCS:-$(nproc)}"
export GOFLAGS="-buildvcs=false -trimpath -p=${GOMAXPROCS}"
export GOTOOLCHAIN=local   # this machine's Go; the module proxy serves modules, not toolchains
GO=(nice -n 19 go)
# the plugin reports this version (semver without the leading v)
LDFLAGS="-s -w -X ${MOD}/pkg/version.Version=${K8S_PROVIDER_VERSION#v}"

mkdir -p "$BIN"
if [[ -x "$BIN/pulumi-resource-kubernetes" ]]; then
  say "pulumi-resource-kubernetes ${K8S_PROVIDER_VERSION}: cached ($BIN/pulumi-resource-kubernetes)"
else
  t0=$(date +%s)
  DIR="$(GOFLAGS=-mod=mod go mod download -json "${MOD}@${K8S_PROVIDER_VERSION}" |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("Dir") or sys.exit(d.get("Error", "no Dir")))')"
  SRC="$ROOT/src"
  rm -rf "$SRC" && cp -r "$DIR" "$SRC" && chmod -R u+w "$SRC"
  (
    cd "$SRC"
    go mod edit -dropreplace github.com/pulumi/pulumi-kubernetes/sdk/v4
    "${GO[@]}" get "github.com/pulumi/pulumi-kubernetes/sdk/v4@${K8S_SDK_VERSION}"
    cd cmd/pulumi-resource-kubernetes
    VERSION="${K8S_PROVIDER_VERSION#v}" "${GO[@]}" run generate.go
    "${GO[@]}" build -ldflags "$LDFLAGS" -o "$BIN/pulumi-resource-kubernetes.tmp" .
  )
  mv "$BIN/pulumi-resource-kubernetes.tmp" "$BIN/pulumi-resource-kubernetes"
  say "pulumi-resource-kubernetes ${K8S_PROVIDER_VERSION}: built in $(( $(date +%s) - t0 ))s"
fi

if [[ $PRINT_BIN == 1 ]]; then
  echo "$BIN"
else
  say "pulumi-resource-kubernetes at $BIN"
fi
