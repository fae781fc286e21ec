"""Nodes and on-demand cost of a serving group (rules/capacity/cost.py), read through the real adapters."""

from __future__ import annotations

import json
import textwrap

import pytest
from repo_paths import ROOT
from shardwise.rules.adapters import read_inputs
from shardwise.rules.capacity.cost import HOURS_PER_MONTH, workload_cost


def deployment(name: str = "llama", replicas: str = "3", gpus: int = 2, instance: str | None = "p4d.24xlarge",
               annotations: str = "", selector: str | None = None) -> str:
    sel = selector or (f"node.kubernetes.io/instance-type: {instance}" if instance else "")
    return textwrap.dedent(f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {name}
          namespace: serving
          annotations: {{{annotations}}}
        spec:
          replicas: {replicas}
          template:
            spec:
              nodeSelector: {{{sel}}}
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.11.0
                  args: [--model, meta-llama/Llama-3.1-8B-Instruct, --tensor-parallel-size, "{gpus}"]
                  resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}
        """)


def cost_of(tmp_path, text: str):
    path = tmp_path / "w.yaml"
    path.write_text(text)
    inv = read_inputs([str(path)])
    assert inv.errors == []
    (group,) = inv.groups
    return workload_cost(group)


def test_replicas_packed_onto_nodes(tmp_path):
    # 3 replicas × 2 GPUs on 8-GPU p4d.24xlarge nodes ($21.957642/h): 4 pods per node, 1 node
    c = cost_of(tmp_path, deployment())
    assert (c.gpus, c.nodes, c.gpus_per_node, c.instance_type, c.instance_assumed) == (6, 1, 8, "p4d.24xlarge", False)
    assert (c.hourly_usd, c.monthly_usd, c.price_date) == (21.957642, 21.957642 * 730, "2026-07-20")
    assert HOURS_PER_MONTH == 730


def test_five_pods_of_two_gpus_need_two_nodes(tmp_path):
    c = cost_of(tmp_path, deployment(replicas="5", gpus=2))
    assert (c.gpus, c.nodes, c.hourly_usd) == (10, 2, 2 * 21.957642)


def test_cost_per_million_output_tokens_needs_a_declared_throughput(tmp_path):
    c = cost_of(tmp_path, deployment(annotations='shardwise.dev/output-tokens-per-second: "1500"'))
    # $21.957642 per hour over 3 replicas × 1,500 tokens/s × 3,600 s
    assert c.output_tokens_per_second == 1500.0
    assert c.usd_per_million_output_tokens == pytest.approx(21.957642 / (3 * 1500 * 3600) * 1e6)
    assert round(c.usd_per_million_output_tokens, 4) == 1.3554
    assert cost_of(tmp_path, deployment()).usd_per_million_output_tokens is None


@pytest.mark.parametrize("value,message", [
    ("fast", "shardwise.dev/output-tokens-per-second: expected a number of tokens per second, got 'fast'"),
    ("0", "shardwise.dev/output-tokens-per-second: expected a positive number of tokens per second, got '0'"),
    ("inf", "shardwise.dev/output-tokens-per-second: expected a positive number of tokens per second, got 'inf'"),
])
def test_a_bad_throughput_is_an_input_error_with_its_line(tmp_path, value, message):
    path = tmp_path / "w.yaml"
    path.write_text(deployment(annotations=f'shardwise.dev/output-tokens-per-second: "{value}"'))
    inv = read_inputs([str(path)])
    assert [(e.file, e.line, e.message) for e in inv.errors] == [(str(path), 6, message)]  # the annotation's line


def test_a_pool_that_names_only_the_gpu_assumes_the_catalog_instance(tmp_path):
    # GPU Feature Discovery labels name the H100 and 8 GPUs a node: the catalog's 8-GPU H100 instance
    sel = "nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: '8'"
    c = cost_of(tmp_path, deployment(replicas="2", gpus=4, instance=None, selector=sel))
    assert (c.instance_type, c.instance_assumed, c.nodes, c.hourly_usd) == ("p5.48xlarge", True, 1, 55.04)


def test_an_instance_without_a_public_price_has_nodes_but_no_cost(tmp_path):
    c = cost_of(tmp_path, deployment(instance="p5e.48xlarge", gpus=8, replicas="2"))
    assert (c.nodes, c.hourly_usd, c.note) == (2, None, "p5e.48xlarge has no public on-demand price")


def test_a_pod_larger_than_its_node(tmp_path):
    c = cost_of(tmp_path, deployment(instance="g6e.12xlarge", gpus=8, replicas="1"))
    assert (c.nodes, c.hourly_usd, c.note) == (None, None, "a pod asks for 8 GPUs but a g6e.12xlarge node has 4")


def test_no_pool(tmp_path):
    c = cost_of(tmp_path, deployment(instance=None))
    assert (c.gpus, c.nodes, c.instance_type, c.note) == (6, None, None, "no GPU pool matches the workload")


def test_stack_service_throughput_reaches_the_cost(tmp_path):
    # the dev stack (one replica of an 8B model on a g6e.xlarge, $1.861/h) with a measured throughput
    text = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text()
    text = text.replace("        p95_context_tokens: 4096\n",
                        "        p95_context_tokens: 4096\n        output_tokens_per_second: 1200\n")
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(text)
    inv = read_inputs([str(path)])
    assert inv.errors == []
    (g,) = inv.groups
    c = workload_cost(g)
    assert (g.output_tokens_per_second, c.gpus, c.nodes, c.instance_type, c.hourly_usd) == (
        1200.0, 1, 1, "g6e.xlarge", 1.861)
    assert round(c.usd_per_million_output_tokens, 4) == round(1.861 / (1200 * 3600) * 1e6, 4) == 0.4308


def test_a_replica_count_beyond_int32_is_an_input_error_not_an_internal_error(tmp_path, capsys):
    # a fuzzed LeaderWorkerSet with replicas of 401 digits: the cost's node count was a float division
    # (OverflowError); Kubernetes' replicas are int32, and since hostile8 such a count is an input error at its line
    # (the API server refuses it), so the workload is neither sized nor priced, and the rest of the file is
    from repo_paths import FIXTURES
    from shardwise.rules.app.cli import main

    text = (FIXTURES / "rules/SW309/fail.yaml").read_text(encoding="utf-8").replace(
        "replicas: 1\n", "replicas: 1" + "0" * 400 + "\n", 1)
    path = tmp_path / "big.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["lint", str(path), "--format", "json"]) == 2
    out, err = capsys.readouterr()
    assert "internal error" not in err
    assert (f"shardwise: error: {path}:10: spec.replicas: expected an integer of at most 2,147,483,647 (Kubernetes "
            "types it as int32), got 10000000000000000000…(401 characters)") in err.splitlines()
    assert sorted(w["name"] for w in json.loads(out)["workloads"]) == ["llama-70b", "vllm-prefill"]


def _karpenter(capacity_types: str) -> str:
    return textwrap.dedent(f"""\
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {{name: gpu}}
        spec:
          template:
            spec:
              nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
              requirements:
                - {{key: karpenter.sh/capacity-type, operator: In, values: [{capacity_types}]}}
                - {{key: node.kubernetes.io/instance-type, operator: In, values: [p4d.24xlarge]}}
        ---
        """)


@pytest.mark.parametrize(("capacity_types", "spot_only"), [("spot", True), ("spot, on-demand", False),
                                                           ("on-demand", False)])
def test_a_spot_only_nodepool_is_priced_on_demand_and_says_so(tmp_path, capacity_types, spot_only):
    """The catalog holds on-demand prices only (karpenter-provider-aws's generated on-demand table): a NodePool that
    launches spot only (karpenter.sh/capacity-type In [spot]) keeps the on-demand figure, marked spot_only, which the
    Markdown report turns into a sentence (spot is billed below it); one that may launch on-demand is not marked."""
    c = cost_of(tmp_path, _karpenter(capacity_types) + deployment(selector="karpenter.sh/nodepool: gpu"))
    assert (c.instance_type, c.nodes, c.hourly_usd, c.spot_only) == ("p4d.24xlarge", 1, 21.957642, spot_only)
    assert c.as_dict()["spot_only"] is spot_only


def test_the_markdown_report_says_a_spot_only_price_is_an_upper_bound(tmp_path):
    from shardwise.rules.app.cli import main

    path = tmp_path / "w.yaml"
    path.write_text(_karpenter("spot") + deployment(selector="karpenter.sh/nodepool: gpu"))
    out = tmp_path / "r.md"
    main(["lint", str(path), "--format", "markdown", "--output", str(out)])
    assert ("Deployment serving/llama runs on spot capacity only: billed at spot prices, below these on-demand ones, "
            "which the catalog does not hold (the figures are an upper bound).") in out.read_text().splitlines()
