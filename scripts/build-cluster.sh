#!/usr/bin/env bash
# Build a local Kubernetes control plane for the cluster tests (tests/test_cluster.py, `make test-cluster`):
# kube-apiserver, kube-controller-manager and kube-scheduler from k8s.io/kubernetes, etcd from
# go.etcd.io/etcd/server/v3, and kwok (simulated nodes and pods) from sigs.k8s.io/kwok.
#
#   scripts/build-cluster.sh              build (or reuse) and print where the binaries are
#   scripts/build-cluster.sh --print-bin  print only the bin directory (for scripts and CI)
#   scripts/build-cluster.sh --check      exit 0 when all of it is cached, 1 otherwise (builds nothing)
#
# k8s.io/kubernetes is served by the Go module proxy, but its go.mod replaces the k8s.io/* libraries
# with folders under staging/ that are modules of their own, so the module zip does not hold them
# (and vendor/ is empty). The script copies the downloaded module into the cache, drops those
# replaces in the copy, requires the published libraries at the matching v0.N.M tag instead and
# builds the three commands in one `go build` (they share almost every package). etcd's binary
# lives in a module whose go.mod replaces its siblings too, so a four-line wrapper module in the
# cache calls its published etcdmain package. kwok's command is built the same way as the
# Kubernetes commands (its module copied, its own go.mod as is). The CustomResourceDefinitions of
# KEDA, the Prometheus operator and Karpenter come from those projects' Go modules (their zips hold the
# generated YAML) into the cache's crds/. The LeaderWorkerSet controller is built from sigs.k8s.io/lws (its
# module copied, its own go.mod as is; the proxy lists no versions of it but serves the exact tag), and its
# CRD and webhook configuration come from the same module. Nothing is copied into this repository; built
# binaries are reused.
#
#   SHARDWISE_CLUSTER_CACHE  cache root (default ~/.cache/shardwise-cluster)
#   K8S_VERSION              k8s.io/kubernetes version (default v1.35.4)
#   ETCD_VERSION             go.etcd.io/etcd/server/v3 version (default v3.6.13)
#   KWOK_VERSION             sigs.k8s.io/kwok version (default v0.8.0)
#   LWS_VERSION              sigs.k8s.io/lws version (default v0.7.0: the release of the lws chart
#                            components/cluster.py pins)
#   KEDA_VERSION, PROMETHEUS_OPERATOR_VERSION, KARPENTER_VERSION  the modules the CRDs come from
#                            (defaults v2.21.0, v0.85.0, v1.13.1: the newest that this Go (1.26.8) accepts)
#
# Exit status: 0 all built or reused; 1 a build step failed (the go command's error is printed).
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.35.4}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.13}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
LWS_VERSION="${LWS_VERSION:-v0.7.0}"
CACHE="${SHARDWISE_CLUSTER_CACHE:-$HOME/.cache/shardwise-cluster}"
BIN="$CACHE/bin-k8s-${K8S_VERSION}-etcd-${ETCD_VERSION}-kwok-${KWOK_VERSION}"
PRINT_BIN=0
[[ "${1:-}" == "--print-bin" ]] && PRINT_BIN=1
if [[ "${1:-}" == "--check" ]]; then  # exit 0 when everything is built and cached, 1 otherwise; builds nothing
  for b in etcd kube-apiserver kube-controller-manager kube-scheduler kwok kwok-stages.yaml crds/.complete \
           "lws-$LWS_VERSION/lws-controller" "lws-$LWS_VERSION/.complete"; do
    [[ -e "$BIN/$b" ]] || exit 1
  done
  exit 0
fi

say() { if [[ $PRINT_BIN == 0 ]]; then echo "build-cluster: $*"; else echo "build-cluster: $*" >&2; fi; }

command -v go >/dev/null || { say "go is not installed: the control plane cannot be built here"; exit 1; }

export GOMAXPROCS="${GOMAXPROCS:-$(nproc)}"
export GOFLAGS="-buildvcs=false -trimpath -p=${GOMAXPROCS} -mod=mod"
export GOTOOLCHAIN=local
GO=(nice -n 10 go)

moddir() {  # the module cache folder of $1@$2 (downloaded if needed)
  GOFLAGS=-mod=mod go mod download -json "$1@$2" |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("Dir") or sys.exit(d.get("Error", "no Dir")))'
}

mkdir -p "$BIN"

# ---- kube-apiserver, kube-controller-manager, kube-scheduler
if [[ -x "$BIN/kube-apiserver" && -x "$BIN/kube-controller-manager" && -x "$BIN/kube-scheduler" ]]; then
  say "Kubernetes ${K8S_VERSION}: cached"
else
  t0=$(date +%s)
  SRC="$CACHE/src-kubernetes-${K8S_VERSION}"
  rm -rf "$SRC" && cp -r "$(moddir k8s.io/kubernetes "$K8S_VERSION")" "$SRC" && chmod -R u+w "$SRC"
  (
    cd "$SRC"
    rm -rf vendor go.work go.work.sum
    # every k8s.io/* library that go.mod points into staging/: published as v0.<minor>.<patch>
    LIB_VERSION="v0.${K8S_VERSION#v1.}"
    mapfile -t staged < <(go mod edit -json | python3 -c '
import json, sys
for r in json.load(sys.stdin).get("Replace") or []:
    if r["New"]["Path"].startswith("./staging/"):
        print(r["Old"]["Path"])')
    # (go mod edit, not go get: the go command would first look the placeholder v0.0.0 up)
    for m in "${staged[@]}"; do
      go mod edit -dropreplace "$m" -require "$m@$LIB_VERSION"
    done
    say "requiring ${#staged[@]} published libraries at $LIB_VERSION"
    "${GO[@]}" mod tidy
    ldflags="-s -w -X k8s.io/component-base/version.gitVersion=${K8S_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(echo "$K8S_VERSION" | cut -d. -f2)"
    "${GO[@]}" build -ldflags "$ldflags" -o "$BIN/" ./cmd/kube-apiserver ./cmd/kube-controller-manager ./cmd/kube-scheduler
  )
  say "Kubernetes ${K8S_VERSION}: built in $(( $(date +%s) - t0 ))s"
fi

# ---- etcd
if [[ -x "$BIN/etcd" ]]; then
  say "etcd ${ETCD_VERSION}: cached"
else
  t0=$(date +%s)
  W="$CACHE/src-etcd-${ETCD_VERSION}"
  rm -rf "$W" && mkdir -p "$W"
  (
    cd "$W"
    cat >main.go <<'EOF'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
    go mod init shardwise.local/etcd >/dev/null 2>&1
    "${GO[@]}" get "go.etcd.io/etcd/server/v3@${ETCD_VERSION}"
    "${GO[@]}" mod tidy
    "${GO[@]}" build -ldflags "-s -w" -o "$BIN/etcd" .
  )
  say "etcd ${ETCD_VERSION}: built in $(( $(date +%s) - t0 ))s"
fi

# ---- kwok
if [[ -x "$BIN/kwok" ]]; then
  say "kwok ${KWOK_VERSION}: cached"
else
  t0=$(date +%s)
  SRC="$CACHE/src-kwok-${KWOK_VERSION}"
  rm -rf "$SRC" && cp -r "$(moddir sigs.k8s.io/kwok "$KWOK_VERSION")" "$SRC" && chmod -R u+w "$SRC"
  (
    cd "$SRC"
    "${GO[@]}" build -ldflags "-s -w" -o "$BIN/kwok.tmp" ./cmd/kwok
    # the lifecycle kwok plays, from its own kustomize stages: nodes become Ready and keep a heartbeat;
    # pods bound to them become Running and Ready at once, complete and go when deleted
    for f in kustomize/stage/node/fast/node-initialize.yaml kustomize/stage/node/heartbeat/node-heartbeat.yaml \
             kustomize/stage/pod/fast/pod-ready.yaml kustomize/stage/pod/fast/pod-complete.yaml \
             kustomize/stage/pod/fast/pod-delete.yaml; do
      echo "---"; cat "$f"
    done >"$BIN/kwok-stages.yaml"
  )
  mv "$BIN/kwok.tmp" "$BIN/kwok"
  say "kwok ${KWOK_VERSION}: built in $(( $(date +%s) - t0 ))s"
fi

# ---- the CustomResourceDefinitions the stacks' objects need, from the Go modules of their projects
# (module zips hold the YAML their repositories generate; the charts that install them are not served)
if [[ -f "$BIN/crds/.complete" ]]; then
  say "CRDs: cached"
else
  rm -rf "$BIN/crds" && mkdir -p "$BIN/crds"
  KEDA="$(moddir github.com/kedacore/keda/v2 "${KEDA_VERSION:-v2.21.0}")"
  PROM="$(moddir github.com/prometheus-operator/prometheus-operator "${PROMETHEUS_OPERATOR_VERSION:-v0.85.0}")"
  KARPENTER="$(moddir github.com/aws/karpenter-provider-aws "${KARPENTER_VERSION:-v1.13.1}")"
  cp "$KEDA"/config/crd/bases/keda.sh_{scaledobjects,triggerauthentications}.yaml "$BIN/crds/"
  cp "$PROM"/example/prometheus-operator-crd/monitoring.coreos.com_{podmonitors,servicemonitors}.yaml "$BIN/crds/"
  cp "$KARPENTER"/pkg/apis/crds/karpenter.{sh_nodepools,sh_nodeclaims,k8s.aws_ec2nodeclasses}.yaml "$BIN/crds/"
  chmod u+w "$BIN"/crds/*.yaml
  touch "$BIN/crds/.complete"
  say "CRDs: $(ls "$BIN/crds" | wc -l) copied from KEDA, the Prometheus operator and Karpenter"
fi

# ---- the LeaderWorkerSet controller, its CRD and its webhook configuration (the module's config/)
LWS="$BIN/lws-$LWS_VERSION"
if [[ -x "$LWS/lws-controller" && -f "$LWS/.complete" ]]; then
  say "LeaderWorkerSet ${LWS_VERSION}: cached"
else
  t0=$(date +%s)
  SRC="$CACHE/src-lws-${LWS_VERSION}"
  rm -rf "$SRC" "$LWS" && mkdir -p "$LWS"
  cp -r "$(moddir sigs.k8s.io/lws "$LWS_VERSION")" "$SRC" && chmod -R u+w "$SRC"
  (
    cd "$SRC"
    "${GO[@]}" build -ldflags "-s -w -X sigs.k8s.io/lws/pkg/version.GitVersion=${LWS_VERSION}" -o "$LWS/lws-controller" ./cmd
    cp config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml "$LWS/crd.yaml"
    cp config/webhook/manifests.yaml "$LWS/webhook-manifests.yaml"
    cp config/webhook/mutating-patch.yaml config/webhook/validating-patch.yaml "$LWS/"
  )
  chmod u+w "$LWS"/*.yaml
  touch "$LWS/.complete"
  say "LeaderWorkerSet ${LWS_VERSION}: built in $(( $(date +%s) - t0 ))s"
fi

if [[ $PRINT_BIN == 1 ]]; then
  echo "$BIN"
else
  say "control plane at $BIN"
fi
