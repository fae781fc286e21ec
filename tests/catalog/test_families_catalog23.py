"""Granite 4.0 H-1B, the dense twin of Granite 4.0 H-Tiny's hybrid layout (issue 28, catalog23).

ibm-granite/granite-4.0-h-1b (``GraniteMoeHybridForCausalLM``, ``num_local_experts`` 0): 36 Mamba2 layers and 4
attention layers (5, 15, 25, 35) of hidden 1536, a dense MLP of 4096 on every layer, vocabulary 100352 tied, 131,072
tokens. Its record is the config keys a public simulator's test quotes "verbatim from the published config.json
(2026-08-24)" (the same test's Granite-4.0-H-Tiny keys are the catalog's granite-4.0-h-tiny record); the model card
gives 1.5B parameters. The record is checked for its parameters, KV bytes per token and state, weights, and that a
manifest serving it is decided.
"""

from __future__ import annotations

from typing import Any

from family_manifest import deployment, lint
from shardwise.rules.capacity import sizing
from shardwise.rules.catalog import derive_params, find_model, shape_from_config
from shardwise.rules.vllm import kv_layout

_TYPES = ["mamba"] * 5 + ["attention"] + ["mamba"] * 9 + ["attention"] + ["mamba"] * 9 + ["attention"] + [
    "mamba"] * 9 + ["attention"] + ["mamba"] * 4

#: the test's GRANITE_H_1B_HF, with the architecture and dtype the published file states
GRANITE_H_1B: dict[str, Any] = {
    "architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "hidden_size": 1536,
    "num_hidden_layers": 40, "num_attention_heads": 12, "num_key_value_heads": 4, "intermediate_size": 4096,
    "shared_intermediate_size": 4096, "num_local_experts": 0, "num_experts_per_tok": 0, "vocab_size": 100352,
    "tie_word_embeddings": True, "mamba_d_state": 128, "mamba_n_groups": 1, "mamba_n_heads": 48, "mamba_d_head": 64,
    "mamba_expand": 2, "mamba_d_conv": 4, "mamba_chunk_size": 256, "max_position_embeddings": 131072,
    "layer_types": _TYPES, "torch_dtype": "bfloat16",
}


def test_granite_h_1b_counts_its_mixers_by_hand():
    h, inner, heads, state = 1536, 2 * 1536, 48, 128
    mamba = (h * (2 * inner + 2 * state + heads)  # in_proj: z and x, B and C (one group), dt
             + (inner + 2 * state) * 4 + (inner + 2 * state)  # depthwise conv of 4 taps with its bias
             + 3 * heads + inner  # dt bias, A, D; the gated RMSNorm
             + inner * h)  # out_proj
    attention = h * 12 * 128 + 2 * h * 4 * 128 + 12 * 128 * h  # q, k, v, o; no position embedding weights
    mlp = 3 * h * 4096  # the dense (shared) MLP on every layer
    params = 100352 * h + 36 * mamba + 4 * attention + 40 * mlp + 40 * 2 * h + h  # tied; two norms a layer, final
    assert derive_params(GRANITE_H_1B) == params == 1_461_538_368


def test_granite_h_1b_record_is_its_config():
    m = find_model("ibm-granite/granite-4.0-h-1b")
    taught = shape_from_config(GRANITE_H_1B, model_id="ibm-granite/granite-4.0-h-1b", source="config.json")
    for field in ("params", "num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads",
                  "head_dim", "intermediate_size", "vocab_size", "max_position_embeddings", "tie_word_embeddings",
                  "moe", "precision"):
        assert getattr(m, field) == getattr(taught, field), field
    assert (m.params, m.head_dim, m.moe, m.precision) == (1_461_538_368, 128, None, "bf16")
    assert m.hf_config["layer_types"] == _TYPES
    assert find_model("ibm-granite/granite-4.0-h-1b-base") is m


def test_granite_h_1b_caches_keys_on_four_layers_and_a_state_on_the_others():
    m, tiny = find_model("ibm-granite/granite-4.0-h-1b"), find_model("ibm-granite/granite-4.0-h-tiny")
    assert kv_layout.unmodelled_reason(m) == ""
    # 4 attention layers x 4 KV heads x 128 x 2 (K and V) x 2 bytes
    assert kv_layout.replica_token_bytes(m, 1, 1, 2) == 4 * 4 * 128 * 2 * 2 == 8192
    full, state = kv_layout.layout(m, 1, 1, 2).types
    assert (full.kind, full.layers, full.bytes_per_token) == ("full", 4, 2048)
    # a conv state of 3 taps x (3072 + 2 x 128) and an SSM state of 48 heads x 64 x 128, both 16-bit
    assert (state.kind, state.layers, state.state_bytes) == ("state", 36, 3 * 3328 * 2 + 48 * 64 * 128 * 2)
    # the same mixers as H-Tiny: only the MLP differs
    assert kv_layout.layout(tiny, 1, 1, 2).types == (full, state)


def test_granite_h_1b_weights_on_an_l4():
    m = find_model("ibm-granite/granite-4.0-h-1b")
    sized = sizing.size_replica(m, 21.99, tp=1, vllm_version="0.18.1", max_model_len=32_768)
    # BF16 weights plus the rotary cos/sin cache vLLM keeps: 131,072 positions x 128 x 2 bytes
    assert sized.weights_gib_per_gpu * 2**30 == m.params * 2 + 131_072 * 128 * 2
    assert (round(sized.weights_gib_per_gpu, 2), sized.starts) == (2.75, True)


def test_a_manifest_serving_granite_h_1b_is_decided(tmp_path):
    for model_id in ("ibm-granite/granite-4.0-h-1b", "ibm-granite/granite-4.0-h-1b-base"):
        mine = [f for f in lint(tmp_path, deployment(model_id, 1)) if f.subject == "Deployment llm/server"]
        assert not [f for f in mine if f.code == "SW004" or f.undecided], (model_id, [f.code for f in mine])
        assert not [f for f in mine if f.code.startswith("SW1") and f.level == "mandatory"], model_id
