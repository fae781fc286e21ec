"""A Deployment at ``replicas: 0`` that an Argo Rollout runs through ``spec.workloadRef`` is sized at the Rollout's
replicas: Argo Rollouts builds its ReplicaSets from the referenced pod template, ``spec.replicas`` of them (default 1),
the Deployment kept at zero by design (argoproj/argo-rollouts, docs/migrating.md, "Reference Deployment From
Rollout"). The shapes are that page's: the Deployment scaled to zero, the Rollout naming it with its selector."""

from __future__ import annotations

import json

import pytest
from shardwise.rules.app.cli import main

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama8b, namespace: serving}
spec:
  replicas: 0
  selector:
    matchLabels: {app: llama8b}
  template:
    metadata:
      labels: {app: llama8b}
    spec:
      nodeSelector:
        node.kubernetes.io/instance-type: g6e.xlarge
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192"]
          resources:
            limits: {nvidia.com/gpu: 1}
"""


def rollout(name: str = "llama8b", replicas: str | None = "3") -> str:
    return (
        "---\napiVersion: argoproj.io/v1alpha1\nkind: Rollout\n"
        f"metadata: {{name: {name}, namespace: serving}}\nspec:\n"
        + (f"  replicas: {replicas}\n" if replicas is not None else "")
        + "  selector:\n    matchLabels: {app: llama8b}\n"
        "  workloadRef: {apiVersion: apps/v1, kind: Deployment, name: llama8b}\n"
        "  strategy:\n    canary:\n      steps: [{setWeight: 20}, {pause: {}}]\n"
    )


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def workload(capsys, *paths: str) -> dict:
    main(["lint", *paths, "--format", "json"])
    (w,) = json.loads(capsys.readouterr().out)["workloads"]
    return w


def figures(w: dict) -> tuple:
    return (w["replicas"], w["gpus_total"], w["cost"]["gpus"], w["cost"]["nodes"], w["cost"]["instance_type"],
            w["cost"]["hourly_usd"])


# g6e.xlarge: one L40S, 1.861 USD an hour on demand (the catalog's price)
@pytest.mark.parametrize("replicas, expected", [
    ("3", (3, 3, 3, 3, "g6e.xlarge", 5.583)),      # the Rollout's 3 pods, one GPU and one node each
    (None, (1, 1, 1, 1, "g6e.xlarge", 1.861)),     # no replicas: Argo Rollouts' default, 1
    ("0", (0, 0, 0, 0, "g6e.xlarge", 0.0)),        # a Rollout of 0 runs nothing either
])
def test_referenced_deployment_is_sized_at_the_rollouts_replicas(work, capsys, replicas, expected):
    (work / "app.yaml").write_text(DEPLOYMENT + rollout(replicas=replicas))
    assert figures(workload(capsys, "app.yaml")) == expected


def test_rollout_in_another_file_sizes_it_too(work, capsys):
    (work / "deploy").mkdir()
    (work / "deploy" / "deployment.yaml").write_text(DEPLOYMENT)
    (work / "deploy" / "rollout.yaml").write_text(rollout(replicas="2"))
    assert figures(workload(capsys, "deploy")) == (2, 2, 2, 2, "g6e.xlarge", 3.722)


def test_placeholder_replicas_leave_the_count_unknown(work, capsys):
    (work / "app.yaml").write_text(DEPLOYMENT + rollout(replicas='"{{ .Values.replicas }}"'))
    w = workload(capsys, "app.yaml")
    assert (w["replicas"], w["gpus_total"], w["cost"]["gpus"], w["cost"]["nodes"], w["cost"]["note"]) == (
        None, None, None, None, "unknown: replicas")


def test_a_rollout_naming_another_deployment_leaves_it_at_zero(work, capsys):
    (work / "app.yaml").write_text(DEPLOYMENT + rollout(replicas="3").replace("name: llama8b}\n  strategy",
                                                                             "name: other}\n  strategy"))
    assert figures(workload(capsys, "app.yaml")) == (0, 0, 0, 0, "g6e.xlarge", 0.0)
