"""SW206's shortcut: a workload without a GPU selector is not reported when it starts on the smallest GPU of
the catalog, which takes its weights and the KV cache of one max_model_len sequence."""

from __future__ import annotations

import os

import pytest
from repo_paths import FIXTURES
from shardwise.rules.adapters import load_inputs
from shardwise.rules.capacity.sizing import size_replica
from shardwise.rules.catalog import find_model
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules

FIXTURE = os.path.join(FIXTURES, "k8s", "accelerators", "phi4-mini-any-gpu.yaml")


def test_phi4_mini_at_its_default_context_does_not_fit_the_smallest_gpu() -> None:
    """Before vLLM 0.12 a LongRoPE model without --max-model-len runs at its full 131,072 tokens, whose one
    sequence a T4 does not hold; from 0.12 it runs at config.json's original_max_position_embeddings (4,096: engine20),
    which it does."""
    model = find_model("microsoft/Phi-4-mini-instruct")
    s = size_replica(model, 14.75, vllm_version="0.11.0")  # a T4
    assert (round(s.weights_gib_per_gpu, 1), s.needed_kv_gib, s.max_model_len, s.verdict) == (
        7.2, 16.0, 131072, "refuses")
    s = size_replica(model, 14.75, vllm_version="0.12.0")
    assert (round(s.weights_gib_per_gpu, 1), s.needed_kv_gib, s.max_model_len, s.verdict) == (
        7.2, 0.5, 4096, "starts")


def test_sw206_counts_one_max_model_len_sequence() -> None:
    found = [(f.code, f.level, f.undecided, f.subject, f.location.line, f.message)
             for f in run_rules(ALL_RULES, load_inputs([FIXTURE])) if f.code == "SW206"]
    assert found == [
        ("SW206", "advisory", True, "Deployment default/phi4-mini-default", 13,
         "the vLLM workload has no nodeSelector or node affinity, so the capacity rules cannot size this "
         "workload; select the GPU pool with a nodeSelector (nvidia.com/gpu.product, node.kubernetes.io/instance-type "
         "or shardwise.dev/pool), or, on a cluster of one GPU type, lint a manifest of its nodes with the rest (a Node "
         "whose labels, or a Karpenter NodePool whose requirements, name the GPU)"),
    ]  # phi4-mini-4k (--max-model-len 4096) starts on any GPU


NODE = """\
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
  labels: {nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "1"}
"""
NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g6e]}
"""


@pytest.mark.parametrize("nodes,gpu", [(NODE, "L4"), (NODEPOOL, "L40S")])
def test_what_sw206_asks_for_decides_a_workload_without_a_selector(tmp_path, nodes, gpu) -> None:
    """SW206 asks a cluster of one GPU type for a manifest of its nodes (newuser6: the finding said only that it could
    not size the workload): with that manifest beside it, the workload without a selector is sized on that GPU."""
    (tmp_path / "nodes.yaml").write_text(nodes, encoding="utf-8")
    inv = load_inputs([FIXTURE, str(tmp_path / "nodes.yaml")])
    findings = run_rules(ALL_RULES, inv)
    assert [f.subject for f in findings if f.code == "SW206"] == []
    group = next(g for g in inv.groups if g.name == "phi4-mini-default")
    assert group.pool is not None and group.pool.gpu is not None and group.pool.gpu.name == gpu


_AFFINITY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: ds, namespace: serving}
spec:
  selector: {matchLabels: {app: ds}}
  template:
    metadata: {labels: {app: ds}}
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
TERMS
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "Qwen/Qwen3-32B", "--tensor-parallel-size", "2"]
          resources:
            limits: {nvidia.com/gpu: 2}
"""


@pytest.mark.parametrize(("terms", "named"), [
    # llm-d's CoreWeave label, two GPU classes in one term
    ("              - matchExpressions: [{key: gpu.nvidia.com/model, operator: In, values: [H200, H100_NVLINK_80GB]}]",
     "gpu.nvidia.com/model In ['H200', 'H100_NVLINK_80GB']) matches no GPU pool (pools: none declared) and names 2 "
     "GPU types (`H200`, `H100_NVLINK_80GB`), any of which the pods may get"),
    # a label that names no GPU type: as before
    ("              - matchExpressions: [{key: nvidia.com/gpu.present, operator: In, values: ['true']}]",
     "nvidia.com/gpu.present In ['true']) matches no GPU pool (pools: none declared) and names no GPU type"),
])
def test_sw206_says_which_gpu_types_an_affinity_names(tmp_path, terms, named) -> None:
    # small16: "names no GPU type" was said of an affinity that names several (on main, the first two cases)
    path = tmp_path / "ds.yaml"
    path.write_text(_AFFINITY.replace("TERMS", terms))
    found = [f.message for f in run_rules(ALL_RULES, load_inputs([str(path)])) if f.code == "SW206"]
    assert found == [
        f"the selector ({named}, so the capacity rules cannot size this workload; select the GPU pool with a "
        "nodeSelector (nvidia.com/gpu.product, node.kubernetes.io/instance-type or shardwise.dev/pool), or, on a "
        "cluster of one GPU type, lint a manifest of its nodes with the rest (a Node whose labels, or a Karpenter "
        "NodePool whose requirements, name the GPU)"]
