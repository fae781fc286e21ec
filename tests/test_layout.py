"""rules/capacity/layout.py: the layout search that `shardwise plan`, SW104, SW106 and SW202 share, and the promise it
keeps: a layout plan recommends is one `shardwise lint` does not block, and a layout plan marks with a mandatory
finding is one lint blocks with the same code."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from shardwise.rules.app.cli import main
from shardwise.rules.capacity.layout import (
    Node,
    Parallel,
    gpu_counts,
    layouts_for,
    plural,
    smaller,
    tp_allowed,
    weight_load_refusals,
)
from shardwise.rules.catalog import find_model

LLAMA_70B = find_model("meta-llama/Llama-3.1-70B-Instruct", None)  # 64 attention heads, 80 layers
DEEPSEEK_R1 = find_model("deepseek-ai/DeepSeek-R1", None)


def test_parallel_text_and_gpu_counts():
    assert (Parallel(4, 2).text(), Parallel(4, 2).gpus, Parallel(4, 2).world) == ("TP4×PP2", 8, 8)
    assert (Parallel(1, 1, 8, True).text(), Parallel(1, 1, 8, True).gpus, Parallel(1, 1, 8, True).world) == (
        "TP1×PP1×DP8 EP", 1, 8)
    assert (plural(1, "sequence"), plural(2, "sequence"), plural(1024, "GPU")) == (
        "1 sequence", "2 sequences", "1,024 GPUs")


def test_smaller_layouts_split_one_engine_evenly_fewest_gpus_first():
    assert smaller(LLAMA_70B, Parallel(4, 2)) == [
        Parallel(1, 1), Parallel(2, 1), Parallel(1, 2), Parallel(4, 1), Parallel(2, 2)]
    # SW202 asks only for TPs inside the NVLink domain (1: PCIe only)
    assert smaller(LLAMA_70B, Parallel(4, 1), max_tp=1) == [Parallel(1, 1)]
    assert smaller(LLAMA_70B, Parallel(1, 1)) == []


def test_layouts_for_keep_tp_inside_the_nvlink_domain_and_pipeline_beyond_it():
    # 8 GPUs of 4-GPU PCIe nodes (g6e.12xlarge): no TP over PCIe, 8 pipeline stages
    assert layouts_for(LLAMA_70B, 8, Node(4, 1)) == [Parallel(1, 8)]
    # H100 NVL pairs: TP2 on the bridge, PP2 across the pairs
    assert layouts_for(LLAMA_70B, 4, Node(4, 2)) == [Parallel(2, 2)]
    # NVSwitch nodes of 8: TP8 inside a node, PP2 across two nodes; a fixed --pp takes the rest as TP
    assert layouts_for(LLAMA_70B, 16, Node(8, 8)) == [Parallel(8, 2)]
    assert layouts_for(LLAMA_70B, 8, Node(8, 8), pp=2) == [Parallel(4, 2)]
    # a mixture-of-experts model also gets the same GPUs as data-parallel engines with the experts spread
    assert layouts_for(DEEPSEEK_R1, 8, Node(8, 8)) == [Parallel(8, 1), Parallel(1, 1, 8, True)]
    assert gpu_counts(Node(4, 1)) == ([1, 2, 4], [8, 16])
    assert gpu_counts(Node(8, 8)) == ([1, 2, 4, 8], [16, 32])


def plan_json(capsys, *argv: str) -> dict:
    assert main(["plan", *argv, "--vllm-version", "0.11.0", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_plan_takes_the_node_from_the_instance_type(capsys):
    """4 L40S joined by PCIe: no TP over PCIe; 70B in bf16 needs pipeline stages, and 16 sequences of 8,192 tokens
    take two nodes (PP4 holds 7 of them)."""
    d = plan_json(capsys, "--model", "meta-llama/Llama-3.1-70B-Instruct", "--instance-type", "g6e.12xlarge",
                  "--max-model-len", "8192", "--max-num-seqs", "16")
    assert d["node"] == {"gpus": 4, "nvlink_domain": 1, "interconnect": "pcie", "source": "g6e.12xlarge"}
    assert [(c["tensor_parallel_size"], c["pipeline_parallel_size"], c["max_num_seqs"], c["mandatory"])
            for c in d["candidates"]] == [
        (1, 1, 16, ["SW101"]), (1, 2, 16, ["SW101"]), (1, 4, 16, []), (1, 8, 16, []), (1, 16, 16, ["SW104"])]
    assert d["recommended"]["text"] == "recommended: TP1 × PP8 = 8 GPUs: one replica spans 2 4-GPU nodes"
    assert (d["recommended"]["nodes_per_replica"], d["recommended"]["replicas_per_node"]) == (2, None)


def test_plan_keeps_tp_on_the_nvlink_bridge_of_h100_nvl_pairs(capsys):
    d = plan_json(capsys, "--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "H100-NVL", "--gpus-per-node",
                  "4", "--max-model-len", "8192", "--max-num-seqs", "16")
    assert d["node"] == {"gpus": 4, "nvlink_domain": 2, "interconnect": "nvlink", "source": "--gpus-per-node"}
    assert [(c["tensor_parallel_size"], c["pipeline_parallel_size"], c["max_num_seqs"], c["mandatory"])
            for c in d["candidates"]] == [
        (1, 1, 16, ["SW101"]), (2, 1, 13, []), (2, 2, 16, ["SW104"]), (2, 4, 16, ["SW104"]),
        (2, 8, 16, ["SW104"])]
    assert d["recommended"]["text"] == (
        "recommended: TP2 × 2 replicas per 4-GPU node, --max-num-seqs 13 (the KV cache holds 13 sequences of 8,192 "
        "tokens; --max-num-seqs 16 does not fit: add replicas for the rest of the load)")


MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: planned
  namespace: serving
spec:
  replicas: 2
  selector: {{matchLabels: {{app: planned}}}}
  template:
    metadata: {{labels: {{app: planned}}}}
    spec:
      nodeSelector:
        node.kubernetes.io/instance-type: {instance}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [--model, {model}, --tensor-parallel-size, "{tp}", --pipeline-parallel-size, "{pp}",
                 --max-model-len, "8192", --max-num-seqs, "{seqs}"]
          resources:
            limits: {{nvidia.com/gpu: {gpus}}}
          volumeMounts:
            - {{name: shm, mountPath: /dev/shm}}
      volumes:
        - name: shm
          emptyDir: {{medium: Memory, sizeLimit: 16Gi}}
"""


def lint_layout(tmp_path, capsys, model: str, instance: str, tp: int, pp: int, seqs: int) -> tuple[int, list]:
    path = tmp_path / f"tp{tp}pp{pp}.yaml"
    path.write_text(MANIFEST.format(instance=instance, model=model, tp=tp, pp=pp, seqs=seqs, gpus=tp * pp))
    rc = main(["lint", str(path), "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    return rc, sorted({f["code"] for f in doc["findings"] if f["level"] == "mandatory"})


@pytest.mark.parametrize("model,instance,seqs", [
    ("meta-llama/Llama-3.1-70B-Instruct", "p5.48xlarge", 64),
    ("meta-llama/Llama-3.1-8B-Instruct", "g6e.12xlarge", 32),
    ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "p5.48xlarge", 16),
])
def test_plan_and_lint_agree_on_every_single_node_layout(tmp_path, capsys, model, instance, seqs):
    d = plan_json(capsys, "--model", model, "--instance-type", instance, "--max-model-len", "8192",
                  "--max-num-seqs", str(seqs))
    rec = d["recommended"]
    rc, blocking = lint_layout(tmp_path, capsys, model, instance, rec["tensor_parallel_size"],
                               rec["pipeline_parallel_size"], rec["max_num_seqs"])
    assert (rc, blocking) == (0, [])  # the layout plan recommends, written as a manifest, lints clean
    for c in d["candidates"]:
        if c["gpus"] > d["node"]["gpus"] or c["max_num_seqs_lowered"]:
            continue  # multi-node groups need a LeaderWorkerSet; lowered rows were re-linted at the lower width
        _, blocking = lint_layout(tmp_path, capsys, model, instance, c["tensor_parallel_size"],
                                  c["pipeline_parallel_size"], c["max_num_seqs"])
        assert blocking == sorted(c["mandatory"]), (c["tensor_parallel_size"], c["pipeline_parallel_size"])


# --------------------------------------------------------------------------------------------------
# Weights vLLM refuses to build or load at a tensor-parallel size (SW203; plan never proposes them)
# --------------------------------------------------------------------------------------------------

QWEN3_235B_FP8 = find_model("Qwen/Qwen3-235B-A22B-FP8", None)  # 128x128 blocks, moe_intermediate_size 1536
QWEN3_30B_FP8 = find_model("Qwen/Qwen3-30B-A3B-FP8", None)  # moe_intermediate_size 768


def _messages(model, tp, **kw):
    return [(r.sure, r.experts, r.message) for r in weight_load_refusals(model, tp, **kw)]


def test_block_fp8_experts_must_keep_whole_blocks_per_rank():
    assert _messages(QWEN3_235B_FP8, 4) == []  # 384 = 3 blocks
    assert _messages(QWEN3_235B_FP8, 8) == [(True, True, (
        "at tensor_parallel_size 8 each rank holds 192 columns of each expert's gate/up projection of "
        "Qwen/Qwen3-235B-A22B-FP8, not a multiple of block_n 128 (128x128 FP8 blocks); vLLM refuses to load "
        "the weights"))]
    assert _messages(QWEN3_235B_FP8, 8, expert_parallel=True) == []  # whole experts per rank
    assert [tp for tp in (1, 2, 4, 8, 16) if not tp_allowed(QWEN3_30B_FP8, tp)] == [4, 8, 16]
    # the bf16 original has no blocks to keep whole
    assert [tp for tp in (1, 2, 4, 8, 16) if not tp_allowed(find_model("Qwen/Qwen3-30B-A3B", None), tp)] == []


def test_kv_heads_divide_or_replicate_evenly():
    qwen7b = find_model("Qwen/Qwen2.5-7B-Instruct", None)  # 28 heads, 4 KV heads
    assert _messages(qwen7b, 7) == [(True, False, (
        "Qwen/Qwen2.5-7B-Instruct has 4 KV heads; tensor_parallel_size 7 neither divides them nor is a "
        "multiple of them"))]
    assert _messages(qwen7b, 2) == _messages(qwen7b, 4) == []  # 2 per rank; 1 per rank
    llama8b = find_model("meta-llama/Llama-3.1-8B-Instruct", None)  # 32 heads, 8 KV heads
    assert _messages(llama8b, 16) == []  # each KV head replicated on 2 ranks
    assert _messages(llama8b, 3) == [(True, False, (
        "meta-llama/Llama-3.1-8B-Instruct has 32 attention heads, not divisible by tensor_parallel_size 3"))]
    assert _messages(DEEPSEEK_R1, 16) == []  # MLA: one latent, no KV heads to split


def test_dense_block_fp8_and_awq_groups():
    base = find_model("meta-llama/Llama-3.1-8B-Instruct", None)  # intermediate 14336 = 112 x 128
    block = replace(base, id="acme/llama-fp8-block", precision="fp8", quantization="fp8", hf_config={
        "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}})
    assert _messages(block, 16) == []  # 896 = 7 blocks
    assert _messages(block, 32) == [(True, False, (
        "at tensor_parallel_size 32 each rank holds 448 columns of the MLP's gate/up projection of "
        "acme/llama-fp8-block, not a multiple of block_n 128 (128x128 FP8 blocks); vLLM refuses to load the weights"))]
    # compressed-tensors states its blocks under config_groups
    ct = replace(block, hf_config={"quantization_config": {"quant_method": "compressed-tensors", "config_groups": {
        "group_0": {"weights": {"num_bits": 8, "type": "float", "strategy": "block", "block_structure": [128, 128]}}}}})
    assert [r.message for r in weight_load_refusals(ct, 32)] == [m for _, _, m in _messages(block, 32)]
    # AWQ groups of 128 run along the input of the row-parallel layers: 14336 / 16 = 896 = 7 groups
    awq = replace(base, id="acme/llama-awq", precision="int4", quantization="awq", hf_config={
        "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128}})
    assert _messages(awq, 16) == []
    awq_g = replace(awq, hf_config={"quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 256}})
    assert _messages(awq_g, 16) == [(True, False, (
        "at tensor_parallel_size 16 each rank holds 896 input columns of the MLP's down projection of "
        "acme/llama-awq, not a multiple of group_size 256 (groups of 256 weights); vLLM refuses to load the weights"))]
    # per-channel scales (group_size -1) and per-tensor FP8 have nothing to keep whole
    per_channel = replace(awq, hf_config={"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": -1}})
    per_tensor = replace(block, hf_config={"quantization_config": {"quant_method": "fp8"}})
    assert _messages(per_channel, 32) == _messages(per_tensor, 32) == []


def test_a_block_size_read_from_the_name_only_is_not_sure():
    named = find_model("acme/Qwen3-235B-A22B-Instruct-2507-FP8", None)
    assert named.extra.get("quantization_config_assumed") is True
    assert _messages(named, 8) == [(False, True, (
        "at tensor_parallel_size 8 each rank holds 192 columns of each expert's gate/up projection of "
        "acme/Qwen3-235B-A22B-Instruct-2507-FP8, not a multiple of block_n 128; vLLM refuses to load the weights "
        "if the checkpoint stores 128x128 FP8 blocks (its quantization_config would say)"))]
    # Red Hat's FP8-dynamic copies scale per channel
    assert _messages(find_model("RedHatAI/gpt-oss-120b-FP8-dynamic", None), 8) == []


def test_the_layout_search_skips_tps_vllm_refuses():
    node = Node(8, 8)
    assert layouts_for(QWEN3_235B_FP8, 8, node) == [Parallel(4, 2), Parallel(1, 1, 8, True)]
    assert layouts_for(QWEN3_30B_FP8, 4, node) == [Parallel(2, 2), Parallel(1, 1, 4, True)]
