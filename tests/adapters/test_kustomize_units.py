"""A kustomize base that two overlays deploy (dev, prod) is one object per overlay, named by it (readers17).

The shape is adminless-io/aks-llm-platform's ``gitops/apps/llm`` (commit 6b5fdadb, MIT; vendored in the wide corpus):
a base Deployment of vLLM and per-environment overlays under ``overlays/dev`` and ``overlays/prod`` whose JSON 6902
patches change what the Deployment runs (its prod overlay carries, commented out, the patch that adds
``--tensor-parallel-size=2`` and raises ``nvidia.com/gpu`` to 2; here it is live), synced by an Argo CD Application.
``kustomize build overlays/dev`` and ``kustomize build overlays/prod`` each emit their own Deployment: two deployed
objects, with their own replicas, namespace and flags. Before, a folder search read the base once (with the largest
count of its overlays, both overlays one deployable unit), and a run whose Application built the prod overlay read the
base's Deployment twice: as written, and through the overlay (adopt17).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import textwrap

import pytest
import yaml
from shardwise.rules.adapters import read_inputs
from shardwise.rules.app.cli import main
from tools_support import find_tool

BASE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm-serving
  labels: {app: llm-serving}
spec:
  replicas: 1
  selector:
    matchLabels: {app: llm-serving}
  template:
    metadata:
      labels: {app: llm-serving}
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-L4
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args:
            - "--model=Qwen/Qwen2.5-7B-Instruct"
            - "--port=8000"
            - "--max-model-len=8192"
          ports:
            - name: http
              containerPort: 8000
          resources:
            requests: {cpu: "4", memory: 24Gi, nvidia.com/gpu: "1"}
            limits: {nvidia.com/gpu: "1"}
"""

DEV = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: llm-dev
resources:
  - ../../base
"""

PROD = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: llm-prod
resources:
  - ../../base
replicas:
  - name: llm-serving
    count: 3
patches:
  - target:
      kind: Deployment
      name: llm-serving
    patch: |
      - op: add
        path: /spec/template/spec/containers/0/args/-
        value: "--tensor-parallel-size=2"
      - op: replace
        path: /spec/template/spec/containers/0/resources/requests/nvidia.com~1gpu
        value: "2"
      - op: replace
        path: /spec/template/spec/containers/0/resources/limits/nvidia.com~1gpu
        value: "2"
"""

APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: llm-serving-prod, namespace: argocd}
spec:
  project: default
  source: {repoURL: https://github.com/acme/llm-platform.git, targetRevision: main, path: apps/llm/overlays/prod}
  destination: {server: https://kubernetes.default.svc, namespace: llm-prod}
"""


def _tree(root: pathlib.Path) -> None:
    files = {"apps/llm/base/deployment.yaml": BASE,
             "apps/llm/base/kustomization.yaml": "resources:\n  - deployment.yaml\n",
             "apps/llm/overlays/dev/kustomization.yaml": DEV,
             "apps/llm/overlays/prod/kustomization.yaml": PROD}
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def _built(root: pathlib.Path, overlay: str) -> dict[str, object] | None:
    """What ``kustomize build`` gives for one overlay's Deployment; None without kustomize."""
    tool = find_tool("kustomize")
    if tool is None:
        return None
    out = subprocess.run([tool, "build", str(root / "apps/llm/overlays" / overlay)], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    [dep] = [d for d in yaml.safe_load_all(out) if d and d.get("kind") == "Deployment"]
    container = dep["spec"]["template"]["spec"]["containers"][0]
    return {"namespace": dep["metadata"]["namespace"], "replicas": dep["spec"]["replicas"],
            "gpus": container["resources"]["limits"]["nvidia.com/gpu"], "args": container["args"]}


def test_a_base_of_two_overlays_is_one_object_per_overlay(tmp_path, monkeypatch):
    """Searching the folder: one workload per overlay, named by it, with its count and namespace; the prod copy
    records its patch (args and GPU count not applied: its blocking findings advisory), the dev copy none. Before:
    one workload ``apps/llm/base/deployment.yaml`` at 3 replicas in ``default``."""
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    inv = read_inputs(["apps"], jobs=1)
    got = sorted((g.location.file, g.location.line, g.replicas, g.namespace, g.patched_by) for g in inv.groups)
    assert got == [
        ("apps/llm/base/deployment.yaml (via apps/llm/overlays/dev/kustomization.yaml)", 1, 1, "llm-dev", None),
        ("apps/llm/base/deployment.yaml (via apps/llm/overlays/prod/kustomization.yaml)", 1, 3, "llm-prod",
         "../overlays/prod/kustomization.yaml"),
    ]
    for overlay, replicas in (("dev", 1), ("prod", 3)):
        built = _built(tmp_path, overlay)
        assert built is None or (built["namespace"], built["replicas"]) == (f"llm-{overlay}", replicas)
    assert _built(tmp_path, "prod") in (None, {"namespace": "llm-prod", "replicas": 3, "gpus": "2", "args": [
        "--model=Qwen/Qwen2.5-7B-Instruct", "--port=8000", "--max-model-len=8192", "--tensor-parallel-size=2"]})


def test_each_overlay_is_its_own_deployable_unit(tmp_path, monkeypatch):
    """The two copies are of two units (the repository's, refined by the overlay), so a Service or pool of one is
    not judged against the other; the base's own Service is copied into each overlay with its workload (readers19;
    before, it was read once, of both units, in neither overlay's namespace)."""
    _tree(tmp_path)
    (tmp_path / "apps/llm/base/service.yaml").write_text(
        "apiVersion: v1\nkind: Service\nmetadata: {name: llm-serving}\nspec:\n  selector: {app: llm-serving}\n"
        "  ports: [{port: 80, targetPort: http}]\n", encoding="utf-8")
    (tmp_path / "apps/llm/base/kustomization.yaml").write_text("resources: [deployment.yaml, service.yaml]\n",
                                                               encoding="utf-8")
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=tmp_path, check=True)
    monkeypatch.chdir(tmp_path)
    inv = read_inputs(["apps"], jobs=1)
    dev, prod = sorted(inv.groups, key=lambda g: g.namespace)
    assert inv.units[dev.location.file].endswith("|kustomize=apps/llm/overlays/dev")
    assert inv.units[prod.location.file].endswith("|kustomize=apps/llm/overlays/prod")
    assert not inv.same_unit(dev.location.file, prod.location.file)
    svc_dev, svc_prod = sorted(inv.services, key=lambda s: s.namespace)
    assert (svc_dev.namespace, svc_prod.namespace) == ("llm-dev", "llm-prod")
    assert inv.same_unit(svc_dev.location.file, dev.location.file)
    assert inv.same_unit(svc_prod.location.file, prod.location.file)
    assert not inv.same_unit(svc_dev.location.file, prod.location.file)


NETPOL = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny-ingress}
spec:
  podSelector: {}
  policyTypes: [Ingress]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-gateway}
spec:
  podSelector:
    matchLabels: {app: llm-serving}
  policyTypes: [Ingress]
  ingress:
    - from:
        - namespaceSelector:
            matchLabels: {kubernetes.io/metadata.name: gateway}
      ports:
        - {protocol: TCP, port: 8000}
"""

SERVICE = """\
apiVersion: v1
kind: Service
metadata: {name: llm-serving}
spec:
  type: ClusterIP
  selector: {app: llm-serving}
  ports:
    - {name: http, port: 80, targetPort: http}
"""


def test_an_overlay_that_does_not_patch_the_bases_service_and_policies_still_has_them(tmp_path, monkeypatch, capsys):
    """readers19: a base's Service and NetworkPolicies (the shape of the base/ folders that ship a default-deny beside
    the Deployment) are emitted by ``kustomize build`` of every overlay, in the overlay's namespace, though neither
    overlay patches them. Before, the Deployment was copied into llm-dev and llm-prod but the Service and the policies
    were read once and kept the base's namespace (the overlays disagree), so each copy of the Deployment had no
    Service and its namespace no default-deny: SW305 said so for llm-dev and llm-prod."""
    _tree(tmp_path)
    (tmp_path / "apps/llm/base/service.yaml").write_text(SERVICE, encoding="utf-8")
    (tmp_path / "apps/llm/base/networkpolicy.yaml").write_text(NETPOL, encoding="utf-8")
    (tmp_path / "apps/llm/base/kustomization.yaml").write_text(
        "resources: [deployment.yaml, service.yaml, networkpolicy.yaml]\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    inv = read_inputs(["apps"], jobs=1)
    via = " (via apps/llm/overlays/{}/kustomization.yaml)"
    assert sorted((s.location.file, s.namespace, s.name) for s in inv.services) == [
        ("apps/llm/base/service.yaml" + via.format("dev"), "llm-dev", "llm-serving"),
        ("apps/llm/base/service.yaml" + via.format("prod"), "llm-prod", "llm-serving")]
    assert sorted((p.location.file, p.location.line, p.namespace, p.name) for p in inv.network_policies) == [
        ("apps/llm/base/networkpolicy.yaml" + via.format("dev"), 1, "llm-dev", "default-deny-ingress"),
        ("apps/llm/base/networkpolicy.yaml" + via.format("dev"), 8, "llm-dev", "allow-gateway"),
        ("apps/llm/base/networkpolicy.yaml" + via.format("prod"), 1, "llm-prod", "default-deny-ingress"),
        ("apps/llm/base/networkpolicy.yaml" + via.format("prod"), 8, "llm-prod", "allow-gateway")]
    main(["lint", "apps", "--format", "json"])
    doc = json.loads(capsys.readouterr()[0])
    assert [f for f in doc["findings"] if f["code"] == "SW305"] == []


def test_findings_name_the_overlay_that_deploys_the_object(tmp_path, monkeypatch, capsys):
    """Each finding of the base's Deployment is given once per overlay, at the base's line, named by the overlay;
    none names the base file alone. The prod copy's SW201/SW204 cannot hold on flags read from the base: advisory.
    (The overlays read unbuilt: building is switched off here, as without kustomize on PATH; built, each finding
    names the same files, at the lines kustomize says wrote each field: newuser17.)"""
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    main(["lint", "apps", "--format", "json", "--no-build-found"])
    doc = json.loads(capsys.readouterr()[0])
    files = {f["file"] for f in doc["findings"] if f["file"].startswith("apps/llm/base/")}
    assert files <= {"apps/llm/base/deployment.yaml (via apps/llm/overlays/dev/kustomization.yaml)",
                     "apps/llm/base/deployment.yaml (via apps/llm/overlays/prod/kustomization.yaml)"}
    assert sorted(w["file"] for w in doc["workloads"]) == [
        "apps/llm/base/deployment.yaml (via apps/llm/overlays/dev/kustomization.yaml)",
        "apps/llm/base/deployment.yaml (via apps/llm/overlays/prod/kustomization.yaml)"]
    prod = [f for f in doc["findings"] if f["file"].endswith("prod/kustomization.yaml)")]
    assert all(f["level"] != "mandatory" or f["code"].startswith("SW3") for f in prod)


def test_a_gpu_patch_is_recorded(tmp_path, monkeypatch):
    """A patch that raises the GPU count only (no args) is recorded too: the base's count was read."""
    _tree(tmp_path)
    prod = tmp_path / "apps/llm/overlays/prod/kustomization.yaml"
    prod.write_text(prod.read_text(encoding="utf-8").replace(
        '      - op: add\n        path: /spec/template/spec/containers/0/args/-\n        value: "--tensor-parallel-size=2"\n',
        ""), encoding="utf-8")
    assert "tensor-parallel" not in prod.read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    patched = {g.namespace: g.patched_by for g in read_inputs(["apps"], jobs=1).groups}
    assert patched == {"llm-dev": None, "llm-prod": "../overlays/prod/kustomization.yaml"}


def test_an_application_that_builds_an_overlay_reads_its_base_once(tmp_path, monkeypatch, capsys):
    """adopt17: with the Argo CD Application of the prod overlay rendered, the base's Deployment was linted as written
    and again through the overlay. Now only the built objects: three replicas in llm-prod, named by the Application,
    and the dev overlay no Application names, built as met while searching (newuser14; before, its base was left out
    with the prod overlay's and dev was judged nowhere); prod is not built a second time as met."""
    kustomize = find_tool("kustomize")
    if kustomize is None:
        pytest.skip("kustomize is not installed (make tools)")
    monkeypatch.setenv("PATH", os.path.dirname(kustomize) + os.pathsep + os.environ["PATH"])
    _tree(tmp_path)
    (tmp_path / "argocd").mkdir()
    (tmp_path / "argocd/llm-serving-prod.yaml").write_text(APPLICATION, encoding="utf-8")
    for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", "https://github.com/acme/llm-platform.git"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True)
    monkeypatch.chdir(tmp_path)
    main(["lint", ".", "--format", "json"])
    doc = json.loads(capsys.readouterr()[0])
    got = sorted((w["file"], w["namespace"], w["replicas"]) for w in doc["workloads"])
    # newuser17: at the base's file, named by the overlay that built it (was `OVERLAY/kustomization.yaml (kustomize
    # build)`), as the overlays read unbuilt are
    assert got == [("apps/llm/base/deployment.yaml (via apps/llm/overlays/dev/kustomization.yaml)", "llm-dev", 1),
                   ("apps/llm/base/deployment.yaml (via apps/llm/overlays/prod/kustomization.yaml) (via Application "
                    "argocd/llm-serving-prod)", "llm-prod", 3)]
