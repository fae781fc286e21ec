"""Which workloads SW404 takes for production, as docs/cli.md (the config file's `production`) says: a stack config
whose ``shardwise:environment.production`` is true makes every workload of the run production, a plain manifest's
too, unless the workload's annotation ``shardwise.dev/production: "false"`` says it does not serve production."""

from __future__ import annotations

import json
import shutil

import pytest
from repo_paths import ROOT
from shardwise.rules.app.cli import main

MISTRAL = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: mistral
  namespace: llm
{annotations}spec:
  replicas: 1
  selector:
    matchLabels: {{app: mistral}}
  template:
    metadata:
      labels: {{app: mistral}}
    spec:
      nodeSelector:
        node.kubernetes.io/instance-type: g6e.12xlarge
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          args: ["--model", "mistralai/Mistral-7B-Instruct-v0.3", "--port", "8000"]
          resources:
            limits: {{nvidia.com/gpu: 1}}
"""


def sw404(capsys: pytest.CaptureFixture[str], *paths: str) -> list[tuple[str, bool]]:
    main(["lint", *paths, "--format", "json"])
    found = json.loads(capsys.readouterr().out)["findings"]
    return [(f["subject"], f["suppressed"]) for f in found if f["code"] == "SW404"]


@pytest.mark.parametrize("annotations, expected", [
    ("", [("Deployment llm/mistral", False)]),
    ('  annotations: {shardwise.dev/production: "false"}\n', []),
])
def test_a_production_stack_makes_a_plain_manifest_production(tmp_path, monkeypatch, capsys, annotations, expected):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "mistral.yaml").write_text(MISTRAL.format(annotations=annotations))
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "stacks" / "Pulumi.prod.yaml", tmp_path / "stacks" / "Pulumi.prod.yaml")
    assert sw404(capsys, "deploy/") == []  # alone, nothing says it serves production
    # the stack's own single-replica group is SW404 too (suppressed there with its reason)
    assert sw404(capsys, "deploy/", "stacks/") == [*expected, ("LeaderWorkerSet serving/llama-405b", True)]
