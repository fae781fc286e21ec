#!/usr/bin/env bash
# Build the Go tools the pull-request workflow's tests and benchmarks use, from their Go modules:
#
#   actionlint  github.com/rhysd/actionlint/cmd/actionlint      lints .github/workflows (tests)
#   helm        helm.sh/helm/v3/cmd/helm                        renders charts for `shardwise lint chart/` (tests)
#   kustomize   sigs.k8s.io/kustomize/kustomize/v5              builds kustomization directories (tests)
#   kube-linter golang.stackrox.io/kube-linter/cmd/kube-linter  the benchmark's fastest peer (benchmarks only)
#
#   scripts/build-tools.sh               build (or reuse) all of them and print where they are
#   scripts/build-tools.sh --print-bin   print only the bin directory (for scripts and CI)
#   scripts/build-tools.sh --required    exit 1 when a tool the tests need could not be built
#
# Nothing is copied into this repository. Each tool is `go install`ed at a pinned release into its own
# cache directory (~/.cache/shardwise-tools/<tool>-<version>/bin), under `nice -n 19`; a built tool is
# reused (under a second). kube-linter: the Go module proxy refuses its module path
# golang.stackrox.io/kube-linter (403 for its version list and every version), so `go install` cannot
# build it; the proxy does serve the same source under the repository's path (`go mod download
# github.com/stackrox/kube-linter@v0.8.3`; only its version list is refused), so it is built from that
# module zip (or from a checkout at the release tag when SHARDWISE_KUBE_LINTER_SRC names one); its
# dependencies come from the proxy. If neither works it is skipped with a note, and the benchmark says
# kube-linter was not run and why.
#
#   SHARDWISE_TOOLS_CACHE      cache root (default ~/.cache/shardwise-tools)
#   SHARDWISE_KUBE_LINTER_SRC  a git checkout (or bare repository) of github.com/stackrox/kube-linter
set -euo pipefail

ACTIONLINT_VERSION="${ACTIONLINT_VERSION:-v1.7.12}"
HELM_VERSION="${HELM_VERSION:-v3.22.0}"          # the newest v3 the proxy served that builds with Go 1.26
KUSTOMIZE_VERSION="${KUSTOMIZE_VERSION:-v5.8.1}" # v5.8.2+ need Go 1.27
KUBE_LINTER_VERSION="${KUBE_LINTER_VERSION:-v0.8.3}"
CACHE="${SHARDWISE_TOOLS_CACHE:-$HOME/.cache/shardwise-tools}"
BIN="$CACHE/bin"
PRINT_BIN=0
REQUIRED=0
for a in "$@"; do
  case "$a" in
    --print-bin) PRINT_BIN=1 ;;
    --required) REQUIRED=1 ;;
    *) echo "build-tools: unknown argument $a" >&2; exit 2 ;;
  esac
done

say() { if [[ $PRINT_BIN == 0 ]]; then echo "build-tools: $*"; else echo "build-tools: $*" >&2; fi; }

command -v go >/dev/null || { say "go is not installed: the tools cannot be built here"; exit 1; }
export GOMAXPROCS="${GOMAXPROCS:-$(nproc)}"
export GOFLAGS="-buildvcs=false -trimpath -p=${GOMAXPROCS}"
export GOTOOLCHAIN=local   # this machine's Go; the module proxy serves modules, not toolchains
GO=(nice -n 19 go)
mkdir -p "$BIN"
failed=()

elapsed() { echo "$(( $(date +%s) - $1 ))s"; }

# install NAME VERSION PACKAGE [LDFLAGS]: go install PACKAGE@VERSION into its own directory, linked from $BIN.
install_tool() {
  local name="$1" version="$2" pkg="$3" ldflags="${4:-}" dir="$CACHE/$1-$2"
  if [[ -x "$dir/bin/$name" ]]; then
    say "$name $version: cached ($dir/bin/$name)"
  else
    local t0; t0=$(date +%s)
    mkdir -p "$dir/bin"
    if GOBIN="$dir/bin" "${GO[@]}" install -ldflags "-s -w $ldflags" "$pkg@$version"; then
      say "$name $version: built in $(elapsed "$t0")"
    else
      say "$name $version: go install $pkg@$version failed"
      failed+=("$name")
      return 0
    fi
  fi
  ln -sfn "$dir/bin/$name" "$BIN/$name"
}

install_tool actionlint "$ACTIONLINT_VERSION" github.com/rhysd/actionlint/cmd/actionlint \
  "-X github.com/rhysd/actionlint.version=${ACTIONLINT_VERSION}"
install_tool helm "$HELM_VERSION" helm.sh/helm/v3/cmd/helm \
  "-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}"
install_tool kustomize "$KUSTOMIZE_VERSION" sigs.k8s.io/kustomize/kustomize/v5 \
  "-X sigs.k8s.io/kustomize/api/provenance.version=kustomize/${KUSTOMIZE_VERSION}"

# kube-linter: benchmarks only, never required.
KL_DIR="$CACHE/kube-linter-$KUBE_LINTER_VERSION"
if [[ -x "$KL_DIR/bin/kube-linter" ]]; then
  say "kube-linter $KUBE_LINTER_VERSION: cached ($KL_DIR/bin/kube-linter)"
  ln -sfn "$KL_DIR/bin/kube-linter" "$BIN/kube-linter"
else
  t0=$(date +%s)
  rm -rf "$KL_DIR/src" && mkdir -p "$KL_DIR/src" "$KL_DIR/bin"
  from=""
  if [[ -n "${SHARDWISE_KUBE_LINTER_SRC:-}" ]]; then
    git -C "$SHARDWISE_KUBE_LINTER_SRC" archive "$KUBE_LINTER_VERSION" | tar -x -C "$KL_DIR/src" \
      && from="$SHARDWISE_KUBE_LINTER_SRC at $KUBE_LINTER_VERSION"
  elif zipdir="$(cd "$KL_DIR" && go mod download -json "github.com/stackrox/kube-linter@$KUBE_LINTER_VERSION" \
        | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')" && [[ -d "$zipdir" ]]; then
    cp -R "$zipdir/." "$KL_DIR/src/" && chmod -R u+w "$KL_DIR/src" && from="the github.com/stackrox/kube-linter@$KUBE_LINTER_VERSION module zip"
  fi
  if [[ -z "$from" ]]; then
    say "kube-linter: not built (the Go module proxy refuses golang.stackrox.io/kube-linter, and neither" \
        "github.com/stackrox/kube-linter@$KUBE_LINTER_VERSION nor SHARDWISE_KUBE_LINTER_SRC gave its source)"
  elif (cd "$KL_DIR/src" && "${GO[@]}" build -ldflags "-s -w -X golang.stackrox.io/kube-linter/internal/version.version=${KUBE_LINTER_VERSION#v}" \
      -o "$KL_DIR/bin/kube-linter" ./cmd/kube-linter); then
    rm -rf "$KL_DIR/src"
    ln -sfn "$KL_DIR/bin/kube-linter" "$BIN/kube-linter"
    say "kube-linter $KUBE_LINTER_VERSION: built in $(elapsed "$t0") from $from"
  else
    say "kube-linter $KUBE_LINTER_VERSION: go build failed"
  fi
fi

if [[ $PRINT_BIN == 1 ]]; then
  echo "$BIN"
else
  say "add them to PATH: export PATH=\"$BIN:\$PATH\""
fi
if [[ ${#failed[@]} -gt 0 && $REQUIRED == 1 ]]; then
  say "not built: ${failed[*]}"
  exit 1
fi
