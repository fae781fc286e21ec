"""Models the wide corpus serves that the catalog lacked (issue 28, round 9): Qwen2.5-Coder-1.5B (the base model),
Qwen3-Embedding-0.6B (served with ``--runner pooling``) and Granite-8B-Code-Instruct-128K.

Each record is checked against the config keys it was taken from (``derive_params`` of them gives its count, and the
published total agrees), then the KV bytes per token vLLM caches and the weights per GPU of a layout. A manifest serving
each is decided, and the families still missing stay undecided (SW004).
"""

from __future__ import annotations

from typing import Any

import pytest
from family_manifest import deployment, lint
from shardwise.rules.adapters import load_inputs
from shardwise.rules.app.cli import main
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.group import engine_settings, pooling_runner
from shardwise.rules.catalog import derive_params, find_model, shape_from_config
from shardwise.rules.vllm import kv_layout
from shardwise.rules.vllm.versions import behaviour

# Qwen/Qwen3-Embedding-0.6B's config.json keys as public ports restate them (vocabulary 151,669, not Qwen3-0.6B's 151,936)
QWEN3_EMBEDDING_06B: dict[str, Any] = {
    "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 1024, "num_hidden_layers": 28,
    "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 3072,
    "vocab_size": 151669, "max_position_embeddings": 32768, "rope_theta": 1000000, "tie_word_embeddings": True,
}

# ibm-granite/granite-8b-code-instruct-128k: a Llama with biases on attention and MLP, tied heads, 128,000 positions
GRANITE_8B_CODE_128K: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 36,
    "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 49152,
    "max_position_embeddings": 128000, "rope_scaling": None, "attention_bias": True, "mlp_bias": True,
    "tie_word_embeddings": True,
}


def test_qwen25_coder_15b_base_is_the_instruct_shape():
    m = find_model("Qwen/Qwen2.5-Coder-1.5B")
    assert m is find_model("Qwen/Qwen2.5-Coder-1.5B-Instruct")
    # the card's 1.54B, 28 layers, 12 Q / 2 KV heads, tied, a config.json for 32,768 tokens
    assert (m.params, m.num_hidden_layers, m.num_key_value_heads, m.max_position_embeddings) == (
        1_543_714_304, 28, 2, 32_768)
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 28 * 2 * 128 * 2 * 2 == 28_672
    sized = sizing.size_replica(m, 22.0, vllm_version="0.20.0", max_model_len=32_768)
    assert (round(sized.weights_gib_per_gpu, 2), sized.starts) == (2.88, True)


def test_qwen3_embedding_06b_counts_and_caches():
    # Qwen3-0.6B's decoder with 267 rows fewer in the tied embedding: 596,049,920 - 267 x 1024
    assert derive_params(QWEN3_EMBEDDING_06B) == find_model("Qwen/Qwen3-0.6B").params - 267 * 1024 == 595_776_512
    m = find_model("Qwen/Qwen3-Embedding-0.6B")
    assert (m.params, m.vocab_size, m.max_position_embeddings, m.tie_word_embeddings) == (
        595_776_512, 151_669, 32_768, True)
    taught = shape_from_config(QWEN3_EMBEDDING_06B, model_id="qwen3-embedding", source="config.json")
    assert (taught.params, taught.head_dim) == (m.params, 128)
    # a causal decoder: pooled, but its 28 layers keep keys and values, 8 KV heads x 128 x 2 x 2 bytes each
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 114_688
    sized = sizing.size_replica(m, 22.0, vllm_version="0.20.0", max_model_len=1024)
    assert (round(sized.weights_gib_per_gpu, 2), sized.starts) == (1.12, True)


def test_granite_8b_code_instruct_128k_counts_and_caches():
    # per layer: q/o 4096 x 4096 and k/v 4096 x 1024 with biases, gate/up/down 4096 x 14336 with biases, 2 norms
    layer = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 10_240 + 3 * 4096 * 14336 + 2 * 14336 + 4096 + 2 * 4096
    assert derive_params(GRANITE_8B_CODE_128K) == 36 * layer + 49152 * 4096 + 4096 == 8_054_910_976  # the card's 8B
    m = find_model("ibm-granite/granite-8b-code-instruct-128k")
    assert (m.params, m.max_position_embeddings, m.vocab_size) == (8_054_910_976, 128_000, 49_152)
    assert find_model("ibm-granite/granite-8b-code-base-128k") is m
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 36 * 8 * 128 * 2 * 2 == 147_456
    # an A10G (22 GiB) holds the weights but not 32,768 tokens at 0.9; an H100 holds the full 128,000
    assert not sizing.size_replica(m, 22.0, vllm_version="0.20.0", max_model_len=32_768).starts
    sized = sizing.size_replica(m, 79.19, vllm_version="0.20.0", max_model_len=128_000)
    assert (round(sized.weights_gib_per_gpu, 2), sized.kv_bytes_per_token_per_gpu, sized.starts) == (
        15.03, 147_456, True)


NEW = ["Qwen/Qwen2.5-Coder-1.5B", "Qwen/Qwen3-Embedding-0.6B", "ibm-granite/granite-8b-code-instruct-128k"]



def _findings(tmp_path, model_id: str, tp: int, extra: str = ""):
    return [f for f in lint(tmp_path, deployment(model_id, tp, extra=extra)) if f.subject == "Deployment llm/server"]


@pytest.mark.parametrize("model_id", NEW)
def test_a_manifest_serving_a_new_record_is_decided(tmp_path, model_id):
    extra = ', --runner, pooling' if "Embedding" in model_id else ""
    mine = _findings(tmp_path, model_id, 1, extra)
    assert not [f for f in mine if f.code == "SW004" or f.undecided], model_id
    assert not [f for f in mine if f.code.startswith("SW1") and f.level == "mandatory"], model_id


@pytest.mark.parametrize("model_id", ["mistralai/Mistral-Large-3-675B-Instruct-2512", "deepseek-ai/DeepSeek-V4-Flash"])
def test_a_family_still_missing_stays_undecided(tmp_path, model_id):
    mine = _findings(tmp_path, model_id, 8)
    assert [f.code for f in mine if f.code == "SW004"] == ["SW004"]


@pytest.mark.parametrize("model_id", NEW)
def test_plan_runs_for_each_new_record(model_id, capsys):
    assert main(["plan", "--model", model_id, "--gpu", "H100"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err and find_model(model_id).id in out


@pytest.mark.parametrize(("extra", "pooling"), [
    ({"runner": "pooling"}, True), ({"task": "embed"}, True), ({"convert": "classify"}, True),
    ({"task": "score"}, True), ({"runner": "generate"}, False), ({"runner": "auto"}, False), ({}, False),
])
def test_the_pooling_runner_is_read_from_the_flags(extra, pooling):
    assert pooling_runner(extra) is pooling


def test_the_pooling_runner_charges_no_sampler():
    # V1 runs the pooler where it would run the sampler (profile and warm-up): no logits over 151,669 entries are made;
    # what stays is the batch's hidden states the pooler reads, 8,192 tokens x 1024 x 2 bytes
    m = find_model("Qwen/Qwen3-Embedding-0.6B")
    gen = sizing.size_deployment(m, sizing.Device.of(None, 79.19), sizing.EngineSettings(max_model_len=32_768), "0.20.0")
    pool = sizing.size_deployment(m, sizing.Device.of(None, 79.19),
                                  sizing.EngineSettings(max_model_len=32_768, pooling=True), "0.20.0")
    assert (round(gen.sampler_gib_per_gpu, 2), pool.sampler_gib_per_gpu) == (2.26, 8192 * 1024 * 2 / 2**30)
    # the profile peak falls from the sampler run to the cold compile's, one copy of the 151,669 x 1,024 embedding
    # (0.29 GiB, above the forward pass's 0.19; sizing.cold_compile_gib): 1.97 GiB more for the KV cache (2.07 warm)
    assert (round(pool.activation_gib_per_gpu, 2), round(pool.available_kv_gib - gen.available_kv_gib, 2)) == (0.29, 1.97)
    assert (pool.weights_gib_per_gpu, pool.kv_bytes_per_token_per_gpu) == (gen.weights_gib_per_gpu, 114_688)


def test_a_manifest_with_the_pooling_runner_reaches_the_settings(tmp_path):
    path = tmp_path / "deploy.yaml"
    path.write_text(deployment("Qwen/Qwen3-Embedding-0.6B", 1, extra=", --runner, pooling"))
    (g,) = load_inputs([str(path)]).groups
    assert engine_settings(g).pooling
    path.write_text(deployment("Qwen/Qwen3-0.6B", 1))
    (g,) = load_inputs([str(path)]).groups
    assert not engine_settings(g).pooling


def test_the_pooling_runner_stays_on_the_v1_runner():
    # 0.22 runs Qwen3 dense models on Model Runner V2 by default, generative ones only: a 0.22.0 log of
    # Qwen3-Embedding-8B with --runner pooling shows the V1 runner's CUDA graph estimate
    m = find_model("Qwen/Qwen3-Embedding-0.6B")
    assert sizing.model_runner_v2(m, behaviour("0.22.0"), "bf16") is True
    assert sizing.model_runner_v2(m, behaviour("0.22.0"), "bf16", pooling=True) is False
