"""Quantised and long-context checkpoints that public recipes name and the catalog lacked (issue 28).

GLM-4.5-FP8 and GLM-4.5-Air-FP8 are compressed-tensors FP8 with one scale per output channel: no block stays whole
on a rank, so every tensor-parallel size the heads allow loads (vLLM's own recipe runs the Air at TP8). A re-upload
known only by an ``-FP8`` name keeps the 128 x 128 block assumption, and its refusals stay advisory.
"""

from __future__ import annotations

import pytest
from shardwise.rules.app.cli import main
from shardwise.rules.capacity.layout import weight_load_refusals
from shardwise.rules.catalog import find_model
from shardwise.rules.vllm import kv_layout


@pytest.mark.parametrize(
    ("model_id", "base", "params"),
    [
        ("zai-org/GLM-4.5-Air-FP8", "zai-org/GLM-4.5-Air", 106_852_251_264),
        ("zai-org/GLM-4.5-FP8", "zai-org/GLM-4.5", 352_797_829_024),
    ],
)
def test_glm45_fp8_is_channel_wise_compressed_tensors(model_id, base, params):
    m = find_model(model_id)
    assert (m.precision, m.quantization, m.base_model, m.params) == ("fp8", "compressed-tensors", base, params)
    group = m.hf_config["quantization_config"]["config_groups"]["group_0"]
    assert (group["weights"]["type"], group["weights"]["num_bits"], group["weights"]["strategy"]) == (
        "float", 8, "channel")
    assert "quantization_config_assumed" not in m.extra
    # heads 96 and KV heads 8: TP 2, 4, 8 and 16 all load; no block of the experts' 1,408 / 1,536 columns to keep
    assert {tp: weight_load_refusals(m, tp) for tp in (2, 4, 8, 16)} == {2: (), 4: (), 8: (), 16: ()}


def test_an_unknown_fp8_reupload_keeps_the_assumed_blocks():
    m = find_model("SomeOrg/GLM-4.5-Air-FP8")
    assert m.extra.get("quantization_config_assumed") is True
    refusals = weight_load_refusals(m, 8)
    assert [(r.sure, r.experts) for r in refusals] == [(False, True)]
    assert "176 columns of each expert's gate/up projection" in refusals[0].message


@pytest.mark.parametrize(("tp", "rc", "per_gpu"), [(4, 0, "25.20 GiB per GPU"), (8, 1, "12.62 GiB per GPU")])
def test_plan_loads_glm45_air_fp8_at_the_recipes_tp(capsys, tp, rc, per_gpu):
    # vllm-project/recipes GLM/GLM-4.5.md at 5009b047: "Start server with FP8 model on 4 GPUs" over
    # vllm serve zai-org/GLM-4.5-Air-FP8 --tensor-parallel-size 8. Both load (no SW203); at TP8 SW104 says two TP4
    # replicas fit the same GPUs, which is its own judgement and the exit status 1
    assert main(["plan", "--model", "zai-org/GLM-4.5-Air-FP8", "--gpu", "H100", "--tp", str(tp),
                 "--vllm-version", "0.10.0"]) == rc
    out, _ = capsys.readouterr()
    assert f"TP{tp} × PP1 = {tp} GPUs per engine" in out
    assert f"108.1 GB fp8 in total, {per_gpu}" in out
    assert "  starts                      yes" in out
    assert "SW203" not in out


@pytest.mark.parametrize(
    ("model_id", "base", "params", "kv_bytes_per_token"),
    [
        # 28 layers x 4 KV heads x 128 x (K + V) x 2 bytes; 48 x 8 x 128 x 2 x 2
        ("Qwen/Qwen2.5-7B-Instruct-1M", "Qwen/Qwen2.5-7B-Instruct", 7_615_616_512, 57_344),
        ("Qwen/Qwen2.5-14B-Instruct-1M", "Qwen/Qwen2.5-14B-Instruct", 14_770_033_664, 196_608),
    ],
)
def test_qwen25_1m_is_its_base_at_1_010_000_tokens(model_id, base, params, kv_bytes_per_token):
    m, b = find_model(model_id), find_model(base)
    assert (m.params, m.num_hidden_layers, m.num_key_value_heads) == (params, b.num_hidden_layers, b.num_key_value_heads)
    assert (m.max_position_embeddings, b.max_position_embeddings) == (1_010_000, 32_768)
    assert m.hf_config["dual_chunk_attention_config"] == {
        "chunk_size": 262_144, "local_size": 8_192, "original_max_position_embeddings": 262_144}
    assert m.hf_config["rope_theta"] == 10_000_000.0
    # Dual Chunk Attention keeps every key and value in vLLM's paged cache: the base's bytes per token
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == kv_bytes_per_token


def test_plan_holds_the_whole_1m_context_of_qwen25_7b_1m(capsys):
    # vLLM's examples/offline_inference/qwen_1m.py serves it at TP4 (no GPU named); on H100 one request of
    # 1,010,000 tokens needs 1,010,000 x 14,336 bytes = 13.5 GiB of KV per GPU at TP4
    assert main(["plan", "--model", "Qwen/Qwen2.5-7B-Instruct-1M", "--gpu", "H100", "--tp", "4",
                 "--max-model-len", "1010000", "--max-num-seqs", "1", "--vllm-version", "0.10.0"]) == 1
    out, _ = capsys.readouterr()
    assert "KV bytes per token per GPU  14,336" in out
    assert "max_model_len               1,010,000 (the model allows 1,010,000)" in out
    assert "  starts                      yes" in out
    # without the example's 131,072 batched tokens declared, two TP2 replicas hold the same context: SW104
    assert "SW104 [mandatory] Qwen/Qwen2.5-7B-Instruct-1M is sharded over 4 GPUs per replica" in out
