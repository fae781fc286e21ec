"""A data-parallel engine set is one replica holding TP × PP × DP GPUs: lint's JSON and Markdown reports count
them as cost does (a DP8 Deployment of TP1 holds 8 GPUs, not 1), and ``shardwise diff`` prices the same GPUs."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from shardwise.rules.app.cli import main

# vLLM's own data-parallel launch in one pod (docs/serving/data_parallel_deployment.md: `vllm serve $MODEL
# --data-parallel-size 4`): eight engines of TP1, one API server, the pod holding the eight GPUs
DP8 = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: deepseek-r1-dp8-ep
  namespace: serving
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: deepseek-r1-dp8-ep}}}}
  template:
    metadata: {{labels: {{app: deepseek-r1-dp8-ep}}}}
    spec:
      nodeSelector:
        node.kubernetes.io/instance-type: p5en.48xlarge
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [deepseek-ai/DeepSeek-R1, --data-parallel-size, "8", --enable-expert-parallel, --max-model-len, "32768"]
          resources:
            limits: {{nvidia.com/gpu: 8}}
"""


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def lint(capsys, path: Path, fmt: str) -> str:
    main(["lint", path.name, "--format", fmt])
    return capsys.readouterr().out


@pytest.mark.parametrize("replicas, total, nodes", [(1, 8, 1), (2, 16, 2)])
def test_dp8_replica_holds_eight_gpus_in_json(work, capsys, replicas, total, nodes):
    f = work / "dp8.yaml"
    f.write_text(textwrap.dedent(DP8.format(replicas=replicas)))
    (w,) = json.loads(lint(capsys, f, "json"))["workloads"]
    assert (w["tensor_parallel_size"], w["pipeline_parallel_size"], w["data_parallel_size"]) == (1, 1, 8)
    assert (w["replicas"], w["gpus_per_replica"], w["gpus_total"]) == (replicas, 8, total)
    assert (w["cost"]["gpus"], w["cost"]["nodes"], w["cost"]["instance_type"]) == (total, nodes, "p5en.48xlarge")


def test_dp8_markdown_cell_names_the_dp_factor(work, capsys):
    f = work / "dp8.yaml"
    f.write_text(textwrap.dedent(DP8.format(replicas=2)))
    out = lint(capsys, f, "markdown")
    assert "| GPUs (replicas × TP × PP, × DP where not 1) |" in out
    row = next(line for line in out.splitlines() if line.startswith("| Deployment serving/deepseek-r1-dp8-ep |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == "16 = 2 × 1 × 1 × 8"
