"""Liquid AI's LFM2 / LFM2.5 hybrids (issue 28, catalog44): short-convolution layers between grouped-query attention.

vLLM (``models/lfm2.py``, ``models/lfm2_moe.py`` at 0.34.0) caches keys and values only on the ``full_attention``
layers; a ``conv`` layer keeps a conv state of ``conv_L_cache - 1`` columns of its width per request
(``MambaStateShapeCalculator.short_conv_state_shape``). The dense model's MLP is narrower than the config's
``block_ff_dim`` / ``intermediate_size`` (``Lfm2MLP``: two thirds, rounded up to ``block_multiple_of``), and the LM head
is always tied. Each record is checked against the config keys it was taken from, then its KV bytes per token, its
state per request and the weights per GPU of a layout; a manifest serving each is decided.
"""

from __future__ import annotations

from typing import Any

import pytest
from family_manifest import deployment, lint
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.weights import expert_params, moe_layers
from shardwise.rules.catalog import derive_params, find_model, shape_from_config
from shardwise.rules.vllm import kv_layout

_TYPES_16 = ["conv", "conv", "full_attention", "conv", "conv", "full_attention", "conv", "conv", "full_attention",
             "conv", "full_attention", "conv", "full_attention", "conv", "full_attention", "conv"]

# LiquidAI/LFM2-1.2B's config.json as public ports restate it: the first LFM2 configs give full_attn_idxs, not
# layer_types, and block_ff_dim, not intermediate_size
LFM2_12B: dict[str, Any] = {
    "architectures": ["Lfm2ForCausalLM"], "model_type": "lfm2", "block_auto_adjust_ff_dim": True, "block_dim": 2048,
    "block_ff_dim": 12288, "block_multiple_of": 256, "block_ffn_dim_multiplier": 1.0, "conv_L_cache": 3,
    "conv_bias": False, "conv_dim": 2048, "full_attn_idxs": [2, 5, 8, 10, 12, 14], "hidden_size": 2048,
    "max_position_embeddings": 128000, "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8,
    "rope_theta": 1000000.0, "vocab_size": 65536,
}

# LiquidAI/LFM2.5-1.2B-Instruct's (abridged, as a public write-up quotes it): layer_types and intermediate_size
LFM25_12B: dict[str, Any] = {
    "architectures": ["Lfm2ForCausalLM"], "model_type": "lfm2", "hidden_size": 2048, "intermediate_size": 12288,
    "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 65536,
    "max_position_embeddings": 128000, "rope_theta": 1000000.0, "tie_embedding": True, "dtype": "bfloat16",
    "conv_L_cache": 3, "conv_bias": False, "conv_dim": 2048, "layer_types": _TYPES_16,
}

# LiquidAI/LFM2-8B-A1B's, as a public TensorRT port's test restates it
LFM2_8B_A1B: dict[str, Any] = {
    "architectures": ["Lfm2MoeForCausalLM"], "model_type": "lfm2_moe", "vocab_size": 65536, "hidden_size": 2048,
    "intermediate_size": 7168, "num_hidden_layers": 24, "num_attention_heads": 32, "num_key_value_heads": 8,
    "layer_types": ["full_attention" if i in (2, 6, 10, 14, 18, 21) else "conv" for i in range(24)],
    "conv_L_cache": 3, "conv_bias": False, "rope_theta": 1000000.0, "max_position_embeddings": 128000,
    "num_experts": 32, "num_experts_per_tok": 4, "moe_intermediate_size": 1792, "num_dense_layers": 2,
    "use_expert_bias": True,
}

# one short-convolution layer of hidden 2048: in_proj 2048 x 3·2048, the 3-tap depthwise conv, out_proj 2048 x 2048
_CONV_2048 = 2048 * 3 * 2048 + 2048 * 3 + 2048 * 2048
# one attention layer: q and o 2048 x 2048, k and v 2048 x 8·64, q and k norms of one head
_ATTN_2048 = 2 * 2048 * 2048 + 2 * 2048 * 512 + 2 * 64


def test_lfm2_12b_counts_its_layers_as_vllm_builds_them():
    mlp = 3 * 2048 * 8192  # block_ff_dim 12288 serves as int(2 x 12288 / 3) = 8192 (already a multiple of 256)
    expected = 65536 * 2048 + 10 * _CONV_2048 + 6 * _ATTN_2048 + 16 * (mlp + 2 * 2048) + 2048
    assert derive_params(LFM2_12B) == expected == 1_170_340_608  # the card's 1.17B
    m = find_model("LiquidAI/LFM2-1.2B")
    assert (m.params, m.intermediate_size, m.tie_word_embeddings, m.max_position_embeddings) == (
        1_170_340_608, 8192, True, 128_000)
    taught = shape_from_config(LFM2_12B, model_id="lfm2", source="config.json")
    assert (taught.params, taught.intermediate_size, taught.head_dim) == (m.params, 8192, 64)
    # full_attn_idxs becomes layer_types: the others are conv layers
    assert taught.hf_config["layer_types"] == _TYPES_16


def test_lfm25_12b_is_lfm2_12b_from_its_newer_config():
    assert derive_params(LFM25_12B) == 1_170_340_608  # 2,340.70 MB of BF16 in a public write-up: 2 bytes each
    m = find_model("LiquidAI/LFM2.5-1.2B-Instruct")
    for alias in ("LiquidAI/LFM2.5-1.2B-Thinking", "LiquidAI/LFM2.5-1.2B-Base", "LiquidAI/LFM2.5-1.2B-JP"):
        assert find_model(alias) is m
    assert (m.params, m.intermediate_size) == (1_170_340_608, 8192)


def test_the_mlp_width_follows_the_auto_adjust_keys():
    # without block_auto_adjust_ff_dim the width is the config's (LFM2.5-2.6B's configs turn it off)
    off = {**LFM25_12B, "block_auto_adjust_ff_dim": False, "intermediate_size": 10752}
    assert shape_from_config(off, model_id="x", source="c").intermediate_size == 10752
    # 6656 (LFM2-350M): int(4437.33) = 4437, rounded up to 256 = 4608; a multiplier of 1.5 first makes 6655 -> 6656
    small = {**LFM25_12B, "intermediate_size": 6656}
    assert shape_from_config(small, model_id="x", source="c").intermediate_size == 4608
    wider = {**small, "block_ffn_dim_multiplier": 1.5}
    assert shape_from_config(wider, model_id="x", source="c").intermediate_size == 6656


def test_lfm2_caches_keys_only_on_its_attention_layers():
    m = find_model("LiquidAI/LFM2-1.2B")
    assert kv_layout.unmodelled_reason(m) == ""
    # 6 attention layers x 8 KV heads x 64 x 2 (K and V) x 2 bytes; the 10 conv layers cache none
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 6 * 8 * 64 * 2 * 2 == 12_288
    assert kv_layout.replica_token_bytes(m, 2, 1, 2) == 6_144
    (full, state) = kv_layout.layout(m, 1, 1, 2).types
    assert (full.kind, full.layers, full.bytes_per_token) == ("full", 6, 2048)
    # a conv layer's state: (conv_L_cache - 1) x conv_dim x 2 bytes per request, split by TP
    assert (state.kind, state.layers, state.state_bytes) == ("state", 10, 2 * 2048 * 2)
    assert kv_layout.short_conv_state_bytes(m, 2) == 4096
    assert 10 * state.state_bytes == 81_920


def test_lfm2_350m_counts_and_caches():
    m = find_model("LiquidAI/LFM2-350M")
    assert find_model("LiquidAI/LFM2.5-350M") is m
    conv = 1024 * 3 * 1024 + 1024 * 3 + 1024 * 1024
    attn = 2 * 1024 * 1024 + 2 * 1024 * 512 + 2 * 64
    assert m.params == 65536 * 1024 + 10 * conv + 6 * attn + 16 * (3 * 1024 * 4608 + 2 * 1024) + 1024 == 354_483_968
    assert m.intermediate_size == 4608
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 12_288
    assert kv_layout.short_conv_state_bytes(m, 1) == 4096


def test_lfm2_8b_a1b_counts_its_experts_after_the_dense_layers():
    moe = 2048 * 32 + 32 + 32 * 3 * 2048 * 1792  # router, score-correction bias, 32 SwiGLU experts of 1792
    expected = 65536 * 2048 + 18 * _CONV_2048 + 6 * _ATTN_2048 + 2 * 3 * 2048 * 7168 + 22 * moe + 24 * 2 * 2048 + 2048
    assert derive_params(LFM2_8B_A1B) == expected == 8_339_930_560  # the card's 8.3B
    m = find_model("LiquidAI/LFM2-8B-A1B")
    assert find_model("LiquidAI/LFM2.5-8B-A1B") is m
    assert m.moe is not None
    assert (m.params, m.moe.num_experts, m.moe.experts_per_token, m.moe.moe_intermediate_size) == (
        8_339_930_560, 32, 4, 1792)
    # the MoE model's MLP keeps intermediate_size as it is (no auto-adjust in lfm2_moe.py)
    assert m.intermediate_size == 7168
    assert (moe_layers(m), expert_params(m)) == (22, 22 * 32 * 3 * 2048 * 1792)
    # its conv state is sized on hidden_size (lfm2_moe.py passes hidden_size, not conv_dim)
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 12_288
    assert kv_layout.short_conv_state_bytes(m, 1) == 8192


@pytest.mark.parametrize(("model_id", "gib"), [
    ("LiquidAI/LFM2.5-1.2B-Instruct", 2.2), ("LiquidAI/LFM2-350M", 0.68), ("LiquidAI/LFM2-8B-A1B", 15.55)])
def test_weights_and_a_start_on_an_l4(model_id, gib):
    m = find_model(model_id)
    sized = sizing.size_replica(m, 22.03, vllm_version="0.34.0", max_model_len=32_768)
    # BF16 weights plus the rotary cos/sin cache of 128,000 positions x 64 x 2 bytes the capacity model charges
    assert sized.weights_gib_per_gpu * 2**30 == m.params * 2 + 128_000 * 64 * 2
    assert (round(sized.weights_gib_per_gpu, 2), sized.kv_bytes_per_token_per_gpu, sized.starts) == (gib, 12_288, True)


NEW = ["LiquidAI/LFM2-1.2B", "LiquidAI/LFM2.5-1.2B-Instruct", "LiquidAI/LFM2.5-350M", "LiquidAI/LFM2.5-8B-A1B"]


@pytest.mark.parametrize("model_id", NEW)
def test_a_manifest_serving_an_lfm2_model_is_decided(tmp_path, model_id):
    mine = [f for f in lint(tmp_path, deployment(model_id, 1)) if f.subject == "Deployment llm/server"]
    assert not [f for f in mine if f.code == "SW004" or f.undecided], model_id
    assert not [f for f in mine if f.code.startswith("SW1") and f.level == "mandatory"], model_id


def test_qwen38_27b_is_qwen36_27b_as_vllms_recipe_describes_it():
    m = find_model("Qwen/Qwen3.8-27B")
    base = find_model("Qwen/Qwen3.6-27B")
    assert m.extra["inherits"] == "Qwen/Qwen3.6-27B"
    assert (m.params, m.vision_params, m.num_hidden_layers, m.num_attention_heads, m.max_position_embeddings) == (
        base.params, base.vision_params, 64, 24, 262_144)
    # the recipe's 51.7 GiB of BF16 weights: the decoder, the vision tower and the 1-layer MTP head (424,699,392)
    assert round((m.params + 424_699_392) * 2 / 2**30, 1) == 51.7
    # 16 full-attention layers of 4 KV heads x 256 cache keys and values; the 48 Gated DeltaNet layers a state
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 16 * 4 * 256 * 2 * 2 == 65_536
    assert kv_layout.unmodelled_reason(m) == ""


@pytest.mark.parametrize("model_id", ["Qwen/Qwen3.8-27B"])
def test_a_manifest_serving_qwen38_27b_on_two_gpus_is_decided(tmp_path, model_id):
    mine = [f for f in lint(tmp_path, deployment(model_id, 2)) if f.subject == "Deployment llm/server"]
    assert not [f for f in mine if f.code == "SW004" or f.undecided], [f.code for f in mine]


def test_a_taught_lfm2_config_splits_its_layers_by_pipeline_stage():
    taught = shape_from_config(LFM2_12B, model_id="lfm2", source="config.json")
    # PP2 gives layers 0-7 (attention at 2 and 5) and 8-15 (attention at 8, 10, 12, 14) to the two stages
    first, second = (kv_layout.layout(taught, 1, 2, 2, stage=s).types for s in (0, 1))
    assert [(t.kind, t.layers) for t in first] == [("full", 2), ("state", 6)]
    assert [(t.kind, t.layers) for t in second] == [("full", 4), ("state", 4)]
    # the conv state (8,192 bytes) fits one layer's attention page at the release's default block (16 x 2,048 to
    # 0.33; 64 x 2,048 from 0.34, whose CacheConfig.DEFAULT_BLOCK_SIZE is 64): the block stays the default
    for release, block in (("0.33.0", 16), ("0.34.0", 64)):
        sized = sizing.size_replica(taught, 22.03, vllm_version=release, max_model_len=32_768)
        assert (release, sized.block_size, sized.hybrid_kv) == (release, block, True)
