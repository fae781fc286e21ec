"""Argo CD Applications of one repository that deploy to two clusters are two deployable units (place16).

A multi-app GitOps repository (the shape of argoproj/argocd-example-apps' app-of-apps, or a platform repository with
one folder per team and one Application per folder) deploys each Application to its ``spec.destination``. Objects
rendered through Applications of two destination servers run on two clusters: the LoadBalancer Service and the
default-deny NetworkPolicy of one team are not judged against the other team's Deployment of the same labels. Two
Applications of the same destination share one cluster, and Kubernetes applies a namespace's policies and Services
to every pod in it, whichever Application made them: one unit, as before.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from shardwise.rules.adapters.gitops import argo_cluster
from shardwise.rules.app.cli import main
from tools_support import find_tool

ORIGIN = "https://github.com/acme/platform.git"

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {team}-vllm, namespace: serving}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: vllm}}}}
  template:
    metadata: {{labels: {{app: vllm}}}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [Qwen/Qwen2.5-1.5B-Instruct]
          ports: [{{containerPort: 8000}}]
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""

EXTRAS = """\
apiVersion: v1
kind: Service
metadata: {name: vllm-public, namespace: serving}
spec:
  type: LoadBalancer
  selector: {app: vllm}
  ports: [{port: 8000, targetPort: 8000}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny, namespace: serving}
spec:
  podSelector: {}
  policyTypes: [Ingress]
"""

APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {{name: {team}, namespace: argocd}}
spec:
  project: default
  source: {{repoURL: {origin}, targetRevision: HEAD, path: teams/{team}}}
  destination: {{{destination}, namespace: serving}}
"""


def _repo(root, destinations: dict[str, str]) -> None:
    """A platform repository: ``teams/a`` (a Deployment) and ``teams/b`` (a Deployment, a LoadBalancer Service and a
    default-deny policy), each a kustomize folder synced by its own Application in ``apps/``."""
    for team in ("a", "b"):
        folder = root / "teams" / team
        folder.mkdir(parents=True)
        names = ["deployment.yaml", *(["extras.yaml"] if team == "b" else [])]
        (folder / "deployment.yaml").write_text(DEPLOYMENT.format(team=team), encoding="utf-8")
        if team == "b":
            (folder / "extras.yaml").write_text(EXTRAS, encoding="utf-8")
        (folder / "kustomization.yaml").write_text(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [" + ", ".join(names)
            + "]\n", encoding="utf-8")
    (root / "apps").mkdir()
    for team, destination in destinations.items():
        (root / "apps" / f"{team}.yaml").write_text(
            APPLICATION.format(team=team, origin=ORIGIN, destination=destination), encoding="utf-8")
    for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", ORIGIN]):
        subprocess.run(["git", *args], cwd=root, check=True)


def _findings(tmp_path, monkeypatch, capsys, destinations: dict[str, str]) -> dict[str, list[tuple[str, str]]]:
    kustomize = find_tool("kustomize")
    if kustomize is None:
        pytest.skip("kustomize is not installed (make tools)")
    monkeypatch.setenv("PATH", os.path.dirname(kustomize) + os.pathsep + os.environ["PATH"])
    root = tmp_path / "platform"
    root.mkdir(parents=True)
    _repo(root, destinations)
    monkeypatch.chdir(root)
    main(["lint", "apps/", "teams/", "--format", "json"])
    import json

    out, _ = capsys.readouterr()
    found: dict[str, list[tuple[str, str]]] = {}
    for f in json.loads(out)["findings"]:
        if f["code"] in ("SW305", "SW306"):
            found.setdefault(f["code"], []).append((f["subject"], f["message"].removeprefix(f"{f['code']}: ")))
    return found


def test_two_destination_servers_are_two_clusters(tmp_path, monkeypatch, capsys):
    """Team b's LoadBalancer exposes its own Deployment only, and its default-deny policy does not cover team a's
    namespace on another cluster (on main: the Service exposed both, and team a's namespace had no SW305 finding)."""
    found = _findings(tmp_path, monkeypatch, capsys, {"a": "server: https://gpu-a.example.com:6443",
                                                      "b": "server: https://GPU-B.example.com:6443/"})
    [(subject, message)] = found["SW306"]
    assert subject == "Service serving/vllm-public"
    assert message.startswith("Service `serving/vllm-public` of type LoadBalancer exposes Deployment "
                              "serving/b-vllm directly on port 8000,")
    assert found["SW305"] == [("Namespace serving", "namespace `serving` (Deployment serving/a-vllm) has no "
                               "default-deny ingress policy (no network policy at all); every pod in the cluster can "
                               "reach vLLM without the gateway")]


def test_one_destination_is_one_cluster(tmp_path, monkeypatch, capsys):
    """The same server spelled alike, or a name and a server (which may be one cluster): one unit, as before."""
    for destinations in ({"a": "server: https://kubernetes.default.svc", "b": "server: https://kubernetes.default.svc"},
                         {"a": "name: in-cluster", "b": "server: https://kubernetes.default.svc"}):
        found = _findings(tmp_path / destinations["a"][:4], monkeypatch, capsys, destinations)
        [(_, message)] = found["SW306"]
        assert "exposes Deployment serving/a-vllm, Deployment serving/b-vllm directly" in message
        assert "SW305" not in found


@pytest.mark.parametrize(("destination", "cluster"), [
    ({"server": "https://GPU.Example.com:6443/"}, "server=https://gpu.example.com:6443"),
    ({"name": "in-cluster"}, "name=in-cluster"),
    ({"server": "{{server}}"}, None),
    ({}, None),
])
def test_argo_cluster(destination, cluster):
    obj = {"kind": "Application", "spec": {"destination": destination}}
    assert argo_cluster(obj) == cluster


@pytest.mark.parametrize(("load", "timeout"), [(1.0, 10), (12.0, 60)])
def test_a_checkout_git_call_may_take_longer_on_a_busy_machine(tmp_path, monkeypatch, load, timeout):
    """loadlimits1: git stopped at a flat 10 s on a busy runner read as no checkout (no remote, so the repository's
    GitOps objects rendered nothing); its wall limit is 10 s times the load per core (a fake load, two cores)."""
    from shardwise.rules.adapters import gitops
    from shardwise.rules.model import wall

    monkeypatch.setattr(wall.os, "getloadavg", lambda: (load, 0.0, 0.0))
    monkeypatch.setattr(wall.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    seen: list[float] = []

    def run(cmd, **kw):
        seen.append(kw["timeout"])
        return subprocess.CompletedProcess(cmd, 0, "git@github.com:acme/platform.git\n", "")

    monkeypatch.setattr(gitops.subprocess, "run", run)
    assert gitops._git(["config", "--get", "remote.origin.url"], str(tmp_path)) == "git@github.com:acme/platform.git"
    assert seen == [timeout]
